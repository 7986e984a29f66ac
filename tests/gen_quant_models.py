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
  qdq_chain three QDQ convolutions (3x3, 1x1, depthwise 3x3) with what ORT's quantizer writes
            between them when an activation stays float, as in bench/bench_speed.py's MobileNetV2:
            DequantizeLinear -> Clip -> QuantizeLinear (zero point 128 to 0, one scale),
            DequantizeLinear -> QuantizeLinear (a quantized tensor quantized again) and
            DequantizeLinear -> Relu -> QuantizeLinear; then, in another scale, a Clip our
            rewrite leaves as float. Output `output` (the last DequantizeLinear) and `features`
            (the depthwise convolution's chain, dequantized). Its references come twice: from
            ORT as it runs by default (qdq_chain_OUT.npy) and with ORT's graph optimisations off
            (qdq_chain_noopt_OUT.npy, each node as ONNX defines it): ORT's optimiser replaces the
            DequantizeLinear -> QuantizeLinear pair between zero points 128 and 0 by one
            quantization of another scale, which moves later values by up to two quanta.
  qdq_pool  ResNet's stem in QDQ form with int8 activations: QDQ Conv 3x3 -> Relu -> QuantizeLinear
            (zero point -128) -> DequantizeLinear -> MaxPool 3x3 stride 2 -> QuantizeLinear in the
            same scale -> DequantizeLinear -> QDQ Conv 1x1, added to the MaxPool's output. Output
            `output`; references from ORT by default and with its optimisations off, as qdq_chain.
  qdq_add   residual Adds in QDQ form, as ORT's quantizer writes them when it quantizes Add:
            DequantizeLinear, DequantizeLinear -> Add -> Relu -> QuantizeLinear (uint8, output
            `output`) and DequantizeLinear, DequantizeLinear -> Add -> QuantizeLinear (int8,
            nonzero zero points, output `features`), each of two QDQ convolutions of the input;
            references as qdq_chain (our rewrite makes com.microsoft QLinearAdd of each, computed
            as the float nodes are, so equal to ORT's unoptimised run).

Scales come from the float model's activation ranges on random calibration inputs (fixed
seed). Regenerating needs node and onnxruntime-node in build/node_modules (cd build && npm
install --ignore-scripts onnxruntime-node).

Usage: /usr/bin/python3 tests/gen_quant_models.py [OUT_DIR [NAME...]] (NAME: only these models)
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


class Builder:
    """The nodes and initializers of one test graph, with the two helpers every graph uses."""

    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, a):
        """Adds initializer `name` holding array a; returns its name."""
        self.inits.append(numpy_helper.from_array(a, name))
        return name

    def qdq(self, x, s, z, dtype, out):
        """QuantizeLinear then DequantizeLinear of x in scale s, zero point z of dtype; the
        dequantized tensor is named out."""
        sc, zp = self.const(out + "_s", np.array(s, np.float32)), self.const(out + "_z", np.array(z, dtype))
        self.nodes.append(helper.make_node("QuantizeLinear", [x, sc, zp], [out + "_q"]))
        self.nodes.append(helper.make_node("DequantizeLinear", [out + "_q", sc, zp], [out]))
        return out

    def model(self, name, input_dims, outputs):
        """The checked opset-13 model of these nodes: one float input "input" of input_dims and
        the float outputs (name, dims) in order."""
        vi = lambda n, d: helper.make_tensor_value_info(n, TensorProto.FLOAT, list(d))
        graph = helper.make_graph(self.nodes, name, [vi("input", input_dims)], [vi(n, d) for n, d in outputs],
                                  self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        return model


def qdq_conv(rng, nodes, const, x, xs, cin, cout, k, name, group=1):
    """A QDQ Conv k x k (pads k // 2) of x in scale xs, as ORT's quantizer writes one: int8
    weights per output channel (symmetric, zero points 0) and an int32 bias in scale xs * w_scale,
    each behind a DequantizeLinear; appends the nodes, adds the initializers through const and
    returns the Conv's output name."""
    w = rng.normal(0, 0.3, (cout, cin // group, k, k)).astype(np.float32)
    ws = (np.abs(w).reshape(cout, -1).max(1) / 127.0).astype(np.float32)
    const(name + "_w", np.clip(np.rint(w / ws.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8))
    const(name + "_ws", ws), const(name + "_wz", np.zeros(cout, np.int8))
    bs = (ws * np.float32(xs)).astype(np.float32)
    const(name + "_b", np.rint(rng.normal(0, 0.1, cout) / bs).astype(np.int32)), const(name + "_bs", bs)
    nodes.append(helper.make_node("DequantizeLinear", [name + "_w", name + "_ws", name + "_wz"], [name + "_wdq"], axis=0))
    nodes.append(helper.make_node("DequantizeLinear", [name + "_b", name + "_bs"], [name + "_bdq"], axis=0))
    nodes.append(helper.make_node("Conv", [x, name + "_wdq", name + "_bdq"], [name + "_y"], kernel_shape=[k, k],
                                  pads=[k // 2] * 4, group=group))
    return name + "_y"


def qdq_chain(rng):
    """input [1, 3, 12, 12] -> QDQ Conv 3x3 (8) -> Clip(0, 2) between zero points 128 and 0 ->
    QDQ Conv 1x1 (8) -> DequantizeLinear -> QuantizeLinear (128 to 0) -> QDQ depthwise Conv 3x3
    -> Relu between zero points 128 and 0 -> Clip(0, 1) in a scale of its own -> output."""
    b = Builder()
    nodes, const = b.nodes, b.const

    def q(x, s, z, out):
        nodes.append(helper.make_node("QuantizeLinear", [x, const(out + "_s", np.array(s, np.float32)),
                                                         const(out + "_z", np.array(z, np.uint8))], [out]))
        return out

    def dq(x, s, z, out):
        nodes.append(helper.make_node("DequantizeLinear", [x, const(out + "_s", np.array(s, np.float32)),
                                                           const(out + "_z", np.array(z, np.uint8))], [out]))
        return out

    def conv(x, xs, cin, cout, k, name, group=1):
        return qdq_conv(rng, nodes, const, x, xs, cin, cout, k, name, group)

    def clip(x, lo, hi, out):
        nodes.append(helper.make_node("Clip", [x, const(out + "_lo", np.array(lo, np.float32)),
                                               const(out + "_hi", np.array(hi, np.float32))], [out]))
        return out

    s0, s1, s2, s3 = 1 / 127.5, 0.03, 0.03, 0.02
    x = dq(q("input", s0, 128, "xq"), s0, 128, "xdq")
    y = dq(q(conv(x, s0, 3, 8, 3, "c1"), s1, 128, "c1q"), s1, 128, "c1dq")
    y = dq(q(clip(y, 0.0, 2.0, "clip1"), s1, 0, "clip1q"), s1, 0, "clip1dq")
    y = dq(q(conv(y, s1, 8, 8, 1, "c2"), s2, 128, "c2q"), s2, 128, "c2dq")
    y = dq(q(y, s2, 0, "c2qq"), s2, 0, "c2qdq")
    y = dq(q(conv(y, s2, 8, 8, 3, "c3", group=8), s3, 128, "c3q"), s3, 128, "c3dq")
    nodes.append(helper.make_node("Relu", [y], ["relu3"]))
    f = dq(q("relu3", s3, 0, "relu3q"), s3, 0, "features")
    dq(q(clip(f, 0.0, 1.0, "clip4"), 0.01, 0, "clip4q"), 0.01, 0, "output")
    model = b.model("qdq_chain", (1, 3, 12, 12), [("output", (1, 8, 12, 12)), ("features", (1, 8, 12, 12))])
    return model, rng.uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)


def qdq_pool(rng):
    """input [1, 3, 16, 16] -> QDQ Conv 3x3 (8) -> Relu -> Q/DQ (int8, zero point -128) ->
    MaxPool 3x3 stride 2 pad 1 -> Q/DQ in that scale -> QDQ Conv 1x1 (8) -> Q/DQ -> Add of the
    MaxPool's output -> output."""
    b = Builder()
    nodes, const, qdq = b.nodes, b.const, b.qdq

    def conv(x, xs, cin, cout, k, name):
        return qdq_conv(rng, nodes, const, x, xs, cin, cout, k, name)

    s0, s1, s2 = 1 / 127.5, 0.02, 0.03
    x = qdq("input", s0, 128, np.uint8, "xdq")
    nodes.append(helper.make_node("Relu", [conv(x, s0, 3, 8, 3, "c1")], ["relu1"]))
    y = qdq("relu1", s1, -128, np.int8, "relu1dq")
    nodes.append(helper.make_node("MaxPool", [y], ["pool"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    y = qdq(conv(qdq("pool", s1, -128, np.int8, "pooldq"), s1, 8, 8, 1, "c2"), s2, 0, np.int8, "c2dq")
    nodes.append(helper.make_node("Add", [y, "pool"], ["output"]))
    model = b.model("qdq_pool", (1, 3, 16, 16), [("output", (1, 8, 8, 8))])
    return model, rng.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)


def qdq_add(rng):
    """input [1, 3, 12, 12] -> Q/DQ (uint8) -> QDQ Conv 3x3 (8) and QDQ Conv 1x1 (8), each
    Q/DQ uint8 -> Add -> Relu -> Q/DQ uint8 -> output; the same two convolutions' outputs Q/DQ
    int8 (zero points -3 and 5) -> Add -> Q/DQ int8 (zero point 2) -> features."""
    b = Builder()
    nodes, const, qdq = b.nodes, b.const, b.qdq

    s0 = 1 / 127.5
    x = qdq("input", s0, 128, np.uint8, "xdq")
    c1, c2 = qdq_conv(rng, nodes, const, x, s0, 3, 8, 3, "c1"), qdq_conv(rng, nodes, const, x, s0, 3, 8, 1, "c2")
    nodes.append(helper.make_node("Add", [qdq(c1, 0.011, 120, np.uint8, "a"), qdq(c2, 0.007, 131, np.uint8, "b")], ["sum"]))
    nodes.append(helper.make_node("Relu", ["sum"], ["sum_relu"]))
    qdq("sum_relu", 0.009, 3, np.uint8, "output")
    nodes.append(helper.make_node("Add", [qdq(c1, 0.012, -3, np.int8, "ai"), qdq(c2, 0.006, 5, np.int8, "bi")], ["sumi"]))
    qdq("sumi", 0.013, 2, np.int8, "features")
    model = b.model("qdq_add", (1, 3, 12, 12), [("output", (1, 8, 12, 12)), ("features", (1, 8, 12, 12))])
    return model, rng.uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)


def ort(path, x, outdir, name, optimized=None):
    """Runs ONNX Runtime and saves each output as NAME_<output>.npy (optimized: the path ORT
    writes its optimised graph to, or "--no-optimizations")."""
    feeds = json.dumps({"input": {"dims": list(x.shape), "data": x.ravel().tolist()}})
    cmd = ["node", os.path.join(ROOT, "tests", "ort_run.js"), path] + ([optimized] if optimized else [])
    run = subprocess.run(cmd, input=feeds, capture_output=True, text=True, check=True)
    for out, t in json.loads(run.stdout).items():
        np.save(os.path.join(outdir, "%s_%s.npy" % (name, out)), np.array(t["data"], np.float32).reshape(t["dims"]))


def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(ROOT, "tests", "data", "quant_models")
    os.makedirs(outdir, exist_ok=True)
    only = set(argv[2:])
    for name, make in (("qdq_cnn", qdq_cnn), ("dyn_mlp", dyn_mlp), ("qdq_chain", qdq_chain), ("qdq_pool", qdq_pool),
                       ("qdq_add", qdq_add)):
        # One generator per model (qdq_cnn and dyn_mlp share the first, as they always did), so
        # that making one model alone gives the bytes the full run gives.
        if name == "qdq_cnn":
            rng = np.random.default_rng(7)
        elif name == "qdq_chain":
            rng = np.random.default_rng(11)
        elif name == "qdq_pool":
            rng = np.random.default_rng(13)
        elif name == "qdq_add":
            rng = np.random.default_rng(17)
        if only and name not in only:
            if name == "qdq_cnn":
                qdq_cnn(rng)            # dyn_mlp draws after it
            continue
        model, x = make(rng)
        path = os.path.join(outdir, name + ".onnx")
        onnx.save(model, path)
        np.save(os.path.join(outdir, name + "_x.npy"), x)
        qop = os.path.join(outdir, "qop_cnn.onnx") if name == "qdq_cnn" else None
        ort(path, x, outdir, name, qop)
        if name in ("qdq_chain", "qdq_pool", "qdq_add"):
            ort(path, x, outdir, name + "_noopt", "--no-optimizations")
        if qop:
            np.save(os.path.join(outdir, "qop_cnn_x.npy"), x)
            ort(qop, x, outdir, "qop_cnn")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
