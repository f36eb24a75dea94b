//! Every command's inputs: one that is not a regular file (a FIFO, a device) is refused
//! promptly, before it is opened, with an error naming it, whether it is FILE, a source, a
//! plan file a source reads, `memory.x` or `memplan.lock`. Every run of `memplan` here has
//! a deadline: a command blocked on a FIFO fails the test instead of hanging it.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::Output;

use common::{CSV, io_package, mkfifo, run_bounded, scratch};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

const FIFO: &str = "not a regular file but a FIFO (named pipe); memplan reads only regular files";

/// `out` failed (exit 2, or 1 for a `.rs` file's diagnostics) saying `FILE` is `kind`.
fn refused(out: &Output, file: &Path, kind: &str, what: &str) {
    let e = stderr(out);
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{what}: {:?} {e}",
        out.status
    );
    assert!(
        e.contains(&s(file)),
        "{what}: the error names the file: {e}"
    );
    assert!(e.contains(kind), "{what}: {e}");
}

#[test]
fn a_fifo_is_refused_promptly_by_every_command() {
    let dir = scratch("io-fifo");
    let lib = io_package(&dir);
    let fifo = dir.join("plan.csv");
    mkfifo(&fifo);
    let (f, out) = (s(&fifo), s(&dir.join("out")));
    for args in [
        vec!["plan", &f],
        vec!["check", &f],
        vec!["svg", &f, "-o", &out],
        vec!["trace", &f, "-o", &out],
        vec!["emit", &f, "--name", "m"],
        vec!["linker", &f, "--package", "p"],
        vec!["inspect", &f],
    ] {
        let what = args.join(" ");
        refused(&run_bounded(&args), &fifo, FIFO, &what);
    }
    assert!(!dir.join("out").exists());
    // A source file that is a FIFO, for every command that reads one, `lock` among them.
    let source = dir.join("src/fifo.rs");
    mkfifo(&source);
    let src = s(&source);
    for args in [
        vec!["plan", &src],
        vec!["check", &src],
        vec!["svg", &src, "-o", &out],
        vec!["linker", &src],
        vec!["lock", &src],
        vec!["lock", &src, "--check"],
    ] {
        refused(&run_bounded(&args), &source, FIFO, &args.join(" "));
    }
    // `lock` of the whole src folder finds it too.
    let folder_src = s(&dir.join("src"));
    refused(
        &run_bounded(&["lock", &folder_src]),
        &source,
        FIFO,
        "lock src",
    );
    std::fs::remove_file(&source).unwrap();
    // A plan file that a source reads, a memory.x, a lock file: FIFOs too.
    mkfifo(&dir.join("src/plan.csv"));
    let l = s(&lib);
    for args in [vec!["plan", &l], vec!["check", &l], vec!["lock", &l]] {
        refused(
            &run_bounded(&args),
            &dir.join("src/plan.csv"),
            FIFO,
            &args.join(" "),
        );
    }
    // `linker` leaves an invocation with errors out, and says `memplan check` prints them.
    let out = run_bounded(&["linker", &l]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    std::fs::remove_file(dir.join("src/plan.csv")).unwrap();
    std::fs::write(dir.join("src/plan.csv"), CSV).unwrap();
    mkfifo(&dir.join("memory.x"));
    refused(
        &run_bounded(&["check", &l]),
        &dir.join("memory.x"),
        FIFO,
        "check (memory.x)",
    );
    std::fs::remove_file(dir.join("memory.x")).unwrap();
    let lock_file = dir.join("memplan.lock");
    mkfifo(&lock_file);
    for args in [
        vec!["check", &l],
        vec!["lock", &l],
        vec!["lock", &l, "--check"],
        vec!["lock", &l, "--update"],
    ] {
        refused(&run_bounded(&args), &lock_file, FIFO, &args.join(" "));
    }
    let kind = std::fs::symlink_metadata(&lock_file).unwrap().file_type();
    assert!(
        std::os::unix::fs::FileTypeExt::is_fifo(&kind),
        "the FIFO is left as it is"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_device_is_refused_by_every_command() {
    let dir = scratch("io-device");
    let zero = Path::new("/dev/zero");
    let out = s(&dir.join("out"));
    let device = "not a regular file but a character device";
    for args in [
        vec!["plan", "/dev/zero"],
        vec!["check", "/dev/zero"],
        vec!["svg", "/dev/zero", "-o", &out],
        vec!["trace", "/dev/zero", "-o", &out],
        vec!["emit", "/dev/zero", "--name", "m"],
        vec!["linker", "/dev/zero", "--package", "p"],
        vec!["inspect", "/dev/zero"],
    ] {
        refused(&run_bounded(&args), zero, device, &args.join(" "));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
