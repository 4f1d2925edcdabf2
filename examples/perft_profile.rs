//! Perft from the start position at a depth given on the command line (for profilers).
fn main() {
    let depth = std::env::args().nth(1).and_then(|d| d.parse().ok()).unwrap_or(6);
    let pos = pgnkit::chess::Position::default();
    let t = std::time::Instant::now();
    let n = pgnkit::chess::perft::perft(&pos, depth);
    println!("{n} nodes, {:.1} M nodes/s", n as f64 / t.elapsed().as_secs_f64() / 1e6);
}
