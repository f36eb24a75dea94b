//! [`HierarchicalAllocator`]: one buffer per memory id, after ExecuTorch's
//! `runtime/core/hierarchical_allocator.h`.

use core::fmt;
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr::NonNull;

use crate::Error;
use crate::arena::{Alignment, Arena};
use crate::error::PlanMismatch;
use crate::plan::{MemoryId, Plan, PlannedBuffer, RegionInfo, Untyped, check_buffer};

/// One buffer of a [`HierarchicalAllocator`]: a base address and a length in bytes,
/// exclusively borrowed for `'a` (ExecuTorch's `Span<uint8_t>`).
///
/// A `Span` is neither `Copy` nor `Clone`, so two allocators can never be built over the
/// same bytes by safe code.
///
/// A span knows whether its bytes are initialised: [`Span::new`] (over
/// `&mut [MaybeUninit<u8>]`) says they may not be, [`Span::from_bytes`] (over `&mut [u8]`)
/// says they are and must stay so. A typed allocator
/// ([`HierarchicalAllocator::with_plan`]) takes the first kind only for a region that says
/// `uninit` (whose safe views are `MaybeUninit`) and the second only for the others (whose
/// views are plain data): so no safe view reads uninitialised bytes, and none can write
/// `MaybeUninit::uninit()` into bytes the caller reads as `u8` afterwards. Through `&Span` only the address and length can be read, which
/// is why it is `Sync` (the arena tables generated code keeps in statics need that).
pub struct Span<'a> {
    ptr: NonNull<u8>,
    len: usize,
    /// An alignment the base address is known (by construction) to have; 1 when unknown.
    align: usize,
    /// Whether the bytes are initialised and must stay so: a span from `&mut [u8]`, or a
    /// zeroed arena. A typed allocator serves a region that says `uninit` only from a span
    /// without it, and every other region only from a span with it (see `check_spans`).
    init: bool,
    _buffer: PhantomData<&'a mut [MaybeUninit<u8>]>,
}

// SAFETY: a span stands for an exclusive borrow of bytes (`&'a mut [MaybeUninit<u8>]`,
// which is `Send`).
unsafe impl Send for Span<'_> {}
// SAFETY: a shared `&Span` gives out only the raw address and the length; it never gives
// access to the bytes, so sharing it between threads cannot race on them.
unsafe impl Sync for Span<'_> {}

static_assertions::assert_impl_all!(Span<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(Span<'static>: Copy, Clone);

impl<'a> Span<'a> {
    /// A span over `buffer`, borrowed exclusively for `'a`.
    ///
    /// Its bytes may be uninitialised: a typed allocator takes it only for a region that
    /// says `uninit` (see the type's docs).
    pub const fn new(buffer: &'a mut [MaybeUninit<u8>]) -> Self {
        let len = buffer.len();
        let ptr = buffer.as_mut_ptr().cast::<u8>();
        // SAFETY: a slice's data pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(ptr) };
        // SAFETY: the exclusive borrow makes the `len` bytes at `ptr` ours for `'a`.
        unsafe { Self::from_raw_parts(ptr, len) }
    }

    /// A span over an initialised byte buffer, which stays initialised: a typed allocator
    /// takes it only for a region that does not say `uninit` (whose views are plain data,
    /// so every write through them leaves the bytes initialised).
    ///
    /// The allocator also hands out raw pointers into it; `unsafe` code that writes
    /// through them must leave the bytes initialised, as `buffer` is read as `u8` after `'a`.
    pub const fn from_bytes(buffer: &'a mut [u8]) -> Self {
        let len = buffer.len();
        let ptr = buffer.as_mut_ptr();
        // SAFETY: a slice's data pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(ptr) };
        // SAFETY: the exclusive borrow makes the `len` initialised bytes at `ptr` ours for
        // `'a`.
        let span = unsafe { Self::from_raw_parts(ptr, len) };
        Span { init: true, ..span }
    }

    /// A span over `len` bytes at `ptr` (memory from a linker section), which may be
    /// uninitialised (as [`Span::new`]'s).
    ///
    /// # Safety
    ///
    /// For all of `'a`, `ptr` must be valid for reads and writes of `len` bytes within one
    /// allocation, and nothing else may access them except through the allocator that
    /// holds this span.
    pub const unsafe fn from_raw_parts(ptr: NonNull<u8>, len: usize) -> Self {
        Span {
            ptr,
            len,
            align: 1,
            init: false,
            _buffer: PhantomData,
        }
    }

    /// A span over a static arena of generated code, for a `static` table of spans (one
    /// `Span::from_arena(&ARENA0, init)` per region). The span knows the arena's alignment
    /// from its type, so a typed allocator checks it at compile time. `init`: the arena's
    /// bytes are initialised when the allocator is first used (a `.bss` arena, or one
    /// that `take()` zeroes), so the span serves a region that does not say `uninit`.
    ///
    /// # Safety
    ///
    /// This span must be the only way to the arena's bytes: one span per arena, used by
    /// one allocator, which generated code hands out once (through
    /// [`TakeOnce`](crate::TakeOnce)); with `init`, the arena's bytes are initialised
    /// before anything reads them.
    #[doc(hidden)]
    pub const unsafe fn from_arena<const N: usize, A: Alignment>(
        arena: &'static Arena<N, A>,
        init: bool,
    ) -> Span<'static> {
        Span {
            ptr: arena.base(),
            len: N,
            align: A::ALIGN,
            init,
            _buffer: PhantomData,
        }
    }

    /// Whether the span's bytes are initialised and must stay so (see the type's docs).
    #[inline]
    pub const fn is_init(&self) -> bool {
        self.init
    }

    /// Length in bytes.
    #[inline]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the span has no bytes.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Base address.
    #[inline]
    pub const fn as_ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// The largest power of two the base address is a multiple of (capped at 2^31).
    fn address_alignment(&self) -> usize {
        let tz = self.ptr.as_ptr().addr().trailing_zeros().min(31);
        let known = 1usize << tz;
        if known > self.align {
            known
        } else {
            self.align
        }
    }
}

impl fmt::Debug for Span<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Span")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

/// One buffer per memory id, as ExecuTorch's `HierarchicalAllocator`: the planned
/// (non-constant) memory of a [`MemoryManager`](crate::MemoryManager).
///
/// Two ways to reach a planned buffer:
/// - Data-driven: [`get_offset_address`](Self::get_offset_address)`(memory_id, offset,
///   size)`, bounds-checked at run time without wraparound.
/// - Typed: [`buffer::<B>()`](Self::buffer) with a buffer type generated by
///   `memory_plan!`. The plan type `P` must match `B`'s plan (a build error otherwise) and
///   the bounds are checked at compile time, so the lookup is one load of the region base
///   plus a constant offset: the same instructions as raw pointer arithmetic.
///
/// Both return raw pointers, as ExecuTorch does: the plan guarantees that buffers live at
/// the same step never share a byte, but which buffers are live when is the caller's
/// schedule, so dereferencing is `unsafe`. (Safe per-step views of `&mut` references are
/// generated by the macro, which knows the schedule.)
///
/// The allocator borrows its span table, which is why it can be `Sync`: it never gives out
/// references to the bytes.
///
/// The allocator is invariant in its plan type, so an allocator checked against one plan's
/// table can never pass for another plan's, even when one plan type is a subtype of the
/// other (a plan type with a higher-ranked function pointer in it):
///
/// ```compile_fail,E0308
/// use memplan_runtime::{HierarchicalAllocator, Plan};
///
/// struct W<T>(T);
/// impl<T: 'static> Plan for W<T> {
///     const NAME: &'static str = "w";
///     const REGIONS: usize = 0;
/// }
/// // `for<'x> fn(&'x u8)` is a subtype of `fn(&'static u8)`: were the allocator covariant,
/// // this would compile and the second plan's compile-time checks would vouch for the first.
/// fn pass_off<'a>(
///     h: HierarchicalAllocator<'a, W<for<'x> fn(&'x u8)>>,
/// ) -> HierarchicalAllocator<'a, W<fn(&'static u8)>> {
///     h
/// }
/// ```
pub struct HierarchicalAllocator<'a, P: Plan = Untyped> {
    /// Invariant: `spans.len() >= P::REGIONS`, and for every memory id
    /// `i < min(P::REGIONS, P::REGION_INFO.len())`, `spans[i]` is at least
    /// `P::REGION_INFO[i].size` bytes long, its base is aligned to
    /// `P::REGION_INFO[i].align`, and its bytes are initialised exactly when the region
    /// does not say `uninit` (`spans[i].init == !P::REGION_INFO[i].uninit`).
    spans: &'a [Span<'a>],
    /// Invariant in `P` (`fn(P) -> P`): an allocator for one plan type is never one for
    /// another, even a subtype (`for<'x> fn(&'x u8)` and `fn(&'static u8)` in a plan type).
    _plan: PhantomData<fn(P) -> P>,
}

static_assertions::assert_impl_all!(HierarchicalAllocator<'static>: Send, Sync);

impl<'a> HierarchicalAllocator<'a, Untyped> {
    /// An untyped allocator over `spans`: memory id `i` is `spans[i]`.
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// use memplan_runtime::{HierarchicalAllocator, Span};
    ///
    /// let mut sram = [MaybeUninit::<u8>::uninit(); 256];
    /// let mut dtcm = [MaybeUninit::<u8>::uninit(); 64];
    /// let mut spans = [Span::new(&mut sram), Span::new(&mut dtcm)];
    /// let planned = HierarchicalAllocator::new(&mut spans);
    /// let p = planned.get_offset_address(1, 16, 48).unwrap();
    /// assert_eq!(p.as_ptr().addr() - planned.spans()[1].as_ptr().as_ptr().addr(), 16);
    /// assert!(planned.get_offset_address(1, 16, 49).is_err());
    /// ```
    pub const fn new<'s: 'a>(spans: &'a mut [Span<'s>]) -> Self {
        HierarchicalAllocator {
            spans,
            _plan: PhantomData,
        }
    }
}

impl<'a, P: Plan> HierarchicalAllocator<'a, P> {
    /// A typed allocator for plan `P` over spans of the caller's (one per region, in memory
    /// id order).
    ///
    /// # Errors
    ///
    /// [`Error::PlanMismatch`] if the number of spans is not `P::REGIONS`, or a span is
    /// shorter than its region's planned bytes, or its base less aligned than the region,
    /// or its bytes are not of the region's kind: a region that says `uninit` takes only a
    /// span that may be uninitialised ([`Span::new`]), any other region only one over
    /// initialised bytes ([`Span::from_bytes`]).
    pub fn with_plan<'s: 'a>(spans: &'a mut [Span<'s>]) -> Result<Self, Error> {
        check_spans::<P>(spans, false)?;
        check_span_addresses::<P>(spans)?;
        Ok(HierarchicalAllocator {
            spans,
            _plan: PhantomData,
        })
    }

    /// A typed allocator over a span table generated code keeps in a static; usable in a
    /// `const` or `static` initializer.
    ///
    /// # Panics
    ///
    /// If the spans do not match `P` (count, lengths, or the alignments the spans know from
    /// their arenas' types); in a const context that is a build error.
    ///
    /// # Safety
    ///
    /// The spans must be used by no other allocator while this one (or a copy of a pointer
    /// it gave) is in use.
    pub const unsafe fn from_raw_spans(spans: &'a [Span<'a>]) -> Self {
        if check_spans::<P>(spans, true).is_err() {
            panic!("memplan: the spans do not match the plan's regions");
        }
        HierarchicalAllocator {
            spans,
            _plan: PhantomData,
        }
    }

    /// Address of `size` bytes at `offset` in memory id `memory_id`'s buffer, as
    /// ExecuTorch's `get_offset_address`, but overflow-checked: the test is
    /// `offset <= len && size <= len - offset`, never `offset + size <= len`, which can
    /// wrap.
    ///
    /// `size == 0` at `offset == len` is valid and gives the one-past-the-end address.
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownMemoryId`] if there is no buffer with that id.
    /// - [`Error::OutOfBounds`] if `[offset, offset + size)` is not inside it.
    #[inline]
    pub fn get_offset_address(
        &self,
        memory_id: u32,
        offset: usize,
        size: usize,
    ) -> Result<NonNull<u8>, Error> {
        let Some(span) = self.spans.get(memory_id as usize) else {
            return Err(Error::UnknownMemoryId {
                memory_id,
                regions: self.spans.len(),
            });
        };
        let len = span.len;
        if offset <= len && size <= len - offset {
            // SAFETY: `offset <= len`, so the result is inside the span or one past its end.
            Ok(unsafe { span.ptr.add(offset) })
        } else {
            Err(Error::OutOfBounds {
                memory_id,
                offset,
                size,
                available: len,
            })
        }
    }

    /// Address of the planned buffer `B`: its region's base plus `B::OFFSET`, typed as
    /// `B::Elem`.
    ///
    /// Checked at compile time: `B` belongs to plan `P` (a type error otherwise), its
    /// memory id is one of `P`'s regions, `[OFFSET, OFFSET + SIZE)` lies inside the region
    /// (without wraparound), and the offset is aligned for `B::ALIGN` and `B::Elem`. The
    /// allocator's constructors checked the spans against the same plan, so the pointer is
    /// in bounds and aligned with no run-time test.
    ///
    /// The bytes are raw memory (see the type's docs for why this is a pointer); a buffer
    /// in a region in `.bss` starts zeroed.
    ///
    /// ```
    /// # use memplan_runtime::{HierarchicalAllocator, MemoryId, Plan, PlannedBuffer, RegionInfo, RegionKind, Span};
    /// # pub enum Kws {}
    /// # impl Plan for Kws {
    /// #     const NAME: &'static str = "kws";
    /// #     const REGIONS: usize = 1;
    /// #     const REGION_INFO: &'static [RegionInfo] =
    /// #         &[RegionInfo::new("sram", 0, 1024, 1024, 16, RegionKind::Unspecified)];
    /// # }
    /// # pub struct Sram;
    /// # impl MemoryId for Sram {
    /// #     type Plan = Kws;
    /// #     const ID: u32 = 0;
    /// #     const NAME: &'static str = "sram";
    /// #     const SIZE: usize = 1024;
    /// #     const CAPACITY: usize = 1024;
    /// #     const ALIGN: usize = 16;
    /// # }
    /// # macro_rules! buffer {
    /// #     ($name:ident in $region:ty, $elem:ty, $offset:expr, $size:expr) => {
    /// #         pub struct $name;
    /// #         impl PlannedBuffer for $name {
    /// #             type Region = $region;
    /// #             type Elem = $elem;
    /// #             const NAME: &'static str = stringify!($name);
    /// #             const OFFSET: usize = $offset;
    /// #             const SIZE: usize = $size;
    /// #             const ALIGN: usize = 16;
    /// #             const FIRST: u32 = 1;
    /// #             const LAST: u32 = 2;
    /// #         }
    /// #     };
    /// # }
    /// # #[repr(align(16))]
    /// # struct Mem([u8; 1024]);
    /// # let mut mem = Mem([0; 1024]);
    /// # let mut spans = [Span::from_bytes(&mut mem.0)];
    /// # let planned = HierarchicalAllocator::<Kws>::with_plan(&mut spans).unwrap();
    /// // `conv1: [f32; 128] in sram` at offset 256, as `memory_plan!` would generate it.
    /// buffer!(Conv1 in Sram, f32, 256, 512);
    ///
    /// let conv1 = planned.buffer::<Conv1>(); // NonNull<f32>
    /// let base = planned.spans()[0].as_ptr();
    /// assert_eq!(conv1.as_ptr().addr(), base.as_ptr().addr() + 256);
    /// assert_eq!(planned.buffer_slice::<Conv1>().len(), 128);
    /// ```
    ///
    /// A buffer of another plan is a type error:
    ///
    /// ```compile_fail,E0271
    /// # use memplan_runtime::{HierarchicalAllocator, MemoryId, Plan, PlannedBuffer, RegionInfo, RegionKind, Span};
    /// # pub enum Kws {}
    /// # impl Plan for Kws {
    /// #     const NAME: &'static str = "kws";
    /// #     const REGIONS: usize = 1;
    /// #     const REGION_INFO: &'static [RegionInfo] =
    /// #         &[RegionInfo::new("sram", 0, 1024, 1024, 16, RegionKind::Unspecified)];
    /// # }
    /// # pub struct Sram;
    /// # impl MemoryId for Sram {
    /// #     type Plan = Kws;
    /// #     const ID: u32 = 0;
    /// #     const NAME: &'static str = "sram";
    /// #     const SIZE: usize = 1024;
    /// #     const CAPACITY: usize = 1024;
    /// #     const ALIGN: usize = 16;
    /// # }
    /// # macro_rules! buffer {
    /// #     ($name:ident in $region:ty, $elem:ty, $offset:expr, $size:expr) => {
    /// #         pub struct $name;
    /// #         impl PlannedBuffer for $name {
    /// #             type Region = $region;
    /// #             type Elem = $elem;
    /// #             const NAME: &'static str = stringify!($name);
    /// #             const OFFSET: usize = $offset;
    /// #             const SIZE: usize = $size;
    /// #             const ALIGN: usize = 16;
    /// #             const FIRST: u32 = 1;
    /// #             const LAST: u32 = 2;
    /// #         }
    /// #     };
    /// # }
    /// # #[repr(align(16))]
    /// # struct Mem([u8; 1024]);
    /// # let mut mem = Mem([0; 1024]);
    /// # let mut spans = [Span::from_bytes(&mut mem.0)];
    /// # let planned = HierarchicalAllocator::<Kws>::with_plan(&mut spans).unwrap();
    /// pub enum Other {}
    /// impl Plan for Other {
    ///     const NAME: &'static str = "other";
    ///     const REGIONS: usize = 1;
    /// }
    /// pub struct OtherSram;
    /// impl MemoryId for OtherSram {
    ///     type Plan = Other;
    ///     const ID: u32 = 0;
    ///     const NAME: &'static str = "sram";
    ///     const SIZE: usize = 1024;
    ///     const CAPACITY: usize = 1024;
    ///     const ALIGN: usize = 16;
    /// }
    /// buffer!(Foreign in OtherSram, u8, 0, 16);
    /// let _ = planned.buffer::<Foreign>(); // error: expected `Kws`, found `Other`
    /// ```
    ///
    /// A buffer that does not lie inside its region is a build error (a failed `const`
    /// assertion), without wraparound:
    ///
    /// ```compile_fail,E0080
    /// # use memplan_runtime::{HierarchicalAllocator, MemoryId, Plan, PlannedBuffer, RegionInfo, RegionKind, Span};
    /// # pub enum Kws {}
    /// # impl Plan for Kws {
    /// #     const NAME: &'static str = "kws";
    /// #     const REGIONS: usize = 1;
    /// #     const REGION_INFO: &'static [RegionInfo] =
    /// #         &[RegionInfo::new("sram", 0, 1024, 1024, 16, RegionKind::Unspecified)];
    /// # }
    /// # pub struct Sram;
    /// # impl MemoryId for Sram {
    /// #     type Plan = Kws;
    /// #     const ID: u32 = 0;
    /// #     const NAME: &'static str = "sram";
    /// #     const SIZE: usize = 1024;
    /// #     const CAPACITY: usize = 1024;
    /// #     const ALIGN: usize = 16;
    /// # }
    /// # macro_rules! buffer {
    /// #     ($name:ident in $region:ty, $elem:ty, $offset:expr, $size:expr) => {
    /// #         pub struct $name;
    /// #         impl PlannedBuffer for $name {
    /// #             type Region = $region;
    /// #             type Elem = $elem;
    /// #             const NAME: &'static str = stringify!($name);
    /// #             const OFFSET: usize = $offset;
    /// #             const SIZE: usize = $size;
    /// #             const ALIGN: usize = 16;
    /// #             const FIRST: u32 = 1;
    /// #             const LAST: u32 = 2;
    /// #         }
    /// #     };
    /// # }
    /// # #[repr(align(16))]
    /// # struct Mem([u8; 1024]);
    /// # let mut mem = Mem([0; 1024]);
    /// # let mut spans = [Span::from_bytes(&mut mem.0)];
    /// # let planned = HierarchicalAllocator::<Kws>::with_plan(&mut spans).unwrap();
    /// buffer!(Past in Sram, u8, 768, 512); // 768 + 512 > 1024
    /// let _ = planned.buffer::<Past>();
    /// ```
    ///
    /// ```compile_fail,E0080
    /// # use memplan_runtime::{HierarchicalAllocator, MemoryId, Plan, PlannedBuffer, RegionInfo, RegionKind, Span};
    /// # pub enum Kws {}
    /// # impl Plan for Kws {
    /// #     const NAME: &'static str = "kws";
    /// #     const REGIONS: usize = 1;
    /// #     const REGION_INFO: &'static [RegionInfo] =
    /// #         &[RegionInfo::new("sram", 0, 1024, 1024, 16, RegionKind::Unspecified)];
    /// # }
    /// # pub struct Sram;
    /// # impl MemoryId for Sram {
    /// #     type Plan = Kws;
    /// #     const ID: u32 = 0;
    /// #     const NAME: &'static str = "sram";
    /// #     const SIZE: usize = 1024;
    /// #     const CAPACITY: usize = 1024;
    /// #     const ALIGN: usize = 16;
    /// # }
    /// # macro_rules! buffer {
    /// #     ($name:ident in $region:ty, $elem:ty, $offset:expr, $size:expr) => {
    /// #         pub struct $name;
    /// #         impl PlannedBuffer for $name {
    /// #             type Region = $region;
    /// #             type Elem = $elem;
    /// #             const NAME: &'static str = stringify!($name);
    /// #             const OFFSET: usize = $offset;
    /// #             const SIZE: usize = $size;
    /// #             const ALIGN: usize = 16;
    /// #             const FIRST: u32 = 1;
    /// #             const LAST: u32 = 2;
    /// #         }
    /// #     };
    /// # }
    /// # #[repr(align(16))]
    /// # struct Mem([u8; 1024]);
    /// # let mut mem = Mem([0; 1024]);
    /// # let mut spans = [Span::from_bytes(&mut mem.0)];
    /// # let planned = HierarchicalAllocator::<Kws>::with_plan(&mut spans).unwrap();
    /// buffer!(Wraps in Sram, u8, 16, usize::MAX - 8); // 16 + (MAX - 8) wraps to 7
    /// let _ = planned.buffer::<Wraps>();
    /// ```
    #[inline(always)]
    pub fn buffer<B>(&self) -> NonNull<B::Elem>
    where
        B: PlannedBuffer,
        B::Region: MemoryId<Plan = P>,
    {
        const { check_buffer::<P, B>() };
        let id = <B::Region as MemoryId>::ID as usize;
        // SAFETY: `id < P::REGIONS` (checked at compile time above) and
        // `P::REGIONS <= spans.len()` (the struct's invariant).
        let span = unsafe { self.spans.get_unchecked(id) };
        // SAFETY: `B::OFFSET + B::SIZE <= P::REGION_INFO[id].size <= span.len` (compile-time
        // check and invariant), so the result is inside the span or one past its end.
        unsafe { span.ptr.add(B::OFFSET).cast::<B::Elem>() }
    }

    /// The planned buffer `B` as a raw slice of `B::SIZE / size_of::<B::Elem>()` elements
    /// (0 for a zero-size element type). Checked as [`buffer`](Self::buffer).
    #[inline(always)]
    pub fn buffer_slice<B>(&self) -> NonNull<[B::Elem]>
    where
        B: PlannedBuffer,
        B::Region: MemoryId<Plan = P>,
    {
        let elem = core::mem::size_of::<B::Elem>();
        let len = B::SIZE.checked_div(elem).unwrap_or(0);
        NonNull::slice_from_raw_parts(self.buffer::<B>(), len)
    }

    /// The spans, indexed by memory id.
    #[inline]
    pub const fn spans(&self) -> &'a [Span<'a>] {
        self.spans
    }

    /// Number of memory ids.
    #[inline]
    pub const fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are no memory ids.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The plan's facts about `memory_id` (planned bytes, capacity, alignment, kind), for
    /// typed plans that carry a region table.
    pub const fn region_info(&self, memory_id: u32) -> Option<&'static RegionInfo> {
        let id = memory_id as usize;
        if id < P::REGION_INFO.len() {
            Some(&P::REGION_INFO[id])
        } else {
            None
        }
    }
}

impl<P: Plan> fmt::Debug for HierarchicalAllocator<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HierarchicalAllocator")
            .field("plan", &P::NAME)
            .field("spans", &self.spans)
            .finish()
    }
}

/// Checks `spans` against plan `P` (see the invariant of [`HierarchicalAllocator`]):
/// count and lengths, and, with `known_align`, the alignment each span knows from its
/// arena's type (the const path). The run-time path checks addresses instead
/// ([`check_span_addresses`]).
const fn check_spans<P: Plan>(spans: &[Span<'_>], known_align: bool) -> Result<(), Error> {
    if P::REGIONS == 0 {
        // Untyped: any number of spans, no typed access.
        return Ok(());
    }
    if spans.len() != P::REGIONS {
        return Err(Error::PlanMismatch {
            memory_id: spans.len() as u32,
            needed: P::REGIONS,
            available: spans.len(),
            what: PlanMismatch::RegionCount,
        });
    }
    let info = P::REGION_INFO;
    let mut i = 0;
    while i < spans.len() && i < info.len() {
        let span = &spans[i];
        if span.len < info[i].size {
            return Err(Error::PlanMismatch {
                memory_id: i as u32,
                needed: info[i].size,
                available: span.len,
                what: PlanMismatch::RegionSize,
            });
        }
        if span.init == info[i].uninit {
            return Err(Error::PlanMismatch {
                memory_id: i as u32,
                needed: !info[i].uninit as usize,
                available: span.init as usize,
                what: PlanMismatch::RegionInit,
            });
        }
        if known_align && span.align < info[i].align {
            return Err(Error::PlanMismatch {
                memory_id: i as u32,
                needed: info[i].align,
                available: span.align,
                what: PlanMismatch::RegionAlign,
            });
        }
        i += 1;
    }
    Ok(())
}

/// Run-time alignment check of the spans' base addresses against `P`'s regions.
fn check_span_addresses<P: Plan>(spans: &[Span<'_>]) -> Result<(), Error> {
    for (i, (span, info)) in spans.iter().zip(P::REGION_INFO).enumerate() {
        let align = span.address_alignment();
        if align < info.align {
            return Err(Error::PlanMismatch {
                memory_id: i as u32,
                needed: info.align,
                available: align,
                what: PlanMismatch::RegionAlign,
            });
        }
    }
    Ok(())
}
