/* tests/fuzz/fuzz_sdk_image.c - libFuzzer harness for images and the transform chain of
   mmdeploy_sdk.h. Byte 0 picks one of the pipelines below (MMDeploy's classification,
   detection, segmentation, mmyolo and mmpose preprocessing, and others for each interpolation, Pad
   and LetterResize form and color order); byte 1 says what follows:
     even  an encoded image (PNG, JPEG, BMP, ... anything stb_image reads) for mmd_image_decode
     odd   a raw mmdeploy_mat_t: byte 2 the pixel format (low 3 bits) and a channel count that
           may disagree with it (bits 3-5, 0: the format's own), bytes 3-4 and 5-6 the height
           and width (signed 16-bit, little endian), then the pixels, repeated to fill the mat
           (a mat past the limits gets a one-byte buffer: it must be refused before any read).
   The image then goes through mmd_sdk_preprocess; a tensor that comes out must match the
   meta it reports and is read to its last element. Odd sizes (1x1, 1xN, huge declared ones,
   truncated files) are the point. Built and run by `make fuzz`; `make test` replays
   tests/fuzz/regress/sdk_image_* through tests/fuzz/replay.c. */
#include "fuzz_sdk.h"

/* Each in parentheses: a clang warning takes adjacent literals in a list for a missing comma. */
static const char *const fuzz__pipelines[] = {
    /* mmpretrain (at a quarter of its sizes): ResizeEdge as Resize [64, -1], CenterCrop */
    ("[{\"type\":\"LoadImageFromFile\"},{\"type\":\"Resize\",\"size\":[64,-1],\"keep_ratio\":true},"
     "{\"type\":\"CenterCrop\",\"crop_size\":56},{\"type\":\"Normalize\",\"mean\":[123.675,116.28,103.53],"
     "\"std\":[58.395,57.12,57.375],\"to_rgb\":true},{\"type\":\"ImageToTensor\",\"keys\":[\"img\"]},"
     "{\"type\":\"Collect\",\"keys\":[\"img\"]}]"),
    /* mmdet: Resize keep_ratio, Pad size_divisor */
    ("[{\"type\":\"LoadImageFromFile\"},{\"type\":\"Resize\",\"size\":[133,80],\"keep_ratio\":true},"
     "{\"type\":\"Normalize\",\"mean\":[0,0,0],\"std\":[255,255,255],\"to_rgb\":true},"
     "{\"type\":\"Pad\",\"size_divisor\":32},{\"type\":\"DefaultFormatBundle\"},{\"type\":\"Collect\"}]"),
    /* mmseg: nearest Resize without keep_ratio, Pad to a size */
    ("[{\"type\":\"LoadImageFromFile\",\"channel_order\":\"rgb\"},{\"type\":\"Resize\",\"size\":[96,64],"
     "\"interpolation\":\"nearest\"},{\"type\":\"Normalize\",\"mean\":[1,2,3],\"std\":[4,5,6],\"to_rgb\":false},"
     "{\"type\":\"Pad\",\"size\":[100,70],\"pad_val\":{\"img\":[7,7,7]}},{\"type\":\"ImageToTensor\"}]"),
    /* grayscale, area down and up */
    ("[{\"type\":\"LoadImageFromFile\",\"color_type\":\"grayscale\"},{\"type\":\"Resize\",\"size\":[33,20],"
     "\"interpolation\":\"area\"},{\"type\":\"Normalize\",\"mean\":[127.5],\"std\":[127.5],\"to_rgb\":false},"
     "{\"type\":\"ImageToTensor\"}]"),
    /* bicubic to a few pixels, pad to a square */
    ("[{\"type\":\"LoadImageFromFile\"},{\"type\":\"Resize\",\"size\":[5,3],\"interpolation\":\"bicubic\"},"
     "{\"type\":\"Pad\",\"pad_to_square\":true,\"pad_val\":3},{\"type\":\"Normalize\",\"mean\":[0,0,0],"
     "\"std\":[1,1,1]},{\"type\":\"DefaultFormatBundle\"}]"),
    /* the short edge to 17, area, center crop larger than the image */
    ("[{\"type\":\"LoadImageFromFile\",\"channel_order\":\"rgb\"},{\"type\":\"Resize\",\"size\":[17,-1],"
     "\"interpolation\":\"area\"},{\"type\":\"CenterCrop\",\"crop_size\":[40,9]},{\"type\":\"ImageToTensor\"}]"),
    /* mmyolo: LetterResize, plain, with minimal borders, and stretched */
    ("[{\"type\":\"LoadImageFromFile\"},{\"type\":\"LetterResize\",\"scale\":[40,24],\"allow_scale_up\":false,"
     "\"pad_val\":{\"img\":114}},{\"type\":\"Normalize\",\"mean\":[0,0,0],\"std\":[255,255,255]},"
     "{\"type\":\"DefaultFormatBundle\"}]"),
    ("[{\"type\":\"LoadImageFromFile\"},{\"type\":\"LetterResize\",\"scale\":[70,45],\"use_mini_pad\":true,"
     "\"interpolation\":\"area\"},{\"type\":\"ImageToTensor\"}]"),
    ("[{\"type\":\"LoadImageFromFile\",\"color_type\":\"grayscale\"},{\"type\":\"LetterResize\",\"scale\":33,"
     "\"stretch_only\":true,\"interpolation\":\"nearest\"},{\"type\":\"ImageToTensor\"}]"),
    /* mmpose top-down: the whole image's box warped to 24 x 32; gray with use_udp to 3 x 5 */
    ("[{\"type\":\"LoadImageFromFile\"},{\"type\":\"TopDownGetBboxCenterScale\",\"padding\":1.25,"
     "\"image_size\":[24,32]},{\"type\":\"TopDownAffine\",\"image_size\":[24,32]},{\"type\":\"Normalize\","
     "\"mean\":[123.675,116.28,103.53],\"std\":[58.395,57.12,57.375],\"to_rgb\":true},{\"type\":\"ImageToTensor\"}]"),
    ("[{\"type\":\"LoadImageFromFile\",\"color_type\":\"grayscale\"},{\"type\":\"TopDownAffine\","
     "\"image_size\":[3,5],\"use_udp\":true},{\"type\":\"ImageToTensor\"}]"),
};
#define FUZZ__PIPELINES ((int)(sizeof fuzz__pipelines / sizeof fuzz__pipelines[0]))

static struct mmdeploy_model fuzz__models[FUZZ__PIPELINES];

/* Parses the pipelines once, as pipeline.json's Transform task holds them. */
static void fuzz__init(void) {
    static int done;
    char text[2048];
    int i;
    if (done) return;
    done = 1;
    for (i = 0; i < FUZZ__PIPELINES; ++i) {
        snprintf(text, sizeof text,
                 "{\"pipeline\":{\"tasks\":[{\"type\":\"Task\",\"module\":\"Transform\",\"transforms\":%s},"
                 "{\"type\":\"Task\",\"module\":\"Net\"},{\"type\":\"Task\",\"module\":\"mmcls\","
                 "\"component\":\"LinearClsHead\"}]}}",
                 fuzz__pipelines[i]);
        if (mmd__parse_pipeline(text, strlen(text), &fuzz__models[i]) != 0) {
            fprintf(stderr, "fuzz: pipeline %d does not parse\n", i);
            abort();
        }
    }
}

/* A raw mat from the header bytes; *buf gets the pixels (free it). 0 when the input is short. */
static int fuzz__raw_mat(const uint8_t *data, size_t size, mmdeploy_mat_t *mat, uint8_t **buf) {
    static const int natural[6] = {3, 3, 1, 1, 1, 4};
    int format, h, w, c;
    size_t need, k;
    if (size < 7) return 0;
    format = data[2] & 7;
    h = (int16_t)(uint16_t)(data[3] | data[4] << 8);
    w = (int16_t)(uint16_t)(data[5] | data[6] << 8);
    c = (data[2] >> 3) & 7 ? (data[2] >> 3) & 7 : natural[format < 6 ? format : 0];
    memset(mat, 0, sizeof *mat);
    mat->height = h;
    mat->width = w;
    mat->channel = c;
    mat->format = (mmdeploy_pixel_format_t)format;
    mat->type = MMDEPLOY_DATA_TYPE_UINT8;
    /* What the mat says it holds: NV12 / NV21 carry a half-size chroma plane. */
    need = h > 0 && w > 0 ? (size_t)h * (size_t)w * (size_t)c : 0;
    if ((format == MMDEPLOY_PIXEL_FORMAT_NV12 || format == MMDEPLOY_PIXEL_FORMAT_NV21) && c == 1) need += need / 2 + w;
    if (need == 0 || need > ((size_t)4 << 20)) need = 1;
    if (!(*buf = (uint8_t *)malloc(need))) return 0;
    for (k = 0; k < need; ++k) (*buf)[k] = size > 7 ? data[7 + k % (size - 7)] : (uint8_t)k;
    mat->data = *buf;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mmdeploy_mat_t mat;
    uint8_t *raw = NULL, *bytes = NULL;
    float *tensor = NULL;
    int64_t dims[4];
    mmd_sdk_meta meta;
    int st;
    fuzz__init();
    if (size < 2) return 0;
    fuzz_sdk_logged = 0;
    if (data[1] & 1) {
        if (!fuzz__raw_mat(data, size, &mat, &raw)) return 0;
    } else {
        if (!(bytes = fuzz_copy(data + 2, size - 2))) return 0;
        st = mmd_image_decode(bytes, size - 2, &mat);
        fuzz_sdk_check(st);
        free(bytes);
        if (st != 0) return 0;
        if (mat.height < 1 || mat.width < 1 || mat.channel != 3) abort();
        fuzz_sdk_touch(mat.data, (size_t)mat.height * (size_t)mat.width * 3);
    }
    st = mmd_sdk_preprocess(&fuzz__models[data[0] % FUZZ__PIPELINES], &mat, NULL, &tensor, dims, &meta);
    fuzz_sdk_check(st);
    if (st == 0) {
        /* The tensor is the padded image, channels first; the meta's shapes are in bounds. */
        if (dims[0] != 1 || dims[2] != meta.pad_shape[1] || dims[3] != meta.pad_shape[2] ||
            meta.ori_shape[1] != mat.height || meta.ori_shape[2] != mat.width || dims[2] < 1 || dims[3] < 1 ||
            dims[2] > MMD_MAX_IMAGE_SIDE || dims[3] > MMD_MAX_IMAGE_SIDE || dims[1] < 1 || dims[1] > 4)
            abort();
        fuzz_sdk_touch(tensor, (size_t)(dims[1] * dims[2] * dims[3]) * sizeof(float));
        free(tensor);
    }
    if (raw) free(raw);
    else mmd_image_free(&mat);
    return 0;
}
