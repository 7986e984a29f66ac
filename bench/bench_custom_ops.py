#!/usr/bin/python3
"""Times MMDeploy's heaviest custom operators in `mmdeploy bench` against PyTorch on one thread.

usage: /usr/bin/python3 bench/bench_custom_ops.py [WORK_DIR]   (default build/bench_custom_ops)
The CLI is build/mmdeploy unless MMDEPLOY_BIN names another build.

Each row is one single-node model at a size real models run it at; both sides get the same
inputs. Ours is the min_ms of `mmdeploy bench MODEL --iters 3`, PyTorch's the best of three
timeit runs with torch.set_num_threads(1) (OpenBLAS and OpenMP held to one thread as well):
  deform conv     MMCVModulatedDeformConv2d 256 -> 256, 3x3, pad 1, on 1x256x100x152 vs
                  torchvision.ops.deform_conv2d with a mask
  grid_sample     grid_sampler bilinear, zeros, 1x256x100x152 sampled on a 1x100x152 grid vs
                  torch.nn.functional.grid_sample
  MSDA encoder    MMCVMultiScaleDeformableAttention, Deformable DETR's encoder on an 800x1200
                  image: 8 heads of 32, 4 levels (100x150 ... 13x19), 4 points, a query per key
  MSDA decoder    the same with 300 queries
  versus mmcv's PyTorch implementation (multi_scale_deform_attn_pytorch, grid_sample per level)
"""
import json
import os
import subprocess
import sys
import timeit

os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np  # noqa: E402

np.float = float
np.int = int
np.bool = bool
np.object = object

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.dont_write_bytecode = True
from gen_custom_ops_sampling import msda_reference  # noqa: E402

DTYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}


def ours(exe, work, name, op, order, inputs, weights, attrs):
    """min_ms of `mmdeploy bench` on a one-node model whose node takes the tensors named in
    order; inputs {name: array} are graph inputs (given as .npy files), weights initializers."""
    node = helper.make_node(op, order, ["output"], domain="mmdeploy", **attrs)
    graph = helper.make_graph(
        [node], op, [helper.make_tensor_value_info(n, DTYPES[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, n) for n, a in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("mmdeploy", 1)])
    model.ir_version = 8
    path = os.path.join(work, name + ".onnx")
    onnx.save(model, path)
    cmd = [exe, "bench", path, "--iters", "3"]
    for n, a in inputs.items():
        npy = os.path.join(work, "%s_%s.npy" % (name, n))
        np.save(npy, a)
        cmd += ["--input", "%s=%s" % (n, npy)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])["min_ms"]


def theirs(fn):
    fn()
    return min(timeit.repeat(fn, number=1, repeat=3)) * 1000.0


def main():
    exe = os.environ.get("MMDEPLOY_BIN", os.path.join(ROOT, "build", "mmdeploy"))
    work = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bench_custom_ops")
    os.makedirs(work, exist_ok=True)
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    rows = []

    x = rng.standard_normal((1, 256, 100, 152)).astype(np.float32)
    off = (rng.standard_normal((1, 18, 100, 152)) * 2).astype(np.float32)
    mask = rng.uniform(0, 1, (1, 9, 100, 152)).astype(np.float32)
    wt = (rng.standard_normal((256, 256, 3, 3)) * 0.02).astype(np.float32)
    b = rng.standard_normal(256).astype(np.float32)
    tx, to, tm, tw, tb = (torch.from_numpy(a) for a in (x, off, mask, wt, b))
    rows.append(("deform conv 256->256 3x3, 1x256x100x152",
                 ours(exe, work, "mdcn", "MMCVModulatedDeformConv2d", ["input", "offset", "mask", "weight", "bias"],
                      {"input": x, "offset": off, "mask": mask}, {"weight": wt, "bias": b},
                      {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 1, "deform_groups": 1}),
                 theirs(lambda: torchvision.ops.deform_conv2d(tx, to, tw, tb, padding=1, mask=tm))))

    grid = rng.uniform(-1, 1, (1, 100, 152, 2)).astype(np.float32)
    tg = torch.from_numpy(grid)
    rows.append(("grid_sample bilinear 1x256x100x152",
                 ours(exe, work, "grid", "grid_sampler", ["input", "grid"], {"input": x, "grid": grid}, {},
                      {"interpolation_mode": 0, "padding_mode": 0, "align_corners": 0}),
                 theirs(lambda: F.grid_sample(tx, tg, mode="bilinear", padding_mode="zeros", align_corners=False))))

    shapes = np.array([[100, 150], [50, 75], [25, 38], [13, 19]], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])[:-1]]).astype(np.int64)
    keys = int((shapes[:, 0] * shapes[:, 1]).sum())
    value = rng.standard_normal((1, keys, 8, 32)).astype(np.float32)
    for name, nq in (("MSDA encoder, %d queries" % keys, keys), ("MSDA decoder, 300 queries", 300)):
        loc = rng.uniform(0, 1, (1, nq, 8, 4, 4, 2)).astype(np.float32)
        attn = rng.uniform(0, 1, (1, nq, 8, 4, 4)).astype(np.float32)
        attn /= attn.sum(axis=(3, 4), keepdims=True)
        tv, ts, tst, tl, ta = (torch.from_numpy(a) for a in (value, shapes, start, loc, attn))
        rows.append((name, ours(exe, work, "msda%d" % nq, "MMCVMultiScaleDeformableAttention",
                                ["value", "spatial_shapes", "level_start_index", "sampling_locations",
                                 "attention_weights"],
                                {"value": value, "sampling_locations": loc, "attention_weights": attn},
                                {"spatial_shapes": shapes, "level_start_index": start}, {"im2col_step": 64}),
                     theirs(lambda: msda_reference(tv, ts, tst, tl, ta))))

    print("%-44s | %10s | %10s | %6s" % ("op", "our ms", "torch ms", "ratio"))
    print("-" * 44 + "-|-" + "-" * 10 + "-|-" + "-" * 10 + "-|-" + "-" * 6)
    for name, a, b in rows:
        print("%-44s | %10.2f | %10.2f | %6.2f" % (name, a, b, a / b))
    print("ratio = our ms / torch ms (below 1: faster than PyTorch)")


if __name__ == "__main__":
    main()
