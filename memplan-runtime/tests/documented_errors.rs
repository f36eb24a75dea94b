//! The allocators do what their documentation says at the edges: a request whose aligned
//! end does not fit a `usize` is `Error::Overflow` (it was `OutOfMemory`), and zero-size
//! requests never fail, not even on an empty or full allocator (they failed there).

use core::mem::MaybeUninit;

use memplan_runtime::{Error, MemoryAllocator};

#[test]
fn a_request_whose_end_does_not_fit_a_usize_is_overflow() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 64];
    let pool = MemoryAllocator::new(&mut buf);
    let size = usize::MAX - 8;
    assert_eq!(
        pool.allocate(size, 1),
        Err(Error::Overflow {
            count: 1,
            elem_size: size,
            align: 1
        })
    );
    assert_eq!(pool.used(), 0);
    // A request that fits the address space but not the pool stays out of memory.
    assert!(matches!(
        pool.allocate(65, 1),
        Err(Error::OutOfMemory { needed: 65, .. })
    ));
}

#[test]
fn zero_size_requests_never_fail() {
    let empty = MemoryAllocator::empty();
    let list = empty.allocate_list::<u32>(0).expect("zero elements");
    assert_eq!(list.len(), 0);
    assert_eq!(list.as_ptr().addr() % 4, 0);
    let p = empty.allocate(0, 4096).expect("zero bytes, any alignment");
    assert_eq!(p.as_ptr().addr() % 4096, 0);
    assert_eq!(empty.used(), 0);

    let mut buf = [MaybeUninit::<u8>::uninit(); 16];
    let full = MemoryAllocator::new(&mut buf);
    full.allocate(full.free(), 1).expect("the whole pool");
    let p = full.allocate(0, 64).expect("zero bytes in a full pool");
    assert_eq!(p.as_ptr().addr() % 64, 0);
    assert_eq!(full.free(), 0);
    // Still not a valid alignment.
    assert_eq!(
        full.allocate(0, 3),
        Err(Error::InvalidAlignment { align: 3 })
    );
}
