// The ordinary walk hands out a plan's steps in order: from step 0's walk comes step 1's,
// never step 2's, so code that opens step 2 right after step 0 does not compile.
use memplan_runtime::{Walk, memory_plan};

memory_plan! {
    mod p {
        region r: 64 bytes;
        buffer a: 16 bytes in r, live 0..=1;
        buffer b: 16 bytes in r, live 1..=2;
    }
}

fn main() {
    let manager = p::take().unwrap();
    let step = manager.walk();
    let mut two: Walk<'_, '_, p::steps::S2> = step.next();
    let _ = two.view();
}
