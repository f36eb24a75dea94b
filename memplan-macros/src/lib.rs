//! `memory_plan!`: plans a firmware's working memory at compile time.
//!
//! Use it through `memplan-runtime`, which re-exports it and documents the language. The
//! macro reads parse -> check -> solve -> expand:
//!
//! - [`parse`](crate::parse): the syntax tree with spans, one statement at a time;
//! - [`check`](crate::check): names, sizes, alignments, lifetimes and plan files, lowered to
//!   a `memplan_planner::Problem`;
//! - [`solve`](crate::solve): the plan, or spanned errors with exact byte counts;
//! - [`expand`](crate::expand): typed ids, the buffer table, static arenas, the manager.
//!
//! It never panics: every bad input becomes a `compile_error!` spanned on the offending
//! token, and all errors are reported in one build. On error it still emits the typed ids
//! and an inert `take()`, so one mistake does not cascade.

use proc_macro::TokenStream;

mod check;
mod diag;
mod expand;
mod names;
mod parse;
mod solve;

/// Plans memory at compile time. See `memplan_runtime::memory_plan!` for the language.
#[proc_macro]
pub fn memory_plan(input: TokenStream) -> TokenStream {
    let base_dir = proc_macro::Span::call_site()
        .local_file()
        .and_then(|f| f.parent().map(|d| d.to_path_buf()));
    run(input.into(), base_dir.as_deref()).into()
}

fn run(input: proc_macro2::TokenStream, base_dir: Option<&std::path::Path>) -> proc_macro2::TokenStream {
    let mut errors = diag::Errors::default();
    let Some(parsed) = parse::parse(input, &mut errors) else {
        return errors.to_compile_errors();
    };
    let model = check::check(parsed, base_dir, &mut errors);
    let plan = if errors.is_empty() { solve::solve(&model, &mut errors) } else { None };
    match plan {
        Some(plan) if errors.is_empty() => expand::expand(&model, &plan),
        _ => {
            let mut out = errors.to_compile_errors();
            out.extend(expand::fallback(&model));
            out
        }
    }
}
