//! TFLM's person detection model (MobileNet v1 0.25, 96x96x1 int8 input, 31 operators) on
//! memplan: the int8 kernels of its five operators ([`kernels`]), bit-exact with LiteRT
//! 2.3.0 (see `README.md`); the same kernels behind the kernel traits `memory_plan!`
//! generates from the model ([`tflite`]); and the firmware's plan and inference
//! ([`model`]), whose operator schedule and working memory `memory_plan!` generates from
//! the `.tflite` file at compile time. `no_std`, no allocation, no `unsafe`.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate std;

pub mod kernels;
pub mod model;
pub mod tflite;

/// The model's two test inputs (TFLM's `person.bmp` and `no_person.bmp`, as its test feeds
/// them) and LiteRT 2.3.0's outputs on them, written by `tools/expected_outputs.py`.
pub mod testdata {
    /// `(image, input tensor bytes, expected output tensor bytes)`.
    pub const IMAGES: [(&str, &[u8], &[u8]); 2] = [
        (
            "person",
            include_bytes!("../data/person.input.bin"),
            include_bytes!("../data/person.expected.bin"),
        ),
        (
            "no_person",
            include_bytes!("../data/no_person.input.bin"),
            include_bytes!("../data/no_person.expected.bin"),
        ),
    ];
}
