//! Column groups shared by datasets: the uint256 triple and the `list<uint64>` column.

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

fn u64_item() -> Field {
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
