//! Seeded pseudo-random numbers for the model and the link simulator.
//!
//! movescope owns its generator (SplitMix64 for seeding, xoshiro256++ for streams) instead of
//! depending on `rand`: recordings are re-simulated from their seed, so the sequence must stay
//! bit-for-bit identical across dependency upgrades, which no external crate promises for every
//! release. Nothing here reads the OS entropy source.

/// SplitMix64 step: used to derive independent stream seeds from one session seed.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derives a stream seed from the session seed and a (purpose, index) pair, so that every
/// client, direction and script gets its own reproducible stream.
pub fn derive_seed(session_seed: u64, purpose: u64, index: u64) -> u64 {
    let mut s = session_seed ^ purpose.wrapping_mul(0xA24B_AED4_963E_E407);
    let _ = splitmix64(&mut s);
    s ^= index.wrapping_mul(0x9FB2_1C65_1E98_DF25);
    splitmix64(&mut s)
}

/// Stream purposes for [`derive_seed`].
pub mod purpose {
    pub const LINK_UP: u64 = 1;
    pub const LINK_DOWN: u64 = 2;
    pub const CLIENT_INPUT: u64 = 3;
    pub const CLIENT_FRAMES: u64 = 4;
    pub const AI_INPUT: u64 = 5;
    pub const HAZARD: u64 = 6;
    pub const SPAWN: u64 = 7;
    /// The join secret of a virtual-time session.
    pub const JOIN_SECRET: u64 = 8;
    pub const SMOOTHING: u64 = 9;
    /// The random number a tick reads without a bound seed (a pitfall switch).
    pub const TICK_RANDOM: u64 = 10;
    /// The order a lesson's choices are shown in.
    pub const LESSON_CHOICES: u64 = 11;
}

/// xoshiro256++: fast, small, good statistical quality for simulation.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = (self.s[0].wrapping_add(self.s[3]))
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f64()
    }

    /// True with probability `p` (clamped to 0..=1). Always draws one number, so the stream
    /// position does not depend on `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// Uniform integer in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        self.next_u64() % n
    }

    /// Standard normal sample (Box–Muller; two uniforms per call, no cached spare so the
    /// stream position is a simple function of the number of calls).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.f64().max(f64::MIN_POSITIVE);
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Pareto sample with shape `alpha` (> 1) and scale `xm` (the minimum).
    pub fn pareto(&mut self, xm: f64, alpha: f64) -> f64 {
        let u = 1.0 - self.f64(); // (0, 1]
        xm / u.powf(1.0 / alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_different_seeds_differ() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let mut c = Rng::new(43);
        let va: Vec<u64> = (0..16).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..16).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..16).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
    }

    #[test]
    fn uniform_mean_and_normal_spread_are_plausible() {
        let mut r = Rng::new(7);
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| r.f64()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
        let samples: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let m = samples.iter().sum::<f64>() / n as f64;
        let var = samples.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!(
            m.abs() < 0.02 && (var - 1.0).abs() < 0.03,
            "m {m} var {var}"
        );
    }

    #[test]
    fn derived_seeds_are_distinct() {
        let a = derive_seed(1, purpose::LINK_UP, 0);
        let b = derive_seed(1, purpose::LINK_DOWN, 0);
        let c = derive_seed(1, purpose::LINK_UP, 1);
        assert!(a != b && a != c && b != c);
    }
}
