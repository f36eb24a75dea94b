//! Error collection: every problem found is kept, spanned on its token, and all are
//! reported together (as serde_derive's `Ctxt` does).

use proc_macro2::{Ident, Span, TokenStream, TokenTree};

/// The tokens an error points at: from the start of `first` to the end of `last` (on
/// stable Rust a proc macro cannot join spans, but an error spanned on a token stream
/// covers it from its first to its last token).
#[derive(Clone, Copy)]
pub struct SpanRange {
    pub first: Span,
    pub last: Span,
}

impl SpanRange {
    pub fn new(first: Span, last: Span) -> Self {
        SpanRange { first, last }
    }
}

impl From<Span> for SpanRange {
    fn from(s: Span) -> Self {
        SpanRange { first: s, last: s }
    }
}

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

    /// Records an error with `message` at `span` (a token or a range of tokens).
    pub fn at(&mut self, span: impl Into<SpanRange>, message: impl std::fmt::Display) {
        self.list.push(error(span, message));
    }

    /// How many errors were recorded.
    pub fn len(&self) -> usize {
        self.list.len()
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

/// An error covering `span`, a token or a range of tokens.
pub fn error(span: impl Into<SpanRange>, message: impl std::fmt::Display) -> syn::Error {
    let r = span.into();
    let tokens: TokenStream = [
        TokenTree::Ident(Ident::new("x", r.first)),
        TokenTree::Ident(Ident::new("x", r.last)),
    ]
    .into_iter()
    .collect();
    syn::Error::new_spanned(tokens, message)
}
