//! `memplan lock`: the package's lock file, the same for any thread count; `--check`
//! finds a stale entry; fresh entries are kept as they are.

mod common;

use std::path::{Path, PathBuf};

use common::{run, stdout};

/// A package of four source files, each with one invocation of 24 buffers whose sizes
/// and lifetimes come from `seed`.
fn package(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-cli-lock-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"locked\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    for (file, seed) in [("lib.rs", 1u64), ("a.rs", 2), ("b.rs", 3), ("c.rs", 4)] {
        std::fs::write(dir.join("src").join(file), invocation(seed, 0)).unwrap();
    }
    dir
}

/// An invocation of 24 buffers, the first `extra` bytes larger.
fn invocation(seed: u64, extra: u64) -> String {
    let mut body = String::new();
    let mut x = seed;
    for i in 0..24 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let size = 16 + (x >> 33) % 200 + if i == 0 { extra } else { 0 };
        let first = (x >> 20) % 12;
        let len = (x >> 10) % 5;
        body.push_str(&format!(
            "        buffer b{i}: {size} bytes in sram, live {first}..={};\n",
            first + len
        ));
    }
    format!(
        "memory_plan! {{\n    mod plan{seed} {{\n        region sram: 64 KiB, align 8;\n{body}    }}\n}}\n"
    )
}

fn lock_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("memplan.lock")).unwrap()
}

fn memplan_lock(dir: &Path, extra: &[&str]) -> String {
    let src = dir.join("src").display().to_string();
    let mut args = vec!["lock", src.as_str()];
    args.extend_from_slice(extra);
    stdout(&args)
}

/// What `memplan lock --check` prints for the package at `dir`, which must fail (exit 1).
fn failed_check(dir: &Path) -> String {
    let src = dir.join("src").display().to_string();
    let checked = run(&["lock", src.as_str(), "--check"]);
    assert_eq!(checked.status.code(), Some(1));
    String::from_utf8_lossy(&checked.stdout).into_owned()
}

/// The block of plan `key` in a lock file's text.
fn block<'a>(text: &'a str, key: &str) -> &'a str {
    let start = text.find(&format!("\nplan {key}\n")).unwrap();
    let end = start + text[start..].find("\nend\n").unwrap();
    &text[start..end]
}

#[test]
fn the_lock_is_the_same_for_any_thread_count() {
    let dir = package("threads");
    memplan_lock(&dir, &["--threads", "1", "--nodes", "20000"]);
    let one = lock_text(&dir);
    assert_eq!(one.matches("\nplan ").count(), 4, "{one}");
    for threads in ["2", "3", "4"] {
        memplan_lock(
            &dir,
            &["--update", "--threads", threads, "--nodes", "20000"],
        );
        assert_eq!(lock_text(&dir), one, "--threads {threads}");
    }
    // The entries are sorted by plan: `a::plan2`, `b::plan3`, `c::plan4`, `plan1`.
    let keys: Vec<&str> = one
        .lines()
        .filter_map(|l| l.strip_prefix("plan "))
        .collect();
    assert_eq!(keys, ["a::plan2", "b::plan3", "c::plan4", "plan1"]);
    let out = memplan_lock(&dir, &["--check"]);
    assert!(out.contains("fresh (4 plans)"), "{out}");
}

#[test]
fn a_stale_entry_is_found_and_fresh_ones_are_kept_as_they_are() {
    let dir = package("stale");
    // Locked with a small budget: entries kept later keep its offsets and strategy line.
    memplan_lock(&dir, &["--nodes", "0"]);
    let before = lock_text(&dir);
    std::fs::write(dir.join("src/b.rs"), invocation(3, 8)).unwrap();
    let said = failed_check(&dir);
    // One line, naming the stale entry's line; its names are the same, so which part of
    // the fingerprint changed is not known.
    let line = before.lines().position(|l| l == "plan b::plan3").unwrap() + 1;
    assert_eq!(
        said,
        format!(
            "{}: plan `b::plan3` has a stale entry in memplan.lock (line {line}): the fingerprint differs, so a buffer's size, alignment, lifetime, pinned offset or in-place source, a region's capacity or alignment, the invocation's strategy or memplan's planning rules changed (the entry keeps only a hash of them, not which)\n",
            dir.join("src/b.rs").display()
        )
    );
    let b = dir.join("src/b.rs").display().to_string();
    let report = stdout(&["check", b.as_str()]);
    assert!(
        report.contains("lock: the entry of `b::plan3` in memplan.lock is stale"),
        "{report}"
    );
    memplan_lock(&dir, &[]);
    let after = lock_text(&dir);
    for key in ["a::plan2", "c::plan4", "plan1"] {
        assert_eq!(block(&after, key), block(&before, key), "{key}");
        assert!(block(&after, key).contains("strategy optimal(nodes = 0)"));
    }
    assert_ne!(block(&after, "b::plan3"), block(&before, "b::plan3"));
    assert!(block(&after, "b::plan3").contains("strategy optimal(nodes = 38000)"));
    let out = memplan_lock(&dir, &["--check"]);
    assert!(out.contains("fresh (4 plans)"), "{out}");
}

#[test]
fn an_entry_without_an_invocation_is_not_fresh() {
    let dir = package("extra");
    memplan_lock(&dir, &[]);
    std::fs::remove_file(dir.join("src/c.rs")).unwrap();
    let said = failed_check(&dir);
    let line = lock_text(&dir)
        .lines()
        .position(|l| l == "plan c::plan4")
        .unwrap()
        + 1;
    // The other three are fresh: the one line is the entry without an invocation.
    assert_eq!(
        said,
        format!(
            "{}:{line}: the entry of plan `c::plan4` is for no memory_plan! invocation in the package at {}\n",
            dir.join("memplan.lock").display(),
            dir.display()
        )
    );
    memplan_lock(&dir, &[]);
    assert!(!lock_text(&dir).contains("c::plan4"));
}

#[test]
fn without_a_lock_file_check_says_there_is_none() {
    let dir = package("nofile");
    let said = failed_check(&dir);
    assert_eq!(
        said,
        format!(
            "{}: no such file: `memplan lock` writes it (4 plans to lock)\n",
            dir.join("memplan.lock").display()
        )
    );
}

#[test]
fn a_new_invocation_has_no_entry_and_a_renamed_buffer_is_named() {
    let dir = package("missing");
    memplan_lock(&dir, &["--nodes", "0"]);
    let text = lock_text(&dir);
    let line = |key: &str| {
        text.lines()
            .position(|l| l == format!("plan {key}"))
            .unwrap()
            + 1
    };
    // a.rs's plan renamed (`plan2` to `plan5`): a plan without an entry, and an entry
    // without an invocation. b.rs's buffer `b7` renamed: its entry is stale, and says how.
    std::fs::write(
        dir.join("src/a.rs"),
        invocation(2, 0).replace("mod plan2", "mod plan5"),
    )
    .unwrap();
    std::fs::write(
        dir.join("src/b.rs"),
        invocation(3, 0).replace("buffer b7:", "buffer renamed:"),
    )
    .unwrap();
    let said = failed_check(&dir);
    assert_eq!(
        said,
        format!(
            "{a}: plan `a::plan5` has no entry in memplan.lock\n\
             {b}: plan `b::plan3` has a stale entry in memplan.lock (line {}): the buffers changed: `renamed` added, `b7` removed\n\
             {lock}:{}: the entry of plan `a::plan2` is for no memory_plan! invocation in the package at {}\n",
            line("b::plan3"),
            line("a::plan2"),
            dir.display(),
            a = dir.join("src/a.rs").display(),
            b = dir.join("src/b.rs").display(),
            lock = dir.join("memplan.lock").display(),
        )
    );
}

#[test]
fn debug_canary_entries_are_written_with_canary_and_kept_after() {
    let dir = package("canary");
    memplan_lock(&dir, &["--canary"]);
    let text = lock_text(&dir);
    let keys: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("plan "))
        .collect();
    assert_eq!(
        keys,
        [
            "a::plan2",
            "a::plan2 debug-canary",
            "b::plan3",
            "b::plan3 debug-canary",
            "c::plan4",
            "c::plan4 debug-canary",
            "plan1",
            "plan1 debug-canary"
        ]
    );
    // Guards are planned after every buffer: the canary plan of each needs more bytes.
    let planned = |key: &str| -> u64 {
        block(&text, key)
            .lines()
            .find_map(|l| l.strip_prefix("region sram "))
            .and_then(|r| r.split(' ').next())
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(planned("plan1 debug-canary") > planned("plan1"));
    // Without --canary, the file's canary entries are still kept up to date.
    memplan_lock(&dir, &["--update"]);
    assert_eq!(lock_text(&dir), text);
    let out = memplan_lock(&dir, &["--check"]);
    assert!(out.contains("fresh (8 plans)"), "{out}");
}

#[test]
fn without_paths_the_lock_is_the_package_s_from_any_folder_of_it() {
    let dir = package("nopaths");
    memplan_lock(&dir, &["--nodes", "0"]);
    let written = lock_text(&dir);
    let in_folder = |cwd: &Path, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_memplan"))
            .args(args)
            .current_dir(cwd)
            .env_remove("OUT_DIR")
            .output()
            .unwrap()
    };
    // From the package root and from its src folder, as Cargo finds a package.
    for cwd in [dir.clone(), dir.join("src")] {
        let checked = in_folder(&cwd, &["lock", "--check"]);
        assert_eq!(
            checked.status.code(),
            Some(0),
            "{}: {}",
            cwd.display(),
            String::from_utf8_lossy(&checked.stderr)
        );
        std::fs::remove_file(dir.join("memplan.lock")).unwrap();
        let wrote = in_folder(&cwd, &["lock", "--nodes", "0"]);
        assert_eq!(wrote.status.code(), Some(0));
        assert_eq!(lock_text(&dir), written);
    }
    // A workspace's root, of no package: an error that says where to run it.
    let ws = std::env::temp_dir().join(format!("memplan-cli-ws-{}", std::process::id()));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("Cargo.toml"), "[workspace]\nmembers = [\"a\"]\n").unwrap();
    let e = in_folder(&ws, &["lock", "--check"]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&e.stderr).contains(
            "a workspace's Cargo.toml, of no package: run memplan lock in a member package, or give its source folders"
        ),
        "{}",
        String::from_utf8_lossy(&e.stderr)
    );
    // Outside any package: an error that says what to give.
    let outside = std::env::temp_dir().join(format!("memplan-cli-nopkg-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    if super_has_no_cargo_toml(&outside) {
        let e = in_folder(&outside, &["lock"]);
        assert_eq!(e.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&e.stderr)
                .contains("no Cargo.toml in the current folder or above"),
            "{}",
            String::from_utf8_lossy(&e.stderr)
        );
    }
}

/// Whether no folder from `dir` up holds a Cargo.toml (the temporary folder may sit
/// inside a package on some machines).
fn super_has_no_cargo_toml(dir: &Path) -> bool {
    dir.ancestors().all(|d| !d.join("Cargo.toml").is_file())
}

#[test]
fn lock_paths_keeps_the_entries_of_the_package_s_other_plans() {
    let dir = package("paths");
    memplan_lock(&dir, &["--nodes", "0"]);
    let before = lock_text(&dir);
    // `b.rs` changes; locking `a.rs` alone plans `a::plan2` and keeps the three others as
    // they are (`b::plan3`'s stale entry too: it is not in PATHS).
    std::fs::write(dir.join("src/b.rs"), invocation(3, 8)).unwrap();
    let a = dir.join("src/a.rs").display().to_string();
    let out = stdout(&["lock", a.as_str()]);
    assert_eq!(
        out,
        format!("wrote {} (4 plans)\n", dir.join("memplan.lock").display())
    );
    let after = lock_text(&dir);
    for key in ["b::plan3", "c::plan4", "plan1"] {
        assert_eq!(block(&after, key), block(&before, key), "{key}");
    }
    // A check of `a.rs` alone is fresh: the other entries have their invocations.
    let out = stdout(&["lock", a.as_str(), "--check"]);
    assert!(out.contains("fresh (1 plan)"), "{out}");
    // Once `c.rs` is gone, its entry goes, and the lock says so.
    std::fs::remove_file(dir.join("src/c.rs")).unwrap();
    let out = stdout(&["lock", a.as_str()]);
    let line = after.lines().position(|l| l == "plan c::plan4").unwrap() + 1;
    assert!(
        out.contains(&format!(
            "dropped the entry of plan `c::plan4` (line {line}): no memory_plan! invocation in the package at {} has it",
            dir.display()
        )),
        "{out}"
    );
    let last = lock_text(&dir);
    assert!(!last.contains("plan c::plan4"), "{last}");
    assert_eq!(block(&last, "b::plan3"), block(&before, "b::plan3"));
    // A plan elsewhere in the package (an example) keeps its entry too.
    std::fs::create_dir_all(dir.join("examples")).unwrap();
    std::fs::write(dir.join("examples/demo.rs"), invocation(9, 0)).unwrap();
    let demo = dir.join("examples/demo.rs").display().to_string();
    stdout(&["lock", demo.as_str()]);
    let with_demo = lock_text(&dir);
    assert!(
        with_demo.contains("\nplan examples::demo::plan9\n"),
        "{with_demo}"
    );
    memplan_lock(&dir, &[]);
    assert_eq!(
        block(&lock_text(&dir), "examples::demo::plan9"),
        block(&with_demo, "examples::demo::plan9")
    );
}

#[test]
fn an_unreadable_or_newer_lock_file_is_an_error_and_left_as_it_is() {
    let dir = package("unreadable");
    let src = dir.join("src").display().to_string();
    let lock = dir.join("memplan.lock");
    for (text, said) in [
        (
            &b"format 1\nplan m\nfingerprint 00\nbuffer r x a\nend\n"[..],
            "line 4: `x` is not a number",
        ),
        (
            b"format 2\n\nplan m\nfingerprint 00\nend\n",
            "line 1: format 2 is newer than this memplan reads (format 1): the file was written by a newer memplan",
        ),
        (b"format 1\n\xff\xfe", "not UTF-8 text"),
    ] {
        std::fs::write(&lock, text).unwrap();
        for extra in [&[][..], &["--update"], &["--check"]] {
            let mut args = vec!["lock", src.as_str()];
            args.extend_from_slice(extra);
            let out = run(&args);
            let e = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
            assert_eq!(
                e,
                format!(
                    "error: {}: {said}; it is left as it is: memplan lock never replaces a lock file it cannot read (remove it to lock afresh)\n",
                    lock.display()
                ),
                "{args:?}"
            );
            assert_eq!(std::fs::read(&lock).unwrap(), text, "{args:?}");
        }
    }
}

/// A pin splits the arena: the optimum, 16 bytes, is above the lower bound, 12, and only a
/// search proves it.
const PINNED: &str = "memory_plan! {
    mod pinned {
        region r: 64 bytes, align 4;
        buffer p: 4 bytes in r, live 0..=2, at 4;
        buffer a: 8 bytes in r, live 0..=0;
        buffer b: 4 bytes in r, live 1..=2;
        buffer c: 4 bytes in r, live 2..=2;
    }
}
";

/// Replaces `old` by `new` in the lock file of `dir`.
fn edit_lock(dir: &Path, old: &str, new: &str) {
    let text = lock_text(dir);
    assert!(text.contains(old), "{text}");
    std::fs::write(dir.join("memplan.lock"), text.replace(old, new)).unwrap();
}

#[test]
fn an_entry_s_claims_are_checked_never_taken_as_written() {
    let dir = package("claims");
    std::fs::write(dir.join("src/lib.rs"), PINNED).unwrap();
    let lib = dir.join("src/lib.rs").display().to_string();
    let src = dir.join("src").display().to_string();
    memplan_lock(&dir, &[]);
    let written = lock_text(&dir);
    assert!(
        block(&written, "pinned").contains("region r 16 proven"),
        "{written}"
    );
    // The search proves the claim again: fresh.
    assert!(memplan_lock(&dir, &["--check"]).contains("fresh (4 plans)"));
    // A locked build does not search, so it does not repeat the claim, and says so.
    let report = stdout(&["check", lib.as_str()]);
    assert!(
        report.contains("lock: the entry says a search proved region `r` (16 bytes) optimal; this build does not search, so it does not say so"),
        "{report}"
    );
    // Planned bytes edited: the entry is refused (an error), and planned again.
    edit_lock(&dir, "region r 16 proven", "region r 12 proven");
    let checked = run(&["lock", src.as_str(), "--check"]);
    assert_eq!(checked.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&checked.stderr)
            .contains("gives region `r` 12 planned bytes, and its offsets end at byte 16"),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    memplan_lock(&dir, &[]);
    assert_eq!(lock_text(&dir), written);
    // A worse layout claimed optimal: the offsets are valid and kept, the claim is not.
    let a = block(&written, "pinned")
        .lines()
        .find(|l| l.ends_with(" a"))
        .unwrap()
        .to_string();
    assert_eq!(a, "buffer r 8 a");
    edit_lock(&dir, "buffer r 8 a\n", "buffer r 16 a\n");
    edit_lock(&dir, "region r 16 proven", "region r 24 proven");
    let said = failed_check(&dir);
    assert_eq!(
        said,
        format!(
            "{lib}: plan `pinned` has an entry in memplan.lock (line {}) whose claims do not hold: the entry says region `r` is proven optimal at 24 bytes, and neither its lower bound nor a search with optimal(nodes = 38000) proves it\n",
            lock_text(&dir)
                .lines()
                .position(|l| l == "plan pinned")
                .unwrap()
                + 1
        )
    );
    let out = run(&["lock", src.as_str()]);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("plan `pinned`: the entry says region `r` is proven optimal at 24 bytes, and neither its lower bound nor a search with optimal(nodes = 38000) proves it; written as checked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = lock_text(&dir);
    assert!(
        block(&fixed, "pinned").contains("region r 24 unproven\nbuffer r 4 p\nbuffer r 16 a\n"),
        "{fixed}"
    );
    // At the lower bound an `unproven` claim is proven: checked, it is written as proven.
    let plan2 = block(&fixed, "a::plan2").to_string();
    let region = plan2
        .lines()
        .find(|l| l.starts_with("region "))
        .unwrap()
        .to_string();
    assert!(region.ends_with(" proven"), "{region}");
    let unproven = region.replace(" proven", " unproven");
    edit_lock(&dir, &format!("{region}\n"), &format!("{unproven}\n"));
    let said = failed_check(&dir);
    assert!(
        said.contains("plan `a::plan2` has an entry in memplan.lock")
            && said.contains("is unproven, and its"),
        "{said}"
    );
    memplan_lock(&dir, &[]);
    assert_eq!(block(&lock_text(&dir), "a::plan2"), plan2);
}
