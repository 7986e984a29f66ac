#!/usr/bin/python3
"""Runs the quantized models of tests/gen_quant_models.py (fixtures in tests/data/quant_models)
through build/mmdeploy and compares every output with ONNX Runtime's: the torch-exported QDQ
CNN with the load-time rewrites (its DequantizeLinear -> Conv/MatMul (-> Relu) ->
QuantizeLinear groups become QLinearConv and QLinearMatMul, as in ORT) at one and two threads
and without them (float ops between the quantizations), the QOperator model ORT wrote for it,
the dynamically quantized MLP (MatMulInteger), the QDQ chain whose DequantizeLinear ->
(Relu or Clip ->) QuantizeLinear links become clamps in the QLinearConv before them, and the
QDQ stem whose MaxPool runs on int8 (its DequantizeLinear moved after it, the QuantizeLinear
after that dropped), and the int8 digits classifier of the Cortex-M firmware
(examples/quantize_digits.py: three QDQ convolutions with int8 activations, an int8 MaxPool, a
float head) on the 360 held-out digits.

Tolerance: the QDQ outputs are dequantized int8 values, so a difference is a whole number of
quanta (the output's scale, the smallest gap between its distinct values); the integer path
must stay within one quantum of ORT's (ORT rounds the requantization in float: an element off
by one would be a tie rounded the other way) and the count of elements off by one is printed.
The float path (--no-rewrites) rounds at every QuantizeLinear from float sums in another order
than ORT's integer ones, so it is held to two quanta and its count printed. The MLP's outputs
are float: rtol 1e-5. The QDQ chain is exact (those rewrites are): ours equals ORT's outputs with
ORT's graph optimisations off at one and two threads and without rewrites; ORT as it runs by
default differs from that by up to two quanta, since its optimiser replaces the chain's
DequantizeLinear -> QuantizeLinear pair (zero point 128 to 0, one scale) by one quantization of
another scale (tests/gen_quant_models.py), so against it two quanta are allowed. The pool
model is exact too: equal to ORT's outputs with and without its optimisations. The digits'
logits are float (a float head after the last dequantization): rtol 1e-5, which a feature one
quantum off would exceed.
"""
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "quant_models")
# (model, extra arguments, outputs, quanta allowed (None: float outputs, rtol 1e-5), the
# references' prefix when not the model's name)
RUNS = [("qdq_cnn", [], ["output", "features"], 1),
        ("qdq_cnn", ["--threads", "2"], ["output", "features"], 1),
        ("qdq_cnn", ["--no-rewrites"], ["output", "features"], 2),
        ("qop_cnn", [], ["output", "features"], 0),
        ("dyn_mlp", [], ["output"], None),
        ("qdq_chain", [], ["output", "features"], 0, "qdq_chain_noopt"),
        ("qdq_chain", ["--threads", "2"], ["output", "features"], 0, "qdq_chain_noopt"),
        ("qdq_chain", ["--no-rewrites"], ["output", "features"], 0, "qdq_chain_noopt"),
        ("qdq_chain", [], ["output", "features"], 2),
        ("qdq_pool", [], ["output"], 0, "qdq_pool_noopt"),
        ("qdq_pool", ["--threads", "2"], ["output"], 0, "qdq_pool_noopt"),
        ("qdq_pool", ["--no-rewrites"], ["output"], 0, "qdq_pool_noopt"),
        ("qdq_pool", [], ["output"], 0),
        ("qdq_add", [], ["output", "features"], 0, "qdq_add_noopt"),
        ("qdq_add", ["--threads", "2"], ["output", "features"], 0, "qdq_add_noopt"),
        ("qdq_add", ["--no-rewrites"], ["output", "features"], 0, "qdq_add_noopt"),
        ("qdq_add", [], ["output", "features"], 1),
        ("digits_int8", [], ["logits"], None)]
# Models that live elsewhere: (model, input) paths; the others are DATA/NAME.onnx, DATA/NAME_x.npy.
PATHS = {"digits_int8": (os.path.join(ROOT, "examples", "models", "digits_int8.onnx"),
                         os.path.join(ROOT, "tests", "data", "digits_test_x.npy"))}


def quantum(ref):
    v = np.unique(ref)
    return float(np.min(np.diff(v))) if v.size > 1 else 1.0


def main():
    # MMDEPLOY_BIN may be a command with its arguments: the AArch64 CLI under qemu-aarch64.
    cli = shlex.split(os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy"))
    failed = 0
    # The rewrite took every Conv and the MatMul of the QDQ CNN (mmdeploy info lists them).
    info = subprocess.run(cli + ["info", os.path.join(DATA, "qdq_cnn.onnx"), "--backend", "reference"],
                          capture_output=True, text=True).stdout
    fused = [l.split()[1] for l in info.splitlines() if l.strip().startswith("fuse ") and " into QLinear" in l]
    if fused.count("Conv") != 4 or fused.count("MatMul") != 1:
        print("FAIL qdq_cnn rewrites: %s" % fused)
        failed += 1
    # In the chain, the Clip between zero points 128 and 0, the DequantizeLinear ->
    # QuantizeLinear pair and the Relu went into the QLinearConv before them (a QuantizeLinear
    # each); the Clip in a scale of its own stayed.
    info = subprocess.run(cli + ["info", os.path.join(DATA, "qdq_chain.onnx"), "--backend", "reference"],
                          capture_output=True, text=True).stdout
    fused = [l.split()[1] for l in info.splitlines() if l.strip().startswith("fuse ") and " into QLinearConv" in l]
    if (fused.count("Conv"), fused.count("Clip"), fused.count("Relu"), fused.count("QuantizeLinear")) != (3, 1, 1, 3):
        print("FAIL qdq_chain rewrites: %s" % fused)
        failed += 1
    # In the pool model the MaxPool traded places with the DequantizeLinear before it (it runs on
    # int8), so the QuantizeLinear after it read a DequantizeLinear of its scale and went.
    info = subprocess.run(cli + ["info", os.path.join(DATA, "qdq_pool.onnx"), "--backend", "reference"],
                          capture_output=True, text=True).stdout
    dropped = [l.split()[1] for l in info.splitlines() if l.strip().startswith("drop ")]
    if dropped != ["QuantizeLinear"]:
        print("FAIL qdq_pool rewrites: dropped %s" % dropped)
        failed += 1
    # In the add model each Add (and the Relu after the first) went into a QLinearAdd.
    info = subprocess.run(cli + ["info", os.path.join(DATA, "qdq_add.onnx"), "--backend", "reference"],
                          capture_output=True, text=True).stdout
    fused = [l.split()[1] for l in info.splitlines() if l.strip().startswith("fuse ") and " into QLinearAdd" in l]
    if (fused.count("Add"), fused.count("Relu")) != (2, 1):
        print("FAIL qdq_add rewrites: %s" % fused)
        failed += 1
    # The digits' three Convs (with their Relus) run as QLinearConv and its MaxPool on int8.
    info = subprocess.run(cli + ["info", PATHS["digits_int8"][0], "--backend", "reference"],
                          capture_output=True, text=True).stdout
    fused = [l.split()[1] for l in info.splitlines() if l.strip().startswith("fuse ") and " into QLinearConv" in l]
    dropped = [l.split()[1] for l in info.splitlines() if l.strip().startswith("drop ")]
    if (fused.count("Conv"), fused.count("Relu"), dropped) != (3, 3, ["QuantizeLinear"]):
        print("FAIL digits_int8 rewrites: fused %s, dropped %s" % (fused, dropped))
        failed += 1
    for run_ in RUNS:
        name, args, outputs, allowed = run_[:4]
        ref_name = run_[4] if len(run_) > 4 else name
        label = " ".join([name] + args + (["vs", ref_name] if ref_name != name else []))
        with tempfile.TemporaryDirectory() as out:
            model, x = PATHS.get(name, (os.path.join(DATA, name + ".onnx"), os.path.join(DATA, name + "_x.npy")))
            cmd = cli + ["run", model, "--input", "input=" + x, "--outdir", out] + args
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                print("FAIL %s: %s" % (label, run.stderr.strip() or run.stdout.strip()))
                failed += 1
                continue
            notes, bad = [], None
            for o in outputs:
                ours, ref = np.load(os.path.join(out, o + ".npy")), np.load(os.path.join(DATA, "%s_%s.npy" % (ref_name, o)))
                if ours.shape != ref.shape:
                    bad = "%s has shape %s, ORT %s" % (o, ours.shape, ref.shape)
                    break
                d = np.abs(ours.astype(np.float64) - ref)
                if allowed is None:
                    notes.append("%s max diff %.3g" % (o, d.max()))
                    if not np.allclose(ours, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max())):
                        bad = notes[-1]
                    continue
                q = quantum(ref)
                off = np.rint(d / q)
                notes.append("%s: %d of %d elements off by one quantum, %d by more" %
                             (o, int((off == 1).sum()), d.size, int((off > 1).sum())))
                if off.max() > allowed:
                    bad = notes[-1]
            if bad:
                print("FAIL %s: %s" % (label, bad))
                failed += 1
            else:
                print("ok   %s: %s" % (label, "; ".join(notes)))
    print("%d passed, %d failed" % (len(RUNS) + 5 - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
