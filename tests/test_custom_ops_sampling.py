#!/usr/bin/python3
"""Runs MMDeploy's custom sampling and attention operators (mmdeploy_ops.h) through the
`mmdeploy run` command, which is built on the C API, against PyTorch's answers.

usage: /usr/bin/python3 tests/test_custom_ops_sampling.py [OUT_DIR]
The CLI is build/mmdeploy unless MMDEPLOY_BIN names another build.

Generates the cases with gen_custom_ops_sampling.py into OUT_DIR (default
build/custom_ops/sampling), runs each model once and compares every output with
|got - want| <= 1e-5 * max(1, max|want|) + 1e-4 * |want|, integer outputs exactly, shapes and
dtypes always. Cases the runtime must refuse pass when the command fails with the expected text.
Prints "ok NAME" or "FAIL NAME: why" per case and ends with "N passed, M failed"; the exit
status is 1 when any case failed. A failed case leaves what the CLI wrote in OUT_DIR/NAME/got.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RTOL = 1e-4
ATOL = 1e-5


def compare(got, want):
    """None when got matches want, else why not."""
    if got.dtype != want.dtype:
        return "dtype %s, expected %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if want.size == 0:
        return None
    if want.dtype.kind in "iub":
        bad = np.flatnonzero(got.ravel() != want.ravel())
        return None if bad.size == 0 else "%d elements differ, first at %d: %s vs %s" % (
            bad.size, bad[0], got.ravel()[bad[0]], want.ravel()[bad[0]])
    atol = ATOL * max(1.0, float(np.max(np.abs(want))))
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    bound = atol + RTOL * np.abs(want.astype(np.float64))
    bad = np.flatnonzero(~(err <= bound))
    if bad.size == 0:
        return None
    i = bad[0]
    return "%d of %d elements off, first at %d: %r vs %r (max error %.3g)" % (
        bad.size, want.size, i, float(got.ravel()[i]), float(want.ravel()[i]), float(np.nanmax(err)))


def output_file(outdir, name):
    """Where `mmdeploy run` writes output NAME ('/' and ':' become '_')."""
    return os.path.join(outdir, name.replace("/", "_").replace(":", "_") + ".npy")


def run_case(exe, data, case, outdir):
    """None when the case passes, else why it failed."""
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    cmd = [exe, "run", os.path.join(data, case["model"])]
    for name, path in sorted(case["inputs"].items()):
        cmd += ["--input", "%s=%s" % (name, os.path.join(data, path))]
    cmd += ["--outdir", outdir]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "timed out"
    if "error" in case:
        if proc.returncode == 0:
            return "ran, but should fail with '%s'" % case["error"]
        if case["error"] not in proc.stderr:
            return "failed with '%s', expected '%s'" % (proc.stderr.strip(), case["error"])
        return None
    if proc.returncode != 0:
        return "exit %d: %s" % (proc.returncode, proc.stderr.strip())
    for name, ref in sorted(case["outputs"].items()):
        path = output_file(outdir, name)
        if not os.path.exists(path):
            return "no output '%s'" % name
        why = compare(np.load(path), np.load(os.path.join(data, ref)))
        if why:
            return "output '%s': %s" % (name, why)
    return None


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    exe = os.environ.get("MMDEPLOY_BIN", os.path.join(ROOT, "build", "mmdeploy"))
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "custom_ops", "sampling")
    gen = subprocess.run([sys.executable, os.path.join(HERE, "gen_custom_ops_sampling.py"), data],
                         capture_output=True, text=True)
    if gen.returncode != 0:
        print("FAIL generator: %s" % gen.stderr.strip())
        print("0 passed, 1 failed")
        return 1
    with open(os.path.join(data, "cases.json")) as f:
        cases = json.load(f)
    passed = failed = 0
    for case in cases:
        got = os.path.join(data, case["name"], "got")
        why = run_case(exe, data, case, got)
        if why:
            failed += 1
            print("FAIL %s: %s" % (case["name"], why))
        else:
            passed += 1
            shutil.rmtree(got, ignore_errors=True)
            print("ok %s" % case["name"])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
