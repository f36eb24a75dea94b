// The whole language in one plan: several regions with alignment, section and kind; the
// three pools; sizes in bytes, KiB and `[T; N]` (primitive and user types); alignment,
// padding, pins, in place, spill to the first region that fits, exclusive lifetimes; doc
// comments passed through; the `crate = path` override.
use memplan_runtime::{MemoryId, PlannedBuffer, RegionKind};

mod hal {
    pub use memplan_runtime as memplan;
}

#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Sample {
    pub left: i16,
    pub right: i16,
}

memplan_runtime::memory_plan! {
    /// The plan's module.
    pub mod kws {
        //! Inner doc comments go to the module too.
        crate = crate::hal::memplan;
        /// Tightly coupled data memory.
        region dtcm: 1 KiB, align 32, kind tightly_coupled;
        region sram: 16 KiB, memory SRAM1, kind dma;
        constant: 64 bytes;
        runtime: 2 KiB;
        temp: 1 KiB, align 64;
        strategy = greedy;
        /// The input samples.
        buffer input: [Sample; 64] as 256 bytes in dtcm, live 0..=1, align 4;
        buffer conv1: 1000 bytes in sram, live 1..=2, align 64, pad;
        buffer relu1: in place of conv1, live 2..=3;
        buffer weights: [f32; 16] in sram, live 0..=4, at 8192;
        buffer spill: 900 bytes, live 0..4;
        buffer logits: [u64; 4], live 3..=4;
    }
}

fn main() {
    assert_eq!(<kws::Dtcm as MemoryId>::KIND, RegionKind::TightlyCoupled);
    assert_eq!(<kws::Sram as MemoryId>::KIND, RegionKind::DmaCapable);
    // Padding rounds 1000 up to 1024; the in-place buffer takes conv1's offset and size.
    assert_eq!(<kws::Conv1 as PlannedBuffer>::SIZE, 1024);
    assert_eq!(<kws::Relu1 as PlannedBuffer>::OFFSET, <kws::Conv1 as PlannedBuffer>::OFFSET);
    assert_eq!(<kws::Relu1 as PlannedBuffer>::SIZE, 1024);
    assert_eq!(<kws::Weights as PlannedBuffer>::OFFSET, 8192);
    // `spill` (900 bytes, steps 0..=3) cannot go in dtcm beside `input` (256 bytes, steps
    // 0..=1): 256 + 900 > 1024, so it goes to the next region, sram (memory id 1).
    // `logits` (32 bytes) fits dtcm, the first region.
    let spill = kws::BUFFERS.iter().find(|b| b.name == "spill").unwrap();
    assert_eq!(spill.memory_id, 1);
    assert_eq!(spill.last, 3);
    let logits = kws::BUFFERS.iter().find(|b| b.name == "logits").unwrap();
    assert_eq!(logits.memory_id, 0);
    assert_eq!(logits.offset % 32, 0);
    assert_eq!(kws::STRATEGY, "greedy");
    assert!(kws::take().is_some());
}
