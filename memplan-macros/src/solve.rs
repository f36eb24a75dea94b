//! The planning pass: runs `memplan-planner` on the checked problem and turns each planner
//! error into a spanned diagnostic with exact byte counts.

use memplan_planner::{Plan, PlanError, Strategy, plan, validate};

use crate::check::Model;
use crate::diag::Errors;

/// The strategy named in `strategy = ...`.
pub fn strategy_from(name: &str, nodes: Option<u64>) -> Result<Strategy, String> {
    match (name, nodes) {
        ("greedy", None) => Ok(Strategy::Greedy),
        ("best_of", None) => Ok(Strategy::BestOf),
        ("optimal", Some(nodes)) => Ok(Strategy::Optimal { nodes }),
        ("optimal", None) => Ok(Strategy::Optimal {
            nodes: Strategy::DEFAULT_NODES,
        }),
        ("greedy" | "best_of", Some(_)) => Err(format!(
            "`{name}` takes no node budget; only `optimal(nodes = N)` does"
        )),
        _ => Err(format!(
            "unknown strategy `{name}`: expected `greedy`, `best_of` or `optimal(nodes = N)`"
        )),
    }
}

/// With errors already found: plans the buffers that had none, only to report the
/// planner's own errors (overflow, pins, in-place rules) in the same build. Excluded
/// buffers are left out, so nothing reported is a consequence of an earlier error (an
/// overflow without them is an overflow with them too).
pub fn report_the_rest(model: &Model, errors: &mut Errors) {
    if model.problem.regions.is_empty() {
        return;
    }
    let kept: Vec<usize> = (0..model.buffers.len())
        .filter(|&i| !model.excluded[i])
        .collect();
    let mut new_index = vec![usize::MAX; model.buffers.len()];
    for (n, &i) in kept.iter().enumerate() {
        new_index[i] = n;
    }
    let mut sub = model.clone();
    sub.buffers = kept.iter().map(|&i| model.buffers[i].clone()).collect();
    sub.problem.buffers = kept
        .iter()
        .map(|&i| {
            let mut b = model.problem.buffers[i].clone();
            b.in_place_of = b.in_place_of.map(|s| new_index[s]);
            b
        })
        .collect();
    sub.excluded = vec![false; kept.len()];
    let _ = solve(&sub, errors);
}

/// Plans the model; `None` (with errors recorded) when there is no plan.
///
/// Every plan is checked by the planner's independent validator before anything is
/// emitted, so a planner bug cannot reach the firmware as two live buffers sharing bytes:
/// it is a compile error. A panic inside the planner (a bug too) is caught and reported
/// the same way, so the macro itself never panics.
pub fn solve(model: &Model, errors: &mut Errors) -> Option<Plan> {
    let result = std::panic::catch_unwind(|| plan(&model.problem, model.strategy));
    match result {
        Ok(Ok(p)) => checked(model, p, errors),
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

/// `plan` if the validator accepts it; otherwise `None`, with an internal error recorded.
pub fn checked(model: &Model, plan: Plan, errors: &mut Errors) -> Option<Plan> {
    match std::panic::catch_unwind(|| validate(&model.problem, &plan)) {
        Ok(Ok(())) => Some(plan),
        Ok(Err(violation)) => {
            errors.at(
                model.name.span(),
                format!(
                    "internal error: memplan's planner made a plan that its own check rejects ({violation}; buffers are numbered from 0 in declaration order); please report it with the invocation"
                ),
            );
            None
        }
        Err(_) => {
            errors.at(
                model.name.span(),
                "internal error: memplan's plan check failed on this plan; please report it with the invocation",
            );
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
                "buffer {} cannot be in place of {}: {} is still live at step {source_last}, after {} is first written at step {first}; end {} by step {first}, or start {} at step {source_last}",
                bname(model, *buffer),
                bname(model, *source),
                bname(model, *source),
                bname(model, *buffer),
                bname(model, *source),
                bname(model, *buffer)
            ),
        ),
        PlanError::InPlaceOverlap { a, b, steps } => errors.at(
            bufs[*b].in_place_span,
            format!(
                "buffers {} and {} both take the bytes of the same source and are both live at steps {}..={}: only a chain (one in place of the other) may share bytes at a step",
                bname(model, *a),
                bname(model, *b),
                steps.0,
                steps.1
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
        PlanError::PinMisaligned { buffer, offset, align } => {
            let b = &model.problem.buffers[*buffer];
            let source = match (b.align, b.placement) {
                (None, memplan_planner::Placement::In(r)) => format!(" (the default of region {})", rname(model, r)),
                _ => String::new(),
            };
            errors.at(
                bufs[*buffer].pin_span,
                format!("buffer {} is pinned at offset {offset}, which is not a multiple of its alignment, {align} bytes{source}", bname(model, *buffer)),
            )
        }
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
                    "buffer {} pinned at offset {offset} ends at byte {end}, past the end of region {region}: needed {end} bytes, available {capacity} (over by {})",
                    bname(model, *buffer),
                    end - *capacity as u128
                ),
            )
        }
        PlanError::PinOverlap { a, b, bytes, steps } => {
            errors.at(
                bufs[*b].pin_span,
                format!(
                    "pinned buffers {} and {} overlap: bytes {}..{} are used by both at steps {}..={}",
                    bname(model, *a),
                    bname(model, *b),
                    bytes.0,
                    bytes.1,
                    steps.0,
                    steps.1
                ),
            );
            errors.at(bufs[*a].pin_span, format!("note: {} is pinned here", bname(model, *a)));
        }
        PlanError::BufferTooLarge { buffer, region, needed, available } => {
            let larger: Vec<String> = model
                .problem
                .regions
                .iter()
                .filter(|r| r.capacity >= *needed)
                .map(|r| format!("`{}` ({} bytes)", r.name, r.capacity))
                .collect();
            let hint = if bufs[*buffer].region_named && !larger.is_empty() {
                format!("; a buffer placed with `in` never moves to another region: {} would fit it", larger.join(", "))
            } else {
                String::new()
            };
            errors.at(
                bufs[*buffer].size_span,
                format!(
                    "buffer {} overflows region {}: needed {needed} bytes, available {available} (over by {}){hint}",
                    bname(model, *buffer),
                    rname(model, *region),
                    needed - available
                ),
            )
        }
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
            let at = buffers.first().map_or(model.name.span().into(), |&i| bufs[i].size_span);
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
                    .map(|&(i, size)| {
                        let live = &model.buffers[i].live_text;
                        if live.is_empty() {
                            format!("{} ({size} bytes)", bname(model, i))
                        } else {
                            format!("{} ({size} bytes, live {live})", bname(model, i))
                        }
                    })
                    .collect();
                let more = o.live_at_peak.len().saturating_sub(5);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                msg.push_str(&format!(
                    "\nnote: peak: {} bytes live at step {step} (lifetimes are inclusive): {}{more}",
                    o.lower_bound,
                    live.join(", ")
                ));
            }
            if o.is_fragmentation() {
                if o.aligned.bytes > o.lower_bound && o.proven_optimal {
                    let at = o.aligned.step.map_or(String::new(), |s| format!(" at step {s}"));
                    msg.push_str(&format!(
                        "\nnote: alignment padding: every buffer{at} starts on a multiple of {} bytes, so each is rounded up to one: they need at least {} bytes, more than the {} available; give the region {} bytes, or the buffers smaller alignments or sizes that are multiples of it",
                        o.aligned.align, o.aligned.bytes, o.available, o.needed
                    ));
                } else if o.proven_optimal {
                    msg.push_str(&format!(
                        "\nnote: no layout of these buffers fits in fewer than {} bytes, although at most {} are live at once: give the region {} bytes",
                        o.needed, o.lower_bound, o.needed
                    ));
                } else {
                    msg.push_str(&format!(
                        "\nnote: at most {} bytes are live at once, which fits, but the `{}` strategy's layout leaves gaps between buffers (fragmentation)",
                        o.lower_bound,
                        model.strategy.name()
                    ));
                    let stronger = match model.strategy {
                        Strategy::Greedy | Strategy::BestOf => Some(Strategy::DEFAULT_NODES * 50),
                        Strategy::Optimal { nodes } => nodes.checked_mul(50),
                    };
                    if let Some(n) = stronger {
                        msg.push_str(&format!(
                            "\nhelp: a longer search may find a layout that fits: `strategy = optimal(nodes = {n});`"
                        ));
                    }
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
