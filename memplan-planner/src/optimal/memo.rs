//! Remembered failed states: a node whose unplaced items sit at the same lowest offsets as a
//! node that failed before, with no more candidates than it had, fails at once.
//!
//! A state's key is the sum (wrapping, 128 bits) of one term per unplaced item of its part,
//! the item's random odd multiplier times its lowest offset plus one
//! ([`super::state::state_term`]), XORed, for a part made by a split, with a hash of the
//! part's items (its preorder depends on them). Keys are looked up, never iterated, so the search stays
//! deterministic.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The most failed states remembered per decision search.
const MAX_FAILED: usize = 1 << 20;

/// A 128-bit hash of one item at one offset: the items' multipliers (at offset 0) and the
/// hashes of a split part's items.
pub(super) fn zobrist(u: usize, offset: u64) -> u128 {
    fn mix(mut z: u64) -> u64 {
        // SplitMix64's finaliser.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let a = mix((u as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ mix(offset));
    let b = mix(a ^ 0xD1B5_4A32_D192_ED03 ^ offset.rotate_left(17));
    (u128::from(a) << 64) | u128::from(b)
}

/// A hasher for keys that are already uniformly random: it keeps 64 of their bits.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
}

/// Nodes proven to fail: state key -> the lowest `(offset, rank)` of the last item placed
/// before them at which they failed (a node after a lower one has fewer candidates).
#[derive(Default)]
pub(super) struct Memo {
    failed: HashMap<u128, (u64, u32), BuildHasherDefault<KeyHasher>>,
}

impl Memo {
    /// Forgets every state (a new decision search).
    pub(super) fn clear(&mut self) {
        self.failed.clear();
    }

    /// Where the state `key` failed before, if it did.
    pub(super) fn failed_at(&self, key: u128) -> Option<(u64, u32)> {
        self.failed.get(&key).copied()
    }

    /// Records that the node with state `key` fails from `at` on.
    pub(super) fn remember(&mut self, key: u128, at: (u64, u32)) {
        if let Some(v) = self.failed.get_mut(&key) {
            *v = (*v).min(at);
        } else if self.failed.len() < MAX_FAILED {
            self.failed.insert(key, at);
        }
    }
}
