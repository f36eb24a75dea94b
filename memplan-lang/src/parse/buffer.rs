//! `buffer NAME: SIZE CLAUSES;` with its clauses (`in`, `live`, `align`, `at`, `pad`,
//! `in place of`) and lifetimes (`live A..=B`, `live A..B`).

use syn::parse::ParseStream;
use syn::{Attribute, LitFloat, LitInt, Token};

use super::size::{parse_bytes, parse_size, parse_u32, parse_u64};
use super::{BufferDecl, Live, kw, parse_colon, unknown_clause};
use crate::diag::SpanRange;

pub(super) fn parse(input: ParseStream, attrs: Vec<Attribute>) -> syn::Result<BufferDecl> {
    let name = super::plain_name(input)?;
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
    // A fraction (`0.5 KiB`) goes to the size's own error.
    if input.peek(LitInt) || input.peek(LitFloat) || input.peek(syn::token::Bracket) {
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
                b.in_place_of = Some(super::plain_name(input)?);
            } else {
                if b.region.is_some() {
                    return Err(syn::Error::new(kw.span, "the region is given twice"));
                }
                b.region = Some(super::plain_name(input)?);
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
                &["in", "live", "align", "at", "pad"],
                "`in REGION`, `live A..=B`, `align N`, `at OFFSET`, `pad` or `in place of BUFFER`",
            ));
        }
    }
    Ok(b)
}

fn parse_live(input: ParseStream) -> syn::Result<Live> {
    let kw: kw::live = input.parse()?;
    let a: LitInt = input.parse()?;
    let first = parse_u32(&a)?;
    let _ = kw;
    let (last, end, end_span, text) = if input.peek(Token![..=]) {
        input.parse::<Token![..=]>()?;
        let b: LitInt = input.parse()?;
        let last = parse_u32(&b)?;
        (
            if last < first { None } else { Some(last) },
            last,
            b.span(),
            format!("{first}..={last}"),
        )
    } else if input.peek(Token![..]) {
        input.parse::<Token![..]>()?;
        let b: LitInt = input.parse()?;
        let end = parse_u32(&b)?;
        (
            if end <= first { None } else { Some(end - 1) },
            end,
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
        written: (first.min(end), first.max(end)),
        text,
        span: SpanRange::new(a.span(), end_span),
    })
}
