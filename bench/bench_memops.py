#!/usr/bin/python3
"""Memory-bound kernels one op at a time: time per run and bandwidth next to memcpy's.

    /usr/bin/python3 bench/bench_memops.py [--iters N] [--threads N,N...] [--before CLI]

Builds one single-node float32 model per case into build/bench_memops (elementwise ops in each
broadcast shape, activations, pools, softmax), times each with `build/mmdeploy bench --iters N
--threads T` and prints one table: the best time per run (the steadier figure on a shared
machine), the bytes the node must read and write over that time in GB/s, and the same for a
numpy copy of the output's bytes (memcpy's bandwidth at that size, read plus write). With
--before CLI, an older build of the CLI runs each case too, and the table shows the ratio.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build", "mmdeploy")
OUT = os.path.join(ROOT, "build", "bench_memops")


def case(name, op, shapes, out_shape, **attrs):
    return {"name": name, "op": op, "shapes": shapes, "out": out_shape, "attrs": attrs}


N, C, H, W = 1, 64, 112, 112
CASES = [
    case("Add same shape", "Add", [[N, C, H, W], [N, C, H, W]], [N, C, H, W]),
    case("Add per-channel", "Add", [[N, C, H, W], [1, C, 1, 1]], [N, C, H, W]),
    case("Mul scalar", "Mul", [[N, C, H, W], []], [N, C, H, W]),
    case("Mul per-plane [N,C,1,1]", "Mul", [[4, 256, 28, 28], [4, 256, 1, 1]], [4, 256, 28, 28]),
    case("Add last-axis row", "Add", [[3136, 256], [256]], [3136, 256]),
    case("Div outer [M,1]x[1,K]", "Div", [[784, 1], [1, 1024]], [784, 1024]),
    case("Relu", "Relu", [[N, C, H, W]], [N, C, H, W]),
    case("Clip 0..6", "Clip", [[N, 96, H, W]], [N, 96, H, W], min=0.0, max=6.0),
    case("Sigmoid", "Sigmoid", [[N, C, H, W]], [N, C, H, W]),
    case("HardSwish", "HardSwish", [[N, C, H, W]], [N, C, H, W]),
    case("MaxPool 3x3 s2 p1", "MaxPool", [[N, C, H, W]], [N, C, 56, 56],
         kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    case("MaxPool 5x5 s1 p2", "MaxPool", [[N, 256, 20, 20]], [N, 256, 20, 20],
         kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]),
    case("AveragePool 2x2 s2", "AveragePool", [[N, 256, 56, 56]], [N, 256, 28, 28],
         kernel_shape=[2, 2], strides=[2, 2]),
    case("Softmax last axis", "Softmax", [[8, 196, 196]], [8, 196, 196], axis=-1),
    case("Softmax channels", "Softmax", [[1, 19, 128, 128]], [1, 19, 128, 128], axis=1),
    case("GlobalAveragePool", "GlobalAveragePool", [[N, 256, 56, 56]], [N, 256, 1, 1]),
    case("Concat axis 1", "Concat", [[N, C, 56, 56], [N, C, 56, 56]], [N, 2 * C, 56, 56], axis=1),
    case("Transpose NCHW->NHWC", "Transpose", [[N, C, H, W]], [N, H, W, C], perm=[0, 2, 3, 1]),
    case("Transpose NHWC->NCHW", "Transpose", [[N, H, W, C]], [N, C, H, W], perm=[0, 3, 1, 2]),
    case("Transpose last two", "Transpose", [[8, 196, 64]], [8, 64, 196], perm=[0, 2, 1]),
    case("ReduceMean last axis", "ReduceMean", [[8, 196, 768]], [8, 196, 1], axes=[-1]),
    case("LayerNormalization", "LayerNormalization", [[8, 196, 768], [768], [768]], [8, 196, 768], axis=-1),
]


def build(c, path):
    # Clip takes its bounds as inputs from opset 11; opset 10 keeps them attributes.
    opset = 10 if c["op"] == "Clip" else 17 if c["op"] == "LayerNormalization" else 14
    names = ["x%d" % i for i in range(len(c["shapes"]))]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in zip(names, c["shapes"])]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, c["out"])
    node = helper.make_node(c["op"], names, ["y"], **c["attrs"])
    graph = helper.make_graph([node], "bench", inputs, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, path)


def best_ms(cli, path, iters, threads):
    r = subprocess.run([cli, "bench", path, "--iters", str(iters), "--warmup", "3", "--threads", str(threads)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip() or r.stdout.strip())
    for line in reversed(r.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)["min_ms"]
    raise RuntimeError("no JSON line from " + cli)


def copy_ms(nbytes, iters):
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(iters):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main(argv):
    iters, threads, before = 100, [1, 2], None
    i = 0
    while i < len(argv):
        if argv[i] == "--iters":
            iters = int(argv[i + 1])
        elif argv[i] == "--threads":
            threads = [int(t) for t in argv[i + 1].split(",")]
        elif argv[i] == "--before":
            before = argv[i + 1]
        else:
            sys.exit(__doc__)
        i += 2
    os.makedirs(OUT, exist_ok=True)
    head = "%-26s %8s" % ("case", "MB")
    if before:
        head += " %10s" % "before ms"
    for t in threads:
        head += " %9s %7s" % ("%dt ms" % t, "GB/s")
    if before:
        head += " %8s" % "x before"
    head += " %10s" % "copy GB/s"
    print(head)
    for c in CASES:
        path = os.path.join(OUT, c["name"].replace(" ", "_").replace("/", "_") + ".onnx")
        build(c, path)
        moved = 4 * (sum(int(np.prod(s)) for s in c["shapes"]) + int(np.prod(c["out"])))
        row = "%-26s %8.2f" % (c["name"], moved / 1e6)
        if before:
            b = best_ms(before, path, iters, 1)
            row += " %10.4f" % b
        first = None
        for t in threads:
            ms = best_ms(CLI, path, iters, t)
            first = ms if first is None else first
            row += " %9.4f %7.1f" % (ms, moved / ms / 1e6)
        if before:
            row += " %8.1f" % (b / first)
        out_bytes = 4 * int(np.prod(c["out"]))
        row += " %10.1f" % (2 * out_bytes / copy_ms(out_bytes, iters) / 1e6)
        print(row, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
