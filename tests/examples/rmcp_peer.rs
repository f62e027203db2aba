//! A trivial MCP server built on the rmcp SDK's Streamable HTTP server, with one
//! tool (`add`): the yardstick the transport benchmark measures gsmcp against.
//!
//! `cargo run --release -p gsmcp-tests --example rmcp_peer [PORT]` listens on
//! 127.0.0.1 (port 0 = any free port) and prints
//! `rmcp-peer listening on http://127.0.0.1:<port>/mcp`.

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};

use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ErrorData;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::Arc;

#[derive(Clone, Default)]
struct Adder;

fn add_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": false,
    });
    let Value::Object(schema) = schema else {
        unreachable!("a literal object")
    };
    Tool::new("add", "Adds two integers", Arc::new(schema))
}

impl ServerHandler for Adder {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![add_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "add" {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let int = |k: &str| args.get(k).and_then(Value::as_i64);
        let result = match (int("a"), int("b")) {
            (Some(a), Some(b)) => {
                CallToolResult::success(vec![ContentBlock::text((a + b).to_string())])
            }
            _ => CallToolResult::error(vec![ContentBlock::text("a and b must be integers")]),
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .map(|p| p.parse().expect("PORT must be a number"))
        .unwrap_or(0);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    let service = StreamableHttpService::new(
        || Ok(Adder),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    println!("rmcp-peer listening on http://{addr}/mcp");
    std::io::stdout().flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
