"""Runs each model memplan wrote back beside its original in the model's own runtime, on the
same inputs, and checks the outputs agree: TensorFlow Lite Micro
(tflite-micro==0.dev20261023182759) places the tensors at the offline plan's offsets,
ExecuTorch (executorch==1.5.1) at the new allocation_info. Files from the ignored test
`write_back_runtimes`. Usage: python runtime_check.py DIR
"""
import pathlib
import sys

import numpy as np

d = pathlib.Path(sys.argv[1])
failed = 0
rng = np.random.default_rng(0)

from tflite_micro import runtime as tflm  # noqa: E402

for orig in sorted(d.glob("*.tflite")):
    if orig.name.endswith(".memplan.tflite"):
        continue
    mine = orig.with_name(orig.stem + ".memplan.tflite")
    outs = [tflm.Interpreter.from_file(str(f), arena_size=4 << 20) for f in (orig, mine)]
    inputs = []
    k = 0
    while True:
        try:
            det = outs[0].get_input_details(k)
        except Exception:
            break
        inputs.append(rng.integers(-20, 20, size=det["shape"]).astype(det["dtype"]))
        k += 1
    results = []
    for it in outs:
        for k, x in enumerate(inputs):
            it.set_input(x, k)
        it.invoke()
        results.append(it.get_output(0))
    outs[1].print_allocations()
    same = np.array_equal(results[0], results[1])
    failed += not same
    print(f"{orig.name}: {len(inputs)} inputs, output {results[1].ravel()[:6]} {'same' if same else 'DIFFERENT'}")

from executorch.runtime import Runtime  # noqa: E402
import torch  # noqa: E402

rt = Runtime.get()
for orig in sorted(d.glob("*.pte")):
    if orig.name.endswith((".memplan.pte", ".split.pte")):
        continue
    mine = orig.with_name(orig.stem + ".memplan.pte")
    split = orig.with_name(orig.stem + ".split.pte")
    results = []
    inputs = None
    for f in (orig, mine) + ((split,) if split.exists() else ()):
        m = rt.load_program(str(f)).load_method("forward")
        if inputs is None:
            meta = m.metadata
            inputs = [torch.randn(*meta.input_tensor_meta(k).sizes()) for k in range(meta.num_inputs())]
        results.append(m.execute(inputs)[0])
    same = torch.equal(results[0], results[1])
    failed += not same
    print(f"{orig.name}: output {results[1].flatten()[:6].tolist()} {'same' if same else 'DIFFERENT'}")
    if len(results) == 3:
        differs = not torch.equal(results[0], results[2])
        failed += not differs
        print(f"  {split.name} (alias groups ignored): {'different, as expected' if differs else 'SAME: the control proves nothing'}")
print("failed:", failed)
sys.exit(1 if failed else 0)
