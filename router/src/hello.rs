//! The first frame a worker of this deployment gets ([`hello_for`]): the
//! backend it logs in to with its login (user and credential), the toolsets
//! and their options, the server's identity, its limits and what the
//! principal's scopes withhold. `session.rs` sends it for each session and
//! `check.rs` for `--check`'s login.

use gsmcp_ipc::{Backend, Hello, PROTOCOL_VERSION};

use crate::config::Config;
use crate::identity::Principal;
use crate::logins::WorkerLogin;

/// The server's name, in `serverInfo`.
pub const SERVER_NAME: &str = "gsmcp";

/// The server's identity as results name it (`serverInfo`): name, version
/// and the deployment's title.
pub fn server_info(config: &Config) -> serde_json::Value {
    let mut info = serde_json::json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") });
    if let Some(title) = &config.title {
        info["title"] = serde_json::json!(title);
    }
    info
}

/// The JSON-RPC response text answering request `id` with `result` as the
/// stateless era shapes a result the router makes itself: complete, and
/// naming the server in its `_meta`.
pub fn complete_response(
    config: &Config,
    id: &serde_json::Value,
    mut result: serde_json::Value,
) -> String {
    result["resultType"] = serde_json::json!("complete");
    let meta = result
        .as_object_mut()
        .map(|r| r.entry("_meta").or_insert_with(|| serde_json::json!({})));
    if let Some(meta) = meta {
        meta[gsmcp_ipc::era::META_SERVER_INFO] = server_info(config);
    }
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

/// The end of a `subscriptions/listen` stream whose request had `id`: the
/// request's result, which says the subscription ended gracefully.
pub fn listen_done(config: &Config, id: &serde_json::Value) -> String {
    complete_response(
        config,
        id,
        serde_json::json!({ "_meta": { (gsmcp_ipc::era::META_SUBSCRIPTION_ID): id } }),
    )
}

/// The first frame a worker of this deployment gets: its backend and login,
/// toolsets, options and identity.
pub fn hello_for(
    config: &Config,
    sid: &str,
    port: u16,
    principal: &Principal,
    login: WorkerLogin,
) -> Hello {
    let WorkerLogin { user, credential } = login;
    Hello {
        protocol: PROTOCOL_VERSION,
        session_id: sid.to_string(),
        port,
        backend: match &config.gci {
            None => Backend::Embedded {
                repository: config.repository.clone(),
                user,
                credential,
            },
            // a ticket is never made for GCI: per-user logins there are by token
            Some(g) => Backend::Gci {
                gemstone: g.gemstone.clone(),
                library: g.library.clone(),
                stone: g.stone.clone(),
                gem_nrs: g.gem_nrs.clone(),
                netldi: g.netldi.clone(),
                host_user: g.host_user.clone(),
                host_password: g.host_password.as_ref().map(|s| s.expose().to_string()),
                user,
                credential,
            },
        },
        toolsets: config.toolsets.clone(),
        options: config.toolset_options.clone(),
        server_name: SERVER_NAME.into(),
        server_version: env!("CARGO_PKG_VERSION").into(),
        title: config.title.clone(),
        instructions: config.instructions.clone(),
        log_filter: config.log_filter.clone(),
        memory: config.worker_memory,
        read_only: config.read_only,
        one_shot: false,
        withheld: crate::access::withheld_toolsets(
            &config.scope_toolsets,
            &config.toolsets,
            principal,
        ),
    }
}
