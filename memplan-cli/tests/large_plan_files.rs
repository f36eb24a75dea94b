//! Large and odd plan files through `memplan plan`: 100,000 rows in a chain, all live at
//! one step, and at random; lifetimes at the top of the step range (`u32::MAX`). Each plans
//! (the command validates every plan) to the bytes worked out here.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROWS: u32 = 100_000;

fn write(name: &str, rows: impl Iterator<Item = (u64, u32, u32)>) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mut text = String::from("name,mem_id,offset,size,first,last\n");
    for (i, (size, first, last)) in rows.enumerate() {
        text.push_str(&format!("b{i},1,0,{size},{first},{last}\n"));
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// `memplan plan FILE`'s planned bytes and lower bound.
fn plan(path: &Path, strategy: &str) -> (u64, u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(["plan", &path.display().to_string(), "--strategy", strategy])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let field = |label: &str| -> u64 {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no `{label}` in\n{stdout}"));
        line.split_whitespace()
            .find_map(|w| w.parse().ok())
            .unwrap()
    };
    (field("planned "), field("lower bound"))
}

/// The most bytes live at one step, by a sweep over the rows.
fn lower_bound(rows: &[(u64, u32, u32)]) -> u64 {
    let mut events: Vec<(u64, bool, u64)> = Vec::new();
    for &(size, first, last) in rows {
        events.push((u64::from(first), true, size));
        events.push((u64::from(last) + 1, false, size));
    }
    events.sort_unstable();
    let (mut live, mut most) = (0u64, 0u64);
    for (_, add, size) in events {
        if add {
            live += size;
            most = most.max(live);
        } else {
            live -= size;
        }
    }
    most
}

#[test]
fn a_chain_of_100_000_rows_plans_at_its_lower_bound() {
    // Row i lives at steps i and i + 1: two rows live at each step; sizes multiples of 16.
    let rows: Vec<_> = (0..ROWS)
        .map(|i| (16 * u64::from(1 + i % 7), i, i + 1))
        .collect();
    let path = write("chain_100k.csv", rows.iter().copied());
    let lb = lower_bound(&rows);
    assert_eq!(lb, 16 * 13);
    assert_eq!(plan(&path, "greedy"), (lb, lb));
    assert_eq!(plan(&path, "optimal(nodes = 38000)"), (lb, lb));
}

#[test]
fn one_hundred_thousand_rows_live_at_one_step_take_the_sum_of_their_sizes() {
    let rows: Vec<_> = (0..ROWS)
        .map(|i| (16 * u64::from(1 + i % 5), 0, 0))
        .collect();
    let path = write("all_live_100k.csv", rows.iter().copied());
    let sum: u64 = rows.iter().map(|r| r.0).sum();
    assert_eq!(plan(&path, "best_of"), (sum, sum));
}

#[test]
fn one_hundred_thousand_random_rows_plan_at_or_above_their_lower_bound() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let rows: Vec<_> = (0..ROWS)
        .map(|_| {
            let first = next(200_000) as u32;
            (16 * (1 + next(64)), first, first + next(64) as u32)
        })
        .collect();
    let path = write("random_100k.csv", rows.iter().copied());
    let lb = lower_bound(&rows);
    let (planned, bound) = plan(&path, "best_of");
    assert_eq!(bound, lb);
    assert!(planned >= lb && planned <= lb * 2, "{planned} against {lb}");
}

#[test]
fn lifetimes_up_to_the_last_step_plan() {
    // Steps at the top of u32: `a` and `b` meet at u32::MAX - 1, `c` lives at u32::MAX
    // only, `d` over the whole range.
    let max = u32::MAX;
    let rows = [
        (32, max - 2, max - 1),
        (48, max - 1, max),
        (64, max, max),
        (16, 0, max),
    ];
    let path = write("top_steps.csv", rows.iter().copied());
    // At u32::MAX - 1: a, b and d (96 bytes); at u32::MAX: b, c and d (128).
    assert_eq!(lower_bound(&rows), 128);
    assert_eq!(plan(&path, "optimal(nodes = 38000)"), (128, 128));
}

/// A JSON plan file of 100,000 buffers, pretty-printed (one field per line), with an error
/// in its last buffer: named at its line and column, read in one pass (positions were
/// computed from the start of the text for each buffer: quadratic).
#[test]
fn a_json_file_of_100_000_buffers_names_an_error_in_its_last_buffer() {
    let n = 100_000;
    let mut text = String::from("{\n  \"buffers\": [\n");
    for i in 0..n {
        let (first, last) = if i + 1 == n {
            (5, 2)
        } else {
            (i % 50, i % 50 + 3)
        };
        text.push_str(&format!(
            "    {{\n      \"name\": \"b{i}\",\n      \"size\": 64,\n      \"first\": {first},\n      \"last\": {last}\n    }}{}\n",
            if i + 1 == n { "" } else { "," }
        ));
    }
    text.push_str("  ]\n}\n");
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("buffers_100k.json");
    std::fs::write(&path, &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("plan")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    // Each buffer object takes 6 lines after the 2 opening ones; the last starts on line
    // 3 + 6 * 99,999, at column 5.
    let line = 3 + 6 * (n - 1);
    assert!(
        err.contains(&format!(":{line}:5: `b{}` has an empty lifetime", n - 1)),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2), "{err}");
}
