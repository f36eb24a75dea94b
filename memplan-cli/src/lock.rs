//! `memplan lock [PATHS]`: the package's lock file (`memplan.lock` in its root), with the
//! plan of every `memory_plan!` invocation in PATHS, found and planned by the same driver
//! as `memplan-build`'s linker fragment ([`memplan_lang::driver::check_file`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Args as ClapArgs;
use memplan_lang::driver::{Options, check_file, package_root};
use memplan_lang::lock::{self, Entry, FILE_NAME, Lookup};
use memplan_planner::{Placement, Problem, Strategy};

use crate::diagnostic::render;

/// Write the package's lock file: the plan of every memory_plan! invocation in PATHS.
///
/// PATHS are Rust source files or folders (every .rs file below one, in name order);
/// default: the src folder of the package the current folder is in (as Cargo finds it,
/// from a subfolder too). The lock file is memplan.lock in the package root (the folder of the
/// nearest Cargo.toml above the first path). Each entry holds a plan's offsets and a
/// fingerprint of everything the plan depends on; a build of the package uses an entry
/// whose fingerprint matches its invocation, after validating its offsets, and does not
/// search.
///
/// An entry that is still fresh is kept with its offsets (they never move) and its claims
/// checked (a region's planned bytes where its offsets end, a proof of optimality at the
/// lower bound or found again by a search); the others are planned again, with each
/// invocation's strategy, or optimal(nodes = N) with --nodes. --update plans every
/// invocation again. The entries of plans outside PATHS are kept as they are while their
/// memory_plan! invocation is still in the package. The file is the same for any
/// --threads, and is written to a temporary file renamed over it, so a failed write keeps
/// the old one. A lock file that cannot be read, or is of a newer format, is an error, and
/// is left as it is.
///
/// Exit status: 0 when the file is written (or, with --check, is fresh), 1 when an
/// invocation has errors (printed; nothing is written) or, with --check, the file is not
/// fresh, 2 when a file cannot be read.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The Rust source files (.rs) or folders; default: the package's src.
    pub paths: Vec<PathBuf>,
    /// Plan with optimal(nodes = N) instead of each invocation's own strategy (a lock may
    /// search far longer than a build).
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Plan this many source files at once.
    #[arg(long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Plan every invocation again, fresh entries too.
    #[arg(long, conflicts_with = "check")]
    pub update: bool,
    /// Write nothing: exit 1 unless every invocation in PATHS has a fresh, valid entry
    /// whose claims hold, and every entry an invocation in the package.
    #[arg(long)]
    pub check: bool,
    /// Also lock the plans of debug-canary builds (memplan-runtime's `debug-canary`
    /// feature plans guard bytes after every buffer: other sizes, another entry); implied
    /// when the lock file already holds such an entry.
    #[arg(long)]
    pub canary: bool,
    /// Where `buffers ... from out_dir "..."` files are; default: the OUT_DIR environment
    /// variable.
    #[arg(long, value_name = "DIR", env = "OUT_DIR")]
    pub out_dir: Option<PathBuf>,
}

/// The `src` folder of the package the current folder is in, as Cargo finds it (the
/// nearest Cargo.toml in the current folder or above): `src` when that is the current
/// folder's own.
fn default_src() -> Result<PathBuf, String> {
    let root = package_root(Path::new("Cargo.toml")).ok_or_else(|| {
        "no Cargo.toml in the current folder or above: run memplan lock in a package, or give its source folders"
            .to_string()
    })?;
    if !root.join("src").is_dir() {
        let manifest = memplan_planner::files::read_text(&root.join("Cargo.toml")).unwrap_or_default();
        let virtual_workspace = !manifest.lines().any(|l| l.trim() == "[package]");
        return Err(if virtual_workspace {
            format!(
                "{}: a workspace's Cargo.toml, of no package: run memplan lock in a member package, or give its source folders",
                root.join("Cargo.toml").display()
            )
        } else {
            format!(
                "the package at {} has no src folder: give the source folders or files to lock",
                root.display()
            )
        });
    }
    let here = std::env::current_dir().ok().and_then(|d| std::path::absolute(d).ok());
    Ok(if here.as_deref() == Some(root.as_path()) {
        PathBuf::from("src")
    } else {
        root.join("src")
    })
}

/// Runs `memplan lock`.
pub fn run(args: Args) -> Result<bool, String> {
    let paths = if args.paths.is_empty() {
        vec![default_src()?]
    } else {
        args.paths.clone()
    };
    let files = rust_files(&paths)?;
    let root = package_root(&paths[0])
        .ok_or_else(|| format!("{}: no Cargo.toml in its folder or above", paths[0].display()))?;
    for f in &files {
        if package_root(f).as_deref() != Some(root.as_path()) {
            return Err(format!(
                "{}: not in the package at {} (one lock file per package)",
                f.display(),
                root.display()
            ));
        }
    }
    let lock_path = root.join(FILE_NAME);
    let lock_path = std::env::current_dir()
        .ok()
        .and_then(|cwd| lock_path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or(lock_path);
    let mode = Mode {
        update: args.update,
        check: args.check,
    };
    let mut entries: Vec<Entry> = Vec::new();
    // The key of every invocation whose module header reads, with an entry or not.
    let mut invoked: Vec<String> = Vec::new();
    let mut ok = true;
    let mut stale = Vec::new();
    // The lock file as it is: one that cannot be read, or is not one this memplan reads
    // (a newer format), is an error and is left as it is, never replaced.
    let (file_exists, existing) = read_lock(&lock_path)?;
    // A lock file that already holds debug-canary entries keeps them up to date.
    let canary_too = args.canary || existing.iter().any(|e| e.key.ends_with(" debug-canary"));
    for canary in [false, true].into_iter().filter(|&c| !c || canary_too) {
        let options = Options {
            out_dir: args.out_dir.clone(),
            root: Some(root.clone()),
            canary,
            ..Options::default()
        };
        let search = Options {
            strategy: args.nodes.map(|nodes| Strategy::Optimal { nodes }),
            no_lock: true,
            ..options.clone()
        };
        let all = lock_all(&files, &options, &search, mode, &existing, args.threads);
        for (file, outcomes) in files.iter().zip(all) {
            for o in outcomes? {
                for e in &o.errors {
                    eprintln!("{e}");
                    ok = false;
                }
                invoked.extend(o.key.clone());
                for n in &o.notes {
                    eprintln!("memplan lock: {}: {n}", file.display());
                }
                match (o.entry, o.key, o.why) {
                    (Some(e), _, _) => entries.push(e),
                    // Without a lock file, one line says so (below), not one per plan.
                    (None, Some(key), Some(why)) if mode.check && file_exists => {
                        stale.push(format!("{}: plan `{key}` {why}", file.display()));
                    }
                    _ => {}
                }
            }
        }
    }
    if mode.check && !file_exists {
        println!(
            "{}: no such file: `memplan lock` writes it ({} to lock)",
            lock_path.display(),
            plans(invoked.len())
        );
        return Ok(false);
    }
    let mut keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    keys.sort_unstable();
    if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!(
            "two memory_plan! invocations are plan `{}`: a lock entry is named by the plan's module path, which must be unique in the package",
            w[0]
        ));
    }
    // The entries of plans outside PATHS: kept as they are while their invocation is still
    // in the package (found without planning), dropped (or, with --check, reported) once
    // it is not.
    invoked.sort_unstable();
    let outside: Vec<&Entry> = existing
        .iter()
        .filter(|e| invoked.binary_search(&e.key).is_err())
        .collect();
    let elsewhere = if outside.is_empty() {
        Some(Vec::new())
    } else {
        keys_elsewhere(&root, &files)
    };
    let still_planned = |e: &Entry| {
        let base = e.key.strip_suffix(" debug-canary").unwrap_or(&e.key);
        elsewhere
            .as_ref()
            .is_none_or(|keys| keys.binary_search_by(|k| k.as_str().cmp(base)).is_ok())
    };
    let mut dropped = Vec::new();
    for e in outside {
        if still_planned(e) {
            if !mode.check {
                entries.push(e.clone());
            }
        } else if mode.check {
            stale.push(format!(
                "{}:{}: the entry of plan `{}` is for no memory_plan! invocation in the package at {}",
                lock_path.display(),
                e.line,
                e.key,
                root.display()
            ));
        } else {
            dropped.push(e);
        }
    }
    if mode.check {
        for s in &stale {
            println!("{s}");
        }
        if stale.is_empty() && ok {
            println!("{}: fresh ({})", lock_path.display(), plans(entries.len()));
        }
        return Ok(stale.is_empty() && ok);
    }
    if !ok {
        eprintln!(
            "memplan lock: {} is not written: an invocation has errors",
            lock_path.display()
        );
        return Ok(false);
    }
    let text = lock::render(&entries);
    crate::output::write(&lock_path, text.as_bytes())?;
    println!("wrote {} ({})", lock_path.display(), plans(entries.len()));
    for e in dropped {
        println!(
            "dropped the entry of plan `{}` (line {}): no memory_plan! invocation in the package at {} has it",
            e.key,
            e.line,
            root.display()
        );
    }
    Ok(true)
}

/// Whether the lock file at `path` exists, and its entries.
///
/// # Errors
///
/// The file cannot be read (it is not a regular file, or not UTF-8 text) or does not read
/// as a lock file (a line, or a newer format): the message says it is left as it is.
fn read_lock(path: &Path) -> Result<(bool, Vec<Entry>), String> {
    let kept = "it is left as it is: memplan lock never replaces a lock file it cannot read (remove it to lock afresh)";
    let bytes = match memplan_planner::files::read_input(path) {
        Err(e) if e.is_not_found() => return Ok((false, Vec::new())),
        Err(e) => return Err(format!("{}: {e}; {kept}", path.display())),
        Ok(bytes) => bytes,
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: not UTF-8 text; {kept}", path.display()))?;
    let entries = lock::parse(&text).map_err(|e| format!("{}: {e}; {kept}", path.display()))?;
    Ok((true, entries))
}

/// The lock keys of the `memory_plan!` invocations in the package at `root` outside
/// `files` (every `.rs` file below the root, skipping `target`, hidden folders and the
/// folders of other packages), sorted, without planning; `None` when one cannot be read or
/// lexed, so that no entry is dropped on a guess.
fn keys_elsewhere(root: &Path, files: &[PathBuf]) -> Option<Vec<String>> {
    let given: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| std::path::absolute(f).ok())
        .collect();
    let mut keys = Vec::new();
    for file in rust_files_of_package(root).ok()? {
        let absolute = std::path::absolute(&file).ok()?;
        if given.contains(&absolute) {
            continue;
        }
        keys.extend(memplan_lang::driver::plan_keys(&file, Some(root)).ok()?);
    }
    keys.sort_unstable();
    Some(keys)
}

/// Every `.rs` file of the package at `root`: below it, skipping folders named `target`,
/// hidden ones and those of another package (with a `Cargo.toml` of their own).
fn rust_files_of_package(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut stack = vec![root.to_path_buf()];
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        let read = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in read {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            // Links are not followed: a link to a folder could lead out of the package.
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                if !name.starts_with('.') && name != "target" && !path.join("Cargo.toml").exists() {
                    stack.push(path);
                }
            } else if kind.is_file() && crate::input::is_rust(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// What to do with each invocation.
#[derive(Clone, Copy)]
struct Mode {
    /// Plan every invocation again.
    update: bool,
    /// Only tell whether the entries are fresh.
    check: bool,
}

/// One invocation's result, as text (the front end's values do not cross threads).
struct Outcome {
    /// The plan's key, when its module header reads.
    key: Option<String>,
    /// Its entry: kept when fresh, else planned (none with errors, or with `check` when
    /// not fresh).
    entry: Option<Entry>,
    /// Its errors, rendered (`FILE:LINE:COLUMN`).
    errors: Vec<String>,
    /// With `check`, why it has no fresh entry (after the plan's key: `has no entry in
    /// memplan.lock`).
    why: Option<String>,
    /// What was corrected in a kept entry: a claim that does not hold.
    notes: Vec<String>,
}

/// One file's outcomes, or why it cannot be read.
type FileOutcome = Result<Vec<Outcome>, String>;

/// Whether the planned invocation `c` keeps its entry: fresh, and valid (no error).
fn kept(c: &memplan_lang::Checked) -> bool {
    matches!(c.lock(), Lookup::Fresh(..)) && c.diagnostics().is_empty() && c.plan().is_some()
}

/// The fresh entry of the planned invocation `c` ([`kept`]), with each region's proof as
/// checked ([`lock::check_claims`]: at the lower bound, or claimed and found again by a
/// search), never as written, and what was wrong in the entry's claims.
fn fresh_entry(c: &memplan_lang::Checked) -> Option<(Entry, Vec<String>)> {
    let Lookup::Fresh(_, e) = c.lock() else {
        return None;
    };
    if !kept(c) {
        return None;
    }
    let (problem, plan) = (c.problem()?, c.plan()?);
    let (proven, wrong) = lock::check_claims(e, &problem, plan);
    let mut entry = (**e).clone();
    for (r, p) in entry.regions.iter_mut().zip(proven) {
        r.proven = p;
    }
    Some((entry, wrong))
}

/// The invocations of `file`: with the lock (`options`) unless `mode.update`, and those
/// without a fresh entry planned again (`search`) unless `mode.check`.
fn lock_file(
    file: &Path,
    options: &Options,
    search: &Options,
    mode: Mode,
    existing: &[Entry],
) -> Result<Vec<Outcome>, String> {
    let locked = if mode.update {
        None
    } else {
        Some(check_file(file, options)?)
    };
    let key = |c: &memplan_lang::Checked| c.lock_key();
    if mode.check {
        let locked = locked.map(|l| l.invocations).unwrap_or_default();
        return Ok(locked
            .iter()
            .map(|c| {
                let (entry, why) = match fresh_entry(c) {
                    Some((e, wrong)) if wrong.is_empty() => (Some(e), None),
                    Some((e, wrong)) => (
                        None,
                        Some(format!(
                            "has an entry in memplan.lock (line {}) whose claims do not hold: {}",
                            e.line,
                            wrong.join("; ")
                        )),
                    ),
                    None => (None, Some(not_fresh(c, existing))),
                };
                Outcome {
                    key: key(c),
                    why,
                    entry,
                    errors: c.diagnostics().iter().map(|d| render(file, d)).collect(),
                    notes: Vec::new(),
                }
            })
            .collect());
    }
    let locked: Vec<memplan_lang::Checked> = locked.map(|l| l.invocations).unwrap_or_default();
    let searched = if mode.update || locked.iter().any(|c| !kept(c)) {
        check_file(file, search)?.invocations
    } else {
        Vec::new()
    };
    let count = locked.len().max(searched.len());
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        if let Some((e, wrong)) = locked.get(k).and_then(fresh_entry) {
            let notes = wrong
                .into_iter()
                .map(|w| format!("plan `{}`: {w}; written as checked", e.key))
                .collect();
            out.push(Outcome {
                key: Some(e.key.clone()),
                entry: Some(e),
                errors: Vec::new(),
                why: None,
                notes,
            });
            continue;
        }
        let Some(c) = searched.get(k) else { continue };
        let entry = c.lock_entry();
        out.push(Outcome {
            key: key(c),
            entry,
            errors: c.diagnostics().iter().map(|d| render(file, d)).collect(),
            why: None,
            notes: Vec::new(),
        });
    }
    Ok(out)
}

/// Why the invocation `c` has no fresh entry, after `plan `KEY``: no entry, a stale one
/// (and what changed, where the entry tells), or one that does not validate.
fn not_fresh(c: &memplan_lang::Checked, existing: &[Entry]) -> String {
    match c.lock() {
        Lookup::NoFile(path) => format!("is not locked: there is no {}", path_name(path)),
        Lookup::Missing(path) => format!("has no entry in {}", path_name(path)),
        Lookup::Stale(path) => {
            let entry = c
                .lock_key()
                .and_then(|key| existing.iter().find(|e| e.key == key));
            let line = entry.map_or(String::new(), |e| format!(" (line {})", e.line));
            let changed = match (entry, c.problem()) {
                (Some(e), Some(problem)) => changed(e, &problem),
                _ => None,
            };
            format!(
                "has a stale entry in {}{line}: {}",
                path_name(path),
                changed.unwrap_or_else(|| UNKNOWN_CHANGE.to_string())
            )
        }
        Lookup::Fresh(path, _) => format!(
            "has an entry in {} with its fingerprint, but the entry's offsets do not validate (the errors above)",
            path_name(path)
        ),
        Lookup::Off => "is not looked up in the lock file: the invocation has errors (above)".to_string(),
    }
}

/// The stale reason when the entry's names agree with the invocation: the fingerprint is a
/// hash, so which of its parts changed is not known.
const UNKNOWN_CHANGE: &str = "the fingerprint differs, so a buffer's size, alignment, lifetime, pinned offset or in-place source, a region's capacity or alignment, the invocation's strategy or memplan's planning rules changed (the entry keeps only a hash of them, not which)";

/// What changed between the stale entry `e` and the invocation's `problem`, where the
/// entry tells it (its region and buffer names, each buffer's region); `None` when they
/// agree.
fn changed(e: &Entry, problem: &Problem) -> Option<String> {
    let was: Vec<&str> = e.regions.iter().map(|r| r.name.as_str()).collect();
    let now: Vec<&str> = problem.regions.iter().map(|r| r.name.as_str()).collect();
    if was != now {
        return Some(format!(
            "the regions changed: the entry has {}, the invocation {}",
            names(&was),
            names(&now)
        ));
    }
    let was: Vec<&str> = e.buffers.iter().map(|b| b.name.as_str()).collect();
    let now: Vec<&str> = problem.buffers.iter().map(|b| b.name.as_str()).collect();
    if was != now {
        let added: Vec<&str> = now.iter().copied().filter(|n| !was.contains(n)).collect();
        let removed: Vec<&str> = was.iter().copied().filter(|n| !now.contains(n)).collect();
        let mut parts = Vec::new();
        if !added.is_empty() {
            parts.push(format!("{} added", names(&added)));
        }
        if !removed.is_empty() {
            parts.push(format!("{} removed", names(&removed)));
        }
        if parts.is_empty() {
            parts.push("the same buffers in another order".to_string());
        }
        return Some(format!("the buffers changed: {}", parts.join(", ")));
    }
    for (b, locked) in problem.buffers.iter().zip(&e.buffers) {
        if let Placement::In(r) = b.placement
            && problem.regions[r].name != locked.region
        {
            return Some(format!(
                "buffer `{}` moved from region `{}` to `{}`",
                b.name, locked.region, problem.regions[r].name
            ));
        }
    }
    None
}

/// Names in backquotes, at most five and a count of the rest: `` `a`, `b` and 3 more ``.
fn names(list: &[&str]) -> String {
    if list.is_empty() {
        return "none".to_string();
    }
    let shown: Vec<String> = list.iter().take(5).map(|n| format!("`{n}`")).collect();
    let mut s = shown.join(", ");
    if list.len() > 5 {
        s.push_str(&format!(" and {} more", list.len() - 5));
    }
    s
}

/// The lock file's name as the messages show it.
fn path_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// `1 plan`, `3 plans`.
fn plans(n: usize) -> String {
    crate::words::count(n, "plan")
}

/// Every `.rs` file of `paths`: a file as given, a folder's below it in name order
/// (skipping folders named `target` and hidden ones).
fn rust_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            let mut found = Vec::new();
            while let Some(dir) = stack.pop() {
                let read = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                for entry in read {
                    let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                    let skip = name
                        .as_deref()
                        .is_some_and(|n| n.starts_with('.') || n == "target");
                    if path.is_dir() {
                        if !skip {
                            stack.push(path);
                        }
                    } else if crate::input::is_rust(&path) {
                        found.push(path);
                    }
                }
            }
            found.sort();
            out.extend(found);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or folder", p.display()));
        }
    }
    Ok(out)
}

/// [`lock_file`] of every file, `threads` files at once; the results in file order, the
/// same for any thread count (each file's planning is deterministic and independent).
fn lock_all(
    files: &[PathBuf],
    options: &Options,
    search: &Options,
    mode: Mode,
    existing: &[Entry],
    threads: u64,
) -> Vec<FileOutcome> {
    let results: Vec<Mutex<Option<FileOutcome>>> =
        files.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(file) = files.get(i) else { break };
            let r = lock_file(file, options, search, mode, existing);
            if let Ok(mut slot) = results[i].lock() {
                *slot = Some(r);
            }
        }
    };
    let threads = usize::try_from(threads).unwrap_or(1).clamp(1, files.len().max(1));
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    results
        .into_iter()
        .zip(files)
        .map(|(slot, file)| {
            slot.into_inner().ok().flatten().unwrap_or_else(|| {
                Err(format!("{}: not planned (a planning thread failed)", file.display()))
            })
        })
        .collect()
}
