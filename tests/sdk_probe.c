/* tests/sdk_probe.c - drives mmdeploy_sdk.h for tests/test_sdk.py, images and tensors as .npy.

     sdk_probe resize IMG.npy OUT.npy H W nearest|bilinear|bicubic|area   uint8 HxWxC resize
     sdk_probe preprocess DIR IMG.npy FORMAT OUT.npy [L T R B]
                                                   the network input (a pose model's box: the
                                                   whole image, or L T R B); prints the meta as JSON
     sdk_probe classify DIR IMG.npy FORMAT             prints [[label, score], ...]
     sdk_probe detect DIR IMG.npy FORMAT [MASKS.npy]   prints [[label, score, l, t, r, b], ...]; with
                                                   MASKS.npy, writes the instance masks pasted
                                                   into image-sized canvases (uint8 N x H x W)
     sdk_probe rotated DIR IMG.npy FORMAT              prints [[label, score, cx, cy, w, h, angle], ...]
     sdk_probe segment DIR IMG.npy FORMAT OUT.npy      writes the mask (int32 HxW) or the scores
     sdk_probe pose DIR IMG.npy FORMAT [L T R B ...]   prints [[[x, y, score], ...], ...], one
                                                   pose per box (none given: the whole image)
     sdk_probe recognize DIR IMG.npy FORMAT            prints {"text": "...", "score": [...]}
     sdk_probe textdet DIR IMG.npy FORMAT              prints [[score, x0, y0, ..., x3, y3], ...]
     sdk_probe recbox DIR IMG.npy FORMAT [X0 Y0 .. X3 Y3 ...]
                                                   prints [{"text": "...", "score": [...]}, ...],
                                                   one per text box (8 numbers each)

   FORMAT is bgr, rgb, gray, bgra, nv12 or nv21: how the uint8 HxWxC array is to be read. Exit status 0 on
   success, else the mmdeploy_status_t (the SDK has logged why). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#define MMD_NPY_IMPLEMENTATION
#include "mmd_npy.h"
#define MMD_SDK_IMPLEMENTATION
#include "mmdeploy_sdk.h"
#include "mmd_sdk_json.h"

/* A .npy file's bytes and its parsed view; 0 on failure (message printed). */
static int load_npy(const char *path, void **bytes, mmd_npy *npy) {
    FILE *f = fopen(path, "rb");
    long n = -1;
    mmd_error err = {0};
    *bytes = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (*bytes = malloc((size_t)n)) != NULL && fread(*bytes, 1, (size_t)n, f) != (size_t)n) {
        free(*bytes);
        *bytes = NULL;
    }
    if (f) fclose(f);
    if (!*bytes || mmd_npy_parse(*bytes, (size_t)n, npy, &err) != MMD_OK) {
        fprintf(stderr, "sdk_probe: cannot read %s %s\n", path, err.msg);
        free(*bytes);
        *bytes = NULL;
        return 0;
    }
    return 1;
}

static int save_npy(const char *path, int32_t dtype, int32_t rank, const int64_t *dims, const void *data) {
    mmd_npy t;
    mmd_error err = {0};
    FILE *f = fopen(path, "wb");
    int32_t i;
    size_t n = mmd_dtype_size(dtype);
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.rank = rank;
    for (i = 0; i < rank; ++i) n *= (size_t)(t.dims[i] = dims[i]);
    t.data = data;
    t.nbytes = n;
    if (!f || mmd_npy_write(f, &t, &err) != MMD_OK) {
        fprintf(stderr, "sdk_probe: cannot write %s\n", path);
        if (f) fclose(f);
        return 1;
    }
    fclose(f);
    return 0;
}

/* The image array as a mat of the named format. */
static int to_mat(const mmd_npy *img, const char *format, mmdeploy_mat_t *mat) {
    static const char *const names[] = {"bgr", "rgb", "gray", "nv12", "nv21", "bgra"};
    int i;
    memset(mat, 0, sizeof *mat);
    if (img->dtype != MMD_DTYPE_UINT8 || img->rank != 3) {
        fprintf(stderr, "sdk_probe: the image must be uint8 HxWxC\n");
        return 0;
    }
    for (i = 0; i < 6 && strcmp(names[i], format) != 0; ++i) {
    }
    mat->data = (uint8_t *)(uintptr_t)img->data;
    mat->height = (int)img->dims[0];
    mat->width = (int)img->dims[1];
    mat->channel = (int)img->dims[2];
    mat->format = i < 6 ? (mmdeploy_pixel_format_t)i : MMDEPLOY_PIXEL_FORMAT_COUNT;
    /* NV12 and NV21 arrays are OpenCV's: (height * 3 / 2) x width x 1. */
    if (i == 3 || i == 4) mat->height = (int)(img->dims[0] * 2 / 3);
    mat->type = MMDEPLOY_DATA_TYPE_UINT8;
    return 1;
}

/* n boxes from 4 n numbers: left, top, right, bottom each. */
static void read_boxes(char **argv, int n, mmdeploy_rect_t *boxes) {
    int i;
    for (i = 0; i < n; ++i) {
        boxes[i].left = (float)atof(argv[4 * i]);
        boxes[i].top = (float)atof(argv[4 * i + 1]);
        boxes[i].right = (float)atof(argv[4 * i + 2]);
        boxes[i].bottom = (float)atof(argv[4 * i + 3]);
    }
}

static void print_shape(const char *name, const int32_t *s) {
    printf("\"%s\": [%d, %d, %d, %d]", name, s[0], s[1], s[2], s[3]);
}

/* The detections' masks, each pasted where its box lies into a canvas of the image's size as
   MMDeploy's object_detection demo draws them (a mask as large as the image covers it all;
   otherwise its corner is the box's floor(left) - 1, floor(top) - 1, clipped at 0), saved as
   uint8 [n, h, w]. A mask reaching out of the image is an error. */
static int save_masks(const char *path, const mmdeploy_detection_t *res, int n, int h, int w) {
    int64_t dims[3] = {n, h, w};
    uint8_t *all = (uint8_t *)calloc((size_t)(n ? n : 1) * (size_t)h * (size_t)w, 1);
    int i, y, st = all ? 0 : 1;
    for (i = 0; i < n && !st; ++i) {
        const mmdeploy_instance_mask_t *m = res[i].mask;
        int x0 = 0, y0 = 0;
        if (!m) continue;
        if (m->height != h || m->width != w) {
            x0 = (int)(floorf(res[i].bbox.left) - 1.0f), y0 = (int)(floorf(res[i].bbox.top) - 1.0f);
            x0 = x0 > 0 ? x0 : 0, y0 = y0 > 0 ? y0 : 0;
        }
        if (x0 + m->width > w || y0 + m->height > h) {
            fprintf(stderr, "sdk_probe: mask %d (%d x %d at %d, %d) leaves the image\n", i, m->height, m->width, x0, y0);
            st = 1;
            break;
        }
        for (y = 0; y < m->height; ++y)
            memcpy(all + ((size_t)i * (size_t)h + (size_t)(y0 + y)) * (size_t)w + (size_t)x0,
                   m->data + (size_t)y * (size_t)m->width, (size_t)m->width);
    }
    if (!st) st = save_npy(path, MMD_DTYPE_UINT8, 3, dims, all);
    free(all);
    return st;
}

int main(int argc, char **argv) {
    void *bytes = NULL;
    mmd_npy img;
    mmdeploy_mat_t mat;
    int st = 2;
    const char *cmd = argc > 1 ? argv[1] : "";
    if (argc < 5 || !load_npy(argv[strcmp(cmd, "resize") == 0 ? 2 : 3], &bytes, &img)) {
        fprintf(stderr, "usage: see tests/sdk_probe.c\n");
        return 2;
    }
    if (strcmp(cmd, "resize") == 0 && argc == 7) {
        static const char *const interps[] = {"nearest", "bilinear", "bicubic", "area"};
        int64_t dims[3];
        uint8_t *out;
        int interp = 0;
        while (interp < 4 && strcmp(interps[interp], argv[6]) != 0) ++interp;
        dims[0] = atoi(argv[4]);
        dims[1] = atoi(argv[5]);
        dims[2] = img.rank == 3 ? img.dims[2] : 1;
        out = (uint8_t *)malloc((size_t)(dims[0] * dims[1] * dims[2]) + 1);
        st = out && img.rank == 3 ? mmd_image_resize_u8((const uint8_t *)img.data, (int)img.dims[0], (int)img.dims[1],
                                                        (int)img.dims[2], out, (int)dims[0], (int)dims[1],
                                                        (mmd_image_interp)interp)
                                  : 2;
        if (!st) st = save_npy(argv[3], MMD_DTYPE_UINT8, 3, dims, out);
        free(out);
    } else if (!to_mat(&img, argv[4], &mat)) {
        st = 2;
    } else if (strcmp(cmd, "preprocess") == 0 && (argc == 6 || argc == 10)) {
        mmdeploy_model_t m;
        mmdeploy_rect_t box;
        float *data;
        int64_t dims[4];
        mmd_sdk_meta meta;
        if (argc == 10) read_boxes(argv + 6, 1, &box);
        if ((st = mmdeploy_model_create_by_path(argv[2], &m)) == 0) {
            if ((st = mmd_sdk_preprocess(m, &mat, argc == 10 ? &box : NULL, &data, dims, &meta)) == 0) {
                st = save_npy(argv[5], MMD_DTYPE_FLOAT32, 4, dims, data);
                printf("{");
                print_shape("ori_shape", meta.ori_shape);
                printf(", ");
                print_shape("img_shape", meta.img_shape);
                printf(", ");
                print_shape("pad_shape", meta.pad_shape);
                printf(", ");
                print_shape("pad_param", meta.pad_param);
                printf(", \"scale_factor\": [%.9g, %.9g, %.9g, %.9g]", meta.scale_factor[0], meta.scale_factor[1],
                       meta.scale_factor[2], meta.scale_factor[3]);
                printf(", \"center\": [%.9g, %.9g], \"scale\": [%.9g, %.9g]}\n", meta.center[0], meta.center[1],
                       meta.scale[0], meta.scale[1]);
                free(data);
            }
            mmdeploy_model_destroy(m);
        }
    } else if (strcmp(cmd, "classify") == 0) {
        mmdeploy_classifier_t c;
        mmdeploy_classification_t *res;
        int *count;
        if ((st = mmdeploy_classifier_create_by_path(argv[2], "cpu", 0, &c)) == 0) {
            if ((st = mmdeploy_classifier_apply(c, &mat, 1, &res, &count)) == 0) {
                mmd_sdk_json_classification(stdout, res, count[0]);
                printf("\n");
                mmdeploy_classifier_release_result(res, count, 1);
            }
            mmdeploy_classifier_destroy(c);
        }
    } else if (strcmp(cmd, "detect") == 0) {
        mmdeploy_detector_t d;
        mmdeploy_detection_t *res;
        int *count;
        if ((st = mmdeploy_detector_create_by_path(argv[2], "cpu", 0, &d)) == 0) {
            if ((st = mmdeploy_detector_apply(d, &mat, 1, &res, &count)) == 0) {
                mmd_sdk_json_detection(stdout, res, count[0]);
                printf("\n");
                if (argc == 6) st = save_masks(argv[5], res, count[0], mat.height, mat.width);
                mmdeploy_detector_release_result(res, count, 1);
            }
            mmdeploy_detector_destroy(d);
        }
    } else if (strcmp(cmd, "rotated") == 0) {
        mmdeploy_rotated_detector_t d;
        mmdeploy_rotated_detection_t *res;
        int *count;
        if ((st = mmdeploy_rotated_detector_create_by_path(argv[2], "cpu", 0, &d)) == 0) {
            if ((st = mmdeploy_rotated_detector_apply(d, &mat, 1, &res, &count)) == 0) {
                mmd_sdk_json_rotated(stdout, res, count[0]);
                printf("\n");
                mmdeploy_rotated_detector_release_result(res, count);
            }
            mmdeploy_rotated_detector_destroy(d);
        }
    } else if (strcmp(cmd, "segment") == 0 && argc == 6) {
        mmdeploy_segmentor_t s;
        mmdeploy_segmentation_t *res;
        if ((st = mmdeploy_segmentor_create_by_path(argv[2], "cpu", 0, &s)) == 0) {
            if ((st = mmdeploy_segmentor_apply(s, &mat, 1, &res)) == 0) {
                int64_t dims[3] = {res->classes, res->height, res->width};
                st = res->mask ? save_npy(argv[5], MMD_DTYPE_INT32, 2, dims + 1, res->mask)
                               : save_npy(argv[5], MMD_DTYPE_FLOAT32, 3, dims, res->score);
                mmdeploy_segmentor_release_result(res, 1);
            }
            mmdeploy_segmentor_destroy(s);
        }
    } else if (strcmp(cmd, "pose") == 0 && (argc - 5) % 4 == 0) {
        mmdeploy_pose_detector_t d;
        mmdeploy_pose_detection_t *res;
        mmdeploy_rect_t *boxes = (mmdeploy_rect_t *)malloc(sizeof *boxes * (size_t)((argc - 5) / 4 + 1));
        int n = (argc - 5) / 4;
        if (boxes) read_boxes(argv + 5, n, boxes);
        if (!boxes) {
            st = 2;
        } else if ((st = mmdeploy_pose_detector_create_by_path(argv[2], "cpu", 0, &d)) == 0) {
            st = n ? mmdeploy_pose_detector_apply_bbox(d, &mat, 1, boxes, &n, &res)
                   : mmdeploy_pose_detector_apply(d, &mat, 1, &res);
            if (st == 0) {
                mmd_sdk_json_pose(stdout, res, n ? n : 1);
                printf("\n");
                mmdeploy_pose_detector_release_result(res, n ? n : 1);
            }
            mmdeploy_pose_detector_destroy(d);
        }
        free(boxes);
    } else if (strcmp(cmd, "textdet") == 0) {
        mmdeploy_text_detector_t d;
        mmdeploy_text_detection_t *res;
        int *count;
        if ((st = mmdeploy_text_detector_create_by_path(argv[2], "cpu", 0, &d)) == 0) {
            if ((st = mmdeploy_text_detector_apply(d, &mat, 1, &res, &count)) == 0) {
                mmd_sdk_json_text_detection(stdout, res, count[0]);
                printf("\n");
                mmdeploy_text_detector_release_result(res, count, 1);
            }
            mmdeploy_text_detector_destroy(d);
        }
    } else if (strcmp(cmd, "recognize") == 0 || (strcmp(cmd, "recbox") == 0 && (argc - 5) % 8 == 0)) {
        /* recbox: the boxes' corners from the command line, as a text detector gives them. */
        mmdeploy_text_recognizer_t r;
        mmdeploy_text_recognition_t *res;
        int n = strcmp(cmd, "recbox") == 0 ? (argc - 5) / 8 : 0, k, j;
        mmdeploy_text_detection_t *boxes = (mmdeploy_text_detection_t *)calloc((size_t)n + 1, sizeof *boxes);
        for (k = 0; boxes && k < 8 * n; ++k) {
            float v = (float)atof(argv[5 + k]);
            if (k % 2) boxes[k / 8].bbox[k % 8 / 2].y = v;
            else boxes[k / 8].bbox[k % 8 / 2].x = v;
        }
        if (!boxes) {
            st = 2;
        } else if ((st = mmdeploy_text_recognizer_create_by_path(argv[2], "cpu", 0, &r)) == 0) {
            st = n ? mmdeploy_text_recognizer_apply_bbox(r, &mat, 1, boxes, &n, &res)
                   : mmdeploy_text_recognizer_apply(r, &mat, 1, &res);
            if (st == 0) {
                if (n) printf("[");
                for (j = 0; j < (n ? n : 1); ++j) {
                    printf("%s", j ? ", " : "");
                    mmd_sdk_json_text_recognition(stdout, &res[j]);
                }
                printf(n ? "]\n" : "\n");
                mmdeploy_text_recognizer_release_result(res, n ? n : 1);
            }
            mmdeploy_text_recognizer_destroy(r);
        }
        free(boxes);
    } else {
        fprintf(stderr, "usage: see tests/sdk_probe.c\n");
        st = 2;
    }
    free(bytes);
    return st;
}
