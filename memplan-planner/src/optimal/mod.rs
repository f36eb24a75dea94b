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
//! `U = L` it is done, before building anything pairwise (the common case, and the reason
//! a plan of 100,000 buffers all live at once costs no more than `best_of`). It also stops
//! there, with `best_of`'s plan unproven, when the search's conflict graph would pass
//! [`MAX_SEARCH_PAIRS`] pairs, or a static part would hold more than [`MAX_PART_ITEMS`]
//! items (both counted first, in `O(n log n)`), and when `L` is above the capacity asked
//! ([`optimal_within`]: no layout fits). Otherwise it asks the decision question for a
//! sequence of capacities, each with a share of the budget, keeping the best layout
//! found. Capacities are multiples of the instance's *grain* (a number that divides every
//! size, pinned offset and alignment larger than it, so every layout's bytes: MiniMalloc's
//! sizes are multiples of 1024), and `L` is rounded up to one.
//!
//! 0. When a capacity is given and `U` is above it: the capacity (rounded down to the
//!    grain), with the whole budget: a layout within it is what the caller needs, and on
//!    MiniMalloc's instances, posed that way, it is often far easier than the lower
//!    bound (J: 411 nodes at 1,048,576 bytes, while 2,000,000 do not settle 1,040,384).
//!    A proof that none fits ends the search ([`Fit::Impossible`]); running out of
//!    nodes too ([`Fit::NotFound`]); a layout found goes on to step 1 with what
//!    is left.
//!
//! 1. `C = L`, with 93 % of the budget up to [`FIRST_MOST`] nodes (and never less than
//!    half of it): on adversarial perfect packings the lower bound is the optimum, and a
//!    small budget is best spent proving it. A layout found there is optimal. A search
//!    that ends without one proves `L` is out of reach, and `L` plus a grain becomes the
//!    proven bound.
//! 2. Then a bisection between the lowest capacity not given up on and the best layout so
//!    far: `C` halfway. A layout found lowers the upper end to its own bytes; a search that
//!    ends without one proves the bound `C` plus a grain; a search that runs out of its
//!    share (a quarter of what is left, at least one node per item) gives up below that
//!    without a proof. It stops when the two ends meet or the budget is spent.
//! 3. Then, with what is left, the capacities given up on, down from the best layout one
//!    grain at a time: a capacity the search ran out of nodes on is not always harder than
//!    the ones below it (on MiniMalloc's J, one that 100,000 nodes do not settle sits just
//!    above one that 4,000 fill). A layout found starts again one grain below it; a proof
//!    after a capacity given up, or reaching the proven bound, stops.
//!
//! The layout is proven optimal when its bytes equal the proven bound.
//!
//! Each decision search runs the preorders of [`PREORDERS`] in turn, with a node limit per
//! run that starts at twice the number of items and doubles after each round (as MiniMalloc
//! does): some instances are easy under one preorder and hard under another. Each
//! preorder keeps the states it proved to fail across the rounds of one decision search,
//! so a longer run does not explore again what a shorter one finished.
//!
//! # Determinism
//!
//! Everything above is a function of the instance and the budget alone: candidates are
//! tried in a total order (offset, then a preorder that ends on the item index), the
//! remembered states are looked up, never iterated, and no decision looks at the clock.
//!
//! # Cost
//!
//! A node costs about `O(n + k·(s + d·log S))` for `n` items in its part, `k` candidates
//! tried before one passes the checks, `s` sections in the placed item's lifetime, `d`
//! items sharing a step with it, and `S` sections: the section floors live in a tree over
//! the sections (`floors`), where an item that moves touches `O(log S)` nodes instead of
//! every section of its lifetime, and a section's floor is re-checked only when a node
//! above it loses the last item at its lowest offset. Plus `O(n log n)` when it splits.
//! Per node, on the MiniMalloc instances, in a release build (less `best_of`'s time): about
//! 1.5-2.2 µs on B, E, F and G and 2.7-3.4 µs on C and I (170 to 374 items; the shorter
//! searches also pay their set-up), 3.9-4.2 µs on J (409 items, long lifetimes); the
//! memplan-bench README has the figures.
//! Memory: `O(n log S + P)` plus up to about 48 bytes per remembered failed state.
//!
//! # Layout of the code
//!
//! This file is the driver (the capacities asked, the budget shares). The search itself:
//! `search` (the depth-first loop over nodes and splits), `build` (the static data of an
//! instance), `state` (the dynamic state of a node and its undo log), `floors` (the
//! section floors and the section inference check over them), `memo` (remembered
//! failed states) and `preorder` (the static and re-ranked orders of candidates).

mod build;
mod floors;
mod memo;
mod preorder;
mod search;
mod state;

use crate::best_of::best_of;
use crate::conflicts::{Conflicts, pairs};
use crate::instance::{Instance, Layout, SizeOverflow, aligned_lower_bound, lower_bound};
use search::{Search, Status};

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
    /// What is known of the capacity asked ([`optimal_within`]).
    pub fit: Fit,
}

/// Whether a layout within a capacity exists, as far as a strategy knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The layout returned is within the capacity.
    Fits,
    /// No layout within the capacity was found, and none is proven impossible: the search
    /// ran out of its budget (or did not run).
    NotFound,
    /// No layout fits within the capacity: the lower bound is above it, or the search
    /// explored every canonical layout up to it.
    Impossible,
}

/// The most conflicting pairs (edges of the search's conflict graph, 32 MiB of adjacency
/// at most) the search is built for. Above it, [`optimal`] returns `best_of`'s plan as it
/// is, unproven unless it meets the lower bound, with 0 nodes: the search's memory stays
/// bounded whatever the shape.
pub(crate) const MAX_SEARCH_PAIRS: u64 = 1 << 22;

/// The most movable items with bytes in one static part (the items between two cut lines)
/// the search is run on. A node costs time linear in its part's items (its candidates are
/// a pass over them), so above it [`optimal`] returns `best_of`'s plan as it is, unproven
/// unless it meets the lower bound, with 0 nodes: a node budget then never costs more
/// than about `nodes * MAX_PART_ITEMS` steps (under a second in a release build at the
/// default budget), however many items the instance has.
pub(crate) const MAX_PART_ITEMS: usize = 4096;

/// The exact search under a budget of `nodes` search nodes, with no capacity: [`optimal_within`]
/// with `capacity = u64::MAX`.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
#[cfg(test)]
pub fn optimal(instance: &Instance, nodes: u64) -> Result<OptimalOutcome, SizeOverflow> {
    optimal_within(instance, nodes, u64::MAX)
}

/// The exact search under a budget of `nodes` search nodes (see the module documentation):
/// [`crate::best_of::best_of`]'s layout improved as far as the budget allows, a layout
/// within `capacity` bytes sought first when `best_of`'s is not.
///
/// The result never uses more bytes than `best_of`'s, respects every item's alignment and
/// pinned offset, and is reported proven optimal when its bytes equal a proven lower bound.
/// `nodes = 0` returns `best_of`'s layout, and so does an instance whose search would
/// need more than [`MAX_SEARCH_PAIRS`] conflicting pairs (counted in `O(n log n)` before
/// anything pairwise is built). When `best_of`'s layout fits in `capacity` the capacity
/// changes nothing: the search minimises as it would without one.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn optimal_within(
    instance: &Instance,
    nodes: u64,
    capacity: u64,
) -> Result<OptimalOutcome, SizeOverflow> {
    let start = best_of(instance)?;
    let mut bound = lower_bound(instance)
        .0
        .max(aligned_lower_bound(instance).bytes);
    for (i, it) in instance.items.iter().enumerate() {
        if let (Some(f), true) = (it.fixed, it.size > 0) {
            bound = bound.max(f.checked_add(it.size).ok_or(SizeOverflow { item: i })?);
        }
    }
    // Every offset and end is a multiple of the grain, so are the bytes of every layout.
    let g = grain(instance);
    bound = bound.div_ceil(g).saturating_mul(g);
    let best = start;
    let fit_of = |bytes: u64, bound: u64| {
        if bytes <= capacity {
            Fit::Fits
        } else if bound > capacity {
            Fit::Impossible
        } else {
            Fit::NotFound
        }
    };
    if best.bytes <= bound
        || nodes == 0
        || bound > capacity
        || too_large(instance)
        || part_too_large(instance)
    {
        return Ok(OptimalOutcome {
            proven_optimal: best.bytes <= bound,
            fit: fit_of(best.bytes, bound),
            lower_bound: bound,
            layout: best,
            nodes: 0,
        });
    }
    let conflicts = Conflicts::new(instance);
    let mut run = Run {
        instance,
        search: Search::new(instance, &conflicts),
        best,
        bound,
        grain: g,
        left: nodes,
    };
    // 0. Capacity first: any layout within it, with the whole budget (MiniMalloc's
    // decision problem); what is left minimises.
    if run.best.bytes > capacity {
        let cap = capacity / g * g;
        match run.ask(cap, run.left)? {
            Status::Found => {}
            // Proven: nothing fits (the bound is now above the capacity).
            Status::Infeasible => {}
            Status::OutOfNodes => {
                return Ok(OptimalOutcome {
                    proven_optimal: false,
                    fit: Fit::NotFound,
                    lower_bound: run.bound,
                    layout: run.best,
                    nodes: nodes - run.left,
                });
            }
        }
        if run.bound > capacity {
            return Ok(OptimalOutcome {
                proven_optimal: run.best.bytes <= run.bound,
                fit: Fit::Impossible,
                lower_bound: run.bound,
                layout: run.best,
                nodes: nodes - run.left,
            });
        }
    }
    run.minimise()?;
    Ok(OptimalOutcome {
        proven_optimal: run.best.bytes <= run.bound,
        fit: fit_of(run.best.bytes, run.bound),
        lower_bound: run.bound,
        layout: run.best,
        nodes: nodes - run.left,
    })
}

/// The most nodes [`optimal`] gives the lower bound beyond half of its budget: a budget up
/// to about 107,500 nodes spends 93 % there, a larger one 100,000 nodes or half of it,
/// whichever is more, keeping the rest to improve a layout that misses the bound.
const FIRST_MOST: u64 = 100_000;

/// The driver's state: the best layout and the proven bound so far, and the budget left.
struct Run<'a> {
    instance: &'a Instance,
    search: Search,
    best: Layout,
    bound: u64,
    grain: u64,
    left: u64,
}

impl Run<'_> {
    /// Steps 1 to 3 of the driver (the module documentation) with the budget left.
    fn minimise(&mut self) -> Result<(), SizeOverflow> {
        let g = self.grain;
        let nodes = self.left;
        if nodes == 0 || self.best.bytes <= self.bound {
            return Ok(());
        }
        // 1. The lower bound: a layout there is optimal.
        let first = (u128::from(nodes) * 93 / 100).min(u128::from(FIRST_MOST)) as u64;
        self.ask(self.bound, first.max(nodes.div_ceil(2)))?;
        // 2. A bisection between the lowest capacity not given up on and the best layout.
        let mut floor = self.bound;
        while self.left > 0 && floor < self.best.bytes {
            let (f, b) = (floor / g, self.best.bytes / g);
            let cap = (f + (b - 1 - f) / 2) * g;
            match self.ask(cap, self.share())? {
                Status::Found => {}
                Status::Infeasible | Status::OutOfNodes => floor = floor.max(cap + g),
            }
        }
        // 3. The capacities given up on, down from the best layout, with what is left: one
        // the search ran out of nodes on is not always harder than the ones below it.
        let mut below = 1u64;
        while self.left > 0 && self.best.bytes > self.bound {
            let cap = self.best.bytes - below.saturating_mul(g).min(self.best.bytes);
            if cap < self.bound {
                break;
            }
            match self.ask(cap, self.share())? {
                Status::Found => below = 1,
                // Proven out of reach; those in between were tried and ran out of nodes.
                Status::Infeasible if below > 1 => break,
                Status::Infeasible => {}
                Status::OutOfNodes => below += 1,
            }
        }
        Ok(())
    }

    /// A question's share of the budget: a quarter of what is left, at least one node per
    /// item.
    fn share(&self) -> u64 {
        (self.left / 4)
            .max(self.search.loc.len() as u64)
            .min(self.left)
    }

    /// Asks whether a layout fits in `cap` bytes, with `share` nodes of the budget; keeps a
    /// layout found, and the bound a proof gives.
    fn ask(&mut self, cap: u64, share: u64) -> Result<Status, SizeOverflow> {
        let heights = part_heights(&self.search, &self.best);
        let before = self.search.nodes_used;
        let (status, searched) =
            self.search
                .decide_round_robin(cap, &heights, share.min(self.left));
        self.left -= self.search.nodes_used - before;
        match status {
            Status::Found => {
                let mut offsets = self.best.offsets.clone();
                for (u, &i) in self.search.loc.item_of.iter().enumerate() {
                    if searched[self.search.sec.part_of[u] as usize] {
                        offsets[i] = self.search.st.off[u];
                    }
                }
                let layout = Layout::from_offsets(self.instance, offsets)?;
                debug_assert!(layout.bytes <= cap);
                self.best = layout;
            }
            // A proof: nothing fits in `cap` bytes, nor below the next grain.
            Status::Infeasible => self.bound = self.bound.max(cap.saturating_add(self.grain)),
            Status::OutOfNodes => {}
        }
        Ok(status)
    }
}

/// The grain of every layout of `instance`: a number that divides every size, every pinned
/// offset, and every alignment it does not itself divide (alignments are powers of two).
/// Offsets are sums of ends rounded up to an alignment, so each is a multiple of it, and
/// so are the bytes of every layout: capacities in between need not be asked. 1 when the
/// instance has no bytes.
fn grain(instance: &Instance) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let with_bytes = || instance.items.iter().filter(|it| it.size > 0);
    let mut g = with_bytes().fold(0, |g, it| gcd(gcd(g, it.size), it.fixed.unwrap_or(0)));
    for it in with_bytes() {
        let a = it.align.max(1);
        if g % a != 0 {
            g = gcd(g, a);
        }
    }
    g.max(1)
}

/// Whether the search's conflict graph would pass [`MAX_SEARCH_PAIRS`] pairs. (Its other
/// data is smaller: a local lives in at most `1 + 2d` sections for `d` conflicts, as each
/// section boundary inside its lifetime is where a local it conflicts with starts or ends,
/// and it is stored at `O(log S)` nodes of the floor tree.)
fn too_large(instance: &Instance) -> bool {
    pairs(instance) > MAX_SEARCH_PAIRS
}

/// Whether a static part of the search would have more than [`MAX_PART_ITEMS`] items
/// (counted in `O(n log n)`, before anything is built).
fn part_too_large(instance: &Instance) -> bool {
    let movable = Instance::new(
        instance
            .items
            .iter()
            .filter(|it| it.size > 0 && it.fixed.is_none())
            .copied()
            .collect(),
    );
    if movable.items.len() <= MAX_PART_ITEMS {
        return false;
    }
    let (part_of, parts) = crate::timeline::Timeline::new(&movable).parts();
    let mut count = vec![0usize; parts];
    part_of.iter().any(|&p| {
        let c = &mut count[p as usize];
        *c += 1;
        *c > MAX_PART_ITEMS
    })
}

/// The bytes each static part of the search uses in `layout`.
fn part_heights(search: &Search, layout: &Layout) -> Vec<u64> {
    let mut h = vec![0u64; search.sec.parts.len()];
    for (u, &i) in search.loc.item_of.iter().enumerate() {
        let p = search.sec.part_of[u] as usize;
        h[p] = h[p].max(layout.offsets[i].saturating_add(search.loc.size[u]));
    }
    h
}
