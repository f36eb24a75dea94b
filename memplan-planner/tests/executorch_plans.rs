//! The six real ExecuTorch plans copied into `examples/data/executorch`: memplan's plans
//! validate, and never use more bytes than ExecuTorch's own.

use std::path::PathBuf;

use memplan_planner::files::read_executorch;
use memplan_planner::{Buffer, Problem, Region, Strategy, plan, validate};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/executorch")
}

/// `(file stem, ExecuTorch's arena bytes, lower bound)` from the README of the plans.
const MODELS: &[(&str, u64, u64)] = &[
    ("mobilenet_v2", 9_936_896, 9_633_792),
    ("mobilenet_v2_constprop", 9_633_792, 9_633_792),
    ("resnet18", 6_422_528, 6_422_528),
    ("resnet18_constprop", 6_422_528, 6_422_528),
    ("transformer_encoder", 557_056, 458_752),
    ("transformer_encoder_constprop", 294_912, 294_912),
];

fn problem_of(stem: &str) -> (Problem, u64) {
    let rows = read_executorch(&data_dir().join(format!("{stem}_greedy.csv"))).unwrap();
    let executorch = rows.iter().map(|(_, r)| r.offset + r.size).max().unwrap();
    let buffers = rows
        .iter()
        .map(|(_, r)| Buffer::new(r.name.clone(), r.size, 0, r.first, r.last))
        .collect();
    let problem = Problem {
        regions: vec![Region {
            name: "act".into(),
            capacity: u64::MAX / 4,
            align: 16,
        }],
        buffers,
    };
    (problem, executorch)
}

#[test]
fn greedy_plans_validate_and_beat_or_match_executorch() {
    for &(stem, executorch_bytes, lb) in MODELS {
        let (problem, executorch) = problem_of(stem);
        // The README's figure is the CSV's max(offset + size): the file is what we think.
        assert_eq!(executorch, executorch_bytes, "{stem}");
        let p = plan(&problem, Strategy::Greedy).unwrap();
        validate(&problem, &p).unwrap();
        let r = &p.regions[0];
        assert_eq!(r.lower_bound, lb, "{stem}: lower bound");
        assert!(r.planned_bytes >= lb, "{stem}");
        assert!(
            r.planned_bytes <= executorch,
            "{stem}: {} > {executorch}",
            r.planned_bytes
        );
        eprintln!(
            "{stem}: greedy {} lb {lb} executorch {executorch}",
            r.planned_bytes
        );
    }
}
