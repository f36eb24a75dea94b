//! Tokens generated code and the checks before it both name: a primitive type by its full
//! path.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// `::core::primitive::NAME`. Generated code names every type and trait it uses by its full
/// path: the generated module glob-imports its parent (for the user's element types), so a
/// bare `u8`, `usize` or `Clone` would resolve to whatever the user's crate calls that.
pub(crate) fn prim(name: &str) -> TokenStream {
    let ty = Ident::new(name, Span::call_site());
    quote!(::core::primitive::#ty)
}
