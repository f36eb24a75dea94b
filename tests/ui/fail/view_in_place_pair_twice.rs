// At the handover step an in-place pair shares its bytes: the view gives one field, whose
// input and output are borrowed one at a time.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 64 bytes;
        buffer inp: [i8; 16] in r, live 0..=1;
        buffer out: [i8; 16] in place of inp, live 1..=2;
    }
}

fn main() {
    let manager = p::take().unwrap();
    let (mut s, _) = manager.step_any_order::<1>();
    let input = s.out.input();
    let output = s.out.output();
    output[0] = input[0];
}
