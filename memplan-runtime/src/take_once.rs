//! [`TakeOnce`]: a value in a `static`, handed out as `&'static mut` exactly once.

use core::cell::UnsafeCell;
use core::fmt;

/// A value in a `static` that [`take`](Self::take) hands out as `&'static mut` once: the
/// first call returns `Some`, every later call `None`, decided at run time.
///
/// Generated code keeps the plan's [`MemoryManager`](crate::MemoryManager) in one, so there
/// is exactly one `&'static mut` path to the plan's arenas:
///
/// ```
/// use memplan_runtime::TakeOnce;
///
/// static COUNTER: TakeOnce<u32> = TakeOnce::new(7);
///
/// let first = COUNTER.take().unwrap();
/// *first += 1;
/// assert_eq!(*first, 8);
/// assert!(COUNTER.take().is_none());
/// ```
///
/// The taken flag is set with one atomic swap or inside a critical section (see the crate
/// docs, "Take-once backends"), so `take` may race with itself from interrupt handlers and
/// other cores: exactly one caller gets the value. `TakeOnce<T>` is `Sync` when `T` is
/// `Send` (the value moves to whichever context takes it); a `!Send` value cannot be put in
/// a `static` this way:
///
/// ```compile_fail,E0277
/// use memplan_runtime::TakeOnce;
/// struct NotSend(*const u8);
/// static NO: TakeOnce<NotSend> = TakeOnce::new(NotSend(core::ptr::null()));
/// ```
///
/// The flag lives beside the value in the `TakeOnce` static itself, never in an arena's
/// link section (a flag in RAM that start-up code does not zero would read as garbage after
/// a reset).
pub struct TakeOnce<T> {
    taken: Flag,
    value: UnsafeCell<T>,
}

// SAFETY: the only access to `value` from a shared `&TakeOnce` is `take`, which the flag
// grants to exactly one caller, once; that caller gets `&mut T`, possibly on another thread
// or in an interrupt handler than the one that created the value, hence `T: Send`.
unsafe impl<T: Send> Sync for TakeOnce<T> {}

impl<T> TakeOnce<T> {
    /// A not-yet-taken value, for a `static` initializer.
    pub const fn new(value: T) -> Self {
        TakeOnce {
            taken: Flag::new(),
            value: UnsafeCell::new(value),
        }
    }

    /// The value, the first time; `None` ever after.
    ///
    /// Safe to call from any thread, interrupt handler or core at the same time as itself:
    /// exactly one call returns `Some`.
    // The `&mut` comes from `&self` by design: the flag makes this the only one ever.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn take(&'static self) -> Option<&'static mut T> {
        if self.taken.set() {
            None
        } else {
            // SAFETY: `set` returned `false` to this call only (an atomic swap, or a
            // read-and-write inside a critical section), so no other `&mut T` or `&T` to
            // the value exists now or ever will; `'static` because `self` is.
            Some(unsafe { &mut *self.value.get() })
        }
    }

    /// Whether the value has been taken.
    #[inline]
    pub fn is_taken(&self) -> bool {
        self.taken.get()
    }

    /// The value, through exclusive access to the `TakeOnce` itself (a `TakeOnce` that is
    /// not in a `static`, as in a test). Does not set the flag.
    #[inline]
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<T> fmt::Debug for TakeOnce<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TakeOnce")
            .field("taken", &self.is_taken())
            .finish_non_exhaustive()
    }
}

// ---- Take-once backends, chosen by feature (see the crate docs) --------------------------

#[cfg(feature = "critical-section")]
struct Flag(critical_section::Mutex<core::cell::Cell<bool>>);

#[cfg(feature = "critical-section")]
impl Flag {
    const fn new() -> Self {
        Flag(critical_section::Mutex::new(core::cell::Cell::new(false)))
    }

    /// Sets the flag; returns its previous value.
    #[inline]
    fn set(&self) -> bool {
        critical_section::with(|cs| self.0.borrow(cs).replace(true))
    }

    fn get(&self) -> bool {
        critical_section::with(|cs| self.0.borrow(cs).get())
    }
}

#[cfg(all(not(feature = "critical-section"), feature = "portable-atomic"))]
struct Flag(portable_atomic::AtomicBool);

#[cfg(all(not(feature = "critical-section"), feature = "portable-atomic"))]
impl Flag {
    const fn new() -> Self {
        Flag(portable_atomic::AtomicBool::new(false))
    }

    /// Sets the flag; returns its previous value.
    #[inline]
    fn set(&self) -> bool {
        self.0.swap(true, portable_atomic::Ordering::AcqRel)
    }

    fn get(&self) -> bool {
        self.0.load(portable_atomic::Ordering::Acquire)
    }
}

#[cfg(all(
    not(feature = "critical-section"),
    not(feature = "portable-atomic"),
    target_has_atomic = "8"
))]
struct Flag(core::sync::atomic::AtomicBool);

#[cfg(all(
    not(feature = "critical-section"),
    not(feature = "portable-atomic"),
    target_has_atomic = "8"
))]
impl Flag {
    const fn new() -> Self {
        Flag(core::sync::atomic::AtomicBool::new(false))
    }

    /// Sets the flag; returns its previous value.
    #[inline]
    fn set(&self) -> bool {
        self.0.swap(true, core::sync::atomic::Ordering::AcqRel)
    }

    fn get(&self) -> bool {
        self.0.load(core::sync::atomic::Ordering::Acquire)
    }
}

#[cfg(all(
    not(feature = "critical-section"),
    not(feature = "portable-atomic"),
    not(target_has_atomic = "8")
))]
compile_error!(
    "memplan-runtime: this target has no atomic compare-and-swap (thumbv6m, for example): \
     enable the feature `critical-section` (and link a critical-section implementation, such \
     as cortex-m's `critical-section-single-core`) or `portable-atomic` (configured for the \
     target, e.g. its `critical-section` or `unsafe-assume-single-core` feature)"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_take_some_then_none() {
        static VALUE: TakeOnce<[u8; 4]> = TakeOnce::new([1, 2, 3, 4]);
        assert!(!VALUE.is_taken());
        let v = VALUE.take().expect("first take");
        assert!(VALUE.is_taken());
        assert_eq!(*v, [1, 2, 3, 4]);
        v[0] = 9;
        assert!(VALUE.take().is_none());
        assert!(VALUE.take().is_none());
        assert_eq!(v[0], 9);
    }

    #[test]
    fn get_mut_does_not_take() {
        let mut local = TakeOnce::new(5u8);
        *local.get_mut() += 1;
        assert_eq!(*local.get_mut(), 6);
        assert!(!local.is_taken());
    }

    #[cfg(not(miri))]
    const THREADS: usize = 8;
    #[cfg(miri)]
    const THREADS: usize = 3;

    #[test]
    fn racing_threads_take_once() {
        extern crate std;
        use core::sync::atomic::{AtomicUsize, Ordering};
        static VALUE: TakeOnce<u64> = TakeOnce::new(0);
        static WINNERS: AtomicUsize = AtomicUsize::new(0);
        let handles: std::vec::Vec<_> = (0..THREADS)
            .map(|i| {
                std::thread::spawn(move || {
                    if let Some(v) = VALUE.take() {
                        *v = i as u64 + 100;
                        WINNERS.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(WINNERS.load(Ordering::Relaxed), 1);
        assert!(VALUE.is_taken());
    }
}
