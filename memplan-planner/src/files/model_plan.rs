//! A model read as a plan file: its planned tensors as buffers ([`ModelFile::plan_file`]),
//! so that every tool that plans, checks or draws a plan file takes a model too, and the
//! tensors each buffer stands for ([`ModelFile::buffer_tensors`]), to write a plan back.

use std::collections::HashMap;

use super::model::{ModelFile, ModelFormat};
use super::plan_file::{FileBuffer, Format, PlanFile, Role};

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
    /// tensor without a name, or with a name another planned tensor has too (in its
    /// subgraph or another), is named with its index: `NAME#INDEX` in subgraph 0 (`#INDEX`
    /// alone for none), `NAME#SUBGRAPH.INDEX` in the others, and a `#` more while that is
    /// another tensor's own name: every buffer's name is its own. Variable (persistent)
    /// tensors are buffers live at every step ([`Role::Persistent`]). After the tensors'
    /// buffers come the kernels' scratch buffers ([`ModelFile::scratch`], [`Role::Scratch`]),
    /// named `scratch#N` (with `#` added while a tensor has that name).
    pub fn plan_file(&self) -> PlanFile {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for t in &self.tensors {
            *count.entry(t.name.as_str()).or_insert(0) += 1;
        }
        let indexed = |t: &super::PlannedTensor| {
            let mut name = if t.id.subgraph == 0 {
                format!("{}#{}", t.name, t.id.index)
            } else {
                format!("{}#{}.{}", t.name, t.id.subgraph, t.id.index)
            };
            while count.contains_key(name.as_str()) {
                name.push('#');
            }
            name
        };
        let buffers = self
            .buffer_tensors()
            .iter()
            .map(|members| {
                let t = &self.tensors[members[0]];
                let name = if t.name.is_empty() || count[t.name.as_str()] > 1 {
                    indexed(t)
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
                    role: if members.iter().any(|&m| self.tensors[m].persistent) {
                        Role::Persistent
                    } else {
                        Role::Tensor
                    },
                    ..FileBuffer::new(name, size, lifetime, 0)
                }
            })
            .collect::<Vec<_>>();
        let mut buffers = buffers;
        let taken: std::collections::HashSet<String> =
            buffers.iter().map(|b| b.name.clone()).collect();
        for (i, r) in self.scratch.requests.iter().enumerate() {
            // `scratch#N`, unless a tensor has that name: then `scratch#N#`, and so on.
            let mut name = format!("scratch#{i}");
            while taken.contains(&name) {
                name.push('#');
            }
            buffers.push(FileBuffer {
                origin: Some(format!(
                    "scratch buffer {i} (operator {} of subgraph {}, {})",
                    r.operator, r.subgraph, r.kind
                )),
                role: Role::Scratch,
                ..FileBuffer::new(name, r.bytes, r.lifetime, 0)
            });
        }
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
/// `arena_bytes` bytes, or `None` for a buffer the runtime is to place itself. A `.tflite`
/// model gets them as its `OfflineMemoryAllocation` ([`super::tflite::write_offline_plan`];
/// `None` is its -1, "planned online"), an ExecuTorch program as every planned tensor's
/// `allocation_info` in memory id 1, with `non_const_buffer_sizes` `[0, arena_bytes]`
/// ([`super::pte::write_plan`]; every buffer needs an offset).
///
/// `offsets` covers the tensors' buffers only, not the scratch buffers after them: the
/// runtime places those itself.
///
/// A `.tflite` model's variable tensors ([`Role::Persistent`]) take `None`: TensorFlow
/// Lite Micro then allocates them in its persistent section (`micro_allocator.cc`,
/// `AllocateVariables`), where nothing else ever goes. Given an offline offset instead, a
/// variable tensor is planned in the non-persistent section with the lifetime of its
/// operators' scopes only (`micro_allocation_info.cc`, `InitializeAllocationInfo` and
/// `MarkAllocationLifetimes`), and the scratch buffers kernels request are planned onto its
/// bytes after its last use: its state is lost between invocations.
///
/// # Errors
///
/// `offsets` has not one entry per buffer, an offset for a variable tensor of a `.tflite`
/// model, `None` for a `.pte` buffer, or the writer's errors.
#[cfg(feature = "write")]
pub fn write_model_plan(
    bytes: &[u8],
    model: &ModelFile,
    offsets: &[Option<u64>],
    arena_bytes: u64,
) -> Result<Vec<u8>, super::FileError> {
    let fault = |message: String| super::FileError::at_line(&model.file, None, message);
    let buffers = model.buffer_tensors();
    if buffers.len() != offsets.len() {
        return Err(fault(format!(
            "{} offsets for the {} planned buffers of the model",
            offsets.len(),
            buffers.len()
        )));
    }
    let mut per_tensor = Vec::with_capacity(model.tensors.len());
    for (members, &offset) in buffers.iter().zip(offsets) {
        for &m in members {
            let t = &model.tensors[m];
            match (model.format, offset) {
                (ModelFormat::Tflite, Some(_)) if t.persistent => {
                    return Err(fault(format!(
                        "tensor {} of subgraph {} (`{}`) is a variable tensor: TensorFlow Lite Micro keeps its state only in its persistent section, so the offline plan gives it -1",
                        t.id.index, t.id.subgraph, t.name
                    )));
                }
                (ModelFormat::Pte, None) => {
                    return Err(fault(format!(
                        "value {}: an ExecuTorch program's planned tensor needs an offset",
                        t.id.index
                    )));
                }
                (_, Some(o)) => per_tensor.push((m, o)),
                (_, None) => {}
            }
        }
    }
    match model.format {
        ModelFormat::Tflite => {
            let offsets: Vec<(super::TensorId, u64)> = per_tensor
                .iter()
                .map(|&(m, offset)| (model.tensors[m].id, offset))
                .collect();
            super::tflite::write_offline_plan(bytes, &model.file, &offsets)
        }
        ModelFormat::Pte => {
            let offsets: Vec<super::pte::PlannedOffset> = per_tensor
                .iter()
                .map(|&(m, offset)| super::pte::PlannedOffset {
                    value: model.tensors[m].id.index,
                    memory_id: 1,
                    offset,
                })
                .collect();
            super::pte::write_plan(bytes, &model.file, None, &offsets, &[0, arena_bytes])
        }
    }
}
