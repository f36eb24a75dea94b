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

/// Two pinned groups (by index, the lower first) that share `bytes` at `steps`.
type Overlap = (usize, usize, (u64, u64), (u32, u32));

/// Every pair of pinned groups in one region that share bytes at a common step (each group
/// holding the bytes of its pieces, each over its own steps), as [`PlanError::PinOverlap`]
/// in group order with the first steps where they do, found by a sweep ([`overlapping_pairs`]):
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
    // Each pinned group's pieces (what it holds when), as extents; pairs of pieces of two
    // groups that share bytes at a common step.
    let mut found: Vec<Overlap> = Vec::new();
    for members in &by_region {
        let mut owner = Vec::new();
        let mut extents = Vec::new();
        for &g in members {
            for p in &groups[g].pieces {
                owner.push(g);
                extents.push(Extent {
                    offset: pin(g).unwrap_or(0),
                    size: p.size,
                    first: p.lifetime.first,
                    last: p.lifetime.last,
                });
            }
        }
        for (x, y) in overlapping_pairs(&extents) {
            let (ga, gb) = (owner[x], owner[y]);
            if ga == gb {
                continue;
            }
            let (ex, ey) = (&extents[x], &extents[y]);
            let bytes = (
                ex.offset.max(ey.offset),
                (ex.offset + ex.size).min(ey.offset + ey.size),
            );
            let steps = (ex.first.max(ey.first), ex.last.min(ey.last));
            found.push((ga.min(gb), ga.max(gb), bytes, steps));
        }
    }
    // One error per pair of groups: the bytes and steps of its first overlap in time.
    found.sort_unstable_by_key(|&(ga, gb, _, steps)| (ga, gb, steps));
    found.dedup_by_key(|f| (f.0, f.1));
    for (ga, gb, bytes, steps) in found {
        let (a, b) = (&groups[ga], &groups[gb]);
        errors.push(PlanError::PinOverlap {
            a: a.root.min(b.root),
            b: a.root.max(b.root),
            bytes,
            steps,
        });
    }
}
