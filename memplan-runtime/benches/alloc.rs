//! `MemoryAllocator::allocate` against bumpalo's `Bump::alloc_layout` on the same sequence
//! of mixed sizes and alignments with a reset every `RESET_EVERY` allocations; and typed
//! buffer access against raw pointer arithmetic.
//!
//! `cargo bench -p memplan-runtime --bench alloc`

#![allow(missing_docs)] // criterion_group! generates an undocumented pub fn

use std::hint::black_box;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use bumpalo::Bump;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memplan_runtime::{
    HierarchicalAllocator, MemoryAllocator, MemoryId, Plan, PlannedBuffer, RegionInfo, RegionKind,
    Span,
};

mod workload;
use workload::{POOL, RESET_EVERY, SEQUENCE, sequence};

fn bump(c: &mut Criterion) {
    let layouts = sequence();
    let mut group = c.benchmark_group("bump");
    group.throughput(Throughput::Elements(SEQUENCE as u64));

    group.bench_function("memplan_allocate", |b| {
        let mut mem = vec![MaybeUninit::<u8>::uninit(); POOL];
        let mut pool = MemoryAllocator::new(&mut mem);
        b.iter(|| {
            for batch in layouts.chunks(RESET_EVERY) {
                for layout in batch {
                    black_box(pool.allocate(layout.size(), layout.align()).unwrap());
                }
                pool.reset();
            }
        });
    });

    group.bench_function("bumpalo_alloc_layout", |b| {
        let mut bump = Bump::with_capacity(POOL);
        b.iter(|| {
            for batch in layouts.chunks(RESET_EVERY) {
                for layout in batch {
                    black_box(bump.alloc_layout(*layout));
                }
                bump.reset();
            }
        });
    });
    group.finish();
}

// ---- Typed access ----------------------------------------------------------------------------

enum Bench {}
impl Plan for Bench {
    const NAME: &'static str = "bench";
    const REGIONS: usize = 2;
    const REGION_INFO: &'static [RegionInfo] = &[
        RegionInfo::new("sram", 0, 4096, 4096, 16, RegionKind::Unspecified),
        RegionInfo::new("dtcm", 1, 1024, 1024, 16, RegionKind::TightlyCoupled),
    ];
}

macro_rules! region {
    ($name:ident, $id:expr, $size:expr) => {
        struct $name;
        impl MemoryId for $name {
            type Plan = Bench;
            const ID: u32 = $id;
            const NAME: &'static str = stringify!($name);
            const SIZE: usize = $size;
            const CAPACITY: usize = $size;
            const ALIGN: usize = 16;
        }
    };
}
region!(Sram, 0, 4096);
region!(Dtcm, 1, 1024);

macro_rules! buffer {
    ($name:ident in $region:ty, $elem:ty, $offset:expr, $size:expr) => {
        struct $name;
        impl PlannedBuffer for $name {
            type Region = $region;
            type Elem = $elem;
            const NAME: &'static str = stringify!($name);
            const OFFSET: usize = $offset;
            const SIZE: usize = $size;
            const ALIGN: usize = 16;
            const FIRST: u32 = 0;
            const LAST: u32 = 1;
        }
    };
}
buffer!(Input in Dtcm, i8, 0, 496);
buffer!(Conv1 in Sram, f32, 0, 2048);
buffer!(Conv2 in Sram, f32, 2048, 2048);
buffer!(Logits in Dtcm, f32, 512, 48);

/// Raw pointer arithmetic on the same table: region base + constant offset, unchecked.
#[inline(always)]
fn raw<T>(h: &HierarchicalAllocator<'_, Bench>, id: usize, offset: usize) -> NonNull<T> {
    // SAFETY: the callers pass memory ids 0 and 1, which exist.
    let span = unsafe { h.spans().get_unchecked(id) };
    // SAFETY: the callers pass offsets inside their spans.
    unsafe { span.as_ptr().add(offset).cast::<T>() }
}

fn typed(c: &mut Criterion) {
    #[repr(align(16))]
    struct Mem<const N: usize>([u8; N]);
    let mut sram = Box::new(Mem([0u8; 4096]));
    let mut dtcm = Box::new(Mem([0u8; 1024]));
    let mut spans = [Span::from_bytes(&mut sram.0), Span::from_bytes(&mut dtcm.0)];
    let planned = HierarchicalAllocator::<Bench>::with_plan(&mut spans).unwrap();

    let mut group = c.benchmark_group("lookup");
    group.throughput(Throughput::Elements(4 * 256));
    group.bench_function("typed_buffer", |b| {
        b.iter(|| {
            let h = black_box(&planned);
            for _ in 0..256 {
                black_box(h.buffer::<Input>());
                black_box(h.buffer::<Conv1>());
                black_box(h.buffer::<Conv2>());
                black_box(h.buffer::<Logits>());
            }
        });
    });
    group.bench_function("raw_pointer_arithmetic", |b| {
        b.iter(|| {
            let h = black_box(&planned);
            for _ in 0..256 {
                // The same facts written by hand: region base + constant offset, unchecked.
                black_box(raw::<i8>(h, 1, 0));
                black_box(raw::<f32>(h, 0, 0));
                black_box(raw::<f32>(h, 0, 2048));
                black_box(raw::<f32>(h, 1, 512));
            }
        });
    });
    group.bench_function("get_offset_address", |b| {
        b.iter(|| {
            let h = black_box(&planned);
            for _ in 0..256 {
                black_box(h.get_offset_address(1, 0, 496).unwrap());
                black_box(h.get_offset_address(0, 0, 2048).unwrap());
                black_box(h.get_offset_address(0, 2048, 2048).unwrap());
                black_box(h.get_offset_address(1, 512, 48).unwrap());
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bump, typed);
criterion_main!(benches);
