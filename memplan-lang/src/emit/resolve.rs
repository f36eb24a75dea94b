//! What is emitted, resolved once: the plan's values, or placeholders after errors.

use memplan_planner::{Placement, Plan};

use super::report::report;
use crate::lower::Model;

/// The values the emitter writes.
pub(crate) struct Resolved {
    /// Whether these are a plan's values (false: the fallback after errors).
    pub(crate) planned: bool,
    /// Per region, in memory id order.
    pub(crate) regions: Vec<RegionOut>,
    /// Per buffer of the model, in its order.
    pub(crate) buffers: Vec<BufferOut>,
    /// The buffers in the `BUFFERS` table: every one for a plan, none after errors.
    pub(crate) table: Vec<usize>,
    /// The `REPORT` text.
    pub(crate) report: String,
}

/// One region's emitted values.
pub(crate) struct RegionOut {
    /// Planned bytes (the arena's length).
    pub(crate) size: u64,
    /// The arena's alignment.
    pub(crate) align: u64,
    pub(crate) lower_bound: u64,
    pub(crate) peak_step: Option<u32>,
    pub(crate) proven_optimal: bool,
    pub(crate) doc: String,
}

/// One buffer's emitted values.
pub(crate) struct BufferOut {
    /// Its memory id.
    pub(crate) region: usize,
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) align: u64,
    pub(crate) doc: String,
}

/// Resolves `model` with `plan` (or, `None`, after errors; then the regions that
/// `partial` plans in full keep their values).
pub(crate) fn resolve(
    model: &Model,
    plan: Option<&Plan>,
    partial: Option<&(Plan, Vec<usize>)>,
) -> Resolved {
    if plan.is_none()
        && let Some((partial, records)) = partial
    {
        return resolve_partial(model, partial, records);
    }
    let regions = model
        .regions
        .iter()
        .enumerate()
        .map(|(r, record)| {
            let region = &record.region;
            let (size, align, lower_bound, peak_step, proven_optimal) = match plan {
                Some(pl) => {
                    let rp = &pl.regions[r];
                    let v = (rp.planned_bytes, rp.align, rp.lower_bound);
                    (v.0, v.1, v.2, rp.peak_step, rp.proven_optimal)
                }
                None => (0, region.align, 0, None, false),
            };
            let doc = format!(
                "Region `{}`: memory id {r}, capacity {} bytes, planned {size} bytes \
                 (lower bound {lower_bound}), arena alignment {align} bytes.",
                region.name, region.capacity
            );
            RegionOut {
                size,
                align,
                lower_bound,
                peak_step,
                proven_optimal,
                doc,
            }
        })
        .collect();
    let buffers = model
        .buffers
        .iter()
        .enumerate()
        .map(|(i, record)| {
            let b = &record.buffer;
            let (first, last) = (b.lifetime.first, b.lifetime.last);
            match plan {
                Some(pl) => {
                    let pb = pl.buffers[i];
                    let align = model.align_of(i, pb.region);
                    let doc = format!(
                        "Buffer `{}`: {} bytes at offset {} of region `{}`, live steps {first}..={last}.",
                        b.name, b.size, pb.offset, model.regions[pb.region].region.name
                    );
                    BufferOut {
                        region: pb.region,
                        offset: pb.offset,
                        size: b.size,
                        align,
                        doc,
                    }
                }
                None => BufferOut {
                    // Where its statement put it (the element type of an `uninit` region's
                    // buffer depends on it), or the first region.
                    region: match b.placement {
                        Placement::In(r) if r < model.regions.len() => r,
                        _ => 0,
                    },
                    offset: 0,
                    size: 0,
                    align: 1,
                    doc: format!("Buffer `{}` (the plan has errors).", b.name),
                },
            }
        })
        .collect();
    Resolved {
        planned: plan.is_some(),
        regions,
        buffers,
        table: if plan.is_some() {
            (0..model.buffers.len()).collect()
        } else {
            Vec::new()
        },
        report: report(model, plan),
    }
}

/// The fallback with the values of the regions that `partial` (the plan of the buffers
/// `records`, those without errors) plans in full: no buffer of theirs has an error (nor
/// any spilled buffer, since spilling looks at every region), and they parsed.
fn resolve_partial(model: &Model, partial: &Plan, records: &[usize]) -> Resolved {
    let mut resolved = resolve(model, None, None);
    let spill_dirty = model
        .buffers
        .iter()
        .any(|b| !b.standing.planned() && b.buffer.placement == Placement::Anywhere);
    let mut clean: Vec<bool> = model
        .regions
        .iter()
        .map(|r| !r.is_broken() && !spill_dirty)
        .collect();
    for b in model.buffers.iter().filter(|b| !b.standing.planned()) {
        if let Placement::In(r) = b.buffer.placement {
            clean[r] = false;
        }
    }
    for (r, out) in resolved.regions.iter_mut().enumerate() {
        if !clean[r] {
            continue;
        }
        let rp = &partial.regions[r];
        out.size = rp.planned_bytes;
        out.align = rp.align;
        out.lower_bound = rp.lower_bound;
        out.peak_step = rp.peak_step;
        out.proven_optimal = rp.proven_optimal;
    }
    for (k, &i) in records.iter().enumerate() {
        let pb = partial.buffers[k];
        if !clean[pb.region] {
            continue;
        }
        let b = &model.buffers[i].buffer;
        let out = &mut resolved.buffers[i];
        out.region = pb.region;
        out.offset = pb.offset;
        out.size = b.size;
        out.align = model.align_of(i, pb.region);
    }
    resolved
}
