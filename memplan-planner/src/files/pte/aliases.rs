//! Planned tensors ExecuTorch deliberately puts on the same bytes while both are live, which
//! memplan must keep together (a `.tflite` offline plan's are in `tflite/shared.rs`).
//!
//! ExecuTorch's memory planner shares bytes between two tensors in three ways
//! (`exir/memory_planning.py`, `exir/passes/memory_planning_pass.py`,
//! `exir/emit/_emitter.py`), and only one of them, reuse, leaves the two apart:
//!
//! - **Reuse**: the greedy planner puts a tensor on bytes whose earlier tensor's lifetime
//!   has ended (`pick_shared_obj`: lifetimes that do not overlap). The two are separate
//!   buffers: memplan may place them apart, and `memplan check` finds them live at no common
//!   step.
//! - **Views** (rule 1): a static view (`memory.view`, elided by `_emit_view`) is a tensor
//!   value of its own with its base's `allocation_info` (its `_ViewSpec` shares the base's
//!   memory id and offset) that no instruction writes: it reads what the base wrote, and the
//!   planner keeps the base's bytes for the view's uses (`get_node_tensor_specs` gives a
//!   view node its base's spec). A planned tensor that nothing writes
//!   ([`super::lifetimes`]: not a kernel's return value, not a delegate's argument, not a
//!   plan input, no initial state, not bound by a move) joins the tensor at the same memory
//!   id and offset that was written (or bound) most recently at or before its first step.
//!   A value bound to another's storage (an `et_view` out tensor, a move's destination) at
//!   that tensor's memory id and offset joins it too.
//! - **In-place outputs** (rule 2): an out-variant kernel whose output the planner put on
//!   an input's bytes (`inplace_base`, set by the reinplace pass through
//!   `_share_alloc_with_arg_idx`; `_resolve_inplace_specs` gives the output its base's
//!   offset). Both are live at that instruction: it reads the input and writes the output
//!   there. A tensor first written at a step by a kernel that also reads a tensor at the
//!   same memory id and offset, of the same scalar type and shape (the output aliases the
//!   input), whose group is last live at that step (the input is not read after it is
//!   overwritten), joins that tensor's group.
//!
//! Any other two tensors on common bytes, both live at a step, are two buffers that collide:
//! kernels write them at one place while both are needed. Grouping is a union-find over the
//! tensors sorted by (memory id, offset, step), and over each instruction's arguments sorted
//! by place: `O(n log n)`.

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
    /// When it is bound to another value's storage (a move, `et_view`): the first step, and
    /// the planned tensor it is bound to, if that is one.
    pub bound: Option<(Step, Option<usize>)>,
    /// Its size: a tensor of no bytes shares none, so it joins no group.
    pub size: u64,
}

/// A kernel that first writes planned tensor `output` at `step`, where it reads planned
/// tensor `input`, at the same memory id and offset, of the same type and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct InPlace {
    /// The tensor read.
    pub input: usize,
    /// The tensor written on its bytes.
    pub output: usize,
    /// The instruction.
    pub step: Step,
}

/// A union-find whose roots keep their groups' last step.
struct Groups {
    parent: Vec<usize>,
    last: Vec<Step>,
}

impl Groups {
    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            // The smaller index is the root, so groups come out in file order.
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            self.parent[hi] = lo;
            self.last[lo] = self.last[lo].max(self.last[hi]);
        }
    }
}

/// The groups of `tensors` (the planned tensors of one file, in order), each placed as
/// `placed` says, that share bytes on purpose ([`groups`]): their [`AliasGroup`]s, each
/// member's `alias_group` set.
pub(super) fn alias_groups(
    tensors: &mut [PlannedTensor],
    placed: &[Placed],
    in_place: &[InPlace],
) -> Vec<AliasGroup> {
    let mut out = Vec::new();
    for members in groups(placed, in_place) {
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

/// The groups of tensors on the same bytes on purpose (each at least two, members in index
/// order, groups in the order of their first member).
fn groups(tensors: &[Placed], in_place: &[InPlace]) -> Vec<Vec<usize>> {
    let place = |i: usize| (tensors[i].memory_id, tensors[i].offset);
    let mut g = Groups {
        parent: (0..tensors.len()).collect(),
        last: tensors.iter().map(|t| t.lifetime.last).collect(),
    };
    // Rule 1. At each place, by step: a tensor written or bound there starts at that step;
    // a tensor nothing writes, at its first step, after those that start at the same step.
    let start = |i: usize| -> Option<(Step, bool)> {
        let t = &tensors[i];
        match (t.written, t.bound) {
            (Some(w), Some((b, _))) => Some((w.min(b), false)),
            (Some(w), None) | (None, Some((w, _))) => Some((w, false)),
            (None, None) => None,
        }
    };
    let mut order: Vec<(u32, u64, Step, bool, usize)> = (0..tensors.len())
        .filter(|&i| tensors[i].size > 0)
        .map(|i| {
            let (s, view) = start(i).unwrap_or((tensors[i].lifetime.first, true));
            (place(i).0, place(i).1, s, view, i)
        })
        .collect();
    order.sort_unstable();
    let mut latest: Option<usize> = None;
    for (k, &(m, o, _, view, i)) in order.iter().enumerate() {
        if k > 0 && (order[k - 1].0, order[k - 1].1) != (m, o) {
            latest = None;
        }
        if !view {
            latest = Some(i);
        } else if let Some(base) = latest {
            g.union(i, base);
        }
    }
    for (i, t) in tensors.iter().enumerate() {
        if let Some((_, Some(to))) = t.bound
            && t.size > 0
            && tensors[to].size > 0
            && place(i) == place(to)
        {
            g.union(i, to);
        }
    }
    // Rule 2, step by step, so that a chain of in-place outputs joins one group.
    let mut pairs = in_place.to_vec();
    pairs.sort_unstable_by_key(|p| (p.step, p.output, p.input));
    for p in pairs {
        let (a, b) = (g.find(p.input), g.find(p.output));
        if a != b && g.last[a] == p.step && place(p.input) == place(p.output) {
            g.union(a, b);
        }
    }
    let mut by_root: Vec<Vec<usize>> = vec![Vec::new(); tensors.len()];
    for i in 0..tensors.len() {
        let r = g.find(i);
        by_root[r].push(i);
    }
    by_root.into_iter().filter(|m| m.len() > 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-byte tensor in memory id 1 at `offset`, live `first..=last`, written at
    /// `first` when `written`.
    fn t(offset: u64, first: Step, last: Step, written: bool) -> Placed {
        Placed {
            memory_id: 1,
            offset,
            lifetime: Lifetime { first, last },
            written: written.then_some(first),
            bound: None,
            size: 16,
        }
    }

    #[test]
    fn a_tensor_of_no_bytes_joins_no_group() {
        // kws_dscnn's batch norm writes a 0-byte second output at its first output's offset,
        // both live at that instruction: nothing is shared.
        let mut empty = t(32, 1, 1, false);
        empty.size = 0;
        assert_eq!(
            groups(&[t(32, 1, 2, true), empty], &[]),
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
        assert_eq!(groups(&tensors, &[]), vec![vec![0, 1], vec![3, 4]]);
    }

    #[test]
    fn reuse_at_one_offset_is_not_a_group() {
        // One offset, reused: 0 written at 0 and last read at 12, its view 1 read at 5..=12;
        // 2 first written at 13, its view 3 read at 14; 4 written at 20. Three buffers, as
        // ExecuTorch's planner made them: {0, 1}, {2, 3}, {4}.
        let tensors = [
            t(64, 0, 12, true),
            t(64, 5, 12, false),
            t(64, 13, 13, true),
            t(64, 14, 14, false),
            t(64, 20, 25, true),
        ];
        assert_eq!(groups(&tensors, &[]), vec![vec![0, 1], vec![2, 3]]);
    }

    #[test]
    fn kernels_writing_one_offset_while_both_live_are_not_a_group() {
        // 0 written at 0, read until 5; 1 written at 3 on the same bytes: a collision for
        // `memplan check`, not a group.
        let tensors = [t(0, 0, 5, true), t(0, 3, 7, true)];
        assert_eq!(groups(&tensors, &[]), Vec::<Vec<usize>>::new());
        // Written at 5 by the kernel that last reads 0 there, in place: one group. Not so
        // when 0 (or a view of it) is read after 5.
        let tensors = [t(0, 0, 5, true), t(0, 5, 7, true)];
        let at5 = [InPlace {
            input: 0,
            output: 1,
            step: 5,
        }];
        assert_eq!(groups(&tensors, &at5), vec![vec![0, 1]]);
        let tensors = [t(0, 0, 5, true), t(0, 5, 7, true), t(0, 2, 6, false)];
        assert_eq!(groups(&tensors, &at5), vec![vec![0, 2]]);
    }

    #[test]
    fn a_chain_of_in_place_outputs_is_one_group() {
        let tensors = [t(0, 0, 1, true), t(0, 1, 2, true), t(0, 2, 3, true)];
        let pairs = [
            InPlace {
                input: 1,
                output: 2,
                step: 2,
            },
            InPlace {
                input: 0,
                output: 1,
                step: 1,
            },
        ];
        assert_eq!(groups(&tensors, &pairs), vec![vec![0, 1, 2]]);
    }

    #[test]
    fn a_value_bound_at_its_source_s_place_joins_it() {
        // et_view's out tensor at its input's offset, bound to it at step 1.
        let mut out = t(0, 1, 3, false);
        out.bound = Some((1, Some(0)));
        assert_eq!(groups(&[t(0, 0, 1, true), out], &[]), vec![vec![0, 1]]);
        // A move's destination elsewhere shares nothing of its own.
        let mut dest = t(32, 1, 3, false);
        dest.bound = Some((1, Some(0)));
        assert_eq!(
            groups(&[t(0, 0, 1, true), dest], &[]),
            Vec::<Vec<usize>>::new()
        );
    }
}
