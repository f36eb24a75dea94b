//! The planning problem: memory regions and the buffers to place in them.
//!
//! Sizes, offsets and alignments are `u64` bytes on every host, so a plan computed on a
//! 64-bit build machine is the same plan, byte for byte, as one computed anywhere else.
//! Whether the plan fits the *target's* address space is checked where the target is
//! known (the macro emits a const assertion evaluated for the target).

/// A step of the program: a node index of the graph, an instruction number.
///
/// Lifetimes are inclusive ranges of steps, as ExecuTorch and TFLite Micro count them.
pub type Step = u32;

/// The largest alignment memplan accepts, in bytes (2^16).
///
/// It matches the largest `Align<N>` marker of `memplan-runtime`; MPU regions and
/// cache-line-aligned DMA buffers sit well below it.
pub const MAX_ALIGN: u64 = 1 << 16;

/// The default alignment of a region when none is given, in bytes.
pub const DEFAULT_REGION_ALIGN: u64 = 16;

/// An inclusive lifetime `[first, last]` in steps.
///
/// Two buffers conflict (may not share a byte) iff their lifetimes share a step; touching at
/// one step is a conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lifetime {
    /// The first step at which the buffer is live (written).
    pub first: Step,
    /// The last step at which the buffer is live (read), inclusive.
    pub last: Step,
}

impl Lifetime {
    /// The lifetime `[first, last]`. Returns `None` when `last < first` (an empty lifetime).
    pub const fn new(first: Step, last: Step) -> Option<Self> {
        if last < first {
            None
        } else {
            Some(Self { first, last })
        }
    }

    /// Whether the two lifetimes share at least one step.
    pub const fn conflicts(&self, other: &Lifetime) -> bool {
        self.first <= other.last && other.first <= self.last
    }

    /// Whether the buffer is live at step `s`.
    pub const fn contains(&self, s: Step) -> bool {
        self.first <= s && s <= self.last
    }

    /// The number of steps in the lifetime (at least 1), as `u64` so it cannot overflow.
    /// (A lifetime is never empty, so there is no `is_empty`.)
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(&self) -> u64 {
        self.last as u64 - self.first as u64 + 1
    }

    /// The smallest lifetime that covers both.
    pub fn hull(&self, other: &Lifetime) -> Lifetime {
        Lifetime {
            first: self.first.min(other.first),
            last: self.last.max(other.last),
        }
    }
}

/// A memory region: one memory id of the hierarchical allocator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The region's name, as declared.
    pub name: String,
    /// Bytes available in the region.
    pub capacity: u64,
    /// The default alignment of the region's buffers, in bytes (a power of two).
    pub align: u64,
}

/// Where a buffer may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// In this region (an index into [`Problem::regions`]); never moved elsewhere.
    In(usize),
    /// Spilled by the planner: in the first region, in declaration order, that can take it
    /// alongside the buffers already there (by the most bytes live at one step, then by the
    /// region's plan; the rule is on [`crate::plan()`]).
    Anywhere,
}

/// A buffer to place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The buffer's name, unique in the problem.
    pub name: String,
    /// Bytes the buffer occupies (zero is legal: an aligned offset, no bytes).
    pub size: u64,
    /// Alignment of the offset, in bytes (a power of two); `None` takes the region's, that
    /// of whichever region the buffer ends up in when it is spilled.
    pub align: Option<u64>,
    /// A floor on the alignment, in bytes (a power of two; 1 for none): the offset is a
    /// multiple of `max(align or the region's, min_align)`. A front end sets it to an
    /// element type's alignment, so that a spilled typed buffer gets its element's
    /// alignment or its region's, whichever is larger.
    pub min_align: u64,
    /// The steps at which the buffer is live.
    pub lifetime: Lifetime,
    /// The region it goes in.
    pub placement: Placement,
    /// A fixed offset given by another planner: verified, never trusted.
    pub pin: Option<u64>,
    /// The buffer (index into [`Problem::buffers`]) whose offset this one takes, in place.
    pub in_place_of: Option<usize>,
}

impl Buffer {
    /// A buffer of `size` bytes in region `region`, live `[first, last]`, with the region's
    /// alignment, no pin and no alias.
    ///
    /// # Panics
    ///
    /// If `last < first`.
    pub fn new(name: impl Into<String>, size: u64, region: usize, first: Step, last: Step) -> Self {
        Buffer {
            name: name.into(),
            size,
            align: None,
            min_align: 1,
            lifetime: Lifetime::new(first, last).expect("lifetime with last < first"),
            placement: Placement::In(region),
            pin: None,
            in_place_of: None,
        }
    }

    /// The same buffer with alignment `align` bytes.
    pub fn with_align(mut self, align: u64) -> Self {
        self.align = Some(align);
        self
    }

    /// The same buffer with an alignment of at least `align` bytes ([`Buffer::min_align`]).
    pub fn with_min_align(mut self, align: u64) -> Self {
        self.min_align = align;
        self
    }

    /// The same buffer pinned at `offset`.
    pub fn pinned_at(mut self, offset: u64) -> Self {
        self.pin = Some(offset);
        self
    }

    /// The same buffer, in place of buffer `source`.
    pub fn in_place_of(mut self, source: usize) -> Self {
        self.in_place_of = Some(source);
        self
    }

    /// The same buffer, spilled by the planner to the first region that can take it
    /// ([`Placement::Anywhere`]).
    pub fn anywhere(mut self) -> Self {
        self.placement = Placement::Anywhere;
        self
    }
}

/// Regions and buffers: everything the planner needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problem {
    /// Regions in declaration order; a region's index is its memory id.
    pub regions: Vec<Region>,
    /// Buffers in declaration order.
    pub buffers: Vec<Buffer>,
}

impl Problem {
    /// The alignment that applies to buffer `b` once it is in region `region`: its own (or
    /// the region's), and at least its `min_align`.
    pub fn effective_align(&self, b: &Buffer, region: usize) -> u64 {
        b.align
            .unwrap_or(self.regions[region].align)
            .max(b.min_align)
    }
}
