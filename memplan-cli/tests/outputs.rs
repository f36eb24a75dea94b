//! Every command's outputs: none may be one of the command's inputs (by its own path, a
//! symbolic link or a hard link), and a write that fails keeps the old file byte for byte,
//! saying so. Every run of `memplan` here has a deadline.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{CSV, bounded, io_package, run_bounded, scratch};

/// `memplan ARGS...` under a file-size limit of 0 bytes (`ulimit -f 0`, with SIGXFSZ
/// ignored): every write to a regular file fails, as on a full disk; pipes still work.
fn memplan_on_a_full_disk(args: &[&str]) -> Output {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_memplan"))
        .args(args);
    bounded(command, &format!("memplan {} (full disk)", args.join(" ")))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// `out` failed with exit 2, saying its output `output` is an input.
fn refused_output(out: &Output, output: &Path, what: &str) {
    let e = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {e}");
    assert!(
        e.contains(&format!("{}: that is ", s(output)))
            && e.contains(
                "an input of this command; write to another file (the input is left as it is)"
            ),
        "{what}: {e}"
    );
}

#[test]
fn an_output_that_is_an_input_is_refused_by_every_writer() {
    let dir = scratch("io-same");
    let lib = io_package(&dir);
    let csv = dir.join("src/plan.csv");
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink(&csv, &link).unwrap();
    let hard = dir.join("hard.csv");
    std::fs::hard_link(&csv, &hard).unwrap();
    let model = dir.join("model.tflite");
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data");
    std::fs::copy(models.join("tflite/person_detect.tflite"), &model).unwrap();
    let model_link = dir.join("model-link.tflite");
    std::os::unix::fs::symlink(&model, &model_link).unwrap();
    let before = (std::fs::read(&csv).unwrap(), std::fs::read(&model).unwrap());
    let (c, l) = (s(&csv), s(&lib));
    // The input itself, a link to it, a hard link to it; for a `.rs` file, the plan file
    // its invocation reads.
    for target in [&csv, &link, &hard] {
        let t = s(target);
        for args in [
            vec!["svg", &c, "-o", &t],
            vec!["trace", &c, "-o", &t],
            vec!["emit", &c, "--name", "m", "-o", &t],
            vec!["svg", &l, "-o", &t],
            vec!["trace", &l, "-o", &t],
            vec!["linker", &l, "-o", &t],
            vec!["inspect", &c, "--svg", &t],
            vec!["inspect", &c, "--trace", &t],
        ] {
            refused_output(&run_bounded(&args), target, &args.join(" "));
        }
    }
    // The source file itself.
    for args in [vec!["svg", &l, "-o", &l], vec!["linker", &l, "-o", &l]] {
        refused_output(&run_bounded(&args), &lib, &args.join(" "));
    }
    // A model's --write, through a link.
    let (m, ml) = (s(&model), s(&model_link));
    refused_output(
        &run_bounded(&["plan", &m, "--write", &ml]),
        &model_link,
        "plan --write (a link to the model)",
    );
    // Two outputs of one command.
    let two = s(&dir.join("two.out"));
    let out = run_bounded(&["inspect", &c, "--svg", &two, "--trace", &two]);
    assert!(
        stderr(&out).contains("that is also the output"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        (std::fs::read(&csv).unwrap(), std::fs::read(&model).unwrap()),
        before,
        "every input is left byte for byte as it was"
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap().lines().count(), 7);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_failed_write_keeps_the_old_file_byte_for_byte_and_says_so() {
    let dir = scratch("io-full");
    let lib = io_package(&dir);
    let model = dir.join("model.tflite");
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data");
    std::fs::copy(models.join("tflite/person_detect.tflite"), &model).unwrap();
    let outs = dir.join("outs");
    std::fs::create_dir_all(&outs).unwrap();
    let old = b"the old file, which a failed write must keep\n";
    let (c, l, m) = (s(&dir.join("src/plan.csv")), s(&lib), s(&model));
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("map.svg", vec!["svg".into(), c.clone(), "-o".into()]),
        ("trace.json", vec!["trace".into(), c.clone(), "-o".into()]),
        (
            "plan.rs",
            vec![
                "emit".into(),
                c.clone(),
                "--name".into(),
                "m".into(),
                "-o".into(),
            ],
        ),
        ("memplan.x", vec!["linker".into(), l.clone(), "-o".into()]),
        (
            "copy.tflite",
            vec!["plan".into(), m.clone(), "--write".into()],
        ),
    ];
    for (name, mut args) in cases {
        let out_path = outs.join(name);
        std::fs::write(&out_path, old).unwrap();
        args.push(s(&out_path));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let what = args.join(" ");
        // Without the limit the command writes the file (so the limit is what fails it).
        let fine = run_bounded(&args);
        assert!(fine.status.success(), "{what}: {}", stderr(&fine));
        assert_ne!(std::fs::read(&out_path).unwrap(), old, "{what}");
        std::fs::write(&out_path, old).unwrap();
        let failed = memplan_on_a_full_disk(&args);
        let e = stderr(&failed);
        assert_eq!(failed.status.code(), Some(2), "{what}: {e}");
        let shown = s(&out_path);
        assert!(
            e.contains(&format!("cannot write {shown}: "))
                && e.contains(&format!("; the old {shown} is kept as it was")),
            "{what}: {e}"
        );
        assert_eq!(
            std::fs::read(&out_path).unwrap(),
            old,
            "{what}: the old file is kept"
        );
        assert_eq!(
            names(&outs).len(),
            1,
            "{what}: no temporary file is left: {:?}",
            names(&outs)
        );
        std::fs::remove_file(&out_path).unwrap();
    }
    // The lock file: an old, valid one is kept when the new one cannot be written.
    let lock = dir.join("memplan.lock");
    let fine = run_bounded(&["lock", &l]);
    assert!(fine.status.success(), "{}", stderr(&fine));
    let locked = std::fs::read(&lock).unwrap();
    let failed = memplan_on_a_full_disk(&["lock", &l, "--update"]);
    let e = stderr(&failed);
    assert_eq!(failed.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!("; the old {} is kept as it was", s(&lock))),
        "{e}"
    );
    assert_eq!(std::fs::read(&lock).unwrap(), locked);
    assert!(
        !names(&dir).iter().any(|n| n.contains(".tmp")),
        "{:?}",
        names(&dir)
    );
    // An output whose folder is a file: nothing is written, and it says so.
    let under = dir.join("Cargo.toml").join("map.svg");
    let out = run_bounded(&["svg", &c, "-o", &s(&under)]);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!("cannot write {}: ", s(&under)))
            && e.ends_with("; nothing was written\n"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_link_output_stays_a_link_and_a_device_is_written_directly() {
    let dir = scratch("io-link-out");
    let csv = dir.join("plan.csv");
    std::fs::write(&csv, CSV).unwrap();
    let real = dir.join("real.svg");
    std::fs::write(&real, "old").unwrap();
    let link = dir.join("map.svg");
    std::os::unix::fs::symlink("real.svg", &link).unwrap();
    let out = run_bounded(&["svg", &s(&csv), "-o", &s(&link)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::read_to_string(&real).unwrap().starts_with("<svg"));
    let out = run_bounded(&["trace", &s(&csv), "-o", "/dev/null"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}
