//! Datasets of user events: `[decode] events` (and `eraflow export --decode`) name event signatures
//! (`"Swap(address indexed sender, uint256 amount0In)"`) or JSON ABI files, optionally limited to contract
//! addresses, and each event becomes a dataset of its own: the standard keys, the emitting `address`, and one
//! typed column per parameter, decoded from the log's topics and data with alloy's ABI decoder.
//!
//! Parameter columns: `address`, `bytesN` and `function` are binary; `bool` is boolean; integers of at most 64
//! bits are integers of their width (`uint24` is uint32); wider integers are the uint256 triple
//! `<name>_{binary,string,f64}` like the rest of eraflow (signed: two's complement binary, signed decimal and
//! f64); `string` is utf8, `bytes` binary; arrays are lists and tuples structs (a wide integer inside them is a
//! struct of `binary`, `string`, `f64`). An indexed `string`, `bytes`, array or tuple is only its keccak hash in
//! the log: a 32-byte binary column.
//!
//! A log is the event's when its topic0 is the event's selector (and its contract one of the spec's, if any); it
//! gives a row only when its topics and data are exactly the ABI encoding of the values they decode to (what
//! Solidity emits: the topic count, zero padding, bools 0 or 1, integers in their type's range, UTF-8 strings,
//! offsets where the encoder puts them, no bytes past the end). alloy's decoder alone is lenient about all of
//! these, so the values are encoded again and compared. Events whose every parameter is a word (address,
//! bool, integers, `bytesN`, an indexed value's hash) or, in the body, `bytes`, `string` or a list of words
//! (nearly every real event) skip alloy's decoder: their words and tails are checked where they lie and
//! appended from the log's bytes, with nothing allocated per log (a test holds this path equal to alloy's). Anything else with the selector is a look-alike: no row,
//! counted in the run report (`skipped_lookalikes`, as for the token datasets). An anonymous event has no
//! selector: logs of its shape are rows, and nothing is counted.
//!
//! A spec is `[NAME=]SIGNATURE|FILE.json[@0xADDRESS,0xADDRESS...]`. Datasets are named `NAME`, else
//! `event_<Event>` (for an ABI file with a `NAME`: `NAME_<Event>`). A bad spec is a usage error naming it.
//!
//! The dataset seam is `&'static dyn Dataset` (the built-in ones are statics); a decoded dataset is built at
//! run time and leaked once per process ([`from_specs`]), a few hundred bytes per event for the life of a job,
//! rather than threading lifetimes through every stage.

use super::columns::{append_decimal, to_f64};
use super::events::Decoded;
use super::table::{Roles, Spec, Table};
use super::{Dataset, DatasetBuilder, ExportContext};
use crate::execution::eth_transfer;
use crate::formats::Need;
use crate::verify::execution::VerifiedBlock;
use alloy_dyn_abi::{DynSolEvent, DynSolType, DynSolValue, Specifier};
use alloy_json_abi::{Event, EventParam, JsonAbi, Param};
use alloy_primitives::{B256, I256, U256};
use arrow_array::builder::{
    make_builder, ArrayBuilder, BinaryBuilder, BooleanBuilder, Float64Builder, Int16Builder,
    Int32Builder, Int64Builder, Int8Builder, ListBuilder, StringBuilder, StructBuilder,
    UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema};
use std::sync::Arc;

/// A spec that cannot be used: it names the spec as given.
#[derive(Debug, thiserror::Error)]
#[error("decode '{spec}': {message}")]
pub struct DecodeError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong with it.
    pub message: String,
}

/// The key columns every decoded row starts with, in order (`logs`' types).
const KEYS: [&str; 8] = [
    "block_number",
    "block_hash",
    "timestamp",
    "transaction_index",
    "transaction_hash",
    "log_index",
    "chain_id",
    "address",
];

/// How one parameter (or a part of one) is stored.
#[derive(Debug, Clone)]
enum Kind {
    Bool,
    /// Unsigned, at most 64 bits: the Arrow width holding `bits`.
    UInt(usize),
    /// Signed, at most 64 bits.
    Int(usize),
    /// Wider than 64 bits: the triple at the top level, a struct inside lists and tuples.
    Big {
        signed: bool,
        bits: usize,
    },
    /// Address, fixed bytes, function, bytes, or an indexed dynamic value's hash.
    Binary,
    Str,
    List(Box<Kind>),
    Struct(Vec<(String, Kind)>),
}

fn arrow_width(bits: usize) -> usize {
    match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

fn big_fields() -> Fields {
    Fields::from(vec![
        Field::new("binary", DataType::Binary, true),
        Field::new("string", DataType::Utf8, true),
        Field::new("f64", DataType::Float64, true),
    ])
}

impl Kind {
    /// The kind of a value of `ty`, tuple components named after `components` (from the ABI).
    fn of(ty: &DynSolType, components: &[Param]) -> Kind {
        match ty {
            DynSolType::Bool => Kind::Bool,
            DynSolType::Uint(b) if *b <= 64 => Kind::UInt(*b),
            DynSolType::Int(b) if *b <= 64 => Kind::Int(*b),
            DynSolType::Uint(b) => Kind::Big {
                signed: false,
                bits: *b,
            },
            DynSolType::Int(b) => Kind::Big {
                signed: true,
                bits: *b,
            },
            DynSolType::String => Kind::Str,
            DynSolType::Array(t) | DynSolType::FixedArray(t, _) => {
                Kind::List(Box::new(Kind::of(t, components)))
            }
            DynSolType::Tuple(ts) => Kind::Struct(
                ts.iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let c = components.get(i);
                        let name = c
                            .map(|c| c.name.clone())
                            .filter(|n| !n.is_empty())
                            .unwrap_or_else(|| format!("field{i}"));
                        (name, Kind::of(t, c.map_or(&[][..], |c| &c.components)))
                    })
                    .collect(),
            ),
            // Address, FixedBytes, Function, Bytes (and eip712-only variants, not enabled).
            _ => Kind::Binary,
        }
    }

    /// The Arrow type of a nested value (a list item or a struct field).
    fn data_type(&self) -> DataType {
        match self {
            Kind::Bool => DataType::Boolean,
            Kind::UInt(b) => match arrow_width(*b) {
                8 => DataType::UInt8,
                16 => DataType::UInt16,
                32 => DataType::UInt32,
                _ => DataType::UInt64,
            },
            Kind::Int(b) => match arrow_width(*b) {
                8 => DataType::Int8,
                16 => DataType::Int16,
                32 => DataType::Int32,
                _ => DataType::Int64,
            },
            Kind::Big { .. } => DataType::Struct(big_fields()),
            Kind::Binary => DataType::Binary,
            Kind::Str => DataType::Utf8,
            Kind::List(k) => DataType::List(Arc::new(Field::new("item", k.data_type(), true))),
            Kind::Struct(fs) => DataType::Struct(Fields::from(
                fs.iter()
                    .map(|(n, k)| Field::new(n, k.data_type(), true))
                    .collect::<Vec<_>>(),
            )),
        }
    }

    /// Whether `v` is a value of this kind that fits its column (alloy's decoder does not check that a
    /// `uint8` word is below 256; such a log is not the event).
    fn fits(&self, v: &DynSolValue) -> bool {
        match (self, v) {
            (Kind::Bool, DynSolValue::Bool(_)) => true,
            (Kind::UInt(b), DynSolValue::Uint(x, _)) => x.bit_len() <= *b,
            (Kind::Int(b), DynSolValue::Int(x, _)) => {
                let lim = I256::ONE << (*b - 1);
                *x >= -lim && *x < lim
            }
            (
                Kind::Big {
                    signed: false,
                    bits,
                },
                DynSolValue::Uint(x, _),
            ) => x.bit_len() <= *bits,
            (Kind::Big { signed: true, bits }, DynSolValue::Int(x, _)) => {
                *bits == 256 || {
                    let lim = I256::ONE << (*bits - 1);
                    *x >= -lim && *x < lim
                }
            }
            // alloy keeps a `bytesN` word whole: the bytes past N must be the ABI's zero padding.
            (Kind::Binary, DynSolValue::FixedBytes(w, n)) => w[*n..].iter().all(|&b| b == 0),
            (Kind::Binary, v) => binary(v).is_some(),
            (Kind::Str, DynSolValue::String(_)) => true,
            (Kind::List(k), DynSolValue::Array(xs) | DynSolValue::FixedArray(xs)) => {
                xs.iter().all(|x| k.fits(x))
            }
            (Kind::Struct(fs), DynSolValue::Tuple(xs)) => {
                fs.len() == xs.len() && fs.iter().zip(xs).all(|((_, k), x)| k.fits(x))
            }
            _ => false,
        }
    }
}

/// The bytes of a binary-kind value.
fn binary(v: &DynSolValue) -> Option<&[u8]> {
    match v {
        DynSolValue::Address(a) => Some(a.as_slice()),
        DynSolValue::FixedBytes(w, n) => w.get(..*n),
        DynSolValue::Function(f) => Some(f.as_slice()),
        DynSolValue::Bytes(b) => Some(b),
        _ => None,
    }
}

/// Appends a wide integer's three renderings: 32-byte big-endian (two's complement when signed), decimal
/// (written straight into the column: no string per value), f64.
fn append_big(
    bin: Option<&mut BinaryBuilder>,
    dec: Option<&mut StringBuilder>,
    f64s: Option<&mut Float64Builder>,
    v: &DynSolValue,
) {
    let (bytes, f) = match v {
        DynSolValue::Int(x, _) => {
            let f = to_f64(&x.unsigned_abs());
            (x.to_be_bytes::<32>(), if x.is_negative() { -f } else { f })
        }
        DynSolValue::Uint(x, _) => (x.to_be_bytes::<32>(), to_f64(x)),
        _ => ([0; 32], 0.0),
    };
    if let Some(b) = bin {
        b.append_value(bytes);
    }
    if let Some(b) = dec {
        match v {
            DynSolValue::Int(x, _) => append_decimal(b, &x.unsigned_abs(), x.is_negative()),
            v => append_decimal(b, &u256_of(v), false),
        }
    }
    if let Some(b) = f64s {
        b.append_value(f);
    }
}

fn u256_of(v: &DynSolValue) -> U256 {
    match v {
        DynSolValue::Uint(x, _) => *x,
        DynSolValue::Int(x, _) => x.into_raw(),
        _ => U256::ZERO,
    }
}

/// Appends `v` (checked by [`Kind::fits`]) to `b`, a builder of `k.data_type()` made by `make_builder`.
fn append(b: &mut dyn ArrayBuilder, k: &Kind, v: &DynSolValue) {
    macro_rules! put {
        ($t:ty, $v:expr) => {
            if let Some(b) = b.as_any_mut().downcast_mut::<$t>() {
                b.append_value($v);
            }
        };
    }
    match k {
        Kind::Bool => put!(BooleanBuilder, v.as_bool().unwrap_or_default()),
        Kind::UInt(bits) => {
            let x = u256_of(v).as_limbs()[0];
            match arrow_width(*bits) {
                8 => put!(UInt8Builder, x as u8),
                16 => put!(UInt16Builder, x as u16),
                32 => put!(UInt32Builder, x as u32),
                _ => put!(UInt64Builder, x),
            }
        }
        Kind::Int(bits) => {
            // Two's complement: the low limb read as i64 is the value (it fits, checked).
            let x = u256_of(v).as_limbs()[0] as i64;
            match arrow_width(*bits) {
                8 => put!(Int8Builder, x as i8),
                16 => put!(Int16Builder, x as i16),
                32 => put!(Int32Builder, x as i32),
                _ => put!(Int64Builder, x),
            }
        }
        Kind::Big { .. } => {
            if let Some(s) = b.as_any_mut().downcast_mut::<StructBuilder>() {
                append_big(s.field_builder::<BinaryBuilder>(0), None, None, v);
                append_big(None, s.field_builder::<StringBuilder>(1), None, v);
                append_big(None, None, s.field_builder::<Float64Builder>(2), v);
                s.append(true);
            }
        }
        Kind::Binary => put!(BinaryBuilder, binary(v).unwrap_or_default()),
        Kind::Str => put!(StringBuilder, v.as_str().unwrap_or_default()),
        Kind::List(item) => {
            if let Some(l) = b
                .as_any_mut()
                .downcast_mut::<ListBuilder<Box<dyn ArrayBuilder>>>()
            {
                for x in v.as_array().or_else(|| v.as_fixed_array()).unwrap_or(&[]) {
                    append(l.values().as_mut(), item, x);
                }
                l.append(true);
            }
        }
        Kind::Struct(fs) => {
            if let Some(s) = b.as_any_mut().downcast_mut::<StructBuilder>() {
                let xs = v.as_tuple().unwrap_or(&[]);
                for (((_, k), x), fb) in fs.iter().zip(xs).zip(s.field_builders_mut()) {
                    append(fb.as_mut(), k, x);
                }
                s.append(true);
            }
        }
    }
}

/// The builders of one parameter's column(s), typed: a row's values go in without a `dyn` downcast per value
/// (lists and tuples, rarer, keep `make_builder`'s nested builders).
// One per parameter of a builder, a handful per chunk: the triple's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
enum ParamColumns {
    Bool(BooleanBuilder),
    U8(UInt8Builder),
    U16(UInt16Builder),
    U32(UInt32Builder),
    U64(UInt64Builder),
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    Binary(BinaryBuilder),
    Str(StringBuilder),
    /// The triple `_binary`, `_string`, `_f64`.
    Big(BinaryBuilder, StringBuilder, Float64Builder),
    Nested(Box<dyn ArrayBuilder>),
}

impl ParamColumns {
    /// The builders of a top-level column of kind `k`.
    fn new(k: &Kind) -> ParamColumns {
        match k {
            Kind::Bool => ParamColumns::Bool(BooleanBuilder::new()),
            Kind::UInt(b) => match arrow_width(*b) {
                8 => ParamColumns::U8(UInt8Builder::new()),
                16 => ParamColumns::U16(UInt16Builder::new()),
                32 => ParamColumns::U32(UInt32Builder::new()),
                _ => ParamColumns::U64(UInt64Builder::new()),
            },
            Kind::Int(b) => match arrow_width(*b) {
                8 => ParamColumns::I8(Int8Builder::new()),
                16 => ParamColumns::I16(Int16Builder::new()),
                32 => ParamColumns::I32(Int32Builder::new()),
                _ => ParamColumns::I64(Int64Builder::new()),
            },
            Kind::Big { .. } => ParamColumns::Big(
                BinaryBuilder::new(),
                StringBuilder::new(),
                Float64Builder::new(),
            ),
            Kind::Binary => ParamColumns::Binary(BinaryBuilder::new()),
            Kind::Str => ParamColumns::Str(StringBuilder::new()),
            k => ParamColumns::Nested(make_builder(&k.data_type(), 0)),
        }
    }

    /// Appends `v`, a value of kind `k` (checked by [`Kind::fits`]).
    fn append(&mut self, k: &Kind, v: &DynSolValue) {
        // Integers that fit their column (checked): the low limb holds them, two's complement when signed.
        let low = || u256_of(v).as_limbs()[0];
        match self {
            ParamColumns::Bool(b) => b.append_value(v.as_bool().unwrap_or_default()),
            ParamColumns::U8(b) => b.append_value(low() as u8),
            ParamColumns::U16(b) => b.append_value(low() as u16),
            ParamColumns::U32(b) => b.append_value(low() as u32),
            ParamColumns::U64(b) => b.append_value(low()),
            ParamColumns::I8(b) => b.append_value(low() as i8),
            ParamColumns::I16(b) => b.append_value(low() as i16),
            ParamColumns::I32(b) => b.append_value(low() as i32),
            ParamColumns::I64(b) => b.append_value(low() as i64),
            ParamColumns::Binary(b) => b.append_value(binary(v).unwrap_or_default()),
            ParamColumns::Str(b) => b.append_value(v.as_str().unwrap_or_default()),
            ParamColumns::Big(bin, dec, f) => append_big(Some(bin), Some(dec), Some(f), v),
            ParamColumns::Nested(b) => append(b.as_mut(), k, v),
        }
    }

    /// Appends the value of the [`Word::canonical`] word `x` of type `w`, read in place: the same value
    /// [`Self::append`] gets from alloy's decoder (the word path's test holds them equal).
    fn append_word(&mut self, w: Word, x: &[u8; 32]) {
        let low = u64::from_be_bytes(x[24..].try_into().unwrap_or_default());
        match self {
            ParamColumns::Bool(b) => b.append_value(x[31] != 0),
            ParamColumns::U8(b) => b.append_value(low as u8),
            ParamColumns::U16(b) => b.append_value(low as u16),
            ParamColumns::U32(b) => b.append_value(low as u32),
            ParamColumns::U64(b) => b.append_value(low),
            ParamColumns::I8(b) => b.append_value(low as i8),
            ParamColumns::I16(b) => b.append_value(low as i16),
            ParamColumns::I32(b) => b.append_value(low as i32),
            ParamColumns::I64(b) => b.append_value(low as i64),
            ParamColumns::Binary(b) => b.append_value(match w {
                Word::Address => &x[12..],
                Word::Fixed(n) => &x[..n],
                Word::Function => &x[..24],
                _ => &x[..],
            }),
            ParamColumns::Big(bin, dec, f) => {
                // The word is the value's 32-byte big-endian form already (two's complement when signed).
                bin.append_value(x);
                let (magnitude, negative) = match w {
                    Word::Int(_) => {
                        let v = I256::from_be_bytes(*x);
                        (v.unsigned_abs(), v.is_negative())
                    }
                    _ => (U256::from_be_bytes(*x), false),
                };
                append_decimal(dec, &magnitude, negative);
                let m = to_f64(&magnitude);
                f.append_value(if negative { -m } else { m });
            }
            // No word-sized parameter has these columns.
            ParamColumns::Str(_) | ParamColumns::Nested(_) => {}
        }
    }

    /// Appends a dynamic value of shape `s` (kind `k`) whose `n` bytes or items start `tail` (checked by
    /// [`Shape::tail_len`]).
    fn append_tail(&mut self, s: Shape, k: &Kind, tail: &[u8], n: usize) {
        match (self, s) {
            (ParamColumns::Binary(b), Shape::Bytes) => {
                b.append_value(tail.get(..n).unwrap_or_default())
            }
            (ParamColumns::Str(b), Shape::Str) => b.append_value(
                tail.get(..n)
                    .and_then(|t| std::str::from_utf8(t).ok())
                    .unwrap_or_default(),
            ),
            (ParamColumns::Nested(b), Shape::List(w)) => {
                let (Kind::List(item), Some(l)) = (
                    k,
                    b.as_any_mut()
                        .downcast_mut::<ListBuilder<Box<dyn ArrayBuilder>>>(),
                ) else {
                    return;
                };
                let (items, _) = tail.as_chunks::<32>();
                for x in items.iter().take(n) {
                    append(l.values().as_mut(), item, &w.value(x));
                }
                l.append(true);
            }
            _ => {}
        }
    }

    /// The finished column(s), in schema order.
    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        match self {
            ParamColumns::Bool(b) => out.push(Arc::new(b.finish())),
            ParamColumns::U8(b) => out.push(Arc::new(b.finish())),
            ParamColumns::U16(b) => out.push(Arc::new(b.finish())),
            ParamColumns::U32(b) => out.push(Arc::new(b.finish())),
            ParamColumns::U64(b) => out.push(Arc::new(b.finish())),
            ParamColumns::I8(b) => out.push(Arc::new(b.finish())),
            ParamColumns::I16(b) => out.push(Arc::new(b.finish())),
            ParamColumns::I32(b) => out.push(Arc::new(b.finish())),
            ParamColumns::I64(b) => out.push(Arc::new(b.finish())),
            ParamColumns::Binary(b) => out.push(Arc::new(b.finish())),
            ParamColumns::Str(b) => out.push(Arc::new(b.finish())),
            ParamColumns::Big(bin, dec, f) => out.extend([
                Arc::new(bin.finish()) as ArrayRef,
                Arc::new(dec.finish()),
                Arc::new(f.finish()),
            ]),
            ParamColumns::Nested(b) => out.push(b.finish()),
        }
    }
}

/// Whether the static value `v` is encoded at `data[*at..]`, moving `at` past it.
fn words_match(v: &DynSolValue, data: &[u8], at: &mut usize) -> bool {
    match v {
        DynSolValue::Tuple(xs) | DynSolValue::FixedArray(xs) => {
            xs.iter().all(|x| words_match(x, data, at))
        }
        v => {
            let word = data.get(*at..*at + 32);
            *at += 32;
            v.as_word().is_some_and(|w| word == Some(&w[..]))
        }
    }
}

/// A parameter read straight from its 32-byte word: a top-level static scalar, or an indexed dynamic value's
/// hash. Events made only of these (most real ones: transfers, approvals, swaps, syncs) skip alloy's decoder,
/// whose per-log vectors were most of a row's cost (docs/performance.md, "Decoded user events"); the checks
/// are the ones the decoder path makes ([`Kind::fits`], encoding back), and a test holds the two paths equal.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Word {
    Address,
    Bool,
    /// `uintN`: the bits above N are zero.
    Uint(usize),
    /// `intN`: the bits above N repeat its sign bit.
    Int(usize),
    /// `bytesN`: the bytes past N are zero.
    Fixed(usize),
    /// 24 bytes, then zeros.
    Function,
    /// An indexed `string`, `bytes`, array or tuple: its keccak hash, any word.
    Hash,
}

impl Word {
    /// The word reading of a parameter of type `ty` (`hashed`: indexed and dynamic), if it has one.
    fn of(ty: &DynSolType, hashed: bool) -> Option<Word> {
        Some(match ty {
            _ if hashed => Word::Hash,
            DynSolType::Address => Word::Address,
            DynSolType::Bool => Word::Bool,
            DynSolType::Uint(b) => Word::Uint(*b),
            DynSolType::Int(b) => Word::Int(*b),
            DynSolType::FixedBytes(n) => Word::Fixed(*n),
            DynSolType::Function => Word::Function,
            _ => return None,
        })
    }

    /// Whether `w` is the ABI encoding of a value of this type.
    fn canonical(self, w: &[u8; 32]) -> bool {
        let zero_from = |n: usize| w[n..].iter().all(|&b| b == 0);
        let zero_to = |n: usize| w[..n].iter().all(|&b| b == 0);
        match self {
            Word::Address => zero_to(12),
            Word::Bool => zero_to(31) && w[31] <= 1,
            // ABI integer widths are multiples of 8.
            Word::Uint(bits) => zero_to(32 - bits / 8),
            Word::Int(bits) => {
                let top = 32 - bits / 8;
                let fill = if w[top] & 0x80 != 0 { 0xff } else { 0 };
                w[..top].iter().all(|&b| b == fill)
            }
            Word::Fixed(n) => zero_from(n),
            Word::Function => zero_from(24),
            Word::Hash => true,
        }
    }

    /// The value of a [`Self::canonical`] word, as alloy's decoder gives it (no allocation): for a list's
    /// items, which go through the nested builders.
    fn value(self, w: &[u8; 32]) -> DynSolValue {
        match self {
            Word::Address => {
                DynSolValue::Address(alloy_primitives::Address::from_word(B256::from(*w)))
            }
            Word::Bool => DynSolValue::Bool(w[31] != 0),
            Word::Uint(bits) => DynSolValue::Uint(U256::from_be_bytes(*w), bits),
            Word::Int(bits) => DynSolValue::Int(I256::from_be_bytes(*w), bits),
            Word::Fixed(n) => DynSolValue::FixedBytes(B256::from(*w), n),
            Word::Function => {
                DynSolValue::Function(alloy_primitives::Function::from_slice(&w[..24]))
            }
            Word::Hash => DynSolValue::FixedBytes(B256::from(*w), 32),
        }
    }
}

/// How a parameter is laid out, for the word path: one word (in a topic or the body's head), or a dynamic
/// value of the body (`bytes`, `string`, a list of words) whose head word is the offset of its tail.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Word(Word),
    Bytes,
    Str,
    List(Word),
}

impl Shape {
    /// The word-path layout of a parameter of type `ty` (`hashed`: indexed and dynamic), if it has one.
    fn of(ty: &DynSolType, indexed: bool, hashed: bool) -> Option<Shape> {
        if let Some(w) = Word::of(ty, hashed) {
            return Some(Shape::Word(w));
        }
        match ty {
            _ if indexed => None,
            DynSolType::Bytes => Some(Shape::Bytes),
            DynSolType::String => Some(Shape::Str),
            DynSolType::Array(t) => Word::of(t, false).map(Shape::List),
            _ => None,
        }
    }

    /// The byte length of the tail at `data[at..]` when it is the ABI encoding of a value of this dynamic
    /// shape: a length word, then the bytes zero-padded to whole words (valid UTF-8 for a string) or the
    /// items' canonical words.
    fn tail_len(self, data: &[u8], at: usize) -> Option<usize> {
        let n = word_usize(word_at(data, at)?)?;
        let from = at.checked_add(32)?;
        match self {
            Shape::Bytes | Shape::Str => {
                let padded = n.checked_next_multiple_of(32)?;
                let (value, pad) = data.get(from..from.checked_add(padded)?)?.split_at(n);
                let text = self != Shape::Str || std::str::from_utf8(value).is_ok();
                (text && pad.iter().all(|&b| b == 0)).then_some(32 + padded)
            }
            Shape::List(w) => {
                let len = n.checked_mul(32)?;
                let items = data.get(from..from.checked_add(len)?)?;
                let (items, _) = items.as_chunks::<32>();
                items.iter().all(|x| w.canonical(x)).then_some(32 + len)
            }
            Shape::Word(_) => None,
        }
    }
}

/// The 32-byte word at `data[at..]`.
fn word_at(data: &[u8], at: usize) -> Option<&[u8; 32]> {
    data.get(at..at.checked_add(32)?)?.try_into().ok()
}

/// A canonical `uint256` word (an offset or a length) that fits `usize`.
fn word_usize(w: &[u8; 32]) -> Option<usize> {
    let (high, low) = w.split_at(24);
    let low = u64::from_be_bytes(low.try_into().ok()?);
    (high.iter().all(|&b| b == 0))
        .then_some(())
        .and_then(|()| usize::try_from(low).ok())
}

/// One parameter: its column name, kind, and where its value is (indexed: the topic after topic0, else
/// the body).
#[derive(Debug)]
struct Column {
    name: String,
    kind: Kind,
    indexed: bool,
    /// Position among the indexed parameters or among the body's.
    at: usize,
}

/// A decoded-event dataset's definition (leaked: `&'static`, see the module doc).
struct DecodedEvent {
    name: &'static str,
    table: Table,
    event: DynSolEvent,
    /// The selector (topic0) logs are matched on before anything else; `None` for an anonymous event.
    selector: Option<[u8; 32]>,
    /// The topics a log of the event has.
    topics: usize,
    /// The body's length when every body parameter is static (the canonical check then compares words in
    /// place).
    static_len: Option<usize>,
    columns: Vec<Column>,
    /// Each column's [`Shape`], when every column has one (then logs are read without alloy's decoder).
    shapes: Option<Vec<Shape>>,
    /// The body's parameters: its head's words on the word path.
    n_body: usize,
    /// Only logs of these contracts; empty: every contract.
    addresses: Vec<[u8; 20]>,
    /// The event's full signature and the addresses: what else shapes the rows (in the output fingerprint).
    definition: String,
}

impl DecodedEvent {
    fn new(name: String, event: &Event, addresses: Vec<[u8; 20]>) -> Result<Self, String> {
        let resolved = event
            .resolve()
            .map_err(|e| format!("event {}: {e}", event.name))?;
        let mut columns = Vec::new();
        let mut shapes = Some(Vec::new());
        let (mut n_indexed, mut n_body) = (0, 0);
        for (i, p) in event.inputs.iter().enumerate() {
            let ty = p
                .resolve()
                .map_err(|e| format!("event {}: parameter {i}: {e}", event.name))?;
            // An indexed dynamic value is only its keccak hash in its topic.
            let hashed = matches!(
                ty,
                DynSolType::String
                    | DynSolType::Bytes
                    | DynSolType::Array(_)
                    | DynSolType::FixedArray(..)
                    | DynSolType::Tuple(_)
            );
            let shape = Shape::of(&ty, p.indexed, p.indexed && hashed);
            shapes = shapes.zip(shape).map(|(mut ss, s)| {
                ss.push(s);
                ss
            });
            let kind = if p.indexed && hashed {
                Kind::Binary
            } else {
                Kind::of(&ty, &p.components)
            };
            let at = if p.indexed {
                &mut n_indexed
            } else {
                &mut n_body
            };
            let mut col = match p.name.as_str() {
                "" => format!("arg{i}"),
                n if KEYS.contains(&n) => format!("arg_{n}"),
                n => n.to_string(),
            };
            if columns.iter().any(|c: &Column| c.name == col) {
                col = format!("{col}_{i}");
            }
            columns.push(Column {
                name: col,
                kind,
                indexed: p.indexed,
                at: *at,
            });
            *at += 1;
        }
        let mut fields = vec![
            Field::new("block_number", DataType::UInt64, false),
            Field::new("block_hash", DataType::Binary, false),
            Field::new("timestamp", DataType::UInt64, false),
            Field::new("transaction_index", DataType::UInt32, false),
            Field::new("transaction_hash", DataType::Binary, false),
            Field::new("log_index", DataType::UInt32, false),
            Field::new("chain_id", DataType::UInt64, false),
            Field::new("address", DataType::Binary, false),
        ];
        for c in &columns {
            match &c.kind {
                Kind::Big { .. } => fields.extend([
                    Field::new(format!("{}_binary", c.name), DataType::Binary, false),
                    Field::new(format!("{}_string", c.name), DataType::Utf8, false),
                    Field::new(format!("{}_f64", c.name), DataType::Float64, false),
                ]),
                k => fields.push(Field::new(&c.name, k.data_type(), false)),
            }
        }
        let mut roles = Roles::default();
        let sort = Spec {
            sort: true,
            ..Spec::PLAIN
        };
        roles.add("block_number", sort);
        roles.add("log_index", sort);
        roles.add(
            "address",
            Spec {
                dictionary: true,
                ..Spec::PLAIN
            },
        );
        // A `uint64` parameter may hold any value: wide (`crate::sink::portable`). Named for the process's life,
        // as the event's own name is.
        for c in columns.iter().filter(|c| has_u64(&c.kind.data_type())) {
            let wide = Spec {
                wide: true,
                ..Spec::PLAIN
            };
            roles.add(Box::leak(c.name.clone().into_boxed_str()), wide);
        }
        let mut addresses = addresses;
        // Sorted for the fingerprint (the order given does not change the rows).
        addresses.sort_unstable();
        addresses.dedup();
        let definition = format!(
            "{}{};addresses={}",
            event.full_signature(),
            if event.anonymous { " anonymous" } else { "" },
            addresses
                .iter()
                .map(alloy_primitives::hex::encode)
                .collect::<Vec<_>>()
                .join(",")
        );
        Ok(DecodedEvent {
            name: Box::leak(name.into_boxed_str()),
            table: Table {
                schema: Arc::new(Schema::new(fields)),
                roles,
            },
            selector: resolved.topic_0().map(|s| s.0),
            topics: resolved.indexed().len() + usize::from(resolved.topic_0().is_some()),
            static_len: resolved.body().iter().all(|t| !t.is_dynamic()).then(|| {
                32 * resolved
                    .body()
                    .iter()
                    .map(|t| t.minimum_words())
                    .sum::<usize>()
            }),
            event: resolved,
            columns,
            shapes,
            n_body,
            addresses,
            definition,
        })
    }

    /// Whether a log's topics and data are the ABI encoding of values of this event, every column having a
    /// [`Shape`] (`shapes`): each word and tail checked in place, the head's offsets pointing where the
    /// encoder puts the tails (right after the head, in order, nothing after the last).
    fn canonical_words(&self, shapes: &[Shape], topics: &[B256], data: &[u8]) -> bool {
        if topics.len() != self.topics {
            return false;
        }
        let skip = usize::from(self.selector.is_some());
        let mut tail = 32 * self.n_body;
        for (c, s) in self.columns.iter().zip(shapes) {
            let ok = match (c.indexed, *s) {
                (true, Shape::Word(w)) => {
                    topics.get(skip + c.at).is_some_and(|t| w.canonical(&t.0))
                }
                (false, Shape::Word(w)) => word_at(data, 32 * c.at).is_some_and(|x| w.canonical(x)),
                (false, s) => {
                    let offset = word_at(data, 32 * c.at).and_then(word_usize);
                    match s.tail_len(data, tail).filter(|_| offset == Some(tail)) {
                        Some(n) => {
                            tail += n;
                            true
                        }
                        None => false,
                    }
                }
                (true, _) => false,
            };
            if !ok {
                return false;
            }
        }
        tail == data.len()
    }
}

/// Whether `dt` holds a `uint64` (inside lists and structs too).
fn has_u64(dt: &DataType) -> bool {
    match dt {
        DataType::UInt64 => true,
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            has_u64(f.data_type())
        }
        DataType::Struct(fs) => fs.iter().any(|f| has_u64(f.data_type())),
        _ => false,
    }
}

/// The [`Dataset`] of a leaked [`DecodedEvent`]: holding a `&'static` is what lets `table` and `builder`
/// hand out `'static` borrows.
struct DecodedDataset(&'static DecodedEvent);

impl Dataset for DecodedDataset {
    fn name(&self) -> &'static str {
        self.0.name
    }
    fn table(&self) -> &'static Table {
        &self.0.table
    }
    /// Logs: era1 and ere files with receipts.
    fn needs(&self) -> Need {
        Need::Receipts
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(DecodedBuilder::new(self.0, ctx.chain_id))
    }
    fn definition(&self) -> Option<&str> {
        Some(&self.0.definition)
    }
}

/// Rows of one decoded event for one chunk of blocks.
struct DecodedBuilder {
    ds: &'static DecodedEvent,
    chain_id: u64,
    block_number: UInt64Builder,
    block_hash: BinaryBuilder,
    timestamp: UInt64Builder,
    transaction_index: UInt32Builder,
    transaction_hash: BinaryBuilder,
    log_index: UInt32Builder,
    chain: UInt64Builder,
    address: BinaryBuilder,
    /// One per parameter, in column order.
    params: Vec<ParamColumns>,
    /// Logs with the selector (and a wanted contract) that were not the event.
    lookalikes: u64,
    /// Logs of `SYSTEM_ADDRESS` with the selector, left out of a spec that names no contract.
    eth_transfer_logs: u64,
}

impl DecodedBuilder {
    fn new(ds: &'static DecodedEvent, chain_id: u64) -> Self {
        let params = ds
            .columns
            .iter()
            .map(|c| ParamColumns::new(&c.kind))
            .collect();
        DecodedBuilder {
            ds,
            chain_id,
            block_number: UInt64Builder::new(),
            block_hash: BinaryBuilder::new(),
            timestamp: UInt64Builder::new(),
            transaction_index: UInt32Builder::new(),
            transaction_hash: BinaryBuilder::new(),
            log_index: UInt32Builder::new(),
            chain: UInt64Builder::new(),
            address: BinaryBuilder::new(),
            params,
            lookalikes: 0,
            eth_transfer_logs: 0,
        }
    }

    /// Whether a log of `address` whose first topic is `topic0` is a candidate: the selector, then the
    /// contract, before anything is decoded or hashed. A spec without contracts takes no log of
    /// `SYSTEM_ADDRESS` (EIP-7708's ETH transfers, Amsterdam on, are shaped like ERC-20 `Transfer`s): only a
    /// spec that names that address gets them.
    fn wants(&self, address: &[u8], topic0: Option<&[u8; 32]>) -> bool {
        if let Some(s) = &self.ds.selector {
            if topic0 != Some(s) {
                return false;
            }
        }
        if self.ds.addresses.is_empty() {
            return *address != eth_transfer::SYSTEM_ADDRESS;
        }
        self.ds.addresses.iter().any(|a| a[..] == *address)
    }

    /// The indexed and body values of one log, or `None` when it is not the event (module doc: the values
    /// must fit their columns and encode back to the same topics and data).
    fn decode(&self, topics: &[B256], data: &[u8]) -> Option<(Vec<DynSolValue>, Vec<DynSolValue>)> {
        // The shape first, before the decoder allocates: the topic count, and a static body's length.
        if topics.len() != self.ds.topics || self.ds.static_len.is_some_and(|n| n != data.len()) {
            return None;
        }
        let d = self
            .ds
            .event
            .decode_log_parts(topics.iter().copied(), data)
            .ok()?;
        let fits = self.ds.columns.iter().all(|c| {
            let from = if c.indexed { &d.indexed } else { &d.body };
            from.get(c.at).is_some_and(|v| c.kind.fits(v))
        });
        let words = topics
            .get(usize::from(self.ds.selector.is_some())..)
            .unwrap_or_default();
        if !fits
            || d.indexed
                .iter()
                .zip(words)
                .any(|(v, t)| v.as_word() != Some(*t))
        {
            return None;
        }
        if self.ds.static_len.is_some() {
            // Static values are their words in order: compared in place, nothing encoded.
            let mut at = 0;
            let same = d.body.iter().all(|v| words_match(v, data, &mut at));
            return (same && at == data.len()).then_some((d.indexed, d.body));
        }
        let body = DynSolValue::Tuple(d.body);
        if body.abi_encode_params() != data {
            return None;
        }
        match body {
            DynSolValue::Tuple(b) => Some((d.indexed, b)),
            _ => None,
        }
    }

    /// Appends the row of one log wanted by [`Self::wants`], or says it is a look-alike (`at` is asked only
    /// for a row: it hashes).
    fn add_log(
        &mut self,
        at: impl FnOnce() -> LogAt,
        address: &[u8],
        topics: &[B256],
        data: &[u8],
    ) -> Decoded {
        let ds = self.ds;
        if let Some(shapes) = &ds.shapes {
            if !ds.canonical_words(shapes, topics, data) {
                return Decoded::LookAlike;
            }
            self.add_keys(at(), address);
            self.append_words(shapes, topics, data);
            return Decoded::Rows;
        }
        let Some((indexed, body)) = self.decode(topics, data) else {
            return Decoded::LookAlike;
        };
        self.add_keys(at(), address);
        for (c, p) in ds.columns.iter().zip(&mut self.params) {
            let from = if c.indexed { &indexed } else { &body };
            if let Some(v) = from.get(c.at) {
                p.append(&c.kind, v);
            }
        }
        Decoded::Rows
    }

    /// Appends the values of a log [`DecodedEvent::canonical_words`] accepted, read from its bytes.
    fn append_words(&mut self, shapes: &[Shape], topics: &[B256], data: &[u8]) {
        let ds = self.ds;
        let skip = usize::from(ds.selector.is_some());
        for ((c, s), p) in ds.columns.iter().zip(shapes).zip(&mut self.params) {
            let word = match c.indexed {
                true => topics.get(skip + c.at).map(|t| &t.0),
                false => word_at(data, 32 * c.at),
            };
            let Some(x) = word else { continue };
            match *s {
                Shape::Word(w) => p.append_word(w, x),
                // Checked: the offset is a tail's, and its length word fits.
                s => {
                    let tail = word_usize(x).unwrap_or_default();
                    let n = word_at(data, tail).and_then(word_usize).unwrap_or_default();
                    p.append_tail(s, &c.kind, data.get(tail + 32..).unwrap_or_default(), n);
                }
            }
        }
    }

    /// Appends a row's key columns.
    fn add_keys(&mut self, at: LogAt, address: &[u8]) {
        self.block_number.append_value(at.block_number);
        self.block_hash.append_value(at.block_hash);
        self.timestamp.append_value(at.timestamp);
        self.transaction_index.append_value(at.transaction_index);
        self.transaction_hash.append_value(at.transaction_hash);
        self.log_index.append_value(at.log_index);
        self.chain.append_value(self.chain_id);
        self.address.append_value(address);
    }

    /// [`Self::add_log`] for a candidate log, counting look-alikes (only an event with a selector has them).
    fn add_candidate(
        &mut self,
        at: impl FnOnce() -> LogAt,
        address: &[u8],
        topics: &[B256],
        data: &[u8],
    ) {
        let added = self.add_log(at, address, topics, data);
        if added == Decoded::LookAlike && self.ds.selector.is_some() {
            self.lookalikes += 1;
        }
    }
}

/// Where a log sits: the key columns of its row.
#[derive(Debug, Clone, Copy)]
struct LogAt {
    block_number: u64,
    block_hash: [u8; 32],
    timestamp: u64,
    transaction_index: u32,
    transaction_hash: [u8; 32],
    log_index: u32,
}

impl DatasetBuilder for DecodedBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        // The block's logs are walked once for every decoded dataset (and `logs` and the token datasets).
        for l in b.logs() {
            let log = &l.log;
            if !self.wants(log.address, log.topics().next()) {
                if self.ds.addresses.is_empty()
                    && eth_transfer::is_system_log(log)
                    && self.ds.selector.as_ref() == log.topics().next()
                {
                    self.eth_transfer_logs += 1;
                }
                continue;
            }
            let n = log.topic_count();
            if n > 4 {
                // More topics than any event has: not this one.
                self.lookalikes += u64::from(self.ds.selector.is_some());
                continue;
            }
            let mut topics = [B256::ZERO; 4];
            for (t, w) in topics.iter_mut().zip(log.topics()) {
                *t = B256::from(*w);
            }
            // Hashed only for a row, once per block for every dataset (hashing is the costly part of a row's
            // keys).
            let at = || LogAt {
                block_number: b.number,
                block_hash: b.hash,
                timestamp: b.header.timestamp(),
                transaction_index: l.transaction_index,
                transaction_hash: b.tx_hash(l.transaction_index as usize),
                log_index: l.log_index,
            };
            self.add_candidate(at, log.address, &topics[..n], log.data);
        }
    }

    fn lookalikes(&self) -> u64 {
        self.lookalikes
    }

    fn eth_transfer_logs(&self) -> u64 {
        self.eth_transfer_logs
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let mut arrays: Vec<ArrayRef> = vec![
            Arc::new(self.block_number.finish()),
            Arc::new(self.block_hash.finish()),
            Arc::new(self.timestamp.finish()),
            Arc::new(self.transaction_index.finish()),
            Arc::new(self.transaction_hash.finish()),
            Arc::new(self.log_index.finish()),
            Arc::new(self.chain.finish()),
            Arc::new(self.address.finish()),
        ];
        for p in &mut self.params {
            p.finish_into(&mut arrays);
        }
        // Every row appends to every column, and the builders come from the schema's own types.
        RecordBatch::try_new(self.ds.table.schema.clone(), arrays)
            .unwrap_or_else(|e| panic!("{}: the columns do not make one table: {e}", self.ds.name))
    }
}

/// Reads an ABI file: a JSON ABI array, or an artifact object with an `abi` key (Foundry, Hardhat).
fn read_abi(path: &str) -> Result<JsonAbi, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str::<JsonAbi>(&text).or_else(|e| {
        #[derive(serde::Deserialize)]
        struct Artifact {
            abi: JsonAbi,
        }
        serde_json::from_str::<Artifact>(&text)
            .map(|a| a.abi)
            .map_err(|_| format!("{path}: not a JSON ABI: {e}"))
    })
}

/// How deep a parameter's type may nest: tuples inside tuples plus array dimensions, `(uint8[])[2]` being 3.
/// alloy's resolver and the column code here recurse once per level, and 800 levels overflowed the stack, so a
/// spec is measured without recursion before anything parses it. Real ABIs nest a handful of levels (a struct
/// of arrays of structs); 32 is far past any of them and far below what the stack takes.
const MAX_NESTING: usize = 32;

/// The deepest nesting of a parameter type in the event signature `sig` (see [`MAX_NESTING`]), by one pass over
/// its characters: an array suffix wraps the type before it, a closing parenthesis makes a tuple one level
/// above its deepest member. Parentheses that do not balance are left to the parser to refuse.
fn signature_nesting(sig: &str) -> usize {
    // The deepest member so far of each open parenthesis; the event's own parameter list is the first.
    let mut open: Vec<usize> = Vec::new();
    // The type being read: its depth so far (array suffixes after it add to it).
    let mut current = 0usize;
    let mut in_size = false;
    let mut deepest = 0usize;
    for c in sig.chars() {
        match c {
            '[' => {
                current += 1;
                in_size = true;
            }
            ']' => in_size = false,
            _ if in_size => {}
            '(' => {
                open.push(0);
                current = 0;
            }
            ')' => {
                let inner = open.pop().unwrap_or(0);
                // The event's own list is no level of any parameter.
                current = if open.is_empty() { 0 } else { inner + 1 };
            }
            // A new type or a name starts (a name ends the type before it: its depth is recorded already).
            _ if c.is_alphanumeric() || c == '_' || c == ',' => current = 0,
            _ => {}
        }
        if let Some(top) = open.last_mut() {
            *top = (*top).max(current);
        }
        deepest = deepest.max(current);
    }
    deepest
}

/// The deepest nesting of a parameter type of `event` from an ABI file (see [`MAX_NESTING`]): each level of
/// `components` one, each array suffix of a `type` one. Walked with a stack, not recursion.
fn abi_nesting(event: &Event) -> usize {
    let dims = |ty: &str| ty.matches('[').count();
    let mut deepest = 0;
    let mut stack: Vec<(&Param, usize)> = Vec::new();
    for p in &event.inputs {
        let d = dims(&p.ty);
        deepest = deepest.max(d);
        stack.extend(p.components.iter().map(|c| (c, d + 1)));
    }
    while let Some((p, above)) = stack.pop() {
        let d = above + dims(&p.ty);
        deepest = deepest.max(d);
        stack.extend(p.components.iter().map(|c| (c, d + 1)));
    }
    deepest
}

/// The error for a type nested `depth` levels deep, past [`MAX_NESTING`].
fn too_deep(what: &str, depth: usize) -> String {
    format!(
        "{what}: a parameter type nests {depth} levels deep (tuples and array dimensions); \
         at most {MAX_NESTING} are supported"
    )
}

/// Parses `0x`-prefixed 20-byte addresses separated by commas.
fn parse_addresses(list: &str) -> Result<Vec<[u8; 20]>, String> {
    list.split(',')
        .map(|a| {
            let a = a.trim();
            let hex = a.strip_prefix("0x").unwrap_or(a);
            let mut out = [0u8; 20];
            alloy_primitives::hex::decode_to_slice(hex, &mut out)
                .map(|()| out)
                .map_err(|_| format!("address '{a}' is not 20 bytes of hex"))
        })
        .collect()
}

/// The datasets `specs` ask for, each leaked once (see the module doc), checked before any work: a bad
/// signature, an unreadable or malformed ABI file, an ABI without events, a bad address, or a dataset name
/// taken twice (or by a built-in dataset) is an error naming the spec.
pub fn from_specs(specs: &[String]) -> Result<Vec<&'static dyn Dataset>, DecodeError> {
    Ok(events_of(specs)?
        .into_iter()
        .map(|ds| -> &'static dyn Dataset { Box::leak(Box::new(DecodedDataset(ds))) })
        .collect())
}

fn events_of(specs: &[String]) -> Result<Vec<&'static DecodedEvent>, DecodeError> {
    let mut out: Vec<&'static DecodedEvent> = Vec::new();
    for spec in specs {
        let err = |message: String| DecodeError {
            spec: spec.clone(),
            message,
        };
        let (named, rest) = match spec.split_once('=') {
            // A name is a plain identifier; `=` elsewhere belongs to a path.
            Some((n, r))
                if !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                (Some(n.to_string()), r)
            }
            _ => (None, spec.as_str()),
        };
        let (body, addresses) = match rest.rsplit_once('@') {
            Some((b, a)) => (b.trim(), parse_addresses(a).map_err(err)?),
            None => (rest.trim(), Vec::new()),
        };
        let events: Vec<(String, Event)> = if body.ends_with(".json") {
            let abi = read_abi(body).map_err(err)?;
            let events: Vec<Event> = abi.events().cloned().collect();
            if events.is_empty() {
                return Err(err(format!("{body}: the ABI has no events")));
            }
            for e in &events {
                let depth = abi_nesting(e);
                if depth > MAX_NESTING {
                    return Err(err(too_deep(&format!("{body}: event {}", e.name), depth)));
                }
            }
            // Overloads share a name: the later ones get their selector's first bytes.
            let mut seen = std::collections::HashSet::new();
            events
                .into_iter()
                .map(|e| {
                    let base = match &named {
                        Some(n) => format!("{n}_{}", e.name),
                        None => format!("event_{}", e.name),
                    };
                    let name = if seen.insert(base.clone()) {
                        base
                    } else {
                        format!(
                            "{base}_{}",
                            alloy_primitives::hex::encode(&e.selector()[..4])
                        )
                    };
                    (name, e)
                })
                .collect()
        } else {
            let depth = signature_nesting(body);
            if depth > MAX_NESTING {
                return Err(err(too_deep("event signature", depth)));
            }
            let e = Event::parse(body).map_err(|e| err(format!("not an event signature: {e}")))?;
            let name = named.clone().unwrap_or_else(|| format!("event_{}", e.name));
            vec![(name, e)]
        };
        for (name, event) in events {
            let taken = super::ALL
                .iter()
                .map(|d| d.name())
                .chain(out.iter().map(|d| d.name));
            if taken.into_iter().any(|n| n == name) {
                return Err(err(format!(
                    "dataset name '{name}' is taken: give the spec a name (NAME=...)"
                )));
            }
            let indexed = event
                .inputs
                .iter()
                .filter(|p: &&EventParam| p.indexed)
                .count();
            if indexed + usize::from(!event.anonymous) > 4 {
                return Err(err(format!(
                    "event {}: {indexed} indexed parameters; a log has at most 4 topics",
                    event.name
                )));
            }
            let ds = DecodedEvent::new(name, &event, addresses.clone()).map_err(err)?;
            out.push(Box::leak(Box::new(ds)));
        }
    }
    Ok(out)
}

/// One log outside an archive: the emitting contract, topics and data.
#[derive(Debug, Clone)]
pub struct LooseLog {
    /// The emitting contract (20 bytes).
    pub address: Vec<u8>,
    /// Its topics.
    pub topics: Vec<B256>,
    /// Its data.
    pub data: Vec<u8>,
}

/// The rows `spec`'s (first) event gives for `logs`, the n-th log at block n with log index n and zeroed
/// hashes, and how many were look-alikes: decoding without an archive, for checks against other decoders and
/// for the bench.
pub fn decode_logs(spec: &str, logs: &[LooseLog]) -> Result<(RecordBatch, u64), DecodeError> {
    let ds = events_of(&[spec.to_string()])?
        .into_iter()
        .next()
        .ok_or_else(|| DecodeError {
            spec: spec.to_string(),
            message: "no event".into(),
        })?;
    let mut decoded = DecodedBuilder::new(ds, 1);
    for (n, log) in logs.iter().enumerate() {
        if !decoded.wants(&log.address, log.topics.first().map(|t| &t.0)) {
            continue;
        }
        let at = || LogAt {
            block_number: n as u64,
            block_hash: [0; 32],
            timestamp: 0,
            transaction_index: 0,
            transaction_hash: [0; 32],
            log_index: n as u32,
        };
        decoded.add_candidate(at, &log.address, &log.topics, &log.data);
    }
    let lookalikes = decoded.lookalikes;
    Ok((Box::new(decoded).finish(), lookalikes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_tuples_and_array_dimensions() {
        for (sig, depth) in [
            (
                "Transfer(address indexed from, address indexed to, uint256 value)",
                0,
            ),
            ("E(uint8[2][] x)", 2),
            ("E((uint8[])[2] x, bool y)", 3),
            (
                "event E(tuple(uint256, (bytes32, address[])[]) indexed c) anonymous",
                4,
            ),
            ("E(((((uint8)))) x, uint8[][][] y)", 4),
            ("E(uint8[][] x", 2),
        ] {
            assert_eq!(signature_nesting(sig), depth, "{sig}");
            if sig.ends_with(')') || sig.ends_with("anonymous") {
                let e = Event::parse(sig).unwrap();
                assert_eq!(abi_nesting(&e), depth, "{sig}");
            }
        }
    }

    #[test]
    fn uint64_parameters_are_wide_and_the_standard_columns_are_not() {
        let spec =
            "W(uint64 indexed a, uint32 b, uint64[] c, (uint64,bool) d, uint112 e)".to_string();
        let d = from_specs(&[spec]).unwrap()[0];
        assert_eq!(d.wide_columns(), ["a", "c", "d"]);
        assert!(d.schema().field_with_name("block_number").is_ok());
    }

    /// A small deterministic generator (xorshift64*): the test needs no seed file and no `rand`.
    struct Gen(u64);
    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> usize {
            (self.next() % n) as usize
        }
        /// A word near the edges the canonical checks draw: zero or 0xff runs of every length, then random
        /// bytes, and small values at the end.
        fn word(&mut self) -> [u8; 32] {
            let mut w = [0u8; 32];
            for b in w.iter_mut() {
                *b = self.next() as u8;
            }
            let run = self.below(33);
            let fill = match self.below(3) {
                0 => 0xff,
                _ => 0,
            };
            w[..run].fill(fill);
            match self.below(6) {
                0 => w[31] = self.below(3) as u8,
                1 if run < 32 => w[run] |= 0x80,
                2 if run < 32 => w[run] &= 0x7f,
                3 => w[run.min(31)..].fill(0),
                _ => {}
            }
            w
        }
        /// A random word that is the encoding of a value of type `t`, its padding or sign run of any length.
        fn valid(&mut self, t: Word) -> [u8; 32] {
            let mut w = self.word();
            let keep = |w: &mut [u8; 32], n: usize| w[..n].fill(0);
            match t {
                Word::Address => keep(&mut w, 12),
                Word::Bool => w = U256::from(self.below(2)).to_be_bytes(),
                Word::Uint(bits) => keep(&mut w, 32 - bits / 8),
                Word::Int(bits) => {
                    let top = 32 - bits / 8;
                    let fill = if w[top] & 0x80 != 0 { 0xff } else { 0 };
                    w[..top].fill(fill);
                }
                Word::Fixed(n) => w[n..].fill(0),
                Word::Function => w[24..].fill(0),
                Word::Hash => {}
            }
            w
        }
    }

    /// The canonical encoding of a random log of `ev` (every shape's value random and valid): its topics
    /// and data.
    fn encode(g: &mut Gen, ev: &DecodedEvent) -> (Vec<B256>, Vec<u8>) {
        let skip = usize::from(ev.selector.is_some());
        let mut topics = vec![B256::ZERO; ev.topics];
        let mut head = vec![[0u8; 32]; ev.n_body];
        let mut tails: Vec<u8> = Vec::new();
        for (c, s) in ev.columns.iter().zip(ev.shapes.iter().flatten()) {
            match (*s, c.indexed) {
                (Shape::Word(w), true) => topics[skip + c.at] = B256::from(g.valid(w)),
                (Shape::Word(w), false) => head[c.at] = g.valid(w),
                (s, _) => {
                    head[c.at] = U256::from(32 * ev.n_body + tails.len()).to_be_bytes();
                    let (len, mut content): (usize, Vec<u8>) = match s {
                        Shape::List(w) => {
                            let n = g.below(4);
                            (n, (0..n).flat_map(|_| g.valid(w)).collect())
                        }
                        Shape::Bytes => {
                            let n = g.below(70);
                            (n, (0..n).map(|_| g.next() as u8).collect())
                        }
                        _ => {
                            let t = ["", "a", "h\u{e9}llo w\u{f6}rld \u{2713}", &"x".repeat(33)];
                            let t = t[g.below(4)];
                            (t.len(), t.as_bytes().to_vec())
                        }
                    };
                    content.resize(content.len().next_multiple_of(32), 0);
                    tails.extend(U256::from(len).to_be_bytes::<32>());
                    tails.extend(content);
                }
            }
        }
        if let (Some(s), Some(t)) = (ev.selector, topics.first_mut()) {
            *t = B256::from(s);
        }
        let mut data = head.concat();
        data.extend(tails);
        (topics, data)
    }

    /// The word path and alloy's decoder path give the same rows and the same look-alikes, log for log, on
    /// canonical logs and on logs with one change: a word at an edge of its type (or random) in a topic or
    /// the body, a flipped byte (padding, offsets, lengths, UTF-8), a word or byte more or less, a topic
    /// more or less.
    #[test]
    fn word_path_equals_decoder_path() {
        let signatures = [
            "A(address indexed a, int24 indexed b, string indexed s, bool c, uint8 d, int16 e, uint112 f, \
             int256 g, bytes3 h, function i, int64 j, uint64 k, int128 l, bytes32 m, uint256 n, int8 o)",
            "B(uint256 indexed a, bool indexed b, address indexed c, int8 indexed d, uint200 e) anonymous",
            "C(bytes32 indexed a, uint24[2] indexed b, (uint8,bool) indexed c, int40 d, bytes1 e)",
            "D(address indexed from, string name, uint256[] ids, bytes data, bool flag, address[] who, \
             int8[] small, bytes32 tag)",
            "E(string s, bytes b, int256[] x) anonymous",
        ];
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        for sig in signatures {
            let event = Event::parse(sig).unwrap();
            let fast: &'static DecodedEvent = Box::leak(Box::new(
                DecodedEvent::new("t".into(), &event, vec![]).unwrap(),
            ));
            assert!(fast.shapes.is_some(), "{sig}: every column has a shape");
            let mut slow = DecodedEvent::new("t".into(), &event, vec![]).unwrap();
            slow.shapes = None;
            let slow: &'static DecodedEvent = Box::leak(Box::new(slow));
            let (mut a, mut b) = (DecodedBuilder::new(fast, 1), DecodedBuilder::new(slow, 1));
            let skip = usize::from(fast.selector.is_some());
            for n in 0..20_000u32 {
                let (mut topics, mut data) = encode(&mut g, fast);
                let words = data.len() / 32;
                match g.below(14) {
                    0 | 1 if topics.len() > skip => {
                        let i = skip + g.below((topics.len() - skip) as u64);
                        topics[i] = B256::from(g.word());
                    }
                    2..=4 if words > 0 => {
                        let i = 32 * g.below(words as u64);
                        data[i..i + 32].copy_from_slice(&g.word());
                    }
                    5 | 6 if !data.is_empty() => {
                        let i = g.below(data.len() as u64);
                        data[i] ^= 1 << g.below(8);
                    }
                    7 => data.extend([0; 32]),
                    8 => data.truncate(data.len().saturating_sub(32)),
                    9 => data.push(0),
                    10 if topics.len() < 4 => topics.push(B256::from(g.word())),
                    11 => {
                        topics.pop();
                    }
                    _ => {}
                }
                let at = || LogAt {
                    block_number: n.into(),
                    block_hash: [1; 32],
                    timestamp: 2,
                    transaction_index: n,
                    transaction_hash: [3; 32],
                    log_index: n,
                };
                let x = a.add_log(at, &[7; 20], &topics, &data);
                let y = b.add_log(at, &[7; 20], &topics, &data);
                assert_eq!(
                    x,
                    y,
                    "{sig}: log {n}: topics {topics:?} data {}",
                    alloy_primitives::hex::encode(&data)
                );
            }
            let (a, b) = (Box::new(a).finish(), Box::new(b).finish());
            assert!(
                a.num_rows() > 5_000,
                "{sig}: {} rows: most logs are the event",
                a.num_rows()
            );
            assert!(
                a.num_rows() < 19_000,
                "{sig}: {} rows: and look-alikes",
                a.num_rows()
            );
            assert_eq!(a, b, "{sig}");
        }
    }
}
