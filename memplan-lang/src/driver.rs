//! The one driver for tools that read a Rust source file rather than being expanded by the
//! compiler (the `memplan` command, `memplan-build`): the file's `memory_plan!` invocations
//! ([`crate::source`]), each checked and planned as the macro does ([`crate::check`]), with
//! the tool's options, and every file that reading them touched.

use std::path::{Path, PathBuf};

use memplan_planner::Strategy;

use crate::{Checked, Env, check_with, source};

/// What a tool knows about where a source file is and how to plan it.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The crate's `OUT_DIR`, for `from out_dir` plan files.
    pub out_dir: Option<PathBuf>,
    /// The package the file belongs to (`CARGO_PKG_NAME`), part of every link-section name.
    pub package: Option<String>,
    /// The package's root folder (where its `Cargo.toml` is): a file's module path comes
    /// from its path below it (`src/a/b.rs` is `a::b`). `None`: only the inline modules
    /// around an invocation are known.
    pub root: Option<PathBuf>,
    /// Plan guards for the runtime's `debug-canary`.
    pub canary: bool,
    /// A strategy that replaces each invocation's own.
    pub strategy: Option<Strategy>,
    /// Plan without the package's lock file (`memplan lock`, which writes it): every
    /// invocation is searched, and the file is not read.
    pub no_lock: bool,
}

/// A source file, checked.
pub struct FileChecked {
    /// Each invocation, in file order.
    pub invocations: Vec<Checked>,
    /// The source file and the plan files its invocations read, in the order read.
    pub read: Vec<PathBuf>,
}

/// Reads `file` and checks every `memory_plan!` invocation in it.
///
/// # Errors
///
/// The file cannot be read, or is not Rust tokens (the lexer's message, at
/// `FILE:LINE:COLUMN` where it knows them).
pub fn check_file(file: &Path, options: &Options) -> Result<FileChecked, String> {
    let text =
        memplan_planner::files::read_text(file).map_err(|e| format!("{}: {e}", file.display()))?;
    check_text(file, &text, options)
}

/// [`check_file`] of `text`, the contents of `file`.
///
/// # Errors
///
/// As [`check_file`].
pub(crate) fn check_text(
    file: &Path,
    text: &str,
    options: &Options,
) -> Result<FileChecked, String> {
    if let Err(e) = text.parse::<proc_macro2::TokenStream>() {
        let at = e.span().start();
        return Err(format!(
            "{}:{}:{}: not Rust tokens: {e}",
            file.display(),
            at.line,
            at.column + 1
        ));
    }
    let found = source::invocations(text).map_err(|e| format!("{}: {e}", file.display()))?;
    let file_modules = options
        .root
        .as_deref()
        .and_then(|root| relative(file, root))
        .map(|rel| source::file_modules(&rel))
        .unwrap_or_default();
    let mut read = vec![file.to_path_buf()];
    let mut invocations = Vec::with_capacity(found.len());
    for invocation in found {
        let env = Env {
            base_dir: Some(base_dir(file)),
            out_dir: options.out_dir.clone(),
            package: options.package.clone(),
            canary: options.canary,
            modules: file_modules
                .iter()
                .cloned()
                .chain(invocation.modules)
                .collect(),
            strategy: options.strategy,
            root: options.root.clone(),
        };
        let checked = check_with(invocation.tokens, &env, !options.no_lock);
        if let Some(model) = &checked.model {
            read.extend(model.files.iter().cloned());
        }
        invocations.push(checked);
    }
    Ok(FileChecked { invocations, read })
}

/// The lock keys ([`crate::lock`]) of the `memory_plan!` invocations of `file`, in file
/// order, found without lowering or planning anything: each invocation's module header is
/// parsed, and its key is its module path (the file's modules below `root`, the package
/// root, then the inline modules around it and its own), without ` debug-canary`. An
/// invocation whose header does not read has no key and is left out.
///
/// # Errors
///
/// As [`check_file`]: the file cannot be read, or is not Rust tokens.
pub fn plan_keys(file: &Path, root: Option<&Path>) -> Result<Vec<String>, String> {
    let text =
        memplan_planner::files::read_text(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let found = source::invocations(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let file_modules = root
        .and_then(|root| relative(file, root))
        .map(|rel| source::file_modules(&rel))
        .unwrap_or_default();
    let mut keys = Vec::with_capacity(found.len());
    for invocation in found {
        let mut diags = crate::Diagnostics::default();
        let Some(input) = crate::parse::parse(invocation.tokens, &mut diags) else {
            continue;
        };
        let path: Vec<String> = file_modules
            .iter()
            .cloned()
            .chain(invocation.modules)
            .chain([source::unraw(&input.name.to_string())])
            .collect();
        keys.push(
            crate::key::PlanKey::new("crate", &path)
                .display()
                .to_string(),
        );
    }
    Ok(keys)
}

/// The module path around the invocation whose tokens are `tokens` in `file`, as the macro
/// (which sees only its own tokens) finds it: the file's modules (its path below `root`,
/// the package root) then the inline modules around the one invocation of the file with
/// these tokens; the file's modules alone when the file cannot be
/// read or holds no such invocation, or several.
pub fn modules_of_invocation(
    file: &Path,
    tokens: &proc_macro2::TokenStream,
    root: Option<&Path>,
) -> Vec<String> {
    let mut out = root
        .and_then(|root| relative(file, root))
        .map(|rel| source::file_modules(&rel))
        .unwrap_or_default();
    if let Some(inline) = memplan_planner::files::read_text(file)
        .ok()
        .and_then(|text| source::modules_of(&text, tokens))
    {
        out.extend(inline);
    }
    out
}

/// The folder a relative path inside `file` resolves against (`include_str!`'s).
pub(crate) fn base_dir(file: &Path) -> PathBuf {
    match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => Path::new(".").to_path_buf(),
    }
}

/// `file`'s path below `root`, both made absolute first.
pub(crate) fn relative(file: &Path, root: &Path) -> Option<PathBuf> {
    let file = std::path::absolute(file).ok()?;
    let root = std::path::absolute(root).ok()?;
    file.strip_prefix(&root).ok().map(Path::to_path_buf)
}

/// The root of the package `file` is in: the folder of the nearest `Cargo.toml` in its
/// folder or above.
pub fn package_root(file: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(file).ok()?;
    start
        .ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// The fragment of every `memory_plan!` invocation in Rust source files, and every file it
/// read to write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFragment {
    /// The fragment's text: a `NOLOAD` output section per placed arena and an `ASSERT` that
    /// it fits, and the plans' descriptions in an `INFO` section.
    pub text: String,
    /// The source files and the plan files their invocations read, in the order read.
    pub read: Vec<PathBuf>,
    /// The invocations found.
    pub invocations: usize,
    /// Those planned without errors: the ones in the fragment.
    pub planned: usize,
    /// The invocations with errors, left out of the fragment: each one's file, its name
    /// (its module path, or `None` when its header does not read), how many errors it has
    /// and the first one's message.
    pub skipped: Vec<Skipped>,
    /// The files of `files` that hold no invocation.
    pub empty: Vec<PathBuf>,
}

/// An invocation left out of a fragment for its errors ([`FileFragment::skipped`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The source file it is in.
    pub file: PathBuf,
    /// Its module path (`firmware::digits`), when its header reads.
    pub name: Option<String>,
    /// Its errors.
    pub errors: usize,
    /// The first error's message.
    pub first: String,
}

impl std::fmt::Display for Skipped {
    /// `the memory_plan! invocation `digits` in src/main.rs is left out of the linker
    /// fragment: 2 errors (the first: ...); the crate's build reports them`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self
            .name
            .as_deref()
            .map_or(String::new(), |n| format!(" `{n}`"));
        write!(
            f,
            "the memory_plan! invocation{name} in {} is left out of the linker fragment: {} error{} (the first: {}); the crate's build reports them",
            self.file.display(),
            self.errors,
            if self.errors == 1 { "" } else { "s" },
            self.first.lines().next().unwrap_or("")
        )
    }
}

/// The fragment of every `memory_plan!` invocation in `files`: each `(path, label)` is read
/// from `path` and named `label` in the fragment's comment, and checked by
/// [`check_file`] with `options` (plan files found as the macro finds them,
/// next to the source or in `options.out_dir`; module paths from `options.root`);
/// `package` is the package the sources belong to (`CARGO_PKG_NAME`), part of every
/// section name. An invocation with
/// errors is left out: the macro reports them, with spans, when the crate is compiled.
/// This is what `memplan-build` writes and `memplan linker` prints.
///
/// # Errors
///
/// The file and why, when a source cannot be read or is not Rust tokens.
pub fn fragment_of_files(
    package: &str,
    files: &[(PathBuf, String)],
    options: &Options,
) -> Result<FileFragment, (PathBuf, String)> {
    let options = Options {
        package: Some(package.to_string()),
        ..options.clone()
    };
    let mut planned = Vec::new();
    let mut read = Vec::new();
    let mut empty = Vec::new();
    let mut skipped = Vec::new();
    let mut found = 0;
    for (file, _) in files {
        let checked = check_file(file, &options).map_err(|e| (file.clone(), e))?;
        read.extend(checked.read);
        if checked.invocations.is_empty() {
            empty.push(file.clone());
        }
        found += checked.invocations.len();
        for c in &checked.invocations {
            if let Some(first) = c.diagnostics().iter().next() {
                skipped.push(Skipped {
                    file: file.clone(),
                    name: c.lock_key().or_else(|| c.name()),
                    errors: c.diagnostics().len(),
                    first: first.message.clone(),
                });
            }
        }
        planned.extend(checked.invocations);
    }
    let plans: Vec<_> = planned.iter().filter_map(crate::Checked::planned).collect();
    let labels: Vec<&str> = files.iter().map(|(_, l)| l.as_str()).collect();
    Ok(FileFragment {
        text: crate::linker::fragment(package, &plans, &labels.join(", ")),
        read,
        invocations: found,
        planned: plans.len(),
        skipped,
        empty,
    })
}
