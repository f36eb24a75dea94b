//! The text of a plan's `REPORT`: per region, capacity, planned bytes, lower bound, peak
//! step, buffers, whether proven optimal, and the search nodes used. The CLI prints the
//! same text.

use memplan_planner::Plan;

use crate::info::PlanInfo;
use crate::lower::Model;

/// The report of `model`'s `plan` (or, `None`, a line saying the plan has errors): the
/// text of [`PlanInfo::report`].
pub fn report(model: &Model, plan: Option<&Plan>) -> String {
    match plan {
        // The lock's note is in the description, so `memplan inspect` shows it too.
        Some(plan) => PlanInfo::new(model, plan).report(),
        None => format!("memory plan `{}`: the plan has errors", model.name),
    }
}
