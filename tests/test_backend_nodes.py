#!/usr/bin/python3
"""The ONNX backend node tests of the operators the bundled backends claim, run through them.

    /usr/bin/python3 tests/test_backend_nodes.py NODE_DIR --backend NAME[,NAME...] [SUBSTRING...]

NODE_DIR holds the node tests (tests/gen_node_tests.py writes them). Each test of an operator
that backends/mmd_openblas.h, backends/mmd_onednn.h or backends/mmd_xnnpack.h claims (Conv, the
pools, BatchNormalization, the element-wise ops, Add, Mul, Sub, Div, Softmax, MatMul, Gemm) runs
twice through `build/mmdeploy run --backend`:
as written, and with every input after the first turned into an initializer, since the node
tests feed weights as graph inputs and a backend may claim a Conv only when its weight is a
constant. The first must give the test's expected outputs, the second the reference kernels'
outputs (rtol 1e-4, atol 1e-5: another summation order). A test the reference kernels cannot run
either (listed in tests/node_expected_fail.txt) is skipped. Prints `ok NAME` or `FAIL NAME: why`,
then `N passed, M failed, K skipped`. The vendor libraries run single-threaded.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

# onnx 1.12 still uses the numpy aliases numpy 1.24 removed.
np.float, np.int, np.bool, np.object = float, int, bool, object
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy")  # make asan-test sets it
OPS = re.compile(r"^test_(conv|maxpool|averagepool|globalaveragepool|batchnorm|relu|leakyrelu|"
                 r"sigmoid|tanh|clip|hardswish|sqrt|exp|log|abs|elu|softplus|add|mul|sub|div|neg|"
                 r"floor|ceil|softmax|matmul|gemm)(_|$)")


class Failure(Exception):
    pass


def cli(args):
    p = subprocess.run([CLI] + args, capture_output=True, text=True)
    if p.returncode != 0:
        lines = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise Failure(lines[-1] if lines else f"exit {p.returncode}")
    return p.stdout


def run(model, inputs, backend, outdir):
    """Output arrays by output name, from `mmdeploy run`."""
    args = ["run", model, "--outdir", outdir] + (["--backend", backend] if backend else [])
    for name, path in inputs:
        args += ["--input", f"{name}={path}"]
    cli(args)
    m = onnx.load(model)
    return {o.name: np.load(os.path.join(outdir, o.name.replace("/", "_").replace(":", "_") + ".npy"))
            for o in m.graph.output}


def compare(got, want, what):
    for name, w in want.items():
        g = got[name]
        if g.shape != w.shape or g.dtype != w.dtype:
            raise Failure(f"{what} {name}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}")
        if not np.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True):
            err = np.abs(g.astype(np.float64) - w.astype(np.float64))
            raise Failure(f"{what} {name}: max error {err.max():.3g}")


def check(test_dir, backend):
    model = os.path.join(test_dir, "model.onnx")
    m = onnx.load(model)
    inits = {t.name for t in m.graph.initializer}
    inputs = [i.name for i in m.graph.input if i.name not in inits]
    data = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))[0]
    feeds = [(n, os.path.join(data, f"input_{k}.pb")) for k, n in enumerate(inputs)]
    want = {}
    for k, o in enumerate(m.graph.output):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"output_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        want[o.name] = numpy_helper.to_array(t)
    with tempfile.TemporaryDirectory() as tmp:
        compare(run(model, feeds, backend, os.path.join(tmp, "as_written")), want, "as written")
        if len(inputs) < 2:
            return
        # Weights as constants: the inputs after the first become initializers.
        for name, path in feeds[1:]:
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            t.name = name
            m.graph.initializer.append(t)
        first = [i for i in m.graph.input if i.name == inputs[0]]
        del m.graph.input[:]
        m.graph.input.extend(first)
        const_model = os.path.join(tmp, "const.onnx")
        onnx.save(m, const_model)
        ref = run(const_model, feeds[:1], None, os.path.join(tmp, "ref"))
        compare(run(const_model, feeds[:1], backend, os.path.join(tmp, "const")), ref, "constant weights")


def main(argv):
    args = argv[1:]
    backend, rest = None, []
    i = 0
    while i < len(args):
        if args[i] == "--backend" and i + 1 < len(args):
            backend = args[i + 1]
            i += 2
        elif args[i].startswith("--backend="):
            backend = args[i].split("=", 1)[1]
            i += 1
        else:
            rest.append(args[i])
            i += 1
    if not backend or not rest:
        sys.exit("usage: test_backend_nodes.py NODE_DIR --backend NAME[,NAME...] [SUBSTRING...]")
    node_dir, filters = rest[0], rest[1:]
    expected_fail = set()
    listed = os.path.join(ROOT, "tests", "node_expected_fail.txt")
    if os.path.exists(listed):
        with open(listed) as f:
            expected_fail = {line.split()[0] for line in f if line.strip() and not line.startswith("#")}
    tests = [d for d in sorted(glob.glob(os.path.join(node_dir, "test_*")))
             if OPS.match(os.path.basename(d)) and (not filters or any(s in d for s in filters))]
    info = cli(["info", "--backend", backend])
    missing = re.findall(r"^\s+(\S+)\s+unavailable", info, re.M)
    if missing:
        print(f"skip: backend {', '.join(missing)} unavailable")
        print(f"0 passed, 0 failed, {len(tests)} skipped")
        return 0
    passed = failed = skipped = 0
    for d in tests:
        name = os.path.basename(d)
        if name in expected_fail:
            skipped += 1
            continue
        try:
            check(d, backend)
        except Failure as e:
            failed += 1
            print(f"FAIL {backend}:{name}: {e}", flush=True)
        else:
            passed += 1
            print(f"ok {backend}:{name}", flush=True)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
