//! The static data of a search, built once per instance: the movable items with bytes
//! ("locals", numbered `0..m`), what each conflicts with, and the sections of time they
//! live in (their bytes per section and the static parts; the floors are in
//! [`super::floors`]).

use crate::conflicts::Conflicts;
use crate::instance::{Instance, align_up};
use crate::timeline::Timeline;

/// A set of unplaced items and the sections `[lo, hi)` they live in.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Part {
    /// The range of the items' list (the static parts' list, or the stack's).
    pub(super) items: (usize, usize),
    pub(super) lo: u32,
    pub(super) hi: u32,
    /// Tells apart the preorders of parts made by a split (0 for a static part): a hash of
    /// the part's items, which fix the part's preorder.
    pub(super) salt: u128,
    /// Set by the first node of the part (see [`Search::candidates`]): the key terms of the
    /// unplaced locals outside the part, summed, which stay put while the part is
    /// searched.
    pub(super) outside: u128,
    /// While the part is searched: its unplaced locals are the first `len` of its list.
    pub(super) len: usize,
}

/// Per local: its size, alignment, lifetime in sections and steps, and its neighbours.
pub(super) struct Locals {
    /// The instance index of each local.
    pub(super) item_of: Vec<usize>,
    pub(super) size: Vec<u64>,
    pub(super) align: Vec<u64>,
    /// The sections `[lo, hi)` of each local's lifetime.
    pub(super) span: Vec<(u32, u32)>,
    /// Lifetime length in steps.
    pub(super) width: Vec<u64>,
    /// Lifetime of each local in steps (for telling identical items apart).
    pub(super) life: Vec<(u32, u32)>,
    /// Each local's lowest offset with nothing placed.
    pub(super) base_min: Vec<u64>,
    /// Conflicting locals, compressed rows.
    pub(super) adj_start: Vec<usize>,
    pub(super) adj: Vec<u32>,
    /// Conflicting pinned items `(offset, end)`, sorted, compressed rows.
    pub(super) obs_start: Vec<usize>,
    pub(super) obs: Vec<(u64, u64)>,
}

/// The sections of time: the bytes live in each, the locals crossing each boundary, and the
/// static parts.
pub(super) struct Sections {
    /// Bytes of locals live in each section.
    pub(super) total: Vec<u64>,
    /// Locals crossing each section boundary `k` (between sections `k` and `k + 1`).
    pub(super) cut0: Vec<u32>,
    /// The static parts, in time order, their items, and each local's part.
    pub(super) parts: Vec<Part>,
    pub(super) part_items: Vec<u32>,
    pub(super) part_of: Vec<u32>,
}

impl Sections {
    /// The number of sections.
    pub(super) fn count(&self) -> usize {
        self.total.len()
    }
}

impl Locals {
    /// The locals of `instance` (movable items with bytes), with their neighbours from
    /// `conflicts`; the timeline of just them, and the bytes live in each of its sections.
    pub(super) fn new(instance: &Instance, conflicts: &Conflicts) -> (Locals, Timeline, Vec<u64>) {
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
            pieces: Vec::new(),
            items: item_of.iter().map(|&i| items[i]).collect(),
        };
        let timeline = Timeline::new(&sub);
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
        let mut locals = Locals {
            item_of,
            size: sub.items.iter().map(|it| it.size).collect(),
            align: sub.items.iter().map(|it| it.align.max(1)).collect(),
            span: timeline.span.clone(),
            width: sub.items.iter().map(|it| it.lifetime.len()).collect(),
            life: sub
                .items
                .iter()
                .map(|it| (it.lifetime.first, it.lifetime.last))
                .collect(),
            base_min: Vec::new(),
            adj_start,
            adj,
            obs_start,
            obs,
        };
        locals.base_min = (0..m).map(|u| locals.lowest(u, 0)).collect();
        let total = timeline.live_bytes(&sub);
        (locals, timeline, total)
    }

    /// The number of locals.
    pub(super) fn len(&self) -> usize {
        self.size.len()
    }

    /// The lowest offset at or above `floor`, aligned, where local `u` clears every pinned
    /// item it conflicts with; saturates at `u64::MAX` (never within a capacity).
    pub(super) fn lowest(&self, u: usize, floor: u64) -> u64 {
        let (size, align) = (self.size[u], self.align[u]);
        if align == 1 && self.obs_start[u] == self.obs_start[u + 1] {
            return floor;
        }
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
}

impl Sections {
    /// The sections of the locals' timeline and the static parts (split at the cut lines).
    pub(super) fn new(locals: &Locals, timeline: &Timeline, total: Vec<u64>) -> Sections {
        let s = timeline.sections();
        let span = &locals.span;
        let mut cut0 = vec![0u32; s.saturating_sub(1)];
        for &(lo, hi) in span {
            for k in lo..hi.saturating_sub(1) {
                cut0[k as usize] += 1;
            }
        }
        let (parts, part_items, part_of) = static_parts(locals, timeline);
        Sections {
            total,
            cut0,
            parts,
            part_items,
            part_of,
        }
    }
}

/// The instance split at its cut lines: the parts in time order, their items, and each
/// local's part.
fn static_parts(locals: &Locals, timeline: &Timeline) -> (Vec<Part>, Vec<u32>, Vec<u32>) {
    let m = locals.len();
    let span = &locals.span;
    let (part_of, nparts) = timeline.parts();
    let mut parts: Vec<Part> = Vec::new();
    let mut items: Vec<u32> = Vec::with_capacity(m);
    let mut by_part: Vec<Vec<u32>> = vec![Vec::new(); nparts];
    for u in 0..m {
        by_part[part_of[u] as usize].push(u as u32);
    }
    for list in by_part.into_iter().filter(|l| !l.is_empty()) {
        let lo = list.iter().map(|&u| span[u as usize].0).min().unwrap_or(0);
        let hi = list.iter().map(|&u| span[u as usize].1).max().unwrap_or(0);
        let start = items.len();
        items.extend_from_slice(&list);
        parts.push(Part {
            items: (start, items.len()),
            lo,
            hi,
            ..Part::default()
        });
    }
    let mut part_of = vec![0u32; m];
    for (p, part) in parts.iter().enumerate() {
        for &u in &items[part.items.0..part.items.1] {
            part_of[u as usize] = p as u32;
        }
    }
    (parts, items, part_of)
}
