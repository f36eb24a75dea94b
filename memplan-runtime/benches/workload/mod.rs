//! The workload both allocation benchmarks (`alloc`, `paired`) run: one fixed sequence of
//! requests, so their figures compare.

use std::alloc::Layout;

/// Allocations per measured iteration.
pub const SEQUENCE: usize = 4096;
/// Allocations between two resets.
pub const RESET_EVERY: usize = 64;
/// Largest request: sizes are 1..=MAX_SIZE bytes.
pub const MAX_SIZE: usize = 128;
/// Pool bytes: enough for `RESET_EVERY` of the largest requests at the largest padding.
pub const POOL: usize = RESET_EVERY * (MAX_SIZE + 16);

/// A fixed pseudo-random sequence (64-bit LCG, Knuth's MMIX constants) of sizes 1..=128
/// and alignments 1, 2, 4, 8, 16, mostly small, like the objects of a kernel.
pub fn sequence() -> Vec<Layout> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..SEQUENCE)
        .map(|_| {
            let r = next();
            // Three in four requests are small (1..=32 bytes).
            let size = if r % 4 == 0 {
                1 + (r >> 2) % MAX_SIZE
            } else {
                1 + (r >> 2) % 32
            };
            let align = 1 << ((r >> 12) % 5);
            Layout::from_size_align(size, align).unwrap()
        })
        .collect()
}
