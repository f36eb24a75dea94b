//! Spilling: a region for every buffer without one ([`Placement::Anywhere`]), by the rule
//! on [`crate::plan()`]. The live bytes per section are a range-add, range-max tree
//! ([`LiveBytes`]): `O(log S)` per buffer taken or tried, whatever its lifetime.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::error::PlanError;
use crate::instance::{Instance, Item};
use crate::problem::Problem;
use crate::strategy::{Outcome, Strategy, pack_within};
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
    // The groups still without a region, in group order, and how many of each size: a
    // region none of whose free bytes could take the smallest of them is skipped, and a
    // region's scan stops once no section has room for it.
    let mut pending: BTreeSet<usize> = (0..groups.len())
        .filter(|&g| region_of[g].is_none())
        .collect();
    let mut sizes: BTreeMap<u64, usize> = BTreeMap::new();
    for &g in &pending {
        *sizes.entry(groups[g].size).or_insert(0) += 1;
    }
    let mut members = members_by_region(region_of, nr);
    let mut live = LiveBytes::new(timeline.sections());
    for r in (0..nr).filter(|&r| !bad[r]) {
        let cap = problem.regions[r].capacity;
        // Groups this region sent on because its plan overflowed with them.
        let mut refused: HashSet<usize> = HashSet::new();
        while let Some((&smallest, _)) = sizes.first_key_value() {
            if smallest > cap {
                break;
            }
            // Step 1: by the live bytes (exact: a sum past `u64::MAX` is over any capacity).
            live.reset();
            for &gi in &members[r] {
                for (s, size) in pieces_of(gi) {
                    live.add(s, size);
                }
            }
            let mut taken = Vec::new();
            for &gi in &pending {
                // No section has room for the smallest group left: none can be taken.
                if live.least() + u128::from(smallest) > u128::from(cap) {
                    break;
                }
                if refused.contains(&gi) {
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
            let with = |k: usize| merged(&members[r], &taken[..k]);
            let before = packed[r].take();
            let all = pack_region(problem, groups, &with(taken.len()), r, strategy);
            let kept = if fits(&all) {
                packed[r] = all.ok();
                taken.len()
            } else {
                // The first group with which the plan overflows: `lo` kept fits (none kept:
                // the region as it was before this round), `hi` kept does not.
                let (mut lo, mut hi) = (0, taken.len());
                let mut last_fit = before;
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    let trial = pack_region(problem, groups, &with(mid), r, strategy);
                    if fits(&trial) {
                        lo = mid;
                        last_fit = trial.ok();
                    } else {
                        hi = mid;
                    }
                }
                refused.insert(taken[lo]);
                packed[r] = last_fit;
                lo
            };
            for &gi in &taken[..kept] {
                region_of[gi] = Some(r);
                pending.remove(&gi);
                if let Some(c) = sizes.get_mut(&groups[gi].size) {
                    *c -= 1;
                    if *c == 0 {
                        sizes.remove(&groups[gi].size);
                    }
                }
            }
            members[r] = with(kept);
            if kept == taken.len() {
                break;
            }
        }
    }
    packed
}

/// The groups of each of `regions` regions, in group order.
pub(super) fn members_by_region(region_of: &[Option<usize>], regions: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); regions];
    for (g, r) in region_of.iter().enumerate() {
        if let Some(r) = *r
            && let Some(m) = out.get_mut(r)
        {
            m.push(g);
        }
    }
    out
}

/// `a` and `b`, both in increasing order, merged in increasing order.
fn merged(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i] < b[j]) {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out
}

/// Packs region `r`, which holds the groups `members` (in group order): returns them, the
/// outcome and the instance.
pub(super) fn pack_region(
    problem: &Problem,
    groups: &[Group],
    members: &[usize],
    r: usize,
    strategy: Strategy,
) -> Result<Packed, PlanError> {
    let members = members.to_vec();
    let instance = region_instance(problem, groups, &members, r);
    let capacity = problem.regions[r].capacity;
    let out = pack_within(strategy, &instance, capacity).map_err(|e| PlanError::SizeOverflow {
        buffers: groups[members[e.item]].members.clone(),
        region: Some(r),
    })?;
    Ok((members, out, instance))
}

/// The instance of region `r`, which holds the groups `members` (in group order): one item
/// per group, with its pieces when a group is not a rectangle.
pub(super) fn region_instance(
    problem: &Problem,
    groups: &[Group],
    members: &[usize],
    r: usize,
) -> Instance {
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
    instance
}
