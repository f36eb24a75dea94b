//! `memplan check` on plans that give offsets: every ExecuTorch greedy plan of
//! `examples/data/executorch` passes; a copy with one offset moved onto another live
//! buffer fails, naming both buffers, their lines, the shared bytes and steps (computed
//! here from the rows); misaligned and out-of-bounds offsets are named too.

use std::path::{Path, PathBuf};

mod common;
use common::run as memplan;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/executorch")
}

fn temp(name: &str, text: &str) -> String {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn every_executorch_greedy_plan_passes() {
    let mut checked = 0;
    for entry in std::fs::read_dir(data()).unwrap() {
        let path = entry.unwrap().path();
        if !path.display().to_string().ends_with("_greedy.csv") {
            continue;
        }
        let out = memplan(&["check", &path.display().to_string()]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {stdout}", path.display());
        assert!(
            stdout.ends_with(
                ": no overlapping pair, no misaligned offset, no buffer out of bounds\n"
            ),
            "{stdout}"
        );
        checked += 1;
    }
    assert_eq!(checked, 7);
}

/// (name, offset, size, first, last) of the data rows of an ExecuTorch plan.
fn rows(text: &str) -> Vec<(String, u64, u64, u32, u32)> {
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn an_offset_moved_onto_a_live_buffer_is_an_overlap_naming_both() {
    let text = std::fs::read_to_string(data().join("resnet18_greedy.csv")).unwrap();
    let rows = rows(&text);
    // Row k (line k + 2) moved to the offset of the first earlier row live at a common step
    // whose bytes it does not share yet.
    let (a, b) = (0..rows.len())
        .flat_map(|b| (0..b).map(move |a| (a, b)))
        .find(|&(a, b)| {
            let (x, y) = (&rows[a], &rows[b]);
            x.2 > 0 && y.2 > 0 && x.3 <= y.4 && y.3 <= x.4 && x.1 != y.1
        })
        .unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut f: Vec<String> = lines[b + 1].split(',').map(str::to_string).collect();
    f[2] = rows[a].1.to_string();
    lines[b + 1] = f.join(",");
    let file = temp("resnet18_overlap.csv", &(lines.join("\n") + "\n"));
    let out = memplan(&["check", &file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let (x, y) = (&rows[a], &rows[b]);
    let bytes = (x.1, (x.1 + x.2).min(x.1 + y.2));
    let steps = (x.3.max(y.3), x.4.min(y.4));
    let expected = format!(
        "{file}:{}: buffers `{}` (bytes {}..{}, live {}..={}) and `{}` (line {}: bytes {}..{}, live {}..={}) overlap: bytes {}..{} are used by both at steps {}..={}",
        a + 2,
        x.0,
        x.1,
        x.1 + x.2,
        x.3,
        x.4,
        y.0,
        b + 2,
        x.1,
        x.1 + y.2,
        y.3,
        y.4,
        bytes.0,
        bytes.1,
        steps.0,
        steps.1
    );
    assert!(
        stdout.lines().any(|l| l == expected),
        "expected\n{expected}\nin\n{stdout}"
    );
}

#[test]
fn misaligned_and_out_of_bounds_offsets_are_named() {
    let file = temp(
        "placed_bad.csv",
        "name,offset,size,first,last\na,0,64,0,1\nb,72,64,1,2\nc,64,8,2,2\n",
    );
    // `b` at 72 is not a multiple of 16 and ends at 136, past 128; `b` and `c` share step
    // 2 but not bytes (`c` is 64..72).
    let out = memplan(&["check", &file, "--capacity", "128"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout,
        format!(
            "{file}:3: buffer `b` (bytes 72..136, live 1..=2) at offset 72 is not a multiple of its alignment, 16 bytes\n\
             {file}:3: buffer `b` (bytes 72..136, live 1..=2) ends at byte 136, past the capacity of 128 bytes (over by 8)\n\
             {file}: 3 buffers in 1 memory id: no overlapping pair, 1 misaligned offset, 1 buffer out of bounds\n"
        )
    );
    // With alignment 8 and no capacity, the same plan is good.
    let out = memplan(&["check", &file, "--align", "8"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_json_plan_written_by_plan_checks_and_one_without_offsets_is_refused() {
    let hand = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hand_worked.csv");
    let out = memplan(&["plan", &hand.display().to_string(), "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = temp("hand_plan.json", &report["plans"][0]["plan"].to_string());
    let out = memplan(&["check", &file]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let file = temp(
        "no_offset.json",
        "{\"buffers\": [\n  {\"name\": \"a\", \"size\": 1, \"first\": 0, \"last\": 0}\n]}",
    );
    let out = memplan(&["check", &file]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {file}:2:3: `a` has no `offset`: every buffer of a plan to check or draw with its own offsets needs one\n"
        )
    );
}

/// A model's own plan: each committed `.pte` program's (ExecuTorch's offsets) and the
/// offline plan of Vela's `.tflite` (its NPU operator's input and output inside its
/// scratch, kept together) pass; and memplan's plan written back into person_detect passes.
/// Then a copy with one tensor's offset moved 16 bytes into another tensor live at the same
/// step fails, naming both tensors.
#[test]
fn a_model_s_own_plan_passes_and_a_moved_offset_names_both_tensors() {
    use memplan_planner::files::{TensorId, pte, read_model, tflite};
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data");
    let mut own = vec![models.join("tflite/person_detect_vela.tflite")];
    for entry in std::fs::read_dir(models.join("pte")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "pte") {
            own.push(path);
        }
    }
    // memplan's own plan, written into a copy of person_detect.
    let written = Path::new(env!("CARGO_TARGET_TMPDIR")).join("person_detect_planned.tflite");
    let out = memplan(&[
        "plan",
        &models
            .join("tflite/person_detect.tflite")
            .display()
            .to_string(),
        "--write",
        &written.display().to_string(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    own.push(written);
    assert_eq!(own.len(), 10);
    for path in &own {
        let out = memplan(&["check", &path.display().to_string()]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {stdout}", path.display());
        assert!(
            stdout.ends_with(
                ": no overlapping pair, no misaligned offset, no buffer out of bounds\n"
            ),
            "{stdout}"
        );
    }
    // Move one tensor into another live at one of its steps, in person_detect's plan and in
    // kws_dscnn's (the lifetimes are the model reader's).
    for path in [own.last().unwrap(), &models.join("pte/kws_dscnn.pte")] {
        let (bytes, model) = read_model(path).unwrap();
        let t = &model.tensors;
        let arena = model.buffer_sizes.get(1).copied().unwrap_or(u64::MAX);
        let (a, b) = (0..t.len())
            .flat_map(|a| (0..t.len()).map(move |b| (a, b)))
            .find(|&(a, b)| {
                a != b
                    && t[a].alias_group.is_none()
                    && t[b].alias_group.is_none()
                    && t[a].lifetime.conflicts(&t[b].lifetime)
                    && t[a].size > 16
                    && t[b].size > 0
                    && t[a].file_offset.unwrap() + 16 + t[b].size <= arena
            })
            .unwrap();
        let moved_to = t[a].file_offset.unwrap() + 16;
        let broken = match model.format {
            memplan_planner::files::ModelFormat::Tflite => {
                let offsets: Vec<(TensorId, u64)> = t
                    .iter()
                    .enumerate()
                    .map(|(k, x)| {
                        (
                            x.id,
                            if k == b {
                                moved_to
                            } else {
                                x.file_offset.unwrap()
                            },
                        )
                    })
                    .collect();
                tflite::write_offline_plan(&bytes, "x", &offsets).unwrap()
            }
            memplan_planner::files::ModelFormat::Pte => {
                let offsets: Vec<pte::PlannedOffset> = t
                    .iter()
                    .enumerate()
                    .map(|(k, x)| pte::PlannedOffset {
                        value: x.id.index,
                        memory_id: x.memory_id.unwrap(),
                        offset: if k == b {
                            moved_to
                        } else {
                            x.file_offset.unwrap()
                        },
                    })
                    .collect();
                pte::write_plan(&bytes, "x", None, &offsets, &model.buffer_sizes).unwrap()
            }
        };
        let name = path.file_name().unwrap().to_string_lossy();
        let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("moved_{name}"));
        std::fs::write(&copy, broken).unwrap();
        let out = memplan(&["check", &copy.display().to_string()]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        let plan = model.plan_file();
        let buffer_of = |k: usize| {
            let members = model.buffer_tensors();
            members.iter().position(|m| m.contains(&k)).unwrap()
        };
        let (na, nb) = (
            &plan.buffers[buffer_of(a)].name,
            &plan.buffers[buffer_of(b)].name,
        );
        assert!(
            stdout.contains(&format!("`{na}`")) && stdout.contains(&format!("`{nb}`")),
            "{na} and {nb}: {stdout}"
        );
        assert!(stdout.contains("1 overlapping pair"), "{stdout}");
    }
}

/// A count of one is singular: Vela's person_detect puts its four planned tensors on the
/// same bytes (one group, counted here from the model reader's groups): `1 buffer`.
#[test]
fn one_buffer_is_one_buffer() {
    use memplan_planner::files::read_model;
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/tflite/person_detect_vela.tflite");
    let (_, model) = read_model(&path).unwrap();
    let grouped: usize = model.alias_groups.iter().map(|g| g.members.len()).sum();
    assert_eq!(model.tensors.len() - grouped + model.alias_groups.len(), 1);
    let shown = path.display().to_string();
    let out = memplan(&["check", &shown]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{shown}: 1 buffer in 1 memory id: no overlapping pair, no misaligned offset, no buffer out of bounds\n"
        )
    );
}

/// `--write` counts the tensors it writes and the buffers they make: a .pte's alias groups
/// (tensors the file puts on the same bytes) are one buffer each, counted here from the
/// model reader's groups; a .tflite without groups has one buffer a tensor.
#[test]
fn write_counts_tensors_and_the_buffers_they_share() {
    use memplan_planner::files::read_model;
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let pte = models.join("pte/transformer_encoder.pte");
    let (_, model) = read_model(&pte).unwrap();
    let tensors = model.tensors.len();
    let grouped: usize = model.alias_groups.iter().map(|g| g.members.len()).sum();
    let groups = model.alias_groups.len();
    let buffers = tensors - grouped + groups;
    assert!(groups > 1 && buffers < tensors);
    let out_file = tmp.join("encoder_written.pte");
    let out = memplan(&[
        "plan",
        &pte.display().to_string(),
        "--write",
        &out_file.display().to_string(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "wrote {}: {tensors} tensors in {buffers} buffers ({grouped} tensors in {groups} groups that the file puts on the same bytes, one buffer a group) at memplan's offsets in an arena of ",
            out_file.display()
        )),
        "{last}"
    );
    // The report above it plans the same buffers.
    assert!(
        stdout.contains(&format!("(.pte program, {buffers} buffers)")),
        "{stdout}"
    );

    let tflite = models.join("tflite/person_detect.tflite");
    let (_, model) = read_model(&tflite).unwrap();
    assert!(model.alias_groups.is_empty());
    let out_file = tmp.join("person_detect_written.tflite");
    let out = memplan(&[
        "plan",
        &tflite.display().to_string(),
        "--write",
        &out_file.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "wrote {}: {} tensors at memplan's offsets in an arena of ",
            out_file.display(),
            model.tensors.len()
        )),
        "{last}"
    );
}

/// `--write` never writes over the model it reads (the copy of the model kept in a scratch
/// folder is byte for byte the same after), nor gives a program the other format's name.
#[test]
fn write_refuses_the_input_file_and_the_other_format_s_name() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("write-refusals");
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("person_detect.tflite");
    std::fs::copy(models.join("tflite/person_detect.tflite"), &model).unwrap();
    let before = std::fs::read(&model).unwrap();
    // `memplan plan INPUT --write OUT` must fail, saying `said`, and write nothing new.
    let refused = |input: &Path, out: &Path, said: &str| {
        let run = memplan(&[
            "plan",
            &input.display().to_string(),
            "--write",
            &out.display().to_string(),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_ne!(run.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains(said), "{stderr}");
    };
    // The same file, and the same file by another path.
    let mine = "an input of this command; write to another file (the input is left as it is)";
    refused(&model, &model, mine);
    refused(&model, &dir.join(".").join("person_detect.tflite"), mine);
    #[cfg(unix)]
    {
        let hard = dir.join("hard.tflite");
        let _ = std::fs::remove_file(&hard);
        std::fs::hard_link(&model, &hard).unwrap();
        refused(&model, &hard, mine);
    }
    assert!(std::fs::read(&model).unwrap() == before);
    let (kws, pd) = (dir.join("kws.tflite"), dir.join("pd.PTE"));
    refused(
        &models.join("pte/kws_dscnn.pte"),
        &kws,
        "the input is a .pte program, which a file named .tflite would misname; name it .pte",
    );
    refused(
        &model,
        &pd,
        "the input is a .tflite model, which a file named .pte would misname; name it .tflite",
    );
    assert!(!kws.exists() && !pd.exists());
}

/// The README's `memplan check resnet18_moved.csv` example, exactly: the file made as its
/// `sed` line makes it (line 3's offset 0 replaced by 3211264), checked by its bare name.
#[test]
fn the_readme_s_moved_offset_example_is_the_real_output() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let sed = "$ sed '3s/^aten_convolution_default,1,0,/aten_convolution_default,1,3211264,/' resnet18_greedy.csv > /tmp/resnet18_moved.csv\n";
    let command = "$ cd /tmp && memplan check resnet18_moved.csv\n";
    let at = readme
        .find(&format!("{sed}{command}"))
        .expect("the README's example")
        + sed.len()
        + command.len();
    let shown = &readme[at..at + readme[at..].find("```").unwrap()];
    let original = std::fs::read_to_string(data().join("resnet18_greedy.csv")).unwrap();
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    lines[2] = lines[2].replacen(
        "aten_convolution_default,1,0,",
        "aten_convolution_default,1,3211264,",
        1,
    );
    assert_ne!(lines[2], original.lines().nth(2).unwrap());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-moved");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("resnet18_moved.csv"), lines.join("\n") + "\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(["check", "resnet18_moved.csv"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
}

/// A source file outside every package: the check says what it cannot see (a build always
/// has a package root, where memory.x and memplan.lock are read).
#[test]
fn a_lone_source_file_is_checked_and_says_what_it_skips() {
    let dir = std::env::temp_dir().join(format!("memplan-lone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    if dir.ancestors().any(|d| d.join("Cargo.toml").is_file()) {
        // The temp dir is inside a package here: nothing to test.
        return;
    }
    let file = dir.join("plan.rs");
    std::fs::write(
        &file,
        "memplan_runtime::memory_plan! { mod m { region r: 1 KiB, memory SRAM9; buffer a: 64 bytes in r, live 0..=1; } }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("memory.x"),
        "MEMORY { RAM : ORIGIN = 0x20000000, LENGTH = 64K }\n",
    )
    .unwrap();
    let out = memplan(&["check".as_ref(), file.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "note: {} is in no package (no Cargo.toml above it): no memory.x is read, so `memory` banks are not checked against it, and no memplan.lock is used\n",
            file.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}
