// A number of hundreds of digits is one error on the number, at once (syn would read its
// value digit by digit, quadratic in its length), and the statement adds no other error.
memplan_runtime::memory_plan! {
    mod m {
        region r: 64 bytes;
        buffer a: 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000 bytes in r, live 0..=0;
        buffer b: 16 bytes in r, live 0..=0;
    }
}

fn main() {
    let _ = m::take();
}
