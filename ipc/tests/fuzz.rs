//! Treats the frame decoder as the attack surface it is: random bodies, random
//! length prefixes and truncated frames must give an error (or, by chance, a
//! frame), never a panic, a hang or an allocation the prefix asked for beyond
//! the limit.

use gsmcp_ipc::*;
use proptest::prelude::*;
use std::io::{self, Cursor, Read};

/// A reader that records the largest single read buffer it was handed, so a test
/// can see that an oversize prefix was refused before a body buffer existed.
struct Recording<R> {
    inner: R,
    largest_buf: usize,
}

impl<R: Read> Read for Recording<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.largest_buf = self.largest_buf.max(buf.len());
        self.inner.read(buf)
    }
}

fn sample_frames() -> Vec<Vec<u8>> {
    let frames: Vec<ToWorker> = vec![
        ToWorker::Call {
            call_id: 1,
            request: Request {
                id: Some(Json::Int(1)),
                method: "tools/call".into(),
                params: Some(Json::Object(vec![(
                    "arguments".into(),
                    Json::Array(vec![Json::Null, Json::Float(0.5), Json::String("x".into())]),
                )])),
                progress_token: Some(Json::String("p".into())),
            },
        },
        ToWorker::Cancel { call_id: u64::MAX },
        ToWorker::Shutdown,
        ToWorker::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            session_id: "s".repeat(32),
            port: 1,
            backend: Backend::Embedded {
                repository: None,
                user: "DataCurator".into(),
                credential: Credential::Password("p".into()),
            },
            toolsets: vec!["Session".into()],
            options: vec![],
            server_name: "gsmcp".into(),
            server_version: "0".into(),
            title: None,
            instructions: None,
            log_filter: "info".into(),
            memory: 64 << 20,
            withheld: Vec::new(),
            read_only: false,
            one_shot: false,
        }),
    ];
    frames.iter().map(|f| encode_frame(f).unwrap()).collect()
}

#[test]
fn oversize_prefixes_are_refused_before_reading_the_body() {
    for len in [MAX_FRAME_LEN + 1, MAX_FRAME_LEN * 2, u32::MAX] {
        // The stream holds the prefix only: a decoder that allocated and read the
        // body would report end of stream instead of TooLarge.
        let mut r = Recording {
            inner: Cursor::new(len.to_le_bytes().to_vec()),
            largest_buf: 0,
        };
        match read_frame::<ToWorker, _>(&mut r) {
            Err(IpcError::TooLarge(n)) => assert_eq!(n, len as u64),
            other => panic!("prefix {len}: expected TooLarge, got {other:?}"),
        }
        assert!(
            r.largest_buf <= 4,
            "prefix {len}: a {}-byte buffer was offered to the reader",
            r.largest_buf
        );
    }
}

#[test]
fn the_largest_allowed_prefix_is_read_not_refused() {
    // MAX_FRAME_LEN itself is allowed; with too few bytes behind it this is an I/O error.
    let mut wire = MAX_FRAME_LEN.to_le_bytes().to_vec();
    wire.extend_from_slice(&[0; 16]);
    match read_frame::<ToWorker, _>(&mut Cursor::new(wire)) {
        Err(IpcError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof),
        other => panic!("expected an end-of-stream error, got {other:?}"),
    }
}

#[test]
fn every_truncation_of_a_valid_frame_is_an_error() {
    for frame in sample_frames() {
        for cut in 0..frame.len() {
            let got = read_frame::<ToWorker, _>(&mut Cursor::new(&frame[..cut]));
            match got {
                Err(IpcError::Closed) => assert_eq!(cut, 0, "Closed only before a prefix"),
                Err(IpcError::Io(e)) => {
                    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "cut at {cut}")
                }
                other => panic!("cut at {cut} of {}: {other:?}", frame.len()),
            }
        }
        assert!(read_frame::<ToWorker, _>(&mut Cursor::new(&frame)).is_ok());
    }
}

#[test]
fn trailing_bytes_in_a_body_are_refused() {
    for frame in sample_frames() {
        let mut body = frame[4..].to_vec();
        body.push(0);
        assert!(matches!(
            decode_body::<ToWorker>(&body),
            Err(IpcError::Trailing(1))
        ));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bodies_never_panic(body in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode_body::<ToWorker>(&body);
        let _ = decode_body::<ToRouter>(&body);
    }

    #[test]
    fn random_streams_never_panic(wire in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut r = Cursor::new(&wire);
        // Read until the stream yields an error; each Ok consumed at least a prefix.
        for _ in 0..wire.len() + 1 {
            if read_frame::<ToRouter, _>(&mut r).is_err() {
                break;
            }
        }
    }

    #[test]
    fn random_prefixes_with_random_bodies(len in any::<u32>(), body in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut wire = len.to_le_bytes().to_vec();
        wire.extend_from_slice(&body);
        match read_frame::<ToWorker, _>(&mut Cursor::new(&wire)) {
            Err(IpcError::TooLarge(n)) => prop_assert!(n > MAX_FRAME_LEN as u64),
            Err(IpcError::Io(e)) => prop_assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof),
            Err(IpcError::Decode(_)) | Err(IpcError::Trailing(_)) | Ok(_) => prop_assert!(len as usize <= body.len()),
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }

    #[test]
    fn mutated_valid_frames_never_panic(idx in 0usize..4, pos in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut frame = sample_frames().swap_remove(idx);
        let at = pos.index(frame.len());
        frame[at] = byte;
        let _ = read_frame::<ToWorker, _>(&mut Cursor::new(&frame));
        let _ = decode_body::<ToWorker>(&frame[4..]);
    }

    #[test]
    fn claimed_string_lengths_do_not_allocate_past_the_limit(claim in (MAX_FRAME_LEN as u64)..u64::MAX) {
        // Call { call_id: 1, request: { id: None, method: <claimed length, no
        // bytes> } } hand-built with bincode's varint: variant 1, call_id 1, no
        // id (0), then a u64 length marker (253).
        let mut body = vec![1u8, 1, 0, 253];
        body.extend_from_slice(&claim.to_le_bytes());
        prop_assert!(decode_body::<ToWorker>(&body).is_err());
    }
}
