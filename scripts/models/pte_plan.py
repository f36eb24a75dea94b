"""Reads and rewrites the memory plan of an ExecuTorch program (.pte).

The plan of a .pte lives in its execution plans: `non_const_buffer_sizes[i]` is the size of
planned buffer (memory id) i (id 0 is reserved and always 0), and every memory-planned
tensor value carries `allocation_info` (memory_id, memory_offset_low, memory_offset_high):
its offset in that buffer. The runtime has no planner: it hands each tensor the bytes at
that offset (HierarchicalAllocator::get_offset_address, which refuses an offset + size past
the buffer's end).

Reading and writing go through ExecuTorch's own serializer
(`executorch.exir._serialize._program.deserialize_pte_binary` / `serialize_pte_binary`),
so a file made here is what ExecuTorch itself would write for that plan. The judges use
this module to print a program's planned-arena bytes and, in their self-tests, to make
programs with a plan of their own: every offset shifted (valid), one tensor moved onto
another tensor used by the same instruction (broken: two live tensors share bytes), or an
offset past the buffer's end (refused).
"""

from __future__ import annotations

from dataclasses import dataclass

from executorch.exir import schema
from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary


@dataclass
class Planned:
    plan: int  # execution plan index
    value: int  # value index in that plan
    mem_id: int
    offset: int


def load(data: bytes):
    return deserialize_pte_binary(data)


def dump(pte) -> bytes:
    return bytes(serialize_pte_binary(pte, extract_delegate_segments=True))


def buffer_sizes(data: bytes) -> dict[str, list[int]]:
    """non_const_buffer_sizes of every execution plan (method), by method name."""
    return {ep.name: list(ep.non_const_buffer_sizes) for ep in load(data).program.execution_plan}


def planned(pte) -> list[Planned]:
    out = []
    for pi, ep in enumerate(pte.program.execution_plan):
        for vi, ev in enumerate(ep.values):
            t = ev.val
            if isinstance(t, schema.Tensor) and t.allocation_info is not None:
                a = t.allocation_info
                out.append(Planned(pi, vi, a.memory_id, a.memory_offset_low | (a.memory_offset_high << 32)))
    return out


def set_offset(pte, plan: int, value: int, offset: int) -> None:
    a = pte.program.execution_plan[plan].values[value].val.allocation_info
    a.memory_offset_low = offset & 0xFFFFFFFF
    a.memory_offset_high = offset >> 32


def shifted(data: bytes, delta: int = 4096) -> bytes:
    """A valid plan: every planned tensor `delta` bytes further, each buffer `delta` larger.
    Overlaps (a view and its base, tensors that reuse bytes) are kept exactly."""
    pte = load(data)
    for p in planned(pte):
        set_offset(pte, p.plan, p.value, p.offset + delta)
    for ep in pte.program.execution_plan:
        ep.non_const_buffer_sizes = [s + delta if i > 0 else s for i, s in enumerate(ep.non_const_buffer_sizes)]
    return dump(pte)


def past_the_end(data: bytes) -> tuple[bytes, str]:
    """The first planned tensor moved to its buffer's end: its bytes lie outside it."""
    pte = load(data)
    p = planned(pte)[0]
    end = pte.program.execution_plan[p.plan].non_const_buffer_sizes[p.mem_id]
    set_offset(pte, p.plan, p.value, end)
    return dump(pte), f"value {p.value} moved from offset {p.offset} to {end}, the end of buffer {p.mem_id}"


def _instruction_values(ins) -> list[int]:
    a = ins.instr_args
    if isinstance(a, (schema.KernelCall, schema.DelegateCall)):
        return list(a.args)
    if isinstance(a, schema.MoveCall):
        return [a.move_from, a.move_to]
    return []


def overlap_candidates(data: bytes):
    """Broken plans, in order: for each instruction, each pair of distinct planned tensors
    it reads or writes (both live at that instruction) at different offsets, the second
    moved onto the first's offset. Yields (program bytes, description)."""
    pte = load(data)
    where = {(p.plan, p.value): p for p in planned(pte)}
    for pi, ep in enumerate(pte.program.execution_plan):
        for ci, chain in enumerate(ep.chains):
            for k, ins in enumerate(chain.instructions):
                touched = []
                for v in _instruction_values(ins):
                    val = ep.values[v].val
                    items = val.items if isinstance(val, schema.TensorList) else [v]
                    for t in items:
                        if (pi, t) in where and t not in touched:
                            touched.append(t)
                for x in touched:
                    for y in touched:
                        px, py = where[(pi, x)], where[(pi, y)]
                        if x == y or px.mem_id != py.mem_id or px.offset == py.offset:
                            continue
                        broken = load(data)
                        set_offset(broken, pi, y, px.offset)
                        yield dump(broken), (
                            f"{ep.name} chain {ci} instruction {k}: value {y} moved from offset "
                            f"{py.offset} onto value {x} (offset {px.offset})"
                        )
