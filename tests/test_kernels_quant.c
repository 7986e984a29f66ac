/* tests/test_kernels_quant.c - the quantization kernels against numpy (tests/gen_quant_cases.py
   writes tests/data/quant_cases.h): QuantizeLinear's rounding ties and saturation (infinities,
   NaN, values past the range), per-tensor and per-axis parameters on every axis,
   DequantizeLinear, DynamicQuantizeLinear (an all-zero input included), MatMulInteger and
   QLinearMatMul (per-row and per-column zero points and scales, batches, a product wider than
   one column block), ConvInteger and QLinearConv (pads, strides, dilations, groups, depthwise,
   per-channel weights, bias; a fused Relu or Clip, as the load-time rewrites give it, against
   numpy's values clamped). Products run with constant weights (widened once at prepare) and
   with run-time ones, and on one thread and three (a hook that runs the shares backwards), all
   bit-identical. Then hostile parameters: zero, negative, NaN and infinite scales (at prepare
   when known, at eval otherwise), per-axis arrays of the wrong length, an axis out of range,
   zero points of the wrong type or shape, each a clear status and message. QLinearAdd (the
   com.microsoft op the residual rewrite makes) equal to DequantizeLinear, DequantizeLinear ->
   Add (-> Relu) -> QuantizeLinear run as those float kernels, and its hostile parameters. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"
#include "data/quant_cases.h"

static void backwards(void *user, mmd_task_fn task, void *ctx, int32_t count) {
    int32_t i;
    (void)user;
    for (i = count - 1; i >= 0; --i) task(ctx, i);
}

/* n int32 values narrowed to dtype (int8, uint8 or int32) in a malloc'd buffer. */
static void *narrow(int32_t dtype, const int32_t *v, int64_t n) {
    void *p = malloc((size_t)n * mmd_dtype_size(dtype) + 1);
    int64_t i;
    for (i = 0; i < n; ++i) mmd__store_int(dtype, p, i, v[i]);
    return p;
}

/* Checks that t holds want (n int32 values) in t's integer dtype. */
static void check_ints(const mmd_tensor *t, int32_t dtype, const int32_t *want, int64_t n, const char *name) {
    int64_t i, bad = 0;
    CHECK(t->dtype == dtype);
    CHECK(mmd_tensor_numel(t) == n);
    if (t->dtype != dtype || mmd_tensor_numel(t) != n) return;
    for (i = 0; i < n; ++i)
        if (mmd__load_int(dtype, t->data, i) != want[i] && bad++ < 3)
            fprintf(stderr, "%s: element %lld is %lld, numpy says %d\n", name, (long long)i,
                    (long long)mmd__load_int(dtype, t->data, i), (int)want[i]);
    CHECK(bad == 0);
}

/* Runs op with `threads` threads through the hook; the kernel's status. */
static mmd_status run_threads(op_case *t, const char *op, int32_t opset, mmd_attr *attrs, int32_t nattr,
                              mmd_tensor **in, int32_t nin, mmd_tensor **out, int32_t nout, int32_t threads) {
    mmd_status st;
    memset(t, 0, sizeof *t);
    t->k = mmd_ops_find("", op, opset);
    if (!t->k) return MMD_ERR_NO_KERNEL;
    t->node.name = "n0";
    t->node.op_type = op;
    t->node.domain = "";
    t->node.attrs = attrs;
    t->node.attr_count = nattr;
    t->node.opset = opset;
    t->c.node = &t->node;
    t->c.opset = opset;
    t->c.input_count = nin;
    t->c.inputs = in;
    t->c.output_count = nout;
    t->c.outputs = out;
    t->c.op_data = calloc(1, t->k->op_data_size + 1);
    t->c.err = &t->err;
    t->c.threads = threads;
    t->c.parallel = threads > 1 ? backwards : NULL;
    st = t->k->prepare(&t->c);
    return st != MMD_OK ? st : case_eval(t);
}

static uint32_t next(uint32_t *seed) {
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* The rows' vector paths (AVX2, NEON) against their portable loops, which the numpy cases
   above check: rows long enough for the vectors (and a tail), holding NaN, infinities, ties at
   every half quantum, values past the range, and, for the requantization, sums that wrap with
   the bias, per-column multipliers and a clamp narrowed as a fused Relu narrows it. */
static void vector_rows_equal_portable_rows(void) {
    static const float scales[] = {0.1f, 0.25f, 3.7f};
    static const int32_t types[] = {MMD_DTYPE_INT8, MMD_DTYPE_UINT8};
    float x[203], mult[203];
    int32_t acc[203], it, is, iz, path = mmd__qgemm_best();
    uint8_t one[203], two[203];
    uint32_t seed = 7u;
    int64_t i;
    for (it = 0; it < 2; ++it)
        for (is = 0; is < 3; ++is)
            for (iz = 0; iz < 3; ++iz) {
                int32_t dtype = types[it], zp = iz == 0 ? 0 : iz == 1 ? 3 : dtype == MMD_DTYPE_INT8 ? -7 : 200;
                float sc = scales[is];
                mmd__q_out o;
                for (i = 0; i < 203; ++i)
                    x[i] = i % 7 == 0   ? ((float)(int32_t)(next(&seed) % 600) - 300.0f + 0.5f) * sc
                           : i % 7 == 1 ? ((float)(int32_t)(next(&seed) % 2000) - 1000.0f) * sc
                                        : ((float)(int32_t)(next(&seed) % 100000) - 50000.0f) * 0.01f * sc;
                x[2] = x[5] = NAN, x[13] = INFINITY, x[21] = -INFINITY, x[30] = 1e30f, x[31] = -1e30f;
                mmd__quantize_row(x, 203, sc, zp, dtype, one, 0);
                mmd__quantize_row(x, 203, sc, zp, dtype, two, 1);
                CHECK(memcmp(one, two, 203) == 0);
                for (i = 0; i < 203; ++i) {
                    uint32_t h = next(&seed) << 8;
                    acc[i] = (int32_t)(h ^ next(&seed));
                    if (i % 3) acc[i] >>= 12; /* most sums small enough to land inside the range */
                    mult[i] = (float)(next(&seed) % 1000 + 1) * 1e-5f * sc;
                }
                mmd__q_out_init(&o, dtype, zp);
                if (iz == 2) o.qmin = zp; /* a fused Relu */
                mmd__requantize_row(acc, 203, iz == 1 ? 2147480000 : -5, mult, is == 1, &o, one, MMD__QG_PORTABLE);
                mmd__requantize_row(acc, 203, iz == 1 ? 2147480000 : -5, mult, is == 1, &o, two, path);
                CHECK(memcmp(one, two, 203) == 0);
            }
}

static void quantize_matches_numpy(void) {
    size_t i;
    int32_t known;
    for (i = 0; i < COUNT(quant_cases); ++i)
        for (known = 0; known < 2; ++known) {
            const struct quant_case *k = &quant_cases[i];
            int64_t n = 1, pn = k->per ? k->per : 1, d;
            void *zp = narrow(k->qtype, k->zp, pn);
            mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, k->rank, k->dims, k->x);
            mmd_tensor ts = tensor_at("s", MMD_DTYPE_FLOAT32, k->per ? 1 : 0, &pn, (uintptr_t)k->scale, known);
            mmd_tensor tz = tensor_at("z", k->qtype, k->per ? 1 : 0, &pn, (uintptr_t)zp, known);
            mmd_tensor ty, *in[3];
            mmd_attr axis = attr_int("axis", k->axis);
            mmd_error err;
            in[0] = &tx, in[1] = &ts, in[2] = &tz;
            for (d = 0; d < k->rank; ++d) n *= k->dims[d];
            CHECK(run_op1("QuantizeLinear", 13, &axis, 1, in, 3, &ty, &err) == MMD_OK);
            check_ints(&ty, k->qtype, k->want, n, k->name);
            free_output(&ty);
            free(zp);
        }
}

static void dequantize_matches_numpy(void) {
    size_t i;
    for (i = 0; i < COUNT(dequant_cases); ++i) {
        const struct dequant_case *k = &dequant_cases[i];
        int64_t n = 1, pn = k->per ? k->per : 1, d;
        void *x, *zp = narrow(k->qtype, k->zp, pn);
        mmd_tensor tx, ts, tz, ty, *in[3];
        mmd_attr axis = attr_int("axis", k->axis);
        mmd_error err;
        for (d = 0; d < k->rank; ++d) n *= k->dims[d];
        x = narrow(k->qtype, k->x, n);
        tx = tensor("x", k->qtype, k->rank, k->dims, x);
        ts = tensor("s", MMD_DTYPE_FLOAT32, k->per ? 1 : 0, &pn, k->scale);
        tz = tensor("z", k->qtype, k->per ? 1 : 0, &pn, zp);
        in[0] = &tx, in[1] = &ts, in[2] = &tz;
        CHECK(run_op1("DequantizeLinear", 13, &axis, 1, in, 3, &ty, &err) == MMD_OK);
        check_f32_tol(&ty, k->want, n, 0.0);
        free_output(&ty);
        free(x);
        free(zp);
    }
}

static void dynamic_quantize_matches_onnxruntime_rule(void) {
    size_t i;
    for (i = 0; i < COUNT(dynamic_cases); ++i) {
        const struct dynamic_case *k = &dynamic_cases[i];
        mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, &k->n, k->x);
        mmd_tensor ty = output("y"), ts = output("s"), tz = output("z");
        mmd_tensor *in[1], *out[3];
        op_case t;
        in[0] = &tx, out[0] = &ty, out[1] = &ts, out[2] = &tz;
        CHECK(case_run(&t, "DynamicQuantizeLinear", 11, NULL, 0, in, 1, out, 3) == MMD_OK);
        check_ints(&ty, MMD_DTYPE_UINT8, k->want, k->n, k->name);
        CHECK(ts.rank == 0 && *(const float *)ts.data == k->scale);
        CHECK(tz.rank == 0 && *(const uint8_t *)tz.data == k->zp);
        case_free(&t);
    }
}

static void qmatmul_matches_numpy(void) {
    size_t i;
    int32_t run;
    for (i = 0; i < COUNT(qmatmul_cases); ++i)
        for (run = 0; run < 3; ++run) {
            /* run 0: B constant, one thread; 1: B constant, three; 2: B computed at run time. */
            const struct qmatmul_case *k = &qmatmul_cases[i];
            int32_t qlinear = k->y_type != MMD_DTYPE_INT32, d;
            int64_t na = 1, nb = 1, nw = 1, one = 1;
            void *a, *b, *za = narrow(k->a_type, k->a_zp, k->a_zn), *zb = narrow(k->b_type, k->b_zp, k->b_zn);
            uint8_t yzp = (uint8_t)k->y_zp;
            mmd_tensor ta, tb, tza, tzb, tas, tbs, tys, tyz, ty = output("y"), *in[8], *out[1];
            op_case t;
            for (d = 0; d < k->a_rank; ++d) na *= k->a_dims[d];
            for (d = 0; d < k->b_rank; ++d) nb *= k->b_dims[d];
            a = narrow(k->a_type, k->a, na);
            b = narrow(k->b_type, k->b, nb);
            ta = tensor("a", k->a_type, k->a_rank, k->a_dims, a);
            tb = tensor_at("b", k->b_type, k->b_rank, k->b_dims, (uintptr_t)b, run < 2);
            tza = tensor("a_zp", k->a_type, k->a_zn > 1, &k->a_zn, za);
            tzb = tensor("b_zp", k->b_type, k->b_zn > 1, &k->b_zn, zb);
            tas = tensor("a_scale", MMD_DTYPE_FLOAT32, 0, &one, &k->a_scale);
            tbs = tensor("b_scale", MMD_DTYPE_FLOAT32, k->b_sn > 1, &k->b_sn, k->b_scale);
            tys = tensor("y_scale", MMD_DTYPE_FLOAT32, 0, &one, &k->y_scale);
            tyz = tensor("y_zp", k->y_type, 0, &one, &yzp);
            if (qlinear) in[0] = &ta, in[1] = &tas, in[2] = &tza, in[3] = &tb, in[4] = &tbs, in[5] = &tzb, in[6] = &tys, in[7] = &tyz;
            else in[0] = &ta, in[1] = &tb, in[2] = &tza, in[3] = &tzb;
            out[0] = &ty;
            for (d = 0; d < k->a_rank - 1; ++d) nw *= k->a_dims[d];
            nw *= k->b_dims[k->b_rank - 1];
            CHECK(run_threads(&t, qlinear ? "QLinearMatMul" : "MatMulInteger", 10, NULL, 0, in, qlinear ? 8 : 4, out, 1,
                              run == 1 ? 3 : 1) == MMD_OK);
            if (t.err.status) fprintf(stderr, "%s: %s\n", k->name, t.err.msg);
            check_ints(&ty, k->y_type, k->want, nw, k->name);
            case_free(&t);
            free(a);
            free(b);
            free(za);
            free(zb);
        }
}

/* want[i] clamped as QLinearConv's fused Relu (act 1) or Clip [lo, hi] (act 2) clamps: to the
   bounds quantized with y's scale and zero point (QuantizeLinear's float quotient, rounded half
   to even, saturated), Relu's lower bound the zero point. */
static int32_t *clamped(const int32_t *want, int64_t n, int32_t act, float lo, float hi, float ys, int32_t zp,
                        int32_t dtype) {
    int32_t *v = (int32_t *)malloc((size_t)n * sizeof(int32_t)), tmin = dtype == MMD_DTYPE_INT8 ? -128 : 0;
    int32_t tmax = dtype == MMD_DTYPE_INT8 ? 127 : 255, qlo, qhi;
    int64_t i;
    qlo = act == 1 ? zp : (int32_t)rintf(lo / ys) + zp;
    qhi = act == 1 ? tmax : (int32_t)rintf(hi / ys) + zp;
    qlo = qlo < tmin ? tmin : qlo > tmax ? tmax : qlo;
    qhi = qhi < tmin ? tmin : qhi > tmax ? tmax : qhi;
    for (i = 0; i < n; ++i) v[i] = want[i] < qlo ? qlo : want[i] > qhi ? qhi : want[i];
    return v;
}

static void qconv_matches_numpy(void) {
    static const float bounds[2] = {-1.3f, 2.1f};
    size_t i;
    int32_t run;
    for (i = 0; i < COUNT(qconv_cases); ++i)
        for (run = 0; run < 5; ++run) {
            /* run 0: W constant, one thread; 1: W constant, three; 2: W computed at run time;
               3: a fused Relu, three threads; 4: a fused Clip, one thread (QLinearConv only). */
            const struct qconv_case *k = &qconv_cases[i];
            int32_t qlinear = k->y_type != MMD_DTYPE_INT32, d, act = run > 2 ? run - 2 : 0;
            int64_t nx = 1, nw = 1, ny = 1, one = 1;
            void *x, *w, *zx, *zw;
            uint8_t yzp = (uint8_t)k->y_zp;
            mmd_tensor tx, tw, tzx, tzw, txs, tws, tys, tyz, tb, ty = output("y"), *in[9], *out[1];
            mmd_attr attrs[6];
            op_case t;
            int32_t *want;
            if (act && !qlinear) continue;
            zx = narrow(k->x_type, &k->x_zp, 1);
            zw = narrow(k->w_type, k->w_zp, k->w_zn);
            for (d = 0; d < 4; ++d) nx *= k->x_dims[d], nw *= k->w_dims[d], ny *= k->y_dims[d];
            x = narrow(k->x_type, k->x, nx);
            w = narrow(k->w_type, k->w, nw);
            tx = tensor("x", k->x_type, 4, k->x_dims, x);
            tw = tensor_at("w", k->w_type, 4, k->w_dims, (uintptr_t)w, run < 2);
            tzx = tensor("x_zp", k->x_type, 0, &one, zx);
            tzw = tensor("w_zp", k->w_type, k->w_zn > 1, &k->w_zn, zw);
            txs = tensor("x_scale", MMD_DTYPE_FLOAT32, 0, &one, &k->x_scale);
            tws = tensor("w_scale", MMD_DTYPE_FLOAT32, k->w_zn > 1, &k->w_zn, k->w_scale);
            tys = tensor("y_scale", MMD_DTYPE_FLOAT32, 0, &one, &k->y_scale);
            tyz = tensor("y_zp", k->y_type, 0, &one, &yzp);
            tb = tensor("bias", MMD_DTYPE_INT32, 1, k->w_dims, k->bias);
            if (qlinear)
                in[0] = &tx, in[1] = &txs, in[2] = &tzx, in[3] = &tw, in[4] = &tws, in[5] = &tzw, in[6] = &tys,
                in[7] = &tyz, in[8] = &tb;
            else in[0] = &tx, in[1] = &tw, in[2] = &tzx, in[3] = &tzw;
            out[0] = &ty;
            attrs[0] = attr_ints("strides", k->strides, 2);
            attrs[1] = attr_ints("pads", k->pads, 4);
            attrs[2] = attr_ints("dilations", k->dilations, 2);
            attrs[3] = attr_int("group", k->group);
            attrs[4] = attr_string("activation", act == 1 ? "Relu" : "Clip");
            attrs[5] = attr_floats("activation_params", bounds, 2);
            CHECK(run_threads(&t, qlinear ? "QLinearConv" : "ConvInteger", 10, attrs, act ? 4 + act : 4, in,
                              qlinear ? 9 : 4, out, 1, run == 1 || run == 3 ? 3 : 1) == MMD_OK);
            if (t.err.status) fprintf(stderr, "%s: %s\n", k->name, t.err.msg);
            check_dims(&ty, 4, k->y_dims);
            want = act ? clamped(k->want, ny, act, bounds[0], bounds[1], k->y_scale, k->y_zp, k->y_type) : NULL;
            check_ints(&ty, k->y_type, want ? want : k->want, ny, k->name);
            free(want);
            case_free(&t);
            if (act == 2 && k->group == 1) {
                /* Activations an integer clamp cannot apply are refused at prepare. */
                attrs[4] = attr_string("activation", "Tanh");
                CHECK(run_threads(&t, "QLinearConv", 10, attrs, 5, in, 9, out, 1, 1) == MMD_ERR_INVALID_MODEL);
                CHECK(strstr(t.err.msg, "activation Relu or Clip only") != NULL);
                case_free(&t);
            }
            free(x);
            free(w);
            free(zx);
            free(zw);
        }
}

/* QuantizeLinear on x[6] = {0..5} shaped [2, 3] with the given scale and zero point shapes;
   the status of prepare (known 1) or eval (known 0), and the message in err. */
static mmd_status quantize_with(const float *scale, int64_t sn, int32_t s_rank, int32_t zdtype, int64_t zn,
                                int64_t axis, int32_t known, mmd_error *err) {
    static const float x[6] = {0, 1, 2, 3, 4, 5};
    static const int64_t xd[2] = {2, 3};
    int32_t zp[4] = {0, 0, 0, 0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x);
    mmd_tensor ts = tensor_at("scale", MMD_DTYPE_FLOAT32, s_rank, &sn, (uintptr_t)scale, known);
    mmd_tensor tz = tensor("zp", zdtype, zn > 0, &zn, zp);
    mmd_tensor ty, *in[3];
    mmd_attr a = attr_int("axis", axis);
    in[0] = &tx, in[1] = &ts, in[2] = &tz;
    ty = output("y");
    {
        mmd_status st = run_op1("QuantizeLinear", 13, &a, 1, in, zn >= 0 ? 3 : 2, &ty, err);
        free_output(&ty);
        return st;
    }
}

static void hostile_quantize_parameters_are_refused(void) {
    static const float zero[1] = {0.0f}, neg[1] = {-0.5f}, inf[1] = {INFINITY}, three[3] = {1.0f, 0.5f, 0.25f};
    const float nan[1] = {NAN};
    const float *bad[4];
    mmd_error err;
    int32_t i, known;
    bad[0] = zero, bad[1] = neg, bad[2] = nan, bad[3] = inf;
    for (i = 0; i < 4; ++i)
        for (known = 0; known < 2; ++known) {
            CHECK(quantize_with(bad[i], 1, 0, MMD_DTYPE_UINT8, 0, 1, known, &err) == MMD_ERR_INVALID_MODEL);
            CHECK(strstr(err.msg, "scales must be positive and finite") != NULL);
        }
    /* per-axis: 3 scales on axis 0 of [2, 3], axis 2 of rank 2, zero points of another length
       or type. */
    CHECK(quantize_with(three, 3, 1, MMD_DTYPE_UINT8, -1, 0, 1, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "expects one value or 2") != NULL);
    CHECK(quantize_with(three, 3, 1, MMD_DTYPE_UINT8, -1, 2, 1, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "axis 2 is out of range") != NULL);
    CHECK(quantize_with(three, 3, 1, MMD_DTYPE_UINT8, -1, -3, 1, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(quantize_with(three, 3, 1, MMD_DTYPE_INT8, 2, 1, 1, &err) == MMD_ERR_SHAPE);
    CHECK(quantize_with(three, 3, 1, MMD_DTYPE_INT32, 3, 1, 1, &err) == MMD_ERR_DTYPE);
    CHECK(quantize_with(three, 3, 1, MMD_DTYPE_INT8, 3, -1, 1, &err) == MMD_OK);
    /* Blocked quantization and the opset 21 types: no kernel rather than a guess. */
    CHECK(mmd_ops_find("", "QuantizeLinear", 21) == NULL);
    CHECK(mmd_ops_find("", "DequantizeLinear", 21) == NULL);
}

static void hostile_dequantize_parameters_are_refused(void) {
    static const int32_t x[4] = {1, 2, 3, 4};
    static const float scale[1] = {0.5f};
    static const int64_t xd[1] = {4}, one = 1;
    int32_t five = 5;
    uint8_t uzp = 1;
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT32, 1, xd, x), ts = tensor("scale", MMD_DTYPE_FLOAT32, 0, &one, scale);
    mmd_tensor tz = tensor("zp", MMD_DTYPE_INT32, 0, &one, &five), ty, *in[3];
    mmd_error err;
    in[0] = &tx, in[1] = &ts, in[2] = &tz;
    CHECK(run_op1("DequantizeLinear", 13, NULL, 0, in, 3, &ty, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "int32 data takes 0") != NULL);
    tz = tensor("zp", MMD_DTYPE_UINT8, 0, &one, &uzp);
    CHECK(run_op1("DequantizeLinear", 13, NULL, 0, in, 3, &ty, &err) == MMD_ERR_DTYPE);
    free_output(&ty);
}

/* QLinearConv [1, 2, 3, 3] x [2, 2, 1, 1] with the given w_scale and y_scale and bias length. */
static mmd_status qconv_with(const float *w_scale, int64_t wsn, float y_scale, int64_t bias_n, mmd_error *err) {
    static const uint8_t x[18] = {0}, w[4] = {1, 2, 3, 4}, zp = 0;
    static const int32_t bias[3] = {0, 0, 0};
    static const int64_t xd[4] = {1, 2, 3, 3}, wd[4] = {2, 2, 1, 1}, one = 1;
    static const float xs = 0.5f;
    mmd_tensor tx = tensor("x", MMD_DTYPE_UINT8, 4, xd, x), tw = tensor("w", MMD_DTYPE_UINT8, 4, wd, w);
    mmd_tensor tz = tensor("zp", MMD_DTYPE_UINT8, 0, &one, &zp), txs = tensor("x_scale", MMD_DTYPE_FLOAT32, 0, &one, &xs);
    mmd_tensor tws = tensor("w_scale", MMD_DTYPE_FLOAT32, 1, &wsn, w_scale);
    mmd_tensor tys = tensor("y_scale", MMD_DTYPE_FLOAT32, 0, &one, &y_scale);
    mmd_tensor tb = tensor("bias", MMD_DTYPE_INT32, 1, &bias_n, bias), ty, *in[9];
    mmd_status st;
    in[0] = &tx, in[1] = &txs, in[2] = &tz, in[3] = &tw, in[4] = &tws, in[5] = &tz, in[6] = &tys, in[7] = &tz, in[8] = &tb;
    st = run_op1("QLinearConv", 10, NULL, 0, in, 9, &ty, err);
    free_output(&ty);
    return st;
}

static void hostile_product_parameters_are_refused(void) {
    static const float two[2] = {0.1f, 0.2f}, three[3] = {0.1f, 0.2f, 0.3f};
    mmd_error err;
    CHECK(qconv_with(two, 2, 1.0f, 2, &err) == MMD_OK);
    CHECK(qconv_with(three, 3, 1.0f, 2, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "w_scale") != NULL || strstr(err.msg, "scale input 4") != NULL);
    CHECK(qconv_with(two, 2, 1.0f, 3, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "bias") != NULL);
    CHECK(qconv_with(two, 2, 0.0f, 2, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(qconv_with(two, 2, NAN, 2, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "y_scale") != NULL);
    {
        /* MatMulInteger [2, 3] x [3, 2] with 3 per-row zero points for 2 rows. */
        static const uint8_t a[6] = {0}, b[6] = {0}, za[3] = {0};
        static const int64_t ad[2] = {2, 3}, bd[2] = {3, 2}, zn = 3;
        mmd_tensor ta = tensor("a", MMD_DTYPE_UINT8, 2, ad, a), tb = tensor("b", MMD_DTYPE_UINT8, 2, bd, b);
        mmd_tensor tz = tensor("a_zp", MMD_DTYPE_UINT8, 1, &zn, za), ty, *in[3];
        in[0] = &ta, in[1] = &tb, in[2] = &tz;
        CHECK(run_op1("MatMulInteger", 10, NULL, 0, in, 3, &ty, &err) == MMD_ERR_SHAPE);
        CHECK(strstr(err.msg, "expects one value or 2") != NULL);
        free_output(&ty);
    }
}

/* QLinearAdd of a and b ([2, 3, 5], dtype) with relu or not, on `threads` threads; into y. */
static mmd_status qadd_with(int32_t dtype, const void *a, const void *b, const int64_t *bd, float cs, int32_t relu,
                            int32_t threads, mmd_tensor *y, mmd_error *err) {
    static const int64_t ad[3] = {2, 3, 5}, one = 1;
    static const float as = 0.05f, bs = 0.03f;
    static const uint8_t uz[3] = {100, 140, 10};
    static const int8_t sz[3] = {-20, 12, 3};
    const void *z = dtype == MMD_DTYPE_INT8 ? (const void *)sz : (const void *)uz;
    const char *zc = (const char *)z;
    mmd_tensor ta = tensor("a", dtype, 3, ad, a), tb = tensor("b", dtype, 3, bd, b);
    mmd_tensor tas = tensor("as", MMD_DTYPE_FLOAT32, 0, &one, &as), tbs = tensor("bs", MMD_DTYPE_FLOAT32, 0, &one, &bs);
    mmd_tensor tcs = tensor("cs", MMD_DTYPE_FLOAT32, 0, &one, &cs);
    mmd_tensor taz = tensor("az", dtype, 0, &one, zc), tbz = tensor("bz", dtype, 0, &one, zc + 1);
    mmd_tensor tcz = tensor("cz", dtype, 0, &one, zc + 2), *in[8], *out[1];
    mmd_attr act = attr_string("activation", "Relu");
    op_case t;
    mmd_status st;
    in[0] = &ta, in[1] = &tas, in[2] = &taz, in[3] = &tb, in[4] = &tbs, in[5] = &tbz, in[6] = &tcs, in[7] = &tcz;
    *y = output("y");
    out[0] = y;
    memset(&t, 0, sizeof t);
    t.k = mmd_ops_find("com.microsoft", "QLinearAdd", 1);
    CHECK(t.k != NULL);
    if (!t.k) return MMD_ERR_NO_KERNEL;
    t.node.name = "n0", t.node.op_type = "QLinearAdd", t.node.domain = "com.microsoft";
    t.node.attrs = relu ? &act : NULL, t.node.attr_count = relu ? 1 : 0, t.node.opset = 1;
    t.c.node = &t.node, t.c.opset = 1, t.c.input_count = 8, t.c.inputs = in, t.c.output_count = 1, t.c.outputs = out;
    t.c.op_data = calloc(1, t.k->op_data_size + 1);
    t.c.err = &t.err, t.c.threads = threads, t.c.parallel = threads > 1 ? backwards : NULL;
    st = t.k->prepare(&t.c);
    if (st == MMD_OK) st = case_eval(&t);
    *err = t.err;
    free(t.c.op_data);
    return st;
}

/* The same through the float kernels: DequantizeLinear twice, Add, Relu, QuantizeLinear. */
static void qadd_float_chain(int32_t dtype, const void *a, const void *b, float cs, int32_t relu, mmd_tensor *y) {
    static const int64_t ad[3] = {2, 3, 5}, one = 1;
    static const float as = 0.05f, bs = 0.03f;
    static const uint8_t uz[3] = {100, 140, 10};
    static const int8_t sz[3] = {-20, 12, 3};
    const char *zc = dtype == MMD_DTYPE_INT8 ? (const char *)sz : (const char *)uz;
    mmd_tensor ta = tensor("a", dtype, 3, ad, a), tb = tensor("b", dtype, 3, ad, b);
    mmd_tensor tas = tensor("as", MMD_DTYPE_FLOAT32, 0, &one, &as), tbs = tensor("bs", MMD_DTYPE_FLOAT32, 0, &one, &bs);
    mmd_tensor tcs = tensor("cs", MMD_DTYPE_FLOAT32, 0, &one, &cs);
    mmd_tensor taz = tensor("az", dtype, 0, &one, zc), tbz = tensor("bz", dtype, 0, &one, zc + 1);
    mmd_tensor tcz = tensor("cz", dtype, 0, &one, zc + 2), fa, fb, sum, r, *in[3];
    mmd_error err;
    in[0] = &ta, in[1] = &tas, in[2] = &taz;
    CHECK(run_op1("DequantizeLinear", 13, NULL, 0, in, 3, &fa, &err) == MMD_OK);
    in[0] = &tb, in[1] = &tbs, in[2] = &tbz;
    CHECK(run_op1("DequantizeLinear", 13, NULL, 0, in, 3, &fb, &err) == MMD_OK);
    in[0] = &fa, in[1] = &fb;
    CHECK(run_op1("Add", 14, NULL, 0, in, 2, &sum, &err) == MMD_OK);
    in[0] = &sum;
    if (relu) CHECK(run_op1("Relu", 14, NULL, 0, in, 1, &r, &err) == MMD_OK);
    in[0] = relu ? &r : &sum, in[1] = &tcs, in[2] = &tcz;
    CHECK(run_op1("QuantizeLinear", 13, NULL, 0, in, 3, y, &err) == MMD_OK);
    free_output(&fa), free_output(&fb), free_output(&sum);
    if (relu) free_output(&r);
}

static void qadd_equals_the_float_chain(void) {
    static const int64_t ad[3] = {2, 3, 5};
    uint8_t a[30], b[30];
    int32_t i, dt, relu, threads;
    for (i = 0; i < 30; ++i) a[i] = (uint8_t)(i * 37 + 5), b[i] = (uint8_t)(i * 91 + 200);
    for (dt = 0; dt < 2; ++dt)
        for (relu = 0; relu < 2; ++relu)
            for (threads = 1; threads <= 3; threads += 2) {
                int32_t dtype = dt ? MMD_DTYPE_INT8 : MMD_DTYPE_UINT8;
                mmd_tensor y, want;
                mmd_error err;
                /* The sums are multiples of 0.01: in scale 0.02 some fall near a tie. */
                float cs = relu ? 0.04f : 0.02f;
                CHECK(qadd_with(dtype, a, b, ad, cs, relu, threads, &y, &err) == MMD_OK);
                qadd_float_chain(dtype, a, b, cs, relu, &want);
                CHECK(y.dtype == dtype && memcmp(y.data, want.data, 30) == 0);
                free_output(&y), free_output(&want);
            }
}

static void hostile_qadd_parameters_are_refused(void) {
    static const int64_t bd[3] = {2, 3, 1};
    uint8_t a[30] = {0}, b[30] = {0};
    mmd_tensor y;
    mmd_error err;
    CHECK(qadd_with(MMD_DTYPE_UINT8, a, b, bd, 0.04f, 0, 1, &y, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "equal shapes") != NULL);
    free_output(&y);
    {
        static const int64_t ad[3] = {2, 3, 5};
        CHECK(qadd_with(MMD_DTYPE_UINT8, a, b, ad, 0.0f, 0, 1, &y, &err) == MMD_ERR_INVALID_MODEL);
        CHECK(strstr(err.msg, "scales must be positive and finite") != NULL);
        free_output(&y);
        CHECK(qadd_with(MMD_DTYPE_UINT8, a, b, ad, NAN, 1, 1, &y, &err) == MMD_ERR_INVALID_MODEL);
        free_output(&y);
    }
}

int main(void) {
    TEST_RUN(vector_rows_equal_portable_rows);
    TEST_RUN(quantize_matches_numpy);
    TEST_RUN(dequantize_matches_numpy);
    TEST_RUN(dynamic_quantize_matches_onnxruntime_rule);
    TEST_RUN(qmatmul_matches_numpy);
    TEST_RUN(qconv_matches_numpy);
    TEST_RUN(hostile_quantize_parameters_are_refused);
    TEST_RUN(hostile_dequantize_parameters_are_refused);
    TEST_RUN(hostile_product_parameters_are_refused);
    TEST_RUN(qadd_equals_the_float_chain);
    TEST_RUN(hostile_qadd_parameters_are_refused);
    return test_summary();
}
