//! Writing an output: every file memplan writes (a model with `--write`, `memplan.lock`,
//! an SVG map, a trace, a linker fragment, an emitted invocation, a build script's files in
//! `OUT_DIR`) is written by [`write_file`] or [`write_with`], to a temporary file in the
//! same folder that is then renamed over the file. A full disk or a crash part-way leaves
//! the old file as it was; the error names the file and says so. [`same_file`] tells a
//! writer whether its output is one of its inputs, which it must refuse.

use std::fmt;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output was not written: the file, what failed, and whether an old file is there,
/// kept as it was. Its text names the file: `cannot write out.svg: No space left on device
/// (os error 28); the old out.svg is kept as it was`.
#[derive(Debug)]
pub struct WriteError {
    /// The file that was to be written.
    pub path: PathBuf,
    /// What failed.
    pub cause: std::io::Error,
    /// Whether the file existed before: it is kept as it was.
    pub kept: bool,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.path.display();
        if self.kept {
            write!(
                f,
                "cannot write {shown}: {}; the old {shown} is kept as it was",
                self.cause
            )
        } else {
            write!(
                f,
                "cannot write {shown}: {}; nothing was written",
                self.cause
            )
        }
    }
}

impl WriteError {
    /// The message without the path, for a caller that names the file itself: `cannot
    /// write it: ...; the old file is kept as it was` (or `; nothing was written`).
    pub fn without_path(&self) -> String {
        if self.kept {
            format!(
                "cannot write it: {}; the old file is kept as it was",
                self.cause
            )
        } else {
            format!("cannot write it: {}; nothing was written", self.cause)
        }
    }
}

impl std::error::Error for WriteError {}

impl From<WriteError> for String {
    fn from(e: WriteError) -> String {
        e.to_string()
    }
}

/// Whether `a` and `b` name one file: one path once links are followed, or (on Unix) one
/// device and inode, as two hard links of a file are. A path that names nothing is no
/// other path's file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::canonicalize(a), std::fs::canonicalize(b))
        && x == y
    {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    false
}

/// Writes `bytes` to `path` in place of what it holds ([`write_with`]).
///
/// # Errors
///
/// As [`write_with`].
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_with(path, |w| w.write_all(bytes))
}

/// The most symbolic links followed from an output's path to the file written.
const MAX_LINKS: usize = 40;

/// The file `path` names once symbolic links are followed (it need not exist): the file
/// that is replaced, so that a link to a file stays a link to the new one.
fn target_of(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links to follow"
    )))
}

/// A file name in `dir` that no other write of this process uses: `.NAME.memplan-PID-N.tmp`.
fn temporary_name(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut file = std::ffi::OsString::from(".");
    file.push(name);
    file.push(format!(".memplan-{}-{n}.tmp", std::process::id()));
    dir.join(file)
}

/// Writes `path` with what `fill` writes, in place of what it holds: to a temporary file
/// in the same folder, flushed to the disk, then renamed over `path` (a link is followed,
/// and the file it names replaced; the old file's permissions are kept). Until the rename
/// the old file is untouched, so a failed write (a full disk, an error of `fill`) leaves it
/// as it was, and the temporary file is removed. A path that names a device or a pipe
/// (`/dev/null`, `/dev/stdout`), which holds no file to keep, is written directly.
///
/// # Errors
///
/// [`WriteError`]: the file could not be written (it says whether an old one is kept).
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let fail = |cause: std::io::Error, kept: bool| WriteError {
        path: path.to_path_buf(),
        cause,
        kept,
    };
    let target = target_of(path).map_err(|e| fail(e, false))?;
    let old = std::fs::metadata(&target).ok();
    let kept = old.is_some();
    if let Some(meta) = &old {
        if meta.is_dir() {
            return Err(fail(std::io::Error::other("it is a folder"), false));
        }
        if meta.is_file() && meta.permissions().readonly() {
            return Err(fail(
                std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    "the file is read-only",
                ),
                true,
            ));
        }
        if !meta.is_file() {
            // A device or a pipe: nothing to keep, and nothing to rename over.
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| fail(e, false))?;
            return fill(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| fail(e, false));
        }
    }
    let name = target
        .file_name()
        .ok_or_else(|| fail(std::io::Error::other("the path names no file"), kept))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (temp, file) = create_temporary(&dir, name).map_err(|e| fail(e, kept))?;
    let written =
        fill_and_sync(file, fill, old.as_ref()).and_then(|()| std::fs::rename(&temp, &target));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(fail(e, kept));
    }
    sync_folder(&dir);
    Ok(())
}

/// A new temporary file in `dir` for `name`.
fn create_temporary(dir: &Path, name: &std::ffi::OsStr) -> std::io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..16 {
        let temp = temporary_name(dir, name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(f) => return Ok((temp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary file name is free")))
}

/// Writes the temporary `file` with `fill`, gives it the old file's permissions and
/// flushes it to the disk.
fn fill_and_sync(
    file: File,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    old: Option<&std::fs::Metadata>,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(file);
    fill(&mut out)?;
    let file = out
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    if let Some(meta) = old {
        file.set_permissions(meta.permissions())?;
    }
    file.sync_all()
}

/// Flushes the folder's entries (the rename) to the disk, where the platform can; a
/// failure there does not undo the write.
fn sync_folder(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("memplan-write-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temporary_file() {
        let dir = folder("replace");
        let path = dir.join("out.txt");
        write_file(&path, b"one").unwrap();
        write_file(&path, b"two, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two, longer");
        assert_eq!(names(&dir), ["out.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_byte_for_byte_and_says_so() {
        let dir = folder("failed");
        let path = dir.join("memplan.lock");
        std::fs::write(&path, b"the old file\n").unwrap();
        let e = write_with(&path, |w| {
            w.write_all(&[b'x'; 100_000])?;
            Err(std::io::Error::other("the disk is full"))
        })
        .unwrap_err();
        assert_eq!(std::fs::read(&path).unwrap(), b"the old file\n");
        assert_eq!(
            names(&dir),
            ["memplan.lock"],
            "the temporary file is removed"
        );
        let shown = path.display();
        assert_eq!(
            e.to_string(),
            format!("cannot write {shown}: the disk is full; the old {shown} is kept as it was")
        );
        // No old file: nothing is left.
        let new = dir.join("new.svg");
        let e = write_with(&new, |_| Err(std::io::Error::other("full"))).unwrap_err();
        assert!(e.to_string().ends_with("; nothing was written"), "{e}");
        assert!(!new.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_path_under_a_file_is_an_error_naming_it() {
        let dir = folder("under");
        let file = dir.join("plain");
        std::fs::write(&file, b"x").unwrap();
        let e = write_file(&file.join("out.svg"), b"y").unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("cannot write {}", file.join("out.svg").display())),
            "{e}"
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"x");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_and_kept_and_permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = folder("link");
        let file = dir.join("real.x");
        std::fs::write(&file, b"old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.join("link.x");
        std::os::unix::fs::symlink("real.x", &link).unwrap();
        write_file(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert!(same_file(&link, &file));
        let hard = dir.join("hard.x");
        std::fs::hard_link(&file, &hard).unwrap();
        assert!(same_file(&hard, &file));
        assert!(!same_file(&hard, &dir.join("missing")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_directly() {
        write_file(Path::new("/dev/null"), b"nothing kept").unwrap();
    }
}
