// Sizes whose arithmetic overflows never wrap into a small "needed" figure.
// A: usize::MAX - 6 bytes, padded up to 16, overflows.
memplan_runtime::memory_plan! {
    mod a {
        region sram: 1 KiB;
        buffer huge: 18446744073709551609 bytes in sram, live 0..=0, align 16, pad;
    }
}

// B: two buffers of usize::MAX / 2 + 1 bytes live together: their sum overflows.
memplan_runtime::memory_plan! {
    mod b {
        region sram: 1 KiB;
        buffer x: 9223372036854775808 bytes in sram, live 0..=0;
        buffer y: 9223372036854775808 bytes in sram, live 0..=0;
    }
}

// A size written with a unit that overflows 64 bits.
memplan_runtime::memory_plan! {
    mod c {
        region sram: 18446744073709551615 MiB;
    }
}

fn main() {}
