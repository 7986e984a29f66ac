/* tests/test_kernels_conv.c - Conv and com.microsoft FusedConv against torch, one case for each
   way the runtime computes a convolution (pointwise, shifted stride-1, im2col, grouped,
   depthwise in 1-D and 2-D with strides, dilations and channel multipliers, 3-D) and their
   edges (asymmetric pads, batches), pointwise of one output pixel (the product transposed), and
   ConvTranspose (col2im, and DISJOINT where stride equals
   kernel); then again with packed weights, where the
   3x3 stride-1 cases take WINOGRAD (odd sizes, pads 0 to 2, channels not a multiple of 16;
   F(2x2, 3x3) on the small planes in the portable build). Each case runs with one thread, with
   two and with three (through a thread hook that runs the shares backwards), which must agree
   bit for bit, as FusedConv
   with Z set to torch's output and Relu, which must give relu(2 * y), and as FusedConv with
   Clip and no Z (the clamp the tiles apply as they store), which must give torch's y clamped. The cases are generated
   by tests/gen_conv_cases.py into tests/data/conv_cases.h. */
#define MMD_IMPLEMENTATION
/* Columns gathered a few rows at a time, so that every im2col and ConvTranspose case runs in
   several bands. */
#define MMD_CONV_COLUMNS_MAX 300
/* ConvTranspose's DISJOINT path stores its columns one panel of columns at a time. */
#define MMD__DISJOINT_CHUNK_FLOATS 1
/* STEM copies the input rows of one tile of output rows at a time (bands that overlap, a short
   last band). */
#define MMD__STEM_BAND_FLOATS 1
/* Every 3x3 stride-1 case through WINOGRAD when the weights are packed. In the portable build
   (MMD_NO_SIMD) those of fewer than 10 4x4 tiles (4, 9 and 9) as F(2x2, 3x3), the others (12,
   25 and 34) as F(4x4, 3x3). In the vector builds those of 26 or more (34) as F(4x4, 3x3) and
   the smaller ones as whichever of the two computes fewer columns (checked for the
   winograd_small_ cases: F(2x2) for the 9 tiles of winograd_small_f2_10x10, F(4x4) for the 25
   of winograd_small_f4_20x19); NEON leaves those below 26 to SHIFTED. */
#define MMD_WINOGRAD_TILES_MIN 26
#define MMD_WINOGRAD_TILES_SMALL 1
#define MMD_WINOGRAD_SMALL_CHANNELS_MIN 1
#define MMD_WINOGRAD_TILES_NARROW 10
#define MMD_WINOGRAD_CHANNELS_MIN 1
#define MMD_WINOGRAD_OUT_CHANNELS_MIN 1
/* SWEEP takes pointwise products of at least 4096 outputs (only the sweep_ cases), sweeping
   every share in blocks of 96 columns. */
#define MMD__SWEEP_FLOATS 4096
#define MMD__SWEEP_INPUT 1
#define MMD__SWEEP_COLUMNS 96
#include "mmdeploy.h"
#include "test.h"
#include "kernel_harness.h"
#include "data/conv_cases.h"

static void backwards(void *user, mmd_task_fn task, void *ctx, int32_t count) {
    int32_t i;
    (void)user;
    for (i = count - 1; i >= 0; --i) task(ctx, i);
}

/* The bounds of the FusedConv runs with Clip and no Z (the activation the product's and STEM's
   tiles apply as they store). */
static const float clip_bounds[2] = {-0.5f, 0.75f};

/* Runs one case as Conv (z NULL, clip 0), FusedConv with Z and Relu, or FusedConv with Clip
   (clip_bounds) and no Z (clip 1), on `threads` threads; returns the output (malloc'd) or NULL
   on failure. */
static float *run_case(const struct conv_case *k, const float *z, int32_t clip, int32_t threads) {
    int32_t n = k->rank - 2, nattr = 0, fused = z || clip;
    int64_t pads[6], i;
    mmd_tensor tx = tensor("x", MMD_DTYPE_FLOAT32, k->rank, k->x_dims, k->x);
    mmd_tensor tw = tensor("w", MMD_DTYPE_FLOAT32, k->rank, k->w_dims, k->w);
    mmd_tensor tb = tensor("b", MMD_DTYPE_FLOAT32, 1, k->y_dims + 1, k->b);
    mmd_tensor tz = tensor("z", MMD_DTYPE_FLOAT32, k->rank, k->y_dims, z);
    mmd_tensor ty = output("y");
    mmd_tensor *in[4], *out[1];
    mmd_attr attrs[7];
    op_case t;
    float *y = NULL;
    mmd_status st;
    in[0] = &tx, in[1] = &tw, in[2] = &tb, in[3] = &tz, out[0] = &ty;
    for (i = 0; i < 2 * n; ++i) pads[i] = k->pads[i];
    attrs[nattr++] = attr_int("group", k->group);
    attrs[nattr++] = attr_ints("strides", k->strides, n);
    attrs[nattr++] = attr_ints("pads", pads, 2 * n);
    attrs[nattr++] = attr_ints("dilations", k->dilations, n);
    if (z) attrs[nattr++] = attr_string("activation", "Relu");
    if (clip) {
        attrs[nattr++] = attr_string("activation", "Clip");
        attrs[nattr++] = attr_floats("activation_params", clip_bounds, 2);
    }
    if (k->transposed) attrs[nattr++] = attr_ints("output_padding", k->output_padding, n);
    memset(&t, 0, sizeof t);
    t.k = mmd_ops_find(fused ? "com.microsoft" : "", fused ? "FusedConv" : k->transposed ? "ConvTranspose" : "Conv",
                       fused ? 1 : 11);
    CHECK(t.k != NULL);
    if (!t.k) return NULL;
    t.node.name = "n0";
    t.node.op_type = t.k->op_type;
    t.node.domain = fused ? "com.microsoft" : "";
    t.node.attrs = attrs;
    t.node.attr_count = nattr;
    t.node.opset = fused ? 1 : 11;
    t.c.node = &t.node;
    t.c.opset = t.node.opset;
    t.c.input_count = z ? 4 : 3;
    t.c.inputs = in;
    t.c.output_count = 1;
    t.c.outputs = out;
    t.c.op_data = calloc(1, t.k->op_data_size + 1);
    t.c.err = &t.err;
    t.c.threads = threads;
    t.c.parallel = threads > 1 ? backwards : NULL;
    t.c.arena = harness_arena;
    st = t.k->prepare(&t.c);
    if (st == MMD_OK && harness_arena && !strncmp(k->name, "winograd_small_f", 16)) {
        /* The small planes' cases take WINOGRAD with the tile size their name says. */
        const mmd__conv_data *p = (const mmd__conv_data *)t.c.op_data;
        CHECK(p->path == MMD__CONV_WINOGRAD || p->isa == MMD__ISA_NEON);
        CHECK(!MMD__WINO_SMALL(p->isa) || p->wino_e == k->name[16] - '0');
    }
    if (st == MMD_OK && !strncmp(k->name, "stem_", 5)) {
        /* The stem_ cases take STEM where it exists: on AVX-512, and on the portable ISA for
           a K within one K block of the product (all of them). */
        const mmd__conv_data *p = (const mmd__conv_data *)t.c.op_data;
        CHECK(p->path == MMD__CONV_STEM || (p->isa != MMD__ISA_AVX512 && p->isa != MMD__ISA_PORTABLE));
    }
    if (st == MMD_OK && case_eval(&t) == MMD_OK) {
        check_dims(&ty, k->rank, k->y_dims);
        y = (float *)ty.data;
        ty.data = NULL;
    } else {
        fprintf(stderr, "%s: %s\n", k->name, t.err.msg);
        CHECK(0);
    }
    case_free(&t);
    return y;
}

/* Every case against torch within tol times (1 + |y|) per element, or with whole_scale times
   (1 + the largest |y| of the case) (Z and Relu: twice that). */
static void cases_match_torch(double tol, int32_t whole_scale) {
    size_t i;
    for (i = 0; i < COUNT(conv_cases); ++i) {
        const struct conv_case *k = &conv_cases[i];
        int64_t n = 1, j;
        float *one, *two, *three, *fused, *clipped;
        int32_t d, bad = 0;
        double scale = 0.0;
        for (d = 0; d < k->rank; ++d) n *= k->y_dims[d];
        for (j = 0; j < n && whole_scale; ++j) scale = fabs(k->y[j]) > scale ? fabs(k->y[j]) : scale;
        one = run_case(k, NULL, 0, 1);
        two = run_case(k, NULL, 0, 2);
        three = run_case(k, NULL, 0, 3);
        fused = k->transposed ? NULL : run_case(k, k->y, 0, 1);
        clipped = k->transposed ? NULL : run_case(k, NULL, 1, 1);
        if (!one || !two || !three || (!fused && !k->transposed) || (!clipped && !k->transposed)) {
            free(one), free(two), free(three), free(fused), free(clipped);
            continue;
        }
        for (j = 0; j < n; ++j) {
            float twice = 2.0f * k->y[j];
            float c = k->y[j] < clip_bounds[0] ? clip_bounds[0] : k->y[j] > clip_bounds[1] ? clip_bounds[1] : k->y[j];
            double mag = whole_scale ? scale : fabs(k->y[j]);
            if (!(fabs(one[j] - k->y[j]) <= tol * (1.0 + mag)) ||
                (fused && !(fabs(fused[j] - (twice > 0.0f ? twice : 0.0f)) <= 2.0 * tol * (1.0 + 2.0 * mag))) ||
                (clipped && !(fabs(clipped[j] - c) <= tol * (1.0 + mag))))
                bad = 1;
        }
        if (bad) fprintf(stderr, "%s: differs from torch\n", k->name);
        CHECK(!bad);
        CHECK(memcmp(one, two, (size_t)n * sizeof(float)) == 0);
        CHECK(memcmp(one, three, (size_t)n * sizeof(float)) == 0);
        free(one), free(two), free(three), free(fused), free(clipped);
    }
}

static void conv_matches_torch_on_every_path(void) { cases_match_torch(1e-5, 0); }

/* The same with an arena, so that prepare packs the weights as a plan does, and the 3x3
   stride-1 cases take WINOGRAD (its thresholds are 1 here), whose transforms round more: its
   error measured on these cases reaches 6e-5 next to an output of 0.03 in a case whose outputs
   reach 35, so it is bounded against the largest output of the case (1.7e-6 of it measured). */
static void conv_with_packed_weights_matches_torch(void) {
    mmd_arena arena;
    mmd_arena_init(&arena, NULL, 0, 1);
    harness_arena = &arena;
    cases_match_torch(1e-5, 1);
    harness_arena = NULL;
    mmd_arena_release(&arena);
}

int main(void) {
    TEST_RUN(conv_matches_torch_on_every_path);
    TEST_RUN(conv_with_packed_weights_matches_torch);
    return test_summary();
}
