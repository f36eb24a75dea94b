// Nothing emitted may be larger than Rust's largest object (`isize::MAX` bytes): a buffer
// or a pool that large is an error at its size, and a region whose plan is that large an
// error at the region, before rustc rejects the static.
use memplan_runtime::memory_plan;

memory_plan! {
    mod m {
        region huge: 18446744073709551615 bytes;
        temp: 9223372036854775808 bytes;
        buffer a: 9223372036854775808 bytes in huge, live 0..=0;
    }
}

memory_plan! {
    mod n {
        region huge: 18446744073709551615 bytes;
        buffer a: 4611686018427387904 bytes in huge, live 0..=0;
        buffer b: 4611686018427387904 bytes in huge, live 0..=0;
    }
}

fn main() {}
