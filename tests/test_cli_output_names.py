#!/usr/bin/python3
"""`mmdeploy run` writes every output whatever its name: names that are not portable file names
are renamed as `mmdeploy --help` documents, and the mapping is printed.

    /usr/bin/python3 tests/test_cli_output_names.py

Builds (with Debian's python3-onnx, into a temporary directory) a model whose input goes
through Identity nodes to outputs named: 300 bytes of letters, 300 bytes differing from it only
in the last byte, 'scores/cls:0', 'SCORES/cls:0' (the same file name but for case), '..',
'output_4' (the name '..' is renamed to), 'héllo wörld' and a plain 'ok-name_1.0'. Checks the
file names against the rules, that each file holds the input, and that each renamed output's
name is printed beside its file. Ends "N passed, M failed".
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

np.float, np.int, np.bool, np.object = float, int, bool, object  # onnx 1.12 uses the old aliases
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy")

LONG = "features." * 33 + "abc"  # 300 bytes
NAMES = [LONG, LONG[:-1] + "d", "scores/cls:0", "SCORES/cls:0", "..", "output_4", "héllo wörld",
         "ok-name_1.0"]


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


def expected_files(names):
    """The documented renaming, written from the help text."""
    files = []
    for i, name in enumerate(names):
        raw = name.encode()
        mapped = "".join(chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "._-") else "_"
                         for b in raw)
        if set(raw) <= {ord(".")}:
            mapped = f"output_{i}"
        elif len(raw) > 100:
            mapped = mapped[:80] + f"~{fnv1a(raw):08x}"
        if any(f.lower() == mapped.lower() for f in files):
            mapped += f"~{i}"
        files.append(mapped)
    return files


def main():
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
        outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in NAMES]
        nodes = [helper.make_node("Identity", ["x"], [n]) for n in NAMES]
        model = helper.make_model(helper.make_graph(nodes, "names", [x], outs),
                                  opset_imports=[helper.make_opsetid("", 13)])
        path = os.path.join(tmp, "names.onnx")
        onnx.save(model, path)
        data = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.save(os.path.join(tmp, "x.npy"), data)
        outdir = os.path.join(tmp, "out")
        p = subprocess.run([CLI, "run", path, "--input", f"x={os.path.join(tmp, 'x.npy')}", "--outdir", outdir],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL run: exit {p.returncode}: {p.stderr.strip()}")
            print("0 passed, 1 failed")
            return 1
        for name, file in zip(NAMES, expected_files(NAMES)):
            target = os.path.join(outdir, file + ".npy")
            label = repr(name if len(name) < 40 else name[:20] + "..." + name[-8:])
            why = None
            if not os.path.exists(target):
                why = f"no {file}.npy"
            elif not np.array_equal(np.load(target), data):
                why = f"{file}.npy does not hold the input"
            elif file != name and not any(line.startswith(target) and f"(output '{name}')" in line
                                          for line in p.stdout.splitlines()):
                why = f"the mapping to {file}.npy is not printed"
            if why:
                failed += 1
                print(f"FAIL {label}: {why}")
            else:
                passed += 1
                print(f"ok {label} -> {file}.npy")
        if len(os.listdir(outdir)) != len(NAMES):
            failed += 1
            print(f"FAIL files: {len(os.listdir(outdir))} files for {len(NAMES)} outputs")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
