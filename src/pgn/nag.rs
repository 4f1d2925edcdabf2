//! Numeric annotation glyphs: `$0`..`$255`, the six move-suffix glyphs and the common
//! evaluation symbols some exporters write instead of NAGs (`+-`, `=`, `N`, ...).
//!
//! Invariant: a [`Nag`] is any `u8`; glyph and symbol mappings are total in one direction
//! (`from_*` may fail) and `glyph()` only answers for `$1`..`$6`.

use std::fmt;

/// A numeric annotation glyph, `$0`..`$255`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Nag(pub u8);

impl Nag {
    /// `$1`, `!`.
    pub const GOOD_MOVE: Nag = Nag(1);
    /// `$2`, `?`.
    pub const MISTAKE: Nag = Nag(2);
    /// `$3`, `!!`.
    pub const BRILLIANT_MOVE: Nag = Nag(3);
    /// `$4`, `??`.
    pub const BLUNDER: Nag = Nag(4);
    /// `$5`, `!?`.
    pub const SPECULATIVE_MOVE: Nag = Nag(5);
    /// `$6`, `?!`.
    pub const DUBIOUS_MOVE: Nag = Nag(6);

    /// Parses one of the move-suffix glyphs `! ? !! ?? !? ?!` (exact match).
    ///
    /// ```
    /// use pgnkit::pgn::Nag;
    /// assert_eq!(Nag::from_glyph(b"?!"), Some(Nag::DUBIOUS_MOVE));
    /// assert_eq!(Nag::from_glyph(b"!!!"), None);
    /// ```
    pub fn from_glyph(glyph: &[u8]) -> Option<Nag> {
        Some(match glyph {
            b"!" => Nag(1),
            b"?" => Nag(2),
            b"!!" => Nag(3),
            b"??" => Nag(4),
            b"!?" => Nag(5),
            b"?!" => Nag(6),
            _ => return None,
        })
    }

    /// The suffix glyph for `$1`..`$6`.
    pub fn glyph(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "!",
            2 => "?",
            3 => "!!",
            4 => "??",
            5 => "!?",
            6 => "?!",
            _ => return None,
        })
    }

    /// The longest symbol [`Nag::from_symbol`] reads, in bytes: callers skip longer tokens
    /// without the call.
    pub const SYMBOL_MAX_LEN: usize = 3;

    /// Evaluation symbols found in movetext instead of NAGs (ChessBase and kokopu style):
    /// `=` `+=` `+/=` `=+` `=/+` `+/-` `-/+` `+-` `-+` `inf` `N` `RR`.
    pub fn from_symbol(symbol: &[u8]) -> Option<Nag> {
        Some(match symbol {
            b"=" => Nag(10),
            b"inf" => Nag(13),
            b"+=" | b"+/=" => Nag(14),
            b"=+" | b"=/+" => Nag(15),
            b"+/-" => Nag(16),
            b"-/+" => Nag(17),
            b"+-" => Nag(18),
            b"-+" => Nag(19),
            b"RR" => Nag(145),
            b"N" => Nag(146),
            _ => return None,
        })
    }

    /// Parses the digits of `$n` (without the `$`); `None` if empty, not digits or over 255.
    pub fn from_digits(digits: &[u8]) -> Option<Nag> {
        if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = digits.iter().fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0'));
        u8::try_from(n).ok().map(Nag)
    }
}

impl fmt::Display for Nag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_round_trip() {
        for (g, n) in [("!", 1), ("?", 2), ("!!", 3), ("??", 4), ("!?", 5), ("?!", 6)] {
            assert_eq!(Nag::from_glyph(g.as_bytes()), Some(Nag(n)));
            assert_eq!(Nag(n).glyph(), Some(g));
        }
        assert_eq!(Nag(7).glyph(), None);
        assert_eq!(Nag::from_glyph(b""), None);
    }

    #[test]
    fn digits() {
        assert_eq!(Nag::from_digits(b"0"), Some(Nag(0)));
        assert_eq!(Nag::from_digits(b"255"), Some(Nag(255)));
        assert_eq!(Nag::from_digits(b"256"), None);
        assert_eq!(Nag::from_digits(b"1000"), None);
        assert_eq!(Nag::from_digits(b""), None);
        assert_eq!(Nag(42).to_string(), "$42");
    }

    #[test]
    fn symbols() {
        assert_eq!(Nag::from_symbol(b"+-"), Some(Nag(18)));
        assert_eq!(Nag::from_symbol(b"+/="), Some(Nag(14)));
        assert_eq!(Nag::from_symbol(b"--"), None);
        // Every symbol of the doc list is read, and none is longer than callers assume or ends
        // in a digit (the reader looks up no token that does).
        for sym in ["=", "+=", "+/=", "=+", "=/+", "+/-", "-/+", "+-", "-+", "inf", "N", "RR"] {
            assert!(Nag::from_symbol(sym.as_bytes()).is_some(), "{sym}");
            assert!(sym.len() <= Nag::SYMBOL_MAX_LEN, "{sym}");
            assert!(!sym.ends_with(|c: char| c.is_ascii_digit()), "{sym}");
        }
    }
}
