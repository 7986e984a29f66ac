"""The SDK's preprocess against OpenCV + numpy on a 1280x720 BGR photo (issue 12's target).

Two pipelines, each as MMDeploy's pipeline.json writes it:
  keep_ratio  Resize keep_ratio to 640x640 (the photo becomes 640x360), Normalize (to_rgb),
              Pad size_divisor 32 (640x384), ImageToTensor
  fixed       Resize size [640, 640] without keep_ratio, Normalize (to_rgb), Pad to 640x640,
              ImageToTensor
Ours is build/bench_sdk_transforms (mmd_sdk_preprocess timed with clock_gettime in one process,
model loading and start-up not counted); OpenCV's is cv2.resize(INTER_LINEAR) + numpy
normalise + pad + transpose, timed per call in this process. The two alternate in rounds of
ITERS calls each; the table gives the medians of all calls and ours / cv2. Before timing, the
tensors are compared (uint8 resize within +-1 means within 1 / std after Normalize).

    /usr/bin/python3 bench/bench_sdk_transforms.py [ROUNDS] [ITERS] [BEFORE]    (make bench-sdk)

BEFORE, another build of the driver (an older SDK), is timed in the same rounds for a before /
after column; its tensor is not compared.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
DRIVER = os.path.join(BUILD, "bench_sdk_transforms")
WORK = os.path.join(BUILD, "bench_sdk")
MEAN = [123.675, 116.28, 103.53]
STD = [58.395, 57.12, 57.375]
H, W = 720, 1280


def photo():
    """sklearn's china.jpg (427 x 640, RGB) as BGR, enlarged to 1280x720 by cv2 (bicubic)."""
    try:
        from sklearn.datasets import load_sample_image
        img = load_sample_image("china.jpg")[:, :, ::-1]
    except ImportError:  # a cv2-made picture: gradients and shapes, not flat
        img = np.zeros((427, 640, 3), np.uint8)
        img[:] = np.linspace(0, 255, 640, dtype=np.uint8)[None, :, None]
        cv2.circle(img, (320, 200), 150, (30, 200, 90), -1)
        cv2.putText(img, "mmdeploy", (60, 380), cv2.FONT_HERSHEY_SIMPLEX, 3, (250, 20, 120), 8)
    return np.ascontiguousarray(cv2.resize(img, (W, H), interpolation=cv2.INTER_CUBIC))


def pipeline(keep_ratio):
    resize = {"type": "Resize", "keep_ratio": keep_ratio, "size": [640, 640]}
    pad = {"type": "Pad", "size_divisor": 32} if keep_ratio else {"type": "Pad", "size": [640, 640]}
    transforms = [{"type": "LoadImageFromFile"}, resize,
                  {"type": "Normalize", "to_rgb": True, "mean": MEAN, "std": STD}, pad,
                  {"type": "ImageToTensor", "keys": ["img"]},
                  {"type": "Collect", "keys": ["img"], "meta_keys": ["img_shape", "pad_shape", "scale_factor"]}]
    return {"pipeline": {"input": ["img"], "output": ["post_output"], "tasks": [
        {"type": "Task", "module": "Transform", "name": "Preprocess", "input": ["img"],
         "output": ["prep_output"], "transforms": transforms},
        {"name": "detector", "type": "Task", "module": "Net", "is_batched": False,
         "input": ["prep_output"], "output": ["infer_output"],
         "input_map": {"img": "input"}, "output_map": {}},
        {"type": "Task", "module": "mmdet", "name": "postprocess", "component": "ResizeBBox",
         "params": {"score_thr": 0.3}, "output": ["post_output"], "input": ["prep_output", "infer_output"]}]}}


def model_dir(name, keep_ratio):
    """The test detector's directory (build/sdk_models/det) with this bench's pipeline.json."""
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    for f in ("deploy.json", "detail.json", "end2end.onnx"):
        shutil.copy(os.path.join(BUILD, "sdk_models", "det", f), d)
    with open(os.path.join(d, "pipeline.json"), "w") as f:
        json.dump(pipeline(keep_ratio), f, indent=4)
    return d


def cv2_chain(img, keep_ratio, mean, inv_std):
    """What a Python user writes: resize, BGR to RGB, normalise, pad, HWC to NCHW."""
    if keep_ratio:
        scale = min(640 / W, 640 / H)
        ow, oh = int(W * scale + 0.5), int(H * scale + 0.5)
    else:
        ow, oh = 640, 640
    x = cv2.resize(img, (ow, oh), interpolation=cv2.INTER_LINEAR)
    x = cv2.cvtColor(x, cv2.COLOR_BGR2RGB).astype(np.float32)
    x -= mean
    x *= inv_std
    ph, pw = ((oh + 31) // 32 * 32, (ow + 31) // 32 * 32) if keep_ratio else (640, 640)
    out = np.zeros((1, 3, ph, pw), np.float32)
    out[0, :, :oh, :ow] = x.transpose(2, 0, 1)
    return out


def ours(d, raw, iters, out=None, driver=DRIVER):
    cmd = [driver, d, raw, str(H), str(W), str(iters)] + ([out] if out else [])
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return [float(t) for t in p.stdout.split()], p.stderr


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    before = sys.argv[3] if len(sys.argv) > 3 else None
    os.makedirs(WORK, exist_ok=True)
    img = photo()
    raw = os.path.join(WORK, "photo_1280x720_bgr.raw")
    img.tofile(raw)
    mean, inv_std = np.array(MEAN, np.float32), 1.0 / np.array(STD, np.float32)
    cv2.setNumThreads(1)  # our preprocess is single-threaded; say so in the table if changed
    rows, bad = [], 0
    for name, keep in (("keep_ratio 640x360 pad/32", True), ("fixed 640x640 pad 640", False)):
        d = model_dir("keep" if keep else "fixed", keep)
        got_path = os.path.join(WORK, "out.raw")
        _, shape = ours(d, raw, 1, got_path)
        got = np.fromfile(got_path, np.float32).reshape([int(v) for v in shape.split()])
        ref = cv2_chain(img, keep, mean, inv_std)
        diff = float(np.abs(got - ref).max()) if got.shape == ref.shape else float("inf")
        # One uint8 level after Normalize is 1 / std (at most 1 / 57.12) plus float rounding.
        ok = diff <= 1.0 / min(STD) + 1e-4
        bad += not ok
        t_ours, t_cv2, t_before = [], [], []
        for _ in range(rounds):
            t_ours += ours(d, raw, iters)[0]
            if before:
                t_before += ours(d, raw, iters, driver=before)[0]
            for _ in range(iters):
                t0 = time.perf_counter()
                cv2_chain(img, keep, mean, inv_std)
                t_cv2.append((time.perf_counter() - t0) * 1e3)
        rows.append((name, tuple(got.shape), diff, ok, statistics.median(t_ours), statistics.median(t_cv2),
                     len(t_ours), statistics.median(t_before) if before else None))
    print("1280x720 BGR photo -> normalised tensor, medians of n calls each, alternating rounds "
          "(cv2 threads: %d)" % cv2.getNumThreads())
    print("| pipeline | tensor | max diff | ours ms | cv2+numpy ms | ours / cv2 | n |%s" %
          (" before ms | before / cv2 |" if before else ""))
    print("|---|---|---|---|---|---|---|%s" % ("---|---|" if before else ""))
    for name, shape, diff, ok, a, b, n, old in rows:
        print("| %s | %s | %.4f%s | %.2f | %.2f | %.2f | %d |%s" % (
            name, "x".join(map(str, shape)), diff, "" if ok else " FAIL", a, b, a / b, n,
            " %.2f | %.2f |" % (old, old / b) if before else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
