//! SipHash-2-4 (Aumasson and Bernstein), the keyed hash a join's proof is made with: a
//! pseudo-random function of its 128-bit key, so a proof seen on the wire tells nothing of
//! the key that made it, and no other proof can be made from it.

/// SipHash-2-4 of `msg` under the key (`k0`, `k1`).
pub fn siphash24(k0: u64, k1: u64, msg: &[u8]) -> u64 {
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let mut blocks = msg.chunks_exact(8);
    for block in &mut blocks {
        let mut b = [0u8; 8];
        b.copy_from_slice(block);
        compress(&mut v, u64::from_le_bytes(b), 2);
    }
    // The last block: the bytes left over, and the message's length in its top byte.
    let mut last = [0u8; 8];
    let rest = blocks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    last[7] = msg.len() as u8;
    compress(&mut v, u64::from_le_bytes(last), 2);
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// Mixes block `m` into the state with `rounds` SipRounds.
fn compress(v: &mut [u64; 4], m: u64, rounds: usize) {
    v[3] ^= m;
    for _ in 0..rounds {
        round(v);
    }
    v[0] ^= m;
}

fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference test vectors' key: bytes 00 01 … 0f.
    const K0: u64 = 0x0706_0504_0302_0100;
    const K1: u64 = 0x0f0e_0d0c_0b0a_0908;

    #[test]
    fn the_reference_vectors_hold() {
        assert_eq!(siphash24(K0, K1, &[]), 0x726f_db47_dd0e_0e31);
        assert_eq!(siphash24(K0, K1, &[0]), 0x74f8_39c5_93dc_67fd);
    }

    /// Every length from 0 to 63 bytes (all tail lengths, several blocks) agrees with the
    /// standard library's own SipHash-2-4.
    #[test]
    #[allow(deprecated)]
    fn it_agrees_with_the_standard_librarys_siphash() {
        use std::hash::Hasher;
        let msg: Vec<u8> = (0u8..64).collect();
        for n in 0..msg.len() {
            let mut h = std::hash::SipHasher::new_with_keys(K0, K1);
            h.write(&msg[..n]);
            assert_eq!(siphash24(K0, K1, &msg[..n]), h.finish(), "{n} bytes");
        }
    }
}
