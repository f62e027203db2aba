//! The pure part of the worker's build script (`build.rs`): cutting a tool
//! file into sections, expanding includes, splitting at holes with the checks
//! listed there, and writing the generated Rust. No I/O, so the worker's tests
//! include it too (`tools/template.rs`) and feed it broken files.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One `!tool` or `!fragment` section: its name, the line it starts on, and
/// its lines (directives kept, comments dropped).
pub struct Section {
    name: String,
    line: usize,
    body: Vec<(usize, String)>,
}

/// The sections of `text` that start with `marker` (`!tool ` or `!fragment `).
fn sections(text: &str, file: &str, marker: &str) -> Result<Vec<Section>, String> {
    let mut out: Vec<Section> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line == "!" || line.starts_with("! ") {
            continue; // a comment
        }
        if let Some(name) = line.strip_prefix(marker) {
            let name = name.trim();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "{file}:{n}: {marker}needs a name of letters, digits and underscores"
                ));
            }
            if out.iter().any(|s| s.name == name) {
                return Err(format!("{file}:{n}: {name} is defined twice"));
            }
            out.push(Section {
                name: name.to_string(),
                line: n,
                body: Vec::new(),
            });
            continue;
        }
        if line.starts_with('!') && !line.starts_with("!include ") {
            return Err(format!(
                "{file}:{n}: unknown directive {line:?} (a comment line starts with \"! \")"
            ));
        }
        match out.last_mut() {
            Some(section) => section.body.push((n, line.to_string())),
            None if line.trim().is_empty() => {}
            None => return Err(format!("{file}:{n}: text before the first {marker}section")),
        }
    }
    Ok(out)
}

/// A section's text with its includes expanded, trimmed.
fn expand(
    section: &Section,
    file: &str,
    fragments: &BTreeMap<String, Section>,
) -> Result<String, String> {
    let mut lines = Vec::new();
    for (n, line) in &section.body {
        match line.strip_prefix("!include ") {
            Some(name) => {
                let fragment = fragments.get(name.trim()).ok_or_else(|| {
                    format!("{file}:{n}: no fragment {:?} in shared.st", name.trim())
                })?;
                for (m, l) in &fragment.body {
                    if l.starts_with('!') {
                        return Err(format!("shared.st:{m}: a fragment cannot include another"));
                    }
                    lines.push(l.as_str());
                }
            }
            None => lines.push(line.as_str()),
        }
    }
    let text = lines.join("\n").trim().to_string();
    if text.is_empty() {
        return Err(format!(
            "{file}:{}: {} has no expression",
            section.line, section.name
        ));
    }
    Ok(text)
}

/// A piece of an expression: text, or a hole's name.
enum Piece {
    /// Text of the expression.
    Text(String),
    /// A hole, by name.
    Hole(String),
}

/// Splits `text` at its holes, scanning it as Smalltalk so that a hole inside
/// a string, a comment or a character literal is refused.
fn split_holes(text: &str, file: &str, line: usize) -> Result<Vec<Piece>, String> {
    #[derive(PartialEq)]
    enum In {
        Code,
        Str,
        Comment,
    }
    let at = |why: String| format!("{file}:{line} (the section starting there): {why}");
    let chars: Vec<char> = text.chars().collect();
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut state = In::Code;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let opens_hole = c == '{' && chars.get(i + 1) == Some(&'{');
        match state {
            In::Code if opens_hole => {
                if !hole_at(&chars, i) {
                    let shown: String = chars[i..].iter().take(20).collect();
                    return Err(at(format!(
                        "`{shown}` does not open a hole (a hole is {{{{name}}}}, name an \
                         identifier; write `{{ {{` for nested braces)"
                    )));
                }
                let name: String = chars[i + 2..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                pieces.push(Piece::Text(std::mem::take(&mut current)));
                i += 2 + name.len() + 2;
                pieces.push(Piece::Hole(name));
                continue;
            }
            In::Str | In::Comment if opens_hole && hole_at(&chars, i) => {
                let inside = if state == In::Str {
                    "a string literal"
                } else {
                    "a comment"
                };
                return Err(at(format!(
                    "a hole inside {inside} would not be filled as a literal"
                )));
            }
            In::Code => match c {
                '\'' => state = In::Str,
                '"' => state = In::Comment,
                '$' => {
                    if hole_at(&chars, i + 1) {
                        return Err(at("a hole right after `$`".into()));
                    }
                    current.push(c);
                    if let Some(&next) = chars.get(i + 1) {
                        current.push(next);
                    }
                    i += 2;
                    continue;
                }
                _ => {}
            },
            In::Str if c == '\'' => state = In::Code,
            In::Comment if c == '"' => state = In::Code,
            In::Str | In::Comment => {}
        }
        current.push(c);
        i += 1;
    }
    match state {
        In::Code => {}
        In::Str => return Err(at("a string literal is never closed".into())),
        In::Comment => return Err(at("a comment is never closed".into())),
    }
    pieces.push(Piece::Text(current));
    Ok(pieces)
}

/// Whether a hole (`{{name}}`, a letter then letters and digits) starts at `i`.
fn hole_at(chars: &[char], i: usize) -> bool {
    if chars.get(i) != Some(&'{') || chars.get(i + 1) != Some(&'{') {
        return false;
    }
    if !chars.get(i + 2).is_some_and(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    let mut j = i + 2;
    while j < chars.len() && chars[j].is_ascii_alphanumeric() {
        j += 1;
    }
    j > i + 2 && chars.get(j) == Some(&'}') && chars.get(j + 1) == Some(&'}')
}

/// `describe_class` → `DescribeClass`.
fn type_name(tool: &str) -> String {
    tool.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// `className` → `class_name`.
fn field_name(hole: &str) -> String {
    let mut out = String::new();
    for c in hole.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    match out.as_str() {
        "type" | "match" | "ref" | "self" | "move" | "use" | "static" => format!("r#{out}"),
        _ => out,
    }
}

fn write_expression(code: &mut String, file: &str, tool: &str, pieces: &[Piece]) {
    let ty = type_name(tool);
    let mut holes: Vec<&str> = Vec::new();
    for p in pieces {
        if let Piece::Hole(h) = p {
            if !holes.contains(&h.as_str()) {
                holes.push(h);
            }
        }
    }
    let _ = writeln!(code, "\n/// The expression `!tool {tool}` of `{file}`.");
    if holes.is_empty() {
        let _ = writeln!(code, "pub struct {ty};");
    } else {
        let _ = writeln!(code, "pub struct {ty} {{");
        for h in &holes {
            let _ = writeln!(
                code,
                "    /// `{{{{{h}}}}}`\n    pub {}: crate::tools::template::Literal,",
                field_name(h)
            );
        }
        let _ = writeln!(code, "}}");
    }
    let texts: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Text(t) => Some(t.as_str()),
            Piece::Hole(_) => None,
        })
        .collect();
    let fills: Vec<String> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Hole(h) => Some(format!("&self.{}", field_name(h))),
            Piece::Text(_) => None,
        })
        .collect();
    let _ = writeln!(
        code,
        "impl crate::tools::template::Expression for {ty} {{\n    const TOOL: &'static str = {tool:?};\n    fn render(&self) -> crate::tools::template::Rendered {{\n        const PIECES: [&str; {}] = {texts:?};\n        crate::tools::template::render(&PIECES, &[{}])\n    }}\n}}",
        texts.len(),
        fills.join(", ")
    );
}

/// The fragments of `shared.st` by name.
pub type Fragments = BTreeMap<String, Section>;

/// Reads the fragments of `shared.st`.
pub fn fragments(shared: &str) -> Result<Fragments, String> {
    Ok(sections(shared, "shared.st", "!fragment ")?
        .into_iter()
        .map(|mut s| {
            while s.body.last().is_some_and(|(_, l)| l.trim().is_empty()) {
                s.body.pop();
            }
            (s.name.clone(), s)
        })
        .collect())
}

/// One expression cut from a tool file.
pub struct Cut {
    /// Its `!tool` name.
    pub tool: String,
    /// Its text, includes expanded, holes as `{{name}}`.
    pub text: String,
    /// The Rust the build generates for it.
    pub code: String,
}

/// Cuts every `!tool` section of the tool file `file` (`text`), checking it.
pub fn cut(text: &str, file: &str, fragments: &Fragments) -> Result<Vec<Cut>, String> {
    let mut out = Vec::new();
    for section in sections(text, file, "!tool ")? {
        let expanded = expand(&section, file, fragments)?;
        let pieces = split_holes(&expanded, file, section.line)?;
        let mut code = String::new();
        write_expression(&mut code, file, &section.name, &pieces);
        out.push(Cut {
            tool: section.name,
            text: expanded,
            code,
        });
    }
    Ok(out)
}
