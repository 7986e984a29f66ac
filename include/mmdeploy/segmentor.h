/* mmdeploy/segmentor.h - MMDeploy's C API, source-compatible: semantic segmentation. */
#ifndef MMDEPLOY_SEGMENTOR_H
#define MMDEPLOY_SEGMENTOR_H

#include "mmdeploy/common.h"
#include "mmdeploy/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmdeploy_segmentation_t {
    int height;    /* the input image's height */
    int width;     /* the input image's width */
    int classes;   /* num_classes of the model */
    int *mask;     /* label of pixel (i, j) at mask[i * width + j]; NULL when the model ends
                      without argmax (with_argmax false) */
    float *score;  /* with_argmax false: classes x height x width scores; else NULL */
} mmdeploy_segmentation_t;

typedef struct mmdeploy_segmentor *mmdeploy_segmentor_t;

MMDEPLOY_API int mmdeploy_segmentor_create(mmdeploy_model_t model, const char *device_name,
                                           int device_id, mmdeploy_segmentor_t *segmentor);
MMDEPLOY_API int mmdeploy_segmentor_create_by_path(const char *model_path, const char *device_name,
                                                   int device_id, mmdeploy_segmentor_t *segmentor);
/* Segments mat_count images into *results (one per image); free with _release_result. */
MMDEPLOY_API int mmdeploy_segmentor_apply(mmdeploy_segmentor_t segmentor, const mmdeploy_mat_t *mats,
                                          int mat_count, mmdeploy_segmentation_t **results);
MMDEPLOY_API void mmdeploy_segmentor_release_result(mmdeploy_segmentation_t *results, int count);
MMDEPLOY_API void mmdeploy_segmentor_destroy(mmdeploy_segmentor_t segmentor);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_SEGMENTOR_H */
