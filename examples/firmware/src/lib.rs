//! The firmware's inference: an int8 digits classifier (`model`, trained and quantized by
//! `model/train.py`; integer kernels in `kernels`) whose working memory is planned at
//! compile time by `memory_plan!`.
//!
//! The plan has two regions: `io` (the image in, the logits out) in the board's main RAM,
//! in `.bss` like any static, and `act` (the activations) in a second RAM bank, SRAM3,
//! where memplan's generated linker fragment places it (`build.rs`, `memory.x`). The
//! kernels' int32 accumulators come from the kernel-temporary pool, also in SRAM3.

#![no_std]
#![forbid(unsafe_code)]

pub mod kernels;
pub mod model;

use memplan_runtime::{MemoryAllocator, MemoryManager, memory_plan};

use kernels::Requant;

memory_plan! {
    /// The working memory of one inference.
    pub mod digits {
        region io: 128 bytes;
        region act: 256 bytes, memory SRAM3;
        temp: 256, memory SRAM3;

        // Step 0: the image arrives and is quantized; steps 1-5: the three dense layers,
        // each ReLU in place of its layer's output; step 6: the prediction.
        buffer pixels: [u8; 64] in io, live 0..=0;
        buffer input:  [i8; 64] in act, live 0..=1;
        buffer fc1:    [i8; 32] in act, live 1..=2;
        buffer relu1:  [i8; 32] in place of fc1, live 2..=3;
        buffer fc2:    [i8; 16] in act, live 3..=4;
        buffer relu2:  [i8; 16] in place of fc2, live 4..=5;
        buffer logits: [i8; 10] in io, live 5..=6;
    }
}

/// The planned manager's type.
pub type Manager = MemoryManager<'static, digits::Plan>;

/// One dense layer with its accumulators from the kernel-temporary pool.
fn dense<const OUT: usize>(
    temp: &mut MemoryAllocator<'static>,
    input: &[i8],
    (weights, bias, params): (&[i8], &[i32], &Requant<'_>),
    out: &mut [i8],
) {
    temp.scoped(|temp| {
        let acc = temp
            .allocate_value([0i32; OUT])
            .expect("the temp pool holds a layer's accumulators");
        kernels::dense(input, weights, bias, params, acc, out);
    });
}

/// Classifies one 8x8 image (pixels `0..=16`); returns the predicted digit.
///
/// The steps are walked in order (`manager.walk()`, then `next()`): each step opens the
/// view of the buffers live at that step, so a buffer used outside its declared lifetime is
/// not a field of the step's view, and a step opened out of order does not compile.
pub fn classify(manager: &mut Manager, image: &[u8; model::IN]) -> u8 {
    use model::*;
    let mut step = manager.walk();
    let (s, _) = step.view();
    s.pixels.copy_from_slice(image);
    kernels::quantize_input(s.pixels, s.input);
    let mut step = step.next();
    let (s, temp) = step.view();
    let l1 = Requant {
        input_zero_point: INPUT_ZERO_POINT,
        output_zero_point: L1_OUTPUT_ZERO_POINT,
        multipliers: &L1_MULTIPLIERS,
        shifts: &L1_SHIFTS,
    };
    dense::<H1>(temp, s.input, (&L1_WEIGHTS, &L1_BIAS, &l1), s.fc1);
    // ReLU in place: `relu1` takes over `fc1`'s bytes at step 2, one field for the pair.
    let mut step = step.next();
    let (mut s, _) = step.view();
    kernels::relu_in_place(s.relu1.output(), L1_OUTPUT_ZERO_POINT);
    let mut step = step.next();
    let (s, temp) = step.view();
    let l2 = Requant {
        input_zero_point: L1_OUTPUT_ZERO_POINT,
        output_zero_point: L2_OUTPUT_ZERO_POINT,
        multipliers: &L2_MULTIPLIERS,
        shifts: &L2_SHIFTS,
    };
    dense::<H2>(temp, s.relu1, (&L2_WEIGHTS, &L2_BIAS, &l2), s.fc2);
    let mut step = step.next();
    let (mut s, _) = step.view();
    kernels::relu_in_place(s.relu2.output(), L2_OUTPUT_ZERO_POINT);
    let mut step = step.next();
    let (s, temp) = step.view();
    let l3 = Requant {
        input_zero_point: L2_OUTPUT_ZERO_POINT,
        output_zero_point: L3_OUTPUT_ZERO_POINT,
        multipliers: &L3_MULTIPLIERS,
        shifts: &L3_SHIFTS,
    };
    dense::<OUT>(temp, s.relu2, (&L3_WEIGHTS, &L3_BIAS, &l3), s.logits);
    let mut step = step.next();
    let (s, _) = step.view();
    kernels::argmax(s.logits)
}

/// Classifies every test image; returns (correct, total, whether every prediction matches
/// the reference computed in Python with the same integer arithmetic), calling `mismatch`
/// for each image whose prediction differs from the reference.
pub fn run(manager: &mut Manager, mut mismatch: impl FnMut(usize, u8, u8)) -> (usize, usize, bool) {
    let mut correct = 0;
    let mut matches = true;
    for (i, image) in model::TEST_IMAGES.iter().enumerate() {
        let predicted = classify(manager, image);
        correct += usize::from(predicted == model::TEST_LABELS[i]);
        if predicted != model::REFERENCE[i] {
            matches = false;
            mismatch(i, predicted, model::REFERENCE[i]);
        }
    }
    (correct, model::TEST_IMAGES.len(), matches)
}
