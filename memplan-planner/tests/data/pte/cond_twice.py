"""Exports cond_twice.pte: two `torch.cond`s one after the other, the first one's result
read after the second. ExecuTorch plans each cond's branches from offset 0, so the second
cond's branches are put on the bytes the first one's result still holds: ExecuTorch's own
plan is wrong, and its runtime computes other outputs than PyTorch (see README.md).

Run with executorch==1.5.1 and torch==2.15.0 (Python 3.11):

    python cond_twice.py cond_twice.pte
"""
import sys

import torch
from executorch.exir import to_edge


class CondTwice(torch.nn.Module):
    def forward(self, p, x):
        y = torch.cond(p.sum() > 0, lambda x: (x * 2.0).sin(), lambda x: (x - 1.0).cos(), (x,))
        z = x.exp() * 0.5
        w = torch.cond(
            p.sum() > 0.5,
            lambda x, y: (x * y).sin() + 1.0,
            lambda x, y: (x - y).cos() * 2.0,
            (z, y),
        )
        return w + y


if __name__ == "__main__":
    example = (torch.ones(4), torch.ones(16))
    program = to_edge(torch.export.export(CondTwice().eval(), example)).to_executorch()
    with open(sys.argv[1], "wb") as f:
        f.write(program.buffer)
