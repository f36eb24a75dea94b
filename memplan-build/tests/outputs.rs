//! What a build script writes: a file written into `OUT_DIR` is never one of the files it
//! is made from, and a failed write keeps the old file byte for byte.
#![cfg(unix)]

mod common;
use common::{CSV, LIB, package};

use std::path::PathBuf;
use std::process::Command;

use memplan_build::{BuildEnv, Error, PlanFile, write_fragment_in};

#[test]
fn an_out_dir_file_is_never_one_it_is_made_from() {
    // The fragment, from a plan file named memplan.x.
    let env = package("outputs", "same", &LIB.replace("rows.csv", "memplan.x"));
    std::fs::write(env.out_dir.join("memplan.x"), CSV).unwrap();
    match write_fragment_in(&env, ["src/lib.rs"]) {
        Err(e @ Error::Write { .. }) => assert!(
            e.to_string()
                .contains("a file it is made from; it is left as it is"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(env.out_dir.join("memplan.x")).unwrap(),
        CSV
    );
    // Generated source, from a plan file where it would be written.
    let plan = env.out_dir.join("m.rs");
    std::fs::write(&plan, CSV).unwrap();
    match PlanFile::new(&plan, "m").write_in(&env.out_dir) {
        Err(e @ Error::Write { .. }) => {
            assert!(e.to_string().contains("a file it is made from"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), CSV);
}

/// The variable that makes [`child_writes_under_a_file_size_limit`] run: the package root.
const CHILD: &str = "MEMPLAN_BUILD_TEST_FULL_DISK_ROOT";

#[test]
fn a_failed_write_keeps_the_old_file_byte_for_byte() {
    let env = package("outputs", "full", LIB);
    let old = b"the old fragment\n";
    let (fragment_path, generated) = (env.out_dir.join("memplan.x"), env.out_dir.join("rows.rs"));
    // Written without the limit first: the limit is what fails the writes below.
    write_fragment_in(&env, ["src/lib.rs"]).unwrap();
    PlanFile::new(env.out_dir.join("rows.csv"), "rows")
        .write_in(&env.out_dir)
        .unwrap();
    std::fs::write(&fragment_path, old).unwrap();
    std::fs::write(&generated, old).unwrap();
    let this = std::env::current_exe().unwrap();
    let run = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\"")
        .arg(&this)
        .args([
            "--exact",
            "child_writes_under_a_file_size_limit",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD, &env.manifest_dir)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(said.contains("checked 2 failed writes"), "{said}");
    assert_eq!(std::fs::read(&fragment_path).unwrap(), old);
    assert_eq!(std::fs::read(&generated).unwrap(), old);
    let mut names: Vec<String> = std::fs::read_dir(&env.out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["memplan.x", "rows.csv", "rows.rs"],
        "no temporary file is left"
    );
}

/// Run by [`a_failed_write_keeps_the_old_file_byte_for_byte`] under `ulimit -f 0`, where
/// every write to a file fails as on a full disk.
#[test]
#[ignore = "run by a_failed_write_keeps_the_old_file_byte_for_byte"]
fn child_writes_under_a_file_size_limit() {
    let Some(root) = std::env::var_os(CHILD) else {
        return;
    };
    let root = PathBuf::from(root);
    let env = BuildEnv {
        out_dir: root.join("out"),
        manifest_dir: root,
        package: "fw".to_string(),
        canary: false,
    };
    let kept = "cannot write it: File too large (os error 27); the old file is kept as it was";
    match write_fragment_in(&env, ["src/lib.rs"]) {
        Err(e @ Error::Write { .. }) => assert_eq!(
            e.to_string(),
            format!(
                "memplan-build: {}: {kept}",
                env.out_dir.join("memplan.x").display()
            )
        ),
        other => panic!("{other:?}"),
    }
    match PlanFile::new(env.out_dir.join("rows.csv"), "rows").write_in(&env.out_dir) {
        Err(e @ Error::Write { .. }) => assert!(e.to_string().ends_with(kept), "{e}"),
        other => panic!("{other:?}"),
    }
    println!("checked 2 failed writes");
}
