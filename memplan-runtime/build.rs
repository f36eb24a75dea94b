//! Tells the build scripts of the packages that depend on the runtime whether its
//! `debug-canary` feature is on (`DEP_MEMPLAN_RUNTIME_DEBUG_CANARY` is `1` or `0`), so that
//! memplan-build's linker fragment sizes the arenas with the guard bytes the macro plans.

fn main() {
    let on = std::env::var_os("CARGO_FEATURE_DEBUG_CANARY").is_some();
    println!("cargo::metadata=debug_canary={}", u8::from(on));
    println!("cargo::rerun-if-changed=build.rs");
}
