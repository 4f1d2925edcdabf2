//! What ECO classification adds to a replay (for profilers and instruction counters):
//! `eco_cost FILE.pgn [eco]` replays every game of FILE with a hook on every mainline move, and
//! with `eco` feeds each position to an `EcoTracker` too. Compare the two runs under
//! `valgrind --tool=cachegrind`, and subtract the table's build (the same with an empty FILE).
use pgnkit::chess::Position;
use pgnkit::error::{Kind, Severity};
use pgnkit::pipeline::replay::{Game, Games, Hooks, Lines, Played};
use pgnkit::select::eco::EcoTracker;

struct Replay {
    eco: Option<EcoTracker>,
    classified: u64,
}

impl<'a> Hooks<'a> for Replay {
    fn moves(&self) -> Lines {
        Lines::Mainline
    }
    fn wants(&self, _: Kind, _: Severity) -> bool {
        false
    }
    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        if let Some(t) = &mut self.eco {
            t.observe(p.before);
        }
    }
    fn end(&mut self, _: &Game<'a>, last: Option<&Position>) {
        if let (Some(t), Some(last)) = (&mut self.eco, last) {
            t.observe(last);
            self.classified += t.opening().is_some() as u64;
            t.reset();
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: eco_cost FILE.pgn [eco]");
    let bytes = std::fs::read(path).expect("readable file");
    let eco = args.next().is_some_and(|a| a == "eco");
    let mut games = Games::new(Replay { eco: eco.then(EcoTracker::new), classified: 0 }, &bytes);
    let mut n = 0;
    while games.next_game() {
        n += 1;
    }
    println!("{n} games, {} classified", games.into_hooks().classified);
}
