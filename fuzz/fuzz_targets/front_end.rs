//! The front end on arbitrary text: never a panic, a stack overflow or a blow-up; always a
//! plan that the validator accepts, or errors. The text is the body of a `memory_plan!`
//! invocation (lexed by proc-macro2 first; text that is not Rust tokens is skipped). The
//! expansion is generated too, with or without errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_lang::{Env, check, emit};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
        return;
    };
    let checked = check(tokens, &Env::default());
    if let (Some(model), Some(plan)) = (&checked.model, &checked.plan) {
        assert!(checked.diagnostics.is_empty());
        let (problem, _) = model.problem();
        memplan_planner::validate(&problem, plan).expect("every plan the front end gives is valid");
        let _ = emit::emit(model, Some(plan), None);
    } else {
        assert!(checked.plan.is_none());
        if let Some(model) = &checked.model {
            let _ = emit::emit(model, None, checked.partial.as_ref());
        }
    }
});
