/* mmdeploy/pose_detector.h - MMDeploy's C API, source-compatible: top-down pose estimation. */
#ifndef MMDEPLOY_POSE_DETECTOR_H
#define MMDEPLOY_POSE_DETECTOR_H

#include "mmdeploy/common.h"
#include "mmdeploy/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmdeploy_pose_detection_t {
    mmdeploy_point_t *point;         /* keypoints, in the input image's pixels */
    float *score;                    /* each keypoint's score */
    int length;                      /* how many keypoints */
} mmdeploy_pose_detection_t;

typedef struct mmdeploy_pose_detector *mmdeploy_pose_detector_t;

MMDEPLOY_API int mmdeploy_pose_detector_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                               mmdeploy_pose_detector_t *detector);
MMDEPLOY_API int mmdeploy_pose_detector_create_by_path(const char *model_path, const char *device_name,
                                                       int device_id, mmdeploy_pose_detector_t *detector);
/* One pose per image, the whole image as the person's box. Free with _release_result(results,
   mat_count). */
MMDEPLOY_API int mmdeploy_pose_detector_apply(mmdeploy_pose_detector_t detector, const mmdeploy_mat_t *mats,
                                              int mat_count, mmdeploy_pose_detection_t **results);
/* One pose per box: bbox_count[i] boxes (left, top, right, bottom, all included) for image i,
   one after the other in bboxes; results in the same order. bboxes or bbox_count NULL: as
   _apply. Free with _release_result(results, total number of boxes). */
MMDEPLOY_API int mmdeploy_pose_detector_apply_bbox(mmdeploy_pose_detector_t detector, const mmdeploy_mat_t *mats,
                                                   int mat_count, const mmdeploy_rect_t *bboxes,
                                                   const int *bbox_count, mmdeploy_pose_detection_t **results);
MMDEPLOY_API void mmdeploy_pose_detector_release_result(mmdeploy_pose_detection_t *results, int count);
MMDEPLOY_API void mmdeploy_pose_detector_destroy(mmdeploy_pose_detector_t detector);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_POSE_DETECTOR_H */
