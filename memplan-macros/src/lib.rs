//! `memory_plan!`: plans a firmware's working memory at compile time.
//!
//! Use it through `memplan-runtime`, which re-exports it and documents the language. This
//! crate is a thin shell: the language (parsing, lowering, planning, diagnostics and code
//! generation) is `memplan-lang`, which build scripts and the `memplan` command share.

use std::path::PathBuf;

use proc_macro::TokenStream;

/// Plans a firmware's working memory at compile time.
///
/// ```ignore
/// memplan_runtime::memory_plan! {
///     /// Activation memory of the keyword spotter.
///     pub mod kws {
///         // Memory ids of the hierarchical allocator, in declaration order: 0, 1, ...
///         region dtcm: 16 KiB, align 32, kind tightly_coupled;
///         region sram: 64 KiB, align 16, memory SRAM2, kind dma;
///
///         // The manager's bump pools, in bytes (absent = 0), with an optional alignment.
///         constant: 0;
///         runtime: 2 KiB;
///         temp: 1 KiB, align 64, memory SRAM2;
///
///         // How to pack each region (default: `optimal(nodes = 38000)`).
///         strategy = best_of;
///
///         buffer input:  [i8; 490] in dtcm, live 0..=1;
///         buffer conv1:  8000 bytes in sram, live 1..=2, align 64, pad;
///         buffer relu1:  in place of conv1, live 2..=2;
///         buffer logits: [f32; 12] in dtcm, live 3..=4, at 256;
///         buffer stereo: [Sample; 64] as 256 bytes, live 0..3, align 4;
///         buffers in sram from "plans/mobilenet_v2.csv";
///     }
/// }
/// ```
///
/// # Statements
///
/// - `region NAME: SIZE [, align A] [, memory M] [, uninit] [, kind K];` a memory region,
///   with its capacity. Memory ids are 0-based in declaration order. `align` (bytes, a
///   power of two up to 65536, default 16) is the default alignment of its buffers.
///   Without `memory`, the region's arena is a zero-initialised static (`.bss`). With
///   `memory M`, it lives in MEMORY region `M` of the firmware's linker script: on
///   bare-metal targets (`target_os = "none"`) it goes in a link section that memplan names
///   and that only memplan's generated linker fragment places (a `NOLOAD` output section in
///   `M`; see `memplan-build`), so it takes no flash, and linking without the fragment
///   fails with an undefined symbol that says to add it; on other targets it stays in
///   `.bss`. Start-up code does not zero such memory, so `take()` zeroes the region's
///   planned bytes once, unless the region says `uninit`. `kind` is `tightly_coupled`,
///   `dma` or `external`: metadata for the application.
/// - `region NAME: memory M [, ...];` a region without a size: it takes what bank `M` has
///   left after the other arenas placed in it (its `LENGTH` in `memory.x`).
/// - `memory M`, on a region or a pool, is checked when the plan is compiled against the
///   `memory.x` in the package root (`CARGO_MANIFEST_DIR`), else in `OUT_DIR`: an error if
///   `M` is not one of its MEMORY regions (the message lists them), is not writable RAM
///   (its attributes lack `w`, or it has none and its name says flash or ROM), or has a
///   `LENGTH` smaller than a capacity placed in it or than the planned bytes of all its
///   arenas, each rounded up to its alignment. Without a `memory.x`, only a name that says
///   flash or ROM is refused; a `LENGTH` that is not numbers is left to the fragment's
///   link-time `ASSERT`, which also sees `.data`, `.bss` and the stack in a shared bank.
/// - `region NAME: SIZE, unsafe section "S";` the arena in link section `S` of your own
///   linker script, as `#[unsafe(link_section = "S")]` written at your `unsafe`, so that
///   `forbid(unsafe_code)` and review see it: a section that the loader treats as code,
///   constructors (`.init_array`) or read-only data is undefined behaviour. (A plain
///   `section "S"` is an error.)
/// - `constant: SIZE;`, `runtime: SIZE;`, `temp: SIZE;` the sizes of the manager's bump
///   pools (absent = 0), each optionally `, align A` (default 16) and `, memory M` (placed
///   as a region's arena is; pools hand out uninitialised memory, so they are never
///   zeroed). Pools are statics of their own, not part of any region.
/// - `temp: per step;` (with the same options) and `temp at STEP: SIZE;` or
///   `temp at A..=B: SIZE;`: the temp pool sized from what the steps take from it, each
///   request the bytes those steps allocate (padding included). The requests that cover a
///   step add up; the pool gets the largest sum. With `temp: SIZE;` instead, a step whose
///   requests add up to more than `SIZE` is a compile error.
/// - `strategy = greedy | best_of | optimal(nodes = N);` the packing strategy.
/// - `lock = required;` the package's lock file must hold a fresh entry for this plan: a
///   stale or missing one is a compile error naming the plan. With or without it, when
///   `memplan.lock` in the package root (written by `memplan lock`) holds an entry whose
///   fingerprint matches the plan's inputs, its offsets are used once the planner's
///   validator accepts them (an entry it rejects is a compile error), with no search; a
///   stale entry is planned again, and `REPORT` says so. The entry's claims are checked,
///   never taken as written: its planned bytes must be where its offsets end, and a region
///   is proven optimal only where its planned bytes are at the lower bound (`REPORT` says
///   when the entry claims more). A lock file that cannot be read, or of a newer format,
///   is a compile error. Editing the file rebuilds the crate.
/// - `buffer NAME: SIZE CLAUSES;` a planned buffer. Clauses, in any order, optionally
///   separated by commas:
///   - `in REGION`: the region; without it the buffer is spilled to the first region, in
///     declaration order, that can take it (declare the fastest first; the rule in full is
///     on `memplan_planner::plan`).
///   - `live A..=B` (inclusive) or `live A..B` (exclusive): the steps it is live. Two
///     buffers whose lifetimes share a step never share a byte.
///   - `align A`: the offset's alignment in bytes (default: the region's; for `[T; N]` of
///     a primitive, the larger of the element's size and the region's alignment).
///   - `pad`: round the size up to the alignment (cache-line-safe DMA buffers).
///   - `at OFFSET`: a pinned offset from another planner; verified (alignment, bounds,
///     overlap in time and bytes), never trusted.
///   - `in place of OTHER`: takes OTHER's offset (and its size, when none is given); legal
///     only if no larger and OTHER's last step is at most this buffer's first.
/// - `buffers [in REGION] from "FILE";` every row of a plan file (ExecuTorch's export
///   `name,mem_id,offset,size,first,last,dtype,shape` with inclusive lifetimes, MiniMalloc's
///   benchmark CSV, a placed CSV) or every planned tensor of a model (a `.tflite` model as
///   TensorFlow Lite Micro plans it, a `.pte` program as ExecuTorch does; told apart by
///   content), typed by its element type where the file gives a primitive one. The path is
///   relative to the source file of the invocation, as `include_str!`; editing the file
///   rebuilds the crate. It must name a regular file: a FIFO, a device or a folder is an
///   error naming it, refused before it is opened. `from out_dir "FILE"` reads it from the crate's `OUT_DIR` (a build
///   script's output). The file's own offsets and memory ids are ignored: `in REGION`
///   decides the region and memplan plans the offsets. The plan's `REPORT` names each file
///   read, with its size and SHA-256. A model's tensors keep the file's names where they
///   can: one whose name repeats (in its subgraph or another) or is empty is `NAME#INDEX`
///   (`NAME#SUBGRAPH.INDEX` past subgraph 0), and one whose Rust name is taken (by an
///   earlier buffer, a name that mangles alike, or an item the module declares itself)
///   gets `#2`, `#3`, ... (`#b2`, ... after a step view's name `AtStepN`), so no tensor
///   needs renaming in the file.
/// - `model [in REGION] from "FILE.tflite";` runs a TensorFlow Lite model's schedule: its
///   planned tensors become buffers, as `buffers from` reads them, and its operators, in
///   order, the steps. The module then also declares one kernel trait per operator kind
///   the model uses (`Conv2d`, `DepthwiseConv2d`, `AveragePool2d`, `MaxPool2d`, `Reshape`,
///   `Softmax`, `FullyConnected`, `Add`; each method gets the operator's options from
///   `memplan_runtime::ops`, its tensors as `ops::In` and `ops::Out` slices with shapes and
///   quantization, and the temp pool), holds the model's constant data (weights, biases)
///   as static data, and generates `run(manager, &mut kernels, input, output)`, which fills
///   the model's inputs with the `input` closure, calls each operator's kernel over the
///   step views and hands the outputs to `output`. At most one `model` statement per plan;
///   an operator kind without a trait, control flow, or a `.pte` file is a compile error
///   spanned on the path (plan a `.pte` program's buffers with `buffers from`).
/// - `crate = PATH;` the path of the runtime crate, for users who re-export it (default
///   `::memplan_runtime`); give an absolute path (`::hal::memplan` or `crate::memplan`).
///
/// Sizes are whole numbers: `N`, `N bytes` (or `N byte`, `N B`), `N KiB`, `N MiB`, `N GiB`
/// (powers of 1024; `1.5 KiB` is an error that gives the bytes meant), `[T; N]` for `T` one of `u8 i8 u16 i16 u32 i32
/// u64 i64 u128 i128 f32 f64`, or `[T; N] as B bytes` (with `align A`) for a user type: the
/// macro then asserts at compile time, on the actual target, that `[T; N]` fits in `B`
/// bytes, that `T`'s alignment is at most `A`, and that `T` is plain data
/// (`bytemuck::Pod`), since planned bytes are reused across buffers (derive it with your
/// own `bytemuck` dependency, version 1 with the `derive` feature: the runtime does not
/// re-export it). Size arithmetic is
/// checked: it never wraps.
///
/// Doc comments and attributes on the module, regions and buffers pass through to the
/// generated items.
///
/// # What it generates
///
/// In the module: a type per region implementing `memplan_runtime::MemoryId` (with
/// `LOWER_BOUND`, `PEAK_STEP` and `PROVEN_OPTIMAL` consts); a type per buffer, declared or
/// from a file, implementing `memplan_runtime::PlannedBuffer` (a file row's name is mangled:
/// an ASCII character outside `[A-Za-z0-9_]` becomes `_`, a non-ASCII one `_u{hex}_`, then
/// upper camel case, so `aten_convolution_default.out0` is `AtenConvolutionDefaultOut0`);
/// `Plan`, the plan's marker type; `BUFFERS`, a const table of every buffer (name, memory
/// id, offset, size, first and last step); `REPORT`; `STRATEGY`; one static arena per
/// region sized to the plan, and one per pool; `take()`, which hands out the plan's
/// `MemoryManager` (built in a const context) once: `Some` on the first call, `None`
/// after; and the step views: for each step `T`, `manager.step_any_order::<T>()` opens a view with a
/// field per buffer live at `T` (`memplan_runtime::StepOf`), for plans of at most 4,096
/// steps whose distinct views hold at most 65,536 fields in all (past that, walk the steps
/// with `manager.live_at(t)`).
///
/// # Errors
///
/// Every bad input is a compile error spanned on the offending token, all of them in one
/// build, in source order (a misspelt keyword with the one meant: `did you mean `live`?`), with needed and available bytes as plain integers where sizes are involved. A
/// plan that does not fit names the region, the bytes over, the peak step and the largest
/// buffers live there, and says when only the packing (fragmentation) is to blame. A plan
/// file's faults are spanned on its path: a CSV's every faulty row (a malformed row, a
/// field that is not a whole number, an empty lifetime, an empty name, a name given twice),
/// each an error of its own in file order naming the file, the line and, where the fault
/// is in one field, its column (`plan file m.csv:3: column 4 (`size`): `sixty-four` is not
/// a whole number in range`), the first 8 of them and then one `and N more faulty rows`; a
/// JSON plan file's every faulty region and buffer entry likewise, with its line and column
/// (`and N more faulty entries`); a model's (`buffers from`, `model`) every faulty tensor
/// and operator, or a `.pte` program's value and instruction, likewise (`and N more faulty
/// tensors or operators`), a constant whose data is shorter or longer than its shape says
/// among them, naming the operator that reads it. A fault that stops the reader (malformed
/// JSON, a file that is not a model, a model whose reading would take more than its budget:
/// 64 bytes of memory and work per byte of the file, at least 16 MiB, at most 1 GiB) is
/// reported alone. On error the module still declares its
/// types and a `take()` that returns `None`, so the rest of the crate still type-checks.
#[proc_macro]
pub fn memory_plan(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    // Plan files are relative to the source file of the invocation, as `include_str!`.
    let file = proc_macro::Span::call_site().local_file();
    let env = memplan_lang::Env {
        base_dir: file
            .as_deref()
            .and_then(|f| f.parent().map(|d| d.to_path_buf())),
        out_dir: std::env::var_os("OUT_DIR").map(PathBuf::from),
        package: std::env::var("CARGO_PKG_NAME").ok(),
        canary: cfg!(feature = "debug-canary"),
        modules: file.as_deref().map_or_else(Vec::new, |f| {
            let root = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
            memplan_lang::driver::modules_of_invocation(f, &input, root.as_deref())
        }),
        strategy: None,
        root: std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from),
    };
    memplan_lang::expand(input, &env).into()
}
