//! `memplan emit FILE --name NAME`: the plan of a plan file as a `memory_plan!`
//! invocation, for code generators. It plans the file as `memplan plan FILE` does (the
//! same options, the same strategy) and writes the problem with `memplan_lang::write`,
//! which reads the text back through the macro's front end and checks that it plans to the
//! same offsets before anything is printed.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use memplan_lang::write::{self, WriteOptions};

use crate::input::{self, is_rust};
use crate::options::{Offsets, ProblemArgs};
use crate::progress;

/// Print a memory_plan! invocation of FILE's plan.
///
/// FILE is a plan file, as for `memplan plan` (told apart by its content), planned with
/// the same options: what is printed compiles and plans to the offsets `memplan plan FILE`
/// reports with the same options. Regions are written with their capacity; an unbounded
/// region (a CSV file's, without --capacity) with its planned bytes. Buffers become
/// `buffer NAME: SIZE bytes in REGION, live FIRST..=LAST` (with `align` and `at` where
/// the file gives them, `in place of SOURCE` for JSON's `in_place_of`), or `[T; N]` for
/// a row whose dtype is a Rust primitive T (when T's size divides its bytes and is at most
/// its alignment, so the offsets stay the same); names that are not identifiers are
/// mangled (`a.b` -> `a_b`), keeping the name as a doc comment.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The plan file.
    pub file: PathBuf,
    /// The module's name (a Rust identifier).
    #[arg(long, value_name = "NAME")]
    pub name: String,
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// The macro's path, for a crate that re-exports it.
    #[arg(long, value_name = "PATH", default_value = "memplan_runtime::memory_plan")]
    pub macro_path: String,
    /// Write the invocation to this file instead of stdout (in place of what it holds, only
    /// once it is complete).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

/// Runs `memplan emit`.
pub fn run(args: Args) -> Result<bool, String> {
    if is_rust(&args.file) {
        return Err(format!(
            "{}: a .rs file is memory_plan! source already; `memplan emit` reads plan files",
            args.file.display()
        ));
    }
    let show = progress::wanted(false);
    let Some(loaded) = input::load(&args.file, &args.problem, Offsets::Plan, show)? else {
        return Ok(false);
    };
    let Some(p) = loaded.plans.first() else {
        return Ok(false);
    };
    let options = WriteOptions {
        macro_path: args.macro_path,
        module: args.name,
        doc: vec![format!("Planned from {}.", loaded.describe)],
    };
    let text = write::invocation_typed(&p.problem, &p.plan, &p.elements, &options)?;
    match &args.output {
        Some(out) => {
            crate::output::not_an_input("-o", out, &loaded.read, &[])?;
            crate::output::write(out, text.as_bytes())?;
        }
        None => print!("{text}"),
    }
    Ok(true)
}
