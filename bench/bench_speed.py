#!/usr/bin/python3
"""The speed table of issue 11: our reference kernels (no backend) next to ONNX Runtime, at one
and two threads, on the same model and input in one run.

    /usr/bin/python3 bench/bench_speed.py [--rounds N] [--iters N] [--warmup N] [MODEL...]

Models (all exported with random weights, once, into build/bench):
    resnet18      torchvision ResNet-18, 1x3x224x224
    mobilenet_v2  torchvision MobileNetV2, 1x3x224x224
    dbnet         a PP-OCR-det-sized DBNet, 1x3x640x480: torchvision MobileNetV3-Large backbone,
                  FPN with nearest 2x Resize, head with two stride-2 ConvTranspose (made here)
    resnet18_qdq  resnet18 with every Conv in QDQ form (quantize_qdq below): ours runs it as
                  int8 (QLinearConv after the load-time rewrites) and, in the extra row
                  "ours float 1t", as float with the rewrites off; ORT fuses it to QLinearConv
    mobilenet_v2_qdq  mobilenet_v2 quantized the same way (its depthwise convolutions run as
                  the direct depthwise QLinearConv; the ReLU6 Clips stay float, as in ORT)

Columns: median and best ms per run of `build/mmdeploy bench --threads 1` and `--threads 2`,
of the same CLI built with MMD_NO_SIMD (no intrinsics: what firmware and CPUs without our
intrinsics paths get) twice, "portable 1t" with the default CFLAGS (-O2 -g, plain x86-64: SSE2,
no FMA; build/mmdeploy-portable) and "portable native" with -O2 -g -march=native
-mprefer-vector-width=512 -ffp-contract=fast (the Makefile's PORTABLE_NATIVE_FLAGS: the vectoriser's code for this CPU's
vectors and FMA;
build/mmdeploy-portable-native), and of ONNX Runtime (bench/ort_bench.js, intraOpNumThreads 1 and 2); every time also as a multiple of
ORT's 1-thread median (x ORT1: below 1 is faster). The last column is the GFLOP/s our
convolutions achieve at one thread: the Conv/ConvTranspose/FusedConv multiply-adds of the model
(x2) over the time `bench --profile` gives those nodes and the PointwiseDepthwise nodes the
load-time rewrites make of a 1x1 and a depthwise Conv (QLinearConv: integer operations).

A virtual machine's speed drifts by 10-30% within minutes, so the columns are measured side by
side: in each of --rounds rounds (5) every column of a model runs once (--iters timed runs after
--warmup, 20 and 3), in turn. "median ms" is the median of the rounds' medians, "best ms" the
fastest run of all rounds, "x ORT1" the median over the rounds of each round's ratio to ORT's
1-thread median of the same round, and "best x ORT1" the ratio of the best times.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build", "mmdeploy")
PORTABLE = os.path.join(ROOT, "build", "mmdeploy-portable")
PORTABLE_NATIVE = os.path.join(ROOT, "build", "mmdeploy-portable-native")
OUT = os.path.join(ROOT, "build", "bench")

sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gen_torchvision  # noqa: E402  (after the path it lives on)
from bench_backends import run  # noqa: E402


def export_dbnet(path, input_path):
    """A DBNet of PP-OCR's detection size: MobileNetV3-Large features at strides 4, 8, 16, 32,
    an FPN (1x1 to 96 channels, nearest 2x upsampling and adds, 3x3 to 24, upsampled to
    stride 4 and concatenated), and DB's probability head (3x3 conv, BN, ReLU, two 2x2
    stride-2 ConvTranspose, sigmoid)."""
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torchvision

    class DBNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = torchvision.models.mobilenet_v3_large().features
            x = torch.zeros(1, 3, 64, 64)
            self.taps, chans, size = [], [], 64
            for i, layer in enumerate(self.features):
                y = layer(x)
                if y.shape[-1] < x.shape[-1] and i > 0:
                    if x.shape[-1] < size:
                        self.taps.append(i - 1)
                        chans.append(x.shape[1])
                x = y
            self.taps.append(len(self.features) - 1)
            chans.append(x.shape[1])
            self.taps, chans = self.taps[-4:], chans[-4:]
            self.lateral = nn.ModuleList(nn.Conv2d(c, 96, 1, bias=False) for c in chans)
            self.smooth = nn.ModuleList(nn.Conv2d(96, 24, 3, padding=1, bias=False) for _ in chans)
            self.head = nn.Sequential(
                nn.Conv2d(96, 24, 3, padding=1, bias=False), nn.BatchNorm2d(24), nn.ReLU(),
                nn.ConvTranspose2d(24, 24, 2, 2), nn.BatchNorm2d(24), nn.ReLU(),
                nn.ConvTranspose2d(24, 1, 2, 2), nn.Sigmoid())

        def forward(self, x):
            feats = []
            for i, layer in enumerate(self.features):
                x = layer(x)
                if i in self.taps:
                    feats.append(x)
            lat = [l(f) for l, f in zip(self.lateral, feats)]
            for i in range(len(lat) - 2, -1, -1):
                lat[i] = lat[i] + F.interpolate(lat[i + 1], scale_factor=2.0, mode="nearest")
            outs = [s(l) for s, l in zip(self.smooth, lat)]
            outs = [outs[0]] + [F.interpolate(o, scale_factor=2.0 ** i, mode="nearest")
                                for i, o in enumerate(outs[1:], 1)]
            return self.head(torch.cat(outs, 1))

    torch.manual_seed(0)
    model = DBNet().eval()
    x = torch.rand(1, 3, 640, 480)
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"], opset_version=13)
    np.save(input_path, x.numpy())


def quantize_qdq(src, dst, act=None):
    """src (a float model whose Conv nodes have BatchNorm folded in, as torch exports them)
    with every Conv in QDQ form as ONNX Runtime's static quantizer writes it: its input through
    QuantizeLinear/DequantizeLinear (per tensor), int8 weights per output channel, the
    bias as int32 (scale x_scale * w_scale), the output (after its Relu, when one follows)
    quantized and dequantized again. Other ops stay float. act(tensor, relu) gives a tensor's
    scale and zero point (a numpy int8 or uint8 scalar; relu: the tensor is a Relu's output or
    read by a Conv after one); without it the scales are fixed (0.05; uint8 zero point 0
    after a Relu, else 128): a speed model, whose values are not checked
    (examples/quantize_digits.py passes calibrated ones)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    m = onnx.load(src)
    g = m.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    nodes, new, qdq = [], [], {}

    def const(name, value):
        new.append(numpy_helper.from_array(value, name))
        return name

    if act is None:
        def act(x, relu):
            return 0.05, np.uint8(0 if relu else 128)

    def pair(x, relu):
        """The dequantized copy of x (made once per tensor; x itself when it is one: a Conv
        reading a Relu's output reads it renamed) and its scale."""
        if x not in qdq:
            scale, zp = act(x, relu)
            s, z = const(x + "_s", np.array(scale, np.float32)), const(x + "_z", np.array(zp))
            nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [x + "_q"]))
            nodes.append(helper.make_node("DequantizeLinear", [x + "_q", s, z], [x + "_dq"]))
            qdq[x] = qdq[x + "_dq"] = x + "_dq", np.float32(scale)
        return qdq[x]

    relu_after = {}
    for n in g.node:
        if n.op_type == "Conv":
            r = readers.get(n.output[0], [])
            if len(r) == 1 and r[0].op_type == "Relu":
                relu_after[r[0].name] = n
    renamed = {}
    for n in g.node:
        for k, i in enumerate(n.input):
            n.input[k] = renamed.get(i, i)
        if n.op_type == "Conv":
            x, xs = pair(n.input[0], n.input[0] != g.input[0].name)
            w = inits[n.input[1]]
            ws = np.maximum(np.abs(w).reshape(w.shape[0], -1).max(1) / 127.0, 1e-8).astype(np.float32)
            wq = np.clip(np.rint(w / ws.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
            name = n.input[1]
            const(name + "_q", wq), const(name + "_s", ws), const(name + "_z", np.zeros(w.shape[0], np.int8))
            nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name + "_dq"], axis=0))
            ins = [x, name + "_dq"]
            if len(n.input) > 2:
                bs = (ws * xs).astype(np.float32)
                b = n.input[2]
                const(b + "_q", np.rint(inits[b] / bs).astype(np.int32)), const(b + "_s", bs)
                nodes.append(helper.make_node("DequantizeLinear", [b + "_q", b + "_s"], [b + "_dq"], axis=0))
                ins.append(b + "_dq")
            del n.input[:]
            n.input.extend(ins)
            nodes.append(n)
            if n.name not in {c.name for c in relu_after.values()}:
                renamed[n.output[0]] = pair(n.output[0], False)[0]
            continue
        nodes.append(n)
        if n.op_type == "Relu" and n.name in relu_after:
            renamed[n.output[0]] = pair(n.output[0], True)[0]
    for o in g.output:
        if o.name in renamed:
            nodes.append(helper.make_node("Identity", [renamed[o.name]], [o.name]))
    used = {i for n in nodes for i in n.input}
    keep = [t for t in g.initializer if t.name in used] + [t for t in new if t.name in used]
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep)
    onnx.save(m, dst)


def conv_gflop(model_path):
    """Multiply-adds x2 of every Conv, ConvTranspose and FusedConv, from ONNX's inferred shapes."""
    import numpy as np
    import onnx
    from onnx import shape_inference
    m = shape_inference.infer_shapes(onnx.load(model_path))
    shapes = {}
    for v in list(m.graph.value_info) + list(m.graph.output) + list(m.graph.input):
        shapes[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    weights = {t.name: list(t.dims) for t in m.graph.initializer}
    for n in m.graph.node:  # QDQ models: a Conv's weights are a DequantizeLinear of an initializer
        if n.op_type == "DequantizeLinear" and n.input[0] in weights:
            weights[n.output[0]] = weights[n.input[0]]
    total = 0.0
    for n in m.graph.node:
        w = weights.get(n.input[1]) if n.op_type in ("Conv", "ConvTranspose") else None
        # Conv: per output element; ConvTranspose: per input element, C_out/group * taps each.
        dims = shapes.get(n.output[0] if n.op_type == "Conv" else n.input[0]) if w else None
        if not dims:
            continue
        total += 2.0 * float(np.prod(dims)) * float(np.prod(w[1:]))
    return total / 1e9


def conv_ms(model, x):
    """Time per run of the convolution nodes in `bench --profile` at one thread."""
    p = subprocess.run([CLI, "bench", model, "--input", f"input={x}", "--profile", "--iters", "5"],
                       capture_output=True, text=True)
    total = 0.0
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0] in ("Conv", "ConvTranspose", "FusedConv", "PointwiseDepthwise", "QLinearConv"):
            try:
                total += float(parts[2])
            except ValueError:
                pass
    return total


def median(values):
    v = sorted(values)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def combine(runs):
    """One result per column from its rounds: the median of the rounds' medians, the fastest run,
    the median load time, and the median over the rounds of the ratio to ORT's 1-thread median of
    the same round (the rounds where both ran)."""
    ort = runs.get("ORT 1t") or []
    results = {}
    for label, rs in runs.items():
        if not rs:
            continue
        r = dict(rs[0])
        r["median_ms"] = median([x["median_ms"] for x in rs])
        r["min_ms"] = min(x["min_ms"] for x in rs)
        r["load_ms"] = median([x["load_ms"] for x in rs])
        pairs = [x["median_ms"] / o["median_ms"] for x, o in zip(rs, ort)]
        r["ratio"] = median(pairs) if pairs else 0.0
        results[label] = r
    return results


def main(argv):
    opts, names = {"--rounds": 5, "--iters": 20, "--warmup": 3}, []
    args = iter(argv[1:])
    for a in args:
        if a in opts:
            opts[a] = int(next(args, "0"))
        else:
            names.append(a)
    rounds, iters, warmup = max(opts["--rounds"], 1), opts["--iters"], opts["--warmup"]
    names = names or ["resnet18", "mobilenet_v2", "dbnet", "resnet18_qdq", "mobilenet_v2_qdq"]
    for exe in (CLI, PORTABLE, PORTABLE_NATIVE):
        if not os.access(exe, os.X_OK):
            sys.exit(f"{exe} missing: run make bench")
    gen_torchvision.SIZE = 224
    os.makedirs(OUT, exist_ok=True)
    files = {}
    for name in names:
        if name == "dbnet":
            model, x = os.path.join(OUT, "dbnet_op13.onnx"), os.path.join(OUT, "dbnet_input.npy")
            if not os.path.exists(model):
                export_dbnet(model, x)
                print(f"exported dbnet (1x3x640x480) into {OUT}", file=sys.stderr)
        else:
            base = name[:-4] if name.endswith("_qdq") else name
            if gen_torchvision.generate(OUT, base):
                print(f"exported {base} (1x3x224x224) into {OUT}", file=sys.stderr)
            f = gen_torchvision.paths(OUT, base)
            model, x = f["op13"], f["input"]
            if base != name:
                qdq = os.path.join(OUT, name + "_op13.onnx")
                if not os.path.exists(qdq):
                    quantize_qdq(model, qdq)
                model = qdq
        files[name] = (model, x)

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    cols = [("ours 1t", [CLI], 1), ("ours 2t", [CLI], 2), ("portable 1t", [PORTABLE], 1),
            ("portable native", [PORTABLE_NATIVE], 1),
            ("ORT 1t", None, 1), ("ORT 2t", None, 2)]
    rows, notes, version = [], [], ""
    for name in names:
        model, x = files[name]
        runs = {}  # label -> that column's result in each round
        extra = [("ours float 1t", [CLI, "--no-rewrites"], 1)] if name.endswith("_qdq") else []
        for _ in range(rounds):
            for label, exe, threads in cols + extra:
                if label in runs and runs[label] is None:
                    continue  # failed in an earlier round: noted once
                if exe:
                    r, why = run(exe[:1] + ["bench", model, "--input", f"input={x}", "--threads", str(threads),
                                            "--iters", str(iters), "--warmup", str(warmup)] + exe[1:], env)
                else:
                    r, why = run(["node", os.path.join(ROOT, "bench", "ort_bench.js"), model, x, str(iters),
                                  str(warmup), str(threads)], env)
                    version = version or (r or {}).get("version", "")
                if r:
                    runs.setdefault(label, []).append(r)
                else:
                    runs[label] = None
                    notes.append(f"{name} {label}: {why}")
        results = combine(runs)
        ms = conv_ms(model, x)
        gflops = conv_gflop(model) / (ms / 1e3) if ms > 0 else 0.0
        rows.append((name, results, gflops))

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    isa = next((r["ours 1t"].get("isa", "") for _, r, _ in rows if "ours 1t" in r), "")
    print(f"{cpu}, {os.cpu_count()} cores, our kernels for {isa}; ONNX Runtime {version}; "
          f"{rounds} rounds of {iters} timed runs after {warmup} warmup, columns in turn")
    print(f"{'model':<16} {'run':<15} {'median ms':>10} {'best ms':>9} {'x ORT1':>7} {'best x ORT1':>11}")
    for name, results, gflops in rows:
        ort = results.get("ORT 1t")
        for label in [c[0] for c in cols] + ["ours float 1t"]:
            r = results.get(label)
            if not r:
                continue
            med, best = r["median_ms"], r["min_ms"]
            ratio = f"{r['ratio']:7.2f}" if ort else f"{'-':>7}"
            best_ratio = f"{best / ort['min_ms']:11.2f}" if ort else f"{'-':>11}"
            print(f"{name:<16} {label:<15} {med:10.2f} {best:9.2f} {ratio} {best_ratio}")
        print(f"{name:<16} {'conv GFLOP/s (ours, 1 thread)':<40} {gflops:.1f}")
        ours, o = results.get("ours 1t"), results.get("ORT 1t")
        if ours and o:
            print(f"{name:<16} {'load ms (ours, ORT)':<40} {ours['load_ms']:.1f}, {o['load_ms']:.1f}")
    for note in notes:
        print(f"not measured: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
