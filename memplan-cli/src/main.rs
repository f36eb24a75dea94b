//! `memplan`: memplan's command line, on the same front end as the `memory_plan!` macro.
//!
//! ```text
//! memplan check src/main.rs            # every memory_plan! invocation in the file
//! memplan check src/main.rs --out-dir target/debug/build/x-1234/out
//! memplan linker src/lib.rs -o memplan.x   # the linker fragment memplan-build writes
//! memplan inspect target/thumbv7em-none-eabihf/release/firmware
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;
mod inspect;
mod linker;

#[derive(Parser, Debug)]
#[command(
    name = "memplan",
    version,
    about = "Plan and check firmware memory as memory_plan! does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check every `memory_plan!` invocation in a Rust source file, with the macro's own
    /// messages (FILE:LINE:COLUMN), and print each plan's report; exit 1 on any error.
    ///
    /// Plan files named by an invocation are read relative to FILE, as the macro reads
    /// them.
    Check {
        /// The Rust source file (`.rs`).
        file: PathBuf,
        /// Where `buffers ... from out_dir "..."` files are (the crate's OUT_DIR); default:
        /// the OUT_DIR environment variable.
        #[arg(long, value_name = "DIR", env = "OUT_DIR")]
        out_dir: Option<PathBuf>,
    },
    /// Print the linker fragment of the `memory_plan!` invocations in Rust source files,
    /// as `memplan_build::linker_fragment` writes it from a build script: for firmware
    /// built without one. Exit 1 if an invocation has errors (it is left out).
    Linker {
        /// The Rust source files (`.rs`), in the order the fragment lists them.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The package the files belong to (part of every section name); default: the
        /// `[package]` name of the nearest `Cargo.toml` above the first file.
        #[arg(long)]
        package: Option<String>,
        /// Where `buffers ... from out_dir "..."` files are; default: OUT_DIR.
        #[arg(long, value_name = "DIR", env = "OUT_DIR")]
        out_dir: Option<PathBuf>,
        /// Write the fragment to this file instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Print the plans linked into a firmware ELF, read back from the descriptions the macro
    /// embeds in its `.memplan.info` section (not allocated: no flash, no RAM): each plan's
    /// report, as `memplan check` prints it from the source.
    Inspect {
        /// The firmware: an ELF file linked with memplan's fragment.
        elf: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Check { file, out_dir } => check::run(file, out_dir.as_deref()),
        Command::Linker {
            files,
            package,
            out_dir,
            output,
        } => linker::run(
            files,
            package.as_deref(),
            out_dir.as_deref(),
            output.as_deref(),
        ),
        Command::Inspect { elf } => inspect::run(elf),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
