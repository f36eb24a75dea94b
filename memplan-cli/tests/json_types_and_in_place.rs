//! A JSON plan file's element types (`dtype`) and in-place pairs (`in_place_of`) survive
//! every command: `plan --format json` writes them back (as version 2, and a file without
//! them as version 1), `check` accepts the bytes an in-place pair shares and nothing more,
//! and `emit` writes `[T; N]` and `in place of`.
//!
//! The file: region `sram` (1024 bytes, aligned to 16); `x` (48 bytes of f32, live 0..=2),
//! `y` in place of `x` (48 bytes of f32, 2..=3), `z` (32 bytes of i8, 1..=3), `w` (16
//! bytes, 0..=0). At step 1 `x` and `z` are live (80 bytes); `y` takes `x`'s bytes, so no
//! step has more: 80 bytes planned, `x` and `y` at 0, `z` at 48.

mod common;
use common::{run, stdout};

const FILE: &str = r#"{"version": 2, "name": "ip",
 "regions": [{"name": "sram", "capacity": 1024}],
 "buffers": [
  {"name": "x", "size": 48, "first": 0, "last": 2, "dtype": "f32"},
  {"name": "y", "size": 48, "first": 2, "last": 3, "in_place_of": "x", "dtype": "float32"},
  {"name": "z", "size": 32, "first": 1, "last": 3, "dtype": "i8"},
  {"name": "w", "size": 16, "first": 0, "last": 0}
 ]}"#;

fn dir(test: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("memplan-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The plan file `memplan plan --format json` writes for `file`.
fn planned(file: &std::path::Path) -> serde_json::Value {
    let j: serde_json::Value = serde_json::from_str(&stdout(&[
        "plan".as_ref(),
        file.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]))
    .unwrap();
    j["plans"][0]["plan"].clone()
}

#[test]
fn element_types_and_in_place_pairs_are_written_back_and_read_again() {
    let d = dir("json-v2");
    let file = d.join("ip.json");
    std::fs::write(&file, FILE).unwrap();
    let plan = planned(&file);
    assert_eq!(plan["version"], 2);
    let rows: Vec<(&str, u64, Option<&str>, Option<&str>)> = plan["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap(),
                b["offset"].as_u64().unwrap(),
                b["dtype"].as_str(),
                b["in_place_of"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("x", 0, Some("f32"), None),
            ("y", 0, Some("f32"), Some("x")),
            ("z", 48, Some("i8"), None),
            ("w", 48, None, None),
        ]
    );
    // Read again: planned to the same offsets (every offset a pin, `y`'s its source's).
    let again = d.join("again.json");
    std::fs::write(&again, plan.to_string()).unwrap();
    assert_eq!(planned(&again)["buffers"], plan["buffers"]);

    // Checked with its own offsets: `x` and `y` share bytes at step 2 on purpose.
    let out = stdout(&["check".as_ref(), again.as_os_str()]);
    assert!(out.contains("no overlapping pair"), "{out}");
    // Without the pair, the same offsets overlap at step 2.
    let unpaired = d.join("unpaired.json");
    std::fs::write(
        &unpaired,
        plan.to_string().replace(",\"in_place_of\":\"x\"", ""),
    )
    .unwrap();
    let out = run(&["check".as_ref(), unpaired.as_os_str()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(": 1 overlapping pair,"), "{text}");
}

#[test]
fn a_file_without_the_new_fields_stays_version_1() {
    let d = dir("json-v1");
    let file = d.join("plain.json");
    let plain = FILE
        .replace("\"version\": 2, ", "")
        .replace(", \"dtype\": \"f32\"", "")
        .replace(", \"in_place_of\": \"x\", \"dtype\": \"float32\"", "")
        .replace(", \"dtype\": \"i8\"", "")
        .replace("\"first\": 2, \"last\": 3", "\"first\": 3, \"last\": 3");
    std::fs::write(&file, &plain).unwrap();
    let plan = planned(&file);
    assert_eq!(plan["version"], 1);
    assert!(!plan.to_string().contains("dtype"), "{plan}");
    assert!(!plan.to_string().contains("in_place_of"), "{plan}");
    // A file that says version 1 is read as before (here, the plan just written).
    let v1 = d.join("v1.json");
    std::fs::write(&v1, plan.to_string()).unwrap();
    assert_eq!(planned(&v1)["buffers"], plan["buffers"]);
}

#[test]
fn emit_keeps_element_types_and_in_place_pairs() {
    let d = dir("json-emit");
    let file = d.join("ip.json");
    std::fs::write(&file, FILE).unwrap();
    let text = stdout(&[
        "emit".as_ref(),
        file.as_os_str(),
        "--name".as_ref(),
        "ip".as_ref(),
    ]);
    // 48 bytes of f32 are 12 elements; 32 of i8, 32; `w` has no element type.
    assert!(
        text.contains("        buffer x: [f32; 12] in sram, live 0..=2;\n"),
        "{text}"
    );
    assert!(
        text.contains("        buffer y: [f32; 12] in place of x, live 2..=3;\n"),
        "{text}"
    );
    assert!(
        text.contains("        buffer z: [i8; 32] in sram, live 1..=3;\n"),
        "{text}"
    );
    assert!(
        text.contains("        buffer w: 16 bytes in sram, live 0..=0;\n"),
        "{text}"
    );
    // An f64 element in a region aligned to 4 would need 8: it stays bytes, so that the
    // offsets stay the plan's.
    let narrow = d.join("narrow.json");
    std::fs::write(
        &narrow,
        FILE.replace("\"capacity\": 1024}", "\"capacity\": 1024, \"align\": 4}")
            .replace("\"dtype\": \"i8\"", "\"dtype\": \"f64\""),
    )
    .unwrap();
    let text = stdout(&[
        "emit".as_ref(),
        narrow.as_os_str(),
        "--name".as_ref(),
        "ip".as_ref(),
    ]);
    assert!(
        text.contains("        buffer z: 32 bytes in sram, live 1..=3;\n"),
        "{text}"
    );
    assert!(
        text.contains("        buffer x: [f32; 12] in sram, live 0..=2;\n"),
        "{text}"
    );
}
