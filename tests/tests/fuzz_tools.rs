//! Fuzzing through the real router and worker: every tool called with
//! arguments made from its own input schema and a pool of hostile values
//! (wrong types, missing and extra properties, quoting and injection text,
//! huge and empty strings), and `execute_code` given the snippets of
//! `tests/fuzz/snippets.st`, whole and mutated. Each call must get one
//! well-formed answer — a tool result (`isError` true or false) or a JSON-RPC
//! error with a code — and the session's worker must be the same process at
//! the end. Seeded (`GSMCP_FUZZ_SEED`), so a failure can be replayed; the
//! number of calls is fixed, so the test's time is bounded.

#[path = "../src/mcp.rs"]
mod mcp;

use gsmcp_tests::Server;
use mcp::{worker_of, Http, Session};
use serde_json::{json, Map, Value};

const SNIPPETS: &str = include_str!("../fuzz/snippets.st");
/// Argument sets tried per tool.
const CASES_PER_TOOL: usize = 14;
/// Mutations tried per snippet (besides the snippet itself).
const MUTATIONS_PER_SNIPPET: usize = 3;

/// xorshift64*: a small, seedable generator (no dependency for a test).
struct Rng(u64);

impl Rng {
    /// A generator whose stream is its own for every seed (one splitmix64
    /// step spreads the seed; xorshift needs a state other than zero).
    fn seeded(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)).max(1))
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Text values: names that exist, names that do not, and text that breaks
/// naive quoting or templating.
fn strings() -> Vec<String> {
    let mut v: Vec<String> = [
        "Object",
        "FuzzThing",
        "UserGlobals",
        "Globals",
        "printString",
        "at:put:",
        "+",
        "name",
        "",
        " ",
        "NoSuchClass",
        "'); Object removeKey: #Array. ('",
        "\"comment\" ^ nil",
        "{{escaper}}",
        "it's \"q\" 100% a\\b\nline2 ünï 😀",
        "\u{0}",
        "%\n! bang\n",
        "x ^ 1",
        "foo: a bar: b\n\t^ a , b",
        "Object subclass: #Evil",
        "[true] whileTrue",
        "-1",
        "9999999999999999999999",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    v.push("A".repeat(100_000));
    v.push("é".repeat(5_000));
    v
}

/// A value for a property of JSON Schema type `ty`, mostly well-typed.
fn value_for(rng: &mut Rng, ty: &str, strings: &[String]) -> Value {
    // one in five is of a wrong type
    if rng.below(5) == 0 {
        return rng
            .pick(&[
                json!(null),
                json!(true),
                json!(-1),
                json!(1.5),
                json!(1e308),
                json!(u64::MAX),
                json!([]),
                json!(["Object", 3]),
                json!({"a": {"b": [1]}}),
                json!("text"),
            ])
            .clone();
    }
    match ty {
        "integer" => rng
            .pick(&[
                json!(0),
                json!(1),
                json!(5),
                json!(-7),
                json!(i64::MAX),
                json!(100_000),
            ])
            .clone(),
        "boolean" => json!(rng.below(2) == 0),
        "array" => {
            let n = rng.below(4);
            Value::Array((0..n).map(|_| json!(rng.pick(strings))).collect())
        }
        _ => json!(rng.pick(strings)),
    }
}

/// Arguments for a tool from its input schema: each property present or not,
/// now and then one it does not declare.
fn arguments(rng: &mut Rng, schema: &Value, strings: &[String]) -> Value {
    let mut args = Map::new();
    if let Some(props) = schema["properties"].as_object() {
        for (name, p) in props {
            if rng.below(4) != 0 {
                let ty = p["type"].as_str().unwrap_or("string");
                let value = if ty == "array" && p["items"]["type"] == "integer" {
                    let n = rng.below(4);
                    Value::Array((0..n).map(|_| value_for(rng, "integer", strings)).collect())
                } else {
                    value_for(rng, ty, strings)
                };
                args.insert(name.clone(), value);
            }
        }
    }
    if rng.below(8) == 0 {
        args.insert("undeclared".into(), json!("x"));
    }
    Value::Object(args)
}

/// The snippets of the corpus file (`!` lines are comments, `%` ends one).
fn snippets() -> Vec<String> {
    let mut out = vec![];
    let mut current = String::new();
    for line in SNIPPETS.lines() {
        if line.starts_with('!') {
            continue;
        }
        if line.trim() == "%" {
            out.push(std::mem::take(&mut current));
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    out
}

/// A snippet cut short, with one character replaced, or with a piece doubled.
fn mutate(rng: &mut Rng, s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let at = rng.below(chars.len() + 1);
    match rng.below(3) {
        0 => chars[..at].iter().collect(),
        1 => {
            let mut c = chars.clone();
            if at < c.len() {
                c[at] = *rng.pick(&[
                    '(', ')', '[', ']', '\'', '"', '^', ':', '.', '#', '$', '0', 'z',
                ]);
            }
            c.into_iter().collect()
        }
        _ => {
            let end = (at + rng.below(12)).min(chars.len());
            let piece: String = chars[at..end].iter().collect();
            let mut c: String = chars[..end].iter().collect();
            c.push_str(&piece);
            c.extend(&chars[end..]);
            c
        }
    }
}

/// How the calls ended: succeeded, tool errors by kind, JSON-RPC errors.
#[derive(Default, Debug)]
struct Tally {
    ok: usize,
    tool_errors: std::collections::BTreeMap<String, usize>,
    protocol_errors: usize,
}

impl Tally {
    /// Checks that `answer` is one well-formed answer to a call, and counts it.
    fn well_formed(&mut self, what: &str, answer: &mcp::Answer) {
        assert_eq!(answer.status, 200, "{what}: {answer:?}");
        let m = answer.msg();
        if let Some(r) = m.get("result") {
            assert!(r["content"].is_array(), "{what}: {m}");
            match r["isError"].as_bool() {
                Some(false) => self.ok += 1,
                Some(true) => {
                    let kind = r["structuredContent"]["error"]["kind"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{what}: a tool error with no kind: {m}"));
                    // a worker fault shows as an internal error of the engine
                    let text = r["content"][0]["text"].as_str().unwrap_or("");
                    assert!(!text.contains("internal error"), "{what}: {m}");
                    *self.tool_errors.entry(kind.to_string()).or_default() += 1;
                }
                None => panic!("{what}: isError is not a boolean: {m}"),
            }
        } else {
            assert!(m["error"]["code"].is_i64(), "{what}: {m}");
            eprintln!("protocol error: {what}: {m}");
            self.protocol_errors += 1;
        }
    }
}

async fn tools(s: &mut Session) -> Vec<(String, Value)> {
    let listed = s.request("tools/list", json!({})).await;
    listed.result()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["inputSchema"].clone(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_and_snippets_answer_and_the_worker_lives() {
    let seed = std::env::var("GSMCP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2026_u64);
    eprintln!("fuzz seed {seed} (GSMCP_FUZZ_SEED replays it)");
    let mut rng = Rng::seeded(seed);
    let repo = gsmcp_tests::harness::scratch_path("fuzz.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        // `[true] whileTrue` is in the pool: the deadline breaks it, and the
        // worker goes on
        .env("MCP_REQUEST_TIMEOUT", "3s")
        .start();
    let mut s = Http::new(&server.url).open().await;
    let pid = worker_of(server.port(), &s).expect("the session's worker");
    let strings = strings();

    let mut calls = 0;
    let mut tally = Tally::default();
    for (tool, schema) in tools(&mut s).await {
        for case in 0..CASES_PER_TOOL {
            let args = arguments(&mut rng, &schema, &strings);
            let answer = s.call(&tool, args.clone()).await;
            let shown: String = args.to_string().chars().take(300).collect();
            tally.well_formed(&format!("{tool} #{case} {shown} (seed {seed})"), &answer);
            calls += 1;
        }
    }
    for snippet in snippets() {
        let mut variants = vec![snippet.clone()];
        variants.extend((0..MUTATIONS_PER_SNIPPET).map(|_| mutate(&mut rng, &snippet)));
        for code in variants {
            let answer = s.call("execute_code", json!({"code": code})).await;
            tally.well_formed(&format!("execute_code {code:?} (seed {seed})"), &answer);
            calls += 1;
        }
    }
    // the same worker answered everything and still does
    assert_eq!(
        worker_of(server.port(), &s),
        Some(pid),
        "after {calls} calls"
    );
    let r = s.execute("3 + 4").await;
    assert_eq!(r["content"][0]["text"], "7", "{r}");
    eprintln!("{calls} calls answered: {tally:?}");
    // the pool reaches past argument validation: many calls ran (answered,
    // or refused by the tool itself rather than by the schema check)
    let invalid = tally.tool_errors.get("invalidParams").copied().unwrap_or(0);
    let past_validation = calls - invalid - tally.protocol_errors;
    assert!(
        past_validation * 3 > calls && tally.ok * 10 > calls,
        "too few calls got past validation: {tally:?}"
    );
}
