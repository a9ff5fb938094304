//! The Internet checksum (RFC 1071): the ones' complement of the ones'
//! complement sum of 16-bit words. One implementation for the reader (which
//! verifies TCP checksums), the simulator's writer and the test builders.

/// Sum of 16-bit big-endian words (odd tail padded with zero), unfolded;
/// sums of several pieces (pseudo-header, header, payload) simply add.
pub fn ones_sum(b: &[u8]) -> u64 {
    let mut sum: u64 = 0;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        sum += (w >> 48) + ((w >> 32) & 0xffff) + ((w >> 16) & 0xffff) + (w & 0xffff);
    }
    let rem = chunks.remainder();
    let mut i = 0;
    while i + 1 < rem.len() {
        sum += u16::from_be_bytes([rem[i], rem[i + 1]]) as u64;
        i += 2;
    }
    if i < rem.len() {
        sum += (rem[i] as u64) << 8;
    }
    sum
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
}
