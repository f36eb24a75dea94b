//! What a plan costs TensorFlow Lite Micro, and which plan `--write` gives a `.tflite`
//! model: TFLite Micro places the kernels' scratch buffers itself, around the offline
//! plan's tensors, so its head (the planned section of its arena) can exceed memplan's
//! figure; `memplan_planner::files::tflite::tflm_head` works its planner through. `--write`
//! writes the plan whose head is smallest, never more than TFLite Micro's own.

use memplan_planner::files::ModelFile;
use memplan_planner::files::tflite::tflm_head;

use crate::words::bytes;

/// The plan `--write` gives a `.tflite` model, and what it costs TFLite Micro.
pub struct Chosen {
    /// One entry per tensor buffer of the model's plan file (`None`: -1, planned online).
    pub offsets: Vec<Option<u64>>,
    /// TFLite Micro's head with it, in bytes.
    pub head: u64,
    /// What was written, for the closing line: `at memplan's offsets in an arena of N
    /// bytes, TFLite Micro's head with them ...`.
    pub said: String,
}

/// Per tensor of `model`, the offset its buffer has in `buffers` (one per tensor buffer of
/// the plan file).
fn per_tensor(model: &ModelFile, buffers: &[Option<u64>]) -> Vec<Option<u64>> {
    let mut out = vec![None; model.tensors.len()];
    for (members, &o) in model.buffer_tensors().iter().zip(buffers) {
        for &m in members {
            out[m] = o;
        }
    }
    out
}

/// Per tensor buffer of `model`, its offset in `tensors` (one per tensor), when every
/// member of the buffer has the same one.
fn per_buffer(model: &ModelFile, tensors: &[Option<u64>]) -> Option<Vec<Option<u64>>> {
    model
        .buffer_tensors()
        .iter()
        .map(|members| {
            let o = tensors[members[0]];
            members.iter().all(|&m| tensors[m] == o).then_some(o)
        })
        .collect()
}

/// TFLite Micro's head for `model` with its own plan: the file's offline plan, or, without
/// one, its planner's.
fn own_head(model: &ModelFile) -> Result<(u64, Vec<Option<u64>>), String> {
    let file: Vec<Option<u64>> = model.tensors.iter().map(|t| t.file_offset).collect();
    let has_plan = file.iter().any(Option::is_some);
    tflm_head(model, has_plan.then_some(&file[..]))
        .ok_or_else(|| format!("{}: TFLite Micro's plan overflows 64 bits", model.file))
}

/// The plan to write into `model`: memplan's (`buffers`, one entry per tensor buffer) when
/// TFLite Micro's head with it is at most its head with its own plan; else the offsets
/// TFLite Micro's own planner gives, written down, when that is no larger; else, for a model
/// without an offline plan, every entry -1 (TFLite Micro plans as before).
///
/// # Errors
///
/// A model whose own offline plan costs less than any plan memplan can write (nothing is
/// written), or a size that overflows.
pub fn choose(model: &ModelFile, buffers: &[Option<u64>]) -> Result<Chosen, String> {
    let overflow = || format!("{}: TFLite Micro's plan overflows 64 bits", model.file);
    let (own, greedy) = own_head(model)?;
    let has_plan = model.tensors.iter().any(|t| t.file_offset.is_some());
    let own_said = if has_plan {
        "the file's own offline plan"
    } else {
        "its own planner"
    };
    let (head, _) = tflm_head(model, Some(&per_tensor(model, buffers))).ok_or_else(overflow)?;
    if head <= own {
        return Ok(Chosen {
            offsets: buffers.to_vec(),
            head,
            said: format!(
                "at memplan's offsets in an arena of {}, TFLite Micro's head with them (with {own_said}: {})",
                bytes(head),
                bytes(own)
            ),
        });
    }
    // TFLite Micro's planner's offsets for the tensors, without variable tensors (its
    // persistent section keeps those).
    if let Some(offsets) = per_buffer(model, &greedy) {
        let offsets: Vec<Option<u64>> = model
            .buffer_tensors()
            .iter()
            .zip(offsets)
            .map(|(m, o)| o.filter(|_| !model.tensors[m[0]].persistent))
            .collect();
        let (g, _) = tflm_head(model, Some(&per_tensor(model, &offsets))).ok_or_else(overflow)?;
        if g <= own {
            return Ok(Chosen {
                offsets,
                head: g,
                said: format!(
                    "at the offsets TFLite Micro's own planner gives them, written down, in an arena of {}, TFLite Micro's head with them: memplan's plan would leave TFLite Micro a head of {} where its own takes {} (the kernels' scratch buffers, which it places itself, fit its plan's gaps better)",
                    bytes(g),
                    bytes(head),
                    bytes(own)
                ),
            });
        }
    }
    if has_plan {
        return Err(format!(
            "{}: memplan's plan would leave TFLite Micro a head of {}, more than the {} of the file's own offline plan: nothing written",
            model.file,
            bytes(head),
            bytes(own)
        ));
    }
    Ok(Chosen {
        offsets: vec![None; buffers.len()],
        head: own,
        said: format!(
            "with every offline entry -1 (TFLite Micro plans every tensor itself, as without a plan) in an arena of {}, TFLite Micro's head with its own planner: memplan's plan would leave it a head of {}",
            bytes(own),
            bytes(head)
        ),
    })
}

/// The lines `memplan plan` adds for a `.tflite` model planned with the tensor offsets
/// `buffers` (one per tensor buffer): TFLite Micro's head with them, and with its own plan.
pub fn report(model: &ModelFile, buffers: &[Option<u64>]) -> Result<String, String> {
    let (own, _) = own_head(model)?;
    let has_plan = model.tensors.iter().any(|t| t.file_offset.is_some());
    let (head, _) = tflm_head(model, Some(&per_tensor(model, buffers)))
        .ok_or_else(|| format!("{}: TFLite Micro's plan overflows 64 bits", model.file))?;
    let scratch = &model.scratch;
    let mut s = format!(
        "\nTFLite Micro (its planned section, the arena's head, sizes rounded to 16 bytes)\n  {:<16} {} ({} kernel scratch buffers, which it places itself around the tensors)\n  {:<16} {}\n",
        "with this plan",
        bytes(head),
        scratch.requests.len(),
        if has_plan {
            "file's own plan"
        } else {
            "its own planner"
        },
        bytes(own)
    );
    if !scratch.unmodelled.is_empty() {
        s.push_str(&format!(
            "  note: the scratch of {} is not worked out (see memplan_planner::files::tflite::Scratch): TFLite Micro's head can be larger\n",
            scratch.unmodelled.join(", ")
        ));
    }
    Ok(s)
}
