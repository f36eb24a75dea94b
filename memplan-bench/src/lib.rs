//! Benchmark support for memplan's planner: plan files read as problems ([`inputs`]) and a
//! seeded synthetic generator ([`synth`]). The `memplan-bench` binary runs them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod inputs;
pub mod synth;
