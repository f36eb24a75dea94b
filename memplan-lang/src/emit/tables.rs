//! The const tables: the plan's `REGION_INFO` rows and `BUFFERS`.

use proc_macro2::TokenStream;
use quote::quote;

use super::resolve::Resolved;
use crate::lower::Model;

/// `RegionInfo::new(name, id, size, capacity, align, kind)` per region (`.uninit()` for a
/// region that says `uninit`).
pub(super) fn region_rows(model: &Model, resolved: &Resolved, p: &TokenStream) -> Vec<TokenStream> {
    let k = &super::rt();
    model
        .regions
        .iter()
        .zip(&resolved.regions)
        .enumerate()
        .map(|(r, (record, out))| {
            let rname = &record.region.name;
            let id = r as u32;
            let capacity = record.region.capacity;
            let (size, align) = (out.size, out.align);
            let kind = &record.kind;
            let uninit = record.uninit.then(|| quote!(.uninit()));
            quote!(#k::RegionInfo::new(#rname, #id, #p::to_usize(#size), #p::capacity(#capacity), #p::to_usize(#align), #k::RegionKind::#kind) #uninit)
        })
        .collect()
}

/// `BufferInfo::new(name, id, offset, size, first, last)` per buffer of the table.
pub(super) fn buffer_rows(model: &Model, resolved: &Resolved, p: &TokenStream) -> Vec<TokenStream> {
    let k = &super::rt();
    // The buffer in place of each one that starts at its last step (at most one: two would
    // be siblings live at a common step).
    let mut successor: Vec<Option<usize>> = vec![None; model.buffers.len()];
    for (c, r) in model.buffers.iter().enumerate() {
        if let Some(s) = r.buffer.in_place_of
            && model.buffers[s].buffer.lifetime.last == r.buffer.lifetime.first
        {
            successor[s] = Some(c);
        }
    }
    resolved
        .table
        .iter()
        .map(|&i| {
            let b = &model.buffers[i].buffer;
            let out = &resolved.buffers[i];
            let (n, id, off, size) = (&b.name, out.region as u32, out.offset, out.size);
            let (first, last) = (b.lifetime.first, b.lifetime.last);
            let source = b.in_place_of.map(|s| quote!(.in_place(#s)));
            let successor = successor[i].map(|c| quote!(.handed_over(#c)));
            quote!(#k::BufferInfo::new(#n, #id, #p::to_usize(#off), #p::to_usize(#size), #first, #last) #source #successor)
        })
        .collect()
}
