//! Date tag values (`Date`, `EventDate`, `UTCDate`, ...) in the PGN standard's form
//! `YYYY.MM.DD`, each part digits or, when unknown, all `?` (`2024.??.??`). The year `0000` is
//! unknown, as `????` ([`known_year`]): every reader of a date (`check`, `--where`, `--dedup`,
//! `positions`' typed columns) takes it so.

/// A date tag's value read in the standard's form: each part `None` when unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagDate {
    /// The year (1 to 9999: `0000` is unknown, [`known_year`]).
    pub year: Option<u16>,
    /// The month as written (`00` and `13` read too: [`TagDate::impossible`] says why not).
    pub month: Option<u8>,
    /// The day as written.
    pub day: Option<u8>,
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

impl TagDate {
    /// `text` in the standard's form; `None` for any other text (`2024-01-15`, `2024.1.5`,
    /// `2024.0?.01`), which the standard's readers do not take as a date either.
    ///
    /// ```
    /// use pgnkit::pgn::date::TagDate;
    /// let d = TagDate::parse(b"2024.02.??").expect("the standard's form");
    /// assert_eq!((d.year, d.month, d.day), (Some(2024), Some(2), None));
    /// assert_eq!(TagDate::parse(b"2024-02-01"), None);
    /// ```
    pub fn parse(text: &[u8]) -> Option<TagDate> {
        let [y0, y1, y2, y3, b'.', m0, m1, b'.', d0, d1] = *text else { return None };
        let year = part(&[y0, y1, y2, y3])?.and_then(known_year);
        Some(TagDate { year, month: part(&[m0, m1])?, day: part(&[d0, d1])? })
    }

    /// Why the known parts name no day of the Gregorian calendar, if they do not: `there is no
    /// month 13`, `April has 30 days`, `February 2023 has 28 days`. February 29 of an unknown
    /// year is a day.
    ///
    /// ```
    /// use pgnkit::pgn::date::TagDate;
    /// let why = |t: &[u8]| TagDate::parse(t).and_then(|d| d.impossible());
    /// assert_eq!(why(b"2003.04.31").as_deref(), Some("April has 30 days"));
    /// assert_eq!(why(b"????.02.29"), None);
    /// ```
    pub fn impossible(&self) -> Option<String> {
        if let Some(m) = self.month.filter(|m| !(1..=12).contains(m)) {
            return Some(format!("there is no month {m:02}"));
        }
        let day = self.day?;
        if day == 0 {
            return Some("there is no day 00".to_string());
        }
        let Some(month) = self.month else {
            return (day > 31).then(|| format!("no month has {day} days"));
        };
        // An unknown year may be a leap year.
        let days = days_in_month(self.year.unwrap_or(2000), month);
        let name = MONTHS[usize::from(month - 1)];
        (day > days).then(|| match self.year {
            Some(y) if month == 2 => format!("{name} {y:04} has {days} days"),
            _ => format!("{name} has {days} days"),
        })
    }
}

impl TagDate {
    /// The date with the parts that make it [impossible](TagDate::impossible) unknown: a month
    /// that is none, a day that is none (of its month, or of any month when the month is
    /// unknown): `2003.04.31` is `2003.04.??`, `1999.13.05` is `1999.??.05`.
    ///
    /// ```
    /// use pgnkit::pgn::date::TagDate;
    /// let possible = |t: &[u8]| TagDate::parse(t).map(|d| d.possible().to_string());
    /// assert_eq!(possible(b"1999.13.05").as_deref(), Some("1999.??.05"));
    /// assert_eq!(possible(b"1999.13.32").as_deref(), Some("1999.??.??"));
    /// assert_eq!(possible(b"2003.04.31").as_deref(), Some("2003.04.??"));
    /// ```
    pub fn possible(self) -> TagDate {
        let date = TagDate { month: self.month.filter(|m| (1..=12).contains(m)), ..self };
        if date.impossible().is_some() { TagDate { day: None, ..date } } else { date }
    }

    /// `form` ([`standard_form`]) read as [`TagDate::parse`] reads the standard's form, a part
    /// that mixes digits and `?` (`19??`) unknown: `19??.02.30` is February 30 of some year.
    pub fn of_form(form: &[u8; 10]) -> TagDate {
        let [y0, y1, y2, y3, _, m0, m1, _, d0, d1] = *form;
        TagDate {
            year: part(&[y0, y1, y2, y3]).flatten().and_then(known_year),
            month: part(&[m0, m1]).flatten(),
            day: part(&[d0, d1]).flatten(),
        }
    }
}

/// `form` ([`standard_form`]) with the parts that make it name no day written unknown, as
/// [`TagDate::possible`] makes them, and the others as written; `None` when it may name a day.
///
/// ```
/// use pgnkit::pgn::date::possible_form;
/// assert_eq!(possible_form(*b"19??.02.30"), Some(*b"19??.02.??"));
/// assert_eq!(possible_form(*b"2024.13.05"), Some(*b"2024.??.05"));
/// assert_eq!(possible_form(*b"0000.02.29"), None);
/// ```
pub fn possible_form(mut form: [u8; 10]) -> Option<[u8; 10]> {
    let date = TagDate::of_form(&form);
    date.impossible()?;
    let possible = date.possible();
    for (at, blank) in [(5, possible.month != date.month), (8, possible.day != date.day)] {
        if blank {
            form[at..at + 2].copy_from_slice(b"??");
        }
    }
    Some(form)
}

/// In the standard's form, unknown parts as `?`.
impl std::fmt::Display for TagDate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.year {
            Some(y) => write!(f, "{y:04}.")?,
            None => f.write_str("????.")?,
        }
        for (part, end) in [(self.month, "."), (self.day, "")] {
            match part {
                Some(p) => write!(f, "{p:02}{end}")?,
                None => write!(f, "??{end}")?,
            }
        }
        Ok(())
    }
}

/// `text` in the standard's form, rewritten from the ways collections write a date with its
/// year first: `2024-01-15`, `2024/1/5`, `2024.5.3`, a year and month (`2024-01`: `2024.01.??`),
/// a year alone (`2018`: `2018.??.??`), an unknown date written short (`?`, the empty text:
/// `????.??.??`); the standard's form is kept. `None` for any other text (`15-01-2024`, `Jan 5,
/// 2024`, one with spaces), which is no date of these forms. A part may mix digits and `?`
/// (`19??`), as written; [`TagDate::parse`] reads no such part.
///
/// ```
/// use pgnkit::pgn::date::standard_form;
/// assert_eq!(standard_form(b"2024/2/5"), Some(*b"2024.02.05"));
/// assert_eq!(standard_form(b"1999-??"), Some(*b"1999.??.??"));
/// assert_eq!(standard_form(b"5.2.2024"), None);
/// ```
pub fn standard_form(text: &[u8]) -> Option<[u8; 10]> {
    let mut form = *b"????.??.??";
    // The empty text too: all of its bytes are `?`.
    if text.iter().all(|&b| b == b'?') {
        return Some(form);
    }
    let sep = [b'-', b'/', b'.'].into_iter().find(|c| text.contains(c));
    let mut parts = text.split(|&b| Some(b) == sep);
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(|&b| b.is_ascii_digit() || b == b'?');
    let year = parts.next().filter(|y| y.len() == 4 && digits(y))?;
    form[..4].copy_from_slice(year);
    for at in [5, 8] {
        let Some(p) = parts.next() else { break };
        match p {
            _ if p.len() > 2 || !digits(p) => return None,
            b"?" => {}
            [d] => form[at..at + 2].copy_from_slice(&[b'0', *d]),
            _ => form[at..at + 2].copy_from_slice(p),
        }
    }
    parts.next().is_none().then_some(form)
}

/// The year written `year`, `None` for `0000`: the proleptic Gregorian calendar's year 0 is no
/// year a game was played in, and programs write `0000` where the standard writes `????`.
///
/// ```
/// use pgnkit::pgn::date::known_year;
/// assert_eq!((known_year(0), known_year(1), known_year(2024)), (None, Some(1), Some(2024)));
/// ```
pub fn known_year(year: u16) -> Option<u16> {
    (year != 0).then_some(year)
}

/// Whether the tag `name` holds a date: `Date`, `EventDate`, `UTCDate`, `EndDate`...
pub fn is_date_tag(name: &[u8]) -> bool {
    name.ends_with(b"Date")
}

/// Days in `month` (1 to 12) of `year` in the proleptic Gregorian calendar.
pub fn days_in_month(year: u16, month: u8) -> u8 {
    let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
    [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][usize::from(month - 1)]
}

/// A part of a date: all digits, or all `?` (unknown); `None` for anything else.
fn part<T: TryFrom<u16>>(bytes: &[u8]) -> Option<Option<T>> {
    if bytes.iter().all(|&b| b == b'?') {
        return Some(None);
    }
    if !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = bytes.iter().fold(0u16, |n, &b| n * 10 + u16::from(b - b'0'));
    T::try_from(n).ok().map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(text: &str) -> Option<String> {
        TagDate::parse(text.as_bytes()).expect("the standard's form").impossible()
    }

    #[test]
    fn names_what_makes_a_date_no_day() {
        for (text, reason) in [
            ("1999.13.??", "there is no month 13"),
            ("2000.00.01", "there is no month 00"),
            ("2003.04.31", "April has 30 days"),
            ("????.04.31", "April has 30 days"),
            ("2007.02.29", "February 2007 has 28 days"),
            ("1900.02.29", "February 1900 has 28 days"),
            ("????.02.30", "February has 29 days"),
            ("2024.??.00", "there is no day 00"),
            ("2024.??.32", "no month has 32 days"),
        ] {
            assert_eq!(why(text).as_deref(), Some(reason), "{text}");
        }
        for day in
            ["2024.02.29", "2000.02.29", "????.02.29", "2024.??.31", "2024.12.31", "????.??.??", "0000.01.01"]
        {
            assert_eq!(why(day), None, "{day}");
        }
        // Year 0000 is unknown: February may have 29 days, not 30.
        assert_eq!(why("0000.02.30").as_deref(), Some("February has 29 days"));
    }

    #[test]
    fn reads_only_the_standards_form() {
        for other in ["2024-01-15", "2024.1.5", "2024.0?.01", "24.01.01", "2024.01.01 ", "", "????.??.?"] {
            assert_eq!(TagDate::parse(other.as_bytes()), None, "{other}");
        }
        assert_eq!(TagDate::parse(b"????.??.??"), Some(TagDate { year: None, month: None, day: None }));
        assert_eq!(TagDate::parse(b"0000.05.01"), Some(TagDate { year: None, month: Some(5), day: Some(1) }));
        for text in ["????.??.??", "2024.02.??", "0012.??.31", "2024.01.05"] {
            assert_eq!(TagDate::parse(text.as_bytes()).map(|d| d.to_string()).as_deref(), Some(text));
        }
    }
}
