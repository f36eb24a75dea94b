//! Rust names for regions and buffers.
//!
//! A name becomes a type name by a fixed mangling: an ASCII character outside
//! `[A-Za-z0-9_]` becomes `_`, a non-ASCII one `_u{hex}_` (its code point in lower-case
//! hex, so distinct names stay distinct); the result is split at `_` and each part's first letter is upper-cased
//! (`aten_convolution_default.out0` -> `AtenConvolutionDefaultOut0`, `conv1` -> `Conv1`);
//! a name that then starts with a digit or is empty gets the prefix `B` (buffers) or `R`
//! (regions); `Self` becomes `Self_`. Two names that mangle alike are an error naming both.

use proc_macro2::Span;
use syn::Ident;

/// The type name for `name`, with `prefix` for names that would start with a digit.
pub fn type_name(name: &str, prefix: char) -> String {
    let cleaned = ascii(name);
    let mut out = String::with_capacity(cleaned.len());
    for part in cleaned.split('_').filter(|p| !p.is_empty()) {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, prefix);
    }
    if out == "Self" {
        out.push('_');
    }
    out
}

/// `name` in `[A-Za-z0-9_]`: non-ASCII characters as `_u{hex}_`, other characters as `_`.
pub(crate) fn ascii(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if c.is_ascii() {
            out.push('_');
        } else {
            out.push_str(&format!("_u{:x}_", u32::from(c)));
        }
    }
    out
}

/// The field name for `name` in a step's view: mangled to ASCII as for type names (a
/// non-ASCII character as `_u{hex}_`, every other character outside `[A-Za-z0-9_]` as
/// `_`); a name that then starts with a digit (or is empty) gets the prefix `b_`; a
/// keyword gets the suffix `_` (`type` -> `type_`). (A declared buffer's field is its own
/// name, already an identifier.)
pub fn field_name(name: &str) -> String {
    let mut out = ascii(name);
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "b_");
    }
    if syn::parse_str::<syn::Ident>(&out).is_err() || out == "_" {
        out.push('_');
    }
    out
}

/// The field of a declared buffer named `name` in a step's view: the name itself, raw
/// (`r#type`) when it is a keyword.
pub fn field_ident(name: &str, span: Span) -> Ident {
    if syn::parse_str::<Ident>(name).is_ok() {
        Ident::new(name, span)
    } else {
        Ident::new_raw(name, span)
    }
}

/// The identifier for a type name made by [`type_name`] (always a valid identifier).
pub fn ident(name: &str, span: Span) -> Ident {
    Ident::new(name, span)
}

#[cfg(test)]
mod tests {
    use super::type_name;

    #[test]
    fn mangles_to_upper_camel() {
        assert_eq!(type_name("conv1", 'B'), "Conv1");
        assert_eq!(
            type_name("aten_convolution_default.out0", 'B'),
            "AtenConvolutionDefaultOut0"
        );
        assert_eq!(
            type_name("aten__native_batch_norm", 'B'),
            "AtenNativeBatchNorm"
        );
        assert_eq!(type_name("0in", 'B'), "B0in");
        assert_eq!(type_name("...", 'R'), "R");
        assert_eq!(type_name("self", 'B'), "Self_");
        assert_eq!(type_name("a.b", 'B'), type_name("a_b", 'B'));
        // Non-ASCII names stay apart (they all became `B` before).
        assert_eq!(type_name("größe", 'B'), "GrUf6UdfE");
        assert_eq!(type_name("ä", 'B'), "Ue4");
        assert_ne!(type_name("ä", 'B'), type_name("ö", 'B'));
        assert_eq!(type_name("層1", 'B'), "U5c641");
    }

    #[test]
    fn a_declared_keyword_name_is_a_raw_field() {
        use super::field_ident;
        let span = proc_macro2::Span::call_site();
        assert_eq!(field_ident("type", span).to_string(), "r#type");
        assert_eq!(field_ident("l", span).to_string(), "l");
    }

    #[test]
    fn field_names_are_identifiers() {
        use super::field_name;
        assert_eq!(field_name("conv1"), "conv1");
        assert_eq!(
            field_name("aten_convolution_default.out0"),
            "aten_convolution_default_out0"
        );
        assert_eq!(field_name("0in"), "b_0in");
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("self"), "self_");
        assert_eq!(field_name("_"), "__");
        for n in ["conv1", "type_", "b_0in", "self_", "__"] {
            assert!(syn::parse_str::<syn::Ident>(n).is_ok(), "{n}");
        }
    }
}
