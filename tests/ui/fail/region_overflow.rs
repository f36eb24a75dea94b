// Two buffers live at step 1 need 1536 bytes; the region has 1024.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffer a: 768 bytes in sram, live 0..=1;
        buffer b: 768 bytes in sram, live 1..=2;
    }
}

fn main() {}
