#!/usr/bin/python3
"""`--threads 1` uses one core with every backend, whatever the libraries' environment says.

    /usr/bin/python3 tests/test_backend_threads.py [BACKEND...]

For each backend (reference, then every bundled one, or the ones named) runs `build/mmdeploy
bench` on build/models/resnet18_op13.onnx (tests/gen_torchvision.py makes it) for a few hundred
milliseconds with --threads 1, with OMP_NUM_THREADS=2 and OPENBLAS_NUM_THREADS=2 in its
environment, so that a backend which let its library follow the environment would use two
threads. Two checks, with 0.1 s of slack for loading:
  - the CPU time the process used (user + system) stays within 1.3x its wall time: one busy
    thread takes at most its wall time, two up to twice it (OpenMP's and OpenBLAS's idle
    workers spin). On a loaded machine the wall time stretches, so this alone can pass wrongly;
  - the CPU time of every thread but the busiest (per-thread times from /proc/PID/task) is at
    most 15% of the process's, which contention does not change.
The same run with --threads 2 is reported, not checked: on a loaded two-core machine it proves
nothing. No speed is asserted. A backend the CLI reports unavailable is skipped.
"""
import json
import os
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("MMDEPLOY_BIN") or os.path.join(ROOT, "build", "mmdeploy")
MODELS_DIR = os.path.join(ROOT, "build", "models")
MODEL = os.path.join(MODELS_DIR, "resnet18_op13.onnx")
BACKENDS = ["reference", "openblas", "onednn", "xnnpack"]
TARGET_S = 0.4      # timed part of each run
RATIO = 1.3         # CPU time / wall time allowed with one thread
OTHERS = 0.15       # share of the CPU time allowed outside the busiest thread
SLACK_S = 0.1       # parse, plan and library start-up, which may start threads
TICK = os.sysconf("SC_CLK_TCK")


def thread_times(pid):
    """{thread id: CPU seconds} of a running process, from /proc (empty once it is gone)."""
    times = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return times
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        times[tid] = (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    return times


def bench(backend, threads, iters):
    """One `mmdeploy bench` process: (wall s, CPU s of the process, CPU s of its busiest
    thread, median ms). Thread times are sampled every 20 ms while it runs, so the last 20 ms
    are not in them."""
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2")
    args = [CLI, "bench", MODEL, "--iters", str(iters), "--warmup", "1", "--threads", str(threads)]
    if backend != "reference":
        args += ["--backend", backend]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    last = {}
    while p.poll() is None:
        for tid, t in thread_times(p.pid).items():
            last[tid] = max(t, last.get(tid, 0.0))
        time.sleep(0.02)
    out, errs = p.communicate()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise RuntimeError(f"bench --backend {backend} exited {p.returncode}: {errs.decode().strip()[-200:]}")
    line = out.decode().strip().splitlines()[-1]
    return wall, cpu, max(last.values(), default=0.0), json.loads(line)["median_ms"]


def unavailable(backend):
    out = subprocess.run([CLI, "info", "--backend", backend], capture_output=True, text=True).stdout
    return re.search(rf"^\s+{backend}\s+unavailable", out, re.M) is not None


def main(argv):
    names = argv[1:] or BACKENDS
    if not os.path.exists(MODEL):
        gen = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_torchvision.py"), MODELS_DIR,
                              "resnet18"], capture_output=True, text=True)
        if gen.returncode != 0 or not os.path.exists(MODEL):
            print(f"FAIL setup: cannot make {MODEL}")
            print("0 passed, 1 failed")
            return 1
    passed = failed = skipped = 0
    for backend in names:
        name = f"threads1_{backend}"
        if backend != "reference" and unavailable(backend):
            print(f"skip {name}: backend unavailable")
            skipped += 1
            continue
        try:
            ms = bench(backend, 1, 2)[3]  # a short run sizes the timed one
            iters = max(3, min(200, int(TARGET_S * 1000 / max(ms, 0.1)) + 1))
            wall, cpu, busiest, ms = bench(backend, 1, iters)
            wall2, cpu2, busiest2, _ = bench(backend, 2, iters)
        except (RuntimeError, ValueError, IndexError) as e:
            print(f"FAIL {name}: {e}")
            failed += 1
            continue
        others = cpu - busiest
        detail = (f"{iters} runs of {ms:.1f} ms; --threads 1: cpu {cpu:.2f} s, wall {wall:.2f} s, "
                  f"other threads {others:.2f} s; --threads 2: cpu {cpu2:.2f} s, wall {wall2:.2f} s, "
                  f"other threads {cpu2 - busiest2:.2f} s")
        if cpu > RATIO * wall + SLACK_S or others > OTHERS * cpu + SLACK_S:
            print(f"FAIL {name}: uses more than one core: {detail}")
            failed += 1
        else:
            print(f"ok {name}: {detail}")
            passed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
