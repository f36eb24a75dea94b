//! Every strategy on the real ExecuTorch plans (in the repository) and on MiniMalloc's
//! challenging instances (outside it: set `MEMPLAN_MINIMALLOC_DIR` to the folder of
//! `*.1048576.csv` files; the test says so and passes when it is not set).

use std::path::{Path, PathBuf};

use memplan_planner::files::{read_executorch, read_minimalloc};
use memplan_planner::{Buffer, Problem, Region, Strategy, plan, validate};

const ROOM: u64 = u64::MAX / 4;

fn problem(buffers: Vec<Buffer>, align: u64) -> Problem {
    Problem {
        regions: vec![Region {
            name: "arena".into(),
            capacity: ROOM,
            align,
        }],
        buffers,
    }
}

/// `(stem, lower bound)` of the six ExecuTorch plans.
const EXECUTORCH: &[(&str, u64)] = &[
    ("mobilenet_v2", 9_633_792),
    ("mobilenet_v2_constprop", 9_633_792),
    ("resnet18", 6_422_528),
    ("resnet18_constprop", 6_422_528),
    ("transformer_encoder", 458_752),
    ("transformer_encoder_constprop", 294_912),
];

#[test]
fn best_of_and_the_default_reach_the_lower_bound_on_every_executorch_plan() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/executorch");
    for &(stem, lb) in EXECUTORCH {
        let rows = read_executorch(&dir.join(format!("{stem}_greedy.csv"))).unwrap();
        let p = problem(
            rows.into_iter()
                .map(|(_, r)| Buffer::new(r.name, r.size, 0, r.first, r.last))
                .collect(),
            16,
        );
        for s in [Strategy::Greedy, Strategy::BestOf, Strategy::default()] {
            let out = plan(&p, s).unwrap();
            validate(&p, &out).unwrap();
            let r = &out.regions[0];
            assert_eq!(r.lower_bound, lb, "{stem}");
            if s == Strategy::Greedy {
                // Greedy by size misses only on the transformer (557,056 bytes, like
                // ExecuTorch's own greedy).
                let want = if stem == "transformer_encoder" {
                    557_056
                } else {
                    lb
                };
                assert_eq!(r.planned_bytes, want, "{stem}: greedy");
            } else {
                assert_eq!(r.planned_bytes, lb, "{stem}: {}", s.name());
                assert!(r.proven_optimal);
            }
        }
    }
}

fn minimalloc_dir() -> Option<PathBuf> {
    match std::env::var_os("MEMPLAN_MINIMALLOC_DIR") {
        Some(d) if Path::new(&d).is_dir() => Some(PathBuf::from(d)),
        _ => {
            eprintln!(
                "skipped: set MEMPLAN_MINIMALLOC_DIR to MiniMalloc's `challenging` folder \
                 (for example ../shared/bench/minimalloc/challenging) to run this test"
            );
            None
        }
    }
}

/// `(file, lower bound, optimum reached by the default budget)`: the default budget
/// (38,000 nodes) reaches the optimum, the lower bound (MiniMalloc's published optimum),
/// on every file but J, whose optimum is unknown.
const MINIMALLOC: &[(&str, u64, bool)] = &[
    ("B.1048576.csv", 1_048_576, true),
    ("C.1048576.csv", 1_039_360, true),
    ("E.1048576.csv", 1_048_576, true),
    ("F.1048576.csv", 1_048_576, true),
    ("G.1048576.csv", 1_048_576, true),
    ("I.1048576.csv", 1_048_576, true),
    ("J.1048576.csv", 989_184, false),
];

fn minimalloc_problem(dir: &Path, file: &str) -> Problem {
    let rows = read_minimalloc(&dir.join(file)).unwrap();
    problem(
        rows.into_iter()
            .map(|(_, r)| Buffer::new(r.id, r.size, 0, r.lower, r.upper - 1))
            .collect(),
        1,
    )
}

/// The target: with a budget of a million nodes the exact search reaches the
/// optimum (here the lower bound, MiniMalloc's published optimum) on B, C, E, F, G and I,
/// and proves it; on J, whose optimum is unknown, it reaches 1,029,120 bytes, below
/// MiniMalloc's published best (1,035,264).
#[test]
fn optimal_reaches_the_optimum_on_the_minimalloc_instances_that_have_one() {
    let Some(dir) = minimalloc_dir() else { return };
    for &(file, lb, _) in MINIMALLOC {
        let p = minimalloc_problem(&dir, file);
        let out = plan(&p, Strategy::Optimal { nodes: 1_000_000 }).unwrap();
        validate(&p, &out).unwrap();
        let r = &out.regions[0];
        if file.starts_with('J') {
            assert!(r.planned_bytes <= 1_029_120, "J: {}", r.planned_bytes);
        } else {
            assert_eq!(r.planned_bytes, lb, "{file}");
            assert!(r.proven_optimal, "{file}");
        }
    }
}

#[test]
fn every_strategy_is_valid_on_minimalloc_instances() {
    let Some(dir) = minimalloc_dir() else { return };
    for &(file, lb, reached) in MINIMALLOC {
        let p = minimalloc_problem(&dir, file);
        let mut bytes = Vec::new();
        for s in [Strategy::Greedy, Strategy::BestOf, Strategy::default()] {
            let out = plan(&p, s).unwrap();
            validate(&p, &out).unwrap();
            let r = &out.regions[0];
            assert_eq!(r.lower_bound, lb, "{file}");
            assert!(r.planned_bytes >= lb);
            bytes.push(r.planned_bytes);
        }
        assert!(
            bytes[2] <= bytes[1] && bytes[1] <= bytes[0],
            "{file}: {bytes:?}"
        );
        assert_eq!(
            bytes[2] == lb,
            reached,
            "{file}: default strategy gives {}",
            bytes[2]
        );
    }
}

/// TensorFlow Lite Micro's `GreedyMemoryPlanner` (commit 90b983c2b, built and run on these
/// files outside the repository): its arena bytes on MiniMalloc's instances. Greedy by
/// size takes its order (size, then the later buffer first) and its first fit, so it gives
/// the same bytes; `best_of` has that order among its candidates, so it never needs more.
const TFLM_MINIMALLOC: &[(&str, u64)] = &[
    ("B.1048576.csv", 1_412_096),
    ("C.1048576.csv", 1_417_216),
    ("E.1048576.csv", 1_435_648),
    ("F.1048576.csv", 1_348_608),
    ("G.1048576.csv", 1_433_600),
    ("I.1048576.csv", 1_478_656),
    ("J.1048576.csv", 1_298_432),
];

#[test]
fn greedy_is_tflite_micros_greedy_planner_on_minimalloc_instances() {
    let Some(dir) = minimalloc_dir() else { return };
    for &(file, tflm) in TFLM_MINIMALLOC {
        let p = minimalloc_problem(&dir, file);
        let greedy = plan(&p, Strategy::Greedy).unwrap().regions[0].planned_bytes;
        let best_of = plan(&p, Strategy::BestOf).unwrap().regions[0].planned_bytes;
        assert_eq!(greedy, tflm, "{file}");
        assert!(best_of <= tflm, "{file}: best_of {best_of}");
    }
}

/// The same planner's bytes on the 13 ExecuTorch plans of the shared reference data (set
/// `MEMPLAN_EXECUTORCH_PLANS_DIR` to that folder; skipped when it is not set). Greedy and
/// naive files list the same tensors, so only the greedy files are read.
const TFLM_EXECUTORCH: &[(&str, u64)] = &[
    ("kws_dscnn_greedy.csv", 64_000),
    ("mobilenet_v2_greedy.csv", 9_633_792),
    ("mobilenet_v2_constprop_greedy.csv", 9_633_792),
    ("resnet18_greedy.csv", 6_422_528),
    ("resnet18_constprop_greedy.csv", 6_422_528),
    ("transformer_encoder_greedy.csv", 557_056),
    ("transformer_encoder_constprop_greedy.csv", 294_912),
];

#[test]
fn greedy_is_tflite_micros_greedy_planner_on_the_shared_executorch_plans() {
    let dir = match std::env::var_os("MEMPLAN_EXECUTORCH_PLANS_DIR") {
        Some(d) if Path::new(&d).is_dir() => PathBuf::from(d),
        _ => {
            eprintln!(
                "skipped: set MEMPLAN_EXECUTORCH_PLANS_DIR to the shared ExecuTorch plans \
                 (for example ../shared/plans/executorch) to run this test"
            );
            return;
        }
    };
    for &(file, tflm) in TFLM_EXECUTORCH {
        let rows = read_executorch(&dir.join(file)).unwrap();
        let p = problem(
            rows.into_iter()
                .map(|(_, r)| Buffer::new(r.name, r.size, 0, r.first, r.last))
                .collect(),
            16,
        );
        let greedy = plan(&p, Strategy::Greedy).unwrap().regions[0].planned_bytes;
        let out = plan(&p, Strategy::BestOf).unwrap();
        assert_eq!(greedy, tflm, "{file}");
        assert!(out.regions[0].planned_bytes <= tflm, "{file}");
        if file.starts_with("kws") {
            // The lower bound: 64,000 bytes live at one step.
            assert_eq!(out.regions[0].planned_bytes, out.regions[0].lower_bound);
            assert!(out.regions[0].proven_optimal);
        }
    }
}
