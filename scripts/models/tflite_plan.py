"""Reads and writes a .tflite model's `OfflineMemoryAllocation` metadata, as TFLM reads it.

The judges use it to report the plan a written model carries (its extent, the bytes TFLM's
head must then take) and their self-tests use it to make files with a plan of their own: a
valid one (every planned tensor its own bytes) and a broken one (one tensor moved onto the
bytes of another tensor live at the same operator).

The format (TFLM `micro/docs/memory_management.md`, read by
`AllocationInfoBuilder::GetOfflinePlannedOffsets` in `micro_allocation_info.cc`): a metadata
entry named exactly "OfflineMemoryAllocation" whose buffer holds 32-bit little-endian words
[version, number of subgraphs, n, offset_0 .. offset_{n-1}], one offset per tensor of every
subgraph in order (n must equal the model's tensor count, or TFLM refuses the model), each a
byte offset from the start of the arena's head, or -1 for "plan this tensor online".

Only `flatbuffers` and TFLM's generated schema module are used (both in
requirements-tflite.txt); nothing here runs a model.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import flatbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

METADATA_NAME = b"OfflineMemoryAllocation"
ONLINE = -1
# MicroArenaBufferAlignment() in TFLM's micro_arena_constants.cc: every planned size is
# rounded up to it (AlignSizeUp in CreatePlan, micro_allocator.cc).
ARENA_ALIGNMENT = 16

# TfLiteType sizes as TFLM's TfLiteEvalTensorByteLength counts them (schema TensorType ids).
_TYPE_BYTES = {
    schema.TensorType.FLOAT32: 4,
    schema.TensorType.FLOAT16: 2,
    schema.TensorType.INT32: 4,
    schema.TensorType.UINT8: 1,
    schema.TensorType.INT64: 8,
    schema.TensorType.BOOL: 1,
    schema.TensorType.INT16: 2,
    schema.TensorType.INT8: 1,
    schema.TensorType.FLOAT64: 8,
    schema.TensorType.UINT64: 8,
    schema.TensorType.UINT32: 4,
    schema.TensorType.UINT16: 2,
}


@dataclass
class OfflinePlan:
    version: int
    subgraphs: int
    offsets: list[int]
    metadata_index: int
    buffer_index: int


def load(data: bytes) -> schema.ModelT:
    """The model as TFLM's generated object API reads it."""
    return schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))


def read_offline_plan(data: bytes) -> OfflinePlan | None:
    """The model's offline plan, read as TFLM reads it, or None when it has none."""
    model = schema.Model.GetRootAsModel(data, 0)
    for i in range(model.MetadataLength()):
        meta = model.Metadata(i)
        if meta.Name() != METADATA_NAME:
            continue
        buf = model.Buffers(meta.Buffer())
        raw = bytes(buf.DataAsNumpy()) if buf.DataLength() else b""
        if buf.DataLength() == 0 and buf.Offset() != 0:
            raw = data[buf.Offset() : buf.Offset() + buf.Size()]
        version, subgraphs, n = struct.unpack_from("<3I", raw, 0)
        offsets = list(struct.unpack_from(f"<{n}i", raw, 12))
        return OfflinePlan(version, subgraphs, offsets, i, meta.Buffer())
    return None


def tensor_bytes(tensor: schema.TensorT) -> int:
    n = 1
    for d in tensor.shape if tensor.shape is not None else []:
        n *= int(d)
    return n * _TYPE_BYTES[tensor.type]


def align_up(n: int, a: int = ARENA_ALIGNMENT) -> int:
    return (n + a - 1) // a * a


def planned_tensors(model: schema.ModelT) -> list[tuple[int, int, int]]:
    """(global tensor index, subgraph, tensor) of every tensor TFLM plans in the head.

    TFLM plans a tensor when it has no data in the flatbuffer, is not a variable and has a
    non-zero byte length (`needs_allocating` in InitializeAllocationInfo).
    """
    out = []
    g = 0
    for si, sg in enumerate(model.subgraphs):
        for ti, t in enumerate(sg.tensors):
            buf = model.buffers[t.buffer] if t.buffer < len(model.buffers) else None
            has_data = buf is not None and (
                (buf.data is not None and len(buf.data) > 0) or buf.offset > 1
            )
            if not has_data and not t.isVariable and tensor_bytes(t) != 0:
                out.append((g, si, ti))
            g += 1
    return out


def plan_extent(data: bytes) -> int | None:
    """max(offset + aligned size) over the tensors the offline plan places, or None."""
    plan = read_offline_plan(data)
    if plan is None:
        return None
    model = load(data)
    extent = 0
    for g, si, ti in planned_tensors(model):
        off = plan.offsets[g]
        if off != ONLINE:
            size = align_up(tensor_bytes(model.subgraphs[si].tensors[ti]))
            extent = max(extent, off + size)
    return extent


def _pack_buffer_aligned(self, builder):
    """BufferT.Pack with the data vector aligned to 16 bytes, as the TFLite converter aligns
    it (`force_align: 16` in the schema; the generated Python code ignores it)."""
    data = None
    if self.data is not None:
        raw = bytes(bytearray(self.data))
        builder.StartVector(1, len(raw), 16)
        builder.head = builder.head - len(raw)
        builder.Bytes[builder.head : builder.head + len(raw)] = raw
        data = builder.EndVector()
    schema.BufferStart(builder)
    if data is not None:
        schema.BufferAddData(builder, data)
    schema.BufferAddOffset(builder, self.offset)
    schema.BufferAddSize(builder, self.size)
    return schema.BufferEnd(builder)


def pack(model: schema.ModelT) -> bytes:
    schema.BufferT.Pack = _pack_buffer_aligned
    builder = flatbuffers.Builder(1 << 20)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def with_offline_plan(data: bytes, offsets: list[int]) -> bytes:
    """The same model with `offsets` as its OfflineMemoryAllocation (replaced or added)."""
    model = load(data)
    words = struct.pack(f"<3I{len(offsets)}i", 1, len(model.subgraphs), len(offsets), *offsets)
    plan = read_offline_plan(data)
    if plan is not None:
        model.buffers[plan.buffer_index].data = list(words)
    else:
        buf = schema.BufferT()
        buf.data = list(words)
        model.buffers.append(buf)
        meta = schema.MetadataT()
        meta.name = METADATA_NAME
        meta.buffer = len(model.buffers) - 1
        model.metadata = (model.metadata or []) + [meta]
    return pack(model)


def naive_offsets(data: bytes, reverse: bool = False) -> list[int]:
    """A valid offline plan: every tensor TFLM plans gets bytes of its own, end to end, in
    tensor order (the last planned tensor first with `reverse`)."""
    model = load(data)
    total = sum(len(sg.tensors) for sg in model.subgraphs)
    offsets = [ONLINE] * total
    at = 0
    planned = planned_tensors(model)
    for g, si, ti in reversed(planned) if reverse else planned:
        offsets[g] = at
        at += align_up(tensor_bytes(model.subgraphs[si].tensors[ti]))
    return offsets


def overlap_candidates(data: bytes, offsets: list[int]):
    """Broken versions of `offsets`, in order: for each operator, each pair of distinct
    planned tensors it reads or writes (so both are live at that operator), the second
    moved onto the first's bytes. Yields (broken offsets, description)."""
    model = load(data)
    planned = {(si, ti): g for g, si, ti in planned_tensors(model)}
    for si, sg in enumerate(model.subgraphs):
        for oi, op in enumerate(sg.operators):
            touched = []
            for t in list(op.inputs) + list(op.outputs):
                if t >= 0 and (si, t) in planned and t not in touched:
                    touched.append(t)
            for x in touched:
                for y in touched:
                    if x == y:
                        continue
                    a, b = planned[(si, x)], planned[(si, y)]
                    broken = list(offsets)
                    broken[b] = offsets[a]
                    yield broken, (
                        f"operator {oi}: tensor {b} `{(sg.tensors[y].name or b'').decode()}` moved onto "
                        f"tensor {a} `{(sg.tensors[x].name or b'').decode()}` (offset {offsets[a]})"
                    )


def main(argv: list[str]) -> int:
    """`python tflite_plan.py show MODEL.tflite`: the offline plan a model carries.
    `python tflite_plan.py naive IN.tflite OUT.tflite`: IN with an offline plan of our own
    (every planned tensor its own bytes), the stand-in for memplan's write-back that
    .ci/models.sh's self-test mode judges."""
    if len(argv) == 2 and argv[0] == "show":
        data = open(argv[1], "rb").read()
        plan = read_offline_plan(data)
        if plan is None:
            print(f"{argv[1]}: no OfflineMemoryAllocation")
        else:
            print(f"{argv[1]}: version {plan.version}, {plan.subgraphs} subgraph(s), offsets {plan.offsets}, extent {plan_extent(data)}")
        return 0
    if len(argv) == 3 and argv[0] == "naive":
        data = open(argv[1], "rb").read()
        out = with_offline_plan(data, naive_offsets(data))
        open(argv[2], "wb").write(out)
        print(f"{argv[2]}: {argv[1]} with our own offline plan, extent {plan_extent(out)} bytes")
        return 0
    print(main.__doc__)
    return 2


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
