//! `memplan`: memplan's command line, on the same front end as the `memory_plan!` macro.
//!
//! ```text
//! memplan check src/main.rs            # every memory_plan! invocation in the file
//! memplan check src/main.rs --out-dir target/debug/build/x-1234/out
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Check { file, out_dir } => check::run(file, out_dir.as_deref()),
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
