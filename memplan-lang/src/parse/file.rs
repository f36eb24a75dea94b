//! `buffers [in REGION] from "FILE";` and `buffers [in REGION] from out_dir "FILE";`

use syn::parse::ParseStream;
use syn::{LitStr, Token};

use super::{FileDecl, kw};

pub(super) fn parse(input: ParseStream) -> syn::Result<FileDecl> {
    let mut region = None;
    if input.peek(Token![in]) {
        input.parse::<Token![in]>()?;
        region = Some(super::plain_name(input)?);
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
