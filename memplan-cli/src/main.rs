//! `memplan`: memplan's command line, on the same front end as the `memory_plan!` macro.
//!
//! ```text
//! memplan plan model.csv                 # plan a plan file (or a .rs file's invocations)
//! memplan check model.csv                # check the offsets a plan file gives
//! memplan check src/main.rs              # the macro's diagnostics for every invocation
//! memplan svg model.csv -o map.svg       # the memory map
//! memplan trace model.csv -o trace.json  # a Chrome trace (Perfetto, chrome://tracing)
//! memplan emit model.csv --name model    # a memory_plan! invocation of the plan
//! memplan linker src/lib.rs -o memplan.x # the linker fragment memplan-build writes
//! memplan inspect firmware.elf           # the plans read back from a built firmware
//! memplan lock --nodes 2000000           # memplan.lock: the plans a build uses unsearched
//! ```
//!
//! Each command is a module with its `Args` (clap) and `run`; `commands!` makes the
//! subcommand enum and the dispatch from one line per command.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod diagnostic;
mod given;
mod input;
mod options;
mod output;
mod padding;
mod plan_json;
mod planned;
mod progress;
mod stats;
mod tflm;
mod words;

/// Declares the command modules, the `Command` enum (each variant's help is its module's
/// `Args` doc comment) and its dispatch: one line per command, `Variant => module`.
macro_rules! commands {
    ($($variant:ident => $module:ident),* $(,)?) => {
        $(mod $module;)*

        #[derive(Subcommand, Debug)]
        enum Command {
            $($variant($module::Args),)*
        }

        impl Command {
            /// Runs the command: `Ok(true)` on success, `Ok(false)` when it found errors
            /// (printed), `Err` when it could not run (bad input, unreadable file).
            fn run(self) -> Result<bool, String> {
                match self {
                    $(Command::$variant(args) => $module::run(args),)*
                }
            }
        }
    };
}

commands! {
    Plan => plan,
    Check => check,
    Svg => svg,
    Trace => trace,
    Emit => emit,
    Linker => linker,
    Inspect => inspect,
    Lock => lock,
}

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

fn main() -> ExitCode {
    match Cli::parse().command.run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
