//! From a [`Problem`] to a [`Plan`]: check the buffers, merge in-place groups, choose regions,
//! verify pins, run the strategy on each region and check capacity.

use crate::best_of::Timeline;
use crate::error::{Overflow, PlanError};
use crate::instance::{Instance, Item, lower_bound};
use crate::problem::{Lifetime, MAX_ALIGN, Placement, Problem, Step};
use crate::strategy::{Strategy, run};

/// Where one buffer went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The region (memory id).
    pub region: usize,
    /// The offset in the region, in bytes.
    pub offset: u64,
}

/// One region's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionPlan {
    /// Bytes available.
    pub capacity: u64,
    /// Bytes the plan uses: the largest `offset + size` in the region.
    pub planned_bytes: u64,
    /// The most bytes live at one step.
    pub lower_bound: u64,
    /// The step at which `lower_bound` bytes are live (`None` when no bytes are).
    pub peak_step: Option<Step>,
    /// The largest alignment of the region and its buffers: the arena's alignment.
    pub align: u64,
    /// Whether `planned_bytes` is proven the fewest possible.
    pub proven_optimal: bool,
    /// Search nodes the strategy used for this region (0 unless [`Strategy::Optimal`]
    /// searched; equal to its budget when the search stopped there).
    pub search_nodes: u64,
}

/// A plan: where every buffer goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The strategy that made it.
    pub strategy: Strategy,
    /// One entry per buffer of the problem, in its order.
    pub buffers: Vec<Placed>,
    /// One entry per region of the problem, in its order.
    pub regions: Vec<RegionPlan>,
}

/// An in-place group: a root buffer and every buffer in place of it (transitively). The
/// group occupies the root's bytes for the hull of all its lifetimes.
struct Group {
    root: usize,
    members: Vec<usize>,
    /// The region a member names (`In`), or `Anywhere` when none does.
    placement: Placement,
    size: u64,
    align: u64,
    lifetime: Lifetime,
}

fn valid_align(a: u64) -> bool {
    a.is_power_of_two() && a <= MAX_ALIGN
}

/// Plans `problem` with `strategy`.
///
/// Buffers with a region ([`Placement::In`]) stay in it. The others
/// ([`Placement::Anywhere`]) are spilled, region by region in declaration order:
///
/// 1. The region takes them, in declaration order, each one that keeps the most bytes live
///    at one step of the region within its capacity; one that would push it over is left
///    for the next regions (a later, smaller one may still be taken).
/// 2. The region is planned. If its plan ends above the capacity (alignment padding or
///    fragmentation, which the live bytes do not show), the buffer with which it starts to
///    overflow, found by bisection over the buffers taken in step 1, is sent on to the next
///    regions; the region keeps the buffers before it and takes the later ones again from
///    step 1.
///
/// A buffer that no region takes is a [`PlanError::FitsNoRegion`]. This costs one plan per
/// region, plus about `1 + log2(k)` for each buffer a region sends on in step 2 (`k` the
/// buffers it took). Bisection assumes that where a plan of some buffers overflows, a plan
/// of more does too; `greedy` and `best_of` do not always keep to that (a buffer added can
/// change the order they place the others in), and then step 2 may send on a buffer that
/// a plan of more buffers would have fitted.
///
/// # Errors
///
/// Every [`PlanError`] found, in a deterministic order: input errors first (alignments,
/// in-place rules, pins), then each region's capacity. A region with an in-place or pin
/// error is not packed (its capacity error would be a consequence); the other regions
/// still are, so their errors come in the same report.
pub fn plan(problem: &Problem, strategy: Strategy) -> Result<Plan, Vec<PlanError>> {
    let mut errors = Vec::new();
    let nr = problem.regions.len();
    for (r, reg) in problem.regions.iter().enumerate() {
        if !valid_align(reg.align) {
            errors.push(PlanError::RegionAlign {
                region: r,
                align: reg.align,
            });
        }
    }
    for (i, b) in problem.buffers.iter().enumerate() {
        if let Some(a) = b.align
            && !valid_align(a)
        {
            errors.push(PlanError::BufferAlign {
                buffer: i,
                align: a,
            });
        }
        if let Placement::In(r) = b.placement
            && r >= nr
        {
            errors.push(PlanError::UnknownRegion { buffer: i });
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let groups = build_groups(problem, &mut errors);
    if errors
        .iter()
        .any(|e| matches!(e, PlanError::InPlaceCycle { .. }))
    {
        return Err(errors);
    }

    // Regions for each group: pinned placements first; `Anywhere` groups later, in order.
    let mut region_of: Vec<Option<usize>> = groups
        .iter()
        .map(|g| match g.placement {
            Placement::In(r) => Some(r),
            Placement::Anywhere => None,
        })
        .collect();
    for (gi, g) in groups.iter().enumerate() {
        let b = &problem.buffers[g.root];
        match region_of[gi] {
            Some(r) => {
                let cap = problem.regions[r].capacity;
                if g.size > cap {
                    errors.push(PlanError::BufferTooLarge {
                        buffer: g.root,
                        region: r,
                        needed: g.size,
                        available: cap,
                    });
                }
                if let Some(pin) = b.pin {
                    check_pin(problem, g, r, pin, &mut errors);
                }
            }
            None => {
                if b.pin.is_some() {
                    errors.push(PlanError::PinWithoutRegion { buffer: g.root });
                } else if problem.regions.iter().all(|reg| g.size > reg.capacity) {
                    errors.push(PlanError::LargerThanEveryRegion {
                        buffer: g.root,
                        size: g.size,
                    });
                }
            }
        }
    }
    check_pin_overlaps(problem, &groups, &region_of, &mut errors);
    // Regions with an input error are not packed; the others are.
    let mut group_of = vec![usize::MAX; problem.buffers.len()];
    for (gi, g) in groups.iter().enumerate() {
        for &m in &g.members {
            group_of[m] = gi;
        }
    }
    let mut bad = vec![false; nr];
    for e in &errors {
        for m in e.buffers() {
            if let Some(&gi) = group_of.get(m)
                && let Some(Some(r)) = region_of.get(gi)
            {
                bad[*r] = true;
            }
        }
    }
    let input_errors = !errors.is_empty();

    let mut packed = spill(problem, &groups, &mut region_of, &bad, strategy);
    for gi in 0..groups.len() {
        if region_of[gi].is_none() && !input_errors {
            errors.push(PlanError::FitsNoRegion {
                buffer: groups[gi].root,
                size: groups[gi].size,
            });
        }
    }
    let mut buffers = vec![
        Placed {
            region: 0,
            offset: 0
        };
        problem.buffers.len()
    ];
    let mut regions = Vec::with_capacity(nr);
    for r in (0..nr).filter(|&r| !bad[r]) {
        let done = packed[r].take().map(Ok);
        let (members, out, instance) =
            match done.unwrap_or_else(|| pack_region(problem, &groups, &region_of, r, strategy)) {
                Ok(x) => x,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
        let (lb, peak) = lower_bound(&instance);
        let cap = problem.regions[r].capacity;
        if out.layout.bytes > cap {
            let aligned = crate::instance::aligned_lower_bound(&instance);
            let live_at_peak = match peak {
                Some(s) => crate::instance::live_at(&instance, s)
                    .into_iter()
                    .map(|k| (groups[members[k]].root, instance.items[k].size))
                    .collect(),
                None => Vec::new(),
            };
            errors.push(PlanError::Overflow(Overflow {
                region: r,
                needed: out.layout.bytes,
                available: cap,
                lower_bound: lb,
                peak_step: peak,
                live_at_peak,
                proven_optimal: out.proven_optimal || out.layout.bytes <= aligned.bytes,
                aligned,
            }));
        }
        let mut align = problem.regions[r].align;
        for (k, &gi) in members.iter().enumerate() {
            align = align.max(groups[gi].align);
            for &m in &groups[gi].members {
                buffers[m] = Placed {
                    region: r,
                    offset: out.layout.offsets[k],
                };
            }
        }
        regions.push(RegionPlan {
            capacity: cap,
            planned_bytes: out.layout.bytes,
            lower_bound: lb,
            peak_step: peak,
            align,
            proven_optimal: out.proven_optimal,
            search_nodes: out.nodes,
        });
    }
    if errors.is_empty() {
        Ok(Plan {
            strategy,
            buffers,
            regions,
        })
    } else {
        Err(errors)
    }
}

/// Region `r` packed: its groups (in group order), the strategy's outcome and the instance.
type Packed = (Vec<usize>, crate::strategy::Outcome, Instance);

/// Chooses a region for every group without one (`region_of[g] == None`) by the rule on
/// [`plan()`], skipping the regions marked `bad`. (Trying each group with a whole plan of
/// the region, the obvious rule, costs a plan per buffer: minutes in a build for a few
/// hundred buffers under a search budget.)
///
/// Groups that no region takes keep `None`. Returns, per region, its packing when the last
/// one computed is the final one, so that it is not computed again.
fn spill(
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
    // Time compressed to the points where some group with bytes starts or ends (groups
    // of no bytes get an empty span: they never push a region over).
    let timeline = Timeline::new(&Instance {
        items: groups
            .iter()
            .map(|g| Item {
                size: g.size,
                align: 1,
                lifetime: g.lifetime,
                fixed: None,
            })
            .collect(),
    });
    let span: Vec<(usize, usize)> = timeline
        .span
        .iter()
        .map(|&(lo, hi)| (lo as usize, hi as usize))
        .collect();
    for r in (0..nr).filter(|&r| !bad[r]) {
        let cap = problem.regions[r].capacity;
        // Groups this region sent on because its plan overflowed with them.
        let mut refused = vec![false; groups.len()];
        loop {
            // Step 1: by the live bytes (saturating: a sum past `u64::MAX` is over any
            // capacity anyway).
            let mut live = vec![0u64; timeline.sections()];
            for gi in (0..groups.len()).filter(|&gi| region_of[gi] == Some(r)) {
                let (lo, hi) = span[gi];
                for l in &mut live[lo..hi] {
                    *l = l.saturating_add(groups[gi].size);
                }
            }
            let mut taken = Vec::new();
            for gi in 0..groups.len() {
                if region_of[gi].is_some() || refused[gi] {
                    continue;
                }
                let (lo, hi) = span[gi];
                let size = groups[gi].size;
                let most = live[lo..hi].iter().copied().max().unwrap_or(0);
                if most.checked_add(size).is_some_and(|t| t <= cap) {
                    for l in &mut live[lo..hi] {
                        *l += size;
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
fn pack_region(
    problem: &Problem,
    groups: &[Group],
    region_of: &[Option<usize>],
    r: usize,
    strategy: Strategy,
) -> Result<Packed, PlanError> {
    let members: Vec<usize> = (0..groups.len())
        .filter(|&g| region_of[g] == Some(r))
        .collect();
    let instance = Instance {
        items: members
            .iter()
            .map(|&g| Item {
                size: groups[g].size,
                align: groups[g].align.max(1),
                lifetime: groups[g].lifetime,
                fixed: problem.buffers[groups[g].root].pin,
            })
            .collect(),
    };
    let out = run(strategy, &instance).map_err(|e| PlanError::SizeOverflow {
        buffers: groups[members[e.item]].members.clone(),
        region: Some(r),
    })?;
    Ok((members, out, instance))
}

/// Resolves in-place links into groups, checking the in-place rules.
fn build_groups(problem: &Problem, errors: &mut Vec<PlanError>) -> Vec<Group> {
    let n = problem.buffers.len();
    let mut root = vec![usize::MAX; n];
    for (i, root_i) in root.iter_mut().enumerate() {
        // Follow the chain; more than n links means a cycle.
        let mut cur = i;
        let mut hops = 0;
        let mut ok = true;
        while let Some(src) = problem.buffers[cur].in_place_of {
            if src >= n || hops > n {
                ok = false;
                break;
            }
            cur = src;
            hops += 1;
        }
        if !ok {
            errors.push(PlanError::InPlaceCycle { buffer: i });
            continue;
        }
        *root_i = cur;
    }
    for (i, b) in problem.buffers.iter().enumerate() {
        let Some(src) = b.in_place_of else { continue };
        if root[i] == usize::MAX {
            continue;
        }
        let s = &problem.buffers[src];
        if b.size > s.size {
            errors.push(PlanError::InPlaceLarger {
                buffer: i,
                source: src,
                size: b.size,
                source_size: s.size,
            });
        }
        if s.lifetime.last > b.lifetime.first {
            errors.push(PlanError::InPlaceSourceLive {
                buffer: i,
                source: src,
                source_last: s.lifetime.last,
                first: b.lifetime.first,
            });
        }
        if b.pin.is_some() {
            errors.push(PlanError::InPlacePinned { buffer: i });
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of_root = vec![usize::MAX; n];
    for (i, &r) in root.iter().enumerate() {
        if r == usize::MAX {
            continue;
        }
        if group_of_root[r] == usize::MAX {
            group_of_root[r] = groups.len();
            let rb = &problem.buffers[r];
            groups.push(Group {
                root: r,
                members: Vec::new(),
                placement: Placement::Anywhere,
                size: rb.size,
                align: 1,
                lifetime: rb.lifetime,
            });
        }
        let g = &mut groups[group_of_root[r]];
        g.members.push(i);
        g.lifetime = g.lifetime.hull(&problem.buffers[i].lifetime);
    }
    // A group goes where its members say; members that name different regions are an
    // error (the group shares one offset in one region).
    for g in &mut groups {
        for &m in &g.members {
            if let Placement::In(r) = problem.buffers[m].placement {
                match g.placement {
                    Placement::Anywhere => g.placement = Placement::In(r),
                    Placement::In(q) if q != r => errors.push(PlanError::InPlaceRegion {
                        buffer: m,
                        source: problem.buffers[m].in_place_of.unwrap_or(g.root),
                    }),
                    Placement::In(_) => {}
                }
            }
        }
    }
    // Members share the group's bytes: two that are live at a common step must be a chain
    // (one in place of the other, directly or through others), never siblings.
    for g in &groups {
        for (x, &a) in g.members.iter().enumerate() {
            for &b in &g.members[x + 1..] {
                let (la, lb) = (problem.buffers[a].lifetime, problem.buffers[b].lifetime);
                if la.conflicts(&lb)
                    && !in_place_ancestor(problem, a, b)
                    && !in_place_ancestor(problem, b, a)
                {
                    errors.push(PlanError::InPlaceOverlap {
                        a,
                        b,
                        steps: (la.first.max(lb.first), la.last.min(lb.last)),
                    });
                }
            }
        }
    }
    // Alignment: the strictest of the members, in the group's region (or the first region
    // that declares one, for groups still to be placed: every region's default applies
    // once chosen, so take the explicit alignments and the root's region default).
    for g in &mut groups {
        let region = match g.placement {
            Placement::In(r) => Some(r),
            Placement::Anywhere => None,
        };
        let mut a = 1;
        for &m in &g.members {
            let b = &problem.buffers[m];
            let ma = match (b.align, region) {
                (Some(x), _) => x,
                (None, Some(r)) => problem.regions.get(r).map_or(1, |reg| reg.align),
                (None, None) => problem
                    .regions
                    .iter()
                    .map(|reg| reg.align)
                    .max()
                    .unwrap_or(1),
            };
            a = a.max(ma);
        }
        g.align = a;
    }
    groups
}

fn check_pin(problem: &Problem, g: &Group, r: usize, pin: u64, errors: &mut Vec<PlanError>) {
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

fn check_pin_overlaps(
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

/// Whether `ancestor` is reached from `b` by following `in place of` links (at most one lap
/// of the buffers, so a cycle ends the walk).
pub(crate) fn in_place_ancestor(problem: &Problem, ancestor: usize, b: usize) -> bool {
    let mut cur = b;
    for _ in 0..problem.buffers.len() {
        match problem.buffers[cur].in_place_of {
            Some(s) if s == ancestor => return true,
            Some(s) if s < problem.buffers.len() => cur = s,
            _ => return false,
        }
    }
    false
}
