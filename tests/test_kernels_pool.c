/* tests/test_kernels_pool.c - the row path of MaxPool and AveragePool (one or two spatial axes,
   no dilation, no Indices output) against the generic loops of the same kernels. The generic
   loops serve a 3-D pool, so each case also runs as a 3-D pool over two copies of the input
   stacked on a depth axis (kernel 1 there): both depth slices must equal the 2-D result. Each
   case runs with 1, 2 and 3 threads (shares run last first), which must give the same bytes.
   The inputs are quarter-integers (ramp), whose sums are exact, so the two paths agree bit for
   bit although they add in different orders. */
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
    for (threads = 1; threads <= 3; ++threads) {
        op_case f;
        tx = tensor("x", MMD_DTYPE_FLOAT32, 2 + sp, dims, x);
        in[0] = &tx;
        out = output("y");
        o[0] = &out;
        CHECK(case_prepare_threads(&f, threads, pc->op, 11, attrs, nattr, in, 1, o, 1) == MMD_OK);
        CHECK(f.c.scratch_size > 0); /* the row path, not the generic loops */
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
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_pool(&cases[i]);
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
    TEST_RUN(averagepool_rows_match_generic);
    return test_summary();
}
