//! The tensors a `.tflite` file's offline plan shares on purpose, which memplan must keep
//! together: the operands of one custom operator that the plan puts at one offset while
//! they are live at a common step. Vela does that: its `ethos-u` operator's input and
//! output lie inside its scratch tensors, all at offset 0, the NPU's command stream knowing
//! where. A builtin operator never shares bytes between live operands (TensorFlow Lite
//! Micro's kernels do not run in place), so two of its operands on the same bytes are an
//! overlap that `memplan check` reports.

use crate::files::model::{AliasGroup, Operator, PlannedTensor};

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The groups of `tensors` (planned, with offline offsets) shared by the custom operators
/// among `operators` (`custom[k]`: operator `k` is custom), each member's `alias_group`
/// set. `planned_of(subgraph, index)` gives a tensor's index in `tensors`, if planned.
pub(super) fn groups(
    tensors: &mut [PlannedTensor],
    operators: &[Operator],
    custom: &[bool],
    planned_of: impl Fn(u32, i32) -> Option<usize>,
) -> Vec<AliasGroup> {
    let mut parent: Vec<usize> = (0..tensors.len()).collect();
    for (op, _) in operators.iter().zip(custom).filter(|(_, c)| **c) {
        let mut operands: Vec<usize> = op
            .inputs
            .iter()
            .chain(&op.outputs)
            .filter_map(|&t| planned_of(op.subgraph, t))
            .filter(|&k| tensors[k].file_offset.is_some())
            .collect();
        operands.sort_by_key(|&k| (tensors[k].file_offset, k));
        operands.dedup();
        for w in operands.windows(2) {
            let (a, b) = (w[0], w[1]);
            if tensors[a].file_offset == tensors[b].file_offset
                && tensors[a].lifetime.conflicts(&tensors[b].lifetime)
            {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                let (lo, hi) = (ra.min(rb), ra.max(rb));
                parent[hi] = lo;
            }
        }
    }
    let mut by_root: Vec<Vec<usize>> = vec![Vec::new(); tensors.len()];
    for i in 0..tensors.len() {
        let r = find(&mut parent, i);
        by_root[r].push(i);
    }
    let mut out = Vec::new();
    for members in by_root.into_iter().filter(|g| g.len() > 1) {
        let g = out.len();
        let mut size = 0;
        let mut lifetime = tensors[members[0]].lifetime;
        for &m in &members {
            tensors[m].alias_group = Some(g);
            size = size.max(tensors[m].size);
            lifetime = lifetime.hull(&tensors[m].lifetime);
        }
        out.push(AliasGroup {
            members,
            size,
            lifetime,
        });
    }
    out
}
