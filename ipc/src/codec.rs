//! Length-prefixed bincode framing, blocking and (feature `tokio`) async.
//!
//! The decoder is an attack surface: the length prefix is checked against
//! [`MAX_FRAME_LEN`] before the body buffer is allocated, and a body must decode
//! completely (no trailing bytes) into the expected frame type.

use bincode::{Decode, Encode};
use std::io::{self, Read, Write};

/// The largest frame body either side accepts: the router's 8 MB request limit
/// plus room for the frame's own fields.
pub const MAX_FRAME_LEN: u32 = 16 * 1024 * 1024;

/// Why a frame could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IpcError {
    /// The stream ended cleanly between frames.
    #[error("peer closed the connection")]
    Closed,
    /// A frame longer than [`MAX_FRAME_LEN`] (refused before any of it is read,
    /// or before it is written).
    #[error("frame of {0} bytes exceeds the limit of {MAX_FRAME_LEN}")]
    TooLarge(u64),
    /// A body that is not one of the frames.
    #[error("undecodable frame: {0}")]
    Decode(String),
    /// A body that decoded to a frame with bytes left over.
    #[error("frame has {0} trailing bytes")]
    Trailing(usize),
    /// A frame that could not be encoded.
    #[error("encoding failed: {0}")]
    Encode(String),
    /// The stream failed (or ended inside a frame).
    #[error(transparent)]
    Io(#[from] io::Error),
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_FRAME_LEN as usize }>()
}

/// Encodes `frame` as length prefix + body.
pub fn encode_frame<T: Encode>(frame: &T) -> Result<Vec<u8>, IpcError> {
    let mut out = vec![0u8; 4];
    bincode::encode_into_std_write(frame, &mut out, config())
        .map_err(|e| IpcError::Encode(e.to_string()))?;
    let len = out.len() - 4;
    if len as u64 > MAX_FRAME_LEN as u64 {
        return Err(IpcError::TooLarge(len as u64));
    }
    out[..4].copy_from_slice(&(len as u32).to_le_bytes());
    Ok(out)
}

/// Decodes one frame body (without its length prefix).
pub fn decode_body<T: Decode<()>>(body: &[u8]) -> Result<T, IpcError> {
    let (frame, used) =
        bincode::decode_from_slice(body, config()).map_err(|e| IpcError::Decode(e.to_string()))?;
    if used != body.len() {
        return Err(IpcError::Trailing(body.len() - used));
    }
    Ok(frame)
}

fn check_len(prefix: [u8; 4]) -> Result<usize, IpcError> {
    let len = u32::from_le_bytes(prefix);
    if len > MAX_FRAME_LEN {
        return Err(IpcError::TooLarge(len as u64));
    }
    Ok(len as usize)
}

/// End of stream after `got` bytes of a length prefix: before any byte it is the
/// peer closing cleanly; inside the prefix it is a truncated frame.
fn eof_in_prefix(got: usize) -> IpcError {
    if got == 0 {
        IpcError::Closed
    } else {
        IpcError::Io(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "stream ended inside a frame's length prefix",
        ))
    }
}

/// Reads one frame, blocking. A clean end of stream before a prefix is
/// [`IpcError::Closed`]; an end inside a frame (prefix or body) is an I/O error.
pub fn read_frame<T: Decode<()>, R: Read>(r: &mut R) -> Result<T, IpcError> {
    let mut prefix = [0u8; 4];
    let mut got = 0;
    while got < prefix.len() {
        match r.read(&mut prefix[got..]) {
            Ok(0) => return Err(eof_in_prefix(got)),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut body = vec![0u8; check_len(prefix)?];
    r.read_exact(&mut body)?;
    decode_body(&body)
}

/// Writes one frame and flushes, blocking.
pub fn write_frame<T: Encode, W: Write>(w: &mut W, frame: &T) -> Result<(), IpcError> {
    let bytes = encode_frame(frame)?;
    w.write_all(&bytes)?;
    w.flush()?;
    Ok(())
}

/// Reads one frame from an async stream.
#[cfg(feature = "tokio")]
pub async fn read_frame_async<T: Decode<()>, R: tokio::io::AsyncRead + Unpin>(
    r: &mut R,
) -> Result<T, IpcError> {
    use tokio::io::AsyncReadExt;
    let mut prefix = [0u8; 4];
    let mut got = 0;
    while got < prefix.len() {
        match r.read(&mut prefix[got..]).await {
            Ok(0) => return Err(eof_in_prefix(got)),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut body = vec![0u8; check_len(prefix)?];
    r.read_exact(&mut body).await?;
    decode_body(&body)
}

/// Writes one frame to an async stream and flushes.
#[cfg(feature = "tokio")]
pub async fn write_frame_async<T: Encode, W: tokio::io::AsyncWrite + Unpin>(
    w: &mut W,
    frame: &T,
) -> Result<(), IpcError> {
    use tokio::io::AsyncWriteExt;
    let bytes = encode_frame(frame)?;
    w.write_all(&bytes).await?;
    w.flush().await?;
    Ok(())
}
