//! Seeded synthetic problems for the parts of planning around the packing: in-place chains
//! and spilling ([`ProblemShape`]). Sizes come from [`crate::synth`]'s generator.

use memplan_planner::{Buffer, Problem, Region};

use crate::synth::{Shape, generate};

/// The shape of a synthetic problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemShape {
    /// `n` buffers of 64 bytes, all live at step 0 only, buffer `i` in place of buffer
    /// `i - 1`: one chain of `n - 1` links (one group) in which every two buffers share a
    /// step, so that the sibling check meets every pair.
    InPlaceChain,
    /// `n` buffers of [`Shape::Nested`] (buffer `i` live `[i, 2n - i]`), all without a
    /// region, spilled over two regions: the first holds about half of the bytes, the
    /// second all of them.
    SpillNested,
    /// `n` buffers of [`Shape::Nested`] in one region, each pinned (`at`) just above the
    /// one before (offsets are the running sum of the sizes, rounded up to 16): every pair
    /// shares a step, none shares a byte, so the check of pinned buffers meets every pair.
    PinnedNested,
}

impl ProblemShape {
    /// All problem shapes, in a fixed order.
    pub const ALL: [ProblemShape; 3] = [
        ProblemShape::InPlaceChain,
        ProblemShape::SpillNested,
        ProblemShape::PinnedNested,
    ];

    /// The shape's name in reports and on the command line: `in_place_chain`,
    /// `spill_nested`, `pinned_nested`.
    pub fn name(self) -> &'static str {
        match self {
            ProblemShape::InPlaceChain => "in_place_chain",
            ProblemShape::SpillNested => "spill_nested",
            ProblemShape::PinnedNested => "pinned_nested",
        }
    }

    /// The shape named `name`, if any.
    pub fn from_name(name: &str) -> Option<ProblemShape> {
        ProblemShape::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// A synthetic problem of `n` buffers of shape `shape`, from `seed`.
///
/// # Panics
///
/// If the steps of `n` buffers (`2n` for the nested shapes) do not fit in a `u32`.
pub fn problem(shape: ProblemShape, n: usize, seed: u64) -> Problem {
    match shape {
        ProblemShape::InPlaceChain => {
            let steps = u32::try_from(n).expect("too many buffers");
            let buffers = (0..steps)
                .map(|i| {
                    let b = Buffer::new(format!("b{i}"), 64, 0, 0, 0);
                    if i == 0 {
                        b
                    } else {
                        b.in_place_of(i as usize - 1)
                    }
                })
                .collect();
            Problem {
                regions: vec![region("sram", 1 << 20)],
                buffers,
            }
        }
        ProblemShape::SpillNested => {
            let instance = generate(Shape::Nested, n, seed);
            let total: u64 = instance.items.iter().map(|it| it.size).sum();
            let buffers = instance
                .items
                .iter()
                .enumerate()
                .map(|(i, it)| {
                    Buffer::new(
                        format!("b{i}"),
                        it.size,
                        0,
                        it.lifetime.first,
                        it.lifetime.last,
                    )
                    .anywhere()
                })
                .collect();
            Problem {
                regions: vec![region("fast", total / 2), region("slow", total)],
                buffers,
            }
        }
        ProblemShape::PinnedNested => {
            let instance = generate(Shape::Nested, n, seed);
            let mut next = 0u64;
            let buffers = instance
                .items
                .iter()
                .enumerate()
                .map(|(i, it)| {
                    let at = next;
                    next = (at + it.size).div_ceil(16) * 16;
                    Buffer::new(
                        format!("b{i}"),
                        it.size,
                        0,
                        it.lifetime.first,
                        it.lifetime.last,
                    )
                    .pinned_at(at)
                })
                .collect();
            Problem {
                regions: vec![region("sram", next.max(16))],
                buffers,
            }
        }
    }
}

fn region(name: &str, capacity: u64) -> Region {
    Region {
        name: name.into(),
        capacity,
        align: 16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memplan_planner::{Strategy, plan, validate};

    #[test]
    fn the_problems_plan_as_their_shape_says() {
        for shape in ProblemShape::ALL {
            assert_eq!(ProblemShape::from_name(shape.name()), Some(shape));
        }
        let chain = problem(ProblemShape::InPlaceChain, 500, 1);
        let p = plan(&chain, Strategy::Greedy).unwrap();
        validate(&chain, &p).unwrap();
        // One group: every buffer at offset 0, 64 bytes planned.
        assert!(p.buffers.iter().all(|b| b.offset == 0));
        assert_eq!(p.regions[0].planned_bytes, 64);
        let spill = problem(ProblemShape::SpillNested, 500, 1);
        let p = plan(&spill, Strategy::BestOf).unwrap();
        validate(&spill, &p).unwrap();
        let pinned = problem(ProblemShape::PinnedNested, 500, 1);
        let pinned_plan = plan(&pinned, Strategy::default()).unwrap();
        validate(&pinned, &pinned_plan).unwrap();
        for (b, placed) in pinned.buffers.iter().zip(&pinned_plan.buffers) {
            assert_eq!(Some(placed.offset), b.pin, "{}", b.name);
        }
        // Everything is live at step 500: the first region takes buffers in order while
        // their sum fits in half the bytes, the second takes the rest.
        let half = spill.regions[0].capacity;
        let mut sum = 0;
        for (b, placed) in spill.buffers.iter().zip(&p.buffers) {
            let fits = sum + b.size <= half;
            assert_eq!(placed.region, if fits { 0 } else { 1 }, "{}", b.name);
            if fits {
                sum += b.size;
            }
        }
    }
}
