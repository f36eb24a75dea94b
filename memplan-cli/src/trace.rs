//! `memplan trace FILE -o plan.json`: the plan as a Chrome trace-event file, laid out as
//! ExecuTorch's `generate_memory_trace` (`util/activation_memory_profiler.py`, with
//! `enable_memory_offsets=True`) lays out its plan: the x axis is bytes, one row per step,
//! one process per memory id. Each buffer live at a step is one complete event
//! (`"ph": "X"`, `"cat": "memory_allocation"`) named after the buffer, with
//! `"ts"` its offset and `"dur"` its size in bytes (the viewer's microseconds are bytes),
//! `"pid"` its memory id and `"tid"` the step's row: rows are numbered from 0 over the
//! steps at which anything is live, in order, as ExecuTorch numbers them, and `args` holds
//! `"Memory ID"` and `"bytes"` as ExecuTorch's do, with the offset, the lifetime and the
//! region. memplan adds metadata events (`"ph": "M"`) naming each process after its region
//! and each row after its step, which ExecuTorch leaves out. It opens in Perfetto
//! (ui.perfetto.dev) and chrome://tracing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::{Args as ClapArgs, ValueEnum};
use serde::Serialize;
use serde_json::json;

use crate::input;
use crate::options::{Offsets, ProblemArgs};
use crate::planned::Planned;
use crate::progress;

/// Write FILE's plan as a Chrome trace (Perfetto, chrome://tracing), laid out as
/// ExecuTorch's generate_memory_trace lays out its plans: x is bytes (ts = offset, dur =
/// size), one row (tid) per step, one process (pid) per memory id.
///
/// FILE: any plan input, as for `memplan plan` (planned first), or a plan with offsets
/// (--offsets file).
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The plan file, model (.tflite, .pte) or Rust source file.
    pub file: PathBuf,
    /// The trace file to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Where the offsets come from.
    #[arg(long, value_enum, default_value_t)]
    pub offsets: Offsets,
    /// One row per step (ExecuTorch's layout), or per section: a run of steps at which the
    /// same buffers are live (for plans with very many steps).
    #[arg(long, value_enum, default_value_t)]
    pub rows: Rows,
}

/// What a row of the trace stands for.
#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Rows {
    /// A step at which some buffer is live.
    #[default]
    Steps,
    /// A run of steps at which the same buffers are live.
    Sections,
}

/// The most events a trace is written with (a viewer struggles far below it).
pub const MAX_EVENTS: u128 = 10_000_000;

/// The events a trace may have per buffer, past the first [`MIN_EVENTS`]: a buffer live at
/// millions of steps (a lifetime is a number, not the input's size) would otherwise write
/// millions of events from one line of input.
pub const EVENTS_PER_BUFFER: u128 = 1024;

/// The events any trace may have: 65,536.
pub const MIN_EVENTS: u128 = 1 << 16;

/// The most events the trace of a plan of `buffers` buffers is written with:
/// [`EVENTS_PER_BUFFER`] per buffer, at least [`MIN_EVENTS`], at most [`MAX_EVENTS`], so
/// that the file grows with the plan's buffers, never with its step numbers alone.
pub fn max_events(buffers: usize) -> u128 {
    (EVENTS_PER_BUFFER * buffers as u128).clamp(MIN_EVENTS, MAX_EVENTS)
}

/// Why `p`, of `events` events, is not written: more than [`max_events`].
fn too_many(p: &Planned, events: u128, what: &str) -> String {
    let n = p.problem.buffers.len();
    format!(
        "`{}` would make {events} events ({what}), more than the {} a trace of {} is written with ({EVENTS_PER_BUFFER} per buffer, at least {MIN_EVENTS}, at most {MAX_EVENTS})",
        p.title,
        max_events(n),
        crate::words::count(n, "buffer")
    )
}

/// Runs `memplan trace`.
pub fn run(args: Args) -> Result<bool, String> {
    let Some(loaded) =
        input::load(&args.file, &args.problem, args.offsets, progress::wanted(false))?
    else {
        return Ok(false);
    };
    crate::output::not_an_input("-o", &args.output, &loaded.read, &[])?;
    write(&loaded.plans, &args.output, args.rows)?;
    Ok(true)
}

/// Writes the trace of `plans` to `output`, a row per `rows` (in place of what it holds:
/// [`crate::output::write_with`]).
pub fn write(plans: &[Planned], output: &Path, rows: Rows) -> Result<(), String> {
    let mut events = Vec::new();
    let mut row_base = 0;
    let mut next_pid = 0;
    let one = plans.len() == 1;
    for p in plans {
        // One plan: a process per memory id. Several (a .rs file's invocations): a process
        // per region of each, numbered on, the memory id in `args`.
        let pids: Vec<u64> = if one {
            p.ids.clone()
        } else {
            (next_pid..next_pid + p.ids.len() as u64).collect()
        };
        next_pid += p.ids.len() as u64;
        row_base = plan_events(p, &pids, rows, row_base, &mut events)?;
    }
    let trace = Trace {
        trace_events: events,
    };
    crate::output::write_with(output, |out| {
        serde_json::to_writer_pretty(out, &trace).map_err(std::io::Error::from)
    })
}

/// The file: `{"traceEvents": [...]}`, as ExecuTorch writes it.
#[derive(Serialize)]
struct Trace {
    #[serde(rename = "traceEvents")]
    trace_events: Vec<Event>,
}

/// One trace event: a buffer at a step, or a name.
#[derive(Serialize)]
#[serde(untagged)]
enum Event {
    /// A buffer live at a step, with ExecuTorch's fields in its order.
    Allocation {
        name: String,
        cat: &'static str,
        ph: &'static str,
        ts: u64,
        dur: u64,
        pid: u64,
        tid: u64,
        args: AllocationArgs,
    },
    /// A process's or a row's name or order.
    Meta {
        name: &'static str,
        ph: &'static str,
        pid: u64,
        tid: u64,
        args: serde_json::Value,
    },
}

/// An allocation's `args`: ExecuTorch's `Memory ID` and `bytes`, then memplan's.
#[derive(Serialize)]
struct AllocationArgs {
    #[serde(rename = "Memory ID")]
    memory_id: u64,
    bytes: u64,
    offset: u64,
    first: u32,
    last: u32,
    region: String,
}

/// The rows of `p`: inclusive step ranges, in order, at which something is live.
fn rows(p: &Planned, rows: Rows) -> Result<Vec<(u32, u32)>, String> {
    let buffers = &p.problem.buffers;
    let events: u128 = buffers.iter().map(|b| u128::from(b.lifetime.len())).sum();
    if rows == Rows::Steps && events > max_events(buffers.len()) {
        return Err(format!(
            "{}: use --rows sections",
            too_many(p, events, "one per buffer per step it is live")
        ));
    }
    let mut bounds = BTreeSet::new();
    for b in buffers {
        bounds.insert(u64::from(b.lifetime.first));
        bounds.insert(u64::from(b.lifetime.last) + 1);
    }
    let bounds: Vec<u64> = bounds.into_iter().collect();
    let mut covered = vec![0i64; bounds.len()];
    for b in buffers {
        covered[bounds.partition_point(|&t| t < u64::from(b.lifetime.first))] += 1;
        covered[bounds.partition_point(|&t| t <= u64::from(b.lifetime.last))] -= 1;
    }
    let mut out = Vec::new();
    let mut live = 0;
    for k in 0..bounds.len().saturating_sub(1) {
        live += covered[k];
        if live == 0 {
            continue;
        }
        let (lo, hi) = (bounds[k] as u32, (bounds[k + 1] - 1) as u32);
        match rows {
            Rows::Sections => out.push((lo, hi)),
            Rows::Steps => out.extend((lo..=hi).map(|t| (t, t))),
        }
    }
    Ok(out)
}

/// Appends `p`'s events, region `r` as process `pids[r]`, its rows numbered from
/// `row_base`; returns the next row number.
fn plan_events(
    p: &Planned,
    pids: &[u64],
    mode: Rows,
    row_base: u64,
    events: &mut Vec<Event>,
) -> Result<u64, String> {
    let rows = rows(p, mode)?;
    // Each buffer's rows, counted before any event is made.
    let spans: Vec<(usize, usize)> = p
        .problem
        .buffers
        .iter()
        .map(|b| {
            let lo = rows.partition_point(|&(_, hi)| hi < b.lifetime.first);
            let hi = rows.partition_point(|&(lo, _)| lo <= b.lifetime.last);
            (lo, hi.max(lo))
        })
        .collect();
    let count: u128 = spans.iter().map(|&(lo, hi)| (hi - lo) as u128).sum();
    if count > max_events(p.problem.buffers.len()) {
        return Err(too_many(p, count, "one per buffer per row it is live in"));
    }
    let mut cells: Vec<(usize, usize)> = Vec::with_capacity(count as usize);
    for (i, &(lo, hi)) in spans.iter().enumerate() {
        cells.extend((lo..hi).map(|row| (row, i)));
    }
    cells.sort_unstable();
    for (r, region) in p.problem.regions.iter().enumerate() {
        events.push(meta("process_name", pids[r], 0, json!({ "name": format!("{}: region `{}` (memory id {})", p.title, region.name, p.ids[r]) })));
    }
    let mut named = BTreeSet::new();
    for &(row, i) in &cells {
        let b = &p.problem.buffers[i];
        let placed = p.plan.buffers[i];
        let (pid, tid) = (pids[placed.region], row_base + row as u64);
        if named.insert((pid, tid)) {
            let (lo, hi) = rows[row];
            let label = if lo == hi { format!("step {lo}") } else { format!("steps {lo}..={hi}") };
            events.push(meta("thread_name", pid, tid, json!({ "name": label })));
            events.push(meta("thread_sort_index", pid, tid, json!({ "sort_index": tid })));
        }
        events.push(Event::Allocation {
            name: b.name.clone(),
            cat: "memory_allocation",
            ph: "X",
            ts: placed.offset,
            dur: b.size,
            pid,
            tid,
            args: AllocationArgs {
                memory_id: p.ids[placed.region],
                bytes: b.size,
                offset: placed.offset,
                first: b.lifetime.first,
                last: b.lifetime.last,
                region: p.problem.regions[placed.region].name.clone(),
            },
        });
    }
    Ok(row_base + rows.len() as u64)
}

fn meta(name: &'static str, pid: u64, tid: u64, args: serde_json::Value) -> Event {
    Event::Meta {
        name,
        ph: "M",
        pid,
        tid,
        args,
    }
}
