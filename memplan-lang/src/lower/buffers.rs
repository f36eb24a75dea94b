//! `buffer` statements: a planned buffer's size, element type, alignment, region,
//! lifetime, pin and in-place source.

use memplan_planner::{Buffer, Lifetime};
use quote::quote;
use syn::Ident;
use syn::spanned::Spanned;

use super::context::Lowering;
use super::model::{BufferRecord, BufferSpans, Cause, Declared, ElemInfo, Standing};
use super::values::{Reported, check_align, object_bytes, placement_of};
use crate::diag::SpanRange;
use crate::names;
use crate::parse::{BufferDecl, Elem, Live, Size};

/// A buffer whose statement did not parse (the error is reported): its name and type are
/// declared, so that the user's code naming it raises no further errors, and it is left
/// out of the plan. Its region (`placed_in`, when its `in REGION` could be read) tells
/// which region's plan it would have been part of. Its size, when it reads (`size`), gives
/// its views' field the type written; the steps of a range written in it (`live`: `lvie
/// 0..=1`) are the steps whose views hold it, and without one every step's view does
/// ([`BufferRecord::lifetime_unknown`]).
pub(super) fn declare_broken(
    cx: &mut Lowering<'_>,
    name: Ident,
    placed_in: Option<Ident>,
    size: Option<Size>,
    live: Option<(u32, u32)>,
) {
    // The bytes stand for the field's length only: the buffer is not planned.
    let (bytes, elem) = match size.map(|s| (s.bytes, s.elem)) {
        Some((bytes, Elem::Prim { ty, size, .. })) => {
            (bytes.unwrap_or(0), ElemInfo::Prim { ty, size })
        }
        Some((Some(bytes), Elem::User { ty, count, .. })) => (
            bytes,
            ElemInfo::User {
                ty,
                count,
                bytes,
                align: 1,
            },
        ),
        Some((Some(bytes), Elem::Bytes)) => (bytes, ElemInfo::Bytes),
        _ => (0, ElemInfo::Bytes),
    };
    let (first, last) = live.unwrap_or((0, 0));
    let tname = names::type_name(&name.to_string(), 'B');
    let named = !cx.buffer_by_name.contains_key(&name.to_string())
        && cx.claim(&tname, name.span(), format!("buffer `{name}`"));
    cx.buffer_by_name
        .insert(name.to_string(), cx.model.buffers.len());
    let span = name.span();
    cx.model.buffers.push(BufferRecord {
        attrs: Vec::new(),
        type_ident: names::ident(&tname, span),
        spans: BufferSpans::all_at(span),
        origin: None,
        live_text: live.map_or(String::new(), |(a, b)| format!("{a}..={b}")),
        elem,
        buffer: match placed_in.and_then(|r| cx.region_by_name.get(&r.to_string())) {
            Some(&r) => Buffer::new(name.to_string(), bytes, r, first, last),
            None => Buffer::new(name.to_string(), bytes, 0, first, last).anywhere(),
        },
        declared: Declared::default(),
        standing: if named {
            Standing::Broken
        } else {
            Standing::NameTaken
        },
    });
}

/// A `buffer` statement. Every check reports its own error and says whether it passed:
/// a buffer with any error in its statement is left out of the plan.
pub(super) fn declare(cx: &mut Lowering<'_>, b: BufferDecl) {
    let name = b.name.to_string();
    let index = cx.model.buffers.len();
    let tname = names::type_name(&name, 'B');
    let named = if let Some(&prev) = cx.buffer_by_name.get(&name) {
        let earlier = &cx.model.buffers[prev];
        let first = match &earlier.origin {
            Some(row) => format!("first as a row of {row}"),
            None => format!("first at {}", crate::diag::location(earlier.spans.name)),
        };
        cx.diags.at(
            b.name.span(),
            format!("buffer `{name}` is declared twice ({first}): rename or remove one"),
        );
        false
    } else {
        cx.buffer_by_name.insert(name.clone(), index);
        cx.claim(&tname, b.name.span(), format!("buffer `{name}`"))
    };
    let (placement, placed) = match placement_of(cx, b.region.as_ref()) {
        Ok(p) => (p, true),
        Err(Reported(anywhere)) => (anywhere, false),
    };
    let align = b.align.and_then(|(a, span)| check_align(cx, a, span));
    // `check_align` gives `None` for an alignment it reported.
    let aligned = b.align.is_none() || align.is_some();
    let (sized, (size, size_span, elem, min_align)) = unpack(size_and_element(cx, &b, align));
    let (lived, lifetime) = unpack(lifetime(cx, &name, &b));
    let pinned = match b.pin {
        Some((None, span)) => {
            cx.diags
                .at(span, "the pinned offset is more than 2^64 - 1 bytes");
            false
        }
        _ => true,
    };
    let standing = if !named {
        Standing::NameTaken
    } else if placed && aligned && sized && lived && pinned {
        Standing::Planned
    } else {
        Standing::Excluded(Cause::Statement)
    };
    let name_span = b.name.span();
    cx.model.buffers.push(BufferRecord {
        attrs: b.attrs,
        type_ident: names::ident(&tname, name_span),
        spans: BufferSpans {
            name: name_span,
            size: size_span,
            pin: b.pin.map_or(name_span.into(), |p| p.1),
            in_place: b.in_place_of.as_ref().map_or(name_span, |i| i.span()),
        },
        origin: None,
        live_text: b.live.as_ref().map_or(String::new(), |l| l.text.clone()),
        elem,
        buffer: Buffer {
            name,
            size,
            align,
            min_align,
            lifetime,
            placement,
            pin: b.pin.and_then(|p| p.0),
            in_place_of: None,
        },
        declared: Declared {
            pad: b.pad.is_some(),
            in_place_of: b.in_place_of,
            size_given: b.size.is_some(),
        },
        standing,
    });
}

/// Whether a check passed, and its value (or the stand-in it reported).
fn unpack<T>(checked: Result<T, Reported<T>>) -> (bool, T) {
    match checked {
        Ok(v) => (true, v),
        Err(Reported(v)) => (false, v),
    }
}

/// The buffer's bytes, where its size is written, its element type, and the floor on its
/// alignment its element type sets (a primitive element's size; 1 otherwise): the planner
/// aligns it to `max(align or its region's, that floor)`, in whichever region takes it.
/// With an error (reported), the same with stand-ins.
fn size_and_element(
    cx: &mut Lowering<'_>,
    b: &BufferDecl,
    align: Option<u64>,
) -> Result<SizeAndElement, Reported<SizeAndElement>> {
    let name = b.name.to_string();
    let Some(s) = &b.size else {
        let none = (0, b.name.span().into(), ElemInfo::Bytes, 1);
        if b.in_place_of.is_none() {
            cx.diags.at(
                b.name.span(),
                format!("buffer `{name}` has no size: write `N bytes`, `N KiB` or `[T; N]` after the colon"),
            );
            return Err(Reported(none));
        }
        return Ok(none);
    };
    let (mut sound, bytes) = unpack(object_bytes(cx, s, &format!("buffer `{name}`")));
    let elem = match &s.elem {
        Elem::Bytes => ElemInfo::Bytes,
        Elem::Prim { ty, size, .. } => {
            if let (Some(a), Some((_, span))) = (align, b.align)
                && a < *size
            {
                cx.diags.at(
                    span,
                    format!(
                        "buffer `{name}`: `align {a}` is below the alignment of its element type `{ty}` ({size} bytes): typed access needs offsets that are multiples of {size}; give `align {size}` or more, or remove `align`"
                    ),
                );
                sound = false;
            }
            ElemInfo::Prim {
                ty: ty.clone(),
                size: *size,
            }
        }
        Elem::User { ty, count, .. } => match (align, b.align) {
            (Some(a), _) => ElemInfo::User {
                ty: ty.clone(),
                count: *count,
                bytes,
                align: a,
            },
            // An alignment written but invalid: reported already (the statement's error).
            (None, Some(_)) => ElemInfo::Bytes,
            (None, None) => {
                cx.diags.at(
                    ty.span(),
                    format!(
                        "buffer `{name}`: state the alignment of `[{}; {count}]` with `align A`",
                        quote!(#ty)
                    ),
                );
                sound = false;
                ElemInfo::Bytes
            }
        },
    };
    let min_align = match &elem {
        ElemInfo::Prim { size, .. } => *size,
        _ => 1,
    };
    let out = (bytes, s.span, elem, min_align);
    if sound { Ok(out) } else { Err(Reported(out)) }
}

/// What [`size_and_element`] gives: bytes, where the size is written, the element type,
/// and the floor on the alignment.
type SizeAndElement = (u64, SpanRange, ElemInfo, u64);

/// The buffer's lifetime; an empty or missing one is reported (and replaced: a missing one
/// by step 0, an empty one by the steps from the smaller number written to the larger).
fn lifetime(
    cx: &mut Lowering<'_>,
    name: &str,
    b: &BufferDecl,
) -> Result<Lifetime, Reported<Lifetime>> {
    let Some(l) = &b.live else {
        cx.diags.at(
            b.name.span(),
            format!("buffer `{name}` has no lifetime: add `live FIRST..=LAST` (steps, inclusive)"),
        );
        return Err(Reported(Lifetime { first: 0, last: 0 }));
    };
    match l.last {
        Some(last) => Ok(Lifetime {
            first: l.first,
            last,
        }),
        None => {
            empty_lifetime(cx, name, l);
            // The steps written, so that uses of the buffer there add no error.
            Err(Reported(Lifetime {
                first: l.written.0,
                last: l.written.1,
            }))
        }
    }
}

fn empty_lifetime(cx: &mut Lowering<'_>, name: &str, l: &Live) {
    let hint = if l.text.contains("..=") {
        "the last step comes before the first".to_string()
    } else {
        format!(
            "`..` excludes its end, so `{}` holds no step; for step {} alone write `{}..={}`",
            l.text, l.first, l.first, l.first
        )
    };
    cx.diags.at(
        l.span,
        format!(
            "buffer `{name}` has an empty lifetime `live {}`: {hint}",
            l.text
        ),
    );
}
