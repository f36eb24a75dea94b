//! What the two model readers share: the caps on what they accept, the flatbuffers
//! verifier's options, the file-identifier check, and errors in the files' terms.
//!
//! Every error is a [`FileError`] without a line: `FILE: MESSAGE`, the message naming the
//! tensor (`tensor 3 (`conv1`) of subgraph 0`), the operator (`operator 2 of subgraph 0`),
//! the value or instruction (ExecuTorch), or the byte offset in the file.

use std::ops::Range;

use memplan_flatbuffers::flatbuffers::{InvalidFlatbuffer, VerifierOptions};

use super::error::FileError;
use super::model::{ModelFormat, detect_model};

/// The largest model file the readers accept, in bytes: 2^31 - 1, the most a flatbuffer's
/// 32-bit offsets address (an ExecuTorch program's segments after its flatbuffer count
/// too).
pub const MAX_MODEL_BYTES: usize = (1 << 31) - 1;

/// The most dims a tensor may have: 16 (TFLite Micro's kernels take at most 6, ExecuTorch's
/// at most 16).
pub const MAX_RANK: usize = 16;

/// The verifier's caps: tables nested at most 64 deep, at most 2^22 tables, at most 2^31
/// bytes visited (a file may reference one vector many times over; this bounds the work).
pub(super) fn verifier_options() -> VerifierOptions {
    VerifierOptions {
        max_depth: 64,
        max_tables: 1 << 22,
        max_apparent_size: 1 << 31,
        ignore_missing_null_terminator: false,
    }
}

/// The verifier's caps before writing a model of `file_bytes` bytes back: as
/// [`verifier_options`], but at most the read's budget of bytes visited
/// ([`read_budget`](super::budget::read_budget): 64 per byte of the file, at least 16 MiB,
/// at most 1 GiB). Unpacking copies every table and vector each time the file references
/// it, so the bytes visited bound what is copied and written back: in proportion to the
/// file, at most 1 GiB (plus alignment), well inside the 2 GiB the flatbuffers builder can
/// hold.
#[cfg(feature = "write")]
pub(super) fn write_verifier_options(file_bytes: usize) -> VerifierOptions {
    let budget = super::budget::read_budget(file_bytes).min(1 << 30);
    VerifierOptions {
        max_apparent_size: usize::try_from(budget).unwrap_or(1 << 30),
        ..verifier_options()
    }
}

/// An error in `file` (no line: model files are binary).
pub(super) fn error(file: &str, message: impl Into<String>) -> FileError {
    FileError::at_line(file, None, message)
}

/// Checks the size and the file identifier of a `format` file.
pub(super) fn check_header(bytes: &[u8], file: &str, format: ModelFormat) -> Result<(), FileError> {
    if bytes.len() > MAX_MODEL_BYTES {
        return Err(error(
            file,
            format!(
                "the file has {} bytes, more than the {MAX_MODEL_BYTES} a {} file may have",
                bytes.len(),
                format.name()
            ),
        ));
    }
    let want = format.identifier();
    match bytes.get(4..8) {
        None => Err(error(
            file,
            format!(
                "the file has {} bytes: too short for a {} flatbuffer (file identifier `{}` at bytes 4..8)",
                bytes.len(),
                format.name(),
                String::from_utf8_lossy(&want)
            ),
        )),
        Some(id) if id == want => Ok(()),
        Some(id) => {
            let found = match detect_model(bytes) {
                Some(other) => format!(" (a {} file)", other.name()),
                None => String::new(),
            };
            Err(error(
                file,
                format!(
                    "not a {} file: its file identifier (bytes 4..8) is {}{found}, expected `{}`",
                    format.name(),
                    shown(id),
                    String::from_utf8_lossy(&want)
                ),
            ))
        }
    }
}

/// Bytes as text when they are printable ASCII (`ET12`), else in hex (`[00 ff 10 02]`).
fn shown(id: &[u8]) -> String {
    if id.iter().all(|b| b.is_ascii_graphic()) {
        format!("`{}`", String::from_utf8_lossy(id))
    } else {
        let hex: Vec<String> = id.iter().map(|b| format!("{b:02x}")).collect();
        format!("[{}]", hex.join(" "))
    }
}

/// The verifier's complaint, on one line; `options` are the verifier's, whose cap on the
/// bytes visited a file that references its tables many times over passes.
pub(super) fn invalid(
    file: &str,
    format: ModelFormat,
    e: &InvalidFlatbuffer,
    options: &VerifierOptions,
) -> FileError {
    if matches!(e, InvalidFlatbuffer::ApparentSizeTooLarge) {
        return error(
            file,
            format!(
                "its tables and vectors, counted each time the file references them, come to more than the {} bytes memplan visits (the file references its tables many times over)",
                options.max_apparent_size
            ),
        );
    }
    let text = e.to_string().replace('\n', " ").replace('\t', "");
    error(
        file,
        format!(
            "not a valid {} flatbuffer (truncated or corrupt): {text}",
            format.name()
        ),
    )
}

/// The byte range of `part` (a slice of `whole`) in `whole`.
pub(super) fn range_in(whole: &[u8], part: &[u8]) -> Range<u64> {
    let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize) as u64;
    start..start + part.len() as u64
}

/// Elements times `element_size`, checked: `None` on overflow of u64, or for a negative
/// dim.
pub(super) fn byte_size(dims: &[i64], element_size: u64) -> Result<u64, String> {
    let mut n: u64 = element_size;
    for &d in dims {
        let d = u64::try_from(d).map_err(|_| {
            format!("dim {d} is negative: a dynamic shape, which memplan cannot plan")
        })?;
        n = n.checked_mul(d).ok_or_else(|| {
            format!(
                "its byte size ({} elements of {element_size} bytes) overflows 64 bits",
                dims.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(" x ")
            )
        })?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert_eq!(byte_size(&[1, 96, 96, 1], 1), Ok(9216));
        assert_eq!(byte_size(&[], 4), Ok(4));
        assert!(byte_size(&[1, -1], 4).unwrap_err().contains("dynamic"));
        assert!(
            byte_size(&[1 << 40, 1 << 30], 4)
                .unwrap_err()
                .contains("overflows 64 bits")
        );
    }

    #[test]
    fn the_wrong_identifier_is_named() {
        let mut b = vec![0u8; 16];
        b[4..8].copy_from_slice(b"ET12");
        let e = check_header(&b, "m.tflite", ModelFormat::Tflite).unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.tflite: not a .tflite file: its file identifier (bytes 4..8) is `ET12` (a .pte file), expected `TFL3`"
        );
        let e = check_header(&[1, 2, 3], "m.pte", ModelFormat::Pte).unwrap_err();
        assert!(e.message.contains("too short"));
        b[4..8].copy_from_slice(&[0, 0xff, 1, 2]);
        let e = check_header(&b, "m.pte", ModelFormat::Pte).unwrap_err();
        assert!(e.message.contains("[00 ff 01 02]"));
    }
}
