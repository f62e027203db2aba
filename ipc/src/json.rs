//! [`Json`]: a JSON value as a frame carries it, so that a message the router
//! has parsed crosses to the worker as a tree, never as text to parse again.
//!
//! It converts to and from `serde_json::Value` without loss (integers stay
//! integers, object keys keep their order). Decoding is bounded: a value nested
//! deeper than [`MAX_DEPTH`] is refused, so a broken or hostile frame cannot
//! exhaust the decoder's stack; the router never produces one, because its
//! parser refuses JSON nested more than 128 deep.

use bincode::de::{BorrowDecoder, Decoder};
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{BorrowDecode, Decode, Encode};
use serde_json::{Map, Number, Value};

/// The deepest nesting a decoded [`Json`] may have.
pub const MAX_DEPTH: usize = 160;

/// One JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// An integer above `i64::MAX`.
    UInt(u64),
    /// A number with a fraction or an exponent.
    Float(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// Members in the order the parser produced them.
    Object(Vec<(String, Json)>),
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Json::Int(i),
                (None, Some(u)) => Json::UInt(u),
                _ => Json::Float(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => Json::String(s),
            Value::Array(a) => Json::Array(a.into_iter().map(Json::from).collect()),
            Value::Object(m) => Json::Object(m.into_iter().map(|(k, v)| (k, v.into())).collect()),
        }
    }
}

impl From<Json> for Value {
    fn from(j: Json) -> Value {
        match j {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(b),
            Json::Int(i) => Value::from(i),
            Json::UInt(u) => Value::from(u),
            // A frame's floats came from parsed JSON, so they are finite.
            Json::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
            Json::String(s) => Value::String(s),
            Json::Array(a) => Value::Array(a.into_iter().map(Value::from).collect()),
            Json::Object(m) => Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k, v.into()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}

const NULL: u8 = 0;
const BOOL: u8 = 1;
const INT: u8 = 2;
const UINT: u8 = 3;
const FLOAT: u8 = 4;
const STRING: u8 = 5;
const ARRAY: u8 = 6;
const OBJECT: u8 = 7;

impl Encode for Json {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        match self {
            Json::Null => NULL.encode(e),
            Json::Bool(b) => {
                BOOL.encode(e)?;
                b.encode(e)
            }
            Json::Int(i) => {
                INT.encode(e)?;
                i.encode(e)
            }
            Json::UInt(u) => {
                UINT.encode(e)?;
                u.encode(e)
            }
            Json::Float(f) => {
                FLOAT.encode(e)?;
                f.encode(e)
            }
            Json::String(s) => {
                STRING.encode(e)?;
                s.encode(e)
            }
            Json::Array(items) => {
                ARRAY.encode(e)?;
                (items.len() as u64).encode(e)?;
                items.iter().try_for_each(|item| item.encode(e))
            }
            Json::Object(members) => {
                OBJECT.encode(e)?;
                (members.len() as u64).encode(e)?;
                members.iter().try_for_each(|(k, v)| {
                    k.encode(e)?;
                    v.encode(e)
                })
            }
        }
    }
}

fn decode_at<D: Decoder>(d: &mut D, depth: usize) -> Result<Json, DecodeError> {
    if depth > MAX_DEPTH {
        return Err(DecodeError::Other("a JSON value nested too deep"));
    }
    // The count is read before the items, each of which takes at least one
    // byte: the decoder's own limit on bytes read bounds how many are made.
    let count = |d: &mut D| -> Result<usize, DecodeError> {
        let n = u64::decode(d)?;
        usize::try_from(n).map_err(|_| DecodeError::Other("a JSON container too long"))
    };
    Ok(match u8::decode(d)? {
        NULL => Json::Null,
        BOOL => Json::Bool(bool::decode(d)?),
        INT => Json::Int(i64::decode(d)?),
        UINT => Json::UInt(u64::decode(d)?),
        FLOAT => Json::Float(f64::decode(d)?),
        STRING => Json::String(String::decode(d)?),
        ARRAY => {
            let n = count(d)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(decode_at(d, depth + 1)?);
            }
            Json::Array(items)
        }
        OBJECT => {
            let n = count(d)?;
            let mut members = Vec::new();
            for _ in 0..n {
                let key = String::decode(d)?;
                members.push((key, decode_at(d, depth + 1)?));
            }
            Json::Object(members)
        }
        tag => {
            return Err(DecodeError::UnexpectedVariant {
                type_name: "Json",
                allowed: &bincode::error::AllowedEnumVariants::Range { min: 0, max: 7 },
                found: tag as u32,
            })
        }
    })
}

impl<C> Decode<C> for Json {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Json, DecodeError> {
        decode_at(d, 0)
    }
}

impl<'de, C> BorrowDecode<'de, C> for Json {
    fn borrow_decode<D: BorrowDecoder<'de, Context = C>>(d: &mut D) -> Result<Json, DecodeError> {
        decode_at(d, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_cross_unchanged() {
        let table = [
            json!(null),
            json!(true),
            json!(-5),
            json!(u64::MAX),
            json!(1.5),
            json!("é\u{1F600}"),
            json!([1, [2, {"a": null}]]),
            json!({"z": 1, "a": {"b": [true, "x"]}}),
        ];
        let config = bincode::config::standard();
        for v in table {
            let bytes = bincode::encode_to_vec(Json::from(v.clone()), config).unwrap();
            let (back, used): (Json, usize) = bincode::decode_from_slice(&bytes, config).unwrap();
            assert_eq!(used, bytes.len());
            assert_eq!(Value::from(back), v);
        }
    }

    #[test]
    fn nesting_past_the_bound_is_refused() {
        let config = bincode::config::standard();
        let mut deep = Json::Null;
        for _ in 0..MAX_DEPTH {
            deep = Json::Array(vec![deep]);
        }
        let bytes = bincode::encode_to_vec(&deep, config).unwrap();
        assert!(bincode::decode_from_slice::<Json, _>(&bytes, config).is_ok());
        let bytes = bincode::encode_to_vec(Json::Array(vec![deep]), config).unwrap();
        assert!(bincode::decode_from_slice::<Json, _>(&bytes, config).is_err());
        // a frame of nothing but array openings, as a hostile peer would send
        let bomb: Vec<u8> = std::iter::repeat_n([ARRAY, 1], 1_000_000)
            .flatten()
            .collect();
        assert!(bincode::decode_from_slice::<Json, _>(&bomb, config).is_err());
    }
}
