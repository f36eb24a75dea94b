//! `memplan plan MODEL.tflite --write OUT` on every committed `.tflite` model: what the
//! written offline plan costs TensorFlow Lite Micro. Its head is worked out by
//! `tflite::tflm_head` (checked against TFLM's own figures in memplan-planner's
//! `tests/tflm_head.rs`; CI runs the written files in TFLM itself, `.ci/models.sh` and
//! `.ci/tflm-host.sh`): never more than with the model's own plan, every variable tensor
//! left to TFLM's persistent section, and the figures the command prints are those TFLM
//! reserves (sizes rounded to 16 bytes).

use std::path::{Path, PathBuf};

use memplan_planner::files::{read_model, tflite};

mod common;
use common::stdout;

fn models() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/tflite");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    out.sort();
    out
}

#[test]
fn a_written_plan_costs_tflm_no_more_than_its_own_and_keeps_state_apart() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut stateful = 0;
    for model in models() {
        let name = model.file_name().unwrap().to_string_lossy().into_owned();
        let out = tmp.join(format!("written-{name}"));
        let said = stdout(&[
            "plan",
            model.to_str().unwrap(),
            "--write",
            out.to_str().unwrap(),
        ]);
        let (_, original) = read_model(&model).unwrap();
        let (_, written) = read_model(&out).unwrap();
        let file: Vec<Option<u64>> = original.tensors.iter().map(|t| t.file_offset).collect();
        let own = tflite::tflm_head(
            &original,
            file.iter().any(Option::is_some).then_some(&file[..]),
        )
        .unwrap()
        .0;
        let plan: Vec<Option<u64>> = written.tensors.iter().map(|t| t.file_offset).collect();
        let head = tflite::tflm_head(&written, Some(&plan)).unwrap().0;
        assert!(
            head <= own,
            "{name}: TFLM's head {head} with the written plan, {own} with its own"
        );
        assert!(
            said.contains(&format!("in an arena of {head} bytes, TFLite Micro's head")),
            "{name}: {said}"
        );
        // Variable tensors: -1 in the written plan, so that TFLM keeps them in its
        // persistent section; named in the closing line.
        let variables: Vec<_> = written.tensors.iter().filter(|t| t.persistent).collect();
        assert!(variables.iter().all(|t| t.file_offset.is_none()), "{name}");
        if !variables.is_empty() {
            stateful += 1;
            assert!(
                said.contains(&format!("{} variable tensors", variables.len())),
                "{name}: {said}"
            );
        }
        // `memplan check` reads the written plan as TFLM does, and finds it sound.
        let checked = common::run(&["check", out.to_str().unwrap()]);
        assert_eq!(checked.status.code(), Some(0), "{name}: {checked:?}");
        // Every planned tensor other than those has an offset, a multiple of 16.
        for t in written.tensors.iter().filter(|t| !t.persistent) {
            let o = t
                .file_offset
                .unwrap_or_else(|| panic!("{name}: tensor {} has none", t.id.index));
            assert_eq!(o % 16, 0, "{name}");
        }
    }
    assert_eq!(
        stateful, 3,
        "dtln, keyword_scrambled and micro_speech_lstm carry state"
    );
}

#[test]
fn a_tflite_models_figures_are_in_tflms_sixteen_byte_units() {
    // dtln's tensors, as TFLM reserves them (multiples of 16): its 257-element int8
    // output is 272 bytes, and the report's planned bytes and lower bound are multiples of
    // 16 too.
    let model = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/tflite/dtln_noise_suppression.tflite");
    let report = stdout(&["plan", model.to_str().unwrap()]);
    for key in ["planned", "lower bound"] {
        let line = report
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("{report}"));
        let n: u64 = line
            .split_whitespace()
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert_eq!(n % 16, 0, "{line}");
    }
    assert!(report.contains("272 bytes"), "{report}");
    assert!(
        report.contains("not planned: 4 variable tensors"),
        "{report}"
    );
}
