#!/usr/bin/python3
"""Whole-model tests: the runtime, through build/mmdeploy, against torch.

    /usr/bin/python3 tests/test_models.py [--backend NAME[,NAME...]] [--no-rewrites] [--threads N]
                                          [SUBSTRING...]

Exports torchvision classifiers with tests/gen_torchvision.py into build/models (once), runs
each through `build/mmdeploy run` and compares with torch's output, checks with
`build/mmdeploy info` that the memory plan shares memory, and checks that the shipped digits
model predicts the held-out split exactly as torch did. With SUBSTRINGs, only the tests whose
name contains one of them run. Prints `ok NAME` or `FAIL NAME: why` per test, then
`N passed, M failed`; exits 1 on any failure.

With --backend (e.g. openblas, onednn or openblas,onednn) every run goes through
`build/mmdeploy run --backend ...` and only the tests that run a model are kept (the plan checks
and the classify example do not involve backends), named BACKEND:TEST. A backend the CLI reports
unavailable (built without its library) skips them all: `0 passed, 0 failed, N skipped`. The
vendor libraries run single-threaded, as `run` does without --threads.

With --no-rewrites every run gets `--no-rewrites` (the graph as exported, without the load-time
folds and fusions) and, likewise, only the tests that run a model are kept, named
no-rewrites:TEST. Without it the runs are rewritten, and `rewrites_listed` checks that
`mmdeploy info` lists the rewrites of resnet18 and mobilenet_v2.

The MODEL_threads tests compare --threads N (default 3) with --threads 1 bit for bit; make
tsan-test runs them at 2 and 4 threads under ThreadSanitizer.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy")  # make asan-test sets it
CLASSIFY = os.path.join(os.path.dirname(CLI), "classify")
MODELS_DIR = os.path.join(ROOT, "build", "models")
DATA_DIR = os.path.join(ROOT, "tests", "data")
DIGITS = os.path.join(ROOT, "examples", "models", "digits.onnx")
IMAGES_DIR = os.path.join(ROOT, "examples", "images")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_torchvision  # noqa: E402  (after the path it lives on)


class Failure(Exception):
    pass


def run(args, timeout=300):
    """Runs a program and returns its stdout; a non-zero exit becomes a Failure naming it."""
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"{os.path.basename(args[0])} {args[1]} timed out after {timeout} s")
    except OSError as e:
        raise Failure(f"cannot run {args[0]}: {e.strerror}")
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise Failure(f"{os.path.basename(args[0])} {args[1]} exited {p.returncode}: "
                      f"{msg[-1] if msg else ''}")
    return p.stdout


# --backend's value: every `mmdeploy run` gets it. None runs the reference kernels alone.
BACKEND = None
# --no-rewrites: every `mmdeploy run` gets it.
NO_REWRITES = False
# --threads: the thread count the MODEL_threads tests compare with one thread.
THREADS = 3


def run_model(model, input_path, output_name, extra=()):
    """Our output for one input, read back from the .npy the CLI writes; extra CLI flags after."""
    with tempfile.TemporaryDirectory() as outdir:
        run([CLI, "run", model, "--input", f"input={input_path}", "--outdir", outdir] +
            (["--backend", BACKEND] if BACKEND else []) + (["--no-rewrites"] if NO_REWRITES else []) +
            list(extra))
        path = os.path.join(outdir, f"{output_name}.npy")
        if not os.path.exists(path):
            raise Failure(f"no {output_name}.npy in the outdir")
        return np.load(path)


def check_close(ours, ref):
    """Our reference kernels and torch's (oneDNN: other blocking, other summation order) round
    differently. Torch's own float32 output differs from its float64 output by at most 6e-6 of
    the output scale on these five models, so two float32 implementations should agree to
    ~1e-5; rtol 1e-4 leaves ten times that. The absolute term is relative to the largest output
    because a logit near zero is the difference of large sums, so its own relative error says
    nothing; a real kernel bug moves outputs by a sizeable fraction of the scale and still
    fails."""
    if ours.shape != ref.shape or ours.dtype != ref.dtype:
        raise Failure(f"got {ours.dtype}{list(ours.shape)}, torch {ref.dtype}{list(ref.shape)}")
    if not np.all(np.isfinite(ours)):
        raise Failure("output is not finite")
    scale = float(np.abs(ref).max())
    if not np.allclose(ours, ref, rtol=1e-4, atol=1e-4 * scale):
        err = np.abs(ours - ref)
        i = int(err.argmax())
        raise Failure(f"max |ours - torch| = {err.max():.3g} ({err.max() / scale:.3g} of max|torch|)"
                      f" at {i}: {ours.flat[i]:.6g} vs {ref.flat[i]:.6g}")


# The plan line of `mmdeploy info` (tools/mmdeploy_cli.c, cli_print_plan): the planned, shared
# activation buffer, then what the activations would take if none shared memory.
PLAN_RE = re.compile(r"^\s*activation bytes\s+(\d+) planned, (\d+) if every intermediate", re.M)


def check_plan_shares(model):
    m = PLAN_RE.search(run([CLI, "info", model]))
    if not m:
        raise Failure("no 'activation bytes N planned, M if every intermediate' line in info")
    planned, unshared = int(m.group(1)), int(m.group(2))
    if not 0 < planned < unshared:
        raise Failure(f"{planned} activation bytes planned, not below the {unshared} unshared")


def check_threads_identical(model, files):
    """Three threads (THREADS, --threads N) split every kernel's work differently from one, yet
    each output element is summed in the same order, so the outputs must be bit-identical."""
    one = run_model(model, files["input"], "output", ["--threads", "1"])
    many = run_model(model, files["input"], "output", ["--threads", str(THREADS)])
    if one.tobytes() != many.tobytes():
        diff = np.abs(one.astype(np.float64) - many).max()
        raise Failure(f"--threads {THREADS} differs from --threads 1 (max |diff| {diff:.3g})")


# The rewrites `mmdeploy info` lists (tools/mmdeploy_cli.c, cli_print_rewrites).
REWRITES_RE = re.compile(r"^rewrites \((\d+), (\d+) nodes left", re.M)


def check_rewrites_listed():
    """resnet18 fuses each Relu and residual Add into its Conv; mobilenet_v2 each Clip (ReLU6)
    and residual Add, and the 1x1 expansion of each inverted residual block on planes of 14x14
    and more (at this 96x96 input features.2 to features.4, 48x48 and 24x24) into the depthwise
    convolution after it (mmd PointwiseDepthwise). Each rewrite is one listed line;
    --no-rewrites lists none."""
    for name, want, pointwise in [("resnet18", 25, 0), ("mobilenet_v2", 48, 3)]:
        model = gen_torchvision.paths(MODELS_DIR, name)["op13"]
        out = run([CLI, "info", model])
        m = REWRITES_RE.search(out)
        if not m or int(m.group(1)) != want:
            raise Failure(f"{name}: {m.group(0) if m else 'no rewrites line'}, want {want} rewrites")
        lines = [l for l in out.splitlines() if re.match(r"^  (fold|fuse|drop) ", l)]
        if len(lines) != want:
            raise Failure(f"{name}: {len(lines)} rewrite lines for {want} rewrites")
        fused = [l for l in lines if l.startswith("  fuse FusedConv ") and " into PointwiseDepthwise " in l]
        if len(fused) != pointwise:
            raise Failure(f"{name}: {len(fused)} 1x1 convolutions fused into PointwiseDepthwise, want {pointwise}")
        m = REWRITES_RE.search(run([CLI, "info", model, "--no-rewrites"]))
        if not m or int(m.group(1)) != 0:
            raise Failure(f"{name} --no-rewrites: {m.group(0) if m else 'no rewrites line'}")


def model_tests():
    """(name, function) for every torchvision model and opset, run and plan check; for the last
    opset also the threads check."""
    tests = []
    for name in gen_torchvision.MODELS:
        files = gen_torchvision.paths(MODELS_DIR, name)
        for op in gen_torchvision.OPSETS:
            model = files[f"op{op}"]

            def compare(model=model, files=files):
                check_close(run_model(model, files["input"], "output"), np.load(files["torch"]))

            tests.append((f"{name}_op{op}", compare))
            tests.append((f"{name}_op{op}_plan", lambda model=model: check_plan_shares(model)))
        tests.append((f"{name}_threads", lambda model=model, files=files: check_threads_identical(model, files)))
    return tests


def test_digits_heldout():
    """The whole held-out split as one batch: the predictions must be torch's, every one. The
    smallest gap between a held-out image's two best logits is ~0.4, far above rounding."""
    x = os.path.join(DATA_DIR, "digits_test_x.npy")
    y = np.load(os.path.join(DATA_DIR, "digits_test_y.npy"))
    torch_pred = np.load(os.path.join(DATA_DIR, "digits_torch_pred.npy"))
    logits = run_model(DIGITS, x, "logits")
    if logits.shape != (len(y), 10):
        raise Failure(f"logits shape {list(logits.shape)}, want [{len(y)}, 10]")
    pred = logits.argmax(1)
    differ = np.flatnonzero(pred != torch_pred)
    if len(differ):
        raise Failure(f"{len(differ)} predictions differ from torch, first at {differ[0]}: "
                      f"{pred[differ[0]]} vs {torch_pred[differ[0]]}")
    ours, theirs = (pred == y).mean(), (torch_pred == y).mean()
    if ours != theirs:
        raise Failure(f"accuracy {ours:.4f}, torch {theirs:.4f}")


def test_classify_images():
    """The README example: build/classify names each shipped image's own label first."""
    images = sorted(f for f in os.listdir(IMAGES_DIR) if f.endswith(".png"))
    if not images:
        raise Failure(f"no images in {IMAGES_DIR}")
    out = run([CLASSIFY, DIGITS] + [os.path.join(IMAGES_DIR, f) for f in images])
    lines = out.splitlines()
    if len(lines) != len(images):
        raise Failure(f"{len(lines)} lines for {len(images)} images")
    for image, line in zip(images, lines):
        label = image.split("_")[1]
        m = re.match(r"^(.*): (\d+) \(([0-9.]+)\)", line)
        if not m or os.path.basename(m.group(1)) != image or m.group(2) != label:
            raise Failure(f"{image} (label {label}): {line!r}")


def unavailable_backends(names):
    """The backends of the list that `mmdeploy info` reports unavailable, with its reason."""
    out = run([CLI, "info", "--backend", names])
    missing = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^\s+(\S+)\s+unavailable\s*(.*)$", line)
        if m:
            why = lines[i + 1].strip() if i + 1 < len(lines) else ""
            missing.append(f"{m.group(1)} ({why or m.group(2)})")
    return missing


def main(argv):
    global BACKEND, NO_REWRITES, THREADS
    filters = []
    args = iter(argv[1:])
    for arg in args:
        if arg == "--no-rewrites":
            NO_REWRITES = True
        elif arg == "--backend":
            BACKEND = next(args, None)
        elif arg.startswith("--backend="):
            BACKEND = arg.split("=", 1)[1]
        elif arg == "--threads":
            THREADS = int(next(args, "3"))
        else:
            filters.append(arg)
    if BACKEND == "":
        print("FAIL setup: --backend needs a name")
        print("0 passed, 1 failed")
        return 1
    if not os.access(CLI, os.X_OK):
        print(f"FAIL setup: {CLI} missing (make build/mmdeploy)")
        print("0 passed, 1 failed")
        return 1
    gen = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_torchvision.py"),
                          MODELS_DIR], capture_output=True, text=True)
    if gen.returncode != 0:
        why = (gen.stderr.strip().splitlines() or [f"exit {gen.returncode}"])[-1]
        print(f"FAIL setup: gen_torchvision.py: {why}")
        print("0 passed, 1 failed")
        return 1

    tests = model_tests() + [("digits_heldout", test_digits_heldout),
                             ("digits_plan", lambda: check_plan_shares(DIGITS)),
                             ("classify_images", test_classify_images),
                             ("rewrites_listed", check_rewrites_listed)]
    if NO_REWRITES:
        tests = [(f"no-rewrites:{name}", fn) for name, fn in tests
                 if not name.endswith(("_plan", "_threads")) and name not in ("classify_images", "rewrites_listed")]
    if BACKEND:
        tests = [(f"{BACKEND}:{name}", fn) for name, fn in tests
                 if not name.endswith(("_plan", "_threads")) and name not in ("classify_images", "rewrites_listed")]
        try:
            missing = unavailable_backends(BACKEND)
        except Failure as e:
            print(f"FAIL setup: {e}")
            print("0 passed, 1 failed")
            return 1
        if missing:
            skipped = sum(1 for name, _ in tests if not filters or any(f in name for f in filters))
            print(f"skip: backend {', '.join(missing)} unavailable")
            print(f"0 passed, 0 failed, {skipped} skipped")
            return 0
    passed = failed = 0
    for name, fn in tests:
        if filters and not any(f in name for f in filters):
            continue
        try:
            fn()
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
        else:
            passed += 1
            print(f"ok {name}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
