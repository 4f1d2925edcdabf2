//! A player's name as the report tells players apart and `--player` matches it: in any case,
//! without the whitespace around it, each run of whitespace inside it one space. A tag written
//! `"DrDrunkenstein "` or `"Carlsen,  Magnus"` names the player its tidy spelling names, as lichess
//! (which has no such names) and a reader of the table take them.

use std::borrow::Cow;

/// Whether `name` is ASCII with single spaces between its words and none around them: its key is
/// its lower case, and [`same_name`] compares it without building one.
fn tidy_ascii(name: &str) -> bool {
    let b = name.as_bytes();
    name.is_ascii()
        && b.first().is_none_or(|&c| c != b' ')
        && b.last().is_none_or(|&c| c != b' ')
        && !b.iter().any(|&c| c.is_ascii_whitespace() && c != b' ')
        && !b.windows(2).any(|w| w == b"  ")
}

/// `name` as players are told apart ([module docs](self)): borrowed when it already is so, else
/// built in `buf`.
pub fn key<'n>(name: &'n str, buf: &'n mut String) -> &'n str {
    if tidy_ascii(name) {
        if !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return name;
        }
        buf.clear();
        buf.push_str(name);
        buf.make_ascii_lowercase();
        return buf;
    }
    buf.clear();
    for (k, word) in name.split_whitespace().enumerate() {
        if k > 0 {
            buf.push(' ');
        }
        buf.push_str(&word.to_lowercase());
    }
    buf
}

/// `name` as the table shows it: as spelt, whitespace tidied ([module docs](self)).
pub fn spelt(name: &str) -> Cow<'_, str> {
    if tidy_ascii(name) {
        return Cow::Borrowed(name);
    }
    let tidy = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if tidy == name { Cow::Borrowed(name) } else { Cow::Owned(tidy) }
}

/// Whether `name` is the player whose [`key`] is `player`: tidy ASCII names without building
/// their key.
pub fn same_name(name: &str, player: &str) -> bool {
    if tidy_ascii(name) { name.eq_ignore_ascii_case(player) } else { key(name, &mut String::new()) == player }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_case_do_not_tell_players_apart() {
        let mut buf = String::new();
        for (name, want) in [
            ("DrDrunkenstein", "drdrunkenstein"),
            ("DrDrunkenstein ", "drdrunkenstein"),
            (" drdrunkenstein", "drdrunkenstein"),
            ("Carlsen,  Magnus", "carlsen, magnus"),
            ("Carlsen,\tMagnus", "carlsen, magnus"),
            ("  Ánand  Viswanathan ", "ánand viswanathan"),
            ("ÉLODIE  Ünal", "élodie ünal"),
            ("", ""),
            ("   ", ""),
        ] {
            assert_eq!(key(name, &mut buf), want, "{name:?}");
            assert!(same_name(name, want), "{name:?}");
            assert_eq!(spelt(name), name.split_whitespace().collect::<Vec<_>>().join(" "), "{name:?}");
        }
        assert!(!same_name("Carlsen Magnus", "carlsen, magnus"));
        assert!(!same_name("DrDrunken stein", "drdrunkenstein"));
        assert!(matches!(spelt("Carlsen, Magnus"), Cow::Borrowed(_)));
    }
}
