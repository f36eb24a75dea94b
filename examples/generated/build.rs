//! What an ML compiler's generated project does: plan the plan files the compiler
//! exported, at build time, into `memory_plan!` source in OUT_DIR.

use memplan_build::{PlanFile, Strategy};

fn main() {
    // memplan's JSON: two regions, alignments, a pinned buffer, names that are not
    // identifiers (`conv1.out`), a buffer without a region (spilled) and a zero-size one.
    PlanFile::new("plans/kws.json", "kws")
        .write()
        .expect("the keyword spotter's memory plan");
    // ExecuTorch's exported plan of a transformer encoder layer, in one 512 KiB region.
    PlanFile::new(
        "../data/executorch/transformer_encoder_greedy.csv",
        "encoder",
    )
    .region("sram", 512 * 1024, 16)
    .strategy(Strategy::BestOf)
    .write()
    .expect("the encoder's memory plan");
    println!("cargo::rerun-if-changed=build.rs");
}
