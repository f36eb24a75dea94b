//! `&MemoryAllocator` as an `allocator_api2::alloc::Allocator`, with allocator-api2's own
//! collections.

use core::mem::MaybeUninit;

use allocator_api2::alloc::{Allocator, Layout};
use allocator_api2::boxed::Box;
use allocator_api2::vec::Vec;
use memplan_runtime::MemoryAllocator;

#[repr(C, align(16))]
struct Pool<const N: usize>([MaybeUninit<u8>; N]);

impl<const N: usize> Pool<N> {
    fn new() -> Self {
        Pool([MaybeUninit::uninit(); N])
    }
}

#[test]
fn vec_lives_in_the_pool_and_grows_in_place() {
    let mut mem = Pool::<256>::new();
    let base = mem.0.as_ptr().addr();
    let pool = MemoryAllocator::new(&mut mem.0);
    let mut v: Vec<u32, &MemoryAllocator<'_>> = Vec::with_capacity_in(4, &pool);
    for i in 0..10u32 {
        v.push(i * i);
    }
    assert_eq!(v.as_ptr().addr(), base);
    // Capacity 4 -> 8 -> 16 (allocator-api2's doubling); each growth is in place because the
    // vector is the last block, so the pool holds exactly 16 * 4 bytes.
    assert_eq!(v.capacity(), 16);
    assert_eq!(pool.used(), 64);
    assert_eq!(v.iter().sum::<u32>(), 285);
    drop(v);
    // The last block was freed: the cursor went back, the high-water mark stayed.
    assert_eq!((pool.used(), pool.high_water()), (0, 64));
}

#[test]
fn interleaved_vectors_copy_on_growth_and_keep_their_values() {
    let mut mem = Pool::<512>::new();
    let pool = MemoryAllocator::new(&mut mem.0);
    let mut a: Vec<u16, _> = Vec::with_capacity_in(2, &pool);
    let mut b: Vec<u64, _> = Vec::with_capacity_in(2, &pool);
    for i in 0..6u16 {
        a.push(i); // `a` is not the last block: it moves.
        b.push(u64::from(i) << 40);
    }
    assert_eq!(&a[..], &[0, 1, 2, 3, 4, 5]);
    assert_eq!(b.iter().map(|x| x >> 40).sum::<u64>(), 15);
    let u64_align = core::mem::align_of::<u64>();
    assert!(a.as_ptr().addr() % 2 == 0 && b.as_ptr().addr() % u64_align == 0);
    let used = if u64_align == 8 {
        // 64-bit targets. Blocks: a[0,4) b[8,24); i=2: a -> [24,32), b -> [32,64);
        // i=4: a -> [64,80), b -> [80,144).
        144
    } else {
        // i686, where `u64` is 4-aligned: a[0,4) b[4,20); i=2: a -> [20,28), b -> [28,60);
        // i=4: a -> [60,76), b -> [76,140).
        assert_eq!(u64_align, 4);
        140
    };
    // Old blocks that were not last stay used until reset.
    assert_eq!(pool.used(), used);
    assert_eq!(b.as_ptr().addr() - a.as_ptr().addr(), 16);
}

#[test]
fn full_pool_reports_an_error_and_changes_nothing() {
    let mut mem = Pool::<64>::new();
    let pool = MemoryAllocator::new(&mut mem.0);
    let mut v: Vec<u8, _> = Vec::new_in(&pool);
    assert!(v.try_reserve_exact(64).is_ok());
    assert_eq!(pool.used(), 64);
    assert!(v.try_reserve_exact(65).is_err());
    assert_eq!((pool.used(), pool.high_water()), (64, 64));
    let before = pool.used();
    assert!(Allocator::allocate(&&pool, Layout::from_size_align(1, 1).unwrap()).is_err());
    assert_eq!(pool.used(), before);
}

#[test]
fn boxes_and_shrink() {
    let mut mem = Pool::<128>::new();
    let base = mem.0.as_ptr().addr();
    let pool = MemoryAllocator::new(&mut mem.0);
    let b = Box::new_in(0xdead_beef_u64, &pool);
    assert_eq!(*b, 0xdead_beef);
    assert_eq!(pool.used(), 8);
    let mut v: Vec<u8, _> = Vec::with_capacity_in(32, &pool);
    v.extend_from_slice(b"planned");
    v.shrink_to_fit();
    assert_eq!(v.capacity(), 7);
    // The box (8 bytes), then the vector shrunk in place to 7 bytes.
    assert_eq!(v.as_ptr().addr(), base + 8);
    assert_eq!(pool.used(), 15);
    assert_eq!(pool.high_water(), 40);
    assert_eq!(&v[..], b"planned");
}
