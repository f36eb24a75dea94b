//! `memplan inspect FIRMWARE.elf`: the plans read back from a built firmware, from the
//! descriptions the macro embeds in its `.memplan.info` section (not allocated: kept in
//! the ELF, never loaded).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use memplan_lang::info::{self, PlanInfo};
use memplan_lang::linker::{PlanKey, section_name};
use memplan_planner::{Buffer, Placed, Plan, Problem, Region, RegionPlan};
use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SymbolKind};
use serde::Serialize;

use crate::options::OutputFormat;
use crate::planned::Planned;
use crate::{svg, trace};

/// Print the plans linked into a firmware ELF, read back from its .memplan.info section.
///
/// The macro embeds a description of each plan (regions, pools, buffers, offsets,
/// lifetimes, strategy, lower bound) in .memplan.info on bare-metal ELF targets; memplan's
/// linker fragment keeps the section in the ELF without allocating it (no flash, no RAM).
/// Prints each plan's report (the text `memplan check` prints from the source), then where
/// its arenas and pools are in the firmware, from the ELF's symbols (the arena statics,
/// else the sections of arenas placed in a memory), and each buffer's absolute address.
/// With --report, the report alone; with --format json, one JSON object. Can also draw
/// the memory map (--svg) or write the Chrome trace (--trace).
///
/// Exit status: 0 when the plans are read, 1 when a description is inconsistent (not as
/// memplan writes it: nothing is drawn from it), 2 when the file is not such an ELF.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The firmware: an ELF file linked with memplan's fragment.
    pub elf: PathBuf,
    /// Print only each plan's report: the same text as `memplan check` on the source.
    #[arg(long, conflicts_with = "format")]
    pub report: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
    /// Also draw the memory map to this SVG file, as `memplan svg` does.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write the plan as a Chrome trace to this file, as `memplan trace` does.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

/// Runs `memplan inspect`.
pub fn run(args: Args) -> Result<bool, String> {
    let inputs = [args.elf.clone()];
    if let Some(out) = &args.svg {
        crate::output::not_an_input("--svg", out, &inputs, &[])?;
    }
    if let Some(out) = &args.trace {
        let others: Vec<&std::path::Path> = args.svg.as_deref().into_iter().collect();
        crate::output::not_an_input("--trace", out, &inputs, &others)?;
    }
    let bytes = read_elf(&args.elf)?;
    let elf =
        object::File::parse(&*bytes).map_err(|e| format!("{}: {e}", args.elf.display()))?;
    let plans = decode(&args.elf, &elf)?;
    let mut consistent = true;
    for plan in &plans {
        let problems = plan.problems();
        if problems.is_empty() {
            continue;
        }
        // Not what the macro writes: say so, and draw nothing from it.
        consistent = false;
        eprintln!(
            "error: {}: the description of plan `{}` is inconsistent (not as memplan wrote it): {}",
            args.elf.display(),
            plan.plan,
            memplan_planner::listed(&problems, |p| p.clone())
        );
    }
    if !consistent {
        return Ok(false);
    }
    let symbols = Symbols::of(&elf);
    let found: Vec<Addresses> = plans.iter().map(|p| addresses(p, &elf, &symbols)).collect();
    if args.format == OutputFormat::Json {
        let report = json_report(&args.elf, &plans, &found);
        let out = serde_json::to_string_pretty(&report)
            .map_err(|e| format!("cannot write JSON: {e}"))?;
        println!("{out}");
    } else {
        for (plan, at) in plans.iter().zip(&found) {
            print!("{}", plan.report());
            if !args.report {
                print!("{}", placed_text(plan, at));
            }
        }
    }
    if args.svg.is_some() || args.trace.is_some() {
        let planned: Vec<Planned> = plans.iter().map(planned).collect();
        if let Some(out) = &args.svg {
            svg::write(&planned, out, false)?;
        }
        if let Some(out) = &args.trace {
            trace::write(&planned, out, trace::Rows::Steps)?;
        }
    }
    Ok(true)
}

/// Where a plan's arenas are in the firmware: each region's and each pool's start address,
/// where the ELF says it.
struct Addresses {
    regions: Vec<Option<u64>>,
    pools: Vec<Option<u64>>,
}

/// The ELF's defined symbols by name (names that occur twice, as local statics of two
/// crates may, are left out: they say nothing certain).
struct Symbols {
    by_name: HashMap<String, Option<u64>>,
}

impl Symbols {
    fn of(elf: &object::File<'_>) -> Symbols {
        let mut by_name: HashMap<String, Option<u64>> = HashMap::new();
        for sym in elf.symbols() {
            if sym.is_undefined() || sym.kind() == SymbolKind::Text {
                continue;
            }
            let Ok(name) = sym.name() else { continue };
            if !name.contains("__MEMPLAN_") {
                continue;
            }
            by_name
                .entry(name.to_string())
                .and_modify(|v| {
                    if *v != Some(sym.address()) {
                        *v = None;
                    }
                })
                .or_insert(Some(sym.address()));
        }
        Symbols { by_name }
    }

    /// The address of the static `item` (`__MEMPLAN_ARENA_0`) of the module `path` of
    /// crate `krate`, by its mangled name (legacy `_ZN...` or v0 `_R...`): the symbol whose
    /// name holds the crate and module path and the item, length-prefixed as both manglings
    /// write identifiers; `None` when no symbol, or more than one, matches.
    fn static_in(&self, krate: &str, path: &[String], item: &str) -> Option<u64> {
        let ident = |s: &str, v0: bool| {
            let sep = if v0 && s.starts_with(|c: char| c == '_' || c.is_ascii_digit()) {
                "_"
            } else {
                ""
            };
            format!("{}{sep}{s}", s.len())
        };
        let needle = |v0: bool| {
            let mut n: String = std::iter::once(krate)
                .chain(path.iter().map(String::as_str))
                .map(|s| ident(s, v0))
                .collect();
            n.push_str(&ident(item, v0));
            n
        };
        let (legacy, v0) = (needle(false), needle(true));
        let mut hits = self.by_name.iter().filter(|(name, _)| {
            (name.starts_with("_ZN") && name.contains(&format!("{legacy}17h")))
                || (name.starts_with("_R") && name.ends_with(&v0))
        });
        match (hits.next(), hits.next()) {
            (Some((_, &address)), None) => address,
            _ => None,
        }
    }
}

/// The addresses of `plan`'s arenas and pools: the arena statics by their symbols, else,
/// for one placed in a memory, the start of its section.
fn addresses(plan: &PlanInfo, elf: &object::File<'_>, symbols: &Symbols) -> Addresses {
    let path: Vec<String> = plan.plan.split("::").map(str::to_string).collect();
    let krate = plan.package.replace('-', "_");
    let key = PlanKey::new(&plan.package, &path);
    let section = |kind: &str, name: &str| {
        elf.section_by_name(&section_name(&key, kind, name))
            .map(|s| s.address())
    };
    Addresses {
        regions: plan
            .regions
            .iter()
            .enumerate()
            .map(|(r, region)| {
                symbols
                    .static_in(&krate, &path, &format!("__MEMPLAN_ARENA_{r}"))
                    .or_else(|| region.memory.as_ref().and_then(|_| section("region", &region.name)))
            })
            .collect(),
        pools: plan
            .pools
            .iter()
            .map(|pool| {
                let item = format!("__MEMPLAN_{}", pool.name.to_uppercase());
                symbols
                    .static_in(&krate, &path, &item)
                    .or_else(|| pool.memory.as_ref().and_then(|_| section("pool", &pool.name)))
            })
            .collect(),
    }
}

fn hex_or_unknown(address: Option<u64>) -> String {
    address.map_or("-".to_string(), |a| format!("{a:#010x}"))
}

/// The arenas, pools and buffers of `plan` at their addresses in the firmware.
fn placed_text(plan: &PlanInfo, at: &Addresses) -> String {
    let mut s = String::from("arenas and pools in the firmware (start address from its symbols; - where it has none)\n");
    let memory = |m: &Option<String>| m.as_ref().map_or(".bss".to_string(), |m| format!("memory {m}"));
    s.push_str(&format!(
        "  {:<8} {:<16} {:>10} {:>12}  {}\n",
        "kind", "name", "address", "bytes", "placed in"
    ));
    for (r, region) in plan.regions.iter().enumerate() {
        s.push_str(&format!(
            "  {:<8} {:<16} {:>10} {:>12}  {}\n",
            "region",
            region.name,
            hex_or_unknown(at.regions[r]),
            region.planned,
            memory(&region.memory)
        ));
    }
    for (k, pool) in plan.pools.iter().enumerate() {
        s.push_str(&format!(
            "  {:<8} {:<16} {:>10} {:>12}  {}\n",
            "pool",
            pool.name,
            hex_or_unknown(at.pools[k]),
            pool.bytes,
            memory(&pool.memory)
        ));
    }
    if plan.pools.is_empty() {
        s.push_str("  (no pool lines: the description is of version 1 or 2, before memplan wrote them)\n");
    }
    s.push_str(&format!(
        "buffers\n  {:<32} {:<16} {:>10} {:>10} {:>12}  {}\n",
        "name", "region", "address", "offset", "bytes", "live"
    ));
    for b in &plan.buffers {
        let address = at.regions[b.region].and_then(|a| a.checked_add(b.offset));
        s.push_str(&format!(
            "  {:<32} {:<16} {:>10} {:>10} {:>12}  {}..={}\n",
            b.name,
            plan.regions[b.region].name,
            hex_or_unknown(address),
            b.offset,
            b.size,
            b.first,
            b.last
        ));
    }
    s
}

/// `memplan inspect --format json` (memplan-cli/JSON.md).
#[derive(Serialize)]
struct JsonInspect {
    version: u32,
    file: String,
    plans: Vec<JsonInspectPlan>,
}

#[derive(Serialize)]
struct JsonInspectPlan {
    name: String,
    package: String,
    strategy: String,
    sources: Vec<JsonSource>,
    regions: Vec<JsonInspectRegion>,
    pools: Vec<JsonInspectPool>,
    buffers: Vec<JsonInspectBuffer>,
}

#[derive(Serialize)]
struct JsonSource {
    name: String,
    bytes: u64,
    sha256: String,
}

#[derive(Serialize)]
struct JsonInspectRegion {
    name: String,
    memory_id: usize,
    address: Option<u64>,
    capacity: u64,
    planned_bytes: u64,
    lower_bound: u64,
    peak_step: Option<u32>,
    align: u64,
    proven_optimal: bool,
    search_nodes: u64,
    memory: Option<String>,
}

#[derive(Serialize)]
struct JsonInspectPool {
    name: String,
    address: Option<u64>,
    size: u64,
    align: u64,
    memory: Option<String>,
}

#[derive(Serialize)]
struct JsonInspectBuffer {
    name: String,
    region: String,
    memory_id: usize,
    offset: u64,
    address: Option<u64>,
    size: u64,
    first: u32,
    last: u32,
}

fn json_report(elf: &Path, plans: &[PlanInfo], found: &[Addresses]) -> JsonInspect {
    JsonInspect {
        version: 1,
        file: elf.display().to_string(),
        plans: plans
            .iter()
            .zip(found)
            .map(|(p, at)| JsonInspectPlan {
                name: p.plan.clone(),
                package: p.package.clone(),
                strategy: p.strategy.to_string(),
                sources: p
                    .sources
                    .iter()
                    .map(|f| JsonSource {
                        name: f.name.clone(),
                        bytes: f.bytes,
                        sha256: f.sha256.clone(),
                    })
                    .collect(),
                regions: p
                    .regions
                    .iter()
                    .enumerate()
                    .map(|(r, rs)| JsonInspectRegion {
                        name: rs.name.clone(),
                        memory_id: r,
                        address: at.regions[r],
                        capacity: rs.capacity,
                        planned_bytes: rs.planned,
                        lower_bound: rs.lower_bound,
                        peak_step: rs.peak_step,
                        align: rs.align,
                        proven_optimal: rs.proven_optimal,
                        search_nodes: rs.nodes,
                        memory: rs.memory.clone(),
                    })
                    .collect(),
                pools: p
                    .pools
                    .iter()
                    .zip(&at.pools)
                    .map(|(q, &address)| JsonInspectPool {
                        name: q.name.clone(),
                        address,
                        size: q.bytes,
                        align: q.align,
                        memory: q.memory.clone(),
                    })
                    .collect(),
                buffers: p
                    .buffers
                    .iter()
                    .map(|b| JsonInspectBuffer {
                        name: b.name.clone(),
                        region: p.regions[b.region].name.clone(),
                        memory_id: b.region,
                        offset: b.offset,
                        address: at.regions[b.region].and_then(|a| a.checked_add(b.offset)),
                        size: b.size,
                        first: b.first,
                        last: b.last,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The bytes of the ELF file `file`.
fn read_elf(file: &Path) -> Result<Vec<u8>, String> {
    memplan_planner::files::read_bounded(file).map_err(|e| format!("{}: {e}", file.display()))
}

/// The plans described in `elf` (read from `file`), in link order.
fn decode(file: &Path, elf: &object::File<'_>) -> Result<Vec<PlanInfo>, String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let Some(section) = elf.section_by_name(info::SECTION) else {
        return Err(at(&format_args!(
            "no {} section: no memory_plan! is linked into it, or it is not an ELF firmware (the descriptions are emitted for bare-metal ELF targets only)",
            info::SECTION
        )));
    };
    if let SectionFlags::Elf { sh_flags, .. } = section.flags()
        && sh_flags.contains(object::elf::SHF_ALLOC)
    {
        return Err(at(&format_args!(
            "its {} section is allocated (loaded into the device's memory): link it with memplan's fragment (memplan-build, or `memplan linker`), which keeps it out",
            info::SECTION
        )));
    }
    let data = section.data().map_err(|e| at(&e))?;
    PlanInfo::decode_all(data).map_err(|e| at(&format_args!("{}: {e}", info::SECTION)))
}

/// A description as the plan the other commands draw: its regions and buffers (each in
/// its region, at its offset) and each region's figures as the macro planned them.
fn planned(info: &PlanInfo) -> Planned {
    let problem = Problem {
        regions: info
            .regions
            .iter()
            .map(|r| Region {
                name: r.name.clone(),
                capacity: r.capacity,
                align: r.align,
            })
            .collect(),
        buffers: info
            .buffers
            .iter()
            .map(|b| Buffer::new(b.name.clone(), b.size, b.region, b.first, b.last))
            .collect(),
    };
    let plan = Plan {
        strategy: info.strategy,
        buffers: info
            .buffers
            .iter()
            .map(|b| Placed {
                region: b.region,
                offset: b.offset,
            })
            .collect(),
        regions: info
            .regions
            .iter()
            .map(|r| RegionPlan {
                capacity: r.capacity,
                planned_bytes: r.planned,
                lower_bound: r.lower_bound,
                peak_step: r.peak_step,
                align: r.align,
                proven_optimal: r.proven_optimal,
                search_nodes: r.nodes,
            })
            .collect(),
    };
    Planned {
        title: info.plan.clone(),
        ids: (0..info.regions.len() as u64).collect(),
        problem,
        plan,
        given: false,
        file_bytes: None,
        by_region: Default::default(),
        elements: Vec::new(),
        pools: info
            .pools
            .iter()
            .map(|q| crate::planned::Pool {
                name: q.name.clone(),
                bytes: q.bytes,
                align: q.align,
                memory: q.memory.clone(),
            })
            .collect(),
    }
}
