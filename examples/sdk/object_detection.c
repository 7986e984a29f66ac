/* examples/sdk/object_detection.c - MMDeploy's demo/csrc/c/object_detection, in C on
   mmdeploy_sdk.h, with the same command line:

     object_detection device_name model_path image_path [output.png]

   prints the boxes as MMDeploy's demo does and writes the picture with the boxes of score 0.3
   and more, each labelled (default output_detection.png). Instance masks (ResizeInstanceMask)
   are ORed into the blue channel as MMDeploy's demo does: a mask as large as the image over
   all of it, else from the corner (floor(left) - 1, floor(top) - 1), clipped at 0. */
#include <stdio.h>

#include "mmdeploy/detector.h"
#include "draw.h"

/* MMDeploy's demo: cv::bitwise_or of the mask into channel 0 of its region. The region is
   clipped to the picture, where OpenCV's ROI would throw. */
static void draw_mask(picture *p, const mmdeploy_detection_t *d) {
    const mmdeploy_instance_mask_t *m = d->mask;
    int x0 = 0, y0 = 0, x, y;
    if (m->height != p->height || m->width != p->width) {
        x0 = (int)(d->bbox.left) - 1, y0 = (int)(d->bbox.top) - 1;
        x0 = x0 > 0 ? x0 : 0, y0 = y0 > 0 ? y0 : 0;
    }
    for (y = 0; y < m->height && y0 + y < p->height; ++y)
        for (x = 0; x < m->width && x0 + x < p->width; ++x)
            p->bgr[((size_t)(y0 + y) * (size_t)p->width + (size_t)(x0 + x)) * 3] |= (unsigned char)m->data[(size_t)y * m->width + x];
}

int main(int argc, char *argv[]) {
    static const unsigned char green[3] = {0, 255, 0}, black[3] = {0, 0, 0};
    mmdeploy_detector_t detector = NULL;
    mmdeploy_detection_t *bboxes = NULL;
    mmdeploy_mat_t mat;
    int *res_count = NULL, status, i, factor;
    picture pic = {NULL, 0, 0};
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage:\n  object_detection device_name model_path image_path [output.png]\n");
        return 1;
    }
    if (mmd_image_load(argv[3], &mat) != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to load image: %s\n", argv[3]);
        return 1;
    }
    status = mmdeploy_detector_create_by_path(argv[2], argv[1], 0, &detector);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to create detector, code: %d\n", status);
        mmd_image_free(&mat);
        return 1;
    }
    status = mmdeploy_detector_apply(detector, &mat, 1, &bboxes, &res_count);
    if (status != MMDEPLOY_SUCCESS) {
        fprintf(stderr, "failed to apply detector, code: %d\n", status);
        mmdeploy_detector_destroy(detector);
        mmd_image_free(&mat);
        return 1;
    }
    fprintf(stdout, "bbox_count=%d\n", *res_count);
    if (!picture_from_mat(&mat, 1, &pic, &factor)) status = 1;
    for (i = 0; i < *res_count && !status; ++i) {
        const mmdeploy_rect_t *box = &bboxes[i].bbox;
        char text[64];
        fprintf(stdout, "box %d, left=%.2f, top=%.2f, right=%.2f, bottom=%.2f, label=%d, score=%.4f\n", i, box->left,
                box->top, box->right, box->bottom, bboxes[i].label_id, bboxes[i].score);
        /* As MMDeploy's demo: skip boxes under a pixel and scores under 0.3. */
        if (box->right - box->left < 1 || box->bottom - box->top < 1 || bboxes[i].score < 0.3f) continue;
        if (bboxes[i].mask) {
            fprintf(stdout, "mask %d, height=%d, width=%d\n", i, bboxes[i].mask->height, bboxes[i].mask->width);
            draw_mask(&pic, &bboxes[i]);
        }
        draw_box(&pic, box->left, box->top, box->right, box->bottom, 2, green);
        snprintf(text, sizeof text, "%d %.2f", bboxes[i].label_id, bboxes[i].score);
        draw_text(&pic, (int)box->left, (int)box->top, text, 2, black, green);
    }
    if (!status) status = write_png(argc == 5 ? argv[4] : "output_detection.png", &pic) ? 0 : 1;
    free(pic.bgr);
    mmdeploy_detector_release_result(bboxes, res_count, 1);
    mmdeploy_detector_destroy(detector);
    mmd_image_free(&mat);
    return status;
}
