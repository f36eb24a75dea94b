// `conv.out` and `conv_out` both become the Rust name `ConvOut`.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffers in sram from "../plans_mangle.csv";
    }
}

fn main() {}
