//! Lee eq. (1), the square-root throughput model (Mathis et al.;
//! Padhye et al. [24] in the seed): T = C·MTU / (RTT·sqrt(b·p)), with b
//! segments per ACK and p the loss rate, here taken as the retransmission
//! rate as the seed's footnote 4 does. C is fitted to the connections by
//! least squares through the origin, C = Σ T·x / Σ x² with
//! x = MTU / (RTT·sqrt(b·p)); the error is the RMS relative error of the
//! fitted model.

use super::report::ConnReport;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ModelPoint {
    pub conn: usize,
    /// "a2b" or "b2a": the direction carrying the most data.
    pub dir: &'static str,
    pub throughput_bps: f64,
    pub rtt_s: f64,
    pub p: f64,
    pub predicted_bps: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelFit {
    pub c: f64,
    pub b: f64,
    pub mtu: f64,
    /// RMS of (measured - predicted) / measured over the fitted connections.
    pub rms_rel_error: f64,
    pub points: Vec<ModelPoint>,
}

pub fn predict(c: f64, mtu: f64, rtt_s: f64, b: f64, p: f64) -> f64 {
    c * mtu / (rtt_s * (b * p).sqrt())
}

/// Fit C over connections with data, RTT samples and at least one
/// retransmission (p = 0 makes the model infinite). None if there are none.
pub fn fit(conns: &[ConnReport], mtu: f64, b: f64) -> Option<ModelFit> {
    let mut pts = Vec::new();
    for c in conns {
        let (dir, d) = if c.a2b.actual_data_bytes >= c.b2a.actual_data_bytes { ("a2b", &c.a2b) } else { ("b2a", &c.b2a) };
        let (Some(t), true, true) = (d.throughput_bps, d.rtt_samples > 0, d.rexmt_data_pkts > 0) else { continue };
        let rtt_s = d.rtt_avg_ms / 1000.0;
        if rtt_s <= 0.0 || t <= 0.0 {
            continue;
        }
        pts.push(ModelPoint { conn: c.index, dir, throughput_bps: t, rtt_s, p: d.retrans_rate, predicted_bps: 0.0 });
    }
    if pts.is_empty() {
        return None;
    }
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for p in &pts {
        let x = predict(1.0, mtu, p.rtt_s, b, p.p);
        sxy += x * p.throughput_bps;
        sxx += x * x;
    }
    let c = sxy / sxx;
    let mut se = 0.0;
    for p in &mut pts {
        p.predicted_bps = predict(c, mtu, p.rtt_s, b, p.p);
        let r = (p.throughput_bps - p.predicted_bps) / p.throughput_bps;
        se += r * r;
    }
    let rms = (se / pts.len() as f64).sqrt();
    Some(ModelFit { c, b, mtu, rms_rel_error: rms, points: pts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_operating_point() {
        // Lee Fig. 4: C = 2, MTU = 1500 B, b = 2, p = 0.002 and an
        // RTT of 417.4 ms (Table 1 downlink average) give
        // 2*1500/(0.4174*sqrt(0.004)) = 113.6 kB/s = 909 kbit/s.
        let t = predict(2.0, 1500.0, 0.4174, 2.0, 0.002);
        assert!((t * 8.0 / 1000.0 - 909.0).abs() < 1.0, "{t}");
    }
}
