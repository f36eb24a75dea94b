memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB, align 24;
        buffer a: 64 bytes in sram, live 0..=1, align 3;
        buffer b: 64 bytes in sram, live 0..=1, align 131072;
    }
}

fn main() {}
