// A misspelt `region` keyword is one error: the region's name is still declared, so the
// plan is not told it declares no region, nor its buffers that their region is unknown.
memplan_runtime::memory_plan! {
    mod p {
        regoin sram: 64 KiB;
        buffer a: 100 bytes in sram, live 0..=1;
        bufer b: [i16; 8] in sram, live 0..=1;
    }
}

fn main() {
    let m = p::take().unwrap();
    let (s, _) = m.step_any_order::<0>();
    s.a[0] = 1;
    s.b[0] = -1;
}
