// An in-place buffer must be no larger than its source.
memplan_runtime::memory_plan! {
    mod m {
        region act: 1024 bytes, align 16;
        buffer inp: 256 bytes in act, live 0..=1;
        buffer out: 320 bytes in place of inp, live 1..=3;
    }
}

fn main() {}
