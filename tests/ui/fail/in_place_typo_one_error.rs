// A typo in `in place of NAME` is one error, with the name it was likely meant to be, and
// nothing else: the code that uses the pair as at its handover (`input()`, `output()`) and
// as a plain buffer after it adds no error.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 256 bytes;
        buffer conv1: [i8; 32] in r, live 0..=1;
        buffer relu1: [i8; 32] in place of conv11, live 1..=2;
        buffer logits: [i8; 4] in r, live 2..=2;
    }
}

fn main() {
    let m = p::take().unwrap();
    let (s, _) = m.step_any_order::<0>();
    s.conv1[0] = 1;
    let (mut s, _) = m.step_any_order::<1>();
    let x = s.relu1.input()[0];
    s.relu1.output()[0] = x.max(0);
    let (s, _) = m.step_any_order::<2>();
    s.logits[0] = s.relu1[0];
}
