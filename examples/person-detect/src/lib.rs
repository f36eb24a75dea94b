//! TFLM's person detection model (MobileNet v1 0.25, 96x96x1 int8 input, 31 operators) for
//! memplan. For now: the int8 kernels of its five operators ([`kernels`]), `no_std`, no
//! allocation, no `unsafe`, bit-exact with LiteRT 2.3.0 (see `README.md`). The operator
//! schedule and its working memory come later, from `memory_plan!`.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate std;

pub mod kernels;
