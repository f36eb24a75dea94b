// A buffer statement that does not parse is one error: the code that uses the buffer adds
// none, at the steps of a range written in the statement (`lvie 0..=5`: the plan has step
// 5 for it) or, with none, at any step; typed as written before the error (a primitive, a
// user type); and a buffer in place of it keeps its own field after the handover. A
// `buffers` statement that does not parse declares no buffer.
use memplan_runtime::memory_plan;

#[derive(Clone, Copy)]
pub struct T(pub u32);

memory_plan! {
    mod p {
        region sram: 1 KiB;
        buffer a: [i8; 100] in sram, lvie 0..=1;
        buffer b: [i8; 100] in sram, live 1..=2;
        buffer c: [i8; 8] in sram colour;
    }
}

memory_plan! {
    mod q {
        region r: 1 KiB;
        buffer a: [i8; 100] in r, lvie 0..=1;
        buffer b: [i8; 100] in r, live 1..=2, in place of a;
    }
}

memory_plan! {
    mod w {
        region r: 1 KiB;
        buffer a: [i8; 100] in r, lvie 0..=5;
        buffer zz: [i8; 100] in r, live 1..=2;
        buffer u: [crate::T; 4] as 16 bytes in r, lvie 0..=1;
    }
}

memory_plan! {
    mod x {
        region r: 1 KiB;
        buffers from "../plans_small.csv" junk;
        buffer from: 8 bytes in r, live 0..=1;
    }
}

fn main() {
    let m = p::take().unwrap();
    let mut step = m.walk();
    let (s, _) = step.view();
    s.a[0] = 1;
    s.c[0] = 1;
    let mut step = step.next();
    let (s, _) = step.view();
    s.b[0] = s.a[0];
    let mut step = step.next();
    let (s, _) = step.view();
    s.b[1] = s.c[1];

    let m = q::take().unwrap();
    let (s, _) = m.step_any_order::<0>();
    s.a[0] = 1;
    let (mut s, _) = m.step_any_order::<1>();
    let first = s.b.input()[0];
    s.b.output()[0] = first;
    let (s, _) = m.step_any_order::<2>();
    s.b[0] = 2;

    let m = w::take().unwrap();
    let (s, _) = m.step_any_order::<5>();
    s.a[0] = 1;
    let (s, _) = m.step_any_order::<0>();
    s.u[0] = T(1);

    let m = x::take().unwrap();
    let (s, _) = m.step_any_order::<0>();
    s.from[0] = 1;
}
