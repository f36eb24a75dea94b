//! Lowering: from the syntax tree to a [`Model`] (one record per region and per buffer)
//! that holds the planning problem, checking every rule that needs no plan (names, sizes,
//! alignments, lifetimes, plan files). All errors are collected.
//!
//! The steps run in one direction, each a file:
//!
//! 1. `regions`: every region first, since buffers may name a region declared after them;
//! 2. the statements in order: `settings` (`crate`, `strategy`, `lock`, the pools), `buffers`
//!    (`buffer` statements), `files` (`buffers ... from` plan files);
//! 3. the passes over the whole model (`passes`): `pad`, resolving `in place of`, leaving
//!    out what depends on an error, element types hidden by generated names, sizes along
//!    in-place chains, and at least one region; each says which passes it needs before it.
//!
//! Each buffer's [`Standing`](model::Standing) (planned, and whether its type is emitted)
//! is set by its statement; a pass can only leave a planned buffer out, once, with the
//! cause. Leaving out what depends on an error runs after every pass that leaves a buffer
//! out, so that it sees them all.

pub(crate) mod banks;
mod buffers;
mod context;
mod files;
mod model;
mod passes;
mod regions;
pub mod schedule;
mod settings;
mod values;

use std::collections::HashMap;

use memplan_planner::Strategy;
use quote::quote;

pub use context::Env;
pub use model::{ArenaPlace, BufferRecord, ElemInfo, Model, Pool, Pools, SourceFile};

use context::{Lowering, Seen};

use crate::diag::Diagnostics;
use crate::parse::{Input, Stmt};

/// Lowers `input`; records every error in `diags`. The model is returned even with
/// errors, so that the fallback expansion can still declare the types.
pub fn lower(input: Input, env: &Env, diags: &mut Diagnostics) -> Model {
    let Input {
        attrs,
        inner_attrs,
        vis,
        name,
        stmts,
    } = input;
    let path = env
        .modules
        .iter()
        .cloned()
        .chain([crate::source::unraw(&name.to_string())])
        .collect();
    let mut cx = Lowering {
        env,
        diags,
        model: Model {
            attrs,
            inner_attrs,
            vis,
            name,
            krate: quote!(::memplan_runtime),
            package: env.package.clone().unwrap_or_else(|| "crate".to_string()),
            path,
            canary: env.canary,
            strategy: Strategy::default(),
            regions: Vec::new(),
            pools: Pools::default(),
            buffers: Vec::new(),
            files: Vec::new(),
            sources: Vec::new(),
            schedule: None,
            schedule_ir: None,
            memory_x: None,
            lock_required: None,
            lock_note: None,
        },
        region_by_name: HashMap::new(),
        buffer_by_name: HashMap::new(),
        type_names: HashMap::new(),
        seen: Seen::default(),
        hints_left: crate::similar::HINTS,
    };
    regions::declare_all(&mut cx, &stmts);
    for stmt in stmts {
        match stmt {
            Stmt::Region(_) | Stmt::Broken { region: true, .. } => {}
            Stmt::Broken {
                region: false,
                name,
                placed_in,
                size,
                live,
            } => buffers::declare_broken(&mut cx, name, placed_in, size, live),
            Stmt::Crate(path) => settings::krate(&mut cx, path),
            Stmt::Strategy(s) => settings::strategy(&mut cx, s),
            Stmt::Pool(p) => settings::pool(&mut cx, p),
            Stmt::Lock(word) => settings::lock(&mut cx, word),
            Stmt::TempRequest(r) => settings::temp_request(&mut cx, r),
            Stmt::Buffer(b) => buffers::declare(&mut cx, b),
            Stmt::Buffers(f) => files::declare(&mut cx, f, false),
            Stmt::Model(f) => files::declare(&mut cx, f, true),
        }
    }
    settings::temp_requests(&mut cx);
    passes::pad(&mut cx);
    passes::resolve_in_place(&mut cx);
    passes::exclude_consequences(&mut cx.model);
    passes::check_element_names(&mut cx);
    passes::inherit_sizes(&mut cx.model);
    passes::require_a_region(&mut cx);
    banks::check(&mut cx);
    schedule::lower(&mut cx);
    if let Some(s) = env.strategy {
        cx.model.strategy = s;
    }
    cx.model
}

#[cfg(test)]
mod tests {
    use super::model::{Cause, Standing};

    /// Each buffer's name and standing after lowering and planning `src`.
    fn standings(src: &str) -> Vec<(String, Standing)> {
        let checked = crate::check(src.parse().unwrap(), &crate::Env::default());
        let model = checked.model.expect("the module header reads");
        model
            .buffers
            .iter()
            .map(|b| (b.buffer.name.clone(), b.standing))
            .collect()
    }

    #[test]
    fn each_buffer_stands_for_the_first_cause_found() {
        let got = standings(
            "mod m {
                region r: 64 bytes;
                buffer a: 8 bytes in nowhere, live 0..=1;
                buffer b: in place of a, live 1..=2;
                buffer c: in place of b, live 2..=3;
                buffer d: in place of zz, live 0..=0;
                buffer e: 8 bytes in r, live 0..=0;
                buffer e: 8 bytes in r, live 1..=1;
                buffer f: 8 bytes in r, live 0..=0, bogus 3;
            }",
        );
        let name = |n: &str| n.to_string();
        assert_eq!(
            got,
            [
                (name("a"), Standing::Excluded(Cause::Statement)),
                (name("b"), Standing::Excluded(Cause::Source)),
                (name("c"), Standing::Excluded(Cause::Source)),
                (name("d"), Standing::Excluded(Cause::InPlaceOf)),
                (name("e"), Standing::Planned),
                (name("e"), Standing::NameTaken),
                (name("f"), Standing::Broken),
            ]
        );
    }

    #[test]
    fn a_broken_region_leaves_out_its_buffers_and_those_without_a_region() {
        let got = standings(
            "mod m {
                region r: 64 bytes;
                region s: 64 bytes, bogus;
                buffer a: 8 bytes in r, live 0..=0;
                buffer b: 8 bytes in s, live 0..=0;
                buffer c: 8 bytes, live 0..=0;
            }",
        );
        let name = |n: &str| n.to_string();
        assert_eq!(
            got,
            [
                (name("a"), Standing::Planned),
                (name("b"), Standing::Excluded(Cause::BrokenRegion)),
                (name("c"), Standing::Excluded(Cause::BrokenRegion)),
            ]
        );
    }

    /// The standings of the buffers of `src`, which reads `rows.csv` holding `rows`, the
    /// number of buffers in its planning problem, and its diagnostics' messages.
    fn with_rows(tag: &str, rows: &str, src: &str) -> (Vec<Standing>, usize, Vec<String>) {
        let dir = std::env::temp_dir().join(format!("memplan-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("rows.csv"),
            format!("name,mem_id,offset,size,first,last\n{rows}"),
        )
        .unwrap();
        let env = crate::Env {
            base_dir: Some(dir.clone()),
            ..crate::Env::default()
        };
        let checked = crate::check(src.parse().unwrap(), &env);
        let model = checked.model.as_ref().expect("the module header reads");
        let standings = model.buffers.iter().map(|b| b.standing).collect();
        let planned = model.problem().0.buffers.len();
        let messages = checked
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        (standings, planned, messages)
    }

    #[test]
    fn a_row_whose_name_another_row_has_is_planned_without_a_type() {
        let (got, planned, messages) = with_rows(
            "standing",
            "conv.out,0,0,64,0,1\nconv_out,0,64,64,1,2\n",
            r#"mod m { region r: 1 KiB; buffers in r from "rows.csv"; }"#,
        );
        assert_eq!(got, [Standing::Planned, Standing::RowNameTaken]);
        // Both rows are in the problem; the error is the name's alone.
        assert_eq!(planned, 2);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].contains("both get the Rust name `ConvOut`"),
            "{messages:?}"
        );
    }

    #[test]
    fn rows_of_an_unknown_region_are_left_out_of_the_plan() {
        // Two rows of 64 bytes live together: placed anywhere, they would overflow `r`.
        let (got, planned, messages) = with_rows(
            "unknown",
            "x,0,0,64,0,1\ny,0,64,64,1,2\n",
            r#"mod m { region r: 96 bytes; buffers in sarm from "rows.csv"; }"#,
        );
        let left_out = Standing::Excluded(Cause::Statement);
        assert_eq!(got, [left_out, left_out]);
        assert_eq!(planned, 0);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("unknown region `sarm`"),
            "{messages:?}"
        );
    }

    #[test]
    fn rows_each_larger_than_their_region_are_one_error() {
        // Three rows over the 32 bytes of `r`, one that fits.
        let (_, _, messages) = with_rows(
            "large",
            "a,0,0,48,0,0\nb,0,0,16,1,1\nc,0,0,64,2,2\nd,0,0,48,3,3\n",
            r#"mod m { region r: 32 bytes; buffers in r from "rows.csv"; }"#,
        );
        assert_eq!(
            messages,
            [
                "3 buffers are each larger than region `r` (32 bytes): `c` (rows.csv:4) needs 64 bytes (over by 32), `a` (rows.csv:2) needs 48 bytes (over by 16), `d` (rows.csv:5) needs 48 bytes (over by 16)"
            ]
        );
    }
}
