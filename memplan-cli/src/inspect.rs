//! `memplan inspect FIRMWARE.elf`: the plans read back from a built firmware, from the
//! descriptions the macro embeds in its `.memplan.info` section (not allocated: kept in
//! the ELF, never loaded).

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use memplan_lang::info::{self, PlanInfo};
use memplan_planner::{Buffer, Placed, Plan, Problem, Region, RegionPlan};
use object::{Object, ObjectSection, SectionFlags};

use crate::planned::Planned;
use crate::{svg, trace};

/// Print the plans linked into a firmware ELF, read back from its .memplan.info section.
///
/// The macro embeds a description of each plan (regions, buffers, offsets, lifetimes,
/// strategy, lower bound) in .memplan.info on bare-metal ELF targets; memplan's linker
/// fragment keeps the section in the ELF without allocating it (no flash, no RAM). Prints
/// each plan's report, the text `memplan check` prints from the source, and can draw the
/// memory map (--svg) or write the Chrome trace (--trace) from it.
///
/// Exit status: 0 when the plans are read, 1 when a description is inconsistent (not as
/// memplan writes it: nothing is drawn from it), 2 when the file is not such an ELF.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The firmware: an ELF file linked with memplan's fragment.
    pub elf: PathBuf,
    /// Also draw the memory map to this SVG file, as `memplan svg` does.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write the plan as a Chrome trace to this file, as `memplan trace` does.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

/// Runs `memplan inspect`.
pub fn run(args: Args) -> Result<bool, String> {
    let plans = plans(&args.elf)?;
    let mut consistent = true;
    for plan in &plans {
        let problems = plan.problems();
        if problems.is_empty() {
            print!("{}", plan.report());
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

/// The plans described in the ELF file `file`, in link order.
pub fn plans(file: &Path) -> Result<Vec<PlanInfo>, String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let bytes = memplan_planner::files::read_bounded(file).map_err(|e| at(&e))?;
    let elf = object::File::parse(&*bytes).map_err(|e| at(&e))?;
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
    }
}
