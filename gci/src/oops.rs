//! How a session's objects are named to a GCI client: GemStone's encoding of
//! immediates, the kernel classes at the OOPs GemStone 3.7 gives them (clients
//! compute those themselves), and every other heap object as an object id
//! above GemStone's reserved range.
//!
//! The embedded stone holds every double inline; GemStone's SmallDouble bit
//! layout is not published, so a double travels as a boxed object id that
//! this map remembers (its class answers SmallDouble or Float as the stone
//! says) and that `GciTsOopToDouble` reads back.

use gsmcp_gci_abi::{self as abi, OopType};
use gsmcp_smalltalk::{Object, Session};
use std::collections::HashMap;

/// Object ids of heap objects start here (above every reserved kernel OOP).
const REF_BASE: u64 = 1 << 20;
/// Object ids of boxed doubles start here.
const DOUBLE_BASE: u64 = 1 << 44;

#[derive(Default)]
pub struct OopMap {
    /// heap index of a kernel class -> its GemStone OOP, and back
    kernel: HashMap<u64, OopType>,
    kernel_back: HashMap<OopType, u64>,
    doubles: Vec<f64>,
    double_ids: HashMap<u64, u64>,
}

impl OopMap {
    /// Learns where this session's kernel classes are.
    pub fn new(session: &mut Session) -> OopMap {
        let mut map = OopMap::default();
        for &(name, oop) in abi::KERNEL_CLASS_OOPS {
            if let Ok(Some(obj @ Object::Ref(i))) = session.resolve(name) {
                session.release(obj);
                if matches!(session.class_name_of(obj), Ok(Some(_))) {
                    map.kernel.insert(i, oop);
                    map.kernel_back.insert(oop, i);
                }
            }
        }
        map
    }

    pub fn encode(&mut self, o: Object) -> OopType {
        match o {
            Object::Nil => abi::OOP_NIL,
            Object::True => abi::OOP_TRUE,
            Object::False => abi::OOP_FALSE,
            Object::SmallInteger(n) => abi::small_int_oop(n).unwrap_or(abi::OOP_ILLEGAL),
            Object::Character(c) => abi::char_oop(c).unwrap_or(abi::OOP_ILLEGAL),
            Object::Double(f) => {
                let bits = f.to_bits();
                let n = match self.double_ids.get(&bits) {
                    Some(&n) => n,
                    None => {
                        let n = self.doubles.len() as u64;
                        self.doubles.push(f);
                        self.double_ids.insert(bits, n);
                        n
                    }
                };
                abi::objid_oop(DOUBLE_BASE + n)
            }
            Object::Ref(i) => match self.kernel.get(&i) {
                Some(&oop) => oop,
                None => abi::objid_oop(REF_BASE + i),
            },
        }
    }

    /// The object `oop` names, or `None` when it names nothing this session has.
    pub fn decode(&self, oop: OopType) -> Option<Object> {
        match oop {
            abi::OOP_NIL | abi::OOP_REMOTE_NIL => return Some(Object::Nil),
            abi::OOP_TRUE => return Some(Object::True),
            abi::OOP_FALSE => return Some(Object::False),
            _ => {}
        }
        if let Some(n) = abi::small_int_value(oop) {
            return Some(Object::SmallInteger(n));
        }
        if let Some(c) = abi::char_value(oop) {
            return Some(Object::Character(c));
        }
        let id = abi::oop_objid(oop)?;
        if id >= DOUBLE_BASE {
            return self
                .doubles
                .get((id - DOUBLE_BASE) as usize)
                .map(|&f| Object::Double(f));
        }
        if id >= REF_BASE {
            return Some(Object::Ref(id - REF_BASE));
        }
        self.kernel_back.get(&oop).map(|&i| Object::Ref(i))
    }
}
