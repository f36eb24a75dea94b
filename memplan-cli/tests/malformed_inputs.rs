//! Malformed input of every format is an error naming the file, the line and (where the
//! format has them) the column, for every command, never a panic; the edge cases that
//! are valid (a header without rows, a 1-row file, only 0-byte buffers) work.

use std::path::Path;

/// A file's name, its bytes, and the start of every command's error after `error: FILE:`
/// (`None`: valid).
const CASES: &[(&str, &[u8], Option<&str>)] = &[
    ("empty.csv", b"", Some("1:1: the file is empty")),
    ("blank.csv", b"  \n\n", Some("1:1: the file is empty")),
    ("unknown.csv", b"a,b\n1,2\n", Some("1:1: not a plan file: the first line, `a,b`, is neither")),
    ("not_utf8.csv", b"name,mem_id,offset,size,first,last\nx\xff,1,0,16,0,1\n", Some("2:2: the file is not UTF-8 text here")),
    ("et_int.csv", b"name,mem_id,offset,size,first,last\nx,1,0,16,0,1\ny,1,0,sixteen,0,1\n", Some("3: column 4 (`size`): `sixteen` is not a whole number in range")),
    ("et_short.csv", b"name,mem_id,offset,size,first,last\nx,1,0,16,0\n", Some("2: malformed row: 5 fields, expected 6")),
    ("et_negative.csv", b"name,mem_id,offset,size,first,last\nx,1,0,-16,0,1\n", Some("2: column 4 (`size`): `-16` is not a whole number in range")),
    ("et_lifetime.csv", b"name,mem_id,offset,size,first,last\nx,1,0,16,3,2\n", Some("2: column 6 (`last`): `x` has an empty lifetime: last 2 < first 3 (`first` is column 5)")),
    ("mm_lifetime.csv", b"id,lower,upper,size\n0,5,5,8\n", Some("2: column 3 (`upper`): `0` has an empty lifetime: upper 5 <= lower 5 (`lower` is column 2)")),
    ("mm_step.csv", b"id,lower,upper,size\n0,0,4294967296,8\n", Some("2: column 3 (`upper`): `4294967296` is not a whole number in range")),
    ("placed_twice.csv", b"name,offset,size,first,last\na,0,1,0,0\na,0,1,0,0\n", Some("3: column 1 (`name`): `a` is named twice (first on line 2)")),
    ("comma.json", b"{\"buffers\": [\n  {\"name\": \"a\" \"size\": 1}\n]}", Some("2:16: expected `,` or `}`")),
    ("open.json", b"{", Some("1:1: EOF while parsing an object")),
    ("type.json", b"{\"buffers\": 5}", Some("1:13: invalid type: integer `5`, expected a sequence")),
    ("float.json", b"{\"buffers\": [{\"name\": \"a\", \"size\": 1.5, \"first\": 0, \"last\": 0}]}", Some("1:38: invalid type: floating point `1.5`, expected u64")),
    ("lifetime.json", b"{\"buffers\": [\n {\"name\": \"a\", \"size\": 1, \"first\": 2, \"last\": 1}]}", Some("2:2: `a` has an empty lifetime: last 1 < first 2")),
    ("header_only.csv", b"name,mem_id,offset,size,first,last\n", None),
    ("one_row.csv", b"name,mem_id,offset,size,first,last\nx,1,0,16,0,1\n", None),
    ("zero_bytes.csv", b"name,mem_id,offset,size,first,last\nx,1,0,0,0,1\ny,1,0,0,1,2\n", None),
    ("one_row.json", b"{\"buffers\": [{\"name\": \"a\", \"size\": 0, \"first\": 0, \"last\": 0, \"offset\": 0}]}", None),
];

mod common;
use common::run;

#[test]
fn every_command_reports_malformed_input_with_its_place_and_never_panics() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("malformed");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out").display().to_string();
    for &(name, bytes, expected) in CASES {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let file = path.display().to_string();
        let commands: [Vec<&str>; 5] = [
            vec!["plan", &file],
            vec!["check", &file],
            vec!["svg", &file, "-o", &out],
            vec!["trace", &file, "-o", &out],
            vec!["emit", &file, "--name", "m"],
        ];
        for args in commands {
            let o = run(&args);
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            match expected {
                Some(message) => {
                    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
                    let want = format!("error: {file}:{message}");
                    assert!(
                        stderr.starts_with(&want),
                        "{args:?}:\n{stderr}\nwanted\n{want}"
                    );
                }
                None => assert_eq!(o.status.code(), Some(0), "{args:?}: {stderr}"),
            }
        }
    }
}

#[test]
fn every_faulty_row_of_a_csv_is_an_error_of_its_own_in_file_order() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("malformed");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad_rows.csv");
    std::fs::write(
        &path,
        "name,mem_id,offset,size,first,last\n\
         x,0,0,64,0,1\n\
         y,0,0,sixty-four,1,2\n\
         z,0,0,64,3,1\n\
         x,0,0,64,0,1\n",
    )
    .unwrap();
    let file = path.display().to_string();
    for command in ["plan", "check"] {
        let o = run(&[command, &file]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "error: {file}:3: column 4 (`size`): `sixty-four` is not a whole number in range\n\
                 error: {file}:4: column 6 (`last`): `z` has an empty lifetime: last 1 < first 3 (`first` is column 5)\n\
                 error: {file}:5: column 1 (`name`): `x` is named twice (first on line 2)\n"
            ),
            "{command}"
        );
    }
    // Ten rows with an empty lifetime: eight listed, then how many more.
    let mut text = "id,lower,upper,size\n".to_string();
    for i in 0..10 {
        text.push_str(&format!("{i},4,4,8\n"));
    }
    let path = dir.join("ten_bad_rows.csv");
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    let o = run(&["plan", &file]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 9, "{stderr}");
    assert_eq!(
        lines[7],
        format!(
            "error: {file}:9: column 3 (`upper`): `7` has an empty lifetime: upper 4 <= lower 4 (`lower` is column 2)"
        )
    );
    assert_eq!(lines[8], format!("error: {file}: and 2 more faulty rows"));
}

#[test]
fn every_faulty_json_entry_and_model_tensor_is_an_error_of_its_own() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("malformed");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad_entries.json");
    std::fs::write(
        &path,
        "{\"regions\": [{\"name\": \"r\", \"align\": 3}], \"buffers\": [\n\
         {\"name\": \"a\", \"size\": 1, \"first\": 2, \"last\": 1},\n\
         {\"name\": \"b\", \"size\": 1, \"first\": 0, \"last\": 0, \"region\": \"q\"}\n]}",
    )
    .unwrap();
    let file = path.display().to_string();
    for command in ["plan", "check"] {
        let o = run(&[command, &file]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "error: {file}:1:14: region `r`: alignment 3 is not a power of two at most 65536\n\
                 error: {file}:2:1: `a` has an empty lifetime: last 1 < first 2\n\
                 error: {file}:3:1: `b` names region `q`, which `regions` does not declare\n"
            ),
            "{command}"
        );
    }
    // hello_world with five faults (memplan-planner's tests/model_hostile.rs makes it).
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/hello_faults.tflite");
    let file = model.display().to_string();
    let o = run(&["plan", &file]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 5, "{stderr}");
    assert_eq!(
        lines[0],
        format!(
            "error: {file}: tensor 0 (`serving_default_dense_input:0`) of subgraph 0: dim -1 is negative: a dynamic shape, which memplan cannot plan"
        )
    );
    assert_eq!(
        lines[4],
        format!(
            "error: {file}: operator 1 of subgraph 0: output tensor 50 is not a tensor of the subgraph"
        )
    );
}

#[test]
fn a_rust_file_that_is_not_rust_tokens_is_an_error_at_its_place() {
    // In a package of its own, so that `check` has no lone-file note to give first
    // wherever the target directory is.
    let package = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unclosed");
    std::fs::create_dir_all(package.join("src")).unwrap();
    std::fs::write(
        package.join("Cargo.toml"),
        "[package]\nname = \"unclosed\"\nversion = \"0.0.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    let path = package.join("src/unclosed.rs");
    std::fs::write(&path, "memory_plan! {\n    mod m { region r: 16 bytes;\n").unwrap();
    let file = path.display().to_string();
    for command in ["plan", "check"] {
        let o = run(&[command, &file]);
        assert_eq!(o.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.starts_with(&format!("error: {file}:2:")), "{stderr}");
        assert!(stderr.contains("not Rust tokens"), "{stderr}");
    }
}
