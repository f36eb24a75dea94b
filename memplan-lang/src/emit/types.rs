//! A type per region (implementing the runtime's `MemoryId`) and per buffer (implementing
//! `PlannedBuffer`).

use proc_macro2::TokenStream;
use quote::quote;

use super::checks;
use super::resolve::Resolved;
use super::{derives, prim};
use crate::lower::Model;

/// The region types, and `__MemplanNoRegion` for a plan without regions (its buffers'
/// types still need a region type).
pub(super) fn regions(model: &Model, resolved: &Resolved, p: &TokenStream) -> TokenStream {
    let k = &super::rt();
    let (u32_, usize_, str_, bool_) = (prim("u32"), prim("usize"), prim("str"), prim("bool"));
    let derives = derives();
    let items =
        model
            .regions
            .iter()
            .zip(&resolved.regions)
            .enumerate()
            .map(|(r, (record, out))| {
                let ty = &record.type_ident;
                let rattrs = &record.attrs;
                let rname = &record.region.name;
                let capacity = record.region.capacity;
                let id = r as u32;
                let (size, align, lb, optimal) =
                    (out.size, out.align, out.lower_bound, out.proven_optimal);
                let kind = &record.kind;
                let peak = match out.peak_step {
                    Some(s) => quote!(::core::option::Option::Some(#s)),
                    None => quote!(::core::option::Option::None),
                };
                let doc = &out.doc;
                quote! {
                    #(#rattrs)*
                    #[doc = #doc]
                    #derives
                    pub struct #ty;
                    impl #k::MemoryId for #ty {
                        type Plan = Plan;
                        const ID: #u32_ = #id;
                        const NAME: &'static #str_ = #rname;
                        const SIZE: #usize_ = #p::to_usize(#size);
                        const CAPACITY: #usize_ = #p::capacity(#capacity);
                        const ALIGN: #usize_ = #p::to_usize(#align);
                        const KIND: #k::RegionKind = #k::RegionKind::#kind;
                    }
                    impl #ty {
                        /// The most bytes live at one step in this region, in bytes: no plan can use fewer.
                        pub const LOWER_BOUND: #usize_ = #p::to_usize(#lb);
                        /// The step at which `LOWER_BOUND` bytes are live (`None` when none are).
                        pub const PEAK_STEP: ::core::option::Option<#u32_> = #peak;
                        /// Whether the planned bytes are proven the fewest possible.
                        pub const PROVEN_OPTIMAL: #bool_ = #optimal;
                    }
                }
            });
    let no_region = model.regions.is_empty().then(|| {
        quote! {
            #[doc(hidden)]
            pub struct __MemplanNoRegion;
            impl #k::MemoryId for __MemplanNoRegion {
                type Plan = Plan;
                const ID: #u32_ = 0;
                const NAME: &'static #str_ = "";
                const SIZE: #usize_ = 0;
                const CAPACITY: #usize_ = 0;
                const ALIGN: #usize_ = 1;
            }
        }
    });
    quote!(#(#items)* #no_region)
}

/// The buffer types (those whose name is free), with the const checks of user element
/// types for a plan.
pub(super) fn buffers(model: &Model, resolved: &Resolved, p: &TokenStream) -> TokenStream {
    let k = &super::rt();
    let (u32_, usize_, str_) = (prim("u32"), prim("usize"), prim("str"));
    let items = model
        .buffers
        .iter()
        .zip(&resolved.buffers)
        .filter(|(record, _)| record.standing.has_type())
        .map(|(record, out)| {
            let ty = &record.type_ident;
            let battrs = &record.attrs;
            let b = &record.buffer;
            let bname = &b.name;
            let region_ty = match model.regions.get(out.region) {
                Some(r) => {
                    let t = &r.type_ident;
                    quote!(#t)
                }
                None => quote!(__MemplanNoRegion),
            };
            let (offset, size, align) = (out.offset, out.size, out.align);
            let (first, last) = (b.lifetime.first, b.lifetime.last);
            let elem = record.elem.tokens();
            let doc = &out.doc;
            let checks = resolved.planned.then(|| checks::element(record, p));
            quote! {
                #(#battrs)*
                #[doc = #doc]
                pub struct #ty;
                impl #k::PlannedBuffer for #ty {
                    type Region = #region_ty;
                    type Elem = #elem;
                    const NAME: &'static #str_ = #bname;
                    const OFFSET: #usize_ = #p::to_usize(#offset);
                    const SIZE: #usize_ = #p::to_usize(#size);
                    const ALIGN: #usize_ = #p::to_usize(#align);
                    const FIRST: #u32_ = #first;
                    const LAST: #u32_ = #last;
                }
                #checks
            }
        });
    quote!(#(#items)*)
}
