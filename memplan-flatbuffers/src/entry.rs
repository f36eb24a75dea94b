//! The entry points `memplan-planner` calls: verify a buffer as a model, pack a model into
//! a finished buffer. They are not generic and not inlined, so the generic verifier and
//! packer code they instantiate is compiled here, once, and not again in every crate that
//! reads a model (the planner is built with `opt-level = 3`, where that code costs most).

#[cfg(feature = "object-api")]
use flatbuffers::FlatBufferBuilder;
use flatbuffers::{InvalidFlatbuffer, VerifierOptions};

#[cfg(feature = "object-api")]
use crate::aligned::{pack_executorch_program, pack_tflite_model};
use crate::{executorch, tflite};

/// `buf` verified as a TFLite `Model` (the verifier's checks, not the file identifier).
///
/// # Errors
///
/// The verifier's [`InvalidFlatbuffer`].
pub fn verify_tflite<'b>(
    options: &VerifierOptions,
    buf: &'b [u8],
) -> Result<tflite::Model<'b>, InvalidFlatbuffer> {
    tflite::root_as_model_with_opts(options, buf)
}

/// `buf` verified as an ExecuTorch `Program` (the verifier's checks, not the file
/// identifier).
///
/// # Errors
///
/// The verifier's [`InvalidFlatbuffer`].
pub fn verify_executorch<'b>(
    options: &VerifierOptions,
    buf: &'b [u8],
) -> Result<executorch::Program<'b>, InvalidFlatbuffer> {
    executorch::root_as_program_with_opts(options, buf)
}

#[cfg(feature = "object-api")]
/// `model` packed ([`pack_tflite_model`]) and finished with the file identifier `TFL3`.
///
/// # Panics
///
/// If the buffer would exceed 2 GiB (the flatbuffers builder's limit); callers bound the
/// model's size first.
pub fn finish_tflite(model: &tflite::ModelT) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let root = pack_tflite_model(&mut fbb, model);
    fbb.finish(root, Some(tflite::MODEL_IDENTIFIER));
    fbb.finished_data().to_vec()
}

#[cfg(feature = "object-api")]
/// `program` packed ([`pack_executorch_program`]) and finished with the file identifier
/// `ET12`.
///
/// # Panics
///
/// As [`finish_tflite`].
pub fn finish_executorch(program: &executorch::ProgramT) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let root = pack_executorch_program(&mut fbb, program);
    fbb.finish(root, Some(executorch::PROGRAM_IDENTIFIER));
    fbb.finished_data().to_vec()
}
