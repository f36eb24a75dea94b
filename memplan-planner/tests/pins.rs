//! Pinned buffers that share bytes at a common step: the planner reports every such pair,
//! with its bytes and steps, in declaration order, exactly as comparing every pair would
//! (the planner finds them by a sweep, never by comparing every pair).

use memplan_planner::{Buffer, PlanError, Problem, Region, Strategy, plan};
use proptest::prelude::*;

/// Every pair of pinned buffers (same region, with bytes) that shares a step and a byte,
/// compared pair by pair.
fn pairwise(p: &Problem) -> Vec<PlanError> {
    let mut out = Vec::new();
    for a in 0..p.buffers.len() {
        for b in a + 1..p.buffers.len() {
            let (x, y) = (&p.buffers[a], &p.buffers[b]);
            let (Some(px), Some(py)) = (x.pin, y.pin) else {
                continue;
            };
            if x.placement != y.placement || x.size == 0 || y.size == 0 {
                continue;
            }
            let (start, end) = (px.max(py), (px + x.size).min(py + y.size));
            let (first, last) = (
                x.lifetime.first.max(y.lifetime.first),
                x.lifetime.last.min(y.lifetime.last),
            );
            if start < end && first <= last {
                out.push(PlanError::PinOverlap {
                    a,
                    b,
                    bytes: (start, end),
                    steps: (first, last),
                });
            }
        }
    }
    out
}

fn problem(rows: &[(u64, u64, u32, u32, usize)]) -> Problem {
    Problem {
        regions: (0..2)
            .map(|r| Region {
                name: format!("r{r}"),
                capacity: 1 << 20,
                align: 1,
            })
            .collect(),
        buffers: rows
            .iter()
            .enumerate()
            .map(|(i, &(at, size, first, len, region))| {
                Buffer::new(format!("b{i}"), size, region, first, first + len).pinned_at(at)
            })
            .collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 256 }))]

    #[test]
    fn every_overlapping_pinned_pair_is_reported_in_order(
        rows in prop::collection::vec((0u64..200, 0u64..60, 0u32..12, 0u32..5, 0usize..2), 1..40)
    ) {
        let p = problem(&rows);
        let want = pairwise(&p);
        match plan(&p, Strategy::Greedy) {
            Ok(_) => prop_assert!(want.is_empty(), "planned, but {want:?}"),
            Err(errors) => {
                let got: Vec<PlanError> = errors
                    .into_iter()
                    .filter(|e| matches!(e, PlanError::PinOverlap { .. }))
                    .collect();
                prop_assert_eq!(got, want);
            }
        }
    }
}

#[test]
fn two_pins_on_the_same_bytes_at_the_same_step() {
    // b0: bytes 0..64 at steps 0..=2; b1: bytes 32..96 at steps 2..=3; b2 (region 1) the
    // same bytes as b0 but in another region: one pair, bytes 32..64 at step 2.
    let p = problem(&[(0, 64, 0, 2, 0), (32, 64, 2, 1, 0), (0, 64, 0, 2, 1)]);
    let errors = plan(&p, Strategy::Greedy).unwrap_err();
    assert_eq!(
        errors,
        vec![PlanError::PinOverlap {
            a: 0,
            b: 1,
            bytes: (32, 64),
            steps: (2, 2),
        }]
    );
}
