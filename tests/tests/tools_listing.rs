//! End-to-end: the Listing toolset (list_dictionaries, list_all_classes,
//! list_classes, list_dictionary_entries) through `tools/call` on the real
//! router and worker over an in-memory image: define classes and globals with
//! execute_code, then list and page through them.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use util::mcp::Http;
use util::{eval, fails, ok, text, NASTY};

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("{field} is not a list: {list}"))
        .iter()
        .map(|e| {
            e.as_str()
                .or_else(|| e[field].as_str())
                .unwrap_or_else(|| panic!("no {field} in {e}"))
                .to_string()
        })
        .collect()
}

/// Defines `n` classes `Listed001`.. in a new dictionary `Listing` (added to
/// the symbol list), plus two globals.
async fn populate(s: &mut util::mcp::Session, n: usize) {
    eval(
        s,
        "| d | d := SymbolDictionary new. d name: #Listing. \
         System myUserProfile insertDictionary: d at: 1. true",
    )
    .await;
    eval(
        s,
        &format!(
            "1 to: {n} do: [:i | | name | \
             name := 'Listed' , (i printString: 10) . \
             name := 'Listed' , ((1000 + i) printString copyFrom: 2 to: 4). \
             (Object subclass: name instVarNames: #() classVars: #() classInstVars: #() \
             poolDictionaries: #() inDictionary: (System myUserProfile symbolList objectNamed: #Listing) \
             options: #()) category: 'Listing-Tests']. true"
        ),
    )
    .await;
    eval(
        s,
        "(System myUserProfile symbolList objectNamed: #Listing) at: #ListedGlobal put: 42; \
         at: #ListedText put: 'hello'. true",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dictionaries_classes_and_entries_are_listed_and_paged() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    populate(&mut s, 25).await;

    let r = ok(&mut s, "list_dictionaries", json!({})).await;
    let dicts = names(&r["structuredContent"]["dictionaries"], "name");
    assert_eq!(dicts.first().map(String::as_str), Some("Listing"), "{r}");
    for expected in ["UserGlobals", "Globals"] {
        assert!(dicts.iter().any(|d| d == expected), "{dicts:?}");
    }
    assert!(text(&r).contains("Listing (28 entries)"), "{}", text(&r));

    // list_classes pages through the 25 sorted names.
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let r = ok(
            &mut s,
            "list_classes",
            json!({"dictionaryName": "Listing", "limit": 10, "offset": offset}),
        )
        .await;
        let sc = &r["structuredContent"];
        assert_eq!(sc["total"], 25, "{r}");
        let page = names(&sc["classes"], "name");
        let header = text(&r).lines().next().unwrap_or_default().to_string();
        let last = offset + page.len();
        if last < 25 {
            assert_eq!(
                header,
                format!(
                    "showing {}-{last} of 25 classes; pass offset: {last} for the next page",
                    offset + 1
                )
            );
        } else {
            assert_eq!(header, format!("showing {}-25 of 25 classes", offset + 1));
        }
        seen.extend(page);
        if last >= 25 {
            break;
        }
        offset = last;
    }
    let expected: Vec<String> = (1..=25).map(|i| format!("Listed{i:03}")).collect();
    assert_eq!(seen, expected);

    // limit 0 answers the count alone.
    let r = ok(
        &mut s,
        "list_classes",
        json!({"dictionaryName": "Listing", "limit": 0}),
    )
    .await;
    assert_eq!(text(&r), "25 classes");
    assert_eq!(r["structuredContent"]["classes"], json!([]));

    // list_all_classes holds them (with their dictionary) and the kernel's.
    let r = ok(&mut s, "list_all_classes", json!({"limit": 0})).await;
    let total = r["structuredContent"]["total"].as_u64().expect("total") as usize;
    assert!(total > 25, "{r}");
    let r = ok(&mut s, "list_all_classes", json!({"limit": 5000})).await;
    let all = r["structuredContent"]["classes"]
        .as_array()
        .expect("classes")
        .clone();
    assert_eq!(all.len(), total);
    for wanted in ["Listed001", "Listed025", "Object", "OrderedCollection"] {
        assert!(all.iter().any(|c| c["name"] == wanted), "{wanted} missing");
    }
    let listed = all
        .iter()
        .find(|c| c["name"] == "Listed007")
        .expect("Listed007");
    assert_eq!(listed["dictionary"], "Listing");
    let sorted: Vec<&str> = all.iter().filter_map(|c| c["name"].as_str()).collect();
    let mut resorted = sorted.clone();
    resorted.sort();
    assert_eq!(sorted, resorted, "list_all_classes is sorted");
    let r = ok(
        &mut s,
        "list_all_classes",
        json!({"offset": total - 2, "limit": 10}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["classes"].as_array().map(Vec::len),
        Some(2)
    );

    // Entries are tagged class or global.
    let r = ok(
        &mut s,
        "list_dictionary_entries",
        json!({"dictionaryName": "Listing", "limit": 100}),
    )
    .await;
    let entries = r["structuredContent"]["entries"]
        .as_array()
        .expect("entries")
        .clone();
    // 25 classes, two globals and the dictionary's own name binding.
    assert_eq!(entries.len(), 28);
    assert_eq!(r["structuredContent"]["total"], 28);
    assert_eq!(
        by_name_in(&entries, "Listing")["valueClass"],
        "SymbolDictionary"
    );
    let by_name = |n: &str| entries.iter().find(|e| e["name"] == n).cloned().expect(n);
    assert_eq!(by_name("ListedGlobal")["kind"], "global");
    assert_eq!(by_name("ListedGlobal")["valueClass"], "SmallInteger");
    assert_eq!(by_name("ListedText")["kind"], "global");
    assert_eq!(by_name("Listed010")["kind"], "class");
    assert_eq!(by_name("Listed010")["category"], "Listing-Tests");
    assert!(
        text(&r).contains("Listed010: class (category Listing-Tests)"),
        "{}",
        text(&r)
    );
    assert!(
        text(&r).contains("ListedGlobal: global (SmallInteger)"),
        "{}",
        text(&r)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_and_unknown_dictionaries() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    // (tool, arguments, expected error kind)
    let table = [
        (
            "list_classes",
            json!({"dictionaryName": "NoSuchDictionary"}),
            "notFound",
        ),
        (
            "list_dictionary_entries",
            json!({"dictionaryName": "NoSuchDictionary"}),
            "notFound",
        ),
        ("list_classes", json!({"dictionaryName": NASTY}), "notFound"),
        (
            "list_dictionary_entries",
            json!({"dictionaryName": NASTY}),
            "notFound",
        ),
        ("list_classes", json!({}), "invalidParams"),
        (
            "list_classes",
            json!({"dictionaryName": 3}),
            "invalidParams",
        ),
        ("list_all_classes", json!({"limit": -1}), "invalidParams"),
        ("list_all_classes", json!({"offset": -5}), "invalidParams"),
        ("list_all_classes", json!({"limit": 2.5}), "invalidParams"),
        ("list_all_classes", json!({"limit": "10"}), "invalidParams"),
        ("list_dictionaries", json!({"limit": 1}), "invalidParams"),
        (
            "list_classes",
            json!({"dictionaryName": "UserGlobals", "limit": -2}),
            "invalidParams",
        ),
    ];
    for (tool, args, kind) in table {
        let e = fails(&mut s, tool, args.clone()).await;
        assert_eq!(e["kind"], kind, "{tool} {args}: {e}");
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
    }
    let e = fails(&mut s, "list_classes", json!({"dictionaryName": NASTY})).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("list_dictionaries"),
        "the remedy is named: {e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_with_awkward_characters_come_back_intact() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    // A dictionary and a global whose names hold quotes, %, newlines,
    // backslashes and non-ASCII, reached by name through the tools.
    eval(
        &mut s,
        &format!(
            "| d | d := SymbolDictionary new. d name: {name} asSymbol. \
             d at: ('g' , {name}) asSymbol put: {name}. \
             System myUserProfile insertDictionary: d at: 1. true",
            name = smalltalk_string(NASTY)
        ),
    )
    .await;
    let r = ok(&mut s, "list_dictionaries", json!({})).await;
    assert_eq!(
        r["structuredContent"]["dictionaries"][0]["name"], NASTY,
        "{r}"
    );
    let r = ok(
        &mut s,
        "list_dictionary_entries",
        json!({"dictionaryName": NASTY}),
    )
    .await;
    assert_eq!(r["structuredContent"]["dictionary"], NASTY);
    let entries = r["structuredContent"]["entries"]
        .as_array()
        .expect("entries")
        .clone();
    let global = format!("g{NASTY}");
    assert_eq!(by_name_in(&entries, &global)["kind"], "global", "{r}");
    assert_eq!(
        by_name_in(&entries, NASTY)["valueClass"],
        "SymbolDictionary",
        "{r}"
    );
    assert!(
        util::text(&r).contains(&format!("{global}: global (")),
        "{r}"
    );
    let r = ok(&mut s, "list_classes", json!({"dictionaryName": NASTY})).await;
    assert_eq!(r["structuredContent"]["total"], 0, "{r}");
}

fn by_name_in(entries: &[Value], name: &str) -> Value {
    entries
        .iter()
        .find(|e| e["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no entry {name:?} in {entries:?}"))
}

/// A Smalltalk string literal for `text` (the test's own quoting, so the
/// tools' quoting is checked against an independent one).
fn smalltalk_string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
