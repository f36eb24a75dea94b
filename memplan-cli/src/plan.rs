//! `memplan plan FILE`: plan a plan file (or every `memory_plan!` invocation of a `.rs`
//! file) and report, per region, capacity, planned bytes, lower bound, their ratio and the
//! waste, the peak step and the largest buffers live there, the alignment padding, whether
//! the plan is proven optimal and the search nodes used; as text, or as one JSON object
//! (memplan-cli/JSON.md).

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args as ClapArgs;
use serde::Serialize;

use crate::input::{self, Loaded};
use crate::options::{Offsets, OutputFormat, ProblemArgs};
use crate::planned::Planned;
use crate::progress;
use crate::words::{self, bytes, count};
use memplan_planner::files::{Format, ModelFile, ModelFormat, Role, read_model, write_model_plan};

use crate::stats::{self, RegionStats};

/// The widest the name column of the peak's buffers gets, in characters.
const NAME_COLUMN: usize = 60;

/// Plan FILE and report each region's figures.
///
/// FILE is a plan file or a model, told apart by its content (ExecuTorch CSV, MiniMalloc
/// CSV, a placed CSV `name,offset,size,first,last`, memplan's JSON, a TensorFlow Lite
/// `.tflite` model or an ExecuTorch `.pte` program), or, by its `.rs` extension, a Rust
/// source file whose memory_plan! invocations are planned as the macro plans them. A CSV
/// file or a model is one region, unbounded unless --capacity; a CSV is aligned to 16
/// (ExecuTorch, placed) or 1 (MiniMalloc) unless --align.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The plan file, model (.tflite, .pte) or Rust source file.
    pub file: PathBuf,
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Where the offsets come from.
    #[arg(long, value_enum, default_value_t)]
    pub offsets: Offsets,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
    /// How many of the buffers live at the peak step to list, largest first (0: none, the
    /// peak line alone). Default: every one.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// For a model (.tflite, .pte): also write a copy of it with memplan's plan in the
    /// runtime's own format (TFLite Micro's OfflineMemoryAllocation metadata, ExecuTorch's
    /// allocation_info and non_const_buffer_sizes), everything else kept.
    #[arg(long, value_name = "OUT")]
    pub write: Option<PathBuf>,
}

/// Runs `memplan plan`.
pub fn run(args: Args) -> Result<bool, String> {
    let json = args.format == OutputFormat::Json;
    let Some(loaded) = input::load(&args.file, &args.problem, args.offsets, progress::wanted(json))?
    else {
        return Ok(false);
    };
    let top = args.top.unwrap_or(usize::MAX);
    if json {
        let out = serde_json::to_string_pretty(&json_report(&loaded, top))
            .map_err(|e| format!("cannot write JSON: {e}"))?;
        println!("{out}");
    } else {
        print!("{}", text(&loaded, top));
        if let [p] = &loaded.plans[..]
            && !p.given
            && loaded.file.as_ref().is_some_and(|f| f.format == Format::Tflite)
        {
            let (_, model) = read_model(&args.file).map_err(|e| crate::diagnostic::file_error(&e))?;
            print!("{}", crate::tflm::report(&model, &tensor_offsets(&args.file, &model, p)?)?);
        }
    }
    if let Some(out) = &args.write {
        let said = write_back(&args.file, &loaded, out)?;
        if json {
            eprintln!("{said}");
        } else {
            println!("{said}");
        }
    }
    Ok(true)
}

/// Writes the model `path` (planned as `loaded`) back to `out` with memplan's offsets,
/// and says what it wrote.
fn write_back(path: &std::path::Path, loaded: &Loaded, out: &std::path::Path) -> Result<String, String> {
    let is_model = loaded
        .file
        .as_ref()
        .is_some_and(|f| matches!(f.format, Format::Tflite | Format::Pte));
    let [p] = &loaded.plans[..] else {
        return Err("--write writes a model: give a .tflite or .pte file".to_string());
    };
    if !is_model || p.given {
        return Err(format!(
            "{}: --write writes a model (.tflite, .pte) planned by memplan (not with --offsets file)",
            path.display()
        ));
    }
    if p.plan.regions.len() != 1 {
        return Err("--write: a model's runtime plans one arena; give at most one --region".to_string());
    }
    check_output(loaded, out)?;
    let (bytes, model) = read_model(path).map_err(|e| crate::diagnostic::file_error(&e))?;
    let mut offsets = tensor_offsets(path, &model, p)?;
    let mut arena = p.plan.regions[0].planned_bytes;
    let mut said = format!("at memplan's offsets in an arena of {}", words::bytes(arena));
    // A program's own plan, in the runtime's units: what it asks the runtime for.
    let its = if model.format == ModelFormat::Pte {
        ", its non_const_buffer_sizes"
    } else {
        ""
    };
    if model.format == ModelFormat::Tflite {
        let chosen = crate::tflm::choose(&model, &offsets)?;
        said = chosen.said;
        offsets = chosen.offsets;
        arena = chosen.head;
    } else if let (Some(own), Some(file)) = (p.file_bytes, &loaded.file)
        && arena > own
    {
        // A plan larger than the one the file has is not written: the file's own is kept.
        let (found, _) = crate::check::findings(file, Some(&model), None, model.align)?;
        if !found.lines.is_empty() {
            return Err(format!(
                "--write {}: memplan's plan needs {}, more than the file's own plan ({}{its}), and the file's own plan has {} (`memplan check {}`): nothing written",
                out.display(),
                words::bytes(arena),
                words::bytes(own),
                count(found.lines.len(), "finding"),
                path.display()
            ));
        }
        crate::output::write(out, &bytes)?;
        return Ok(format!(
            "wrote {}: the file's own plan, unchanged ({}{its}): memplan's plan needs {}, more, so it is not written",
            out.display(),
            words::bytes(own),
            words::bytes(arena)
        ));
    }
    let written = write_model_plan(&bytes, &model, &offsets, arena).map_err(|e| e.to_string())?;
    crate::output::write(out, &written)?;
    let kept = if loaded.persistent.is_empty() {
        String::new()
    } else {
        format!(
            "; {} ({}) left to TFLite Micro's persistent section (offline entry -1), where its state is kept between invocations",
            count(loaded.persistent.len(), "variable tensor"),
            words::bytes(loaded.persistent.iter().map(|(_, b)| b).sum::<u64>())
        )
    };
    let planned_tensors: Vec<Vec<usize>> = model
        .buffer_tensors()
        .into_iter()
        .filter(|m| {
            model.format != ModelFormat::Tflite || !m.iter().any(|&t| model.tensors[t].persistent)
        })
        .collect();
    Ok(format!(
        "wrote {}: {} {said}{}{kept}",
        out.display(),
        tensors_in_buffers(&planned_tensors),
        p.file_bytes
            .map_or(String::new(), |b| format!(" (the file's own plan: {}{its})", words::bytes(b)))
    ))
}

/// The offset of each tensor buffer of `model` (read from `path`) in the plan `p` made of
/// it: the plan's buffers are the model's plan file's, in order, less those its runtime
/// keeps outside the plan (a .tflite model's variable tensors, `None` here:
/// `input::outside_the_plan`); the kernels' scratch buffers come last, and no file gives
/// them an offset.
fn tensor_offsets(path: &std::path::Path, model: &ModelFile, p: &Planned) -> Result<Vec<Option<u64>>, String> {
    let mut planned = p.plan.buffers.iter().map(|b| b.offset);
    let mut offsets: Vec<Option<u64>> = Vec::new();
    let mut scratch = 0;
    for b in &model.plan_file().buffers {
        match b.role {
            // TFLite Micro keeps a variable tensor outside its plan; an ExecuTorch program's
            // state is planned like any tensor.
            Role::Persistent if model.format == ModelFormat::Tflite => offsets.push(None),
            Role::Tensor | Role::Persistent => offsets.push(planned.next()),
            Role::Scratch => {
                planned.next();
                scratch += 1;
            }
        }
    }
    if planned.next().is_some() || offsets.iter().flatten().count() + scratch != p.plan.buffers.len() {
        return Err(format!("{}: the plan's buffers are not the model's", path.display()));
    }
    Ok(offsets)
}

/// Refuses an output for `--write` that is a file read (the model: memplan writes a copy
/// and keeps the model it was given), or whose name says the other format (a `.pte`
/// program named `.tflite`, or the other way: its runtime would refuse it).
fn check_output(loaded: &Loaded, out: &std::path::Path) -> Result<(), String> {
    crate::output::not_an_input("--write", out, &loaded.read, &[])?;
    let format = loaded.file.as_ref().map(|f| f.format);
    let named = out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let (is, other) = match format {
        Some(Format::Tflite) => ("a .tflite model", "pte"),
        Some(Format::Pte) => ("a .pte program", "tflite"),
        _ => return Ok(()),
    };
    if named.as_deref() == Some(other) {
        return Err(format!(
            "--write {}: the input is {is}, which a file named .{other} would misname; name it .{}",
            out.display(),
            if other == "pte" { "tflite" } else { "pte" }
        ));
    }
    Ok(())
}

/// The planned tensors of a model written with `--write`, as buffers: `5 tensors`, one
/// buffer each, or `70 tensors in 50 buffers (32 tensors in 12 groups that the file puts
/// on the same bytes, one buffer a group)`.
fn tensors_in_buffers(buffers: &[Vec<usize>]) -> String {
    let tensors: usize = buffers.iter().map(Vec::len).sum();
    let groups: Vec<usize> = buffers.iter().map(Vec::len).filter(|&n| n > 1).collect();
    if groups.is_empty() {
        return count(tensors, "tensor");
    }
    format!(
        "{} in {} ({} in {} that the file puts on the same bytes, one buffer a group)",
        count(tensors, "tensor"),
        count(buffers.len(), "buffer"),
        count(groups.iter().sum(), "tensor"),
        count(groups.len(), "group"),
    )
}

/// The strategy as a report says it: `optimal(nodes = 38000)`, or that the offsets are the
/// file's.
fn strategy(p: &Planned) -> String {
    if p.given {
        "none: the file's own offsets".to_string()
    } else {
        p.plan.strategy.to_string()
    }
}

fn bytes_or_unbounded(p: &Planned, r: usize) -> String {
    if p.unbounded(r) {
        "unbounded".to_string()
    } else {
        bytes(p.problem.regions[r].capacity)
    }
}

/// The text report of every plan of `loaded`.
pub fn text(loaded: &Loaded, top: usize) -> String {
    let mut s = String::new();
    for p in &loaded.plans {
        let _ = writeln!(
            s,
            "memory plan `{}` from {}, strategy {}",
            p.title,
            loaded.describe,
            strategy(p)
        );
        let pte = loaded.file.as_ref().is_some_and(|f| f.format == Format::Pte);
        for r in 0..p.problem.regions.len() {
            region_text(&mut s, p, r, &stats::region(p, r), top, pte);
        }
        pools_text(&mut s, p);
    }
    persistent_text(&mut s, &loaded.persistent);
    s
}

/// A `.tflite` model's variable tensors, which TensorFlow Lite Micro keeps in its
/// persistent section, outside the planned one (`input::outside_the_plan`).
fn persistent_text(s: &mut String, persistent: &[(String, u64)]) {
    if persistent.is_empty() {
        return;
    }
    let total: u64 = persistent.iter().map(|(_, b)| b).sum();
    let _ = writeln!(
        s,
        "
not planned: {} of {} kept between invocations in TFLite Micro's persistent section (its tail), outside the arena above",
        count(persistent.len(), "variable tensor"),
        bytes(total)
    );
    for (name, b) in persistent {
        let _ = writeln!(s, "  {name:<16} {}", bytes(*b));
    }
}

/// The manager's bump pools, for a plan that has them (a `memory_plan!` invocation's).
fn pools_text(s: &mut String, p: &Planned) {
    if p.pools.is_empty() {
        return;
    }
    let _ = writeln!(s, "\npools (the manager's bump allocators, statics outside every region)");
    for pool in &p.pools {
        let memory = pool
            .memory
            .as_ref()
            .map_or(String::new(), |m| format!(", in memory {m}"));
        let _ = writeln!(
            s,
            "  {:<16} {} (aligned to {}{memory})",
            pool.name, bytes(pool.bytes), pool.align
        );
    }
}

/// One region's rows; `pte`: the plan is a `.pte` program's, whose own plan is the
/// buffers it asks the runtime for.
fn region_text(s: &mut String, p: &Planned, r: usize, st: &RegionStats, top: usize, pte: bool) {
    let rp = &p.plan.regions[r];
    let ratio = st.ratio.map_or("-".to_string(), |x| format!("{x:.4}"));
    let _ = writeln!(s, "\nregion `{}` (memory id {})", p.problem.regions[r].name, p.ids[r]);
    let rows = [
        ("capacity", bytes_or_unbounded(p, r)),
        ("planned", bytes(rp.planned_bytes)),
        ("lower bound", format!("{} (the most bytes live at one step)", bytes(rp.lower_bound))),
        ("planned / bound", format!("{ratio} (waste {})", bytes(st.waste))),
        ("alignment", bytes(rp.align)),
        ("padding", format!("{} (kept empty below buffers by their alignment)", bytes(st.padding))),
        ("proven optimal", if rp.proven_optimal { "yes" } else { "no" }.to_string()),
        ("search nodes", match (p.given, p.plan.strategy.nodes()) {
            (false, Some(budget)) => format!("{} (budget {budget})", rp.search_nodes),
            _ => rp.search_nodes.to_string(),
        }),
        ("buffers", st.members.len().to_string()),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "  {k:<16} {v}");
    }
    if let Some(fb) = p.file_bytes {
        let x = (rp.lower_bound > 0).then(|| format!("{:.4} x the bound", fb as f64 / rp.lower_bound as f64));
        if pte {
            let x = x.map_or(String::new(), |x| format!(", {x}"));
            let _ = writeln!(s, "  {:<16} {} (non_const_buffer_sizes{x})", "file's own plan", bytes(fb));
        } else {
            let x = x.map_or(String::new(), |x| format!(" ({x})"));
            let _ = writeln!(s, "  {:<16} {}{x}", "file's offsets", bytes(fb));
        }
    }
    let Some(step) = rp.peak_step else {
        let _ = writeln!(s, "  {:<16} none: no bytes are live", "peak");
        return;
    };
    let shown = &st.at_peak[..top.min(st.at_peak.len())];
    let live = format!(
        "step {step}: {} in {}",
        bytes(rp.lower_bound),
        count(st.at_peak.len(), "live buffer")
    );
    if shown.is_empty() {
        // `--top 0`: the peak without its list.
        let _ = writeln!(s, "  {:<16} {live}", "peak");
        return;
    }
    let _ = writeln!(
        s,
        "  {:<16} {live}; {}:",
        "peak",
        if shown.len() < st.at_peak.len() {
            format!("the largest {}", shown.len())
        } else {
            "largest first".to_string()
        }
    );
    // Names longer than the column are printed whole, past it (a width over 65535 is not
    // a width `format!` takes).
    let width = shown
        .iter()
        .map(|&i| p.problem.buffers[i].name.len())
        .max()
        .unwrap_or(0)
        .min(NAME_COLUMN);
    for &i in shown {
        let b = &p.problem.buffers[i];
        let _ = writeln!(
            s,
            "    {:<width$}  {:>12} bytes  at {:>12}  live {}..={}",
            b.name, b.size, p.plan.buffers[i].offset, b.lifetime.first, b.lifetime.last
        );
    }
    if st.at_peak.len() > shown.len() {
        let _ = writeln!(s, "    and {} more", st.at_peak.len() - shown.len());
    }
}

/// `memplan plan --format json`: memplan-cli/JSON.md describes every field.
#[derive(Serialize)]
pub struct JsonReport {
    /// The report's version.
    pub version: u32,
    /// FILE, as given.
    pub file: String,
    /// `executorch`, `minimalloc`, `placed`, `json` or `rust`.
    pub format: &'static str,
    /// One per plan.
    pub plans: Vec<JsonPlanReport>,
}

/// One plan of [`JsonReport`].
#[derive(Serialize)]
pub struct JsonPlanReport {
    /// The plan's name.
    pub name: String,
    /// The strategy as memory_plan! writes it, or `null` for the file's own offsets.
    pub strategy: Option<String>,
    /// The plan as a JSON plan file with every offset (readable by the other commands).
    pub plan: memplan_planner::files::json::JsonPlan,
    /// One per region, in memory-id order.
    pub regions: Vec<JsonRegionReport>,
    /// The manager's bump pools (`constant`, `runtime`, `temp`) of a `memory_plan!`
    /// invocation; empty for a plan file.
    pub pools: Vec<JsonPool>,
}

/// One of the manager's bump pools.
#[derive(Serialize)]
pub struct JsonPool {
    /// `constant`, `runtime` or `temp`.
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// The alignment of its base.
    pub align: u64,
    /// The MEMORY region it is placed in; `null`: `.bss`.
    pub memory: Option<String>,
}

/// One region of [`JsonPlanReport`].
#[derive(Serialize)]
pub struct JsonRegionReport {
    /// The region's name.
    pub name: String,
    /// Its memory id.
    pub memory_id: u64,
    /// Bytes available; `null`: unbounded.
    pub capacity: Option<u64>,
    /// Bytes the plan uses: the largest offset + size.
    pub planned_bytes: u64,
    /// The most bytes live at one step.
    pub lower_bound: u64,
    /// planned_bytes / lower_bound; `null` when the bound is 0.
    pub ratio: Option<f64>,
    /// planned_bytes - lower_bound.
    pub waste_bytes: u64,
    /// The arena's alignment: the largest of the region's and its buffers'.
    pub align: u64,
    /// Alignment padding, in bytes.
    pub padding_bytes: u64,
    /// The first step at which lower_bound bytes are live; `null` when none are.
    pub peak_step: Option<u32>,
    /// The buffers live at the peak step, largest first (all, or at most --top).
    pub peak_buffers: Vec<JsonPeakBuffer>,
    /// How many buffers are live at the peak step.
    pub peak_buffer_count: usize,
    /// Whether planned_bytes is proven the fewest possible.
    pub proven_optimal: bool,
    /// Search nodes used.
    pub search_nodes: u64,
    /// The strategy's node budget (`optimal` only).
    pub node_budget: Option<u64>,
    /// The region's buffers.
    pub buffers: usize,
    /// The bytes of the file's own plan, when memplan planned a file that has one: the
    /// largest offset + size; a `.pte` program's `non_const_buffer_sizes`.
    pub file_bytes: Option<u64>,
}

/// A buffer live at the peak step.
#[derive(Serialize)]
pub struct JsonPeakBuffer {
    /// Its name.
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// Its offset.
    pub offset: u64,
    /// First step live.
    pub first: u32,
    /// Last step live (inclusive).
    pub last: u32,
}

fn json_report(loaded: &Loaded, top: usize) -> JsonReport {
    let format = match &loaded.file {
        None => "rust",
        Some(f) => match f.format {
            memplan_planner::files::Format::Executorch => "executorch",
            memplan_planner::files::Format::Minimalloc => "minimalloc",
            memplan_planner::files::Format::Placed => "placed",
            memplan_planner::files::Format::Json => "json",
            memplan_planner::files::Format::Tflite => "tflite",
            memplan_planner::files::Format::Pte => "pte",
        },
    };
    let plans = loaded
        .plans
        .iter()
        .map(|p| JsonPlanReport {
            name: p.title.clone(),
            strategy: (!p.given).then(|| p.plan.strategy.to_string()),
            plan: crate::plan_json::plan_file(p),
            regions: (0..p.problem.regions.len())
                .map(|r| json_region(p, r, top))
                .collect(),
            pools: p
                .pools
                .iter()
                .map(|q| JsonPool {
                    name: q.name.clone(),
                    size: q.bytes,
                    align: q.align,
                    memory: q.memory.clone(),
                })
                .collect(),
        })
        .collect();
    JsonReport {
        version: 1,
        file: loaded.path.clone(),
        format,
        plans,
    }
}

fn json_region(p: &Planned, r: usize, top: usize) -> JsonRegionReport {
    let st = stats::region(p, r);
    let rp = &p.plan.regions[r];
    let peak_buffers = st.at_peak[..top.min(st.at_peak.len())]
        .iter()
        .map(|&i| {
            let b = &p.problem.buffers[i];
            JsonPeakBuffer {
                name: b.name.clone(),
                size: b.size,
                offset: p.plan.buffers[i].offset,
                first: b.lifetime.first,
                last: b.lifetime.last,
            }
        })
        .collect();
    JsonRegionReport {
        name: p.problem.regions[r].name.clone(),
        memory_id: p.ids[r],
        capacity: (!p.unbounded(r)).then_some(p.problem.regions[r].capacity),
        planned_bytes: rp.planned_bytes,
        lower_bound: rp.lower_bound,
        ratio: st.ratio,
        waste_bytes: st.waste,
        align: rp.align,
        padding_bytes: st.padding,
        peak_step: rp.peak_step,
        peak_buffers,
        peak_buffer_count: st.at_peak.len(),
        proven_optimal: rp.proven_optimal,
        search_nodes: rp.search_nodes,
        node_budget: if p.given { None } else { p.plan.strategy.nodes() },
        buffers: st.members.len(),
        file_bytes: p.file_bytes,
    }
}
