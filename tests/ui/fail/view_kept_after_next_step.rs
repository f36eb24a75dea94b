// A reference taken from one step's view cannot outlive the opening of the next step: `a`
// is dead at step 1, and its bytes may be `b`'s.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 16 bytes;
        buffer a: [u8; 16] in r, live 0..=0;
        buffer b: [u8; 16] in r, live 1..=1;
    }
}

fn main() {
    let manager = p::take().unwrap();
    let a = manager.step_any_order::<0>().0.a;
    let (s1, _) = manager.step_any_order::<1>();
    s1.b[0] = 1;
    a[0] = 2;
}
