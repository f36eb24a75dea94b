// A plan error (here `b` in place of `a` while `a` is still live) is the build's only
// error: the user's code that uses the views as the declarations intend (the in-place
// pair's `input()` and `output()` at `b`'s first step, each buffer's own field after it,
// the `uninit` region's `MaybeUninit` elements) raises nothing more.
use core::mem::MaybeUninit;
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 256 bytes;
        region u: 64 bytes, uninit;
        buffer a: [i8; 16] in r, live 0..=2;
        buffer b: [i8; 16] in r, in place of a, live 1..=2;
        buffer c: [u32; 4] in u, live 0..=1;
    }
}

fn main() {
    let manager = p::take().unwrap();
    {
        let (mut s, _) = manager.step_any_order::<0>();
        s.a()[0] = 1;
        let c: &mut [MaybeUninit<u32>; 4] = s.c();
        c[0].write(1);
    }
    {
        let (mut s, _) = manager.step_any_order::<1>();
        let pair = s.b();
        pair.output()[0] = pair.input()[0];
    }
    let (mut s, _) = manager.step_any_order::<2>();
    s.b()[1] = s.a()[1];
}
