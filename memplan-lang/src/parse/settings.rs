//! The pools (`constant: SIZE;`, `runtime: SIZE;`, `temp: SIZE [, align A] [, memory M];`,
//! `temp: per step ...;` with `temp at STEP: SIZE;`), `strategy = NAME[(nodes = N)];` and
//! `lock = required;`.

use syn::parse::ParseStream;
use syn::{Ident, LitInt, Token};

use super::size::{parse_size, parse_trailing_align, parse_u64};
use super::{PoolDecl, StrategyDecl, TempRequestDecl, kw};

/// The rest of a pool statement, after its name `which`.
pub(super) fn parse_pool(input: ParseStream, which: Ident) -> syn::Result<PoolDecl> {
    input.parse::<Token![:]>()?;
    let size = if input.peek(kw::per) {
        let per = input.parse::<kw::per>()?;
        input.parse::<kw::step>()?;
        Err(per.span)
    } else {
        Ok(parse_size(input)?)
    };
    let align = parse_trailing_align(input)?;
    if input.peek(Token![,]) && input.peek2(kw::memory) {
        input.parse::<Token![,]>()?;
    }
    let memory = if input.peek(kw::memory) {
        input.parse::<kw::memory>()?;
        Some(input.parse()?)
    } else {
        None
    };
    Ok(PoolDecl {
        which,
        size,
        align,
        memory,
    })
}

/// The rest of `temp at FIRST[..=LAST]: SIZE`, after `at`.
pub(super) fn parse_temp_request(input: ParseStream) -> syn::Result<TempRequestDecl> {
    let first: LitInt = input.parse()?;
    let first_step = step_number(&first)?;
    let last_step = if input.peek(Token![..=]) {
        input.parse::<Token![..=]>()?;
        let last: LitInt = input.parse()?;
        let l = step_number(&last)?;
        if l < first_step {
            return Err(syn::Error::new(
                last.span(),
                format!("the steps `{first_step}..={l}` run backwards: write the first step first"),
            ));
        }
        l
    } else {
        first_step
    };
    input.parse::<Token![:]>()?;
    let size = parse_size(input)?;
    Ok(TempRequestDecl {
        first: first_step,
        last: last_step,
        size,
    })
}

/// A step number: a `u32`.
fn step_number(lit: &LitInt) -> syn::Result<u32> {
    let n = parse_u64(lit)?;
    u32::try_from(n).map_err(|_| syn::Error::new(lit.span(), "a step is at most 4294967295"))
}

pub(super) fn parse_strategy(input: ParseStream) -> syn::Result<StrategyDecl> {
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

/// The rest of `lock = required;` after `lock`: the word after `=` (checked when lowered).
pub(super) fn parse_lock(input: ParseStream) -> syn::Result<Ident> {
    if !input.peek(Token![=]) {
        return Err(input.error("expected `lock = required`"));
    }
    input.parse::<Token![=]>()?;
    input.parse()
}
