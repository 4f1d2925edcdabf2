//! Tests of material signatures: parsing (omitted kings, repeated pieces, every error), the
//! normalized form, and `matches` on positions read from FENs.

use super::*;
use crate::chess::Variant;
use crate::notation::fen::parse_fen;

fn sig(text: &str) -> MaterialSig {
    MaterialSig::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn pos(fen: &str, variant: Variant) -> Position {
    parse_fen(fen, variant).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

#[test]
fn kings_may_be_omitted_and_pieces_repeat() {
    assert_eq!(sig("RPr"), sig("KRPkr"));
    assert_eq!(sig("kRrPK"), sig("KRPkr"));
    assert_eq!(sig("Kk"), sig("K"));
    assert_eq!(sig("k"), sig("Kk"));
    let s = sig("KPPk");
    assert_eq!(s.count(Role::Pawn.of(Color::White)), 2);
    assert_eq!(s.count(Role::Pawn.of(Color::Black)), 0);
    assert_eq!(s.count(Role::King.of(Color::Black)), 1);
    assert_ne!(sig("KPPk"), sig("KPk"));
    // Colours are fixed: White's pawn is not Black's.
    assert_ne!(sig("KRPkr"), sig("KRkrp"));
    assert_eq!(sig("QQQQQQQQQRRBBNNkq").count(Role::Queen.of(Color::White)), 9);
}

#[test]
fn normalized_form() {
    for (text, shown) in [("RPr", "KRPkr"), ("pPnNbBrRqQ", "KQRBNPkqrbnp"), ("k", "Kk"), ("PPKk", "KPPk")] {
        assert_eq!(sig(text).to_string(), shown, "{text}");
        assert_eq!(sig(shown), sig(text));
    }
    assert_eq!("KQkq".parse::<MaterialSig>(), Ok(sig("Qq")));
}

#[test]
fn errors() {
    use MaterialSigError::*;
    let cases: &[(&str, MaterialSigError)] = &[
        ("", Empty),
        ("KRx", BadLetter { column: 3, found: 'x' }),
        ("KR kr", BadLetter { column: 3, found: ' ' }),
        ("KRPk1", BadLetter { column: 5, found: '1' }),
        ("KéR", BadLetter { column: 2, found: 'é' }),
        ("KRkK", TwoKings { color: Color::White }),
        ("Kkrk", TwoKings { color: Color::Black }),
        ("PPPPPPPPPPPPPPPPppppppppppppppppP", TooManyPieces { count: 35 }),
    ];
    for (text, want) in cases {
        assert_eq!(MaterialSig::parse(text).as_ref(), Err(want), "{text:?}");
    }
    // 32 pieces (the whole set) is the limit, and the standard start has it.
    let full = sig("QRRBBNNPPPPPPPPqrrbbnnpppppppp");
    assert!(full.matches(&Position::default()));
    assert_eq!(MaterialSig::parse("QRRBBNNPPPPPPPPPqrrbbnnpppppppp"), Err(TooManyPieces { count: 33 }));
    assert_eq!(
        MaterialSig::parse("KRx").unwrap_err().to_string(),
        "'x' at column 3 is not a piece letter (K Q R B N P for White, k q r b n p for Black)"
    );
    assert_eq!(MaterialSig::parse("KKk").unwrap_err().to_string(), "more than one white king");
}

#[test]
fn matches_exactly_the_pieces_on_the_board() {
    let std = Variant::Standard;
    let krp_kr = pos("8/8/4k3/8/2R1P3/8/r7/4K3 w - - 0 1", std);
    assert!(sig("KRPkr").matches(&krp_kr));
    assert!(sig("RPr").matches(&krp_kr));
    // Reversed colours, a piece fewer, a piece more, another kind.
    for other in ["KRkrp", "KRkr", "KRPPkr", "KRPkrp", "KQPkr", "KRNkr", "Kk"] {
        assert!(!sig(other).matches(&krp_kr), "{other}");
    }
    let black_pawn = pos("8/8/4k3/4p3/2R5/8/r7/4K3 w - - 0 1", std);
    assert!(sig("KRkrp").matches(&black_pawn) && !sig("KRPkr").matches(&black_pawn));
    assert!(sig("Kk").matches(&pos("8/8/4k3/8/8/8/8/4K3 b - - 0 1", std)));
    assert!(sig("KPPk").matches(&pos("8/8/4k3/8/3PP3/8/8/4K3 w - - 0 1", std)));
    assert!(!sig("KPk").matches(&pos("8/8/4k3/8/3PP3/8/8/4K3 w - - 0 1", std)));
    // Same total, different split between the colours.
    assert!(!sig("KNNk").matches(&pos("7n/8/4k3/8/8/8/8/N3K3 w - - 0 1", std)));
    assert!(sig("KNkn").matches(&pos("7n/8/4k3/8/8/8/8/N3K3 w - - 0 1", std)));
}

#[test]
fn crazyhouse_counts_the_board_not_the_pockets() {
    let zh = pos("8/8/4k3/8/2R1P3/8/r7/4K3[QNpp] w - - 0 1", Variant::Crazyhouse);
    assert!(sig("KRPkr").matches(&zh));
    assert!(!sig("KQNRPkrpp").matches(&zh));
    // A promoted piece counts as the piece it is.
    let promoted = pos("4Q~3/8/4k3/8/8/8/8/4K3[] b - - 0 1", Variant::Crazyhouse);
    assert!(sig("KQk").matches(&promoted) && !sig("KPk").matches(&promoted));
}
