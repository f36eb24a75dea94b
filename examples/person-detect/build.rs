//! memplan's linker fragment for the plan in `src/model.rs` (placing its arena and temp
//! pool in SRAM3), and `memory.x` (MEMORY only) where cortex-m-rt's `link.x` finds it.
//!
//! Only for the firmware (a bare-metal target): host builds keep the arenas in `.bss`, and
//! the host's linker has no `SRAM3` for the fragment's `-Tmemplan.x` to name.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none") {
        memplan_build::linker_fragment(["src/model.rs"]).expect("memplan's linker fragment");
    }
    println!("cargo:rerun-if-changed=memory.x");
}
