//! Pinned buffers: each at its offset, aligned and in bounds, and no two sharing bytes at
//! a common step.

use crate::error::PlanError;
use crate::overlaps::{Extent, overlapping_pairs};
use crate::problem::Problem;

use super::groups::Group;

pub(super) fn check(problem: &Problem, g: &Group, r: usize, pin: u64, errors: &mut Vec<PlanError>) {
    let align = g.align_in(problem, r);
    if !pin.is_multiple_of(align) {
        errors.push(PlanError::PinMisaligned {
            buffer: g.root,
            offset: pin,
            align,
        });
    }
    let cap = problem.regions[r].capacity;
    let fits = pin <= cap && g.size <= cap - pin;
    if !fits {
        errors.push(PlanError::PinOutOfBounds {
            buffer: g.root,
            offset: pin,
            size: g.size,
            capacity: cap,
        });
    }
}

/// Every pair of pinned groups in one region that share bytes at a common step, as
/// [`PlanError::PinOverlap`] in group order, found by a sweep ([`overlapping_pairs`]):
/// O(n log n) for pins that do not overlap, and O(log n) more per pair reported.
pub(super) fn check_overlaps(
    problem: &Problem,
    groups: &[Group],
    region_of: &[Option<usize>],
    errors: &mut Vec<PlanError>,
) {
    let pin = |g: usize| problem.buffers[groups[g].root].pin;
    // Pinned groups with bytes whose end fits (an end past 2^64 is out of bounds, reported
    // by `check`), by region.
    let mut by_region: Vec<Vec<usize>> = vec![Vec::new(); problem.regions.len()];
    for g in 0..groups.len() {
        if let (Some(p), Some(r)) = (pin(g), region_of[g])
            && groups[g].size > 0
            && p.checked_add(groups[g].size).is_some()
        {
            by_region[r].push(g);
        }
    }
    let mut pairs = Vec::new();
    for members in &by_region {
        let extents: Vec<Extent> = members
            .iter()
            .map(|&g| Extent {
                offset: pin(g).unwrap_or(0),
                size: groups[g].size,
                first: groups[g].lifetime.first,
                last: groups[g].lifetime.last,
            })
            .collect();
        for (x, y) in overlapping_pairs(&extents) {
            let (ga, gb) = (members[x], members[y]);
            pairs.push((ga.min(gb), ga.max(gb)));
        }
    }
    pairs.sort_unstable();
    for (ga, gb) in pairs {
        let (a, b) = (&groups[ga], &groups[gb]);
        let (pa, pb) = (pin(ga).unwrap_or(0), pin(gb).unwrap_or(0));
        let bytes = (pa.max(pb), (pa + a.size).min(pb + b.size));
        let steps = (
            a.lifetime.first.max(b.lifetime.first),
            a.lifetime.last.min(b.lifetime.last),
        );
        errors.push(PlanError::PinOverlap {
            a: a.root.min(b.root),
            b: a.root.max(b.root),
            bytes,
            steps,
        });
    }
}
