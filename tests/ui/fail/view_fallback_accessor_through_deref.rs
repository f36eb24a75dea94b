// Behind every step view's `Deref` sit the accessors of the buffers the view does not hold,
// there only to fail with the buffer's lifetime. On a view that holds the buffer, an
// explicit `(*s).a()` names that fallback instead of the view's own `a()`: it must not
// compile in safe code (its body cannot give the bytes, and would panic).
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 64 bytes;
        buffer a: [u8; 8] in r, live 0..=1;
    }
}

fn main() {
    let manager = p::take().unwrap();
    let (s, _) = manager.step_any_order::<0>();
    let _ = (*s).a();
}
