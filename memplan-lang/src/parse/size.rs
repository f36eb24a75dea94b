//! Numbers and sizes: `N`, `N bytes`, `N KiB`, `N MiB`, `N GiB`, `[T; N]` of a primitive
//! number type, or `[T; N] as B bytes` for a user type.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Ident, LitFloat, LitInt, Token, Type, bracketed};

use super::kw;
use super::{Elem, Size};
use crate::diag::SpanRange;

pub(crate) fn parse_u64(lit: &LitInt) -> syn::Result<u64> {
    let (digits, suffix) = (lit.base10_digits(), lit.suffix());
    if !suffix.is_empty() {
        let message = match unit_meant(suffix) {
            Some(unit) => format!(
                "`{digits}{suffix}`: write a size as `{digits} {unit}`, the unit after a space (`bytes`, `KiB`, `MiB`, `GiB`: powers of 1024); steps and counts are plain integers"
            ),
            None => format!(
                "write `{digits}` without the `{suffix}` suffix: sizes and steps are plain integers"
            ),
        };
        return Err(syn::Error::new(lit.span(), message));
    }
    lit.base10_parse::<u64>().map_err(|_| {
        let message = if digits.starts_with('-') {
            format!("`{digits}` is negative: sizes, steps and counts are at least 0")
        } else {
            format!("`{lit}` does not fit 64 bits")
        };
        syn::Error::new(lit.span(), message)
    })
}

/// The power of two a unit memplan reads stands for: `bytes`, `byte` and `B` 0, `KiB` 10,
/// `MiB` 20, `GiB` 30.
fn unit_shift(unit: &str) -> Option<u32> {
    match unit {
        "bytes" | "byte" | "B" => Some(0),
        "KiB" => Some(10),
        "MiB" => Some(20),
        "GiB" => Some(30),
        _ => None,
    }
}

/// The unit a size's suffix written without a space means (`64K`, `3MiB`, `16B`), if any.
fn unit_meant(suffix: &str) -> Option<&'static str> {
    match suffix.to_ascii_lowercase().as_str() {
        "b" | "byte" | "bytes" => Some("bytes"),
        "k" | "kb" | "kib" => Some("KiB"),
        "m" | "mb" | "mib" => Some("MiB"),
        "g" | "gb" | "gib" => Some("GiB"),
        _ => None,
    }
}

pub(crate) fn parse_u32(lit: &LitInt) -> syn::Result<u32> {
    let v = parse_u64(lit)?;
    u32::try_from(v).map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!("step {v} is above the largest step, {}", u32::MAX),
        )
    })
}

/// The deepest an element type may nest (arrays, tuples, generic arguments): syn parses a
/// type recursively, and a type nested a few hundred levels deep would overflow the
/// compiler's stack inside the macro.
pub const MAX_TYPE_DEPTH: usize = 32;

/// Where `tokens` first nest deeper than `limit` levels of delimiters and angle brackets,
/// found without recursion.
pub(crate) fn too_deep(tokens: TokenStream, limit: usize) -> Option<Span> {
    let mut stack = vec![(tokens.into_iter(), 0usize)];
    loop {
        let depth = stack.len();
        let (iter, angles) = stack.last_mut()?;
        let Some(tt) = iter.next() else {
            stack.pop();
            continue;
        };
        match tt {
            TokenTree::Group(g) => {
                if depth + *angles > limit {
                    return Some(g.span_open());
                }
                stack.push((g.stream().into_iter(), 0));
            }
            TokenTree::Punct(p) if p.as_char() == '<' => {
                *angles += 1;
                if depth + *angles > limit {
                    return Some(p.span());
                }
            }
            TokenTree::Punct(p) if p.as_char() == '>' => *angles = angles.saturating_sub(1),
            _ => {}
        }
    }
}

/// `N [bytes|KiB|MiB]` or `[T; N] [as N bytes]`.
pub(crate) fn parse_size(input: ParseStream) -> syn::Result<Size> {
    if input.peek(syn::token::Bracket) {
        let content;
        let bracket = bracketed!(content in input);
        if let Some(at) = too_deep(content.fork().parse::<TokenStream>()?, MAX_TYPE_DEPTH) {
            return Err(syn::Error::new(
                at,
                format!(
                    "the element type nests more than {MAX_TYPE_DEPTH} levels deep: name it with a type alias (`type Block = [[u8; 4]; 4];`)"
                ),
            ));
        }
        let ty: Type = content.parse()?;
        content.parse::<Token![;]>()?;
        let n: LitInt = content.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the element count: a whole number (`[i8; 1536]`)",
            )
        })?;
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
            // A user type (`half::f16` imported as `f16`) comes with `as`.
            if let Some(message) = not_a_number(&ty) {
                return Err(syn::Error::new(ty.span(), message));
            }
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
            },
        });
    }
    parse_bytes(input)
}

pub(crate) fn parse_bytes(input: ParseStream) -> syn::Result<Size> {
    const EXPECTED: &str = "expected a size: `N bytes`, `N KiB`, `N MiB` or `[T; N]`";
    if input.is_empty() {
        // syn says "unexpected end of input, ..."; the caller spans it on the statement's end.
        return Err(input.error(EXPECTED));
    }
    if input.peek(LitFloat) {
        return Err(fractional_size(input));
    }
    let lit: LitInt = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), EXPECTED))?;
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
        && !input.peek(kw::memory)
        && !input.peek(kw::uninit)
    {
        let unit: Ident = input.fork().parse()?;
        let word = unit.to_string();
        mult = match unit_shift(&word) {
            Some(shift) => 1 << shift,
            None => match word.as_str() {
                "KB" | "kB" | "kb" | "MB" | "Mb" | "mb" | "GB" | "Gb" | "gb" | "kiB" | "KIB"
                | "mib" | "MIB" | "kib" | "gib" | "GIB" => {
                    let meant = unit_meant(&unit.to_string()).unwrap_or("KiB");
                    return Err(syn::Error::new(
                        unit.span(),
                        format!(
                            "unknown unit `{unit}`: write `{n} {meant}` if you mean powers of 1024 (the units are `bytes`, `KiB` = 1024 bytes, `MiB` = 1048576 bytes, `GiB`)"
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
            },
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

/// The error for a size written with a fraction or an exponent (`1.5 KiB`, `1.5KiB`,
/// `1e3 bytes`): sizes are whole bytes; when the value is a whole number of bytes, the
/// error gives it (`write `1536 bytes``). It points at the number and its unit.
fn fractional_size(input: ParseStream) -> syn::Error {
    let Ok(lit) = input.parse::<LitFloat>() else {
        return input.error("expected a size: `N bytes`, `N KiB`, `N MiB` or `[T; N]`");
    };
    let digits = lit.base10_digits();
    // The unit: the literal's suffix (`1.5KiB`), else the next word when it is one (a
    // float type's suffix, `1.5f32`, is no unit).
    let suffix = lit.suffix();
    let (unit, last, joined) = if suffix.is_empty() || suffix == "f32" || suffix == "f64" {
        match input.fork().parse::<Ident>() {
            Ok(u) if unit_meant(&u.to_string()).is_some() => (Some(u.to_string()), u.span(), false),
            _ => (None, lit.span(), false),
        }
    } else {
        (Some(suffix.to_string()), lit.span(), true)
    };
    let written = match (&unit, joined) {
        (Some(u), false) => format!("{lit} {u}"),
        (Some(_), true) | (None, _) => lit.to_string(),
    };
    // Only the units memplan reads give a figure (`kb` may mean 1000 bytes).
    let shift = unit.as_deref().map_or(Some(0), unit_shift);
    const UNITS: &str = "write a size as an integer of `bytes`, `KiB`, `MiB` or `GiB`";
    let message = match shift.map(|shift| bytes_of(digits, shift)) {
        Some(Bytes::Whole(b)) => {
            format!("`{written}` is {b} bytes: write `{b} bytes` (sizes are whole numbers)")
        }
        Some(Bytes::Fraction) => format!("`{written}` is not a whole number of bytes: {UNITS}"),
        Some(Bytes::Unknown) | None => format!("`{written}`: sizes are whole numbers: {UNITS}"),
    };
    SpanRange::new(lit.span(), last).error(message)
}

/// What a decimal number with a unit comes to, in bytes.
#[derive(Debug, PartialEq, Eq)]
enum Bytes {
    /// A whole number of bytes that fits 64 bits.
    Whole(u64),
    /// A fraction of a byte over.
    Fraction,
    /// Too long, too large or too small to work out here.
    Unknown,
}

/// `digits` (a decimal literal's digits: `1.5`, `1e3`, `1.5e-2`) times `2^shift`, in bytes.
fn bytes_of(digits: &str, shift: u32) -> Bytes {
    let (mantissa, exp) = match digits.split_once(['e', 'E']) {
        Some((m, e)) => match e.parse::<i32>() {
            Ok(e) => (m, e),
            Err(_) => return Bytes::Unknown,
        },
        None => (digits, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit());
    if int.len() + frac.len() > 30 || !all_digits {
        return Bytes::Unknown;
    }
    let Ok(n) = format!("{int}{frac}").parse::<u128>() else {
        return Bytes::Unknown;
    };
    // `n * 10^tens * 2^shift`, with `tens` the exponent less the fraction's digits.
    let tens = i64::from(exp) - frac.len() as i64;
    let Some(scaled) = n.checked_mul(1u128 << shift) else {
        return Bytes::Unknown;
    };
    let value = if tens >= 0 {
        u32::try_from(tens)
            .ok()
            .and_then(|t| 10u128.checked_pow(t))
            .and_then(|p| scaled.checked_mul(p))
    } else {
        match u32::try_from(-tens)
            .ok()
            .and_then(|t| 10u128.checked_pow(t))
        {
            Some(p) if scaled % p == 0 => Some(scaled / p),
            Some(_) => return Bytes::Fraction,
            // Over 10^38: no value below 2^128 divides whole.
            None if scaled == 0 => Some(0),
            None => return Bytes::Fraction,
        }
    };
    match value.map(u64::try_from) {
        Some(Ok(b)) => Bytes::Whole(b),
        _ => Bytes::Unknown,
    }
}

/// What is wrong with an element type that reads like a primitive but is none: a number
/// type of a width Rust lacks (`f33`, `u31`: a typo), or `bool` and `char`, which cannot
/// hold every bit pattern that reused bytes may leave. Asked only of a type without `as`
/// (a user type of such a name, say `half::f16` imported, states its bytes).
fn not_a_number(ty: &Type) -> Option<String> {
    let Type::Path(p) = ty else { return None };
    let name = p.path.get_ident()?.to_string();
    const PRIMITIVES: &str =
        "`u8` `i8` `u16` `i16` `u32` `i32` `u64` `i64` `u128` `i128` `f32` `f64`";
    match name.as_str() {
        "bool" | "char" => Some(format!(
            "`{name}` cannot be a planned buffer's element: planned bytes are reused, and not every bit pattern is a valid `{name}`; plan `u8` (or `u32`) and convert"
        )),
        _ => {
            let (kind, width) = name.split_at_checked(1)?;
            let numbered = matches!(kind, "u" | "i" | "f")
                && !width.is_empty()
                && width.bytes().all(|b| b.is_ascii_digit());
            numbered.then(|| {
                format!("`{name}` is not a primitive number type; the primitives are {PRIMITIVES}")
            })
        }
    }
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

pub(crate) fn parse_trailing_align(input: ParseStream) -> syn::Result<Option<(u64, Span)>> {
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

#[cfg(test)]
mod tests {
    use super::parse_u64;
    use proc_macro2::Span;
    use syn::LitInt;

    fn message(text: &str) -> String {
        parse_u64(&LitInt::new(text, Span::call_site()))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_unit_written_without_a_space_names_the_size_meant() {
        assert_eq!(
            message("3M"),
            "`3M`: write a size as `3 MiB`, the unit after a space (`bytes`, `KiB`, `MiB`, `GiB`: powers of 1024); steps and counts are plain integers"
        );
        assert!(message("64KiB").starts_with("`64KiB`: write a size as `64 KiB`"));
        assert!(message("64k").starts_with("`64k`: write a size as `64 KiB`"));
        assert!(message("2GB").starts_with("`2GB`: write a size as `2 GiB`"));
        // Not a unit: the suffix goes.
        assert_eq!(
            message("16u32"),
            "write `16` without the `u32` suffix: sizes and steps are plain integers"
        );
    }

    #[test]
    fn number_types_rust_lacks_and_bool_are_named() {
        let message = |text: &str| super::not_a_number(&syn::parse_str(text).unwrap());
        assert_eq!(
            message("f33").as_deref(),
            Some(
                "`f33` is not a primitive number type; the primitives are `u8` `i8` `u16` `i16` `u32` `i32` `u64` `i64` `u128` `i128` `f32` `f64`"
            )
        );
        assert!(message("u31").is_some());
        assert!(message("bool").unwrap().starts_with("`bool` cannot be"));
        assert_eq!(message("Sample"), None);
        assert_eq!(message("u"), None);
        assert_eq!(message("f32x4"), None);
    }

    #[test]
    fn a_fraction_of_a_unit_is_given_in_bytes_when_whole() {
        use super::{Bytes, bytes_of};
        assert_eq!(bytes_of("1.5", 10), Bytes::Whole(1536));
        assert_eq!(bytes_of("0.25", 20), Bytes::Whole(262_144));
        assert_eq!(bytes_of("2.0", 0), Bytes::Whole(2));
        assert_eq!(bytes_of("1.3", 10), Bytes::Fraction); // 1331.2 bytes
        assert_eq!(bytes_of("0.5", 0), Bytes::Fraction);
        assert_eq!(bytes_of("1e3", 0), Bytes::Whole(1000));
        assert_eq!(bytes_of("1.5e3", 10), Bytes::Whole(1_536_000));
        assert_eq!(bytes_of("1.5E-1", 10), Bytes::Fraction); // 153.6 bytes
        assert_eq!(bytes_of("5e-1", 1), Bytes::Whole(1));
        assert_eq!(bytes_of("1e-60", 0), Bytes::Fraction);
        assert_eq!(bytes_of("0e-60", 0), Bytes::Whole(0));
        assert_eq!(bytes_of("1e309", 10), Bytes::Unknown); // past 64 bits
        assert_eq!(bytes_of("17179869184.0", 30), Bytes::Unknown); // 2^64
        assert_eq!(
            bytes_of(&format!("1.{}", "0".repeat(40)), 10),
            Bytes::Unknown
        );
    }

    #[test]
    fn a_negative_number_is_called_negative() {
        assert_eq!(
            message("-16"),
            "`-16` is negative: sizes, steps and counts are at least 0"
        );
        assert_eq!(
            message("18446744073709551616"),
            "`18446744073709551616` does not fit 64 bits"
        );
    }
}
