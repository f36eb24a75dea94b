//! The strategies that turn one region's [`Instance`] into a [`Layout`].

use crate::instance::{Instance, Layout, SizeOverflow};

/// How to pack a region.
///
/// Every strategy is deterministic: the same instance gives the same offsets on every
/// machine, whatever its speed or load. The offsets each strategy gives are part of the
/// public contract (see each strategy's module for its tie-breaks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Greedy by size, first fit ([`crate::greedy`]): the baseline.
    Greedy,
    /// The best of several first-fit orderings ([`crate::best_of`]), greedy's included:
    /// never more bytes than [`Strategy::Greedy`].
    BestOf,
    /// An exact branch-and-bound search after MiniMalloc ([`crate::optimal`]), starting from
    /// [`Strategy::BestOf`]'s plan, that stops after `nodes` search nodes: never more bytes
    /// than [`Strategy::BestOf`], and optimal when the search completes in the budget.
    Optimal {
        /// The budget, in search nodes (a node: one more buffer placed, with the partial
        /// plan passing every check of the search, as MiniMalloc counts). `0` returns
        /// [`Strategy::BestOf`]'s plan.
        nodes: u64,
    },
}

impl Strategy {
    /// The node budget of [`Strategy::default`].
    pub const DEFAULT_NODES: u64 = 10_000;
}

impl Default for Strategy {
    /// `Optimal { nodes: 10_000 }` ([`Strategy::DEFAULT_NODES`]).
    ///
    /// Measured in a release build on a 2-core machine: on the six real ExecuTorch plans
    /// (46 to 257 buffers) `best_of` already meets the lower bound, the search does not
    /// run, and a plan costs under 0.5 ms; on MiniMalloc's adversarial instances (170 to
    /// 409 buffers, up to 110 live at once) the whole budget costs 5 to 250 ms and reaches
    /// the optimum on one of seven (a million nodes reach it on all six that have a known
    /// optimum, in under 0.3 s each). The cost grows about linearly with the budget. A
    /// proc macro is built without optimisation in a dev profile, where the search is
    /// about ten times slower.
    fn default() -> Self {
        Strategy::Optimal {
            nodes: Self::DEFAULT_NODES,
        }
    }
}

impl Strategy {
    /// The strategy's name as written in `memory_plan!` and in reports: `greedy`, `best_of`
    /// or `optimal`.
    pub fn name(&self) -> &'static str {
        match self {
            Strategy::Greedy => "greedy",
            Strategy::BestOf => "best_of",
            Strategy::Optimal { .. } => "optimal",
        }
    }
}

/// A strategy's result for one region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The offsets and planned bytes.
    pub layout: Layout,
    /// Whether the layout is proven to use the fewest bytes possible.
    pub proven_optimal: bool,
    /// Search nodes [`Strategy::Optimal`] used (at most its budget; 0 for the other
    /// strategies, and when no search was needed).
    pub nodes: u64,
}

/// Runs `strategy` on `instance`.
///
/// A layout whose bytes equal the instance's lower bound ([`crate::lower_bound`], or the
/// alignment-aware [`crate::instance::aligned_lower_bound`] when higher) is always reported
/// as proven optimal, whatever strategy found it; [`Strategy::Optimal`] also reports a
/// layout proven optimal by a completed search.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn run(strategy: Strategy, instance: &Instance) -> Result<Outcome, SizeOverflow> {
    let (layout, proven, nodes) = match strategy {
        Strategy::Greedy => (crate::greedy::greedy(instance)?, false, 0),
        Strategy::BestOf => (crate::best_of::best_of(instance)?, false, 0),
        Strategy::Optimal { nodes } => {
            let out = crate::optimal::optimal(instance, nodes)?;
            (out.layout, out.proven_optimal, out.nodes)
        }
    };
    let lb = crate::instance::lower_bound(instance)
        .0
        .max(crate::instance::aligned_lower_bound(instance).bytes);
    Ok(Outcome {
        proven_optimal: proven || layout.bytes <= lb,
        layout,
        nodes,
    })
}
