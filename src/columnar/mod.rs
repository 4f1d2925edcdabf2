//! Tables of typed columns, written as Apache Parquet (`--format parquet`): a [`Schema`] of named
//! [`Field`]s, the [`Batch`] a worker fills with one chunk's rows, [`write::TableWriter`], which
//! appends batches in order and writes a row group every [`GROUP_ROWS`] rows (its column chunks
//! encoded by `encode`, on any thread), [`read`], which reads a file back as batches (for
//! `merge`), and [`spool`], rows waiting in a temporary file in their in-memory layout.
//!
//! Invariants: every column of a batch holds one entry per row (a null has a placeholder value
//! and a definition level of 0), so rows are cut, truncated and copied by index alone; a file's
//! bytes depend only on its schema and its rows, not on how they were batched.

mod encode;
pub mod read;
pub mod spool;
pub mod write;

use std::ops::Range;

/// Rows per row group: 128 Ki rows. The 100 MB corpus's positions file is 0.5% larger than at
/// 1 Mi rows, with a quarter of the peak memory (docs/performance.md).
pub const GROUP_ROWS: usize = 1 << 17;

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A signed 64-bit integer.
    Int64,
    /// A signed 32-bit integer.
    Int32,
    /// A double.
    Float64,
    /// UTF-8 text, plain (values mostly distinct, like FENs).
    Text,
    /// UTF-8 text, dictionary-encoded (values from a small set: moves, tags, names).
    Label,
    /// A calendar date (days since 1970-01-01).
    Date,
}

impl Kind {
    /// The name [`read`] finds in a file's key-value metadata.
    fn name(self) -> &'static str {
        match self {
            Kind::Int64 => "int64",
            Kind::Int32 => "int32",
            Kind::Float64 => "float64",
            Kind::Text => "text",
            Kind::Label => "label",
            Kind::Date => "date",
        }
    }

    fn parse(name: &str) -> Option<Kind> {
        [Kind::Int64, Kind::Int32, Kind::Float64, Kind::Text, Kind::Label, Kind::Date]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// A named column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub kind: Kind,
    /// Whether it may hold nulls.
    pub nullable: bool,
}

impl Field {
    /// A column that always has a value.
    pub fn required(name: &str, kind: Kind) -> Field {
        Field { name: name.to_string(), kind, nullable: false }
    }

    /// A column that may hold nulls.
    pub fn nullable(name: &str, kind: Kind) -> Field {
        Field { name: name.to_string(), kind, nullable: true }
    }
}

/// The columns of a table, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schema {
    /// The columns.
    pub fields: Vec<Field>,
}

impl Schema {
    /// The schema as one line of text, kept in the file's metadata: `name:kind:null|req`, one per
    /// field, separated by tabs.
    pub fn to_text(&self) -> String {
        let fields: Vec<String> = self
            .fields
            .iter()
            .map(|f| format!("{}:{}:{}", f.name, f.kind.name(), if f.nullable { "null" } else { "req" }))
            .collect();
        fields.join("\t")
    }

    /// The schema [`Schema::to_text`] wrote.
    pub fn from_text(text: &str) -> Option<Schema> {
        let mut fields = Vec::new();
        for f in text.split('\t').filter(|f| !f.is_empty()) {
            let (rest, nullable) = f.rsplit_once(':')?;
            let (name, kind) = rest.rsplit_once(':')?;
            let nullable = match nullable {
                "null" => true,
                "req" => false,
                _ => return None,
            };
            fields.push(Field { name: name.to_string(), kind: Kind::parse(kind)?, nullable });
        }
        Some(Schema { fields })
    }
}

/// One column's entries.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// [`Kind::Int64`].
    Int64(Vec<i64>),
    /// [`Kind::Int32`] and [`Kind::Date`].
    Int32(Vec<i32>),
    /// [`Kind::Float64`].
    Float64(Vec<f64>),
    /// [`Kind::Text`] and [`Kind::Label`]: the texts one after another, and where each ends.
    Text {
        /// The bytes of every entry.
        data: Vec<u8>,
        /// The end of each entry in `data`.
        ends: Vec<usize>,
    },
}

impl Values {
    fn new(kind: Kind) -> Values {
        match kind {
            Kind::Int64 => Values::Int64(Vec::new()),
            Kind::Int32 | Kind::Date => Values::Int32(Vec::new()),
            Kind::Float64 => Values::Float64(Vec::new()),
            Kind::Text | Kind::Label => Values::Text { data: Vec::new(), ends: Vec::new() },
        }
    }

    fn truncate(&mut self, rows: usize) {
        match self {
            Values::Int64(v) => v.truncate(rows),
            Values::Int32(v) => v.truncate(rows),
            Values::Float64(v) => v.truncate(rows),
            Values::Text { data, ends } => {
                ends.truncate(rows);
                data.truncate(ends.last().copied().unwrap_or(0));
            }
        }
    }

    fn extend_from(&mut self, from: &Values, rows: Range<usize>) {
        match (self, from) {
            (Values::Int64(a), Values::Int64(b)) => a.extend_from_slice(&b[rows]),
            (Values::Int32(a), Values::Int32(b)) => a.extend_from_slice(&b[rows]),
            (Values::Float64(a), Values::Float64(b)) => a.extend_from_slice(&b[rows]),
            (Values::Text { data, ends }, Values::Text { data: d, ends: e }) => {
                let start = if rows.start == 0 { 0 } else { e[rows.start - 1] };
                let end = if rows.end == 0 { 0 } else { e[rows.end - 1] };
                let shift = data.len() as isize - start as isize;
                data.extend_from_slice(&d[start..end]);
                ends.extend(e[rows].iter().map(|&x| (x as isize + shift) as usize));
            }
            _ => unreachable!("batches of one schema have the same column types"),
        }
    }
}

/// A column of a batch: its entries and, when it is nullable, a definition level per row (1: a
/// value, 0: null).
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// One entry per row.
    pub values: Values,
    /// One level per row when nullable, else empty.
    pub defs: Vec<i16>,
}

/// Rows of a table, by column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    /// One per field of the schema.
    pub columns: Vec<Column>,
    nullable: Vec<bool>,
    rows: usize,
}

impl Batch {
    /// An empty batch of `schema`'s columns.
    pub fn new(schema: &Schema) -> Batch {
        Batch {
            columns: schema
                .fields
                .iter()
                .map(|f| Column { values: Values::new(f.kind), defs: Vec::new() })
                .collect(),
            nullable: schema.fields.iter().map(|f| f.nullable).collect(),
            rows: 0,
        }
    }

    /// Rows ended with [`Batch::end_row`].
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Bytes of the text entries held.
    pub fn text_bytes(&self) -> usize {
        let text = |c: &Column| match &c.values {
            Values::Text { data, .. } => data.len(),
            _ => 0,
        };
        self.columns.iter().map(text).sum()
    }

    /// Ends the row whose columns were all pushed.
    #[inline]
    pub fn end_row(&mut self) {
        self.rows += 1;
        debug_assert!(self.columns.iter().all(|c| c.defs.is_empty() || c.defs.len() == self.rows));
    }

    /// Sets the row count of a batch whose columns were filled directly ([`read`]).
    fn set_rows(&mut self, rows: usize) {
        self.rows = rows;
    }

    /// Drops the rows from `rows` on.
    pub fn truncate(&mut self, rows: usize) {
        if rows >= self.rows {
            return;
        }
        for (c, &nullable) in self.columns.iter_mut().zip(&self.nullable) {
            c.values.truncate(rows);
            if nullable {
                c.defs.truncate(rows);
            }
        }
        self.rows = rows;
    }

    /// Drops every row, keeping the buffers.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Appends `from`'s rows `rows` (a batch of the same schema).
    pub fn extend_from(&mut self, from: &Batch, rows: Range<usize>) {
        for ((c, f), &nullable) in self.columns.iter_mut().zip(&from.columns).zip(&from.nullable) {
            c.values.extend_from(&f.values, rows.clone());
            if nullable {
                c.defs.extend_from_slice(&f.defs[rows.clone()]);
            }
        }
        self.rows += rows.len();
    }

    #[inline]
    fn defined(&mut self, col: usize, yes: bool) {
        if self.nullable[col] {
            self.columns[col].defs.push(i16::from(yes));
        } else {
            debug_assert!(yes, "a null in a required column");
        }
    }

    /// Pushes an [`Kind::Int64`] entry.
    #[inline]
    pub fn push_i64(&mut self, col: usize, v: Option<i64>) {
        self.defined(col, v.is_some());
        match &mut self.columns[col].values {
            Values::Int64(x) => x.push(v.unwrap_or(0)),
            _ => unreachable!("column {col} is not Int64"),
        }
    }

    /// Pushes an [`Kind::Int32`] or [`Kind::Date`] entry.
    #[inline]
    pub fn push_i32(&mut self, col: usize, v: Option<i32>) {
        self.defined(col, v.is_some());
        match &mut self.columns[col].values {
            Values::Int32(x) => x.push(v.unwrap_or(0)),
            _ => unreachable!("column {col} is not Int32"),
        }
    }

    /// Pushes a [`Kind::Float64`] entry.
    #[inline]
    pub fn push_f64(&mut self, col: usize, v: Option<f64>) {
        self.defined(col, v.is_some());
        match &mut self.columns[col].values {
            Values::Float64(x) => x.push(v.unwrap_or(0.0)),
            _ => unreachable!("column {col} is not Float64"),
        }
    }

    /// Pushes a text entry.
    #[inline]
    pub fn push_text(&mut self, col: usize, v: Option<&[u8]>) {
        match v {
            Some(v) => {
                self.text(col).extend_from_slice(v);
                self.end_text(col);
            }
            None => self.push_null_text(col),
        }
    }

    /// The bytes of a text column, to append an entry to in place; [`Batch::end_text`] ends it.
    #[inline]
    pub fn text(&mut self, col: usize) -> &mut Vec<u8> {
        match &mut self.columns[col].values {
            Values::Text { data, .. } => data,
            _ => unreachable!("column {col} is not text"),
        }
    }

    /// Ends the text entry appended through [`Batch::text`].
    #[inline]
    pub fn end_text(&mut self, col: usize) {
        self.defined(col, true);
        if let Values::Text { data, ends } = &mut self.columns[col].values {
            ends.push(data.len());
        }
    }

    /// Pushes a null text entry.
    #[inline]
    pub fn push_null_text(&mut self, col: usize) {
        self.defined(col, false);
        if let Values::Text { data, ends } = &mut self.columns[col].values {
            ends.push(data.len());
        }
    }
}

/// Days from 1970-01-01 to the date `y`-`m`-`d` of the proleptic Gregorian calendar; `None`
/// when there is no such day.
pub fn days_from_civil(y: u16, m: u8, d: u8) -> Option<i32> {
    if !(1..=12).contains(&m) || d == 0 || d > crate::pgn::date::days_in_month(y, m) {
        return None;
    }
    let (y, m, d) = (i32::from(y), u32::from(m), u32::from(d));
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp as i32 + 2) / 5 + d as i32 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        Schema {
            fields: vec![
                Field::required("n", Kind::Int64),
                Field::nullable("t", Kind::Label),
                Field::nullable("x", Kind::Float64),
            ],
        }
    }

    #[test]
    fn schema_text_round_trips() {
        let s = schema();
        assert_eq!(Schema::from_text(&s.to_text()), Some(s));
        assert_eq!(Schema::from_text("a:int9:req"), None);
    }

    #[test]
    fn rows_truncate_and_copy_by_index() {
        let s = schema();
        let mut b = Batch::new(&s);
        for i in 0..5 {
            b.push_i64(0, Some(i));
            let t = format!("v{i}");
            b.push_text(1, (i % 2 == 0).then_some(t.as_bytes()));
            b.push_f64(2, (i % 3 == 0).then_some(i as f64));
            b.end_row();
        }
        let mut c = Batch::new(&s);
        c.extend_from(&b, 1..4);
        c.extend_from(&b, 0..1);
        assert_eq!(c.rows(), 4);
        assert_eq!(c.columns[0].values, Values::Int64(vec![1, 2, 3, 0]));
        assert_eq!(c.columns[1].values, Values::Text { data: b"v2v0".to_vec(), ends: vec![0, 2, 2, 4] });
        assert_eq!(c.columns[1].defs, [0, 1, 0, 1]);
        b.truncate(2);
        assert_eq!(b.columns[1].values, Values::Text { data: b"v0".to_vec(), ends: vec![2, 2] });
        assert_eq!(b.columns[2].defs, [1, 0]);
    }

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), Some(0));
        assert_eq!(days_from_civil(2000, 3, 1), Some(11_017));
        assert_eq!(days_from_civil(1969, 12, 31), Some(-1));
        assert_eq!(days_from_civil(2024, 2, 29), Some(19_782));
        assert_eq!(days_from_civil(2023, 2, 29), None);
        assert_eq!(days_from_civil(2023, 13, 1), None);
    }
}
