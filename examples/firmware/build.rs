//! memplan's linker fragment for the plan in `src/lib.rs` (placing its arenas in SRAM3),
//! and `memory.x` (MEMORY only) where cortex-m-rt's `link.x` finds it.

fn main() {
    memplan_build::linker_fragment(["src/lib.rs"]).expect("memplan's linker fragment");
    println!("cargo:rerun-if-changed=memory.x");
}
