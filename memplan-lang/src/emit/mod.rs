//! Code generation: the module with its typed ids, the const tables, the static arenas and
//! the const-built `MemoryManager`.
//!
//! The result is resolved once into what is emitted (`resolve`): the plan's values, or,
//! after errors, placeholders (zero sizes) with the same items, so the rest of the crate
//! still type-checks and `take()` returns `None`. Then one path emits it, one file per
//! kind of item: `types` (a type and trait impl per region and per buffer), `tables`
//! (`REGION_INFO`, `BUFFERS`), `storage` (arenas, pools, manager, `take`), `checks` (const
//! assertions on user element types), `report` (the `REPORT` text).
//!
//! The expansion stays small: per region a type, a trait impl and a static arena; per
//! buffer a type, a trait impl and a table row. Every computation happens here (planning)
//! or in the runtime's `const fn`s (`to_usize`, the allocators).

mod checks;
mod report;
mod resolve;
mod schedule;
mod storage;
mod tables;
mod types;
mod views;

use memplan_planner::Plan;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::lower::Model;

pub(crate) use crate::tokens::prim;
pub use report::report;

/// The derives of the generated marker types, by full path (see [`crate::tokens::prim`]).
pub(crate) fn derives() -> TokenStream {
    quote!(#[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::cmp::PartialEq, ::core::cmp::Eq)])
}

/// The runtime crate inside the generated module: bound once per expansion to the path
/// `crate = PATH` gives (`::memplan_runtime` by default), so the expansion names it by one
/// identifier.
pub(crate) fn rt() -> TokenStream {
    quote!(__memplan_rt)
}

/// The runtime's private module inside the generated module, bound once per expansion
/// (see [`private_module`]).
fn private() -> TokenStream {
    quote!(__memplan_private)
}

/// The runtime's private module for generated code, named after this version (the crates
/// pin each other exactly, so the two always agree): `__private_0_1_0` for 0.1.0.
pub(crate) fn private_module() -> Ident {
    let version = env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_");
    Ident::new(&format!("__private_{version}"), Span::call_site())
}

/// The expansion of `model`: with its plan, or the fallback (`plan` is `None`) after
/// errors, which keeps the values of the regions `partial` (the plan of the buffers without
/// errors) plans in full.
pub fn emit(
    model: &Model,
    plan: Option<&Plan>,
    partial: Option<&(Plan, Vec<usize>)>,
) -> TokenStream {
    let resolved = resolve::resolve(model, plan, partial);
    let krate = &model.krate;
    let private_path = private_module();
    let (k, p) = (&rt(), &private());
    let attrs = &model.attrs;
    let inner_attrs = &model.inner_attrs;
    let vis = &model.vis;
    let name = &model.name;
    let plan_name = name.to_string();
    let n_regions = model.regions.len();
    let strategy = model.strategy.name();
    let region_items = types::regions(model, &resolved, p);
    let buffer_items = types::buffers(model, &resolved, p);
    let region_rows = tables::region_rows(model, &resolved, p);
    let buffer_rows = tables::buffer_rows(model, &resolved, p);
    let storage = storage::storage(model, &resolved, plan, p);
    let views = views::views(model, &resolved, p);
    let schedule = schedule::schedule(model, &resolved, p);
    let report = &resolved.report;
    let (u8_, usize_, str_) = (prim("u8"), prim("usize"), prim("str"));
    let derives = derives();
    let files = model.files.iter().map(|f| {
        let s = f.display().to_string();
        quote!(
            const _: &[#u8_] = ::core::include_bytes!(#s);
        )
    });
    let mod_doc =
        format!("Memory plan `{plan_name}`, planned by memplan with the `{strategy}` strategy.");
    quote! {
        #(#attrs)*
        #[doc = #mod_doc]
        // `cfg(memplan_fragment)` is set by memplan-build's linker fragment (see `storage`).
        #[allow(unexpected_cfgs)]
        #vis mod #name {
            #(#inner_attrs)*
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use #krate as #k;
            #[allow(unused_imports)]
            use #krate::#private_path as #p;

            /// The plan's marker type: allocators typed by it accept only this plan's ids.
            #derives
            pub struct Plan;
            impl #k::Plan for Plan {
                const NAME: &'static #str_ = #plan_name;
                const REGIONS: #usize_ = #n_regions;
                const REGION_INFO: &'static [#k::RegionInfo] = &[#(#region_rows),*];
            }

            /// The strategy that made this plan.
            pub const STRATEGY: &#str_ = #strategy;

            /// The plan's report: per region, capacity, planned bytes, lower bound, peak
            /// step and whether the plan is proven optimal, as a readable table.
            pub const REPORT: &#str_ = #report;

            #region_items
            #buffer_items

            /// Every planned buffer, declared or from a plan file, in declaration order:
            /// name, memory id, offset and size in bytes, first and last step (inclusive).
            pub const BUFFERS: &[#k::BufferInfo] = &[#(#buffer_rows),*];

            #(#files)*
            #storage
            #views
            #schedule
        }
    }
}
