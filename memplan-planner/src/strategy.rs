//! The strategies that turn one region's [`Instance`] into a [`Layout`], and their names.

use std::fmt;
use std::str::FromStr;

use crate::instance::{Instance, Layout, SizeOverflow};
pub use crate::optimal::Fit;

/// How to pack a region.
///
/// Every strategy is deterministic: the same instance gives the same offsets on every
/// machine, whatever its speed or load. The offsets each strategy gives are part of the
/// public contract: the orders and tie-breaks below decide them, and a change to one is
/// recorded in the changelog.
///
/// A strategy prints itself as it is written in `memory_plan!` and on the command line
/// (`greedy`, `best_of`, `optimal(nodes = 38000)`) and parses from the same text
/// ([`FromStr`]; a bare `optimal` takes [`Strategy::DEFAULT_NODES`]).
///
/// ```
/// use memplan_planner::Strategy;
///
/// let s: Strategy = "optimal(nodes = 500)".parse().unwrap();
/// assert_eq!(s, Strategy::Optimal { nodes: 500 });
/// assert_eq!(s.to_string(), "optimal(nodes = 500)");
/// assert_eq!("best_of".parse::<Strategy>().unwrap().name(), "best_of");
/// assert!("fastest".parse::<Strategy>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Greedy by size, first fit: the baseline (TFLite Micro's and ExecuTorch's planners
    /// are variants of it). Pinned items are placed first, at their offsets; the others in
    /// order of size, largest first; ties: the later declared first, as TensorFlow Lite
    /// Micro's `GreedyMemoryPlanner` orders them. Each goes at the lowest offset, a multiple
    /// of its alignment, where it overlaps no placed item whose lifetime it shares a step
    /// with.
    Greedy,
    /// The best of several first-fit orderings, greedy's and omnimalloc's included: never
    /// more bytes than [`Strategy::Greedy`], nor than omnimalloc 1.0.0's `greedy_by_size`
    /// and `greedy_by_all`. The orderings, in this order (each ends on declaration order):
    /// `size` (largest first; then longer lifetime, earlier first step), `peak` (the most
    /// bytes live at one step of the item's lifetime, largest first; then size, longer
    /// lifetime, earlier first step), `length`
    /// (longest lifetime first; then size, earlier first step), `area` (size times
    /// lifetime, largest first; then size, earlier first step), `conflicts` (most items
    /// sharing a step first; then size, earlier first step), `first` (earliest first step;
    /// then size, longer lifetime), `last` (latest last step; then size, longer lifetime),
    /// `tflm` (greedy's own: largest first, then the later declared first), then
    /// omnimalloc's seven, each tied by declaration order: `declared`, `size_declared`,
    /// `length_declared`, `area_declared`, `conflicts_declared` (then size),
    /// `conflicts_size` (conflicts times size, then size), `first_declared` (then size).
    /// The items split at time cut lines (step boundaries no item with bytes is live
    /// across) into independent parts; in each part the ordering whose plan of the part
    /// ends lowest wins, ties to the earlier ordering. A part that reaches the most bytes
    /// live in one of its steps is not run again by the later orderings (none can do
    /// better there).
    BestOf,
    /// An exact branch-and-bound search after MiniMalloc (Moffitt, ASPLOS 2023), starting
    /// from [`Strategy::BestOf`]'s plan, that stops after `nodes` search nodes: never more
    /// bytes than [`Strategy::BestOf`], and optimal when the search completes in the
    /// budget. When the region has a capacity that `best_of`'s plan does not meet, it
    /// first asks "is there a layout within the capacity?" (MiniMalloc's own question),
    /// with the whole budget; what that leaves minimises as below (where `best_of`'s plan
    /// fits, the capacity changes nothing). It asks "is there a layout within `C` bytes?"
    /// for `C` = the lower bound first (93 % of the budget up to 100,000 nodes, at least
    /// half), then by bisection towards the best layout found, then for the capacities
    /// the bisection gave up on, down from the best layout; capacities are multiples of
    /// the grain that divides every size, pin and alignment. Each question runs the
    /// preorders `TWA`, `TAW` in turn under doubling node limits, trying candidates by
    /// offset, then preorder (`T`: most bytes live in a section of the item's lifetime,
    /// `W`: lifetime length, `A`: size times length; each largest first; then declaration
    /// order). When `best_of` already meets the lower bound the search does not run and
    /// nothing pairwise is built. Its memory and time are bounded: an instance with more
    /// than 4,194,304 (2^22) conflicting pairs, or with more than 4,096 movable items
    /// between two cut lines (step boundaries no item with bytes is live across; a node
    /// costs time linear in them), is not searched: the result is `best_of`'s plan, proven
    /// optimal only if it meets the lower bound, with 0 nodes used.
    Optimal {
        /// The budget, in search nodes (a node: one more buffer placed, with the partial
        /// plan passing every check of the search, as MiniMalloc counts). `0` returns
        /// [`Strategy::BestOf`]'s plan.
        nodes: u64,
    },
}

impl Strategy {
    /// The node budget of [`Strategy::default`].
    pub const DEFAULT_NODES: u64 = 38_000;
}

impl Default for Strategy {
    /// `Optimal { nodes: 38_000 }` ([`Strategy::DEFAULT_NODES`]).
    ///
    /// Measured on a shared 2-core machine (the memplan-bench README has the tables): on
    /// the 13 real ExecuTorch plans (46 to 257 buffers) `best_of` already meets the lower
    /// bound, the search does not run, and a plan costs under 1 ms in a release build and
    /// under 15 ms unoptimised; on MiniMalloc's adversarial instances (170 to 409 buffers,
    /// up to 110 live at once) the budget reaches the optimum, and proves it, on the six
    /// that have a known optimum (B, C, E, F, G, I: 3 to 60 ms in a release build), and on
    /// J, whose optimum is unknown, it is spent whole: 0.3 s in a release build, 2 to 3 s
    /// unoptimised. Posed as MiniMalloc poses them (a region of 1,048,576 bytes) every one
    /// fits: J at 1,048,576 bytes within its first few hundred nodes, then 1,044,480 when
    /// the budget is spent. The cost grows about linearly with the budget. Cargo builds a proc
    /// macro's dependencies without optimisation unless the workspace says otherwise (in
    /// release builds too), and there the search is about ten times slower.
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

    /// The node budget, for [`Strategy::Optimal`].
    pub fn nodes(&self) -> Option<u64> {
        match self {
            Strategy::Optimal { nodes } => Some(*nodes),
            Strategy::Greedy | Strategy::BestOf => None,
        }
    }

    /// The strategies as they are written, for messages: `greedy | best_of | optimal(nodes = N)`.
    pub const SYNTAX: &'static str = "greedy | best_of | optimal(nodes = N)";

    /// The strategy named `name`, with the node budget `nodes` when one is written
    /// (`optimal(nodes = N)`); a bare `optimal` takes [`Strategy::DEFAULT_NODES`].
    ///
    /// # Errors
    ///
    /// [`StrategyError::Unknown`] for a name that is not a strategy, and
    /// [`StrategyError::NoBudget`] for a budget given to `greedy` or `best_of`.
    pub fn from_parts(name: &str, nodes: Option<u64>) -> Result<Strategy, StrategyError> {
        match (name, nodes) {
            ("greedy", None) => Ok(Strategy::Greedy),
            ("best_of", None) => Ok(Strategy::BestOf),
            ("optimal", nodes) => Ok(Strategy::Optimal {
                nodes: nodes.unwrap_or(Strategy::DEFAULT_NODES),
            }),
            ("greedy" | "best_of", Some(_)) => Err(StrategyError::NoBudget(name.to_string())),
            _ => Err(StrategyError::Unknown(name.to_string())),
        }
    }
}

/// A strategy name that [`Strategy::from_parts`] or [`FromStr`] cannot read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StrategyError {
    /// Not a strategy's name.
    Unknown(String),
    /// A node budget given to a strategy that takes none.
    NoBudget(String),
    /// `optimal(...)` without a readable `nodes = N` inside.
    BadBudget(String),
}

impl fmt::Display for StrategyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrategyError::Unknown(name) => {
                let hint =
                    crate::similar::closest(name, ["greedy", "best_of", "optimal"].into_iter())
                        .map_or(String::new(), |k| format!(" (did you mean `{k}`?)"));
                write!(
                    f,
                    "unknown strategy `{name}`{hint}: expected `greedy`, `best_of` or `optimal(nodes = N)`"
                )
            }
            StrategyError::NoBudget(name) => write!(
                f,
                "`{name}` takes no node budget; only `optimal(nodes = N)` does"
            ),
            StrategyError::BadBudget(text) => write!(
                f,
                "cannot read the budget in `{text}`: write `optimal(nodes = N)` with N a whole number"
            ),
        }
    }
}

impl std::error::Error for StrategyError {}

impl fmt::Display for Strategy {
    /// As written in `memory_plan!`: `greedy`, `best_of` or `optimal(nodes = N)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Optimal { nodes } => write!(f, "optimal(nodes = {nodes})"),
            other => f.write_str(other.name()),
        }
    }
}

impl FromStr for Strategy {
    type Err = StrategyError;

    /// `greedy`, `best_of`, `optimal` or `optimal(nodes = N)` (spaces anywhere).
    fn from_str(text: &str) -> Result<Strategy, StrategyError> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let (name, nodes) = match compact.split_once('(') {
            None => (compact.as_str(), None),
            Some((name, rest)) => {
                let n = rest
                    .strip_suffix(')')
                    .and_then(|r| r.strip_prefix("nodes="))
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or_else(|| StrategyError::BadBudget(text.to_string()))?;
                (name, Some(n))
            }
        };
        Strategy::from_parts(name, nodes)
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
    /// Whether a layout within the capacity given to [`pack_within`] exists, as far as the
    /// strategy knows ([`Fit::Fits`] when the layout is within it; [`pack`] gives no
    /// capacity, so its layouts always fit).
    pub fit: Fit,
}

/// Packs one region with no capacity: [`pack_within`] with `capacity = u64::MAX`.
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn pack(strategy: Strategy, instance: &Instance) -> Result<Outcome, SizeOverflow> {
    pack_within(strategy, instance, u64::MAX)
}

/// Packs one region of `capacity` bytes: runs `strategy` on `instance`.
///
/// [`Strategy::Greedy`] and [`Strategy::BestOf`] ignore the capacity (their layout is what
/// it is; [`Outcome::fit`] says whether it fits). [`Strategy::Optimal`] seeks a layout
/// within the capacity first when `best_of`'s is not (the whole budget may go there),
/// then minimises with what is left of the budget; when `best_of`'s layout fits, the
/// capacity changes nothing.
///
/// A layout whose bytes equal the instance's lower bound ([`crate::lower_bound`], or the
/// alignment-aware [`crate::instance::aligned_lower_bound`] when higher) is always reported
/// as proven optimal, whatever strategy found it; [`Strategy::Optimal`] also reports a
/// layout proven optimal by a completed search. On an instance with pieces
/// ([`Instance::pieces`]) the search packs the items' bounding rectangles and first fit
/// ([`Strategy::BestOf`]) the pieces, the smaller layout wins, and only the lower bound
/// proves it optimal (or proves that nothing fits).
///
/// # Errors
///
/// [`SizeOverflow`] when an offset plus a size overflows `u64`.
///
/// # Panics
///
/// If the instance has more than `u32::MAX` items.
pub fn pack_within(
    strategy: Strategy,
    instance: &Instance,
    capacity: u64,
) -> Result<Outcome, SizeOverflow> {
    let (layout, proven, nodes, fit) = match strategy {
        Strategy::Greedy => (crate::greedy::greedy(instance)?, false, 0, None),
        Strategy::BestOf => (crate::best_of::best_of(instance)?, false, 0, None),
        Strategy::Optimal { nodes } if instance.has_pieces() => {
            // The search places rectangles: it packs each item's bounding rectangle (a
            // layout of those is one of the pieces, never smaller), and first fit over the
            // pieces themselves may do better. Its proofs are about the rectangles, so
            // only the lower bound of the pieces proves a layout optimal, or that no
            // layout fits (below).
            let fit = crate::best_of::best_of(instance)?;
            let out = if fit.bytes <= capacity {
                crate::optimal::optimal_within(&instance.bounding(), nodes, u64::MAX)?
            } else {
                crate::optimal::optimal_within(&instance.bounding(), nodes, capacity)?
            };
            let layout = if fit.bytes < out.layout.bytes {
                fit
            } else {
                out.layout
            };
            (layout, false, out.nodes, None)
        }
        Strategy::Optimal { nodes } => {
            let out = crate::optimal::optimal_within(instance, nodes, capacity)?;
            (out.layout, out.proven_optimal, out.nodes, Some(out.fit))
        }
    };
    let lb = crate::instance::lower_bound(instance)
        .0
        .max(crate::instance::aligned_lower_bound(instance).bytes);
    let proven_optimal = proven || layout.bytes <= lb;
    let fit = if layout.bytes <= capacity {
        Fit::Fits
    } else if lb > capacity || proven_optimal || fit == Some(Fit::Impossible) {
        Fit::Impossible
    } else {
        Fit::NotFound
    };
    Ok(Outcome {
        proven_optimal,
        layout,
        nodes,
        fit,
    })
}
