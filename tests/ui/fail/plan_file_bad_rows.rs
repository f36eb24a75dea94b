// Every faulty row of a plan file is an error of its own, in file order, in one build.
memplan_runtime::memory_plan! {
    mod m {
        region sram: 1 KiB;
        buffers in sram from "../plans_bad_rows.csv";
    }
}

fn main() {}
