//! One region's packing problem: items with a size, an alignment, a lifetime and perhaps a
//! fixed offset. Strategies turn an [`Instance`] into offsets; [`crate::plan`] builds the
//! instances from a [`crate::Problem`] (in-place groups merged, regions chosen).

use crate::problem::Lifetime;

/// One item to place in a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// Bytes.
    pub size: u64,
    /// Alignment of the offset in bytes, a power of two.
    pub align: u64,
    /// When the item is live.
    pub lifetime: Lifetime,
    /// A fixed offset (already verified against the other fixed items), if any.
    pub fixed: Option<u64>,
}

/// A region's packing problem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Instance {
    /// The items, in a fixed order; strategies return one offset per item, in this order.
    pub items: Vec<Item>,
}

/// Offsets for an [`Instance`], one per item, and the bytes they span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `offsets[i]` is item `i`'s offset in bytes.
    pub offsets: Vec<u64>,
    /// The planned bytes: the largest `offset + size` (0 when there are no bytes).
    pub bytes: u64,
}

/// Arithmetic on sizes overflowed `u64`; names the item whose end could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeOverflow {
    /// The index of the item.
    pub item: usize,
}

/// `value` rounded up to a multiple of `align` (a power of two), or `None` on overflow.
pub const fn align_up(value: u64, align: u64) -> Option<u64> {
    let mask = align - 1;
    match value.checked_add(mask) {
        Some(v) => Some(v & !mask),
        None => None,
    }
}

impl Layout {
    /// Builds the layout from offsets, computing its bytes.
    ///
    /// # Errors
    ///
    /// [`SizeOverflow`] when some `offset + size` overflows `u64`.
    pub fn from_offsets(instance: &Instance, offsets: Vec<u64>) -> Result<Layout, SizeOverflow> {
        let mut bytes = 0u64;
        for (i, (item, &off)) in instance.items.iter().zip(&offsets).enumerate() {
            if item.size == 0 {
                continue;
            }
            let end = off.checked_add(item.size).ok_or(SizeOverflow { item: i })?;
            bytes = bytes.max(end);
        }
        Ok(Layout { offsets, bytes })
    }
}

/// The lower bound of an instance: the most bytes live at one step, and the first step at
/// which that many are live. No layout can use fewer bytes.
///
/// Returns `(0, None)` for an instance with no bytes. Sums saturate at `u64::MAX` (a bound
/// that large already exceeds every region).
pub fn lower_bound(instance: &Instance) -> (u64, Option<crate::Step>) {
    // Sweep over events: +size at `first`, -size after `last`. Removals sort before
    // additions at the same step (a buffer ending at t-1 frees its bytes at t).
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(instance.items.len() * 2);
    for it in &instance.items {
        if it.size == 0 {
            continue;
        }
        events.push((it.lifetime.first as u64, true, it.size));
        events.push((it.lifetime.last as u64 + 1, false, it.size));
    }
    // (step, is_add, size): false < true, so removals come first at equal steps.
    events.sort_unstable();
    let mut live: u128 = 0;
    let mut best: u128 = 0;
    let mut best_step = None;
    for (step, add, size) in events {
        if add {
            live += size as u128;
            if live > best {
                best = live;
                best_step = Some(step as crate::Step);
            }
        } else {
            live -= size as u128;
        }
    }
    (best.min(u64::MAX as u128) as u64, best_step)
}

/// Indices of the items live at `step`, largest first (ties: lower index first).
pub fn live_at(instance: &Instance, step: crate::Step) -> Vec<usize> {
    let mut v: Vec<usize> = (0..instance.items.len())
        .filter(|&i| {
            let l = instance.items[i].lifetime;
            l.first <= step && step <= l.last
        })
        .collect();
    v.sort_by(|&a, &b| instance.items[b].size.cmp(&instance.items[a].size).then(a.cmp(&b)));
    v
}
