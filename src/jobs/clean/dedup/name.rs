//! Players' names as `--dedup` compares them: the words of a name after folding, and the rule
//! that says when two spellings name the same player.
//!
//! **Folding.** Letters lose their diacritics (canonical decomposition, combining marks
//! dropped; `ø ł đ ß æ œ ı þ ð` become `o l d ss ae oe i th d`) and their case; apostrophes are
//! dropped (`O'Kelly` is `okelly`); every other character that is not a letter or digit
//! separates words (spaces, hyphens, commas, dots); a letter written twice in a row counts once
//! (`Vassily` is `vasily`, `Strauß` is `straus`; digits are kept as written). A word of one letter is an initial. The first
//! four words of a name are kept, in any order.
//!
//! **Same player.** Two names with no word longer than an initial (`?`, an empty tag) match
//! only when they have the same initials. Otherwise every word and initial of one name pairs
//! with its own word or initial of the other (equal words; an initial and a word it begins;
//! equal initials), at least one pair being two equal words: the name with fewer words may
//! leave words of the other unpaired (a missing middle initial, a first name left out), never
//! both. So `Nigel D Short` is `Nigel Short` and `Short, N.`, `Ju Wenjun` is `Wenjun Ju`,
//! `Jan-Krzysztof Duda` is `Duda, J.K.`; `Nakamura` is not `Nepomniachtchi`, `Nigel D Short`
//! is not `Nigel J Short`, `Ju Wenjun` is not `Ju Yuan`.
//!
//! A word is kept as its first letter (8 bits) and 24 bits of its hash: a name costs 16 bytes.
//! Two different words with the same first letter share a hash once in 16.7 million pairs, and
//! names are compared only between games with the same moves, result and compatible dates.

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// Words kept of a name (the first ones written).
pub const WORDS: usize = 4;

/// A name as `--dedup` compares it: up to [`WORDS`] tokens in ascending order, then zeros. A
/// token is its first letter's code in the top 8 bits and, for a word of two letters or more,
/// 24 bits (never all zero) of the word's hash below them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Name(pub [u32; WORDS]);

impl Name {
    /// The name written `text`.
    pub fn of(text: &str) -> Name {
        let mut tokens = [0u32; WORDS];
        let mut n = 0;
        words(text, |t| {
            if n < WORDS {
                tokens[n] = t;
                n += 1;
            }
        });
        tokens[..n].sort_unstable();
        Name(tokens)
    }

    /// Its tokens.
    fn tokens(&self) -> &[u32] {
        let n = self.0.iter().position(|&t| t == 0).unwrap_or(WORDS);
        &self.0[..n]
    }

    /// Tokens of which every name naming the same player shares one: its distinct words, or,
    /// with none (initials alone must all be equal), one token standing for all of them.
    pub fn handles(&self) -> Handles {
        let tokens = self.tokens();
        let mut handles = Handles { tokens: [0; WORDS], len: 0 };
        if tokens.iter().all(|&t| initial(t)) {
            // FNV-1a over the tokens: a word's token it may equal costs a longer scan, no verdict.
            let h = tokens.iter().fold(0x811c_9dc5u32, |h, &t| (h ^ t).wrapping_mul(0x0100_0193));
            handles.tokens[0] = h;
            handles.len = 1;
            return handles;
        }
        // Sorted tokens: a word written twice is one handle.
        for &t in tokens {
            if !initial(t) && handles.tokens[..handles.len].last() != Some(&t) {
                handles.tokens[handles.len] = t;
                handles.len += 1;
            }
        }
        handles
    }

    /// Whether `self` and `other` name the same player (the rule of the module docs).
    pub fn same_player(&self, other: &Name) -> bool {
        let (a, b) = (self.tokens(), other.tokens());
        let has_word = |t: &[u32]| t.iter().any(|&x| !initial(x));
        if !has_word(a) || !has_word(b) {
            return a == b;
        }
        covers(a, b) || covers(b, a)
    }
}

/// A name's handles ([`Name::handles`]), one to four.
#[derive(Clone, Copy, Debug)]
pub struct Handles {
    tokens: [u32; WORDS],
    len: usize,
}

impl std::ops::Deref for Handles {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.tokens[..self.len]
    }
}

/// Whether a token is an initial (a word of one letter).
fn initial(t: u32) -> bool {
    t & 0x00ff_ffff == 0
}

/// Whether two tokens may stand for the same word.
fn pairs(t: u32, u: u32) -> bool {
    t == u || ((initial(t) || initial(u)) && t >> 24 == u >> 24)
}

/// Whether every token of `a` pairs with its own token of `b`, two equal words among the pairs.
fn covers(a: &[u32], b: &[u32]) -> bool {
    fn go(a: &[u32], b: &[u32], used: u32, word: bool) -> bool {
        let Some((&t, rest)) = a.split_first() else { return word };
        b.iter().enumerate().any(|(j, &u)| {
            used & 1 << j == 0 && pairs(t, u) && go(rest, b, used | 1 << j, word || (t == u && !initial(t)))
        })
    }
    a.len() <= b.len() && go(a, b, 0, false)
}

/// Calls `each` with the token of every word of `text`, in order (the folding of the module
/// docs).
pub fn words(text: &str, mut each: impl FnMut(u32)) {
    let mut word = Word::default();
    if text.is_ascii() {
        for &b in text.as_bytes() {
            match b {
                b'\'' | b'`' => {}
                _ if b.is_ascii_alphanumeric() => word.letter(char::from(b.to_ascii_lowercase())),
                _ => word.end(&mut each),
            }
        }
        return word.end(&mut each);
    }
    for c in text.chars() {
        let folded = match c {
            'ø' | 'Ø' => "o",
            'ł' | 'Ł' => "l",
            'đ' | 'Đ' | 'ð' | 'Ð' => "d",
            'ß' | 'ẞ' => "ss",
            'æ' | 'Æ' => "ae",
            'œ' | 'Œ' => "oe",
            'ı' => "i",
            'þ' | 'Þ' => "th",
            _ if c.is_ascii() => {
                word.push(c, &mut each);
                continue;
            }
            _ => {
                decompose_canonical(c, |d| {
                    if !is_combining_mark(d) {
                        word.push(d, &mut each);
                    }
                });
                continue;
            }
        };
        folded.chars().for_each(|d| word.push(d, &mut each));
    }
    word.end(&mut each);
}

/// The word being read: an FNV-1a hash of its folded letters, how many, the first and the last.
struct Word {
    hash: u64,
    letters: u32,
    first: char,
    last: char,
}

impl Default for Word {
    fn default() -> Word {
        Word { hash: 0xcbf2_9ce4_8422_2325, letters: 0, first: '\0', last: '\0' }
    }
}

impl Word {
    fn push(&mut self, c: char, each: &mut impl FnMut(u32)) {
        if matches!(c, '\'' | '`' | '\u{2019}' | '\u{02bc}') {
            return;
        }
        for l in c.to_lowercase() {
            // A lower case that decomposes (`İ` is `i` and a dot above) keeps only its letter.
            if l.is_alphanumeric() {
                self.letter(l);
            } else if !is_combining_mark(l) {
                self.end(each);
            }
        }
    }

    /// A letter or digit, folded.
    fn letter(&mut self, l: char) {
        if self.last == l && l.is_alphabetic() {
            return;
        }
        if self.letters == 0 {
            self.first = l;
        }
        self.last = l;
        self.letters += 1;
        self.hash = (self.hash ^ u64::from(u32::from(l))).wrapping_mul(0x0100_0000_01b3);
    }

    fn end(&mut self, each: &mut impl FnMut(u32)) {
        if self.letters > 0 {
            let first = self.first;
            let code = if first.is_ascii() { u32::from(first) } else { 0x80 | (u32::from(first) % 127) };
            let hash = if self.letters == 1 {
                0
            } else {
                // FNV's low bits, mixed (splitmix64's finish) before 24 of them are taken.
                let mut h = self.hash;
                h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                ((h ^ (h >> 31)) as u32 & 0x00ff_ffff).max(1)
            };
            each(code << 24 | hash);
            *self = Word::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> bool {
        let (x, y) = (Name::of(a), Name::of(b));
        assert_eq!(x.same_player(&y), y.same_player(&x), "{a} / {b}: symmetric");
        x.same_player(&y)
    }

    #[test]
    fn the_spellings_of_the_issue_name_one_player() {
        for (a, b) in [
            ("Jan Krzysztof Duda", "Jan-Krzysztof Duda"),
            ("Ju Wenjun", "Wenjun Ju"),
            ("Ju, Wenjun", "Wenjun Ju"),
            ("Vassily Smyslov", "Vasily Smyslov"),
            ("Nigel D Short", "Nigel Short"),
            ("Short, Nigel D.", "Nigel Short"),
            ("Short, N.", "Nigel Short"),
            ("Duda, J.K.", "Jan-Krzysztof Duda"),
            ("Carlsen, Magnus", "Magnus Carlsen"),
            ("Carlsen", "Magnus Carlsen"),
            ("CARLSEN, M", "Magnus Carlsen"),
            ("Nepomniachtchi, Ian", "Ian Nepomniachtchi"),
            ("Ljubojević, Ljubomir", "Ljubomir Ljubojevic"),
            ("Grünfeld, Ernst", "Ernst Grunfeld"),
            ("Øystein Hole", "Oystein Hole"),
            ("Strauß", "Strauss"),
            ("O'Kelly de Galway, Alberic", "Alberic OKelly de Galway"),
            ("Caruana, Fabiano", "Caruana,Fabiano"),
            ("?", ""),
            ("?", "?"),
        ] {
            assert!(same(a, b), "{a} / {b}");
        }
    }

    #[test]
    fn different_players_do_not_match() {
        for (a, b) in [
            ("Nakamura, Hikaru", "Nepomniachtchi, Ian"),
            ("Nakamura", "Nepomniachtchi"),
            ("Carlsen", "Karjakin"),
            ("Carlsen, Magnus", "Karjakin, Sergey"),
            ("Yu Yangyi", "Ni Hua"),
            ("Nigel D Short", "Nigel J Short"),
            ("Short, N", "Short, D"),
            ("Ju Wenjun", "Ju Yuan"),
            ("Magnus Carlsen", "Henrik Carlsen"),
            ("Wang Hao", "Wang Yue"),
            ("M. C.", "Magnus Carlsen"),
            ("?", "Carlsen"),
            ("N.N.", "Carlsen"),
            ("Stockfish 15", "Stockfish 16"),
        ] {
            assert!(!same(a, b), "{a} / {b}");
        }
    }

    /// Every two names of one player share a handle, so an index by handles finds every name
    /// a name may match.
    #[test]
    fn names_of_one_player_share_a_handle() {
        let names = [
            "Jan Krzysztof Duda",
            "Jan-Krzysztof Duda",
            "Duda, J.K.",
            "Ju Wenjun",
            "Wenjun Ju",
            "Ju Yuan",
            "Nigel D Short",
            "Nigel Short",
            "Short, N.",
            "Nigel J Short",
            "Carlsen",
            "Magnus Carlsen",
            "CARLSEN, M",
            "M. C.",
            "M C",
            "C. M.",
            "?",
            "",
            "N.N.",
            "Li Li",
            "Li",
            "Strauß",
            "Strauss",
        ];
        for a in names {
            let ha = Name::of(a).handles();
            assert!(!ha.is_empty(), "{a}");
            for b in names {
                let hb = Name::of(b).handles();
                if same(a, b) {
                    assert!(ha.iter().any(|h| hb.contains(h)), "{a} / {b}: {ha:?} {hb:?}");
                }
            }
        }
        assert_eq!(Name::of("Li Li").handles().len(), 1, "a word written twice is one handle");
        assert_eq!(*Name::of("Short, N.").handles(), [Name::of("Short").0[0]], "initials are no handle");
    }

    #[test]
    fn words_fold_case_diacritics_separators_and_doubled_letters() {
        let tokens = |s: &str| {
            let mut v = vec![];
            words(s, |t| v.push(t));
            v
        };
        assert_eq!(tokens("Jan-Krzysztof DUDA"), tokens("jan krzysztof duda"));
        assert_eq!(tokens("Ljubojević"), tokens("Ljubojevic"));
        assert_eq!(tokens("Vassily"), tokens("Vasily"));
        assert_eq!(tokens("N. D."), vec![u32::from(b'n') << 24, u32::from(b'd') << 24]);
        assert_eq!(tokens("  ?? , - "), Vec::<u32>::new());
        assert_ne!(tokens("Carlsen"), tokens("Karlsen"));
        assert_ne!(tokens("magnus2000"), tokens("magnus200"), "digits are not letters");
        assert_eq!(Name::of("A B C D E").tokens().len(), WORDS, "the first four words are kept");
    }
}
