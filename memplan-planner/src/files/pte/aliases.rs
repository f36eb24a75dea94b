//! Planned tensors ExecuTorch deliberately puts on the same bytes, which memplan must keep
//! together (a `.tflite` offline plan's are in `tflite/shared.rs`).
//!
//! What the real files show: ExecuTorch's emitter elides a static view
//! (`memory.view`, `_emit_view` in `exir/emit/_emitter.py`): the view becomes a tensor value
//! of its own with the base's `allocation_info` and no instruction links the two. The base
//! is written by one kernel, the view only read by later ones, so their lifetimes do not
//! overlap: the same memory id and offset alone does not tell a view from a tensor that
//! merely reuses the bytes later. Two rules, in ExecuTorch's own terms:
//!
//! 1. Same memory id and offset, overlapping lifetimes: both are live at a step on the same
//!    bytes, which ExecuTorch's plan allows only on purpose (an `et_view` kernel's output, a
//!    kernel whose output is placed over an input it reads at that step).
//! 2. A planned tensor that no instruction writes ([`super::lifetimes`]: not a kernel's
//!    return value, a delegate's argument, a move's destination, a plan input) can only read
//!    bytes another tensor wrote: it joins the tensor at the same memory id and offset
//!    that is written and was first live most recently, at or before its own first step.
//!
//! Grouping is a union-find over the tensors sorted by (memory id, offset, first step):
//! `O(n log n)`.

use crate::files::model::{AliasGroup, PlannedTensor};
use crate::problem::{Lifetime, Step};

/// A planned tensor as the rules see it.
pub(super) struct Placed {
    /// ExecuTorch's memory id.
    pub memory_id: u32,
    /// ExecuTorch's offset.
    pub offset: u64,
    /// Its lifetime.
    pub lifetime: Lifetime,
    /// The first step that writes it, if any.
    pub written: Option<Step>,
    /// Its size: a tensor of no bytes shares none, so it joins no group.
    pub size: u64,
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (a, b) = (find(parent, a), find(parent, b));
    if a != b {
        // The smaller index is the root, so groups come out in file order.
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        parent[hi] = lo;
    }
}

/// The groups of `tensors` (the planned tensors of one file, in order), each placed as
/// `placed` says, that share bytes ([`groups`]): their [`AliasGroup`]s, each member's
/// `alias_group` set.
pub(super) fn alias_groups(tensors: &mut [PlannedTensor], placed: &[Placed]) -> Vec<AliasGroup> {
    let mut out = Vec::new();
    for members in groups(placed) {
        let g = out.len();
        let mut size = 0;
        let mut lifetime = tensors[members[0]].lifetime;
        for &m in &members {
            let t = &mut tensors[m];
            t.alias_group = Some(g);
            size = size.max(t.size);
            lifetime = lifetime.hull(&t.lifetime);
        }
        out.push(AliasGroup {
            members,
            size,
            lifetime,
        });
    }
    out
}

/// The groups of tensors on the same bytes (each at least two, members in index order,
/// groups in the order of their first member).
fn groups(tensors: &[Placed]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..tensors.len())
        .filter(|&i| tensors[i].size > 0)
        .collect();
    order.sort_by_key(|&i| {
        (
            tensors[i].memory_id,
            tensors[i].offset,
            tensors[i].lifetime.first,
            i,
        )
    });
    let mut parent: Vec<usize> = (0..tensors.len()).collect();
    let same_place = |a: usize, b: usize| {
        (tensors[a].memory_id, tensors[a].offset) == (tensors[b].memory_id, tensors[b].offset)
    };
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && same_place(order[start], order[end]) {
            end += 1;
        }
        let run = &order[start..end];
        // Rule 1: a sweep by first step; a tensor whose lifetime starts within the hull of
        // the ones before it overlaps one of them.
        let mut reach: Option<(Step, usize)> = None;
        for &i in run {
            let lt = tensors[i].lifetime;
            match reach {
                Some((last, j)) if lt.first <= last => {
                    union(&mut parent, i, j);
                    reach = Some((last.max(lt.last), j));
                }
                _ => reach = Some((lt.last, i)),
            }
        }
        // Rule 2: the last written tensor that started at or before each unwritten one.
        let mut latest_written: Option<usize> = None;
        for &i in run {
            if tensors[i].written.is_some() {
                latest_written = Some(i);
            } else if let Some(w) = latest_written {
                union(&mut parent, i, w);
            }
        }
        start = end;
    }
    let mut by_root: Vec<Vec<usize>> = vec![Vec::new(); tensors.len()];
    for i in 0..tensors.len() {
        let r = find(&mut parent, i);
        by_root[r].push(i);
    }
    by_root.into_iter().filter(|g| g.len() > 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(offset: u64, first: Step, last: Step, written: bool) -> Placed {
        Placed {
            memory_id: 1,
            offset,
            lifetime: Lifetime { first, last },
            written: written.then_some(first),
            size: 16,
        }
    }

    #[test]
    fn a_tensor_of_no_bytes_joins_no_group() {
        // kws_dscnn's batch norm writes a 0-byte second output at its first output's offset,
        // both live at that instruction: nothing is shared.
        let mut empty = t(32, 1, 1, true);
        empty.size = 0;
        assert_eq!(
            groups(&[t(32, 1, 2, true), empty]),
            Vec::<Vec<usize>>::new()
        );
    }

    #[test]
    fn a_static_view_joins_its_base_and_reuse_stays_apart() {
        // The views.pte pattern: 3 (written at 0) and its view 5 (read at 1) at offset 0;
        // input 2 (written at 0, live 0..=0) and 6 (written at 1) at 32, its view 7 (read
        // at 2) at 32.
        let tensors = [
            t(0, 0, 0, true),
            t(0, 1, 1, false),
            t(32, 0, 0, true),
            t(32, 1, 1, true),
            t(32, 2, 2, false),
        ];
        assert_eq!(groups(&tensors), vec![vec![0, 1], vec![3, 4]]);
    }

    #[test]
    fn overlapping_lifetimes_on_the_same_bytes_are_one_group() {
        let tensors = [
            t(0, 0, 5, true),
            t(0, 2, 3, true),
            t(0, 6, 7, true),
            t(16, 0, 9, true),
        ];
        assert_eq!(groups(&tensors), vec![vec![0, 1]]);
    }
}
