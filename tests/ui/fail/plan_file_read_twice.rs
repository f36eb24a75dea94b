// The same plan file read twice: one error for the file, not one per row.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffers in sram from "../plans_small.csv";
        buffers in sram from "../plans_small.csv";
    }
}

fn main() {}
