//! An independent check of a plan: no two buffers that are live at the same step share a
//! byte (unless one is in place of the other), every offset is aligned, everything is
//! within capacity, pins are honoured and in-place buffers sit at their source's offset.
//!
//! It does not trust the planner's data structures: it recomputes everything from the
//! problem and the offsets.

use std::fmt;

use crate::plan::Plan;
use crate::problem::{Placement, Problem};

/// The first thing wrong with a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The plan has a different number of buffers or regions than the problem.
    Shape,
    /// A buffer is not in the region it was placed in.
    WrongRegion {
        /// The buffer.
        buffer: usize,
    },
    /// A buffer's offset is not a multiple of its alignment.
    Misaligned {
        /// The buffer.
        buffer: usize,
        /// Its offset.
        offset: u64,
        /// Its alignment.
        align: u64,
    },
    /// A buffer ends past its region's capacity (or past the region's planned bytes).
    OutOfBounds {
        /// The buffer.
        buffer: usize,
        /// Its end, `offset + size` (saturated).
        end: u64,
        /// The limit it passes.
        limit: u64,
    },
    /// A pinned buffer is not at its pin.
    PinMoved {
        /// The buffer.
        buffer: usize,
    },
    /// An in-place buffer is not at its source's offset.
    InPlaceMoved {
        /// The buffer.
        buffer: usize,
    },
    /// Two buffers live at a common step share bytes.
    Overlap {
        /// One buffer.
        a: usize,
        /// The other.
        b: usize,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Shape => write!(
                f,
                "the plan does not match the problem's buffers and regions"
            ),
            Violation::WrongRegion { buffer } => {
                write!(f, "buffer {buffer} is not in its declared region")
            }
            Violation::Misaligned {
                buffer,
                offset,
                align,
            } => {
                write!(
                    f,
                    "buffer {buffer} at offset {offset} is not a multiple of its alignment {align}"
                )
            }
            Violation::OutOfBounds { buffer, end, limit } => {
                write!(
                    f,
                    "buffer {buffer} ends at byte {end}, past the limit {limit}"
                )
            }
            Violation::PinMoved { buffer } => {
                write!(f, "pinned buffer {buffer} is not at its pinned offset")
            }
            Violation::InPlaceMoved { buffer } => {
                write!(f, "in-place buffer {buffer} is not at its source's offset")
            }
            Violation::Overlap { a, b } => write!(
                f,
                "buffers {a} and {b} are live at a common step and share bytes"
            ),
        }
    }
}

impl std::error::Error for Violation {}

/// Checks `plan` against `problem`.
///
/// # Errors
///
/// The first [`Violation`] found.
pub fn validate(problem: &Problem, plan: &Plan) -> Result<(), Violation> {
    if plan.buffers.len() != problem.buffers.len() || plan.regions.len() != problem.regions.len() {
        return Err(Violation::Shape);
    }
    for (i, (b, p)) in problem.buffers.iter().zip(&plan.buffers).enumerate() {
        if p.region >= problem.regions.len() {
            return Err(Violation::WrongRegion { buffer: i });
        }
        if let Placement::In(r) = b.placement
            && r != p.region
        {
            return Err(Violation::WrongRegion { buffer: i });
        }
        let align = problem.effective_align(b, p.region);
        if !p.offset.is_multiple_of(align) {
            return Err(Violation::Misaligned {
                buffer: i,
                offset: p.offset,
                align,
            });
        }
        let end = p.offset.saturating_add(b.size);
        let reg = &plan.regions[p.region];
        let limit = reg.capacity.min(reg.planned_bytes);
        if b.size > 0 && end > limit {
            return Err(Violation::OutOfBounds {
                buffer: i,
                end,
                limit,
            });
        }
        if b.size == 0 && p.offset > reg.capacity {
            return Err(Violation::OutOfBounds {
                buffer: i,
                end,
                limit: reg.capacity,
            });
        }
        if let Some(pin) = b.pin
            && pin != p.offset
        {
            return Err(Violation::PinMoved { buffer: i });
        }
        if let Some(src) = b.in_place_of
            && (plan.buffers[src].offset != p.offset || plan.buffers[src].region != p.region)
        {
            return Err(Violation::InPlaceMoved { buffer: i });
        }
    }
    let chains = Chains::new(problem);
    // Sweep by first step; `active` holds buffers whose lifetime reaches the current step.
    let mut order: Vec<usize> = (0..problem.buffers.len())
        .filter(|&i| problem.buffers[i].size > 0)
        .collect();
    order.sort_by_key(|&i| (problem.buffers[i].lifetime.first, i));
    let mut active: Vec<usize> = Vec::new();
    for &i in &order {
        let bi = &problem.buffers[i];
        active.retain(|&j| problem.buffers[j].lifetime.last >= bi.lifetime.first);
        let (pi, ei) = (
            plan.buffers[i].offset,
            plan.buffers[i].offset.saturating_add(bi.size),
        );
        for &j in &active {
            // Only a buffer and one in place of it (directly or through others) may share bytes.
            if plan.buffers[j].region != plan.buffers[i].region || chains.linked(i, j) {
                continue;
            }
            let (pj, ej) = (
                plan.buffers[j].offset,
                plan.buffers[j]
                    .offset
                    .saturating_add(problem.buffers[j].size),
            );
            if pi < ej && pj < ei {
                let (a, b) = if j < i { (j, i) } else { (i, j) };
                return Err(Violation::Overlap { a, b });
            }
        }
        active.push(i);
    }
    Ok(())
}

/// The `in place of` links as a forest (each buffer's parent is its source), numbered by a
/// depth-first walk so that "one is in place of the other, directly or through others" is
/// two comparisons. Built here from the problem alone, independently of the planner's own
/// in-place groups. Buffers on a cycle (which the planner rejects) are in no tree.
struct Chains {
    /// Depth-first entry and exit numbers; `(0, 0)` for buffers on a cycle.
    enter: Vec<u32>,
    exit: Vec<u32>,
}

impl Chains {
    fn new(problem: &Problem) -> Chains {
        let n = problem.buffers.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, b) in problem.buffers.iter().enumerate() {
            match b.in_place_of {
                Some(s) if s < n => children[s].push(i),
                _ => roots.push(i),
            }
        }
        let (mut enter, mut exit) = (vec![0u32; n], vec![0u32; n]);
        let mut clock = 0u32;
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in roots {
            clock += 1;
            enter[root] = clock;
            stack.push((root, 0));
            while let Some(top) = stack.last_mut() {
                let (node, k) = *top;
                if let Some(&child) = children[node].get(k) {
                    top.1 += 1;
                    clock += 1;
                    enter[child] = clock;
                    stack.push((child, 0));
                } else {
                    clock += 1;
                    exit[node] = clock;
                    stack.pop();
                }
            }
        }
        Chains { enter, exit }
    }

    /// Whether `a` is `b`'s ancestor in the forest.
    fn ancestor(&self, a: usize, b: usize) -> bool {
        self.enter[a] != 0
            && self.enter[b] != 0
            && self.enter[a] < self.enter[b]
            && self.exit[b] < self.exit[a]
    }

    /// Whether one of `a` and `b` is in place of the other, directly or through others.
    fn linked(&self, a: usize, b: usize) -> bool {
        self.ancestor(a, b) || self.ancestor(b, a)
    }
}
