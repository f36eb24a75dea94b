//! `buffers [in REGION] from "FILE";`: every row of an ExecuTorch plan file becomes a
//! buffer.

use std::path::PathBuf;

use memplan_planner::Buffer;
use memplan_planner::files::parse_executorch;
use proc_macro2::Span;
use syn::{Ident, LitStr};

use super::context::Lowering;
use super::model::{BufferRecord, BufferSpans, Declared, ElemInfo};
use super::values::placement_of;
use crate::names;
use crate::parse::FileDecl;

pub(super) fn declare(cx: &mut Lowering<'_>, f: FileDecl) {
    let placement = placement_of(cx, f.region.as_ref());
    let Some(path) = resolve(cx, &f.path, f.out_dir) else {
        return;
    };
    let shown = f.path.value();
    let text = match memplan_planner::files::read_text(&path) {
        Ok(t) => t,
        Err(e) => {
            cx.diags.at(
                f.path.span(),
                format!("plan file `{}`: {e}", path.display()),
            );
            return;
        }
    };
    cx.model.files.push(path);
    let rows = match parse_executorch(&text, &shown) {
        Ok(rows) => rows,
        Err(e) => {
            cx.diags.at(f.path.span(), format!("plan file {e}"));
            return;
        }
    };
    let taken: Vec<(u64, &str)> = rows
        .iter()
        .filter(|(_, r)| cx.buffer_by_name.contains_key(&r.name))
        .map(|(line, r)| (*line, r.name.as_str()))
        .collect();
    if let Some((line, first)) = taken.first() {
        let more = match taken.len() - 1 {
            0 => String::new(),
            1 => ", and 1 more row like it".to_string(),
            n => format!(", and {n} more rows like it"),
        };
        cx.diags.at(
            f.path.span(),
            format!("plan file {shown}:{line}: buffer `{first}` has the name of a buffer declared before it{more} (is the file read twice?)"),
        );
        return;
    }
    let span = f.path.span();
    for (line, row) in rows {
        let what = format!("buffer `{}` ({shown}:{line})", row.name);
        cx.buffer_by_name
            .insert(row.name.clone(), cx.model.buffers.len());
        let tname = names::type_name(&row.name, 'B');
        let emit = cx.claim(&tname, span, what);
        let elem = element(&row.dtype, row.size, span);
        // As for a declared `[T; N]`: the element's size, never less than the region's (of
        // whichever region takes it).
        let min_align = elem.size().unwrap_or(1).max(1);
        cx.model.buffers.push(BufferRecord {
            attrs: Vec::new(),
            type_ident: names::ident(&tname, span),
            spans: BufferSpans::all_at(span),
            origin: Some(format!("{shown}:{line}")),
            live_text: format!("{}..={}", row.first, row.last),
            elem,
            buffer: Buffer {
                name: row.name.clone(),
                size: row.size,
                align: None,
                min_align,
                lifetime: row.lifetime(),
                placement,
                pin: None,
                in_place_of: None,
            },
            declared: Declared {
                size_given: true,
                ..Declared::default()
            },
            excluded: false,
            emit,
        });
    }
}

/// A row's element type from its `dtype` column: the plain-data primitive that torch's
/// dtype names (`float32` -> `f32`, `int8` -> `i8`, `int64` -> `i64`, ...), when the
/// row's bytes are a whole number of them; bytes otherwise (`bool`, `float16`, unknown
/// names, sizes that do not divide).
fn element(dtype: &str, size: u64, span: Span) -> ElemInfo {
    let (ty, bytes) = match dtype {
        "float32" => ("f32", 4),
        "float64" => ("f64", 8),
        "int8" => ("i8", 1),
        "uint8" => ("u8", 1),
        "int16" => ("i16", 2),
        "uint16" => ("u16", 2),
        "int32" => ("i32", 4),
        "uint32" => ("u32", 4),
        "int64" => ("i64", 8),
        "uint64" => ("u64", 8),
        _ => return ElemInfo::Bytes,
    };
    if !size.is_multiple_of(bytes) {
        return ElemInfo::Bytes;
    }
    ElemInfo::Prim {
        ty: Ident::new(ty, span),
        size: bytes,
    }
}

/// Resolves a plan file's path: relative to the source file of the invocation (as
/// `include_str!` does), or inside `OUT_DIR`.
fn resolve(cx: &mut Lowering<'_>, lit: &LitStr, out_dir: bool) -> Option<PathBuf> {
    let rel = PathBuf::from(lit.value());
    let path = if out_dir {
        match &cx.env.out_dir {
            Some(d) => d.join(&rel),
            None => {
                cx.diags.at(lit.span(), "`from out_dir`: OUT_DIR is not set; the crate needs a build script (build.rs) that writes the plan file");
                return None;
            }
        }
    } else if rel.is_absolute() {
        rel
    } else {
        match &cx.env.base_dir {
            Some(d) => d.join(&rel),
            None => {
                cx.diags.at(lit.span(), "cannot tell which file this invocation is in, so a relative plan file path cannot be resolved: use `from out_dir` or an absolute path");
                return None;
            }
        }
    };
    match path.canonicalize() {
        Ok(p) => Some(p),
        Err(e) => {
            let place = if out_dir {
                "in OUT_DIR"
            } else {
                "next to the source file of this invocation"
            };
            cx.diags.at(
                lit.span(),
                format!("plan file `{}` not found {place}: {e}", lit.value()),
            );
            None
        }
    }
}
