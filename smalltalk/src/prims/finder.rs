//! The engine side of ClassOrganizer's searches (primitives 360..=364, see
//! `kernel/VM.md`): the classes bound in the session's symbol list in search
//! order, and one pass over their methods for implementors, senders,
//! references and source substrings. Each primitive answers exactly what the
//! kernel's Smalltalk fallback in `classes/ClassOrganizer.gs` answers — same methods,
//! same order (classes by name, instance side then class side, selectors in
//! code-point order within a behavior) — and fails into that fallback on any
//! argument it does not expect. It reads classes and methods and allocates
//! only its answers: nothing here stores into an existing object, so a search
//! never adds to a commit.

use crate::object::primitives::*;
use std::cmp::Ordering;

use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::code::Method;
use crate::object::heap::Body;
use crate::object::value::{Oop, Value};

/// What a method must hold to be answered by a scan.
enum Test<'a> {
    /// The Symbol among its literals or sent selectors (`_hasLiteral:`).
    Literal(Oop),
    /// The object among its literals or sent selectors, or the value of one
    /// of its literal Associations (`_refersTo:`).
    Refers(Value),
    /// Its source holds the text (`_findString:startingAt:ignoreCase:`).
    Source(&'a Needle),
}

impl Vm {
    pub(crate) fn prim_finder(&mut self, n: u16, rp: usize, argc: usize) -> P {
        let arg = |vm: &Vm, i: usize| {
            if i < argc {
                vm.stack[rp + 1 + i]
            } else {
                Value::Nil
            }
        };
        Ok(match n {
            FINDER_CLASSES => self.searched_classes(),
            FINDER_IMPLEMENTORS => {
                let (Value::Obj(sel), Some(classes)) =
                    (arg(self, 0), self.class_list(arg(self, 1)))
                else {
                    return Ok(None);
                };
                self.implementors(sel, &classes)
            }
            FINDER_SENDERS => {
                let (Value::Obj(sel), Some(keyword), Some(classes)) = (
                    arg(self, 0),
                    self.chars_of(arg(self, 1)),
                    self.class_list(arg(self, 2)),
                ) else {
                    return Ok(None);
                };
                if !self.is_symbol(Value::Obj(sel)) {
                    return Ok(None);
                }
                let methods = self.scan(&classes, &Test::Literal(sel));
                Some(self.with_offsets(methods, &Needle::new(&keyword, false)))
            }
            FINDER_REFERENCES => {
                let Some(classes) = self.class_list(arg(self, 1)) else {
                    return Ok(None);
                };
                let methods = self.scan(&classes, &Test::Refers(arg(self, 0)));
                Some(self.method_array(&methods))
            }
            FINDER_SUBSTRING_SEARCH => {
                let ignore_case = match arg(self, 1) {
                    Value::True => true,
                    Value::False => false,
                    _ => return Ok(None),
                };
                let (Some(text), Some(classes)) =
                    (self.chars_of(arg(self, 0)), self.class_list(arg(self, 2)))
                else {
                    return Ok(None);
                };
                let needle = Needle::new(&text, ignore_case);
                let methods = self.scan(&classes, &Test::Source(&needle));
                Some(self.with_offsets(methods, &needle))
            }
            _ => None,
        })
    }

    /// The classes (not metaclasses) bound in the symbol list's dictionaries,
    /// each once, sorted by name in code-point order; classes sharing a name
    /// keep the order they were first met in (symbol list order, then each
    /// dictionary's). Fails when a symbol list entry is not a dictionary.
    fn searched_classes(&mut self) -> Option<Value> {
        let up = self.roots.user_profile;
        let list = self.array_items(self.heap.slot(up, 1))?;
        let mut seen = crate::object::value::FxHashMap::default();
        let mut found: Vec<(String, Oop)> = Vec::new();
        for d in list {
            let Body::Dict(t) = &self.heap.get(d.oop()?).body else {
                return None;
            };
            for (_, assoc) in t.iter() {
                let Value::Obj(v) = self.heap.slot(assoc, 1) else {
                    continue;
                };
                let Some(cd) = self.heap.class_data(v) else {
                    continue;
                };
                if cd.is_meta || seen.insert(v, ()).is_some() {
                    continue;
                }
                found.push((self.string_of(Value::Obj(cd.name)).unwrap_or_default(), v));
            }
        }
        // stable: equal names keep the order they were found in
        found.sort_by(|a, b| a.0.cmp(&b.0));
        Some(self.new_array(found.into_iter().map(|(_, c)| Value::Obj(c)).collect()))
    }

    /// The elements of an Array of classes (not metaclasses); None when
    /// anything else is in it.
    fn class_list(&self, v: Value) -> Option<Vec<Oop>> {
        let o = v.oop()?;
        if self.heap.get(o).class != self.k.array {
            return None;
        }
        let items = self.array_items(v)?;
        items
            .into_iter()
            .map(|c| {
                let c = c.oop()?;
                self.heap.class_data(c).filter(|d| !d.is_meta).map(|_| c)
            })
            .collect()
    }

    /// The behaviors a search visits for `classes`: each class, then its metaclass.
    fn behaviors(&self, classes: &[Oop]) -> Vec<Oop> {
        let mut out = Vec::with_capacity(classes.len() * 2);
        for &c in classes {
            out.push(c);
            out.push(self.heap.get(c).class);
        }
        out
    }

    fn implementors(&mut self, sel: Oop, classes: &[Oop]) -> Option<Value> {
        let mut out = Vec::new();
        for b in self.behaviors(classes) {
            self.ensure_methods(b);
            if let Some(&m) = self.heap.class_data(b).and_then(|d| d.methods.get(&sel)) {
                out.push(Value::Obj(m));
            }
        }
        Some(self.new_array(out))
    }

    /// Every method of the behaviors of `classes` passing `test`, each
    /// behavior's in selector order. A stored method not compiled yet is
    /// compiled first; one that no longer compiles passes no test.
    fn scan(&mut self, classes: &[Oop], test: &Test) -> Vec<Oop> {
        let mut out = Vec::new();
        let mut entries: Vec<(Oop, Oop)> = Vec::new();
        let mut hits: Vec<(Oop, Oop)> = Vec::new();
        let behaviors = self.behaviors(classes);
        // the stored methods not read yet, read in one go rather than one by one
        let mut all: Vec<Oop> = Vec::new();
        for &b in &behaviors {
            self.ensure_methods(b);
            if let Some(d) = self.heap.class_data(b) {
                all.extend(d.methods.values().copied());
            }
        }
        self.read_stored_codes(&all);
        drop(all);
        for b in behaviors {
            entries.clear();
            if let Some(d) = self.heap.class_data(b) {
                entries.extend(d.methods.iter().map(|(&s, &m)| (s, m)));
            }
            hits.clear();
            for &(sel, mo) in &entries {
                if let Test::Source(needle) = test {
                    // a stored method's source is read without compiling it
                    self.read_stored_code(mo);
                    if let Some(src) = self.stored_source(mo) {
                        if needle.find_in(src) > 0 {
                            hits.push((sel, mo));
                        }
                        continue;
                    }
                }
                self.ensure_method(mo);
                if let Body::Method(m) = &self.heap.get(mo).body {
                    if self.passes(m, test) {
                        hits.push((sel, mo));
                    }
                }
            }
            if hits.len() > 1 {
                hits.sort_by(|a, b| self.symbol_order(a.0, b.0));
            }
            out.extend(hits.iter().map(|&(_, mo)| mo));
        }
        out
    }

    /// Two selectors in code-point order (`Symbol <=`), read in place.
    fn symbol_order(&self, a: Oop, b: Oop) -> Ordering {
        match (&self.heap.get(a).body, &self.heap.get(b).body) {
            (Body::Bytes(x), Body::Bytes(y)) => x.cmp(y),
            (x, y) => code_points(x).cmp(code_points(y)),
        }
    }

    fn passes(&self, m: &Method, test: &Test) -> bool {
        match *test {
            Test::Literal(sel) => {
                m.sends.contains(&sel) || m.literals.iter().any(|l| l.identical(Value::Obj(sel)))
            }
            Test::Refers(obj) => {
                if let Value::Obj(o) = obj {
                    if m.sends.contains(&o) {
                        return true;
                    }
                }
                m.literals.iter().any(|&l| {
                    l.identical(obj)
                        || matches!(l, Value::Obj(a)
                            if self.inherits(self.heap.get(a).class, self.k.association)
                                && self.heap.slot(a, 1).identical(obj))
                })
            }
            Test::Source(needle) => needle.find_in(&m.source) > 0,
        }
    }

    fn method_array(&mut self, methods: &[Oop]) -> Value {
        self.new_array(methods.iter().map(|&mo| Value::Obj(mo)).collect())
    }

    /// `{methods. offsets}`: each method's 1-based offset of `text` in its source.
    fn with_offsets(&mut self, methods: Vec<Oop>, needle: &Needle) -> Value {
        let offsets = methods
            .iter()
            .map(|&mo| {
                self.read_stored_code(mo);
                let found = match (self.stored_source(mo), &self.heap.get(mo).body) {
                    (Some(src), _) => needle.find_in(src),
                    (None, Body::Method(m)) => needle.find_in(&m.source),
                    _ => 0,
                };
                Value::Int(found as i64)
            })
            .collect();
        let offsets = self.new_array(offsets);
        let methods = self.method_array(&methods);
        self.new_array(vec![methods, offsets])
    }
}

impl Vm {
    /// The reads of Behavior a source scan repeats for every class or method
    /// — `name` (42), `superclass` (43), `selectors` (46), `sourceCodeAt:`
    /// (49), `_compiledMethodAtOrNil:` (50), `includesSelector:` (51),
    /// `categoryOfSelector:` (54), `isMeta` (62), `thisClass` (67) — answered
    /// from the class in place, with `prim_behavior`'s answers; None for any
    /// other primitive.
    pub(crate) fn behavior_read(&mut self, n: u16, c: Oop, arg: Value) -> Option<P> {
        if matches!(
            n,
            BEHAVIOR_SELECTORS
                | BEHAVIOR_SOURCE_CODE_AT
                | BEHAVIOR_COMPILED_METHOD_AT
                | BEHAVIOR_INCLUDES_SELECTOR
                | BEHAVIOR_CATEGORY_OF_SELECTOR
        ) {
            self.ensure_methods(c);
        }
        let d = self.heap.class_data(c)?;
        let key = arg.oop();
        let method = key.and_then(|s| d.methods.get(&s).copied());
        let v = match n {
            BEHAVIOR_NAME => Value::Obj(d.name),
            BEHAVIOR_SUPERCLASS => d.superclass.map_or(Value::Nil, Value::Obj),
            BEHAVIOR_SELECTORS => {
                let mut sels: Vec<Oop> = d.methods.keys().copied().collect();
                sels.sort_by(|a, b| self.symbol_order(*a, *b));
                self.new_array(sels.into_iter().map(Value::Obj).collect())
            }
            BEHAVIOR_INCLUDES_SELECTOR => Value::bool(method.is_some()),
            BEHAVIOR_CATEGORY_OF_SELECTOR => key
                .and_then(|s| d.categories.get(&s).copied())
                .map_or(Value::Nil, Value::Obj),
            BEHAVIOR_COMPILED_METHOD_AT => method.map_or(Value::Nil, Value::Obj),
            BEHAVIOR_IS_META => Value::bool(d.is_meta),
            BEHAVIOR_THIS_CLASS => Value::Obj(d.this_class),
            BEHAVIOR_SOURCE_CODE_AT => {
                let Some(mo) = method else {
                    return Some(Ok(Some(Value::Nil)));
                };
                self.read_stored_code(mo);
                if let Some((class, body)) =
                    self.stored_source(mo).map(|src| self.string_parts(src))
                {
                    return Some(Ok(Some(Value::Obj(self.heap.alloc(class, body)))));
                }
                match self.method_source(mo) {
                    Some(src) => self.new_string(&src),
                    None => Value::Nil,
                }
            }
            _ => return None,
        };
        Some(Ok(Some(v)))
    }

    /// The source of method object `mo`, stored or compiled; None for
    /// anything else.
    pub(crate) fn method_source(&mut self, mo: Oop) -> Option<String> {
        self.read_stored_code(mo);
        if let Some(src) = self.stored_source(mo) {
            return Some(src.to_string());
        }
        self.ensure_method(mo);
        match &self.heap.get(mo).body {
            Body::Method(m) => Some(m.source.clone()),
            _ => None,
        }
    }

    /// `includesString:` (229) when both strings are ASCII bytes: the same
    /// answer as the general primitive (lower-cased containment) without
    /// copying either string. None for anything else.
    pub(crate) fn includes_string_ascii(&self, r: Value, arg: Value) -> Option<Value> {
        let (Value::Obj(a), Value::Obj(b)) = (r, arg) else {
            return None;
        };
        let (x, y) = (self.heap.get(a), self.heap.get(b));
        let (Body::Bytes(hay), Body::Bytes(pat)) = (&x.body, &y.body) else {
            return None;
        };
        if !hay.is_ascii()
            || !pat.is_ascii()
            || !self.is_char_class(x.class)
            || !self.is_char_class(y.class)
        {
            return None;
        }
        if pat.is_empty() {
            return Some(Value::True);
        }
        if hay.len() < pat.len() {
            return Some(Value::False);
        }
        let first = pat[0].to_ascii_lowercase();
        Some(Value::bool((0..=hay.len() - pat.len()).any(|i| {
            hay[i].to_ascii_lowercase() == first && hay[i..i + pat.len()].eq_ignore_ascii_case(pat)
        })))
    }
}

/// The code points of a String or Symbol body, whatever its width.
fn code_points(body: &Body) -> Box<dyn Iterator<Item = u32> + '_> {
    match body {
        Body::Bytes(b) => Box::new(b.iter().map(|&c| c as u32)),
        Body::Wide(w) => Box::new(w.iter().copied()),
        _ => Box::new(std::iter::empty()),
    }
}

/// The text of `_findString: text startingAt: 1 ignoreCase:`, prepared once
/// for searching many sources: the 1-based character index of its first
/// occurrence, 0 when there is none or the text is empty. Case is folded
/// character by character to the first character of its lower case, as the
/// string primitive does.
pub(crate) struct Needle {
    /// Folded when ignoring case.
    chars: Vec<u32>,
    /// The text as a Rust string, when every code point is a character.
    text: Option<String>,
    ignore_case: bool,
}

fn fold(c: u32) -> u32 {
    char::from_u32(c)
        .map(|ch| ch.to_lowercase().next().unwrap_or(ch) as u32)
        .unwrap_or(c)
}

impl Needle {
    pub(crate) fn new(text: &[u32], ignore_case: bool) -> Needle {
        let chars: Vec<u32> = if ignore_case {
            text.iter().map(|&c| fold(c)).collect()
        } else {
            text.to_vec()
        };
        let text = chars.iter().map(|&c| char::from_u32(c)).collect();
        Needle {
            chars,
            text,
            ignore_case,
        }
    }

    pub(crate) fn find_in(&self, source: &str) -> usize {
        if self.chars.is_empty() {
            return 0;
        }
        match &self.text {
            // UTF-8 is self-synchronising: the first byte match is the first
            // character match
            Some(t) if !self.ignore_case => {
                return source
                    .find(t.as_str())
                    .map_or(0, |i| source[..i].chars().count() + 1);
            }
            // an ASCII source folds byte by byte (a non-ASCII character may fold
            // to an ASCII one, so this needs the source to be ASCII)
            Some(t) if source.is_ascii() => {
                let (hay, pat) = (source.as_bytes(), t.as_bytes());
                if !t.is_ascii() || hay.len() < pat.len() {
                    return 0;
                }
                return (0..=hay.len() - pat.len())
                    .find(|&i| {
                        hay[i].to_ascii_lowercase() == pat[0]
                            && hay[i..i + pat.len()]
                                .iter()
                                .zip(pat)
                                .all(|(a, b)| a.to_ascii_lowercase() == *b)
                    })
                    .map_or(0, |i| i + 1);
            }
            _ => {}
        }
        let hay: Vec<u32> = if self.ignore_case {
            source.chars().map(|c| fold(c as u32)).collect()
        } else {
            source.chars().map(|c| c as u32).collect()
        };
        let n = self.chars.len();
        if hay.len() < n {
            return 0;
        }
        (0..=hay.len() - n)
            .find(|&i| hay[i..i + n] == self.chars[..])
            .map_or(0, |i| i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::Needle;

    #[test]
    fn needle_counts_characters_and_folds_case_like_the_string_primitive() {
        let chars = |s: &str| s.chars().map(|c| c as u32).collect::<Vec<u32>>();
        let table: &[(&str, &str, bool, usize)] = &[
            ("foo ^ bar", "bar", false, 7),
            ("foo ^ bar", "BAR", false, 0),
            ("foo ^ bar", "BAR", true, 7),
            ("é ^ bar", "bar", false, 5),
            ("x ^ 'ÉTÉ'", "été", true, 6),
            ("x ^ 1", "", false, 0),
            ("x", "xy", true, 0),
            ("a😀b", "b", false, 3),
            ("a😀b", "😀B", true, 2),
            ("x ^ 'abc'", "BC'", true, 7),
            ("x ^ \u{212A}ey", "key", true, 5),
            ("x ^ \u{212A}ey", "KEY", false, 0),
            ("ab", "abc", true, 0),
        ];
        for &(src, text, ic, want) in table {
            let needle = Needle::new(&chars(text), ic);
            assert_eq!(needle.find_in(src), want, "{src:?} {text:?} {ic}");
        }
    }
}
