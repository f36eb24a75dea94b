//! An invocation with errors is left out of the linker fragment, and the build script says
//! which one and why, as a `cargo::warning`, where it once said nothing.

mod common;
use common::package;

use memplan_build::fragment;

#[test]
fn an_invocation_left_out_for_its_errors_is_named_in_a_warning() {
    // `good` plans; `bad` does not: two 100-byte buffers live at step 1 in a 128-byte
    // region, the second at 112 (the region's alignment, 16), ending at 212.
    let lib = "memplan_runtime::memory_plan! {
    pub mod good {
        region act: 256 bytes, memory SRAM3;
        buffer a: 32 bytes in act, live 0..=1;
    }
}
memplan_runtime::memory_plan! {
    pub mod bad {
        region act: 128 bytes, memory SRAM3;
        buffer a: 100 bytes in act, live 0..=1;
        buffer b: 100 bytes in act, live 1..=2;
    }
}
";
    let env = package("skipped", "one", lib);
    let f = fragment(&env, ["src/lib.rs"]).unwrap();
    assert_eq!(f.skipped.len(), 1, "{:?}", f.skipped);
    let said = &f.skipped[0];
    assert!(
        said.starts_with("the memory_plan! invocation `bad` in src/lib.rs is left out of the linker fragment: 1 error (the first: region `act` overflows: needed 212 bytes, available 128"),
        "{said}"
    );
    assert!(f.text.contains("good"), "{}", f.text);
    let warnings: Vec<String> = f
        .directives(&env)
        .into_iter()
        .filter(|d| d.starts_with("cargo::warning="))
        .collect();
    assert_eq!(warnings, vec![format!("cargo::warning=memplan: {said}")]);

    // A package whose invocations all plan gets no warning.
    let env = package(
        "skipped",
        "none",
        &lib[..lib
            .find("memplan_runtime::memory_plan! {\n    pub mod bad")
            .unwrap()],
    );
    let f = fragment(&env, ["src/lib.rs"]).unwrap();
    assert!(f.skipped.is_empty());
    assert!(
        !f.directives(&env)
            .iter()
            .any(|d| d.starts_with("cargo::warning"))
    );
}
