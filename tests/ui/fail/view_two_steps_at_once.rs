// Two step views cannot coexist: each borrows the manager mutably.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 64 bytes;
        buffer a: [u8; 16] in r, live 0..=0;
        buffer b: [u8; 16] in r, live 1..=1;
    }
}

fn main() {
    let manager = p::take().unwrap();
    let (s0, _) = manager.step_any_order::<0>();
    let (s1, _) = manager.step_any_order::<1>();
    s0.a[0] = s1.b[0];
}
