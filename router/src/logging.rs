//! The router's log writer: every formatted line (the router's own, the trace's,
//! a worker's stderr relayed, a panic report) passes the process's redaction
//! layer ([`gsmcp_ipc::redact`]) before it reaches the file or stderr.

use gsmcp_ipc::redact::Redactor;
use std::io::Write;
use std::sync::{Arc, Mutex};
use tracing_subscriber::fmt::MakeWriter;

/// Makes one [`RedactedLine`] per log event over a shared sink.
pub struct Redacting {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
    redactor: Arc<Redactor>,
}

impl Redacting {
    /// Log lines to `sink`, redacted by `redactor`.
    pub fn new(sink: Box<dyn Write + Send>, redactor: Arc<Redactor>) -> Redacting {
        Redacting {
            sink: Arc::new(Mutex::new(sink)),
            redactor,
        }
    }
}

/// One event's text, collected and written redacted when it is dropped.
pub struct RedactedLine<'a> {
    owner: &'a Redacting,
    buf: Vec<u8>,
}

impl Write for RedactedLine<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for RedactedLine<'_> {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&self.buf);
        let clean = self.owner.redactor.redact(&text);
        if let Ok(mut sink) = self.owner.sink.lock() {
            // a log that cannot be written is not worth a panic
            let _ = sink.write_all(clean.as_bytes());
            let _ = sink.flush();
        }
    }
}

impl<'a> MakeWriter<'a> for Redacting {
    type Writer = RedactedLine<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactedLine {
            owner: self,
            buf: Vec::with_capacity(256),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_are_redacted_whole() {
        let out = Shared::default();
        let make = Redacting::new(
            Box::new(out.clone()),
            Arc::new(Redactor::new(["correct-horse-battery"])),
        );
        {
            let mut w = make.make_writer();
            // a secret split across two writes is still one line's
            w.write_all(b"login with correct-horse").unwrap();
            w.write_all(b"-battery failed\n").unwrap();
        }
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, "login with <redacted> failed\n");
    }
}
