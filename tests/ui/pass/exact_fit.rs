// The plan needs exactly the region's capacity: it builds.
use memplan_runtime::{MemoryId, memory_plan};

memory_plan! {
    mod m {
        region sram: 1 KiB, align 8;
        buffer a: 512 bytes in sram, live 0..=1;
        buffer b: 512 bytes in sram, live 1..=2;
    }
}

fn main() {
    assert_eq!(<m::Sram as MemoryId>::SIZE, <m::Sram as MemoryId>::CAPACITY);
}
