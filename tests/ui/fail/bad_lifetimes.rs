memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffer empty: 64 bytes in sram, live 3..3;
        buffer inverted: 64 bytes in sram, live 5..=2;
        buffer missing: 64 bytes in sram;
    }
}

fn main() {}
