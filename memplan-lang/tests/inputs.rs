//! Inputs that are not regular files (a FIFO, a device) are refused before they are opened,
//! by every reader of the front end: a plan file or model (`buffers from`, `model from`),
//! `memplan.lock`, `memory.x` and a tool's source file. Each is an error naming the file,
//! never a hang: every check here runs on a thread of its own, with a deadline.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use memplan_lang::{Env, check};

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

/// A fresh, empty folder.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-inputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// The messages of checking `src` in `env`, on a thread with a deadline.
fn messages(src: &'static str, env: Env) -> Vec<String> {
    bounded(src, move || {
        check(src.parse().unwrap(), &env)
            .diagnostics()
            .iter()
            .map(|d| d.message.clone())
            .collect()
    })
}

const FIFO: &str = "not a regular file but a FIFO (named pipe); memplan reads only regular files";

#[test]
fn a_fifo_plan_file_or_model_is_an_error_not_a_hang() {
    let dir = folder("plan-file");
    mkfifo(&dir.join("plan.csv"));
    mkfifo(&dir.join("model.tflite"));
    let env = Env {
        base_dir: Some(dir.clone()),
        ..Env::default()
    };
    let e = messages(
        "mod m { region r: 64 bytes; buffers in r from \"plan.csv\"; }",
        env.clone(),
    );
    assert_eq!(
        e,
        [format!(
            "plan file `{}`: cannot read: {FIFO}",
            dir.join("plan.csv").display()
        )]
    );
    let e = messages(
        "mod m { region r: 64 bytes; model in r from \"model.tflite\"; }",
        env,
    );
    assert_eq!(
        e,
        [format!(
            "model file `{}`: cannot read: {FIFO}",
            dir.join("model.tflite").display()
        )]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_device_is_refused_too() {
    let e = messages(
        "mod m { region r: 64 bytes; buffers in r from \"/dev/null\"; }",
        Env::default(),
    );
    assert_eq!(
        e,
        [
            "plan file `/dev/null`: cannot read: not a regular file but a character device; memplan reads only regular files"
        ]
    );
}

#[test]
fn a_fifo_lock_file_is_an_error_not_a_hang() {
    let dir = folder("lock");
    mkfifo(&dir.join("memplan.lock"));
    let env = Env {
        root: Some(dir.clone()),
        ..Env::default()
    };
    let e = messages(
        "mod m { region r: 64 bytes; buffer a: 8 bytes in r, live 0..=0; }",
        env,
    );
    assert_eq!(
        e,
        [format!(
            "{}: cannot read: {FIFO}; it cannot be used (remove it, then run `memplan lock` to write it again)",
            dir.join("memplan.lock").display()
        )]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_memory_x_is_an_error_not_a_hang_and_not_tracked() {
    let dir = folder("memory-x");
    mkfifo(&dir.join("memory.x"));
    let env = Env {
        root: Some(dir.clone()),
        ..Env::default()
    };
    let src = "mod m { region r: 64 bytes, memory RAM; buffer a: 8 bytes in r, live 0..=0; }";
    let e = messages(src, env.clone());
    assert_eq!(
        e,
        [format!(
            "memory.x `{}`: cannot read: {FIFO}",
            dir.join("memory.x").display()
        )]
    );
    // The expansion does not `include_bytes!` it (which would block the compiler).
    let expanded = bounded("expand", move || {
        memplan_lang::expand(src.parse().unwrap(), &env).to_string()
    });
    let tracked = format!("include_bytes ! (\"{}\")", dir.join("memory.x").display());
    assert!(expanded.contains("compile_error"), "{expanded}");
    assert!(!expanded.contains(&tracked), "{expanded}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_source_file_is_an_error_not_a_hang() {
    let dir = folder("source");
    let file = dir.join("lib.rs");
    mkfifo(&file);
    let shown = file.display().to_string();
    let e = bounded("check_file", move || {
        memplan_lang::driver::check_file(&file, &Default::default())
            .err()
            .unwrap_or_default()
    });
    assert_eq!(e, format!("{shown}: cannot read: {FIFO}"));
    std::fs::remove_dir_all(&dir).unwrap();
}
