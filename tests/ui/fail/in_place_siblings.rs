// `b` and `c` are both in place of `a` and both live at steps 1..=2: they would share
// a's bytes at the same steps. (In place of each other in a chain would be legal.)
memplan_runtime::memory_plan! {
    mod m {
        region r: 1 KiB;
        buffer a: 64 bytes in r, live 0..=1;
        buffer b: in place of a, live 1..=2;
        buffer c: in place of a, live 1..=2;
    }
}

fn main() {}
