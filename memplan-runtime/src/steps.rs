//! Safe per-step access to planned buffers: the buffers live at a step, as references,
//! borrowed from the manager so that two steps' views never coexist.
//!
//! `memory_plan!` knows at compile time which buffers are live at each step, and its plan
//! proves that those share no byte. It generates, for each step `T`, a view type with one
//! field per buffer live at `T` (`&mut [T; N]`), and implements [`StepOf<T>`] for the plan;
//! [`MemoryManager::walk`](crate::MemoryManager::walk) opens them in order, and
//! [`MemoryManager::step_any_order`](crate::MemoryManager::step_any_order) one at a time:
//!
//! ```ignore
//! let (s, temp) = manager.step_any_order::<1>();      // the buffers live at step 1, and the temp pool
//! dense(s.input, weights, temp, s.fc1);      // `s.pixels` does not exist: dead at step 1
//! let (s, _) = manager.step_any_order::<2>();          // `s` of step 1 can no longer be used
//! ```
//!
//! - A buffer not live at a step has no field in that step's view: code that uses a buffer
//!   outside its declared lifetime does not compile. Each field also has an accessor of the
//!   same name (`s.fc1()`, the field borrowed for one call); calling a buffer's accessor on
//!   a view of a step where it is not live is an error that says its lifetime and where it
//!   is declared (``buffer `fc1` is not in this step's view: it is live 2..=3``, with a note
//!   pointing at the declaration); the field there is rustc's "attempted to take value of
//!   method", whose suggested fix, the accessor, gives that error.
//! - The view borrows the manager mutably, so a second view (of any step), or a reference
//!   kept from a view after the next one is opened, does not compile.
//! - An in-place pair at its handover step (the step where `out` takes over `inp`'s bytes,
//!   `inp`'s last and `out`'s first) shares bytes by design: that step's view has one
//!   field for the pair, an [`InPlace`], named after `out`, whose [`input`](InPlace::input)
//!   and [`output`](InPlace::output) borrow it exclusively, one at a time. A chain that
//!   hands over twice at one step (`b` in place of `a`, `c` in place of `b`, all three live
//!   there) has one field too, named after `c`, with `a`'s bytes as its input; `b` has no
//!   field at that step.
//! - Opening a view is the regions' base addresses plus constant offsets: no run-time
//!   check and no copy (`.ci/runtime-checks.sh` checks the instructions).
//!
//! Code that walks any plan (the main job walks six models of hundreds of steps) uses
//! [`MemoryManager::live_at`](crate::MemoryManager::live_at), which yields the buffers live
//! at a step with their bytes ([`LiveBytes`]: initialised, or `MaybeUninit` in a region that
//! says `uninit`), for the same reason sound.
//!
//! With the feature `debug-canary`, opening a step poisons the bytes of the buffers that
//! start there and checks a canary after each buffer when it ends (the macro then plans
//! [`CANARY_BYTES`] of guard after every buffer), and
//! `MemoryManager::checked_buffer` is a raw accessor that panics when a buffer is used
//! outside its lifetime.

use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr::NonNull;

use crate::hierarchical::Span;
use crate::plan::{BufferInfo, Plan};

/// Bytes of guard the macro plans after every buffer with the feature `debug-canary`
/// (0 without it), where the canary is written.
pub const CANARY_BYTES: usize = if cfg!(feature = "debug-canary") {
    16
} else {
    0
};

/// The schedule of a plan: every buffer with its region, offset, size and lifetime, and
/// its in-place links.
///
/// # Safety
///
/// Implemented by `memory_plan!` for plans its validator accepted. An implementation
/// promises, for the plan's regions ([`Plan::REGION_INFO`]): every buffer of
/// [`BUFFERS`](Schedule::BUFFERS) lies inside its region's planned bytes (plus
/// [`CANARY`](Schedule::CANARY) bytes after it); two buffers live at a common step share
/// no byte, unless one is in place of the other (directly or along a chain), and then
/// only at the step where one's lifetime ends and the next one's starts; `in_place_of` and
/// `handed_over_to` name those links; and its [`View`] types are sound for it.
pub unsafe trait Schedule: Plan {
    /// Every buffer, in declaration order.
    const BUFFERS: &'static [BufferInfo];
    /// Guard bytes planned after every buffer ([`CANARY_BYTES`] when the plan was made with
    /// `debug-canary`).
    const CANARY: usize = 0;
}

/// A view of the buffers live at one step: `memory_plan!` generates one struct per
/// distinct set of live buffers.
///
/// # Safety
///
/// [`open`](View::open) must build references that are in bounds, aligned, initialised
/// (plain data over zeroed or written bytes, or `MaybeUninit`) and pairwise disjoint.
pub unsafe trait View<'v>: Sized {
    /// Builds the view over the plan's region spans.
    ///
    /// # Safety
    ///
    /// `spans` are the spans of an allocator typed for the view's plan (checked against it
    /// when built), and their bytes are lent to the view, exclusively, for `'v`.
    unsafe fn open(spans: &[Span<'_>]) -> Self;
}

/// Step `T` of a plan: which [`View`] holds the buffers live at `T`. `memory_plan!`
/// implements it for every step of a plan (see its documentation for the limits).
///
/// # Safety
///
/// The view chosen must be one generated for this plan's step `T`: its [`View::open`]
/// reads this plan's spans, and a view of another plan (or another step) would give
/// references outside the bytes lent or to buffers not live at `T`. Only `memory_plan!`
/// implements it; safe code cannot choose another plan's view for a plan:
///
/// ```compile_fail,E0200
/// use memplan_runtime::{StepOf, memory_plan};
///
/// memory_plan! { mod small { region r: 64 bytes; buffer a: 64 bytes in r, live 0..=0; } }
/// memory_plan! { mod big { region r: 4 KiB; buffer b: 4 KiB in r, live 0..=0; } }
///
/// // error[E0200]: the trait `StepOf<7>` requires an `unsafe impl` declaration
/// impl StepOf<7> for small::Plan {
///     type View<'v> = big::AtStep0<'v>;
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "the plan has no step {T}",
    label = "no buffer of this plan is live at step {T}",
    note = "a plan's steps run from 0 to the last step of its buffers (a very long plan has no step views: walk its steps with `live_at`)"
)]
pub unsafe trait StepOf<const T: u32>: Schedule {
    /// The view of step `T`.
    type View<'v>: View<'v>;
}

/// One step of a plan, as a type: which step it is, the view of the buffers live there,
/// and the step after it (the last step's is step 0: a plan's steps run again and again, one
/// inference after another). `memory_plan!` implements it for a type per step
/// (`PLAN::steps::S0`, `S1`, ...), so that [`Walk`] hands out the steps in order.
///
/// # Safety
///
/// `View` must be the plan's view of step `STEP` (as [`StepOf<STEP>`] chooses it) and
/// `Next` the type of the step after it; only `memory_plan!` implements it.
pub unsafe trait Step: 'static {
    /// The plan.
    type Plan: Schedule;
    /// The step's number.
    const STEP: u32;
    /// The step after this one (step 0 after the last).
    type Next: Step<Plan = Self::Plan>;
    /// The view of the buffers live at this step.
    type View<'v>: View<'v>;
}

/// A plan whose steps can be walked in order: its first step's type. `memory_plan!`
/// implements it for plans with step views: at most 4,096 steps whose distinct views hold
/// at most 65,536 fields in all. A longer plan has no step views and no `walk()` (rustc
/// then says the plan does not satisfy `Walked`): reach its buffers at step `t` with
/// [`MemoryManager::live_at`](crate::MemoryManager::live_at).
///
/// # Safety
///
/// `First` must be the plan's step 0.
#[diagnostic::on_unimplemented(
    message = "the steps of `{Self}` cannot be walked: the plan has no step views",
    label = "this plan has no step views",
    note = "`memory_plan!` emits step views for plans of at most 4,096 steps whose distinct views hold at most 65,536 fields in all; walk a longer plan's steps with `manager.live_at(t)`"
)]
pub unsafe trait Walked: Schedule {
    /// Step 0.
    type First: Step<Plan = Self>;
}

/// The plan's steps in order, one at a time: a walk is at one step, whose view
/// [`view`](Walk::view) opens, and [`next`](Walk::next) consumes it to give the next step's
/// walk (step 0's after the last). So code that opens the steps out of order does not
/// compile: there is no way to step 6 but through step 5.
///
/// ```ignore
/// let mut step = manager.walk();              // step 0
/// let (s, _) = step.view();
/// s.input.copy_from_slice(&samples);
/// let mut step = step.next();                 // step 1: step 0's view is gone
/// let (s, temp) = step.view();
/// dense(s.input, weights, temp, s.fc1);
/// ```
pub struct Walk<'m, 'a, S: Step> {
    manager: &'m mut crate::MemoryManager<'a, S::Plan>,
    _step: PhantomData<fn() -> S>,
}

impl<'m, 'a, S: Step> Walk<'m, 'a, S> {
    pub(crate) fn new(manager: &'m mut crate::MemoryManager<'a, S::Plan>) -> Self {
        Walk {
            manager,
            _step: PhantomData,
        }
    }

    /// The step this walk is at.
    pub const fn step(&self) -> u32 {
        S::STEP
    }

    /// The buffers live at this step, as references, and the kernel-temporary pool (as
    /// [`MemoryManager::step_any_order`](crate::MemoryManager::step_any_order) gives them).
    ///
    /// # Panics
    ///
    /// With `debug-canary`: if a buffer that ended before this step wrote past its end.
    #[inline(always)]
    pub fn view(&mut self) -> (S::View<'_>, &mut crate::MemoryAllocator<'a>) {
        self.manager.open::<S::View<'_>>(S::STEP)
    }

    /// The next step's walk (step 0's after the last step).
    #[inline(always)]
    pub fn next(self) -> Walk<'m, 'a, S::Next> {
        Walk::new(self.manager)
    }
}

impl<S: Step> core::fmt::Debug for Walk<'_, '_, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Walk").field("step", &S::STEP).finish()
    }
}

/// The two buffers of an in-place pair at its handover step, where they share bytes: one
/// field of the step's view. `I` is the source's element array (`[T; N]`), `O` the
/// in-place buffer's; [`input`](InPlace::input) and [`output`](InPlace::output) borrow the
/// shared bytes exclusively, so the two are never held at once:
///
/// ```compile_fail,E0499
/// # use memplan_runtime::InPlace;
/// fn both(mut pair: InPlace<'_, [i8; 4], [i8; 4]>) {
///     let inp = pair.input();
///     let out = pair.output(); // error: `pair` is already borrowed by `inp`
///     out[0] = inp[0];
/// }
/// ```
pub struct InPlace<'v, I, O> {
    base: NonNull<u8>,
    _shared: PhantomData<(&'v mut I, &'v mut O)>,
}

impl<'v, I, O> InPlace<'v, I, O> {
    /// The pair over the shared bytes at `base`.
    ///
    /// # Safety
    ///
    /// `base` must be valid for reads and writes of `size_of::<I>()` and of
    /// `size_of::<O>()` bytes, aligned for both, initialised for both, and lent exclusively
    /// for `'v`.
    #[doc(hidden)]
    pub const unsafe fn new(base: NonNull<u8>) -> Self {
        InPlace {
            base,
            _shared: PhantomData,
        }
    }

    /// The source's bytes, as the source's type (what the previous step wrote).
    #[inline(always)]
    pub fn input(&mut self) -> &mut I {
        // SAFETY: `new`'s contract: valid, aligned and initialised for `I`, lent to us for
        // `'v`; `&mut self` makes this the only reference for its lifetime.
        unsafe { &mut *self.base.as_ptr().cast::<I>() }
    }

    /// The in-place buffer's bytes, as its type (the same bytes).
    #[inline(always)]
    pub fn output(&mut self) -> &mut O {
        // SAFETY: as in `input`, for `O`.
        unsafe { &mut *self.base.as_ptr().cast::<O>() }
    }
}

impl<I, O> core::fmt::Debug for InPlace<'_, I, O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InPlace").field("base", &self.base).finish()
    }
}

/// One buffer live at a step, from [`MemoryManager::live_at`](crate::MemoryManager::live_at).
#[derive(Debug)]
pub struct Live<'v> {
    /// The buffer.
    pub info: &'static BufferInfo,
    /// Its bytes: initialised for a buffer of a zeroed region, `MaybeUninit` for one of a
    /// region that says `uninit`.
    pub bytes: LiveBytes<'v>,
    /// At an in-place handover step: the buffer whose bytes this one takes over, live at
    /// this step too. Its bytes begin where `bytes` begin (it is not yielded on its own).
    pub handover_from: Option<&'static BufferInfo>,
}

/// The bytes of a [`Live`] buffer, typed by its region: a region whose bytes are zeroed
/// before use gives initialised bytes; a region that says `uninit` gives bytes that may be
/// uninitialised, which safe code can write but not read.
#[derive(Debug)]
pub enum LiveBytes<'v> {
    /// A buffer of a zeroed region: its bytes, initialised (plain data reads them as
    /// whatever was written last, zeros at first).
    Init(&'v mut [u8]),
    /// A buffer of a region that says `uninit`: its bytes, perhaps uninitialised.
    Uninit(&'v mut [MaybeUninit<u8>]),
}

impl<'v> LiveBytes<'v> {
    /// The initialised bytes, for the whole of `'v`; `None` for a buffer of a region that
    /// says `uninit`.
    pub fn into_init(self) -> Option<&'v mut [u8]> {
        match self {
            LiveBytes::Init(b) => Some(b),
            LiveBytes::Uninit(_) => None,
        }
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        match self {
            LiveBytes::Init(b) => b.len(),
            LiveBytes::Uninit(b) => b.len(),
        }
    }

    /// Whether the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The initialised bytes; `None` for a buffer of a region that says `uninit`.
    pub fn init(&mut self) -> Option<&mut [u8]> {
        match self {
            LiveBytes::Init(b) => Some(b),
            LiveBytes::Uninit(_) => None,
        }
    }

    /// Writes `byte` to every byte of the buffer (either kind) and returns the bytes,
    /// initialised.
    pub fn fill(&mut self, byte: u8) -> &mut [u8] {
        match self {
            LiveBytes::Init(b) => {
                b.fill(byte);
                b
            }
            LiveBytes::Uninit(b) => {
                b.fill(MaybeUninit::new(byte));
                // SAFETY: every byte was written just above, and `MaybeUninit<u8>` has the
                // layout of `u8`; the slice borrows `self`, so no `MaybeUninit` write can
                // de-initialise it while it is alive.
                unsafe { &mut *(core::ptr::from_mut::<[MaybeUninit<u8>]>(b) as *mut [u8]) }
            }
        }
    }
}

/// The buffers live at one step, each once (an in-place pair at its handover step as one
/// [`Live`]); from [`MemoryManager::live_at`](crate::MemoryManager::live_at).
pub struct LiveBuffers<'v, P: Schedule> {
    step: u32,
    next: usize,
    spans: &'v [Span<'v>],
    _plan: PhantomData<fn(P) -> P>,
}

impl<'v, P: Schedule> LiveBuffers<'v, P> {
    /// # Safety
    ///
    /// `spans` are the spans of an allocator typed for `P`, lent exclusively for `'v`.
    pub(crate) unsafe fn new(spans: &'v [Span<'v>], step: u32) -> Self {
        LiveBuffers {
            step,
            next: 0,
            spans,
            _plan: PhantomData,
        }
    }
}

impl<'v, P: Schedule> Iterator for LiveBuffers<'v, P> {
    type Item = Live<'v>;

    fn next(&mut self) -> Option<Live<'v>> {
        let t = self.step;
        while let Some(info) = P::BUFFERS.get(self.next) {
            self.next += 1;
            if !info.is_live_at(t) {
                continue;
            }
            // A source at the step it hands over: yielded with its successor.
            if info.last == t && info.handed_over_to.is_some() {
                continue;
            }
            let handover_from = info
                .in_place_of
                .and_then(|s| P::BUFFERS.get(s))
                .filter(|s| s.last == t);
            let span = self.spans.get(info.memory_id as usize)?;
            if info.offset > span.len() || info.size > span.len() - info.offset {
                // Not a plan the schedule's contract allows; never the macro's.
                return None;
            }
            // SAFETY: `offset <= len` (checked just above): inside the span or one past it.
            let start = unsafe { span.as_ptr().as_ptr().add(info.offset) };
            // The schedule's contract makes the buffers of one step disjoint (an in-place
            // pair is yielded once); a span over initialised bytes keeps them initialised
            // (only plain data is written through it), any other is read as `MaybeUninit`.
            let bytes = if span.is_init() {
                // SAFETY: in bounds (just checked), initialised (the span's kind), and lent
                // to this iterator for `'v` by `new`.
                LiveBytes::Init(unsafe { core::slice::from_raw_parts_mut(start, info.size) })
            } else {
                // SAFETY: in bounds, lent for `'v`; `MaybeUninit` asks nothing of the bytes.
                LiveBytes::Uninit(unsafe {
                    core::slice::from_raw_parts_mut(start.cast::<MaybeUninit<u8>>(), info.size)
                })
            };
            return Some(Live {
                info,
                bytes,
                handover_from,
            });
        }
        None
    }
}

/// Buffer `B`'s bytes as `&mut [B::Elem; N]`, for a generated view of a region that does
/// not say `uninit` (a build error for one that does).
///
/// # Safety
///
/// As [`View::open`]: `spans` typed for `P`, lent for `'v`, and no other reference to
/// `B`'s bytes for `'v`; and `B::Elem` is plain data (every bit pattern valid, no padding:
/// the generated code asserts `PlainData` for every user element type).
#[doc(hidden)]
#[inline(always)]
pub unsafe fn field<'v, P, B, const N: usize>(spans: &[Span<'_>]) -> &'v mut [B::Elem; N]
where
    P: Plan,
    B: crate::PlannedBuffer,
    B::Region: crate::MemoryId<Plan = P>,
{
    const { assert_region_kind::<P, B>(false) };
    // SAFETY: `spans` are typed for `P` (the caller's contract).
    let mut array = unsafe { array::<P, B, B::Elem, N>(spans) };
    // SAFETY: `array` checked bounds and alignment at compile time; the region does not
    // say `uninit` (checked above), so its span's bytes are initialised (the allocator's
    // invariant) and every bit pattern is a valid `B::Elem`; lent to us for `'v`.
    unsafe { array.as_mut() }
}

/// Compile-time check that `B`'s region says `uninit` exactly when `uninit`: plain-data
/// views only over initialised regions, `MaybeUninit` views only over `uninit` ones (a
/// `MaybeUninit` view of initialised bytes would let safe code de-initialise them).
const fn assert_region_kind<P: Plan, B: crate::PlannedBuffer>(uninit: bool) {
    let id = <B::Region as crate::MemoryId>::ID as usize;
    assert!(
        id < P::REGION_INFO.len() && P::REGION_INFO[id].uninit == uninit,
        "memplan: a view's element type does not match its region's `uninit`"
    );
}

/// Buffer `B`'s bytes as `&mut [MaybeUninit<B::Elem>; N]`, for a view of a region that
/// says `uninit` (a build error for any other region).
///
/// # Safety
///
/// As [`field`].
#[doc(hidden)]
#[inline(always)]
pub unsafe fn field_uninit<'v, P, B, const N: usize>(
    spans: &[Span<'_>],
) -> &'v mut [MaybeUninit<B::Elem>; N]
where
    P: Plan,
    B: crate::PlannedBuffer,
    B::Region: crate::MemoryId<Plan = P>,
{
    const { assert_region_kind::<P, B>(true) };
    // SAFETY: `spans` are typed for `P` (the caller's contract).
    let mut array = unsafe { array::<P, B, MaybeUninit<B::Elem>, N>(spans) };
    // SAFETY: in bounds and aligned (checked by `array`); `MaybeUninit` asks nothing of the
    // bytes; lent to us for `'v`.
    unsafe { array.as_mut() }
}

/// An in-place pair `BIn` -> `BOut` at its handover step, for a generated view.
///
/// # Safety
///
/// As [`field`], for both buffers (which share bytes, the pair's own business); both
/// element types plain data.
#[doc(hidden)]
#[inline(always)]
pub unsafe fn in_place<'v, P, BIn, BOut, const NI: usize, const NO: usize>(
    spans: &[Span<'_>],
) -> InPlace<'v, [BIn::Elem; NI], [BOut::Elem; NO]>
where
    P: Plan,
    BIn: crate::PlannedBuffer,
    BOut: crate::PlannedBuffer,
    BIn::Region: crate::MemoryId<Plan = P>,
    BOut::Region: crate::MemoryId<Plan = P>,
{
    const {
        assert_pair::<BIn, BOut>();
        assert_region_kind::<P, BIn>(false);
    }
    // SAFETY: `array` checks each buffer's bounds and alignment; they start at the same
    // address (checked above), and the caller lends the bytes for `'v`.
    let _ = unsafe { array::<P, BOut, BOut::Elem, NO>(spans) };
    // SAFETY: `array` checks `BIn`'s bounds and alignment in its region's span; the pair
    // starts at one address (checked above), and the caller lends the bytes for `'v`.
    let base = unsafe { array::<P, BIn, BIn::Elem, NI>(spans) };
    // SAFETY: valid and aligned for both arrays (each checked by `array`), initialised (the
    // region does not say `uninit`, checked above) and plain data for both.
    unsafe { InPlace::new(base.cast::<u8>()) }
}

/// The `InPlace` of a pair in a region that says `uninit`: both sides `MaybeUninit`.
type UninitPair<'v, I, O, const NI: usize, const NO: usize> =
    InPlace<'v, [MaybeUninit<I>; NI], [MaybeUninit<O>; NO]>;

/// An in-place pair `BIn` -> `BOut` of a region that says `uninit`, at its handover step:
/// both sides `MaybeUninit` (a build error for any other region).
///
/// # Safety
///
/// As [`in_place`].
#[doc(hidden)]
#[inline(always)]
pub unsafe fn in_place_uninit<'v, P, BIn, BOut, const NI: usize, const NO: usize>(
    spans: &[Span<'_>],
) -> UninitPair<'v, BIn::Elem, BOut::Elem, NI, NO>
where
    P: Plan,
    BIn: crate::PlannedBuffer,
    BOut: crate::PlannedBuffer,
    BIn::Region: crate::MemoryId<Plan = P>,
    BOut::Region: crate::MemoryId<Plan = P>,
{
    const {
        assert_pair::<BIn, BOut>();
        assert_region_kind::<P, BIn>(true);
    }
    // SAFETY: `array` checks each buffer's bounds and alignment; they start at the same
    // address (checked above), and the caller lends the bytes for `'v`.
    let _ = unsafe { array::<P, BOut, MaybeUninit<BOut::Elem>, NO>(spans) };
    // SAFETY: `array` checks `BIn`'s bounds and alignment in its region's span; the pair
    // starts at one address (checked above), and the caller lends the bytes for `'v`.
    let base = unsafe { array::<P, BIn, MaybeUninit<BIn::Elem>, NI>(spans) };
    // SAFETY: valid and aligned for both arrays (each checked by `array`); `MaybeUninit`
    // asks nothing of the bytes.
    unsafe { InPlace::new(base.cast::<u8>()) }
}

/// Compile-time check that an in-place pair shares its source's region and offset.
const fn assert_pair<BIn: crate::PlannedBuffer, BOut: crate::PlannedBuffer>() {
    assert!(
        <BIn::Region as crate::MemoryId>::ID == <BOut::Region as crate::MemoryId>::ID
            && BIn::OFFSET == BOut::OFFSET,
        "memplan: an in-place pair shares its source's region and offset"
    );
}

/// `B`'s first `N` elements of type `E` (`B::Elem` or `MaybeUninit<B::Elem>`), checked at
/// compile time against the plan's region table.
///
/// # Safety
///
/// `spans` are the spans of an allocator typed for `P`.
#[inline(always)]
unsafe fn array<P, B, E, const N: usize>(spans: &[Span<'_>]) -> NonNull<[E; N]>
where
    P: Plan,
    B: crate::PlannedBuffer,
    B::Region: crate::MemoryId<Plan = P>,
{
    const {
        crate::plan::check_buffer::<P, B>();
        assert!(
            core::mem::size_of::<E>() == core::mem::size_of::<B::Elem>()
                && N * core::mem::size_of::<E>() <= B::SIZE,
            "memplan: a view's array is larger than its buffer"
        );
    }
    let id = <B::Region as crate::MemoryId>::ID as usize;
    // SAFETY: `id < P::REGIONS <= spans.len()` (compile-time check, and the allocator's
    // invariant, which the caller's spans keep).
    let span = unsafe { spans.get_unchecked(id) };
    // SAFETY: `OFFSET + SIZE` lies inside the region's planned bytes, which the span holds.
    unsafe { span.as_ptr().add(B::OFFSET).cast::<[E; N]>() }
}
