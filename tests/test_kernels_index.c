/* tests/test_kernels_index.c - the indexing and data-movement kernels of mmdeploy_ops.h, one
   behaviour per test: the edge cases the ONNX node tests leave out (indices out of range,
   data-dependent shapes, values not known at prepare, empty tensors, opset-dependent
   attributes). Each test builds tensors and nodes by hand, runs the kernel's prepare then eval
   and compares with literals; the expected values were printed by numpy (/usr/bin/python3)
   with the call given in each comment. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"
#define CHECK_F32_TOL 1e-6
#include "kernel_harness.h"


/* ---- gathers and scatters --------------------------------------------------------------- */

/* Index 2 on an axis of size 2 is out of range: eval names the value and its element. */
static void gather_elements_out_of_range_names_index(void) {
    static const int64_t xd[] = {2, 2};
    uint16_t x[] = {1, 2, 3, 4};
    int64_t idx[] = {0, 2, 1, 0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_UINT16, 2, xd, x), ti = tensor("i", MMD_DTYPE_INT64, 2, xd, idx);
    mmd_tensor ty = output("y"), *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &ti;
    attrs[0] = attr_int("axis", 1);
    CHECK(run_op1("GatherElements", 13, attrs, 1, in, 2, &ty, &err) == MMD_ERR_INDEX);
    CHECK(strstr(err.msg, "index 2 (element 1 ") != NULL);
    free_output(&ty);
}

/* ScatterElements max, opset 18; max does not exist at opset 16.
   x = [1,5,3]; np.maximum.at(x, [0,0,2,1], [4,2,7,-1]) -> [4,5,7] */
static void scatter_elements_max_needs_opset_18(void) {
    static const int64_t xd[] = {3}, id[] = {4}, want[] = {4, 5, 7};
    int32_t x[] = {1, 5, 3}, u[] = {4, 2, 7, -1};
    int64_t idx[] = {0, 0, 2, 1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT32, 1, xd, x), ti = tensor("i", MMD_DTYPE_INT64, 1, id, idx);
    mmd_tensor tu = tensor("u", MMD_DTYPE_INT32, 1, id, u), ty = output("y"), *in[3];
    mmd_attr attrs[1];
    mmd_error err;
    int32_t i;
    in[0] = &tx; in[1] = &ti; in[2] = &tu;
    attrs[0] = attr_string("reduction", "max");
    CHECK(run_op1("ScatterElements", 18, attrs, 1, in, 3, &ty, &err) == MMD_OK);
    for (i = 0; i < 3; ++i) CHECK(((int32_t *)ty.data)[i] == want[i]);
    free_output(&ty);
    CHECK(run_op1("ScatterElements", 16, attrs, 1, in, 3, &ty, &err) == MMD_ERR_INVALID_MODEL);
}

/* x = [1,2,3,4]; x[[-1, 0]] = [9, 8] -> [8,2,3,9]; then index 4 is out of range. */
static void scatter_nd_negative_index_wraps(void) {
    static const int64_t xd[] = {4}, id[] = {2, 1}, ud[] = {2};
    static const float want[] = {8, 2, 3, 9};
    float x[] = {1, 2, 3, 4}, u[] = {9, 8};
    int64_t idx[] = {-1, 0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, xd, x), ti = tensor("i", MMD_DTYPE_INT64, 2, id, idx);
    mmd_tensor tu = tensor("u", MMD_DTYPE_FLOAT32, 1, ud, u), ty = output("y"), *in[3];
    mmd_error err;
    in[0] = &tx; in[1] = &ti; in[2] = &tu;
    CHECK(run_op1("ScatterND", 13, NULL, 0, in, 3, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 4);
    free_output(&ty);
    idx[1] = 4;
    CHECK(run_op1("ScatterND", 13, NULL, 0, in, 3, &ty, &err) == MMD_ERR_INDEX);
    CHECK(strstr(err.msg, "index 4 (element 1 ") != NULL);
    free_output(&ty);
}

/* With batch_dims 1 the first dims of data (2) and indices (3) must agree. */
static void gather_nd_batch_dims_mismatch_is_shape_error(void) {
    static const int64_t xd[] = {2, 2}, id[] = {3, 1};
    float x[4] = {0};
    int64_t idx[3] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), ti = tensor("i", MMD_DTYPE_INT64, 2, id, idx);
    mmd_tensor ty = output("y"), *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &ti;
    attrs[0] = attr_int("batch_dims", 1);
    CHECK(run_op1("GatherND", 13, attrs, 1, in, 2, &ty, &err) == MMD_ERR_SHAPE);
}

/* ---- data-dependent shapes -------------------------------------------------------------- */

/* np.nonzero([[0,-0.0,nan],[1,0,2]]) -> ([0,1,1],[2,0,2]): -0.0 is zero, NaN is not. Planned
   as (2, 6) and marked dynamic; eval writes (2, 3). */
static void non_zero_writes_real_count_into_dynamic_output(void) {
    static const int64_t xd[] = {2, 3}, bound[] = {2, 6}, real[] = {2, 3};
    static const int64_t want[] = {0, 1, 1, 2, 0, 2};
    float x[6] = {0.0f, -0.0f, 0.0f, 1.0f, 0.0f, 2.0f};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), ty = output("y"), *in[1];
    const mmd_kernel *k = mmd_ops_find("", "NonZero", 13);
    mmd_error err;
    x[2] = NAN;
    in[0] = &tx;
    CHECK(run_op1("NonZero", 13, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    CHECK(ty.dynamic == 1);
    check_dims(&ty, 2, real);
    check_i64(&ty, want, 6);
    free_output(&ty);
    /* The bound alone, as the planner sees it. */
    {
        mmd_node node;
        mmd_kernel_ctx c;
        mmd_tensor *outs[1];
        memset(&node, 0, sizeof node);
        node.name = "n0";
        node.op_type = "NonZero";
        node.domain = "";
        memset(&c, 0, sizeof c);
        outs[0] = &ty;
        c.node = &node;
        c.opset = 13;
        c.input_count = 1;
        c.inputs = in;
        c.output_count = 1;
        c.outputs = outs;
        c.err = &err;
        CHECK(k && k->prepare(&c) == MMD_OK);
        check_dims(&ty, 2, bound);
    }
}

/* A scalar gives (0, nnz), as the spec says (numpy would give (1, nnz)). */
static void non_zero_scalar_gives_zero_rows(void) {
    static const int64_t want[] = {0, 1};
    int32_t x = 5;
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT32, 0, NULL, &x), ty = output("y"), *in[1];
    mmd_error err;
    in[0] = &tx;
    CHECK(run_op1("NonZero", 13, NULL, 0, in, 1, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, want);
    free_output(&ty);
}

/* np.compress([0,0], x, axis=0) on a 2x3 input -> shape (0, 3). */
static void compress_all_false_gives_empty_axis(void) {
    static const int64_t xd[] = {2, 3}, cd[] = {2}, want[] = {0, 3};
    float x[6] = {1, 2, 3, 4, 5, 6};
    uint8_t cond[] = {0, 0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x);
    mmd_tensor tc = runtime("c", MMD_DTYPE_BOOL, 1, cd, cond), ty = output("y"), *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tc;
    attrs[0] = attr_int("axis", 0);
    CHECK(run_op1("Compress", 11, attrs, 1, in, 2, &ty, &err) == MMD_OK);
    CHECK(ty.dynamic == 1);
    check_dims(&ty, 2, want);
    free_output(&ty);
}

/* np.compress([1,0,1,0], [1,2,3]) -> [1,3]; np.compress([0,1,0,1], [1,2,3]) raises IndexError. */
static void compress_true_past_the_end_fails(void) {
    static const int64_t xd[] = {3}, cd[] = {4};
    static const float want[] = {1, 3};
    float x[] = {1, 2, 3};
    uint8_t cond[] = {1, 0, 1, 0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, xd, x);
    mmd_tensor tc = tensor("c", MMD_DTYPE_BOOL, 1, cd, cond), ty = output("y"), *in[2];
    mmd_error err;
    in[0] = &tx; in[1] = &tc;
    CHECK(run_op1("Compress", 11, NULL, 0, in, 2, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 2);
    free_output(&ty);
    cond[0] = 0; cond[1] = 1; cond[2] = 0; cond[3] = 1;
    CHECK(run_op1("Compress", 11, NULL, 0, in, 2, &ty, &err) == MMD_ERR_INDEX);
    free_output(&ty);
}

/* ---- OneHot, Range, Tile ---------------------------------------------------------------- */

/* Index -1 with depth 3: off everywhere at opset 9, the last class from opset 11. */
static void one_hot_negative_index_depends_on_opset(void) {
    static const int64_t id[] = {2}, vd[] = {2}, yd[] = {2, 3};
    static const float want9[] = {0, 0, 0, 0, 1, 0}, want11[] = {0, 0, 1, 0, 1, 0};
    int64_t idx[] = {-1, 1};
    float depth = 3.0f, values[] = {0.0f, 1.0f};
    mmd_tensor ti = tensor("i", MMD_DTYPE_INT64, 1, id, idx), td = tensor("d", MMD_DTYPE_FLOAT32, 0, NULL, &depth);
    mmd_tensor tv = tensor("v", MMD_DTYPE_FLOAT32, 1, vd, values), ty = output("y"), *in[3];
    mmd_error err;
    in[0] = &ti; in[1] = &td; in[2] = &tv;
    CHECK(run_op1("OneHot", 9, NULL, 0, in, 3, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    check_f32(&ty, want9, 6);
    free_output(&ty);
    CHECK(run_op1("OneHot", 11, NULL, 0, in, 3, &ty, &err) == MMD_OK);
    check_f32(&ty, want11, 6);
    free_output(&ty);
}

/* depth sets the output shape: a value computed at run time is refused by name. */
static void one_hot_runtime_depth_is_unsupported(void) {
    static const int64_t id[] = {2}, vd[] = {2};
    int64_t idx[] = {0, 1}, depth = 3;
    float values[] = {0.0f, 1.0f};
    mmd_tensor ti = tensor("i", MMD_DTYPE_INT64, 1, id, idx), td = runtime("depth", MMD_DTYPE_INT64, 0, NULL, &depth);
    mmd_tensor tv = tensor("v", MMD_DTYPE_FLOAT32, 1, vd, values), ty = output("y"), *in[3];
    mmd_error err;
    in[0] = &ti; in[1] = &td; in[2] = &tv;
    CHECK(run_op1("OneHot", 11, NULL, 0, in, 3, &ty, &err) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "'depth'") != NULL);
}

/* Unknown start and delta are named together. */
static void range_runtime_inputs_are_named(void) {
    float start = 0.0f, limit = 4.0f, delta = 1.0f;
    mmd_tensor ts = runtime("s", MMD_DTYPE_FLOAT32, 0, NULL, &start), tl = tensor("l", MMD_DTYPE_FLOAT32, 0, NULL, &limit);
    mmd_tensor td = runtime("d", MMD_DTYPE_FLOAT32, 0, NULL, &delta), ty = output("y"), *in[3];
    mmd_error err;
    in[0] = &ts; in[1] = &tl; in[2] = &td;
    CHECK(run_op1("Range", 11, NULL, 0, in, 3, &ty, &err) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "start, delta are not known") != NULL);
}

/* np.arange(10, -3, -4, dtype=np.int16) -> [10,6,2,-2]; np.arange(5, 1, 1) is empty; a zero
   delta never ends and is refused. */
static void range_int16_negative_delta_empty_and_zero_delta(void) {
    static const int64_t four[] = {4}, none[] = {0};
    static const int16_t want[] = {10, 6, 2, -2};
    int16_t start = 10, limit = -3, delta = -4;
    mmd_tensor ts = tensor("s", MMD_DTYPE_INT16, 0, NULL, &start), tl = tensor("l", MMD_DTYPE_INT16, 0, NULL, &limit);
    mmd_tensor td = tensor("d", MMD_DTYPE_INT16, 0, NULL, &delta), ty = output("y"), *in[3];
    mmd_error err;
    int32_t i;
    in[0] = &ts; in[1] = &tl; in[2] = &td;
    CHECK(run_op1("Range", 11, NULL, 0, in, 3, &ty, &err) == MMD_OK);
    check_dims(&ty, 1, four);
    for (i = 0; i < 4; ++i) CHECK(((int16_t *)ty.data)[i] == want[i]);
    free_output(&ty);
    start = 5; limit = 1; delta = 1;
    CHECK(run_op1("Range", 11, NULL, 0, in, 3, &ty, &err) == MMD_OK);
    check_dims(&ty, 1, none);
    free_output(&ty);
    delta = 0;
    CHECK(run_op1("Range", 11, NULL, 0, in, 3, &ty, &err) == MMD_ERR_INVALID_MODEL);
}

/* np.tile(int8 [[1,-2],[3,-4]], (2,1)) -> [1,-2,3,-4,1,-2,3,-4]; repeats (0,2) -> shape (0,4). */
static void tile_int8_and_zero_repeat(void) {
    static const int64_t xd[] = {2, 2}, rd[] = {2}, yd[] = {4, 2}, empty[] = {0, 4};
    static const int8_t want[] = {1, -2, 3, -4, 1, -2, 3, -4};
    int8_t x[] = {1, -2, 3, -4};
    int64_t reps[] = {2, 1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_INT8, 2, xd, x), tr = tensor("r", MMD_DTYPE_INT64, 1, rd, reps);
    mmd_tensor ty = output("y"), *in[2];
    mmd_error err;
    in[0] = &tx; in[1] = &tr;
    CHECK(run_op1("Tile", 13, NULL, 0, in, 2, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    CHECK(memcmp(ty.data, want, sizeof want) == 0);
    free_output(&ty);
    reps[0] = 0; reps[1] = 2;
    CHECK(run_op1("Tile", 13, NULL, 0, in, 2, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, empty);
    free_output(&ty);
}

/* ---- Pad ------------------------------------------------------------------------------- */

/* Opset 18 axes [-1], pads [1, 2], constant_value 9:
   np.pad([[1,2,3],[4,5,6]], ((0,0),(1,2)), constant_values=9) */
static void pad_axes_input_with_negative_axis(void) {
    static const int64_t xd[] = {2, 3}, pd[] = {2}, ad[] = {1}, yd[] = {2, 6};
    static const float want[] = {9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9};
    float x[] = {1, 2, 3, 4, 5, 6}, value = 9.0f;
    int64_t pads[] = {1, 2}, axes[] = {-1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), tp = tensor("p", MMD_DTYPE_INT64, 1, pd, pads);
    mmd_tensor tv = tensor("v", MMD_DTYPE_FLOAT32, 0, NULL, &value), ta = tensor("a", MMD_DTYPE_INT64, 1, ad, axes);
    mmd_tensor ty = output("y"), *in[4];
    mmd_error err;
    in[0] = &tx; in[1] = &tp; in[2] = &tv; in[3] = &ta;
    CHECK(run_op1("Pad", 18, NULL, 0, in, 4, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    check_f32(&ty, want, 12);
    free_output(&ty);
}

/* np.pad([[1,2,3],[4,5,6]], ((1,1),(2,1)), 'wrap'); wrap is not a mode before opset 19. */
static void pad_wrap_needs_opset_19(void) {
    static const int64_t xd[] = {2, 3}, pd[] = {4}, yd[] = {4, 6};
    static const float want[] = {5, 6, 4, 5, 6, 4, 2, 3, 1, 2, 3, 1, 5, 6, 4, 5, 6, 4, 2, 3, 1, 2, 3, 1};
    float x[] = {1, 2, 3, 4, 5, 6};
    int64_t pads[] = {1, 2, 1, 1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), tp = tensor("p", MMD_DTYPE_INT64, 1, pd, pads);
    mmd_tensor ty = output("y"), *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tp;
    attrs[0] = attr_string("mode", "wrap");
    CHECK(run_op1("Pad", 19, attrs, 1, in, 2, &ty, &err) == MMD_OK);
    check_dims(&ty, 2, yd);
    check_f32(&ty, want, 24);
    free_output(&ty);
    CHECK(run_op1("Pad", 18, attrs, 1, in, 2, &ty, &err) == MMD_ERR_INVALID_MODEL);
}

/* Reflect pads longer than the axis keep folding: np.pad([1,2,3], (5,6), 'reflect'). */
static void pad_reflect_past_the_edge_matches_numpy(void) {
    static const int64_t xd[] = {3}, pd[] = {2};
    static const float want[] = {2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1};
    float x[] = {1, 2, 3};
    int64_t pads[] = {5, 6};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, xd, x), tp = tensor("p", MMD_DTYPE_INT64, 1, pd, pads);
    mmd_tensor ty = output("y"), *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tp;
    attrs[0] = attr_string("mode", "reflect");
    CHECK(run_op1("Pad", 13, attrs, 1, in, 2, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 14);
    free_output(&ty);
}

/* Negative pads crop first, then edge pads the rest: [1..5] with pads (-2, 1) is
   np.pad([3,4,5], (0,1), 'edge') = [3,4,5,5]. */
static void pad_negative_crops_before_edge(void) {
    static const int64_t xd[] = {5}, pd[] = {2};
    static const float want[] = {3, 4, 5, 5};
    float x[] = {1, 2, 3, 4, 5};
    int64_t pads[] = {-2, 1};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, xd, x), tp = tensor("p", MMD_DTYPE_INT64, 1, pd, pads);
    mmd_tensor ty = output("y"), *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tp;
    attrs[0] = attr_string("mode", "edge");
    CHECK(run_op1("Pad", 13, attrs, 1, in, 2, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 4);
    free_output(&ty);
}

/* Opset 2 takes pads and value as attributes: np.pad([1,2], 1, constant_values=2.5). */
static void pad_opset2_attributes(void) {
    static const int64_t xd[] = {2}, pads[] = {1, 1};
    static const float want[] = {2.5f, 1, 2, 2.5f};
    float x[] = {1, 2};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 1, xd, x), ty = output("y"), *in[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx;
    attrs[0] = attr_ints("pads", pads, 2);
    attrs[1] = attr_float("value", 2.5f);
    CHECK(run_op1("Pad", 2, attrs, 2, in, 1, &ty, &err) == MMD_OK);
    check_f32(&ty, want, 4);
    free_output(&ty);
}

/* ---- Trilu, EyeLike, DepthToSpace, SpaceToDepth ------------------------------------------ */

/* k = INT64_MAX keeps the whole lower part and none of the upper one (no overflow in i + k). */
static void trilu_huge_k(void) {
    static const int64_t xd[] = {2, 3};
    static const float all[] = {1, 2, 3, 4, 5, 6}, none[] = {0, 0, 0, 0, 0, 0};
    float x[] = {1, 2, 3, 4, 5, 6};
    int64_t k = INT64_MAX;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), tk = runtime("k", MMD_DTYPE_INT64, 0, NULL, &k);
    mmd_tensor ty = output("y"), *in[2];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx; in[1] = &tk;
    attrs[0] = attr_int("upper", 0);
    CHECK(run_op1("Trilu", 14, attrs, 1, in, 2, &ty, &err) == MMD_OK);
    check_f32(&ty, all, 6);
    free_output(&ty);
    attrs[0] = attr_int("upper", 1);
    CHECK(run_op1("Trilu", 14, attrs, 1, in, 2, &ty, &err) == MMD_OK);
    check_f32(&ty, none, 6);
    free_output(&ty);
}

/* np.eye(3, 2, k=1, dtype=np.int32) -> [0,1,0,0,0,0]; a string dtype is refused. */
static void eye_like_dtype_and_k(void) {
    static const int64_t xd[] = {3, 2};
    static const int32_t want[] = {0, 1, 0, 0, 0, 0};
    float x[6] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 2, xd, x), ty = output("y"), *in[1];
    mmd_attr attrs[2];
    mmd_error err;
    in[0] = &tx;
    attrs[0] = attr_int("dtype", MMD_DTYPE_INT32);
    attrs[1] = attr_int("k", 1);
    CHECK(run_op1("EyeLike", 9, attrs, 2, in, 1, &ty, &err) == MMD_OK);
    CHECK(ty.dtype == MMD_DTYPE_INT32);
    CHECK(memcmp(ty.data, want, sizeof want) == 0);
    free_output(&ty);
    attrs[0] = attr_int("dtype", MMD_DTYPE_STRING);
    CHECK(run_op1("EyeLike", 9, attrs, 2, in, 1, &ty, &err) == MMD_ERR_DTYPE);
}

/* 3 channels do not split into 2x2 blocks; blocksize 0 is invalid. */
static void depth_to_space_bad_blocks_fail(void) {
    static const int64_t xd[] = {1, 3, 2, 2};
    float x[12] = {0};
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ty = output("y"), *in[1];
    mmd_attr attrs[1];
    mmd_error err;
    in[0] = &tx;
    attrs[0] = attr_int("blocksize", 2);
    CHECK(run_op1("DepthToSpace", 13, attrs, 1, in, 1, &ty, &err) == MMD_ERR_SHAPE);
    attrs[0] = attr_int("blocksize", 0);
    CHECK(run_op1("DepthToSpace", 13, attrs, 1, in, 1, &ty, &err) == MMD_ERR_INVALID_MODEL);
}

/* SpaceToDepth is the inverse of DepthToSpace in DCR mode, on a 1x2x4x6 ramp. */
static void space_to_depth_inverts_depth_to_space_dcr(void) {
    static const int64_t xd[] = {1, 2, 4, 6}, sd[] = {1, 8, 2, 3};
    float x[48];
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, 4, xd, x), ts = output("s"), ty = output("y"), *in[1];
    mmd_attr attrs[2];
    mmd_error err;
    int32_t i;
    for (i = 0; i < 48; ++i) x[i] = (float)i;
    in[0] = &tx;
    attrs[0] = attr_int("blocksize", 2);
    attrs[1] = attr_string("mode", "DCR");
    CHECK(run_op1("SpaceToDepth", 13, attrs, 1, in, 1, &ts, &err) == MMD_OK);
    check_dims(&ts, 4, sd);
    ts.kind = MMD_TENSOR_ACTIVATION;
    in[0] = &ts;
    CHECK(run_op1("DepthToSpace", 13, attrs, 2, in, 1, &ty, &err) == MMD_OK);
    check_f32(&ty, x, 48);
    free_output(&ts);
    free_output(&ty);
}

int main(void) {
    TEST_RUN(gather_elements_out_of_range_names_index);
    TEST_RUN(scatter_elements_max_needs_opset_18);
    TEST_RUN(scatter_nd_negative_index_wraps);
    TEST_RUN(gather_nd_batch_dims_mismatch_is_shape_error);
    TEST_RUN(non_zero_writes_real_count_into_dynamic_output);
    TEST_RUN(non_zero_scalar_gives_zero_rows);
    TEST_RUN(compress_all_false_gives_empty_axis);
    TEST_RUN(compress_true_past_the_end_fails);
    TEST_RUN(one_hot_negative_index_depends_on_opset);
    TEST_RUN(one_hot_runtime_depth_is_unsupported);
    TEST_RUN(range_runtime_inputs_are_named);
    TEST_RUN(range_int16_negative_delta_empty_and_zero_delta);
    TEST_RUN(tile_int8_and_zero_repeat);
    TEST_RUN(pad_axes_input_with_negative_axis);
    TEST_RUN(pad_wrap_needs_opset_19);
    TEST_RUN(pad_reflect_past_the_edge_matches_numpy);
    TEST_RUN(pad_negative_crops_before_edge);
    TEST_RUN(pad_opset2_attributes);
    TEST_RUN(trilu_huge_k);
    TEST_RUN(eye_like_dtype_and_k);
    TEST_RUN(depth_to_space_bad_blocks_fail);
    TEST_RUN(space_to_depth_inverts_depth_to_space_dcr);
    return test_summary();
}
