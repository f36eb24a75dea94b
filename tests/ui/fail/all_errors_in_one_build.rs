// Errors of every stage arrive together: a syntax error, an unknown region, and, from
// planning the buffers that have no error, an overflow and a pin overlap.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        region dtcm: 256 bytes;
        buffer typo: 64 bytes in sarm, live 0..=1;
        buffer bad: 64 bytes in sram live 0..=1 colour;
        buffer big1: 200 bytes in dtcm, live 0..=1;
        buffer big2: 200 bytes in dtcm, live 1..=2;
        buffer p: 128 bytes in sram, live 0..=3, at 0;
        buffer q: 128 bytes in sram, live 2..=3, at 64;
        buffer user_of_typo: in place of typo, live 1..=2;
    }
}

fn main() {}
