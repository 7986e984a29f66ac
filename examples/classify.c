/* classify.c - label images with an ONNX classifier; the first example of mmdeploy.h.

     build/classify MODEL.onnx IMAGE... [--top K]

   prints one line per image with its K (default 3) best labels and their softmax scores:

     $ build/classify examples/models/digits.onnx examples/images/digit_4_0.png
     examples/images/digit_4_0.png: 4 (0.998), 8 (0.001), 6 (0.000)

   Each image (anything stb_image reads) is loaded as gray, box-averaged down to the height and
   width of the model's input (N,1,H,W), and scaled as examples/train_digits.py scaled its data:
   0..255 back to the dataset's ink levels 0..16, then divided by 16. The digits model wants
   light strokes on a dark background. The model's first output holds one raw score per label.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>

#include "mmdeploy.h"

/* Reads a whole file into a malloc'd buffer; NULL (with a message) when it cannot. */
static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (unsigned char *)malloc((size_t)n)) != NULL &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    if (!buf) fprintf(stderr, "classify: cannot read %s\n", path);
    *size = buf ? (size_t)n : 0;
    return buf;
}

/* Averages the w x h gray image over an out_w x out_h grid of boxes, each box the source pixels
   that fall into that output pixel (at least one, so small images get upscaled). The digits
   dataset holds whole ink levels 0..16, so the average is rounded to one: an image written by
   train_digits.py then comes back as exactly the input the model was trained on. */
static void to_model_input(const unsigned char *gray, int w, int h, int64_t out_w, int64_t out_h,
                           float *out) {
    int64_t oy, ox, y, x;
    for (oy = 0; oy < out_h; ++oy) {
        int64_t y0 = oy * h / out_h, y1 = (oy + 1) * h / out_h;
        if (y1 <= y0) y1 = y0 + 1;
        for (ox = 0; ox < out_w; ++ox) {
            int64_t x0 = ox * w / out_w, x1 = (ox + 1) * w / out_w;
            double sum = 0;
            if (x1 <= x0) x1 = x0 + 1;
            for (y = y0; y < y1; ++y)
                for (x = x0; x < x1; ++x) sum += gray[y * w + x];
            sum /= (double)((y1 - y0) * (x1 - x0));
            out[oy * out_w + ox] = (float)(floor(sum * 16.0 / 255.0 + 0.5) / 16.0);
        }
    }
}

/* Prints "PATH: label (score), ..." for the k best of n raw scores, scored by softmax. */
static void print_top(const char *path, const float *logits, int64_t n, int64_t k, int64_t *idx) {
    double max = logits[0], sum = 0;
    int64_t i, j;
    for (i = 0; i < n; ++i) {
        idx[i] = i;
        if (logits[i] > max) max = logits[i];
    }
    /* Subtracting the largest score keeps exp() from overflowing; the ratios are unchanged. */
    for (i = 0; i < n; ++i) sum += exp(logits[i] - max);
    printf("%s:", path);
    for (i = 0; i < k; ++i) {
        /* A partial selection sort: k is a handful, n the label count. */
        for (j = i + 1; j < n; ++j)
            if (logits[idx[j]] > logits[idx[i]]) {
                int64_t t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
            }
        printf("%s %lld (%.3f)", i ? "," : "", (long long)idx[i], exp(logits[idx[i]] - max) / sum);
    }
    printf("\n");
}

int main(int argc, char **argv) {
    mmd_session *s = NULL;
    mmd_error err; /* filled by whichever call fails */
    const mmd_tensor *in, *out;
    int64_t dims[4], top = 3, *idx = NULL;
    float *pixels = NULL;
    size_t size;
    void *model;
    int i, status = 0;

    for (i = 2; i < argc; ++i)
        if (strcmp(argv[i], "--top") == 0) top = ++i < argc ? atoi(argv[i]) : 0;
    if (argc < 3 || top < 1) {
        fprintf(stderr, "usage: classify MODEL.onnx IMAGE... [--top K]  (K >= 1)\n");
        return 2;
    }
    if (!(model = read_file(argv[1], &size))) return 1;
    if (mmd_session_create(model, size, NULL, &s, &err) != MMD_OK) {
        fprintf(stderr, "classify: %s: %s\n", argv[1], err.msg);
        free(model);
        return 1;
    }
    /* The model decides the image size; only its batch is ours to set, to one image. */
    in = mmd_session_input(s, 0);
    if (!in || in->rank != 4 || in->dims[1] != 1 || in->dim_params[2] || in->dim_params[3] ||
        in->dtype != MMD_DTYPE_FLOAT32) {
        fprintf(stderr, "classify: %s: want a float32 input (N,1,H,W) with fixed H and W\n",
                argv[1]);
        status = 1;
        goto done;
    }
    dims[0] = 1;
    dims[1] = 1;
    dims[2] = in->dims[2];
    dims[3] = in->dims[3];
    pixels = (float *)malloc((size_t)(dims[2] * dims[3]) * sizeof(float));
    if (!pixels) {
        fprintf(stderr, "classify: out of memory\n");
        status = 1;
        goto done;
    }

    for (i = 2; i < argc; ++i) {
        int w, h, channels;
        unsigned char *gray;
        if (strcmp(argv[i], "--top") == 0) {
            ++i;
            continue;
        }
        if (!(gray = stbi_load(argv[i], &w, &h, &channels, 1))) {
            fprintf(stderr, "classify: %s: %s\n", argv[i], stbi_failure_reason());
            status = 1;
            continue;
        }
        to_model_input(gray, w, h, dims[3], dims[2], pixels);
        stbi_image_free(gray);
        if (mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 4, dims, pixels, &err) != MMD_OK ||
            mmd_session_prepare(s, &err) != MMD_OK || mmd_session_run(s, &err) != MMD_OK) {
            fprintf(stderr, "classify: %s: %s\n", argv[i], err.msg);
            status = 1;
            goto done;
        }
        out = mmd_session_output(s, 0);
        if (out->dtype != MMD_DTYPE_FLOAT32 || mmd_tensor_numel(out) < 1) {
            fprintf(stderr, "classify: %s: want float32 scores as output 0\n", argv[1]);
            status = 1;
            goto done;
        }
        if (!idx && !(idx = (int64_t *)malloc((size_t)mmd_tensor_numel(out) * sizeof(int64_t)))) {
            fprintf(stderr, "classify: out of memory\n");
            status = 1;
            goto done;
        }
        print_top(argv[i], (const float *)out->data, mmd_tensor_numel(out),
                  top < mmd_tensor_numel(out) ? top : mmd_tensor_numel(out), idx);
    }
done:
    free(idx);
    free(pixels);
    mmd_session_destroy(s);
    free(model);
    return status;
}
