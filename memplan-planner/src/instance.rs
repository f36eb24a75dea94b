//! One region's packing problem: items with a size, an alignment, a lifetime and perhaps a
//! fixed offset. Strategies turn an [`Instance`] into offsets; [`crate::plan()`] builds the
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

#[cfg(test)]
impl Item {
    /// A test item: `size` bytes, alignment 1, live `first..=last`, not fixed.
    pub(crate) fn plain(size: u64, first: u32, last: u32) -> Item {
        Item {
            size,
            align: 1,
            lifetime: Lifetime { first, last },
            fixed: None,
        }
    }
}

/// One piece of an item whose bytes change over its lifetime: during `lifetime` the item
/// holds `size` bytes from its offset up. An in-place chain whose members differ in size,
/// or leave steps between them where none is live, is one item of several pieces: at each
/// step it holds only the bytes of the member live there (at a handover step, the larger
/// of the two), and between its pieces none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// When the piece is live.
    pub lifetime: Lifetime,
    /// Its bytes, from the item's offset up.
    pub size: u64,
}

/// A region's packing problem.
///
/// Every item is a rectangle (its size over its lifetime) unless `pieces` gives it pieces.
/// `pieces` is empty (no item has any) or has one entry per item; an item's entry is empty
/// (a rectangle) or lists its pieces in time order, disjoint, inside the item's lifetime,
/// the largest as big as the item (`size` and `lifetime` are the item's bounding
/// rectangle, which strategies that do not read pieces place instead).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Instance {
    /// The items, in a fixed order; strategies return one offset per item, in this order.
    pub items: Vec<Item>,
    /// The pieces of the items whose bytes change over their lifetime (see above).
    pub pieces: Vec<Vec<Piece>>,
}

impl Instance {
    /// An instance of rectangles only.
    pub fn new(items: Vec<Item>) -> Instance {
        Instance {
            items,
            pieces: Vec::new(),
        }
    }

    /// Whether some item has pieces.
    pub fn has_pieces(&self) -> bool {
        self.pieces.iter().any(|p| !p.is_empty())
    }

    /// Item `i`'s pieces, `None` for a rectangle.
    pub fn pieces_of(&self, i: usize) -> Option<&[Piece]> {
        self.pieces
            .get(i)
            .map(Vec::as_slice)
            .filter(|p| !p.is_empty())
    }

    /// The bytes item `i` holds at `step` (0 outside its lifetime and between its pieces).
    pub fn size_at(&self, i: usize, step: crate::Step) -> u64 {
        match self.pieces_of(i) {
            Some(pieces) => pieces
                .iter()
                .find(|p| p.lifetime.contains(step))
                .map_or(0, |p| p.size),
            None if self.items[i].lifetime.contains(step) => self.items[i].size,
            None => 0,
        }
    }

    /// Every rectangle of the instance, each as an item (an item's pieces take its
    /// alignment and pin), with the index of its item, in item order: `None` when no item
    /// has pieces (the rectangles are the items).
    pub(crate) fn rects(&self) -> Option<(Vec<Item>, Vec<u32>)> {
        if !self.has_pieces() {
            return None;
        }
        let mut rects = Vec::with_capacity(self.items.len());
        let mut owner = Vec::with_capacity(self.items.len());
        for (i, it) in self.items.iter().enumerate() {
            match self.pieces_of(i) {
                Some(pieces) => {
                    for p in pieces {
                        rects.push(Item {
                            size: p.size,
                            lifetime: p.lifetime,
                            ..*it
                        });
                        owner.push(i as u32);
                    }
                }
                None => {
                    rects.push(*it);
                    owner.push(i as u32);
                }
            }
        }
        Some((rects, owner))
    }

    /// The same items as rectangles (each its bounding rectangle): a layout of it is a
    /// layout of this instance, never smaller.
    pub fn bounding(&self) -> Instance {
        Instance::new(self.items.clone())
    }
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

/// The lower bound of an instance: the most bytes live at one step (an item with pieces
/// counts the piece live there), and the first step at which that many are live. No layout
/// can use fewer bytes.
///
/// Returns `(0, None)` for an instance with no bytes. Sums saturate at `u64::MAX` (a bound
/// that large already exceeds every region).
pub fn lower_bound(instance: &Instance) -> (u64, Option<crate::Step>) {
    let rects = instance.rects();
    let items = rects.as_ref().map_or(&instance.items[..], |r| &r.0[..]);
    // Sweep over events: +size at `first`, -size after `last`. Removals sort before
    // additions at the same step (a buffer ending at t-1 frees its bytes at t).
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(items.len() * 2);
    for it in items {
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

/// A lower bound that also counts alignment padding: at every step, with `g` the smallest
/// alignment among the items live there, the live items need at least
/// `sum(round_up(size, g)) - max(round_up(size, g) - size)` bytes (every offset is a
/// multiple of `g`, so each item but the topmost is followed by at least
/// `round_up(size, g)` bytes up to the next item's start). Never less than
/// [`lower_bound`]; equal to it when every size is a multiple of the alignments.
///
/// Twenty 10-byte items aligned to 4 and live together need `20 * 12 - 2 = 238` bytes,
/// where [`lower_bound`] says 200.
///
/// Cost: `O(n log n + n·a·log n)` for the `a` distinct alignments of the instance (at most
/// 17, as alignments are powers of two up to [`crate::MAX_ALIGN`]; usually one or two): a
/// sweep keeps, for each alignment, the live items' rounded sizes summed and their
/// roundings in an ordered multiset, so each step costs a lookup, not a pass over the live
/// items. Saturates at `u64::MAX`.
pub fn aligned_lower_bound(instance: &Instance) -> AlignedBound {
    let rects = instance.rects();
    let items = rects.as_ref().map_or(&instance.items[..], |r| &r.0[..]);
    let with_bytes: Vec<usize> = (0..items.len()).filter(|&i| items[i].size > 0).collect();
    let mut starts = with_bytes.clone();
    starts.sort_by_key(|&i| (items[i].lifetime.first, i));
    let mut ends = with_bytes;
    ends.sort_by_key(|&i| (items[i].lifetime.last, i));
    let mut aligns: Vec<u64> = items.iter().map(|it| it.align.max(1)).collect();
    aligns.sort_unstable();
    aligns.dedup();
    let mut by_align: Vec<Rounded> = aligns.iter().map(|&g| Rounded::new(g)).collect();
    // Live items per alignment (the index into `aligns`).
    let mut live_of = vec![0usize; aligns.len()];
    let slot = |it: &Item| aligns.partition_point(|&g| g < it.align.max(1));
    let mut best = AlignedBound {
        bytes: 0,
        step: None,
        align: 1,
    };
    let mut best_bytes: u128 = 0;
    let (mut k, mut e) = (0, 0);
    while k < starts.len() {
        // Items that ended before this step leave; all items starting at it join.
        let step = items[starts[k]].lifetime.first;
        while e < ends.len() && items[ends[e]].lifetime.last < step {
            let it = &items[ends[e]];
            live_of[slot(it)] -= 1;
            by_align.iter_mut().for_each(|r| r.remove(it.size));
            e += 1;
        }
        while k < starts.len() && items[starts[k]].lifetime.first == step {
            let it = &items[starts[k]];
            live_of[slot(it)] += 1;
            by_align.iter_mut().for_each(|r| r.add(it.size));
            k += 1;
        }
        // The smallest alignment live; something is live, as an item just joined.
        let Some(a) = live_of.iter().position(|&c| c > 0) else {
            continue;
        };
        let r = &by_align[a];
        let bytes = r.sum - u128::from(r.most_waste());
        if bytes > best_bytes {
            best_bytes = bytes;
            best = AlignedBound {
                bytes: bytes.min(u64::MAX as u128) as u64,
                step: Some(step),
                align: aligns[a],
            };
        }
    }
    best
}

/// The live items' sizes rounded up to one alignment `g`: their sum and the multiset of
/// the bytes each rounding adds.
struct Rounded {
    g: u128,
    sum: u128,
    /// Bytes added by a rounding -> how many live items have that rounding.
    waste: std::collections::BTreeMap<u64, u64>,
}

impl Rounded {
    fn new(g: u64) -> Rounded {
        Rounded {
            g: u128::from(g),
            sum: 0,
            waste: std::collections::BTreeMap::new(),
        }
    }

    fn rounded(&self, size: u64) -> (u128, u64) {
        let s = u128::from(size);
        let r = s.div_ceil(self.g) * self.g;
        // Less than `g`, so it fits.
        (r, (r - s) as u64)
    }

    fn add(&mut self, size: u64) {
        let (r, w) = self.rounded(size);
        self.sum += r;
        *self.waste.entry(w).or_insert(0) += 1;
    }

    fn remove(&mut self, size: u64) {
        let (r, w) = self.rounded(size);
        self.sum -= r;
        if let Some(c) = self.waste.get_mut(&w) {
            *c -= 1;
            if *c == 0 {
                self.waste.remove(&w);
            }
        }
    }

    /// The largest rounding among the live items (0 when none is live).
    fn most_waste(&self) -> u64 {
        self.waste.last_key_value().map_or(0, |(&w, _)| w)
    }
}

/// The result of [`aligned_lower_bound`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlignedBound {
    /// The bound, in bytes.
    pub bytes: u64,
    /// The first step where it is reached (`None` when no bytes are live).
    pub step: Option<crate::Step>,
    /// The smallest alignment among the items live there, in bytes.
    pub align: u64,
}

/// The items live at `step` with the bytes each holds there ([`Instance::size_at`]),
/// largest first (ties: lower index first). An item between two of its pieces is not live.
pub fn live_at(instance: &Instance, step: crate::Step) -> Vec<(usize, u64)> {
    let mut v: Vec<(usize, u64)> = (0..instance.items.len())
        .filter(|&i| instance.items[i].lifetime.contains(step))
        .filter(|&i| {
            instance
                .pieces_of(i)
                .is_none_or(|p| p.iter().any(|p| p.lifetime.contains(step)))
        })
        .map(|i| (i, instance.size_at(i, step)))
        .collect();
    v.sort_by(|&(a, sa), &(b, sb)| sb.cmp(&sa).then(a.cmp(&b)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Lifetime;
    use proptest::prelude::*;

    /// The quadratic sweep the incremental bound replaced: at every start step, a pass over
    /// the live items.
    fn aligned_lower_bound_by_scan(instance: &Instance) -> AlignedBound {
        let items = &instance.items;
        let mut starts: Vec<usize> = (0..items.len()).filter(|&i| items[i].size > 0).collect();
        starts.sort_by_key(|&i| (items[i].lifetime.first, i));
        let mut live: Vec<usize> = Vec::new();
        let mut best = AlignedBound {
            bytes: 0,
            step: None,
            align: 1,
        };
        let mut best_bytes: u128 = 0;
        let mut k = 0;
        while k < starts.len() {
            let step = items[starts[k]].lifetime.first;
            live.retain(|&j| items[j].lifetime.last >= step);
            while k < starts.len() && items[starts[k]].lifetime.first == step {
                live.push(starts[k]);
                k += 1;
            }
            let g = live
                .iter()
                .map(|&j| items[j].align.max(1))
                .min()
                .unwrap_or(1) as u128;
            let mut sum: u128 = 0;
            let mut waste: u128 = 0;
            for &j in &live {
                let s = items[j].size as u128;
                let r = s.div_ceil(g) * g;
                sum += r;
                waste = waste.max(r - s);
            }
            if sum - waste > best_bytes {
                best_bytes = sum - waste;
                best = AlignedBound {
                    bytes: best_bytes.min(u64::MAX as u128) as u64,
                    step: Some(step),
                    align: g as u64,
                };
            }
        }
        best
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn the_incremental_aligned_bound_matches_the_scan(
            raw in proptest::collection::vec((0u64..100, 0u32..6, 0u32..30, 0u32..10), 0..60),
        ) {
            let inst = Instance {
                pieces: Vec::new(),
                items: raw
                    .iter()
                    .map(|&(size, a, first, len)| item(size, 1 << (a * 3).min(16), first, first + len))
                    .collect(),
            };
            prop_assert_eq!(aligned_lower_bound(&inst), aligned_lower_bound_by_scan(&inst));
        }
    }

    #[test]
    fn the_aligned_bound_saturates_and_takes_huge_alignments() {
        let inst = Instance {
            pieces: Vec::new(),
            items: vec![
                item(u64::MAX, 1, 0, 0),
                item(u64::MAX, 1, 0, 0),
                item(3, 1 << 16, 0, 0),
            ],
        };
        assert_eq!(
            aligned_lower_bound(&inst),
            aligned_lower_bound_by_scan(&inst)
        );
        assert_eq!(aligned_lower_bound(&inst).bytes, u64::MAX);
    }

    fn item(size: u64, align: u64, first: u32, last: u32) -> Item {
        Item {
            size,
            align,
            lifetime: Lifetime { first, last },
            fixed: None,
        }
    }

    #[test]
    fn lower_bound_sums_the_bytes_live_at_the_peak() {
        let inst = Instance {
            pieces: Vec::new(),
            items: vec![
                item(10, 1, 0, 1),
                item(20, 1, 1, 2),
                item(30, 1, 2, 3),
                item(0, 1, 0, 3),
            ],
        };
        assert_eq!(lower_bound(&inst), (50, Some(2)));
        assert_eq!(lower_bound(&Instance::default()), (0, None));
    }

    #[test]
    fn aligned_lower_bound_counts_padding_between_items() {
        // Twenty 10-byte items at alignment 4, all live at step 0: 19 * 12 + 10, not 200.
        let inst = Instance {
            pieces: Vec::new(),
            items: (0..20).map(|_| item(10, 4, 0, 0)).collect(),
        };
        assert_eq!(lower_bound(&inst).0, 200);
        assert_eq!(
            aligned_lower_bound(&inst),
            AlignedBound {
                bytes: 238,
                step: Some(0),
                align: 4
            }
        );
        // Sizes that are multiples of the alignment: the same as the plain bound.
        let inst = Instance {
            pieces: Vec::new(),
            items: vec![item(16, 16, 0, 1), item(32, 16, 1, 2), item(48, 16, 3, 3)],
        };
        assert_eq!(aligned_lower_bound(&inst).bytes, lower_bound(&inst).0);
        // The smallest alignment live decides: 10 (align 1) + 10 (align 4) = 20, not 22.
        let inst = Instance {
            pieces: Vec::new(),
            items: vec![item(10, 1, 0, 0), item(10, 4, 0, 0)],
        };
        assert_eq!(aligned_lower_bound(&inst).bytes, 20);
    }
}
