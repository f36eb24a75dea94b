//! The linker fragment memplan-build writes, from a package laid out on disk: its text, the
//! files it rebuilds on, its errors, and the section and symbol names, which must be the
//! ones the macro gives the same invocations (each computed by its own side: the fragment
//! from the files, the expansion from the invocation's own tokens).

use std::path::{Path, PathBuf};

use memplan_build::{BuildEnv, Error, fragment};

/// A package in a fresh folder under the target directory, with `files` (path, text).
fn package(name: &str, files: &[(&str, &str)]) -> BuildEnv {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let out_dir = root.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    BuildEnv {
        manifest_dir: root,
        out_dir,
        package: "my-fw".to_string(),
        canary: false,
    }
}

const LIB: &str = r#"
use memplan_runtime::memory_plan;
use memplan_runtime::memory_plan as plan;

memory_plan! {
    pub mod top {
        region act: 96 bytes, memory SRAM3;
        buffer a: 32 bytes in act, live 0..=1;
        buffers in act from "plans/small.csv";
    }
}

pub mod a {
    memplan_runtime::memory_plan! {
        pub mod same { region r: 64 bytes, memory SRAM3; buffer x: 64 bytes in r, live 0..=0; }
    }
}

pub mod b {
    memory_plan! {
        pub mod same { region r: 32 bytes, memory SRAM3; buffer x: 32 bytes in r, live 0..=0; }
    }
}

memory_plan! {
    pub mod r#type { region r#in: 16 bytes, memory SRAM3; buffer x: 16 bytes in r#in, live 0..=0; }
}

memory_plan! {
    pub mod größe { region wärme: 16 bytes, memory SRAM3; buffer x: 16 bytes in wärme, live 0..=0; }
}

plan! {
    pub mod renamed { region r: 16 bytes, memory SRAM3; buffer x: 16 bytes in r, live 0..=0; }
}
"#;

const SMALL: &str = "name,mem_id,offset,size,first,last\nrow,1,0,48,0,0\n";

/// The section names (`.memplan.<...>`) in `text`, in order, without repeats.
fn sections(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "();\"".contains(c)) {
        if word.starts_with(".memplan.my_fw.") && !out.iter().any(|w| w == word) {
            out.push(word.to_string());
        }
    }
    out
}

#[test]
fn plans_of_one_name_in_two_modules_raw_and_non_ascii_names_get_sections_of_their_own() {
    let env = package(
        "names",
        &[("src/lib.rs", LIB), ("src/plans/small.csv", SMALL)],
    );
    let f = fragment(&env, ["src/lib.rs"]).unwrap();
    assert_eq!(
        sections(&f.text),
        [
            ".memplan.my_fw.top.region.act",
            ".memplan.my_fw.a.same.region.r",
            ".memplan.my_fw.b.same.region.r",
            ".memplan.my_fw.type.region.in",
            ".memplan.my_fw.gr_uf6__udf_e.region.w_ue4_rme", // ö is U+00F6, ß U+00DF, ä U+00E4
            ".memplan.my_fw.renamed.region.r",
        ]
    );
    // Every section and symbol name is ASCII (messages keep the names as written).
    assert!(sections(&f.text).iter().all(|s| s.is_ascii()));
    for line in f.text.lines().filter(|l| l.contains(" = ADDR(")) {
        assert!(line.is_ascii(), "{line}");
    }
    assert!(f.text.contains("region `wärme` of plan `größe`"));
    // Each ASSERT quotes its own plan's bytes: 64 for `a::same`, 32 for `b::same`.
    assert!(
        f.text
            .contains("region `r` of plan `a::same` needs 64 bytes of memory SRAM3")
    );
    assert!(
        f.text
            .contains("region `r` of plan `b::same` needs 32 bytes of memory SRAM3")
    );
    // The build script runs again when the source or the plan file it read changes.
    let root = &env.manifest_dir;
    let read: Vec<PathBuf> = f.read.iter().map(|p| p.canonicalize().unwrap()).collect();
    assert_eq!(
        read,
        [
            root.join("src/lib.rs").canonicalize().unwrap(),
            root.join("src/plans/small.csv").canonicalize().unwrap(),
        ]
    );
    let lines = f.directives(&env);
    assert!(lines.contains(&"cargo::rustc-cfg=memplan_fragment".to_string()));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("cargo::rerun-if-changed=") && l.ends_with("small.csv"))
    );
}

/// The macro's side: each invocation expanded as the macro expands it (its module path
/// found from its own tokens in the file), and the link sections and guard symbols of the
/// expansion, which must be the fragment's.
#[test]
fn the_expansion_names_the_sections_and_symbols_of_the_fragment() {
    let env = package(
        "agree",
        &[("src/lib.rs", LIB), ("src/plans/small.csv", SMALL)],
    );
    let f = fragment(&env, ["src/lib.rs"]).unwrap();
    let file = env.manifest_dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut from_expansions = Vec::new();
    for inv in memplan_lang::source::invocations(&text).unwrap() {
        let lang_env = memplan_lang::Env {
            base_dir: file.parent().map(Path::to_path_buf),
            package: Some("my-fw".into()),
            modules: memplan_lang::driver::modules_of_invocation(
                &file,
                &inv.tokens,
                Some(&env.manifest_dir),
            ),
            ..memplan_lang::Env::default()
        };
        let expansion = memplan_lang::expand(inv.tokens, &lang_env).to_string();
        assert!(!expansion.contains("compile_error"), "{expansion}");
        from_expansions.extend(sections(&expansion.replace('"', " ")));
        // Every guard symbol the expansion references is one the fragment defines.
        for word in expansion.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.starts_with("__memplan_plan_") {
                assert!(
                    f.text.contains(&format!("{word} = ADDR(")),
                    "{word} is not defined"
                );
            }
        }
    }
    assert_eq!(from_expansions, sections(&f.text));
}

#[test]
fn a_file_without_an_invocation_is_an_error_not_an_empty_fragment() {
    let env = package("empty", &[("src/lib.rs", "pub fn f() {}\n")]);
    let e = fragment(&env, ["src/lib.rs"]).unwrap_err();
    assert!(matches!(&e, Error::Source { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("no memory_plan! invocation in this file"),
        "{e}"
    );
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let env = package("missing", &[]);
    let e = fragment(&env, ["src/nope.rs"]).unwrap_err();
    assert!(e.to_string().contains("nope.rs"), "{e}");
}

#[test]
fn with_debug_canary_the_fragment_counts_the_guard_bytes() {
    let src = "memory_plan! { mod p { region act: 256 bytes, memory SRAM3; buffer a: 32 bytes in act, live 0..=0; buffer b: 32 bytes in act, live 0..=0; } }";
    let plain = package("canary_off", &[("src/lib.rs", src)]);
    let text = fragment(&plain, ["src/lib.rs"]).unwrap().text;
    assert!(
        text.contains("needs 64 bytes of memory SRAM3 (64 planned"),
        "{text}"
    );
    let guarded = BuildEnv {
        canary: true,
        ..package("canary_on", &[("src/lib.rs", src)])
    };
    let text = fragment(&guarded, ["src/lib.rs"]).unwrap().text;
    // 16 guard bytes after each buffer, as the macro plans them with `debug-canary`.
    assert!(
        text.contains("needs 96 bytes of memory SRAM3 (96 planned"),
        "{text}"
    );
}
