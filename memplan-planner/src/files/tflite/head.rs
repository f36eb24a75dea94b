//! The bytes TensorFlow Lite Micro's planned section (its arena's head) takes for a model,
//! with or without an offline plan: its `GreedyMemoryPlanner` worked through here, so that
//! `memplan plan --write` can tell what a plan costs TensorFlow Lite Micro before it writes
//! one.
//!
//! As `micro_allocator.cc` (`CommitStaticMemoryPlan`, `CreatePlan`) and
//! `greedy_memory_planner.cc` (`CalculateOffsetsIfNeeded`, `GetMaximumMemorySize`) at
//! tflite-micro `90b983c2` do it: the planned tensors (no constant data, not variable unless
//! the offline plan places them, non-zero bytes), in file order, then the kernels' scratch
//! buffers ([`super::Scratch`]) in request order, each rounded up to 16 bytes; a buffer
//! with an offline offset is put there, the others by size, largest first (ties: the later
//! one first), each at the lowest offset where it overlaps no buffer already placed that is
//! live at a common step; the head is the largest offset + size. The same first fit as
//! memplan's `greedy` strategy, whose order is that planner's.
//!
//! Where this can differ from TensorFlow Lite Micro: a tensor nothing writes and nothing
//! reads has TensorFlow Lite Micro's lifetime -1..-1, here step 0; a variable tensor the
//! offline plan places is live at every step here, at its operators' only there.

use crate::files::model::ModelFile;
use crate::files::plan_file::Format;
use crate::greedy::{first_fit, greedy_order};
use crate::instance::{Instance, Item};

/// TensorFlow Lite Micro's head, in bytes, for `model` (a `.tflite` model) with `offsets`
/// as its offline plan: `offsets[i]` is the offset of tensor `i` of
/// [`ModelFile::tensors`], `None` for one planned online (and a variable tensor given
/// `None` is not planned here: TensorFlow Lite Micro puts it in its persistent section).
/// `offsets` shorter than the tensors plans the rest online; `None` for `offsets` is no
/// offline plan. Returns the head and the offset TensorFlow Lite Micro gives each tensor it
/// plans (`None` for the others); `None` when a sum overflows.
pub fn tflm_head(
    model: &ModelFile,
    offsets: Option<&[Option<u64>]>,
) -> Option<(u64, Vec<Option<u64>>)> {
    let round = |b: u64| Format::Tflite.runtime_size(b);
    let mut items = Vec::with_capacity(model.tensors.len() + model.scratch.requests.len());
    let mut item_of = vec![None; model.tensors.len()];
    for (i, t) in model.tensors.iter().enumerate() {
        let fixed = offsets.and_then(|o| o.get(i).copied().flatten());
        if t.size == 0 || (t.persistent && fixed.is_none()) {
            continue;
        }
        item_of[i] = Some(items.len());
        items.push(Item {
            size: round(t.size),
            align: 1,
            lifetime: t.lifetime,
            fixed,
        });
    }
    for r in &model.scratch.requests {
        items.push(Item {
            size: round(r.bytes),
            align: 1,
            lifetime: r.lifetime,
            fixed: None,
        });
    }
    if items.iter().any(|it| it.size == u64::MAX) {
        return None;
    }
    let instance = Instance::new(items);
    let layout = first_fit(&instance, &greedy_order(&instance)).ok()?;
    let placed = item_of
        .iter()
        .map(|i| i.map(|i| layout.offsets[i]))
        .collect();
    Some((layout.bytes, placed))
}
