//! A protocol loop's input (UCI, xboard), read on a thread of its own so that no command waiting
//! for a search keeps `isready`, `stop` or `quit` from being read.

use std::io::{self, BufRead};
use std::thread;

use crossbeam_channel::{Receiver, unbounded};

/// The lines of `input`, without their line endings, read on a thread of their own; the channel
/// disconnects after the last line, and an error reading ends it with that error. The thread is
/// detached: a read blocked on a terminal must not keep the loop from returning on `quit`.
pub(crate) fn lines<R: BufRead + Send + 'static>(mut input: R) -> io::Result<Receiver<io::Result<String>>> {
    let (tx, rx) = unbounded();
    thread::Builder::new().name("input".into()).spawn(move || {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let line = match input.read_until(b'\n', &mut buf) {
                Ok(0) => return,
                Ok(_) => String::from_utf8(trim_end(&buf).to_vec())
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let failed = line.is_err();
            if tx.send(line).is_err() || failed {
                return;
            }
        }
    })?;
    Ok(rx)
}

/// `line` without its `\n` or `\r\n`.
fn trim_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
