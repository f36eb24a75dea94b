// A `temp at` request larger than the temp pool's size is a compile error at the request,
// with both numbers (steps 1..=2 take 32 bytes, step 2 another 24: 56 over 48); `per step`
// sizes only the temp pool; and `temp: per step` without requests says what it needs.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 64 bytes;
        temp: 48;
        temp at 1..=2: 32;
        temp at 2: [u64; 3];
        buffer x: [u8; 8] in r, live 0..=2;
    }
}

memory_plan! {
    mod q {
        region r: 64 bytes;
        runtime: per step;
        temp: per step;
        buffer x: [u8; 8] in r, live 0..=0;
    }
}

fn main() {}
