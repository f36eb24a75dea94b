//! Every input the front end's fuzz target once crashed on (`tests/fuzz_inputs/front_end`,
//! the fuzzer's input and a minimised one), through the same property.

mod front_end_property;

#[test]
fn every_input_the_fuzzer_crashed_on_holds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_inputs/front_end");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the inputs are there")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for file in &files {
        let data = std::fs::read(file).expect("readable");
        front_end_property::front_end_holds(&data);
    }
}
