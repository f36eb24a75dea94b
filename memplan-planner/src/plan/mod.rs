//! From a [`Problem`] to a [`Plan`]: check the buffers, merge in-place groups
//! ([`groups`]), verify pins ([`pins`]), choose regions for spilled buffers ([`spill`]),
//! run the strategy on each region and check capacity.

mod groups;
mod live;
mod locked;
mod pins;
mod spill;

pub use locked::{LockedError, PLAN_RULES, plan_from, search_proves};

use groups::Group;
use spill::Packed;

use crate::error::{Overflow, PlanError};
use crate::instance::lower_bound;
use crate::problem::{MAX_ALIGN, Placement, Problem, Step};
use crate::strategy::Strategy;

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
    let mut errors = check_inputs(problem);
    if !errors.is_empty() {
        return Err(errors);
    }
    let groups = groups::build(problem, &mut errors);
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
    check_sizes_and_pins(problem, &groups, &region_of, &mut errors);
    pins::check_overlaps(problem, &groups, &region_of, &mut errors);
    // Regions with an input error are not packed; the others are.
    let bad = regions_with_errors(problem, &groups, &region_of, &errors);
    let input_errors = !errors.is_empty();
    let mut packed = spill::spill(problem, &groups, &mut region_of, &bad, strategy);
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
    let mut regions = Vec::with_capacity(problem.regions.len());
    let members = spill::members_by_region(&region_of, problem.regions.len());
    for r in (0..problem.regions.len()).filter(|&r| !bad[r]) {
        let done = packed[r].take().map(Ok);
        match done.unwrap_or_else(|| spill::pack_region(problem, &groups, &members[r], r, strategy))
        {
            Ok(p) => regions.push(finish_region(
                problem,
                &groups,
                (r, strategy),
                p,
                &mut buffers,
                &mut errors,
            )),
            Err(e) => errors.push(e),
        }
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

/// Alignments that are not powers of two (or too large), and regions that do not exist.
fn check_inputs(problem: &Problem) -> Vec<PlanError> {
    let mut errors = Vec::new();
    for (r, reg) in problem.regions.iter().enumerate() {
        if !valid_align(reg.align) {
            errors.push(PlanError::RegionAlign {
                region: r,
                align: reg.align,
            });
        }
    }
    for (i, b) in problem.buffers.iter().enumerate() {
        for a in b.align.into_iter().chain(Some(b.min_align)) {
            if !valid_align(a) {
                errors.push(PlanError::BufferAlign {
                    buffer: i,
                    align: a,
                });
            }
        }
        if let Placement::In(r) = b.placement
            && r >= problem.regions.len()
        {
            errors.push(PlanError::UnknownRegion { buffer: i });
        }
    }
    errors
}

/// Groups larger than their region (or than every region), and pins that do not hold.
fn check_sizes_and_pins(
    problem: &Problem,
    groups: &[Group],
    region_of: &[Option<usize>],
    errors: &mut Vec<PlanError>,
) {
    let largest = problem
        .regions
        .iter()
        .map(|r| r.capacity)
        .max()
        .unwrap_or(0);
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
                    pins::check(problem, g, r, pin, errors);
                }
            }
            None => {
                if b.pin.is_some() {
                    errors.push(PlanError::PinWithoutRegion { buffer: g.root });
                } else if problem.regions.is_empty() || g.size > largest {
                    errors.push(PlanError::LargerThanEveryRegion {
                        buffer: g.root,
                        size: g.size,
                    });
                }
            }
        }
    }
}

/// Which regions hold a buffer named by one of `errors`: they are not packed (their
/// capacity error would be a consequence).
fn regions_with_errors(
    problem: &Problem,
    groups: &[Group],
    region_of: &[Option<usize>],
    errors: &[PlanError],
) -> Vec<bool> {
    let mut group_of = vec![usize::MAX; problem.buffers.len()];
    for (gi, g) in groups.iter().enumerate() {
        for &m in &g.members {
            group_of[m] = gi;
        }
    }
    let mut bad = vec![false; problem.regions.len()];
    for e in errors {
        for m in e.buffers() {
            if let Some(&gi) = group_of.get(m)
                && let Some(Some(r)) = region_of.get(gi)
            {
                bad[*r] = true;
            }
        }
    }
    bad
}

/// The member of group `g` that holds the group's bytes at step `s`: of those live at `s`,
/// the one that started last (at a handover step, the buffer taking over), the first
/// declared on a tie; the root when none is (the group's lifetime spans gaps between its
/// members).
fn holder_at(problem: &Problem, g: &Group, s: Step) -> usize {
    g.members
        .iter()
        .copied()
        .filter(|&m| problem.buffers[m].lifetime.contains(s))
        .max_by_key(|&m| (problem.buffers[m].lifetime.first, std::cmp::Reverse(m)))
        .unwrap_or(g.root)
}

/// Region `r`'s result from its packing: its buffers' offsets go into `buffers`, and an
/// overflow into `errors`.
fn finish_region(
    problem: &Problem,
    groups: &[Group],
    (r, strategy): (usize, Strategy),
    (members, out, instance): Packed,
    buffers: &mut [Placed],
    errors: &mut Vec<PlanError>,
) -> RegionPlan {
    let (lb, peak) = lower_bound(&instance);
    let cap = problem.regions[r].capacity;
    if out.layout.bytes > cap {
        let aligned = crate::instance::aligned_lower_bound(&instance);
        let live_at_peak = match peak {
            Some(s) => crate::instance::live_at(&instance, s)
                .into_iter()
                .map(|(k, size)| (holder_at(problem, &groups[members[k]], s), size))
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
            impossible: out.fit == crate::strategy::Fit::Impossible
                || lb > cap
                || aligned.bytes > cap,
            aligned,
            strategy,
        }));
    }
    let mut align = problem.regions[r].align;
    for (k, &gi) in members.iter().enumerate() {
        align = align.max(groups[gi].align_in(problem, r));
        for &m in &groups[gi].members {
            buffers[m] = Placed {
                region: r,
                offset: out.layout.offsets[k],
            };
        }
    }
    // A zero-size buffer takes no bytes, but its offset must lie inside the arena (the
    // runtime checks offsets against the planned bytes): one pinned above the others' bytes
    // extends the arena to its offset. No plan can do with less, so a proof still holds.
    let zero_size_end = (0..members.len())
        .filter(|&k| instance.items[k].size == 0)
        .map(|k| out.layout.offsets[k])
        .max()
        .unwrap_or(0);
    RegionPlan {
        capacity: cap,
        planned_bytes: out.layout.bytes.max(zero_size_end),
        lower_bound: lb,
        peak_step: peak,
        align,
        proven_optimal: out.proven_optimal,
        search_nodes: out.nodes,
    }
}
