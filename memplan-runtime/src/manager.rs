//! [`MemoryManager`]: the four allocators of ExecuTorch's original
//! `runtime/executor/memory_manager.h`.

use core::fmt;

use crate::plan::{Plan, Untyped};
use crate::steps::{LiveBuffers, Schedule, StepOf, View, Walk, Walked};
use crate::{HierarchicalAllocator, MemoryAllocator};

/// The memory of one program, as ExecuTorch's original `MemoryManager`: four allocators,
/// owned.
///
/// | allocator | ExecuTorch | what it holds |
/// |---|---|---|
/// | [`constant`](Self::constant) | constant allocator | data fixed after load |
/// | [`planned`](Self::planned) | non-constant (`HierarchicalAllocator`) | planned buffers at planned offsets |
/// | [`runtime`](Self::runtime) | runtime allocator | objects that live as long as the program |
/// | [`temp`](Self::temp) | kernel-temporary allocator | scratch of one kernel, reset after it |
///
/// The manager owns each allocator, and each allocator exclusively borrows its own bytes,
/// so the runtime and kernel-temporary allocators are distinct objects over distinct memory
/// by construction (current ExecuTorch checks this at run time).
/// [`with_temp`](Self::with_temp) resets the kernel-temporary pool around a closure, and the
/// borrow checker keeps every temporary allocation inside it:
///
/// ```compile_fail,E0521
/// use core::mem::MaybeUninit;
/// use memplan_runtime::{HierarchicalAllocator, MemoryAllocator, MemoryManager};
///
/// let mut t = [MaybeUninit::<u8>::uninit(); 64];
/// let mut manager = MemoryManager::new(
///     MemoryAllocator::empty(),
///     HierarchicalAllocator::new(&mut []),
///     MemoryAllocator::empty(),
///     MemoryAllocator::new(&mut t),
/// );
/// let mut leaked = None;
/// manager.with_temp(|temp| leaked = Some(temp.allocate_instance::<u32>().unwrap()));
/// ```
///
/// The manager is `Send` (move it to the context that runs the program) and not `Sync`:
///
/// ```compile_fail,E0277
/// fn shared<T: Sync>() {}
/// shared::<memplan_runtime::MemoryManager<'static>>();
/// ```
pub struct MemoryManager<'a, P: Plan = Untyped> {
    constant: MemoryAllocator<'a>,
    planned: HierarchicalAllocator<'a, P>,
    runtime: MemoryAllocator<'a>,
    temp: MemoryAllocator<'a>,
    /// The step last opened (`debug-canary`: poisons and canaries follow it).
    #[cfg(feature = "debug-canary")]
    step: Option<u32>,
}

static_assertions::assert_impl_all!(MemoryManager<'static>: Send);
static_assertions::assert_not_impl_any!(MemoryManager<'static>: Sync, Clone);

/// Exclusive borrows of all four allocators at once, from [`MemoryManager::parts`], so a
/// kernel can use planned buffers and the temp pool together.
#[derive(Debug)]
#[non_exhaustive]
pub struct Parts<'m, 'a, P: Plan = Untyped> {
    /// Constant allocator.
    pub constant: &'m mut MemoryAllocator<'a>,
    /// Planned (non-constant) memory.
    pub planned: &'m mut HierarchicalAllocator<'a, P>,
    /// Runtime allocator.
    pub runtime: &'m mut MemoryAllocator<'a>,
    /// Kernel-temporary allocator.
    pub temp: &'m mut MemoryAllocator<'a>,
}

impl<'a, P: Plan> MemoryManager<'a, P> {
    /// A manager of four allocators, in ExecuTorch's original order: constant, planned
    /// (non-constant), runtime, kernel-temporary.
    pub const fn new(
        constant: MemoryAllocator<'a>,
        planned: HierarchicalAllocator<'a, P>,
        runtime: MemoryAllocator<'a>,
        temp: MemoryAllocator<'a>,
    ) -> Self {
        MemoryManager {
            constant,
            planned,
            runtime,
            temp,
            #[cfg(feature = "debug-canary")]
            step: None,
        }
    }

    /// The constant allocator.
    #[inline]
    pub const fn constant(&self) -> &MemoryAllocator<'a> {
        &self.constant
    }

    /// The constant allocator, exclusively (to reset it).
    #[inline]
    pub const fn constant_mut(&mut self) -> &mut MemoryAllocator<'a> {
        &mut self.constant
    }

    /// The planned (non-constant) memory: one buffer per memory id.
    #[inline]
    pub const fn planned(&self) -> &HierarchicalAllocator<'a, P> {
        &self.planned
    }

    /// The runtime allocator.
    #[inline]
    pub const fn runtime(&self) -> &MemoryAllocator<'a> {
        &self.runtime
    }

    /// The runtime allocator, exclusively (to reset it).
    #[inline]
    pub const fn runtime_mut(&mut self) -> &mut MemoryAllocator<'a> {
        &mut self.runtime
    }

    /// The kernel-temporary allocator, for code that resets it by hand as ExecuTorch does.
    /// Prefer [`with_temp`](Self::with_temp).
    #[inline]
    pub const fn temp(&self) -> &MemoryAllocator<'a> {
        &self.temp
    }

    /// The kernel-temporary allocator, exclusively (to reset it).
    #[inline]
    pub const fn temp_mut(&mut self) -> &mut MemoryAllocator<'a> {
        &mut self.temp
    }

    /// Runs `f` with the kernel-temporary pool, reset before `f` (so `f` starts with the
    /// whole pool, even after allocations made outside) and after it (so nothing `f`
    /// allocated outlives it; the borrow checker rejects any escape).
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// use memplan_runtime::{HierarchicalAllocator, MemoryAllocator, MemoryManager};
    ///
    /// #[repr(align(4))]
    /// struct Pool([MaybeUninit<u8>; 256]);
    ///
    /// let mut t = Pool([MaybeUninit::uninit(); 256]);
    /// let mut manager = MemoryManager::new(
    ///     MemoryAllocator::empty(),
    ///     HierarchicalAllocator::new(&mut []),
    ///     MemoryAllocator::empty(),
    ///     MemoryAllocator::new(&mut t.0),
    /// );
    /// let sum = manager.with_temp(|temp| {
    ///     let scratch = temp.allocate_list::<u32>(64).unwrap();
    ///     for (i, x) in scratch.iter_mut().enumerate() {
    ///         x.write(i as u32);
    ///     }
    ///     // SAFETY: every element was written above.
    ///     scratch.iter().map(|x| unsafe { x.assume_init() }).sum::<u32>()
    /// });
    /// assert_eq!(sum, 63 * 64 / 2);
    /// assert_eq!(manager.temp().used(), 0);
    /// assert_eq!(manager.temp().high_water(), 256);
    /// ```
    pub fn with_temp<R>(&mut self, f: impl FnOnce(&MemoryAllocator<'a>) -> R) -> R {
        self.temp.scoped(f)
    }

    /// All four allocators at once, exclusively borrowed.
    #[inline]
    pub const fn parts(&mut self) -> Parts<'_, 'a, P> {
        Parts {
            constant: &mut self.constant,
            planned: &mut self.planned,
            runtime: &mut self.runtime,
            temp: &mut self.temp,
        }
    }

    /// The four allocators, by value: (constant, planned, runtime, kernel-temporary).
    pub fn into_parts(
        self,
    ) -> (
        MemoryAllocator<'a>,
        HierarchicalAllocator<'a, P>,
        MemoryAllocator<'a>,
        MemoryAllocator<'a>,
    ) {
        (self.constant, self.planned, self.runtime, self.temp)
    }
}

impl<'a, P: Schedule> MemoryManager<'a, P> {
    /// The plan's steps in order, from step 0: the ordinary way to run a plan, which opens
    /// its steps only in order (see [`Walk`]).
    #[inline(always)]
    pub fn walk(&mut self) -> Walk<'_, 'a, P::First>
    where
        P: Walked,
    {
        Walk::new(self)
    }

    /// The buffers live at step `T`, as references (the view `memory_plan!` generates for
    /// that step: one field per live buffer), and the kernel-temporary pool, in any order:
    /// the compiler does not check that steps are opened in order ([`walk`](Self::walk)
    /// does); with `debug-canary`, the run time does, naming both steps.
    ///
    /// The view borrows the manager, so it ends before another step is opened; a buffer not
    /// live at `T` has no field in it. See [`crate::steps`].
    ///
    /// ```ignore
    /// let (s, temp) = manager.step_any_order::<1>();
    /// temp.scoped(|temp| dense(s.input, temp.allocate_value([0i32; 32])?, s.fc1));
    /// ```
    ///
    /// # Panics
    ///
    /// With `debug-canary`: if a buffer that ends before `T` wrote past its end, or `T` is
    /// not the step after the last one begun (see [`begin_step`](Self::begin_step)).
    #[inline(always)]
    pub fn step_any_order<const T: u32>(
        &mut self,
    ) -> (<P as StepOf<T>>::View<'_>, &mut MemoryAllocator<'a>)
    where
        P: StepOf<T>,
    {
        self.open::<<P as StepOf<T>>::View<'_>>(T)
    }

    /// Begins `step` and opens view `V`, which must be `P`'s view of `step`.
    #[inline(always)]
    pub(crate) fn open<'s, V: View<'s>>(
        &'s mut self,
        step: u32,
    ) -> (V, &'s mut MemoryAllocator<'a>) {
        self.begin_step(step);
        let spans = self.planned.spans();
        // The spans belong to this allocator, typed for `P` (checked when it was built);
        // raw pointers from `planned()` are their user's `unsafe` business.
        // SAFETY: `&mut self` lends the spans' bytes to the view alone for its lifetime, and
        // `V` is `P`'s view of `step` (the callers take it from `StepOf` or `Step`).
        let view = unsafe { V::open(spans) };
        (view, &mut self.temp)
    }

    /// The buffers live at `step`, each once, as byte slices: the generic path, for code
    /// that walks any plan. An in-place pair at its handover step comes as one entry (see
    /// [`Live::handover_from`](crate::Live::handover_from)).
    ///
    /// # Panics
    ///
    /// As [`step_any_order`](Self::step_any_order).
    pub fn live_at(&mut self, step: u32) -> LiveBuffers<'_, P> {
        self.begin_step(step);
        // SAFETY: as in `open`: typed spans, lent exclusively while the iterator lives.
        unsafe { LiveBuffers::new(self.planned.spans(), step) }
    }

    /// Tells the manager that `step` begins. [`walk`](Self::walk),
    /// [`step_any_order`](Self::step_any_order) and [`live_at`](Self::live_at) call it;
    /// code that reaches buffers through raw pointers calls it itself. Without
    /// `debug-canary` it does nothing.
    ///
    /// With `debug-canary`: `step` must follow the step begun last (the next one, or step 0
    /// after the plan's last step, or the same one again; the first step begun must be
    /// step 0); the bytes of every buffer that starts at `step` (live now, not at
    /// the step before) are poisoned (`0xA5`) and a canary is written in the
    /// [`CANARY_BYTES`](crate::steps::CANARY_BYTES) after it; the canary of every buffer that
    /// ended is checked. In-place pairs at their handover keep their bytes.
    ///
    /// # Panics
    ///
    /// With `debug-canary`, naming the buffer and the step, when a buffer's canary changed
    /// (something wrote past its end); naming both steps, when `step` does not follow the
    /// step begun last.
    #[inline(always)]
    pub fn begin_step(&mut self, step: u32) {
        #[cfg(feature = "debug-canary")]
        self.canary_step(step);
        let _ = step;
    }

    #[cfg(feature = "debug-canary")]
    fn canary_step(&mut self, step: u32) {
        let last = P::BUFFERS.iter().map(|b| b.last).max().unwrap_or(0);
        let follows = match self.step {
            None => step == 0,
            Some(p) => step == p || Some(step) == p.checked_add(1) || (p == last && step == 0),
        };
        if !follows {
            match self.step {
                Some(p) => panic!(
                    "memplan: step {step} begun after step {p}: a plan's steps run in order (step {} next)",
                    if p == last { 0 } else { p + 1 }
                ),
                None => panic!(
                    "memplan: step {step} begun first: a plan's steps run in order, from step 0"
                ),
            }
        }
        let prev = self.step.replace(step);
        // Every canary of a buffer that ended is checked before any buffer that starts is
        // poisoned: a buffer that starts may reuse the bytes of one that ended, its canary
        // included (at any step, and when the walk wraps from the last step to step 0).
        for ending in [true, false] {
            for b in P::BUFFERS {
                let now = b.is_live_at(step);
                let before = prev.is_some_and(|p| b.is_live_at(p));
                if now == before || now == ending {
                    continue;
                }
                let handover = b.handed_over_to.is_some()
                    || b.in_place_of
                        .and_then(|s| P::BUFFERS.get(s))
                        .is_some_and(|s| s.last == b.first);
                if handover {
                    continue;
                }
                let Ok(base) =
                    self.planned
                        .get_offset_address(b.memory_id, b.offset, b.size + P::CANARY)
                else {
                    continue;
                };
                // SAFETY: in bounds (checked just now); `&mut self` holds no view or live
                // set, so nothing else refers to these bytes.
                let bytes =
                    unsafe { core::slice::from_raw_parts_mut(base.as_ptr(), b.size + P::CANARY) };
                let (data, canary) = bytes.split_at_mut(b.size);
                if now {
                    data.fill(0xA5);
                    canary.fill(0xC5);
                } else if canary.iter().any(|&c| c != 0xC5) {
                    panic!(
                        "memplan: buffer `{}` (live {}..={}) wrote past its end: its canary changed by step {}",
                        b.name, b.first, b.last, step
                    );
                }
            }
        }
    }

    /// The planned buffer `B`, as [`HierarchicalAllocator::buffer`], checked against the
    /// step last begun ([`begin_step`](Self::begin_step), [`step_any_order`](Self::step_any_order),
    /// [`live_at`](Self::live_at)).
    ///
    /// # Panics
    ///
    /// When no step has begun, or `B` is not live at it, naming the buffer and the step.
    #[cfg(feature = "debug-canary")]
    pub fn checked_buffer<B>(&self) -> core::ptr::NonNull<B::Elem>
    where
        B: crate::PlannedBuffer,
        B::Region: crate::MemoryId<Plan = P>,
    {
        match self.step {
            Some(t) if B::FIRST <= t && t <= B::LAST => self.planned.buffer::<B>(),
            Some(t) => panic!(
                "memplan: buffer `{}` (live {}..={}) used at step {}",
                B::NAME,
                B::FIRST,
                B::LAST,
                t
            ),
            None => panic!(
                "memplan: buffer `{}` (live {}..={}) used before any step began",
                B::NAME,
                B::FIRST,
                B::LAST
            ),
        }
    }
}

impl<P: Plan> fmt::Debug for MemoryManager<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryManager")
            .field("constant", &self.constant)
            .field("planned", &self.planned)
            .field("runtime", &self.runtime)
            .field("temp", &self.temp)
            .finish()
    }
}
