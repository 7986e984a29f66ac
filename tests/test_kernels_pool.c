/* tests/test_kernels_pool.c - the row path of MaxPool and AveragePool (one or two spatial axes,
   no dilation, no Indices output) against the generic loops of the same kernels. The generic
   loops serve a 3-D pool, so each case also runs as a 3-D pool over two copies of the input
   stacked on a depth axis (kernel 1 there): both depth slices must equal the 2-D result. Each
   case runs with 1, 2 and 3 threads (shares run last first), which must give the same bytes.
   The inputs are quarter-integers (ramp), whose sums are exact, so the two paths agree bit for
   bit although they add in different orders. MaxPool of int8 and uint8 (row path only) is held
   to MaxPool of the same values as floats. MaxPool is also run with NaN among its inputs. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"

typedef struct pool_case {
    const char *op;
    int64_t n, c, h, w;                 /* h = 0: a 1-D pool over w */
    int64_t kernel[2], strides[2], pads[4];
    int64_t ceil_mode, count_include_pad;
} pool_case;

/* Every nan_every-th input element (from the third on) NaN, when set (maxpool_nan_matches_reference). */
static int64_t nan_every;
/* When set, the AVX-512 row kind (mmd__pool_data's vec) each case must take on a CPU with
   AVX-512 (0 elsewhere), so that a case meant for a path is known to run it. */
static int32_t want_vec;

static void check_vec(const op_case *f) {
    if (want_vec) CHECK(((const mmd__pool_data *)f->c.op_data)->vec == (mmd__isa() == MMD__ISA_AVX512 ? want_vec : 0));
}

/* MaxPool of pc over x by its definition with NaN: NaN where the window holds one, else the
   maximum of the window's input elements (-FLT_MAX for a window past the input, ceil_mode).
   Counts the outputs of y (oh x ow a plane) that differ, NaN matching NaN. */
static int64_t maxpool_nan_mismatches(const pool_case *pc, const float *x, const float *y, int64_t oh, int64_t ow) {
    int64_t ih = pc->h ? pc->h : 1, iw = pc->w, kh = pc->h ? pc->kernel[0] : 1, sh = pc->h ? pc->strides[0] : 1;
    int64_t pt = pc->h ? pc->pads[0] : 0, pl, oy, ox, ty, tx, bad = 0;
    for (pl = 0; pl < pc->n * pc->c; ++pl)
        for (oy = 0; oy < oh; ++oy)
            for (ox = 0; ox < ow; ++ox) {
                float m = -FLT_MAX, got = y[(pl * oh + oy) * ow + ox];
                int32_t nan = 0;
                for (ty = 0; ty < kh; ++ty)
                    for (tx = 0; tx < pc->kernel[1]; ++tx) {
                        int64_t iy = oy * sh - pt + ty, ix = ox * pc->strides[1] - pc->pads[1] + tx;
                        float v;
                        if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) continue;
                        v = x[(pl * ih + iy) * iw + ix];
                        nan |= v != v;
                        m = v > m ? v : m;
                    }
                bad += nan ? got == got : got != m;
            }
    return bad;
}

/* Runs one case both ways and compares. */
static void check_pool(const pool_case *pc) {
    int32_t sp = pc->h ? 2 : 1, nattr = 0, threads, i;
    int64_t dims[4] = {pc->n, pc->c, pc->h ? pc->h : pc->w, pc->w}, dims3[5];
    int64_t kernel3[3] = {1, pc->kernel[0], pc->kernel[1]}, strides3[3] = {1, pc->strides[0], pc->strides[1]};
    int64_t pads3[6] = {0, pc->pads[0], pc->pads[1], 0, pc->pads[2], pc->pads[3]}, pads1[2];
    int64_t plane = pc->h ? pc->h * pc->w : pc->w, n = pc->n * pc->c * plane, k, planes = pc->n * pc->c, half;
    float *x = (float *)malloc((size_t)n * sizeof(float)), *x3 = (float *)malloc((size_t)(2 * n) * sizeof(float));
    float *first = NULL;
    int32_t split = harness_split_loops;
    mmd_attr attrs[5], attrs3[5];
    mmd_tensor tx, tx3, out = output("y"), out3 = output("y3"), *in[1], *o[1], *o3[1];
    op_case t;
    ramp(x, n, 7, 23);
    for (k = 2; nan_every && k < n; k += nan_every) x[k] = NAN;
    for (k = 0; k < planes; ++k) {
        memcpy(x3 + 2 * k * plane, x + k * plane, (size_t)plane * sizeof(float));
        memcpy(x3 + (2 * k + 1) * plane, x + k * plane, (size_t)plane * sizeof(float));
    }
    if (!pc->h) {
        dims[2] = pc->w;
        pads1[0] = pc->pads[1];
        pads1[1] = pc->pads[3];
    }
    attrs[nattr] = attr_ints("kernel_shape", pc->h ? pc->kernel : pc->kernel + 1, sp);
    attrs3[nattr++] = attr_ints("kernel_shape", pc->h ? kernel3 : kernel3 + 1, sp + 1);
    attrs[nattr] = attr_ints("strides", pc->h ? pc->strides : pc->strides + 1, sp);
    attrs3[nattr++] = attr_ints("strides", pc->h ? strides3 : strides3 + 1, sp + 1);
    attrs[nattr] = attr_ints("pads", pc->h ? pc->pads : pads1, 2 * sp);
    attrs3[nattr++] = attr_ints("pads", pads3, 6);
    attrs[nattr] = attr_int("ceil_mode", pc->ceil_mode);
    attrs3[nattr++] = attr_int("ceil_mode", pc->ceil_mode);
    if (!strcmp(pc->op, "AveragePool")) {
        attrs[nattr] = attr_int("count_include_pad", pc->count_include_pad);
        attrs3[nattr++] = attr_int("count_include_pad", pc->count_include_pad);
    }
    if (!pc->h) {
        /* A 1-D pool's 3-D twin is [N, C, 2, 1, W]; its pads were written for [N, C, 2, H, W]. */
        pads3[1] = pads3[4] = 0;
        pads3[2] = pc->pads[1];
        pads3[5] = pc->pads[3];
        attrs3[0] = attr_ints("kernel_shape", kernel3, 3);
        attrs3[1] = attr_ints("strides", strides3, 3);
        kernel3[1] = 1;
        strides3[1] = 1;
    }
    dims3[0] = pc->n;
    dims3[1] = pc->c;
    dims3[2] = 2;
    dims3[3] = pc->h ? pc->h : 1;
    dims3[4] = pc->w;
    tx3 = tensor("x3", MMD_DTYPE_FLOAT32, 5, dims3, x3);
    in[0] = &tx3;
    o3[0] = &out3;
    CHECK(case_run(&t, pc->op, 11, attrs3, nattr, in, 1, o3, 1) == MMD_OK);
    if (nan_every) {
        /* The generic loops take a NaN only as a window's first element (the firmware's loop,
           left as it is), so the row path is held to the definition instead. */
        tx = tensor("x", MMD_DTYPE_FLOAT32, 2 + sp, dims, x);
        in[0] = &tx;
        o[0] = &out;
        for (threads = 1; threads <= 3; threads += 2) {
            op_case f;
            out = output("y");
            CHECK(case_prepare_threads(&f, threads, pc->op, 11, attrs, nattr, in, 1, o, 1) == MMD_OK);
            CHECK(f.c.scratch_size > 0);
            check_vec(&f);
            CHECK(case_eval(&f) == MMD_OK);
            CHECK(maxpool_nan_mismatches(pc, x, (const float *)out.data, pc->h ? out.dims[2] : 1, out.dims[out.rank - 1]) == 0);
            case_free(&f);
        }
        case_free(&t);
        free(x);
        free(x3);
        return;
    }
    for (threads = 1; threads <= 3; ++threads) {
        op_case f;
        tx = tensor("x", MMD_DTYPE_FLOAT32, 2 + sp, dims, x);
        in[0] = &tx;
        out = output("y");
        o[0] = &out;
        CHECK(case_prepare_threads(&f, threads, pc->op, 11, attrs, nattr, in, 1, o, 1) == MMD_OK);
        CHECK(f.c.scratch_size > 0); /* the row path, not the generic loops */
        check_vec(&f);
        CHECK(case_eval(&f) == MMD_OK);
        half = mmd_tensor_numel(&out) / planes;
        CHECK(mmd_tensor_numel(&out3) == 2 * mmd_tensor_numel(&out));
        for (k = 0; k < planes && half * planes == mmd_tensor_numel(&out); ++k)
            for (i = 0; i < 2; ++i)
                CHECK(memcmp((const float *)out.data + k * half, (const float *)out3.data + (2 * k + i) * half,
                             (size_t)half * sizeof(float)) == 0);
        if (threads == 1) {
            first = (float *)malloc((size_t)mmd_tensor_numel(&out) * sizeof(float) + 1);
            memcpy(first, out.data, (size_t)mmd_tensor_numel(&out) * sizeof(float));
        } else {
            CHECK(memcmp(first, out.data, (size_t)mmd_tensor_numel(&out) * sizeof(float)) == 0);
        }
        case_free(&f);
    }
    case_free(&t);
    /* The big cases are split three ways (a share is at least 1 << 16 input elements). */
    CHECK(harness_split_loops == split + (n >= 3 << 16 ? 2 : 0));
    free(first);
    free(x);
    free(x3);
}

/* Every case with every nan_every of every (0: no NaN). */
static void check_pools_nan(const pool_case *cases, size_t n, const int64_t *every, size_t ne) {
    size_t i, e;
    for (e = 0; e < ne; ++e)
        for (i = 0; i < n; ++i) {
            nan_every = every[e];
            check_pool(&cases[i]);
        }
    nan_every = 0;
}

/* ResNet's stem pool (3x3, stride 2, pads 1) and the shapes around it: widths that are no
   multiple of the vector width, ceil_mode, stride 1 with pads 2 (YOLO's SPPF), uneven pads. */
static void maxpool_rows_match_generic(void) {
    static const pool_case cases[] = {
        {"MaxPool", 1, 3, 17, 23, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 2, 5, 16, 16, {2, 2}, {2, 2}, {0, 0, 0, 0}, 0, 0},
        {"MaxPool", 1, 4, 13, 37, {5, 5}, {1, 1}, {2, 2, 2, 2}, 0, 0},
        {"MaxPool", 1, 2, 10, 11, {3, 3}, {2, 2}, {0, 1, 1, 0}, 1, 0},
        {"MaxPool", 1, 3, 9, 9, {3, 2}, {1, 3}, {1, 0, 1, 1}, 1, 0},
        {"MaxPool", 2, 3, 0, 29, {1, 4}, {1, 3}, {0, 1, 0, 2}, 1, 0},
        {"MaxPool", 1, 64, 56, 56, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        /* Stride 2 through the AVX-512 path's sixteen outputs at a time and its masked tail:
           38 and 35 outputs a row, kernels of 3, 5 and 4 (odd and even taps), and 1-D. */
        {"MaxPool", 1, 2, 9, 75, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 1, 2, 7, 70, {3, 5}, {2, 2}, {1, 2, 1, 2}, 1, 0},
        {"MaxPool", 2, 3, 0, 101, {1, 4}, {1, 2}, {0, 1, 0, 1}, 0, 0},
        /* The AVX-512 row path at stride 1 over rows of three vectors, at stride 2 with
           ceil_mode over ResNet's 112 columns, and a window of more rows than it takes (17). */
        {"MaxPool", 1, 2, 11, 40, {3, 3}, {1, 1}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 1, 2, 12, 112, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1, 0},
        {"MaxPool", 1, 1, 20, 40, {17, 3}, {2, 2}, {8, 1, 8, 1}, 0, 0},
        /* The AVX-512 row's widest windows, 17 columns (a shift of 16 into the next block of
           maxima) at strides 1 and 2, and 18 (the scalar path). */
        {"MaxPool", 1, 2, 5, 70, {3, 17}, {1, 1}, {1, 8, 1, 8}, 0, 0},
        {"MaxPool", 1, 2, 5, 99, {2, 17}, {2, 2}, {0, 3, 1, 16}, 0, 0},
        {"MaxPool", 1, 2, 5, 70, {3, 18}, {2, 2}, {1, 9, 1, 9}, 0, 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_pool(&cases[i]);
}

/* The 3x3 stride-2 rows (mmd__pool_max3s2_avx512): left pads 1 and 0, widths around its
   blocks of 32 columns (15 to 70 outputs), odd and even heights with and without ceil_mode
   (a last window of one or two rows), right pads that differ from the left, ResNet's
   112 x 112; then NaN, densely and sparsely, also in column 0 with no left pad. */
static void maxpool_3x3s2_rows_match_generic(void) {
    static const pool_case cases[] = {
        {"MaxPool", 1, 2, 9, 31, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 1, 2, 8, 32, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1, 0},
        {"MaxPool", 1, 2, 10, 33, {3, 3}, {2, 2}, {1, 0, 1, 0}, 0, 0},
        {"MaxPool", 1, 2, 11, 64, {3, 3}, {2, 2}, {0, 0, 0, 0}, 1, 0},
        {"MaxPool", 2, 2, 12, 65, {3, 3}, {2, 2}, {0, 0, 1, 1}, 0, 0},
        {"MaxPool", 1, 2, 7, 95, {3, 3}, {2, 2}, {1, 0, 0, 2}, 1, 0},
        {"MaxPool", 1, 3, 5, 140, {3, 3}, {2, 2}, {2, 1, 2, 1}, 1, 0},
        {"MaxPool", 1, 8, 112, 112, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
    };
    static const int64_t every[] = {0, 5, 61};
    want_vec = 2;
    check_pools_nan(cases, sizeof cases / sizeof cases[0], every, sizeof every / sizeof every[0]);
    {
        /* NaNs at 2, 120 and 238: output row 1 (input rows 2 to 4) holds one NaN only, in
           column 0 of row 3, which with no left pad no block loads. */
        static const pool_case c0 = {"MaxPool", 1, 1, 6, 40, {3, 3}, {2, 2}, {0, 0, 0, 0}, 0, 0};
        nan_every = 118;
        check_pool(&c0);
    }
    nan_every = 0;
    want_vec = 0;
}

/* NaN inputs, densely (most windows hold one) and sparsely: a window that holds a NaN gives
   NaN, at the edges and inside the rows, at strides 1 and 2 and in 1-D. */
static void maxpool_nan_matches_reference(void) {
    static const pool_case cases[] = {
        {"MaxPool", 1, 3, 17, 23, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 1, 2, 9, 75, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 1, 4, 13, 37, {5, 5}, {1, 1}, {2, 2, 2, 2}, 0, 0},
        {"MaxPool", 1, 2, 10, 11, {3, 3}, {2, 2}, {0, 1, 1, 0}, 1, 0},
        {"MaxPool", 2, 3, 0, 101, {1, 4}, {1, 2}, {0, 1, 0, 1}, 0, 0},
        {"MaxPool", 1, 2, 5, 99, {2, 17}, {2, 2}, {0, 3, 1, 16}, 0, 0},
    };
    static const int64_t every[] = {7, 97};
    check_pools_nan(cases, sizeof cases / sizeof cases[0], every, sizeof every / sizeof every[0]);
}

/* MaxPool on int8 and uint8 (the row path on bytes, as the QDQ rewrite runs it) against
   MaxPool on the same values as floats, with 1 and 3 threads; then what it refuses: a 3-D
   window and an Indices output. */
static void maxpool_bytes_match_float(void) {
    static const pool_case cases[] = {
        {"MaxPool", 1, 3, 17, 23, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 2, 5, 16, 16, {2, 2}, {2, 2}, {0, 0, 0, 0}, 0, 0},
        {"MaxPool", 1, 4, 13, 37, {5, 5}, {1, 1}, {2, 2, 2, 2}, 0, 0},
        {"MaxPool", 1, 2, 10, 11, {3, 3}, {2, 2}, {0, 1, 1, 0}, 1, 0},
        {"MaxPool", 2, 3, 0, 29, {1, 4}, {1, 3}, {0, 1, 0, 2}, 1, 0},
        /* Rows wide enough for the sixteen-output SSE2 path (stride 2: ResNet's stem, 112 wide). */
        {"MaxPool", 1, 3, 9, 70, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"MaxPool", 1, 2, 6, 112, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
    };
    static const int64_t k3[3] = {1, 2, 2}, d5[5] = {1, 1, 2, 4, 4};
    size_t ci;
    int32_t dt, threads;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci)
        for (dt = 0; dt < 2; ++dt) {
            const pool_case *pc = &cases[ci];
            int32_t sp = pc->h ? 2 : 1, dtype = dt ? MMD_DTYPE_INT8 : MMD_DTYPE_UINT8;
            int64_t dims[4] = {pc->n, pc->c, pc->h ? pc->h : pc->w, pc->w}, pads1[2] = {pc->pads[1], pc->pads[3]};
            int64_t n = pc->n * pc->c * (pc->h ? pc->h * pc->w : pc->w), i, m;
            uint8_t *xb = (uint8_t *)malloc((size_t)n);
            float *xf = (float *)malloc((size_t)n * sizeof(float));
            mmd_attr attrs[4];
            mmd_tensor tx, out, *in[1], *o[1];
            op_case f, b;
            for (i = 0; i < n; ++i) {
                xb[i] = (uint8_t)((i * 73 + 11) % 251);
                xf[i] = dt ? (float)(int8_t)xb[i] : (float)xb[i];
            }
            attrs[0] = attr_ints("kernel_shape", pc->h ? pc->kernel : pc->kernel + 1, sp);
            attrs[1] = attr_ints("strides", pc->h ? pc->strides : pc->strides + 1, sp);
            attrs[2] = attr_ints("pads", pc->h ? pc->pads : pads1, 2 * sp);
            attrs[3] = attr_int("ceil_mode", pc->ceil_mode);
            tx = tensor("x", MMD_DTYPE_FLOAT32, 2 + sp, dims, xf);
            in[0] = &tx;
            out = output("y");
            o[0] = &out;
            CHECK(case_run(&f, "MaxPool", 12, attrs, 4, in, 1, o, 1) == MMD_OK);
            for (threads = 1; threads <= 3; threads += 2) {
                mmd_tensor outb = output("yb"), *ob[1];
                tx = tensor("x", dtype, 2 + sp, dims, xb);
                in[0] = &tx;
                ob[0] = &outb;
                CHECK(case_prepare_threads(&b, threads, "MaxPool", 12, attrs, 4, in, 1, ob, 1) == MMD_OK);
                CHECK(case_eval(&b) == MMD_OK);
                CHECK(outb.dtype == dtype && mmd_tensor_numel(&outb) == mmd_tensor_numel(&out));
                for (i = 0, m = 0; i < mmd_tensor_numel(&out) && outb.dtype == dtype; ++i)
                    m += (float)mmd__load_int(dtype, outb.data, i) != ((const float *)out.data)[i];
                CHECK(m == 0);
                case_free(&b);
            }
            case_free(&f);
            free(xb);
            free(xf);
        }
    {
        uint8_t x[16] = {0};
        mmd_tensor tx = tensor("x", MMD_DTYPE_UINT8, 5, d5, x), out = output("y"), idx = output("i"), *in[1], *o[2];
        mmd_attr a = attr_ints("kernel_shape", k3, 3);
        op_case t;
        in[0] = &tx;
        o[0] = &out;
        CHECK(case_run(&t, "MaxPool", 12, &a, 1, in, 1, o, 1) == MMD_ERR_UNSUPPORTED);
        CHECK(strstr(t.err.msg, "1-D or 2-D windows") != NULL);
        case_free(&t);
        tx = tensor("x", MMD_DTYPE_UINT8, 4, d5 + 1, x);
        a = attr_ints("kernel_shape", k3 + 1, 2);
        out = output("y");
        o[1] = &idx;
        CHECK(case_run(&t, "MaxPool", 12, &a, 1, in, 1, o, 2) == MMD_ERR_UNSUPPORTED);
        CHECK(strstr(t.err.msg, "no Indices output") != NULL);
        case_free(&t);
    }
}

/* The same shapes averaged, with and without count_include_pad. */
static void averagepool_rows_match_generic(void) {
    static const pool_case cases[] = {
        {"AveragePool", 1, 3, 17, 23, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
        {"AveragePool", 1, 3, 17, 23, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 1},
        {"AveragePool", 2, 5, 16, 16, {2, 2}, {2, 2}, {0, 0, 0, 0}, 0, 0},
        {"AveragePool", 1, 4, 13, 37, {5, 5}, {1, 1}, {2, 2, 2, 2}, 0, 1},
        {"AveragePool", 1, 2, 10, 11, {3, 3}, {2, 2}, {0, 1, 1, 0}, 1, 1},
        {"AveragePool", 1, 2, 10, 11, {3, 3}, {2, 2}, {0, 1, 1, 0}, 1, 0},
        {"AveragePool", 2, 3, 0, 29, {1, 4}, {1, 3}, {0, 1, 0, 2}, 1, 1},
        {"AveragePool", 1, 64, 56, 56, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_pool(&cases[i]);
}

int main(void) {
    TEST_RUN(maxpool_rows_match_generic);
    TEST_RUN(maxpool_nan_matches_reference);
    TEST_RUN(maxpool_3x3s2_rows_match_generic);
    TEST_RUN(averagepool_rows_match_generic);
    TEST_RUN(maxpool_bytes_match_float);
    return test_summary();
}
