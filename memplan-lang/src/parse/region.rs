//! `region NAME: SIZE [, align A] [, memory M | , unsafe section "S"] [, uninit] [, kind K];`
//! (`region NAME: memory M ...;` without a size: what bank `M` has left)

use syn::parse::ParseStream;
use syn::{Attribute, LitInt, LitStr, Token};

use super::size::{parse_size, parse_u64};
use super::{RegionDecl, kw, parse_colon, unknown_clause};

pub(super) fn parse(input: ParseStream, attrs: Vec<Attribute>) -> syn::Result<RegionDecl> {
    let name = super::plain_name(input)?;
    parse_colon(input, "region", &name)?;
    let size = if input.peek(kw::memory) {
        None
    } else {
        Some(parse_size(input)?)
    };
    let mut r = RegionDecl {
        attrs,
        name,
        size,
        align: None,
        memory: None,
        section: None,
        uninit: None,
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
        } else if la.peek(kw::memory) {
            let kw: kw::memory = input.parse()?;
            if r.memory.is_some() || r.section.is_some() {
                return Err(syn::Error::new(
                    kw.span,
                    "the region is placed twice: give one `memory NAME` (or one `unsafe section \"S\"`)",
                ));
            }
            r.memory = Some(input.parse()?);
        } else if la.peek(Token![unsafe]) {
            let kw: Token![unsafe] = input.parse()?;
            input.parse::<kw::section>()?;
            let name: LitStr = input.parse()?;
            if r.memory.is_some() || r.section.is_some() {
                return Err(syn::Error::new(
                    kw.span,
                    "the region is placed twice: give one `memory NAME` (or one `unsafe section \"S\"`)",
                ));
            }
            r.section = Some((kw.span, name));
        } else if la.peek(kw::section) {
            let kw: kw::section = input.parse()?;
            return Err(syn::Error::new(
                kw.span,
                "memplan names and places link sections itself: write `memory NAME` for a MEMORY region of your memory.x (memplan's generated linker fragment places the arena there), or `unsafe section \"S\"` for a section your own linker script places (a section that the loader treats as code, constructors or read-only data would be undefined behaviour)",
            ));
        } else if la.peek(kw::uninit) {
            let kw: kw::uninit = input.parse()?;
            r.uninit = Some(kw.span);
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
                &["align", "memory", "unsafe", "section", "uninit", "kind"],
                "`align N`, `memory NAME`, `unsafe section \"S\"`, `uninit` or `kind K`",
            ));
        }
    }
    Ok(r)
}
