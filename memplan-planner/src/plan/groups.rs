//! In-place groups: a root buffer and every buffer in place of it, sharing the root's
//! offset; and the in-place rules they must keep.

use crate::error::PlanError;
use crate::instance::Piece;
use crate::problem::{Lifetime, Placement, Problem};

/// An in-place group: a root buffer and every buffer in place of it (transitively), all at
/// the root's offset. At each step the group holds the bytes of the member live there (at a
/// handover, the larger of the two), and between its members none: its `pieces`.
pub(crate) struct Group {
    pub(crate) root: usize,
    pub(crate) members: Vec<usize>,
    /// The region a member names (`In`), or `Anywhere` when none does.
    pub(crate) placement: Placement,
    pub(crate) size: u64,
    /// The strictest alignment its members ask for themselves (explicit, or a floor): 1
    /// when none does.
    pub(crate) own_align: u64,
    /// Whether a member takes its region's alignment (has no explicit one).
    pub(crate) takes_region_align: bool,
    /// The hull of its members' lifetimes.
    pub(crate) lifetime: Lifetime,
    /// What it holds over time: the runs of steps with the same bytes, in time order (one
    /// piece, `size` over `lifetime`, for a group that holds the root's bytes throughout).
    pub(crate) pieces: Vec<Piece>,
}

impl Group {
    /// The group's alignment in region `r`: the strictest of its members there.
    pub(crate) fn align_in(&self, problem: &Problem, r: usize) -> u64 {
        let region = if self.takes_region_align {
            problem.regions.get(r).map_or(1, |reg| reg.align)
        } else {
            1
        };
        self.own_align.max(region).max(1)
    }
}

/// Resolves in-place links into groups, checking the in-place rules.
///
/// Linear in the buffers, plus `O(m log m)` per group of `m` members for the sibling check
/// (and the pairs it reports).
pub(super) fn build(problem: &Problem, errors: &mut Vec<PlanError>) -> Vec<Group> {
    let n = problem.buffers.len();
    let root = roots(problem);
    for (i, &r) in root.iter().enumerate() {
        if r == usize::MAX {
            errors.push(PlanError::InPlaceCycle { buffer: i });
        }
    }
    for (i, b) in problem.buffers.iter().enumerate() {
        let Some(src) = b.in_place_of else { continue };
        if root[i] == usize::MAX {
            continue;
        }
        let s = &problem.buffers[src];
        if b.size > s.size {
            errors.push(PlanError::InPlaceLarger {
                buffer: i,
                source: src,
                size: b.size,
                source_size: s.size,
            });
        }
        if s.lifetime.last > b.lifetime.first {
            errors.push(PlanError::InPlaceSourceLive {
                buffer: i,
                source: src,
                source_last: s.lifetime.last,
                first: b.lifetime.first,
            });
        }
        if b.pin.is_some() {
            errors.push(PlanError::InPlacePinned { buffer: i });
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of_root = vec![usize::MAX; n];
    for (i, &r) in root.iter().enumerate() {
        if r == usize::MAX {
            continue;
        }
        if group_of_root[r] == usize::MAX {
            group_of_root[r] = groups.len();
            let rb = &problem.buffers[r];
            groups.push(Group {
                root: r,
                members: Vec::new(),
                placement: Placement::Anywhere,
                size: rb.size,
                own_align: 1,
                takes_region_align: false,
                lifetime: rb.lifetime,
                pieces: Vec::new(),
            });
        }
        let g = &mut groups[group_of_root[r]];
        g.members.push(i);
        g.lifetime = g.lifetime.hull(&problem.buffers[i].lifetime);
    }
    for g in &mut groups {
        g.pieces = pieces(problem, &g.members);
    }
    // A group goes where its members say; members that name different regions are an
    // error (the group shares one offset in one region).
    for g in &mut groups {
        for &m in &g.members {
            if let Placement::In(r) = problem.buffers[m].placement {
                match g.placement {
                    Placement::Anywhere => g.placement = Placement::In(r),
                    Placement::In(q) if q != r => errors.push(PlanError::InPlaceRegion {
                        buffer: m,
                        source: problem.buffers[m].in_place_of.unwrap_or(g.root),
                    }),
                    Placement::In(_) => {}
                }
            }
        }
    }
    // Members share the group's bytes: two that are live at a common step must be a chain
    // (one in place of the other, directly or through others), never siblings.
    for g in &groups {
        errors.extend(sibling_overlaps(problem, g));
    }
    // Alignment: the strictest of the members, in whichever region the group is in (a
    // spilled group takes the alignment of the region that takes it: `Group::align_in`).
    for g in &mut groups {
        for &m in &g.members {
            let b = &problem.buffers[m];
            g.own_align = g.own_align.max(b.align.unwrap_or(1)).max(b.min_align);
            g.takes_region_align |= b.align.is_none();
        }
    }
    groups
}

impl Group {
    /// Whether the group holds its `size` bytes over all of its `lifetime` (one piece).
    pub(crate) fn is_rectangle(&self) -> bool {
        matches!(self.pieces[..], [p] if p.lifetime == self.lifetime && p.size == self.size)
    }

    /// The pieces an [`crate::Instance`] needs for the group: none for a rectangle.
    pub(crate) fn instance_pieces(&self) -> Vec<Piece> {
        if self.is_rectangle() {
            Vec::new()
        } else {
            self.pieces.clone()
        }
    }
}

/// What a group of `members` holds over time: at each step the largest of the members
/// live there, runs of equal bytes merged, steps where no member with bytes is live left
/// out. A sweep over the members' starts and ends: `O(m log m)`.
fn pieces(problem: &Problem, members: &[usize]) -> Vec<Piece> {
    use std::collections::BTreeMap;
    let buffers = &problem.buffers;
    // (step, is_start, size): ends (at `last + 1`) before starts at the same step.
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * members.len());
    for &m in members {
        let b = &buffers[m];
        if b.size > 0 {
            events.push((u64::from(b.lifetime.first), true, b.size));
            events.push((u64::from(b.lifetime.last) + 1, false, b.size));
        }
    }
    events.sort_unstable();
    let mut live: BTreeMap<u64, u32> = BTreeMap::new();
    let mut out: Vec<Piece> = Vec::new();
    // The bytes held from `since` on.
    let (mut since, mut held) = (0u64, 0u64);
    let mut k = 0;
    while k < events.len() {
        let step = events[k].0;
        while k < events.len() && events[k].0 == step {
            let (_, start, size) = events[k];
            if start {
                *live.entry(size).or_insert(0) += 1;
            } else if let Some(c) = live.get_mut(&size) {
                *c -= 1;
                if *c == 0 {
                    live.remove(&size);
                }
            }
            k += 1;
        }
        let now = live.last_key_value().map_or(0, |(&s, _)| s);
        if now != held {
            if held > 0 {
                out.push(Piece {
                    lifetime: Lifetime {
                        first: since as u32,
                        last: (step - 1) as u32,
                    },
                    size: held,
                });
            }
            since = step;
            held = now;
        }
    }
    out
}

/// The root of every buffer's `in place of` chain, or `usize::MAX` for a buffer whose chain
/// runs into a cycle or names a missing buffer. Each buffer is walked once: a walk stops at
/// the first buffer already resolved and resolves every buffer it passed.
fn roots(problem: &Problem) -> Vec<usize> {
    const UNKNOWN: usize = usize::MAX - 1;
    const BAD: usize = usize::MAX;
    let n = problem.buffers.len();
    let mut root = vec![UNKNOWN; n];
    // Buffers of the walk in progress are marked `n + start` (never a valid root).
    let mut path: Vec<usize> = Vec::new();
    for start in 0..n {
        if root[start] != UNKNOWN {
            continue;
        }
        path.clear();
        let mut cur = start;
        let found = loop {
            if root[cur] == n + start {
                break BAD; // back on this walk: a cycle
            }
            if root[cur] != UNKNOWN {
                break root[cur];
            }
            root[cur] = n + start;
            path.push(cur);
            match problem.buffers[cur].in_place_of {
                None => break cur,
                Some(src) if src >= n => break BAD,
                Some(src) => cur = src,
            }
        };
        for &b in &path {
            root[b] = found;
        }
    }
    root
}

/// Every pair of members of `g` live at a common step where neither is in place of the
/// other (directly or through others), as [`PlanError::InPlaceOverlap`], ordered by the
/// pair's lower index, then its higher one.
///
/// A sweep by first step over the members, keeping those still live; each new member is
/// paired with the live ones outside its own line of descent, found directly by their
/// depth-first numbers in the group's tree (a member's descendants are numbered between
/// its entry and exit, its ancestors enclose them): `O(m log m)` for `m` members, plus the
/// pairs reported.
fn sibling_overlaps(problem: &Problem, g: &Group) -> Vec<PlanError> {
    use std::collections::{BTreeSet, BinaryHeap};
    let buffers = &problem.buffers;
    let (enter, exit) = tour(problem, g);
    let mut by_first: Vec<usize> = (0..g.members.len()).collect();
    by_first.sort_by_key(|&k| (buffers[g.members[k]].lifetime.first, g.members[k]));
    let mut by_last: BinaryHeap<std::cmp::Reverse<(u32, usize)>> = BinaryHeap::new();
    let (mut by_enter, mut by_exit) = (BTreeSet::new(), BTreeSet::new());
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for &k in &by_first {
        let first = buffers[g.members[k]].lifetime.first;
        while let Some(&std::cmp::Reverse((last, j))) = by_last.peek() {
            if last >= first {
                break;
            }
            by_last.pop();
            by_enter.remove(&(enter[j], j));
            by_exit.remove(&(exit[j], j));
        }
        // Live members that closed before `k` opened, or opened after it closed: neither
        // its ancestors nor its descendants.
        let before = by_exit.range(..(enter[k], 0)).map(|&(_, j)| j);
        let after = by_enter.range((exit[k], usize::MAX)..).map(|&(_, j)| j);
        for j in before.chain(after) {
            let (a, b) = (g.members[j], g.members[k]);
            pairs.push((a.min(b), a.max(b)));
        }
        by_last.push(std::cmp::Reverse((buffers[g.members[k]].lifetime.last, k)));
        by_enter.insert((enter[k], k));
        by_exit.insert((exit[k], k));
    }
    pairs.sort_unstable();
    pairs
        .into_iter()
        .map(|(a, b)| {
            let (la, lb) = (buffers[a].lifetime, buffers[b].lifetime);
            PlanError::InPlaceOverlap {
                a,
                b,
                steps: (la.first.max(lb.first), la.last.min(lb.last)),
            }
        })
        .collect()
}

/// Depth-first entry and exit numbers of the members of `g` (by their position in
/// `g.members`) in the tree of `in place of` links under the group's root: `a` is in place
/// of `b`, directly or through others, exactly when `enter[b] < enter[a]` and
/// `exit[a] < exit[b]`.
fn tour(problem: &Problem, g: &Group) -> (Vec<u32>, Vec<u32>) {
    let m = g.members.len();
    let position: std::collections::HashMap<usize, usize> =
        g.members.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); m];
    let mut root = 0;
    for (k, &b) in g.members.iter().enumerate() {
        match problem.buffers[b]
            .in_place_of
            .and_then(|s| position.get(&s))
        {
            Some(&parent) => children[parent].push(k),
            None => root = k,
        }
    }
    let (mut enter, mut exit) = (vec![0u32; m], vec![0u32; m]);
    let mut clock = 0u32;
    let mut stack = vec![(root, 0usize)];
    enter[root] = clock;
    while let Some(top) = stack.last_mut() {
        let (node, next) = *top;
        if let Some(&child) = children[node].get(next) {
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
    (enter, exit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Buffer, Region};
    use proptest::prelude::*;

    /// The quadratic resolution this module replaced: each chain walked from every buffer,
    /// every pair of members checked, ancestors found by walking up: the reference.
    fn build_by_walks(problem: &Problem) -> (Vec<(usize, Vec<usize>)>, Vec<PlanError>) {
        let n = problem.buffers.len();
        let mut errors = Vec::new();
        let mut root = vec![usize::MAX; n];
        for (i, root_i) in root.iter_mut().enumerate() {
            let (mut cur, mut hops, mut ok) = (i, 0, true);
            while let Some(src) = problem.buffers[cur].in_place_of {
                if src >= n || hops > n {
                    ok = false;
                    break;
                }
                cur = src;
                hops += 1;
            }
            if ok {
                *root_i = cur;
            } else {
                errors.push(PlanError::InPlaceCycle { buffer: i });
            }
        }
        let ancestor = |a: usize, b: usize| {
            let mut cur = b;
            for _ in 0..n {
                match problem.buffers[cur].in_place_of {
                    Some(s) if s == a => return true,
                    Some(s) if s < n => cur = s,
                    _ => return false,
                }
            }
            false
        };
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for (i, &r) in root.iter().enumerate() {
            if r == usize::MAX {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == r) {
                Some(g) => g.1.push(i),
                None => groups.push((r, vec![i])),
            }
        }
        groups.sort_by_key(|g| g.1[0]);
        let mut overlaps = Vec::new();
        for (_, members) in &groups {
            for (x, &a) in members.iter().enumerate() {
                for &b in &members[x + 1..] {
                    let (la, lb) = (problem.buffers[a].lifetime, problem.buffers[b].lifetime);
                    if la.conflicts(&lb) && !ancestor(a, b) && !ancestor(b, a) {
                        overlaps.push(PlanError::InPlaceOverlap {
                            a,
                            b,
                            steps: (la.first.max(lb.first), la.last.min(lb.last)),
                        });
                    }
                }
            }
        }
        (groups, [errors, overlaps].concat())
    }

    /// Up to `n` buffers with random links to any buffer (trees, cycles, and now and then a
    /// link to a buffer that does not exist).
    fn problems(n: usize) -> impl Strategy<Value = Problem> {
        let buffer = (1u64..5, 0u32..10, 0u32..4, 0usize..40, 0u32..10);
        proptest::collection::vec(buffer, 1..n).prop_map(|raw| {
            let len = raw.len();
            Problem {
                regions: vec![Region {
                    name: "r".into(),
                    capacity: 1 << 20,
                    align: 8,
                }],
                buffers: raw
                    .iter()
                    .enumerate()
                    .map(|(i, &(size, first, span, link, kind))| {
                        let b = Buffer::new(format!("b{i}"), size, 0, first, first + span);
                        match kind {
                            // No link.
                            0..=2 => b,
                            // A link to a buffer that does not exist.
                            3 if i % 7 == 0 => b.in_place_of(len + link),
                            // A link to an earlier buffer (a tree), or to any (cycles too).
                            3..=7 if i > 0 => b.in_place_of(link % i),
                            _ => b.in_place_of(link % len),
                        }
                    })
                    .collect(),
            }
        })
    }

    /// The in-place checks of [`build`], without the per-link ones (sizes, lifetimes, pins)
    /// that the reference does not repeat.
    fn structural(errors: Vec<PlanError>) -> Vec<PlanError> {
        errors
            .into_iter()
            .filter(|e| {
                matches!(
                    e,
                    PlanError::InPlaceCycle { .. } | PlanError::InPlaceOverlap { .. }
                )
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn groups_and_overlaps_match_the_walks(problem in problems(40)) {
            let mut errors = Vec::new();
            let groups = build(&problem, &mut errors);
            let (want_groups, want_errors) = build_by_walks(&problem);
            let got: Vec<(usize, Vec<usize>)> =
                groups.iter().map(|g| (g.root, g.members.clone())).collect();
            prop_assert_eq!(got, want_groups);
            prop_assert_eq!(structural(errors), want_errors);
        }
    }

    #[test]
    fn a_long_chain_and_its_siblings() {
        // A chain of 3,000 links, each live [i, i + 1] in place of the one before; buffer
        // 1,000 also has a sibling live at its own steps.
        let mut buffers: Vec<Buffer> = (0..3000u32)
            .map(|i| {
                let b = Buffer::new(format!("b{i}"), 16, 0, i, i + 1);
                if i == 0 {
                    b
                } else {
                    b.in_place_of(i as usize - 1)
                }
            })
            .collect();
        buffers.push(Buffer::new("twin", 16, 0, 1000, 1001).in_place_of(999));
        let problem = Problem {
            regions: vec![Region {
                name: "r".into(),
                capacity: 1 << 20,
                align: 16,
            }],
            buffers,
        };
        let mut errors = Vec::new();
        let groups = build(&problem, &mut errors);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].members.len(), 3001);
        assert_eq!(
            groups[0].lifetime,
            crate::problem::Lifetime {
                first: 0,
                last: 3000
            }
        );
        // The twin shares steps 1000 and 1001 with buffer 1000 and step 1001 with 1001,
        // neither of them its ancestor; buffer 999 (its source) and 998 are.
        assert_eq!(
            errors,
            vec![
                PlanError::InPlaceOverlap {
                    a: 1000,
                    b: 3000,
                    steps: (1000, 1001)
                },
                PlanError::InPlaceOverlap {
                    a: 1001,
                    b: 3000,
                    steps: (1001, 1001)
                },
            ]
        );
    }
}
