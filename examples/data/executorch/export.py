"""Exports this directory's models with ExecuTorch: each model's .pte and its memory plan CSV.

    python export.py [--out DIR] [--models NAME ...] [--check]

For each model (README.md's table) and each variant (default, and `_constprop` with
ExecutorchBackendConfig(do_quant_fusion_and_const_prop=True)): torch.export.export ->
exir.to_edge -> to_executorch (ExecuTorch's default memory planning: greedy, graph inputs
and outputs planned), random weights from torch.manual_seed(0) at construction, eval mode,
batch 1, float32, the example input zeros (values do not change planning).

Writes to DIR (default: target/executorch-export at the repository root):
- `<model>[_constprop].pte`: the program, `et_program.buffer` as ExecuTorch writes it;
- `<model>[_constprop]_greedy.csv`: every memory-planned tensor of the final graph, in the
  format README.md describes (`name,mem_id,offset,size,first,last,dtype,shape`): one row
  per planned TensorSpec, in graph order (graph inputs first), `name` the node that writes
  it (with `.<out argument>` for a node with several outputs), `first`/`last` ExecuTorch's own `spec.lifetime`
  (inclusive node indices of the final graph), `size` the bytes rounded up to 16
  (`spec.allocated_memory`), `offset` ExecuTorch's `spec.mem_offset`;
- `<model>[_constprop].pte.tensors.csv` and `<model>[_constprop].pte.instructions.csv`: the
  map between the .pte and the CSV (examples/data/pte/README.md, "From the .pte to the
  CSV").

`--check` compares every CSV written with the committed one of the same name beside this
script and exits non-zero on any difference (kws_dscnn_greedy.csv must reproduce).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import io
import sys
import time
from pathlib import Path

import torch
from torch import nn

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ALIGN = 16


class DSCNN(nn.Module):
    """DS-CNN-S ("Hello Edge"): conv 10x4 stride 2 to 64 channels, 4 depthwise-separable
    blocks (3x3 depthwise + 1x1 pointwise, each with BatchNorm and ReLU), average pool,
    linear to 12 classes. Input 1x1x49x10 (49 frames of 10 MFCCs)."""

    def __init__(self, channels: int = 64, classes: int = 12, blocks: int = 4):
        super().__init__()
        layers = [nn.Conv2d(1, channels, (10, 4), stride=2, padding=(5, 1)), nn.BatchNorm2d(channels), nn.ReLU()]
        for _ in range(blocks):
            layers += [
                nn.Conv2d(channels, channels, 3, padding=1, groups=channels),
                nn.BatchNorm2d(channels),
                nn.ReLU(),
                nn.Conv2d(channels, channels, 1),
                nn.BatchNorm2d(channels),
                nn.ReLU(),
            ]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            d_model=128, nhead=4, dim_feedforward=512, dropout=0.0, batch_first=True
        )

    def forward(self, src):
        return self.layer(src)


def build(name: str):
    """The model (seeded random weights, eval mode) and its example inputs."""
    torch.manual_seed(0)
    if name in ("mobilenet_v2", "resnet18"):
        import torchvision

        model = getattr(torchvision.models, name)(weights=None)
        inputs = (torch.zeros(1, 3, 224, 224),)
    elif name == "transformer_encoder":
        model = Encoder()
        inputs = (torch.zeros(1, 64, 128),)
    elif name == "kws_dscnn":
        model = DSCNN()
        inputs = (torch.zeros(1, 1, 49, 10),)
    else:
        raise ValueError(name)
    return model.eval(), inputs


MODELS = ["kws_dscnn", "transformer_encoder", "mobilenet_v2", "resnet18"]


def export(name: str, constprop: bool):
    from executorch.exir import ExecutorchBackendConfig, to_edge

    model, inputs = build(name)
    with torch.no_grad():
        ep = torch.export.export(model, inputs)
    edge = to_edge(ep)
    config = ExecutorchBackendConfig(do_quant_fusion_and_const_prop=constprop)
    return to_executorch_with_handles(edge, config)


def to_executorch_with_handles(edge, config):
    """to_executorch, its program's bytes, and for each instruction of the first chain the
    index of the graph node that emitted it.

    The emitter (ExecuTorch's Emitter._add_debug_handle) replaces the debug handle of every
    node that emits an instruction with that instruction's index; nodes that emit nothing
    (placeholders, memory.alloc, getitem, memory.view, output) keep their old handle or none,
    so only call_function nodes with an operator or delegate target are counted, and each
    index must name exactly one of them.
    """
    import operator

    from executorch.exir import memory

    et = edge.to_executorch(config)
    buffer = et.buffer
    nodes = list(et.exported_program().graph_module.graph.nodes)
    silent = {memory.alloc, memory.view, operator.getitem}
    by_handle = {}
    for i, n in enumerate(nodes):
        if n.op == "call_function" and n.target not in silent and n.meta.get("debug_handle") is not None:
            by_handle.setdefault(n.meta["debug_handle"], []).append(i)
    chain = et.executorch_program.execution_plan[0].chains[0]
    instr_nodes = []
    for k in range(len(chain.instructions)):
        found = by_handle.get(k, [])
        if len(found) != 1:
            raise AssertionError(f"instruction {k}: emitted by nodes {found}")
        instr_nodes.append(found[0])
    return et, instr_nodes, buffer


def planned_rows(et):
    """(name, spec) of every memory-planned tensor of the final graph, graph order."""
    import operator

    from executorch.exir import memory
    from executorch.exir.tensor import TensorSpec

    # memory.alloc nodes hold the spec of the op that writes it; memory.view nodes (a
    # view_copy the ReplaceViewCopyWithViewPass made a view) share their base's storage
    # and are not planned; getitem nodes repeat an element of a tuple's specs.
    silent = {memory.alloc, memory.view, operator.getitem}
    gm = et.exported_program().graph_module
    rows, seen = [], set()
    for node in gm.graph.nodes:
        if node.op == "output":
            continue
        if node.op == "call_function" and node.target in silent:
            continue
        spec = node.meta.get("spec")
        specs = list(spec) if isinstance(spec, (list, tuple)) else [spec]
        for i, s in enumerate(specs):
            if not isinstance(s, TensorSpec) or s.const or s.mem_id is None or id(s) in seen:
                continue
            seen.add(id(s))
            rows.append((node.name if len(specs) == 1 else f"{node.name}.{out_names(node, len(specs))[i]}", s))
    return rows


def out_names(node, n: int) -> list[str]:
    """The names of the out arguments of a multi-output node's out variant, in order (for
    `_native_batch_norm_legit_no_training.out` they are out0, out1, out2; for
    `max_pool2d_with_indices.out` they are out and indices)."""
    schema = getattr(node.target, "_schema", None)
    names = [a.name for a in schema.arguments if a.is_out] if schema is not None else []
    if len(names) != n:
        raise AssertionError(f"{node.name}: {n} outputs, out arguments {names}")
    return names


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def plan_csv(rows) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["name", "mem_id", "offset", "size", "first", "last", "dtype", "shape"])
    for name, s in rows:
        w.writerow([
            name, s.mem_id, s.mem_offset, s.allocated_memory, s.lifetime[0], s.lifetime[1],
            dtype_name(s.dtype), "x".join(str(int(d)) for d in s.shape),
        ])
    return out.getvalue()


def instruction_values(chain) -> list[list[int]]:
    """The value indices each instruction reads or writes (TensorList items included)."""
    return [sorted(instruction_args(ins)) for ins in chain.instructions]


def instruction_args(ins) -> set[int]:
    a = ins.instr_args
    if hasattr(a, "args"):  # KernelCall, DelegateCall
        return set(a.args)
    if hasattr(a, "move_from"):
        return {a.move_from, a.move_to}
    if hasattr(a, "value_index"):
        return {a.value_index}
    if hasattr(a, "cond_value_index"):
        return {a.cond_value_index}
    return set()


def tensor_nbytes(t) -> int:
    """A program tensor's bytes rounded up to 16, as ExecuTorch's planner counts them."""
    import torch as _t
    from executorch.exir.tensor import scalar_type_enum

    numel = 1
    for d in t.sizes:
        numel *= int(d)
    dtype = {int(scalar_type_enum(d)): d for d in (
        _t.float32, _t.float64, _t.float16, _t.bfloat16, _t.int8, _t.uint8, _t.int16,
        _t.int32, _t.int64, _t.bool)}[int(t.scalar_type)]
    nbytes = numel * _t.empty((), dtype=dtype).element_size()
    return (nbytes + ALIGN - 1) // ALIGN * ALIGN


def check_map(out_rows, instr_nodes) -> None:
    """The rules README.md states between a row's node lifetime [first, last] and its
    value's instruction span [fi, li] in the .pte (li taken over the value and its views),
    with node(k) the node that emitted instruction k (strictly increasing):
    a graph input (first == 0) has fi == 0; any other tensor node(fi-1) < first <= node(fi)
    (its memory.alloc node comes after the previous instruction's node); and
    node(li) <= last < node(li+1) (getitem nodes after the last instruction, or the output
    node for a graph output, may extend it, never to the next instruction)."""
    node = instr_nodes
    assert all(a < b for a, b in zip(node, node[1:]))
    views = {}
    for r in out_rows:
        if r[10] != "":
            views.setdefault(r[10], []).append(r)
    for r in out_rows:
        if r[1] == "":
            continue
        v, first, last, fi, li = r[0], r[6], r[7], r[8], r[9]
        li = max([li] + [x[9] for x in views.get(v, [])])
        ok_first = fi == 0 if first == 0 else (fi == 0 or node[fi - 1] < first) and first <= node[fi]
        ok_last = node[li] <= last and (li + 1 == len(node) or last < node[li + 1])
        if not (ok_first and ok_last):
            raise AssertionError(f"row {r[1]} {r[2]}: nodes {first}..{last} vs instructions {fi}..{li}")


def side_files(et, instr_nodes, rows) -> tuple[str, str]:
    """The .pte <-> CSV map: per instruction its graph node, per planned tensor its row."""
    from executorch.exir import schema

    program = et.executorch_program
    plan = program.execution_plan[0]
    chain = plan.chains[0]
    nodes = list(et.exported_program().graph_module.graph.nodes)
    instr_node = []
    for k, ins in enumerate(chain.instructions):
        idx = [instr_nodes[k]]
        a = ins.instr_args
        kind = type(a).__name__
        what = ""
        if isinstance(a, schema.KernelCall):
            op = plan.operators[a.op_index]
            what = op.name + (f".{op.overload}" if op.overload else "")
        instr_node.append((k, idx[0], nodes[idx[0]].name, kind, what))

    # value index of each planned tensor in the program: the emitter gives a TensorSpec
    # the allocation it planned, so match (mem_id, offset, shape, dtype) row by row, in the
    # order the values appear.
    values = plan.values
    uses = [[] for _ in values]
    for k, vs in enumerate(instruction_values(chain)):
        for v in vs:
            uses[v].append(k)
            val = values[v].val
            if isinstance(val, schema.TensorList):
                for t in val.items:
                    uses[t].append(k)
    inputs, outputs = set(plan.inputs), set(plan.outputs)
    n = len(chain.instructions)
    by_key = {}
    for vi, ev in enumerate(values):
        t = ev.val
        if isinstance(t, schema.Tensor) and t.allocation_info is not None:
            a = t.allocation_info
            off = a.memory_offset_low | (a.memory_offset_high << 32)
            by_key.setdefault((a.memory_id, off, tuple(t.sizes), int(t.scalar_type)), []).append(vi)

    from executorch.exir.tensor import scalar_type_enum

    t_out = io.StringIO()
    w = csv.writer(t_out, lineterminator="\n")
    w.writerow([
        "value", "csv_row", "name", "mem_id", "offset", "size", "first_node", "last_node",
        "first_instruction", "last_instruction", "view_of_value",
    ])

    def span(v):
        first = 0 if v in inputs or not uses[v] else min(uses[v])
        last = n - 1 if v in outputs or not uses[v] else max(uses[v])
        return first, last

    used_values, row_of_value, out_rows = set(), {}, []
    for r, (name, s) in enumerate(rows, start=1):
        key = (s.mem_id, s.mem_offset, tuple(int(d) for d in s.shape), int(scalar_type_enum(s.dtype)))
        # Several values can share (mem_id, offset, shape, dtype) at different times: the
        # row's value is the one every instruction of which lies inside the row's lifetime
        # (lowest index first: one instruction writing several such outputs, as batch
        # norm's zero-size out1 and out2, creates their values in the row order).
        cands = [
            v for v in by_key.get(key, [])
            if v not in used_values
            and all(s.lifetime[0] <= instr_nodes[k] <= s.lifetime[1] for k in uses[v])
        ]
        if not cands:
            raise AssertionError(f"row {r} {name}: no planned value with {key} used inside {s.lifetime}")
        v = cands[0]
        used_values.add(v)
        row_of_value[v] = (r, s)
        out_rows.append([v, r, name, s.mem_id, s.mem_offset, s.allocated_memory, s.lifetime[0], s.lifetime[1], *span(v), ""])
    # Planned values with no row: views (memory.view) that share a planned tensor's bytes.
    # The emitter gives them their base's allocation: the base is the row at the same
    # (mem_id, offset) written last before the view's first use.
    for key, vs in sorted(by_key.items()):
        for v in vs:
            if v in used_values:
                continue
            first, last = span(v)
            bases = sorted(
                (span(b)[0], b) for b, (r, s) in row_of_value.items()
                if (s.mem_id, s.mem_offset) == key[:2] and span(b)[0] <= first
            )
            if not bases:
                raise AssertionError(f"planned value {v} {key}: no row and no base")
            bases = [bases[-1][1]]
            t = values[v].val
            nbytes = tensor_nbytes(t)
            out_rows.append([v, "", "", key[0], key[1], nbytes, "", "", first, last, bases[0]])
    check_map(out_rows, instr_nodes)
    for row in sorted(out_rows, key=lambda r: r[0]):
        w.writerow(row)

    i_out = io.StringIO()
    w = csv.writer(i_out, lineterminator="\n")
    w.writerow(["instruction", "node", "node_name", "kind", "operator"])
    for row in instr_node:
        w.writerow(row)
    return t_out.getvalue(), i_out.getvalue()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=REPO / "target/executorch-export")
    p.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    p.add_argument("--variants", nargs="+", default=["default", "constprop"], choices=["default", "constprop"])
    p.add_argument("--check", action="store_true", help="compare each CSV with the committed one")
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    bad = 0
    for name in a.models:
        for variant in a.variants:
            stem = name + ("_constprop" if variant == "constprop" else "")
            t0 = time.monotonic()
            et, instr_nodes, buffer = export(name, variant == "constprop")
            rows = planned_rows(et)
            text = plan_csv(rows)
            tensors, instructions = side_files(et, instr_nodes, rows)
            (a.out / f"{stem}.pte").write_bytes(buffer)
            (a.out / f"{stem}_greedy.csv").write_text(text)
            (a.out / f"{stem}.pte.tensors.csv").write_text(tensors)
            (a.out / f"{stem}.pte.instructions.csv").write_text(instructions)
            sizes = et.executorch_program.execution_plan[0].non_const_buffer_sizes
            print(
                f"{stem}: {len(rows)} planned tensors, non_const_buffer_sizes={list(sizes)}, "
                f".pte {len(buffer)} bytes, {time.monotonic() - t0:.1f} s"
            )
            committed = HERE / f"{stem}_greedy.csv"
            if a.check and committed.exists():
                old = committed.read_text()
                if old == text:
                    print(f"  {committed.name}: reproduced exactly")
                else:
                    bad += 1
                    print(f"  {committed.name}: DIFFERS")
                    sys.stdout.writelines(list(difflib.unified_diff(
                        old.splitlines(True), text.splitlines(True), "committed", "exported"))[:40])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
