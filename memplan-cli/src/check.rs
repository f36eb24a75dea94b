//! `memplan check FILE`. For a `.rs` file (by its extension): every `memory_plan!`
//! invocation, through the macro's front end: its errors as the compiler would print them,
//! or its report. For a plan file that gives offsets (an ExecuTorch export, a placed CSV,
//! a JSON plan with every `offset`, a model's own plan): every pair of buffers live at a
//! common step that share bytes ([`memplan_planner::for_each_overlapping_pair`], the first
//! [`MAX_OVERLAPS`], then that there are more; for a `.pte`
//! program, unless a `cond`'s branches keep them apart), every misaligned offset and every
//! buffer out of bounds, each naming the buffers, their lines (a model's values), steps and
//! byte ranges.

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use memplan_planner::files::{Format, ModelFile, ModelFormat, PlanFile, read_any, read_model};
use memplan_planner::{Extent, Placed, Problem, for_each_overlapping_pair};

use crate::diagnostic::{file_error, render};
use crate::{given, words};
use crate::input::is_rust;
use crate::options::{parse_align, parse_size};

/// Check FILE: a Rust source file's memory_plan! invocations, or a plan's offsets.
///
/// FILE ending in `.rs` is Rust source: every memory_plan! invocation in it is checked
/// with the macro's own messages (FILE:LINE:COLUMN) and each plan's report is printed.
/// Plan files named by an invocation are read relative to FILE, as the macro reads them.
///
/// Any other FILE is a plan that gives offsets, told apart by its content: an ExecuTorch
/// plan export (checked per mem_id), a placed CSV (name,offset,size,first,last, as
/// memplan-bench --write-plans writes), or a JSON plan whose every buffer has an offset.
/// Reported: every pair of buffers live at a common step that share bytes (the first 1000,
/// then that there are more), every offset
/// that is not a multiple of the alignment, every buffer past the capacity. A .pte
/// program's own plan is checked as ExecuTorch runs it (tensors written only in the two
/// branches of one cond are never live together; an overlap names the instruction from
/// which both are live), against its non_const_buffer_sizes, whose sizes and lower bounds
/// are printed too.
///
/// Exit status: 0 when nothing is wrong, 1 when anything is, 2 when FILE cannot be read.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The Rust source file (.rs) or plan file.
    pub file: PathBuf,
    /// Plan files: the alignment every offset must be a multiple of, in bytes, for buffers
    /// whose JSON plan gives none (their own `align` or their region's).
    #[arg(long, value_name = "N", default_value = "16", value_parser = parse_align)]
    pub align: u64,
    /// Plan files: the capacity of every region, in bytes. Default: a JSON region's
    /// `capacity`, else unbounded.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub capacity: Option<u64>,
    /// .rs files: where `buffers ... from out_dir "..."` files are (the crate's OUT_DIR);
    /// default: the OUT_DIR environment variable.
    #[arg(long, value_name = "DIR", env = "OUT_DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Runs `memplan check`.
pub fn run(args: Args) -> Result<bool, String> {
    if is_rust(&args.file) {
        check_source(&args.file, args.out_dir.as_deref())
    } else {
        let mut file = read_any(&args.file).map_err(|e| file_error(&e))?;
        // What a .tflite model's runtime plans with the file's offsets.
        crate::input::outside_the_plan(&mut file, true);
        let model = match file.format {
            Format::Pte => Some(read_model(&args.file).map_err(|e| file_error(&e))?.1),
            _ => None,
        };
        check_offsets(&file, model.as_ref(), args.capacity, args.align)
    }
}

/// Checks `file`; `Ok(true)` when every invocation plans, `Ok(false)` when any has errors
/// (printed on stderr), `Err` when the file cannot be read.
fn check_source(file: &Path, out_dir: Option<&Path>) -> Result<bool, String> {
    let options = memplan_lang::driver::Options {
        out_dir: out_dir.map(Path::to_path_buf),
        root: memplan_lang::driver::package_root(file),
        ..memplan_lang::driver::Options::default()
    };
    if options.root.is_none() && options.out_dir.is_none() {
        // A build always has a package: say what a lone file's check cannot see.
        eprintln!(
            "note: {} is in no package (no Cargo.toml above it): no memory.x is read, so `memory` banks are not checked against it, and no memplan.lock is used",
            file.display()
        );
    }
    let checked = crate::input::check_file(file, &options)?;
    let mut ok = true;
    for checked in checked.invocations {
        for d in checked.diagnostics().iter() {
            eprintln!("{}", render(file, d));
            ok = false;
        }
        if let Some(report) = checked.report() {
            print!("{report}");
        }
    }
    Ok(ok)
}

/// The most overlapping pairs `memplan check` lists: past them it says there are more and
/// stops looking, so that its work and output follow the plan's buffers, not the square
/// of their number.
pub const MAX_OVERLAPS: usize = 1000;

/// What [`findings`] found in a plan's own offsets.
pub struct Findings {
    /// Each finding, a line.
    pub lines: Vec<String>,
    /// Pairs of buffers that share bytes while both are live (at most [`MAX_OVERLAPS`]).
    pub overlaps: usize,
    /// Whether there are more overlapping pairs than [`MAX_OVERLAPS`] (not looked for).
    pub more_overlaps: bool,
    /// Offsets that are not a multiple of their buffer's alignment.
    pub misaligned: usize,
    /// Buffers past their region's capacity.
    pub outside: usize,
}

/// Every overlapping pair, misaligned offset and buffer out of bounds of `file`'s own
/// offsets. For a `.pte` program (`model`, the same file read as a model), buffers that the
/// program's `cond`s write only in two branches of one `cond` are never live together,
/// and an overlap names the instruction that runs first with both live.
///
/// # Errors
///
/// As [`given::layout`].
pub fn findings(
    file: &PlanFile,
    model: Option<&ModelFile>,
    capacity: Option<u64>,
    align: u64,
) -> Result<(Findings, Problem), String> {
    let (problem, placed, ids) =
        given::layout(file, capacity, Some(align)).map_err(|e| e.to_string())?;
    let mut found = Findings {
        lines: Vec::new(),
        overlaps: 0,
        more_overlaps: false,
        misaligned: 0,
        outside: 0,
    };
    // Where each buffer of a program is written, to tell a `cond`'s branches apart.
    let defined: Vec<Option<u32>> = model.map_or_else(Vec::new, |m| {
        m.buffer_tensors()
            .iter()
            .map(|t| m.branches.defined(t))
            .collect()
    });
    let several = problem.regions.len() > 1;
    for (r, id) in ids.iter().enumerate() {
        let members: Vec<usize> = (0..placed.len()).filter(|&i| placed[i].region == r).collect();
        let place = if several {
            format!(" in memory id {id}")
        } else {
            String::new()
        };
        let shown = Shown { file, problem: &problem, placed: &placed, model };
        let extents: Vec<Extent> = members.iter().map(|&i| shown.extent(i)).collect();
        // The first MAX_OVERLAPS pairs of all memory ids: the sweep stops there, so a plan
        // of every buffer on the same bytes costs no more than its first pairs.
        let complete = for_each_overlapping_pair(&extents, |a, b| {
            let (a, b) = (members[a], members[b]);
            if in_place_pair(&problem, &placed, a, b) {
                return true;
            }
            if let Some(m) = model
                && m.branches.apart(defined[a], defined[b])
            {
                return true;
            }
            if found.overlaps == MAX_OVERLAPS {
                return false;
            }
            found.overlaps += 1;
            found.lines.push(shown.overlap(a, b, &place));
            true
        });
        found.more_overlaps |= !complete;
        for &i in &members {
            let b = &problem.buffers[i];
            let a = problem.effective_align(b, r);
            if placed[i].offset % a != 0 {
                found.misaligned += 1;
                found.lines.push(format!(
                    "{}: buffer {} at offset {} is not a multiple of its alignment, {}{place}",
                    shown.at(i), shown.describe(i), placed[i].offset, words::bytes(a)
                ));
            }
            let cap = problem.regions[r].capacity;
            let end = u128::from(placed[i].offset) + u128::from(b.size);
            if end > u128::from(cap) {
                found.outside += 1;
                found.lines.push(format!(
                    "{}: buffer {} ends at byte {end}, past the capacity of {}{place} (over by {})",
                    shown.at(i), shown.describe(i), words::bytes(cap), end - u128::from(cap)
                ));
            }
        }
    }
    Ok((found, problem))
}

/// Checks the offsets of `file` (`model`: the same `.pte` program read as a model),
/// printing every finding and a summary on stdout; for a `.pte` program, also each memory
/// id's own size and the lower bound.
fn check_offsets(
    file: &PlanFile,
    model: Option<&ModelFile>,
    capacity: Option<u64>,
    align: u64,
) -> Result<bool, String> {
    let (found, problem) = findings(file, model, capacity, align)?;
    for f in &found.lines {
        println!("{f}");
    }
    if file.format == Format::Pte {
        let own = given::planned(file, String::new(), capacity, Some(align))
            .map_err(|e| e.to_string())?;
        for (r, rp) in own.plan.regions.iter().enumerate() {
            let id = own.ids[r];
            let asked = file.buffer_sizes.get(id as usize).copied().unwrap_or(0);
            let peak = rp
                .peak_step
                .map_or(String::new(), |s| format!(", live together at instruction {s}"));
            println!(
                "{}: memory id {id}: the file's own plan asks for {} (non_const_buffer_sizes[{id}]); lower bound {}{peak}",
                file.file,
                words::bytes(asked),
                words::bytes(rp.lower_bound),
            );
        }
    }
    let count = |n: usize, one: &str, many: &str| match n {
        0 => format!("no {one}"),
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let overlapping = if found.more_overlaps {
        format!("more than {MAX_OVERLAPS} overlapping pairs (the first {MAX_OVERLAPS} listed)")
    } else {
        count(found.overlaps, "overlapping pair", "overlapping pairs")
    };
    println!(
        "{}: {} in {}: {}, {}, {}",
        file.file,
        words::count(problem.buffers.len(), "buffer"),
        words::count(problem.regions.len(), "memory id"),
        overlapping,
        count(found.misaligned, "misaligned offset", "misaligned offsets"),
        count(found.outside, "buffer out of bounds", "buffers out of bounds"),
    );
    Ok(found.lines.is_empty())
}

/// How findings name buffers.
struct Shown<'a> {
    file: &'a PlanFile,
    problem: &'a Problem,
    placed: &'a [Placed],
    /// The model the plan is of, whose operators name the steps.
    model: Option<&'a ModelFile>,
}

impl Shown<'_> {
    fn extent(&self, i: usize) -> Extent {
        let b = &self.problem.buffers[i];
        Extent {
            offset: self.placed[i].offset,
            size: b.size,
            first: b.lifetime.first,
            last: b.lifetime.last,
        }
    }

    /// `FILE:LINE` of buffer `i` (`FILE: tensor 12 (`conv1`)` for a model's).
    fn at(&self, i: usize) -> String {
        self.file.buffers[i].place(&self.file.file)
    }

    /// Where buffer `i` is in its file, inside a description: `line 5: ` or `tensor 12
    /// (`conv1`): `.
    fn where_in(&self, i: usize) -> String {
        let b = &self.file.buffers[i];
        match &b.origin {
            Some(o) => format!("{o}: "),
            None => format!("line {}: ", b.line),
        }
    }

    /// `` `a` (bytes 0..768, live 0..=3) ``.
    fn describe(&self, i: usize) -> String {
        self.describe_at(i, "")
    }

    /// [`Shown::describe`] with `before` inside the parentheses.
    fn describe_at(&self, i: usize, before: &str) -> String {
        let e = self.extent(i);
        format!(
            "`{}` ({before}bytes {}..{}, live {}..={})",
            self.problem.buffers[i].name,
            e.offset,
            u128::from(e.offset) + u128::from(e.size),
            e.first,
            e.last
        )
    }

    fn overlap(&self, a: usize, b: usize, place: &str) -> String {
        let (x, y) = (self.extent(a), self.extent(b));
        let first = x.first.max(y.first);
        // A `.pte` program's steps are its instructions: name the first.
        let instruction = self
            .model
            .filter(|m| m.format == ModelFormat::Pte)
            .and_then(|m| m.operators.get(first as usize))
            .map_or(String::new(), |o| {
                format!(", from instruction {first} (`{}`) on", o.name)
            });
        format!(
            "{}: buffers {} and {} overlap{place}: bytes {}..{} are used by both at steps {}..={}{instruction}",
            self.at(a),
            self.describe(a),
            self.describe_at(b, &self.where_in(b)),
            x.offset.max(y.offset),
            x.end().min(y.end()),
            first,
            x.last.min(y.last)
        )
    }
}

/// Whether `a` and `b` share bytes on purpose: one is in place of the other (directly or
/// through a chain, JSON's `in_place_of`) at the same offset, and the earlier one's last
/// step is at most the later one's first, as the in-place rule allows.
fn in_place_pair(problem: &Problem, placed: &[Placed], a: usize, b: usize) -> bool {
    if placed[a] != placed[b] {
        return false;
    }
    let descends = |from: usize, to: usize| {
        let mut cur = from;
        // A chain is at most every buffer long (a cycle never ends on `to`).
        for _ in 0..problem.buffers.len() {
            match problem.buffers[cur].in_place_of {
                Some(s) if s == to => return true,
                Some(s) => cur = s,
                None => return false,
            }
        }
        false
    };
    let (x, y) = (&problem.buffers[a].lifetime, &problem.buffers[b].lifetime);
    (descends(b, a) && x.last <= y.first) || (descends(a, b) && y.last <= x.first)
}
