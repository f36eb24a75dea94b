//! After planning: the arenas a plan puts in memory banks (`memory M`), at their planned
//! bytes, and whether they fit the banks of `memory.x`. The linker fragment places them
//! ([`crate::linker`]).

use memplan_planner::Plan;

use crate::diag::Diagnostics;
use crate::lower::{ArenaPlace, Model};

/// One arena of a plan placed in a memory: a region or a pool.
pub(crate) struct PlacedArena {
    /// `region` or `pool`.
    pub kind: &'static str,
    /// The region's or pool's name.
    pub name: String,
    /// The MEMORY region of the linker script.
    pub memory: String,
    /// The arena's bytes (the planned bytes, or the pool's size).
    pub bytes: u64,
    /// The arena's alignment, in bytes.
    pub align: u64,
}

/// The arenas of `model` (planned as `plan`) placed with `memory M`, regions first.
pub(crate) fn placed_arenas(model: &Model, plan: &Plan) -> Vec<PlacedArena> {
    let mut out = Vec::new();
    for (record, rp) in model.regions.iter().zip(&plan.regions) {
        if let ArenaPlace::Memory(m) = &record.place {
            out.push(PlacedArena {
                kind: "region",
                name: record.region.name.clone(),
                memory: m.to_string(),
                bytes: rp.planned_bytes,
                align: rp.align,
            });
        }
    }
    for (name, pool) in model.pools.named() {
        if let Some(m) = &pool.memory {
            out.push(PlacedArena {
                kind: "pool",
                name: name.to_string(),
                memory: m.to_string(),
                bytes: pool.bytes,
                align: pool.align,
            });
        }
    }
    out
}

/// After planning: the arenas placed in each bank, at their planned bytes (rounded up to
/// their alignment, as the linker fragment places them), fit its LENGTH in memory.x.
pub(crate) fn planned_fit(model: &Model, plan: &Plan, diags: &mut Diagnostics) {
    let Some(mx) = &model.memory_x else { return };
    if mx.path.is_none() {
        return;
    }
    let arenas = placed_arenas(model, plan);
    let mut by_bank: std::collections::BTreeMap<&str, Vec<&PlacedArena>> = Default::default();
    for a in &arenas {
        by_bank.entry(a.memory.as_str()).or_default().push(a);
    }
    for (m, mine) in by_bank {
        let Some(length) = mx.bank(m).and_then(|b| b.length) else {
            continue;
        };
        let need: u64 = mine
            .iter()
            .map(|a| {
                a.bytes
                    .div_ceil(a.align.max(1))
                    .saturating_mul(a.align.max(1))
            })
            .fold(0u64, u64::saturating_add);
        if need <= length {
            continue;
        }
        let span = model
            .regions
            .iter()
            .find_map(|r| r.place.memory().filter(|i| *i == m).map(|i| i.span()))
            .or_else(|| {
                model
                    .pools
                    .named()
                    .iter()
                    .find_map(|(_, p)| p.memory.as_ref().filter(|i| *i == m).map(|i| i.span()))
            })
            .unwrap_or_else(|| model.name.span());
        let parts = memplan_planner::listed(&mine, |a| {
            format!(
                "{} `{}` {} bytes",
                a.kind,
                a.name,
                a.bytes.div_ceil(a.align.max(1)) * a.align.max(1)
            )
        });
        diags.at(
            span,
            format!(
                "the arenas placed in memory `{m}` need {need} bytes, more than its {length} (memory.x) (over by {}): {parts}",
                need - length
            ),
        );
    }
}
