/* mmdeploy/detector.h - MMDeploy's C API, source-compatible: object detection. */
#ifndef MMDEPLOY_DETECTOR_H
#define MMDEPLOY_DETECTOR_H

#include "mmdeploy/common.h"
#include "mmdeploy/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A detection's mask, 255 inside and 0 outside: for Mask R-CNN the box grown by a pixel and
   clipped to the image, its corner at (max(floor(left) - 1, 0), max(floor(top) - 1, 0)); for
   RTMDet-Ins as large as the image. */
typedef struct mmdeploy_instance_mask_t {
    char *data;
    int height;
    int width;
} mmdeploy_instance_mask_t;

typedef struct mmdeploy_detection_t {
    int label_id;
    float score;
    mmdeploy_rect_t bbox;            /* in the input image's pixels */
    mmdeploy_instance_mask_t *mask;  /* NULL: boxes only (ResizeBBox), or a box without area */
} mmdeploy_detection_t;

typedef struct mmdeploy_detector *mmdeploy_detector_t;

MMDEPLOY_API int mmdeploy_detector_create(mmdeploy_model_t model, const char *device_name,
                                          int device_id, mmdeploy_detector_t *detector);
MMDEPLOY_API int mmdeploy_detector_create_by_path(const char *model_path, const char *device_name,
                                                  int device_id, mmdeploy_detector_t *detector);
/* Detects objects in mat_count images: *results holds image 0's boxes, then image 1's, ...;
   (*result_count)[i] says how many belong to image i. Free both with _release_result. */
MMDEPLOY_API int mmdeploy_detector_apply(mmdeploy_detector_t detector, const mmdeploy_mat_t *mats,
                                         int mat_count, mmdeploy_detection_t **results,
                                         int **result_count);
MMDEPLOY_API void mmdeploy_detector_release_result(mmdeploy_detection_t *results,
                                                   const int *result_count, int count);
MMDEPLOY_API void mmdeploy_detector_destroy(mmdeploy_detector_t detector);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_DETECTOR_H */
