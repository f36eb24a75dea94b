//! Checks shared by the statements: sizes, alignments, and the region a buffer names.

use memplan_planner::{MAX_ALIGN, Placement};
use proc_macro2::Span;
use syn::Ident;

use super::context::Lowering;
use crate::parse::Size;
use crate::similar::did_you_mean;

/// A check that failed, with the error reported: the stand-in value used instead, chosen
/// so that later checks add no error of their own about it.
pub(super) struct Reported<T>(pub(super) T);

/// The bytes of a size, reporting overflow (`u64::MAX` stands in so checks downstream fail).
pub(super) fn size_bytes(cx: &mut Lowering<'_>, size: &Size, what: &str) -> u64 {
    match size.bytes {
        Some(b) => b,
        None => {
            cx.diags.at(
                size.span,
                format!(
                    "{what}: the size is more than 2^64 - 1 bytes, the most any plan can describe"
                ),
            );
            u64::MAX
        }
    }
}

/// Rust's largest object, in bytes (`isize::MAX` of a 64-bit target): no buffer, pool or
/// arena can be larger.
pub(super) const MAX_OBJECT: u64 = i64::MAX as u64;

/// The bytes of `size` of `what` (a buffer, a pool: an object), reporting a size that does
/// not fit 64 bits ([`size_bytes`]) or is above [`MAX_OBJECT`], once.
pub(super) fn object_bytes(
    cx: &mut Lowering<'_>,
    size: &Size,
    what: &str,
) -> Result<u64, Reported<u64>> {
    let Some(bytes) = size.bytes else {
        return Err(Reported(size_bytes(cx, size, what)));
    };
    if bytes > MAX_OBJECT {
        cx.diags.at(
            size.span,
            format!(
                "{what} is {bytes} bytes, more than the largest object Rust allows ({MAX_OBJECT} bytes, `isize::MAX`)"
            ),
        );
        return Err(Reported(bytes));
    }
    Ok(bytes)
}

/// An alignment: a power of two up to [`MAX_ALIGN`]; anything else is reported and then
/// counts as not written (`None`), so that nothing else is reported about it.
pub(super) fn check_align(cx: &mut Lowering<'_>, a: u64, span: Span) -> Option<u64> {
    if !a.is_power_of_two() {
        cx.diags
            .at(span, format!("alignment {a} is not a power of two"));
        return None;
    }
    if a > MAX_ALIGN {
        cx.diags.at(
            span,
            format!("alignment {a} exceeds the largest supported alignment, {MAX_ALIGN} bytes"),
        );
        return None;
    }
    Some(a)
}

/// Where `in REGION` puts a buffer: the region, or, without `in`, anywhere. An unknown
/// name is reported (with the closest known one), anywhere standing in.
pub(super) fn placement_of(
    cx: &mut Lowering<'_>,
    region: Option<&Ident>,
) -> Result<Placement, Reported<Placement>> {
    let Some(id) = region else {
        return Ok(Placement::Anywhere);
    };
    if let Some(&r) = cx.region_by_name.get(&id.to_string()) {
        return Ok(Placement::In(r));
    }
    let regions = &cx.model.regions;
    let list = if regions.is_empty() {
        "the plan declares none".to_string()
    } else {
        format!(
            "the regions are: {}",
            memplan_planner::listed(regions, |r| format!("`{}`", r.region.name))
        )
    };
    let wanted = id.to_string();
    let hint = did_you_mean(
        &mut cx.hints_left,
        &wanted,
        regions.iter().map(|r| r.region.name.as_str()),
    );
    cx.diags
        .at(id.span(), format!("unknown region `{id}`{hint}; {list}"));
    Err(Reported(Placement::Anywhere))
}
