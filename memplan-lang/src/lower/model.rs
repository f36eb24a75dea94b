//! The lowered invocation: one record per region and per buffer, holding its declaration
//! (attributes, names, spans, origin, element type) beside the planner's view of it.

use std::path::PathBuf;

use memplan_planner::{Buffer, Problem, Region, Strategy};
use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Ident, LitStr, Type, Visibility};

use crate::diag::SpanRange;

/// Everything the planner and the emitter need, checked.
pub struct Model {
    /// The module's outer attributes (doc comments).
    pub attrs: Vec<Attribute>,
    /// Inner attributes of the module body (`//!` docs), emitted inside the module.
    pub inner_attrs: Vec<Attribute>,
    /// The module's visibility.
    pub vis: Visibility,
    /// The module's name.
    pub name: Ident,
    /// Path of the runtime crate (`::memplan_runtime` unless `crate = ...`).
    pub krate: TokenStream,
    /// The package the invocation is in, for link-section names ([`crate::linker`]).
    pub package: String,
    /// The plan's module path in its crate, its own module last (as far as
    /// [`crate::Env::modules`] knows it), for link-section and symbol names.
    pub path: Vec<String>,
    /// Plan [`CANARY`](Model::CANARY) guard bytes after every buffer (the runtime's
    /// `debug-canary`).
    pub canary: bool,
    /// How regions are packed.
    pub strategy: Strategy,
    /// The regions, in declaration order: memory id `i` is `regions[i]`.
    pub regions: Vec<RegionRecord>,
    /// The manager's bump pools.
    pub pools: Pools,
    /// The buffers, declared or from plan files, in declaration order.
    pub buffers: Vec<BufferRecord>,
    /// Absolute paths of the plan files read, so that editing one rebuilds the crate.
    pub files: Vec<PathBuf>,
    /// The plan files and models read, as written, with their sizes and hashes: the
    /// plan's description names them (`memplan inspect` shows what a firmware was planned
    /// from).
    pub sources: Vec<SourceFile>,
    /// The `model` statement's model, whose schedule the expansion runs ([`crate::emit`]).
    pub schedule: Option<ModelSchedule>,
    /// That schedule, lowered (`None` when it has errors, which are reported).
    pub schedule_ir: Option<super::schedule::Schedule>,
    /// The crate's memory.x, when an arena is placed in a memory (`None` otherwise).
    pub memory_x: Option<crate::memory_x::MemoryX>,
    /// `lock = required;`: where `required` is written. A stale or missing entry in the
    /// crate's lock file is then an error ([`crate::lock`]).
    pub lock_required: Option<Span>,
    /// What the lock file said about this plan, when the plan's `REPORT` should say it (a
    /// stale entry, planned again).
    pub lock_note: Option<String>,
}

/// What a `model` statement gives the schedule: the model, its file, and where its
/// planned tensors are among the buffers.
pub struct ModelSchedule {
    /// The file's bytes, as read: the schedule's constants are copied from them (the file
    /// itself is tracked as every file read is, through [`Model::files`]).
    pub bytes: Vec<u8>,
    /// The file as the statement writes it, for messages.
    pub shown: String,
    /// Where the statement's path is, for errors about the schedule.
    pub span: Span,
    /// The model as its reader gives it.
    pub model: memplan_planner::files::ModelFile,
    /// The index in [`Model::buffers`] of the buffer of the model's first planned buffer
    /// (its buffers follow in the order of [`memplan_planner::files::ModelFile::plan_file`]).
    pub first_buffer: usize,
}

/// A plan file or model an invocation read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Its path as the invocation writes it.
    pub name: String,
    /// Its length in bytes.
    pub bytes: u64,
    /// Its SHA-256, in lower-case hex (what `sha256sum` prints).
    pub sha256: String,
}

impl SourceFile {
    /// The record of `contents`, named `name`.
    pub(crate) fn of(name: &str, contents: &[u8]) -> SourceFile {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(contents);
        SourceFile {
            name: name.to_string(),
            bytes: contents.len() as u64,
            sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }
}

/// One region.
pub struct RegionRecord {
    /// Doc comments, passed to the region's type.
    pub attrs: Vec<Attribute>,
    /// The name as declared.
    pub ident: Ident,
    /// The generated type's name.
    pub type_ident: Ident,
    /// Where its arena goes.
    pub place: ArenaPlace,
    /// `uninit`: `take()` leaves the arena's bytes as they are.
    pub uninit: bool,
    /// Declared without a size: its capacity is what its memory bank has left.
    pub takes_rest: bool,
    /// The runtime's `RegionKind` variant.
    pub kind: Ident,
    /// The planner's view: name, capacity, alignment.
    pub region: Region,
    /// Whether its statement parsed.
    pub standing: RegionStanding,
}

/// Whether a region's statement parsed, set when it is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionStanding {
    /// Its statement parsed: its capacity and alignment are the ones written (each checked
    /// on its own).
    Declared,
    /// Its statement did not parse (the error is reported): the region is declared with
    /// no bytes, so that statements naming it raise no further errors, and nothing that
    /// depends on its capacity is planned.
    Broken,
}

impl RegionRecord {
    /// Its statement did not parse.
    pub fn is_broken(&self) -> bool {
        self.standing == RegionStanding::Broken
    }
}

/// Where an arena (a region's or a pool's static) goes.
#[derive(Clone)]
pub enum ArenaPlace {
    /// A zero-initialised static, in `.bss`.
    Bss,
    /// `memory M`: a section memplan names, which its generated linker fragment places in
    /// the MEMORY region `M` of the linker script (`NOLOAD`).
    Memory(Ident),
    /// `unsafe section "S"`: the user's own section.
    Section {
        /// Where `unsafe` is written: the attribute is spanned there, so that
        /// `forbid(unsafe_code)` in the user's crate points at it.
        unsafe_span: Span,
        /// The section's name.
        name: LitStr,
    },
}

impl ArenaPlace {
    /// The MEMORY region, for `memory M`.
    pub fn memory(&self) -> Option<&Ident> {
        match self {
            ArenaPlace::Memory(m) => Some(m),
            ArenaPlace::Bss | ArenaPlace::Section { .. } => None,
        }
    }
}

/// A bump pool's size, alignment and place.
#[derive(Clone)]
pub struct Pool {
    /// Bytes.
    pub bytes: u64,
    /// Alignment of its base, in bytes.
    pub align: u64,
    /// `memory M`, or `None` for `.bss`.
    pub memory: Option<Ident>,
}

impl Default for Pool {
    /// Absent: 0 bytes, aligned to 16, in `.bss`.
    fn default() -> Self {
        Pool {
            bytes: 0,
            align: 16,
            memory: None,
        }
    }
}

/// The manager's three bump pools.
#[derive(Clone, Default)]
pub struct Pools {
    /// `constant: SIZE;`
    pub constant: Pool,
    /// `runtime: SIZE;`
    pub runtime: Pool,
    /// `temp: SIZE;`, or `temp: per step;` (its bytes then the largest step's requests).
    pub temp: Pool,
    /// `temp: per step;`, where `per` is written.
    pub temp_per_step: Option<Span>,
    /// The `temp at STEPS: SIZE;` requests, in order.
    pub temp_requests: Vec<TempRequest>,
}

/// `temp at FIRST..=LAST: SIZE;`: each of those steps takes `bytes` from the temp pool.
#[derive(Clone, Copy)]
pub struct TempRequest {
    /// The first step.
    pub first: u32,
    /// The last step (inclusive).
    pub last: u32,
    /// Bytes taken at each of the steps, padding included.
    pub bytes: u64,
    /// Where the size is written.
    pub span: Span,
}

/// Where errors about a buffer point.
#[derive(Clone, Copy, Debug)]
pub struct BufferSpans {
    /// The name (or the plan file's path, for a row of a plan file).
    pub name: Span,
    /// The size as written.
    pub size: SpanRange,
    /// The pinned offset (`at`), or the name.
    pub pin: SpanRange,
    /// The source of `in place of`, or the name.
    pub in_place: Span,
}

impl BufferSpans {
    /// Every error about the buffer at `span` (a buffer known only by one place).
    pub fn all_at(span: Span) -> BufferSpans {
        BufferSpans {
            name: span,
            size: span.into(),
            pin: span.into(),
            in_place: span,
        }
    }
}

/// What a buffer's declaration says beyond the planner's [`Buffer`], for the passes after
/// the statements.
#[derive(Clone, Debug, Default)]
pub struct Declared {
    /// `pad`: round the size up to the alignment.
    pub pad: bool,
    /// `in place of OTHER`, before it is resolved.
    pub in_place_of: Option<Ident>,
    /// A size is written (an in-place buffer without one takes its source's).
    pub size_given: bool,
}

/// One buffer.
pub struct BufferRecord {
    /// Doc comments, passed to the buffer's type.
    pub attrs: Vec<Attribute>,
    /// The generated type's name.
    pub type_ident: Ident,
    /// Where errors about it point.
    pub spans: BufferSpans,
    /// For a row of a plan file: `file:line`, for messages.
    pub origin: Option<String>,
    /// The lifetime as written (`0..=2`, `3..5`), for messages; empty for a statement that
    /// did not parse and has no range of steps in it.
    pub live_text: String,
    /// Its element type.
    pub elem: ElemInfo,
    /// The planner's view. `in_place_of` indexes [`Model::buffers`].
    pub buffer: Buffer,
    /// Declaration facts for the passes after the statements.
    pub declared: Declared,
    /// Whether it is planned and whether its type is emitted: set when its statement is
    /// lowered, changed after only by [`BufferRecord::exclude`].
    pub standing: Standing,
}

/// Where a buffer stands: whether it is planned, and whether its type is emitted. The
/// planning problem ([`Model::problem`]) takes the planned buffers; the emitter declares
/// the types (and view fields) of those that have one. Set when the buffer's statement is
/// lowered; a planned buffer leaves the plan at most once after, for the first cause
/// found ([`BufferRecord::exclude`]), so that nothing reported about it is a consequence
/// of an earlier error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// No error in it or in what it depends on: planned, its type emitted.
    Planned,
    /// Left out of the plan, for the cause; its type is still emitted, so that the user's
    /// code naming it adds no error.
    Excluded(Cause),
    /// Its statement did not parse (the error is reported): its type is emitted, with no
    /// bytes, and it is not planned.
    Broken,
    /// It is declared twice, or another buffer or region has its Rust name (reported): not
    /// planned, and its type not emitted, so that the fallback does not declare it twice.
    NameTaken,
    /// A plan file's row whose Rust name another buffer or region has (reported): its type
    /// is not emitted, but it is planned, since the row itself is sound.
    RowNameTaken,
}

/// Why a buffer is left out of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// An error in its own statement (reported).
    Statement,
    /// `pad` rounds its size up past 2^64 - 1 bytes (reported).
    Pad,
    /// Its `in place of` names no buffer, or itself (reported).
    InPlaceOf,
    /// Its region's statement did not parse or, for a buffer without `in REGION`, some
    /// region's did (where it goes depends on every region's capacity).
    BrokenRegion,
    /// A buffer up its `in place of` chain is not planned.
    Source,
}

impl Standing {
    /// It is part of the planning problem.
    pub fn planned(self) -> bool {
        matches!(self, Standing::Planned | Standing::RowNameTaken)
    }

    /// Its type (and its field in the views) is emitted.
    pub fn has_type(self) -> bool {
        matches!(
            self,
            Standing::Planned | Standing::Excluded(_) | Standing::Broken
        )
    }
}

impl BufferRecord {
    /// Its statement did not parse and gives no range of steps: no step's view can be
    /// told to lack it, so every one holds it.
    pub fn lifetime_unknown(&self) -> bool {
        self.standing == Standing::Broken && self.live_text.is_empty()
    }

    /// Leaves the buffer out of the plan for `cause`, if it is planned: a buffer left out
    /// already keeps its first cause, and a buffer's type stays as it is.
    pub fn exclude(&mut self, cause: Cause) {
        self.standing = match self.standing {
            Standing::Planned => Standing::Excluded(cause),
            // Out of the plan now, and still without a type.
            Standing::RowNameTaken => Standing::NameTaken,
            left_out => left_out,
        };
    }
}

/// A buffer's element type.
#[derive(Clone)]
pub enum ElemInfo {
    /// Bytes.
    Bytes,
    /// A primitive number type of `size` bytes.
    Prim {
        /// The type's name.
        ty: Ident,
        /// Its size in bytes.
        size: u64,
    },
    /// A user type with its count and declared bytes and alignment.
    User {
        /// The type.
        ty: Box<Type>,
        /// The number of elements.
        count: u64,
        /// The declared bytes (`as B bytes`).
        bytes: u64,
        /// The declared alignment (`align A`).
        align: u64,
    },
}

impl ElemInfo {
    /// The element type as generated code names it: a primitive by its full path
    /// (`::core::primitive::f32`, never a bare `f32` that the user's crate could shadow), a
    /// user type as written.
    pub fn tokens(&self) -> TokenStream {
        match self {
            ElemInfo::Bytes => crate::tokens::prim("u8"),
            ElemInfo::Prim { ty, .. } => crate::tokens::prim(&ty.to_string()),
            ElemInfo::User { ty, .. } => quote::quote!(#ty),
        }
    }

    /// The element's size in bytes, where the macro knows it (`None` for a user type,
    /// whose size the target decides).
    pub fn size(&self) -> Option<u64> {
        match self {
            ElemInfo::Bytes => Some(1),
            ElemInfo::Prim { size, .. } => Some(*size),
            ElemInfo::User { .. } => None,
        }
    }
}

impl Pools {
    /// The pools with their names: `constant`, `runtime`, `temp`.
    pub fn named(&self) -> [(&'static str, &Pool); 3] {
        [
            ("constant", &self.constant),
            ("runtime", &self.runtime),
            ("temp", &self.temp),
        ]
    }
}

impl Model {
    /// The guard bytes planned after every buffer when [`Model::canary`] is set: the
    /// runtime's `CANARY_BYTES`.
    pub const CANARY: u64 = 16;

    /// The alignment of buffer `i` in region `region`, as the planner applies it
    /// ([`memplan_planner::Problem::effective_align`]): its own or the region's, and at
    /// least its element type's.
    pub fn align_of(&self, i: usize, region: usize) -> u64 {
        let b = &self.buffers[i].buffer;
        b.align
            .unwrap_or(self.regions[region].region.align)
            .max(b.min_align)
    }

    /// The planning problem of the buffers without errors, and, for each of its buffers,
    /// its record's index in [`Model::buffers`]. (Without errors, that is every buffer in
    /// order.)
    pub fn problem(&self) -> (Problem, Vec<usize>) {
        let kept: Vec<usize> = (0..self.buffers.len())
            .filter(|&i| self.buffers[i].standing.planned())
            .collect();
        let mut new_index = vec![usize::MAX; self.buffers.len()];
        for (n, &i) in kept.iter().enumerate() {
            new_index[i] = n;
        }
        let problem = Problem {
            regions: self.regions.iter().map(|r| r.region.clone()).collect(),
            buffers: kept
                .iter()
                .map(|&i| {
                    let mut b = self.buffers[i].buffer.clone();
                    b.in_place_of = b.in_place_of.map(|s| new_index[s]);
                    if self.canary {
                        b.size = b.size.saturating_add(Self::CANARY);
                    }
                    b
                })
                .collect(),
        };
        (problem, kept)
    }
}
