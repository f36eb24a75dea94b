//! Memory banks (`memory M` on a region or pool) checked against the crate's `memory.x`
//! ([`crate::memory_x`]) when the crate is compiled: `M` is a MEMORY region of it, writable
//! RAM (never flash), and its `LENGTH` holds each capacity placed in it; a region declared
//! without a size takes what the bank has left. (After planning, the planned bytes of all
//! arenas of a bank are checked too: [`planned_fit`].) Where `memory.x` is not found, only
//! the names are checked (a bank named like flash or ROM is refused); the generated linker
//! fragment's `ASSERT` stays the last line of defence at link time (for a bank shared with
//! `.data`, `.bss` and the stack).

use proc_macro2::Span;

use super::context::Lowering;
use super::model::{ArenaPlace, Model};
use crate::memory_x::MemoryX;

/// An arena placed in a memory: its memory's name and where it is written, what it is
/// (for messages), its declared bytes (a region's capacity, a pool's size).
struct Placed<'a> {
    memory: &'a syn::Ident,
    what: String,
    bytes: u64,
    /// A region declared without a size (its index).
    rest: Option<usize>,
}

fn placed(model: &Model) -> Vec<Placed<'_>> {
    let mut out = Vec::new();
    for (i, r) in model.regions.iter().enumerate() {
        if let ArenaPlace::Memory(m) = &r.place {
            out.push(Placed {
                memory: m,
                what: format!("region `{}`", r.region.name),
                bytes: r.region.capacity,
                rest: r.takes_rest.then_some(i),
            });
        }
    }
    for (name, pool) in model.pools.named() {
        if let Some(m) = &pool.memory {
            out.push(Placed {
                memory: m,
                what: format!("the `{name}` pool"),
                bytes: pool.bytes,
                rest: None,
            });
        }
    }
    out
}

/// Checks every `memory M` against `memory.x` (found from the invocation's package root
/// and `OUT_DIR`), and gives each region without a size its bank's rest.
pub(super) fn check(cx: &mut Lowering<'_>) {
    let any = !placed(&cx.model).is_empty();
    if !any {
        return;
    }
    let mx = MemoryX::find(cx.env.root.as_deref(), cx.env.out_dir.as_deref());
    // Editing it rebuilds the crate; only a regular file is kept (`include_bytes!` of a
    // FIFO would block the compiler).
    if let Some(path) = mx.path.as_ref().filter(|p| p.is_file()) {
        cx.model.files.push(path.clone());
    }
    if let (Some(path), Some(e)) = (&mx.path, &mx.error) {
        let span = placed(&cx.model)[0].memory.span();
        cx.diags
            .at(span, format!("memory.x `{}`: {e}", path.display()));
        // Its banks are not known: nothing else is checked against it.
        return;
    }
    let mut rest_of: Vec<(usize, u64)> = Vec::new();
    let mut errors: Vec<(Span, String)> = Vec::new();
    let arenas = placed(&cx.model);
    // Per memory: the bytes its sized arenas declare, and how many regions have no size.
    let mut per_memory: std::collections::BTreeMap<String, (u64, usize)> = Default::default();
    for a in &arenas {
        let e = per_memory.entry(a.memory.to_string()).or_default();
        if a.rest.is_some() {
            e.1 += 1;
        } else {
            e.0 = e.0.saturating_add(a.bytes);
        }
    }
    for a in &arenas {
        let m = a.memory.to_string();
        let span = a.memory.span();
        let Some(path) = &mx.path else {
            // No memory.x: the name alone says flash or ROM.
            let bank = crate::memory_x::Bank {
                name: m.clone(),
                attributes: String::new(),
                length: None,
            };
            if !bank.writable() {
                errors.push((span, not_ram(&a.what, &m, None)));
            }
            if a.rest.is_some() {
                errors.push((span, format!(
                    "{} has no size, so it takes what memory `{m}` has left, but no memory.x was found (looked in {}): give it a size",
                    a.what,
                    looked(&mx)
                )));
            }
            continue;
        };
        let Some(bank) = mx.bank(&m) else {
            let known: Vec<&str> = mx.banks.iter().map(|b| b.name.as_str()).collect();
            let hint = crate::similar::did_you_mean(&mut cx.hints_left, &m, known.iter().copied());
            errors.push((
                span,
                format!(
                    "memory `{m}`{hint} is not a MEMORY region of {} (it has {})",
                    path.display(),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        memplan_planner::listed(&known, |k| format!("`{k}`"))
                    }
                ),
            ));
            continue;
        };
        if !bank.writable() {
            errors.push((span, not_ram(&a.what, &m, Some(&bank.attributes))));
            continue;
        }
        let Some(length) = bank.length else {
            if a.rest.is_some() {
                errors.push((span, format!(
                    "{} has no size, so it takes what memory `{m}` has left, but {} gives no number for its LENGTH: give it a size",
                    a.what,
                    path.display()
                )));
            }
            continue;
        };
        if let Some(r) = a.rest {
            // The bank's length less what the other arenas placed in it declare.
            let (others, sizeless) = per_memory.get(&m).copied().unwrap_or_default();
            if sizeless > 1 {
                errors.push((span, format!(
                    "{sizeless} regions placed in memory `{m}` have no size: only one can take what it has left"
                )));
            } else if others > length {
                errors.push((span, format!(
                    "{} takes what memory `{m}` has left, but the other arenas placed in it declare {others} bytes, more than its {length} (memory.x)",
                    a.what
                )));
            } else {
                rest_of.push((r, length - others));
            }
            continue;
        }
        if a.bytes > length {
            errors.push((span, format!(
                "{} has a capacity of {} bytes, more than memory `{m}` has: {length} bytes ({})",
                a.what,
                a.bytes,
                path.display()
            )));
        }
    }
    for (r, bytes) in rest_of {
        cx.model.regions[r].region.capacity = bytes;
    }
    for (span, e) in errors {
        cx.diags.at(span, e);
    }
    cx.model.memory_x = Some(mx);
}

fn not_ram(what: &str, m: &str, attributes: Option<&str>) -> String {
    let why = match attributes {
        Some(a) => format!("memory.x gives it the attributes `({a})`, without `w`"),
        None => "its name says flash or ROM".to_string(),
    };
    format!(
        "{what} is placed in memory `{m}`, which is not writable RAM ({why}): an arena there could not be written; place it in a RAM bank"
    )
}

fn looked(mx: &MemoryX) -> String {
    let places: Vec<String> = mx
        .searched
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    if places.is_empty() {
        "nowhere: the package's root is not known".to_string()
    } else {
        places.join(", ")
    }
}
