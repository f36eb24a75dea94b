//! Writes a plan file into OUT_DIR, as an ML compiler's build step would, so that the tests
//! can check `buffers ... from out_dir "..."`.

use std::fmt::Write as _;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    // A chain of eight 1 KiB buffers, each live two steps: at most two at once.
    let mut csv = String::from("name,mem_id,offset,size,first,last,dtype,shape\n");
    for i in 0..8 {
        writeln!(csv, "layer{i}.out,1,0,1024,{i},{},int8,1024", i + 1).unwrap();
    }
    std::fs::write(std::path::Path::new(&out).join("generated_plan.csv"), csv).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}
