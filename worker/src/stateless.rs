//! What a worker does differently for a request of the stateless era (MCP
//! 2026-07-28; see `gsmcp_ipc::era`): the tool list offers the handle tools
//! and a `session` argument on every tool, results say they are complete and
//! name the server in `_meta`, cacheable results carry their caching hints,
//! and the instructions explain handles instead of sessions.
//!
//! The router has already checked the request's `_meta` and headers and
//! routed it by its `session` argument; the two handle tools are the
//! router's, so a worker only lists them.

use gsmcp_ipc::era::{CLOSE_SESSION, INPUT_REQUIRED, META_SERVER_INFO, OPEN_SESSION, SESSION_ARG};
use serde_json::{json, Map, Value};

/// How long a client may cache a list that stays the same while the server
/// runs (the tool, prompt and template lists, discovery): five minutes.
pub const STATIC_TTL_MS: u64 = 300_000;

/// The built-in instructions of the stateless era.
pub const DEFAULT_INSTRUCTIONS: &str = "\
This server gives you live GemStone/S Smalltalk logins. Call open_session to get a session handle, \
and pass it as the `session` argument of every call that belongs to the same piece of work: each \
handle is its own login with its own view of the repository, and everything you change in it stays \
in its open transaction, seen by its later calls and by no other client, until the commit tool makes \
it permanent or abort discards it. A call without `session` runs in a one-shot login of its own \
whose uncommitted changes are discarded when the call ends. A handle ends after its idle timeout \
without a call, or by close_session, and what it had not committed is then discarded: commit what \
you want to keep.";

/// The line a one-shot call's result ends with when it left uncommitted changes.
pub fn one_shot_note(user: &str) -> String {
    format!(
        "[one-shot] this call ran without a session handle, in a login of its own (user {user}) \
         that ended with it: its uncommitted changes were discarded. Call open_session and pass its \
         handle as `session` to keep changes across calls and commit them."
    )
}

/// The `tools/list` of the stateless era: every tool takes an optional
/// `session`, and the handle tools come first.
pub fn tools(list: Value) -> Value {
    let session = json!({
        "type": "string",
        "description": "A handle from open_session: the call runs in that session's login and sees its \
                        uncommitted changes. Without it the call runs in a one-shot login whose \
                        uncommitted changes end with the call.",
    });
    let mut tools = vec![open_session(), close_session()];
    if let Value::Array(list) = list {
        for mut tool in list {
            if let Some(props) = tool
                .get_mut("inputSchema")
                .and_then(|s| s.get_mut("properties"))
                .and_then(Value::as_object_mut)
            {
                props.insert(SESSION_ARG.into(), session.clone());
            }
            tools.push(tool);
        }
    }
    Value::Array(tools)
}

fn open_session() -> Value {
    json!({
        "name": OPEN_SESSION,
        "title": "Open a session",
        "description": "Starts a login of its own for you and answers its handle (structuredContent.session). \
                        Pass the handle as `session` to every later call of the same work: its changes stay in \
                        its own transaction, invisible to other clients, until commit or abort. It ends after \
                        its idle timeout without a call, or with close_session; uncommitted changes are then \
                        discarded.",
        "inputSchema": { "type": "object", "properties": {}, "additionalProperties": false },
        "annotations": {
            "title": "Open a session",
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": false,
            "openWorldHint": false,
        },
    })
}

fn close_session() -> Value {
    json!({
        "name": CLOSE_SESSION,
        "title": "Close a session",
        "description": "Ends the login a handle from open_session names; what it had not committed is \
                        discarded, and the result says whether there was any.",
        "inputSchema": {
            "type": "object",
            "properties": {
                SESSION_ARG: { "type": "string", "description": "The handle open_session answered." },
            },
            "required": [SESSION_ARG],
            "additionalProperties": false,
        },
        "annotations": {
            "title": "Close a session",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": true,
            "openWorldHint": false,
        },
    })
}

/// The arguments of a stateless `tools/call` as the tool sees them: without
/// the `session` the router routed by.
pub fn without_session(params: &mut Map<String, Value>) {
    if let Some(Value::Object(args)) = params.get_mut("arguments") {
        args.remove(SESSION_ARG);
    }
}

/// How long a result of `method` may be cached, if it may: lists fixed while
/// the server runs for [`STATIC_TTL_MS`]; what the repository holds (its
/// resources) not at all, since any commit may change it.
fn ttl_ms(method: &str) -> Option<u64> {
    match method {
        "server/discover" | "tools/list" | "prompts/list" | "resources/templates/list" => {
            Some(STATIC_TTL_MS)
        }
        "resources/list" | "resources/read" => Some(0),
        _ => None,
    }
}

/// Shapes a result of `method` for the stateless era: `resultType`, the
/// server's identity in `_meta`, and caching hints where the method has them.
/// The scope is private: what a principal is served depends on its grants.
pub fn shape(method: &str, result: &mut Value, server_info: &Value) {
    let Some(object) = result.as_object_mut() else {
        return;
    };
    // an InputRequiredResult says so already, and is never cached
    let asks = object.get("resultType").and_then(Value::as_str) == Some(INPUT_REQUIRED);
    if !asks {
        object.insert("resultType".into(), json!("complete"));
    }
    let meta = object.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(META_SERVER_INFO.into(), server_info.clone());
    }
    if let Some(ttl) = ttl_ms(method).filter(|_| !asks) {
        object.insert("ttlMs".into(), json!(ttl));
        object.insert("cacheScope".into(), json!("private"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> Value {
        json!({"name": "gsmcp", "version": "1"})
    }

    #[test]
    fn results_say_complete_and_name_the_server() {
        let table = [
            ("tools/list", Some(STATIC_TTL_MS)),
            ("server/discover", Some(STATIC_TTL_MS)),
            ("resources/read", Some(0)),
            ("tools/call", None),
            ("prompts/get", None),
        ];
        for (method, ttl) in table {
            let mut result = json!({"x": 1, "_meta": {"other": true}});
            shape(method, &mut result, &info());
            assert_eq!(result["resultType"], "complete", "{method}");
            assert_eq!(
                result["_meta"][META_SERVER_INFO]["name"], "gsmcp",
                "{method}"
            );
            assert_eq!(result["_meta"]["other"], true, "{method}: _meta kept");
            assert_eq!(result.get("ttlMs").and_then(Value::as_u64), ttl, "{method}");
            assert_eq!(
                result.get("cacheScope").is_some(),
                ttl.is_some(),
                "{method}"
            );
        }
    }

    #[test]
    fn a_result_asking_for_input_stays_so_and_is_not_cached() {
        let mut result = json!({"resultType": "input_required", "inputRequests": {}});
        shape("resources/read", &mut result, &info());
        assert_eq!(result["resultType"], "input_required");
        assert_eq!(result["_meta"][META_SERVER_INFO]["name"], "gsmcp");
        assert!(result.get("ttlMs").is_none());
    }

    #[test]
    fn every_tool_takes_a_session_and_the_handle_tools_come_first() {
        let list = json!([
            {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false}},
        ]);
        let tools = tools(list);
        let names: Vec<_> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [OPEN_SESSION, CLOSE_SESSION, "a"]);
        assert_eq!(
            tools[2]["inputSchema"]["properties"][SESSION_ARG]["type"],
            "string"
        );
        assert_eq!(tools[2]["inputSchema"]["properties"]["x"]["type"], "string");
        assert!(tools[0]["inputSchema"]["properties"]
            .get(SESSION_ARG)
            .is_none());
        assert_eq!(tools[1]["inputSchema"]["required"], json!([SESSION_ARG]));
    }

    #[test]
    fn the_session_argument_is_taken_out() {
        let mut params = json!({"name": "t", "arguments": {"session": "h", "code": "3"}});
        without_session(params.as_object_mut().unwrap());
        assert_eq!(params["arguments"], json!({"code": "3"}));
    }
}
