/* tests/test_kernels_reduce.c - the reduction and sorting kernels (Reduce*, ArgMax, ArgMin,
   Softmax, LogSoftmax, Hardmax, CumSum, TopK, Einsum; and the row-wise vector paths of
   LayerNormalization, InstanceNormalization and GlobalAveragePool), one behaviour per test: the edge cases the ONNX
   node tests miss (empty reductions, noop_with_empty_axes, NaN, ties, k known only at run
   time, ellipsis and diagonals, bad attributes). Each test builds tensors and a node by hand,
   runs the kernel's prepare then eval and compares with literals printed by numpy or torch
   (/usr/bin/python3), with the call given in each comment. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"


/* ---- Reduce* ---------------------------------------------------------------------------- */

/* x = np.array([-1,2,3,4,5,6,.5,1.5,2,.25,3,1], np.float32).reshape(2,3,2); each op over axis 1
   as numpy spells it (np.abs(x).sum(1), np.sqrt((x*x).sum(1)), np.log(np.exp(x).sum(1)), ...). */
static void reduce_every_op_over_middle_axis_matches_numpy(void) {
    static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin",
                                      "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"};
    static const float want[][4] = {
        {7.0f, 12.0f, 5.5f, 2.75f},                                 /* Sum */
        {2.33333325f, 4.0f, 1.83333337f, 0.916666687f},             /* Mean */
        {-15.0f, 48.0f, 3.0f, 0.375f},                              /* Prod */
        {5.0f, 6.0f, 3.0f, 1.5f},                                   /* Max */
        {-1.0f, 2.0f, 0.5f, 0.25f},                                 /* Min */
        {9.0f, 12.0f, 5.5f, 2.75f},                                 /* L1 */
        {5.91608f, 7.48331499f, 3.64005494f, 1.82002747f},          /* L2 */
        {35.0f, 56.0f, 13.25f, 3.3125f},                            /* SumSquare */
        {1.94591022f, 2.48490667f, 1.70474815f, 1.01160097f},       /* LogSum */
        {5.12910891f, 6.14293146f, 3.37153912f, 2.13818169f},       /* LogSumExp */
    };
    static const int64_t xd[] = {2, 3, 2}, yd[] = {2, 2}, axes[] = {1};
    float x[] = {-1, 2, 3, 4, 5, 6, 0.5f, 1.5f, 2, 0.25f, 3, 1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[2];
    op_case t;
    int32_t i;
    in[0] = &tx; out[0] = &ty;
    attrs[0] = attr_ints("axes", axes, 1);
    attrs[1] = attr_int("keepdims", 0);
    for (i = 0; i < COUNT(ops); ++i) {
        CHECK(case_run(&t, ops[i], 11, attrs, 2, in, 1, out, 1) == MMD_OK);
        check_dims(&ty, 2, yd);
        check_f32(&ty, want[i], 4);
        case_free(&t);
    }
}

/* Reducing an empty axis gives each op's identity (ONNX 1.16 clarified it): 0, 1, -inf for
   Max and the logs, +inf for Min, INT32_MIN for an int32 Max; the mean of nothing is NaN. */
static void reduce_empty_axis_gives_identity(void) {
    static const char *const ops[] = {"ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceLogSum",
                                      "ReduceLogSumExp", "ReduceMean", "ReduceL2"};
    const float want[] = {0.0f, 1.0f, -INFINITY, INFINITY, -INFINITY, -INFINITY, NAN, 0.0f};
    static const int64_t xd[] = {2, 0}, yd[] = {2, 1}, axd[] = {1};
    int64_t axes[] = {1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, NULL), ta = tensor("axes", MMD_DTYPE_INT64, 1, axd, axes);
    mmd_tensor ty = output("y");
    mmd_tensor *in[2], *out[1];
    op_case t;
    int32_t i;
    float x = 0.0f;
    int32_t xi = 0;
    tx.data = &x;
    in[0] = &tx; in[1] = &ta; out[0] = &ty;
    for (i = 0; i < COUNT(ops); ++i) {
        float w[2];
        w[0] = w[1] = want[i];
        CHECK(case_run(&t, ops[i], 18, NULL, 0, in, 2, out, 1) == MMD_OK);
        check_dims(&ty, 2, yd);
        check_f32(&ty, w, 2);
        case_free(&t);
    }
    tx.dtype = MMD_DTYPE_INT32;
    tx.data = &xi;
    CHECK(case_run(&t, "ReduceMax", 18, NULL, 0, in, 2, out, 1) == MMD_OK);
    CHECK(ty.dtype == MMD_DTYPE_INT32 && ((const int32_t *)ty.data)[1] == INT32_MIN);
    case_free(&t);
}

/* From ReduceSum 13: no axes reduce everything, unless noop_with_empty_axes = 1, which makes
   the op a copy (an empty axes tensor counts as no axes). */
static void reduce_sum_noop_with_empty_axes_copies(void) {
    static const int64_t xd[] = {2, 2}, nd[] = {0};
    static const float want_all[] = {10.0f}, want_copy[] = {1, 2, 3, 4};
    float x[] = {1, 2, 3, 4};
    int64_t none = 0;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), ta = tensor("axes", MMD_DTYPE_INT64, 1, nd, &none);
    mmd_tensor ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[2];
    op_case t;
    in[0] = &tx; in[1] = &ta; out[0] = &ty;
    attrs[0] = attr_int("keepdims", 0);
    CHECK(case_run(&t, "ReduceSum", 13, attrs, 1, in, 2, out, 1) == MMD_OK);
    check_dims(&ty, 0, NULL);
    check_f32(&ty, want_all, 1);
    case_free(&t);
    attrs[1] = attr_int("noop_with_empty_axes", 1);
    CHECK(case_run(&t, "ReduceSum", 13, attrs, 2, in, 2, out, 1) == MMD_OK);
    check_dims(&ty, 2, xd);
    check_f32(&ty, want_copy, 4);
    case_free(&t);
    /* Absent axes input, the same copy. */
    CHECK(case_run(&t, "ReduceSum", 13, attrs, 2, in, 1, out, 1) == MMD_OK);
    check_f32(&ty, want_copy, 4);
    case_free(&t);
}

/* x = np.array([[2,-3,4],[5,1,-2]], np.int32): x.sum(1), x.prod(1), x.max(1), x.min(1). */
static void reduce_int32_sum_prod_max_min_match_numpy(void) {
    static const char *const ops[] = {"ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin"};
    static const int32_t want[][2] = {{3, 4}, {-24, -10}, {4, 5}, {-3, -2}};
    static const int64_t xd[] = {2, 3}, axes[] = {-1};
    int32_t x[] = {2, -3, 4, 5, 1, -2}, i;
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT32, 2, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[2];
    op_case t;
    in[0] = &tx; out[0] = &ty;
    attrs[0] = attr_ints("axes", axes, 1);
    attrs[1] = attr_int("keepdims", 0);
    for (i = 0; i < COUNT(ops); ++i) {
        CHECK(case_run(&t, ops[i], 11, attrs, 2, in, 1, out, 1) == MMD_OK);
        CHECK(ty.dtype == MMD_DTYPE_INT32 && ty.rank == 1 && ty.dims[0] == 2);
        CHECK(((const int32_t *)ty.data)[0] == want[i][0] && ((const int32_t *)ty.data)[1] == want[i][1]);
        case_free(&t);
    }
}

/* Subtracting the maximum keeps exp from overflowing: log(2 e^1000) = 1000 + log 2
   (1000.6931471805599); a slice of -inf only gives -inf, not NaN. */
static void reduce_log_sum_exp_stays_finite_for_large_values(void) {
    static const int64_t xd[] = {2, 2}, axes[] = {1};
    const float want[] = {1000.693147f, -INFINITY};
    float x[4];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[2];
    op_case t;
    x[0] = x[1] = 1000.0f;
    x[2] = x[3] = -INFINITY;
    in[0] = &tx; out[0] = &ty;
    attrs[0] = attr_ints("axes", axes, 1);
    attrs[1] = attr_int("keepdims", 0);
    CHECK(case_run(&t, "ReduceLogSumExp", 13, attrs, 2, in, 1, out, 1) == MMD_OK);
    check_f32(&ty, want, 2);
    case_free(&t);
}

/* Repeated axes, axes out of range, axes only known at run time and a square root of integers
   are refused at prepare, each with its own code. */
static void reduce_bad_axes_and_dtypes_fail_at_prepare(void) {
    static const int64_t xd[] = {2, 3, 2}, rep[] = {1, -2}, far[] = {3}, axd[] = {1};
    float x[12] = {0};
    int32_t xi[12] = {0};
    int64_t axes[] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ty = output("y");
    mmd_tensor ta = runtime("axes", MMD_DTYPE_INT64, 1, axd, axes);
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    op_case t;
    in[0] = &tx; in[1] = &ta; out[0] = &ty;
    attrs[0] = attr_ints("axes", rep, 2);
    CHECK(case_prepare(&t, "ReduceMax", 13, attrs, 1, in, 1, out, 1) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(t.err.msg, "repeats") != NULL);
    case_free(&t);
    attrs[0] = attr_ints("axes", far, 1);
    CHECK(case_prepare(&t, "ReduceMax", 13, attrs, 1, in, 1, out, 1) == MMD_ERR_INVALID_MODEL);
    case_free(&t);
    CHECK(case_prepare(&t, "ReduceMax", 18, NULL, 0, in, 2, out, 1) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(t.err.msg, "'axes'") != NULL);
    case_free(&t);
    tx.dtype = MMD_DTYPE_INT32;
    tx.data = xi;
    CHECK(case_prepare(&t, "ReduceL2", 13, NULL, 0, in, 1, out, 1) == MMD_ERR_DTYPE);
    case_free(&t);
}

/* ---- ArgMax, ArgMin --------------------------------------------------------------------- */

/* np.argmax([1, nan, 3, 3]) is 1: NaN wins. select_last_index picks the last of equal
   extremes: argmax of [1,3,3,0] is 2, argmin of [0,3,0,1] is 2 (numpy on the reversed array). */
static void argmax_nan_wins_and_select_last_index_picks_last_tie(void) {
    static const int64_t xd[] = {4}, one[] = {1};
    static const int64_t want_nan[] = {1}, want_last[] = {2};
    float x[4];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[1];
    op_case t;
    in[0] = &tx; out[0] = &ty;
    x[0] = 1; x[1] = NAN; x[2] = 3; x[3] = 3;
    CHECK(case_run(&t, "ArgMax", 13, NULL, 0, in, 1, out, 1) == MMD_OK);
    check_dims(&ty, 1, one);
    check_i64(&ty, want_nan, 1);
    case_free(&t);
    x[1] = 3; x[3] = 0;
    attrs[0] = attr_int("select_last_index", 1);
    CHECK(case_run(&t, "ArgMax", 13, attrs, 1, in, 1, out, 1) == MMD_OK);
    check_i64(&ty, want_last, 1);
    case_free(&t);
    x[0] = 0; x[1] = 3; x[2] = 0; x[3] = 1;
    CHECK(case_run(&t, "ArgMin", 13, attrs, 1, in, 1, out, 1) == MMD_OK);
    check_i64(&ty, want_last, 1);
    case_free(&t);
}

static void argmax_over_empty_axis_fails(void) {
    static const int64_t xd[] = {2, 0};
    float x = 0.0f;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, &x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[1];
    op_case t;
    in[0] = &tx; out[0] = &ty;
    attrs[0] = attr_int("axis", -1);
    CHECK(case_prepare(&t, "ArgMax", 13, attrs, 1, in, 1, out, 1) == MMD_ERR_SHAPE);
    case_free(&t);
}

/* ---- LogSoftmax, Hardmax ---------------------------------------------------------------- */

/* x = [[[1,4],[3,2]]], axis 1. Opset 11 coerces to 2-D: torch.log_softmax over all four values;
   opset 13 normalises along axis 1 alone: torch.log_softmax(x, 1). Hardmax likewise marks the
   flat maximum (4) or each column's maximum. */
static void log_softmax_and_hardmax_opset11_coerce_but_opset13_use_one_axis(void) {
    static const int64_t xd[] = {1, 2, 2};
    static const float ls11[] = {-3.4401896f, -0.440189689f, -1.44018972f, -2.4401896f};
    static const float ls13[] = {-2.12692809f, -0.126928046f, -0.126928046f, -2.12692809f};
    static const float hm11[] = {0, 1, 0, 0}, hm13[] = {0, 1, 1, 0};
    float x[] = {1, 4, 3, 2};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[1];
    op_case t;
    in[0] = &tx; out[0] = &ty;
    attrs[0] = attr_int("axis", 1);
    CHECK(case_run(&t, "LogSoftmax", 11, attrs, 1, in, 1, out, 1) == MMD_OK);
    check_dims(&ty, 3, xd);
    check_f32(&ty, ls11, 4);
    case_free(&t);
    CHECK(case_run(&t, "LogSoftmax", 13, attrs, 1, in, 1, out, 1) == MMD_OK);
    check_f32(&ty, ls13, 4);
    case_free(&t);
    CHECK(case_run(&t, "Hardmax", 11, attrs, 1, in, 1, out, 1) == MMD_OK);
    check_f32(&ty, hm11, 4);
    case_free(&t);
    CHECK(case_run(&t, "Hardmax", 13, attrs, 1, in, 1, out, 1) == MMD_OK);
    check_f32(&ty, hm13, 4);
    case_free(&t);
}

/* ---- CumSum ----------------------------------------------------------------------------- */

/* x = [[1,2,3],[4,5,6]] int32, axis 1, exclusive and reverse: the sum of the elements after
   each one, [[5,3,0],[11,6,0]]. The axis comes from another node here, so eval reads it; an
   axis out of range is then an eval error. */
static void cumsum_exclusive_reverse_reads_axis_at_eval(void) {
    static const int64_t xd[] = {2, 3};
    static const int32_t want[] = {5, 3, 0, 11, 6, 0};
    int32_t x[] = {1, 2, 3, 4, 5, 6}, axis = 1, i;
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT32, 2, xd, x), ta = runtime("axis", MMD_DTYPE_INT32, 0, NULL, &axis);
    mmd_tensor ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[2];
    op_case t;
    in[0] = &tx; in[1] = &ta; out[0] = &ty;
    attrs[0] = attr_int("exclusive", 1);
    attrs[1] = attr_int("reverse", 1);
    CHECK(case_run(&t, "CumSum", 14, attrs, 2, in, 2, out, 1) == MMD_OK);
    check_dims(&ty, 2, xd);
    for (i = 0; i < 6; ++i) CHECK(((const int32_t *)ty.data)[i] == want[i]);
    case_free(&t);
    axis = -3;
    CHECK(case_run(&t, "CumSum", 14, attrs, 2, in, 2, out, 1) == MMD_ERR_INVALID_ARGUMENT);
    case_free(&t);
}

/* ---- TopK ------------------------------------------------------------------------------- */

/* x = [3,1,3,2,1,3]: equal values come out by lower index, as a stable argsort of -x (largest)
   or x (smallest) gives: values [3,3,3] at [0,2,5], and [1,1,2] at [1,4,3]. */
static void topk_ties_come_out_by_lower_index(void) {
    static const int64_t xd[] = {6}, kd[] = {1}, yd[] = {3};
    static const float want_large[] = {3, 3, 3}, want_small[] = {1, 1, 2};
    static const int64_t idx_large[] = {0, 2, 5}, idx_small[] = {1, 4, 3};
    float x[] = {3, 1, 3, 2, 1, 3};
    int64_t k = 3;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, xd, x), tk = tensor("k", MMD_DTYPE_INT64, 1, kd, &k);
    mmd_tensor tv = output("values"), ti = output("indices");
    mmd_tensor *in[2], *out[2];
    mmd_attr attrs[1];
    op_case t;
    in[0] = &tx; in[1] = &tk; out[0] = &tv; out[1] = &ti;
    CHECK(case_run(&t, "TopK", 11, NULL, 0, in, 2, out, 2) == MMD_OK);
    check_dims(&tv, 1, yd);
    check_f32(&tv, want_large, 3);
    check_i64(&ti, idx_large, 3);
    CHECK(!tv.dynamic && !ti.dynamic);
    case_free(&t);
    attrs[0] = attr_int("largest", 0);
    CHECK(case_run(&t, "TopK", 11, attrs, 1, in, 2, out, 2) == MMD_OK);
    check_f32(&tv, want_small, 3);
    check_i64(&ti, idx_small, 3);
    case_free(&t);
}

/* What a full sort gives, for comparison: larger value first, then lower index. */
static const float *topk_ref_x;
static int topk_ref_cmp(const void *a, const void *b) {
    int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
    if (topk_ref_x[i] != topk_ref_x[j]) return topk_ref_x[i] > topk_ref_x[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The MMDeploy detection head's case: k = 1000 of 120000 scores with many ties (values repeat
   every 997 positions). The heap selection must agree with sorting every index. */
static void topk_on_120000_scores_matches_full_sort(void) {
    enum { N = 120000, K = 1000 };
    static const int64_t xd[] = {1, N}, kd[] = {1}, yd[] = {1, K};
    float *x = (float *)malloc(N * sizeof(float));
    int64_t *order = (int64_t *)malloc(N * sizeof(int64_t)), k = K, i;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), tk = tensor("k", MMD_DTYPE_INT64, 1, kd, &k);
    mmd_tensor tv = output("values"), ti = output("indices");
    mmd_tensor *in[2], *out[2];
    op_case t;
    int32_t same = 1;
    for (i = 0; i < N; ++i) {
        x[i] = (float)((i * 7919) % 997) * 0.001f;
        order[i] = i;
    }
    topk_ref_x = x;
    qsort(order, N, sizeof(int64_t), topk_ref_cmp);
    in[0] = &tx; in[1] = &tk; out[0] = &tv; out[1] = &ti;
    CHECK(case_run(&t, "TopK", 11, NULL, 0, in, 2, out, 2) == MMD_OK);
    check_dims(&tv, 2, yd);
    CHECK(t.c.scratch_size == K * sizeof(int64_t));
    for (i = 0; i < K && tv.data && ti.data; ++i)
        if (((const int64_t *)ti.data)[i] != order[i] || ((const float *)tv.data)[i] != x[order[i]]) same = 0;
    CHECK(same);
    case_free(&t);
    free(order);
    free(x);
}

/* k from another node: prepare plans the whole axis as bound and marks both outputs dynamic,
   eval writes the real size; a k past the axis is an eval error then, a prepare error when k
   is constant. */
static void topk_runtime_k_plans_bound_and_eval_sets_dims(void) {
    static const int64_t xd[] = {2, 4}, kd[] = {1}, bound[] = {2, 4}, yd[] = {2, 2};
    static const float want[] = {4, 3, 8, 7};
    static const int64_t idx[] = {3, 2, 0, 2};
    float x[] = {1, 2, 3, 4, 8, 5, 7, 6};
    int64_t k = 2;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), tk = runtime("k", MMD_DTYPE_INT64, 1, kd, &k);
    mmd_tensor tv = output("values"), ti = output("indices");
    mmd_tensor *in[2], *out[2];
    op_case t;
    in[0] = &tx; in[1] = &tk; out[0] = &tv; out[1] = &ti;
    CHECK(case_prepare(&t, "TopK", 11, NULL, 0, in, 2, out, 2) == MMD_OK);
    check_dims(&tv, 2, bound);
    CHECK(tv.dynamic == 1 && ti.dynamic == 1);
    CHECK(case_eval(&t) == MMD_OK);
    check_dims(&tv, 2, yd);
    check_dims(&ti, 2, yd);
    check_f32(&tv, want, 4);
    check_i64(&ti, idx, 4);
    case_free(&t);
    k = 5;
    CHECK(case_prepare(&t, "TopK", 11, NULL, 0, in, 2, out, 2) == MMD_OK);
    CHECK(case_eval(&t) == MMD_ERR_INVALID_ARGUMENT);
    case_free(&t);
    tk.kind = MMD_TENSOR_INITIALIZER;
    CHECK(case_prepare(&t, "TopK", 11, NULL, 0, in, 2, out, 2) == MMD_ERR_INVALID_MODEL);
    case_free(&t);
}

/* ---- Einsum ----------------------------------------------------------------------------- */

/* Runs a one- or two-input Einsum and compares with want. */
static void check_einsum(const char *eq, mmd_tensor *a, mmd_tensor *b, int32_t rank, const int64_t *dims,
                         const float *want, int64_t n) {
    mmd_tensor ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    op_case t;
    in[0] = a; in[1] = b; out[0] = &ty;
    attrs[0] = attr_string("equation", eq);
    CHECK(case_run(&t, "Einsum", 12, attrs, 1, in, b ? 2 : 1, out, 1) == MMD_OK);
    check_dims(&ty, rank, dims);
    check_f32(&ty, want, n);
    case_free(&t);
}

/* x = np.arange(18.).reshape(2,3,3) * .5 - 2; a = np.arange(6.).reshape(2,3) - 2;
   b = np.arange(12.).reshape(3,4) * .25; c = np.arange(24.).reshape(2,3,4) - 5;
   v = [1,-1,2,.5]: np.einsum('...ii->...i', x), np.einsum('ij,jk', a, b) (implicit: 'ik'),
   np.einsum('ba', a) (implicit output in alphabetical order: a transpose) and
   np.einsum('i...j,j->...i', c, v). */
static void einsum_ellipsis_diagonal_and_implicit_output_match_numpy(void) {
    static const int64_t xd[] = {2, 3, 3}, ad[] = {2, 3}, bd[] = {3, 4}, cd[] = {2, 3, 4}, vd[] = {4};
    static const int64_t diag_d[] = {2, 3}, ik_d[] = {2, 4}, ba_d[] = {3, 2}, ell_d[] = {3, 2};
    static const float diag[] = {-2, 0, 2, 2.5f, 4.5f, 6.5f};
    static const float ik[] = {-1, -1.75f, -2.5f, -3.25f, 8, 9.5f, 11, 12.5f};
    static const float ba[] = {-2, 1, -1, 2, 0, 3};
    static const float ell[] = {-8, 22, 2, 32, 12, 42};
    float x[18], a[6], b[12], c[24], v[] = {1, -1, 2, 0.5f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, a);
    mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 2, bd, b), tc = tensor("c", MMD_DTYPE_FLOAT32, 3, cd, c);
    mmd_tensor tv = tensor("v", MMD_DTYPE_FLOAT32, 1, vd, v);
    int32_t i;
    for (i = 0; i < 18; ++i) x[i] = (float)i * 0.5f - 2.0f;
    for (i = 0; i < 6; ++i) a[i] = (float)i - 2.0f;
    for (i = 0; i < 12; ++i) b[i] = (float)i * 0.25f;
    for (i = 0; i < 24; ++i) c[i] = (float)i - 5.0f;
    check_einsum("...ii->...i", &tx, NULL, 2, diag_d, diag, 6);
    check_einsum("ij,jk", &ta, &tb, 2, ik_d, ik, 8);
    check_einsum("ba", &ta, NULL, 2, ba_d, ba, 6);
    check_einsum("i...j,j->...i", &tc, &tv, 2, ell_d, ell, 6);
}

/* Malformed equations, output labels missing from the inputs or repeated, an explicit output
   that drops the ellipsis (numpy refuses it too), too few labels for a rank and sizes that
   disagree are refused at prepare. */
static void einsum_bad_equations_fail_at_prepare(void) {
    static const char *const bad[] = {"ij,jk->il", "ij,jk->ii", "ij.,jk", "ij->i,", "ij,jk-ik", "...j,jk->k",
                                      "i,jk->ik"};
    static const mmd_status code[] = {MMD_ERR_INVALID_MODEL, MMD_ERR_INVALID_MODEL, MMD_ERR_INVALID_MODEL,
                                      MMD_ERR_INVALID_MODEL, MMD_ERR_INVALID_MODEL, MMD_ERR_INVALID_MODEL,
                                      MMD_ERR_SHAPE};
    static const int64_t ad[] = {2, 3}, bd[] = {3, 4}, cd[] = {4, 4};
    float a[6] = {0}, b[12] = {0}, cc[16] = {0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 2, bd, b);
    mmd_tensor tc = tensor("c", MMD_DTYPE_FLOAT32, 2, cd, cc), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    op_case t;
    int32_t i;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    for (i = 0; i < COUNT(bad); ++i) {
        attrs[0] = attr_string("equation", bad[i]);
        CHECK(case_prepare(&t, "Einsum", 12, attrs, 1, in, 2, out, 1) == code[i]);
        case_free(&t);
    }
    /* 'j' is 3 in a but 4 in c. */
    in[1] = &tc;
    attrs[0] = attr_string("equation", "ij,jk->ik");
    CHECK(case_prepare(&t, "Einsum", 12, attrs, 1, in, 2, out, 1) == MMD_ERR_SHAPE);
    case_free(&t);
}

/* ---- table ------------------------------------------------------------------------------ */

/* Axes and k move from attribute to input at the opsets the spec names; those entries read the
   input's value and say so, the others do not. */
static void table_flags_value_inputs_from_the_right_opsets(void) {
    CHECK(mmd_ops_find("", "ReduceSum", 12)->flags == 0);
    CHECK(mmd_ops_find("", "ReduceSum", 13)->flags == MMD_KERNEL_VALUE_INPUT(1));
    CHECK(mmd_ops_find("", "ReduceMax", 17)->flags == 0);
    CHECK(mmd_ops_find("", "ReduceMax", 18)->flags == MMD_KERNEL_VALUE_INPUT(1));
    CHECK(mmd_ops_find("", "TopK", 9)->flags == 0);
    CHECK(mmd_ops_find("", "TopK", 10)->flags == MMD_KERNEL_VALUE_INPUT(1));
    CHECK(mmd_ops_find("", "CumSum", 10) == NULL);
    CHECK(mmd_ops_find("", "Einsum", 11) == NULL);
}

/* ---- Softmax and LogSoftmax vector paths ---------------------------------------------------- */

/* Softmax and LogSoftmax 13 over axis 1 of [outer, n, inner] (inner 1: the last axis, one
   vector row per slice; else slices side by side as rows of `inner`), against the formula
   evaluated in double here, for lengths around the vector widths; then with 2 and 3 threads,
   which must give the same bytes (the last cases are big enough to be split: a share is at
   least 1 << 16 elements). */
static void softmax_vector_paths_match_double_and_threads(void) {
    static const int64_t cases[][3] = {{2, 1, 1}, {2, 7, 1}, {2, 17, 1}, {2, 40, 1}, {2, 1, 5},  {2, 7, 5},
                                       {2, 17, 19}, {2, 40, 19}, {3, 230, 300}, {3, 40, 1800}, {900, 230, 1}};
    static const char *const ops[] = {"Softmax", "LogSoftmax"};
    size_t a, k;
    for (k = 0; k < 2; ++k)
        for (a = 0; a < sizeof cases / sizeof cases[0]; ++a) {
            int64_t outer = cases[a][0], n = cases[a][1], inner = cases[a][2], total = outer * n * inner, o, i, j;
            float *x = (float *)malloc((size_t)total * sizeof(float));
            float *want = (float *)malloc((size_t)total * sizeof(float)), *first = NULL;
            mmd_attr attrs[1];
            int32_t threads, split = harness_split_loops;
            ramp(x, total, 7, 161);
            for (o = 0; o < outer; ++o)
                for (j = 0; j < inner; ++j) {
                    const float *xs = x + o * n * inner + j;
                    double mx = xs[0], sum = 0.0;
                    for (i = 1; i < n; ++i) mx = xs[i * inner] > mx ? xs[i * inner] : mx;
                    for (i = 0; i < n; ++i) sum += exp(xs[i * inner] - mx);
                    for (i = 0; i < n; ++i)
                        want[o * n * inner + j + i * inner] =
                            (float)(k ? xs[i * inner] - mx - log(sum) : exp(xs[i * inner] - mx) / sum);
                }
            attrs[0] = attr_int("axis", 1);
            for (threads = 1; threads <= 3; ++threads) {
                mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, cases[a], x), ty = output("y"), *in[1], *out[1];
                op_case t;
                in[0] = &tx;
                out[0] = &ty;
                CHECK(case_prepare_threads(&t, threads, ops[k], 13, attrs, 1, in, 1, out, 1) == MMD_OK);
                CHECK(case_eval(&t) == MMD_OK);
                check_f32_tol(&ty, want, total, 2e-6);
                if (threads == 1) {
                    first = (float *)malloc((size_t)total * sizeof(float));
                    memcpy(first, ty.data, (size_t)total * sizeof(float));
                } else {
                    CHECK(memcmp(first, ty.data, (size_t)total * sizeof(float)) == 0);
                }
                case_free(&t);
            }
            CHECK(harness_split_loops == split + (total >= 3 << 16 ? 2 : 0));
            free(first);
            free(want);
            free(x);
        }
}

/* Runs op on x with 1, 2 and 3 threads: the results must match `want` within tol and each
   other byte for byte. */
static void check_threads_f32(const char *op, int32_t opset, mmd_attr *attrs, int32_t nattr, mmd_tensor **in,
                              int32_t nin, const float *want, int64_t total, double tol) {
    float *first = NULL;
    int32_t threads, split = harness_split_loops;
    for (threads = 1; threads <= 3; ++threads) {
        mmd_tensor ty = output("y"), *out[1];
        op_case t;
        out[0] = &ty;
        CHECK(case_prepare_threads(&t, threads, op, opset, attrs, nattr, in, nin, out, 1) == MMD_OK);
        CHECK(case_eval(&t) == MMD_OK);
        check_f32_tol(&ty, want, total, tol);
        if (threads == 1) {
            first = (float *)malloc((size_t)total * sizeof(float) + 1);
            memcpy(first, ty.data, (size_t)total * sizeof(float));
        } else {
            CHECK(memcmp(first, ty.data, (size_t)total * sizeof(float)) == 0);
        }
        case_free(&t);
    }
    CHECK(harness_split_loops == split + 2);
    free(first);
}

/* Mean and 1 / sqrt(variance + eps) of n floats `st` apart, in double (two passes). */
static void moments64(const float *x, int64_t n, int64_t st, double eps, double *mean, double *inv) {
    double s = 0.0, v = 0.0;
    int64_t i;
    for (i = 0; i < n; ++i) s += x[i * st];
    *mean = s / (double)n;
    for (i = 0; i < n; ++i) v += (x[i * st] - *mean) * (x[i * st] - *mean);
    *inv = 1.0 / sqrt(v / (double)n + eps);
}

/* LayerNormalization over the last axis of [600, 400] with Scale and B rows,
   InstanceNormalization over [2, 32, 60, 60] and GlobalAveragePool over [1, 64, 60, 60]: their
   row sums and vector rows against double here, and split over threads (at least 1 << 16
   elements a share). */
static void row_normalisations_match_double_and_threads(void) {
    static const int64_t ln_dims[] = {600, 400}, row[] = {400}, in_dims[] = {2, 32, 60, 60}, ch[] = {32};
    static const int64_t gp_dims[] = {1, 64, 60, 60};
    int64_t total = 600 * 400, r, j, pl;
    float *x = (float *)malloc((size_t)total * sizeof(float)), *want = (float *)malloc((size_t)total * sizeof(float));
    float scale[400], bias[400];
    double mean, inv;
    mmd_tensor tx, ts, tb, *in[3];
    mmd_attr attrs[1];
    ramp(x, total, 13, 97);
    ramp(scale, 400, 3, 11);
    ramp(bias, 400, 5, 13);
    for (r = 0; r < 600; ++r) {
        moments64(x + r * 400, 400, 1, 1e-5, &mean, &inv);
        for (j = 0; j < 400; ++j) want[r * 400 + j] = (float)((x[r * 400 + j] - mean) * inv * scale[j] + bias[j]);
    }
    tx = tensor("x", MMD_DTYPE_FLOAT32, 2, ln_dims, x);
    ts = tensor("scale", MMD_DTYPE_FLOAT32, 1, row, scale);
    tb = tensor("b", MMD_DTYPE_FLOAT32, 1, row, bias);
    in[0] = &tx;
    in[1] = &ts;
    in[2] = &tb;
    attrs[0] = attr_int("axis", -1);
    check_threads_f32("LayerNormalization", 17, attrs, 1, in, 3, want, total, 1e-5);
    /* InstanceNormalization: 64 planes of 3600, Scale and B per channel. */
    total = 2 * 32 * 3600;
    x = (float *)realloc(x, (size_t)total * sizeof(float));
    want = (float *)realloc(want, (size_t)total * sizeof(float));
    ramp(x, total, 13, 97);
    for (pl = 0; pl < 64; ++pl) {
        moments64(x + pl * 3600, 3600, 1, 1e-5, &mean, &inv);
        for (j = 0; j < 3600; ++j)
            want[pl * 3600 + j] = (float)((x[pl * 3600 + j] - mean) * inv * scale[pl % 32] + bias[pl % 32]);
    }
    tx = tensor("x", MMD_DTYPE_FLOAT32, 4, in_dims, x);
    ts = tensor("scale", MMD_DTYPE_FLOAT32, 1, ch, scale);
    tb = tensor("b", MMD_DTYPE_FLOAT32, 1, ch, bias);
    check_threads_f32("InstanceNormalization", 6, NULL, 0, in, 3, want, total, 1e-5);
    /* GlobalAveragePool: the same values as 64 planes of one image. */
    for (pl = 0; pl < 64; ++pl) {
        moments64(x + pl * 3600, 3600, 1, 0.0, &mean, &inv);
        want[pl] = (float)mean;
    }
    tx = tensor("x", MMD_DTYPE_FLOAT32, 4, gp_dims, x);
    check_threads_f32("GlobalAveragePool", 1, NULL, 0, in, 1, want, 64, 1e-6);
    free(x);
    free(want);
}

int main(void) {
    TEST_RUN(softmax_vector_paths_match_double_and_threads);
    TEST_RUN(row_normalisations_match_double_and_threads);
    TEST_RUN(reduce_every_op_over_middle_axis_matches_numpy);
    TEST_RUN(reduce_empty_axis_gives_identity);
    TEST_RUN(reduce_sum_noop_with_empty_axes_copies);
    TEST_RUN(reduce_int32_sum_prod_max_min_match_numpy);
    TEST_RUN(reduce_log_sum_exp_stays_finite_for_large_values);
    TEST_RUN(reduce_bad_axes_and_dtypes_fail_at_prepare);
    TEST_RUN(argmax_nan_wins_and_select_last_index_picks_last_tie);
    TEST_RUN(argmax_over_empty_axis_fails);
    TEST_RUN(log_softmax_and_hardmax_opset11_coerce_but_opset13_use_one_axis);
    TEST_RUN(cumsum_exclusive_reverse_reads_axis_at_eval);
    TEST_RUN(topk_ties_come_out_by_lower_index);
    TEST_RUN(topk_on_120000_scores_matches_full_sort);
    TEST_RUN(topk_runtime_k_plans_bound_and_eval_sets_dims);
    TEST_RUN(einsum_ellipsis_diagonal_and_implicit_output_match_numpy);
    TEST_RUN(einsum_bad_equations_fail_at_prepare);
    TEST_RUN(table_flags_value_inputs_from_the_right_opsets);
    return test_summary();
}
