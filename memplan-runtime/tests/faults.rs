//! Runtime fault cases, each section named after a bug that allocators of this kind have
//! had (from real bug reports), with exact values. Failure cases also check that the
//! allocator is unchanged (`used`, `free`, high-water mark).

use core::mem::MaybeUninit;
use core::ptr::NonNull;

use memplan_runtime::__private_0_1_0::{self as __private, Align, Arena, ArenaSpan, TakeOnce};
use memplan_runtime::{
    Error, HierarchicalAllocator, MemoryAllocator, MemoryId, MemoryManager, Plan, PlanMismatch,
    PlannedBuffer, RegionInfo, RegionKind, Span,
};

/// A 64-byte array whose address `A` is a multiple of 8 (the misalignment cases need
/// exactly that; 16 is also a multiple of 8).
#[repr(C, align(16))]
struct Aligned<const N: usize>([MaybeUninit<u8>; N]);

impl<const N: usize> Aligned<N> {
    fn new() -> Self {
        Aligned([MaybeUninit::uninit(); N])
    }
    fn addr(&self) -> usize {
        self.0.as_ptr().addr()
    }
}

/// Initialised bytes, aligned to 64: a span over them serves a region without `uninit`.
#[repr(align(64))]
struct AlignedBytes<const N: usize>([u8; N]);

impl<const N: usize> AlignedBytes<N> {
    fn new() -> Self {
        AlignedBytes([0; N])
    }
    fn addr(&self) -> usize {
        self.0.as_ptr().addr()
    }
}

fn addr(p: NonNull<u8>) -> usize {
    p.as_ptr().addr()
}

/// `(used, free, high_water)`: what a failure must leave unchanged.
fn state(a: &MemoryAllocator<'_>) -> (usize, usize, usize) {
    (a.used(), a.free(), a.high_water())
}

// ---- Lengths: a heap length computed one byte short -------------------------------------

#[test]
fn bump_allocator_length_is_end_minus_start() {
    let mut buf = Aligned::<1024>::new();
    let a_addr = buf.addr();
    let pool = MemoryAllocator::new(&mut buf.0);
    assert_eq!(pool.size(), 1024);
    let a = pool.allocate(512, 8).unwrap();
    let b = pool.allocate(512, 8).unwrap();
    assert_eq!(addr(a) - a_addr, 0);
    assert_eq!(addr(b) - a_addr, 512);
    // The highest end is exactly 1024: the pool is full, not one byte short or over.
    assert_eq!((pool.used(), pool.free()), (1024, 0));
    let before = state(&pool);
    assert_eq!(
        pool.allocate(1, 1),
        Err(Error::OutOfMemory {
            requested: 1,
            align: 1,
            needed: 1,
            available: 0
        })
    );
    assert_eq!(state(&pool), before);
}

#[test]
fn bump_513_after_512_needs_1025_of_1024() {
    let mut buf = Aligned::<1024>::new();
    let pool = MemoryAllocator::new(&mut buf.0);
    pool.allocate(512, 1).unwrap();
    let before = state(&pool);
    let err = pool.allocate(513, 1).unwrap_err();
    assert_eq!(
        err,
        Error::OutOfMemory {
            requested: 513,
            align: 1,
            needed: 513,
            available: 512
        }
    );
    // 512 used + 513 needed = 1025 against 1024.
    assert_eq!(pool.used() + err.needed().unwrap(), 1025);
    assert_eq!(state(&pool), before);
}

#[test]
fn hierarchical_span_covers_exactly_its_buffer() {
    let mut sram = Aligned::<1024>::new();
    let base = sram.addr();
    let mut spans = [Span::new(&mut sram.0)];
    let planned = HierarchicalAllocator::new(&mut spans);
    assert_eq!(planned.spans()[0].len(), 1024);
    assert_eq!(addr(planned.get_offset_address(0, 0, 512).unwrap()), base);
    assert_eq!(
        addr(planned.get_offset_address(0, 512, 512).unwrap()),
        base + 512
    );
    assert_eq!(addr(planned.get_offset_address(0, 0, 1024).unwrap()), base);
    assert_eq!(
        planned.get_offset_address(0, 512, 513),
        Err(Error::OutOfBounds {
            memory_id: 0,
            offset: 512,
            size: 513,
            available: 1024
        })
    );
    assert_eq!(
        planned
            .get_offset_address(0, 512, 513)
            .unwrap_err()
            .needed(),
        Some(1025)
    );
}

// ---- Bounds: a check on offset + size that can wrap --------------------------------------

#[test]
fn get_offset_address_never_wraps() {
    let mut buf = Aligned::<4096>::new();
    let base = buf.addr();
    let mut spans = [Span::new(&mut buf.0)];
    let planned = HierarchicalAllocator::new(&mut spans);

    // A wrapping sum would give 8, which is <= 4096.
    assert_eq!((usize::MAX - 7).wrapping_add(16), 8);
    assert_eq!(
        planned.get_offset_address(0, usize::MAX - 7, 16),
        Err(Error::OutOfBounds {
            memory_id: 0,
            offset: usize::MAX - 7,
            size: 16,
            available: 4096
        })
    );
    assert_eq!(
        planned
            .get_offset_address(0, usize::MAX - 7, 16)
            .unwrap_err()
            .needed(),
        None
    );
    assert_eq!(
        planned.get_offset_address(0, 8, usize::MAX),
        Err(Error::OutOfBounds {
            memory_id: 0,
            offset: 8,
            size: usize::MAX,
            available: 4096
        })
    );
    assert_eq!(
        addr(planned.get_offset_address(0, 4095, 1).unwrap()),
        base + 4095
    );
    assert_eq!(
        planned.get_offset_address(0, 4096, 1),
        Err(Error::OutOfBounds {
            memory_id: 0,
            offset: 4096,
            size: 1,
            available: 4096
        })
    );
    // The whole kind: every (offset, size) near the edges agrees with the exact rule.
    let edges = [
        0,
        1,
        4095,
        4096,
        4097,
        usize::MAX / 2,
        usize::MAX - 4096,
        usize::MAX - 1,
        usize::MAX,
    ];
    for offset in edges {
        for size in edges {
            let fits = offset.checked_add(size).is_some_and(|end| end <= 4096);
            assert_eq!(
                planned.get_offset_address(0, offset, size).is_ok(),
                fits,
                "offset {offset} size {size}"
            );
        }
    }
    assert_eq!(
        planned.get_offset_address(1, 0, 0),
        Err(Error::UnknownMemoryId {
            memory_id: 1,
            regions: 1
        })
    );
}

// ---- Zero-size buffers --------------------------------------------------------------------

#[test]
fn zero_size_allocation_is_aligned_and_takes_nothing() {
    let mut buf = Aligned::<64>::new();
    let base = buf.addr();
    let pool = MemoryAllocator::new(&mut buf.0);
    let z = pool.allocate(0, 8).unwrap();
    assert_eq!(addr(z) % 8, 0);
    assert_eq!(addr(z), base);
    assert_eq!((pool.used(), pool.high_water()), (0, 0));
    let a = pool.allocate(64, 8).unwrap();
    assert_eq!(addr(a), base);
    assert_eq!(pool.used(), 64);
    // Zero bytes still fit at the very end (one past the last byte).
    assert_eq!(addr(pool.allocate(0, 1).unwrap()), base + 64);
    assert_eq!(pool.used(), 64);
}

#[test]
fn zero_size_at_an_unaligned_base_takes_no_padding() {
    let mut buf = Aligned::<64>::new();
    let a = buf.addr();
    let pool = MemoryAllocator::new(&mut buf.0[3..]);
    assert_eq!(addr(pool.allocate(0, 8).unwrap()), a + 8);
    assert_eq!(pool.used(), 0);
    // The next real allocation still pays its own padding.
    assert_eq!(addr(pool.allocate(1, 1).unwrap()), a + 3);
    assert_eq!(pool.used(), 1);
}

#[test]
fn zero_size_lookup_at_the_end_of_a_region() {
    let mut buf = Aligned::<64>::new();
    let base = buf.addr();
    let mut spans = [Span::new(&mut buf.0)];
    let planned = HierarchicalAllocator::new(&mut spans);
    assert_eq!(
        addr(planned.get_offset_address(0, 64, 0).unwrap()),
        base + 64
    );
    assert!(planned.get_offset_address(0, 65, 0).is_err());
}

// ---- Temp pool: leftovers carried into the first kernel ---------------------------------

#[test]
fn reset_frees_the_temp_pool() {
    let mut buf = Aligned::<256>::new();
    let base = buf.addr();
    let mut temp = MemoryAllocator::new(&mut buf.0);
    assert_eq!(addr(temp.allocate(200, 8).unwrap()), base);
    let before = state(&temp);
    assert_eq!(
        temp.allocate(100, 8),
        Err(Error::OutOfMemory {
            requested: 100,
            align: 8,
            needed: 100,
            available: 56
        })
    );
    assert_eq!(state(&temp), before);
    assert_eq!(before, (200, 56, 200));
    temp.reset();
    assert_eq!(addr(temp.allocate(256, 8).unwrap()), base);
    assert_eq!(temp.high_water(), 256);
}

#[test]
fn with_temp_starts_empty_even_after_init_leftovers() {
    let mut buf = Aligned::<256>::new();
    let base = buf.addr();
    let mut manager = MemoryManager::new(
        MemoryAllocator::empty(),
        HierarchicalAllocator::new(&mut []),
        MemoryAllocator::empty(),
        MemoryAllocator::new(&mut buf.0),
    );
    // "Init" leaves 200 bytes in the temp pool, as the delegate in ExecuTorch #13384 did.
    manager.temp().allocate(200, 8).unwrap();
    let first = manager.with_temp(|temp| addr(temp.allocate(256, 8).unwrap()));
    assert_eq!(first, base);
    assert_eq!(manager.temp().used(), 0);
    let second = manager.with_temp(|temp| {
        let a = addr(temp.allocate(200, 8).unwrap());
        let failed = temp.allocate(100, 8).unwrap_err();
        assert_eq!(temp.used(), 200);
        (a, failed)
    });
    assert_eq!(second.0, base);
    assert_eq!(second.1.available(), Some(56));
    assert_eq!(manager.temp().high_water(), 256);
}

/// The temp pool of a manager built the way generated code builds it (static arenas, a
/// `const` manager in a `TakeOnce`) is empty before the first kernel.
#[test]
fn const_manager_temp_pool_is_empty_before_the_first_kernel() {
    enum P {}
    impl Plan for P {
        const NAME: &'static str = "temp_pool";
        const REGIONS: usize = 0;
    }
    static NONE: Arena<0, Align<1>> = Arena::new();
    static TEMP: Arena<256, Align<8>> = Arena::new();
    static SPANS: [ArenaSpan<'static>; 0] = [];
    static MANAGER: TakeOnce<MemoryManager<'static, P>> =
        // SAFETY: these arenas are used by this manager only.
        TakeOnce::new(unsafe { __private::manager(&NONE, &SPANS, &NONE, &TEMP) });
    let manager = MANAGER.take().unwrap();
    assert_eq!(manager.temp().used(), 0);
    let p = manager.temp().allocate(256, 8).unwrap();
    assert_eq!(p.as_ptr(), TEMP.as_ptr());
}

// ---- Take-once: a singleton that could be taken twice -----------------------------------

#[test]
fn take_once_then_none() {
    static VALUE: TakeOnce<u32> = TakeOnce::new(41);
    let first = VALUE.take();
    assert_eq!(first.as_deref(), Some(&41));
    assert!(VALUE.take().is_none());
    assert!(VALUE.take().is_none());
}

/// The manager is the only path to the plan's arenas: once taken, no second
/// `&'static mut` to the same bytes exists.
#[test]
fn manager_taken_once_owns_its_arenas() {
    enum P {}
    impl Plan for P {
        const NAME: &'static str = "taken_once";
        const REGIONS: usize = 1;
        const REGION_INFO: &'static [RegionInfo] = &[RegionInfo::new(
            "sram",
            0,
            128,
            128,
            16,
            RegionKind::Unspecified,
        )];
    }
    static SRAM: Arena<128, Align<16>> = Arena::new();
    static NONE: Arena<0, Align<1>> = Arena::new();
    // SAFETY: one span over SRAM, used by MANAGER only.
    static SPANS: [ArenaSpan<'static>; 1] = unsafe { [ArenaSpan::from_arena(&SRAM, true)] };
    static MANAGER: TakeOnce<MemoryManager<'static, P>> =
        // SAFETY: these arenas are used by this manager only.
        TakeOnce::new(unsafe { __private::manager::<P, _, _, _>(&NONE, &SPANS, &NONE, &NONE) });
    assert!(!MANAGER.is_taken());
    let manager = MANAGER.take().expect("first take");
    assert!(MANAGER.take().is_none());
    assert!(MANAGER.is_taken());
    let p = manager.planned().get_offset_address(0, 16, 112).unwrap();
    assert_eq!(p.as_ptr(), SRAM.as_ptr().wrapping_add(16));
}

// ---- Alignment: a bump allocator that aligned the offset, not the address ---------------

#[test]
fn alignment_is_measured_on_the_address() {
    let mut array = Aligned::<64>::new();
    let a = array.addr();
    assert_eq!(a % 8, 0);
    let pool = MemoryAllocator::new(&mut array.0[3..]);
    assert_eq!(addr(pool.base_address()), a + 3);
    assert_eq!(pool.size(), 61);

    assert_eq!(addr(pool.allocate(8, 8).unwrap()), a + 8);
    assert_eq!(addr(pool.allocate(48, 8).unwrap()), a + 16);
    assert_eq!(pool.used(), 61); // A+16+48 = A+64: full to the last byte.
    let before = state(&pool);
    assert_eq!(
        pool.allocate(1, 1),
        Err(Error::OutOfMemory {
            requested: 1,
            align: 1,
            needed: 1,
            available: 0
        })
    );
    assert_eq!(state(&pool), before);
}

/// The whole kind: at every base misalignment 0..16 and every alignment 1..=16, the address
/// (not the offset) is aligned and the padding is the least possible.
#[test]
fn every_misalignment_gets_the_least_padding() {
    let mut array = Aligned::<64>::new();
    let a = array.addr();
    for skew in 0..16 {
        for shift in 0..5 {
            let align = 1usize << shift;
            let pool = MemoryAllocator::new(&mut array.0[skew..]);
            let p = addr(pool.allocate(1, align).unwrap());
            assert_eq!(p % align, 0);
            let expected = (a + skew).next_multiple_of(align);
            assert_eq!(p, expected, "skew {skew} align {align}");
            assert_eq!(pool.used(), expected - (a + skew) + 1);
        }
    }
}

// ---- Typed plans: spans checked against the plan ------------------------------------------

enum Two {}
impl Plan for Two {
    const NAME: &'static str = "two";
    const REGIONS: usize = 2;
    const REGION_INFO: &'static [RegionInfo] = &[
        RegionInfo::new("sram", 0, 1024, 1024, 8, RegionKind::Unspecified),
        RegionInfo::new("dtcm", 1, 64, 64, 16, RegionKind::TightlyCoupled),
    ];
}
struct Sram;
impl MemoryId for Sram {
    type Plan = Two;
    const ID: u32 = 0;
    const NAME: &'static str = "sram";
    const SIZE: usize = 1024;
    const CAPACITY: usize = 1024;
    const ALIGN: usize = 8;
}
struct B;
impl PlannedBuffer for B {
    type Region = Sram;
    type Elem = u8;
    const NAME: &'static str = "b";
    const OFFSET: usize = 512;
    const SIZE: usize = 512;
    const ALIGN: usize = 8;
    const FIRST: u32 = 1;
    const LAST: u32 = 2;
}

#[test]
fn typed_allocator_rejects_spans_that_do_not_match_the_plan() {
    let mut sram = AlignedBytes::<1024>::new();
    let mut dtcm = AlignedBytes::<80>::new();
    {
        let mut one = [Span::from_bytes(&mut sram.0)];
        assert_eq!(
            HierarchicalAllocator::<Two>::with_plan(&mut one).unwrap_err(),
            Error::PlanMismatch {
                memory_id: 1,
                needed: 2,
                available: 1,
                what: PlanMismatch::RegionCount
            }
        );
    }
    {
        // One byte short again: a span one byte short of the plan is refused.
        let mut short = [
            Span::from_bytes(&mut sram.0[..1023]),
            Span::from_bytes(&mut dtcm.0[..64]),
        ];
        assert_eq!(
            HierarchicalAllocator::<Two>::with_plan(&mut short).unwrap_err(),
            Error::PlanMismatch {
                memory_id: 0,
                needed: 1024,
                available: 1023,
                what: PlanMismatch::RegionSize
            }
        );
    }
    {
        // 64 bytes, but at an address that is 8 past a multiple of 16.
        let mut skewed = [
            Span::from_bytes(&mut sram.0),
            Span::from_bytes(&mut dtcm.0[8..72]),
        ];
        let err = HierarchicalAllocator::<Two>::with_plan(&mut skewed).unwrap_err();
        assert_eq!(
            err,
            Error::PlanMismatch {
                memory_id: 1,
                needed: 16,
                available: 8,
                what: PlanMismatch::RegionAlign
            }
        );
    }
    let base = sram.addr();
    let mut spans = [
        Span::from_bytes(&mut sram.0),
        Span::from_bytes(&mut dtcm.0[..64]),
    ];
    let planned = HierarchicalAllocator::<Two>::with_plan(&mut spans).unwrap();
    assert_eq!(addr(planned.buffer::<B>()), base + 512);
    assert_eq!(planned.buffer_slice::<B>().len(), 512);
    assert_eq!(
        planned.region_info(1).unwrap().kind,
        RegionKind::TightlyCoupled
    );
    assert_eq!(planned.region_info(2), None);
}
