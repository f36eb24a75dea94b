//! Diagnostics: every problem found is kept, spanned on its tokens, and all are reported
//! together (as serde_derive's `Ctxt` does). The macro turns them into `compile_error!`s;
//! the CLI prints them with their file, line and column.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};

/// The tokens a diagnostic points at: from the start of `first` to the end of `last` (on
/// stable Rust a proc macro cannot join spans, but an error spanned on a token stream
/// covers it from its first to its last token).
#[derive(Clone, Copy, Debug)]
pub struct SpanRange {
    /// The first token.
    pub first: Span,
    /// The last token.
    pub last: Span,
}

impl SpanRange {
    /// The tokens from `first` to `last`.
    pub(crate) fn new(first: Span, last: Span) -> Self {
        SpanRange { first, last }
    }

    /// An error with `message` pointing at these tokens, from the first to the last.
    pub(crate) fn error(self, message: impl std::fmt::Display) -> syn::Error {
        let tokens: TokenStream = [
            TokenTree::Ident(Ident::new("x", self.first)),
            TokenTree::Ident(Ident::new("x", self.last)),
        ]
        .into_iter()
        .collect();
        syn::Error::new_spanned(tokens, message)
    }
}

/// Where `span` starts, as `line L, column C` (columns from 1, as rustc prints them), for
/// a message that names a second place in the same invocation: a proc macro cannot attach
/// a note at another span (stable `compile_error!` is always an error), and a second error
/// for it would count one mistake twice. (The file is the invocation's, named by the
/// error's own location; outside a compiler, as in `memplan check`, spans know no file.)
pub(crate) fn location(span: Span) -> String {
    let at = span.start();
    format!("line {}, column {}", at.line, at.column + 1)
}

impl From<Span> for SpanRange {
    fn from(s: Span) -> Self {
        SpanRange { first: s, last: s }
    }
}

/// One error: its message (a first line, perhaps followed by `note:` and `help:` lines)
/// and where it points.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Where the error points.
    pub span: SpanRange,
    /// The message.
    pub message: String,
    /// A syntax error as syn reported it (kept whole, spans and all).
    syntax: Option<syn::Error>,
}

impl Diagnostic {
    /// The error as a `syn::Error`, spanned on its tokens.
    fn to_syn(&self) -> syn::Error {
        if let Some(e) = &self.syntax {
            return e.clone();
        }
        self.span.error(&self.message)
    }
}

/// The diagnostics found so far.
#[derive(Default, Debug)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records a syntax error from syn (its message and first span).
    pub(crate) fn push(&mut self, e: syn::Error) {
        for e in e {
            self.list.push(Diagnostic {
                span: e.span().into(),
                message: e.to_string(),
                syntax: Some(e),
            });
        }
    }

    /// Records an error with `message` at `span` (a token or a range of tokens).
    pub(crate) fn at(&mut self, span: impl Into<SpanRange>, message: impl std::fmt::Display) {
        self.list.push(Diagnostic {
            span: span.into(),
            message: message.to_string(),
            syntax: None,
        });
    }

    /// Puts the errors in source order (line, then column, of the first token they point
    /// at), keeping the order found among errors at one place: the checks run pass by
    /// pass, and a user reads the errors top to bottom.
    pub(crate) fn sort_by_source(&mut self) {
        self.list.sort_by_key(|d| {
            let at = d.span.first.start();
            (at.line, at.column)
        });
    }

    /// How many errors were recorded.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether any error was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The errors, in source order once checked ([`crate::check`]).
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.list.iter()
    }

    /// All errors as `compile_error!` invocations, in order.
    pub fn to_compile_errors(&self) -> TokenStream {
        let mut iter = self.list.iter().map(Diagnostic::to_syn);
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

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}
