/* tests/test_kernels_nn.c - the numeric kernels of mmdeploy_ops.h, one behaviour per test.
   Each test builds tensors, nodes and attributes by hand, runs the kernel's prepare then eval
   and compares with literals. Inputs come from ramp() in kernel_harness.h; expected values
   were printed by PyTorch 2 (/usr/bin/python3) from the same ramp, with the torch call given
   in each comment. The ramps hold quarter-integers, so the sums are nearly exact and 1e-5 is
   a safe tolerance. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"


/* ---- Conv --------------------------------------------------------------------------------- */

/* F.conv2d(ramp((1,2,4,4),7,11), ramp((3,2,3,3),5,9), [0.5,-1,2], padding=1) */
static void conv_pads_bias_matches_torch(void) {
    static const int64_t xd[] = {1, 2, 4, 4}, wd[] = {3, 2, 3, 3}, bd[] = {3}, yd[] = {1, 3, 4, 4};
    static const int64_t pads[] = {1, 1, 1, 1};
    static const float want[] = {3.625f, -2.875f, 1.6875f, 0.6875f, -3.875f, 6.4375f, -1.8125f, -1.3125f, 5.25f, -3.1875f, 0.9375f, 2.8125f, -2.5f, 3.6875f, 0.375f, -0.375f,
                                 2.125f, -4.375f, 0.1875f, -0.8125f, -5.375f, 4.9375f, -3.3125f, -2.8125f, 3.75f, -4.6875f, -0.5625f, 1.3125f, -4.0f, 2.1875f, -1.125f, -1.875f,
                                 5.125f, -1.375f, 3.1875f, 2.1875f, -2.375f, 7.9375f, -0.3125f, 0.1875f, 6.75f, -1.6875f, 2.4375f, 4.3125f, -1.0f, 5.1875f, 1.875f, 1.125f};
    float x[32], w[54], b[3] = {0.5f, -1.0f, 2.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w);
    mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; in[2] = &tb; out[0] = &ty;
    attrs[0] = attr_ints("pads", pads, 4);
    ramp(x, 32, 7, 11);
    ramp(w, 54, 5, 9);
    CHECK(run_op("Conv", 11, attrs, 1, in, 3, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* F.conv2d(ramp((1,3,5,5),7,11), ramp((3,1,3,3),5,9), stride=2, padding=1, groups=3) */
static void conv_depthwise_stride2_matches_torch(void) {
    static const int64_t xd[] = {1, 3, 5, 5}, wd[] = {3, 1, 3, 3}, yd[] = {1, 3, 3, 3};
    static const int64_t pads[] = {1, 1, 1, 1}, strides[] = {2, 2}, kshape[] = {3, 3};
    static const float want[] = {0.25f, 1.1875f, 1.5f, -1.5f, -0.3125f, -0.6875f, 0.0625f, 1.875f, 0.25f,
                                 -1.4375f, 0.8125f, 1.3125f, 0.375f, 1.0625f, -0.6875f, 0.125f, 0.6875f, 0.4375f,
                                 -1.75f, 0.4375f, 0.4375f, 0.1875f, -1.0f, -0.6875f, 0.1875f, 0.875f, 1.3125f};
    float x[75], w[27];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[4];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    attrs[0] = attr_ints("pads", pads, 4);
    attrs[1] = attr_ints("strides", strides, 2);
    attrs[2] = attr_int("group", 3);
    attrs[3] = attr_ints("kernel_shape", kshape, 2);
    ramp(x, 75, 7, 11);
    ramp(w, 27, 5, 9);
    CHECK(run_op("Conv", 11, attrs, 4, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* F.conv2d(ramp((1,4,6,6),7,11), ramp((4,2,3,3),5,9), dilation=2, groups=2) */
static void conv_group2_dilation2_matches_torch(void) {
    static const int64_t xd[] = {1, 4, 6, 6}, wd[] = {4, 2, 3, 3}, yd[] = {1, 4, 2, 2}, dil[] = {2, 2};
    static const float want[] = {-2.0f, -0.625f, -2.6875f, 0.0625f, -2.0f, -0.625f, -2.6875f, 0.0625f,
                                 -2.6875f, 0.0625f, -0.625f, 3.5f, -2.6875f, 0.0625f, -0.625f, 3.5f};
    float x[144], w[72];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    attrs[0] = attr_ints("dilations", dil, 2);
    attrs[1] = attr_int("group", 2);
    ramp(x, 144, 7, 11);
    ramp(w, 72, 5, 9);
    CHECK(run_op("Conv", 11, attrs, 2, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* A 2x2 kernel at stride 1 needs one row and column of padding; SAME_UPPER puts it at the end,
   SAME_LOWER at the start. x = ramp((1,1,4,4),7,11), w = ramp((1,1,2,2),5,9):
   F.conv2d(F.pad(x, (0,1,0,1)), w) and F.conv2d(F.pad(x, (1,0,1,0)), w). */
static void conv_auto_pad_same_upper_and_lower_match_torch(void) {
    static const int64_t xd[] = {1, 1, 4, 4}, wd[] = {1, 1, 2, 2};
    static const float upper[] = {0.8125f, 0.4375f, 0.0625f, -1.25f, 0.6875f, 0.3125f, -1.4375f, 0.9375f,
                                  0.5625f, 0.1875f, -0.875f, 1.0625f, -0.625f, 0.8125f, -1.1875f, -0.25f};
    static const float lower[] = {-0.625f, 1.1875f, -0.625f, 1.0f, -0.1875f, 0.8125f, 0.4375f, 0.0625f,
                                  -0.4375f, 0.6875f, 0.3125f, -1.4375f, 0.0f, 0.5625f, 0.1875f, -0.875f};
    float x[16], w[4];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    ramp(x, 16, 7, 11);
    ramp(w, 4, 5, 9);
    attrs[0] = attr_string("auto_pad", "SAME_UPPER");
    CHECK(run_op("Conv", 11, attrs, 1, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, xd);
    check_f32(&ty, upper, COUNT(upper));
    free_outputs(out, 1);
    attrs[0] = attr_string("auto_pad", "SAME_LOWER");
    CHECK(run_op("Conv", 11, attrs, 1, in, 2, out, 1, &err) == MMD_OK);
    check_f32(&ty, lower, COUNT(lower));
    free_outputs(out, 1);
}

/* x = ramp((1,1,5,5),7,11), w = ramp((1,1,3,3),5,9): VALID at stride 2 is
   F.conv2d(x, w, stride=2); SAME_UPPER at stride 2 gives ceil(5/2) = 3 outputs per axis with
   one pad each side, F.conv2d(F.pad(x, (1,1,1,1)), w, stride=2). */
static void conv_auto_pad_valid_and_same_stride2_match_torch(void) {
    static const int64_t xd[] = {1, 1, 5, 5}, wd[] = {1, 1, 3, 3}, vd[] = {1, 1, 2, 2}, sd[] = {1, 1, 3, 3};
    static const int64_t strides[] = {2, 2};
    static const float valid[] = {-0.3125f, 1.0625f, 0.375f, -1.0f};
    static const float same[] = {0.25f, 1.1875f, 1.5f, -1.5f, -0.3125f, -0.6875f, 0.0625f, 1.875f, 0.25f};
    float x[25], w[9];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    ramp(x, 25, 7, 11);
    ramp(w, 9, 5, 9);
    attrs[0] = attr_ints("strides", strides, 2);
    attrs[1] = attr_string("auto_pad", "VALID");
    CHECK(run_op("Conv", 11, attrs, 2, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, vd);
    check_f32(&ty, valid, COUNT(valid));
    free_outputs(out, 1);
    attrs[1] = attr_string("auto_pad", "SAME_UPPER");
    CHECK(run_op("Conv", 11, attrs, 2, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, sd);
    check_f32(&ty, same, COUNT(same));
    free_outputs(out, 1);
}

/* F.conv1d(ramp((2,3,7),7,11), ramp((2,3,3),5,9), [1,-1], stride=2, padding=1) */
static void conv_1d_batch2_stride2_matches_torch(void) {
    static const int64_t xd[] = {2, 3, 7}, wd[] = {2, 3, 3}, bd[] = {2}, yd[] = {2, 2, 4};
    static const int64_t pads[] = {1, 1}, strides[] = {2};
    static const float want[] = {0.8125f, -2.4375f, 1.0f, 3.5f, -1.1875f, -4.4375f, -1.0f, 1.5f,
                                 0.875f, 3.75f, 2.375f, -1.3125f, -1.125f, 1.75f, 0.375f, -3.3125f};
    float x[42], w[18], b[2] = {1.0f, -1.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 3, wd, w);
    mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; in[2] = &tb; out[0] = &ty;
    attrs[0] = attr_ints("pads", pads, 2);
    attrs[1] = attr_ints("strides", strides, 1);
    ramp(x, 42, 7, 11);
    ramp(w, 18, 5, 9);
    CHECK(run_op("Conv", 11, attrs, 2, in, 3, out, 1, &err) == MMD_OK);
    check_dims(&ty, 3, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* F.conv3d(ramp((1,2,3,4,4),7,11), ramp((2,2,2,3,3),5,9), padding=(0,1,1)) */
static void conv_3d_matches_torch(void) {
    static const int64_t xd[] = {1, 2, 3, 4, 4}, wd[] = {2, 2, 2, 3, 3}, yd[] = {1, 2, 2, 4, 4};
    static const int64_t pads[] = {0, 1, 1, 0, 1, 1};
    static const float want[] = {0.375f, -0.1875f, 0.6875f, -2.1875f, 0.375f, 2.25f, -1.875f, 0.5f, 0.75f, -0.5f, 0.875f, -0.1875f, -1.9375f, 1.375f, -1.8125f, 0.125f,
                                 0.8125f, -0.625f, -0.4375f, 0.0f, -0.875f, 0.875f, 0.1875f, 1.875f, 0.875f, -3.25f, 0.875f, 1.875f, -1.75f, 1.9375f, -1.25f, 0.0f,
                                 0.375f, -0.1875f, 0.6875f, -2.1875f, 0.375f, 2.25f, -1.875f, 0.5f, 0.75f, -0.5f, 0.875f, -0.1875f, -1.9375f, 1.375f, -1.8125f, 0.125f,
                                 0.8125f, -0.625f, -0.4375f, 0.0f, -0.875f, 0.875f, 0.1875f, 1.875f, 0.875f, -3.25f, 0.875f, 1.875f, -1.75f, 1.9375f, -1.25f, 0.0f};
    float x[96], w[72];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 5, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 5, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    attrs[0] = attr_ints("pads", pads, 6);
    ramp(x, 96, 7, 11);
    ramp(w, 72, 5, 9);
    CHECK(run_op("Conv", 11, attrs, 1, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 5, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* The 1x1 path that reads each plane as one row. F.conv2d(ramp((1,3,2,3),7,11),
   ramp((2,3,1,1),5,9), [0.25, 0.5]) */
static void conv_pointwise_matches_torch(void) {
    static const int64_t xd[] = {1, 3, 2, 3}, wd[] = {2, 3, 1, 1}, bd[] = {2}, yd[] = {1, 2, 2, 3};
    static const float want[] = {1.375f, 0.125f, -0.4375f, -1.0f, 0.5f, -0.0625f,
                                 -0.25f, 0.375f, 1.6875f, 0.9375f, 0.1875f, 1.5f};
    float x[18], w[6], b[2] = {0.25f, 0.5f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w);
    mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; in[2] = &tb; out[0] = &ty;
    ramp(x, 18, 7, 11);
    ramp(w, 6, 5, 9);
    CHECK(run_op("Conv", 1, NULL, 0, in, 3, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* Five output channels run as a block of four plus one. x = ramp((1,2,3,5),7,11),
   w = ramp((5,2,3,3),5,9), b = [0.5,-0.5,1,-1,2]: F.conv2d(x, w, b, padding=1) and
   F.conv2d(x, w, b, stride=(1,2), padding=1). */
static void conv_five_output_channels_stride1_and_stride2_match_torch(void) {
    static const int64_t xd[] = {1, 2, 3, 5}, wd[] = {5, 2, 3, 3}, bd[] = {5}, yd1[] = {1, 5, 3, 5}, yd2[] = {1, 5, 3, 3};
    static const int64_t pads[] = {1, 1, 1, 1}, strides[] = {1, 2};
    static const float want1[] = {0.8125f, 1.25f, -0.375f, -0.625f, 1.875f, 2.0f, -1.5f, 0.5625f, 1.25f, -0.1875f, -1.3125f, 2.4375f, -0.1875f, 2.0f, 0.6875f,
                                  -0.1875f, 0.25f, -1.375f, -1.625f, 0.875f, 1.0f, -2.5f, -0.4375f, 0.25f, -1.1875f, -2.3125f, 1.4375f, -1.1875f, 1.0f, -0.3125f,
                                  1.3125f, 1.75f, 0.125f, -0.125f, 2.375f, 2.5f, -1.0f, 1.0625f, 1.75f, 0.3125f, -0.8125f, 2.9375f, 0.3125f, 2.5f, 1.1875f,
                                  -0.6875f, -0.25f, -1.875f, -2.125f, 0.375f, 0.5f, -3.0f, -0.9375f, -0.25f, -1.6875f, -2.8125f, 0.9375f, -1.6875f, 0.5f, -0.8125f,
                                  2.3125f, 2.75f, 1.125f, 0.875f, 3.375f, 3.5f, 0.0f, 2.0625f, 2.75f, 1.3125f, 0.1875f, 3.9375f, 1.3125f, 3.5f, 2.1875f};
    static const float want2[] = {0.8125f, -0.375f, 1.875f, 2.0f, 0.5625f, -0.1875f, -1.3125f, -0.1875f, 0.6875f,
                                  -0.1875f, -1.375f, 0.875f, 1.0f, -0.4375f, -1.1875f, -2.3125f, -1.1875f, -0.3125f,
                                  1.3125f, 0.125f, 2.375f, 2.5f, 1.0625f, 0.3125f, -0.8125f, 0.3125f, 1.1875f,
                                  -0.6875f, -1.875f, 0.375f, 0.5f, -0.9375f, -1.6875f, -2.8125f, -1.6875f, -0.8125f,
                                  2.3125f, 1.125f, 3.375f, 3.5f, 2.0625f, 1.3125f, 0.1875f, 1.3125f, 2.1875f};
    float x[30], w[90], b[5] = {0.5f, -0.5f, 1.0f, -1.0f, 2.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w);
    mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; in[2] = &tb; out[0] = &ty;
    attrs[0] = attr_ints("pads", pads, 4);
    attrs[1] = attr_ints("strides", strides, 2);
    ramp(x, 30, 7, 11);
    ramp(w, 90, 5, 9);
    CHECK(run_op("Conv", 11, attrs, 1, in, 3, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd1);
    check_f32(&ty, want1, COUNT(want1));
    free_outputs(out, 1);
    CHECK(run_op("Conv", 11, attrs, 2, in, 3, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd2);
    check_f32(&ty, want2, COUNT(want2));
    free_outputs(out, 1);
}

/* A weight made for 4 input channels on a 3-channel input. */
static void conv_wrong_channel_count_fails_with_shape_error(void) {
    static const int64_t xd[] = {1, 3, 4, 4}, wd[] = {2, 4, 3, 3};
    float x[48] = {0}, w[72] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    CHECK(run_op("Conv", 11, NULL, 0, in, 2, out, 1, &err) == MMD_ERR_SHAPE);
    CHECK(err.status == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "n0") != NULL);
    CHECK(strstr(err.msg, "takes 4 input channels") != NULL);
    CHECK(strstr(err.msg, "has 3 channels") != NULL);
}

/* group 2 on 3 channels cannot split evenly. */
static void conv_group_not_dividing_channels_fails(void) {
    static const int64_t xd[] = {1, 3, 4, 4}, wd[] = {2, 1, 3, 3};
    float x[48] = {0}, w[18] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    attrs[0] = attr_int("group", 2);
    CHECK(run_op("Conv", 11, attrs, 1, in, 2, out, 1, &err) == MMD_ERR_SHAPE);
}

/* A batch of 0 gives an empty output and no memory access. */
static void conv_empty_batch_gives_empty_output(void) {
    static const int64_t xd[] = {0, 2, 4, 4}, wd[] = {3, 2, 3, 3}, yd[] = {0, 3, 2, 2};
    float w[54] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, NULL), tw = tensor("w", MMD_DTYPE_FLOAT32, 4, wd, w), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tw; out[0] = &ty;
    CHECK(run_op("Conv", 11, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    free_outputs(out, 1);
}

/* ---- pools -------------------------------------------------------------------------------- */

/* kernel_shape, strides and, unless pads is NULL, pads of a 2-D pool into a; the count. */
static int32_t pool_attrs(mmd_attr *a, const int64_t *k, const int64_t *s, const int64_t *pads) {
    a[0] = attr_ints("kernel_shape", k, 2);
    a[1] = attr_ints("strides", s, 2);
    if (!pads) return 2;
    a[2] = attr_ints("pads", pads, 4);
    return 3;
}

/* F.max_pool2d(ramp((1,1,5,5),7,11), 2, 2, ceil_mode=True): the third window is cut short. */
static void maxpool_ceil_mode_matches_torch(void) {
    static const int64_t xd[] = {1, 1, 5, 5}, yd[] = {1, 1, 3, 3}, k[] = {2, 2};
    static const float want[] = {1.0f, 1.25f, 0.75f, 0.25f, 1.0f, 1.25f, 0.75f, 0.5f, -0.5f};
    float x[25];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[3];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    attrs[pool_attrs(attrs, k, k, NULL)] = attr_int("ceil_mode", 1);
    ramp(x, 25, 7, 11);
    CHECK(run_op("MaxPool", 12, attrs, 3, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* F.max_pool2d(ramp((1,2,4,4),7,13), 3, 2, padding=1, return_indices=True); torch's indices
   count within each plane, ONNX's over the whole tensor, so plane c adds c * 16. */
static void maxpool_pads_with_indices_matches_torch(void) {
    static const int64_t xd[] = {1, 2, 4, 4}, yd[] = {1, 2, 2, 2}, k[] = {3, 3}, s[] = {2, 2}, pads[] = {1, 1, 1, 1};
    static const float want[] = {0.75f, 1.0f, 1.25f, 1.5f, 1.0f, 1.25f, 1.5f, 1.25f};
    static const int64_t want_idx[] = {5, 7, 9, 11, 20, 22, 24, 22};
    float x[32];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y"), ti = output("i");
    mmd_tensor *in[1], *out[2];
    mmd_attr attrs[3];
    mmd_error err;
    int32_t i;
    in[0] = &tx; out[0] = &ty; out[1] = &ti;
    pool_attrs(attrs, k, s, pads);
    ramp(x, 32, 7, 13);
    CHECK(run_op("MaxPool", 12, attrs, 3, in, 1, out, 2, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    CHECK(ti.dtype == MMD_DTYPE_INT64);
    check_dims(&ti, 4, yd);
    for (i = 0; i < 8; ++i) CHECK(((const int64_t *)ti.data)[i] == want_idx[i]);
    free_outputs(out, 2);
}

/* x = ramp((1,1,5,5),7,11), kernel 2, stride 2, pads 1, ceil_mode: ceil gives 4 windows per
   axis but the 4th would start in the end padding and is dropped. F.max_pool2d(x, 2, 2,
   padding=1, ceil_mode=True) and F.avg_pool2d(..., count_include_pad=True). */
static void pool_ceil_mode_drops_window_starting_in_end_padding(void) {
    static const int64_t xd[] = {1, 1, 5, 5}, yd[] = {1, 1, 3, 3}, k[] = {2, 2}, pads[] = {1, 1, 1, 1};
    static const float want_max[] = {-1.25f, 0.5f, 1.25f, -0.25f, 1.0f, 1.25f, 0.75f, 1.0f, 0.5f};
    static const float want_avg[] = {-0.3125f, 0.0f, 0.375f, -0.25f, 0.0625f, 0.125f, 0.25f, -0.3125f, -0.25f};
    float x[25];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[5];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    pool_attrs(attrs, k, k, pads);
    attrs[3] = attr_int("ceil_mode", 1);
    attrs[4] = attr_int("count_include_pad", 1);
    ramp(x, 25, 7, 11);
    CHECK(run_op("MaxPool", 12, attrs, 4, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want_max, 9);
    free_outputs(out, 1);
    CHECK(run_op("AveragePool", 11, attrs, 5, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want_avg, 9);
    free_outputs(out, 1);
}

/* storage_order 1 numbers the spatial elements column-major. The input is 1..25 in a 5x5
   plane, kernel 2, stride 2 (by hand, as in ONNX's maxpool_with_argmax_2d_precomputed_strides):
   the maxima 7, 9, 17, 19 sit at rows 1, 1, 3, 3 and columns 1, 3, 1, 3, so at row + 5 * col. */
static void maxpool_column_major_indices(void) {
    static const int64_t xd[] = {1, 1, 5, 5}, yd[] = {1, 1, 2, 2}, k[] = {2, 2};
    static const float want[] = {7.0f, 9.0f, 17.0f, 19.0f};
    static const int64_t want_idx[] = {6, 16, 8, 18};
    float x[25];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y"), ti = output("i");
    mmd_tensor *in[1], *out[2];
    mmd_attr attrs[3];
    mmd_error err;
    int32_t i;
    in[0] = &tx; out[0] = &ty; out[1] = &ti;
    for (i = 0; i < 25; ++i) x[i] = (float)(i + 1);
    attrs[pool_attrs(attrs, k, k, NULL)] = attr_int("storage_order", 1);
    CHECK(run_op("MaxPool", 12, attrs, 3, in, 1, out, 2, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, 4);
    for (i = 0; i < 4; ++i) CHECK(((const int64_t *)ti.data)[i] == want_idx[i]);
    free_outputs(out, 2);
}

/* F.avg_pool2d(ramp((1,1,6,6),7,11), 3, 2, padding=1, ceil_mode=True, count_include_pad=...):
   with the pad counted the divisor still leaves out the cells past the padding that ceil_mode
   adds (the last row and column divide by 6, not 9). */
static void avgpool_count_include_pad_with_ceil_matches_torch(void) {
    static const int64_t xd[] = {1, 1, 6, 6}, yd[] = {1, 1, 4, 4}, k[] = {3, 3}, s[] = {2, 2}, pads[] = {1, 1, 1, 1};
    static const float incl[] = {0.02777778f, 0.1111111f, 0.0f, -0.3333333f, 0.0f, 0.02777778f, -0.1388889f, 0.04166667f,
                                 -0.05555556f, -0.05555556f, -0.2222222f, 0.0f, -0.04166667f, -0.125f, -0.2083333f, -0.125f};
    static const float excl[] = {0.0625f, 0.1666667f, 0.0f, -1.0f, 0.0f, 0.02777778f, -0.1388889f, 0.08333334f,
                                 -0.08333334f, -0.05555556f, -0.2222222f, 0.0f, -0.125f, -0.25f, -0.4166667f, -0.5f};
    float x[36];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[5];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    pool_attrs(attrs, k, s, pads);
    attrs[3] = attr_int("ceil_mode", 1);
    attrs[4] = attr_int("count_include_pad", 1);
    ramp(x, 36, 7, 11);
    CHECK(run_op("AveragePool", 11, attrs, 5, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, incl, COUNT(incl));
    free_outputs(out, 1);
    attrs[4] = attr_int("count_include_pad", 0);
    CHECK(run_op("AveragePool", 11, attrs, 5, in, 1, out, 1, &err) == MMD_OK);
    check_f32(&ty, excl, COUNT(excl));
    free_outputs(out, 1);
}

/* A pad as large as the kernel would make windows of padding only. */
static void pool_pad_not_smaller_than_kernel_fails(void) {
    static const int64_t xd[] = {1, 1, 4, 4}, k[] = {2, 2}, pads[] = {2, 0, 0, 0};
    float x[16] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    attrs[0] = attr_ints("kernel_shape", k, 2);
    attrs[1] = attr_ints("pads", pads, 4);
    CHECK(run_op("AveragePool", 11, attrs, 2, in, 1, out, 1, &err) == MMD_ERR_INVALID_MODEL);
}

/* ramp((2,3,2,2),7,11).mean((2,3), keepdim=True) */
static void global_average_pool_matches_torch(void) {
    static const int64_t xd[] = {2, 3, 2, 2}, yd[] = {2, 3, 1, 1};
    static const float want[] = {0.0f, 0.125f, -0.4375f, 0.375f, -0.1875f, -0.0625f};
    float x[24];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    ramp(x, 24, 7, 11);
    CHECK(run_op("GlobalAveragePool", 1, NULL, 0, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* ---- matrix products ---------------------------------------------------------------------- */

/* A = ramp((2,3),7,11), B = ramp((4,3),5,9), C = [1,2,3,4]: 0.5 * A @ B.T + 2 * C */
static void gemm_transB_alpha_beta_row_bias_matches_torch(void) {
    static const int64_t ad[] = {2, 3}, bd[] = {4, 3}, cd[] = {4}, yd[] = {2, 4};
    static const float want[] = {2.875f, 3.375f, 6.40625f, 8.875f, 1.6875f, 3.96875f, 5.96875f, 7.6875f};
    float a[6], b[12], cv[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 2, bd, b);
    mmd_tensor tc = tensor("c", MMD_DTYPE_FLOAT32, 1, cd, cv), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_attr attrs[3];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; in[2] = &tc; out[0] = &ty;
    attrs[0] = attr_int("transB", 1);
    attrs[1] = attr_float("alpha", 0.5f);
    attrs[2] = attr_float("beta", 2.0f);
    ramp(a, 6, 7, 11);
    ramp(b, 12, 5, 9);
    CHECK(run_op("Gemm", 9, attrs, 3, in, 3, out, 1, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* Opset 11 makes C optional. ramp((3,2),7,11).T @ ramp((3,4),5,9) */
static void gemm_transA_without_c_matches_torch(void) {
    static const int64_t ad[] = {3, 2}, bd[] = {3, 4}, yd[] = {2, 4};
    static const float want[] = {1.5f, -0.9375f, 1.125f, -1.3125f, -1.125f, 1.8125f, -0.875f, 2.0625f};
    float a[6], b[12];
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 2, bd, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    attrs[0] = attr_int("transA", 1);
    ramp(a, 6, 7, 11);
    ramp(b, 12, 5, 9);
    CHECK(run_op("Gemm", 11, attrs, 1, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
    /* Before opset 11, C is required. */
    CHECK(run_op("Gemm", 9, attrs, 1, in, 2, out, 1, &err) == MMD_ERR_INVALID_MODEL);
}

/* ramp((2,1,2,3),7,11) @ ramp((3,3,2),5,9): batch axes (2,1) and (3) broadcast to (2,3). */
static void matmul_batch_broadcast_matches_torch(void) {
    static const int64_t ad[] = {2, 1, 2, 3}, bd[] = {3, 3, 2}, yd[] = {2, 3, 2, 2};
    static const float want[] = {1.125f, -0.4375f, -1.0625f, -0.125f, 0.1875f, -1.375f, -0.5f, 1.5625f, -0.75f, 0.5f, 0.0625f, -0.6875f,
                                 -0.5f, -0.5f, 0.0625f, -0.875f, -0.5f, 1.75f, -0.5f, 1.9375f, -0.5f, -0.5f, -1.0625f, -0.3125f};
    float a[12], b[18];
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 4, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 3, bd, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    ramp(a, 12, 7, 11);
    ramp(b, 18, 5, 9);
    CHECK(run_op("MatMul", 13, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

/* ramp((3,),7,11) @ ramp((3,2),5,9) and ramp((2,3),7,11) @ ramp((3,),5,9): the 1-D side's
   axis is dropped from the result. */
static void matmul_vector_operands_drop_their_axis(void) {
    static const int64_t vd[] = {3}, md[] = {3, 2}, ad[] = {2, 3}, yd[] = {2};
    static const float want_vm[] = {1.125f, -0.4375f}, want_mv[] = {1.75f, -0.625f};
    float v[3], m[6], a[6], u[3];
    mmd_tensor tv = tensor("v", MMD_DTYPE_FLOAT32, 1, vd, v), tm = tensor("m", MMD_DTYPE_FLOAT32, 2, md, m);
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, a), tu = tensor("u", MMD_DTYPE_FLOAT32, 1, vd, u), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    out[0] = &ty;
    ramp(v, 3, 7, 11);
    ramp(m, 6, 5, 9);
    ramp(a, 6, 7, 11);
    ramp(u, 3, 5, 9);
    in[0] = &tv; in[1] = &tm;
    CHECK(run_op("MatMul", 13, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 1, yd);
    check_f32(&ty, want_vm, 2);
    free_outputs(out, 1);
    in[0] = &ta; in[1] = &tu;
    CHECK(run_op("MatMul", 13, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 1, yd);
    check_f32(&ty, want_mv, 2);
    free_outputs(out, 1);
}

static void matmul_inner_dim_mismatch_fails(void) {
    static const int64_t ad[] = {2, 3}, bd[] = {4, 2};
    float a[6] = {0}, b[8] = {0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 2, bd, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    CHECK(run_op("MatMul", 13, NULL, 0, in, 2, out, 1, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "[2,3]") != NULL && strstr(err.msg, "[4,2]") != NULL);
}

/* ---- Softmax, BatchNormalization, ReduceMean ---------------------------------------------- */

/* x = ramp((2,2,3),7,11), axis 1. Opset 11: torch.softmax(x.reshape(2,6), 1); opset 13:
   torch.softmax(x, 1). */
static void softmax_opset11_flattens_but_opset13_uses_one_axis(void) {
    static const int64_t xd[] = {2, 2, 3};
    static const float want11[] = {0.03678566f, 0.2116869f, 0.07787525f, 0.4481411f, 0.1648619f, 0.0606493f,
                                   0.3739828f, 0.1375806f, 0.05061308f, 0.2912581f, 0.1071479f, 0.0394175f};
    static const float want13[] = {0.07585818f, 0.5621765f, 0.5621765f, 0.9241418f, 0.4378235f, 0.4378235f,
                                   0.5621765f, 0.5621765f, 0.5621765f, 0.4378235f, 0.4378235f, 0.4378235f};
    float x[12];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    ramp(x, 12, 7, 11);
    /* axis defaults to 1 before opset 13. */
    CHECK(run_op("Softmax", 11, NULL, 0, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 3, xd);
    check_f32(&ty, want11, 12);
    free_outputs(out, 1);
    {
        mmd_attr attrs[1];
        attrs[0] = attr_int("axis", 1);
        CHECK(run_op("Softmax", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
        check_f32(&ty, want13, 12);
        free_outputs(out, 1);
    }
}

/* Opset 13's default axis is the last: each row of 3 sums to 1. */
static void softmax_opset13_default_axis_is_last(void) {
    static const int64_t xd[] = {2, 2, 3};
    float x[12];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_error err;
    int32_t r;
    in[0] = &tx; out[0] = &ty;
    ramp(x, 12, 7, 11);
    CHECK(run_op("Softmax", 13, NULL, 0, in, 1, out, 1, &err) == MMD_OK);
    for (r = 0; r < 4; ++r) {
        const float *y = (const float *)ty.data + 3 * r;
        CHECK_NEAR(y[0] + y[1] + y[2], 1.0, 1e-6);
    }
    free_outputs(out, 1);
}

/* F.batch_norm(ramp((1,2,2,2),7,11), mean=[0.5,-1], var=[4,0.25], weight=[1.5,-0.5],
   bias=[0.25,1], eps=1e-3) */
static void batchnorm_matches_torch(void) {
    static const int64_t xd[] = {1, 2, 2, 2}, cd[] = {2};
    static const float want[] = {-1.062336f, 0.25f, -0.4999063f, 0.8124297f, -0.2475076f, 0.7504985f, -0.9960121f, 0.001993954f};
    float x[8], scale[2] = {1.5f, -0.5f}, bias[2] = {0.25f, 1.0f}, mean[2] = {0.5f, -1.0f}, var[2] = {4.0f, 0.25f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ts = tensor("s", MMD_DTYPE_FLOAT32, 1, cd, scale);
    mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 1, cd, bias), tm = tensor("m", MMD_DTYPE_FLOAT32, 1, cd, mean);
    mmd_tensor tv = tensor("v", MMD_DTYPE_FLOAT32, 1, cd, var), ty = output("y");
    mmd_tensor *in[5], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &ts; in[2] = &tb; in[3] = &tm; in[4] = &tv; out[0] = &ty;
    attrs[0] = attr_float("epsilon", 1e-3f);
    ramp(x, 8, 7, 11);
    CHECK(run_op("BatchNormalization", 15, attrs, 1, in, 5, out, 1, &err) == MMD_OK);
    check_dims(&ty, 4, xd);
    check_f32(&ty, want, 8);
    free_outputs(out, 1);
}

static void batchnorm_training_mode_is_unsupported(void) {
    static const int64_t xd[] = {1, 2, 2, 2}, cd[] = {2};
    float x[8] = {0}, p[2] = {1.0f, 1.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), tp = tensor("p", MMD_DTYPE_FLOAT32, 1, cd, p), ty = output("y");
    mmd_tensor *in[5], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = in[2] = in[3] = in[4] = &tp; out[0] = &ty;
    attrs[0] = attr_int("training_mode", 1);
    CHECK(run_op("BatchNormalization", 14, attrs, 1, in, 5, out, 1, &err) == MMD_ERR_UNSUPPORTED);
}

/* x = ramp((2,3,2),7,11): x.mean(1, keepdim=True), x.mean() and x.mean((0,2)). */
static void reduce_mean_axes_and_keepdims_match_torch(void) {
    static const int64_t xd[] = {2, 3, 2}, kd[] = {2, 1, 2}, ad[] = {3};
    static const int64_t axis1[] = {1}, axes02[] = {0, -1};
    static const float want_keep[] = {-0.5f, 0.3333333f, -0.08333334f, -0.1666667f};
    static const float want_all[] = {-0.1041667f}, want_02[] = {0.0625f, 0.125f, -0.5f};
    float x[12];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    ramp(x, 12, 7, 11);
    attrs[0] = attr_ints("axes", axis1, 1);
    CHECK(run_op("ReduceMean", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 3, kd);
    check_f32(&ty, want_keep, 4);
    free_outputs(out, 1);
    /* No axes: every axis; keepdims 0: a scalar. */
    attrs[0] = attr_int("keepdims", 0);
    CHECK(run_op("ReduceMean", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 0, NULL);
    check_f32(&ty, want_all, 1);
    free_outputs(out, 1);
    attrs[1] = attr_ints("axes", axes02, 2);
    CHECK(run_op("ReduceMean", 13, attrs, 2, in, 1, out, 1, &err) == MMD_OK);
    check_dims(&ty, 1, ad);
    check_f32(&ty, want_02, 3);
    free_outputs(out, 1);
}

/* Axes computed at run time cannot shape the output at prepare time: declined by name. */
static void reduce_mean_axes_unknown_at_prepare_is_unsupported(void) {
    static const int64_t xd[] = {2, 3}, axd[] = {1};
    float x[6] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), ta = tensor("axes", MMD_DTYPE_INT64, 1, axd, NULL), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &tx; in[1] = &ta; out[0] = &ty;
    ta.kind = MMD_TENSOR_ACTIVATION;
    CHECK(run_op("ReduceMean", 18, NULL, 0, in, 2, out, 1, &err) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "'axes'") != NULL);
    CHECK(mmd_ops_find("", "ReduceMean", 18)->flags & MMD_KERNEL_VALUE_INPUT(1));
}

/* Opset 18 moves axes to a constant input; the result is the same as x.mean((0,2)). */
static void reduce_mean_opset18_takes_axes_input(void) {
    static const int64_t xd[] = {2, 3, 2}, axd[] = {2}, ad[] = {3};
    static const float want_02[] = {0.0625f, 0.125f, -0.5f};
    float x[12];
    int64_t axes[2] = {0, 2};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 3, xd, x), ta = tensor("axes", MMD_DTYPE_INT64, 1, axd, axes), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &ta; out[0] = &ty;
    attrs[0] = attr_int("keepdims", 0);
    ramp(x, 12, 7, 11);
    CHECK(run_op("ReduceMean", 18, attrs, 1, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 1, ad);
    check_f32(&ty, want_02, 3);
    free_outputs(out, 1);
}

/* ---- elementwise -------------------------------------------------------------------------- */

/* ramp((2,3,1),7,11) + ramp((4,),5,9) */
static void add_broadcast_f32_matches_torch(void) {
    static const int64_t ad[] = {2, 3, 1}, bd[] = {4}, yd[] = {2, 3, 4};
    static const float want[] = {-2.25f, -1.0f, -2.0f, -0.75f, -0.5f, 0.75f, -0.25f, 1.0f, -1.5f, -0.25f, -1.25f, 0.0f,
                                 0.25f, 1.5f, 0.5f, 1.75f, -0.75f, 0.5f, -0.5f, 0.75f, -1.75f, -0.5f, -1.5f, -0.25f};
    float a[6], b[4];
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 3, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    ramp(a, 6, 7, 11);
    ramp(b, 4, 5, 9);
    CHECK(run_op("Add", 14, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 3, yd);
    check_f32(&ty, want, COUNT(want));
    free_outputs(out, 1);
}

static void add_incompatible_shapes_fail_naming_both(void) {
    static const int64_t ad[] = {2, 3}, bd[] = {4};
    float a[6] = {0}, b[4] = {0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    CHECK(run_op("Add", 14, NULL, 0, in, 2, out, 1, &err) == MMD_ERR_SHAPE);
    CHECK(strstr(err.msg, "[2,3]") != NULL && strstr(err.msg, "[4]") != NULL);
}

static void add_mixed_dtypes_fail(void) {
    static const int64_t d[] = {2};
    float a[2] = {0};
    int64_t b[2] = {0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 1, d, a), tb = tensor("b", MMD_DTYPE_INT64, 1, d, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    CHECK(run_op("Add", 14, NULL, 0, in, 2, out, 1, &err) == MMD_ERR_DTYPE);
}

/* Shape arithmetic as exported graphs do it: a (3,) int64 shape times a scalar, then divided. */
static void int64_mul_and_div_truncate_toward_zero(void) {
    static const int64_t d[] = {4};
    int64_t a[4] = {7, -7, 224, INT64_MIN}, two = 2, minus_one = -1;
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT64, 1, d, a), ts = tensor("s", MMD_DTYPE_INT64, 0, NULL, &two), ty = output("y");
    mmd_tensor tm = tensor("m", MMD_DTYPE_INT64, 0, NULL, &minus_one);
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    const int64_t *y;
    in[0] = &ta; in[1] = &ts; out[0] = &ty;
    CHECK(run_op("Div", 14, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    y = (const int64_t *)ty.data;
    CHECK(ty.dtype == MMD_DTYPE_INT64);
    CHECK(y[0] == 3 && y[1] == -3 && y[2] == 112 && y[3] == INT64_MIN / 2);
    free_outputs(out, 1);
    /* MIN / -1 wraps instead of trapping. */
    in[1] = &tm;
    CHECK(run_op("Div", 14, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    y = (const int64_t *)ty.data;
    CHECK(y[0] == -7 && y[1] == 7 && y[3] == INT64_MIN);
    free_outputs(out, 1);
    in[1] = &ts;
    CHECK(run_op("Mul", 14, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    y = (const int64_t *)ty.data;
    CHECK(y[0] == 14 && y[1] == -14 && y[2] == 448);
    free_outputs(out, 1);
}

static void int32_sub_broadcasts(void) {
    static const int64_t ad[] = {2, 1}, bd[] = {3}, yd[] = {2, 3};
    int32_t a[2] = {10, -10}, b[3] = {1, 2, 3};
    static const int32_t want[] = {9, 8, 7, -11, -12, -13};
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT32, 2, ad, a), tb = tensor("b", MMD_DTYPE_INT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    int32_t i;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    CHECK(run_op("Sub", 14, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    for (i = 0; i < 6; ++i) CHECK(((const int32_t *)ty.data)[i] == want[i]);
    free_outputs(out, 1);
}

/* Division by zero is a data error reported by eval, not a crash. */
static void integer_division_by_zero_fails_at_eval(void) {
    static const int64_t d[] = {2};
    int32_t a[2] = {1, 2}, b[2] = {1, 0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT32, 1, d, a), tb = tensor("b", MMD_DTYPE_INT32, 1, d, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    CHECK(run_op("Div", 13, NULL, 0, in, 2, out, 1, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "division by zero") != NULL);
    free_outputs(out, 1);
}

/* torch.pow(abs(ramp((8,),7,11)) + 0.5, ramp((8,),5,9)) */
static void pow_matches_torch(void) {
    static const int64_t d[] = {8};
    static const float want[] = {0.5714286f, 1.0f, 1.0f, 1.322876f, 1.154701f, 1.182177f, 0.903602f, 0.5f};
    float a[8], b[8];
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 1, d, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 1, d, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    int32_t i;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    ramp(a, 8, 7, 11);
    for (i = 0; i < 8; ++i) a[i] = (float)fabs(a[i]) + 0.5f;
    ramp(b, 8, 5, 9);
    CHECK(run_op("Pow", 15, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_f32(&ty, want, 8);
    free_outputs(out, 1);
}

/* From opset 12 the exponent may be an integer tensor. torch.pow(ramp((4,),7,11), [2,3,0,-1]) */
static void pow_float_base_int64_exponent_matches_torch(void) {
    static const int64_t d[] = {4};
    static const float want[] = {1.5625f, 0.125f, 1.0f, 0.8f};
    float a[4];
    int64_t b[4] = {2, 3, 0, -1};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 1, d, a), tb = tensor("b", MMD_DTYPE_INT64, 1, d, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    ramp(a, 4, 7, 11);
    CHECK(run_op("Pow", 15, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_f32(&ty, want, 4);
    free_outputs(out, 1);
}

/* Empty broadcast operands give an empty output. */
static void add_empty_tensor_gives_empty_output(void) {
    static const int64_t ad[] = {0, 3}, bd[] = {3}, yd[] = {0, 3};
    float b[3] = {0};
    mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 2, ad, NULL), tb = tensor("b", MMD_DTYPE_FLOAT32, 1, bd, b), ty = output("y");
    mmd_tensor *in[2], *out[1];
    mmd_error err;
    in[0] = &ta; in[1] = &tb; out[0] = &ty;
    CHECK(run_op("Add", 14, NULL, 0, in, 2, out, 1, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    free_outputs(out, 1);
}

/* Runs a one-input float op on ramp((8,),7,11). */
static void run_unary(const char *op, int32_t opset, mmd_attr *attrs, int32_t attr_count, const float *want) {
    static const int64_t d[] = {8};
    float x[8];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_error err;
    in[0] = &tx; out[0] = &ty;
    ramp(x, 8, 7, 11);
    CHECK(run_op(op, opset, attrs, attr_count, in, 1, out, 1, &err) == MMD_OK);
    check_f32(&ty, want, 8);
    free_outputs(out, 1);
}

/* On x = ramp((8,),7,11): torch.sigmoid, tanh, erf, F.hardswish, F.leaky_relu(x, 0.1),
   clamp(0.3 * x + 0.4, 0, 1) for HardSigmoid, and Relu by hand. */
static void unary_activations_match_torch(void) {
    static const float sigmoid[] = {0.2227001f, 0.6224594f, 0.3775407f, 0.7772999f, 0.5621765f, 0.3208213f, 0.7310586f, 0.5f};
    static const float tanh_[] = {-0.8482836f, 0.4621172f, -0.4621172f, 0.8482836f, 0.2449187f, -0.6351489f, 0.7615942f, 0.0f};
    static const float erf_[] = {-0.9229001f, 0.5204999f, -0.5204999f, 0.9229001f, 0.2763264f, -0.7111557f, 0.8427008f, 0.0f};
    static const float hswish[] = {-0.3645833f, 0.2916667f, -0.2083333f, 0.8854167f, 0.1354167f, -0.28125f, 0.6666667f, 0.0f};
    static const float leaky[] = {-0.125f, 0.5f, -0.05f, 1.25f, 0.25f, -0.075f, 1.0f, 0.0f};
    static const float hsig[] = {0.025f, 0.55f, 0.25f, 0.775f, 0.475f, 0.175f, 0.7f, 0.4f};
    static const float relu[] = {0.0f, 0.5f, 0.0f, 1.25f, 0.25f, 0.0f, 1.0f, 0.0f};
    static const float sqrt_[] = {0.0f, 0.7071068f, 0.0f, 1.118034f, 0.5f, 0.0f, 1.0f, 0.0f};
    mmd_attr attrs[2];
    run_unary("Sigmoid", 13, NULL, 0, sigmoid);
    run_unary("Tanh", 13, NULL, 0, tanh_);
    run_unary("Erf", 13, NULL, 0, erf_);
    run_unary("HardSwish", 14, NULL, 0, hswish);
    run_unary("Relu", 14, NULL, 0, relu);
    attrs[0] = attr_float("alpha", 0.1f);
    run_unary("LeakyRelu", 16, attrs, 1, leaky);
    attrs[0] = attr_float("alpha", 0.3f);
    attrs[1] = attr_float("beta", 0.4f);
    run_unary("HardSigmoid", 6, attrs, 2, hsig);
    {
        /* Sqrt of negative numbers is NaN; the check covers the non-negative ones. */
        static const int64_t d[] = {8};
        float x[8];
        mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), ty = output("y");
        mmd_tensor *in[1], *out[1];
        mmd_error err;
        int32_t i;
        in[0] = &tx; out[0] = &ty;
        ramp(x, 8, 7, 11);
        CHECK(run_op("Sqrt", 13, NULL, 0, in, 1, out, 1, &err) == MMD_OK);
        for (i = 0; i < 8; ++i)
            if (x[i] >= 0.0f) CHECK_NEAR(((const float *)ty.data)[i], sqrt_[i], 1e-6);
            else CHECK(((const float *)ty.data)[i] != ((const float *)ty.data)[i]);
        free_outputs(out, 1);
    }
}

/* Clip bounds: attributes before opset 11, optional inputs after (here only max given). */
static void clip_opset6_attributes_and_opset11_inputs(void) {
    static const int64_t d[] = {8};
    static const float want6[] = {-0.5f, 0.5f, -0.5f, 0.75f, 0.25f, -0.5f, 0.75f, 0.0f};
    static const float want11[] = {-1.25f, 0.5f, -0.5f, 1.0f, 0.25f, -0.75f, 1.0f, 0.0f};
    float x[8], hi = 1.0f;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), th = tensor("max", MMD_DTYPE_FLOAT32, 0, NULL, &hi), ty = output("y");
    mmd_tensor *in[3], *out[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx; in[1] = NULL; in[2] = &th; out[0] = &ty;
    ramp(x, 8, 7, 11);
    attrs[0] = attr_float("min", -0.5f);
    attrs[1] = attr_float("max", 0.75f);
    CHECK(run_op("Clip", 6, attrs, 2, in, 1, out, 1, &err) == MMD_OK);
    check_f32(&ty, want6, 8);
    free_outputs(out, 1);
    CHECK(run_op("Clip", 11, NULL, 0, in, 3, out, 1, &err) == MMD_OK);
    check_f32(&ty, want11, 8);
    free_outputs(out, 1);
}

/* ---- Cast --------------------------------------------------------------------------------- */

static void cast_float_to_int64_truncates_and_saturates(void) {
    static const int64_t d[] = {6};
    float x[6] = {2.9f, -2.9f, 0.0f, 1e30f, -1e30f, 0.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    const int64_t *y;
    in[0] = &tx; out[0] = &ty;
    x[5] = (float)NAN;
    attrs[0] = attr_int("to", MMD_DTYPE_INT64);
    CHECK(run_op("Cast", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
    y = (const int64_t *)ty.data;
    CHECK(ty.dtype == MMD_DTYPE_INT64);
    CHECK(y[0] == 2 && y[1] == -2 && y[2] == 0 && y[3] == INT64_MAX && y[4] == INT64_MIN && y[5] == 0);
    free_outputs(out, 1);
}

/* Half bits checked against numpy: np.array([1, -2, 65504, 1e5, 6e-8, 1/3], 'f2').view('u2')
   gives 0x3c00, 0xc000, 0x7bff, 0x7c00 (overflow), 0x0001 (subnormal), 0x3555. */
static void cast_float16_round_trip_matches_numpy(void) {
    static const int64_t d[] = {6};
    static const uint16_t bits[] = {0x3c00, 0xc000, 0x7bff, 0x7c00, 0x0001, 0x3555};
    float x[6] = {1.0f, -2.0f, 65504.0f, 1e5f, 6e-8f, 1.0f / 3.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, d, x), th = output("h"), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    int32_t i;
    in[0] = &tx; out[0] = &th;
    attrs[0] = attr_int("to", MMD_DTYPE_FLOAT16);
    CHECK(run_op("Cast", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
    for (i = 0; i < 6; ++i) CHECK(((const uint16_t *)th.data)[i] == bits[i]);
    in[0] = &th; out[0] = &ty;
    attrs[0] = attr_int("to", MMD_DTYPE_FLOAT32);
    CHECK(run_op("Cast", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
    CHECK(((const float *)ty.data)[0] == 1.0f && ((const float *)ty.data)[2] == 65504.0f);
    CHECK(isinf(((const float *)ty.data)[3]));
    CHECK_NEAR(((const float *)ty.data)[4], 5.9604645e-8, 1e-6);
    CHECK_NEAR(((const float *)ty.data)[5], 0.33325195, 1e-7);
    free(th.data);
    free(ty.data);
}

/* int64 to int8 wraps like numpy's astype; float to bool is "not zero". */
static void cast_narrowing_and_bool(void) {
    static const int64_t d[] = {4};
    int64_t a[4] = {127, 128, -129, 300};
    float f[4] = {0.0f, -0.0f, 0.5f, -3.0f};
    mmd_tensor ta = tensor("a", MMD_DTYPE_INT64, 1, d, a), tf = tensor("f", MMD_DTYPE_FLOAT32, 1, d, f), ty = output("y");
    mmd_tensor *in[1], *out[1];
    mmd_attr attrs[1];
    mmd_error err;
    const int8_t *y8;
    const uint8_t *yb;
    in[0] = &ta; out[0] = &ty;
    attrs[0] = attr_int("to", MMD_DTYPE_INT8);
    CHECK(run_op("Cast", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
    y8 = (const int8_t *)ty.data;
    CHECK(y8[0] == 127 && y8[1] == -128 && y8[2] == 127 && y8[3] == 44);
    free_outputs(out, 1);
    in[0] = &tf;
    attrs[0] = attr_int("to", MMD_DTYPE_BOOL);
    CHECK(run_op("Cast", 13, attrs, 1, in, 1, out, 1, &err) == MMD_OK);
    yb = (const uint8_t *)ty.data;
    CHECK(ty.dtype == MMD_DTYPE_BOOL);
    CHECK(yb[0] == 0 && yb[1] == 0 && yb[2] == 1 && yb[3] == 1);
    free_outputs(out, 1);
    attrs[0] = attr_int("to", MMD_DTYPE_STRING);
    CHECK(run_op("Cast", 13, attrs, 1, in, 1, out, 1, &err) == MMD_ERR_DTYPE);
}

/* ---- table -------------------------------------------------------------------------------- */

static void ops_find_matches_domain_and_opset_range(void) {
    size_t i;
    CHECK(mmd_ops_find("", "Conv", 11) != NULL);
    CHECK(mmd_ops_find("ai.onnx", "Conv", 11) == mmd_ops_find("", "Conv", 11));
    CHECK(mmd_ops_find(NULL, "Relu", 6) != NULL);
    CHECK(mmd_ops_find("com.microsoft", "Conv", 11) == NULL);
    CHECK(mmd_ops_find("", "Add", 6) == NULL);        /* legacy broadcast attribute */
    CHECK(mmd_ops_find("", "Add", 7) != NULL);
    CHECK(mmd_ops_find("", "HardSwish", 13) == NULL); /* added in opset 14 */
    CHECK(mmd_ops_find("", "Conv", 26) == NULL);      /* newer than the changelog we read */
    CHECK(mmd_ops_find("", "NoSuchOp", 13) == NULL);
    CHECK(mmd_ops_count() > 0);
    for (i = 0; i < mmd_ops_count(); ++i) {
        const mmd_kernel *k = mmd_ops_at(i);
        CHECK(k && k->op_type && k->prepare && k->eval && k->min_opset <= k->max_opset);
        CHECK(mmd_ops_find(k->domain, k->op_type, k->min_opset) != NULL);
    }
    CHECK(mmd_ops_at(mmd_ops_count()) == NULL);
}

int main(void) {
    TEST_RUN(conv_pads_bias_matches_torch);
    TEST_RUN(conv_depthwise_stride2_matches_torch);
    TEST_RUN(conv_group2_dilation2_matches_torch);
    TEST_RUN(conv_auto_pad_same_upper_and_lower_match_torch);
    TEST_RUN(conv_auto_pad_valid_and_same_stride2_match_torch);
    TEST_RUN(conv_1d_batch2_stride2_matches_torch);
    TEST_RUN(conv_3d_matches_torch);
    TEST_RUN(conv_pointwise_matches_torch);
    TEST_RUN(conv_five_output_channels_stride1_and_stride2_match_torch);
    TEST_RUN(conv_wrong_channel_count_fails_with_shape_error);
    TEST_RUN(conv_group_not_dividing_channels_fails);
    TEST_RUN(conv_empty_batch_gives_empty_output);
    TEST_RUN(maxpool_ceil_mode_matches_torch);
    TEST_RUN(maxpool_pads_with_indices_matches_torch);
    TEST_RUN(pool_ceil_mode_drops_window_starting_in_end_padding);
    TEST_RUN(maxpool_column_major_indices);
    TEST_RUN(avgpool_count_include_pad_with_ceil_matches_torch);
    TEST_RUN(pool_pad_not_smaller_than_kernel_fails);
    TEST_RUN(global_average_pool_matches_torch);
    TEST_RUN(gemm_transB_alpha_beta_row_bias_matches_torch);
    TEST_RUN(gemm_transA_without_c_matches_torch);
    TEST_RUN(matmul_batch_broadcast_matches_torch);
    TEST_RUN(matmul_vector_operands_drop_their_axis);
    TEST_RUN(matmul_inner_dim_mismatch_fails);
    TEST_RUN(softmax_opset11_flattens_but_opset13_uses_one_axis);
    TEST_RUN(softmax_opset13_default_axis_is_last);
    TEST_RUN(batchnorm_matches_torch);
    TEST_RUN(batchnorm_training_mode_is_unsupported);
    TEST_RUN(reduce_mean_axes_and_keepdims_match_torch);
    TEST_RUN(reduce_mean_opset18_takes_axes_input);
    TEST_RUN(reduce_mean_axes_unknown_at_prepare_is_unsupported);
    TEST_RUN(add_broadcast_f32_matches_torch);
    TEST_RUN(add_incompatible_shapes_fail_naming_both);
    TEST_RUN(add_mixed_dtypes_fail);
    TEST_RUN(int64_mul_and_div_truncate_toward_zero);
    TEST_RUN(int32_sub_broadcasts);
    TEST_RUN(integer_division_by_zero_fails_at_eval);
    TEST_RUN(pow_matches_torch);
    TEST_RUN(pow_float_base_int64_exponent_matches_torch);
    TEST_RUN(add_empty_tensor_gives_empty_output);
    TEST_RUN(unary_activations_match_torch);
    TEST_RUN(clip_opset6_attributes_and_opset11_inputs);
    TEST_RUN(cast_float_to_int64_truncates_and_saturates);
    TEST_RUN(cast_float16_round_trip_matches_numpy);
    TEST_RUN(cast_narrowing_and_bool);
    TEST_RUN(ops_find_matches_domain_and_opset_range);
    return test_summary();
}
