// A pool above Rust's largest object is a spanned error on its size, as a region's or a
// buffer's is (it was rustc's E0080 from generated code), and 2^64 - 1 is no exception.
memplan_runtime::memory_plan! {
    mod m {
        region r: 16 bytes;
        temp: 18446744073709551615;
        runtime: 9223372036854775808;
        buffer a: 16 bytes in r, live 0..=0;
    }
}

fn main() {}
