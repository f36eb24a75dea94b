//! Seeded synthetic instances: three whose live set stays bounded as they grow, like a real
//! network's, and three adversarial ones in which most buffers are live at once.
//!
//! The shapes ([`Shape`]):
//!
//! - [`Shape::Chain`]: a chain of operators; buffer `i` is written at step `i` and lives 2
//!   or 3 steps. At most 3 buffers are live at once.
//! - [`Shape::Residual`]: a chain of 2-3-step activations, plus skip connections: at each
//!   step a skip may open (a buffer written now, read when the skip closes) or the most
//!   recently opened skip may close; nested residual blocks, at most 29 skips open, so at
//!   most 32 buffers live at once.
//! - [`Shape::Random`]: intervals of 1 to 64 steps at uniformly random first steps, over a
//!   timeline long enough that about 16 buffers are live on average.
//! - [`Shape::AllLive`]: every buffer live at step 0 (`n` live at once).
//! - [`Shape::SevenSteps`]: rows over 7 steps: each buffer lives from a uniformly random
//!   step in `0..7` to a uniformly random later (or the same) step below 7, so most pairs
//!   of buffers share a step.
//! - [`Shape::Nested`]: buffer `i` lives `[i, 2n - i]`: every lifetime holds the next one,
//!   all `n` share step `n`, and there are about `2n` distinct steps.
//! - [`Shape::Staggered`]: buffer `i` lives `[i, i + 3]` and holds `16 * (1 + i % 7)` bytes
//!   (no random numbers): 4 live at once, but no step boundary is free, so the whole
//!   instance is one part, and `best_of` stays 18 % above the lower bound. A search whose
//!   node cost grows with its part took 42 s and 4 GB on 100,000 of them.
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
    /// Every buffer live at step 0.
    AllLive,
    /// Random intervals within 7 steps.
    SevenSteps,
    /// Buffer `i` lives `[i, 2n - i]`.
    Nested,
    /// Buffer `i` lives `[i, i + 3]`, `16 * (1 + i % 7)` bytes.
    Staggered,
}

impl Shape {
    /// All shapes, in a fixed order.
    pub const ALL: [Shape; 7] = [
        Shape::Chain,
        Shape::Residual,
        Shape::Random,
        Shape::AllLive,
        Shape::SevenSteps,
        Shape::Nested,
        Shape::Staggered,
    ];

    /// The shape's name in reports and on the command line: `chain`, `residual`,
    /// `random`, `all_live`, `seven_steps`, `nested`, `staggered`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Chain => "chain",
            Shape::Residual => "residual",
            Shape::Random => "random",
            Shape::AllLive => "all_live",
            Shape::SevenSteps => "seven_steps",
            Shape::Nested => "nested",
            Shape::Staggered => "staggered",
        }
    }

    /// The shape named `name` (as [`Shape::name`] writes it), if any.
    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
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
/// If the steps of `n` buffers (`2n` for [`Shape::Nested`]) do not fit in a `u32`.
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
        Shape::AllLive => {
            for _ in 0..n {
                items.push(item(g.size(), 0, 0));
            }
        }
        Shape::SevenSteps => {
            for _ in 0..n {
                let first = g.below(7) as u32;
                let last = first + g.below(u64::from(7 - first)) as u32;
                items.push(item(g.size(), first, last));
            }
        }
        Shape::Nested => {
            let end = steps.checked_mul(2).expect("too many buffers");
            for i in 0..steps {
                items.push(item(g.size(), i, end - i));
            }
        }
        Shape::Staggered => {
            steps.checked_add(3).expect("too many buffers");
            for i in 0..steps {
                items.push(item(16 * (1 + u64::from(i % 7)), i, i + 3));
            }
        }
    }
    Instance::new(items)
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
            // The staggered shape draws no random numbers.
            if shape != Shape::Staggered {
                assert_ne!(a, generate(shape, 5000, 8));
            }
            assert_eq!(a.items.len(), 5000);
            let live = max_live(&a);
            match shape {
                Shape::Chain => assert!(live <= 3, "{live}"),
                Shape::Residual => assert!(live <= 32, "{live}"),
                Shape::Random => assert!(live <= 64, "{live}"),
                Shape::AllLive | Shape::Nested => assert_eq!(live, 5000),
                Shape::SevenSteps => assert!(live > 2000 && live < 5000, "{live}"),
                Shape::Staggered => assert_eq!(live, 4),
            }
            assert!(
                a.items
                    .iter()
                    .all(|it| it.size % 16 == 0 && it.size >= 16 && it.size < 1 << 19)
            );
            assert!(a.items.iter().all(|it| it.lifetime.len() <= 64
                || shape == Shape::Residual
                || shape == Shape::Nested));
        }
    }

    #[test]
    fn the_adversarial_shapes_have_the_lifetimes_they_promise() {
        let seven = generate(Shape::SevenSteps, 2000, 3);
        assert!(seven.items.iter().all(|it| it.lifetime.last < 7));
        // Every first step and every length occurs.
        for s in 0..7 {
            assert!(seven.items.iter().any(|it| it.lifetime.first == s));
            assert!(
                seven
                    .items
                    .iter()
                    .any(|it| it.lifetime.len() == u64::from(s) + 1)
            );
        }
        let nested = generate(Shape::Nested, 10, 3);
        for (i, it) in nested.items.iter().enumerate() {
            assert_eq!(
                (it.lifetime.first, it.lifetime.last),
                (i as u32, 20 - i as u32)
            );
        }
        let staggered = generate(Shape::Staggered, 10, 3);
        assert_eq!(max_live(&staggered), 4);
        assert_eq!(staggered.items[8].size, 32);
        let all = generate(Shape::AllLive, 10, 3);
        assert!(
            all.items
                .iter()
                .all(|it| it.lifetime.first == 0 && it.lifetime.last == 0)
        );
    }

    #[test]
    fn shapes_are_found_by_name() {
        for shape in Shape::ALL {
            assert_eq!(Shape::from_name(shape.name()), Some(shape));
        }
        assert_eq!(Shape::from_name("star"), None);
    }
}
