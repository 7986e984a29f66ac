/* examples/sdk/draw.h - the little drawing the SDK demos need, on 8-bit BGR pictures: boxes,
   lines, text (stb_easy_font's segment font, scaled), upscaling small pictures, and writing a
   PNG with stb_image_write. Header-only for the examples; not part of the library. */
#ifndef MMD_EXAMPLES_DRAW_H
#define MMD_EXAMPLES_DRAW_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image_write.h>
/* stb_easy_font's functions are static and the demos use only some of them. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "mmdeploy_sdk.h"

typedef struct picture {
    unsigned char *bgr;              /* height x width x 3, malloc'd */
    int width, height;
} picture;

/* A copy of the mat as a BGR picture, scaled up (nearest) by a whole factor so that its short
   side is at least min_side pixels. *factor gets the scale. 0 on failure. */
static inline int picture_from_mat(const mmdeploy_mat_t *mat, int min_side, picture *p, int *factor) {
    int short_side = mat->width < mat->height ? mat->width : mat->height, f = 1;
    while (short_side * f < min_side && f < 64) ++f;
    p->width = mat->width * f;
    p->height = mat->height * f;
    p->bgr = (unsigned char *)malloc((size_t)p->width * (size_t)p->height * 3);
    *factor = f;
    return p->bgr && mmd_image_resize_u8(mat->data, mat->height, mat->width, 3, p->bgr, p->height,
                                         p->width, MMD_IMAGE_NEAREST) == MMDEPLOY_SUCCESS;
}

static inline void fill_rect(picture *p, int x0, int y0, int x1, int y1, const unsigned char bgr[3]) {
    int x, y;
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > p->width ? p->width : x1;
    y1 = y1 > p->height ? p->height : y1;
    for (y = y0; y < y1; ++y)
        for (x = x0; x < x1; ++x) memcpy(p->bgr + ((size_t)y * p->width + x) * 3, bgr, 3);
}

/* The outline of a box, t pixels thick. */
static inline void draw_box(picture *p, float l, float t, float r, float b, int thick, const unsigned char bgr[3]) {
    int x0 = (int)l, y0 = (int)t, x1 = (int)r + 1, y1 = (int)b + 1;
    fill_rect(p, x0, y0, x1, y0 + thick, bgr);
    fill_rect(p, x0, y1 - thick, x1, y1, bgr);
    fill_rect(p, x0, y0, x0 + thick, y1, bgr);
    fill_rect(p, x1 - thick, y0, x1, y1, bgr);
}

/* A line from (x0, y0) to (x1, y1), t pixels thick: a t x t square at each step of the longer
   axis (a text box's side). */
static inline void draw_line(picture *p, float x0, float y0, float x1, float y1, int thick, const unsigned char bgr[3]) {
    float dx = x1 - x0, dy = y1 - y0, ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy, len = ax > ay ? ax : ay;
    int n, i;
    /* Boxes may lie far outside the picture: only sensible lengths are stepped (and converted:
       a length past int's range, or NaN, would make the conversion undefined). */
    if (!(len <= 4.0f * (float)(p->width + p->height))) return;
    n = (int)len;
    for (i = 0; i <= n; ++i) {
        float t = n ? (float)i / (float)n : 0.0f;
        int x = (int)(x0 + t * dx) - thick / 2, y = (int)(y0 + t * dy) - thick / 2;
        fill_rect(p, x, y, x + thick, y + thick, bgr);
    }
}

/* Text at (x, y), scale pixels per font unit, on a filled background. */
static inline void draw_text(picture *p, int x, int y, const char *text, int scale, const unsigned char fg[3],
                      const unsigned char bg[3]) {
    static char quads[64 * 1024];
    char buf[256];
    int n, i;
    snprintf(buf, sizeof buf, "%s", text);
    fill_rect(p, x, y, x + (stb_easy_font_width(buf) + 2) * scale, y + 10 * scale, bg);
    n = stb_easy_font_print(0.0f, 0.0f, buf, NULL, quads, (int)sizeof quads);
    for (i = 0; i < n; ++i) {
        /* Each quad is four vertices of 16 bytes: x, y, z as floats, then a colour. */
        const float *v0 = (const float *)(quads + (size_t)i * 64), *v2 = (const float *)(quads + (size_t)i * 64 + 32);
        fill_rect(p, x + (int)((v0[0] + 1.0f) * scale), y + (int)((v0[1] + 1.0f) * scale),
                  x + (int)((v2[0] + 1.0f) * scale), y + (int)((v2[1] + 1.0f) * scale), fg);
    }
}

/* Colour k of a fixed palette (well spread hues from a multiplicative hash). MMDeploy's demos
   draw theirs from std::mt19937 through uniform_int_distribution, whose results the C++
   standard leaves to the library, so the colours are not theirs. */
static inline void palette_color(int k, unsigned char bgr[3]) {
    unsigned int h = (unsigned int)k * 2654435761u + 0x9e3779b9u;
    bgr[0] = (unsigned char)(h >> 24);
    bgr[1] = (unsigned char)(h >> 16);
    bgr[2] = (unsigned char)(h >> 8);
}

/* Pixel (x, y) halfway to the colour, as MMDeploy's img * 0.5 + color_mask * 0.5 (rounded). */
static inline void blend_pixel(picture *p, int x, int y, const unsigned char bgr[3]) {
    unsigned char *q = p->bgr + ((size_t)y * (size_t)p->width + (size_t)x) * 3;
    int c;
    for (c = 0; c < 3; ++c) q[c] = (unsigned char)((q[c] + bgr[c] + 1) / 2);
}

/* Writes the picture as an RGB PNG; 0 on failure (message printed). */
static inline int write_png(const char *path, const picture *p) {
    size_t i, n = (size_t)p->width * (size_t)p->height;
    unsigned char *rgb = (unsigned char *)malloc(n * 3);
    int ok;
    if (!rgb) return 0;
    for (i = 0; i < n; ++i) {
        rgb[3 * i] = p->bgr[3 * i + 2];
        rgb[3 * i + 1] = p->bgr[3 * i + 1];
        rgb[3 * i + 2] = p->bgr[3 * i];
    }
    ok = stbi_write_png(path, p->width, p->height, 3, rgb, p->width * 3);
    free(rgb);
    if (!ok) fprintf(stderr, "cannot write %s\n", path);
    return ok;
}

#endif /* MMD_EXAMPLES_DRAW_H */
