//! An exact search for the fewest bytes, after MiniMalloc (Moffitt, ASPLOS 2023), with a
//! budget counted in search nodes.
//!
//! # The decision search
//!
//! The search answers "is there a layout within `C` bytes?" by a depth-first branch and
//! bound over *canonical* layouts only. Pinned items (`Item::fixed`) are obstacles placed
//! before the search starts; zero-size items take offset 0 and play no part; every other
//! item is *movable*.
//!
//! - **Lower blocks first.** A layout is canonical when no movable item can be moved to a
//!   lower valid offset. Every layout can be made canonical without growing (move items
//!   down while one can move), so searching canonical layouts only loses nothing. In a
//!   canonical layout, take the movable items in order of offset (ties by a fixed
//!   preorder): each sits at the lowest offset, a multiple of its alignment, that is above
//!   every earlier item whose lifetime it shares and clear of the pinned items it shares a
//!   step with. So a node of the search chooses *which* item comes next, never where it
//!   goes: the next item goes at its lowest offset, which may not be below the previous
//!   item's (nor equal to it with a smaller preorder). Candidates are tried in order of
//!   offset, then preorder.
//! - **Dominance.** No item may go at or above the top of another unplaced item's lowest
//!   position: that item would sit below it and could move down.
//! - **Sections.** Time is cut into sections, the steps between two consecutive points
//!   where some item starts or ends; the set of live items is constant inside each. The
//!   unplaced items of a section all go at or above the lowest offset any of them can take,
//!   and at or above the offset of the item just placed, and need their summed sizes above
//!   that: a node where that does not fit under `C` is pruned, as is one where some item's
//!   lowest position no longer fits.
//! - **Cut lines.** When no unplaced item is live across a section boundary, the items on
//!   either side no longer interact: the node splits there and each side is solved on its
//!   own, in time order, each with a canonical order of its own (a failure on one side fails
//!   the node, without trying other layouts of the sides already solved). Each side's items
//!   are ranked afresh, as MiniMalloc's `SubSolve` does: the `T` key of the preorder then
//!   counts only the bytes still unplaced. On MiniMalloc's challenging instances this
//!   re-ranking is what separates a search that finds the optimum in a few thousand nodes
//!   from one that does not find it in a million. The instance is split the same way
//!   before the search starts, and a part whose starting plan already fits in `C` is not
//!   searched at all.
//! - **Symmetries and repeats.** Items identical in lifetime, size and alignment are placed
//!   in preorder only (any layout can swap them). (MiniMalloc's "hatless" pruning, which
//!   skips a node's later candidates when an item that no unplaced item shares a step with
//!   fails, has nothing to skip here: such an item is alone in a part of its own once the
//!   cut lines split the node.) A node's state is its unplaced items with their lowest offsets; states proven
//!   to fail are remembered under a 128-bit key (at most 2^20 per search), and a node that
//!   meets one again, with no more candidates than before, fails at once. A part made by a
//!   split adds a hash of its items to the key, as its preorder depends on them.
//!
//! Each node costs one unit of the budget; when the budget runs out the search stops. A
//! node is a partial layout that passed every check above: one item placed and the
//! result consistent, as MiniMalloc counts its nodes (a placement that fails a check is
//! not a node; a node tries at most its part's items). The result never depends on the
//! machine's speed or load.
//!
//! # The driver
//!
//! [`optimal`] starts from [`crate::best_of::best_of`]'s plan (bytes `U`) and the lower
//! bound `L`: the largest of the most bytes live at one step, the alignment-aware bound
//! ([`crate::instance::aligned_lower_bound`]) and the highest end of a pinned item. If
//! `U = L` it is done. Otherwise it asks the decision question for a sequence of
//! capacities, each with a share of the budget, keeping the best layout found:
//!
//! 1. `C = L`, with half the budget. A layout found there is optimal. A search that ends
//!    without one proves `L` is out of reach, and `L + 1` becomes the proven bound.
//! 2. Then a bisection between the lowest capacity not given up on and the best layout so
//!    far: `C` halfway. A layout found lowers the upper end to its own bytes; a search that
//!    ends without one proves the bound `C + 1`; a search that runs out of its share (a
//!    quarter of what is left, at least one node per item) gives up below `C + 1` without a
//!    proof. It stops when the two ends meet or the budget is spent.
//!
//! The layout is proven optimal when its bytes equal the proven bound.
//!
//! Each decision search runs the preorders of [`PREORDERS`] in turn, with a node limit per
//! run that starts at twice the number of items and doubles after each round (as MiniMalloc
//! does): some instances are easy under one preorder and hard under another.
//!
//! # Determinism
//!
//! Everything above is a function of the instance and the budget alone: candidates are
//! tried in a total order (offset, then a preorder that ends on the item index), the
//! remembered states are looked up, never iterated, and no decision looks at the clock.
//!
//! # Cost
//!
//! A node costs about `O(n + k·(d + s·l))` for `n` items in its part, `k` candidates tried
//! before one passes the checks, `d` items sharing a step with a placed one, and `s`
//! sections touched of at most `l` live items each, plus `O(n log n)` when it splits: 5 to
//! 25 µs on the 170- to 409-item MiniMalloc instances (release build, 10,000 nodes). Memory: `O(n + P + S·L)`
//! plus up to about 48 bytes per remembered failed state.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::best_of::{Timeline, best_of_with};
use crate::greedy::Conflicts;
use crate::instance::{Instance, Layout, SizeOverflow, align_up, aligned_lower_bound, lower_bound};

/// What [`optimal`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptimalOutcome {
    /// The best layout found.
    pub layout: Layout,
    /// Whether `layout.bytes` is proven to be the fewest possible.
    pub proven_optimal: bool,
    /// The best lower bound proven on the bytes, in bytes.
    pub lower_bound: u64,
    /// Search nodes used (at most the budget).
    pub nodes: u64,
}

/// The static preorders the decision search tries in turn, as MiniMalloc names them:
/// `T` = the most bytes live in a section of the item's lifetime (largest first), `W` =
/// lifetime length in steps (longest first), `A` = size times length (largest first). Each
/// ends its tie-break on the item index.
pub const PREORDERS: [&str; 3] = ["TWA", "TAW", "ATW"];

/// A decision search's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// A layout within the capacity was found.
    Found,
    /// The whole search space was explored: there is none.
    Infeasible,
    /// The node budget ran out first.
    OutOfNodes,
}

const UNPLACED: u64 = u64::MAX;

/// The most failed states remembered per decision search.
const MAX_FAILED: usize = 1 << 20;

/// One item at one offset, as a 128-bit Zobrist key: a node's state key is the XOR over
/// its part's unplaced items. Two states that differ get equal keys with a chance of
/// about 2^-128 per pair.
fn zobrist(u: usize, offset: u64) -> u128 {
    fn mix(mut z: u64) -> u64 {
        // SplitMix64's finaliser.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let a = mix((u as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ mix(offset));
    let b = mix(a ^ 0xD1B5_4A32_D192_ED03 ^ offset.rotate_left(17));
    (u128::from(a) << 64) | u128::from(b)
}

/// A hasher for keys that are already uniformly random: it keeps 64 of their bits.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
}

#[derive(Clone, Copy, Debug)]
enum Undo {
    /// An item was placed (its sections' remaining bytes and cut counts were lowered).
    Place(u32),
    /// An item's lowest offset was raised from this value.
    MinOff(u32, u64),
    /// A section's floor changed from this value.
    Floor(u32, u64),
}

/// A set of unplaced items and the sections `[lo, hi)` they live in.
#[derive(Clone, Copy, Debug)]
struct Part {
    items: (usize, usize),
    lo: u32,
    hi: u32,
    /// Tells apart the preorders of parts made by a split (0 for a static part): a hash of
    /// the part's items, which fix the part's preorder.
    salt: u128,
}

#[derive(Clone, Copy, Debug)]
struct SearchFrame {
    part: usize,
    /// The offset and preorder of the last item placed: later items come after it.
    o: u64,
    pre: u32,
    cands: (usize, usize),
    next: usize,
    mark: usize,
    /// The node's state key (see [`Search::candidates`]).
    key: u128,
}

/// Independent parts of a node, solved one after the other; each starts a canonical order
/// of its own.
#[derive(Clone, Copy, Debug)]
struct SplitFrame {
    parts: (usize, usize),
    next: usize,
    /// The length of the rank log when the split was made.
    rank_mark: usize,
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    Search(SearchFrame),
    Split(SplitFrame),
}

/// The search over the movable items with bytes ("locals", numbered `0..m`).
struct Search {
    // Static data.
    /// The instance index of each local.
    item_of: Vec<usize>,
    size: Vec<u64>,
    align: Vec<u64>,
    span: Vec<(u32, u32)>,
    /// Conflicting locals, compressed rows.
    adj_start: Vec<usize>,
    adj: Vec<u32>,
    /// Conflicting pinned items `(offset, end)`, sorted, compressed rows.
    obs_start: Vec<usize>,
    obs: Vec<(u64, u64)>,
    /// Locals live in each section, compressed rows.
    sec_start: Vec<usize>,
    /// Locals live in each section; the first `sec_len[s]` of section `s` are the unplaced
    /// ones (dynamic order).
    sec_items: Vec<u32>,
    /// `pos_start[u] + (s - span[u].0)` indexes `pos`: where local `u` sits in section `s`'s
    /// list.
    pos_start: Vec<usize>,
    pos: Vec<usize>,
    /// Bytes of locals live in each section.
    total: Vec<u64>,
    /// Lifetime length in steps.
    width: Vec<u64>,
    /// Locals crossing each section boundary `k` (between sections `k` and `k + 1`).
    cut0: Vec<u32>,
    /// Each local's lowest offset with nothing placed.
    base_min: Vec<u64>,
    /// The static parts, in time order, and each local's part.
    static_parts: Vec<Part>,
    static_items: Vec<u32>,
    part_of: Vec<u32>,
    /// Lifetime of each local (for telling identical items apart).
    life: Vec<(u32, u32)>,
    // The preorder in use: rank of each local.
    pre: Vec<u32>,
    /// The identical item (same lifetime, size and alignment) just before each local in
    /// the preorder, or `u32::MAX`.
    twin_prev: Vec<u32>,
    // Dynamic state.
    /// Unplaced locals in each section (a prefix of its list in `sec_items`).
    sec_len: Vec<usize>,
    off: Vec<u64>,
    /// `zobrist(u, min_off[u])`, kept up to date.
    zkey: Vec<u128>,
    min_off: Vec<u64>,
    floor: Vec<u64>,
    rem: Vec<u64>,
    cut: Vec<u32>,
    log: Vec<Undo>,
    stamp: Vec<u32>,
    generation: u32,
    affected: Vec<u32>,
    /// Nodes proven to fail: state key -> the lowest `(o, pre)` it failed at.
    failed: HashMap<u128, (u64, u32), BuildHasherDefault<KeyHasher>>,
    /// The key computed by the last call of [`Search::candidates`].
    last_key: u128,
    frames: Vec<Frame>,
    parts: Vec<Part>,
    part_items: Vec<u32>,
    cands: Vec<u32>,
    nodes_left: u64,
    nodes_used: u64,
    /// Ranks replaced by [`Search::rerank`]: `(local, old rank)`.
    rank_log: Vec<(u32, u32)>,
    rank_scratch: Vec<(u32, u64)>,
    /// The keys of the preorder in use (one of [`PREORDERS`]), zero-padded.
    preorder_keys: [u8; 4],
}

impl Search {
    fn new(instance: &Instance, conflicts: &Conflicts) -> Search {
        let items = &instance.items;
        let item_of: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].size > 0 && items[i].fixed.is_none())
            .collect();
        let m = item_of.len();
        let mut local = vec![u32::MAX; items.len()];
        for (u, &i) in item_of.iter().enumerate() {
            local[i] = u as u32;
        }
        let sub = Instance {
            items: item_of.iter().map(|&i| items[i]).collect(),
        };
        let timeline = Timeline::new(&sub);
        let s = timeline.sections();
        let span = timeline.span.clone();
        let size: Vec<u64> = sub.items.iter().map(|it| it.size).collect();
        let align: Vec<u64> = sub.items.iter().map(|it| it.align.max(1)).collect();
        let width: Vec<u64> = sub.items.iter().map(|it| it.lifetime.len()).collect();
        let (mut adj_start, mut adj) = (Vec::with_capacity(m + 1), Vec::new());
        let (mut obs_start, mut obs) = (Vec::with_capacity(m + 1), Vec::new());
        adj_start.push(0);
        obs_start.push(0);
        for &i in &item_of {
            let first_obs = obs.len();
            for &j in conflicts.of(i) {
                let j = j as usize;
                match items[j].fixed {
                    // No overflow: the caller checked every pinned end.
                    Some(f) => obs.push((f, f + items[j].size)),
                    None => adj.push(local[j]),
                }
            }
            obs[first_obs..].sort_unstable();
            adj_start.push(adj.len());
            obs_start.push(obs.len());
        }
        let mut count = vec![0usize; s + 1];
        for &(lo, hi) in &span {
            for k in lo..hi {
                count[k as usize] += 1;
            }
        }
        let mut sec_start = Vec::with_capacity(s + 1);
        let mut acc = 0;
        for c in &count[..s] {
            sec_start.push(acc);
            acc += c;
        }
        sec_start.push(acc);
        let mut fill = sec_start.clone();
        let mut sec_items = vec![0u32; acc];
        for (u, &(lo, hi)) in span.iter().enumerate() {
            for k in lo..hi {
                sec_items[fill[k as usize]] = u as u32;
                fill[k as usize] += 1;
            }
        }
        let mut pos_start = Vec::with_capacity(m + 1);
        let mut pos = Vec::new();
        for &(lo, hi) in &span {
            pos_start.push(pos.len());
            pos.extend((lo..hi).map(|_| 0usize));
        }
        pos_start.push(pos.len());
        for s in 0..s {
            for (k, &u) in sec_items[sec_start[s]..sec_start[s + 1]].iter().enumerate() {
                let u = u as usize;
                pos[pos_start[u] + (s - span[u].0 as usize)] = sec_start[s] + k;
            }
        }
        let total = timeline.live_bytes(&sub);
        let mut cut0 = vec![0u32; s.saturating_sub(1)];
        for &(lo, hi) in &span {
            for k in lo..hi.saturating_sub(1) {
                cut0[k as usize] += 1;
            }
        }
        let (part_of, nparts) = timeline.parts();
        let mut static_parts: Vec<Part> = Vec::new();
        let mut static_items: Vec<u32> = Vec::with_capacity(m);
        let mut by_part: Vec<Vec<u32>> = vec![Vec::new(); nparts];
        for u in 0..m {
            by_part[part_of[u] as usize].push(u as u32);
        }
        for list in by_part.into_iter().filter(|l| !l.is_empty()) {
            let lo = list.iter().map(|&u| span[u as usize].0).min().unwrap_or(0);
            let hi = list.iter().map(|&u| span[u as usize].1).max().unwrap_or(0);
            let start = static_items.len();
            static_items.extend_from_slice(&list);
            static_parts.push(Part {
                items: (start, static_items.len()),
                lo,
                hi,
                salt: 0,
            });
        }
        let mut part_of = vec![0u32; m];
        for (p, part) in static_parts.iter().enumerate() {
            for &u in &static_items[part.items.0..part.items.1] {
                part_of[u as usize] = p as u32;
            }
        }
        let mut search = Search {
            item_of,
            size,
            align,
            span,
            adj_start,
            adj,
            obs_start,
            obs,
            sec_start,
            sec_items,
            pos_start,
            pos,
            sec_len: Vec::new(),
            total,
            width,
            cut0,
            base_min: Vec::new(),
            static_parts,
            static_items,
            part_of,
            life: sub
                .items
                .iter()
                .map(|it| (it.lifetime.first, it.lifetime.last))
                .collect(),
            pre: (0..m as u32).collect(),
            twin_prev: vec![u32::MAX; m],
            off: vec![UNPLACED; m],
            zkey: vec![0; m],
            min_off: vec![0; m],
            floor: vec![0; s],
            rem: vec![0; s],
            cut: Vec::new(),
            log: Vec::new(),
            stamp: vec![0; s],
            generation: 0,
            affected: Vec::new(),
            failed: HashMap::default(),
            last_key: 0,
            frames: Vec::new(),
            parts: Vec::new(),
            part_items: Vec::new(),
            cands: Vec::new(),
            nodes_left: 0,
            nodes_used: 0,
            rank_log: Vec::new(),
            rank_scratch: Vec::new(),
            preorder_keys: [0; 4],
        };
        search.base_min = (0..m).map(|u| search.lowest(u, 0)).collect();
        search
    }

    /// The lowest offset at or above `floor`, aligned, where local `u` clears every pinned
    /// item it conflicts with; saturates at `u64::MAX` (never within a capacity).
    fn lowest(&self, u: usize, floor: u64) -> u64 {
        let (size, align) = (self.size[u], self.align[u]);
        let Some(mut x) = align_up(floor, align) else {
            return u64::MAX;
        };
        for &(o, e) in &self.obs[self.obs_start[u]..self.obs_start[u + 1]] {
            if e <= x {
                continue;
            }
            if x.saturating_add(size) <= o {
                break;
            }
            match align_up(e, align) {
                Some(v) => x = v,
                None => return u64::MAX,
            }
        }
        x
    }

    /// Sets the preorder: `keys` as in [`PREORDERS`].
    fn set_preorder(&mut self, keys: &str) {
        self.preorder_keys = [0; 4];
        for (k, c) in keys.bytes().take(4).enumerate() {
            self.preorder_keys[k] = c;
        }
        let m = self.size.len();
        let mut v: Vec<(u32, u64)> = (0..m)
            .map(|u| {
                let (lo, hi) = self.span[u];
                let t = self.total[lo as usize..hi as usize].iter().copied().max();
                (u as u32, t.unwrap_or(0))
            })
            .collect();
        self.sort_by_preorder(&mut v);
        for (rank, &(u, _)) in v.iter().enumerate() {
            self.pre[u as usize] = rank as u32;
        }
        let order: Vec<usize> = v.iter().map(|&(u, _)| u as usize).collect();
        // Identical items can swap places in any layout: only the first unplaced one of a
        // group (in preorder) may be placed next.
        let mut by_key = order.clone();
        by_key.sort_by_key(|&u| (self.life[u], self.size[u], self.align[u], self.pre[u]));
        self.twin_prev.iter_mut().for_each(|t| *t = u32::MAX);
        for w in by_key.windows(2) {
            let (a, b) = (w[0], w[1]);
            if (self.life[a], self.size[a], self.align[a])
                == (self.life[b], self.size[b], self.align[b])
            {
                self.twin_prev[b] = a as u32;
            }
        }
    }

    fn reset(&mut self) {
        self.off.iter_mut().for_each(|o| *o = UNPLACED);
        self.min_off.clone_from(&self.base_min);
        self.zkey = self
            .min_off
            .iter()
            .enumerate()
            .map(|(u, &m)| zobrist(u, m))
            .collect();
        self.rem.clone_from(&self.total);
        self.cut.clone_from(&self.cut0);
        self.sec_len = self.sec_start.windows(2).map(|w| w[1] - w[0]).collect();
        for s in 0..self.rem.len() {
            self.floor[s] = self.section_floor(s);
        }
        self.log.clear();
        self.rank_log.clear();
        self.frames.clear();
        self.parts.clear();
        self.part_items.clear();
        self.cands.clear();
    }

    /// The lowest offset any unplaced local of section `s` can take (`u64::MAX` if none).
    fn section_floor(&self, s: usize) -> u64 {
        let start = self.sec_start[s];
        self.sec_items[start..start + self.sec_len[s]]
            .iter()
            .map(|&u| self.min_off[u as usize])
            .min()
            .unwrap_or(u64::MAX)
    }

    /// Moves local `u` out of the unplaced prefix of each of its sections.
    fn remove_from_sections(&mut self, u: usize) {
        let (lo, hi) = self.span[u];
        for s in lo as usize..hi as usize {
            let last = self.sec_start[s] + self.sec_len[s] - 1;
            let at = self.pos[self.pos_start[u] + (s - lo as usize)];
            let w = self.sec_items[last] as usize;
            self.sec_items.swap(at, last);
            self.pos[self.pos_start[w] + (s - self.span[w].0 as usize)] = at;
            self.pos[self.pos_start[u] + (s - lo as usize)] = last;
            self.sec_len[s] -= 1;
        }
    }

    /// Undoes [`Search::remove_from_sections`] (the last removal first).
    fn restore_to_sections(&mut self, u: usize) {
        // `u` sits just past the prefix of each of its sections: growing the prefix by one
        // takes it back in (the order inside the prefix does not matter).
        let (lo, hi) = self.span[u];
        for s in lo as usize..hi as usize {
            self.sec_len[s] += 1;
        }
    }

    fn mark_affected(&mut self, lo: u32, hi: u32) {
        for s in lo..hi {
            if self.stamp[s as usize] != self.generation {
                self.stamp[s as usize] = self.generation;
                self.affected.push(s);
            }
        }
    }

    /// Places local `b` at its lowest offset, updating the state (undoable to the log's
    /// length before the call).
    ///
    /// Returns whether the node lives: `false` when an item it raises no longer fits under
    /// `cap`, or a section it touches can no longer hold its unplaced bytes (the state is
    /// then partly updated: undo it).
    fn place(&mut self, b: usize, cap: u64) -> bool {
        let x = self.min_off[b];
        let top = x.saturating_add(self.size[b]);
        self.off[b] = x;
        self.log.push(Undo::Place(b as u32));
        self.remove_from_sections(b);
        let (lo, hi) = self.span[b];
        for s in lo..hi {
            self.rem[s as usize] -= self.size[b];
        }
        for k in lo..hi.saturating_sub(1) {
            self.cut[k as usize] -= 1;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.iter_mut().for_each(|s| *s = u32::MAX);
        }
        self.affected.clear();
        self.mark_affected(lo, hi);
        for k in self.adj_start[b]..self.adj_start[b + 1] {
            let u = self.adj[k] as usize;
            if self.off[u] != UNPLACED {
                continue;
            }
            let old = self.min_off[u];
            if old < top {
                self.log.push(Undo::MinOff(u as u32, old));
                let m = self.lowest(u, top);
                self.min_off[u] = m;
                self.zkey[u] = zobrist(u, m);
                if m.saturating_add(self.size[u]) > cap {
                    return false;
                }
                // Only sections whose floor was `u`'s old offset can rise; those of `b`
                // are marked already.
                let (ulo, uhi) = self.span[u];
                for s in (ulo..lo.max(ulo)).chain(hi.min(uhi)..uhi) {
                    if self.floor[s as usize] == old && self.stamp[s as usize] != self.generation {
                        self.stamp[s as usize] = self.generation;
                        self.affected.push(s);
                    }
                }
            }
        }
        // Sections whose floor may have risen: those of `b` (it left their unplaced set)
        // and those of every item it raised. The others are unchanged, and were checked
        // when their floor or remaining bytes last changed.
        for a in 0..self.affected.len() {
            let s = self.affected[a] as usize;
            let f = self.section_floor(s);
            if f != self.floor[s] {
                self.log.push(Undo::Floor(s as u32, self.floor[s]));
                self.floor[s] = f;
            }
            if self.rem[s] > 0 && f.saturating_add(self.rem[s]) > cap {
                return false;
            }
        }
        true
    }

    fn undo(&mut self, mark: usize) {
        while self.log.len() > mark {
            match self.log.pop() {
                Some(Undo::Place(b)) => {
                    let b = b as usize;
                    self.off[b] = UNPLACED;
                    self.restore_to_sections(b);
                    let (lo, hi) = self.span[b];
                    for s in lo..hi {
                        self.rem[s as usize] += self.size[b];
                    }
                    for k in lo..hi.saturating_sub(1) {
                        self.cut[k as usize] += 1;
                    }
                }
                Some(Undo::MinOff(u, v)) => {
                    self.min_off[u as usize] = v;
                    self.zkey[u as usize] = zobrist(u as usize, v);
                }
                Some(Undo::Floor(s, v)) => self.floor[s as usize] = v,
                None => {}
            }
        }
    }

    /// Whether every section of `part` can still hold its unplaced bytes under `cap`, with
    /// nothing placed below `o` any more.
    fn check(&self, part: &Part, o: u64, cap: u64) -> bool {
        let (lo, hi) = (part.lo as usize, part.hi as usize);
        self.rem[lo..hi]
            .iter()
            .zip(&self.floor[lo..hi])
            .all(|(&r, &f)| r == 0 || f.max(o).saturating_add(r) <= cap)
    }

    /// Pushes the candidates of a node of `part` after an item at `(o, pre)`; returns
    /// `None` when the part has no unplaced item left (solved), else the candidate range.
    fn candidates(&mut self, part: &Part, o: u64, pre: u32, cap: u64) -> Option<(usize, usize)> {
        let start = self.cands.len();
        let mut min_height = u64::MAX;
        let mut any = false;
        let mut dead = false;
        let mut key = 0u128;
        key ^= part.salt;
        for k in part.items.0..part.items.1 {
            let u = self.part_items[k] as usize;
            if self.off[u] != UNPLACED {
                continue;
            }
            any = true;
            key ^= self.zkey[u];
            let h = self.min_off[u].saturating_add(self.size[u]);
            if h > cap {
                dead = true;
                break;
            }
            min_height = min_height.min(h);
        }
        if !any {
            return None;
        }
        self.last_key = key;
        if !dead && let Some(&at) = self.failed.get(&key) {
            // The same unplaced items at the same lowest offsets failed before with at
            // least these candidates.
            dead = at <= (o, pre);
        }
        // Every later item goes at or above the next one's offset `x`, so each section
        // needs `x` plus its unplaced bytes to fit: `x <= cap - (most bytes unplaced in a
        // section)`. With dominance, `x < min_height`.
        let most = self.rem[part.lo as usize..part.hi as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        if !dead && most <= cap {
            let limit = (cap - most).min(min_height - 1);
            for k in part.items.0..part.items.1 {
                let u = self.part_items[k] as usize;
                if self.off[u] != UNPLACED {
                    continue;
                }
                let m = self.min_off[u];
                let twin = self.twin_prev[u];
                if m <= limit
                    && (m, self.pre[u]) >= (o, pre)
                    && (twin == u32::MAX || self.off[twin as usize] != UNPLACED)
                {
                    self.cands.push(u as u32);
                }
            }
            let (min_off, preorder) = (&self.min_off, &self.pre);
            self.cands[start..]
                .sort_unstable_by_key(|&u| (min_off[u as usize], preorder[u as usize]));
        }
        Some((start, self.cands.len()))
    }

    /// Depth-first search of one part under `cap`.
    fn solve_part(&mut self, root: Part, cap: u64) -> Status {
        self.frames.clear();
        self.parts.clear();
        self.part_items.clear();
        self.cands.clear();
        self.part_items
            .extend_from_slice(&self.static_items[root.items.0..root.items.1]);
        self.parts.push(Part {
            items: (0, self.part_items.len()),
            lo: root.lo,
            hi: root.hi,
            salt: 0,
        });
        let root_part = self.parts[0];
        if !self.check(&root_part, 0, cap) {
            return Status::Infeasible;
        }
        let Some(cands) = self.candidates(&root_part, 0, 0, cap) else {
            return Status::Found;
        };
        let mark = self.log.len();
        self.frames.push(Frame::Search(SearchFrame {
            part: 0,
            o: 0,
            pre: 0,
            cands,
            next: cands.0,
            mark,
            key: self.last_key,
        }));
        let mut ret: Option<Status> = None;
        while let Some(&frame) = self.frames.last() {
            let top = self.frames.len() - 1;
            match frame {
                Frame::Search(mut f) => {
                    match ret.take() {
                        Some(Status::Found) => {
                            self.cands.truncate(f.cands.0);
                            self.frames.pop();
                            ret = Some(Status::Found);
                            continue;
                        }
                        Some(Status::Infeasible) => self.undo(f.mark),
                        Some(Status::OutOfNodes) => return Status::OutOfNodes,
                        None => {}
                    }
                    let part = self.parts[f.part];
                    let mut child: Option<Frame> = None;
                    while f.next < f.cands.1 {
                        let b = self.cands[f.next] as usize;
                        f.next += 1;
                        f.mark = self.log.len();
                        let x = self.min_off[b];
                        if !self.place(b, cap) {
                            self.undo(f.mark);
                            continue;
                        }
                        // A node: a partial layout that passed every check.
                        if self.nodes_left == 0 {
                            return Status::OutOfNodes;
                        }
                        self.nodes_left -= 1;
                        self.nodes_used += 1;
                        match self.child(&part, f.part, b, x, cap) {
                            Some(c) => {
                                child = Some(c);
                                break;
                            }
                            None => {
                                // The part is solved.
                                ret = Some(Status::Found);
                                break;
                            }
                        }
                    }
                    self.frames[top] = Frame::Search(f);
                    if ret.is_some() {
                        continue;
                    }
                    match child {
                        Some(Frame::Search(c)) if c.cands.0 == c.cands.1 => {
                            // A child with no candidates fails at once.
                            self.cands.truncate(c.cands.0);
                            ret = Some(Status::Infeasible);
                        }
                        Some(c) => self.frames.push(c),
                        None => {
                            self.cands.truncate(f.cands.0);
                            self.frames.pop();
                            self.remember_failure(f.key, (f.o, f.pre));
                            ret = Some(Status::Infeasible);
                        }
                    }
                }
                Frame::Split(mut sp) => {
                    match ret.take() {
                        None | Some(Status::Found) => {}
                        Some(Status::Infeasible) => {
                            self.pop_split(&sp);
                            ret = Some(Status::Infeasible);
                            continue;
                        }
                        Some(Status::OutOfNodes) => return Status::OutOfNodes,
                    }
                    if sp.next == sp.parts.1 {
                        self.pop_split(&sp);
                        ret = Some(Status::Found);
                        continue;
                    }
                    let p = sp.next;
                    sp.next += 1;
                    self.frames[top] = Frame::Split(sp);
                    let part = self.parts[p];
                    self.rerank(&part);
                    match self.candidates(&part, 0, 0, cap) {
                        None => ret = Some(Status::Found),
                        Some(c) if c.0 == c.1 => ret = Some(Status::Infeasible),
                        Some(cands) => {
                            let mark = self.log.len();
                            self.frames.push(Frame::Search(SearchFrame {
                                part: p,
                                o: 0,
                                pre: 0,
                                cands,
                                next: cands.0,
                                mark,
                                key: self.last_key,
                            }));
                        }
                    }
                }
            }
        }
        ret.unwrap_or(Status::Infeasible)
    }

    /// Sorts `(local, T)` pairs by the preorder in use ([`PREORDERS`]): each key largest
    /// first, then the local index.
    fn sort_by_preorder(&self, v: &mut [(u32, u64)]) {
        let keys = self.preorder_keys;
        let key = |u: usize, t: u64, c: u8| -> u128 {
            match c {
                b'T' => u128::from(t),
                b'W' => u128::from(self.width[u]),
                b'A' => u128::from(self.size[u]) * u128::from(self.width[u]),
                _ => u128::from(self.size[u]),
            }
        };
        v.sort_unstable_by(|&(a, ta), &(b, tb)| {
            for &c in keys.iter().take_while(|&&c| c != 0) {
                let o = key(b as usize, tb, c).cmp(&key(a as usize, ta, c));
                if o.is_ne() {
                    return o;
                }
            }
            a.cmp(&b)
        });
    }

    /// Ranks the items of a part made by a split afresh, as MiniMalloc does: `T` is now
    /// the most bytes *still unplaced* in a section of the item's lifetime. The old ranks
    /// go to the rank log, restored when the split is popped.
    fn rerank(&mut self, part: &Part) {
        let mut v = std::mem::take(&mut self.rank_scratch);
        v.clear();
        for k in part.items.0..part.items.1 {
            let u = self.part_items[k] as usize;
            let (lo, hi) = self.span[u];
            let t = self.rem[lo as usize..hi as usize].iter().copied().max();
            v.push((u as u32, t.unwrap_or(0)));
        }
        self.sort_by_preorder(&mut v);
        for (rank, &(u, _)) in v.iter().enumerate() {
            self.rank_log.push((u, self.pre[u as usize]));
            self.pre[u as usize] = rank as u32;
        }
        self.rank_scratch = v;
    }

    /// Records that the node with state `key` fails from `at` on.
    fn remember_failure(&mut self, key: u128, at: (u64, u32)) {
        if let Some(v) = self.failed.get_mut(&key) {
            *v = (*v).min(at);
        } else if self.failed.len() < MAX_FAILED {
            self.failed.insert(key, at);
        }
    }

    fn pop_split(&mut self, sp: &SplitFrame) {
        while self.rank_log.len() > sp.rank_mark {
            if let Some((u, r)) = self.rank_log.pop() {
                self.pre[u as usize] = r;
            }
        }
        let first = self.parts[sp.parts.0].items.0;
        self.parts.truncate(sp.parts.0);
        self.part_items.truncate(first);
        self.frames.pop();
    }

    /// The node after placing `b` at `x` in `part` (number `pi`): a search of the same part,
    /// or a split when `b` was the last unplaced item across some boundary. `None` when the
    /// part has nothing left to place.
    fn child(&mut self, part: &Part, pi: usize, b: usize, x: u64, cap: u64) -> Option<Frame> {
        let pre = self.pre[b];
        let (blo, bhi) = self.span[b];
        let lo = blo.max(part.lo);
        let hi = bhi.min(part.hi);
        let mut cuts: Vec<u32> = Vec::new();
        for k in lo..hi.saturating_sub(1) {
            if self.cut[k as usize] == 0 && k + 1 < part.hi && k >= part.lo {
                cuts.push(k + 1);
            }
        }
        if !cuts.is_empty() {
            // Sub-parts: [part.lo, cuts[0]), [cuts[0], cuts[1]), ..., [last, part.hi).
            let first_part = self.parts.len();
            let mut bounds = Vec::with_capacity(cuts.len() + 2);
            bounds.push(part.lo);
            bounds.extend_from_slice(&cuts);
            bounds.push(part.hi);
            for w in bounds.windows(2) {
                let start = self.part_items.len();
                for k in part.items.0..part.items.1 {
                    let u = self.part_items[k];
                    let s0 = self.span[u as usize].0;
                    if self.off[u as usize] == UNPLACED && s0 >= w[0] && s0 < w[1] {
                        self.part_items.push(u);
                    }
                }
                if self.part_items.len() > start {
                    let m = self.size.len();
                    let salt = self.part_items[start..]
                        .iter()
                        .fold(0u128, |h, &u| h ^ zobrist(m + u as usize, 0));
                    self.parts.push(Part {
                        items: (start, self.part_items.len()),
                        lo: w[0],
                        hi: w[1],
                        salt,
                    });
                }
            }
            let count = self.parts.len() - first_part;
            if count == 0 {
                return None;
            }
            if count >= 2 {
                return Some(Frame::Split(SplitFrame {
                    parts: (first_part, self.parts.len()),
                    next: first_part,
                    rank_mark: self.rank_log.len(),
                }));
            }
            // One side only: go on with the part as it is.
            let first = self.parts[first_part].items.0;
            self.parts.truncate(first_part);
            self.part_items.truncate(first);
        }
        let cands = self.candidates(part, x, pre, cap)?;
        let mark = self.log.len();
        Some(Frame::Search(SearchFrame {
            part: pi,
            o: x,
            pre,
            cands,
            next: cands.0,
            mark,
            key: self.last_key,
        }))
    }

    /// The decision: is there a layout of every part within `cap` bytes, given the current
    /// heights `heights` of the static parts (parts already within `cap` are not searched)?
    /// On `Found`, `self.off` holds the offsets of the searched parts.
    fn decide(&mut self, cap: u64, heights: &[u64], nodes: u64) -> (Status, Vec<bool>) {
        self.nodes_left = nodes;
        self.reset();
        self.failed.clear();
        let mut searched = vec![false; self.static_parts.len()];
        // Pinned items are obstacles, never placed: one (of those in a movable item's way)
        // that ends above `cap` makes every layout end above it. ([`optimal`] never asks
        // below the end of any pinned item.)
        if self.obs.iter().any(|&(_, end)| end > cap) {
            return (Status::Infeasible, searched);
        }
        for p in 0..self.static_parts.len() {
            if heights[p] <= cap {
                continue;
            }
            searched[p] = true;
            let part = self.static_parts[p];
            match self.solve_part(part, cap) {
                Status::Found => {}
                other => return (other, searched),
            }
        }
        (Status::Found, searched)
    }

    /// The decision with a round robin over [`PREORDERS`] under node limits that start at
    /// twice the number of items and double, until `nodes` are spent.
    fn decide_round_robin(&mut self, cap: u64, heights: &[u64], nodes: u64) -> (Status, Vec<bool>) {
        let mut left = nodes;
        let mut limit = (2 * self.size.len() as u64).max(64);
        loop {
            for keys in PREORDERS {
                let budget = limit.min(left);
                self.set_preorder(keys);
                let before = self.nodes_used;
                let (status, searched) = self.decide(cap, heights, budget);
                left -= self.nodes_used - before;
                if status != Status::OutOfNodes || left == 0 {
                    return (status, searched);
                }
            }
            limit = limit.saturating_mul(2);
        }
    }
}

/// The exact search under a budget of `nodes` search nodes (see the module documentation):
/// [`crate::best_of::best_of`]'s layout improved as far as the budget allows.
///
/// The result never uses more bytes than `best_of`'s, respects every item's alignment and
/// pinned offset, and is reported proven optimal when its bytes equal a proven lower bound.
/// `nodes = 0` returns `best_of`'s layout.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn optimal(instance: &Instance, nodes: u64) -> Result<OptimalOutcome, SizeOverflow> {
    let conflicts = Conflicts::new(instance);
    let start = best_of_with(instance, &conflicts)?.layout;
    let mut bound = lower_bound(instance)
        .0
        .max(aligned_lower_bound(instance).bytes);
    for (i, it) in instance.items.iter().enumerate() {
        if let (Some(f), true) = (it.fixed, it.size > 0) {
            bound = bound.max(f.checked_add(it.size).ok_or(SizeOverflow { item: i })?);
        }
    }
    let mut best = start;
    if best.bytes <= bound || nodes == 0 {
        return Ok(OptimalOutcome {
            proven_optimal: best.bytes <= bound,
            lower_bound: bound,
            layout: best,
            nodes: 0,
        });
    }
    let mut search = Search::new(instance, &conflicts);
    let mut left = nodes;
    let mut used = 0u64;
    // The lowest capacity not yet given up on (proven or not).
    let mut floor = bound;
    let mut first = true;
    while floor < best.bytes && left > 0 {
        let (cap, share) = if first {
            (bound, left.div_ceil(2))
        } else {
            (
                floor + (best.bytes - 1 - floor) / 2,
                (left / 4).max(search.size.len() as u64).min(left),
            )
        };
        let heights = part_heights(&search, &best);
        let before = search.nodes_used;
        let (status, searched) = search.decide_round_robin(cap, &heights, share);
        let spent = search.nodes_used - before;
        left -= spent;
        used += spent;
        match status {
            Status::Found => {
                let mut offsets = best.offsets.clone();
                for (u, &i) in search.item_of.iter().enumerate() {
                    if searched[search.part_of[u] as usize] {
                        offsets[i] = search.off[u];
                    }
                }
                let layout = Layout::from_offsets(instance, offsets)?;
                debug_assert!(layout.bytes <= cap);
                best = layout;
            }
            Status::Infeasible => {
                // A proof: nothing fits in `cap` bytes.
                bound = bound.max(cap + 1);
                floor = floor.max(cap + 1);
            }
            Status::OutOfNodes => floor = cap + 1,
        }
        first = false;
    }
    Ok(OptimalOutcome {
        proven_optimal: best.bytes <= bound,
        lower_bound: bound,
        layout: best,
        nodes: used,
    })
}

/// The bytes each static part of the search uses in `layout`.
fn part_heights(search: &Search, layout: &Layout) -> Vec<u64> {
    let mut h = vec![0u64; search.static_parts.len()];
    for (u, &i) in search.item_of.iter().enumerate() {
        let p = search.part_of[u] as usize;
        h[p] = h[p].max(layout.offsets[i].saturating_add(search.size[u]));
    }
    h
}
