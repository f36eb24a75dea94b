memplan_runtime::memory_plan! {
    mod m {
        region tcm: 1 KiB;
        region sram: 8 KiB;
        buffer p: 2000 bytes in tcm, live 0..=1;
    }
}

fn main() {}
