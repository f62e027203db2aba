//! The session's blind-write ledger: which class definitions and methods the
//! session has read or written, so that the Mutation tools refuse to overwrite
//! what it has not seen, and how a moved view or an abort makes it forget.

use gsmcp_smalltalk::TransactionMark;
use std::collections::HashSet;

/// The session's blind-write ledgers: the class definitions and methods this
/// session has read (get_method_source, describe_class, export_class_source,
/// get_class_definition) or written itself. A tool that overwrites an existing
/// definition consults them; reading tools only record.
#[derive(Debug, Default)]
pub struct Ledger {
    classes: HashSet<String>,
    methods: HashSet<(String, bool, String)>,
    /// The subset of the above this session wrote itself: still its own after
    /// its view moves (a commit of another session's version of the same object
    /// would make this session's commit fail as a conflict).
    written_classes: HashSet<String>,
    written_methods: HashSet<(String, bool, String)>,
}

impl Ledger {
    /// Records that the session has seen (or written) the definition of `class`.
    pub fn saw_class(&mut self, class: &str) {
        self.classes.insert(class.to_string());
    }
    /// Records that the session has seen (or written) `class>>selector`
    /// (`meta` for the class side).
    pub fn saw_method(&mut self, class: &str, meta: bool, selector: &str) {
        self.methods
            .insert((class.to_string(), meta, selector.to_string()));
    }
    /// Whether the session has seen (or written) the definition of `class`.
    pub fn has_seen_class(&self, class: &str) -> bool {
        self.classes.contains(class)
    }
    /// Whether the session has seen (or written) `class>>selector`.
    pub fn has_seen_method(&self, class: &str, meta: bool, selector: &str) -> bool {
        self.methods
            .contains(&(class.to_string(), meta, selector.to_string()))
    }
    /// Records that the session wrote the definition of `class` itself.
    pub fn wrote_class(&mut self, class: &str) {
        self.saw_class(class);
        self.written_classes.insert(class.to_string());
    }
    /// Records that the session wrote `class>>selector` itself.
    pub fn wrote_method(&mut self, class: &str, meta: bool, selector: &str) {
        self.saw_method(class, meta, selector);
        self.written_methods
            .insert((class.to_string(), meta, selector.to_string()));
    }
    /// The view moved forward (commit, refresh): what the session only read may
    /// since have been replaced by another session's commit, so it must be read
    /// again before it is overwritten; what it wrote itself stays its own.
    pub fn forget_reads(&mut self) {
        self.classes = self.written_classes.clone();
        self.methods = self.written_methods.clone();
    }
    /// Applies what happened to the session's transaction between two marks:
    /// an abort (even one that left the view in place) discarded the session's
    /// own changes, so everything is forgotten; any other move of the view
    /// (commit, continue) forgets what was only read.
    pub fn follow(&mut self, before: TransactionMark, after: TransactionMark) {
        if after.aborts != before.aborts {
            self.forget_all();
        } else if after.view != before.view {
            self.forget_reads();
        }
    }

    /// Forgets everything: the session's own changes were discarded (abort).
    pub fn forget_all(&mut self) {
        self.classes.clear();
        self.methods.clear();
        self.written_classes.clear();
        self.written_methods.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledgers_follow_transaction_marks() {
        let mark = |view, aborts| TransactionMark { view, aborts };
        // (before, after, read kept, written kept)
        let table = [
            (mark(5, 0), mark(5, 0), true, true),
            (mark(5, 0), mark(7, 0), false, true),
            (mark(5, 0), mark(5, 1), false, false),
            (mark(5, 2), mark(9, 3), false, false),
        ];
        for (before, after, read, written) in table {
            let mut l = Ledger::default();
            l.saw_class("Read");
            l.wrote_class("Mine");
            l.follow(before, after);
            assert_eq!(l.has_seen_class("Read"), read, "{before:?} -> {after:?}");
            assert_eq!(l.has_seen_class("Mine"), written, "{before:?} -> {after:?}");
        }
    }
}
