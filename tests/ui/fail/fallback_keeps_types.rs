// The plan overflows, but the typed ids still exist: the only error is the overflow.
use memplan_runtime::{MemoryId, PlannedBuffer};

memplan_runtime::memory_plan! {
    mod m {
        region sram: 100 bytes;
        buffer a: 64 bytes in sram, live 0..=1;
        buffer b: 64 bytes in sram, live 0..=1;
    }
}

fn main() {
    let _ = <m::Sram as MemoryId>::ID;
    let _ = <m::A as PlannedBuffer>::OFFSET;
    assert!(m::take().is_none());
}
