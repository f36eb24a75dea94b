// BL-09: a pin ending at 1100 > 1024, and a pin at 4 with alignment 16.
memplan_runtime::memory_plan! {
    mod m {
        region act: 1024 bytes, align 16;
        buffer far: 100 bytes in act, live 0..=1, align 8, at 1000;
        buffer odd: 64 bytes in act, live 0..=1, at 4;
    }
}

fn main() {}
