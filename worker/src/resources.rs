//! MCP resources: the fixed resources and URI templates a toolset offers, and the
//! `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` and `resources/unsubscribe` methods over them.
//!
//! A resource's content is produced by a plain function; this module owns the
//! wire shapes, URI validation and template matching (RFC 6570 simple `{name}`
//! expressions, each matching one non-empty path segment) and the session's set
//! of subscriptions. It must not touch the login: resources here are served
//! without evaluating Smalltalk.

use gsmcp_ipc::jsonrpc::{self, RpcError};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// The spec's error code for a resource that does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The content of a resource.
#[derive(Debug, Clone, PartialEq)]
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
    pub read: fn(&[(&str, String)]) -> Body,
}

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
    subscribed: BTreeSet<String>,
}

impl Resources {
    /// The resources and templates of the served toolsets.
    pub fn new(fixed: Vec<&'static Resource>, templates: Vec<&'static Template>) -> Resources {
        Resources {
            fixed,
            templates,
            subscribed: BTreeSet::new(),
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
        self.subscribed.iter().map(String::as_str)
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
    pub fn read(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let uri = uri_param(params)?;
        let (mime, body) = self.resolve(uri).ok_or_else(|| not_found(uri))?;
        Ok(json!({"contents": [contents_json(uri, mime, &body)]}))
    }

    /// Answers `resources/subscribe` for a resource that exists, and records it.
    pub fn subscribe(&mut self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let uri = uri_param(params)?;
        if !self.exists(uri) {
            return Err(not_found(uri));
        }
        self.subscribed.insert(uri.to_owned());
        Ok(json!({}))
    }

    /// Unsubscribing from a URI that was never subscribed is not an error: the
    /// client's wish (no updates for it) holds either way.
    pub fn unsubscribe(&mut self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let uri = uri_param(params)?;
        if !self.exists(uri) {
            return Err(not_found(uri));
        }
        self.subscribed.remove(uri);
        Ok(json!({}))
    }

    fn exists(&self, uri: &str) -> bool {
        self.fixed.iter().any(|r| r.uri == uri)
            || self
                .templates
                .iter()
                .any(|t| match_template(t.uri_template, uri).is_some())
    }

    /// The MIME type and content of `uri`, if it names a resource.
    pub fn resolve(&self, uri: &str) -> Option<(&'static str, Body)> {
        if let Some(r) = self.fixed.iter().find(|r| r.uri == uri) {
            return Some((r.mime_type, (r.read)()));
        }
        self.templates.iter().find_map(|t| {
            match_template(t.uri_template, uri).map(|vars| (t.mime_type, (t.read)(&vars)))
        })
    }
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
/// run of characters without `/`, `?` or `#`.
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
                vars.push((name, rest_u[..end].to_owned()));
                rest_u = &rest_u[end..];
            }
        }
    }
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
        read: |vars| Body::Blob(vars[0].1.clone().into_bytes()),
    };

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn methods_answer_shapes_and_codes() {
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
            r.read(&params(json!({"uri": "x://one"}))).unwrap()["contents"][0]["text"],
            "hello"
        );
        assert_eq!(
            r.read(&params(json!({"uri": "x://item/ab"}))).unwrap()["contents"][0]["blob"],
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
            assert_eq!(r.read(&params(p.clone())).unwrap_err().code, c, "{p}");
            assert_eq!(r.subscribe(&params(p.clone())).unwrap_err().code, c, "{p}");
        }
        assert_eq!(
            r.list(&params(json!({"cursor": "x"}))).unwrap_err().code,
            jsonrpc::INVALID_PARAMS
        );
        r.subscribe(&params(json!({"uri": "x://one"}))).unwrap();
        r.subscribe(&params(json!({"uri": "x://item/7"}))).unwrap();
        assert_eq!(
            r.subscriptions().collect::<Vec<_>>(),
            ["x://item/7", "x://one"]
        );
        r.unsubscribe(&params(json!({"uri": "x://one"}))).unwrap();
        r.unsubscribe(&params(json!({"uri": "x://one"}))).unwrap();
        assert_eq!(r.subscriptions().collect::<Vec<_>>(), ["x://item/7"]);
    }
}
