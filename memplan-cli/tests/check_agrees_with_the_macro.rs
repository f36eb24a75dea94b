//! `memplan check` and the `memory_plan!` macro share one front end: on every compile-fail
//! case of the UI suite whose first error is memplan's own (not a rustc `error[E...]`), the
//! command's first error is the macro's, word for word and at the same line and column as
//! the committed `.stderr`; on every pass case it exits 0 and prints the report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ui(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/ui")
        .join(dir)
}

fn memplan_check(file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("check")
        .arg(file)
        .env_remove("OUT_DIR")
        .output()
        .expect("the memplan binary runs")
}

fn cases(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(ui(dir))
        .expect("the UI suite is there")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    v.sort();
    v
}

#[test]
fn first_error_and_its_place_match_the_macro_on_every_memplan_fail_case() {
    let mut compared = Vec::new();
    for case in cases("fail") {
        let expected = std::fs::read_to_string(case.with_extension("stderr"))
            .expect("every fail case has its .stderr");
        let first = expected.lines().next().unwrap_or("");
        if !first.starts_with("error: ") || expected.contains("the lint level is defined here") {
            // rustc's own error (a trait bound, a const evaluation, privacy, a lint such as
            // `unsafe_code`): not the front end's.
            continue;
        }
        // ` --> ui/fail/x.rs:LINE:COL` of the first error.
        let place = expected
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("--> "))
            .and_then(|p| p.rsplit_once(".rs:").map(|(_, lc)| lc.to_string()))
            .expect("the first error has a place");
        let out = memplan_check(&case);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", case.display());
        let got_first = stderr.lines().next().unwrap_or("");
        assert_eq!(got_first, first, "{}", case.display());
        let got_place = stderr
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("--> "))
            .and_then(|p| p.rsplit_once(".rs:").map(|(_, lc)| lc.to_string()))
            .unwrap_or_default();
        assert_eq!(got_place, place, "{}", case.display());
        compared.push(case);
    }
    // Every memplan-raised case of the suite was compared (the others are rustc's).
    assert!(
        compared.len() >= 25,
        "only {} cases compared",
        compared.len()
    );
}

#[test]
fn every_pass_case_checks_and_prints_its_report() {
    let all = cases("pass");
    assert!(!all.is_empty());
    for case in all {
        let out = memplan_check(&case);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: {}",
            case.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.starts_with("memory plan `"),
            "{}: {stdout}",
            case.display()
        );
    }
}

#[test]
fn a_file_that_is_not_rust_source_is_read_as_a_plan_file() {
    // Dispatch is by the extension: anything but `.rs` is a plan file, whose offsets are
    // checked; one that does not exist cannot be read (exit 2), naming the file.
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(["check", "no-such-plan.csv"])
        .output()
        .expect("the memplan binary runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: no-such-plan.csv: cannot read: ")
    );
}
