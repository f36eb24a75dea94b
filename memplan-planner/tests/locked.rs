//! `plan_from`: a plan from given placements (a lock file's) has the figures `plan` gives
//! its own placements, with the proofs a search gives found again by `search_proves`, and
//! placements that break a rule are refused.

use memplan_planner::{
    Buffer, LockedError, Placed, Problem, Region, Strategy, plan, plan_from, search_proves,
};

/// Two regions; an in-place pair, a pinned buffer, a spilled one and a zero-size one.
fn problem() -> Problem {
    Problem {
        regions: vec![
            Region {
                name: "fast".into(),
                capacity: 96,
                align: 16,
            },
            Region {
                name: "slow".into(),
                capacity: 4096,
                align: 8,
            },
        ],
        buffers: vec![
            Buffer::new("a", 48, 0, 0, 1),
            Buffer::new("b", 32, 0, 1, 2),
            Buffer::new("c", 32, 0, 2, 3).in_place_of(1),
            Buffer::new("d", 40, 1, 0, 3).pinned_at(64),
            Buffer::new("e", 64, 0, 0, 3).anywhere(),
            Buffer::new("f", 0, 1, 2, 2).with_align(32),
            Buffer::new("g", 100, 1, 1, 2),
        ],
    }
}

#[test]
fn the_planner_s_own_placements_give_its_own_plan() {
    let p = problem();
    for strategy in [Strategy::Greedy, Strategy::BestOf, Strategy::default()] {
        let planned = plan(&p, strategy).unwrap();
        let from = plan_from(&p, strategy, planned.buffers.clone()).unwrap();
        assert_eq!(from.buffers, planned.buffers);
        for (r, (a, b)) in from.regions.iter().zip(&planned.regions).enumerate() {
            assert_eq!(a.search_nodes, 0);
            assert_eq!(
                (a.capacity, a.planned_bytes, a.lower_bound),
                (b.capacity, b.planned_bytes, b.lower_bound)
            );
            assert_eq!((a.peak_step, a.align), (b.peak_step, b.align));
            // Proven without a search only at a lower bound, which the planner proves too;
            // a search proves the rest.
            assert!(!a.proven_optimal || b.proven_optimal);
            assert_eq!(
                a.proven_optimal || search_proves(&p, &from, r),
                b.proven_optimal,
                "{strategy}, region {r}"
            );
        }
    }
}

/// A pin splits the arena, and the optimum (16 bytes) is above the lower bound (12): only
/// a search proves it, and a plan whose layout is worse is proven by nothing.
#[test]
fn a_proof_above_the_lower_bound_takes_the_search() {
    let p = Problem {
        regions: vec![Region {
            name: "r".into(),
            capacity: 64,
            align: 4,
        }],
        buffers: vec![
            Buffer::new("p", 4, 0, 0, 2).pinned_at(4),
            Buffer::new("a", 8, 0, 0, 0),
            Buffer::new("b", 4, 0, 1, 2),
            Buffer::new("c", 4, 0, 2, 2),
        ],
    };
    let planned = plan(&p, Strategy::default()).unwrap();
    assert_eq!(
        (
            planned.regions[0].planned_bytes,
            planned.regions[0].lower_bound
        ),
        (16, 12)
    );
    assert!(planned.regions[0].proven_optimal);
    let from = plan_from(&p, Strategy::default(), planned.buffers.clone()).unwrap();
    assert_eq!(from.regions[0].planned_bytes, 16);
    assert!(!from.regions[0].proven_optimal, "12 bytes are live at most");
    assert!(search_proves(&p, &from, 0));
    // Greedy does not search: it proves nothing above the bound.
    let greedy = plan_from(&p, Strategy::Greedy, planned.buffers.clone()).unwrap();
    assert!(!search_proves(&p, &greedy, 0));
    // A worse layout: every buffer on its own bytes.
    let mut spread = planned.buffers.clone();
    for (i, b) in spread.iter_mut().enumerate().skip(1) {
        b.offset = 8 + 8 * i as u64;
    }
    let worse = plan_from(&p, Strategy::default(), spread).unwrap();
    assert_eq!(worse.regions[0].planned_bytes, 36);
    assert!(!worse.regions[0].proven_optimal);
    assert!(!search_proves(&p, &worse, 0));
    // A region that does not exist.
    assert!(!search_proves(&p, &worse, 1));
}

#[test]
fn placements_that_break_a_rule_are_refused() {
    let p = problem();
    let good = plan(&p, Strategy::default()).unwrap();
    let refused = |placed: Vec<Placed>| match plan_from(&p, Strategy::Greedy, placed) {
        Err(LockedError::Invalid(why)) => why,
        other => panic!("{other:?}"),
    };
    // `b` onto `a`'s bytes (both live at step 1); `c` follows it, in place.
    let mut overlap = good.buffers.clone();
    overlap[1].offset = overlap[0].offset;
    overlap[2].offset = overlap[0].offset;
    let at = good.buffers[0].offset;
    assert_eq!(
        refused(overlap),
        format!(
            "buffers `a` (bytes {at}..{}, live 0..=1) and `b` (bytes {at}..{}, live 1..=2) share bytes at a common step: bytes {at}..{} at steps 1..=1",
            at + 48,
            at + 32,
            at + 32
        )
    );
    // `a` misaligned: 8 in a region of alignment 16.
    let mut misaligned = good.buffers.clone();
    misaligned[0].offset = 8;
    assert!(refused(misaligned).contains("not a multiple"));
    // `d` moved off its pin.
    let mut moved = good.buffers.clone();
    moved[3].offset = 0;
    assert_eq!(
        refused(moved),
        "pinned buffer `d` is not at its pinned offset"
    );
    // `g` past the capacity of `slow`.
    let mut past = good.buffers.clone();
    past[6] = Placed {
        region: 1,
        offset: 4096 - 64,
    };
    assert_eq!(
        refused(past),
        "buffer `g` (bytes 4032..4132) ends at byte 4132, past the limit 4096"
    );
    // A memory id the problem does not have.
    let mut nowhere = good.buffers.clone();
    nowhere[4].region = 2;
    assert!(refused(nowhere).contains("memory id 2"));
    // Too few placements.
    assert!(refused(good.buffers[..3].to_vec()).contains("3 buffers are given"));
}

#[test]
fn a_problem_with_errors_gives_the_planner_s_errors() {
    let mut p = problem();
    p.buffers[2].size = 64; // larger than its in-place source
    let placed = vec![
        Placed {
            region: 0,
            offset: 0
        };
        p.buffers.len()
    ];
    match plan_from(&p, Strategy::Greedy, placed) {
        Err(LockedError::Problem(errors)) => {
            assert_eq!(errors, plan(&p, Strategy::Greedy).unwrap_err())
        }
        other => panic!("{other:?}"),
    }
}
