// A buffer used outside its declared lifetime is not a field of that step's view:
// `logits` is live 0..=0 only. rustc finds the buffer's accessor instead, whose call says
// the lifetime (`view_accessor_names_the_lifetime`).
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
