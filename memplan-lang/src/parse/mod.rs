//! The grammar: `memory_plan!`'s input as a syntax tree with spans.
//!
//! The body of the module is split at top-level `;` first, and each statement is parsed on
//! its own, so that one malformed statement is reported and the others are still checked.
//! Nothing here knows about regions or plans: numbers are parsed, meanings checked later
//! ([`crate::lower`]). One file per statement kind: `region`, `buffer` (with lifetimes),
//! `file` (`buffers ... from`), `settings` (pools, `strategy`); sizes and numbers in
//! `size`.

mod buffer;
mod file;
mod region;
mod settings;
mod size;

use memplan_planner::Strategy;
use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitInt, LitStr, Token, Type, Visibility, braced};

use crate::diag::{Diagnostics, SpanRange};
use crate::similar::did_you_mean;

/// `[attrs] vis mod NAME { statements }`.
pub struct Input {
    /// Outer attributes (doc comments) of the module.
    pub attrs: Vec<Attribute>,
    /// Inner attributes of the module body (`//!` docs), emitted inside the module.
    pub inner_attrs: Vec<Attribute>,
    /// The module's visibility.
    pub vis: Visibility,
    /// The module's name.
    pub name: Ident,
    /// The statements that parsed (and the heads of those that did not).
    pub stmts: Vec<Stmt>,
}

/// One statement of the module body.
pub enum Stmt {
    /// `crate = path;`
    Crate(syn::Path),
    /// `region NAME: SIZE ...;`
    Region(RegionDecl),
    /// `constant: SIZE;`, `runtime: SIZE;`, `temp: SIZE;`, `temp: per step;`
    Pool(PoolDecl),
    /// `temp at STEP: SIZE;` or `temp at FIRST..=LAST: SIZE;`: what those steps take from
    /// the temp pool.
    TempRequest(TempRequestDecl),
    /// `strategy = greedy | best_of | optimal(nodes = N);`
    Strategy(StrategyDecl),
    /// `lock = required;`: the word after `=`.
    Lock(Ident),
    /// `buffer NAME: ...;`
    Buffer(BufferDecl),
    /// `buffers [in REGION] from "FILE";`
    Buffers(FileDecl),
    /// `model [in REGION] from "FILE";`: a `.tflite` model's planned tensors, as `buffers`,
    /// and its schedule (the operators, run by a generated `run` over kernels the user
    /// implements).
    Model(FileDecl),
    /// A `region NAME` or `buffer NAME` statement that did not parse (the error is
    /// reported): its name is still declared, so that other statements naming it, and the
    /// user's code using its type, raise no further errors.
    Broken {
        /// A region (else a buffer).
        region: bool,
        /// Its name.
        name: Ident,
        /// For a buffer, the region its `in REGION` clause names, if one can be found.
        placed_in: Option<Ident>,
        /// For a buffer, its size, when it reads (`buffer a: [i8; 100] in r, lvie 0..=1`):
        /// its views' field gets the type the user's code expects.
        size: Option<Size>,
        /// For a buffer, the steps of the first range written in it (`lvie 0..=1`): the
        /// steps whose views hold it (every step's, without one).
        live: Option<(u32, u32)>,
    },
}

/// A byte count as written: `N`, `N bytes`, `N KiB`, `N MiB`, or `[T; N]`.
pub struct Size {
    /// `None` when the arithmetic overflowed (already reported).
    pub bytes: Option<u64>,
    /// Where the size is written.
    pub span: SpanRange,
    /// The element type.
    pub elem: Elem,
}

/// The element type of a size.
pub enum Elem {
    /// Plain bytes.
    Bytes,
    /// `[T; N]` of a primitive number type of `size` bytes.
    Prim {
        /// The type's name.
        ty: Ident,
        /// Its size in bytes.
        size: u64,
    },
    /// `[T; N] as B bytes`: a user type; the macro checks `size_of::<T>() * N <= B`.
    User {
        /// The type.
        ty: Box<Type>,
        /// `N`.
        count: u64,
    },
}

/// `region NAME: SIZE [, align A] [, memory M | , unsafe section "S"] [, uninit] [, kind K];`
pub struct RegionDecl {
    /// Doc comments.
    pub attrs: Vec<Attribute>,
    /// The region's name.
    pub name: Ident,
    /// Its capacity; `None` for a region that takes what its memory bank has left
    /// (`region act: memory SRAM3;`).
    pub size: Option<Size>,
    /// `align A`, with where it is written.
    pub align: Option<(u64, Span)>,
    /// `memory M`: the MEMORY region of the linker script the arena goes in.
    pub memory: Option<Ident>,
    /// `unsafe section "S"`, with where `unsafe` is written.
    pub section: Option<(Span, LitStr)>,
    /// `uninit`: take() does not zero the arena.
    pub uninit: Option<Span>,
    /// `kind tightly_coupled | dma | external`.
    pub kind: Option<Ident>,
}

/// `constant: SIZE;`, `runtime: SIZE;`, `temp: SIZE [, align A];`
pub struct PoolDecl {
    /// `constant`, `runtime` or `temp`.
    pub which: Ident,
    /// Its bytes: `None` for `per step` (where it is written), the largest request.
    pub size: Result<Size, Span>,
    /// `align A`, with where it is written.
    pub align: Option<(u64, Span)>,
    /// `memory M`: the MEMORY region of the linker script the pool goes in.
    pub memory: Option<Ident>,
}

/// `temp at FIRST[..=LAST]: SIZE;`
pub struct TempRequestDecl {
    /// The steps, inclusive (`at 3` is `3..=3`).
    pub first: u32,
    /// The last step.
    pub last: u32,
    /// The bytes those steps take from the pool (at each of them), padding included.
    pub size: Size,
}

/// `strategy = NAME[(nodes = N)];`
pub struct StrategyDecl {
    /// The strategy's name as written.
    pub name: Ident,
    /// `nodes = N`, with where `N` is written.
    pub nodes: Option<(u64, Span)>,
}

/// `live A..=B` or `live A..B`.
pub struct Live {
    /// The first step.
    pub first: u32,
    /// Inclusive last step; `None` when the range is empty (`a..a`, `b..=a` with `b > a`).
    pub last: Option<u32>,
    /// The two step numbers as written, the smaller first: what an empty range stands for
    /// after its error, so that code using the buffer at those steps adds no error.
    pub written: (u32, u32),
    /// The steps as written, `A..=B` or `A..B`, for messages.
    pub text: String,
    /// Where the steps are written.
    pub span: SpanRange,
}

/// `buffer NAME: [SIZE] CLAUSES;`
pub struct BufferDecl {
    /// Doc comments.
    pub attrs: Vec<Attribute>,
    /// The buffer's name.
    pub name: Ident,
    /// Its size (none for `in place of` without one).
    pub size: Option<Size>,
    /// `in REGION`.
    pub region: Option<Ident>,
    /// `live ...`.
    pub live: Option<Live>,
    /// `align A`, with where it is written.
    pub align: Option<(u64, Span)>,
    /// The pinned offset (`None` inside when it overflowed 64 bits) and where it is written.
    pub pin: Option<(Option<u64>, SpanRange)>,
    /// `in place of OTHER`.
    pub in_place_of: Option<Ident>,
    /// `pad`, where it is written.
    pub pad: Option<Span>,
}

/// `buffers [in REGION] from ["out_dir"] "FILE";`
pub struct FileDecl {
    /// `in REGION`.
    pub region: Option<Ident>,
    /// The file, as written.
    pub path: LitStr,
    /// `from out_dir "x.csv"`: the path is inside the crate's `OUT_DIR`.
    pub out_dir: bool,
}

/// The deepest the whole input may nest (delimiters and angle brackets).
pub const MAX_DEPTH: usize = 64;

/// The most characters a number literal may have: `u64::MAX` has 20 digits, and room is
/// left for `_` separators and a `0x` prefix.
pub const MAX_NUMBER_CHARS: usize = 96;

/// `tokens` with every number literal longer than [`MAX_NUMBER_CHARS`] reported and
/// replaced by `0` (so the statement parses and adds no error of its own): syn reads a
/// number literal's value digit by digit into a decimal big integer, quadratic in its
/// length, before any check of ours could refuse it. Iterative: the input may nest deeply.
fn long_numbers(tokens: TokenStream, errors: &mut Diagnostics) -> TokenStream {
    use proc_macro2::{Group, Literal, TokenTree};
    // Rebuilding the groups would lose their delimiters' own spans: only when needed.
    let is_long = |l: &Literal| {
        let text = l.to_string();
        text.len() > MAX_NUMBER_CHARS && text.starts_with(|c: char| c.is_ascii_digit())
    };
    let mut any = false;
    let mut scan: Vec<TokenStream> = vec![tokens.clone()];
    while let Some(ts) = scan.pop() {
        for tt in ts {
            match tt {
                TokenTree::Group(g) => scan.push(g.stream()),
                TokenTree::Literal(l) if is_long(&l) => any = true,
                _ => {}
            }
        }
    }
    if !any {
        return tokens;
    }
    // Each frame: the trees left to read, those kept, and the group to rebuild.
    let mut stack: Vec<(std::vec::IntoIter<TokenTree>, Vec<TokenTree>, Option<Group>)> = vec![(
        tokens.into_iter().collect::<Vec<_>>().into_iter(),
        Vec::new(),
        None,
    )];
    while let Some(frame) = stack.last_mut() {
        match frame.0.next() {
            Some(TokenTree::Group(g)) => {
                let inner = g.stream().into_iter().collect::<Vec<_>>().into_iter();
                stack.push((inner, Vec::new(), Some(g)));
            }
            Some(TokenTree::Literal(l)) => {
                if is_long(&l) {
                    let text = l.to_string();
                    errors.at(
                        l.span(),
                        format!(
                            "a number of {} characters (`{}...`): sizes, offsets, alignments and steps fit 64 bits, at most 20 digits",
                            text.len(),
                            &text[..20]
                        ),
                    );
                    let mut zero = Literal::u64_unsuffixed(0);
                    zero.set_span(l.span());
                    frame.1.push(TokenTree::Literal(zero));
                } else {
                    frame.1.push(TokenTree::Literal(l));
                }
            }
            Some(other) => frame.1.push(other),
            None => {
                let Some((_, kept, group)) = stack.pop() else {
                    break;
                };
                let stream: TokenStream = kept.into_iter().collect();
                match (group, stack.last_mut()) {
                    (Some(g), Some(parent)) => {
                        let mut rebuilt = Group::new(g.delimiter(), stream);
                        rebuilt.set_span(g.span());
                        parent.1.push(TokenTree::Group(rebuilt));
                    }
                    _ => return stream,
                }
            }
        }
    }
    TokenStream::new()
}

/// Parses the whole input, collecting statement errors into `errors`. Returns `None` only
/// when the module header itself cannot be read.
pub fn parse(tokens: TokenStream, errors: &mut Diagnostics) -> Option<Input> {
    // syn builds its token buffer recursively: refuse, before it does, an input nested
    // deeper than any invocation needs (the compiler's stack, or the CLI's, would overflow).
    if let Some(at) = size::too_deep(tokens.clone(), MAX_DEPTH) {
        errors.at(
            at,
            format!("the input nests more than {MAX_DEPTH} levels of brackets deep here"),
        );
        return None;
    }
    let tokens = long_numbers(tokens, errors);
    let header: Header = match syn::parse2(tokens) {
        Ok(h) => h,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let mut stmts = Vec::new();
    for (stmt_tokens, end) in split_statements(header.body, errors) {
        match syn::parse2::<Stmt>(stmt_tokens.clone()) {
            Ok(s) => stmts.push(s),
            Err(e) => {
                errors.push(at_end(e, end));
                if let Ok(head) = syn::parse2::<BrokenHead>(stmt_tokens) {
                    stmts.push(Stmt::Broken {
                        region: head.region,
                        name: head.name,
                        placed_in: head.placed_in,
                        size: head.size,
                        live: head.live,
                    });
                }
            }
        }
    }
    Some(Input {
        attrs: header.attrs,
        inner_attrs: header.inner_attrs,
        vis: header.vis,
        name: header.name,
        stmts,
    })
}

struct Header {
    attrs: Vec<Attribute>,
    inner_attrs: Vec<Attribute>,
    vis: Visibility,
    name: Ident,
    body: TokenStream,
}

impl Parse for Header {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        if !input.peek(Token![mod]) {
            return Err(input.error(
                "expected `mod NAME { ... }`: memory_plan! declares its plan inside a module",
            ));
        }
        input.parse::<Token![mod]>()?;
        let name: Ident = input.parse()?;
        let content;
        braced!(content in input);
        let inner_attrs = content.call(Attribute::parse_inner)?;
        let body: TokenStream = content.parse()?;
        if !input.is_empty() {
            return Err(input.error(
                "unexpected tokens after the module: one `memory_plan!` declares one module",
            ));
        }
        Ok(Header {
            attrs,
            inner_attrs,
            vis,
            name,
            body,
        })
    }
}

/// Splits at top-level `;`. A trailing statement without `;` is an error on its last token.
///
/// Each statement comes with the span of its end (its `;`, or its last token), where an
/// error about something missing at the end points.
fn split_statements(body: TokenStream, errors: &mut Diagnostics) -> Vec<(TokenStream, Span)> {
    let mut out = Vec::new();
    let mut cur: Vec<TokenTree> = Vec::new();
    for tt in body {
        if let TokenTree::Punct(p) = &tt
            && p.as_char() == ';'
        {
            if !cur.is_empty() {
                out.push((cur.drain(..).collect(), p.span()));
            }
            continue;
        }
        cur.push(tt);
    }
    if let Some(last) = cur.last() {
        let end = last.span();
        errors.push(syn::Error::new(
            end,
            "expected `;` at the end of this statement",
        ));
        out.push((cur.into_iter().collect(), end));
    }
    out
}

/// A statement's error, pointing at the statement's end when syn ran out of tokens (it
/// would point at the whole invocation).
fn at_end(e: syn::Error, end: Span) -> syn::Error {
    let message = e.to_string();
    if message.starts_with("unexpected end of input") {
        syn::Error::new(end, message)
    } else {
        e
    }
}

/// The statement keywords, for the hint on an unknown one (and the keyword a misspelt one
/// is read as, [`BrokenHead`]).
const STATEMENTS: [&str; 10] = [
    "region", "buffer", "buffers", "model", "constant", "runtime", "temp", "strategy", "lock",
    "crate",
];

/// The head of a statement that failed to parse: `[attrs] region|buffer NAME ...`, the
/// keyword perhaps misspelt (`regoin`: its error says the keyword meant, and the name is
/// still declared, so that what names it adds no error).
struct BrokenHead {
    region: bool,
    name: Ident,
    /// `in REGION` (not `in place of`) among the rest of the tokens.
    placed_in: Option<Ident>,
    /// The size after `NAME:`, when it reads.
    size: Option<Size>,
    /// The first range of steps among the rest of the tokens, when one reads.
    live: Option<(u32, u32)>,
}

impl Parse for BrokenHead {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.call(Attribute::parse_outer)?;
        // The keyword its error's hint names, by the same rule.
        let word: Ident = input.parse()?;
        let region = match memplan_planner::closest(&word.to_string(), STATEMENTS.into_iter()) {
            Some("region") => true,
            Some("buffer") => false,
            _ => return Err(syn::Error::new(word.span(), "not a region or buffer")),
        };
        let name = plain_name(input)?;
        let size = if input.peek(Token![:]) {
            let fork = input.fork();
            fork.parse::<Token![:]>()?;
            size::parse_size(&fork).ok()
        } else {
            None
        };
        let rest: Vec<TokenTree> = input.parse::<TokenStream>()?.into_iter().collect();
        let placed_in = rest.windows(2).find_map(|w| match (&w[0], &w[1]) {
            (TokenTree::Ident(kw), TokenTree::Ident(r)) if kw == "in" && r != "place" => {
                Some(unraw(r))
            }
            _ => None,
        });
        let live = (0..rest.len()).find_map(|i| steps_at(&rest[i..]));
        Ok(BrokenHead {
            region,
            name,
            placed_in,
            size,
            live,
        })
    }
}

/// The steps of a range `A..=B` or `A..B` (not empty) at the start of `tokens`, as
/// `(first, last)`: a broken buffer statement's lifetime, wherever it stands in it
/// (`lvie 0..=1`).
fn steps_at(tokens: &[TokenTree]) -> Option<(u32, u32)> {
    if !matches!(tokens.first(), Some(TokenTree::Literal(_))) {
        return None;
    }
    let range = |input: ParseStream| -> syn::Result<(u32, u32)> {
        let a = size::parse_u32(&input.parse::<LitInt>()?)?;
        let inclusive = if input.peek(Token![..=]) {
            input.parse::<Token![..=]>()?;
            true
        } else {
            input.parse::<Token![..]>()?;
            false
        };
        let b = size::parse_u32(&input.parse::<LitInt>()?)?;
        input.parse::<TokenStream>()?;
        let last = if inclusive { Some(b) } else { b.checked_sub(1) };
        match last {
            Some(last) if last >= a => Ok((a, last)),
            _ => Err(input.error("an empty range")),
        }
    };
    let head: TokenStream = tokens.iter().take(5).cloned().collect();
    syn::parse::Parser::parse2(range, head).ok()
}

/// A name (of a buffer, a region, an in-place source): an identifier, where a raw one
/// (`r#type`, `r#l`) is the same name as Rust reads it (`type`, `l`), so `r#l` and `l` name
/// one buffer. Wherever a name is emitted as an identifier it is made valid again
/// ([`crate::names::field_ident`]).
pub(crate) fn plain_name(input: ParseStream) -> syn::Result<Ident> {
    let id: Ident = input.parse()?;
    Ok(unraw(&id))
}

/// `id` without its `r#`.
fn unraw(id: &Ident) -> Ident {
    use syn::ext::IdentExt;
    Ident::new(&id.unraw().to_string(), id.span())
}

pub(crate) mod kw {
    syn::custom_keyword!(region);
    syn::custom_keyword!(buffer);
    syn::custom_keyword!(buffers);
    syn::custom_keyword!(live);
    syn::custom_keyword!(align);
    syn::custom_keyword!(at);
    syn::custom_keyword!(place);
    syn::custom_keyword!(of);
    syn::custom_keyword!(from);
    syn::custom_keyword!(section);
    syn::custom_keyword!(pad);
    syn::custom_keyword!(bytes);
    syn::custom_keyword!(strategy);
    syn::custom_keyword!(out_dir);
    syn::custom_keyword!(nodes);
    syn::custom_keyword!(kind);
    syn::custom_keyword!(memory);
    syn::custom_keyword!(uninit);
    syn::custom_keyword!(model);
    syn::custom_keyword!(per);
    syn::custom_keyword!(step);
}

impl Parse for Stmt {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let la = input.lookahead1();
        let stmt = if la.peek(Token![crate]) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            Stmt::Crate(input.call(syn::Path::parse_mod_style)?)
        } else if la.peek(kw::region) {
            input.parse::<kw::region>()?;
            Stmt::Region(region::parse(input, attrs.clone())?)
        } else if la.peek(kw::buffers) {
            input.parse::<kw::buffers>()?;
            Stmt::Buffers(file::parse(input)?)
        } else if la.peek(kw::model) {
            input.parse::<kw::model>()?;
            Stmt::Model(file::parse(input)?)
        } else if la.peek(kw::buffer) {
            input.parse::<kw::buffer>()?;
            Stmt::Buffer(buffer::parse(input, attrs.clone())?)
        } else if la.peek(kw::strategy) {
            input.parse::<kw::strategy>()?;
            if !input.peek(Token![=]) && !input.peek(Token![:]) {
                return Err(input.error(format!("expected `strategy = {}`", Strategy::SYNTAX)));
            }
            if input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
            } else {
                input.parse::<Token![:]>()?;
            }
            Stmt::Strategy(settings::parse_strategy(input)?)
        } else if la.peek(Ident) {
            let which: Ident = input.fork().parse()?;
            if which == "temp" && input.peek2(kw::at) {
                input.parse::<Ident>()?;
                input.parse::<kw::at>()?;
                Stmt::TempRequest(settings::parse_temp_request(input)?)
            } else if which == "constant" || which == "runtime" || which == "temp" {
                input.parse::<Ident>()?;
                Stmt::Pool(settings::parse_pool(input, which)?)
            } else if which == "lock" {
                input.parse::<Ident>()?;
                Stmt::Lock(settings::parse_lock(input)?)
            } else {
                let hint = did_you_mean(&mut 1, &which.to_string(), STATEMENTS.into_iter());
                return Err(syn::Error::new(
                    which.span(),
                    format!(
                        "unknown statement `{which}`{hint}: expected `region`, `buffer`, \
                         `buffers`, `model`, `constant`, `runtime`, `temp`, `strategy`, `lock` \
                         or `crate`"
                    ),
                ));
            }
        } else {
            return Err(la.error());
        };
        if let Some(a) = attrs.iter().find(|a| !a.path().is_ident("doc")) {
            return Err(syn::Error::new(
                a.span(),
                "only doc comments are allowed on a region or buffer: its type and trait impl are generated together",
            ));
        }
        if !attrs.is_empty() && !matches!(stmt, Stmt::Region(_) | Stmt::Buffer(_)) {
            return Err(syn::Error::new(
                attrs[0].span(),
                "attributes and doc comments are allowed on `region` and `buffer` only",
            ));
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens: expected `;` here"));
        }
        Ok(stmt)
    }
}

/// "unknown buffer clause `lvie` (did you mean `live`?); expected ...", the hint from the
/// clause's `keywords`, or the lookahead's own error when the next token is not a word.
pub(crate) fn unknown_clause(
    input: ParseStream,
    la: syn::parse::Lookahead1,
    what: &str,
    keywords: &[&str],
    expected: &str,
) -> syn::Error {
    match input.fork().parse::<Ident>() {
        Ok(id) => {
            let hint = did_you_mean(&mut 1, &id.to_string(), keywords.iter().copied());
            syn::Error::new(
                id.span(),
                format!("unknown {what} clause `{id}`{hint}; expected {expected}"),
            )
        }
        Err(_) => la.error(),
    }
}

/// `:` after a declared name.
pub(crate) fn parse_colon(input: ParseStream, what: &str, name: &Ident) -> syn::Result<()> {
    if input.peek(Token![:]) {
        input.parse::<Token![:]>()?;
        Ok(())
    } else {
        Err(input.error(format!("expected `:` after the {what} name `{name}`")))
    }
}
