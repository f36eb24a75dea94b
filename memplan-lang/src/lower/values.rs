//! Checks shared by the statements: sizes, alignments, and the region a buffer names.

use memplan_planner::{MAX_ALIGN, Placement};
use proc_macro2::Span;
use syn::Ident;

use super::context::Lowering;
use crate::parse::Size;

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
        "none is declared".to_string()
    } else {
        memplan_planner::listed(regions, |r| format!("`{}`", r.region.name))
    };
    let wanted = id.to_string();
    let hint = did_you_mean(
        &mut cx.hints_left,
        &wanted,
        regions.iter().map(|r| r.region.name.as_str()),
    );
    cx.diags.at(
        id.span(),
        format!("unknown region `{id}`{hint}; the regions are: {list}"),
    );
    Err(Reported(Placement::Anywhere))
}

/// ` (did you mean `x`?)` for the first of `known` within two edits of `wanted`, or
/// nothing. Each invocation searches for at most [`HINTS`] unknown names (`hints_left`
/// counts down), and only names of a similar length, so that thousands of unknown names
/// among thousands of known ones cost no more than a few searches.
pub(super) fn did_you_mean<'a>(
    hints_left: &mut usize,
    wanted: &str,
    known: impl Iterator<Item = &'a str>,
) -> String {
    if *hints_left == 0 || wanted.len() > 64 {
        return String::new();
    }
    *hints_left -= 1;
    // As rustc's suggestions: at most a third of the name's length apart (at least one
    // edit), the closest, the first of those equally close.
    let most = wanted.chars().count().max(3) / 3;
    let mut best: Option<(usize, &str)> = None;
    for k in known.filter(|k| k.len().abs_diff(wanted.len()) <= most) {
        let d = edit_distance(k, wanted);
        if d <= most && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, k));
        }
    }
    best.map_or(String::new(), |(_, k)| format!(" (did you mean `{k}`?)"))
}

/// How many unknown names of one invocation get a "did you mean" search.
pub(super) const HINTS: usize = 16;

/// Edit distance with adjacent transpositions (`sarm` is one edit from `sram`, as in
/// rustc's suggestions), for "did you mean" hints: the optimal string alignment distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows: the one two back (for transpositions), the last, the current.
    let mut two: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (last[j] + 1).min(cur[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(two[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut two, &mut last);
        std::mem::swap(&mut last, &mut cur);
    }
    last[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{did_you_mean, edit_distance};

    #[test]
    fn edit_distance_counts_a_transposition_once() {
        assert_eq!(edit_distance("sarm", "sram"), 1);
        assert_eq!(edit_distance("SRAM9", "SRAM3"), 1);
        assert_eq!(edit_distance("SRAM9", "RAM"), 2);
        assert_eq!(edit_distance("conv11", "conv1"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_hint_is_the_closest_name_within_a_third_of_its_length() {
        let hint = |wanted: &str, known: &[&str]| {
            let mut left = 16;
            did_you_mean(&mut left, wanted, known.iter().copied())
        };
        // `RAM` comes first but is two edits away, `SRAM3` one.
        assert_eq!(hint("SRAM9", &["RAM", "SRAM3"]), " (did you mean `SRAM3`?)");
        assert_eq!(hint("sarm", &["sram", "dtcm"]), " (did you mean `sram`?)");
        // Two edits on a name of two letters is no likeness.
        assert_eq!(hint("zz", &["a", "b"]), "");
        // Equally close: the first.
        assert_eq!(hint("bufx", &["bufa", "bufb"]), " (did you mean `bufa`?)");
    }
}
