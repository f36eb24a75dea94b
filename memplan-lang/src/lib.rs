//! The `memory_plan!` language: its grammar, its lowering to memplan's planning problem,
//! every diagnostic's text and span, and the code it generates. The proc macro
//! (`memplan-macros`), build scripts and the `memplan` command all go through this crate,
//! so they accept the same input and print the same messages (as `defmt-parser` serves
//! defmt's macros and its host decoder).
//!
//! **This crate is an implementation detail of memplan, with no stability promise.** Its
//! API may change in any release, patch releases included; it is released with the other
//! memplan crates at exactly the same version, which they pin with `=`. Use
//! `memplan-runtime` (the macro), `memplan-build` (build scripts) or `memplan-cli` (the
//! `memplan` command) instead of depending on it.
//!
//! The pipeline reads parse -> lower -> plan -> emit, a module each:
//!
//! - [`parse`]: the syntax tree with spans, one statement at a time;
//! - [`lower`]: names, sizes, alignments, lifetimes and plan files, checked and lowered
//!   to a [`Model`], one record per region and per buffer, holding a
//!   [`memplan_planner::Problem`];
//! - [`plan`](mod@plan): the plan, validated, or the planner's errors spanned on their
//!   declarations;
//! - [`emit`]: typed ids, the buffer table, static arenas, the manager.
//!
//! Beside them, [`lock`](mod@lock): the package's lock file, whose fresh entries give the
//! plan's offsets instead of a search.
//!
//! And back: [`write`](mod@write) turns a planning problem and its plan into the text of an
//! invocation, for code generators.
//!
//! Nothing here panics on any input: every bad input becomes a [`Diagnostic`] spanned on
//! the offending tokens, and all are reported in one pass. With errors, [`expand`] still
//! emits the typed ids and an inert `take()`, so one mistake does not cascade.
//!
//! ```
//! use memplan_lang::{Env, check};
//!
//! let tokens = "mod m { region r: 16 bytes; buffer a: 32 bytes in r, live 0..=0; }"
//!     .parse()
//!     .unwrap();
//! let checked = check(tokens, &Env::default());
//! let first = checked.diagnostics.iter().next().unwrap();
//! assert_eq!(
//!     first.message,
//!     "buffer `a` overflows region `r`: needed 32 bytes, available 16 (over by 16)"
//! );
//! ```

#![warn(missing_docs)]

pub mod diag;
pub mod driver;
pub mod emit;
pub mod info;
pub mod linker;
pub mod lock;
pub mod lower;
pub mod memory_x;
mod names;
pub mod parse;
pub mod plan;
pub mod source;
pub mod write;

pub use diag::{Diagnostic, Diagnostics, SpanRange};
pub use lower::{Env, Model};

use memplan_planner::Plan;
use proc_macro2::TokenStream;

/// One invocation's input, checked and planned.
pub struct Checked {
    /// Every error, in the order found (empty when the plan is good).
    pub diagnostics: Diagnostics,
    /// The lowered invocation (`None` when its module header cannot be read).
    pub model: Option<Model>,
    /// The plan, when there is no error.
    pub plan: Option<Plan>,
    /// With errors, the plan of the buffers without any (see [`plan::Planned::partial`]).
    pub partial: Option<(Plan, Vec<usize>)>,
    /// What the package's lock file says about the plan ([`lock::Lookup`]).
    pub lock: lock::Lookup,
    /// The strategy the invocation writes (before a tool's override): part of the lock's
    /// fingerprint.
    pub written_strategy: memplan_planner::Strategy,
}

impl Checked {
    /// The plan's report (the generated `REPORT` const), when there is a plan.
    pub fn report(&self) -> Option<String> {
        match (&self.model, &self.plan) {
            (Some(m), Some(p)) => Some(emit::report(m, Some(p))),
            _ => None,
        }
    }
}

/// Parses, lowers and plans the body of one `memory_plan!` invocation, with the offsets
/// of the package's lock file when it holds a fresh entry for it ([`lock`]).
pub fn check(tokens: TokenStream, env: &Env) -> Checked {
    check_with(tokens, env, true)
}

/// [`check`], with the lock file used (`use_lock`) or not looked at (`memplan lock`,
/// which searches to write it).
pub fn check_with(tokens: TokenStream, env: &Env, use_lock: bool) -> Checked {
    let mut diagnostics = Diagnostics::default();
    let Some(input) = parse::parse(tokens, &mut diagnostics) else {
        return Checked {
            diagnostics,
            model: None,
            plan: None,
            partial: None,
            lock: lock::Lookup::Off,
            written_strategy: memplan_planner::Strategy::default(),
        };
    };
    // The invocation's own strategy is part of the lock's fingerprint; a tool's override
    // (`--strategy`) applies after.
    let own = Env {
        strategy: None,
        ..env.clone()
    };
    let mut model = lower::lower(input, &own, &mut diagnostics);
    let written_strategy = model.strategy;
    if let Some(s) = env.strategy {
        model.strategy = s;
    }
    let lock = if use_lock {
        lock::lookup(
            &mut model,
            written_strategy,
            env.root.as_deref(),
            &mut diagnostics,
        )
    } else {
        lock::Lookup::Off
    };
    let planned = plan::plan_locked(&model, lock.fresh(), &mut diagnostics);
    Checked {
        diagnostics,
        model: Some(model),
        plan: planned.plan,
        partial: planned.partial,
        lock,
        written_strategy,
    }
}

/// The whole expansion of one `memory_plan!` invocation: the module, or its errors as
/// `compile_error!`s followed by the fallback module.
pub fn expand(tokens: TokenStream, env: &Env) -> TokenStream {
    let checked = check(tokens, env);
    let mut out = checked.diagnostics.to_compile_errors();
    if let Some(model) = &checked.model {
        out.extend(emit::emit(
            model,
            checked.plan.as_ref(),
            checked.partial.as_ref(),
        ));
    }
    out
}
