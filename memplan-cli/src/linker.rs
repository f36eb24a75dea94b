//! `memplan linker FILE.rs...`: the linker fragment `memplan-build` writes from a build
//! script, for firmware built without one.

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

/// Print the linker fragment of the memory_plan! invocations in Rust source files.
///
/// The fragment is the one `memplan_build::linker_fragment` writes from a build script (for
/// firmware built without one): a NOLOAD output section per arena placed with `memory M`,
/// in MEMORY region M, and an ASSERT that it fits. Pass it to the linker after
/// cortex-m-rt's link.x (-Tlink.x -Tmemplan.x), or INCLUDE it at the end of memory.x.
///
/// Exit status: 0 when every invocation plans, 1 when one has errors (it is left out of the
/// fragment; `memplan check` prints them), 2 when a file cannot be read.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The Rust source files (.rs), in the order the fragment lists them.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The package the files belong to (part of every section name); default: the
    /// `[package]` name of the nearest Cargo.toml above the first file.
    #[arg(long)]
    pub package: Option<String>,
    /// Where `buffers ... from out_dir "..."` files are; default: the OUT_DIR environment
    /// variable.
    #[arg(long, value_name = "DIR", env = "OUT_DIR")]
    pub out_dir: Option<PathBuf>,
    /// Write the fragment to this file instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `memplan linker`.
pub fn run(args: Args) -> Result<bool, String> {
    let Args {
        files,
        package,
        out_dir,
        output,
    } = args;
    let (out_dir, out) = (out_dir.as_deref(), output.as_deref());
    let package = match package {
        Some(p) => p,
        None => package_of(&files[0])?,
    };
    let labelled: Vec<(PathBuf, String)> = files
        .iter()
        .map(|f| (f.clone(), f.display().to_string()))
        .collect();
    let options = memplan_lang::driver::Options {
        out_dir: out_dir.map(Path::to_path_buf),
        root: memplan_lang::driver::package_root(&files[0]),
        ..memplan_lang::driver::Options::default()
    };
    let fragment = memplan_lang::driver::fragment_of_files(&package, &labelled, &options)
        // The message names the file already.
        .map_err(|(_, e)| e)?;
    match out {
        Some(path) => {
            crate::output::not_an_input("-o", path, &fragment.read, &[])?;
            crate::output::write(path, fragment.text.as_bytes())?;
        }
        None => print!("{}", fragment.text),
    }
    let all_planned = fragment.planned == fragment.invocations;
    for skipped in &fragment.skipped {
        eprintln!("memplan linker: {skipped}");
    }
    if !all_planned {
        eprintln!(
            "memplan linker: {} of {} {} errors and {} left out; `memplan check` prints them",
            fragment.invocations - fragment.planned,
            crate::words::count(fragment.invocations, "invocation"),
            if fragment.invocations - fragment.planned == 1 { "has" } else { "have" },
            if fragment.invocations - fragment.planned == 1 { "is" } else { "are" },
        );
    }
    Ok(all_planned)
}

/// The `[package]` name of the nearest `Cargo.toml` in `file`'s folder or above.
fn package_of(file: &Path) -> Result<String, String> {
    let start = std::path::absolute(file).map_err(|e| format!("{}: {e}", file.display()))?;
    for dir in start.ancestors().skip(1) {
        let manifest = dir.join("Cargo.toml");
        // Not a regular file (a FIFO, a device): refused unopened, and looked past.
        let Ok(text) = memplan_planner::files::read_text(&manifest) else {
            continue;
        };
        let value: toml::Table = text
            .parse()
            .map_err(|e| format!("{}: {e}", manifest.display()))?;
        if let Some(name) = value
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(|n| n.as_str())
        {
            return Ok(name.to_string());
        }
    }
    Err(format!(
        "{}: no Cargo.toml with a [package] name above it: give the package with --package",
        file.display()
    ))
}
