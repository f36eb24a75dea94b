//! The lock file: `memplan.lock` in the package root, written by `memplan lock`, holding
//! for each `memory_plan!` invocation of the package its plan (the region and offset of
//! every buffer) and a fingerprint of everything the plan depends on.
//!
//! The macro uses an entry whose fingerprint matches the invocation's, once the planner's
//! validator has accepted its offsets ([`memplan_planner::plan_from`], `O(n log n)`, no
//! search), so a build never searches and a new memplan release never moves a locked
//! offset. An entry with another fingerprint is stale: the plan is made again, and its
//! `REPORT` says so; with `lock = required;` in the invocation a stale or missing entry is
//! a compile error. An entry whose offsets fail validation is always an error, never used.
//!
//! The fingerprint is the SHA-256 of a canonical text of the planning problem the
//! invocation lowers to (every region's name, capacity and alignment; every buffer's name,
//! size with its `debug-canary` guard when planned, alignments, lifetime, region or spill,
//! pin and in-place source), the strategy the invocation writes, and the planner's
//! [`PLAN_RULES`]. The memplan version that searched is recorded beside it, not in it: an
//! upgrade does not make a lock stale.
//!
//! The format is plain text, one fact a line, entries sorted by plan, so that a change
//! reads as a diff:
//!
//! ```text
//! format 1
//!
//! plan digits
//! fingerprint 5e0c…(64 hex digits)
//! planner 0.1.0
//! strategy optimal(nodes = 2000000)
//! region io 80 proven
//! buffer io 0 pixels
//! end
//! ```
//!
//! `region NAME PLANNED proven|unproven` gives each region's planned bytes and whether the
//! search that wrote it proved them the fewest. Neither is taken as written: the planned
//! bytes must be where the offsets end (else the entry is an error), and a build proves a
//! region optimal only where it can check it without a search (the planned bytes at the
//! lower bound); `memplan lock` and `memplan lock --check` search again to check a proof
//! above it ([`claims`]);
//! `buffer REGION OFFSET NAME`, one per buffer in declaration order (a name's `\` and line
//! breaks written `\\`, `\n`, `\r`). Lines starting with `#` and blank lines are ignored.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memplan_planner::{
    LockedError, PLAN_RULES, Placed, Placement, Plan, PlanError, Problem, Strategy, plan_from,
    search_proves,
};

use crate::diag::Diagnostics;
use crate::key::PlanKey;
use crate::lower::Model;

/// The lock file's name, in the package root (beside `Cargo.toml` and `Cargo.lock`).
pub const FILE_NAME: &str = "memplan.lock";

/// The version of the lock file's format, its `format` line.
pub(crate) const FORMAT: u32 = 1;

/// One region of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedRegion {
    /// The region's name.
    pub name: String,
    /// Its planned bytes.
    pub planned: u64,
    /// Whether the search that wrote the entry proved `planned` the fewest possible.
    pub proven: bool,
}

/// One buffer of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedBuffer {
    /// The region's name.
    pub region: String,
    /// The offset in the region, in bytes.
    pub offset: u64,
    /// The buffer's name.
    pub name: String,
}

/// One plan of the lock file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The plan's module path (`a::kws`), with ` debug-canary` when planned with guards.
    pub key: String,
    /// The SHA-256, in lower-case hex, of the canonical text of the plan's planning problem
    /// and the strategy its invocation writes.
    pub fingerprint: String,
    /// The memplan version that wrote it.
    pub planner: String,
    /// The strategy that searched.
    pub strategy: Strategy,
    /// Its regions, in declaration order.
    pub regions: Vec<LockedRegion>,
    /// Its buffers, in declaration order.
    pub buffers: Vec<LockedBuffer>,
    /// The line of its `plan` line in the file (1-based; 0 for one not read from a file).
    pub line: usize,
}

/// The key of `model`'s entry: its module path, and ` debug-canary` when it plans guards.
pub(crate) fn key(model: &Model) -> String {
    let path = PlanKey::of(model).display().to_string();
    if model.canary {
        format!("{path} debug-canary")
    } else {
        path
    }
}

/// `\`, line feed and carriage return escaped, so that a name stays on its line.
fn escape(name: &str) -> String {
    name.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

/// The inverse of [`escape`]; `None` for a `\` not followed by `\`, `n` or `r`.
fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// The fingerprint of `problem` planned by `strategy` (the strategy the invocation
/// writes): the SHA-256, in lower-case hex, of its canonical text.
pub(crate) fn fingerprint(problem: &Problem, strategy: Strategy) -> String {
    use sha2::Digest;
    let mut text = format!("memplan plan rules {PLAN_RULES}\nstrategy {strategy}\n");
    for r in &problem.regions {
        let _ = writeln!(
            text,
            "region {} {} {}",
            r.capacity,
            r.align,
            escape(&r.name)
        );
    }
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    for b in &problem.buffers {
        let placement = match b.placement {
            Placement::In(r) => r.to_string(),
            Placement::Anywhere => "*".to_string(),
        };
        let _ = writeln!(
            text,
            "buffer {} {} {} {} {} {placement} {} {} {}",
            b.size,
            opt(b.align),
            b.min_align,
            b.lifetime.first,
            b.lifetime.last,
            opt(b.pin),
            opt(b.in_place_of.map(|i| i as u64)),
            escape(&b.name)
        );
    }
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The entry of `plan`, `model`'s plan of `problem` (its planning problem), whose
/// invocation writes `written` as its strategy.
pub(crate) fn entry(model: &Model, problem: &Problem, written: Strategy, plan: &Plan) -> Entry {
    Entry {
        key: key(model),
        fingerprint: fingerprint(problem, written),
        planner: env!("CARGO_PKG_VERSION").to_string(),
        strategy: plan.strategy,
        regions: problem
            .regions
            .iter()
            .zip(&plan.regions)
            .map(|(r, rp)| LockedRegion {
                name: r.name.clone(),
                planned: rp.planned_bytes,
                proven: rp.proven_optimal,
            })
            .collect(),
        buffers: problem
            .buffers
            .iter()
            .zip(&plan.buffers)
            .map(|(b, p)| LockedBuffer {
                region: problem.regions[p.region].name.clone(),
                offset: p.offset,
                name: b.name.clone(),
            })
            .collect(),
        line: 0,
    }
}

/// The text of a lock file holding `entries`, sorted by key.
pub fn render(entries: &[Entry]) -> String {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    let mut out = format!(
        "# {FILE_NAME}: the plans of this package's memory_plan! invocations, written by\n\
         # `memplan lock`. Commit it. A build uses an entry whose fingerprint matches its\n\
         # invocation, after checking its offsets; run `memplan lock` again after a change.\n\
         format {FORMAT}\n"
    );
    for e in sorted {
        let _ = write!(
            out,
            "\nplan {}\nfingerprint {}\nplanner {}\nstrategy {}\n",
            e.key, e.fingerprint, e.planner, e.strategy
        );
        for r in &e.regions {
            let proven = if r.proven { "proven" } else { "unproven" };
            let _ = writeln!(out, "region {} {} {proven}", r.name, r.planned);
        }
        for b in &e.buffers {
            let _ = writeln!(out, "buffer {} {} {}", b.region, b.offset, escape(&b.name));
        }
        out.push_str("end\n");
    }
    out
}

/// The entries of a lock file's `text`.
///
/// # Errors
///
/// `line N: ...` for the first line that does not read.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let mut format_seen = false;
    let mut current: Option<Entry> = None;
    for (k, raw) in text.lines().enumerate() {
        let n = k + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |what: &str| format!("line {n}: {what}");
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let number = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| err(&format!("`{s}` is not a number")))
        };
        match (word, current.as_mut()) {
            ("format", None) if !format_seen => {
                match rest.parse::<u32>() {
                    Ok(FORMAT) => {}
                    Ok(n) if n > FORMAT => {
                        return Err(err(&format!(
                            "format {n} is newer than this memplan reads (format {FORMAT}): the file was written by a newer memplan"
                        )));
                    }
                    _ => {
                        return Err(err(&format!(
                            "format `{rest}` is not one this memplan reads (format {FORMAT})"
                        )));
                    }
                }
                format_seen = true;
            }
            (_, None) if !format_seen => return Err(err("expected `format 1` first")),
            ("plan", None) => {
                if rest.is_empty() {
                    return Err(err("`plan` without the plan's module path"));
                }
                current = Some(Entry {
                    key: rest.to_string(),
                    fingerprint: String::new(),
                    planner: String::new(),
                    strategy: Strategy::default(),
                    regions: Vec::new(),
                    buffers: Vec::new(),
                    line: n,
                });
            }
            ("fingerprint", Some(e)) => e.fingerprint = rest.to_string(),
            ("planner", Some(e)) => e.planner = rest.to_string(),
            ("strategy", Some(e)) => {
                e.strategy = rest.parse().map_err(|x| err(&format!("{x}")))?;
            }
            ("region", Some(e)) => {
                let parts: Vec<&str> = rest.split(' ').collect();
                let [name, planned, proven] = parts[..] else {
                    return Err(err("expected `region NAME PLANNED proven|unproven`"));
                };
                let proven = match proven {
                    "proven" => true,
                    "unproven" => false,
                    other => {
                        return Err(err(&format!("`{other}`: expected `proven` or `unproven`")));
                    }
                };
                e.regions.push(LockedRegion {
                    name: name.to_string(),
                    planned: number(planned)?,
                    proven,
                });
            }
            ("buffer", Some(e)) => {
                let mut parts = rest.splitn(3, ' ');
                let (Some(region), Some(offset), Some(name)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    return Err(err("expected `buffer REGION OFFSET NAME`"));
                };
                let name = unescape(name)
                    .ok_or_else(|| err("a `\\` in the name not followed by `\\`, `n` or `r`"))?;
                e.buffers.push(LockedBuffer {
                    region: region.to_string(),
                    offset: number(offset)?,
                    name,
                });
            }
            ("end", Some(_)) if rest.is_empty() => {
                if let Some(e) = current.take() {
                    if e.fingerprint.is_empty() {
                        return Err(format!(
                            "line {}: plan `{}` has no fingerprint",
                            e.line, e.key
                        ));
                    }
                    if entries.iter().any(|o: &Entry| o.key == e.key) {
                        return Err(format!("line {}: plan `{}` is given twice", e.line, e.key));
                    }
                    entries.push(e);
                }
            }
            (_, Some(_)) => {
                return Err(err(&format!(
                    "unexpected `{word}` in a plan: expected `fingerprint`, `planner`, `strategy`, `region`, `buffer` or `end`"
                )));
            }
            (_, None) => return Err(err(&format!("unexpected `{word}`: expected `plan`"))),
        }
    }
    if let Some(e) = current {
        return Err(format!("line {}: plan `{}` has no `end`", e.line, e.key));
    }
    if !format_seen {
        return Err("the file is empty: expected `format 1`".to_string());
    }
    Ok(entries)
}

/// What the lock file says about one invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not looked at: the lock is not in use (`memplan lock` itself), the package root is
    /// unknown, or the invocation has errors.
    Off,
    /// There is no lock file.
    NoFile(PathBuf),
    /// The file has no entry for the plan.
    Missing(PathBuf),
    /// The entry's fingerprint is not the plan's: it is planned again.
    Stale(PathBuf),
    /// An entry with the plan's fingerprint.
    Fresh(PathBuf, Box<Entry>),
}

impl Lookup {
    /// The entry to plan with, when fresh.
    pub fn fresh(&self) -> Option<&Entry> {
        match self {
            Lookup::Fresh(_, e) => Some(e),
            _ => None,
        }
    }

    /// A line for `memplan check` and the `REPORT`, when the lock is stale or used.
    pub fn note(&self, key: &str) -> Option<String> {
        match self {
            Lookup::Fresh(..) => Some(format!(
                "lock: the offsets are the entry of `{key}` in {FILE_NAME}, validated: no search ran in this build (nodes 0; `optimal` is what it checks without one: the planned bytes at the lower bound)\n"
            )),
            Lookup::Stale(_) => Some(format!(
                "lock: the entry of `{key}` in {FILE_NAME} is stale (the plan's inputs changed since `memplan lock`): planned again; run `memplan lock` to update it\n"
            )),
            _ => None,
        }
    }
}

/// Looks `model`'s plan up in the lock file of the package at `root`, `written` being the
/// strategy its invocation writes; records errors in `diags` (an unreadable lock file, and,
/// with `lock = required;`, a missing or stale entry), adds the lock file to the files the
/// expansion depends on (so that editing it rebuilds the crate) and sets the plan's
/// [`Model::lock_note`]. Nothing is looked at when `diags` already holds errors.
pub(crate) fn lookup(
    model: &mut Model,
    written: Strategy,
    root: Option<&Path>,
    diags: &mut Diagnostics,
) -> Lookup {
    if !diags.is_empty() || model.regions.is_empty() {
        return Lookup::Off;
    }
    let Some(root) = root else {
        if let Some(span) = model.lock_required {
            diags.at(
                span,
                format!(
                    "memory plan `{}` requires a lock, and the package root (CARGO_MANIFEST_DIR) is unknown",
                    model.name
                ),
            );
        }
        return Lookup::Off;
    };
    let path = root.join(FILE_NAME);
    let key = key(model);
    let found = match memplan_planner::files::read_input(&path) {
        Err(e) if e.is_not_found() => Lookup::NoFile(path.clone()),
        Err(e) => {
            diags.at(
                model.name.span(),
                format!(
                    "{}: {e}; it cannot be used (remove it, then run `memplan lock` to write it again)",
                    path.display()
                ),
            );
            return Lookup::Off;
        }
        Ok(bytes) => {
            model.files.push(path.clone());
            let parsed = String::from_utf8(bytes)
                .map_err(|_| "not UTF-8 text".to_string())
                .and_then(|text| parse(&text));
            match parsed {
                Err(e) => {
                    diags.at(
                        model.name.span(),
                        format!(
                            "{}: {e}; it cannot be used (fix it, or remove it and run `memplan lock` to write it again)",
                            path.display()
                        ),
                    );
                    return Lookup::Off;
                }
                Ok(entries) => match entries.into_iter().find(|e| e.key == key) {
                    None => Lookup::Missing(path.clone()),
                    Some(e) => {
                        let (problem, _) = model.problem();
                        if e.fingerprint == fingerprint(&problem, written) {
                            Lookup::Fresh(path.clone(), Box::new(e))
                        } else {
                            Lookup::Stale(path.clone())
                        }
                    }
                },
            }
        }
    };
    if let Some(span) = model.lock_required {
        let why = match &found {
            Lookup::NoFile(_) => Some(format!(
                "the package root (CARGO_MANIFEST_DIR) has no {FILE_NAME}"
            )),
            Lookup::Missing(_) => Some(format!("{FILE_NAME} has no entry `{key}` for it")),
            Lookup::Stale(_) => Some(format!(
                "its entry `{key}` in {FILE_NAME} is stale (the plan's inputs changed since `memplan lock`)"
            )),
            Lookup::Off | Lookup::Fresh(..) => None,
        };
        if let Some(why) = why {
            diags.at(
                span,
                format!(
                    "memory plan `{}` requires a lock (`lock = required`), and {why}: run `memplan lock` in the package and commit {FILE_NAME}",
                    model.name
                ),
            );
        }
    }
    model.lock_note = found.note(&key);
    found
}

/// Why a locked plan is not used.
pub(crate) enum Refused {
    /// The planner's errors on the problem.
    Planner(Vec<PlanError>),
    /// The entry does not hold a valid plan of the problem: the message.
    Lock(String),
}

/// The plan `entry` gives `problem`, checked by the planner's validator.
///
/// # Errors
///
/// [`Refused::Planner`] for a problem with errors, [`Refused::Lock`] for an entry that
/// does not match the problem or whose offsets break a rule.
pub(crate) fn plan_of(problem: &Problem, entry: &Entry) -> Result<Plan, Refused> {
    let at = format!(
        "the entry of `{}` in {FILE_NAME} (line {})",
        entry.key, entry.line
    );
    let bad = |why: String| {
        Refused::Lock(format!(
            "{at} {why}; it is not used: run `memplan lock` to write it again"
        ))
    };
    if entry.regions.len() != problem.regions.len() || entry.buffers.len() != problem.buffers.len()
    {
        return Err(bad(format!(
            "has {} regions and {} buffers, the plan {} and {}",
            entry.regions.len(),
            entry.buffers.len(),
            problem.regions.len(),
            problem.buffers.len()
        )));
    }
    for (r, l) in problem.regions.iter().zip(&entry.regions) {
        if r.name != l.name {
            return Err(bad(format!(
                "names region `{}` where the plan has `{}`",
                l.name, r.name
            )));
        }
    }
    let mut placed = Vec::with_capacity(problem.buffers.len());
    for (b, l) in problem.buffers.iter().zip(&entry.buffers) {
        if b.name != l.name {
            return Err(bad(format!(
                "names buffer `{}` where the plan has `{}`",
                l.name, b.name
            )));
        }
        let Some(region) = problem.regions.iter().position(|r| r.name == l.region) else {
            return Err(bad(format!(
                "puts buffer `{}` in `{}`, which is not a region of the plan",
                l.name, l.region
            )));
        };
        placed.push(Placed {
            region,
            offset: l.offset,
        });
    }
    let plan = match plan_from(problem, entry.strategy, placed) {
        Ok(p) => p,
        Err(LockedError::Problem(errors)) => return Err(Refused::Planner(errors)),
        Err(LockedError::Invalid(why)) => {
            return Err(bad(format!("is not a valid plan: {why}")));
        }
    };
    for (rp, l) in plan.regions.iter().zip(&entry.regions) {
        if rp.planned_bytes != l.planned {
            return Err(bad(format!(
                "gives region `{}` {} planned bytes, and its offsets end at byte {}",
                l.name, l.planned, rp.planned_bytes
            )));
        }
    }
    Ok(plan)
}

/// An entry's claim that a region is proven optimal, checked against a plan of its offsets
/// (`plan_of`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The region.
    pub region: String,
    /// Its planned bytes.
    pub planned: u64,
    /// What the entry says.
    pub claimed: bool,
    /// Proven without a search: the planned bytes are at the lower bound.
    pub at_bound: bool,
}

/// Each region's proof claim in `entry` beside what `plan` (the plan of its offsets,
/// `plan_of`) proves without a search.
pub fn claims(entry: &Entry, plan: &Plan) -> Vec<Claim> {
    entry
        .regions
        .iter()
        .zip(&plan.regions)
        .map(|(l, rp)| Claim {
            region: l.name.clone(),
            planned: rp.planned_bytes,
            claimed: l.proven,
            at_bound: rp.proven_optimal,
        })
        .collect()
}

/// What a search proves of the claims `entry` makes of `plan`, a plan of `problem` from
/// its offsets: each region's proof as it is to be written (proven at the lower bound, or
/// claimed and proven again by a search with the entry's strategy; an `unproven` claim
/// above the bound is not searched), and a message for each claim that is not what is
/// proven. A search runs only for a region claimed proven above its lower bound.
pub fn check_claims(entry: &Entry, problem: &Problem, plan: &Plan) -> (Vec<bool>, Vec<String>) {
    let mut proven = Vec::new();
    let mut wrong = Vec::new();
    for (r, c) in claims(entry, plan).into_iter().enumerate() {
        let is = c.at_bound || (c.claimed && search_proves(problem, plan, r));
        if c.claimed && !is {
            wrong.push(format!(
                "the entry says region `{}` is proven optimal at {} bytes, and neither its lower bound nor a search with {} proves it",
                c.region, c.planned, entry.strategy
            ));
        } else if !c.claimed && is {
            wrong.push(format!(
                "the entry says region `{}` is unproven, and its {} bytes are at its lower bound: proven optimal",
                c.region, c.planned
            ));
        }
        proven.push(is);
    }
    (proven, wrong)
}

/// The line the `REPORT` adds for the regions `entry` claims proven optimal and `plan`
/// (the plan of its offsets) does not prove without a search: the claim is not repeated.
pub(crate) fn unchecked_note(entry: &Entry, plan: &Plan) -> Option<String> {
    let unchecked: Vec<String> = claims(entry, plan)
        .into_iter()
        .filter(|c| c.claimed && !c.at_bound)
        .map(|c| format!("`{}` ({} bytes)", c.region, c.planned))
        .collect();
    if unchecked.is_empty() {
        return None;
    }
    Some(format!(
        "lock: the entry says a search proved region{} {} optimal; this build does not search, so it does not say so (`memplan lock --check` searches again to check it)\n",
        if unchecked.len() == 1 { "" } else { "s" },
        unchecked.join(", ")
    ))
}
