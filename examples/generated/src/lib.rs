//! The plans `build.rs` generated from the plan files in `plans/` and
//! `../data/executorch/`, included as the `memory_plan!` invocations it wrote.

#![forbid(unsafe_code)]

include!(concat!(env!("OUT_DIR"), "/kws.rs"));
include!(concat!(env!("OUT_DIR"), "/encoder.rs"));
