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
//!    in-place chains, and at least one region.

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
        hints_left: values::HINTS,
    };
    regions::declare_all(&mut cx, &stmts);
    for stmt in stmts {
        match stmt {
            Stmt::Region(_) | Stmt::Broken { region: true, .. } => {}
            Stmt::Broken {
                region: false,
                name,
                placed_in,
            } => buffers::declare_broken(&mut cx, name, placed_in),
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
