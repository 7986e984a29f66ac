/* Load-time graph rewrites (mmd_graph_rewrite): each small graph of tests/data/rewrites (made
   by tests/gen_rewrite_models.py) is run with and without rewrites; the rewrite count and the
   nodes left must be the expected ones, the outputs must agree within 1e-5 of the output's
   scale, and the caller's model bytes must stay as they were. The near misses must not change
   at all. A rewritten graph converted to a .mmd blob must run the same. Run from the repo root. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static test_bytes load(const char *name) {
    char path[256];
    snprintf(path, sizeof(path), "tests/data/rewrites/%s.onnx", name);
    return test_read_file(path);
}

/* Inputs for every graph input: its declared dims (symbolic ones as `batch`), values in [-1, 1)
   from a fixed generator, so both sessions see the same numbers. */
typedef struct inputs {
    int32_t count;
    int64_t dims[4][MMD_MAX_RANK];
    int32_t rank[4];
    float *data[4];
} inputs;

static void inputs_make(const mmd_session *s, int64_t batch, inputs *in) {
    uint32_t state = 12345u;
    int32_t i, j;
    memset(in, 0, sizeof(*in));
    in->count = mmd_session_input_count(s);
    for (i = 0; i < in->count && i < 4; ++i) {
        const mmd_tensor *t = mmd_session_input(s, i);
        int64_t n = 1, k;
        in->rank[i] = t->rank;
        for (j = 0; j < t->rank; ++j) {
            in->dims[i][j] = t->dim_params[j] ? batch : t->dims[j];
            n *= in->dims[i][j];
        }
        in->data[i] = (float *)malloc((size_t)n * sizeof(float) + 1);
        for (k = 0; k < n; ++k) {
            state = state * 1664525u + 1013904223u;
            in->data[i][k] = (float)(state >> 8) / 8388608.0f - 1.0f;
        }
    }
}

static void inputs_free(inputs *in) {
    int32_t i;
    for (i = 0; i < 4; ++i) free(in->data[i]);
}

static int32_t run(mmd_session *s, const inputs *in) {
    mmd_error err;
    int32_t i;
    memset(&err, 0, sizeof(err));
    for (i = 0; i < in->count; ++i)
        if (mmd_session_set_input(s, i, MMD_DTYPE_FLOAT32, in->rank[i], in->dims[i], in->data[i], &err) != MMD_OK)
            break;
    if (err.status == MMD_OK && mmd_session_prepare(s, &err) == MMD_OK) mmd_session_run(s, &err);
    if (err.status != MMD_OK) fprintf(stderr, "run: %s: %s\n", mmd_status_string(err.status), err.msg);
    return err.status == MMD_OK;
}

/* Every output of a equals b's within 1e-5 of the largest |b| in it. */
static void check_same_outputs(const mmd_session *a, const mmd_session *b, const char *name) {
    int32_t i, j;
    CHECK(mmd_session_output_count(a) == mmd_session_output_count(b));
    for (i = 0; i < mmd_session_output_count(a) && i < mmd_session_output_count(b); ++i) {
        const mmd_tensor *x = mmd_session_output(a, i), *y = mmd_session_output(b, i);
        int64_t n = mmd_tensor_numel(y), k, worst = 0;
        double scale = 0, err = 0;
        CHECK(x->rank == y->rank && mmd_tensor_numel(x) == n);
        for (j = 0; j < x->rank && j < y->rank; ++j) CHECK(x->dims[j] == y->dims[j]);
        if (x->rank != y->rank || mmd_tensor_numel(x) != n) continue;
        for (k = 0; k < n; ++k) {
            double d = fabs((double)((const float *)x->data)[k] - ((const float *)y->data)[k]);
            double v = fabs((double)((const float *)y->data)[k]);
            if (v > scale) scale = v;
            if (d > err) { err = d; worst = k; }
        }
        if (err > 1e-5 * scale) {
            fprintf(stderr, "%s: output %d differs by %g at %lld (scale %g)\n", name, (int)i, err,
                    (long long)worst, scale);
            CHECK(err <= 1e-5 * scale);
        }
    }
}

/* Every output of a is b's bit for bit (the rewrites that sum each element as the unfused nodes do). */
static void check_identical_outputs(const mmd_session *a, const mmd_session *b, const char *name) {
    int32_t i;
    for (i = 0; i < mmd_session_output_count(a) && i < mmd_session_output_count(b); ++i) {
        const mmd_tensor *x = mmd_session_output(a, i), *y = mmd_session_output(b, i);
        int32_t same = mmd_tensor_numel(x) == mmd_tensor_numel(y) &&
                       memcmp(x->data, y->data, (size_t)mmd_tensor_numel(y) * sizeof(float)) == 0;
        if (!same) fprintf(stderr, "%s: output %d is not the unfused nodes' bit for bit\n", name, (int)i);
        CHECK(same);
    }
}

typedef struct expect {
    const char *model;
    int32_t rewrites, nodes;         /* rewrite count and nodes left (Constant nodes included) */
    const char *op, *activation;     /* a node left and its `activation` (NULL: none checked) */
    int64_t batch;                   /* for symbolic dims */
} expect;

static const expect cases[] = {
    {"conv_bn_relu", 2, 1, "FusedConv", "Relu", 1},
    {"conv_bn_relu6", 2, 3, "FusedConv", "Clip", 1},
    {"convtranspose_bn", 1, 1, "ConvTranspose", NULL, 1},
    {"gemm_bn_mul_add_leakyrelu", 4, 1, "FusedGemm", "LeakyRelu", 1},
    {"conv_mul_add_hardsigmoid", 3, 1, "FusedConv", "HardSigmoid", 1},
    {"conv_hardswish", 1, 1, "FusedConv", "HardSwish", 1},
    {"conv_sigmoid", 1, 1, "FusedConv", "Sigmoid", 1},
    {"conv_tanh", 1, 1, "FusedConv", "Tanh", 1},
    {"conv_silu", 1, 1, "FusedConv", "SiLU", 1},
    {"conv_hardswish_opset13", 1, 1, "FusedConv", "HardSigmoidMul", 1},
    {"convtranspose_bn_identity", 1, 5, "ConvTranspose", NULL, 1},
    {"residual", 3, 2, "FusedConv", "Relu", 1},
    {"residual_symbolic", 1, 4, "Relu", NULL, 2},
    {"fpn_lateral_add", 1, 2, "FusedConv", NULL, 1},
    {"matmul_relu", 1, 1, "FusedGemm", "Relu", 1},
    {"transpose_cancel", 2, 1, "Relu", NULL, 1},
    {"transpose_compose", 1, 1, "Transpose", NULL, 1},
    {"reshape_chain", 2, 2, "Relu", NULL, 1},
    {"miss_shared", 0, 3, "Add", NULL, 1},
    {"miss_graph_output", 0, 2, "BatchNormalization", NULL, 1},
    {"miss_input_scale", 0, 2, "Mul", NULL, 1},
    {"miss_broadcast", 0, 3, "Mul", NULL, 1},
    {"miss_residual_broadcast", 0, 4, "Elu", NULL, 1},
    {"convtranspose_bn_relu", 2, 1, "ConvTranspose", "Relu", 1},
    {"convtranspose_tanh", 1, 1, "ConvTranspose", "Tanh", 1},
    {"convtranspose_s3_leakyrelu", 1, 1, "ConvTranspose", "LeakyRelu", 1},
    {"convtranspose_overlap_sigmoid", 1, 1, "ConvTranspose", "Sigmoid", 1},
    {"pointwise_depthwise_relu6", 3, 1, "PointwiseDepthwise", "Clip", 1},
    {"pointwise_depthwise_s2_residual", 3, 1, "PointwiseDepthwise", NULL, 1},
    {"miss_pointwise_depthwise_output", 0, 2, "Conv", NULL, 1},
    {"pointwise_depthwise_projection", 5, 1, "PointwiseDepthwise", "Clip", 1},
    {"pointwise_depthwise_projection_s2_relu", 4, 1, "PointwiseDepthwise", NULL, 2},
    {"miss_projection_output", 1, 2, "PointwiseDepthwise", NULL, 1},
#ifdef MMD_NO_SIMD
    {"depthwise_projection", 2, 1, "PointwiseDepthwise", "Clip", 1},
#else
    {"depthwise_projection", 1, 2, "FusedConv", "Clip", 1},
#endif
};

static void check_case(const expect *e) {
    test_bytes b = load(e->model);
    unsigned char *pristine;
    mmd_session *s = NULL, *ref = NULL;
    mmd_options plain;
    mmd_error err;
    inputs in;
    const mmd_model *m;
    memset(&err, 0, sizeof(err));
    memset(&plain, 0, sizeof(plain));
    plain.no_rewrites = 1;
    CHECK(b.data != NULL);
    if (!b.data) return;
    pristine = (unsigned char *)malloc(b.size + 1);
    memcpy(pristine, b.data, b.size);
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_create(b.data, b.size, &plain, &ref, &err) == MMD_OK);
    if (s && ref) {
        m = mmd_session_model(s);
        if (m->rewrite_count != e->rewrites || m->node_count != e->nodes)
            fprintf(stderr, "%s: %d rewrites, %d nodes; expected %d and %d\n", e->model, (int)m->rewrite_count,
                    (int)m->node_count, (int)e->rewrites, (int)e->nodes);
        CHECK(m->rewrite_count == e->rewrites);
        CHECK(m->node_count == e->nodes);
        CHECK(mmd_session_model(ref)->rewrite_count == 0);
        if (e->op) {
            /* The node that took the work over, with its fused activation. */
            const mmd_node *n = NULL;
            int32_t i;
            for (i = 0; i < m->node_count && !n; ++i)
                if (strcmp(m->nodes[i].op_type, e->op) == 0) n = &m->nodes[i];
            if (!n) fprintf(stderr, "%s: no %s node\n", e->model, e->op);
            CHECK(n != NULL);
            if (n && e->activation) {
                const mmd_attr *act = mmd_node_attr(n, "activation");
                CHECK(act && act->s && strcmp(act->s, e->activation) == 0);
            }
        }
        inputs_make(s, e->batch, &in);
        CHECK(run(s, &in));
        CHECK(run(ref, &in));
        check_same_outputs(s, ref, e->model);
        if (e->op && strcmp(e->op, "PointwiseDepthwise") == 0) check_identical_outputs(s, ref, e->model);
        inputs_free(&in);
        {
            mmd_plan_stats st;
            mmd_session_stats(s, &st);
            CHECK(st.rewrite_count == e->rewrites);
            CHECK((st.rewrite_bytes > 0) == (strstr(e->model, "bn") || strstr(e->model, "mul") ||
                                             strstr(e->model, "matmul")));
        }
    }
    /* The weights were changed in copies: the caller's bytes are untouched. */
    CHECK(memcmp(pristine, b.data, b.size) == 0);
    mmd_session_destroy(s);
    mmd_session_destroy(ref);
    free(pristine);
    free(b.data);
}

static void test_each_rewrite_fires_and_computes_the_same(void) {
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) check_case(&cases[i]);
}

/* A blob stores the rewritten graph, folded weights included, and runs without rewriting. */
static void test_blob_of_a_rewritten_graph(void) {
    static const char *const names[] = {"conv_bn_relu6", "residual", "gemm_bn_mul_add_leakyrelu",
                                        "convtranspose_s3_leakyrelu", "pointwise_depthwise_s2_residual"};
    size_t k;
    for (k = 0; k < sizeof(names) / sizeof(names[0]); ++k) {
        test_bytes b = load(names[k]);
        mmd_session *s = NULL, *ref = NULL, *fw = NULL;
        mmd_options plain;
        mmd_error err;
        size_t size = 0;
        void *raw = NULL;
        unsigned char *blob;
        inputs in;
        memset(&err, 0, sizeof(err));
        memset(&plain, 0, sizeof(plain));
        plain.no_rewrites = 1;
        CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
        CHECK(mmd_session_create(b.data, b.size, &plain, &ref, &err) == MMD_OK);
        CHECK(mmd_session_write_blob(s, NULL, 0, &size, &err) == MMD_OK);
        raw = malloc(size + 16);
        blob = (unsigned char *)(((uintptr_t)raw + 15) & ~(uintptr_t)15);
        CHECK(mmd_session_write_blob(s, blob, size, &size, &err) == MMD_OK);
        CHECK(mmd_session_create(blob, size, NULL, &fw, &err) == MMD_OK);
        if (s && ref && fw) {
            const mmd_model *m = mmd_session_model(fw);
            int32_t i, fused = 0;
            CHECK(m->rewrite_count == 0);
            for (i = 0; i < m->node_count; ++i)
                fused += strncmp(m->nodes[i].op_type, "Fused", 5) == 0 || mmd_node_attr(&m->nodes[i], "activation") ||
                         strcmp(m->nodes[i].op_type, "PointwiseDepthwise") == 0;
            CHECK(fused > 0);
            inputs_make(ref, 1, &in);
            CHECK(run(fw, &in));
            CHECK(run(ref, &in));
            check_same_outputs(fw, ref, names[k]);
            inputs_free(&in);
        }
        mmd_session_destroy(fw);
        mmd_session_destroy(s);
        mmd_session_destroy(ref);
        free(raw);
        free(b.data);
    }
}

/* A node a backend claims is left as it is: here a backend claims every Conv. */
static const mmd_kernel *claim_conv(void *user, void *handle, const mmd_model *m, int32_t node) {
    (void)handle;
    return strcmp(m->nodes[node].op_type, "Conv") == 0 ? (const mmd_kernel *)user : NULL;
}

static void test_claimed_nodes_stay(void) {
    test_bytes b = load("conv_bn_relu");
    mmd_backend be;
    mmd_backend_registry reg;
    mmd_options opts;
    mmd_session *s = NULL;
    mmd_error err;
    memset(&be, 0, sizeof(be));
    memset(&reg, 0, sizeof(reg));
    memset(&opts, 0, sizeof(opts));
    memset(&err, 0, sizeof(err));
    be.abi_version = MMD_BACKEND_ABI_VERSION;
    be.name = "convs";
    be.user = (void *)(uintptr_t)mmd_ops_find("", "Conv", 13);
    be.claim = claim_conv;
    CHECK(mmd_backend_register(&reg, &be, &err) == MMD_OK);
    opts.backends = &reg;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    if (s) {
        CHECK(mmd_session_model(s)->rewrite_count == 0);
        CHECK(mmd_session_model(s)->node_count == 3);
        CHECK(mmd_session_node_backend(s, 0) == 0);
    }
    mmd_session_destroy(s);
    free(b.data);
}

/* The projection folded into a PointwiseDepthwise: its weight and bias are inputs 6 and 7, its
   activation the node's projection_activation, beside the 1x1's pointwise_activation; with the
   rewrites off the five nodes stay apart. */
static void test_projection_folded(void) {
    test_bytes b = load("pointwise_depthwise_projection_s2_relu");
    mmd_session *s = NULL, *ref = NULL;
    mmd_options plain;
    mmd_error err;
    memset(&err, 0, sizeof(err));
    memset(&plain, 0, sizeof(plain));
    plain.no_rewrites = 1;
    CHECK(b.data != NULL);
    if (!b.data) return;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_create(b.data, b.size, &plain, &ref, &err) == MMD_OK);
    if (s && ref) {
        const mmd_model *m = mmd_session_model(s), *r = mmd_session_model(ref);
        const mmd_node *n = &m->nodes[0];
        const mmd_attr *pa = mmd_node_attr(n, "pointwise_activation"), *ja = mmd_node_attr(n, "projection_activation");
        int32_t i, apart = 0;
        CHECK(m->node_count == 1 && strcmp(n->op_type, "PointwiseDepthwise") == 0);
        CHECK(n->input_count == 8 && n->inputs[4] < 0 && n->inputs[5] < 0 && n->inputs[6] >= 0 && n->inputs[7] >= 0);
        CHECK(n->input_count == 8 && strcmp(m->tensors[n->inputs[6]].name, "pj_w") == 0 &&
              strcmp(m->tensors[n->inputs[7]].name, "pj_bias") == 0);
        CHECK(pa && pa->s && strcmp(pa->s, "Relu") == 0);
        CHECK(ja && ja->s && strcmp(ja->s, "Relu") == 0);
        CHECK(mmd_node_attr(n, "activation") == NULL);
        CHECK(r->node_count == 5);
        for (i = 0; i < r->node_count; ++i) apart += strcmp(r->nodes[i].op_type, "Conv") == 0;
        CHECK(apart == 3);
    }
    mmd_session_destroy(s);
    mmd_session_destroy(ref);
    free(b.data);
}

int main(void) {
    TEST_RUN(test_each_rewrite_fires_and_computes_the_same);
    TEST_RUN(test_blob_of_a_rewritten_graph);
    TEST_RUN(test_claimed_nodes_stay);
    TEST_RUN(test_projection_folded);
    return test_summary();
}
