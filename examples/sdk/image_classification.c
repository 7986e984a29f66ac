/* examples/sdk/image_classification.c - MMDeploy's demo/csrc/c/image_classification, in C on
   mmdeploy_sdk.h, with the same command line:

     image_classification device_name model_dir image_path [output.png]

   prints the top labels as MMDeploy's demo does ("label: 4, score: 0.9982") and writes the
   picture with the best label on it (default output_classification.png). */
#include <stdio.h>

#include "mmdeploy/classifier.h"
#include "draw.h"

int main(int argc, char *argv[]) {
    static const unsigned char white[3] = {255, 255, 255}, black[3] = {0, 0, 0};
    mmdeploy_classifier_t classifier = NULL;
    mmdeploy_classification_t *res = NULL;
    mmdeploy_mat_t mat;
    int *res_count = NULL, status, i, factor;
    picture pic = {NULL, 0, 0};
    char text[64];
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage:\n  image_classification device_name dump_model_directory image_path [output.png]\n");
        return 1;
    }
    if (mmd_image_load(argv[3], &mat) != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to load image: %s\n", argv[3]);
        return 1;
    }
    status = mmdeploy_classifier_create_by_path(argv[2], argv[1], 0, &classifier);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to create classifier, code: %d\n", status);
        mmd_image_free(&mat);
        return 1;
    }
    status = mmdeploy_classifier_apply(classifier, &mat, 1, &res, &res_count);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to apply classifier, code: %d\n", status);
        mmdeploy_classifier_destroy(classifier);
        mmd_image_free(&mat);
        return 1;
    }
    for (i = 0; i < res_count[0]; ++i) fprintf(stderr, "label: %d, score: %.4f\n", res[i].label_id, res[i].score);

    if (res_count[0] > 0 && picture_from_mat(&mat, 256, &pic, &factor)) {
        snprintf(text, sizeof text, "%d (%.2f)", res[0].label_id, res[0].score);
        draw_text(&pic, 4, 4, text, pic.width >= 512 ? 4 : 2, black, white);
        status = write_png(argc == 5 ? argv[4] : "output_classification.png", &pic) ? 0 : 1;
    }
    free(pic.bgr);
    mmdeploy_classifier_release_result(res, res_count, 1);
    mmdeploy_classifier_destroy(classifier);
    mmd_image_free(&mat);
    return status;
}
