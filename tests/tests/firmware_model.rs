//! The firmware's int8 kernels (`examples/firmware/src/kernels.rs`), run on the host over
//! the firmware's model and test images, reproduce the reference predictions that
//! `examples/firmware/model/train.py` computed with the same integer arithmetic in numpy,
//! image by image; the firmware does the same on the emulated Cortex-M4 (`.ci/run`).

#[path = "../../examples/firmware/src/kernels.rs"]
#[allow(dead_code)]
mod kernels;
#[path = "../../examples/firmware/src/model.rs"]
#[allow(dead_code)]
mod model;

use kernels::Requant;
use model::*;

fn classify(image: &[u8; IN]) -> u8 {
    let mut input = [0i8; IN];
    kernels::quantize_input(image, &mut input);
    let layer = |input: &[i8], w: &[i8], b: &[i32], p: &Requant<'_>, out: &mut [i8]| {
        let mut acc = vec![0i32; out.len()];
        kernels::dense(input, w, b, p, &mut acc, out);
    };
    let mut h1 = [0i8; H1];
    let l1 = Requant {
        input_zero_point: INPUT_ZERO_POINT,
        output_zero_point: L1_OUTPUT_ZERO_POINT,
        multipliers: &L1_MULTIPLIERS,
        shifts: &L1_SHIFTS,
    };
    layer(&input, &L1_WEIGHTS, &L1_BIAS, &l1, &mut h1);
    kernels::relu_in_place(&mut h1, L1_OUTPUT_ZERO_POINT);
    let mut h2 = [0i8; H2];
    let l2 = Requant {
        input_zero_point: L1_OUTPUT_ZERO_POINT,
        output_zero_point: L2_OUTPUT_ZERO_POINT,
        multipliers: &L2_MULTIPLIERS,
        shifts: &L2_SHIFTS,
    };
    layer(&h1, &L2_WEIGHTS, &L2_BIAS, &l2, &mut h2);
    kernels::relu_in_place(&mut h2, L2_OUTPUT_ZERO_POINT);
    let mut logits = [0i8; OUT];
    let l3 = Requant {
        input_zero_point: L2_OUTPUT_ZERO_POINT,
        output_zero_point: L3_OUTPUT_ZERO_POINT,
        multipliers: &L3_MULTIPLIERS,
        shifts: &L3_SHIFTS,
    };
    layer(&h2, &L3_WEIGHTS, &L3_BIAS, &l3, &mut logits);
    kernels::argmax(&logits)
}

#[test]
fn the_kernels_reproduce_the_integer_reference_on_every_test_image() {
    let predicted: Vec<u8> = TEST_IMAGES.iter().map(classify).collect();
    assert_eq!(predicted.len(), 450);
    assert_eq!(predicted, REFERENCE.to_vec());
    // The accuracy model/README.md reports for the int8 model: 437 of 450.
    let correct = predicted
        .iter()
        .zip(TEST_LABELS.iter())
        .filter(|(p, l)| p == l)
        .count();
    assert_eq!(correct, 437);
}
