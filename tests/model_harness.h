/* tests/model_harness.h - whole models run through a backend registry, for the backend tests
   (test_backend_fallback.c, test_backend_sets.c): every input bound to fixed pseudo-random
   float32 values of its declared shape (symbolic dims 1), the graph as written, the float32
   outputs gathered, and one result line per case counted by test.h. Include after mmdeploy.h. */
#ifndef MMD_MODEL_HARNESS_H
#define MMD_MODEL_HARNESS_H
#include <string.h>

#include "test.h"

/* The outputs of one run, concatenated as float32. */
typedef struct model_outputs { float *v; size_t n; } model_outputs;

/* Creates a session with reg, binds the inputs, prepares, sets the profiler (when not NULL),
   runs, and copies the outputs; keeps the session in *keep. Returns the first failing status. */
static mmd_status model_run(const test_bytes *b, const mmd_backend_registry *reg, mmd_profiler_fn profiler,
                            void *profiler_user, model_outputs *out, mmd_session **keep, mmd_error *err) {
    mmd_options opts;
    mmd_session *s = NULL;
    mmd_status st;
    float *inputs[8] = {0};
    int32_t i, j, count = 0;
    memset(&opts, 0, sizeof opts);
    opts.backends = reg;
    /* The graph as written in every session: which load-time rewrites a session makes depends
       on its backends (none of the shape-dependent ones once a backend is created), and a fused
       epilogue rounds differently from separate nodes, so rewritten sessions would not be
       bit-identical to one another. */
    opts.no_rewrites = 1;
    *keep = NULL;
    out->v = NULL;
    out->n = 0;
    st = mmd_session_create(b->data, b->size, &opts, &s, err);
    for (i = 0; st == MMD_OK && i < mmd_session_input_count(s); ++i) {
        const mmd_tensor *t = mmd_session_input(s, i);
        int64_t numel = mmd_tensor_numel(t), k;
        uint32_t x = 12345u + (uint32_t)i;
        if (t->dtype != MMD_DTYPE_FLOAT32 || i >= 8) {
            st = mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "input %d is not float32", (int)i);
            break;
        }
        inputs[i] = (float *)malloc((size_t)numel * sizeof(float) + 4);
        for (k = 0; k < numel; ++k) {
            x = x * 1664525u + 1013904223u;
            inputs[i][k] = (float)(x >> 8) / 16777216.0f * 2.0f - 1.0f;
        }
        st = mmd_session_set_input(s, i, MMD_DTYPE_FLOAT32, t->rank, t->dims, inputs[i], err);
    }
    if (st == MMD_OK) st = mmd_session_prepare(s, err);
    if (st == MMD_OK && profiler) mmd_session_set_profiler(s, profiler, profiler_user);
    if (st == MMD_OK) st = mmd_session_run(s, err);
    for (i = 0; st == MMD_OK && i < mmd_session_output_count(s); ++i) {
        const mmd_tensor *t = mmd_session_output(s, i);
        if (t->dtype == MMD_DTYPE_FLOAT32) count += (int32_t)mmd_tensor_numel(t);
    }
    if (st == MMD_OK) out->v = (float *)malloc((size_t)count * sizeof(float) + 4);
    for (i = 0; st == MMD_OK && i < mmd_session_output_count(s); ++i) {
        const mmd_tensor *t = mmd_session_output(s, i);
        size_t n = (size_t)mmd_tensor_numel(t);
        if (t->dtype != MMD_DTYPE_FLOAT32) continue;
        memcpy(out->v + out->n, t->data, n * sizeof(float));
        out->n += n;
    }
    for (j = 0; j < 8; ++j) free(inputs[j]);
    if (st == MMD_OK) *keep = s;
    else mmd_session_destroy(s);
    return st;
}

/* Largest |a - b| over the largest |ref|. */
static double model_rel_diff(const model_outputs *a, const model_outputs *ref) {
    double scale = 0, diff = 0;
    size_t i;
    for (i = 0; i < ref->n; ++i) {
        double r = ref->v[i] < 0 ? -ref->v[i] : ref->v[i], d = (double)a->v[i] - ref->v[i];
        if (r > scale) scale = r;
        if (d < 0) d = -d;
        if (d > diff) diff = d;
    }
    return scale > 0 ? diff / scale : diff;
}

/* One case's line ("ok   MODEL WHAT: DETAIL" or "FAIL ..."), counted for test_summary. */
static void model_report(const char *model, const char *what, int ok, const char *detail) {
    test__cur_failed = !ok;
    if (test__cur_failed) ++test__failed;
    else ++test__passed;
    printf("%s %s %s%s%s\n", ok ? "ok  " : "FAIL", model, what, detail[0] ? ": " : "", detail);
}

/* The file name of a path, for the result lines. */
static const char *model_name(const char *path) { return strrchr(path, '/') ? strrchr(path, '/') + 1 : path; }

/* Checks that models are named: 1, else the usage and a failing closing line. */
static int model_args(int argc, char **argv) {
    if (argc > 1) return 1;
    fprintf(stderr, "usage: %s MODEL.onnx...\n", argv[0]);
    printf("0 passed, 1 failed\n");
    return 0;
}

/* Reads the model at path and runs it on the reference kernels alone: 1 with *b, *ref and the
   number of nodes of its graph (when nodes is not NULL), else 0 with nothing to free after reporting why. */
static int model_reference(const char *path, test_bytes *b, model_outputs *ref, int32_t *nodes) {
    mmd_session *s;
    mmd_error err;
    memset(&err, 0, sizeof err);
    *b = test_read_file(path);
    if (!b->data) {
        model_report(model_name(path), "load", 0, "cannot read the file");
        return 0;
    }
    if (model_run(b, NULL, NULL, NULL, ref, &s, &err) != MMD_OK) {
        model_report(model_name(path), "reference run", 0, err.msg);
        free(b->data);
        return 0;
    }
    if (nodes) *nodes = mmd_session_model(s)->node_count;
    mmd_session_destroy(s);
    return 1;
}
#endif
