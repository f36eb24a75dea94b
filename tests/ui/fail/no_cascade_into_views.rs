// A mistake in a buffer's declaration is one error, not also errors in the code that uses
// the buffer through the step views: an invalid alignment is not also "below the element
// type's"; an in-place buffer whose source is still live keeps both fields in the views;
// a reversed lifetime stands for the steps written, so the buffer's field is there.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 1 KiB;
        buffer fft: [f32; 8] in r, live 0..=0, align 3;
        buffer samples: [i16; 16] in r, live 0..=1;
        buffer window: [i16; 16] in place of samples, live 0..=2;
        buffer logits: [f32; 4] in r, live 4..=3;
    }
}

fn main() {
    let m = p::take().unwrap();
    let (s, _) = m.step_any_order::<0>();
    s.fft[0] = 1.0;
    s.samples[0] = 1;
    s.window[0] = 2;
    let (s, _) = m.step_any_order::<3>();
    s.logits[0] = 0.5;
    let (s, _) = m.step_any_order::<4>();
    s.logits[1] = 0.5;
}
