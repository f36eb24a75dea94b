//! Generated source from a plan file: a build script reads a plan file (ExecuTorch,
//! MiniMalloc or placed CSV, or, with the `json` feature, memplan's JSON, told apart by
//! content), plans it exactly as `memplan plan` and `memplan emit` do, and writes the
//! `memory_plan!` invocation of the plan into `OUT_DIR`, which the crate `include!`s. The
//! macro plans the invocation again at compile time, to the same offsets (the text is
//! checked against the plan before it is written).

use std::path::{Path, PathBuf};

use memplan_lang::write::{self, WriteOptions};
use memplan_planner::files::{Format, ProblemOptions, Role, detect, read_any};
use memplan_planner::{Plan, Problem, Region, Strategy, validate};

use crate::Error;

/// A plan file to plan in a build script, and how: the regions (default: the file's, or
/// one unbounded region `arena` for a CSV file, written with its planned bytes), the
/// strategy (default `optimal(nodes = 38000)`), the module's name.
///
/// ```no_run
/// // build.rs
/// use memplan_build::{PlanFile, Strategy};
///
/// fn main() {
///     PlanFile::new("plans/model.csv", "model")
///         .region("sram", 512 * 1024, 16)
///         .strategy(Strategy::BestOf)
///         .write()
///         .expect("the model's memory plan");
/// }
/// ```
///
/// and in the crate: `include!(concat!(env!("OUT_DIR"), "/model.rs"));`, which declares
/// `mod model` as `memory_plan!` does.
///
/// CSV plan files are always read; memplan's JSON plan files need the crate's `json`
/// feature, off by default because it brings serde into the build of the macro too (a
/// build-dependency and the macro share one memplan-planner).
#[derive(Clone, Debug)]
pub struct PlanFile {
    path: PathBuf,
    module: String,
    strategy: Strategy,
    options: ProblemOptions,
    macro_path: String,
}

/// What [`PlanFile::write`] wrote.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The file written: `OUT_DIR/MODULE.rs`.
    pub path: PathBuf,
    /// The invocation's text.
    pub text: String,
    /// The problem planned.
    pub problem: Problem,
    /// Its plan: the offsets the macro gives the buffers.
    pub plan: Plan,
}

impl PlanFile {
    /// The plan file at `path` (relative to the package, as Cargo runs build scripts in
    /// it), to be written as `pub mod MODULE` (a Rust identifier).
    pub fn new(path: impl AsRef<Path>, module: impl Into<String>) -> PlanFile {
        PlanFile {
            path: path.as_ref().to_path_buf(),
            module: module.into(),
            strategy: Strategy::default(),
            options: ProblemOptions::default(),
            macro_path: "memplan_runtime::memory_plan".to_string(),
        }
    }

    /// The plan file's path: relative to `CARGO_MANIFEST_DIR` when it is set.
    fn source_path(&self) -> PathBuf {
        match std::env::var_os("CARGO_MANIFEST_DIR") {
            Some(dir) => PathBuf::from(dir).join(&self.path),
            None => self.path.clone(),
        }
    }

    /// Plans with `strategy`.
    pub fn strategy(mut self, strategy: Strategy) -> PlanFile {
        self.strategy = strategy;
        self
    }

    /// Adds a region of `capacity` bytes whose buffers are aligned to `align` bytes (a
    /// power of two) by default. The regions given replace the file's, in memory-id order;
    /// with several, buffers that name no region are spilled to the first that can take
    /// them.
    pub fn region(mut self, name: impl Into<String>, capacity: u64, align: u64) -> PlanFile {
        self.options.regions.push(Region {
            name: name.into(),
            capacity,
            align,
        });
        self
    }

    /// The capacity, in bytes, of the one region of a file that declares none.
    pub fn capacity(mut self, bytes: u64) -> PlanFile {
        self.options.capacity = Some(bytes);
        self
    }

    /// The alignment, in bytes, of the one region of a file that declares none (default:
    /// 16, or 1 for MiniMalloc CSV).
    pub fn align(mut self, bytes: u64) -> PlanFile {
        self.options.align = Some(bytes);
        self
    }

    /// The macro's path in the generated text (default `memplan_runtime::memory_plan`),
    /// for a crate that re-exports it.
    pub fn macro_path(mut self, path: impl Into<String>) -> PlanFile {
        self.macro_path = path.into();
        self
    }

    /// Reads and plans the file (relative to `CARGO_MANIFEST_DIR` when it is set) and
    /// returns the invocation's text with the problem and the plan, writing nothing.
    ///
    /// # Errors
    ///
    /// [`Error::Plan`]: the file cannot be read or is malformed (file, line and column), is
    /// a JSON file and the crate is built without its `json` feature,
    /// the options do not apply to it, it has no plan (the planner's errors, naming
    /// buffers with their lines), or the module name is not an identifier.
    pub fn generate(&self) -> Result<(String, Problem, Plan), Error> {
        let path = self.source_path();
        let err = |message: String| Error::Plan {
            file: path.clone(),
            message,
        };
        let mut file = read_any(&path).map_err(|e| err(json_hint(&path, e.to_string())))?;
        // A model's kernel scratch is not a buffer of a memory_plan!: kernels take the temp
        // pool, as in the macro's `buffers from`.
        file.buffers.retain(|b| b.role != Role::Scratch);
        let problem = file
            .problem(&self.options)
            .map_err(|e| err(e.to_string()))?;
        let plan = memplan_planner::plan(&problem, self.strategy).map_err(|errors| {
            let words: Vec<String> = errors
                .iter()
                .map(|e| e.display(&problem).to_string())
                .collect();
            err(words.join("\n"))
        })?;
        validate(&problem, &plan).map_err(|v| {
            err(format!(
                "internal error: the plan fails memplan's own check ({v}); please report it with the file"
            ))
        })?;
        let stem = path
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        let options = WriteOptions {
            macro_path: self.macro_path.clone(),
            module: self.module.clone(),
            doc: vec![format!(
                "Planned from `{stem}` ({}, {} buffers) by the build script.",
                file.format.name(),
                file.buffers.len()
            )],
        };
        let text = write::invocation(&problem, &plan, &options).map_err(err)?;
        Ok((text, problem, plan))
    }

    /// [`PlanFile::generate`], then writes the text to `OUT_DIR/MODULE.rs` and tells Cargo
    /// to run the build script again when the plan file changes.
    ///
    /// # Errors
    ///
    /// As [`PlanFile::generate`]; [`Error::NotInBuildScript`] without `OUT_DIR`;
    /// [`Error::Write`] when the file cannot be written.
    pub fn write(&self) -> Result<Generated, Error> {
        let out_dir = std::env::var_os("OUT_DIR").ok_or(Error::NotInBuildScript("OUT_DIR"))?;
        self.write_in(Path::new(&out_dir))
    }

    /// [`PlanFile::write`] into `out_dir` instead of `OUT_DIR`: the text goes to
    /// `out_dir/MODULE.rs`, in place of what it holds (to a temporary file in the same
    /// folder, renamed over it: a failed write keeps the old file).
    ///
    /// # Errors
    ///
    /// As [`PlanFile::generate`]; [`Error::Write`] when the file cannot be written, or is
    /// the plan file itself.
    pub fn write_in(&self, out_dir: &Path) -> Result<Generated, Error> {
        let (text, problem, plan) = self.generate()?;
        let path = out_dir.join(format!("{}.rs", self.module));
        crate::write_output(&path, text.as_bytes(), &[self.source_path()])?;
        println!("cargo:rerun-if-changed={}", self.path.display());
        Ok(Generated {
            path,
            text,
            problem,
            plan,
        })
    }
}

/// `message`, the reader's error for `path`, and, for a JSON file read without the `json`
/// feature, what to add to the build-dependency.
fn json_hint(path: &Path, message: String) -> String {
    if cfg!(feature = "json") {
        return message;
    }
    let json = memplan_planner::files::read_text(path)
        .is_ok_and(|text| detect(&text) == Some(Format::Json));
    if !json {
        return message;
    }
    format!(
        "{message}; memplan-build reads JSON plan files with its `json` feature: `memplan-build = {{ version = \"={}\", features = [\"json\"] }}` in [build-dependencies]",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_file_without_the_feature_says_which_feature_reads_it() {
        let json = r#"{"buffers": [{"name": "a", "size": 8, "first": 0, "last": 0}]}"#;
        let path = std::env::temp_dir().join(format!("memplan-build-{}.json", std::process::id()));
        std::fs::write(&path, json).unwrap();
        let result = PlanFile::new(&path, "m").generate();
        std::fs::remove_file(&path).unwrap();
        // The planner reads JSON with this crate's feature, or with its own turned on by
        // another package of the build (feature unification, as in the workspace's tests).
        if memplan_planner::files::parse_any(json, "m.json").is_ok() {
            result.unwrap();
        } else {
            if cfg!(feature = "json") {
                panic!("with memplan-build's `json` feature the planner reads JSON");
            }
            let e = result.unwrap_err().to_string();
            assert!(
                e.contains("memplan-build reads JSON plan files with its `json` feature"),
                "{e}"
            );
        }
    }
}
