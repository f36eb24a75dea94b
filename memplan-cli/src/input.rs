//! FILE, whatever it is, as plans: a `.rs` file's `memory_plan!` invocations (by the
//! extension), or a plan file (ExecuTorch, MiniMalloc or placed CSV, or JSON, by its
//! content), planned or with its own offsets.

use std::path::Path;

use memplan_planner::files::{Format, PlanFile, ProblemOptions, Role, read_any};

use crate::diagnostic::{file_error, render};
use crate::options::{Offsets, ProblemArgs};
use crate::planned::{self, FileNames, Planned};
use crate::{given, progress};

/// What FILE holds.
pub struct Loaded {
    /// FILE, as given.
    pub path: String,
    /// FILE and what it is, for reports: `m.csv (ExecuTorch CSV, 111 buffers)`.
    pub describe: String,
    /// The plan file, when FILE is one (not a `.rs` file).
    pub file: Option<PlanFile>,
    /// Its plans: one for a plan file, one per invocation for a `.rs` file.
    pub plans: Vec<Planned>,
    /// A `.tflite` model's variable tensors that its runtime keeps outside the plan
    /// ([`outside_the_plan`]): their names and bytes, in file order.
    pub persistent: Vec<(String, u64)>,
    /// Every file read: FILE, and for a `.rs` file the plan files, models, `memory.x` and
    /// lock file its invocations read. No output may be one of them.
    pub read: Vec<std::path::PathBuf>,
}

/// Makes a `.tflite` model's `file` what TensorFlow Lite Micro plans in its arena, and
/// returns the variable tensors it keeps outside (name, bytes as TFLM reserves them): every
/// buffer takes the bytes TFLM reserves for it (rounded up to 16,
/// [`Format::runtime_size`]), so that every figure is TFLM's; when memplan plans the model,
/// every variable tensor goes (TFLM's persistent section holds it: `--write` gives it -1,
/// see `memplan_planner::files::write_model_plan` for why) and the kernels' scratch buffers
/// stay (TFLM plans them beside the tensors); when the file's own offsets are read, the
/// variable tensors its offline plan leaves at -1 go, and so do the scratch buffers (no
/// file places them). Another format's file is left as it is.
pub(crate) fn outside_the_plan(file: &mut PlanFile, own_offsets: bool) -> Vec<(String, u64)> {
    if file.format != Format::Tflite {
        return Vec::new();
    }
    let format = file.format;
    let mut out = Vec::new();
    file.buffers.retain_mut(|b| {
        b.size = format.runtime_size(b.size);
        let keep = match b.role {
            Role::Tensor => true,
            Role::Persistent => own_offsets && b.offset.is_some(),
            Role::Scratch => !own_offsets,
        };
        if b.role == Role::Persistent && !keep {
            out.push((b.name.clone(), b.size));
        }
        keep
    });
    out
}

/// Whether `path` is read as Rust source (its extension is `.rs`).
pub fn is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}

/// Reads and plans FILE. `Ok(None)` when it has errors, which are printed on stderr (as
/// the macro words them, or the planner's words for a plan file).
///
/// # Errors
///
/// FILE cannot be read, is malformed (file, line and column), or the options do not apply
/// to it.
pub fn load(
    path: &Path,
    args: &ProblemArgs,
    offsets: Offsets,
    show: bool,
) -> Result<Option<Loaded>, String> {
    if is_rust(path) {
        load_rust(path, args, show)
    } else {
        load_file(path, args, offsets, show)
    }
}

/// Checks every `memory_plan!` invocation of the Rust source `file` with the front end's
/// driver ([`memplan_lang::driver::check_file`]): what the macro would do.
///
/// # Errors
///
/// The file cannot be read, is not Rust tokens (the lexer's message at
/// `FILE:LINE:COLUMN`), or has no invocation.
pub fn check_file(
    file: &Path,
    options: &memplan_lang::driver::Options,
) -> Result<memplan_lang::driver::FileChecked, String> {
    let checked = memplan_lang::driver::check_file(file, options)?;
    if checked.invocations.is_empty() {
        return Err(format!("{}: no memory_plan! invocation", file.display()));
    }
    Ok(checked)
}

fn load_rust(path: &Path, args: &ProblemArgs, show: bool) -> Result<Option<Loaded>, String> {
    if args.capacity.is_some() || args.align.is_some() || !args.regions.is_empty() {
        return Err(format!(
            "{}: --capacity, --align and --region apply to plan files; a .rs file declares its regions",
            path.display()
        ));
    }
    let options = memplan_lang::driver::Options {
        out_dir: args.out_dir.clone(),
        root: memplan_lang::driver::package_root(path),
        strategy: args.strategy,
        ..memplan_lang::driver::Options::default()
    };
    let label = format!("planning the invocations of {}", path.display());
    let checked = progress::spin(&label, show, || check_file(path, &options))?;
    let count = checked.invocations.len();
    let read = checked.read.clone();
    let mut plans = Vec::new();
    let mut ok = true;
    for c in checked.invocations {
        for d in c.diagnostics().iter() {
            eprint!("{}", render(path, d));
            ok = false;
        }
        // Named as `memplan check`, `memplan lock` and the REPORT name it: by module path.
        if let (Some(title), Some(problem), Some(plan)) =
            (c.lock_key().or(c.name()), c.problem(), c.plan())
        {
            plans.push(Planned {
                title,
                ids: (0..problem.regions.len() as u64).collect(),
                problem,
                plan: plan.clone(),
                given: false,
                file_bytes: None,
                by_region: Default::default(),
                elements: c.elements(),
                pools: planned::pools(&c),
            });
        }
    }
    let describe = format!(
        "{} ({count} memory_plan! invocation{})",
        path.display(),
        if count == 1 { "" } else { "s" }
    );
    Ok(ok.then_some(Loaded {
        path: path.display().to_string(),
        describe,
        file: None,
        plans,
        persistent: Vec::new(),
        read,
    }))
}

fn load_file(
    path: &Path,
    args: &ProblemArgs,
    offsets: Offsets,
    show: bool,
) -> Result<Option<Loaded>, String> {
    let mut file = read_any(path).map_err(|e| file_error(&e))?;
    let own = match offsets {
        Offsets::Auto => file.format == Format::Placed,
        Offsets::Plan => false,
        Offsets::File => true,
    };
    let persistent = outside_the_plan(&mut file, own);
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let title = file.name.clone().unwrap_or(stem);
    let describe = format!(
        "{} ({}, {} buffer{})",
        path.display(),
        file.format.name(),
        file.buffers.len(),
        if file.buffers.len() == 1 { "" } else { "s" }
    );
    if own {
        if !args.regions.is_empty() || args.strategy.is_some() {
            return Err("--region and --strategy plan the file: they do not apply to its own offsets (--offsets file, the default for a placed CSV); add --offsets plan".to_string());
        }
        let planned =
            given::planned(&file, title, args.capacity, args.align).map_err(|e| e.to_string())?;
        return Ok(Some(Loaded {
            path: path.display().to_string(),
            describe,
            file: Some(file),
            plans: vec![planned],
            persistent,
            read: vec![path.to_path_buf()],
        }));
    }
    let options = ProblemOptions {
        capacity: args.capacity,
        align: args.align,
        regions: args.regions.clone(),
    };
    let problem = file.problem(&options).map_err(|e| e.to_string())?;
    let strategy = args.strategy.unwrap_or_default();
    let plan = match planned::plan(&title, &problem, strategy, &FileNames(&file), show) {
        Ok(plan) => plan,
        Err(errors) => {
            for e in errors {
                eprintln!("error: {}", e.replace('\n', "\n       "));
            }
            return Ok(None);
        }
    };
    // The file's own plan, when it has one for every buffer: ExecuTorch's offsets (in its
    // CSV export or its program), a placed plan's, a model's offline plan.
    let own = matches!(
        file.format,
        Format::Executorch | Format::Placed | Format::Pte | Format::Tflite
    ) && !file.buffers.is_empty()
        && file
            .buffers
            .iter()
            .all(|b| b.offset.is_some() || b.role == Role::Scratch);
    let file_bytes = own.then(|| {
        let reach = file
            .buffers
            .iter()
            .filter(|b| b.size > 0)
            .filter_map(|b| b.offset.map(|o| o.saturating_add(b.size)))
            .max()
            .unwrap_or(0);
        // A program's own plan, in the runtime's units: the buffers it asks for.
        match file.format {
            Format::Pte => file
                .buffer_sizes
                .iter()
                .fold(0u64, |a, &b| a.saturating_add(b))
                .max(reach),
            _ => reach,
        }
    });
    let planned = Planned {
        title,
        ids: (0..problem.regions.len() as u64).collect(),
        problem,
        plan,
        given: false,
        file_bytes,
        by_region: Default::default(),
        elements: file.buffers.iter().map(|b| b.element).collect(),
        pools: Vec::new(),
    };
    Ok(Some(Loaded {
        path: path.display().to_string(),
        describe,
        file: Some(file),
        plans: vec![planned],
        persistent,
        read: vec![path.to_path_buf()],
    }))
}
