//! The build-script side of memplan: the linker fragment that places the arenas of
//! `memory_plan!` regions (and pools) declared with `memory M` in MEMORY region `M` of the
//! firmware's `memory.x`; and generated source from a plan file ([`PlanFile`]), as an ML
//! compiler's generated project would have its build script write it.
//!
//! ```toml
//! [build-dependencies]
//! memplan-build = { path = "../memplan/memplan-build" }   # the same version as memplan-runtime
//! ```
//!
//! In `build.rs`'s `main`:
//!
//! ```no_run
//! memplan_build::linker_fragment(["src/lib.rs"]).expect("memplan's linker fragment");
//! ```
//!
//! The call reads every `memory_plan!` invocation of the files named (relative to the
//! package), plans each exactly as the macro does (the same front end, `memplan-lang`),
//! writes the fragment to `OUT_DIR/memplan.x`, and tells Cargo to pass it to the linker of
//! the package's binaries after cortex-m-rt's `link.x` (`-Tmemplan.x`) and to run the
//! build script again when a file or plan file changes. `memory.x` keeps only `MEMORY`.
//!
//! In the fragment each placed arena has a `NOLOAD` output section in its memory (so it
//! takes no flash and the loadable image is the flash contents), inserted before `.bss`
//! (cortex-m-rt's ordering: nothing in another memory may follow `.data`, `.bss` or
//! `.uninit`, whose ends give the heap start and the stack end), and an `ASSERT`, in
//! memplan's words, that it fits its memory; lld reports it before its own "will not fit".
//! A firmware that links a placed arena without the fragment fails with an undefined
//! symbol whose name says to add this call.
//!
//! An invocation with errors is left out of the fragment: the macro reports its errors,
//! with spans, when the crate itself is compiled.
//!
//! The fragment is written for rust-lld, the default linker of the Rust bare-metal ARM and
//! RISC-V targets, with `-Tlink.x` in the target's rustflags (which come before a build
//! script's link arguments). GNU ld wants it included from `memory.x` instead: end
//! `memory.x` with `INCLUDE memplan.x`, and use [`write_fragment`], which writes the file
//! without the `-T` argument.

use std::fmt;
use std::path::{Path, PathBuf};

use memplan_lang::linker;

mod generate;

pub use generate::{Generated, PlanFile};
pub use memplan_planner::{Region, Strategy};

/// What can stop the fragment from being written.
#[derive(Debug)]
pub enum Error {
    /// A Cargo variable a build script always has is missing (not run by Cargo?).
    NotInBuildScript(&'static str),
    /// A source file cannot be read, or is not Rust tokens.
    Source {
        /// The file.
        file: PathBuf,
        /// Why.
        message: String,
    },
    /// A plan file cannot be read or planned ([`PlanFile`]).
    Plan {
        /// The file.
        file: PathBuf,
        /// Why: the reader's message (with line and column) or the planner's errors.
        message: String,
    },
    /// The fragment (or generated source) cannot be written.
    Write {
        /// The file.
        file: PathBuf,
        /// Why.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotInBuildScript(var) => write!(
                f,
                "memplan-build: {var} is not set: call it from a build script (build.rs), which Cargo runs"
            ),
            Error::Source { file, message }
            | Error::Plan { file, message }
            | Error::Write { file, message } => {
                write!(f, "memplan-build: {}: {message}", file.display())
            }
        }
    }
}

impl std::error::Error for Error {}

/// Writes the linker fragment of every `memory_plan!` in `sources` (paths relative to the
/// package) to `OUT_DIR/memplan.x`, and prints the Cargo instructions that pass it to the
/// package's binaries (`-Tmemplan.x`, with `OUT_DIR` on the link search path) and rerun
/// the build script when a source or plan file changes. Returns the fragment's path.
///
/// # Errors
///
/// [`Error`] when not run as a build script, when a source cannot be read or lexed, or
/// when the fragment cannot be written. Errors in an invocation are not errors here: the
/// invocation is left out, and the macro reports them when the crate is compiled.
pub fn linker_fragment<I, P>(sources: I) -> Result<PathBuf, Error>
where
    I: IntoIterator<Item = P>,
    P: AsRef<Path>,
{
    let path = write_fragment(sources)?;
    println!("cargo:rustc-link-arg-bins=-Tmemplan.x");
    Ok(path)
}

/// [`linker_fragment`] without the `-T` link argument, for a `memory.x` that ends with
/// `INCLUDE memplan.x` (GNU ld).
///
/// # Errors
///
/// As [`linker_fragment`].
pub fn write_fragment<I, P>(sources: I) -> Result<PathBuf, Error>
where
    I: IntoIterator<Item = P>,
    P: AsRef<Path>,
{
    let var = |name: &'static str| std::env::var_os(name).ok_or(Error::NotInBuildScript(name));
    let manifest = PathBuf::from(var("CARGO_MANIFEST_DIR")?);
    let out_dir = PathBuf::from(var("OUT_DIR")?);
    let package = var("CARGO_PKG_NAME")?.to_string_lossy().into_owned();
    let files: Vec<(PathBuf, String)> = sources
        .into_iter()
        .map(|rel| {
            let rel = rel.as_ref();
            (manifest.join(rel), rel.display().to_string())
        })
        .collect();
    let fragment = linker::fragment_of_files(&package, &files, Some(&out_dir))
        .map_err(|(file, message)| Error::Source { file, message })?;
    for file in &fragment.read {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let text = fragment.text;
    let path = out_dir.join("memplan.x");
    std::fs::write(&path, text).map_err(|e| Error::Write {
        file: path.clone(),
        message: e.to_string(),
    })?;
    println!("cargo:rustc-link-search={}", out_dir.display());
    Ok(path)
}
