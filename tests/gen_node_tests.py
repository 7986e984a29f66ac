#!/usr/bin/python3
"""Generates the ONNX backend node tests (model.onnx plus TensorProto .pb data) into a directory.

Usage: /usr/bin/python3 tests/gen_node_tests.py OUT_DIR
Leaves OUT_DIR/node alone when it already holds tests, so the Makefile can call it on every run.

onnx 1.12's test cases still use numpy aliases that numpy 1.24 removed; they are restored here
before the onnx test modules are imported, which is why this wrapper exists at all.
"""
import os
import shutil
import sys
import warnings

import numpy as np

with warnings.catch_warnings():
    # numpy warns when these names are touched at all; the assignment is the point.
    warnings.simplefilter("ignore")
    np.float, np.int, np.bool, np.object = float, int, bool, object

from onnx.backend.test import cmd_tools  # noqa: E402  (needs the aliases above)


def main() -> int:
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_node_tests.py OUT_DIR\n")
        return 2
    out = sys.argv[1]
    node_dir = os.path.join(out, "node")
    if os.path.isdir(node_dir) and any(n.startswith("test_") for n in os.listdir(node_dir)):
        return 0
    # Generate under a temporary name and move the result in, so an interrupted run never
    # leaves a half-filled directory that the check above would take for a finished one.
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    sys.argv = ["backend-test-tools", "generate-data", "-o", tmp]
    cmd_tools.main()
    os.makedirs(out, exist_ok=True)
    shutil.rmtree(node_dir, ignore_errors=True)
    os.replace(os.path.join(tmp, "node"), node_dir)
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
