//! Column groups shared by datasets: the uint256 triple, the fee group (cryo's `uint64` beside the triple) and
//! the `list<uint64>` column.

use super::table::{ColumnGroup, Spec};
use alloy_primitives::U256;
use arrow_array::builder::{
    BinaryBuilder, Float64Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field};
use std::sync::Arc;

/// Builders for one uint256 triple.
#[derive(Default)]
pub struct U256Columns {
    binary: BinaryBuilder,
    string: StringBuilder,
    f64: Float64Builder,
}

impl U256Columns {
    /// Appends a value (or nulls).
    pub fn append(&mut self, v: Option<U256>) {
        match v {
            Some(v) => {
                self.binary.append_value(v.to_be_bytes::<32>());
                append_decimal(&mut self.string, &v, false);
                self.f64.append_value(to_f64(&v));
            }
            None => {
                self.binary.append_null();
                self.string.append_null();
                self.f64.append_null();
            }
        }
    }
}

/// The three columns `<name>_binary` (32-byte big-endian), `<name>_string` (decimal) and `<name>_f64`.
impl ColumnGroup for U256Columns {
    fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
        vec![
            Field::new(format!("{name}_binary"), DataType::Binary, spec.nullable),
            Field::new(format!("{name}_string"), DataType::Utf8, spec.nullable),
            Field::new(format!("{name}_f64"), DataType::Float64, spec.nullable),
        ]
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        out.push(Arc::new(self.binary.finish()));
        out.push(Arc::new(self.string.finish()));
        out.push(Arc::new(self.f64.finish()));
    }
}

/// Builders of a `list<uint64>` column whose items are never null (validator indices).
pub struct U64ListColumn(pub ListBuilder<UInt64Builder>);

impl Default for U64ListColumn {
    fn default() -> Self {
        U64ListColumn(ListBuilder::new(UInt64Builder::new()).with_field(Arc::new(u64_item())))
    }
}

impl U64ListColumn {
    /// Appends one list.
    pub fn append(&mut self, items: &[u64]) {
        self.0.values().append_slice(items);
        self.0.append(true);
    }
}

pub(super) fn u64_item() -> Field {
    Field::new("item", DataType::UInt64, false)
}

impl ColumnGroup for U64ListColumn {
    fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
        vec![Field::new(
            name,
            DataType::List(Arc::new(u64_item())),
            spec.nullable,
        )]
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        out.push(Arc::new(self.0.finish()));
    }
}

/// The nearest f64, correctly rounded (round to nearest, ties to even): ruint's conversion takes the top 53
/// bits with a guard bit and a sticky bit for the rest, so `value_f64` is what an exact decimal-to-double parse of
/// `value_string` gives (a limb-by-limb sum rounds twice, 1 ULP off for some values between 2^64 and 2^76).
pub fn to_f64(v: &U256) -> f64 {
    f64::from(v)
}

/// Appends the decimal digits of `v` to `b` (`negative`: with a minus sign; `v` is then the magnitude).
/// Values that fit 128 bits (nearly all amounts) go through `itoa`, the rest through ruint's `Display`.
pub fn append_decimal(b: &mut StringBuilder, v: &U256, negative: bool) {
    use std::fmt::Write;
    let mut digits = itoa::Buffer::new();
    let small = match (u64::try_from(*v), u128::try_from(*v)) {
        (Ok(x), _) => Some(digits.format(x)),
        (_, Ok(x)) => Some(digits.format(x)),
        _ => None,
    };
    if negative && !v.is_zero() {
        b.write_str("-").ok();
    }
    match small {
        Some(s) => b.append_value(s),
        None => {
            let _ = write!(b, "{v}");
            b.append_value("");
        }
    }
}

/// Builders for a fee: cryo's `uint64` column `<name>` beside the uint256 triple.
#[derive(Default)]
pub struct FeeColumns {
    u64: UInt64Builder,
    triple: U256Columns,
}

impl FeeColumns {
    /// Appends a fee (or nulls). `<name>` is null above 2^64 - 1, where the triple still holds the value: a
    /// null says "does not fit", where cryo's `as u64` would wrap to a wrong number. No mined fee comes near
    /// (2^64 wei per gas is ~18 ETH per gas).
    pub fn append(&mut self, v: Option<U256>) {
        self.u64
            .append_option(v.and_then(|v| u64::try_from(v).ok()));
        self.triple.append(v);
    }
}

/// `<name>` (uint64, always nullable: null above 2^64 - 1) and the triple `<name>_{binary,string,f64}`.
impl ColumnGroup for FeeColumns {
    fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
        let mut fields = vec![Field::new(name, DataType::UInt64, true)];
        fields.extend(U256Columns::fields(name, spec));
        fields
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        out.push(Arc::new(self.u64.finish()));
        self.triple.finish_into(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact oracle: Rust's decimal parse of `v`'s digits is correctly rounded (round to nearest, ties to
    /// even; core's `dec2flt`), whatever path `to_f64` takes.
    fn exact(v: &U256) -> f64 {
        v.to_string().parse().expect("decimal digits parse")
    }

    /// Edge values (around 2^53, 2^64, 2^128, ..., rounding ties) and random ones of every bit length.
    fn edge_values() -> Vec<U256> {
        let one = U256::from(1u64);
        let p = |n: usize| one << n;
        let mut values = vec![U256::ZERO, one, U256::from(12345u64), U256::MAX];
        for n in [53, 54, 64, 65, 75, 76, 128, 200, 255] {
            values.extend([p(n) - one, p(n), p(n) + one]);
        }
        // Ties between two doubles (half an ULP above 2^64 + one ULP, and the even neighbour), and a tie broken
        // by a sticky bit far below: round half to even, and up when anything lies beyond the half.
        let ulp64 = p(64 - 52);
        values.extend([
            p(64) + ulp64 / U256::from(2u64),
            p(64) + ulp64 + ulp64 / U256::from(2u64),
            p(64) + ulp64 / U256::from(2u64) + one,
            p(75) + p(75 - 53),
            p(75) + p(75 - 53) + one,
        ]);
        // Random values of every bit length (a fixed xorshift, so a failure reproduces).
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for bits in 1..=256usize {
            for _ in 0..40 {
                let limbs = [next(), next(), next(), next()];
                values.push(U256::from_limbs(limbs) >> (256 - bits));
            }
        }
        values
    }

    #[test]
    fn f64_is_the_nearest_double() {
        let values = edge_values();
        let wrong: Vec<_> = values
            .iter()
            .filter(|v| to_f64(v).to_bits() != exact(v).to_bits())
            .map(|v| format!("{v}: {} vs exact {}", to_f64(v), exact(v)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        // The limb-by-limb sum eraflow used before gave 2.1892832946444180e19 here, 1 ULP above.
        let v: U256 = "21892832946444179435".parse().expect("digits");
        assert_eq!(to_f64(&v), 2.1892832946444177e19);
    }

    #[test]
    fn decimal_digits_are_display_s() {
        let values = edge_values();
        let mut b = StringBuilder::new();
        for v in &values {
            append_decimal(&mut b, v, false);
            append_decimal(&mut b, v, true);
        }
        let s = b.finish();
        for (i, v) in values.iter().enumerate() {
            assert_eq!(s.value(2 * i), v.to_string());
            let minus = if v.is_zero() { "" } else { "-" };
            assert_eq!(s.value(2 * i + 1), format!("{minus}{v}"));
        }
    }

    #[test]
    fn fee_u64_is_null_above_u64_max() {
        let mut c = FeeColumns::default();
        c.append(Some(U256::from(u64::MAX)));
        c.append(Some(U256::from(u64::MAX) + U256::from(1u64)));
        c.append(None);
        let mut out = Vec::new();
        c.finish_into(&mut out);
        use arrow_array::cast::AsArray;
        use arrow_array::types::UInt64Type;
        use arrow_array::Array;
        let u = out[0].as_primitive::<UInt64Type>();
        assert_eq!(
            (0..3)
                .map(|i| u.is_valid(i).then(|| u.value(i)))
                .collect::<Vec<_>>(),
            [Some(u64::MAX), None, None]
        );
        let s = out[2].as_string::<i32>();
        assert_eq!(s.value(1), "18446744073709551616");
        assert!(s.is_null(2));
    }
}
