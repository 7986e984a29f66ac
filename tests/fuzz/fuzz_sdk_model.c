/* tests/fuzz/fuzz_sdk_model.c - libFuzzer harness for MMDeploy model directories
   (mmdeploy_sdk.h): an input is deploy.json's text, a NUL byte, then pipeline.json's text
   (detail.json is informational and never read).

   Both are parsed as mmdeploy_model_create_by_path parses them; a model that parses gets the
   tiny network of its task (tests/fuzz/sdk_nets.h) in place of end2end.onnx, becomes a
   classifier, detector, rotated detector, segmentor, pose detector, text detector or text
   recognizer as
   MMDeploy's _create makes one, and is applied to a
   small image (1x1, 1x17, 17x1, 23x37 or 64x48, picked by the input's length), its results
   read to the last byte and released. Every refusal must come with a message
   (fuzz_sdk_check). Built and run by `make fuzz`; `make test` replays
   tests/fuzz/regress/sdk_model_* through tests/fuzz/replay.c. */
#include "fuzz_sdk.h"
#include "sdk_nets.h"

/* The image the model is applied to: a BGR pattern of one of five sizes. */
static void fuzz__image(size_t pick, mmdeploy_mat_t *mat, uint8_t *pixels) {
    static const int sizes[5][2] = {{1, 1}, {1, 17}, {17, 1}, {23, 37}, {64, 48}};
    int h = sizes[pick % 5][0], w = sizes[pick % 5][1], i;
    for (i = 0; i < h * w * 3; ++i) pixels[i] = (uint8_t)(i * 37 + (i / 3) % 11 * 19);
    memset(mat, 0, sizeof *mat);
    mat->data = pixels;
    mat->height = h;
    mat->width = w;
    mat->channel = 3;
    mat->format = MMDEPLOY_PIXEL_FORMAT_BGR;
    mat->type = MMDEPLOY_DATA_TYPE_UINT8;
}

static void fuzz__apply(mmdeploy_model_t m, const mmdeploy_mat_t *mat) {
    int st, i, *count = NULL;
    if (m->task == MMD__TASK_CLASSIFIER) {
        mmdeploy_classifier_t c = NULL;
        mmdeploy_classification_t *res = NULL;
        st = mmdeploy_classifier_create(m, "cpu", 0, &c);
        fuzz_sdk_check(st);
        if (st == 0) {
            st = mmdeploy_classifier_apply(c, mat, 1, &res, &count);
            fuzz_sdk_check(st);
            if (st == 0) {
                fuzz_sdk_touch(res, (size_t)count[0] * sizeof *res);
                mmdeploy_classifier_release_result(res, count, 1);
            }
        }
        mmdeploy_classifier_destroy(c);
    } else if (m->task == MMD__TASK_DETECTOR) {
        mmdeploy_detector_t d = NULL;
        mmdeploy_detection_t *res = NULL;
        st = mmdeploy_detector_create(m, "cpu", 0, &d);
        fuzz_sdk_check(st);
        if (st == 0) {
            st = mmdeploy_detector_apply(d, mat, 1, &res, &count);
            fuzz_sdk_check(st);
            if (st == 0) {
                for (i = 0; i < count[0]; ++i) {
                    /* Masks come only with ResizeInstanceMask, and every byte is read. */
                    if (res[i].mask && !m->instance_mask) abort();
                    if (res[i].mask)
                        fuzz_sdk_touch(res[i].mask->data, (size_t)res[i].mask->height * (size_t)res[i].mask->width);
                }
                fuzz_sdk_touch(res, (size_t)count[0] * sizeof *res);
                mmdeploy_detector_release_result(res, count, 1);
            }
        }
        mmdeploy_detector_destroy(d);
    } else if (m->task == MMD__TASK_POSE) {
        /* The float [1, 3, h, w] network: three heatmaps for the heatmap decode; SimCC finds no
           simcc_y and refuses. */
        mmdeploy_pose_detector_t p = NULL;
        mmdeploy_pose_detection_t *res = NULL;
        st = mmdeploy_pose_detector_create(m, "cpu", 0, &p);
        fuzz_sdk_check(st);
        if (st == 0) {
            st = mmdeploy_pose_detector_apply(p, mat, 1, &res);
            fuzz_sdk_check(st);
            if (st == 0) {
                fuzz_sdk_touch(res->point, (size_t)res->length * sizeof *res->point);
                fuzz_sdk_touch(res->score, (size_t)res->length * sizeof *res->score);
                mmdeploy_pose_detector_release_result(res, 1);
            }
        }
        mmdeploy_pose_detector_destroy(p);
    } else if (m->task == MMD__TASK_TEXT_DETECTOR) {
        /* The network passes the first channel through: DBHead follows the borders of whatever
           the fuzzed image and Normalize make of it. */
        mmdeploy_text_detector_t d = NULL;
        mmdeploy_text_detection_t *res = NULL;
        st = mmdeploy_text_detector_create(m, "cpu", 0, &d);
        fuzz_sdk_check(st);
        if (st == 0) {
            st = mmdeploy_text_detector_apply(d, mat, 1, &res, &count);
            fuzz_sdk_check(st);
            if (st == 0) {
                fuzz_sdk_touch(res, (size_t)count[0] * sizeof *res);
                mmdeploy_text_detector_release_result(res, count, 1);
            }
        }
        mmdeploy_text_detector_destroy(d);
    } else if (m->task == MMD__TASK_ROTATED_DETECTOR) {
        mmdeploy_rotated_detector_t d = NULL;
        mmdeploy_rotated_detection_t *res = NULL;
        st = mmdeploy_rotated_detector_create(m, "cpu", 0, &d);
        fuzz_sdk_check(st);
        if (st == 0) {
            st = mmdeploy_rotated_detector_apply(d, mat, 1, &res, &count);
            fuzz_sdk_check(st);
            if (st == 0) {
                fuzz_sdk_touch(res, (size_t)count[0] * sizeof *res);
                mmdeploy_rotated_detector_release_result(res, count);
            }
        }
        mmdeploy_rotated_detector_destroy(d);
    } else if (m->task == MMD__TASK_TEXT_RECOGNIZER) {
        /* A dict_list or dict_type dictionary is built while parsing; a dict_file one is read
           only from a directory, so the handle refuses it. The float network's [1, 3, h, w]
           is no [1, T, classes]: CTCConvertor refuses it. */
        mmdeploy_text_recognizer_t r = NULL;
        mmdeploy_text_recognition_t *res = NULL;
        st = mmdeploy_text_recognizer_create(m, "cpu", 0, &r);
        fuzz_sdk_check(st);
        if (st == 0) {
            st = mmdeploy_text_recognizer_apply(r, mat, 1, &res);
            fuzz_sdk_check(st);
            if (st == 0) {
                fuzz_sdk_touch(res->text, strlen(res->text));
                fuzz_sdk_touch(res->score, (size_t)res->length * sizeof *res->score);
                mmdeploy_text_recognizer_release_result(res, 1);
            }
        }
        mmdeploy_text_recognizer_destroy(r);
    } else {
        mmdeploy_segmentor_t s = NULL;
        mmdeploy_segmentation_t *res = NULL;
        st = mmdeploy_segmentor_create(m, "cpu", 0, &s);
        fuzz_sdk_check(st);
        if (st == 0) {
            st = mmdeploy_segmentor_apply(s, mat, 1, &res);
            fuzz_sdk_check(st);
            if (st == 0) {
                size_t px = (size_t)res->height * (size_t)res->width;
                if (res->height != mat->height || res->width != mat->width || !res->mask == !res->score) abort();
                if (res->mask) fuzz_sdk_touch(res->mask, px * sizeof(int));
                else fuzz_sdk_touch(res->score, px * (size_t)res->classes * sizeof(float));
                mmdeploy_segmentor_release_result(res, 1);
            }
        }
        mmdeploy_segmentor_destroy(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nul = (const uint8_t *)memchr(data, 0, size);
    size_t deploy_size = nul ? (size_t)(nul - data) : size, pipeline_size = nul ? size - deploy_size - 1 : 0;
    /* Each text in a buffer of its own exact size, so that ASan sees a read past either. */
    uint8_t *deploy = fuzz_copy(data, deploy_size), *pipeline = fuzz_copy(nul ? nul + 1 : NULL, pipeline_size);
    static uint8_t pixels[64 * 48 * 3];
    mmdeploy_model_t m = (mmdeploy_model_t)calloc(1, sizeof *m);
    char net_path[256];
    int32_t task = -1;
    int st;
    if (!deploy || !pipeline || !m) goto done;
    fuzz_sdk_logged = 0;
    st = mmd__parse_deploy((const char *)deploy, deploy_size, "model_dir", net_path, sizeof net_path, &task);
    fuzz_sdk_check(st);
    if (st == 0) {
        st = mmd__parse_pipeline((const char *)pipeline, pipeline_size, m);
        fuzz_sdk_check(st);
    }
    if (st == 0 && m->task == task) {
        const unsigned char *net = task == MMD__TASK_CLASSIFIER ? fuzz_net_cls
                                   : task == MMD__TASK_DETECTOR && m->instance_mask ? fuzz_net_det_mask
                                   : task == MMD__TASK_DETECTOR ? fuzz_net_det
                                   : task == MMD__TASK_TEXT_DETECTOR ? fuzz_net_textdet
                                   : task == MMD__TASK_ROTATED_DETECTOR ? fuzz_net_rotated
                                   : task == MMD__TASK_SEGMENTOR && m->with_argmax ? fuzz_net_seg
                                                                                   : fuzz_net_seg_score;
        size_t net_size = task == MMD__TASK_CLASSIFIER ? sizeof fuzz_net_cls
                          : task == MMD__TASK_DETECTOR && m->instance_mask ? sizeof fuzz_net_det_mask
                          : task == MMD__TASK_DETECTOR ? sizeof fuzz_net_det
                          : task == MMD__TASK_TEXT_DETECTOR ? sizeof fuzz_net_textdet
                          : task == MMD__TASK_ROTATED_DETECTOR ? sizeof fuzz_net_rotated
                          : task == MMD__TASK_SEGMENTOR && m->with_argmax ? sizeof fuzz_net_seg
                                                                          : sizeof fuzz_net_seg_score;
        mmdeploy_mat_t mat;
        if ((m->net = malloc(net_size)) != NULL) {
            memcpy(m->net, net, net_size);
            m->net_size = net_size;
            fuzz__image(size, &mat, pixels);
            fuzz__apply(m, &mat);
        }
    }
done:
    mmdeploy_model_destroy(m);
    free(deploy);
    free(pipeline);
    return 0;
}
