//! First fit without the conflict graph: each item goes at the lowest offset, a multiple of
//! its alignment, where it overlaps no placed item it shares a step with, found in a few
//! interval unions ([`crate::gaps::Unions`]) instead of a list of every such item.
//!
//! # The time tree
//!
//! Time is compressed to sections ([`crate::timeline`]), and a binary tree is laid over
//! the sections (leaves are sections; a node covers the sections of its leaves). Each item
//! with bytes is *stored* at a few nodes whose sections, together, are exactly its
//! lifetime's: the leaves of its lifetime when it spans at most [`LEAF_SPAN`] sections,
//! else the usual segment-tree cover (at most two nodes per level). A node keeps, as
//! unions of byte intervals:
//!
//! - `own`: the bytes of the placed items stored at it;
//! - `sub`: the bytes of the placed items stored at it or at any node below it.
//!
//! The items that share a step with an item `q` are then exactly those stored at the nodes
//! a walk down from the root finds, stopping at each node `v` that lies inside `q`'s
//! lifetime, or whose every item (placed or not) shares a step with `q`, and taking `v`'s
//! `sub` there; at every other node it passes that overlaps `q`'s lifetime it takes `own`
//! (those items cover the node, so they share a step with `q`) and goes on into the children
//! that overlap it. First fit's offset for `q` is the lowest aligned offset free in every
//! union taken, found by raising a candidate to each union's lowest fit in turn until all
//! agree. It depends only on the placed items that share a step with `q`, so the offsets
//! are those of the scan over every such item, byte for byte.
//!
//! Which unions each item reads and which it is added to depend only on the instance, not
//! on the order: [`FitPlan`] computes them once (by that walk for every item), and every
//! ordering of [`crate::best_of`] reuses them; a node's `own` or `sub` is kept only if some
//! item reads it.
//!
//! # Cost
//!
//! Building the plan: `O(n log n)` for `n` items (each item's walk visits `O(log S)` nodes
//! for `S` sections, more only where it takes `own` sets, and the item is stored at
//! `O(log S)` nodes). Memory: `O(n log S)`.
//!
//! One first-fit pass: per item, `O(u log m)` for the `u` unions it reads (at most about
//! `4 log2 S`, usually a handful) and `O(t log m)` to insert it into the `t` unions it is
//! added to, where `m` is the number of intervals in a union, plus the rounds in which the
//! unions disagree. A round moves the candidate past a gap that one union has free and
//! another one fills. Lifetimes that all overlap (every item live at one step, nested
//! lifetimes) read one union and need no extra round; few long sections (thousands of items
//! over a handful of steps) store items at the leaves, so the unions read are complete for
//! their time range and rounds stay few. The worst case is many long lifetimes that overlap
//! in a staggered way (`[i, i + n/2]`): unions of items stored high in the tree then
//! interleave with the others in bytes and the rounds grow with the number of items live
//! at once, as the scan over every neighbour does; no shape costs memory quadratic in `n`.

use crate::gaps::Unions;
use crate::instance::{Instance, Item, Layout, SizeOverflow};
use crate::timeline::Timeline;

/// Items that span at most this many sections are stored at the leaves of their lifetime,
/// so that the unions of a few long sections are complete for their time range.
pub(crate) const LEAF_SPAN: u32 = 8;

/// Which unions each item reads and is added to (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct FitPlan {
    /// `reads[read_start[i]..read_start[i + 1]]`: the unions item `i` must fit in.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    /// `adds[add_start[i]..add_start[i + 1]]`: the unions item `i` is added to once placed.
    add_start: Vec<u32>,
    adds: Vec<u32>,
    /// The number of unions.
    unions: usize,
    /// For an instance with pieces: the bytes each entry of `reads` and `adds` is about
    /// (its piece's); empty otherwise (every entry is its item's size).
    read_size: Vec<u64>,
    add_size: Vec<u64>,
}

/// The tree over `sections` leaves: heap numbering, node 1 the root, leaves from `leaves`.
struct Tree {
    leaves: usize,
}

impl Tree {
    /// The nodes an item spanning sections `[lo, hi)` is stored at.
    fn storage(&self, (lo, hi): (u32, u32), out: &mut Vec<usize>) {
        out.clear();
        let (lo, hi) = (lo as usize, hi as usize);
        if hi - lo <= LEAF_SPAN as usize {
            out.extend((lo..hi).map(|k| self.leaves + k));
            return;
        }
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
        while l < r {
            if l & 1 == 1 {
                out.push(l);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                out.push(r);
            }
            l >>= 1;
            r >>= 1;
        }
    }
}

/// Per node: which items are stored at it or below it.
struct Contents {
    /// Items stored at the node.
    own: Vec<u32>,
    /// Items stored at the node or below it.
    count: Vec<u32>,
    /// Over those items: the largest first section and the smallest end section.
    max_lo: Vec<u32>,
    min_hi: Vec<u32>,
}

impl Contents {
    fn new(tree: &Tree, timeline: &Timeline, sizes: &[u64]) -> Contents {
        let nodes = 2 * tree.leaves;
        let mut c = Contents {
            own: vec![0; nodes],
            count: vec![0; nodes],
            max_lo: vec![0; nodes],
            min_hi: vec![u32::MAX; nodes],
        };
        let mut stamp = vec![u32::MAX; nodes];
        let mut at = Vec::new();
        for (i, &span) in timeline.span.iter().enumerate() {
            if sizes[i] == 0 {
                continue;
            }
            tree.storage(span, &mut at);
            for &d in &at {
                c.own[d] += 1;
                let mut v = d;
                while v >= 1 && stamp[v] != i as u32 {
                    stamp[v] = i as u32;
                    c.count[v] += 1;
                    c.max_lo[v] = c.max_lo[v].max(span.0);
                    c.min_hi[v] = c.min_hi[v].min(span.1);
                    v >>= 1;
                }
            }
        }
        c
    }
}

/// What a walk for one item takes at a node.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Take {
    Own(usize),
    Sub(usize),
}

/// The walk down from the root for an item spanning sections `[lo, hi)`: the unions it
/// reads (see the module documentation).
fn walk(
    tree: &Tree,
    c: &Contents,
    (lo, hi): (u32, u32),
    stack: &mut Vec<(usize, u32, u32)>,
    out: &mut Vec<Take>,
) {
    out.clear();
    stack.clear();
    stack.push((1, 0, tree.leaves as u32));
    while let Some((v, l, r)) = stack.pop() {
        if r <= lo || hi <= l || c.count[v] == 0 {
            continue;
        }
        if (lo <= l && r <= hi) || (c.max_lo[v] < hi && c.min_hi[v] > lo) {
            out.push(Take::Sub(v));
            continue;
        }
        if c.own[v] > 0 {
            out.push(Take::Own(v));
        }
        let m = l + (r - l) / 2;
        stack.push((2 * v + 1, m, r));
        stack.push((2 * v, l, m));
    }
}

impl FitPlan {
    /// The plan for `instance`, whose timeline is `timeline`. An item with pieces reads and
    /// is added to the unions of each of its pieces, each with the piece's bytes: the plan
    /// of the pieces as items of their own, gathered by item.
    ///
    /// # Panics
    ///
    /// If the instance has more than `u32::MAX` items or unions.
    pub(crate) fn new(instance: &Instance, timeline: &Timeline) -> FitPlan {
        let Some((rects, owner)) = instance.rects() else {
            return FitPlan::of_items(&instance.items, timeline);
        };
        let timeline = Timeline::new(&Instance::new(rects.clone()));
        let per_rect = FitPlan::of_items(&rects, &timeline);
        let n = instance.items.len();
        let mut plan = FitPlan {
            unions: per_rect.unions,
            ..FitPlan::default()
        };
        plan.read_start.push(0);
        plan.add_start.push(0);
        let mut k = 0;
        for i in 0..n {
            while k < rects.len() && owner[k] as usize == i {
                let size = rects[k].size;
                plan.reads.extend_from_slice(per_rect.reads(k));
                plan.read_size
                    .extend(per_rect.reads(k).iter().map(|_| size));
                plan.adds.extend_from_slice(per_rect.adds(k));
                plan.add_size.extend(per_rect.adds(k).iter().map(|_| size));
                k += 1;
            }
            plan.read_start.push(index(plan.reads.len()));
            plan.add_start.push(index(plan.adds.len()));
        }
        plan
    }

    /// The plan for rectangles `items`, whose timeline is `timeline`.
    fn of_items(items: &[Item], timeline: &Timeline) -> FitPlan {
        let n = items.len();
        assert!(u32::try_from(n).is_ok(), "more than u32::MAX items");
        let sizes: Vec<u64> = items.iter().map(|it| it.size).collect();
        let tree = Tree {
            leaves: timeline.sections().max(1).next_power_of_two(),
        };
        let contents = Contents::new(&tree, timeline, &sizes);
        let nodes = 2 * tree.leaves;
        // Every walk, once, to learn which unions are read.
        let (mut read_start, mut walked) = (Vec::with_capacity(n + 1), Vec::new());
        let (mut stack, mut taken) = (Vec::new(), Vec::new());
        let (mut own_read, mut sub_read) = (vec![false; nodes], vec![false; nodes]);
        read_start.push(0);
        for (i, it) in items.iter().enumerate() {
            if it.size > 0 && it.fixed.is_none() {
                walk(&tree, &contents, timeline.span[i], &mut stack, &mut taken);
                for &t in &taken {
                    match t {
                        Take::Own(v) => own_read[v] = true,
                        Take::Sub(v) => sub_read[v] = true,
                    }
                }
                // The fullest union first: it usually decides the offset, and the others
                // then agree at once.
                taken.sort_by_key(|&t| {
                    std::cmp::Reverse(match t {
                        Take::Own(v) => contents.own[v],
                        Take::Sub(v) => contents.count[v],
                    })
                });
                walked.extend_from_slice(&taken);
            }
            read_start.push(index(walked.len()));
        }
        // Unions numbered in time order of their nodes (by first section, the wider node
        // first), so that the unions of one item sit close together in memory.
        let (own_id, sub_id, unions) = number(&tree, &own_read, &sub_read);
        let reads = walked
            .iter()
            .map(|&t| match t {
                Take::Own(v) => own_id[v],
                Take::Sub(v) => sub_id[v],
            })
            .collect();
        // Each item is added to the unions read at its storage nodes (`own`) and at those
        // nodes and every node above them (`sub`).
        let (mut add_start, mut adds) = (Vec::with_capacity(n + 1), Vec::new());
        let mut stamp = vec![u32::MAX; nodes];
        let mut at = Vec::new();
        add_start.push(0);
        for (i, it) in items.iter().enumerate() {
            if it.size > 0 {
                tree.storage(timeline.span[i], &mut at);
                for &d in &at {
                    if own_id[d] != u32::MAX {
                        adds.push(own_id[d]);
                    }
                    let mut v = d;
                    while v >= 1 && stamp[v] != i as u32 {
                        stamp[v] = i as u32;
                        if sub_id[v] != u32::MAX {
                            adds.push(sub_id[v]);
                        }
                        v >>= 1;
                    }
                }
            }
            add_start.push(index(adds.len()));
        }
        FitPlan {
            read_start,
            reads,
            add_start,
            adds,
            unions,
            read_size: Vec::new(),
            add_size: Vec::new(),
        }
    }

    fn reads(&self, i: usize) -> &[u32] {
        &self.reads[self.read_start[i] as usize..self.read_start[i + 1] as usize]
    }

    fn adds(&self, i: usize) -> &[u32] {
        &self.adds[self.add_start[i] as usize..self.add_start[i + 1] as usize]
    }

    /// The bytes of each of `reads(i)`, when the instance has pieces.
    fn read_sizes(&self, i: usize) -> Option<&[u64]> {
        let r = self.read_start[i] as usize..self.read_start[i + 1] as usize;
        (!self.read_size.is_empty()).then(|| &self.read_size[r])
    }

    /// The unions item `i` is added to at `off`, each with the end of the bytes it adds.
    fn adds_at(&self, i: usize, off: u64, size: u64) -> impl Iterator<Item = (usize, u64)> + '_ {
        let r = self.add_start[i] as usize..self.add_start[i + 1] as usize;
        let sizes = (!self.add_size.is_empty()).then(|| &self.add_size[r.clone()]);
        self.adds[r]
            .iter()
            .enumerate()
            .map(move |(k, &u)| (u as usize, off + sizes.map_or(size, |s| s[k])))
    }
}

/// Numbers the unions that are read (`own_read`, `sub_read` per node) in time order of their
/// nodes: by first section, the wider node first, `own` before `sub`. Returns the ids per
/// node (`u32::MAX` where none) and the count.
///
/// # Panics
///
/// With more than `u32::MAX` unions.
fn number(tree: &Tree, own_read: &[bool], sub_read: &[bool]) -> (Vec<u32>, Vec<u32>, usize) {
    let nodes = own_read.len();
    // A node's first section and width: node `v` at depth `d` covers `leaves >> d` sections.
    let key = |v: usize| {
        let depth = v.ilog2();
        let width = tree.leaves >> depth;
        let first = (v - (1 << depth)) * width;
        (first, std::cmp::Reverse(width))
    };
    let mut read: Vec<usize> = (1..nodes).filter(|&v| own_read[v] || sub_read[v]).collect();
    read.sort_unstable_by_key(|&v| key(v));
    let (mut own_id, mut sub_id) = (vec![u32::MAX; nodes], vec![u32::MAX; nodes]);
    let mut count = 0u32;
    for v in read {
        for (is_read, id) in [(own_read[v], &mut own_id[v]), (sub_read[v], &mut sub_id[v])] {
            if is_read {
                *id = count;
                count = count.checked_add(1).expect("fewer than 2^32 unions");
            }
        }
    }
    (own_id, sub_id, count as usize)
}

fn index(len: usize) -> u32 {
    u32::try_from(len).expect("fewer than 2^32 union entries")
}

/// First fit in `order` with the unions of `plan` (built for `instance`), reusing the arena
/// `unions`: the fixed items first, at their offsets; then each other item at the lowest
/// offset, a multiple of its alignment, where it overlaps no placed item whose lifetime it
/// shares a step with. Zero-size items take offset 0.
///
/// `order` must list every item exactly once; fixed items in it are skipped.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64` (a fixed item's, in index
/// order, first; then the first item in `order` whose lowest fit ends past `u64::MAX`).
pub(crate) fn first_fit_planned(
    instance: &Instance,
    plan: &FitPlan,
    order: &[usize],
    unions: &mut Unions,
) -> Result<Layout, SizeOverflow> {
    let items = &instance.items;
    let mut offsets = vec![0u64; items.len()];
    unions.reset(plan.unions);
    for (i, it) in items.iter().enumerate() {
        if let Some(off) = it.fixed {
            offsets[i] = off;
            if it.size > 0 {
                // Every piece ends at or below `off + size`: no sum below overflows.
                off.checked_add(it.size).ok_or(SizeOverflow { item: i })?;
                for (u, end) in plan.adds_at(i, off, it.size) {
                    unions.insert(u, off, end);
                }
            }
        }
    }
    for &i in order {
        let it = &items[i];
        if it.fixed.is_some() || it.size == 0 {
            continue;
        }
        let reads = plan.reads(i);
        let off = lowest_in_all(unions, reads, plan.read_sizes(i), it.size, it.align.max(1));
        off.checked_add(u128::from(it.size))
            .and_then(|e| u64::try_from(e).ok())
            .ok_or(SizeOverflow { item: i })?;
        // `off + size <= u64::MAX`, and every piece ends at or below it.
        let off = off as u64;
        offsets[i] = off;
        for (u, end) in plan.adds_at(i, off, it.size) {
            unions.insert(u, off, end);
        }
    }
    Layout::from_offsets(instance, offsets)
}

/// The lowest offset, a multiple of `align`, where `size` bytes (or, with `sizes`, each
/// union's own bytes: an item's pieces) are free in every union of `reads`: a candidate
/// raised to each union's lowest fit in turn until a whole round leaves it where it is.
fn lowest_in_all(
    unions: &Unions,
    reads: &[u32],
    sizes: Option<&[u64]>,
    size: u64,
    align: u64,
) -> u128 {
    let mut x = 0u128;
    // `settled` unions in a row have left `x` where it is (an empty one always does).
    let (mut k, mut settled) = (0, 0);
    while settled < reads.len() {
        let u = reads[k] as usize;
        if !unions.is_empty(u) {
            let y = unions.fit(u, x, sizes.map_or(size, |s| s[k]), align);
            if y != x {
                x = y;
                settled = 0;
            }
        }
        settled += 1;
        k = (k + 1) % reads.len();
    }
    x
}
