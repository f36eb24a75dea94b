//! Every strategy on the real ExecuTorch plans of the repository (`examples/data`). The
//! MiniMalloc instances, read from outside the repository, are memplan-bench's tests.

use std::path::PathBuf;

use memplan_planner::files::read_executorch;
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

/// `(stem, lower bound)` of the seven ExecuTorch plans.
const EXECUTORCH: &[(&str, u64)] = &[
    ("kws_dscnn", 64_000),
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

/// TensorFlow Lite Micro's `GreedyMemoryPlanner` (tensorflow/tflite-micro commit 90b983c2b,
/// `greedy_memory_planner.cc` built with g++ -O2 and a harness that calls `AddBuffer(size,
/// first, last)` per row; run outside the repository): its arena bytes on the real plans.
/// `greedy` takes its order (size, then the later buffer first) and its first fit, so it
/// gives the same bytes; `best_of` has that order among its candidates, so it never needs
/// more. kws_dscnn is the keyword spotter where the order matters.
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
fn greedy_is_tflite_micros_greedy_planner_on_the_executorch_plans() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/executorch");
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
