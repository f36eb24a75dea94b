//! The front end on arbitrary text: the property is `front_end_holds`, shared with the
//! regression test of the inputs the fuzzer once crashed on (memplan-lang's
//! `tests/fuzz_regressions.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../memplan-lang/tests/front_end_property/mod.rs"]
mod front_end_property;

fuzz_target!(|data: &[u8]| front_end_property::front_end_holds(data));
