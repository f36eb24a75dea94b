//! Error collection: every problem found is kept, spanned on its token, and all are
//! reported together (as serde_derive's `Ctxt` does).

use proc_macro2::{Span, TokenStream};

/// The errors found so far.
#[derive(Default)]
pub struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    /// Records an error.
    pub fn push(&mut self, e: syn::Error) {
        self.list.push(e);
    }

    /// Records an error with `message` at `span`.
    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.list.push(syn::Error::new(span, message));
    }

    /// Whether any error was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// All errors as `compile_error!` invocations, combined in order.
    pub fn to_compile_errors(&self) -> TokenStream {
        let mut iter = self.list.iter().cloned();
        match iter.next() {
            None => TokenStream::new(),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                first.to_compile_error()
            }
        }
    }
}
