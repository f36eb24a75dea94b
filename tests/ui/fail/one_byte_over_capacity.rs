// One byte over: 512 + 513 bytes live together at step 1 need 1025; the region has 1024.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 1024 bytes, align 8;
        buffer a: 512 bytes in sram, live 0..=1, align 1;
        buffer b: 513 bytes in sram, live 1..=2, align 1;
    }
}

fn main() {}
