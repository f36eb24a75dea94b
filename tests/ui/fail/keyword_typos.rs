// A misspelt statement or clause keyword is named with the keyword meant, and a size with
// a fraction with the bytes meant, each in its own error of one build.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 4 KiB;
        regoin dtcm: 1 KiB;
        region itcm: 4 KiB, aling 16;
        region flash: 1.5 KiB;
        bufer a: 64 bytes in sram, live 0..=1;
        buffer b: 64 bytes in sram, lvie 0..=1;
        buffer c: 0.3 KiB in sram, live 0..=1;
        buffer d: 200 byte in sram, live 0..=1;
    }
}

fn main() {}
