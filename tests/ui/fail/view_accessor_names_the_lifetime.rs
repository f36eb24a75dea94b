// A buffer's accessor on a view of a step where the buffer is not live fails with the
// buffer's lifetime and where it is declared; the field access of the same mistake gives
// rustc's "no field". `logits` is live 0..=0, `a` hands its bytes to `b` at step 1.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 64 bytes;
        buffer logits: [f32; 4] in r, live 0..=0;
        buffer next: [f32; 4] in r, live 1..=2;
        buffer a: [u8; 8] in r, live 0..=1;
        buffer b: [u8; 8] in r, in place of a, live 1..=2;
    }
}

fn main() {
    let mut manager = p::take().unwrap();
    {
        let (mut s, _) = manager.step_any_order::<0>();
        s.logits()[0] = 1.0;
        s.a()[0] = 1;
    }
    {
        let (mut s, _) = manager.step_any_order::<1>();
        s.next()[0] = 2.0;
        s.b().output()[0] = 2;
        let _ = s.a()[0];
    }
    let (s, _) = manager.step_any_order::<2>();
    let _ = s.logits()[0];
}
