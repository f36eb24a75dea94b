// `inp` is still read at step 2, after `out`, in place of it, is first written at step 1.
memplan_runtime::memory_plan! {
    mod m {
        region act: 1024 bytes, align 16;
        buffer inp: 256 bytes in act, live 0..=2;
        buffer out: 256 bytes in place of inp, live 1..=3;
    }
}

fn main() {}
