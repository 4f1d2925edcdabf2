//! [`TableWriter`]: appends batches of rows, in order, to a Parquet file and writes a row group
//! of exactly [`GROUP_ROWS`] rows as each fills, so memory holds one row group whatever the
//! input, and the file is the same however its rows were batched. Pages are zstd-compressed;
//! label columns are dictionary-encoded, the others plain.

use std::io::{self, Write};
use std::ops::Range;
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type};

use super::{Batch, GROUP_ROWS, Kind, Schema, Values};

/// The key of the file metadata entry holding [`Schema::to_text`].
pub const SCHEMA_KEY: &str = "pgnkit.schema";

/// A Parquet error as an I/O error, so outputs report it as they report a failed write.
pub fn io_error(e: ParquetError) -> io::Error {
    match e {
        ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(e) => *e,
            Err(inner) => io::Error::other(inner),
        },
        e => io::Error::other(e),
    }
}

/// The Parquet schema of `schema`.
fn parquet_schema(schema: &Schema) -> Result<Type, ParquetError> {
    let mut fields = Vec::new();
    for f in &schema.fields {
        let (physical, logical) = match f.kind {
            Kind::Int64 => (Physical::INT64, None),
            Kind::Int32 => (Physical::INT32, None),
            Kind::Float64 => (Physical::DOUBLE, None),
            Kind::Text | Kind::Label => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            Kind::Date => (Physical::INT32, Some(LogicalType::Date)),
        };
        let repetition = if f.nullable { Repetition::OPTIONAL } else { Repetition::REQUIRED };
        let t = Type::primitive_type_builder(&f.name, physical)
            .with_repetition(repetition)
            .with_logical_type(logical)
            .build()?;
        fields.push(Arc::new(t));
    }
    Type::group_type_builder("schema").with_fields(fields).build()
}

/// The writer's settings: zstd level 1 pages, dictionaries for label columns only (FENs and
/// numbers gain nothing from one), no statistics for plain text, `pgnkit VERSION` as the writer's name, the schema in the
/// metadata.
fn properties(schema: &Schema) -> Result<WriterProperties, ParquetError> {
    let mut props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
        .set_dictionary_enabled(false)
        .set_created_by(concat!("pgnkit ", env!("CARGO_PKG_VERSION")).to_string())
        .set_key_value_metadata(Some(vec![KeyValue::new(SCHEMA_KEY.to_string(), schema.to_text())]));
    for f in &schema.fields {
        let path = ColumnPath::from(f.name.as_str());
        match f.kind {
            Kind::Label => props = props.set_column_dictionary_enabled(path, true),
            // A FEN's minimum and maximum select nothing: 8% of `positions` time comparing them.
            Kind::Text => props = props.set_column_statistics_enabled(path, EnabledStatistics::None),
            _ => {}
        }
    }
    Ok(props.build())
}

/// Writes batches of `schema`'s rows to a Parquet file; see the module docs.
pub struct TableWriter<W: Write + Send> {
    file: SerializedFileWriter<W>,
    schema: Schema,
    pending: Batch,
    rows: u64,
}

impl<W: Write + Send> TableWriter<W> {
    /// A writer of `schema`'s rows to `out`.
    pub fn new(out: W, schema: &Schema) -> io::Result<TableWriter<W>> {
        let make = || -> Result<SerializedFileWriter<W>, ParquetError> {
            SerializedFileWriter::new(out, Arc::new(parquet_schema(schema)?), Arc::new(properties(schema)?))
        };
        let file = make().map_err(io_error)?;
        Ok(TableWriter { file, schema: schema.clone(), pending: Batch::new(schema), rows: 0 })
    }

    /// The table's columns.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The output.
    pub fn output(&self) -> &W {
        self.file.inner()
    }

    /// Rows appended.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends the rows `rows` of `batch`, writing each row group as it fills.
    pub fn append(&mut self, batch: &Batch, rows: Range<usize>) -> io::Result<()> {
        let mut at = rows.start;
        while at < rows.end {
            let take = (rows.end - at).min(GROUP_ROWS - self.pending.rows());
            self.pending.extend_from(batch, at..at + take);
            self.rows += take as u64;
            at += take;
            if self.pending.rows() == GROUP_ROWS {
                self.flush().map_err(io_error)?;
            }
        }
        Ok(())
    }

    /// Writes the pending rows as a row group.
    fn flush(&mut self) -> Result<(), ParquetError> {
        if self.pending.rows() == 0 {
            return Ok(());
        }
        let mut group = self.file.next_row_group()?;
        for column in &mut self.pending.columns {
            let Some(mut writer) = group.next_column()? else {
                return Err(ParquetError::General("the schema has fewer columns than the batch".into()));
            };
            let defs = if column.defs.is_empty() { None } else { Some(&column.defs[..]) };
            match &mut column.values {
                Values::Int64(v) => {
                    writer.typed::<Int64Type>().write_batch(&defined(v, &column.defs), defs, None)?;
                }
                Values::Int32(v) => {
                    writer.typed::<Int32Type>().write_batch(&defined(v, &column.defs), defs, None)?;
                }
                Values::Float64(v) => {
                    writer.typed::<DoubleType>().write_batch(&defined(v, &column.defs), defs, None)?;
                }
                Values::Text { data, ends } => {
                    let bytes = bytes::Bytes::from(std::mem::take(data));
                    let mut start = 0;
                    let mut values = Vec::with_capacity(ends.len());
                    for (i, &end) in ends.iter().enumerate() {
                        if column.defs.is_empty() || column.defs[i] == 1 {
                            values.push(ByteArray::from(bytes.slice(start..end)));
                        }
                        start = end;
                    }
                    writer.typed::<ByteArrayType>().write_batch(&values, defs, None)?;
                }
            }
            writer.close()?;
        }
        group.close()?;
        self.pending.clear();
        Ok(())
    }

    /// Writes the last row group and the footer; returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush().map_err(io_error)?;
        self.file.into_inner().map_err(io_error)
    }
}

/// The values of the rows whose level is 1 (all of them when `defs` is empty: a required column).
fn defined<'v, T: Copy>(values: &'v [T], defs: &[i16]) -> std::borrow::Cow<'v, [T]> {
    if defs.is_empty() {
        return values.into();
    }
    values.iter().zip(defs).filter(|&(_, &d)| d == 1).map(|(&v, _)| v).collect::<Vec<T>>().into()
}
