//! `memplan-bench`: runs memplan's strategies on plan files and on synthetic instances.
//!
//! ```text
//! cargo run --release --bin memplan-bench -- DIR...
//! cargo run --release --bin memplan-bench -- --synthetic
//! ```
//!
//! With folders, it plans every ExecuTorch or MiniMalloc CSV under them with each strategy,
//! validates each plan with `memplan_planner::validate`, and prints CSV on stdout
//! (`file,buffers,lower_bound,strategy,bytes,proven_optimal,ms`) and a table on stderr. For
//! ExecuTorch files, a row with strategy `executorch` gives ExecuTorch's own bytes (its `ms`
//! is empty). With `--synthetic` it times the strategies on seeded synthetic instances of
//! growing size instead (`--shapes` and `--sizes` choose them, so that one shape and size
//! can run alone, for instance under `/usr/bin/time -v` to read its peak memory).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use memplan_bench::inputs::{self, Input};
use memplan_bench::problems::{self, ProblemShape};
use memplan_bench::synth::{self, Shape};
use memplan_planner::{Plan, Strategy, plan, validate};

#[derive(Parser, Debug)]
#[command(
    name = "memplan-bench",
    about = "Benchmarks memplan's planning strategies",
    version
)]
struct Cli {
    /// Folders (or files) to read plan CSVs from, recursively.
    dirs: Vec<PathBuf>,
    /// Also write every plan as `<input stem>.<strategy>.csv` (`name,offset,size,first,last`,
    /// inclusive lifetimes) into this folder; synthetic plans as
    /// `<shape>_<buffers>.<strategy>.csv`.
    #[arg(long, value_name = "OUT")]
    write_plans: Option<PathBuf>,
    /// The capacity of each file's region, in bytes (default: room for any plan). A plan
    /// that does not fit is a row with the bytes it needed and `fits` false.
    #[arg(long, value_name = "BYTES")]
    capacity: Option<u64>,
    /// The node budget of the `optimal` strategy.
    #[arg(long, default_value_t = Strategy::DEFAULT_NODES)]
    nodes: u64,
    /// Strategies to run, comma separated, from `greedy,best_of,optimal` (or
    /// `optimal(nodes = N)`, which overrides `--nodes`).
    #[arg(long, value_delimiter = ',', default_value = "greedy,best_of,optimal")]
    strategies: Vec<String>,
    /// Plans per file and strategy; `ms` is the median.
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Time the strategies on synthetic instances instead of files.
    #[arg(long)]
    synthetic: bool,
    /// Synthetic shapes, comma separated: packing instances from
    /// `chain,residual,random,all_live,seven_steps,nested,staggered`, whole problems from
    /// `in_place_chain,spill_nested,pinned_nested`.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "chain,residual,random,all_live,seven_steps,nested,staggered,in_place_chain,spill_nested,pinned_nested"
    )]
    shapes: Vec<String>,
    /// Synthetic sizes (buffers), comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
    sizes: Vec<usize>,
    /// The synthetic generator's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The strategies of `--strategies`, each as `Strategy` reads it; `--nodes` is the budget of
/// an `optimal` written without one.
fn strategies(cli: &Cli) -> Result<Vec<Strategy>, String> {
    cli.strategies
        .iter()
        .map(|s| match s.parse::<Strategy>() {
            Ok(Strategy::Optimal { .. }) if s.trim() == "optimal" => {
                Ok(Strategy::Optimal { nodes: cli.nodes })
            }
            other => other.map_err(|e| e.to_string()),
        })
        .collect()
}

/// The median of `v` (sorted in place); the mean of the middle two for an even count.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A plan, or the bytes a plan that overflowed its region needed.
type Planned = Result<Plan, u64>;

/// Plans `input` with `strategy` `runs` times; the plan (or the bytes of one that did not
/// fit its region), and the times in ms.
fn time_plan(
    input: &Input,
    strategy: Strategy,
    runs: usize,
) -> Result<(Planned, Vec<f64>), String> {
    let label = format!("{}: {}", input.label, strategy.name());
    repeat(runs, &label, || match plan(&input.problem, strategy) {
        Ok(p) => Ok(Ok(p)),
        Err(errors) => {
            if let [memplan_planner::PlanError::Overflow(o)] = &errors[..] {
                return Ok(Err(o.needed));
            }
            let words: Vec<String> = errors
                .iter()
                .map(|e| e.display(&input.problem).to_string())
                .collect();
            Err(format!("{label}: {}", words.join("\n")))
        }
    })
}

fn write_plan(out: &Path, input: &Input, strategy: &str, p: &Plan) -> Result<(), String> {
    let path = out.join(format!("{}.{strategy}.csv", input.stem));
    let mut w = csv::Writer::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let err = |e: csv::Error| format!("{}: {e}", path.display());
    w.write_record(["name", "offset", "size", "first", "last"])
        .map_err(err)?;
    for (b, placed) in input.problem.buffers.iter().zip(&p.buffers) {
        w.write_record([
            b.name.clone(),
            placed.offset.to_string(),
            b.size.to_string(),
            b.lifetime.first.to_string(),
            b.lifetime.last.to_string(),
        ])
        .map_err(err)?;
    }
    w.flush().map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes a synthetic layout as `<stem>.<strategy>.csv` (`name,offset,size,first,last`).
fn write_layout(
    out: &Path,
    stem: &str,
    strategy: &str,
    instance: &memplan_planner::Instance,
    layout: &memplan_planner::Layout,
) -> Result<(), String> {
    let path = out.join(format!("{stem}.{strategy}.csv"));
    let err = |e: csv::Error| format!("{}: {e}", path.display());
    let mut w = csv::Writer::from_path(&path).map_err(err)?;
    w.write_record(["name", "offset", "size", "first", "last"])
        .map_err(err)?;
    for (i, (it, off)) in instance.items.iter().zip(&layout.offsets).enumerate() {
        w.write_record([
            format!("b{i}"),
            off.to_string(),
            it.size.to_string(),
            it.lifetime.first.to_string(),
            it.lifetime.last.to_string(),
        ])
        .map_err(err)?;
    }
    w.flush().map_err(|e| format!("{}: {e}", path.display()))
}

/// One line of the stderr table.
struct Row<'a> {
    file: &'a str,
    buffers: usize,
    lb: u64,
    strategy: &'a str,
    bytes: u64,
    proven: bool,
    /// Median time, for memplan's strategies.
    ms: Option<f64>,
    /// Search nodes used, for memplan's strategies.
    nodes: Option<u64>,
}

fn table_row(row: Row<'_>) {
    let Row {
        file,
        buffers,
        lb,
        strategy,
        bytes,
        proven,
        ms,
        nodes,
    } = row;
    let ratio = if lb == 0 {
        1.0
    } else {
        bytes as f64 / lb as f64
    };
    let ms = ms.map_or_else(|| "-".to_string(), |m| format!("{m:.2}"));
    let nodes = nodes.map_or_else(|| "-".to_string(), |n| n.to_string());
    eprintln!(
        "{file:<44} {buffers:>7} {lb:>12} {strategy:<10} {bytes:>12} {ratio:>7.4} {:>6} {ms:>10} {nodes:>9}",
        if proven { "yes" } else { "no" }
    );
}

fn run_files(cli: &Cli, strategies: &[Strategy]) -> Result<(), String> {
    if let Some(out) = &cli.write_plans {
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let mut csv_out = csv::Writer::from_writer(std::io::stdout());
    let csv_err = |e: csv::Error| e.to_string();
    csv_out
        .write_record([
            "file",
            "buffers",
            "lower_bound",
            "strategy",
            "bytes",
            "proven_optimal",
            "ms",
            "fits",
        ])
        .map_err(csv_err)?;
    eprintln!(
        "{:<44} {:>7} {:>12} {:<10} {:>12} {:>7} {:>6} {:>10} {:>9}",
        "file", "buffers", "lower bound", "strategy", "bytes", "x bound", "proven", "ms", "nodes"
    );
    let mut seen = 0;
    for dir in &cli.dirs {
        let files = inputs::csv_files(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for path in files {
            let label = match path.strip_prefix(dir) {
                Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
                _ => path.file_name().map_or_else(
                    || path.display().to_string(),
                    |f| f.to_string_lossy().to_string(),
                ),
            };
            let Some(mut input) = inputs::read(&path, label).map_err(|e| e.to_string())? else {
                eprintln!(
                    "skipped {}: neither an ExecuTorch nor a MiniMalloc header",
                    path.display()
                );
                continue;
            };
            seen += 1;
            if let Some(c) = cli.capacity {
                input.problem.regions[0].capacity = c;
            }
            let n = input.problem.buffers.len();
            let mut lb = 0;
            for &strategy in strategies {
                let (p, mut times) = time_plan(&input, strategy, cli.runs)?;
                let ms = median(&mut times);
                let p = match p {
                    Ok(p) => p,
                    Err(needed) => {
                        let mut unbounded = input.problem.clone();
                        unbounded.regions[0].capacity = inputs::ROOM;
                        let lb = plan(&unbounded, Strategy::Greedy)
                            .map_or(0, |p| p.regions[0].lower_bound);
                        csv_out
                            .write_record([
                                input.label.clone(),
                                n.to_string(),
                                lb.to_string(),
                                strategy.name().to_string(),
                                needed.to_string(),
                                "false".to_string(),
                                format!("{ms:.3}"),
                                "false".to_string(),
                            ])
                            .map_err(csv_err)?;
                        table_row(Row {
                            file: &input.label,
                            buffers: n,
                            lb,
                            strategy: strategy.name(),
                            bytes: needed,
                            proven: false,
                            ms: Some(ms),
                            nodes: None,
                        });
                        eprintln!("  (over the capacity: {needed} bytes needed)");
                        continue;
                    }
                };
                validate(&input.problem, &p).map_err(|v| {
                    format!("{}: {}: invalid plan: {v}", input.label, strategy.name())
                })?;
                let r = &p.regions[0];
                lb = r.lower_bound;
                csv_out
                    .write_record([
                        input.label.clone(),
                        n.to_string(),
                        r.lower_bound.to_string(),
                        strategy.name().to_string(),
                        r.planned_bytes.to_string(),
                        r.proven_optimal.to_string(),
                        format!("{ms:.3}"),
                        "true".to_string(),
                    ])
                    .map_err(csv_err)?;
                table_row(Row {
                    file: &input.label,
                    buffers: n,
                    lb: r.lower_bound,
                    strategy: strategy.name(),
                    bytes: r.planned_bytes,
                    proven: r.proven_optimal,
                    ms: Some(ms),
                    nodes: Some(r.search_nodes),
                });
                if let Some(out) = &cli.write_plans {
                    write_plan(out, &input, strategy.name(), &p)?;
                }
            }
            if let Some(bytes) = input.executorch_bytes {
                if strategies.is_empty() {
                    lb = memplan_planner::plan(&input.problem, Strategy::Greedy)
                        .map(|p| p.regions[0].lower_bound)
                        .unwrap_or(0);
                }
                csv_out
                    .write_record([
                        input.label.clone(),
                        n.to_string(),
                        lb.to_string(),
                        "executorch".to_string(),
                        bytes.to_string(),
                        (bytes == lb).to_string(),
                        String::new(),
                        cli.capacity.is_none_or(|c| bytes <= c).to_string(),
                    ])
                    .map_err(csv_err)?;
                table_row(Row {
                    file: &input.label,
                    buffers: n,
                    lb,
                    strategy: "executorch",
                    bytes,
                    proven: bytes == lb,
                    ms: None,
                    nodes: None,
                });
            }
            csv_out.flush().map_err(|e| e.to_string())?;
        }
    }
    if seen == 0 {
        return Err("no ExecuTorch or MiniMalloc CSV found under the folders given".into());
    }
    Ok(())
}

/// A synthetic shape: a packing instance, or a whole problem (in-place chains, spilling).
#[derive(Clone, Copy)]
enum Synthetic {
    Instance(Shape),
    Problem(ProblemShape),
}

impl Synthetic {
    fn parse(name: &str) -> Result<Synthetic, String> {
        Shape::from_name(name)
            .map(Synthetic::Instance)
            .or_else(|| ProblemShape::from_name(name).map(Synthetic::Problem))
            .ok_or_else(|| format!("unknown shape `{name}`"))
    }

    fn name(self) -> &'static str {
        match self {
            Synthetic::Instance(s) => s.name(),
            Synthetic::Problem(s) => s.name(),
        }
    }
}

/// One strategy's result on one synthetic shape and size.
struct Timed {
    live: usize,
    lower_bound: u64,
    bytes: u64,
    /// Run times in ms.
    times: Vec<f64>,
}

/// Runs `f` `runs` times, checking that every run gives the same result; the result and the
/// times in ms.
fn repeat<T: PartialEq>(
    runs: usize,
    label: &str,
    mut f: impl FnMut() -> Result<T, String>,
) -> Result<(T, Vec<f64>), String> {
    let mut times = Vec::with_capacity(runs);
    let mut first: Option<T> = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let out = f()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        match &first {
            None => first = Some(out),
            Some(f) if *f != out => return Err(format!("{label}: two runs differ")),
            Some(_) => {}
        }
    }
    Ok((first.unwrap_or_else(|| unreachable!()), times))
}

/// Packs a synthetic instance with `strategy`, checks and writes its layout.
fn time_instance(cli: &Cli, shape: Shape, n: usize, strategy: Strategy) -> Result<Timed, String> {
    let instance = synth::generate(shape, n, cli.seed);
    let label = format!("{} {n} {}", shape.name(), strategy.name());
    let (out, times) = repeat(cli.runs, &label, || {
        memplan_planner::pack(strategy, &instance)
            .map_err(|e| format!("{label}: overflow at item {}", e.item))
    })?;
    check_layout(&instance, &out.layout).map_err(|e| format!("{label}: {e}"))?;
    if let Some(dir) = &cli.write_plans {
        let stem = format!("{}_{n}", shape.name());
        write_layout(dir, &stem, strategy.name(), &instance, &out.layout)?;
    }
    Ok(Timed {
        live: synth::max_live(&instance),
        lower_bound: memplan_planner::lower_bound(&instance).0,
        bytes: out.layout.bytes,
        times,
    })
}

/// Plans a synthetic problem with `strategy` and validates the plan; bytes and bounds are
/// summed over its regions.
fn time_problem(
    cli: &Cli,
    shape: ProblemShape,
    n: usize,
    strategy: Strategy,
) -> Result<Timed, String> {
    let problem = problems::problem(shape, n, cli.seed);
    let label = format!("{} {n} {}", shape.name(), strategy.name());
    let (p, times) = repeat(cli.runs, &label, || {
        plan(&problem, strategy).map_err(|errors| {
            let words: Vec<String> = errors
                .iter()
                .map(|e| e.display(&problem).to_string())
                .collect();
            format!("{label}: {}", words.join("\n"))
        })
    })?;
    validate(&problem, &p).map_err(|v| format!("{label}: invalid plan: {v}"))?;
    Ok(Timed {
        live: 0,
        lower_bound: p.regions.iter().map(|r| r.lower_bound).sum(),
        bytes: p.regions.iter().map(|r| r.planned_bytes).sum(),
        times,
    })
}

fn run_synthetic(cli: &Cli, strategies: &[Strategy]) -> Result<(), String> {
    let mut csv_out = csv::Writer::from_writer(std::io::stdout());
    let csv_err = |e: csv::Error| e.to_string();
    csv_out
        .write_record([
            "shape",
            "buffers",
            "max_live",
            "lower_bound",
            "strategy",
            "bytes",
            "median_ms",
            "min_ms",
            "max_ms",
            "runs",
        ])
        .map_err(csv_err)?;
    eprintln!(
        "{:<14} {:>7} {:>6} {:>12} {:<10} {:>12} {:>7} {:>10} {:>10} {:>10}",
        "shape",
        "buffers",
        "live",
        "lower bound",
        "strategy",
        "bytes",
        "x bound",
        "median ms",
        "min ms",
        "max ms"
    );
    let shapes = cli
        .shapes
        .iter()
        .map(|s| Synthetic::parse(s.trim()))
        .collect::<Result<Vec<Synthetic>, String>>()?;
    if let Some(out) = &cli.write_plans {
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    for shape in shapes {
        for &n in &cli.sizes {
            for &strategy in strategies {
                let mut t = match shape {
                    Synthetic::Instance(s) => time_instance(cli, s, n, strategy)?,
                    Synthetic::Problem(s) => time_problem(cli, s, n, strategy)?,
                };
                let (min, max) = t
                    .times
                    .iter()
                    .fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
                let med = median(&mut t.times);
                let (live, lb, bytes) = (t.live, t.lower_bound, t.bytes);
                csv_out
                    .write_record([
                        shape.name().to_string(),
                        n.to_string(),
                        live.to_string(),
                        lb.to_string(),
                        strategy.name().to_string(),
                        bytes.to_string(),
                        format!("{med:.3}"),
                        format!("{min:.3}"),
                        format!("{max:.3}"),
                        t.times.len().to_string(),
                    ])
                    .map_err(csv_err)?;
                csv_out.flush().map_err(|e| e.to_string())?;
                eprintln!(
                    "{:<14} {n:>7} {live:>6} {lb:>12} {:<10} {bytes:>12} {:>7.4} {med:>10.2} {min:>10.2} {max:>10.2}",
                    shape.name(),
                    strategy.name(),
                    bytes as f64 / lb.max(1) as f64
                );
            }
        }
    }
    Ok(())
}

/// Validates a synthetic layout through the planner's own validator: the instance as a
/// one-region problem, the layout as its plan.
fn check_layout(
    instance: &memplan_planner::Instance,
    layout: &memplan_planner::Layout,
) -> Result<(), String> {
    use memplan_planner::{Buffer, Placed, Problem, Region, RegionPlan};
    let problem = Problem {
        regions: vec![Region {
            name: "arena".into(),
            capacity: inputs::ROOM,
            align: 16,
        }],
        buffers: instance
            .items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                Buffer::new(
                    format!("b{i}"),
                    it.size,
                    0,
                    it.lifetime.first,
                    it.lifetime.last,
                )
                .with_align(it.align)
            })
            .collect(),
    };
    let plan = Plan {
        strategy: Strategy::Greedy,
        buffers: layout
            .offsets
            .iter()
            .map(|&offset| Placed { region: 0, offset })
            .collect(),
        regions: vec![RegionPlan {
            capacity: inputs::ROOM,
            planned_bytes: layout.bytes,
            lower_bound: 0,
            peak_step: None,
            align: 16,
            proven_optimal: false,
            search_nodes: 0,
        }],
    };
    validate(&problem, &plan).map_err(|v| format!("invalid layout: {v}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = strategies(&cli).and_then(|s| {
        if cli.synthetic {
            run_synthetic(&cli, &s)
        } else if cli.dirs.is_empty() {
            Err("give at least one folder of plan CSVs, or --synthetic".into())
        } else {
            run_files(&cli, &s)
        }
    });
    let _ = std::io::stdout().flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
