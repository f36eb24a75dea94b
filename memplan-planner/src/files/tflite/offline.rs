//! TensorFlow Lite Micro's offline plan: the `OfflineMemoryAllocation` metadata, read as
//! `AllocationInfoBuilder::GetOfflinePlannedOffsets` (`micro_allocation_info.cc`) reads it,
//! in the format of `tensorflow/lite/micro/docs/memory_management.md` ("Offline planned
//! tensor allocations"): a buffer of little-endian 32-bit words, `[version, subgraphs, n,
//! offset of tensor 0, ..., offset of tensor n - 1]`, one offset per tensor of every
//! subgraph (subgraph 0's tensors first), each a byte offset from the start of the arena's
//! non-persistent (head) section or -1 for "planned at run time". TensorFlow Lite Micro
//! ignores the version and the subgraph count; so does memplan, and writes 0 and the
//! model's subgraph count.

use memplan_flatbuffers::tflite::Model;

/// The metadata's name.
pub const METADATA_NAME: &str = "OfflineMemoryAllocation";

/// The entry for a tensor the online planner places.
pub const ONLINE: i32 = -1;

/// The offsets of an offline plan, one per tensor of every subgraph in order (`None`: -1),
/// or why the plan cannot be read.
pub(super) fn read(model: &Model<'_>, tensors: usize) -> Result<Option<Vec<Option<u32>>>, String> {
    let Some(metadata) = model.metadata() else {
        return Ok(None);
    };
    let mut plan = None;
    // TensorFlow Lite Micro takes the last entry of that name (its loop does not stop) and
    // reads no other: neither does memplan, so a file that lists the entry many times is
    // read once.
    let last = metadata
        .iter()
        .enumerate()
        .rfind(|(_, m)| m.name() == Some(METADATA_NAME));
    if let Some((i, m)) = last {
        let b = m.buffer() as usize;
        let data = model
            .buffers()
            .and_then(|bs| (b < bs.len()).then(|| bs.get(b)))
            .ok_or_else(|| format!("metadata {i} (`{METADATA_NAME}`) names buffer {b}, which the model does not have"))?
            .data()
            .map(|d| d.bytes())
            .unwrap_or_default();
        let word = |k: usize| -> Option<i32> {
            let w = data.get(4 * k..4 * k + 4)?;
            Some(i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        };
        let n = word(2).ok_or_else(|| {
            format!(
                "`{METADATA_NAME}` (buffer {b}) has {} bytes: too short for its 12-byte header (version, subgraphs, number of offsets)",
                data.len()
            )
        })?;
        if usize::try_from(n).ok() != Some(tensors) {
            return Err(format!(
                "`{METADATA_NAME}` (buffer {b}) has {n} offsets; the model has {tensors} tensors (all subgraphs), and TensorFlow Lite Micro needs one offset per tensor"
            ));
        }
        if data.len() < 12 + 4 * tensors {
            return Err(format!(
                "`{METADATA_NAME}` (buffer {b}) says it has {n} offsets but its {} bytes hold {}",
                data.len(),
                (data.len() - 12) / 4
            ));
        }
        let mut offsets = Vec::with_capacity(tensors);
        for k in 0..tensors {
            let o = word(3 + k).unwrap_or(ONLINE);
            offsets.push(match o {
                ONLINE => None,
                o => Some(u32::try_from(o).map_err(|_| {
                    format!("`{METADATA_NAME}` (buffer {b}): the offset of tensor entry {k} is {o}: negative, and not -1")
                })?),
            });
        }
        plan = Some(offsets);
    }
    Ok(plan)
}

#[cfg(feature = "write")]
/// The buffer of an offline plan for `subgraphs` subgraphs with these offsets (one per
/// tensor of every subgraph, `None`: -1).
pub(super) fn encode(subgraphs: usize, offsets: &[Option<i32>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + 4 * offsets.len());
    let header = [0u32, subgraphs as u32, offsets.len() as u32];
    for w in header {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for o in offsets {
        out.extend_from_slice(&o.unwrap_or(ONLINE).to_le_bytes());
    }
    out
}
