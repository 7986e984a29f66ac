#!/usr/bin/python3
"""ResNet-18 at 224x224, whose 56x56 3x3 convolutions take the WINOGRAD path, against torch in
float64: the relative error of the logits (max |ours - float64| over max |float64|) must stay
within 1e-5, the bound issue 11 sets for Winograd. torch's own float32 error is printed beside
it for scale. The portable build (build/mmdeploy-portable, MMD_NO_SIMD), which takes WINOGRAD
for the 28x28 and 14x14 layers too, is checked the same way when it is there (the tests named
portable_...; skipped when it is not built), unless MMDEPLOY_BIN names the one CLI to check.

    /usr/bin/python3 tests/test_winograd.py

The model (torchvision ResNet-18, random weights with calibrated BatchNorm statistics, as
tests/gen_torchvision.py makes them) is exported once into build/winograd. Prints `ok NAME` or
`FAIL NAME: why`, then `N passed, M failed`.
"""
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
import torchvision

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy")
PORTABLE = None if os.environ.get("MMDEPLOY_BIN") else os.path.join(ROOT, "build", "mmdeploy-portable")
OUT = os.path.join(ROOT, "build", "winograd")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_torchvision  # noqa: E402  (after the path it lives on)

SIZE = 224
BOUND = 1e-5


def main():
    os.makedirs(OUT, exist_ok=True)
    model_path = os.path.join(OUT, "resnet18_224.onnx")
    input_path = os.path.join(OUT, "resnet18_224_input.npy")
    torch.manual_seed(gen_torchvision.SEED)
    torch.set_num_threads(2)
    model = torchvision.models.resnet18(weights=None)
    gen_torchvision.calibrate_batchnorm(model)
    x = torch.randn(1, 3, SIZE, SIZE)
    if not os.path.exists(model_path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, x, model_path, opset_version=13, input_names=["input"],
                              output_names=["output"], training=torch.onnx.TrainingMode.EVAL,
                              do_constant_folding=True)
    np.save(input_path, x.numpy())
    with torch.no_grad():
        y32 = model(x).numpy().astype(np.float64)
        y64 = model.double()(x.double()).numpy()
    scale = np.abs(y64).max()
    passed = failed = skipped = 0
    runs = [("", CLI, t) for t in ("1", "2")]
    if PORTABLE and os.access(PORTABLE, os.X_OK):
        runs += [("portable_", PORTABLE, t) for t in ("1", "2")]
    elif PORTABLE:
        print(f"skip portable_resnet18_224_logits_vs_float64: {PORTABLE} not built")
        skipped += 1
    for prefix, cli, threads in runs:
        name = f"{prefix}resnet18_224_logits_vs_float64_threads{threads}"
        with tempfile.TemporaryDirectory() as outdir:
            p = subprocess.run([cli, "run", model_path, "--input", f"input={input_path}", "--outdir", outdir,
                                "--threads", threads], capture_output=True, text=True)
            path = os.path.join(outdir, "output.npy")
            ours = np.load(path).astype(np.float64) if p.returncode == 0 and os.path.exists(path) else None
        if ours is None or ours.shape != y64.shape:
            print(f"FAIL {name}: mmdeploy run: {(p.stderr or p.stdout).strip()[-200:]}")
            failed += 1
            continue
        err = np.abs(ours - y64).max() / scale
        ref = np.abs(y32 - y64).max() / scale
        if err <= BOUND:
            print(f"ok   {name} (relative error {err:.2e}, torch float32 {ref:.2e})")
            passed += 1
        else:
            print(f"FAIL {name}: relative error {err:.2e} > {BOUND:g} (torch float32 {ref:.2e})")
            failed += 1
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
