//! Reading a file within bounds: readers take a regular file of at most
//! [`MAX_FILE_BYTES`], never whatever a path names (`/dev/zero` would be read until memory
//! runs out, a FIFO would block the build).

use std::io::Read;
use std::path::Path;

/// The most bytes memplan reads from one file (plan file, model or source): 1 GiB, above
/// any model a microcontroller runs and any plan a build should parse.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The bytes of `path`, a regular file of at most [`MAX_FILE_BYTES`].
///
/// # Errors
///
/// A message (without the path, which the caller names): the file cannot be opened or
/// read, is not a regular file (a folder, a device, a FIFO), or is larger than the limit.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err("cannot read: not a regular file (a folder, device or pipe)".to_string());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "cannot read: the file has {} bytes, more than memplan reads from one file ({MAX_FILE_BYTES})",
            meta.len()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow while it is read: never past the limit.
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "cannot read: the file grew past {MAX_FILE_BYTES} bytes while it was read"
        ));
    }
    Ok(bytes)
}

/// The text of `path` ([`read_bounded`]), UTF-8.
///
/// # Errors
///
/// As [`read_bounded`], or the file is not UTF-8 (with the byte where it stops being so).
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = read_bounded(path)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (byte {} is not part of a UTF-8 character)",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_a_folder_and_a_missing_file_are_refused_without_reading() {
        let e = read_bounded(Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let e = read_bounded(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let e = read_bounded(Path::new("/no/such/file")).unwrap_err();
        assert!(e.starts_with("cannot read:"), "{e}");
    }

    #[test]
    fn a_regular_file_is_read_whole() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let want = std::fs::read(&path).unwrap();
        assert_eq!(read_bounded(&path).unwrap(), want);
    }
}
