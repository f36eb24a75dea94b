//! Runs the whole person detection network on both test images with the crate's kernels,
//! from the BMP to the scores, with the weights and LiteRT's reference tensors of a fixture
//! (`tools/dump_fixture.py`), and prints the scores beside LiteRT's:
//!
//! ```sh
//! PERSON_DETECT_FIXTURE=$PWD/../../target/person-detect-fixture cargo run --release --example scores
//! ```

#[path = "../tests/fixture/mod.rs"]
mod fixture;

use fixture::{Config, Fixture, IMAGES, image_input};

fn main() {
    let fx = Fixture::from_env();
    let mut all = true;
    for config in Config::ALL {
        for image in IMAGES {
            let acts = fx.run_network(config, image_input(image));
            let equal = fx
                .ops
                .iter()
                .filter(|op| acts[&op.outputs[0]] == fx.bytes(config, image, op.outputs[0]))
                .count();
            let scores: Vec<i8> = acts[&fx.output_tensor()].iter().map(|&b| b as i8).collect();
            let litert = fx.litert_scores(config, image);
            let same = scores == litert && equal == fx.ops.len();
            all &= same;
            println!(
                "{:12} {:10} no person {:4}  person {:4}   LiteRT {:4} {:4}   operators equal {equal}/{}   {}",
                config.dir(),
                image,
                scores[0],
                scores[1],
                litert[0],
                litert[1],
                fx.ops.len(),
                if same { "match" } else { "DIFFER" }
            );
        }
    }
    if !all {
        std::process::exit(1);
    }
}
