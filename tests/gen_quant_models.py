#!/usr/bin/python3
"""Writes quantized models with ONNX Runtime's outputs as the reference into OUT_DIR (default
tests/data/quant_models): NAME.onnx, NAME_x.npy (the graph input `input`) and NAME_OUT.npy, ORT's
output OUT (`output`; the CNNs also give `features`, the last convolution's 3072 values).

  qdq_cnn   a small CNN (3x3 convs with Relu, a strided one, a 1x1 one, global average pooling,
            a linear layer as MatMul) written in torch with fake quantization and exported by
            torch.onnx at opset 13: QuantizeLinear/DequantizeLinear pairs, uint8 activations,
            int8 weights per output channel (axis 0; per tensor for the MatMul). torch exports
            each weight as QuantizeLinear of the float weight and a float bias; the script then
            stores them as ONNX Runtime's quantizer does (int8 weight initializers, the bias as
            DequantizeLinear of int32 values round(b / (x_scale * w_scale))).
  qop_cnn   the graph ONNX Runtime runs for qdq_cnn, as it writes it when asked
            (optimizedModelFilePath): QLinearConv and QLinearMatMul (a QOperator model).
  dyn_mlp   a dynamically quantized MLP, as ORT's quantize_dynamic writes one: per layer
            DynamicQuantizeLinear, MatMulInteger with int8 weights, Cast, the scales multiplied
            in, the bias added, Relu between the layers.

Scales come from the float model's activation ranges on random calibration inputs (fixed
seed). Regenerating needs node and onnxruntime-node in build/node_modules (cd build && npm
install --ignore-scripts onnxruntime-node).

Usage: /usr/bin/python3 tests/gen_quant_models.py [OUT_DIR]
"""
import io
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def act_params(lo, hi):
    """uint8 scale and zero point covering [min(lo, 0), max(hi, 0)]."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 or 1.0
    return float(scale), int(round(-lo / scale))


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.c3 = torch.nn.Conv2d(16, 24, 1)
        self.c4 = torch.nn.Conv2d(24, 24, 3, padding=1, groups=3)
        self.fc = torch.nn.Parameter(torch.randn(24, 10) * 0.3)
        self.q = None                   # activation (scale, zero point) per point, once calibrated
        self.ranges = []

    def fq(self, i, x):
        if self.q is None:
            self.ranges.append((float(x.min()), float(x.max())))
            return x
        s, z = self.q[i]
        return torch.fake_quantize_per_tensor_affine(x, s, z, 0, 255)

    def wq(self, conv):
        """The weight fake-quantized per output channel, symmetric int8 (scales fixed here, so
        that the export holds them as constants)."""
        if self.q is None:
            return conv.weight
        w = conv.weight
        s = torch.tensor((w.detach().abs().amax(dim=(1, 2, 3)) / 127.0).clamp(min=1e-8).tolist())
        return torch.fake_quantize_per_channel_affine(w, s, torch.zeros(w.shape[0], dtype=torch.int32), 0, -128, 127)

    def forward(self, x):
        x = self.fq(0, x)
        x = self.fq(1, F.relu(F.conv2d(x, self.wq(self.c1), self.c1.bias, padding=1)))
        x = self.fq(2, F.relu(F.conv2d(x, self.wq(self.c2), self.c2.bias, stride=2, padding=1)))
        x = self.fq(3, F.conv2d(x, self.wq(self.c3), self.c3.bias))
        f = self.fq(4, F.relu(F.conv2d(x, self.wq(self.c4), self.c4.bias, padding=1, groups=3)))
        x = self.fq(5, F.adaptive_avg_pool2d(f, 1).flatten(1))
        w = self.fc
        if self.q is not None:
            w = torch.fake_quantize_per_tensor_affine(w, float(w.detach().abs().max()) / 127.0, 0, -128, 127)
        return self.fq(6, torch.matmul(x, w)), f


def fold_weights(model):
    """QuantizeLinear of a float initializer becomes the int8 initializer it computes, and a
    float Conv bias becomes DequantizeLinear of int32 round(b / (x_scale * w_scale))."""
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    consts = {}
    for n in g.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    value = lambda name: inits[name] if name in inits else consts.get(name)
    producer = {o: n for n in g.node for o in n.output}
    keep, new_inits = [], []
    for n in g.node:
        if n.op_type == "QuantizeLinear" and value(n.input[0]) is not None and value(n.input[0]).dtype == np.float32:
            x, s, z = value(n.input[0]), value(n.input[1]), value(n.input[2])
            axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
            shape = [1] * x.ndim
            if s.size > 1:
                shape[axis] = s.size
            q = np.clip(np.rint(x / s.reshape(shape)) + z.reshape(shape).astype(np.int32), -128, 127).astype(np.int8)
            new_inits.append(numpy_helper.from_array(q, n.output[0]))
            continue
        keep.append(n)
    for n in keep:
        if n.op_type != "Conv" or len(n.input) < 3 or value(n.input[2]) is None:
            continue
        dx, dw = producer[n.input[0]], producer[n.input[1]]
        xs, ws = value(dx.input[1]), value(dw.input[1])
        bs = (xs * ws).astype(np.float32).reshape(-1)
        bq = np.rint(value(n.input[2]) / bs).astype(np.int32)
        name = n.input[2] + "_quantized"
        new_inits += [numpy_helper.from_array(bq, name), numpy_helper.from_array(bs, name + "_scale")]
        dq = helper.make_node("DequantizeLinear", [name, name + "_scale"], [name + "_dq"], axis=0)
        keep.insert(keep.index(n), dq)
        n.input[2] = name + "_dq"
    del g.node[:]
    g.node.extend(keep)
    g.initializer.extend(new_inits)
    used = {i for n in g.node for i in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    return model


def qdq_cnn(rng):
    torch.manual_seed(3)
    net = Cnn().eval()
    calib = torch.from_numpy(rng.uniform(-1, 1, (8, 3, 16, 16)).astype(np.float32))
    with torch.no_grad():
        net(calib)
    net.q = [act_params(lo, hi) for lo, hi in net.ranges]
    x = rng.uniform(-1, 1, (2, 3, 16, 16)).astype(np.float32)
    buf = io.BytesIO()
    torch.onnx.export(net, torch.from_numpy(x), buf, opset_version=13, input_names=["input"],
                      output_names=["output", "features"], do_constant_folding=True)
    model = fold_weights(onnx.load_from_string(buf.getvalue()))
    onnx.checker.check_model(model)
    return model, x


def dyn_mlp(rng):
    """x [4, 32] -> Linear(32, 48) -> Relu -> Linear(48, 10), quantized dynamically."""
    nodes, inits = [], []
    sizes = [32, 48, 10]
    x = "input"
    for i in range(2):
        w = rng.normal(0, 0.3, (sizes[i], sizes[i + 1])).astype(np.float32)
        b = rng.normal(0, 0.1, sizes[i + 1]).astype(np.float32)
        ws = np.float32(np.abs(w).max() / 127.0)
        inits += [numpy_helper.from_array(np.clip(np.rint(w / ws), -127, 127).astype(np.int8), "W%d" % i),
                  numpy_helper.from_array(np.array(ws, np.float32), "W%d_scale" % i),
                  numpy_helper.from_array(np.array(0, np.int8), "W%d_zp" % i),
                  numpy_helper.from_array(b, "B%d" % i)]
        p = "l%d_" % i
        nodes += [helper.make_node("DynamicQuantizeLinear", [x], [p + "xq", p + "xs", p + "xz"]),
                  helper.make_node("MatMulInteger", [p + "xq", "W%d" % i, p + "xz", "W%d_zp" % i], [p + "acc"]),
                  helper.make_node("Cast", [p + "acc"], [p + "accf"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [p + "xs", "W%d_scale" % i], [p + "s"]),
                  helper.make_node("Mul", [p + "accf", p + "s"], [p + "y"]),
                  helper.make_node("Add", [p + "y", "B%d" % i], [p + "yb" if i == 0 else "output"])]
        if i == 0:
            nodes.append(helper.make_node("Relu", [p + "yb"], [p + "r"]))
            x = p + "r"
    graph = helper.make_graph(nodes, "dyn_mlp", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [4, 32])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [4, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model, rng.normal(0, 1, (4, 32)).astype(np.float32)


def ort(path, x, outdir, name, optimized=None):
    """Runs ONNX Runtime and saves each output as NAME_<output>.npy."""
    feeds = json.dumps({"input": {"dims": list(x.shape), "data": x.ravel().tolist()}})
    cmd = ["node", os.path.join(ROOT, "tests", "ort_run.js"), path] + ([optimized] if optimized else [])
    run = subprocess.run(cmd, input=feeds, capture_output=True, text=True, check=True)
    for out, t in json.loads(run.stdout).items():
        np.save(os.path.join(outdir, "%s_%s.npy" % (name, out)), np.array(t["data"], np.float32).reshape(t["dims"]))


def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(ROOT, "tests", "data", "quant_models")
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(7)
    for name, make in (("qdq_cnn", qdq_cnn), ("dyn_mlp", dyn_mlp)):
        model, x = make(rng)
        path = os.path.join(outdir, name + ".onnx")
        onnx.save(model, path)
        np.save(os.path.join(outdir, name + "_x.npy"), x)
        qop = os.path.join(outdir, "qop_cnn.onnx") if name == "qdq_cnn" else None
        ort(path, x, outdir, name, qop)
        if qop:
            np.save(os.path.join(outdir, "qop_cnn_x.npy"), x)
            ort(qop, x, outdir, "qop_cnn")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
