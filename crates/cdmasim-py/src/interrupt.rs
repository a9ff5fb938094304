//! Ctrl-C for long core loops run with the GIL released: the core's
//! `engine::interrupt` check, installed here, looks at Python's signals at
//! most every 0.2 s (from the same, main, thread: that is where Python
//! runs its signal handlers) and stops the loop; the pending exception
//! (KeyboardInterrupt) is then raised instead of a result.

use cdmasim_core::engine::interrupt;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_millis(200);

/// Run `work` with the GIL released, stoppable by Ctrl-C.
pub fn allow_threads_interruptible<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    let pending: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
    let sink = Arc::clone(&pending);
    let out = py.allow_threads(move || {
        let mut last = Instant::now();
        let guard = interrupt::install(move || {
            if last.elapsed() < EVERY {
                return false;
            }
            last = Instant::now();
            match Python::with_gil(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    *sink.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    true
                }
            }
        });
        let out = work();
        (out, guard.stopped())
    });
    let raised = pending.lock().unwrap_or_else(|p| p.into_inner()).take();
    match (out, raised) {
        (_, Some(e)) => Err(e),
        ((out, false), None) => Ok(out),
        ((_, true), None) => Err(pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")),
    }
}
