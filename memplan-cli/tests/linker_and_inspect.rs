//! `memplan linker` prints the fragment that places a plan's arenas (section names from the
//! package of the nearest Cargo.toml, the planned bytes in its ASSERT), and `memplan
//! inspect` reads the plans back out of an ELF's `.memplan.info` section, refusing one
//! that would be loaded into the device.

use std::path::{Path, PathBuf};

use object::write::{Object, StandardSection, Symbol, SymbolSection};
use object::{
    Architecture, BinaryFormat, Endianness, SectionKind, SymbolFlags, SymbolKind, SymbolScope,
};

/// A plan with one region in memory SRAM3: `a` (40 bytes, steps 0..=1) and `b` (24 bytes,
/// steps 1..=2) are live together at step 1; `c` (32 bytes, step 2) may take `a`'s bytes.
/// With the region's 16-byte alignment, `b` starts at 48: 72 bytes planned, the fewest
/// possible (80 bytes of memory, a multiple of 16).
const PLAN: &str = r#"
memplan_runtime::memory_plan! {
    mod fw_plan {
        region act: 256 bytes, memory SRAM3;
        buffer a: 40 bytes, live 0..=1;
        buffer b: 24 bytes, live 1..=2;
        buffer c: 32 bytes, live 2..=2;
    }
}
"#;

mod common;
use common::run as memplan;

/// A package `my-fw` in a fresh folder, with `src/lib.rs` holding `source`.
fn package(test: &str, source: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"my-fw\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), source).unwrap();
    dir
}

fn text(out: &[u8]) -> String {
    String::from_utf8(out.to_vec()).unwrap()
}

#[test]
fn linker_places_the_region_in_its_memory_under_the_package_name() {
    let dir = package("linker", PLAN);
    let out = memplan(&["linker".as_ref(), dir.join("src/lib.rs").as_os_str()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let fragment = text(&out.stdout);
    let section = ".memplan.my_fw.fw_plan.region.act";
    assert!(
        fragment.contains(&format!("  {section} (NOLOAD) : ALIGN(16)\n")),
        "{fragment}"
    );
    assert!(
        fragment.contains(&format!("    *({section})\n  }} > SRAM3\n")),
        "{fragment}"
    );
    assert!(
        fragment.contains("needs 80 bytes of memory SRAM3 (72 planned, aligned to 16)"),
        "{fragment}"
    );
    assert!(fragment.contains("INSERT BEFORE .bss;"), "{fragment}");

    // --package wins over Cargo.toml.
    let out = memplan(&[
        "linker".as_ref(),
        dir.join("src/lib.rs").as_os_str(),
        "--package".as_ref(),
        "other".as_ref(),
    ]);
    assert!(text(&out.stdout).contains(".memplan.other.fw_plan.region.act (NOLOAD)"));
}

#[test]
fn linker_leaves_out_an_invocation_with_errors_and_exits_1() {
    let dir = package("linker-errors", &PLAN.replace("256 bytes", "64 bytes"));
    let out = memplan(&["linker".as_ref(), dir.join("src/lib.rs").as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !text(&out.stdout).contains(".memplan.my_fw"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("1 of 1 invocation has errors and is left out;"),
        "{}",
        text(&out.stderr)
    );
}

/// An ELF object holding `contents` in a `.memplan.info` section, allocated or not.
fn elf_with_info(path: &Path, contents: &[u8], allocated: bool) {
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::Arm, Endianness::Little);
    let kind = if allocated {
        SectionKind::ReadOnlyData
    } else {
        SectionKind::Other
    };
    let id = obj.add_section(Vec::new(), b".memplan.info".to_vec(), kind);
    obj.append_section_data(id, contents, 1);
    // Some code beside it, as in a firmware.
    let text = obj.section_id(StandardSection::Text);
    obj.append_section_data(text, &[0x70, 0x47], 2);
    std::fs::write(path, obj.write().unwrap()).unwrap();
}

/// The `.memplan.info` record of PLAN, as the macro embeds it: encoded by the front end.
fn info_record(dir: &Path) -> Vec<u8> {
    info_record_of(dir, PLAN)
}

/// The `.memplan.info` record of the invocation `plan`.
fn info_record_of(dir: &Path, plan: &str) -> Vec<u8> {
    let tokens: proc_macro2::TokenStream = memplan_lang::source::invocations(plan)
        .unwrap()
        .remove(0)
        .tokens;
    let env = memplan_lang::Env {
        base_dir: Some(dir.to_path_buf()),
        out_dir: None,
        package: Some("my-fw".into()),
        ..memplan_lang::Env::default()
    };
    let checked = memplan_lang::check(tokens, &env);
    checked
        .info()
        .expect("the plan has a description")
        .encode()
        .into_bytes()
}

#[test]
fn inspect_prints_the_report_memplan_check_prints_from_the_source() {
    let dir = package("inspect", PLAN);
    let elf = dir.join("firmware.elf");
    let mut record = info_record(&dir);
    // Two plans linked together, and the zero padding a linker may put between them.
    let second = String::from_utf8(record.clone())
        .unwrap()
        .replace("plan fw_plan", "plan fw_plan_2");
    record.extend_from_slice(&[0, 0, 0]);
    record.extend_from_slice(second.as_bytes());
    elf_with_info(&elf, &record, false);

    let out = memplan(&["inspect".as_ref(), "--report".as_ref(), elf.as_os_str()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let checked = memplan(&["check".as_ref(), dir.join("src/lib.rs").as_os_str()]);
    let report = text(&checked.stdout);
    assert!(report.starts_with("memory plan `fw_plan`"), "{report}");
    // The region row: capacity 256, 72 planned, lower bound 64 (a and b at step 1), 3
    // buffers, proven optimal (a's 40 bytes round up to 48 before `b` can start), no search.
    assert!(
        report
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["act", "0", "256", "72", "64", "1", "3", "yes", "0"]),
        "{report}"
    );
    let expected = format!("{report}{}", report.replace("`fw_plan`", "`fw_plan_2`"));
    assert_eq!(text(&out.stdout), expected);

    // The map and the trace drawn from the ELF: a panel per plan's region, a rectangle per
    // buffer; a trace event per buffer and step it is live (2 + 2 + 1, twice).
    let (map, trace) = (dir.join("map.svg"), dir.join("trace.json"));
    let out = memplan(&[
        "inspect".as_ref(),
        elf.as_os_str(),
        "--svg".as_ref(),
        map.as_os_str(),
        "--trace".as_ref(),
        trace.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let map = std::fs::read_to_string(map).unwrap();
    assert_eq!(map.matches("<rect id=\"buf-").count(), 6, "{map}");
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let allocations: Vec<_> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(allocations.len(), 10);
    let b = allocations.iter().find(|e| e["name"] == "b").unwrap();
    assert_eq!((b["ts"].as_u64(), b["dur"].as_u64()), (Some(48), Some(24)));
}

#[test]
fn inspect_refuses_an_allocated_info_section_and_a_file_without_one() {
    let dir = package("inspect-alloc", PLAN);
    let elf = dir.join("loaded.elf");
    elf_with_info(&elf, &info_record(&dir), true);
    let out = memplan(&["inspect".as_ref(), elf.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("section is allocated"),
        "{}",
        text(&out.stderr)
    );

    let out = memplan(&["inspect".as_ref(), dir.join("Cargo.toml").as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("Cargo.toml"),
        "{}",
        text(&out.stderr)
    );
}

/// A description that memplan did not write (made by hand, or corrupted): `inspect` says
/// what is inconsistent, exits 1 and draws nothing, never a panic, whatever it is asked
/// to draw.
#[test]
fn inspect_says_when_a_description_is_inconsistent_and_draws_nothing() {
    let dir = package("inspect-forged", PLAN);
    let cases = [
        (
            "buffer b 3 0 16 0 0\n",
            "buffer `b` is in region 3, but the plan has 2 regions",
        ),
        (
            "buffer b 0 0 16 5 2\n",
            "buffer `b` has a lifetime whose last step 2 is before its first 5",
        ),
        (
            "buffer b 0 60 16 0 0\n",
            "buffer `b` (16 bytes at 60) ends past the 64 planned bytes of region `r`",
        ),
        (
            "",
            "region `r` has a lower bound of 99 bytes, above its 64 planned bytes",
        ),
    ];
    for (k, (buffer, want)) in cases.iter().enumerate() {
        let lower_bound = if buffer.is_empty() { 99 } else { 64 };
        let record = format!(
            "memplan-plan 1\nplan p crate\nstrategy greedy -\nregion r 32 64 {lower_bound} 0 16 1 0 -\nregion r 32 64 64 0 16 1 0 -\nbuffer a 0 0 64 0 0\n{buffer}end\n"
        );
        let elf = dir.join(format!("forged{k}.elf"));
        elf_with_info(&elf, record.as_bytes(), false);
        let svg = dir.join(format!("forged{k}.svg"));
        let trace = dir.join(format!("forged{k}.json"));
        let out = memplan(&[
            "inspect".as_ref(),
            elf.as_os_str(),
            "--svg".as_ref(),
            svg.as_os_str(),
            "--trace".as_ref(),
            trace.as_os_str(),
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("the description of plan `p` is inconsistent"),
            "{err}"
        );
        assert!(err.contains(want), "{want}: {err}");
        // Every description here also names its region twice and plans above capacity.
        assert!(err.contains("region `r` is described twice"), "{err}");
        assert!(
            err.contains("region `r` plans 64 bytes, more than its capacity of 32"),
            "{err}"
        );
        assert!(!svg.exists() && !trace.exists());
    }
}

/// PLAN with a temp pool of 64 bytes.
fn plan_with_temp() -> String {
    PLAN.replace("region act:", "temp: 64;\n        region act:")
}

/// A firmware as a linker leaves it: `.memplan.info` and, in `.bss`, the arena statics of
/// `fw_plan` at 0x40 (region `act`, legacy mangling) and 0x100 (the temp pool, v0
/// mangling), and another plan's arena at 0x200 that must not be taken for it.
fn elf_with_symbols(path: &Path, contents: &[u8]) {
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::Arm, Endianness::Little);
    let id = obj.add_section(Vec::new(), b".memplan.info".to_vec(), SectionKind::Other);
    obj.append_section_data(id, contents, 1);
    let bss = obj.section_id(StandardSection::UninitializedData);
    obj.append_section_bss(bss, 0x300, 16);
    for (name, value) in [
        (
            "_ZN5my_fw7fw_plan17__MEMPLAN_ARENA_017h0123456789abcdefE",
            0x40,
        ),
        ("_RNvNtCs1a2b3c_5my_fw7fw_plan14___MEMPLAN_TEMP", 0x100),
        (
            "_ZN5my_fw5other17__MEMPLAN_ARENA_017hfedcba9876543210E",
            0x200,
        ),
    ] {
        obj.add_symbol(Symbol {
            name: name.as_bytes().to_vec(),
            value,
            size: 16,
            kind: SymbolKind::Data,
            scope: SymbolScope::Compilation,
            weak: false,
            section: SymbolSection::Section(bss),
            flags: SymbolFlags::None,
        });
    }
    std::fs::write(path, obj.write().unwrap()).unwrap();
}

/// `inspect` shows where the arenas and pools are (from the symbols) and every buffer's
/// absolute address: the region's start plus its offset. PLAN plans `a` at 0, `b` at 48,
/// `c` at 0 (see PLAN), so with `act` at 0x40 they are at 0x40, 0x70 and 0x40.
#[test]
fn inspect_shows_absolute_addresses_and_the_pools() {
    let source = plan_with_temp();
    let dir = package("inspect-addresses", &source);
    let elf = dir.join("firmware.elf");
    elf_with_symbols(&elf, &info_record_of(&dir, &source));

    let out = memplan(&["inspect".as_ref(), elf.as_os_str()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    let checked = text(&memplan(&["check".as_ref(), dir.join("src/lib.rs").as_os_str()]).stdout);
    // The report first, as `memplan check` prints it; then the addresses.
    assert!(shown.starts_with(&checked), "{shown}");
    let rows: Vec<Vec<&str>> = shown[checked.len()..]
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let has = |row: &[&str]| rows.iter().any(|r| r == row);
    assert!(
        has(&["region", "act", "0x00000040", "72", "memory", "SRAM3"]),
        "{shown}"
    );
    assert!(has(&["pool", "constant", "-", "0", ".bss"]), "{shown}");
    assert!(
        has(&["pool", "temp", "0x00000100", "64", ".bss"]),
        "{shown}"
    );
    assert!(
        has(&["a", "act", "0x00000040", "0", "40", "0..=1"]),
        "{shown}"
    );
    assert!(
        has(&["b", "act", "0x00000070", "48", "24", "1..=2"]),
        "{shown}"
    );
    assert!(
        has(&["c", "act", "0x00000040", "0", "32", "2..=2"]),
        "{shown}"
    );

    // --report: the report alone, what `memplan check` prints.
    let out = memplan(&["inspect".as_ref(), "--report".as_ref(), elf.as_os_str()]);
    assert_eq!(text(&out.stdout), checked);

    // --format json: the same, as numbers.
    let out = memplan(&[
        "inspect".as_ref(),
        elf.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let plan = &j["plans"][0];
    assert_eq!(plan["name"], "fw_plan");
    assert_eq!(plan["regions"][0]["address"], 0x40);
    assert_eq!(plan["regions"][0]["planned_bytes"], 72);
    assert_eq!(plan["regions"][0]["memory"], "SRAM3");
    let pools: Vec<(&str, u64, Option<u64>)> = plan["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["size"].as_u64().unwrap(),
                p["address"].as_u64(),
            )
        })
        .collect();
    assert_eq!(
        pools,
        [
            ("constant", 0, None),
            ("runtime", 0, None),
            ("temp", 64, Some(0x100))
        ]
    );
    let addresses: Vec<u64> = plan["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["address"].as_u64().unwrap())
        .collect();
    assert_eq!(addresses, [0x40, 0x70, 0x40]);
}

/// A description of version 2 (before `pool` lines) still reads: its report, and no pools.
#[test]
fn inspect_reads_a_description_of_version_2() {
    let dir = package("inspect-v2", PLAN);
    let elf = dir.join("firmware.elf");
    let record: String = String::from_utf8(info_record(&dir))
        .unwrap()
        .replace("memplan-plan 4", "memplan-plan 2")
        .lines()
        .filter(|l| !l.starts_with("pool "))
        .map(|l| format!("{l}\n"))
        .collect();
    elf_with_info(&elf, record.as_bytes(), false);
    let out = memplan(&["inspect".as_ref(), elf.as_os_str()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("(no pool lines: the description is of version 1 or 2"),
        "{shown}"
    );
    let out = memplan(&["inspect".as_ref(), "--report".as_ref(), elf.as_os_str()]);
    let checked = memplan(&["check".as_ref(), dir.join("src/lib.rs").as_os_str()]);
    assert_eq!(text(&out.stdout), text(&checked.stdout));
}
