memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        region sram: 2 KiB;
        buffer a: 64 bytes in sram, live 0..=1;
        buffer a: 64 bytes in sram, live 2..=3;
    }
}

fn main() {}
