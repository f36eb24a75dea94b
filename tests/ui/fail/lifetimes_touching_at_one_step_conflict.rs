// Lifetimes are inclusive: `a` is still read at step 2, when `b` is first written, so they
// conflict and need 608 + 512 = 1120 bytes.
memplan_runtime::memory_plan! {
    mod m {
        region act: 1024 bytes, align 16;
        buffer a: 608 bytes in act, live 0..=2;
        buffer b: 512 bytes in act, live 2..=4;
    }
}

fn main() {}
