/* examples/sdk/rotated_object_detection.c - MMDeploy's demo/csrc/c/rotated_object_detection, in
   C on mmdeploy_sdk.h, with the same command line and an optional output path:

     rotated_object_detection device_name model_path image_path [output.png]

   writes the picture with the rotated boxes of score 0.1 and more drawn as MMDeploy's demo draws
   them (default output_rotated_detection.png), and prints each box. */
#include <math.h>
#include <stdio.h>

#include "mmdeploy/rotated_detector.h"
#include "draw.h"

int main(int argc, char *argv[]) {
    static const unsigned char green[3] = {0, 255, 0};
    mmdeploy_rotated_detector_t detector = NULL;
    mmdeploy_rotated_detection_t *rbboxes = NULL;
    mmdeploy_mat_t mat;
    int *res_count = NULL, status, i, k, factor;
    picture pic = {NULL, 0, 0};
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage:\n  rotated_object_detection device_name model_path image_path [output.png]\n");
        return 1;
    }
    if (mmd_image_load(argv[3], &mat) != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to load image: %s\n", argv[3]);
        return 1;
    }
    status = mmdeploy_rotated_detector_create_by_path(argv[2], argv[1], 0, &detector);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to create rotated detector, code: %d\n", status);
        mmd_image_free(&mat);
        return 1;
    }
    status = mmdeploy_rotated_detector_apply(detector, &mat, 1, &rbboxes, &res_count);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to apply rotated detector, code: %d\n", status);
        mmdeploy_rotated_detector_destroy(detector);
        mmd_image_free(&mat);
        return 1;
    }
    fprintf(stdout, "bbox_count=%d\n", *res_count);
    if (!picture_from_mat(&mat, 1, &pic, &factor)) status = 1;
    for (i = 0; i < *res_count && !status; ++i) {
        /* MMDeploy's demo: the corners from the centre, the half sides along the angle and
           across it; scores under 0.1 skipped. */
        const float *r = rbboxes[i].rbbox;
        float wx = r[2] / 2 * cosf(r[4]), wy = r[2] / 2 * sinf(r[4]);
        float hx = -r[3] / 2 * sinf(r[4]), hy = r[3] / 2 * cosf(r[4]);
        float px[4], py[4];
        fprintf(stdout, "box %d, cx=%.2f, cy=%.2f, w=%.2f, h=%.2f, angle=%.4f, label=%d, score=%.4f\n", i, r[0], r[1],
                r[2], r[3], r[4], rbboxes[i].label_id, rbboxes[i].score);
        if (rbboxes[i].score < 0.1f) continue;
        px[0] = r[0] - wx - hx, py[0] = r[1] - wy - hy;
        px[1] = r[0] + wx - hx, py[1] = r[1] + wy - hy;
        px[2] = r[0] + wx + hx, py[2] = r[1] + wy + hy;
        px[3] = r[0] - wx + hx, py[3] = r[1] - wy + hy;
        for (k = 0; k < 4; ++k) draw_line(&pic, px[k], py[k], px[(k + 1) % 4], py[(k + 1) % 4], 2, green);
    }
    if (!status) status = write_png(argc == 5 ? argv[4] : "output_rotated_detection.png", &pic) ? 0 : 1;
    free(pic.bgr);
    mmdeploy_rotated_detector_release_result(rbboxes, res_count);
    mmdeploy_rotated_detector_destroy(detector);
    mmd_image_free(&mat);
    return status;
}
