//! [`TableWriter`]: appends batches of rows, in order, to a Parquet file and writes a row group
//! of exactly [`GROUP_ROWS`] rows as each fills, so memory holds a bounded number of row groups
//! whatever the input, and the file is the same however its rows were batched. A full group is
//! encoded on the caller's thread or, given threads, on one of its own while the next fills;
//! the encoded column chunks are appended in order. Pages are zstd-compressed; label columns are
//! dictionary-encoded, the others plain.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crossbeam_channel::Receiver;

use parquet::basic::{Compression, Encoding, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, SchemaDescriptor, Type};

use super::encode::{Chunk, Encoder};
use super::{Batch, GROUP_ROWS, Kind, Schema};

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
/// numbers gain nothing from one), plain text as DELTA_LENGTH_BYTE_ARRAY, min/max statistics for
/// numbers and dates only, `pgnkit VERSION` as the writer's name, the schema in the metadata.
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
            // The range of a text column selects nothing in rows of games in input order; comparing
            // cost 8% of `positions` time for FENs, 4% more for labels (docs/performance.md).
            Kind::Label => {
                props = props
                    .set_column_dictionary_enabled(path.clone(), true)
                    .set_column_statistics_enabled(path, EnabledStatistics::None);
            }
            // Lengths apart from the bytes: a file 4% smaller at the same speed.
            Kind::Text => {
                props = props
                    .set_column_encoding(path.clone(), Encoding::DELTA_LENGTH_BYTE_ARRAY)
                    .set_column_statistics_enabled(path, EnabledStatistics::None);
            }
            _ => {}
        }
    }
    Ok(props.build())
}

/// Writes batches of `schema`'s rows to a Parquet file; see the module docs.
pub struct TableWriter<W: Write + Send> {
    file: SerializedFileWriter<W>,
    schema: Schema,
    encoder: Encoder,
    pending: Batch,
    rows: u64,
    /// Encodes row groups on threads of its own (none: on the caller's).
    pool: Option<Pool>,
}

/// Row groups encoded on other threads, in the order they filled.
struct Pool {
    threads: rayon::ThreadPool,
    /// Groups being encoded, oldest first: each gives back its batch with its chunks.
    in_flight: VecDeque<Receiver<Encoded>>,
    /// Batches handed back, to fill again.
    spare: Vec<Batch>,
}

/// A group's batch (emptied) and its column chunks.
type Encoded = (Batch, Result<Vec<Chunk>, ParquetError>);

impl<W: Write + Send> TableWriter<W> {
    /// A writer of `schema`'s rows to `out`, encoding on the caller's thread.
    pub fn new(out: W, schema: &Schema) -> io::Result<TableWriter<W>> {
        let make = || -> Result<(SerializedFileWriter<W>, Encoder), ParquetError> {
            let root = Arc::new(parquet_schema(schema)?);
            let props = Arc::new(properties(schema)?);
            let encoder = Encoder::new(Arc::new(SchemaDescriptor::new(root.clone())), props.clone());
            Ok((SerializedFileWriter::new(out, root, props)?, encoder))
        };
        let (file, encoder) = make().map_err(io_error)?;
        Ok(TableWriter {
            file,
            schema: schema.clone(),
            encoder,
            pending: Batch::new(schema),
            rows: 0,
            pool: None,
        })
    }

    /// Encodes row groups on `threads` threads of its own while the caller fills the next (1:
    /// on the caller's). At most `threads` groups are in flight, one a thread; the file's bytes
    /// are the same either way.
    pub fn threads(mut self, threads: usize) -> io::Result<TableWriter<W>> {
        if threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("pgnkit-parquet-{i}"))
                .build()
                .map_err(io::Error::other)?;
            self.pool = Some(Pool { threads: pool, in_flight: VecDeque::new(), spare: Vec::new() });
        }
        Ok(self)
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

    /// Encodes the pending rows as a row group, or hands them to the pool; writes the groups
    /// encoded by then.
    fn flush(&mut self) -> Result<(), ParquetError> {
        if self.pending.rows() == 0 {
            return Ok(());
        }
        let Some(pool) = &mut self.pool else {
            let chunks = self.encoder.encode(&mut self.pending)?;
            self.pending.clear();
            return write_group(&mut self.file, &self.encoder, chunks);
        };
        let fresh = pool.spare.pop().unwrap_or_else(|| Batch::new(&self.schema));
        let mut batch = std::mem::replace(&mut self.pending, fresh);
        let (tx, rx) = crossbeam_channel::bounded(1);
        let encoder = self.encoder.clone();
        pool.threads.spawn(move || {
            let chunks = catch_unwind(AssertUnwindSafe(|| encoder.encode(&mut batch)))
                .unwrap_or_else(|_| Err(ParquetError::General("encoding a row group failed".into())));
            batch.clear();
            let _ = tx.send((batch, chunks)); // the writer may have stopped
        });
        pool.in_flight.push_back(rx);
        let most = pool.threads.current_num_threads();
        while let Some(rx) = pool.in_flight.front() {
            let done = if pool.in_flight.len() > most { rx.recv().ok() } else { rx.try_recv().ok() };
            let Some((batch, chunks)) = done else {
                if pool.in_flight.len() > most {
                    return Err(ParquetError::General("encoding a row group failed".into()));
                }
                break;
            };
            pool.in_flight.pop_front();
            pool.spare.push(batch);
            write_group(&mut self.file, &self.encoder, chunks?)?;
        }
        Ok(())
    }

    /// Writes the last row group, waits for the groups in flight, and writes the footer; returns
    /// the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush().map_err(io_error)?;
        if let Some(pool) = &mut self.pool {
            while let Some(rx) = pool.in_flight.pop_front() {
                let (_, chunks) = rx.recv().map_err(|_| io::Error::other("encoding a row group failed"))?;
                write_group(&mut self.file, &self.encoder, chunks.map_err(io_error)?).map_err(io_error)?;
            }
        }
        self.file.into_inner().map_err(io_error)
    }
}

/// Appends a row group of encoded column chunks to `file`, giving their buffers back to `encoder`.
fn write_group<W: Write + Send>(
    file: &mut SerializedFileWriter<W>,
    encoder: &Encoder,
    chunks: Vec<Chunk>,
) -> Result<(), ParquetError> {
    let mut group = file.next_row_group()?;
    for (bytes, close) in chunks {
        group.append_column(&bytes, close)?;
        encoder.give(bytes);
    }
    group.close()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::Field;

    /// A file of `rows` rows written in batches of 1000, its groups encoded on `threads` threads.
    fn file(rows: usize, threads: usize) -> Vec<u8> {
        let schema =
            Schema { fields: vec![Field::required("n", Kind::Int64), Field::nullable("t", Kind::Text)] };
        let mut w = TableWriter::new(Vec::new(), &schema).and_then(|w| w.threads(threads)).expect("writer");
        let mut b = Batch::new(&schema);
        for i in 0..rows {
            b.push_i64(0, Some(i as i64));
            let t = format!("row {i}");
            b.push_text(1, (i % 7 != 0).then_some(t.as_bytes()));
            b.end_row();
            if b.rows() == 1000 || i + 1 == rows {
                w.append(&b, 0..b.rows()).expect("append");
                b.clear();
            }
        }
        w.finish().expect("finish")
    }

    #[test]
    fn groups_encoded_on_other_threads_make_the_same_file() {
        let rows = 6 * GROUP_ROWS + 12_345;
        let one = file(rows, 1);
        assert!(one == file(rows, 2), "2 threads wrote another file");
        assert!(one == file(rows, 4), "4 threads wrote another file");
        let read = super::super::read::TableReader::new(tempfile(&one)).expect("a pgnkit file");
        assert_eq!(read.groups(), 7);
        assert_eq!(read.group(6).expect("the last group").rows(), 12_345);
    }

    fn tempfile(bytes: &[u8]) -> std::fs::File {
        let path = std::env::temp_dir().join(format!("pgnkit-columnar-{}.parquet", std::process::id()));
        std::fs::write(&path, bytes).expect("write");
        let f = std::fs::File::open(&path).expect("open");
        std::fs::remove_file(&path).ok();
        f
    }
}
