"""Exports views.pte: a program with two static views, which ExecuTorch's emitter elides.

Run with executorch==1.5.1 and torch==2.15.0 (Python 3.11):

    python views.py views.pte
"""
import sys

import torch
from executorch.exir import to_edge


class Views(torch.nn.Module):
    def forward(self, x, y):
        a = x + y
        b = a.view(4, 2)
        c = b * 2.0
        d = c.reshape(8)
        return d + x


program = to_edge(torch.export.export(Views().eval(), (torch.ones(8), torch.ones(8)))).to_executorch()
with open(sys.argv[1], "wb") as f:
    f.write(program.buffer)
