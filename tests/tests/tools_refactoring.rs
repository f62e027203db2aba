//! End-to-end: `rename_method`. A preview writes nothing and answers diffs
//! and a token; applying the token renames the implementors, rewrites the
//! senders (a `super` send included) and leaves the tests green; a symbol
//! naming the selector is reported, not rewritten; a rename touching kernel
//! methods is refused whole; a stale token (another session committed, this
//! one refreshed) is refused; clashes, arity changes and a missing token are
//! refused before anything is read or written. `generate_accessors` previews
//! and writes the missing getters and setters, keeping the ones there are.
//! `push_up_methods` / `push_down_methods` move methods a class up or down,
//! refusing what would change their meaning; `move_method` moves one to an
//! unrelated class.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use util::mcp::{Http, Session};
use util::{eval, fails, ok, preview_and_apply, source, test_method_passes};

const CLASSES: &str = "Object subclass: 'RfAccount' instVarNames: #(balance) classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. \
    (UserGlobals at: #RfAccount) subclass: 'RfSavings' instVarNames: #() classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. \
    TestCase subclass: 'RfAccountTest' instVarNames: #() classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true";

const METHODS: [(&str, &str); 6] = [
    ("RfAccount", "balance\n\t^ balance ifNil: [0]"),
    (
        "RfAccount",
        "deposit: amount\n\t\"adds amount\"\n\tbalance := self balance + amount",
    ),
    ("RfAccount", "depositAll: amounts\n\tamounts do: [:each | self deposit: each]"),
    (
        "RfSavings",
        "deposit: amount\n\tsuper deposit: amount + (amount // 100)",
    ),
    (
        "RfAccountTest",
        "testDeposit\n\t| a |\n\ta := RfSavings new.\n\ta deposit: 100; deposit: 100.\n\tself assert: a balance = 202",
    ),
    (
        "RfAccountTest",
        "testPerform\n\tself assert: (RfAccount new perform: #deposit: with: 5; balance) = 5",
    ),
];

async fn setup(s: &mut Session) {
    assert_eq!(eval(s, CLASSES).await, "true");
    for (class, source) in METHODS {
        ok(
            s,
            "compile_method",
            json!({"className": class, "source": source, "category": "rf"}),
        )
        .await;
    }
}

fn change<'a>(preview: &'a Value, class: &str, selector: &str) -> &'a Value {
    preview["structuredContent"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["className"] == class && c["selector"] == selector)
        .unwrap_or_else(|| panic!("no change for {class}>>{selector}: {preview}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_previewed_rename_applies_exactly_and_keeps_tests_green() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    let args = json!({"selector": "deposit:", "newSelector": "credit:"});

    let preview = ok(&mut a, "rename_method", args.clone()).await;
    let d = &preview["structuredContent"];
    assert_eq!(d["dryRun"], true, "{preview}");
    assert_eq!(d["changes"].as_array().unwrap().len(), 4, "{preview}");
    assert_eq!(change(&preview, "RfAccount", "deposit:")["kind"], "rename");
    assert_eq!(
        change(&preview, "RfSavings", "deposit:")["kind"],
        "renameAndRewrite"
    );
    assert_eq!(
        change(&preview, "RfAccount", "depositAll:")["kind"],
        "rewrite"
    );
    let test = change(&preview, "RfAccountTest", "testDeposit");
    assert_eq!(test["sends"], 2, "{test}");
    assert!(
        test["diff"]
            .as_str()
            .unwrap()
            .contains("+\ta credit: 100; credit: 100."),
        "{test}"
    );
    let mentions = d["notRewritten"].to_string();
    assert!(mentions.contains("testPerform"), "{preview}");
    // nothing written yet
    assert_eq!(
        eval(&mut a, "RfAccount includesSelector: #credit:").await,
        "false"
    );

    // applying without the token, or with another one, writes nothing
    let e = fails(
        &mut a,
        "rename_method",
        json!({"selector": "deposit:", "newSelector": "credit:", "dryRun": false}),
    )
    .await;
    assert_eq!(e["kind"], "invalidParams", "{e}");
    let e = fails(
        &mut a,
        "rename_method",
        json!({"selector": "deposit:", "newSelector": "credit:", "dryRun": false,
               "token": "rename_method.0000000000000000"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");

    let token = d["token"].as_str().unwrap();
    let applied = ok(
        &mut a,
        "rename_method",
        json!({"selector": "deposit:", "newSelector": "credit:", "dryRun": false, "token": token}),
    )
    .await;
    assert_eq!(applied["structuredContent"]["applied"], true, "{applied}");
    assert_eq!(
        applied["structuredContent"]["committed"], false,
        "{applied}"
    );
    assert_eq!(
        source(&mut a, "RfAccount", "credit:").await,
        "credit: amount\n\t\"adds amount\"\n\tbalance := self balance + amount"
    );
    assert_eq!(
        source(&mut a, "RfSavings", "credit:").await,
        "credit: amount\n\tsuper credit: amount + (amount // 100)"
    );
    assert_eq!(
        eval(&mut a, "RfAccount includesSelector: #deposit:").await,
        "false"
    );
    assert_eq!(
        eval(&mut a, "RfSavings includesSelector: #deposit:").await,
        "false"
    );
    assert!(source(&mut a, "RfAccount", "depositAll:")
        .await
        .contains("self credit: each"));
    test_method_passes(&mut a, "RfAccountTest", "testDeposit").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_changes_clashes_and_arity_are_refused_whole() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;

    // printString is implemented and sent all over the kernel
    let e = fails(
        &mut a,
        "rename_method",
        json!({"selector": "printString", "newSelector": "printText"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("kernel classes"), "{message}");
    assert!(message.contains("allowKernelEdits"), "{message}");
    assert!(e["kernelMethods"].as_array().unwrap().len() > 1, "{e}");
    assert_eq!(
        eval(&mut a, "Object includesSelector: #printText").await,
        "false"
    );
    // narrowed to one of our classes it is fine (nothing of the kernel changes)
    let r = ok(
        &mut a,
        "rename_method",
        json!({"selector": "depositAll:", "newSelector": "creditAll:", "scope": "class",
               "className": "RfAccount"}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["changes"].as_array().unwrap().len(),
        1,
        "{r}"
    );

    // a clash: RfAccount already has balance, so deposit: cannot become it
    ok(
        &mut a,
        "compile_method",
        json!({"className": "RfAccount", "source": "total\n\t^ self balance", "category": "rf"}),
    )
    .await;
    let e = fails(
        &mut a,
        "rename_method",
        json!({"selector": "balance", "newSelector": "total"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(e["message"].as_str().unwrap().contains("RfAccount"), "{e}");
    // (selector, newSelector, kind)
    let table = [
        ("balance", "balance:", "refused"),
        ("deposit:", "+", "refused"),
        ("deposit:", "deposit:", "invalidParams"),
        ("deposit:", "not a selector", "invalidParams"),
        ("noSuchSelectorAnywhere", "other", "notFound"),
    ];
    for (selector, new_selector, kind) in table {
        let e = fails(
            &mut a,
            "rename_method",
            json!({"selector": selector, "newSelector": new_selector}),
        )
        .await;
        assert_eq!(e["kind"], kind, "{selector} -> {new_selector}: {e}");
    }
    let e = fails(
        &mut a,
        "rename_method",
        json!({"selector": "balance", "newSelector": "amount", "scope": "hierarchy"}),
    )
    .await;
    assert_eq!(e["kind"], "invalidParams", "{e}");
    assert_eq!(
        eval(&mut a, "RfAccount includesSelector: #balance").await,
        "true"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_goes_stale_when_another_session_changes_an_affected_method() {
    let repo = gsmcp_tests::harness::scratch_path("refactoring-stale.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;
    setup(&mut a).await;
    ok(&mut a, "commit", json!({})).await;

    let args = json!({"selector": "balance", "newSelector": "amount", "scope": "dictionary",
                      "dictionaryName": "UserGlobals"});
    let preview = ok(&mut a, "rename_method", args.clone()).await;
    let token = preview["structuredContent"]["token"]
        .as_str()
        .unwrap()
        .to_string();

    // b changes a sender of balance and commits; a's view moves
    ok(&mut b, "refresh", json!({})).await;
    source(&mut b, "RfAccount", "deposit:").await;
    ok(
        &mut b,
        "compile_method",
        json!({"className": "RfAccount", "category": "rf",
               "source": "deposit: amount\n\tbalance := self balance + amount abs"}),
    )
    .await;
    ok(&mut b, "commit", json!({})).await;
    ok(&mut a, "refresh", json!({})).await;

    let mut apply = args.clone();
    apply["dryRun"] = json!(false);
    apply["token"] = json!(token);
    let e = fails(&mut a, "rename_method", apply.clone()).await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("Preview again"),
        "{e}"
    );
    assert_eq!(
        eval(&mut a, "RfAccount includesSelector: #amount").await,
        "false"
    );

    // a fresh preview sees b's change, and its token applies
    let preview = ok(&mut a, "rename_method", args.clone()).await;
    let diff = change(&preview, "RfAccount", "deposit:")["diff"].to_string();
    assert!(diff.contains("amount abs"), "{diff}");
    apply["token"] = preview["structuredContent"]["token"].clone();
    ok(&mut a, "rename_method", apply).await;
    assert_eq!(eval(&mut a, "RfAccount new amount").await, "0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accessors_are_previewed_then_written_keeping_the_ones_there_are() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    assert_eq!(
        eval(
            &mut a,
            "Object subclass: 'RfPoint' instVarNames: #(x y anObject) classVars: #() \
             classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true"
        )
        .await,
        "true"
    );
    ok(
        &mut a,
        "compile_method",
        json!({"className": "RfPoint", "source": "x\n\t^ x ifNil: [0]", "category": "mine"}),
    )
    .await;
    let preview = ok(
        &mut a,
        "generate_accessors",
        json!({"className": "RfPoint"}),
    )
    .await;
    let d = &preview["structuredContent"];
    assert_eq!(d["kept"], json!(["x"]), "{preview}");
    let added: Vec<&str> = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["selector"].as_str().unwrap())
        .collect();
    assert_eq!(
        added,
        ["x:", "y", "y:", "anObject", "anObject:"],
        "{preview}"
    );
    assert!(d["changes"][4]["diff"]
        .as_str()
        .unwrap()
        .contains("+anObject: aValue"));
    assert_eq!(eval(&mut a, "RfPoint includesSelector: #y").await, "false");

    let token = d["token"].clone();
    let r = ok(
        &mut a,
        "generate_accessors",
        json!({"className": "RfPoint", "dryRun": false, "token": token}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["written"].as_array().unwrap().len(),
        5,
        "{r}"
    );
    assert_eq!(
        eval(&mut a, "(RfPoint new y: 3; anObject: 4; yourself) y").await,
        "3"
    );
    assert_eq!(eval(&mut a, "RfPoint new x").await, "0", "x was kept");
    let m = ok(
        &mut a,
        "get_method_source",
        json!({"className": "RfPoint", "selector": "y:"}),
    )
    .await;
    assert_eq!(m["structuredContent"]["category"], "accessing", "{m}");

    // the same token again names a change set that is gone
    let e = fails(
        &mut a,
        "generate_accessors",
        json!({"className": "RfPoint", "dryRun": false, "token": token}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    let e = fails(
        &mut a,
        "generate_accessors",
        json!({"className": "RfPoint", "instVarNames": ["z"]}),
    )
    .await;
    assert_eq!(e["kind"], "invalidParams", "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn methods_move_up_and_down_the_hierarchy() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let define = |name: &str, superclass: &str, vars: &str| {
        format!(
            "(UserGlobals at: #{superclass} ifAbsent: [{superclass}]) subclass: '{name}' \
             instVarNames: #({vars}) classVars: #() classInstVars: #() poolDictionaries: #() \
             inDictionary: UserGlobals. true"
        )
    };
    for (name, superclass, vars) in [
        ("RfShape", "Object", "name"),
        ("RfCircle", "RfShape", "r"),
        ("RfSquare", "RfShape", "side"),
    ] {
        assert_eq!(eval(&mut a, &define(name, superclass, vars)).await, "true");
    }
    for (class, source) in [
        ("RfCircle", "describe\n\t^ 'shape ' , name printString"),
        ("RfCircle", "area\n\t^ r * r"),
        ("RfCircle", "whoAmI\n\t^ super printString"),
        ("RfShape", "kind\n\t^ #shape"),
        ("RfSquare", "kind\n\t^ #square"),
    ] {
        ok(
            &mut a,
            "compile_method",
            json!({"className": class, "source": source, "category": "rf"}),
        )
        .await;
    }

    // up: describe uses only what RfShape has
    let args = json!({"className": "RfCircle", "selectors": ["describe"]});
    let preview = ok(&mut a, "push_up_methods", args.clone()).await;
    let kinds: Vec<(&str, &str)> = preview["structuredContent"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["className"].as_str().unwrap(),
                c["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [("RfShape", "add"), ("RfCircle", "remove")],
        "{preview}"
    );
    let mut apply = args.clone();
    apply["dryRun"] = json!(false);
    apply["token"] = preview["structuredContent"]["token"].clone();
    ok(&mut a, "push_up_methods", apply).await;
    assert_eq!(eval(&mut a, "RfSquare new describe").await, "'shape nil'");
    assert_eq!(
        eval(&mut a, "RfCircle includesSelector: #describe").await,
        "false"
    );

    // refused whole: an instance variable RfShape lacks, a super send, a clash
    // (selectors, why)
    for (selectors, why) in [
        (json!(["area"]), "instance variable"),
        (json!(["whoAmI"]), "super"),
        (json!(["noSuchMethod"]), "no method"),
    ] {
        let e = fails(
            &mut a,
            "push_up_methods",
            json!({"className": "RfCircle", "selectors": selectors}),
        )
        .await;
        assert!(
            e["message"].as_str().unwrap().contains(why),
            "{selectors}: {e}"
        );
    }
    let e = fails(
        &mut a,
        "push_up_methods",
        json!({"className": "RfSquare", "selectors": ["kind"]}),
    )
    .await;
    assert!(
        e["message"].as_str().unwrap().contains("already defines"),
        "{e}"
    );

    // down: RfSquare keeps its own kind, RfCircle gets RfShape's
    let args = json!({"className": "RfShape", "selectors": ["kind"]});
    let preview = ok(&mut a, "push_down_methods", args.clone()).await;
    assert_eq!(
        preview["structuredContent"]["kept"],
        json!(["RfSquare>>kind"]),
        "{preview}"
    );
    let mut apply = args.clone();
    apply["dryRun"] = json!(false);
    apply["token"] = preview["structuredContent"]["token"].clone();
    ok(&mut a, "push_down_methods", apply).await;
    assert_eq!(eval(&mut a, "RfCircle new kind").await, "#shape");
    assert_eq!(eval(&mut a, "RfSquare new kind").await, "#square");
    assert_eq!(
        eval(&mut a, "RfShape includesSelector: #kind").await,
        "false"
    );

    // a kernel class's methods stay where they are
    let e = fails(
        &mut a,
        "push_down_methods",
        json!({"className": "Object", "selectors": ["printString"]}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_method_moves_to_another_class() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    assert_eq!(
        eval(
            &mut a,
            "Object subclass: 'MvSource' instVarNames: #(r) classVars: #() classInstVars: #() \
             poolDictionaries: #() inDictionary: UserGlobals. \
             Object subclass: 'MvTarget' instVarNames: #() classVars: #() classInstVars: #() \
             poolDictionaries: #() inDictionary: UserGlobals. true"
        )
        .await,
        "true"
    );
    for (class, source) in [
        ("MvSource", "greeting\n\t^ 'hi ' , self class name"),
        ("MvSource", "area\n\t^ r * r"),
        ("MvSource", "label\n\t^ 'source'"),
        ("MvTarget", "label\n\t^ 'target'"),
    ] {
        ok(
            &mut a,
            "compile_method",
            json!({"className": class, "source": source, "category": "mv"}),
        )
        .await;
    }
    // (selector, target, kind, words)
    for (selector, target, kind, words) in [
        ("area", "MvTarget", "refused", "instance variable"),
        ("label", "MvTarget", "refused", "already defines"),
        (
            "greeting",
            "MvNowhere",
            "notFound",
            "no class named 'MvNowhere'",
        ),
        ("greeting", "MvSource", "invalidParams", "the class itself"),
    ] {
        let e = fails(
            &mut a,
            "move_method",
            json!({"className": "MvSource", "selector": selector, "targetClassName": target}),
        )
        .await;
        assert_eq!(e["kind"], kind, "{selector} {target}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(words),
            "{selector} {target}: {e}"
        );
    }
    let args =
        json!({"className": "MvSource", "selector": "greeting", "targetClassName": "MvTarget"});
    let preview = ok(&mut a, "move_method", args.clone()).await;
    assert!(
        preview["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("are not rewritten"),
        "{preview}"
    );
    let mut apply = args;
    apply["dryRun"] = json!(false);
    apply["token"] = preview["structuredContent"]["token"].clone();
    ok(&mut a, "move_method", apply).await;
    assert_eq!(eval(&mut a, "MvTarget new greeting").await, "'hi MvTarget'");
    assert_eq!(
        eval(&mut a, "MvSource includesSelector: #greeting").await,
        "false"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signature_change_adds_reorders_and_drops_arguments() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    // deposit: amount → deposit: amount memo: memo, senders pass ''
    let (preview, _) = preview_and_apply(
        &mut a,
        "change_method_signature",
        json!({"selector": "deposit:", "newSelector": "deposit:memo:",
               "defaults": ["''"], "argumentNames": ["memo"]}),
    )
    .await;
    assert_eq!(
        change(&preview, "RfSavings", "deposit:")["kind"],
        "renameAndRewrite"
    );
    assert_eq!(
        source(&mut a, "RfSavings", "deposit:memo:").await,
        "deposit: amount memo: memo\n\tsuper deposit: amount + (amount // 100) memo: ''"
    );
    assert!(source(&mut a, "RfAccountTest", "testDeposit")
        .await
        .contains("a deposit: 100 memo: ''; deposit: 100 memo: ''."));
    test_deposit_passes(&mut a).await;

    // swapped
    preview_and_apply(
        &mut a,
        "change_method_signature",
        json!({"selector": "deposit:memo:", "newSelector": "memo:deposit:",
               "permutation": [2, 1]}),
    )
    .await;
    assert_eq!(
        source(&mut a, "RfAccount", "memo:deposit:").await,
        "memo: memo deposit: amount\n\t\"adds amount\"\n\tbalance := self balance + amount"
    );
    assert!(source(&mut a, "RfAccountTest", "testDeposit")
        .await
        .contains("a memo: '' deposit: 100; memo: '' deposit: 100."));
    test_deposit_passes(&mut a).await;

    // (args, words): what the change would lose or hide is refused
    for (args, words) in [
        (
            json!({"selector": "memo:deposit:", "newSelector": "memo:"}),
            "uses the argument amount",
        ),
        (
            json!({"selector": "memo:deposit:", "newSelector": "memo:deposit:at:",
                   "argumentNames": ["balance"], "defaults": ["1"]}),
            "already uses or declares balance",
        ),
        (
            json!({"selector": "memo:deposit:", "newSelector": "x:y:", "permutation": [1, 1]}),
            "twice",
        ),
        (
            json!({"selector": "memo:deposit:", "newSelector": "x:y:z:", "defaults": ["1 +"]}),
            "not one Smalltalk expression",
        ),
        (json!({"selector": "+", "newSelector": "plus:"}), "binary"),
    ] {
        let e = fails(&mut a, "change_method_signature", args.clone()).await;
        assert!(
            e["message"].as_str().unwrap().contains(words),
            "{args}: {e}"
        );
    }
}

async fn test_deposit_passes(s: &mut Session) {
    test_method_passes(s, "RfAccountTest", "testDeposit").await;
}
