memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB, unsafe section ".sram 1\"";
        buffer a: 64 bytes in sram, live 0..=1;
    }
}

fn main() {}
