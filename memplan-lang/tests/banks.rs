//! `memory M` checked against the package's `memory.x` when the plan is compiled: each
//! test writes a package root holding a `memory.x` and checks an invocation in it.

use std::path::PathBuf;

use memplan_lang::{Checked, Env, check};

/// A fresh package root holding `memory_x` (none when `None`).
fn root(name: &str, memory_x: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-banks-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(text) = memory_x {
        std::fs::write(dir.join("memory.x"), text).unwrap();
    }
    dir
}

fn checked(name: &str, memory_x: Option<&str>, src: &str) -> Checked {
    let env = Env {
        root: Some(root(name, memory_x)),
        ..Env::default()
    };
    check(src.parse().unwrap(), &env)
}

fn errors(c: &Checked) -> Vec<String> {
    c.diagnostics().iter().map(|d| d.message.clone()).collect()
}

const MEMORY_X: &str = "/* a Cortex-M part */
MEMORY
{
  FLASH (rx)  : ORIGIN = 0x08000000, LENGTH = 512K
  SRAM1 (rwx) : ORIGIN = 0x20000000, LENGTH = 0x400
  SRAM2       : ORIGIN = 0x20010000, LENGTH = 4 * 1K
}";

#[test]
fn a_capacity_larger_than_its_bank_is_a_compile_error() {
    let c = checked(
        "larger",
        Some(MEMORY_X),
        "mod m { region act: 2 KiB, memory SRAM1; buffer a: 16 bytes in act, live 0..=0; }",
    );
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{e:?}");
    // 2 KiB = 2048 bytes; SRAM1's LENGTH is 0x400 = 1024.
    assert!(
        e[0].contains(
            "region `act` has a capacity of 2048 bytes, more than memory `SRAM1` has: 1024 bytes"
        ),
        "{e:?}"
    );
    assert!(c.plan().is_none());
}

#[test]
fn a_capacity_that_fits_its_bank_plans() {
    let c = checked(
        "fits",
        Some(MEMORY_X),
        "mod m { region act: 1 KiB, memory SRAM1; region w: 4 KiB, memory SRAM2;
                 buffer a: 16 bytes in act, live 0..=0; buffer b: 16 bytes in w, live 0..=0; }",
    );
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    assert!(c.plan().is_some());
    // The memory.x read is one of the files the plan depends on (rebuilt when it changes).
    assert!(
        c.files().iter().any(|f| f.ends_with("memory.x")),
        "{:?}",
        c.files()
    );
}

#[test]
fn flash_is_refused_by_its_attributes() {
    let c = checked(
        "flash",
        Some(MEMORY_X),
        "mod m { region act: 64 bytes, memory FLASH; buffer a: 16 bytes in act, live 0..=0; }",
    );
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("memory `FLASH`, which is not writable RAM"),
        "{e:?}"
    );
    assert!(e[0].contains("`(rx)`"), "{e:?}");
}

#[test]
fn an_unknown_memory_names_the_banks_and_the_nearest() {
    let c = checked(
        "unknown",
        Some(MEMORY_X),
        "mod m { region act: 64 bytes, memory SRAM3; buffer a: 16 bytes in act, live 0..=0; }",
    );
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("memory `SRAM3`"), "{e:?}");
    assert!(e[0].contains("(did you mean `SRAM1`?)"), "{e:?}");
    assert!(e[0].contains("(it has `FLASH`, `SRAM1`, `SRAM2`)"), "{e:?}");
}

#[test]
fn a_region_without_a_size_takes_what_its_bank_has_left() {
    // SRAM2 is 4 * 1K = 4096 bytes; the temp pool declares 1000 of them.
    let c = checked(
        "rest",
        Some(MEMORY_X),
        "mod m { region act: memory SRAM2; temp: 1000, memory SRAM2;
                 buffer a: 3000 bytes in act, live 0..=0; }",
    );
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    assert_eq!(c.problem().unwrap().regions[0].capacity, 4096 - 1000);
    // One byte more than that does not fit.
    let c = checked(
        "rest-over",
        Some(MEMORY_X),
        "mod m { region act: memory SRAM2; temp: 1000, memory SRAM2;
                 buffer a: 3097 bytes in act, live 0..=0; }",
    );
    let e = errors(&c);
    assert!(
        e.iter()
            .any(|m| m.contains("needed 3097 bytes, available 3096 (over by 1)")),
        "{e:?}"
    );
}

#[test]
fn two_regions_without_a_size_in_one_bank_are_an_error() {
    let c = checked(
        "two-rest",
        Some(MEMORY_X),
        "mod m { region a: memory SRAM2; region b: memory SRAM2;
                 buffer x: 8 bytes in a, live 0..=0; buffer y: 8 bytes in b, live 0..=0; }",
    );
    let e = errors(&c);
    assert!(
        e.iter()
            .any(|m| m.contains("2 regions placed in memory `SRAM2` have no size")),
        "{e:?}"
    );
}

#[test]
fn the_planned_bytes_of_a_bank_are_checked_together() {
    // Each region's capacity fits SRAM1 (1024 bytes), but their planned bytes together
    // (each 600 bytes rounded up to the default alignment, 16: 608) do not.
    let c = checked(
        "together",
        Some(MEMORY_X),
        "mod m { region a: 1 KiB, memory SRAM1; region b: 1 KiB, memory SRAM1;
                 buffer x: 600 bytes in a, live 0..=0; buffer y: 600 bytes in b, live 0..=0; }",
    );
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("the arenas placed in memory `SRAM1` need 1216 bytes, more than its 1024 (memory.x) (over by 192): region `a` 608 bytes, region `b` 608 bytes"),
        "{e:?}"
    );
    assert!(c.plan().is_none());
}

#[test]
fn without_memory_x_only_the_names_are_checked() {
    // No memory.x: SRAM1 is taken on trust (the linker fragment's ASSERT checks it).
    let c = checked(
        "none-ok",
        None,
        "mod m { region act: 64 bytes, memory SRAM1; buffer a: 16 bytes in act, live 0..=0; }",
    );
    assert!(c.diagnostics().is_empty(), "{:?}", errors(&c));
    let c = checked(
        "none-flash",
        None,
        "mod m { region act: 64 bytes, memory FLASH; buffer a: 16 bytes in act, live 0..=0; }",
    );
    let e = errors(&c);
    assert!(
        e.iter().any(|m| m.contains("its name says flash or ROM")),
        "{e:?}"
    );
    let c = checked(
        "none-rest",
        None,
        "mod m { region act: memory SRAM1; buffer a: 16 bytes in act, live 0..=0; }",
    );
    let e = errors(&c);
    assert!(
        e.iter()
            .any(|m| m.contains("has no size") && m.contains("no memory.x was found")),
        "{e:?}"
    );
}
