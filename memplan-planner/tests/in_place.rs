//! In-place rules: a buffer in place of another shares its offset; siblings that are live
//! at a common step may not; a chain takes the region one of its members names; the
//! validator only lets a buffer and one in place of it share bytes.

use memplan_planner::{
    Buffer, Placed, Plan, PlanError, Problem, Region, Strategy, Violation, plan, validate,
};

fn regions(n: usize) -> Vec<Region> {
    (0..n)
        .map(|i| Region {
            name: format!("r{i}"),
            capacity: 1024,
            align: 16,
        })
        .collect()
}

#[test]
fn siblings_live_at_a_common_step_are_an_error() {
    let p = Problem {
        regions: regions(1),
        buffers: vec![
            Buffer::new("a", 64, 0, 0, 1),
            Buffer::new("b", 64, 0, 1, 2).in_place_of(0),
            Buffer::new("c", 64, 0, 1, 2).in_place_of(0),
        ],
    };
    let errors = plan(&p, Strategy::Greedy).unwrap_err();
    assert_eq!(
        errors,
        vec![PlanError::InPlaceOverlap {
            a: 1,
            b: 2,
            steps: (1, 2)
        }]
    );
}

#[test]
fn siblings_one_after_the_other_share_the_bytes() {
    // b uses a's bytes at 1..=2, then c at 3..=4; a chain a -> d -> e also shares them.
    let p = Problem {
        regions: regions(1),
        buffers: vec![
            Buffer::new("a", 64, 0, 0, 1),
            Buffer::new("b", 64, 0, 1, 2).in_place_of(0),
            Buffer::new("c", 32, 0, 3, 4).in_place_of(0),
            Buffer::new("other", 64, 0, 0, 4),
        ],
    };
    let out = plan(&p, Strategy::Greedy).unwrap();
    validate(&p, &out).unwrap();
    assert_eq!(out.buffers[1].offset, out.buffers[0].offset);
    assert_eq!(out.buffers[2].offset, out.buffers[0].offset);
    assert_eq!(out.regions[0].planned_bytes, 128);
}

#[test]
fn a_chain_goes_to_the_region_a_member_names() {
    let mut a = Buffer::new("a", 64, 0, 0, 1).anywhere();
    a.align = None;
    let p = Problem {
        regions: regions(2),
        buffers: vec![a, Buffer::new("b", 64, 1, 1, 2).in_place_of(0)],
    };
    let out = plan(&p, Strategy::Greedy).unwrap();
    assert_eq!(
        out.buffers[0],
        Placed {
            region: 1,
            offset: 0
        }
    );
    assert_eq!(
        out.buffers[1],
        Placed {
            region: 1,
            offset: 0
        }
    );
}

#[test]
fn a_chain_whose_members_name_two_regions_is_an_error() {
    let p = Problem {
        regions: regions(2),
        buffers: vec![
            Buffer::new("a", 64, 0, 0, 1),
            Buffer::new("b", 64, 1, 1, 2).in_place_of(0),
        ],
    };
    let errors = plan(&p, Strategy::Greedy).unwrap_err();
    assert_eq!(
        errors,
        vec![PlanError::InPlaceRegion {
            buffer: 1,
            source: 0
        }]
    );
}

#[test]
fn the_validator_rejects_siblings_sharing_bytes() {
    // A hand-made plan that puts two siblings on a's bytes at the same steps.
    let p = Problem {
        regions: regions(1),
        buffers: vec![
            Buffer::new("a", 64, 0, 0, 1),
            Buffer::new("b", 64, 0, 1, 2).in_place_of(0),
            Buffer::new("c", 64, 0, 1, 2).in_place_of(0),
        ],
    };
    let bad = Plan {
        strategy: Strategy::Greedy,
        buffers: vec![
            Placed {
                region: 0,
                offset: 0
            };
            3
        ],
        regions: vec![memplan_planner::RegionPlan {
            capacity: 1024,
            planned_bytes: 64,
            lower_bound: 128,
            peak_step: Some(1),
            align: 16,
            proven_optimal: false,
            search_nodes: 0,
        }],
    };
    assert_eq!(validate(&p, &bad), Err(Violation::Overlap { a: 1, b: 2 }));
}

/// A chain holds at each step only the bytes of the member live there: `a` (64 bytes,
/// live 0..=1) hands over to `b` (16 bytes, 1..=5), so `c` (48 bytes, 2..=5) fits above
/// `b` in `a`'s old bytes, and the three fit in 64 bytes (the most live at one step).
#[test]
fn a_chain_holds_only_the_bytes_of_the_member_live_at_each_step() {
    let p = Problem {
        regions: vec![Region {
            name: "r".into(),
            capacity: 64,
            align: 16,
        }],
        buffers: vec![
            Buffer::new("a", 64, 0, 0, 1),
            Buffer::new("b", 16, 0, 1, 5).in_place_of(0),
            Buffer::new("c", 48, 0, 2, 5),
        ],
    };
    for strategy in [Strategy::Greedy, Strategy::BestOf, Strategy::default()] {
        let out = plan(&p, strategy).unwrap_or_else(|e| panic!("{strategy}: {e:?}"));
        validate(&p, &out).unwrap();
        assert_eq!(out.regions[0].planned_bytes, 64, "{strategy}");
        assert_eq!(out.regions[0].lower_bound, 64, "{strategy}");
        assert_eq!(out.buffers[2].offset, 16, "{strategy}");
    }
    // The same layout given as pins: `a` is dead once `c` starts, so they do not overlap.
    let mut pinned = p.clone();
    pinned.buffers[0] = pinned.buffers[0].clone().pinned_at(0);
    pinned.buffers[2] = pinned.buffers[2].clone().pinned_at(16);
    let out = plan(&pinned, Strategy::default()).unwrap();
    validate(&pinned, &out).unwrap();
    assert_eq!(out.regions[0].planned_bytes, 64);
}

/// A chain with a gap between its members (`a` 0..=1, `b` in place of it 4..=5) holds no
/// bytes at steps 2..=3, where another buffer may use them.
#[test]
fn a_chain_holds_no_bytes_between_its_members() {
    let p = Problem {
        regions: vec![Region {
            name: "r".into(),
            capacity: 64,
            align: 16,
        }],
        buffers: vec![
            Buffer::new("a", 64, 0, 0, 1),
            Buffer::new("b", 64, 0, 4, 5).in_place_of(0),
            Buffer::new("between", 64, 0, 2, 3),
        ],
    };
    let out = plan(&p, Strategy::default()).unwrap();
    validate(&p, &out).unwrap();
    assert_eq!(out.regions[0].planned_bytes, 64);
    assert!(out.regions[0].proven_optimal);
}

mod exhaustion {
    use super::*;
    use proptest::prelude::{ProptestConfig, prop_assert, prop_assert_eq, proptest};
    use proptest::strategy::Strategy as _;
    use proptest::test_runner::TestCaseError;

    /// The fewest planned bytes of any valid layout, by trying every offset (a multiple
    /// of 16 up to the sum of the sizes) for every buffer not in place of another, pins
    /// kept, and asking the validator (which shares no code with the strategies) whether
    /// the layout holds.
    fn fewest_bytes(p: &Problem) -> Option<u64> {
        let n = p.buffers.len();
        let roots: Vec<usize> = (0..n)
            .filter(|&i| p.buffers[i].in_place_of.is_none())
            .collect();
        // Every unpinned root's offset, in steps of 16, up to the end of the highest pin
        // plus every size: an optimal layout never puts a buffer higher (a layout of
        // unpinned buffers stacked above every pin fits there).
        let pins_end = p
            .buffers
            .iter()
            .filter_map(|b| b.pin.map(|o| o + b.size))
            .max()
            .unwrap_or(0);
        let top: u64 = (pins_end + p.buffers.iter().map(|b| b.size).sum::<u64>()).max(16);
        let choices: Vec<Vec<u64>> = roots
            .iter()
            .map(|&r| match p.buffers[r].pin {
                Some(pin) => vec![pin],
                None => (0..=top / 16).map(|k| k * 16).collect(),
            })
            .collect();
        let root_of = |mut i: usize| {
            while let Some(s) = p.buffers[i].in_place_of {
                i = s;
            }
            i
        };
        let mut pick = vec![0usize; roots.len()];
        let mut best: Option<u64> = None;
        loop {
            let offset = |i: usize| {
                let r = root_of(i);
                let k = roots.iter().position(|&x| x == r).unwrap();
                choices[k][pick[k]]
            };
            let offsets: Vec<u64> = (0..n).map(offset).collect();
            let bytes = (0..n)
                .map(|i| offsets[i] + p.buffers[i].size)
                .max()
                .unwrap_or(0);
            if best.is_none_or(|b| bytes < b) {
                let candidate = Plan {
                    strategy: Strategy::Greedy,
                    buffers: offsets
                        .iter()
                        .map(|&offset| Placed { region: 0, offset })
                        .collect(),
                    regions: vec![memplan_planner::RegionPlan {
                        capacity: p.regions[0].capacity,
                        planned_bytes: bytes,
                        lower_bound: 0,
                        peak_step: None,
                        align: 16,
                        proven_optimal: false,
                        search_nodes: 0,
                    }],
                };
                if validate(p, &candidate).is_ok() {
                    best = Some(bytes);
                }
            }
            // The next combination.
            let mut k = 0;
            loop {
                if k == pick.len() {
                    return best;
                }
                pick[k] += 1;
                if pick[k] < choices[k].len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
        }
    }

    /// Up to five buffers of 0 to 64 bytes (multiples of 16) over steps 0..8, some in place
    /// of an earlier one (any size, any lifetime: the planner refuses what breaks the
    /// rules), some pinned at a multiple of 16.
    fn problems() -> impl proptest::strategy::Strategy<Value = Problem> {
        let buffer = (0u64..=4, 0u32..8, 0u32..5, 0usize..8, 0u64..8);
        proptest::collection::vec(buffer, 2..=5).prop_map(|raw| Problem {
            regions: vec![Region {
                name: "r".into(),
                capacity: 1 << 20,
                align: 16,
            }],
            buffers: raw
                .iter()
                .enumerate()
                .map(|(i, &(size, first, len, link, pin))| {
                    let b = Buffer::new(format!("b{i}"), size * 16, 0, first, first + len);
                    match link {
                        0..=3 if i > 0 => b.in_place_of(link % i),
                        6 => b.pinned_at(pin * 16),
                        _ => b,
                    }
                })
                .collect(),
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// On chains of mixed sizes, with gaps and pins: every strategy's plan is valid,
        /// never below the fewest bytes any layout needs, its lower bound never above
        /// them, and a plan reported optimal uses exactly that many.
        #[test]
        fn plans_of_chains_match_exhaustion(p in problems()) {
            let Some(fewest) = fewest_bytes(&p) else {
                // No valid layout (two pins that overlap): the planner must say so.
                prop_assert!(plan(&p, Strategy::default()).is_err());
                return Ok(());
            };
            for strategy in [Strategy::Greedy, Strategy::BestOf, Strategy::default()] {
                let out = match plan(&p, strategy) {
                    Ok(out) => out,
                    Err(errors) => {
                        // Only rule errors: a layout exists, so never a capacity or pin one.
                        let rules = errors.iter().all(|e| matches!(
                            e,
                            PlanError::InPlaceLarger { .. }
                                | PlanError::InPlaceSourceLive { .. }
                                | PlanError::InPlacePinned { .. }
                                | PlanError::InPlaceOverlap { .. }
                        ));
                        prop_assert!(rules, "{strategy}: {errors:?}");
                        continue;
                    }
                };
                validate(&p, &out).map_err(|v| TestCaseError::fail(format!("{strategy}: {v}")))?;
                let r = &out.regions[0];
                prop_assert!(r.planned_bytes >= fewest, "{strategy}: {} < {fewest}", r.planned_bytes);
                prop_assert!(r.lower_bound <= fewest, "{strategy}: bound {} > {fewest}", r.lower_bound);
                if r.proven_optimal {
                    prop_assert_eq!(r.planned_bytes, fewest, "{} proven", strategy);
                }
            }
        }
    }
}
