#!/usr/bin/python3
"""Runs the MMDeploy detection tail (tests/gen_detection_tail.py) through build/mmdeploy and
compares dets and labels with torch.

Rows with a positive score must match torch in order (scores are distinct random floats, so
the order is unique). Rows with score 0 are padding: torch.topk and ONNX TopK may pick different
zero rows on ties, so there only the count, zero boxes and a label of -1 or 0 are checked.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "build", "detection_tail")
CASES = ["random", "below_threshold", "identical_boxes", "batch2", "many_boxes"]


def check(name):
    with tempfile.TemporaryDirectory() as out:
        cmd = [os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy"), "run",
               os.path.join(DATA, "tail_op11.onnx"),
               "--input", "boxes=" + os.path.join(DATA, name + "_boxes.npy"),
               "--input", "scores=" + os.path.join(DATA, name + "_scores.npy"), "--outdir", out]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            return "mmdeploy run failed: " + (run.stderr.strip() or run.stdout.strip())
        dets, labels = np.load(os.path.join(out, "dets.npy")), np.load(os.path.join(out, "labels.npy"))
    want_dets = np.load(os.path.join(DATA, name + "_dets.npy"))
    want_labels = np.load(os.path.join(DATA, name + "_labels.npy"))
    if dets.shape != want_dets.shape or labels.shape != want_labels.shape:
        return "shapes %s %s, torch %s %s" % (dets.shape, labels.shape, want_dets.shape, want_labels.shape)
    if labels.dtype != np.int64:
        return "labels are %s, want int64" % labels.dtype
    for b in range(dets.shape[0]):
        real = want_dets[b, :, 4] > 0
        if not np.allclose(dets[b, real], want_dets[b, real], rtol=1e-5, atol=1e-4):
            return "batch %d: detections differ from torch" % b
        if not np.array_equal(labels[b, real], want_labels[b, real]):
            return "batch %d: labels differ from torch" % b
        pad = ~real
        if np.any(dets[b, pad] != 0) or not np.all(np.isin(labels[b, pad], (-1, 0))):
            return "batch %d: padding rows are not zero boxes with label -1 or 0" % b
    return None


def main():
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_detection_tail.py"), DATA], check=True)
    passed = failed = 0
    for name in CASES:
        why = check(name)
        if why:
            failed += 1
            print("FAIL detection_tail_%s: %s" % (name, why))
        else:
            passed += 1
            print("ok   detection_tail_%s" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
