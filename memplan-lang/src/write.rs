//! The other direction: a planning problem and its plan written out as the text of a
//! `memory_plan!` invocation, for code generators (`memplan emit`, build scripts).
//!
//! Regions and buffers get identifiers by a fixed mangling where their names are not
//! identifiers already (every character outside `[A-Za-z0-9_]` becomes `_`; a leading
//! digit or an empty name gets the prefix `b_` for buffers, `r_` for regions; a keyword
//! gets the suffix `_`), and a suffix `_2`, `_3`, ... where two would then share an
//! identifier or a generated type name; a buffer whose name changed keeps it as its doc
//! comment. A region whose capacity is [`UNBOUNDED`] is written with its planned bytes.
//!
//! The text is checked before it is returned: [`invocation`] reads it back through this
//! crate's own front end ([`crate::check`]) and plans it, and returns it only when every
//! buffer gets the region and the offset of the plan it was given.

use std::collections::HashSet;
use std::fmt::Write as _;

use memplan_planner::files::{Primitive, UNBOUNDED};
use memplan_planner::{Buffer, Placement, Plan, Problem};

use crate::{Env, check, names, source};

/// What surrounds the regions and buffers.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// The macro's path: `memplan_runtime::memory_plan` unless the crate re-exports it.
    pub macro_path: String,
    /// The module's visibility and name: `pub mod NAME`.
    pub module: String,
    /// Doc comment lines of the module (without `///`).
    pub doc: Vec<String>,
}

impl WriteOptions {
    /// `memplan_runtime::memory_plan! { pub mod MODULE { ... } }` without a doc comment.
    pub fn new(module: impl Into<String>) -> WriteOptions {
        WriteOptions {
            macro_path: "memplan_runtime::memory_plan".to_string(),
            module: module.into(),
            doc: Vec::new(),
        }
    }
}

/// Type names the generated module declares itself (besides its step views, `AtStepN`).
const RESERVED: &[&str] = &["Plan", "BUFFERS", "STRATEGY", "REPORT", "take"];

/// Identifiers for `names`, unique among themselves and, as generated type names
/// ([`names::type_name`]), among each other and `types` (which they are added to).
fn identifiers<'a>(
    names_in: impl Iterator<Item = &'a str>,
    prefix: &str,
    types: &mut HashSet<String>,
) -> Vec<String> {
    let mut idents = HashSet::new();
    let mut out = Vec::new();
    for name in names_in {
        let mut base = mangle(name, prefix);
        if is_view(&names::type_name(&base, 'B')) {
            base.insert_str(0, prefix);
        }
        let mut candidate = base.clone();
        let mut k = 2;
        loop {
            let tname = names::type_name(&candidate, 'B');
            if !idents.contains(&candidate)
                && !types.contains(&tname)
                && !RESERVED.contains(&tname.as_str())
            {
                types.insert(tname);
                break;
            }
            candidate = format!("{base}_{k}");
            k += 1;
        }
        idents.insert(candidate.clone());
        out.push(candidate);
    }
    out
}

/// Whether `tname` is the name of a generated step view, `AtStep` and digits.
fn is_view(tname: &str) -> bool {
    tname
        .strip_prefix("AtStep")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `name` as an identifier: see the module docs.
fn mangle(name: &str, prefix: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, prefix);
    }
    if syn::parse_str::<syn::Ident>(&out).is_err() {
        out.push('_');
    }
    out
}

/// The text of a `memory_plan!` invocation of `problem`, with `plan`'s strategy, that
/// plans to `plan`'s offsets.
///
/// # Errors
///
/// The module name is not an identifier; a region plans more than `isize::MAX` bytes of
/// a 64-bit target; or the text, read back through the front end, has an error or plans
/// to other offsets than `plan` (a bug: the message says which buffer). `plan` must be a
/// plan of `problem`.
pub fn invocation(
    problem: &Problem,
    plan: &Plan,
    options: &WriteOptions,
) -> Result<String, String> {
    invocation_typed(problem, plan, &[], options)
}

/// [`invocation`], with buffer `i` written as `[T; N]` where `elements[i]` is `Some(T)`
/// (its element type, as a plan file's `dtype` names it), so that its views are views of
/// `T`: where `T`'s size divides its bytes and is at most the alignment it is planned
/// with (its own `align`, else its region's, the smallest region's when it is spilled),
/// so that the element type's alignment floor moves no offset. Any other buffer, and
/// every buffer past the end of `elements`, is written as bytes.
///
/// # Errors
///
/// As [`invocation`].
pub fn invocation_typed(
    problem: &Problem,
    plan: &Plan,
    elements: &[Option<Primitive>],
    options: &WriteOptions,
) -> Result<String, String> {
    if syn::parse_str::<syn::Ident>(&options.module).is_err() {
        return Err(format!(
            "`{}` is not a Rust identifier: the module needs one",
            options.module
        ));
    }
    // The front end's rule for what can be emitted: no arena above Rust's largest object.
    for (region, rp) in problem.regions.iter().zip(&plan.regions) {
        if rp.planned_bytes > i64::MAX as u64 {
            return Err(format!(
                "region `{}` plans {} bytes, more than the largest object Rust allows ({} bytes, `isize::MAX`): no memory_plan! can hold it",
                region.name,
                rp.planned_bytes,
                i64::MAX
            ));
        }
    }
    let text = write(problem, plan, elements, options);
    verify(&text, plan)?;
    Ok(text)
}

/// `b`'s element type, as it is written: `Some` where [`invocation_typed`] types it.
fn typed(problem: &Problem, b: &Buffer, element: Option<Primitive>) -> Option<Primitive> {
    let e = element?;
    let region_align = match b.placement {
        Placement::In(r) => problem.regions.get(r).map(|r| r.align),
        Placement::Anywhere => problem.regions.iter().map(|r| r.align).min(),
    }?;
    let planned_with = b.align.unwrap_or(region_align).max(b.min_align);
    (b.size.is_multiple_of(e.size()) && e.size() <= planned_with).then_some(e)
}

fn write(
    problem: &Problem,
    plan: &Plan,
    elements: &[Option<Primitive>],
    options: &WriteOptions,
) -> String {
    let mut types = HashSet::new();
    let regions = identifiers(
        problem.regions.iter().map(|r| r.name.as_str()),
        "r_",
        &mut types,
    );
    let buffers = identifiers(
        problem.buffers.iter().map(|b| b.name.as_str()),
        "b_",
        &mut types,
    );
    let mut s = format!("{}! {{\n", options.macro_path);
    for line in &options.doc {
        let _ = writeln!(s, "    /// {line}");
    }
    let _ = writeln!(s, "    pub mod {} {{", options.module);
    let _ = writeln!(s, "        strategy = {};", plan.strategy);
    for (r, region) in problem.regions.iter().enumerate() {
        let capacity = if region.capacity >= UNBOUNDED {
            plan.regions.get(r).map_or(0, |p| p.planned_bytes)
        } else {
            region.capacity
        };
        let _ = writeln!(
            s,
            "        region {}: {capacity} bytes, align {};",
            regions[r], region.align
        );
    }
    if !problem.buffers.is_empty() {
        s.push('\n');
    }
    for (i, b) in problem.buffers.iter().enumerate() {
        if buffers[i] != b.name {
            let _ = writeln!(s, "        /// `{}`", b.name.escape_default());
        }
        match typed(problem, b, elements.get(i).copied().flatten()) {
            Some(e) => {
                let _ = write!(
                    s,
                    "        buffer {}: [{}; {}]",
                    buffers[i],
                    e.rust_name(),
                    b.size / e.size()
                );
            }
            None => {
                let _ = write!(s, "        buffer {}: {} bytes", buffers[i], b.size);
            }
        }
        match (b.in_place_of, b.placement) {
            (Some(src), _) => {
                let _ = write!(s, " in place of {}", buffers[src]);
            }
            (None, Placement::In(r)) => {
                let _ = write!(s, " in {}", regions[r]);
            }
            (None, Placement::Anywhere) => {}
        }
        let _ = write!(s, ", live {}..={}", b.lifetime.first, b.lifetime.last);
        if let Some(a) = b.align {
            let _ = write!(s, ", align {a}");
        }
        if let Some(at) = b.pin {
            let _ = write!(s, ", at {at}");
        }
        s.push_str(";\n");
    }
    s.push_str("    }\n}\n");
    s
}

/// Reads `text` back through the front end and compares its plan with `plan`.
fn verify(text: &str, plan: &Plan) -> Result<(), String> {
    let invocations = source::invocations(text)?;
    let Some(first) = invocations.into_iter().next() else {
        return Err("internal error: the written text has no memory_plan! invocation".into());
    };
    let checked = check(first.tokens, &Env::default());
    if let Some(d) = checked.diagnostics.iter().next() {
        return Err(format!(
            "internal error: the written invocation does not check: {}",
            d.message
        ));
    }
    let Some(got) = checked.plan else {
        return Err("internal error: the written invocation has no plan".into());
    };
    if got.buffers.len() != plan.buffers.len() {
        return Err("internal error: the written invocation has other buffers".into());
    }
    for (i, (a, b)) in got.buffers.iter().zip(&plan.buffers).enumerate() {
        if a != b {
            return Err(format!(
                "internal error: the written invocation plans buffer {i} at offset {} of region {}, not {} of region {}",
                a.offset, a.region, b.offset, b.region
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use memplan_planner::{Region, Strategy};

    #[test]
    fn names_become_distinct_identifiers_and_type_names() {
        let mut types = HashSet::new();
        let got = identifiers(
            ["a.b", "a_b", "a__b", "0in", "type", "plan", "at_step_3", ""].into_iter(),
            "b_",
            &mut types,
        );
        assert_eq!(
            got,
            [
                "a_b",
                "a_b_2",
                "a__b_3",
                "b_0in",
                "type_",
                "plan_2",
                "b_at_step_3",
                "b_"
            ]
        );
    }

    #[test]
    fn writes_an_invocation_that_plans_to_the_same_offsets() {
        let problem = Problem {
            regions: vec![Region {
                name: "arena".into(),
                capacity: UNBOUNDED,
                align: 16,
            }],
            buffers: vec![
                Buffer::new("x.in", 100, 0, 0, 1),
                Buffer::new("y", 0, 0, 1, 2),
                Buffer::new("z", 40, 0, 1, 2).with_align(64),
            ],
        };
        // best_of's `last` ordering puts `z` first: `z` at 0, `x` at 48 (40 rounded up to
        // 16), 148 bytes; greedy's size order would put `x` first and `z` at 128 (168).
        let plan = memplan_planner::plan(&problem, Strategy::BestOf).unwrap();
        assert_eq!(plan.buffers[0].offset, 48);
        let text = invocation(&problem, &plan, &WriteOptions::new("m")).unwrap();
        assert_eq!(
            text,
            "memplan_runtime::memory_plan! {\n    pub mod m {\n        strategy = best_of;\n        region arena: 148 bytes, align 16;\n\n        /// `x.in`\n        buffer x_in: 100 bytes in arena, live 0..=1;\n        buffer y: 0 bytes in arena, live 1..=2;\n        buffer z: 40 bytes in arena, live 1..=2, align 64;\n    }\n}\n"
        );
        assert!(invocation(&problem, &plan, &WriteOptions::new("9m")).is_err());
    }
}
