// The peak is at step 3, where `out` holds the bytes `inp` (dead since step 1) handed over
// in place: the note names `out`, live there, not `inp`.
memplan_runtime::memory_plan! {
    mod m {
        region act: 100 bytes, align 4;
        buffer inp: 64 bytes in act, live 0..=1;
        buffer out: 64 bytes in place of inp, live 1..=3;
        buffer tmp: 64 bytes in act, live 3..=3;
    }
}

fn main() {}
