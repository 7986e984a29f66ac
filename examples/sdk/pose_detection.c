/* examples/sdk/pose_detection.c - MMDeploy's demo/csrc/c/pose_detection, in C on
   mmdeploy_sdk.h, with the same command line:

     pose_detection device_name model_path image_path [output.png]

   runs a top-down pose model on the whole image (one person filling it), prints each keypoint
   and writes the picture with the keypoints drawn as green dots (default output_pose.png). */
#include <stdio.h>

#include "mmdeploy/pose_detector.h"
#include "draw.h"

int main(int argc, char *argv[]) {
    static const unsigned char green[3] = {0, 255, 0};
    mmdeploy_pose_detector_t detector = NULL;
    mmdeploy_pose_detection_t *res = NULL;
    mmdeploy_mat_t mat;
    int status, i, factor;
    picture pic = {NULL, 0, 0};
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage:\n  pose_detection device_name model_path image_path [output.png]\n");
        return 1;
    }
    if (mmd_image_load(argv[3], &mat) != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to load image: %s\n", argv[3]);
        return 1;
    }
    status = mmdeploy_pose_detector_create_by_path(argv[2], argv[1], 0, &detector);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to create pose_estimator, code: %d\n", status);
        mmd_image_free(&mat);
        return 1;
    }
    status = mmdeploy_pose_detector_apply(detector, &mat, 1, &res);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to apply pose estimator, code: %d\n", status);
        mmdeploy_pose_detector_destroy(detector);
        mmd_image_free(&mat);
        return 1;
    }
    /* Small pictures are drawn larger, so that the dots stay visible. */
    if (!picture_from_mat(&mat, 256, &pic, &factor)) status = 1;
    for (i = 0; i < res->length && !status; ++i) {
        float x = res->point[i].x * (float)factor, y = res->point[i].y * (float)factor;
        fprintf(stdout, "keypoint %d: x=%.2f, y=%.2f, score=%.4f\n", i, res->point[i].x, res->point[i].y,
                res->score[i]);
        fill_rect(&pic, (int)x - 2, (int)y - 2, (int)x + 3, (int)y + 3, green);
    }
    if (!status) status = write_png(argc == 5 ? argv[4] : "output_pose.png", &pic) ? 0 : 1;
    free(pic.bgr);
    mmdeploy_pose_detector_release_result(res, 1);
    mmdeploy_pose_detector_destroy(detector);
    mmd_image_free(&mat);
    return status;
}
