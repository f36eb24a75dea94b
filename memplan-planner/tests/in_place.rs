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
