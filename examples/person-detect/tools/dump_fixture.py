#!/usr/bin/env python3
"""Dumps LiteRT's view of TFLM's person detection model, tensor by tensor, for the
layer-by-layer test of the kernels (tests/layer_by_layer.rs).

For both test images (person.bmp, no_person.bmp) and two LiteRT 2.3.0 configurations it
runs the model with `experimental_preserve_all_tensors=True` and writes every tensor's raw
bytes, plus `index.json`: per operator (in execution order) its opcode, options and tensor
indices; per tensor its name, dtype, shape, scales and zero points.

Configurations (directory names under the fixture):
  litert       the default interpreter (`OpResolverType.AUTO`): on x86 LiteRT applies its
               XNNPack delegate, which takes CONV_2D, DEPTHWISE_CONV_2D and RESHAPE;
               AVERAGE_POOL_2D and SOFTMAX run LiteRT's builtin optimized kernels.
  builtin_ref  `OpResolverType.BUILTIN_REF`: TFLite's reference kernels (what TFLM runs).
A third run, `BUILTIN_WITHOUT_DEFAULT_DELEGATES` (builtin optimized kernels, no XNNPack),
is compared with builtin_ref tensor by tensor and the result is recorded in index.json.

The input is fed as TFLM's person_detection_test does: the BMP's pixels as Pillow's
`Image.tobytes()` gives them (generate_cc_arrays.py), copied byte for byte (memcpy) into
the int8 input tensor, i.e. each uint8 pixel reinterpreted as int8.

The model file is TFLM's person_detect.tflite, except that LiteRT refuses it as it is: its
14 depthwise bias tensors (1-D) carry `quantized_dimension = 3`. The script writes a copy
with those fields set to 0 (`person_detect_patched.tflite`, 4-byte patches in place, no
other byte changed) and runs that; the field is not used by the arithmetic of any kernel.

Also `--rust-vectors` prints the expected values of the quantization helpers' unit tests
(src/kernels/quant.rs), computed here independently of the Rust code.

Usage (from the repository root):
  python3.11 -m venv target/person-detect-venv
  target/person-detect-venv/bin/pip install -r examples/person-detect/tools/requirements.txt
  target/person-detect-venv/bin/python examples/person-detect/tools/dump_fixture.py \
      --out target/person-detect-fixture
"""

import argparse
import ctypes
import ctypes.util
import decimal
import json
import math
import struct
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
DATA = REPO / "examples" / "data" / "tflite"
IMAGES = ["person", "no_person"]

ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}
PADDINGS = {0: "SAME", 1: "VALID"}
DTYPES = {9: "int8", 2: "int32", 0: "float32", 3: "uint8"}


def patched_model(raw):
    """The model with every out-of-range `quantized_dimension` set to 0, and their tensors."""
    import tflite

    buf = bytearray(raw)
    model = tflite.Model.GetRootAsModel(buf, 0)
    graph = model.Subgraphs(0)
    patched = []
    for i in range(graph.TensorsLength()):
        t = graph.Tensors(i)
        q = t.Quantization()
        if q is None or q.QuantizedDimension() < len(t.ShapeAsNumpy()):
            continue
        # QuantizationParameters.quantized_dimension is field 6: vtable slot 4 + 2 * 6.
        off = q._tab.Offset(16)
        assert off, "a non-zero quantized_dimension is stored"
        pos = q._tab.Pos + off
        assert struct.unpack_from("<i", buf, pos)[0] == q.QuantizedDimension()
        struct.pack_into("<i", buf, pos, 0)
        patched.append(i)
    return bytes(buf), patched


def options_of(op):
    """The builtin options the kernels need, as a dict."""
    import tflite

    kind = op.BuiltinOptionsType()
    table = op.BuiltinOptions()
    bo = tflite.BuiltinOptions
    if kind == bo.Conv2DOptions:
        o = tflite.Conv2DOptions()
        o.Init(table.Bytes, table.Pos)
        return dict(padding=PADDINGS[o.Padding()], stride_h=o.StrideH(), stride_w=o.StrideW(),
                    dilation_h=o.DilationHFactor(), dilation_w=o.DilationWFactor(),
                    activation=ACTIVATIONS[o.FusedActivationFunction()])
    if kind == bo.DepthwiseConv2DOptions:
        o = tflite.DepthwiseConv2DOptions()
        o.Init(table.Bytes, table.Pos)
        return dict(padding=PADDINGS[o.Padding()], stride_h=o.StrideH(), stride_w=o.StrideW(),
                    dilation_h=o.DilationHFactor(), dilation_w=o.DilationWFactor(),
                    depth_multiplier=o.DepthMultiplier(),
                    activation=ACTIVATIONS[o.FusedActivationFunction()])
    if kind == bo.Pool2DOptions:
        o = tflite.Pool2DOptions()
        o.Init(table.Bytes, table.Pos)
        return dict(padding=PADDINGS[o.Padding()], stride_h=o.StrideH(), stride_w=o.StrideW(),
                    filter_h=o.FilterHeight(), filter_w=o.FilterWidth(),
                    activation=ACTIVATIONS[o.FusedActivationFunction()])
    if kind == bo.SoftmaxOptions:
        o = tflite.SoftmaxOptions()
        o.Init(table.Bytes, table.Pos)
        return dict(beta=float(o.Beta()))
    if kind == bo.ReshapeOptions:
        o = tflite.ReshapeOptions()
        o.Init(table.Bytes, table.Pos)
        return dict(new_shape=[int(v) for v in o.NewShapeAsNumpy()] if o.NewShapeLength() else [])
    raise ValueError(f"options type {kind} not handled")


def describe(raw):
    """Operators and tensors of the model, from the flatbuffer itself."""
    import tflite

    model = tflite.Model.GetRootAsModel(raw, 0)
    graph = model.Subgraphs(0)
    names = {v: k for k, v in tflite.BuiltinOperator.__dict__.items() if not k.startswith("_")}
    ops = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        opcode = names[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        ops.append(dict(index=i, opcode=opcode, version=code.Version(), options=options_of(op),
                        inputs=[int(v) for v in op.InputsAsNumpy()],
                        outputs=[int(v) for v in op.OutputsAsNumpy()]))
    tensors = []
    constants = {}
    for i in range(graph.TensorsLength()):
        t = graph.Tensors(i)
        q = t.Quantization()
        scales = [float(s) for s in q.ScaleAsNumpy()] if q is not None and q.ScaleLength() else []
        zps = [int(z) for z in q.ZeroPointAsNumpy()] if q is not None and q.ZeroPointLength() else []
        data = model.Buffers(t.Buffer()).DataAsNumpy() if t.Buffer() else 0
        const = not isinstance(data, int) and data.size > 0
        tensors.append(dict(index=i, name=t.Name().decode(), dtype=DTYPES[t.Type()],
                            shape=[int(v) for v in t.ShapeAsNumpy()], scales=scales,
                            zero_points=zps,
                            quantized_dimension=q.QuantizedDimension() if q is not None else 0,
                            constant=bool(const)))
        if const:
            constants[i] = data.tobytes()
    return dict(inputs=[int(v) for v in graph.InputsAsNumpy()],
                outputs=[int(v) for v in graph.OutputsAsNumpy()],
                operators=ops, tensors=tensors), constants


def image_input(name):
    """The int8 input tensor of TFLM's person_detection_test for one test image."""
    from PIL import Image

    img = Image.open(DATA / f"{name}.bmp", mode="r")
    pixels = img.tobytes()  # what generate_cc_arrays.py writes into the C array
    assert len(pixels) == 96 * 96, (img.mode, img.size)
    return np.frombuffer(pixels, dtype=np.uint8).view(np.int8).reshape(1, 96, 96, 1)


def run(model_path, resolver, image):
    from ai_edge_litert import interpreter as litert

    it = litert.Interpreter(model_path=str(model_path),
                            experimental_op_resolver_type=getattr(litert.OpResolverType, resolver),
                            experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], image)
    it.invoke()
    ops = [o["op_name"] for o in it._get_ops_details()]
    return {d["index"]: it.get_tensor(d["index"]).copy() for d in it.get_tensor_details()}, ops


def libm_expf_table(input_scale, beta):
    """LiteRT's optimized int8 softmax table (PopulateSoftmaxLookupTable), computed with
    the same libm `expf` LiteRT's wheel imports: table[255 - v] = expf((-scale * beta) * v)."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.restype = ctypes.c_float
    libm.expf.argtypes = [ctypes.c_float]
    scale = np.float32(-np.float32(input_scale) * np.float32(beta))
    table = np.zeros(256, dtype=np.float32)
    for v in range(256):
        table[255 - v] = libm.expf(float(np.float32(scale * np.float32(v))))
    return table


def dump(out):
    out.mkdir(parents=True, exist_ok=True)
    raw = (DATA / "person_detect.tflite").read_bytes()
    patched, patched_tensors = patched_model(raw)
    model_path = out / "person_detect_patched.tflite"
    model_path.write_bytes(patched)
    index, constants = describe(patched)
    index["model"] = "examples/data/tflite/person_detect.tflite"
    index["patched_quantized_dimension"] = patched_tensors
    index["input_feeding"] = "Pillow Image.tobytes() of the BMP, each uint8 byte reinterpreted as int8 (memcpy), as TFLM's person_detection_test"

    (out / "const").mkdir(exist_ok=True)
    for i, data in constants.items():
        (out / "const" / f"t{i}.bin").write_bytes(data)
        index["tensors"][i]["file"] = f"const/t{i}.bin"

    configs = {"litert": "AUTO", "builtin_ref": "BUILTIN_REF"}
    index["configs"] = {}
    for cfg, resolver in configs.items():
        index["configs"][cfg] = dict(resolver=resolver, images={})
        for name in IMAGES:
            tensors, ops = run(model_path, resolver, image_input(name))
            d = out / cfg / name
            d.mkdir(parents=True, exist_ok=True)
            for i, t in index_tensors(index):
                arr = tensors[i]
                if t["constant"]:
                    assert arr.tobytes() == constants[i], f"tensor {i}: interpreter and file differ"
                    continue
                (d / f"t{i}.bin").write_bytes(arr.tobytes())
            scores = [int(v) for v in tensors[index["outputs"][0]].reshape(-1)]
            index["configs"][cfg]["images"][name] = dict(dir=f"{cfg}/{name}", scores=scores)
            index["configs"][cfg]["executed_nodes"] = ops
            print(f"{cfg:12} {name:10} scores {scores}")

    # The builtin optimized kernels without XNNPack, compared with the reference kernels.
    compare = {}
    for name in IMAGES:
        opt, _ = run(model_path, "BUILTIN_WITHOUT_DEFAULT_DELEGATES", image_input(name))
        ref, _ = run(model_path, "BUILTIN_REF", image_input(name))
        compare[name] = sorted(i for i in ref if not np.array_equal(opt[i], ref[i]))
        print(f"builtin optimized vs reference, {name}: tensors that differ: {compare[name]}")
    index["builtin_optimized_vs_reference_differing_tensors"] = compare

    sm = next(o for o in index["operators"] if o["opcode"] == "SOFTMAX")
    in_scale = index["tensors"][sm["inputs"][0]]["scales"][0]
    table = libm_expf_table(in_scale, sm["options"]["beta"])
    (out / "softmax_expf_table.bin").write_bytes(table.tobytes())
    index["softmax_expf_table"] = "softmax_expf_table.bin"

    (out / "index.json").write_text(json.dumps(index, indent=1))
    print(f"wrote {out}")


def index_tensors(index):
    return [(t["index"], t) for t in index["tensors"]]


# ---------------------------------------------------------------------------------------
# Independent expected values for the Rust unit tests of the quantization helpers.

def round_half_away(fr):
    """Round a Fraction to the nearest integer, ties away from zero (std::round)."""
    n = math.floor(abs(fr) + Fraction(1, 2))
    return n if fr >= 0 else -n


def quantize_multiplier(d):
    """TFLite's QuantizeMultiplier, from Python's exact math.frexp and Fraction arithmetic."""
    if d == 0.0:
        return 0, 0
    q, shift = math.frexp(d)
    q_fixed = round_half_away(Fraction(q) * (1 << 31))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        shift, q_fixed = 0, 0
    return q_fixed, shift


def mbqm_double(x, m, shift):
    """MultiplyByQuantizedMultiplier, double rounding, in exact Fractions."""
    left = max(shift, 0)
    right = max(-shift, 0)
    a = x * (1 << left)
    if a == m == -(1 << 31):
        hi = (1 << 31) - 1
    else:
        # SaturatingRoundingDoublingHighMul: (a m + 2^30) / 2^31 for a m >= 0 and
        # (a m + 1 - 2^30) / 2^31 otherwise, C's truncating division: floor(a m / 2^31 + 1/2).
        hi = math.floor(Fraction(a * m, 1 << 31) + Fraction(1, 2))
    # RoundingDivideByPOT: round(hi / 2^right), ties away from zero.
    return round_half_away(Fraction(hi, 1 << right))


def mbqm_single(x, m, shift):
    """MultiplyByQuantizedMultiplier with TFLITE_SINGLE_ROUNDING: floor(x m / 2^(31-shift) + 1/2)."""
    return math.floor(Fraction(x * m, 1 << (31 - shift)) + Fraction(1, 2))


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", float(v)))[0]


def rust_vectors():
    raw = (DATA / "person_detect.tflite").read_bytes()
    index, _ = describe(raw)
    tensors = index["tensors"]
    print("// Generated by examples/person-detect/tools/dump_fixture.py --rust-vectors:")
    print("// Python's math.frexp and exact fractions.Fraction rounding (QuantizeMultiplier),")
    print("// and numpy float32 arithmetic (XNNPack's scales); see that script.")
    rows = []
    for op in index["operators"]:
        if op["opcode"] not in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            continue
        si = tensors[op["inputs"][0]]["scales"][0]
        so = tensors[op["outputs"][0]]["scales"][0]
        for c, sf in enumerate(tensors[op["inputs"][1]]["scales"]):
            if c % 37 == 0:  # a sample of every layer's channels
                d = float(si) * float(sf) / float(so)  # in double, as TFLite's Prepare
                m, s = quantize_multiplier(d)
                x = np.float32(np.float32(si) * np.float32(sf)) / np.float32(so)
                rows.append((f32_bits(si), f32_bits(sf), f32_bits(so), m, s, f32_bits(x)))
    print("/// (input scale, filter scale, output scale, multiplier, shift, XNNPack's f32 scale), f32 as bits.")
    print(f"const MODEL_SCALES: [(u32, u32, u32, i32, i32, u32); {len(rows)}] = [")
    for r in rows:
        print("    (0x%08x, 0x%08x, 0x%08x, %d, %d, 0x%08x)," % r)
    print("];")

    edge = [1.0, 0.5, 0.25, 0.75, 1.5, 2.0 ** -31, 2.0 ** -32, 2.0 ** -40, 0.9999999999999999,
            (2.0 ** 31 - 0.5) / 2.0 ** 31, 3.0, 1e-5, 123.456, 0.0]
    print("/// (real multiplier as f64 bits, multiplier, shift)")
    print(f"const EDGE_MULTIPLIERS: [(u64, i32, i32); {len(edge)}] = [")
    for d in edge:
        m, s = quantize_multiplier(d)
        print("    (0x%016x, %d, %d)," % (struct.unpack("<Q", struct.pack("<d", d))[0], m, s))
    print("];")

    rng = np.random.default_rng(7)
    cases = []
    for _ in range(40):
        x = int(rng.integers(-(1 << 24), 1 << 24))
        m = int(rng.integers(1 << 30, (1 << 31) - 1))
        s = int(rng.integers(-20, 3))
        cases.append((x, m, s))
    cases += [(5, 1 << 30, -1), (-5, 1 << 30, -1), (3, 1 << 30, -1), (-3, 1 << 30, -1),
              (1, 1 << 30, 0), (-1, 1 << 30, 0), (-(1 << 31), (1 << 31) - 1, 0), (12345, 1518500250, -7)]
    print("/// (x, multiplier, shift, double rounding, single rounding)")
    print(f"const MULTIPLY_CASES: [(i32, i32, i32, i32, i32); {len(cases)}] = [")
    for x, m, s in cases:
        print(f"    ({x}, {m}, {s}, {mbqm_double(x, m, s)}, {mbqm_single(x, m, s)}),")
    print("];")

    # Softmax (PreprocessSoftmaxScaling, CalculateInputRadius), double rounding flavour.
    print("/// (beta as f64 bits, input scale as f32 bits, input_multiplier, input_left_shift, diff_min)")
    sm_cases = [(1.0, tensors[31]["scales"][0]), (1.0, 1.0 / 16), (0.5, 0.1), (1.0, 0.00390625)]
    print(f"const SOFTMAX_CASES: [(u64, u32, i32, i32, i32); {len(sm_cases)}] = [")
    for beta, scale in sm_cases:
        scale32 = float(np.float32(scale))
        real = min(beta * scale32 * (1 << (31 - 5)), (1 << 31) - 1.0)
        m, s = quantize_multiplier(real)
        radius = math.floor(Fraction(((1 << 5) - 1) * (1 << (31 - 5)), 1 << s))
        print("    (0x%016x, 0x%08x, %d, %d, %d)," % (struct.unpack("<Q", struct.pack("<d", beta))[0],
                                                   f32_bits(scale32), m, s, -radius))
    print("];")

    # XNNPack's fp32 requantization: numpy float32 arithmetic, np.rint (ties to even).
    print("/// (acc, f32 scale bits, expected round_ties_even(f32(acc) * scale) clamped to i32)")
    fcases = []
    for _ in range(40):
        acc = int(rng.integers(-(1 << 31), (1 << 31) - 1)) >> int(rng.integers(0, 24))
        sc = np.float32(rng.uniform(1e-4, 2.0))
        fcases.append((acc, sc))
    fcases += [(1, np.float32(0.5)), (3, np.float32(0.5)), (-1, np.float32(0.5)), (-3, np.float32(0.5)),
               (16777217, np.float32(1.0)), (-16777219, np.float32(0.25)), ((1 << 31) - 1, np.float32(1.0 / 3))]
    print(f"const FP32_CASES: [(i32, u32, i64); {len(fcases)}] = [")
    for acc, sc in fcases:
        v = np.float32(np.float32(acc) * sc)
        print("    (%d, 0x%08x, %d)," % (acc, f32_bits(sc), int(np.rint(v))))
    print("];")

    # exp, correctly rounded to f32 with 60-digit decimal arithmetic.
    decimal.getcontext().prec = 60
    xs = [np.float32(v) for v in rng.uniform(-20.0, 5.0, 40)] + [np.float32(-1.0), np.float32(1.0),
                                                                 np.float32(-87.5), np.float32(-0.01251875)]
    print("/// (x as f32 bits, exp(x) correctly rounded to f32, as bits)")
    print(f"const EXPF_CASES: [(u32, u32); {len(xs)}] = [")
    for x in xs:
        e = decimal.Decimal(float(x)).exp()
        f = np.float32(float(e))
        near = [np.nextafter(f, np.float32(-1)), f, np.nextafter(f, np.float32(np.inf))]
        best = min(near, key=lambda c: abs(decimal.Decimal(float(c)) - e))
        print("    (0x%08x, 0x%08x)," % (f32_bits(x), f32_bits(best)))
    print("];")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=REPO / "target" / "person-detect-fixture")
    p.add_argument("--rust-vectors", action="store_true", help="print the unit tests' expected values")
    a = p.parse_args()
    if a.rust_vectors:
        rust_vectors()
    else:
        dump(a.out)


if __name__ == "__main__":
    sys.exit(main())
