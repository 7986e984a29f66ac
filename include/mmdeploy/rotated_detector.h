/* mmdeploy/rotated_detector.h - MMDeploy's C API, source-compatible: rotated object detection
   (mmrotate). */
#ifndef MMDEPLOY_ROTATED_DETECTOR_H
#define MMDEPLOY_ROTATED_DETECTOR_H

#include "mmdeploy/common.h"
#include "mmdeploy/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmdeploy_rotated_detection_t {
    int label_id;
    float score;
    float rbbox[5];  /* cx, cy, w, h in the input image's pixels, angle in radians */
} mmdeploy_rotated_detection_t;

typedef struct mmdeploy_rotated_detector *mmdeploy_rotated_detector_t;

MMDEPLOY_API int mmdeploy_rotated_detector_create(mmdeploy_model_t model, const char *device_name,
                                                  int device_id, mmdeploy_rotated_detector_t *detector);
MMDEPLOY_API int mmdeploy_rotated_detector_create_by_path(const char *model_path, const char *device_name,
                                                          int device_id, mmdeploy_rotated_detector_t *detector);
/* Detects rotated boxes in mat_count images: *results holds image 0's boxes, then image 1's,
   ...; (*result_count)[i] says how many belong to image i. Free both with _release_result. */
MMDEPLOY_API int mmdeploy_rotated_detector_apply(mmdeploy_rotated_detector_t detector, const mmdeploy_mat_t *mats,
                                                 int mat_count, mmdeploy_rotated_detection_t **results,
                                                 int **result_count);
/* MMDeploy's signature has no count here, unlike the other tasks'. */
MMDEPLOY_API void mmdeploy_rotated_detector_release_result(mmdeploy_rotated_detection_t *results,
                                                           const int *result_count);
MMDEPLOY_API void mmdeploy_rotated_detector_destroy(mmdeploy_rotated_detector_t detector);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_ROTATED_DETECTOR_H */
