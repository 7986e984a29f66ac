#!/usr/bin/python3
"""Latency per backend next to ONNX Runtime's, on the same model and input.

    /usr/bin/python3 bench/bench_backends.py [--iters N] [--warmup N] [MODEL...]

For resnet18 and mobilenet_v2 (or the MODELs named: any of tests/gen_torchvision.py's), exports
the torchvision model with random weights at 1x3x224x224, opset 13, into build/bench (once, as
tests/gen_torchvision.py does at 96x96), then times one inference per run, batch 1, one thread:

    reference   build/mmdeploy bench --backend reference   (the reference C kernels)
    openblas    build/mmdeploy bench --backend openblas    (Conv/Gemm/MatMul on cblas_sgemm)
    onednn      build/mmdeploy bench --backend onednn      (oneDNN primitives)
    xnnpack     build/mmdeploy bench --backend xnnpack     (XNNPACK operators, one per node)
    ort         node bench/ort_bench.js                    (onnxruntime-node, CPU provider)

and prints one table: median and best time per run, and each as a multiple of ONNX Runtime's
(x ORT; below 1 is faster). The CLI runs with --threads 1, which the backends' libraries follow
(OpenBLAS, oneDNN's OpenMP, XNNPACK's pthreadpool); ONNX Runtime gets intraOpNumThreads 1. A backend the CLI was built
without, or a missing node/onnxruntime-node, is reported and left out of the table.

The machine's other load shows up in the medians; the best time is the steadier figure.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build", "mmdeploy")
OUT = os.path.join(ROOT, "build", "bench")
BACKENDS = ["reference", "openblas", "onednn", "xnnpack"]

sys.path.insert(0, os.path.join(ROOT, "tests"))
import gen_torchvision  # noqa: E402  (after the path it lives on)


def last_json(out):
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError("no JSON line")


def run(args, env=None):
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return None, msg[-1] if msg else f"exit {p.returncode}"
    try:
        return last_json(p.stdout), None
    except ValueError as e:
        return None, str(e)


def main(argv):
    iters, warmup, names = 20, 3, []
    args = iter(argv[1:])
    for a in args:
        if a in ("--iters", "--warmup"):
            value = int(next(args))
            iters, warmup = (value, warmup) if a == "--iters" else (iters, value)
        else:
            names.append(a)
    names = names or ["resnet18", "mobilenet_v2"]
    if not os.access(CLI, os.X_OK):
        sys.exit(f"{CLI} missing: run make first")

    # 224x224 as the models were trained; the export helper reads its size from SIZE.
    gen_torchvision.SIZE = 224
    os.makedirs(OUT, exist_ok=True)
    for name in names:
        if gen_torchvision.generate(OUT, name):
            print(f"exported {name} (1x3x224x224) into {OUT}", file=sys.stderr)

    rows, notes = [], []
    for name in names:
        files = gen_torchvision.paths(OUT, name)
        model, x = files["op13"], files["input"]
        results = {}
        for be in BACKENDS:
            r, why = run([CLI, "bench", model, "--input", f"input={x}", "--backend", be,
                          "--iters", str(iters), "--warmup", str(warmup), "--threads", "1"])
            if r:
                results[be] = r
            else:
                notes.append(f"{name} {be}: {why}")
        r, why = run(["node", os.path.join(ROOT, "bench", "ort_bench.js"), model, x, str(iters),
                      str(warmup)])
        if r:
            results["ort"] = r
        else:
            notes.append(f"{name} ort: {why}")
        rows.append((name, results))

    ort_version = next((r["ort"].get("version") for _, r in rows if "ort" in r), "")
    print(f"batch 1, 1x3x224x224, one thread, {iters} timed runs after {warmup} warmup"
          f"{'; ONNX Runtime ' + ort_version if ort_version else ''}")
    print(f"{'model':<14} {'backend':<10} {'median ms':>10} {'best ms':>9} {'x ORT':>7} {'best x ORT':>10}")
    for name, results in rows:
        ort = results.get("ort")
        for be in BACKENDS + ["ort"]:
            r = results.get(be)
            if not r:
                continue
            med, best = r["median_ms"], r["min_ms"]
            ratio = f"{med / ort['median_ms']:7.2f}" if ort else f"{'-':>7}"
            best_ratio = f"{best / ort['min_ms']:10.2f}" if ort else f"{'-':>10}"
            print(f"{name:<14} {be:<10} {med:10.2f} {best:9.2f} {ratio} {best_ratio}")
    for note in notes:
        print(f"not measured: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
