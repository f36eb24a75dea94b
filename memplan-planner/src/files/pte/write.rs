//! Writing a `.pte` program back with memplan's offsets.

use memplan_flatbuffers::executorch::KernelTypesT;

use super::header::{Header, LENGTH};
use crate::files::error::FileError;
use crate::files::flatbuffer::{self, MAX_MODEL_BYTES, error};
use crate::files::model::ModelFormat;

/// Where memplan puts one planned tensor of an ExecuTorch program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedOffset {
    /// The tensor's value index ([`TensorId::index`](crate::files::TensorId::index)).
    pub value: u32,
    /// ExecuTorch's memory id (1-based, as the file stores it).
    pub memory_id: u32,
    /// Its offset in that buffer, in bytes.
    pub offset: u64,
}

/// The largest power of two that divides `n` (`n` > 0), at most 2^16.
fn alignment_of(n: u64) -> u64 {
    (1u64 << n.trailing_zeros().min(16)).max(1)
}

/// The program in `bytes` with execution plan `plan_name` (the first when `None`) given
/// `offsets` (one per planned tensor, every planned tensor: its `allocation_info`'s
/// `memory_id`, `memory_offset_low` and `memory_offset_high`) and
/// `non_const_buffer_sizes`, everything else kept: every field of every table the schema
/// declares (the constant and delegate data inside the flatbuffer 16-byte aligned, the
/// schema's `force_align`), the extended header and the segments after the flatbuffer.
///
/// The flatbuffer is re-serialized, so its length changes: the extended header's program
/// size and segment base offset are rewritten to match (as `serialize_pte_binary` in
/// `exir/_serialize/_program.py` writes them: the header inserted after the file
/// identifier, the segments from the first offset past the program that keeps their old
/// alignment, up to 2^16), and the segment bytes are copied unchanged (segment offsets in
/// `Program.segments` are relative to that base).
///
/// # Errors
///
/// A [`FileError`] naming the file: the program does not read ([`super::read`]); a planned
/// tensor without an offset, an offset for a value that is not a planned tensor or given
/// twice; a memory id outside `non_const_buffer_sizes` (ids from 1), a tensor that ends past
/// its buffer; a size over `i64::MAX`; an instruction of a kind the vendored schema does not
/// know (packing would drop it); a program whose tables, counted each time they are
/// referenced, exceed the read's budget (64 bytes per byte of the file, at least 16 MiB,
/// at most 1 GiB: unpacking would copy them all); a result over [`MAX_MODEL_BYTES`].
pub fn write_plan(
    bytes: &[u8],
    file: &str,
    plan_name: Option<&str>,
    offsets: &[PlannedOffset],
    non_const_buffer_sizes: &[u64],
) -> Result<Vec<u8>, FileError> {
    let model = super::read(bytes, file, plan_name)?;
    let (p, old_header) = super::program(
        bytes,
        file,
        &flatbuffer::write_verifier_options(bytes.len()),
    )?;
    let index = super::plan_index(&p, file, plan_name)?;

    let sizes: Vec<i64> = non_const_buffer_sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            i64::try_from(s).map_err(|_| {
                error(
                    file,
                    format!("non_const_buffer_sizes[{i}] = {s} is over i64::MAX"),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let values = model.subgraphs.first().map_or(&[][..], |g| &g.values[..]);
    let mut given: Vec<Option<PlannedOffset>> = vec![None; values.len()];
    for o in offsets {
        let at = format!("value {}", o.value);
        let planned = match values.get(o.value as usize) {
            Some(crate::files::model::Value::Tensor(info)) => {
                info.planned.and_then(|k| model.tensors.get(k))
            }
            _ => None,
        };
        let Some(t) = planned else {
            return Err(error(
                file,
                format!("{at} is not a planned tensor of the execution plan"),
            ));
        };
        let slot = &mut given[o.value as usize];
        if slot.is_some() {
            return Err(error(file, format!("{at} is given an offset twice")));
        }
        let capacity = (o.memory_id != 0)
            .then(|| non_const_buffer_sizes.get(o.memory_id as usize))
            .flatten()
            .ok_or_else(|| {
                error(file, format!("{at}: memory id {}, which the given non_const_buffer_sizes (ids 1..{}) does not have", o.memory_id, non_const_buffer_sizes.len()))
            })?;
        if o.offset
            .checked_add(t.size)
            .is_none_or(|end| end > *capacity)
        {
            return Err(error(
                file,
                format!(
                    "{at}: its {} bytes at offset {} end past memory id {}'s {capacity} bytes",
                    t.size, o.offset, o.memory_id
                ),
            ));
        }
        *slot = Some(*o);
    }
    if let Some(t) = model
        .tensors
        .iter()
        .find(|t| given[t.id.index as usize].is_none())
    {
        return Err(error(
            file,
            format!("value {} (planned) is given no offset", t.id.index),
        ));
    }
    for plan in p.execution_plan().iter().flatten() {
        for chain in plan.chains().iter().flatten() {
            for (k, ins) in chain.instructions().iter().flatten().enumerate() {
                let t = ins.instr_args_type();
                if t.variant_name().is_none() {
                    return Err(error(
                        file,
                        format!(
                            "instruction {k}: of type {}, which the vendored schema does not know: writing the program back would drop it",
                            t.0
                        ),
                    ));
                }
            }
        }
    }

    let mut program = p.unpack();
    let plan = program
        .execution_plan
        .as_mut()
        .and_then(|plans| plans.get_mut(index))
        .ok_or_else(|| error(file, "the program has no execution plan"))?;
    for (v, value) in plan.values.iter_mut().flatten().enumerate() {
        let (Some(o), KernelTypesT::Tensor(t)) = (given.get(v).copied().flatten(), &mut value.val)
        else {
            continue;
        };
        if let Some(a) = t.allocation_info.as_mut() {
            a.memory_id = o.memory_id;
            a.memory_offset_low = o.offset as u32;
            a.memory_offset_high = (o.offset >> 32) as u32;
        }
    }
    plan.non_const_buffer_sizes = Some(sizes);

    let flat = &memplan_flatbuffers::finish_executorch(&program)[..];
    let out = match old_header {
        None => flat.to_vec(),
        Some(h) => with_header(bytes, flat, h, file)?,
    };
    if out.len() > MAX_MODEL_BYTES {
        return Err(error(
            file,
            format!(
                "the program written back would have {} bytes, more than {MAX_MODEL_BYTES}",
                out.len()
            ),
        ));
    }
    // What was written reads back (a check of this function, not of the input).
    flatbuffer::check_header(&out, file, ModelFormat::Pte)?;
    Ok(out)
}

/// `flat` with an extended header and the old file's segments after it.
fn with_header(old: &[u8], flat: &[u8], h: Header, file: &str) -> Result<Vec<u8>, FileError> {
    let len = LENGTH as usize;
    let program_size = (flat.len() + len) as u64;
    let (segments, base) = if h.segment_base_offset == 0 {
        (&[][..], 0)
    } else {
        let start = usize::try_from(h.segment_base_offset)
            .ok()
            .filter(|&s| s <= old.len())
            .ok_or_else(|| {
                error(
                    file,
                    "the extended header's segment base offset is past the end of the file",
                )
            })?;
        let align = alignment_of(h.segment_base_offset);
        (&old[start..], program_size.div_ceil(align) * align)
    };
    let header = Header {
        length: LENGTH,
        program_size,
        segment_base_offset: base,
        segment_data_size: h.segment_data_size,
    };
    let root = u32::from_le_bytes([flat[0], flat[1], flat[2], flat[3]]) + LENGTH;
    let mut out = Vec::with_capacity(base as usize + segments.len() + len + flat.len());
    out.extend_from_slice(&root.to_le_bytes());
    out.extend_from_slice(&flat[4..8]);
    out.extend_from_slice(&header.to_bytes());
    out.extend_from_slice(&flat[8..]);
    if base != 0 {
        out.resize(base as usize, 0);
        out.extend_from_slice(segments);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_keep_their_alignment() {
        assert_eq!(alignment_of(1152), 128);
        assert_eq!(alignment_of(1 << 20), 1 << 16);
        assert_eq!(alignment_of(3), 1);
    }
}
