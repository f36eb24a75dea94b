// An unplaced 10000-byte buffer fits no region; a 2000-byte buffer placed in `tcm`
// is never moved to `sram`.
memplan_runtime::memory_plan! {
    mod m {
        region tcm: 1024 bytes;
        region sram: 8192 bytes;
        buffer big: 10000 bytes, live 0..=1;
        buffer p: 2000 bytes in tcm, live 0..=1;
    }
}

fn main() {}
