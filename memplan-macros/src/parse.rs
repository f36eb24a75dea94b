//! The front end: `memory_plan!`'s input as a syntax tree with spans.
//!
//! The body of the module is split at top-level `;` first, and each statement is parsed on
//! its own, so that one malformed statement is reported and the others are still checked.
//! Nothing here knows about regions or plans: numbers are parsed, meanings checked later
//! (`check`).

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitInt, LitStr, Token, Type, Visibility, braced, bracketed};

use crate::diag::{Errors, SpanRange};

/// `[attrs] vis mod NAME { statements }`.
pub struct Input {
    pub attrs: Vec<Attribute>,
    /// Inner attributes of the module body (`//!` docs), emitted inside the module.
    pub inner_attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub stmts: Vec<Stmt>,
}

pub enum Stmt {
    /// `crate = path;`
    Crate(syn::Path),
    Region(RegionDecl),
    Pool(PoolDecl),
    /// `strategy = greedy | best_of | optimal(nodes = N);`
    Strategy(StrategyDecl),
    Buffer(BufferDecl),
    Buffers(FileDecl),
    /// A `region NAME` or `buffer NAME` statement that did not parse (the error is
    /// reported): its name is still declared, so that other statements naming it, and the
    /// user's code using its type, raise no further errors.
    Broken {
        region: bool,
        name: Ident,
    },
}

/// A byte count as written: `N`, `N bytes`, `N KiB`, `N MiB`, or `[T; N]`.
pub struct Size {
    /// `None` when the arithmetic overflowed (already reported).
    pub bytes: Option<u64>,
    pub span: SpanRange,
    pub elem: Elem,
}

pub enum Elem {
    /// Plain bytes.
    Bytes,
    /// `[T; N]` of a primitive number type of `size` bytes.
    Prim { ty: Ident, size: u64 },
    /// `[T; N] as B bytes`: a user type; the macro checks `size_of::<T>() * N <= B`.
    User {
        ty: Box<Type>,
        count: u64,
        count_span: Span,
    },
}

pub struct RegionDecl {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub size: Size,
    pub align: Option<(u64, Span)>,
    pub section: Option<LitStr>,
    /// `kind tightly_coupled | dma | external`.
    pub kind: Option<Ident>,
}

pub struct PoolDecl {
    pub which: Ident,
    pub size: Size,
    pub align: Option<(u64, Span)>,
}

pub struct StrategyDecl {
    pub name: Ident,
    pub nodes: Option<(u64, Span)>,
}

pub struct Live {
    pub first: u32,
    /// Inclusive last step; `None` when the range is empty (`a..a`, `b..=a` with `b > a`).
    pub last: Option<u32>,
    /// The steps as written, `A..=B` or `A..B`, for messages.
    pub text: String,
    pub span: SpanRange,
}

pub struct BufferDecl {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub size: Option<Size>,
    pub region: Option<Ident>,
    pub live: Option<Live>,
    pub align: Option<(u64, Span)>,
    /// The pinned offset (`None` inside when it overflowed 64 bits) and where it is written.
    pub pin: Option<(Option<u64>, SpanRange)>,
    pub in_place_of: Option<Ident>,
    pub pad: Option<Span>,
}

pub struct FileDecl {
    pub region: Option<Ident>,
    pub path: LitStr,
    /// `from out_dir "x.csv"`: the path is inside the crate's `OUT_DIR`.
    pub out_dir: bool,
}

/// Parses the whole input, collecting statement errors into `errors`. Returns `None` only
/// when the module header itself cannot be read.
pub fn parse(tokens: TokenStream, errors: &mut Errors) -> Option<Input> {
    let header: Header = match syn::parse2(tokens) {
        Ok(h) => h,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let mut stmts = Vec::new();
    for stmt_tokens in split_statements(header.body, errors) {
        match syn::parse2::<Stmt>(stmt_tokens.clone()) {
            Ok(s) => stmts.push(s),
            Err(e) => {
                errors.push(e);
                if let Ok(head) = syn::parse2::<BrokenHead>(stmt_tokens) {
                    stmts.push(Stmt::Broken {
                        region: head.region,
                        name: head.name,
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
fn split_statements(body: TokenStream, errors: &mut Errors) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut cur: Vec<TokenTree> = Vec::new();
    for tt in body {
        if let TokenTree::Punct(p) = &tt
            && p.as_char() == ';'
        {
            if !cur.is_empty() {
                out.push(cur.drain(..).collect());
            }
            continue;
        }
        cur.push(tt);
    }
    if let Some(last) = cur.last() {
        errors.push(syn::Error::new(
            last.span(),
            "expected `;` at the end of this statement",
        ));
        out.push(cur.into_iter().collect());
    }
    out
}

/// The head of a statement that failed to parse: `[attrs] region|buffer NAME ...`.
struct BrokenHead {
    region: bool,
    name: Ident,
}

impl Parse for BrokenHead {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.call(Attribute::parse_outer)?;
        let region = if input.peek(kw::region) {
            input.parse::<kw::region>()?;
            true
        } else {
            input.parse::<kw::buffer>()?;
            false
        };
        let name: Ident = input.parse()?;
        input.parse::<TokenStream>()?;
        Ok(BrokenHead { region, name })
    }
}

mod kw {
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
            Stmt::Region(parse_region(input, attrs.clone())?)
        } else if la.peek(kw::buffers) {
            input.parse::<kw::buffers>()?;
            Stmt::Buffers(parse_file(input)?)
        } else if la.peek(kw::buffer) {
            input.parse::<kw::buffer>()?;
            Stmt::Buffer(parse_buffer(input, attrs.clone())?)
        } else if la.peek(kw::strategy) {
            input.parse::<kw::strategy>()?;
            if !input.peek(Token![=]) && !input.peek(Token![:]) {
                return Err(
                    input.error("expected `strategy = greedy | best_of | optimal(nodes = N)`")
                );
            }
            if input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
            } else {
                input.parse::<Token![:]>()?;
            }
            Stmt::Strategy(parse_strategy(input)?)
        } else if la.peek(Ident) {
            let which: Ident = input.fork().parse()?;
            if which == "constant" || which == "runtime" || which == "temp" {
                input.parse::<Ident>()?;
                input.parse::<Token![:]>()?;
                let size = parse_size(input)?;
                let align = parse_trailing_align(input)?;
                Stmt::Pool(PoolDecl { which, size, align })
            } else {
                return Err(syn::Error::new(
                    which.span(),
                    format!(
                        "unknown statement `{which}`: expected `region`, `buffer`, `buffers`, \
                         `constant`, `runtime`, `temp`, `strategy` or `crate`"
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

fn parse_u64(lit: &LitInt) -> syn::Result<u64> {
    if !lit.suffix().is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "write `{}` without the `{}` suffix: sizes and steps are plain integers",
                lit.base10_digits(),
                lit.suffix()
            ),
        ));
    }
    lit.base10_parse::<u64>()
        .map_err(|_| syn::Error::new(lit.span(), format!("`{lit}` does not fit 64 bits")))
}

fn parse_u32(lit: &LitInt) -> syn::Result<u32> {
    let v = parse_u64(lit)?;
    u32::try_from(v).map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!("step {v} is above the largest step, {}", u32::MAX),
        )
    })
}

/// `N [bytes|KiB|MiB]` or `[T; N] [as N bytes]`.
fn parse_size(input: ParseStream) -> syn::Result<Size> {
    if input.peek(syn::token::Bracket) {
        let content;
        let bracket = bracketed!(content in input);
        let ty: Type = content.parse()?;
        content.parse::<Token![;]>()?;
        let n: LitInt = content.parse()?;
        let count = parse_u64(&n)?;
        if !content.is_empty() {
            return Err(content.error("expected `]`: the length must be an integer literal"));
        }
        let span = SpanRange::new(bracket.span.open(), bracket.span.close());
        if let Some((ident, size)) = primitive(&ty) {
            if input.peek(Token![as]) {
                return Err(input.error(format!(
                    "`{ident}` has a known size ({size} bytes): remove `as ... bytes`"
                )));
            }
            return Ok(Size {
                bytes: size.checked_mul(count),
                span,
                elem: Elem::Prim { ty: ident, size },
            });
        }
        if let Type::Path(p) = &ty
            && (p.path.is_ident("usize") || p.path.is_ident("isize"))
        {
            return Err(syn::Error::new(
                ty.span(),
                "the size of `usize`/`isize` depends on the target: use `u32`, `u64`, `i32` or `i64`",
            ));
        }
        if !input.peek(Token![as]) {
            return Err(syn::Error::new(
                ty.span(),
                "for an element type other than a primitive number, state the bytes and alignment: \
                 `[T; N] as BYTES bytes, align A` (the macro checks them against `T` on the target)",
            ));
        }
        input.parse::<Token![as]>()?;
        let b = parse_bytes(input)?;
        return Ok(Size {
            bytes: b.bytes,
            span: b.span,
            elem: Elem::User {
                ty: Box::new(ty),
                count,
                count_span: n.span(),
            },
        });
    }
    parse_bytes(input)
}

fn parse_bytes(input: ParseStream) -> syn::Result<Size> {
    let lit: LitInt = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected a size: `N bytes`, `N KiB`, `N MiB` or `[T; N]`",
        )
    })?;
    let n = parse_u64(&lit)?;
    let mut span = SpanRange::from(lit.span());
    let mut mult = 1u64;
    if input.peek(kw::bytes) {
        let k: kw::bytes = input.parse()?;
        span.last = k.span;
    } else if input.peek(Ident)
        && !input.peek(kw::live)
        && !input.peek(kw::align)
        && !input.peek(kw::at)
        && !input.peek(kw::pad)
        && !input.peek(kw::section)
        && !input.peek(kw::kind)
    {
        let unit: Ident = input.fork().parse()?;
        mult = match unit.to_string().as_str() {
            "KiB" => 1 << 10,
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            "byte" | "B" => 1,
            "KB" | "kB" | "kb" | "MB" | "Mb" | "mb" | "GB" | "Gb" | "gb" | "kiB" | "KIB"
            | "mib" | "MIB" | "kib" | "gib" | "GIB" => {
                return Err(syn::Error::new(
                    unit.span(),
                    format!(
                        "unknown unit `{unit}`: write `bytes`, `KiB` (1024 bytes), `MiB` (1048576 bytes) or `GiB`"
                    ),
                ));
            }
            _ => {
                return Ok(Size {
                    bytes: Some(n),
                    span,
                    elem: Elem::Bytes,
                });
            }
        };
        input.parse::<Ident>()?;
        span.last = unit.span();
    }
    Ok(Size {
        bytes: n.checked_mul(mult),
        span,
        elem: Elem::Bytes,
    })
}

/// The primitive number types whose size the macro knows; never `usize`/`isize`.
fn primitive(ty: &Type) -> Option<(Ident, u64)> {
    let Type::Path(p) = ty else { return None };
    let id = p.path.get_ident()?;
    let size = match id.to_string().as_str() {
        "u8" | "i8" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" => 8,
        "u128" | "i128" => 16,
        _ => return None,
    };
    Some((id.clone(), size))
}

fn parse_trailing_align(input: ParseStream) -> syn::Result<Option<(u64, Span)>> {
    if input.peek(Token![,]) && input.peek2(kw::align) {
        input.parse::<Token![,]>()?;
    }
    if input.peek(kw::align) {
        input.parse::<kw::align>()?;
        let lit: LitInt = input.parse()?;
        return Ok(Some((parse_u64(&lit)?, lit.span())));
    }
    Ok(None)
}

/// "unknown buffer clause `colour`; expected ...", or the lookahead's own error when the
/// next token is not a word.
fn unknown_clause(
    input: ParseStream,
    la: syn::parse::Lookahead1,
    what: &str,
    expected: &str,
) -> syn::Error {
    match input.fork().parse::<Ident>() {
        Ok(id) => syn::Error::new(
            id.span(),
            format!("unknown {what} clause `{id}`; expected {expected}"),
        ),
        Err(_) => la.error(),
    }
}

/// `:` after a declared name.
fn parse_colon(input: ParseStream, what: &str, name: &Ident) -> syn::Result<()> {
    if input.peek(Token![:]) {
        input.parse::<Token![:]>()?;
        Ok(())
    } else {
        Err(input.error(format!("expected `:` after the {what} name `{name}`")))
    }
}

fn parse_region(input: ParseStream, attrs: Vec<Attribute>) -> syn::Result<RegionDecl> {
    let name: Ident = input.parse()?;
    parse_colon(input, "region", &name)?;
    let size = parse_size(input)?;
    let mut r = RegionDecl {
        attrs,
        name,
        size,
        align: None,
        section: None,
        kind: None,
    };
    while !input.is_empty() {
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            continue;
        }
        let la = input.lookahead1();
        if la.peek(kw::align) {
            let kw: kw::align = input.parse()?;
            let lit: LitInt = input.parse()?;
            if r.align.is_some() {
                return Err(syn::Error::new(kw.span, "`align` is given twice"));
            }
            r.align = Some((parse_u64(&lit)?, lit.span()));
        } else if la.peek(kw::section) {
            let kw: kw::section = input.parse()?;
            if r.section.is_some() {
                return Err(syn::Error::new(kw.span, "`section` is given twice"));
            }
            r.section = Some(input.parse()?);
        } else if la.peek(kw::kind) {
            let kw: kw::kind = input.parse()?;
            if r.kind.is_some() {
                return Err(syn::Error::new(kw.span, "`kind` is given twice"));
            }
            r.kind = Some(input.parse()?);
        } else {
            return Err(unknown_clause(
                input,
                la,
                "region",
                "`align N`, `section \"NAME\"` or `kind K`",
            ));
        }
    }
    Ok(r)
}

fn parse_strategy(input: ParseStream) -> syn::Result<StrategyDecl> {
    let name: Ident = input.parse()?;
    let mut nodes = None;
    if input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in input);
        content.parse::<kw::nodes>()?;
        content.parse::<Token![=]>()?;
        let lit: LitInt = content.parse()?;
        nodes = Some((parse_u64(&lit)?, lit.span()));
        if !content.is_empty() {
            return Err(content.error("expected `)`"));
        }
    }
    Ok(StrategyDecl { name, nodes })
}

fn parse_live(input: ParseStream) -> syn::Result<Live> {
    let kw: kw::live = input.parse()?;
    let a: LitInt = input.parse()?;
    let first = parse_u32(&a)?;
    let _ = kw;
    let (last, end_span, text) = if input.peek(Token![..=]) {
        input.parse::<Token![..=]>()?;
        let b: LitInt = input.parse()?;
        let last = parse_u32(&b)?;
        (
            if last < first { None } else { Some(last) },
            b.span(),
            format!("{first}..={last}"),
        )
    } else if input.peek(Token![..]) {
        input.parse::<Token![..]>()?;
        let b: LitInt = input.parse()?;
        let end = parse_u32(&b)?;
        (
            if end <= first { None } else { Some(end - 1) },
            b.span(),
            format!("{first}..{end}"),
        )
    } else {
        return Err(input
            .error("expected `..=LAST` (inclusive) or `..END` (exclusive) after the first step"));
    };
    Ok(Live {
        first,
        last,
        text,
        span: SpanRange::new(a.span(), end_span),
    })
}

fn parse_buffer(input: ParseStream, attrs: Vec<Attribute>) -> syn::Result<BufferDecl> {
    let name: Ident = input.parse()?;
    parse_colon(input, "buffer", &name)?;
    let mut b = BufferDecl {
        attrs,
        name,
        size: None,
        region: None,
        live: None,
        align: None,
        pin: None,
        in_place_of: None,
        pad: None,
    };
    if input.peek(LitInt) || input.peek(syn::token::Bracket) {
        b.size = Some(parse_size(input)?);
    }
    while !input.is_empty() {
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            continue;
        }
        let la = input.lookahead1();
        if la.peek(Token![in]) {
            let kw: Token![in] = input.parse()?;
            if input.peek(kw::place) {
                input.parse::<kw::place>()?;
                input.parse::<kw::of>()?;
                if b.in_place_of.is_some() {
                    return Err(syn::Error::new(kw.span, "`in place of` is given twice"));
                }
                b.in_place_of = Some(input.parse()?);
            } else {
                if b.region.is_some() {
                    return Err(syn::Error::new(kw.span, "the region is given twice"));
                }
                b.region = Some(input.parse()?);
            }
        } else if la.peek(kw::live) {
            if b.live.is_some() {
                return Err(input.error("`live` is given twice"));
            }
            b.live = Some(parse_live(input)?);
        } else if la.peek(kw::align) {
            let kw: kw::align = input.parse()?;
            let lit: LitInt = input.parse()?;
            if b.align.is_some() {
                return Err(syn::Error::new(kw.span, "`align` is given twice"));
            }
            b.align = Some((parse_u64(&lit)?, lit.span()));
        } else if la.peek(kw::at) {
            let kw: kw::at = input.parse()?;
            if b.pin.is_some() {
                return Err(syn::Error::new(kw.span, "`at` is given twice"));
            }
            let size = parse_bytes(input)?;
            b.pin = Some((size.bytes, size.span));
        } else if la.peek(kw::pad) {
            let kw: kw::pad = input.parse()?;
            b.pad = Some(kw.span);
        } else {
            return Err(unknown_clause(
                input,
                la,
                "buffer",
                "`in REGION`, `live A..=B`, `align N`, `at OFFSET`, `pad` or `in place of BUFFER`",
            ));
        }
    }
    Ok(b)
}

fn parse_file(input: ParseStream) -> syn::Result<FileDecl> {
    let mut region = None;
    if input.peek(Token![in]) {
        input.parse::<Token![in]>()?;
        region = Some(input.parse()?);
    }
    input.parse::<kw::from>()?;
    let mut out_dir = false;
    if input.peek(kw::out_dir) {
        input.parse::<kw::out_dir>()?;
        out_dir = true;
    }
    let path: LitStr = input.parse()?;
    Ok(FileDecl {
        region,
        path,
        out_dir,
    })
}
