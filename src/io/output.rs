//! [`Output::create`]: stdout (`-`) or a file, buffered; a file is written under a temporary
//! name in the same directory, synced and renamed into place by [`Output::finish`], so a failed
//! run (or a crash) never leaves a truncated result; a `.zst` name writes zstd, a `.gz` name gzip.
//! The temporary files of the same output that runs killed outright left are removed first
//! ([`super::temporary::remove_stale`]).
//!
//! The file's writeback is started every 8 MiB as it is written, so the sync at the end waits
//! for the last few MiB only: `clean -j2` of the 100 MB corpus waited 50-60 ms in that `fsync`,
//! now 5-6 ms (`strace -T`), for 12 calls of about 0.8 ms along the way.
//!
//! Invariants: an output never replaces one of the inputs, nor names the same file as another
//! output of the run (paths compared canonically); a closed stdout (`| head`) is reported as [`OutputError::BrokenPipe`], which the command line
//! treats as success.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::piped::Watched;
use crate::exit::Code;

/// Options for [`Output::create`].
#[derive(Debug, Clone, Default)]
pub struct OutputOptions {
    /// Paths of the inputs, which the output must not replace (`-` entries are ignored).
    pub inputs: Vec<PathBuf>,
    /// zstd level for `.zst` outputs; 0 means the zstd default (3).
    pub zstd_level: i32,
}

/// Why output failed.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The reader of stdout went away (exit 0, quietly).
    #[error("broken pipe")]
    BrokenPipe,
    /// The output path is one of the inputs (exit 73).
    #[error("{}: refusing to overwrite an input file", super::name::output(path))]
    WouldOverwriteInput {
        /// The output path as given.
        path: PathBuf,
    },
    /// The path is already another output of this run, which would share its temporary file, or
    /// both are `-`, which would share stdout (exit 2).
    #[error("{}: named as two outputs of one run", super::name::output(path))]
    Twice {
        /// The output path as given.
        path: PathBuf,
    },
    /// The output (or its temporary file) cannot be created (exit 73).
    #[error("{}: cannot create: {source}", super::name::output(path))]
    Create {
        /// The output path as given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A stop signal came while the output, a pipe or a FIFO, waited for a reader to open it
    /// (`opening`) or to take more (exit 130).
    #[error("{}", interrupted(path, *opening))]
    Interrupted {
        /// The output path as given (`-` for stdout).
        path: PathBuf,
        /// Whether no reader had opened it: nothing was written.
        opening: bool,
    },
    /// Writing, flushing or renaming failed, e.g. disk full (exit 74).
    #[error("{}: write error: {source}", super::name::output(path))]
    Write {
        /// The output path as given (`-` for stdout).
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// What [`OutputError::Interrupted`] says.
fn interrupted(path: &Path, opening: bool) -> String {
    let name = super::name::output(path);
    if opening {
        format!("interrupted: stopped waiting for a reader to open {name}; nothing was written to it")
    } else {
        format!(
            "interrupted: stopped waiting for the reader of {name} to take more; it got what was written before, the last game perhaps cut"
        )
    }
}

impl OutputError {
    /// A failed write to `path` that is not an [`Output`]'s own (a table writer's): a broken
    /// pipe on stdout is [`OutputError::BrokenPipe`], as [`Output::error`] says.
    pub fn writing(path: &Path, source: io::Error) -> OutputError {
        OutputError::of_write(path, source, path == Path::new("-"))
    }

    /// [`OutputError::Interrupted`] when `e`, an error of opening or writing the output `path`,
    /// is a stop that ended a wait on it (a pipe no process reads).
    pub fn stopped(path: &Path, e: &io::Error) -> Option<OutputError> {
        super::piped::stopped(e)
            .map(|s| OutputError::Interrupted { path: path.to_owned(), opening: s.opening })
    }

    /// A failed write to `path`: a stop that ended a wait on a pipe, a broken pipe where that is
    /// a quiet end (`in_place`: stdout, a pipe written in place), or a write error.
    fn of_write(path: &Path, source: io::Error, in_place: bool) -> OutputError {
        if let Some(stopped) = OutputError::stopped(path, &source) {
            stopped
        } else if source.kind() == io::ErrorKind::BrokenPipe && in_place {
            OutputError::BrokenPipe
        } else {
            OutputError::Write { path: path.to_owned(), source }
        }
    }

    /// Its exit code: 0 broken pipe (a quiet success), 73 cannot create, 74 I/O, 130 interrupted.
    pub fn exit_code(&self) -> Code {
        match self {
            OutputError::BrokenPipe => Code::Ok,
            OutputError::WouldOverwriteInput { .. } | OutputError::Create { .. } => Code::CantCreate,
            OutputError::Write { .. } => Code::IoErr,
            OutputError::Twice { .. } => Code::Usage,
            OutputError::Interrupted { .. } => Code::Interrupted,
        }
    }
}

enum Sink {
    Stdout(BufWriter<Box<dyn Write + Send>>),
    File(BufWriter<Synced>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<Synced>>),
    Gzip(flate2::write::GzEncoder<BufWriter<Synced>>),
}

/// A file synced before it is renamed into place, whose writeback is started every
/// [`Synced::STEP`] bytes as it is written (Linux), so that the final `fsync` waits for the
/// last step only, not for the whole output at the end of the run.
struct Synced {
    file: Watched,
    /// Whether it is synced at the end (a device or a pipe is not).
    sync: bool,
    written: u64,
    /// Bytes whose writeback was started.
    started: u64,
}

impl Synced {
    const STEP: u64 = 8 << 20;

    fn new(file: Watched, sync: bool) -> Synced {
        Synced { file, sync, written: 0, started: 0 }
    }

    /// Starts writing back the bytes written since the last start, without waiting for them.
    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self) {
        use std::os::fd::AsRawFd;
        let (from, len) = (self.started as i64, (self.written - self.started) as i64);
        // SAFETY: a plain system call on an open descriptor; it reads no memory of ours. Its
        // failure only leaves the writeback to the final fsync.
        #[allow(unsafe_code)]
        unsafe {
            libc::sync_file_range(self.file.file().as_raw_fd(), from, len, libc::SYNC_FILE_RANGE_WRITE)
        };
        self.started = self.written;
    }

    #[cfg(not(target_os = "linux"))]
    fn start_writeback(&mut self) {}

    /// Syncs the file, when it is to be synced.
    fn finish(self) -> io::Result<()> {
        if self.sync { self.file.file().sync_all() } else { Ok(()) }
    }
}

impl Write for Synced {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.sync && self.written - self.started >= Self::STEP {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// A buffered output; see the module docs. Dropping it without [`Output::finish`] removes the
/// temporary file and leaves any existing file at the path untouched.
pub struct Output {
    sink: Option<Sink>,
    /// The path as given (`-` for stdout).
    path: PathBuf,
    /// Temporary file to rename on success, and the path to rename it onto: `path`, or the file
    /// a link there points to.
    temp: Option<(PathBuf, PathBuf)>,
    /// The canonical path (or `-`) it holds in [`OPEN`] until it is dropped.
    claim: Option<PathBuf>,
    /// The temporary file, for a second interrupt to remove.
    _registered: Option<super::temporary::Registered>,
}

/// The canonical paths of the file outputs open in this process, and `-` while stdout is one:
/// two outputs of one run on one file would write one temporary file and leave a mix of both
/// under the name.
static OPEN: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output").field("path", &self.path).field("temp", &self.temp).finish()
    }
}

/// Holds `key` (an output's canonical path, or `-`) in [`OPEN`] for the output named `path`,
/// unless another output holds it.
fn hold(path: &Path, key: PathBuf) -> Result<PathBuf, OutputError> {
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    if open.contains(&key) {
        return Err(OutputError::Twice { path: path.to_owned() });
    }
    open.push(key.clone());
    Ok(key)
}

/// Whether stdin is redirected from the regular file `out` describes (`check - -o f < f`).
#[cfg(unix)]
fn stdin_is(out: &std::fs::Metadata) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else { return false };
    File::from(fd).metadata().is_ok_and(|m| m.is_file() && m.dev() == out.dev() && m.ino() == out.ino())
}

#[cfg(not(unix))]
fn stdin_is(_: &std::fs::Metadata) -> bool {
    false
}

/// A duplicate of the standard output's or error's descriptor when it writes to the regular file
/// `out` describes (`-o /dev/stdout > f`, `--report /dev/stderr 2> log`): written through it, the
/// output lands where the redirection sends it, at its offset, where a temporary file renamed
/// onto `/dev/stdout` would replace the link itself (as root) and leave the file without it.
#[cfg(unix)]
fn std_stream_of(out: &std::fs::Metadata) -> Option<File> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    [io::stdout().as_fd().try_clone_to_owned(), io::stderr().as_fd().try_clone_to_owned()]
        .into_iter()
        .flatten()
        .map(File::from)
        .find(|f| f.metadata().is_ok_and(|m| m.is_file() && m.dev() == out.dev() && m.ino() == out.ino()))
}

#[cfg(not(unix))]
fn std_stream_of(_: &std::fs::Metadata) -> Option<File> {
    None
}

/// Whether an output whose path holds what `meta` describes is written in place: a device or a
/// pipe (`-o /dev/null`, a FIFO), or the file the standard output or error writes to
/// ([`std_stream_of`]). Renaming a temporary file onto one would replace the device node or the
/// `/dev/stdout` link itself (as root).
pub(crate) fn in_place(meta: Option<&std::fs::Metadata>) -> bool {
    meta.is_some_and(|m| !m.is_file() || std_stream_of(m).is_some())
}

/// Whether an output named `path` is written in place rather than as a file of its own: a
/// device, a pipe, or the file the standard output or error writes to (`/dev/stdout`).
pub fn written_in_place(path: &Path) -> bool {
    in_place(std::fs::metadata(path).ok().as_ref())
}

/// An output file opened by [`place`]: the file to write (a pipe's waits end at a stop), and the
/// temporary file to rename when complete with the path to rename it onto (`None`: written in
/// place).
pub(crate) type Placed = (Watched, Option<(PathBuf, PathBuf)>);

/// Opens the output file `path`, where `meta` describes what the path holds now: in place
/// ([`in_place`]), or as a temporary file beside it. A link to a file is written through: the
/// temporary file goes beside the file it points to and replaces that file, not the link.
pub(crate) fn place(path: &Path, meta: Option<&std::fs::Metadata>) -> io::Result<Placed> {
    // A regular file (this one, or a temporary file) waits for no reader.
    if let Some(stream) = meta.filter(|m| m.is_file()).and_then(std_stream_of) {
        return Ok((Watched::unwatched(stream), None));
    }
    // The standard streams were looked for above: what is left in place is a device or a pipe.
    if let Some(m) = meta.filter(|m| !m.is_file()) {
        return Ok((Watched::new(super::piped::open(path, m)?), None));
    }
    let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = if linked { path.canonicalize().or_else(|_| followed(path))? } else { path.to_path_buf() };
    if let Some(m) = meta {
        writable(&target, m)?;
    }
    let temp = super::temporary::name_for(&target)?;
    super::temporary::remove_stale(&target);
    let file = File::create(&temp)?;
    // Held while it is written: a run cleaning the directory leaves a locked file alone.
    super::temporary::lock(&file);
    // The file it replaces keeps its mode (a collection kept private stays so).
    if let Some(m) = meta {
        file.set_permissions(m.permissions())?;
    }
    Ok((Watched::unwatched(file), Some((temp, target))))
}

/// Refuses to replace the file `target` (described by `meta`) where writing to it would be refused
/// (`>` or `cp` over it: permission denied), although the rename of a temporary file needs the
/// directory's permission only: a file no one may write (`chmod a-w`, also for root, who may
/// write anything), or one this user may not write.
fn writable(target: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use nix::unistd::{AccessFlags, access};
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        let denied = mode & 0o222 == 0
            || access(target, AccessFlags::W_OK)
                .is_err_and(|e| io::Error::from(e).kind() == io::ErrorKind::PermissionDenied);
        if denied {
            let why = format!("permission denied: the file is write-protected (mode {:o})", mode & 0o7777);
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, why));
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "permission denied: the file is read-only",
        ));
    }
    let _ = target;
    Ok(())
}

/// Where the link `path` points at last when that does not exist yet (a dangling link, or a
/// chain of them): the output creates the file there, as a write through the link would.
fn followed(path: &Path) -> io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    // Linux's own bound on the links one path may pass through.
    for _ in 0..40 {
        match std::fs::read_link(&at) {
            Ok(to) => at = at.parent().map_or_else(|| to.clone(), |dir| dir.join(&to)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!("{}: too many levels of symbolic links", path.display())))
}

/// The canonical form of a path that may not exist yet (its directory must).
pub(crate) fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(parent.canonicalize().ok()?.join(path.file_name()?))
}

/// Whether the output `path` is one of `inputs` (through links, or stdin's file for `-`).
pub fn is_input(path: &Path, inputs: &[PathBuf]) -> bool {
    let Some(out) = canonical(path) else { return false };
    inputs.iter().any(|i| {
        if i.as_path() == Path::new("-") {
            std::fs::metadata(path).is_ok_and(|m| stdin_is(&m))
        } else {
            i.canonicalize().is_ok_and(|i| i == out)
        }
    })
}

/// The compression an output named `path` is written with: `zstd` for `.zst`, `gzip` for `.gz`
/// (in any case: `GAMES.PGN.ZST` is zstd too).
pub fn compressed_as(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?;
    if ext.eq_ignore_ascii_case("zst") {
        Some("zstd")
    } else if ext.eq_ignore_ascii_case("gz") {
        Some("gzip")
    } else {
        None
    }
}

impl Output {
    /// Creates stdout (`-`) or a file output.
    ///
    /// ```no_run
    /// use pgnkit::io::{Output, OutputOptions};
    /// use std::io::Write;
    /// let mut out = Output::create("out.pgn.zst".as_ref(), &OutputOptions::default())?;
    /// out.write_all(b"[Event \"?\"]\n\n*\n").map_err(|e| out.error(e))?;
    /// out.finish()?;
    /// # Ok::<(), pgnkit::io::OutputError>(())
    /// ```
    pub fn create(path: &Path, opts: &OutputOptions) -> Result<Output, OutputError> {
        Output::create_as(path, path, opts)
    }

    /// Creates the file `path`, compressed as the name `named` says (a shard's part of a `.zst`
    /// output is zstd, whatever its own name ends with).
    pub fn create_as(path: &Path, named: &Path, opts: &OutputOptions) -> Result<Output, OutputError> {
        if path == Path::new("-") {
            // Two outputs on stdout would interleave in one stream: `-` is claimed as a file is.
            let claim = hold(path, path.to_owned())?;
            return Ok(Output {
                sink: Some(Sink::Stdout(BufWriter::with_capacity(1 << 16, super::piped::stdout()))),
                path: path.to_owned(),
                temp: None,
                claim: Some(claim),
                _registered: None,
            });
        }
        let create_err = |source| OutputError::Create { path: path.to_owned(), source };
        // What is at the path now, looked at once: a directory is refused before any work (the
        // rename at the end would fail on it), a device is written in place.
        let meta = std::fs::metadata(path).ok();
        if meta.as_ref().is_some_and(|m| m.is_dir()) || path.as_os_str().to_string_lossy().ends_with('/') {
            let e = io::Error::new(io::ErrorKind::IsADirectory, "is a directory, not a file name");
            return Err(create_err(e));
        }
        let special = in_place(meta.as_ref());
        if is_input(path, &opts.inputs) {
            return Err(OutputError::WouldOverwriteInput { path: path.to_owned() });
        }
        let out = canonical(path);
        // A device (`/dev/null`) may take any number of outputs.
        let claim = out.filter(|_| !special).map(|out| hold(path, out)).transpose()?;
        // Released by the drop, also when the creation below fails.
        let mut output = Output { sink: None, path: path.to_owned(), temp: None, claim, _registered: None };
        let (file, temp) = place(path, meta.as_ref())
            .map_err(|e| OutputError::stopped(path, &e).unwrap_or_else(|| create_err(e)))?;
        output._registered = temp.as_ref().map(|(t, _)| super::temporary::register(t));
        output.temp = temp;
        let buf = BufWriter::with_capacity(1 << 16, Synced::new(file, output.temp.is_some()));
        let sink = if compressed_as(named) == Some("zstd") {
            let level = if opts.zstd_level == 0 { 3 } else { opts.zstd_level };
            match zstd::stream::write::Encoder::new(buf, level) {
                Ok(e) => Sink::Zstd(e),
                // The drop removes the temporary file.
                Err(e) => return Err(create_err(e)),
            }
        } else if compressed_as(named) == Some("gzip") {
            Sink::Gzip(flate2::write::GzEncoder::new(buf, flate2::Compression::default()))
        } else {
            Sink::File(buf)
        };
        output.sink = Some(sink);
        Ok(output)
    }

    /// The path as given (`-` for stdout).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Classifies an error from `write`: broken pipe on stdout, else a write error.
    pub fn error(&self, source: io::Error) -> OutputError {
        OutputError::of_write(&self.path, source, self.temp.is_none())
    }

    /// Sends what was written on now where a reader may be following it: stdout, or a device or
    /// pipe written in place (`/dev/stdout`, a FIFO). A file is put in place whole at the end,
    /// and a compressed stream flushed now would lose ratio, so they wait.
    pub fn flush_followed(&mut self) -> Result<(), OutputError> {
        let result = match &mut self.sink {
            Some(Sink::Stdout(w)) => w.flush(),
            Some(Sink::File(w)) if self.temp.is_none() => w.flush(),
            _ => Ok(()),
        };
        result.map_err(|e| self.error(e))
    }

    /// Flushes everything, ends the zstd stream, and renames the temporary file into place.
    pub fn finish(mut self) -> Result<(), OutputError> {
        self.complete()?;
        self.place()
    }

    /// Finishes every output, then puts them in place: when one cannot be written to its end,
    /// none is left under its final name (a run's output and its report or rejects agree).
    pub fn finish_all(outputs: impl IntoIterator<Item = Output>) -> Result<(), OutputError> {
        let mut complete = Vec::new();
        for mut o in outputs {
            // On an error the drop of `complete` removes the others' temporary files.
            o.complete()?;
            complete.push(o);
        }
        complete.into_iter().try_for_each(Output::place)
    }

    /// Writes out what is buffered and ends the stream: the file is whole, under its temporary
    /// name.
    fn complete(&mut self) -> Result<(), OutputError> {
        let result = match self.sink.take() {
            Some(Sink::Stdout(mut w)) => w.flush(),
            Some(Sink::File(w)) => finish_file(w),
            Some(Sink::Zstd(e)) => e.finish().and_then(finish_file),
            Some(Sink::Gzip(e)) => e.finish().and_then(finish_file),
            None => Ok(()),
        };
        result.map_err(|e| self.error(e))
    }

    /// Renames the [complete](Output::complete) temporary file into place.
    fn place(mut self) -> Result<(), OutputError> {
        if let Some((temp, target)) = self.temp.take()
            && let Err(e) = std::fs::rename(&temp, &target)
        {
            let _ = std::fs::remove_file(&temp);
            return Err(self.error(e));
        }
        Ok(())
    }
}

fn finish_file(w: BufWriter<Synced>) -> io::Result<()> {
    w.into_inner().map_err(io::IntoInnerError::into_error)?.finish()
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.sink.as_mut() {
            Some(Sink::Stdout(w)) => w.write(buf),
            Some(Sink::File(w)) => w.write(buf),
            Some(Sink::Zstd(w)) => w.write(buf),
            Some(Sink::Gzip(w)) => w.write(buf),
            None => Err(io::Error::other("output already finished")),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self.sink.as_mut() {
            Some(Sink::Stdout(w)) => w.write_all(buf),
            Some(Sink::File(w)) => w.write_all(buf),
            Some(Sink::Zstd(w)) => w.write_all(buf),
            Some(Sink::Gzip(w)) => w.write_all(buf),
            None => Err(io::Error::other("output already finished")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.sink.as_mut() {
            Some(Sink::Stdout(w)) => w.flush(),
            Some(Sink::File(w)) => w.flush(),
            Some(Sink::Zstd(w)) => w.flush(),
            Some(Sink::Gzip(w)) => w.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some((temp, _)) = self.temp.take() {
            self.sink = None;
            let _ = std::fs::remove_file(temp);
        }
        if let Some(claim) = self.claim.take() {
            OPEN.lock().unwrap_or_else(|e| e.into_inner()).retain(|p| *p != claim);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-out-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn file_appears_only_on_finish() {
        let dir = temp_dir("finish");
        let p = dir.join("out.pgn");
        std::fs::write(&p, b"old").unwrap();
        let mut out = Output::create(&p, &OutputOptions::default()).unwrap();
        out.write_all(b"new contents").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        out.finish().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new contents");
        // Dropped without finish: the old file stays, no temp file is left.
        let mut out = Output::create(&p, &OutputOptions::default()).unwrap();
        out.write_all(b"partial").unwrap();
        drop(out);
        assert_eq!(std::fs::read(&p).unwrap(), b"new contents");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// An output of several writeback steps, written in pieces of odd sizes, reads back whole.
    #[test]
    fn a_file_past_several_writeback_steps_is_whole() {
        let dir = temp_dir("steps");
        let p = dir.join("out.pgn");
        let mut out = Output::create(&p, &OutputOptions::default()).unwrap();
        let mut expected = Vec::new();
        let mut i = 0u32;
        while (expected.len() as u64) < 2 * Synced::STEP + 12_345 {
            let piece: Vec<u8> = (0..(i % 200_000) + 1).map(|j| (j.wrapping_mul(31) ^ i) as u8).collect();
            out.write_all(&piece).unwrap();
            expected.extend_from_slice(&piece);
            i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        }
        out.finish().unwrap();
        assert!(std::fs::read(&p).unwrap() == expected, "the file differs from what was written");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn zst_name_compresses() {
        let dir = temp_dir("zst");
        for name in ["out.pgn.zst", "OUT.PGN.ZST"] {
            let p = dir.join(name);
            let mut out = Output::create(&p, &OutputOptions::default()).unwrap();
            out.write_all(&b"1. e4 e5 *\n".repeat(100)).unwrap();
            out.finish().unwrap();
            let raw = std::fs::read(&p).unwrap();
            assert!(raw.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]), "{name}");
            assert_eq!(zstd::decode_all(&raw[..]).unwrap(), b"1. e4 e5 *\n".repeat(100));
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn gz_name_compresses() {
        let dir = temp_dir("gz");
        let p = dir.join("out.pgn.gz");
        let mut out = Output::create(&p, &OutputOptions::default()).unwrap();
        out.write_all(&b"1. e4 e5 *\n".repeat(100)).unwrap();
        out.finish().unwrap();
        let raw = std::fs::read(&p).unwrap();
        assert!(raw.starts_with(&[0x1f, 0x8b]));
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&raw[..]), &mut text).unwrap();
        assert_eq!(text, b"1. e4 e5 *\n".repeat(100));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn refuses_to_overwrite_an_input() {
        let dir = temp_dir("clash");
        let input = dir.join("in.pgn");
        std::fs::write(&input, b"*").unwrap();
        let opts = OutputOptions { inputs: vec![PathBuf::from("-"), input.clone()], zstd_level: 0 };
        // Same file through a different spelling.
        let sneaky = dir.join(".").join("in.pgn");
        let e = Output::create(&sneaky, &opts).unwrap_err();
        assert!(matches!(e, OutputError::WouldOverwriteInput { .. }));
        assert_eq!(e.exit_code(), Code::CantCreate);
        assert_eq!(std::fs::read(&input).unwrap(), b"*");
        assert!(Output::create(&dir.join("other.pgn"), &opts).is_ok());
        // A directory is no file name: refused when created, not at the rename after the work.
        for d in [dir.clone(), PathBuf::from(format!("{}/", dir.display()))] {
            let e = Output::create(&d, &OutputOptions::default()).unwrap_err();
            assert!(
                matches!(e, OutputError::Create { .. }) && e.to_string().contains("is a directory"),
                "{e}"
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn one_file_is_one_output_at_a_time() {
        let dir = temp_dir("twice");
        let path = dir.join("out.pgn");
        let mut first = Output::create(&path, &OutputOptions::default()).unwrap();
        let e = Output::create(&dir.join(".").join("out.pgn"), &OutputOptions::default()).unwrap_err();
        assert!(matches!(e, OutputError::Twice { .. }), "{e}");
        assert_eq!(e.exit_code(), Code::Usage);
        first.write_all(b"first").unwrap();
        first.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first", "the refused output left the file alone");
        // Finished, the name is free again; a device takes any number.
        Output::create(&path, &OutputOptions::default()).unwrap().finish().unwrap();
        let null = Output::create("/dev/null".as_ref(), &OutputOptions::default()).unwrap();
        assert!(Output::create("/dev/null".as_ref(), &OutputOptions::default()).is_ok());
        drop(null);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// An output named by a link to a file is written through the link: the file it points to
    /// gets the output, and the link stays; the file keeps its mode.
    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through() {
        let dir = temp_dir("link");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::fs::write(dir.join("real/out.pgn"), "old").unwrap();
        let link = dir.join("out.pgn");
        std::os::unix::fs::symlink("real/out.pgn", &link).unwrap();
        let mut out = Output::create(&link, &OutputOptions::default()).unwrap();
        out.write_all(b"new\n").unwrap();
        out.finish().unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays");
        assert_eq!(std::fs::read(dir.join("real/out.pgn")).unwrap(), b"new\n");
        // The file replaced keeps its mode.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.join("real/out.pgn"), std::fs::Permissions::from_mode(0o600)).unwrap();
        let out = Output::create(&link, &OutputOptions::default()).unwrap();
        out.finish().unwrap();
        let mode = std::fs::metadata(dir.join("real/out.pgn")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let names = |d: &Path| std::fs::read_dir(d).unwrap().count();
        assert_eq!((names(&dir), names(&dir.join("real"))), (2, 1), "no temporary file left");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A link to a file not there yet is written through too: the file is created where it
    /// points (through a chain of links), and the link stays.
    #[cfg(unix)]
    #[test]
    fn a_dangling_link_is_written_through() {
        let dir = temp_dir("dangling-link");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        let (link, hop) = (dir.join("out.pgn"), dir.join("real/hop.pgn"));
        std::os::unix::fs::symlink("real/hop.pgn", &link).unwrap();
        std::os::unix::fs::symlink("out-real.pgn", &hop).unwrap();
        let mut out = Output::create(&link, &OutputOptions::default()).unwrap();
        out.write_all(b"new\n").unwrap();
        out.finish().unwrap();
        for l in [&link, &hop] {
            assert!(std::fs::symlink_metadata(l).unwrap().file_type().is_symlink(), "{} stays", l.display());
        }
        assert_eq!(std::fs::read(dir.join("real/out-real.pgn")).unwrap(), b"new\n");
        // A loop of links is an error, not a file made in place of one.
        let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
        std::os::unix::fs::symlink("b.pgn", &a).unwrap();
        std::os::unix::fs::symlink("a.pgn", &b).unwrap();
        assert!(Output::create(&a, &OutputOptions::default()).is_err());
        assert!(std::fs::symlink_metadata(&a).unwrap().file_type().is_symlink());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A FIFO stands in for `/dev/null`: a regression would replace it, not a device node.
    #[cfg(unix)]
    #[test]
    fn devices_and_pipes_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = temp_dir("fifo");
        let fifo = dir.join("out.fen");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            crate::skip::skip("mkfifo not available (coreutils)");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let mut out = Output::create(&fifo, &OutputOptions::default()).unwrap();
        out.write_all(b"through the pipe\n").unwrap();
        out.finish().unwrap();
        // Checked before joining: after a rename onto the path the reader would wait forever.
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
        assert_eq!(reader.join().unwrap(), b"through the pipe\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn errors_classify() {
        let e = Output::create(Path::new("/nonexistent-dir-pgnkit/x.pgn"), &OutputOptions::default())
            .unwrap_err();
        assert!(matches!(e, OutputError::Create { .. }));
        assert_eq!(e.exit_code(), Code::CantCreate);
        let out = Output::create(Path::new("-"), &OutputOptions::default()).unwrap();
        let e = out.error(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(e, OutputError::BrokenPipe));
        assert_eq!(e.exit_code(), Code::Ok);
        let e = out.error(io::Error::other("disk full"));
        assert_eq!(e.exit_code(), Code::IoErr);
    }
}
