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
//!    `GreedyMemoryPlanner` places them.
//!
//! Then omnimalloc's seven greedy orders (its `greedy_by_all`, version 1.0.0), each with
//! its own tie-break, declaration order (the earlier declared first) after its keys:
//!
//! 8. `declared`: declaration order.
//! 9. `size_declared`: size, largest first (omnimalloc's `greedy_by_size`).
//! 10. `length_declared`: lifetime length, longest first.
//! 11. `area_declared`: size times lifetime length, largest first.
//! 12. `conflicts_declared`: the number of items it shares a step with, most first; then
//!     size, largest first.
//! 13. `conflicts_size`: that number times the size, largest first; then size, largest
//!     first.
//! 14. `first_declared`: first step, earliest first; then size, largest first (omnimalloc
//!     breaks the last ties by the allocation's id as text).
//!
//! With the same first fit (omnimalloc's places each allocation at the lowest offset clear
//! of the placed ones it shares a step with, as memplan's does), each of these gives
//! omnimalloc's layout; on the 27 plan files of the benchmark, the bytes of each are
//! omnimalloc's, but for `first_declared` on MiniMalloc's J (ids compared as text there).
//! An ordering later in the list wins a part only where it ends strictly lower than every
//! ordering before it, so adding them moved no offset where they do not do better.
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
//! A part whose best end so far is the most bytes live in one of its sections (no layout
//! ends lower) is settled: later orderings place only the items of the parts not settled,
//! and once every part is (on every real plan we have, after the first ordering or two),
//! the rest are not run. An ordering equal to an earlier one is not run again either. The
//! offsets are those of running every ordering on every part.
//!
//! The list, the tie-breaks and the choice rule are part of the public contract (they decide
//! the offsets); a change is recorded in the changelog.
//!
//! # Cost
//!
//! One plan of first fit's unions ([`crate::fit`]) and one count of each item's conflicts
//! (`O(n log n)`, without listing the conflicting pairs), then one sort and one first-fit
//! pass per ordering run (see [`crate::greedy`]), over the items of the parts not settled.

use std::cmp::Reverse;

use crate::conflicts::degrees;
use crate::fit::{FitPlan, first_fit_planned};
use crate::gaps::Unions;
use crate::greedy::greedy_order;
use crate::instance::{Instance, Layout, SizeOverflow};
use crate::timeline::Timeline;

/// The names of the orderings, in the order they are tried (see the module documentation).
pub const ORDERINGS: [&str; 15] = [
    "size",
    "peak",
    "length",
    "area",
    "conflicts",
    "first",
    "last",
    "tflm",
    "declared",
    "size_declared",
    "length_declared",
    "area_declared",
    "conflicts_declared",
    "conflicts_size",
    "first_declared",
];

/// Each item's peak: the most bytes live at one step of its lifetime (0 for zero-size
/// items), by a range-maximum tree over the sections.
fn peaks(timeline: &Timeline, live: &[u64]) -> Vec<u64> {
    let s = live.len();
    let mut tree = vec![0u64; 2 * s];
    tree[s..].copy_from_slice(live);
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
        8 => {}
        9 => order.sort_by_key(|&i| Reverse(size(i))),
        10 => order.sort_by_key(|&i| Reverse(len(i))),
        11 => order.sort_by_key(|&i| Reverse(u128::from(size(i)) * u128::from(len(i)))),
        12 => order.sort_by_key(|&i| (Reverse(degree[i]), Reverse(size(i)))),
        13 => order.sort_by_key(|&i| {
            (
                Reverse(u128::from(degree[i]) * u128::from(size(i))),
                Reverse(size(i)),
            )
        }),
        14 => order.sort_by_key(|&i| (first(i), Reverse(size(i)))),
        _ => panic!("no ordering number {k}"),
    }
    order
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
    let items = &instance.items;
    let timeline = Timeline::new(instance);
    let plan = FitPlan::new(instance, &timeline);
    let mut unions = Unions::default();
    let degree = degrees(instance);
    let live = timeline.live_bytes(instance);
    let peak = peaks(&timeline, &live);
    let (part, nparts) = timeline.parts();
    // Per part: the most bytes live in one of its sections, which no layout of the part
    // ends below (only for an instance without pieces: with pieces, the live bytes above
    // count whole items, more than a step may hold).
    // (The most over a part is the most over its items' peaks: every section of a part is
    // in the lifetime of one of its items.)
    let mut floor = vec![0u64; nparts];
    if !instance.has_pieces() {
        for (i, it) in items.iter().enumerate() {
            if it.size > 0 {
                let p = part[i] as usize;
                floor[p] = floor[p].max(peak[i]);
            }
        }
    }
    // Per part: the lowest end so far (`None` before the first ordering: an end can be
    // `u64::MAX` itself); ties keep the earlier ordering.
    let mut best_end: Vec<Option<u64>> = vec![None; nparts];
    let mut offsets = vec![0u64; items.len()];
    let mut end = vec![0u64; nparts];
    // The orders tried so far: an order equal to an earlier one gives its layout again,
    // which wins no part (ties go to the earlier), so it is not run again.
    let mut tried: Vec<Vec<usize>> = Vec::with_capacity(ORDERINGS.len());
    for k in 0..ORDERINGS.len() {
        // A part whose best end is its floor is settled: no later ordering ends lower
        // there, so only the items of the other parts are placed (first fit treats the
        // parts independently); once every part is settled, the rest are not tried.
        let open = |p: usize| best_end[p].is_none_or(|b| b > floor[p]);
        if k > 0 && !(0..nparts).any(open) {
            break;
        }
        let order = ordering(instance, k, &peak, &degree);
        if tried.contains(&order) {
            continue;
        }
        let subset: Vec<usize>;
        let run: &[usize] = if k == 0 || (0..nparts).all(open) {
            &order
        } else {
            subset = order
                .iter()
                .copied()
                .filter(|&i| items[i].size > 0 && open(part[i] as usize))
                .collect();
            &subset
        };
        let layout = first_fit_planned(instance, &plan, run, &mut unions)?;
        end.iter_mut().for_each(|e| *e = 0);
        for &i in run {
            let it = &items[i];
            if it.size > 0 {
                // No overflow: first fit checked every end.
                let p = part[i] as usize;
                end[p] = end[p].max(layout.offsets[i] + it.size);
            }
        }
        // Fixed items are placed in every run, whatever the order lists.
        for (i, it) in items.iter().enumerate() {
            if it.fixed.is_some() && it.size > 0 {
                let p = part[i] as usize;
                end[p] = end[p].max(layout.offsets[i] + it.size);
            }
        }
        let better: Vec<bool> = (0..nparts)
            .map(|p| open(p) && best_end[p].is_none_or(|b| end[p] < b))
            .collect();
        for &i in run {
            if items[i].size > 0 && better[part[i] as usize] {
                offsets[i] = layout.offsets[i];
            }
        }
        for (i, it) in items.iter().enumerate() {
            if it.fixed.is_some() && it.size > 0 && better[part[i] as usize] {
                offsets[i] = layout.offsets[i];
            }
        }
        for p in 0..nparts {
            if better[p] {
                best_end[p] = Some(end[p]);
            }
        }
        tried.push(order);
    }
    // Zero-size free items stay at 0; fixed ones keep their offset.
    for (i, it) in items.iter().enumerate() {
        if it.size == 0 {
            offsets[i] = it.fixed.unwrap_or(0);
        }
    }
    Layout::from_offsets(instance, offsets)
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
        assert_eq!(peaks(&t, &t.live_bytes(&inst)), vec![12, 12, 10]);
    }
}
