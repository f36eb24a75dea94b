// `a` ends at step 2 and `b` starts at step 3: they never meet, so they share bytes.
use memplan_runtime::{MemoryId, PlannedBuffer, memory_plan};

memory_plan! {
    mod m {
        region act: 608 bytes, align 16;
        buffer a: 608 bytes in act, live 0..=2;
        buffer b: 512 bytes in act, live 3..=4;
    }
}

fn main() {
    assert_eq!(<m::Act as MemoryId>::SIZE, 608);
    assert_eq!(<m::A as PlannedBuffer>::OFFSET, <m::B as PlannedBuffer>::OFFSET);
}
