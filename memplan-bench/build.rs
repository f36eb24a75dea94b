//! Finds MiniMalloc's challenging instances for the tests: `MEMPLAN_MINIMALLOC_DIR`, else
//! `../shared/bench/minimalloc/challenging` beside the checkout. When found, the tests that
//! read them are built with `cfg(minimalloc_data)` and the folder in
//! `MEMPLAN_MINIMALLOC_DATA`; otherwise they are `#[ignore]`d, which the test summary shows
//! (stable libtest cannot skip a test at run time).

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(minimalloc_data)");
    println!("cargo::rerun-if-env-changed=MEMPLAN_MINIMALLOC_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dir = match std::env::var_os("MEMPLAN_MINIMALLOC_DIR") {
        Some(d) => PathBuf::from(d),
        None => manifest.join("../../shared/bench/minimalloc/challenging"),
    };
    println!("cargo::rerun-if-changed={}", dir.display());
    if dir.join("B.1048576.csv").is_file() {
        let dir = dir.canonicalize().unwrap_or(dir);
        println!("cargo::rustc-cfg=minimalloc_data");
        println!("cargo::rustc-env=MEMPLAN_MINIMALLOC_DATA={}", dir.display());
    }
}
