//! The figures of one region's plan beyond what the planner reports: its buffers, the
//! buffers live at the peak step, the waste over the lower bound and the alignment padding
//! ([`crate::padding`]).

use crate::padding::{self, Span};
use crate::planned::Planned;

/// One region's figures.
pub struct RegionStats {
    /// The region's buffers (indices into the problem), in order.
    pub members: Vec<usize>,
    /// The buffers live at the peak step, largest first (ties: file order).
    pub at_peak: Vec<usize>,
    /// Alignment padding, in bytes ([`crate::padding`]).
    pub padding: u64,
    /// Planned bytes over the lower bound, in bytes.
    pub waste: u64,
    /// Planned bytes / lower bound (`None` when the bound is 0).
    pub ratio: Option<f64>,
}

/// The figures of region `r` of `p`.
pub fn region(p: &Planned, r: usize) -> RegionStats {
    let members = p.in_region(r);
    let rp = &p.plan.regions[r];
    let buffers = &p.problem.buffers;
    let mut at_peak: Vec<usize> = match rp.peak_step {
        Some(t) => members
            .iter()
            .copied()
            .filter(|&i| buffers[i].lifetime.first <= t && t <= buffers[i].lifetime.last)
            .collect(),
        None => Vec::new(),
    };
    at_peak.sort_by(|&a, &b| buffers[b].size.cmp(&buffers[a].size).then(a.cmp(&b)));
    let spans: Vec<Span> = members
        .iter()
        .map(|&i| {
            let b = &buffers[i];
            Span {
                offset: p.plan.buffers[i].offset,
                size: b.size,
                first: b.lifetime.first,
                last: b.lifetime.last,
                align: p.problem.effective_align(b, r),
            }
        })
        .collect();
    RegionStats {
        padding: padding::padding(&spans),
        waste: rp.planned_bytes.saturating_sub(rp.lower_bound),
        ratio: (rp.lower_bound > 0).then(|| rp.planned_bytes as f64 / rp.lower_bound as f64),
        members,
        at_peak,
    }
}
