/* .mmd blob tests: the shipped classifier and the core models converted in memory, loaded in a
   caller arena of exactly the reported size and run against the ONNX path; truncated and
   corrupted blobs must fail with a status, never crash (run it under the sanitizers too).
   Run from the repo root. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#define MMD_NPY_IMPLEMENTATION
#include "mmd_npy.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef test_bytes bytes;
#define read_file test_read_file

/* A 16-byte aligned copy of a blob (malloc alone promises only what max_align_t needs). */
typedef struct aligned { void *raw; unsigned char *data; size_t size; } aligned;

static aligned aligned_copy(const void *src, size_t size) {
    aligned a;
    a.raw = malloc(size + 32);
    a.data = (unsigned char *)(((uintptr_t)a.raw + 15) & ~(uintptr_t)15);
    a.size = size;
    if (src && size) memcpy(a.data, src, size);
    return a;
}

/* A model's ONNX session (declared shapes, symbolic dims = 1), its bytes (read in place by the
   session) and the blob written from it. */
typedef struct converted { mmd_session *onnx; bytes model; aligned blob; } converted;

static converted convert(const char *path) {
    converted c;
    mmd_error err = {0};
    size_t size = 0;
    memset(&c, 0, sizeof(c));
    c.model = read_file(path);
    if (mmd_session_create(c.model.data, c.model.size, NULL, &c.onnx, &err) != MMD_OK ||
        mmd_session_write_blob(c.onnx, NULL, 0, &size, &err) != MMD_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return c;
    }
    c.blob = aligned_copy(NULL, size);
    if (mmd_session_write_blob(c.onnx, c.blob.data, size, &size, &err) != MMD_OK)
        fprintf(stderr, "%s: %s\n", path, err.msg);
    return c;
}

static void converted_free(converted *c) {
    mmd_session_destroy(c->onnx);
    free(c->model.data);
    free(c->blob.raw);
}

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24);
}

/* Binds the same deterministic data to every input of both sessions, runs both and compares
   every output bit for bit (same kernels, same order of operations). */
static int32_t same_outputs(mmd_session *a, mmd_session *b) {
    static float data[4][4096];
    mmd_error err = {0};
    int32_t i, j, ok = 1;
    for (i = 0; i < mmd_session_input_count(a) && i < 4; ++i) {
        const mmd_tensor *t = mmd_session_input(a, i);
        int64_t n = mmd_tensor_numel(t);
        if (t->dtype != MMD_DTYPE_FLOAT32 || n > 4096) return 0;
        for (j = 0; j < n; ++j) data[i][j] = (float)((j * 37 + i * 11) % 23) / 7.0f - 1.5f;
        ok &= mmd_session_set_input(a, i, t->dtype, t->rank, t->dims, data[i], &err) == MMD_OK;
        ok &= mmd_session_set_input(b, i, t->dtype, t->rank, t->dims, data[i], &err) == MMD_OK;
    }
    ok &= mmd_session_prepare(a, &err) == MMD_OK && mmd_session_run(a, &err) == MMD_OK;
    ok &= mmd_session_prepare(b, &err) == MMD_OK && mmd_session_run(b, &err) == MMD_OK;
    if (!ok) { fprintf(stderr, "run: %s\n", err.msg); return 0; }
    for (i = 0; i < mmd_session_output_count(a); ++i) {
        const mmd_tensor *x = mmd_session_output(a, i), *y = mmd_session_output(b, i);
        size_t n = 0;
        mmd_tensor_nbytes(x, &n, NULL);
        ok &= x->dtype == y->dtype && x->rank == y->rank && memcmp(x->dims, y->dims, sizeof(x->dims)) == 0 &&
              memcmp(x->data, y->data, n) == 0;
    }
    return ok;
}

/* An arena of exactly bytes usable bytes after the worst start: 15 bytes past alignment. */
static unsigned char arena_mem[1 << 20];
static void *worst_arena(void) { return arena_mem + 16 + 1; }

static size_t blob_arena(const aligned *blob) {
    size_t n = 0;
    mmd_error err = {0};
    CHECK(mmd_session_arena_size(blob->data, blob->size, &n, &err) == MMD_OK);
    return n;
}

static void digits_blob_matches_onnx_in_exact_arena(void) {
    converted c = convert("examples/models/digits.onnx");
    mmd_session *onnx = c.onnx, *s = NULL;
    aligned blob = c.blob;
    bytes xs = read_file("tests/data/digits_test_x.npy");
    mmd_npy npy;
    mmd_error err = {0};
    mmd_options opts;
    size_t arena = blob_arena(&blob);
    int32_t k, same = 1;
    CHECK(blob.data != NULL);
    /* The header stores the arena size the writer measured: the one the host reports. */
    CHECK(rd32(blob.data + 56) == arena);
    memset(&opts, 0, sizeof(opts));
    opts.arena = worst_arena();
    opts.arena_size = arena;
    CHECK(arena <= sizeof(arena_mem) - 32);
    CHECK(mmd_session_create(blob.data, blob.size, &opts, &s, &err) == MMD_OK);
    CHECK(mmd_npy_parse(xs.data, xs.size, &npy, &err) == MMD_OK);
    CHECK(npy.dtype == MMD_DTYPE_FLOAT32 && npy.rank == 4 && npy.dims[0] >= 16);
    for (k = 0; s && k < 16; ++k) {
        static float x[64];
        int64_t dims[4] = {1, 1, 8, 8};
        const mmd_tensor *a, *b;
        memcpy(x, (const float *)npy.data + 64 * k, sizeof(x));
        CHECK(mmd_session_set_input(onnx, 0, MMD_DTYPE_FLOAT32, 4, dims, x, &err) == MMD_OK);
        CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 4, dims, x, &err) == MMD_OK);
        CHECK(mmd_session_run(onnx, &err) == MMD_OK);
        CHECK(mmd_session_run(s, &err) == MMD_OK);
        a = mmd_session_output(onnx, 0);
        b = mmd_session_output(s, 0);
        same &= b->rank == 2 && b->dims[1] == 10 && memcmp(a->data, b->data, 40) == 0;
    }
    CHECK(same);
    mmd_session_destroy(s);
    free(xs.data);
    converted_free(&c);
}

static void digits_blob_needs_no_byte_more_than_reported(void) {
    converted c = convert("examples/models/digits.onnx");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_options opts;
    memset(&opts, 0, sizeof(opts));
    opts.arena = worst_arena();
    opts.arena_size = blob_arena(&c.blob) - 1;
    CHECK(mmd_session_create(c.blob.data, c.blob.size, &opts, &s, &err) == MMD_ERR_ARENA_TOO_SMALL);
    CHECK(s == NULL);
    converted_free(&c);
}

static void core_models_blobs_match_onnx(void) {
    static const char *const names[] = {"relu_chain", "gemm_fixed", "unsorted", "flatten_by_shape"};
    size_t i;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
        char path[128];
        mmd_session *s = NULL;
        mmd_error err = {0};
        mmd_options opts;
        converted c;
        snprintf(path, sizeof(path), "tests/data/core/%s.onnx", names[i]);
        c = convert(path);
        memset(&opts, 0, sizeof(opts));
        opts.arena = worst_arena();
        opts.arena_size = blob_arena(&c.blob);
        CHECK(mmd_session_create(c.blob.data, c.blob.size, &opts, &s, &err) == MMD_OK);
        CHECK(s && same_outputs(c.onnx, s));
        if (!s) fprintf(stderr, "%s: %s\n", names[i], err.msg);
        mmd_session_destroy(s);
        converted_free(&c);
    }
}

static void folded_nodes_are_left_out_of_the_blob(void) {
    converted c = convert("tests/data/core/flatten_by_shape.onnx");
    aligned blob = c.blob;
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_plan_stats st;
    /* Shape, Gather, Unsqueeze and Concat fold; only Reshape runs, so only its tensors stay. */
    CHECK(rd32(blob.data + 28) == 1);
    CHECK(rd32(blob.data + 60) == 4);
    CHECK(rd32(blob.data + 24) == 3); /* x, the folded shape constant, y */
    CHECK(mmd_session_create(blob.data, blob.size, NULL, &s, &err) == MMD_OK);
    mmd_session_stats(s, &st);
    CHECK(st.node_count == 5 && st.folded_count == 4);
    mmd_session_destroy(s);
    converted_free(&c);
}

/* Loading a blob and writing it again gives the same bytes, folded-node count included. */
static void blob_of_a_blob_is_the_same_bytes(void) {
    static const char *const paths[] = {"examples/models/digits.onnx", "tests/data/core/flatten_by_shape.onnx"};
    size_t i;
    for (i = 0; i < 2; ++i) {
        converted c = convert(paths[i]);
        aligned again = {NULL, NULL, 0};
        mmd_session *s = NULL;
        mmd_error err = {0};
        size_t size = 0;
        CHECK(mmd_session_create(c.blob.data, c.blob.size, NULL, &s, &err) == MMD_OK);
        CHECK(mmd_session_write_blob(s, NULL, 0, &size, &err) == MMD_OK && size == c.blob.size);
        again = aligned_copy(NULL, size);
        CHECK(mmd_session_write_blob(s, again.data, size, &size, &err) == MMD_OK);
        CHECK(memcmp(again.data, c.blob.data, size) == 0);
        mmd_session_destroy(s);
        free(again.raw);
        converted_free(&c);
    }
}

/* Creates a session from the bytes in a heap arena and, when that works, runs it once. */
static mmd_status load_and_run(const unsigned char *data, size_t size, mmd_error *err) {
    static float x[4096];
    mmd_session *s = NULL;
    mmd_status st = mmd_session_create(data, size, NULL, &s, err);
    int32_t i;
    if (st != MMD_OK) return st;
    for (i = 0; st == MMD_OK && i < mmd_session_input_count(s); ++i) {
        const mmd_tensor *t = mmd_session_input(s, i);
        if (mmd_tensor_numel(t) * (int64_t)mmd_dtype_size(t->dtype) <= (int64_t)sizeof(x))
            st = mmd_session_set_input(s, i, t->dtype, t->rank, t->dims, x, err);
    }
    if (st == MMD_OK) st = mmd_session_prepare(s, err);
    if (st == MMD_OK) st = mmd_session_run(s, err);
    mmd_session_destroy(s);
    return st;
}

/* Loads a cut copy in a buffer of its own size, so the sanitizer sees any read past it: once as
   cut, once with the header's size patched to match, which reaches the section checks. Returns
   how many of the two loads wrongly succeeded. */
static int32_t truncated_loads(const aligned *blob, size_t n) {
    aligned cut = aligned_copy(blob->data, n);
    mmd_error err = {0};
    int32_t bad = load_and_run(cut.data, n, &err) == MMD_OK;
    if (n >= 20) {
        wr32(cut.data + 16, (uint32_t)n);
        bad += load_and_run(cut.data, n, &err) == MMD_OK;
    }
    free(cut.raw);
    return bad;
}

/* Every cut of the small model's blob; of the classifier's, every cut through the tables and
   every 64th through the weights. */
static void every_truncation_fails_cleanly(void) {
    int32_t model, bad = 0;
    for (model = 0; model < 2; ++model) {
        converted c = convert(model ? "examples/models/digits.onnx" : "tests/data/core/gemm_fixed.onnx");
        size_t n, tables = rd32(c.blob.data + 80 + 8 * 7);
        for (n = 0; n < c.blob.size; n += n < tables ? 1 : 64)
            bad += truncated_loads(&c.blob, n);
        converted_free(&c);
    }
    CHECK(bad == 0);
}

/* Byte offset of tensor record k and node record k. */
static unsigned char *tensor_rec(const aligned *b, uint32_t k) { return b->data + rd32(b->data + 80) + 32 * k; }
static unsigned char *node_rec(const aligned *b, uint32_t k) { return b->data + rd32(b->data + 88) + 44 * k; }

/* Applies one corruption to a fresh copy and expects a status and words of the message. */
static void expect_corrupt(const aligned *blob, uint32_t at, uint32_t value, mmd_status want, const char *words) {
    aligned c = aligned_copy(blob->data, blob->size);
    mmd_error err = {0};
    mmd_status st;
    wr32(c.data + at, value);
    st = load_and_run(c.data, c.size, &err);
    if (st != want || !strstr(err.msg, words)) {
        fprintf(stderr, "corruption at %u = %u: got %s '%s', wanted %s '%s'\n", (unsigned)at, (unsigned)value,
                mmd_status_string(st), err.msg, mmd_status_string(want), words);
        test__cur_failed = 1;
    }
    free(c.raw);
}

static void corrupted_fields_give_clear_errors(void) {
    converted c = convert("examples/models/digits.onnx");
    aligned b = c.blob;
    uint32_t t0 = (uint32_t)(tensor_rec(&b, 0) - b.data), n0 = (uint32_t)(node_rec(&b, 0) - b.data);
    uint32_t act = 0, act_index = 0, first_off = 0, k;
    /* The second node's output, alive together with the first node's output (its input). */
    for (k = 0; k < rd32(b.data + 24); ++k) {
        if (rd32(tensor_rec(&b, k) + 16) != 0) continue;
        if (rd32(tensor_rec(&b, k) + 20) == 0) first_off = rd32(tensor_rec(&b, k) + 24);
        if (rd32(tensor_rec(&b, k) + 20) == 1) {
            act = (uint32_t)(tensor_rec(&b, k) - b.data);
            act_index = k;
        }
    }
    expect_corrupt(&b, 8, 2, MMD_ERR_UNSUPPORTED, "format version 2");
    expect_corrupt(&b, 16, (uint32_t)b.size + 16, MMD_ERR_MALFORMED, "truncated");
    expect_corrupt(&b, 80, 1u << 30, MMD_ERR_MALFORMED, "section 'tensors'");
    expect_corrupt(&b, 84 + 8 * 7, 0xfffffff0u, MMD_ERR_MALFORMED, "section 'data'");
    expect_corrupt(&b, 28, 1000, MMD_ERR_MALFORMED, "node records");
    expect_corrupt(&b, 32, 2, MMD_ERR_MALFORMED, "graph input 1");
    expect_corrupt(&b, t0, 0xffffff00u, MMD_ERR_MALFORMED, "name offset");
    expect_corrupt(&b, t0 + 4, 99, MMD_ERR_MALFORMED, "dtype 99");
    expect_corrupt(&b, t0 + 4, MMD_DTYPE_STRING, MMD_ERR_MALFORMED, "dtype 8");
    expect_corrupt(&b, t0 + 8, 9, MMD_ERR_MALFORMED, "rank 9");
    expect_corrupt(&b, t0 + 12, 0xfffffffeu, MMD_ERR_MALFORMED, "int64 pool");
    expect_corrupt(&b, t0 + 16, 7, MMD_ERR_MALFORMED, "kind 7");
    expect_corrupt(&b, n0 + 12, 0, MMD_ERR_MALFORMED, "opset 0");
    expect_corrupt(&b, n0 + 16, 70000, MMD_ERR_MALFORMED, "out of range");
    expect_corrupt(&b, n0 + 20, 0x7fffffffu, MMD_ERR_MALFORMED, "out of range");
    expect_corrupt(&b, n0 + 4, 0, MMD_ERR_MALFORMED, "op_type");
    /* The first node's first attribute: a type no blob holds, then a list past its pool. */
    expect_corrupt(&b, rd32(b.data + 96) + 32 * rd32(node_rec(&b, 0) + 36) + 4, MMD_ATTR_GRAPH, MMD_ERR_MALFORMED,
                   "cannot hold");
    expect_corrupt(&b, rd32(b.data + 96) + 32 * rd32(node_rec(&b, 0) + 36) + 24, 0x10000000u, MMD_ERR_MALFORMED,
                   "outside its table");
    /* That output moved onto its input, then past the end of the buffer. */
    CHECK(act != 0);
    /* Onto the first output, or as close to it as the buffer's end allows: still overlapping. */
    if (act && first_off > rd32(b.data + 48) - rd32(b.data + act + 28)) first_off = rd32(b.data + 48) - rd32(b.data + act + 28);
    expect_corrupt(&b, act + 24, first_off, MMD_ERR_MALFORMED, "share bytes");
    expect_corrupt(&b, act + 24, rd32(b.data + 48), MMD_ERR_MALFORMED, "activation buffer");
    /* The first node reading the second node's output breaks the order. */
    expect_corrupt(&b, rd32(b.data + 104) + 4 * rd32(node_rec(&b, 0) + 20), act_index, MMD_ERR_MALFORMED,
                   "not yet computed");
    converted_free(&c);
}

static void random_corruptions_never_crash(void) {
    converted c = convert("examples/models/digits.onnx");
    aligned b = c.blob;
    uint32_t rng = 12345u, i, ok = 0;
    /* Only the tables, not the weights: a flipped weight is a valid, different model. */
    uint32_t tables = rd32(b.data + 80 + 8 * 7);
    for (i = 0; i < 3000; ++i) {
        aligned c = aligned_copy(b.data, b.size);
        mmd_error err = {0};
        uint32_t flips = 1 + i % 4, f;
        for (f = 0; f < flips; ++f) {
            rng = rng * 1664525u + 1013904223u;
            c.data[(rng >> 8) % tables] ^= (unsigned char)(1u << (rng % 8));
        }
        ok += load_and_run(c.data, c.size, &err) == MMD_OK;
        free(c.raw);
    }
    /* Some flips land on padding or names and still load; what matters is no crash. */
    printf("     %u of 3000 corrupted blobs still loaded and ran\n", (unsigned)ok);
    converted_free(&c);
}

/* Every attribute type a blob holds comes back equal: extra attributes (ignored by the Gemm
   kernel) are added to a parsed model before it is planned and written. */
static void every_attribute_type_survives_the_blob(void) {
    bytes model = read_file("tests/data/core/gemm_fixed.onnx");
    static const float floats[3] = {0.5f, -1.25f, 3.0f};
    static const int64_t ints[2] = {7, -9};
    static const char *const strings[2] = {"alpha", ""};
    mmd_arena a, b;
    mmd_model *m = NULL, *back = NULL;
    mmd_error err = {0};
    mmd_attr *attrs;
    aligned blob = {NULL, NULL, 0};
    size_t size = 0;
    int32_t i, n0;
    const mmd_attr *at;
    mmd_arena_init(&a, NULL, 0, 1);
    mmd_arena_init(&b, NULL, 0, 1);
    CHECK(mmd_model_parse(&a, model.data, model.size, 0, &m, &err) == MMD_OK);
    if (!m) return;
    n0 = m->nodes[0].attr_count;
    attrs = (mmd_attr *)mmd_arena_alloc(&a, (size_t)(n0 + 4) * sizeof(mmd_attr), &err);
    memcpy(attrs, m->nodes[0].attrs, (size_t)n0 * sizeof(mmd_attr));
    attrs[n0].name = "t_floats"; attrs[n0].type = MMD_ATTR_FLOATS; attrs[n0].floats = floats; attrs[n0].count = 3;
    attrs[n0 + 1].name = "t_ints"; attrs[n0 + 1].type = MMD_ATTR_INTS; attrs[n0 + 1].ints = ints; attrs[n0 + 1].count = 2;
    attrs[n0 + 2].name = "t_strings"; attrs[n0 + 2].type = MMD_ATTR_STRINGS; attrs[n0 + 2].strings = strings;
    attrs[n0 + 2].count = 2;
    /* A TENSOR attribute: the model's weight tensor, data and all. */
    attrs[n0 + 3].name = "t_tensor"; attrs[n0 + 3].type = MMD_ATTR_TENSOR;
    attrs[n0 + 3].t = &m->tensors[mmd_model_find_tensor(m, "w")];
    m->nodes[0].attrs = attrs;
    m->nodes[0].attr_count = n0 + 4;
    for (i = 0; i < m->node_count; ++i) m->nodes[i].kernel = mmd_ops_find(m->nodes[i].domain, m->nodes[i].op_type, m->nodes[i].opset);
    CHECK(mmd_graph_plan(m, &a, NULL, NULL, NULL, &err) == MMD_OK);
    CHECK(mmd_blob_write(m, 0, NULL, 0, &size, &err) == MMD_OK);
    blob = aligned_copy(NULL, size);
    CHECK(mmd_blob_write(m, 0, blob.data, size, &size, &err) == MMD_OK);
    CHECK(mmd_model_parse(&b, blob.data, size, 0, &back, &err) == MMD_OK);
    if (back) {
        CHECK(back->nodes[0].attr_count == n0 + 4);
        CHECK((at = mmd_node_attr(&back->nodes[0], "transB")) && at->type == MMD_ATTR_INT && at->i == 1);
        CHECK((at = mmd_node_attr(&back->nodes[0], "t_floats")) && at->count == 3 && memcmp(at->floats, floats, 12) == 0);
        CHECK((at = mmd_node_attr(&back->nodes[0], "t_ints")) && at->count == 2 && memcmp(at->ints, ints, 16) == 0);
        CHECK((at = mmd_node_attr(&back->nodes[0], "t_strings")) && at->count == 2 &&
              strcmp(at->strings[0], "alpha") == 0 && strcmp(at->strings[1], "") == 0);
        CHECK((at = mmd_node_attr(&back->nodes[0], "t_tensor")) && at->t && at->t->rank == 2 && at->t->dims[0] == 4 &&
              at->t->dims[1] == 3 && ((const float *)at->t->data)[11] == 1.1f);
    }
    mmd_arena_release(&b);
    mmd_arena_release(&a);
    free(blob.raw);
    free(model.data);
}

static void misaligned_blob_and_copy_weights_are_refused(void) {
    converted c = convert("tests/data/core/gemm_fixed.onnx");
    aligned b = c.blob;
    mmd_session *s = NULL;
    unsigned char *raw = (unsigned char *)malloc(b.size + 32), *odd;
    mmd_error err = {0};
    mmd_options opts;
    odd = (unsigned char *)(((uintptr_t)raw + 15) & ~(uintptr_t)15) + 4;
    memcpy(odd, b.data, b.size);
    CHECK(mmd_session_create(odd, b.size, NULL, &s, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "16-byte aligned") != NULL);
    memset(&opts, 0, sizeof(opts));
    opts.copy_weights = 1;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "copy_weights") != NULL);
    free(raw);
    converted_free(&c);
}

static void blob_inputs_keep_the_converted_shape(void) {
    converted c = convert("tests/data/core/relu_chain.onnx");
    aligned b = c.blob;
    mmd_session *s = NULL;
    mmd_error err = {0};
    static float x[2000];
    int64_t dims[2] = {2, 1000};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    /* Converted with N = 1: another batch is a shape error, not a silent re-plan. */
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_ERR_SHAPE);
    mmd_session_destroy(s);
    converted_free(&c);
}

int main(void) {
    TEST_RUN(digits_blob_matches_onnx_in_exact_arena);
    TEST_RUN(digits_blob_needs_no_byte_more_than_reported);
    TEST_RUN(core_models_blobs_match_onnx);
    TEST_RUN(folded_nodes_are_left_out_of_the_blob);
    TEST_RUN(blob_of_a_blob_is_the_same_bytes);
    TEST_RUN(every_truncation_fails_cleanly);
    TEST_RUN(corrupted_fields_give_clear_errors);
    TEST_RUN(random_corruptions_never_crash);
    TEST_RUN(every_attribute_type_survives_the_blob);
    TEST_RUN(misaligned_blob_and_copy_weights_are_refused);
    TEST_RUN(blob_inputs_keep_the_converted_shape);
    return test_summary();
}
