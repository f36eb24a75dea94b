//! Greedy by size, first fit: the baseline strategy (TFLite Micro's and ExecuTorch's
//! planners are variants of it).
//!
//! Items with a fixed offset are placed first, at that offset. The others are taken in
//! [`greedy_order`] and each goes at the lowest offset, a multiple of its alignment, where
//! it overlaps no already placed item whose lifetime it shares a step with (first fit).
//!
//! # Determinism
//!
//! The order is total (it ends on the item index), so the same instance gives the same
//! offsets on every machine. Changing the tie-break moves offsets that other tools may rely
//! on: it is part of the public contract and is recorded in the changelog.
//!
//! # Cost
//!
//! The conflict graph (which items share a step) is built once by a sweep over the items
//! sorted by first step, in `O(n log n + P)` time for `P` conflicting pairs; `P` is at most
//! `n` times the largest number of items live at one step. First fit then looks only at
//! each item's neighbours in that graph: `O(n log n + P log L)` in all, where `L` is the
//! largest degree, instead of the `O(n^2)` scan over every placed item. The offsets are
//! the same as the scan's: first fit depends only on the set of placed items an item
//! conflicts with, not on how that set is found.

use crate::conflicts::Conflicts;
use crate::instance::{Instance, Item, Layout, SizeOverflow, align_up};

/// The order greedy by size places items in: largest size first; ties by longer lifetime
/// first, then earlier first step, then lower index.
pub fn greedy_order(instance: &Instance) -> Vec<usize> {
    let mut order: Vec<usize> = (0..instance.items.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&instance.items[a], &instance.items[b]);
        y.size
            .cmp(&x.size)
            .then(y.lifetime.len().cmp(&x.lifetime.len()))
            .then(x.lifetime.first.cmp(&y.lifetime.first))
            .then(a.cmp(&b))
    });
    order
}

/// Places items in the given order, first fit, after the fixed items.
///
/// `order` must list every item exactly once; fixed items in it are skipped (they are
/// already placed).
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If `order` names an item that does not exist, or the instance has more than
/// `u32::MAX` items.
pub fn first_fit(instance: &Instance, order: &[usize]) -> Result<Layout, SizeOverflow> {
    first_fit_with(instance, &Conflicts::new(instance), order)
}

/// [`first_fit`] with the conflict graph already built.
pub(crate) fn first_fit_with(
    instance: &Instance,
    conflicts: &Conflicts,
    order: &[usize],
) -> Result<Layout, SizeOverflow> {
    let items = &instance.items;
    let mut offsets = vec![0u64; items.len()];
    // `end[i]` is `offset + size` once item `i` (with bytes) is placed, else `None`.
    let mut end: Vec<Option<u64>> = vec![None; items.len()];
    for (i, it) in items.iter().enumerate() {
        if let Some(off) = it.fixed {
            offsets[i] = off;
            if it.size > 0 {
                end[i] = Some(off.checked_add(it.size).ok_or(SizeOverflow { item: i })?);
            }
        }
    }
    let mut taken: Vec<(u64, u64)> = Vec::new();
    for &i in order {
        let it = &items[i];
        if it.fixed.is_some() {
            continue;
        }
        if it.size == 0 {
            // No bytes: the lowest aligned offset, 0, overlaps nothing.
            offsets[i] = 0;
            continue;
        }
        taken.clear();
        taken.extend(
            conflicts
                .of(i)
                .iter()
                .filter_map(|&j| end[j as usize].map(|e| (offsets[j as usize], e))),
        );
        taken.sort_unstable();
        let off = lowest_fit(it, &taken).ok_or(SizeOverflow { item: i })?;
        offsets[i] = off;
        end[i] = Some(off.checked_add(it.size).ok_or(SizeOverflow { item: i })?);
    }
    Layout::from_offsets(instance, offsets)
}

/// The lowest offset, a multiple of `item.align`, where `item` overlaps none of the byte
/// ranges `taken` (sorted by start). `None` on overflow.
pub(crate) fn lowest_fit(item: &Item, taken: &[(u64, u64)]) -> Option<u64> {
    let mut cand = 0u64;
    for &(start, end) in taken {
        if cand.checked_add(item.size)? <= start {
            break;
        }
        if end > cand {
            cand = align_up(end, item.align)?;
        }
    }
    Some(cand)
}

/// Greedy by size, first fit.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn greedy(instance: &Instance) -> Result<Layout, SizeOverflow> {
    first_fit(instance, &greedy_order(instance))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Lifetime;

    fn item(size: u64, align: u64, first: u32, last: u32) -> Item {
        Item {
            size,
            align,
            lifetime: Lifetime::new(first, last).unwrap(),
            fixed: None,
        }
    }

    #[test]
    fn disjoint_lifetimes_share_offset_zero() {
        let inst = Instance {
            items: vec![item(100, 1, 0, 1), item(50, 1, 2, 3)],
        };
        let l = greedy(&inst).unwrap();
        assert_eq!(l.offsets, vec![0, 0]);
        assert_eq!(l.bytes, 100);
    }

    #[test]
    fn touching_lifetimes_conflict() {
        let inst = Instance {
            items: vec![item(100, 1, 0, 1), item(50, 1, 1, 3)],
        };
        let l = greedy(&inst).unwrap();
        assert_eq!(l.offsets, vec![0, 100]);
        assert_eq!(l.bytes, 150);
    }

    #[test]
    fn alignment_rounds_the_offset_up() {
        // 10 bytes at 0, then an 8-byte item aligned to 16 must go to 16, not 10.
        let inst = Instance {
            items: vec![item(10, 1, 0, 0), item(8, 16, 0, 0)],
        };
        let l = greedy(&inst).unwrap();
        assert_eq!(l.offsets, vec![0, 16]);
        assert_eq!(l.bytes, 24);
    }

    #[test]
    fn first_fit_uses_a_gap_around_a_fixed_item() {
        // Fixed 256 bytes at 512; a 512-byte item fits only in [0, 512).
        let mut p = item(256, 16, 0, 4);
        p.fixed = Some(512);
        let inst = Instance {
            items: vec![p, item(512, 16, 0, 4)],
        };
        let l = greedy(&inst).unwrap();
        assert_eq!(l.offsets, vec![512, 0]);
        assert_eq!(l.bytes, 768);
    }

    #[test]
    fn order_is_size_then_length_then_first_then_index() {
        let inst = Instance {
            items: vec![
                item(8, 1, 5, 5),
                item(16, 1, 0, 0),
                item(8, 1, 0, 3),
                item(8, 1, 2, 5),
                item(8, 1, 2, 5),
            ],
        };
        assert_eq!(greedy_order(&inst), vec![1, 2, 3, 4, 0]);
    }
}
