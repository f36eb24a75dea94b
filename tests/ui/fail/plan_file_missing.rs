memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffers in sram from "no_such_plan.csv";
    }
}

fn main() {}
