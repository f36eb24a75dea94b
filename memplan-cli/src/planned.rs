//! A plan with its problem: what every command after `check` works on, whether memplan
//! planned it or the file gave the offsets.

use memplan_planner::files::{PlanFile, Primitive, UNBOUNDED};
use memplan_planner::{Failure, Names, Plan, Problem, Strategy, plan_validated};

use crate::progress;

/// One plan: a file's, or one `memory_plan!` invocation's.
pub struct Planned {
    /// The plan's name: the invocation's module, JSON's `name`, or the file's stem.
    pub title: String,
    /// The problem (regions, buffers); a buffer's index is its index in the plan.
    pub problem: Problem,
    /// The offsets and each region's figures.
    pub plan: Plan,
    /// The offsets are the file's own, not planned by memplan.
    pub given: bool,
    /// The memory id shown for each region: its index, or ExecuTorch's `mem_id` for a
    /// file's own offsets.
    pub ids: Vec<u64>,
    /// The bytes of the file's own plan, when memplan planned a file that has offsets
    /// (ExecuTorch's own plan, a placed CSV): the largest offset + size; for a `.pte`
    /// program, the buffers it asks the runtime for (`non_const_buffer_sizes`).
    pub file_bytes: Option<u64>,
    /// The buffers of each region, computed once (see [`Planned::in_region`]).
    pub by_region: std::cell::OnceCell<Vec<Vec<usize>>>,
    /// Each buffer's element type, where it is a primitive (`None`: bytes, or a user
    /// type); empty when no buffer has one known.
    pub elements: Vec<Option<Primitive>>,
    /// The manager's bump pools (`constant`, `runtime`, `temp`), for a plan that has them
    /// (a `memory_plan!` invocation's); empty for a plan file's.
    pub pools: Vec<Pool>,
}

/// One of the manager's bump pools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// `constant`, `runtime` or `temp`.
    pub name: String,
    /// Its size, in bytes.
    pub bytes: u64,
    /// The alignment of its base, in bytes.
    pub align: u64,
    /// The MEMORY region it is placed in (`memory M`); `None`: `.bss`.
    pub memory: Option<String>,
}

impl Planned {
    /// The element type of buffer `i`, where it is a primitive.
    pub fn element(&self, i: usize) -> Option<Primitive> {
        self.elements.get(i).copied().flatten()
    }

    /// Whether region `r`'s capacity is unbounded (a file's default region).
    pub fn unbounded(&self, r: usize) -> bool {
        self.problem.regions[r].capacity >= UNBOUNDED
    }

    /// The indices of the buffers in region `r`, in order (every region's found in one
    /// pass over the buffers, the first time).
    pub fn in_region(&self, r: usize) -> Vec<usize> {
        let all = self.by_region.get_or_init(|| {
            let mut out = vec![Vec::new(); self.problem.regions.len()];
            for (i, placed) in self.plan.buffers.iter().enumerate() {
                if let Some(m) = out.get_mut(placed.region) {
                    m.push(i);
                }
            }
            out
        });
        all.get(r).cloned().unwrap_or_default()
    }
}

/// The bump pools of the checked invocation `checked`.
pub fn pools(checked: &memplan_lang::Checked) -> Vec<Pool> {
    checked
        .pools()
        .into_iter()
        .map(|p| Pool {
            name: p.name,
            bytes: p.bytes,
            align: p.align,
            memory: p.memory,
        })
        .collect()
}

/// Names buffers of a plan file with their file and line: `` `x` (m.csv:5) ``.
pub struct FileNames<'a>(pub &'a PlanFile);

impl Names for FileNames<'_> {
    fn buffer(&self, problem: &Problem, i: usize) -> String {
        let name = &problem.buffers[i].name;
        match self.0.buffers.get(i) {
            Some(b) => format!("`{name}` ({})", b.place(&self.0.file)),
            None => format!("`{name}`"),
        }
    }
}

/// Plans `problem` with `strategy` and validates the plan, with a spinner (if `show`)
/// while it takes long; on failure, every error in the planner's words (buffers named by
/// `names`).
pub fn plan(
    title: &str,
    problem: &Problem,
    strategy: Strategy,
    names: &dyn Names,
    show: bool,
) -> Result<Plan, Vec<String>> {
    let label = format!(
        "planning `{title}` ({}, {strategy})",
        crate::words::count(problem.buffers.len(), "buffer")
    );
    match progress::spin(&label, show, || plan_validated(problem, strategy)) {
        Ok(plan) => Ok(plan),
        Err(Failure::Errors(errors)) => Err(errors
            .iter()
            .map(|e| e.display_with(problem, names).to_string())
            .collect()),
        Err(internal) => Err(vec![format!(
            "internal error: {internal}; please report it with the file"
        )]),
    }
}
