//! What every command that writes a file shares: its output is never one of its inputs
//! ([`not_an_input`]), and it is written to a temporary file in the same folder that is
//! renamed over it ([`write()`], [`write_with`]), so that a failed write keeps the old file.

use std::path::{Path, PathBuf};

use memplan_planner::files::{same_file, write_file};

/// Refuses `out` (given with `flag`: `-o`, `--write`, `--svg`) when it names one of
/// `inputs` (the files the command read: FILE, the plan files and models a `.rs` file's
/// invocations read, its `memory.x`, its lock file) or one of `others` (the command's other
/// outputs), through a symbolic link or a hard link too.
///
/// # Errors
///
/// The message names the output and the input it would overwrite.
pub fn not_an_input(
    flag: &str,
    out: &Path,
    inputs: &[PathBuf],
    others: &[&Path],
) -> Result<(), String> {
    if let Some(input) = inputs.iter().find(|i| same_file(out, i)) {
        let what = if input.as_path() == out {
            "that is an input of this command".to_string()
        } else {
            format!("that is {}, an input of this command", input.display())
        };
        return Err(format!(
            "{flag} {}: {what}; write to another file (the input is left as it is)",
            out.display()
        ));
    }
    if let Some(other) = others.iter().find(|o| same_file(out, o) || *o == &out) {
        return Err(format!(
            "{flag} {}: that is also the output {}; give each output a file of its own",
            out.display(),
            other.display()
        ));
    }
    Ok(())
}

/// Writes `bytes` to `out` in place of what it holds ([`memplan_planner::files::write_file`]).
///
/// # Errors
///
/// The file, why, and that the old one is kept (or that nothing was written).
pub fn write(out: &Path, bytes: &[u8]) -> Result<(), String> {
    write_file(out, bytes).map_err(|e| e.to_string())
}

/// Writes `out` with what `fill` writes, in place of what it holds
/// ([`memplan_planner::files::write_with`]).
///
/// # Errors
///
/// As [`write()`].
pub fn write_with(
    out: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    memplan_planner::files::write_with(out, fill).map_err(|e| e.to_string())
}
