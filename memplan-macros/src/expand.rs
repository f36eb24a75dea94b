//! Code generation: the module with its typed ids, the const table of buffers, the static
//! arenas and the const-built `MemoryManager`.
//!
//! The expansion stays small: per region a type, a trait impl and a static arena; per
//! buffer a type, a trait impl and a table row. Every computation happens in the macro
//! (planning) or in the runtime's `const fn`s (`to_usize`, the allocators).

use memplan_planner::Plan;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::check::{ElemInfo, Model};

/// The full expansion of a plan that succeeded.
pub fn expand(model: &Model, plan: &Plan) -> TokenStream {
    module(model, Some(plan))
}

/// The expansion when there were errors: the same types (so the rest of the crate still
/// type-checks) with zero sizes, and a `take()` that always returns `None`.
pub fn fallback(model: &Model) -> TokenStream {
    module(model, None)
}

fn module(model: &Model, plan: Option<&Plan>) -> TokenStream {
    let k = &model.krate;
    let p = quote!(#k::__private);
    let attrs = &model.attrs;
    let inner_attrs = &model.inner_attrs;
    let vis = &model.vis;
    let name = &model.name;
    let plan_name = name.to_string();
    let n_regions = model.regions.len();
    let strategy = model.strategy.name();

    let region_items = model.regions.iter().enumerate().map(|(r, info)| {
        let ty = &info.type_ident;
        let rattrs = &info.attrs;
        let region = &model.problem.regions[r];
        let rname = &region.name;
        let capacity = region.capacity;
        let id = r as u32;
        let (size, align, lb, peak, optimal) = match plan {
            Some(pl) => {
                let rp = &pl.regions[r];
                (
                    rp.planned_bytes,
                    rp.align,
                    rp.lower_bound,
                    rp.peak_step,
                    rp.proven_optimal,
                )
            }
            None => (0, region.align, 0, None, false),
        };
        let kind = &info.kind;
        let peak_tokens = match peak {
            Some(s) => quote!(::core::option::Option::Some(#s)),
            None => quote!(::core::option::Option::None),
        };
        let doc = format!(
            "Region `{rname}`: memory id {id}, capacity {capacity} bytes, planned {size} bytes \
             (lower bound {lb}), arena alignment {align} bytes."
        );
        quote! {
            #(#rattrs)*
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub struct #ty;
            impl #k::MemoryId for #ty {
                type Plan = Plan;
                const ID: u32 = #id;
                const NAME: &'static str = #rname;
                const SIZE: usize = #p::to_usize(#size);
                const CAPACITY: usize = #p::to_usize(#capacity);
                const ALIGN: usize = #p::to_usize(#align);
                const KIND: #k::RegionKind = #k::RegionKind::#kind;
            }
            impl #ty {
                /// The most bytes live at one step in this region, in bytes: no plan can use fewer.
                pub const LOWER_BOUND: usize = #p::to_usize(#lb);
                /// The step at which `LOWER_BOUND` bytes are live (`None` when none are).
                pub const PEAK_STEP: ::core::option::Option<u32> = #peak_tokens;
                /// Whether the planned bytes are proven the fewest possible.
                pub const PROVEN_OPTIMAL: bool = #optimal;
            }
        }
    });

    let buffer_items = model.buffers.iter().enumerate().filter(|(_, info)| info.emit).map(|(i, info)| {
        let ty = &info.type_ident;
        let battrs = &info.attrs;
        let b = &model.problem.buffers[i];
        let bname = &b.name;
        let (region, offset, align) = match plan {
            Some(pl) => {
                let pb = pl.buffers[i];
                (pb.region, pb.offset, model.problem.effective_align(b, pb.region))
            }
            None => (0, 0, 1),
        };
        let region_ty = match model.regions.get(region) {
            Some(r) => {
                let t = &r.type_ident;
                quote!(#t)
            }
            None => quote!(__MemplanNoRegion),
        };
        let size = if plan.is_some() { b.size } else { 0 };
        let (first, last) = (b.lifetime.first, b.lifetime.last);
        let elem = match &info.elem {
            ElemInfo::Bytes => quote!(u8),
            ElemInfo::Prim(t) => quote!(#t),
            ElemInfo::User { ty, .. } => quote!(#ty),
        };
        let doc = match plan {
            Some(_) => format!(
                "Buffer `{bname}`: {size} bytes at offset {offset} of region `{}`, live steps {first}..={last}.",
                model.problem.regions[region].name
            ),
            None => format!("Buffer `{bname}` (the plan has errors)."),
        };
        let checks = if plan.is_some() { elem_checks(model, i) } else { TokenStream::new() };
        quote! {
            #(#battrs)*
            #[doc = #doc]
            pub struct #ty;
            impl #k::PlannedBuffer for #ty {
                type Region = #region_ty;
                type Elem = #elem;
                const NAME: &'static str = #bname;
                const OFFSET: usize = #p::to_usize(#offset);
                const SIZE: usize = #p::to_usize(#size);
                const ALIGN: usize = #p::to_usize(#align);
                const FIRST: u32 = #first;
                const LAST: u32 = #last;
            }
            #checks
        }
    });

    let region_rows = model.regions.iter().enumerate().map(|(r, info)| {
        let region = &model.problem.regions[r];
        let rname = &region.name;
        let id = r as u32;
        let capacity = region.capacity;
        let (size, align) = match plan {
            Some(pl) => (pl.regions[r].planned_bytes, pl.regions[r].align),
            None => (0, region.align),
        };
        let kind = &info.kind;
        quote!(#k::RegionInfo::new(#rname, #id, #p::to_usize(#size), #p::to_usize(#capacity), #p::to_usize(#align), #k::RegionKind::#kind))
    });

    let rows = match plan {
        Some(pl) => model
            .problem
            .buffers
            .iter()
            .zip(&pl.buffers)
            .map(|(b, pb)| {
                let (n, id, off, size, first, last) =
                    (&b.name, pb.region as u32, pb.offset, b.size, b.lifetime.first, b.lifetime.last);
                quote!(#k::BufferInfo::new(#n, #id, #p::to_usize(#off), #p::to_usize(#size), #first, #last))
            })
            .collect::<Vec<_>>(),
        None => Vec::new(),
    };

    let files = model.files.iter().map(|f| {
        let s = f.display().to_string();
        quote!(
            const _: &[u8] = ::core::include_bytes!(#s);
        )
    });

    let storage = match plan {
        Some(pl) => storage(model, pl),
        None => quote! {
            /// Hands out the plan's `MemoryManager`. The plan has errors, so this always
            /// returns `None`.
            pub fn take() -> ::core::option::Option<&'static mut #k::MemoryManager<'static, Plan>> {
                ::core::option::Option::None
            }
        },
    };
    let no_region = if model.regions.is_empty() || plan.is_none() {
        quote! {
            #[doc(hidden)]
            pub struct __MemplanNoRegion;
            impl #k::MemoryId for __MemplanNoRegion {
                type Plan = Plan;
                const ID: u32 = 0;
                const NAME: &'static str = "";
                const SIZE: usize = 0;
                const CAPACITY: usize = 0;
                const ALIGN: usize = 1;
            }
        }
    } else {
        TokenStream::new()
    };
    let report = report(model, plan);
    let mod_doc =
        format!("Memory plan `{plan_name}`, planned by memplan with the `{strategy}` strategy.");

    quote! {
        #(#attrs)*
        #[doc = #mod_doc]
        #vis mod #name {
            #(#inner_attrs)*
            #[allow(unused_imports)]
            use super::*;

            /// The plan's marker type: allocators typed by it accept only this plan's ids.
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub struct Plan;
            impl #k::Plan for Plan {
                const NAME: &'static str = #plan_name;
                const REGIONS: usize = #n_regions;
                const REGION_INFO: &'static [#k::RegionInfo] = &[#(#region_rows),*];
            }

            /// The strategy that made this plan.
            pub const STRATEGY: &str = #strategy;

            /// The plan's report: per region, capacity, planned bytes, lower bound, peak
            /// step and whether the plan is proven optimal, as a readable table.
            pub const REPORT: &str = #report;

            #(#region_items)*
            #no_region
            #(#buffer_items)*

            /// Every planned buffer, declared or from a plan file, in declaration order:
            /// name, memory id, offset and size in bytes, first and last step (inclusive).
            pub const BUFFERS: &[#k::BufferInfo] = &[#(#rows),*];

            #(#files)*
            #storage
        }
    }
}

/// Static arenas, the pools and the manager, for a successful plan.
fn storage(model: &Model, plan: &Plan) -> TokenStream {
    let k = &model.krate;
    let p = quote!(#k::__private);
    let mut arenas = Vec::new();
    let mut spans = Vec::new();
    for (r, info) in model.regions.iter().enumerate() {
        let ident = format_ident!("__MEMPLAN_ARENA_{}", r);
        let size = plan.regions[r].planned_bytes;
        let align = plan.regions[r].align as usize;
        let section = info
            .section
            .as_ref()
            .map(|s| quote!(#[unsafe(link_section = #s)]));
        arenas.push(quote! {
            #section
            static #ident: #p::Arena<{ #p::to_usize(#size) }, #p::Align<#align>> = #p::Arena::new();
        });
        spans.push(quote!(#p::ArenaSpan::from_arena(&#ident)));
    }
    let n = spans.len();
    let pool = |name: &str, (bytes, align): (u64, u64)| {
        let ident = format_ident!("__MEMPLAN_{}", name);
        let align = align as usize;
        (
            ident.clone(),
            quote!(static #ident: #p::Arena<{ #p::to_usize(#bytes) }, #p::Align<#align>> = #p::Arena::new();),
        )
    };
    let (c, cdef) = pool("CONSTANT", model.pools[0]);
    let (rt, rdef) = pool("RUNTIME", model.pools[1]);
    let (t, tdef) = pool("TEMP", model.pools[2]);
    let span = Span::call_site();
    quote_spanned! {span=>
        #(#arenas)*
        #cdef
        #rdef
        #tdef
        // SAFETY: each arena above is private to this module and named only here, so the
        // spans are its only users.
        static __MEMPLAN_SPANS: [#p::ArenaSpan<'static>; #n] = unsafe { [#(#spans),*] };
        static __MEMPLAN_MANAGER: #p::TakeOnce<#k::MemoryManager<'static, Plan>> =
            // SAFETY: the pools and spans are private to this module and used by this one
            // manager only, which `TakeOnce` hands out at most once.
            #p::TakeOnce::new(unsafe { #p::manager(&#c, &__MEMPLAN_SPANS, &#rt, &#t) });

        /// Hands out the plan's `MemoryManager`: `Some` on the first call, `None` on every
        /// later one (checked at run time, safe from interrupts and other cores).
        pub fn take() -> ::core::option::Option<&'static mut #k::MemoryManager<'static, Plan>> {
            __MEMPLAN_MANAGER.take()
        }
    }
}

/// For a user element type: const assertions, spanned on `T`, that `[T; N]` fits the
/// declared bytes and alignment on the actual target, and that `T` is plain data.
fn elem_checks(model: &Model, i: usize) -> TokenStream {
    let ElemInfo::User {
        ty,
        count,
        count_span,
        bytes,
        align,
    } = &model.buffers[i].elem
    else {
        return TokenStream::new();
    };
    let k = &model.krate;
    let p = quote!(#k::__private);
    let span = syn::spanned::Spanned::span(ty);
    let name = &model.problem.buffers[i].name;
    let ty_text = quote!(#ty).to_string();
    let size_msg = format!(
        "memplan: `[{ty_text}; {count}]` of buffer `{name}` is larger than its declared {bytes} bytes on this target (the next error shows `declared - actual` bytes)"
    );
    let align_msg = format!(
        "memplan: the alignment of the element type of buffer `{name}` is above its declared `align {align}` on this target"
    );
    let _ = count_span;
    quote_spanned! {span=>
        const _: () = {
            ::core::assert!(#p::array_fits::<#ty>(#count, #bytes), #size_msg);
        };
        const _: usize = if #p::array_fits::<#ty>(#count, #bytes) {
            0
        } else {
            #p::to_usize(#bytes) - ::core::mem::size_of::<#ty>() * #p::to_usize(#count)
        };
        const _: () = {
            ::core::assert!(::core::mem::align_of::<#ty>() <= #p::to_usize(#align), #align_msg);
            #p::assert_plain_data::<#ty>();
        };
    }
}

/// The text of the plan's `REPORT` const.
pub(crate) fn report(model: &Model, plan: Option<&Plan>) -> String {
    let Some(plan) = plan else {
        return format!("memory plan `{}`: the plan has errors", model.name);
    };
    let strategy = match plan.strategy {
        memplan_planner::Strategy::Optimal { nodes } => format!("optimal, budget {nodes} nodes"),
        s => s.name().to_string(),
    };
    let mut out = format!(
        "memory plan `{}` (strategy {strategy})\n{:<16} {:>3} {:>12} {:>12} {:>12} {:>9} {:>8} {:>7} {:>8}\n",
        model.name,
        "region",
        "id",
        "capacity",
        "planned",
        "lower bound",
        "peak step",
        "buffers",
        "optimal",
        "nodes"
    );
    for (r, rp) in plan.regions.iter().enumerate() {
        let n = plan.buffers.iter().filter(|b| b.region == r).count();
        let peak = rp.peak_step.map_or("-".to_string(), |s| s.to_string());
        out.push_str(&format!(
            "{:<16} {:>3} {:>12} {:>12} {:>12} {:>9} {:>8} {:>7} {:>8}\n",
            model.problem.regions[r].name,
            r,
            rp.capacity,
            rp.planned_bytes,
            rp.lower_bound,
            peak,
            n,
            if rp.proven_optimal { "yes" } else { "no" },
            rp.search_nodes
        ));
    }
    out
}
