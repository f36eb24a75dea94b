//! `region NAME: SIZE [, align A] [, section "S"] [, kind K];`

use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitInt, Token};

use super::size::{parse_size, parse_u64};
use super::{RegionDecl, kw, parse_colon, unknown_clause};

pub(super) fn parse(input: ParseStream, attrs: Vec<Attribute>) -> syn::Result<RegionDecl> {
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
