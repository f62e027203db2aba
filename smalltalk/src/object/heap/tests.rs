//! The object memory's own tests: conservative roots, stress mode, the write
//! set, the closure pool, the generations and the collection trigger.

use std::sync::Arc;

use super::*;
use crate::object::code::{BlockCode, Method};

fn heap(stress: u32) -> Heap {
    let mut h = Heap::new(64 << 20);
    h.stress = stress;
    h.stress_countdown = stress;
    h.reset_trigger();
    h
}

fn array(h: &mut Heap, items: Vec<Value>) -> Oop {
    h.alloc(Oop(0), Body::Ptr(items))
}

#[test]
fn words_that_name_no_object_are_ignored_and_named_objects_survive() {
    for stress in [0, 1] {
        let mut h = heap(stress);
        let class = array(&mut h, vec![]);
        let kept = array(&mut h, vec![Value::Int(1)]);
        let inner = array(&mut h, vec![]);
        let outer = array(&mut h, vec![Value::Obj(inner)]);
        let lost = array(&mut h, vec![]);
        let words = vec![
            kept,
            outer,
            Oop(u64::MAX),
            Oop(h.table_len() as u64),
            Oop(h.table_len() as u64 + 5),
        ];
        let freed = h.collect_from(&[Value::Obj(class)], words, true);
        assert_eq!(freed, 1, "stress {stress}");
        assert!(h.try_get(lost).is_none());
        for o in [class, kept, inner, outer] {
            assert!(h.try_get(o).is_some(), "stress {stress}: {o:?} kept");
        }
        // a stale word naming the freed slot is harmless too (the
        // survivors are old now: only a major collection frees them)
        h.request_major();
        assert_eq!(h.collect_from(&[], vec![lost, class], true), 3);
    }
}

#[test]
fn stress_mode_never_reuses_a_slot_and_sweeps_only_what_exists() {
    // every object's class is OOP 0, the first one made: it stays
    let mut h = heap(1);
    let _class = array(&mut h, vec![]);
    let a = array(&mut h, vec![]);
    let b = array(&mut h, vec![]);
    assert_eq!(h.collect_from(&[Value::Obj(a)], vec![], true), 1);
    let c = array(&mut h, vec![]);
    assert!(c.0 > b.0, "a freed slot is not reused under stress");
    assert!(h.try_get(b).is_none());
    assert_eq!(h.live_objects(), 3);
    h.request_major();
    assert_eq!(h.collect_from(&[Value::Obj(c)], vec![], true), 1);
    assert_eq!(h.live_objects(), 2);
    assert!(!h.gc_due());
    array(&mut h, vec![]);
    assert!(h.gc_due(), "stress mode is due after any allocation");
    let mut normal = heap(0);
    let _class = array(&mut normal, vec![]);
    let x = array(&mut normal, vec![]);
    let y = array(&mut normal, vec![]);
    normal.collect_from(&[Value::Obj(x)], vec![], true);
    let z = array(&mut normal, vec![]);
    assert_eq!(z, y, "outside stress mode the freed slot is reused");
}

#[test]
fn the_write_set_holds_persistent_objects_only() {
    let mut h = heap(0);
    let temp = array(&mut h, vec![Value::Nil]);
    assert!(h.store(temp, 0, Value::Int(1)));
    h.write_meta(temp);
    assert!(h.dirty.is_empty(), "a temporary object is not recorded");
    assert_eq!(h.get(temp).flags & F_DIRTY, 0);
    let stored = array(&mut h, vec![Value::Nil]);
    h.set_flags_quiet(stored, F_PERSISTENT, 0);
    assert!(h.store(stored, 0, Value::Int(2)));
    h.write_meta(stored);
    assert!(h.store(stored, 0, Value::Int(3)));
    assert_eq!(h.dirty, vec![stored], "recorded once");
    assert_ne!(h.get(stored).flags & F_DIRTY, 0);
}

fn block_code() -> Arc<BlockCode> {
    Arc::new(BlockCode {
        num_args: 0,
        frame_size: 0,
        env_size: 0,
        arg_env: vec![],
        body: vec![],
        offset: 0,
        simple_site: None,
    })
}

fn box_of(h: &Heap, o: Oop) -> (*const Closure, Arc<BlockCode>, Arc<Method>) {
    match &h.get(o).body {
        Body::Block(b) => (&**b as *const Closure, b.code.clone(), b.method.clone()),
        _ => panic!("not a block"),
    }
}

/// A method with no statements, for closures that are never run.
fn empty_method() -> Arc<Method> {
    Arc::new(Method {
        selector: Oop(0),
        class: Oop(0),
        category: Value::Nil,
        source: String::new(),
        num_args: 0,
        frame_size: 0,
        env_size: 0,
        arg_env: vec![],
        body: vec![],
        primitive: 0,
        literals: vec![],
        sends: vec![],
        ivars_used: vec![],
        trivial: crate::object::code::Trivial::No,
        dispatch: crate::object::code::Dispatch::Frame,
        doit: false,
        needs_home: false,
        oop: std::sync::atomic::AtomicU64::new(0),
    })
}

#[test]
fn a_freed_closure_box_is_reused_with_the_new_code_and_method() {
    let (c1, c2, m1, m2) = (block_code(), block_code(), empty_method(), empty_method());
    let mut h = heap(0);
    let class = array(&mut h, vec![]);
    let first = h.alloc_block(class, &c1, &m1, Value::Int(1), Value::Nil, 7);
    let (first_box, ..) = box_of(&h, first);
    assert_eq!(Arc::strong_count(&c1), 2);
    assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 1);
    // the box went to the pool, its references with it
    assert_eq!(Arc::strong_count(&c1), 2);
    let same = h.alloc_block(class, &c1, &m2, Value::Int(2), Value::Nil, 8);
    let (b, code, meth) = box_of(&h, same);
    assert_eq!(b, first_box, "the freed box is reused");
    assert!(Arc::ptr_eq(&code, &c1) && Arc::ptr_eq(&meth, &m2));
    assert_eq!(Arc::strong_count(&m1), 1, "the replaced method is let go");
    drop((code, meth));
    match &h.get(same).body {
        Body::Block(b) => assert!(matches!((b.receiver, b.home), (Value::Int(2), 8))),
        _ => unreachable!(),
    }
    assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 1);
    let other = h.alloc_block(class, &c2, &m2, Value::Nil, Value::Nil, 9);
    let (_, code, _) = box_of(&h, other);
    assert!(Arc::ptr_eq(&code, &c2));
    drop(code);
    assert_eq!(Arc::strong_count(&c1), 1, "the replaced code is let go");
    // a collection between evaluations empties the pool
    h.collect(&[Value::Obj(class)]);
    assert_eq!(Arc::strong_count(&c2), 1);
    assert_eq!(Arc::strong_count(&m2), 1);
}

#[test]
fn a_pooled_box_just_below_the_top_with_the_same_code_is_taken_first() {
    let m = empty_method();
    let (c1, c2, c3) = (block_code(), block_code(), block_code());
    let mut h = heap(0);
    let class = array(&mut h, vec![]);
    let a = h.alloc_block(class, &c1, &m, Value::Nil, Value::Nil, 1);
    let b = h.alloc_block(class, &c2, &m, Value::Nil, Value::Nil, 2);
    let (a_box, b_box) = (box_of(&h, a).0, box_of(&h, b).0);
    assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 2);
    // the pool holds a's box under b's: c1 asks for the one below the top
    let x = h.alloc_block(class, &c1, &m, Value::Int(3), Value::Nil, 3);
    let (xb, code, _) = box_of(&h, x);
    assert_eq!(xb, a_box);
    assert!(Arc::ptr_eq(&code, &c1));
    drop(code);
    assert_eq!(Arc::strong_count(&c1), 2, "no count changed hands");
    let y = h.alloc_block(class, &c2, &m, Value::Int(4), Value::Nil, 4);
    assert_eq!(box_of(&h, y).0, b_box);
    assert_eq!(Arc::strong_count(&c2), 2);
    // neither box holds c3: the top one takes it and lets its code go
    assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 2);
    let z = h.alloc_block(class, &c3, &m, Value::Nil, Value::Nil, 5);
    let (_, code, _) = box_of(&h, z);
    assert!(Arc::ptr_eq(&code, &c3));
    drop(code);
    assert_eq!(Arc::strong_count(&c1) + Arc::strong_count(&c2), 3);
}

/// Each object is an array whose class is OOP 0 (the first one made).
fn generations() -> (Heap, Oop) {
    let mut h = heap(0);
    let class = array(&mut h, vec![]);
    (h, class)
}

fn alive(h: &Heap, o: Oop) -> bool {
    h.try_get(o).is_some()
}

#[test]
fn a_minor_collection_frees_young_garbage_only() {
    let (mut h, class) = generations();
    let old_garbage = array(&mut h, vec![]);
    let holder = array(&mut h, vec![Value::Obj(old_garbage)]);
    // both survive (young, reachable) and become old
    assert_eq!(
        h.collect_from(&[Value::Obj(class), Value::Obj(holder)], vec![], true),
        0
    );
    assert!(h.store(holder, 0, Value::Nil));
    let young_garbage = array(&mut h, vec![]);
    assert_eq!(
        h.collect_from(&[Value::Obj(class), Value::Obj(holder)], vec![], true),
        1
    );
    assert!(!alive(&h, young_garbage) && alive(&h, old_garbage));
    h.request_major();
    assert_eq!(
        h.collect_from(&[Value::Obj(class), Value::Obj(holder)], vec![], true),
        1
    );
    assert!(!alive(&h, old_garbage) && alive(&h, holder));
    assert_eq!((h.stats.collections, h.stats.major), (3, 1));
    // between evaluations every collection is major
    assert_eq!(h.collect(&[Value::Obj(class)]), 1);
    assert!(!alive(&h, holder));
}

#[test]
fn a_young_object_stored_into_an_old_one_survives_a_minor_collection() {
    let (mut h, class) = generations();
    let roots = |holder: Oop| [Value::Obj(class), Value::Obj(holder)];
    let holder = array(&mut h, vec![Value::Nil, Value::Nil]);
    h.collect_from(&roots(holder), vec![], true);
    // the fast store refuses an old object the barrier has not seen
    let young = array(&mut h, vec![]);
    assert!(!h.store_plain(holder, 0, Value::Obj(young)));
    assert!(h.store(holder, 0, Value::Obj(young)));
    // remembered now: the fast store is allowed until the next collection
    let young2 = array(&mut h, vec![]);
    assert!(h.store_plain(holder, 1, Value::Obj(young2)));
    assert_eq!(h.collect_from(&roots(holder), vec![], true), 0);
    assert!(alive(&h, young) && alive(&h, young2));
    // a store through `write` and one through `write_meta`
    let young3 = array(&mut h, vec![]);
    match &mut h.write(holder).unwrap().body {
        Body::Ptr(s) => s[0] = Value::Obj(young3),
        _ => unreachable!(),
    }
    h.collect_from(&roots(holder), vec![], true);
    let young4 = array(&mut h, vec![]);
    h.write_meta(holder).class = young4;
    assert_eq!(h.collect_from(&roots(holder), vec![], true), 0);
    assert!(alive(&h, young3) && alive(&h, young4));
    assert!(
        !h.store_plain(holder, 1, Value::Nil),
        "unseen again after the collection"
    );
    // `young` (old since the first collection) lost its last reference
    h.request_major();
    assert_eq!(h.collect_from(&roots(holder), vec![], true), 1);
    assert!(!alive(&h, young) && alive(&h, young3));
}

#[test]
fn objects_made_old_at_birth_keep_their_young_references_and_symbols_stay() {
    let (mut h, class) = generations();
    let literal = array(&mut h, vec![]);
    let m = empty_method();
    let method = h.alloc_old(class, Body::Ptr(vec![Value::Obj(literal)]));
    let sym = h.intern("aSymbol", class, class);
    let young = array(&mut h, vec![]);
    assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 1);
    assert!(alive(&h, method) && alive(&h, literal) && alive(&h, sym));
    assert!(!alive(&h, young));
    assert_eq!(h.intern("aSymbol", class, class), sym);
    h.request_major();
    h.collect_from(&[Value::Obj(class)], vec![], true);
    assert!(!alive(&h, method) && !alive(&h, literal) && alive(&h, sym));
    drop(m);
}

#[test]
fn a_major_collection_follows_enough_promotion_or_a_full_budget() {
    let (mut h, class) = generations();
    let mut kept = Vec::new();
    while h.stats.major == 0 {
        // young objects that survive: promoted at the next collection
        for _ in 0..64 {
            kept.push(Value::Obj(array(&mut h, vec![Value::Nil; 1000])));
        }
        let mut roots = kept.clone();
        roots.push(Value::Obj(class));
        h.collect_from(&roots, vec![], true);
        assert!(h.stats.collections < 1000, "no major collection came");
    }
    assert!(h.stats.collections > 1, "the first ones were minor");
    // past the budget the next collection is major
    let before = h.stats.major;
    h.set_limit(h.bytes / 2);
    h.collect_from(&[Value::Obj(class)], vec![], true);
    assert_eq!(h.stats.major, before + 1);
}

#[test]
fn the_trigger_follows_the_room_the_budget_leaves() {
    let mut h = heap(0);
    assert_eq!(h.gc_trigger, GC_EVERY);
    let between = (GC_MIN + GC_EVERY) / 2;
    h.set_limit(between);
    assert_eq!(h.gc_trigger, between);
    h.set_limit(1000);
    assert_eq!(h.gc_trigger, GC_MIN);
    h.allocated_since_gc = 10;
    h.bytes = 2000;
    h.defer_trigger();
    assert!(h.gc_due(), "past the budget, every safe point judges it");
}
