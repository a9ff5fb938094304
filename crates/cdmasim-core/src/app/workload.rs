//! The HTTP/1.0 web workload of Dziong et al. (Table 2, from Mah's
//! measurements): request sizes, objects per page, object sizes and think
//! times. Table 2 gives only summary statistics, so the families and the
//! parameters not in it are ours, named here and in docs/scenario.md:
//!
//! - request size: two lognormal peaks, 85 % around 250 B and 15 % around
//!   1 KB (σ = 0.2 each): "one large peak around 250 bytes and a small peak
//!   around 1 Kbyte";
//! - objects per page: Table 2's mean 4 and median 2 count the main
//!   response, as §5.1.2 reads them ("each page can be regarded as having
//!   a minimum of 2 objects ... the minimum number of objects per page is
//!   2 (which is also the median) and the mean is 4"). So the embedded
//!   objects after the response are ⌈X⌉, at least 1, with X lognormal,
//!   median 0.8, σ = 1.5, at most 100: mean 3.0, median 1 (the median
//!   below 1 and σ are ours);
//! - object size (the main response has the same law, §5.1.2): lognormal,
//!   median 2 KB, σ = 1.56 so that the mean is 6.75 KB (Table 2; the median
//!   is our choice: Mah's sizes are heavy-tailed with a median of a few KB),
//!   at most 2 MB (this moves the mean by less than 0.2 %);
//! - think time: exponential, mean 30 s (Table 2).

use crate::engine::Rng;
use serde::{Deserialize, Serialize};

/// A distribution of a non-negative quantity (bytes, seconds or a count).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Dist {
    Fixed(f64),
    Exponential { mean: f64 },
    /// ln X ~ N(ln median, sigma²), clamped to `max`.
    Lognormal { median: f64, sigma: f64, max: f64 },
    /// (weight, component); the weights sum to 1.
    Mixture(Vec<(f64, Dist)>),
}

impl Dist {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            Dist::Fixed(x) => *x,
            Dist::Exponential { mean } => rng.exponential(*mean),
            Dist::Lognormal { median, sigma, max } => (median * (sigma * rng.normal()).exp()).min(*max),
            Dist::Mixture(parts) => {
                let mut u = rng.uniform();
                for (w, d) in parts {
                    if u < *w {
                        return d.sample(rng);
                    }
                    u -= w;
                }
                parts.last().expect("a mixture has parts").1.sample(rng)
            }
        }
    }

    /// The mean; a lognormal's is that of the law clamped at `max`:
    /// E[min(X, c)] = e^(μ + σ²/2) Φ((ln c − μ − σ²)/σ) + c (1 − Φ((ln c − μ)/σ)).
    pub fn mean(&self) -> f64 {
        match self {
            Dist::Fixed(x) => *x,
            Dist::Exponential { mean } => *mean,
            Dist::Lognormal { median, sigma, max } => {
                let (mu, s) = (median.ln(), *sigma);
                let z = (max.ln() - mu) / s;
                median * (s * s / 2.0).exp() * normal_cdf(z - s) + max * (1.0 - normal_cdf(z))
            }
            Dist::Mixture(parts) => parts.iter().map(|(w, d)| w * d.mean()).sum(),
        }
    }

    /// The mean of `count(self)`, ⌈X⌉ held to [1, MAX_OBJECTS_PER_PAGE]:
    /// Σ_k P(count > k) = 1 + Σ_{k ≥ 1} P(X > k), up to the bound.
    pub fn count_mean(&self) -> f64 {
        let above = |k: f64| match self {
            Dist::Fixed(x) => (*x > k) as u8 as f64,
            Dist::Exponential { mean } => (-k / mean).exp(),
            Dist::Lognormal { median, sigma, max } => {
                if k >= *max {
                    0.0
                } else {
                    1.0 - normal_cdf((k.ln() - median.ln()) / sigma)
                }
            }
            Dist::Mixture(_) => unimplemented!("a count law is never a mixture (the scenario reader refuses it)"),
        };
        1.0 + (1..MAX_OBJECTS_PER_PAGE).map(|k| above(k as f64)).sum::<f64>()
    }
}

/// Φ, the standard normal distribution function, through erfc (Abramowitz
/// and Stegun 7.1.26: absolute error below 1.5 × 10⁻⁷).
fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-x * x).exp();
    if z >= 0.0 {
        1.0 - erfc / 2.0
    } else {
        erfc / 2.0
    }
}

/// What one web user fetches and how long it reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebWorkload {
    /// HTTP request size, bytes.
    pub request_size: Dist,
    /// Embedded objects per page (⌈sample⌉, at least 1).
    pub objects_per_page: Dist,
    /// Object size and main response size, bytes (rounded, at least 1).
    pub object_size: Dist,
    /// Think (reading) time between pages, seconds.
    pub think_time: Dist,
}

impl Default for WebWorkload {
    /// Dziong et al., Table 2 (see the module comment for the choices).
    fn default() -> Self {
        let peak = |median: f64| Dist::Lognormal { median, sigma: 0.2, max: 16_384.0 };
        WebWorkload {
            request_size: Dist::Mixture(vec![(0.85, peak(250.0)), (0.15, peak(1_000.0))]),
            objects_per_page: Dist::Lognormal { median: 0.8, sigma: 1.5, max: 100.0 },
            object_size: Dist::Lognormal { median: 2_000.0, sigma: 1.56, max: 2_000_000.0 },
            think_time: Dist::Exponential { mean: 30.0 },
        }
    }
}

impl WebWorkload {
    /// Mean bytes of a page's responses: the main response and the
    /// embedded objects, all of the object-size law (requests go the other
    /// way and are not counted).
    pub fn page_bytes_mean(&self) -> f64 {
        (1.0 + self.objects_per_page.count_mean()) * self.object_size.mean()
    }

    /// One user's offered load (bits/s) when a page takes `download_s` on
    /// average: a page per think time plus download time (the think time
    /// starts when the page is complete, Dziong et al. §5.2).
    pub fn offered_bps(&self, download_s: f64) -> f64 {
        self.page_bytes_mean() * 8.0 / (self.think_time.mean() + download_s)
    }
}

/// Bytes from a size law: rounded, at least 1.
pub fn bytes(d: &Dist, rng: &mut Rng) -> u64 {
    (d.sample(rng).round() as u64).max(1)
}

/// Most objects a page may hold: a page keeps a record per object while it
/// loads, so the count a scenario can ask for is bounded (Dziong et al.'s law
/// stops at 100; the scenario reader refuses laws that reach past this).
pub const MAX_OBJECTS_PER_PAGE: u32 = 10_000;

/// A count from a count law: ⌈sample⌉, at least 1, at most
/// [`MAX_OBJECTS_PER_PAGE`] (an exponential law's rare tail is cut there).
pub fn count(d: &Dist, rng: &mut Rng) -> u32 {
    (d.sample(rng).ceil() as u32).clamp(1, MAX_OBJECTS_PER_PAGE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;

    fn sample_stats(n: usize, mut f: impl FnMut() -> f64) -> (f64, f64) {
        let mut v: Vec<f64> = (0..n).map(|_| f()).collect();
        v.sort_by(f64::total_cmp);
        (v.iter().sum::<f64>() / n as f64, v[n / 2])
    }

    #[test]
    fn table2_statistics_hold() {
        let w = WebWorkload::default();
        let mut rng = RngStreams::new(1).stream("t");
        // Objects per page, the main response with its embedded objects:
        // Table 2 says mean 4, median 2, and §5.1.2 a minimum of 2.
        let (mean, median) = sample_stats(200_000, || 1.0 + count(&w.objects_per_page, &mut rng) as f64);
        assert!((mean - 4.0).abs() < 0.05, "objects per page mean {mean}");
        assert_eq!(median, 2.0);
        assert!((1.0 + w.objects_per_page.count_mean() - 4.0).abs() < 0.01);
        // Object size: mean 6.75 KB (heavy tail: a loose tolerance on the sample mean).
        let (mean, median) = sample_stats(400_000, || bytes(&w.object_size, &mut rng) as f64);
        assert!((mean / 6_750.0 - 1.0).abs() < 0.03, "object size mean {mean}");
        assert!((median / 2_000.0 - 1.0).abs() < 0.02, "object size median {median}");
        // Requests: 85 % within a factor 2 of 250 B (3.5 σ), 15 % of 1 KB.
        let reqs: Vec<u64> = (0..100_000).map(|_| bytes(&w.request_size, &mut rng)).collect();
        let near = |c: f64| reqs.iter().filter(|&&r| (r as f64 / c).ln().abs() < 2f64.ln()).count() as f64 / 1e5;
        assert!((near(250.0) - 0.85).abs() < 0.01 && (near(1_000.0) - 0.15).abs() < 0.01);
        let (mean, _) = sample_stats(100_000, || w.think_time.sample(&mut rng));
        assert!((mean / 30.0 - 1.0).abs() < 0.02, "think time mean {mean}");
    }

    #[test]
    fn closed_form_means() {
        let w = WebWorkload::default();
        assert!((w.object_size.mean() - 6_750.0).abs() < 50.0);
        // Φ against tabled values (A&S Table 26.1).
        for (z, p) in [(0.0, 0.5), (1.0, 0.841_344_7), (-1.96, 0.024_997_9), (3.0, 0.998_650_1)] {
            assert!((normal_cdf(z) - p).abs() < 2e-7, "Φ({z})");
        }
        assert!((w.request_size.mean() - (0.85 * 250.0 + 0.15 * 1_000.0) * 1.0202).abs() < 1.0);
    }

    #[test]
    fn a_capped_object_size_and_the_page_bytes_match_their_closed_forms() {
        // Table 2's law capped at 12 KB (reproduce dziong's variant cap_12kb):
        // the clamped mean, the objects per page and the page bytes, each
        // against 400 000 draws. Standard errors: object 3.9 KB / √400k =
        // 6 B; page bytes (sd about 30 KB) 50 B: tolerances 1 %.
        let mut w = WebWorkload::default();
        w.object_size = Dist::Lognormal { median: 2_000.0, sigma: 1.56, max: 12_000.0 };
        let mut rng = RngStreams::new(3).stream("t");
        let n = 400_000;
        let (size, _) = sample_stats(n, || w.object_size.sample(&mut rng));
        assert!((size / w.object_size.mean() - 1.0).abs() < 0.01, "{size} vs {}", w.object_size.mean());
        let (objects, _) = sample_stats(n, || count(&w.objects_per_page, &mut rng) as f64);
        assert!((objects / w.objects_per_page.count_mean() - 1.0).abs() < 0.01);
        let (page, _) = sample_stats(n, || {
            (0..1 + count(&w.objects_per_page, &mut rng)).map(|_| w.object_size.sample(&mut rng)).sum::<f64>()
        });
        assert!((page / w.page_bytes_mean() - 1.0).abs() < 0.01, "{page} vs {}", w.page_bytes_mean());
        // 3.80 KB a clamped object, 4.0 objects a page: 15.2 KB, and at a
        // 6 s download 3.4 kb/s per user; uncapped 27.0 KB and 6.0 kb/s.
        println!("capped: object {:.0} B, page {:.0} B, {:.0} b/s", w.object_size.mean(), w.page_bytes_mean(), w.offered_bps(6.0));
        let d = WebWorkload::default();
        println!("uncapped: page {:.0} B, {:.0} b/s", d.page_bytes_mean(), d.offered_bps(6.0));
        assert!((w.object_size.mean() - 3_803.0).abs() < 5.0);
        assert!((d.page_bytes_mean() - 4.0 * 6_750.0).abs() < 300.0, "{}", d.page_bytes_mean());
    }
}
