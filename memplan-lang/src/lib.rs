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
//! The pipeline reads parse -> lower -> plan -> emit, private modules each; what the
//! crate's users see is its entry points and what they give:
//!
//! - [`check`] (and [`check_with`]): one invocation parsed, lowered and planned, as a
//!   [`Checked`], whose accessors give its diagnostics, its plan and planning problem, its
//!   report, its plan description ([`info`]), its lock entry ([`lock`]) and its expansion;
//! - [`expand`]: the whole expansion, for the proc macro;
//! - [`driver`]: every invocation of a Rust source file, with a tool's options;
//! - [`linker`]: the linker fragment of the arenas placed with `memory M`, and the section
//!   names it shares with the expansion; [`memory_x`]: reading a linker script's MEMORY
//!   command (`memory.x`), which `memory M` is checked against;
//! - [`source`]: finding the invocations in a source file;
//! - [`write`](mod@write): a planning problem and its plan back to the text of an
//!   invocation, for code generators.
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
//! let first = checked.diagnostics().iter().next().unwrap();
//! assert_eq!(
//!     first.message,
//!     "buffer `a` overflows region `r`: needed 32 bytes, available 16 (over by 16)"
//! );
//! ```

#![warn(missing_docs)]

mod diag;
pub mod driver;
mod emit;
pub mod info;
mod key;
mod limits;
pub mod linker;
pub mod lock;
mod lower;
pub mod memory_x;
mod names;
mod parse;
mod placed;
mod plan;
mod similar;
pub mod source;
mod tokens;
pub mod write;

pub use diag::{Diagnostic, Diagnostics, SpanRange};
pub use lower::Env;

use std::path::PathBuf;

use lower::Model;
use memplan_planner::files::Primitive;
use memplan_planner::{Plan, Problem, Strategy};
use proc_macro2::TokenStream;

/// One invocation's input, checked and planned.
pub struct Checked {
    diagnostics: Diagnostics,
    /// The lowered invocation (`None` when its module header cannot be read).
    model: Option<Model>,
    plan: Option<Plan>,
    /// With errors, the plan of the buffers without any, and each planned buffer's index
    /// among the model's ([`plan::Planned::partial`]).
    partial: Option<(Plan, Vec<usize>)>,
    lock: lock::Lookup,
    written_strategy: Strategy,
}

impl Checked {
    /// Every error, in the order found (empty when the plan is good).
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// The plan, when there is no error; its buffers are those of [`Checked::problem`].
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }

    /// What the package's lock file says about the plan ([`lock::Lookup`]).
    pub fn lock(&self) -> &lock::Lookup {
        &self.lock
    }

    /// The strategy the invocation writes (before a tool's override): part of the lock's
    /// fingerprint.
    pub fn written_strategy(&self) -> Strategy {
        self.written_strategy
    }

    /// The plan's module name, when its module header reads.
    pub fn name(&self) -> Option<String> {
        self.model.as_ref().map(|m| m.name.to_string())
    }

    /// The planning problem of the buffers without errors (every buffer, in declaration
    /// order, when there is none), when the module header reads.
    pub fn problem(&self) -> Option<Problem> {
        self.model.as_ref().map(|m| m.problem().0)
    }

    /// The element type of each buffer of [`Checked::problem`], where it is a primitive
    /// number type (`None`: bytes, or a user type).
    pub fn elements(&self) -> Vec<Option<Primitive>> {
        let Some(model) = &self.model else {
            return Vec::new();
        };
        let (_, kept) = model.problem();
        kept.iter()
            .map(|&i| match &model.buffers[i].elem {
                lower::ElemInfo::Prim { ty, .. } => Primitive::of_rust(&ty.to_string()),
                lower::ElemInfo::Bytes | lower::ElemInfo::User { .. } => None,
            })
            .collect()
    }

    /// The manager's bump pools (`constant`, `runtime`, `temp`, in that order), when the
    /// module header reads.
    pub fn pools(&self) -> Vec<info::PoolSummary> {
        self.model.as_ref().map_or_else(Vec::new, info::pools)
    }

    /// The files the invocation read besides its source (plan files, models, `memory.x`,
    /// the lock file), in the order read: editing one can change the plan.
    pub fn files(&self) -> &[PathBuf] {
        self.model.as_ref().map_or(&[], |m| &m.files)
    }

    /// The plan's key in the package's lock file, when its module header reads.
    pub fn lock_key(&self) -> Option<String> {
        self.model.as_ref().map(lock::key)
    }

    /// The plan's entry for the package's lock file, when there is a plan.
    pub fn lock_entry(&self) -> Option<lock::Entry> {
        let (model, plan) = (self.model.as_ref()?, self.plan.as_ref()?);
        let (problem, _) = model.problem();
        Some(lock::entry(model, &problem, self.written_strategy, plan))
    }

    /// The plan's description (what the expansion embeds in `.memplan.info`), when there
    /// is a plan.
    pub fn info(&self) -> Option<info::PlanInfo> {
        Some(info::PlanInfo::new(
            self.model.as_ref()?,
            self.plan.as_ref()?,
        ))
    }

    /// The plan's report (the generated `REPORT` const), when there is a plan.
    pub fn report(&self) -> Option<String> {
        match (&self.model, &self.plan) {
            (Some(m), Some(p)) => Some(emit::report(m, Some(p))),
            _ => None,
        }
    }

    /// The expansion: the module, or the errors as `compile_error!`s followed by the
    /// fallback module (none when the module header does not read).
    pub fn expansion(&self) -> TokenStream {
        let mut out = self.diagnostics.to_compile_errors();
        if let Some(model) = &self.model {
            out.extend(emit::emit(model, self.plan.as_ref(), self.partial.as_ref()));
        }
        out
    }

    /// The model and the plan, when there is a plan.
    pub(crate) fn planned(&self) -> Option<(&Model, &Plan)> {
        Some((self.model.as_ref()?, self.plan.as_ref()?))
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
        diagnostics.sort_by_source();
        return Checked {
            diagnostics,
            model: None,
            plan: None,
            partial: None,
            lock: lock::Lookup::Off,
            written_strategy: Strategy::default(),
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
    let planned = plan::plan(&model, lock.fresh(), &mut diagnostics);
    // A proof the entry claims and this build cannot check without a search is not
    // repeated: the REPORT says so.
    if let (Some(entry), Some(plan)) = (lock.fresh(), planned.plan.as_ref())
        && let Some(note) = lock::unchecked_note(entry, plan)
    {
        model
            .lock_note
            .get_or_insert_with(String::new)
            .push_str(&note);
    }
    diagnostics.sort_by_source();
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
/// `compile_error!`s followed by the fallback module ([`Checked::expansion`]).
pub fn expand(tokens: TokenStream, env: &Env) -> TokenStream {
    check(tokens, env).expansion()
}
