/* tests/test_kernels_qgemm.c - the integer matrix product under MatMulInteger, QLinearMatMul,
   ConvInteger and QLinearConv (`>>ops quantization`): every micro-kernel this CPU can run (and
   the portable one) against the product summed in 64-bit integers, for the four signedness
   pairs, zero points one for all or one per row of A and per column of B, A and B packed once
   or packed per block, over shapes that leave edge tiles in both directions and span several K,
   M and N blocks (K not a multiple of four, K 0); the extreme values (-128 and 255 times
   255-wide zero point differences, where vpmaddubsw would saturate); and results bit-identical
   when the work is split over threads (a hook that runs the shares backwards); requantized
   bytes (the VNNI kernel requantizes whole tiles itself after the last of several K blocks)
   equal to the scalar requantisation of the 64-bit sums. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static void backwards(void *user, mmd_task_fn task, void *ctx, int32_t count) {
    int32_t i;
    (void)user;
    for (i = count - 1; i >= 0; --i) task(ctx, i);
}

static const char *const names[] = {"portable", "avx2", "vnni", "neon", "sdot", "amx"};

static uint32_t next(uint32_t *seed) {
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* The micro-kernels this CPU runs: portable always, then AVX2, VNNI and AMX, or NEON and SDOT,
   where available. */
static int32_t paths(int32_t *out) {
    int32_t n = 0, best = mmd__qgemm_best();
    out[n++] = MMD__QG_PORTABLE;
    if (best == MMD__QG_AVX2 || best == MMD__QG_VNNI || best == MMD__QG_AMX) out[n++] = MMD__QG_AVX2;
    if (best == MMD__QG_VNNI || best == MMD__QG_AMX) out[n++] = MMD__QG_VNNI;
    if (best == MMD__QG_AMX) out[n++] = MMD__QG_AMX;
    if (best == MMD__QG_NEON || best == MMD__QG_SDOT) out[n++] = MMD__QG_NEON;
    if (best == MMD__QG_SDOT) out[n++] = MMD__QG_SDOT;
    return n;
}

typedef struct qcase {
    int64_t m, n, k;
    int32_t path, a_type, b_type, per_row, per_col, apacked, bpacked, threads, extreme;
} qcase;

/* Runs one case; the count of elements that differ from the 64-bit reference (wrapped to
   int32). out, when not NULL, receives C. */
static int64_t run_case(const qcase *t, int32_t *out) {
    int64_t m = t->m, n = t->n, k = t->k, i, j, p, bad = 0;
    uint8_t *a = (uint8_t *)malloc((size_t)(m * k + 1)), *b = (uint8_t *)malloc((size_t)(k * n + 1));
    uint8_t *ap = (uint8_t *)malloc((size_t)mmd__qgemm_packed_a_size(m, k, t->path) + 64);
    uint8_t *bp = (uint8_t *)malloc((size_t)mmd__qgemm_packed_b_size(k, n, t->path) + 64);
    int32_t *za = (int32_t *)malloc((size_t)(m + 1) * sizeof(int32_t));
    int32_t *zb = (int32_t *)malloc((size_t)(n + 1) * sizeof(int32_t));
    int32_t *cm = (int32_t *)malloc((size_t)(m * n + 1) * sizeof(int32_t));
    void *scratch = malloc((size_t)mmd__qgemm_scratch(m, n, k, t->path, t->threads));
    uint32_t seed = 5u + (uint32_t)(m * 31 + n * 7 + k);
    mmd_kernel_ctx c;
    mmd__qgemm g;
    for (i = 0; i < m * k; ++i) a[i] = (uint8_t)next(&seed);
    for (i = 0; i < k * n; ++i) b[i] = (uint8_t)next(&seed);
    for (i = 0; i < m; ++i) za[i] = (int32_t)(uint8_t)next(&seed) - (t->a_type == MMD_DTYPE_INT8 ? 128 : 0);
    for (j = 0; j < n; ++j) zb[j] = (int32_t)(uint8_t)next(&seed) - (t->b_type == MMD_DTYPE_INT8 ? 128 : 0);
    if (t->extreme) {
        /* Values at one end of the range, zero points at the other: the largest products. */
        uint8_t alo = t->a_type == MMD_DTYPE_INT8 ? 0x80 : 0, blo = t->b_type == MMD_DTYPE_INT8 ? 0x80 : 0;
        for (i = 0; i < m * k; ++i) a[i] = (uint8_t)(i % 3 ? alo : alo ^ 0xff);
        for (i = 0; i < k * n; ++i) b[i] = (uint8_t)(i % 5 ? blo ^ 0xff : blo);
        for (i = 0; i < m; ++i) za[i] = t->a_type == MMD_DTYPE_INT8 ? 127 : 255;
        for (j = 0; j < n; ++j) zb[j] = t->b_type == MMD_DTYPE_INT8 ? -128 : 0;
    }
    memset(&c, 0, sizeof c);
    c.threads = t->threads;
    c.parallel = t->threads > 1 ? backwards : NULL;
    memset(&g, 0, sizeof g);
    g.m = m, g.n = n, g.k = k;
    g.a = a, g.b = b, g.lda = k, g.ldb = n;
    g.a_type = t->a_type, g.b_type = t->b_type;
    g.za = za, g.zb = zb, g.za_step = t->per_row, g.zb_step = t->per_col;
    g.c = cm, g.ldc = n, g.path = t->path;
    if (t->apacked) mmd__qgemm_pack_a(&g, ap), g.a_packed = ap;
    if (t->bpacked) mmd__qgemm_pack_b(&g, bp), g.b_packed = bp;
    mmd__qgemm_run(&c, &g, scratch, t->threads);
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            int64_t s = 0;
            for (p = 0; p < k; ++p) {
                int32_t av = t->a_type == MMD_DTYPE_INT8 ? (int32_t)(int8_t)a[i * k + p] : a[i * k + p];
                int32_t bv = t->b_type == MMD_DTYPE_INT8 ? (int32_t)(int8_t)b[p * n + j] : b[p * n + j];
                s += (int64_t)(av - za[i * t->per_row]) * (bv - zb[j * t->per_col]);
            }
            if ((int32_t)(uint32_t)(uint64_t)s != cm[i * n + j] && bad++ < 3)
                fprintf(stderr, "path %d %lldx%lldx%lld types %d,%d: C[%lld][%lld] is %ld, want %lld\n", (int)t->path,
                        (long long)m, (long long)n, (long long)k, (int)t->a_type, (int)t->b_type, (long long)i,
                        (long long)j, (long)cm[i * n + j], (long long)s);
        }
    if (out) memcpy(out, cm, (size_t)(m * n) * sizeof(int32_t));
    free(a), free(b), free(ap), free(bp), free(za), free(zb), free(cm), free(scratch);
    return bad;
}

static void every_kernel_type_and_layout_matches_int64(void) {
    static const int64_t shapes[][3] = {{1, 1, 1},   {6, 32, 4},  {7, 33, 5},   {13, 70, 17}, {5, 9, 0},
                                        {2, 3, 600}, {20, 530, 9}, {125, 40, 13}, {6, 8, 1030}, {1, 100, 64}};
    static const int32_t types[] = {MMD_DTYPE_UINT8, MMD_DTYPE_INT8};
    int32_t list[4], np = paths(list), ip, s, ta, tb, mode;
    for (ip = 0; ip < np; ++ip)
        for (s = 0; s < (int32_t)(sizeof shapes / sizeof shapes[0]); ++s)
            for (ta = 0; ta < 2; ++ta)
                for (tb = 0; tb < 2; ++tb)
                    for (mode = 0; mode < 4; ++mode) {
                        qcase t;
                        memset(&t, 0, sizeof t);
                        t.m = shapes[s][0], t.n = shapes[s][1], t.k = shapes[s][2];
                        t.path = list[ip], t.a_type = types[ta], t.b_type = types[tb];
                        t.per_row = mode & 1, t.per_col = (mode >> 1) & 1;
                        t.apacked = mode == 1 || mode == 2, t.bpacked = mode >= 2, t.threads = 1;
                        CHECK(run_case(&t, NULL) == 0);
                    }
}

static void extreme_values_do_not_saturate(void) {
    static const int32_t types[] = {MMD_DTYPE_UINT8, MMD_DTYPE_INT8};
    int32_t list[4], np = paths(list), ip, ta, tb;
    for (ip = 0; ip < np; ++ip)
        for (ta = 0; ta < 2; ++ta)
            for (tb = 0; tb < 2; ++tb) {
                qcase t;
                memset(&t, 0, sizeof t);
                t.m = 9, t.n = 40, t.k = 700;
                t.path = list[ip], t.a_type = types[ta], t.b_type = types[tb];
                t.per_row = t.per_col = 1, t.threads = 1, t.extreme = 1;
                CHECK(run_case(&t, NULL) == 0);
            }
}

static void threads_give_bit_identical_results(void) {
    static const int64_t shapes[][3] = {{50, 300, 70}, {200, 20, 30}};
    int32_t list[4], np = paths(list), ip, s, th;
    for (ip = 0; ip < np; ++ip)
        for (s = 0; s < 2; ++s) {
            int32_t *one = (int32_t *)malloc((size_t)(shapes[s][0] * shapes[s][1]) * sizeof(int32_t));
            int32_t *many = (int32_t *)malloc((size_t)(shapes[s][0] * shapes[s][1]) * sizeof(int32_t));
            for (th = 1; th <= 3; th += 2) {
                qcase t;
                memset(&t, 0, sizeof t);
                t.m = shapes[s][0], t.n = shapes[s][1], t.k = shapes[s][2];
                t.path = list[ip], t.a_type = MMD_DTYPE_UINT8, t.b_type = MMD_DTYPE_INT8;
                t.per_col = 1, t.bpacked = 1, t.threads = th;
                CHECK(run_case(&t, th == 1 ? one : many) == 0);
            }
            CHECK(mmd__qgemm_shares(shapes[s][0], shapes[s][1], 3, list[ip]) > 1);
            CHECK(memcmp(one, many, (size_t)(shapes[s][0] * shapes[s][1]) * sizeof(int32_t)) == 0);
            free(one), free(many);
        }
}

/* QLinearConv's product: int8 weights of zero point 0 (packed A), uint8 B of one zero point,
   requantized per row with a bias; K of one, two and three blocks, edge tiles and whole ones. */
static void requantized_bytes_match_scalar_reference(void) {
    static const int64_t shapes[][3] = {{12, 64, 300}, {12, 64, 600}, {13, 70, 1030}, {18, 96, 1600}, {17, 40, 4700}};
    int32_t list[4], np = paths(list), ip, s;
    for (ip = 0; ip < np; ++ip)
        for (s = 0; s < (int32_t)(sizeof shapes / sizeof shapes[0]); ++s) {
            int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2], i, j, p, bad = 0;
            uint8_t *a = (uint8_t *)malloc((size_t)(m * k)), *b = (uint8_t *)malloc((size_t)(k * n));
            uint8_t *ap = (uint8_t *)malloc((size_t)mmd__qgemm_packed_a_size(m, k, list[ip]));
            uint8_t *y = (uint8_t *)malloc((size_t)(m * n));
            int32_t *cm = (int32_t *)malloc((size_t)(m * n) * sizeof(int32_t)), *za = (int32_t *)calloc((size_t)m, 4);
            int32_t *bias = (int32_t *)malloc((size_t)m * 4), zb = 37;
            float *mult = (float *)malloc((size_t)m * 4);
            void *scratch = malloc((size_t)mmd__qgemm_scratch(m, n, k, list[ip], 1));
            uint32_t seed = 11u + (uint32_t)k;
            mmd_kernel_ctx c;
            mmd__qgemm g;
            mmd__q_out o;
            for (i = 0; i < m * k; ++i) a[i] = (uint8_t)next(&seed);
            for (i = 0; i < k * n; ++i) b[i] = (uint8_t)next(&seed);
            for (i = 0; i < m; ++i) bias[i] = (int32_t)(next(&seed) % 20001) - 10000, mult[i] = 1.0f / (float)(2000 + i * 37);
            memset(&c, 0, sizeof c);
            c.threads = 1;
            memset(&g, 0, sizeof g);
            g.m = m, g.n = n, g.k = k, g.a = a, g.b = b, g.lda = k, g.ldb = n;
            g.a_type = MMD_DTYPE_INT8, g.b_type = MMD_DTYPE_UINT8, g.za = za, g.zb = &zb, g.za_step = 1;
            g.c = cm, g.ldc = n, g.path = list[ip];
            mmd__qgemm_pack_a(&g, ap), g.a_packed = ap;
            mmd__q_out_init(&o, MMD_DTYPE_UINT8, 3);
            o.y = (char *)y, o.ldy = n, o.bias = bias, o.mult = mult;
            g.out = &o;
            mmd__qgemm_run(&c, &g, scratch, 1);
            for (i = 0; i < m; ++i)
                for (j = 0; j < n; ++j) {
                    int64_t sum = bias[i];
                    int32_t want;
                    for (p = 0; p < k; ++p) sum += (int64_t)(int8_t)a[i * k + p] * (b[p * n + j] - zb);
                    want = mmd__q_round((float)sum * mult[i], -3.0f, 252.0f) + 3;
                    if (y[i * n + j] != want && bad++ < 3)
                        fprintf(stderr, "path %d %lldx%lldx%lld: y[%lld][%lld] is %d, want %d\n", (int)list[ip],
                                (long long)m, (long long)n, (long long)k, (long long)i, (long long)j, (int)y[i * n + j],
                                (int)want);
                }
            CHECK(bad == 0);
            free(a), free(b), free(ap), free(y), free(cm), free(za), free(bias), free(mult), free(scratch);
        }
}

int main(void) {
    int32_t list[4], np = paths(list), i;
    fprintf(stderr, "micro-kernels tested:");
    for (i = 0; i < np; ++i) fprintf(stderr, " %s", names[list[i]]);
    fprintf(stderr, "\n");
    TEST_RUN(every_kernel_type_and_layout_matches_int64);
    TEST_RUN(extreme_values_do_not_saturate);
    TEST_RUN(threads_give_bit_identical_results);
    TEST_RUN(requantized_bytes_match_scalar_reference);
    return test_summary();
}
