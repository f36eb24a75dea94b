//! Typed buffer access compiles to the same instructions as raw pointer arithmetic.
//!
//! Each `probe_*` function is `#[inline(never)]` and unmangled, so its machine code can be
//! read from the release binary:
//!
//! ```text
//! cargo build --release -p memplan-runtime --example typed_access_asm
//! objdump -d --no-show-raw-insn target/release/examples/typed_access_asm \
//!     | awk '/<probe_(typed|raw)_conv2>:/,/^$/'
//! ```
//!
//! `.ci/runtime-checks.sh` compares the instruction counts of the typed and raw probes.

use std::hint::black_box;
use std::ptr::NonNull;

use memplan_runtime::{
    Error, HierarchicalAllocator, MemoryAllocator, MemoryManager, PlannedBuffer, memory_plan,
};

memory_plan! {
    pub mod kws {
        region sram: 64 KiB, align 16;
        region dtcm: 16 KiB, align 32;
        runtime: 2 KiB;
        temp: 1 KiB;
        buffer input: [i8; 490] in dtcm, live 0..=1;
        buffer conv1: 8000 bytes in sram, live 1..=2, align 64;
        buffer conv2: [f32; 2000] in sram, live 2..=3;
        buffer logits: [f32; 12] in dtcm, live 3..=4, at 256;
    }
}

type Planned<'a> = HierarchicalAllocator<'a, kws::Plan>;

/// Typed: `conv2` looked up by its generated type.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_typed_conv2(h: &Planned<'_>) -> NonNull<f32> {
    h.buffer::<kws::Conv2>()
}

/// Raw: the same region base plus the same constant offset, written by hand, unchecked.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_raw_conv2(h: &Planned<'_>) -> NonNull<f32> {
    const OFFSET: usize = <kws::Conv2 as PlannedBuffer>::OFFSET;
    // SAFETY: memory id 0 exists in this plan.
    let span = unsafe { h.spans().get_unchecked(0) };
    // SAFETY: conv2 lies inside memory id 0.
    unsafe { span.as_ptr().add(OFFSET).cast() }
}

/// Typed, in the second region.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_typed_logits(h: &Planned<'_>) -> NonNull<f32> {
    h.buffer::<kws::Logits>()
}

/// Raw, in the second region.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_raw_logits(h: &Planned<'_>) -> NonNull<f32> {
    // SAFETY: memory id 1 exists in this plan.
    let span = unsafe { h.spans().get_unchecked(1) };
    // SAFETY: logits lies inside memory id 1.
    unsafe { span.as_ptr().add(256).cast() }
}

type Manager = MemoryManager<'static, kws::Plan>;

/// A step's view: the buffers live at step 2 (`conv1`, `conv2`), as references.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_view_step2(m: &mut Manager) -> (*mut u8, *mut f32) {
    let (s, _) = m.step_any_order::<2>();
    (s.conv1.as_mut_ptr(), s.conv2.as_mut_ptr())
}

/// Raw: the same two addresses, the region base plus their constant offsets, by hand.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_raw_step2(m: &mut Manager) -> (*mut u8, *mut f32) {
    const CONV1: usize = <kws::Conv1 as PlannedBuffer>::OFFSET;
    const CONV2: usize = <kws::Conv2 as PlannedBuffer>::OFFSET;
    // SAFETY: memory id 0 exists in this plan.
    let span = unsafe { m.planned().spans().get_unchecked(0) };
    let base = span.as_ptr().as_ptr();
    // SAFETY: conv1 lies inside memory id 0.
    let conv1 = unsafe { base.add(CONV1) };
    // SAFETY: conv2 lies inside memory id 0.
    let conv2 = unsafe { base.add(CONV2) };
    (conv1, conv2.cast())
}

/// The data-driven path, bounds-checked at run time, for comparison.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_checked_conv2(h: &Planned<'_>) -> Result<NonNull<u8>, Error> {
    h.get_offset_address(0, <kws::Conv2 as PlannedBuffer>::OFFSET, 8000)
}

/// The bump allocator's fast path.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn probe_allocate(
    pool: &MemoryAllocator<'_>,
    size: usize,
    align: usize,
) -> Result<NonNull<u8>, Error> {
    pool.allocate(size, align)
}

fn main() {
    let manager = kws::take().expect("first take");
    let h = black_box(manager.planned());
    let typed = probe_typed_conv2(h);
    let raw = probe_raw_conv2(h);
    assert_eq!(typed, raw);
    assert_eq!(probe_typed_logits(h), probe_raw_logits(h));
    assert_eq!(probe_checked_conv2(h).unwrap().cast::<f32>(), typed);
    let p = probe_allocate(black_box(manager.runtime()), 24, 8).unwrap();
    let manager = black_box(manager);
    assert_eq!(probe_view_step2(manager), probe_raw_step2(manager));
    println!("conv2 at {typed:p} (typed) = {raw:p} (raw); runtime block at {p:p}");
}
