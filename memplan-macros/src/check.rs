//! The analysis pass: from the syntax tree to a planning [`Problem`] plus everything the
//! code generator needs, checking every rule that does not need a plan (names, sizes,
//! alignments, lifetimes, plan files). All errors are collected.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memplan_planner::files::parse_executorch;
use memplan_planner::{
    Buffer, DEFAULT_REGION_ALIGN, Lifetime, MAX_ALIGN, Placement, Problem, Region, Strategy,
};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Ident, LitStr, Type, Visibility};

use crate::diag::{Errors, SpanRange};
use crate::names;
use crate::parse::{Elem, Input, Size, Stmt};

/// What the code generator needs: the checked input and the problem to plan.
#[derive(Clone)]
pub struct Model {
    pub attrs: Vec<Attribute>,
    pub inner_attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    /// Path of the runtime crate (`::memplan_runtime` unless `crate = ...`).
    pub krate: TokenStream,
    pub strategy: Strategy,
    pub regions: Vec<RegionInfo>,
    /// `[constant, runtime, temp]`: bytes and alignment.
    pub pools: [(u64, u64); 3],
    pub buffers: Vec<BufferInfo>,
    pub problem: Problem,
    /// Absolute paths of the plan files read, so that editing one rebuilds the crate.
    pub files: Vec<PathBuf>,
    /// Per buffer: whether an error was found in its declaration (or in its in-place
    /// source's). With errors, the planner still runs on the other buffers, so that its own
    /// errors (overflow, pins, in-place rules) arrive in the same build.
    pub excluded: Vec<bool>,
}

#[derive(Clone)]
pub struct RegionInfo {
    pub attrs: Vec<Attribute>,
    pub ident: Ident,
    pub type_ident: Ident,
    pub section: Option<LitStr>,
    /// The `RegionKind` variant.
    pub kind: Ident,
}

#[derive(Clone)]
pub struct BufferInfo {
    pub attrs: Vec<Attribute>,
    pub type_ident: Ident,
    /// Where errors about this buffer point.
    pub span: Span,
    pub size_span: SpanRange,
    pub pin_span: SpanRange,
    pub in_place_span: Span,
    /// The region's name when the buffer names one (`in REGION`), for messages.
    pub region_named: bool,
    /// The lifetime as written (`0..=2`, `3..5`), for messages.
    pub live_text: String,
    /// For buffers from a file: `file:line`, for messages.
    pub origin: Option<String>,
    pub elem: ElemInfo,
    /// False when the type name is taken already (an error is reported): the fallback
    /// expansion then skips the type, so the error does not cascade.
    pub emit: bool,
}

#[derive(Clone)]
pub enum ElemInfo {
    Bytes,
    Prim(Ident),
    /// A user type with its count and declared bytes and alignment.
    User {
        ty: Box<Type>,
        count: u64,
        count_span: Span,
        bytes: u64,
        align: u64,
    },
}

const RESERVED: &[&str] = &["Plan", "BUFFERS", "STRATEGY", "REPORT", "take"];

/// Checks `input`; records every error in `errors`. The model is returned even with
/// errors, so that the fallback expansion can still declare the types.
pub fn check(input: Input, base_dir: Option<&Path>, errors: &mut Errors) -> Model {
    let mut krate: Option<TokenStream> = None;
    let mut strategy = Strategy::default();
    let mut strategy_seen = false;
    let mut regions: Vec<RegionInfo> = Vec::new();
    let mut problem = Problem::default();
    let mut pools = [(0u64, 16u64); 3];
    let mut pools_seen = [false; 3];
    let mut buffers: Vec<BufferInfo> = Vec::new();
    let mut files = Vec::new();
    let mut region_by_name: HashMap<String, usize> = HashMap::new();
    let mut broken_regions: Vec<usize> = Vec::new();
    // Type names in use, with the span and description of their first user.
    let mut type_names: HashMap<String, (Span, String)> = HashMap::new();
    let mut claim = |errors: &mut Errors, tname: &str, span: Span, what: String| -> bool {
        if RESERVED.contains(&tname) {
            errors.at(span, format!("{what} would be named `{tname}`, which the generated module uses itself: rename it"));
            return false;
        }
        if let Some((_, prev)) = type_names.get(tname) {
            errors.at(
                span,
                format!("{prev} and {what} both get the Rust name `{tname}`: rename one"),
            );
            false
        } else {
            type_names.insert(tname.to_string(), (span, what));
            true
        }
    };

    // Regions first: buffers may name a region declared after them.
    for stmt in &input.stmts {
        if let Stmt::Broken { region: true, name } = stmt {
            // Declared, with no bytes; the parse error is reported, so nothing is planned.
            let tname = names::type_name(&name.to_string(), 'R');
            if region_by_name.contains_key(&name.to_string())
                || !claim(errors, &tname, name.span(), format!("region `{name}`"))
            {
                continue;
            }
            region_by_name.insert(name.to_string(), problem.regions.len());
            broken_regions.push(problem.regions.len());
            problem.regions.push(Region {
                name: name.to_string(),
                capacity: 0,
                align: DEFAULT_REGION_ALIGN,
            });
            regions.push(RegionInfo {
                attrs: Vec::new(),
                ident: name.clone(),
                type_ident: names::ident(&tname, name.span()),
                section: None,
                kind: Ident::new("Unspecified", name.span()),
            });
        }
        if let Stmt::Region(r) = stmt {
            let name = r.name.to_string();
            if let Some(&prev) = region_by_name.get(&name) {
                errors.at(
                    r.name.span(),
                    format!("region `{name}` is declared twice: rename or remove one"),
                );
                errors.at(
                    regions[prev].ident.span(),
                    format!("note: region `{name}` is first declared here"),
                );
                continue;
            }
            let capacity = size_bytes(&r.size, errors, &format!("region `{name}`"));
            let align = match r.align {
                Some((a, span)) => check_align(a, span, errors),
                None => DEFAULT_REGION_ALIGN,
            };
            if let Some(sec) = &r.section {
                check_section(sec, errors);
            }
            let tname = names::type_name(&name, 'R');
            if !claim(errors, &tname, r.name.span(), format!("region `{name}`")) {
                continue;
            }
            region_by_name.insert(name.clone(), problem.regions.len());
            problem.regions.push(Region {
                name,
                capacity,
                align,
            });
            regions.push(RegionInfo {
                attrs: r.attrs.clone(),
                ident: r.name.clone(),
                type_ident: names::ident(&tname, r.name.span()),
                section: r.section.clone(),
                kind: region_kind(r.kind.as_ref(), errors),
            });
        }
    }

    let mut buffer_by_name: HashMap<String, usize> = HashMap::new();
    // In-place sources to resolve once every buffer is known: (buffer, source ident).
    let mut in_place: Vec<(usize, Ident)> = Vec::new();
    let mut sizes_missing: Vec<usize> = Vec::new();
    let mut excluded: Vec<bool> = Vec::new();
    let mut pads: Vec<usize> = Vec::new();

    for stmt in input.stmts {
        match stmt {
            Stmt::Region(_) | Stmt::Broken { region: true, .. } => {}
            Stmt::Broken {
                region: false,
                name,
            } => {
                excluded.push(true);
                let tname = names::type_name(&name.to_string(), 'B');
                let emit = !buffer_by_name.contains_key(&name.to_string())
                    && claim(errors, &tname, name.span(), format!("buffer `{name}`"));
                buffer_by_name.insert(name.to_string(), problem.buffers.len());
                problem
                    .buffers
                    .push(Buffer::new(name.to_string(), 0, 0, 0, 0).anywhere());
                buffers.push(BufferInfo {
                    attrs: Vec::new(),
                    type_ident: names::ident(&tname, name.span()),
                    span: name.span(),
                    size_span: name.span().into(),
                    pin_span: name.span().into(),
                    in_place_span: name.span(),
                    region_named: false,
                    live_text: String::new(),
                    origin: None,
                    elem: ElemInfo::Bytes,
                    emit,
                });
            }
            Stmt::Crate(path) => {
                if krate.is_some() {
                    errors.at(
                        syn::spanned::Spanned::span(&path),
                        "`crate = ...` is given twice",
                    );
                }
                krate = Some(quote!(#path));
            }
            Stmt::Strategy(s) => {
                if strategy_seen {
                    errors.at(s.name.span(), "`strategy` is given twice");
                }
                strategy_seen = true;
                match crate::solve::strategy_from(&s.name.to_string(), s.nodes.map(|n| n.0)) {
                    Ok(st) => strategy = st,
                    Err(msg) => errors.at(s.name.span(), msg),
                }
            }
            Stmt::Pool(p) => {
                let k = match p.which.to_string().as_str() {
                    "constant" => 0,
                    "runtime" => 1,
                    _ => 2,
                };
                if pools_seen[k] {
                    errors.at(p.which.span(), format!("`{}` is given twice", p.which));
                }
                pools_seen[k] = true;
                let bytes = size_bytes(&p.size, errors, &format!("the `{}` pool", p.which));
                let align = match p.align {
                    Some((a, span)) => check_align(a, span, errors),
                    None => 16,
                };
                pools[k] = (bytes, align);
            }
            Stmt::Buffer(b) => {
                let errors_before = errors.len();
                let name = b.name.to_string();
                let index = problem.buffers.len();
                let tname = names::type_name(&name, 'B');
                let emit = if let Some(&prev) = buffer_by_name.get(&name) {
                    errors.at(
                        b.name.span(),
                        format!("buffer `{name}` is declared twice: rename or remove one"),
                    );
                    errors.at(
                        buffers[prev].span,
                        format!("note: buffer `{name}` is first declared here"),
                    );
                    false
                } else {
                    buffer_by_name.insert(name.clone(), index);
                    claim(errors, &tname, b.name.span(), format!("buffer `{name}`"))
                };
                let placement = placement_of(b.region.as_ref(), &region_by_name, errors);
                let mut align = b.align.map(|(a, span)| check_align(a, span, errors));
                let (size, size_span, elem) = match &b.size {
                    Some(s) => {
                        let bytes = size_bytes(s, errors, &format!("buffer `{name}`"));
                        let elem = match &s.elem {
                            Elem::Bytes => ElemInfo::Bytes,
                            Elem::Prim { ty, size, .. } => {
                                if align.is_none() {
                                    // The element's size, never less than the region's.
                                    let region_align = match placement {
                                        Placement::In(r) => problem.regions[r].align,
                                        Placement::Anywhere => problem
                                            .regions
                                            .iter()
                                            .map(|r| r.align)
                                            .max()
                                            .unwrap_or(DEFAULT_REGION_ALIGN),
                                    };
                                    align = Some((*size).max(region_align));
                                }
                                ElemInfo::Prim(ty.clone())
                            }
                            Elem::User {
                                ty,
                                count,
                                count_span,
                            } => match b.align {
                                Some((a, _)) => ElemInfo::User {
                                    ty: ty.clone(),
                                    count: *count,
                                    count_span: *count_span,
                                    bytes,
                                    align: a,
                                },
                                None => {
                                    errors.at(
                                        syn::spanned::Spanned::span(ty),
                                        format!("buffer `{name}`: state the alignment of `[{}; {count}]` with `align A`", quote!(#ty)),
                                    );
                                    ElemInfo::Bytes
                                }
                            },
                        };
                        (bytes, s.span, elem)
                    }
                    None => {
                        if b.in_place_of.is_none() {
                            errors.at(
                                b.name.span(),
                                format!("buffer `{name}` has no size: write `N bytes`, `N KiB` or `[T; N]` after the colon"),
                            );
                        } else {
                            sizes_missing.push(index);
                        }
                        (0, b.name.span().into(), ElemInfo::Bytes)
                    }
                };
                let lifetime = match &b.live {
                    Some(l) => match l.last {
                        Some(last) => Lifetime {
                            first: l.first,
                            last,
                        },
                        None => {
                            let hint = if l.text.contains("..=") {
                                "the last step comes before the first".to_string()
                            } else {
                                format!(
                                    "`..` excludes its end, so `{}` holds no step; for step {} alone write `{}..={}`",
                                    l.text, l.first, l.first, l.first
                                )
                            };
                            errors.at(
                                l.span,
                                format!(
                                    "buffer `{name}` has an empty lifetime `live {}`: {hint}",
                                    l.text
                                ),
                            );
                            Lifetime {
                                first: l.first,
                                last: l.first,
                            }
                        }
                    },
                    None => {
                        errors.at(b.name.span(), format!("buffer `{name}` has no lifetime: add `live FIRST..=LAST` (steps, inclusive)"));
                        Lifetime { first: 0, last: 0 }
                    }
                };
                if let Some((None, span)) = b.pin {
                    errors.at(span, "the pinned offset is more than 2^64 - 1 bytes");
                }
                if b.pad.is_some() {
                    pads.push(index);
                }
                if let Some(src) = &b.in_place_of {
                    in_place.push((index, src.clone()));
                }
                let in_place_span = b.in_place_of.as_ref().map_or(b.name.span(), |i| i.span());
                problem.buffers.push(Buffer {
                    name,
                    size,
                    align,
                    lifetime,
                    placement,
                    pin: b.pin.and_then(|p| p.0),
                    in_place_of: None,
                });
                buffers.push(BufferInfo {
                    attrs: b.attrs,
                    type_ident: names::ident(&tname, b.name.span()),
                    span: b.name.span(),
                    size_span,
                    pin_span: b.pin.map_or(b.name.span().into(), |p| p.1),
                    region_named: b.region.is_some(),
                    live_text: b.live.as_ref().map_or(String::new(), |l| l.text.clone()),
                    in_place_span,
                    origin: None,
                    elem,
                    emit,
                });
                excluded.push(errors.len() > errors_before);
            }
            Stmt::Buffers(f) => {
                let placement = placement_of(f.region.as_ref(), &region_by_name, errors);
                let Some(path) = resolve_file(&f.path, f.out_dir, base_dir, errors) else {
                    continue;
                };
                let shown = f.path.value();
                let text = match std::fs::read_to_string(&path) {
                    Ok(t) => t,
                    Err(e) => {
                        errors.at(
                            f.path.span(),
                            format!("cannot read plan file `{}`: {e}", path.display()),
                        );
                        continue;
                    }
                };
                files.push(path);
                let rows = match parse_executorch(&text, &shown) {
                    Ok(rows) => rows,
                    Err(e) => {
                        errors.at(f.path.span(), format!("plan file {e}"));
                        continue;
                    }
                };
                let taken: Vec<(u64, &str)> = rows
                    .iter()
                    .filter(|(_, r)| buffer_by_name.contains_key(&r.name))
                    .map(|(line, r)| (*line, r.name.as_str()))
                    .collect();
                if let Some((line, first)) = taken.first() {
                    let more = match taken.len() - 1 {
                        0 => String::new(),
                        1 => ", and 1 more row like it".to_string(),
                        n => format!(", and {n} more rows like it"),
                    };
                    errors.at(
                        f.path.span(),
                        format!("plan file {shown}:{line}: buffer `{first}` has the name of a buffer declared before it{more} (is the file read twice?)"),
                    );
                    continue;
                }
                for (line, row) in rows {
                    let what = format!("buffer `{}` ({shown}:{line})", row.name);
                    buffer_by_name.insert(row.name.clone(), problem.buffers.len());
                    let tname = names::type_name(&row.name, 'B');
                    let emit = claim(errors, &tname, f.path.span(), what.clone());
                    problem.buffers.push(Buffer {
                        name: row.name.clone(),
                        size: row.size,
                        align: None,
                        lifetime: row.lifetime(),
                        placement,
                        pin: None,
                        in_place_of: None,
                    });
                    buffers.push(BufferInfo {
                        attrs: Vec::new(),
                        type_ident: names::ident(&tname, f.path.span()),
                        span: f.path.span(),
                        size_span: f.path.span().into(),
                        pin_span: f.path.span().into(),
                        in_place_span: f.path.span(),
                        region_named: f.region.is_some(),
                        live_text: format!("{}..={}", row.first, row.last),
                        origin: Some(format!("{shown}:{line}")),
                        elem: ElemInfo::Bytes,
                        emit,
                    });
                    excluded.push(false);
                }
            }
        }
    }

    for i in pads {
        let b = &problem.buffers[i];
        let align = match (b.align, b.placement) {
            (Some(a), _) => a,
            (None, Placement::In(r)) => problem.regions[r].align,
            (None, Placement::Anywhere) => problem
                .regions
                .iter()
                .map(|r| r.align)
                .max()
                .unwrap_or(DEFAULT_REGION_ALIGN),
        };
        match memplan_planner::align_up(b.size, align) {
            Some(s) => problem.buffers[i].size = s,
            None => {
                excluded[i] = true;
                errors.at(
                    buffers[i].size_span,
                    format!("buffer `{}`: `pad` rounds {} bytes up to a multiple of its alignment ({align}), which is more than 2^64 - 1 bytes", b.name, b.size),
                )
            }
        }
    }
    for (i, src) in in_place {
        match buffer_by_name.get(&src.to_string()) {
            Some(&s) if s != i => {
                problem.buffers[i].in_place_of = Some(s);
            }
            Some(_) => {
                excluded[i] = true;
                errors.at(
                    src.span(),
                    format!("buffer `{src}` cannot be in place of itself"),
                )
            }
            None => {
                excluded[i] = true;
                errors.at(
                    src.span(),
                    format!("`in place of {src}`: there is no buffer `{src}`"),
                )
            }
        }
    }
    debug_assert_eq!(excluded.len(), problem.buffers.len());
    // A buffer in a region that did not parse, or in place of an excluded buffer, is
    // excluded too (its errors would be consequences, not news).
    for (i, b) in problem.buffers.iter().enumerate() {
        if let Placement::In(r) = b.placement
            && broken_regions.contains(&r)
        {
            excluded[i] = true;
        }
    }
    loop {
        let mut changed = false;
        for i in 0..problem.buffers.len() {
            if let Some(s) = problem.buffers[i].in_place_of
                && excluded[s]
                && !excluded[i]
            {
                excluded[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // A user element type written as a bare name would resolve, inside the generated
    // module, to a generated type of the same name: say so rather than fail obscurely.
    for (i, info) in buffers.iter().enumerate() {
        if let ElemInfo::User { ty, .. } = &info.elem
            && let Type::Path(p) = &**ty
            && p.qself.is_none()
            && let Some(id) = p.path.get_ident()
        {
            let n = id.to_string();
            if let Some((_, owner)) = type_names.get(&n) {
                errors.at(
                    id.span(),
                    format!(
                        "element type `{n}` of buffer `{}` has the name of the type generated for {owner}, which hides it inside the plan's module: write its path (`crate::...::{n}`) or rename the {}",
                        problem.buffers[i].name,
                        if owner.starts_with("region") { "region" } else { "buffer" }
                    ),
                );
            } else if n == "Plan" {
                errors.at(id.span(), "element type `Plan` is hidden by the plan's own `Plan` type: write its path (`crate::...::Plan`)");
            }
        }
    }
    // An in-place buffer without a size takes its source's, following the chain to the
    // first buffer that has one, whatever the declaration order. (The planner decides the
    // region: the one any member of the chain names.)
    for &i in &sizes_missing {
        let mut cur = i;
        for _ in 0..problem.buffers.len() {
            match problem.buffers[cur].in_place_of {
                Some(s) if sizes_missing.contains(&s) => cur = s,
                Some(s) => {
                    problem.buffers[i].size = problem.buffers[s].size;
                    break;
                }
                None => break,
            }
        }
    }
    if problem.regions.is_empty() {
        errors.at(
            input.name.span(),
            "the plan declares no region: add `region NAME: SIZE;`",
        );
    }

    Model {
        attrs: input.attrs,
        inner_attrs: input.inner_attrs,
        vis: input.vis,
        name: input.name,
        krate: krate.unwrap_or_else(|| quote!(::memplan_runtime)),
        strategy,
        regions,
        pools,
        buffers,
        problem,
        files,
        excluded,
    }
}

/// Where `in REGION` puts a buffer: the region, or, without `in`, anywhere. An unknown
/// name is reported (with the closest known one) and the buffer placed anywhere.
fn placement_of(
    region: Option<&Ident>,
    region_by_name: &HashMap<String, usize>,
    errors: &mut Errors,
) -> Placement {
    let Some(id) = region else {
        return Placement::Anywhere;
    };
    if let Some(&r) = region_by_name.get(&id.to_string()) {
        return Placement::In(r);
    }
    let mut known: Vec<&String> = region_by_name.keys().collect();
    known.sort_by_key(|k| region_by_name[*k]);
    let list = if known.is_empty() {
        "none is declared".to_string()
    } else {
        known
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let wanted = id.to_string();
    let close = known.iter().find(|k| edit_distance(k, &wanted) <= 2);
    let hint = close.map_or(String::new(), |k| format!(" (did you mean `{k}`?)"));
    errors.at(
        id.span(),
        format!("unknown region `{id}`{hint}; the regions are: {list}"),
    );
    Placement::Anywhere
}

/// The runtime's `RegionKind` variant for `kind NAME`.
fn region_kind(kind: Option<&Ident>, errors: &mut Errors) -> Ident {
    let Some(k) = kind else {
        return Ident::new("Unspecified", Span::call_site());
    };
    let variant = match k.to_string().as_str() {
        "tightly_coupled" => "TightlyCoupled",
        "dma" => "DmaCapable",
        "external" => "External",
        other => {
            errors.at(
                k.span(),
                format!(
                    "unknown region kind `{other}`: expected `tightly_coupled`, `dma` or `external`"
                ),
            );
            "Unspecified"
        }
    };
    Ident::new(variant, k.span())
}

/// The bytes of a size, reporting overflow (`u64::MAX` stands in so checks downstream fail).
fn size_bytes(size: &Size, errors: &mut Errors, what: &str) -> u64 {
    match size.bytes {
        Some(b) => b,
        None => {
            errors.at(
                size.span,
                format!(
                    "{what}: the size is more than 2^64 - 1 bytes, the most any plan can describe"
                ),
            );
            u64::MAX
        }
    }
}

fn check_align(a: u64, span: Span, errors: &mut Errors) -> u64 {
    if !a.is_power_of_two() {
        errors.at(span, format!("alignment {a} is not a power of two"));
        return 1;
    }
    if a > MAX_ALIGN {
        errors.at(
            span,
            format!("alignment {a} exceeds the largest supported alignment, {MAX_ALIGN} bytes"),
        );
        return 1;
    }
    a
}

/// A link section name: printable ASCII, no quotes, no spaces, at most 64 bytes; it names
/// a section of the object file and the linker script.
fn check_section(sec: &LitStr, errors: &mut Errors) {
    let s = sec.value();
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '-'));
    if !ok {
        errors.at(
            sec.span(),
            format!("invalid section name {s:?}: use 1 to 64 of the characters A-Z a-z 0-9 . _ $ - (for example \".sram1\")"),
        );
    }
}

/// Resolves a plan file's path: relative to the source file of the invocation (as
/// `include_str!` does), or inside `OUT_DIR`.
fn resolve_file(
    lit: &LitStr,
    out_dir: bool,
    base_dir: Option<&Path>,
    errors: &mut Errors,
) -> Option<PathBuf> {
    let rel = PathBuf::from(lit.value());
    let path = if out_dir {
        match std::env::var_os("OUT_DIR") {
            Some(d) => PathBuf::from(d).join(&rel),
            None => {
                errors.at(lit.span(), "`from out_dir`: OUT_DIR is not set; the crate needs a build script (build.rs) that writes the plan file");
                return None;
            }
        }
    } else if rel.is_absolute() {
        rel
    } else {
        match base_dir {
            Some(d) => d.join(&rel),
            None => {
                errors.at(lit.span(), "cannot tell which file this invocation is in, so a relative plan file path cannot be resolved: use `from out_dir` or an absolute path");
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
            errors.at(
                lit.span(),
                format!("plan file `{}` not found {place}: {e}", lit.value()),
            );
            None
        }
    }
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(row[j]).min(row[j + 1])
            };
            prev = cur;
        }
    }
    row[b.len()]
}
