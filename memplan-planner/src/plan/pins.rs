//! Pinned buffers: each at its offset, aligned and in bounds, and no two sharing bytes at
//! a common step.

use crate::error::PlanError;
use crate::problem::Problem;

use super::groups::Group;

pub(super) fn check(problem: &Problem, g: &Group, r: usize, pin: u64, errors: &mut Vec<PlanError>) {
    if !pin.is_multiple_of(g.align) {
        errors.push(PlanError::PinMisaligned {
            buffer: g.root,
            offset: pin,
            align: g.align,
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

pub(super) fn check_overlaps(
    problem: &Problem,
    groups: &[Group],
    region_of: &[Option<usize>],
    errors: &mut Vec<PlanError>,
) {
    let pinned: Vec<usize> = (0..groups.len())
        .filter(|&g| {
            problem.buffers[groups[g].root].pin.is_some()
                && region_of[g].is_some()
                && groups[g].size > 0
        })
        .collect();
    for (x, &ga) in pinned.iter().enumerate() {
        for &gb in &pinned[x + 1..] {
            if region_of[ga] != region_of[gb] {
                continue;
            }
            let (a, b) = (&groups[ga], &groups[gb]);
            if !a.lifetime.conflicts(&b.lifetime) {
                continue;
            }
            let pa = problem.buffers[a.root].pin.unwrap_or(0);
            let pb = problem.buffers[b.root].pin.unwrap_or(0);
            let (Some(ea), Some(eb)) = (pa.checked_add(a.size), pb.checked_add(b.size)) else {
                continue;
            };
            let start = pa.max(pb);
            let end = ea.min(eb);
            if start < end {
                let (first, last) = (
                    a.lifetime.first.max(b.lifetime.first),
                    a.lifetime.last.min(b.lifetime.last),
                );
                let (lo, hi) = if a.root < b.root {
                    (a.root, b.root)
                } else {
                    (b.root, a.root)
                };
                errors.push(PlanError::PinOverlap {
                    a: lo,
                    b: hi,
                    bytes: (start, end),
                    steps: (first, last),
                });
            }
        }
    }
}
