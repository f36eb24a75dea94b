//! The order in which a node tries its candidates after their offset: a static preorder per
//! run (one of [`PREORDERS`]), and a fresh ranking of the items of each part a split makes,
//! as MiniMalloc's `SubSolve` does.

use super::build::Locals;

/// The static preorders the decision search tries in turn, as MiniMalloc names them:
/// `T` = the most bytes live in a section of the item's lifetime (largest first), `W` =
/// lifetime length in steps (longest first), `A` = size times length (largest first). Each
/// ends its tie-break on the item index. (`ATW`, tried third before, never found a layout
/// first on MiniMalloc's instances, and a third preorder makes every question cost a third
/// more.)
pub const PREORDERS: [&str; 2] = ["TWA", "TAW"];

/// The preorder in use: each local's rank, and the identical items that must keep it.
pub(super) struct Preorder {
    /// The rank of each local (lower first).
    pub(super) rank: Vec<u32>,
    /// The identical item (same lifetime, size and alignment) just before each local in
    /// the preorder, or `u32::MAX`: only the first unplaced one of a group may be placed
    /// next (any layout can swap them).
    pub(super) twin_prev: Vec<u32>,
    /// Ranks replaced by [`Preorder::rerank`]: `(local, old rank)`.
    log: Vec<(u32, u32)>,
    scratch: Vec<(u32, u64)>,
    /// The keys of the preorder in use (one of [`PREORDERS`]), zero-padded.
    keys: [u8; 4],
}

impl Preorder {
    /// Ranks in index order, for `m` locals (before the first [`Preorder::set`]).
    pub(super) fn new(m: usize) -> Preorder {
        Preorder {
            rank: (0..m as u32).collect(),
            twin_prev: vec![u32::MAX; m],
            log: Vec::new(),
            scratch: Vec::new(),
            keys: [0; 4],
        }
    }

    /// Sets the static preorder `keys` (one of [`PREORDERS`]); `total` is the bytes live in
    /// each section.
    pub(super) fn set(&mut self, keys: &str, loc: &Locals, total: &[u64]) {
        self.keys = [0; 4];
        for (k, c) in keys.bytes().take(4).enumerate() {
            self.keys[k] = c;
        }
        let m = loc.len();
        let mut v: Vec<(u32, u64)> = (0..m)
            .map(|u| {
                let (lo, hi) = loc.span[u];
                let t = total[lo as usize..hi as usize].iter().copied().max();
                (u as u32, t.unwrap_or(0))
            })
            .collect();
        self.sort(loc, &mut v);
        for (rank, &(u, _)) in v.iter().enumerate() {
            self.rank[u as usize] = rank as u32;
        }
        let mut by_key: Vec<usize> = v.iter().map(|&(u, _)| u as usize).collect();
        by_key.sort_by_key(|&u| (loc.life[u], loc.size[u], loc.align[u], self.rank[u]));
        self.twin_prev.iter_mut().for_each(|t| *t = u32::MAX);
        for w in by_key.windows(2) {
            let (a, b) = (w[0], w[1]);
            if (loc.life[a], loc.size[a], loc.align[a]) == (loc.life[b], loc.size[b], loc.align[b])
            {
                self.twin_prev[b] = a as u32;
            }
        }
    }

    /// Sorts `(local, T)` pairs by the preorder in use: each key largest first, then the
    /// local index.
    fn sort(&self, loc: &Locals, v: &mut [(u32, u64)]) {
        let keys = self.keys;
        let key = |u: usize, t: u64, c: u8| -> u128 {
            match c {
                b'T' => u128::from(t),
                b'W' => u128::from(loc.width[u]),
                b'A' => u128::from(loc.size[u]) * u128::from(loc.width[u]),
                _ => u128::from(loc.size[u]),
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

    /// Ranks `items`, the locals of a part made by a split, afresh, as MiniMalloc does: `T`
    /// is now the most bytes *still unplaced* (`rem`) in a section of the item's lifetime.
    /// The old ranks go to the log, restored by [`Preorder::restore`].
    pub(super) fn rerank(&mut self, loc: &Locals, items: &[u32], rem: &[u64]) {
        let mut v = std::mem::take(&mut self.scratch);
        v.clear();
        for &u in items {
            let (lo, hi) = loc.span[u as usize];
            let t = rem[lo as usize..hi as usize].iter().copied().max();
            v.push((u, t.unwrap_or(0)));
        }
        self.sort(loc, &mut v);
        for (rank, &(u, _)) in v.iter().enumerate() {
            self.log.push((u, self.rank[u as usize]));
            self.rank[u as usize] = rank as u32;
        }
        self.scratch = v;
    }

    /// The length of the log, to [`restore`](Preorder::restore) to.
    pub(super) fn mark(&self) -> usize {
        self.log.len()
    }

    /// Puts back the ranks replaced since `mark`.
    pub(super) fn restore(&mut self, mark: usize) {
        while self.log.len() > mark {
            if let Some((u, r)) = self.log.pop() {
                self.rank[u as usize] = r;
            }
        }
    }

    /// Forgets the log (a new search; the static ranks are set again by [`Preorder::set`]).
    pub(super) fn clear_log(&mut self) {
        self.log.clear();
    }
}
