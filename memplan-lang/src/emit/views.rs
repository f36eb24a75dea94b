//! The per-step views: for each distinct set of buffers live at a step, a struct with one
//! field per live buffer (`&'v mut [T; N]`, or an `InPlace` for an in-place pair at its
//! handover step), and an impl of the runtime's `StepOf<T>` for every step `T`, so that
//! `manager.step_any_order::<T>()` opens it (`T` a step number). Also the plan's `Schedule` (its buffer table), which
//! the runtime's generic `live_at` and `debug-canary` read.
//!
//! Views are emitted when the plan has at most [`MAX_STEPS`] steps and its distinct views
//! hold at most [`MAX_FIELDS`] fields in all, so that the expansion stays proportional to
//! the plan; past that, the generic path (`live_at`) still reaches every buffer.

use std::collections::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::resolve::Resolved;
use crate::lower::{BufferRecord, ElemInfo, Model};
use crate::names;

use crate::limits::{MAX_FIELDS, MAX_STEPS};

/// One field of a view: a buffer, or an in-place pair at its handover step.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Field {
    One(usize),
    /// Source, then the buffer in place of it (named after the latter).
    Pair(usize, usize),
    /// At its first step, a buffer whose `in place of` names no buffer (an error): an
    /// `InPlace` over its own type, so that the code using it as a pair adds no error.
    Unresolved(usize),
}

/// The `Schedule` impl, the view structs and the `StepOf` impls.
pub(super) fn views(model: &Model, resolved: &Resolved, p: &TokenStream) -> TokenStream {
    let k = &super::rt();
    let canary = if model.canary {
        quote!(#p::CANARY_BYTES)
    } else {
        quote!(0)
    };
    let schedule = quote! {
        // SAFETY: memplan's validator accepted this plan (every buffer inside its region;
        // buffers live at a common step share no byte but an in-place pair at its
        // handover), and `BUFFERS` is its table, with the in-place links. After errors the
        // crate does not build, so nothing here ever runs.
        unsafe impl #k::Schedule for Plan {
            const BUFFERS: &'static [#k::BufferInfo] = BUFFERS;
            const CANARY: ::core::primitive::usize = #canary;
        }
    };
    let Some(steps) = live_sets(model) else {
        return schedule;
    };
    // A view per distinct set of live buffers and its fields there (an in-place pair is
    // one field at its handover step only: a step with the same buffers after it, which
    // only a buffer of unknown lifetime makes, has a view of its own).
    let mut view_of: HashMap<(&[usize], Vec<Field>), usize> = HashMap::new();
    let mut sets: Vec<&[usize]> = Vec::new();
    let mut step_view = Vec::with_capacity(steps.len());
    // Each view is named after the first step it serves: `AtStep3`.
    let mut names: Vec<Ident> = Vec::new();
    let mut firsts: Vec<u32> = Vec::new();
    for (t, set) in steps.iter().enumerate() {
        let key = (set.as_slice(), fields(model, set, t as u32));
        let v = *view_of.entry(key).or_insert_with(|| {
            sets.push(set);
            names.push(format_ident!("AtStep{}", t));
            firsts.push(t as u32);
            sets.len() - 1
        });
        step_view.push(v);
    }
    let view_items: Vec<TokenStream> = sets
        .iter()
        .enumerate()
        .map(|(v, set)| {
            view(
                model,
                resolved,
                p,
                (v, &names[v], firsts[v]),
                set,
                &step_view,
            )
        })
        .collect();
    let accessors = accessors(model, resolved);
    let last = step_view.len().saturating_sub(1);
    let step_items = step_view.iter().enumerate().map(|(t, &v)| {
        let marker = format_ident!("S{}", t);
        let next = format_ident!("S{}", if t == last { 0 } else { t + 1 });
        let t = t as u32;
        let ty = &names[v];
        quote! {
            // SAFETY: `#ty` is this plan's view of step `#t` (the buffers live there).
            unsafe impl #k::StepOf<#t> for Plan { type View<'v> = #ty<'v>; }
            #[doc(hidden)]
            pub struct #marker;
            // SAFETY: as above; `#next` is the step after `#t` (step 0 after the last).
            unsafe impl #k::Step for #marker {
                type Plan = super::Plan;
                const STEP: ::core::primitive::u32 = #t;
                type Next = #next;
                type View<'v> = super::#ty<'v>;
            }
        }
    });
    quote! {
        #schedule
        #accessors
        #(#view_items)*
        /// The plan's steps as types, for [`MemoryManager::walk`](#k::MemoryManager::walk):
        /// `S0` is step 0, and each step's `Next` the step after it.
        pub mod steps {
            #![allow(unused_imports)]
            use super::*;
            // SAFETY: `S0` is the plan's step 0.
            unsafe impl #k::Walked for super::Plan { type First = S0; }
            #(#step_items)*
        }
    }
}

/// The buffers live at each step `0..=last`, in declaration order; `None` past the limits.
/// A buffer whose statement did not parse and names no steps (after its error) has no
/// known lifetime: every step holds it, so that code using it at any step adds no error.
fn live_sets(model: &Model) -> Option<Vec<Vec<usize>>> {
    let broken = BufferRecord::lifetime_unknown;
    if model.buffers.is_empty() {
        return None;
    }
    let last = model
        .buffers
        .iter()
        .filter(|r| !broken(r))
        .map(|r| u64::from(r.buffer.lifetime.last))
        .max()
        .unwrap_or(0);
    if last >= MAX_STEPS {
        return None;
    }
    let mut steps: Vec<Vec<usize>> = vec![Vec::new(); last as usize + 1];
    for (i, r) in model.buffers.iter().enumerate() {
        let l = r.buffer.lifetime;
        let (first, last) = if broken(r) {
            (0, last as u32)
        } else {
            (l.first, l.last)
        };
        for t in first..=last {
            steps[t as usize].push(i);
        }
    }
    let mut distinct: Vec<&Vec<usize>> = steps.iter().collect();
    distinct.sort();
    distinct.dedup();
    let fields: usize = distinct.iter().map(|s| s.len()).sum();
    (fields <= MAX_FIELDS).then_some(steps)
}

/// The fields of a view of `set`, first serving step `first`: in-place pairs live
/// together merged into one.
fn fields(model: &Model, set: &[usize], first: u32) -> Vec<Field> {
    let live = |i: usize| set.binary_search(&i).is_ok();
    // A buffer whose in-place successor is live here is part of that one's pair.
    let mut taken_over = vec![false; set.len()];
    let mut out = Vec::new();
    // Both live at one step is a handover when the source ends where the buffer starts
    // (always so in a valid plan). After an error in their lifetimes, a source that starts
    // before the buffer and is still live after its first step still hands over there, at
    // that step only, as the declaration has it: the code written for it (`input()` and
    // `output()` there, each buffer's own field after) adds no error. A source that starts
    // with the buffer cannot hand over: both keep their own fields.
    let handover = |i: usize, s: usize| {
        let (b, src) = (&model.buffers[i].buffer, &model.buffers[s].buffer);
        src.lifetime.last == b.lifetime.first
            || (src.lifetime.first < b.lifetime.first && b.lifetime.first == first)
    };
    for &i in set {
        if let Some(s) = model.buffers[i].buffer.in_place_of
            && handover(i, s)
            && let Ok(y) = set.binary_search(&s)
        {
            taken_over[y] = true;
        }
    }
    for (x, &i) in set.iter().enumerate() {
        if taken_over[x] {
            continue;
        }
        // The pair's source: the first of its chain live here.
        let mut source = None;
        let mut cur = i;
        while let Some(s) = model.buffers[cur].buffer.in_place_of {
            if !live(s) || s == i || !handover(cur, s) {
                break;
            }
            source = Some(s);
            cur = s;
        }
        let b = &model.buffers[i];
        let unresolved = b.declared.in_place_of.is_some() && b.buffer.in_place_of.is_none();
        out.push(match source {
            Some(s) => Field::Pair(s, i),
            None if unresolved && b.buffer.lifetime.first == first => Field::Unresolved(i),
            None => Field::One(i),
        });
    }
    out
}

/// `([T; N])` of buffer `i`, as its view borrows it.
pub(super) fn array(model: &Model, i: usize) -> (TokenStream, usize) {
    let r = &model.buffers[i];
    let bytes = r.buffer.size;
    let n = match &r.elem {
        ElemInfo::Bytes => bytes,
        ElemInfo::Prim { size, .. } => bytes / (*size).max(1),
        ElemInfo::User { count, .. } => *count,
    };
    (r.elem.tokens(), n as usize)
}

fn view(
    model: &Model,
    resolved: &Resolved,
    p: &TokenStream,
    (v, ty, first): (usize, &Ident, u32),
    set: &[usize],
    step_view: &[usize],
) -> TokenStream {
    let doc = format!(
        "The buffers live at step {} of plan `{}`: `manager.step_any_order::<STEP>()` opens this view.",
        steps_of(step_view, v),
        model.name
    );
    let mut decls = Vec::new();
    let mut inits = Vec::new();
    // A buffer whose type name another took (an error, so the fallback) has no field.
    let set: Vec<usize> = set
        .iter()
        .copied()
        .filter(|&i| model.buffers[i].standing.has_type())
        .collect();
    let mut methods = Vec::new();
    let mut marks = Vec::new();
    for f in fields(model, &set, first) {
        let (name, field_ty, init) = field(model, resolved, p, f);
        let field_doc = field_doc(model, f);
        // The field's accessor, and the mark that its buffer is live here, which the
        // accessor of a view without the field asks for (see `accessors`).
        let (owner, ret, body) = match f {
            Field::One(i) => (i, accessor_type(model, resolved, i), quote!(self.#name)),
            Field::Pair(_, i) | Field::Unresolved(i) => {
                (i, quote!(&mut #field_ty), quote!(&mut self.#name))
            }
        };
        let mark = field_ident(model, owner);
        let method_doc = format!("{field_doc} (The field `{name}`, borrowed.)");
        methods.push(quote! {
            #[doc = #method_doc]
            #[inline]
            pub fn #name(&mut self) -> #ret { #body }
        });
        marks.push(quote!(impl<'v> live::#mark for #ty<'v> {}));
        decls.push(quote!(#[doc = #field_doc] pub #name: #field_ty));
        inits.push((name, init));
    }
    // A view without fields still holds its lifetime.
    let lifetime_use = if decls.is_empty() {
        quote!(_view: ::core::marker::PhantomData<&'v mut ()>,)
    } else {
        TokenStream::new()
    };
    let open = open(ty, resolved.planned, p, &inits);
    quote! {
        #[doc = #doc]
        #[allow(non_snake_case)]
        pub struct #ty<'v> {
            #(#decls,)*
            #lifetime_use
        }
        impl<'v> #ty<'v> {
            #(#methods)*
        }
        #(#marks)*
        // A buffer not live here: `s.NAME()` finds the accessor of `Accessors`, whose bound
        // says the buffer's lifetime.
        impl<'v> ::core::ops::Deref for #ty<'v> {
            type Target = accessors::Accessors<#ty<'v>>;
            #[inline]
            fn deref(&self) -> &Self::Target {
                &accessors::Accessors(::core::marker::PhantomData)
            }
        }
        #open
    }
}

/// A view field: its name, its type, and the expression that builds it from the plan's
/// `spans` in `open`.
fn field(
    model: &Model,
    resolved: &Resolved,
    p: &TokenStream,
    f: Field,
) -> (Ident, TokenStream, TokenStream) {
    let k = &super::rt();
    match f {
        Field::One(i) => {
            let (elem, n) = array(model, i);
            let b = &model.buffers[i].type_ident;
            let (field_ty, init) = if uninit_region(model, resolved, i) {
                (
                    quote!(&'v mut [::core::mem::MaybeUninit<#elem>; #n]),
                    quote!(#p::field_uninit::<Plan, #b, #n>(spans)),
                )
            } else {
                (
                    quote!(&'v mut [#elem; #n]),
                    quote!(#p::field::<Plan, #b, #n>(spans)),
                )
            };
            (field_ident(model, i), field_ty, init)
        }
        Field::Pair(s, i) => {
            let (ei, ni) = array(model, s);
            let (eo, no) = array(model, i);
            let (bs, bi) = (&model.buffers[s].type_ident, &model.buffers[i].type_ident);
            let (field_ty, init) = if uninit_region(model, resolved, s) {
                (
                    quote!(#k::InPlace<'v, [::core::mem::MaybeUninit<#ei>; #ni], [::core::mem::MaybeUninit<#eo>; #no]>),
                    quote!(#p::in_place_uninit::<Plan, #bs, #bi, #ni, #no>(spans)),
                )
            } else {
                (
                    quote!(#k::InPlace<'v, [#ei; #ni], [#eo; #no]>),
                    quote!(#p::in_place::<Plan, #bs, #bi, #ni, #no>(spans)),
                )
            };
            (field_ident(model, i), field_ty, init)
        }
        Field::Unresolved(i) => {
            let (e, n) = array(model, i);
            let e = if uninit_region(model, resolved, i) {
                quote!(::core::mem::MaybeUninit<#e>)
            } else {
                e
            };
            // Only after an error: `open` is never called.
            let field_ty = quote!(#k::InPlace<'v, [#e; #n], [#e; #n]>);
            (
                field_ident(model, i),
                field_ty,
                quote!(::core::unreachable!()),
            )
        }
    }
}

/// A view field's documentation.
fn field_doc(model: &Model, f: Field) -> String {
    match f {
        Field::One(i) => format!(
            "Buffer `{}`, live {}.",
            model.buffers[i].buffer.name,
            live_steps(model, i)
        ),
        Field::Unresolved(i) => format!(
            "Buffer `{}`, live {} (its `in place of` names no buffer).",
            model.buffers[i].buffer.name,
            live_steps(model, i)
        ),
        Field::Pair(s, i) => format!(
            "Buffer `{}` in place of `{}` (live {}), at its handover: `input()` is `{}`'s bytes, `output()` this buffer's.",
            model.buffers[i].buffer.name,
            model.buffers[s].buffer.name,
            live_steps(model, i),
            model.buffers[s].buffer.name
        ),
    }
}

/// The view's `View` impl: `open` builds the fields `inits` from the plan's spans.
fn open(ty: &Ident, planned: bool, p: &TokenStream, inits: &[(Ident, TokenStream)]) -> TokenStream {
    let k = &super::rt();
    let (spans, body) = if !planned {
        // After errors the crate does not build: this is never called.
        (quote!(_), quote!(::core::unreachable!()))
    } else if inits.is_empty() {
        (
            quote!(_),
            quote!(#ty { _view: ::core::marker::PhantomData }),
        )
    } else {
        let names = inits.iter().map(|(n, _)| n);
        let values = inits.iter().map(|(_, v)| v);
        (
            quote!(spans),
            quote! {
                // SAFETY: the caller lends the plan's spans for `'v`; the fields are the
                // buffers live at one step, which memplan's validator proved disjoint (an
                // in-place pair is one field), each checked at compile time against the
                // region table.
                unsafe { #ty { #(#names: #values),* } }
            },
        )
    };
    quote! {
        // SAFETY: `open` builds the fields as the comment in it says.
        unsafe impl<'v> #k::View<'v> for #ty<'v> {
            #[inline]
            unsafe fn open(#spans: &[#p::ArenaSpan<'_>]) -> Self {
                #body
            }
        }
    }
}

fn accessor_type(model: &Model, resolved: &Resolved, i: usize) -> TokenStream {
    let (elem, n) = array(model, i);
    if uninit_region(model, resolved, i) {
        quote!(&mut [::core::mem::MaybeUninit<#elem>; #n])
    } else {
        quote!(&mut [#elem; #n])
    }
}

/// Per buffer, a mark trait `live::NAME` (implemented by the views that hold the buffer)
/// and an accessor `NAME()` on `accessors::Accessors<V>` bounded by it, the target of every
/// view's `Deref`: `s.NAME()` on a view without the buffer fails on that bound, with the
/// trait's message (the buffer's lifetime and declaration), and the bound is spanned at the
/// buffer's declaration. A view that holds the buffer has its own `NAME()`, found first;
/// the fallback is an `unsafe fn`, so that an explicit `(*view).NAME()` on such a view, which
/// reaches it, is a compile error in safe code rather than a panic.
fn accessors(model: &Model, resolved: &Resolved) -> TokenStream {
    // Whose bytes each buffer hands over (its successors in place of it).
    let mut successor: Vec<Option<usize>> = vec![None; model.buffers.len()];
    for (i, r) in model.buffers.iter().enumerate() {
        if let Some(s) = r.buffer.in_place_of
            && let Some(slot) = successor.get_mut(s)
        {
            slot.get_or_insert(i);
        }
    }
    let mut traits = Vec::new();
    let mut methods = Vec::new();
    for (i, r) in model.buffers.iter().enumerate() {
        if !r.standing.has_type() {
            continue;
        }
        let name = field_ident(model, i);
        let shown = braces(&r.buffer.name);
        let live = live_steps(model, i);
        // At its handover step a source is live but has no field of its own: say so there.
        let message = match successor[i] {
            Some(j) => format!(
                "buffer `{shown}` is not in this step's view: it is live {live}, handed over to `{}` at step {}",
                braces(&model.buffers[j].buffer.name),
                r.buffer.lifetime.last
            ),
            None => format!("buffer `{shown}` is not in this step's view: it is live {live}"),
        };
        let label = format!("`{shown}` is not live at this step");
        let declared = match &r.origin {
            Some(origin) => format!("`{shown}` is a row of the plan file at {}", braces(origin)),
            None => {
                let at = r.spans.name.start();
                format!(
                    "`{shown}` is declared at {}:{}:{}",
                    braces(&r.spans.name.file()),
                    at.line,
                    at.column + 1
                )
            }
        };
        let handover = successor[i].map(|j| {
            let next = braces(&model.buffers[j].buffer.name);
            let note = format!(
                "at step {}, `{next}` takes over the bytes of `{shown}` (in place of it): they are `{next}`'s `input()` there",
                r.buffer.lifetime.last
            );
            quote!(note = #note,)
        });
        traits.push(quote! {
            #[doc = #message]
            #[allow(non_camel_case_types)]
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #declared, #handover)]
            pub trait #name {}
        });
        let ret = accessor_type(model, resolved, i);
        // Spanned at the declaration: rustc's "required by this bound" points there.
        let mut at_decl = name.clone();
        at_decl.set_span(r.spans.name);
        let bound = quote_spanned!(r.spans.name=> V: live::#at_decl);
        let doc = format!(
            "Never called: the views that hold `{}` have their own `{name}()`; on the others this fails to compile, naming its lifetime.\n\n# Safety\n\nNone: it must not be called. It is `unsafe` so that safe code cannot reach it through an explicit `(*view).{name}()` on a view that holds the buffer (it would panic).",
            r.buffer.name
        );
        methods.push(quote! {
            #[doc = #doc]
            #[allow(clippy::mut_from_ref)]
            pub unsafe fn #name(&self) -> #ret where #bound {
                ::core::unreachable!()
            }
        });
    }
    quote! {
        /// One mark trait per buffer, implemented by the step views that hold it.
        pub mod live {
            #(#traits)*
        }
        #[doc(hidden)]
        pub mod accessors {
            /// The target of every step view's `Deref`: the accessors of buffers not live
            /// at the view's steps, which do not compile.
            pub struct Accessors<V>(pub(in super) ::core::marker::PhantomData<V>);
        }
        impl<V> accessors::Accessors<V> {
            #(#methods)*
        }
    }
}

/// `text` as literal text of a `diagnostic::on_unimplemented` string (`{` and `}` doubled).
fn braces(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// Whether buffer `i` is in a region that says `uninit` (its views are `MaybeUninit`).
fn uninit_region(model: &Model, resolved: &Resolved, i: usize) -> bool {
    model
        .regions
        .get(resolved.buffers[i].region)
        .is_some_and(|x| x.uninit)
}

/// The steps that view `v` serves, as ranges: `3..=5, 9`.
fn steps_of(step_view: &[usize], v: usize) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (t, &w) in step_view.iter().enumerate() {
        if w != v {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.1 + 1 == t => run.1 = t,
            _ => runs.push((t, t)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}..={b}")
            }
        })
        .collect();
    text.join(", ")
}

/// Buffer `i`'s lifetime, `first..=last`.
fn live_steps(model: &Model, i: usize) -> String {
    let l = model.buffers[i].buffer.lifetime;
    format!("{}..={}", l.first, l.last)
}

/// The field of buffer `i`: a declared buffer's own name (an identifier), a plan-file row's
/// name mangled to one.
pub(super) fn field_ident(model: &Model, i: usize) -> Ident {
    let r = &model.buffers[i];
    if r.origin.is_none() {
        names::field_ident(&r.buffer.name, Span::call_site())
    } else {
        Ident::new(&names::field_name(&r.buffer.name), Span::call_site())
    }
}
