//! Time compressed to sections: the steps between two consecutive points where some item
//! with bytes starts or ends. The set of live items is the same at every step of a
//! section, so per-step facts (live bytes, cut lines, peaks) are computed per section.
//! [`crate::best_of`], the exact search ([`crate::optimal`]) and spilling ([`crate::plan()`])
//! use it.

use crate::instance::Instance;

/// Time compressed to the boundaries where some item with bytes starts or ends.
///
/// Section `k` is the steps `bounds[k]..bounds[k + 1]`; the set of live items is the same at
/// every step of a section.
#[derive(Clone, Debug, Default)]
pub(crate) struct Timeline {
    /// Sorted distinct boundaries: every `first` and every `last + 1` of an item with bytes.
    pub(crate) bounds: Vec<u64>,
    /// Per item, the sections `[lo, hi)` of its lifetime; `(0, 0)` for a zero-size item.
    pub(crate) span: Vec<(u32, u32)>,
}

impl Timeline {
    /// The timeline of the items with bytes.
    pub(crate) fn new(instance: &Instance) -> Timeline {
        let items = &instance.items;
        let mut bounds: Vec<u64> = Vec::with_capacity(items.len() * 2);
        for it in items.iter().filter(|it| it.size > 0) {
            bounds.push(u64::from(it.lifetime.first));
            bounds.push(u64::from(it.lifetime.last) + 1);
        }
        bounds.sort_unstable();
        bounds.dedup();
        let index = |t: u64| bounds.partition_point(|&b| b < t) as u32;
        let span = items
            .iter()
            .map(|it| {
                if it.size == 0 {
                    (0, 0)
                } else {
                    (
                        index(u64::from(it.lifetime.first)),
                        index(u64::from(it.lifetime.last) + 1),
                    )
                }
            })
            .collect();
        Timeline { bounds, span }
    }

    /// The number of sections.
    pub(crate) fn sections(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    /// Bytes live in each section (saturating at `u64::MAX`).
    pub(crate) fn live_bytes(&self, instance: &Instance) -> Vec<u64> {
        let s = self.sections();
        let mut diff = vec![0i128; s + 1];
        for (it, &(lo, hi)) in instance.items.iter().zip(&self.span) {
            if it.size > 0 {
                diff[lo as usize] += i128::from(it.size);
                diff[hi as usize] -= i128::from(it.size);
            }
        }
        let mut acc = 0i128;
        diff[..s]
            .iter()
            .map(|d| {
                acc += d;
                u64::try_from(acc).unwrap_or(u64::MAX)
            })
            .collect()
    }

    /// The part of every item: items with bytes split at the section boundaries that no item
    /// spans; parts are numbered in time order. Zero-size items get `u32::MAX`.
    pub(crate) fn parts(&self) -> (Vec<u32>, usize) {
        let s = self.sections();
        // crossing[k]: items live in both section k and section k + 1.
        let mut diff = vec![0i64; s + 1];
        for &(lo, hi) in &self.span {
            if hi > lo + 1 {
                diff[lo as usize] += 1;
                diff[hi as usize - 1] -= 1;
            }
        }
        let mut part_of_section = vec![0u32; s];
        let (mut part, mut acc) = (0u32, 0i64);
        for k in 0..s {
            part_of_section[k] = part;
            acc += diff[k];
            if acc == 0 {
                part += 1;
            }
        }
        let parts = self
            .span
            .iter()
            .map(|&(lo, hi)| {
                if hi == lo {
                    u32::MAX
                } else {
                    part_of_section[lo as usize]
                }
            })
            .collect();
        (parts, part as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::Item;

    fn item(size: u64, first: u32, last: u32) -> Item {
        Item::plain(size, first, last)
    }

    #[test]
    fn parts_split_where_nothing_is_live_across() {
        let inst = Instance {
            pieces: Vec::new(),
            items: vec![
                item(4, 0, 1),
                item(4, 1, 2),
                item(0, 0, 9),
                item(4, 3, 3),
                item(4, 5, 6),
            ],
        };
        let t = Timeline::new(&inst);
        assert_eq!(t.bounds, vec![0, 1, 2, 3, 4, 5, 7]);
        let (parts, n) = t.parts();
        assert_eq!(parts, vec![0, 0, u32::MAX, 1, 3]);
        // Section [4, 5) has nothing live: a part of its own, with no items.
        assert_eq!(n, 4);
    }
}
