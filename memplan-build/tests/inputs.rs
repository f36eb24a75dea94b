//! What a build script reads: a source or plan file that is not a regular file (a FIFO) is
//! an error naming it, never a hang.
#![cfg(unix)]

mod common;
use common::{LIB, package};

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use memplan_build::{Error, PlanFile, fragment};

/// Makes a FIFO at `path` (mkfifo(3)).
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    #[cfg(target_vendor = "apple")]
    type Mode = u16;
    #[cfg(not(target_vendor = "apple"))]
    type Mode = u32;
    unsafe extern "C" {
        fn mkfifo(path: *const std::ffi::c_char, mode: Mode) -> std::ffi::c_int;
    }
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    let rc = unsafe { mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(
        rc,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

/// `f()` on a thread of its own; a test failure, not a hang, when it takes over 60 s.
fn bounded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what}: no answer in 60 s (blocked on a FIFO?)"))
}

const FIFO: &str = "not a regular file but a FIFO (named pipe); memplan reads only regular files";

#[test]
fn a_fifo_source_or_plan_file_is_an_error_not_a_hang() {
    let env = package("inputs", "fifo", LIB);
    let lib = env.manifest_dir.join("src/lib.rs");
    std::fs::remove_file(&lib).unwrap();
    mkfifo(&lib);
    let e = bounded("fragment", {
        let env = env.clone();
        move || fragment(&env, ["src/lib.rs"]).unwrap_err().to_string()
    });
    assert_eq!(
        e,
        format!("memplan-build: {}: cannot read: {FIFO}", lib.display())
    );
    let csv = env.out_dir.join("fifo.csv");
    mkfifo(&csv);
    let e = bounded("PlanFile", {
        let csv = csv.clone();
        move || match PlanFile::new(&csv, "m").generate() {
            Err(e @ Error::Plan { .. }) => e.to_string(),
            other => panic!("{other:?}"),
        }
    });
    assert!(
        e.contains(&csv.display().to_string()) && e.contains(FIFO),
        "{e}"
    );
}
