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

use std::path::PathBuf;

use memplan_planner::Plan;

use crate::lower::{ArenaPlace, Model};
use crate::{names, source};

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

/// Where a plan is, for its link-section and symbol names: its package and module path
/// (its own module last), each part in ASCII (`[A-Za-z0-9_]`, a non-ASCII character as
/// `_u{hex}_`, a raw identifier without its `r#`), so that the names are valid on every
/// target (an `extern` block takes no non-ASCII name on bare metal) and two plans of one
/// name in two modules never share a section.
pub struct PlanKey {
    package: String,
    path: Vec<String>,
    /// The module path as written, for messages.
    shown: String,
}

impl PlanKey {
    /// The key of `model`.
    pub(crate) fn of(model: &Model) -> PlanKey {
        PlanKey::new(&model.package, &model.path)
    }

    /// The key of a plan at module `path` (its own module last) in package `package`.
    pub fn new(package: &str, path: &[String]) -> PlanKey {
        PlanKey {
            package: ident_part(package),
            path: path
                .iter()
                .map(|p| names::ascii(&source::unraw(p)))
                .collect(),
            shown: path
                .iter()
                .map(|p| source::unraw(p))
                .collect::<Vec<_>>()
                .join("::"),
        }
    }

    /// The module path as written, `::`-separated, for messages: `a::kws`.
    pub fn display(&self) -> &str {
        &self.shown
    }
}

/// The link-section name of arena `name` (`region` or `pool` `kind`) of the plan `key`:
/// `.memplan.<package>.<module path, dot-separated>.<kind>.<name>`, unique in a firmware.
pub fn section_name(key: &PlanKey, kind: &str, name: &str) -> String {
    format!(
        ".memplan.{}.{}.{kind}.{}",
        key.package,
        key.path.join("."),
        names::ascii(name)
    )
}

/// The symbol the fragment defines for that arena, which generated code references on
/// bare-metal targets: linking without the fragment fails with "undefined symbol:" and
/// this name, which says what to add. Module path parts are joined by `__`.
pub(crate) fn guard_symbol(key: &PlanKey, kind: &str, name: &str) -> String {
    format!(
        "__memplan_plan_{}_{kind}_{}_in_{}_is_not_placed__add_memplan_build_linker_fragment_to_build_rs",
        key.path.join("__"),
        names::ascii(name),
        key.package
    )
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

/// The symbol the fragment defines for the description of plan `key` in
/// [`crate::info::SECTION`], which generated code references on bare-metal targets.
pub(crate) fn info_symbol(key: &PlanKey) -> String {
    guard_symbol(key, "info", "description")
}

/// The linker fragment for the plans `plans` (each a model and its plan) of package
/// `package`; `source` names where they come from, in a comment.
///
/// Besides the placed arenas, it holds the plans' descriptions (`.memplan.info`) in an
/// `INFO` output section: kept in the ELF for `memplan inspect`, not allocated, so never
/// loaded into flash or RAM.
pub(crate) fn fragment(package: &str, plans: &[(&Model, &Plan)], source: &str) -> String {
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
        let key = PlanKey::new(package, &model.path);
        let plan_name = key.display().to_string();
        checks.push_str(&format!(
            "{} = ADDR({});
",
            info_symbol(&key),
            crate::info::SECTION
        ));
        for a in placed_arenas(model, plan) {
            let section = section_name(&key, a.kind, &a.name);
            let (mem, align) = (&a.memory, a.align);
            sections.push_str(&format!(
                "  {section} (NOLOAD) : ALIGN({align})\n  {{\n    *({section})\n  }} > {mem}\n"
            ));
            let arena_bytes = a.bytes.div_ceil(align.max(1)) * align.max(1);
            checks.push_str(&format!(
                "{} = ADDR({section});\nASSERT(ADDR({section}) + SIZEOF({section}) <= ORIGIN({mem}) + LENGTH({mem}), \"memplan: {} `{}` of plan `{plan_name}` needs {arena_bytes} bytes of memory {mem} ({} planned, aligned to {align}), more than memory.x leaves it: give {mem} more bytes in memory.x, or put the {} in another memory\");\n",
                guard_symbol(&key, a.kind, &a.name),
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

/// The fragment of every `memory_plan!` invocation in Rust source files, and every file it
/// read to write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFragment {
    /// The fragment's text: a `NOLOAD` output section per placed arena and an `ASSERT` that
    /// it fits, and the plans' descriptions in an `INFO` section.
    pub text: String,
    /// The source files and the plan files their invocations read, in the order read.
    pub read: Vec<PathBuf>,
    /// The invocations found.
    pub invocations: usize,
    /// Those planned without errors: the ones in the fragment.
    pub planned: usize,
    /// The invocations with errors, left out of the fragment: each one's file, its name
    /// (its module path, or `None` when its header does not read), how many errors it has
    /// and the first one's message.
    pub skipped: Vec<Skipped>,
    /// The files of `files` that hold no invocation.
    pub empty: Vec<PathBuf>,
}

/// An invocation left out of a fragment for its errors ([`FileFragment::skipped`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The source file it is in.
    pub file: PathBuf,
    /// Its module path (`firmware::digits`), when its header reads.
    pub name: Option<String>,
    /// Its errors.
    pub errors: usize,
    /// The first error's message.
    pub first: String,
}

impl std::fmt::Display for Skipped {
    /// `the memory_plan! invocation `digits` in src/main.rs is left out of the linker
    /// fragment: 2 errors (the first: ...); the crate's build reports them`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self
            .name
            .as_deref()
            .map_or(String::new(), |n| format!(" `{n}`"));
        write!(
            f,
            "the memory_plan! invocation{name} in {} is left out of the linker fragment: {} error{} (the first: {}); the crate's build reports them",
            self.file.display(),
            self.errors,
            if self.errors == 1 { "" } else { "s" },
            self.first.lines().next().unwrap_or("")
        )
    }
}

/// The fragment of every `memory_plan!` invocation in `files`: each `(path, label)` is read
/// from `path` and named `label` in the fragment's comment, and checked by
/// [`crate::driver::check_file`] with `options` (plan files found as the macro finds them,
/// next to the source or in `options.out_dir`; module paths from `options.root`);
/// `package` is the package the sources belong to (`CARGO_PKG_NAME`), part of every
/// section name. An invocation with
/// errors is left out: the macro reports them, with spans, when the crate is compiled.
/// This is what `memplan-build` writes and `memplan linker` prints.
///
/// # Errors
///
/// The file and why, when a source cannot be read or is not Rust tokens.
pub fn fragment_of_files(
    package: &str,
    files: &[(PathBuf, String)],
    options: &crate::driver::Options,
) -> Result<FileFragment, (PathBuf, String)> {
    let options = crate::driver::Options {
        package: Some(package.to_string()),
        ..options.clone()
    };
    let mut planned = Vec::new();
    let mut read = Vec::new();
    let mut empty = Vec::new();
    let mut skipped = Vec::new();
    let mut found = 0;
    for (file, _) in files {
        let checked = crate::driver::check_file(file, &options).map_err(|e| (file.clone(), e))?;
        read.extend(checked.read);
        if checked.invocations.is_empty() {
            empty.push(file.clone());
        }
        found += checked.invocations.len();
        for c in &checked.invocations {
            if let Some(first) = c.diagnostics().iter().next() {
                skipped.push(Skipped {
                    file: file.clone(),
                    name: c.lock_key().or_else(|| c.name()),
                    errors: c.diagnostics().len(),
                    first: first.message.clone(),
                });
            }
        }
        planned.extend(checked.invocations);
    }
    let plans: Vec<_> = planned.iter().filter_map(crate::Checked::planned).collect();
    let labels: Vec<&str> = files.iter().map(|(_, l)| l.as_str()).collect();
    Ok(FileFragment {
        text: fragment(package, &plans, &labels.join(", ")),
        read,
        invocations: found,
        planned: plans.len(),
        skipped,
        empty,
    })
}
