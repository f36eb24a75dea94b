//! The planning pass: runs `memplan-planner` on the checked problem and turns each planner
//! error into a spanned diagnostic with exact byte counts.

use memplan_planner::{Plan, PlanError, Strategy, plan};

use crate::check::Model;
use crate::diag::Errors;

/// The strategy named in `strategy = ...`.
pub fn strategy_from(name: &str, nodes: Option<u64>) -> Result<Strategy, String> {
    match (name, nodes) {
        ("greedy", None) => Ok(Strategy::Greedy),
        ("best_of", None) => Ok(Strategy::BestOf),
        ("optimal", Some(nodes)) => Ok(Strategy::Optimal { nodes }),
        ("optimal", None) => Ok(Strategy::Optimal { nodes: Strategy::DEFAULT_NODES }),
        ("greedy" | "best_of", Some(_)) => Err(format!("`{name}` takes no node budget; only `optimal(nodes = N)` does")),
        _ => Err(format!("unknown strategy `{name}`: expected `greedy`, `best_of` or `optimal(nodes = N)`")),
    }
}

/// Plans the model; `None` (with errors recorded) when there is no plan.
///
/// A panic inside the planner (a bug) is caught and reported as a compile error, so the
/// macro itself never panics.
pub fn solve(model: &Model, errors: &mut Errors) -> Option<Plan> {
    let result = std::panic::catch_unwind(|| plan(&model.problem, model.strategy));
    match result {
        Ok(Ok(p)) => Some(p),
        Err(_) => {
            errors.at(
                model.name.span(),
                "internal error: memplan's planner failed on this plan; please report it with the invocation",
            );
            None
        }
        Ok(Err(list)) => {
            for e in list {
                report(model, &e, errors);
            }
            None
        }
    }
}

fn bname(model: &Model, i: usize) -> String {
    let b = &model.problem.buffers[i];
    match &model.buffers[i].origin {
        Some(o) => format!("`{}` ({o})", b.name),
        None => format!("`{}`", b.name),
    }
}

fn rname(model: &Model, r: usize) -> String {
    format!("`{}`", model.problem.regions[r].name)
}

fn report(model: &Model, e: &PlanError, errors: &mut Errors) {
    let bufs = &model.buffers;
    let regs = &model.regions;
    match e {
        // Alignment and region names are checked (and spanned) before planning.
        PlanError::RegionAlign { region, align } => {
            errors.at(regs[*region].ident.span(), format!("alignment {align} of region {} is invalid", rname(model, *region)))
        }
        PlanError::BufferAlign { buffer, align } => {
            errors.at(bufs[*buffer].span, format!("alignment {align} of buffer {} is invalid", bname(model, *buffer)))
        }
        PlanError::UnknownRegion { buffer } => {
            errors.at(bufs[*buffer].span, format!("buffer {} names an unknown region", bname(model, *buffer)))
        }
        PlanError::InPlaceLarger { buffer, source, size, source_size } => errors.at(
            bufs[*buffer].size_span,
            format!(
                "buffer {} cannot be in place of {}: it is larger ({size} > {source_size} bytes); an in-place buffer must be no larger than its source",
                bname(model, *buffer),
                bname(model, *source)
            ),
        ),
        PlanError::InPlaceSourceLive { buffer, source, source_last, first } => errors.at(
            bufs[*buffer].in_place_span,
            format!(
                "buffer {} cannot be in place of {}: {} is still live at step {source_last}, after {} starts at step {first}; the source's last step must be at most the in-place buffer's first",
                bname(model, *buffer),
                bname(model, *source),
                bname(model, *source),
                bname(model, *buffer)
            ),
        ),
        PlanError::InPlaceCycle { buffer } => {
            errors.at(bufs[*buffer].in_place_span, format!("`in place of` links form a cycle through buffer {}", bname(model, *buffer)))
        }
        PlanError::InPlaceRegion { buffer, source } => errors.at(
            bufs[*buffer].in_place_span,
            format!("buffer {} is in place of {}, which is in another region", bname(model, *buffer), bname(model, *source)),
        ),
        PlanError::InPlacePinned { buffer } => errors.at(
            bufs[*buffer].pin_span,
            format!("buffer {} is in place of another buffer and takes its offset: remove `at`", bname(model, *buffer)),
        ),
        PlanError::PinWithoutRegion { buffer } => errors.at(
            bufs[*buffer].pin_span,
            format!("buffer {} is pinned but has no region: add `in REGION`", bname(model, *buffer)),
        ),
        PlanError::PinMisaligned { buffer, offset, align } => errors.at(
            bufs[*buffer].pin_span,
            format!("buffer {} is pinned at offset {offset}, which is not a multiple of its alignment {align}", bname(model, *buffer)),
        ),
        PlanError::PinOutOfBounds { buffer, offset, size, capacity } => {
            let b = &model.problem.buffers[*buffer];
            let region = match b.placement {
                memplan_planner::Placement::In(r) => rname(model, r),
                memplan_planner::Placement::Anywhere => "its region".to_string(),
            };
            let end = (*offset as u128) + (*size as u128);
            errors.at(
                bufs[*buffer].pin_span,
                format!(
                    "buffer {} pinned at offset {offset} ends at byte {end}, past the end of region {region}: needed {end} bytes, available {capacity}",
                    bname(model, *buffer)
                ),
            )
        }
        PlanError::PinOverlap { a, b, bytes, steps } => errors.at(
            bufs[*b].pin_span,
            format!(
                "pinned buffers {} and {} overlap: bytes [{}, {}) are used by both at steps {}..={}",
                bname(model, *a),
                bname(model, *b),
                bytes.0,
                bytes.1,
                steps.0,
                steps.1
            ),
        ),
        PlanError::BufferTooLarge { buffer, region, needed, available } => errors.at(
            bufs[*buffer].size_span,
            format!(
                "buffer {} overflows region {}: needed {needed} bytes, available {available} (over by {})",
                bname(model, *buffer),
                rname(model, *region),
                needed - available
            ),
        ),
        PlanError::LargerThanEveryRegion { buffer, size } => errors.at(
            bufs[*buffer].size_span,
            format!(
                "buffer {} ({size} bytes) exceeds every region: {}",
                bname(model, *buffer),
                capacities(model)
            ),
        ),
        PlanError::FitsNoRegion { buffer, size } => errors.at(
            bufs[*buffer].size_span,
            format!(
                "buffer {} ({size} bytes) fits no region alongside the buffers already planned there: {}",
                bname(model, *buffer),
                capacities(model)
            ),
        ),
        PlanError::SizeOverflow { buffers, region } => {
            let names: Vec<String> = buffers.iter().map(|&i| bname(model, i)).collect();
            let at = buffers.first().map_or(model.name.span(), |&i| bufs[i].size_span);
            let region = region.map_or(String::new(), |r| format!(" in region {}", rname(model, r)));
            errors.at(at, format!("size arithmetic overflows 64 bits placing {}{region}: the sizes are too large for any address space", names.join(", ")))
        }
        PlanError::Overflow(o) => {
            let mut msg = format!(
                "region {} overflows: needed {} bytes, available {} (over by {})",
                rname(model, o.region),
                o.needed,
                o.available,
                o.excess()
            );
            if let Some(step) = o.peak_step {
                let live: Vec<String> = o
                    .live_at_peak
                    .iter()
                    .take(5)
                    .map(|&(i, size)| format!("{} ({size} bytes)", bname(model, i)))
                    .collect();
                let more = o.live_at_peak.len().saturating_sub(5);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                msg.push_str(&format!(
                    "\nnote: the most bytes live at one step is {} at step {step}: {}{more}",
                    o.lower_bound,
                    live.join(", ")
                ));
            }
            if o.is_fragmentation() {
                msg.push_str(&format!(
                    "\nnote: the bytes live at every step fit (lower bound {} <= {}), but the `{}` packing needs more: alignment padding or gaps between buffers (fragmentation)",
                    o.lower_bound,
                    o.available,
                    model.strategy.name()
                ));
                if o.proven_optimal {
                    msg.push_str(&format!(
                        "\nnote: no plan of this region can use fewer than {} bytes with these sizes and alignments: give the region more bytes, or the buffers smaller alignments",
                        o.needed
                    ));
                }
                let stronger = match model.strategy {
                    _ if o.proven_optimal => None,
                    Strategy::Greedy | Strategy::BestOf => Some(Strategy::DEFAULT_NODES * 50),
                    Strategy::Optimal { nodes } => nodes.checked_mul(50),
                };
                if let Some(n) = stronger {
                    msg.push_str(&format!(
                        "\nhelp: a stronger strategy may find a plan that fits: `strategy = optimal(nodes = {n});`"
                    ));
                }
            }
            errors.at(model.regions[o.region].ident.span(), msg)
        }
    }
}

fn capacities(model: &Model) -> String {
    model
        .problem
        .regions
        .iter()
        .map(|r| format!("`{}` has {} bytes", r.name, r.capacity))
        .collect::<Vec<_>>()
        .join(", ")
}
