//! Portable column types, for table formats whose type systems have no unsigned integers (Delta Lake, and the
//! engines behind it: Spark, Trino, ClickHouse's Delta reader): each unsigned column widened to the signed type
//! that holds every value — `uint8` to `int16`, `uint16` to `int32`, `uint32` to `int64`, as Spark reads
//! unsigned Parquet — and `uint64` to `int64`, or to `decimal(20, 0)` for the columns declared `wide` (values
//! past 2^63 - 1: the spec's FAR_FUTURE_EPOCH, the self-built builder index, a decoded `uint64`). A value that
//! does not fit its portable column is an error naming the column, never a wrapped number.

use arrow_array::{ArrayRef, RecordBatch};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use std::sync::Arc;

/// `uint64` in a `wide` column: every value, exactly.
pub const WIDE: DataType = DataType::Decimal128(20, 0);

/// The portable type of `dt` (nested types converted inside; `wide`: `uint64` becomes [`WIDE`]).
pub fn portable_type(dt: &DataType, wide: bool) -> DataType {
    let field = |f: &Field| {
        Arc::new(Field::new(
            f.name(),
            portable_type(f.data_type(), wide),
            f.is_nullable(),
        ))
    };
    match dt {
        DataType::UInt8 => DataType::Int16,
        DataType::UInt16 => DataType::Int32,
        DataType::UInt32 => DataType::Int64,
        DataType::UInt64 if wide => WIDE,
        DataType::UInt64 => DataType::Int64,
        DataType::List(f) => DataType::List(field(f)),
        DataType::LargeList(f) => DataType::LargeList(field(f)),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(field(f), *n),
        DataType::Struct(fs) => DataType::Struct(Fields::from(
            fs.iter().map(|f| field(f)).collect::<Vec<_>>(),
        )),
        other => other.clone(),
    }
}

/// The portable schema of `schema`, whose top-level columns `wide` take `uint64` as [`WIDE`] (field
/// metadata and the schema's own kept).
pub fn portable_schema(schema: &Schema, wide: &[&str]) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let w = wide.contains(&f.name().as_str());
            f.as_ref()
                .clone()
                .with_data_type(portable_type(f.data_type(), w))
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The portable schema of `dataset`'s batches (its `wide` columns as [`WIDE`]).
pub fn dataset_schema(dataset: &dyn crate::datasets::Dataset) -> SchemaRef {
    portable_schema(&dataset.schema(), dataset.wide_columns())
}

/// `batch` with its columns cast to `schema`'s types (a portable schema of the batch's own); a value that
/// does not fit is an error naming its column.
pub fn portable_batch(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
    if batch.schema().fields() == schema.fields() {
        return Ok(batch.clone());
    }
    // Checked: an overflow is an error, not a null or a wrapped value.
    let opts = CastOptions {
        safe: false,
        ..Default::default()
    };
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| match c.data_type() == f.data_type() {
            true => Ok(c.clone()),
            false => cast_with_options(c, f.data_type(), &opts).map_err(|e| {
                ArrowError::CastError(format!(
                    "column {} as {}: {e} (a value past its portable type: declare the column wide)",
                    f.name(),
                    f.data_type()
                ))
            }),
        })
        .collect::<Result<Vec<ArrayRef>, _>>()?;
    RecordBatch::try_new(schema.clone(), columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{ListBuilder, UInt64Builder};
    use arrow_array::{Array, Decimal128Array, Int64Array, UInt32Array, UInt64Array};

    fn batch(values: Vec<u64>) -> RecordBatch {
        let mut list = ListBuilder::new(UInt64Builder::new());
        list.values().append_value(7);
        list.append(true);
        for _ in 1..values.len() {
            list.append(true);
        }
        let schema = Schema::new(vec![
            Field::new("epoch", DataType::UInt64, false),
            Field::new("n", DataType::UInt32, false),
            Field::new("indices", list.finish().data_type().clone(), true),
        ]);
        let mut list = ListBuilder::new(UInt64Builder::new());
        list.values().append_value(7);
        list.append(true);
        for _ in 1..values.len() {
            list.append(true);
        }
        let n = values.len();
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(UInt64Array::from(values)),
                Arc::new(UInt32Array::from(vec![u32::MAX; n])),
                Arc::new(list.finish()),
            ],
        )
        .unwrap()
    }

    #[test]
    fn wide_columns_keep_every_value_and_narrow_ones_refuse_what_does_not_fit() {
        let b = batch(vec![0, u64::MAX]);
        let wide = portable_schema(&b.schema(), &["epoch"]);
        assert_eq!(wide.field(0).data_type(), &WIDE);
        assert_eq!(wide.field(1).data_type(), &DataType::Int64);
        let out = portable_batch(&b, &wide).unwrap();
        let epochs = out.column(0).as_any().downcast_ref::<Decimal128Array>();
        assert_eq!(epochs.unwrap().value(1), u64::MAX as i128);
        let n = out.column(1).as_any().downcast_ref::<Int64Array>();
        assert_eq!(n.unwrap().value(0), u32::MAX as i64);
        assert_eq!(out.column(2).len(), 2);

        let narrow = portable_schema(&b.schema(), &[]);
        let err = portable_batch(&b, &narrow).unwrap_err().to_string();
        assert!(err.contains("column epoch"), "{err}");
        // What fits goes through.
        assert!(portable_batch(&batch(vec![1, i64::MAX as u64]), &narrow).is_ok());
    }
}
