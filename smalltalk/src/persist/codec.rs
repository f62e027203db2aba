//! The byte encoding of one object record (format 1) and of the repository's
//! root records. A record names other objects by repository OOP only; this
//! module knows neither the heap's OOPs nor the store: `image` translates.
//! Decoding untrusted bytes never panics: every failure is a [`CodecError`].

use num_bigint::BigInt;

/// First byte of every object record.
pub const RECORD_FORMAT: u8 = 1;

/// Why a record could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("undecodable record: {0}")]
pub struct CodecError(pub String);

type Result<T> = std::result::Result<T, CodecError>;

/// A value as stored: immediates inline, objects by repository OOP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SVal {
    Nil,
    True,
    False,
    Int(i64),
    Char(u32),
    Float(f64),
    Ref(u64),
}

/// A class or metaclass as stored; mirrors `heap::ClassData` field by field.
#[derive(Debug, Clone, PartialEq)]
pub struct SClass {
    pub name: u64,
    pub superclass: Option<u64>,
    pub is_meta: bool,
    pub this_class: u64,
    pub format: u8,
    pub ivar_names: Vec<u64>,
    pub inst_size: u64,
    /// (selector, method object), sorted by selector for a stable encoding.
    pub methods: Vec<(u64, u64)>,
    /// (selector, category symbol), sorted by selector.
    pub categories: Vec<(u64, u64)>,
    pub class_vars: Vec<(u64, u64)>,
    pub pools: Vec<SVal>,
    pub comment: SVal,
    pub category: SVal,
    pub subclasses: Vec<u64>,
    pub slots: Vec<SVal>,
    pub history: Vec<u64>,
    pub options: Vec<u64>,
    pub dictionary: SVal,
}

/// The body of a stored object.
#[derive(Debug, Clone, PartialEq)]
pub enum SBody {
    Ptr(Vec<SVal>),
    Bytes(Vec<u8>),
    Wide(Vec<u32>),
    /// Two's-complement little-endian bytes.
    Big(Vec<u8>),
    /// (key, association) pairs of a SymbolDictionary.
    Dict(Vec<(SVal, u64)>),
    Class(Box<SClass>),
    /// A compiled method is stored as its source and recompiled on load.
    Method {
        class: u64,
        selector: u64,
        category: SVal,
        source: String,
    },
    /// A Symbol (or wide Symbol): interned on load, never duplicated.
    Symbol(String),
}

/// One stored object.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub class: u64,
    pub invariant: bool,
    pub body: SBody,
}

mod kind {
    pub const PTR: u8 = 1;
    pub const BYTES: u8 = 2;
    pub const WIDE: u8 = 3;
    pub const BIG: u8 = 4;
    pub const DICT: u8 = 5;
    pub const CLASS: u8 = 6;
    pub const METHOD: u8 = 7;
    pub const SYMBOL: u8 = 8;
}

/// Whether `data` is a method's record (format and kind bytes only; a record
/// too short to tell is not, and fails to decode later).
pub fn is_method_record(data: &[u8]) -> bool {
    data.len() > 1 && data[0] == RECORD_FORMAT && data[1] == kind::METHOD
}

/// Appends primitive items to a byte buffer.
#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, b: u8) {
        self.buf.push(b);
    }
    pub fn uv(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(b);
                return;
            }
            self.buf.push(b | 0x80);
        }
    }
    pub fn iv(&mut self, v: i64) {
        self.uv(((v << 1) ^ (v >> 63)) as u64);
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.uv(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    pub fn val(&mut self, v: SVal) {
        match v {
            SVal::Nil => self.u8(0),
            SVal::True => self.u8(1),
            SVal::False => self.u8(2),
            SVal::Int(i) => {
                self.u8(3);
                self.iv(i)
            }
            SVal::Char(c) => {
                self.u8(4);
                self.uv(c as u64)
            }
            SVal::Float(f) => {
                self.u8(5);
                self.buf.extend_from_slice(&f.to_bits().to_le_bytes())
            }
            SVal::Ref(o) => {
                self.u8(6);
                self.uv(o)
            }
        }
    }
    pub fn vals(&mut self, vs: &[SVal]) {
        self.uv(vs.len() as u64);
        vs.iter().for_each(|&v| self.val(v));
    }
    pub fn oops(&mut self, os: &[u64]) {
        self.uv(os.len() as u64);
        os.iter().for_each(|&o| self.uv(o));
    }
    pub fn pairs(&mut self, ps: &[(u64, u64)]) {
        self.uv(ps.len() as u64);
        for &(a, b) in ps {
            self.uv(a);
            self.uv(b);
        }
    }
}

/// Reads primitive items, failing (never panicking) on truncated or bad input.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0 }
    }
    fn err<T>(&self, what: &str) -> Result<T> {
        Err(CodecError(format!("{what} at byte {}", self.pos)))
    }
    pub fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }
    pub fn u8(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => self.err("truncated"),
        }
    }
    #[inline]
    pub fn uv(&mut self) -> Result<u64> {
        let mut v: u64 = 0;
        let mut shift = 0;
        while let Some(&b) = self.data.get(self.pos) {
            self.pos += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
            if shift > 63 {
                return self.err("varint too long");
            }
        }
        self.err("truncated")
    }
    pub fn iv(&mut self) -> Result<i64> {
        let u = self.uv()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }
    /// A length, checked against what is left so a bad length cannot allocate wildly.
    pub fn len(&mut self, item_min_bytes: usize) -> Result<usize> {
        let n = self.uv()?;
        let left = (self.data.len() - self.pos) as u64;
        if n.saturating_mul(item_min_bytes.max(1) as u64) > left {
            return self.err("length beyond the record");
        }
        Ok(n as usize)
    }
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.len(1)?;
        let b = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }
    pub fn str(&mut self) -> Result<String> {
        let b = self.bytes()?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => self.err("invalid UTF-8"),
        }
    }
    pub fn val(&mut self) -> Result<SVal> {
        Ok(match self.u8()? {
            0 => SVal::Nil,
            1 => SVal::True,
            2 => SVal::False,
            3 => SVal::Int(self.iv()?),
            4 => {
                let c = self.uv()?;
                if c > u32::MAX as u64 {
                    return self.err("character out of range");
                }
                SVal::Char(c as u32)
            }
            5 => {
                if self.data.len() - self.pos < 8 {
                    return self.err("truncated float");
                }
                let mut b = [0u8; 8];
                b.copy_from_slice(&self.data[self.pos..self.pos + 8]);
                self.pos += 8;
                SVal::Float(f64::from_bits(u64::from_le_bytes(b)))
            }
            6 => SVal::Ref(self.oop()?),
            t => return self.err(&format!("unknown value tag {t}")),
        })
    }
    pub fn oop(&mut self) -> Result<u64> {
        let o = self.uv()?;
        if o == 0 {
            return self.err("OOP 0");
        }
        Ok(o)
    }
    // (`len` bounds n by the bytes left, so the capacities are safe)
    pub fn vals(&mut self) -> Result<Vec<SVal>> {
        let n = self.len(1)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.val()?);
        }
        Ok(v)
    }
    pub fn oops(&mut self) -> Result<Vec<u64>> {
        let n = self.len(1)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.oop()?);
        }
        Ok(v)
    }
    pub fn pairs(&mut self) -> Result<Vec<(u64, u64)>> {
        let n = self.len(2)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push((self.oop()?, self.oop()?));
        }
        Ok(v)
    }
}

impl Record {
    /// Every repository OOP this record names, in no particular order and
    /// possibly repeated: what the repository's garbage collection follows.
    /// Written so that a new field of a stored class breaks the build here.
    pub fn references(&self) -> Vec<u64> {
        let mut out = vec![self.class];
        let val = |out: &mut Vec<u64>, v: &SVal| {
            if let SVal::Ref(o) = v {
                out.push(*o);
            }
        };
        match &self.body {
            SBody::Ptr(vs) => vs.iter().for_each(|v| val(&mut out, v)),
            SBody::Bytes(_) | SBody::Wide(_) | SBody::Big(_) | SBody::Symbol(_) => {}
            SBody::Dict(es) => {
                for (k, a) in es {
                    val(&mut out, k);
                    out.push(*a);
                }
            }
            SBody::Class(c) => {
                let SClass {
                    name,
                    superclass,
                    is_meta: _,
                    this_class,
                    format: _,
                    ivar_names,
                    inst_size: _,
                    methods,
                    categories,
                    class_vars,
                    pools,
                    comment,
                    category,
                    subclasses,
                    slots,
                    history,
                    options,
                    dictionary,
                } = &**c;
                out.push(*name);
                out.extend(*superclass);
                out.push(*this_class);
                out.extend(ivar_names);
                for pairs in [methods, categories, class_vars] {
                    out.extend(pairs.iter().flat_map(|&(a, b)| [a, b]));
                }
                for v in pools
                    .iter()
                    .chain(slots)
                    .chain([comment, category, dictionary])
                {
                    val(&mut out, v);
                }
                out.extend(subclasses.iter().chain(history).chain(options));
            }
            SBody::Method {
                class,
                selector,
                category,
                source: _,
            } => {
                out.extend([*class, *selector]);
                val(&mut out, category);
            }
        }
        out.retain(|&o| o != 0);
        out
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(RECORD_FORMAT);
        let k = match &self.body {
            SBody::Ptr(_) => kind::PTR,
            SBody::Bytes(_) => kind::BYTES,
            SBody::Wide(_) => kind::WIDE,
            SBody::Big(_) => kind::BIG,
            SBody::Dict(_) => kind::DICT,
            SBody::Class(_) => kind::CLASS,
            SBody::Method { .. } => kind::METHOD,
            SBody::Symbol(_) => kind::SYMBOL,
        };
        w.u8(k);
        w.uv(self.class);
        w.u8(self.invariant as u8);
        match &self.body {
            SBody::Ptr(vs) => w.vals(vs),
            SBody::Bytes(b) | SBody::Big(b) => w.bytes(b),
            SBody::Wide(cs) => {
                w.uv(cs.len() as u64);
                cs.iter().for_each(|&c| w.uv(c as u64));
            }
            SBody::Dict(es) => {
                w.uv(es.len() as u64);
                for &(k, a) in es {
                    w.val(k);
                    w.uv(a);
                }
            }
            SBody::Class(c) => {
                w.uv(c.name);
                w.uv(c.superclass.unwrap_or(0));
                w.u8(c.is_meta as u8);
                w.uv(c.this_class);
                w.u8(c.format);
                w.oops(&c.ivar_names);
                w.uv(c.inst_size);
                w.pairs(&c.methods);
                w.pairs(&c.categories);
                w.pairs(&c.class_vars);
                w.vals(&c.pools);
                w.val(c.comment);
                w.val(c.category);
                w.oops(&c.subclasses);
                w.vals(&c.slots);
                w.oops(&c.history);
                w.oops(&c.options);
                w.val(c.dictionary);
            }
            SBody::Method {
                class,
                selector,
                category,
                source,
            } => {
                w.uv(*class);
                w.uv(*selector);
                w.val(*category);
                w.str(source);
            }
            SBody::Symbol(s) => w.str(s),
        }
        w.buf
    }

    pub fn decode(data: &[u8]) -> Result<Record> {
        let mut r = Reader::new(data);
        let f = r.u8()?;
        if f != RECORD_FORMAT {
            return Err(CodecError(format!(
                "record format {f}, this build reads {RECORD_FORMAT}"
            )));
        }
        let k = r.u8()?;
        let class = r.oop()?;
        let invariant = r.u8()? != 0;
        let body = match k {
            kind::PTR => SBody::Ptr(r.vals()?),
            kind::BYTES => SBody::Bytes(r.bytes()?.to_vec()),
            kind::BIG => SBody::Big(r.bytes()?.to_vec()),
            kind::WIDE => {
                let n = r.len(1)?;
                let mut cs = Vec::with_capacity(n);
                for _ in 0..n {
                    let c = r.uv()?;
                    if c > u32::MAX as u64 {
                        return Err(CodecError("code point out of range".into()));
                    }
                    cs.push(c as u32);
                }
                SBody::Wide(cs)
            }
            kind::DICT => {
                let n = r.len(2)?;
                let mut es = Vec::with_capacity(n);
                for _ in 0..n {
                    es.push((r.val()?, r.oop()?));
                }
                SBody::Dict(es)
            }
            kind::CLASS => {
                let name = r.oop()?;
                let superclass = match r.uv()? {
                    0 => None,
                    s => Some(s),
                };
                SBody::Class(Box::new(SClass {
                    name,
                    superclass,
                    is_meta: r.u8()? != 0,
                    this_class: r.oop()?,
                    format: r.u8()?,
                    ivar_names: r.oops()?,
                    inst_size: r.uv()?,
                    methods: r.pairs()?,
                    categories: r.pairs()?,
                    class_vars: r.pairs()?,
                    pools: r.vals()?,
                    comment: r.val()?,
                    category: r.val()?,
                    subclasses: r.oops()?,
                    slots: r.vals()?,
                    history: r.oops()?,
                    options: r.oops()?,
                    dictionary: r.val()?,
                }))
            }
            kind::METHOD => SBody::Method {
                class: r.oop()?,
                selector: r.oop()?,
                category: r.val()?,
                source: r.str()?,
            },
            kind::SYMBOL => SBody::Symbol(r.str()?),
            k => return Err(CodecError(format!("unknown object kind {k}"))),
        };
        if !r.at_end() {
            return Err(CodecError("trailing bytes".into()));
        }
        Ok(Record {
            class,
            invariant,
            body,
        })
    }
}

/// Signed little-endian bytes of a LargeInteger.
pub fn big_to_bytes(b: &BigInt) -> Vec<u8> {
    b.to_signed_bytes_le()
}

/// The LargeInteger of [`big_to_bytes`].
pub fn big_from_bytes(b: &[u8]) -> BigInt {
    BigInt::from_signed_bytes_le(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(r: Record) {
        let bytes = r.encode();
        assert_eq!(Record::decode(&bytes), Ok(r.clone()));
        // every strict prefix is refused, never a panic
        for n in 0..bytes.len() {
            assert!(
                Record::decode(&bytes[..n]).is_err(),
                "prefix {n} of {r:?} decoded"
            );
        }
    }

    /// One record of every kind, with every field set.
    fn samples() -> Vec<Record> {
        let vals = vec![
            SVal::Nil,
            SVal::True,
            SVal::False,
            SVal::Int(-(1 << 60)),
            SVal::Int(1 << 59),
            SVal::Char(0x1F600),
            SVal::Float(-0.5),
            SVal::Ref(1 << 40),
        ];
        vec![
            Record {
                class: 5,
                invariant: false,
                body: SBody::Ptr(vals.clone()),
            },
            Record {
                class: 6,
                invariant: true,
                body: SBody::Bytes(b"hello".to_vec()),
            },
            Record {
                class: 7,
                invariant: false,
                body: SBody::Wide(vec![0x263A, 0x10FFFF]),
            },
            Record {
                class: 8,
                invariant: false,
                body: SBody::Big(big_to_bytes(&(BigInt::from(-7) << 100))),
            },
            Record {
                class: 9,
                invariant: false,
                body: SBody::Dict(vec![(SVal::Ref(11), 12), (SVal::Int(3), 13)]),
            },
            Record {
                class: 10,
                invariant: true,
                body: SBody::Symbol("at:put:".into()),
            },
            Record {
                class: 11,
                invariant: false,
                body: SBody::Method {
                    class: 3,
                    selector: 4,
                    category: SVal::Ref(5),
                    source: "foo ^ 'é'".into(),
                },
            },
            Record {
                class: 12,
                invariant: false,
                body: SBody::Class(Box::new(SClass {
                    name: 1,
                    superclass: Some(2),
                    is_meta: false,
                    this_class: 3,
                    format: 1,
                    ivar_names: vec![4, 5],
                    inst_size: 2,
                    methods: vec![(6, 7)],
                    categories: vec![(6, 8)],
                    class_vars: vec![(9, 10)],
                    pools: vals.clone(),
                    comment: SVal::Ref(11),
                    category: SVal::Nil,
                    subclasses: vec![12],
                    slots: vec![SVal::Int(1)],
                    history: vec![3],
                    options: vec![],
                    dictionary: SVal::Ref(13),
                })),
            },
        ]
    }

    #[test]
    fn records_round_trip_and_prefixes_fail() {
        let cases = samples();
        for r in cases {
            roundtrip(r);
        }
        assert_eq!(
            big_from_bytes(&big_to_bytes(&(BigInt::from(-7) << 100))),
            BigInt::from(-7) << 100
        );
    }

    #[test]
    fn references_name_every_oop_a_record_holds() {
        let big = 1u64 << 40;
        let want: [&[u64]; 8] = [
            &[5, big],
            &[6],
            &[7],
            &[8],
            &[9, 11, 12, 13],
            &[10],
            &[11, 3, 4, 5],
            &[12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, big, 11, 13],
        ];
        for (r, want) in samples().iter().zip(want) {
            let got: std::collections::BTreeSet<u64> = r.references().into_iter().collect();
            let want: std::collections::BTreeSet<u64> = want.iter().copied().collect();
            assert_eq!(got, want, "{r:?}");
        }
    }

    #[test]
    fn garbage_is_an_error() {
        for bad in [
            &[][..],
            &[2, 1, 1, 0][..],
            &[1, 99, 1, 0][..],
            &[1, 1, 0, 0, 0][..],
            &[1, 2, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f][..],
            &[1, 1, 1, 0, 0, 0][..],
        ] {
            assert!(Record::decode(bad).is_err(), "{bad:?} decoded");
        }
    }
}
