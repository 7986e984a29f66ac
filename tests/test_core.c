/* Core runtime tests: parsing, sessions, binding rules, the memory plan and caller arenas.
   Models come from tests/gen_core_models.py (tests/data/core). Run from the repo root. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef struct blob { unsigned char *data; size_t size; } blob;

static blob load(const char *name) {
    char path[256];
    blob b = {NULL, 0};
    FILE *f;
    long n;
    snprintf(path, sizeof(path), "tests/data/core/%s.onnx", name);
    f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); return b; }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = (unsigned char *)malloc((size_t)n);
    b.size = fread(b.data, 1, (size_t)n, f);
    fclose(f);
    return b;
}

static void relu_chain_plan_shares_memory(void) {
    blob b = load("relu_chain");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_plan_stats st;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    mmd_session_stats(s, &st);
    /* 10 activations of 1x1000 floats (4000 bytes, 4032 aligned); two alive at once. */
    CHECK(st.activation_sum_bytes == 10 * 4032);
    CHECK(st.activation_bytes == 2 * 4032);
    mmd_session_destroy(s);
    free(b.data);
}

static void relu_chain_runs_and_replans_for_new_batch(void) {
    blob b = load("relu_chain");
    mmd_session *s = NULL;
    mmd_error err = {0};
    static float x[3 * 1000];
    int64_t dims[2] = {3, 1000};
    const mmd_tensor *y;
    int i, bad = 0;
    for (i = 0; i < 3000; ++i) x[i] = (float)(i % 7) - 3.0f;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    /* A new batch size makes the plan stale: run refuses until prepare re-plans. */
    CHECK(mmd_session_run(s, &err) == MMD_ERR_NOT_READY);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    y = mmd_session_output(s, 0);
    CHECK(y->rank == 2 && y->dims[0] == 3 && y->dims[1] == 1000);
    for (i = 0; i < 3000; ++i) bad += ((const float *)y->data)[i] != (x[i] > 0 ? x[i] : 0.0f);
    CHECK(bad == 0);
    mmd_session_destroy(s);
    free(b.data);
}

static void set_input_rejects_wrong_dtype_rank_and_fixed_dim(void) {
    blob b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    float x[6] = {0};
    int64_t ok[2] = {2, 3}, wrong_dim[2] = {2, 4}, rank3[3] = {1, 2, 3};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_INT64, 2, ok, x, &err) == MMD_ERR_DTYPE);
    CHECK(strstr(err.msg, "'x'") != NULL);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 3, rank3, x, &err) == MMD_ERR_SHAPE);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, wrong_dim, x, &err) == MMD_ERR_SHAPE);
    CHECK(mmd_session_set_input(s, 1, MMD_DTYPE_FLOAT32, 2, ok, x, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, ok, NULL, &err) == MMD_ERR_INVALID_ARGUMENT);
    mmd_session_destroy(s);
    free(b.data);
}

static void run_before_binding_is_not_ready(void) {
    blob b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_ERR_NOT_READY);
    CHECK(strstr(err.msg, "not bound") != NULL);
    CHECK(mmd_session_run(NULL, &err) == MMD_ERR_INVALID_ARGUMENT);
    mmd_session_destroy(s);
    free(b.data);
}

static void gemm_matches_numpy_and_reads_raw_weights_in_place(void) {
    blob b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    float x[6] = {1, 2, 3, -1, 0, 1};
    /* numpy: x @ (arange(12).reshape(4,3)/10).T + [0.5,-0.5,1,-1] */
    const float want[8] = {1.3f, 2.1f, 5.4f, 5.2f, 0.7f, -0.3f, 1.2f, -0.8f};
    int64_t dims[2] = {2, 3};
    const mmd_tensor *y;
    int32_t i, in_place = 0;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    y = mmd_session_output(s, 0);
    for (i = 0; i < 8; ++i) CHECK_NEAR(((const float *)y->data)[i], want[i], 1e-6);
    /* The weight 'w' is 4-byte aligned in the file only by chance; check it when it is. */
    for (i = 0; i < s->model->tensor_count; ++i) {
        const mmd_tensor *t = &s->model->tensors[i];
        if (strcmp(t->name, "w") == 0 && ((uintptr_t)t->data % 4) == 0)
            in_place = (const unsigned char *)t->data >= b.data &&
                       (const unsigned char *)t->data < b.data + b.size;
    }
    CHECK(in_place || s->model->weight_copy_bytes >= 48);
    mmd_session_destroy(s);
    free(b.data);
}

static void caller_arena_of_reported_size_works_and_one_byte_less_fails(void) {
    blob b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_options opts;
    size_t need = 0;
    unsigned char *buf;
    CHECK(mmd_session_arena_size(b.data, b.size, &need, &err) == MMD_OK);
    CHECK(need > 0);
    buf = (unsigned char *)malloc(need);
    memset(&opts, 0, sizeof(opts));
    opts.arena = buf;
    opts.arena_size = need;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    mmd_session_destroy(s);
    /* malloc's buffer is 16-byte aligned, so the slack for alignment is not needed: take it
       and one byte more away. */
    opts.arena_size = need - 16 - 1;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_ERR_ARENA_TOO_SMALL);
    CHECK(s == NULL);
    free(buf);
    free(b.data);
}

static void unsorted_nodes_are_sorted(void) {
    blob b = load("unsorted");
    mmd_session *s = NULL;
    mmd_error err = {0};
    float x[3] = {-1, 0, 2};
    int64_t dims[1] = {3};
    const float *y;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(strcmp(s->model->nodes[0].op_type, "Sigmoid") == 0);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 1, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    y = (const float *)mmd_session_output(s, 0)->data;
    CHECK_NEAR(y[0], 0.26894142, 1e-6);
    CHECK_NEAR(y[2], 0.88079708, 1e-6);
    mmd_session_destroy(s);
    free(b.data);
}

static void shape_arithmetic_is_folded_at_prepare(void) {
    blob b = load("flatten_by_shape");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_plan_stats st;
    float x[4 * 6];
    int64_t dims[3] = {4, 2, 3};
    const mmd_tensor *y;
    int i;
    for (i = 0; i < 24; ++i) x[i] = (float)i;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 3, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    mmd_session_stats(s, &st);
    CHECK(st.folded_count == 4); /* Shape, Gather, Unsqueeze, Concat */
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    y = mmd_session_output(s, 0);
    CHECK(y->rank == 2 && y->dims[0] == 4 && y->dims[1] == 6);
    CHECK(((const float *)y->data)[23] == 23.0f);
    mmd_session_destroy(s);
    free(b.data);
}

static void every_truncation_fails_cleanly(void) {
    const char *names[] = {"relu_chain", "gemm_fixed", "flatten_by_shape"};
    size_t k, n;
    for (k = 0; k < 3; ++k) {
        blob b = load(names[k]);
        for (n = 0; n < b.size; ++n) {
            /* A copy of exactly n bytes, so any read past the end is caught by ASan. */
            unsigned char *cut = (unsigned char *)malloc(n ? n : 1);
            mmd_session *s = NULL;
            mmd_error err = {0};
            mmd_status st;
            memcpy(cut, b.data, n);
            st = mmd_session_create(cut, n, NULL, &s, &err);
            if (st == MMD_OK) mmd_session_destroy(s); /* a cut at a field boundary can parse */
            else CHECK(err.msg[0] != '\0');
            free(cut);
        }
        free(b.data);
    }
}

static void cycle_and_missing_input_are_invalid_model(void) {
    /* Hand-written ModelProto: graph { node { input "b" output "a" op_type "Relu" }
       node { input "a" output "b" op_type "Relu" } } opset_import { version 13 } */
    static const unsigned char cyc[] = {
        0x42, 0x02, 0x10, 0x0d,                                                 /* opset 13 */
        0x3a, 0x18,                                                             /* graph */
        0x0a, 0x0a, 0x0a, 0x01, 'b', 0x12, 0x01, 'a', 0x22, 0x02, 'R', 'e',     /* node 1... */
        0x0a, 0x0a, 0x0a, 0x01, 'a', 0x12, 0x01, 'b', 0x22, 0x02, 'R', 'e'};
    static const unsigned char missing[] = {
        0x42, 0x02, 0x10, 0x0d, 0x3a, 0x0c,
        0x0a, 0x0a, 0x0a, 0x01, 'q', 0x12, 0x01, 'a', 0x22, 0x02, 'R', 'e'};
    mmd_session *s = NULL;
    mmd_error err = {0};
    CHECK(mmd_session_create(cyc, sizeof(cyc), NULL, &s, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "cycle") != NULL);
    CHECK(mmd_session_create(missing, sizeof(missing), NULL, &s, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "'q'") != NULL);
}

static void overlong_varint_and_wrong_wire_type_are_malformed(void) {
    static const unsigned char overlong[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                             0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const unsigned char wire[] = {0x3d, 0, 0, 0, 0}; /* graph (7) as fixed32 */
    static const unsigned char past_end[] = {0x3a, 0x7f, 0x0a};
    mmd_session *s = NULL;
    mmd_error err = {0};
    CHECK(mmd_session_create(overlong, sizeof(overlong), NULL, &s, &err) == MMD_ERR_MALFORMED);
    CHECK(mmd_session_create(wire, sizeof(wire), NULL, &s, &err) == MMD_ERR_MALFORMED);
    CHECK(strstr(err.msg, "graph") != NULL);
    CHECK(mmd_session_create(past_end, sizeof(past_end), NULL, &s, &err) == MMD_ERR_MALFORMED);
    CHECK(strstr(err.msg, "past the end") != NULL);
}

static void error_format_prints_numbers(void) {
    mmd_error err;
    mmd_error_set(&err, MMD_ERR_SHAPE, 3, "Conv", "%d %lld %zu %g %g %g %s%%", -5, (long long)-1234567890123LL,
                  (size_t)42, 0.5, 1e-7, 123456789.0, "x");
    CHECK(strcmp(err.msg, "-5 -1234567890123 42 0.5 1.00000e-7 1.23457e8 x%") == 0);
    CHECK(err.node == 3 && strcmp(err.op, "Conv") == 0);
    CHECK(strcmp(mmd_status_string(MMD_ERR_NO_KERNEL), "no kernel") == 0);
}

int main(void) {
    TEST_RUN(relu_chain_plan_shares_memory);
    TEST_RUN(relu_chain_runs_and_replans_for_new_batch);
    TEST_RUN(set_input_rejects_wrong_dtype_rank_and_fixed_dim);
    TEST_RUN(run_before_binding_is_not_ready);
    TEST_RUN(gemm_matches_numpy_and_reads_raw_weights_in_place);
    TEST_RUN(caller_arena_of_reported_size_works_and_one_byte_less_fails);
    TEST_RUN(unsorted_nodes_are_sorted);
    TEST_RUN(shape_arithmetic_is_folded_at_prepare);
    TEST_RUN(every_truncation_fails_cleanly);
    TEST_RUN(cycle_and_missing_input_are_invalid_model);
    TEST_RUN(overlong_varint_and_wrong_wire_type_are_malformed);
    TEST_RUN(error_format_prints_numbers);
    return test_summary();
}
