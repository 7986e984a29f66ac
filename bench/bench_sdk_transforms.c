/* bench/bench_sdk_transforms.c - times the SDK's preprocess (the model directory's Transform
   chain) on one BGR image, in process, for bench/bench_sdk_transforms.py.

     bench_sdk_transforms DIR IMG.raw H W N [OUT.raw]

   IMG.raw is H x W x 3 uint8 BGR. Runs mmd_sdk_preprocess N times and prints each run's
   milliseconds, one per line, measured with clock_gettime around the call alone, so that
   neither process start-up nor the model's loading is counted. With OUT.raw, the last run's
   float32 tensor is written there (after its NCHW shape on stderr) for the script to compare
   with its OpenCV result. Exit status 0 on success, else the mmdeploy_status_t. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mmdeploy_sdk.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
    mmdeploy_model_t model;
    mmdeploy_mat_t mat;
    mmd_sdk_meta meta;
    int64_t dims[4];
    float *data = NULL;
    size_t n;
    FILE *f;
    int st, i, iters;
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: bench_sdk_transforms DIR IMG.raw H W N [OUT.raw]\n");
        return 2;
    }
    mat.height = atoi(argv[3]);
    mat.width = atoi(argv[4]);
    mat.channel = 3;
    mat.format = MMDEPLOY_PIXEL_FORMAT_BGR;
    mat.type = MMDEPLOY_DATA_TYPE_UINT8;
    iters = atoi(argv[5]);
    n = (size_t)(mat.height > 0 ? mat.height : 0) * (size_t)(mat.width > 0 ? mat.width : 0) * 3;
    if (!n || iters < 1 || !(mat.data = (uint8_t *)malloc(n)) || !(f = fopen(argv[2], "rb"))) {
        fprintf(stderr, "bench_sdk_transforms: bad size, count or image %s\n", argv[2]);
        return 2;
    }
    st = fread(mat.data, 1, n, f) == n ? 0 : 2;
    fclose(f);
    if (st || (st = mmdeploy_model_create_by_path(argv[1], &model)) != 0) {
        fprintf(stderr, "bench_sdk_transforms: cannot read %s or %s\n", argv[2], argv[1]);
        return st;
    }
    for (i = 0; i < iters && !st; ++i) {
        double t0 = now_ms();
        st = mmd_sdk_preprocess(model, &mat, NULL, &data, dims, &meta);
        printf("%.4f\n", now_ms() - t0);
        if (!st && (argc == 6 || i + 1 < iters)) {
            free(data);
            data = NULL;
        }
    }
    if (!st && argc == 7) {
        fprintf(stderr, "%lld %lld %lld %lld\n", (long long)dims[0], (long long)dims[1], (long long)dims[2],
                (long long)dims[3]);
        n = (size_t)(dims[0] * dims[1] * dims[2] * dims[3]);
        st = (f = fopen(argv[6], "wb")) != NULL && fwrite(data, sizeof(float), n, f) == n ? 0 : 2;
        if (f) fclose(f);
        free(data);
    }
    mmdeploy_model_destroy(model);
    free(mat.data);
    return st;
}
