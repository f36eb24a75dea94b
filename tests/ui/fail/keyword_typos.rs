// A misspelt statement or clause keyword, strategy or region kind is named with the one
// meant, and a size with a fraction or a unit memplan does not read with the bytes meant,
// each in its own error of one build.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 4 KiB;
        regoin dtcm: 1 KiB;
        region itcm: 4 KiB, aling 16;
        region flash: 1.5 KiB;
        region rom: 2.5KiB;
        region tcm: 2 KiB, kind tightly_couple;
        region ext: 100 kb;
        strategy = greddy;
        bufer a: 64 bytes in sram, live 0..=1;
        buffer b: 64 bytes in sram, lvie 0..=1;
        buffer c: 0.3 KiB in sram, live 0..=1;
        buffer d: 200 byte in sram, live 0..=1;
        buffer e: [i8; 1.5] in sram, live 0..=1;
    }
}

fn main() {}
