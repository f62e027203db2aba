//! Reading Server-Sent Events the way a client sees them: a raw HTTP/1.1
//! exchange whose chunked `text/event-stream` body is decoded and split into
//! events (and comments) one at a time, while the stream is still open.
//!
//! It parses only what the tests need (ids, `event`, `data`, `retry`, comment
//! lines) and never interprets the JSON inside.

use crate::harness::Server;
use crate::harness_http::{format_request, Duplex};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};

/// One event block of a stream.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SseEvent {
    /// The `id` field, if the block has one.
    pub id: Option<String>,
    /// The `event` field, if the block has one.
    pub event: Option<String>,
    /// The `data` lines joined with `\n`; `None` for a comment-only block.
    pub data: Option<String>,
    /// Comment lines (`: ...`) of the block.
    pub comments: Vec<String>,
    /// The `retry` field (milliseconds), if the block has one.
    pub retry: Option<u64>,
}

impl SseEvent {
    /// The data as JSON, if it is JSON.
    pub fn json(&self) -> Option<Value> {
        self.data
            .as_deref()
            .and_then(|d| serde_json::from_str(d).ok())
    }
}

/// A response being read: its head, and its body read on demand.
pub struct SseConn {
    /// The response's status code.
    pub status: u16,
    /// Header names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    reader: BufReader<Box<dyn Duplex>>,
    chunked: bool,
    buf: Vec<u8>,
    ended: bool,
}

impl SseConn {
    /// Sends one request to the server on a new connection and reads the head.
    pub fn open(server: &Server, method: &str, headers: &[(&str, &str)], body: &str) -> SseConn {
        let host = server.host();
        let mut all: Vec<(&str, &str)> = vec![("Host", &host)];
        all.extend_from_slice(headers);
        let all = server.with_credentials(&all);
        let mut stream = server.stream();
        use std::io::Write;
        stream
            .write_all(&format_request(method, "/mcp", &all, body.as_bytes()))
            .expect("send request");
        stream.flush().expect("send request");
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).expect("status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).expect("header line");
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
        SseConn {
            status,
            headers,
            reader,
            chunked,
            buf: Vec::new(),
            ended: false,
        }
    }

    /// POSTs `body` in session `sid` with the Accept header a conforming client sends.
    pub fn post(server: &Server, sid: &str, body: &str) -> SseConn {
        Self::post_accepting(server, sid, body, "application/json, text/event-stream")
    }

    /// POSTs `body` in session `sid` with the given Accept header.
    pub fn post_accepting(server: &Server, sid: &str, body: &str, accept: &str) -> SseConn {
        SseConn::open(
            server,
            "POST",
            &[
                ("Content-Type", "application/json"),
                ("Accept", accept),
                ("Mcp-Session-Id", sid),
            ],
            body,
        )
    }

    /// Opens the standalone stream of session `sid`.
    pub fn get(server: &Server, sid: &str) -> SseConn {
        SseConn::open(
            server,
            "GET",
            &[("Accept", "text/event-stream"), ("Mcp-Session-Id", sid)],
            "",
        )
    }

    /// The value of header `name` (any case), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the response is an event stream (`text/event-stream`).
    pub fn is_stream(&self) -> bool {
        self.header("content-type") == Some("text/event-stream")
    }

    /// Reads a non-streamed body (`Content-Length`) as JSON.
    pub fn json_body(&mut self) -> Value {
        let len: usize = self
            .header("content-length")
            .and_then(|l| l.parse().ok())
            .expect("a Content-Length body");
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body).expect("read body");
        serde_json::from_slice(&body)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&body)))
    }

    /// Reads the next chunk of the body into the buffer; false at the end.
    fn fill(&mut self) -> bool {
        if self.ended {
            return false;
        }
        if !self.chunked {
            let mut tmp = [0u8; 4096];
            return match self.reader.read(&mut tmp) {
                Ok(0) | Err(_) => {
                    self.ended = true;
                    false
                }
                Ok(n) => {
                    self.buf.extend_from_slice(&tmp[..n]);
                    true
                }
            };
        }
        let mut size = String::new();
        if self.reader.read_line(&mut size).unwrap_or(0) == 0 {
            self.ended = true;
            return false;
        }
        let Ok(size) = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
        else {
            self.ended = true;
            return false;
        };
        let mut chunk = vec![0; size + 2];
        if self.reader.read_exact(&mut chunk).is_err() || size == 0 {
            self.ended = true;
            return false;
        }
        self.buf.extend_from_slice(&chunk[..size]);
        true
    }

    /// The next event or comment block; `None` when the stream ended.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buf.drain(..pos + 2).collect();
                return Some(parse_block(&String::from_utf8_lossy(&block)));
            }
            if !self.fill() {
                return None;
            }
        }
    }

    /// The next block that carries data (skipping comments and the priming event).
    pub fn next_message(&mut self) -> Option<Value> {
        loop {
            let e = self.next_event()?;
            if let Some(v) = e.json() {
                return Some(v);
            }
        }
    }

    /// Every remaining event until the stream ends.
    pub fn rest(&mut self) -> Vec<SseEvent> {
        std::iter::from_fn(|| self.next_event()).collect()
    }

    /// Closes the connection at once (the client goes away).
    pub fn close(mut self) {
        self.reader.get_mut().close();
    }
}

fn parse_block(block: &str) -> SseEvent {
    let mut e = SseEvent::default();
    let mut data: Vec<&str> = Vec::new();
    for line in block.lines() {
        if let Some(c) = line.strip_prefix(':') {
            e.comments.push(c.trim().to_string());
        } else if let Some((field, value)) = line.split_once(':') {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => e.id = Some(value.to_string()),
                "event" => e.event = Some(value.to_string()),
                "data" => data.push(value),
                "retry" => e.retry = value.trim().parse().ok(),
                _ => {}
            }
        }
    }
    if !data.is_empty() {
        e.data = Some(data.join("\n"));
    }
    e
}
