// A crate that forbids `unsafe` code can plan its memory, placed in memories too: the
// generated code's `unsafe` is memplan's, not the user's.
#![forbid(unsafe_code)]
use memplan_runtime::{MemoryId, memory_plan};

memory_plan! {
    mod m {
        region sram: 1 KiB, memory SRAM2;
        region tcm: 256 bytes;
        temp: 128, memory SRAM2;
        buffer a: 512 bytes in sram, live 0..=1;
        buffer b: 512 bytes in sram, live 1..=2;
        buffer c: 64 bytes in tcm, live 0..=2;
    }
}

fn main() {
    assert_eq!(<m::Sram as MemoryId>::SIZE, 1024);
    let manager = m::take().expect("taken once");
    assert_eq!(manager.temp().size(), 128);
}
