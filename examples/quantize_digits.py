#!/usr/bin/python3
"""Quantizes examples/models/digits.onnx (examples/train_digits.py) to int8 as
examples/models/digits_int8.onnx, the model of the int8 Cortex-M firmware (`make mcu-test`).

The graph is the float one in QDQ form, as ONNX Runtime's static quantizer writes it
(bench/bench_speed.py's quantize_qdq): each Conv reads its input through QuantizeLinear ->
DequantizeLinear, its weights are int8 per output channel (symmetric) and its bias int32 in
scale x_scale * w_scale, each behind a DequantizeLinear, and the Relu after it is followed by
QuantizeLinear -> DequantizeLinear. Activations are int8 (as tflite-micro and CMSIS-NN run them);
after a Relu the zero point is -128, so the Relu goes into the requantisation. The MaxPool keeps
its input's scale (as ORT's quantizer gives it), so it runs on the int8 values. The global
average pool and the 32 x 10 linear head stay float, as the quantizer leaves a Gemm whose
output is the graph's: 1.3 KB of float weights against the convolutions' 14 KB of int8 ones.

Calibration: each activation's scale covers [0, max] (after a Relu) or [min, max] (the input)
over the 1437 training images of train_digits.py's split, run through the float model by ONNX
Runtime. The reference is ONNX Runtime's logits of the int8 model on the 360 held-out images,
tests/data/quant_models/digits_int8_logits.npy, which tests/test_quant_models.py compares ours
with. Needs node and onnxruntime-node in build/node_modules (cd build && npm install
--ignore-scripts onnxruntime-node). Run from anywhere with Debian's python:

    /usr/bin/python3 examples/quantize_digits.py
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import train_digits  # noqa: E402  (after the path it lives on)
from bench_speed import quantize_qdq  # noqa: E402

SRC = os.path.join(ROOT, "examples", "models", "digits.onnx")
DST = os.path.join(ROOT, "examples", "models", "digits_int8.onnx")
REF = os.path.join(ROOT, "tests", "data", "quant_models", "digits_int8_logits.npy")


def ort(path, x):
    """ONNX Runtime's outputs {name: array} of the model at path for the input x."""
    feeds = json.dumps({"input": {"dims": list(x.shape), "data": x.ravel().tolist()}})
    run = subprocess.run(["node", os.path.join(ROOT, "tests", "ort_run.js"), path], input=feeds,
                         capture_output=True, text=True, check=True)
    return {k: np.array(t["data"], np.float32).reshape(t["dims"]) for k, t in json.loads(run.stdout).items()}


def int8_params(lo, hi):
    """Scale and int8 zero point covering [min(lo, 0), max(hi, 0)] with 256 levels."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0 or 1.0)
    return scale, np.int8(np.clip(np.rint(-128 - lo / scale), -128, 127))


def main():
    _, x, y, train_idx, test_idx = train_digits.split()
    model = onnx.load(SRC)
    g = model.graph
    # The ranges of the tensors quantize_qdq quantizes: the input and each Relu's output, which
    # become graph outputs of a copy for the calibration run.
    relus = [n.output[0] for n in g.node if n.op_type == "Relu"]
    pool = {n.output[0]: n.input[0] for n in g.node if n.op_type == "MaxPool"}
    calib = onnx.load(SRC)
    calib.graph.output.extend(helper.make_tensor_value_info(r, onnx.TensorProto.FLOAT, None) for r in relus)
    tmp = DST + ".calib.onnx"
    onnx.save(calib, tmp)
    try:
        outs = ort(tmp, x[train_idx])
    finally:
        os.remove(tmp)
    ranges = {r: (0.0, float(outs[r].max())) for r in relus}
    ranges[g.input[0].name] = (float(x[train_idx].min()), float(x[train_idx].max()))

    def act(name, relu):
        # A MaxPool's output keeps its input's parameters: the pool then runs on int8 values.
        return int8_params(*ranges[pool.get(name, name)])

    quantize_qdq(SRC, DST, act)
    onnx.checker.check_model(onnx.load(DST))
    ref = ort(DST, x[test_idx])["logits"]
    np.save(REF, ref)
    fp = ort(SRC, x[test_idx])["logits"]
    yt = y[test_idx]
    print("wrote %s (%d bytes; the float model %d) and %s" % (DST, os.path.getsize(DST), os.path.getsize(SRC), REF))
    print("held-out accuracy (ONNX Runtime): float %d/%d, int8 %d/%d; int8 and float agree on %d"
          % ((fp.argmax(1) == yt).sum(), len(yt), (ref.argmax(1) == yt).sum(), len(yt),
             (ref.argmax(1) == fp.argmax(1)).sum()))
    for r in relus:
        print("  %s: [0, %.4f], scale %.6g" % (r, ranges[r][1], int8_params(*ranges[r])[0]))


if __name__ == "__main__":
    main()
