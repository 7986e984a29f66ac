#!/usr/bin/python3
"""size.py - what `make mcu-size` prints: the flash and stack a firmware pays for the runtime.

    size.py OPS.h BLOB.mmd FIRMWARE.elf OUTDIR [--runtime-max BYTES] [--smaller-than OTHER.elf]
            -- CC FLAGS... SOURCE.c

compiles SOURCE.c (mmdeploy.c) with CC FLAGS several times into OUTDIR: with MMD_ONLY_OPS and no
kernel (the core), with the core and one kernel for each kernel OPS.h lists, and with all of
them (the runtime the firmware links). It prints one line per part,

    core .text N .rodata N
    kernel Conv .text N .rodata N         (what adding that one kernel to the core costs)
    runtime .text N .rodata N             (core and every kernel: shared helpers counted once)
    runtime with messages .text N ...     (when FLAGS define MMD_NO_ERROR_STRINGS: the same
                                           runtime with its error messages, for comparison)

then the blob's size, the worst-case stack depth of session creation and of a run (also with
messages, when FLAGS leave them out), the targets (core .text <= 16 KiB, runtime .text <=
--runtime-max, 24 KiB unless given, each stack <= 2 KiB), the largest single frames,
the linked firmware's sections and its flash (.text, .rodata and .data), with --smaller-than
beside another firmware's (the int8 digits firmware's target: less flash than the float one's),
and checks that the runtime references no heap, stdio or file
function. Exit status 1 when a target is missed or such a function is referenced.

The stack depth is the deepest path through the call graph GCC writes with
-fcallgraph-info=su, each function counted with its -fstack-usage frame. An indirect call
(kernel prepare and eval, the parallel hook) may reach any function of the runtime whose address
is taken (a relocation other than a call refers to it), so the figure is an upper bound for the
runtime's own code. Calls into the C library (memcpy, expf, libgcc helpers) and into callbacks
the caller supplies (backends, profiler, parallel hook) are not counted; they are listed.
"""
import os
import re
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout


def sections(path):
    """Totals of .text*, .rodata*, .data* and .bss* of an object or executable."""
    tot = {".text": 0, ".rodata": 0, ".data": 0, ".bss": 0}
    for line in run(["arm-none-eabi-size", "-A", path]).splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit():
            for k in tot:
                if f[0] == k or f[0].startswith(k + "."):
                    tot[k] += int(f[1])
    return tot


def compile_variant(cc, out, defines, callgraph=False, extra=()):
    cmd = list(cc) + ["-DMMD_ONLY_OPS"] + list(extra) + ["-DMMD_OP_" + d for d in defines] + ["-o", out]
    if callgraph:
        cmd += ["-fstack-usage", "-fcallgraph-info=su"]
    run(cmd)
    return sections(out)


def parse_callgraph(ci_path):
    """Frames {function: bytes}, edges {function: set(callees)} and the indirect call sites
    {function: [source line text]} from a .ci file (VCG)."""
    frames, edges, names, sites = {}, {}, {}, {}
    node = re.compile(r'^node: \{ title: "([^"]*)" label: "([^"\\]*)(?:\\n[^"\\]*)?(?:\\n(\d+) bytes[^"]*)?"')
    edge = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"(?: label: "([^":]*):(\d+):\d+")?')
    for line in open(ci_path):
        m = node.match(line)
        if m:
            names[m.group(1)] = m.group(2)
            if m.group(3) is not None:
                frames[m.group(2)] = int(m.group(3))
            continue
        m = edge.match(line)
        if m and m.group(2) == "__indirect_call":
            with open(m.group(3)) as f:
                text = f.readlines()[int(m.group(4)) - 1]
            sites.setdefault(names.get(m.group(1), m.group(1)), []).append(text.strip())
        elif m:
            edges.setdefault(names.get(m.group(1), m.group(1)), set()).add(names.get(m.group(2), m.group(2)))
    return frames, edges, sites


def address_taken(obj):
    """Functions whose address the object stores (any relocation that is not a call or jump),
    as (prepare, eval, other): the kernel table (mmd__kernels) holds each entry's prepare, then
    its eval; other tables and literal pools hold the rest (row functions, parallel tasks)."""
    funcs = set()
    for line in run(["arm-none-eabi-readelf", "-sW", obj]).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC":
            funcs.add(f[7])
    table = []
    other = set()
    section = ""
    for line in run(["arm-none-eabi-readelf", "-rW", obj]).splitlines():
        if line.startswith("Relocation section"):
            section = line.split("'")[1]
            continue
        f = line.split()
        if len(f) >= 5 and f[2].startswith("R_ARM_") and f[4] in funcs and \
                f[2] not in ("R_ARM_THM_CALL", "R_ARM_THM_JUMP24", "R_ARM_CALL", "R_ARM_JUMP24"):
            if section == ".rel.rodata.mmd__kernels":
                table.append(f[4])
            else:
                other.add(f[4])
    return set(table[0::2]), set(table[1::2]), other


def indirect_targets(site, taken):
    """What the indirect call on this source line may reach; None for a caller's callback."""
    prepare, evaluate, other = taken
    if "->prepare(" in site:
        return prepare
    if "->eval(" in site:
        return evaluate
    if re.search(r"profiler\(|parallel\(|\bb->\w+\(", site):
        return None
    return other


def deepest(root, frames, edges, sites, taken):
    """(bytes, path, external callees) of the deepest call chain from root. The runtime has no
    recursion, so an indirect call is taken to reach no function already on the chain; a cycle
    of direct calls is an error."""
    memo, external = {}, set()

    def visit(fn, chain):
        # Only the address-taken functions on the chain change what fn may reach.
        key = (fn, frozenset(chain & (taken[0] | taken[1] | taken[2])))
        if key in memo:
            return memo[key]
        best = (0, [])
        inner = chain | {fn}
        calls = [(c, None) for c in sorted(edges.get(fn, ()))] + [(None, t) for t in sites.get(fn, ())]
        for c, site in calls:
            if site is not None:
                targets = indirect_targets(site, taken)
                if targets is None:
                    external.add("callback " + re.search(r"([\w>.-]*(?:profiler|parallel|b->\w+))\(", site).group(1))
                    continue
                targets = targets - inner
            elif c in inner:
                raise SystemExit("size.py: %s calls %s, which is on its call chain: stack depth unbounded" % (fn, c))
            elif c in frames:
                targets = [c]
            else:
                external.add(c)
                continue
            for t in sorted(targets):
                d = visit(t, inner)
                if d[0] > best[0]:
                    best = d
        memo[key] = (frames[fn] + best[0], [fn] + best[1])
        return memo[key]

    depth, path = visit(root, frozenset())
    return depth, path, external


def flash(fw):
    """Bytes a firmware's sections (from sections()) take in flash: code, constants and the
    initial values of .data."""
    return fw[".text"] + fw[".rodata"] + fw[".data"]


def main(argv):
    if "--" not in argv or argv.index("--") < 5 or argv.index("--") % 2 == 0:
        raise SystemExit(__doc__)
    ops_h, blob, elf, outdir = argv[1:5]
    opts = dict(zip(argv[5:argv.index("--"):2], argv[6:argv.index("--"):2]))
    if set(opts) - {"--runtime-max", "--smaller-than"}:
        raise SystemExit(__doc__)
    runtime_max = int(opts.get("--runtime-max", 24576))
    other = opts.get("--smaller-than")
    cc = argv[argv.index("--") + 1:]
    os.makedirs(outdir, exist_ok=True)
    lines = [l.split() for l in open(ops_h) if l.startswith("#define ")]
    kernels = [f[1][len("MMD_OP_"):] for f in lines if f[1].startswith("MMD_OP_")]
    # The header's other settings (MMD_NO_REWRITES for a graph with nothing to rewrite) apply to
    # every part, as the firmware build applies them.
    extra = ["-D" + f[1] + ("=" + f[2] if len(f) > 2 else "") for f in lines
             if not f[1].startswith("MMD_OP_") and f[1] != "MMD_ONLY_OPS"]

    core = compile_variant(cc, os.path.join(outdir, "core.o"), [], extra=extra)
    print("core .text %d .rodata %d" % (core[".text"], core[".rodata"]))
    for k in kernels:
        s = compile_variant(cc, os.path.join(outdir, "kernel-%s.o" % k), [k], extra=extra)
        print("kernel %s .text %d .rodata %d" % (k, s[".text"] - core[".text"], s[".rodata"] - core[".rodata"]))
    obj = os.path.join(outdir, "runtime.o")
    rt = compile_variant(cc, obj, kernels, callgraph=True, extra=extra)
    print("runtime .text %d .rodata %d .data %d .bss %d   (core and %s)"
          % (rt[".text"], rt[".rodata"], rt[".data"], rt[".bss"], " ".join(kernels)))
    objs = [("", obj)]
    if "-DMMD_NO_ERROR_STRINGS" in cc:
        objs.append((" with messages", os.path.join(outdir, "runtime-messages.o")))
        msg = compile_variant(cc, objs[1][1], kernels, callgraph=True, extra=extra + ["-UMMD_NO_ERROR_STRINGS"])
        print("runtime with messages .text %d .rodata %d   (the same without MMD_NO_ERROR_STRINGS)"
              % (msg[".text"], msg[".rodata"]))
    print("blob %s %d bytes" % (os.path.basename(blob), os.path.getsize(blob)))

    # The stack targets hold with and without the messages (formatting them takes stack).
    stacks = []
    for note, o in objs:
        frames, edges, sites = parse_callgraph(o[:-2] + ".ci")
        taken = address_taken(o)
        for what, root in (("create", "mmd_session_create"), ("run", "mmd_session_run")):
            depth, path, external = deepest(root, frames, edges, sites, taken)
            stacks.append(("stack %s%s" % (what, note), depth))
            print("stack %s%s %d bytes worst case: %s" % (what, note, depth,
                  " > ".join("%s %d" % (f, frames[f]) for f in path)))
            print("  not counted, calls into: %s" % " ".join(sorted(external)))
        if not note:
            largest = sorted(frames.items(), key=lambda x: -x[1])[:5]
    fw = sections(elf)
    targets = [("core .text", core[".text"], 16384), ("runtime .text", rt[".text"], runtime_max)] + \
              [(n, v, 2048) for n, v in stacks]
    if other:
        # Strictly less: the limit is one byte under the other firmware's flash.
        targets.append(("firmware flash", flash(fw), flash(sections(other)) - 1))
    over = [t for t in targets if t[1] > t[2]]
    print("targets (-Os Thumb-2): " + ", ".join("%s %d <= %d %s" % (n, v, lim, "ok" if v <= lim else "OVER")
                                                for n, v, lim in targets))
    print("largest frames: " + ", ".join("%s %d" % (f, b) for f, b in largest))

    print("firmware %s .text %d .rodata %d .data %d .bss %d, flash %d   (runtime, blob, demo, libc and libm parts)"
          % (os.path.basename(elf), fw[".text"], fw[".rodata"], fw[".data"], fw[".bss"], flash(fw)))
    if other:
        o = sections(other)
        print("beside %s: flash %d against %d (%+d), .bss %d against %d (%+d)"
              % (other, flash(fw), flash(o), flash(fw) - flash(o), fw[".bss"], o[".bss"], fw[".bss"] - o[".bss"]))
    banned = re.compile(r"^_*(malloc|calloc|realloc|free|[a-z]*printf|[a-z]*scanf|puts|putchar|getchar|fopen|"
                        r"fclose|fread|fwrite|fseek|ftell|fflush|fputs|fputc|fgets|fgetc|open|read|write|close|"
                        r"sbrk|fstat|isatty|lseek|abort|exit|assert_func)(_r)?$")
    undefined = [l.split()[-1] for l in run(["arm-none-eabi-nm", "-u", obj]).splitlines() if l.strip()]
    bad = [u for u in undefined if banned.match(u)]
    if bad:
        print("FAIL the runtime references: " + " ".join(bad))
        return 1
    if over:
        print("FAIL over target: " + ", ".join(t[0] for t in over))
        return 1
    print("ok   the runtime references no heap, stdio or file function (arm-none-eabi-nm -u)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
