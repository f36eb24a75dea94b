"""Exports state.pte: a program with a mutable buffer, the state it keeps from one
invocation to the next.

Run with executorch==1.5.1 and torch==2.15.0 (Python 3.11; the venv `.ci/models.sh`
installs, target/models-venv-executorch):

    python state.py state.pte

Two runs write the same bytes. `torch.export` reads the buffer `acc` (the sum of every
invocation's `2 * x` so far) and ExecuTorch writes the new sum back into it with
`aten::copy_` at the end; the buffer is memory-planned (`alloc_mutable_buffers`, the
default) and has no initial state in the file (ExecuTorch warns that it assumes a
meaningless one), so only its bytes carry it across invocations.
"""
import sys

import torch
from executorch.exir import to_edge


class State(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(16))

    def forward(self, x):
        a = x * 2.0
        self.acc.add_(a)
        b = a.sin() + 1.0
        return (b * self.acc).cos()


program = to_edge(torch.export.export(State().eval(), (torch.ones(16),))).to_executorch()
with open(sys.argv[1], "wb") as f:
    f.write(program.buffer)
