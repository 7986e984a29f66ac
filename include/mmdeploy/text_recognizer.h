/* mmdeploy/text_recognizer.h - MMDeploy's C API, source-compatible: text recognition. */
#ifndef MMDEPLOY_TEXT_RECOGNIZER_H
#define MMDEPLOY_TEXT_RECOGNIZER_H

#include "mmdeploy/common.h"
#include "mmdeploy/model.h"
#include "mmdeploy/text_detector.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmdeploy_text_recognition_t {
    char *text;                      /* the text, NUL-terminated (the dictionary's bytes, UTF-8) */
    float *score;                    /* each recognised character's probability */
    int length;                      /* how many characters were recognised (scores) */
} mmdeploy_text_recognition_t;

typedef struct mmdeploy_text_recognizer *mmdeploy_text_recognizer_t;

MMDEPLOY_API int mmdeploy_text_recognizer_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                                 mmdeploy_text_recognizer_t *recognizer);
MMDEPLOY_API int mmdeploy_text_recognizer_create_by_path(const char *model_path, const char *device_name,
                                                         int device_id, mmdeploy_text_recognizer_t *recognizer);
/* One text per image, the whole image. Free with _release_result(results, count). */
MMDEPLOY_API int mmdeploy_text_recognizer_apply(mmdeploy_text_recognizer_t recognizer, const mmdeploy_mat_t *images,
                                                int count, mmdeploy_text_recognition_t **results);
/* One text per box: image i's bbox_count[i] boxes (a text detector's results) each cropped as
   MMDeploy's WarpBbox crops it; results has the sum of bbox_count entries. bboxes or
   bbox_count NULL: as _apply. */
MMDEPLOY_API int mmdeploy_text_recognizer_apply_bbox(mmdeploy_text_recognizer_t recognizer,
                                                     const mmdeploy_mat_t *images, int image_count,
                                                     const mmdeploy_text_detection_t *bboxes, const int *bbox_count,
                                                     mmdeploy_text_recognition_t **results);
MMDEPLOY_API void mmdeploy_text_recognizer_release_result(mmdeploy_text_recognition_t *results, int count);
MMDEPLOY_API void mmdeploy_text_recognizer_destroy(mmdeploy_text_recognizer_t recognizer);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_TEXT_RECOGNIZER_H */
