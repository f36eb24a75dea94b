//! The kernels against LiteRT 2.3.0, byte for byte: every operator of the person detection
//! model on LiteRT's own input tensors, and the whole network chained from the image, for
//! both test images and both LiteRT configurations the fixture holds (see
//! `tools/dump_fixture.py`).
//!
//! The fixture is not in the repository: these tests are ignored unless asked for, and
//! then fail (never pass) when `PERSON_DETECT_FIXTURE` does not name one:
//!
//! ```sh
//! PERSON_DETECT_FIXTURE=$PWD/../../target/person-detect-fixture cargo test --release -- --ignored --nocapture
//! ```

mod fixture;

use fixture::{Config, Fixture, IMAGES, image_input};
use memplan_person_detect::kernels::quant::softmax_exp_table;

fn mismatches(a: &[u8], b: &[u8]) -> usize {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

#[test]
#[ignore = "needs a LiteRT fixture: set PERSON_DETECT_FIXTURE (README) and pass --ignored"]
fn every_operator_matches_litert_byte_for_byte() {
    let fx = Fixture::from_env();
    assert_eq!(
        fx.ops.len(),
        31,
        "the person detection model has 31 operators"
    );
    let mut failures = Vec::new();
    for config in Config::ALL {
        for image in IMAGES {
            let mut equal = 0;
            for op in &fx.ops {
                let inputs: Vec<Vec<u8>> = op
                    .inputs
                    .iter()
                    .map(|&t| fx.bytes(config, image, t))
                    .collect();
                let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
                let got = fx.run_op(config, op, &refs);
                let want = fx.bytes(config, image, op.outputs[0]);
                let bad = mismatches(&got, &want);
                if bad == 0 {
                    equal += 1;
                } else {
                    failures.push(format!(
                        "{}/{image}: op {} {} ({}): {bad} of {} bytes differ",
                        config.dir(),
                        op.index,
                        op.opcode,
                        fx.tensors[op.outputs[0]].name,
                        want.len()
                    ));
                }
            }
            println!(
                "{:12} {:10} operators equal to LiteRT: {equal}/{}",
                config.dir(),
                image,
                fx.ops.len()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "needs a LiteRT fixture: set PERSON_DETECT_FIXTURE (README) and pass --ignored"]
fn the_whole_network_matches_litert_from_the_image() {
    let fx = Fixture::from_env();
    let mut failures = Vec::new();
    for config in Config::ALL {
        for image in IMAGES {
            // The input: the BMP read here, byte for byte LiteRT's input tensor.
            let input = image_input(image);
            assert_eq!(
                input,
                fx.bytes(config, image, fx.input_tensor()),
                "{image}: input tensor"
            );
            let acts = fx.run_network(config, input);
            let mut equal = 0;
            for op in &fx.ops {
                let t = op.outputs[0];
                let bad = mismatches(&acts[&t], &fx.bytes(config, image, t));
                if bad == 0 {
                    equal += 1;
                } else {
                    failures.push(format!(
                        "{}/{image}: op {} {}: {bad} bytes differ",
                        config.dir(),
                        op.index,
                        op.opcode
                    ));
                }
            }
            let scores: Vec<i8> = acts[&fx.output_tensor()].iter().map(|&b| b as i8).collect();
            let litert = fx.litert_scores(config, image);
            println!(
                "{:12} {:10} chained: {equal}/{} operators equal; scores [no person, person] = {scores:?}, LiteRT {litert:?}",
                config.dir(),
                image,
                fx.ops.len()
            );
            if scores != litert {
                failures.push(format!(
                    "{}/{image}: scores {scores:?}, LiteRT {litert:?}",
                    config.dir()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "needs a LiteRT fixture: set PERSON_DETECT_FIXTURE (README) and pass --ignored"]
fn the_softmax_table_is_libms() {
    let fx = Fixture::from_env();
    let op = fx
        .ops
        .iter()
        .find(|o| o.opcode == "SOFTMAX")
        .expect("a softmax");
    let scale = fx.tensors[op.inputs[0]].scales[0];
    let mut table = [0f32; 256];
    softmax_exp_table(
        scale,
        op.options["beta"].as_f64().unwrap() as f32,
        &mut table,
    );
    let differ: Vec<usize> = (0..256)
        .filter(|&i| table[i].to_bits() != fx.libm_exp_table[i].to_bits())
        .collect();
    assert!(
        differ.is_empty(),
        "entries that differ from libm's expf: {differ:?}"
    );
}

/// The test has teeth: with each other's arithmetic the kernels no longer match. Prints,
/// per operator, how many bytes of LiteRT's default output the reference arithmetic gets
/// wrong (on LiteRT's own inputs), which is where XNNPack and TFLite's reference differ.
#[test]
#[ignore = "needs a LiteRT fixture: set PERSON_DETECT_FIXTURE (README) and pass --ignored"]
fn the_other_arithmetic_does_not_match() {
    let fx = Fixture::from_env();
    for (config, other) in [
        (Config::LiteRt, Config::BuiltinRef),
        (Config::BuiltinRef, Config::LiteRt),
    ] {
        for image in IMAGES {
            let mut differing = Vec::new();
            for op in &fx.ops {
                let inputs: Vec<Vec<u8>> = op
                    .inputs
                    .iter()
                    .map(|&t| fx.bytes(config, image, t))
                    .collect();
                let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
                let bad = mismatches(
                    &fx.run_op(other, op, &refs),
                    &fx.bytes(config, image, op.outputs[0]),
                );
                if bad > 0 {
                    differing.push(format!("{}:{}", op.index, bad));
                }
            }
            println!(
                "{:12} {:10} with the {} arithmetic: ops (index:bytes) that differ: {}",
                config.dir(),
                image,
                other.dir(),
                differing.join(" ")
            );
            assert!(!differing.is_empty());
        }
    }
}
