//! `memory_plan!` invocations in a Rust source file, for tools that read the file rather
//! than being expanded by the compiler (the `memplan` command, build scripts).

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// One `memory_plan! { ... }` (or `path::memory_plan! { ... }`) found in a file.
pub struct Invocation {
    /// The tokens inside the braces: what the macro is given.
    pub tokens: TokenStream,
    /// The `memory_plan` name of the invocation.
    pub span: Span,
}

/// Every `memory_plan!` invocation of `source` (a Rust source file's text), in order,
/// including those nested in modules, functions and other macros' input.
///
/// # Errors
///
/// The text is not a sequence of Rust tokens (an unclosed delimiter, an unterminated
/// string): the lexer's message.
pub fn invocations(source: &str) -> Result<Vec<Invocation>, String> {
    let tokens: TokenStream = source.parse().map_err(|e| format!("{e}"))?;
    let mut found = Vec::new();
    find(tokens, &mut found);
    Ok(found)
}

fn find(tokens: TokenStream, found: &mut Vec<Invocation>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        if let (TokenTree::Ident(id), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g))) =
            (&trees[i], trees.get(i + 1), trees.get(i + 2))
            && id == "memory_plan"
            && bang.as_char() == '!'
            && g.delimiter() != Delimiter::None
        {
            found.push(Invocation {
                tokens: g.stream(),
                span: id.span(),
            });
            i += 3;
            continue;
        }
        if let TokenTree::Group(g) = &trees[i] {
            find(g.stream(), found);
        }
        i += 1;
    }
}
