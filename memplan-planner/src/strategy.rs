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
        /// The budget, in search nodes (one node places one buffer). `0` returns
        /// [`Strategy::BestOf`]'s plan.
        nodes: u64,
    },
}

impl Strategy {
    /// The node budget of [`Strategy::default`].
    pub const DEFAULT_NODES: u64 = 20_000;
}

impl Default for Strategy {
    /// `Optimal { nodes: 20_000 }`: on the plans measured for the changelog (ExecuTorch
    /// models of 50 to 257 buffers, MiniMalloc's hard instances of 170 to 409 buffers), a
    /// search this long costs at most a few tens of milliseconds in a release build, and it
    /// is a no-op wherever [`Strategy::BestOf`] already meets the lower bound.
    fn default() -> Self {
        Strategy::Optimal { nodes: Self::DEFAULT_NODES }
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
}

/// Runs `strategy` on `instance`.
///
/// A layout whose bytes equal the instance's lower bound is always reported as proven
/// optimal, whatever strategy found it; [`Strategy::Optimal`] also reports a layout proven
/// optimal by a completed search.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
pub fn run(strategy: Strategy, instance: &Instance) -> Result<Outcome, SizeOverflow> {
    let (layout, proven) = match strategy {
        Strategy::Greedy => (crate::greedy::greedy(instance)?, false),
        Strategy::BestOf => (crate::best_of::best_of(instance)?, false),
        Strategy::Optimal { nodes } => {
            let out = crate::optimal::optimal(instance, nodes)?;
            (out.layout, out.proven_optimal)
        }
    };
    let (lb, _) = crate::instance::lower_bound(instance);
    Ok(Outcome { proven_optimal: proven || layout.bytes == lb, layout })
}
