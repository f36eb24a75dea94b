memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        region dtcm: 512 bytes;
        buffer a: 64 bytes in sarm, live 0..=1;
    }
}

fn main() {}
