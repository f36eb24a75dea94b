//! A plan file of any format, told apart by its content.

use std::path::Path;

use super::error::FileError;
use super::model::Primitive;
use super::placed::{self, parse_placed};
use super::plan_file::{FileBuffer, Format, PlanFile, line_column};
use super::rows::{minimalloc, parse_executorch};

/// Which format `text` is, by its content: a JSON object (`{` first, after blanks and a
/// byte-order mark), or a CSV header naming the columns of one of the CSV formats.
pub fn detect(text: &str) -> Option<Format> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('{') {
        return Some(Format::Json);
    }
    let header = text.lines().next().unwrap_or("");
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let has = |names: &[&str]| names.iter().all(|c| cols.contains(c));
    if has(&["name", "mem_id", "offset", "size", "first", "last"]) {
        Some(Format::Executorch)
    } else if has(&["id", "lower", "upper", "size"]) {
        Some(Format::Minimalloc)
    } else if has(&placed::HEADER) {
        Some(Format::Placed)
    } else {
        None
    }
}

/// Parses a plan file of any [`Format`] (told apart by [`detect`]). `file` names it in
/// errors.
///
/// # Errors
///
/// A [`FileError`] with the file and line (and the column, for JSON): an empty file, a
/// first line that is none of the formats, or the format's own errors (see
/// [`parse_executorch`], [`parse_minimalloc`](super::parse_minimalloc), [`parse_placed`], and `json::parse_json`;
/// a MiniMalloc id given twice is a faulty row too); a JSON file when the crate is built
/// without its `json` feature. The CSV formats report every faulty row, JSON every faulty
/// entry (the first [`LISTED`](crate::LISTED) in the error, see [`FileError::more`]).
pub fn parse_any(text: &str, file: &str) -> Result<PlanFile, FileError> {
    let start = FileError::at(file, 1, 1, "");
    if text.trim().is_empty() {
        return Err(FileError {
            message: "the file is empty: expected a plan file (ExecuTorch, MiniMalloc or placed CSV with a header line, or a JSON object)".to_string(),
            ..start
        });
    }
    let Some(format) = detect(text) else {
        let first = text.lines().next().unwrap_or("");
        let shown: String = first.chars().take(80).collect();
        // Named as a model: say why it is not read as one.
        let lower = file.to_ascii_lowercase();
        let model = if lower.ends_with(".tflite") || lower.ends_with(".pte") {
            let id = text.as_bytes().get(4..8).map_or_else(
                || format!("only {} bytes", text.len()),
                |id| format!("`{}` at bytes 4 to 7", id.escape_ascii()),
            );
            format!(
                "; nor a model: a .tflite or .pte file starts with its file identifier (`TFL3`, `ET12`) at bytes 4 to 7, and this one has {id}"
            )
        } else {
            String::new()
        };
        return Err(FileError {
            message: format!(
                "not a plan file: the first line, `{shown}`, is neither a CSV header of ExecuTorch (name,mem_id,offset,size,first,last), MiniMalloc (id,lower,upper,size) or a placed plan (name,offset,size,first,last), nor the start of a JSON object{model}"
            ),
            ..start
        });
    };
    let row = FileBuffer::new;
    let buffers = match format {
        Format::Json => return parse_json(text, file),
        // `detect` tells text formats only: a model is bytes ([`read_any`] reads it).
        Format::Tflite | Format::Pte => {
            return Err(FileError::at_line(
                file,
                Some(1),
                "a model is not text: read it with read_any or read_model",
            ));
        }
        Format::Executorch => parse_executorch(text, file)?
            .into_iter()
            .map(|(line, r)| FileBuffer {
                mem_id: Some(r.mem_id),
                offset: Some(r.offset),
                element: Primitive::of_torch(&r.dtype).filter(|p| r.size.is_multiple_of(p.size())),
                dtype: (!r.dtype.is_empty()).then(|| r.dtype.clone()),
                shape: shape_of(&r.shape),
                ..row(r.name.clone(), r.size, r.lifetime(), line)
            })
            .collect(),
        Format::Placed => parse_placed(text, file)?
            .into_iter()
            .map(|(line, r)| FileBuffer {
                offset: Some(r.offset),
                ..row(r.name.clone(), r.size, r.lifetime(), line)
            })
            .collect(),
        Format::Minimalloc => {
            // As `parse_minimalloc`, and an id given twice is a fault.
            minimalloc(text, file, true)?
                .into_iter()
                .map(|(line, r)| row(r.id.clone(), r.size, r.lifetime(), line))
                .collect()
        }
    };
    Ok(PlanFile {
        file: file.to_string(),
        format,
        name: None,
        regions: Vec::new(),
        buffers,
        buffer_sizes: Vec::new(),
    })
}

/// An ExecuTorch row's `shape` (dims joined by `x`; empty for a 0-d tensor): `None` when
/// it is not that.
fn shape_of(text: &str) -> Option<Vec<u64>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split('x').map(|d| d.trim().parse().ok()).collect()
}

#[cfg(feature = "json")]
fn parse_json(text: &str, file: &str) -> Result<PlanFile, FileError> {
    super::json::parse_json(text, file)
}

#[cfg(not(feature = "json"))]
fn parse_json(_: &str, file: &str) -> Result<PlanFile, FileError> {
    Err(FileError::at(
        file,
        1,
        1,
        "a JSON plan file: this build of memplan-planner reads JSON only with its `json` feature",
    ))
}

/// Reads the plan file at `path` ([`parse_any`]), named in errors as `path` displays; a
/// model (`.tflite`, `.pte`, told apart by content: [`detect_model`](super::detect_model))
/// is read by its reader ([`read_model`]) and given as its planned tensors
/// ([`ModelFile::plan_file`](super::ModelFile::plan_file)).
///
/// # Errors
///
/// As [`parse_any`] or the model's reader, and a [`FileError`] when the file cannot be
/// read ([`read_bounded`](super::read_bounded)).
pub fn read_any(path: &Path) -> Result<PlanFile, FileError> {
    let file = path.display().to_string();
    let bytes = super::read::read_bounded(path).map_err(|e| FileError::at_line(&file, None, e))?;
    parse_bytes(&bytes, &file)
}

/// [`read_any`] of a file's `bytes`: a model by its reader, text by [`parse_any`]. `file`
/// names it in errors.
///
/// # Errors
///
/// As [`read_any`].
pub fn parse_bytes(bytes: &[u8], file: &str) -> Result<PlanFile, FileError> {
    if super::model::detect_model(bytes).is_some() {
        return Ok(model_of(bytes, file)?.plan_file());
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let valid = e.valid_up_to();
        let text = String::from_utf8_lossy(&bytes[..valid]).into_owned();
        let (line, column) = line_column(&text, valid);
        FileError::at(
            file,
            line,
            column,
            "the file is not UTF-8 text here (nor a .tflite or .pte model)",
        )
    })?;
    parse_any(text, file)
}

/// Reads the model at `path` (a `.tflite` model or a `.pte` program, told apart by
/// content; an ExecuTorch program's first execution plan) with its bytes, for tools that
/// write a plan back into it or generate its schedule.
///
/// # Errors
///
/// The file cannot be read, is not a model (the message says what it is instead), or its
/// reader's errors.
pub fn read_model(path: &Path) -> Result<(Vec<u8>, super::ModelFile), FileError> {
    let file = path.display().to_string();
    let bytes = super::read::read_bounded(path).map_err(|e| FileError::at_line(&file, None, e))?;
    let model = model_of(&bytes, &file)?;
    Ok((bytes, model))
}

/// `bytes` (of `file`) read by its model reader.
fn model_of(bytes: &[u8], file: &str) -> Result<super::ModelFile, FileError> {
    match super::model::detect_model(bytes) {
        Some(super::ModelFormat::Tflite) => super::tflite::read(bytes, file),
        Some(super::ModelFormat::Pte) => super::pte::read(bytes, file, None),
        None => Err(FileError::at_line(
            file,
            None,
            "not a model: a .tflite file has the identifier `TFL3` at bytes 4..8, a .pte program `ET12`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::plan_file::{ProblemOptions, UNBOUNDED};
    use crate::problem::{Buffer, Lifetime, Placement, Region};

    #[test]
    fn formats_are_told_apart_by_content() {
        assert_eq!(
            detect("name,mem_id,offset,size,first,last,dtype,shape\n"),
            Some(Format::Executorch)
        );
        assert_eq!(
            detect("id,lower,upper,size\r\n0,0,1,8"),
            Some(Format::Minimalloc)
        );
        assert_eq!(
            detect("name,offset,size,first,last\n"),
            Some(Format::Placed)
        );
        assert_eq!(detect("\u{feff}  \n {\"buffers\": []}"), Some(Format::Json));
        assert_eq!(detect("name,size\n"), None);
        assert_eq!(detect(""), None);
    }

    #[test]
    fn a_model_file_is_read_as_its_planned_tensors() {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/data/tflite/hello_world_int8.tflite");
        let file = read_any(&path).unwrap();
        let (_, model) = read_model(&path).unwrap();
        assert_eq!(file.format, Format::Tflite);
        assert_eq!(file, model.plan_file());
        // hello_world_int8 plans four tensors (an input, two activations, the output: the
        // count TensorFlow Lite Micro's own planner reports, see tests/tflite_models.rs).
        assert_eq!(file.buffers.len(), 4);
        let e =
            read_model(&std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
                .unwrap_err();
        assert!(e.message.starts_with("not a model"), "{e}");
    }

    #[test]
    fn empty_and_unknown_files_are_errors_on_line_1() {
        let e = parse_any("", "e.csv").unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(1)));
        assert!(e.message.starts_with("the file is empty"));
        let e = parse_any("a,b\n1,2\n", "u.csv").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("u.csv:1:1: not a plan file: the first line, `a,b`")
        );
        assert!(!e.to_string().contains("nor a model"));
        let e = parse_any("hello world\n", "h.tflite").unwrap_err();
        assert!(
            e.to_string().ends_with(
                "nor the start of a JSON object; nor a model: a .tflite or .pte file starts with its file identifier (`TFL3`, `ET12`) at bytes 4 to 7, and this one has `o wo` at bytes 4 to 7"
            ),
            "{e}"
        );
        let e = parse_any("hi", "h.PTE").unwrap_err();
        assert!(
            e.to_string().ends_with("and this one has only 2 bytes"),
            "{e}"
        );
    }

    #[test]
    fn csv_files_are_one_region_problems_as_the_benchmark_builds_them() {
        let et = parse_any(
            "name,mem_id,offset,size,first,last\na,1,0,32,0,1\nb,1,32,0,1,2\n",
            "e.csv",
        )
        .unwrap();
        let p = et.problem(&ProblemOptions::default()).unwrap();
        assert_eq!(
            p.regions,
            vec![Region {
                name: "arena".into(),
                capacity: UNBOUNDED,
                align: 16
            }]
        );
        assert_eq!(p.buffers[1], Buffer::new("b", 0, 0, 1, 2));
        assert_eq!(et.buffers[1].offset, Some(32));
        let mm = parse_any("id,lower,upper,size\n0,3,5,8\n", "m.csv").unwrap();
        let p = mm
            .problem(&ProblemOptions {
                capacity: Some(64),
                ..ProblemOptions::default()
            })
            .unwrap();
        assert_eq!((p.regions[0].capacity, p.regions[0].align), (64, 1));
        assert_eq!(p.buffers[0].lifetime, Lifetime { first: 3, last: 4 });
        let e = parse_any("id,lower,upper,size\n0,3,5,8\n0,1,2,8\n", "m.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.csv:3: column 1 (`id`): `0` is named twice (first on line 2)"
        );
    }

    #[test]
    fn given_regions_replace_the_default_and_spill_unnamed_buffers() {
        let f = parse_any("name,offset,size,first,last\na,0,8,0,0\n", "p.csv").unwrap();
        let two = ProblemOptions {
            regions: vec![
                Region {
                    name: "tcm".into(),
                    capacity: 4,
                    align: 4,
                },
                Region {
                    name: "sram".into(),
                    capacity: 64,
                    align: 16,
                },
            ],
            ..ProblemOptions::default()
        };
        let p = f.problem(&two).unwrap();
        assert_eq!(p.regions.len(), 2);
        assert_eq!(p.buffers[0].placement, Placement::Anywhere);
        assert_eq!(p.buffers[0].pin, None);
    }
}
