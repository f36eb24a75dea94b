//! The linker fragment of a package with a `memplan.lock`: planned from the lock's offsets,
//! as the macro plans the same invocation, and the build script reruns when it changes.

use std::path::PathBuf;

use memplan_build::{BuildEnv, fragment};
use memplan_lang::{Env, check_with, lock};
use memplan_planner::Strategy;

/// Eight buffers on which `greedy` plans 9 bytes and the default strategy 8.
const LIB: &str = "memplan_runtime::memory_plan! {
    pub mod m {
        region act: 1 KiB, align 1, memory SRAM3;
        buffer a: 2 bytes in act, live 0..=1;
        buffer b: 3 bytes in act, live 1..=2;
        buffer c: 2 bytes in act, live 2..=3;
        buffer d: 3 bytes in act, live 3..=4;
        buffer e: 1 bytes in act, live 0..=0;
        buffer f: 4 bytes in act, live 4..=5;
        buffer g: 2 bytes in act, live 5..=6;
        buffer h: 3 bytes in act, live 0..=2;
    }
}
";

#[test]
fn the_fragment_takes_the_locked_offsets() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("locked-fragment");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::fs::write(root.join("src/lib.rs"), LIB).unwrap();
    let env = BuildEnv {
        manifest_dir: root.clone(),
        out_dir: root.join("out"),
        package: "fw".to_string(),
        canary: false,
    };
    let needs =
        |bytes: u64| format!("needs {bytes} bytes of memory SRAM3 ({bytes} planned, aligned to 1)");
    let unlocked = fragment(&env, ["src/lib.rs"]).unwrap();
    assert!(unlocked.text.contains(&needs(8)), "{}", unlocked.text);
    // Locked with greedy's plan (valid, one byte larger): the fragment follows the lock.
    let lang_env = Env {
        root: Some(root.clone()),
        strategy: Some(Strategy::Greedy),
        ..Env::default()
    };
    let tokens = memplan_lang::source::invocations(LIB)
        .unwrap()
        .remove(0)
        .tokens;
    let c = check_with(tokens, &lang_env, false);
    let entry = c.lock_entry().unwrap();
    assert_eq!(entry.key, "m");
    std::fs::write(root.join(lock::FILE_NAME), lock::render(&[entry])).unwrap();
    let locked = fragment(&env, ["src/lib.rs"]).unwrap();
    assert!(locked.text.contains(&needs(9)), "{}", locked.text);
    assert!(
        locked.read.contains(&root.join(lock::FILE_NAME)),
        "{:?}",
        locked.read
    );
}
