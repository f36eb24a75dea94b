//! Opening and reading an input: every reader of memplan (the macro's plan files and
//! models, a source file, `memory.x`, `memplan.lock`, a firmware's ELF, a manifest) opens
//! its file with [`open_input`], which takes a regular file only, and reads it within
//! [`MAX_FILE_BYTES`] ([`read_bounded`]). A FIFO would block the build (opening one for
//! reading waits for a writer), `/dev/zero` would be read until memory runs out.
//!
//! A path is refused before it is opened: its metadata (links followed) must say a regular
//! file. On Unix it is then opened with `O_NONBLOCK`, so that a path swapped for a FIFO
//! between the two cannot block the open either, and the opened file's own metadata must
//! say a regular file too (for which `O_NONBLOCK` changes nothing).

use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// The most bytes memplan reads from one file (plan file, model or source): 1 GiB, above
/// any model a microcontroller runs and any plan a build should parse.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Why an input was not opened or read ([`open_input`], [`read_input`]). Its text does not
/// name the path, which the caller names: `cannot read: not a regular file but a FIFO
/// (named pipe); memplan reads only regular files`.
#[derive(Debug)]
pub struct InputError {
    /// The path names nothing.
    not_found: bool,
    message: String,
}

impl InputError {
    /// Whether the path names nothing (no such file or folder).
    pub fn is_not_found(&self) -> bool {
        self.not_found
    }

    fn io(e: &std::io::Error) -> InputError {
        InputError {
            not_found: e.kind() == std::io::ErrorKind::NotFound,
            message: format!("cannot read: {e}"),
        }
    }

    fn other(message: String) -> InputError {
        InputError {
            not_found: false,
            message,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

impl From<InputError> for String {
    fn from(e: InputError) -> String {
        e.message
    }
}

/// What a file that is not a regular file is, for messages: `a folder`, `a FIFO (named
/// pipe)`, `a character device`, ...
pub fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_file() {
        "a regular file"
    } else {
        "not a file memplan can read"
    }
}

/// The refusal of a non-regular file of metadata `meta`.
fn not_regular(meta: &Metadata) -> InputError {
    InputError::other(format!(
        "cannot read: not a regular file but {}; memplan reads only regular files",
        kind_of(meta)
    ))
}

/// `O_NONBLOCK` of the target's C library, where memplan knows its value (0 elsewhere:
/// there the metadata checked before opening is the guard).
#[cfg(unix)]
const O_NONBLOCK: i32 = {
    if cfg!(any(target_os = "linux", target_os = "android")) {
        if cfg!(any(
            target_arch = "mips",
            target_arch = "mips64",
            target_arch = "mips32r6",
            target_arch = "mips64r6"
        )) {
            0o200
        } else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
            0x4000
        } else {
            // Every other architecture Linux runs Rust on (x86, Arm, RISC-V, PowerPC,
            // s390x, LoongArch): the generic value.
            0o4000
        }
    } else if cfg!(any(
        target_vendor = "apple",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "dragonfly"
    )) {
        0x0004
    } else if cfg!(any(target_os = "solaris", target_os = "illumos")) {
        0x80
    } else {
        0
    }
};

/// Opens `path` for reading, whatever it names, without blocking on a FIFO (Unix), and
/// returns the file with its own metadata.
fn open_nonblocking(path: &Path) -> std::io::Result<(File, Metadata)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    Ok((file, meta))
}

/// Opens the input `path`: a regular file (links followed), refused before it is opened
/// when its metadata says otherwise (a folder, a FIFO, a device, a socket), and checked
/// again once opened (with `O_NONBLOCK` on Unix, so that nothing swapped in between can
/// block the open). Returns the file and its metadata (from the opened file).
///
/// # Errors
///
/// [`InputError`]: the path names nothing ([`InputError::is_not_found`]), cannot be
/// opened, or is not a regular file.
pub fn open_input(path: &Path) -> Result<(File, Metadata), InputError> {
    let before = std::fs::metadata(path).map_err(|e| InputError::io(&e))?;
    if !before.is_file() {
        return Err(not_regular(&before));
    }
    let (file, meta) = open_nonblocking(path).map_err(|e| InputError::io(&e))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    Ok((file, meta))
}

/// The bytes of the input `path` ([`open_input`]), at most [`MAX_FILE_BYTES`].
///
/// # Errors
///
/// As [`open_input`], or the file cannot be read or is larger than the limit.
pub fn read_input(path: &Path) -> Result<Vec<u8>, InputError> {
    let (file, meta) = open_input(path)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(InputError::other(format!(
            "cannot read: the file has {} bytes, more than memplan reads from one file ({MAX_FILE_BYTES})",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow while it is read: never past the limit.
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::io(&e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(InputError::other(format!(
            "cannot read: the file grew past {MAX_FILE_BYTES} bytes while it was read"
        )));
    }
    Ok(bytes)
}

/// The bytes of `path`, a regular file of at most [`MAX_FILE_BYTES`] ([`read_input`]).
///
/// # Errors
///
/// A message (without the path, which the caller names): the file cannot be opened or
/// read, is not a regular file (a folder, a device, a FIFO: refused before it is opened),
/// or is larger than the limit.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    read_input(path).map_err(String::from)
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
        assert!(
            e.contains("not a regular file but a character device"),
            "{e}"
        );
        let e = read_bounded(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
        assert!(e.contains("not a regular file but a folder"), "{e}");
        let e = read_input(Path::new("/no/such/file")).unwrap_err();
        assert!(e.is_not_found());
        assert!(e.to_string().starts_with("cannot read:"), "{e}");
    }

    #[test]
    fn a_regular_file_is_read_whole() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let want = std::fs::read(&path).unwrap();
        assert_eq!(read_bounded(&path).unwrap(), want);
    }

    /// The race the check before opening leaves: a FIFO opened by the function that opens
    /// whatever the path names returns at once, and the check after opening refuses it.
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn a_fifo_opened_past_the_first_check_does_not_block() {
        let dir = std::env::temp_dir().join(format!("memplan-read-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("plan.csv");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let _ =
                tx.send(open_nonblocking(&path).map(|(_, meta)| not_regular(&meta).to_string()));
        });
        let opened = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("opening a FIFO with O_NONBLOCK returns at once");
        assert!(opened.unwrap().contains("a FIFO (named pipe)"));
        let e = read_bounded(&fifo).unwrap_err();
        assert!(
            e.contains("not a regular file but a FIFO (named pipe)"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
