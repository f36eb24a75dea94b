//! What can be wrong with a problem or a plan. Every error names the buffers and regions by
//! index (into [`crate::Problem`]) so that a front end can point at the offending
//! declaration, and carries the exact byte counts.

use crate::problem::Step;

/// One reason a problem has no plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// A region's alignment is not a power of two, or above [`crate::MAX_ALIGN`].
    RegionAlign {
        /// The region.
        region: usize,
        /// The alignment given, in bytes.
        align: u64,
    },
    /// A buffer's alignment is not a power of two, or above [`crate::MAX_ALIGN`].
    BufferAlign {
        /// The buffer.
        buffer: usize,
        /// The alignment given, in bytes.
        align: u64,
    },
    /// A buffer names a region that does not exist.
    UnknownRegion {
        /// The buffer.
        buffer: usize,
    },
    /// Buffer `buffer` is in place of `source`, but is larger.
    InPlaceLarger {
        /// The in-place buffer.
        buffer: usize,
        /// Its source.
        source: usize,
        /// Bytes of the in-place buffer.
        size: u64,
        /// Bytes of the source.
        source_size: u64,
    },
    /// Buffer `buffer` is in place of `source`, but `source` is still live after `buffer`'s
    /// first step.
    InPlaceSourceLive {
        /// The in-place buffer.
        buffer: usize,
        /// Its source.
        source: usize,
        /// The source's last step.
        source_last: Step,
        /// The in-place buffer's first step.
        first: Step,
    },
    /// Two buffers in place of the same source (neither in place of the other) are live at
    /// a common step, so they would share bytes.
    InPlaceOverlap {
        /// One buffer.
        a: usize,
        /// The other.
        b: usize,
        /// The common steps, inclusive.
        steps: (Step, Step),
    },
    /// In-place links form a cycle through `buffer`, or point at a missing buffer.
    InPlaceCycle {
        /// A buffer on the cycle.
        buffer: usize,
    },
    /// An in-place buffer names a region other than its source's.
    InPlaceRegion {
        /// The in-place buffer.
        buffer: usize,
        /// Its source.
        source: usize,
    },
    /// An in-place buffer is also pinned: it takes its source's offset, so it cannot.
    InPlacePinned {
        /// The in-place buffer.
        buffer: usize,
    },
    /// A pinned buffer has no region to be pinned in.
    PinWithoutRegion {
        /// The buffer.
        buffer: usize,
    },
    /// A pinned offset is not a multiple of the buffer's alignment.
    PinMisaligned {
        /// The buffer.
        buffer: usize,
        /// The pinned offset.
        offset: u64,
        /// The alignment it must be a multiple of.
        align: u64,
    },
    /// A pinned buffer ends past its region's capacity.
    PinOutOfBounds {
        /// The buffer.
        buffer: usize,
        /// The pinned offset.
        offset: u64,
        /// The buffer's bytes.
        size: u64,
        /// The region's capacity.
        capacity: u64,
    },
    /// Two pinned buffers share bytes at steps when both are live.
    PinOverlap {
        /// The first buffer (declared first).
        a: usize,
        /// The second buffer.
        b: usize,
        /// The shared bytes, `[start, end)`.
        bytes: (u64, u64),
        /// The shared steps, inclusive.
        steps: (Step, Step),
    },
    /// A buffer is larger than the region it is placed in.
    BufferTooLarge {
        /// The buffer.
        buffer: usize,
        /// The region.
        region: usize,
        /// The buffer's bytes.
        needed: u64,
        /// The region's capacity.
        available: u64,
    },
    /// A buffer that may go anywhere is larger than every region.
    LargerThanEveryRegion {
        /// The buffer.
        buffer: usize,
        /// The buffer's bytes.
        size: u64,
    },
    /// A buffer that may go anywhere fits no region alongside the buffers already there.
    FitsNoRegion {
        /// The buffer.
        buffer: usize,
        /// The buffer's bytes.
        size: u64,
    },
    /// A region's plan needs more bytes than the region has.
    Overflow(Overflow),
    /// Size arithmetic (an offset plus a size, a size rounded up) overflowed 64 bits.
    SizeOverflow {
        /// The buffers involved.
        buffers: Vec<usize>,
        /// The region, when known.
        region: Option<usize>,
    },
}

impl PlanError {
    /// The buffers the error names (empty for region errors).
    pub fn buffers(&self) -> Vec<usize> {
        use PlanError::*;
        match self {
            RegionAlign { .. } | Overflow(_) => Vec::new(),
            BufferAlign { buffer, .. }
            | UnknownRegion { buffer }
            | InPlaceCycle { buffer }
            | InPlacePinned { buffer }
            | PinWithoutRegion { buffer }
            | PinMisaligned { buffer, .. }
            | PinOutOfBounds { buffer, .. }
            | BufferTooLarge { buffer, .. }
            | LargerThanEveryRegion { buffer, .. }
            | FitsNoRegion { buffer, .. } => vec![*buffer],
            InPlaceLarger { buffer, source, .. }
            | InPlaceSourceLive { buffer, source, .. }
            | InPlaceRegion { buffer, source } => vec![*buffer, *source],
            InPlaceOverlap { a, b, .. } | PinOverlap { a, b, .. } => vec![*a, *b],
            SizeOverflow { buffers, .. } => buffers.clone(),
        }
    }
}

/// A region whose plan does not fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The region.
    pub region: usize,
    /// Bytes the plan needs.
    pub needed: u64,
    /// Bytes the region has.
    pub available: u64,
    /// The most bytes live at one step: no plan can do with fewer.
    pub lower_bound: u64,
    /// The step at which `lower_bound` bytes are live.
    pub peak_step: Option<Step>,
    /// Buffers live at the peak step, largest first, with their bytes.
    pub live_at_peak: Vec<(usize, u64)>,
    /// Whether no plan of the region can use fewer than `needed` bytes (the strategy proved
    /// it, or `needed` meets the alignment-aware bound), so no strategy can make it fit.
    pub proven_optimal: bool,
    /// The alignment-aware lower bound ([`crate::instance::aligned_lower_bound`]): more than
    /// `lower_bound` when alignment padding alone costs bytes.
    pub aligned: crate::instance::AlignedBound,
}

impl Overflow {
    /// By how many bytes the plan misses.
    pub fn excess(&self) -> u64 {
        self.needed - self.available
    }

    /// Whether the bytes live at every step fit, so only the packing (fragmentation) misses:
    /// a stronger strategy may find a plan.
    pub fn is_fragmentation(&self) -> bool {
        self.lower_bound <= self.available
    }
}
