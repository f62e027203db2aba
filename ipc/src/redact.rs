//! The one redaction layer both processes pass their words through: every log
//! line, trace line, crash report and error text meant for a client.
//!
//! A [`Redactor`] replaces with `<redacted>`:
//! - the value of an `Authorization` header or field, and the token after
//!   `Bearer`;
//! - anything shaped like a JSON Web Token (`eyJ….….…`);
//! - the value after `password`, `passwd`, `secret` or `token` followed by
//!   `=` or `:` (as in a URL, a command line, a JSON object);
//! - every configured secret of 8 characters or more, wherever it occurs;
//! - every run of token characters that a matcher recognises (the router keeps
//!   only the digest of its bearer token, so it recognises the token by its
//!   digest instead of holding it).
//!
//! Redaction is conservative: it may hide a harmless word that follows
//! `token:`, never show a secret it was told about.

use std::borrow::Cow;

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";
/// The shortest configured secret redacted by value (shorter ones would hide
/// ordinary words).
pub const MIN_SECRET_CHARS: usize = 8;

/// Recognises a secret from its text alone (for example by its digest).
pub type Matcher = Box<dyn Fn(&str) -> bool + Send + Sync>;

/// The redaction rules of one process.
#[derive(Default)]
pub struct Redactor {
    secrets: Vec<String>,
    matcher: Option<(usize, Matcher)>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Redactor({} secrets{})",
            self.secrets.len(),
            if self.matcher.is_some() {
                ", a matcher"
            } else {
                ""
            }
        )
    }
}

/// Words after which (with `=` or `:`) a value is a secret. Lower case.
const SECRET_KEYS: &[&str] = &["authorization", "password", "passwd", "secret", "token"];

impl Redactor {
    /// Rules hiding `secrets` (those shorter than [`MIN_SECRET_CHARS`] are
    /// left to the patterns) besides the patterns.
    pub fn new<I, S>(secrets: I) -> Redactor
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(Into::into)
            .filter(|s| s.chars().count() >= MIN_SECRET_CHARS)
            .collect();
        // longest first, so a secret containing another is hidden whole
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor {
            secrets,
            matcher: None,
        }
    }

    /// Also hides every run of token characters at least `min_len` long that
    /// `matcher` recognises.
    pub fn with_matcher(mut self, min_len: usize, matcher: Matcher) -> Redactor {
        self.matcher = Some((min_len.max(1), matcher));
        self
    }

    /// `text` with every secret hidden; borrowed when there was none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        if let Some((min_len, matcher)) = &self.matcher {
            if let Some(changed) = replace_runs(&out, |run| run.len() >= *min_len && matcher(run)) {
                out = Cow::Owned(changed);
            }
        }
        if let Some(changed) = replace_runs(&out, looks_like_jwt) {
            out = Cow::Owned(changed);
        }
        if let Some(changed) = hide_keyed_values(&out) {
            out = Cow::Owned(changed);
        }
        out
    }
}

/// Characters of a token: base64 and base64url, and the rest of `token68`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=')
}

/// `text` with each maximal run of token characters that `hide` accepts
/// replaced; `None` if there was none.
fn replace_runs(text: &str, hide: impl Fn(&str) -> bool) -> Option<String> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !is_token_char(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = chars.peek() {
            if !is_token_char(c) {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        let run = &text[start..end];
        if hide(run) {
            let o = out.get_or_insert_with(String::new);
            o.push_str(&text[copied..start]);
            o.push_str(REDACTED);
            copied = end;
        }
    }
    out.map(|mut o| {
        o.push_str(&text[copied..]);
        o
    })
}

/// Three dot-separated base64url parts, the first a JSON object's encoding.
fn looks_like_jwt(run: &str) -> bool {
    let parts: Vec<&str> = run.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts[0].len() >= 10
        && parts[1].len() >= 4
        && parts.iter().all(|p| {
            p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Hides the value after a secret key (`password=…`, `"token": "…"`,
/// `Authorization: Bearer …`): the value runs to the end of the line, a quote,
/// `&`, `,`, `;` or whitespace (for `Authorization`, a scheme word and the
/// credentials after it).
fn hide_keyed_values(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut from = 0;
    while from < lower.len() {
        // the next key, and which
        let Some((at, key)) = SECRET_KEYS
            .iter()
            .filter_map(|k| lower[from..].find(k).map(|i| (from + i, *k)))
            .min_by_key(|(i, _)| *i)
        else {
            break;
        };
        let mut i = at + key.len();
        from = i;
        // the key may end a longer word (`X-Auth-Token`, `db_password`) but a
        // value must follow it: quotes, spaces, then `=` or `:`
        while i < bytes.len() && matches!(bytes[i], b'"' | b'\'' | b' ') {
            i += 1;
        }
        if i >= bytes.len() || !matches!(bytes[i], b'=' | b':') {
            continue;
        }
        i += 1;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'"' | b'\'') {
            i += 1;
        }
        let value_start = i;
        let stops = |b: u8| matches!(b, b'"' | b'\'' | b'&' | b',' | b';' | b'\n' | b'\r');
        let mut end = value_start;
        let mut words = 0;
        while end < bytes.len() && !stops(bytes[end]) {
            if bytes[end] == b' ' {
                // `Authorization: Bearer xyz` hides two words, others one
                words += 1;
                if key != "authorization" || words > 1 {
                    break;
                }
            }
            end += 1;
        }
        if end > value_start && &text[value_start..end] != REDACTED {
            let o = out.get_or_insert_with(String::new);
            o.push_str(&text[copied..value_start]);
            o.push_str(REDACTED);
            copied = end;
        }
        from = end.max(from);
    }
    // a `Bearer xyz` without a key before it
    let text_after = match out {
        Some(mut o) => {
            o.push_str(&text[copied..]);
            o
        }
        None => text.to_string(),
    };
    let bearer = hide_bearer(&text_after);
    match bearer {
        Some(b) => Some(b),
        None if text_after != text => Some(text_after),
        None => None,
    }
}

/// Hides the credentials after each `Bearer ` (any case).
fn hide_bearer(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find("bearer ") {
        let start = from + i + "bearer ".len();
        let end = text[start..]
            .char_indices()
            .find(|(_, c)| !is_token_char(*c))
            .map_or(text.len(), |(j, _)| start + j);
        from = end.max(start);
        if end > start && &text[start..end] != REDACTED {
            let o = out.get_or_insert_with(String::new);
            o.push_str(&text[copied..start]);
            o.push_str(REDACTED);
            copied = end;
        }
        if from >= text.len() {
            break;
        }
    }
    out.map(|mut o| {
        o.push_str(&text[copied..]);
        o
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let r = Redactor::new(["swordfish-long", "short"])
            .with_matcher(32, Box::new(|run| run == "a".repeat(40)));
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXBhcnQ";
        let forty = "a".repeat(40);
        let table: Vec<(String, String)> = vec![
            ("nothing here".into(), "nothing here".into()),
            (
                "login failed for swordfish-long!".into(),
                "login failed for <redacted>!".into(),
            ),
            ("a short word".into(), "a short word".into()),
            (
                "authorization: Bearer abc.def-ghi".into(),
                "authorization: <redacted>".into(),
            ),
            (
                "sent Bearer abc123 then".into(),
                "sent Bearer <redacted> then".into(),
            ),
            (format!("token {jwt} end"), "token <redacted> end".into()),
            (
                "url?password=hunter2&x=1".into(),
                "url?password=<redacted>&x=1".into(),
            ),
            (
                r#"{"password":"hunter2","user":"u"}"#.into(),
                r#"{"password":"<redacted>","user":"u"}"#.into(),
            ),
            (
                "MCP_WORKER_PASSWORD: hunter2 more".into(),
                "MCP_WORKER_PASSWORD: <redacted> more".into(),
            ),
            (format!("code {forty}!"), "code <redacted>!".into()),
            (format!("code {forty}b"), format!("code {forty}b")),
            ("the token is fine".into(), "the token is fine".into()),
            ("secret".into(), "secret".into()),
        ];
        for (input, want) in table {
            assert_eq!(r.redact(&input), want, "{input}");
        }
        assert!(matches!(r.redact("plain"), Cow::Borrowed(_)));
    }
}
