//! Tests of the strategies' internals (first fit under a given order, each strategy on
//! its own): these are not public API, so they live inside the crate.

mod greedy_reference;
mod strategies;
