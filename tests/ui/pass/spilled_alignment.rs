// Buffers without `in` take the alignment of the region that takes them, not the largest
// of all regions: x (5 bytes), y (6) and z ([u32; 2], so at least 4-aligned) are live
// together at step 1 (19 bytes) and fit byte-aligned `tight` exactly as greedy by size
// packs them: z at 0, y at 8, x at 14.
use memplan_runtime::{MemoryId, PlannedBuffer, memory_plan};

memory_plan! {
    mod m {
        strategy = greedy;
        region tight: 24 bytes, align 1;
        region wide: 1 KiB, align 64;
        buffer x: 5 bytes, live 0..=1;
        buffer y: 6 bytes, live 0..=1;
        buffer z: [u32; 2], live 1..=1;
    }
}

fn main() {
    assert_eq!(<m::Tight as MemoryId>::SIZE, 19);
    assert_eq!(<m::Wide as MemoryId>::SIZE, 0);
    assert_eq!(<m::Z as PlannedBuffer>::OFFSET, 0);
    assert_eq!(<m::Y as PlannedBuffer>::OFFSET, 8);
    assert_eq!(<m::X as PlannedBuffer>::OFFSET, 14);
    assert_eq!(<<m::X as PlannedBuffer>::Region as MemoryId>::ID, 0);
    assert_eq!(<m::Z as PlannedBuffer>::ALIGN, 4);
    assert_eq!(<m::Y as PlannedBuffer>::ALIGN, 1);
}
