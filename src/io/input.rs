//! [`Input::open`]: a path or `-` becomes a [`Source`]: a memory map for regular uncompressed
//! files, else a stream (stdin, `--no-mmap`, zstd, gzip).
//!
//! Invariants: compression is detected by magic bytes only, never by the name (zstd
//! `28 B5 2F FD` or a skippable frame `5? 2A 4D 18` first, gzip `1F 8B`), and every frame is
//! read to the end; bzip2, xz, zip, 7z and lz4 are refused by their magic, with a command that
//! decompresses them; UTF-16 and UTF-32 text is refused with a command that converts it, plain or
//! compressed. The progress counter counts bytes read from the file or stdin, so for
//! compressed input it counts compressed bytes. The memory map and [`PageDropper`]'s advice
//! are this module's `unsafe` code (the README lists every place the crate has some).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::gzip::Members;
use super::sniff::{Peeked, check_text, decompressing, line_end};
use super::waiting::{self, Polled, stdin_file};
use crate::exit::Code;

/// How an input is compressed (detected from its first bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// zstd, possibly multi-frame and starting with a skippable frame (pzstd, lichess dumps).
    Zstd,
    /// gzip, possibly multi-member, possibly padded with zero bytes.
    Gzip,
}

impl Compression {
    /// Detects compression from the first bytes of an input (up to 4 are looked at).
    ///
    /// ```
    /// use pgnkit::io::Compression;
    /// assert_eq!(Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd]), Compression::Zstd);
    /// assert_eq!(Compression::detect(&[0x50, 0x2a, 0x4d, 0x18]), Compression::Zstd);
    /// assert_eq!(Compression::detect(&[0x1f, 0x8b, 0x08]), Compression::Gzip);
    /// assert_eq!(Compression::detect(b"[Eve"), Compression::None);
    /// ```
    pub fn detect(head: &[u8]) -> Compression {
        match head {
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            [m, 0x2a, 0x4d, 0x18, ..] if m & 0xf0 == 0x50 => Compression::Zstd,
            [0x1f, 0x8b, ..] => Compression::Gzip,
            _ => Compression::None,
        }
    }

    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Zstd => "zstd",
            Compression::Gzip => "gzip",
        }
    }
}

/// Options for [`Input::open`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InputOptions {
    /// Read regular files as a stream instead of mapping them.
    pub no_mmap: bool,
}

/// Why an input could not be opened or read, or is not PGN.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file does not exist (exit 66).
    #[error("{}: no such file", super::name::input(path))]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// The input (the text inside, for compressed input) is UTF-16 or UTF-32: it starts with a
    /// byte order mark, or its first characters are ASCII with NULs before or after each (exit 65).
    #[error(
        "{}: input is {encoding}; convert it to UTF-8 (e.g. {}iconv -f {encoding} -t UTF-8)",
        super::name::input(path),
        decompressing(*compression, path)
    )]
    Utf16 {
        /// The path as given.
        path: PathBuf,
        /// The compression the text is inside, which the advice undoes first.
        compression: Compression,
        /// `UTF-16` or `UTF-32` (with a byte order mark), else `UTF-16LE`, `UTF-16BE`, `UTF-32LE`
        /// or `UTF-32BE`.
        encoding: &'static str,
    },
    /// A compression pgnkit does not read, known by its magic bytes (exit 65).
    #[error(
        "{}: {format}-compressed input is not read; decompress it first, e.g. `{tool} FILE | pgnkit COMMAND -`",
        super::name::input(path)
    )]
    Unsupported {
        /// The path as given.
        path: PathBuf,
        /// The format's name.
        format: &'static str,
        /// A command that decompresses it to stdout.
        tool: &'static str,
    },
    /// Not one game of the input has a tag pair or a move written as one (exit 65): it is no
    /// PGN (an EPD file, a binary, JSON...). Judged by the run driver ([`crate::jobs::run`]).
    #[error("{}: not PGN: no tag pair and no move in {}; line {line} reads {text}", super::name::input(path), looked_in(*read))]
    NotPgn {
        /// The path as given.
        path: PathBuf,
        /// The first line with text, as [`crate::pgn::text::quoted`] quotes it.
        text: String,
        /// Its number (1-based).
        line: u64,
        /// The bytes read when reading stopped before the input's end, having seen enough.
        read: Option<u64>,
    },
    /// Not one line of text of an input read as EPD lines is an EPD record or a FEN (exit 65): a
    /// PGN file given to `annotate --format epd`, say. Judged by the run driver
    /// ([`crate::jobs::run`]).
    #[error("{}: not EPD: no EPD record and no FEN in {}; line {line} reads {text}", super::name::input(path), looked_in(*read))]
    NotEpd {
        /// The path as given.
        path: PathBuf,
        /// The first line with text, as [`crate::pgn::text::quoted`] quotes it.
        text: String,
        /// Its number (1-based).
        line: u64,
        /// The bytes read when reading stopped before the input's end, having seen enough.
        read: Option<u64>,
    },
    /// An input's index sidecar (`pgnkit index`) that is stale (made for another version of the
    /// input) or no index (exit 65): never used, as its game and line numbers would be wrong.
    #[error("{}: {why}; remove it or run `pgnkit index {}` again", super::name::input(path), input.display())]
    BadIndex {
        /// The sidecar.
        path: PathBuf,
        /// The input it is beside.
        input: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A compressed stream is corrupt or truncated (exit 65).
    #[error("{}: corrupt {} stream: {source}", super::name::input(path), compression.name())]
    Corrupt {
        /// The path as given.
        path: PathBuf,
        /// The detected compression.
        compression: Compression,
        /// The decoder's error.
        #[source]
        source: io::Error,
    },
    /// Any other I/O error: permission, directory, read failure (exit 74, or 66 when the path
    /// cannot be read as a file: no permission, or a directory).
    #[error("{}: {source}", super::name::input(path))]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl InputError {
    /// Classifies an error returned while reading `path`'s stream, whose compression is
    /// `compression`: a corrupt compressed stream (exit 65; a wrong checksum, a truncated
    /// frame) or an I/O error (exit 74).
    pub fn reading(path: &Path, compression: Compression, source: io::Error) -> InputError {
        // flate2 reports a bad checksum, header or deflate block as InvalidInput.
        let decoder = matches!(
            source.kind(),
            io::ErrorKind::InvalidData
                | io::ErrorKind::InvalidInput
                | io::ErrorKind::UnexpectedEof
                | io::ErrorKind::Other
        );
        if compression != Compression::None && decoder {
            InputError::Corrupt { path: path.to_owned(), compression, source }
        } else {
            InputError::Io { path: path.to_owned(), source }
        }
    }

    /// Its exit code: 66 missing or unopenable input, 65 not the format read (PGN, EPD), corrupt
    /// compressed data or a stale index sidecar, 74 other I/O errors.
    pub fn exit_code(&self) -> Code {
        match self {
            InputError::NotFound { .. } => Code::NoInput,
            InputError::Utf16 { .. }
            | InputError::Unsupported { .. }
            | InputError::NotPgn { .. }
            | InputError::NotEpd { .. }
            | InputError::BadIndex { .. }
            | InputError::Corrupt { .. } => Code::DataErr,
            InputError::Io { source, .. }
                if matches!(source.kind(), io::ErrorKind::PermissionDenied | io::ErrorKind::IsADirectory) =>
            {
                Code::NoInput
            }
            InputError::Io { .. } => Code::IoErr,
        }
    }
}

/// A copy, for a failure reported where it is met and again where a run reaches the input (a
/// shard's plan meets a corrupt stream first): an I/O source is kept as its kind and text.
impl Clone for InputError {
    fn clone(&self) -> InputError {
        let again = |e: &io::Error| io::Error::new(e.kind(), e.to_string());
        match self {
            InputError::NotFound { path } => InputError::NotFound { path: path.clone() },
            InputError::Utf16 { path, compression, encoding } => {
                InputError::Utf16 { path: path.clone(), compression: *compression, encoding }
            }
            InputError::Unsupported { path, format, tool } => {
                InputError::Unsupported { path: path.clone(), format, tool }
            }
            InputError::NotPgn { path, text, line, read } => {
                InputError::NotPgn { path: path.clone(), text: text.clone(), line: *line, read: *read }
            }
            InputError::NotEpd { path, text, line, read } => {
                InputError::NotEpd { path: path.clone(), text: text.clone(), line: *line, read: *read }
            }
            InputError::BadIndex { path, input, why } => {
                InputError::BadIndex { path: path.clone(), input: input.clone(), why: why.clone() }
            }
            InputError::Corrupt { path, compression, source } => {
                InputError::Corrupt { path: path.clone(), compression: *compression, source: again(source) }
            }
            InputError::Io { path, source } => InputError::Io { path: path.clone(), source: again(source) },
        }
    }
}

/// Where [`InputError::NotPgn`] or [`InputError::NotEpd`] found nothing of its format: the
/// input, or its first `read` bytes.
fn looked_in(read: Option<u64>) -> String {
    match read {
        None => "it".to_string(),
        Some(n) => format!("its first {:.1} MiB (read no further)", n as f64 / f64::from(1 << 20)),
    }
}

/// The bytes of an input: mapped, or to be read as a stream.
pub enum Source {
    /// A regular plain file, mapped read-only.
    Mapped(memmap2::Mmap),
    /// Everything else: stdin, `--no-mmap`, compressed or empty files. Reading yields the
    /// decompressed text; errors from a decoder have kind `InvalidData` or `UnexpectedEof`
    /// (see [`Input::read_error`]).
    Stream(Box<dyn Read + Send>),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Mapped(m) => write!(f, "Mapped({} bytes)", m.len()),
            Source::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// Drops the pages of a mapped file that the reader has left behind from this process's memory
/// (not from the page cache), so a mapped input's resident size stays bounded as it is read
/// front to back, and the end of a run has no whole-file unmapping left to do. On Unix only
/// (`madvise`); elsewhere it only keeps count.
#[derive(Debug)]
pub struct PageDropper<'m> {
    map: &'m memmap2::Mmap,
    /// Bytes of the map the reader is done with: those of whole grains are dropped.
    reached: AtomicUsize,
}

impl<'m> PageDropper<'m> {
    /// Pages are dropped in runs of this many bytes, a multiple of every page size in use (4 KiB
    /// to 64 KiB), so each run starts on a page boundary. Each call makes the other threads flush
    /// their TLBs (an interrupt each, costly in a VM): at 1 MiB, `check -j2` ran 0.5-2.5% slower.
    pub const GRAIN: usize = 4 << 20;

    /// A dropper for `map`, nothing read yet.
    pub fn new(map: &'m memmap2::Mmap) -> PageDropper<'m> {
        PageDropper { map, reached: AtomicUsize::new(0) }
    }

    /// Where the dropped run ends when the reader has reached `reached`.
    fn dropped_at(&self, reached: usize) -> usize {
        reached.min(self.map.len()) / Self::GRAIN * Self::GRAIN
    }

    /// The reader is done with `bytes` more bytes of the map (in order, from its start). Reading
    /// a dropped page again is correct, only slower: it is mapped again from the page cache.
    pub fn advance(&self, bytes: usize) {
        let before = self.reached.fetch_add(bytes, Ordering::Relaxed);
        let (from, upto) = (self.dropped_at(before), self.dropped_at(before + bytes));
        if upto > from {
            // SAFETY: the map is a shared, read-only file mapping (`Mmap::map`). MADV_DONTNEED
            // only removes its page table entries: the next access maps the same page-cache
            // pages again, so no byte seen through the map changes. Failure only means the
            // pages stay mapped.
            #[cfg(unix)]
            #[allow(unsafe_code)]
            let _ = unsafe {
                self.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, upto - from)
            };
        }
    }

    /// Bytes whose pages were dropped so far.
    pub fn dropped(&self) -> usize {
        self.dropped_at(self.reached.load(Ordering::Relaxed))
    }
}

/// An opened input.
#[derive(Debug)]
pub struct Input {
    /// The path as given (`-` for stdin).
    pub path: PathBuf,
    /// The bytes.
    pub source: Source,
    /// Detected compression.
    pub compression: Compression,
    /// Size on disk in bytes (compressed size for compressed files); `None` for pipes.
    pub total_size: Option<u64>,
    /// Input bytes consumed so far (compressed bytes for compressed input). Streams update it
    /// as they are read; for a mapped file the consumer stores the offset it has reached.
    pub consumed: Arc<AtomicU64>,
}

/// Counts bytes read into a shared counter.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Reads up to `buf.len()` bytes, fewer only at the end of the input.
pub fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl Input {
    /// Opens `path`, or stdin for `-`.
    ///
    /// ```no_run
    /// use pgnkit::io::{Input, InputOptions, Source};
    /// let input = Input::open("games.pgn.zst".as_ref(), InputOptions::default())?;
    /// assert!(matches!(input.source, Source::Stream(_)));
    /// # Ok::<(), pgnkit::io::InputError>(())
    /// ```
    pub fn open(path: &Path, opts: InputOptions) -> Result<Input, InputError> {
        let consumed = Arc::new(AtomicU64::new(0));
        let io_err = |source: io::Error| InputError::Io { path: path.to_owned(), source };
        if path == Path::new("-") {
            return Input::waiting(path, stdin_file().map_err(io_err)?, consumed);
        }
        let file = waiting::open(path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => InputError::NotFound { path: path.to_owned() },
            _ => io_err(source),
        })?;
        let meta = file.metadata().map_err(io_err)?;
        if meta.is_dir() {
            return Err(io_err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")));
        }
        let regular = meta.is_file();
        let total_size = regular.then_some(meta.len());
        if regular && !opts.no_mmap && meta.len() > 0 {
            let mut head = [0u8; 4];
            let n = read_full(&mut &file, &mut head).map_err(io_err)?;
            let compression = Compression::detect(&head[..n]);
            if compression == Compression::None {
                check_text(path, &head[..n])?;
                // SAFETY: the map is read-only and private to this process. Undefined behavior
                // would follow only if another process truncated or rewrote the file while it
                // is mapped; like every mmap-based tool (ripgrep, ...) we accept that for
                // regular files and offer `--no-mmap` (a stream) for files that may change.
                #[allow(unsafe_code)]
                let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err)?;
                return Ok(Input {
                    path: path.to_owned(),
                    source: Source::Mapped(map),
                    compression,
                    total_size,
                    consumed,
                });
            }
        }
        // The head may have been read above (a regular file's only: a pipe, `<(zcat f)`, cannot
        // seek): start the stream from the beginning.
        if !regular {
            return Input::waiting(path, file, consumed);
        }
        (&file).seek(SeekFrom::Start(0)).map_err(io_err)?;
        Input::from_stream(path, Box::new(file), total_size, consumed)
    }

    /// Opens the file `path` as a stream from byte `offset` on (a frame start of a zstd input of
    /// several frames, which decodes from there); its progress counts from there.
    pub fn open_at(path: &Path, offset: u64) -> Result<Input, InputError> {
        let io_err = |source: io::Error| InputError::Io { path: path.to_owned(), source };
        let mut file = File::open(path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => InputError::NotFound { path: path.to_owned() },
            _ => io_err(source),
        })?;
        let size = file.metadata().map_err(io_err)?.len();
        file.seek(SeekFrom::Start(offset)).map_err(io_err)?;
        Input::from_stream(path, Box::new(file), Some(size.saturating_sub(offset)), Arc::default())
    }

    /// The input `file` that may wait (stdin, a pipe, a FIFO), [`Polled`].
    fn waiting(path: &Path, file: File, consumed: Arc<AtomicU64>) -> Result<Input, InputError> {
        let (polled, plain) = Polled::new(file);
        let input = Input::from_stream(path, Box::new(polled), None, consumed)?;
        plain.store(input.compression == Compression::None, Ordering::Relaxed);
        Ok(input)
    }

    fn from_stream(
        path: &Path,
        raw: Box<dyn Read + Send>,
        total_size: Option<u64>,
        consumed: Arc<AtomicU64>,
    ) -> Result<Input, InputError> {
        let mut raw = Counting { inner: raw, count: Arc::clone(&consumed) };
        let mut head = [0u8; 4];
        let n = read_full(&mut raw, &mut head)
            .map_err(|source| InputError::Io { path: path.to_owned(), source })?;
        let head = head[..n].to_vec();
        let compression = Compression::detect(&head);
        let rejoined = io::Cursor::new(head.clone()).chain(raw);
        let source: Box<dyn Read + Send> = match compression {
            Compression::None => {
                check_text(path, &head)?;
                Box::new(rejoined)
            }
            Compression::Zstd => Box::new(
                zstd::stream::read::Decoder::new(rejoined)
                    .map_err(|source| InputError::Io { path: path.to_owned(), source })?,
            ),
            Compression::Gzip => Box::new(Members::new(rejoined)),
        };
        let source = match compression {
            Compression::None => source,
            // The text inside is sniffed as a plain file's is: UTF-16 gets the same advice.
            _ => Box::new(Peeked::sniffed(path, compression, source)?),
        };
        Ok(Input { path: path.to_owned(), source: Source::Stream(source), compression, total_size, consumed })
    }

    /// The input's text up to the end of its first line that is not blank (`limit` bytes at
    /// most), to tell its kind by: reading the input still gives every byte from its start, and
    /// an error met reading ahead is met again there, after those bytes.
    pub fn first_line(&mut self, limit: usize) -> Vec<u8> {
        let line = |head: &[u8]| head[..line_end(head).unwrap_or(head.len())].to_vec();
        match &mut self.source {
            Source::Mapped(map) => line(&map[..map.len().min(limit)]),
            Source::Stream(inner) => {
                let peeked = Peeked::first_line(std::mem::replace(inner, Box::new(io::empty())), limit);
                let head = line(peeked.head());
                *inner = Box::new(peeked);
                head
            }
        }
    }

    /// Classifies an error returned while reading [`Source::Stream`]: a corrupt compressed
    /// stream (exit 65) or an I/O error (exit 74).
    pub fn read_error(&self, source: io::Error) -> InputError {
        InputError::reading(&self.path, self.compression, source)
    }

    /// Reads the whole input into memory (or returns the map's bytes as a copy-free view
    /// through [`Source::Mapped`]); for tests and small inputs.
    pub fn read_all(self) -> Result<Vec<u8>, InputError> {
        let mut this = self;
        match &mut this.source {
            Source::Mapped(m) => Ok(m.to_vec()),
            Source::Stream(r) => {
                let mut out = Vec::new();
                match r.read_to_end(&mut out) {
                    Ok(_) => Ok(out),
                    Err(e) => Err(this.read_error(e)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-io-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const PGN: &[u8] = b"[Event \"x\"]\n\n1. e4 e5 1-0\n";

    #[test]
    fn dropped_pages_read_back_the_same() {
        let dir = temp_dir("drop");
        let p = dir.join("big.pgn");
        let grain = PageDropper::GRAIN;
        let bytes: Vec<u8> = (0..3 * grain + 1234).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&p, &bytes).unwrap();
        let Source::Mapped(map) = Input::open(&p, InputOptions::default()).unwrap().source else {
            panic!("a plain file is mapped");
        };
        assert_eq!(&map[..], &bytes[..]);
        let pages = PageDropper::new(&map);
        pages.advance(grain / 2);
        assert_eq!(pages.dropped(), 0, "nothing before a whole grain");
        pages.advance(grain);
        assert_eq!(pages.dropped(), grain);
        pages.advance(bytes.len());
        assert_eq!(pages.dropped(), 3 * grain, "the tail short of a grain stays");
        // Dropped pages come back from the file as they were.
        assert_eq!(&map[..], &bytes[..]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn plain_file_is_mapped_and_no_mmap_streams() {
        let dir = temp_dir("plain");
        let p = dir.join("a.pgn");
        std::fs::write(&p, PGN).unwrap();
        let input = Input::open(&p, InputOptions::default()).unwrap();
        assert!(matches!(input.source, Source::Mapped(_)));
        assert_eq!(input.total_size, Some(PGN.len() as u64));
        assert_eq!(input.read_all().unwrap(), PGN);
        let input = Input::open(&p, InputOptions { no_mmap: true }).unwrap();
        assert!(matches!(input.source, Source::Stream(_)));
        let consumed = Arc::clone(&input.consumed);
        assert_eq!(input.read_all().unwrap(), PGN);
        assert_eq!(consumed.load(Ordering::Relaxed), PGN.len() as u64);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn empty_file_is_an_empty_stream() {
        let dir = temp_dir("empty");
        let p = dir.join("e.pgn");
        std::fs::write(&p, b"").unwrap();
        assert_eq!(Input::open(&p, InputOptions::default()).unwrap().read_all().unwrap(), b"");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn zstd_multi_frame_with_leading_skippable_frame() {
        let dir = temp_dir("zstd");
        let p = dir.join("games.bin"); // the name says nothing: detection is by magic bytes
        let mut data = Vec::new();
        // Skippable frame (magic 0x184D2A50, little endian), 4-byte length, payload: as pzstd
        // writes at the start of its output.
        data.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]);
        data.extend_from_slice(&zstd::encode_all(&PGN[..10], 3).unwrap());
        data.extend_from_slice(&[0x5e, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
        data.extend_from_slice(&zstd::encode_all(&PGN[10..], 19).unwrap());
        std::fs::write(&p, &data).unwrap();
        let input = Input::open(&p, InputOptions::default()).unwrap();
        assert_eq!(input.compression, Compression::Zstd);
        assert_eq!(input.total_size, Some(data.len() as u64));
        let consumed = Arc::clone(&input.consumed);
        assert_eq!(input.read_all().unwrap(), PGN);
        assert_eq!(consumed.load(Ordering::Relaxed), data.len() as u64);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn gzip_multi_member() {
        let dir = temp_dir("gzip");
        let p = dir.join("g.pgn");
        let mut data = Vec::new();
        for part in [&PGN[..7], &PGN[7..]] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(part).unwrap();
            data.extend(e.finish().unwrap());
        }
        std::fs::write(&p, &data).unwrap();
        let input = Input::open(&p, InputOptions::default()).unwrap();
        assert_eq!(input.compression, Compression::Gzip);
        assert_eq!(input.read_all().unwrap(), PGN);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn errors_and_exit_codes() {
        let dir = temp_dir("errors");
        let missing = dir.join("missing.pgn");
        let e = Input::open(&missing, InputOptions::default()).unwrap_err();
        assert!(matches!(&e, InputError::NotFound { path } if path == &missing));
        assert_eq!(e.exit_code(), Code::NoInput);
        assert!(e.to_string().contains("missing.pgn"));

        // Compressions not read are refused by their magic, with a way to read them.
        let heads: [(&[u8], &str, &str); 5] = [
            (b"BZh91AY&SY", "bzip2", "bzcat"),
            (b"\xfd7zXZ\x00\x00", "xz", "xzcat"),
            (b"PK\x03\x04\x14\x00", "zip", "unzip -p"),
            (b"7z\xbc\xaf\x27\x1c", "7z", "7z x -so"),
            (b"\x04\x22\x4d\x18\x64", "lz4", "lz4cat"),
        ];
        for (head, name, tool) in heads {
            let p = dir.join(format!("x.{name}"));
            std::fs::write(&p, head).unwrap();
            for no_mmap in [false, true] {
                let e = Input::open(&p, InputOptions { no_mmap }).unwrap_err();
                assert!(matches!(e, InputError::Unsupported { format, .. } if format == name), "{e:?}");
                assert_eq!(e.exit_code(), Code::DataErr);
                assert!(
                    e.to_string().contains(&format!("{name}-compressed")) && e.to_string().contains(tool)
                );
            }
        }
        // A PGN that merely starts with such letters is text.
        let p = dir.join("bz.pgn");
        std::fs::write(&p, b"BZh 1. e4 *").unwrap();
        assert!(Input::open(&p, InputOptions::default()).is_ok());

        let p = dir.join("u16.pgn");
        let gz = |text: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            std::io::Write::write_all(&mut e, text).unwrap();
            e.finish().unwrap()
        };
        for (bytes, encoding) in [
            (&b"\xff\xfe[\0E\0"[..], "UTF-16"),
            (b"\xfe\xff\0[\0E", "UTF-16"),
            (b"[\0E\0v\0", "UTF-16LE"),
            (b"\0[\0E\0v", "UTF-16BE"),
            (b"1\0.\0 \0", "UTF-16LE"),
            (b"\xff\xfe\0\0[\0\0\0", "UTF-32"),
            (b"\0\0\xfe\xff\0\0\0[", "UTF-32"),
            (b"[\0\0\0E\0\0\0", "UTF-32LE"),
            (b"\0\0\0[\0\0\0E", "UTF-32BE"),
        ] {
            std::fs::write(&p, bytes).unwrap();
            for no_mmap in [false, true] {
                let e = Input::open(&p, InputOptions { no_mmap }).unwrap_err();
                assert!(matches!(e, InputError::Utf16 { encoding: e, .. } if e == encoding), "{e:?}");
                assert!(e.to_string().contains(&format!("iconv -f {encoding} -t UTF-8")), "{e}");
                assert_eq!(e.exit_code(), Code::DataErr);
            }
            // The same text compressed gets the same advice.
            for (name, data) in
                [("u16.pgn.zst", zstd::encode_all(bytes, 3).unwrap()), ("u16.pgn.gz", gz(bytes))]
            {
                let p = dir.join(name);
                std::fs::write(&p, data).unwrap();
                let e = Input::open(&p, InputOptions::default()).unwrap_err();
                assert!(matches!(e, InputError::Utf16 { encoding: e, .. } if e == encoding), "{name}: {e:?}");
                let cat = if name.ends_with(".zst") { "zstdcat" } else { "zcat" };
                let advice = format!("(e.g. {cat} {} | iconv -f {encoding} -t UTF-8)", p.display());
                assert!(e.to_string().contains(&advice), "{e}");
            }
        }
        // Compressed text that is no UTF-16 reads whole, its sniffed bytes included; so does a
        // stream shorter than the sniff.
        for text in [PGN, b"[E", b""] {
            let p = dir.join("plain.pgn.gz");
            std::fs::write(&p, gz(text)).unwrap();
            assert_eq!(Input::open(&p, InputOptions::default()).unwrap().read_all().unwrap(), text);
        }
        // NULs alone, or between bytes that are not text, are no UTF-16 (the reader resyncs
        // after binary garbage).
        for bytes in [&b"\0\0\0\0[Event"[..], b"\x01\0\x02\0", b"[E\0v"] {
            std::fs::write(&p, bytes).unwrap();
            assert!(Input::open(&p, InputOptions::default()).is_ok(), "{bytes:?}");
        }

        let p = dir.join("bad.zst");
        let mut data = zstd::encode_all(&PGN.repeat(1000)[..], 3).unwrap();
        let mid = data.len() / 2;
        data[mid..].iter_mut().for_each(|b| *b ^= 0x5a);
        std::fs::write(&p, &data).unwrap();
        let e = Input::open(&p, InputOptions::default()).unwrap().read_all().unwrap_err();
        assert!(matches!(e, InputError::Corrupt { compression: Compression::Zstd, .. }), "{e:?}");
        assert_eq!(e.exit_code(), Code::DataErr);

        let p = dir.join("trunc.zst");
        let data = zstd::encode_all(&PGN.repeat(1000)[..], 3).unwrap();
        std::fs::write(&p, &data[..data.len() - 5]).unwrap();
        let e = Input::open(&p, InputOptions::default()).unwrap().read_all().unwrap_err();
        assert_eq!(e.exit_code(), Code::DataErr, "{e:?}");

        // gzip with flipped bytes (a checksum or deflate error) or garbage after its member.
        let mut flipped = gz(&PGN.repeat(1000));
        let mid = flipped.len() / 2;
        flipped[mid..mid + 2].iter_mut().for_each(|b| *b ^= 0x5a);
        let mut trailing = gz(PGN);
        trailing.extend_from_slice(b"trailing text");
        for (name, data) in [("bad.gz", flipped), ("trail.gz", trailing)] {
            let p = dir.join(name);
            std::fs::write(&p, &data).unwrap();
            let e = Input::open(&p, InputOptions::default()).unwrap().read_all().unwrap_err();
            assert!(matches!(e, InputError::Corrupt { compression: Compression::Gzip, .. }), "{name}: {e:?}");
            assert_eq!(e.exit_code(), Code::DataErr);
        }

        // A directory is an input that cannot be read as a file, like a missing one: 66 (74 is
        // an I/O error such as a failing disk).
        let e = Input::open(&dir, InputOptions::default()).unwrap_err();
        assert_eq!(e.exit_code(), Code::NoInput);
        assert!(e.to_string().ends_with(": is a directory"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_first_line_read_ahead_is_read_again() {
        let dir = temp_dir("first-line");
        let (plain, zst) = (dir.join("a"), dir.join("a.zst"));
        let text = b"\n\n{\"type\":1}\nmore\n";
        std::fs::write(&plain, text).unwrap();
        std::fs::write(&zst, zstd::encode_all(&text[..], 1).unwrap()).unwrap();
        for (path, no_mmap) in [(&plain, false), (&plain, true), (&zst, false)] {
            let mut input = Input::open(path, InputOptions { no_mmap }).unwrap();
            assert_eq!(input.first_line(1 << 20), b"\n\n{\"type\":1}\n");
            assert_eq!(input.first_line(3), b"\n\n{", "at most the limit");
            assert_eq!(input.read_all().unwrap(), text);
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
