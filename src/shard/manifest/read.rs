//! A manifest read back as a stream into its own types, each list bounded as it is read: memory
//! stays within a small multiple of the file's bytes whatever it holds, where a JSON tree takes
//! 16 times them and more (`0,`: 2 bytes read, a 32-byte node held, in a list that doubles).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::{FORMAT_VERSION, Failure, InputId, MAX_BYTES, Manifest, Part, Range};
use crate::error::{Kind, Severity};
use crate::io::name;
use crate::pipeline::Start;
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;
use crate::shard::Spec;
use crate::shard::bounded::{Bounded, MAX_STRING};
use crate::shard::plan::TO_END;

/// Options at most: one per argument of the command, and none has a hundred.
const MAX_OPTIONS: usize = 256;
/// Parts at most: a job writes its output, rejects, duplicates, report and keys
/// ([`crate::shard::settle::KEYS`]).
const MAX_PARTS: usize = 5;
/// `--where` expressions or `positions --tags` names at most (and their `_seen` marks): the
/// option that lists them is one string within [`MAX_STRING`], each a byte and a separator.
const MAX_LISTED: usize = MAX_STRING as usize / 2;
/// Tags one `--where` expression reads: one, or the two players' (`TagExpr::tags_read`).
const MAX_TAGS_READ: usize = 2;

/// Reads the manifest at `path`, in one pass; one that does not read as this format's is read
/// again for what it says it is, so that another format's is named so whatever its fields.
pub(super) fn read(path: &Path) -> Result<Manifest, String> {
    match parse::<Raw>(path) {
        Ok(raw) => {
            is_this_format(raw.format.as_deref(), raw.format_version)?;
            raw.manifest()
        }
        Err(Bad::Data(e)) => {
            if let Ok(head) = parse::<Head>(path) {
                is_this_format(head.format.as_deref(), head.format_version)?;
            }
            Err(e)
        }
        Err(Bad::Other(e)) => Err(e),
    }
}

fn is_this_format(format: Option<&str>, version: Option<u64>) -> Result<(), String> {
    if format != Some("pgnkit shard manifest") {
        return Err("not a pgnkit shard manifest".into());
    }
    match version {
        Some(FORMAT_VERSION) => Ok(()),
        Some(v) => Err(format!("manifest format {v}; this pgnkit reads format {FORMAT_VERSION}")),
        None => Err("no format_version".into()),
    }
}

/// Why a manifest did not parse: its JSON is not what the type reads, or anything else (a read
/// error, a bound of the reader's, not JSON).
enum Bad {
    Data(String),
    Other(String),
}

/// The file at `path` as a `T`, read within [`MAX_BYTES`].
fn parse<T: DeserializeOwned>(path: &Path) -> Result<T, Bad> {
    let reader =
        Bounded::open(path, MAX_BYTES, "a manifest".into()).map_err(|e| Bad::Other(e.to_string()))?;
    serde_json::from_reader(reader).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => Bad::Data(e.to_string()),
        serde_json::error::Category::Io => Bad::Other(e.to_string()),
        _ => Bad::Other(format!("not JSON: {e}")),
    })
}

/// What a file says it is; the rest is read through, never held.
#[derive(Deserialize)]
#[serde(expecting = "a pgnkit shard manifest")]
struct Head {
    format: Option<String>,
    format_version: Option<u64>,
}

/// A manifest as read, before the checks across its fields.
#[derive(Deserialize)]
#[serde(expecting = "a pgnkit shard manifest")]
struct Raw {
    format: Option<String>,
    format_version: Option<u64>,
    pgnkit_version: String,
    job: String,
    #[serde(deserialize_with = "options")]
    options: Vec<String>,
    #[serde(deserialize_with = "inputs")]
    inputs: Vec<InputId>,
    shard: RawSpec,
    #[serde(deserialize_with = "ranges")]
    ranges: Vec<Range>,
    ledger: RawStats,
    // A manifest without it ran no time.
    #[serde(default)]
    seconds: f64,
    #[serde(deserialize_with = "parts")]
    parts: Vec<Part>,
    exit_status: u8,
    // A manifest written before the field had none: a shard with a failure wrote no manifest.
    #[serde(default, deserialize_with = "failures")]
    failures: Vec<Failure>,
    #[serde(default)]
    extra: Option<Extra>,
}

impl Raw {
    /// The manifest, its fields checked against each other.
    fn manifest(self) -> Result<Manifest, String> {
        let spec = Spec::new(self.shard.index, self.shard.count)?;
        let inputs = self.inputs.len();
        if let Some(r) = self.ranges.iter().find(|r| r.input >= inputs) {
            return Err(format!("a range of input {} where the manifest lists {inputs}", r.input));
        }
        if let Some(f) = self.failures.iter().find(|f| f.input >= inputs) {
            return Err(format!("a failure of input {} where the manifest lists {inputs}", f.input));
        }
        if let Some(p) = self.parts.iter().find(|p| !p.named_for(spec)) {
            return Err(format!(
                "its {} part's file {:?} is not shard {spec}'s part of {:?} ({:?}, beside the manifest or \
                 by a relative way from it): refused, no part is read from elsewhere",
                p.role,
                p.file.display().to_string(),
                p.target.display().to_string(),
                p.own_name(spec).to_string_lossy()
            ));
        }
        // Summed over the shards into a `Duration`: a time no run takes is no manifest's.
        if !(0.0..1e12).contains(&self.seconds) {
            return Err(format!("seconds {} is no run's time", self.seconds));
        }
        let extra = match self.extra {
            Some(extra) => serde_json::to_value(extra).map_err(|e| e.to_string())?,
            None => serde_json::Value::Null,
        };
        Ok(Manifest {
            version: self.pgnkit_version,
            job: self.job,
            options: self.options,
            inputs: self.inputs,
            spec,
            ranges: self.ranges,
            stats: self.ledger.into(),
            seconds: self.seconds,
            parts: self.parts,
            exit: self.exit_status,
            failures: self.failures,
            extra,
        })
    }
}

#[derive(Deserialize)]
struct RawSpec {
    index: u64,
    count: u64,
}

#[derive(Deserialize)]
struct RawInput {
    path: FileName,
    size: u64,
    fingerprint: String,
}

#[derive(Deserialize)]
struct RawStart {
    offset: u64,
    game: u64,
    line: u64,
    column: u64,
}

#[derive(Deserialize)]
struct RawRange {
    input: usize,
    start: RawStart,
    // `null`: to the end of the input.
    #[serde(default)]
    end: Option<u64>,
    games: u64,
    ledger: RawStats,
}

#[derive(Deserialize)]
struct RawPart {
    role: String,
    file: FileName,
    target: FileName,
    size: u64,
    xxh3_128: String,
    header: String,
    footer: String,
    // A manifest written before the field: a table was known by its name then.
    #[serde(default)]
    table: Option<bool>,
}

#[derive(Deserialize)]
struct RawFailure {
    input: usize,
    message: String,
}

/// A [`Stats`] as [`super::stats_json`] writes it.
#[derive(Deserialize)]
pub(super) struct RawStats {
    games: u64,
    games_with_errors: u64,
    games_with_warnings: u64,
    plies: u64,
    bytes: u64,
    pgn_games: u64,
    epd_lines: u64,
    not_epd_lines: u64,
    #[serde(deserialize_with = "by_kind")]
    by_kind: Vec<(Kind, Severity, u64)>,
    #[serde(deserialize_with = "counts")]
    counts: Vec<(Counter, u64)>,
    #[serde(default, deserialize_with = "listed")]
    wheres_seen: Vec<bool>,
    #[serde(default, deserialize_with = "listed")]
    tags_seen: Vec<bool>,
}

impl From<RawStats> for Stats {
    fn from(r: RawStats) -> Stats {
        let mut stats = Stats {
            games: r.games,
            games_with_errors: r.games_with_errors,
            games_with_warnings: r.games_with_warnings,
            plies: r.plies,
            bytes: r.bytes,
            pgn_games: r.pgn_games,
            epd_lines: r.epd_lines,
            not_epd_lines: r.not_epd_lines,
            wheres_seen: r.wheres_seen,
            tags_seen: r.tags_seen,
            ..Stats::default()
        };
        for (kind, severity, n) in r.by_kind {
            stats.add_kind(kind, severity, n);
        }
        for (counter, n) in r.counts {
            stats.add(counter, n);
        }
        stats
    }
}

/// The job's figures the footers need: annotate's engines, cache counts and records, the
/// `--where` expressions, `positions --tags`' names. Written back as JSON for [`Manifest::extra`].
#[derive(Deserialize, Serialize)]
struct Extra {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    engines: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cache: Option<Cache>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lines: Option<bool>,
    #[serde(default, deserialize_with = "wheres", skip_serializing_if = "Vec::is_empty")]
    wheres: Vec<Where>,
    #[serde(default, deserialize_with = "listed", skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

/// Annotate's cache counts.
#[derive(Deserialize, Serialize)]
struct Cache {
    hits: u64,
    misses: u64,
    stale: u64,
    stores: u64,
    commits: u64,
}

/// A `--where` expression, as `select::Absent::json` writes it.
#[derive(Deserialize, Serialize)]
struct Where {
    #[serde(rename = "where")]
    expr: String,
    #[serde(deserialize_with = "tags_read")]
    tags: Vec<String>,
    message: String,
}

/// A file name as [`name::to_json`] writes it: its text, or `{"bytes": BASE64}`.
struct FileName(PathBuf);

impl<'de> Deserialize<'de> for FileName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FileName, D::Error> {
        d.deserialize_any(FileNameVisitor)
    }
}

struct FileNameVisitor;

impl<'de> Visitor<'de> for FileNameVisitor {
    type Value = FileName;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a file name: its text, or {\"bytes\": BASE64}")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<FileName, E> {
        Ok(FileName(text.into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FileName, A::Error> {
        let mut bytes = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "bytes" => bytes = Some(map.next_value::<String>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let bytes = bytes.ok_or_else(|| de::Error::missing_field("bytes"))?;
        name::from_base64(&bytes)
            .map(FileName)
            .ok_or_else(|| de::Error::custom("a file name's bytes are not base64"))
    }
}

/// A list of at most `max` `T`s, each made a `U` by `make` as it is read, so that only the list
/// kept is held, within its bound; `what` names them in the error.
fn list<'de, D, T, U>(
    d: D,
    max: usize,
    what: &'static str,
    make: fn(T) -> Result<U, String>,
) -> Result<Vec<U>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct List<T, U> {
        max: usize,
        what: &'static str,
        make: fn(T) -> Result<U, String>,
    }

    impl<'de, T: Deserialize<'de>, U> Visitor<'de> for List<T, U> {
        type Value = Vec<U>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of {}", self.what)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<U>, A::Error> {
            let mut kept = Vec::new();
            while let Some(item) = seq.next_element::<T>()? {
                if kept.len() == self.max {
                    let (max, what) = (self.max, self.what);
                    return Err(de::Error::custom(format!(
                        "more than {max} {what} (the most pgnkit writes)"
                    )));
                }
                kept.push((self.make)(item).map_err(de::Error::custom)?);
            }
            Ok(kept)
        }
    }

    d.deserialize_seq(List { max, what, make })
}

fn options<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    list(d, MAX_OPTIONS, "options", Ok)
}

// Inputs, ranges (one per input read) and failures (one per input at most): no bound beside
// the file's, each entry of them taking as many bytes written as held, and more.
fn inputs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<InputId>, D::Error> {
    list(d, usize::MAX, "inputs", |i: RawInput| {
        Ok(InputId { path: i.path.0, size: i.size, fingerprint: i.fingerprint })
    })
}

fn ranges<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Range>, D::Error> {
    list(d, usize::MAX, "ranges", |r: RawRange| {
        let RawStart { offset, game, line, column } = r.start;
        Ok(Range {
            input: r.input,
            start: Start { offset, game, line, column },
            end: r.end.unwrap_or(TO_END),
            games: r.games,
            stats: r.ledger.into(),
        })
    })
}

fn failures<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Failure>, D::Error> {
    list(d, usize::MAX, "failures", |f: RawFailure| Ok(Failure { input: f.input, message: f.message }))
}

fn parts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Part>, D::Error> {
    list(d, MAX_PARTS, "parts", |p: RawPart| {
        Ok(Part {
            table: p.table.unwrap_or_else(|| crate::shard::is_parquet(&p.target.0)),
            role: p.role,
            file: p.file.0,
            target: p.target.0,
            size: p.size,
            digest: p.xxh3_128,
            header: p.header,
            footer: p.footer,
        })
    })
}

/// A ledger lists each kind of diagnostic once a severity.
fn by_kind<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Kind, Severity, u64)>, D::Error> {
    list(
        d,
        2 * Kind::ALL.len(),
        "counts of diagnostics by kind",
        |(code, severity, n): (String, String, u64)| {
            let kind = Kind::ALL
                .iter()
                .find(|k| k.code() == code)
                .ok_or_else(|| format!("unknown kind {code:?}"))?;
            let severity = match severity.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => return Err(format!("unknown severity {severity:?}")),
            };
            Ok((*kind, severity, n))
        },
    )
}

/// A ledger lists each counter once.
fn counts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Counter, u64)>, D::Error> {
    list(d, Counter::COUNT, "counts", |(name, n): (String, u64)| {
        Ok((Counter::from_name(&name).ok_or_else(|| format!("unknown count {name:?}"))?, n))
    })
}

fn listed<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    list(d, MAX_LISTED, "--where expressions or --tags names", Ok)
}

fn wheres<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Where>, D::Error> {
    list(d, MAX_LISTED, "--where expressions", Ok)
}

fn tags_read<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    list(d, MAX_TAGS_READ, "tags a --where expression reads", Ok)
}

#[cfg(test)]
mod tests {
    use super::super::stats_json;
    use super::*;

    fn stats(v: &serde_json::Value) -> Result<Stats, String> {
        RawStats::deserialize(v).map(Stats::from).map_err(|e| e.to_string())
    }

    #[test]
    fn stats_survive_json() {
        let mut s = Stats {
            games: 5,
            games_with_errors: 1,
            games_with_warnings: 2,
            pgn_games: 4,
            epd_lines: 7,
            not_epd_lines: 8,
            plies: 99,
            bytes: 1234,
            ..Stats::default()
        };
        s.count_kind(Kind::IllegalMove, Severity::Error);
        s.count_kind(Kind::IllegalMove, Severity::Error);
        s.count_kind(Kind::NullMove, Severity::Warning);
        s.add(Counter::Written, 4);
        s.add(Counter::Repaired(crate::pipeline::counter::RepairKind::Fen), 1);
        s.wheres_seen = vec![true, false];
        s.tags_seen = vec![false, true, true];
        assert_eq!(stats(&stats_json(&s)), Ok(s));
    }

    /// A ledger's lists hold each kind and counter once at most: a longer one is refused as it
    /// is read, never held.
    #[test]
    fn a_ledger_list_past_its_bound_is_an_error() {
        let (max, one) = (2 * Kind::ALL.len(), serde_json::json!(["illegal_move", "error", 1]));
        let mut v = stats_json(&Stats::default());
        v["by_kind"] = vec![one.clone(); max].into();
        assert_eq!(stats(&v).map(|s| s.by_kind), Ok(vec![(Kind::IllegalMove, Severity::Error, max as u64)]));
        v["by_kind"].as_array_mut().expect("list").push(one);
        let e = stats(&v).expect_err("one more");
        assert!(
            e.starts_with(&format!("more than {max} counts of diagnostics by kind (the most pgnkit")),
            "{e}"
        );
        let mut v = stats_json(&Stats::default());
        v["counts"] = vec![serde_json::json!(["written", 1]); Counter::COUNT + 1].into();
        let e = stats(&v).expect_err("counts");
        assert!(e.starts_with(&format!("more than {} counts", Counter::COUNT)), "{e}");
        v["counts"] = serde_json::json!([["no_such_count", 1]]);
        assert_eq!(stats(&v), Err("unknown count \"no_such_count\"".into()));
    }
}
