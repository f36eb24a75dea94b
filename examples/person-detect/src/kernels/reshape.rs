//! `RESHAPE`: the bytes do not change, only the shape. In a memory plan the output can be
//! planned in place of the input and the operator is then nothing at all; [`reshape`] is
//! the copy for when they are distinct buffers.

/// Copies `input` to `output` (same scale and zero point: TFLite requires it).
///
/// # Panics
///
/// If the lengths differ.
pub fn reshape(input: &[i8], output: &mut [i8]) {
    assert_eq!(input.len(), output.len(), "reshape: element counts differ");
    output.copy_from_slice(input);
}
