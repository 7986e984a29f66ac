/* tests/test_kernels_elementwise.c - the elementwise kernels of mmdeploy_ops.h on what
   the ONNX node tests leave out: integer edge values, NaN, three-way and variadic broadcasting,
   empty tensors and the errors prepare and eval report. Each test runs one node by hand
   (kernel from mmd_ops_find, prepare, eval); expected values were printed by numpy
   (/usr/bin/python3) with the call given in each comment. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#define CHECK_F32_TOL 1e-6
#include "kernel_harness.h"


/* ---- Mod ---------------------------------------------------------------------------------- */

/* np.mod and np.fmod of [-7,7,-7,7,0,INT32_MIN] by [3,-3,-3,3,5,-1] (int32): the sign comes
   from the divisor, respectively the dividend; INT32_MIN % -1 is 0, not an overflow. */
static void mod_int32_sign_rules_match_numpy(void) {
    static const int64_t d[] = {6};
    static const int32_t a[] = {-7, 7, -7, 7, 0, INT32_MIN}, b[] = {3, -3, -3, 3, 5, -1};
    static const int32_t want_mod[] = {2, -2, -1, 1, 0, 0}, want_fmod[] = {-1, 1, -1, 1, 0, 0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT32, 1, d, a), tb = tensor("b", MMD_DTYPE_INT32, 1, d, b), ty;
    mmd_tensor *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Mod", 13, NULL, 0, in, 2, &ty, &err) == MMD_OK);
    check_bytes(&ty, MMD_DTYPE_INT32, want_mod, 6);
    free(ty.data);
    attrs[0] = attr_int("fmod", 1);
    CHECK(run_op1("Mod", 13, attrs, 1, in, 2, &ty, &err) == MMD_OK);
    check_bytes(&ty, MMD_DTYPE_INT32, want_fmod, 6);
    free(ty.data);
}

/* np.mod([200, 7], [255, 3]) in uint8: 255 is not -1 to an unsigned divisor. */
static void mod_uint8_large_divisor(void) {
    static const int64_t d[] = {2};
    static const uint8_t a[] = {200, 7}, b[] = {255, 3}, want[] = {200, 1};
    mmd_tensor ta = tensor("a", MMD_DTYPE_UINT8, 1, d, a), tb = tensor("b", MMD_DTYPE_UINT8, 1, d, b), ty;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Mod", 13, NULL, 0, in, 2, &ty, &err) == MMD_OK);
    check_bytes(&ty, MMD_DTYPE_UINT8, want, 2);
    free(ty.data);
}

/* A zero divisor is only known at run time: eval fails and names it. */
static void mod_integer_by_zero_fails_in_eval(void) {
    static const int64_t d[] = {2};
    static const int64_t a[] = {5, 6}, b[] = {2, 0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT64, 1, d, a), tb = tensor("b", MMD_DTYPE_INT64, 1, d, b), ty;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Mod", 13, NULL, 0, in, 2, &ty, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "division by zero") != NULL);
    free(ty.data);
}

/* fmod = 0 is defined for integers only; a float Mod must say fmod = 1. */
static void mod_float_without_fmod_is_invalid(void) {
    static const int64_t d[] = {1};
    static const float a[] = {1.5f}, b[] = {1.0f};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 1, d, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 1, d, b), ty;
    mmd_tensor *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Mod", 13, NULL, 0, in, 2, &ty, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "fmod") != NULL);
    attrs[0] = attr_int("fmod", 2);
    CHECK(run_op1("Mod", 13, attrs, 1, in, 2, &ty, &err) == MMD_ERR_INVALID_MODEL);
}

/* ---- unary maps --------------------------------------------------------------------------- */

/* np.abs and np.negative of [INT32_MIN, -5, 0, 7] (int32) wrap INT32_MIN to itself. */
static void abs_neg_int32_min_wraps_like_numpy(void) {
    static const int64_t d[] = {4};
    static const int32_t x[] = {INT32_MIN, -5, 0, 7};
    static const int32_t want_abs[] = {INT32_MIN, 5, 0, 7}, want_neg[] = {INT32_MIN, 5, 0, -7};
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT32, 1, d, x), ty;
    mmd_tensor *in[1];
    mmd_error err;
    in[0] = &tx;
    CHECK(run_op1("Abs", 13, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    check_bytes(&ty, MMD_DTYPE_INT32, want_abs, 4);
    free(ty.data);
    CHECK(run_op1("Neg", 13, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    check_bytes(&ty, MMD_DTYPE_INT32, want_neg, 4);
    free(ty.data);
}

/* np.round([0.5, 1.5, 2.5, -0.5, -2.5, 2.6]) rounds halves to even. */
static void round_halves_to_even(void) {
    static const int64_t d[] = {6};
    static const float x[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.6f}, want[] = {0, 2, 2, -0.0f, -2, 3};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), ty;
    mmd_tensor *in[1];
    mmd_error err;
    in[0] = &tx;
    CHECK(run_op1("Round", 11, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 6);
    free(ty.data);
}

/* np.sign([-2, 0, 3, nan]) keeps NaN. */
static void sign_keeps_nan(void) {
    static const int64_t d[] = {4};
    static const float x[] = {-2, 0, 3, NAN}, want[] = {-1, 0, 1, NAN};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), ty;
    mmd_tensor *in[1];
    mmd_error err;
    in[0] = &tx;
    CHECK(run_op1("Sign", 13, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 4);
    free(ty.data);
}

/* np.log(np.exp(x) + 1) in float64 for x = [100, -100, 0] is [100, ~0, 0.6931472]; the float
   kernel must not overflow exp on the way. */
static void softplus_extremes_do_not_overflow(void) {
    static const int64_t d[] = {3};
    static const float x[] = {100, -100, 0}, want[] = {100, 0, 0.6931472f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), ty;
    mmd_tensor *in[1];
    mmd_error err;
    in[0] = &tx;
    CHECK(run_op1("Softplus", 1, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 3);
    free(ty.data);
}

/* IsInf with detect_negative = 0 on [inf, -inf, 1, nan] gives [1, 0, 0, 0]. */
static void isinf_detect_positive_only(void) {
    static const int64_t d[] = {4};
    static const uint8_t want[] = {1, 0, 0, 0};
    static const float x[] = {INFINITY, -INFINITY, 1, NAN};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), ty;
    mmd_tensor *in[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx;
    attrs[0] = attr_int("detect_negative", 0);
    CHECK(run_op1("IsInf", 10, attrs, 1, in, 1, &ty, &err) == MMD_OK);
    check_bytes(&ty, MMD_DTYPE_BOOL, want, 4);
    free(ty.data);
}

/* A [0,3] input gives a [0,3] output and no element access. */
static void unary_empty_tensor(void) {
    static const int64_t d[] = {0, 3};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, d, NULL), ty;
    mmd_tensor *in[1];
    mmd_error err;
    in[0] = &tx;
    CHECK(run_op1("Exp", 13, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, d);
    free(ty.data);
}

/* Acos is defined for floats only. */
static void acos_int32_is_dtype_error(void) {
    static const int64_t d[] = {1};
    static const int32_t x[] = {1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT32, 1, d, x), ty;
    mmd_tensor *in[1];
    mmd_error err;
    in[0] = &tx;
    CHECK(run_op1("Acos", 7, NULL, 0, in, 1, &ty, &err) == MMD_ERR_DTYPE);
    CHECK(strstr(err.msg, "int32") != NULL);
}

/* ---- comparisons, PRelu ------------------------------------------------------------------- */

/* np.array([[1],[5]]) > np.array([0,5,9]) (int64) broadcasts to a [2,3] bool. */
static void greater_int64_broadcasts_to_bool(void) {
    static const int64_t da[] = {2, 1}, db[] = {3}, dy[] = {2, 3};
    static const int64_t a[] = {1, 5}, b[] = {0, 5, 9};
    static const uint8_t want[] = {1, 0, 0, 1, 0, 0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT64, 2, da, a), tb = tensor("b", MMD_DTYPE_INT64, 1, db, b), ty;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Greater", 13, NULL, 0, in, 2, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, dy);
    check_bytes(&ty, MMD_DTYPE_BOOL, want, 6);
    free(ty.data);
}

/* [1, nan, 3] == [1, nan, 2] is [1, 0, 0]: NaN equals nothing. */
static void equal_float_nan_is_false(void) {
    static const int64_t d[] = {3};
    static const uint8_t want[] = {1, 0, 0};
    static const float a[] = {1, NAN, 3}, b[] = {1, NAN, 2};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 1, d, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 1, d, b), ty;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Equal", 13, NULL, 0, in, 2, &ty, &err) == MMD_OK);
    check_bytes(&ty, MMD_DTYPE_BOOL, want, 3);
    free(ty.data);
}

/* A slope of [2,3] against X [3] would grow the output: PRelu broadcasts one way only. */
static void prelu_slope_larger_than_x_fails(void) {
    static const int64_t dx[] = {3}, ds[] = {2, 3};
    static const float x[3] = {0}, s[6] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, dx, x), ts = tensor("s", MMD_DTYPE_FLOAT32, 2, ds, s), ty;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &tx;
    in[1] = &ts;
    CHECK(run_op1("PRelu", 16, NULL, 0, in, 2, &ty, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "[2,3]") != NULL);
}

/* ---- Where -------------------------------------------------------------------------------- */

/* np.where([[True],[False]], [[1,2,3]], -1) (int64): condition, X and Y each broadcast. */
static void where_broadcasts_all_three(void) {
    static const int64_t dc[] = {2, 1}, dx[] = {1, 3}, dy[] = {2, 3};
    static const uint8_t cond[] = {1, 0};
    static const int64_t x[] = {1, 2, 3}, y[] = {-1}, want[] = {1, 2, 3, -1, -1, -1};
    mmd_tensor tc = tensor("c", MMD_DTYPE_BOOL, 2, dc, cond), tx = tensor("x", MMD_DTYPE_INT64, 2, dx, x);
    mmd_tensor tyv = tensor("y", MMD_DTYPE_INT64, 0, NULL, y), tout;
    mmd_tensor *in[3];
    mmd_error err;
    in[0] = &tc;
    in[1] = &tx;
    in[2] = &tyv;
    CHECK(run_op1("Where", 16, NULL, 0, in, 3, &tout, &err) == MMD_OK);
    check_dims(&tout, 2, dy);
    check_bytes(&tout, MMD_DTYPE_INT64, want, 6);
    free(tout.data);
}

/* The condition must be bool. */
static void where_float_condition_is_dtype_error(void) {
    static const int64_t d[] = {1};
    static const float c[] = {1}, x[] = {2}, y[] = {3};
    mmd_tensor tc = tensor("c", MMD_DTYPE_FLOAT32, 1, d, c), tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x);
    mmd_tensor tyv = tensor("y", MMD_DTYPE_FLOAT32, 1, d, y), tout;
    mmd_tensor *in[3];
    mmd_error err;
    in[0] = &tc;
    in[1] = &tx;
    in[2] = &tyv;
    CHECK(run_op1("Where", 16, NULL, 0, in, 3, &tout, &err) == MMD_ERR_DTYPE);
}

/* ---- Max, Min, Sum, Mean ------------------------------------------------------------------ */

/* x = [1, nan, -3], y = [[nan],[2]], z = 0.5: np.maximum(np.maximum(x, y), z) and np.minimum
   likewise; NaN wins wherever it meets. */
static void max_min_three_inputs_broadcast_and_keep_nan(void) {
    static const int64_t dx[] = {3}, dy[] = {2, 1}, dout[] = {2, 3};
    static const float x[] = {1, NAN, -3}, y[] = {NAN, 2}, z[] = {0.5f};
    static const float want_max[] = {NAN, NAN, NAN, 2, NAN, 2}, want_min[] = {NAN, NAN, NAN, 0.5f, NAN, -3};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, dx, x), ty = tensor("y", MMD_DTYPE_FLOAT32, 2, dy, y);
    mmd_tensor tz = tensor("z", MMD_DTYPE_FLOAT32, 0, NULL, z), tout;
    mmd_tensor *in[3];
    mmd_error err;
    in[0] = &tx;
    in[1] = &ty;
    in[2] = &tz;
    CHECK(run_op1("Max", 13, NULL, 0, in, 3, &tout, &err) == MMD_OK);
    check_dims(&tout, 2, dout);
    check_f32(&tout, want_max, 6);
    free(tout.data);
    CHECK(run_op1("Min", 13, NULL, 0, in, 3, &tout, &err) == MMD_OK);
    check_f32(&tout, want_min, 6);
    free(tout.data);
}

/* ([1,2,3] + [[10],[20]] + 4) / 3 */
static void mean_three_inputs_broadcast(void) {
    static const int64_t da[] = {3}, db[] = {2, 1}, dout[] = {2, 3};
    static const float a[] = {1, 2, 3}, b[] = {10, 20}, c[] = {4};
    static const float want[] = {5.0f, 5.3333335f, 5.6666665f, 8.333333f, 8.666667f, 9.0f};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 1, da, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 2, db, b);
    mmd_tensor tc = tensor("c", MMD_DTYPE_FLOAT32, 0, NULL, c), tout;
    mmd_tensor *in[3];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    in[2] = &tc;
    CHECK(run_op1("Mean", 13, NULL, 0, in, 3, &tout, &err) == MMD_OK);
    check_dims(&tout, 2, dout);
    check_f32(&tout, want, 6);
    free(tout.data);
}

/* Sum of one int32 input is a copy; of two, an int32 sum. */
static void sum_int32_one_and_two_inputs(void) {
    static const int64_t d[] = {3};
    static const int32_t a[] = {1, -2, 3}, b[] = {10, 20, 30}, want[] = {11, 18, 33};
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT32, 1, d, a), tb = tensor("b", MMD_DTYPE_INT32, 1, d, b), tout;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Sum", 13, NULL, 0, in, 1, &tout, &err) == MMD_OK);
    check_bytes(&tout, MMD_DTYPE_INT32, a, 3);
    free(tout.data);
    CHECK(run_op1("Sum", 13, NULL, 0, in, 2, &tout, &err) == MMD_OK);
    check_bytes(&tout, MMD_DTYPE_INT32, want, 3);
    free(tout.data);
}

/* An empty axis broadcast against 1 stays empty: [0,3] with [1,3] gives [0,3]. */
static void max_empty_input_gives_empty_output(void) {
    static const int64_t da[] = {0, 3}, db[] = {1, 3};
    static const float b[] = {1, 2, 3};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, da, NULL), tb = tensor("b", MMD_DTYPE_FLOAT32, 2, db, b), tout;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Max", 13, NULL, 0, in, 2, &tout, &err) == MMD_OK);
    check_dims(&tout, 2, da);
    free(tout.data);
}

/* Every input must have input 0's dtype. */
static void max_mixed_dtypes_is_dtype_error(void) {
    static const int64_t d[] = {1};
    static const float a[] = {1};
    static const int32_t b[] = {1};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 1, d, a), tb = tensor("b", MMD_DTYPE_INT32, 1, d, b), tout;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &ta;
    in[1] = &tb;
    CHECK(run_op1("Max", 13, NULL, 0, in, 2, &tout, &err) == MMD_ERR_DTYPE);
}

/* ---- CastLike ----------------------------------------------------------------------------- */

/* The target dtype comes from input 1 (int64 here), whose values are never read:
   np.array([2.7, -2.7, 1e3]).astype(np.int64) truncates toward zero. */
static void castlike_takes_dtype_of_second_input(void) {
    static const int64_t d[] = {3}, dl[] = {0};
    static const float x[] = {2.7f, -2.7f, 1e3f};
    static const int64_t want[] = {2, -2, 1000};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), tl = tensor("like", MMD_DTYPE_INT64, 1, dl, NULL), tout;
    mmd_tensor *in[2];
    mmd_error err;
    in[0] = &tx;
    in[1] = &tl;
    CHECK(run_op1("CastLike", 15, NULL, 0, in, 2, &tout, &err) == MMD_OK);
    check_dims(&tout, 1, d);
    check_bytes(&tout, MMD_DTYPE_INT64, want, 3);
    free(tout.data);
}

/* ---- float32 vector paths ------------------------------------------------------------------- */
/* The float32 activations and Add, Sub, Mul, Div run vector code (AVX-512, AVX2 or portable
   loops, whichever the CPU has); the float64 kernels run the generic rows. Each case runs both
   on the same values and compares, over lengths around the vector widths, and runs the float32
   kernel again with 2 and 3 threads (shares run last first), which must give the same bytes. */

/* Values that visit every branch: a spread over [-12, 12], both zeros, +-100 (where exp
   saturates), infinities and NaN. */
static void spread(float *x, int64_t n) {
    static const float special[] = {0.0f, -0.0f, 100.0f, -100.0f, INFINITY, -INFINITY, NAN, 3.0f, -3.0f};
    int64_t i;
    for (i = 0; i < n; ++i)
        x[i] = i % 11 == 5 ? special[(i / 11) % 9] : (float)((i * 7919) % 2401 - 1200) / 100.0f;
}

/* Runs op on float32 x (and y, when given) with 1, 2 and 3 threads and on the same values in
   float64; the float32 results must match each other byte for byte and the float64 one to
   within CHECK_F32_TOL. */
static void check_vector_path(const char *op, int32_t opset, mmd_attr *attrs, int32_t nattr, int32_t rx,
                              const int64_t *dx, int32_t ry, const int64_t *dy, mmd_tensor *extra32,
                              mmd_tensor *extra64, int32_t nextra) {
    mmd_tensor tx, ty, out = output("out"), out64 = output("out64"), *in[4], *o[1];
    int64_t nx = 1, ny = 1, n, i;
    float *x, *y = NULL, *want, *first = NULL;
    double *x64, *y64 = NULL;
    int32_t nin = ry >= 0 ? 2 : 1, threads, k, split = harness_split_loops;
    op_case t;
    for (i = 0; i < rx; ++i) nx *= dx[i];
    for (i = 0; i < ry; ++i) ny *= dy[i];
    x = (float *)malloc((size_t)(nx + 1) * sizeof(float));
    x64 = (double *)malloc((size_t)(nx + 1) * sizeof(double));
    spread(x, nx);
    for (i = 0; i < nx; ++i) x64[i] = x[i];
    if (nin == 2) {
        y = (float *)malloc((size_t)(ny + 1) * sizeof(float));
        y64 = (double *)malloc((size_t)(ny + 1) * sizeof(double));
        for (i = 0; i < ny; ++i) y[i] = (float)((i * 31) % 17 - 8) * 0.375f + (i % 5 == 2 ? 0.0f : 0.125f);
        for (i = 0; i < ny; ++i) y64[i] = y[i];
    }
    /* float64 reference through the generic rows */
    tx = tensor("x", MMD_DTYPE_FLOAT64, rx, dx, x64);
    ty = tensor("y", MMD_DTYPE_FLOAT64, ry > 0 ? ry : 0, dy, y64);
    in[0] = &tx;
    in[1] = &ty;
    for (k = 0; k < nextra; ++k) in[nin + k] = &extra64[k];
    o[0] = &out64;
    CHECK(case_run(&t, op, opset, attrs, nattr, in, nin + nextra, o, 1) == MMD_OK);
    n = mmd_tensor_numel(&out64);
    want = (float *)malloc((size_t)(n + 1) * sizeof(float));
    for (i = 0; i < n && out64.data; ++i) want[i] = (float)((const double *)out64.data)[i];
    case_free(&t);
    for (threads = 1; threads <= 3; ++threads) {
        tx = tensor("x", MMD_DTYPE_FLOAT32, rx, dx, x);
        ty = tensor("y", MMD_DTYPE_FLOAT32, ry > 0 ? ry : 0, dy, y);
        out = output("out");
        o[0] = &out;
        for (k = 0; k < nextra; ++k) in[nin + k] = &extra32[k];
        CHECK(case_prepare_threads(&t, threads, op, opset, attrs, nattr, in, nin + nextra, o, 1) == MMD_OK);
        CHECK(case_eval(&t) == MMD_OK);
        CHECK(mmd_tensor_numel(&out) == n);
        if (threads == 1) {
            check_f32(&out, want, n);
            first = (float *)malloc((size_t)(n + 1) * sizeof(float));
            if (n) memcpy(first, out.data, (size_t)n * sizeof(float));
        } else if (n) {
            CHECK(memcmp(first, out.data, (size_t)n * sizeof(float)) == 0);
        }
        case_free(&t);
    }
    /* Three shares need 3 << 16 elements. */
    CHECK(harness_split_loops == split + (n >= 3 << 16 ? 2 : 0));
    free(first);
    free(want);
    free(x);
    free(x64);
    free(y);
    free(y64);
}

/* Lengths around the 8- and 16-float vectors, and one that three threads split (a share is at
   least 1 << 16 elements). */
static const int64_t vector_lengths[] = {1, 7, 8, 9, 15, 16, 17, 33, 200003};

static void activations_f32_match_float64_and_threads(void) {
    static const char *const ops[] = {"Relu", "Sigmoid", "HardSwish", "Tanh"};
    static const float bounds[] = {-1.5f, 2.5f};
    static const double bounds64[] = {-1.5, 2.5};
    mmd_attr leaky[1], hsig[2], clip6[2];
    mmd_tensor b32[2], b64[2];
    size_t i, k;
    leaky[0] = attr_float("alpha", 0.1f);
    hsig[0] = attr_float("alpha", 0.25f);
    hsig[1] = attr_float("beta", 0.375f);
    clip6[0] = attr_float("min", -1.5f);
    clip6[1] = attr_float("max", 2.5f);
    /* Clip 13 reads its bounds in eval: run-time inputs of X's dtype. */
    for (k = 0; k < 2; ++k) {
        b32[k] = runtime("bound", MMD_DTYPE_FLOAT32, 0, NULL, &bounds[k]);
        b64[k] = runtime("bound", MMD_DTYPE_FLOAT64, 0, NULL, &bounds64[k]);
    }
    for (i = 0; i < sizeof vector_lengths / sizeof vector_lengths[0]; ++i) {
        const int64_t *d = &vector_lengths[i];
        for (k = 0; k < sizeof ops / sizeof ops[0]; ++k)
            check_vector_path(ops[k], 14, NULL, 0, 1, d, -1, NULL, NULL, NULL, 0);
        check_vector_path("LeakyRelu", 6, leaky, 1, 1, d, -1, NULL, NULL, NULL, 0);
        check_vector_path("HardSigmoid", 6, hsig, 2, 1, d, -1, NULL, NULL, NULL, 0);
        check_vector_path("Clip", 6, clip6, 2, 1, d, -1, NULL, NULL, NULL, 0);
        check_vector_path("Clip", 13, NULL, 0, 1, d, -1, NULL, b32, b64, 2);
    }
}

/* Add, Sub, Mul, Div over every way two shapes broadcast: equal shapes, a scalar either side,
   per-channel ([N,C,H,W] x [1,C,1,1] and [N,C,1,1]), a last-axis row, an outer product,
   size-1 axes on both sides, an empty output, and a per-channel case the threads split. */
static void binary_f32_broadcasts_match_float64_and_threads(void) {
    static const char *const ops[] = {"Add", "Sub", "Mul", "Div"};
    static const int64_t same[] = {2, 3, 5, 7}, chan[] = {1, 3, 1, 1}, chan_n[] = {2, 3, 1, 1};
    static const int64_t rows[] = {6, 35}, row[] = {35}, col[] = {5, 1}, line[] = {1, 7};
    static const int64_t ones_a[] = {1, 3, 1, 7}, ones_b[] = {2, 1, 5, 1}, empty[] = {0, 3}, three[] = {3};
    static const int64_t big[] = {3, 64, 40, 41}, big_c[] = {1, 64, 1, 1}, one[] = {1};
    static const int64_t wide[] = {200003};
    size_t k;
    for (k = 0; k < sizeof ops / sizeof ops[0]; ++k) {
        const char *op = ops[k];
        check_vector_path(op, 14, NULL, 0, 4, same, 4, same, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 4, same, 0, NULL, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 1, one, 4, same, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 4, same, 4, chan, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 4, chan_n, 4, same, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 2, rows, 1, row, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 2, col, 2, line, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 4, ones_a, 4, ones_b, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 2, empty, 1, three, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 4, big, 4, big_c, NULL, NULL, 0);
        check_vector_path(op, 14, NULL, 0, 1, wide, 1, wide, NULL, NULL, 0);
    }
}

int main(void) {
    TEST_RUN(mod_int32_sign_rules_match_numpy);
    TEST_RUN(mod_uint8_large_divisor);
    TEST_RUN(mod_integer_by_zero_fails_in_eval);
    TEST_RUN(mod_float_without_fmod_is_invalid);
    TEST_RUN(abs_neg_int32_min_wraps_like_numpy);
    TEST_RUN(round_halves_to_even);
    TEST_RUN(sign_keeps_nan);
    TEST_RUN(softplus_extremes_do_not_overflow);
    TEST_RUN(isinf_detect_positive_only);
    TEST_RUN(unary_empty_tensor);
    TEST_RUN(acos_int32_is_dtype_error);
    TEST_RUN(greater_int64_broadcasts_to_bool);
    TEST_RUN(equal_float_nan_is_false);
    TEST_RUN(prelu_slope_larger_than_x_fails);
    TEST_RUN(where_broadcasts_all_three);
    TEST_RUN(where_float_condition_is_dtype_error);
    TEST_RUN(max_min_three_inputs_broadcast_and_keep_nan);
    TEST_RUN(mean_three_inputs_broadcast);
    TEST_RUN(sum_int32_one_and_two_inputs);
    TEST_RUN(max_empty_input_gives_empty_output);
    TEST_RUN(max_mixed_dtypes_is_dtype_error);
    TEST_RUN(castlike_takes_dtype_of_second_input);
    TEST_RUN(activations_f32_match_float64_and_threads);
    TEST_RUN(binary_f32_broadcasts_match_float64_and_threads);
    return test_summary();
}
