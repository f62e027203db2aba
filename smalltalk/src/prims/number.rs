//! The number primitives (100..=159): SmallInteger, LargeInteger, Float,
//! Fraction and ScaledDecimal arithmetic, comparison, conversion and printing,
//! over the numeric tower of `interp::num`. A receiver or argument of the
//! wrong kind fails the primitive (the Smalltalk fallback coerces or
//! signals); division by zero signals ZeroDivide.
// the primitive arms are `extern "C-unwind"` so that they answer in two
// registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::object::primitives::*;
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::interp::num::{self, Num, NumErr, Op};
use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::known::exc;
use crate::object::value::Value;

impl Vm {
    pub(super) extern "C-unwind" fn prim_number(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        // SmallInteger fast paths: no big-integer arithmetic for the common cases
        if let Value::Int(x) = r {
            let y = if argc >= 1 {
                self.arg(rp, 0)
            } else {
                Value::Nil
            };
            let fast = match (n, y) {
                (NUMBER_ADD, Value::Int(y)) => Value::small_int(x + y),
                (NUMBER_SUBTRACT, Value::Int(y)) => Value::small_int(x - y),
                (NUMBER_MULTIPLY, Value::Int(y)) => x.checked_mul(y).and_then(Value::small_int),
                (NUMBER_INTEGER_DIVIDE, Value::Int(y)) if y != 0 => {
                    Some(Value::Int(crate::interp::floor_div(x, y)))
                }
                (NUMBER_MODULO, Value::Int(y)) if y != 0 => Some(Value::Int(
                    x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 },
                )),
                (NUMBER_QUO, Value::Int(y)) if y != 0 => Some(Value::Int(x / y)),
                (NUMBER_REM, Value::Int(y)) if y != 0 => Some(Value::Int(x % y)),
                (NUMBER_LESS, Value::Int(y)) => Some(Value::bool(x < y)),
                (NUMBER_GREATER, Value::Int(y)) => Some(Value::bool(x > y)),
                (NUMBER_LESS_OR_EQUAL, Value::Int(y)) => Some(Value::bool(x <= y)),
                (NUMBER_GREATER_OR_EQUAL, Value::Int(y)) => Some(Value::bool(x >= y)),
                (NUMBER_EQUAL, Value::Int(y)) => Some(Value::bool(x == y)),
                (NUMBER_NOT_EQUAL, Value::Int(y)) => Some(Value::bool(x != y)),
                (NUMBER_HASH, _) => Some(Value::Int(x)),
                (NUMBER_NEGATED, _) => Value::small_int(-x),
                (NUMBER_ABS, _) => Value::small_int(x.abs()),
                (NUMBER_AS_FLOAT, _) => Some(Value::Float(x as f64)),
                (
                    NUMBER_TRUNCATED | NUMBER_ROUNDED | NUMBER_FLOOR | NUMBER_CEILING
                    | NUMBER_AS_INTEGER,
                    _,
                ) => Some(r),
                (INTEGER_BIT_AND, Value::Int(y)) => Some(Value::Int(x & y)),
                (INTEGER_BIT_OR, Value::Int(y)) => Some(Value::Int(x | y)),
                (INTEGER_BIT_XOR, Value::Int(y)) => Some(Value::Int(x ^ y)),
                (NUMBER_IS_ZERO, _) => Some(Value::bool(x == 0)),
                (NUMBER_SIGN, _) => Some(Value::Int(x.signum())),
                (NUMBER_NEGATIVE, _) => Some(Value::bool(x < 0)),
                (INTEGER_EVEN, _) => Some(Value::bool(x % 2 == 0)),
                (NUMBER_PRINT_STRING | NUMBER_PRINT_STRING_HELPER, _) => {
                    return Ok(Some(self.small_int_string(x)))
                }
                _ => None,
            };
            if fast.is_some() {
                return Ok(fast);
            }
        }
        let Some(a) = self.to_num(r) else {
            return Ok(None);
        };
        let b = if argc >= 1 {
            self.to_num(self.arg(rp, 0))
        } else {
            None
        };
        macro_rules! bin {
            ($op:expr) => {{
                let Some(b) = b else { return Ok(None) };
                let res = num::arith($op, &a, &b);
                return self.num_result(r, res);
            }};
        }
        macro_rules! cmp {
            ($f:expr) => {{
                let Some(b) = b else { return Ok(None) };
                return Ok(num::compare(&a, &b)
                    .map(|o| Value::bool($f(o)))
                    .or(Some(Value::False)));
            }};
        }
        use std::cmp::Ordering::*;
        let int = match &a {
            Num::I(i) => Some(i.clone()),
            _ => None,
        };
        let bint = match &b {
            Some(Num::I(i)) => Some(i.clone()),
            _ => None,
        };
        match n {
            NUMBER_ADD => bin!(Op::Add),
            NUMBER_SUBTRACT => bin!(Op::Sub),
            NUMBER_MULTIPLY => bin!(Op::Mul),
            NUMBER_DIVIDE => bin!(Op::Div),
            NUMBER_INTEGER_DIVIDE => bin!(Op::IntDiv),
            NUMBER_MODULO => bin!(Op::Mod),
            NUMBER_QUO => bin!(Op::Quo),
            NUMBER_REM => bin!(Op::Rem),
            NUMBER_LESS => cmp!(|o| o == Less),
            NUMBER_GREATER => cmp!(|o| o == Greater),
            NUMBER_LESS_OR_EQUAL => cmp!(|o| o != Greater),
            NUMBER_GREATER_OR_EQUAL => cmp!(|o| o != Less),
            NUMBER_EQUAL => {
                let Some(b) = b else {
                    return Ok(Some(Value::False));
                };
                Ok(Some(Value::bool(num::compare(&a, &b) == Some(Equal))))
            }
            NUMBER_NOT_EQUAL => {
                let Some(b) = b else {
                    return Ok(Some(Value::True));
                };
                Ok(Some(Value::bool(num::compare(&a, &b) != Some(Equal))))
            }
            NUMBER_HASH => Ok(Some(Value::Int(match &a {
                Num::F(f) if f.fract() == 0.0 && f.abs() < 1e18 => *f as i64 & ((1 << 60) - 1),
                Num::F(f) => (f.to_bits() >> 4) as i64 & ((1 << 60) - 1),
                other => match other.ratio() {
                    Some((n, d)) if d.is_one() => {
                        (&n & BigInt::from((1i64 << 60) - 1)).to_i64().unwrap_or(0)
                    }
                    Some((n, d)) => ((&n ^ &d) & BigInt::from((1i64 << 60) - 1))
                        .to_i64()
                        .unwrap_or(0),
                    None => 0,
                },
            }))),
            NUMBER_NEGATED => {
                let z = Num::I(BigInt::zero());
                let res = num::arith(Op::Sub, &z, &a);
                // keep the receiver's kind for floats and scaled decimals
                let res = match (&a, res) {
                    (Num::F(f), _) => Ok(Num::F(-f)),
                    (Num::Scaled(n, d, s), _) => Ok(Num::Scaled(-n, d.clone(), *s)),
                    (_, r) => r,
                };
                self.num_result(r, res)
            }
            NUMBER_ABS => {
                let res = match &a {
                    Num::F(f) => Num::F(f.abs()),
                    Num::I(i) => Num::I(i.abs()),
                    Num::Frac(n, d) => Num::Frac(n.abs(), d.clone()),
                    Num::Scaled(n, d, s) => Num::Scaled(n.abs(), d.clone(), *s),
                };
                self.num_result(r, Ok(res))
            }
            NUMBER_AS_FLOAT => Ok(Some(Value::Float(a.to_f64()))),
            NUMBER_TRUNCATED | NUMBER_AS_INTEGER | NUMBER_ROUNDED | NUMBER_FLOOR
            | NUMBER_CEILING => {
                let res = match &a {
                    Num::F(f) => {
                        let g = match n {
                            NUMBER_ROUNDED => f.round(),
                            NUMBER_FLOOR => f.floor(),
                            NUMBER_CEILING => f.ceil(),
                            _ => f.trunc(),
                        };
                        num::f_to_big(g).map(Num::I)
                    }
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        use num_integer::Integer;
                        Ok(Num::I(match n {
                            NUMBER_ROUNDED => {
                                let twice = &p * 2
                                    + if p.is_negative() {
                                        -q.clone()
                                    } else {
                                        q.clone()
                                    };
                                twice / (&q * 2)
                            }
                            NUMBER_FLOOR => p.div_floor(&q),
                            NUMBER_CEILING => -((-p).div_floor(&q)),
                            _ => p / q,
                        }))
                    }
                };
                self.num_result(r, res)
            }
            NUMBER_PRINT_STRING | NUMBER_PRINT_STRING_HELPER => {
                let s = self.num_print(&a);
                Ok(Some(self.new_string(&s)))
            }
            INTEGER_PRINT_STRING_RADIX => {
                let Some(i) = int else { return Ok(None) };
                let Value::Int(radix) = self.arg(rp, 0) else {
                    return Ok(None);
                };
                if !(2..=36).contains(&radix) {
                    return Ok(None);
                }
                let s = num::int_print_radix(&i, radix as u32);
                Ok(Some(self.new_string(&s)))
            }
            NUMBER_GCD | NUMBER_LCM => {
                let (Some(x), Some(y)) = (int, bint) else {
                    return Ok(None);
                };
                use num_integer::Integer;
                let v = if n == NUMBER_GCD {
                    x.gcd(&y)
                } else {
                    x.lcm(&y)
                };
                Ok(Some(self.small_or_big(v)))
            }
            INTEGER_BIT_AND | INTEGER_BIT_OR | INTEGER_BIT_XOR => {
                let (Some(x), Some(y)) = (int, bint) else {
                    return Ok(None);
                };
                let v = match n {
                    INTEGER_BIT_AND => x & y,
                    INTEGER_BIT_OR => x | y,
                    _ => x ^ y,
                };
                Ok(Some(self.small_or_big(v)))
            }
            INTEGER_BIT_SHIFT => {
                let (Some(x), Value::Int(s)) = (int, self.arg(rp, 0)) else {
                    return Ok(None);
                };
                if s > 100_000 {
                    return self
                        .signal_error(self.k.argument_error, "bitShift: amount too large")
                        .map(Some);
                }
                if s > 0 && x.bits() + s as u64 > num::MAX_INT_BITS {
                    return self.num_result(r, Err(num::TOO_LARGE));
                }
                let v = if s >= 0 {
                    x << (s as usize)
                } else {
                    x >> ((-s).min(1 << 20) as usize)
                };
                Ok(Some(self.small_or_big(v)))
            }
            NUMBER_SQRT => {
                if let Some(i) = &int {
                    if !i.is_negative() {
                        let s = i.sqrt();
                        if &(&s * &s) == i {
                            return Ok(Some(self.small_or_big(s)));
                        }
                    }
                }
                let f = a.to_f64();
                if f < 0.0 {
                    return self
                        .signal_error(self.k.argument_error, "sqrt of a negative number")
                        .map(Some);
                }
                Ok(Some(Value::Float(f.sqrt())))
            }
            NUMBER_RAISED_TO => {
                let Some(b) = b else { return Ok(None) };
                match (&a, &b) {
                    (_, Num::I(e)) if !matches!(a, Num::F(_)) => {
                        let Some(e) = e.to_i64() else { return Ok(None) };
                        if e.unsigned_abs() > u32::MAX as u64 {
                            return self
                                .signal_error(self.k.argument_error, "exponent too large")
                                .map(Some);
                        }
                        let (p, q) = a.ratio().unwrap();
                        if num::power_bits(&p).max(num::power_bits(&q)) * e.unsigned_abs() as f64
                            > num::MAX_INT_BITS as f64
                        {
                            return self.num_result(r, Err(num::TOO_LARGE));
                        }
                        let (p, q) = (
                            p.pow(e.unsigned_abs() as u32),
                            q.pow(e.unsigned_abs() as u32),
                        );
                        let res = if e >= 0 {
                            match &a {
                                Num::Scaled(_, _, s) => Ok(Num::Scaled(p, q, *s)),
                                _ => num::arith(Op::Div, &Num::I(p), &Num::I(q)),
                            }
                        } else {
                            num::arith(Op::Div, &Num::I(q), &Num::I(p))
                        };
                        self.num_result(r, res)
                    }
                    _ => Ok(Some(Value::Float(a.to_f64().powf(b.to_f64())))),
                }
            }
            INTEGER_FACTORIAL => {
                let Some(i) = int else { return Ok(None) };
                let Some(k) = i.to_u64() else {
                    return self
                        .signal_error(
                            self.k.argument_error,
                            "factorial of a negative or huge number",
                        )
                        .map(Some);
                };
                if k > 20_000 {
                    return self
                        .signal_error(self.k.argument_error, "factorial argument too large")
                        .map(Some);
                }
                let mut acc = BigInt::one();
                for j in 2..=k {
                    acc *= j;
                }
                Ok(Some(self.small_or_big(acc)))
            }
            NUMBER_AS_FRACTION => {
                let res = match &a {
                    Num::F(f) => float_to_fraction(*f),
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        Ok(Num::Frac(p, q))
                    }
                };
                self.num_result(r, res)
            }
            NUMBER_AS_SCALED_DECIMAL => {
                let Value::Int(s) = self.arg(rp, 0) else {
                    return Ok(None);
                };
                if !(0..=1000).contains(&s) {
                    return Ok(None);
                }
                let res = match &a {
                    Num::F(f) => float_to_fraction(*f).map(|fr| {
                        let (p, q) = fr.ratio().unwrap();
                        Num::Scaled(p, q, s as u32)
                    }),
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        Ok(Num::Scaled(p, q, s as u32))
                    }
                };
                self.num_result(r, res)
            }
            NUMBER_NUMERATOR | NUMBER_DENOMINATOR => {
                let Some((p, q)) = a.ratio() else {
                    return Ok(None);
                };
                Ok(Some(self.small_or_big(if n == NUMBER_NUMERATOR {
                    p
                } else {
                    q
                })))
            }
            NUMBER_LN..=NUMBER_LOG => {
                let x = a.to_f64();
                let v = match n {
                    NUMBER_LN => x.ln(),
                    NUMBER_EXP => x.exp(),
                    NUMBER_SIN => x.sin(),
                    NUMBER_COS => x.cos(),
                    NUMBER_TAN => x.tan(),
                    NUMBER_ARC_TAN => x.atan(),
                    _ => {
                        let Some(b) = b else { return Ok(None) };
                        x.ln() / b.to_f64().ln()
                    }
                };
                Ok(Some(Value::Float(v)))
            }
            NUMBER_IS_ZERO => Ok(Some(Value::bool(a.is_zero()))),
            NUMBER_SIGN => Ok(Some(Value::Int(if a.is_zero() {
                0
            } else if a.is_negative() {
                -1
            } else {
                1
            }))),
            INTEGER_HIGH_BIT => {
                let Some(i) = int else { return Ok(None) };
                Ok(Some(Value::Int(i.bits() as i64)))
            }
            INTEGER_AS_CHARACTER => {
                let Some(c) = int.and_then(|i| i.to_u32()) else {
                    return Ok(None);
                };
                if c > 0x10FFFF {
                    return Ok(None);
                }
                Ok(Some(Value::Char(c)))
            }
            SCALED_DECIMAL_SCALE => Ok(Some(Value::Int(match a {
                Num::Scaled(_, _, s) => s as i64,
                _ => 0,
            }))),
            NUMBER_ROUND_TO | NUMBER_TRUNCATE_TO => {
                let Some(b) = b else { return Ok(None) };
                let q = num::arith(Op::Div, &a, &b);
                let q = match q {
                    Ok(q) => q,
                    Err(e) => return self.num_result(r, Err(e)),
                };
                let qv = self.num_value(q);
                let sel = if n == NUMBER_ROUND_TO {
                    "rounded"
                } else {
                    "truncated"
                };
                let qi = self.send_str(qv, sel, &[])?;
                let bv = self.arg(rp, 0);
                Ok(Some(self.send_str(qi, "*", &[bv])?))
            }
            NUMBER_FRACTION_PART | NUMBER_INTEGER_PART => {
                let res = match &a {
                    Num::F(f) => Ok(Num::F(if n == NUMBER_FRACTION_PART {
                        f.fract()
                    } else {
                        f.trunc()
                    })),
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        let ip = &p / &q;
                        if n == NUMBER_INTEGER_PART {
                            Ok(match other {
                                Num::Scaled(_, _, s) => Num::Scaled(ip, BigInt::one(), *s),
                                _ => Num::I(ip),
                            })
                        } else {
                            num::arith(Op::Sub, other, &Num::I(ip))
                        }
                    }
                };
                self.num_result(r, res)
            }
            NUMBER_IS_NAN => Ok(Some(Value::bool(matches!(a, Num::F(f) if f.is_nan())))),
            FLOAT_IS_INFINITE => Ok(Some(Value::bool(matches!(a, Num::F(f) if f.is_infinite())))),
            NUMBER_NEGATIVE => Ok(Some(Value::bool(a.is_negative()))),
            NUMBER_SQUARED => {
                let res = num::arith(Op::Mul, &a, &a);
                self.num_result(r, res)
            }
            INTEGER_EVEN => {
                let Some(i) = int else { return Ok(None) };
                Ok(Some(Value::bool((&i % 2u32).is_zero())))
            }
            _ => Ok(None),
        }
    }

    fn zero_divide(&mut self, recv: Value) -> P {
        let text = format!("attempt to divide {} by zero", self.basic_print(recv, 0));
        let ex = self.new_exception(self.k.zero_divide, None, Some(&text));
        if let Value::Obj(o) = ex {
            let args = self.new_array(vec![recv]);
            self.heap.store(o, exc::ARGS, args);
        }
        self.signal(ex).map(Some)
    }

    fn num_result(&mut self, recv: Value, r: Result<Num, NumErr>) -> P {
        match r {
            Ok(n) => Ok(Some(self.num_value(n))),
            Err(NumErr::ZeroDivide) => self.zero_divide(recv),
            Err(NumErr::Domain(msg)) => self.signal_error(self.k.argument_error, msg).map(Some),
        }
    }

    pub(super) fn small_or_big(&mut self, i: BigInt) -> Value {
        self.int_value(&i)
    }

    /// `SmallInteger>>printString` (primitives 122, 148): a new String of its digits.
    #[inline(never)]
    pub(super) extern "C-unwind" fn small_int_string(&mut self, x: i64) -> Value {
        Value::Obj(self.heap.alloc(self.k.string, Body::Bytes(int_digits(x))))
    }
}

fn float_to_fraction(f: f64) -> Result<Num, NumErr> {
    if !f.is_finite() {
        return Err(NumErr::Domain(
            "cannot convert a non-finite Float to a Fraction",
        ));
    }
    let bits = f.to_bits();
    let neg = bits >> 63 != 0;
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = if exp == 0 {
        (bits & ((1 << 52) - 1)) << 1
    } else {
        (bits & ((1 << 52) - 1)) | (1 << 52)
    };
    let e = exp - 1075;
    let mut n = BigInt::from(mant);
    let mut d = BigInt::one();
    if e > 0 {
        n <<= e as usize;
    } else {
        d <<= (-e) as usize;
    }
    if neg {
        n = -n;
    }
    num::arith(Op::Div, &Num::I(n), &Num::I(d))
}

/// The decimal digits of a SmallInteger (with a leading `-`), as a String's
/// bytes: counted first, then written from the end into a vector of exactly
/// that length.
fn int_digits(x: i64) -> Vec<u8> {
    let mut m = x.unsigned_abs();
    let mut len = usize::from(x < 0) + 1;
    let mut rest = m;
    while rest >= 10 {
        rest /= 10;
        len += 1;
    }
    let mut v = vec![b'-'; len];
    for d in v.iter_mut().rev() {
        *d = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    v
}
