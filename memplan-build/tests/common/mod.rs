//! What the build script tests share: a package in a fresh folder.
#![allow(dead_code)] // each test file uses a part

use std::path::PathBuf;

use memplan_build::BuildEnv;

/// An invocation of region `act` with a buffer and the rows of `out/rows.csv`.
pub const LIB: &str = "memplan_runtime::memory_plan! {
    pub mod m {
        region act: 256 bytes, memory SRAM3;
        buffer a: 32 bytes in act, live 0..=1;
        buffers in act from out_dir \"rows.csv\";
    }
}
";

/// One row of an ExecuTorch plan.
pub const CSV: &str = "name,mem_id,offset,size,first,last\nx,1,0,64,0,1\n";

/// A package in a fresh folder of the tests' temporary one, named after the test file and
/// `name`: `src/lib.rs` holds `lib`, `out/rows.csv` [`CSV`].
pub fn package(file: &str, name: &str, lib: &str) -> BuildEnv {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{file}-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::fs::write(root.join("src/lib.rs"), lib).unwrap();
    std::fs::write(root.join("out/rows.csv"), CSV).unwrap();
    BuildEnv {
        out_dir: root.join("out"),
        manifest_dir: root,
        package: "fw".to_string(),
        canary: false,
    }
}
