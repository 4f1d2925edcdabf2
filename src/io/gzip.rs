//! gzip input: every member of a multi-member file, and the zero bytes a tape or a block
//! device pads a file with after its last member, which `gzip -d` and Python's `gzip` ignore
//! (flate2's `MultiGzDecoder` takes them for a member header and refuses the file).

use std::io::{self, BufRead, BufReader, Read};

use flate2::bufread::GzDecoder;

/// Decodes the gzip members of `R` one after another; after the last, zero bytes up to the end
/// are padding, anything else is refused as `InvalidData` (as `gzip -d`'s "trailing garbage").
pub(super) struct Members<R: Read> {
    state: State<R>,
}

enum State<R: Read> {
    Member(GzDecoder<BufReader<R>>),
    Between(BufReader<R>),
    Done,
}

impl<R: Read> Members<R> {
    pub(super) fn new(inner: R) -> Members<R> {
        Members { state: State::Member(GzDecoder::new(BufReader::with_capacity(32 * 1024, inner))) }
    }
}

/// Skips zero bytes to the end of `inner`: true when only zeros were left, false at a byte
/// that is not zero (left unread).
fn only_zeros<B: BufRead>(inner: &mut B) -> io::Result<bool> {
    loop {
        let buf = inner.fill_buf()?;
        if buf.is_empty() {
            return Ok(true);
        }
        let zeros = buf.iter().take_while(|&&b| b == 0).count();
        let all = zeros == buf.len();
        inner.consume(zeros);
        if !all {
            return Ok(false);
        }
    }
}

impl<R: Read> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(0),
                State::Member(mut member) => {
                    let n = member.read(buf);
                    if matches!(n, Ok(0)) && !buf.is_empty() {
                        self.state = State::Between(member.into_inner());
                        continue;
                    }
                    self.state = State::Member(member);
                    return n;
                }
                State::Between(mut inner) => {
                    let next = inner.fill_buf()?;
                    match next.first() {
                        None => return Ok(0),
                        Some(0) => {
                            if !only_zeros(&mut inner)? {
                                return Err(io::Error::new(
                                    io::ErrorKind::InvalidData,
                                    "data after the zero bytes that end the last gzip member",
                                ));
                            }
                            return Ok(0);
                        }
                        Some(_) => self.state = State::Member(GzDecoder::new(inner)),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::Members;

    fn gz(text: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn decode(data: &[u8]) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        Members::new(data).read_to_end(&mut out).map(|_| out)
    }

    #[test]
    fn members_then_zero_padding() {
        let mut data = gz(b"1. e4 ");
        data.extend(gz(b"e5 *\n"));
        assert_eq!(decode(&data).unwrap(), b"1. e4 e5 *\n");
        // Padding of any length, past a buffer's worth too.
        for pad in [1, 511, 20_000] {
            let mut padded = data.clone();
            padded.resize(data.len() + pad, 0);
            assert_eq!(decode(&padded).unwrap(), b"1. e4 e5 *\n", "{pad} zero bytes");
        }
        assert_eq!(decode(&gz(b"")).unwrap(), b"");
    }

    #[test]
    fn garbage_after_the_members_is_refused() {
        for tail in [&b"trailing text"[..], b"\0\0\0x", b"\x1f\x8b\x08\0broken"] {
            let mut data = gz(b"1. e4 *\n");
            data.extend_from_slice(tail);
            let e = decode(&data).unwrap_err();
            // Each a kind `InputError::reading` calls corrupt data.
            use std::io::ErrorKind::{InvalidData, InvalidInput, UnexpectedEof};
            assert!(matches!(e.kind(), InvalidData | InvalidInput | UnexpectedEof), "{tail:?}: {e:?}");
        }
        let mut truncated = gz(&b"1. e4 e5 2. Nf3 *\n".repeat(100));
        truncated.truncate(truncated.len() - 4);
        assert!(decode(&truncated).is_err());
    }
}
