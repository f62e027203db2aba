//! End-to-end: the refactorings that change a class's instance variables.
//! `rename_instance_variable` previews the definition diff and the rewritten
//! methods, then makes new versions of the class and its subclass with every
//! method carried over and the uses renamed (tests stay green, a class
//! variable keeps its value); `add_instance_variable` and
//! `remove_instance_variable` do the same for the list itself. What would
//! break a method or hide a name is refused whole, naming the methods, and so
//! is a kernel class. `rename_class` rebinds the class under its new name,
//! re-versions its subclass under it and rewrites every reference.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::{Http, Session};
use util::{eval, fails, ok, preview_and_apply, source, test_method_passes};

const CLASSES: &str = "Object subclass: 'ShAccount' instVarNames: #(balance owner) \
    classVars: #(Rate) classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. \
    (UserGlobals at: #ShAccount) subclass: 'ShSavings' instVarNames: #(bonus) classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. \
    TestCase subclass: 'ShAccountTest' instVarNames: #() classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true";

const METHODS: [(&str, bool, &str); 8] = [
    ("ShAccount", false, "balance\n\t^ balance ifNil: [0]"),
    (
        "ShAccount",
        false,
        "deposit: amount\n\t\"balance grows\"\n\tbalance := self balance + amount.\n\t^ #balance",
    ),
    ("ShAccount", false, "owner\n\t^ owner"),
    (
        "ShAccount",
        false,
        "each: aBlock\n\t^ #(1 2) collect: [:balance | balance + 1]",
    ),
    ("ShAccount", true, "rate\n\t^ Rate"),
    ("ShAccount", true, "rate: r\n\tRate := r"),
    (
        "ShSavings",
        false,
        "addBonus\n\tbonus := 5.\n\tbalance := self balance + bonus",
    ),
    (
        "ShAccountTest",
        false,
        "testBonus\n\t| a |\n\ta := ShSavings new.\n\ta deposit: 10; addBonus.\n\tself assert: a balance = 15",
    ),
];

async fn setup(s: &mut Session) {
    assert_eq!(eval(s, CLASSES).await, "true");
    for (class, meta, source) in METHODS {
        ok(
            s,
            "compile_method",
            json!({"className": class, "meta": meta, "source": source, "category": "sh"}),
        )
        .await;
    }
    assert_eq!(eval(s, "ShAccount rate: 7. ShAccount rate").await, "7");
}

async fn test_passes(s: &mut Session) {
    test_method_passes(s, "ShAccountTest", "testBonus").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_an_instance_variable_versions_the_hierarchy_and_rewrites_its_uses() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    let args = json!({"className": "ShAccount", "name": "balance", "newName": "funds"});
    let preview = ok(&mut a, "rename_instance_variable", args.clone()).await;
    let d = &preview["structuredContent"];
    assert_eq!(d["instVarNames"], json!(["funds", "owner"]), "{preview}");
    assert_eq!(
        d["newVersions"],
        json!(["ShAccount", "ShSavings"]),
        "{preview}"
    );
    let changed: Vec<String> = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}>>{}",
                c["className"].as_str().unwrap(),
                c["selector"].as_str().unwrap()
            )
        })
        .collect();
    // the block argument named balance and the symbol are not uses
    assert_eq!(
        changed,
        [
            "ShAccount>>balance",
            "ShAccount>>deposit:",
            "ShSavings>>addBonus"
        ],
        "{preview}"
    );
    let text = preview["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("+  instVarNames: #(funds owner)"), "{text}");
    // nothing written yet
    assert_eq!(
        eval(
            &mut a,
            "ShAccount instVarNames asArray = #(#balance #owner)"
        )
        .await,
        "true"
    );

    let (_, applied) = preview_and_apply(&mut a, "rename_instance_variable", args).await;
    assert_eq!(
        applied["structuredContent"]["committed"], false,
        "{applied}"
    );
    assert_eq!(
        eval(&mut a, "ShAccount instVarNames asArray = #(#funds #owner)").await,
        "true"
    );
    assert_eq!(
        eval(&mut a, "ShSavings superclass == ShAccount").await,
        "true"
    );
    assert_eq!(eval(&mut a, "ShAccount classHistory size").await, "2");
    assert_eq!(
        source(&mut a, "ShAccount", "deposit:").await,
        "deposit: amount\n\t\"balance grows\"\n\tfunds := self balance + amount.\n\t^ #balance"
    );
    assert_eq!(
        source(&mut a, "ShAccount", "each:").await,
        "each: aBlock\n\t^ #(1 2) collect: [:balance | balance + 1]"
    );
    assert_eq!(
        source(&mut a, "ShSavings", "addBonus").await,
        "addBonus\n\tbonus := 5.\n\tfunds := self balance + bonus"
    );
    // class-side methods and the class variable's value came along
    assert_eq!(eval(&mut a, "ShAccount rate").await, "7");
    test_passes(&mut a).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adding_and_removing_instance_variables() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;

    let (preview, _) = preview_and_apply(
        &mut a,
        "add_instance_variable",
        json!({"className": "ShAccount", "name": "limit"}),
    )
    .await;
    assert_eq!(
        preview["structuredContent"]["changes"],
        json!([]),
        "{preview}"
    );
    assert_eq!(
        eval(
            &mut a,
            "ShAccount instVarNames asArray = #(#balance #owner #limit)"
        )
        .await,
        "true"
    );
    assert_eq!(
        eval(
            &mut a,
            "ShSavings allInstVarNames asArray = #(#balance #owner #limit #bonus)"
        )
        .await,
        "true"
    );
    test_passes(&mut a).await;

    // owner is used by a method: refused, naming it
    let e = fails(
        &mut a,
        "remove_instance_variable",
        json!({"className": "ShAccount", "name": "owner"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("ShAccount>>owner"),
        "{e}"
    );

    preview_and_apply(
        &mut a,
        "remove_instance_variable",
        json!({"className": "ShAccount", "name": "limit"}),
    )
    .await;
    assert_eq!(
        eval(
            &mut a,
            "ShSavings allInstVarNames asArray = #(#balance #owner #bonus)"
        )
        .await,
        "true"
    );
    test_passes(&mut a).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_would_break_or_hide_a_name_is_refused_whole() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    ok(
        &mut a,
        "compile_method",
        json!({"className": "ShSavings", "source": "total\n\t| sum |\n\tsum := bonus. ^ sum"}),
    )
    .await;
    // (tool, args, kind, words the message must hold)
    let table = [
        (
            "rename_instance_variable",
            json!({"className": "ShAccount", "name": "balance", "newName": "bonus"}),
            "refused",
            "ShSavings already has",
        ),
        (
            "rename_instance_variable",
            json!({"className": "ShAccount", "name": "balance", "newName": "sum"}),
            "refused",
            "ShSavings>>total",
        ),
        (
            "add_instance_variable",
            json!({"className": "ShAccount", "name": "sum"}),
            "refused",
            "ShSavings>>total",
        ),
        (
            "add_instance_variable",
            json!({"className": "ShAccount", "name": "Rate"}),
            "invalidParams",
            "cannot name an instance variable",
        ),
        (
            "rename_instance_variable",
            json!({"className": "ShSavings", "name": "balance", "newName": "x"}),
            "notFound",
            "inherited",
        ),
        (
            "add_instance_variable",
            json!({"className": "Object", "name": "tag"}),
            "refused",
            "kernel class",
        ),
        (
            "add_instance_variable",
            json!({"className": "ShNoSuchClass", "name": "tag"}),
            "notFound",
            "no class named",
        ),
    ];
    for (tool, args, kind, words) in table {
        let e = fails(&mut a, tool, args.clone()).await;
        assert_eq!(e["kind"], kind, "{tool} {args}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(words),
            "{tool} {args}: {e}"
        );
    }
    // nothing was written by any of them
    assert_eq!(eval(&mut a, "ShAccount classHistory size").await, "1");
    assert_eq!(eval(&mut a, "Object instVarNames size").await, "0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_a_class_rebinds_it_and_rewrites_every_reference() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    for (class, meta, source) in [
        ("ShAccount", true, "opened\n\t\"a new ShAccount\"\n\t^ ShAccount new"),
        (
            "ShAccountTest",
            false,
            "testOpened\n\tself assert: ShAccount opened balance = 0.\n\tself assert: #ShAccount size = 9",
        ),
    ] {
        ok(
            &mut a,
            "compile_method",
            json!({"className": class, "meta": meta, "source": source}),
        )
        .await;
    }
    let e = fails(
        &mut a,
        "rename_class",
        json!({"className": "ShAccount", "newName": "ShSavings"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("already bound"),
        "{e}"
    );

    let (preview, _) = preview_and_apply(
        &mut a,
        "rename_class",
        json!({"className": "ShAccount", "newName": "ShLedger"}),
    )
    .await;
    let d = &preview["structuredContent"];
    assert_eq!(d["changes"].as_array().unwrap().len(), 2, "{preview}");
    assert_eq!(
        d["definitions"][1]["new"]
            .as_str()
            .unwrap()
            .split(' ')
            .next(),
        Some("ShLedger"),
        "{preview}"
    );
    assert_eq!(
        eval(&mut a, "UserGlobals includesKey: #ShAccount").await,
        "false"
    );
    assert_eq!(
        eval(&mut a, "ShSavings superclass == ShLedger").await,
        "true"
    );
    assert_eq!(eval(&mut a, "ShLedger name == #ShLedger").await, "true");
    let r = ok(
        &mut a,
        "get_method_source",
        json!({"className": "ShLedger", "selector": "opened", "meta": true}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["source"],
        "opened\n\t\"a new ShAccount\"\n\t^ ShLedger new"
    );
    assert_eq!(
        source(&mut a, "ShAccountTest", "testOpened").await,
        "testOpened\n\tself assert: ShLedger opened balance = 0.\n\tself assert: #ShAccount size = 9"
    );
    assert_eq!(eval(&mut a, "ShLedger rate").await, "7");
    test_passes(&mut a).await;
    test_method_passes(&mut a, "ShAccountTest", "testOpened").await;
}
