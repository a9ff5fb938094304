//! The Internet checksum (RFC 1071): the ones' complement of the ones'
//! complement sum of 16-bit words. One implementation for the reader (which
//! verifies TCP checksums), the simulator's writer and the test builders.

/// The ones' complement sum of `b` as 16-bit big-endian words (odd tail
/// padded with zero), unfolded: only its `fold` (or `checksum`) is the
/// 16-bit sum, and sums of several pieces (pseudo-header, header, payload)
/// simply add before folding. Summed 32 bits at a time (RFC 1071 §2(C),
/// parallel summation: 2^16 is 1 modulo 2^16 - 1, so the sum of 32-bit
/// words folds to the same 16-bit sum), the carries deferred in 64 bits
/// (§2(D)); it is zero only for zero bytes, as the word-by-word sum is.
#[inline]
pub fn ones_sum(b: &[u8]) -> u64 {
    let mut sum: u64 = 0;
    let mut chunks = b.chunks_exact(4);
    for c in &mut chunks {
        sum += u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as u64;
    }
    match *chunks.remainder() {
        [a, b, c] => sum + u16::from_be_bytes([a, b]) as u64 + ((c as u64) << 8),
        [a, b] => sum + u16::from_be_bytes([a, b]) as u64,
        [a] => sum + ((a as u64) << 8),
        _ => sum,
    }
}

/// Fold the carries back in: the 16-bit ones' complement sum.
pub fn fold(mut s: u64) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// The checksum field for data whose unfolded sum is `sum`.
pub fn checksum(sum: u64) -> u16 {
    !fold(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (folded).
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(ones_sum(&data)), 0xddf2);
        assert_eq!(checksum(ones_sum(&data)), !0xddf2);
        // Odd length: the tail byte is the high half of a word.
        assert_eq!(ones_sum(&[0x12, 0x34, 0x56]), 0x1234 + 0x5600);
    }

    #[test]
    fn the_sum_by_32_bit_words_folds_as_the_sum_by_16_bit_words() {
        let words = |b: &[u8]| -> u64 { b.chunks(2).map(|c| ((c[0] as u64) << 8) | *c.get(1).unwrap_or(&0) as u64).sum() };
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut bytes = Vec::new();
        for len in 0..200 {
            for _ in 0..8 {
                bytes.clear();
                for _ in 0..len {
                    // xorshift64: a plain fixed sequence of bytes.
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    bytes.push((x >> 32) as u8);
                }
                assert_eq!(fold(ones_sum(&bytes)), fold(words(&bytes)), "{bytes:?}");
            }
        }
        // The sums that fold to 0xffff (all ones) and to zero.
        assert_eq!(fold(ones_sum(&[0xff; 6])), 0xffff);
        assert_eq!(fold(ones_sum(&[0; 7])), 0);
    }
}
