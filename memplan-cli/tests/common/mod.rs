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

/// The most a bounded command may take before the test calls it blocked.
#[cfg(unix)]
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

/// Makes a FIFO at `path` (mkfifo(3)), in place of what is there.
#[cfg(unix)]
pub fn mkfifo(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    #[cfg(target_vendor = "apple")]
    type Mode = u16;
    #[cfg(not(target_vendor = "apple"))]
    type Mode = u32;
    unsafe extern "C" {
        fn mkfifo(path: *const std::ffi::c_char, mode: Mode) -> std::ffi::c_int;
    }
    let _ = std::fs::remove_file(path);
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

/// Runs `command` (stdin closed, output captured, without the caller's `OUT_DIR`) with the
/// [`DEADLINE`]; kills it by its process id and fails the test when it is not done by then.
#[cfg(unix)]
pub fn bounded(mut command: Command, what: &str) -> Output {
    use std::io::Read;
    use std::process::Stdio;
    command
        .env_remove("OUT_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the command starts");
    let id = child.id();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let _ = out.read_to_end(&mut stdout);
        let _ = err.read_to_end(&mut stderr);
        let status = child.wait().expect("the command is waited for");
        let _ = tx.send(Output {
            status,
            stdout,
            stderr,
        });
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(output) => output,
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            panic!("{what}: still running after {DEADLINE:?} (blocked on a FIFO?)");
        }
    }
}

/// `memplan ARGS...`, [`bounded`].
#[cfg(unix)]
pub fn run_bounded<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_memplan"));
    command.args(args);
    let what = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    bounded(command, &format!("memplan {what}"))
}

/// A package `io-fw` in `dir`: `src/lib.rs` plans one region placed in memory SRAM3 and
/// reads the rows of `src/plan.csv` ([`CSV`]). Returns `src/lib.rs`.
pub fn io_package(dir: &std::path::Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"io-fw\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/plan.csv"), CSV).unwrap();
    let lib = dir.join("src/lib.rs");
    std::fs::write(
        &lib,
        "memplan_runtime::memory_plan! {\n    mod io_plan {\n        region act: 4 KiB, memory SRAM3;\n        buffer a: 40 bytes in act, live 0..=1;\n        buffers in act from \"plan.csv\";\n    }\n}\n",
    )
    .unwrap();
    lib
}

/// A plan file of three rows (ExecuTorch's CSV).
pub const CSV: &str =
    "name,mem_id,offset,size,first,last\nx,1,0,64,0,1\ny,1,64,32,1,2\nz,1,0,48,2,3\n";

/// A fresh folder `NAME` in the tests' temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
