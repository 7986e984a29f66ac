/* tests/test_kernels_shape.c - the shape and layout kernels (Reshape, Slice, Gather, ...) run one
   node at a time on literal tensors: kernel looked up with mmd_ops_find, prepare, then eval.
   Expected values come from the ONNX operator spec or from numpy, as each test says. */
#include "test.h"
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "kernel_harness.h"

#define MAX_IO 8
#define MAX_ATTRS 8

/* One node built a step at a time (case_init, add_input, add_outputs, add_attr), then run by
   kernel_harness.h's op_case; the next case_init frees what the previous case held. */
typedef struct node_case {
    op_case oc;
    const char *op;
    int32_t opset, nin, nout, nattr;
    const mmd_kernel *kernel;
    mmd_tensor *in[MAX_IO], *out[MAX_IO];
    mmd_tensor outs[MAX_IO];
    mmd_attr attrs[MAX_ATTRS];
} node_case;

static node_case nc;

static void case_init(const char *op_type, int32_t opset) {
    case_free(&nc.oc);
    memset(&nc, 0, sizeof nc);
    nc.op = op_type;
    nc.opset = opset;
    nc.kernel = mmd_ops_find("", op_type, opset);
    CHECK(nc.kernel != NULL);
}

static void add_input(mmd_tensor *t) { nc.in[nc.nin++] = t; }

static void add_outputs(int32_t n) {
    int32_t i;
    for (i = 0; i < n; ++i, ++nc.nout) {
        nc.outs[nc.nout] = output("y");
        nc.out[nc.nout] = &nc.outs[nc.nout];
    }
}

static void add_attr(mmd_attr a) { nc.attrs[nc.nattr++] = a; }

/* The common start: case_init, input a (and b unless NULL), n outputs. */
static void case_io(const char *op_type, int32_t opset, mmd_tensor *a, mmd_tensor *b, int32_t n) {
    case_init(op_type, opset);
    add_input(a);
    if (b) add_input(b);
    add_outputs(n);
}

static mmd_status nc_prepare(void) {
    return case_prepare(&nc.oc, nc.op, nc.opset, nc.attrs, nc.nattr, nc.in, nc.nin, nc.out, nc.nout);
}

static mmd_status nc_run(void) {
    mmd_status st = nc_prepare();
    return st != MMD_OK ? st : case_eval(&nc.oc);
}

/* 1 when t has exactly these dims. */
static int dims_are(const mmd_tensor *t, int32_t rank, const int64_t *dims) {
    int32_t i;
    if (t->rank != rank) return 0;
    for (i = 0; i < rank; ++i)
        if (t->dims[i] != dims[i]) return 0;
    return 1;
}

static int msg_has(const char *text) { return strstr(nc.oc.err.msg, text) != NULL; }

/* ---- Reshape, Flatten, Squeeze, Unsqueeze ------------------------------------------------ */

static void reshape_zero_copies_dim_and_minus_one_infers(void) {
    /* ONNX spec: 0 copies the input dim, -1 takes what is left: [2,3,4] -> [2,12]. */
    static const int64_t xd[] = {2, 3, 4}, sd[] = {2}, shape[] = {0, -1}, want[] = {2, 12};
    float x[24];
    mmd_tensor tx, ts;
    int i;
    for (i = 0; i < 24; ++i) x[i] = (float)i;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 3, xd, x);
    ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Reshape", 13, &tx, &ts, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want));
    CHECK(memcmp(nc.out[0]->data, x, sizeof x) == 0);
}

static void reshape_allowzero_keeps_zero_dim(void) {
    /* ONNX spec (opset 14): with allowzero=1 a 0 is a real dim: [0,3] -> [3,0], empty. */
    static const int64_t xd[] = {0, 3}, sd[] = {2}, shape[] = {3, 0};
    mmd_tensor tx, ts;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Reshape", 14, &tx, &ts, 1);
    add_attr(attr_int("allowzero", 1));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, shape));
}

static void reshape_zero_without_allowzero_copies_dim(void) {
    /* Same shape at opset 13: the 0 copies input dim 1 (3), so [3,3] has 9 != 0 elements. */
    static const int64_t xd[] = {0, 3}, sd[] = {2}, shape[] = {3, 0};
    mmd_tensor tx, ts;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Reshape", 13, &tx, &ts, 1);
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
}

static void reshape_shape_unknown_at_prepare_is_unsupported(void) {
    static const int64_t xd[] = {2, 3}, sd[] = {2};
    mmd_tensor tx, ts;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    ts = runtime("t", MMD_DTYPE_INT64, 1, sd, NULL);
    case_io("Reshape", 13, &tx, &ts, 1);
    CHECK(nc_prepare() == MMD_ERR_UNSUPPORTED);
    CHECK(msg_has("shape input is not known at prepare time"));
    CHECK(msg_has("n0"));
}

static void reshape_element_count_mismatch_fails(void) {
    static const int64_t xd[] = {2, 3}, sd[] = {2}, shape[] = {4, 2};
    mmd_tensor tx, ts;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Reshape", 13, &tx, &ts, 1);
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
    CHECK(msg_has("8") && msg_has("6"));
}

static void reshape_two_minus_ones_fail(void) {
    static const int64_t xd[] = {2, 3}, sd[] = {2}, shape[] = {-1, -1};
    mmd_tensor tx, ts;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Reshape", 13, &tx, &ts, 1);
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
}

static void reshape_opset1_reads_shape_attribute(void) {
    static const int64_t xd[] = {2, 3}, shape[] = {3, -1}, want[] = {3, 2};
    mmd_tensor tx;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    case_io("Reshape", 1, &tx, NULL, 1);
    add_attr(attr_ints("shape", shape, 2));
    CHECK(nc_prepare() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want));
}

static void flatten_negative_axis_splits_before_last_dim(void) {
    /* ONNX spec: axis -1 on [2,3,4] gives [2*3, 4]. */
    static const int64_t xd[] = {2, 3, 4}, want[] = {6, 4};
    mmd_tensor tx = tensor("t", MMD_DTYPE_UINT8, 3, xd, NULL);
    case_io("Flatten", 13, &tx, NULL, 1);
    add_attr(attr_int("axis", -1));
    CHECK(nc_prepare() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want));
}

static void flatten_axis0_puts_everything_in_second_dim(void) {
    /* ONNX spec: axis 0 on [2,3,4] gives [1, 24]. */
    static const int64_t xd[] = {2, 3, 4}, want0[] = {1, 24};
    mmd_tensor tx = tensor("t", MMD_DTYPE_UINT8, 3, xd, NULL);
    case_io("Flatten", 9, &tx, NULL, 1);
    add_attr(attr_int("axis", 0));
    CHECK(nc_prepare() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want0));
}

static void flatten_axis_past_rank_fails(void) {
    static const int64_t xd[] = {2, 3};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    case_io("Flatten", 13, &tx, NULL, 1);
    add_attr(attr_int("axis", 3));
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
}

static void squeeze_without_axes_drops_unit_dims(void) {
    static const int64_t xd[] = {1, 3, 1, 2}, want[] = {3, 2};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 4, xd, NULL);
    case_io("Squeeze", 13, &tx, NULL, 1);
    CHECK(nc_prepare() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want));
}

static void squeeze_axis_of_size_three_fails(void) {
    static const int64_t xd[] = {1, 3}, axes[] = {1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    case_io("Squeeze", 11, &tx, NULL, 1);
    add_attr(attr_ints("axes", axes, 1));
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
    CHECK(msg_has("size 3"));
}

static void unsqueeze_opset11_reads_axes_attribute(void) {
    /* ONNX spec: axes index the output; -1 is its last axis: [3,4] -> [1,3,4,1]. */
    static const int64_t xd[] = {3, 4}, axes[] = {0, -1}, want[] = {1, 3, 4, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    case_io("Unsqueeze", 11, &tx, NULL, 1);
    add_attr(attr_ints("axes", axes, 2));
    CHECK(nc_prepare() == MMD_OK);
    CHECK(dims_are(nc.out[0], 4, want));
}

static void unsqueeze_opset13_reads_axes_input(void) {
    static const int64_t xd[] = {3, 4}, ad[] = {2}, axes[] = {0, -1}, want[] = {1, 3, 4, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    mmd_tensor ta = tensor("t", MMD_DTYPE_INT64, 1, ad, axes);
    case_io("Unsqueeze", 13, &tx, &ta, 1);
    /* An attribute at opset 13 is not where axes live; the input is. */
    add_attr(attr_ints("axes", axes + 1, 1));
    CHECK(nc_prepare() == MMD_OK);
    CHECK(dims_are(nc.out[0], 4, want));
}

static void unsqueeze_opset13_without_axes_input_fails(void) {
    static const int64_t xd[] = {3, 4}, axes[] = {0};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    case_io("Unsqueeze", 13, &tx, NULL, 1);
    add_attr(attr_ints("axes", axes, 1));
    CHECK(nc_prepare() == MMD_ERR_INVALID_MODEL);
}

static void unsqueeze_past_max_rank_fails(void) {
    static const int64_t xd[] = {2, 2, 2, 2, 2, 2, 2}, axes[] = {0, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 7, xd, NULL);
    case_io("Unsqueeze", 11, &tx, NULL, 1);
    add_attr(attr_ints("axes", axes, 2));
    CHECK(nc_prepare() == (7 + 2 > MMD_MAX_RANK ? MMD_ERR_LIMIT : MMD_OK));
}

/* ---- Transpose, Slice, Expand -------------------------------------------------------------- */

static void transpose_perm_moves_axes(void) {
    /* numpy: np.arange(24).reshape(2,3,4).transpose(1,2,0).flatten() */
    static const int64_t xd[] = {2, 3, 4}, perm[] = {1, 2, 0}, want_dims[] = {3, 4, 2};
    static const float want[] = {0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17,
                                 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23};
    float x[24];
    mmd_tensor tx;
    int i;
    for (i = 0; i < 24; ++i) x[i] = (float)i;
    tx = tensor("t", MMD_DTYPE_FLOAT32, 3, xd, x);
    case_io("Transpose", 13, &tx, NULL, 1);
    add_attr(attr_ints("perm", perm, 3));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 3, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void transpose_default_reverses_axes_uint8(void) {
    /* numpy: np.arange(6, dtype=np.uint8).reshape(2,3).T.flatten() */
    static const int64_t xd[] = {2, 3}, want_dims[] = {3, 2};
    static const uint8_t x[] = {0, 1, 2, 3, 4, 5}, want[] = {0, 3, 1, 4, 2, 5};
    mmd_tensor tx = tensor("t", MMD_DTYPE_UINT8, 2, xd, x);
    case_io("Transpose", 1, &tx, NULL, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void transpose_repeated_perm_axis_fails(void) {
    static const int64_t xd[] = {2, 3}, perm[] = {1, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    case_io("Transpose", 13, &tx, NULL, 1);
    add_attr(attr_ints("perm", perm, 2));
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
}

static void transpose_empty_tensor_works(void) {
    static const int64_t xd[] = {0, 3}, want[] = {3, 0};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    case_io("Transpose", 13, &tx, NULL, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want));
}

/* Builds Slice (opset 13) on int64 data with constant starts, ends, axes, steps. */
static void slice_case(mmd_tensor *x, mmd_tensor *params, const int64_t *starts,
                       const int64_t *ends, const int64_t *axes, const int64_t *steps,
                       int64_t *n) {
    params[0] = tensor("t", MMD_DTYPE_INT64, 1, n, starts);
    params[1] = tensor("t", MMD_DTYPE_INT64, 1, n, ends);
    params[2] = tensor("t", MMD_DTYPE_INT64, 1, n, axes);
    params[3] = tensor("t", MMD_DTYPE_INT64, 1, n, steps);
    case_init("Slice", 13);
    add_input(x);
    add_input(&params[0]);
    add_input(&params[1]);
    add_input(axes ? &params[2] : NULL);
    add_input(steps ? &params[3] : NULL);
    add_outputs(1);
}

static void slice_negative_step_clamps_end(void) {
    /* numpy: np.arange(10)[8:-100:-3] == [8, 5, 2]; -100 + 10 clamps to -1, "before 0". */
    static const int64_t xd[] = {10}, starts[] = {8}, ends[] = {-100}, steps[] = {-3};
    static const int64_t want[] = {8, 5, 2}, want_dims[] = {3};
    int64_t x[10], n = 1;
    mmd_tensor tx, p[4];
    int i;
    for (i = 0; i < 10; ++i) x[i] = i;
    tx = tensor("t", MMD_DTYPE_INT64, 1, xd, x);
    slice_case(&tx, p, starts, ends, NULL, steps, &n);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 1, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void slice_huge_end_runs_to_the_end(void) {
    /* numpy: np.arange(12).reshape(3,4)[:, 1:] with ends = INT64_MAX on axis 1. */
    static const int64_t xd[] = {3, 4}, starts[] = {1}, ends[] = {INT64_MAX}, axes[] = {1};
    static const int64_t want[] = {1, 2, 3, 5, 6, 7, 9, 10, 11}, want_dims[] = {3, 3};
    int64_t x[12], n = 1;
    mmd_tensor tx, p[4];
    int i;
    for (i = 0; i < 12; ++i) x[i] = i;
    tx = tensor("t", MMD_DTYPE_INT64, 2, xd, x);
    slice_case(&tx, p, starts, ends, axes, NULL, &n);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void slice_reverses_with_int64_min_end(void) {
    /* numpy: np.arange(12).reshape(3,4)[::-1, ::-1]; starts INT64_MAX clamp to dim-1 and
       ends INT64_MIN clamp to -1 for a negative step (ONNX spec). */
    static const int64_t xd[] = {3, 4}, starts[] = {INT64_MAX, INT64_MAX};
    static const int64_t ends[] = {INT64_MIN, INT64_MIN}, axes[] = {0, -1}, steps[] = {-1, -1};
    static const int64_t want[] = {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    int64_t x[12], n = 2;
    mmd_tensor tx, p[4];
    int i;
    for (i = 0; i < 12; ++i) x[i] = i;
    tx = tensor("t", MMD_DTYPE_INT64, 2, xd, x);
    slice_case(&tx, p, starts, ends, axes, steps, &n);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, xd));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void slice_steps_on_two_axes(void) {
    /* numpy: np.arange(20).reshape(4,5)[0:4:2, 1:5:2] == [[1,3],[11,13]]. */
    static const int64_t xd[] = {4, 5}, starts[] = {0, 1}, ends[] = {4, 5}, axes[] = {0, 1};
    static const int64_t steps[] = {2, 2}, want[] = {1, 3, 11, 13}, want_dims[] = {2, 2};
    int64_t x[20], n = 2;
    mmd_tensor tx, p[4];
    int i;
    for (i = 0; i < 20; ++i) x[i] = i;
    tx = tensor("t", MMD_DTYPE_INT64, 2, xd, x);
    slice_case(&tx, p, starts, ends, axes, steps, &n);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void slice_negative_start_and_step_on_3d_float16(void) {
    /* numpy: np.arange(24).reshape(2,3,4)[:, -2:, ::-2] == [7,5,11,9,19,17,23,21], on 2-byte
       elements (float16 bit patterns are moved, never read). */
    static const int64_t xd[] = {2, 3, 4}, starts[] = {-2, INT64_MAX};
    static const int64_t ends[] = {INT64_MAX, INT64_MIN}, axes[] = {1, 2}, steps[] = {1, -2};
    static const uint16_t want[] = {7, 5, 11, 9, 19, 17, 23, 21};
    static const int64_t want_dims[] = {2, 2, 2};
    uint16_t x[24];
    int64_t n = 2;
    mmd_tensor tx, p[4];
    int i;
    for (i = 0; i < 24; ++i) x[i] = (uint16_t)i;
    tx = tensor("t", MMD_DTYPE_FLOAT16, 3, xd, x);
    slice_case(&tx, p, starts, ends, axes, steps, &n);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 3, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void slice_start_past_end_is_empty(void) {
    static const int64_t xd[] = {10}, starts[] = {5}, ends[] = {2}, want_dims[] = {0};
    int64_t x[10] = {0}, n = 1;
    mmd_tensor tx, p[4];
    tx = tensor("t", MMD_DTYPE_INT64, 1, xd, x);
    slice_case(&tx, p, starts, ends, NULL, NULL, &n);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 1, want_dims));
}

static void slice_zero_step_fails(void) {
    static const int64_t xd[] = {10}, starts[] = {0}, ends[] = {5}, steps[] = {0};
    int64_t n = 1;
    mmd_tensor tx, p[4];
    tx = tensor("t", MMD_DTYPE_INT64, 1, xd, NULL);
    slice_case(&tx, p, starts, ends, NULL, steps, &n);
    CHECK(nc_prepare() == MMD_ERR_INVALID_MODEL);
}

static void slice_opset9_reads_attributes(void) {
    /* numpy: np.arange(12).reshape(3,4)[1:3, :] */
    static const int64_t xd[] = {3, 4}, starts[] = {1}, ends[] = {3}, axes[] = {0};
    static const int64_t want[] = {4, 5, 6, 7, 8, 9, 10, 11}, want_dims[] = {2, 4};
    int64_t x[12];
    mmd_tensor tx;
    int i;
    for (i = 0; i < 12; ++i) x[i] = i;
    tx = tensor("t", MMD_DTYPE_INT64, 2, xd, x);
    case_io("Slice", 9, &tx, NULL, 1);
    add_attr(attr_ints("starts", starts, 1));
    add_attr(attr_ints("ends", ends, 1));
    add_attr(attr_ints("axes", axes, 1));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void expand_broadcasts_both_ways(void) {
    /* numpy: np.array([[1],[2],[3]]) * np.ones((2,1,4)): input [3,1], shape [2,1,4] -> [2,3,4]. */
    static const int64_t xd[] = {3, 1}, sd[] = {3}, shape[] = {2, 1, 4}, want_dims[] = {2, 3, 4};
    static const int32_t x[] = {1, 2, 3};
    static const int32_t want[] = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                   1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
    mmd_tensor tx = tensor("t", MMD_DTYPE_INT32, 2, xd, x);
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Expand", 13, &tx, &ts, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 3, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void expand_incompatible_dims_fail(void) {
    static const int64_t xd[] = {3}, sd[] = {1}, shape[] = {4};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, NULL);
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Expand", 8, &tx, &ts, 1);
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
    CHECK(msg_has("3") && msg_has("4"));
}

static void expand_past_max_tensor_bytes_fails(void) {
    static const int64_t xd[] = {1}, sd[] = {2}, shape[] = {INT64_MAX, 2};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, NULL);
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("Expand", 13, &tx, &ts, 1);
    CHECK(nc_prepare() == MMD_ERR_LIMIT);
}

/* ---- Concat, Split, Gather ------------------------------------------------------------------ */

static void concat_with_empty_input(void) {
    /* numpy: np.concatenate([[[0,1],[2,3]], np.zeros((2,0)), [[10],[11]]], axis=1). */
    static const int64_t ad[] = {2, 2}, bd[] = {2, 0}, cd[] = {2, 1}, want_dims[] = {2, 3};
    static const float a[] = {0, 1, 2, 3}, cc[] = {10, 11}, want[] = {0, 1, 10, 2, 3, 11};
    mmd_tensor ta = tensor("t", MMD_DTYPE_FLOAT32, 2, ad, a);
    mmd_tensor tb = tensor("t", MMD_DTYPE_FLOAT32, 2, bd, NULL);
    mmd_tensor tc = tensor("t", MMD_DTYPE_FLOAT32, 2, cd, cc);
    case_init("Concat", 13);
    add_input(&ta);
    add_input(&tb);
    add_input(&tc);
    add_outputs(1);
    add_attr(attr_int("axis", -1));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void concat_skips_legacy_empty_1d_input(void) {
    static const int64_t ed[] = {0}, ad[] = {2, 2}, want_dims[] = {4, 2};
    static const int64_t a[] = {1, 2, 3, 4}, want[] = {1, 2, 3, 4, 1, 2, 3, 4};
    mmd_tensor te = tensor("t", MMD_DTYPE_FLOAT32, 1, ed, NULL);
    mmd_tensor ta = tensor("t", MMD_DTYPE_INT64, 2, ad, a);
    case_init("Concat", 11);
    add_input(&te);
    add_input(&ta);
    add_input(&ta);
    add_outputs(1);
    add_attr(attr_int("axis", 0));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

/* Concat split over threads (harness_reverse_parallel runs the shares last first): 1, 2 and 3
   threads give the inputs' blocks in order, checked by hand, with an empty input between two
   others; each run with more than one thread was split (198000 outputs: three shares of 65536
   or more, which start and end inside blocks). */
static void concat_shares_copy_every_block(void) {
    static const int64_t ad[] = {2, 3, 100, 110}, bd[] = {2, 0, 100, 110}, cd[] = {2, 6, 100, 110};
    const int64_t plane = 100 * 110, n = 2 * 9 * plane;
    float *a = (float *)malloc(2 * 3 * plane * sizeof(float)), *cc = (float *)malloc(2 * 6 * plane * sizeof(float));
    int32_t threads, bad = 0, split = harness_split_loops;
    int64_t i;
    for (i = 0; i < 2 * 3 * plane; ++i) a[i] = (float)i;
    for (i = 0; i < 2 * 6 * plane; ++i) cc[i] = (float)-i;
    for (threads = 1; threads <= 3; ++threads) {
        mmd_tensor ta = tensor("a", MMD_DTYPE_FLOAT32, 4, ad, a), tb = tensor("b", MMD_DTYPE_FLOAT32, 4, bd, NULL);
        mmd_tensor tc = tensor("c", MMD_DTYPE_FLOAT32, 4, cd, cc), ty = output("y"), *in[3], *out[1];
        mmd_attr attrs[1];
        op_case t;
        const float *y;
        in[0] = &ta, in[1] = &tb, in[2] = &tc, out[0] = &ty;
        attrs[0] = attr_int("axis", 1);
        CHECK(case_prepare_threads(&t, threads, "Concat", 13, attrs, 1, in, 3, out, 1) == MMD_OK);
        CHECK(case_eval(&t) == MMD_OK);
        CHECK(mmd_tensor_numel(&ty) == n);
        y = (const float *)ty.data;
        for (i = 0; i < n && y; ++i) {
            int64_t b = i / (9 * plane), ch = i / plane % 9, at = i % plane;
            bad |= y[i] != (ch < 3 ? a[(b * 3 + ch) * plane + at] : cc[(b * 6 + ch - 3) * plane + at]);
        }
        case_free(&t);
    }
    CHECK(!bad);
    CHECK(harness_split_loops == split + 2);
    free(a);
    free(cc);
}

static void concat_dim_mismatch_fails(void) {
    static const int64_t ad[] = {2, 2}, bd[] = {3, 1};
    mmd_tensor ta = tensor("t", MMD_DTYPE_FLOAT32, 2, ad, NULL);
    mmd_tensor tb = tensor("t", MMD_DTYPE_FLOAT32, 2, bd, NULL);
    case_io("Concat", 13, &ta, &tb, 1);
    add_attr(attr_int("axis", 1));
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
}

static void concat_without_axis_fails_from_opset4(void) {
    static const int64_t ad[] = {2, 2};
    mmd_tensor ta = tensor("t", MMD_DTYPE_FLOAT32, 2, ad, NULL);
    case_io("Concat", 4, &ta, &ta, 1);
    CHECK(nc_prepare() == MMD_ERR_INVALID_MODEL);
}

static void split_sizes_input_cuts_axis(void) {
    /* numpy: np.split(np.arange(12).reshape(2,6), [1, 3], axis=1). */
    static const int64_t xd[] = {2, 6}, sd[] = {3}, sizes[] = {1, 2, 3};
    static const int64_t d0[] = {2, 1}, d1[] = {2, 2}, d2[] = {2, 3};
    static const int64_t w0[] = {0, 6}, w1[] = {1, 2, 7, 8}, w2[] = {3, 4, 5, 9, 10, 11};
    int64_t x[12];
    mmd_tensor tx, ts;
    int i;
    for (i = 0; i < 12; ++i) x[i] = i;
    tx = tensor("t", MMD_DTYPE_INT64, 2, xd, x);
    ts = tensor("t", MMD_DTYPE_INT64, 1, sd, sizes);
    case_io("Split", 13, &tx, &ts, 3);
    add_attr(attr_int("axis", 1));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, d0) && dims_are(nc.out[1], 2, d1) && dims_are(nc.out[2], 2, d2));
    CHECK(memcmp(nc.out[0]->data, w0, sizeof w0) == 0);
    CHECK(memcmp(nc.out[1]->data, w1, sizeof w1) == 0);
    CHECK(memcmp(nc.out[2]->data, w2, sizeof w2) == 0);
}

static void split_opset11_reads_split_attribute(void) {
    /* Same cut as above through the attribute, axis -1. */
    static const int64_t xd[] = {2, 6}, sizes[] = {1, 2, 3};
    static const int64_t w2[] = {3, 4, 5, 9, 10, 11};
    int64_t x[12];
    mmd_tensor tx;
    int i;
    for (i = 0; i < 12; ++i) x[i] = i;
    tx = tensor("t", MMD_DTYPE_INT64, 2, xd, x);
    case_io("Split", 11, &tx, NULL, 3);
    add_attr(attr_int("axis", -1));
    add_attr(attr_ints("split", sizes, 3));
    CHECK(nc_run() == MMD_OK);
    CHECK(memcmp(nc.out[2]->data, w2, sizeof w2) == 0);
}

static void split_without_sizes_makes_equal_parts(void) {
    static const int64_t xd[] = {6}, want_dims[] = {2};
    static const float x[] = {0, 1, 2, 3, 4, 5}, w1[] = {2, 3};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, x);
    case_io("Split", 13, &tx, NULL, 3);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 1, want_dims) && dims_are(nc.out[2], 1, want_dims));
    CHECK(memcmp(nc.out[1]->data, w1, sizeof w1) == 0);
}

static void split_uneven_without_sizes_fails_before_opset18(void) {
    static const int64_t xd[] = {5};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, NULL);
    case_io("Split", 13, &tx, NULL, 3);
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
}

static void split_num_outputs_makes_last_part_smaller(void) {
    /* ONNX spec (opset 18): 5 into 3 parts of ceil(5/3) = 2 gives 2, 2, 1. */
    static const int64_t xd[] = {5}, two[] = {2}, one[] = {1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, NULL);
    case_io("Split", 18, &tx, NULL, 3);
    add_attr(attr_int("num_outputs", 3));
    CHECK(nc_prepare() == MMD_OK);
    CHECK(dims_are(nc.out[0], 1, two) && dims_are(nc.out[1], 1, two) && dims_are(nc.out[2], 1, one));
}

static void split_sizes_not_adding_up_fail(void) {
    static const int64_t xd[] = {6}, sd[] = {2}, sizes[] = {2, 3};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, NULL);
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, sizes);
    case_io("Split", 13, &tx, &ts, 2);
    CHECK(nc_prepare() == MMD_ERR_SHAPE);
}

static void gather_negative_index_counts_from_end(void) {
    /* numpy: np.take(np.arange(6).reshape(3,2), [-1, 0], axis=0) == [[4,5],[0,1]]. */
    static const int64_t xd[] = {3, 2}, id[] = {2}, idx[] = {-1, 0}, want_dims[] = {2, 2};
    static const float x[] = {0, 1, 2, 3, 4, 5}, want[] = {4, 5, 0, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, x);
    mmd_tensor ti = tensor("t", MMD_DTYPE_INT64, 1, id, idx);
    case_io("Gather", 13, &tx, &ti, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void gather_int32_indices_on_axis1(void) {
    /* numpy: np.take(np.arange(6).reshape(3,2), [1, -2, 1], axis=1). */
    static const int64_t xd[] = {3, 2}, id[] = {3}, want_dims[] = {3, 3};
    static const int32_t idx[] = {1, -2, 1};
    static const int64_t x[] = {0, 1, 2, 3, 4, 5}, want[] = {1, 0, 1, 3, 2, 3, 5, 4, 5};
    mmd_tensor tx = tensor("t", MMD_DTYPE_INT64, 2, xd, x);
    mmd_tensor ti = tensor("t", MMD_DTYPE_INT32, 1, id, idx);
    case_io("Gather", 11, &tx, &ti, 1);
    add_attr(attr_int("axis", 1));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void gather_scalar_index_drops_axis(void) {
    static const int64_t xd[] = {3, 2}, want_dims[] = {2};
    static const int64_t idx[] = {1};
    static const float x[] = {0, 1, 2, 3, 4, 5}, want[] = {2, 3};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, x);
    mmd_tensor ti = tensor("t", MMD_DTYPE_INT64, 0, NULL, idx);
    case_io("Gather", 13, &tx, &ti, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 1, want_dims));
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void gather_out_of_range_index_fails_at_eval(void) {
    /* The indices are computed at run time (ACTIVATION), so only eval can see the bad one. */
    static const int64_t xd[] = {3, 2}, id[] = {2}, idx[] = {0, 3};
    static const float x[] = {0, 1, 2, 3, 4, 5};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, x);
    mmd_tensor ti = runtime("t", MMD_DTYPE_INT64, 1, id, idx);
    case_io("Gather", 13, &tx, &ti, 1);
    CHECK(nc_prepare() == MMD_OK);
    CHECK(case_eval(&nc.oc) == MMD_ERR_INDEX);
    CHECK(nc.oc.err.status == MMD_ERR_INDEX);
    CHECK(msg_has("index 3"));
}

static void gather_constant_out_of_range_index_fails_at_prepare(void) {
    static const int64_t xd[] = {3, 2}, id[] = {1}, idx[] = {-4};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 2, xd, NULL);
    mmd_tensor ti = tensor("t", MMD_DTYPE_INT64, 1, id, idx);
    case_io("Gather", 13, &tx, &ti, 1);
    CHECK(nc_prepare() == MMD_ERR_INDEX);
    CHECK(msg_has("index -4"));
}

/* ---- Shape, Size, Constant, ConstantOfShape, Identity, Dropout ----------------------------- */

static void shape_start_end_pick_dims(void) {
    /* ONNX spec examples on [2,3,4]: start -1 -> [4]; start 1, end 2 -> [3]; end -1 -> [2,3]. */
    static const int64_t xd[] = {2, 3, 4};
    const int64_t *y;
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 3, xd, NULL);
    case_init("Shape", 15);
    CHECK(nc.kernel && (nc.kernel->flags & MMD_KERNEL_SHAPE_ONLY));
    add_input(&tx);
    add_outputs(1);
    add_attr(attr_int("start", -1));
    CHECK(nc_run() == MMD_OK);
    y = (const int64_t *)nc.out[0]->data;
    CHECK(nc.out[0]->dtype == MMD_DTYPE_INT64 && nc.out[0]->dims[0] == 1 && y[0] == 4);
    case_io("Shape", 15, &tx, NULL, 1);
    add_attr(attr_int("start", 1));
    add_attr(attr_int("end", 2));
    CHECK(nc_run() == MMD_OK);
    y = (const int64_t *)nc.out[0]->data;
    CHECK(nc.out[0]->dims[0] == 1 && y[0] == 3);
    case_io("Shape", 15, &tx, NULL, 1);
    add_attr(attr_int("end", -1));
    CHECK(nc_run() == MMD_OK);
    y = (const int64_t *)nc.out[0]->data;
    CHECK(nc.out[0]->dims[0] == 2 && y[0] == 2 && y[1] == 3);
}

static void shape_before_opset15_ignores_start(void) {
    static const int64_t xd[] = {2, 3, 4};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 3, xd, NULL);
    case_io("Shape", 13, &tx, NULL, 1);
    add_attr(attr_int("start", 1));
    CHECK(nc_run() == MMD_OK);
    CHECK(nc.out[0]->dims[0] == 3 && memcmp(nc.out[0]->data, xd, sizeof xd) == 0);
}

static void size_counts_elements_as_int64_scalar(void) {
    static const int64_t xd[] = {2, 3, 4};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 3, xd, NULL);
    case_init("Size", 13);
    CHECK(nc.kernel && (nc.kernel->flags & MMD_KERNEL_SHAPE_ONLY));
    add_input(&tx);
    add_outputs(1);
    CHECK(nc_run() == MMD_OK);
    CHECK(nc.out[0]->dtype == MMD_DTYPE_INT64 && nc.out[0]->rank == 0);
    CHECK(*(const int64_t *)nc.out[0]->data == 24);
}

static void constant_output_points_at_value_tensor(void) {
    static const int64_t vd[] = {2, 2};
    static const float v[] = {1, 2, 3, 4};
    mmd_tensor tv = tensor("t", MMD_DTYPE_FLOAT32, 2, vd, v);
    case_init("Constant", 13);
    add_outputs(1);
    add_attr(attr_tensor("value", &tv));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, vd) && nc.out[0]->dtype == MMD_DTYPE_FLOAT32);
    CHECK(nc.out[0]->data == (const void *)v);
}

static void constant_value_ints_is_int64_vector(void) {
    static const int64_t v[] = {7, -1, 3}, want_dims[] = {3};
    case_init("Constant", 12);
    add_outputs(1);
    add_attr(attr_ints("value_ints", v, 3));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 1, want_dims) && nc.out[0]->dtype == MMD_DTYPE_INT64);
    CHECK(memcmp(nc.out[0]->data, v, sizeof v) == 0);
}

static void constant_value_float_is_float_scalar(void) {
    case_init("Constant", 13);
    add_outputs(1);
    add_attr(attr_float("value_float", 2.5f));
    CHECK(nc_run() == MMD_OK);
    CHECK(nc.out[0]->rank == 0 && nc.out[0]->dtype == MMD_DTYPE_FLOAT32);
    CHECK(*(const float *)nc.out[0]->data == 2.5f);
}

static void constant_with_two_values_fails(void) {
    static const int64_t v[] = {1};
    case_init("Constant", 13);
    add_outputs(1);
    add_attr(attr_ints("value_ints", v, 1));
    add_attr(attr_int("value_int", 1));
    CHECK(nc_prepare() == MMD_ERR_INVALID_MODEL);
}

static void constant_of_shape_defaults_to_float_zero(void) {
    static const int64_t sd[] = {2}, shape[] = {2, 3};
    static const float want[6] = {0};
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("ConstantOfShape", 9, &ts, NULL, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 2, shape) && nc.out[0]->dtype == MMD_DTYPE_FLOAT32);
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void constant_of_shape_fills_int64_value(void) {
    static const int64_t sd[] = {1}, shape[] = {3}, vd[] = {1}, v[] = {-5}, want[] = {-5, -5, -5};
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    mmd_tensor tv = tensor("t", MMD_DTYPE_INT64, 1, vd, v);
    case_io("ConstantOfShape", 20, &ts, NULL, 1);
    add_attr(attr_tensor("value", &tv));
    CHECK(nc_run() == MMD_OK);
    CHECK(dims_are(nc.out[0], 1, shape) && nc.out[0]->dtype == MMD_DTYPE_INT64);
    CHECK(memcmp(nc.out[0]->data, want, sizeof want) == 0);
}

static void constant_of_shape_empty_shape_is_scalar(void) {
    static const int64_t sd[] = {0};
    /* A constant keeps a data pointer even with no elements; any address will do. */
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, sd);
    case_io("ConstantOfShape", 9, &ts, NULL, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(nc.out[0]->rank == 0 && *(const float *)nc.out[0]->data == 0.0f);
}

static void constant_of_shape_past_max_tensor_bytes_fails(void) {
    /* 2^29 float32 zeros are 2 GiB: few enough elements, but more bytes than the default
       MMD_MAX_TENSOR_BYTES (1 GiB) allows. */
    static const int64_t sd[] = {1}, shape[] = {(int64_t)1 << 29};
    mmd_tensor ts = tensor("t", MMD_DTYPE_INT64, 1, sd, shape);
    case_io("ConstantOfShape", 9, &ts, NULL, 1);
    CHECK(nc_prepare() == ((uint64_t)4 << 29 > MMD_MAX_TENSOR_BYTES ? MMD_ERR_LIMIT : MMD_OK));
}

static void identity_copies_bool(void) {
    static const int64_t xd[] = {4};
    static const uint8_t x[] = {1, 0, 0, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_BOOL, 1, xd, x);
    case_io("Identity", 16, &tx, NULL, 1);
    CHECK(nc_run() == MMD_OK);
    CHECK(nc.out[0]->dtype == MMD_DTYPE_BOOL && memcmp(nc.out[0]->data, x, sizeof x) == 0);
}

static void dropout_passes_input_and_true_mask(void) {
    static const int64_t xd[] = {3};
    static const float x[] = {1, -2, 3};
    static const uint8_t want_mask[] = {1, 1, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, x);
    case_io("Dropout", 13, &tx, NULL, 2);
    CHECK(nc_run() == MMD_OK);
    CHECK(memcmp(nc.out[0]->data, x, sizeof x) == 0);
    CHECK(nc.out[1]->dtype == MMD_DTYPE_BOOL && memcmp(nc.out[1]->data, want_mask, 3) == 0);
}

static void dropout_opset7_mask_has_input_type(void) {
    static const int64_t xd[] = {2};
    static const float x[] = {1, -2}, want_mask[] = {1, 1};
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, x);
    case_io("Dropout", 7, &tx, NULL, 2);
    CHECK(nc_run() == MMD_OK);
    CHECK(nc.out[1]->dtype == MMD_DTYPE_FLOAT32 && memcmp(nc.out[1]->data, want_mask, 8) == 0);
}

static void dropout_training_mode_is_unsupported(void) {
    static const int64_t xd[] = {2};
    static const uint8_t yes = 1;
    mmd_tensor tx = tensor("t", MMD_DTYPE_FLOAT32, 1, xd, NULL);
    mmd_tensor tm = tensor("t", MMD_DTYPE_BOOL, 0, NULL, &yes);
    case_init("Dropout", 13);
    add_input(&tx);
    add_input(NULL);
    add_input(&tm);
    add_outputs(1);
    CHECK(nc_prepare() == MMD_ERR_UNSUPPORTED);
}

/* ---- flags --------------------------------------------------------------------------------- */

/* 1 when the kernel for op at opset flags exactly the inputs in `mask` (bit i: input i) as
   read by value in prepare. */
static int value_inputs_are(const char *op, int32_t opset, uint32_t mask) {
    const mmd_kernel *k = mmd_ops_find("", op, opset);
    uint32_t i, got = 0;
    if (!k) return 0;
    for (i = 0; i < 24; ++i)
        if (k->flags & MMD_KERNEL_VALUE_INPUT(i)) got |= 1u << i;
    return got == mask;
}

static void value_inputs_are_flagged(void) {
    CHECK(value_inputs_are("Reshape", 14, 0x2));
    CHECK(value_inputs_are("Slice", 13, 0x1e));
    CHECK(value_inputs_are("Squeeze", 13, 0x2));
    CHECK(value_inputs_are("Unsqueeze", 13, 0x2));
    CHECK(value_inputs_are("Split", 18, 0x2));
    CHECK(value_inputs_are("Expand", 13, 0x2));
    CHECK(value_inputs_are("ConstantOfShape", 9, 0x1));
    CHECK(value_inputs_are("Dropout", 13, 0x4));
    /* Gather only checks known indices early; its output shape never depends on them. */
    CHECK(value_inputs_are("Gather", 13, 0x0));
    CHECK(value_inputs_are("Transpose", 13, 0x0));
}

int main(void) {
    TEST_RUN(reshape_zero_copies_dim_and_minus_one_infers);
    TEST_RUN(reshape_allowzero_keeps_zero_dim);
    TEST_RUN(reshape_zero_without_allowzero_copies_dim);
    TEST_RUN(reshape_shape_unknown_at_prepare_is_unsupported);
    TEST_RUN(reshape_element_count_mismatch_fails);
    TEST_RUN(reshape_two_minus_ones_fail);
    TEST_RUN(reshape_opset1_reads_shape_attribute);
    TEST_RUN(flatten_negative_axis_splits_before_last_dim);
    TEST_RUN(flatten_axis0_puts_everything_in_second_dim);
    TEST_RUN(flatten_axis_past_rank_fails);
    TEST_RUN(squeeze_without_axes_drops_unit_dims);
    TEST_RUN(squeeze_axis_of_size_three_fails);
    TEST_RUN(unsqueeze_opset11_reads_axes_attribute);
    TEST_RUN(unsqueeze_opset13_reads_axes_input);
    TEST_RUN(unsqueeze_opset13_without_axes_input_fails);
    TEST_RUN(unsqueeze_past_max_rank_fails);
    TEST_RUN(transpose_perm_moves_axes);
    TEST_RUN(transpose_default_reverses_axes_uint8);
    TEST_RUN(transpose_repeated_perm_axis_fails);
    TEST_RUN(transpose_empty_tensor_works);
    TEST_RUN(slice_negative_step_clamps_end);
    TEST_RUN(slice_huge_end_runs_to_the_end);
    TEST_RUN(slice_reverses_with_int64_min_end);
    TEST_RUN(slice_steps_on_two_axes);
    TEST_RUN(slice_negative_start_and_step_on_3d_float16);
    TEST_RUN(slice_start_past_end_is_empty);
    TEST_RUN(slice_zero_step_fails);
    TEST_RUN(slice_opset9_reads_attributes);
    TEST_RUN(expand_broadcasts_both_ways);
    TEST_RUN(expand_incompatible_dims_fail);
    TEST_RUN(expand_past_max_tensor_bytes_fails);
    TEST_RUN(concat_with_empty_input);
    TEST_RUN(concat_skips_legacy_empty_1d_input);
    TEST_RUN(concat_shares_copy_every_block);
    TEST_RUN(concat_dim_mismatch_fails);
    TEST_RUN(concat_without_axis_fails_from_opset4);
    TEST_RUN(split_sizes_input_cuts_axis);
    TEST_RUN(split_opset11_reads_split_attribute);
    TEST_RUN(split_without_sizes_makes_equal_parts);
    TEST_RUN(split_uneven_without_sizes_fails_before_opset18);
    TEST_RUN(split_num_outputs_makes_last_part_smaller);
    TEST_RUN(split_sizes_not_adding_up_fail);
    TEST_RUN(gather_negative_index_counts_from_end);
    TEST_RUN(gather_int32_indices_on_axis1);
    TEST_RUN(gather_scalar_index_drops_axis);
    TEST_RUN(gather_out_of_range_index_fails_at_eval);
    TEST_RUN(gather_constant_out_of_range_index_fails_at_prepare);
    TEST_RUN(shape_start_end_pick_dims);
    TEST_RUN(shape_before_opset15_ignores_start);
    TEST_RUN(size_counts_elements_as_int64_scalar);
    TEST_RUN(constant_output_points_at_value_tensor);
    TEST_RUN(constant_value_ints_is_int64_vector);
    TEST_RUN(constant_value_float_is_float_scalar);
    TEST_RUN(constant_with_two_values_fails);
    TEST_RUN(constant_of_shape_defaults_to_float_zero);
    TEST_RUN(constant_of_shape_fills_int64_value);
    TEST_RUN(constant_of_shape_empty_shape_is_scalar);
    TEST_RUN(constant_of_shape_past_max_tensor_bytes_fails);
    TEST_RUN(identity_copies_bool);
    TEST_RUN(dropout_passes_input_and_true_mask);
    TEST_RUN(dropout_opset7_mask_has_input_type);
    TEST_RUN(dropout_training_mode_is_unsupported);
    TEST_RUN(value_inputs_are_flagged);
    return test_summary();
}
