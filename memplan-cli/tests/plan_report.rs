//! `memplan plan` on a small hand-worked file (`tests/data/hand_worked.csv`, aligned to
//! 16): `a` (100 bytes, live 0..=1), `b` (64, 1..=2), `c` (32, 2..=3), `d` (0, 1..=1).
//!
//! At step 1, `a` and `b` are live: the lower bound is 164 bytes, at step 1. Greedy places
//! by size: `a` at 0, `b` above it at 100 rounded up to 16, 112 (12 bytes of padding),
//! `c` at 0 (only `b` shares a step with it): 176 bytes, 12 over the bound, 176 / 164 =
//! 1.0732, not proven optimal. With `b` first (best_of's `conflicts` ordering: `b` shares
//! steps with the most buffers), `b` at 0 and `a` at 64, 164 bytes: the bound, so the
//! default strategy's plan is proven optimal without a search, with no padding.

use std::path::Path;
use std::process::Command;

fn plan(args: &[&str]) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hand_worked.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("plan")
        .arg(&file)
        .args(args)
        .output()
        .expect("the memplan binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The value of row `key` of the text report.
fn row<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| {
            l.trim_start()
                .strip_prefix(key)
                .filter(|_| l.starts_with("  "))
        })
        .map(str::trim)
        .unwrap_or_else(|| panic!("no `{key}` in\n{report}"))
}

#[test]
fn greedy_figures_are_the_hand_worked_ones() {
    let r = plan(&["--strategy", "greedy"]);
    assert!(r.contains("strategy greedy\n"), "{r}");
    assert_eq!(row(&r, "capacity"), "unbounded");
    assert_eq!(row(&r, "planned "), "176 bytes");
    assert_eq!(
        row(&r, "lower bound"),
        "164 bytes (the most bytes live at one step)"
    );
    assert_eq!(row(&r, "planned / bound"), "1.0732 (waste 12 bytes)");
    assert_eq!(row(&r, "alignment"), "16 bytes");
    assert_eq!(
        row(&r, "padding"),
        "12 bytes (kept empty below buffers by their alignment)"
    );
    assert_eq!(row(&r, "proven optimal"), "no");
    assert_eq!(row(&r, "search nodes"), "0");
    assert_eq!(row(&r, "buffers"), "4");
    // The file's own offsets span 176 bytes too (`d` is at 176 but has no bytes).
    assert_eq!(row(&r, "file's offsets"), "176 bytes (1.0732 x the bound)");
    assert_eq!(
        row(&r, "peak"),
        "step 1: 164 bytes in 3 live buffers; largest first:"
    );
    let listed: Vec<Vec<&str>> = r
        .lines()
        .skip_while(|l| !l.contains("largest first:"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        listed,
        [
            ["a", "100", "bytes", "at", "0", "live", "0..=1"],
            ["b", "64", "bytes", "at", "112", "live", "1..=2"],
            ["d", "0", "bytes", "at", "0", "live", "1..=1"],
        ]
    );
}

#[test]
fn the_default_strategy_meets_the_bound() {
    let r = plan(&["--top", "2"]);
    let budget = memplan_planner::Strategy::DEFAULT_NODES;
    assert!(
        r.contains(&format!("strategy optimal(nodes = {budget})\n")),
        "{r}"
    );
    assert_eq!(row(&r, "planned "), "164 bytes");
    assert_eq!(row(&r, "planned / bound"), "1.0000 (waste 0 bytes)");
    assert_eq!(
        row(&r, "padding"),
        "0 bytes (kept empty below buffers by their alignment)"
    );
    assert_eq!(row(&r, "proven optimal"), "yes");
    assert_eq!(row(&r, "search nodes"), format!("0 (budget {budget})"));
    assert_eq!(
        row(&r, "peak"),
        "step 1: 164 bytes in 3 live buffers; the largest 2:"
    );
    assert!(r.ends_with("    a           100 bytes  at           64  live 0..=1\n    b            64 bytes  at            0  live 1..=2\n    and 1 more\n"), "{r}");
}

/// `--top 0` lists none of the peak's buffers: the peak line alone, no `and 3 more`.
#[test]
fn top_zero_prints_the_peak_without_a_list() {
    let r = plan(&["--top", "0"]);
    assert_eq!(row(&r, "peak"), "step 1: 164 bytes in 3 live buffers");
    assert!(
        r.ends_with("  peak             step 1: 164 bytes in 3 live buffers\n"),
        "{r}"
    );
    assert!(!r.contains("more"), "{r}");
}

#[test]
fn the_json_report_has_the_same_figures_and_the_plan_s_offsets() {
    let j: serde_json::Value =
        serde_json::from_str(&plan(&["--format", "json", "--strategy", "greedy"])).unwrap();
    assert_eq!(j["format"], "executorch");
    let p = &j["plans"][0];
    assert_eq!(p["strategy"], "greedy");
    let r = &p["regions"][0];
    assert_eq!(r["capacity"], serde_json::Value::Null);
    assert_eq!(r["planned_bytes"], 176);
    assert_eq!(r["lower_bound"], 164);
    assert_eq!(r["waste_bytes"], 12);
    assert_eq!(r["padding_bytes"], 12);
    assert_eq!(r["peak_step"], 1);
    assert_eq!(r["peak_buffer_count"], 3);
    assert_eq!(r["proven_optimal"], false);
    assert_eq!(r["node_budget"], serde_json::Value::Null);
    assert!((r["ratio"].as_f64().unwrap() - 176.0 / 164.0).abs() < 1e-12);
    let offsets: Vec<u64> = p["plan"]["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["offset"].as_u64().unwrap())
        .collect();
    assert_eq!(offsets[..3], [0, 112, 0]);
}

#[test]
fn a_rust_source_s_invocations_are_planned_as_the_macro_plans_them() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/pass/readme_example.rs");
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("plan")
        .arg(&file)
        .env_remove("OUT_DIR")
        .output()
        .unwrap();
    let r = String::from_utf8(out.stdout).unwrap();
    // The README's example: conv1 (8000 bytes, align 64) and conv2 (8000) share step 2 in
    // `sram`: 16000 bytes, the bound.
    // Named by module path, as `memplan check` and the REPORT name it.
    assert!(
        r.starts_with("memory plan `ui::pass::readme_example::kws` from "),
        "{r}"
    );
    assert!(r.contains("region `sram` (memory id 0)\n  capacity         65536 bytes\n  planned          16000 bytes\n"), "{r}");
    // Its pools, as the invocation declares them: `constant: 0; runtime: 2 KiB; temp: 1 KiB;`
    // (16-byte aligned, the default, in `.bss`).
    assert!(
        r.ends_with("\npools (the manager's bump allocators, statics outside every region)\n  constant         0 bytes (aligned to 16)\n  runtime          2048 bytes (aligned to 16)\n  temp             1024 bytes (aligned to 16)\n"),
        "{r}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(["plan", "--format", "json"])
        .arg(&file)
        .env_remove("OUT_DIR")
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pools: Vec<(&str, u64)> = j["plans"][0]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["size"].as_u64().unwrap()))
        .collect();
    assert_eq!(pools, [("constant", 0), ("runtime", 2048), ("temp", 1024)]);
    // Its element types travel in the plan file: `input` is `[i8; 490]`, `conv1` bytes,
    // `logits` `[f32; 12]`.
    let dtypes: Vec<(&str, Option<&str>)> = j["plans"][0]["plan"]["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["name"].as_str().unwrap(), b["dtype"].as_str()))
        .collect();
    assert_eq!(
        dtypes,
        [
            ("input", Some("i8")),
            ("conv1", None),
            ("conv2", Some("i8")),
            ("logits", Some("f32"))
        ]
    );
    assert_eq!(j["plans"][0]["plan"]["version"], 2);
}

/// Seven buffers live together at step 0, of 70, 60, ..., 10 bytes (`b7` .. `b1`, in file
/// order `b1` first): the report lists every one, largest first, unless `--top` says fewer.
#[test]
fn every_buffer_live_at_the_peak_is_listed_unless_top_says_fewer() {
    let dir = std::env::temp_dir().join(format!("memplan-cli-peak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("seven.csv");
    let mut csv = String::from("name,offset,size,first,last\n");
    let mut offset = 0;
    for k in 1..=7u64 {
        csv.push_str(&format!("b{k},{offset},{},0,1\n", 10 * k));
        offset += 10 * k;
    }
    std::fs::write(&file, csv).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
            .arg("plan")
            .arg(&file)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let names = |r: &str| -> Vec<String> {
        r.lines()
            .skip_while(|l| !l.trim_start().starts_with("peak"))
            .skip(1)
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let r = run(&[]);
    assert_eq!(
        row(&r, "peak"),
        "step 0: 280 bytes in 7 live buffers; largest first:"
    );
    assert_eq!(names(&r), ["b7", "b6", "b5", "b4", "b3", "b2", "b1"]);
    let r = run(&["--top", "3"]);
    assert_eq!(
        row(&r, "peak"),
        "step 0: 280 bytes in 7 live buffers; the largest 3:"
    );
    assert_eq!(names(&r), ["b7", "b6", "b5", "and"]);
    assert!(r.ends_with("    and 4 more\n"), "{r}");
    std::fs::remove_dir_all(&dir).unwrap();
}
