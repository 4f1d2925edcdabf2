//! A typical python-chess script, ported: each game's players, result and final FEN, then every
//! mainline move's SAN, the FEN after it and its comment's `[%eval]` and `[%clk]`, with the
//! chess core alone (`pgnkit::pgn::read_games`). The python-chess original:
//!
//! ```python
//! import chess.pgn, sys
//! with open(sys.argv[1]) as f:
//!     while (game := chess.pgn.read_game(f)) is not None:
//!         h = game.headers
//!         print(h["White"], h["Black"], h["Result"], game.end().board().fen())
//!         for node in game.mainline():
//!             print(" ", node.san(), node.board().fen(), node.eval(), node.clock())
//! ```
//!
//! `cargo run --example python_chess_port -- fixtures/pgn/lichess_db_10k.pgn`

use pgnkit::notation::SanPlus;
use pgnkit::pgn::read_games;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: python_chess_port FILE.pgn")?;
    let bytes = std::fs::read(path)?;
    for game in read_games(&bytes) {
        let h = |name| game.header(name).unwrap_or("?");
        println!("{} {} {} {}", h("White"), h("Black"), h("Result"), game.game.position());
        let positions = game.game.positions();
        for (i, &m) in game.game.moves().iter().enumerate() {
            let san = SanPlus::from_move(&positions[i], m);
            println!("  {san} {} {:?} {:?}", positions[i + 1], game.eval(i), game.clock(i));
        }
        if let Some(error) = &game.error {
            eprintln!("game at byte {}: {error}", game.offset);
        }
    }
    Ok(())
}
