/* examples/sdk/ocr.c - MMDeploy's demo/csrc/c/ocr, in C on mmdeploy_sdk.h, with the same
   command line:

     ocr device_name det_model_path reg_model_path image_path [output.png]

   finds the text boxes, reads each one (the recognizer's _apply_bbox crops them), prints them
   as MMDeploy's demo does and writes the picture with each box outlined and its text beside
   it (default output_ocr.png, MMDeploy's name). */
#include <stdio.h>

#include "mmdeploy/text_detector.h"
#include "mmdeploy/text_recognizer.h"
#include "draw.h"

int main(int argc, char *argv[]) {
    static const unsigned char green[3] = {0, 255, 0}, black[3] = {0, 0, 0};
    mmdeploy_text_detector_t detector = NULL;
    mmdeploy_text_recognizer_t recognizer = NULL;
    mmdeploy_text_detection_t *bboxes = NULL;
    mmdeploy_text_recognition_t *texts = NULL;
    mmdeploy_mat_t mat;
    int *bbox_count = NULL, status, i, j, factor;
    picture pic = {NULL, 0, 0};
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage:\n  ocr device_name det_model_path reg_model_path image_path [output.png]\n");
        return 1;
    }
    if (mmd_image_load(argv[4], &mat) != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to load image: %s\n", argv[4]);
        return 1;
    }
    status = mmdeploy_text_detector_create_by_path(argv[2], argv[1], 0, &detector);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to create text_detector, code: %d\n", status);
        mmd_image_free(&mat);
        return 1;
    }
    status = mmdeploy_text_recognizer_create_by_path(argv[3], argv[1], 0, &recognizer);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to create text_recognizer, code: %d\n", status);
        mmdeploy_text_detector_destroy(detector);
        mmd_image_free(&mat);
        return 1;
    }
    status = mmdeploy_text_detector_apply(detector, &mat, 1, &bboxes, &bbox_count);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to apply text_detector, code: %d\n", status);
    } else {
        fprintf(stdout, "bbox_count=%d\n", *bbox_count);
        status = mmdeploy_text_recognizer_apply_bbox(recognizer, &mat, 1, bboxes, bbox_count, &texts);
        if (status != MMDEPLOY_SUCCESS) fprintf(stderr, "failed to apply text_recognizer, code: %d\n", status);
    }
    if (status == MMDEPLOY_SUCCESS && !picture_from_mat(&mat, 1, &pic, &factor)) status = 1;
    for (i = 0; status == MMDEPLOY_SUCCESS && i < *bbox_count; ++i) {
        const mmdeploy_point_t *p = bboxes[i].bbox;
        fprintf(stdout, "box[%d]: %s\n", i, texts[i].text);
        for (j = 0; j < 4; ++j) {
            fprintf(stdout, "x: %.2f, y: %.2f, ", p[j].x, p[j].y);
            draw_line(&pic, p[j].x, p[j].y, p[(j + 1) % 4].x, p[(j + 1) % 4].y, 2, green);
        }
        fprintf(stdout, "\n");
        /* The text at the box's leftmost corner, as far as the picture allows. */
        for (j = 1, factor = 0; j < 4; ++j)
            if (p[j].x < p[factor].x) factor = j;
        draw_text(&pic, (int)p[factor].x, (int)p[factor].y, texts[i].text, 1, black, green);
    }
    if (status == MMDEPLOY_SUCCESS) status = write_png(argc == 6 ? argv[5] : "output_ocr.png", &pic) ? 0 : 1;
    free(pic.bgr);
    if (texts) mmdeploy_text_recognizer_release_result(texts, *bbox_count);
    if (bboxes) mmdeploy_text_detector_release_result(bboxes, bbox_count, 1);
    mmdeploy_text_recognizer_destroy(recognizer);
    mmdeploy_text_detector_destroy(detector);
    mmd_image_free(&mat);
    return status ? 1 : 0;
}
