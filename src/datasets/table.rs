//! A dataset's columns, declared once: `columns!` turns one list of `name: Builder [flags]` lines into the
//! builder struct (one typed Arrow builder, or group of builders, per entry), the Arrow schema with the
//! Parquet encoding roles ([`Table`]), and the arrays in schema order ([`Columns::finish_batch`]).
//!
//! Each entry's type is a [`ColumnGroup`]: a plain Arrow builder is one column named after its field; a group
//! (the uint256 triple [`U256Columns`](super::columns::U256Columns), the operation key
//! [`KeyColumns`](super::operations::KeyColumns), a list or struct column) says what its fields are called
//! and finishes them in that order. Rows are still appended to the concrete builders, field by field, so the
//! declaration costs the hot path nothing.
//!
//! Flags say `nullable`, and the encoding roles the column plays in its Parquet file: `sort`, `dictionary`,
//! `repeated`, `delta` ([`Spec`]). `withdrawal_requests`, say:
//!
//! ```ignore
//! columns! {
//!     struct WithdrawalRequestsColumns {
//!         key: KeyColumns [sort], // slot, block_root, index_in_block; sorted by slot, index_in_block
//!         source_address: BinaryBuilder [dictionary],
//!         validator_pubkey: BinaryBuilder,
//!         amount_gwei: UInt64Builder,
//!     }
//! }
//! ```

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Float64Builder, ListBuilder, StringBuilder, UInt32Builder,
    UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// Writes a dataset's builder struct from its column list, each line `name: Type [flags]` (flags optional,
/// fields of [`Spec`]: `nullable`, `sort`, `dictionary`, `repeated`, `delta`), with `#[derive(Default)]` and
/// the [`Columns`] impl: the schema and roles in list order, and [`Columns::finish_into`] in the same order.
macro_rules! columns {
    (@spec) => {
        $crate::datasets::table::Spec::PLAIN
    };
    // A misspelt flag is a compile error: `Spec` has no such field.
    (@spec $($flag:ident)+) => {
        $crate::datasets::table::Spec {
            $($flag: true,)+
            ..$crate::datasets::table::Spec::PLAIN
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$doc:meta])* $col:ident : $ty:ty $([$($flag:ident),+ $(,)?])? ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Default)]
        $vis struct $name {
            $( $(#[$doc])* $col: $ty, )+
        }

        impl $crate::datasets::table::Columns for $name {
            fn table() -> &'static $crate::datasets::table::Table {
                static TABLE: std::sync::LazyLock<$crate::datasets::table::Table> =
                    std::sync::LazyLock::new(|| {
                        let mut t = $crate::datasets::table::TableBuilder::default();
                        $( t.add::<$ty>(stringify!($col), columns!(@spec $($($flag)+)?)); )+
                        t.build()
                    });
                &TABLE
            }

            fn finish_into(&mut self, out: &mut Vec<arrow_array::ArrayRef>) {
                $( $crate::datasets::table::ColumnGroup::finish_into(&mut self.$col, out); )+
            }
        }
    };
}
// Reachable by path too (`use crate::datasets::table::columns`), for a dataset declared outside this folder
// (the export stage's seam test).
#[allow(unused_imports)]
pub(crate) use columns;

/// What a column's declaration says besides its name and type: whether it may be null, and the Parquet
/// encoding roles its column (or, for a group, the columns the group names) plays. The roles are the lists
/// [`Dataset`](super::Dataset) hands the writer; see its methods for what each does.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The column may be null.
    pub nullable: bool,
    /// Rows are sorted by it (sort columns in declaration order: [`Dataset::sort_columns`](super::Dataset)).
    pub sort: bool,
    /// Binary values that repeat across rows: dictionary-encoded under the light codecs.
    pub dictionary: bool,
    /// Binary values in long runs of repeats: dictionary-encoded under every codec.
    pub repeated: bool,
    /// Integers that grow steadily from row to row: delta-encoded.
    pub delta: bool,
    /// `uint64` values past 2^63 - 1 (FAR_FUTURE_EPOCH, a sentinel index): `decimal(20, 0)` where a table format
    /// has no unsigned type (`crate::sink::portable`), `int64` otherwise.
    pub wide: bool,
}

impl Spec {
    /// Not null, no encoding role.
    pub const PLAIN: Spec = Spec {
        nullable: false,
        sort: false,
        dictionary: false,
        repeated: false,
        delta: false,
        wide: false,
    };
}

/// The columns playing each encoding role, in declaration order.
#[derive(Debug, Default)]
pub struct Roles {
    /// Sort order.
    pub sort: Vec<&'static str>,
    /// Dictionary-encoded under the light codecs.
    pub dictionary: Vec<&'static str>,
    /// Dictionary-encoded under every codec.
    pub repeated: Vec<&'static str>,
    /// Delta-encoded.
    pub delta: Vec<&'static str>,
    /// `uint64` past 2^63 - 1.
    pub wide: Vec<&'static str>,
}

impl Roles {
    /// Gives column `name` the roles `spec` sets.
    pub fn add(&mut self, name: &'static str, spec: Spec) {
        for (on, list) in [
            (spec.sort, &mut self.sort),
            (spec.dictionary, &mut self.dictionary),
            (spec.repeated, &mut self.repeated),
            (spec.delta, &mut self.delta),
            (spec.wide, &mut self.wide),
        ] {
            if on {
                list.push(name);
            }
        }
    }
}

/// One entry of a column list: an Arrow builder for one column, or a group of builders for several.
pub trait ColumnGroup {
    /// The fields of the entry declared as `name` with `spec`, in the order [`Self::finish_into`] pushes
    /// their arrays.
    fn fields(name: &'static str, spec: Spec) -> Vec<Field>;

    /// Records the encoding roles `spec` gives: by default to the one column `name` (a group whose columns
    /// are named otherwise says which of them take which role).
    fn roles(name: &'static str, spec: Spec, roles: &mut Roles) {
        roles.add(name, spec);
    }

    /// Pushes the finished arrays, leaving the builders empty.
    fn finish_into(&mut self, out: &mut Vec<ArrayRef>);
}

/// `ColumnGroup` for Arrow builders of one primitive column.
macro_rules! single_columns {
    ($($builder:ty => $data_type:expr),+ $(,)?) => {
        $(
            impl ColumnGroup for $builder {
                fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
                    vec![Field::new(name, $data_type, spec.nullable)]
                }

                fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
                    out.push(Arc::new(self.finish()));
                }
            }
        )+
    };
}

single_columns!(
    UInt8Builder => DataType::UInt8,
    UInt32Builder => DataType::UInt32,
    UInt64Builder => DataType::UInt64,
    Float64Builder => DataType::Float64,
    BooleanBuilder => DataType::Boolean,
    BinaryBuilder => DataType::Binary,
    StringBuilder => DataType::Utf8,
);

/// A `list<binary>` column with nullable items (the builder's default item field).
impl ColumnGroup for ListBuilder<BinaryBuilder> {
    fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
        let item = Field::new("item", DataType::Binary, true);
        vec![Field::new(
            name,
            DataType::List(Arc::new(item)),
            spec.nullable,
        )]
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        out.push(Arc::new(self.finish()));
    }
}

/// A dataset's schema and the columns playing each encoding role, from its column list.
#[derive(Debug)]
pub struct Table {
    /// The Arrow schema of every batch.
    pub schema: SchemaRef,
    /// The encoding roles.
    pub roles: Roles,
}

/// Collects a column list's fields and roles, entry by entry (`columns!` writes the calls).
#[derive(Default)]
pub struct TableBuilder {
    fields: Vec<Field>,
    roles: Roles,
}

impl TableBuilder {
    /// Appends entry `name` of type `G`.
    pub fn add<G: ColumnGroup>(&mut self, name: &'static str, spec: Spec) {
        self.fields.extend(G::fields(name, spec));
        G::roles(name, spec, &mut self.roles);
    }

    /// The table.
    pub fn build(self) -> Table {
        Table {
            schema: Arc::new(Schema::new(self.fields)),
            roles: self.roles,
        }
    }
}

/// A builder struct written by `columns!`: its table, and its arrays in schema order.
pub trait Columns: Default + Send + 'static {
    /// The schema and roles of the column list (built once).
    fn table() -> &'static Table;

    /// Pushes every column's finished array, in schema order.
    fn finish_into(&mut self, out: &mut Vec<ArrayRef>);

    /// The rows appended so far as one batch, leaving the builders empty.
    fn finish_batch(&mut self) -> RecordBatch {
        let schema = &Self::table().schema;
        let mut arrays = Vec::with_capacity(schema.fields().len());
        self.finish_into(&mut arrays);
        // Fields and arrays come from one list, so only columns of unequal lengths (a row appended to some
        // builders and not to others, a bug) can fail here.
        RecordBatch::try_new(schema.clone(), arrays).unwrap_or_else(|e| {
            panic!(
                "{}: the columns do not make one table: {e}",
                std::any::type_name::<Self>()
            )
        })
    }
}
