//! Bindings for the closed forms in cdmasim_core::models: plain floats in
//! and out (python/cdmasim/models.py names the results and documents the
//! equations); a parameter outside a model's validity range is a ValueError.
use cdmasim_core::models::{fluid_loss, jain, markov, reno_buffer, rlp_buffer, tcp_throughput};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Paliwal eqs. 1–6 for a switch at t0: (case, t_start, t_end, loss volume,
/// its limit for mu_lh → ∞, eq. 4 threshold, eq. 1 threshold).
#[pyfunction]
#[pyo3(signature = (mu_ll, mu_s, mu_lh, window_bytes, buffer_bytes, rtt, t0=0.0))]
#[allow(clippy::type_complexity)]
fn model_fluid_loss(
    mu_ll: f64,
    mu_s: f64,
    mu_lh: f64,
    window_bytes: f64,
    buffer_bytes: f64,
    rtt: f64,
    t0: f64,
) -> PyResult<(&'static str, f64, f64, f64, f64, f64, f64)> {
    let m = fluid_loss::FluidLossParams { mu_ll, mu_s, mu_lh, window_bytes, buffer_bytes, rtt };
    m.validate().map_err(PyValueError::new_err)?;
    let case = match m.case() {
        fluid_loss::FluidCase::NoOverflow => "no_overflow",
        fluid_loss::FluidCase::DropFeedback => "drop_feedback",
        fluid_loss::FluidCase::LinkDrainsSlowly => "link_drains_slowly",
        fluid_loss::FluidCase::LinkEmptiesFast => "link_empties_fast",
    };
    Ok((
        case,
        m.t_start(t0),
        m.t_end(t0),
        m.loss_volume_bytes(),
        m.loss_volume_limit_bytes(),
        m.drop_feedback_threshold(),
        m.link_empty_threshold(),
    ))
}

#[pyfunction]
fn model_mathis_bytes_per_s(mss_bytes: f64, rtt_s: f64, p: f64, b: f64) -> f64 {
    tcp_throughput::mathis_bytes_per_s(mss_bytes, rtt_s, p, b)
}

#[pyfunction]
fn model_pftk_bytes_per_s(rtt_s: f64, t0_s: f64, b: f64, wmax_segments: f64, p: f64, mss_bytes: f64) -> f64 {
    tcp_throughput::PftkParams { rtt_s, t0_s, b, wmax_segments }.bytes_per_s(p, mss_bytes)
}

#[pyfunction]
fn model_lee_eq1_bytes_per_s(c: f64, mtu_bytes: f64, rtt_s: f64, b: f64, p: f64) -> f64 {
    tcp_throughput::lee_eq1_bytes_per_s(c, mtu_bytes, rtt_s, b, p)
}

/// Lee eq. 1 fitted for C over (throughput bytes/s, RTT s, p) observations:
/// (C, relative residual, mean |relative error|, n).
#[pyfunction]
fn model_fit_lee_c(obs: Vec<(f64, f64, f64)>, mtu_bytes: f64, b: f64) -> PyResult<(f64, f64, f64, usize)> {
    let obs: Vec<_> = obs
        .into_iter()
        .map(|(t, rtt, p)| tcp_throughput::ThroughputObservation { throughput_bytes_per_s: t, rtt_s: rtt, loss_p: p })
        .collect();
    let f = tcp_throughput::fit_lee_constant(&obs, mtu_bytes, b).map_err(PyValueError::new_err)?;
    Ok((f.c, f.rel_residual, f.mean_abs_rel_error, f.n))
}

/// (P, W_hi, W_lo, utilisation, throughput pkts/s, cycle s, mean queue pkts).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn model_reno_sawtooth(
    capacity_pkts_per_s: f64,
    prop_rtt_s: f64,
    buffer_pkts: f64,
) -> (f64, f64, f64, f64, f64, f64, f64) {
    let m = reno_buffer::RenoBottleneck { capacity_pkts_per_s, prop_rtt_s, buffer_pkts };
    (
        m.bdp_pkts(),
        m.w_max(),
        m.w_min(),
        m.utilisation(),
        m.throughput_pkts_per_s(),
        m.cycle_s(),
        m.mean_queue_pkts(),
    )
}

#[pyfunction]
fn model_mean_sojourn_slots(p_ii: f64) -> PyResult<f64> {
    markov::mean_sojourn_slots(p_ii).ok_or_else(|| PyValueError::new_err(format!("p_ii must be in [0, 1], got {p_ii}")))
}

#[pyfunction]
fn model_stationary_distribution(p: Vec<Vec<f64>>) -> PyResult<Vec<f64>> {
    markov::stationary_distribution(&p).map_err(PyValueError::new_err)
}

#[pyfunction]
fn model_jain_index(xs: Vec<f64>) -> PyResult<f64> {
    jain::jain_index(&xs).ok_or_else(|| {
        PyValueError::new_err("Jain's index needs at least one finite, non-negative value, not all zero")
    })
}

/// Dziong et al. §5.1.4: the largest RLP retransmission buffer, bytes.
#[pyfunction]
fn model_rlp_max_retransmission_buffer(rounds: u32, delay_s: f64, guard_s: f64, rate_bps: f64, window: f64) -> PyResult<f64> {
    rlp_buffer::validate(rounds, delay_s, guard_s, rate_bps, window).map_err(PyValueError::new_err)?;
    Ok(rlp_buffer::max_retransmission_buffer(rounds, delay_s, guard_s, rate_bps, window))
}

/// Sizes on the command line ('16kB', '1460B', '64KiB'), by the scenario rules.
#[pyfunction]
fn parse_size_bytes(text: &str) -> PyResult<u64> {
    cdmasim_core::scenario::units::parse_size(text).map_err(PyValueError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(model_fluid_loss, m)?)?;
    m.add_function(wrap_pyfunction!(model_mathis_bytes_per_s, m)?)?;
    m.add_function(wrap_pyfunction!(model_pftk_bytes_per_s, m)?)?;
    m.add_function(wrap_pyfunction!(model_lee_eq1_bytes_per_s, m)?)?;
    m.add_function(wrap_pyfunction!(model_fit_lee_c, m)?)?;
    m.add_function(wrap_pyfunction!(model_reno_sawtooth, m)?)?;
    m.add_function(wrap_pyfunction!(model_mean_sojourn_slots, m)?)?;
    m.add_function(wrap_pyfunction!(model_stationary_distribution, m)?)?;
    m.add_function(wrap_pyfunction!(model_jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(model_rlp_max_retransmission_buffer, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_bytes, m)?)?;
    Ok(())
}
