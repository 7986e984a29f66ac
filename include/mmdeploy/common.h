/* mmdeploy/common.h - MMDeploy's C API, source-compatible: types shared by every task.
   Implemented by mmdeploy_sdk.h on the mmdeploy.h runtime; names, enums, structs and
   signatures are MMDeploy's (csrc/mmdeploy/apis/c/mmdeploy/common.h), so that a program
   written for MMDeploy's SDK builds unchanged. Only what the implemented tasks use is
   declared: contexts, values, profilers and the v2/async entry points are not. */
#ifndef MMDEPLOY_COMMON_H
#define MMDEPLOY_COMMON_H

#include <stdint.h>

#ifndef MMDEPLOY_API
#define MMDEPLOY_API
#endif

typedef enum mmdeploy_pixel_format_t {
    MMDEPLOY_PIXEL_FORMAT_BGR,
    MMDEPLOY_PIXEL_FORMAT_RGB,
    MMDEPLOY_PIXEL_FORMAT_GRAYSCALE,
    MMDEPLOY_PIXEL_FORMAT_NV12,
    MMDEPLOY_PIXEL_FORMAT_NV21,
    MMDEPLOY_PIXEL_FORMAT_BGRA,
    MMDEPLOY_PIXEL_FORMAT_COUNT
} mmdeploy_pixel_format_t;

typedef enum mmdeploy_data_type_t {
    MMDEPLOY_DATA_TYPE_FLOAT,
    MMDEPLOY_DATA_TYPE_HALF,
    MMDEPLOY_DATA_TYPE_UINT8,
    MMDEPLOY_DATA_TYPE_INT32,
    MMDEPLOY_DATA_TYPE_COUNT
} mmdeploy_data_type_t;

typedef enum mmdeploy_status_t {
    MMDEPLOY_SUCCESS = 0,
    MMDEPLOY_E_INVALID_ARG = 1,
    MMDEPLOY_E_NOT_SUPPORTED = 2,
    MMDEPLOY_E_OUT_OF_RANGE = 3,
    MMDEPLOY_E_OUT_OF_MEMORY = 4,
    MMDEPLOY_E_FILE_NOT_EXIST = 5,
    MMDEPLOY_E_FAIL = 6,
    MMDEPLOY_STATUS_COUNT = 7
} mmdeploy_status_t;

typedef struct mmdeploy_device *mmdeploy_device_t;

/* An image: data holds height rows of width * channel bytes (8-bit formats). */
typedef struct mmdeploy_mat_t {
    uint8_t *data;
    int height;
    int width;
    int channel;
    mmdeploy_pixel_format_t format;
    mmdeploy_data_type_t type;
    mmdeploy_device_t device;
} mmdeploy_mat_t;

typedef struct mmdeploy_rect_t {
    float left;
    float top;
    float right;
    float bottom;
} mmdeploy_rect_t;

typedef struct mmdeploy_point_t {
    float x;
    float y;
} mmdeploy_point_t;

#endif /* MMDEPLOY_COMMON_H */
