//! The one error type of the runtime.

use core::fmt;

/// What failed in an allocator of this crate, with the bytes needed and available.
///
/// Every variant carries plain integers (bytes, alignments, memory ids), so a caller or a
/// log can read them without parsing the message. [`Display`](fmt::Display) writes one
/// line and needs no allocator.
///
/// ```
/// use core::mem::MaybeUninit;
/// use memplan_runtime::{Error, MemoryAllocator};
///
/// let mut buf = [MaybeUninit::<u8>::uninit(); 16];
/// let pool = MemoryAllocator::new(&mut buf);
/// let err = pool.allocate(32, 1).unwrap_err();
/// assert_eq!(err, Error::OutOfMemory { requested: 32, align: 1, needed: 32, available: 16 });
/// assert_eq!(err.to_string(), "memplan: out of memory: needed 32 bytes (32 requested, align 1), available 16 bytes");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// A bump allocator ([`MemoryAllocator`](crate::MemoryAllocator)) has fewer free bytes
    /// than the request needs.
    OutOfMemory {
        /// Bytes requested.
        requested: usize,
        /// Alignment requested, in bytes.
        align: usize,
        /// Bytes needed from the current position: alignment padding plus `requested`.
        needed: usize,
        /// Free bytes from the current position to the end of the buffer.
        available: usize,
    },
    /// The alignment is not a power of two (0 included).
    InvalidAlignment {
        /// The alignment given, in bytes.
        align: usize,
    },
    /// Size arithmetic does not fit a `usize`: `count * elem_size` for a list, or
    /// address + padding + size for one allocation.
    Overflow {
        /// Number of elements requested (1 for a plain byte allocation).
        count: usize,
        /// Size of one element in bytes (the whole request for a byte allocation).
        elem_size: usize,
        /// Alignment requested, in bytes.
        align: usize,
    },
    /// No buffer has this memory id in the [`HierarchicalAllocator`](crate::HierarchicalAllocator).
    UnknownMemoryId {
        /// The memory id given.
        memory_id: u32,
        /// Number of buffers (memory ids `0..regions`) the allocator has.
        regions: usize,
    },
    /// `[offset, offset + size)` is not inside the buffer of `memory_id`.
    OutOfBounds {
        /// The memory id given.
        memory_id: u32,
        /// Offset given, in bytes from the start of the buffer.
        offset: usize,
        /// Size given, in bytes.
        size: usize,
        /// Length of that memory id's buffer, in bytes.
        available: usize,
    },
    /// A typed allocator was built with spans that do not match its plan.
    PlanMismatch {
        /// Memory id of the first mismatching region, or the number of spans given when
        /// the count differs.
        memory_id: u32,
        /// What the plan needs: the region count, a region's planned bytes, or its alignment.
        needed: usize,
        /// What was given: the span count, the span's length, or the base's alignment.
        available: usize,
        /// Which of the three was compared.
        what: PlanMismatch,
    },
}

/// Which fact of a plan a [`Error::PlanMismatch`] compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanMismatch {
    /// The number of spans differs from the plan's number of regions.
    RegionCount,
    /// A span is shorter than its region's planned bytes.
    RegionSize,
    /// A span's base address is less aligned than its region.
    RegionAlign,
    /// A span's bytes are not of its region's kind: `needed` is 1 for a region whose
    /// views are plain data (it needs a span over initialised bytes,
    /// [`Span::from_bytes`](crate::Span::from_bytes)) and 0 for a region that says
    /// `uninit` (it needs a span that may be uninitialised, [`Span::new`](crate::Span::new));
    /// `available` is 1 when the span's bytes are initialised, 0 when they may not be.
    RegionInit,
}

impl Error {
    /// The bytes the failed request needed, where the error concerns bytes and the figure
    /// fits a `usize`.
    ///
    /// For [`Error::OutOfBounds`] it is `offset + size` (the end the caller asked for),
    /// `None` when that sum overflows.
    pub const fn needed(&self) -> Option<usize> {
        match *self {
            Error::OutOfMemory { needed, .. } => Some(needed),
            Error::OutOfBounds { offset, size, .. } => offset.checked_add(size),
            Error::PlanMismatch {
                needed,
                what: PlanMismatch::RegionSize,
                ..
            } => Some(needed),
            _ => None,
        }
    }

    /// The bytes that were available, where the error concerns bytes.
    pub const fn available(&self) -> Option<usize> {
        match *self {
            Error::OutOfMemory { available, .. } | Error::OutOfBounds { available, .. } => {
                Some(available)
            }
            Error::PlanMismatch {
                available,
                what: PlanMismatch::RegionSize,
                ..
            } => Some(available),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::OutOfMemory {
                requested,
                align,
                needed,
                available,
            } => write!(
                f,
                "memplan: out of memory: needed {needed} bytes ({requested} requested, align {align}), available {available} bytes"
            ),
            Error::InvalidAlignment { align } => {
                write!(f, "memplan: alignment {align} is not a power of two")
            }
            Error::Overflow {
                count,
                elem_size,
                align,
            } => write!(
                f,
                "memplan: size overflow: {count} x {elem_size} bytes at align {align} does not fit the address space"
            ),
            Error::UnknownMemoryId { memory_id, regions } => write!(
                f,
                "memplan: unknown memory id {memory_id}: the allocator has {regions} buffers"
            ),
            Error::OutOfBounds {
                memory_id,
                offset,
                size,
                available,
            } => write!(
                f,
                "memplan: out of bounds: offset {offset} + size {size} bytes exceeds memory id {memory_id}'s {available} bytes"
            ),
            Error::PlanMismatch {
                memory_id,
                needed,
                available,
                what,
            } => match what {
                PlanMismatch::RegionCount => write!(
                    f,
                    "memplan: the plan has {needed} regions, {available} spans were given"
                ),
                PlanMismatch::RegionSize => write!(
                    f,
                    "memplan: memory id {memory_id} needs {needed} bytes, its span has {available}"
                ),
                PlanMismatch::RegionAlign => write!(
                    f,
                    "memplan: memory id {memory_id} needs alignment {needed}, its span's base is aligned to {available}"
                ),
                PlanMismatch::RegionInit if needed == 1 => write!(
                    f,
                    "memplan: memory id {memory_id} is a region of initialised bytes, its span's bytes may be uninitialised (a region over `MaybeUninit` memory must say `uninit`)"
                ),
                PlanMismatch::RegionInit => write!(
                    f,
                    "memplan: memory id {memory_id} says `uninit`, its span is over initialised bytes that must stay initialised (use a span over `MaybeUninit` memory)"
                ),
            },
        }
    }
}

impl core::error::Error for Error {}
