/* examples/sdk/image_segmentation.c - MMDeploy's demo/csrc/c/image_segmentation, in C on
   mmdeploy_sdk.h, with the same command line:

     image_segmentation device_name model_path image_path [output.png]

   colours each pixel by its class (the argmax of the scores when the model ends without one)
   and writes the image blended halfway with the colours (default output_segmentation.png), as
   MMDeploy's demo does; the palette is draw.h's. Prints the pixel count of each class. */
#include <stdio.h>

#include "mmdeploy/segmentor.h"
#include "draw.h"

int main(int argc, char *argv[]) {
    mmdeploy_segmentor_t segmentor = NULL;
    mmdeploy_segmentation_t *result = NULL;
    mmdeploy_mat_t mat;
    int status, factor, x, y, k;
    long *counts = NULL;
    picture pic = {NULL, 0, 0};
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage:\n  image_segmentation device_name model_path image_path [output.png]\n");
        return 1;
    }
    if (mmd_image_load(argv[3], &mat) != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to load image: %s\n", argv[3]);
        return 1;
    }
    status = mmdeploy_segmentor_create_by_path(argv[2], argv[1], 0, &segmentor);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to create segmentor, code: %d\n", status);
        mmd_image_free(&mat);
        return 1;
    }
    status = mmdeploy_segmentor_apply(segmentor, &mat, 1, &result);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to apply segmentor, code: %d\n", status);
        mmdeploy_segmentor_destroy(segmentor);
        mmd_image_free(&mat);
        return 1;
    }
    /* Labels come from the network: one past the classes counts the ones outside them. */
    if (!(counts = (long *)calloc((size_t)result->classes + 1, sizeof *counts)) || !picture_from_mat(&mat, 1, &pic, &factor))
        status = 1;
    for (y = 0; y < result->height && !status; ++y)
        for (x = 0; x < result->width; ++x) {
            size_t at = (size_t)y * (size_t)result->width + (size_t)x, total = (size_t)result->height * result->width;
            unsigned char color[3];
            if (result->mask) {
                k = result->mask[at];
            } else {
                int c;
                for (k = 0, c = 1; c < result->classes; ++c)
                    if (result->score[(size_t)c * total + at] > result->score[(size_t)k * total + at]) k = c;
            }
            k = k >= 0 && k < result->classes ? k : result->classes;
            counts[k]++;
            palette_color(k, color);
            blend_pixel(&pic, x, y, color);
        }
    for (k = 0; k <= result->classes && !status; ++k)
        if (counts[k]) fprintf(stdout, "class %d%s: %ld pixels\n", k, k == result->classes ? " (outside)" : "", counts[k]);
    if (!status) status = write_png(argc == 5 ? argv[4] : "output_segmentation.png", &pic) ? 0 : 1;
    free(counts);
    free(pic.bgr);
    mmdeploy_segmentor_release_result(result, 1);
    mmdeploy_segmentor_destroy(segmentor);
    mmd_image_free(&mat);
    return status;
}
