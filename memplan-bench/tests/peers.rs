//! `best_of` is never behind the greedy planners of its peers: omnimalloc 1.0.0's
//! `greedy_by_size` and `greedy_by_all` (the best of its seven greedy orders), and
//! TensorFlow Lite Micro's `GreedyMemoryPlanner` (which `greedy` is, byte for byte: see
//! `minimalloc.rs`), on every plan file of the benchmark. The repository's seven ExecuTorch
//! plans are always read; the reference data beside the checkout (`shared/plans/executorch`
//! and MiniMalloc's challenging instances, found as in `minimalloc.rs`) when present.
//!
//! omnimalloc's bytes were recorded on 2026-12-01 with omnimalloc 1.0.0 from PyPI
//! (`pip install -r memplan-bench/peers/requirements.txt`) by
//! `python memplan-bench/peers/omnimalloc_orders.py examples/data/executorch
//! ../shared/plans/executorch ../shared/bench/minimalloc/challenging`, which plans each
//! file as `omnimalloc_vs_memplan.py` does (ExecuTorch plans in 16-byte units) and checks
//! every plan.

use std::path::{Path, PathBuf};

use memplan_bench::inputs;
use memplan_planner::{Strategy, plan, validate};

/// `(file, greedy_by_size, greedy_by_all)`: omnimalloc's bytes.
const OMNIMALLOC: &[(&str, u64, u64)] = &[
    ("B.1048576.csv", 1_420_288, 1_389_568),
    ("C.1048576.csv", 1_417_216, 1_417_216),
    ("E.1048576.csv", 1_435_648, 1_362_944),
    ("F.1048576.csv", 1_433_600, 1_258_496),
    ("G.1048576.csv", 1_421_312, 1_226_752),
    ("I.1048576.csv", 1_478_656, 1_455_104),
    ("J.1048576.csv", 1_304_576, 1_227_776),
    ("kws_dscnn_greedy.csv", 64_000, 64_000),
    ("mobilenet_v2_constprop_greedy.csv", 9_633_792, 9_633_792),
    ("mobilenet_v2_constprop_naive.csv", 9_633_792, 9_633_792),
    ("mobilenet_v2_greedy.csv", 9_633_792, 9_633_792),
    ("mobilenet_v2_naive.csv", 9_633_792, 9_633_792),
    ("resnet18_constprop_greedy.csv", 6_422_528, 6_422_528),
    ("resnet18_constprop_naive.csv", 6_422_528, 6_422_528),
    ("resnet18_greedy.csv", 6_422_528, 6_422_528),
    ("resnet18_naive.csv", 6_422_528, 6_422_528),
    ("transformer_encoder_constprop_greedy.csv", 294_912, 294_912),
    ("transformer_encoder_constprop_naive.csv", 294_912, 294_912),
    ("transformer_encoder_greedy.csv", 557_056, 458_752),
    ("transformer_encoder_naive.csv", 557_056, 458_752),
];

/// `best_of` on every CSV under `dir` against the recorded figures; the files checked.
fn check_folder(dir: &Path) -> usize {
    let mut seen = 0;
    for path in inputs::csv_files(dir).unwrap() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(input) = inputs::read(&path, name.clone()).unwrap() else {
            continue;
        };
        let &(_, by_size, by_all) = OMNIMALLOC
            .iter()
            .find(|(f, ..)| *f == name)
            .unwrap_or_else(|| panic!("no omnimalloc figures recorded for {name}"));
        let greedy = plan(&input.problem, Strategy::Greedy).unwrap();
        let best_of = plan(&input.problem, Strategy::BestOf).unwrap();
        validate(&input.problem, &best_of).unwrap();
        let (g, b) = (
            greedy.regions[0].planned_bytes,
            best_of.regions[0].planned_bytes,
        );
        assert!(b <= g, "{name}: best_of {b} above greedy (TFLM) {g}");
        assert!(
            b <= by_size,
            "{name}: best_of {b} above greedy_by_size {by_size}"
        );
        assert!(
            b <= by_all,
            "{name}: best_of {b} above greedy_by_all {by_all}"
        );
        seen += 1;
    }
    seen
}

#[test]
fn best_of_is_never_behind_the_greedy_planners_on_the_repositorys_plans() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/executorch");
    assert_eq!(check_folder(&dir), 7);
}

#[test]
#[cfg_attr(
    not(minimalloc_data),
    ignore = "needs the reference data beside the checkout (see memplan-bench/build.rs)"
)]
fn best_of_is_never_behind_the_greedy_planners_on_the_reference_data() {
    let minimalloc = PathBuf::from(option_env!("MEMPLAN_MINIMALLOC_DATA").unwrap_or_default());
    assert_eq!(check_folder(&minimalloc), 7);
    // `shared/bench/minimalloc/challenging` -> `shared/plans/executorch`.
    let plans = minimalloc.join("../../../plans/executorch");
    if plans.is_dir() {
        assert_eq!(check_folder(&plans), 13);
    }
}
