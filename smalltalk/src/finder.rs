//! The engine side of ClassOrganizer's searches (primitives 360..=364, see
//! `kernel/VM.md`): the classes bound in the session's symbol list in search
//! order, and one pass over their methods for implementors, senders,
//! references and source substrings. Each primitive answers exactly what the
//! kernel's Smalltalk fallback in `16-reflection.gs` answers — same methods,
//! same order (classes by name, instance side then class side, selectors in
//! code-point order within a behavior) — and fails into that fallback on any
//! argument it does not expect. It reads classes and methods and allocates
//! only its answers: nothing here stores into an existing object, so a search
//! never adds to a commit.

use std::sync::Arc;

use crate::code::Method;
use crate::heap::Body;
use crate::interp::Vm;
use crate::prims::P;
use crate::value::{Oop, Value};

/// What a method must hold to be answered by a scan.
enum Test<'a> {
    /// The Symbol among its literals or sent selectors (`_hasLiteral:`).
    Literal(Oop),
    /// The object among its literals or sent selectors, or the value of one
    /// of its literal Associations (`_refersTo:`).
    Refers(Value),
    /// Its source holds the text (`_findString:startingAt:ignoreCase:`).
    Source(&'a [u32], bool),
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
            360 => self.searched_classes(),
            361 => {
                let (Value::Obj(sel), Some(classes)) = (arg(self, 0), self.class_list(arg(self, 1)))
                else {
                    return Ok(None);
                };
                self.implementors(sel, &classes)
            }
            362 => {
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
                Some(self.with_offsets(methods, &keyword, false))
            }
            363 => {
                let Some(classes) = self.class_list(arg(self, 1)) else {
                    return Ok(None);
                };
                let methods = self.scan(&classes, &Test::Refers(arg(self, 0)));
                Some(self.method_array(methods))
            }
            364 => {
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
                let methods = self.scan(&classes, &Test::Source(&text, ignore_case));
                Some(self.with_offsets(methods, &text, ignore_case))
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
        let list = self.array_items_pub(self.heap.slot(up, 1))?;
        let mut seen = crate::value::FxHashMap::default();
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
        let items = self.array_items_pub(v)?;
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
            if let Some(&m) = self.heap.class_data(b).and_then(|d| d.methods.get(&sel)) {
                out.push(Value::Obj(m));
            }
        }
        Some(self.new_array(out))
    }

    /// The compiled method of method object `mo` (compiling a stored method
    /// on its first use); None for a stored method that no longer compiles.
    fn compiled(&mut self, mo: Oop) -> Option<Arc<Method>> {
        self.ensure_method(mo);
        match &self.heap.get(mo).body {
            Body::Method(m) => Some(m.clone()),
            _ => None,
        }
    }

    /// Every method of the behaviors of `classes` passing `test`, each
    /// behavior's in selector order, with its compiled form.
    fn scan(&mut self, classes: &[Oop], test: &Test) -> Vec<(Oop, Arc<Method>)> {
        let mut out = Vec::new();
        let mut entries: Vec<(Oop, Oop)> = Vec::new();
        let mut hits: Vec<(String, Oop, Arc<Method>)> = Vec::new();
        for b in self.behaviors(classes) {
            entries.clear();
            if let Some(d) = self.heap.class_data(b) {
                entries.extend(d.methods.iter().map(|(&s, &m)| (s, m)));
            }
            hits.clear();
            for &(sel, mo) in &entries {
                let Some(m) = self.compiled(mo) else { continue };
                if self.passes(&m, test) {
                    let name = self.string_of(Value::Obj(sel)).unwrap_or_default();
                    hits.push((name, mo, m));
                }
            }
            hits.sort_by(|a, b| a.0.cmp(&b.0));
            out.extend(hits.drain(..).map(|(_, mo, m)| (mo, m)));
        }
        out
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
            Test::Source(text, ignore_case) => find_chars(&m.source, text, ignore_case) > 0,
        }
    }

    fn method_array(&mut self, methods: Vec<(Oop, Arc<Method>)>) -> Value {
        self.new_array(methods.into_iter().map(|(mo, _)| Value::Obj(mo)).collect())
    }

    /// `{methods. offsets}`: each method's 1-based offset of `text` in its source.
    fn with_offsets(
        &mut self,
        methods: Vec<(Oop, Arc<Method>)>,
        text: &[u32],
        ignore_case: bool,
    ) -> Value {
        let offsets = methods
            .iter()
            .map(|(_, m)| Value::Int(find_chars(&m.source, text, ignore_case) as i64))
            .collect();
        let offsets = self.new_array(offsets);
        let methods = self.method_array(methods);
        self.new_array(vec![methods, offsets])
    }
}

/// `_findString: text startingAt: 1 ignoreCase:` on a method's source: the
/// 1-based character index of the first occurrence, 0 when there is none or
/// the text is empty. Case is folded character by character to the first
/// character of its lower case, as the string primitive does.
pub(crate) fn find_chars(source: &str, text: &[u32], ignore_case: bool) -> usize {
    if text.is_empty() {
        return 0;
    }
    let fold = |c: u32| -> u32 {
        if ignore_case {
            char::from_u32(c)
                .map(|ch| ch.to_lowercase().next().unwrap_or(ch) as u32)
                .unwrap_or(c)
        } else {
            c
        }
    };
    if !ignore_case {
        if let Some(needle) = text
            .iter()
            .map(|&c| char::from_u32(c))
            .collect::<Option<String>>()
        {
            // UTF-8 is self-synchronising: the first byte match is the first
            // character match
            return match source.find(&needle) {
                Some(i) => source[..i].chars().count() + 1,
                None => 0,
            };
        }
    }
    let needle: Vec<u32> = text.iter().map(|&c| fold(c)).collect();
    let hay: Vec<u32> = source.chars().map(|c| fold(c as u32)).collect();
    if hay.len() < needle.len() {
        return 0;
    }
    (0..=hay.len() - needle.len())
        .find(|&i| hay[i..i + needle.len()] == needle[..])
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::find_chars;

    #[test]
    fn find_chars_counts_characters_and_folds_case_like_the_string_primitive() {
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
        ];
        for &(src, text, ic, want) in table {
            assert_eq!(find_chars(src, &chars(text), ic), want, "{src:?} {text:?} {ic}");
        }
    }
}
