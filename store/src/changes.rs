//! Write sets: the sorted OOP list each commit records, and the changed set a
//! view move answers.
//!
//! This module owns the on-disk encoding of a commit's write list (a count, then
//! the ascending OOPs as LEB128 deltas) and the merge of several lists into one
//! [`ChangedSet`]. It must not touch SQLite: callers hand it bytes and get bytes
//! or typed errors back, so a damaged blob is a `Corrupt` error, never a panic.

use crate::error::StoreError;

/// The objects written by commits between two views, sorted and unique.
///
/// Answered by `abort`, `continue_view` and `commit`: the caller refreshes exactly
/// these objects, so the cost of moving a view follows what changed, not the size
/// of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangedSet {
    from: u64,
    to: u64,
    oops: Vec<u64>,
}

impl ChangedSet {
    pub(crate) fn new(from: u64, to: u64, oops: Vec<u64>) -> Self {
        debug_assert!(oops.windows(2).all(|w| w[0] < w[1]));
        ChangedSet { from, to, oops }
    }

    /// The view the session had before the move.
    pub fn from_view(&self) -> u64 {
        self.from
    }

    /// The view the session has after the move.
    pub fn to_view(&self) -> u64 {
        self.to
    }

    /// The changed OOPs, ascending.
    pub fn oops(&self) -> &[u64] {
        &self.oops
    }

    /// Consume the set, keeping the sorted OOP list.
    pub fn into_oops(self) -> Vec<u64> {
        self.oops
    }

    /// How many objects changed.
    pub fn len(&self) -> usize {
        self.oops.len()
    }

    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.oops.is_empty()
    }

    /// Whether `oop` was written between the two views.
    pub fn contains(&self, oop: u64) -> bool {
        self.oops.binary_search(&oop).is_ok()
    }
}

/// Encode an ascending, duplicate-free OOP list.
pub(crate) fn encode_oops(oops: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(oops.len() * 2 + 4);
    put_varint(&mut out, oops.len() as u64);
    let mut prev = 0u64;
    for &oop in oops {
        put_varint(&mut out, oop - prev);
        prev = oop;
    }
    out
}

/// Decode a list written by [`encode_oops`], appending to `into`.
pub(crate) fn decode_oops_into(bytes: &[u8], into: &mut Vec<u64>) -> Result<(), StoreError> {
    let mut pos = 0usize;
    let count = get_varint(bytes, &mut pos)?;
    // Every entry takes at least one byte, so a count larger than what remains is
    // damage; checking first keeps a bad count from reserving a huge vector.
    if count > (bytes.len() - pos) as u64 {
        return Err(corrupt("write list count exceeds its length"));
    }
    into.reserve(count as usize);
    let mut prev = 0u64;
    for _ in 0..count {
        let delta = get_varint(bytes, &mut pos)?;
        if delta == 0 {
            return Err(corrupt("write list is not strictly ascending"));
        }
        prev = prev
            .checked_add(delta)
            .ok_or_else(|| corrupt("write list OOP overflows"))?;
        into.push(prev);
    }
    if pos != bytes.len() {
        return Err(corrupt("write list has trailing bytes"));
    }
    Ok(())
}

/// Decode one list.
#[cfg(test)]
pub(crate) fn decode_oops(bytes: &[u8]) -> Result<Vec<u64>, StoreError> {
    let mut v = Vec::new();
    decode_oops_into(bytes, &mut v)?;
    Ok(v)
}

/// Merge several commits' write lists into one changed set.
pub(crate) fn merge(from: u64, to: u64, lists: Vec<Vec<u64>>) -> ChangedSet {
    let mut lists = lists;
    let oops = match lists.len() {
        0 => Vec::new(),
        1 => lists.pop().unwrap_or_default(),
        _ => {
            let mut all: Vec<u64> = lists.into_iter().flatten().collect();
            all.sort_unstable();
            all.dedup();
            all
        }
    };
    ChangedSet::new(from, to, oops)
}

fn corrupt(detail: &str) -> StoreError {
    StoreError::Corrupt {
        detail: detail.to_string(),
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn get_varint(bytes: &[u8], pos: &mut usize) -> Result<u64, StoreError> {
    let mut value = 0u64;
    let mut shift = 0u32;
    loop {
        let byte = *bytes
            .get(*pos)
            .ok_or_else(|| corrupt("write list is truncated"))?;
        *pos += 1;
        let bits = u64::from(byte & 0x7f);
        if shift >= 64 || (shift == 63 && bits > 1) {
            return Err(corrupt("write list varint overflows"));
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let cases: &[&[u64]] = &[
            &[],
            &[1],
            &[1, 2, 3],
            &[1023, 1024, 5000, 1 << 40, (1 << 63) - 1, u64::MAX],
        ];
        for case in cases {
            let bytes = encode_oops(case);
            assert_eq!(decode_oops(&bytes).unwrap(), case.to_vec(), "case {case:?}");
        }
    }

    #[test]
    fn damaged_lists_are_corrupt_not_panics() {
        let cases: &[(&[u8], &str)] = &[
            (&[], "truncated"),
            (&[2, 1], "exceeds"),
            (&[2, 1, 0x81], "truncated"),
            (&[200], "truncated"),
            (&[0xff; 12], "overflows"),
            (&[2, 1, 0], "ascending"),
            (&[1, 0], "ascending"),
            (&[1, 5, 9], "trailing"),
            (&[0x80, 0x80, 0x80, 0x80, 0x01], "exceeds"),
        ];
        for (bytes, want) in cases {
            match decode_oops(bytes) {
                Err(StoreError::Corrupt { detail }) => {
                    assert!(detail.contains(want), "{bytes:?}: {detail} lacks {want}")
                }
                other => panic!("{bytes:?}: expected Corrupt, got {other:?}"),
            }
        }
    }

    #[test]
    fn merge_sorts_and_dedups() {
        let set = merge(3, 7, vec![vec![5, 9], vec![1, 5, 12], vec![9]]);
        assert_eq!(set.oops(), &[1, 5, 9, 12]);
        assert_eq!((set.from_view(), set.to_view()), (3, 7));
        assert!(set.contains(12) && !set.contains(2));
        assert!(merge(1, 1, vec![]).is_empty());
    }
}
