//! Buffers without a region (`Placement::Anywhere`): the spill rule of `plan` (see
//! `memplan_planner::plan`), each case worked out by hand.

use memplan_planner::files::read_executorch;
use memplan_planner::{Buffer, PlanError, Problem, Region, Strategy, plan, validate};

fn region(name: &str, capacity: u64, align: u64) -> Region {
    Region {
        name: name.into(),
        capacity,
        align,
    }
}

fn regions_of(problem: &Problem, strategy: Strategy) -> Vec<usize> {
    let out = plan(problem, strategy).unwrap();
    validate(problem, &out).unwrap();
    out.buffers.iter().map(|b| b.region).collect()
}

#[test]
fn everything_goes_to_the_first_region_when_it_fits() {
    let p = Problem {
        regions: vec![region("fast", 1000, 1), region("slow", 1000, 1)],
        buffers: vec![
            Buffer::new("a", 500, 0, 0, 1).anywhere(),
            Buffer::new("b", 500, 0, 1, 2).anywhere(),
            Buffer::new("c", 500, 0, 2, 3).anywhere(),
        ],
    };
    // At most two of them are live at one step: 1000 bytes, exactly the capacity.
    assert_eq!(regions_of(&p, Strategy::default()), [0, 0, 0]);
}

#[test]
fn a_buffer_that_does_not_fit_goes_on_and_a_later_smaller_one_still_joins() {
    let p = Problem {
        regions: vec![region("fast", 1000, 1), region("slow", 1000, 1)],
        buffers: vec![
            Buffer::new("x", 600, 0, 0, 3).anywhere(),
            // 600 + 600 > 1000 at steps 0..=3: on to `slow`.
            Buffer::new("y", 600, 0, 0, 3).anywhere(),
            // 600 + 300 <= 1000: back in `fast`.
            Buffer::new("z", 300, 0, 0, 3).anywhere(),
        ],
    };
    assert_eq!(regions_of(&p, Strategy::Greedy), [0, 1, 0]);
}

#[test]
fn buffers_declared_in_a_region_count_first() {
    let p = Problem {
        regions: vec![region("fast", 1000, 1), region("slow", 1000, 1)],
        buffers: vec![
            Buffer::new("s", 100, 1, 0, 9).anywhere(),
            // Declared later, but `in fast`: it is there before any buffer spills.
            Buffer::new("big", 950, 0, 0, 9),
        ],
    };
    assert_eq!(regions_of(&p, Strategy::BestOf), [1, 0]);
}

#[test]
fn padding_the_lower_bound_misses_sends_the_last_buffers_on() {
    // Two 1-byte buffers aligned to 64 and live together: the lower bound is 2 bytes, but
    // the second one cannot start below 64, so both need 65 bytes. `fast` has 64.
    let p = Problem {
        regions: vec![region("fast", 64, 1), region("slow", 4096, 1)],
        buffers: vec![
            Buffer::new("p", 1, 0, 0, 1).with_align(64).anywhere(),
            Buffer::new("q", 1, 0, 0, 1).with_align(64).anywhere(),
            Buffer::new("r", 1, 0, 0, 1).with_align(64).anywhere(),
        ],
    };
    for s in [Strategy::Greedy, Strategy::BestOf, Strategy::default()] {
        // The longest prefix whose plan fits `fast` is `p` alone.
        assert_eq!(regions_of(&p, s), [0, 1, 1], "{}", s.name());
    }
}

/// `n` spilled buffers of 16 bytes aligned to 16, all live at step 0.
fn blocks(n: usize) -> Vec<Buffer> {
    (0..n)
        .map(|i| {
            Buffer::new(format!("b{i}"), 16, 0, 0, 0)
                .with_align(16)
                .anywhere()
        })
        .collect()
}

#[test]
fn the_buffer_with_which_the_plan_overflows_goes_on() {
    // Eight 16-byte buffers aligned to 16 plus one aligned to 128, all live together, in a
    // 128-byte region with alignment 1: the lower bound admits all of them (8 * 16 + 1 =
    // 129 > 128, so the ninth waits for `slow`), eight fill 128 bytes exactly.
    let mut buffers = blocks(8);
    buffers.push(Buffer::new("last", 1, 0, 0, 0).with_align(128).anywhere());
    let p = Problem {
        regions: vec![region("fast", 128, 1), region("slow", 4096, 1)],
        buffers,
    };
    let mut want = vec![0; 8];
    want.push(1);
    assert_eq!(regions_of(&p, Strategy::Greedy), want);

    // Now 7 of 16 bytes and two of 1 byte aligned to 64: the lower bound admits all nine
    // (114 bytes), but the 1-byte ones can only sit at 0 and 64, which leaves six free
    // 16-byte slots for seven. With `one` alone at 0 the seven fill 16..128 exactly, a
    // layout the exact search finds (greedy by size puts the seven first and `one` at 128:
    // over). Bisection finds `two` as the buffer that overflows the plan: it goes on.
    let mut buffers = blocks(7);
    buffers.push(Buffer::new("one", 1, 0, 0, 0).with_align(64).anywhere());
    buffers.push(Buffer::new("two", 1, 0, 0, 0).with_align(64).anywhere());
    let p = Problem {
        regions: vec![region("fast", 128, 1), region("slow", 4096, 1)],
        buffers,
    };
    let mut want = vec![0; 8];
    want.push(1);
    assert_eq!(regions_of(&p, Strategy::default()), want);
    // Greedy's plan of the eight overflows: `one` goes on; `two` is taken again, overflows
    // the same way, and goes on too.
    let mut want = vec![0; 7];
    want.extend([1, 1]);
    assert_eq!(regions_of(&p, Strategy::Greedy), want);
}

#[test]
fn a_buffer_no_region_can_take_is_an_error_naming_it() {
    let p = Problem {
        regions: vec![region("fast", 1000, 1), region("slow", 1000, 1)],
        buffers: vec![
            Buffer::new("a", 900, 0, 0, 3),
            Buffer::new("b", 900, 1, 0, 3),
            Buffer::new("c", 200, 0, 2, 5).anywhere(),
        ],
    };
    let errors = plan(&p, Strategy::default()).unwrap_err();
    assert_eq!(
        errors,
        [PlanError::FitsNoRegion {
            buffer: 2,
            size: 200
        }]
    );
}

#[test]
fn spilling_a_real_plan_gives_the_offsets_of_naming_the_region() {
    // All 257 buffers of mobilenet_v2 without a region: one region takes them all (the
    // plan meets the lower bound), with the same offsets as `in act` on every buffer.
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/executorch");
    let rows = read_executorch(&dir.join("mobilenet_v2_greedy.csv")).unwrap();
    let named: Vec<Buffer> = rows
        .into_iter()
        .map(|(_, r)| Buffer::new(r.name, r.size, 0, r.first, r.last))
        .collect();
    let regions = vec![region("act", 9_633_792, 16), region("ext", 1 << 30, 16)];
    let explicit = Problem {
        regions: regions.clone(),
        buffers: named.clone(),
    };
    let spilled = Problem {
        regions,
        buffers: named.into_iter().map(Buffer::anywhere).collect(),
    };
    let a = plan(&explicit, Strategy::default()).unwrap();
    let b = plan(&spilled, Strategy::default()).unwrap();
    validate(&spilled, &b).unwrap();
    assert_eq!(a.buffers, b.buffers);
    assert!(b.buffers.iter().all(|x| x.region == 0));
}

#[test]
fn buffers_after_the_one_sent_on_are_taken_again() {
    // `q` cannot share `fast` with `p` (1-byte buffers aligned to 64 need 65 bytes); `z`
    // (0 bytes) and `w` (live when nothing else is) fit, and stay.
    let buffers = vec![
        Buffer::new("p", 1, 0, 0, 1).with_align(64).anywhere(),
        Buffer::new("q", 1, 0, 0, 1).with_align(64).anywhere(),
        Buffer::new("z", 0, 0, 5, 5).anywhere(),
        Buffer::new("w", 4, 0, 5, 5).anywhere(),
    ];
    let one = Problem {
        regions: vec![region("fast", 64, 1)],
        buffers: buffers.clone(),
    };
    for s in [Strategy::Greedy, Strategy::BestOf, Strategy::default()] {
        assert_eq!(
            plan(&one, s).unwrap_err(),
            [PlanError::FitsNoRegion { buffer: 1, size: 1 }],
            "{}",
            s.name()
        );
    }
    let two = Problem {
        regions: vec![region("fast", 64, 1), region("slow", 4096, 1)],
        buffers,
    };
    assert_eq!(regions_of(&two, Strategy::default()), [0, 1, 0, 0]);
}

#[test]
fn a_shorter_list_that_overflows_where_a_longer_one_fits_sends_on_one_buffer_only() {
    // Greedy by size places `c` (8 bytes) first when it is there, and then `b` (aligned to
    // 64) fits at 0 beside `a` and `c`: `[a, b, c]` fits 40 bytes, while `[a, b]` puts `a`
    // at 0 and `b` at 64. Bisection over `[a, b, c, d]` meets `[a, b]` first, so `b` goes
    // on; `c` and `d` are taken again and fit.
    let p = Problem {
        regions: vec![region("fast", 40, 1)],
        buffers: vec![
            Buffer::new("a", 7, 0, 2, 3).anywhere(),
            Buffer::new("b", 1, 0, 3, 3).with_align(64).anywhere(),
            Buffer::new("c", 8, 0, 2, 2).anywhere(),
            Buffer::new("d", 2, 0, 3, 3).anywhere(),
        ],
    };
    assert_eq!(
        plan(&p, Strategy::Greedy).unwrap_err(),
        [PlanError::FitsNoRegion { buffer: 1, size: 1 }]
    );
}

#[test]
fn a_spilled_buffer_takes_the_alignment_of_the_region_that_takes_it() {
    // `tight` is byte-aligned, `wide` 64-byte aligned. x (5 bytes), y (6 bytes) and z (8
    // bytes with a 4-byte floor, as a `[u32; 2]`) are live together at step 1: 19 bytes.
    // Greedy by size puts z at 0, y right after it at 8 and x at 14: 19 bytes, the lower
    // bound, in `tight` (24 bytes). With the widest alignment of all regions (64), as
    // before, y would start at 64 and nothing would fit there.
    let p = Problem {
        regions: vec![region("tight", 24, 1), region("wide", 1024, 64)],
        buffers: vec![
            Buffer::new("x", 5, 0, 0, 1).anywhere(),
            Buffer::new("y", 6, 0, 0, 1).anywhere(),
            Buffer::new("z", 8, 0, 1, 1).anywhere().with_min_align(4),
        ],
    };
    let out = plan(&p, Strategy::Greedy).unwrap();
    validate(&p, &out).unwrap();
    assert!(out.buffers.iter().all(|b| b.region == 0));
    let offsets: Vec<u64> = out.buffers.iter().map(|b| b.offset).collect();
    assert_eq!(offsets, [14, 8, 0]);
    let r = &out.regions[0];
    assert_eq!((r.planned_bytes, r.lower_bound, r.align), (19, 19, 4));
    assert!(r.proven_optimal);

    // In `wide`, the same buffers take its 64 bytes: z's floor is below it.
    let mut wide = p.clone();
    wide.regions[0].capacity = 4;
    let out = plan(&wide, Strategy::Greedy).unwrap();
    validate(&wide, &out).unwrap();
    assert!(out.buffers.iter().all(|b| b.region == 1));
    assert!(
        out.buffers.iter().all(|b| b.offset % 64 == 0),
        "{:?}",
        out.buffers
    );
}

/// 20,000 regions of 16 bytes and 20,000 buffers of 16 bytes all live at step 0: each
/// region takes one buffer, in order (the spill rule), and the work stays linear: a region
/// whose free bytes cannot take the smallest buffer left is not scanned.
#[test]
fn twenty_thousand_regions_each_take_one_buffer() {
    let n = 20_000;
    let p = Problem {
        regions: (0..n).map(|r| region(&format!("r{r}"), 16, 16)).collect(),
        buffers: (0..n)
            .map(|i| Buffer::new(format!("b{i}"), 16, 0, 0, 0).anywhere())
            .collect(),
    };
    let out = plan(&p, Strategy::default()).unwrap();
    validate(&p, &out).unwrap();
    assert!(
        out.buffers
            .iter()
            .enumerate()
            .all(|(i, b)| b.region == i && b.offset == 0)
    );
}

/// A buffer larger than each of 20,000 regions: one error per buffer, each naming a few
/// regions and counting the rest, not a list of 20,000.
#[test]
fn an_error_about_every_region_lists_a_few_and_counts_the_rest() {
    let n = 20_000;
    let p = Problem {
        regions: (0..n).map(|r| region(&format!("r{r}"), 16, 16)).collect(),
        buffers: (0..n)
            .map(|i| Buffer::new(format!("b{i}"), 32, 0, 0, 0).anywhere())
            .collect(),
    };
    let errors = plan(&p, Strategy::default()).unwrap_err();
    assert_eq!(errors.len(), n);
    assert!(matches!(
        errors[0],
        PlanError::LargerThanEveryRegion {
            buffer: 0,
            size: 32
        }
    ));
    let text = errors[n - 1].display(&p).to_string();
    assert_eq!(
        text,
        format!(
            "buffer `b{}` (32 bytes) exceeds every region: `r0` has 16 bytes, `r1` has 16 bytes, `r2` has 16 bytes, `r3` has 16 bytes, `r4` has 16 bytes, `r5` has 16 bytes, `r6` has 16 bytes, `r7` has 16 bytes, and {} more",
            n - 1,
            n - 8
        )
    );
}
