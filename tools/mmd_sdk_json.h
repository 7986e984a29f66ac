/* tools/mmd_sdk_json.h - the SDK's results as JSON, one printer per result type, shared by the
   CLI's `mmdeploy sdk` (tools/mmdeploy_cli.c) and tests/sdk_probe.c so that test_sdk.py can
   compare the two outputs byte for byte. Floats print with 9 significant digits, enough to
   give back the same float. Include after mmdeploy_sdk.h; every function is static
   inline, so that a program printing some of the results only compiles without warnings. */
#ifndef MMD_SDK_JSON_H
#define MMD_SDK_JSON_H
#include <stdio.h>

/* [[label, score], ...] */
static inline void mmd_sdk_json_classification(FILE *f, const mmdeploy_classification_t *res, int n) {
    int i;
    fprintf(f, "[");
    for (i = 0; i < n; ++i) fprintf(f, "%s[%d, %.9g]", i ? ", " : "", res[i].label_id, res[i].score);
    fprintf(f, "]");
}

/* [[label, score, left, top, right, bottom], ...] */
static inline void mmd_sdk_json_detection(FILE *f, const mmdeploy_detection_t *res, int n) {
    int i;
    fprintf(f, "[");
    for (i = 0; i < n; ++i)
        fprintf(f, "%s[%d, %.9g, %.9g, %.9g, %.9g, %.9g]", i ? ", " : "", res[i].label_id, res[i].score,
                res[i].bbox.left, res[i].bbox.top, res[i].bbox.right, res[i].bbox.bottom);
    fprintf(f, "]");
}

/* [[label, score, cx, cy, w, h, angle], ...] */
static inline void mmd_sdk_json_rotated(FILE *f, const mmdeploy_rotated_detection_t *res, int n) {
    int i, k;
    fprintf(f, "[");
    for (i = 0; i < n; ++i) {
        fprintf(f, "%s[%d, %.9g", i ? ", " : "", res[i].label_id, res[i].score);
        for (k = 0; k < 5; ++k) fprintf(f, ", %.9g", res[i].rbbox[k]);
        fprintf(f, "]");
    }
    fprintf(f, "]");
}

/* [[[x, y, score], ...], ...]: one list of keypoints per pose. */
static inline void mmd_sdk_json_pose(FILE *f, const mmdeploy_pose_detection_t *res, int n) {
    int i, k;
    fprintf(f, "[");
    for (i = 0; i < n; ++i) {
        fprintf(f, "%s[", i ? ", " : "");
        for (k = 0; k < res[i].length; ++k)
            fprintf(f, "%s[%.9g, %.9g, %.9g]", k ? ", " : "", res[i].point[k].x, res[i].point[k].y, res[i].score[k]);
        fprintf(f, "]");
    }
    fprintf(f, "]");
}

/* [[score, x0, y0, ..., x3, y3], ...] */
static inline void mmd_sdk_json_text_detection(FILE *f, const mmdeploy_text_detection_t *res, int n) {
    int i, k;
    fprintf(f, "[");
    for (i = 0; i < n; ++i) {
        fprintf(f, "%s[%.9g", i ? ", " : "", res[i].score);
        for (k = 0; k < 4; ++k) fprintf(f, ", %.9g, %.9g", res[i].bbox[k].x, res[i].bbox[k].y);
        fprintf(f, "]");
    }
    fprintf(f, "]");
}

/* {"text": "...", "score": [...]}: the text escaped as JSON wants (quote, backslash and
   control bytes; the rest, UTF-8 from the model's dictionary, as it is). */
static inline void mmd_sdk_json_text_recognition(FILE *f, const mmdeploy_text_recognition_t *res) {
    const unsigned char *c;
    int i;
    fprintf(f, "{\"text\": \"");
    for (c = (const unsigned char *)res->text; *c; ++c)
        fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : *c < 0x20 ? "\\u%04x" : "%c", *c);
    fprintf(f, "\", \"score\": [");
    for (i = 0; i < res->length; ++i) fprintf(f, "%s%.9g", i ? ", " : "", res->score[i]);
    fprintf(f, "]}");
}

/* {"height": h, "width": w, "classes": c, "mask": [...]} with the int32 mask row-major, or
   "score": [...] (c x h x w floats) when the model keeps the scores. */
static inline void mmd_sdk_json_segmentation(FILE *f, const mmdeploy_segmentation_t *res) {
    size_t i, n = (size_t)res->height * (size_t)res->width * (size_t)(res->mask ? 1 : res->classes);
    fprintf(f, "{\"height\": %d, \"width\": %d, \"classes\": %d, \"%s\": [", res->height, res->width, res->classes,
            res->mask ? "mask" : "score");
    for (i = 0; i < n; ++i) {
        if (res->mask) fprintf(f, "%s%d", i ? ", " : "", res->mask[i]);
        else fprintf(f, "%s%.9g", i ? ", " : "", res->score[i]);
    }
    fprintf(f, "]}");
}
#endif /* MMD_SDK_JSON_H */
