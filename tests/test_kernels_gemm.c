/* tests/test_kernels_gemm.c - the blocked matrix product under Conv, Gemm and MatMul
   (`>>ops gemm`): every micro-kernel this CPU can run (and the portable one) against a product
   summed in double, over shapes that leave edge tiles in both directions and span several K, M
   and N blocks; each way of giving A and B (strided, packed, read in place through row
   offsets); the start values (bias, C's old contents) and the fused activations; and results
   that stay bit-identical when the work is split over threads. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* A fake thread hook: runs the shares backwards, so a share that depended on another's output
   or wrote outside its own block would change the result. */
static void backwards(void *user, mmd_task_fn task, void *ctx, int32_t count) {
    int32_t i;
    (void)user;
    for (i = count - 1; i >= 0; --i) task(ctx, i);
}

static void fill(float *x, int64_t n, uint32_t seed) {
    int64_t i;
    for (i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 9) & 0xffff) / 32768.0f - 1.0f;
    }
}

/* The ways of handing B to the product. */
enum { B_STRIDED, B_TRANSPOSED, B_PACKED, B_ROWS };

typedef struct gemm_case {
    int64_t m, n, k;
    int32_t isa, bmode, apacked, bias, load, act, threads;
    int64_t ldb;                        /* B's row stride, n if 0 */
    int32_t c0;                         /* with load: the start values come as mmd__gemm.c0 */
} gemm_case;

/* Runs one case and compares with the double-precision product; returns the largest error
   relative to the sum of |terms| (the bound a float sum in any order meets). out, when not
   NULL, receives C. */
static double run_case(const gemm_case *t, float *out) {
    int64_t m = t->m, n = t->n, k = t->k, ldb = t->ldb ? t->ldb : n, i, j, p;
    float *a = (float *)malloc((size_t)(m * k + 1) * sizeof(float));
    float *b = (float *)malloc((size_t)(k * ldb + 1) * sizeof(float));
    float *bt = (float *)malloc((size_t)(k * n + 1) * sizeof(float));
    float *cm = (float *)malloc((size_t)(m * n + 1) * sizeof(float));
    float *c0 = (float *)malloc((size_t)(m * n + 1) * sizeof(float));
    float *bias = (float *)malloc((size_t)(m + 1) * sizeof(float));
    float *ap = (float *)malloc((size_t)(mmd__gemm_packed_a_size(m, k, t->isa) + 1) * sizeof(float));
    float *bp = (float *)malloc((size_t)(mmd__gemm_packed_b_size(k, n, t->isa) + 1) * sizeof(float));
    int64_t *rows = (int64_t *)malloc((size_t)(k + 1) * sizeof(int64_t));
    size_t scratch_size = (size_t)mmd__gemm_scratch(m, n, k, t->isa, t->threads);
    void *scratch = malloc(scratch_size);
    mmd_kernel_ctx c;
    mmd__gemm g;
    double worst = 0.0;
    fill(a, m * k, 1u + (uint32_t)m);
    for (p = 0; p < k; ++p) fill(b + p * ldb, n, 7u + (uint32_t)(n + p * 977));
    fill(c0, m * n, 11u);
    fill(bias, m, 13u);
    for (p = 0; p < k; ++p)
        for (j = 0; j < n; ++j) bt[j * k + p] = b[p * ldb + j];
    for (p = 0; p < k; ++p) rows[p] = p * ldb;
    if (t->c0)
        for (i = 0; i < m * n; ++i) cm[i] = NAN; /* the product copies c0 in */
    else
        memcpy(cm, c0, (size_t)(m * n) * sizeof(float));
    memset(&c, 0, sizeof c);
    c.threads = t->threads;
    c.parallel = t->threads > 1 ? backwards : NULL;
    memset(&g, 0, sizeof g);
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a;
    g.a_rs = k;
    g.a_cs = 1;
    if (t->apacked) {
        mmd__gemm_pack_a(a, k, 1, m, k, t->isa, ap);
        g.a_packed = ap;
    }
    switch (t->bmode) {
    case B_STRIDED: g.b = b, g.b_rs = ldb, g.b_cs = 1; break;
    case B_TRANSPOSED: g.b = bt, g.b_rs = 1, g.b_cs = k; break;
    case B_PACKED: mmd__gemm_pack_b(b, ldb, 1, k, n, t->isa, bp), g.b_packed = bp; break;
    default: g.b = b, g.b_rows = rows; break;
    }
    g.c = cm;
    g.ldc = n;
    g.bias = t->bias ? bias : NULL;
    g.load = t->load;
    g.c0 = t->load && t->c0 ? c0 : NULL;
    g.act.kind = t->act;
    g.act.alpha = t->act == MMD__ACT_CLIP ? -0.25f : 0.1f;
    g.act.beta = t->act == MMD__ACT_CLIP ? 0.5f : 0.6f;
    g.isa = t->isa;
    mmd__gemm_run(&c, &g, scratch, t->threads);
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            double s = 0.0, mag = 0.0;
            float want;
            for (p = 0; p < k; ++p) {
                s += (double)a[i * k + p] * b[p * ldb + j];
                mag += fabs((double)a[i * k + p] * b[p * ldb + j]);
            }
            if (t->bias) s += bias[i], mag += fabs(bias[i]);
            if (t->load) s += c0[i * n + j], mag += fabs(c0[i * n + j]);
            want = (float)s;
            mmd__act_f32(&g.act, &want, 1);
            {
                double e = fabs((double)want - cm[i * n + j]) / (mag + 1e-30);
                if (e > worst || cm[i * n + j] != cm[i * n + j]) worst = cm[i * n + j] != cm[i * n + j] ? 1.0 : e;
            }
        }
    if (out) memcpy(out, cm, (size_t)(m * n) * sizeof(float));
    free(a), free(b), free(bt), free(cm), free(c0), free(bias), free(ap), free(bp), free(rows), free(scratch);
    return worst;
}

/* The instruction sets this CPU runs, the portable one first. */
static int32_t isas(int32_t *out) {
    int32_t n = 0, best = mmd__isa();
    out[n++] = MMD__ISA_PORTABLE;
#if defined(MMD__X86)
    if (best >= MMD__ISA_AVX2) out[n++] = MMD__ISA_AVX2;
    if (best >= MMD__ISA_AVX512) out[n++] = MMD__ISA_AVX512;
#elif defined(MMD__NEON)
    out[n++] = MMD__ISA_NEON;
#endif
    (void)best;
    return n;
}

/* Shapes around the tile and block sizes: 1, a tile less or more one, several K blocks (KC
   256), several M blocks (MC 120) and several N blocks (NC 1024); one row alone and a row past
   a whole tile (AVX-512 runs those rows through its single-row kernel). Whole row panels over
   8 to 25 column panels and a partial one take the portable 4 x 8 build's SPREAD at any K, and
   its partial panel over the spread rows (mmd__gemm_spread_cols_c): five columns, one alone
   (K = 1), three, six, four under sixes over two K blocks (18 x 196 x 300, MobileNetV2's 14x14
   plane), seven under a six and a four (K = 1); a partial panel under rows that are not whole
   row panels takes the column kernel (mmd__gemm_cols_c: 37 x 70 x 600, four columns and two
   single ones over nine row panels, the single ones four panels at a time: two fours and one;
   324 x 5 x 7's last block, 21 panels, five fours and one). 320 rows or more over fewer than eight panels take BSPREAD (groups of four
   columns, the last of one), the last row block of 324 (84 rows, not whole pairs of row
   panels) the usual loop. Two whole row panels over short K take SPREAD over a whole column
   block (1024 columns) and over the 76 left (nine panels and four columns). SPREAD over short K
   (at most 48) runs the column panels outermost in groups of row panels: one group in 8 x 1100
   x 20 and in 40 x 69 x 300's second K block (44), three of ten row panels in 124 x 203 x 45's
   first 120 rows; the first K block of 40 x 69 x 300 (256) runs the row panels outermost. The
   portable single-row kernel takes a row's full panels four at a time: 1 x 100, 1 x 59 and 1 x
   42 leave it groups of four, three and one with 8-column panels, and of two and three with
   16. SPREAD's tiles are six rows and the rest (4 or 8 rows) four: 12 rows are two sixes (K =
   1), 20 two sixes and two fours (K = 7), 16 two sixes and a four (K = 257: a K block of one),
   44 six sixes and two fours over short K and a whole column block. */
static void every_kernel_and_operand_layout_matches_double(void) {
    static const int64_t shapes[][3] = {{1, 1, 1},    {6, 16, 8},    {7, 17, 3},     {5, 33, 300},
                                        {13, 9, 257},  {125, 40, 19}, {3, 1100, 5},   {37, 70, 600},
                                        {1, 100, 600}, {9, 64, 300},  {40, 69, 300},  {8, 65, 1},
                                        {124, 203, 45}, {328, 49, 300}, {324, 5, 7},  {320, 13, 1},
                                        {8, 1100, 20}, {1, 59, 300},  {1, 42, 3},     {12, 65, 1},
                                        {20, 69, 7},   {16, 70, 257}, {44, 1100, 20}, {18, 196, 300},
                                        {10, 71, 1}};
    int32_t list[4], ni = isas(list), ii, s, mode;
    for (ii = 0; ii < ni; ++ii)
        for (s = 0; s < (int32_t)(sizeof shapes / sizeof shapes[0]); ++s)
            for (mode = B_STRIDED; mode <= B_ROWS; ++mode) {
                gemm_case t;
                double e;
                memset(&t, 0, sizeof t);
                t.m = shapes[s][0];
                t.n = shapes[s][1];
                t.k = shapes[s][2];
                t.isa = list[ii];
                t.bmode = mode;
                t.apacked = (s + mode) % 2;
                t.bias = s % 2;
                t.load = mode % 2;
                t.threads = 1;
                e = run_case(&t, NULL);
                if (e > 1e-5)
                    fprintf(stderr, "isa %d m %lld n %lld k %lld b mode %d: relative error %g\n", (int)t.isa,
                            (long long)t.m, (long long)t.n, (long long)t.k, (int)mode, e);
                CHECK(e <= 1e-5);
            }
}

/* Relu and Clip are applied in the micro-kernel's last K block, the others after it; with 11
   rows and with one (the single-row kernel's epilogue). */
static void fused_activations_match_the_operators(void) {
    static const int32_t acts[] = {MMD__ACT_RELU, MMD__ACT_CLIP, MMD__ACT_LEAKY_RELU, MMD__ACT_SIGMOID,
                                   MMD__ACT_HARD_SIGMOID, MMD__ACT_HARD_SWISH, MMD__ACT_SILU, MMD__ACT_TANH};
    int32_t list[4], ni = isas(list), ii, q;
    for (ii = 0; ii < ni; ++ii)
        for (q = 0; q < 2 * (int32_t)(sizeof acts / sizeof acts[0]); ++q) {
            gemm_case t;
            double e;
            memset(&t, 0, sizeof t);
            t.m = q < (int32_t)(sizeof acts / sizeof acts[0]) ? 11 : 1;
            t.n = 37;
            t.k = 300;
            t.isa = list[ii];
            t.bmode = B_ROWS;
            t.apacked = 1;
            t.bias = 1;
            t.load = q % 2;
            t.act = acts[q % (int32_t)(sizeof acts / sizeof acts[0])];
            t.threads = 1;
            e = run_case(&t, NULL);
            if (e > 1e-5)
                fprintf(stderr, "isa %d act %d m %lld: relative error %g\n", (int)t.isa, (int)t.act, (long long)t.m, e);
            CHECK(e <= 1e-5);
        }
}

/* K = 0: C is the bias (and its old contents), activated. */
static void empty_k_gives_the_start_values(void) {
    gemm_case t;
    memset(&t, 0, sizeof t);
    t.m = 7;
    t.n = 19;
    t.isa = mmd__isa();
    t.bias = 1;
    t.load = 1;
    t.act = MMD__ACT_RELU;
    t.threads = 1;
    CHECK(run_case(&t, NULL) == 0.0);
}

/* Splitting by columns (wide C) and by rows (narrow C) over 1 to 4 threads changes nothing. */
static void threads_give_bit_identical_results(void) {
    static const int64_t shapes[][3] = {{40, 3000, 70}, {500, 20, 300}, {64, 203, 300}, {320, 49, 600}};
    int32_t s, th;
    for (s = 0; s < 4; ++s) {
        int64_t mn = shapes[s][0] * shapes[s][1];
        float *one = (float *)malloc((size_t)mn * sizeof(float)), *many = (float *)malloc((size_t)mn * sizeof(float));
        for (th = 1; th <= 4; ++th) {
            gemm_case t;
            memset(&t, 0, sizeof t);
            t.m = shapes[s][0];
            t.n = shapes[s][1];
            t.k = shapes[s][2];
            t.isa = mmd__isa();
            t.bmode = B_ROWS;
            t.apacked = 1;
            t.bias = 1;
            t.act = MMD__ACT_SILU;
            t.threads = th;
            CHECK(run_case(&t, th == 1 ? one : many) <= 1e-5);
            if (th > 1) CHECK(memcmp(one, many, (size_t)mn * sizeof(float)) == 0);
        }
        CHECK(mmd__gemm_shares(shapes[s][0], shapes[s][1], 4, mmd__isa()) > 1);
        free(one);
        free(many);
    }
}

/* Long K (over MMD__GEMM_SPREAD_ACROSS_K, at most a K block) whose B rows, read in place, crowd
   a set of L1 (rows 2048 floats apart: all in one set) is split into parts of at most 48 in the
   portable 4 x 8 build, the partial sums going through C (mmd__gemm_block): each element must
   be the same float as with the rows 1100 or n floats apart (not split), at 1 and 2 threads.
   K just over the limit (49), twice it and odd (97), 144, 160 and a whole K block (256); rows
   in sixes alone (24, 30, 12), sixes and a four (16: the four through the usual loop) and sixes
   and two fours (26); column blocks of 1024 and a rest of 76, 6 or none, and 600 columns (75
   panels); with and without a bias, Clip fused or not, and C's start values as c0 (the residual
   of a fused convolution, added after the bias in the last part) or none. */
static void split_k_sums_as_one_block(void) {
    static const int64_t shapes[][3] = {{24, 1100, 49}, {16, 1030, 97}, {26, 1024, 144},
                                        {30, 600, 160}, {12, 1100, 256}, {24, 1030, 48}};
    int32_t s, v, th;
    for (s = 0; s < (int32_t)(sizeof shapes / sizeof shapes[0]); ++s)
        for (v = 0; v < 4; ++v)
            for (th = 1; th <= 2; ++th) {
                int64_t mn = shapes[s][0] * shapes[s][1];
                float *spaced = (float *)malloc((size_t)mn * sizeof(float)), *dense = (float *)malloc((size_t)mn * sizeof(float));
                gemm_case t;
                memset(&t, 0, sizeof t);
                t.m = shapes[s][0];
                t.n = shapes[s][1];
                t.k = shapes[s][2];
                t.isa = MMD__ISA_PORTABLE;
                t.bmode = B_ROWS;
                t.apacked = v % 2;
                t.bias = v != 1;
                t.load = t.c0 = v >= 2;
                t.act = v % 2 ? MMD__ACT_CLIP : MMD__ACT_NONE;
                t.threads = th;
                t.ldb = 2048;
                CHECK(run_case(&t, spaced) <= 1e-5);
                t.ldb = t.n == 1100 ? 0 : 1100;
                CHECK(run_case(&t, dense) <= 1e-5);
                if (memcmp(spaced, dense, (size_t)mn * sizeof(float)))
                    fprintf(stderr, "m %lld n %lld k %lld variant %d threads %d: split K differs\n", (long long)t.m,
                            (long long)t.n, (long long)t.k, (int)v, (int)th);
                CHECK(memcmp(spaced, dense, (size_t)mn * sizeof(float)) == 0);
                free(spaced);
                free(dense);
            }
#ifdef MMD__GEMM_SPREAD_C
    {
        /* The rows 2048 floats apart are split, those 1100 apart are not. */
        int64_t rows[160], p;
        for (p = 0; p < 160; ++p) rows[p] = p * 2048;
        CHECK(mmd__gemm_set_rows(rows, 49) > MMD__GEMM_SET_ROWS);
        for (p = 0; p < 160; ++p) rows[p] = p * 1100;
        CHECK(mmd__gemm_set_rows(rows, 160) <= MMD__GEMM_SET_ROWS);
    }
#endif
}

/* A NaN in A survives a fused Relu and Clip, as it does through the operators. */
static void nan_survives_fused_clamp(void) {
    float a[6 * 4], b[4 * 16], y[6 * 16], scratch_buf[1];
    int64_t rows[4], i;
    int32_t list[4], ni = isas(list), ii;
    mmd_kernel_ctx c;
    mmd__gemm g;
    void *scratch = malloc((size_t)mmd__gemm_scratch(6, 16, 4, MMD__ISA_AVX512, 1));
    (void)scratch_buf;
    fill(a, 24, 3u);
    fill(b, 64, 5u);
    a[2 * 4 + 1] = NAN;
    for (i = 0; i < 4; ++i) rows[i] = i * 16;
    for (ii = 0; ii < ni; ++ii) {
        memset(&c, 0, sizeof c);
        memset(&g, 0, sizeof g);
        g.m = 6, g.n = 16, g.k = 4, g.a = a, g.a_rs = 4, g.a_cs = 1, g.b = b, g.b_rows = rows;
        g.c = y, g.ldc = 16, g.isa = list[ii];
        g.act.kind = ii % 2 ? MMD__ACT_RELU : MMD__ACT_CLIP;
        g.act.alpha = -0.5f, g.act.beta = 0.5f;
        mmd__gemm_run(&c, &g, scratch, 1);
        for (i = 0; i < 16; ++i) {
            CHECK(y[2 * 16 + i] != y[2 * 16 + i]);
            CHECK(y[i] <= 0.5f || g.act.kind == MMD__ACT_RELU);
        }
    }
    free(scratch);
}

int main(void) {
    TEST_RUN(every_kernel_and_operand_layout_matches_double);
    TEST_RUN(fused_activations_match_the_operators);
    TEST_RUN(empty_k_gives_the_start_values);
    TEST_RUN(threads_give_bit_identical_results);
    TEST_RUN(nan_survives_fused_clamp);
    TEST_RUN(split_k_sums_as_one_block);
    return test_summary();
}
