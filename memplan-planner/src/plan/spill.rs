//! Spilling: a region for every buffer without one ([`Placement::Anywhere`]), by the rule
//! on [`crate::plan()`]. The live bytes per section are a range-add, range-max tree
//! ([`LiveBytes`]): `O(log S)` per buffer taken or tried, whatever its lifetime.

use crate::error::PlanError;
use crate::instance::{Instance, Item};
use crate::problem::Problem;
use crate::strategy::{Outcome, Strategy, pack};
use crate::timeline::Timeline;

use super::groups::Group;
use super::live::LiveBytes;

/// Region `r` packed: its groups (in group order), the strategy's outcome and the instance.
pub(super) type Packed = (Vec<usize>, Outcome, Instance);

/// Chooses a region for every group without one (`region_of[g] == None`) by the rule on
/// [`plan()`], skipping the regions marked `bad`. (Trying each group with a whole plan of
/// the region, the obvious rule, costs a plan per buffer: minutes in a build for a few
/// hundred buffers under a search budget.)
///
/// Groups that no region takes keep `None`. Returns, per region, its packing when the last
/// one computed is the final one, so that it is not computed again.
pub(super) fn spill(
    problem: &Problem,
    groups: &[Group],
    region_of: &mut [Option<usize>],
    bad: &[bool],
    strategy: Strategy,
) -> Vec<Option<Packed>> {
    let nr = problem.regions.len();
    let mut packed: Vec<Option<Packed>> = (0..nr).map(|_| None).collect();
    if region_of.iter().all(Option::is_some) {
        return packed;
    }
    // Time compressed to the points where some piece of a group starts or ends (groups
    // of no bytes have none: they never push a region over). Each group adds the bytes of
    // its pieces, each over its own steps.
    let rects: Vec<Item> = groups
        .iter()
        .flat_map(|g| g.pieces.iter())
        .map(|p| Item {
            size: p.size,
            align: 1,
            lifetime: p.lifetime,
            fixed: None,
        })
        .collect();
    let timeline = Timeline::new(&Instance::new(rects));
    // The spans of group `g`'s pieces: `span[piece_start[g]..piece_start[g + 1]]`.
    let mut piece_start = Vec::with_capacity(groups.len() + 1);
    piece_start.push(0);
    for g in groups {
        piece_start.push(piece_start.last().copied().unwrap_or(0) + g.pieces.len());
    }
    let span: Vec<(usize, usize)> = timeline
        .span
        .iter()
        .map(|&(lo, hi)| (lo as usize, hi as usize))
        .collect();
    let (span, piece_start) = (&span, &piece_start);
    let pieces_of = |gi: usize| {
        (piece_start[gi]..piece_start[gi + 1])
            .map(move |k| (span[k], groups[gi].pieces[k - piece_start[gi]].size))
    };
    for r in (0..nr).filter(|&r| !bad[r]) {
        let cap = problem.regions[r].capacity;
        // Groups this region sent on because its plan overflowed with them.
        let mut refused = vec![false; groups.len()];
        loop {
            // Step 1: by the live bytes (exact: a sum past `u64::MAX` is over any capacity).
            let mut live = LiveBytes::new(timeline.sections());
            for gi in (0..groups.len()).filter(|&gi| region_of[gi] == Some(r)) {
                for (s, size) in pieces_of(gi) {
                    live.add(s, size);
                }
            }
            let mut taken = Vec::new();
            for gi in 0..groups.len() {
                if region_of[gi].is_some() || refused[gi] {
                    continue;
                }
                let fits = pieces_of(gi)
                    .all(|(s, size)| live.most(s) + u128::from(size) <= u128::from(cap));
                if fits {
                    for (s, size) in pieces_of(gi) {
                        live.add(s, size);
                    }
                    taken.push(gi);
                }
            }
            if taken.is_empty() {
                break;
            }
            // Step 2: by the plan.
            let fits =
                |x: &Result<Packed, PlanError>| x.as_ref().is_ok_and(|p| p.1.layout.bytes <= cap);
            let keep = |region_of: &mut [Option<usize>], k: usize| {
                for (j, &gi) in taken.iter().enumerate() {
                    region_of[gi] = (j < k).then_some(r);
                }
            };
            let before = packed[r].take();
            keep(region_of, taken.len());
            let all = pack_region(problem, groups, region_of, r, strategy);
            if fits(&all) {
                packed[r] = all.ok();
                break;
            }
            // The first group with which the plan overflows: `lo` kept fits (none kept:
            // the region as it was before this round), `hi` kept does not.
            let (mut lo, mut hi) = (0, taken.len());
            let mut last_fit = before;
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                keep(region_of, mid);
                let trial = pack_region(problem, groups, region_of, r, strategy);
                if fits(&trial) {
                    lo = mid;
                    last_fit = trial.ok();
                } else {
                    hi = mid;
                }
            }
            keep(region_of, lo);
            refused[taken[lo]] = true;
            packed[r] = last_fit;
        }
    }
    packed
}

/// Packs region `r`: returns the groups in it (in group order), the outcome and the
/// instance.
pub(super) fn pack_region(
    problem: &Problem,
    groups: &[Group],
    region_of: &[Option<usize>],
    r: usize,
    strategy: Strategy,
) -> Result<Packed, PlanError> {
    let members: Vec<usize> = (0..groups.len())
        .filter(|&g| region_of[g] == Some(r))
        .collect();
    let mut instance = Instance::new(
        members
            .iter()
            .map(|&g| Item {
                size: groups[g].size,
                align: groups[g].align_in(problem, r),
                lifetime: groups[g].lifetime,
                fixed: problem.buffers[groups[g].root].pin,
            })
            .collect(),
    );
    if members.iter().any(|&g| !groups[g].is_rectangle()) {
        instance.pieces = members
            .iter()
            .map(|&g| groups[g].instance_pieces())
            .collect();
    }
    let out = pack(strategy, &instance).map_err(|e| PlanError::SizeOverflow {
        buffers: groups[members[e.item]].members.clone(),
        region: Some(r),
    })?;
    Ok((members, out, instance))
}
