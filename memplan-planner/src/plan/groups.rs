//! In-place groups: a root buffer and every buffer in place of it, sharing the root's
//! offset; and the in-place rules they must keep.

use crate::error::PlanError;
use crate::problem::{Lifetime, Placement, Problem};

/// An in-place group: a root buffer and every buffer in place of it (transitively). The
/// group occupies the root's bytes for the hull of all its lifetimes.
pub(crate) struct Group {
    pub(crate) root: usize,
    pub(crate) members: Vec<usize>,
    /// The region a member names (`In`), or `Anywhere` when none does.
    pub(crate) placement: Placement,
    pub(crate) size: u64,
    pub(crate) align: u64,
    pub(crate) lifetime: Lifetime,
}

/// Resolves in-place links into groups, checking the in-place rules.
pub(super) fn build(problem: &Problem, errors: &mut Vec<PlanError>) -> Vec<Group> {
    let n = problem.buffers.len();
    let mut root = vec![usize::MAX; n];
    for (i, root_i) in root.iter_mut().enumerate() {
        // Follow the chain; more than n links means a cycle.
        let mut cur = i;
        let mut hops = 0;
        let mut ok = true;
        while let Some(src) = problem.buffers[cur].in_place_of {
            if src >= n || hops > n {
                ok = false;
                break;
            }
            cur = src;
            hops += 1;
        }
        if !ok {
            errors.push(PlanError::InPlaceCycle { buffer: i });
            continue;
        }
        *root_i = cur;
    }
    for (i, b) in problem.buffers.iter().enumerate() {
        let Some(src) = b.in_place_of else { continue };
        if root[i] == usize::MAX {
            continue;
        }
        let s = &problem.buffers[src];
        if b.size > s.size {
            errors.push(PlanError::InPlaceLarger {
                buffer: i,
                source: src,
                size: b.size,
                source_size: s.size,
            });
        }
        if s.lifetime.last > b.lifetime.first {
            errors.push(PlanError::InPlaceSourceLive {
                buffer: i,
                source: src,
                source_last: s.lifetime.last,
                first: b.lifetime.first,
            });
        }
        if b.pin.is_some() {
            errors.push(PlanError::InPlacePinned { buffer: i });
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of_root = vec![usize::MAX; n];
    for (i, &r) in root.iter().enumerate() {
        if r == usize::MAX {
            continue;
        }
        if group_of_root[r] == usize::MAX {
            group_of_root[r] = groups.len();
            let rb = &problem.buffers[r];
            groups.push(Group {
                root: r,
                members: Vec::new(),
                placement: Placement::Anywhere,
                size: rb.size,
                align: 1,
                lifetime: rb.lifetime,
            });
        }
        let g = &mut groups[group_of_root[r]];
        g.members.push(i);
        g.lifetime = g.lifetime.hull(&problem.buffers[i].lifetime);
    }
    // A group goes where its members say; members that name different regions are an
    // error (the group shares one offset in one region).
    for g in &mut groups {
        for &m in &g.members {
            if let Placement::In(r) = problem.buffers[m].placement {
                match g.placement {
                    Placement::Anywhere => g.placement = Placement::In(r),
                    Placement::In(q) if q != r => errors.push(PlanError::InPlaceRegion {
                        buffer: m,
                        source: problem.buffers[m].in_place_of.unwrap_or(g.root),
                    }),
                    Placement::In(_) => {}
                }
            }
        }
    }
    // Members share the group's bytes: two that are live at a common step must be a chain
    // (one in place of the other, directly or through others), never siblings.
    for g in &groups {
        for (x, &a) in g.members.iter().enumerate() {
            for &b in &g.members[x + 1..] {
                let (la, lb) = (problem.buffers[a].lifetime, problem.buffers[b].lifetime);
                if la.conflicts(&lb)
                    && !in_place_ancestor(problem, a, b)
                    && !in_place_ancestor(problem, b, a)
                {
                    errors.push(PlanError::InPlaceOverlap {
                        a,
                        b,
                        steps: (la.first.max(lb.first), la.last.min(lb.last)),
                    });
                }
            }
        }
    }
    // Alignment: the strictest of the members, in the group's region (or the first region
    // that declares one, for groups still to be placed: every region's default applies
    // once chosen, so take the explicit alignments and the root's region default).
    for g in &mut groups {
        let region = match g.placement {
            Placement::In(r) => Some(r),
            Placement::Anywhere => None,
        };
        let mut a = 1;
        for &m in &g.members {
            let b = &problem.buffers[m];
            let ma = match (b.align, region) {
                (Some(x), _) => x,
                (None, Some(r)) => problem.regions.get(r).map_or(1, |reg| reg.align),
                (None, None) => problem
                    .regions
                    .iter()
                    .map(|reg| reg.align)
                    .max()
                    .unwrap_or(1),
            };
            a = a.max(ma);
        }
        g.align = a;
    }
    groups
}

/// Whether `ancestor` is reached from `b` by following `in place of` links (at most one lap
/// of the buffers, so a cycle ends the walk).
fn in_place_ancestor(problem: &Problem, ancestor: usize, b: usize) -> bool {
    let mut cur = b;
    for _ in 0..problem.buffers.len() {
        match problem.buffers[cur].in_place_of {
            Some(s) if s == ancestor => return true,
            Some(s) if s < problem.buffers.len() => cur = s,
            _ => return false,
        }
    }
    false
}
