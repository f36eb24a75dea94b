//! Seeded synthetic instances whose live set stays bounded as they grow, like a real
//! network's.
//!
//! Three shapes ([`Shape`]):
//!
//! - [`Shape::Chain`]: a chain of operators; buffer `i` is written at step `i` and lives 2
//!   or 3 steps. At most 3 buffers are live at once.
//! - [`Shape::Residual`]: a chain of 2-3-step activations, plus skip connections: at each
//!   step a skip may open (a buffer written now, read when the skip closes) or the most
//!   recently opened skip may close; nested residual blocks, at most 29 skips open, so at
//!   most 32 buffers live at once.
//! - [`Shape::Random`]: intervals of 1 to 64 steps at uniformly random first steps, over a
//!   timeline long enough that about 16 buffers are live on average.
//!
//! Sizes are multiples of 16 bytes, log-uniform from 16 B to 256 KiB; every buffer is
//! aligned to 16. The random numbers come from ChaCha8 (`rand_chacha`) seeded with
//! `seed_from_u64(seed)`, and are reduced to a range by a widening multiply, so an instance
//! is a function of `(shape, n, seed)` alone, on every machine.

use memplan_planner::Lifetime;
use memplan_planner::{Instance, Item};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// The shape of a synthetic instance (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Buffers living 2-3 steps, one written per step.
    Chain,
    /// A chain with nested skip connections; live set up to 32.
    Residual,
    /// Random intervals of at most 64 steps.
    Random,
}

impl Shape {
    /// All shapes, in a fixed order.
    pub const ALL: [Shape; 3] = [Shape::Chain, Shape::Residual, Shape::Random];

    /// The shape's name in reports: `chain`, `residual`, `random`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Chain => "chain",
            Shape::Residual => "residual",
            Shape::Random => "random",
        }
    }
}

/// A ChaCha8 stream with an unbiased-enough range reduction that is fixed here (not
/// delegated to a crate whose algorithm could change between versions).
struct Gen(ChaCha8Rng);

impl Gen {
    /// A number in `0..n` (`n > 0`), by the high half of a 64 x 64-bit product.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.0.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A size: a multiple of 16 bytes, log-uniform between 16 B and 256 KiB.
    fn size(&mut self) -> u64 {
        // 2^4 .. 2^18 bytes: pick the power, then a uniform size within [2^k, 2^(k+1)).
        let k = 4 + self.below(14);
        let lo = 1u64 << k;
        (lo + self.below(lo)) / 16 * 16
    }
}

fn item(size: u64, first: u32, last: u32) -> Item {
    Item {
        size,
        align: 16,
        lifetime: Lifetime { first, last },
        fixed: None,
    }
}

/// A synthetic instance of `n` buffers of shape `shape`, from `seed`.
///
/// # Panics
///
/// If `n` does not fit in a `u32` step count.
pub fn generate(shape: Shape, n: usize, seed: u64) -> Instance {
    let mut g = Gen(ChaCha8Rng::seed_from_u64(seed));
    let steps = u32::try_from(n).expect("too many buffers");
    let mut items = Vec::with_capacity(n);
    match shape {
        Shape::Chain => {
            for i in 0..steps {
                let len = 2 + g.below(2) as u32;
                items.push(item(g.size(), i, i + len - 1));
            }
        }
        Shape::Residual => {
            // Each step writes one activation; some steps also open a skip. A skip's buffer
            // is written at its opening step and read at its closing step.
            let mut open: Vec<(u64, u32)> = Vec::new();
            let mut step = 0u32;
            while items.len() < n {
                let len = 2 + g.below(2) as u32;
                items.push(item(g.size(), step, step + len - 1));
                let r = g.below(8);
                if items.len() < n && open.len() < 29 && r < 2 {
                    open.push((g.size(), step));
                } else if r < 4
                    && items.len() < n
                    && let Some((size, first)) = open.pop()
                {
                    items.push(item(size, first, step));
                }
                step += 1;
            }
            // Skips still open close at the end; none if the budget of buffers ran out.
            while let Some((size, first)) = open.pop() {
                if items.len() >= n {
                    break;
                }
                items.push(item(size, first, step));
            }
        }
        Shape::Random => {
            // Mean length 32.5 steps; ~16 live on average.
            let horizon = (steps as u64 * 65 / 32).max(1);
            for _ in 0..n {
                let first = g.below(horizon) as u32;
                let len = 1 + g.below(64) as u32;
                items.push(item(g.size(), first, first + len - 1));
            }
        }
    }
    Instance { items }
}

/// The largest number of items live at one step.
pub fn max_live(instance: &Instance) -> usize {
    let mut ev: Vec<(u64, i64)> = Vec::with_capacity(instance.items.len() * 2);
    for it in &instance.items {
        ev.push((u64::from(it.lifetime.first), 1));
        ev.push((u64::from(it.lifetime.last) + 1, -1));
    }
    ev.sort_unstable();
    let (mut live, mut best) = (0i64, 0i64);
    for (_, d) in ev {
        live += d;
        best = best.max(live);
    }
    best as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_instance_and_the_live_set_is_bounded() {
        for shape in Shape::ALL {
            let a = generate(shape, 5000, 7);
            assert_eq!(a, generate(shape, 5000, 7));
            assert_ne!(a, generate(shape, 5000, 8));
            assert_eq!(a.items.len(), 5000);
            let live = max_live(&a);
            match shape {
                Shape::Chain => assert!(live <= 3, "{live}"),
                Shape::Residual => assert!(live <= 32, "{live}"),
                Shape::Random => assert!(live <= 64, "{live}"),
            }
            assert!(
                a.items
                    .iter()
                    .all(|it| it.size % 16 == 0 && it.size >= 16 && it.size < 1 << 19)
            );
            assert!(
                a.items
                    .iter()
                    .all(|it| it.lifetime.len() <= 64 || shape == Shape::Residual)
            );
        }
    }
}
