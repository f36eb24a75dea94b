//! Alignment padding of a region's plan, exactly and in O(n log^2 n).
//!
//! The padding below a buffer with bytes is the bytes between `e`, the highest end
//! (`offset + size`) at or below its offset of the buffers with bytes that share a step
//! with it (0 if none), and the first multiple of its alignment at or above `e` (never past
//! its own offset): the bytes that its alignment alone keeps it from using. A gap wider
//! than that is fragmentation, not padding. The region's padding is the sum over its
//! buffers. Zero-size buffers neither have padding nor bound anyone's.
//!
//! `e` is the larger of two queries: buffers that start within the buffer's lifetime (a
//! merge-sort tree over buffers sorted by first step, each node holding its ends sorted),
//! and buffers live at its first step that started before it (a segment tree over the
//! first steps, each buffer stored in the nodes covering its lifetime). Each query takes,
//! per node visited, the largest end at or below the offset by binary search.

/// A buffer as the padding needs it.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// Offset in bytes.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// First step live.
    pub first: u32,
    /// Last step live (inclusive).
    pub last: u32,
    /// Alignment in bytes (a power of two).
    pub align: u64,
}

impl Span {
    fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
}

/// The largest value at most `limit` in the sorted `list`.
fn best_at_most(list: &[u64], limit: u64) -> Option<u64> {
    let k = list.partition_point(|&v| v <= limit);
    k.checked_sub(1).map(|k| list[k])
}

/// The region's padding, in bytes (saturating at `u64::MAX`).
pub fn padding(spans: &[Span]) -> u64 {
    let mut sized: Vec<Span> = spans.iter().copied().filter(|s| s.size > 0).collect();
    if sized.is_empty() {
        return 0;
    }
    sized.sort_by_key(|s| s.first);
    let n = sized.len();
    let firsts: Vec<u32> = sized.iter().map(|s| s.first).collect();
    // Merge-sort tree over positions in first-step order.
    let mut by_first: Vec<Vec<u64>> = vec![Vec::new(); 2 * n];
    for (i, s) in sized.iter().enumerate() {
        by_first[n + i] = vec![s.end()];
    }
    for i in (1..n).rev() {
        let mut merged = [by_first[2 * i].as_slice(), by_first[2 * i + 1].as_slice()].concat();
        merged.sort_unstable();
        by_first[i] = merged;
    }
    // Segment tree over the distinct first steps, holding the ends of the buffers live there.
    let mut steps = firsts.clone();
    steps.dedup();
    let m = steps.len();
    let mut live: Vec<Vec<u64>> = vec![Vec::new(); 2 * m];
    for s in &sized {
        let (mut lo, mut hi) = (
            steps.partition_point(|&t| t < s.first) + m,
            steps.partition_point(|&t| t <= s.last) + m,
        );
        while lo < hi {
            if lo & 1 == 1 {
                live[lo].push(s.end());
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                live[hi].push(s.end());
            }
            lo /= 2;
            hi /= 2;
        }
    }
    for list in &mut live {
        list.sort_unstable();
    }
    let mut total: u128 = 0;
    for s in &sized {
        let mut e = 0;
        // Buffers that start within `s`'s lifetime.
        let (mut lo, mut hi) = (
            firsts.partition_point(|&t| t < s.first) + n,
            firsts.partition_point(|&t| t <= s.last) + n,
        );
        while lo < hi {
            if lo & 1 == 1 {
                e = e.max(best_at_most(&by_first[lo], s.offset).unwrap_or(0));
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                e = e.max(best_at_most(&by_first[hi], s.offset).unwrap_or(0));
            }
            lo /= 2;
            hi /= 2;
        }
        // Buffers live at its first step.
        let mut node = steps.partition_point(|&t| t < s.first) + m;
        while node >= 1 {
            e = e.max(best_at_most(&live[node], s.offset).unwrap_or(0));
            node /= 2;
        }
        let aligned = memplan_planner::align_up(e, s.align.max(1)).unwrap_or(u64::MAX);
        total += u128::from(aligned.min(s.offset).saturating_sub(e));
    }
    total.min(u128::from(u64::MAX)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(offset: u64, size: u64, first: u32, last: u32, align: u64) -> Span {
        Span {
            offset,
            size,
            first,
            last,
            align,
        }
    }

    /// The definition, pair by pair.
    fn quadratic(spans: &[Span]) -> u64 {
        spans
            .iter()
            .filter(|s| s.size > 0)
            .map(|s| {
                let e = spans
                    .iter()
                    .filter(|c| c.size > 0 && c.first <= s.last && s.first <= c.last)
                    .map(Span::end)
                    .filter(|&end| end <= s.offset)
                    .max()
                    .unwrap_or(0);
                let a = memplan_planner::align_up(e, s.align).unwrap();
                a.min(s.offset) - e
            })
            .sum()
    }

    #[test]
    fn counts_the_bytes_alignment_keeps_below_each_buffer() {
        // `b` (align 64) sits on `a`'s end, 100, rounded up to 128: 28 bytes. Below `c`, at
        // 300, the highest end live with it is `b`'s, 168, already a multiple of 4 (`c`'s
        // alignment): its gap is fragmentation. The zero-size buffer counts for nothing.
        let spans = [
            span(0, 100, 0, 2, 4),
            span(128, 40, 1, 3, 64),
            span(300, 8, 2, 2, 4),
            span(200, 0, 1, 1, 64),
        ];
        assert_eq!(padding(&spans), 28);
        assert_eq!(quadratic(&spans), 28);
        // Disjoint in time: nothing is below the second buffer, whose gap is fragmentation.
        assert_eq!(padding(&[span(0, 10, 0, 0, 16), span(16, 10, 1, 1, 16)]), 0);
        // Two 10-byte buffers aligned to 16, live together: 6 bytes below the second.
        assert_eq!(padding(&[span(0, 10, 0, 1, 16), span(16, 10, 1, 1, 16)]), 6);
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_definition_on_random_layouts(
            raw in proptest::collection::vec((0..6u32, 0..40u64, 0..70u64, 0..12u32, 0..6u32), 1..31)
        ) {
            let spans: Vec<Span> = raw
                .iter()
                .map(|&(a, slot, size, first, len)| {
                    let align = 1 << a;
                    span(slot * align, size, first, first + len, align)
                })
                .collect();
            proptest::prop_assert_eq!(padding(&spans), quadratic(&spans), "{:?}", spans);
        }
    }
}
