//! `region` statements, all before the other statements (a buffer may name a region
//! declared after it).

use memplan_planner::{DEFAULT_REGION_ALIGN, Region};
use proc_macro2::Span;
use syn::{Ident, LitStr};

use super::context::Lowering;
use super::model::{ArenaPlace, RegionRecord, RegionStanding};
use super::values::{check_align, size_bytes};
use crate::names;
use crate::parse::{RegionDecl, Stmt};

/// Declares every region of `stmts`, in order, including those whose statement did not
/// parse.
pub(super) fn declare_all(cx: &mut Lowering<'_>, stmts: &[Stmt]) {
    for stmt in stmts {
        match stmt {
            Stmt::Broken {
                region: true, name, ..
            } => declare_broken(cx, name),
            Stmt::Region(r) => declare(cx, r),
            _ => {}
        }
    }
}

/// A region whose statement did not parse (the error is reported): declared with no
/// bytes, so nothing is planned in it and its name raises no further errors.
fn declare_broken(cx: &mut Lowering<'_>, name: &Ident) {
    let tname = names::type_name(&name.to_string(), 'R');
    if cx.region_by_name.contains_key(&name.to_string())
        || !cx.claim(&tname, name.span(), format!("region `{name}`"))
    {
        return;
    }
    push(
        cx,
        RegionRecord {
            attrs: Vec::new(),
            ident: name.clone(),
            type_ident: names::ident(&tname, name.span()),
            place: ArenaPlace::Bss,
            uninit: false,
            takes_rest: false,
            kind: Ident::new("Unspecified", name.span()),
            region: Region {
                name: name.to_string(),
                capacity: 0,
                align: DEFAULT_REGION_ALIGN,
            },
            standing: RegionStanding::Broken,
        },
    );
}

fn declare(cx: &mut Lowering<'_>, r: &RegionDecl) {
    let name = r.name.to_string();
    if let Some(&prev) = cx.region_by_name.get(&name) {
        let first = crate::diag::location(cx.model.regions[prev].ident.span());
        cx.diags.at(
            r.name.span(),
            format!("region `{name}` is declared twice (first at {first}): rename or remove one"),
        );
        return;
    }
    // Without a size: what its memory bank has left, once every arena is declared
    // (`super::banks`); 0 until then.
    let capacity = match &r.size {
        Some(size) => size_bytes(cx, size, &format!("region `{name}`")),
        None => 0,
    };
    let align = match r.align {
        Some((a, span)) => check_align(cx, a, span).unwrap_or(DEFAULT_REGION_ALIGN),
        None => DEFAULT_REGION_ALIGN,
    };
    if let Some((_, sec)) = &r.section {
        check_section(cx, sec);
    }
    let tname = names::type_name(&name, 'R');
    if !cx.claim(&tname, r.name.span(), format!("region `{name}`")) {
        return;
    }
    let kind = region_kind(cx, r.kind.as_ref());
    push(
        cx,
        RegionRecord {
            attrs: r.attrs.clone(),
            ident: r.name.clone(),
            type_ident: names::ident(&tname, r.name.span()),
            place: match (&r.memory, &r.section) {
                (Some(m), _) => ArenaPlace::Memory(m.clone()),
                (None, Some((unsafe_span, name))) => ArenaPlace::Section {
                    unsafe_span: *unsafe_span,
                    name: name.clone(),
                },
                (None, None) => ArenaPlace::Bss,
            },
            uninit: r.uninit.is_some(),
            takes_rest: r.size.is_none(),
            kind,
            region: Region {
                name,
                capacity,
                align,
            },
            standing: RegionStanding::Declared,
        },
    );
}

fn push(cx: &mut Lowering<'_>, record: RegionRecord) {
    cx.region_by_name
        .insert(record.region.name.clone(), cx.model.regions.len());
    cx.model.regions.push(record);
}

/// The runtime's `RegionKind` variant for `kind NAME`.
fn region_kind(cx: &mut Lowering<'_>, kind: Option<&Ident>) -> Ident {
    let Some(k) = kind else {
        return Ident::new("Unspecified", Span::call_site());
    };
    let variant = match k.to_string().as_str() {
        "tightly_coupled" => "TightlyCoupled",
        "dma" => "DmaCapable",
        "external" => "External",
        other => {
            let hint = crate::similar::did_you_mean(
                &mut cx.hints_left,
                other,
                ["tightly_coupled", "dma", "external"].into_iter(),
            );
            cx.diags.at(
                k.span(),
                format!(
                    "unknown region kind `{other}`{hint}: expected `tightly_coupled`, `dma` or `external`"
                ),
            );
            "Unspecified"
        }
    };
    Ident::new(variant, k.span())
}

/// A link section name: printable ASCII, no quotes, no spaces, at most 64 bytes; it names
/// a section of the object file and the linker script.
fn check_section(cx: &mut Lowering<'_>, sec: &LitStr) {
    let s = sec.value();
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '-'));
    if !ok {
        cx.diags.at(
            sec.span(),
            format!("invalid section name {s:?}: use 1 to 64 of the characters A-Z a-z 0-9 . _ $ - (for example \".sram1\")"),
        );
    }
}
