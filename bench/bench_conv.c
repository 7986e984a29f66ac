/* bench/bench_conv.c - GFLOP/s of single convolutions through the runtime's Conv kernel (`make
   bench-conv`): the dense shapes of ResNet-18 and the DBNet, one thread unless given (more run
   on the session's built-in pool), best of a few repeats. Compare with the core's peak (Zen 5:
   about 218 GFLOP/s per core).
       build/bench_conv [--cold[=MB] [--warm-input]] [THREADS [SHAPE]]   SHAPE: a substring of the shape names below
   With --cold[=MB], MB megabytes (64 unless given) are read before every run and the median of
   the runs is reported: in a model each convolution finds its weights out of the core's caches,
   evicted by the layers before it, so warm timings of the big-weight layers flatter them
   (ResNet-18's layer4 3x3 runs 1.8 ms warm but 3.0 ms in the model). 64 MB, more than
   ResNet-18's 47 MB of weights, gives the per-node times of `mmdeploy bench --profile` on it;
   a flush past the host's last-level cache (256 MB here) measures weights from DRAM instead.
   --warm-input then reads the input back after each flush, as a model's convolution finds the
   input its previous node has just written: MobileNetV2's 160 -> 960 at 7x7, faster through
   NARROW than through the product with everything flushed or everything warm, was no faster
   so. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"

#include <stdio.h>
#include <time.h>

typedef struct shape {
    const char *what;
    int64_t c, m, h, w, k, s, pad;
} shape;

static const shape shapes[] = {
    {"resnet18 layer1 3x3", 64, 64, 56, 56, 3, 1, 1},
    {"resnet18 layer2 3x3", 128, 128, 28, 28, 3, 1, 1},
    {"resnet18 layer3 3x3", 256, 256, 14, 14, 3, 1, 1},
    {"resnet18 layer4 3x3", 512, 512, 7, 7, 3, 1, 1},
    {"3x3 128 14x14", 128, 128, 14, 14, 3, 1, 1},
    {"3x3 256 20x20", 256, 256, 20, 20, 3, 1, 1},
    {"resnet18 conv1 7x7/2", 3, 64, 224, 224, 7, 2, 3},
    {"mobilenetv2 stem 3x3/2 3->32 224", 3, 32, 224, 224, 3, 2, 1},
    {"dbnet stem 3x3/2 3->16 640x480", 3, 16, 640, 480, 3, 2, 1},
    {"resnet18 3x3/2", 64, 128, 56, 56, 3, 2, 1},
    {"resnet18 3x3/2 128->256", 128, 256, 28, 28, 3, 2, 1},
    {"resnet18 3x3/2 256->512", 256, 512, 14, 14, 3, 2, 1},
    {"pointwise 64->256 56x56", 64, 256, 56, 56, 1, 1, 0},
    {"pointwise 256->64 56x56", 256, 64, 56, 56, 1, 1, 0},
    {"pointwise 160->960 20x15", 160, 960, 20, 15, 1, 1, 0},
    {"mobilenetv2 pointwise 960->320 7x7", 960, 320, 7, 7, 1, 1, 0},
    {"mobilenetv2 pointwise 320->1280 7x7", 320, 1280, 7, 7, 1, 1, 0},
    {"mobilenetv2 pointwise 160->960 7x7", 160, 960, 7, 7, 1, 1, 0},
    {"mobilenetv2 pointwise 96->576 14x14", 96, 576, 14, 14, 1, 1, 0},
    {"mobilenetv2 pointwise 64->384 14x14", 64, 384, 14, 14, 1, 1, 0},
    {"mobilenetv2 pointwise 384->64 14x14", 384, 64, 14, 14, 1, 1, 0},
    {"mobilenetv2 pointwise 384->96 14x14", 384, 96, 14, 14, 1, 1, 0},
    {"mobilenetv2 pointwise 576->96 14x14", 576, 96, 14, 14, 1, 1, 0},
    {"mobilenetv2 pointwise 576->160 7x7", 576, 160, 7, 7, 1, 1, 0},
    {"mobilenetv2 pointwise 960->160 7x7", 960, 160, 7, 7, 1, 1, 0},
    {"pointwise 144->24 56x56", 144, 24, 56, 56, 1, 1, 0},
    {"mobilenetv2 pointwise 24->144 56x56", 24, 144, 56, 56, 1, 1, 0},
    {"mobilenetv2 pointwise 96->24 56x56", 96, 24, 56, 56, 1, 1, 0},
    {"mobilenetv2 pointwise 144->32 28x28", 144, 32, 28, 28, 1, 1, 0},
    {"mobilenetv2 pointwise 32->192 28x28", 32, 192, 28, 28, 1, 1, 0},
    {"mobilenetv2 pointwise 192->32 28x28", 192, 32, 28, 28, 1, 1, 0},
    {"mobilenetv2 pointwise 192->64 14x14", 192, 64, 14, 14, 1, 1, 0},
    {"dbnet pointwise 16->64 320x240", 16, 64, 240, 320, 1, 1, 0},
    {"dbnet pointwise 16->16 320x240", 16, 16, 240, 320, 1, 1, 0},
    {"dbnet pointwise 24->96 160x120", 24, 96, 120, 160, 1, 1, 0},
    {"dbnet pointwise 40->96 80x60", 40, 96, 60, 80, 1, 1, 0},
    {"dbnet pointwise 64->24 160x120", 64, 24, 120, 160, 1, 1, 0},
    {"dbnet pointwise 72->24 160x120", 72, 24, 120, 160, 1, 1, 0},
    {"dbnet pointwise 72->40 80x60", 72, 40, 60, 80, 1, 1, 0},
    {"dbnet pointwise 120->40 80x60", 120, 40, 60, 80, 1, 1, 0},
    {"mobilenetv2 pointwise 32->16 112x112", 32, 16, 112, 112, 1, 1, 0},
    {"mobilenetv2 pointwise 16->96 112x112", 16, 96, 112, 112, 1, 1, 0},
    {"pointwise 480->112 40x30", 480, 112, 40, 30, 1, 1, 0},
    {"pointwise 672->112 40x30", 672, 112, 40, 30, 1, 1, 0},
    {"resnet18 downsample 1x1/2 64->128", 64, 128, 56, 56, 1, 2, 0},
    {"resnet18 downsample 1x1/2 256->512", 256, 512, 14, 14, 1, 2, 0},
    {"dbnet head 3x3 96->24 160x120", 96, 24, 160, 120, 3, 1, 1},
    {"dbnet smooth 3x3 96->24 80x60", 96, 24, 80, 60, 3, 1, 1},
    {"dbnet smooth 3x3 96->24 40x30", 96, 24, 40, 30, 3, 1, 1},
    {"dbnet smooth 3x3 96->24 20x15", 96, 24, 20, 15, 3, 1, 1},
};

/* Depthwise shapes (group = channels, m = c): MobileNetV2's 3x3 layers as the unfused ones run
   (features.1 and the 7x7 ones) and as the depthwise halves of its PointwiseDepthwise pairs
   compute, and the DBNet's. */
static const shape dw_shapes[] = {
    {"dw mobilenetv2 3x3 x32 112x112", 32, 32, 112, 112, 3, 1, 1},
    {"dw mobilenetv2 3x3/2 x96 112x112", 96, 96, 112, 112, 3, 2, 1},
    {"dw mobilenetv2 3x3 x144 56x56", 144, 144, 56, 56, 3, 1, 1},
    {"dw mobilenetv2 3x3/2 x144 56x56", 144, 144, 56, 56, 3, 2, 1},
    {"dw mobilenetv2 3x3 x192 28x28", 192, 192, 28, 28, 3, 1, 1},
    {"dw mobilenetv2 3x3/2 x192 28x28", 192, 192, 28, 28, 3, 2, 1},
    {"dw mobilenetv2 3x3 x384 14x14", 384, 384, 14, 14, 3, 1, 1},
    {"dw mobilenetv2 3x3 x576 14x14", 576, 576, 14, 14, 3, 1, 1},
    {"dw mobilenetv2 3x3/2 x576 14x14", 576, 576, 14, 14, 3, 2, 1},
    {"dw mobilenetv2 3x3 x960 7x7", 960, 960, 7, 7, 3, 1, 1},
    {"dw dbnet 3x3 x16 320x240", 16, 16, 240, 320, 3, 1, 1},
    {"dw dbnet 5x5/2 x72 160x120", 72, 72, 120, 160, 5, 2, 2},
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define RUNS 30

/* Reads the flush buffer (written once at the start) a cache line at a time: reading rather
   than writing leaves no dirty lines whose write-back would slow the next run down. */
static size_t flush_bytes;

static void flush_caches(const unsigned char *buf) {
    volatile unsigned char sink = 0;
    unsigned char acc = 0;
    size_t i;
    for (i = 0; i < flush_bytes; i += 64) acc ^= buf[i];
    sink = acc;
    (void)sink;
}

/* Reads the input a cache line at a time; the sum goes to a volatile so that it is done. */
static volatile float warm_input_sum;

static float sum_input(const float *x, int64_t n) {
    float acc = 0.0f;
    int64_t i;
    for (i = 0; i < n; i += 16) acc += x[i];
    return acc;
}

int main(int argc, char **argv) {
    int32_t cold = argc > 1 && !strncmp(argv[1], "--cold", 6), warm_input, threads, i, r;
    unsigned char *flush = NULL;
    double times[RUNS];
    mmd_arena arena;
    mmd_arena_init(&arena, NULL, 0, 1);
    mmd__pool *pool = NULL;
    mmd_error err;
    flush_bytes = (size_t)(cold && argv[1][6] == '=' ? atoi(argv[1] + 7) : 64) << 20;
    argc -= cold, argv += cold;
    warm_input = cold && argc > 1 && !strcmp(argv[1], "--warm-input");
    argc -= warm_input, argv += warm_input;
    threads = argc > 1 ? atoi(argv[1]) : 1;
    harness_arena = &arena;
    if (cold && !(flush = (unsigned char *)malloc(flush_bytes))) {
        printf("no memory for the cache flush\n");
        return 1;
    }
    if (cold) memset(flush, 1, flush_bytes);
    if (threads > 1 && mmd__pool_start(threads, &pool, &err) != MMD_OK) {
        printf("%s\n", err.msg);
        return 1;
    }
    printf("isa %s, %d thread(s), %s\n", mmd_ops_isa(), (int)threads,
           !cold ? "caches warm, best" : warm_input ? "caches flushed but for the input before each run, median"
                                                  : "caches flushed before each run, median");
    for (i = 0; i < COUNT(shapes) + COUNT(dw_shapes); ++i) {
        const shape *s = i < COUNT(shapes) ? &shapes[i] : &dw_shapes[i - COUNT(shapes)];
        int64_t group = i < COUNT(shapes) ? 1 : s->c;
        int64_t xd[4] = {1, s->c, s->h, s->w}, wd[4] = {s->m, s->c / group, s->k, s->k}, bd[1] = {s->m};
        int64_t ks[2] = {s->k, s->k}, st[2] = {s->s, s->s}, pads[4] = {s->pad, s->pad, s->pad, s->pad};
        float *x;
        if (argc > 2 && !strstr(s->what, argv[2])) continue;
        x = (float *)malloc((size_t)(s->c * s->h * s->w) * sizeof(float));
        float *wt = (float *)malloc((size_t)(s->m * (s->c / group) * s->k * s->k) * sizeof(float));
        float *b = (float *)malloc((size_t)s->m * sizeof(float));
        mmd_tensor tx = runtime("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, wt);
        mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
        mmd_tensor *in[3] = {&tx, &tw, &tb}, *out[1] = {&ty};
        mmd_attr at[4] = {attr_ints("kernel_shape", ks, 2), attr_ints("strides", st, 2), attr_ints("pads", pads, 4),
                          attr_int("group", group)};
        op_case t;
        double best, flop;
        ramp(x, s->c * s->h * s->w, 7, 13);
        ramp(wt, s->m * (s->c / group) * s->k * s->k, 5, 11);
        ramp(b, s->m, 3, 7);
        if (case_prepare_threads(&t, threads, "Conv", 13, at, 4, in, 3, out, 1) != MMD_OK) {
            printf("%s: prepare failed: %s\n", s->what, t.err.msg);
            return 1;
        }
        t.c.parallel = pool ? mmd__pool_run : NULL;
        t.c.parallel_user = pool;
        flop = 2.0 * (double)(s->m * (s->c / group) * s->k * s->k) * (double)(ty.dims[2] * ty.dims[3]);
        ty.data = malloc((size_t)mmd_tensor_numel(&ty) * sizeof(float));
        t.c.scratch = t.c.scratch_size ? malloc(t.c.scratch_size) : NULL;
        for (r = 0; r < RUNS; ++r) {
            double t0;
            if (cold) flush_caches(flush);
            if (warm_input) warm_input_sum += sum_input(x, s->c * s->h * s->w);
            t0 = now();
            t.k->eval(&t.c);
            times[r] = now() - t0;
        }
        qsort(times, RUNS, sizeof times[0], cmp_double);
        best = cold ? times[RUNS / 2] : times[0];
        printf("%-32s %8.3f ms %7.1f GFLOP/s", s->what, best * 1e3, flop / best * 1e-9);
        /* On a shared machine the median takes the other processes' share; the best does less. */
        if (cold) printf("  (best %.3f ms)", times[0] * 1e3);
        printf("\n");
        free(t.c.op_data);
        free(t.c.scratch);
        free(ty.data);
        free(x), free(wt), free(b);
    }
    mmd_arena_release(&arena);
    mmd__pool_stop(pool);
    free(flush);
    return test_summary();
}
