//! What a model reader yields: the tensors to plan, with the sizes and lifetimes the runtime
//! that runs the model gives them, and the schedule a generated operator loop needs.
//!
//! One description serves both formats ([`ModelFormat`]): `.tflite` files as TensorFlow Lite
//! Micro plans them ([`super::tflite`]) and `.pte` programs as ExecuTorch runs them
//! ([`super::pte`]). Units: sizes and offsets in bytes, lifetimes in steps (inclusive, as
//! [`Lifetime`] everywhere in this crate); each reader's documentation says what a step is.

use std::ops::Range;

use crate::problem::{Lifetime, Step};

/// The two model formats, told apart by their flatbuffer file identifier ([`detect_model`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelFormat {
    /// A TensorFlow Lite flatbuffer, file identifier `TFL3`.
    Tflite,
    /// An ExecuTorch program, file identifier `ET12`.
    Pte,
}

impl ModelFormat {
    /// The format's name in messages: `.tflite` or `.pte`.
    pub fn name(self) -> &'static str {
        match self {
            ModelFormat::Tflite => ".tflite",
            ModelFormat::Pte => ".pte",
        }
    }

    /// The four-byte file identifier the format's schema declares (bytes 4..8 of the
    /// file): `TFL3` or `ET12`.
    pub fn identifier(self) -> [u8; 4] {
        match self {
            ModelFormat::Tflite => *b"TFL3",
            ModelFormat::Pte => *b"ET12",
        }
    }
}

/// Which model format `bytes` is, by the flatbuffer file identifier at bytes 4..8 (`TFL3`,
/// `ET12`); `None` for anything else (a CSV or JSON plan file, a truncated file). It looks
/// at nothing else: the readers verify the rest.
pub fn detect_model(bytes: &[u8]) -> Option<ModelFormat> {
    let id = bytes.get(4..8)?;
    [ModelFormat::Tflite, ModelFormat::Pte]
        .into_iter()
        .find(|f| f.identifier() == id)
}

/// A Rust primitive an element type maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// `i8`.
    I8,
    /// `u8`.
    U8,
    /// `i16`.
    I16,
    /// `u16`.
    U16,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Primitive {
    /// The primitive torch's dtype `name` stands for (`float32` -> `f32`, `int8` -> `i8`,
    /// `int64` -> `i64`, ...), as ExecuTorch's plan export writes it; `None` for `bool`,
    /// half floats and names it does not know.
    pub fn of_torch(name: &str) -> Option<Primitive> {
        Some(match name {
            "float32" => Primitive::F32,
            "float64" => Primitive::F64,
            "int8" => Primitive::I8,
            "uint8" => Primitive::U8,
            "int16" => Primitive::I16,
            "uint16" => Primitive::U16,
            "int32" => Primitive::I32,
            "uint32" => Primitive::U32,
            "int64" => Primitive::I64,
            "uint64" => Primitive::U64,
            _ => return None,
        })
    }

    /// The primitive of Rust's name `name` (`i8`, `f32`, ...; the inverse of
    /// [`Primitive::rust_name`]).
    pub fn of_rust(name: &str) -> Option<Primitive> {
        Some(match name {
            "i8" => Primitive::I8,
            "u8" => Primitive::U8,
            "i16" => Primitive::I16,
            "u16" => Primitive::U16,
            "i32" => Primitive::I32,
            "u32" => Primitive::U32,
            "i64" => Primitive::I64,
            "u64" => Primitive::U64,
            "f32" => Primitive::F32,
            "f64" => Primitive::F64,
            _ => return None,
        })
    }

    /// The type's name in Rust: `i8`, `f32`, ...
    pub fn rust_name(self) -> &'static str {
        match self {
            Primitive::I8 => "i8",
            Primitive::U8 => "u8",
            Primitive::I16 => "i16",
            Primitive::U16 => "u16",
            Primitive::I32 => "i32",
            Primitive::U32 => "u32",
            Primitive::I64 => "i64",
            Primitive::U64 => "u64",
            Primitive::F32 => "f32",
            Primitive::F64 => "f64",
        }
    }

    /// Its size in bytes.
    pub fn size(self) -> u64 {
        match self {
            Primitive::I8 | Primitive::U8 => 1,
            Primitive::I16 | Primitive::U16 => 2,
            Primitive::I32 | Primitive::U32 | Primitive::F32 => 4,
            Primitive::I64 | Primitive::U64 | Primitive::F64 => 8,
        }
    }
}

/// A tensor's element type, as the file names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElementType {
    /// The file's own name of the type: TFLite's `TensorType` (`INT8`, `FLOAT32`, ...) or
    /// ExecuTorch's `ScalarType` (`CHAR`, `FLOAT`, ...), as the schema spells it.
    pub name: &'static str,
    /// The schema's numeric value of the type.
    pub code: i8,
    /// Bytes per element, as the runtime counts them (TFLite Micro's `TfLiteTypeSizeOf`,
    /// ExecuTorch's `elementSize`; TFLite's `INT4` is one byte per element in TFLite Micro's
    /// arena).
    pub size: u64,
    /// The Rust primitive of the same size and meaning, where there is one; `None` (plain
    /// bytes) for `BOOL`, half floats, complex numbers, quantized and sub-byte types.
    pub primitive: Option<Primitive>,
}

/// Where a tensor is in its file: the subgraph (TFLite) or execution plan (ExecuTorch) and
/// the index in its tensor (TFLite) or value (ExecuTorch) list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TensorId {
    /// The subgraph index (TFLite), or the execution plan's index (ExecuTorch).
    pub subgraph: u32,
    /// The tensor's index in the subgraph (TFLite), or its value index (ExecuTorch).
    pub index: u32,
}

/// A tensor to plan: one the runtime places in its planned arena.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedTensor {
    /// Its name as in the file (TFLite's tensor name, possibly empty or shared by several
    /// tensors; ExecuTorch values have no names, so `value_INDEX`). [`PlannedTensor::id`]
    /// is the unique key.
    pub name: String,
    /// Where it is in the file.
    pub id: TensorId,
    /// Bytes: elements times the element size, unpadded. (TFLite Micro rounds each planned
    /// size up to its 16-byte alignment, [`ModelFile::align`], before it plans.)
    pub size: u64,
    /// Its element type.
    pub element: ElementType,
    /// Its dims, outermost first (empty for a scalar).
    pub shape: Vec<u64>,
    /// The steps at which it is live, inclusive.
    pub lifetime: Lifetime,
    /// The offset the file's own plan gives it, in bytes (TFLite's `OfflineMemoryAllocation`
    /// entry when it is not -1; ExecuTorch's `memory_offset_low + (memory_offset_high << 32)`).
    pub file_offset: Option<u64>,
    /// The memory id of the file's own plan (ExecuTorch's `memory_id`, 1-based as the file
    /// stores it: the runtime's buffer `memory_id - 1`); `None` for TFLite.
    pub memory_id: Option<u32>,
    /// Whether it must keep its bytes across invocations (TFLite variable tensors: TFLite
    /// Micro gives them persistent memory, outside the plan, unless the offline plan places
    /// them; an ExecuTorch tensor with state, such as a mutable buffer: see
    /// [`super::pte`]). Its lifetime then spans every step.
    pub persistent: bool,
    /// The index in [`ModelFile::alias_groups`] of the group whose bytes it shares, if any.
    pub alias_group: Option<usize>,
}

/// Tensors the file deliberately places on the same bytes (ExecuTorch's views and in-place
/// outputs): memplan must give them one offset. Plan them as one buffer of `size` bytes live
/// over `lifetime`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AliasGroup {
    /// Its members, indices in [`ModelFile::tensors`], in file order.
    pub members: Vec<usize>,
    /// The largest member's size, in bytes.
    pub size: u64,
    /// The hull of the members' lifetimes.
    pub lifetime: Lifetime,
}

/// Quantization parameters of a tensor (TFLite's `QuantizationParameters`).
#[derive(Clone, Debug, PartialEq)]
pub struct Quantization {
    /// One scale per channel of `quantized_dimension` (or one for the whole tensor).
    pub scale: Vec<f32>,
    /// One zero point per scale.
    pub zero_point: Vec<i64>,
    /// The dimension the per-channel arrays run along.
    pub quantized_dimension: i32,
}

/// A tensor of a subgraph, planned or not: what an operator loop needs to know about it.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorInfo {
    /// Its name as in the file (empty when the file gives none).
    pub name: String,
    /// Its element type.
    pub element: ElementType,
    /// Its dims, outermost first (empty for a scalar).
    pub shape: Vec<u64>,
    /// Its quantization, when the file gives one with at least one scale.
    pub quantization: Option<Quantization>,
    /// For a constant tensor, the byte range of its data inside the file (so that the
    /// data can be copied out of the file's bytes).
    pub data: Option<Range<u64>>,
    /// A TFLite variable tensor.
    pub variable: bool,
    /// Its index in [`ModelFile::tensors`] when it is planned.
    pub planned: Option<usize>,
}

/// One value of an ExecuTorch execution plan (TFLite subgraphs hold tensors only).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A tensor.
    Tensor(TensorInfo),
    /// ExecuTorch's `Null` (or an absent value).
    Null,
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A double.
    Double(f64),
    /// A string.
    String(String),
    /// A list of integers.
    IntList(Vec<i64>),
    /// A list of doubles.
    DoubleList(Vec<f64>),
    /// A list of booleans.
    BoolList(Vec<bool>),
    /// A list of tensors, as value indices.
    TensorList(Vec<i32>),
    /// A list of optional tensors, as value indices (-1: none).
    OptionalTensorList(Vec<i32>),
}

/// Padding of a convolution or pool (TFLite's `Padding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// `SAME`.
    Same,
    /// `VALID`.
    Valid,
}

/// A fused activation (TFLite's `ActivationFunctionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// `NONE`.
    None,
    /// `RELU`.
    Relu,
    /// `RELU_N1_TO_1`.
    ReluN1To1,
    /// `RELU6`.
    Relu6,
    /// `TANH`.
    Tanh,
    /// `SIGN_BIT`.
    SignBit,
}

/// An operator's options, typed for the operators a generated loop supports first; the
/// raw schema values (strides and sizes in elements, `beta` as the file stores it).
#[derive(Clone, Debug, PartialEq)]
pub enum Options {
    /// No options (or an ExecuTorch instruction).
    None,
    /// `CONV_2D`.
    Conv2D {
        /// Padding.
        padding: Padding,
        /// Stride along the width.
        stride_w: i32,
        /// Stride along the height.
        stride_h: i32,
        /// Dilation along the width.
        dilation_w: i32,
        /// Dilation along the height.
        dilation_h: i32,
        /// The fused activation.
        activation: Activation,
    },
    /// `DEPTHWISE_CONV_2D`.
    DepthwiseConv2D {
        /// Padding.
        padding: Padding,
        /// Stride along the width.
        stride_w: i32,
        /// Stride along the height.
        stride_h: i32,
        /// Output channels per input channel.
        depth_multiplier: i32,
        /// Dilation along the width.
        dilation_w: i32,
        /// Dilation along the height.
        dilation_h: i32,
        /// The fused activation.
        activation: Activation,
    },
    /// A pool (`AVERAGE_POOL_2D`, `MAX_POOL_2D`, `L2_POOL_2D`: the operator's name says
    /// which).
    Pool2D {
        /// Padding.
        padding: Padding,
        /// Stride along the width.
        stride_w: i32,
        /// Stride along the height.
        stride_h: i32,
        /// The filter's width.
        filter_w: i32,
        /// The filter's height.
        filter_h: i32,
        /// The fused activation.
        activation: Activation,
    },
    /// `RESHAPE`: the new shape, when the options give one (else the second input does).
    Reshape {
        /// The new dims (-1: inferred).
        new_shape: Vec<i32>,
    },
    /// `SOFTMAX`.
    Softmax {
        /// The inverse temperature.
        beta: f32,
    },
    /// `FULLY_CONNECTED`.
    FullyConnected {
        /// The fused activation.
        activation: Activation,
        /// Whether the output keeps the input's dims.
        keep_num_dims: bool,
        /// Whether the weights are `SHUFFLED4x16INT8` (else `DEFAULT`).
        shuffled_weights: bool,
        /// TFLite's `asymmetric_quantize_inputs`.
        asymmetric_quantize_inputs: bool,
    },
    /// `ADD`.
    Add {
        /// The fused activation.
        activation: Activation,
        /// TFLite's `pot_scale_int16`.
        pot_scale_int16: bool,
    },
    /// Control flow: the subgraphs an `IF` (then, else), `WHILE` (cond, body) or
    /// `CALL_ONCE` (init) enters.
    Subgraphs(Vec<u32>),
    /// Options of a kind not typed here: the schema's name of the options table (for
    /// example `MulOptions`), or `custom` with the raw bytes of a custom operator's options.
    Other {
        /// The options table's name in the schema.
        kind: String,
        /// A custom operator's options bytes (empty otherwise).
        custom: Vec<u8>,
    },
    /// An activation or another option read as an unknown enum value: the value and the
    /// field, kept so that nothing is silently dropped.
    Unknown {
        /// The field.
        field: &'static str,
        /// The raw value.
        value: i64,
    },
}

/// One operator (TFLite) or instruction (ExecuTorch), in execution order.
#[derive(Clone, Debug, PartialEq)]
pub struct Operator {
    /// Its step: what [`PlannedTensor::lifetime`] counts.
    pub step: Step,
    /// The subgraph (TFLite) or chain (ExecuTorch) it belongs to.
    pub subgraph: u32,
    /// Its index there.
    pub index: u32,
    /// TFLite: the builtin operator's name (`CONV_2D`) or a custom operator's code;
    /// ExecuTorch: the kernel (`aten::add.out`), `delegate:ID`, `move`, `free` or
    /// `jump_false`.
    pub name: String,
    /// Its options.
    pub options: Options,
    /// The tensors it reads (TFLite), or every argument (ExecuTorch, which does not say
    /// which arguments a kernel writes): indices in the subgraph's tensors (values), -1 for
    /// an absent optional input.
    pub inputs: Vec<i32>,
    /// The tensors it writes (TFLite); empty for ExecuTorch.
    pub outputs: Vec<i32>,
}

/// A subgraph (TFLite) or execution plan (ExecuTorch): its tensors or values, inputs and
/// outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Subgraph {
    /// Its name (empty when the file gives none).
    pub name: String,
    /// Its tensors (TFLite, all [`Value::Tensor`]) or values (ExecuTorch), in file order:
    /// operators' indices point here.
    pub values: Vec<Value>,
    /// Its inputs, as indices in `values`.
    pub inputs: Vec<i32>,
    /// Its outputs, as indices in `values`.
    pub outputs: Vec<i32>,
}

/// What a model reader yields.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelFile {
    /// The file, as given (for messages).
    pub file: String,
    /// Its format.
    pub format: ModelFormat,
    /// A description of its content: TFLite's schema version and `description`, or
    /// ExecuTorch's program version and the execution plan's name.
    pub description: String,
    /// The alignment, in bytes, of every planned buffer at run time: 16 for both
    /// (TFLite Micro's `MicroArenaBufferAlignment()`, ExecuTorch's memory planning's
    /// default).
    pub align: u64,
    /// The tensors to plan, in file order (subgraph, then index).
    pub tensors: Vec<PlannedTensor>,
    /// Groups of planned tensors on the same bytes (ExecuTorch only; see [`AliasGroup`]).
    pub alias_groups: Vec<AliasGroup>,
    /// The file's own plan sizes: ExecuTorch's `non_const_buffer_sizes` (index = memory
    /// id; index 0 is reserved and 0); empty for TFLite.
    pub buffer_sizes: Vec<u64>,
    /// Every subgraph (TFLite) or the selected execution plan (ExecuTorch).
    pub subgraphs: Vec<Subgraph>,
    /// The operators in execution order: TFLite's as TFLite Micro's planner walks them
    /// (entering the subgraphs of control-flow operators), ExecuTorch's instructions.
    pub operators: Vec<Operator>,
    /// The last step (`operators`' last, or the subgraph inputs' step 0 when there are
    /// none).
    pub last_step: Step,
    /// The scratch buffers the runtime's kernels request when they are prepared (TFLite
    /// Micro's reference kernels, [`super::tflite::Scratch`]); empty for ExecuTorch, whose
    /// kernels take temporary memory from the temp allocator instead.
    pub scratch: super::tflite::Scratch,
    /// ExecuTorch: the branches of the program's `cond`s, which no invocation runs
    /// together ([`super::pte::Branches`]); none for TFLite.
    pub branches: super::pte::Branches,
}
