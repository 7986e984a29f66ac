/* tests/fuzz/fuzz_runtime.c - the runtime and the helpers every fuzz harness links (fuzz.h). */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MMD_MALLOC(size) fuzz_malloc(size)
#define MMD_FREE(ptr) fuzz_free(ptr)
#define MMD_IMPLEMENTATION
#include "fuzz.h"
#define MMD_NPY_IMPLEMENTATION
#include "mmd_npy.h"

/* Each block carries its size in front, so that fuzz_free can give it back to the count; 16
   bytes keep the payload as aligned as malloc's. */
typedef struct fuzz__head { size_t size, pad; } fuzz__head;
static size_t fuzz__in_use;

void *fuzz_malloc(size_t size) {
    fuzz__head *h;
    if (size > FUZZ_HEAP_CAP - fuzz__in_use) return NULL;
    if (!(h = (fuzz__head *)malloc(sizeof(fuzz__head) + size))) return NULL;
    h->size = size;
    fuzz__in_use += size;
    return h + 1;
}

void fuzz_free(void *p) {
    fuzz__head *h;
    if (!p) return;
    h = (fuzz__head *)p - 1;
    fuzz__in_use -= h->size;
    free(h);
}

uint8_t *fuzz_copy(const uint8_t *data, size_t size) {
    void *p = NULL;
    if (posix_memalign(&p, 16, size ? size : 1) != 0) return NULL;
    if (data && size) memcpy(p, data, size);
    else memset(p, 0, size ? size : 1);
    return (uint8_t *)p;
}

void fuzz_check(mmd_status st, const mmd_error *err) {
    if (st == MMD_OK) return;
    if ((unsigned)st >= (unsigned)MMD_STATUS_COUNT || err->status != st || !err->msg[0]) {
        fprintf(stderr, "fuzz: status %d (%s) but err has status %d and message '%s'\n", (int)st,
                mmd_status_string(st), (int)err->status, err->msg);
        abort();
    }
}

/* Reads every byte of each output through a volatile sum: a shape larger than the memory
   behind it is then an ASan report, not a silent overread a caller would make later. */
static void fuzz__touch_outputs(const mmd_session *s) {
    int32_t i;
    for (i = 0; i < mmd_session_output_count(s); ++i) {
        const mmd_tensor *t = mmd_session_output(s, i);
        volatile uint8_t sum = 0;
        size_t n = 0, k;
        mmd_error err;
        if (!t || mmd_tensor_nbytes(t, &n, &err) != MMD_OK) {
            fprintf(stderr, "fuzz: output %d has no valid shape after a successful run\n", (int)i);
            abort();
        }
        if (n && !t->data) {
            fprintf(stderr, "fuzz: output '%s' (%zu bytes) has no data after a successful run\n",
                    t->name, n);
            abort();
        }
        for (k = 0; k < n; ++k) sum = (uint8_t)(sum + ((const uint8_t *)t->data)[k]);
        (void)sum;
    }
}

/* The hook behind fuzz_node_run's threads: the shares in reverse order on the calling thread. */
static void fuzz__reverse_parallel(void *user, mmd_task_fn task, void *ctx, int32_t count) {
    int32_t i;
    (void)user;
    for (i = count - 1; i >= 0; --i) task(ctx, i);
}

/* An upper bound on the multiply-adds of a run: for each product node (Conv*, *MatMul*, Gemm,
   the recurrent ops, in any domain and with any fused suffix), the larger of its first input and
   its output times, for each further input of rank 2 or more, that input's elements per leading
   index (a Conv's multiply-adds per output, a ConvTranspose's per input, a MatMul's K times N...).
   It overestimates some products (LSTM, a MatMul's N over K), which only skips a few more runs. */
static double fuzz__work(const mmd_session *s) {
    static const char *const products[] = {"Conv", "MatMul", "Gemm", "LSTM", "GRU", "RNN"};
    const mmd_model *m = mmd_session_model(s);
    double work = 0;
    int32_t i, j, k;
    for (i = 0; m && i < m->node_count; ++i) {
        const mmd_node *nd = &m->nodes[i];
        const mmd_tensor *x = nd->input_count > 0 ? nd->in[0] : NULL, *y = nd->output_count > 0 ? nd->out[0] : NULL;
        double big;
        for (k = 0; k < 6 && !strstr(nd->op_type, products[k]); ++k) {}
        if (k == 6 || !x || !y) continue;
        big = (double)(mmd_tensor_numel(x) > mmd_tensor_numel(y) ? mmd_tensor_numel(x) : mmd_tensor_numel(y));
        for (j = 1; j < nd->input_count; ++j) {
            const mmd_tensor *w = nd->in[j];
            if (w && w->rank >= 2 && w->dims[0] > 0) work += big * ((double)mmd_tensor_numel(w) / (double)w->dims[0]);
        }
    }
    return work;
}

static void fuzz__session(const uint8_t *bytes, size_t size, int32_t copy_weights, int32_t run,
                          size_t arena_bytes, int32_t threads) {
    mmd_session *s = NULL;
    mmd_options opts;
    mmd_error err;
    mmd_status st;
    void **inputs = NULL;
    int32_t n, i;
    size_t total = 0;

    memset(&opts, 0, sizeof opts);
    memset(&err, 0, sizeof err);
    opts.copy_weights = copy_weights;
    opts.threads = threads;
    if (threads > 1) opts.parallel = fuzz__reverse_parallel;
    if (arena_bytes && !(opts.arena = malloc(arena_bytes))) return;
    opts.arena_size = arena_bytes;
    st = mmd_session_create(bytes, size, &opts, &s, &err);
    fuzz_check(st, &err);
    n = st == MMD_OK ? mmd_session_input_count(s) : 0;
    if (st == MMD_OK && run && (inputs = (void **)calloc((size_t)n + 1, sizeof(void *))) != NULL) {
        for (i = 0; i < n && st == MMD_OK; ++i) {
            const mmd_tensor *t = mmd_session_input(s, i);
            size_t nbytes = 0;
            st = mmd_tensor_nbytes(t, &nbytes, &err);
            fuzz_check(st, &err);
            if (st != MMD_OK || nbytes > FUZZ_INPUT_CAP - total) goto done;
            total += nbytes;
            if (!(inputs[i] = calloc(nbytes ? nbytes : 1, 1))) goto done;
            st = mmd_session_set_input(s, i, t->dtype, t->rank, t->dims, inputs[i], &err);
            fuzz_check(st, &err);
        }
        if (st == MMD_OK) {
            st = mmd_session_prepare(s, &err);
            fuzz_check(st, &err);
        }
        if (st == MMD_OK) {
            mmd_plan_stats stats;
            mmd_session_stats(s, &stats);
            if (stats.activation_sum_bytes > FUZZ_RUN_CAP || fuzz__work(s) > FUZZ_WORK_CAP) goto done;
            st = mmd_session_run(s, &err);
            fuzz_check(st, &err);
        }
        if (st == MMD_OK) fuzz__touch_outputs(s);
    }
done:
    mmd_session_destroy(s);
    if (inputs)
        for (i = 0; i < n; ++i) free(inputs[i]);
    free(inputs);
    free(opts.arena);
    if (fuzz__in_use) {
        fprintf(stderr, "fuzz: %zu bytes of runtime memory still in use after destroy\n", fuzz__in_use);
        abort();
    }
}

void fuzz_session(const uint8_t *bytes, size_t size, int32_t copy_weights, int32_t run,
                  size_t arena_bytes) {
    fuzz__session(bytes, size, copy_weights, run, arena_bytes, 0);
}

/* ==== models built from the fuzz bytes ==== */

uint32_t fuzz_take(fuzz_reader *r, uint32_t count) {
    uint32_t v = 0;
    size_t i, n = count > 256 ? 4 : 1;
    if (count <= 1) return 0;
    for (i = 0; i < n && r->n; ++i, ++r->p, --r->n) v = v << 8 | *r->p;
    return v % count;
}

float fuzz_take_float(fuzz_reader *r) {
    static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e-45f, -1e-45f, 1e-38f, FLT_MAX, -FLT_MAX,
                                 1e30f, 3e9f, 128.0f, 255.5f, -129.0f, 1e-30f};
    uint32_t k = fuzz_take(r, 256), bits;
    float f;
    if (k < 16) return edge[k];
    if (k == 16) return INFINITY;
    if (k == 17) return -INFINITY;
    if (k == 18) return NAN;
    if (k < 32) {
        bits = fuzz_take(r, 0xffffffffu);
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    return (float)((int32_t)k - 144) * 0.25f;
}

int64_t fuzz_take_int(fuzz_reader *r) {
    static const int64_t edge[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, INT32_MAX, INT32_MIN,
                                   (int64_t)INT32_MAX + 1, INT64_MAX, INT64_MIN, (int64_t)1 << 40, 65535};
    uint32_t k = fuzz_take(r, 256);
    return k < 16 ? edge[k] : (int64_t)k - 136;
}

static void fuzz__put(fuzz_pb *m, const void *data, size_t n) {
    if (n > m->cap - m->n) {
        size_t cap = m->cap ? m->cap : 256;
        uint8_t *p;
        while (cap - m->n < n) cap *= 2;
        if (!(p = (uint8_t *)realloc(m->p, cap))) abort();
        m->p = p;
        m->cap = cap;
    }
    if (n) memcpy(m->p + m->n, data, n);
    m->n += n;
}

static void fuzz__raw_varint(fuzz_pb *m, uint64_t v) {
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        b[n++] |= v ? 0x80 : 0;
    } while (v);
    fuzz__put(m, b, n);
}

void fuzz_pb_varint(fuzz_pb *m, uint32_t field, uint64_t v) {
    fuzz__raw_varint(m, (uint64_t)field << 3);
    fuzz__raw_varint(m, v);
}

void fuzz_pb_bytes(fuzz_pb *m, uint32_t field, const void *data, size_t n) {
    fuzz__raw_varint(m, (uint64_t)field << 3 | 2);
    fuzz__raw_varint(m, n);
    fuzz__put(m, data, n);
}

void fuzz_pb_string(fuzz_pb *m, uint32_t field, const char *s) { fuzz_pb_bytes(m, field, s, strlen(s)); }

void fuzz_pb_msg(fuzz_pb *m, uint32_t field, fuzz_pb *child) {
    fuzz_pb_bytes(m, field, child->p, child->n);
    fuzz_pb_free(child);
}

void fuzz_pb_free(fuzz_pb *m) {
    free(m->p);
    memset(m, 0, sizeof *m);
}

void fuzz_graph_value(fuzz_pb *graph, uint32_t field, const char *name, int32_t dtype, int32_t rank,
                      const int64_t *dims) {
    fuzz_pb vi = {0}, type = {0}, tensor = {0}, shape = {0}, dim = {0};
    int32_t i;
    fuzz_pb_string(&vi, 1, name);
    if (dtype) {
        fuzz_pb_varint(&tensor, 1, (uint64_t)dtype);
        if (rank >= 0) {
            for (i = 0; i < rank; ++i) {
                fuzz_pb_varint(&dim, 1, (uint64_t)dims[i]);
                fuzz_pb_msg(&shape, 1, &dim);
            }
            fuzz_pb_msg(&tensor, 2, &shape);
        }
        fuzz_pb_msg(&type, 1, &tensor);
        fuzz_pb_msg(&vi, 2, &type);
    }
    fuzz_pb_msg(graph, field, &vi);
}

void fuzz_graph_initializer(fuzz_pb *graph, const char *name, int32_t dtype, int32_t rank, const int64_t *dims,
                            const void *raw, size_t nbytes) {
    fuzz_pb t = {0};
    int32_t i;
    for (i = 0; i < rank; ++i) fuzz_pb_varint(&t, 1, (uint64_t)dims[i]);
    fuzz_pb_varint(&t, 2, (uint64_t)dtype);
    fuzz_pb_string(&t, 8, name);
    fuzz_pb_bytes(&t, 9, raw, nbytes);
    fuzz_pb_msg(graph, 5, &t);
}

/* AttributeProto: name 1, f 2, i 3, s 4, floats 7, ints 8, strings 9, type 20. */
static void fuzz__attr(fuzz_pb *node, fuzz_pb *a, const char *name, int32_t type) {
    fuzz_pb full = {0};
    fuzz_pb_string(&full, 1, name);
    fuzz__put(&full, a->p, a->n);
    fuzz_pb_varint(&full, 20, (uint64_t)type);
    fuzz_pb_free(a);
    fuzz_pb_msg(node, 5, &full);
}

void fuzz_attr_int(fuzz_pb *node, const char *name, int64_t v) {
    fuzz_pb a = {0};
    fuzz_pb_varint(&a, 3, (uint64_t)v);
    fuzz__attr(node, &a, name, 2);
}

void fuzz_attr_float(fuzz_pb *node, const char *name, float v) {
    fuzz_pb a = {0};
    fuzz__raw_varint(&a, 2 << 3 | 5);
    fuzz__put(&a, &v, 4); /* fixed32, little-endian like the hosts the runtime supports */
    fuzz__attr(node, &a, name, 1);
}

void fuzz_attr_ints(fuzz_pb *node, const char *name, const int64_t *v, int32_t n) {
    fuzz_pb a = {0};
    int32_t i;
    for (i = 0; i < n; ++i) fuzz_pb_varint(&a, 8, (uint64_t)v[i]);
    fuzz__attr(node, &a, name, 7);
}

void fuzz_attr_floats(fuzz_pb *node, const char *name, const float *v, int32_t n) {
    fuzz_pb a = {0};
    fuzz_pb_bytes(&a, 7, v, (size_t)n * sizeof(float)); /* packed */
    fuzz__attr(node, &a, name, 6);
}

void fuzz_attr_string(fuzz_pb *node, const char *name, const char *v) {
    fuzz_pb a = {0};
    fuzz_pb_string(&a, 4, v);
    fuzz__attr(node, &a, name, 3);
}

void fuzz_attr_strings(fuzz_pb *node, const char *name, const char *const *v, int32_t n) {
    fuzz_pb a = {0};
    int32_t i;
    for (i = 0; i < n; ++i) fuzz_pb_string(&a, 9, v[i]);
    fuzz__attr(node, &a, name, 8);
}

void fuzz_graph_tensor(fuzz_pb *graph, fuzz_reader *r, const char *name, int32_t dtype, int32_t rank,
                       const int64_t *dims, int32_t initializer) {
    size_t esize = mmd_dtype_size(dtype), n = 1, i;
    uint8_t *raw;
    int32_t d;
    if (!initializer || !esize) {
        fuzz_graph_value(graph, 11, name, dtype, rank, dims);
        return;
    }
    for (d = 0; d < rank; ++d) n *= (size_t)dims[d];
    if (!(raw = (uint8_t *)calloc(n ? n : 1, esize))) abort();
    for (i = 0; i < n; ++i) {
        uint8_t *e = raw + i * esize;
        if (dtype == MMD_DTYPE_FLOAT32) {
            float f = fuzz_take_float(r);
            memcpy(e, &f, 4);
        } else if (dtype == MMD_DTYPE_FLOAT64) {
            double f = (double)fuzz_take_float(r);
            memcpy(e, &f, 8);
        } else {
            int64_t v = fuzz_take_int(r); /* the low bytes: the value wrapped to the dtype */
            memcpy(e, &v, esize < 8 ? esize : 8);
        }
    }
    fuzz_graph_initializer(graph, name, dtype, rank, dims, raw, n * esize);
    free(raw);
}

void fuzz_node_output(fuzz_pb *graph, fuzz_pb *node, const char *name) {
    fuzz_pb_string(node, 2, name);
    if (name[0]) fuzz_graph_value(graph, 12, name, 0, -1, NULL);
}

void fuzz_node_run(fuzz_pb *graph, fuzz_pb *node, const char *op_type, int64_t opset, int32_t threads) {
    fuzz_pb model = {0}, op = {0};
    uint8_t *bytes;
    fuzz_pb_string(node, 4, op_type);
    fuzz_pb_msg(graph, 1, node);
    fuzz_pb_string(graph, 2, "g");
    fuzz_pb_varint(&model, 1, 8);
    fuzz_pb_string(&op, 1, "");
    fuzz_pb_varint(&op, 2, (uint64_t)opset);
    fuzz_pb_msg(&model, 8, &op);
    fuzz_pb_msg(&model, 7, graph);
    if ((bytes = fuzz_copy(model.p, model.n)) != NULL) fuzz__session(bytes, model.n, 0, 1, 0, threads);
    free(bytes);
    fuzz_pb_free(&model);
}
