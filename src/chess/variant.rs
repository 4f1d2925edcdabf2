//! The rule sets pgnkit plays: standard chess, Chess960 and Crazyhouse, and their PGN tag names.

use std::fmt;

/// A supported rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// Standard chess.
    #[default]
    Standard,
    /// Fischer random chess: standard rules, shuffled back rank, king-takes-rook castling.
    Chess960,
    /// Crazyhouse: captured pieces go to the captor's pocket and may be dropped.
    Crazyhouse,
}

/// A `[Variant]` tag value that names a rule set pgnkit does not play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedVariant;

impl fmt::Display for UnsupportedVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unsupported variant")
    }
}

impl std::error::Error for UnsupportedVariant {}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 3] = [Variant::Standard, Variant::Chess960, Variant::Crazyhouse];

    /// The canonical PGN tag value.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "Standard",
            Variant::Chess960 => "Chess960",
            Variant::Crazyhouse => "Crazyhouse",
        }
    }

    /// The `Variant` tag value to write for a game of this variant whose tag read `value`: the
    /// canonical name for Chess960 and Crazyhouse, which python-chess reads (it refuses
    /// `chess-960`); `None` when `value` is that already, or the game is standard chess (its tag
    /// is kept as written).
    ///
    /// ```
    /// use pgnkit::chess::Variant;
    /// assert_eq!(Variant::Chess960.rewritten_tag("fischerandom"), Some("Chess960"));
    /// assert_eq!(Variant::Crazyhouse.rewritten_tag("crazyhouse"), Some("Crazyhouse"));
    /// assert_eq!(Variant::Chess960.rewritten_tag("Chess960"), None);
    /// assert_eq!(Variant::Standard.rewritten_tag("From Position"), None);
    /// ```
    pub fn rewritten_tag(self, value: &str) -> Option<&'static str> {
        match self {
            Variant::Standard => None,
            v if value == v.name() => None,
            v => Some(v.name()),
        }
    }

    /// Reads a `[Variant]` tag value or command-line name, case-insensitively, with the aliases
    /// found in real collections (`chess 960`, `chess-960`, `fischerandom`, `frc`, `from position`...).
    pub fn from_tag(value: &str) -> Result<Variant, UnsupportedVariant> {
        let v: String = value
            .trim()
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match v.as_str() {
            "" | "standard" | "chess" | "normal" | "classical" | "rapid" | "blitz" | "bullet"
            | "fromposition" | "tournament" | "international" | "orthodox" => Ok(Variant::Standard),
            "chess960"
            | "960"
            | "fischerandom"
            | "fischerrandom"
            | "frc"
            | "chess960frc"
            | "freestyle"
            | "dfrc"
            | "doublechess960"
            | "doublefischerrandom" => Ok(Variant::Chess960),
            "crazyhouse" | "zh" | "zhouse" => Ok(Variant::Crazyhouse),
            _ => Err(UnsupportedVariant),
        }
    }

    /// `true` when castling rights need Chess960 handling.
    pub const fn is_chess960(self) -> bool {
        matches!(self, Variant::Chess960)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = UnsupportedVariant;
    fn from_str(s: &str) -> Result<Variant, UnsupportedVariant> {
        Variant::from_tag(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases() {
        for s in ["Chess960", "chess 960", "chess-960", "Fischerandom", "fischerrandom", "fischer random"] {
            assert_eq!(Variant::from_tag(s), Ok(Variant::Chess960), "{s}");
        }
        assert_eq!(Variant::from_tag("crazyhouse"), Ok(Variant::Crazyhouse));
        assert_eq!(Variant::from_tag("From Position"), Ok(Variant::Standard));
        assert_eq!(Variant::from_tag("Antichess"), Err(UnsupportedVariant));
        assert_eq!(Variant::from_tag("Horde"), Err(UnsupportedVariant));
    }
}
