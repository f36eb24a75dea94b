//! The trybuild UI suite: every `ui/pass/*.rs` builds and runs; every `ui/fail/*.rs` fails
//! to build with exactly the committed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
