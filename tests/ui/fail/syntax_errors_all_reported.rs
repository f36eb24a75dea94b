// Each malformed statement is reported; the well-formed ones are still checked.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KB;
        buffer a 64 bytes in sram, live 0..=1;
        buffer b: 64 bytes in dram, live 0..=1;
        buffer c: 64 bytes in sram, live 0..=1, colour red;
    }
}

fn main() {}
