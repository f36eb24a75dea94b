//! A plan from given placements (a lock file's offsets): taken only after the checks every
//! plan of [`plan()`](super::plan) passes, with no search.

use std::fmt;

use super::{Placed, Plan, RegionPlan, check_inputs, check_sizes_and_pins, groups, pins, spill};
use crate::error::PlanError;
use crate::instance::{aligned_lower_bound, lower_bound};
use crate::problem::Problem;
use crate::strategy::Strategy;
use crate::validate::validate;

/// The version of the rules a plan must keep to be valid (what [`validate`] checks, and
/// what a problem's fields mean to it). A plan stored outside the build (a lock file) is
/// valid for the memplan versions of the same rules: their fingerprint includes it. It
/// changes only when a plan valid before may no longer be, never for a better search.
pub const PLAN_RULES: u32 = 1;

/// Why [`plan_from`] gave no plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockedError {
    /// The problem itself has errors, as [`plan()`](super::plan) reports them (bad
    /// alignments, in-place rules, pins, buffers larger than their region).
    Problem(Vec<PlanError>),
    /// The placements are not a plan of the problem: the validator's finding, or a count
    /// that does not match.
    Invalid(String),
}

impl fmt::Display for LockedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockedError::Problem(errors) => write!(f, "the problem has {} errors", errors.len()),
            LockedError::Invalid(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for LockedError {}

/// The plan of `problem` that puts every buffer where `placed` says (one per buffer, in
/// the problem's order), made by `strategy` (recorded, not run). Each region's planned
/// bytes, lower bound, peak step and alignment are computed as [`plan()`](super::plan)
/// computes them, and the plan is checked by the same validator as every plan the planner
/// makes ([`validate`]): `O(n log n)` in the buffers, no search. A region is proven
/// optimal when its planned bytes are at its lower bound (or the alignment-aware one,
/// [`aligned_lower_bound`]): what can be checked without a search. Whether a search proves
/// more is [`search_proves`]'s to tell.
///
/// # Errors
///
/// [`LockedError::Problem`] with the planner's own errors when the problem has input
/// errors (which no placement can fix); [`LockedError::Invalid`] when the placements break
/// a rule (two buffers live at one step sharing bytes, a misaligned or moved offset, a
/// region that is not the buffer's, bytes past the capacity).
pub fn plan_from(
    problem: &Problem,
    strategy: Strategy,
    placed: Vec<Placed>,
) -> Result<Plan, LockedError> {
    if placed.len() != problem.buffers.len() {
        return Err(LockedError::Invalid(format!(
            "{} buffers are given, the problem has {}",
            placed.len(),
            problem.buffers.len(),
        )));
    }
    let mut errors = check_inputs(problem);
    if !errors.is_empty() {
        return Err(LockedError::Problem(errors));
    }
    let groups = groups::build(problem, &mut errors);
    if !errors.is_empty() {
        return Err(LockedError::Problem(errors));
    }
    let n_regions = problem.regions.len();
    let mut region_of = Vec::with_capacity(groups.len());
    for g in &groups {
        let r = placed[g.root].region;
        if r >= n_regions {
            return Err(LockedError::Invalid(format!(
                "buffer `{}` is given memory id {r}, and the problem has {n_regions} regions",
                problem.buffers[g.root].name
            )));
        }
        region_of.push(Some(r));
    }
    check_sizes_and_pins(problem, &groups, &region_of, &mut errors);
    pins::check_overlaps(problem, &groups, &region_of, &mut errors);
    if !errors.is_empty() {
        return Err(LockedError::Problem(errors));
    }
    let members = spill::members_by_region(&region_of, n_regions);
    let mut planned = vec![0u64; n_regions];
    for (b, p) in problem.buffers.iter().zip(&placed) {
        let end = p.offset.saturating_add(b.size);
        planned[p.region] = planned[p.region].max(end);
    }
    let regions = (0..n_regions)
        .map(|r| {
            let instance = spill::region_instance(problem, &groups, &members[r], r);
            let (lb, peak) = lower_bound(&instance);
            let bound = lb.max(aligned_lower_bound(&instance).bytes);
            let align = members[r]
                .iter()
                .map(|&g| groups[g].align_in(problem, r))
                .fold(problem.regions[r].align, u64::max);
            RegionPlan {
                capacity: problem.regions[r].capacity,
                planned_bytes: planned[r],
                lower_bound: lb,
                peak_step: peak,
                align,
                proven_optimal: planned[r] <= bound,
                search_nodes: 0,
            }
        })
        .collect();
    let plan = Plan {
        strategy,
        buffers: placed,
        regions,
    };
    validate(problem, &plan).map_err(|v| LockedError::Invalid(v.describe(problem, &plan)))?;
    Ok(plan)
}

/// Whether a search proves region `region` of `plan` (a plan of `problem`, such as
/// [`plan_from`] gives) optimal: `plan.strategy` is run on the region's buffers (those the
/// plan puts in it), as [`plan()`](super::plan) runs it, and proves it when it ends proven
/// optimal at the plan's planned bytes. This costs what planning the region costs (the
/// search, up to its node budget); `false` when the problem has errors, the region does not
/// exist, or the search proves another size or nothing.
pub fn search_proves(problem: &Problem, plan: &Plan, region: usize) -> bool {
    let Some(claimed) = plan.regions.get(region).map(|r| r.planned_bytes) else {
        return false;
    };
    if plan.buffers.len() != problem.buffers.len() || !check_inputs(problem).is_empty() {
        return false;
    }
    let mut errors = Vec::new();
    let groups = groups::build(problem, &mut errors);
    if !errors.is_empty() {
        return false;
    }
    let region_of: Vec<Option<usize>> = groups
        .iter()
        .map(|g| Some(plan.buffers[g.root].region))
        .collect();
    let members = spill::members_by_region(&region_of, problem.regions.len());
    let Some(members) = members.get(region) else {
        return false;
    };
    let Ok((_, out, instance)) =
        spill::pack_region(problem, &groups, members, region, plan.strategy)
    else {
        return false;
    };
    // As `finish_region` counts it: a zero-size buffer's offset lies inside the arena.
    let zero_size_end = (0..instance.items.len())
        .filter(|&k| instance.items[k].size == 0)
        .map(|k| out.layout.offsets[k])
        .max()
        .unwrap_or(0);
    out.proven_optimal && out.layout.bytes.max(zero_size_end) == claimed
}
