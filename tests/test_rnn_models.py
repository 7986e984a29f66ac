#!/usr/bin/python3
"""Runs the recurrent models of tests/gen_rnn_cases.py (torch.nn.LSTM, GRU, RNN exported at
opset 14) through build/mmdeploy and compares each output with torch's and with ONNX Runtime's
(tests/data/rnn_ort/torch_NAME_output.npy, written by tests/gen_rnn_ort_cases.py); then the single-node
fixtures of tests/gen_rnn_ort_cases.py (activations, clip, input_forget, peepholes, directions,
sequence_lens, initial states, opset 7) and compares every output (Y, Y_h, Y_c) with ONNX
Runtime's. The torch models run a second time as .mmd blobs (`mmdeploy convert`), whose plans
have no weights packed at plan time, so the GEMM reads W and R as stored.

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
ORT_DATA = os.path.join(ROOT, "tests", "data", "rnn_ort")
CASES = ["crnn", "gru2", "lstm_rev", "rnn_tanh", "rnn_relu"]


def check(data, name, refs, blob=False):
    """None or why it failed, and the largest absolute difference over the outputs `refs`
    ({output name: reference file}); with blob, the model runs converted to a .mmd blob."""
    cli = os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy")
    model = os.path.join(data, name + ".onnx")
    worst = 0.0
    with tempfile.TemporaryDirectory() as out:
        if blob:
            run = subprocess.run([cli, "convert", model, "-o", os.path.join(out, "model.mmd")],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                return "mmdeploy convert failed: " + (run.stderr.strip() or run.stdout.strip()), None
            model = os.path.join(out, "model.mmd")
        cmd = [cli, "run", model, "--input", "input=" + os.path.join(data, name + "_x.npy"), "--outdir", out]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            return "mmdeploy run failed: " + (run.stderr.strip() or run.stdout.strip()), None
        for output, path in sorted(refs.items()):
            ours, ref = np.load(os.path.join(out, output + ".npy")), np.load(path)
            if ours.shape != ref.shape:
                return "%s has shape %s, reference %s" % (output, ours.shape, ref.shape), None
            diff = float(np.max(np.abs(ours - ref))) if ref.size else 0.0
            scale = float(np.max(np.abs(ref))) if ref.size else 0.0
            if not np.allclose(ours, ref, rtol=1e-4, atol=1e-4 * scale):
                return "%s: max abs diff %.3g (output scale %.3g)" % (output, diff, scale), diff
            worst = max(worst, diff)
    return None, worst


def main():
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_rnn_cases.py"), DATA], check=True)
    runs = [("rnn_" + n + suffix, "torch", DATA, n, {"output": os.path.join(DATA, n + "_y.npy")}, blob)
            for blob, suffix in ((False, ""), (True, "_blob")) for n in CASES]
    # The same exported models against ONNX Runtime's outputs (tests/gen_rnn_ort_cases.py).
    runs += [("rnn_" + n + "_vs_ort", "ONNX Runtime", DATA, n,
              {"output": os.path.join(ORT_DATA, "torch_%s_output.npy" % n)}, False) for n in CASES]
    for model in sorted(f for f in os.listdir(ORT_DATA) if f.endswith(".onnx")):
        n = model[:-5]
        refs = {o: os.path.join(ORT_DATA, "%s_%s.npy" % (n, o)) for o in ("Y", "Y_h", "Y_c")
                if os.path.exists(os.path.join(ORT_DATA, "%s_%s.npy" % (n, o)))}
        runs.append(("rnn_ort_" + n, "ONNX Runtime", ORT_DATA, n, refs, False))
    passed = failed = 0
    for label, who, data, name, refs, blob in runs:
        why, diff = check(data, name, refs, blob)
        if why:
            failed += 1
            print("FAIL %s: %s" % (label, why))
        else:
            passed += 1
            print("ok   %s (max abs diff to %s %.2g)" % (label, who, diff))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
