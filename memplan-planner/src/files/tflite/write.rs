//! Writing a `.tflite` file back with memplan's offsets as its offline plan.

use memplan_flatbuffers::tflite::{self as fb, BufferT, MetadataT, ModelT};
use memplan_flatbuffers::tflite::{BuiltinOptions, BuiltinOptions2};

use super::offline::{self, METADATA_NAME};
use crate::files::error::FileError;
use crate::files::flatbuffer::{self, MAX_MODEL_BYTES, error};
use crate::files::model::{ModelFormat, TensorId};

/// The model in `bytes` with `offsets` as its `OfflineMemoryAllocation` metadata (added, or
/// replacing the buffer of the last entry of that name, the one TensorFlow Lite Micro
/// reads; when that buffer is also a tensor's, another metadata entry's or listed in
/// `metadata_buffer`, the entry gets a new buffer instead and the shared one is kept as
/// it was), everything else kept: every field of every table the schema declares, with
/// `Buffer.data` and `Operator.custom_options` 16-byte aligned from the start of the file
/// (the schema's `force_align`). `offsets` gives a byte offset, from the start of TensorFlow
/// Lite Micro's non-persistent arena section, for some tensors; every other tensor gets -1
/// ("planned at run time"), as TensorFlow Lite Micro's format says. TensorFlow Lite Micro
/// ignores an offline offset for a tensor with constant data; for a variable tensor one
/// places it in the planned section instead of the persistent one.
///
/// The file is re-serialized: byte positions change, the bytes of its constants do not.
/// Fields a newer schema added that the vendored one lacks would be dropped, so
/// builtin options of a kind the vendored schema does not know are refused.
///
/// # Errors
///
/// A [`FileError`] naming the file: the model does not read (as [`super::read`] says); a
/// tensor in `offsets` that the model does not have, given twice, or whose offset does not
/// fit TensorFlow Lite Micro's 32-bit entry (at most 2^31 - 1); builtin options unknown to
/// the vendored schema; a model whose tables, counted each time they are referenced, exceed
/// the read's budget (64 bytes per byte of the file, at least 16 MiB, at most 1 GiB:
/// unpacking would copy them all); a result over [`MAX_MODEL_BYTES`].
pub fn write_offline_plan(
    bytes: &[u8],
    file: &str,
    offsets: &[(TensorId, u64)],
) -> Result<Vec<u8>, FileError> {
    super::read(bytes, file)?;
    let options = flatbuffer::write_verifier_options(bytes.len());
    let model = memplan_flatbuffers::verify_tflite(&options, bytes)
        .map_err(|e| flatbuffer::invalid(file, ModelFormat::Tflite, &e, &options))?;
    let mut m: ModelT = model.unpack();
    refuse_unknown_options(&model, file)?;

    let counts: Vec<usize> = m
        .subgraphs
        .iter()
        .flatten()
        .map(|g| g.tensors.as_ref().map_or(0, Vec::len))
        .collect();
    let mut starts = Vec::with_capacity(counts.len());
    let mut total = 0usize;
    for c in &counts {
        starts.push(total);
        total += c;
    }
    let mut entries: Vec<Option<i32>> = vec![None; total];
    for &(id, offset) in offsets {
        let g = id.subgraph as usize;
        let at = format!("tensor {} of subgraph {}", id.index, id.subgraph);
        if counts.get(g).is_none_or(|&n| id.index as usize >= n) {
            return Err(error(file, format!("{at}: the model has no such tensor")));
        }
        let slot = &mut entries[starts[g] + id.index as usize];
        if slot.is_some() {
            return Err(error(file, format!("{at} is given an offset twice")));
        }
        let o = i32::try_from(offset).map_err(|_| {
            error(
                file,
                format!("{at}: offset {offset} does not fit the offline plan's 32-bit entry (at most {})", i32::MAX),
            )
        })?;
        *slot = Some(o);
    }
    let data = offline::encode(counts.len(), &entries);

    let existing = m.metadata.as_ref().and_then(|md| {
        md.iter()
            .rposition(|md| md.name.as_deref() == Some(METADATA_NAME))
    });
    // The plan's buffer is rewritten in place only when nothing else uses it: a tensor's
    // data (even empty, as buffer 0 is for every tensor without data), another metadata
    // entry, the deprecated `metadata_buffer` list. Else the plan gets a buffer of its own,
    // so that no weight and no other metadata changes.
    let own = existing.map(|i| {
        let b = m.metadata.as_ref().map_or(0, |md| md[i].buffer);
        let by_tensor = m
            .subgraphs
            .iter()
            .flatten()
            .flat_map(|g| g.tensors.iter().flatten())
            .any(|t| t.buffer == b);
        let by_metadata = m
            .metadata
            .iter()
            .flatten()
            .enumerate()
            .any(|(k, md)| k != i && md.buffer == b);
        let by_list = m
            .metadata_buffer
            .iter()
            .flatten()
            .any(|&k| u32::try_from(k) == Ok(b));
        (i, !(by_tensor || by_metadata || by_list))
    });
    let buffers = m.buffers.get_or_insert_with(Vec::new);
    let metadata = m.metadata.get_or_insert_with(Vec::new);
    match own {
        Some((i, true)) => {
            let b = metadata[i].buffer as usize;
            match buffers.get_mut(b) {
                Some(buf) => buf.data = Some(data),
                None => {
                    return Err(error(
                        file,
                        format!(
                            "metadata {i} (`{METADATA_NAME}`) names buffer {b}, which the model does not have"
                        ),
                    ));
                }
            }
        }
        Some((i, false)) => {
            let b = u32::try_from(buffers.len())
                .map_err(|_| error(file, "the model has too many buffers to add one"))?;
            let mut buf = BufferT::default();
            buf.data = Some(data);
            buffers.push(buf);
            metadata[i].buffer = b;
        }
        None => {
            let b = u32::try_from(buffers.len())
                .map_err(|_| error(file, "the model has too many buffers to add one"))?;
            let mut buf = BufferT::default();
            buf.data = Some(data);
            buffers.push(buf);
            let mut md = MetadataT::default();
            md.name = Some(METADATA_NAME.to_string());
            md.buffer = b;
            metadata.push(md);
        }
    }

    let out = memplan_flatbuffers::finish_tflite(&m);
    if out.len() > MAX_MODEL_BYTES {
        return Err(error(
            file,
            format!(
                "the model written back would have {} bytes, more than {MAX_MODEL_BYTES}",
                out.len()
            ),
        ));
    }
    Ok(out)
}

/// Refuses operators whose builtin options are of a kind the vendored schema does not know:
/// unpacking would drop them.
fn refuse_unknown_options(model: &fb::Model<'_>, file: &str) -> Result<(), FileError> {
    for (g, sg) in model.subgraphs().iter().flatten().enumerate() {
        for (k, op) in sg.operators().iter().flatten().enumerate() {
            let t = op.builtin_options_type();
            let t2 = op.builtin_options_2_type();
            let unknown = if t != BuiltinOptions::NONE && t.variant_name().is_none() {
                Some(("builtin_options", i64::from(t.0)))
            } else if t2 != BuiltinOptions2::NONE && t2.variant_name().is_none() {
                Some(("builtin_options_2", i64::from(t2.0)))
            } else {
                None
            };
            if let Some((field, v)) = unknown {
                return Err(error(
                    file,
                    format!(
                        "operator {k} of subgraph {g}: {field} of type {v}, which the vendored schema does not know: writing the model back would drop them"
                    ),
                ));
            }
        }
    }
    Ok(())
}
