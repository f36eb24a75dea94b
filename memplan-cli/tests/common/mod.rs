//! What several of the command's tests share: running `memplan`, and a file of 1,000
//! buffers (one in seven of them empty) in MiniMalloc's format.
#![allow(dead_code)] // each test file uses a part

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Output};

/// `memplan ARGS...`, run (without the caller's `OUT_DIR`, which `from out_dir` reads).
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(args)
        .env_remove("OUT_DIR")
        .output()
        .expect("the memplan binary runs")
}

/// `memplan ARGS...`'s standard output; it must succeed.
pub fn stdout<S: AsRef<OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The 1,000-buffer file, written as `name` in the tests' temporary folder.
pub fn thousand_buffers(name: &str) -> PathBuf {
    let mut csv = String::from("id,lower,upper,size\n");
    for i in 0..1000u64 {
        let size = if i % 7 == 0 {
            0
        } else {
            16 + (i * 7919) % 4096
        };
        csv.push_str(&format!(
            "{i},{},{},{size}\n",
            i % 400,
            i % 400 + 1 + (i * 31) % 50
        ));
    }
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&file, csv).expect("the temporary folder is writable");
    file
}
