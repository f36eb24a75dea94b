//! `buffers [in REGION] from "FILE";`: every row of a plan file, or every planned tensor of
//! a model (`.tflite`, `.pte`: told apart by content, read as the runtime plans it,
//! [`memplan_planner::files::read_any`]), becomes a buffer, typed by its element type where
//! the file gives a primitive one.

use std::collections::HashMap;
use std::path::PathBuf;

use memplan_planner::Buffer;
use memplan_planner::files::{FileBuffer, ModelFormat, Primitive, Role, detect_model, parse_bytes};
use proc_macro2::Span;
use syn::{Ident, LitStr};

use super::context::Lowering;
use super::model::{
    BufferRecord, BufferSpans, Cause, Declared, ElemInfo, ModelSchedule, SourceFile, Standing,
};
use super::schedule::KINDS;
use super::values::{Reported, placement_of};
use crate::names;
use crate::parse::FileDecl;

/// Declares the buffers of `f`; with `schedule` (a `model` statement), also the model's
/// schedule, which must be a `.tflite` model's.
pub(super) fn declare(cx: &mut Lowering<'_>, f: FileDecl, schedule: bool) {
    // An unknown region is reported; the rows keep their names and types but are left out
    // of the plan (placed anywhere, they could fill another region and report it full).
    let (placement, placed) = match placement_of(cx, f.region.as_ref()) {
        Ok(p) => (p, true),
        Err(Reported(anywhere)) => (anywhere, false),
    };
    let shown = f.path.value();
    // What the messages call the file: a `model` statement reads a model, `buffers from`
    // a model or a plan file (told apart by content once read; by its name before).
    let what = if schedule || is_model_name(&shown) {
        "model file"
    } else {
        "plan file"
    };
    let Some(path) = resolve(cx, &f.path, f.out_dir, what) else {
        return;
    };
    let bytes = match memplan_planner::files::read_bounded(&path) {
        Ok(b) => b,
        Err(e) => {
            cx.diags
                .at(f.path.span(), format!("{what} `{}`: {e}", path.display()));
            return;
        }
    };
    cx.model.files.push(path.clone());
    cx.model.sources.push(SourceFile::of(&shown, &bytes));
    if schedule {
        let model = if detect_model(&bytes) == Some(ModelFormat::Tflite) {
            // Each faulty tensor and operator its own error (the first few, then how many
            // more).
            memplan_planner::files::tflite::read(&bytes, &shown).map_err(|e| {
                e.lines()
                    .into_iter()
                    .map(|line| format!("model {line}"))
                    .collect::<Vec<_>>()
            })
        } else {
            Err(vec![not_tflite(&shown, &bytes)])
        };
        match model {
            Ok(model) if cx.model.schedule.is_none() => {
                cx.model.schedule = Some(ModelSchedule {
                    bytes: bytes.clone(),
                    shown: shown.clone(),
                    span: f.path.span(),
                    model,
                    first_buffer: cx.model.buffers.len(),
                });
            }
            Ok(_) => {
                cx.diags.at(
                    f.path.span(),
                    "a second `model` statement: a plan runs one model's schedule (plan the other's tensors with `buffers from`)",
                );
                // Its tensors are not declared: read twice, they would be reported again.
                return;
            }
            Err(lines) => {
                for line in lines {
                    cx.diags.at(f.path.span(), line);
                }
                return;
            }
        }
    }
    let file = match parse_bytes(&bytes, &shown) {
        // A model's kernel scratch is not a buffer here: a memory_plan! gives kernels the
        // temp pool.
        Ok(mut file) => {
            file.buffers.retain(|b| b.role != Role::Scratch);
            file
        }
        Err(e) => {
            // Each faulty row, entry, tensor or operator its own error (the first few, then
            // how many more).
            let what = if detect_model(&bytes).is_some() {
                "model"
            } else {
                "plan file"
            };
            for line in e.lines() {
                cx.diags.at(f.path.span(), format!("{what} {line}"));
            }
            return;
        }
    };
    let taken: Vec<&FileBuffer> = file
        .buffers
        .iter()
        .filter(|b| cx.buffer_by_name.contains_key(&b.name))
        .collect();
    if let Some(first) = taken.first() {
        let more = match taken.len() - 1 {
            0 => String::new(),
            1 => ", and 1 more row like it".to_string(),
            n => format!(", and {n} more rows like it"),
        };
        cx.diags.at(
            f.path.span(),
            format!(
                "plan file {}: buffer `{}` has the name of a buffer declared before it{more} (is the file read twice?)",
                first.place(&shown),
                first.name
            ),
        );
        return;
    }
    let span = f.path.span();
    // A model's tensors are named by the file, which the user may not be able to change:
    // one whose Rust name is taken gets a suffix instead of an error.
    let from_model = detect_model(&bytes).is_some();
    let mut suffixes: HashMap<String, u32> = HashMap::new();
    for mut b in file.buffers {
        if from_model {
            b.name = free_name(cx, &b.name, &mut suffixes);
        }
        let place = b.place(&shown);
        let what = format!("buffer `{}` ({place})", b.name);
        cx.buffer_by_name
            .insert(b.name.clone(), cx.model.buffers.len());
        let tname = names::type_name(&b.name, 'B');
        let mut standing = if cx.claim(&tname, span, what) {
            Standing::Planned
        } else {
            Standing::RowNameTaken
        };
        if !placed {
            standing = match standing {
                Standing::Planned => Standing::Excluded(Cause::Statement),
                _ => Standing::NameTaken,
            };
        }
        let elem = element(b.element, span);
        // As for a declared `[T; N]`: the element's size, never less than the region's (of
        // whichever region takes it).
        let min_align = elem.size().unwrap_or(1).max(1);
        let lifetime = b.lifetime;
        cx.model.buffers.push(BufferRecord {
            attrs: Vec::new(),
            type_ident: names::ident(&tname, span),
            spans: BufferSpans::all_at(span),
            origin: Some(place),
            live_text: format!("{}..={}", lifetime.first, lifetime.last),
            elem,
            buffer: Buffer {
                name: b.name,
                size: b.size,
                align: None,
                min_align,
                lifetime,
                placement,
                pin: None,
                in_place_of: None,
            },
            declared: Declared {
                size_given: true,
                ..Declared::default()
            },
            standing,
        });
    }
}

/// The name a model's tensor `name` is declared with: `name` itself when it is free (no
/// buffer has it, and its type name is no other buffer's or region's, none the generated
/// module declares itself: `Plan`, `BUFFERS`, `STRATEGY`, `REPORT`, `take`, a step view
/// `AtStepN`, a `model` statement's kernel trait), else the first free of `name#2`,
/// `name#3`, ... (`name#b2`, ... for a name whose type name is a step view's, which digits
/// after it do not change; `next` keeps where each name's search is, so that many tensors
/// of one name take linear time).
fn free_name(cx: &Lowering<'_>, name: &str, next: &mut HashMap<String, u32>) -> String {
    let free = |candidate: &str| {
        let tname = names::type_name(candidate, 'B');
        !cx.buffer_by_name.contains_key(candidate)
            && cx.type_name_free(&tname)
            && !is_view(&tname)
            && !KINDS.iter().any(|k| k.trait_name == tname)
    };
    if !next.contains_key(name) && free(name) {
        next.insert(name.to_string(), 2);
        return name.to_string();
    }
    // Digits after a step view's name keep it one (`at_step_1#2` is `AtStep12`).
    let letter = if is_view(&names::type_name(name, 'B')) {
        "b"
    } else {
        ""
    };
    let k = next.entry(name.to_string()).or_insert(2);
    loop {
        let candidate = format!("{name}#{letter}{k}");
        *k += 1;
        if free(&candidate) {
            return candidate;
        }
    }
}

/// Whether `tname` is the type of a generated step view: `AtStep` and digits.
fn is_view(tname: &str) -> bool {
    tname
        .strip_prefix("AtStep")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// A buffer's element type: the primitive its file names (already checked to divide its
/// bytes), bytes otherwise.
fn element(primitive: Option<Primitive>, span: Span) -> ElemInfo {
    match primitive {
        Some(p) => ElemInfo::Prim {
            ty: Ident::new(p.rust_name(), span),
            size: p.size(),
        },
        None => ElemInfo::Bytes,
    }
}

/// Resolves a plan file's path: relative to the source file of the invocation (as
/// `include_str!` does), or inside `OUT_DIR`.
/// Whether `name` is a model's by its extension (`.tflite`, `.pte`).
fn is_model_name(name: &str) -> bool {
    let ext = std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    matches!(ext.as_deref(), Some("tflite" | "pte"))
}

fn resolve(cx: &mut Lowering<'_>, lit: &LitStr, out_dir: bool, what: &str) -> Option<PathBuf> {
    let rel = PathBuf::from(lit.value());
    let absolute = rel.is_absolute();
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
                cx.diags.at(lit.span(), format!("cannot tell which file this invocation is in, so a relative {what} path cannot be resolved: use `from out_dir` or an absolute path"));
                return None;
            }
        }
    };
    match path.canonicalize() {
        Ok(p) => Some(p),
        Err(e) => {
            let place = if out_dir {
                " in OUT_DIR"
            } else if absolute {
                ""
            } else {
                " next to the source file of this invocation"
            };
            cx.diags.at(
                lit.span(),
                format!("{what} `{}` not found{place}: {e}", lit.value()),
            );
            None
        }
    }
}

/// Why a `model` statement cannot run `bytes` (not a `.tflite` model), saying what the file
/// is: a `.pte` program, or something without TFLite's file identifier `TFL3` at byte 4.
fn not_tflite(shown: &str, bytes: &[u8]) -> String {
    const WHAT: &str = "a `model` statement runs a .tflite model's schedule";
    match (detect_model(bytes), bytes.get(4..8)) {
        (Some(ModelFormat::Pte), _) => format!(
            "model `{shown}` is a .pte program: {WHAT}; plan a program's buffers with `buffers from`"
        ),
        (_, Some(id)) => format!(
            "model `{shown}` is not a .tflite model: bytes 4 to 7 are `{}`, not TFLite's file identifier `TFL3` ({WHAT}; for a plan file, plan its buffers with `buffers from`)",
            id.escape_ascii()
        ),
        (_, None) => format!(
            "model `{shown}` is not a .tflite model: {} bytes, fewer than a flatbuffer's 8-byte header ({WHAT})",
            bytes.len()
        ),
    }
}
