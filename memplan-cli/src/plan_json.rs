//! A plan as memplan's JSON plan file, with every offset: what `memplan plan --format json`
//! puts in each plan's `plan`, which `check`, `svg` and `trace` read back.

use memplan_planner::files::json::{JsonBuffer, JsonPlan, JsonRegion};

use crate::planned::Planned;

/// `p` as a JSON plan file: its regions (capacity left out when unbounded) and its buffers
/// with their region, alignment (where it is not their region's) and offset.
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
            // Its alignment where its region's default is not it: its own, or an element
            // type's floor above the region's.
            align: {
                let align = p.problem.effective_align(b, placed.region);
                (b.align.is_some() || align != p.problem.regions[placed.region].align)
                    .then_some(align)
            },
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
