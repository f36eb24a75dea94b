//! Plan files as planning problems: ExecuTorch's plan CSV (inclusive lifetimes, 16-byte
//! alignment) and MiniMalloc's benchmark CSV (half-open lifetimes, no alignment), told apart
//! by their header, and idealloc's binary `.plc` ([`crate::idealloc`]), by its extension.

use std::path::{Path, PathBuf};

use memplan_planner::files::{FileError, parse_executorch, parse_minimalloc};
use memplan_planner::{Buffer, Problem, Region};

/// The kind of plan file, from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `name,mem_id,offset,size,first,last,...`: ExecuTorch's exported plan.
    Executorch,
    /// `id,lower,upper,size`: a MiniMalloc benchmark input (idealloc's suites too).
    Minimalloc,
    /// idealloc's binary jobs (`.plc`).
    Idealloc,
}

/// Which format a CSV header is, if any.
pub fn detect(header_line: &str) -> Option<Format> {
    let cols: Vec<&str> = header_line.trim().split(',').map(str::trim).collect();
    let has = |c: &str| cols.contains(&c);
    if ["name", "mem_id", "offset", "size", "first", "last"]
        .iter()
        .all(|c| has(c))
    {
        Some(Format::Executorch)
    } else if ["id", "lower", "upper", "size"].iter().all(|c| has(c)) {
        Some(Format::Minimalloc)
    } else {
        None
    }
}

/// A plan file read as a one-region problem.
#[derive(Clone, Debug)]
pub struct Input {
    /// The file, relative to the folder it was found under (for reports).
    pub label: String,
    /// The file name without `.csv` (for `--write-plans`).
    pub stem: String,
    /// Its format.
    pub format: Format,
    /// One region with room to spare (so every strategy's plan is kept, even one that would
    /// not fit a real device), holding every buffer of the file.
    pub problem: Problem,
    /// ExecuTorch's own arena bytes, `max(offset + size)`, for ExecuTorch files.
    pub executorch_bytes: Option<u64>,
}

/// The capacity given to benchmark regions: large enough for any plan of these files.
pub const ROOM: u64 = u64::MAX / 4;

/// Reads one plan file, or `Ok(None)` when its header is neither format.
///
/// # Errors
///
/// The file cannot be read, or a row is malformed (file and line named).
pub fn read(path: &Path, label: String) -> Result<Option<Input>, FileError> {
    let file = path.display().to_string();
    let cannot = |e: std::io::Error| FileError::at_line(&file, None, format!("cannot read: {e}"));
    let stem = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().to_string());
    if let Some(stem) = stem.strip_suffix(".plc") {
        let bytes = std::fs::read(path).map_err(cannot)?;
        let buffers = crate::idealloc::parse_plc(&bytes, &file)
            .map_err(|e| FileError::at_line(&file, None, e))?;
        return Ok(Some(Input {
            label,
            stem: stem.to_string(),
            format: Format::Idealloc,
            problem: Problem {
                regions: vec![Region {
                    name: "arena".into(),
                    capacity: ROOM,
                    align: 1,
                }],
                buffers,
            },
            executorch_bytes: None,
        }));
    }
    let text = std::fs::read_to_string(path).map_err(cannot)?;
    let Some(format) = detect(text.lines().next().unwrap_or("")) else {
        return Ok(None);
    };
    let stem = stem.strip_suffix(".csv").unwrap_or(&stem).to_string();
    let (buffers, align, executorch_bytes) = match format {
        Format::Executorch => {
            let rows = parse_executorch(&text, &file)?;
            let bytes = rows
                .iter()
                .map(|(_, r)| r.offset.saturating_add(r.size))
                .max()
                .unwrap_or(0);
            let buffers = rows
                .into_iter()
                .map(|(_, r)| Buffer::new(r.name, r.size, 0, r.first, r.last))
                .collect();
            (buffers, 16, Some(bytes))
        }
        Format::Minimalloc => {
            let rows = parse_minimalloc(&text, &file)?;
            let buffers = rows
                .into_iter()
                .map(|(_, r)| Buffer::new(r.id, r.size, 0, r.lower, r.upper - 1))
                .collect();
            (buffers, 1, None)
        }
        Format::Idealloc => unreachable!("told apart by the extension above"),
    };
    let problem = Problem {
        regions: vec![Region {
            name: "arena".into(),
            capacity: ROOM,
            align,
        }],
        buffers,
    };
    Ok(Some(Input {
        label,
        stem,
        format,
        problem,
        executorch_bytes,
    }))
}

/// Every `*.csv` and `*.plc` file under `dir` (recursively), sorted by path; `dir` itself
/// may be a file.
///
/// # Errors
///
/// A folder cannot be listed.
pub fn csv_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return Ok(out);
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "csv" || e == "plc") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_told_apart() {
        assert_eq!(
            detect("name,mem_id,offset,size,first,last,dtype,shape"),
            Some(Format::Executorch)
        );
        assert_eq!(detect("id,lower,upper,size\r"), Some(Format::Minimalloc));
        assert_eq!(detect("name,offset,size,first,last"), None);
        assert_eq!(detect(""), None);
    }
}
