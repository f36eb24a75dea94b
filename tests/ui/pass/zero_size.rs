// A zero-size buffer is legal: an aligned offset, no bytes, no raised peak.
use memplan_runtime::{MemoryId, PlannedBuffer, memory_plan};

memory_plan! {
    mod m {
        region act: 64 bytes, align 16;
        buffer a: 64 bytes in act, live 0..=3;
        buffer z: 0 bytes in act, live 0..=3;
        buffer e: [f32; 0] in act, live 1..=2;
    }
}

fn main() {
    assert_eq!(<m::Act as MemoryId>::SIZE, 64);
    assert_eq!(<m::Z as PlannedBuffer>::OFFSET % 16, 0);
    assert_eq!(<m::E as PlannedBuffer>::SIZE, 0);
}
