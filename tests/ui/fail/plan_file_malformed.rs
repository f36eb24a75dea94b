memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffers in sram from "../plans_malformed.csv";
    }
}

fn main() {}
