//! The message trace (`MCP_TRACE=1`): one log line per message, inbound and
//! outbound — requests as they arrive (taken before the gates, so a refused
//! request is traced too), every response body (error bodies behind a 4xx
//! included), every event-stream frame (server-to-client requests and
//! notifications among them).
//!
//! A line names the direction, the verb and path, the session id's first 8
//! characters, the status of a response, the size, and the text itself, capped
//! at `MCP_TRACE_LIMIT` characters with `…(+N more)`; real newlines, carriage
//! returns and tabs are escaped so a message is always one line. Headers are
//! never traced. Lines go to the log (target `gsmcp_router::trace`, level
//! info), so they pass the log's redaction like every other line.

use http_body_util::BodyExt;
use hyper::Response;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// The log target of trace lines.
pub const TARGET: &str = "gsmcp_router::trace";
/// The default cap on the text of one line, in characters.
pub const DEFAULT_LIMIT: usize = 4096;

/// The trace's settings: on or off, and the cap (`None`: whole bodies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trace {
    /// The most characters of a message a line shows.
    pub limit: Option<usize>,
}

/// Where a message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the client.
    In,
    /// To the client.
    Out,
}

/// What a line says about the message besides its text.
#[derive(Debug, Clone, Copy)]
pub struct Header<'a> {
    /// Inbound or outbound.
    pub direction: Direction,
    /// The request's verb (`POST`, `GET`, `DELETE`, `OPTIONS`, …).
    pub verb: &'a str,
    /// The request's path.
    pub path: &'a str,
    /// The session id's first characters, when the request names one.
    pub session: Option<&'a str>,
    /// For an outbound message: the HTTP status, or `sse` for a stream frame.
    pub status: Option<&'a str>,
}

impl Trace {
    /// Writes one trace line for a message (`text`: its body; a body that was
    /// never read is `None`, with `declared` the length its head announced).
    pub fn message(&self, header: Header<'_>, text: Option<&str>, declared: Option<u64>) {
        tracing::info!(target: TARGET, "{}", self.line(header, text, declared));
    }

    /// The line [`Trace::message`] writes.
    pub fn line(&self, h: Header<'_>, text: Option<&str>, declared: Option<u64>) -> String {
        let mut line = String::with_capacity(128);
        line.push_str(match h.direction {
            Direction::In => "in ",
            Direction::Out => "out ",
        });
        if let Some(status) = h.status {
            let _ = write!(line, "{status} ");
        }
        let _ = write!(
            line,
            "{} {} session={}",
            h.verb,
            h.path,
            h.session.map(|s| &s[..s.len().min(8)]).unwrap_or("-")
        );
        match text {
            None => match declared {
                Some(n) => {
                    let _ = write!(line, " {n}B (body not read)");
                }
                None => line.push_str(" 0B"),
            },
            Some(text) => {
                let _ = write!(line, " {}B", text.len());
                if !text.is_empty() {
                    line.push(' ');
                    escape_capped(&mut line, text, self.limit);
                }
            }
        }
        line
    }
}

/// Appends `text` with newlines, carriage returns, tabs and other control
/// characters escaped, cut after `limit` characters with `…(+N more)`.
fn escape_capped(out: &mut String, text: &str, limit: Option<usize>) {
    for (shown, (i, c)) in text.char_indices().enumerate() {
        if limit.is_some_and(|l| shown >= l) {
            let rest = text[i..].chars().count();
            let _ = write!(out, "…(+{rest} more)");
            return;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// `MCP_TRACE_LIMIT`: characters per line, or `none` for whole bodies.
pub fn parse_limit(text: &str) -> Result<Option<usize>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match t.parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(format!(
            "MCP_TRACE_LIMIT {text:?} is not a limit: use a number of characters (default 4096) or none"
        )),
    }
}

/// The trace of one HTTP exchange: the request's line (written once, with its
/// body if it was read) and the response's.
#[derive(Debug)]
pub struct Exchange {
    trace: Trace,
    verb: String,
    path: String,
    session: Option<String>,
    declared: Option<u64>,
    inbound_done: AtomicBool,
}

impl Exchange {
    /// Starts tracing a request, from its head.
    pub fn new<B>(trace: Trace, req: &hyper::Request<B>) -> Exchange {
        let headers = req.headers();
        let session = headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(|s| s.chars().take(8).collect());
        let declared = headers
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|s| s.trim().parse().ok());
        Exchange {
            trace,
            verb: req.method().as_str().to_string(),
            path: req.uri().path().chars().take(256).collect(),
            session,
            declared,
            inbound_done: AtomicBool::new(false),
        }
    }

    fn header<'a>(&'a self, direction: Direction, status: Option<&'a str>) -> Header<'a> {
        Header {
            direction,
            verb: &self.verb,
            path: &self.path,
            session: self.session.as_deref(),
            status,
        }
    }

    /// Writes the request's line, once: with its body when it was read, else
    /// with the length its head declared.
    pub fn inbound(&self, body: Option<&[u8]>) {
        if self.inbound_done.swap(true, Ordering::Relaxed) {
            return;
        }
        let text = body.map(String::from_utf8_lossy);
        self.trace.message(
            self.header(Direction::In, None),
            text.as_deref(),
            self.declared.filter(|_| body.is_none()),
        );
    }

    /// The event-stream frames of this exchange's response, traced as the
    /// writer sends them.
    pub fn stream(&self, session: Option<&str>) -> StreamTrace {
        StreamTrace {
            trace: self.trace,
            verb: self.verb.clone(),
            path: self.path.clone(),
            session: session
                .map(|s| s.chars().take(8).collect())
                .or_else(|| self.session.clone()),
        }
    }

    /// Writes the response's line (the request's first, if a gate refused it
    /// before its body was read) and answers the response unchanged. An
    /// event stream's frames are traced by its writer instead.
    pub async fn outbound(
        &self,
        response: Response<crate::body::Body>,
    ) -> Response<crate::body::Body> {
        self.inbound(None);
        let status = response.status().as_u16().to_string();
        let is_stream = response
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut header = self.header(Direction::Out, Some(&status));
        if let Some(s) = &session {
            header.session = Some(s);
        }
        if is_stream {
            self.trace.message(header, Some("(event stream)"), None);
            return response;
        }
        let (parts, body) = response.into_parts();
        // every non-stream body is a `Full`: collecting it cannot wait or fail
        let bytes = body
            .collect()
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default();
        self.trace
            .message(header, Some(&String::from_utf8_lossy(&bytes)), None);
        Response::from_parts(parts, crate::body::full(bytes))
    }
}

/// What an event-stream writer needs to trace its frames.
#[derive(Debug, Clone)]
pub struct StreamTrace {
    trace: Trace,
    verb: String,
    path: String,
    session: Option<String>,
}

impl StreamTrace {
    /// Writes the line of one frame's message.
    pub fn frame(&self, text: &str) {
        self.trace.message(
            Header {
                direction: Direction::Out,
                verb: &self.verb,
                path: &self.path,
                session: self.session.as_deref(),
                status: Some("sse"),
            },
            Some(text),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(direction: Direction, status: Option<&'static str>) -> Header<'static> {
        Header {
            direction,
            verb: "POST",
            path: "/mcp",
            session: Some("0123456789abcdef"),
            status,
        }
    }

    #[test]
    fn trace_limits() {
        assert_eq!(parse_limit("4096"), Ok(Some(4096)));
        assert_eq!(parse_limit(" None "), Ok(None));
        for bad in ["0", "-1", "lots", ""] {
            assert!(parse_limit(bad).unwrap_err().contains("MCP_TRACE_LIMIT"));
        }
    }

    #[test]
    fn lines() {
        let capped = Trace { limit: Some(5) };
        let whole = Trace { limit: None };
        // (trace, header, body, declared length, the line)
        type Row<'a> = (
            Trace,
            Header<'static>,
            Option<&'a str>,
            Option<u64>,
            &'a str,
        );
        let table: Vec<Row> = vec![
            (
                whole,
                header(Direction::In, None),
                Some("{\"a\":\n\t1}"),
                None,
                "in POST /mcp session=01234567 9B {\"a\":\\n\\t1}",
            ),
            (
                capped,
                header(Direction::Out, Some("200")),
                Some("abcdefghij"),
                None,
                "out 200 POST /mcp session=01234567 10B abcde…(+5 more)",
            ),
            (
                capped,
                header(Direction::In, None),
                None,
                Some(120),
                "in POST /mcp session=01234567 120B (body not read)",
            ),
            (
                capped,
                Header {
                    session: None,
                    ..header(Direction::Out, Some("401"))
                },
                Some(""),
                None,
                "out 401 POST /mcp session=- 0B",
            ),
            (
                whole,
                header(Direction::Out, Some("sse")),
                Some("x\u{1}é"),
                None,
                "out sse POST /mcp session=01234567 4B x\\u{1}é",
            ),
        ];
        for (trace, h, text, declared, want) in table {
            assert_eq!(trace.line(h, text, declared), want);
        }
    }
}
