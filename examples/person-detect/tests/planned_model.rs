//! The model planned by `memory_plan!` (`src/model.rs`) and run by its generated `run` on
//! the host, on both test images: the output tensors must be the bytes LiteRT 2.3.0 wrote
//! (`data/*.expected.bin`, by `tools/expected_outputs.py`), and the committed inputs the
//! BMPs' pixels as TFLM's test feeds them (decoded here, independently of the script).

#[path = "fixture/mod.rs"]
mod fixture;

use memplan_person_detect::model::{infer, person};
use memplan_person_detect::testdata::IMAGES;
use memplan_runtime::MemoryId;

#[test]
fn the_committed_inputs_are_the_bmps_pixels() {
    for (name, input, _) in IMAGES {
        assert_eq!(input, &fixture::image_input(name)[..], "{name}");
    }
}

#[test]
fn the_planned_model_gives_litert_bytes_on_both_images() {
    let manager = person::take().expect("taken once");
    for (name, input, expected) in IMAGES {
        let mut scores = [0i8; 2];
        infer(manager, input, &mut scores);
        let bytes: Vec<u8> = scores.iter().map(|&s| s as u8).collect();
        assert_eq!(bytes, expected, "{name}: scores {scores:?}");
    }
    // Twice on the same manager: the second run starts from what the first left.
    let (_, input, expected) = IMAGES[0];
    let mut scores = [0i8; 2];
    infer(manager, input, &mut scores);
    assert_eq!(scores.map(|s| s as u8), [expected[0], expected[1]]);
}

#[test]
fn the_activations_take_the_lower_bound() {
    // What TFLM's own planner gives the same tensors: its arena's head, 55,296 bytes,
    // measured by scripts/models/tflm_judge.py (scripts/models/README.md). The region's
    // capacity (54 KiB) already makes a larger plan a compile error.
    assert_eq!(<person::Act as MemoryId>::SIZE, 55_296);
}
