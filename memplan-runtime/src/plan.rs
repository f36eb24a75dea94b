//! Typed ids of a plan: the traits `memory_plan!` implements for the types it generates, and
//! the const tables it emits.

/// A plan: one marker type per `memory_plan!` invocation.
///
/// The macro implements it; hand-written plans may too (the trait is safe to implement:
/// every fact the typed access relies on is checked, at compile time or when an allocator
/// is built).
pub trait Plan: 'static {
    /// The plan's name (the module name given to `memory_plan!`).
    const NAME: &'static str;
    /// Number of regions (memory ids `0..REGIONS`) of the plan's
    /// [`HierarchicalAllocator`](crate::HierarchicalAllocator).
    const REGIONS: usize;
    /// Per-region facts, indexed by memory id: planned bytes, alignment, kind.
    ///
    /// Typed access ([`HierarchicalAllocator::buffer`](crate::HierarchicalAllocator::buffer))
    /// checks buffers against this table at compile time, and building a typed allocator
    /// checks the spans against it, so the typed path needs no run-time bounds check. Left
    /// empty (the default), typed access does not compile for the plan.
    const REGION_INFO: &'static [RegionInfo] = &[];
}

/// The plan of an allocator built from spans at run time, with no typed ids:
/// [`HierarchicalAllocator::new`](crate::HierarchicalAllocator::new) accepts any number
/// of buffers, and typed access does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Untyped {}

impl Plan for Untyped {
    const NAME: &'static str = "untyped";
    const REGIONS: usize = 0;
}

/// A region of a plan: a memory id of its [`HierarchicalAllocator`](crate::HierarchicalAllocator).
///
/// The macro implements it for one zero-sized type per declared region.
pub trait MemoryId: 'static {
    /// The plan the region belongs to; typed access through another plan's allocator does
    /// not compile.
    type Plan: Plan;
    /// The memory id: 0-based, in declaration order.
    const ID: u32;
    /// The region's name as declared.
    const NAME: &'static str;
    /// Planned bytes: the length of the region's arena (the end of its last buffer).
    const SIZE: usize;
    /// Declared capacity in bytes (`SIZE <= CAPACITY` in a plan that compiles).
    const CAPACITY: usize;
    /// Alignment of the arena's base address, in bytes (a power of two).
    const ALIGN: usize;
    /// What kind of memory the region is; metadata for the application, not used by the
    /// allocators.
    const KIND: RegionKind = RegionKind::Unspecified;
}

/// A planned buffer: a fixed offset and size in one region, alive for a range of steps.
///
/// The macro implements it for one zero-sized type per declared buffer.
pub trait PlannedBuffer: 'static {
    /// The region (memory id) that holds the buffer.
    type Region: MemoryId;
    /// Element type: `u8` for a buffer declared in bytes, `T` for `[T; N]`.
    type Elem;
    /// The buffer's name.
    const NAME: &'static str;
    /// Offset from the region's base, in bytes.
    const OFFSET: usize;
    /// Size in bytes (`N * size_of::<T>()` for `[T; N]`).
    const SIZE: usize;
    /// Alignment of the offset, in bytes (a power of two).
    const ALIGN: usize;
    /// First step at which the buffer is live (inclusive).
    const FIRST: u32;
    /// Last step at which the buffer is live (inclusive).
    const LAST: u32;
}

/// What kind of memory a region is (as current ExecuTorch records a device per planned
/// buffer). The allocators do not use it; applications read it to pick DMA-safe buffers or
/// to place hot buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RegionKind {
    /// Nothing declared.
    #[default]
    Unspecified,
    /// Tightly coupled memory (ITCM/DTCM): single-cycle for the core, often not reachable
    /// by DMA.
    TightlyCoupled,
    /// Memory a DMA engine can read and write.
    DmaCapable,
    /// External memory (PSRAM, SDRAM): large and slow.
    External,
}

/// One row of a plan's region table ([`Plan::REGION_INFO`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegionInfo {
    /// Region name.
    pub name: &'static str,
    /// Memory id (its index in the table).
    pub memory_id: u32,
    /// Planned bytes (the arena's length).
    pub size: usize,
    /// Declared capacity in bytes.
    pub capacity: usize,
    /// Alignment of the arena's base, in bytes.
    pub align: usize,
    /// Region kind.
    pub kind: RegionKind,
    /// The region says `uninit`: its bytes are not zeroed before use, so they may be
    /// uninitialised until written, and every safe view of them is `MaybeUninit`. A
    /// typed allocator accepts for such a region only a span over `MaybeUninit` memory
    /// ([`Span::new`](crate::Span::new)), and for any other region only a span over
    /// initialised bytes ([`Span::from_bytes`](crate::Span::from_bytes)).
    pub uninit: bool,
}

impl RegionInfo {
    /// A row of the region table.
    pub const fn new(
        name: &'static str,
        memory_id: u32,
        size: usize,
        capacity: usize,
        align: usize,
        kind: RegionKind,
    ) -> Self {
        RegionInfo {
            name,
            memory_id,
            size,
            capacity,
            align,
            kind,
            uninit: false,
        }
    }

    /// The same row, for a region that says `uninit` (see [`RegionInfo::uninit`]).
    pub const fn uninit(mut self) -> Self {
        self.uninit = true;
        self
    }
}

/// One row of a plan's buffer table (`BUFFERS`), for code that iterates every buffer,
/// declared or read from a plan file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferInfo {
    /// Buffer name (mangled to a Rust identifier for plan-file rows).
    pub name: &'static str,
    /// Memory id of its region.
    pub memory_id: u32,
    /// Offset from the region's base, in bytes.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
    /// First live step (inclusive).
    pub first: u32,
    /// Last live step (inclusive).
    pub last: u32,
    /// The buffer (index in the table) this one is in place of, if any.
    pub in_place_of: Option<usize>,
    /// The buffer (index in the table) in place of this one that starts at this one's last
    /// step (they share bytes at that step, the handover), if any.
    pub handed_over_to: Option<usize>,
}

impl BufferInfo {
    /// A row of the buffer table, with no in-place link.
    pub const fn new(
        name: &'static str,
        memory_id: u32,
        offset: usize,
        size: usize,
        first: u32,
        last: u32,
    ) -> Self {
        BufferInfo {
            name,
            memory_id,
            offset,
            size,
            first,
            last,
            in_place_of: None,
            handed_over_to: None,
        }
    }

    /// The same row, in place of buffer `source` (its index in the table).
    pub const fn in_place(mut self, source: usize) -> Self {
        self.in_place_of = Some(source);
        self
    }

    /// The same row, handing its bytes over to buffer `successor` at its last step.
    pub const fn handed_over(mut self, successor: usize) -> Self {
        self.handed_over_to = Some(successor);
        self
    }

    /// End of the buffer in bytes (`offset + size`), `None` on overflow.
    pub const fn end(&self) -> Option<usize> {
        self.offset.checked_add(self.size)
    }

    /// Whether the buffer is live at `step`.
    pub const fn is_live_at(&self, step: u32) -> bool {
        self.first <= step && step <= self.last
    }
}

/// Compile-time checks of a typed lookup of buffer `B` in plan `P`'s allocator; evaluated
/// in an inline `const` block, so a bad buffer is a build error.
pub(crate) const fn check_buffer<P: Plan, B: PlannedBuffer>() {
    let id = <B::Region as MemoryId>::ID as usize;
    assert!(
        id < P::REGIONS,
        "memplan: the buffer's memory id is not a region of the plan"
    );
    assert!(
        id < P::REGION_INFO.len(),
        "memplan: typed access needs the plan's REGION_INFO table"
    );
    let region = &P::REGION_INFO[id];
    assert!(
        region.size == <B::Region as MemoryId>::SIZE
            && region.align == <B::Region as MemoryId>::ALIGN,
        "memplan: the region type disagrees with the plan's REGION_INFO"
    );
    assert!(
        B::OFFSET <= region.size && B::SIZE <= region.size - B::OFFSET,
        "memplan: the buffer does not lie inside its region"
    );
    let elem_align = core::mem::align_of::<B::Elem>();
    assert!(
        B::ALIGN.is_power_of_two() && B::OFFSET % B::ALIGN == 0,
        "memplan: the buffer's offset is not a multiple of its alignment"
    );
    assert!(
        elem_align <= region.align && B::OFFSET % elem_align == 0,
        "memplan: the buffer is not aligned for its element type"
    );
    let elem_size = core::mem::size_of::<B::Elem>();
    assert!(
        elem_size == 0 || B::SIZE % elem_size == 0,
        "memplan: the buffer's size is not a whole number of elements"
    );
}
