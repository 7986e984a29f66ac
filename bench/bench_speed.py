#!/usr/bin/python3
"""The speed table of issue 11: our reference kernels (no backend) next to ONNX Runtime, at one
and two threads, on the same model and input in one run.

    /usr/bin/python3 bench/bench_speed.py [--iters N] [--warmup N] [MODEL...]

Models (all exported with random weights, once, into build/bench):
    resnet18      torchvision ResNet-18, 1x3x224x224
    mobilenet_v2  torchvision MobileNetV2, 1x3x224x224
    dbnet         a PP-OCR-det-sized DBNet, 1x3x640x480: torchvision MobileNetV3-Large backbone,
                  FPN with nearest 2x Resize, head with two stride-2 ConvTranspose (made here)

Columns: median and best ms per run of `build/mmdeploy bench --threads 1` and `--threads 2`,
of the same CLI built with MMD_NO_SIMD (build/mmdeploy-portable: what firmware gets), and of
ONNX Runtime (bench/ort_bench.js, intraOpNumThreads 1 and 2); every time also as a multiple of
ORT's 1-thread median (x ORT1: below 1 is faster). The last column is the GFLOP/s our
convolutions achieve at one thread: the Conv/ConvTranspose/FusedConv multiply-adds of the model
(x2) over the time `bench --profile` gives those nodes. The machine's other load shows in the
medians; the best times are the steadier figures.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build", "mmdeploy")
PORTABLE = os.path.join(ROOT, "build", "mmdeploy-portable")
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
        if len(parts) >= 4 and parts[0] in ("Conv", "ConvTranspose", "FusedConv"):
            try:
                total += float(parts[2])
            except ValueError:
                pass
    return total


def main(argv):
    iters, warmup, names = 20, 3, []
    args = iter(argv[1:])
    for a in args:
        if a in ("--iters", "--warmup"):
            value = int(next(args, "0"))
            iters, warmup = (value, warmup) if a == "--iters" else (iters, value)
        else:
            names.append(a)
    names = names or ["resnet18", "mobilenet_v2", "dbnet"]
    for exe in (CLI, PORTABLE):
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
            if gen_torchvision.generate(OUT, name):
                print(f"exported {name} (1x3x224x224) into {OUT}", file=sys.stderr)
            f = gen_torchvision.paths(OUT, name)
            model, x = f["op13"], f["input"]
        files[name] = (model, x)

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    cols = [("ours 1t", [CLI], 1), ("ours 2t", [CLI], 2), ("portable 1t", [PORTABLE], 1),
            ("ORT 1t", None, 1), ("ORT 2t", None, 2)]
    rows, notes, version = [], [], ""
    for name in names:
        model, x = files[name]
        results = {}
        for label, exe, threads in cols:
            if exe:
                r, why = run(exe + ["bench", model, "--input", f"input={x}", "--threads", str(threads),
                                    "--iters", str(iters), "--warmup", str(warmup)], env)
            else:
                r, why = run(["node", os.path.join(ROOT, "bench", "ort_bench.js"), model, x, str(iters),
                              str(warmup), str(threads)], env)
                version = version or (r or {}).get("version", "")
            if r:
                results[label] = r
            else:
                notes.append(f"{name} {label}: {why}")
        ms = conv_ms(model, x)
        gflops = conv_gflop(model) / (ms / 1e3) if ms > 0 else 0.0
        rows.append((name, results, gflops))

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    isa = next((r["ours 1t"].get("isa", "") for _, r, _ in rows if "ours 1t" in r), "")
    print(f"{cpu}, {os.cpu_count()} cores, our kernels for {isa}; ONNX Runtime {version}; "
          f"{iters} timed runs after {warmup} warmup")
    print(f"{'model':<13} {'run':<12} {'median ms':>10} {'best ms':>9} {'x ORT1':>7} {'best x ORT1':>11}")
    for name, results, gflops in rows:
        ort = results.get("ORT 1t")
        for label, _, _ in cols:
            r = results.get(label)
            if not r:
                continue
            med, best = r["median_ms"], r["min_ms"]
            ratio = f"{med / ort['median_ms']:7.2f}" if ort else f"{'-':>7}"
            best_ratio = f"{best / ort['min_ms']:11.2f}" if ort else f"{'-':>11}"
            print(f"{name:<13} {label:<12} {med:10.2f} {best:9.2f} {ratio} {best_ratio}")
        print(f"{name:<13} {'conv GFLOP/s (ours, 1 thread)':<40} {gflops:.1f}")
        ours, o = results.get("ours 1t"), results.get("ORT 1t")
        if ours and o:
            print(f"{name:<13} {'load ms (ours, ORT)':<40} {ours['load_ms']:.1f}, {o['load_ms']:.1f}")
    for note in notes:
        print(f"not measured: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
