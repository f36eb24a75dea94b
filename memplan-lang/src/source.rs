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

/// Walks the token trees with an explicit stack (a file may nest deeply), in order.
fn find(tokens: TokenStream, found: &mut Vec<Invocation>) {
    let mut stack: Vec<(Vec<TokenTree>, usize)> = vec![(tokens.into_iter().collect(), 0)];
    while let Some((trees, i)) = stack.last_mut() {
        let Some(tt) = trees.get(*i) else {
            stack.pop();
            continue;
        };
        if let (TokenTree::Ident(id), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g))) =
            (tt, trees.get(*i + 1), trees.get(*i + 2))
            && id == "memory_plan"
            && bang.as_char() == '!'
            && g.delimiter() != Delimiter::None
        {
            found.push(Invocation {
                tokens: g.stream(),
                span: id.span(),
            });
            *i += 3;
            continue;
        }
        *i += 1;
        if let TokenTree::Group(g) = tt {
            let inner = g.stream().into_iter().collect();
            stack.push((inner, 0));
        }
    }
}
