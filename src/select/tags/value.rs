//! A tag value read as a number or as a PGN date, borrowed from its text (nothing is allocated),
//! and the comparisons of [`TagExpr`](super::TagExpr) by value.
//!
//! Invariants: a [`Decimal`] keeps no leading zero in its integer digits, no trailing zero in its
//! fraction digits, and zero is never negative, so two decimals are equal exactly when their
//! fields are. A [`Date`] knows a prefix of its parts (year, month, day): a part written after an
//! unknown one is ignored.

use crate::pgn::date::{known_year, possible_form, standard_form};
use std::cmp::Ordering;

/// A decimal number as written, `[+-]DIGITS[.DIGITS]`, normalized (see the module invariants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Decimal<'s> {
    neg: bool,
    int: &'s [u8],
    frac: &'s [u8],
}

impl<'s> Decimal<'s> {
    /// Reads `[+-]DIGITS[.DIGITS]`, ASCII blanks around it ignored; `None` for anything else
    /// (`?`, `-`, `2500?`, `1e3`, `.5`, `300+2`).
    pub(super) fn parse(text: &'s str) -> Option<Decimal<'s>> {
        let b = text.trim_ascii().as_bytes();
        let (neg, b) = match b.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, b),
        };
        let (int, frac) = match b.iter().position(|&c| c == b'.') {
            Some(i) => (&b[..i], &b[i + 1..]),
            None => (b, &b[b.len()..]),
        };
        let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
        if !digits(int) || (int.len() < b.len() && !digits(frac)) {
            return None;
        }
        let int = &int[int.iter().position(|&c| c != b'0').unwrap_or(int.len())..];
        let frac = &frac[..frac.iter().rposition(|&c| c != b'0').map_or(0, |i| i + 1)];
        let neg = neg && !(int.is_empty() && frac.is_empty());
        Some(Decimal { neg, int, frac })
    }
}

impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Without leading zeros the longer integer part is the larger; fraction digits without
        // trailing zeros compare as byte strings.
        let magnitude = (self.int.len().cmp(&other.int.len()))
            .then_with(|| self.int.cmp(other.int))
            .then_with(|| self.frac.cmp(other.frac));
        match (self.neg, other.neg) {
            (false, false) => magnitude,
            (true, true) => magnitude.reverse(),
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
        }
    }
}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A [`Decimal`] kept by a parsed expression (its operand).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct OwnedDecimal {
    neg: bool,
    int: Box<[u8]>,
    frac: Box<[u8]>,
}

impl OwnedDecimal {
    /// The number `text` reads as, if any.
    pub(super) fn parse(text: &str) -> Option<OwnedDecimal> {
        Decimal::parse(text).map(|d| OwnedDecimal { neg: d.neg, int: d.int.into(), frac: d.frac.into() })
    }

    /// Borrowed, to compare with a tag's.
    pub(super) fn view(&self) -> Decimal<'_> {
        Decimal { neg: self.neg, int: &self.int, frac: &self.frac }
    }
}

/// A PGN date: year, month and day, of which the first `known` are known (1 to 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Date {
    parts: [u16; 3],
    known: u8,
}

impl Date {
    /// Reads `YYYY`, `YYYY.MM` or `YYYY.MM.DD`, ASCII blanks around it ignored: the separator
    /// `.`, `-` or `/` (one of them throughout), a month (1-12) or day (1-31) of one or two
    /// digits, a part written `??` (`????` for the year, or `0000`: [`known_year`]) unknown. `None` for anything else, and for a date with
    /// no part known (`????.??.??`): the standard's spelling of an unknown date.
    pub(super) fn parse(text: &str) -> Option<Date> {
        let b = text.trim_ascii().as_bytes();
        let (year, rest) = b.split_at_checked(4)?;
        let rest = match rest.split_first() {
            None => None,
            Some((&sep, rest)) if matches!(sep, b'.' | b'-' | b'/') => Some(rest.split(move |&c| c == sep)),
            Some(_) => return None,
        };
        let mut date = Date { parts: [0; 3], known: 0 };
        let mut all_known = true;
        for (i, field) in std::iter::once(year).chain(rest.into_iter().flatten()).enumerate() {
            let part = read_part(field, if i == 0 { 4 } else { 2 })?;
            let part = if i == 0 { part.and_then(known_year) } else { part };
            // Months 1-12 and days 1-31: `2500.0` is a number, not a year and a month.
            if part.is_some_and(|n| i > 0 && (n == 0 || n > if i == 1 { 12 } else { 31 })) {
                return None;
            }
            // Parts after an unknown one are ignored: `????.05.01` names no period.
            all_known &= part.is_some();
            match (date.parts.get_mut(i), part) {
                (None, _) => return None,
                (Some(slot), Some(n)) if all_known => {
                    *slot = n;
                    date.known += 1;
                }
                (Some(_), _) => {}
            }
        }
        (date.known > 0).then_some(date)
    }

    /// A tag's value read as a date: as [`Date::parse`], except that a date in the standard's
    /// form or one written for it ([`standard_form`]: `2024-04-31`) that names no day has the parts that make it impossible unknown, as `clean` writes
    /// it ([`possible_form`]): `1992.05.00` (a day written unknown so) lies in May 1992,
    /// `2024.13.01` in 2024, and `2024.04.31` is no day of April.
    pub(super) fn of_tag(text: &str) -> Option<Date> {
        let text = text.trim_ascii();
        match standard_form(text.as_bytes()).and_then(possible_form) {
            // ASCII: digits, `?` and dots.
            Some(form) => Date::parse(&String::from_utf8_lossy(&form)),
            None => Date::parse(text),
        }
    }

    /// The year, when known.
    pub(super) fn year(self) -> Option<u16> {
        (self.known > 0).then_some(self.parts[0])
    }

    /// How the date `self` (a tag's) stands to `period` (an operand's, which names a year, a
    /// month or a day): `Less` or `Greater` when it lies before or after that period, `Equal`
    /// when within it, `None` when `self` knows fewer parts and the parts both know agree (it
    /// may lie before, within or after).
    pub(super) fn compare_to_period(self, period: Date) -> Option<Ordering> {
        let common = usize::from(self.known.min(period.known));
        for (a, b) in self.parts[..common].iter().zip(&period.parts[..common]) {
            match a.cmp(b) {
                Ordering::Equal => {}
                other => return Some(other),
            }
        }
        (self.known >= period.known).then_some(Ordering::Equal)
    }
}

/// Reads one part of at most `width` digits (the year exactly 4): `Some(Some(n))` for digits,
/// `Some(None)` for an unknown part (all `?`), `None` when it is neither.
fn read_part(field: &[u8], width: usize) -> Option<Option<u16>> {
    if field.is_empty() || field.len() > width || (width == 4 && field.len() != 4) {
        return None;
    }
    if field.iter().all(|&c| c == b'?') {
        return Some(None);
    }
    if !field.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(Some(field.iter().fold(0, |n, &c| n * 10 + u16::from(c - b'0'))))
}

/// The year of a `Date` tag's value as written (`"1999"` of `"1999.05.01"`), when known.
pub(super) fn year_text(date: &str) -> Option<&str> {
    let text = date.trim_ascii();
    Date::of_tag(text)?.year()?;
    Some(&text[..4])
}
