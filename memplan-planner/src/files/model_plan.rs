//! A model read as a plan file: its planned tensors as buffers ([`ModelFile::plan_file`]),
//! so that every tool that plans, checks or draws a plan file takes a model too, and the
//! tensors each buffer stands for ([`ModelFile::buffer_tensors`]), to write a plan back.

use std::collections::HashMap;

use super::model::{ModelFile, ModelFormat};
use super::plan_file::{FileBuffer, Format, PlanFile};

impl ModelFile {
    /// The tensors of each buffer of [`ModelFile::plan_file`], in its order: one tensor,
    /// or the members of an alias group (tensors the file puts on the same bytes on
    /// purpose: one buffer of the group's size over the group's lifetime), which then all
    /// take that buffer's offset.
    pub fn buffer_tensors(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::with_capacity(self.tensors.len());
        for (i, t) in self.tensors.iter().enumerate() {
            match t.alias_group.and_then(|g| self.alias_groups.get(g)) {
                // A group is one buffer, at its first member.
                Some(group) if group.members.first() == Some(&i) => {
                    out.push(group.members.clone());
                }
                Some(_) => {}
                None => out.push(vec![i]),
            }
        }
        out
    }

    /// The model's planned tensors as a plan file: one buffer per entry of
    /// [`ModelFile::buffer_tensors`], with its size, lifetime, element type, shape and the
    /// file's own offset and memory id (when the file has a plan of its own), no region
    /// (planned in one region aligned to [`ModelFile::align`], as the runtime does). A
    /// tensor without a name, or with a name another tensor has too, is named with its
    /// index: `NAME#INDEX` (`#INDEX` alone for none). Variable (persistent) tensors are
    /// buffers live at every step.
    pub fn plan_file(&self) -> PlanFile {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for t in &self.tensors {
            *count.entry(t.name.as_str()).or_insert(0) += 1;
        }
        let buffers = self
            .buffer_tensors()
            .iter()
            .map(|members| {
                let t = &self.tensors[members[0]];
                let name = if t.name.is_empty() || count[t.name.as_str()] > 1 {
                    format!("{}#{}", t.name, t.id.index)
                } else {
                    t.name.clone()
                };
                let (size, lifetime) = match t.alias_group.and_then(|g| self.alias_groups.get(g)) {
                    Some(g) => (g.size, g.lifetime),
                    None => (t.size, t.lifetime),
                };
                let what = match self.format {
                    ModelFormat::Tflite => "tensor",
                    ModelFormat::Pte => "value",
                };
                let origin = if members.len() > 1 {
                    format!(
                        "{what}s {} (on the same bytes)",
                        members
                            .iter()
                            .map(|&m| self.tensors[m].id.index.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                } else {
                    format!("{what} {}", t.id.index)
                };
                FileBuffer {
                    mem_id: t.memory_id,
                    offset: t.file_offset,
                    element: t
                        .element
                        .primitive
                        .filter(|p| size.is_multiple_of(p.size())),
                    dtype: Some(t.element.name.to_string()),
                    shape: Some(t.shape.clone()),
                    origin: Some(origin),
                    ..FileBuffer::new(name, size, lifetime, 0)
                }
            })
            .collect();
        PlanFile {
            file: self.file.clone(),
            format: match self.format {
                ModelFormat::Tflite => Format::Tflite,
                ModelFormat::Pte => Format::Pte,
            },
            name: None,
            regions: Vec::new(),
            buffers,
            buffer_sizes: self.buffer_sizes.clone(),
        }
    }
}

/// `bytes` (the model `model` was read from) with `offsets` as its plan, in the runtime's
/// own format, everything else kept: `offsets[i]` is the offset of buffer `i` of
/// [`ModelFile::plan_file`] (every tensor of the buffer takes it) in one arena of
/// `arena_bytes` bytes. A `.tflite` model gets them as its `OfflineMemoryAllocation`
/// ([`super::tflite::write_offline_plan`]), an ExecuTorch program as every planned tensor's
/// `allocation_info` in memory id 1, with `non_const_buffer_sizes` `[0, arena_bytes]`
/// ([`super::pte::write_plan`]).
///
/// # Errors
///
/// `offsets` has not one offset per buffer, or the writer's errors.
#[cfg(feature = "write")]
pub fn write_model_plan(
    bytes: &[u8],
    model: &ModelFile,
    offsets: &[u64],
    arena_bytes: u64,
) -> Result<Vec<u8>, super::FileError> {
    let buffers = model.buffer_tensors();
    if buffers.len() != offsets.len() {
        return Err(super::FileError::at_line(
            &model.file,
            None,
            format!(
                "{} offsets for the {} planned buffers of the model",
                offsets.len(),
                buffers.len()
            ),
        ));
    }
    let per_tensor = buffers
        .iter()
        .zip(offsets)
        .flat_map(|(members, &offset)| members.iter().map(move |&m| (m, offset)));
    match model.format {
        ModelFormat::Tflite => {
            let offsets: Vec<(super::TensorId, u64)> = per_tensor
                .map(|(m, offset)| (model.tensors[m].id, offset))
                .collect();
            super::tflite::write_offline_plan(bytes, &model.file, &offsets)
        }
        ModelFormat::Pte => {
            let offsets: Vec<super::pte::PlannedOffset> = per_tensor
                .map(|(m, offset)| super::pte::PlannedOffset {
                    value: model.tensors[m].id.index,
                    memory_id: 1,
                    offset,
                })
                .collect();
            super::pte::write_plan(bytes, &model.file, None, &offsets, &[0, arena_bytes])
        }
    }
}
