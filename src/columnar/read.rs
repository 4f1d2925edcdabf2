//! Reads a Parquet file that [`TableWriter`](super::write::TableWriter) wrote back as batches,
//! one per row group, for `merge` to append to one file: the schema comes from the file's
//! metadata, so a file of another writer is refused rather than guessed at.

use std::fs::File;
use std::io;

use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType};
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;

use super::write::{SCHEMA_KEY, io_error};
use super::{Batch, Schema, Values};

/// A Parquet file of pgnkit's, read row group by row group.
pub struct TableReader {
    file: SerializedFileReader<File>,
    schema: Schema,
}

impl TableReader {
    /// Opens `file`; an error when it is not a Parquet file pgnkit wrote.
    pub fn new(file: File) -> io::Result<TableReader> {
        let file = SerializedFileReader::new(file).map_err(io_error)?;
        let text = file
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .and_then(|kv| kv.iter().find(|e| e.key == SCHEMA_KEY))
            .and_then(|e| e.value.clone());
        let schema = text
            .as_deref()
            .and_then(Schema::from_text)
            .ok_or_else(|| io::Error::other("not a Parquet file of pgnkit's (no pgnkit.schema)"))?;
        Ok(TableReader { file, schema })
    }

    /// The file's schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Row groups.
    pub fn groups(&self) -> usize {
        self.file.num_row_groups()
    }

    /// The rows of row group `i`.
    pub fn group(&self, i: usize) -> io::Result<Batch> {
        let group = self.file.get_row_group(i).map_err(io_error)?;
        let rows = group.metadata().num_rows() as usize;
        let mut batch = Batch::new(&self.schema);
        if group.num_columns() != self.schema.fields.len() {
            return Err(io::Error::other("the columns differ from the file's pgnkit.schema"));
        }
        for (c, field) in self.schema.fields.iter().enumerate() {
            let reader = group.get_column_reader(c).map_err(io_error)?;
            let column = &mut batch.columns[c];
            let defs = field.nullable.then_some(&mut column.defs);
            let mismatch = || io::Error::other(format!("column {}: not of its declared type", field.name));
            match (reader, &mut column.values) {
                (ColumnReader::Int64ColumnReader(r), Values::Int64(v)) => read_all(r, rows, defs, v, 0)?,
                (ColumnReader::Int32ColumnReader(r), Values::Int32(v)) => read_all(r, rows, defs, v, 0)?,
                (ColumnReader::DoubleColumnReader(r), Values::Float64(v)) => read_all(r, rows, defs, v, 0.0)?,
                (ColumnReader::ByteArrayColumnReader(r), Values::Text { data, ends }) => {
                    let mut texts = Vec::with_capacity(rows);
                    read_all(r, rows, defs, &mut texts, ByteArray::from(Vec::new()))?;
                    for t in &texts {
                        data.extend_from_slice(t.data());
                        ends.push(data.len());
                    }
                }
                _ => return Err(mismatch()),
            }
        }
        batch.set_rows(rows);
        Ok(batch)
    }
}

/// Reads `rows` rows of a column into `values`, one entry per row (`null` where `defs` says
/// there is none), and their levels into `defs` (nullable columns).
fn read_all<T: DataType>(
    mut reader: ColumnReaderImpl<T>,
    rows: usize,
    defs: Option<&mut Vec<i16>>,
    values: &mut Vec<T::T>,
    null: T::T,
) -> io::Result<()>
where
    T::T: Clone,
{
    let mut dense = Vec::with_capacity(rows);
    let mut levels = Vec::with_capacity(rows);
    let want_levels = defs.is_some();
    let mut got = 0;
    while got < rows {
        let (records, _, _) = reader
            .read_records(rows - got, want_levels.then_some(&mut levels), None, &mut dense)
            .map_err(io_error)?;
        if records == 0 {
            return Err(io::Error::other("a column ends before its row group"));
        }
        got += records;
    }
    match defs {
        Some(defs) => {
            let mut dense = dense.into_iter();
            for &d in &levels {
                values.push(if d == 1 { dense.next().unwrap_or_else(|| null.clone()) } else { null.clone() });
            }
            defs.extend_from_slice(&levels);
        }
        None => values.extend(dense),
    }
    Ok(())
}
