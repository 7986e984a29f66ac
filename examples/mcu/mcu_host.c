/* mcu_host.c - the host side of the Cortex-M demo (examples/mcu/main.c):

     mcu_host inputs X.npy Y.npy N        C source of the first N images and labels (to stdout)
     mcu_host run MODEL.onnx X.npy Y.npy N  the firmware's lines, computed here from the ONNX
                                          model (not the blob), for the reference
     mcu_host compare REF OUT... [-- REF OUT...]...
                                          each OUT against the REF before it: same samples, same
                                          top-1 label, every score within 1e-4 (relative above
                                          1); ends with "N passed, M failed" over all groups

   Built and run by `make mcu-test`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmdeploy.h"
#define MMD_NPY_IMPLEMENTATION
#include "mmd_npy.h"

#define PIXELS 64
#define LABELS 10

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (unsigned char *)malloc((size_t)n + 1)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    if (!buf) fprintf(stderr, "mcu_host: cannot read %s\n", path);
    *size = buf ? (size_t)n : 0;
    return buf;
}

/* The images (float32, N x 1 x 8 x 8) and labels (int64) of the digits test set. */
typedef struct dataset {
    unsigned char *xbytes, *ybytes;
    const float *x;
    const int64_t *y;
    int64_t count;
} dataset;

static int load_dataset(const char *xpath, const char *ypath, int64_t n, dataset *d) {
    mmd_npy x, y;
    mmd_error err;
    size_t xs, ys;
    memset(&err, 0, sizeof(err));
    memset(d, 0, sizeof(*d));
    if (!(d->xbytes = read_file(xpath, &xs)) || !(d->ybytes = read_file(ypath, &ys))) return 1;
    if (mmd_npy_parse(d->xbytes, xs, &x, &err) != MMD_OK || mmd_npy_parse(d->ybytes, ys, &y, &err) != MMD_OK) {
        fprintf(stderr, "mcu_host: %s\n", err.msg);
        return 1;
    }
    if (x.dtype != MMD_DTYPE_FLOAT32 || x.rank != 4 || x.dims[1] * x.dims[2] * x.dims[3] != PIXELS ||
        y.dtype != MMD_DTYPE_INT64 || y.rank != 1 || y.dims[0] != x.dims[0] || n < 1 || n > x.dims[0] ||
        ((uintptr_t)x.data % 4) || ((uintptr_t)y.data % 8)) {
        fprintf(stderr, "mcu_host: %s and %s are not N digits (N x 1 x 8 x 8 float32, N int64 labels) "
                        "with at least %lld of them, aligned\n", xpath, ypath, (long long)n);
        return 1;
    }
    d->x = (const float *)x.data;
    d->y = (const int64_t *)y.data;
    d->count = n;
    return 0;
}

static int cmd_inputs(const dataset *d, const char *xpath) {
    int64_t k, j;
    printf("/* digits_inputs.c - written by mcu_host from %s; do not edit.\n"
           "   The first %lld test images and their labels, for examples/mcu/main.c. */\n"
           "#include \"mcu.h\"\n\nconst int32_t mcu_sample_count = %lld;\n\n"
           "const float mcu_samples[][MCU_PIXELS] = {\n", xpath, (long long)d->count, (long long)d->count);
    for (k = 0; k < d->count; ++k) {
        printf("    {");
        /* Nine significant digits identify every float. */
        for (j = 0; j < PIXELS; ++j) printf("%s%.9g", j ? ", " : "", (double)d->x[k * PIXELS + j]);
        printf("},\n");
    }
    printf("};\n\nconst uint8_t mcu_labels[] = {");
    for (k = 0; k < d->count; ++k) printf("%s%d", k ? ", " : "", (int)d->y[k]);
    printf("};\n");
    return ferror(stdout) ? 1 : 0;
}

/* The firmware's sample lines, from the ONNX model through the host runtime. */
static int cmd_run(const dataset *d, const char *model_path) {
    size_t size;
    unsigned char *model = read_file(model_path, &size);
    mmd_session *s = NULL;
    mmd_error err;
    int64_t k, dims[4] = {1, 1, 8, 8};
    int32_t j, best;
    memset(&err, 0, sizeof(err));
    if (!model) return 1;
    if (mmd_session_create(model, size, NULL, &s, &err) != MMD_OK) {
        fprintf(stderr, "mcu_host: %s: %s\n", model_path, err.msg);
        free(model);
        return 1;
    }
    for (k = 0; k < d->count; ++k) {
        const mmd_tensor *y;
        const float *scores;
        if (mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 4, dims, d->x + k * PIXELS, &err) != MMD_OK ||
            mmd_session_prepare(s, &err) != MMD_OK || mmd_session_run(s, &err) != MMD_OK) {
            fprintf(stderr, "mcu_host: %s: %s\n", model_path, err.msg);
            break;
        }
        y = mmd_session_output(s, 0);
        scores = (const float *)y->data;
        for (best = 0, j = 1; j < LABELS; ++j)
            if (scores[j] > scores[best]) best = j;
        printf("sample %lld: label %d (true %d) scores", (long long)k, (int)best, (int)d->y[k]);
        for (j = 0; j < LABELS; ++j) printf(" %.6f", (double)scores[j]);
        printf("\n");
    }
    if (k == d->count) printf("done: %lld samples\n", (long long)k);
    mmd_session_destroy(s);
    free(model);
    return k == d->count ? 0 : 1;
}

/* One parsed "sample K: label L (true T) scores s0 ... s9" line. */
typedef struct sample { int k, label, truth; double scores[LABELS]; } sample;

/* Reads every sample line of a file in order; other lines (the banner, "done") are skipped,
   but "done:" must be there, so a firmware that stopped early fails. */
static int read_samples(const char *path, sample *out, int cap, int *count) {
    FILE *f = fopen(path, "r");
    char buf[1024];
    int done = 0;
    *count = 0;
    if (!f) {
        fprintf(stderr, "mcu_host: cannot read %s\n", path);
        return 1;
    }
    while (fgets(buf, sizeof(buf), f)) {
        sample s;
        int used = 0, j;
        const char *p;
        if (strncmp(buf, "done:", 5) == 0) done = 1;
        if (sscanf(buf, "sample %d: label %d (true %d) scores%n", &s.k, &s.label, &s.truth, &used) != 3 || !used)
            continue;
        for (p = buf + used, j = 0; j < LABELS; ++j) {
            char *end;
            s.scores[j] = strtod(p, &end);
            if (end == p) break;
            p = end;
        }
        if (j == LABELS && *count < cap) out[(*count)++] = s;
    }
    fclose(f);
    if (!done) fprintf(stderr, "mcu_host: %s has no 'done:' line (the firmware stopped early?)\n", path);
    return done ? 0 : 1;
}

static int cmd_compare(int argc, char **argv) {
    static sample ref[1024], out[1024];
    int nref = 0, nout, i, f, passed = 0, failed = 0, j;
    const char *refpath = NULL;
    for (f = 2; f < argc; ++f) {
        /* A group is a reference and the outputs after it, up to "--". */
        if (strcmp(argv[f], "--") == 0) {
            refpath = NULL;
            continue;
        }
        if (!refpath) {
            refpath = argv[f];
            if (read_samples(refpath, ref, 1024, &nref) || nref == 0) {
                fprintf(stderr, "mcu_host: no reference samples in %s\n", refpath);
                return 1;
            }
            continue;
        }
        if (read_samples(argv[f], out, 1024, &nout)) ++failed;
        if (nout != nref) {
            printf("FAIL %s: %d samples, the reference has %d\n", argv[f], nout, nref);
            ++failed;
        }
        for (i = 0; i < nout && i < nref; ++i) {
            double worst = 0;
            for (j = 0; j < LABELS; ++j) {
                double d = fabs(out[i].scores[j] - ref[i].scores[j]) / (fabs(ref[i].scores[j]) > 1 ? fabs(ref[i].scores[j]) : 1);
                if (d > worst) worst = d;
            }
            if (out[i].k == ref[i].k && out[i].label == ref[i].label && worst <= 1e-4) {
                printf("ok   %s sample %d: label %d, largest score difference %.2g\n", argv[f], out[i].k,
                       out[i].label, worst);
                ++passed;
            } else {
                printf("FAIL %s sample %d: label %d, %s says %d; largest score difference %.2g\n",
                       argv[f], out[i].k, out[i].label, refpath, ref[i].label, worst);
                ++failed;
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    dataset d;
    int rc = 2;
    if (argc >= 5 && strcmp(argv[1], "inputs") == 0) {
        rc = load_dataset(argv[2], argv[3], atoll(argv[4]), &d) || cmd_inputs(&d, argv[2]);
        free(d.xbytes);
        free(d.ybytes);
    } else if (argc >= 6 && strcmp(argv[1], "run") == 0) {
        rc = load_dataset(argv[3], argv[4], atoll(argv[5]), &d) || cmd_run(&d, argv[2]);
        free(d.xbytes);
        free(d.ybytes);
    } else if (argc >= 4 && strcmp(argv[1], "compare") == 0) {
        rc = cmd_compare(argc, argv);
    } else {
        fprintf(stderr, "usage: mcu_host inputs X.npy Y.npy N | run MODEL.onnx X.npy Y.npy N | "
                        "compare REF OUT... [-- REF OUT...]...\n");
    }
    return rc;
}
