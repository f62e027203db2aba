//! MCP resources: the fixed resources and URI templates a toolset offers, and the
//! `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` and `resources/unsubscribe` methods over them.
//!
//! A resource's content is produced by a plain function or, for a template
//! whose resources are repository objects (`gemstone://class/…`), read through
//! the session's login by a function its toolset supplies. This module owns
//! the wire shapes, URI validation, template matching (RFC 6570 simple
//! `{name}` expressions, each matching one non-empty path segment,
//! percent-decoded) and the session's subscriptions: each remembers a
//! fingerprint of what the client could last read, so [`Resources::changed`]
//! can say which subscribed resources are no longer what they were.

use crate::backend::Login;
use gsmcp_ipc::jsonrpc::{self, RpcError};
use serde_json::{json, Map, Value};
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// The spec's error code for a resource that does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The most resources one session may be subscribed to at once.
pub const MAX_SUBSCRIPTIONS: usize = 256;

/// The content of a resource.
#[derive(Debug, Clone, PartialEq, Hash)]
pub enum Body {
    /// UTF-8 text.
    Text(String),
    /// Bytes, sent base64-encoded.
    Blob(Vec<u8>),
}

/// A resource with a fixed URI.
pub struct Resource {
    /// The resource's URI.
    pub uri: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its MIME type.
    pub mime_type: &'static str,
    /// Reads its contents.
    pub read: fn() -> Body,
}

/// A family of resources named by a URI template.
pub struct Template {
    /// The URI template (RFC 6570 simple `{name}` expressions).
    pub uri_template: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What its resources are.
    pub description: &'static str,
    /// Their MIME type.
    pub mime_type: &'static str,
    /// Renders the resource for the template's variables, in template order.
    pub read: Read,
    /// Completes one of its variables (`completion/complete`), if it can.
    pub complete: Option<Complete>,
}

/// The variables a template matched, in template order.
pub type Vars<'t> = [(&'t str, String)];

/// How a template's resources are read.
pub enum Read {
    /// Made from the variables alone.
    Plain(fn(&Vars<'_>) -> Body),
    /// Read through the session's login: `Ok(None)` when the variables name
    /// nothing (now, in this session's view); `Err` a failure to report.
    Login(fn(&mut dyn Login, &Vars<'_>) -> Result<Option<Body>, String>),
}

/// Completes the variable `name` of a template from what the client typed and
/// the other variables it already gave (`context.arguments`): the suggestions
/// (at most [`crate::completion::MAX_VALUES`]) and how many there are in all.
pub type Complete = fn(
    &mut dyn Login,
    name: &str,
    typed: &str,
    given: &Map<String, Value>,
) -> Result<(Vec<String>, usize), String>;

/// A `contents` entry of `resources/read` (also the `resource` of an embedded
/// resource content block).
pub fn contents_json(uri: &str, mime_type: &str, body: &Body) -> Value {
    match body {
        Body::Text(text) => json!({"uri": uri, "mimeType": mime_type, "text": text}),
        Body::Blob(bytes) => json!({"uri": uri, "mimeType": mime_type, "blob": base64(bytes)}),
    }
}

/// The resources one session serves, and what its client subscribed to.
#[derive(Default)]
pub struct Resources {
    fixed: Vec<&'static Resource>,
    templates: Vec<&'static Template>,
    /// Each subscribed URI with the fingerprint of its content when the
    /// client last could have read it (`None`: it did not exist).
    subscribed: BTreeMap<String, Option<u64>>,
}

impl Resources {
    /// The resources and templates of the served toolsets.
    pub fn new(fixed: Vec<&'static Resource>, templates: Vec<&'static Template>) -> Resources {
        Resources {
            fixed,
            templates,
            subscribed: BTreeMap::new(),
        }
    }

    /// Whether no toolset offers a resource or a template.
    pub fn is_empty(&self) -> bool {
        self.fixed.is_empty() && self.templates.is_empty()
    }

    /// The resource templates.
    pub fn templates(&self) -> &[&'static Template] {
        &self.templates
    }

    /// The URIs the client is subscribed to.
    pub fn subscriptions(&self) -> impl Iterator<Item = &str> {
        self.subscribed.keys().map(String::as_str)
    }

    /// Answers `resources/list` (one page: the list is short).
    pub fn list(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        no_cursor(params, "resources/list")?;
        let items: Vec<Value> = self
            .fixed
            .iter()
            .map(|r| {
                json!({"uri": r.uri, "name": r.name, "title": r.title,
                       "description": r.description, "mimeType": r.mime_type})
            })
            .collect();
        Ok(json!({"resources": items}))
    }

    /// Answers `resources/templates/list`.
    pub fn list_templates(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        no_cursor(params, "resources/templates/list")?;
        let items: Vec<Value> = self
            .templates
            .iter()
            .map(|t| {
                json!({"uriTemplate": t.uri_template, "name": t.name, "title": t.title,
                       "description": t.description, "mimeType": t.mime_type})
            })
            .collect();
        Ok(json!({"resourceTemplates": items}))
    }

    /// Answers `resources/read` for a fixed resource or one a template matches.
    pub fn read(
        &self,
        login: &mut dyn Login,
        params: &Map<String, Value>,
    ) -> Result<Value, RpcError> {
        let uri = uri_param(params)?;
        let (mime, body) = self.resolve(login, uri)?.ok_or_else(|| not_found(uri))?;
        Ok(json!({"contents": [contents_json(uri, mime, &body)]}))
    }

    /// Answers `resources/subscribe` for a resource that exists, and records it
    /// with the fingerprint of what it holds now.
    pub fn subscribe(
        &mut self,
        login: &mut dyn Login,
        params: &Map<String, Value>,
    ) -> Result<Value, RpcError> {
        let uri = uri_param(params)?;
        let (_, body) = self.resolve(login, uri)?.ok_or_else(|| not_found(uri))?;
        if !self.subscribed.contains_key(uri) && self.subscribed.len() >= MAX_SUBSCRIPTIONS {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!(
                    "this session is subscribed to {MAX_SUBSCRIPTIONS} resources, the most it \
                     may be; unsubscribe from one first"
                ),
            ));
        }
        self.subscribed
            .insert(uri.to_owned(), Some(fingerprint(&body)));
        Ok(json!({}))
    }

    /// Unsubscribing from a URI that was never subscribed is not an error: the
    /// client's wish (no updates for it) holds either way.
    pub fn unsubscribe(&mut self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let uri = uri_param(params)?;
        if !self.subscribed.contains_key(uri) && !self.names(uri) {
            return Err(not_found(uri));
        }
        self.subscribed.remove(uri);
        Ok(json!({}))
    }

    /// Whether `uri` has the form of a resource this session serves.
    fn names(&self, uri: &str) -> bool {
        self.fixed.iter().any(|r| r.uri == uri)
            || self
                .templates
                .iter()
                .any(|t| match_template(t.uri_template, uri).is_some())
    }

    /// The MIME type and content of `uri`; `None` if it names no resource.
    pub fn resolve(
        &self,
        login: &mut dyn Login,
        uri: &str,
    ) -> Result<Option<(&'static str, Body)>, RpcError> {
        if let Some(r) = self.fixed.iter().find(|r| r.uri == uri) {
            return Ok(Some((r.mime_type, (r.read)())));
        }
        for t in &self.templates {
            let Some(vars) = match_template(t.uri_template, uri) else {
                continue;
            };
            let body = match &t.read {
                Read::Plain(read) => Some(read(&vars)),
                Read::Login(read) => read(login, &vars).map_err(|e| {
                    RpcError::new(
                        jsonrpc::INTERNAL_ERROR,
                        format!("reading {uri} failed: {e}"),
                    )
                })?,
            };
            return Ok(body.map(|b| (t.mime_type, b)));
        }
        Ok(None)
    }

    /// The subscribed URIs whose content is no longer what the client could
    /// last read (changed, gone, or back), each reported once per change.
    /// A resource that cannot be read now is left for the next look.
    pub fn changed(&mut self, login: &mut dyn Login) -> Vec<String> {
        let uris: Vec<String> = self.subscribed.keys().cloned().collect();
        let mut changed = Vec::new();
        for uri in uris {
            let now = match self.resolve(login, &uri) {
                Ok(found) => found.map(|(_, body)| fingerprint(&body)),
                Err(e) => {
                    tracing::debug!(%uri, "subscribed resource not checked: {}", e.message);
                    continue;
                }
            };
            if self.subscribed.insert(uri.clone(), now) != Some(now) {
                changed.push(uri);
            }
        }
        changed
    }
}

/// A fingerprint of a resource's content: equal contents, equal fingerprints.
fn fingerprint(body: &Body) -> u64 {
    let mut h = DefaultHasher::new();
    body.hash(&mut h);
    h.finish()
}

/// The `notifications/resources/updated` message for `uri`.
pub fn updated_notification(uri: &str) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
           "params": {"uri": uri}})
    .to_string()
}

fn no_cursor(params: &Map<String, Value>, method: &str) -> Result<(), RpcError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(RpcError::new(
            jsonrpc::INVALID_PARAMS,
            format!("invalid cursor: {method} has a single page"),
        )),
    }
}

/// The `uri` parameter, which must be an absolute URI (`scheme:` then more).
fn uri_param(params: &Map<String, Value>) -> Result<&str, RpcError> {
    let uri = match params.get("uri") {
        Some(Value::String(u)) => u.as_str(),
        Some(_) => {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                "uri must be a string",
            ))
        }
        None => {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                "the request needs params.uri",
            ))
        }
    };
    let valid = uri.split_once(':').is_some_and(|(scheme, rest)| {
        !rest.is_empty()
            && scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    }) && !uri.chars().any(|c| c.is_whitespace() || c.is_control());
    if !valid {
        return Err(RpcError::new(
            jsonrpc::INVALID_PARAMS,
            format!("not an absolute URI: {uri:?}"),
        ));
    }
    Ok(uri)
}

fn not_found(uri: &str) -> RpcError {
    let mut e = RpcError::new(RESOURCE_NOT_FOUND, format!("resource not found: {uri}"));
    e.data = Some(json!({"uri": uri}));
    e
}

/// Matches `uri` against a template of literal text and `{name}` expressions;
/// answers the variables in template order. A variable matches one non-empty
/// run of characters without `/`, `?` or `#`, which is percent-decoded (a
/// selector such as `//` travels as `%2F%2F`); a run that does not decode to
/// UTF-8 matches nothing.
pub fn match_template<'t>(template: &'t str, uri: &str) -> Option<Vec<(&'t str, String)>> {
    let mut vars = Vec::new();
    let mut rest_t = template;
    let mut rest_u = uri;
    loop {
        match rest_t.find('{') {
            None => return (rest_t == rest_u).then_some(vars),
            Some(open) => {
                let literal = &rest_t[..open];
                rest_u = rest_u.strip_prefix(literal)?;
                let close = rest_t[open..].find('}')? + open;
                let name = &rest_t[open + 1..close];
                rest_t = &rest_t[close + 1..];
                let end = rest_u.find(['/', '?', '#']).unwrap_or(rest_u.len());
                if end == 0 {
                    return None;
                }
                vars.push((name, percent_decode(&rest_u[..end])?));
                rest_u = &rest_u[end..];
            }
        }
    }
}

/// `text` with each `%XX` replaced by the byte it stands for; `None` when a
/// `%` is not followed by two hex digits or the bytes are not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `text` percent-encoded for one URI path segment: everything but RFC 3986's
/// unreserved characters and `:` (keyword selectors stay readable).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Standard base64 with padding (RFC 4648 §4), for `blob` and media `data`.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A login for unit tests of what never evaluates (plain resources).
#[cfg(test)]
pub(crate) mod test_login {
    use crate::backend::Login;

    /// A login plain resources never use.
    pub struct NoLogin;

    impl Login for NoLogin {
        fn evaluate_print_string(&mut self, _: &str) -> Result<String, gsmcp_smalltalk::StError> {
            unreachable!("plain resources never evaluate")
        }
        fn evaluate_string(&mut self, _: &str) -> Result<String, gsmcp_smalltalk::StError> {
            unreachable!("plain resources never evaluate")
        }
        fn last_error_stack(&self) -> Option<String> {
            None
        }
        fn user(&self) -> String {
            "nobody".into()
        }
        fn stone(&self) -> String {
            "none".into()
        }
        fn breaker(&self) -> std::sync::Arc<dyn crate::backend::Breaker> {
            unreachable!("plain resources never break")
        }
        fn refresh(&mut self) -> Result<(), gsmcp_smalltalk::StError> {
            Ok(())
        }
        fn commits_behind(&self) -> Option<u64> {
            None
        }
        fn transaction_mark(&self) -> Option<gsmcp_smalltalk::TransactionMark> {
            None
        }
        fn system_print_string(&mut self, _: &str) -> Result<String, gsmcp_smalltalk::StError> {
            unreachable!("plain resources never evaluate")
        }
        fn set_policy(&mut self, _: gsmcp_smalltalk::EvalPolicy) {}
        fn logout(self: Box<Self>) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_table() {
        // RFC 4648 §10 test vectors.
        let table = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in table {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
        }
    }

    #[test]
    fn template_matching_table() {
        let t = "test://template/{id}/data";
        type Vars = Option<Vec<(&'static str, &'static str)>>;
        let table: [(&str, &str, Vars); 7] = [
            (t, "test://template/123/data", Some(vec![("id", "123")])),
            (t, "test://template//data", None),
            (t, "test://template/1/2/data", None),
            (t, "test://template/123/datum", None),
            (t, "other://template/123/data", None),
            ("a://{x}/{y}", "a://p/q", Some(vec![("x", "p"), ("y", "q")])),
            ("a://fixed", "a://fixed", Some(vec![])),
        ];
        let decoded = match_template("m://{c}/{s}", "m://Foo/%2F%2F");
        assert_eq!(decoded, Some(vec![("c", "Foo".into()), ("s", "//".into())]));
        assert_eq!(match_template("m://{s}", "m://%2"), None);
        assert_eq!(match_template("m://{s}", "m://%FF"), None);
        for (template, uri, expected) in table {
            let got = match_template(template, uri);
            let expected = expected.map(|v| {
                v.into_iter()
                    .map(|(k, v)| (k, v.to_string()))
                    .collect::<Vec<_>>()
            });
            assert_eq!(got, expected, "{template} ~ {uri}");
        }
    }

    static FIXED: Resource = Resource {
        uri: "x://one",
        name: "one",
        title: "One",
        description: "the first",
        mime_type: "text/plain",
        read: || Body::Text("hello".into()),
    };
    static TEMPLATE: Template = Template {
        uri_template: "x://item/{n}",
        name: "item",
        title: "Item",
        description: "an item",
        mime_type: "application/octet-stream",
        read: Read::Plain(|vars| Body::Blob(vars[0].1.clone().into_bytes())),
        complete: None,
    };

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn percent_coding_round_trips() {
        for text in ["at:put:", "//", "\\\\", "<=", "a b", "ünï", "%", "+"] {
            let encoded = percent_encode(text);
            assert!(!encoded.contains('/'), "{encoded}");
            assert_eq!(percent_decode(&encoded).as_deref(), Some(text), "{text}");
        }
        assert_eq!(percent_encode("at:put:"), "at:put:");
    }

    #[test]
    fn methods_answer_shapes_and_codes() {
        let login: &mut dyn Login = &mut test_login::NoLogin;
        let mut r = Resources::new(vec![&FIXED], vec![&TEMPLATE]);
        assert_eq!(
            r.list(&Map::new()).unwrap()["resources"][0]["uri"],
            "x://one"
        );
        assert_eq!(
            r.list_templates(&Map::new()).unwrap()["resourceTemplates"][0]["uriTemplate"],
            "x://item/{n}"
        );
        assert_eq!(
            r.read(login, &params(json!({"uri": "x://one"}))).unwrap()["contents"][0]["text"],
            "hello"
        );
        assert_eq!(
            r.read(login, &params(json!({"uri": "x://item/ab"})))
                .unwrap()["contents"][0]["blob"],
            "YWI="
        );
        // (params, expected error code)
        let table = [
            (json!({"uri": "x://two"}), RESOURCE_NOT_FOUND),
            (json!({"uri": 3}), jsonrpc::INVALID_PARAMS),
            (json!({}), jsonrpc::INVALID_PARAMS),
            (json!({"uri": "no scheme"}), jsonrpc::INVALID_PARAMS),
            (json!({"uri": "1x:y"}), jsonrpc::INVALID_PARAMS),
        ];
        for (p, c) in table {
            assert_eq!(
                r.read(login, &params(p.clone())).unwrap_err().code,
                c,
                "{p}"
            );
            assert_eq!(
                r.subscribe(login, &params(p.clone())).unwrap_err().code,
                c,
                "{p}"
            );
        }
        assert_eq!(
            r.list(&params(json!({"cursor": "x"}))).unwrap_err().code,
            jsonrpc::INVALID_PARAMS
        );
        r.subscribe(login, &params(json!({"uri": "x://one"})))
            .unwrap();
        r.subscribe(login, &params(json!({"uri": "x://item/7"})))
            .unwrap();
        assert!(r.changed(login).is_empty(), "nothing changed");
        assert_eq!(
            r.subscriptions().collect::<Vec<_>>(),
            ["x://item/7", "x://one"]
        );
        r.unsubscribe(&params(json!({"uri": "x://one"}))).unwrap();
        r.unsubscribe(&params(json!({"uri": "x://one"}))).unwrap();
        assert_eq!(r.subscriptions().collect::<Vec<_>>(), ["x://item/7"]);
    }
}
