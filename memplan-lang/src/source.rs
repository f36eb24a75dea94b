//! `memory_plan!` invocations in a Rust source file, for tools that read the file rather
//! than being expanded by the compiler (the `memplan` command, build scripts).

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// One `memory_plan! { ... }` (or `path::memory_plan! { ... }`, or the macro under a name
/// it was imported as) found in a file.
pub struct Invocation {
    /// The tokens inside the braces: what the macro is given.
    pub tokens: TokenStream,
    /// The `memory_plan` name of the invocation.
    pub span: Span,
    /// The inline modules (`mod NAME { ... }`) around the invocation in the file, outermost
    /// first, as Rust names them (`r#type` is `type`).
    pub modules: Vec<String>,
}

/// Every `memory_plan!` invocation of `source` (a Rust source file's text), in order,
/// including those nested in modules, functions and other macros' input. The macro is
/// found under its own name and under every name a `use ... memory_plan as NAME` of the
/// file gives it.
///
/// # Errors
///
/// The text is not a sequence of Rust tokens (an unclosed delimiter, an unterminated
/// string): the lexer's message.
pub fn invocations(source: &str) -> Result<Vec<Invocation>, String> {
    let tokens: TokenStream = source.parse().map_err(|e| format!("{e}"))?;
    let mut names = vec!["memory_plan".to_string()];
    aliases(tokens.clone(), &mut names);
    let mut found = Vec::new();
    find(tokens, &names, &mut found);
    Ok(found)
}

/// The inline modules around the invocation whose tokens are `tokens` in `source`, when
/// exactly one invocation of the file has them (compared as [`canonical`] text): what the
/// macro, which sees only its own tokens, needs to name its symbols as a build script that
/// reads the file does.
pub(crate) fn modules_of(source: &str, tokens: &TokenStream) -> Option<Vec<String>> {
    let own = canonical(tokens);
    let found = invocations(source).ok()?;
    let mut matching = found.into_iter().filter(|i| canonical(&i.tokens) == own);
    let first = matching.next()?;
    matching.next().is_none().then_some(first.modules)
}

/// `tokens` as text that does not depend on how they were lexed (the compiler's lexer in
/// the macro, proc-macro2's in a build script): each token's own text, one space apart.
pub(crate) fn canonical(tokens: &TokenStream) -> String {
    let mut out = String::new();
    let mut stack: Vec<std::vec::IntoIter<TokenTree>> =
        vec![tokens.clone().into_iter().collect::<Vec<_>>().into_iter()];
    let mut closers: Vec<char> = Vec::new();
    while let Some(top) = stack.last_mut() {
        let Some(tt) = top.next() else {
            stack.pop();
            if let Some(c) = closers.pop() {
                out.push(c);
                out.push(' ');
            }
            continue;
        };
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ('(', ')'),
                    Delimiter::Brace => ('{', '}'),
                    Delimiter::Bracket => ('[', ']'),
                    Delimiter::None => (' ', ' '),
                };
                out.push(open);
                out.push(' ');
                closers.push(close);
                stack.push(g.stream().into_iter().collect::<Vec<_>>().into_iter());
            }
            TokenTree::Ident(i) => {
                out.push_str(&i.to_string());
                out.push(' ');
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                out.push(' ');
            }
            TokenTree::Literal(l) => {
                out.push_str(&l.to_string());
                out.push(' ');
            }
        }
    }
    out
}

/// The names `use` statements of `tokens` give the macro: `NAME` of every
/// `memory_plan as NAME` (in a `use` path or a `use` group).
fn aliases(tokens: TokenStream, names: &mut Vec<String>) {
    let mut stack: Vec<Vec<TokenTree>> = vec![tokens.into_iter().collect()];
    while let Some(trees) = stack.pop() {
        for w in trees.windows(3) {
            if let [
                TokenTree::Ident(a),
                TokenTree::Ident(r#as),
                TokenTree::Ident(alias),
            ] = w
                && a == "memory_plan"
                && r#as == "as"
                && alias != "_"
            {
                names.push(unraw(&alias.to_string()));
            }
        }
        for tt in trees {
            if let TokenTree::Group(g) = tt {
                stack.push(g.stream().into_iter().collect());
            }
        }
    }
}

/// An identifier as Rust names it: `r#type` is `type`.
pub(crate) fn unraw(ident: &str) -> String {
    ident.strip_prefix("r#").unwrap_or(ident).to_string()
}

/// Walks the token trees with an explicit stack (a file may nest deeply), in order,
/// keeping the inline modules entered.
fn find(tokens: TokenStream, names: &[String], found: &mut Vec<Invocation>) {
    // Each frame: its trees, the next index, and the module it is the body of (if any).
    let mut stack: Vec<(Vec<TokenTree>, usize, Option<String>)> =
        vec![(tokens.into_iter().collect(), 0, None)];
    while let Some((trees, i, _)) = stack.last_mut() {
        let Some(tt) = trees.get(*i) else {
            stack.pop();
            continue;
        };
        if let (TokenTree::Ident(id), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g))) =
            (tt, trees.get(*i + 1), trees.get(*i + 2))
            && names.contains(&unraw(&id.to_string()))
            && bang.as_char() == '!'
            && g.delimiter() != Delimiter::None
        {
            let (tokens, span) = (g.stream(), id.span());
            *i += 3;
            let modules = stack.iter().filter_map(|f| f.2.clone()).collect();
            found.push(Invocation {
                tokens,
                span,
                modules,
            });
            continue;
        }
        // `mod NAME { ... }`: the group is that module's body.
        let module = match (*i).checked_sub(2).map(|k| (&trees[k], &trees[k + 1])) {
            Some((TokenTree::Ident(m), TokenTree::Ident(name))) if m == "mod" => {
                Some(unraw(&name.to_string()))
            }
            _ => None,
        };
        *i += 1;
        if let TokenTree::Group(g) = tt {
            let inner = g.stream().into_iter().collect();
            let module = module.filter(|_| g.delimiter() == Delimiter::Brace);
            stack.push((inner, 0, module));
        }
    }
}

/// The module path of a source file of a package, from its path relative to the package
/// root by Cargo's and rustc's layout: `src/lib.rs` is the crate root; `src/a.rs` and
/// `src/a/mod.rs` are `a`; `src/a/b.rs` is `a::b`; another crate root (`src/main.rs`,
/// `src/bin/x.rs`, `examples/x.rs`, `tests/x.rs`, `benches/x.rs`) is named after it
/// (`main`, `bin::x`, ...), so that a package's library and binary stay apart. A
/// `#[path]` attribute is not followed.
pub(crate) fn file_modules(relative: &std::path::Path) -> Vec<String> {
    let parts: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let strip = |s: &str| s.strip_suffix(".rs").unwrap_or(s).to_string();
    let mut out: Vec<String> = match parts.first().map(String::as_str) {
        Some("src") => parts[1..].iter().map(|p| strip(p)).collect(),
        _ => parts.iter().map(|p| strip(p)).collect(),
    };
    match out.as_slice() {
        [only] if only == "lib" => out.clear(),
        [.., last] if last == "mod" => {
            out.pop();
        }
        _ => {}
    }
    out
}
