//! The generated plans have the offsets memplan's planner gives the same problems, read
//! from the same plan files, independently of the build script: every buffer in its
//! region at the planner's offset, the pin kept, and no two buffers live at a common step
//! sharing a byte.

use memplan_example_generated::{encoder, kws};
use memplan_planner::files::{ProblemOptions, read_any};
use memplan_planner::{Region, Strategy, plan};
use memplan_runtime::BufferInfo;

fn plan_of(
    path: &str,
    options: &ProblemOptions,
    strategy: Strategy,
) -> (Vec<String>, Vec<(u32, u64)>) {
    let file = read_any(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let problem = file.problem(options).unwrap();
    let p = plan(&problem, strategy).unwrap();
    let names = problem.buffers.iter().map(|b| b.name.clone()).collect();
    let places = p
        .buffers
        .iter()
        .map(|b| (b.region as u32, b.offset))
        .collect();
    (names, places)
}

fn table(buffers: &[BufferInfo]) -> Vec<(u32, u64)> {
    buffers
        .iter()
        .map(|b| (b.memory_id, b.offset as u64))
        .collect()
}

#[test]
fn the_keyword_spotter_has_the_planner_s_offsets() {
    let (names, places) = plan_of(
        "plans/kws.json",
        &ProblemOptions::default(),
        Strategy::default(),
    );
    assert_eq!(table(kws::BUFFERS), places);
    let got: Vec<&str> = kws::BUFFERS.iter().map(|b| b.name).collect();
    // Names that are not identifiers are mangled; the others stay.
    assert_eq!(
        got,
        [
            "input",
            "conv1_out",
            "conv2_out",
            "pool_out",
            "logits",
            "scratch"
        ]
    );
    assert_eq!(names[1], "conv1.out");
    // The pin of `logits` (offset 1024 in dtcm, memory id 1) is kept.
    assert_eq!(
        (kws::BUFFERS[4].memory_id, kws::BUFFERS[4].offset),
        (1, 1024)
    );
    // conv1 (8000 bytes, align 64) and conv2 share step 2 in sram.
    let (c1, c2) = (&kws::BUFFERS[1], &kws::BUFFERS[2]);
    assert!(c1.offset + c1.size <= c2.offset || c2.offset + c2.size <= c1.offset);
    assert_eq!(c1.offset % 64, 0);
}

#[test]
fn the_encoder_has_the_planner_s_offsets_in_its_region() {
    let options = ProblemOptions {
        regions: vec![Region {
            name: "sram".into(),
            capacity: 512 * 1024,
            align: 16,
        }],
        ..ProblemOptions::default()
    };
    let (names, places) = plan_of(
        "../data/executorch/transformer_encoder_greedy.csv",
        &options,
        Strategy::BestOf,
    );
    assert_eq!(encoder::BUFFERS.len(), 50);
    assert_eq!(names.len(), 50);
    assert_eq!(table(encoder::BUFFERS), places);
    // No two buffers live at a common step share a byte.
    for (i, a) in encoder::BUFFERS.iter().enumerate() {
        for b in &encoder::BUFFERS[i + 1..] {
            let common = a.first <= b.last && b.first <= a.last;
            let disjoint = a.offset + a.size <= b.offset || b.offset + b.size <= a.offset;
            assert!(
                !common || disjoint || a.size == 0 || b.size == 0,
                "{} and {}",
                a.name,
                b.name
            );
        }
    }
}
