#!/usr/bin/python3
"""Runs the MMDeploy detection custom-op cases of tests/gen_custom_ops_det.py through
`mmdeploy run` and compares every output with its reference: float outputs within the case's
rtol/atol (NaN where the reference has NaN), integer outputs exactly, shapes and dtypes always.
Cases that name an error must make the run fail with that text in its message.

Prints `ok name` or `FAIL name: why` per case and ends with `N passed, M failed`.

Usage: /usr/bin/python3 tests/test_custom_ops_det.py [OUT_DIR]
The CLI is build/mmdeploy unless MMDEPLOY_BIN names another build.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check(cli, data, case):
    with tempfile.TemporaryDirectory() as out:
        cmd = [cli, "run", os.path.join(data, case["model"]), "--outdir", out]
        for name, f in case["inputs"].items():
            cmd += ["--input", "%s=%s" % (name, os.path.join(data, f))]
        run = subprocess.run(cmd, capture_output=True, text=True)
        msg = (run.stderr.strip() or run.stdout.strip()).replace("\n", " | ")
        if "error" in case:
            if run.returncode == 0:
                return "ran, but should fail with '%s'" % case["error"]
            return None if case["error"] in msg else "failed without '%s': %s" % (case["error"], msg)
        if run.returncode != 0:
            return "mmdeploy run failed: " + msg
        for name, f in case["outputs"].items():
            want = np.load(os.path.join(data, f))
            path = os.path.join(out, name + ".npy")
            if not os.path.exists(path):
                return "no output '%s'" % name
            got = np.load(path)
            if got.dtype != want.dtype or got.shape != want.shape:
                return "%s: %s %s, want %s %s" % (name, got.dtype, got.shape, want.dtype, want.shape)
            if want.dtype.kind == "f":
                if not np.allclose(got, want, rtol=case["rtol"], atol=case["atol"], equal_nan=True):
                    bad = np.argwhere(~np.isclose(got, want, rtol=case["rtol"], atol=case["atol"], equal_nan=True))
                    at = tuple(bad[0])
                    return "%s: %d values differ, first at %s: %r, want %r" % (name, len(bad), at, got[at], want[at])
            elif not np.array_equal(got, want):
                rows = np.argwhere(got != want)
                return "%s differs, first at %s: %r, want %r" % (name, tuple(rows[0]), got[tuple(rows[0])],
                                                                 want[tuple(rows[0])])
    return None


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "custom_ops", "det")
    cli = os.environ.get("MMDEPLOY_BIN", os.path.join(ROOT, "build", "mmdeploy"))
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_custom_ops_det.py"), data], check=True)
    with open(os.path.join(data, "manifest.json")) as f:
        cases = json.load(f)
    passed = failed = 0
    for case in cases:
        why = check(cli, data, case)
        if why:
            failed += 1
            print("FAIL %s: %s" % (case["name"], why))
        else:
            passed += 1
            print("ok   %s" % case["name"])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
