//! The plan-file readers on arbitrary bytes: an error with a line, or rows; rows are then
//! planned (greedy) and the plan checked by the validator. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_planner::files::{parse_executorch, parse_minimalloc};
use memplan_planner::{Buffer, Problem, Region, Strategy, plan, validate};

fn check(buffers: Vec<Buffer>, align: u64) {
    let problem = Problem {
        regions: vec![Region {
            name: "r".into(),
            capacity: u64::MAX,
            align,
        }],
        buffers,
    };
    if let Ok(p) = plan(&problem, Strategy::Greedy) {
        validate(&problem, &p).expect("a plan of a file's rows is valid");
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse_executorch(&text, "fuzz.csv") {
        Ok(rows) => check(
            rows.into_iter()
                .map(|(_, r)| Buffer::new(r.name, r.size, 0, r.first, r.last))
                .collect(),
            16,
        ),
        Err(e) => assert!(e.line.is_some() || !e.message.is_empty()),
    }
    if let Ok(rows) = parse_minimalloc(&text, "fuzz.csv") {
        check(
            rows.into_iter()
                .map(|(_, r)| Buffer::new(r.id, r.size, 0, r.lower, r.upper - 1))
                .collect(),
            1,
        );
    }
});
