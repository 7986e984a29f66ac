/* tests/test_kernels_detect.c - Resize, RoiAlign and NonMaxSuppression, one behaviour per test.
   The ONNX node tests cover the common attribute combinations; these cover what they miss:
   N-D interpolation, other dtypes, opset 18 attributes, adaptive sampling, NaN scores, strict
   thresholds, run-time values and the error paths. Float inputs come from ramp() in
   kernel_harness.h and expected values were printed by PyTorch 2 / torchvision
   (/usr/bin/python3) from the same ramp. Small cases are worked out by hand from the formulas
   quoted in their comments. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"


/* ---- Resize ------------------------------------------------------------------------------- */

/* F.interpolate(ramp((1,1,2,3,4),7,11), size=(3,5,6), mode='trilinear', align_corners=False):
   ONNX linear with half_pixel over three spatial axes. */
static void resize_trilinear_5d_matches_torch(void) {
    static const int64_t xd[] = {1, 1, 2, 3, 4}, sd[] = {5}, yd[] = {1, 1, 3, 5, 6};
    static const int64_t sizes[] = {1, 1, 3, 5, 6};
    static const float want[] = {
        -1.25f, -0.375f, 0.3333333f, -0.3333334f, 0.3750002f, 1.25f, -0.65f, -0.325f, 0.01666663f, 0.08333337f,
        0.4250001f, 0.7499999f, 0.2499999f, -0.25f, -0.4583332f, 0.7083334f, 0.4999998f, -7.450581e-08f,
        -0.5000001f, -0.175f, 0.1666667f, 0.2333333f, -0.2500002f, -0.7500001f, -1.0f, -0.125f, 0.5833333f,
        -0.08333338f, -0.7500001f, -1.25f, -0.375f, -0.1875f, 0.06250001f, 0.3125f, 0.5625001f, 0.75f, -0.325f,
        -0.1375f, 0.1125f, 0.3625f, 0.3374999f, 0.25f, -0.25f, -0.06249999f, 0.1875f, 0.4374999f, -1.378357e-07f,
        -0.5f, -0.175f, 0.01250001f, 0.125f, -0.1750001f, -0.3375001f, -0.425f, -0.125f, 0.0625f, 0.08333328f,
        -0.5833334f, -0.5624999f, -0.375f, 0.5f, 0.0f, -0.2083332f, 0.9583334f, 0.7499999f, 0.25f, -5.960464e-08f,
        0.05f, 0.2083334f, 0.6416666f, 0.2499998f, -0.2500001f, -0.7499999f, 0.125f, 0.8333331f, 0.1666666f,
        -0.5000001f, -0.9999999f, 0.1500001f, 0.2f, 0.08333318f, -0.5833334f, -0.4249999f, -0.09999988f, 0.75f,
        0.25f, -0.4166667f, -1.083333f, -0.3749998f, 0.5f};
    float x[24];
    mmd_tensor tx, ts, ty;
    mmd_tensor *in[4], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    ramp(x, 24, 7, 11);
    tx = tensor("x", MMD_DTYPE_FLOAT32, 5, xd, x);
    ts = tensor("sizes", MMD_DTYPE_INT64, 1, sd, sizes);
    ty = output("y");
    in[0] = &tx; in[1] = NULL; in[2] = NULL; in[3] = &ts; out[0] = &ty;
    attrs[0] = attr_string("mode", "linear");
    CHECK(run_op("Resize", 13, attrs, 1, in, 4, out, 1, &err) == MMD_OK);
    check_dims(&ty, 5, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* Resize split over threads (rows for nearest, elements for linear; harness_reverse_parallel
   runs the shares last first): 1, 2 and 3 threads give the same bytes, the nearest 2x
   upsampling (asymmetric, floor: y[o] = x[o / 2]) checked by hand, and each run with more than
   one thread was split (3 x 260 x 260 outputs: three shares of 65536 or more). */
static void resize_shares_match_one_thread(void) {
    static const int64_t xd[] = {1, 3, 130, 130}, sd[] = {4}, sizes[] = {1, 3, 260, 260};
    const int64_t n = 3 * 260 * 260;
    float *x = (float *)malloc(3 * 130 * 130 * sizeof(float)), *first = (float *)malloc((size_t)n * sizeof(float));
    int32_t mode, threads, bad = 0, split = harness_split_loops;
    int64_t i;
    for (i = 0; i < 3 * 130 * 130; ++i) x[i] = (float)((i * 37) % 101 - 50) * 0.37f;
    for (mode = 0; mode < 2; ++mode)
        for (threads = 1; threads <= 3; ++threads) {
            mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ts = tensor("sizes", MMD_DTYPE_INT64, 1, sd, sizes);
            mmd_tensor ty = output("y"), *in[4], *out[1];
            mmd_attr attrs[3];
            op_case t;
            const float *y;
            in[0] = &tx, in[1] = NULL, in[2] = NULL, in[3] = &ts, out[0] = &ty;
            attrs[0] = attr_string("mode", mode ? "linear" : "nearest");
            attrs[1] = attr_string("coordinate_transformation_mode", mode ? "half_pixel" : "asymmetric");
            attrs[2] = attr_string("nearest_mode", "floor");
            CHECK(case_prepare_threads(&t, threads, "Resize", 13, attrs, 3, in, 4, out, 1) == MMD_OK);
            CHECK(case_eval(&t) == MMD_OK);
            CHECK(mmd_tensor_numel(&ty) == n);
            y = (const float *)ty.data;
            if (threads == 1) {
                memcpy(first, y, (size_t)n * sizeof(float));
                for (i = 0; i < n && !mode; ++i) {
                    int64_t c = i / (260 * 260), r = i / 260 % 260, q = i % 260;
                    bad |= y[i] != x[(c * 130 + r / 2) * 130 + q / 2];
                }
            } else {
                CHECK(memcmp(first, y, (size_t)n * sizeof(float)) == 0);
            }
            case_free(&t);
        }
    CHECK(!bad);
    CHECK(harness_split_loops == split + 4);
    free(x);
    free(first);
}

/* Nearest upsampling by whole factors (asymmetric, floor: y[o] = x[o / f] on each axis), whose
   rows the AVX-512 build writes a vector of x at a time (mmd__repeat_u32_avx512): 2x rows of 17
   and 45 columns (a whole step of 32 and masked ends), 4x and 8x of 30 and 15 (DBNet's FPN, 120
   columns: less than one step of 128), 16x of 3. Checked by hand. */
static void resize_nearest_repeats_by_hand(void) {
    static const int64_t shapes[][4] = {{2, 3, 17, 2}, {1, 2, 45, 2}, {2, 5, 30, 4}, {2, 5, 15, 8}, {1, 2, 3, 16}};
    float x[2 * 5 * 45];
    int32_t s, bad = 0;
    int64_t i;
    for (i = 0; i < (int64_t)COUNT(x); ++i) x[i] = (float)((i * 53) % 97 - 48) * 0.41f;
    for (s = 0; s < (int32_t)COUNT(shapes); ++s) {
        int64_t c = shapes[s][0], h = shapes[s][1], w = shapes[s][2], f = shapes[s][3];
        int64_t xd[4], sizes[4], sd[1] = {4}, n;
        mmd_tensor tx, ts, ty = output("y"), *in[4], *out[1];
        mmd_attr attrs[2];
        mmd_error err;
        xd[0] = 1, xd[1] = c, xd[2] = h, xd[3] = w;
        sizes[0] = 1, sizes[1] = c, sizes[2] = 2 * h, sizes[3] = f * w;
        n = c * 2 * h * f * w;
        tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x);
        ts = tensor("sizes", MMD_DTYPE_INT64, 1, sd, sizes);
        in[0] = &tx, in[1] = NULL, in[2] = NULL, in[3] = &ts, out[0] = &ty;
        attrs[0] = attr_string("coordinate_transformation_mode", "asymmetric");
        attrs[1] = attr_string("nearest_mode", "floor");
        CHECK(run_op("Resize", 13, attrs, 2, in, 4, out, 1, &err) == MMD_OK);
        CHECK(mmd_tensor_numel(&ty) == n);
        for (i = 0; i < n && ty.data; ++i) {
            int64_t ch = i / (2 * h * f * w), r = i / (f * w) % (2 * h), q = i % (f * w);
            bad |= ((const float *)ty.data)[i] != x[(ch * h + r / 2) * w + q / f];
        }
        free_outputs(out, 1);
    }
    CHECK(!bad);
}

/* Opset 10 maps asymmetrically and rounds down: y[o] = x[floor(o / scale)], here with scales
   2 and 0.7 (width floor(3 * 0.7) = 2), on uint8 which nearest copies unchanged. By hand. */
static void resize_opset10_nearest_uint8_floors(void) {
    static const int64_t xd[] = {1, 1, 2, 3}, sd[] = {4}, yd[] = {1, 1, 4, 2};
    static const uint8_t x[] = {10, 20, 30, 40, 50, 60};
    static const float scales[] = {1.0f, 1.0f, 2.0f, 0.7f};
    static const uint8_t want[] = {10, 20, 10, 20, 40, 50, 40, 50};
    mmd_tensor tx = tensor("x", MMD_DTYPE_UINT8, 4, xd, x), ts = tensor("scales", MMD_DTYPE_FLOAT32, 1, sd, scales);
    mmd_tensor ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    int32_t i;
    in[0] = &tx; in[1] = &ts; out[0] = &ty;
    CHECK(run_op("Resize", 10, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    CHECK(ty.dtype == MMD_DTYPE_UINT8);
    for (i = 0; i < COUNT(want) && ty.data; ++i) CHECK(((const uint8_t *)ty.data)[i] == want[i]);
    free_outputs(out, 1);
}

/* tf_crop_and_resize on int64 with roi width [0, 1.5] and 3 output columns: x_in = o * 1.5 *
   (2 - 1) / (3 - 1) = 0, 0.75, 1.5; the last is past the input and takes extrapolation_value.
   By hand. */
static void resize_crop_extrapolates_int64(void) {
    static const int64_t xd[] = {1, 1, 2, 2}, rd[] = {8}, sd[] = {4}, yd[] = {1, 1, 2, 3};
    static const int64_t x[] = {1, 2, 3, 4}, sizes[] = {1, 1, 2, 3};
    static const float roi[] = {0, 0, 0, 0, 1, 1, 1, 1.5f};
    static const int64_t want[] = {1, 2, 10, 3, 4, 10};
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT64, 4, xd, x), tr = tensor("roi", MMD_DTYPE_FLOAT32, 1, rd, roi);
    mmd_tensor ts = tensor("sizes", MMD_DTYPE_INT64, 1, sd, sizes), ty = output("y");
    mmd_tensor *in[4], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = &tr; in[2] = NULL; in[3] = &ts; out[0] = &ty;
    attrs[0] = attr_string("coordinate_transformation_mode", "tf_crop_and_resize");
    attrs[1] = attr_float("extrapolation_value", 10.0f);
    CHECK(run_op("Resize", 13, attrs, 2, in, 4, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_i64(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* Opset 18: sizes (3, 3) on axes (2, 3) of a 2 x 4 map with not_larger keep one scale,
   min(3/2, 3/4) = 0.75, so the output is round(2 * 0.75) x round(4 * 0.75) = 2 x 3. Nearest
   half_pixel: rows (o + 0.5) / 0.75 - 0.5 = 0.17, 1.5 -> 0, 1; columns 0.17, 1.5, 2.83 ->
   0, 1, 3 (round_prefer_floor takes 1.5 down). By hand. */
static void resize_opset18_axes_keep_aspect_ratio(void) {
    static const int64_t xd[] = {1, 1, 2, 4}, sd[] = {2}, yd[] = {1, 1, 2, 3}, axes[] = {2, -1};
    static const float x[] = {0, 1, 2, 3, 4, 5, 6, 7}, want[] = {0, 1, 3, 4, 5, 7};
    static const int64_t sizes[] = {3, 3};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ts = tensor("sizes", MMD_DTYPE_INT64, 1, sd, sizes);
    mmd_tensor ty = output("y");
    mmd_tensor *in[4], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = NULL; in[2] = NULL; in[3] = &ts; out[0] = &ty;
    attrs[0] = attr_ints("axes", axes, 2);
    attrs[1] = attr_string("keep_aspect_ratio_policy", "not_larger");
    CHECK(run_op("Resize", 19, attrs, 2, in, 4, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* An empty axis stays empty at any scale, and eval has nothing to do; asking for a non-empty
   size along an empty axis is a shape error. */
static void resize_empty_axis_gives_empty_output(void) {
    static const int64_t xd[] = {1, 1, 0, 4}, sd[] = {4}, yd[] = {1, 1, 0, 8};
    static const float scales[] = {1, 1, 2, 2};
    static const int64_t sizes[] = {1, 1, 2, 8};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, NULL), ts = tensor("scales", MMD_DTYPE_FLOAT32, 1, sd, scales);
    mmd_tensor tz = tensor("sizes", MMD_DTYPE_INT64, 1, sd, sizes), ty = output("y");
    mmd_tensor *in[4], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = NULL; in[2] = &ts; in[3] = NULL; out[0] = &ty;
    attrs[0] = attr_string("mode", "cubic");
    CHECK(run_op("Resize", 13, attrs, 1, in, 4, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    free_outputs(out, 1);
    in[2] = NULL; in[3] = &tz;
    CHECK(run_op("Resize", 13, attrs, 1, in, 4, out, 1, &err) == MMD_ERR_SHAPE);
}

/* scales and sizes together are invalid; antialias is not implemented; sizes computed at run
   time cannot give the output shape at prepare. */
static void resize_rejects_bad_inputs_and_attributes(void) {
    static const int64_t xd[] = {1, 1, 2, 2}, sd[] = {4};
    static const float x[] = {1, 2, 3, 4}, scales[] = {1, 1, 2, 2};
    static const int64_t sizes[] = {1, 1, 4, 4};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ts = tensor("scales", MMD_DTYPE_FLOAT32, 1, sd, scales);
    mmd_tensor tz = tensor("sizes", MMD_DTYPE_INT64, 1, sd, sizes), ty = output("y");
    mmd_tensor *in[4], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = NULL; in[2] = &ts; in[3] = &tz; out[0] = &ty;
    CHECK(run_op("Resize", 13, NULL, 0, in, 4, out, 1, &err) == MMD_ERR_INVALID_MODEL);
    in[3] = NULL;
    attrs[0] = attr_string("mode", "linear");
    attrs[1] = attr_int("antialias", 1);
    CHECK(run_op("Resize", 18, attrs, 2, in, 4, out, 1, &err) == MMD_ERR_UNSUPPORTED);
    attrs[0] = attr_string("mode", "bilinear");
    CHECK(run_op("Resize", 13, attrs, 1, in, 4, out, 1, &err) == MMD_ERR_INVALID_MODEL);
    CHECK(strstr(err.msg, "bilinear") != NULL);
    in[2] = NULL; in[3] = &tz;
    tz.kind = MMD_TENSOR_ACTIVATION;
    CHECK(run_op("Resize", 13, NULL, 0, in, 4, out, 1, &err) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "sizes") != NULL);
}

/* ---- RoiAlign ----------------------------------------------------------------------------- */

/* torchvision.ops.roi_align(ramp((2,2,4,5),7,11), [[1,.5,1,7,6],[0,2,0,9,7.5]], (2,3),
   spatial_scale=0.5, sampling_ratio=0, aligned=True): adaptive sampling (ceil(bin) points per
   bin), a spatial scale and a second image, none of which the node tests use. */
static void roi_align_adaptive_matches_torchvision(void) {
    static const int64_t xd[] = {2, 2, 4, 5}, rd[] = {2, 4}, bd[] = {2}, yd[] = {2, 2, 2, 3};
    static const float rois[] = {0.5f, 1.0f, 7.0f, 6.0f, 2.0f, 0.0f, 9.0f, 7.5f};
    static const int64_t batch[] = {1, 0};
    static const float want[] = {0.02083332f, -0.0312499f, 0.6041666f, 0.4632161f, -0.2119141f, 0.06542974f,
                                 -0.4283854f, -0.1367187f, -0.1458334f, -0.1041667f, -0.2529296f, 0.3395182f,
                                 0.3567708f, -0.1161296f, 0.3330078f, -0.5092773f, 0.3534343f, -0.0621745f,
                                 -0.1067708f, -0.5286459f, 0.3098959f, 0.5588379f, -0.2855631f, -0.2392579f};
    float x[80];
    mmd_tensor tx, tr, tb, ty;
    mmd_tensor *in[3], *out[1];
    mmd_attr attrs[3];
    mmd_error err;
    ramp(x, 80, 7, 11);
    tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x);
    tr = tensor("rois", MMD_DTYPE_FLOAT32, 2, rd, rois);
    tb = tensor("batch_indices", MMD_DTYPE_INT64, 1, bd, batch);
    ty = output("y");
    in[0] = &tx; in[1] = &tr; in[2] = &tb; out[0] = &ty;
    attrs[0] = attr_int("output_height", 2);
    attrs[1] = attr_int("output_width", 3);
    attrs[2] = attr_float("spatial_scale", 0.5f);
    CHECK(run_op("RoiAlign", 16, attrs, 3, in, 3, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* One sample at (0.5, 0.5) of the map [[1, 2], [3, 4]] (box (0,0,1,1), opset 10, one sample):
   the bilinear value is 2.5 (avg and mmcv's max), while ONNX's max takes the largest weighted
   corner, 0.25 * 4 = 1. By hand. */
static void roi_align_max_modes_differ_as_documented(void) {
    static const int64_t xd[] = {1, 1, 2, 2}, rd[] = {1, 4}, bd[] = {1};
    static const float x[] = {1, 2, 3, 4}, rois[] = {0, 0, 1, 1};
    static const int64_t batch[] = {0};
    static const float want_onnx_max[] = {1.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tr = tensor("rois", MMD_DTYPE_FLOAT32, 2, rd, rois);
    mmd_tensor tb = tensor("batch_indices", MMD_DTYPE_INT64, 1, bd, batch), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    mmd__roi_geom g;
    float y = 0.0f;
    in[0] = &tx; in[1] = &tr; in[2] = &tb; out[0] = &ty;
    attrs[0] = attr_string("mode", "max");
    attrs[1] = attr_int("sampling_ratio", 1);
    CHECK(run_op("RoiAlign", 10, attrs, 2, in, 3, out, 1, &err) == MMD_OK);
    check_f32(&ty, want_onnx_max, 1);
    free_outputs(out, 1);
    mmd__roi_geom_box(&g, rois, 1.0f, 0, 1, 1, 1, 2, 2);
    mmd__roi_align_f32(x, 1, 2, 2, &g, 1, 1, MMD__ROI_MAX, &y);
    CHECK_NEAR(y, 2.5f, 1e-6);
    mmd__roi_align_f32(x, 1, 2, 2, &g, 1, 1, MMD__ROI_AVG, &y);
    CHECK_NEAR(y, 2.5f, 1e-6);
}

/* A batch index outside [0, N) is caught at run time. */
static void roi_align_rejects_batch_index_out_of_range(void) {
    static const int64_t xd[] = {1, 1, 2, 2}, rd[] = {1, 4}, bd[] = {1};
    static const float x[] = {1, 2, 3, 4}, rois[] = {0, 0, 1, 1};
    static const int64_t batch[] = {1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tr = tensor("rois", MMD_DTYPE_FLOAT32, 2, rd, rois);
    mmd_tensor tb = tensor("batch_indices", MMD_DTYPE_INT64, 1, bd, batch), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tr; in[2] = &tb; out[0] = &ty;
    CHECK(run_op("RoiAlign", 16, NULL, 0, in, 3, out, 1, &err) == MMD_ERR_INDEX);
    free_outputs(out, 1);
}

/* ---- NonMaxSuppression -------------------------------------------------------------------- */

/* Boxes (y1, x1, y2, x2): 0 and 1 overlap with IoU exactly 0.5, 2 and 3 are apart. */
static const int64_t nms_boxes_dims[] = {1, 4, 4};
static const float nms_boxes[] = {0, 0, 1, 1, 0, 0, 1, 2, 5, 5, 6, 6, 10, 10, 11, 11};

/* Both thresholds are strict, as in the ONNX reference: a score equal to score_threshold is
   dropped and an IoU equal to iou_threshold does not suppress. By hand. */
static void nms_thresholds_are_strict(void) {
    static const int64_t sd[] = {1, 1, 4}, one[] = {1}, yd[] = {2, 3};
    static const float scores[] = {0.9f, 0.8f, 0.4f, 0.3f}, iou[] = {0.5f}, thr[] = {0.4f};
    static const int64_t max_out[] = {10}, want[] = {0, 0, 0, 0, 0, 1};
    mmd_tensor tb = tensor("boxes", MMD_DTYPE_FLOAT32, 3, nms_boxes_dims, nms_boxes);
    mmd_tensor ts = tensor("scores", MMD_DTYPE_FLOAT32, 3, sd, scores);
    mmd_tensor tm = tensor("max", MMD_DTYPE_INT64, 1, one, max_out), ti = tensor("iou", MMD_DTYPE_FLOAT32, 1, one, iou);
    mmd_tensor tt = tensor("thr", MMD_DTYPE_FLOAT32, 1, one, thr), ty = output("selected");
    mmd_tensor *in[5], *out[1];
    mmd_error err;
    in[0] = &tb; in[1] = &ts; in[2] = &tm; in[3] = &ti; in[4] = &tt; out[0] = &ty;
    CHECK(run_op("NonMaxSuppression", 11, NULL, 0, in, 5, out, 1, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    check_i64(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* Without score_threshold every box is a candidate except NaN scores, which are skipped; equal
   scores keep the lower box index first. By hand. */
static void nms_skips_nan_scores_and_keeps_ties_stable(void) {
    static const int64_t sd[] = {1, 1, 4}, one[] = {1}, yd[] = {3, 3};
    static const float iou[] = {0.5f};
    static const int64_t max_out[] = {10}, want[] = {0, 0, 3, 0, 0, 0, 0, 0, 2};
    static const float scores[] = {0.5f, NAN, 0.5f, 0.9f};
    mmd_tensor tb = tensor("boxes", MMD_DTYPE_FLOAT32, 3, nms_boxes_dims, nms_boxes);
    mmd_tensor ts = tensor("scores", MMD_DTYPE_FLOAT32, 3, sd, scores);
    mmd_tensor tm = tensor("max", MMD_DTYPE_INT64, 1, one, max_out), ti = tensor("iou", MMD_DTYPE_FLOAT32, 1, one, iou);
    mmd_tensor ty = output("selected");
    mmd_tensor *in[4], *out[1];
    mmd_error err;
    in[0] = &tb; in[1] = &ts; in[2] = &tm; in[3] = &ti; out[0] = &ty;
    CHECK(run_op("NonMaxSuppression", 10, NULL, 0, in, 4, out, 1, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    check_i64(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* A max_output_boxes_per_class known only at run time plans for N rows per batch and class
   (here 1 x 2 x 4) and eval writes the real count: 1 per class. Absent, it means no rows. */
static void nms_runtime_max_output_bounds_then_shrinks(void) {
    static const int64_t sd[] = {1, 2, 4}, one[] = {1}, yd[] = {2, 3}, empty[] = {0, 3};
    static const float scores[] = {0.1f, 0.2f, 0.3f, 0.4f, 0.4f, 0.3f, 0.2f, 0.1f};
    static const int64_t max_out[] = {1}, want[] = {0, 0, 3, 0, 1, 0};
    mmd_tensor tb = tensor("boxes", MMD_DTYPE_FLOAT32, 3, nms_boxes_dims, nms_boxes);
    mmd_tensor ts = tensor("scores", MMD_DTYPE_FLOAT32, 3, sd, scores);
    mmd_tensor tm = tensor("max", MMD_DTYPE_INT64, 1, one, max_out), ty = output("selected");
    mmd_tensor *in[3], *out[1];
    mmd_error err;
    in[0] = &tb; in[1] = &ts; in[2] = &tm; out[0] = &ty;
    tm.kind = MMD_TENSOR_ACTIVATION;
    CHECK(run_op("NonMaxSuppression", 11, NULL, 0, in, 3, out, 1, &err) == MMD_OK);
    CHECK(ty.dynamic == 1);
    check_dims(&ty, 2, yd);
    check_i64(&ty, want, COUNT(want));
    free_outputs(out, 1);
    ty = output("selected");
    CHECK(run_op("NonMaxSuppression", 11, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 2, empty);
    free_outputs(out, 1);
}

int main(void) {
    TEST_RUN(resize_trilinear_5d_matches_torch);
    TEST_RUN(resize_opset10_nearest_uint8_floors);
    TEST_RUN(resize_crop_extrapolates_int64);
    TEST_RUN(resize_opset18_axes_keep_aspect_ratio);
    TEST_RUN(resize_empty_axis_gives_empty_output);
    TEST_RUN(resize_shares_match_one_thread);
    TEST_RUN(resize_nearest_repeats_by_hand);
    TEST_RUN(resize_rejects_bad_inputs_and_attributes);
    TEST_RUN(roi_align_adaptive_matches_torchvision);
    TEST_RUN(roi_align_max_modes_differ_as_documented);
    TEST_RUN(roi_align_rejects_batch_index_out_of_range);
    TEST_RUN(nms_thresholds_are_strict);
    TEST_RUN(nms_skips_nan_scores_and_keeps_ties_stable);
    TEST_RUN(nms_runtime_max_output_bounds_then_shrinks);
    return test_summary();
}
