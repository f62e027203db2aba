//! A small raw HTTP/1.1 client over `std::net::TcpStream`, so tests can send
//! exactly the bytes they mean (malformed heads, pipelined requests, bodies that
//! never arrive) and read exactly what the server answers.
//!
//! It understands `Content-Length`, chunked and read-to-close bodies, nothing more.
//! A connection is plain TCP or TLS over it ([`Duplex`]), trusting the
//! certificate the test gave the router.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// A client connection's byte stream: plain TCP, or TLS over TCP.
pub trait Duplex: Read + Write + Send {
    /// Ends the writing side (the server sees end of input).
    fn shutdown_write(&mut self);
    /// Closes both directions at once (the client goes away).
    fn close(&mut self);
}

impl Duplex for TcpStream {
    fn shutdown_write(&mut self) {
        let _ = self.shutdown(std::net::Shutdown::Write);
    }
    fn close(&mut self) {
        let _ = self.shutdown(std::net::Shutdown::Both);
    }
}

impl Duplex for rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    fn shutdown_write(&mut self) {
        self.conn.send_close_notify();
        let _ = self.flush();
        let _ = self.sock.shutdown(std::net::Shutdown::Write);
    }
    fn close(&mut self) {
        let _ = self.sock.shutdown(std::net::Shutdown::Both);
    }
}

/// A TLS client configuration that trusts exactly the certificates in the PEM
/// file `ca` (the test's own).
pub fn tls_client(ca: &std::path::Path) -> Arc<rustls::ClientConfig> {
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_file_iter(ca).expect("read the test CA") {
        roots
            .add(cert.expect("a PEM certificate"))
            .expect("a usable CA certificate");
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// Opens a connection to `addr`, over TLS when `tls` is given (the server
/// named `localhost`).
pub fn open_stream(addr: SocketAddr, tls: Option<&Arc<rustls::ClientConfig>>) -> Box<dyn Duplex> {
    let stream = TcpStream::connect(addr).expect("connect to gsmcp");
    stream
        .set_read_timeout(Some(READ_BOUND))
        .expect("set read timeout");
    match tls {
        None => Box::new(stream),
        Some(config) => {
            let name = rustls::pki_types::ServerName::try_from("localhost").expect("a name");
            let conn = rustls::ClientConnection::new(config.clone(), name).expect("a TLS client");
            Box::new(rustls::StreamOwned::new(conn, stream))
        }
    }
}

/// Safety net for reads: a test never hangs forever on a silent server.
pub const READ_BOUND: Duration = Duration::from_secs(60);

/// One HTTP response.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body, as received (de-chunked).
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; panics with the body if it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.text()))
    }

    /// The last JSON-RPC message of a POST answer, whether it came as a JSON
    /// body or as an event stream (where the reply follows any notifications).
    pub fn final_message(&self) -> Value {
        if self.header("content-type") != Some("text/event-stream") {
            return self.json();
        }
        let text = self.text();
        let data = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .rfind(|d| !d.is_empty())
            .unwrap_or_else(|| panic!("no message in {text}"))
            .to_string();
        serde_json::from_str(&data).expect("JSON data")
    }

    /// `error.code` of a JSON-RPC error body.
    pub fn rpc_error_code(&self) -> Option<i64> {
        self.json().get("error")?.get("code")?.as_i64()
    }
}

/// Formats one request. `Content-Length` is added when `body` is not empty and
/// no such header was given.
pub fn format_request(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{method} {path} HTTP/1.1\r\n").into_bytes();
    for (k, v) in headers {
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    let has_length = headers.iter().any(|(k, _)| {
        k.eq_ignore_ascii_case("content-length") || k.eq_ignore_ascii_case("transfer-encoding")
    });
    if !has_length && (!body.is_empty() || method == "POST") {
        out.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// One client connection.
pub struct RawConn {
    reader: BufReader<Box<dyn Duplex>>,
}

impl RawConn {
    /// Opens a plain connection to `addr`.
    pub fn connect(addr: SocketAddr) -> RawConn {
        RawConn::over(open_stream(addr, None))
    }

    /// A connection over an open stream.
    pub fn over(stream: Box<dyn Duplex>) -> RawConn {
        RawConn {
            reader: BufReader::new(stream),
        }
    }

    /// Writes bytes as they are.
    pub fn send(&mut self, bytes: &[u8]) {
        let stream = self.reader.get_mut();
        stream.write_all(bytes).expect("write to gsmcp");
        stream.flush().expect("flush");
    }

    /// Like [`send`](Self::send) but reports a failed write (the server may
    /// have closed the connection already).
    pub fn try_send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.reader.get_mut().write_all(bytes)
    }

    /// Reads one response. `Err(UnexpectedEof)` if the server closed the
    /// connection before a status line.
    pub fn read_response(&mut self) -> std::io::Result<HttpResponse> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if self.reader.read_line(&mut h)? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let get = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let mut body = Vec::new();
        if let Some(len) = get("content-length") {
            let len: usize = len
                .parse()
                .map_err(|_| std::io::Error::other("bad Content-Length"))?;
            body.resize(len, 0);
            self.reader.read_exact(&mut body)?;
        } else if get("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
            loop {
                let mut size = String::new();
                self.reader.read_line(&mut size)?;
                let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| std::io::Error::other("bad chunk size"))?;
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk)?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else if status != 204 && status != 304 && !(100..200).contains(&status) {
            // No length: the body runs to the end of the connection, except for
            // statuses that never carry one; 202 from this server has length 0.
            self.reader.read_to_end(&mut body)?;
        }
        Ok(HttpResponse {
            status,
            headers,
            body,
        })
    }

    /// Reads until the server closes the connection; the bytes received.
    pub fn read_to_close(&mut self) -> std::io::Result<Vec<u8>> {
        let mut all = Vec::new();
        self.reader.read_to_end(&mut all)?;
        Ok(all)
    }

    /// Half-closes the writing side (the server sees end of input).
    pub fn shutdown_write(&mut self) {
        self.reader.get_mut().shutdown_write();
    }
}
