/* mmdeploy_sdk.h - v0.1.0 - MIT licence (see end of file)
   MMDeploy's SDK in C on the mmdeploy.h runtime: model directories, the image pipeline around
   the network, and MMDeploy's C API (the headers in include/mmdeploy) for classification, detection,
   semantic segmentation, top-down pose estimation, text detection, text recognition and rotated
   detection.

   QUICK START
     In exactly one C file (or compile mmdeploy_sdk.c):
         #define MMD_SDK_IMPLEMENTATION
         #include "mmdeploy_sdk.h"
     Then write MMDeploy's API as MMDeploy's demos do:
         mmdeploy_classifier_t c;
         mmdeploy_classifier_create_by_path("work_dir", "cpu", 0, &c);
         mmdeploy_mat_t mat = {pixels, height, width, 3, MMDEPLOY_PIXEL_FORMAT_BGR,
                               MMDEPLOY_DATA_TYPE_UINT8, NULL};
         mmdeploy_classification_t *res; int *count;
         mmdeploy_classifier_apply(c, &mat, 1, &res, &count);
         mmdeploy_classifier_release_result(res, count, 1);
         mmdeploy_classifier_destroy(c);
     Build: cc -std=c99 -I. -Iinclude app.c mmdeploy.c mmdeploy_sdk.c -lcjson -lstb -lm -lpthread

   WHAT IT READS
     The directory MMDeploy's converter writes (tools/deploy.py --dump-info): deploy.json
     (task, models[0].net and backend "onnxruntime"), pipeline.json (the Transform task named
     Preprocess with its transforms, the Net task's input_map, the codebase task's component
     and params) and the network file. detail.json is informational and not read.
     Transforms: LoadImageFromFile, Resize (size, keep_ratio, [short, -1], interpolation
     nearest, bilinear, bicubic or area), CenterCrop, Normalize (mean, std, to_rgb), Pad (size,
     size_divisor, pad_to_square, pad_val), DefaultFormatBundle, ImageToTensor, Collect,
     LetterResize (mmyolo: scale, allow_scale_up, use_mini_pad, stretch_only, pad_val),
     TopDownGetBboxCenterScale (padding, image_size) and TopDownAffine (image_size, use_udp;
     cv::warpAffine's fixed-point bilinear sampling reproduced, rotation 0 as the C API gives),
     RescaleToHeight (height, min_width, max_width, width_divisor).
     Input pixel formats: BGR, RGB, GRAYSCALE, BGRA, NV12 and NV21 (converted as OpenCV's
     cvtColor does).
     Components: mmcls LinearClsHead (topk, softmax), mmdet ResizeBBox (score_thr,
     min_bbox_size; LetterResize's borders taken off) and ResizeInstanceMask (the same and
     mask_thr_binary, is_resize_mask; Mask R-CNN's RoI masks warped into their boxes, or
     RTMDet-Ins's whole-input masks resized to the image), mmseg ResizeMask (with_argmax,
     num_classes), mmpose TopdownHeatmapSimpleHeadDecode (and the four names MMDeploy gives the
     same decode; post_process "default" or "null") and SimCCLabelDecode (simcc_split_ratio,
     input_size), mmocr CTCConvertor (dict_file read from the directory, dict_list or
     dict_type DICT36 / DICT90; with_unknown) and DBHead (mask_thr, min_text_score,
     min_text_width, unclip_ratio, max_candidate(s), rescale, downsample_ratio; text_repr_type
     quad or poly, both giving quadrilaterals as MMDeploy's SDK does), mmrotate ResizeRBBox
     (score_thr; dets [1, N, 6] cx, cy, w, h, angle, score divided by scale_factor as MMDeploy's
     SDK does: no padding taken off, nothing clipped; a box with a NaN score or a value that is
     not finite once rescaled is dropped). Anything else is refused
     when the model loads, with a message naming it. The text recognizer's _apply_bbox crops
     each box as MMDeploy's WarpBbox does (one affine warp, cv::warpAffine's fixed point).

   WHAT IT DOES NOT DO
     DBHead keeps a box when the shorter side of its
     rectangle passes min_text_width (mmocr's rule), where MMDeploy tests the side OpenCV's
     minAreaRect calls width (that choice, and which corner comes first, hang on where OpenCV's
     hull of Clipper's output starts: the corners are OpenCV's, clockwise, but a box's first
     may be another one); the polygon offset is not united into a polygon as Clipper does: a
     grown contour that would enclose a hole (MMDeploy drops it) is boxed, and so are the parts
     of a self-crossing contour's offset that the union (positive winding) drops (2 boxes of
     527 differ on a map of noise, none on text); no DARK ("unbiased"), "megvii" or UDP heatmap
     decoding; no "lanczos" interpolation; no packed single-buffer models (mmdeploy_model_create); no contexts,
     values, profilers or the v2/async entry points; device "cpu" only.

   CONFIGURATION (define before the implementation include)
     MMD_SDK_IMPLEMENTATION    emit the code in this translation unit
     MMD_SDK_LOG(msg)          where error messages go (default: stderr, "mmdeploy: msg"), as
                               MMDeploy's SDK logs its errors; the API itself returns only codes
     MMD_MAX_JSON_BYTES        largest deploy.json, pipeline.json or dictionary file read
                               (default 1 MiB)
     MMD_MAX_IMAGE_SIDE        largest height or width of an input image or of any image a
                               transform makes (default 16384)
     MMD_MAX_IMAGE_PIXELS      largest height x width likewise (default 1 << 26)
     MMD_MAX_IMAGE_FILE_BYTES  largest image file mmd_image_load reads (default 256 MiB)
     MMD_SDK_MAX_TRANSFORMS    most transforms in a pipeline (default 32)

   MEMORY, ERRORS, THREADS
     Handles and results come from malloc; *_release_result and *_destroy free them. Every
     JSON value, size and image is untrusted: wrong types, out-of-range numbers, unknown names,
     missing files and images past the limits give a status and a logged message, never a
     crash. A handle is used by one thread at a time; different handles share nothing.
*/
#ifndef MMDEPLOY_SDK_H
#define MMDEPLOY_SDK_H

#include <stddef.h>
#include <stdint.h>

#include "mmdeploy/classifier.h"
#include "mmdeploy/common.h"
#include "mmdeploy/detector.h"
#include "mmdeploy/model.h"
#include "mmdeploy/pose_detector.h"
#include "mmdeploy/rotated_detector.h"
#include "mmdeploy/segmentor.h"
#include "mmdeploy/text_detector.h"
#include "mmdeploy/text_recognizer.h"

#ifndef MMD_MAX_JSON_BYTES
#define MMD_MAX_JSON_BYTES ((size_t)1 << 20)
#endif
#ifndef MMD_MAX_IMAGE_SIDE
#define MMD_MAX_IMAGE_SIDE 16384
#endif
#ifndef MMD_MAX_IMAGE_PIXELS
#define MMD_MAX_IMAGE_PIXELS ((int64_t)1 << 26)
#endif
#ifndef MMD_MAX_IMAGE_FILE_BYTES
#define MMD_MAX_IMAGE_FILE_BYTES ((size_t)1 << 28)
#endif
#ifndef MMD_SDK_MAX_TRANSFORMS
#define MMD_SDK_MAX_TRANSFORMS 32
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Image interpolations, named as MMDeploy's Resize transform names them. */
typedef enum mmd_image_interp {
    MMD_IMAGE_NEAREST,               /* cv::INTER_NEAREST */
    MMD_IMAGE_BILINEAR,              /* cv::INTER_LINEAR */
    MMD_IMAGE_BICUBIC,               /* cv::INTER_CUBIC */
    MMD_IMAGE_AREA                   /* cv::INTER_AREA */
} mmd_image_interp;

/* What the preprocess passes on to the postprocess, as MMDeploy's img_metas hold it. */
typedef struct mmd_sdk_meta {
    int32_t ori_shape[4];            /* 1, height, width, channels of the input image */
    int32_t img_shape[4];            /* after Resize and CenterCrop */
    int32_t pad_shape[4];            /* after Pad */
    float scale_factor[4];           /* w_scale, h_scale, w_scale, h_scale of Resize */
    int32_t pad_param[4];            /* LetterResize's top, left, bottom, right borders */
    float center[2];                 /* TopDownGetBboxCenterScale: the box's centre x, y */
    float scale[2];                  /* and its padded width, height in units of 200 pixels */
} mmd_sdk_meta;

/* Resizes an 8-bit height x width x channels image into dst (out_h x out_w x channels) as
   OpenCV's cv::resize does (nearest exactly; bilinear, bicubic and area within 1). Host; allocates a few rows of
   scratch; thread safe. Returns an mmdeploy_status_t. */
MMDEPLOY_API int mmd_image_resize_u8(const uint8_t *src, int h, int w, int channels, uint8_t *dst,
                                     int out_h, int out_w, mmd_image_interp interp);
/* Decodes an image file's bytes (anything stb_image reads) as 8-bit BGR into *mat; the
   declared size is checked against the limits before the pixels are allocated. Free it with
   mmd_image_free. Returns an mmdeploy_status_t. */
MMDEPLOY_API int mmd_image_decode(const void *bytes, size_t size, mmdeploy_mat_t *mat);
/* mmd_image_decode on the bytes of a file of at most MMD_MAX_IMAGE_FILE_BYTES. */
MMDEPLOY_API int mmd_image_load(const char *path, mmdeploy_mat_t *mat);
MMDEPLOY_API void mmd_image_free(mmdeploy_mat_t *mat);
/* Runs the model's preprocess on one image: *data (malloc'd, free() it) gets the network's
   input, dims its NCHW shape, meta what the postprocess would use. bbox is the region a pose
   model looks at (NULL: the whole image, as mmdeploy_pose_detector_apply). Returns a status. */
MMDEPLOY_API int mmd_sdk_preprocess(mmdeploy_model_t model, const mmdeploy_mat_t *mat, const mmdeploy_rect_t *bbox,
                                    float **data, int64_t dims[4], mmd_sdk_meta *meta);
/* The model's task as deploy.json names it ("Classifier", "Detector", "Segmentor",
   "PoseDetector", "TextRecognizer", "TextDetector" or "RotatedDetector"), so that a program
   given any model directory knows which handle to create; NULL for a NULL model. */
MMDEPLOY_API const char *mmd_sdk_model_task(mmdeploy_model_t model);

#ifdef __cplusplus
}
#endif
#endif /* MMDEPLOY_SDK_H */

#if defined(MMD_SDK_IMPLEMENTATION) && !defined(MMD_SDK_IMPLEMENTED)
#define MMD_SDK_IMPLEMENTED
/* ==== >>sdk implementation ==== */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>

#include "mmdeploy.h"
#include "mmdeploy_ops.h"

#ifndef MMD_SDK_LOG
#define MMD_SDK_LOG(msg) fprintf(stderr, "mmdeploy: %s\n", (msg))
#endif

/* Formats and logs a message; returns status so that failures read `return mmd__sdk_fail(...)`. */
static int mmd__sdk_fail(int status, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    MMD_SDK_LOG(msg);
    return status;
}

/* ==== >>sdk json ==== */
/* Typed readers over cJSON that refuse what MMDeploy's writer never produces: a wrong type, a
   number that is not a whole number in range, a NaN. `where` names the object for messages. */

static int mmd__json_int(const cJSON *v, const char *where, const char *key, long long lo, long long hi,
                         int32_t *out) {
    double d;
    if (!cJSON_IsNumber(v)) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: '%s' is not a number", where, key);
    d = v->valuedouble;
    if (!(d >= (double)lo && d <= (double)hi) || d != floor(d))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: '%s' = %g is not a whole number in [%lld, %lld]", where,
                             key, d, lo, hi);
    *out = (int32_t)d;
    return MMDEPLOY_SUCCESS;
}

static int mmd__json_float(const cJSON *v, const char *where, const char *key, float *out) {
    if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= 3.0e38))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: '%s' is not a finite number", where, key);
    *out = (float)v->valuedouble;
    return MMDEPLOY_SUCCESS;
}

/* A boolean member, default when absent. */
static int mmd__json_bool(const cJSON *obj, const char *where, const char *key, int32_t dflt, int32_t *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = dflt;
    if (!v || cJSON_IsNull(v)) return MMDEPLOY_SUCCESS;
    if (!cJSON_IsBool(v)) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: '%s' is not true or false", where, key);
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return MMDEPLOY_SUCCESS;
}

/* A list of exactly n numbers (n 0: 1 to 4 of them, the count in *count). */
static int mmd__json_floats(const cJSON *v, const char *where, const char *key, float *out, int32_t n,
                            int32_t *count) {
    int32_t i = 0, size;
    const cJSON *e;
    if (!cJSON_IsArray(v)) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: '%s' is not a list", where, key);
    size = cJSON_GetArraySize(v);
    if (n ? size != n : (size < 1 || size > 4))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: '%s' has %d values", where, key,
                             (int)size);
    cJSON_ArrayForEach(e, v) {
        int st = mmd__json_float(e, where, key, &out[i++]);
        if (st) return st;
    }
    if (count) *count = size;
    return MMDEPLOY_SUCCESS;
}

static const char *mmd__json_string(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Reads a whole file of at most `limit` bytes (plus a NUL) into a malloc'd buffer. */
static int mmd__sdk_read(const char *path, size_t limit, char **out, size_t *size) {
    FILE *f = fopen(path, "rb");
    long n = -1;
    char *buf = NULL;
    *out = NULL;
    if (!f) return mmd__sdk_fail(MMDEPLOY_E_FILE_NOT_EXIST, "cannot open %s", path);
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n < 0 || (unsigned long)n > limit || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return mmd__sdk_fail(n < 0 ? MMDEPLOY_E_FAIL : MMDEPLOY_E_OUT_OF_RANGE,
                             "%s: cannot read it, or it is larger than %llu bytes", path, (unsigned long long)limit);
    }
    buf = (char *)malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return mmd__sdk_fail(buf ? MMDEPLOY_E_FAIL : MMDEPLOY_E_OUT_OF_MEMORY, "%s: read failed", path);
    }
    fclose(f);
    buf[n] = 0;
    *out = buf;
    *size = (size_t)n;
    return MMDEPLOY_SUCCESS;
}

/* ==== >>sdk model ==== */

enum {
    MMD__T_LOAD, MMD__T_RESIZE, MMD__T_CENTER_CROP, MMD__T_NORMALIZE, MMD__T_PAD,
    MMD__T_FORMAT_BUNDLE, MMD__T_TO_TENSOR, MMD__T_COLLECT, MMD__T_LETTER_RESIZE, MMD__T_BBOX_CENTER_SCALE,
    MMD__T_AFFINE, MMD__T_RESCALE_TO_HEIGHT
};
enum {
    MMD__TASK_CLASSIFIER, MMD__TASK_DETECTOR, MMD__TASK_SEGMENTOR, MMD__TASK_POSE, MMD__TASK_TEXT_RECOGNIZER,
    MMD__TASK_TEXT_DETECTOR, MMD__TASK_ROTATED_DETECTOR
};

typedef struct mmd__transform {
    int32_t type;
    int32_t color;                   /* Load: 1 color, 0 grayscale; to_rgb for Normalize */
    int32_t rgb;                     /* Load: channel_order rgb */
    int32_t size[2];                 /* Resize: h, w (w -1: [short, -1]); CenterCrop: h, w;
                                        Pad: w, h as MMDeploy reads it */
    int32_t keep_ratio, interp;
    int32_t divisor, square;         /* Pad */
    float pad_val;
    float mean[4], std[4];
    int32_t channels;                /* Normalize: how many means and stds */
    int32_t scale_up, mini_pad, stretch; /* LetterResize: allow_scale_up, use_mini_pad, stretch_only */
    float padding;                   /* TopDownGetBboxCenterScale */
    int32_t udp;                     /* TopDownAffine: use_udp */
    int32_t min_width, max_width;    /* RescaleToHeight (-1: none), with divisor as width_divisor */
} mmd__transform;

struct mmdeploy_model {
    int32_t task;
    int32_t transform_count;
    mmd__transform transforms[MMD_SDK_MAX_TRANSFORMS];
    char input_name[128];            /* the Net task's input_map["img"] */
    int32_t topk, softmax;           /* LinearClsHead */
    float score_thr, min_bbox_size;  /* ResizeBBox */
    int32_t instance_mask;           /* ResizeInstanceMask: masks as well as boxes */
    int32_t mask_rcnn, resize_mask;  /* its params: "rcnn" present (RoI masks), is_resize_mask */
    float mask_thr_binary;
    int32_t num_classes, with_argmax;/* ResizeMask */
    int32_t simcc;                   /* mmpose: SimCCLabelDecode, else the heatmap decode */
    int32_t quarter_offset;          /* heatmap: post_process "default" (1) or "null" (0) */
    int32_t input_size[2];           /* SimCCLabelDecode: width, height of the network input */
    float split_ratio;               /* SimCCLabelDecode: simcc_split_ratio */
    char dict_file[128];             /* CTCConvertor: dict_file, read once the pipeline is parsed */
    void *dict;                      /* CTCConvertor's characters: dict_count + 1 uint32_t offsets
                                        into the text that follows them (entry 0 the blank) */
    size_t dict_bytes;
    int32_t dict_count, dict_unknown;
    float mask_thr, min_text_score;  /* DBHead */
    float unclip_ratio, downsample_ratio;
    int32_t min_text_width, max_candidates, rescale;
    void *net;                       /* the ONNX bytes */
    size_t net_size;
};

static const char *const mmd__transform_names[] = {
    "LoadImageFromFile", "Resize", "CenterCrop", "Normalize", "Pad", "DefaultFormatBundle",
    "ImageToTensor", "Collect", "LetterResize", "TopDownGetBboxCenterScale", "TopDownAffine", "RescaleToHeight", NULL};

/* Two ints from `n` or [a, b] (for CenterCrop and Pad sizes). */
static int mmd__json_pair(const cJSON *v, const char *where, const char *key, int32_t lo, int32_t *out) {
    int st;
    if (cJSON_IsNumber(v)) {
        st = mmd__json_int(v, where, key, lo, MMD_MAX_IMAGE_SIDE, &out[0]);
        out[1] = out[0];
        return st;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: '%s' is neither a number nor a list of two", where, key);
    st = mmd__json_int(cJSON_GetArrayItem(v, 0), where, key, lo, MMD_MAX_IMAGE_SIDE, &out[0]);
    if (!st) st = mmd__json_int(cJSON_GetArrayItem(v, 1), where, key, -1, MMD_MAX_IMAGE_SIDE, &out[1]);
    return st;
}

/* Resize's and LetterResize's interpolation (bilinear when absent). */
static int mmd__json_interp(const cJSON *j, const char *where, int32_t *interp) {
    const char *s = mmd__json_string(j, "interpolation");
    if (!s || strcmp(s, "bilinear") == 0) *interp = MMD_IMAGE_BILINEAR;
    else if (strcmp(s, "nearest") == 0) *interp = MMD_IMAGE_NEAREST;
    else if (strcmp(s, "bicubic") == 0) *interp = MMD_IMAGE_BICUBIC;
    else if (strcmp(s, "area") == 0) *interp = MMD_IMAGE_AREA;
    else return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: interpolation '%s' is not supported", where, s);
    return MMDEPLOY_SUCCESS;
}

/* Pad's and LetterResize's pad_val: a number, or {"img": n} / {"img": [n, ...]} (the first). */
static int mmd__json_pad_val(const cJSON *j, const char *where, float *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "pad_val");
    if (cJSON_IsObject(v)) v = cJSON_GetObjectItemCaseSensitive(v, "img");
    if (cJSON_IsArray(v)) v = cJSON_GetArrayItem(v, 0);
    return v ? mmd__json_float(v, where, "pad_val", out) : MMDEPLOY_SUCCESS;
}

static int mmd__parse_transform(const cJSON *j, mmd__transform *t) {
    const char *type = mmd__json_string(j, "type"), *s;
    char where[96];
    const cJSON *v;
    int32_t k;
    int st = 0;
    if (!type) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json: a transform without a 'type'");
    for (k = 0; mmd__transform_names[k] && strcmp(mmd__transform_names[k], type) != 0; ++k) {
    }
    if (!mmd__transform_names[k])
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "pipeline.json: transform '%s' is not supported", type);
    memset(t, 0, sizeof *t);
    t->type = k;
    snprintf(where, sizeof where, "pipeline.json %s", type);
    switch (k) {
    case MMD__T_LOAD:
        s = mmd__json_string(j, "color_type");
        t->color = !s || strcmp(s, "color") == 0 || strcmp(s, "color_ignore_orientation") == 0;
        if (s && !t->color && strcmp(s, "grayscale") != 0)
            return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: color_type '%s' is not supported", where, s);
        s = mmd__json_string(j, "channel_order");
        t->rgb = s && strcmp(s, "rgb") == 0;
        break;
    case MMD__T_RESIZE:
        /* MMDeploy's reading: size n is n x n; [w, h]; [short, -1] resizes the short edge. */
        v = cJSON_GetObjectItemCaseSensitive(j, "size");
        if (!v) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: no 'size'", where);
        if ((st = mmd__json_pair(v, where, "size", 1, t->size)) != 0) return st;
        if (cJSON_IsArray(v) && t->size[1] != -1) {
            int32_t w = t->size[0];
            t->size[0] = t->size[1];
            t->size[1] = w;
        }
        if (t->size[0] < 1 || t->size[1] == 0 || t->size[1] < -1)
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: 'size' holds a value below 1", where);
        if ((st = mmd__json_bool(j, where, "keep_ratio", 0, &t->keep_ratio)) != 0) return st;
        return mmd__json_interp(j, where, &t->interp);
    case MMD__T_LETTER_RESIZE:
        /* mmyolo's: scale n or [height, width] (MMDeploy's reading), the image resized to fit
           it keeping its ratio, then centred on a pad_val canvas of that size. */
        v = cJSON_GetObjectItemCaseSensitive(j, "scale");
        if (!v) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: no 'scale'", where);
        if ((st = mmd__json_pair(v, where, "scale", 1, t->size)) != 0) return st;
        if (t->size[1] < 1) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: 'scale' holds a value below 1", where);
        if ((st = mmd__json_bool(j, where, "allow_scale_up", 1, &t->scale_up)) != 0 ||
            (st = mmd__json_bool(j, where, "use_mini_pad", 0, &t->mini_pad)) != 0 ||
            (st = mmd__json_bool(j, where, "stretch_only", 0, &t->stretch)) != 0 ||
            (st = mmd__json_pad_val(j, where, &t->pad_val)) != 0)
            return st;
        return mmd__json_interp(j, where, &t->interp);
    case MMD__T_BBOX_CENTER_SCALE:
    case MMD__T_AFFINE:
        /* mmpose's: image_size [width, height] of the network input (both transforms carry it,
           MMDeploy's exporter writes it into both); padding enlarges the box, use_udp picks the
           unbiased warp. Only rotation 0 exists: the C API passes boxes, no angles. */
        v = cJSON_GetObjectItemCaseSensitive(j, "image_size");
        if (!v) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: no 'image_size'", where);
        if ((st = mmd__json_pair(v, where, "image_size", 1, t->size)) != 0) return st;
        if (t->size[1] < 1) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: 'image_size' below 1", where);
        k = t->size[0];
        t->size[0] = t->size[1];
        t->size[1] = k;
        t->padding = 1.25f;
        v = cJSON_GetObjectItemCaseSensitive(j, "padding");
        if (v && (st = mmd__json_float(v, where, "padding", &t->padding)) != 0) return st;
        if (!(t->padding > 0.0f && t->padding <= 100.0f))
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: padding %g is not in (0, 100]", where, (double)t->padding);
        return mmd__json_bool(j, where, "use_udp", 0, &t->udp);
    case MMD__T_RESCALE_TO_HEIGHT:
        /* mmocr's: the image resized (bilinear) to height, its width following the ratio, then
           held to [min_width, max_width] and rounded to a multiple of width_divisor. As
           MMDeploy reads them, the widths count only when they are whole numbers. */
        if ((st = mmd__json_int(cJSON_GetObjectItemCaseSensitive(j, "height"), where, "height", 1, MMD_MAX_IMAGE_SIDE,
                                &t->size[0])) != 0)
            return st;
        t->min_width = t->max_width = -1;
        t->divisor = 1;
        v = cJSON_GetObjectItemCaseSensitive(j, "min_width");
        if (cJSON_IsNumber(v) && (st = mmd__json_int(v, where, "min_width", -1, MMD_MAX_IMAGE_SIDE, &t->min_width)) != 0)
            return st;
        v = cJSON_GetObjectItemCaseSensitive(j, "max_width");
        if (cJSON_IsNumber(v) && (st = mmd__json_int(v, where, "max_width", -1, MMD_MAX_IMAGE_SIDE, &t->max_width)) != 0)
            return st;
        v = cJSON_GetObjectItemCaseSensitive(j, "width_divisor");
        if (cJSON_IsNumber(v) && (st = mmd__json_int(v, where, "width_divisor", 1, 4096, &t->divisor)) != 0) return st;
        break;
    case MMD__T_CENTER_CROP:
        v = cJSON_GetObjectItemCaseSensitive(j, "crop_size");
        if (!v) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: no 'crop_size'", where);
        if ((st = mmd__json_pair(v, where, "crop_size", 1, t->size)) != 0) return st;
        if (t->size[1] < 1) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: 'crop_size' below 1", where);
        break;
    case MMD__T_NORMALIZE:
        st = mmd__json_floats(cJSON_GetObjectItemCaseSensitive(j, "mean"), where, "mean", t->mean, 0, &t->channels);
        if (!st) st = mmd__json_floats(cJSON_GetObjectItemCaseSensitive(j, "std"), where, "std", t->std, t->channels, NULL);
        if (!st) st = mmd__json_bool(j, where, "to_rgb", 1, &t->color);
        for (k = 0; !st && k < t->channels; ++k)
            if (!(t->std[k] != 0.0f)) st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: std[%d] is 0", where, (int)k);
        v = cJSON_GetObjectItemCaseSensitive(j, "to_float");
        if (!st && v && !cJSON_IsTrue(v))
            st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: to_float false (uint8 networks) is not supported", where);
        return st;
    case MMD__T_PAD:
        v = cJSON_GetObjectItemCaseSensitive(j, "size");
        if (v && !cJSON_IsNull(v) && (st = mmd__json_pair(v, where, "size", 0, t->size)) != 0) return st;
        if (t->size[1] < 0) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: 'size' below 0", where);
        t->divisor = 1;
        v = cJSON_GetObjectItemCaseSensitive(j, "size_divisor");
        if (v && !cJSON_IsNull(v) && (st = mmd__json_int(v, where, "size_divisor", 1, 4096, &t->divisor)) != 0) return st;
        if ((st = mmd__json_bool(j, where, "pad_to_square", 0, &t->square)) != 0) return st;
        if ((st = mmd__json_pad_val(j, where, &t->pad_val)) != 0) return st;
        s = mmd__json_string(j, "padding_mode");
        if (s && strcmp(s, "constant") != 0)
            return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: padding_mode '%s' is not supported", where, s);
        if (cJSON_GetObjectItemCaseSensitive(j, "logical_or_val"))
            return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: logical_or_val is not supported", where);
        break;
    case MMD__T_FORMAT_BUNDLE:
        v = cJSON_GetObjectItemCaseSensitive(j, "img_to_float");
        if (v && !cJSON_IsTrue(v))
            return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: img_to_float false is not supported", where);
        break;
    default:
        break;
    }
    return MMDEPLOY_SUCCESS;
}

/* The task of module `module` in pipeline.json's task list, NULL when none. */
static const cJSON *mmd__find_task(const cJSON *tasks, const char *module) {
    const cJSON *t;
    cJSON_ArrayForEach(t, tasks) {
        const char *m = mmd__json_string(t, "module");
        if (m && strcmp(m, module) == 0) return t;
    }
    return NULL;
}

/* mmpose's decodes, with MMDeploy's defaults: the heatmap's argmax moved a quarter pixel
   towards the higher neighbour (post_process "default"; "null" leaves it), SimCC's argmaxes
   divided by simcc_split_ratio (2) on an input_size of 192 x 256. The rest of MMDeploy's heatmap
   variants (DARK "unbiased", "megvii", use_udp) are refused by name. */
static int mmd__parse_pose(const cJSON *params, const char *component, int32_t simcc, mmdeploy_model_t m) {
    char where[96];
    const char *s;
    const cJSON *v;
    int32_t udp = 0;
    int st = 0;
    snprintf(where, sizeof where, "pipeline.json %s", component);
    m->simcc = simcc;
    m->quarter_offset = 1;
    m->split_ratio = 2.0f;
    m->input_size[0] = 192;
    m->input_size[1] = 256;
    if (simcc) {
        v = cJSON_GetObjectItemCaseSensitive(params, "simcc_split_ratio");
        if (v && (st = mmd__json_float(v, where, "simcc_split_ratio", &m->split_ratio)) != 0) return st;
        if (!(m->split_ratio >= 1e-3f && m->split_ratio <= 1e3f))
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: simcc_split_ratio %g is not in [0.001, 1000]", where,
                                 (double)m->split_ratio);
        v = cJSON_GetObjectItemCaseSensitive(params, "input_size");
        if (v && (st = mmd__json_pair(v, where, "input_size", 1, m->input_size)) != 0) return st;
        if (m->input_size[1] < 1) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: 'input_size' below 1", where);
        return MMDEPLOY_SUCCESS;
    }
    s = mmd__json_string(params, "post_process");
    if (s && strcmp(s, "null") == 0) m->quarter_offset = 0;
    else if (s && strcmp(s, "default") != 0)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: post_process '%s' is not supported (default and null are)",
                             where, s);
    if ((st = mmd__json_bool(params, where, "use_udp", 0, &udp)) != 0) return st;
    if (udp) return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: use_udp (DARK-UDP decoding) is not supported", where);
    return MMDEPLOY_SUCCESS;
}

/* CTCConvertor's dictionary from `lines` (one entry a line, as std::getline splits them: a last
   line without its newline counts, no empty one after a final newline), behind the blank
   "<BLK>" and, with_unknown, before "<UKN>", as MMDeploy builds it, into m->dict: count + 1
   offsets, then the entries' text; entry k is text[off[k] .. off[k + 1]). */
static int mmd__dict_build(const char *lines, size_t size, int32_t with_unknown, mmdeploy_model_t m) {
    size_t i, start = 0, count = 1 + (with_unknown ? 1 : 0) + (size && lines[size - 1] != '\n'), pos = 5;
    uint32_t *off;
    char *text;
    for (i = 0; i < size; ++i) count += lines[i] == '\n';
    if (count > ((size_t)1 << 24) || size > ((size_t)1 << 30))
        return mmd__sdk_fail(MMDEPLOY_E_OUT_OF_RANGE, "CTCConvertor: the dictionary has %llu entries, more than 2^24",
                             (unsigned long long)count);
    m->dict_bytes = (count + 1) * sizeof(uint32_t) + size + 10;
    if (!(m->dict = malloc(m->dict_bytes))) return MMDEPLOY_E_OUT_OF_MEMORY;
    off = (uint32_t *)m->dict;
    text = (char *)(off + count + 1);
    memcpy(text, "<BLK>", 5);
    off[0] = 0;
    off[1] = 5;
    m->dict_count = 1;
    for (i = 0; i <= size; ++i) {
        if (i < size && lines[i] != '\n') continue;
        if (i == size && start == size) break;
        memcpy(text + pos, lines + start, i - start);
        pos += i - start;
        off[++m->dict_count] = (uint32_t)pos;
        start = i + 1;
    }
    if (with_unknown) {
        memcpy(text + pos, "<UKN>", 5);
        off[++m->dict_count] = (uint32_t)(pos + 5);
    }
    return MMDEPLOY_SUCCESS;
}

/* CTCConvertor's params: the dictionary from dict_file (a file of the model directory, read
   by mmdeploy_model_create_by_path), dict_list (strings) or dict_type (DICT36, DICT90). */
static int mmd__parse_ctc(const cJSON *params, mmdeploy_model_t m) {
    static const char *const where = "pipeline.json CTCConvertor";
    const char *file = mmd__json_string(params, "dict_file"), *type = mmd__json_string(params, "dict_type");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(params, "dict_list"), *e;
    int32_t unknown = 0;
    int st = mmd__json_bool(params, where, "with_unknown", 0, &unknown);
    if (st) return st;
    if (file) {
        if (strlen(file) >= sizeof m->dict_file)
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: dict_file name too long", where);
        strcpy(m->dict_file, file);
        m->dict_unknown = unknown;
        return MMDEPLOY_SUCCESS;
    }
    if (cJSON_IsArray(list)) {
        size_t size = 0;
        char *lines, *p;
        cJSON_ArrayForEach(e, list) {
            if (!cJSON_IsString(e) || strchr(e->valuestring, '\n'))
                return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: dict_list holds a non-string or a newline", where);
            size += strlen(e->valuestring) + 1;
        }
        if (!(lines = p = (char *)malloc(size + 1))) return MMDEPLOY_E_OUT_OF_MEMORY;
        cJSON_ArrayForEach(e, list) p += sprintf(p, "%s\n", e->valuestring);
        st = mmd__dict_build(lines, size, unknown, m);
        free(lines);
        return st;
    }
    if (type && (strcmp(type, "DICT36") == 0 || strcmp(type, "DICT90") == 0)) {
        static const char chars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\"#$%&'()*+,-./:;<=>?@[\\]_`~";
        char lines[2 * sizeof chars];
        size_t i, n = type[4] == '3' ? 36 : sizeof chars - 1;
        for (i = 0; i < n; ++i) lines[2 * i] = chars[i], lines[2 * i + 1] = '\n';
        return mmd__dict_build(lines, 2 * n, unknown, m);
    }
    return mmd__sdk_fail(type ? MMDEPLOY_E_NOT_SUPPORTED : MMDEPLOY_E_INVALID_ARG,
                         "%s: %s%s%s", where, type ? "dict_type '" : "no dict_file, dict_list or dict_type",
                         type ? type : "", type ? "' is not DICT36 or DICT90" : "");
}

/* DBHead's params with MMDeploy's defaults (codebase/mmocr/dbnet.cpp): mask_thr 0.3,
   min_text_score 0.3, min_text_width 5, unclip_ratio 1.5, max_candidate 3000 (MMDeploy's key;
   mmocr's max_candidates is read too), rescale true, downsample_ratio 1. text_repr_type "quad"
   or "poly": MMDeploy's SDK gives quadrilaterals for both. The numbers are held to ranges in
   which the contour work stays bounded: unclip_ratio at most 1000 (mmocr uses 1.5 to 4). */
static int mmd__parse_dbhead(const cJSON *params, mmdeploy_model_t m) {
    static const char *const where = "pipeline.json DBHead";
    static const char *const floats[] = {"mask_thr", "min_text_score", "unclip_ratio", "downsample_ratio"};
    float *dst[4];
    const char *s = mmd__json_string(params, "text_repr_type");
    const cJSON *v;
    int32_t k;
    int st = 0;
    dst[0] = &m->mask_thr, dst[1] = &m->min_text_score, dst[2] = &m->unclip_ratio, dst[3] = &m->downsample_ratio;
    m->mask_thr = m->min_text_score = 0.3f;
    m->unclip_ratio = 1.5f;
    m->downsample_ratio = 1.0f;
    m->min_text_width = 5;
    m->max_candidates = 3000;
    if (s && strcmp(s, "quad") != 0 && strcmp(s, "poly") != 0)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "%s: text_repr_type '%s' is not supported (quad and poly are)",
                             where, s);
    for (k = 0; k < 4 && !st; ++k)
        if ((v = cJSON_GetObjectItemCaseSensitive(params, floats[k])) != NULL) st = mmd__json_float(v, where, floats[k], dst[k]);
    if (!st && !(m->unclip_ratio >= 0.0f && m->unclip_ratio <= 1000.0f))
        st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: unclip_ratio %g is not in [0, 1000]", where, (double)m->unclip_ratio);
    if (!st && !(m->downsample_ratio >= 1e-3f && m->downsample_ratio <= 1e3f))
        st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: downsample_ratio %g is not in [0.001, 1000]", where,
                           (double)m->downsample_ratio);
    if (!st && (v = cJSON_GetObjectItemCaseSensitive(params, "min_text_width")) != NULL)
        st = mmd__json_int(v, where, "min_text_width", -1, 1 << 30, &m->min_text_width);
    if (!st && ((v = cJSON_GetObjectItemCaseSensitive(params, "max_candidate")) != NULL ||
                (v = cJSON_GetObjectItemCaseSensitive(params, "max_candidates")) != NULL))
        st = mmd__json_int(v, where, "max_candidates", 0, 0x7fffffff, &m->max_candidates);
    if (!st) st = mmd__json_bool(params, where, "rescale", 1, &m->rescale);
    return st;
}

/* mmrotate's ResizeRBBox: only score_thr is read (MMDeploy's default 0.05); the rest of the
   test_cfg MMDeploy writes beside it (nms, max_per_img, ...) is the network's business. */
static int mmd__parse_resize_rbbox(const cJSON *t, mmdeploy_model_t m) {
    const char *component = mmd__json_string(t, "component");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(t, "params"), *v;
    if (!component || strcmp(component, "ResizeRBBox") != 0)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "pipeline.json: component '%s' of mmrotate is not supported",
                             component ? component : "(none)");
    if (params && !cJSON_IsObject(params))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json ResizeRBBox: 'params' is not an object");
    m->task = MMD__TASK_ROTATED_DETECTOR;
    m->score_thr = 0.05f;
    v = cJSON_GetObjectItemCaseSensitive(params, "score_thr");
    return v ? mmd__json_float(v, "pipeline.json ResizeRBBox", "score_thr", &m->score_thr) : MMDEPLOY_SUCCESS;
}

/* ResizeInstanceMask's params with MMDeploy's defaults (codebase/mmdet/instance_segmentation.cpp):
   mask_thr_binary 0.5; Mask R-CNN's RoI masks when the params hold "rcnn" (or there are no
   params), else RTMDet-Ins's masks of the whole input; is_resize_mask 1. The thresholds are
   score_thr and min_bbox_size as ResizeBBox reads them. */
static int mmd__parse_instance_mask(const cJSON *params, mmdeploy_model_t m) {
    const char *where = "pipeline.json ResizeInstanceMask";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "mask_thr_binary");
    int st = 0;
    m->instance_mask = 1;
    m->mask_thr_binary = 0.5f;
    m->mask_rcnn = !params || cJSON_GetObjectItemCaseSensitive(params, "rcnn") != NULL;
    if (v) st = mmd__json_float(v, where, "mask_thr_binary", &m->mask_thr_binary);
    if (!st) st = mmd__json_bool(params, where, "is_resize_mask", 1, &m->resize_mask);
    return st;
}

static int mmd__parse_postprocess(const cJSON *tasks, mmdeploy_model_t m) {
    static const char *const modules[] = {"mmcls", "mmdet", "mmseg", "mmpose", "mmocr"};
    /* Per module, the components it may name (MMDeploy registers the heatmap decode under
       five names that decode alike). */
    static const char *const components[][6] = {
        {"LinearClsHead", NULL}, {"ResizeBBox", "ResizeInstanceMask", NULL}, {"ResizeMask", NULL},
        {"SimCCLabelDecode", "TopdownHeatmapSimpleHeadDecode", "TopdownHeatmapBaseHeadDecode",
         "TopdownHeatmapMultiStageHeadDecode", "ViPNASHeatmapSimpleHeadDecode", "TopdownHeatmapMSMUHeadDecode"},
        {"CTCConvertor", "DBHead", NULL}};
    const cJSON *t = NULL, *params, *v;
    const char *component = NULL;
    int32_t k, c;
    int st = 0;
    if ((t = mmd__find_task(tasks, "mmrotate")) != NULL) return mmd__parse_resize_rbbox(t, m);
    for (k = 0; k < 5 && !t; ++k) t = mmd__find_task(tasks, modules[k]);
    if (!t) return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "pipeline.json: no mmcls, mmdet, mmseg, mmpose, mmocr or mmrotate task");
    component = mmd__json_string(t, "component");
    for (c = 0; component && c < 6 && components[k - 1][c] && strcmp(component, components[k - 1][c]) != 0; ++c) {
    }
    if (!component || c == 6 || !components[k - 1][c])
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "pipeline.json: component '%s' of %s is not supported",
                             component ? component : "(none)", modules[k - 1]);
    m->task = k == 5 && c == 1 ? MMD__TASK_TEXT_DETECTOR : k - 1;
    params = cJSON_GetObjectItemCaseSensitive(t, "params");
    if (params && !cJSON_IsObject(params))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json %s: 'params' is not an object", component);
    m->topk = 1;
    m->with_argmax = 1;
    if (m->task == MMD__TASK_CLASSIFIER) {
        v = cJSON_GetObjectItemCaseSensitive(params, "topk");
        if (v) st = mmd__json_int(v, "pipeline.json LinearClsHead", "topk", 1, 1 << 20, &m->topk);
        if (!st) st = mmd__json_bool(params, "pipeline.json LinearClsHead", "softmax", 0, &m->softmax);
    } else if (m->task == MMD__TASK_DETECTOR) {
        v = cJSON_GetObjectItemCaseSensitive(params, "conf_thr");
        if (!v) v = cJSON_GetObjectItemCaseSensitive(params, "score_thr");
        if (v) st = mmd__json_float(v, "pipeline.json ResizeBBox", "score_thr", &m->score_thr);
        v = cJSON_GetObjectItemCaseSensitive(params, "min_bbox_size");
        if (!st && v) st = mmd__json_float(v, "pipeline.json ResizeBBox", "min_bbox_size", &m->min_bbox_size);
        if (!st && c == 1) st = mmd__parse_instance_mask(params, m);
        else if (!st && (cJSON_GetObjectItemCaseSensitive(params, "mask_thr_binary")))
            st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "pipeline.json: mask_thr_binary with ResizeBBox (masks "
                               "come with ResizeInstanceMask)");
    } else if (m->task == MMD__TASK_POSE) {
        st = mmd__parse_pose(params, component, c == 0, m);
    } else if (m->task == MMD__TASK_TEXT_RECOGNIZER) {
        st = mmd__parse_ctc(params, m);
    } else if (m->task == MMD__TASK_TEXT_DETECTOR) {
        st = mmd__parse_dbhead(params, m);
    } else {
        v = cJSON_GetObjectItemCaseSensitive(params, "num_classes");
        if (!v) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json ResizeMask: no 'num_classes'");
        st = mmd__json_int(v, "pipeline.json ResizeMask", "num_classes", 1, 1 << 16, &m->num_classes);
        if (!st) st = mmd__json_bool(params, "pipeline.json ResizeMask", "with_argmax", 1, &m->with_argmax);
    }
    return st;
}

/* Parses pipeline.json's text into m. */
static int mmd__parse_pipeline(const char *text, size_t size, mmdeploy_model_t m) {
    cJSON *root = cJSON_ParseWithLength(text, size);
    const cJSON *tasks, *pre, *net, *list, *tr, *map;
    const char *name;
    int st = 0;
    if (!root) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json is not valid JSON");
    tasks = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "pipeline"), "tasks");
    if (!cJSON_IsArray(tasks)) st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json: no pipeline.tasks list");
    pre = st ? NULL : mmd__find_task(tasks, "Transform");
    net = st ? NULL : mmd__find_task(tasks, "Net");
    if (!st && (!pre || !net))
        st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json: no %s task", pre ? "Net" : "Transform");
    list = st ? NULL : cJSON_GetObjectItemCaseSensitive(pre, "transforms");
    if (!st && !cJSON_IsArray(list)) st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json: no transforms list");
    if (!st && cJSON_GetArraySize(list) > MMD_SDK_MAX_TRANSFORMS)
        st = mmd__sdk_fail(MMDEPLOY_E_OUT_OF_RANGE, "pipeline.json: %d transforms, more than MMD_SDK_MAX_TRANSFORMS",
                           cJSON_GetArraySize(list));
    if (!st) {
        cJSON_ArrayForEach(tr, list) {
            if ((st = mmd__parse_transform(tr, &m->transforms[m->transform_count])) != 0) break;
            m->transform_count++;
        }
    }
    if (!st) {
        map = cJSON_GetObjectItemCaseSensitive(net, "input_map");
        name = mmd__json_string(map, "img");
        if (!name) name = "input";
        if (strlen(name) >= sizeof m->input_name)
            st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "pipeline.json: input name too long");
        else strcpy(m->input_name, name);
    }
    if (!st) st = mmd__parse_postprocess(tasks, m);
    cJSON_Delete(root);
    return st;
}

/* Joins dir and file into buf; the file must be a plain name (no directory parts), so that a
   hostile deploy.json cannot point outside the model directory. */
static int mmd__sdk_path(char *buf, size_t cap, const char *dir, const char *file) {
    if (!file || !*file || strchr(file, '/') || strchr(file, '\\') || strcmp(file, "..") == 0)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "deploy.json: '%s' is not a file name in the model directory",
                             file ? file : "(none)");
    if ((size_t)snprintf(buf, cap, "%s/%s", dir, file) >= cap)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "path too long: %s/%s", dir, file);
    return MMDEPLOY_SUCCESS;
}

/* deploy.json's task names, in the order of the MMD__TASK_ values. */
static const char *const mmd__task_names[] = {"Classifier",     "Detector",     "Segmentor",      "PoseDetector",
                                              "TextRecognizer", "TextDetector", "RotatedDetector"};

static int mmd__parse_deploy(const char *text, size_t size, const char *dir, char *net_path, size_t cap,
                             int32_t *task) {
    cJSON *root = cJSON_ParseWithLength(text, size);
    const cJSON *model;
    const char *s;
    int st = 0;
    if (!root) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "deploy.json is not valid JSON");
    s = mmd__json_string(root, "task");
    for (*task = 0; *task < 7 && (!s || strcmp(s, mmd__task_names[*task]) != 0); ++*task) {
    }
    if (*task == 7) st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "deploy.json: task '%s' is not supported", s ? s : "(none)");
    model = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "models"), 0);
    if (!st && !cJSON_IsObject(model)) st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "deploy.json: no models[0]");
    s = st ? NULL : mmd__json_string(model, "backend");
    if (!st && (!s || strcmp(s, "onnxruntime") != 0))
        st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "deploy.json: backend '%s' is not supported (onnxruntime is)",
                           s ? s : "(none)");
    if (!st) st = mmd__sdk_path(net_path, cap, dir, mmd__json_string(model, "net"));
    cJSON_Delete(root);
    return st;
}

MMDEPLOY_API int mmdeploy_model_create_by_path(const char *path, mmdeploy_model_t *model) {
    char file[4096], *text = NULL;
    size_t size = 0;
    int32_t task = 0;
    mmdeploy_model_t m;
    int st;
    if (!model) return MMDEPLOY_E_INVALID_ARG;
    *model = NULL;
    if (!path) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "model path is NULL");
    if (!(m = (mmdeploy_model_t)calloc(1, sizeof *m))) return MMDEPLOY_E_OUT_OF_MEMORY;
    st = mmd__sdk_path(file, sizeof file, path, "deploy.json");
    if (!st) st = mmd__sdk_read(file, MMD_MAX_JSON_BYTES, &text, &size);
    if (!st) st = mmd__parse_deploy(text, size, path, file, sizeof file, &task);
    free(text);
    text = NULL;
    if (!st) st = mmd__sdk_read(file, (size_t)1 << 31, (char **)&m->net, &m->net_size);
    if (!st) st = mmd__sdk_path(file, sizeof file, path, "pipeline.json");
    if (!st) st = mmd__sdk_read(file, MMD_MAX_JSON_BYTES, &text, &size);
    if (!st) st = mmd__parse_pipeline(text, size, m);
    free(text);
    text = NULL;
    /* CTCConvertor's dict_file, a file of the directory (deploy.json's customs list it). */
    if (!st && m->dict_file[0]) st = mmd__sdk_path(file, sizeof file, path, m->dict_file);
    if (!st && m->dict_file[0]) st = mmd__sdk_read(file, MMD_MAX_JSON_BYTES, &text, &size);
    if (!st && m->dict_file[0]) st = mmd__dict_build(text, size, m->dict_unknown, m);
    free(text);
    if (!st && m->task != task)
        st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "deploy.json's task does not match pipeline.json's component");
    if (st) {
        mmdeploy_model_destroy(m);
        return st;
    }
    *model = m;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API const char *mmd_sdk_model_task(mmdeploy_model_t model) {
    return model ? mmd__task_names[model->task] : NULL;
}

MMDEPLOY_API int mmdeploy_model_create(const void *buffer, int size, mmdeploy_model_t *model) {
    (void)buffer;
    (void)size;
    if (model) *model = NULL;
    return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "packed models are not supported: give the model directory");
}

MMDEPLOY_API void mmdeploy_model_destroy(mmdeploy_model_t model) {
    if (!model) return;
    free(model->net);
    free(model->dict);
    free(model);
}

/* ==== >>sdk image ==== */
/* Images in the pipeline: 8-bit or float, height x width x channels (HWC) until
   DefaultFormatBundle or ImageToTensor makes them CHW. */
typedef struct mmd__img {
    int32_t h, w, c;
    int32_t is_float, chw;
    void *data;
} mmd__img;

static int mmd__img_check(int64_t h, int64_t w, const char *what) {
    if (h < 1 || w < 1 || h > MMD_MAX_IMAGE_SIDE || w > MMD_MAX_IMAGE_SIDE || h * w > MMD_MAX_IMAGE_PIXELS)
        return mmd__sdk_fail(MMDEPLOY_E_OUT_OF_RANGE, "%s is %lld x %lld: empty, or past MMD_MAX_IMAGE_SIDE "
                             "(%d) or MMD_MAX_IMAGE_PIXELS (%lld)", what, (long long)h, (long long)w,
                             (int)MMD_MAX_IMAGE_SIDE, (long long)MMD_MAX_IMAGE_PIXELS);
    return MMDEPLOY_SUCCESS;
}

static int mmd__img_alloc(mmd__img *im, int32_t h, int32_t w, int32_t c, int32_t is_float) {
    im->h = h;
    im->w = w;
    im->c = c;
    im->is_float = is_float;
    im->chw = 0;
    im->data = malloc((size_t)h * (size_t)w * (size_t)c * (is_float ? sizeof(float) : 1));
    return im->data ? MMDEPLOY_SUCCESS : MMDEPLOY_E_OUT_OF_MEMORY;
}

/* Replaces *im by *next (freeing im's data). */
static void mmd__img_swap(mmd__img *im, mmd__img *next) {
    free(im->data);
    *im = *next;
    next->data = NULL;
}

/* Resamples one HWC image (8-bit or float) into oh x ow by the taps of its rows (ty, made for
   mode ymode, offsets in rows) and of its columns (tx, xmode, offsets in elements): each
   source row a vertical tap needs is resampled horizontally into a ring of four float rows
   keyed by source row (taps are consecutive rows, so a row shared by neighbouring output rows
   is made once), and added into the output row with its weight. No taps: 0. */
static int mmd__img_resample(const mmd__img *src, mmd__img *dst, int32_t oh, int32_t ow, const mmd_resize_tap *ty,
                             int32_t ymode, const mmd_resize_tap *tx, int32_t xmode) {
    float *ring, *acc;
    int64_t key[4] = {-1, -1, -1, -1};
    int32_t c = src->c, oy, ox, k, ch, st;
    size_t row = (size_t)ow * (size_t)c;
    if ((st = mmd__img_alloc(dst, oh, ow, c, src->is_float)) != 0) return st;
    if (!(ring = (float *)malloc(5 * row * sizeof(float)))) {
        free(dst->data);
        dst->data = NULL;
        return MMDEPLOY_E_OUT_OF_MEMORY;
    }
    acc = ring + 4 * row;
    for (oy = 0; oy < oh; ++oy) {
        for (ox = 0; ox < (int32_t)row; ++ox) acc[ox] = 0.0f;
        for (k = 0; k < ty[oy].n; ++k) {
            int64_t sy;
            float wy, *r;
            mmd_resize_tap_at(&ty[oy], ymode, 1, k, &sy, &wy);
            r = ring + (size_t)(sy & 3) * row;
            if (key[sy & 3] != sy) {
                size_t base = (size_t)sy * (size_t)src->w * (size_t)c;
                key[sy & 3] = sy;
                if (!src->is_float && xmode != MMD_RESIZE_AREA) {
                    /* The common case (8-bit, taps at their listed offsets) without the per-tap
                       call and type test; the sums are the same, in the same order. */
                    const uint8_t *s8 = (const uint8_t *)src->data + base;
                    for (ox = 0; ox < ow; ++ox) {
                        const mmd_resize_tap *u = &tx[ox];
                        float *o = r + (size_t)ox * (size_t)c;
                        if (u->n == 2) {
                            /* Bilinear: 0 + a + b is a + b exactly, so this is the loop's sum. */
                            const uint8_t *a = s8 + u->off[0], *b = s8 + u->off[1];
                            for (ch = 0; ch < c; ++ch) o[ch] = u->w[0] * (float)a[ch] + u->w[1] * (float)b[ch];
                            continue;
                        }
                        for (ch = 0; ch < c; ++ch) {
                            float sum = 0.0f;
                            int32_t q;
                            for (q = 0; q < u->n; ++q) sum += u->w[q] * (float)s8[(size_t)u->off[q] + (size_t)ch];
                            o[ch] = sum;
                        }
                    }
                } else {
                    for (ox = 0; ox < ow; ++ox) {
                        const mmd_resize_tap *u = &tx[ox];
                        for (ch = 0; ch < c; ++ch) {
                            float sum = 0.0f, wx;
                            int32_t q;
                            int64_t off;
                            size_t at = base + (size_t)ch;
                            for (q = 0; q < u->n; ++q) {
                                mmd_resize_tap_at(u, xmode, c, q, &off, &wx);
                                sum += wx * (src->is_float ? ((const float *)src->data)[at + (size_t)off]
                                                           : (float)((const uint8_t *)src->data)[at + (size_t)off]);
                            }
                            r[(size_t)ox * (size_t)c + (size_t)ch] = sum;
                        }
                    }
                }
            }
            for (ox = 0; ox < (int32_t)row; ++ox) acc[ox] += wy * r[ox];
        }
        for (ox = 0; ox < (int32_t)row; ++ox) {
            float v = acc[ox];
            if (src->is_float) {
                ((float *)dst->data)[(size_t)oy * row + (size_t)ox] = v;
            } else {
                v = floorf(v + 0.5f);
                ((uint8_t *)dst->data)[(size_t)oy * row + (size_t)ox] = (uint8_t)(v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v);
            }
        }
    }
    free(ring);
    return MMDEPLOY_SUCCESS;
}

/* cv::resize with the interpolation `interp` (mmd_image_interp), its taps from the shared
   coefficient tables. */
static int mmd__img_resize(const mmd__img *src, mmd__img *dst, int32_t oh, int32_t ow, int32_t interp) {
    mmd_resize_axis ax, ay;
    mmd_resize_tap *tx;
    int st;
    if ((st = mmd__img_check(oh, ow, "the resized image")) != 0) return st;
    memset(&ax, 0, sizeof ax);
    ax.mode = MMD_RESIZE_LINEAR;
    ax.coord = MMD_RESIZE_HALF_PIXEL;
    ax.nearest = MMD_RESIZE_ROUND_FLOOR;
    ax.cubic_a = -0.75f;
    if (interp == MMD_IMAGE_NEAREST) ax.mode = MMD_RESIZE_NEAREST, ax.coord = MMD_RESIZE_ASYMMETRIC;
    if (interp == MMD_IMAGE_BICUBIC) ax.mode = MMD_RESIZE_CUBIC;
    /* OpenCV averages areas only when no axis grows; otherwise both axes use its area weights. */
    if (interp == MMD_IMAGE_AREA && oh <= src->h && ow <= src->w) ax.mode = MMD_RESIZE_AREA;
    else if (interp == MMD_IMAGE_AREA) ax.coord = MMD_RESIZE_OPENCV_AREA;
    if (!(tx = (mmd_resize_tap *)malloc(((size_t)ow + (size_t)oh) * sizeof *tx))) return MMDEPLOY_E_OUT_OF_MEMORY;
    ay = ax;
    ax.in = src->w;
    ax.out = ow;
    ax.scale = (double)ow / (double)src->w;
    mmd_resize_axis_taps(&ax, src->c, tx);
    ay.in = src->h;
    ay.out = oh;
    ay.scale = (double)oh / (double)src->h;
    mmd_resize_axis_taps(&ay, 1, tx + ow);
    st = mmd__img_resample(src, dst, oh, ow, tx + ow, ay.mode, tx, ax.mode);
    free(tx);
    return st;
}

/* cv::warpAffine (INTER_LINEAR, constant 0 border) of src into dst (oh x ow, HWC, 8-bit or
   float as src) by the inverse map mi: output pixel (x, y) samples the input at
   (mi[0] x + mi[1] y + mi[2], mi[3] x + mi[4] y + mi[5]), in OpenCV's fixed point: the x term,
   and the y and constant terms together, each in 1/1024 pixels rounded to even, plus half of
   1/32, cut to 1/32 pixel. The taps weigh 1 - f and f per axis (each row's pair first, as the
   resize does), those outside the input nothing, as the 0 border adds nothing. The one warp of
   the SDK: TopDownAffine's crops, the text boxes the recognizer reads and Mask R-CNN's masks. */
static int mmd__img_warp(const mmd__img *src, mmd__img *dst, int32_t oh, int32_t ow, const double *mi) {
    int32_t y, x, a, k, ch, c = src->c;
    int st;
    if ((st = mmd__img_check(oh, ow, "the warped image")) != 0) return st;
    if (c > 4) return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "warp: %d channels", (int)c);
    if ((st = mmd__img_alloc(dst, oh, ow, c, src->is_float)) != 0) return st;
    for (y = 0; y < oh; ++y)
        for (x = 0; x < ow; ++x) {
            int64_t at[2];
            float f[2], acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            size_t o = ((size_t)y * (size_t)ow + (size_t)x) * (size_t)c;
            for (a = 0; a < 2; ++a) {
                double u = mi[3 * a] * (double)x * 1024.0, v = (mi[3 * a + 1] * (double)y + mi[3 * a + 2]) * 1024.0;
                int64_t q;
                /* Hostile boxes may put the coordinate anywhere: beyond 2^30 it is far outside. */
                u = u < -1073741824.0 ? -1073741824.0 : u > 1073741824.0 ? 1073741824.0 : u;
                v = v < -1073741824.0 ? -1073741824.0 : v > 1073741824.0 ? 1073741824.0 : v;
                q = (int64_t)lrint(u) + (int64_t)lrint(v) + 16;
                q = (q - (((q % 32) + 32) % 32)) / 32;
                at[a] = (q - (((q % 32) + 32) % 32)) / 32;
                f[a] = (float)(q - at[a] * 32) / 32.0f;
            }
            for (k = 0; k < 2; ++k) {
                int64_t sy = at[1] + k, sx;
                float row[4] = {0.0f, 0.0f, 0.0f, 0.0f}, wy = k ? f[1] : 1.0f - f[1];
                if (sy < 0 || sy >= src->h) continue;
                for (sx = at[0]; sx <= at[0] + 1; ++sx) {
                    size_t base = ((size_t)sy * (size_t)src->w + (size_t)sx) * (size_t)c;
                    float wx = sx == at[0] ? 1.0f - f[0] : f[0];
                    if (sx < 0 || sx >= src->w) continue;
                    for (ch = 0; ch < c; ++ch)
                        row[ch] += wx * (src->is_float ? ((const float *)src->data)[base + (size_t)ch]
                                                       : (float)((const uint8_t *)src->data)[base + (size_t)ch]);
                }
                for (ch = 0; ch < c; ++ch) acc[ch] += wy * row[ch];
            }
            for (ch = 0; ch < c; ++ch) {
                float v = acc[ch];
                if (src->is_float) {
                    ((float *)dst->data)[o + (size_t)ch] = v;
                } else {
                    v = floorf(v + 0.5f);
                    ((uint8_t *)dst->data)[o + (size_t)ch] = (uint8_t)(v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v);
                }
            }
        }
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API int mmd_image_resize_u8(const uint8_t *src, int h, int w, int channels, uint8_t *dst,
                                     int out_h, int out_w, mmd_image_interp interp) {
    mmd__img in, out;
    int st;
    if (!src || !dst || channels < 1 || channels > 4 || (int)interp < 0 || interp > MMD_IMAGE_AREA)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "mmd_image_resize_u8: invalid argument");
    if ((st = mmd__img_check(h, w, "the input image")) != 0) return st;
    in.h = h;
    in.w = w;
    in.c = channels;
    in.is_float = in.chw = 0;
    in.data = (void *)(uintptr_t)src;
    if ((st = mmd__img_resize(&in, &out, out_h, out_w, (int32_t)interp)) != 0) return st;
    memcpy(dst, out.data, (size_t)out_h * (size_t)out_w * (size_t)channels);
    free(out.data);
    return MMDEPLOY_SUCCESS;
}

/* One NV12 (nv21: NV21) pixel as B, G, R: BT.601 limited range in OpenCV's fixed point
   (cvtColor YUV2BGR_NV12), so that the result is OpenCV's exactly. */
static void mmd__yuv_pixel(const mmdeploy_mat_t *mat, int32_t nv21, size_t y, size_t x, int32_t *bgr) {
    const uint8_t *uv = mat->data + (size_t)mat->height * (size_t)mat->width + (y / 2) * (size_t)mat->width + (x & ~(size_t)1);
    int32_t u = (nv21 ? uv[1] : uv[0]) - 128, v = (nv21 ? uv[0] : uv[1]) - 128, i;
    int32_t yy = mat->data[y * (size_t)mat->width + x] - 16, half = 1 << 19;
    yy = (yy < 0 ? 0 : yy) * 1220542;
    bgr[0] = (yy + half + 2116026 * u) >> 20;
    bgr[1] = (yy + half - 852492 * v - 409993 * u) >> 20;
    bgr[2] = (yy + half + 1673527 * v) >> 20;
    for (i = 0; i < 3; ++i) bgr[i] = bgr[i] < 0 ? 0 : bgr[i] > 255 ? 255 : bgr[i];
}

/* The input mat as 8-bit BGR, RGB (rgb) or gray (color 0), as LoadImageFromFile makes it.
   Gray comes from color with OpenCV's fixed-point weights (BGR2GRAY: 0.114, 0.587, 0.299), and
   from NV12 / NV21 as their Y plane, as OpenCV's YUV2GRAY does. */
static int mmd__img_load(const mmdeploy_mat_t *mat, const mmd__transform *t, mmd__img *im) {
    int32_t c = t->color ? 3 : 1, in_c, st;
    int32_t src_b = 0, src_r = 2;
    size_t i, n;
    const uint8_t *s = mat ? mat->data : NULL;
    uint8_t *d;
    if (!mat || !mat->data || mat->type != MMDEPLOY_DATA_TYPE_UINT8)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the image is NULL or not 8-bit");
    if ((st = mmd__img_check(mat->height, mat->width, "the input image")) != 0) return st;
    switch (mat->format) {
    case MMDEPLOY_PIXEL_FORMAT_BGR: in_c = 3; break;
    case MMDEPLOY_PIXEL_FORMAT_RGB: in_c = 3; src_b = 2; src_r = 0; break;
    case MMDEPLOY_PIXEL_FORMAT_GRAYSCALE: in_c = 1; break;
    case MMDEPLOY_PIXEL_FORMAT_BGRA: in_c = 4; break;
    case MMDEPLOY_PIXEL_FORMAT_NV12:
    case MMDEPLOY_PIXEL_FORMAT_NV21:
        /* Y plane, then the interleaved chroma at half resolution: whole chroma pairs only. */
        in_c = 1;
        if ((mat->height | mat->width) & 1)
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "an NV12/NV21 image needs even sides, not %d x %d",
                                 mat->height, mat->width);
        break;
    default:
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "pixel format %d is not supported", (int)mat->format);
    }
    if (mat->channel != in_c)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the image has %d channels, its pixel format %d has %d",
                             mat->channel, (int)mat->format, (int)in_c);
    if ((st = mmd__img_alloc(im, mat->height, mat->width, c, 0)) != 0) return st;
    d = (uint8_t *)im->data;
    n = (size_t)mat->height * (size_t)mat->width;
    if (mat->format == MMDEPLOY_PIXEL_FORMAT_NV12 || mat->format == MMDEPLOY_PIXEL_FORMAT_NV21) {
        int32_t bgr[3];
        if (c == 1) {
            memcpy(d, s, n);
            return MMDEPLOY_SUCCESS;
        }
        for (i = 0; i < n; ++i) {
            mmd__yuv_pixel(mat, mat->format == MMDEPLOY_PIXEL_FORMAT_NV21, i / (size_t)mat->width,
                           i % (size_t)mat->width, bgr);
            d[3 * i + 0] = (uint8_t)(t->rgb ? bgr[2] : bgr[0]);
            d[3 * i + 1] = (uint8_t)bgr[1];
            d[3 * i + 2] = (uint8_t)(t->rgb ? bgr[0] : bgr[2]);
        }
        return MMDEPLOY_SUCCESS;
    }
    for (i = 0; i < n; ++i, s += in_c) {
        int32_t b = in_c == 1 ? s[0] : s[src_b], g = in_c == 1 ? s[0] : s[1], r = in_c == 1 ? s[0] : s[src_r];
        if (c == 1) {
            d[i] = in_c == 1 ? s[0] : (uint8_t)((b * 1868 + g * 9617 + r * 4899 + (1 << 13)) >> 14);
        } else {
            d[3 * i + 0] = (uint8_t)(t->rgb ? r : b);
            d[3 * i + 1] = (uint8_t)g;
            d[3 * i + 2] = (uint8_t)(t->rgb ? b : r);
        }
    }
    return MMDEPLOY_SUCCESS;
}

/* Output size of Resize on an h x w image, as MMDeploy's transform computes it. */
static void mmd__resize_size(const mmd__transform *t, int32_t h, int32_t w, int32_t *oh, int32_t *ow) {
    double dh, dw;
    if (t->size[1] == -1) {
        /* [short, -1]: the short edge becomes size, the long one follows in integers. */
        if (w < h) {
            dw = t->size[0];
            dh = floor(dw * h / w);
        } else {
            dh = t->size[0];
            dw = floor(dh * w / h);
        }
    } else {
        dh = t->size[0];
        dw = t->size[1];
    }
    if (t->keep_ratio) {
        double lo = dw < dh ? dw : dh, hi = dw < dh ? dh : dw, a = hi / (double)(h > w ? h : w),
               b = lo / (double)(h < w ? h : w), s = a < b ? a : b;
        dw = floor(w * s + 0.5);
        dh = floor(h * s + 0.5);
    }
    *oh = dh > (double)MMD_MAX_IMAGE_SIDE ? MMD_MAX_IMAGE_SIDE + 1 : (int32_t)dh;
    *ow = dw > (double)MMD_MAX_IMAGE_SIDE ? MMD_MAX_IMAGE_SIDE + 1 : (int32_t)dw;
}

/* Makes the image float (values as they were). */
static int mmd__img_to_float(mmd__img *im) {
    mmd__img f;
    size_t i, n = (size_t)im->h * (size_t)im->w * (size_t)im->c;
    int st;
    if (im->is_float) return MMDEPLOY_SUCCESS;
    if ((st = mmd__img_alloc(&f, im->h, im->w, im->c, 1)) != 0) return st;
    for (i = 0; i < n; ++i) ((float *)f.data)[i] = (float)((const uint8_t *)im->data)[i];
    mmd__img_swap(im, &f);
    return MMDEPLOY_SUCCESS;
}

/* HWC to CHW, once. */
static int mmd__img_to_chw(mmd__img *im) {
    mmd__img f;
    size_t hw = (size_t)im->h * (size_t)im->w, i;
    int32_t ch;
    int st;
    if (im->chw) return MMDEPLOY_SUCCESS;
    if ((st = mmd__img_to_float(im)) != 0) return st;
    if ((st = mmd__img_alloc(&f, im->h, im->w, im->c, 1)) != 0) return st;
    for (ch = 0; ch < im->c; ++ch)
        for (i = 0; i < hw; ++i) ((float *)f.data)[(size_t)ch * hw + i] = ((const float *)im->data)[i * (size_t)im->c + (size_t)ch];
    f.chw = 1;
    mmd__img_swap(im, &f);
    return MMDEPLOY_SUCCESS;
}

/* Copies the y0..y0+h, x0..x0+w window of im (HWC, or CHW plane by plane) to dy, dx of a new
   image of oh x ow whose other pixels are `fill`: CenterCrop (a window inside), Pad (the image
   at the top left) and LetterResize (the image inside borders). */
static int mmd__img_window(mmd__img *im, int32_t y0, int32_t x0, int32_t h, int32_t w, int32_t dy, int32_t dx,
                           int32_t oh, int32_t ow, float fill) {
    mmd__img o;
    size_t el = im->is_float ? sizeof(float) : 1, px = (size_t)(im->chw ? 1 : im->c) * el, i, n;
    int32_t y, p, planes = im->chw ? im->c : 1;
    int st;
    if ((st = mmd__img_check(oh, ow, "the cropped or padded image")) != 0) return st;
    if ((st = mmd__img_alloc(&o, oh, ow, im->c, im->is_float)) != 0) return st;
    o.chw = im->chw;
    n = (size_t)oh * (size_t)ow * (size_t)im->c;
    if (im->is_float) for (i = 0; i < n; ++i) ((float *)o.data)[i] = fill;
    else memset(o.data, (int)(fill < 0.0f ? 0.0f : fill > 255.0f ? 255.0f : fill), n);
    for (p = 0; p < planes; ++p)
        for (y = 0; y < h; ++y)
            memcpy((char *)o.data + (((size_t)p * (size_t)oh + (size_t)(dy + y)) * (size_t)ow + (size_t)dx) * px,
                   (const char *)im->data + (((size_t)p * (size_t)im->h + (size_t)(y0 + y)) * (size_t)im->w + (size_t)x0) * px,
                   (size_t)w * px);
    mmd__img_swap(im, &o);
    return MMDEPLOY_SUCCESS;
}

/* Normalize's usual case, 8-bit BGR to float planes (RGB with to_rgb), with the channel order
   fixed in each loop so that the compiler can vectorise it. */
static void mmd__normalize3_planar(const uint8_t *u, size_t n, int32_t to_rgb, const float *mean, const float *inv,
                                   float *f) {
    float *f1 = f + n, *f2 = f + 2 * n;
    size_t p;
    if (to_rgb)
        for (p = 0; p < n; ++p) {
            f[p] = ((float)u[3 * p + 2] - mean[0]) * inv[0];
            f1[p] = ((float)u[3 * p + 1] - mean[1]) * inv[1];
            f2[p] = ((float)u[3 * p] - mean[2]) * inv[2];
        }
    else
        for (p = 0; p < n; ++p) {
            f[p] = ((float)u[3 * p] - mean[0]) * inv[0];
            f1[p] = ((float)u[3 * p + 1] - mean[1]) * inv[1];
            f2[p] = ((float)u[3 * p + 2] - mean[2]) * inv[2];
        }
}

static void mmd__shape(int32_t *s, const mmd__img *im) {
    s[0] = 1;
    s[1] = im->h;
    s[2] = im->w;
    s[3] = im->c;
}

/* TopDownAffine: the image warped to the network's size around meta's centre and scale, as
   MMDeploy computes the matrix (getAffineTransform of three points, or with use_udp its own
   matrix) and OpenCV's warpAffine applies it (rotation is always 0). */
static int mmd__top_down_affine(mmd__img *im, const mmd__transform *t, const mmd_sdk_meta *meta) {
    double kx, ky, dx, dy, det, mi[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    float sw = meta->scale[0] * 200.0f, sh = meta->scale[1] * 200.0f;
    int32_t oh = t->size[0], ow = t->size[1];
    mmd__img out;
    int st;
    if ((st = mmd__img_check(oh, ow, "TopDownAffine's image_size")) != 0) return st;
    if (!(sw > 0.0f && sh > 0.0f && sw < 1e30f && sh < 1e30f))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "TopDownAffine: the box scale %g x %g is not positive and finite",
                             (double)meta->scale[0], (double)meta->scale[1]);
    if (t->udp) {
        /* MMDeploy's float matrix: dst = k (src - c) + s / 2 k per axis, k = (size - 1) / s. */
        float fx = ((float)ow - 1.0f) / sw, fy = ((float)oh - 1.0f) / sh;
        kx = fx;
        ky = fy;
        dx = (double)(fx * (-0.5f * (meta->center[0] * 2.0f) + 0.5f * sw));
        dy = (double)(fy * (-0.5f * (meta->center[1] * 2.0f) + 0.5f * sh));
    } else {
        /* getAffineTransform of the centre, the point half a box width above it and the point
           half a width left of that (in float, as MMDeploy makes them) onto the output's
           centre, top middle and top left: the width maps to the output's width. */
        float half = sw * 0.5f, up = meta->center[1] - half, d = meta->center[1] - up, left = meta->center[0] - d;
        kx = (double)ow * 0.5 / ((double)meta->center[0] - (double)left);
        ky = (double)ow * 0.5 / (double)d;
        dx = (double)ow * 0.5 - kx * (double)meta->center[0];
        dy = (double)oh * 0.5 - ky * (double)meta->center[1];
    }
    if (!(kx > 0.0 && ky > 0.0 && kx < 1e30 && ky < 1e30))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "TopDownAffine: the box maps to a scale of %g x %g", kx, ky);
    /* warpAffine inverts the matrix as OpenCV does, then samples. */
    det = 1.0 / (kx * ky);
    mi[0] = ky * det;
    mi[4] = kx * det;
    mi[2] = -mi[0] * dx;
    mi[5] = -mi[4] * dy;
    st = mmd__img_warp(im, &out, oh, ow, mi);
    if (!st) mmd__img_swap(im, &out);
    return st;
}

/* TopDownGetBboxCenterScale on the box (x, y, width, height: the rect's right and bottom
   included, or the whole w x h image), in MMDeploy's float arithmetic: the box grown to the
   network's aspect ratio, its size in units of 200 pixels times padding. */
static int mmd__bbox_center_scale(const mmd__transform *t, const mmdeploy_rect_t *bbox, int32_t w, int32_t h,
                                  float padding, mmd_sdk_meta *meta) {
    float x = 0.0f, y = 0.0f, bw = (float)w, bh = (float)h, aspect = (float)((double)t->size[1] / (double)t->size[0]);
    if (bbox) {
        x = bbox->left;
        y = bbox->top;
        bw = bbox->right - bbox->left + 1.0f;
        bh = bbox->bottom - bbox->top + 1.0f;
        if (!(bw > 0.0f && bh > 0.0f && bw < 1e30f && bh < 1e30f && fabsf(x) < 1e30f && fabsf(y) < 1e30f))
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the box (%g, %g, %g, %g) is empty or not finite",
                                 (double)bbox->left, (double)bbox->top, (double)bbox->right, (double)bbox->bottom);
    }
    meta->center[0] = (float)((double)x + (double)bw * 0.5);
    meta->center[1] = (float)((double)y + (double)bh * 0.5);
    if (bw > aspect * bh) bh = (float)((double)bw / (double)aspect);
    else if (bw < aspect * bh) bw = bh * aspect;
    meta->scale[0] = bw / 200.0f * padding;
    meta->scale[1] = bh / 200.0f * padding;
    return MMDEPLOY_SUCCESS;
}

/* MMDeploy's WarpBbox (codebase/mmocr/warp.cpp), the crop of a text box the recognizer reads:
   the corners (rounded to whole pixels, as MMDeploy reads them into cv::Point) sorted as its
   std::sort sorts them (the topmost, then leftmost, first; the others by their turn around
   it), turned to start at the one nearest the corners' top-left; the first three mapped onto
   (0, 0), (w, 0), (w, h), w and h the longer and shorter of the first two sides, and the
   image warped to w x h (both truncated). The crop is the recognizer's original image. */
static int mmd__crop_quad(mmd__img *im, const mmdeploy_point_t *quad) {
    int64_t x[4], y[4], tx, ty, t;
    int32_t k, i, j, pivot = 0, first = 0;
    double e0, e1, mi[6];
    float w, h, best = 0.0f;
    mmd__img out;
    int st;
    for (k = 0; k < 4; ++k) {
        if (!(fabsf(quad[k].x) <= 1e9f && fabsf(quad[k].y) <= 1e9f))
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "text box corner %d (%g, %g) is not finite or is past 1e9",
                                 (int)k, (double)quad[k].x, (double)quad[k].y);
        x[k] = (int64_t)lrintf(quad[k].x);
        y[k] = (int64_t)lrintf(quad[k].y);
        if (y[k] < y[pivot] || (y[k] == y[pivot] && x[k] < x[pivot])) pivot = k;
    }
    tx = x[pivot];
    ty = y[pivot];
    /* libstdc++'s insertion sort (std::sort of 4) with WarpBbox's comparison: a before b when
       a is the pivot and b is not, else when b turns clockwise from a around the pivot. */
#define MMD__BEFORE(ax, ay, bx, by) \
    ((ax) == tx && (ay) == ty ? !((bx) == tx && (by) == ty) : ((ax) - tx) * ((by) - ty) - ((ay) - ty) * ((bx) - tx) > 0)
    for (i = 1; i < 4; ++i) {
        int64_t vx = x[i], vy = y[i];
        if (MMD__BEFORE(vx, vy, x[0], y[0])) {
            for (j = i; j > 0; --j) x[j] = x[j - 1], y[j] = y[j - 1];
            x[0] = vx, y[0] = vy;
        } else {
            for (j = i; MMD__BEFORE(vx, vy, x[j - 1], y[j - 1]); --j) x[j] = x[j - 1], y[j] = y[j - 1];
            x[j] = vx, y[j] = vy;
        }
    }
#undef MMD__BEFORE
    tx = x[0] < x[1] ? x[0] : x[1];
    tx = tx < x[2] ? tx : x[2];
    tx = tx < x[3] ? tx : x[3];
    ty = y[0] < y[1] ? y[0] : y[1];
    ty = ty < y[2] ? ty : y[2];
    ty = ty < y[3] ? ty : y[3];
    for (k = 0; k < 4; ++k) {
        float dx = (float)(x[k] - tx), dy = (float)(y[k] - ty), d = dx * dx + dy * dy;
        if (k == 0 || d < best) best = d, first = k;
    }
    for (k = 0; k < first; ++k) {
        t = x[0], x[0] = x[1], x[1] = x[2], x[2] = x[3], x[3] = t;
        t = y[0], y[0] = y[1], y[1] = y[2], y[2] = y[3], y[3] = t;
    }
    e0 = sqrt((double)((x[0] - x[1]) * (x[0] - x[1]) + (y[0] - y[1]) * (y[0] - y[1])));
    e1 = sqrt((double)((x[1] - x[2]) * (x[1] - x[2]) + (y[1] - y[2]) * (y[1] - y[2])));
    w = (float)(e0 > e1 ? e0 : e1);
    h = (float)(e0 > e1 ? e1 : e0);
    if (!(w >= 1.0f && h >= 1.0f))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the text box (%g, %g), (%g, %g), (%g, %g), (%g, %g) is under a "
                             "pixel across", (double)quad[0].x, (double)quad[0].y, (double)quad[1].x, (double)quad[1].y,
                             (double)quad[2].x, (double)quad[2].y, (double)quad[3].x, (double)quad[3].y);
    /* The inverse of getAffineTransform's map, which warpAffine samples by. */
    mi[0] = (double)(x[1] - x[0]) / (double)w;
    mi[1] = (double)(x[2] - x[1]) / (double)h;
    mi[2] = (double)x[0];
    mi[3] = (double)(y[1] - y[0]) / (double)w;
    mi[4] = (double)(y[2] - y[1]) / (double)h;
    mi[5] = (double)y[0];
    if ((st = mmd__img_warp(im, &out, (int32_t)(h < (float)MMD_MAX_IMAGE_SIDE ? h : (float)MMD_MAX_IMAGE_SIDE + 1.0f),
                            (int32_t)(w < (float)MMD_MAX_IMAGE_SIDE ? w : (float)MMD_MAX_IMAGE_SIDE + 1.0f), mi)) != 0)
        return st;
    mmd__img_swap(im, &out);
    return MMDEPLOY_SUCCESS;
}

/* Runs the transforms on one mat (bbox: a pose model's box, NULL the whole image): im ends as
   a float CHW tensor. */
static int mmd__preprocess(const mmdeploy_model_t m, const mmdeploy_mat_t *mat, const mmdeploy_rect_t *bbox,
                           const mmdeploy_point_t *quad, mmd__img *im, mmd_sdk_meta *meta) {
    int32_t k, i, st = 0, pad_done = 0, tensor = 0;
    mmd__transform load;
    memset(im, 0, sizeof *im);
    memset(meta, 0, sizeof *meta);
    memset(&load, 0, sizeof load);
    load.color = 1;
    for (k = 0; k < m->transform_count; ++k)
        if (m->transforms[k].type == MMD__T_LOAD) load = m->transforms[k];
    if ((st = mmd__img_load(mat, &load, im)) != 0) return st;
    if (quad && (st = mmd__crop_quad(im, quad)) != 0) {
        free(im->data);
        im->data = NULL;
        return st;
    }
    mmd__shape(meta->ori_shape, im);
    mmd__shape(meta->img_shape, im);
    for (i = 0; i < 4; ++i) meta->scale_factor[i] = 1.0f;
    for (k = 0; k < m->transform_count && !st; ++k) {
        const mmd__transform *t = &m->transforms[k];
        if (tensor && t->type != MMD__T_COLLECT && t->type != MMD__T_TO_TENSOR && t->type != MMD__T_FORMAT_BUNDLE)
            st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "transform %s after the image became a tensor",
                               mmd__transform_names[t->type]);
        else if (t->type == MMD__T_BBOX_CENTER_SCALE) {
            st = mmd__bbox_center_scale(t, bbox, meta->ori_shape[2], meta->ori_shape[1], t->padding, meta);
        } else if (t->type == MMD__T_AFFINE) {
            /* Without TopDownGetBboxCenterScale before it, MMDeploy's TopDownAffine makes the
               centre and scale itself, padding 1.25. */
            if (!(meta->scale[0] > 0.0f))
                st = mmd__bbox_center_scale(t, bbox, meta->ori_shape[2], meta->ori_shape[1], 1.25f, meta);
            if (!st) st = mmd__top_down_affine(im, t, meta);
            if (!st) mmd__shape(meta->img_shape, im);
        } else if (t->type == MMD__T_RESCALE_TO_HEIGHT) {
            /* MMDeploy's float arithmetic on the original size. */
            float w = ceilf(1.0f * (float)t->size[0] / (float)meta->ori_shape[1] * (float)meta->ori_shape[2]);
            int32_t nw = w > (float)MMD_MAX_IMAGE_SIDE ? MMD_MAX_IMAGE_SIDE + 1 : (int32_t)w;
            mmd__img out;
            if (t->min_width > 0 && nw < t->min_width) nw = t->min_width;
            if (t->max_width > 0 && nw > t->max_width) nw = t->max_width;
            if (nw % t->divisor != 0) nw = (int32_t)(roundf(1.0f * (float)nw / (float)t->divisor) * (float)t->divisor);
            if ((st = mmd__img_resize(im, &out, t->size[0], nw, MMD_IMAGE_BILINEAR)) == 0) {
                mmd__img_swap(im, &out);
                mmd__shape(meta->img_shape, im);
            }
        } else if (t->type == MMD__T_RESIZE) {
            mmd__img out;
            int32_t oh, ow;
            mmd__resize_size(t, im->h, im->w, &oh, &ow);
            if (oh != im->h || ow != im->w) {
                if ((st = mmd__img_resize(im, &out, oh, ow, t->interp)) == 0) mmd__img_swap(im, &out);
            }
            if (!st) {
                meta->scale_factor[0] = meta->scale_factor[2] = (float)((double)ow / (double)meta->img_shape[2]);
                meta->scale_factor[1] = meta->scale_factor[3] = (float)((double)oh / (double)meta->img_shape[1]);
                mmd__shape(meta->img_shape, im);
            }
        } else if (t->type == MMD__T_LETTER_RESIZE) {
            /* MMDeploy's LetterResize, in its float arithmetic: one ratio for both sides (at most
               1 without allow_scale_up), the resized sides rounded half away from zero, the
               borders split with the odd pixel at the bottom and right. */
            float ratio = (float)t->size[0] / (float)im->h, rw = (float)t->size[1] / (float)im->w, rh;
            int32_t nh, nw, ph, pw, top, left;
            mmd__img out;
            ratio = rw < ratio ? rw : ratio;
            if (!t->scale_up && ratio > 1.0f) ratio = 1.0f;
            rh = rw = ratio;
            nh = (int32_t)roundf((float)im->h * ratio);
            nw = (int32_t)roundf((float)im->w * ratio);
            ph = t->size[0] - nh;
            pw = t->size[1] - nw;
            if (t->mini_pad) {
                ph %= 32;
                pw %= 32;
            } else if (t->stretch) {
                ph = pw = 0;
                nh = t->size[0];
                nw = t->size[1];
                rh = (float)t->size[0] / (float)im->h;
                rw = (float)t->size[1] / (float)im->w;
            }
            if (ph < 0 || pw < 0) {
                st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "LetterResize: the %d x %d image resized to %d x %d "
                                   "does not fit its scale %d x %d", (int)im->h, (int)im->w, (int)nh, (int)nw,
                                   (int)t->size[0], (int)t->size[1]);
                break;
            }
            if ((nh != im->h || nw != im->w) && (st = mmd__img_resize(im, &out, nh, nw, t->interp)) != 0) break;
            if (nh != im->h || nw != im->w) mmd__img_swap(im, &out);
            top = ph / 2;
            left = pw / 2;
            if ((ph || pw) && (st = mmd__img_window(im, 0, 0, im->h, im->w, top, left, im->h + ph, im->w + pw,
                                                    t->pad_val)) != 0)
                break;
            meta->scale_factor[0] *= rw;
            meta->scale_factor[1] *= rh;
            meta->scale_factor[2] *= rw;
            meta->scale_factor[3] *= rh;
            meta->pad_param[0] = top;
            meta->pad_param[1] = left;
            meta->pad_param[2] = ph - top;
            meta->pad_param[3] = pw - left;
            mmd__shape(meta->img_shape, im);
        } else if (t->type == MMD__T_CENTER_CROP) {
            /* MMDeploy: y1 = max(0, round((h - crop_h) / 2)), the crop clipped to the image. */
            int32_t y1 = (int32_t)floor((im->h - t->size[0]) / 2.0 + 0.5), x1 = (int32_t)floor((im->w - t->size[1]) / 2.0 + 0.5);
            int32_t ch, cw;
            y1 = y1 < 0 ? 0 : y1;
            x1 = x1 < 0 ? 0 : x1;
            ch = (im->h < y1 + t->size[0] ? im->h : y1 + t->size[0]) - y1;
            cw = (im->w < x1 + t->size[1] ? im->w : x1 + t->size[1]) - x1;
            if ((st = mmd__img_window(im, y1, x1, ch, cw, 0, 0, ch, cw, 0.0f)) == 0) mmd__shape(meta->img_shape, im);
        } else if (t->type == MMD__T_NORMALIZE) {
            size_t n = (size_t)im->h * (size_t)im->w, p, ps, cs;
            float *f, inv[4];
            int32_t from[4], j;
            mmd__img out;
            if (t->channels != im->c) {
                st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "Normalize has %d means for an image of %d channels",
                                   (int)t->channels, (int)im->c);
                break;
            }
            /* MMDeploy's Normalize turns BGR into RGB first (its normalize3<2, 1, 0>), so the
               means and stds are in the output's order: channel i is input channel 2 - i, less
               mean[i], times 1 / std[i]. One pass from the 8-bit or float image into a new
               float one, instead of a conversion, a normalisation and a swap; when only Pads
               and the tensor's making follow (the usual end of a chain), straight into CHW
               planes, which Pad handles, so that no transposition follows. */
            for (j = k + 1; j < m->transform_count; ++j) {
                int32_t y = m->transforms[j].type;
                if (y != MMD__T_PAD && y != MMD__T_TO_TENSOR && y != MMD__T_FORMAT_BUNDLE && y != MMD__T_COLLECT) break;
            }
            for (i = 0; i < im->c; ++i) {
                from[i] = t->color && im->c == 3 ? 2 - i : i;
                inv[i] = 1.0f / t->std[i];
            }
            if ((st = mmd__img_alloc(&out, im->h, im->w, im->c, 1)) != 0) break;
            out.chw = j == m->transform_count;
            /* Output element (p, i) lies at p * ps + i * cs: HWC or CHW. */
            ps = out.chw ? 1 : (size_t)im->c;
            cs = out.chw ? n : 1;
            f = (float *)out.data;
            if (!im->is_float && im->c == 3 && out.chw) {
                mmd__normalize3_planar((const uint8_t *)im->data, n, from[0] == 2, t->mean, inv, f);
            } else if (!im->is_float && im->c == 3) {
                const uint8_t *u = (const uint8_t *)im->data;
                float *f1 = f + cs, *f2 = f + 2 * cs;
                for (p = 0; p < n; ++p, u += 3) {
                    f[p * ps] = ((float)u[from[0]] - t->mean[0]) * inv[0];
                    f1[p * ps] = ((float)u[1] - t->mean[1]) * inv[1];
                    f2[p * ps] = ((float)u[from[2]] - t->mean[2]) * inv[2];
                }
            } else {
                for (p = 0; p < n; ++p)
                    for (i = 0; i < im->c; ++i) {
                        size_t at = p * (size_t)im->c + (size_t)from[i];
                        f[p * ps + (size_t)i * cs] = ((im->is_float ? ((const float *)im->data)[at]
                                                                    : (float)((const uint8_t *)im->data)[at]) -
                                                      t->mean[i]) * inv[i];
                    }
            }
            mmd__img_swap(im, &out);
        } else if (t->type == MMD__T_PAD) {
            int32_t ph = im->h, pw = im->w;
            if (t->square) ph = pw = im->h > im->w ? im->h : im->w;
            else if (t->size[0] && t->size[1]) pw = t->size[0], ph = t->size[1];
            else if (t->divisor > 1) ph = (im->h + t->divisor - 1) / t->divisor * t->divisor, pw = (im->w + t->divisor - 1) / t->divisor * t->divisor;
            if (ph < im->h || pw < im->w) {
                st = mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "Pad to %d x %d is smaller than the %d x %d image",
                                   (int)ph, (int)pw, (int)im->h, (int)im->w);
                break;
            }
            if ((ph != im->h || pw != im->w) && (st = mmd__img_window(im, 0, 0, im->h, im->w, 0, 0, ph, pw, t->pad_val)) != 0) break;
            mmd__shape(meta->pad_shape, im);
            pad_done = 1;
        } else if (t->type == MMD__T_FORMAT_BUNDLE || t->type == MMD__T_TO_TENSOR) {
            if (!pad_done) mmd__shape(meta->pad_shape, im);
            pad_done = 1;
            tensor = 1;
            st = mmd__img_to_chw(im);
        }
    }
    if (!st && !pad_done) mmd__shape(meta->pad_shape, im);
    if (!st) st = mmd__img_to_chw(im);
    if (st) {
        free(im->data);
        im->data = NULL;
    }
    return st;
}

MMDEPLOY_API int mmd_sdk_preprocess(mmdeploy_model_t model, const mmdeploy_mat_t *mat, const mmdeploy_rect_t *bbox,
                                    float **data, int64_t dims[4], mmd_sdk_meta *meta) {
    mmd__img im;
    int st;
    if (!model || !data || !dims || !meta) return MMDEPLOY_E_INVALID_ARG;
    *data = NULL;
    if ((st = mmd__preprocess(model, mat, bbox, NULL, &im, meta)) != 0) return st;
    *data = (float *)im.data;
    dims[0] = 1;
    dims[1] = im.c;
    dims[2] = im.h;
    dims[3] = im.w;
    return MMDEPLOY_SUCCESS;
}

/* mmd_image_decode; `what` names the image in messages. */
static int mmd__image_decode(const void *bytes, size_t size, const char *what, mmdeploy_mat_t *mat) {
    int w = 0, h = 0, n = 0, i;
    unsigned char *px;
    if (!mat) return MMDEPLOY_E_INVALID_ARG;
    memset(mat, 0, sizeof *mat);
    if (!bytes || size > (size_t)INT32_MAX)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: NULL, or over 2 GiB", what);
    /* The header's size is checked before any pixel is allocated. stb_image refuses some
       declared sizes itself (over 2^30 bytes); its reason goes along. */
    if (!stbi_info_from_memory((const stbi_uc *)bytes, (int)size, &w, &h, &n))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: not an image stb_image reads (%s)", what,
                             stbi_failure_reason());
    if (mmd__img_check(h, w, what)) return MMDEPLOY_E_OUT_OF_RANGE;
    if (!(px = stbi_load_from_memory((const stbi_uc *)bytes, (int)size, &w, &h, &n, 3)))
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%s: cannot decode its %d x %d pixels (%s)", what, h, w,
                             stbi_failure_reason());
    for (i = 0; i < w * h; ++i) {
        unsigned char r = px[3 * i];
        px[3 * i] = px[3 * i + 2];
        px[3 * i + 2] = r;
    }
    mat->data = px;
    mat->height = h;
    mat->width = w;
    mat->channel = 3;
    mat->format = MMDEPLOY_PIXEL_FORMAT_BGR;
    mat->type = MMDEPLOY_DATA_TYPE_UINT8;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API int mmd_image_decode(const void *bytes, size_t size, mmdeploy_mat_t *mat) {
    return mmd__image_decode(bytes, size, "the image bytes", mat);
}

MMDEPLOY_API int mmd_image_load(const char *path, mmdeploy_mat_t *mat) {
    char *bytes = NULL, what[512];
    size_t size = 0;
    int st;
    if (!mat) return MMDEPLOY_E_INVALID_ARG;
    memset(mat, 0, sizeof *mat);
    if (!path) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the image path is NULL");
    if ((st = mmd__sdk_read(path, MMD_MAX_IMAGE_FILE_BYTES, &bytes, &size)) != 0) return st;
    snprintf(what, sizeof what, "the image %s", path);
    st = mmd__image_decode(bytes, size, what, mat);
    free(bytes);
    return st;
}

MMDEPLOY_API void mmd_image_free(mmdeploy_mat_t *mat) {
    if (!mat) return;
    stbi_image_free(mat->data);
    mat->data = NULL;
}

/* ==== >>sdk net ==== */
/* One handle of any task: the model's pipeline (copied, so the model may go) and a session. */
typedef struct mmd__sdk_handle {
    struct mmdeploy_model m;
    mmd_session *s;
} mmd__sdk_handle;

static int mmd__handle_create(mmdeploy_model_t model, const char *device, int32_t task, mmd__sdk_handle **out) {
    static const char *const names[] = {"classifier", "detector", "segmentor", "pose detector", "text recognizer",
                                        "text detector", "rotated detector"};
    mmd__sdk_handle *h;
    mmd_options opts;
    mmd_error err;
    void *net = NULL;
    if (!out) return MMDEPLOY_E_INVALID_ARG;
    *out = NULL;
    if (!model) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "model is NULL");
    if (!device || strcmp(device, "cpu") != 0)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "device '%s' is not supported (cpu is)", device ? device : "(null)");
    if (model->task != task)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the model is not for a %s", names[task]);
    if (task == MMD__TASK_TEXT_RECOGNIZER && !model->dict)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the text recognizer's dictionary (%s) was not read",
                             model->dict_file[0] ? model->dict_file : "none");
    /* The session reads names and weights in place, so the handle keeps its own copy of the
       network bytes and the model may be destroyed. */
    if (!(h = (mmd__sdk_handle *)calloc(1, sizeof *h)) || !(net = malloc(model->net_size ? model->net_size : 1))) {
        free(h);
        return MMDEPLOY_E_OUT_OF_MEMORY;
    }
    h->m = *model;
    h->m.net = memcpy(net, model->net, model->net_size);
    /* The dictionary likewise. */
    if ((h->m.dict = model->dict ? malloc(model->dict_bytes) : NULL) != NULL)
        memcpy(h->m.dict, model->dict, model->dict_bytes);
    memset(&opts, 0, sizeof opts);
    memset(&err, 0, sizeof err);
    if (model->dict && !h->m.dict) {
        free(net);
        free(h);
        return MMDEPLOY_E_OUT_OF_MEMORY;
    }
    if (mmd_session_create(h->m.net, h->m.net_size, &opts, &h->s, &err) != MMD_OK) {
        free(h->m.dict);
        free(net);
        free(h);
        return mmd__sdk_fail(MMDEPLOY_E_FAIL, "%s: %s", mmd_status_string(err.status), err.msg);
    }
    if (mmd_session_find_input(h->s, model->input_name) < 0) {
        mmd_session_destroy(h->s);
        free(h->m.dict);
        free(net);
        free(h);
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "the network has no input '%s' (pipeline.json input_map)",
                             model->input_name);
    }
    *out = h;
    return MMDEPLOY_SUCCESS;
}

/* Loads the model directory, makes the handle, lets the model go. */
static int mmd__handle_create_by_path(const char *path, const char *device, int32_t task, mmd__sdk_handle **out) {
    mmdeploy_model_t m;
    int st = mmdeploy_model_create_by_path(path, &m);
    if (out) *out = NULL;
    if (st) return st;
    st = mmd__handle_create(m, device, task, out);
    mmdeploy_model_destroy(m);
    return st;
}

static void mmd__handle_destroy(mmd__sdk_handle *h) {
    if (!h) return;
    mmd_session_destroy(h->s);
    free(h->m.net);
    free(h->m.dict);
    free(h);
}

/* Preprocesses one mat and runs the network on it. The tensor stays bound, so *im is freed by
   the caller after reading the outputs. */
static int mmd__run(mmd__sdk_handle *h, const mmdeploy_mat_t *mat, const mmdeploy_rect_t *bbox,
                    const mmdeploy_point_t *quad, mmd__img *im, mmd_sdk_meta *meta) {
    int64_t dims[4];
    mmd_error err;
    int st = mmd__preprocess(&h->m, mat, bbox, quad, im, meta);
    if (st) return st;
    dims[0] = 1;
    dims[1] = im->c;
    dims[2] = im->h;
    dims[3] = im->w;
    memset(&err, 0, sizeof err);
    if (mmd_session_set_input(h->s, mmd_session_find_input(h->s, h->m.input_name), MMD_DTYPE_FLOAT32, 4, dims,
                              im->data, &err) != MMD_OK ||
        mmd_session_prepare(h->s, &err) != MMD_OK || mmd_session_run(h->s, &err) != MMD_OK) {
        free(im->data);
        im->data = NULL;
        return mmd__sdk_fail(MMDEPLOY_E_FAIL, "%s: %s", mmd_status_string(err.status), err.msg);
    }
    return MMDEPLOY_SUCCESS;
}

/* The output named `name`, else output `fallback` (-1: none). */
static const mmd_tensor *mmd__output(const mmd__sdk_handle *h, const char *name, int32_t fallback) {
    int32_t i = mmd_session_find_output(h->s, name);
    return mmd_session_output(h->s, i >= 0 ? i : fallback);
}

/* Element i of an integer or float tensor as a double. */
static double mmd__value(const mmd_tensor *t, int64_t i) {
    switch (t->dtype) {
    case MMD_DTYPE_FLOAT32: return ((const float *)t->data)[i];
    case MMD_DTYPE_INT64: return (double)((const int64_t *)t->data)[i];
    case MMD_DTYPE_INT32: return ((const int32_t *)t->data)[i];
    default: return 0.0;
    }
}

/* ==== >>sdk classifier ==== */
struct mmdeploy_classifier {
    mmd__sdk_handle h;
};

MMDEPLOY_API int mmdeploy_classifier_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                            mmdeploy_classifier_t *classifier) {
    (void)device_id;
    return mmd__handle_create(model, device_name, MMD__TASK_CLASSIFIER, (mmd__sdk_handle **)classifier);
}

MMDEPLOY_API int mmdeploy_classifier_create_by_path(const char *model_path, const char *device_name, int device_id,
                                                    mmdeploy_classifier_t *classifier) {
    (void)device_id;
    return mmd__handle_create_by_path(model_path, device_name, MMD__TASK_CLASSIFIER, (mmd__sdk_handle **)classifier);
}

MMDEPLOY_API int mmdeploy_classifier_apply(mmdeploy_classifier_t classifier, const mmdeploy_mat_t *mats, int mat_count,
                                           mmdeploy_classification_t **results, int **result_count) {
    mmd__sdk_handle *h = (mmd__sdk_handle *)classifier;
    mmdeploy_classification_t *res = NULL;
    int *counts = NULL, st = 0, total = 0, i;
    if (!h || !mats || mat_count < 1 || !results || !result_count) return MMDEPLOY_E_INVALID_ARG;
    *results = NULL;
    *result_count = NULL;
    counts = (int *)calloc((size_t)mat_count, sizeof *counts);
    res = (mmdeploy_classification_t *)malloc((size_t)mat_count * (size_t)h->m.topk * sizeof *res);
    if (!counts || !res) st = MMDEPLOY_E_OUT_OF_MEMORY;
    for (i = 0; i < mat_count && !st; ++i) {
        mmd__img im;
        mmd_sdk_meta meta;
        const mmd_tensor *y;
        int64_t n, j, k;
        if ((st = mmd__run(h, &mats[i], NULL, NULL, &im, &meta)) != 0) break;
        y = mmd__output(h, "output", 0);
        n = y->rank >= 2 ? y->dims[1] : 0;
        if (y->dtype != MMD_DTYPE_FLOAT32 || y->rank < 2 || y->dims[0] != 1 || n < 1) {
            st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "LinearClsHead: the output is not float32 [1, classes]");
        } else {
            /* A partial selection of the top k, highest score first, ties to the lower label. */
            const float *s = (const float *)y->data;
            mmdeploy_classification_t *r = res + total;
            int64_t kk = h->m.topk < n ? h->m.topk : n;
            double mx = s[0], sum = 0.0;
            for (j = 0; j < n; ++j) mx = s[j] > mx ? s[j] : mx;
            for (j = 0; j < n; ++j) sum += exp((double)s[j] - mx);
            for (k = 0; k < kk; ++k) {
                int64_t best = -1;
                for (j = 0; j < n; ++j) {
                    int64_t q;
                    int taken = 0;
                    for (q = 0; q < k && !taken; ++q) taken = r[q].label_id == (int)j;
                    if (!taken && (best < 0 || s[j] > s[best])) best = j;
                }
                r[k].label_id = (int)best;
                r[k].score = h->m.softmax ? (float)(exp((double)s[best] - mx) / sum) : s[best];
            }
            counts[i] = (int)kk;
            total += (int)kk;
        }
        free(im.data);
    }
    if (st) {
        free(res);
        free(counts);
        return st;
    }
    *results = res;
    *result_count = counts;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API void mmdeploy_classifier_release_result(mmdeploy_classification_t *results, const int *result_count,
                                                     int count) {
    (void)count;
    free(results);
    free((void *)(uintptr_t)result_count);
}

MMDEPLOY_API void mmdeploy_classifier_destroy(mmdeploy_classifier_t classifier) {
    mmd__handle_destroy((mmd__sdk_handle *)classifier);
}

/* ==== >>sdk detector ==== */
struct mmdeploy_detector {
    mmd__sdk_handle h;
};

MMDEPLOY_API int mmdeploy_detector_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                          mmdeploy_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create(model, device_name, MMD__TASK_DETECTOR, (mmd__sdk_handle **)detector);
}

MMDEPLOY_API int mmdeploy_detector_create_by_path(const char *model_path, const char *device_name, int device_id,
                                                  mmdeploy_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create_by_path(model_path, device_name, MMD__TASK_DETECTOR, (mmd__sdk_handle **)detector);
}

/* ResizeInstanceMask's mask of detection j (box r, in the original image), as MMDeploy's
   ProcessMasks makes it, thresholded (> mask_thr_binary) into 255 and 0. Mask R-CNN: the RoI
   mask (masks[0, j], mh x mw) warped bilinearly into the box grown by a pixel and clipped to
   the image (x0 = max(floor(left) - 1, 0), x1 = min(ceil(right) + 1, width), likewise y), the
   map from that crop to the RoI mask built in float, inverted as cv::invertAffineTransform
   does and inverted again as cv::warpAffine does, so that the fixed-point samples are
   OpenCV's; the mask is then (y1 - y0) x (x1 - x0), its corner at (x0, y0). Without
   is_resize_mask, the RoI mask itself. RTMDet-Ins: masks[0, j] covers the network input; it is
   resized (bilinear) by 1 / scale_factor (sides rounded) and cropped to the original image,
   the mask as large as the image. MMDeploy takes channel i for the i-th kept box there, which
   is another box's mask once score_thr has dropped one; channel j is the box's own. A box
   without area has no mask (NULL). The mask and its struct are one malloc. */
static int mmd__instance_mask(const mmd__sdk_handle *h, const mmd_tensor *masks, int64_t j, const mmd_sdk_meta *meta,
                              mmdeploy_detection_t *r) {
    const mmdeploy_rect_t *b = &r->bbox;
    int32_t mh = (int32_t)masks->dims[2], mw = (int32_t)masks->dims[3], ih = meta->ori_shape[1], iw = meta->ori_shape[2];
    mmd__img src, out;
    int64_t y, oh, ow, stride;
    const float *v;
    int st = 0;
    out.data = NULL;
    r->mask = NULL;
    src.h = mh, src.w = mw, src.c = 1, src.is_float = 1, src.chw = 0;
    src.data = (float *)masks->data + (size_t)j * (size_t)mh * (size_t)mw;
    if (!(b->right > b->left) || !(b->bottom > b->top)) return MMDEPLOY_SUCCESS;
    if (h->m.mask_rcnn && h->m.resize_mask) {
        float x0 = floorf(b->left) - 1.0f, y0 = floorf(b->top) - 1.0f, x1 = ceilf(b->right) + 1.0f,
              y1 = ceilf(b->bottom) + 1.0f, fx, fy, tx, ty;
        double d, inv[6], mi[6];
        x0 = x0 > 0.0f ? x0 : 0.0f, y0 = y0 > 0.0f ? y0 : 0.0f;
        x1 = x1 < (float)iw ? x1 : (float)iw, y1 = y1 < (float)ih ? y1 : (float)ih;
        fx = (float)mw / (b->right - b->left);
        fy = (float)mh / (b->bottom - b->top);
        tx = (x0 + 0.5f - b->left) * fx - 0.5f;
        ty = (y0 + 0.5f - b->top) * fy - 0.5f;
        /* invertAffineTransform on a float matrix: double arithmetic, float results. */
        d = 1.0 / ((double)fx * (double)fy);
        inv[0] = (float)((double)fy * d), inv[4] = (float)((double)fx * d), inv[1] = inv[3] = 0.0;
        inv[2] = (float)(-inv[0] * (double)tx), inv[5] = (float)(-inv[4] * (double)ty);
        /* warpAffine's own inversion, in double. */
        d = 1.0 / (inv[0] * inv[4]);
        mi[0] = inv[4] * d, mi[4] = inv[0] * d, mi[1] = mi[3] = 0.0;
        mi[2] = -mi[0] * inv[2], mi[5] = -mi[4] * inv[5];
        if (x1 - x0 < 1.0f || y1 - y0 < 1.0f) return MMDEPLOY_SUCCESS;
        if ((st = mmd__img_warp(&src, &out, (int32_t)(y1 - y0), (int32_t)(x1 - x0), mi)) != 0) return st;
    } else if (!h->m.mask_rcnn) {
        mmd__img full;
        double dh = (double)mh / meta->scale_factor[1] + 0.5, dw = (double)mw / meta->scale_factor[0] + 0.5;
        int32_t rh, rw;
        /* A side past the limit is refused by the resize; the casts must not overflow first. */
        rh = dh < (double)MMD_MAX_IMAGE_SIDE + 1.0 ? (int32_t)dh : MMD_MAX_IMAGE_SIDE + 1;
        rw = dw < (double)MMD_MAX_IMAGE_SIDE + 1.0 ? (int32_t)dw : MMD_MAX_IMAGE_SIDE + 1;
        full.data = NULL;
        if ((rh != mh || rw != mw) && (st = mmd__img_resize(&src, &full, rh, rw, MMD_IMAGE_BILINEAR)) != 0) return st;
        if (rh < ih || rw < iw) {
            free(full.data);
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "ResizeInstanceMask: the %d x %d mask resized to %d x %d "
                                 "does not cover the %d x %d image", (int)mh, (int)mw, (int)rh, (int)rw, (int)ih, (int)iw);
        }
        st = mmd__img_alloc(&out, ih, iw, 1, 1);
        for (y = 0; !st && y < ih; ++y)
            memcpy((float *)out.data + y * iw, (const float *)(full.data ? full.data : src.data) + y * rw,
                   (size_t)iw * sizeof(float));
        free(full.data);
        if (st) return st;
    }
    oh = out.data ? out.h : mh, ow = out.data ? out.w : mw;
    stride = sizeof(mmdeploy_instance_mask_t);
    if (!(r->mask = (mmdeploy_instance_mask_t *)malloc((size_t)stride + (size_t)(oh * ow)))) {
        free(out.data);
        return MMDEPLOY_E_OUT_OF_MEMORY;
    }
    r->mask->data = (char *)r->mask + stride;
    r->mask->height = (int)oh;
    r->mask->width = (int)ow;
    v = (const float *)(out.data ? out.data : src.data);
    for (y = 0; y < oh * ow; ++y) ((unsigned char *)r->mask->data)[y] = v[y] > h->m.mask_thr_binary ? 255 : 0;
    free(out.data);
    return MMDEPLOY_SUCCESS;
}

/* ResizeInstanceMask's "masks" output (else output 2): float [1, n, h, w], as many as the
   boxes. */
static int mmd__masks_output(const mmd__sdk_handle *h, int64_t n, const mmd_tensor **out) {
    const mmd_tensor *t = mmd__output(h, "masks", 2);
    if (!t || t->dtype != MMD_DTYPE_FLOAT32 || t->rank != 4 || t->dims[0] != 1 || t->dims[1] != n ||
        t->dims[2] < 1 || t->dims[3] < 1 || t->dims[2] > MMD_MAX_IMAGE_SIDE || t->dims[3] > MMD_MAX_IMAGE_SIDE)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "ResizeInstanceMask: the output 'masks' is not float "
                             "[1, %lld, h, w]", (long long)n);
    *out = t;
    return MMDEPLOY_SUCCESS;
}

/* The detections' masks, freed. */
static void mmd__free_masks(mmdeploy_detection_t *res, int64_t n) {
    int64_t i;
    for (i = 0; i < n; ++i) free(res[i].mask);
}

/* ResizeBBox: boxes above score_thr, mapped back through scale_factor and clipped to the
   original image, as MMDeploy's MapToOriginImage does; with ResizeInstanceMask, each box's
   mask as well (mmd__instance_mask). */
MMDEPLOY_API int mmdeploy_detector_apply(mmdeploy_detector_t detector, const mmdeploy_mat_t *mats, int mat_count,
                                         mmdeploy_detection_t **results, int **result_count) {
    mmd__sdk_handle *h = (mmd__sdk_handle *)detector;
    mmdeploy_detection_t *res = NULL;
    int *counts = NULL, st = 0, total = 0, cap = 0, i;
    if (!h || !mats || mat_count < 1 || !results || !result_count) return MMDEPLOY_E_INVALID_ARG;
    *results = NULL;
    *result_count = NULL;
    if (!(counts = (int *)calloc((size_t)mat_count, sizeof *counts))) return MMDEPLOY_E_OUT_OF_MEMORY;
    for (i = 0; i < mat_count && !st; ++i) {
        mmd__img im;
        mmd_sdk_meta meta;
        const mmd_tensor *dets, *labels, *masks = NULL;
        int64_t n, ch, j;
        if ((st = mmd__run(h, &mats[i], NULL, NULL, &im, &meta)) != 0) break;
        dets = mmd__output(h, "dets", 0);
        labels = mmd__output(h, "labels", 1);
        if (!dets || !labels || dets->dtype != MMD_DTYPE_FLOAT32 || dets->rank != 3 || dets->dims[0] != 1 ||
            dets->dims[2] < 4 || labels->rank != 2 || labels->dims[0] != 1 || labels->dims[1] != dets->dims[1] ||
            (labels->dtype != MMD_DTYPE_INT64 && labels->dtype != MMD_DTYPE_INT32 && labels->dtype != MMD_DTYPE_FLOAT32)) {
            st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "ResizeBBox: outputs are not dets [1, N, 5] and labels [1, N]");
            free(im.data);
            break;
        }
        n = dets->dims[1];
        ch = dets->dims[2];
        if (h->m.instance_mask && (st = mmd__masks_output(h, n, &masks)) != 0) {
            free(im.data);
            break;
        }
        if (total + n > cap) {
            int ncap = (int)(total + n);
            mmdeploy_detection_t *g = (mmdeploy_detection_t *)realloc(res, (size_t)(ncap ? ncap : 1) * sizeof *res);
            if (!g) {
                st = MMDEPLOY_E_OUT_OF_MEMORY;
                free(im.data);
                break;
            }
            res = g;
            cap = ncap;
        }
        for (j = 0; j < n; ++j) {
            const float *d = (const float *)dets->data + j * ch;
            float score = ch > 4 ? d[4] : 0.0f, ow = (float)meta.ori_shape[2], oh = (float)meta.ori_shape[1];
            mmdeploy_detection_t *r = &res[total];
            double label = mmd__value(labels, j);
            if (ch > 4 && !(score > h->m.score_thr)) continue;
            r->bbox.left = (d[0] - (float)meta.pad_param[1]) / meta.scale_factor[0];
            r->bbox.top = (d[1] - (float)meta.pad_param[0]) / meta.scale_factor[1];
            r->bbox.right = (d[2] - (float)meta.pad_param[1]) / meta.scale_factor[2];
            r->bbox.bottom = (d[3] - (float)meta.pad_param[0]) / meta.scale_factor[3];
            r->bbox.left = r->bbox.left > 0.0f ? r->bbox.left : 0.0f;
            r->bbox.top = r->bbox.top > 0.0f ? r->bbox.top : 0.0f;
            r->bbox.right = r->bbox.right < ow - 1.0f ? r->bbox.right : ow - 1.0f;
            r->bbox.bottom = r->bbox.bottom < oh - 1.0f ? r->bbox.bottom : oh - 1.0f;
            if (r->bbox.right - r->bbox.left < h->m.min_bbox_size || r->bbox.bottom - r->bbox.top < h->m.min_bbox_size)
                continue;
            r->label_id = label >= 0.0 && label < 2147483647.0 ? (int)label : -1;
            r->score = score;
            r->mask = NULL;
            if (masks && (st = mmd__instance_mask(h, masks, j, &meta, r)) != 0) break;
            total++;
            counts[i]++;
        }
        free(im.data);
    }
    if (st) {
        mmd__free_masks(res, total);
        free(res);
        free(counts);
        return st;
    }
    if (!res) res = (mmdeploy_detection_t *)malloc(sizeof *res);
    *results = res;
    *result_count = counts;
    return res ? MMDEPLOY_SUCCESS : MMDEPLOY_E_OUT_OF_MEMORY;
}

MMDEPLOY_API void mmdeploy_detector_release_result(mmdeploy_detection_t *results, const int *result_count, int count) {
    int64_t n = 0;
    int i;
    for (i = 0; results && result_count && i < count; ++i) n += result_count[i];
    mmd__free_masks(results, n);
    free(results);
    free((void *)(uintptr_t)result_count);
}

MMDEPLOY_API void mmdeploy_detector_destroy(mmdeploy_detector_t detector) {
    mmd__handle_destroy((mmd__sdk_handle *)detector);
}

/* ==== >>sdk segmentor ==== */
struct mmdeploy_segmentor {
    mmd__sdk_handle h;
};

MMDEPLOY_API int mmdeploy_segmentor_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                           mmdeploy_segmentor_t *segmentor) {
    (void)device_id;
    return mmd__handle_create(model, device_name, MMD__TASK_SEGMENTOR, (mmd__sdk_handle **)segmentor);
}

MMDEPLOY_API int mmdeploy_segmentor_create_by_path(const char *model_path, const char *device_name, int device_id,
                                                   mmdeploy_segmentor_t *segmentor) {
    (void)device_id;
    return mmd__handle_create_by_path(model_path, device_name, MMD__TASK_SEGMENTOR, (mmd__sdk_handle **)segmentor);
}

/* ResizeMask: the argmax map resized (nearest) to the original image, or without argmax the
   score map resized bilinearly, as MMDeploy's CPU postprocess does with OpenCV. */
static int mmd__segment(const mmd__sdk_handle *h, const mmd_sdk_meta *meta, mmdeploy_segmentation_t *r) {
    const mmd_tensor *y = mmd__output(h, "output", 0);
    int32_t oh = meta->ori_shape[1], ow = meta->ori_shape[2], c, x, yy;
    int64_t ih, iw;
    mmd__img src, dst;
    int st;
    if (!y || y->rank != 4 || y->dims[0] != 1 || (h->m.with_argmax ? y->dims[1] != 1 : y->dtype != MMD_DTYPE_FLOAT32))
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "ResizeMask: the output is not [1, %s, H, W]",
                             h->m.with_argmax ? "1" : "classes (float32)");
    ih = y->dims[2];
    iw = y->dims[3];
    if ((st = mmd__img_check(ih, iw, "the segmentation output")) != 0) return st;
    r->height = oh;
    r->width = ow;
    r->classes = h->m.num_classes;
    src.h = (int32_t)ih;
    src.w = (int32_t)iw;
    src.chw = 0;
    src.is_float = 1;
    if (h->m.with_argmax) {
        /* Labels are small integers: exact in float, so the float path resizes them. */
        float *lab = (float *)malloc((size_t)(ih * iw) * sizeof(float));
        int64_t i;
        if (!lab) return MMDEPLOY_E_OUT_OF_MEMORY;
        if (y->dtype != MMD_DTYPE_INT64 && y->dtype != MMD_DTYPE_INT32 && y->dtype != MMD_DTYPE_FLOAT32) {
            free(lab);
            return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "ResizeMask: output type %s is not supported", mmd_dtype_name(y->dtype));
        }
        for (i = 0; i < ih * iw; ++i) lab[i] = (float)mmd__value(y, i);
        src.c = 1;
        src.data = lab;
        st = mmd__img_resize(&src, &dst, oh, ow, MMD_IMAGE_NEAREST);
        free(lab);
        if (st) return st;
        r->mask = (int *)malloc((size_t)oh * (size_t)ow * sizeof(int));
        if (!r->mask) {
            free(dst.data);
            return MMDEPLOY_E_OUT_OF_MEMORY;
        }
        for (yy = 0; yy < oh; ++yy)
            for (x = 0; x < ow; ++x) r->mask[(size_t)yy * ow + x] = (int)((float *)dst.data)[(size_t)yy * ow + x];
        free(dst.data);
        return MMDEPLOY_SUCCESS;
    }
    /* Scores: CHW to HWC, resize every channel at once, back to CHW. */
    c = (int32_t)y->dims[1];
    if ((st = mmd__img_alloc(&src, (int32_t)ih, (int32_t)iw, c, 1)) != 0) return st;
    for (yy = 0; yy < c; ++yy) {
        int64_t i;
        for (i = 0; i < ih * iw; ++i) ((float *)src.data)[i * c + yy] = ((const float *)y->data)[yy * ih * iw + i];
    }
    st = mmd__img_resize(&src, &dst, oh, ow, MMD_IMAGE_BILINEAR);
    free(src.data);
    if (st) return st;
    src = dst;
    dst.data = NULL;
    if ((st = mmd__img_to_chw(&src)) != 0) {
        free(src.data);
        return st;
    }
    r->score = (float *)src.data;
    r->classes = c;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API int mmdeploy_segmentor_apply(mmdeploy_segmentor_t segmentor, const mmdeploy_mat_t *mats, int mat_count,
                                          mmdeploy_segmentation_t **results) {
    mmd__sdk_handle *h = (mmd__sdk_handle *)segmentor;
    mmdeploy_segmentation_t *res;
    int st = 0, i;
    if (!h || !mats || mat_count < 1 || !results) return MMDEPLOY_E_INVALID_ARG;
    *results = NULL;
    if (!(res = (mmdeploy_segmentation_t *)calloc((size_t)mat_count, sizeof *res))) return MMDEPLOY_E_OUT_OF_MEMORY;
    for (i = 0; i < mat_count && !st; ++i) {
        mmd__img im;
        mmd_sdk_meta meta;
        if ((st = mmd__run(h, &mats[i], NULL, NULL, &im, &meta)) != 0) break;
        st = mmd__segment(h, &meta, &res[i]);
        free(im.data);
    }
    if (st) {
        mmdeploy_segmentor_release_result(res, mat_count);
        return st;
    }
    *results = res;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API void mmdeploy_segmentor_release_result(mmdeploy_segmentation_t *results, int count) {
    int i;
    if (!results) return;
    for (i = 0; i < count; ++i) {
        free(results[i].mask);
        free(results[i].score);
    }
    free(results);
}

MMDEPLOY_API void mmdeploy_segmentor_destroy(mmdeploy_segmentor_t segmentor) {
    mmd__handle_destroy((mmd__sdk_handle *)segmentor);
}

/* ==== >>sdk pose ==== */
struct mmdeploy_pose_detector {
    mmd__sdk_handle h;
};

MMDEPLOY_API int mmdeploy_pose_detector_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                               mmdeploy_pose_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create(model, device_name, MMD__TASK_POSE, (mmd__sdk_handle **)detector);
}

MMDEPLOY_API int mmdeploy_pose_detector_create_by_path(const char *model_path, const char *device_name,
                                                       int device_id, mmdeploy_pose_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create_by_path(model_path, device_name, MMD__TASK_POSE, (mmd__sdk_handle **)detector);
}

/* Index of the first largest of n floats (cv::minMaxLoc's choice). */
static int64_t mmd__argmax(const float *v, int64_t n) {
    int64_t i, best = 0;
    for (i = 1; i < n; ++i)
        if (v[i] > v[best]) best = i;
    return best;
}

/* TopdownHeatmapSimpleHeadDecode on the [1, K, H, W] heatmaps, in MMDeploy's float arithmetic:
   each map's first maximum (-1, -1 when it is not positive), moved a quarter pixel towards the
   higher neighbour on each axis away from the border, then mapped back through the box:
   x * (scale * 200 / W) + centre - scale * 100. */
static int mmd__pose_heatmap(const mmd__sdk_handle *h, const mmd_sdk_meta *meta, mmdeploy_pose_detection_t *r) {
    const mmd_tensor *y = mmd__output(h, "output", 0);
    int64_t k, hh, ww;
    float sx, sy;
    if (!y || y->dtype != MMD_DTYPE_FLOAT32 || y->rank != 4 || y->dims[0] != 1 || y->dims[1] < 1 ||
        y->dims[1] > (1 << 20) || y->dims[2] < 1 || y->dims[3] < 1)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "TopdownHeatmapSimpleHeadDecode: the output is not float32 "
                             "[1, keypoints (1 to 2^20), H, W] heatmaps");
    hh = y->dims[2];
    ww = y->dims[3];
    r->length = (int)y->dims[1];
    r->point = (mmdeploy_point_t *)malloc((size_t)r->length * sizeof *r->point);
    r->score = (float *)malloc((size_t)r->length * sizeof *r->score);
    if (!r->point || !r->score) return MMDEPLOY_E_OUT_OF_MEMORY;
    sx = meta->scale[0] * 200.0f / (float)ww;
    sy = meta->scale[1] * 200.0f / (float)hh;
    for (k = 0; k < r->length; ++k) {
        const float *d = (const float *)y->data + k * hh * ww;
        int64_t best = mmd__argmax(d, hh * ww), ix = best % ww, iy = best / ww;
        float px = -1.0f, py = -1.0f, v = d[best];
        if (v > 0.0f) {
            px = (float)ix;
            py = (float)iy;
        }
        /* MMDeploy's bounds (1 < px < W - 1), one pixel narrower than mmpose's. */
        if (h->m.quarter_offset && v > 0.0f && 1 < ix && ix < ww - 1 && 1 < iy && iy < hh - 1) {
            float dx = d[iy * ww + ix + 1] - d[iy * ww + ix - 1], dy = d[(iy + 1) * ww + ix] - d[(iy - 1) * ww + ix];
            px += dx > 0.0f ? 0.25f : dx < 0.0f ? -0.25f : 0.0f;
            py += dy > 0.0f ? 0.25f : dy < 0.0f ? -0.25f : 0.0f;
        }
        r->point[k].x = (float)((double)(px * sx + meta->center[0]) - (double)(meta->scale[0] * 200.0f) * 0.5);
        r->point[k].y = (float)((double)(py * sy + meta->center[1]) - (double)(meta->scale[1] * 200.0f) * 0.5);
        r->score[k] = v;
    }
    return MMDEPLOY_SUCCESS;
}

/* SimCCLabelDecode on simcc_x [1, K, Wx] and simcc_y [1, K, Wy]: each keypoint at the first
   maxima of its two vectors divided by simcc_split_ratio (-1 when the smaller maximum, its
   score, is not positive), mapped back through the box as the heatmap is, on input_size. */
static int mmd__pose_simcc(const mmd__sdk_handle *h, const mmd_sdk_meta *meta, mmdeploy_pose_detection_t *r) {
    const mmd_tensor *tx = mmd__output(h, "simcc_x", 0), *ty = mmd__output(h, "simcc_y", 1);
    int64_t k, nx, ny;
    float s0 = meta->scale[0] * 200.0f, s1 = meta->scale[1] * 200.0f;
    if (!tx || !ty || tx->dtype != MMD_DTYPE_FLOAT32 || ty->dtype != MMD_DTYPE_FLOAT32 || tx->rank != 3 ||
        ty->rank != 3 || tx->dims[0] != 1 || ty->dims[0] != 1 || tx->dims[1] != ty->dims[1] || tx->dims[1] < 1 ||
        tx->dims[1] > (1 << 20) || tx->dims[2] < 1 || ty->dims[2] < 1)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "SimCCLabelDecode: the outputs are not float32 simcc_x "
                             "[1, K, Wx] and simcc_y [1, K, Wy] with K of 1 to 2^20");
    nx = tx->dims[2];
    ny = ty->dims[2];
    r->length = (int)tx->dims[1];
    r->point = (mmdeploy_point_t *)malloc((size_t)r->length * sizeof *r->point);
    r->score = (float *)malloc((size_t)r->length * sizeof *r->score);
    if (!r->point || !r->score) return MMDEPLOY_E_OUT_OF_MEMORY;
    for (k = 0; k < r->length; ++k) {
        const float *dx = (const float *)tx->data + k * nx, *dy = (const float *)ty->data + k * ny;
        int64_t bx = mmd__argmax(dx, nx), by = mmd__argmax(dy, ny);
        float score = dx[bx] > dy[by] ? dy[by] : dx[bx];
        float x = (score > 0.0f ? (float)bx : -1.0f) / h->m.split_ratio;
        float y = (score > 0.0f ? (float)by : -1.0f) / h->m.split_ratio;
        r->point[k].x = (float)((double)(x * s0 / (float)h->m.input_size[0] + meta->center[0]) - (double)s0 * 0.5);
        r->point[k].y = (float)((double)(y * s1 / (float)h->m.input_size[1] + meta->center[1]) - (double)s1 * 0.5);
        r->score[k] = score;
    }
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API int mmdeploy_pose_detector_apply(mmdeploy_pose_detector_t detector, const mmdeploy_mat_t *mats,
                                              int mat_count, mmdeploy_pose_detection_t **results) {
    return mmdeploy_pose_detector_apply_bbox(detector, mats, mat_count, NULL, NULL, results);
}

MMDEPLOY_API int mmdeploy_pose_detector_apply_bbox(mmdeploy_pose_detector_t detector, const mmdeploy_mat_t *mats,
                                                   int mat_count, const mmdeploy_rect_t *bboxes,
                                                   const int *bbox_count, mmdeploy_pose_detection_t **results) {
    mmd__sdk_handle *h = (mmd__sdk_handle *)detector;
    mmdeploy_pose_detection_t *res;
    int64_t total = 0;
    int st = 0, i, j, n = 0;
    if (!h || !mats || mat_count < 1 || !results) return MMDEPLOY_E_INVALID_ARG;
    *results = NULL;
    if (!bboxes || !bbox_count) total = mat_count;
    for (i = 0; i < mat_count && bboxes && bbox_count; ++i) {
        if (bbox_count[i] < 0 || bbox_count[i] > (1 << 20))
            return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "bbox_count[%d] = %d is not in [0, 2^20]", i, bbox_count[i]);
        total += bbox_count[i];
    }
    if (total > (1 << 24)) return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "%lld boxes, more than 2^24", (long long)total);
    if (!(res = (mmdeploy_pose_detection_t *)calloc((size_t)(total ? total : 1), sizeof *res)))
        return MMDEPLOY_E_OUT_OF_MEMORY;
    for (i = 0; i < mat_count && !st; ++i) {
        int boxes = bboxes && bbox_count ? bbox_count[i] : 1;
        for (j = 0; j < boxes && !st; ++j, ++n) {
            mmd__img im;
            mmd_sdk_meta meta;
            if ((st = mmd__run(h, &mats[i], bboxes && bbox_count ? bboxes++ : NULL, NULL, &im, &meta)) != 0) break;
            if (!(meta.scale[0] > 0.0f && meta.scale[1] > 0.0f))
                st = mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "the pose model's pipeline has no TopDownAffine");
            else st = h->m.simcc ? mmd__pose_simcc(h, &meta, &res[n]) : mmd__pose_heatmap(h, &meta, &res[n]);
            free(im.data);
        }
    }
    if (st) {
        mmdeploy_pose_detector_release_result(res, (int)total);
        return st;
    }
    *results = res;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API void mmdeploy_pose_detector_release_result(mmdeploy_pose_detection_t *results, int count) {
    int i;
    if (!results) return;
    for (i = 0; i < count; ++i) {
        free(results[i].point);
        free(results[i].score);
    }
    free(results);
}

MMDEPLOY_API void mmdeploy_pose_detector_destroy(mmdeploy_pose_detector_t detector) {
    mmd__handle_destroy((mmd__sdk_handle *)detector);
}

/* ==== >>sdk text detector ==== */
/* mmocr's DBHead as MMDeploy's CPU SDK runs it (codebase/mmocr/dbnet.cpp, cpu/dbnet.cpp): the
   probability map thresholded (>= mask_thr), the borders of the mask followed as OpenCV's
   findContours follows them (RETR_LIST, CHAIN_APPROX_SIMPLE), at most max_candidates of them
   each simplified by approxPolyDP (epsilon 1% of its length), scored by the mean probability
   under its filled polygon (fillPoly, LINE_8), grown by area * unclip_ratio / length with
   round joins (Clipper's offset) and boxed by the minimum-area rectangle, whose corners are
   scaled back to the original image and rounded. */
struct mmdeploy_text_detector {
    mmd__sdk_handle h;
};

typedef struct mmd__ipt {
    int64_t x, y;
} mmd__ipt;

/* A growable list of points. */
typedef struct mmd__pts {
    mmd__ipt *p;
    size_t n, cap;
} mmd__pts;

static int mmd__pts_push(mmd__pts *a, int64_t x, int64_t y) {
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        mmd__ipt *q = (mmd__ipt *)realloc(a->p, cap * sizeof *q);
        if (!q) return MMDEPLOY_E_OUT_OF_MEMORY;
        a->p = q;
        a->cap = cap;
    }
    a->p[a->n].x = x;
    a->p[a->n++].y = y;
    return MMDEPLOY_SUCCESS;
}

/* Chain codes: 0 is +x, counting counter-clockwise on the screen (1 is up and right). */
static const int8_t mmd__chain_dx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int8_t mmd__chain_dy[8] = {0, -1, -1, -1, 0, 1, 1, 1};

/* Follows one border of the 0/1 mask `img` (rows of `stride` bytes with a zero frame) from
   pixel `at` (x, y without the frame), an outer border or (hole) the border of a hole whose
   zero pixel is right of `at`, as Suzuki and Abe's algorithm does in OpenCV: followed pixels
   are marked 2, or -126 where the border turns back from the right, so that the scan starts
   no border twice. The points where the chain code changes are appended to `out` (NULL: only
   followed, for the marks). Each step
   leaves one pixel towards one of its 8 neighbours, never twice the same way, so the loop
   ends within `limit` (8 per pixel) steps; checked all the same. */
static int mmd__follow_border(int8_t *img, int64_t stride, int64_t limit, int64_t at, int64_t x, int64_t y,
                              int32_t hole, mmd__pts *out) {
    int64_t d[8], i1, i3, i4 = 0, steps = 0;
    int32_t s, s_end, prev_s, k;
    int st;
    for (k = 0; k < 8; ++k) d[k] = mmd__chain_dy[k] * stride + mmd__chain_dx[k];
    s_end = s = hole ? 0 : 4;
    do {
        s = (s - 1) & 7;
        i1 = at + d[s];
    } while (img[i1] == 0 && s != s_end);
    if (s == s_end) {
        img[at] = -126;
        return out ? mmd__pts_push(out, x, y) : MMDEPLOY_SUCCESS;
    }
    i3 = at;
    prev_s = s ^ 4;
    for (;;) {
        s_end = s;
        for (k = 1; k <= 8; ++k) {
            i4 = i3 + d[(s + k) & 7];
            if (img[i4] != 0) break;
        }
        s = (s + k) & 7;
        if ((uint32_t)(s - 1) < (uint32_t)s_end) img[i3] = -126;
        else if (img[i3] == 1) img[i3] = 2;
        if (s != prev_s) {
            if (out && (st = mmd__pts_push(out, x, y)) != 0) return st;
            prev_s = s;
        }
        x += mmd__chain_dx[s];
        y += mmd__chain_dy[s];
        if (i4 == at && i3 == i1) break;
        if (++steps > limit) return mmd__sdk_fail(MMDEPLOY_E_FAIL, "DBHead: a border did not close");
        i3 = i4;
        s = (s + 4) & 7;
    }
    return MMDEPLOY_SUCCESS;
}

/* The borders of the mask (h x w inside its frame), outer and hole, as findContours with
   RETR_LIST finds them: *total of them. Those from the skip-th found on are kept, in the order
   findContours returns them (the last found first): their points in pts, ends[k] the end of
   kept border k in pts (malloc'd), *kept of them. findContours' list is cut to its first
   max_candidates, the last found: a first pass with skip past any count counts them, so that
   a second keeps only those, and a map of a million specks costs no more memory than their
   marks. */
static int mmd__find_borders(int8_t *img, int64_t h, int64_t w, size_t skip, mmd__pts *pts, size_t **ends,
                             size_t *kept, size_t *total) {
    int64_t stride = w + 2, y, x;
    size_t cap = 0, n = 0, found = 0, k;
    int st = 0;
    *ends = NULL;
    for (y = 1; y <= h && !st; ++y) {
        int8_t prev = 0;
        for (x = 1; x <= w && !st; ++x) {
            int8_t p = img[y * stride + x];
            int32_t hole, keep;
            if (p == prev) continue;
            if (prev == 0 && p == 1) hole = 0;
            else if (p == 0 && prev >= 1) hole = 1;
            else {
                prev = p;
                continue;
            }
            keep = found++ >= skip;
            if (keep && n == cap) {
                size_t *q = (size_t *)realloc(*ends, (cap = cap ? 2 * cap : 64) * sizeof *q);
                if (!q) {
                    st = MMDEPLOY_E_OUT_OF_MEMORY;
                    break;
                }
                *ends = q;
            }
            st = mmd__follow_border(img, stride, 8 * stride * (h + 2) + 64, y * stride + x - hole, x - 1 - hole,
                                    y - 1, hole, keep ? pts : NULL);
            if (keep) (*ends)[n++] = pts->n;
            /* The scan goes on from the pixel after the start, as it is now marked. */
            prev = img[y * stride + x];
        }
    }
    *kept = n;
    *total = found;
    /* Reverse the order of the borders in place: ends become starts of the reversed list. */
    if (!st && n) {
        mmd__ipt *r = (mmd__ipt *)malloc((pts->n ? pts->n : 1) * sizeof *r);
        size_t *e = (size_t *)malloc(n * sizeof *e), pos = 0;
        if (!r || !e) st = MMDEPLOY_E_OUT_OF_MEMORY;
        for (k = n; k-- > 0 && !st;) {
            size_t b = k ? (*ends)[k - 1] : 0;
            memcpy(r + pos, pts->p + b, ((*ends)[k] - b) * sizeof *r);
            pos += (*ends)[k] - b;
            e[n - 1 - k] = pos;
        }
        if (!st) {
            memcpy(pts->p, r, pts->n * sizeof *r);
            memcpy(*ends, e, n * sizeof *e);
        }
        free(r);
        free(e);
    }
    return st;
}

/* cv::arcLength of a closed polygon: float steps summed in double. */
static double mmd__arc_length(const mmd__ipt *p, size_t n) {
    double len = 0.0;
    size_t i;
    for (i = 0; i < n; ++i) {
        const mmd__ipt *q = &p[i ? i - 1 : n - 1];
        float dx = (float)(p[i].x - q->x), dy = (float)(p[i].y - q->y);
        len += sqrtf(dx * dx + dy * dy);
    }
    return len;
}

/* cv::approxPolyDP (Douglas-Peucker) of a closed contour of n points into out (n points of
   room), as OpenCV 4.6 runs it: the start and its farthest point (searched three times), the
   slices split at the farthest point from their chord while it lies further than eps, then
   the points nearly on a line between their neighbours dropped. Returns the count. */
static size_t mmd__approx_poly(const mmd__ipt *src, size_t n, double eps, mmd__ipt *out, size_t *stack) {
    size_t top = 0, count = 0, i, j, pos = 0, wpos, rs = 0, s0, s1, cnt;
    mmd__ipt start = src[0], pt, end;
    int le_eps = 0;
    eps *= eps;
    for (i = 0; i < 3; ++i) {
        double best = 0.0;
        pos = (pos + rs) % n;
        start = src[pos];
        pos = (pos + 1) % n;
        for (j = 1; j < n; ++j) {
            double dx = (double)(src[pos].x - start.x), dy = (double)(src[pos].y - start.y), dist = dx * dx + dy * dy;
            pos = (pos + 1) % n;
            if (dist > best) best = dist, rs = j;
        }
        le_eps = best <= eps;
    }
    if (!le_eps) {
        /* A slice is a pair (start, end) of indices on the stack. */
        s0 = pos % n;
        s1 = (rs + s0) % n;
        stack[top++] = s1;
        stack[top++] = s0;
        stack[top++] = s0;
        stack[top++] = s1;
    } else {
        out[count++] = start;
    }
    while (top > 0) {
        size_t send = stack[--top], sstart = stack[--top];
        end = src[send];
        pos = sstart;
        start = src[pos];
        pos = (pos + 1) % n;
        if (pos != send) {
            double dx = (double)(end.x - start.x), dy = (double)(end.y - start.y), best = 0.0;
            while (pos != send) {
                double dist;
                pt = src[pos];
                pos = (pos + 1) % n;
                dist = fabs((double)(pt.y - start.y) * dx - (double)(pt.x - start.x) * dy);
                if (dist > best) best = dist, rs = (pos + n - 1) % n;
            }
            le_eps = best * best <= eps * (dx * dx + dy * dy);
        } else {
            le_eps = 1;
        }
        if (le_eps) {
            out[count++] = start;
        } else {
            stack[top++] = rs;
            stack[top++] = send;
            stack[top++] = sstart;
            stack[top++] = rs;
        }
    }
    /* Drop the points that lie nearly on the line between their neighbours. */
    cnt = count;
    pos = cnt - 1;
    start = out[pos];
    pos = (pos + 1) % cnt;
    wpos = pos;
    pt = out[pos];
    pos = (pos + 1) % cnt;
    for (i = 0; i < cnt && count > 2; ++i) {
        double dx, dy, dist, inner;
        end = out[pos];
        pos = (pos + 1) % cnt;
        dx = (double)(end.x - start.x);
        dy = (double)(end.y - start.y);
        dist = fabs((double)(pt.x - start.x) * dy - (double)(pt.y - start.y) * dx);
        inner = (double)(pt.x - start.x) * (double)(end.x - pt.x) + (double)(pt.y - start.y) * (double)(end.y - pt.y);
        if (dist * dist <= 0.5 * eps * (dx * dx + dy * dy) && dx != 0.0 && dy != 0.0 && inner >= 0.0) {
            --count;
            out[wpos] = start = end;
            wpos = (wpos + 1) % cnt;
            pt = out[pos];
            pos = (pos + 1) % cnt;
            ++i;
            continue;
        }
        out[wpos] = start = pt;
        wpos = (wpos + 1) % cnt;
        pt = end;
    }
    return count;
}

/* Marks the pixels of the segment a-b in mask (w wide, offsets relative to it) as OpenCV's
   8-connected Line draws them: from the left end, one pixel per step of the longer axis, the
   shorter one stepping when the error goes below 0. */
static void mmd__mask_line(uint8_t *mask, int64_t w, mmd__ipt a, mmd__ipt b) {
    int64_t dx, dy, sy, major, minor, err, k, x, y;
    int32_t steep;
    if (b.x < a.x) {
        mmd__ipt t = a;
        a = b;
        b = t;
    }
    dx = b.x - a.x;
    dy = b.y - a.y;
    sy = dy < 0 ? -1 : 1;
    dy = dy < 0 ? -dy : dy;
    steep = dy > dx;
    major = steep ? dy : dx;
    minor = steep ? dx : dy;
    err = major - 2 * minor;
    x = a.x;
    y = a.y;
    for (k = 0; k <= major; ++k) {
        int32_t step = err < 0;
        mask[y * w + x] = 1;
        err += -2 * minor + (step ? 2 * major : 0);
        if (steep) {
            y += sy;
            x += step;
        } else {
            x += 1;
            y += step ? sy : 0;
        }
    }
}

/* box_score_fast: the mean of the map over the polygon as fillPoly (LINE_8) covers it inside
   the polygon's bounding box: its edges drawn as lines, and each row filled between pairs of
   edge crossings (edges taken on [top, bottom) rows, crossings in 16.16 fixed point stepped
   per row, both ends floored). mask and xs are scratch of the box's size and of n. */
static double mmd__poly_mean(const float *map, int64_t map_w, const mmd__ipt *p, size_t n, uint8_t *mask,
                             int64_t *xs) {
    int64_t x0 = p[0].x, y0 = p[0].y, x1 = p[0].x, y1 = p[0].y, w, h, y, x;
    double sum = 0.0;
    size_t i, k, cnt = 0;
    for (i = 1; i < n; ++i) {
        x0 = p[i].x < x0 ? p[i].x : x0;
        x1 = p[i].x > x1 ? p[i].x : x1;
        y0 = p[i].y < y0 ? p[i].y : y0;
        y1 = p[i].y > y1 ? p[i].y : y1;
    }
    w = x1 - x0 + 1;
    h = y1 - y0 + 1;
    memset(mask, 0, (size_t)(w * h));
    for (i = 0; i < n; ++i) {
        mmd__ipt a = p[i ? i - 1 : n - 1], b = p[i];
        a.x -= x0, a.y -= y0, b.x -= x0, b.y -= y0;
        mmd__mask_line(mask, w, a, b);
    }
    for (y = 0; y < h; ++y) {
        size_t m = 0;
        for (i = 0; i < n; ++i) {
            const mmd__ipt *a = &p[i ? i - 1 : n - 1], *b = &p[i];
            const mmd__ipt *t = a->y < b->y ? a : b, *u = a->y < b->y ? b : a;
            int64_t dx, xx;
            if (a->y == b->y || y + y0 < t->y || y + y0 >= u->y) continue;
            dx = (((u->x - t->x) * 65536) / (u->y - t->y));
            xx = (t->x - x0) * 65536 + (y + y0 - t->y) * dx;
            for (k = m++; k > 0 && xs[k - 1] > xx; --k) xs[k] = xs[k - 1];
            xs[k] = xx;
        }
        for (k = 0; k + 1 < m; k += 2) {
            int64_t xa = (xs[k] + 32768) >> 16, xb = xs[k + 1] >> 16;
            for (x = xa < 0 ? 0 : xa; x <= xb && x < w; ++x) mask[y * w + x] = 1;
        }
    }
    for (y = 0; y < h; ++y)
        for (x = 0; x < w; ++x)
            if (mask[y * w + x]) {
                sum += (double)map[(y + y0) * map_w + x + x0];
                ++cnt;
            }
    return cnt ? sum / (double)cnt : 0.0;
}

/* Clipper's Round: half away from zero. */
static int64_t mmd__clipper_round(double v) {
    return v < 0.0 ? (int64_t)(v - 0.5) : (int64_t)(v + 0.5);
}

/* The vertices of Clipper's offset of the closed polygon p (n distinct consecutive points,
   turned counter-clockwise) by delta > 0 with round joins (ClipperOffset, arc tolerance 0.25),
   before Clipper unites them into the grown polygon: only their convex hull is wanted, which
   the union keeps. */
static int mmd__offset_points(const mmd__ipt *p, size_t n, double delta, double *normals, mmd__pts *out) {
    double tol = delta * 0.25 < 0.25 ? delta * 0.25 : 0.25, steps = 3.14159265358979323846 / acos(1.0 - tol / delta);
    double sn, cs, per_rad;
    size_t j, k = n - 1;
    int st = 0;
    if (steps > delta * 3.14159265358979323846) steps = delta * 3.14159265358979323846;
    sn = sin(2.0 * 3.14159265358979323846 / steps);
    cs = cos(2.0 * 3.14159265358979323846 / steps);
    per_rad = steps / (2.0 * 3.14159265358979323846);
    for (j = 0; j < n; ++j) {
        const mmd__ipt *a = &p[j], *b = &p[(j + 1) % n];
        double dx = (double)(b->x - a->x), dy = (double)(b->y - a->y), f = 1.0 / sqrt(dx * dx + dy * dy);
        normals[2 * j] = dy * f;
        normals[2 * j + 1] = -dx * f;
    }
    for (j = 0; j < n && !st; ++j) {
        const double *nk = &normals[2 * k], *nj = &normals[2 * j];
        double px = (double)p[j].x, py = (double)p[j].y, sin_a = nk[0] * nj[1] - nj[0] * nk[1];
        if (fabs(sin_a * delta) < 1.0) {
            if (nk[0] * nj[0] + nj[1] * nk[1] > 0.0) {
                /* Nearly straight on: one point, and the next join measures from the same edge. */
                st = mmd__pts_push(out, mmd__clipper_round(px + nk[0] * delta), mmd__clipper_round(py + nk[1] * delta));
                continue;
            }
        } else if (sin_a > 1.0) {
            sin_a = 1.0;
        } else if (sin_a < -1.0) {
            sin_a = -1.0;
        }
        if (sin_a * delta < 0.0) {
            /* A concave corner: both edges' ends and the corner itself. */
            st = mmd__pts_push(out, mmd__clipper_round(px + nk[0] * delta), mmd__clipper_round(py + nk[1] * delta));
            if (!st) st = mmd__pts_push(out, p[j].x, p[j].y);
            if (!st) st = mmd__pts_push(out, mmd__clipper_round(px + nj[0] * delta), mmd__clipper_round(py + nj[1] * delta));
        } else {
            /* A convex corner: the arc from one edge's normal to the other's. */
            double a = atan2(sin_a, nk[0] * nj[0] + nk[1] * nj[1]), x = nk[0], y = nk[1], x2;
            int64_t s, arc = mmd__clipper_round(per_rad * fabs(a));
            arc = arc < 1 ? 1 : arc;
            for (s = 0; s < arc && !st; ++s) {
                st = mmd__pts_push(out, mmd__clipper_round(px + x * delta), mmd__clipper_round(py + y * delta));
                x2 = x;
                x = x * cs - sn * y;
                y = x2 * sn + y * cs;
            }
            if (!st) st = mmd__pts_push(out, mmd__clipper_round(px + nj[0] * delta), mmd__clipper_round(py + nj[1] * delta));
        }
        k = j;
    }
    return st;
}

static int mmd__ipt_cmp(const void *a, const void *b) {
    const mmd__ipt *p = (const mmd__ipt *)a, *q = (const mmd__ipt *)b;
    return p->x != q->x ? (p->x < q->x ? -1 : 1) : p->y != q->y ? (p->y < q->y ? -1 : 1) : 0;
}

static int64_t mmd__cross(const mmd__ipt *o, const mmd__ipt *a, const mmd__ipt *b) {
    return (a->x - o->x) * (b->y - o->y) - (a->y - o->y) * (b->x - o->x);
}

/* cv::minAreaRect of the points (sorted and overwritten by their convex hull): the hull by
   Andrew's monotone chain (no collinear points, as convexHull gives it), taken clockwise as
   minAreaRect asks for it, then OpenCV's rotating calipers in its float arithmetic (the caliper
   that turns least moves on; the last rectangle of least area wins), so that the rectangle,
   which of its sides is the "width" and the order of its corners (cv::RotatedRect::points:
   clockwise on the screen) are OpenCV's. Corners to c, sides to *w and *hgt. -1 when out of
   memory. */
static int mmd__min_area_rect(mmd__ipt *p, size_t n, float c[8], float *w, float *hgt) {
    size_t i, k = 0, t, m, top;
    float *px, *py, *vx, *vy, *inv, out[6], cx, cy, angle_f, a, b;
    double angle;
    mmd__ipt *h;
    qsort(p, n, sizeof *p, mmd__ipt_cmp);
    if (!(h = (mmd__ipt *)malloc((2 * n + 1) * sizeof *h))) return -1;
    for (i = 0; i < n; ++i) {
        while (k >= 2 && mmd__cross(&h[k - 2], &h[k - 1], &p[i]) <= 0) --k;
        h[k++] = p[i];
    }
    top = k - 1;
    for (i = n, t = k + 1; i-- > 0;) {
        while (k >= t && mmd__cross(&h[k - 2], &h[k - 1], &p[i]) <= 0) --k;
        h[k++] = p[i];
    }
    m = k > 1 ? k - 1 : k;
    if (m == 2 && h[0].x == h[1].x && h[0].y == h[1].y) m = 1;
    if (!(px = (float *)malloc(5 * (m ? m : 1) * sizeof *px))) {
        free(h);
        return -1;
    }
    py = px + m, vx = py + m, vy = vx + m, inv = vy + m;
    /* Clockwise: the chain's order reversed. */
    for (i = 0; i < m; ++i) px[i] = (float)h[(top + i) % m].x, py[i] = (float)h[(top + i) % m].y;
    free(h);
    if (m > 2) {
        float minarea = 3.402823466e38f, orientation = 0.0f, base_a, base_b = 0.0f, left_x, right_x, top_y, bottom_y;
        float best[5] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, x0 = px[0], y0 = py[0];
        size_t left = 0, bottom = 0, right = 0, top = 0, seq[4], bl = 0, bb = 0;
        left_x = right_x = x0;
        top_y = bottom_y = y0;
        for (i = 0; i < m; ++i) {
            size_t j = i + 1 < m ? i + 1 : 0;
            double dx, dy;
            if (x0 < left_x) left_x = x0, left = i;
            if (x0 > right_x) right_x = x0, right = i;
            if (y0 > top_y) top_y = y0, top = i;
            if (y0 < bottom_y) bottom_y = y0, bottom = i;
            dx = (double)(px[j] - x0);
            dy = (double)(py[j] - y0);
            vx[i] = (float)dx;
            vy[i] = (float)dy;
            inv[i] = (float)(1.0 / sqrt(dx * dx + dy * dy));
            x0 = px[j];
            y0 = py[j];
        }
        {
            double ax = vx[m - 1], ay = vy[m - 1];
            for (i = 0; i < m && orientation == 0.0f; ++i) {
                double bx = vx[i], by = vy[i], convexity = ax * by - ay * bx;
                if (convexity != 0.0) orientation = convexity > 0.0 ? 1.0f : -1.0f;
                ax = bx;
                ay = by;
            }
        }
        base_a = orientation;
        seq[0] = bottom, seq[1] = right, seq[2] = top, seq[3] = left;
        for (k = 0; k < m; ++k) {
            float dp[4], maxcos, lx, ly, dx, dy, width, height, area;
            int32_t e = 0, q;
            dp[0] = base_a * vx[seq[0]] + base_b * vy[seq[0]];
            dp[1] = -base_b * vx[seq[1]] + base_a * vy[seq[1]];
            dp[2] = -base_a * vx[seq[2]] - base_b * vy[seq[2]];
            dp[3] = base_b * vx[seq[3]] - base_a * vy[seq[3]];
            maxcos = dp[0] * inv[seq[0]];
            for (q = 1; q < 4; ++q)
                if (dp[q] * inv[seq[q]] > maxcos) maxcos = dp[q] * inv[seq[q]], e = q;
            lx = vx[seq[e]] * inv[seq[e]];
            ly = vy[seq[e]] * inv[seq[e]];
            if (e == 0) base_a = lx, base_b = ly;
            else if (e == 1) base_a = ly, base_b = -lx;
            else if (e == 2) base_a = -lx, base_b = -ly;
            else base_a = -ly, base_b = lx;
            seq[e] = seq[e] + 1 == m ? 0 : seq[e] + 1;
            dx = px[seq[1]] - px[seq[3]];
            dy = py[seq[1]] - py[seq[3]];
            width = dx * base_a + dy * base_b;
            dx = px[seq[2]] - px[seq[0]];
            dy = py[seq[2]] - py[seq[0]];
            height = -dx * base_b + dy * base_a;
            area = width * height;
            if (area <= minarea) {
                minarea = area;
                bl = seq[3], bb = seq[0];
                best[0] = base_a, best[1] = width, best[2] = base_b, best[3] = height;
            }
        }
        {
            float a1 = best[0], b1 = best[2], a2 = -best[2], b2 = best[0];
            float c1 = a1 * px[bl] + py[bl] * b1, c2 = a2 * px[bb] + py[bb] * b2, idet = 1.0f / (a1 * b2 - a2 * b1);
            out[0] = (c1 * b2 - c2 * b1) * idet;
            out[1] = (a1 * c2 - a2 * c1) * idet;
            out[2] = a1 * best[1];
            out[3] = b1 * best[1];
            out[4] = a2 * best[3];
            out[5] = b2 * best[3];
        }
        cx = out[0] + (out[2] + out[4]) * 0.5f;
        cy = out[1] + (out[3] + out[5]) * 0.5f;
        *w = (float)sqrt((double)out[2] * out[2] + (double)out[3] * out[3]);
        *hgt = (float)sqrt((double)out[4] * out[4] + (double)out[5] * out[5]);
        angle_f = (float)atan2((double)out[3], (double)out[2]);
    } else if (m == 2) {
        double dx = (double)(px[1] - px[0]), dy = (double)(py[1] - py[0]);
        cx = (px[0] + px[1]) * 0.5f;
        cy = (py[0] + py[1]) * 0.5f;
        *w = (float)sqrt(dx * dx + dy * dy);
        *hgt = 0.0f;
        angle_f = (float)atan2(dy, dx);
    } else {
        cx = m ? px[0] : 0.0f;
        cy = m ? py[0] : 0.0f;
        *w = *hgt = angle_f = 0.0f;
    }
    free(px);
    /* cv::RotatedRect::points. */
    angle = (double)(float)((double)angle_f * 180.0 / 3.14159265358979323846) * 3.14159265358979323846 / 180.0;
    b = (float)cos(angle) * 0.5f;
    a = (float)sin(angle) * 0.5f;
    c[0] = cx - a * *hgt - b * *w;
    c[1] = cy + b * *hgt - a * *w;
    c[2] = cx + a * *hgt - b * *w;
    c[3] = cy - b * *hgt - a * *w;
    c[4] = 2.0f * cx - c[0];
    c[5] = 2.0f * cy - c[1];
    c[6] = 2.0f * cx - c[2];
    c[7] = 2.0f * cy - c[3];
    return 1;
}

/* DBHead on the network's map "output" (float32 [1, H, W], or [1, 1, H, W]) of one image:
   its boxes appended to *res (growing it; *count of them, room for *cap). */
static int mmd__db_head(const mmd__sdk_handle *h, const mmd_sdk_meta *meta, mmdeploy_text_detection_t **res,
                        size_t *count, size_t *cap) {
    const mmd_tensor *y = mmd__output(h, "output", 0);
    const struct mmdeploy_model *m = &h->m;
    int64_t mh, mw, i;
    int8_t *img = NULL;
    uint8_t *mask = NULL;
    size_t *ends = NULL, nb = 0, k, longest = 0, kept = 0;
    int32_t pass;
    mmd__pts pts = {NULL, 0, 0}, poly = {NULL, 0, 0}, off = {NULL, 0, 0};
    mmd__ipt *approx = NULL;
    size_t *stack = NULL;
    int64_t *xs = NULL;
    double *normals = NULL;
    float scale_w = 1.0f, scale_h = 1.0f;
    int st = 0;
    if (!y || y->dtype != MMD_DTYPE_FLOAT32 || !((y->rank == 3 && y->dims[0] == 1) ||
                                                 (y->rank == 4 && y->dims[0] == 1 && y->dims[1] == 1)) ||
        y->dims[y->rank - 1] < 1 || y->dims[y->rank - 2] < 1)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "DBHead: the output is not a float32 [1, H, W] map");
    mh = y->dims[y->rank - 2];
    mw = y->dims[y->rank - 1];
    if ((st = mmd__img_check(mh, mw, "DBHead's map")) != 0) return st;
    if (m->rescale) {
        scale_w /= m->downsample_ratio * meta->scale_factor[0];
        scale_h /= m->downsample_ratio * meta->scale_factor[1];
    }
    /* The mask inside a zero frame, as findContours pads it. */
    if (!(img = (int8_t *)calloc((size_t)(mh + 2) * (size_t)(mw + 2), 1)) || !(mask = (uint8_t *)malloc((size_t)(mh * mw))))
        st = MMDEPLOY_E_OUT_OF_MEMORY;
    /* Twice: the first pass counts the borders, the second keeps the last max_candidates. */
    for (pass = 0; pass < 2 && !st; ++pass) {
        for (i = 0; i < mh * mw; ++i)
            img[(i / mw + 1) * (mw + 2) + i % mw + 1] = ((const float *)y->data)[i] >= m->mask_thr;
        st = mmd__find_borders(img, mh, mw, pass ? nb - (nb < (size_t)m->max_candidates ? nb : (size_t)m->max_candidates)
                                                 : (size_t)-1, &pts, &ends, &kept, &nb);
    }
    for (k = 0; k < kept; ++k) {
        size_t len = ends[k] - (k ? ends[k - 1] : 0);
        longest = len > longest ? len : longest;
    }
    if (!st && kept &&
        (!(approx = (mmd__ipt *)malloc(longest * sizeof *approx)) || !(stack = (size_t *)malloc((4 * longest + 8) * sizeof *stack)) ||
         !(xs = (int64_t *)malloc(longest * sizeof *xs)) || !(normals = (double *)malloc(2 * longest * sizeof *normals))))
        st = MMDEPLOY_E_OUT_OF_MEMORY;
    for (k = 0; k < kept && !st; ++k) {
        size_t b = k ? ends[k - 1] : 0, len = ends[k] - b, na, j;
        double area = 0.0, length, distance;
        float score, c[8], bw, bh;
        mmdeploy_text_detection_t *r;
        na = mmd__approx_poly(pts.p + b, len, 0.01 * mmd__arc_length(pts.p + b, len), approx, stack);
        if (na < 4) continue;
        score = (float)mmd__poly_mean((const float *)y->data, mw, approx, na, mask, xs);
        if (score < m->min_text_score) continue;
        for (j = 0; j < na; ++j) {
            const mmd__ipt *a = &approx[j ? j - 1 : na - 1];
            area += (double)(a->x * approx[j].y - approx[j].x * a->y);
        }
        /* Clipper's AddPath: repeated points and a last one equal to the first dropped, fewer
           than 3 left is nothing; then turned counter-clockwise, so that delta grows it. */
        poly.n = 0;
        for (j = 0; j < na && !st; ++j)
            if (!poly.n || approx[j].x != poly.p[poly.n - 1].x || approx[j].y != poly.p[poly.n - 1].y)
                st = mmd__pts_push(&poly, approx[j].x, approx[j].y);
        while (poly.n > 1 && poly.p[poly.n - 1].x == poly.p[0].x && poly.p[poly.n - 1].y == poly.p[0].y) --poly.n;
        if (st || poly.n < 3 || area == 0.0) continue;
        if (area < 0.0)
            for (j = 0; j < poly.n / 2; ++j) {
                mmd__ipt t = poly.p[j];
                poly.p[j] = poly.p[poly.n - 1 - j];
                poly.p[poly.n - 1 - j] = t;
            }
        length = mmd__arc_length(approx, na);
        distance = fabs(area) * 0.5 * (double)m->unclip_ratio / length;
        off.n = 0;
        if (distance < 1e-20)
            for (j = 0; j < poly.n && !st; ++j) st = mmd__pts_push(&off, poly.p[j].x, poly.p[j].y);
        else
            st = mmd__offset_points(poly.p, poly.n, distance, normals, &off);
        if (st) break;
        if (mmd__min_area_rect(off.p, off.n, c, &bw, &bh) < 0) st = MMDEPLOY_E_OUT_OF_MEMORY;
        /* mmocr's test, on the shorter side: MMDeploy's tests the side OpenCV calls width,
           which hangs on where OpenCV's hull of Clipper's output starts. */
        if (st || (int64_t)(bw < bh ? bw : bh) <= (int64_t)m->min_text_width) continue;
        if (*count == *cap) {
            size_t nc = *cap ? 2 * *cap : 16;
            mmdeploy_text_detection_t *q = (mmdeploy_text_detection_t *)realloc(*res, nc * sizeof *q);
            if (!q) {
                st = MMDEPLOY_E_OUT_OF_MEMORY;
                break;
            }
            *res = q;
            *cap = nc;
        }
        r = &(*res)[(*count)++];
        for (j = 0; j < 4; ++j) {
            /* cvRound: to nearest, halves to even (rintf in the default rounding mode). */
            r->bbox[j].x = rintf(c[2 * j] * scale_w);
            r->bbox[j].y = rintf(c[2 * j + 1] * scale_h);
        }
        r->score = score;
    }
    free(img);
    free(mask);
    free(ends);
    free(pts.p);
    free(poly.p);
    free(off.p);
    free(approx);
    free(stack);
    free(xs);
    free(normals);
    return st;
}

MMDEPLOY_API int mmdeploy_text_detector_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                               mmdeploy_text_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create(model, device_name, MMD__TASK_TEXT_DETECTOR, (mmd__sdk_handle **)detector);
}

MMDEPLOY_API int mmdeploy_text_detector_create_by_path(const char *model_path, const char *device_name, int device_id,
                                                       mmdeploy_text_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create_by_path(model_path, device_name, MMD__TASK_TEXT_DETECTOR, (mmd__sdk_handle **)detector);
}

MMDEPLOY_API int mmdeploy_text_detector_apply(mmdeploy_text_detector_t detector, const mmdeploy_mat_t *mats,
                                              int mat_count, mmdeploy_text_detection_t **results, int **result_count) {
    mmd__sdk_handle *h = (mmd__sdk_handle *)detector;
    mmdeploy_text_detection_t *res = NULL;
    size_t total = 0, cap = 0;
    int *counts, st = 0, i;
    if (!h || !mats || mat_count < 1 || !results || !result_count) return MMDEPLOY_E_INVALID_ARG;
    *results = NULL;
    *result_count = NULL;
    if (!(counts = (int *)calloc((size_t)mat_count, sizeof *counts))) return MMDEPLOY_E_OUT_OF_MEMORY;
    for (i = 0; i < mat_count && !st; ++i) {
        mmd__img im;
        mmd_sdk_meta meta;
        size_t before = total;
        if ((st = mmd__run(h, &mats[i], NULL, NULL, &im, &meta)) != 0) break;
        st = mmd__db_head(h, &meta, &res, &total, &cap);
        counts[i] = (int)(total - before);
        free(im.data);
    }
    /* As MMDeploy, a buffer even for no boxes. */
    if (!st && !res && !(res = (mmdeploy_text_detection_t *)malloc(sizeof *res))) st = MMDEPLOY_E_OUT_OF_MEMORY;
    if (st) {
        free(res);
        free(counts);
        return st;
    }
    *results = res;
    *result_count = counts;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API void mmdeploy_text_detector_release_result(mmdeploy_text_detection_t *results, const int *result_count,
                                                        int count) {
    (void)count;
    free(results);
    free((void *)(uintptr_t)result_count);
}

MMDEPLOY_API void mmdeploy_text_detector_destroy(mmdeploy_text_detector_t detector) {
    mmd__handle_destroy((mmd__sdk_handle *)detector);
}

/* ==== >>sdk text recognizer ==== */
struct mmdeploy_text_recognizer {
    mmd__sdk_handle h;
};

MMDEPLOY_API int mmdeploy_text_recognizer_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                                 mmdeploy_text_recognizer_t *recognizer) {
    (void)device_id;
    return mmd__handle_create(model, device_name, MMD__TASK_TEXT_RECOGNIZER, (mmd__sdk_handle **)recognizer);
}

MMDEPLOY_API int mmdeploy_text_recognizer_create_by_path(const char *model_path, const char *device_name,
                                                         int device_id, mmdeploy_text_recognizer_t *recognizer) {
    (void)device_id;
    return mmd__handle_create_by_path(model_path, device_name, MMD__TASK_TEXT_RECOGNIZER,
                                      (mmd__sdk_handle **)recognizer);
}

/* CTCConvertor on "output" [1, T, C], in MMDeploy's float arithmetic: per step the softmax's
   first maximum; a class that is not the blank (0) and not the previous step's is emitted
   with its probability. The text is the emitted dictionary entries one after the other. */
static int mmd__ctc(const mmd__sdk_handle *h, mmdeploy_text_recognition_t *r) {
    const mmd_tensor *y = mmd__output(h, "output", 0);
    const uint32_t *off = (const uint32_t *)h->m.dict;
    const char *text = (const char *)(off + h->m.dict_count + 1);
    int64_t t, k, steps, c, prev = 0, n = 0;
    size_t len = 0;
    int64_t *emitted;
    if (!y || y->dtype != MMD_DTYPE_FLOAT32 || y->rank != 3 || y->dims[0] != 1 || y->dims[2] < 1)
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "CTCConvertor: the output is not float32 [1, T, classes]");
    steps = y->dims[1];
    c = y->dims[2];
    if (c > h->m.dict_count)
        return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "CTCConvertor: the network scores %lld classes, the dictionary "
                             "(with the blank) has %d entries", (long long)c, (int)h->m.dict_count);
    if (!(emitted = (int64_t *)malloc((size_t)(steps ? steps : 1) * sizeof *emitted)) ||
        !(r->score = (float *)malloc((size_t)(steps ? steps : 1) * sizeof *r->score))) {
        free(emitted);
        return MMDEPLOY_E_OUT_OF_MEMORY;
    }
    for (t = 0; t < steps; ++t) {
        const float *d = (const float *)y->data + t * c;
        float mx = d[0], sum = 0.0f, best;
        int64_t arg = 0;
        for (k = 1; k < c; ++k) mx = d[k] > mx ? d[k] : mx;
        for (k = 0; k < c; ++k) sum += expf(d[k] - mx);
        best = expf(d[0] - mx) / sum;
        for (k = 1; k < c; ++k) {
            float p = expf(d[k] - mx) / sum;
            if (p > best) best = p, arg = k;
        }
        if (arg != 0 && arg != prev) {
            emitted[n] = arg;
            r->score[n++] = best;
            len += off[arg + 1] - off[arg];
        }
        prev = arg;
    }
    if ((r->text = (char *)malloc(len + 1)) != NULL) {
        char *p = r->text;
        for (k = 0; k < n; ++k) {
            memcpy(p, text + off[emitted[k]], off[emitted[k] + 1] - off[emitted[k]]);
            p += off[emitted[k] + 1] - off[emitted[k]];
        }
        *p = 0;
    }
    r->length = (int)n;
    free(emitted);
    return r->text ? MMDEPLOY_SUCCESS : MMDEPLOY_E_OUT_OF_MEMORY;
}

MMDEPLOY_API int mmdeploy_text_recognizer_apply(mmdeploy_text_recognizer_t recognizer, const mmdeploy_mat_t *images,
                                                int count, mmdeploy_text_recognition_t **results) {
    return mmdeploy_text_recognizer_apply_bbox(recognizer, images, count, NULL, NULL, results);
}

/* With boxes: each image's bbox_count[i] boxes in turn, each cropped as MMDeploy's WarpBbox
   crops it and recognised, one result per box; without: one result per image. */
MMDEPLOY_API int mmdeploy_text_recognizer_apply_bbox(mmdeploy_text_recognizer_t recognizer,
                                                     const mmdeploy_mat_t *images, int image_count,
                                                     const mmdeploy_text_detection_t *bboxes, const int *bbox_count,
                                                     mmdeploy_text_recognition_t **results) {
    mmd__sdk_handle *h = (mmd__sdk_handle *)recognizer;
    mmdeploy_text_recognition_t *res;
    int64_t total = 0;
    int st = 0, i, k, n = 0;
    if (!h || !images || image_count < 1 || !results) return MMDEPLOY_E_INVALID_ARG;
    *results = NULL;
    if (!bboxes || !bbox_count) {
        total = image_count;
    } else {
        for (i = 0; i < image_count; ++i) {
            if (bbox_count[i] < 0)
                return mmd__sdk_fail(MMDEPLOY_E_INVALID_ARG, "bbox_count[%d] is %d", i, bbox_count[i]);
            total += bbox_count[i];
        }
        if (total > (1 << 24)) return mmd__sdk_fail(MMDEPLOY_E_OUT_OF_RANGE, "%lld text boxes", (long long)total);
    }
    if (!(res = (mmdeploy_text_recognition_t *)calloc((size_t)(total ? total : 1), sizeof *res)))
        return MMDEPLOY_E_OUT_OF_MEMORY;
    for (i = 0; i < image_count && !st; ++i)
        for (k = 0; k < (bboxes && bbox_count ? bbox_count[i] : 1) && !st; ++k) {
            mmd__img im;
            mmd_sdk_meta meta;
            if ((st = mmd__run(h, &images[i], NULL, bboxes && bbox_count ? bboxes[n].bbox : NULL, &im, &meta)) != 0) break;
            st = mmd__ctc(h, &res[n++]);
            free(im.data);
        }
    if (st) {
        mmdeploy_text_recognizer_release_result(res, (int)total);
        return st;
    }
    *results = res;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API void mmdeploy_text_recognizer_release_result(mmdeploy_text_recognition_t *results, int count) {
    int i;
    if (!results) return;
    for (i = 0; i < count; ++i) {
        free(results[i].text);
        free(results[i].score);
    }
    free(results);
}

MMDEPLOY_API void mmdeploy_text_recognizer_destroy(mmdeploy_text_recognizer_t recognizer) {
    mmd__handle_destroy((mmd__sdk_handle *)recognizer);
}

/* ==== >>sdk rotated detector ==== */
struct mmdeploy_rotated_detector {
    mmd__sdk_handle h;
};

MMDEPLOY_API int mmdeploy_rotated_detector_create(mmdeploy_model_t model, const char *device_name, int device_id,
                                                  mmdeploy_rotated_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create(model, device_name, MMD__TASK_ROTATED_DETECTOR, (mmd__sdk_handle **)detector);
}

MMDEPLOY_API int mmdeploy_rotated_detector_create_by_path(const char *model_path, const char *device_name,
                                                          int device_id, mmdeploy_rotated_detector_t *detector) {
    (void)device_id;
    return mmd__handle_create_by_path(model_path, device_name, MMD__TASK_ROTATED_DETECTOR,
                                      (mmd__sdk_handle **)detector);
}

/* ResizeRBBox on one image's outputs, appended to *res (capacity *cap): dets [1, N, 6] (cx, cy,
   w, h, angle, score) and labels [1, N]. As MMDeploy's SDK: boxes whose score passes score_thr,
   centres and sizes divided by scale_factor (LetterResize's borders not taken off, nothing
   clipped), the angle as the network gives it. Unlike it, a box with a NaN score or a value
   that is not finite once rescaled is dropped, and a label outside int's range becomes -1. */
static int mmd__resize_rbbox(const mmd__sdk_handle *h, const mmd_sdk_meta *meta, mmdeploy_rotated_detection_t **res,
                             int *total, int *cap, int *count) {
    const mmd_tensor *dets = mmd__output(h, "dets", 0), *labels = mmd__output(h, "labels", 1);
    int64_t n, j;
    if (!dets || !labels || dets->dtype != MMD_DTYPE_FLOAT32 || dets->rank != 3 || dets->dims[0] != 1 ||
        dets->dims[2] != 6 || labels->rank != 2 || labels->dims[0] != 1 || labels->dims[1] != dets->dims[1] ||
        (labels->dtype != MMD_DTYPE_INT64 && labels->dtype != MMD_DTYPE_INT32 && labels->dtype != MMD_DTYPE_FLOAT32))
        return mmd__sdk_fail(MMDEPLOY_E_NOT_SUPPORTED, "ResizeRBBox: outputs are not dets [1, N, 6] and labels [1, N]");
    n = dets->dims[1];
    if (n > 0x7fffffff - *total) return mmd__sdk_fail(MMDEPLOY_E_OUT_OF_RANGE, "ResizeRBBox: %lld boxes", (long long)n);
    if (*total + n > *cap) {
        mmdeploy_rotated_detection_t *g =
            (mmdeploy_rotated_detection_t *)realloc(*res, (size_t)(*total + n) * sizeof **res);
        if (!g) return MMDEPLOY_E_OUT_OF_MEMORY;
        *res = g;
        *cap = (int)(*total + n);
    }
    for (j = 0; j < n; ++j) {
        const float *d = (const float *)dets->data + j * 6;
        mmdeploy_rotated_detection_t *r = &(*res)[*total];
        double label = mmd__value(labels, j);
        int k, finite = 1;
        if (!(d[5] > h->m.score_thr)) continue;
        r->rbbox[0] = d[0] / meta->scale_factor[0];
        r->rbbox[1] = d[1] / meta->scale_factor[1];
        r->rbbox[2] = d[2] / meta->scale_factor[0];
        r->rbbox[3] = d[3] / meta->scale_factor[1];
        r->rbbox[4] = d[4];
        for (k = 0; k < 5; ++k) finite &= fabsf(r->rbbox[k]) <= 3.4028235e38f;
        if (!finite) continue;
        r->label_id = label >= 0.0 && label < 2147483647.0 ? (int)label : -1;
        r->score = d[5];
        ++*total;
        ++*count;
    }
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API int mmdeploy_rotated_detector_apply(mmdeploy_rotated_detector_t detector, const mmdeploy_mat_t *mats,
                                                 int mat_count, mmdeploy_rotated_detection_t **results,
                                                 int **result_count) {
    mmd__sdk_handle *h = (mmd__sdk_handle *)detector;
    mmdeploy_rotated_detection_t *res = NULL;
    int *counts = NULL, st = 0, total = 0, cap = 0, i;
    if (!h || !mats || mat_count < 1 || !results || !result_count) return MMDEPLOY_E_INVALID_ARG;
    *results = NULL;
    *result_count = NULL;
    if (!(counts = (int *)calloc((size_t)mat_count, sizeof *counts))) return MMDEPLOY_E_OUT_OF_MEMORY;
    for (i = 0; i < mat_count && !st; ++i) {
        mmd__img im;
        mmd_sdk_meta meta;
        if ((st = mmd__run(h, &mats[i], NULL, NULL, &im, &meta)) != 0) break;
        st = mmd__resize_rbbox(h, &meta, &res, &total, &cap, &counts[i]);
        free(im.data);
    }
    if (!st && !res && !(res = (mmdeploy_rotated_detection_t *)malloc(sizeof *res))) st = MMDEPLOY_E_OUT_OF_MEMORY;
    if (st) {
        free(res);
        free(counts);
        return st;
    }
    *results = res;
    *result_count = counts;
    return MMDEPLOY_SUCCESS;
}

MMDEPLOY_API void mmdeploy_rotated_detector_release_result(mmdeploy_rotated_detection_t *results,
                                                           const int *result_count) {
    free(results);
    free((void *)(uintptr_t)result_count);
}

MMDEPLOY_API void mmdeploy_rotated_detector_destroy(mmdeploy_rotated_detector_t detector) {
    mmd__handle_destroy((mmd__sdk_handle *)detector);
}

#endif /* MMD_SDK_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the mmdeploy.h developers

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
