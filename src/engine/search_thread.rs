//! The thread a protocol loop (UCI, xboard) searches on while it keeps reading commands: a large
//! stack for the search's recursion, and the searcher handed back when the search ends, so its
//! hash table lives from one search to the next.

use std::io;
use std::thread::{self, Scope, ScopedJoinHandle};

use crate::search::Searcher;

/// Stack of a search thread: deep searches recurse, and a tree of quiescence captures on top.
const SEARCH_STACK: usize = 64 << 20;

/// Runs `search` with `searcher` on a thread of `scope`; joining gives the searcher back with
/// what `search` returned.
pub(crate) fn spawn<'scope, T: Send + 'scope>(
    scope: &'scope Scope<'scope, '_>,
    mut searcher: Searcher,
    search: impl FnOnce(&mut Searcher) -> T + Send + 'scope,
) -> io::Result<ScopedJoinHandle<'scope, (Searcher, T)>> {
    thread::Builder::new().stack_size(SEARCH_STACK).spawn_scoped(scope, move || {
        let result = search(&mut searcher);
        (searcher, result)
    })
}

/// A protocol loop's dialogue for tests: the lines it writes for `input`.
#[cfg(test)]
pub(crate) fn dialogue(
    run: impl FnOnce(io::Cursor<Vec<u8>>, &mut Vec<u8>) -> io::Result<()>,
    input: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    run(io::Cursor::new(input.as_bytes().to_vec()), &mut out).expect("in-memory I/O");
    String::from_utf8(out).expect("UTF-8").lines().map(str::to_string).collect()
}
