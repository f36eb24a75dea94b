// A buffer statement that does not parse is one error: the code that uses the buffer, at
// any step (its lifetime is unknown), with the element type written before the error,
// adds none.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region sram: 1 KiB;
        buffer a: [i8; 100] in sram, lvie 0..=1;
        buffer b: [i8; 100] in sram, live 1..=2;
    }
}

fn main() {
    let m = p::take().unwrap();
    let mut step = m.walk();
    let (s, _) = step.view();
    s.a[0] = 1;
    let mut step = step.next();
    let (s, _) = step.view();
    s.b[0] = s.a[0];
    let mut step = step.next();
    let (s, _) = step.view();
    s.b[1] = s.a[1];
}
