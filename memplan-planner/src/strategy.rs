//! The strategies that turn one region's [`Instance`] into a [`Layout`].

use crate::instance::{Instance, Layout, SizeOverflow};

/// How to pack a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Greedy by size, first fit ([`crate::greedy`]): the baseline.
    Greedy,
}

impl Default for Strategy {
    fn default() -> Self {
        Strategy::Greedy
    }
}

impl Strategy {
    /// The strategy's name as written in `memory_plan!` and in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Strategy::Greedy => "greedy",
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
/// optimal, whatever strategy found it.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
pub fn run(strategy: Strategy, instance: &Instance) -> Result<Outcome, SizeOverflow> {
    let layout = match strategy {
        Strategy::Greedy => crate::greedy::greedy(instance)?,
    };
    let (lb, _) = crate::instance::lower_bound(instance);
    Ok(Outcome { proven_optimal: layout.bytes == lb, layout })
}
