//! A byte vector whose data starts on a multiple of a given alignment: what `force_align` on
//! a vector field of a schema asks (`Buffer.data`, `Operator.custom_options` in TFLite's,
//! `Buffer.storage` and `BackendDelegateInlineData.data` in ExecuTorch's: 16 bytes), and
//! what flatc's C++ builder honours (`ForceVectorAlignment`) but its Rust generator and the
//! Rust runtime do not: their byte vectors are aligned to 4 (the length prefix) only.

use flatbuffers::{Allocator, FlatBufferBuilder, Push, PushAlignment, Vector, WIPOffset};

/// A stand-in element of one byte and alignment `N`, used only to size and align a vector
/// before its bytes are pushed one by one. It is never pushed itself.
struct AlignedByte<const N: usize>;

impl<const N: usize> Push for AlignedByte<N> {
    type Output = u8;

    // SAFETY: writes nothing, so it cannot write outside `dst` whatever `dst` is.
    unsafe fn push(&self, _dst: &mut [u8], _written_len: usize) {}

    fn size() -> usize {
        1
    }

    fn alignment() -> PushAlignment {
        PushAlignment::new(N)
    }
}

/// Writes `bytes` as a `[ubyte]` vector whose first byte is 16-byte aligned from the start
/// of the finished buffer (the builder rounds the finished buffer's size to the largest
/// alignment it was asked for, so an offset aligned from the end is aligned from the start).
pub fn create_aligned_bytes<'fbb, A: Allocator + 'fbb>(
    fbb: &mut FlatBufferBuilder<'fbb, A>,
    bytes: &[u8],
) -> WIPOffset<Vector<'fbb, u8>> {
    fbb.start_vector::<AlignedByte<16>>(bytes.len());
    for &b in bytes.iter().rev() {
        fbb.push(b);
    }
    fbb.end_vector::<u8>(bytes.len())
}

#[cfg(feature = "object-api")]
/// Packs `model` as [`tflite::ModelT::pack`](crate::tflite::ModelT::pack) does, but with
/// the schema's `force_align: 16` vectors (`Buffer.data`, `Operator.custom_options`)
/// 16-byte aligned. Every field is written: the object types are destructured without
/// `..`, so regenerating from a schema with a new field fails to compile here until the
/// field is packed.
pub fn pack_tflite_model<'b, A: Allocator + 'b>(
    fbb: &mut FlatBufferBuilder<'b, A>,
    model: &crate::tflite::ModelT,
) -> WIPOffset<crate::tflite::Model<'b>> {
    use crate::tflite::{Buffer, BufferArgs, BufferT, Model, ModelArgs, ModelT};
    let ModelT {
        version,
        operator_codes,
        subgraphs,
        description,
        buffers,
        metadata_buffer,
        metadata,
        signature_defs,
        external_buffer_groups,
        external_buffers,
    } = model;
    let operator_codes = operator_codes.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let subgraphs = subgraphs.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| pack_subgraph(fbb, t)).collect();
        fbb.create_vector(&w)
    });
    let description = description.as_ref().map(|x| fbb.create_string(x));
    let buffers = buffers.as_ref().map(|x| {
        let w: Vec<_> = x
            .iter()
            .map(|b| {
                let BufferT { data, offset, size } = b;
                let data = data.as_ref().map(|d| create_aligned_bytes(fbb, d));
                Buffer::create(
                    fbb,
                    &BufferArgs {
                        data,
                        offset: *offset,
                        size: *size,
                    },
                )
            })
            .collect();
        fbb.create_vector(&w)
    });
    let metadata_buffer = metadata_buffer.as_ref().map(|x| fbb.create_vector(x));
    let metadata = metadata.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let signature_defs = signature_defs.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let external_buffer_groups = external_buffer_groups.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let external_buffers = external_buffers.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    Model::create(
        fbb,
        &ModelArgs {
            version: *version,
            operator_codes,
            subgraphs,
            description,
            buffers,
            metadata_buffer,
            metadata,
            signature_defs,
            external_buffer_groups,
            external_buffers,
        },
    )
}

#[cfg(feature = "object-api")]
fn pack_subgraph<'b, A: Allocator + 'b>(
    fbb: &mut FlatBufferBuilder<'b, A>,
    subgraph: &crate::tflite::SubGraphT,
) -> WIPOffset<crate::tflite::SubGraph<'b>> {
    use crate::tflite::{SubGraph, SubGraphArgs, SubGraphT};
    let SubGraphT {
        tensors,
        inputs,
        outputs,
        operators,
        name,
        debug_metadata_index,
    } = subgraph;
    let tensors = tensors.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let inputs = inputs.as_ref().map(|x| fbb.create_vector(x));
    let outputs = outputs.as_ref().map(|x| fbb.create_vector(x));
    let operators = operators.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| pack_operator(fbb, t)).collect();
        fbb.create_vector(&w)
    });
    let name = name.as_ref().map(|x| fbb.create_string(x));
    SubGraph::create(
        fbb,
        &SubGraphArgs {
            tensors,
            inputs,
            outputs,
            operators,
            name,
            debug_metadata_index: *debug_metadata_index,
        },
    )
}

#[cfg(feature = "object-api")]
fn pack_operator<'b, A: Allocator + 'b>(
    fbb: &mut FlatBufferBuilder<'b, A>,
    op: &crate::tflite::OperatorT,
) -> WIPOffset<crate::tflite::Operator<'b>> {
    use crate::tflite::{Operator, OperatorArgs, OperatorT};
    let OperatorT {
        opcode_index,
        inputs,
        outputs,
        builtin_options,
        custom_options,
        custom_options_format,
        mutating_variable_inputs,
        intermediates,
        large_custom_options_offset,
        large_custom_options_size,
        builtin_options_2,
        debug_metadata_index,
    } = op;
    let inputs = inputs.as_ref().map(|x| fbb.create_vector(x));
    let outputs = outputs.as_ref().map(|x| fbb.create_vector(x));
    let builtin_options_type = builtin_options.builtin_options_type();
    let builtin_options = builtin_options.pack(fbb);
    let custom_options = custom_options
        .as_ref()
        .map(|x| create_aligned_bytes(fbb, x));
    let mutating_variable_inputs = mutating_variable_inputs
        .as_ref()
        .map(|x| fbb.create_vector(x));
    let intermediates = intermediates.as_ref().map(|x| fbb.create_vector(x));
    let builtin_options_2_type = builtin_options_2.builtin_options_2_type();
    let builtin_options_2 = builtin_options_2.pack(fbb);
    Operator::create(
        fbb,
        &OperatorArgs {
            opcode_index: *opcode_index,
            inputs,
            outputs,
            builtin_options_type,
            builtin_options,
            custom_options,
            custom_options_format: *custom_options_format,
            mutating_variable_inputs,
            intermediates,
            large_custom_options_offset: *large_custom_options_offset,
            large_custom_options_size: *large_custom_options_size,
            builtin_options_2_type,
            builtin_options_2,
            debug_metadata_index: *debug_metadata_index,
        },
    )
}

#[cfg(feature = "object-api")]
/// Packs `program` as [`executorch::ProgramT::pack`](crate::executorch::ProgramT::pack)
/// does, but with the schema's `force_align: 16` vectors (`Buffer.storage`,
/// `BackendDelegateInlineData.data`) 16-byte aligned; every field written, as
/// [`pack_tflite_model`].
pub fn pack_executorch_program<'b, A: Allocator + 'b>(
    fbb: &mut FlatBufferBuilder<'b, A>,
    program: &crate::executorch::ProgramT,
) -> WIPOffset<crate::executorch::Program<'b>> {
    use crate::executorch::{
        BackendDelegateInlineData, BackendDelegateInlineDataArgs, BackendDelegateInlineDataT,
        Buffer, BufferArgs, BufferT, Program, ProgramArgs, ProgramT,
    };
    let ProgramT {
        version,
        execution_plan,
        constant_buffer,
        backend_delegate_data,
        segments,
        constant_segment,
        mutable_data_segments,
        named_data,
    } = program;
    let execution_plan = execution_plan.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let constant_buffer = constant_buffer.as_ref().map(|x| {
        let w: Vec<_> = x
            .iter()
            .map(|b| {
                let BufferT { storage } = b;
                let storage = storage.as_ref().map(|d| create_aligned_bytes(fbb, d));
                Buffer::create(fbb, &BufferArgs { storage })
            })
            .collect();
        fbb.create_vector(&w)
    });
    let backend_delegate_data = backend_delegate_data.as_ref().map(|x| {
        let w: Vec<_> = x
            .iter()
            .map(|b| {
                let BackendDelegateInlineDataT { data } = b;
                let data = data.as_ref().map(|d| create_aligned_bytes(fbb, d));
                BackendDelegateInlineData::create(fbb, &BackendDelegateInlineDataArgs { data })
            })
            .collect();
        fbb.create_vector(&w)
    });
    let segments = segments.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let constant_segment = constant_segment.as_ref().map(|x| x.pack(fbb));
    let mutable_data_segments = mutable_data_segments.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    let named_data = named_data.as_ref().map(|x| {
        let w: Vec<_> = x.iter().map(|t| t.pack(fbb)).collect();
        fbb.create_vector(&w)
    });
    Program::create(
        fbb,
        &ProgramArgs {
            version: *version,
            execution_plan,
            constant_buffer,
            backend_delegate_data,
            segments,
            constant_segment,
            mutable_data_segments,
            named_data,
        },
    )
}
