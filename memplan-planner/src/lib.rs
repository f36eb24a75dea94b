//! memplan's planning library: the memory-planning problem, the strategies that solve it,
//! its lower bound, an independent validator, and plan files.
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

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod best_of;
pub mod error;
pub mod files;
pub mod greedy;
pub mod instance;
pub mod optimal;
pub mod plan;
pub mod problem;
pub mod strategy;
pub mod validate;

pub use error::{Overflow, PlanError};
pub use instance::{Instance, Item, Layout, lower_bound};
pub use plan::{Placed, Plan, RegionPlan, plan};
pub use problem::{
    Buffer, DEFAULT_REGION_ALIGN, Lifetime, MAX_ALIGN, Placement, Problem, Region, Step,
};
pub use strategy::{Outcome, Strategy};
pub use validate::{Violation, validate};
