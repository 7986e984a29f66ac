/* mmdeploy/text_detector.h - MMDeploy's C API, source-compatible: the text box type that
   text_recognizer.h's _apply_bbox takes. The text detector itself (mmocr DBHead) is not
   implemented yet, so its functions are not declared. */
#ifndef MMDEPLOY_TEXT_DETECTOR_H
#define MMDEPLOY_TEXT_DETECTOR_H

#include "mmdeploy/common.h"

typedef struct mmdeploy_text_detection_t {
    mmdeploy_point_t bbox[4];        /* the text's quadrilateral, clockwise */
    float score;
} mmdeploy_text_detection_t;

#endif /* MMDEPLOY_TEXT_DETECTOR_H */
