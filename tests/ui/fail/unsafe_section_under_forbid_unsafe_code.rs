// A raw section is the user's `unsafe`: `forbid(unsafe_code)` in the user's crate rejects it,
// pointing at the `unsafe` they wrote.
#![forbid(unsafe_code)]
use memplan_runtime::memory_plan;

memory_plan! {
    mod m {
        region sram: 64 bytes, unsafe section ".sram1";
        buffer a: 16 bytes in sram, live 0..=0;
    }
}

fn main() {}
