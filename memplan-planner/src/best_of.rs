//! Best of several orderings: first fit ([`crate::greedy::first_fit`]) run with a fixed list
//! of cheap orderings, keeping the best.
//!
//! # The orderings
//!
//! [`ORDERINGS`] lists them, in this fixed order; every one ends its tie-break on the item
//! index, so each is a total order:
//!
//! 0. `size`: size, largest first; then longer lifetime; then earlier first step (greedy
//!    by size's order until it took TensorFlow Lite Micro's tie-break, `tflm` below).
//! 1. `peak`: the most bytes live at one step of the item's lifetime, largest first (the
//!    items that sit in the busiest steps go first); then size, largest first; then longer
//!    lifetime; then earlier first step.
//! 2. `length`: lifetime length in steps, longest first; then size, largest first; then
//!    earlier first step.
//! 3. `area`: size times lifetime length (byte-steps), largest first; then size, largest
//!    first; then earlier first step.
//! 4. `conflicts`: the number of items it shares a step with, most first; then size,
//!    largest first; then earlier first step.
//! 5. `first`: first step, earliest first; then size, largest first; then longer lifetime.
//! 6. `last`: last step, latest first; then size, largest first; then longer lifetime.
//! 7. `tflm`: greedy by size's own order ([`crate::greedy::greedy_order`]): size, largest
//!    first; then the higher index (the later declared) first, as TensorFlow Lite Micro's
//!    `GreedyMemoryPlanner` places them. Last in the list, so it wins a part only where it
//!    ends strictly lower than every ordering before it.
//!
//! # How the best is chosen
//!
//! The items split at time cut lines into independent parts: a cut is a step boundary that
//! no item with bytes is live across, so no item of one part shares a step with an item of
//! another, and every part's offsets can be chosen on their own. First fit treats the parts
//! independently too, so each ordering's offsets in a part do not depend on the other
//! parts. In each part, the ordering whose plan of that part ends lowest (the largest
//! `offset + size` of the part's items) wins; ties go to the earlier ordering in the list.
//! The plan takes each part's offsets from its winning ordering. Its bytes are therefore at
//! most the bytes of every single ordering, greedy by size's included. Zero-size items take
//! offset 0, as in greedy.
//!
//! The list, the tie-breaks and the choice rule are part of the public contract (they decide
//! the offsets); a change is recorded in the changelog.
//!
//! # Cost
//!
//! One plan of first fit's unions ([`crate::fit`]) and one count of each item's conflicts
//! (`O(n log n)`, without listing the conflicting pairs), then one sort and one first-fit
//! pass per ordering (see [`crate::greedy`]).

use std::cmp::Reverse;

use crate::conflicts::degrees;
use crate::fit::{FitPlan, first_fit_planned};
use crate::gaps::Unions;
use crate::greedy::greedy_order;
use crate::instance::{Instance, Layout, SizeOverflow};
use crate::timeline::Timeline;

/// The names of the orderings, in the order they are tried (see the module documentation).
pub const ORDERINGS: [&str; 8] = [
    "size",
    "peak",
    "length",
    "area",
    "conflicts",
    "first",
    "last",
    "tflm",
];

/// Each item's peak: the most bytes live at one step of its lifetime (0 for zero-size
/// items), by a range-maximum tree over the sections.
fn peaks(instance: &Instance, timeline: &Timeline) -> Vec<u64> {
    let live = timeline.live_bytes(instance);
    let s = live.len();
    let mut tree = vec![0u64; 2 * s];
    tree[s..].copy_from_slice(&live);
    for k in (1..s).rev() {
        tree[k] = tree[2 * k].max(tree[2 * k + 1]);
    }
    timeline
        .span
        .iter()
        .map(|&(lo, hi)| {
            let (mut l, mut r, mut m) = (lo as usize + s, hi as usize + s, 0u64);
            while l < r {
                if l & 1 == 1 {
                    m = m.max(tree[l]);
                    l += 1;
                }
                if r & 1 == 1 {
                    r -= 1;
                    m = m.max(tree[r]);
                }
                l /= 2;
                r /= 2;
            }
            m
        })
        .collect()
}

/// The order of ordering number `k` of [`ORDERINGS`].
///
/// # Panics
///
/// If `k >= ORDERINGS.len()`.
fn ordering(instance: &Instance, k: usize, peak: &[u64], degree: &[u64]) -> Vec<usize> {
    let items = &instance.items;
    let n = items.len();
    let mut order: Vec<usize> = (0..n).collect();
    let len = |i: usize| items[i].lifetime.len();
    let size = |i: usize| items[i].size;
    let first = |i: usize| items[i].lifetime.first;
    match k {
        0 => order.sort_unstable_by_key(|&i| (Reverse(size(i)), Reverse(len(i)), first(i), i)),
        1 => order.sort_unstable_by_key(|&i| {
            (
                Reverse(peak[i]),
                Reverse(size(i)),
                Reverse(len(i)),
                first(i),
                i,
            )
        }),
        2 => order.sort_unstable_by_key(|&i| (Reverse(len(i)), Reverse(size(i)), first(i), i)),
        3 => order.sort_unstable_by_key(|&i| {
            (
                Reverse(u128::from(size(i)) * u128::from(len(i))),
                Reverse(size(i)),
                first(i),
                i,
            )
        }),
        4 => order.sort_unstable_by_key(|&i| (Reverse(degree[i]), Reverse(size(i)), first(i), i)),
        5 => order.sort_unstable_by_key(|&i| (first(i), Reverse(size(i)), Reverse(len(i)), i)),
        6 => order.sort_unstable_by_key(|&i| {
            (
                Reverse(items[i].lifetime.last),
                Reverse(size(i)),
                Reverse(len(i)),
                i,
            )
        }),
        7 => return greedy_order(instance),
        _ => panic!("no ordering number {k}"),
    }
    order
}

/// What [`best_of_detailed`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestOf {
    /// The combined layout.
    pub layout: Layout,
    /// Bytes of each ordering's own plan, in the order of [`ORDERINGS`].
    pub bytes: Vec<u64>,
}

/// Best of several orderings (see the module documentation).
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64` under some ordering.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn best_of(instance: &Instance) -> Result<Layout, SizeOverflow> {
    best_of_detailed(instance).map(|b| b.layout)
}

/// [`best_of`], also returning every ordering's bytes.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64` under some ordering.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn best_of_detailed(instance: &Instance) -> Result<BestOf, SizeOverflow> {
    let items = &instance.items;
    let timeline = Timeline::new(instance);
    let plan = FitPlan::new(instance, &timeline);
    let mut unions = Unions::default();
    let degree = degrees(instance);
    let peak = peaks(instance, &timeline);
    let (part, nparts) = timeline.parts();
    // Per part: the lowest end so far (`None` before the first ordering: an end can be
    // `u64::MAX` itself); ties keep the earlier ordering.
    let mut best_end: Vec<Option<u64>> = vec![None; nparts];
    let mut offsets = vec![0u64; items.len()];
    let mut all_bytes = Vec::with_capacity(ORDERINGS.len());
    let mut end = vec![0u64; nparts];
    for k in 0..ORDERINGS.len() {
        let order = ordering(instance, k, &peak, &degree);
        let layout = first_fit_planned(instance, &plan, &order, &mut unions)?;
        all_bytes.push(layout.bytes);
        end.iter_mut().for_each(|e| *e = 0);
        for (i, it) in items.iter().enumerate() {
            if it.size > 0 {
                // No overflow: first fit checked every end.
                let p = part[i] as usize;
                end[p] = end[p].max(layout.offsets[i] + it.size);
            }
        }
        let better: Vec<bool> = (0..nparts)
            .map(|p| best_end[p].is_none_or(|b| end[p] < b))
            .collect();
        for (i, it) in items.iter().enumerate() {
            if it.size > 0 && better[part[i] as usize] {
                offsets[i] = layout.offsets[i];
            }
        }
        for p in 0..nparts {
            if better[p] {
                best_end[p] = Some(end[p]);
            }
        }
    }
    // Zero-size free items stay at 0; fixed ones keep their offset.
    for (i, it) in items.iter().enumerate() {
        if it.size == 0 {
            offsets[i] = it.fixed.unwrap_or(0);
        }
    }
    Ok(BestOf {
        layout: Layout::from_offsets(instance, offsets)?,
        bytes: all_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::Item;

    fn item(size: u64, first: u32, last: u32) -> Item {
        Item::plain(size, first, last)
    }

    #[test]
    fn a_part_that_ends_at_the_last_byte_keeps_its_layout() {
        // The two items fill the address space exactly: the part's end is `u64::MAX`.
        let inst = Instance {
            pieces: Vec::new(),
            items: vec![item(u64::MAX - 1, 0, 3), item(1, 0, 0)],
        };
        let out = best_of(&inst).unwrap();
        assert_eq!(out.offsets, vec![0, u64::MAX - 1]);
        assert_eq!(out.bytes, u64::MAX);
    }

    #[test]
    fn peaks_are_the_busiest_step_of_each_lifetime() {
        let inst = Instance {
            pieces: Vec::new(),
            items: vec![item(4, 0, 1), item(8, 1, 2), item(2, 2, 5)],
        };
        let t = Timeline::new(&inst);
        assert_eq!(peaks(&inst, &t), vec![12, 12, 10]);
    }
}
