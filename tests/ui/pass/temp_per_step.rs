// `temp: per step` sizes the temp pool from the steps' requests: at each step the requests
// that cover it add up, and the pool takes the largest sum. Here step 0 asks 32 bytes
// (`[i32; 8]`), step 1 24, step 2 24 + 16 = 40: the pool is 40 bytes, and step 2's two
// allocations fill it exactly.
use memplan_runtime::memory_plan;

memory_plan! {
    mod p {
        region r: 64 bytes;
        temp: per step;
        temp at 0: [i32; 8];
        temp at 1..=2: 24 bytes;
        temp at 2: 16;
        buffer x: [u8; 8] in r, live 0..=2;
    }
}

// Requests at neighbouring steps do not add up: 32 bytes at step 0, 32 at 1..=2, 8 at 3.
memory_plan! {
    mod adjacent {
        region r: 64 bytes;
        temp: per step;
        temp at 0: 32;
        temp at 1..=2: 32;
        temp at 3: 8;
        buffer x: [u8; 8] in r, live 0..=3;
    }
}

// A pool with a size holds every step's requests (checked at compile time).
memory_plan! {
    mod sized {
        region r: 64 bytes;
        temp: 48;
        temp at 0..=1: [u64; 6];
        buffer x: [u8; 8] in r, live 0..=1;
    }
}

fn main() {
    let mut manager = p::take().expect("taken once");
    assert_eq!(manager.with_temp(|t| t.size()), 40);
    let (_, temp) = manager.step_any_order::<2>();
    temp.scoped(|temp| {
        temp.allocate_value([0u8; 24]).expect("step 2's first request");
        temp.allocate_value([0u8; 16]).expect("step 2's second request");
        assert_eq!(temp.free(), 0);
        assert!(temp.allocate_value(0u8).is_err());
    });
    let mut manager = adjacent::take().expect("taken once");
    assert_eq!(manager.with_temp(|t| t.size()), 32);
    let mut manager = sized::take().expect("taken once");
    assert_eq!(manager.with_temp(|t| t.size()), 48);
}
