//! Where arenas go at link time: the section names memplan gives the arenas placed with
//! `memory M`, the symbols that tie them to the generated fragment, and the fragment
//! itself: a linker-script file with one `NOLOAD` output section per placed arena in the
//! MEMORY region named, and an `ASSERT` per arena, in memplan's words, that it fits.
//!
//! The fragment is written for cortex-m-rt's `link.x`: its sections go `INSERT BEFORE
//! .bss`, because `link.x` reads the location counter right after `.data`, `.bss` and
//! `.uninit` (for the heap start and the stack end), so a section in another memory
//! inserted right after one of those would move them there. Pass it after `link.x`
//! (`-Tlink.x -Tmemplan.x`, as `memplan-build` does with rust-lld), or `INCLUDE` it at the
//! end of `memory.x` (which GNU ld needs).

use memplan_planner::Plan;

use crate::lower::{ArenaPlace, Model};

/// An identifier-safe form of a package name: characters outside `[A-Za-z0-9_]` become `_`.
fn ident_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One arena of a plan placed in a memory: a region or a pool.
pub struct PlacedArena {
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

/// The link-section name of arena `name` (`region` or `pool` `kind`) of plan `plan` in
/// package `package`: `.memplan.<package>.<plan>.<kind>.<name>`, unique in a firmware.
pub fn section_name(package: &str, plan: &str, kind: &str, name: &str) -> String {
    format!(".memplan.{}.{plan}.{kind}.{name}", ident_part(package))
}

/// The symbol the fragment defines for that arena, which generated code references on
/// bare-metal targets: linking without the fragment fails with "undefined symbol:" and
/// this name, which says what to add.
pub fn guard_symbol(package: &str, plan: &str, kind: &str, name: &str) -> String {
    format!(
        "__memplan_plan_{plan}_{kind}_{name}_in_{}_is_not_placed__add_memplan_build_linker_fragment_to_build_rs",
        ident_part(package)
    )
}

/// The arenas of `model` (planned as `plan`) placed with `memory M`, regions first.
pub fn placed_arenas(model: &Model, plan: &Plan) -> Vec<PlacedArena> {
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

/// The symbol the fragment defines for plan `plan`'s description in
/// [`crate::info::SECTION`], which generated code references on bare-metal targets.
pub fn info_symbol(package: &str, plan: &str) -> String {
    guard_symbol(package, plan, "info", "description")
}

/// The linker fragment for the plans `plans` (each a model and its plan) of package
/// `package`; `source` names where they come from, in a comment.
///
/// Besides the placed arenas, it holds the plans' descriptions (`.memplan.info`) in an
/// `INFO` output section: kept in the ELF for `memplan inspect`, not allocated, so never
/// loaded into flash or RAM.
pub fn fragment(package: &str, plans: &[(&Model, &Plan)], source: &str) -> String {
    let mut sections = String::new();
    let mut checks = String::new();
    if !plans.is_empty() {
        let info = crate::info::SECTION;
        sections.push_str(&format!(
            "  {info} (INFO) :
  {{
    KEEP(*({info}))
  }}
"
        ));
    }
    for (model, plan) in plans {
        let plan_name = model.name.to_string();
        checks.push_str(&format!(
            "{} = ADDR({});
",
            info_symbol(package, &plan_name),
            crate::info::SECTION
        ));
        for a in placed_arenas(model, plan) {
            let section = section_name(package, &plan_name, a.kind, &a.name);
            let (mem, align) = (&a.memory, a.align);
            sections.push_str(&format!(
                "  {section} (NOLOAD) : ALIGN({align})\n  {{\n    *({section})\n  }} > {mem}\n"
            ));
            let arena_bytes = a.bytes.div_ceil(align.max(1)) * align.max(1);
            checks.push_str(&format!(
                "{} = ADDR({section});\nASSERT(ADDR({section}) + SIZEOF({section}) <= ORIGIN({mem}) + LENGTH({mem}), \"memplan: {} `{}` of plan `{plan_name}` needs {arena_bytes} bytes of memory {mem} ({} planned, aligned to {align}), more than memory.x leaves it: give {mem} more bytes in memory.x, or put the {} in another memory\");\n",
                guard_symbol(package, &plan_name, a.kind, &a.name),
                a.kind,
                a.name,
                a.bytes,
                a.kind,
            ));
        }
    }
    let mut out = format!(
        "/* memplan: the linker fragment of the memory plans in {source}, generated by\n   memplan; do not edit. Each arena placed with `memory M` gets a NOLOAD output\n   section in MEMORY region M (so it takes no flash), and an ASSERT that it fits. */\n"
    );
    if !sections.is_empty() {
        out.push_str(&format!(
            "SECTIONS\n{{\n{sections}}}\nINSERT BEFORE .bss;\n{checks}"
        ));
    }
    out
}
