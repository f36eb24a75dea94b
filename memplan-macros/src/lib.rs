//! `memory_plan!`: plans a firmware's working memory at compile time.
//!
//! Use it through `memplan-runtime`, which re-exports it.

use proc_macro::TokenStream;

/// Plans memory at compile time (work in progress).
#[proc_macro]
pub fn memory_plan(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
