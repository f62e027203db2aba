//! The parser's tests: doits and methods parse to the expected shapes, syntax
//! errors carry an offset, limits are errors, and no input makes it panic.

use super::*;

fn lit(l: &Lit) -> String {
    match l {
        Lit::Nil => "nil".into(),
        Lit::True => "true".into(),
        Lit::False => "false".into(),
        Lit::Int(i) => i.to_string(),
        Lit::Float(f) => format!("{f:?}f"),
        Lit::Scaled(n, d, s) => format!("{n}/{d}s{s}"),
        Lit::Char(c) => format!("${c}"),
        Lit::Str(s) => format!("'{s}'"),
        Lit::Sym(s) => format!("#{s}"),
        Lit::Array(items) => {
            format!("#({})", items.iter().map(lit).collect::<Vec<_>>().join(" "))
        }
        Lit::Bytes(b) => format!(
            "#[{}]",
            b.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

fn shape(e: &Expr) -> String {
    match e {
        Expr::Lit(l, _) => lit(l),
        Expr::Var(n, _) => n.clone(),
        Expr::Assign(n, _, v) => format!("{n}:={}", shape(v)),
        Expr::Send(s) => {
            let args: Vec<String> = s.msg.args.iter().map(shape).collect();
            if args.is_empty() {
                format!("({} {})", shape(&s.recv), s.msg.selector)
            } else {
                format!("({} {} {})", shape(&s.recv), s.msg.selector, args.join(" "))
            }
        }
        Expr::Cascade(r, msgs, _) => {
            let one = |m: &Msg| {
                format!(
                    "{}{}",
                    m.selector,
                    m.args
                        .iter()
                        .map(|a| format!(" {}", shape(a)))
                        .collect::<String>()
                )
            };
            let parts: Vec<String> = msgs
                .iter()
                .map(|c| {
                    let mut t = one(&c.msg);
                    for m in &c.chain {
                        t = format!("{t} > {}", one(m));
                    }
                    t
                })
                .collect();
            format!("({}; {})", shape(r), parts.join("; "))
        }
        Expr::Block(b) => {
            let args: String = b.args.iter().map(|(a, _)| format!(":{a} ")).collect();
            let temps: String = if b.temps.is_empty() {
                String::new()
            } else {
                format!(
                    "|{}| ",
                    b.temps
                        .iter()
                        .map(|(t, _)| t.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            };
            format!("[{args}{temps}{}]", stmts(&b.body))
        }
        Expr::Brace(items, _) => format!(
            "{{{}}}",
            items.iter().map(shape).collect::<Vec<_>>().join(". ")
        ),
    }
}

fn stmts(body: &[Stmt]) -> String {
    body.iter()
        .map(|s| match s {
            Stmt::Expr(e) => shape(e),
            Stmt::Return(e, _) => format!("^{}", shape(e)),
        })
        .collect::<Vec<_>>()
        .join(". ")
}

#[test]
fn doits_parse_to_the_expected_shape() {
    let table: &[(&str, &str)] = &[
        ("3 + 4", "(3 + 4)"),
        ("3 + 4 * 5", "((3 + 4) * 5)"),
        ("a foo bar", "((a foo) bar)"),
        ("a at: 1 put: b + 2", "(a at:put: 1 (b + 2))"),
        ("a foo: b bar baz: c + 1", "(a foo:baz: (b bar) (c + 1))"),
        ("x := y := 3", "x:=y:=3"),
        ("^ self", "^self"),
        ("a foo; bar: 1; + 2", "(a; foo; bar: 1; + 2)"),
        ("(a foo) bar; baz", "((a foo); bar; baz)"),
        ("x foo; bar baz", "(x; foo; bar > baz)"),
        (
            "OrderedCollection new add: 3; yourself size",
            "((OrderedCollection new); add: 3; yourself > size)",
        ),
        ("x foo; bar + 2 * y; baz: 1", "(x; foo; bar > + 2 > * y; baz: 1)"),
        ("x foo; a b - c d e: f g", "(x; foo; a > b > - (c d) > e: (f g))"),
        ("x foo; + 1 max: 2", "(x; foo; + 1 > max: 2)"),
        ("[:x :y | | t | t := x. y]", "[:x :y |t| t:=x. y]"),
        ("[]", "[]"),
        ("[:x | ]", "[:x ]"),
        ("[:x || t | t]", "[:x |t| t]"),
        ("{1. 2 + 3. a}", "{1. (2 + 3). a}"),
        ("{}", "{}"),
        ("#(1 2 #(3) (4 5) foo bar: baz:quux: + #- nil true false $a 'str' #sym #'with space')", "#(1 2 #(3) #(4 5) #foo #bar: #baz:quux: #+ #- nil true false $a 'str' #sym #with space)"),
        ("#(foo:bar: 1)", "#(#foo:bar: 1)"),
        ("#(-1 -2.5 - 3)", "#(-1 -2.5f #- 3)"),
        ("#[1 2 255]", "#[1 2 255]"),
        ("#[]", "#[]"),
        ("$a", "$a"),
        ("$ ", "$ "),
        ("$'", "$'"),
        ("'it''s'", "'it's'"),
        ("''", "''"),
        ("#foo", "#foo"),
        ("#foo:bar:", "#foo:bar:"),
        ("#+", "#+"),
        ("#'with space'", "#with space"),
        ("##foo", "#foo"),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("16rFF", "255"),
        ("16r-FF", "-255"),
        ("-16rFF", "-255"),
        ("2r1010", "10"),
        ("36rZZ", "1295"),
        ("1.5e10", "15000000000.0f"),
        ("2.0d0", "2.0f"),
        ("1.0e-5", "1e-5f"),
        ("1e3", "1000"),
        ("1.5s2", "15/10s2"),
        ("3s", "3/1s0"),
        ("1.25s", "125/100s2"),
        ("-3", "-3"),
        ("3 - -4", "(3 - -4)"),
        ("3-4", "(3 - 4)"),
        ("x-1", "(x - 1)"),
        ("a \\\\ b", "(a \\\\ b)"),
        ("a -> b", "(a -> b)"),
        ("a ~= b", "(a ~= b)"),
        ("a ~~ b", "(a ~~ b)"),
        ("a ==> b", "(a ==> b)"),
        ("a <= b", "(a <= b)"),
        ("a >= b", "(a >= b)"),
        ("a , b", "(a , b)"),
        ("\"comment\" a \"x\" foo", "(a foo)"),
        ("| a b | a := 1. b", "a:=1. b"),
        ("a foo. b bar.", "(a foo). (b bar)"),
        ("nil isNil", "(nil isNil)"),
    ];
    let mut bad = vec![];
    for (src, want) in table {
        match parse_doit(src) {
            Ok(m) => {
                let got = stmts(&m.body);
                if got != *want {
                    bad.push(format!("{src}: want {want}, got {got}"));
                }
            }
            Err(e) => bad.push(format!("{src}: want {want}, got error {e:?}")),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn methods_parse_patterns_temps_and_primitives() {
    let m = parse_method("at: i put: v\n  <primitive: 6>\n  | t |\n  ^ v").unwrap();
    assert_eq!(m.selector, "at:put:");
    assert_eq!(
        m.args.iter().map(|a| a.0.as_str()).collect::<Vec<_>>(),
        ["i", "v"]
    );
    assert_eq!(m.primitive.map(|p| p.0), Some(6));
    assert_eq!(m.temps.len(), 1);
    let m = parse_method("+ other ^ 1").unwrap();
    assert_eq!((m.selector.as_str(), m.args.len()), ("+", 1));
    let m = parse_method("foo | a | <primitive: 12> ^ a").unwrap();
    assert_eq!(m.primitive.map(|p| p.0), Some(12));
    let m = parse_method("\\\\ n ^ 0").unwrap();
    assert_eq!(m.selector, "\\\\");
    let m = parse_method("bar <protected> ^ 1").unwrap();
    assert_eq!(m.primitive, None);
}

#[test]
fn syntax_errors_carry_offset_and_message() {
    let table: &[(&str, usize, &str)] = &[
        ("3 +", 3, "expected an expression"),
        ("(3 + 4", 6, "closing parenthesis"),
        ("[:x x]", 4, "expected | after the block arguments"),
        ("'abc", 0, "unterminated string"),
        ("\"abc", 0, "unterminated comment"),
        ("#(1 2", 5, "unterminated literal array"),
        ("#[1 256]", 4, "between 0 and 255"),
        ("#[1 a]", 4, "byte array element"),
        ("3 ]", 2, "unmatched closing bracket"),
        ("a foo; 3", 7, "expected a message in the cascade"),
        ("3; foo", 1, "cascade must follow a message send"),
        ("$", 0, "expected a character after $"),
        ("1 + ^ 2", 4, "expected an expression"),
        ("37r1", 0, "radix must be between 2 and 36"),
        ("x := ", 5, "expected an expression"),
        ("a ) b", 2, "unmatched closing bracket"),
        ("{1. 2", 5, "expected a period or }"),
        ("3 4", 2, "expected a period"),
    ];
    let mut bad = vec![];
    for (src, off, msg) in table {
        match parse_doit(src) {
            Err(e) if e.offset == *off && e.message.contains(msg) => {}
            other => bad.push(format!(
                "{src}: want error at {off} containing {msg:?}, got {other:?}"
            )),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let e = parse_method("foo: ").unwrap_err();
    assert!(e.message.contains("argument name"));
    let e = parse_method("foo <primitive: x> ^ 1").unwrap_err();
    assert!(e.message.contains("primitive number"));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let src = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    let e = parse_doit(&src).unwrap_err();
    assert!(e.message.contains("nested too deeply"));
    let src = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse_doit(&src).is_err());
    let src = format!("#{}{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(parse_doit(&src).is_err());
}

/// Chains and nests of sends deep enough to overflow the compiler's or the
/// interpreter's stack are compile errors; statements in sequence, and
/// the statements of a block or brace, do not add up.
#[test]
fn chains_of_sends_too_deep_to_walk_are_an_error() {
    // the engine thread's stack, which the deepest accepted tree needs
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(chains_of_sends)
        .unwrap()
        .join()
        .unwrap();
}

/// More arguments and temporaries than the compiler can number is a
/// syntax error, wherever they are declared.
#[test]
fn too_many_variables_is_an_error() {
    let names = |n: usize, prefix: &str| {
        (0..n)
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let n = MAX_VARIABLES;
    let refused = [
        format!("| {} | 1", names(n + 1, "t")),
        format!(
            "| {} | [:x | | {} | x]",
            names(n / 2, "t"),
            names(n / 2, "u")
        ),
        format!("[{}] value", names(n + 1, ":a")),
    ];
    for src in &refused {
        let e = parse_doit(src).unwrap_err();
        assert!(e.message.contains("too many variables"), "{}", e.message);
    }
    let pattern: String = (0..=n).map(|i| format!("k{i}: a{i} ")).collect();
    let e = parse_method(&format!("{pattern}^ 1")).unwrap_err();
    assert!(e.message.contains("too many variables"), "{}", e.message);
    assert!(parse_doit(&format!("| {} | 1", names(n, "t"))).is_ok());
}

fn chains_of_sends() {
    let n = MAX_NESTED_SENDS;
    let refused = [
        format!("1{}", "+1".repeat(n + 1)),
        format!("3{}", " yourself".repeat(n + 1)),
        format!("1 max: 1{}", "+1".repeat(n)),
        // nested parentheses, each holding half of the budget
        format!("(1{}){}", "+1".repeat(n / 2 + 1), "+1".repeat(n / 2)),
        format!("[1{}] value{}", "+1".repeat(n / 2 + 1), "+1".repeat(n / 2)),
    ];
    for src in &refused {
        let e = parse_doit(src).unwrap_err();
        assert!(e.message.contains("statement too large"), "{}", e.message);
    }
    let accepted = [
        format!("1{}", "+1".repeat(n - 1)),
        "x foo. ".repeat(n + 10),
        format!("x foo{}", "; bar".repeat(n + 10)),
        format!("[{}] value", "x foo. ".repeat(n + 10)),
        format!("{{{}}}", "x foo. ".repeat(n + 10)),
    ];
    for src in &accepted {
        assert!(parse_doit(src).is_ok(), "{}", &src[..40]);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]
    #[test]
    fn parser_never_panics_on_arbitrary_text(s in "\\PC{0,80}") {
        let _ = parse_doit(&s);
        let _ = parse_method(&s);
    }

    #[test]
    fn parser_never_panics_on_smalltalk_like_text(s in "[a-z0-9:#$'\"()\\[\\]{}^.;|<>=+\\-*/\\\\ \n]{0,60}") {
        let _ = parse_doit(&s);
        let _ = parse_method(&s);
    }
}
