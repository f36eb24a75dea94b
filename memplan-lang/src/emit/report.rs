//! The text of a plan's `REPORT`: per region, capacity, planned bytes, lower bound, peak
//! step, buffers, whether proven optimal, and the search nodes used. The CLI prints the
//! same text.

use memplan_planner::Plan;

use crate::lower::Model;

/// The report of `model`'s `plan` (or, `None`, a line saying the plan has errors).
pub fn report(model: &Model, plan: Option<&Plan>) -> String {
    let Some(plan) = plan else {
        return format!("memory plan `{}`: the plan has errors", model.name);
    };
    let strategy = match plan.strategy.nodes() {
        Some(nodes) => format!("{}, budget {nodes} nodes", plan.strategy.name()),
        None => plan.strategy.name().to_string(),
    };
    let mut out = format!(
        "memory plan `{}` (strategy {strategy})\n{:<16} {:>3} {:>12} {:>12} {:>12} {:>9} {:>8} {:>7} {:>8}\n",
        model.name,
        "region",
        "id",
        "capacity",
        "planned",
        "lower bound",
        "peak step",
        "buffers",
        "optimal",
        "nodes"
    );
    for (r, rp) in plan.regions.iter().enumerate() {
        let n = plan.buffers.iter().filter(|b| b.region == r).count();
        let peak = rp.peak_step.map_or("-".to_string(), |s| s.to_string());
        out.push_str(&format!(
            "{:<16} {:>3} {:>12} {:>12} {:>12} {:>9} {:>8} {:>7} {:>8}\n",
            model.regions[r].region.name,
            r,
            rp.capacity,
            rp.planned_bytes,
            rp.lower_bound,
            peak,
            n,
            if rp.proven_optimal { "yes" } else { "no" },
            rp.search_nodes
        ));
    }
    out
}
