//! Stopping long loops from outside (Ctrl-C in the Python front): a caller
//! installs a check for the current thread; loops that can run for minutes
//! (`channel::collect`, the full-buffer scheduler study) call `requested()`
//! between chunks of work and stop early when it says so. The caller then
//! discards the partial result. Without a check installed, `requested()` is
//! always false: the core stays free of any notion of signals.

use std::cell::{Cell, RefCell};

type Check = Box<dyn FnMut() -> bool>;

thread_local! {
    static CHECK: RefCell<Option<Check>> = const { RefCell::new(None) };
    static HIT: Cell<bool> = const { Cell::new(false) };
}

/// Whether the work should stop now (once true, true until the guard goes).
pub fn requested() -> bool {
    if HIT.get() {
        return true;
    }
    let stop = CHECK.with(|c| c.borrow_mut().as_mut().is_some_and(|f| f()));
    if stop {
        HIT.set(true);
    }
    stop
}

/// The installed check stays until the guard is dropped.
pub struct Guard(());

impl Guard {
    /// Whether the work was stopped.
    pub fn stopped(&self) -> bool {
        HIT.get()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        CHECK.with(|c| *c.borrow_mut() = None);
        HIT.set(false);
    }
}

/// Install `check` (true: stop) for loops run on this thread.
pub fn install(check: impl FnMut() -> bool + 'static) -> Guard {
    CHECK.with(|c| *c.borrow_mut() = Some(Box::new(check)));
    HIT.set(false);
    Guard(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_is_per_guard() {
        assert!(!requested());
        {
            let mut n = 0;
            let g = install(move || {
                n += 1;
                n >= 3
            });
            assert!(!requested() && !requested());
            assert!(requested() && requested() && g.stopped());
        }
        assert!(!requested(), "the guard removed the check");
    }
}
