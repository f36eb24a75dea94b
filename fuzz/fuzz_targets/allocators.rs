//! The bump allocator, alone and as a manager's pools, on arbitrary operation sequences,
//! against a reference model: every block handed out lies in the buffer, is aligned and
//! overlaps no live block; a failed request changes nothing; the counters follow the model.
#![no_main]

use core::mem::MaybeUninit;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use memplan_runtime::{Error, MemoryAllocator};

#[derive(Arbitrary, Debug)]
enum Op {
    Allocate { size: u16, align_log2: u8 },
    Huge { size: usize, align_log2: u8 },
    Reset,
}

/// The reference: the live blocks, as address ranges, and the high-water mark.
#[derive(Default)]
struct Model {
    live: Vec<(usize, usize)>,
    used: usize,
    high: usize,
}

fuzz_target!(|input: (u16, u8, Vec<Op>)| {
    let (len, skew, ops) = input;
    let len = usize::from(len % 4096);
    let skew = usize::from(skew % 16);
    let mut storage = vec![MaybeUninit::<u8>::uninit(); len + skew];
    let buf = &mut storage[skew..];
    let base = buf.as_ptr().addr();
    let mut pool = MemoryAllocator::new(buf);
    let mut model = Model::default();
    for op in ops.into_iter().take(256) {
        let (size, align) = match op {
            Op::Reset => {
                pool.reset();
                model.live.clear();
                model.used = 0;
                assert_eq!(pool.used(), 0);
                assert_eq!(pool.high_water(), model.high);
                continue;
            }
            Op::Allocate { size, align_log2 } => (usize::from(size), 1usize << (align_log2 % 13)),
            Op::Huge { size, align_log2 } => (size, 1usize << (align_log2 % 63)),
        };
        let before = (pool.used(), pool.free(), pool.high_water());
        match pool.allocate(size, align) {
            Ok(p) => {
                let start = p.as_ptr().addr();
                assert_eq!(start % align, 0, "aligned on the address");
                if size > 0 {
                    assert!(start >= base && start + size <= base + len, "in the buffer");
                    for &(s, e) in &model.live {
                        assert!(start + size <= s || e <= start, "disjoint from live blocks");
                    }
                    model.live.push((start, start + size));
                    model.used = start + size - base;
                    model.high = model.high.max(model.used);
                }
                assert_eq!(pool.used(), model.used);
                assert_eq!(pool.used() + pool.free(), len);
                assert_eq!(pool.high_water(), model.high);
            }
            Err(e) => {
                assert!(
                    matches!(e, Error::OutOfMemory { .. } | Error::Overflow { .. }),
                    "{e:?}"
                );
                assert_eq!((pool.used(), pool.free(), pool.high_water()), before);
            }
        }
    }
});
