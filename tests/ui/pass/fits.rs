// A plan that fits: two regions, typed ids, the buffer table and the manager.
use memplan_runtime::{MemoryId, PlannedBuffer, memory_plan};

memory_plan! {
    pub mod kws {
        region sram: 4 KiB, align 16;
        region dtcm: 1 KiB, align 32;
        constant: 0;
        runtime: 256 bytes;
        temp: 128 bytes;
        buffer input: [i8; 490] in dtcm, live 0..=1;
        buffer conv1: 2000 bytes in sram, live 1..=2, align 64;
        buffer conv2: [i8; 2000] in sram, live 2..=3;
        buffer logits: [f32; 12] in dtcm, live 3..=4;
    }
}

fn main() {
    assert_eq!(<kws::Sram as MemoryId>::ID, 0);
    assert_eq!(<kws::Dtcm as MemoryId>::ID, 1);
    // conv1 and conv2 share step 2: 2000 bytes each, 4000 in all.
    assert_eq!(<kws::Sram as MemoryId>::SIZE, 4000);
    assert_eq!(<kws::Conv1 as PlannedBuffer>::OFFSET % 64, 0);
    assert_eq!(kws::BUFFERS.len(), 4);
    assert!(kws::take().is_some());
    assert!(kws::take().is_none());
}
