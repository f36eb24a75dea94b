//! `memplan linker FILE.rs...`: the linker fragment `memplan-build` writes from a build
//! script, for firmware built without one.

use std::path::{Path, PathBuf};

use memplan_lang::linker;

/// Prints (or writes to `out`) the fragment of the `memory_plan!` invocations in `files`,
/// whose section names use `package` (default: the `[package]` name of the nearest
/// `Cargo.toml` above the first file). `Ok(false)` when an invocation has errors (it is
/// left out of the fragment; `memplan check` prints them).
pub fn run(
    files: &[PathBuf],
    package: Option<&str>,
    out_dir: Option<&Path>,
    out: Option<&Path>,
) -> Result<bool, String> {
    let package = match package {
        Some(p) => p.to_string(),
        None => package_of(&files[0])?,
    };
    let labelled: Vec<(PathBuf, String)> = files
        .iter()
        .map(|f| (f.clone(), f.display().to_string()))
        .collect();
    let fragment = linker::fragment_of_files(&package, &labelled, out_dir)
        .map_err(|(file, e)| format!("{}: {e}", file.display()))?;
    match out {
        Some(path) => {
            std::fs::write(path, &fragment.text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => print!("{}", fragment.text),
    }
    let all_planned = fragment.planned == fragment.invocations;
    if !all_planned {
        eprintln!(
            "memplan linker: {} of {} invocations have errors and are left out; `memplan check` prints them",
            fragment.invocations - fragment.planned,
            fragment.invocations
        );
    }
    Ok(all_planned)
}

/// The `[package]` name of the nearest `Cargo.toml` in `file`'s folder or above.
fn package_of(file: &Path) -> Result<String, String> {
    let start = std::path::absolute(file).map_err(|e| format!("{}: {e}", file.display()))?;
    for dir in start.ancestors().skip(1) {
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
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
