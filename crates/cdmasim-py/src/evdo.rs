//! Bindings for cdmasim_core::evdo: the DRC table and the full-buffer
//! scheduler study. Conversion only; the study releases the GIL.

use cdmasim_core::channel::{self, presets};
use cdmasim_core::channel::drc::DRC_TABLE;
use cdmasim_core::evdo::scheduler::study::{self, HandoffPolicy};
use cdmasim_core::sched::pf::PfConfig;
use cdmasim_core::sched::SCHEDULERS;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// [(index, rate_bps, slots, packet_bits)] of C.S0024-A.
#[pyfunction]
fn evdo_drc_table() -> Vec<(u8, u64, u8, u32)> {
    DRC_TABLE.iter().map(|d| (d.index, d.rate_bps, d.slots, d.packet_bits)).collect()
}

/// Full-buffer study. `source`: a preset name, or trace paths in `traces`
/// (one per user; a single trace is shared with a random start slot per
/// user, as in Liu et al. section 6). Returns JSON with one result per
/// (scheduler, hand-off policy).
#[pyfunction]
#[pyo3(signature = (users, slots, seed, preset=None, traces=None, schedulers=None, alpha=0.001, interlace=0, handoff="both", handoff_interval_slots=None, format=None, mahimahi_window_ms=100, pf_initial_avg_bps=1.0))]
#[allow(clippy::too_many_arguments)]
fn evdo_schedule(
    py: Python<'_>,
    users: usize,
    slots: u64,
    seed: u64,
    preset: Option<&str>,
    traces: Option<Vec<String>>,
    schedulers: Option<Vec<String>>,
    alpha: f64,
    interlace: usize,
    handoff: &str,
    handoff_interval_slots: Option<(u64, u64)>,
    format: Option<&str>,
    mahimahi_window_ms: u32,
    pf_initial_avg_bps: f64,
) -> PyResult<String> {
    if !(pf_initial_avg_bps > 0.0 && pf_initial_avg_bps.is_finite()) {
        return Err(PyValueError::new_err(format!("pf initial average: {pf_initial_avg_bps} b/s must be positive")));
    }
    let scheds = schedulers.unwrap_or_else(|| vec!["pf".into(), "rr".into()]);
    for s in &scheds {
        if !SCHEDULERS.contains(&s.as_str()) {
            return Err(PyValueError::new_err(format!("scheduler: unknown '{s}' ({})", SCHEDULERS.join(", "))));
        }
    }
    let policies: Vec<HandoffPolicy> = match handoff {
        "keep" => vec![HandoffPolicy::Keep],
        "reset" => vec![HandoffPolicy::Reset],
        "both" => vec![HandoffPolicy::Keep, HandoffPolicy::Reset],
        h => return Err(PyValueError::new_err(format!("handoff: unknown '{h}' (keep, reset, both)"))),
    };
    if users == 0 || slots == 0 {
        return Err(PyValueError::new_err("users and slots must be positive"));
    }
    if users > study::MAX_USERS {
        return Err(PyValueError::new_err(format!("users: {users} is above {}", study::MAX_USERS)));
    }
    // Every user's channel is held for the whole run.
    channel::check_slots_in_memory((users as u64).saturating_mul(slots), "users x slots")
        .map_err(PyValueError::new_err)?;
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(PyValueError::new_err(format!("alpha: {alpha} not in (0, 1)")));
    }
    if !matches!(interlace, 0 | 1 | 4) {
        return Err(PyValueError::new_err("interlace: 0 (per-slot rates), 1 or 4"));
    }
    let fmt = match format {
        None | Some("auto") => None,
        Some(f) => Some(channel::Format::parse(f).ok_or_else(|| PyValueError::new_err(format!("format: unknown '{f}'")))?),
    };
    // Ctrl-C stops drawing the channels or the slot loop; the partial work is dropped.
    let out = crate::interrupt::allow_threads_interruptible(py, || -> Result<String, String> {
        let mut ch = match (preset, &traces) {
            (Some(p), None) => study::preset_channels(p, users, slots, seed)
                .ok_or_else(|| format!("preset: unknown '{p}' ({})", presets::PRESETS.join(", ")))?,
            (None, Some(paths)) if !paths.is_empty() => {
                let ts: Vec<std::sync::Arc<channel::DrcTrace>> = paths
                    .iter()
                    .map(|p| channel::read_trace(p, fmt, mahimahi_window_ms).map(std::sync::Arc::new))
                    .collect::<Result<_, _>>()
                    .map_err(|e| e.to_string())?;
                study::trace_channels(&ts, users, slots, seed)
            }
            _ => return Err("give either a preset or trace files".into()),
        };
        if let Some((lo, hi)) = handoff_interval_slots {
            ch.add_synthetic_handoffs(lo, hi, seed);
        }
        let mut results = Vec::new();
        for s in &scheds {
            for &p in &policies {
                // RR and max C/I keep no per-user state: one run covers both policies.
                if p == HandoffPolicy::Reset && s != "pf" {
                    continue;
                }
                let pf = PfConfig { alpha, initial_avg_bps: pf_initial_avg_bps };
                let r = study::run(&ch, s, &pf, interlace, p).expect("known scheduler");
                results.push(serde_json::json!({"handoff": p, "result": r}));
            }
        }
        Ok(serde_json::to_string(&serde_json::json!({
            "users": users, "slots": ch.slots, "seed": seed, "alpha": alpha, "interlace": interlace,
            "pf_initial_avg_bps": pf_initial_avg_bps,
            "handoffs_per_user": ch.handoffs.iter().map(|h| h.len()).collect::<Vec<_>>(),
            "runs": results,
        }))
        .unwrap())
    })?;
    out.map_err(PyValueError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MAX_STUDY_USERS", study::MAX_USERS)?;
    m.add_function(wrap_pyfunction!(evdo_drc_table, m)?)?;
    m.add_function(wrap_pyfunction!(evdo_schedule, m)?)?;
    Ok(())
}
