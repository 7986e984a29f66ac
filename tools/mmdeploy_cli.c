/* tools/mmdeploy_cli.c - the `mmdeploy` command: inspect an ONNX model, run it on .npy or
   TensorProto files, time it. Built by `make build/mmdeploy` against the runtime object.

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
#define MMD_NPY_IMPLEMENTATION
#include "mmd_npy.h"

static const char cli_usage[] =
    "usage: mmdeploy <command> MODEL.onnx [options]\n"
    "\n"
    "commands:\n"
    "  info  MODEL.onnx\n"
    "        inputs, outputs, ir_version, producer, opsets, operator counts, every operator\n"
    "        without a kernel, and the memory plan for the declared shapes (symbolic dims = 1)\n"
    "  run   MODEL.onnx [--input [NAME=]FILE]... [--outdir DIR]\n"
    "        runs the model once and writes each output to DIR/<output name>.npy ('/' and ':'\n"
    "        in the name become '_'); DIR defaults to \".\" and is created if missing\n"
    "  bench MODEL.onnx [--input [NAME=]FILE]... [--iters N] [--warmup N] [--threads N]\n"
    "        times the load (parse, create, prepare) and --iters runs (default 10) after\n"
    "        --warmup untimed runs (default 1); the last line printed is one JSON object:\n"
    "        {\"median_ms\":..., \"min_ms\":..., \"load_ms\":..., \"arena_bytes\":...}\n"
    "        --threads: the runtime is single-threaded today, so only 1 is accepted\n"
    "\n"
    "inputs:\n"
    "  FILE is a .npy file (C order) or an ONNX TensorProto .pb file. Its dtype must be the\n"
    "  model's (no conversion); its shape sets the input's symbolic dims. A FILE without NAME=\n"
    "  binds by position: the k-th such FILE is the k-th graph input; FILE may also follow the\n"
    "  model without --input. bench fills inputs not given with uniform [0,1) floats (zeros for\n"
    "  other dtypes) of the declared shape, symbolic dims set to 1.\n"
    "\n"
    "  -h, --help     this text\n"
    "  --version      the runtime version\n"
    "\n"
    "exit status: 0 on success, 1 on failure, 2 on a bad command line\n";

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
    const char *command;             /* "info", "run" or "bench" */
    const char *model;
    const char **inputs;             /* "[NAME=]FILE" in the order given */
    int32_t input_count;
    const char *outdir;
    long iters, warmup, threads;
} cli_args;

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
    if (strcmp(a->command, "info") && strcmp(a->command, "run") && strcmp(a->command, "bench"))
        return cli_usage_error("unknown command '%s'", a->command);
    a->inputs = (const char **)malloc(sizeof(char *) * (size_t)argc);
    if (!a->inputs) return cli_fail("out of memory");
    for (i = 2; i < argc; ++i) {
        const char *arg = argv[i], *value = NULL, *eq;
        char name[32];
        size_t name_len;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(cli_usage, stdout);
            return -1;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (!a->model) a->model = arg;
            else if (strcmp(a->command, "info") == 0)
                return cli_usage_error("info takes one model, not '%s'", arg);
            else a->inputs[a->input_count++] = arg;
            continue;
        }
        eq = strchr(arg, '=');
        name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (name_len >= sizeof name) return cli_usage_error("unknown option '%s'", arg);
        memcpy(name, arg, name_len);
        name[name_len] = '\0';
        if (strcmp(name, "--input") && strcmp(name, "--outdir") && strcmp(name, "--iters") &&
            strcmp(name, "--warmup") && strcmp(name, "--threads"))
            return cli_usage_error("unknown option '%s'", name);
        if (strcmp(a->command, "info") == 0 ||
            (strcmp(a->command, "run") == 0 && strcmp(name, "--input") && strcmp(name, "--outdir")) ||
            (strcmp(a->command, "bench") == 0 && strcmp(name, "--outdir") == 0))
            return cli_usage_error("option %s does not apply to '%s'", name, a->command);
        if (eq) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else return cli_usage_error("option %s needs a value", name);
        if (strcmp(name, "--input") == 0) a->inputs[a->input_count++] = value;
        else if (strcmp(name, "--outdir") == 0) a->outdir = value;
        else if (strcmp(name, "--iters") == 0) {
            if ((rc = cli_parse_count(name, value, 1, 100000000L, &a->iters))) return rc;
        } else if (strcmp(name, "--warmup") == 0) {
            if ((rc = cli_parse_count(name, value, 0, 100000000L, &a->warmup))) return rc;
        } else if ((rc = cli_parse_count(name, value, 1, 4096, &a->threads))) {
            return rc;
        }
    }
    if (!a->model) return cli_usage_error("%s needs a model file", a->command);
    if (a->threads != 1) {
        cli_fail("--threads %ld: the runtime is single-threaded today; only --threads 1 is "
                 "supported", a->threads);
        return 2;
    }
    if (!a->outdir[0]) return cli_usage_error("--outdir needs a directory name");
    /* Output paths are built in fixed buffers (cli_output_file) with room for this and a name. */
    if (strlen(a->outdir) > 1024) return cli_usage_error("--outdir is longer than 1024 bytes");
    return 0;
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
    const char *model_path;
    unsigned char *model;
    size_t model_size;
    mmd_session *s;
    mmd_arena arena;
    cli_input *in;
    int32_t in_count;
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
    char what[600];
    memset(&err, 0, sizeof err);
    if (mmd_session_create(c->model, c->model_size, NULL, &c->s, &err) != MMD_OK) {
        snprintf(what, sizeof what, "'%s'", c->model_path);
        return cli_fail_err(what, &err);
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

static int cli_info(const cli_args *a) {
    unsigned char *bytes = NULL;
    size_t size = 0;
    mmd_arena arena;
    mmd_model *m = NULL;
    mmd_session *s = NULL;
    mmd_error err, plan_err;
    mmd_plan_stats stats;
    cli_op_count *ops = NULL;
    int32_t i, j, op_rows = 0, missing = 0;
    int rc = 1, planned = 0;
    char line[1024];

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
    if (!missing && mmd_session_create(bytes, size, NULL, &s, &plan_err) == MMD_OK &&
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
        cli_line("opsets      %s", line);
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
    if (!planned) {
        snprintf(line, sizeof line, "no plan for '%s' with symbolic dims = 1", a->model);
        rc = cli_fail_err(line, &plan_err);
        goto done;
    }
    cli_print_plan(&stats);
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

/* The file name of an output: '/' and ':' (common in exported names) would leave DIR or
   confuse tools, so they become '_'; a name made only of dots or empty gets its index. */
static void cli_output_file(char *buf, size_t cap, const char *dir, const char *name, int32_t i) {
    size_t len = (size_t)snprintf(buf, cap, "%s/", dir), k, start = len;
    int only_dots = 1;
    for (k = 0; name[k] && len + 5 < cap; ++k) {
        char ch = name[k];
        buf[len++] = ch == '/' || ch == ':' ? '_' : ch;
        only_dots &= ch == '.';
    }
    if (only_dots) len = start + (size_t)snprintf(buf + start, cap - start, "output_%d", (int)i);
    snprintf(buf + len, cap - len, ".npy");
}

static int cli_write_output(const char *dir, int32_t i, const mmd_tensor *t) {
    char path[4096], shape[256];
    mmd_error err;
    mmd_npy npy;
    FILE *f;
    memset(&err, 0, sizeof err);
    memset(&npy, 0, sizeof npy);
    cli_output_file(path, sizeof path, dir, t->name, i);
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
    cli_line("%s  %s %s", path, mmd_dtype_name(t->dtype),
             cli_shape(shape, sizeof shape, t->rank, t->dims, NULL));
    return 0;
}

static int cli_run(const cli_args *a) {
    cli_ctx c;
    char missing[512];
    size_t len = 0;
    int32_t i, j, n_missing = 0, n_out;
    int rc = 1;
    memset(&c, 0, sizeof c);
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
    /* Two outputs whose names differ only in '/' or ':' would write one file. */
    n_out = mmd_session_output_count(c.s);
    for (i = 0; i < n_out; ++i)
        for (j = 0; j < i; ++j) {
            char pi[4096], pj[4096];
            cli_output_file(pi, sizeof pi, a->outdir, mmd_session_output(c.s, i)->name, i);
            cli_output_file(pj, sizeof pj, a->outdir, mmd_session_output(c.s, j)->name, j);
            if (strcmp(pi, pj) == 0) {
                rc = cli_fail("outputs '%s' and '%s' would both be written to '%s'",
                              mmd_session_output(c.s, j)->name, mmd_session_output(c.s, i)->name, pi);
                goto done;
            }
        }
    if (cli_bind_inputs(&c) || cli_prepare(&c) || cli_run_once(&c) || cli_make_dir(a->outdir))
        goto done;
    for (i = 0; i < n_out; ++i)
        if (cli_write_output(a->outdir, i, mmd_session_output(c.s, i))) goto done;
    rc = 0;
done:
    cli_ctx_free(&c);
    return rc;
}

/* ==== >>bench ==== */
static int cli_double_order(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

static int cli_bench(const cli_args *a) {
    cli_ctx c;
    mmd_plan_stats st;
    double *ms = NULL, t0, load_ms, sum = 0, median, p90;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    long k, n = a->iters;
    int32_t i;
    int rc = 1;
    memset(&c, 0, sizeof c);
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
    for (k = 0; k < a->warmup; ++k)
        if (cli_run_once(&c)) goto done;
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
    cli_line("runs     %ld timed after %ld warmup, 1 thread", n, a->warmup);
    cli_line("per run  mean %.4f ms, median %.4f ms, min %.4f ms, max %.4f ms, p90 %.4f ms",
             sum / (double)n, median, ms[0], ms[n - 1], p90);
    cli_line("arena    %zu bytes", st.arena_bytes);
    printf("{\"median_ms\":%.6f, \"min_ms\":%.6f, \"load_ms\":%.6f, \"arena_bytes\":%zu}\n", median,
           ms[0], load_ms, st.arena_bytes);
    rc = 0;
done:
    free(ms);
    cli_ctx_free(&c);
    return rc;
}

/* ==== >>main ==== */
int main(int argc, char **argv) {
    cli_args a;
    int rc;
    if (argc < 2) {
        fputs(cli_usage, stderr);
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(cli_usage, stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mmdeploy %s\n", MMD_VERSION_STRING);
        return 0;
    }
    rc = cli_parse_args(argc, argv, &a);
    if (rc == 0) {
        if (strcmp(a.command, "info") == 0) rc = cli_info(&a);
        else if (strcmp(a.command, "run") == 0) rc = cli_run(&a);
        else rc = cli_bench(&a);
    } else if (rc < 0) {
        rc = 0; /* --help after the command */
    }
    free((void *)a.inputs);
    if (fflush(stdout) != 0 && rc == 0) rc = cli_fail("cannot write to stdout: %s", strerror(errno));
    return rc;
}
