/* mmdeploy/model.h - MMDeploy's C API, source-compatible: SDK model directories.
   A model is a directory as MMDeploy's converter writes it with --dump-info: deploy.json,
   pipeline.json, detail.json and the network (end2end.onnx). */
#ifndef MMDEPLOY_SRC_APIS_C_MODEL_H_
#define MMDEPLOY_SRC_APIS_C_MODEL_H_

#include "mmdeploy/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmdeploy_model *mmdeploy_model_t;

/* Loads and validates the model directory at path. Returns an mmdeploy_status_t. */
MMDEPLOY_API int mmdeploy_model_create_by_path(const char *path, mmdeploy_model_t *model);
/* MMDeploy's packed single-buffer models are not read: MMDEPLOY_E_NOT_SUPPORTED. */
MMDEPLOY_API int mmdeploy_model_create(const void *buffer, int size, mmdeploy_model_t *model);
MMDEPLOY_API void mmdeploy_model_destroy(mmdeploy_model_t model);

#ifdef __cplusplus
}
#endif

#endif /* MMDEPLOY_SRC_APIS_C_MODEL_H_ */
