//! `crate = PATH;`, `strategy = ...;`, `lock = required;` and the pools (`constant`, `runtime`, `temp`).

use memplan_planner::Strategy;
use quote::quote;
use syn::spanned::Spanned;

use super::context::Lowering;
use super::model::{Pool, TempRequest};
use super::values::{Reported, check_align, object_bytes};
use crate::parse::{PoolDecl, StrategyDecl, TempRequestDecl};

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
    let bytes = match &p.size {
        Ok(size) => object_bytes(cx, size, &format!("the `{}` pool", p.which))
            .unwrap_or_else(|Reported(b)| b),
        Err(per) if k == 2 => {
            cx.model.pools.temp_per_step = Some(*per);
            0
        }
        Err(per) => {
            cx.diags.at(
                *per,
                format!(
                    "`per step` sizes the `temp` pool only (from its `temp at STEP: SIZE;` requests): give the `{}` pool a size",
                    p.which
                ),
            );
            0
        }
    };
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

/// `temp at STEPS: SIZE;`: recorded, checked against the pool by [`temp_requests`].
pub(super) fn temp_request(cx: &mut Lowering<'_>, r: TempRequestDecl) {
    let bytes = object_bytes(cx, &r.size, "a `temp at` request").unwrap_or_else(|Reported(b)| b);
    cx.model.pools.temp_requests.push(TempRequest {
        first: r.first,
        last: r.last,
        bytes,
        span: r.size.span.first,
    });
}

/// After every statement: `temp: per step;` takes the most bytes any step's requests ask
/// for (the requests that cover a step add up); a pool with a size must hold every
/// step's requests. One sweep over the requests' ends, sorted: `n log n` in requests.
pub(super) fn temp_requests(cx: &mut Lowering<'_>) {
    let pools = &cx.model.pools;
    let requests = &pools.temp_requests;
    // (step, bytes added there, bytes removed there), by step.
    let mut events: Vec<(u64, u128, u128)> = Vec::with_capacity(requests.len() * 2);
    for r in requests {
        events.push((u64::from(r.first), u128::from(r.bytes), 0));
        events.push((u64::from(r.last) + 1, 0, u128::from(r.bytes)));
    }
    // At one step, what ends before it is removed before what starts there is added.
    events.sort_unstable_by_key(|e| (e.0, e.1));
    let (mut now, mut peak, mut peak_step) = (0u128, 0u128, 0u64);
    for (step, add, remove) in events {
        now = now + add - remove.min(now + add);
        if now > peak {
            (peak, peak_step) = (now, step);
        }
    }
    let blame = || {
        requests
            .iter()
            .find(|r| u64::from(r.first) <= peak_step && peak_step <= u64::from(r.last))
            .map_or_else(proc_macro2::Span::call_site, |r| r.span)
    };
    if let Some(per) = pools.temp_per_step {
        if requests.is_empty() {
            cx.diags.at(
                per,
                "`temp: per step` needs the steps' requests: add `temp at STEP: SIZE;` for each step that allocates from the pool",
            );
            return;
        }
        match u64::try_from(peak) {
            Ok(bytes) if bytes <= super::values::MAX_OBJECT => cx.model.pools.temp.bytes = bytes,
            _ => {
                let at = blame();
                cx.diags.at(
                    at,
                    format!(
                        "step {peak_step} asks the temp pool for {peak} bytes, more than the largest object Rust allows"
                    ),
                );
            }
        }
    } else if !requests.is_empty() {
        let has = cx.seen.pools[2];
        let bytes = u128::from(pools.temp.bytes);
        if !has {
            let at = requests[0].span;
            cx.diags.at(
                at,
                "a `temp at` request without a temp pool: add `temp: per step;` to size the pool from the requests",
            );
        } else if peak > bytes {
            let at = blame();
            cx.diags.at(
                at,
                format!(
                    "step {peak_step} asks the temp pool for {peak} bytes, more than its {bytes}: make the pool larger, or write `temp: per step;` to size it from the requests"
                ),
            );
        }
    }
}
