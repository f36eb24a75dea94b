//! A plan file's own offsets, as a plan: ExecuTorch's (one region per memory id), a placed
//! CSV's (one region), or JSON's `offset` (in the file's regions).

use std::collections::BTreeSet;

use memplan_planner::files::{FileError, Format, PlanFile, UNBOUNDED};
use memplan_planner::{
    DEFAULT_REGION_ALIGN, Instance, Item, Placed, Placement, Plan, Problem, Region, RegionPlan,
    Strategy, lower_bound,
};

use crate::planned::Planned;

/// The file's offsets: the problem (regions with `capacity`, default unbounded, and
/// alignment `align`, default 16, unless the file declares its own; a `.pte` program's
/// memory ids are as large as its `non_const_buffer_sizes`), each buffer's place, and each
/// region's memory id.
///
/// # Errors
///
/// A MiniMalloc file (it has no offsets); a JSON buffer without `offset`, or without
/// `region` in a file of several regions (its line and column).
pub fn layout(
    file: &PlanFile,
    capacity: Option<u64>,
    align: Option<u64>,
) -> Result<(Problem, Vec<Placed>, Vec<u64>), FileError> {
    let region = |name: String, declared: Option<(Option<u64>, Option<u64>)>| {
        let (cap, al) = declared.unwrap_or((None, None));
        Region {
            name,
            capacity: capacity.or(cap).unwrap_or(UNBOUNDED),
            align: al.or(align).unwrap_or(DEFAULT_REGION_ALIGN),
        }
    };
    let (regions, ids): (Vec<Region>, Vec<u64>) = match file.format {
        Format::Minimalloc => {
            return Err(FileError::at(
                &file.file,
                1,
                1,
                "a MiniMalloc CSV has no offsets: plan it (`memplan plan`) first",
            ));
        }
        Format::Tflite if file.buffers.iter().all(|b| b.offset.is_none()) => {
            return Err(FileError::at_line(
                &file.file,
                None,
                "the model has no plan of its own (no `OfflineMemoryAllocation` metadata): `memplan plan` plans it, and `memplan plan --write` writes the plan into a copy",
            ));
        }
        Format::Tflite => (vec![region("arena".into(), None)], vec![0]),
        Format::Executorch | Format::Pte => {
            let mem_ids: BTreeSet<u32> = file.buffers.iter().filter_map(|b| b.mem_id).collect();
            mem_ids
                .iter()
                .map(|&m| {
                    // A program's own buffer: the bytes it asks the runtime for.
                    let own = file.buffer_sizes.get(m as usize).copied();
                    (
                        region(format!("mem_id {m}"), Some((own, None))),
                        u64::from(m),
                    )
                })
                .unzip()
        }
        Format::Placed => (vec![region("arena".into(), None)], vec![0]),
        Format::Json if file.regions.is_empty() => (vec![region("arena".into(), None)], vec![0]),
        Format::Json => file
            .regions
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    region(r.name.clone(), Some((r.capacity, r.align))),
                    i as u64,
                )
            })
            .unzip(),
    };
    let mut buffers = Vec::with_capacity(file.buffers.len());
    let mut placed = Vec::with_capacity(file.buffers.len());
    for b in &file.buffers {
        let at = |message: String| match &b.origin {
            Some(o) => FileError::at_line(&file.file, None, format!("{o}: {message}")),
            None => FileError::at(&file.file, b.line, b.column, message),
        };
        let Some(offset) = b.offset else {
            return Err(at(format!(
                "`{}` has no `offset`: every buffer of a plan to check or draw with its own offsets needs one",
                b.name
            )));
        };
        let r = match (b.mem_id, b.region) {
            (Some(m), _) => ids.iter().position(|&id| id == u64::from(m)).unwrap_or(0),
            (None, Some(r)) => r,
            (None, None) if regions.len() == 1 => 0,
            (None, None) => {
                return Err(at(format!(
                    "`{}` has no `region`, and the file has {} regions",
                    b.name,
                    regions.len()
                )));
            }
        };
        buffers.push(memplan_planner::Buffer {
            name: b.name.clone(),
            size: b.size,
            align: b.align,
            min_align: 1,
            lifetime: b.lifetime,
            placement: Placement::In(r),
            pin: Some(offset),
            in_place_of: b.in_place_of,
        });
        placed.push(Placed { region: r, offset });
    }
    Ok((Problem { regions, buffers }, placed, ids))
}

/// The file's own offsets as a [`Planned`]: each region's planned bytes (the largest
/// offset + size; for a `.pte` program, the buffer it asks the runtime for, its
/// `non_const_buffer_sizes`, when that is more), lower bound and peak step computed from
/// them.
///
/// # Errors
///
/// As [`layout`].
pub fn planned(
    file: &PlanFile,
    title: String,
    capacity: Option<u64>,
    align: Option<u64>,
) -> Result<Planned, FileError> {
    let (problem, placed, ids) = layout(file, capacity, align)?;
    let regions = (0..problem.regions.len())
        .map(|r| {
            let members: Vec<usize> = (0..placed.len())
                .filter(|&i| placed[i].region == r)
                .collect();
            let instance = Instance {
                pieces: Vec::new(),
                items: members
                    .iter()
                    .map(|&i| {
                        let b = &problem.buffers[i];
                        Item {
                            size: b.size,
                            align: problem.effective_align(b, r),
                            lifetime: b.lifetime,
                            fixed: None,
                        }
                    })
                    .collect(),
            };
            let (lb, peak) = lower_bound(&instance);
            // A program's own plan is the buffer it asks the runtime for
            // (`non_const_buffer_sizes`), which its tensors may not fill.
            let asked = file.buffer_sizes.get(ids[r] as usize).copied().unwrap_or(0);
            let planned_bytes = members
                .iter()
                .filter(|&&i| problem.buffers[i].size > 0)
                .map(|&i| placed[i].offset.saturating_add(problem.buffers[i].size))
                .max()
                .unwrap_or(0)
                .max(asked);
            let align = instance
                .items
                .iter()
                .map(|it| it.align)
                .fold(problem.regions[r].align, u64::max);
            RegionPlan {
                capacity: problem.regions[r].capacity,
                planned_bytes,
                lower_bound: lb,
                peak_step: peak,
                align,
                proven_optimal: planned_bytes <= lb,
                search_nodes: 0,
            }
        })
        .collect();
    Ok(Planned {
        title,
        plan: Plan {
            strategy: Strategy::Greedy,
            buffers: placed,
            regions,
        },
        problem,
        given: true,
        ids,
        file_bytes: None,
        by_region: Default::default(),
        elements: file.buffers.iter().map(|b| b.element).collect(),
        pools: Vec::new(),
    })
}
