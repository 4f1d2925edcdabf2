//! Encodes one row group's column chunks into memory: pages compressed and laid out as the file
//! holds them, with each chunk's metadata, so any thread can encode a group and the writer only
//! appends the chunks in order ([`super::write`]).

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use parquet::column::writer::{ColumnCloseResult, ColumnWriter, get_column_writer};
use parquet::data_type::ByteArray;
use parquet::errors::ParquetError;
use parquet::file::properties::WriterPropertiesPtr;
use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
use parquet::schema::types::SchemaDescriptor;

use super::{Batch, Values};

/// One column chunk: its bytes and what closing its writer said of them.
pub(super) type Chunk = (Bytes, ColumnCloseResult);

/// What a group needs to be encoded anywhere: the file's columns and settings, and the buffers
/// of chunks already written, to encode the next into.
#[derive(Clone)]
pub(super) struct Encoder {
    pub(super) descr: Arc<SchemaDescriptor>,
    pub(super) props: WriterPropertiesPtr,
    spare: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Encoder {
    /// An encoder of `descr`'s columns with `props`.
    pub(super) fn new(descr: Arc<SchemaDescriptor>, props: WriterPropertiesPtr) -> Encoder {
        Encoder { descr, props, spare: Arc::default() }
    }

    /// Takes back the buffer of a chunk written (a fresh buffer a chunk, 6% of `positions` time
    /// faulting pages in, docs/performance.md).
    pub(super) fn give(&self, chunk: Bytes) {
        if let Ok(b) = chunk.try_into_mut() {
            let mut b = Vec::from(b);
            b.clear();
            self.spare.lock().unwrap_or_else(|e| e.into_inner()).push(b);
        }
    }

    fn buffer(&self) -> Vec<u8> {
        self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
    }

    /// The column chunks of `batch`'s rows, one per column, in order. Text columns' bytes are
    /// handed over (the batch's buffers of them are left empty).
    pub(super) fn encode(&self, batch: &mut Batch) -> Result<Vec<Chunk>, ParquetError> {
        let mut chunks = Vec::with_capacity(batch.columns.len());
        // One list of text values for every column, and each column's bytes given back after.
        let mut values = Vec::new();
        for (i, column) in batch.columns.iter_mut().enumerate() {
            let mut sink = TrackedWrite::new(self.buffer());
            let mut text_back = None;
            let mut writer = get_column_writer(
                self.descr.column(i),
                self.props.clone(),
                Box::new(SerializedPageWriter::new(&mut sink)),
            );
            let defs = if column.defs.is_empty() { None } else { Some(&column.defs[..]) };
            match &mut column.values {
                Values::Int64(v) => {
                    let ColumnWriter::Int64ColumnWriter(w) = &mut writer else { return Err(mismatch()) };
                    w.write_batch(&defined(v, &column.defs), defs, None)?;
                }
                Values::Int32(v) => {
                    let ColumnWriter::Int32ColumnWriter(w) = &mut writer else { return Err(mismatch()) };
                    w.write_batch(&defined(v, &column.defs), defs, None)?;
                }
                Values::Float64(v) => {
                    let ColumnWriter::DoubleColumnWriter(w) = &mut writer else { return Err(mismatch()) };
                    w.write_batch(&defined(v, &column.defs), defs, None)?;
                }
                Values::Text { data, ends } => {
                    let bytes = Bytes::from(std::mem::take(data));
                    let mut start = 0;
                    for (i, &end) in ends.iter().enumerate() {
                        if column.defs.is_empty() || column.defs[i] == 1 {
                            values.push(ByteArray::from(bytes.slice(start..end)));
                        }
                        start = end;
                    }
                    let ColumnWriter::ByteArrayColumnWriter(w) = &mut writer else { return Err(mismatch()) };
                    w.write_batch(&values, defs, None)?;
                    values.clear();
                    // The writer, and every value it kept, is gone after `close`.
                    text_back = Some(bytes);
                }
            }
            let close = writer.close()?;
            if let (Some(bytes), Values::Text { data, .. }) = (text_back.take(), &mut column.values) {
                // Unshared once the writer is closed: the batch keeps its buffer for the next group.
                if let Ok(b) = bytes.try_into_mut() {
                    *data = Vec::from(b);
                    data.clear();
                }
            }
            chunks.push((Bytes::from(sink.into_inner()?), close));
        }
        Ok(chunks)
    }
}

fn mismatch() -> ParquetError {
    ParquetError::General("a column's values are not of its Parquet type".into())
}

/// The values of the rows whose level is 1 (all of them when `defs` is empty: a required column).
fn defined<'v, T: Copy>(values: &'v [T], defs: &[i16]) -> std::borrow::Cow<'v, [T]> {
    if defs.is_empty() {
        return values.into();
    }
    values.iter().zip(defs).filter(|&(_, &d)| d == 1).map(|(&v, _)| v).collect::<Vec<T>>().into()
}
