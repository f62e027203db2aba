//! Who may use what, decided from the configuration alone: the toolsets each
//! scope grants (`MCP_SCOPE_TOOLSETS`) and those a principal's scopes withhold,
//! and the redaction layer a configuration's secrets call for. Pure functions,
//! so `config` and `session` share them without depending on each other.

use crate::auth::Auth;
use crate::identity::Principal;
use gsmcp_ipc::redact::Redactor;

/// The redaction layer of a configuration: its passwords, login key and
/// OAuth HMAC secret by value, its bearer token by its digest (the token
/// itself is not kept).
pub fn redactor_for<'a>(auth: &'a Auth, secrets: impl IntoIterator<Item = &'a str>) -> Redactor {
    let oauth_secrets = auth.oauth().map(|o| o.secrets()).unwrap_or_default();
    let r = Redactor::new(secrets.into_iter().chain(oauth_secrets));
    match auth {
        Auth::Off | Auth::OAuth(_) => r,
        Auth::Token(digest) => {
            let digest = digest.clone();
            r.with_matcher(
                crate::auth::MIN_TOKEN_CHARS,
                Box::new(move |run| digest.matches(run)),
            )
        }
    }
}

/// `MCP_SCOPE_TOOLSETS`: `scope=Toolset,Toolset` entries separated by spaces
/// or `;`. Every toolset named must be served and every served toolset with
/// tools granted by some scope (a toolset no scope grants could never be used:
/// say so rather than serve it to no one). Only OAuth tokens carry scopes.
pub fn parse_scope_toolsets(
    text: &str,
    served: &[String],
    oauth: bool,
) -> Result<Vec<(String, Vec<String>)>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    if !oauth {
        return Err(
            "MCP_SCOPE_TOOLSETS needs MCP_AUTH=oauth: only OAuth access tokens carry scopes".into(),
        );
    }
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for entry in text
        .split(|c: char| c == ';' || c.is_whitespace())
        .filter(|e| !e.is_empty())
    {
        let Some((scope, sets)) = entry.split_once('=') else {
            return Err(format!(
                "MCP_SCOPE_TOOLSETS entry {entry:?} is not `scope=Toolset,Toolset`"
            ));
        };
        let sets = gsmcp_ipc::toolsets::parse_toolsets(sets)
            .map_err(|e| format!("MCP_SCOPE_TOOLSETS, scope {scope}: {e}"))?;
        if let Some(unserved) = sets.iter().find(|t| !served.contains(t)) {
            return Err(format!(
                "MCP_SCOPE_TOOLSETS: scope {scope} grants {unserved}, which MCP_TOOLSETS does not serve"
            ));
        }
        if scope.is_empty() || out.iter().any(|(s, _)| s == scope) {
            return Err(format!(
                "MCP_SCOPE_TOOLSETS names scope {scope:?} twice or empty"
            ));
        }
        out.push((scope.to_string(), sets));
    }
    if let Some(orphan) = served
        .iter()
        .filter(|t| has_tools(t))
        .find(|t| !out.iter().any(|(_, sets)| sets.contains(t)))
    {
        return Err(format!(
            "MCP_SCOPE_TOOLSETS grants {orphan} to no scope, so no client could use it: \
             add it to a scope or leave it out of MCP_TOOLSETS"
        ));
    }
    Ok(out)
}

/// Whether the toolset named `name` has tools; one of prompts only (which
/// run and change nothing) is served to every session whatever its scopes.
fn has_tools(name: &str) -> bool {
    gsmcp_ipc::toolsets::toolset(name).is_none_or(|d| d.has_tools)
}

/// The served toolsets `principal`'s scopes do not grant, each with the
/// scopes that would (none when the deployment maps no scopes to toolsets).
pub fn withheld_toolsets(
    scope_toolsets: &[(String, Vec<String>)],
    served: &[String],
    principal: &Principal,
) -> Vec<(String, Vec<String>)> {
    if scope_toolsets.is_empty() {
        return Vec::new();
    }
    let held: &[String] = match principal {
        Principal::User { scopes, .. } => scopes,
        _ => &[],
    };
    served
        .iter()
        .filter(|t| has_tools(t))
        .filter_map(|toolset| {
            let granting: Vec<String> = scope_toolsets
                .iter()
                .filter(|(_, sets)| sets.contains(toolset))
                .map(|(scope, _)| scope.clone())
                .collect();
            (!granting.iter().any(|s| held.contains(s))).then(|| (toolset.clone(), granting))
        })
        .collect()
}
