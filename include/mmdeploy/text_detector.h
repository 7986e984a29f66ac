/* mmdeploy/text_detector.h - MMDeploy's C API, source-compatible: text detection (mmocr DBHead). */
#ifndef MMDEPLOY_TEXT_DETECTOR_H
#define MMDEPLOY_TEXT_DETECTOR_H

#include "mmdeploy/common.h"
#include "mmdeploy/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmdeploy_text_detection_t {
    mmdeploy_point_t bbox[4];        /* the text's quadrilateral, clockwise (on the screen), in
                                        whole pixels of the original image */
    float score;                     /* the mean text probability inside the unexpanded contour */
} mmdeploy_text_detection_t;

typedef struct mmdeploy_text_detector *mmdeploy_text_detector_t;

MMDEPLOY_API int mmdeploy_text_detector_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                               mmdeploy_text_detector_t *detector);
MMDEPLOY_API int mmdeploy_text_detector_create_by_path(const char *model_path, const char *device_name, int device_id,
                                                       mmdeploy_text_detector_t *detector);
/* The boxes of each image, one after the other in *results; (*result_count)[i] of image i.
   Free both with _release_result(results, result_count, mat_count). */
MMDEPLOY_API int mmdeploy_text_detector_apply(mmdeploy_text_detector_t detector, const mmdeploy_mat_t *mats,
                                              int mat_count, mmdeploy_text_detection_t **results, int **result_count);
MMDEPLOY_API void mmdeploy_text_detector_release_result(mmdeploy_text_detection_t *results, const int *result_count,
                                                        int count);
MMDEPLOY_API void mmdeploy_text_detector_destroy(mmdeploy_text_detector_t detector);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_TEXT_DETECTOR_H */
