// One bad clause is one error. In `spill`, a region that does not parse leaves the buffers
// without `in` out of the plan (where they go depends on every region): no "fits no
// region" error for them. In `kept`, the region that plans fine keeps its real sizes and
// offsets in the module that is still declared, so the user's own assertions on it add no
// error.
use memplan_runtime::{MemoryId, PlannedBuffer, memory_plan};

memory_plan! {
    mod spill {
        region a: 1 KiB, colour red;
        region b: 256 bytes;
        buffer spilled: 64 bytes, live 0..=1;
    }
}

memory_plan! {
    mod kept {
        region a: 1 KiB;
        region b: 256 bytes;
        buffer broken: 64 bytes in a, live 0..=1, colour red;
        buffer x: 128 bytes in b, live 0..=1;
        buffer y: 128 bytes in b, live 1..=2;
    }
}

const _: () = assert!(<kept::B as MemoryId>::SIZE == 256);
const _: () = assert!(<kept::X as PlannedBuffer>::OFFSET + <kept::Y as PlannedBuffer>::OFFSET == 128);

fn main() {}
