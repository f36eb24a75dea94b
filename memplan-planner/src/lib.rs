//! memplan's planning library: the memory-planning problem, the strategies that solve it,
//! its lower bound, an independent validator, plan files and model files.
//!
//! The `memory_plan!` macro plans with this crate at compile time; build scripts, command
//! line tools and benchmarks use it directly.
//!
//! ```
//! use memplan_planner::{Buffer, Problem, Region, Strategy, plan, validate};
//!
//! let problem = Problem {
//!     regions: vec![Region { name: "sram".into(), capacity: 1024, align: 8 }],
//!     buffers: vec![
//!         Buffer::new("a", 512, 0, 0, 1),
//!         Buffer::new("b", 512, 0, 1, 2),
//!     ],
//! };
//! let p = plan(&problem, Strategy::Greedy).unwrap();
//! assert_eq!(p.regions[0].planned_bytes, 1024);
//! validate(&problem, &p).unwrap();
//! ```
//!
//! # What is public
//!
//! - The problem ([`Problem`], [`Region`], [`Buffer`]) and [`plan()`], which gives a
//!   [`Plan`] or every [`PlanError`] (each readable through [`PlanError::display`]).
//! - [`validate`], a check of any plan against its problem that shares no code with the
//!   strategies, and [`plan_validated`]: plan, validate, and catch a panic of either, the
//!   one entry point the macro, the command line tool and build scripts plan through.
//! - One region's packing problem ([`Instance`]) and [`pack`], which runs one [`Strategy`]
//!   on it, for benchmarks and tools that have no regions ([`pack_within`] with a
//!   capacity); [`lower_bound`].
//! - [`files`]: the plan-file readers, and the `.tflite` and `.pte` model readers and
//!   writers.
//!
//! The strategies' internals (orderings, the search's data structures) are private: their
//! results, the offsets, are the contract (each [`Strategy`] variant documents its
//! order and tie-breaks; a change is recorded in the changelog), their code is not.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod best_of;
mod conflicts;
mod error;
pub mod files;
mod fit;
mod gaps;
mod greedy;
mod instance;
mod optimal;
mod overlaps;
mod plan;
mod problem;
mod similar;
mod strategy;
mod timeline;
mod validate;
mod validated;

pub use error::{LISTED, Names, Overflow, PlanError, PlanErrorDisplay, listed};
pub use instance::{
    AlignedBound, Instance, Item, Layout, SizeOverflow, align_up, aligned_lower_bound, lower_bound,
};
pub use overlaps::{Extent, for_each_overlapping_pair, overlapping_pairs};
pub use plan::{LockedError, PLAN_RULES, Placed, Plan, RegionPlan, plan, plan_from, search_proves};
pub use problem::{
    Buffer, DEFAULT_REGION_ALIGN, Lifetime, MAX_ALIGN, Placement, Problem, Region, Step,
};
pub use similar::closest;
pub use strategy::{Fit, Outcome, Strategy, StrategyError, pack, pack_within};
pub use validate::{Violation, validate};
pub use validated::{Failure, caught, plan_validated, validated};

#[cfg(test)]
mod tests;
