//! The static arenas (one per region), the pools, the const-built manager, and `take()`.
//!
//! An arena placed with `memory M` goes, on bare-metal targets, in the link section memplan
//! names for it ([`crate::linker::section_name`]); a `#[used]` static holds the address of
//! the symbol only the generated linker fragment defines, so linking without the fragment
//! fails naming what to add. On other targets (hosts, tests) it is a plain `.bss` static.
//! `take()` zeroes the regions whose arena start-up code does not zero (placed in a memory
//! or a user's section), unless the region says `uninit`.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::resolve::Resolved;
use crate::info::PlanInfo;
use crate::key::PlanKey;
use crate::linker::{guard_symbol, info_symbol, section_name};
use crate::lower::{ArenaPlace, Model, Pool};

/// The storage and `take()`; after errors, only a `take()` that returns `None`.
pub(super) fn storage(
    model: &Model,
    resolved: &Resolved,
    plan: Option<&memplan_planner::Plan>,
    p: &TokenStream,
) -> TokenStream {
    let k = &super::rt();
    let Some(plan) = plan.filter(|_| resolved.planned) else {
        return quote! {
            /// Hands out the plan's `MemoryManager`. The plan has errors, so this always
            /// returns `None`.
            pub fn take() -> ::core::option::Option<&'static mut #k::MemoryManager<'static, Plan>> {
                ::core::option::Option::None
            }
        };
    };
    let mut arenas = Vec::new();
    let mut spans = Vec::new();
    let mut guards = Guards::default();
    let mut zeroed: Vec<u32> = Vec::new();
    for (r, (record, out)) in model.regions.iter().zip(&resolved.regions).enumerate() {
        let ident = format_ident!("__MEMPLAN_ARENA_{}", r);
        let size = out.size;
        let align = out.align as usize;
        let place = placement(
            model,
            &record.place,
            "region",
            &record.region.name,
            &mut guards,
        );
        if !matches!(record.place, ArenaPlace::Bss) && !record.uninit {
            zeroed.push(r as u32);
        }
        arenas.push(quote! {
            #place
            #[doc(hidden)]
            static #ident: #p::Arena<{ #p::to_usize(#size) }, #p::Align<#align>> = #p::Arena::new();
        });
        let init = !record.uninit;
        spans.push(quote!(#p::ArenaSpan::from_arena(&#ident, #init)));
    }
    let n = spans.len();
    let mut pool = |name: &str, pool: &Pool| {
        let ident = format_ident!("__MEMPLAN_{}", name.to_uppercase());
        let (bytes, align) = (pool.bytes, pool.align as usize);
        let place = match &pool.memory {
            Some(m) => placement(
                model,
                &ArenaPlace::Memory(m.clone()),
                "pool",
                name,
                &mut guards,
            ),
            None => TokenStream::new(),
        };
        (
            ident.clone(),
            quote! {
                #place
                #[doc(hidden)]
                static #ident: #p::Arena<{ #p::to_usize(#bytes) }, #p::Align<#align>> = #p::Arena::new();
            },
        )
    };
    let (c, cdef) = pool("constant", &model.pools.constant);
    let (rt, rdef) = pool("runtime", &model.pools.runtime);
    let (t, tdef) = pool("temp", &model.pools.temp);
    let info = info(model, plan, p);
    let guard_items = guards.items(p);
    let require = guards.require(p);
    let span = Span::call_site();
    quote_spanned! {span=>
        #(#arenas)*
        #cdef
        #rdef
        #tdef
        #info
        #guard_items
        // SAFETY: each arena above is private to this module and named only here, so the
        // spans are its only users.
        #[doc(hidden)]
        static __MEMPLAN_SPANS: [#p::ArenaSpan<'static>; #n] = unsafe { [#(#spans),*] };
        #[doc(hidden)]
        static __MEMPLAN_MANAGER: #p::TakeOnce<#k::MemoryManager<'static, Plan>> =
            // SAFETY: the pools and spans are private to this module and used by this one
            // manager only, which `TakeOnce` hands out at most once.
            #p::TakeOnce::new(unsafe { #p::manager(&#c, &__MEMPLAN_SPANS, &#rt, &#t) });

        /// Hands out the plan's `MemoryManager`: `Some` on the first call, `None` on every
        /// later one (checked at run time, safe from interrupts and other cores). The first
        /// call zeroes the regions whose arenas start-up code does not zero.
        pub fn take() -> ::core::option::Option<&'static mut #k::MemoryManager<'static, Plan>> {
            #require
            #[cfg(all(target_os = "none", memplan_fragment))]
            ::core::hint::black_box((&__MEMPLAN_INFO, &__MEMPLAN_INFO_PLACED));
            #p::take_zeroed(&__MEMPLAN_MANAGER, &[#(#zeroed),*])
        }
    }
}

/// The plan's description ([`PlanInfo`]) in `.memplan.info`, with its guard, on
/// bare-metal targets whose build script writes memplan's fragment (`memplan-build` sets
/// `cfg(memplan_fragment)`): the fragment keeps it in a non-allocated section. Without the
/// fragment the section would be loaded like any data, so a firmware without one carries
/// no description (and, when it places no arena, needs no fragment at all).
fn info(model: &Model, plan: &memplan_planner::Plan, p: &TokenStream) -> TokenStream {
    let text = PlanInfo::new(model, plan).encode();
    let bytes = proc_macro2::Literal::byte_string(text.as_bytes());
    let n = text.len();
    let section = crate::info::SECTION;
    let symbol = Ident::new(&info_symbol(&PlanKey::of(model)), Span::call_site());
    quote! {
        #[cfg(all(target_os = "none", memplan_fragment))]
        #[used]
        #[unsafe(link_section = #section)]
        #[doc(hidden)]
        static __MEMPLAN_INFO: [::core::primitive::u8; #n] = *#bytes;
        #[cfg(all(target_os = "none", memplan_fragment))]
        unsafe extern "C" {
            static #symbol: ::core::primitive::u8;
        }
        #[cfg(all(target_os = "none", memplan_fragment))]
        #[used]
        #[doc(hidden)]
        static __MEMPLAN_INFO_PLACED: #p::Placed = #p::Placed::new(&raw const #symbol);
    }
}

/// The attribute that places an arena: none for `.bss`; for `memory M`, memplan's section
/// on bare-metal targets (and a guard); for `unsafe section "S"`, the user's section,
/// spanned on the user's `unsafe` so that `forbid(unsafe_code)` catches it.
fn placement(
    model: &Model,
    place: &ArenaPlace,
    kind: &str,
    name: &str,
    guards: &mut Guards,
) -> TokenStream {
    match place {
        ArenaPlace::Bss => TokenStream::new(),
        ArenaPlace::Memory(_) => {
            let key = PlanKey::of(model);
            let section = section_name(&key, kind, name);
            guards.add(guard_symbol(&key, kind, name));
            quote!(#[cfg_attr(target_os = "none", unsafe(link_section = #section))])
        }
        ArenaPlace::Section { unsafe_span, name } => {
            quote_spanned!(*unsafe_span=> #[unsafe(link_section = #name)])
        }
    }
}

/// The guards of the arenas placed in a memory: one extern symbol and one `#[used]` static
/// each, on bare-metal targets only.
#[derive(Default)]
struct Guards {
    symbols: Vec<String>,
}

impl Guards {
    fn add(&mut self, symbol: String) {
        self.symbols.push(symbol);
    }

    fn statics(&self) -> Vec<Ident> {
        (0..self.symbols.len())
            .map(|i| format_ident!("__MEMPLAN_PLACED_{}", i))
            .collect()
    }

    fn items(&self, p: &TokenStream) -> TokenStream {
        if self.symbols.is_empty() {
            return TokenStream::new();
        }
        let symbols: Vec<Ident> = self
            .symbols
            .iter()
            .map(|s| Ident::new(s, Span::call_site()))
            .collect();
        let statics = self.statics();
        quote! {
            #[cfg(target_os = "none")]
            unsafe extern "C" {
                #(static #symbols: ::core::primitive::u8;)*
            }
            #(
                #[cfg(target_os = "none")]
                #[used]
                #[doc(hidden)]
                static #statics: #p::Placed = #p::Placed::new(&raw const #symbols);
            )*
        }
    }

    fn require(&self, p: &TokenStream) -> TokenStream {
        if self.symbols.is_empty() {
            return TokenStream::new();
        }
        let statics = self.statics();
        quote! {
            #[cfg(target_os = "none")]
            #p::require_placed(&[#(&#statics),*]);
        }
    }
}
