//! Const assertions for a buffer of a user element type, spanned on the type: `[T; N]`
//! fits the declared bytes and alignment on the actual target, and `T` is plain data.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::lower::{BufferRecord, ElemInfo};

pub(super) fn element(record: &BufferRecord, p: &TokenStream) -> TokenStream {
    let ElemInfo::User {
        ty,
        count,
        bytes,
        align,
    } = &record.elem
    else {
        return TokenStream::new();
    };
    let span = ty.span();
    let name = &record.buffer.name;
    let ty_text = quote!(#ty).to_string();
    let size_msg = format!(
        "memplan: `[{ty_text}; {count}]` of buffer `{name}` is larger than its declared {bytes} bytes on this target (the next error shows `declared - actual` bytes)"
    );
    let align_msg = format!(
        "memplan: the alignment of the element type of buffer `{name}` is above its declared `align {align}` on this target"
    );
    quote_spanned! {span=>
        const _: () = {
            ::core::assert!(#p::array_fits::<#ty>(#count, #bytes), #size_msg);
        };
        const _: ::core::primitive::usize = if #p::array_fits::<#ty>(#count, #bytes) {
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
