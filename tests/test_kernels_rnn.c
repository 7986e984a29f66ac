/* tests/test_kernels_rnn.c - LSTM, GRU and RNN against hostile nodes and inputs: every shape,
   dtype and attribute prepare validates, sequence_lens values out of range at eval (refused
   with MMD_ERR_INDEX, as ONNX Runtime refuses them), and empty sequences and batches. Values
   are checked by the ONNX node tests and tests/test_rnn_models.py (torch, ONNX Runtime); here
   only one value check: a length-0 sequence leaves zero outputs and zero final states, which
   the ONNX Runtime fixtures also show. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"

static mmd_attr attr_strings(const char *name, const char *const *v, int64_t n) {
    mmd_attr a = attr_int(name, 0);
    a.type = MMD_ATTR_STRINGS;
    a.strings = v;
    a.count = n;
    return a;
}

/* One LSTM node: X [seq 3, batch 2, input 2], hidden 2, W, R, B, sequence_lens (int32
   `lens_dtype`), each of them replaceable by the caller through the dims arrays. */
typedef struct lstm_node {
    int64_t xd[3], wd[3], rd[3], bd[2], sd[1], hd[3];
    int32_t lens_dtype;
    int32_t lens[2];
    float x[64], w[64], r[64], b[64], h[64];
} lstm_node;

static void lstm_node_init(lstm_node *n) {
    static const int64_t xd[] = {3, 2, 2}, wd[] = {1, 8, 2}, rd[] = {1, 8, 2}, bd[] = {1, 16}, sd[] = {2}, hd[] = {1, 2, 2};
    memset(n, 0, sizeof *n);
    memcpy(n->xd, xd, sizeof xd);
    memcpy(n->wd, wd, sizeof wd);
    memcpy(n->rd, rd, sizeof rd);
    memcpy(n->bd, bd, sizeof bd);
    memcpy(n->sd, sd, sizeof sd);
    memcpy(n->hd, hd, sizeof hd);
    n->lens_dtype = MMD_DTYPE_INT32;
    n->lens[0] = 3;
    n->lens[1] = 1;
    ramp(n->x, 64, 3, 7);
    ramp(n->w, 64, 5, 9);
    ramp(n->r, 64, 7, 11);
    ramp(n->b, 64, 2, 5);
    ramp(n->h, 64, 3, 5);
}

/* Prepares (and with `eval`, runs) the node with the given attributes; returns the status and
   leaves the message in *err. */
static mmd_status lstm_run(lstm_node *n, const char *op, int32_t opset, mmd_attr *attrs, int32_t nattr, int32_t eval,
                           mmd_error *err) {
    mmd_tensor tx = tensor("X", MMD_DTYPE_FLOAT32, 3, n->xd, n->x), tw = tensor("W", MMD_DTYPE_FLOAT32, 3, n->wd, n->w);
    mmd_tensor tr = tensor("R", MMD_DTYPE_FLOAT32, 3, n->rd, n->r), tb = tensor("B", MMD_DTYPE_FLOAT32, 2, n->bd, n->b);
    mmd_tensor ts = runtime("sequence_lens", n->lens_dtype, 1, n->sd, n->lens);
    mmd_tensor th = tensor("initial_h", MMD_DTYPE_FLOAT32, 3, n->hd, n->h);
    mmd_tensor ty = output("Y"), tyh = output("Y_h");
    mmd_tensor *in[6], *out[2];
    op_case t;
    mmd_status st;
    in[0] = &tx; in[1] = &tw; in[2] = &tr; in[3] = &tb; in[4] = &ts; in[5] = &th;
    out[0] = &ty; out[1] = &tyh;
    st = case_prepare(&t, op, opset, attrs, nattr, in, 6, out, 2);
    if (st == MMD_OK && eval) st = case_eval(&t);
    *err = t.err;
    case_free(&t);
    return st;
}

static void lstm_sequence_lens_out_of_range_fail_at_eval(void) {
    lstm_node n;
    mmd_error err;
    lstm_node_init(&n);
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 1, &err) == MMD_OK);
    n.lens[1] = -1;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_OK);
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 1, &err) == MMD_ERR_INDEX);
    CHECK(strstr(err.msg, "sequence_lens[1] = -1") != NULL);
    n.lens[1] = 4;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 1, &err) == MMD_ERR_INDEX);
    CHECK(strstr(err.msg, "sequence_lens[1] = 4 is outside [0, 3]") != NULL);
    n.lens[1] = INT32_MIN;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 1, &err) == MMD_ERR_INDEX);
}

static void lstm_zero_length_sequence_gives_zero_outputs(void) {
    static const int64_t xd[] = {2, 1, 1}, wd[] = {1, 4, 1}, sd[] = {1};
    static const int32_t lens[] = {0};
    float x[2] = {1.0f, 2.0f}, w[4] = {1, 1, 1, 1}, r[4] = {1, 1, 1, 1}, h0[1] = {0.5f}, c0[1] = {0.25f};
    int64_t hd[3] = {1, 1, 1};
    mmd_tensor tx = tensor("X", MMD_DTYPE_FLOAT32, 3, xd, x), tw = tensor("W", MMD_DTYPE_FLOAT32, 3, wd, w);
    mmd_tensor tr = tensor("R", MMD_DTYPE_FLOAT32, 3, wd, r), ts = tensor("sequence_lens", MMD_DTYPE_INT32, 1, sd, lens);
    mmd_tensor th = tensor("initial_h", MMD_DTYPE_FLOAT32, 3, hd, h0), tc = tensor("initial_c", MMD_DTYPE_FLOAT32, 3, hd, c0);
    mmd_tensor ty = output("Y"), tyh = output("Y_h"), tyc = output("Y_c");
    mmd_tensor *in[7], *out[3];
    const float zeros[2] = {0.0f, 0.0f};
    op_case t;
    in[0] = &tx; in[1] = &tw; in[2] = &tr; in[3] = NULL; in[4] = &ts; in[5] = &th; in[6] = &tc;
    out[0] = &ty; out[1] = &tyh; out[2] = &tyc;
    CHECK(case_run(&t, "LSTM", 14, NULL, 0, in, 7, out, 3) == MMD_OK);
    check_f32(&ty, zeros, 2);
    check_f32(&tyh, zeros, 1);
    check_f32(&tyc, zeros, 1);
    case_free(&t);
}

static void lstm_bad_shapes_fail_in_prepare(void) {
    lstm_node n;
    mmd_error err;
    mmd_attr hs = attr_int("hidden_size", 3);
    lstm_node_init(&n);
    n.wd[1] = 7; /* not 4 gates */
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_SHAPE);
    lstm_node_init(&n);
    CHECK(lstm_run(&n, "LSTM", 14, &hs, 1, 0, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "hidden_size = 3") != NULL);
    n.wd[2] = 3; /* input size other than X's */
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_SHAPE);
    lstm_node_init(&n);
    n.rd[2] = 3;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "R has shape [1,8,3]") != NULL);
    lstm_node_init(&n);
    n.bd[1] = 8;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_SHAPE);
    lstm_node_init(&n);
    n.sd[0] = 3;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_SHAPE);
    lstm_node_init(&n);
    n.lens_dtype = MMD_DTYPE_INT64;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_DTYPE);
    lstm_node_init(&n);
    n.hd[1] = 3;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_SHAPE);
    lstm_node_init(&n);
    n.wd[0] = 2; /* two directions of weights for a forward node */
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 0, &err) == MMD_ERR_SHAPE);
}

static void rnn_bad_attributes_fail_in_prepare(void) {
    static const char *const unknown[] = {"Sigmoid", "Gelu", "Tanh"};
    static const char *const two[] = {"Sigmoid", "Tanh"};
    lstm_node n;
    mmd_error err;
    mmd_attr a;
    lstm_node_init(&n);
    a = attr_string("direction", "sideways");
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "sideways") != NULL);
    a = attr_strings("activations", unknown, 3);
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "Gelu") != NULL);
    a = attr_strings("activations", two, 2);
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "2 activations") != NULL);
    a = attr_float("clip", 0.0f);
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
    a = attr_int("layout", 2);
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
    a = attr_int("input_forget", 2);
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
    a = attr_int("linear_before_reset", -1);
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
    a = attr_int("direction", 1); /* a string attribute given as an int */
    CHECK(lstm_run(&n, "LSTM", 14, &a, 1, 0, &err) == MMD_ERR_INVALID_MODEL);
}

/* Empty sequences and batches plan and run without touching data. */
static void rnn_empty_sequence_and_batch_run(void) {
    lstm_node n;
    mmd_error err;
    lstm_node_init(&n);
    n.xd[0] = 0;
    n.lens[0] = n.lens[1] = 0;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 1, &err) == MMD_OK);
    lstm_node_init(&n);
    n.xd[1] = 0;
    n.sd[0] = 0;
    n.hd[1] = 0;
    CHECK(lstm_run(&n, "LSTM", 14, NULL, 0, 1, &err) == MMD_OK);
}

int main(void) {
    TEST_RUN(lstm_sequence_lens_out_of_range_fail_at_eval);
    TEST_RUN(lstm_zero_length_sequence_gives_zero_outputs);
    TEST_RUN(lstm_bad_shapes_fail_in_prepare);
    TEST_RUN(rnn_bad_attributes_fail_in_prepare);
    TEST_RUN(rnn_empty_sequence_and_batch_run);
    return test_summary();
}
