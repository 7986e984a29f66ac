/* tools/mmdeploy_cli.c - the `mmdeploy` command: inspect an ONNX model, run it on .npy or
   TensorProto files, time it; run an MMDeploy model directory on an image (`sdk`, when built
   with the SDK). Built by `make build/mmdeploy` against the runtime object.

   Every failure ends the command with one line "mmdeploy: <what went wrong>" on stderr and a
   non-zero exit status (1; 2 for a command line that makes no sense). Text that comes from a
   model or a file (tensor names, error messages) is printed with control characters replaced,
   so a hostile model cannot write escape sequences to the terminal or split a line. */
#define _POSIX_C_SOURCE 200809L /* mkdir, stat, clock_gettime */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "mmdeploy.h"
#include "mmdeploy_ir.h"  /* mmd_model_parse, mmd_tensor_proto_decode: info and .pb inputs */
#include "mmdeploy_ops.h" /* mmd_ops_find: info lists every operator without a kernel */
#include "backends/mmd_onednn.h"   /* the bundled backends, built real or as stubs in */
#include "backends/mmd_openblas.h" /* build/mmd_backends.o (backends/mmd_backends.c) */
#include "backends/mmd_xnnpack.h"
#define MMD_NPY_IMPLEMENTATION
#include "mmd_firmware_arena.h"
#include "mmd_npy.h"
/* The SDK (mmdeploy_sdk.o, cJSON and stb) when the Makefile found cJSON and stb; without it
   `mmdeploy sdk` says so and everything else works. */
#ifndef MMD_HAVE_SDK
#define MMD_HAVE_SDK 0
#endif
#if MMD_HAVE_SDK
#include "mmdeploy_sdk.h"
#include "mmd_sdk_json.h"
#endif

/* In two parts: C99 compilers need only take string literals of 4095 bytes. */
static const char *const cli_usage[2] = {
    "usage: mmdeploy <command> MODEL.onnx [options]\n"
    "\n"
    "commands:\n"
    "  info  [MODEL.onnx] [--backend NAME[,NAME...]] [--no-rewrites]\n"
    "        the backends (availability, version, environment); with a model also its inputs,\n"
    "        outputs, ir_version, producer, opsets, operator counts, every operator without a\n"
    "        kernel, the load-time rewrites, the nodes each backend claims (and those it refused\n"
    "        at prepare, with why) and the memory plan for the declared shapes (symbolic dims =\n"
    "        1). Without --backend every bundled backend is listed and tried.\n"
    "  run   MODEL.onnx [--input [NAME=]FILE]... [--outdir DIR] [--backend NAME[,NAME...]]\n"
    "        [--threads N] [--no-rewrites]\n"
    "        runs the model once and writes each output to DIR/<output name>.npy; DIR defaults\n"
    "        to \".\" and is created if missing. A name that is not a portable file name is\n"
    "        renamed, and printed beside its file: bytes other than A-Z a-z 0-9 . _ - become\n"
    "        '_', past 100 bytes it keeps 80 and adds ~ and 8 hex digits of its hash, an empty\n"
    "        or all-dots name becomes output_<index>, and a file name taken already (ignoring\n"
    "        case) gets ~<index>\n"
    "  bench MODEL.onnx [--input [NAME=]FILE]... [--iters N] [--warmup N] [--threads N]\n"
    "        [--backend NAME[,NAME...]] [--profile] [--no-rewrites]\n"
    "        times the load (parse, create, prepare) and --iters runs (default 10) after\n"
    "        --warmup untimed runs (default 1); the last line printed is one JSON object:\n"
    "        {\"median_ms\":..., \"min_ms\":..., \"load_ms\":..., \"arena_bytes\":..., \"packed_bytes\":...,\n"
    "        \"threads\":..., \"isa\":..., \"nodes\":..., \"rewrites\":...}\n"
    "        --threads N: each node may use N threads (default 1); results do not depend on N\n"
    "        --profile: before the JSON line, a table of the nodes by time per run (op type,\n"
    "        backend, ms, %, name) and the same by op type\n"
    "  convert MODEL.onnx [-o OUT.mmd] [--c-array OUT.c [--name NAME]] [--ops-header OPS.h]\n"
    "        [--no-rewrites]\n"
    "        writes the model for firmware as a .mmd blob: validated, constants folded and\n"
    "        memory planned for the declared shapes (symbolic dims = 1), weights 16-byte\n"
    "        aligned so they are read in place from flash. --c-array writes the blob as an\n"
    "        aligned C array (OUT.c) and OUT.h with its extern declaration and the macros\n"
    "        NAME_SIZE, NAME_ARENA_BYTES (the exact arena it needs: with MMD_CONV_SMALL defined,\n"
    "        that of a firmware build) and NAME_SCRATCH_BYTES;\n"
    "        NAME defaults to OUT's base name. --ops-header writes the MMD_ONLY_OPS list of\n"
    "        the kernels the blob runs. MODEL may be a .mmd blob too. Prints the flash bytes,\n"
    "        the arena bytes and the largest scratch; info prints the same for any model.\n"
    "  sdk   MODEL_DIR IMAGE [--device cpu]\n"
    "        runs an MMDeploy model directory (deploy.json, pipeline.json, the network) on an\n"
    "        image file (anything stb_image reads) through the SDK (mmdeploy_sdk.h), the handle\n"
    "        chosen by deploy.json's task, and prints one JSON object {\"task\": ..., \"result\":\n"
    "        ...}: Classifier [[label, score], ...], Detector [[label, score, left, top,\n"
    "        right, bottom], ...], RotatedDetector [[label, score, cx, cy, w, h, angle], ...],\n"
    "        PoseDetector [[[x, y, score], ...]] (the whole image as the box), TextDetector\n"
    "        [[score, x0, y0, ..., x3, y3], ...], TextRecognizer {\"text\": ..., \"score\":\n"
    "        [...]}, Segmentor {\"height\", \"width\", \"classes\", \"mask\" or \"score\":\n"
    "        row-major}. A failure prints the SDK's message and its status. Needs a CLI built\n"
    "        with cJSON and stb (libcjson-dev, libstb-dev); otherwise it says so.\n"
    "\n",
    "backends:\n"
    "  --backend openblas,onednn runs each node on the first listed backend that claims it and\n"
    "  on the reference CPU kernels otherwise (they are always the last fallback; the name\n"
    "  'reference' alone means no backend). A listed backend that cannot be used is an error.\n"
    "  Bundled: openblas (Conv, Gemm, MatMul through sgemm), onednn (Conv, pools,\n"
    "  BatchNormalization, element-wise, Gemm, MatMul primitives). Each is a stub that reports\n"
    "  itself unavailable when the CLI was built without the library.\n"
    "\n"
    "inputs:\n"
    "  FILE is a .npy file (C order) or an ONNX TensorProto .pb file. Its dtype must be the\n"
    "  model's (no conversion); its shape sets the input's symbolic dims. A FILE without NAME=\n"
    "  binds by position: the k-th such FILE is the k-th graph input; FILE may also follow the\n"
    "  model without --input. bench fills inputs not given with uniform [0,1) floats (zeros for\n"
    "  other dtypes) of the declared shape, symbolic dims set to 1.\n"
    "\n"
    "--no-rewrites: the graph as written, without the load-time folds and fusions\n"
    "\n"
    "  -h, --help     this text\n"
    "  --version      the runtime version\n"
    "\n"
    "exit status: 0 on success, 1 on failure, 2 on a bad command line\n"};

static void cli_print_usage(FILE *f) {
    fputs(cli_usage[0], f);
    fputs(cli_usage[1], f);
}

/* ==== >>output ==== */
/* Control characters (model-supplied names included) become '?', so each line stays one line. */
static void cli_vline(FILE *f, const char *prefix, const char *fmt, va_list ap) {
    char line[2048];
    size_t i;
    vsnprintf(line, sizeof line, fmt, ap);
    for (i = 0; line[i]; ++i)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f) line[i] = '?';
    fprintf(f, "%s%s\n", prefix, line);
}

/* One line of report on stdout. */
static void cli_line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_vline(stdout, "", fmt, ap);
    va_end(ap);
}

/* The one-line error; returns the exit status 1 so callers can `return cli_fail(...)`. */
static int cli_fail(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    cli_vline(stderr, "mmdeploy: ", fmt, ap);
    va_end(ap);
    return 1;
}

/* A runtime failure: what was being done, the status string and the runtime's message. */
static int cli_fail_err(const char *what, const mmd_error *err) {
    const char *hint = err->status == MMD_ERR_NO_KERNEL ? " ('mmdeploy info' lists every operator "
                                                          "without a kernel)" : "";
    if (!err->msg[0]) return cli_fail("%s: %s%s", what, mmd_status_string(err->status), hint);
    return cli_fail("%s: %s: %s%s", what, mmd_status_string(err->status), err->msg, hint);
}

/* "[1, 3, height, width]": symbolic dims by name, unknown ones as '?'. */
static const char *cli_shape(char *buf, size_t cap, int32_t rank, const int64_t *dims,
                             const char *const *params) {
    size_t len = 0;
    int32_t i;
    if (rank < 0) {
        snprintf(buf, cap, "(no shape)");
        return buf;
    }
    len += (size_t)snprintf(buf, cap, "[");
    for (i = 0; i < rank && len < cap; ++i) {
        const char *sep = i ? ", " : "";
        if (params && params[i])
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", sep, params[i]);
        else if (dims[i] < 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s?", sep);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%lld", sep, (long long)dims[i]);
    }
    if (len < cap) snprintf(buf + len, cap - len, "]");
    return buf;
}

static const char *cli_domain(const char *domain) {
    return domain && domain[0] ? domain : "ai.onnx";
}

static double cli_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ==== >>files ==== */
/* Reads a whole file into one malloc block (aligned for every dtype, as the runtime wants for
   weights read in place). The block has one spare byte so an empty file is not a NULL. */
static int cli_read_file(const char *path, unsigned char **out, size_t *out_size) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t size = 0, cap = 0;
    if (!f) return cli_fail("cannot open '%s': %s", path, strerror(errno));
    for (;;) {
        size_t got;
        if (size == cap) {
            size_t next = cap ? cap * 2 : (size_t)1 << 16;
            unsigned char *grown = next > cap ? (unsigned char *)realloc(buf, next + 1) : NULL;
            if (!grown) {
                free(buf);
                fclose(f);
                return cli_fail("cannot read '%s': out of memory after %zu bytes", path, size);
            }
            buf = grown;
            cap = next;
        }
        got = fread(buf + size, 1, cap - size, f);
        size += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        return cli_fail("cannot read '%s': %s", path, strerror(e));
    }
    fclose(f);
    *out = buf;
    *out_size = size;
    return 0;
}

/* mkdir -p: each missing component of dir is created. */
static int cli_make_dir(const char *dir) {
    size_t len = strlen(dir), i;
    char *path = (char *)malloc(len + 1);
    struct stat st;
    if (!path) return cli_fail("out of memory");
    memcpy(path, dir, len + 1);
    for (i = 1; i <= len; ++i) {
        if (path[i] != '/' && path[i] != '\0') continue;
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            free(path);
            return cli_fail("cannot create directory '%s': %s", dir, strerror(e));
        }
        path[i] = dir[i];
    }
    free(path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_fail("output directory '%s' is not a directory", dir);
    return 0;
}

/* ==== >>command line ==== */
typedef struct cli_args {
    const char *command;             /* "info", "run", "bench" or "convert" */
    const char *model;
    const char **inputs;             /* "[NAME=]FILE" in the order given */
    int32_t input_count;
    const char *outdir;
    long iters, warmup, threads;
    const char *backends;            /* --backend's list, NULL when not given */
    int profile;                     /* bench --profile */
    int no_rewrites;                 /* --no-rewrites */
    const char *output, *c_array, *c_name, *ops_header; /* convert: -o, --c-array, --name,
                                                           --ops-header; NULL when not given */
} cli_args;

/* The options only convert takes (and the only ones it takes). */
static int cli_is_convert_option(const char *name) {
    return !strcmp(name, "-o") || !strcmp(name, "--output") || !strcmp(name, "--c-array") ||
           !strcmp(name, "--name") || !strcmp(name, "--ops-header");
}

/* A command line that makes no sense: the one-line error, exit status 2. */
static int cli_usage_error(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_fail("%s (see 'mmdeploy --help')", msg);
    return 2;
}

static int cli_parse_count(const char *opt, const char *text, long lo, long hi, long *out) {
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < lo || v > hi) {
        cli_fail("%s '%s': expected a whole number in %ld..%ld (see 'mmdeploy --help')", opt, text,
                 lo, hi);
        return 2;
    }
    *out = v;
    return 0;
}

/* Fills a from argv; returns 0, or the exit status after printing the problem. Options may come
   before or after the model, as "--opt value" or "--opt=value". */
static int cli_parse_args(int argc, char **argv, cli_args *a) {
    int i, rc;
    memset(a, 0, sizeof *a);
    a->command = argv[1];
    a->outdir = ".";
    a->iters = 10;
    a->warmup = 1;
    a->threads = 1;
    if (strcmp(a->command, "info") && strcmp(a->command, "run") && strcmp(a->command, "bench") &&
        strcmp(a->command, "convert"))
        return cli_usage_error("unknown command '%s'", a->command);
    a->inputs = (const char **)malloc(sizeof(char *) * (size_t)argc);
    if (!a->inputs) return cli_fail("out of memory");
    for (i = 2; i < argc; ++i) {
        const char *arg = argv[i], *value = NULL, *eq;
        char name[32];
        size_t name_len;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            cli_print_usage(stdout);
            return -1;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (!a->model) a->model = arg;
            else if (strcmp(a->command, "info") == 0 || strcmp(a->command, "convert") == 0)
                return cli_usage_error("%s takes one model, not '%s'", a->command, arg);
            else a->inputs[a->input_count++] = arg;
            continue;
        }
        eq = strchr(arg, '=');
        name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (name_len >= sizeof name) return cli_usage_error("unknown option '%s'", arg);
        memcpy(name, arg, name_len);
        name[name_len] = '\0';
        if (strcmp(name, "--input") && strcmp(name, "--outdir") && strcmp(name, "--iters") &&
            strcmp(name, "--warmup") && strcmp(name, "--threads") && strcmp(name, "--backend") &&
            strcmp(name, "--profile") && strcmp(name, "--no-rewrites") && !cli_is_convert_option(name))
            return cli_usage_error("unknown option '%s'", name);
        if (strcmp(name, "--no-rewrites") == 0) {
            /* Every command takes it. */
            if (eq) return cli_usage_error("--no-rewrites takes no value");
            a->no_rewrites = 1;
            continue;
        }
        if ((strcmp(a->command, "convert") == 0) != cli_is_convert_option(name) ||
            (strcmp(a->command, "info") == 0 && strcmp(name, "--backend")) ||
            (strcmp(a->command, "run") == 0 && strcmp(name, "--input") && strcmp(name, "--outdir") &&
             strcmp(name, "--backend") && strcmp(name, "--threads")) ||
            (strcmp(a->command, "bench") == 0 && strcmp(name, "--outdir") == 0))
            return cli_usage_error("option %s does not apply to '%s'", name, a->command);
        if (strcmp(name, "--profile") == 0) {
            if (eq) return cli_usage_error("--profile takes no value");
            a->profile = 1;
            continue;
        }
        if (eq) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else return cli_usage_error("option %s needs a value", name);
        if (strcmp(name, "--input") == 0) a->inputs[a->input_count++] = value;
        else if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) a->output = value;
        else if (strcmp(name, "--c-array") == 0) a->c_array = value;
        else if (strcmp(name, "--name") == 0) a->c_name = value;
        else if (strcmp(name, "--ops-header") == 0) a->ops_header = value;
        else if (strcmp(name, "--backend") == 0) a->backends = value;
        else if (strcmp(name, "--outdir") == 0) a->outdir = value;
        else if (strcmp(name, "--iters") == 0) {
            if ((rc = cli_parse_count(name, value, 1, 100000000L, &a->iters))) return rc;
        } else if (strcmp(name, "--warmup") == 0) {
            if ((rc = cli_parse_count(name, value, 0, 100000000L, &a->warmup))) return rc;
        } else if ((rc = cli_parse_count(name, value, 1, 4096, &a->threads))) {
            return rc;
        }
    }
    if (!a->model && strcmp(a->command, "info") != 0)
        return cli_usage_error("%s needs a model file", a->command);
    if (strcmp(a->command, "convert") == 0 && !a->output && !a->c_array && !a->ops_header)
        return cli_usage_error("convert needs -o, --c-array or --ops-header");
    if (a->c_name && !a->c_array) return cli_usage_error("--name names the --c-array");
    if (!a->outdir[0]) return cli_usage_error("--outdir needs a directory name");
    /* Output paths are built in fixed buffers (cli_output_file) with room for this and a name. */
    if (strlen(a->outdir) > 1024) return cli_usage_error("--outdir is longer than 1024 bytes");
    return 0;
}

/* ==== >>backends ==== */
#define CLI_BUNDLED 3

/* The bundled backends, in their default priority order, and the registry --backend builds. */
typedef struct cli_backends {
    mmd_backend bundled[CLI_BUNDLED];
    mmd_backend_registry reg;
    int explicit_list;               /* 1: --backend named them, so each must be usable */
} cli_backends;

/* Registers the backends --backend lists, in its order ("reference" adds none: the reference
   kernels always come last). Without --backend, info registers every bundled backend and run
   and bench none. Returns 0 or the exit status after printing the problem. */
static int cli_backends_init(cli_backends *cb, const char *list, int all_if_none) {
    int32_t i;
    memset(cb, 0, sizeof *cb);
    mmd_openblas_backend(&cb->bundled[0]);
    mmd_onednn_backend(&cb->bundled[1]);
    mmd_xnnpack_backend(&cb->bundled[2]);
    if (!list) {
        for (i = 0; i < CLI_BUNDLED && all_if_none; ++i) mmd_backend_register(&cb->reg, &cb->bundled[i], NULL);
        return 0;
    }
    cb->explicit_list = 1;
    while (*list) {
        const char *end = strchr(list, ',');
        size_t len = end ? (size_t)(end - list) : strlen(list);
        mmd_error err;
        memset(&err, 0, sizeof err);
        for (i = 0; i < CLI_BUNDLED; ++i)
            if (strlen(cb->bundled[i].name) == len && strncmp(cb->bundled[i].name, list, len) == 0) break;
        if (len == 9 && strncmp(list, "reference", 9) == 0) {
            /* The fallback is implied; naming it documents the order. */
        } else if (i == CLI_BUNDLED) {
            return cli_usage_error("--backend: unknown backend '%.*s' (known: openblas, onednn, xnnpack, reference)",
                                   (int)len, list);
        } else if (mmd_backend_register(&cb->reg, &cb->bundled[i], &err) != MMD_OK) {
            return cli_usage_error("--backend: %s", err.msg);
        }
        list += len;
        if (*list == ',') ++list;
    }
    return 0;
}

/* One line per backend: availability, version, and what check_env says. */
static void cli_print_backends(const mmd_backend_registry *r) {
    int32_t i;
    cli_line("backends (priority order; the reference CPU kernels run every node left):");
    if (r->count == 0) cli_line("  none");
    for (i = 0; i < r->count; ++i) {
        const mmd_backend *b = r->items[i];
        char version[256] = "", env[256] = "";
        int avail = !b->is_available || b->is_available(b->user);
        if (b->get_version) b->get_version(b->user, version, sizeof version);
        if (b->check_env) b->check_env(b->user, env, sizeof env);
        cli_line("  %-10s %-12s %s", b->name, avail ? "available" : "unavailable", version);
        if (env[0]) cli_line("  %-10s %-12s %s", "", "", env);
    }
}

/* A set node's members (a backend's subgraph claim), counted per op type. */
static void cli_print_set(const mmd_node *set) {
    char counts[1024];
    size_t len = 0;
    int32_t i, j;
    counts[0] = '\0';
    for (i = 0; i < set->member_count; ++i) {
        int32_t n = 0;
        for (j = 0; j < i && strcmp(set->members[j].op_type, set->members[i].op_type) != 0; ++j) {}
        if (j < i) continue;
        for (j = i; j < set->member_count; ++j) n += strcmp(set->members[j].op_type, set->members[i].op_type) == 0;
        if (len < sizeof counts)
            len += (size_t)snprintf(counts + len, sizeof counts - len, "%s%s %d", len ? ", " : "",
                                    set->members[i].op_type, (int)n);
    }
    cli_line("  %-10s         set of %d nodes: %s", "", (int)set->member_count, counts);
}

/* The nodes each backend of s runs, with counts per op type, as the session numbers them
   (after its rewrites); a backend's set counts as one node, its members listed below it. */
static void cli_print_claims(const mmd_session *s, int with_reference) {
    const mmd_model *m = mmd_session_model(s);
    int32_t b, i, j, nb = mmd_session_backend_count(s);
    for (b = with_reference ? -1 : 0; b < nb; ++b) {
        const char *name = b < 0 ? "reference" : mmd_session_backend(s, b)->name;
        const char *why = "";
        mmd_status st = MMD_OK;
        char counts[1024];
        size_t len = 0;
        int32_t total = 0;
        if (b >= 0) mmd_session_backend_status(s, b, &st, &why);
        if (st != MMD_OK) {
            cli_line("  %-10s not used: %s", name, why);
            continue;
        }
        counts[0] = '\0';
        /* Op types in order of first appearance, each counted once. */
        for (i = 0; i < m->node_count; ++i) {
            int32_t n = 0;
            if (mmd_session_node_backend(s, i) != b) continue;
            ++total;
            for (j = 0; j < i; ++j)
                if (mmd_session_node_backend(s, j) == b && strcmp(m->nodes[j].op_type, m->nodes[i].op_type) == 0)
                    break;
            if (j < i) continue;
            for (j = i; j < m->node_count; ++j)
                n += mmd_session_node_backend(s, j) == b && strcmp(m->nodes[j].op_type, m->nodes[i].op_type) == 0;
            if (len < sizeof counts)
                len += (size_t)snprintf(counts + len, sizeof counts - len, "%s%s %d", len ? ", " : "",
                                        m->nodes[i].op_type, (int)n);
        }
        cli_line("  %-10s %d node%s%s%s", name, (int)total, total == 1 ? "" : "s", total ? ": " : "", counts);
        if (b < 0) continue;
        for (i = 0; i < m->node_count; ++i)
            if (mmd_session_node_backend(s, i) == b) {
                cli_line("  %-10s   #%-4d %-20s %s", "", (int)i, m->nodes[i].op_type, m->nodes[i].name);
                if (m->nodes[i].members) cli_print_set(&m->nodes[i]);
            }
    }    /* Nodes a backend claimed, then refused at prepare: where they went and why. */
    for (i = 0; i < mmd_session_fallback_count(s); ++i) {
        int32_t node, from, to;
        const char *why;
        mmd_session_fallback(s, i, &node, &from, &why);
        to = mmd_session_node_backend(s, node);
        cli_line("  fallback   #%-4d %-20s %s refused it, %s runs it: %s", (int)node, m->nodes[node].op_type,
                 mmd_session_backend(s, from)->name, to < 0 ? "reference" : mmd_session_backend(s, to)->name, why);
    }
}

/* ==== >>inputs ==== */
/* One graph input as the command will bind it. */
typedef struct cli_input {
    const char *path;                /* the file given, or NULL */
    int32_t dtype, rank;
    int64_t dims[MMD_MAX_RANK];
    const void *data;
    unsigned char *file;             /* owned: the file's bytes (data may point into them) */
    void *copy;                      /* owned: an aligned copy, or generated data */
} cli_input;

/* What run and bench share: the model bytes (alive as long as the session), the session, the
   arena TensorProto inputs decode into, and the inputs. */
typedef struct cli_ctx {
    cli_backends backends;
    const char *model_path;
    unsigned char *model;
    size_t model_size;
    mmd_session *s;
    mmd_arena arena;
    cli_input *in;
    int32_t in_count;
    int32_t threads;                 /* --threads */
    int32_t no_rewrites;             /* --no-rewrites */
} cli_ctx;

static void cli_ctx_free(cli_ctx *c) {
    int32_t i;
    for (i = 0; c->in && i < c->in_count; ++i) {
        free(c->in[i].file);
        free(c->in[i].copy);
    }
    free(c->in);
    mmd_session_destroy(c->s);
    mmd_arena_release(&c->arena);
    free(c->model);
}

static int cli_create(cli_ctx *c) {
    mmd_error err;
    mmd_options opts;
    char what[600];
    int32_t i;
    memset(&err, 0, sizeof err);
    memset(&opts, 0, sizeof opts);
    if (c->backends.reg.count) opts.backends = &c->backends.reg;
    opts.threads = c->threads;
    opts.no_rewrites = c->no_rewrites;
    if (mmd_session_create(c->model, c->model_size, &opts, &c->s, &err) != MMD_OK) {
        snprintf(what, sizeof what, "'%s'", c->model_path);
        return cli_fail_err(what, &err);
    }
    /* A backend asked for by name and not used would make a silent reference run. */
    for (i = 0; i < mmd_session_backend_count(c->s); ++i) {
        mmd_status st;
        const char *why;
        mmd_session_backend_status(c->s, i, &st, &why);
        if (st != MMD_OK)
            return cli_fail("backend '%s' cannot be used: %s", mmd_session_backend(c->s, i)->name, why);
    }
    c->in_count = mmd_session_input_count(c->s);
    c->in = (cli_input *)calloc((size_t)c->in_count + 1, sizeof(cli_input));
    if (!c->in) return cli_fail("out of memory");
    return 0;
}

/* "'a', 'b'" for an error message, cut short for models with very many inputs. */
static const char *cli_input_names(const mmd_session *s, char *buf, size_t cap) {
    int32_t i, n = mmd_session_input_count(s);
    size_t len = 0;
    buf[0] = '\0';
    for (i = 0; i < n && len < cap; ++i)
        len += (size_t)snprintf(buf + len, cap - len, "%s'%s'", i ? ", " : "",
                                mmd_session_input(s, i)->name);
    if (n == 0) snprintf(buf, cap, "none");
    return buf;
}

/* Decides which graph input each "[NAME=]FILE" is for. NAME= is taken as a name only when the
   model has an input of that name, so a file whose path holds '=' still works positionally. */
static int cli_assign_inputs(cli_ctx *c, const cli_args *a) {
    int32_t k, positional = 0;
    char names[512];
    for (k = 0; k < a->input_count; ++k) {
        const char *spec = a->inputs[k], *path = spec, *eq = strchr(spec, '=');
        int32_t idx = -1;
        if (eq) {
            size_t len = (size_t)(eq - spec);
            char *name = (char *)malloc(len + 1);
            struct stat st;
            if (!name) return cli_fail("out of memory");
            memcpy(name, spec, len);
            name[len] = '\0';
            idx = mmd_session_find_input(c->s, name);
            if (idx >= 0) path = eq + 1;
            else if (stat(spec, &st) != 0) {
                int rc = cli_fail("the model has no input '%s' (its inputs: %s)", name,
                                  cli_input_names(c->s, names, sizeof names));
                free(name);
                return rc;
            }
            free(name);
        }
        if (idx < 0) {
            if (positional >= c->in_count)
                return cli_fail("'%s' is input file %d without a name but the model has %d "
                                "input%s (%s)", spec, (int)positional + 1, (int)c->in_count,
                                c->in_count == 1 ? "" : "s",
                                cli_input_names(c->s, names, sizeof names));
            idx = positional++;
        }
        if (!path[0])
            return cli_fail("input '%s' is given an empty file name", mmd_session_input(c->s, idx)->name);
        if (c->in[idx].path)
            return cli_fail("input '%s' is given twice ('%s' and '%s')",
                            mmd_session_input(c->s, idx)->name, c->in[idx].path, path);
        c->in[idx].path = path;
    }
    return 0;
}

/* Loads one input file: .npy when it starts with the .npy magic, a TensorProto otherwise. The
   runtime checks dtype and shape when the input is bound. */
static int cli_load_input(cli_ctx *c, int32_t idx) {
    cli_input *in = &c->in[idx];
    const char *name = mmd_session_input(c->s, idx)->name;
    mmd_error err;
    size_t size, nbytes, itemsize;
    memset(&err, 0, sizeof err);
    if (cli_read_file(in->path, &in->file, &size)) return 1;
    if (size >= 6 && memcmp(in->file, "\x93NUMPY", 6) == 0) {
        mmd_npy npy;
        if (mmd_npy_parse(in->file, size, &npy, &err) != MMD_OK)
            return cli_fail("input '%s': '%s': %s", name, in->path, err.msg);
        in->dtype = npy.dtype;
        in->rank = npy.rank;
        memcpy(in->dims, npy.dims, sizeof in->dims);
        in->data = npy.data;
        nbytes = npy.nbytes;
    } else {
        mmd_tensor t;
        memset(&t, 0, sizeof t);
        if (mmd_tensor_proto_decode(&c->arena, in->file, size, &t, &err) != MMD_OK)
            return cli_fail("input '%s': '%s' is neither a .npy file nor a TensorProto (%s: %s)",
                            name, in->path, mmd_status_string(err.status), err.msg);
        if (mmd_tensor_nbytes(&t, &nbytes, &err) != MMD_OK)
            return cli_fail("input '%s': '%s': %s", name, in->path, err.msg);
        in->dtype = t.dtype;
        in->rank = t.rank;
        memcpy(in->dims, t.dims, sizeof in->dims);
        in->data = t.data;
    }
    /* .npy data starts wherever the header ends (numpy pads to 64 bytes, old writers to 16);
       kernels read inputs as typed arrays, so misaligned data is copied once. */
    itemsize = mmd_dtype_size(in->dtype);
    if (itemsize > 1 && (uintptr_t)in->data % itemsize) {
        if (!(in->copy = malloc(nbytes + 1))) return cli_fail("out of memory");
        memcpy(in->copy, in->data, nbytes);
        in->data = in->copy;
    }
    return 0;
}

/* A small xorshift generator: bench inputs need to be cheap and the same every run. */
static uint64_t cli_random(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* bench's stand-in for an input not given: the declared shape with symbolic dims as 1 (the
   session plans them so at create), uniform [0,1) for float32/float64, zeros otherwise. */
static int cli_make_input(cli_ctx *c, int32_t idx, uint64_t *rng) {
    cli_input *in = &c->in[idx];
    const mmd_tensor *decl = mmd_session_input(c->s, idx);
    mmd_tensor t = *decl;
    mmd_error err;
    size_t nbytes, n, i;
    int32_t d;
    memset(&err, 0, sizeof err);
    for (d = 0; d < t.rank; ++d)
        if (t.dims[d] < 0) t.dims[d] = 1;
    if (mmd_tensor_nbytes(&t, &nbytes, &err) != MMD_OK)
        return cli_fail("input '%s': cannot make random data for shape: %s", decl->name, err.msg);
    if (!(in->copy = calloc(nbytes + 1, 1))) return cli_fail("out of memory");
    n = nbytes / (mmd_dtype_size(t.dtype) ? mmd_dtype_size(t.dtype) : 1);
    if (t.dtype == MMD_DTYPE_FLOAT32)
        for (i = 0; i < n; ++i)
            ((float *)in->copy)[i] = (float)(cli_random(rng) >> 40) * (1.0f / 16777216.0f);
    else if (t.dtype == MMD_DTYPE_FLOAT64)
        for (i = 0; i < n; ++i)
            ((double *)in->copy)[i] = (double)(cli_random(rng) >> 11) * (1.0 / 9007199254740992.0);
    in->dtype = t.dtype;
    in->rank = t.rank;
    memcpy(in->dims, t.dims, sizeof in->dims);
    in->data = in->copy;
    return 0;
}

/* Binds every input; an error names the input, its file and the shape the file has. */
static int cli_bind_inputs(cli_ctx *c) {
    int32_t i;
    for (i = 0; i < c->in_count; ++i) {
        cli_input *in = &c->in[i];
        mmd_error err;
        char what[700], shape[256];
        memset(&err, 0, sizeof err);
        if (mmd_session_set_input(c->s, i, in->dtype, in->rank, in->dims, in->data, &err) != MMD_OK) {
            snprintf(what, sizeof what, "input '%s' from '%s' (%s %s)",
                     mmd_session_input(c->s, i)->name, in->path ? in->path : "random data",
                     mmd_dtype_name(in->dtype), cli_shape(shape, sizeof shape, in->rank, in->dims, NULL));
            return cli_fail_err(what, &err);
        }
    }
    return 0;
}

static int cli_prepare(cli_ctx *c) {
    mmd_error err;
    char what[600];
    memset(&err, 0, sizeof err);
    if (mmd_session_prepare(c->s, &err) != MMD_OK) {
        snprintf(what, sizeof what, "prepare '%s'", c->model_path);
        return cli_fail_err(what, &err);
    }
    return 0;
}

static int cli_run_once(cli_ctx *c) {
    mmd_error err;
    char what[600];
    memset(&err, 0, sizeof err);
    if (mmd_session_run(c->s, &err) != MMD_OK) {
        snprintf(what, sizeof what, "run '%s'", c->model_path);
        return cli_fail_err(what, &err);
    }
    return 0;
}

/* ==== >>convert ==== */
/* A model as firmware gets it: the .mmd blob of its plan for the declared shapes (symbolic dims
   = 1), with the figures a firmware build needs, each taken from the blob itself. */
typedef struct cli_blob {
    void *raw;                       /* owned; data is its first 16-byte aligned byte */
    unsigned char *data;
    size_t size, arena_bytes;
    size_t small_arena, small_scratch; /* the same in a MMD_CONV_SMALL build (mmd_firmware_arena) */
    mmd_plan_stats stats;            /* the blob's own plan */
    mmd_arena arena;                 /* holds m */
    mmd_model *m;                    /* the blob parsed back, for its operator list */
} cli_blob;

static void cli_blob_free(cli_blob *b) {
    mmd_arena_release(&b->arena);
    free(b->raw);
}

/* The kernels the rewrites of a blob's graph may bind to: the host's, where a firmware build has
   the op too (MMD_CONV_SMALL leaves out mmd PointwiseDepthwise, for one). */
static const mmd_kernel *cli_firmware_ops(const char *domain, const char *op_type, int64_t opset) {
    return mmd_firmware_has_op(domain, op_type, (long long)opset) ? mmd_ops_find(domain, op_type, opset) : NULL;
}

/* Converts ONNX or .mmd bytes into b; the blob is loaded back to measure it. The blob holds the
   graph as rewritten at load (unless no_rewrites) into ops a firmware build has, so firmware
   neither rewrites nor keeps folded weights in RAM: they stay in flash with the rest. */
static mmd_status cli_blob_make(const unsigned char *bytes, size_t size, int no_rewrites, cli_blob *b,
                                mmd_error *err) {
    mmd_session *s = NULL, *again = NULL;
    mmd_options opts;
    mmd_status st;
    memset(b, 0, sizeof *b);
    memset(&opts, 0, sizeof opts);
    opts.no_rewrites = no_rewrites;
    opts.rewrite_ops = cli_firmware_ops;
    mmd_arena_init(&b->arena, NULL, 0, 1);
    /* prepare gives the real reason when the declared shapes cannot be planned. */
    if ((st = mmd_session_create(bytes, size, &opts, &s, err)) != MMD_OK ||
        (st = mmd_session_prepare(s, err)) != MMD_OK ||
        (st = mmd_session_write_blob(s, NULL, 0, &b->size, err)) != MMD_OK)
        goto done;
    if (!(b->raw = malloc(b->size + 16))) {
        st = mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "out of memory");
        goto done;
    }
    b->data = (unsigned char *)(((uintptr_t)b->raw + 15) & ~(uintptr_t)15);
    if ((st = mmd_session_write_blob(s, b->data, b->size, &b->size, err)) != MMD_OK ||
        (st = mmd_session_arena_size(b->data, b->size, &b->arena_bytes, err)) != MMD_OK ||
        (st = mmd_session_create(b->data, b->size, NULL, &again, err)) != MMD_OK ||
        (st = mmd_model_parse(&b->arena, b->data, b->size, 0, &b->m, err)) != MMD_OK)
        goto done;
    mmd_session_stats(again, &b->stats);
    {
        char why[MMD_ERROR_MSG_SIZE];
        int fst = mmd_firmware_arena(b->data, b->size, &b->small_arena, &b->small_scratch, why, sizeof why);
        if (fst) st = mmd_error_set(err, (mmd_status)fst, -1, NULL, "in a MMD_CONV_SMALL build: %s", why);
    }
done:
    mmd_session_destroy(again);
    mmd_session_destroy(s);
    return st;
}

/* "Conv" for ai.onnx, "<domain>_<op>" otherwise, as MMD_OP_ macros spell them. */
static void cli_op_macro(char *buf, size_t cap, const mmd_node *n) {
    size_t i;
    if (n->domain[0] && strcmp(n->domain, "ai.onnx")) snprintf(buf, cap, "%s_%s", n->domain, n->op_type);
    else snprintf(buf, cap, "%s", n->op_type);
    for (i = 0; buf[i]; ++i)
        if (!(buf[i] == '_' || (buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'z') ||
              (buf[i] >= 'A' && buf[i] <= 'Z')))
            buf[i] = '_';
}

static int cli_string_order(const void *pa, const void *pb) {
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* The kernels the blob runs, sorted and each once, as MMD_OP_ suffixes joined by sep. Returns a
   malloc'd string or NULL when out of memory. */
static char *cli_blob_ops(const cli_blob *b, const char *prefix, const char *sep) {
    int32_t i, n = b->m->node_count, k = 0;
    char **names = (char **)calloc((size_t)n + 1, sizeof(char *)), *out = NULL;
    size_t len = 1;
    for (i = 0; names && i < n; ++i) {
        char buf[256];
        cli_op_macro(buf, sizeof buf, &b->m->nodes[i]);
        if (!(names[k] = (char *)malloc(strlen(buf) + 1))) goto done;
        memcpy(names[k++], buf, strlen(buf) + 1);
    }
    if (!names) return NULL;
    qsort(names, (size_t)k, sizeof *names, cli_string_order);
    for (i = 0; i < k; ++i) len += strlen(prefix) + strlen(names[i]) + strlen(sep);
    if (!(out = (char *)malloc(len))) goto done;
    out[0] = '\0';
    for (i = 0, len = 0; i < k; ++i) {
        if (i && strcmp(names[i], names[i - 1]) == 0) continue;
        len += (size_t)sprintf(out + len, "%s%s%s", len ? sep : "", prefix, names[i]);
    }
done:
    for (i = 0; names && i < k; ++i) free(names[i]);
    free(names);
    return out;
}

static void cli_print_firmware(const cli_blob *b) {
    char *ops = cli_blob_ops(b, "", ", ");
    cli_line("firmware (.mmd blob of this plan, as 'mmdeploy convert' writes it):");
    cli_line("  flash bytes       %zu (the blob: weights, folded constants, tables)", b->size);
    /* Only pointers and size_t shrink on a 32-bit target, so the host's figure bounds its own. */
    cli_line("  arena bytes       %zu (static uint8_t arena[%zu]: exact at any address with %d-byte "
             "pointers, enough with smaller ones)", b->arena_bytes, b->arena_bytes, (int)sizeof(void *));
    cli_line("  scratch bytes     %zu (largest request, inside the arena)", b->stats.scratch_bytes);
    cli_line("  small arena bytes %zu (the same in a MMD_CONV_SMALL build: small GEMM blocks and im2col "
             "bands, portable kernels), %zu of them scratch", b->small_arena, b->small_scratch);
    cli_line("  activation bytes  %zu", b->stats.activation_bytes);
    cli_line("  nodes             %d run, %d folded at conversion", (int)(b->stats.node_count - b->stats.folded_count),
             (int)b->stats.folded_count);
    cli_line("  kernels           %s", ops ? ops : "(out of memory)");
    free(ops);
}

static int cli_write_bytes(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return cli_fail("cannot create '%s': %s", path, strerror(errno));
    if (fwrite(data, 1, size, f) != size) {
        int e = errno;
        fclose(f);
        return cli_fail("cannot write '%s': %s", path, strerror(e));
    }
    if (fclose(f) != 0) return cli_fail("cannot write '%s': %s", path, strerror(errno));
    return 0;
}

/* The C identifier for --c-array: --name as given (it must be one), else OUT's base name up to
   its first '.', other characters turned into '_'. */
static int cli_c_ident(const char *path, const char *name, char *ident, size_t cap) {
    const char *base = strrchr(path, '/');
    size_t i;
    if (name) {
        for (i = 0; name[i]; ++i)
            if (!(name[i] == '_' || (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
                  (i && name[i] >= '0' && name[i] <= '9')))
                break;
        if (!i || name[i] || i >= cap) {
            cli_fail("--name '%s' is not a C identifier", name);
            return 2;
        }
        memcpy(ident, name, i + 1);
        return 0;
    }
    base = base ? base + 1 : path;
    for (i = 0; base[i] && base[i] != '.' && i + 2 < cap; ++i) {
        char ch = base[i];
        ident[i] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ? ch : '_';
    }
    ident[i] = '\0';
    if (!i || (ident[0] >= '0' && ident[0] <= '9')) {
        memmove(ident + 1, ident, i + 1);
        ident[0] = '_';
    }
    return 0;
}

/* OUT.c: the blob as an aligned const array; OUT.h: its declaration and sizes. */
static int cli_write_c_array(const cli_args *a, const cli_blob *b) {
    char hpath[4096], ident[128], macro[128];
    const char *hbase;
    size_t len = strlen(a->c_array), i;
    FILE *f;
    int rc;
    if (len + 3 > sizeof hpath) return cli_fail("--c-array '%s': path too long", a->c_array);
    if ((rc = cli_c_ident(a->c_array, a->c_name, ident, sizeof ident))) return rc;
    for (i = 0; ident[i]; ++i) macro[i] = ident[i] >= 'a' && ident[i] <= 'z' ? (char)(ident[i] - 'a' + 'A') : ident[i];
    macro[i] = '\0';
    memcpy(hpath, a->c_array, len + 1);
    if (len > 2 && strcmp(a->c_array + len - 2, ".c") == 0) hpath[len - 1] = 'h';
    else memcpy(hpath + len, ".h", 3);
    hbase = strrchr(hpath, '/');
    hbase = hbase ? hbase + 1 : hpath;

    if (!(f = fopen(hpath, "w"))) return cli_fail("cannot create '%s': %s", hpath, strerror(errno));
    fprintf(f, "/* %s - written by 'mmdeploy convert' from %s; do not edit.\n", hbase, a->model);
    fprintf(f, "   The model as a .mmd blob, read in place from flash:\n"
               "       static uint8_t arena[%s_ARENA_BYTES];\n"
               "       mmd_options opts = {0};\n"
               "       opts.arena = arena;\n"
               "       opts.arena_size = sizeof arena;\n"
               "       mmd_session_create(%s, %s_SIZE, &opts, &session, &err);  */\n", macro, ident, macro);
    fprintf(f, "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n\n", macro, macro);
    fprintf(f, "/* Flash bytes of the blob. */\n#define %s_SIZE %zuu\n", macro, b->size);
    fprintf(f, "/* The arena mmd_session_create needs at any address, and its largest kernel scratch:\n"
               "   for a build with MMD_CONV_SMALL (firmware: small GEMM blocks and im2col bands), and\n"
               "   for one with the default settings on a CPU like the one this was written on (%s).\n"
               "   Exact where pointers have %d bytes, as there; enough where they are smaller. */\n"
               "#ifdef MMD_CONV_SMALL\n#define %s_ARENA_BYTES %zuu\n#define %s_SCRATCH_BYTES %zuu\n"
               "#else\n#define %s_ARENA_BYTES %zuu\n#define %s_SCRATCH_BYTES %zuu\n#endif\n\n",
            mmd_ops_isa(), (int)sizeof(void *), macro, b->small_arena, macro, b->small_scratch, macro,
            b->arena_bytes, macro, b->stats.scratch_bytes);
    fprintf(f, "/* The weights are read in place, so the array must start 16-byte aligned. */\n"
               "#ifndef MMD_ALIGNED\n"
               "#if defined(_MSC_VER)\n"
               "#define MMD_ALIGNED(n) __declspec(align(n))\n"
               "#elif defined(__GNUC__) || defined(__clang__)\n"
               "#define MMD_ALIGNED(n) __attribute__((aligned(n)))\n"
               "#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
               "#define MMD_ALIGNED(n) _Alignas(n)\n"
               "#else\n"
               "#error \"define MMD_ALIGNED(n) to align a variable to n bytes with this compiler\"\n"
               "#endif\n"
               "#endif\n\n");
    fprintf(f, "#ifdef __cplusplus\nextern \"C\" {\n#endif\nextern const uint8_t %s[%s_SIZE];\n"
               "#ifdef __cplusplus\n}\n#endif\n\n#endif\n", ident, macro);
    if (ferror(f) | fclose(f)) return cli_fail("cannot write '%s'", hpath);

    if (!(f = fopen(a->c_array, "w"))) return cli_fail("cannot create '%s': %s", a->c_array, strerror(errno));
    fprintf(f, "/* %s - written by 'mmdeploy convert' from %s; do not edit. */\n#include \"%s\"\n\n",
            strrchr(a->c_array, '/') ? strrchr(a->c_array, '/') + 1 : a->c_array, a->model, hbase);
    fprintf(f, "MMD_ALIGNED(16) const uint8_t %s[%s_SIZE] = {", ident, macro);
    for (i = 0; i < b->size; ++i) fprintf(f, "%s0x%02x,", i % 16 ? " " : "\n    ", b->data[i]);
    fprintf(f, "\n};\n");
    if (ferror(f) | fclose(f)) return cli_fail("cannot write '%s'", a->c_array);
    cli_line("wrote %s and %s (%s, %zu bytes)", a->c_array, hpath, ident, b->size);
    return 0;
}

/* OPS.h: MMD_ONLY_OPS and one MMD_OP_<op> per kernel the blob runs. */
static int cli_write_ops_header(const cli_args *a, const cli_blob *b) {
    char *ops = cli_blob_ops(b, "#define MMD_OP_", "\n");
    const char *base = strrchr(a->ops_header, '/');
    FILE *f;
    if (!ops) return cli_fail("out of memory");
    if (!(f = fopen(a->ops_header, "w"))) {
        free(ops);
        return cli_fail("cannot create '%s': %s", a->ops_header, strerror(errno));
    }
    fprintf(f, "/* %s - written by 'mmdeploy convert' from %s; do not edit.\n"
               "   The kernels the model runs. Include it before the implementation, so that the\n"
               "   runtime carries no other kernel:\n"
               "       #include \"%s\"\n"
               "       #define MMD_IMPLEMENTATION\n"
               "       #include \"mmdeploy.h\"  */\n"
               "#define MMD_ONLY_OPS\n%s\n"
               "/* The blob holds the graph already rewritten. */\n"
               "#define MMD_NO_REWRITES\n",
            base ? base + 1 : a->ops_header, a->model, base ? base + 1 : a->ops_header, ops);
    free(ops);
    if (ferror(f) | fclose(f)) return cli_fail("cannot write '%s'", a->ops_header);
    cli_line("wrote %s", a->ops_header);
    return 0;
}

static int cli_convert(const cli_args *a) {
    unsigned char *bytes = NULL;
    size_t size = 0;
    cli_blob b;
    mmd_error err;
    char what[600];
    int rc = 1;
    memset(&err, 0, sizeof err);
    memset(&b, 0, sizeof b);
    if (cli_read_file(a->model, &bytes, &size)) goto done;
    if (cli_blob_make(bytes, size, a->no_rewrites, &b, &err) != MMD_OK) {
        snprintf(what, sizeof what, "convert '%s'", a->model);
        rc = cli_fail_err(what, &err);
        goto done;
    }
    cli_line("model       %s (%zu bytes)", a->model, size);
    cli_print_firmware(&b);
    if (a->output) {
        if ((rc = cli_write_bytes(a->output, b.data, b.size))) goto done;
        cli_line("wrote %s", a->output);
    }
    if (a->c_array && (rc = cli_write_c_array(a, &b))) goto done;
    if (a->ops_header && (rc = cli_write_ops_header(a, &b))) goto done;
    rc = 0;
done:
    cli_blob_free(&b);
    free(bytes);
    return rc;
}

/* ==== >>info ==== */
/* One row of the operator table: every node of this domain::op_type. */
typedef struct cli_op_count {
    const char *domain, *op_type;
    int64_t opset;
    int32_t count;
    int32_t has_kernel;
} cli_op_count;

/* Most frequent first, then by domain and name, so the table reads the same on every run. */
static int cli_op_order(const void *pa, const void *pb) {
    const cli_op_count *a = (const cli_op_count *)pa, *b = (const cli_op_count *)pb;
    int c;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    if ((c = strcmp(cli_domain(a->domain), cli_domain(b->domain))) != 0) return c;
    return strcmp(a->op_type, b->op_type);
}

static void cli_print_tensor(const mmd_tensor *t, const char *note) {
    char shape[512];
    cli_line("  %-24s %-8s %s%s", t->name, mmd_dtype_name(t->dtype),
             cli_shape(shape, sizeof shape, t->rank, t->dims, t->dim_params), note);
}

static void cli_print_plan(const mmd_plan_stats *st) {
    cli_line("plan (declared shapes, symbolic dims = 1):");
    cli_line("  arena bytes       %zu", st->arena_bytes);
    cli_line("  model bytes       %zu", st->model_bytes);
    cli_line("  activation bytes  %zu planned, %zu if every intermediate had its own (%.1f%% saved)",
             st->activation_bytes, st->activation_sum_bytes,
             st->activation_sum_bytes
                 ? 100.0 * (1.0 - (double)st->activation_bytes / (double)st->activation_sum_bytes)
                 : 0.0);
    cli_line("  constant bytes    %zu", st->constant_bytes);
    cli_line("  rewritten bytes   %zu (weights the %d load-time rewrites changed, in model bytes)",
             st->rewrite_bytes, (int)st->rewrite_count);
    cli_line("  scratch bytes     %zu", st->scratch_bytes);
    cli_line("  nodes             %d (%d folded at prepare)", (int)st->node_count,
             (int)st->folded_count);
    /* Data-dependent shapes (NMS, NonZero, TopK with a run-time k) are planned at their bound;
       the nodes after them re-run prepare each run with the real shapes. */
    if (st->reprepare_count)
        cli_line("  dynamic shapes    %d nodes re-plan at run time within their planned bounds",
                 (int)st->reprepare_count);
}

/* Counts nodes per domain::op_type and looks each one up in the kernel table. A node's kernel
   depends on domain, op type and the domain's opset, so that triple is the row. Returns the
   rows (caller frees) or NULL when out of memory. */
static cli_op_count *cli_count_ops(const mmd_model *m, int32_t *rows, int32_t *missing) {
    cli_op_count *ops = (cli_op_count *)calloc((size_t)m->node_count + 1, sizeof *ops);
    int32_t i, j;
    *rows = *missing = 0;
    if (!ops) return NULL;
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        for (j = 0; j < *rows; ++j)
            if (strcmp(ops[j].op_type, n->op_type) == 0 &&
                strcmp(cli_domain(ops[j].domain), cli_domain(n->domain)) == 0 &&
                ops[j].opset == n->opset)
                break;
        if (j == *rows) {
            ops[j].domain = n->domain;
            ops[j].op_type = n->op_type;
            ops[j].opset = n->opset;
            ops[j].has_kernel = mmd_ops_find(n->domain, n->op_type, n->opset) != NULL;
            *missing += !ops[j].has_kernel;
            ++*rows;
        }
        ++ops[j].count;
    }
    qsort(ops, (size_t)*rows, sizeof *ops, cli_op_order);
    return ops;
}

/* The nodes the backends claim: with --backend, in one session with that priority order;
   without, each available backend alone. */
static void cli_info_claims(const cli_backends *cb, const mmd_session *s, const unsigned char *bytes,
                            size_t size, int no_rewrites) {
    int32_t i;
    if (cb->explicit_list) {
        cli_line("nodes by backend:");
        if (s) cli_print_claims(s, 1);
        return;
    }
    cli_line("nodes each backend claims (each alone; the reference kernels run the rest):");
    for (i = 0; i < cb->reg.count; ++i) {
        mmd_backend_registry one;
        mmd_options opts;
        mmd_session *alone = NULL;
        mmd_error err;
        memset(&one, 0, sizeof one);
        memset(&opts, 0, sizeof opts);
        memset(&err, 0, sizeof err);
        mmd_backend_register(&one, cb->reg.items[i], NULL);
        opts.backends = &one;
        opts.no_rewrites = no_rewrites;
        if (mmd_session_create(bytes, size, &opts, &alone, &err) == MMD_OK)
            cli_print_claims(alone, 0);
        else
            cli_line("  %-10s session failed: %s", cb->reg.items[i]->name, err.msg);
        mmd_session_destroy(alone);
    }
}

/* Each load-time rewrite the session made, in order. */
static void cli_print_rewrites(const mmd_session *s) {
    const mmd_model *m = mmd_session_model(s);
    int32_t i;
    if (!m) return;
    cli_line("rewrites (%d, %d nodes left to run or fold):", (int)m->rewrite_count, (int)m->node_count);
    for (i = 0; i < m->rewrite_count; ++i) {
        const mmd_rewrite *r = &m->rewrites[i];
        if (r->into_name[0] || r->into_op_type[0])
            cli_line("  %s %s %s into %s %s", r->action, r->op_type, r->name, r->into_op_type, r->into_name);
        else
            cli_line("  %s %s %s", r->action, r->op_type, r->name);
    }
}

static int cli_info(const cli_args *a) {
    unsigned char *bytes = NULL;
    size_t size = 0;
    mmd_arena arena;
    mmd_model *m = NULL;
    mmd_session *s = NULL;
    mmd_error err, plan_err;
    mmd_plan_stats stats;
    mmd_options opts;
    cli_backends cb;
    cli_op_count *ops = NULL;
    int32_t i, j, op_rows = 0, missing = 0;
    int rc = 1, planned = 0;
    char line[1024];

    if ((rc = cli_backends_init(&cb, a->backends, 1)) != 0) return rc;
    if (!a->model) {
        cli_print_backends(&cb.reg);
        return 0;
    }
    rc = 1;
    memset(&opts, 0, sizeof opts);
    /* The plan shown is the reference kernels' unless --backend chose backends. */
    if (cb.explicit_list && cb.reg.count) opts.backends = &cb.reg;
    opts.no_rewrites = a->no_rewrites;
    memset(&err, 0, sizeof err);
    memset(&plan_err, 0, sizeof plan_err);
    mmd_arena_init(&arena, NULL, 0, 1);
    if (cli_read_file(a->model, &bytes, &size)) goto done;
    if (mmd_model_parse(&arena, bytes, size, 0, &m, &err) != MMD_OK) {
        snprintf(line, sizeof line, "'%s'", a->model);
        rc = cli_fail_err(line, &err);
        goto done;
    }
    if (!(ops = cli_count_ops(m, &op_rows, &missing))) {
        rc = cli_fail("out of memory");
        goto done;
    }
    /* With every kernel present, a session gives the plan figures and the output types. create
       leaves the plan for later when placeholder dims cannot be planned; prepare says why. */
    if (!missing && mmd_session_create(bytes, size, &opts, &s, &plan_err) == MMD_OK &&
        mmd_session_prepare(s, &plan_err) == MMD_OK) {
        mmd_session_stats(s, &stats);
        planned = 1;
    }

    cli_line("model       %s (%zu bytes)", a->model, size);
    cli_line("ir_version  %lld", (long long)m->ir_version);
    cli_line("producer    %s%s%s", m->producer_name ? m->producer_name : "",
             m->producer_version && m->producer_version[0] ? " " : "",
             m->producer_version ? m->producer_version : "");
    {
        size_t len = 0;
        line[0] = '\0';
        for (i = 0; i < m->opset_count && len < sizeof line; ++i)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s %lld", i ? ", " : "",
                                    cli_domain(m->opsets[i].domain), (long long)m->opsets[i].version);
        /* A .mmd blob keeps each node's resolved opset, not the import list. */
        cli_line("opsets      %s", m->blob ? "(resolved per node: a .mmd blob)" : line);
    }
    cli_line("inputs (%d):", (int)m->input_count);
    for (i = 0; i < m->input_count; ++i) cli_print_tensor(&m->tensors[m->inputs[i]], "");
    cli_line("outputs (%d):", (int)m->output_count);
    for (i = 0; i < m->output_count; ++i) {
        const mmd_tensor *t = &m->tensors[m->outputs[i]];
        /* The parser keeps an output's declared dim names but not its type; the plan infers
           both dtype and dims. */
        if (t->dtype != MMD_DTYPE_UNDEFINED)
            cli_print_tensor(t, "");
        else if (planned)
            cli_print_tensor(mmd_session_output(s, i), "  (inferred by the plan)");
        else
            cli_line("  %-24s (type known only after planning)", t->name);
    }
    cli_line("operators (%d node%s, %d type%s):", (int)m->node_count,
             m->node_count == 1 ? "" : "s", (int)op_rows, op_rows == 1 ? "" : "s");
    for (j = 0; j < op_rows; ++j) {
        if (ops[j].domain && ops[j].domain[0])
            snprintf(line, sizeof line, "%s::%s", ops[j].domain, ops[j].op_type);
        else
            snprintf(line, sizeof line, "%s", ops[j].op_type);
        cli_line("  %-32s %d", line, (int)ops[j].count);
    }
    if (missing) {
        cli_line("operators without a kernel (%d):", (int)missing);
        for (j = 0; j < op_rows; ++j)
            if (!ops[j].has_kernel)
                cli_line("  %s::%s (opset %lld)", cli_domain(ops[j].domain), ops[j].op_type,
                         (long long)ops[j].opset);
        rc = cli_fail("'%s': %d operator type%s no kernel (listed above)", a->model, (int)missing,
                      missing == 1 ? " has" : "s have");
        goto done;
    }
    cli_line("operators without a kernel: none");
    cli_print_backends(&cb.reg);
    cli_print_rewrites(s);
    cli_info_claims(&cb, s, bytes, size, a->no_rewrites);
    if (!planned) {
        snprintf(line, sizeof line, "no plan for '%s' with symbolic dims = 1", a->model);
        rc = cli_fail_err(line, &plan_err);
        goto done;
    }
    cli_print_plan(&stats);
    {
        cli_blob fw;
        mmd_error fw_err;
        memset(&fw_err, 0, sizeof fw_err);
        if (cli_blob_make(bytes, size, a->no_rewrites, &fw, &fw_err) == MMD_OK) cli_print_firmware(&fw);
        else cli_line("firmware: no .mmd blob of this plan: %s", fw_err.msg);
        cli_blob_free(&fw);
    }
    rc = 0;
done:
    free(ops);
    mmd_session_destroy(s);
    mmd_arena_release(&arena);
    free(bytes);
    return rc;
}

/* ==== >>run ==== */
/* Reads the model, creates the session and loads the files given; shared by run and bench. */
static int cli_open(cli_ctx *c, const cli_args *a) {
    int32_t i;
    c->model_path = a->model;
    mmd_arena_init(&c->arena, NULL, 0, 1);
    if (cli_read_file(a->model, &c->model, &c->model_size) || cli_create(c) ||
        cli_assign_inputs(c, a))
        return 1;
    for (i = 0; i < c->in_count; ++i)
        if (c->in[i].path && cli_load_input(c, i)) return 1;
    return 0;
}

/* Output file names. An output's name becomes its file name when it is short and made only of
   the POSIX portable file name characters (A-Z a-z 0-9 . _ -); otherwise, so that run never
   fails on a name the file system refuses:
     - every other byte ('/', ':', spaces, non-ASCII) becomes '_';
     - a name of dots only, or an empty one, becomes output_<index>;
     - past CLI_NAME_MAX bytes the name keeps its first CLI_NAME_KEEP bytes, then '~' and the
       8 hex digits of a hash (FNV-1a) of the whole name;
     - a file name another output already has (compared ignoring case, as some file systems
       do) gets ~<index> appended.
   run prints each renamed output's name beside its file. */
#define CLI_NAME_MAX 100
#define CLI_NAME_KEEP 80
#define CLI_FILE_MAX (CLI_NAME_MAX + 24)

static void cli_output_name(char *buf, const char *name, int32_t i) {
    size_t len = 0, k, n = strlen(name);
    uint32_t hash = 2166136261u;
    int only_dots = 1;
    for (k = 0; k < n; ++k) {
        unsigned char ch = (unsigned char)name[k];
        int keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                   ch == '.' || ch == '_' || ch == '-';
        hash = (hash ^ ch) * 16777619u;
        only_dots &= ch == '.';
        if (n <= CLI_NAME_MAX || len < CLI_NAME_KEEP) buf[len++] = keep ? (char)ch : '_';
    }
    buf[len] = '\0';
    if (only_dots) snprintf(buf, CLI_FILE_MAX, "output_%d", (int)i);
    else if (n > CLI_NAME_MAX) snprintf(buf + len, CLI_FILE_MAX - len, "~%08x", (unsigned)hash);
}

/* 1 when two file names are equal ignoring ASCII case. */
static int cli_same_file(const char *a, const char *b) {
    for (; *a && *b; ++a, ++b) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a, y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y) return 0;
    }
    return *a == *b;
}

/* files[i]: output i's file name in DIR (CLI_FILE_MAX bytes each), unique among them. One ~<i>
   suffix suffices: names made above hold '~' only before 8 hex digits (of a hash), and no two
   outputs share an index, so a suffixed name cannot equal any other. */
static void cli_output_files(const mmd_session *s, char (*files)[CLI_FILE_MAX]) {
    int32_t i, j, n = mmd_session_output_count(s);
    for (i = 0; i < n; ++i) {
        cli_output_name(files[i], mmd_session_output(s, i)->name, i);
        for (j = 0; j < i; ++j)
            if (cli_same_file(files[i], files[j])) {
                size_t len = strlen(files[i]);
                snprintf(files[i] + len, CLI_FILE_MAX - len, "~%d", (int)i);
                break;
            }
    }
}

static int cli_write_output(const char *dir, const char *file, const mmd_tensor *t) {
    char path[4096], shape[256];
    mmd_error err;
    mmd_npy npy;
    FILE *f;
    memset(&err, 0, sizeof err);
    memset(&npy, 0, sizeof npy);
    snprintf(path, sizeof path, "%s/%s.npy", dir, file);
    npy.dtype = t->dtype;
    npy.rank = t->rank;
    memcpy(npy.dims, t->dims, sizeof npy.dims);
    npy.data = t->data;
    if (mmd_tensor_nbytes(t, &npy.nbytes, &err) != MMD_OK)
        return cli_fail("output '%s': %s", t->name, err.msg);
    if (!mmd_npy_descr(t->dtype))
        return cli_fail("output '%s' is %s, which .npy cannot hold", t->name,
                        mmd_dtype_name(t->dtype));
    if (!(f = fopen(path, "wb"))) return cli_fail("cannot create '%s': %s", path, strerror(errno));
    if (mmd_npy_write(f, &npy, &err) != MMD_OK) {
        fclose(f);
        return cli_fail("cannot write '%s': %s", path, err.msg);
    }
    if (fclose(f) != 0) return cli_fail("cannot write '%s': %s", path, strerror(errno));
    if (strcmp(file, t->name) == 0)
        cli_line("%s  %s %s", path, mmd_dtype_name(t->dtype), cli_shape(shape, sizeof shape, t->rank, t->dims, NULL));
    else
        cli_line("%s  %s %s  (output '%s')", path, mmd_dtype_name(t->dtype),
                 cli_shape(shape, sizeof shape, t->rank, t->dims, NULL), t->name);
    return 0;
}

static int cli_run(const cli_args *a) {
    cli_ctx c;
    char missing[512], (*files)[CLI_FILE_MAX] = NULL;
    size_t len = 0;
    int32_t i, n_missing = 0, n_out;
    int rc = 1;
    memset(&c, 0, sizeof c);
    c.threads = (int32_t)a->threads;
    c.no_rewrites = a->no_rewrites;
    if ((rc = cli_backends_init(&c.backends, a->backends, 0)) != 0) return rc;
    rc = 1;
    if (cli_open(&c, a)) goto done;
    missing[0] = '\0';
    for (i = 0; i < c.in_count; ++i)
        if (!c.in[i].path && len < sizeof missing) {
            len += (size_t)snprintf(missing + len, sizeof missing - len, "%s'%s'",
                                    n_missing++ ? ", " : "", mmd_session_input(c.s, i)->name);
        }
    if (n_missing) {
        rc = cli_fail("missing input%s %s (give --input NAME=FILE)", n_missing == 1 ? "" : "s",
                      missing);
        goto done;
    }
    n_out = mmd_session_output_count(c.s);
    if (!(files = (char(*)[CLI_FILE_MAX])malloc((size_t)n_out * CLI_FILE_MAX + 1))) {
        rc = cli_fail("out of memory");
        goto done;
    }
    cli_output_files(c.s, files);
    if (cli_bind_inputs(&c) || cli_prepare(&c) || cli_run_once(&c) || cli_make_dir(a->outdir))
        goto done;
    for (i = 0; i < n_out; ++i)
        if (cli_write_output(a->outdir, files[i], mmd_session_output(c.s, i))) goto done;
    rc = 0;
done:
    free(files);
    cli_ctx_free(&c);
    return rc;
}

/* ==== >>bench ==== */
static int cli_double_order(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* bench --profile: time per node summed over the timed runs, read through the profiler hook
   (the runtime keeps no clock). Slot node_count is a whole-graph backend's execute. */
typedef struct cli_profile {
    double *ms;
    const char **op, **name;
    int32_t node_count;
    int recording;                   /* 0 during warmup */
    double start;
} cli_profile;

static void cli_profile_hook(void *user, const mmd_profile_event *ev) {
    cli_profile *p = (cli_profile *)user;
    double now;
    int32_t slot;
    if (!p->recording) return;
    now = cli_now_ms();
    if (!ev->end) {
        p->start = now;
        return;
    }
    slot = ev->node >= 0 && ev->node < p->node_count ? ev->node : p->node_count;
    p->ms[slot] += now - p->start;
    p->op[slot] = ev->op_type;
    p->name[slot] = ev->name;
}

static const cli_profile *cli_sort_profile;
static int cli_profile_order(const void *pa, const void *pb) {
    double a = cli_sort_profile->ms[*(const int32_t *)pa], b = cli_sort_profile->ms[*(const int32_t *)pb];
    return a > b ? -1 : a < b;
}

/* The node table, slowest first, then the same time by op type. */
static int cli_print_profile(const cli_profile *p, const mmd_session *s, long runs) {
    int32_t *order = (int32_t *)malloc(sizeof(int32_t) * (size_t)(p->node_count + 1));
    int32_t i, j, k, n = 0;
    double total = 0;
    if (!order) return cli_fail("out of memory");
    for (i = 0; i <= p->node_count; ++i)
        if (p->op[i]) {
            order[n++] = i;
            total += p->ms[i];
        }
    cli_sort_profile = p;
    qsort(order, (size_t)n, sizeof *order, cli_profile_order);
    cli_line("profile (mean per run over %ld runs, %d nodes run):", runs, (int)n);
    cli_line("  %-20s %-10s %9s %6s  %s", "op type", "backend", "ms", "%", "name");
    for (k = 0; k < n; ++k) {
        int32_t b = order[k] < p->node_count ? mmd_session_node_backend(s, order[k]) : -1;
        const char *bname = order[k] == p->node_count ? p->op[order[k]] : b >= 0 ? mmd_session_backend(s, b)->name : "reference";
        cli_line("  %-20s %-10s %9.4f %6.2f  %s", p->op[order[k]], bname, p->ms[order[k]] / (double)runs,
                 total > 0 ? 100.0 * p->ms[order[k]] / total : 0.0, p->name[order[k]]);
    }
    cli_line("  %-20s %-10s %9.4f %6.2f", "total", "", total / (double)runs, 100.0);
    cli_line("by op type:");
    for (k = 0; k < n; ++k) {
        double sum = 0;
        int32_t count = 0;
        for (j = 0; j < k; ++j)
            if (strcmp(p->op[order[j]], p->op[order[k]]) == 0) break;
        if (j < k) continue;
        for (i = k; i < n; ++i)
            if (strcmp(p->op[order[i]], p->op[order[k]]) == 0) {
                sum += p->ms[order[i]];
                ++count;
            }
        cli_line("  %-20s %4d node%s %9.4f ms %6.2f %%", p->op[order[k]], (int)count, count == 1 ? " " : "s",
                 sum / (double)runs, total > 0 ? 100.0 * sum / total : 0.0);
    }
    free(order);
    return 0;
}

static int cli_bench(const cli_args *a) {
    cli_ctx c;
    mmd_plan_stats st;
    double *ms = NULL, t0, load_ms, sum = 0, median, p90;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    long k, n = a->iters;
    int32_t i;
    int rc = 1;
    cli_profile prof;
    memset(&c, 0, sizeof c);
    memset(&prof, 0, sizeof prof);
    c.threads = (int32_t)a->threads;
    c.no_rewrites = a->no_rewrites;
    if ((rc = cli_backends_init(&c.backends, a->backends, 0)) != 0) return rc;
    rc = 1;
    /* The load is timed from the bytes in memory: parse + create, then bind + prepare; reading
       the files and making random inputs are not part of it. */
    c.model_path = a->model;
    mmd_arena_init(&c.arena, NULL, 0, 1);
    if (cli_read_file(a->model, &c.model, &c.model_size)) goto done;
    t0 = cli_now_ms();
    if (cli_create(&c)) goto done;
    load_ms = cli_now_ms() - t0;
    if (cli_assign_inputs(&c, a)) goto done;
    for (i = 0; i < c.in_count; ++i)
        if (c.in[i].path ? cli_load_input(&c, i) : cli_make_input(&c, i, &rng)) goto done;
    t0 = cli_now_ms();
    if (cli_bind_inputs(&c) || cli_prepare(&c)) goto done;
    load_ms += cli_now_ms() - t0;

    if (!(ms = (double *)malloc(sizeof(double) * (size_t)n))) {
        rc = cli_fail("out of memory");
        goto done;
    }
    if (a->profile) {
        /* The node count comes from the model parsed once more, into the inputs' arena. */
        mmd_model *m;
        mmd_error err;
        memset(&err, 0, sizeof err);
        if (mmd_model_parse(&c.arena, c.model, c.model_size, 0, &m, &err) != MMD_OK) {
            rc = cli_fail_err("profile", &err);
            goto done;
        }
        prof.node_count = m->node_count;
        prof.ms = (double *)calloc((size_t)m->node_count + 1, sizeof(double));
        prof.op = (const char **)calloc((size_t)m->node_count + 1, sizeof(char *));
        prof.name = (const char **)calloc((size_t)m->node_count + 1, sizeof(char *));
        if (!prof.ms || !prof.op || !prof.name) {
            rc = cli_fail("out of memory");
            goto done;
        }
        mmd_session_set_profiler(c.s, cli_profile_hook, &prof);
    }
    for (k = 0; k < a->warmup; ++k)
        if (cli_run_once(&c)) goto done;
    prof.recording = 1;
    for (k = 0; k < n; ++k) {
        t0 = cli_now_ms();
        if (cli_run_once(&c)) goto done;
        ms[k] = cli_now_ms() - t0;
        sum += ms[k];
    }
    qsort(ms, (size_t)n, sizeof *ms, cli_double_order);
    median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    /* Nearest rank: the smallest time that at least 90% of the runs do not exceed. */
    p90 = ms[(9 * n + 9) / 10 - 1];
    mmd_session_stats(c.s, &st);
    cli_line("model    %s", a->model);
    cli_line("load     %.4f ms (parse + create + bind + prepare)", load_ms);
    cli_line("runs     %ld timed after %ld warmup, %ld thread%s, kernels for %s", n, a->warmup, a->threads,
             a->threads == 1 ? "" : "s", mmd_ops_isa());
    cli_line("per run  mean %.4f ms, median %.4f ms, min %.4f ms, max %.4f ms, p90 %.4f ms",
             sum / (double)n, median, ms[0], ms[n - 1], p90);
    cli_line("arena    %zu bytes (%zu of them packed weights, %zu rewritten weights)", st.arena_bytes,
             st.packed_bytes, st.rewrite_bytes);
    cli_line("nodes    %d after %d load-time rewrites, %d folded at prepare", (int)st.node_count,
             (int)st.rewrite_count, (int)st.folded_count);
    for (i = 0; i < mmd_session_backend_count(c.s); ++i)
        cli_line("backend  %s (before the reference kernels)", mmd_session_backend(c.s, i)->name);
    if (a->profile && cli_print_profile(&prof, c.s, n)) goto done;
    printf("{\"median_ms\":%.6f, \"min_ms\":%.6f, \"load_ms\":%.6f, \"arena_bytes\":%zu, \"packed_bytes\":%zu, "
           "\"threads\":%ld, \"isa\":\"%s\", \"nodes\":%d, \"rewrites\":%d}\n", median, ms[0], load_ms, st.arena_bytes,
           st.packed_bytes, a->threads, mmd_ops_isa(), (int)st.node_count, (int)st.rewrite_count);
    rc = 0;
done:
    free(ms);
    free(prof.ms);
    free((void *)prof.op);
    free((void *)prof.name);
    cli_ctx_free(&c);
    return rc;
}

/* ==== >>sdk ==== */
/* `mmdeploy sdk MODEL_DIR IMAGE [--device NAME]`: the SDK's C API on one image, the result as
   JSON (tools/mmd_sdk_json.h, which tests/sdk_probe.c prints with too). The SDK has logged its
   message on stderr before a failing call returns; this adds the status and what failed. */
static int cli_sdk_fail(int st, const char *what, const char *name) {
    static const char *const names[] = {"SUCCESS",         "E_INVALID_ARG",    "E_NOT_SUPPORTED", "E_OUT_OF_RANGE",
                                        "E_OUT_OF_MEMORY", "E_FILE_NOT_EXIST", "E_FAIL"};
    cli_fail("sdk: %s '%s': status %d (MMDEPLOY_%s)", what, name, st, st >= 0 && st < 7 ? names[st] : "E_UNKNOWN");
    return 1;
}

#if MMD_HAVE_SDK
/* Creates the handle deploy.json's task names, applies it to the image and prints the result;
   nothing reaches stdout unless the run succeeded. */
static int cli_sdk_apply(mmdeploy_model_t model, const char *task, const char *device, const mmdeploy_mat_t *mat) {
    int st, *count;
    if (strcmp(task, "Classifier") == 0) {
        mmdeploy_classifier_t h;
        mmdeploy_classification_t *res;
        if ((st = mmdeploy_classifier_create(model, device, 0, &h)) != 0) return st;
        if ((st = mmdeploy_classifier_apply(h, mat, 1, &res, &count)) == 0) {
            printf("{\"task\": \"%s\", \"result\": ", task);
            mmd_sdk_json_classification(stdout, res, count[0]);
            mmdeploy_classifier_release_result(res, count, 1);
        }
        mmdeploy_classifier_destroy(h);
    } else if (strcmp(task, "Detector") == 0) {
        mmdeploy_detector_t h;
        mmdeploy_detection_t *res;
        if ((st = mmdeploy_detector_create(model, device, 0, &h)) != 0) return st;
        if ((st = mmdeploy_detector_apply(h, mat, 1, &res, &count)) == 0) {
            printf("{\"task\": \"%s\", \"result\": ", task);
            mmd_sdk_json_detection(stdout, res, count[0]);
            mmdeploy_detector_release_result(res, count, 1);
        }
        mmdeploy_detector_destroy(h);
    } else if (strcmp(task, "RotatedDetector") == 0) {
        mmdeploy_rotated_detector_t h;
        mmdeploy_rotated_detection_t *res;
        if ((st = mmdeploy_rotated_detector_create(model, device, 0, &h)) != 0) return st;
        if ((st = mmdeploy_rotated_detector_apply(h, mat, 1, &res, &count)) == 0) {
            printf("{\"task\": \"%s\", \"result\": ", task);
            mmd_sdk_json_rotated(stdout, res, count[0]);
            mmdeploy_rotated_detector_release_result(res, count);
        }
        mmdeploy_rotated_detector_destroy(h);
    } else if (strcmp(task, "Segmentor") == 0) {
        mmdeploy_segmentor_t h;
        mmdeploy_segmentation_t *res;
        if ((st = mmdeploy_segmentor_create(model, device, 0, &h)) != 0) return st;
        if ((st = mmdeploy_segmentor_apply(h, mat, 1, &res)) == 0) {
            printf("{\"task\": \"%s\", \"result\": ", task);
            mmd_sdk_json_segmentation(stdout, res);
            mmdeploy_segmentor_release_result(res, 1);
        }
        mmdeploy_segmentor_destroy(h);
    } else if (strcmp(task, "PoseDetector") == 0) {
        mmdeploy_pose_detector_t h;
        mmdeploy_pose_detection_t *res;
        if ((st = mmdeploy_pose_detector_create(model, device, 0, &h)) != 0) return st;
        if ((st = mmdeploy_pose_detector_apply(h, mat, 1, &res)) == 0) {
            printf("{\"task\": \"%s\", \"result\": ", task);
            mmd_sdk_json_pose(stdout, res, 1);
            mmdeploy_pose_detector_release_result(res, 1);
        }
        mmdeploy_pose_detector_destroy(h);
    } else if (strcmp(task, "TextDetector") == 0) {
        mmdeploy_text_detector_t h;
        mmdeploy_text_detection_t *res;
        if ((st = mmdeploy_text_detector_create(model, device, 0, &h)) != 0) return st;
        if ((st = mmdeploy_text_detector_apply(h, mat, 1, &res, &count)) == 0) {
            printf("{\"task\": \"%s\", \"result\": ", task);
            mmd_sdk_json_text_detection(stdout, res, count[0]);
            mmdeploy_text_detector_release_result(res, count, 1);
        }
        mmdeploy_text_detector_destroy(h);
    } else {
        /* TextRecognizer: mmd_sdk_model_task names no other task. */
        mmdeploy_text_recognizer_t h;
        mmdeploy_text_recognition_t *res;
        if ((st = mmdeploy_text_recognizer_create(model, device, 0, &h)) != 0) return st;
        if ((st = mmdeploy_text_recognizer_apply(h, mat, 1, &res)) == 0) {
            printf("{\"task\": \"%s\", \"result\": ", task);
            mmd_sdk_json_text_recognition(stdout, res);
            mmdeploy_text_recognizer_release_result(res, 1);
        }
        mmdeploy_text_recognizer_destroy(h);
    }
    if (st == 0) printf("}\n");
    return st;
}
#endif

static int cli_sdk(int argc, char **argv) {
    const char *device = "cpu";
    if (argc == 6 && strcmp(argv[4], "--device") == 0) device = argv[5];
    else if (argc != 4) return cli_usage_error("sdk takes MODEL_DIR IMAGE [--device NAME]");
#if MMD_HAVE_SDK
    {
        mmdeploy_model_t model;
        mmdeploy_mat_t mat;
        int st;
        if ((st = mmdeploy_model_create_by_path(argv[2], &model)) != 0)
            return cli_sdk_fail(st, "cannot load the model directory", argv[2]);
        if ((st = mmd_image_load(argv[3], &mat)) != 0) {
            mmdeploy_model_destroy(model);
            return cli_sdk_fail(st, "cannot read the image", argv[3]);
        }
        st = cli_sdk_apply(model, mmd_sdk_model_task(model), device, &mat);
        mmd_image_free(&mat);
        mmdeploy_model_destroy(model);
        return st ? cli_sdk_fail(st, "cannot run the model directory", argv[2]) : 0;
    }
#else
    (void)device;
    return cli_sdk_fail(2, "the SDK is not built in (the CLI was built without cJSON and stb: install libcjson-dev "
                           "and libstb-dev and rebuild) for", argv[2]);
#endif
}

/* ==== >>main ==== */
int main(int argc, char **argv) {
    cli_args a;
    int rc;
    if (argc < 2) {
        cli_print_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        cli_print_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mmdeploy %s\n", MMD_VERSION_STRING);
        return 0;
    }
    if (strcmp(argv[1], "sdk") == 0) {
        rc = cli_sdk(argc, argv);
        if (fflush(stdout) != 0 && rc == 0) rc = cli_fail("cannot write to stdout: %s", strerror(errno));
        return rc;
    }
    rc = cli_parse_args(argc, argv, &a);
    if (rc == 0) {
        if (strcmp(a.command, "info") == 0) rc = cli_info(&a);
        else if (strcmp(a.command, "convert") == 0) rc = cli_convert(&a);
        else if (strcmp(a.command, "run") == 0) rc = cli_run(&a);
        else rc = cli_bench(&a);
    } else if (rc < 0) {
        rc = 0; /* --help after the command */
    }
    free((void *)a.inputs);
    if (fflush(stdout) != 0 && rc == 0) rc = cli_fail("cannot write to stdout: %s", strerror(errno));
    return rc;
}
