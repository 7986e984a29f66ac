#!/usr/bin/python3
"""Runs the recurrent models of tests/gen_rnn_cases.py (torch.nn.LSTM, GRU, RNN exported at
opset 14) through build/mmdeploy and compares each output with torch's.

Tolerance: the two sides sum the gate products in different orders and use different exp/tanh,
and a recurrence feeds each step's rounding into the next; torch's float32 output differs from
its float64 output on these models by about 1e-6 of the output scale. rtol 1e-4 with an
absolute term of 1e-4 times the largest output leaves ample room while a wrong gate, bias or
direction moves outputs by a sizeable fraction of the scale.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "build", "rnn_cases")
CASES = ["crnn", "gru2", "lstm_rev", "rnn_tanh", "rnn_relu"]


def check(name):
    with tempfile.TemporaryDirectory() as out:
        cmd = [os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy"), "run",
               os.path.join(DATA, name + ".onnx"), "--input", "input=" + os.path.join(DATA, name + "_x.npy"),
               "--outdir", out]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            return "mmdeploy run failed: " + (run.stderr.strip() or run.stdout.strip()), None
        ours = np.load(os.path.join(out, "output.npy"))
    ref = np.load(os.path.join(DATA, name + "_y.npy"))
    if ours.shape != ref.shape:
        return "shape %s, torch %s" % (ours.shape, ref.shape), None
    diff = float(np.max(np.abs(ours - ref))) if ref.size else 0.0
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    if not np.allclose(ours, ref, rtol=1e-4, atol=1e-4 * scale):
        return "max abs diff %.3g (output scale %.3g)" % (diff, scale), diff
    return None, diff


def main():
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_rnn_cases.py"), DATA], check=True)
    passed = failed = 0
    for name in CASES:
        why, diff = check(name)
        if why:
            failed += 1
            print("FAIL rnn_%s: %s" % (name, why))
        else:
            passed += 1
            print("ok   rnn_%s (max abs diff to torch %.2g)" % (name, diff))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
