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

impl Violation {
    /// The violation in a user's words: the buffers of `problem` it concerns by name, with
    /// their bytes in `plan` and their lifetimes (for a plan written by hand, or a lock
    /// file edited, where a buffer's index means nothing).
    pub fn describe(&self, problem: &Problem, plan: &Plan) -> String {
        let name = |i: usize| problem.buffers.get(i).map_or("?", |b| b.name.as_str());
        let bytes = |i: usize| match (problem.buffers.get(i), plan.buffers.get(i)) {
            (Some(b), Some(p)) => match p.offset.checked_add(b.size) {
                Some(end) => format!("bytes {}..{end}", p.offset),
                None => format!("{} bytes at offset {}", b.size, p.offset),
            },
            _ => String::new(),
        };
        let live = |i: usize| {
            problem.buffers.get(i).map_or(String::new(), |b| {
                format!("live {}..={}", b.lifetime.first, b.lifetime.last)
            })
        };
        match *self {
            Violation::Shape => self.to_string(),
            Violation::WrongRegion { buffer } => {
                format!("buffer `{}` is not in its declared region", name(buffer))
            }
            Violation::Misaligned {
                buffer,
                offset,
                align,
            } => format!(
                "buffer `{}` at offset {offset} is not a multiple of its alignment {align}",
                name(buffer)
            ),
            Violation::OutOfBounds { buffer, end, limit } => {
                // `end` saturates: an end past 2^64 - 1 is said so.
                let overflows = match (problem.buffers.get(buffer), plan.buffers.get(buffer)) {
                    (Some(b), Some(p)) => p.offset.checked_add(b.size).is_none(),
                    _ => false,
                };
                let ends = if overflows {
                    "ends past 2^64 - 1 bytes".to_string()
                } else {
                    format!("ends at byte {end}")
                };
                format!(
                    "buffer `{}` ({}) {ends}, past the limit {limit}",
                    name(buffer),
                    bytes(buffer)
                )
            }
            Violation::PinMoved { buffer } => {
                format!(
                    "pinned buffer `{}` is not at its pinned offset",
                    name(buffer)
                )
            }
            Violation::InPlaceMoved { buffer } => format!(
                "in-place buffer `{}` is not at its source's offset",
                name(buffer)
            ),
            Violation::Overlap { a, b } => {
                let (la, lb) = (problem.buffers.get(a), problem.buffers.get(b));
                let (pa, pb) = (plan.buffers.get(a), plan.buffers.get(b));
                let shared = match (la, lb, pa, pb) {
                    (Some(x), Some(y), Some(px), Some(py)) => format!(
                        ": bytes {}..{} at steps {}..={}",
                        px.offset.max(py.offset),
                        px.offset
                            .saturating_add(x.size)
                            .min(py.offset.saturating_add(y.size)),
                        x.lifetime.first.max(y.lifetime.first),
                        x.lifetime.last.min(y.lifetime.last)
                    ),
                    _ => String::new(),
                };
                format!(
                    "buffers `{}` ({}, {}) and `{}` ({}, {}) share bytes at a common step{shared}",
                    name(a),
                    bytes(a),
                    live(a),
                    name(b),
                    bytes(b),
                    live(b)
                )
            }
        }
    }
}

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
        // Every buffer, zero-size ones included, inside the planned bytes: the bound the
        // runtime checks an offset against (`get_offset_address`).
        let end = p.offset.saturating_add(b.size);
        let reg = &plan.regions[p.region];
        let limit = reg.capacity.min(reg.planned_bytes);
        if end > limit {
            return Err(Violation::OutOfBounds {
                buffer: i,
                end,
                limit,
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
    match first_overlap(problem, plan) {
        Some((a, b)) => Err(Violation::Overlap { a, b }),
        None => Ok(()),
    }
}

/// The first two buffers live at a common step that share bytes without one being in place
/// of the other, as a sweep by first step finds them: the first buffer `i` (in order of
/// first step, then index) that overlaps a buffer `j` still live at `i`'s first step, with
/// the first such `j` in the same order; `(min, max)` of the two.
///
/// Every offset check has passed, so the buffers linked by `in place of` (a tree of the
/// forest [`Chains`], or a cycle) all sit at one offset in one region. The sweep keeps, per
/// region, the live bytes as an ordered map of disjoint extents, one per live tree (its
/// offset, up to its largest live member's end), and per tree its live members; a new
/// buffer is checked against the extents just below and above its offset (another tree's
/// bytes) and against its tree's deepest live member (two members of a tree may share
/// bytes only if one is in place of the other, so the live members of a tree are one
/// chain, and the new one must be above or below its deepest). `O(n log n)`. Once a
/// buffer is found to overlap something, the pair is named by a pass over the live
/// buffers, in the order of the sweep.
fn first_overlap(problem: &Problem, plan: &Plan) -> Option<(usize, usize)> {
    let buffers = &problem.buffers;
    let chains = Chains::new(problem);
    let mut order: Vec<usize> = (0..buffers.len())
        .filter(|&i| buffers[i].size > 0)
        .collect();
    order.sort_by_key(|&i| (buffers[i].lifetime.first, i));
    let mut live = Live::new(problem, plan, &chains);
    for (pos, &i) in order.iter().enumerate() {
        live.expire(buffers[i].lifetime.first);
        if live.clashes(i) {
            return name_overlap(problem, plan, &chains, &order[..pos], i);
        }
        live.add(i);
    }
    None
}

/// The pair for buffer `i`, which overlaps a live buffer: the first buffer of `before` (the
/// buffers ahead of `i` in the sweep) still live at `i`'s first step that shares bytes with
/// it, in its region, without an `in place of` link.
fn name_overlap(
    problem: &Problem,
    plan: &Plan,
    chains: &Chains,
    before: &[usize],
    i: usize,
) -> Option<(usize, usize)> {
    let bi = &problem.buffers[i];
    let (pi, ei) = extent(problem, plan, i);
    let j = before.iter().copied().find(|&j| {
        let (pj, ej) = extent(problem, plan, j);
        problem.buffers[j].lifetime.last >= bi.lifetime.first
            && plan.buffers[j].region == plan.buffers[i].region
            && !chains.linked(i, j)
            && pi < ej
            && pj < ei
    })?;
    Some((j.min(i), j.max(i)))
}

/// A buffer's bytes `[offset, offset + size)`, the end saturated.
fn extent(problem: &Problem, plan: &Plan, i: usize) -> (u64, u64) {
    let p = plan.buffers[i].offset;
    (p, p.saturating_add(problem.buffers[i].size))
}

/// The buffers live at the sweep's current step (see [`first_overlap`]).
struct Live<'a> {
    problem: &'a Problem,
    plan: &'a Plan,
    chains: &'a Chains,
    /// Live buffers by last step, for expiry: `(last, buffer)`.
    by_last: std::collections::BinaryHeap<std::cmp::Reverse<(u32, usize)>>,
    /// Per region: offset -> (tree, end of its live extent).
    extents: Vec<std::collections::BTreeMap<u64, (usize, u64)>>,
    /// Per tree (by its root): its live members as `(size, buffer)` and as
    /// `(depth-first entry number, buffer)`.
    sizes: Vec<std::collections::BTreeSet<(u64, usize)>>,
    depths: Vec<std::collections::BTreeSet<(u32, usize)>>,
}

impl<'a> Live<'a> {
    fn new(problem: &'a Problem, plan: &'a Plan, chains: &'a Chains) -> Live<'a> {
        let n = problem.buffers.len();
        Live {
            problem,
            plan,
            chains,
            by_last: std::collections::BinaryHeap::new(),
            extents: vec![std::collections::BTreeMap::new(); problem.regions.len()],
            sizes: vec![std::collections::BTreeSet::new(); n],
            depths: vec![std::collections::BTreeSet::new(); n],
        }
    }

    /// Removes the buffers whose last step is before `step`.
    fn expire(&mut self, step: u32) {
        while let Some(&std::cmp::Reverse((last, j))) = self.by_last.peek() {
            if last >= step {
                break;
            }
            self.by_last.pop();
            let t = self.chains.tree[j];
            self.sizes[t].remove(&(self.problem.buffers[j].size, j));
            self.depths[t].remove(&(self.chains.enter[j], j));
            let (offset, region) = (self.plan.buffers[j].offset, self.plan.buffers[j].region);
            match self.sizes[t].last() {
                None => {
                    self.extents[region].remove(&offset);
                }
                Some(&(size, _)) => {
                    if let Some(e) = self.extents[region].get_mut(&offset) {
                        e.1 = offset.saturating_add(size);
                    }
                }
            }
        }
    }

    /// Whether buffer `i` shares bytes with a live buffer it is not linked to.
    fn clashes(&self, i: usize) -> bool {
        let t = self.chains.tree[i];
        let (start, end) = extent(self.problem, self.plan, i);
        let map = &self.extents[self.plan.buffers[i].region];
        // Another tree's extent that starts below `start` and reaches past it.
        if let Some((_, &(_, e))) = map.range(..start).next_back()
            && e > start
        {
            return true;
        }
        // Another tree's extent that starts in `[start, end)`.
        let above = map
            .range(start..)
            .find(|&(&o, &(tree, _))| !(o == start && tree == t));
        if let Some((&o, _)) = above
            && o < end
        {
            return true;
        }
        // A live member of the same tree that is neither above nor below `i`.
        match self.depths[t].last() {
            Some(&(_, deepest)) => !self.chains.linked(i, deepest),
            None => false,
        }
    }

    fn add(&mut self, i: usize) {
        let t = self.chains.tree[i];
        let b = &self.problem.buffers[i];
        self.by_last.push(std::cmp::Reverse((b.lifetime.last, i)));
        self.sizes[t].insert((b.size, i));
        self.depths[t].insert((self.chains.enter[i], i));
        let (offset, end) = extent(self.problem, self.plan, i);
        let e = self.extents[self.plan.buffers[i].region]
            .entry(offset)
            .or_insert((t, end));
        e.1 = e.1.max(end);
    }
}

/// The `in place of` links as a forest (each buffer's parent is its source), numbered by a
/// depth-first walk so that "one is in place of the other, directly or through others" is
/// two comparisons. Built here from the problem alone, independently of the planner's own
/// in-place groups. Buffers on a cycle (which the planner rejects) are in no tree.
struct Chains {
    /// Depth-first entry and exit numbers; `(0, 0)` for buffers on a cycle.
    enter: Vec<u32>,
    exit: Vec<u32>,
    /// The root of each buffer's tree; a buffer on a cycle (or linked to one) is a tree of
    /// its own.
    tree: Vec<usize>,
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
        let mut tree: Vec<usize> = (0..n).collect();
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
                    tree[child] = root;
                    stack.push((child, 0));
                } else {
                    clock += 1;
                    exit[node] = clock;
                    stack.pop();
                }
            }
        }
        Chains { enter, exit, tree }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Placed, RegionPlan};
    use crate::problem::{Buffer, Region};
    use proptest::prelude::*;

    /// The quadratic overlap sweep the ordered maps replaced, with its own linked test (a
    /// walk up the `in place of` links): the reference verdict.
    fn first_overlap_by_scan(problem: &Problem, plan: &Plan) -> Option<(usize, usize)> {
        let buffers = &problem.buffers;
        // Whether `a` is reached from `b` by `in place of` links, with no cycle on the way
        // (a buffer on or behind a cycle is linked to nothing).
        let reaches = |a: usize, b: usize| {
            let mut seen = vec![false; buffers.len()];
            let mut cur = b;
            let mut found = false;
            loop {
                if seen[cur] {
                    return false;
                }
                seen[cur] = true;
                match buffers[cur].in_place_of {
                    Some(s) if s < buffers.len() => {
                        found |= s == a;
                        cur = s;
                    }
                    _ => return found,
                }
            }
        };
        let mut order: Vec<usize> = (0..buffers.len())
            .filter(|&i| buffers[i].size > 0)
            .collect();
        order.sort_by_key(|&i| (buffers[i].lifetime.first, i));
        let mut active: Vec<usize> = Vec::new();
        for &i in &order {
            active.retain(|&j| buffers[j].lifetime.last >= buffers[i].lifetime.first);
            let (pi, ei) = (
                plan.buffers[i].offset,
                plan.buffers[i].offset.saturating_add(buffers[i].size),
            );
            for &j in &active {
                if plan.buffers[j].region != plan.buffers[i].region
                    || reaches(i, j)
                    || reaches(j, i)
                {
                    continue;
                }
                let (pj, ej) = (
                    plan.buffers[j].offset,
                    plan.buffers[j].offset.saturating_add(buffers[j].size),
                );
                if pi < ej && pj < ei {
                    return Some((j.min(i), j.max(i)));
                }
            }
            active.push(i);
        }
        None
    }

    /// A problem of up to `n` buffers in two regions, with `in place of` chains, trees and
    /// now and then a cycle, and a plan for it: the planner's when it has one, else every
    /// buffer at offset 0; then corrupted by moving some in-place groups (every member
    /// together, so that the offset checks still pass) and a few single buffers.
    fn problem_and_plan(n: usize) -> impl Strategy<Value = (Problem, Plan)> {
        let buffer = (0u64..6, 0u32..12, 0u32..4, 0u32..4, 0usize..4);
        let moves = proptest::collection::vec((0usize..64, 0u64..8), 0..3);
        (
            proptest::collection::vec(buffer, 1..n),
            moves,
            proptest::bool::weighted(0.1),
        )
            .prop_map(|(raw, moves, cycle)| {
                let mut buffers: Vec<Buffer> = Vec::new();
                for (i, &(size, first, len, link, region)) in raw.iter().enumerate() {
                    let mut b =
                        Buffer::new(format!("b{i}"), size * 4, region % 2, first, first + len);
                    // Mostly a tree: a link to an earlier buffer, that the planner accepts
                    // (no larger, starting where the source ends) unless `len` is 0.
                    if i > 0 && link > 0 {
                        let s = i - 1 - (link as usize - 1) % i;
                        if len > 0 {
                            let src = &buffers[s];
                            b.size = b.size.min(src.size);
                            b.placement = src.placement;
                            b.lifetime.first = src.lifetime.last;
                            b.lifetime.last = src.lifetime.last + len;
                        }
                        b = b.in_place_of(s);
                    }
                    buffers.push(b);
                }
                if cycle && buffers.len() > 2 {
                    buffers[0].in_place_of = Some(buffers.len() - 1);
                }
                let problem = Problem {
                    regions: vec![
                        Region {
                            name: "a".into(),
                            capacity: 1 << 20,
                            align: 4,
                        },
                        Region {
                            name: "b".into(),
                            capacity: 1 << 20,
                            align: 4,
                        },
                    ],
                    buffers,
                };
                let mut plan = match crate::plan(&problem, crate::Strategy::Greedy) {
                    Ok(p) => p,
                    Err(_) => Plan {
                        strategy: crate::Strategy::Greedy,
                        buffers: vec![
                            Placed {
                                region: 0,
                                offset: 0
                            };
                            problem.buffers.len()
                        ],
                        regions: vec![
                            RegionPlan {
                                capacity: 1 << 20,
                                planned_bytes: 1 << 20,
                                lower_bound: 0,
                                peak_step: None,
                                align: 4,
                                proven_optimal: false,
                                search_nodes: 0,
                            };
                            2
                        ],
                    },
                };
                // The root of each buffer's chain (or itself on a cycle).
                let root = |mut i: usize| {
                    for _ in 0..problem.buffers.len() {
                        match problem.buffers[i].in_place_of {
                            Some(s) => i = s,
                            None => return i,
                        }
                    }
                    i
                };
                for (k, (pick, to)) in moves.into_iter().enumerate() {
                    let target = pick % problem.buffers.len();
                    let offset = to * 4;
                    if k % 3 == 2 {
                        plan.buffers[target].offset = offset;
                    } else {
                        let r = root(target);
                        for i in 0..problem.buffers.len() {
                            if root(i) == r {
                                plan.buffers[i].offset = offset;
                            }
                        }
                    }
                }
                (problem, plan)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn overlaps_match_the_quadratic_reference((problem, plan) in problem_and_plan(24)) {
            // The overlap phase runs once every in-place buffer sits at its source's offset
            // (the check before it); the plans that fail that check are not compared.
            let at_source = problem.buffers.iter().zip(&plan.buffers).all(|(b, p)| {
                b.in_place_of.is_none_or(|s| plan.buffers[s] == *p)
            });
            prop_assume!(at_source);
            prop_assert_eq!(first_overlap(&problem, &plan), first_overlap_by_scan(&problem, &plan));
        }
    }

    #[test]
    fn siblings_clash_and_a_chain_does_not() {
        // `b` and `c` both in place of `a`, all at offset 0: `b` and `c` are siblings.
        let mut problem = Problem {
            regions: vec![Region {
                name: "r".into(),
                capacity: 64,
                align: 4,
            }],
            buffers: vec![
                Buffer::new("a", 16, 0, 0, 1),
                Buffer::new("b", 8, 0, 1, 3).in_place_of(0),
                Buffer::new("c", 8, 0, 1, 2).in_place_of(0),
            ],
        };
        let plan = Plan {
            strategy: crate::Strategy::Greedy,
            buffers: vec![
                Placed {
                    region: 0,
                    offset: 0
                };
                3
            ],
            regions: vec![RegionPlan {
                capacity: 64,
                planned_bytes: 16,
                lower_bound: 16,
                peak_step: Some(1),
                align: 4,
                proven_optimal: true,
                search_nodes: 0,
            }],
        };
        assert_eq!(
            validate(&problem, &plan),
            Err(Violation::Overlap { a: 1, b: 2 })
        );
        // `c` in place of `b` instead: one chain a <- b <- c, every pair linked.
        problem.buffers[2].in_place_of = Some(1);
        assert_eq!(validate(&problem, &plan), Ok(()));
    }

    #[test]
    fn a_zero_size_buffer_past_the_planned_bytes_is_out_of_bounds() {
        // `z` takes no bytes, but the runtime checks its offset against the arena's planned
        // bytes (16): at 32 it is out of bounds even though the capacity (64) holds it.
        let problem = Problem {
            regions: vec![Region {
                name: "r".into(),
                capacity: 64,
                align: 16,
            }],
            buffers: vec![Buffer::new("a", 16, 0, 0, 1), Buffer::new("z", 0, 0, 0, 1)],
        };
        let mut plan = Plan {
            strategy: crate::Strategy::Greedy,
            buffers: vec![
                Placed {
                    region: 0,
                    offset: 0,
                },
                Placed {
                    region: 0,
                    offset: 32,
                },
            ],
            regions: vec![RegionPlan {
                capacity: 64,
                planned_bytes: 16,
                lower_bound: 16,
                peak_step: Some(0),
                align: 16,
                proven_optimal: true,
                search_nodes: 0,
            }],
        };
        assert_eq!(
            validate(&problem, &plan),
            Err(Violation::OutOfBounds {
                buffer: 1,
                end: 32,
                limit: 16,
            })
        );
        plan.regions[0].planned_bytes = 32;
        assert_eq!(validate(&problem, &plan), Ok(()));
    }
}
