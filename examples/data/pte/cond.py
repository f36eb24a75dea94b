"""Exports cond.pte: a program whose `torch.cond` ExecuTorch's emitter lays out with
JumpFalseCalls and hands each branch's result to the cond's output with a MoveCall.

Run with executorch==1.5.1 and torch==2.15.0 (Python 3.11; the venv `.ci/models.sh`
installs, target/models-venv-executorch):

    python cond.py cond.pte

Two runs write the same bytes.

After the cond, two new tensors are computed before the cond's output is read, so a plan
that reuses the branch result's bytes once the MoveCall has run computes a wrong output.
The predicate is `p.sum() > 0`: the judge's seeded inputs take both branches.
"""
import sys

import torch
from executorch.exir import to_edge


class Cond(torch.nn.Module):
    def forward(self, p, x):
        def true_branch(x):
            return ((x * 2.0) + 1.0).sin()

        def false_branch(x):
            a = x - 3.0
            return (a * a).cos()

        y = torch.cond(p.sum() > 0, true_branch, false_branch, (x,))
        z = x.cos() * 3.0
        w = z.exp()
        return w + y


example = (torch.ones(4), torch.ones(16))
program = to_edge(torch.export.export(Cond().eval(), example)).to_executorch()
with open(sys.argv[1], "wb") as f:
    f.write(program.buffer)
