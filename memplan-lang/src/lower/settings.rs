//! `crate = PATH;`, `strategy = ...;`, `lock = required;` and the pools (`constant`, `runtime`, `temp`).

use memplan_planner::Strategy;
use quote::quote;
use syn::spanned::Spanned;

use super::context::Lowering;
use super::model::Pool;
use super::values::{check_align, object_bytes};
use crate::parse::{PoolDecl, StrategyDecl};

pub(super) fn krate(cx: &mut Lowering<'_>, path: syn::Path) {
    if cx.seen.krate {
        cx.diags.at(path.span(), "`crate = ...` is given twice");
    }
    cx.seen.krate = true;
    cx.model.krate = quote!(#path);
}

pub(super) fn strategy(cx: &mut Lowering<'_>, s: StrategyDecl) {
    if cx.seen.strategy {
        cx.diags.at(s.name.span(), "`strategy` is given twice");
    }
    cx.seen.strategy = true;
    match Strategy::from_parts(&s.name.to_string(), s.nodes.map(|n| n.0)) {
        Ok(st) => cx.model.strategy = st,
        Err(e) => cx.diags.at(s.name.span(), e),
    }
}

pub(super) fn lock(cx: &mut Lowering<'_>, word: syn::Ident) {
    if cx.seen.lock {
        cx.diags.at(word.span(), "`lock` is given twice");
    }
    cx.seen.lock = true;
    if word == "required" {
        cx.model.lock_required = Some(word.span());
    } else {
        cx.diags.at(
            word.span(),
            format!("unknown lock setting `{word}`: expected `lock = required`"),
        );
    }
}

pub(super) fn pool(cx: &mut Lowering<'_>, p: PoolDecl) {
    let k = match p.which.to_string().as_str() {
        "constant" => 0,
        "runtime" => 1,
        _ => 2,
    };
    if cx.seen.pools[k] {
        cx.diags
            .at(p.which.span(), format!("`{}` is given twice", p.which));
    }
    cx.seen.pools[k] = true;
    let bytes = object_bytes(cx, &p.size, &format!("the `{}` pool", p.which));
    let align = match p.align {
        Some((a, span)) => check_align(cx, a, span).unwrap_or(Pool::default().align),
        None => Pool::default().align,
    };
    let pool = Pool {
        bytes,
        align,
        memory: p.memory,
    };
    let pools = &mut cx.model.pools;
    match k {
        0 => pools.constant = pool,
        1 => pools.runtime = pool,
        _ => pools.temp = pool,
    }
}
