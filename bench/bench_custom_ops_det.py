#!/usr/bin/python3
"""Times three detection workloads in mmdeploy.h against PyTorch on one thread and prints
`op | our ms | torch ms | ratio` (ratio = ours / torch, below 1 is faster):

  MMCVRoiAlign   1000 RoIs of 16 to 112 pixels (what FPN sends to the stride-4 level), 7x7,
                 sampling_ratio 0, aligned, on a 1x256x200x272 map (an 800x1088 image) vs
                 torchvision.ops.roi_align
  TRTBatchedNMS  5000 boxes x 80 classes, score > 0.05, 1000 per class, IoU 0.5, 100 kept vs
                 the same pipeline in torch: per-class torch.topk, torchvision batched_nms, first 100
  TopK           k = 5000 of 120000 (ONNX TopK) vs torch.topk

Our time is the median_ms of `mmdeploy bench MODEL --iters 3` (inputs not given are uniform
[0, 1) floats, the feature map here); torch's is the median of 3 runs after one warm-up.

Usage: /usr/bin/python3 bench/bench_custom_ops_det.py   (MMDEPLOY_BIN overrides build/mmdeploy)
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

np.float = float  # onnx 1.12 still uses the removed numpy aliases
np.int = int
np.bool = bool
np.object = object
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F32 = TensorProto.FLOAT


def save_model(path, domain, op, inputs, outputs, attrs, inits=()):
    node = helper.make_node(op, [n for n, _, _ in inputs] + [t.name for t in inits], [n for n, _, _ in outputs],
                            domain=domain, **attrs)
    graph = helper.make_graph([node], op, [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], list(inits))
    opsets = [helper.make_opsetid("", 11)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 7
    onnx.save(model, path)


def ours(cli, model, inputs):
    cmd = [cli, "bench", model, "--iters", "3"]
    for name, path in inputs.items():
        cmd += ["--input", "%s=%s" % (name, path)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("mmdeploy bench failed: " + (run.stderr.strip() or run.stdout.strip()))
    return json.loads(run.stdout.strip().splitlines()[-1])["median_ms"]


def torch_ms(fn):
    fn()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return sorted(times)[1]


def main():
    cli = os.environ.get("MMDEPLOY_BIN", os.path.join(ROOT, "build", "mmdeploy"))
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        # RoI align: RoIs anywhere in the image, batch index 0.
        feats = torch.rand(1, 256, 200, 272)
        xy = rng.uniform(0, [1088, 800], (1000, 2))
        wh = rng.uniform(16, 112, (1000, 2))
        rois = np.concatenate([np.zeros((1000, 1)), xy, xy + wh], 1).astype(np.float32)
        np.save(os.path.join(d, "rois.npy"), rois)
        save_model(os.path.join(d, "roi_align.onnx"), "mmcv", "MMCVRoiAlign",
                   [("feats", F32, [1, 256, 200, 272]), ("rois", F32, [1000, 5])], [("out", F32, None)],
                   dict(output_height=7, output_width=7, spatial_scale=0.25, sampling_ratio=0, mode="avg", aligned=1))
        t_rois = torch.from_numpy(rois)
        rows.append(("MMCVRoiAlign 1000x7x7", ours(cli, os.path.join(d, "roi_align.onnx"), {"rois": os.path.join(d, "rois.npy")}),
                     torch_ms(lambda: torchvision.ops.roi_align(feats, t_rois, (7, 7), 0.25, 0, True))))

        # Batched NMS: clustered boxes so that suppression has work to do.
        n, c, topk, keep, iou, thr = 5000, 80, 1000, 100, 0.5, 0.05
        centres = rng.uniform(0, [1088, 800], (300, 2))
        xy = centres[rng.integers(0, 300, n)] + rng.normal(0, 20, (n, 2))
        wh = rng.uniform(20, 200, (n, 2))
        boxes = np.concatenate([xy, xy + wh], 1).astype(np.float32)
        scores = rng.random((n, c), dtype=np.float32)
        np.save(os.path.join(d, "boxes.npy"), boxes[None, :, None, :])
        np.save(os.path.join(d, "scores.npy"), scores[None])
        save_model(os.path.join(d, "nms.onnx"), "mmdeploy", "TRTBatchedNMS",
                   [("boxes", F32, [1, n, 1, 4]), ("scores", F32, [1, n, c])],
                   [("dets", F32, None), ("labels", TensorProto.INT32, None)],
                   dict(num_classes=c, background_label_id=-1, iou_threshold=iou, score_threshold=thr, topk=topk,
                        keep_topk=keep, is_normalized=0, clip_boxes=0, return_index=0))
        t_boxes, t_scores = torch.from_numpy(boxes), torch.from_numpy(scores)

        def torch_nms():
            vals, idx = torch.where(t_scores > thr, t_scores, torch.tensor(-1.0)).topk(topk, dim=0)
            cls = torch.arange(c).expand(topk, c)
            ok = vals > thr
            kept = torchvision.ops.batched_nms(t_boxes[idx[ok]], vals[ok], cls[ok], iou)[:keep]
            return t_boxes[idx[ok]][kept], vals[ok][kept], cls[ok][kept]
        rows.append(("TRTBatchedNMS 5000x80", ours(cli, os.path.join(d, "nms.onnx"),
                                                   {"boxes": os.path.join(d, "boxes.npy"),
                                                    "scores": os.path.join(d, "scores.npy")}), torch_ms(torch_nms)))

        # TopK of a random row.
        save_model(os.path.join(d, "topk.onnx"), "", "TopK", [("x", F32, [1, 120000])],
                   [("values", F32, None), ("indices", TensorProto.INT64, None)], dict(axis=1),
                   [numpy_helper.from_array(np.array([5000], np.int64), "k")])
        x = torch.rand(1, 120000)
        rows.append(("TopK 5000 of 120000", ours(cli, os.path.join(d, "topk.onnx"), {}),
                     torch_ms(lambda: torch.topk(x, 5000, dim=1))))

    print("%-24s | %10s | %10s | %6s" % ("op", "our ms", "torch ms", "ratio"))
    for name, a, b in rows:
        print("%-24s | %10.3f | %10.3f | %6.2f" % (name, a, b, a / b))


if __name__ == "__main__":
    main()
