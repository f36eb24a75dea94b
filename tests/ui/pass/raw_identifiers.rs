// A raw identifier names a buffer or region as Rust reads it: `r#type` is the buffer
// `type` (its view field is `r#type`, its type `Type`), and `r#l` is `l`.
use memplan_runtime::{MemoryId, memory_plan};

memory_plan! {
    mod p {
        region r#in: 64 bytes;
        buffer r#type: [u8; 16] in r#in, live 0..=1;
        buffer r#l: [u8; 16] in r#in, live 1..=1;
        buffer out: in place of l, live 1..=2;
    }
}

fn main() {
    assert_eq!(<p::In as MemoryId>::SIZE, 32);
    assert_eq!(p::BUFFERS[0].name, "type");
    let m = p::take().expect("taken once");
    let (s, _) = m.step_any_order::<0>();
    s.r#type[0] = 7;
    let (s, _) = m.step_any_order::<2>();
    s.out[0] = 1;
}
