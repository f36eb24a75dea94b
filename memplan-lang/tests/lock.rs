//! The lock file: each test writes a package root holding a `memplan.lock` made from a plan
//! the planner searched, then checks an invocation in it as the macro does.

use std::path::PathBuf;

use memplan_lang::lock::{self, Lookup};
use memplan_lang::{Checked, Env, check, check_with};
use memplan_planner::Strategy;

/// Eight buffers on which `greedy` plans 9 bytes and the default strategy the optimum, 8
/// (the most bytes live at one step: `h`, `b` and `a` at step 1).
const PLAN: &str = "mod m {
    region r: 1 MiB, align 1;
    buffer a: 2 bytes in r, live 0..=1;
    buffer b: 3 bytes in r, live 1..=2;
    buffer c: 2 bytes in r, live 2..=3;
    buffer d: 3 bytes in r, live 3..=4;
    buffer e: 1 bytes in r, live 0..=0;
    buffer f: 4 bytes in r, live 4..=5;
    buffer g: 2 bytes in r, live 5..=6;
    buffer h: 3 bytes in r, live 0..=2;
    LOCK
}";

fn source(lock_statement: &str) -> String {
    PLAN.replace("LOCK", lock_statement)
}

/// A fresh, empty package root.
fn root(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-lock-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn env(root: &std::path::Path, strategy: Option<Strategy>) -> Env {
    Env {
        root: Some(root.to_path_buf()),
        strategy,
        ..Env::default()
    }
}

/// Plans `src` without the lock (a search) and writes its entry as the package's lock.
fn lock(root: &std::path::Path, src: &str) -> Checked {
    let c = check_with(src.parse().unwrap(), &env(root, None), false);
    let entry = c.lock_entry().unwrap();
    std::fs::write(root.join(lock::FILE_NAME), lock::render(&[entry])).unwrap();
    c
}

fn offsets(c: &Checked) -> Vec<u64> {
    c.plan()
        .as_ref()
        .unwrap()
        .buffers
        .iter()
        .map(|p| p.offset)
        .collect()
}

fn errors(c: &Checked) -> Vec<String> {
    c.diagnostics().iter().map(|d| d.message.clone()).collect()
}

#[test]
fn locked_offsets_survive_a_planner_change() {
    let dir = root("survive");
    let src = source("");
    let searched = lock(&dir, &src);
    assert_eq!(searched.plan().unwrap().regions[0].planned_bytes, 8);
    // The planner changed: `greedy` instead of the search. Without the lock its offsets
    // differ (it needs 9 bytes) ...
    let greedy = Some(Strategy::Greedy);
    let unlocked = check_with(src.parse().unwrap(), &env(&dir, greedy), false);
    assert_eq!(unlocked.plan().unwrap().regions[0].planned_bytes, 9);
    assert_ne!(offsets(&unlocked), offsets(&searched));
    // ... and with it the build keeps the locked offsets, with no search.
    let locked = check(src.parse().unwrap(), &env(&dir, greedy));
    assert!(locked.diagnostics().is_empty(), "{:?}", errors(&locked));
    assert!(
        matches!(locked.lock(), Lookup::Fresh(..)),
        "{:?}",
        locked.lock()
    );
    assert_eq!(offsets(&locked), offsets(&searched));
    let plan = locked.plan().unwrap();
    assert_eq!(plan.regions[0].planned_bytes, 8);
    assert_eq!(plan.regions[0].search_nodes, 0);
    assert_eq!(plan.regions[0].lower_bound, 8);
    assert!(
        locked.report().unwrap().ends_with("lock: the offsets are the entry of `m` in memplan.lock, validated: no search ran in this build (nodes 0; `optimal` is what it checks without one: the planned bytes at the lower bound)\n"),
        "{}",
        locked.report().unwrap()
    );
}

#[test]
fn the_lock_file_is_tracked_by_the_expansion() {
    let dir = root("tracked");
    let src = source("");
    lock(&dir, &src);
    let expanded = memplan_lang::expand(src.parse().unwrap(), &env(&dir, None)).to_string();
    let path = dir.join(lock::FILE_NAME).display().to_string();
    assert!(
        expanded.contains(&format!("include_bytes ! (\"{path}\")")),
        "{expanded}"
    );
}

#[test]
fn a_stale_entry_is_planned_again_and_the_report_says_so() {
    let dir = root("stale");
    lock(&dir, &source(""));
    // `e` grows by a byte: the plan's inputs changed.
    let changed = source("").replace("e: 1 bytes", "e: 2 bytes");
    let c = check(changed.parse().unwrap(), &env(&dir, None));
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    assert!(matches!(c.lock(), Lookup::Stale(_)), "{:?}", c.lock());
    let unlocked = check_with(changed.parse().unwrap(), &env(&dir, None), false);
    assert_eq!(offsets(&c), offsets(&unlocked));
    let report = c.report().unwrap();
    assert!(
        report.ends_with("lock: the entry of `m` in memplan.lock is stale (the plan's inputs changed since `memplan lock`): planned again; run `memplan lock` to update it\n"),
        "{report}"
    );
}

#[test]
fn the_strategy_an_invocation_writes_is_in_the_fingerprint() {
    let dir = root("strategy");
    lock(&dir, &source(""));
    let c = check(
        source("strategy = best_of;").parse().unwrap(),
        &env(&dir, None),
    );
    assert!(matches!(c.lock(), Lookup::Stale(_)), "{:?}", c.lock());
}

#[test]
fn a_required_lock_that_is_stale_or_missing_is_an_error_naming_the_plan() {
    let dir = root("required");
    let required = source("lock = required;");
    // No lock file.
    let c = check(required.parse().unwrap(), &env(&dir, None));
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0] == "memory plan `m` requires a lock (`lock = required`), and the package root (CARGO_MANIFEST_DIR) has no memplan.lock: run `memplan lock` in the package and commit memplan.lock",
        "{e:?}"
    );
    assert!(c.plan().is_none());
    // A lock file without its entry.
    std::fs::write(dir.join(lock::FILE_NAME), lock::render(&[])).unwrap();
    let e = errors(&check(required.parse().unwrap(), &env(&dir, None)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("memplan.lock has no entry `m` for it"),
        "{e:?}"
    );
    // A fresh entry: planned from it.
    let searched = lock(&dir, &required);
    let c = check(
        required.parse().unwrap(),
        &env(&dir, Some(Strategy::Greedy)),
    );
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    assert_eq!(offsets(&c), offsets(&searched));
    // A stale one.
    let changed = required.replace("live 5..=6", "live 5..=7");
    let e = errors(&check(changed.parse().unwrap(), &env(&dir, None)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("memory plan `m` requires a lock")
            && e[0].contains("its entry `m` in memplan.lock is stale (the plan's inputs changed since `memplan lock`)"),
        "{e:?}"
    );
}

#[test]
fn an_entry_whose_offsets_fail_validation_is_an_error_never_used() {
    let dir = root("invalid");
    let src = source("");
    lock(&dir, &src);
    let path = dir.join(lock::FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    // `h` (3 bytes at 0, live 0..=2) moved onto `a`'s bytes, whose lifetime it shares.
    let a_at = text
        .lines()
        .find(|l| l.ends_with(" a"))
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .to_string();
    let h_line = text
        .lines()
        .find(|l| l.ends_with(" h"))
        .unwrap()
        .to_string();
    let moved = text.replace(&h_line, &format!("buffer r {a_at} h"));
    assert_ne!(moved, text);
    std::fs::write(&path, moved).unwrap();
    let c = check(src.parse().unwrap(), &env(&dir, None));
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with(
            "the entry of `m` in memplan.lock (line 6) is not a valid plan: buffers `"
        ) && e[0].contains(&format!(
            "`h` (bytes {a_at}..{}, live 0..=2) share bytes at a common step: bytes {a_at}..",
            a_at.parse::<u64>().unwrap() + 3
        )),
        "{e:?}"
    );
    assert!(c.plan().is_none());
}

#[test]
fn a_malformed_lock_file_is_an_error_with_its_line() {
    let dir = root("malformed");
    std::fs::write(
        dir.join(lock::FILE_NAME),
        "format 1\n\nplan m\nfingerprint 00\nbuffer r x a\nend\n",
    )
    .unwrap();
    let e = errors(&check(source("").parse().unwrap(), &env(&dir, None)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("memplan.lock: line 5: `x` is not a number"),
        "{e:?}"
    );
}

#[test]
fn the_text_reads_back_as_written() {
    let dir = root("roundtrip");
    let src = "mod m { region r: 64 bytes; buffers in r from \"x.csv\"; }";
    std::fs::write(
        dir.join("x.csv"),
        "id,lower,upper,size\na\\b,0,2,16\nc d,1,3,16\n",
    )
    .unwrap();
    let env = Env {
        base_dir: Some(dir.clone()),
        ..env(&dir, None)
    };
    let c = check_with(src.parse().unwrap(), &env, false);
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    let entry = c.lock_entry().unwrap();
    assert_eq!(entry.buffers[0].name, "a\\b");
    let text = lock::render(std::slice::from_ref(&entry));
    assert!(
        text.contains("buffer r 0 a\\\\b\n") && text.contains(" c d\n"),
        "{text}"
    );
    let back = lock::parse(&text).unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(
        lock::Entry {
            line: 0,
            ..back[0].clone()
        },
        entry
    );
}

#[test]
fn a_lock_file_of_a_newer_format_is_an_error_that_says_so() {
    let dir = root("newer");
    let text = "format 2\n\nplan m\nfingerprint 00\nend\n";
    std::fs::write(dir.join(lock::FILE_NAME), text).unwrap();
    let e = errors(&check(source("").parse().unwrap(), &env(&dir, None)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("memplan.lock: line 1: format 2 is newer than this memplan reads (format 1): the file was written by a newer memplan"),
        "{e:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(lock::FILE_NAME)).unwrap(),
        text
    );
}

/// The region line of the entry of `text`, and the text with it replaced by `line`.
fn with_region_line(text: &str, line: &str) -> String {
    let old = text.lines().find(|l| l.starts_with("region ")).unwrap();
    text.replace(&format!("{old}\n"), &format!("{line}\n"))
}

#[test]
fn an_edited_planned_bytes_claim_is_an_error_never_used() {
    let dir = root("planned-claim");
    let src = source("");
    lock(&dir, &src);
    let path = dir.join(lock::FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("region r 8 proven\n"), "{text}");
    std::fs::write(&path, with_region_line(&text, "region r 7 proven")).unwrap();
    let c = check(src.parse().unwrap(), &env(&dir, None));
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("gives region `r` 7 planned bytes, and its offsets end at byte 8"),
        "{e:?}"
    );
    assert!(c.plan().is_none());
}

/// A pin splits the arena: the optimum, 16 bytes, is above the lower bound, 12, and only a
/// search proves it.
const PINNED: &str = "mod m {
    region r: 64 bytes, align 4;
    buffer p: 4 bytes in r, live 0..=2, at 4;
    buffer a: 8 bytes in r, live 0..=0;
    buffer b: 4 bytes in r, live 1..=2;
    buffer c: 4 bytes in r, live 2..=2;
}";

#[test]
fn an_optimal_claim_is_recomputed_never_taken_as_written() {
    // At the lower bound: proven whatever the entry says.
    let dir = root("optimal-claim");
    let src = source("");
    lock(&dir, &src);
    let path = dir.join(lock::FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, with_region_line(&text, "region r 8 unproven")).unwrap();
    let c = check(src.parse().unwrap(), &env(&dir, None));
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    assert!(c.plan().unwrap().regions[0].proven_optimal);
    // Above it: the search that wrote the entry proved 16 bytes optimal, and a build,
    // which does not search, does not say so, but says why.
    let dir = root("optimal-search");
    let searched = lock(&dir, PINNED);
    assert!(searched.plan().unwrap().regions[0].proven_optimal);
    let text = std::fs::read_to_string(dir.join(lock::FILE_NAME)).unwrap();
    assert!(text.contains("region r 16 proven\n"), "{text}");
    let c = check(PINNED.parse().unwrap(), &env(&dir, None));
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    assert!(matches!(c.lock(), Lookup::Fresh(..)));
    let plan = c.plan().unwrap();
    assert!(!plan.regions[0].proven_optimal);
    let report = c.report().unwrap();
    assert!(
        report.ends_with("lock: the entry says a search proved region `r` (16 bytes) optimal; this build does not search, so it does not say so (`memplan lock --check` searches again to check it)\n"),
        "{report}"
    );
    // What `memplan lock` checks: the search proves the claim again ...
    let entry = c.lock().fresh().unwrap();
    let problem = c.problem().unwrap();
    assert_eq!(
        lock::check_claims(entry, &problem, plan),
        (vec![true], vec![])
    );
    // ... and a claim edited in, on a worse layout, is proven by nothing.
    let worse = text.replace("buffer r 8 a\n", "buffer r 16 a\n");
    assert_ne!(worse, text, "the searched layout moved: {text}");
    std::fs::write(
        dir.join(lock::FILE_NAME),
        with_region_line(&worse, "region r 24 proven"),
    )
    .unwrap();
    let c = check(PINNED.parse().unwrap(), &env(&dir, None));
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    let (proven, wrong) = lock::check_claims(
        c.lock().fresh().unwrap(),
        &c.problem().unwrap(),
        c.plan().unwrap(),
    );
    assert_eq!(proven, [false]);
    assert_eq!(
        wrong,
        [
            "the entry says region `r` is proven optimal at 24 bytes, and neither its lower bound nor a search with optimal(nodes = 38000) proves it"
        ]
    );
}

#[test]
fn plan_keys_are_the_keys_the_plans_are_locked_by() {
    let dir = root("keys");
    std::fs::create_dir_all(dir.join("src/a")).unwrap();
    let file = dir.join("src/a/b.rs");
    std::fs::write(
        &file,
        "mod inner { memory_plan! { mod r#type { region r: 16 bytes; } } }\n\
         memplan_runtime::memory_plan! { pub mod two { region r: 16 bytes; } }\n\
         memory_plan! { not a header }\n",
    )
    .unwrap();
    let keys = memplan_lang::driver::plan_keys(&file, Some(&dir)).unwrap();
    let options = memplan_lang::driver::Options {
        root: Some(dir.clone()),
        ..Default::default()
    };
    let checked = memplan_lang::driver::check_file(&file, &options).unwrap();
    let locked: Vec<String> = checked
        .invocations
        .iter()
        .filter_map(Checked::lock_key)
        .collect();
    assert_eq!(keys, locked);
    assert_eq!(keys, ["a::b::inner::type", "a::b::two"]);
}
