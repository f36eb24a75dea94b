//! Planning: runs `memplan-planner` on the lowered model and turns each planner error into
//! a diagnostic spanned on the declaration it is about. The words are the planner's own
//! ([`PlanError::display_with`]); this file says only where each error points.
//!
//! Every plan is checked by the planner's independent validator before anything is
//! emitted, so a planner bug cannot reach the firmware as two live buffers sharing bytes:
//! it is a compile error. A panic inside the planner (a bug too) is caught and reported the
//! same way, so the macro itself never panics.

use memplan_planner::{Failure, Names, Plan, PlanError, Problem, caught, plan_validated};

use std::collections::HashMap;

use crate::diag::{Diagnostics, SpanRange};
use crate::lock::{Entry, Refused};
use crate::lower::Model;

/// What planning a model gave.
#[derive(Default)]
pub(crate) struct Planned {
    /// The plan, its buffers in the model's order, when there is no error at all.
    pub plan: Option<Plan>,
    /// With errors: the plan of the buffers that have none (its buffers are those of
    /// `records`, indices into the model's), when it exists. The fallback expansion keeps
    /// the real values of the regions it fully plans, so that the user's own assertions on
    /// those regions add no error.
    pub partial: Option<(Plan, Vec<usize>)>,
}

/// Plans `model`. With no error so far, gives the plan or records the planner's errors;
/// with errors already recorded, still plans the buffers that have none, to report the
/// planner's own errors (overflow, pins, in-place rules) in the same build and to keep the
/// regions that plan fine.
///
/// With `locked` (a fresh entry of the lock file) and no error so far, the entry's offsets
/// are used instead of a search: the planner computes each region's figures from them and
/// its validator checks them ([`crate::lock::plan_of`]); an entry that fails is an error,
/// never used.
pub(crate) fn plan(model: &Model, locked: Option<&Entry>, diags: &mut Diagnostics) -> Planned {
    if model.regions.is_empty() {
        return Planned::default();
    }
    let clean = diags.is_empty();
    let (problem, records) = model.problem();
    let result = match locked.filter(|_| clean) {
        // `plan_of` runs the planner's validator on the locked offsets; a panic is caught
        // where the planner catches its own.
        Some(entry) => match caught(
            || crate::lock::plan_of(&problem, entry),
            Failure::PlannerPanicked,
        ) {
            Ok(Ok(p)) => Ok(p),
            Ok(Err(Refused::Lock(message))) => {
                diags.at(model.name.span(), message);
                return Planned::default();
            }
            Ok(Err(Refused::Planner(errors))) => Err(Failure::Errors(errors)),
            Err(failure) => Err(failure),
        },
        None => plan_validated(&problem, model.strategy),
    };
    let plan = match result {
        Ok(p) => fits_rust(model, p, diags),
        Err(Failure::Errors(errors)) => {
            let names = RecordNames {
                model,
                records: &records,
            };
            let rows = rows_too_large(model, &records, &errors);
            for (k, e) in errors.iter().enumerate() {
                match rows.get(&k) {
                    None => report(model, &problem, &records, &names, e, diags),
                    Some(Some(group)) => {
                        report_rows_too_large(&problem, &names, &errors, group, diags);
                    }
                    // Told with the first of its file's rows.
                    Some(None) => {}
                }
            }
            None
        }
        Err(internal) => {
            internal_error(model, &internal, diags);
            None
        }
    };
    // The planned bytes of every bank's arenas, against memory.x.
    let fits_banks = plan.as_ref().is_none_or(|p| {
        let before = diags.len();
        crate::placed::planned_fit(model, p, diags);
        diags.len() == before
    });
    if clean && fits_banks {
        Planned {
            plan,
            partial: None,
        }
    } else {
        Planned {
            plan: None,
            partial: plan.map(|p| (p, records)),
        }
    }
}

/// `plan` if no arena is larger than Rust's largest object (`isize::MAX` bytes of a 64-bit
/// target; a smaller target's is checked where the sizes are emitted); otherwise `None`,
/// with an error on each region over.
fn fits_rust(model: &Model, plan: Plan, diags: &mut Diagnostics) -> Option<Plan> {
    let mut fits = true;
    for (r, region) in plan.regions.iter().enumerate() {
        if region.planned_bytes > i64::MAX as u64 {
            fits = false;
            diags.at(
                model.regions[r].ident.span(),
                format!(
                    "region `{}` plans {} bytes, more than the largest object Rust allows ({} bytes, `isize::MAX`): its arena cannot be emitted",
                    model.regions[r].region.name,
                    region.planned_bytes,
                    i64::MAX
                ),
            );
        }
    }
    fits.then_some(plan)
}

/// A failure that is memplan's bug, on the invocation's name.
fn internal_error(model: &Model, failure: &Failure, diags: &mut Diagnostics) {
    diags.at(
        model.name.span(),
        format!("internal error: {failure}; please report it with the invocation"),
    );
}

/// Names buffers as their declarations do: a row of a plan file with its file and line,
/// lifetimes as written.
struct RecordNames<'a> {
    model: &'a Model,
    /// The record of each buffer of the problem.
    records: &'a [usize],
}

impl Names for RecordNames<'_> {
    fn buffer(&self, problem: &Problem, i: usize) -> String {
        let name = &problem.buffers[i].name;
        match &self.model.buffers[self.records[i]].origin {
            Some(o) => format!("`{name}` ({o})"),
            None => format!("`{name}`"),
        }
    }

    fn lifetime(&self, _: &Problem, i: usize) -> Option<String> {
        let text = &self.model.buffers[self.records[i]].live_text;
        (!text.is_empty()).then(|| text.clone())
    }
}

/// The errors, by index, that say a row of a file (all of whose rows point at the file's
/// path) is larger than its region, where two or more rows of one file overflow one region:
/// the first of each such group maps to the group's errors, the others to `None`. One
/// message tells them all, rather than one per row at the same place.
fn rows_too_large(
    model: &Model,
    records: &[usize],
    errors: &[PlanError],
) -> HashMap<usize, Option<Vec<usize>>> {
    let mut groups: HashMap<(usize, usize, usize), Vec<usize>> = HashMap::new();
    for (k, e) in errors.iter().enumerate() {
        if let PlanError::BufferTooLarge { buffer, region, .. } = e {
            let record = &model.buffers[records[*buffer]];
            if record.origin.is_some() {
                let at = record.spans.size.first.start();
                groups
                    .entry((*region, at.line, at.column))
                    .or_default()
                    .push(k);
            }
        }
    }
    let mut told = HashMap::new();
    for group in groups.into_values().filter(|g| g.len() > 1) {
        for &k in &group[1..] {
            told.insert(k, None);
        }
        told.insert(group[0], Some(group));
    }
    told
}

/// One error for the rows of one file that are each larger than their region (`group`,
/// indexes into `errors`, all `BufferTooLarge` in one region): how many, and the largest
/// of them.
fn report_rows_too_large(
    problem: &Problem,
    names: &RecordNames<'_>,
    errors: &[PlanError],
    group: &[usize],
    diags: &mut Diagnostics,
) {
    let Some(PlanError::BufferTooLarge {
        region, available, ..
    }) = group.first().and_then(|&k| errors.get(k))
    else {
        return;
    };
    let mut rows: Vec<(u64, usize)> = group
        .iter()
        .filter_map(|&k| match errors.get(k) {
            Some(PlanError::BufferTooLarge { buffer, needed, .. }) => Some((*needed, *buffer)),
            _ => None,
        })
        .collect();
    // The largest first; ties in the file's order.
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let list = memplan_planner::listed(&rows, |&(needed, b)| {
        format!(
            "{} needs {needed} bytes (over by {})",
            names.buffer(problem, b),
            needed - available
        )
    });
    let region_name = &problem.regions[*region].name;
    let message = format!(
        "{} buffers are each larger than region `{region_name}` ({available} bytes): {list}",
        rows.len()
    );
    let spans = names.model.buffers[names.records[rows[0].1]].spans;
    diags.at(spans.size, message);
}

/// Records the planner's error `e`, spanned on the declaration it is about.
fn report(
    model: &Model,
    problem: &Problem,
    records: &[usize],
    names: &RecordNames<'_>,
    e: &PlanError,
    diags: &mut Diagnostics,
) {
    let spans = |i: usize| model.buffers[records[i]].spans;
    let at: SpanRange = match e {
        PlanError::RegionAlign { region, .. } => model.regions[*region].ident.span().into(),
        PlanError::Overflow(o) => model.regions[o.region].ident.span().into(),
        PlanError::BufferAlign { buffer, .. } | PlanError::UnknownRegion { buffer } => {
            spans(*buffer).name.into()
        }
        PlanError::InPlaceLarger { buffer, .. }
        | PlanError::BufferTooLarge { buffer, .. }
        | PlanError::LargerThanEveryRegion { buffer, .. }
        | PlanError::FitsNoRegion { buffer, .. } => spans(*buffer).size,
        PlanError::InPlaceSourceLive { buffer, .. }
        | PlanError::InPlaceCycle { buffer }
        | PlanError::InPlaceRegion { buffer, .. } => spans(*buffer).in_place.into(),
        PlanError::InPlaceOverlap { b, .. } => spans(*b).in_place.into(),
        PlanError::InPlacePinned { buffer }
        | PlanError::PinWithoutRegion { buffer }
        | PlanError::PinMisaligned { buffer, .. }
        | PlanError::PinOutOfBounds { buffer, .. } => spans(*buffer).pin,
        PlanError::PinOverlap { b, .. } => spans(*b).pin,
        PlanError::SizeOverflow { buffers, .. } => buffers
            .first()
            .map_or(model.name.span().into(), |&i| spans(i).size),
    };
    let mut message = e.display_with(problem, names).to_string();
    if let PlanError::Overflow(o) = e {
        message.push_str(&crate::lower::schedule::peak_operators(model, o.peak_step));
    }
    if let PlanError::PinOverlap { a, .. } = e {
        let pinned = spans(*a).pin.first;
        message.push_str(&format!(
            " ({} is pinned at {})",
            names.buffer(problem, *a),
            crate::diag::location(pinned)
        ));
    }
    diags.at(at, message);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `plan` if the validator accepts it and no arena is larger than Rust's largest
    /// object; otherwise `None`, with the errors recorded: the path a plan takes from the
    /// planner to the emitter, given a plan memplan did not make.
    fn checked(
        model: &Model,
        problem: &Problem,
        plan: Plan,
        diags: &mut Diagnostics,
    ) -> Option<Plan> {
        match memplan_planner::validated(problem, plan) {
            Ok(p) => fits_rust(model, p, diags),
            Err(failure) => {
                internal_error(model, &failure, diags);
                None
            }
        }
    }

    #[test]
    fn a_plan_the_validator_rejects_is_an_internal_error_not_emitted() {
        let src = "mod m { region r: 64 bytes; buffer a: 16 bytes in r, live 0..=1; buffer b: 16 bytes in r, live 1..=2; }";
        let checked_input = crate::check(src.parse().unwrap(), &crate::Env::default());
        assert!(checked_input.diagnostics.is_empty());
        let (model, good) = checked_input.planned().expect("planned");
        let mut errors = Diagnostics::default();
        let (problem, _) = model.problem();
        assert!(checked(model, &problem, good.clone(), &mut errors).is_some());
        assert!(errors.is_empty());
        // A planner bug: both buffers, live together at step 1, at one offset.
        let mut bad = good.clone();
        bad.buffers[1].offset = bad.buffers[0].offset;
        assert!(checked(model, &problem, bad, &mut errors).is_none());
        let out = errors.to_compile_errors().to_string();
        assert!(out.contains("internal error"), "{out}");
        assert!(
            out.contains("buffers 0 and 1 are live at a common step and share bytes"),
            "{out}"
        );
    }
}
