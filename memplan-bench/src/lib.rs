//! Benchmark support for memplan's planner: plan files read as problems ([`inputs`],
//! idealloc's binary format in [`idealloc`]), a
//! seeded synthetic generator of packing instances ([`synth`]) and of whole problems with
//! in-place chains or spilled buffers ([`problems`]). The `memplan-bench` binary runs them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod idealloc;
pub mod inputs;
pub mod problems;
pub mod synth;
