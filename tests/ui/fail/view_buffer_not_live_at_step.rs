// A buffer used outside its declared lifetime is not a field of that step's view:
// `logits` is live 0..=0 only.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 64 bytes;
        buffer logits: [f32; 4] in r, live 0..=0;
        buffer next: [f32; 4] in r, live 1..=1;
    }
}

fn main() {
    let manager = p::take().unwrap();
    let (s, _) = manager.step_any_order::<1>();
    let _ = s.logits[0];
}
