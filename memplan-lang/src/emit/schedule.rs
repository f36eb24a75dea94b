//! A model's schedule, generated from a `model` statement ([`crate::lower::schedule`]): the
//! model's constants in a `static` (the data of the constant tensors its operators read:
//! weights, biases, each once, 16-aligned, as one byte-string literal; none of the rest of
//! the file), one kernel trait per operator kind the model runs, and `run`, which walks the
//! steps in order through the step views, calling for each operator the kernel of its kind
//! with its options and tensors (planned buffers from the step's view, constants from the
//! `static`), with the model's inputs filled by a closure before the first operator and its
//! outputs given to another after the last.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use super::prim;
use super::resolve::Resolved;
use super::views::{array, field_ident};
use crate::lower::Model;
use crate::lower::schedule::{KINDS, Op, Schedule, Source, TensorRef};
use memplan_planner::files::{Activation, Options, Padding};

/// The schedule's items: the model's constants, the kernel traits and `run` (whose body, after
/// errors, never runs: the crate does not build).
pub(super) fn schedule(model: &Model, resolved: &Resolved, p: &TokenStream) -> TokenStream {
    let Some(s) = &model.schedule_ir else {
        return TokenStream::new();
    };
    let k = &super::rt();
    let mut used: Vec<usize> = Vec::new();
    for op in &s.ops {
        if !used.contains(&op.kind) {
            used.push(op.kind);
        }
    }
    let traits = used.iter().map(|&kind| kernel_trait(model, s, kind, k));
    let bounds: Vec<Ident> = used
        .iter()
        .map(|&kind| Ident::new(KINDS[kind].trait_name, Span::call_site()))
        .collect();
    let (input_ty, output_ty) = (
        closure_type(model, &s.inputs, true),
        closure_type(model, &s.outputs, false),
    );
    let planned = resolved.planned;
    // One byte-string literal (one token however long, so that the expansion stays fast to
    // parse), in a 16-aligned `static`: editing the file rebuilds the crate through the
    // `include_bytes!` the module keeps of each file read ([`super::emit`]).
    let data = planned.then(|| {
        let bytes = s.constants.len();
        let constants = Literal::byte_string(&s.constants);
        quote! {
            #[doc(hidden)]
            static __MEMPLAN_CONSTANTS: #p::ModelBytes<#bytes> = #p::ModelBytes(*#constants);
        }
    });
    let quant = planned.then(|| quantizations(s, k));
    let body = if planned {
        // Every step in order, through the walk: with `debug-canary` the run time checks
        // the order, and steps without an operator keep it.
        let steps = (0..=s.last_step).map(|t| {
            let block = step(model, s, t, k, p);
            if t == 0 {
                quote!(let mut step = manager.walk(); #block)
            } else {
                quote!(let mut step = step.next(); #block)
            }
        });
        quote!(#(#steps)*)
    } else {
        quote!(::core::unreachable!())
    };
    let run_doc = format!(
        "Runs model `{}` once: fills its inputs with `input` (before its first operator), \
         then runs its {} operators in order, each by the kernel of its kind, over the plan's \
         step views, then hands its outputs to `output` (after the last one).",
        s.shown,
        s.ops.len()
    );
    quote! {
        #data
        #quant
        #(#traits)*
        #[doc = #run_doc]
        #[allow(clippy::too_many_lines)]
        pub fn run<K: #(#bounds)+*>(
            manager: &mut #k::MemoryManager<'static, Plan>,
            kernels: &mut K,
            input: impl ::core::ops::FnOnce(#input_ty),
            output: impl ::core::ops::FnOnce(#output_ty),
        ) {
            let _ = (&kernels, &input, &output);
            #body
        }
    }
}

/// The type a closure of `run` takes for `tensors`: one array reference (`&mut` for the
/// inputs), or a tuple of them.
fn closure_type(model: &Model, tensors: &[TensorRef], mutable: bool) -> TokenStream {
    let tys: Vec<TokenStream> = tensors
        .iter()
        .filter_map(|t| match t.source {
            Source::Buffer(b) => {
                let (elem, n) = array(model, b);
                Some(if mutable {
                    quote!(&mut [#elem; #n])
                } else {
                    quote!(&[#elem; #n])
                })
            }
            Source::Constant { .. } => None,
        })
        .collect();
    match &tys[..] {
        [one] => one.clone(),
        many => quote!((#(#many,)*)),
    }
}

/// The element type of `t` as generated code names it.
fn elem(t: &TensorRef) -> TokenStream {
    prim(t.elem.map_or("u8", |e| e.rust_name()))
}

/// The kernel trait of operator kind `kind`, with the element types of its first operator
/// (the lowering checked that the others agree).
fn kernel_trait(model: &Model, s: &Schedule, kind: usize, k: &TokenStream) -> TokenStream {
    let kd = &KINDS[kind];
    let ops: Vec<&Op> = s.ops.iter().filter(|o| o.kind == kind).collect();
    let first = ops[0];
    let name = Ident::new(kd.trait_name, Span::call_site());
    let method = Ident::new(kd.method, Span::call_site());
    let options = Ident::new(kd.options, Span::call_site());
    let indices: Vec<String> = ops.iter().map(|o| o.index.to_string()).collect();
    let shown = &s.shown;
    let message = format!(
        "`{{Self}}` has no kernel for `{}`, which model `{shown}` runs (operator{} {})",
        kd.op,
        if indices.len() == 1 { "" } else { "s" },
        indices.join(", ")
    );
    let label = format!("no `{}` kernel", kd.trait_name);
    let note = format!(
        "implement `{}` (declared in plan `{}`) for it: its method `{}` runs the operator",
        kd.trait_name, model.name, kd.method
    );
    let params = kd
        .inputs
        .iter()
        .zip(&first.inputs)
        .map(|(&(role, optional), t)| {
            let role = Ident::new(role, Span::call_site());
            let ty = match t {
                Some(t) => {
                    let e = elem(t);
                    quote!(#k::ops::In<'_, #e>)
                }
                None => quote!(#k::ops::In<'_, ::core::primitive::u8>),
            };
            if optional {
                quote!(#role: ::core::option::Option<#ty>)
            } else {
                quote!(#role: #ty)
            }
        });
    let out = elem(&first.output);
    let doc = format!(
        "The kernel of `{}`, which model `{shown}` runs at operator{} {}: `run` calls `{}` with \
         the operator's options and tensors, and the kernel-temporary pool.",
        kd.op,
        if indices.len() == 1 { "" } else { "s" },
        indices.join(", "),
        kd.method
    );
    quote! {
        #[doc = #doc]
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #name {
            #[doc = "Runs one operator of this kind."]
            #[allow(clippy::too_many_arguments)]
            fn #method(
                &mut self,
                op: &#k::ops::#options,
                #(#params,)*
                output: #k::ops::Out<'_, #out>,
                temp: &mut #k::MemoryAllocator<'static>,
            );
        }
    }
}

/// `static`s of the quantization parameters of every tensor the operators pass.
fn quantizations(s: &Schedule, k: &TokenStream) -> TokenStream {
    let mut done: Vec<usize> = Vec::new();
    let mut items = Vec::new();
    let all = s
        .ops
        .iter()
        .flat_map(|op| op.inputs.iter().flatten().chain([&op.output]));
    for t in all {
        let Some(q) = &t.quantization else { continue };
        if done.contains(&t.index) {
            continue;
        }
        done.push(t.index);
        let ident = quant_ident(t.index);
        let scales = q.scale.iter().map(|f| {
            let bits = Literal::u32_unsuffixed(f.to_bits());
            quote!(::core::primitive::f32::from_bits(#bits))
        });
        let zeros = q.zero_point.iter().map(|&z| Literal::i64_unsuffixed(z));
        let dim = q.quantized_dimension;
        items.push(quote! {
            #[doc(hidden)]
            static #ident: #k::ops::Quantization = #k::ops::Quantization {
                scale: &[#(#scales),*],
                zero_point: &[#(#zeros),*],
                dimension: #dim,
            };
        });
    }
    quote!(#(#items)*)
}

fn quant_ident(tensor: usize) -> Ident {
    format_ident!("__MEMPLAN_QUANT_{}", tensor)
}

/// Step `t` of `run`: its view opened, the inputs filled at step 0, its operators run, the
/// outputs read at the last step.
fn step(model: &Model, s: &Schedule, t: u32, k: &TokenStream, p: &TokenStream) -> TokenStream {
    let ops: Vec<&Op> = s.ops.iter().filter(|o| o.step == t).collect();
    let fields = |list: &[TensorRef], mutable: bool| -> Option<TokenStream> {
        let f: Vec<TokenStream> = list
            .iter()
            .filter_map(|x| match x.source {
                Source::Buffer(b) => {
                    let name = field_ident(model, b);
                    Some(if mutable {
                        quote!(&mut *s.#name)
                    } else {
                        quote!(&*s.#name)
                    })
                }
                Source::Constant { .. } => None,
            })
            .collect();
        match &f[..] {
            [] => None,
            [one] => Some(one.clone()),
            many => Some(quote!((#(#many,)*))),
        }
    };
    let fill = (t == 0)
        .then(|| fields(&s.inputs, true))
        .flatten()
        .map(|f| quote!(input(#f);));
    let read = (t == s.last_step)
        .then(|| fields(&s.outputs, false))
        .flatten()
        .map(|f| quote!(output(#f);));
    let calls = ops.iter().map(|op| call(model, op, k, p));
    let comment = format!("step {t}");
    quote! {
        {
            #[doc = #comment]
            let (s, temp) = step.view();
            let _ = (&s, &temp);
            #fill
            #(#calls)*
            #read
        }
    }
}

/// The call of `op`'s kernel.
fn call(model: &Model, op: &Op, k: &TokenStream, p: &TokenStream) -> TokenStream {
    let kd = &KINDS[op.kind];
    let trait_name = Ident::new(kd.trait_name, Span::call_site());
    let method = Ident::new(kd.method, Span::call_site());
    let options = options(op, k);
    let args = kd.inputs.iter().zip(&op.inputs).map(|(&(_, optional), t)| {
        let value = match t {
            Some(t) => tensor_in(model, t, k, p),
            None => quote!(::core::option::Option::None),
        };
        match (optional, t) {
            (true, Some(_)) => quote!(::core::option::Option::Some(#value)),
            _ => value,
        }
    });
    let out = tensor_out(model, &op.output, k);
    quote! {
        #trait_name::#method(kernels, &#options, #(#args,)* #out, temp);
    }
}

fn shape(t: &TensorRef) -> TokenStream {
    let dims = t
        .shape
        .iter()
        .map(|&d| Literal::usize_unsuffixed(d as usize));
    quote!(&[#(#dims),*])
}

fn quant(t: &TensorRef) -> TokenStream {
    if t.quantization.is_some() {
        let q = quant_ident(t.index);
        quote!(::core::option::Option::Some(&#q))
    } else {
        quote!(::core::option::Option::None)
    }
}

fn tensor_in(model: &Model, t: &TensorRef, k: &TokenStream, p: &TokenStream) -> TokenStream {
    let (shape, quant) = (shape(t), quant(t));
    let data = match t.source {
        Source::Buffer(b) => {
            let f = field_ident(model, b);
            quote!(&s.#f[..])
        }
        Source::Constant { start, count } => {
            let e = elem(t);
            let (start, count) = (start as usize, count as usize);
            quote!(#p::constant::<#e>(&__MEMPLAN_CONSTANTS.0, #start, #count))
        }
    };
    quote!(#k::ops::In { data: #data, shape: #shape, quantization: #quant })
}

fn tensor_out(model: &Model, t: &TensorRef, k: &TokenStream) -> TokenStream {
    let (shape, quant) = (shape(t), quant(t));
    let data = match t.source {
        Source::Buffer(b) => {
            let f = field_ident(model, b);
            quote!(&mut s.#f[..])
        }
        // The lowering refuses a constant output.
        Source::Constant { .. } => quote!(&mut []),
    };
    quote!(#k::ops::Out { data: #data, shape: #shape, quantization: #quant })
}

fn padding(p: Padding, k: &TokenStream) -> TokenStream {
    match p {
        Padding::Same => quote!(#k::ops::Padding::Same),
        Padding::Valid => quote!(#k::ops::Padding::Valid),
    }
}

fn activation(a: Activation, k: &TokenStream) -> TokenStream {
    let v = Ident::new(
        match a {
            Activation::None => "None",
            Activation::Relu => "Relu",
            Activation::ReluN1To1 => "ReluN1To1",
            Activation::Relu6 => "Relu6",
            Activation::Tanh => "Tanh",
            Activation::SignBit => "SignBit",
        },
        Span::call_site(),
    );
    quote!(#k::ops::Activation::#v)
}

/// `op`'s options as the runtime's `ops` type of its kind.
fn options(op: &Op, k: &TokenStream) -> TokenStream {
    let (index, step) = (op.index, op.step);
    let at = quote!(#k::ops::At { index: #index, step: #step });
    let u = |v: i32| Literal::u32_unsuffixed(v.max(0) as u32);
    match &op.options {
        Options::Conv2D {
            padding: pd,
            stride_w,
            stride_h,
            dilation_w,
            dilation_h,
            activation: a,
        } => {
            let (pd, a) = (padding(*pd, k), activation(*a, k));
            let (sw, sh, dw, dh) = (u(*stride_w), u(*stride_h), u(*dilation_w), u(*dilation_h));
            quote!(#k::ops::Conv2d { at: #at, padding: #pd, stride_w: #sw, stride_h: #sh, dilation_w: #dw, dilation_h: #dh, activation: #a })
        }
        Options::DepthwiseConv2D {
            padding: pd,
            stride_w,
            stride_h,
            depth_multiplier,
            dilation_w,
            dilation_h,
            activation: a,
        } => {
            let (pd, a) = (padding(*pd, k), activation(*a, k));
            let (sw, sh, dm) = (u(*stride_w), u(*stride_h), u(*depth_multiplier));
            let (dw, dh) = (u(*dilation_w), u(*dilation_h));
            quote!(#k::ops::DepthwiseConv2d { at: #at, padding: #pd, stride_w: #sw, stride_h: #sh, depth_multiplier: #dm, dilation_w: #dw, dilation_h: #dh, activation: #a })
        }
        Options::Pool2D {
            padding: pd,
            stride_w,
            stride_h,
            filter_w,
            filter_h,
            activation: a,
        } => {
            let (pd, a) = (padding(*pd, k), activation(*a, k));
            let (sw, sh, fw, fh) = (u(*stride_w), u(*stride_h), u(*filter_w), u(*filter_h));
            quote!(#k::ops::Pool2d { at: #at, padding: #pd, stride_w: #sw, stride_h: #sh, filter_w: #fw, filter_h: #fh, activation: #a })
        }
        Options::Softmax { beta } => {
            let bits = Literal::u32_unsuffixed(beta.to_bits());
            quote!(#k::ops::Softmax { at: #at, beta: ::core::primitive::f32::from_bits(#bits) })
        }
        Options::FullyConnected {
            activation: a,
            keep_num_dims,
            ..
        } => {
            let a = activation(*a, k);
            quote!(#k::ops::FullyConnected { at: #at, activation: #a, keep_num_dims: #keep_num_dims })
        }
        Options::Add { activation: a, .. } => {
            let a = activation(*a, k);
            quote!(#k::ops::Add { at: #at, activation: #a })
        }
        // `RESHAPE` (with or without its options), and the kinds whose options carry
        // nothing the kernel needs.
        _ => quote!(#k::ops::Reshape { at: #at }),
    }
}
