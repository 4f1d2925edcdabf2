//! `--shard I/N|auto` on the commands that read PGN: the shard's plan, its outputs as parts
//! (`FILE.part-I-of-N`), and its manifest, written last; and the output-shaping options the
//! manifest records, read from the command line as clap parsed it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use pgnkit::io::Output;
use pgnkit::jobs::run::{RunOptions, Share, Sink, Span, Summary};
use pgnkit::pipeline::{Job, Observer, Records};
use pgnkit::select::{Absent, Selection};
use pgnkit::shard::manifest::{Failure, InputId, Manifest, Part, Range, digest};
use pgnkit::shard::plan::Unit;
use pgnkit::shard::{Plan, Spec, manifest_path, part_path, plan};
use serde_json::Value;

use crate::cli::args::HeadArgs;
use crate::cli::fail::Fail;
use pgnkit::exit::Code;

/// The command line as clap parsed it, for the options a manifest records.
static MATCHES: OnceLock<clap::ArgMatches> = OnceLock::new();

/// The argument groups' ids (clap gives each flattened struct one, e.g. `HeadArgs`), which are
/// not options: their values are their members'.
static GROUPS: OnceLock<Vec<String>> = OnceLock::new();

/// The command's definition: each argument's default and enumerated values.
static COMMAND: OnceLock<clap::Command> = OnceLock::new();

/// Keeps the parsed command line, the ids of `command`'s argument groups and its definition.
pub fn remember(matches: clap::ArgMatches, command: &clap::Command) {
    let groups = command
        .get_subcommands()
        .flat_map(|sub| sub.get_groups().map(|g| g.get_id().as_str().to_string()))
        .chain(command.get_groups().map(|g| g.get_id().as_str().to_string()))
        .collect();
    let _ = GROUPS.set(groups);
    let _ = MATCHES.set(matches);
    let _ = COMMAND.set(command.clone());
}

/// Whether the option `id` (as clap names it: `variations`) is on the command line, at any
/// value: an option with a default cannot tell otherwise.
pub fn given(id: &str) -> bool {
    let Some((_, sub)) = MATCHES.get().and_then(|m| m.subcommand()) else { return false };
    sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
}

/// Arguments that do not shape what a run writes: inputs, threads, progress, where outputs and
/// caches go, the shard itself.
const NOT_SHAPING: [&str; 15] = [
    "files",
    "no_mmap",
    "threads",
    "quiet",
    "chunk_kib",
    "output",
    "rejects",
    "duplicates",
    "report",
    "shard",
    "shards",
    "output_dir",
    "cache",
    "no_cache",
    "engines",
];

/// Options whose values are a set, compared sorted: their order and repeats say nothing
/// (`--strip nags,comments` is `--strip comments,nags`). Not `--where` nor `--eco`: their text, in
/// the order given, is in the outputs (the summary's `where_absent`, clean's `filtered` records).
const SETS: [&str; 3] = ["strip", "drop_tags", "position_material"];

/// The options that shape the output, given on the command line at other than their defaults,
/// by their effective values: sorted `name=value`. An option given at its default, or in
/// another spelling of a value (an alias, `080`), is the option not given, so shards run either
/// way merge.
fn shaping_options() -> Vec<String> {
    let Some((name, sub)) = MATCHES.get().and_then(|m| m.subcommand()) else { return Vec::new() };
    let definition = COMMAND.get().and_then(|c| c.find_subcommand(name));
    let mut options: Vec<String> = sub
        .ids()
        .map(|id| id.as_str())
        .filter(|id| !NOT_SHAPING.contains(id))
        .filter(|id| !GROUPS.get().is_some_and(|groups| groups.iter().any(|g| g == id)))
        .filter(|id| sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
        .filter_map(|id| {
            let arg = definition.and_then(|d| d.get_arguments().find(|a| a.get_id() == id));
            let (mut values, mut defaults) = match arg {
                Some(arg) => effective(sub, arg)?,
                None => (sub.get_raw(id)?.map(|v| v.to_string_lossy().into_owned()).collect(), Vec::new()),
            };
            if id == "eco" {
                // `--eco A,B` is `--eco A --eco B`: the filter and its text are the ranges in order.
                values = values.iter().flat_map(|v| v.split(',').map(|r| r.trim().to_string())).collect();
            }
            if SETS.contains(&id) {
                for v in [&mut values, &mut defaults] {
                    v.sort();
                    v.dedup();
                }
            }
            (values != defaults).then(|| format!("{id}={}", values.join("\u{1f}")))
        })
        .collect();
    let implied = implied(name, &options);
    options.retain(|o| !implied.contains(o));
    options.sort();
    options
}

/// `arg`'s values as its parser read them, each in one spelling, and its defaults so spelled:
/// an enumerated value by its name (not an alias), a number or a duration as read.
fn effective(sub: &clap::ArgMatches, arg: &clap::Arg) -> Option<(Vec<String>, Vec<String>)> {
    let id = arg.get_id().as_str();
    let raw: Vec<String> = sub.get_raw(id)?.map(|v| v.to_string_lossy().into_owned()).collect();
    let defaults: Vec<String> =
        arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    let named = arg.get_possible_values();
    if !named.is_empty() {
        let name = |v: &String| {
            let found = named.iter().find(|p| p.matches(v, arg.is_ignore_case_set()));
            found.map_or_else(|| v.clone(), |p| p.get_name().to_string())
        };
        return Some((raw.iter().map(name).collect(), defaults.iter().map(name).collect()));
    }
    macro_rules! read_as {
        ($($t:ty),*) => {$(
            if let Ok(Some(read)) = sub.try_get_many::<$t>(id) {
                let spelled = |v: &String| v.parse::<$t>().map_or_else(|_| v.clone(), |n| format!("{n:?}"));
                return Some((read.map(|n| format!("{n:?}")).collect(), defaults.iter().map(spelled).collect()));
            }
        )*};
    }
    read_as!(u8, u16, u32, u64, i64, usize, f64);
    if let Ok(Some(read)) = sub.try_get_many::<std::time::Duration>(id) {
        return Some((read.map(|d| format!("{d:?}")).collect(), defaults));
    }
    Some((raw, defaults))
}

/// Options that `command` applies by itself when absent (clap has no default for them), as
/// `name=value` given at that value reads: `annotate`'s `--nodes` limit when no other is given,
/// and the built-in engine's `--hash` (an external engine's is its own, so none is implied).
fn implied(command: &str, options: &[String]) -> Vec<String> {
    if command != "annotate" {
        return Vec::new();
    }
    let other_limit = options.iter().any(|o| o.starts_with("depth=") || o.starts_with("movetime="));
    let builtin = !options.iter().any(|o| o.starts_with("engine="));
    let mut implied = Vec::new();
    if !other_limit {
        implied.push(format!("nodes={}", pgnkit::jobs::annotate::DEFAULT_NODES));
    }
    if builtin {
        implied.push(format!("hash={}", pgnkit::search::DEFAULT_HASH_MB));
    }
    implied
}

/// What a part holds, which says how `merge` joins the parts.
#[derive(Clone, Copy)]
pub enum Layout<'a> {
    /// Bytes, joined after `header` (what a single run writes before the games) and before the
    /// record `footer` names ([`pgnkit::shard::merge::footer`]; `""` for none).
    Text { header: &'a [u8], footer: &'static str },
    /// A whole Parquet file, whose row groups `merge` writes as one table.
    Table,
}

impl Layout<'_> {
    /// Text with nothing before or after the games.
    pub const PLAIN: Layout<'static> = Layout::Text { header: b"", footer: "" };
}

/// A part a shard writes.
struct PartOut {
    role: &'static str,
    path: PathBuf,
    target: PathBuf,
    header: String,
    footer: &'static str,
    table: bool,
}

/// A shard's run: its plan and the parts it writes.
pub struct Sharding {
    plan: Plan,
    job: &'static str,
    dir: Option<PathBuf>,
    parts: Vec<PartOut>,
    start: Instant,
}

impl Sharding {
    /// The shard `args` asks for, planned over `input`'s games; `None` without `--shard`.
    pub fn new(input: &HeadArgs, job: &'static str) -> Result<Option<Sharding>, Fail> {
        Sharding::of(input, job, Unit::Games)
    }

    /// [`Sharding::new`] over runs of `unit` (lines for EPD input).
    pub fn of(input: &HeadArgs, job: &'static str, unit: Unit) -> Result<Option<Sharding>, Fail> {
        let args = &input.shard;
        let Some(text) = &args.shard else { return Ok(None) };
        let env = |name: &str| std::env::var(name).ok();
        let spec = Spec::parse(text, args.shards, &env).map_err(Fail::usage)?;
        if text == "auto"
            && let Some(warning) = Spec::warning(args.shards, &env)
        {
            stderrln!("pgnkit: warning: shard {spec}: {warning}");
        }
        let start = Instant::now();
        // Before the plan, which may read much of the inputs: a run refuses this at once.
        onto_input(&input.output, args.output_dir.as_deref(), &input.files)?;
        if let Some(dir) = &args.output_dir {
            std::fs::create_dir_all(dir).map_err(|e| Fail::Command {
                code: Code::CantCreate,
                message: pgnkit::shard::merge::output_dir_error(dir, &e),
            })?;
        }
        let plan = plan(&input.files, spec, unit, input.no_mmap)?;
        if plan.scanned > 64 << 20 && !input.quiet {
            stderrln!(
                "pgnkit: shard {spec}: read {:.0} MB to find where its share starts and ends \
                 (`pgnkit index FILE` once makes that a few MB for plain files)",
                plan.scanned as f64 / 1e6
            );
        }
        Ok(Some(Sharding { plan, job, dir: args.output_dir.clone(), parts: Vec::new(), start }))
    }

    /// Where the output `role` given as `path` goes: its part, holding `layout`.
    pub fn output(&mut self, role: &'static str, path: &Path, layout: Layout) -> Result<PathBuf, Fail> {
        if path == Path::new("-") || pgnkit::io::written_in_place(path) {
            return Err(Fail::usage(format!(
                "--shard writes its {role} as a part file: give it a file name, not {}",
                if path == Path::new("-") {
                    "the standard output".to_string()
                } else {
                    path.display().to_string()
                }
            )));
        }
        let inputs: Vec<PathBuf> = self.plan.inputs.iter().map(|i| i.path.clone()).collect();
        onto_input(path, self.dir.as_deref(), &inputs)?;
        let part = part_path(path, self.dir.as_deref(), self.plan.spec);
        let (header, footer, table) = match layout {
            Layout::Text { header, footer } => (String::from_utf8_lossy(header).into_owned(), footer, false),
            Layout::Table => (String::new(), "", true),
        };
        self.parts.push(PartOut {
            role,
            path: part.clone(),
            target: path.to_path_buf(),
            header,
            footer,
            table,
        });
        Ok(part)
    }

    /// The inputs and the parts of them this shard reads.
    pub fn shares(&self) -> Vec<Share> {
        self.plan.shares()
    }

    /// Writes the manifest (see [`Sharding::finish`]) when there is a shard.
    pub fn conclude(
        sharding: Option<Sharding>,
        summary: &Summary,
        code: Code,
        select: &Selection,
        extra: Value,
    ) -> Result<(), Fail> {
        match sharding {
            Some(s) => s.finish(summary, code, select, extra),
            None => Ok(()),
        }
    }
}

/// Refuses the output `path` when the file `merge` writes for it (`path`, or its name in the
/// shards' `--output-dir`) is an input, as a run refuses it (73): found at the merge, it cost the
/// whole array's work.
fn onto_input(path: &Path, dir: Option<&Path>, inputs: &[PathBuf]) -> Result<(), Fail> {
    let merged = match (dir, path.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    };
    if path != Path::new("-") && pgnkit::io::is_input(&merged, inputs) {
        return Err(pgnkit::io::OutputError::WouldOverwriteInput { path: path.to_path_buf() }.into());
    }
    Ok(())
}

/// `path` (a part) as the manifest beside `base`'s parts names it: its name when it is there,
/// else the way from `base` to it (`--rejects` in another directory than `-o`), so the set of
/// parts can be moved as a whole.
fn relative(path: &Path, base: &Path) -> PathBuf {
    let name = PathBuf::from(path.file_name().unwrap_or_default());
    let dir = |p: &Path| std::fs::canonicalize(if p.as_os_str().is_empty() { Path::new(".") } else { p });
    let (Ok(from), Ok(to)) = (dir(base), dir(path.parent().unwrap_or(Path::new("")))) else { return name };
    let common = from.components().zip(to.components()).take_while(|(a, b)| a == b).count();
    let up = from.components().count() - common;
    let mut way: PathBuf = std::iter::repeat_n(Path::new(".."), up).collect();
    way.extend(to.components().skip(common));
    way.join(name)
}

/// Creates the output `role` named `path` (`-o`'s, `--rejects`'...): under `--shard` its part,
/// holding `layout` and compressed as `path`'s name says, else `path` itself.
pub fn create(
    sharding: &mut Option<Sharding>,
    head: &HeadArgs,
    role: &'static str,
    path: &Path,
    layout: Layout,
) -> Result<Output, Fail> {
    let opts = head.output_options();
    Ok(match sharding.as_mut() {
        Some(s) => Output::create_as(&s.output(role, path, layout)?, path, &opts)?,
        None => Output::create(path, &opts)?,
    })
}

/// Under `--shard`, creates the shard's keys part (`-o`'s name + `.keys`, as a part), which
/// `merge` reads to settle `clean --dedup` and `positions --unique` across shards.
pub fn keys(sharding: &mut Option<Sharding>, head: &HeadArgs) -> Result<Option<Output>, Fail> {
    let Some(s) = sharding.as_mut() else { return Ok(None) };
    let mut name = head.output.as_os_str().to_os_string();
    name.push(".keys");
    let keys = s.output(pgnkit::shard::settle::KEYS, Path::new(&name), Layout::PLAIN)?;
    Ok(Some(Output::create(&keys, &head.output_options())?))
}

/// Runs `job` over the head's inputs, or over the shard's share of them.
pub fn run<J: Job>(
    job: &J,
    head: &HeadArgs,
    opts: &RunOptions,
    sharding: &Option<Sharding>,
    observer: &dyn Observer,
    sink: &mut impl Sink<Records<J>>,
) -> Result<Summary, pgnkit::error::Error> {
    match sharding {
        Some(s) => pgnkit::jobs::run::run_shares(job, &s.shares(), opts, observer, sink),
        None => pgnkit::jobs::run::run(job, &head.files, opts, observer, sink),
    }
}

impl Sharding {
    /// Writes the manifest once the parts are in place; nothing when the run was interrupted or
    /// an input failed in a way a rerun may not repeat (then `merge` sees the shard as missing).
    /// An input that fails for what it holds (not PGN, UTF-16, corrupt) is recorded as a
    /// [`Failure`] instead, which `merge` names. `extra`: what the footers need.
    pub fn finish(
        self,
        summary: &Summary,
        exit: Code,
        select: &Selection,
        mut extra: Value,
    ) -> Result<(), Fail> {
        if extra.is_null() {
            extra = serde_json::json!({});
        }
        let wheres: Vec<Value> = select.wheres.iter().map(|expr| Absent { expr }.json()).collect();
        extra["wheres"] = wheres.into();
        if summary.stopped.is_some() {
            return Ok(());
        }
        // The run went through these inputs in this order, one summary each.
        let read: Vec<(usize, Option<Span>)> = self.plan.read().map(|(k, i)| (k, i.span)).collect();
        let failures: Vec<Failure> = read
            .iter()
            .zip(&summary.inputs)
            .filter_map(|(&(input, _), done)| {
                done.error.as_ref().map(|e| Failure { input, message: e.to_string() })
            })
            .collect();
        if !failures.is_empty() {
            // Not PGN, UTF-16, a corrupt stream: the same bytes fail every rerun the same way.
            let lasting = summary
                .inputs
                .iter()
                .filter_map(|i| i.error.as_ref())
                .all(|e| e.exit_code() == Code::DataErr);
            if !lasting {
                stderrln!(
                    "pgnkit: shard {}: an input failed (above), so no manifest was written: merge counts \
                     this shard as missing until it is run again without the failure",
                    self.plan.spec
                );
                return Ok(());
            }
            stderrln!(
                "pgnkit: shard {}: an input cannot be read as this command reads it (above), and no \
                 rerun changes that: the manifest says so, and merge refuses the run naming it",
                self.plan.spec
            );
        }
        let main = self.parts.first().map(|p| p.path.clone()).unwrap_or_else(|| PathBuf::from("shard"));
        let beside = main.parent().unwrap_or(Path::new(""));
        let mut parts = Vec::new();
        for p in &self.parts {
            // A failed shard's parts are never merged (and may not be there).
            let (size, digest) = match failures.is_empty() {
                false => (0, String::new()),
                true => std::fs::File::open(&p.path).and_then(|mut f| digest(&mut f)).map_err(|e| {
                    Fail::Command { code: Code::IoErr, message: format!("{}: {e}", p.path.display()) }
                })?,
            };
            parts.push(Part {
                role: p.role.into(),
                file: relative(&p.path, beside),
                target: p.target.clone(),
                size,
                digest,
                header: p.header.clone(),
                footer: p.footer.into(),
                table: p.table,
            });
        }
        let ranges = read
            .into_iter()
            .zip(&summary.inputs)
            .filter_map(|((input, span), done)| {
                let span = span?; // failed before its part was found: no range, a failure
                Some(Range {
                    input,
                    start: span.start,
                    end: span.end,
                    games: done.stats.games,
                    stats: done.stats.clone(),
                })
            })
            .collect();
        let manifest = Manifest {
            version: env!("CARGO_PKG_VERSION").into(),
            job: self.job.into(),
            options: shaping_options(),
            inputs: self
                .plan
                .inputs
                .iter()
                .map(|i| InputId { path: i.path.clone(), size: i.size, fingerprint: i.fingerprint.clone() })
                .collect(),
            spec: self.plan.spec,
            ranges,
            stats: summary.stats.clone(),
            seconds: self.start.elapsed().as_secs_f64(),
            parts,
            exit: exit.number(),
            failures,
            extra,
        };
        let path = manifest_path(&main);
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(path.file_name().unwrap_or_default());
        temp_name.push(format!(".pgnkit-tmp-{}", std::process::id()));
        let temp = path.with_file_name(temp_name);
        let io = |e: std::io::Error| Fail::Command {
            code: Code::CantCreate,
            message: format!("{}: {e}", path.display()),
        };
        let text = serde_json::to_string_pretty(&manifest.to_json()).unwrap_or_default() + "\n";
        std::fs::write(&temp, text).map_err(io)?;
        std::fs::rename(&temp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            io(e)
        })?;
        Ok(())
    }
}
