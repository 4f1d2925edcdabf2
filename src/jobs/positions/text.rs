//! The small pieces of text the record formats are made of: decimal numbers without
//! allocation, clock seconds, JSON strings (through serde_json), CSV fields (RFC 4180) and EPD
//! string operands ([`escape_epd_string`](crate::notation::fen::escape_epd_string): `"` and `\`
//! escaped as in PGN strings, line breaks and tabs as `\n`, `\r`, `\t`).

use std::time::Duration;

/// Appends `n` in decimal.
#[inline(always)]
pub(super) fn push_u64(out: &mut Vec<u8>, n: u64) {
    // Clocks, move numbers and plies are mostly one or two digits.
    if n < 10 {
        out.push(b'0' + n as u8);
    } else if n < 100 {
        out.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
    } else {
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
}

/// Appends `n` in decimal.
pub(super) fn push_i64(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Seconds as a JSON number: `180`, `178.6`.
pub(super) fn push_seconds(out: &mut Vec<u8>, d: Duration) {
    push_u64(out, d.as_secs());
    let nanos = d.subsec_nanos();
    if nanos != 0 {
        let mut digits = [b'0'; 9];
        let mut n = nanos;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
        let len = digits.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
        out.push(b'.');
        out.extend_from_slice(&digits[..len]);
    }
}

/// A JSON string literal.
pub(super) fn push_json_string(out: &mut Vec<u8>, s: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
pub(super) fn push_csv_field(out: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        out.push(b'"');
        for &b in s.as_bytes() {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_decimal() {
        let mut n = 1u64;
        for _ in 0..20 {
            for v in [n - 1, n, n.wrapping_add(7), n.wrapping_mul(9).wrapping_add(1)] {
                let mut out = b"x".to_vec();
                push_u64(&mut out, v);
                assert_eq!(out, format!("x{v}").into_bytes());
            }
            n = n.saturating_mul(10);
        }
        let mut out = Vec::new();
        push_u64(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string().into_bytes());
    }

    #[test]
    fn text_helpers() {
        let mut out = Vec::new();
        push_seconds(&mut out, Duration::from_millis(178_600));
        out.push(b' ');
        push_seconds(&mut out, Duration::from_secs(0));
        out.push(b' ');
        push_i64(&mut out, -4);
        out.push(b' ');
        push_u64(&mut out, u64::MAX);
        out.push(b' ');
        push_json_string(&mut out, "a\"\\\n\u{1}é");
        out.push(b' ');
        push_csv_field(&mut out, "a,\"b\"");
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            "178.6 0 -4 18446744073709551615 \"a\\\"\\\\\\n\\u0001é\" \"a,\"\"b\"\"\""
        );
    }
}
