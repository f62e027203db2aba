//! The numeric tower: SmallInteger/LargeInteger, Fraction, ScaledDecimal and
//! Float arithmetic with GemStone's generality order, exact division, and the
//! printString forms. It owns number semantics only; primitives call into it.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::value::Value;

/// A number lifted out of the object memory.
#[derive(Debug, Clone)]
pub enum Num {
    I(BigInt),
    Frac(BigInt, BigInt),
    Scaled(BigInt, BigInt, u32),
    F(f64),
}

#[derive(Debug)]
pub enum NumErr {
    ZeroDivide,
    Domain(&'static str),
}

impl Num {
    fn rank(&self) -> u8 {
        match self {
            Num::I(_) => 0,
            Num::Frac(..) => 1,
            Num::Scaled(..) => 2,
            Num::F(_) => 3,
        }
    }
    pub fn to_f64(&self) -> f64 {
        match self {
            Num::I(i) => i.to_f64().unwrap_or(f64::NAN),
            Num::Frac(n, d) | Num::Scaled(n, d, _) => ratio_to_f64(n, d),
            Num::F(f) => *f,
        }
    }
    /// numerator/denominator for exact numbers.
    pub fn ratio(&self) -> Option<(BigInt, BigInt)> {
        match self {
            Num::I(i) => Some((i.clone(), BigInt::one())),
            Num::Frac(n, d) | Num::Scaled(n, d, _) => Some((n.clone(), d.clone())),
            Num::F(_) => None,
        }
    }
    fn scale(&self) -> u32 {
        match self {
            Num::Scaled(_, _, s) => *s,
            _ => 0,
        }
    }
    pub fn is_zero(&self) -> bool {
        match self {
            Num::I(i) => i.is_zero(),
            Num::Frac(n, _) | Num::Scaled(n, _, _) => n.is_zero(),
            Num::F(f) => *f == 0.0,
        }
    }
    pub fn is_negative(&self) -> bool {
        match self {
            Num::I(i) => i.is_negative(),
            Num::Frac(n, _) | Num::Scaled(n, _, _) => n.is_negative(),
            Num::F(f) => *f < 0.0,
        }
    }
}

pub fn ratio_to_f64(n: &BigInt, d: &BigInt) -> f64 {
    match (n.to_f64(), d.to_f64()) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() => a / b,
        _ => {
            // scale down huge values
            let shift = (n.bits().max(d.bits()) as i64 - 1000).max(0) as usize;
            let a = (n >> shift).to_f64().unwrap_or(0.0);
            let b = (d >> shift).to_f64().unwrap_or(1.0);
            a / b
        }
    }
}

fn norm(n: BigInt, d: BigInt) -> (BigInt, BigInt) {
    let g = n.gcd(&d);
    let (mut n, mut d) = if g.is_zero() || g.is_one() {
        (n, d)
    } else {
        (n / &g, d / &g)
    };
    if d.is_negative() {
        n = -n;
        d = -d;
    }
    (n, d)
}

/// Build a result of the given rank from a ratio.
fn exact(n: BigInt, d: BigInt, rank: u8, scale: u32) -> Num {
    let (n, d) = norm(n, d);
    if rank == 2 {
        return Num::Scaled(n, d, scale);
    }
    if d.is_one() {
        Num::I(n)
    } else {
        Num::Frac(n, d)
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    Quo,
    Rem,
}

/// The largest integer the engine computes, in bits (2^20: about 315,000
/// decimal digits). One multiplication of two numbers this size is a single
/// primitive that a break cannot interrupt, so a result past it is an error
/// (`ArgumentError`) rather than seconds or minutes of uninterruptible work.
pub const MAX_INT_BITS: u64 = 1 << 20;

/// The error for a result that would pass [`MAX_INT_BITS`].
pub const TOO_LARGE: NumErr =
    NumErr::Domain("the result would be an integer of more than 1048576 bits (2^20)");

/// log2 |n|: how many bits each factor of `n` adds to a power of it.
pub fn power_bits(n: &BigInt) -> f64 {
    match n.to_f64() {
        Some(f) if f.is_finite() && f != 0.0 => f.abs().log2(),
        Some(_) if n.is_zero() => 0.0,
        _ => n.bits() as f64,
    }
}

/// Bits of the exact parts of `n` (numerator and denominator), 0 for a float.
fn exact_bits(n: &Num) -> u64 {
    match n {
        Num::I(i) => i.bits(),
        Num::Frac(p, q) | Num::Scaled(p, q, _) => p.bits() + q.bits(),
        Num::F(_) => 0,
    }
}

pub fn arith(op: Op, a: &Num, b: &Num) -> Result<Num, NumErr> {
    let rank = a.rank().max(b.rank());
    let scale = a.scale().max(b.scale());
    if matches!(op, Op::Div | Op::IntDiv | Op::Mod | Op::Quo | Op::Rem) && b.is_zero() {
        return Err(NumErr::ZeroDivide);
    }
    // exact arithmetic multiplies the parts: bound the product's size first
    if rank != 3 && exact_bits(a) + exact_bits(b) > MAX_INT_BITS {
        return Err(TOO_LARGE);
    }
    if rank == 3 {
        let (x, y) = (a.to_f64(), b.to_f64());
        return Ok(match op {
            Op::Add => Num::F(x + y),
            Op::Sub => Num::F(x - y),
            Op::Mul => Num::F(x * y),
            Op::Div => Num::F(x / y),
            Op::IntDiv => Num::I(f_to_big((x / y).floor())?),
            Op::Mod => Num::F(x - (x / y).floor() * y),
            Op::Quo => Num::I(f_to_big((x / y).trunc())?),
            Op::Rem => Num::F(x - (x / y).trunc() * y),
        });
    }
    if rank == 0 {
        let (Num::I(x), Num::I(y)) = (a, b) else {
            unreachable_rank()
        };
        return Ok(match op {
            Op::Add => Num::I(x + y),
            Op::Sub => Num::I(x - y),
            Op::Mul => Num::I(x * y),
            Op::Div => exact(x.clone(), y.clone(), 0, 0),
            Op::IntDiv => Num::I(x.div_floor(y)),
            Op::Mod => Num::I(x.mod_floor(y)),
            Op::Quo => Num::I(x / y),
            Op::Rem => Num::I(x % y),
        });
    }
    let (an, ad) = a.ratio().unwrap();
    let (bn, bd) = b.ratio().unwrap();
    Ok(match op {
        Op::Add => exact(&an * &bd + &bn * &ad, &ad * &bd, rank, scale),
        Op::Sub => exact(&an * &bd - &bn * &ad, &ad * &bd, rank, scale),
        Op::Mul => exact(&an * &bn, &ad * &bd, rank, scale),
        Op::Div => exact(&an * &bd, &ad * &bn, rank, scale),
        Op::IntDiv | Op::Quo => {
            let (n, d) = (&an * &bd, &ad * &bn);
            Num::I(if op == Op::IntDiv {
                n.div_floor(&d)
            } else {
                n / d
            })
        }
        Op::Mod | Op::Rem => {
            let (n, d) = (&an * &bd, &ad * &bn);
            let q = if op == Op::Mod {
                n.div_floor(&d)
            } else {
                &n / &d
            };
            // a - q*b
            exact(&an * &bd - &q * &bn * &ad, &ad * &bd, rank, scale)
        }
    })
}

fn unreachable_rank() -> ! {
    unreachable!("rank 0 means both integers")
}

pub fn f_to_big(f: f64) -> Result<BigInt, NumErr> {
    if !f.is_finite() {
        return Err(NumErr::Domain(
            "cannot convert a non-finite Float to an Integer",
        ));
    }
    num_bigint::BigInt::from_f64(f).ok_or(NumErr::Domain("float out of range"))
}

use num_traits::FromPrimitive;

pub fn compare(a: &Num, b: &Num) -> Option<std::cmp::Ordering> {
    if a.rank() == 3 || b.rank() == 3 {
        return a.to_f64().partial_cmp(&b.to_f64());
    }
    let (an, ad) = a.ratio()?;
    let (bn, bd) = b.ratio()?;
    Some((an * bd).cmp(&(bn * ad)))
}

/// GemStone-style printString of a Float (see VM.md Decisions).
pub fn float_print(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "PlusInfinity".into()
        } else {
            "MinusInfinity".into()
        };
    }
    let a = f.abs();
    if a == 0.0 || (1e-4..1e16).contains(&a) {
        let s = format!("{f}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let s = format!("{f:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.to_string()
        } else {
            format!("{m}.0")
        };
        format!("{m}e{e}")
    }
}

pub fn int_print_radix(i: &BigInt, radix: u32) -> String {
    i.to_str_radix(radix).to_uppercase()
}

/// `1.50s2`: the value rounded to `scale` digits.
pub fn scaled_print(n: &BigInt, d: &BigInt, scale: u32) -> String {
    let p = BigInt::from(10).pow(scale);
    let num = n * &p;
    // round half away from zero
    let adj: BigInt = if num.is_negative() {
        -d.clone()
    } else {
        d.clone()
    };
    let twice: BigInt = (&num * 2 + adj) / (d * 2);
    let m = twice;
    let neg = m.is_negative();
    let digits = m.abs().to_string();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if scale == 0 {
        out.push_str(&digits);
    } else {
        let s = scale as usize;
        let padded = if digits.len() <= s {
            format!("{}{}", "0".repeat(s - digits.len() + 1), digits)
        } else {
            digits
        };
        let (ip, fp) = padded.split_at(padded.len() - s);
        out.push_str(ip);
        out.push('.');
        out.push_str(fp);
    }
    out.push('s');
    out.push_str(&scale.to_string());
    out
}

impl Vm {
    pub fn to_num(&self, v: Value) -> Option<Num> {
        match v {
            Value::Int(i) => Some(Num::I(BigInt::from(i))),
            Value::Float(f) => Some(Num::F(f)),
            Value::Obj(o) => {
                let obj = self.heap.get(o);
                match &obj.body {
                    Body::Big(b) => Some(Num::I((**b).clone())),
                    Body::Ptr(s) if obj.class == self.k.fraction => {
                        Some(Num::Frac(self.int_of(s.first()?)?, self.int_of(s.get(1)?)?))
                    }
                    Body::Ptr(s) if obj.class == self.k.scaled => {
                        let scale = match s.get(2)? {
                            Value::Int(i) if *i >= 0 => *i as u32,
                            _ => return None,
                        };
                        Some(Num::Scaled(
                            self.int_of(s.first()?)?,
                            self.int_of(s.get(1)?)?,
                            scale,
                        ))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub fn int_of(&self, v: &Value) -> Option<BigInt> {
        match v {
            Value::Int(i) => Some(BigInt::from(*i)),
            Value::Obj(o) => match &self.heap.get(*o).body {
                Body::Big(b) => Some((**b).clone()),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn num_value(&mut self, n: Num) -> Value {
        match n {
            Num::I(i) => self.int_value(&i),
            Num::F(f) => Value::Float(f),
            Num::Frac(n, d) => {
                let (n, d) = norm(n, d);
                if d.is_one() {
                    return self.int_value(&n);
                }
                let nv = self.int_value(&n);
                let dv = self.int_value(&d);
                self.new_object(self.k.fraction, vec![nv, dv])
            }
            Num::Scaled(n, d, s) => self.make_scaled(n, d, s),
        }
    }

    pub fn make_scaled(&mut self, n: BigInt, d: BigInt, scale: u32) -> Value {
        let (n, d) = norm(n, d);
        let nv = self.int_value(&n);
        let dv = self.int_value(&d);
        self.new_object(self.k.scaled, vec![nv, dv, Value::Int(scale as i64)])
    }

    /// printString of any number value.
    pub fn num_print(&self, n: &Num) -> String {
        match n {
            Num::I(i) => i.to_string(),
            Num::F(f) => float_print(*f),
            Num::Frac(n, d) => format!("{n}/{d}"),
            Num::Scaled(n, d, s) => scaled_print(n, d, *s),
        }
    }
}

impl Vm {
    /// An Integer value: SmallInteger when it fits, else a LargeInteger.
    pub fn int_value(&mut self, i: &BigInt) -> Value {
        if let Some(v) = i.to_i64().and_then(Value::small_int) {
            return v;
        }
        let class = if i.sign() == num_bigint::Sign::Minus {
            self.k.large_neg
        } else {
            self.k.large_pos
        };
        let o = self.heap.alloc(class, Body::Big(Box::new(i.clone())));
        self.heap.set_invariant(o);
        Value::Obj(o)
    }
}
