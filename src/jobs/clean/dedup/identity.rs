//! A game's identity for `--dedup`: its moves key, and the facts the same-game rule compares
//! beyond the moves (the players, the date, the result). A plain value, so that identities
//! written by separate runs can be compared later.

use xxhash_rust::xxh3::Xxh3Default;

use super::key::DedupKey;
use super::name::{Name, words};
use crate::pgn::GameResult;

/// A date as `YYYY.MM.DD` gives it: year, month and day, each 0 where unknown (`??`, missing,
/// not a number).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Date {
    /// Year, 0 unknown (`0000` too: [`crate::pgn::date::known_year`]).
    pub year: u16,
    /// Month, 0 unknown.
    pub month: u8,
    /// Day, 0 unknown.
    pub day: u8,
}

impl Date {
    /// The date of a `Date` tag as written (`YYYY.MM.DD`, any part `??`); anything else is
    /// unknown.
    pub fn of(text: &str) -> Date {
        let mut parts = text.trim().split('.');
        let (Some(y), Some(m), Some(d), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Date::default();
        };
        let number = |s: &str, max: u16| {
            let n = (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u16>().ok())
                .flatten()
                .unwrap_or(0);
            if n <= max { n } else { 0 }
        };
        let year = crate::pgn::date::known_year(number(y, 9999)).unwrap_or(0);
        Date { year, month: number(m, 12) as u8, day: number(d, 31) as u8 }
    }

    /// Whether the two dates can be the same day: each part equal or unknown in either.
    pub fn compatible(self, other: Date) -> bool {
        let part = |a: u16, b: u16| a == 0 || b == 0 || a == b;
        part(self.year, other.year)
            && part(self.month.into(), other.month.into())
            && part(self.day.into(), other.day.into())
    }
}

/// Which of the players' games of a day a game is, as far as its tags tell: its round's number
/// (the first number of `3.5`) and what follows it (the `5`: a board, or a match's game), so
/// that `3` agrees with `3.5` but `3.1` (a match's first game) not with `3.2`; a round not
/// numbered, its folded words; and its `Site` when that is an address (an online game's page,
/// one a game). Each is 0 when unknown; an `Event` or an OTB `Site` is spelled too many ways
/// across collections to tell games apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Encounter {
    /// The round.
    pub round: u32,
    /// What follows the round's number: its numbers without leading zeros and its letters
    /// folded, hashed (`3.05` and `3.5` agree, `1.1` and `1.10` do not).
    pub sub: u32,
    /// The site's address.
    pub site: u32,
}

impl Encounter {
    /// The encounter of these `Round` and `Site` values.
    pub fn of(round: &str, site: &str) -> Encounter {
        let round = round.trim();
        let (digits, number) = round
            .bytes()
            .take_while(u8::is_ascii_digit)
            .fold((0, 0u32), |(k, n), d| (k + 1, n.saturating_mul(10).saturating_add(u32::from(d - b'0'))));
        // Round n is n + 1 (0 is unknown); words have the top bit, which no round number has.
        let (round, sub) = match digits {
            0 => match folded(round) {
                0 => (0, 0),
                words => (words | 1 << 31, 0),
            },
            _ => (number.saturating_add(1).min(u32::MAX >> 1), sub_round(&round[digits..])),
        };
        let site = site.trim();
        let site =
            if site.contains("://") { xxhash_rust::xxh3::xxh3_64(site.as_bytes()) as u32 | 1 } else { 0 };
        Encounter { round, sub, site }
    }

    /// Whether each of the two is the same in both, or unknown in either.
    pub fn compatible(self, other: Encounter) -> bool {
        let part = |a: u32, b: u32| a == 0 || b == 0 || a == b;
        part(self.round, other.round) && part(self.sub, other.sub) && part(self.site, other.site)
    }
}

/// What follows a round's number (`.5`, `.05`, `.1.10`, `a`), hashed: its numbers without
/// leading zeros, its letters in lower case, anything else one `.` between them; 0 for nothing
/// (`3`, `3.`).
fn sub_round(rest: &str) -> u32 {
    // Hashed as it is read, as `folded` hashes words: no text built a game.
    let mut h = Xxh3Default::new();
    let (mut any, mut apart) = (false, false);
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            apart = any;
            continue;
        }
        if std::mem::take(&mut apart) {
            h.update(b".");
        }
        any = true;
        if c.is_ascii_digit() {
            // The number without its leading zeros, `0` for zeros alone.
            let mut zeros_only = c == '0';
            if !zeros_only {
                h.update(&[c as u8]);
            }
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                if !(zeros_only && d == '0') {
                    zeros_only = false;
                    h.update(&[d as u8]);
                }
            }
            if zeros_only {
                h.update(b"0");
            }
        } else {
            for l in c.to_lowercase() {
                h.update(l.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
    }
    if any { h.digest() as u32 | 1 } else { 0 }
}

/// 32 bits of the hash of `text`'s folded words (as names are folded), 0 for none.
fn folded(text: &str) -> u32 {
    let mut h = Xxh3Default::new();
    let mut any = false;
    words(text, |t| {
        h.update(&t.to_le_bytes());
        any = true;
    });
    if any { (h.digest() as u32).max(1) } else { 0 }
}

/// What the same-game rule compares beyond the moves key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Who {
    /// White and Black.
    pub players: [Name; 2],
    /// The date.
    pub date: Date,
    /// The result written.
    pub result: GameResult,
    /// Which of the players' games of the day.
    pub encounter: Encounter,
}

impl Default for Who {
    fn default() -> Who {
        Who {
            players: [Name::default(); 2],
            date: Date::default(),
            result: GameResult::Unknown,
            encounter: Encounter::default(),
        }
    }
}

impl Who {
    /// The same players on the same sides, on dates and in rounds and pages that do not
    /// contradict each other.
    fn same_players(&self, other: &Who) -> bool {
        self.date.compatible(other.date)
            && self.encounter.compatible(other.encounter)
            && self.players[0].same_player(&other.players[0])
            && self.players[1].same_player(&other.players[1])
    }

    /// Whether a game with these facts is the same game as one with `other`'s, their moves
    /// keys being equal: the same result and players, compatible dates.
    pub fn same_game(&self, other: &Who) -> bool {
        self.result == other.result && self.same_players(other)
    }

    /// Whether a game with these facts is a shorter record of the game `longer` describes, its
    /// mainline being a prefix of `longer`'s (`same_length`: the same mainline): the same
    /// players, compatible dates, and this result the longer's or `*`; for the same mainline,
    /// `*` against a finished result.
    pub fn shorter_record_of(&self, longer: &Who, same_length: bool) -> bool {
        let result = if same_length {
            self.result == GameResult::Unknown && longer.result != GameResult::Unknown
        } else {
            self.result == longer.result || self.result == GameResult::Unknown
        };
        result && self.same_players(longer)
    }
}

/// A game's `Event`, `Site` and `Round`, each 32 bits of the hash of its folded words (as names
/// are folded), 0 when it has none (`?`, `-`, missing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Occasion(pub [u32; 3]);

impl Occasion {
    /// The occasion of these three tag values.
    pub fn of(event: &str, site: &str, round: &str) -> Occasion {
        Occasion([event, site, round].map(folded))
    }

    /// Whether each of the three is the same in both, or unknown in either.
    pub fn compatible(self, other: Occasion) -> bool {
        self.0.iter().zip(other.0).all(|(&a, b)| a == 0 || b == 0 || a == b)
    }
}

/// A game's identity: its moves key, and for the `game` and `prefix` rules what else they
/// compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The moves key.
    pub key: DedupKey,
    /// The players, the date and the result (default under the `moves` rule).
    pub who: Who,
    /// Under the `prefix` rule, the game's `Event`, `Site` and `Round`, which a shorter record
    /// must not contradict (default under the other rules).
    pub occasion: Occasion,
}

impl Identity {
    /// Bytes of [`Identity::to_bytes`].
    pub const BYTES: usize = 61;

    /// The moves key and the players' words (little-endian), the year, month, day and result,
    /// the round, what follows it and the site: how a keys part and a temporary file hold it (the occasion is
    /// left out).
    pub fn to_bytes(&self) -> [u8; Identity::BYTES] {
        let mut b = [0u8; Identity::BYTES];
        let words = self.key.0.iter().chain(self.who.players.iter().flat_map(|n| n.0.iter()));
        for (chunk, w) in b.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        b[44..46].copy_from_slice(&self.who.date.year.to_le_bytes());
        b[46..49].copy_from_slice(&[self.who.date.month, self.who.date.day, self.who.result as u8]);
        b[49..53].copy_from_slice(&self.who.encounter.round.to_le_bytes());
        b[53..57].copy_from_slice(&self.who.encounter.sub.to_le_bytes());
        b[57..].copy_from_slice(&self.who.encounter.site.to_le_bytes());
        b
    }

    /// The identity [`Identity::to_bytes`] gave; `None` for a result that is not one.
    pub fn from_bytes(b: &[u8; Identity::BYTES]) -> Option<Identity> {
        let at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let word = |i: usize| at(4 * i);
        let name = |at: usize| Name([word(at), word(at + 1), word(at + 2), word(at + 3)]);
        let result = match b[48] {
            0 => GameResult::WhiteWins,
            1 => GameResult::BlackWins,
            2 => GameResult::Draw,
            3 => GameResult::Unknown,
            _ => return None,
        };
        let date = Date { year: u16::from_le_bytes([b[44], b[45]]), month: b[46], day: b[47] };
        let encounter = Encounter { round: at(49), sub: at(53), site: at(57) };
        let who = Who { players: [name(3), name(7)], date, result, encounter };
        Some(Identity { key: DedupKey([word(0), word(1), word(2)]), who, occasion: Occasion::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_matches_an_unknown_or_partial_date() {
        let d = |s: &str| Date::of(s);
        assert_eq!(d("1983.07.28"), Date { year: 1983, month: 7, day: 28 });
        assert_eq!(d("1983.??.??"), Date { year: 1983, month: 0, day: 0 });
        assert_eq!(d("????.??.??"), Date::default());
        assert_eq!(d(""), Date::default());
        assert_eq!(d("1983"), Date::default());
        assert_eq!(d("19??.07.28"), Date { year: 0, month: 7, day: 28 });
        assert!(d("1983.??.??").compatible(d("1983.07.28")));
        assert!(d("????.??.??").compatible(d("2022.01.20")));
        assert!(d("2022.??.??").compatible(d("2022.01.20")));
        assert!(d("2022.01.20").compatible(d("2022.01.20")));
        assert!(!d("2022.01.20").compatible(d("2022.01.21")));
        assert!(!d("2021.??.??").compatible(d("2022.01.20")));
        assert!(!d("2022.02.??").compatible(d("2022.01.20")));
    }

    fn who(white: &str, black: &str, date: &str, result: GameResult) -> Who {
        Who { players: [Name::of(white), Name::of(black)], date: Date::of(date), result, ..Who::default() }
    }

    #[test]
    fn the_same_game_has_the_same_result_players_and_a_compatible_date() {
        use GameResult::*;
        let a = who("Nigel D Short", "Garry Kasparov", "1983.??.??", Draw);
        assert!(a.same_game(&who("Nigel Short", "Kasparov, G.", "1983.07.28", Draw)));
        assert!(!a.same_game(&who("Nigel Short", "Kasparov, G.", "1983.07.28", WhiteWins)));
        assert!(!a.same_game(&who("Nigel Short", "Kasparov, G.", "1984.07.28", Draw)));
        assert!(!a.same_game(&who("Garry Kasparov", "Nigel Short", "1983.07.28", Draw)), "colours");
        assert!(!a.same_game(&who("Nigel Short", "Anatoly Karpov", "1983.07.28", Draw)));
    }

    /// Two games of one day between the same players are told apart by their rounds or their
    /// online pages; a board number, a spelling or an unknown value does not.
    #[test]
    fn an_encounter_is_its_round_and_its_page() {
        let e = Encounter::of;
        let lichess = |id: &str| format!("https://lichess.org/{id}");
        assert!(!e("1", "").compatible(e("2", "")));
        assert!(!e("11", "").compatible(e("12", "")));
        assert!(e("3", "").compatible(e("3.5", "")), "round 3, board 5");
        assert!(e("03", "").compatible(e("3", "")));
        // A match's games, a tie-break's: what follows the round's number tells them apart.
        for (a, b) in [("3.1", "3.2"), ("1.1", "1.10"), ("1.2", "1.20"), ("5.10", "5.1"), ("1.1.1", "1.1.10")]
        {
            assert!(!e(a, "").compatible(e(b, "")), "{a} {b}");
        }
        for (a, b) in [("3.05", "3.5"), ("3.5", "03.5"), ("2a", "2A"), ("4.", "4"), ("1 (2)", "1.2")] {
            assert!(e(a, "").compatible(e(b, "")), "{a} {b}");
        }
        assert!(e("?", "").compatible(e("7", "")) && e("-", "").compatible(e("", "")));
        assert!(e("Final", "").compatible(e("final", "")) && !e("Final", "").compatible(e("2", "")));
        assert!(!e("1", &lichess("aaaaaaaa")).compatible(e("1", &lichess("bbbbbbbb"))));
        assert!(e("1", &lichess("aaaaaaaa")).compatible(e("1", &lichess("aaaaaaaa"))));
        assert!(e("", "Wijk aan Zee NED").compatible(e("", "Wijk aan Zee")), "places are spelled many ways");
        assert!(e("", &lichess("aaaaaaaa")).compatible(e("", "Wijk aan Zee")));
        let who = |round: &str, site: &str| Who { encounter: e(round, site), ..Who::default() };
        assert!(!who("1", "").same_game(&who("2", "")));
        assert!(who("1", "").same_game(&who("1.1", "")));
        assert!(!who("3.1", "").same_game(&who("3.3", "")));
    }

    #[test]
    fn an_occasion_matches_an_unknown_one_or_its_own_spelling() {
        let o = Occasion::of;
        assert!(o("Tata Steel Masters", "Wijk aan Zee", "5").compatible(o(
            "tata steel masters",
            "Wijk-aan-Zee",
            "5"
        )));
        assert!(o("Tata Steel Masters", "?", "5").compatible(o("Tata Steel Masters", "Wijk aan Zee", "?")));
        assert!(o("Arena", "https://lichess.org/3r4rtM6n", "-").compatible(o("", "", "")));
        assert!(!o("Arena", "https://lichess.org/3r4rtM6n", "-").compatible(o(
            "Arena",
            "https://lichess.org/qosxxSPT",
            "-"
        )));
        assert!(!o("Tata Steel Masters", "Wijk aan Zee", "5").compatible(o(
            "Tata Steel Masters",
            "Wijk aan Zee",
            "6"
        )));
    }

    #[test]
    fn a_shorter_record_has_the_longer_result_or_none() {
        use GameResult::*;
        let long = who("Giri, Anish", "Dubov, Daniil", "2022.01.20", WhiteWins);
        let short = |r| who("Anish Giri", "Daniil Dubov", "2022.??.??", r);
        assert!(short(WhiteWins).shorter_record_of(&long, false));
        assert!(short(Unknown).shorter_record_of(&long, false));
        assert!(!short(Draw).shorter_record_of(&long, false));
        assert!(short(Unknown).shorter_record_of(&long, true));
        assert!(!short(WhiteWins).shorter_record_of(&long, true), "the same game, not a shorter one");
        assert!(!short(Unknown).shorter_record_of(&short(Unknown), true));
        assert!(!who("Giri", "Carlsen", "", Unknown).shorter_record_of(&long, false));
    }
}
