/* bench/bench_qgemm.c - the integer product under QLinearConv and QLinearMatMul (`>>ops
   quantization`) through each micro-kernel this CPU runs, side by side (`make bench-qgemm`; on
   x86 build/aarch64/bench_qgemm runs under qemu-aarch64, whose times say how many guest
   instructions each kernel needs, not how fast a real Arm core runs it). Shapes are int8
   QLinearConvs of ResNet-18 and MobileNetV2 at 224 as the product sees them: M output channels,
   K = input channels x kernel taps, N output pixels; uint8 activations, int8 weights packed
   once. One thread; each time the median of the repeats, the kernels alternating.
       bench_qgemm [REPEATS]                   (default 21) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct shape {
    const char *what;
    int64_t m, k, n;
} shape;

static const shape shapes[] = {
    {"resnet18 layer1 3x3 64->64 56x56", 64, 576, 3136},
    {"resnet18 layer3 3x3 256->256 14x14", 256, 2304, 196},
    {"mobilenet_v2 1x1 24->144 56x56", 144, 24, 3136},
    {"mobilenet_v2 1x1 160->960 7x7", 960, 160, 49},
};

static const char *const names[] = {"portable", "avx2", "vnni", "neon", "sdot", "amx"};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int32_t repeats = argc > 1 ? atoi(argv[1]) : 21, best = mmd__qgemm_best(), list[4], np = 0, i, p, r;
    mmd_kernel_ctx c;
    if (repeats < 1 || repeats > 1000) repeats = 21;
    list[np++] = MMD__QG_PORTABLE;
    if (best == MMD__QG_AVX2 || best == MMD__QG_VNNI || best == MMD__QG_AMX) list[np++] = MMD__QG_AVX2;
    if (best == MMD__QG_VNNI || best == MMD__QG_AMX) list[np++] = MMD__QG_VNNI;
    if (best == MMD__QG_AMX) list[np++] = MMD__QG_AMX;
    if (best == MMD__QG_NEON || best == MMD__QG_SDOT) list[np++] = MMD__QG_NEON;
    if (best == MMD__QG_SDOT) list[np++] = MMD__QG_SDOT;
    memset(&c, 0, sizeof c);
    c.threads = 1;
    printf("isa %s, 1 thread, median of %d; GOP/s (2 per multiply-add) and time vs portable\n", mmd_ops_isa(),
           (int)repeats);
    for (i = 0; i < (int32_t)(sizeof shapes / sizeof shapes[0]); ++i) {
        const shape *s = &shapes[i];
        int64_t m = s->m, k = s->k, n = s->n, j;
        uint8_t *w = (uint8_t *)malloc((size_t)(m * k)), *x = (uint8_t *)malloc((size_t)(k * n));
        int32_t *cm = (int32_t *)malloc((size_t)(m * n) * sizeof(int32_t)), za = 0, zb = 128;
        uint8_t *ap[4];
        double *t = (double *)malloc((size_t)(np * repeats) * sizeof(double)), med[4];
        void *scratch[4];
        mmd__qgemm g[4];
        for (j = 0; j < m * k; ++j) w[j] = (uint8_t)(j * 37 + 11);
        for (j = 0; j < k * n; ++j) x[j] = (uint8_t)(j * 101 + 7);
        for (p = 0; p < np; ++p) {
            memset(&g[p], 0, sizeof g[p]);
            g[p].m = m, g[p].n = n, g[p].k = k;
            g[p].a = w, g[p].b = x, g[p].lda = k, g[p].ldb = n;
            g[p].a_type = MMD_DTYPE_INT8, g[p].b_type = MMD_DTYPE_UINT8;
            g[p].za = &za, g[p].zb = &zb;
            g[p].c = cm, g[p].ldc = n, g[p].path = list[p];
            scratch[p] = malloc((size_t)mmd__qgemm_scratch(m, n, k, list[p], 1));
            /* A (the weights) packed once, as the kernel reads it. */
            ap[p] = (uint8_t *)malloc((size_t)mmd__qgemm_packed_a_size(m, k, list[p]));
            mmd__qgemm_pack_a(&g[p], ap[p]);
            g[p].a_packed = ap[p];
        }
        for (r = 0; r < repeats; ++r)
            for (p = 0; p < np; ++p) {
                double t0 = now();
                mmd__qgemm_run(&c, &g[p], scratch[p], 1);
                t[p * repeats + r] = now() - t0;
            }
        printf("%s (M %lld, K %lld, N %lld)\n", s->what, (long long)m, (long long)k, (long long)n);
        for (p = 0; p < np; ++p) {
            qsort(t + p * repeats, (size_t)repeats, sizeof(double), cmp);
            med[p] = t[p * repeats + repeats / 2];
            printf("  %-8s %9.3f ms %8.2f GOP/s %6.2fx\n", names[list[p]], 1e3 * med[p],
                   2e-9 * (double)(m * k * n) / med[p], med[p] / med[0]);
            free(scratch[p]), free(ap[p]);
        }
        free(w), free(x), free(cm), free(t);
    }
    return 0;
}
