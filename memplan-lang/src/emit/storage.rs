//! The static arenas (one per region), the pools, the const-built manager, and `take()`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::resolve::Resolved;
use crate::lower::{Model, Pool};

/// The storage and `take()`; after errors, only a `take()` that returns `None`.
pub(super) fn storage(model: &Model, resolved: &Resolved, p: &TokenStream) -> TokenStream {
    let k = &model.krate;
    if !resolved.planned {
        return quote! {
            /// Hands out the plan's `MemoryManager`. The plan has errors, so this always
            /// returns `None`.
            pub fn take() -> ::core::option::Option<&'static mut #k::MemoryManager<'static, Plan>> {
                ::core::option::Option::None
            }
        };
    }
    let mut arenas = Vec::new();
    let mut spans = Vec::new();
    for (r, (record, out)) in model.regions.iter().zip(&resolved.regions).enumerate() {
        let ident = format_ident!("__MEMPLAN_ARENA_{}", r);
        let size = out.size;
        let align = out.align as usize;
        let section = record
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
    let pool = |name: &str, pool: Pool| {
        let ident = format_ident!("__MEMPLAN_{}", name);
        let (bytes, align) = (pool.bytes, pool.align as usize);
        (
            ident.clone(),
            quote!(static #ident: #p::Arena<{ #p::to_usize(#bytes) }, #p::Align<#align>> = #p::Arena::new();),
        )
    };
    let (c, cdef) = pool("CONSTANT", model.pools.constant);
    let (rt, rdef) = pool("RUNTIME", model.pools.runtime);
    let (t, tdef) = pool("TEMP", model.pools.temp);
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
