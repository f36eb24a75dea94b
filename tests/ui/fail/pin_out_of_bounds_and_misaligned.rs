// Pins are checked: a pin ending at 1100 > 1024, a pin at 4 with alignment 16, and a
// zero-size buffer pinned at the largest offset, past the region's end.
memplan_runtime::memory_plan! {
    mod m {
        region act: 1024 bytes, align 16;
        buffer far: 100 bytes in act, live 0..=1, align 8, at 1000;
        buffer odd: 64 bytes in act, live 0..=1, at 4;
        buffer top: 0 bytes in act, live 0..=1, align 1, at 18446744073709551615;
    }
}

fn main() {}
