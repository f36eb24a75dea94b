//! `memplan emit` prints a `memory_plan!` invocation that compiles and plans to the same
//! offsets as `memplan plan` (and `memplan_planner::plan`) of the same problem: the test
//! writes a small crate that depends on memplan-runtime by path and includes what `emit`
//! printed for several plan files, builds and runs it, and compares every buffer's memory
//! id and offset in the generated `BUFFERS` with the planner's, computed here from the
//! same files.
//!
//! The crate is built in its own target folder under the workspace's (`target/emit-check`),
//! so its dependencies are compiled once and then reused.

use std::path::{Path, PathBuf};
use std::process::Command;

use memplan_planner::files::{ProblemOptions, read_any};
use memplan_planner::{Region, Strategy};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

mod common;
use common::stdout as memplan;

/// One case: a module name, the file, the extra arguments, and the same problem's options.
struct Case {
    module: &'static str,
    file: PathBuf,
    args: Vec<&'static str>,
    options: ProblemOptions,
    strategy: Strategy,
}

fn cases() -> Vec<Case> {
    let data = root().join("examples/data/executorch");
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    vec![
        Case {
            module: "mobilenet",
            file: data.join("mobilenet_v2_greedy.csv"),
            args: vec![],
            options: ProblemOptions::default(),
            strategy: Strategy::default(),
        },
        Case {
            module: "encoder",
            file: data.join("transformer_encoder_greedy.csv"),
            args: vec!["--strategy", "greedy", "--region", "sram:640KiB:32"],
            options: ProblemOptions {
                regions: vec![Region {
                    name: "sram".into(),
                    capacity: 640 << 10,
                    align: 32,
                }],
                ..ProblemOptions::default()
            },
            strategy: Strategy::Greedy,
        },
        Case {
            module: "two",
            file: here.join("two_regions.json"),
            args: vec!["--strategy", "best_of"],
            options: ProblemOptions::default(),
            strategy: Strategy::BestOf,
        },
        Case {
            module: "hand",
            file: here.join("hand_worked.csv"),
            args: vec!["--align", "32"],
            options: ProblemOptions {
                align: Some(32),
                ..ProblemOptions::default()
            },
            strategy: Strategy::default(),
        },
    ]
}

#[test]
fn emitted_invocations_build_and_plan_to_the_planner_s_offsets() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("emit-check");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let runtime = root().join("memplan-runtime").canonicalize().unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"emit-check\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[dependencies]\nmemplan-runtime = {{ path = {:?} }}\n",
            runtime.display().to_string()
        ),
    )
    .unwrap();
    // The workspace's lock file: the same dependency versions, offline.
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut main = String::from("fn main() {\n");
    let mut expected = String::new();
    for case in cases() {
        let file = case.file.display().to_string();
        let mut args = vec!["emit", file.as_str(), "--name", case.module];
        args.extend(&case.args);
        std::fs::write(dir.join(format!("src/{}.rs", case.module)), memplan(&args)).unwrap();
        main.insert_str(0, &format!("include!(\"{}.rs\");\n", case.module));
        main.push_str(&format!(
            "    for b in {}::BUFFERS {{ println!(\"{} {{}} {{}}\", b.memory_id, b.offset); }}\n",
            case.module, case.module
        ));
        let problem = read_any(&case.file)
            .unwrap()
            .problem(&case.options)
            .unwrap();
        let plan = memplan_planner::plan(&problem, case.strategy).unwrap();
        for p in &plan.buffers {
            expected.push_str(&format!("{} {} {}\n", case.module, p.region, p.offset));
        }
    }
    main.push_str("}\n");
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../emit-check");
    let out = Command::new(env!("CARGO"))
        .args(["run", "-q", "--offline", "-j2"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    assert_eq!(got.lines().count(), 257 + 50 + 6 + 4);
    assert_eq!(got, expected);
}
