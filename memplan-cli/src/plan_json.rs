//! A plan as memplan's JSON plan file, with every offset: what `memplan plan --format json`
//! puts in each plan's `plan`, which `check`, `svg` and `trace` read back.

use memplan_planner::files::json::{JsonBuffer, JsonPlan, JsonRegion};

use crate::planned::Planned;

/// `p` as a JSON plan file: its regions (capacity left out when unbounded) and its buffers
/// with their region, alignment (when their own) and offset.
pub fn plan_file(p: &Planned) -> JsonPlan {
    let regions = p
        .problem
        .regions
        .iter()
        .enumerate()
        .map(|(r, region)| JsonRegion {
            name: region.name.clone(),
            capacity: (!p.unbounded(r)).then_some(region.capacity),
            align: Some(region.align),
        })
        .collect();
    let buffers = p
        .problem
        .buffers
        .iter()
        .zip(&p.plan.buffers)
        .map(|(b, placed)| JsonBuffer {
            name: b.name.clone(),
            size: b.size,
            first: b.lifetime.first,
            last: b.lifetime.last,
            region: Some(p.problem.regions[placed.region].name.clone()),
            align: b.align,
            offset: Some(placed.offset),
        })
        .collect();
    JsonPlan {
        version: Some(1),
        name: Some(p.title.clone()),
        regions,
        buffers,
    }
}
