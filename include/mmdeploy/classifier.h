/* mmdeploy/classifier.h - MMDeploy's C API, source-compatible: image classification. */
#ifndef MMDEPLOY_CLASSIFIER_H
#define MMDEPLOY_CLASSIFIER_H

#include "mmdeploy/common.h"
#include "mmdeploy/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmdeploy_classification_t {
    int label_id;
    float score;
} mmdeploy_classification_t;

typedef struct mmdeploy_classifier *mmdeploy_classifier_t;

/* A classifier from a loaded model (which may be destroyed afterwards) on device_name ("cpu"). */
MMDEPLOY_API int mmdeploy_classifier_create(mmdeploy_model_t model, const char *device_name,
                                            int device_id, mmdeploy_classifier_t *classifier);
MMDEPLOY_API int mmdeploy_classifier_create_by_path(const char *model_path, const char *device_name,
                                                    int device_id, mmdeploy_classifier_t *classifier);
/* Classifies mat_count images: *results holds the top-k of image 0, then of image 1, ...;
   (*result_count)[i] says how many belong to image i. Free both with _release_result. */
MMDEPLOY_API int mmdeploy_classifier_apply(mmdeploy_classifier_t classifier, const mmdeploy_mat_t *mats,
                                           int mat_count, mmdeploy_classification_t **results,
                                           int **result_count);
MMDEPLOY_API void mmdeploy_classifier_release_result(mmdeploy_classification_t *results,
                                                     const int *result_count, int count);
MMDEPLOY_API void mmdeploy_classifier_destroy(mmdeploy_classifier_t classifier);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_CLASSIFIER_H */
