//! Column builders shared by datasets: the uint256 triple and small helpers over Arrow builders.

use alloy_primitives::U256;
use arrow_array::builder::{BinaryBuilder, Float64Builder, StringBuilder};
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field};
use std::sync::Arc;

/// The three columns of one uint256: `<name>_binary`, `<name>_string`, `<name>_f64`.
pub fn u256_fields(name: &str, nullable: bool) -> [Field; 3] {
    [
        Field::new(format!("{name}_binary"), DataType::Binary, nullable),
        Field::new(format!("{name}_string"), DataType::Utf8, nullable),
        Field::new(format!("{name}_f64"), DataType::Float64, nullable),
    ]
}

/// Builders for one uint256 triple.
#[derive(Default)]
pub struct U256Columns {
    binary: BinaryBuilder,
    string: StringBuilder,
    f64: Float64Builder,
    digits: String,
}

impl U256Columns {
    /// Appends a value (or nulls).
    pub fn append(&mut self, v: Option<U256>) {
        match v {
            Some(v) => {
                self.binary.append_value(v.to_be_bytes::<32>());
                use std::fmt::Write;
                self.digits.clear();
                let _ = write!(self.digits, "{v}");
                self.string.append_value(&self.digits);
                self.f64.append_value(to_f64(&v));
            }
            None => {
                self.binary.append_null();
                self.string.append_null();
                self.f64.append_null();
            }
        }
    }

    /// The three finished arrays, in field order.
    pub fn finish(mut self) -> [ArrayRef; 3] {
        [
            Arc::new(self.binary.finish()),
            Arc::new(self.string.finish()),
            Arc::new(self.f64.finish()),
        ]
    }
}

/// The nearest f64 (rounding per limb; exact up to 2^53, relative error < 2^-52 beyond).
pub fn to_f64(v: &U256) -> f64 {
    v.as_limbs()
        .iter()
        .rev()
        .fold(0.0, |acc, &limb| acc * 18446744073709551616.0 + limb as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_conversion() {
        assert_eq!(to_f64(&U256::from(12345u64)), 12345.0);
        assert_eq!(to_f64(&(U256::from(1u64) << 200)), 2f64.powi(200));
        assert_eq!(to_f64(&U256::MAX), 2f64.powi(256));
    }
}
