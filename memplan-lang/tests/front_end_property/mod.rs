//! The property the front end's fuzz target checks (`fuzz/fuzz_targets/front_end.rs`
//! includes this file), and the regression test runs over every input the fuzzer once
//! crashed on (`tests/fuzz_regressions.rs`).

use memplan_lang::{Env, check};

/// On arbitrary text, the front end never panics, overflows the stack or blows up: it
/// gives a plan that the validator accepts, or errors. The text is the body of a
/// `memory_plan!` invocation (lexed by proc-macro2 first; text that is not Rust tokens is
/// skipped). The expansion is generated too, with or without errors.
pub fn front_end_holds(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
        return;
    };
    let checked = check(tokens, &Env::default());
    if let Some(plan) = checked.plan() {
        assert!(checked.diagnostics().is_empty());
        let problem = checked
            .problem()
            .expect("a planned invocation has a problem");
        memplan_planner::validate(&problem, plan).expect("every plan the front end gives is valid");
    } else {
        assert!(!checked.diagnostics().is_empty(), "no plan and no error");
    }
    let _ = checked.expansion();
}
