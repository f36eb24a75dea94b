//! The build-script side of memplan: the linker fragment that places the arenas of
//! `memory_plan!` regions (and pools) declared with `memory M` in MEMORY region `M` of the
//! firmware's `memory.x`; and generated source from a plan file ([`PlanFile`]), as an ML
//! compiler's generated project would have its build script write it.
//!
//! ```toml
//! [build-dependencies]
//! # The same version as memplan-runtime, exactly. Once published: memplan-build = "=0.1.0"
//! memplan-build = { path = "../memplan/memplan-build", version = "=0.1.0" }
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
//! An invocation with errors is left out of the fragment, and the build script says so with
//! a `cargo::warning` (which invocation, in which file, how many errors and the first); the
//! macro reports the errors, with spans, when the crate itself is compiled.
//!
//! The fragment is written for rust-lld, the default linker of the Rust bare-metal ARM and
//! RISC-V targets, with `-Tlink.x` in the target's rustflags (which come before a build
//! script's link arguments). GNU ld wants it included from `memory.x` instead: end
//! `memory.x` with `INCLUDE memplan.x`, and use [`write_fragment`], which writes the file
//! without the `-T` argument.

use std::fmt;
use std::path::{Path, PathBuf};

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
/// package's binaries (`-Tmemplan.x`, with `OUT_DIR` on the link search path; on a
/// bare-metal target only, `target_os = "none"`: a host build links without it) and rerun
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
    if let Some(arg) = link_arg(std::env::var("CARGO_CFG_TARGET_OS").ok().as_deref()) {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
    Ok(path)
}

/// The link argument that adds the fragment, for a target whose `target_os` is `os`: only a
/// bare-metal target (`none`) links with a `memory.x`; a host build of the same package (its
/// tests, a simulator) links as usual, where the fragment's `MEMORY` regions do not exist.
fn link_arg(os: Option<&str>) -> Option<&'static str> {
    (os == Some("none")).then_some("-Tmemplan.x")
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
    write_fragment_in(&BuildEnv::from_cargo()?, sources)
}

/// [`write_fragment`] in the environment `env` (Cargo's, for [`write_fragment`]): writes
/// the fragment to `env.out_dir/memplan.x`, in place of what it holds (to a temporary file
/// in the same folder, renamed over it: a failed write keeps the old file), and prints the
/// Cargo instructions.
///
/// # Errors
///
/// As [`fragment`]; [`Error::Write`] when the file cannot be written, or when it is one of
/// the files the fragment is made from.
pub fn write_fragment_in<I, P>(env: &BuildEnv, sources: I) -> Result<PathBuf, Error>
where
    I: IntoIterator<Item = P>,
    P: AsRef<Path>,
{
    let fragment = fragment(env, sources)?;
    let path = env.out_dir.join("memplan.x");
    write_output(&path, fragment.text.as_bytes(), &fragment.read)?;
    for line in fragment.directives(env) {
        println!("{line}");
    }
    Ok(path)
}

/// Writes `bytes` to `path` in place of what it holds, unless `path` is one of `inputs`.
pub(crate) fn write_output(path: &Path, bytes: &[u8], inputs: &[PathBuf]) -> Result<(), Error> {
    let fail = |message: String| Error::Write {
        file: path.to_path_buf(),
        message,
    };
    if let Some(input) = inputs
        .iter()
        .find(|i| memplan_planner::files::same_file(path, i))
    {
        return Err(fail(format!(
            "that is {}, a file it is made from; it is left as it is",
            input.display()
        )));
    }
    memplan_planner::files::write_file(path, bytes).map_err(|e| fail(e.without_path()))
}

/// What a build script is told by Cargo, for [`fragment`]: the package, its folders, and
/// whether the runtime plans `debug-canary` guards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildEnv {
    /// The package's folder (`CARGO_MANIFEST_DIR`): source paths are relative to it, and a
    /// file's module path is its path below it.
    pub manifest_dir: PathBuf,
    /// The build script's output folder (`OUT_DIR`), for `from out_dir` plan files.
    pub out_dir: PathBuf,
    /// The package's name (`CARGO_PKG_NAME`), part of every section name.
    pub package: String,
    /// The runtime's `debug-canary` feature is on (`DEP_MEMPLAN_RUNTIME_DEBUG_CANARY=1`,
    /// which memplan-runtime's build script sets for the packages that depend on it): the
    /// macro then plans guard bytes after every buffer, and so must the fragment.
    pub canary: bool,
}

impl BuildEnv {
    /// The environment Cargo gives a build script.
    ///
    /// # Errors
    ///
    /// [`Error::NotInBuildScript`] when a variable Cargo sets for build scripts is missing.
    pub fn from_cargo() -> Result<BuildEnv, Error> {
        let var = |name: &'static str| std::env::var_os(name).ok_or(Error::NotInBuildScript(name));
        Ok(BuildEnv {
            manifest_dir: PathBuf::from(var("CARGO_MANIFEST_DIR")?),
            out_dir: PathBuf::from(var("OUT_DIR")?),
            package: var("CARGO_PKG_NAME")?.to_string_lossy().into_owned(),
            canary: std::env::var("DEP_MEMPLAN_RUNTIME_DEBUG_CANARY").is_ok_and(|v| v == "1"),
        })
    }
}

/// A linker fragment and what made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// The fragment's text: what `OUT_DIR/memplan.x` holds.
    pub text: String,
    /// Every file read to write it (the sources and the plan files they read): the build
    /// script runs again when one changes.
    pub read: Vec<PathBuf>,
    /// The invocations left out for their errors, each said as a sentence (which one, where,
    /// how many errors and the first): the build script prints each as a `cargo::warning`.
    pub skipped: Vec<String>,
}

impl Fragment {
    /// The lines a build script prints for it: run again when a file read changes; a
    /// warning for each invocation left out for its errors; the `memplan_fragment` cfg, under which the generated code embeds the plans'
    /// descriptions (which the fragment places in a non-allocated section); and the link
    /// search path of `OUT_DIR`.
    pub fn directives(&self, env: &BuildEnv) -> Vec<String> {
        let mut out: Vec<String> = self
            .read
            .iter()
            .map(|f| format!("cargo::rerun-if-changed={}", f.display()))
            .collect();
        out.extend(
            self.skipped
                .iter()
                .map(|s| format!("cargo::warning=memplan: {s}")),
        );
        out.push("cargo::rustc-check-cfg=cfg(memplan_fragment)".to_string());
        out.push("cargo::rustc-cfg=memplan_fragment".to_string());
        out.push(format!(
            "cargo::rustc-link-search={}",
            env.out_dir.display()
        ));
        out
    }
}

/// The fragment of the `memory_plan!` invocations in `sources` (paths relative to the
/// package), planned exactly as the macro plans them, without writing anything.
///
/// # Errors
///
/// [`Error::Source`] when a source cannot be read or lexed, or holds no `memory_plan!`
/// invocation (a wrong path in `build.rs` would otherwise give an empty fragment, and the
/// link would then ask for the fragment that is already there).
pub fn fragment<I, P>(env: &BuildEnv, sources: I) -> Result<Fragment, Error>
where
    I: IntoIterator<Item = P>,
    P: AsRef<Path>,
{
    let files: Vec<(PathBuf, String)> = sources
        .into_iter()
        .map(|rel| {
            let rel = rel.as_ref();
            (env.manifest_dir.join(rel), rel.display().to_string())
        })
        .collect();
    let options = memplan_lang::driver::Options {
        out_dir: Some(env.out_dir.clone()),
        root: Some(env.manifest_dir.clone()),
        canary: env.canary,
        ..memplan_lang::driver::Options::default()
    };
    let fragment = memplan_lang::driver::fragment_of_files(&env.package, &files, &options)
        .map_err(|(file, message)| {
            // The message names the file already: it is said once, by `Error`'s text.
            let prefix = format!("{}: ", file.display());
            let message = message
                .strip_prefix(&prefix)
                .map_or(message.clone(), str::to_string);
            Error::Source { file, message }
        })?;
    if let Some(file) = fragment.empty.first() {
        return Err(Error::Source {
            file: file.clone(),
            message: "no memory_plan! invocation in this file (is the path in build.rs the file that holds the plan?)".to_string(),
        });
    }
    Ok(Fragment {
        text: fragment.text,
        read: fragment.read,
        skipped: fragment
            .skipped
            .iter()
            .map(|s| {
                // Paths below the package, as build.rs names them.
                let mut s = s.clone();
                if let Ok(rel) = s.file.strip_prefix(&env.manifest_dir) {
                    s.file = rel.to_path_buf();
                }
                s.to_string()
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::link_arg;

    #[test]
    fn the_fragment_is_linked_on_bare_metal_only() {
        assert_eq!(link_arg(Some("none")), Some("-Tmemplan.x"));
        assert_eq!(link_arg(Some("linux")), None);
        assert_eq!(link_arg(Some("macos")), None);
        assert_eq!(link_arg(None), None);
    }
}
