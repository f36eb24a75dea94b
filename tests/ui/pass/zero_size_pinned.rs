// A zero-size buffer pinned above the other buffers' bytes (but within the capacity): the
// arena extends to its offset, so its table row resolves and `buffer::<Z>()` is an empty
// slice at that offset, not a const-evaluation error inside the runtime.
use memplan_runtime::{MemoryId, PlannedBuffer, memory_plan};

memory_plan! {
    mod m {
        region act: 256 bytes, align 16;
        buffer a: 64 bytes in act, live 0..=1;
        buffer z: 0 bytes in act, live 0..=1, at 160;
    }
}

fn main() {
    assert_eq!(<m::Act as MemoryId>::SIZE, 160);
    assert_eq!(<m::Z as PlannedBuffer>::OFFSET, 160);
    let manager = m::take().unwrap();
    let planned = manager.planned();
    let base = planned.buffer::<m::A>().as_ptr() as usize;
    assert_eq!(planned.buffer::<m::Z>().as_ptr() as usize - base, 160);
    for row in m::BUFFERS {
        let at = planned.get_offset_address(row.memory_id, row.offset, row.size);
        assert_eq!(at.unwrap().as_ptr() as usize - base, row.offset, "{}", row.name);
    }
}
