//! A plan as memplan's JSON plan file, with every offset: what `memplan plan --format json`
//! puts in each plan's `plan`, which `check`, `svg` and `trace` read back.

use memplan_planner::files::json::{JsonBuffer, JsonPlan, JsonRegion};

use crate::planned::Planned;

/// `p` as a JSON plan file: its regions (capacity left out when unbounded) and its buffers
/// with their region, alignment (where it is not their region's), offset, element type
/// and in-place source; version 2 when a buffer has an element type or a source, else 1.
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
        .enumerate()
        .map(|(i, (b, placed))| JsonBuffer {
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
            dtype: p.element(i).map(|e| e.rust_name().to_string()),
            in_place_of: b
                .in_place_of
                .and_then(|s| p.problem.buffers.get(s))
                .map(|s| s.name.clone()),
        })
        .collect();
    let mut plan = JsonPlan {
        version: None,
        name: Some(p.title.clone()),
        regions,
        buffers,
    };
    plan.version = Some(plan.version_needed());
    plan
}
