//! A plan file of any format as one description ([`PlanFile`]), and as a planning
//! [`Problem`].

use super::error::FileError;
use super::model::Primitive;
use crate::problem::{Buffer, DEFAULT_REGION_ALIGN, Lifetime, Placement, Problem, Region};

/// The kinds of plan file `parse_any` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// ExecuTorch's exported plan: `name,mem_id,offset,size,first,last[,dtype,shape]`.
    Executorch,
    /// A MiniMalloc benchmark input: `id,lower,upper,size` (half-open lifetimes).
    Minimalloc,
    /// A plan with its offsets: `name,offset,size,first,last` (see the `placed` module).
    Placed,
    /// memplan's JSON plan file (module `json`, feature `json`).
    Json,
    /// A TensorFlow Lite model: its planned tensors as TensorFlow Lite Micro plans them
    /// ([`super::tflite`]); its offsets, the `OfflineMemoryAllocation` plan if it has one.
    Tflite,
    /// An ExecuTorch program: the planned tensors of its first execution plan
    /// ([`super::pte`]); its offsets, ExecuTorch's own.
    Pte,
}

impl Format {
    /// The format's name in messages: `ExecuTorch CSV`, `MiniMalloc CSV`, `placed CSV`,
    /// `JSON`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Executorch => "ExecuTorch CSV",
            Format::Minimalloc => "MiniMalloc CSV",
            Format::Placed => "placed CSV",
            Format::Json => "JSON",
            Format::Tflite => ".tflite model",
            Format::Pte => ".pte program",
        }
    }

    /// The alignment, in bytes, of the region a file without regions is planned in: 16
    /// for ExecuTorch (its planner's), 1 for MiniMalloc (its benchmark has none), 16 for
    /// the others ([`DEFAULT_REGION_ALIGN`]).
    pub fn default_align(self) -> u64 {
        match self {
            Format::Minimalloc => 1,
            Format::Executorch | Format::Placed | Format::Json => DEFAULT_REGION_ALIGN,
            // TFLite Micro's `MicroArenaBufferAlignment()`, ExecuTorch's planning's default.
            Format::Tflite | Format::Pte => 16,
        }
    }

    /// The bytes the format's runtime reserves for a buffer of `size` bytes: TensorFlow
    /// Lite Micro rounds every planned tensor up to 16 bytes before it plans
    /// (`micro_allocator.cc`, `CreatePlan`: `AlignSizeUp(bytes,
    /// MicroArenaBufferAlignment())`, 16 in `micro_arena_constants.h`), so a `.tflite`
    /// model's buffers are that size in TensorFlow Lite Micro's arena; every other format's
    /// `size`. Saturates at `u64::MAX` (the planner refuses such a size).
    pub fn runtime_size(self, size: u64) -> u64 {
        match self {
            Format::Tflite => size
                .checked_next_multiple_of(TFLM_SIZE_ROUNDING)
                .unwrap_or(u64::MAX),
            _ => size,
        }
    }
}

/// The multiple TensorFlow Lite Micro rounds each planned tensor's bytes up to
/// ([`Format::runtime_size`]).
pub const TFLM_SIZE_ROUNDING: u64 = 16;

/// A region a plan file declares (only JSON files declare regions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRegion {
    /// Its name.
    pub name: String,
    /// Bytes available; `None`: unbounded.
    pub capacity: Option<u64>,
    /// The default alignment of its buffers, in bytes; `None`: 16.
    pub align: Option<u64>,
}

/// One buffer of a plan file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileBuffer {
    /// Its name, unique in the file.
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// The steps at which it is live (inclusive).
    pub lifetime: Lifetime,
    /// The region it names (an index into [`PlanFile::regions`]), if any.
    pub region: Option<usize>,
    /// ExecuTorch's memory id, for ExecuTorch files.
    pub mem_id: Option<u32>,
    /// Its alignment in bytes, if the file gives one.
    pub align: Option<u64>,
    /// The offset the file gives, in bytes: ExecuTorch's and placed plans' offsets, and
    /// JSON's `offset`.
    pub offset: Option<u64>,
    /// The 1-based line it is on (a CSV row) or starts on (a JSON object); 0 for a model's
    /// tensor (see `origin`).
    pub line: u64,
    /// The 1-based column it starts at (1 for a CSV row).
    pub column: u64,
    /// Its element type, where the file names one that is a Rust primitive (a row's
    /// `dtype`, a tensor's type); `None`: bytes.
    pub element: Option<Primitive>,
    /// The file's own name of its element type (`float32`, `INT8`), where it gives one.
    pub dtype: Option<String>,
    /// Its dims, outermost first, where the file gives them.
    pub shape: Option<Vec<u64>>,
    /// Where it is in the file, for messages, when that is not a line: a model's
    /// `tensor 12 (`conv1`)`.
    pub origin: Option<String>,
    /// The buffer (an index into [`PlanFile::buffers`]) whose bytes it takes in place
    /// (JSON's `in_place_of`).
    pub in_place_of: Option<usize>,
    /// What it holds for the runtime: a tensor, state kept across invocations, or a
    /// kernel's scratch.
    pub role: Role,
}

/// What a [`FileBuffer`] of a model holds for its runtime.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    /// A tensor the runtime plans (every buffer of a plan file).
    #[default]
    Tensor,
    /// A tensor that keeps its bytes from one invocation to the next (a TFLite variable
    /// tensor, LSTM or SVDF state; an ExecuTorch program's mutable buffer), live at every
    /// step. TensorFlow Lite Micro allocates such a tensor in its persistent section,
    /// outside the planned one, unless an offline plan gives it an offset; ExecuTorch plans
    /// it like any other.
    Persistent,
    /// A scratch buffer a kernel requests when it is prepared
    /// ([`super::tflite::ScratchRequest`]), live at its operator's steps: the runtime
    /// places it itself, around the tensors' offsets. It has no offset in any file.
    Scratch,
}

impl FileBuffer {
    /// A buffer of `size` bytes live over `lifetime`, on `line`, with nothing else known.
    pub fn new(name: String, size: u64, lifetime: Lifetime, line: u64) -> FileBuffer {
        FileBuffer {
            name,
            size,
            lifetime,
            region: None,
            mem_id: None,
            align: None,
            offset: None,
            line,
            column: 1,
            element: None,
            dtype: None,
            shape: None,
            origin: None,
            in_place_of: None,
            role: Role::Tensor,
        }
    }

    /// Where it is, for messages: `FILE:LINE` or `FILE: tensor 12 (`conv1`)`.
    pub fn place(&self, file: &str) -> String {
        match &self.origin {
            Some(o) => format!("{file}: {o}"),
            None => format!("{file}:{}", self.line),
        }
    }
}

/// A plan file of any [`Format`], read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanFile {
    /// The file, as given (for messages).
    pub file: String,
    /// Its format.
    pub format: Format,
    /// The plan's name, when the file gives one (JSON's `name`).
    pub name: Option<String>,
    /// The regions it declares (empty for CSV files).
    pub regions: Vec<FileRegion>,
    /// Its buffers, in file order.
    pub buffers: Vec<FileBuffer>,
    /// The sizes of the buffers the file's own plan asks the runtime for, by memory id: a
    /// `.pte` program's `non_const_buffer_sizes` (index 0 reserved, 0); empty for other
    /// files.
    pub buffer_sizes: Vec<u64>,
}

/// The capacity of a region without one (a CSV file's, a JSON region without `capacity`),
/// in bytes: `u64::MAX / 4`, room for any plan with headroom for offset arithmetic. Tools
/// print it as "unbounded" and size such a region to its plan when they write one out.
pub const UNBOUNDED: u64 = u64::MAX / 4;

/// How [`PlanFile::problem`] builds the regions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProblemOptions {
    /// The capacity, in bytes, of the one region of a file that declares none (default
    /// [`UNBOUNDED`]).
    pub capacity: Option<u64>,
    /// The alignment, in bytes, of the one region of a file that declares none (default
    /// [`Format::default_align`]).
    pub align: Option<u64>,
    /// Regions that replace the file's (or its default region), in memory-id order. A
    /// buffer that names a region goes to the one of that name; the others go to the only
    /// region, or, with several, are spilled to the first that can take them.
    pub regions: Vec<Region>,
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (u64, u64) {
    Positions::new(text).at(offset)
}

/// Lines and columns of byte offsets of one text, for many offsets: each query walks on
/// from the previous one when it is further on (the readers ask in file order), so a file
/// costs one pass over its text however many positions are asked, where computing each
/// from the start is quadratic. A query behind the previous one starts again from its line.
pub(super) struct Positions<'a> {
    text: &'a str,
    /// The byte offset of the last position found, its line and column.
    offset: usize,
    line: u64,
    column: u64,
}

impl<'a> Positions<'a> {
    pub(super) fn new(text: &'a str) -> Positions<'a> {
        Positions {
            text,
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    /// The 1-based line and column (in characters) of byte `offset` (clamped to the text,
    /// and to the start of the character it falls in).
    pub(super) fn at(&mut self, offset: usize) -> (u64, u64) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.offset {
            // Back to the start of the line `offset` is on.
            let start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let line = self.text[..start].matches('\n').count() as u64 + 1;
            (self.offset, self.line, self.column) = (start, line, 1);
        }
        for c in self.text[self.offset..offset].chars() {
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
        self.offset = offset;
        (self.line, self.column)
    }
}

impl PlanFile {
    /// The planning problem of the file: its buffers (sizes, lifetimes, alignments,
    /// in-place sources; JSON offsets become pins, except an in-place buffer's, which is
    /// its source's; CSV offsets are ignored, as `memory_plan!` ignores them) in
    /// the regions `options` gives, else those the file declares, else one region `arena`
    /// of capacity `options.capacity` (default [`UNBOUNDED`]) and alignment
    /// `options.align` (default [`Format::default_align`]).
    ///
    /// # Errors
    ///
    /// A [`FileError`]: `options.capacity` or `options.align` given for a file that
    /// declares its regions (line 1); a buffer naming a region that `options.regions`
    /// does not have (the buffer's line).
    pub fn problem(&self, options: &ProblemOptions) -> Result<Problem, FileError> {
        let declared = !self.regions.is_empty();
        if declared
            && options.regions.is_empty()
            && (options.capacity.is_some() || options.align.is_some())
        {
            return Err(FileError::at(
                &self.file,
                1,
                1,
                format!(
                    "the file declares its regions ({}): a capacity and an alignment apply only to a file without regions",
                    self.regions.len()
                ),
            ));
        }
        let regions: Vec<Region> = if !options.regions.is_empty() {
            options.regions.clone()
        } else if declared {
            self.regions
                .iter()
                .map(|r| Region {
                    name: r.name.clone(),
                    capacity: r.capacity.unwrap_or(UNBOUNDED),
                    align: r.align.unwrap_or(DEFAULT_REGION_ALIGN),
                })
                .collect()
        } else {
            vec![Region {
                name: "arena".to_string(),
                capacity: options.capacity.unwrap_or(UNBOUNDED),
                align: options.align.unwrap_or(self.format.default_align()),
            }]
        };
        let mut buffers = Vec::with_capacity(self.buffers.len());
        for b in &self.buffers {
            let placement = match b.region {
                Some(r) if !options.regions.is_empty() => {
                    let name = &self.regions[r].name;
                    match regions.iter().position(|g| &g.name == name) {
                        Some(i) => Placement::In(i),
                        None => {
                            return Err(FileError::at(
                                &self.file,
                                b.line,
                                b.column,
                                format!(
                                    "`{}` names region `{name}`, which is not among the regions given",
                                    b.name
                                ),
                            ));
                        }
                    }
                }
                Some(r) => Placement::In(r),
                None if regions.len() == 1 => Placement::In(0),
                None => Placement::Anywhere,
            };
            buffers.push(Buffer {
                name: b.name.clone(),
                size: b.size,
                align: b.align,
                min_align: 1,
                lifetime: b.lifetime,
                placement,
                // An in-place buffer's offset is its source's (the reader checked that
                // they agree): the source's pin, never one of its own.
                pin: if self.format == Format::Json && b.in_place_of.is_none() {
                    b.offset
                } else {
                    None
                },
                in_place_of: b.in_place_of,
            });
        }
        Ok(Problem { regions, buffers })
    }
}
