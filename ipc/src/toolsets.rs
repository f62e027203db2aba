//! The toolsets a deployment may serve and the options each declares: the one
//! table the router validates `MCP_TOOLSETS` / `MCP_TOOLSET_OPTIONS` against
//! at start-up and the worker reads its settings from.
//!
//! It lives here because it is part of the contract between the two processes:
//! the router refuses a bad option before it binds its port (it never runs
//! Smalltalk and cannot ask a worker), and the worker receives the validated
//! `Toolset.option=value` pairs in [`crate::Hello::options`] and resolves them
//! against the same declarations, so the two can never disagree on a name, a
//! type, a range or a default. Nothing here knows what an option *does*; the
//! worker's toolset modules give them their meaning.

use std::collections::BTreeMap;
use std::fmt;

/// What values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionType {
    /// A whole number in `min..=max`.
    Count {
        /// The least value.
        min: u64,
        /// The greatest value.
        max: u64,
    },
    /// A whole number in `min..=max`, or `none` for no limit.
    CountOrNone {
        /// The least value.
        min: u64,
        /// The greatest value.
        max: u64,
    },
    /// `true`/`false` (also `on`/`off`, `yes`/`no`, `1`/`0`).
    Flag,
}

/// One option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionValue {
    /// A number.
    Count(u64),
    /// `none`: no limit.
    Unlimited,
    /// On or off.
    Flag(bool),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Count(n) => write!(f, "{n}"),
            OptionValue::Unlimited => f.write_str("none"),
            OptionValue::Flag(b) => write!(f, "{b}"),
        }
    }
}

/// An option a toolset accepts.
#[derive(Debug, Clone, Copy)]
pub struct OptionDecl {
    /// The option's name within its toolset (`defaultLimit`).
    pub name: &'static str,
    /// What values it takes.
    pub ty: OptionType,
    /// Its value when the deployment sets none.
    pub default: OptionValue,
    /// What it does, in a sentence.
    pub description: &'static str,
}

impl OptionDecl {
    /// Parses `text` as a value of this option, or says what it should be.
    pub fn parse(&self, text: &str) -> Result<OptionValue, String> {
        let t = text.trim();
        let count = |min: u64, max: u64| -> Result<OptionValue, String> {
            match t.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(OptionValue::Count(n)),
                _ => Err(format!("{t:?} is not {}", self.expects())),
            }
        };
        match self.ty {
            OptionType::Count { min, max } => count(min, max),
            OptionType::CountOrNone { min, max } => {
                if t.eq_ignore_ascii_case("none") {
                    Ok(OptionValue::Unlimited)
                } else {
                    count(min, max)
                }
            }
            OptionType::Flag => match t.to_ascii_lowercase().as_str() {
                "true" | "on" | "yes" | "1" => Ok(OptionValue::Flag(true)),
                "false" | "off" | "no" | "0" => Ok(OptionValue::Flag(false)),
                _ => Err(format!("{t:?} is not {}", self.expects())),
            },
        }
    }

    /// What the option takes, in words (`a number from 1 to 100000`).
    pub fn expects(&self) -> String {
        match self.ty {
            OptionType::Count { min, max } => format!("a number from {min} to {max}"),
            OptionType::CountOrNone { min, max } => {
                format!("a number from {min} to {max}, or `none`")
            }
            OptionType::Flag => "`true` or `false`".into(),
        }
    }
}

/// A built-in family of tools; a deployment serves a subset (`MCP_TOOLSETS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Toolset {
    /// Reading classes and methods.
    Browsing,
    /// `execute_code`.
    Execution,
    /// Listing classes, methods and dictionaries.
    Listing,
    /// Compiling and changing classes and methods.
    Mutation,
    /// Refactorings, previewed before they are applied.
    Refactoring,
    /// Implementors, senders, references and source search.
    Search,
    /// The transaction: status, commit, abort, refresh.
    Session,
    /// Running SUnit tests.
    Testing,
    /// The GemStone workflow prompts (no tools).
    Workflow,
    /// The fixtures of the official MCP conformance suite (opt-in).
    Conformance,
}

impl Toolset {
    /// Every toolset, in the order `tools/list` answers them.
    pub const ALL: [Toolset; 10] = [
        Toolset::Browsing,
        Toolset::Execution,
        Toolset::Listing,
        Toolset::Mutation,
        Toolset::Refactoring,
        Toolset::Search,
        Toolset::Session,
        Toolset::Testing,
        Toolset::Workflow,
        Toolset::Conformance,
    ];

    /// The toolset's name as `MCP_TOOLSETS` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Toolset::Browsing => "Browsing",
            Toolset::Execution => "Execution",
            Toolset::Listing => "Listing",
            Toolset::Mutation => "Mutation",
            Toolset::Refactoring => "Refactoring",
            Toolset::Search => "Search",
            Toolset::Session => "Session",
            Toolset::Testing => "Testing",
            Toolset::Workflow => "Workflow",
            Toolset::Conformance => "Conformance",
        }
    }

    /// Parses a toolset name, ignoring case.
    pub fn parse(name: &str) -> Option<Toolset> {
        Toolset::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// What this toolset declares.
    pub fn decl(self) -> &'static ToolsetDecl {
        // TOOLSETS lists every variant in ALL's order (pinned by a test).
        &TOOLSETS[self as usize]
    }
}

impl fmt::Display for Toolset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A toolset and the options it declares.
#[derive(Debug, Clone, Copy)]
pub struct ToolsetDecl {
    /// The toolset declared.
    pub toolset: Toolset,
    /// Served only when a deployment names it (never part of the default "all").
    pub opt_in: bool,
    /// Whether it has tools. A toolset of prompts only runs nothing and
    /// changes nothing, so no scope needs to grant it (`MCP_SCOPE_TOOLSETS`).
    pub has_tools: bool,
    /// The options it accepts.
    pub options: &'static [OptionDecl],
}

impl ToolsetDecl {
    /// The toolset's name.
    pub fn name(&self) -> &'static str {
        self.toolset.name()
    }

    /// The option `name` (ignoring case), if the toolset declares it.
    pub fn option(&self, name: &str) -> Option<&'static OptionDecl> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name.trim()))
    }

    /// `name (a number from 1 to 100000, default 200), ...` for messages.
    fn option_list(&self) -> String {
        self.options
            .iter()
            .map(|o| format!("{} ({}, default {})", o.name, o.expects(), o.default))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// How many items a list-shaped tool answers when a call names no `limit`.
pub const DEFAULT_LIMIT: u64 = 200;

const PAGE_LIMIT_MAX: u64 = 1_000_000;

const DEFAULT_LIMIT_OPTION: OptionDecl = OptionDecl {
    name: "defaultLimit",
    ty: OptionType::Count {
        min: 1,
        max: PAGE_LIMIT_MAX,
    },
    default: OptionValue::Count(DEFAULT_LIMIT),
    description: "How many items a list-shaped tool answers when the call names no limit.",
};

const MAX_LIMIT_OPTION: OptionDecl = OptionDecl {
    name: "maxLimit",
    ty: OptionType::CountOrNone {
        min: 1,
        max: PAGE_LIMIT_MAX,
    },
    default: OptionValue::Unlimited,
    description: "The largest limit a call may ask for; a larger one is refused as invalidParams.",
};

/// Every toolset this build has, in the order `tools/list` answers them.
pub const TOOLSETS: &[ToolsetDecl] = &[
    ToolsetDecl {
        toolset: Toolset::Browsing,
        opt_in: false,
        has_tools: true,
        options: &[],
    },
    ToolsetDecl {
        toolset: Toolset::Execution,
        opt_in: false,
        has_tools: true,
        options: &[OptionDecl {
            name: "maxResultChars",
            ty: OptionType::Count {
                min: 100,
                max: 10_000_000,
            },
            default: OptionValue::Count(50_000),
            description: "The most characters of a printString execute_code answers; the rest \
                          is dropped and the result says how much.",
        }],
    },
    ToolsetDecl {
        toolset: Toolset::Listing,
        opt_in: false,
        has_tools: true,
        options: &[DEFAULT_LIMIT_OPTION, MAX_LIMIT_OPTION],
    },
    ToolsetDecl {
        toolset: Toolset::Mutation,
        opt_in: false,
        has_tools: true,
        options: &[
            OptionDecl {
                name: "kernelGuard",
                ty: OptionType::Flag,
                default: OptionValue::Flag(true),
                description: "Refuse to change what a kernel class (a class bound in Globals \
                              under its own name) already has, unless a call passes \
                              allowKernelEdits; adding a method to one is allowed.",
            },
            OptionDecl {
                name: "blindWriteGuard",
                ty: OptionType::Flag,
                default: OptionValue::Flag(true),
                description: "Refuse to overwrite a method, class definition or comment this \
                              session has not read (or written) since its view last moved.",
            },
            OptionDecl {
                name: "formatOnCompile",
                ty: OptionType::Flag,
                default: OptionValue::Flag(true),
                description: "Lay out the source compile_method is given in the formatter's \
                              GemStone style before compiling it, unless a call passes \
                              format: false (source that does not parse is compiled as given).",
            },
        ],
    },
    ToolsetDecl {
        toolset: Toolset::Refactoring,
        opt_in: false,
        has_tools: true,
        options: &[],
    },
    ToolsetDecl {
        toolset: Toolset::Search,
        opt_in: false,
        has_tools: true,
        options: &[DEFAULT_LIMIT_OPTION, MAX_LIMIT_OPTION],
    },
    ToolsetDecl {
        toolset: Toolset::Session,
        opt_in: false,
        has_tools: true,
        options: &[],
    },
    ToolsetDecl {
        toolset: Toolset::Testing,
        opt_in: false,
        has_tools: true,
        options: &[
            DEFAULT_LIMIT_OPTION,
            MAX_LIMIT_OPTION,
            OptionDecl {
                name: "maxTestClasses",
                ty: OptionType::CountOrNone {
                    min: 1,
                    max: 1_000_000,
                },
                default: OptionValue::Count(100),
                description: "The most test classes one list_failing_tests call runs.",
            },
        ],
    },
    ToolsetDecl {
        toolset: Toolset::Workflow,
        opt_in: false,
        has_tools: false,
        options: &[],
    },
    ToolsetDecl {
        toolset: Toolset::Conformance,
        opt_in: true,
        has_tools: true,
        options: &[],
    },
];

/// The declaration of toolset `name` (ignoring case).
pub fn toolset(name: &str) -> Option<&'static ToolsetDecl> {
    Toolset::parse(name).map(Toolset::decl)
}

/// The names of the toolsets served by default (every one but the opt-in ones).
pub fn default_toolsets() -> impl Iterator<Item = &'static str> {
    TOOLSETS.iter().filter(|t| !t.opt_in).map(|t| t.name())
}

/// The names of the toolsets `keep` accepts, for messages.
fn names(keep: impl Fn(&ToolsetDecl) -> bool) -> String {
    TOOLSETS
        .iter()
        .filter(|t| keep(t))
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses `MCP_TOOLSETS` (names separated by commas or white space, any case)
/// into canonical names, each once, in the order given; or says what is wrong.
pub fn parse_toolsets(text: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let mut unknown = Vec::new();
    for name in text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        match Toolset::parse(name) {
            Some(t) if !out.iter().any(|o| o == t.name()) => out.push(t.name().to_string()),
            Some(_) => {}
            None => unknown.push(name.to_string()),
        }
    }
    if !unknown.is_empty() {
        return Err(format!(
            "MCP_TOOLSETS names unknown toolset(s) {}: choose from {} (or the opt-in {})",
            unknown.join(", "),
            names(|t| !t.opt_in),
            names(|t| t.opt_in)
        ));
    }
    if out.is_empty() {
        return Err(format!(
            "MCP_TOOLSETS is empty: name at least one of {}",
            names(|t| !t.opt_in)
        ));
    }
    Ok(out)
}

/// Parses `MCP_TOOLSET_OPTIONS` (`Toolset.option=value` items separated by
/// commas or white space) for a deployment serving `served` (canonical
/// toolset names). Answers the canonical pairs (`("Search.defaultLimit",
/// "100")`) to hand to workers, or every problem found, each naming the fix.
pub fn parse_options(text: &str, served: &[String]) -> Result<Vec<(String, String)>, Vec<String>> {
    let mut problems = Vec::new();
    let mut out: Vec<(String, String)> = Vec::new();
    let items = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty());
    for item in items {
        let Some((key, value)) = item.split_once('=') else {
            problems.push(format!(
                "MCP_TOOLSET_OPTIONS item {item:?} has no value: write Toolset.option=value, e.g. Search.defaultLimit=100"
            ));
            continue;
        };
        let Some((set_name, option_name)) = key.split_once('.') else {
            problems.push(format!(
                "MCP_TOOLSET_OPTIONS item {item:?} names no toolset: write Toolset.option=value, e.g. Execution.maxResultChars=20000"
            ));
            continue;
        };
        let Some(set) = toolset(set_name) else {
            problems.push(format!(
                "MCP_TOOLSET_OPTIONS item {item:?}: unknown toolset {set_name:?}; the toolsets are {}",
                names(|_| true)
            ));
            continue;
        };
        let Some(option) = set.option(option_name) else {
            problems.push(if set.options.is_empty() {
                format!(
                    "MCP_TOOLSET_OPTIONS item {item:?}: toolset {} declares no options",
                    set.name()
                )
            } else {
                format!(
                    "MCP_TOOLSET_OPTIONS item {item:?}: toolset {} has no option {option_name:?}; its options are {}",
                    set.name(),
                    set.option_list()
                )
            });
            continue;
        };
        if !served.iter().any(|s| s.eq_ignore_ascii_case(set.name())) {
            problems.push(format!(
                "MCP_TOOLSET_OPTIONS item {item:?} is for toolset {}, which this server does not serve: add {} to MCP_TOOLSETS or drop the option",
                set.name(), set.name()
            ));
            continue;
        }
        let value = match option.parse(value) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!(
                    "MCP_TOOLSET_OPTIONS {}.{}: {e}",
                    set.name(),
                    option.name
                ));
                continue;
            }
        };
        let canonical = format!("{}.{}", set.name(), option.name);
        if out.iter().any(|(k, _)| *k == canonical) {
            problems.push(format!(
                "MCP_TOOLSET_OPTIONS sets {canonical} more than once: keep one"
            ));
            continue;
        }
        out.push((canonical, value.to_string()));
    }
    if problems.is_empty() {
        if let Err(e) = Options::from_pairs(&out) {
            problems.push(format!("MCP_TOOLSET_OPTIONS: {e}"));
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// Why a set of option pairs cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OptionsError(pub String);

/// The resolved options of a deployment: every declared option has a value,
/// the configured one or its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    values: BTreeMap<(&'static str, &'static str), OptionValue>,
}

impl Default for Options {
    fn default() -> Options {
        let mut values = BTreeMap::new();
        for set in TOOLSETS {
            for o in set.options {
                values.insert((set.name(), o.name), o.default);
            }
        }
        Options { values }
    }
}

impl Options {
    /// Resolves canonical `Toolset.option=value` pairs (as [`parse_options`]
    /// answers them) over the defaults, checking each again and the options
    /// that depend on each other (a default limit above the maximum).
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Options, OptionsError> {
        let mut options = Options::default();
        for (key, value) in pairs {
            let (set_name, option_name) = key
                .split_once('.')
                .ok_or_else(|| OptionsError(format!("option {key:?} names no toolset")))?;
            let set = toolset(set_name)
                .ok_or_else(|| OptionsError(format!("option {key:?}: unknown toolset")))?;
            let option = set
                .option(option_name)
                .ok_or_else(|| OptionsError(format!("option {key:?}: unknown option")))?;
            let v = option
                .parse(value)
                .map_err(|e| OptionsError(format!("option {key}: {e}")))?;
            options.values.insert((set.name(), option.name), v);
        }
        for set in TOOLSETS {
            if let (Some(OptionValue::Count(default)), Some(OptionValue::Count(max))) = (
                options.values.get(&(set.name(), "defaultLimit")),
                options.values.get(&(set.name(), "maxLimit")),
            ) {
                if default > max {
                    return Err(OptionsError(format!(
                        "{0}.defaultLimit {default} is above {0}.maxLimit {max}: lower the default or raise the maximum",
                        set.name()
                    )));
                }
            }
        }
        Ok(options)
    }

    /// The value of `toolset.option`; `None` when no such option is declared.
    pub fn get(&self, toolset: &str, option: &str) -> Option<OptionValue> {
        self.values
            .iter()
            .find(|((t, o), _)| *t == toolset && *o == option)
            .map(|(_, v)| *v)
    }

    /// A count option: `Some(n)`, or `None` for `none` or an undeclared option.
    pub fn count(&self, toolset: &str, option: &str) -> Option<u64> {
        match self.get(toolset, option) {
            Some(OptionValue::Count(n)) => Some(n),
            _ => None,
        }
    }

    /// A flag option; an undeclared one is `default`.
    pub fn flag(&self, toolset: &str, option: &str, default: bool) -> bool {
        match self.get(toolset, option) {
            Some(OptionValue::Flag(b)) => b,
            _ => default,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<String> {
        default_toolsets().map(String::from).collect()
    }

    #[test]
    fn the_table_declares_every_toolset_once_in_order() {
        let declared: Vec<Toolset> = TOOLSETS.iter().map(|t| t.toolset).collect();
        assert_eq!(declared, Toolset::ALL);
        for t in Toolset::ALL {
            assert_eq!(t.decl().toolset, t);
            assert_eq!(Toolset::parse(&t.name().to_uppercase()), Some(t));
        }
        assert_eq!(
            default_toolsets().collect::<Vec<_>>(),
            [
                "Browsing",
                "Execution",
                "Listing",
                "Mutation",
                "Refactoring",
                "Search",
                "Session",
                "Testing",
                "Workflow"
            ]
        );
        assert!(Toolset::Conformance.decl().opt_in);
    }

    #[test]
    fn toolset_lists_are_parsed_case_insensitively() {
        let table: &[(&str, Result<&[&str], &str>)] = &[
            (
                "Search Testing,  execution",
                Ok(&["Search", "Testing", "Execution"]),
            ),
            ("execution, SESSION, Session", Ok(&["Execution", "Session"])),
            ("execution, conformance", Ok(&["Execution", "Conformance"])),
            ("Execution,Nope", Err("unknown toolset(s) Nope")),
            (" , ", Err("MCP_TOOLSETS is empty")),
        ];
        for (text, expected) in table {
            match (parse_toolsets(text), expected) {
                (Ok(got), Ok(want)) => assert_eq!(&got, want, "{text:?}"),
                (Err(got), Err(want)) => assert!(got.contains(want), "{text:?}: {got}"),
                (got, _) => panic!("{text:?}: {got:?}"),
            }
        }
    }

    #[test]
    fn defaults_are_within_their_own_ranges() {
        for set in TOOLSETS {
            for o in set.options {
                assert_eq!(
                    o.parse(&o.default.to_string()),
                    Ok(o.default),
                    "{}.{}",
                    set.name(),
                    o.name
                );
                assert!(!o.description.is_empty());
            }
        }
        let d = Options::default();
        assert_eq!(d.count("Execution", "maxResultChars"), Some(50_000));
        assert_eq!(d.count("Search", "defaultLimit"), Some(DEFAULT_LIMIT));
        assert_eq!(d.get("Search", "maxLimit"), Some(OptionValue::Unlimited));
        assert!(d.flag("Mutation", "kernelGuard", false));
        assert_eq!(d.get("Session", "anything"), None);
    }

    #[test]
    fn good_option_lines() {
        // (text, served, canonical pairs)
        type Row = (&'static str, Vec<String>, Vec<(&'static str, &'static str)>);
        let table: Vec<Row> = vec![
            ("", all(), vec![]),
            (
                "execution.MAXRESULTCHARS=20000, Search.defaultLimit=100",
                all(),
                vec![
                    ("Execution.maxResultChars", "20000"),
                    ("Search.defaultLimit", "100"),
                ],
            ),
            (
                "Mutation.kernelGuard=off Testing.maxTestClasses=none",
                all(),
                vec![
                    ("Mutation.kernelGuard", "false"),
                    ("Testing.maxTestClasses", "none"),
                ],
            ),
            (
                "Listing.maxLimit=50,Listing.defaultLimit=50",
                vec!["Listing".into()],
                vec![("Listing.maxLimit", "50"), ("Listing.defaultLimit", "50")],
            ),
        ];
        for (text, served, expected) in table {
            let got = parse_options(text, &served).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let expected: Vec<(String, String)> = expected
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(got, expected, "{text}");
            Options::from_pairs(&got).unwrap();
        }
    }

    #[test]
    fn bad_option_lines_name_the_fix() {
        // (text, served, substrings of the one problem)
        let table: Vec<(&str, Vec<String>, Vec<&str>)> = vec![
            (
                "Gardening.depth=3",
                all(),
                vec!["unknown toolset", "Browsing", "Testing"],
            ),
            (
                "Execution.bogus=1",
                all(),
                vec!["no option \"bogus\"", "maxResultChars", "default 50000"],
            ),
            ("Session.x=1", all(), vec!["Session declares no options"]),
            (
                "Search.defaultLimit=100",
                vec!["Execution".into()],
                vec!["does not serve", "MCP_TOOLSETS"],
            ),
            (
                "Execution.maxResultChars=lots",
                all(),
                vec!["Execution.maxResultChars", "from 100 to"],
            ),
            ("Execution.maxResultChars=5", all(), vec!["from 100 to"]),
            (
                "Search.defaultLimit=0",
                all(),
                vec!["Search.defaultLimit", "from 1"],
            ),
            ("Search.defaultLimit=-3", all(), vec!["from 1"]),
            ("Search.maxLimit=many", all(), vec!["`none`"]),
            (
                "Mutation.kernelGuard=maybe",
                all(),
                vec!["`true` or `false`"],
            ),
            ("Search.defaultLimit", all(), vec!["has no value"]),
            ("defaultLimit=10", all(), vec!["names no toolset"]),
            (
                "Search.defaultLimit=1,search.defaultlimit=2",
                all(),
                vec!["more than once"],
            ),
            (
                "Search.defaultLimit=300,Search.maxLimit=100",
                all(),
                vec!["above Search.maxLimit"],
            ),
        ];
        for (text, served, parts) in table {
            let problems = parse_options(text, &served).expect_err(text);
            assert_eq!(problems.len(), 1, "{text}: {problems:?}");
            for p in parts {
                assert!(
                    problems[0].contains(p),
                    "{text}: {:?} lacks {p:?}",
                    problems[0]
                );
            }
        }
        // Every problem is reported at once.
        let problems =
            parse_options("A.b=1 Execution.x=2 Search.defaultLimit=zero", &all()).unwrap_err();
        assert_eq!(problems.len(), 3, "{problems:?}");
    }

    #[test]
    fn resolved_options_read_back() {
        let pairs = parse_options(
            "Execution.maxResultChars=1000 Search.maxLimit=500 Mutation.blindWriteGuard=no",
            &all(),
        )
        .unwrap();
        let o = Options::from_pairs(&pairs).unwrap();
        assert_eq!(o.count("Execution", "maxResultChars"), Some(1000));
        assert_eq!(o.count("Search", "maxLimit"), Some(500));
        assert_eq!(o.count("Listing", "maxLimit"), None);
        assert!(!o.flag("Mutation", "blindWriteGuard", true));
        assert!(o.flag("Mutation", "kernelGuard", false));
        assert!(Options::from_pairs(&[("Nope.x".into(), "1".into())]).is_err());
        assert!(Options::from_pairs(&[("Execution.maxResultChars".into(), "1".into())]).is_err());
    }
}
