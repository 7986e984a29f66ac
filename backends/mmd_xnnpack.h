/* backends/mmd_xnnpack.h - v0.1.0 - MIT licence (see end of file)
   XNNPACK backend for mmdeploy.h: 2-D convolutions (depthwise and grouped too), pools and
   element-wise ops as XNNPACK subgraphs (one runtime per claimed set of nodes), fully connected
   layers, softmax and lone element-wise ops as XNNPACK operators (its C API, xnnpack.h; written
   against Debian's 2022-02 snapshot), run on a pthreadpool.

   QUICK START
     In one C file:
         #define MMD_XNNPACK_IMPLEMENTATION
         #include "backends/mmd_xnnpack.h"
     Then:
         mmd_backend xnn;  mmd_backend_registry reg = {0};  mmd_options opts = {0};
         mmd_xnnpack_backend(&xnn);
         mmd_backend_register(&reg, &xnn, &err);
         opts.backends = &reg;
         mmd_session_create(bytes, size, &opts, &s, &err);
     Link with -lXNNPACK -lpthreadpool.

   WHAT IT CLAIMS (ai.onnx, float32, at the opsets the reference kernels cover; decided in
   claim from the shapes of the trial plan)
     Conv                 2-D, constant weight, any groups (depthwise included), strides,
                          dilations, pads, bias
     MaxPool              2-D, no Indices output, no ceil_mode, row-major storage
     AveragePool          2-D, not counting padding, no ceil_mode
     GlobalAveragePool    4-D
     Relu, Clip (constant bounds), Sigmoid, HardSwish, LeakyRelu, Abs, Neg, Floor, Ceil, Sqrt
     Add, Mul, Sub, Div   numpy broadcasting, up to 6 axes
     Gemm                 constant B (either orientation), A not transposed, alpha 1, C a
                          constant [N] or [1, N] bias with beta 1 (or none)
     MatMul               constant 2-D B, A of rank 2 or more
     Softmax              over the last axis
     Each kernel runs the reference kernel's prepare first (same checks, shapes and errors),
     then creates its XNNPACK operator, which packs constant weights once. A configuration
     XNNPACK refuses at prepare is refused with MMD_ERR_UNSUPPORTED, and the runtime gives the
     node to the next backend or the reference kernels.

   SETS (SUBGRAPH CLAIMS in mmdeploy.h)
     supports takes the claimable Conv, pools, GlobalAveragePool and element-wise nodes whose
     activations are all 4-D (constant operands of Add/Mul/Sub/Div only as [.., C, 1, 1] or one
     value); claim_set takes a set holding a convolution or a pool. Its kernel defines the
     members as one XNNPACK subgraph (xnn_define_*: 4-D tensors channels-last inside, weights
     repacked once and given as static values) and builds one runtime (xnn_create_runtime_v2,
     which fuses activations into the ops before them), set up (xnn_setup_runtime) again only
     when the tensors' addresses change, run with xnn_invoke_runtime. The set's 4-D inputs and
     outputs are transposed between NCHW and NHWC at its edges, unless one channel or one pixel
     makes the two the same. A runtime XNNPACK refuses at prepare dissolves the set: its nodes
     are then claimed one by one.

   LAYOUTS
     XNNPACK's convolutions and pools read and write channels-last (NHWC) data, the runtime's
     tensors are NCHW. A tensor that only this backend's nodes touch stays channels-last
     (mmd__bk_layouts, as oneDNN's do): convs and pools read and write either layout,
     transposing a plain side through scratch; element-wise ops keep their inputs' layout;
     GlobalAveragePool reads either. So a chain of claimed nodes transposes only at its ends.
     Fully connected layers and softmax run on plain tensors.

   WHAT IT DOES NOT DO
     No ConvTranspose, no Concat, no Resize (Debian's snapshot has no subgraph Concat), no
     Gemm/MatMul inside a set (they run as single operators), no to_backend.

   CONFIGURATION
     MMD_XNNPACK_IMPLEMENTATION  emit the code in this translation unit
     MMD_HAVE_XNNPACK            1 (default): needs <xnnpack.h>, -lXNNPACK and -lpthreadpool;
                                 0: a stub backend whose is_available is 0

   THREADS
     create makes a pthreadpool of mmd_backend_args.threads threads (the caller's included)
     when that is more than 1, else XNNPACK runs on the calling thread alone. Each session has
     its own pool and operators, so sessions on different threads share nothing.
*/
#ifndef MMD_XNNPACK_H
#define MMD_XNNPACK_H

#include "../mmdeploy.h"

#ifndef MMD_HAVE_XNNPACK
#define MMD_HAVE_XNNPACK 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Fills b with the XNNPACK backend (name "xnnpack", no user pointer). Any phase. */
MMD_API void mmd_xnnpack_backend(mmd_backend *b);

#ifdef __cplusplus
}
#endif
#endif /* MMD_XNNPACK_H */

#if defined(MMD_XNNPACK_IMPLEMENTATION) && !defined(MMD_XNNPACK_IMPLEMENTED)
#define MMD_XNNPACK_IMPLEMENTED
/* ==== >>xnnpack implementation ==== */
#include <stdio.h>
#include <string.h>

#if MMD_HAVE_XNNPACK
#include <math.h>
#include <stdlib.h>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "mmd_backend_util.h"

/* The ops, in the order of their claim rules. */
#define MMD__XNN_OP_LIST(X)                                                                    \
    X(CONV, "Conv") X(MAXPOOL, "MaxPool") X(AVGPOOL, "AveragePool")                            \
    X(GAP, "GlobalAveragePool") X(RELU, "Relu") X(CLIP, "Clip") X(SIGMOID, "Sigmoid")          \
    X(HSWISH, "HardSwish") X(LEAKY, "LeakyRelu") X(ABS, "Abs") X(NEG, "Neg")                   \
    X(FLOOR, "Floor") X(CEIL, "Ceil") X(SQRT, "Sqrt") X(ADD, "Add") X(MUL, "Mul")              \
    X(SUB, "Sub") X(DIV, "Div") X(GEMM, "Gemm") X(MATMUL, "MatMul") X(SOFTMAX, "Softmax")

enum {
#define MMD__XNN_ENUM(id, name) MMD__XNN_##id,
    MMD__XNN_OP_LIST(MMD__XNN_ENUM)
#undef MMD__XNN_ENUM
    MMD__XNN_OPS
};
static const char *const mmd__xnn_op_names[MMD__XNN_OPS] = {
#define MMD__XNN_NAME(id, name) name,
    MMD__XNN_OP_LIST(MMD__XNN_NAME)
#undef MMD__XNN_NAME
};

/* How eval drives a node's operator. */
enum { MMD__XNN_RUN_SPATIAL, MMD__XNN_RUN_GAP, MMD__XNN_RUN_UNARY, MMD__XNN_RUN_BINARY, MMD__XNN_RUN_ROWS };

/* One node's operator and the sizes eval sets it up with. */
typedef struct mmd__xnn_node {
    xnn_operator_t op;
    int32_t op_id, run;
    int32_t in_cl, out_cl;           /* input 0 / output 0 held channels-last */
    size_t n, c, h, w, oc, oh, ow;   /* NCHW sizes of input and output (spatial and GAP) */
    size_t rows;                     /* unary: elements; rows: rows of the row-wise op */
    size_t rank[2], shape[2][XNN_MAX_TENSOR_DIMS]; /* binary operands */
} mmd__xnn_node;

/* Per session: the pool, the claim table and every node's operator. */
typedef struct mmd__xnn {
    pthreadpool_t pool;              /* NULL: the calling thread only */
    const mmd_model *model;
    mmd__bk_layout layout;           /* which tensors are held channels-last */
    const mmd_kernel *ref[MMD__XNN_OPS];
    mmd_kernel kernels[MMD__XNN_OPS];
    mmd_backend_rule rules[MMD__XNN_OPS];
    int32_t rule_count;
    int32_t node_count;
    mmd__xnn_node *nodes;
    mmd_kernel set_kernel;           /* what claim_set returns */
    struct mmd__xnn_set **sets;      /* every set's runtime, found again by its members */
    int32_t set_count, set_cap;
} mmd__xnn;

/* A stand-in address for setting operators up at prepare, before the plan places the tensors:
   XNNPACK sizes its indirection buffers there (so eval never allocates) without reading it. */
static const float mmd__xnn_dummy[16];

/* ==== >>xnnpack helpers ==== */
static mmd_status mmd__xnn_refuse(mmd_kernel_ctx *c, const char *what, enum xnn_status st) {
    return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "xnnpack: %s failed (status %d)", what, (int)st);
}

/* How a node treats layouts (mmd__bk_layouts): convs and pools convert either side, element-wise
   ops share their inputs' layout, GlobalAveragePool reads either, the rest is plain. */
static int32_t mmd__xnn_kind(const void *handle, const mmd_node *n, int32_t *nin) {
    const mmd__xnn *h = (const mmd__xnn *)handle;
    int32_t op;
    if (n->backend != handle || n->members) return MMD__BK_PLAIN;
    op = (int32_t)(n->kernel - h->kernels);
    *nin = op >= MMD__XNN_ADD && op <= MMD__XNN_DIV ? 2 : 1;
    if (op <= MMD__XNN_AVGPOOL) return MMD__BK_CONV;
    if (op == MMD__XNN_GAP) return MMD__BK_SINK;
    return op <= MMD__XNN_DIV ? MMD__BK_SAME : MMD__BK_PLAIN;
}

/* The reference prepare, the layouts (again when the claims changed), then the node's old
   operator deleted. */
static mmd_status mmd__xnn_begin(mmd_kernel_ctx *c, int32_t op, mmd__xnn_node **out) {
    mmd__xnn *h = (mmd__xnn *)c->backend;
    mmd__xnn_node *n = &h->nodes[c->node_index];
    mmd_status st = h->ref[op]->prepare(c);
    if (st != MMD_OK) return st;
    if (mmd__bk_layouts(&h->layout, h->model, h, mmd__xnn_kind) != MMD_OK)
        return mmd_kernel_fail(c, MMD_ERR_OUT_OF_MEMORY, "xnnpack: out of memory");
    if (n->op) xnn_delete_operator(n->op);
    memset(n, 0, sizeof(*n));
    n->op_id = op;
    n->in_cl = mmd__bk_is_cl(&h->layout, h->model, c->inputs[0]);
    n->out_cl = mmd__bk_is_cl(&h->layout, h->model, c->outputs[0]);
    *out = n;
    return MMD_OK;
}

/* NCHW <-> NHWC of one image set: planes of `inner` elements, `outer` of them per image. A
   transpose of [n, a, b] into [n, b, a]. */
static void mmd__xnn_transpose(const float *x, float *y, size_t n, size_t a, size_t b) {
    size_t i, j, k, jj;
    for (i = 0; i < n; ++i, x += a * b, y += a * b)
        for (jj = 0; jj < a; jj += 16) {
            size_t je = jj + 16 < a ? jj + 16 : a;
            for (k = 0; k < b; ++k)
                for (j = jj; j < je; ++j) y[k * a + j] = x[j * b + k];
        }
}

#define MMD__XNN_ALIGN(x) (((x) + 63u) & ~(size_t)63u)

/* ==== >>xnnpack spatial ==== */
/* Conv, MaxPool, AveragePool on 4-D tensors: NCHW sizes, and scratch for the transposes of
   the plain sides. */
static mmd_status mmd__xnn_spatial_sizes(mmd_kernel_ctx *c, mmd__xnn_node *n) {
    const mmd_tensor *x = c->inputs[0], *y = c->outputs[0];
    n->run = MMD__XNN_RUN_SPATIAL;
    n->n = (size_t)x->dims[0];
    n->c = (size_t)x->dims[1];
    n->h = (size_t)x->dims[2];
    n->w = (size_t)x->dims[3];
    n->oc = (size_t)y->dims[1];
    n->oh = (size_t)y->dims[2];
    n->ow = (size_t)y->dims[3];
    c->scratch_size = (n->in_cl ? 0 : MMD__XNN_ALIGN(n->n * n->c * n->h * n->w * sizeof(float))) +
                      (n->out_cl ? 0 : MMD__XNN_ALIGN(n->n * n->oc * n->oh * n->ow * sizeof(float))) + 64;
    return MMD_OK;
}

static mmd_status mmd__xnn_conv_prepare(mmd_kernel_ctx *c) {
    mmd__xnn *h = (mmd__xnn *)c->backend;
    const mmd_tensor *w, *bias;
    mmd__xnn_node *n;
    mmd__bk_window win;
    int64_t group, o, i, t, cg, og, ksize;
    float *packed;
    enum xnn_status xs;
    mmd_status st = mmd__xnn_begin(c, MMD__XNN_CONV, &n);
    if (st != MMD_OK) return st;
    w = c->inputs[1];
    bias = c->input_count > 2 ? c->inputs[2] : NULL;
    if ((st = mmd_attr_get_int(c, "group", 1, &group)) != MMD_OK) return st;
    if ((st = mmd__bk_window_read(c, 2, c->inputs[0]->dims + 2, w->dims + 2, c->outputs[0]->dims + 2, &win)) != MMD_OK)
        return st;
    mmd__xnn_spatial_sizes(c, n);
    if (mmd_tensor_numel(c->outputs[0]) == 0 || mmd_tensor_numel(c->inputs[0]) == 0)
        return mmd__xnn_refuse(c, "an empty convolution", xnn_status_invalid_parameter);
    /* ONNX weights [out, in/g, kh, kw] as XNNPACK's [out, kh, kw, in/g], packed by create. */
    cg = w->dims[1];
    og = w->dims[0] / group;
    ksize = w->dims[2] * w->dims[3];
    if (!(packed = (float *)malloc((size_t)mmd_tensor_numel(w) * sizeof(float) + 4)))
        return mmd_kernel_fail(c, MMD_ERR_OUT_OF_MEMORY, "xnnpack: out of memory");
    for (o = 0; o < w->dims[0]; ++o)
        for (i = 0; i < cg; ++i)
            for (t = 0; t < ksize; ++t)
                packed[(o * ksize + t) * cg + i] = ((const float *)w->data)[(o * cg + i) * ksize + t];
    xs = xnn_create_convolution2d_nhwc_f32(
        (uint32_t)win.pad[0], (uint32_t)win.pad_end[1], (uint32_t)win.pad_end[0], (uint32_t)win.pad[1],
        (uint32_t)win.k[0], (uint32_t)win.k[1], (uint32_t)win.s[0], (uint32_t)win.s[1], (uint32_t)win.d[0],
        (uint32_t)win.d[1], (uint32_t)group, (size_t)cg, (size_t)og, n->c, n->oc, packed,
        bias ? (const float *)bias->data : NULL, -INFINITY, INFINITY, 0, &n->op);
    free(packed);
    if (xs != xnn_status_success) return mmd__xnn_refuse(c, "xnn_create_convolution2d_nhwc_f32", xs);
    xs = xnn_setup_convolution2d_nhwc_f32(n->op, n->n, n->h, n->w, mmd__xnn_dummy, (float *)mmd__xnn_dummy, h->pool);
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(c, "xnn_setup_convolution2d_nhwc_f32", xs);
}

static mmd_status mmd__xnn_pool_prepare(mmd_kernel_ctx *c) {
    mmd__xnn *h = (mmd__xnn *)c->backend;
    int32_t op = strcmp(c->node->op_type, "MaxPool") == 0 ? MMD__XNN_MAXPOOL : MMD__XNN_AVGPOOL;
    const int64_t *kernel;
    int64_t nk;
    mmd__xnn_node *n;
    mmd__bk_window win;
    enum xnn_status xs;
    mmd_status st = mmd__xnn_begin(c, op, &n);
    if (st != MMD_OK) return st;
    if ((st = mmd_attr_get_ints(c, "kernel_shape", &kernel, &nk)) != MMD_OK) return st;
    if (nk != 2) return mmd__xnn_refuse(c, "a pool that is not 2-D", xnn_status_invalid_parameter);
    if ((st = mmd__bk_window_read(c, 2, c->inputs[0]->dims + 2, kernel, c->outputs[0]->dims + 2, &win)) != MMD_OK)
        return st;
    mmd__xnn_spatial_sizes(c, n);
    if (mmd_tensor_numel(c->outputs[0]) == 0)
        return mmd__xnn_refuse(c, "an empty pool", xnn_status_invalid_parameter);
    if (op == MMD__XNN_MAXPOOL)
        xs = xnn_create_max_pooling2d_nhwc_f32((uint32_t)win.pad[0], (uint32_t)win.pad_end[1], (uint32_t)win.pad_end[0],
                                               (uint32_t)win.pad[1], (uint32_t)win.k[0], (uint32_t)win.k[1],
                                               (uint32_t)win.s[0], (uint32_t)win.s[1], (uint32_t)win.d[0],
                                               (uint32_t)win.d[1], n->c, n->c, n->c, -INFINITY, INFINITY, 0, &n->op);
    else
        xs = xnn_create_average_pooling2d_nhwc_f32((uint32_t)win.pad[0], (uint32_t)win.pad_end[1],
                                                   (uint32_t)win.pad_end[0], (uint32_t)win.pad[1], (uint32_t)win.k[0],
                                                   (uint32_t)win.k[1], (uint32_t)win.s[0], (uint32_t)win.s[1], n->c,
                                                   n->c, n->c, -INFINITY, INFINITY, 0, &n->op);
    if (xs != xnn_status_success) return mmd__xnn_refuse(c, "creating the pool", xs);
    xs = op == MMD__XNN_MAXPOOL
             ? xnn_setup_max_pooling2d_nhwc_f32(n->op, n->n, n->h, n->w, mmd__xnn_dummy, (float *)mmd__xnn_dummy, h->pool)
             : xnn_setup_average_pooling2d_nhwc_f32(n->op, n->n, n->h, n->w, mmd__xnn_dummy, (float *)mmd__xnn_dummy,
                                                    h->pool);
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(c, "setting the pool up", xs);
}

/* GlobalAveragePool: the NHWC input's H * W pixels averaged per channel give [N, C], which is
   the NCHW [N, C, 1, 1] output as it lies in memory. */
static mmd_status mmd__xnn_gap_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    mmd__xnn_node *n;
    enum xnn_status xs;
    mmd_status st = mmd__xnn_begin(c, MMD__XNN_GAP, &n);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if (x->rank != 4 || mmd_tensor_numel(x) == 0)
        return mmd__xnn_refuse(c, "a GlobalAveragePool that is not 4-D", xnn_status_invalid_parameter);
    n->run = MMD__XNN_RUN_GAP;
    n->n = (size_t)x->dims[0];
    n->c = (size_t)x->dims[1];
    n->h = (size_t)x->dims[2];
    n->w = (size_t)x->dims[3];
    c->scratch_size = n->in_cl ? 0 : n->n * n->c * n->h * n->w * sizeof(float) + 64;
    xs = xnn_create_global_average_pooling_nwc_f32(n->c, n->c, n->c, -INFINITY, INFINITY, 0, &n->op);
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(c, "xnn_create_global_average_pooling_nwc_f32", xs);
}

/* ==== >>xnnpack element-wise ==== */
/* Clip's bounds: attributes before opset 11, constant inputs from 11 (claim checked them). */
static mmd_status mmd__xnn_clip_bounds(mmd_kernel_ctx *c, float *lo, float *hi) {
    mmd_status st;
    *lo = -INFINITY;
    *hi = INFINITY;
    if (c->opset < 11) {
        if ((st = mmd_attr_get_float(c, "min", -INFINITY, lo)) != MMD_OK) return st;
        if ((st = mmd_attr_get_float(c, "max", INFINITY, hi)) != MMD_OK) return st;
    } else {
        if (c->input_count > 1 && c->inputs[1]) *lo = *(const float *)c->inputs[1]->data;
        if (c->input_count > 2 && c->inputs[2]) *hi = *(const float *)c->inputs[2]->data;
    }
    return *lo <= *hi ? MMD_OK : mmd__xnn_refuse(c, "a Clip with min above max", xnn_status_invalid_parameter);
}
/* One-input ops over all the elements as one row of channels 1. */
static mmd_status mmd__xnn_unary_prepare(mmd_kernel_ctx *c) {
    const mmd_node *node = c->node;
    int32_t op;
    mmd__xnn_node *n;
    enum xnn_status xs = xnn_status_unsupported_parameter;
    mmd_status st;
    for (op = MMD__XNN_RELU; op <= MMD__XNN_SQRT; ++op)
        if (strcmp(node->op_type, mmd__xnn_op_names[op]) == 0) break;
    if ((st = mmd__xnn_begin(c, op, &n)) != MMD_OK) return st;
    n->run = MMD__XNN_RUN_UNARY;
    n->rows = (size_t)mmd_tensor_numel(c->outputs[0]);
    if (n->rows == 0) return mmd__xnn_refuse(c, "an empty tensor", xnn_status_invalid_parameter);
    switch (op) {
    case MMD__XNN_RELU: xs = xnn_create_clamp_nc_f32(1, 1, 1, 0.0f, INFINITY, 0, &n->op); break;
    case MMD__XNN_CLIP: {
        float lo, hi;
        if ((st = mmd__xnn_clip_bounds(c, &lo, &hi)) != MMD_OK) return st;
        xs = xnn_create_clamp_nc_f32(1, 1, 1, lo, hi, 0, &n->op);
        break;
    }
    case MMD__XNN_SIGMOID: xs = xnn_create_sigmoid_nc_f32(1, 1, 1, 0, &n->op); break;
    case MMD__XNN_HSWISH: xs = xnn_create_hardswish_nc_f32(1, 1, 1, 0, &n->op); break;
    case MMD__XNN_LEAKY: {
        float alpha;
        if ((st = mmd_attr_get_float(c, "alpha", 0.01f, &alpha)) != MMD_OK) return st;
        xs = xnn_create_leaky_relu_nc_f32(1, 1, 1, alpha, 0, &n->op);
        break;
    }
    case MMD__XNN_ABS: xs = xnn_create_abs_nc_f32(1, 1, 1, 0, &n->op); break;
    case MMD__XNN_NEG: xs = xnn_create_negate_nc_f32(1, 1, 1, 0, &n->op); break;
    case MMD__XNN_FLOOR: xs = xnn_create_floor_nc_f32(1, 1, 1, 0, &n->op); break;
    case MMD__XNN_CEIL: xs = xnn_create_ceiling_nc_f32(1, 1, 1, 0, &n->op); break;
    case MMD__XNN_SQRT: xs = xnn_create_square_root_nc_f32(1, 1, 1, 0, &n->op); break;
    default: break;
    }
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(c, "creating the element-wise operator", xs);
}

/* Add, Mul, Sub, Div with numpy broadcasting, which XNNPACK's nd operators do themselves. */
static mmd_status mmd__xnn_binary_prepare(mmd_kernel_ctx *c) {
    const char *t = c->node->op_type;
    int32_t op = !strcmp(t, "Add") ? MMD__XNN_ADD : !strcmp(t, "Mul") ? MMD__XNN_MUL : !strcmp(t, "Sub") ? MMD__XNN_SUB
                                                                                                        : MMD__XNN_DIV;
    mmd__xnn_node *n;
    enum xnn_status xs;
    int32_t k, j;
    mmd_status st = mmd__xnn_begin(c, op, &n);
    if (st != MMD_OK) return st;
    n->run = MMD__XNN_RUN_BINARY;
    for (k = 0; k < 2; ++k) {
        const mmd_tensor *x = c->inputs[k];
        if (x->rank > XNN_MAX_TENSOR_DIMS || mmd_tensor_numel(x) == 0)
            return mmd__xnn_refuse(c, "an operand of more than 6 axes or none", xnn_status_invalid_parameter);
        n->rank[k] = (size_t)x->rank;
        for (j = 0; j < x->rank; ++j) n->shape[k][j] = (size_t)x->dims[j];
        /* Channels-last operands (both are, or neither) broadcast as NHWC shapes. */
        if (n->out_cl) {
            if (x->rank != 4) return mmd__xnn_refuse(c, "a channels-last operand that is not 4-D", xnn_status_invalid_parameter);
            n->shape[k][1] = (size_t)x->dims[2];
            n->shape[k][2] = (size_t)x->dims[3];
            n->shape[k][3] = (size_t)x->dims[1];
        }
    }
    xs = op == MMD__XNN_ADD   ? xnn_create_add_nd_f32(-INFINITY, INFINITY, 0, &n->op)
         : op == MMD__XNN_MUL ? xnn_create_multiply_nd_f32(-INFINITY, INFINITY, 0, &n->op)
         : op == MMD__XNN_SUB ? xnn_create_subtract_nd_f32(-INFINITY, INFINITY, 0, &n->op)
                              : xnn_create_divide_nd_f32(-INFINITY, INFINITY, 0, &n->op);
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(c, "creating the binary operator", xs);
}

/* ==== >>xnnpack rows ==== */
/* Gemm and MatMul as a fully connected layer over the rows of A: kernel [N, K] (Gemm's B
   transposed) or [K, N] (XNN_FLAG_TRANSPOSE_WEIGHTS). */
static mmd_status mmd__xnn_fc_prepare(mmd_kernel_ctx *c) {
    int32_t op = strcmp(c->node->op_type, "Gemm") == 0 ? MMD__XNN_GEMM : MMD__XNN_MATMUL;
    const mmd_tensor *a, *b, *bias = NULL;
    mmd__xnn_node *n;
    int64_t tb = 0, k, cols;
    enum xnn_status xs;
    mmd_status st = mmd__xnn_begin(c, op, &n);
    if (st != MMD_OK) return st;
    a = c->inputs[0];
    b = c->inputs[1];
    if (op == MMD__XNN_GEMM) {
        if ((st = mmd_attr_get_int(c, "transB", 0, &tb)) != MMD_OK) return st;
        if (c->input_count > 2) bias = c->inputs[2];
    }
    k = a->dims[a->rank - 1];
    cols = c->outputs[0]->dims[c->outputs[0]->rank - 1];
    n->run = MMD__XNN_RUN_ROWS;
    n->rows = (size_t)(mmd_tensor_numel(a) / (k ? k : 1));
    if (k == 0 || cols == 0 || n->rows == 0) return mmd__xnn_refuse(c, "an empty product", xnn_status_invalid_parameter);
    xs = xnn_create_fully_connected_nc_f32((size_t)k, (size_t)cols, (size_t)k, (size_t)cols, (const float *)b->data,
                                           bias ? (const float *)bias->data : NULL, -INFINITY, INFINITY,
                                           tb ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS, &n->op);
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(c, "xnn_create_fully_connected_nc_f32", xs);
}

static mmd_status mmd__xnn_softmax_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    mmd__xnn_node *n;
    size_t cols;
    enum xnn_status xs;
    mmd_status st = mmd__xnn_begin(c, MMD__XNN_SOFTMAX, &n);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    cols = x->rank ? (size_t)x->dims[x->rank - 1] : 1;
    n->run = MMD__XNN_RUN_ROWS;
    n->rows = cols ? (size_t)mmd_tensor_numel(x) / cols : 0;
    if (n->rows == 0) return mmd__xnn_refuse(c, "an empty softmax", xnn_status_invalid_parameter);
    xs = xnn_create_softmax_nc_f32(cols, cols, cols, 0, &n->op);
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(c, "xnn_create_softmax_nc_f32", xs);
}

/* ==== >>xnnpack eval ==== */
static mmd_status mmd__xnn_eval(mmd_kernel_ctx *c) {
    mmd__xnn *h = (mmd__xnn *)c->backend;
    mmd__xnn_node *n = &h->nodes[c->node_index];
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    float *sx = (float *)MMD__XNN_ALIGN((uintptr_t)c->scratch);
    enum xnn_status xs = xnn_status_success;
    switch (n->run) {
    case MMD__XNN_RUN_SPATIAL: {
        /* A plain side goes through scratch: the input first, then the output. */
        const float *in = n->in_cl ? x : sx;
        float *out = n->out_cl ? y : n->in_cl ? sx : sx + MMD__XNN_ALIGN(n->n * n->c * n->h * n->w * sizeof(float)) / sizeof(float);
        if (!n->in_cl) mmd__xnn_transpose(x, sx, n->n, n->c, n->h * n->w);
        xs = n->op_id == MMD__XNN_CONV    ? xnn_setup_convolution2d_nhwc_f32(n->op, n->n, n->h, n->w, in, out, h->pool)
             : n->op_id == MMD__XNN_MAXPOOL ? xnn_setup_max_pooling2d_nhwc_f32(n->op, n->n, n->h, n->w, in, out, h->pool)
                                            : xnn_setup_average_pooling2d_nhwc_f32(n->op, n->n, n->h, n->w, in, out, h->pool);
        if (xs == xnn_status_success) xs = xnn_run_operator(n->op, h->pool);
        if (!n->out_cl) mmd__xnn_transpose(out, y, n->n, n->oh * n->ow, n->oc);
        break;
    }
    case MMD__XNN_RUN_GAP:
        if (!n->in_cl) mmd__xnn_transpose(x, sx, n->n, n->c, n->h * n->w);
        xs = xnn_setup_global_average_pooling_nwc_f32(n->op, n->n, n->h * n->w, n->in_cl ? x : sx, y, h->pool);
        if (xs == xnn_status_success) xs = xnn_run_operator(n->op, h->pool);
        break;
    case MMD__XNN_RUN_UNARY:
        switch (n->op_id) {
        case MMD__XNN_RELU: case MMD__XNN_CLIP: xs = xnn_setup_clamp_nc_f32(n->op, n->rows, x, y, h->pool); break;
        case MMD__XNN_SIGMOID: xs = xnn_setup_sigmoid_nc_f32(n->op, n->rows, x, y, h->pool); break;
        case MMD__XNN_HSWISH: xs = xnn_setup_hardswish_nc_f32(n->op, n->rows, x, y, h->pool); break;
        case MMD__XNN_LEAKY: xs = xnn_setup_leaky_relu_nc_f32(n->op, n->rows, x, y, h->pool); break;
        case MMD__XNN_ABS: xs = xnn_setup_abs_nc_f32(n->op, n->rows, x, y, h->pool); break;
        case MMD__XNN_NEG: xs = xnn_setup_negate_nc_f32(n->op, n->rows, x, y, h->pool); break;
        case MMD__XNN_FLOOR: xs = xnn_setup_floor_nc_f32(n->op, n->rows, x, y, h->pool); break;
        case MMD__XNN_CEIL: xs = xnn_setup_ceiling_nc_f32(n->op, n->rows, x, y, h->pool); break;
        default: xs = xnn_setup_square_root_nc_f32(n->op, n->rows, x, y, h->pool); break;
        }
        if (xs == xnn_status_success) xs = xnn_run_operator(n->op, h->pool);
        break;
    case MMD__XNN_RUN_BINARY: {
        const float *b = (const float *)c->inputs[1]->data;
        xs = n->op_id == MMD__XNN_ADD
                 ? xnn_setup_add_nd_f32(n->op, n->rank[0], n->shape[0], n->rank[1], n->shape[1], x, b, y, h->pool)
             : n->op_id == MMD__XNN_MUL
                 ? xnn_setup_multiply_nd_f32(n->op, n->rank[0], n->shape[0], n->rank[1], n->shape[1], x, b, y, h->pool)
             : n->op_id == MMD__XNN_SUB
                 ? xnn_setup_subtract_nd_f32(n->op, n->rank[0], n->shape[0], n->rank[1], n->shape[1], x, b, y, h->pool)
                 : xnn_setup_divide_nd_f32(n->op, n->rank[0], n->shape[0], n->rank[1], n->shape[1], x, b, y, h->pool);
        if (xs == xnn_status_success) xs = xnn_run_operator(n->op, h->pool);
        break;
    }
    default:
        xs = n->op_id == MMD__XNN_SOFTMAX ? xnn_setup_softmax_nc_f32(n->op, n->rows, x, y, h->pool)
                                          : xnn_setup_fully_connected_nc_f32(n->op, n->rows, x, y, h->pool);
        if (xs == xnn_status_success) xs = xnn_run_operator(n->op, h->pool);
        break;
    }
    if (xs != xnn_status_success)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "xnnpack: the operator failed to run (status %d)", (int)xs);
    return MMD_OK;
}

/* ==== >>xnnpack sets ==== */
/* A claimed set (SUBGRAPH CLAIMS in mmdeploy.h) as one XNNPACK subgraph runtime: its 4-D
   tensors are channels-last (NHWC) inside, XNNPACK fuses activations into the convolutions
   and additions before them, and weights are given once, when the runtime is built. The set's
   4-D inputs and outputs are transposed at its edges, through scratch, unless their layout is
   the same either way (one channel, or one pixel). */
typedef struct mmd__xnn_edge {
    int32_t tensor;                  /* index in the model */
    int32_t output;                  /* 0 input, 1 output */
    int32_t transpose;               /* 1: goes through scratch at offset */
    size_t n, c, hw, offset;
} mmd__xnn_edge;

typedef struct mmd__xnn_set {
    const mmd_node *members;         /* identifies the set across plans */
    xnn_runtime_t runtime;
    float **weights;                 /* repacked filters, alive as long as the runtime */
    int32_t weight_count;
    int32_t edge_count;
    mmd__xnn_edge *edges;
    struct xnn_external_value *ext;  /* as last given to xnn_setup_runtime */
    int32_t ready;                   /* ext has been set up with real pointers */
} mmd__xnn_set;

static void mmd__xnn_set_free(mmd__xnn_set *x) {
    int32_t i;
    if (!x) return;
    if (x->runtime) xnn_delete_runtime(x->runtime);
    for (i = 0; i < x->weight_count; ++i) free(x->weights[i]);
    free(x->weights);
    free(x->edges);
    free(x->ext);
    free(x);
}

/* The ops a set may hold: those whose activations are all 4-D (NHWC inside the set). */
static int32_t mmd__xnn_set_op(int32_t op) { return op <= MMD__XNN_DIV; }

/* 1 when a [.., C, 1, 1]-shaped (or one-element) constant reads the same in NCHW and NHWC
   broadcasting. */
static int32_t mmd__xnn_flat_const(const mmd_tensor *t) {
    return mmd_tensor_numel(t) == 1 ||
           (t->rank >= 3 && t->rank <= 4 && t->dims[t->rank - 1] == 1 && t->dims[t->rank - 2] == 1);
}

static const mmd_kernel *mmd__xnn_claim(void *user, void *handle, const mmd_model *m, int32_t node);
static int32_t mmd__xnn_const(const mmd_node *n, int32_t i);

static int32_t mmd__xnn_supports(void *user, void *handle, const mmd_model *m, int32_t node) {
    const mmd__xnn *h = (const mmd__xnn *)handle;
    const mmd_node *n = &m->nodes[node];
    const mmd_kernel *k = mmd__xnn_claim(user, handle, m, node);
    int32_t op, j;
    if (!k || !mmd__xnn_set_op(op = (int32_t)(k - h->kernels)) || n->out[0]->rank != 4) return 0;
    for (j = 0; j < n->input_count; ++j) {
        const mmd_tensor *t = n->in[j];
        /* Conv's weights and Clip's bounds are attributes to XNNPACK. */
        if (!t || (j > 0 && (op == MMD__XNN_CONV || op == MMD__XNN_CLIP))) continue;
        if (mmd__xnn_const(n, j)) {
            if (j > 0 && mmd__xnn_flat_const(t)) continue;
            return 0;
        }
        if (t->rank != 4) return 0;
    }
    return 1;
}

/* A set is worth a runtime when it holds a convolution or a pool; element-wise ops alone run
   as single nodes, without the transposes at the set's edges. */
static const mmd_kernel *mmd__xnn_claim_set(void *user, void *handle, const mmd_model *m, const int32_t *nodes,
                                            int32_t count) {
    mmd__xnn *h = (mmd__xnn *)handle;
    int32_t i;
    (void)user;
    for (i = 0; i < count; ++i) {
        const mmd_kernel *k = mmd_backend_match(h->rules, (size_t)h->rule_count, m, nodes[i]);
        if (k && k - h->kernels <= MMD__XNN_GAP) return &h->set_kernel;
    }
    return NULL;
}

/* The XNNPACK value of tensor t, defined on first use: NHWC dims for 4-D tensors, static data
   for constants, an external id for the set's inputs and outputs. */
static enum xnn_status mmd__xnn_value(xnn_subgraph_t sg, const mmd_model *m, const mmd_tensor *t, uint32_t *ids,
                                      const mmd__xnn_set *x, uint32_t *out) {
    int32_t ti = (int32_t)(t - m->tensors), j, r = t->rank;
    size_t dims[XNN_MAX_TENSOR_DIMS];
    uint32_t ext = XNN_INVALID_VALUE_ID, flags = 0;
    enum xnn_status xs;
    if (ids[ti] != XNN_INVALID_VALUE_ID) {
        *out = ids[ti];
        return xnn_status_success;
    }
    for (j = 0; j < x->edge_count; ++j)
        if (x->edges[j].tensor == ti) {
            ext = (uint32_t)j;
            flags = x->edges[j].output ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
        }
    if (r == 4) {
        dims[0] = (size_t)t->dims[0];
        dims[1] = (size_t)t->dims[2];
        dims[2] = (size_t)t->dims[3];
        dims[3] = (size_t)t->dims[1];
    } else {
        /* A flat constant operand: [.., C, 1, 1] is [.., 1, 1, C] channels-last. */
        for (j = 0; j < r; ++j) dims[j] = (size_t)t->dims[j];
        if (r >= 3 && mmd_tensor_numel(t) > 1) {
            dims[r - 3] = 1;
            dims[r - 1] = (size_t)t->dims[r - 3];
        }
    }
    xs = xnn_define_tensor_value(sg, xnn_datatype_fp32, (size_t)r, dims,
                                 mmd_tensor_is_const(t) && t->kind != MMD_TENSOR_INPUT ? t->data : NULL, ext, flags,
                                 &ids[ti]);
    *out = ids[ti];
    return xs;
}

/* Defines member u's node. cu is a context for its attributes. */
static mmd_status mmd__xnn_set_define(mmd_kernel_ctx *cu, xnn_subgraph_t sg, const mmd_model *m, uint32_t *ids,
                                      mmd__xnn_set *x) {
    const mmd_node *u = cu->node;
    int32_t op;
    uint32_t in = 0, in2 = 0, out = 0, w = XNN_INVALID_VALUE_ID, b = XNN_INVALID_VALUE_ID;
    enum xnn_status xs = xnn_status_success;
    mmd__bk_window win;
    mmd_status st;
    for (op = 0; op < MMD__XNN_OPS; ++op)
        if (strcmp(u->op_type, mmd__xnn_op_names[op]) == 0) break;
    if (op == MMD__XNN_OPS || !mmd__xnn_set_op(op)) return mmd__xnn_refuse(cu, "a node a set cannot hold", xnn_status_invalid_parameter);
    if ((xs = mmd__xnn_value(sg, m, u->in[0], ids, x, &in)) != xnn_status_success ||
        (xs = mmd__xnn_value(sg, m, u->out[0], ids, x, &out)) != xnn_status_success)
        return mmd__xnn_refuse(cu, "xnn_define_tensor_value", xs);
    if (op >= MMD__XNN_ADD && op <= MMD__XNN_DIV &&
        (xs = mmd__xnn_value(sg, m, u->in[1], ids, x, &in2)) != xnn_status_success)
        return mmd__xnn_refuse(cu, "xnn_define_tensor_value", xs);
    switch (op) {
    case MMD__XNN_CONV: {
        const mmd_tensor *wt = u->in[1];
        int64_t group, o, i, t, cg = wt->dims[1], ksize = wt->dims[2] * wt->dims[3];
        size_t wdims[4];
        float *packed, **grown;
        if ((st = mmd_attr_get_int(cu, "group", 1, &group)) != MMD_OK) return st;
        if ((st = mmd__bk_window_read(cu, 2, u->in[0]->dims + 2, wt->dims + 2, u->out[0]->dims + 2, &win)) != MMD_OK)
            return st;
        /* ONNX weights [out, in/g, kh, kw] as XNNPACK's [out, kh, kw, in/g]. */
        grown = (float **)realloc(x->weights, sizeof(float *) * (size_t)(x->weight_count + 1));
        if (grown) x->weights = grown;
        packed = grown ? (float *)malloc((size_t)mmd_tensor_numel(wt) * sizeof(float) + 4) : NULL;
        if (!packed) return mmd_kernel_fail(cu, MMD_ERR_OUT_OF_MEMORY, "xnnpack: out of memory");
        x->weights[x->weight_count++] = packed;
        for (o = 0; o < wt->dims[0]; ++o)
            for (i = 0; i < cg; ++i)
                for (t = 0; t < ksize; ++t)
                    packed[(o * ksize + t) * cg + i] = ((const float *)wt->data)[(o * cg + i) * ksize + t];
        wdims[0] = (size_t)wt->dims[0];
        wdims[1] = (size_t)wt->dims[2];
        wdims[2] = (size_t)wt->dims[3];
        wdims[3] = (size_t)cg;
        xs = xnn_define_tensor_value(sg, xnn_datatype_fp32, 4, wdims, packed, XNN_INVALID_VALUE_ID, 0, &w);
        if (xs == xnn_status_success && u->input_count > 2 && u->in[2])
            xs = xnn_define_tensor_value(sg, xnn_datatype_fp32, 1, wdims, u->in[2]->data, XNN_INVALID_VALUE_ID, 0, &b);
        if (xs == xnn_status_success)
            xs = xnn_define_convolution_2d(sg, (uint32_t)win.pad[0], (uint32_t)win.pad_end[1], (uint32_t)win.pad_end[0],
                                           (uint32_t)win.pad[1], (uint32_t)win.k[0], (uint32_t)win.k[1],
                                           (uint32_t)win.s[0], (uint32_t)win.s[1], (uint32_t)win.d[0],
                                           (uint32_t)win.d[1], (uint32_t)group, (size_t)cg,
                                           (size_t)(wt->dims[0] / group), -INFINITY, INFINITY, in, w, b, out, 0);
        break;
    }
    case MMD__XNN_MAXPOOL: case MMD__XNN_AVGPOOL: {
        const int64_t *kernel;
        int64_t nk;
        if ((st = mmd_attr_get_ints(cu, "kernel_shape", &kernel, &nk)) != MMD_OK) return st;
        if (nk != 2) return mmd__xnn_refuse(cu, "a pool that is not 2-D", xnn_status_invalid_parameter);
        if ((st = mmd__bk_window_read(cu, 2, u->in[0]->dims + 2, kernel, u->out[0]->dims + 2, &win)) != MMD_OK)
            return st;
        xs = op == MMD__XNN_MAXPOOL
                 ? xnn_define_max_pooling_2d(sg, (uint32_t)win.pad[0], (uint32_t)win.pad_end[1], (uint32_t)win.pad_end[0],
                                             (uint32_t)win.pad[1], (uint32_t)win.k[0], (uint32_t)win.k[1],
                                             (uint32_t)win.s[0], (uint32_t)win.s[1], (uint32_t)win.d[0],
                                             (uint32_t)win.d[1], -INFINITY, INFINITY, in, out, 0)
                 : xnn_define_average_pooling_2d(sg, (uint32_t)win.pad[0], (uint32_t)win.pad_end[1],
                                                 (uint32_t)win.pad_end[0], (uint32_t)win.pad[1], (uint32_t)win.k[0],
                                                 (uint32_t)win.k[1], (uint32_t)win.s[0], (uint32_t)win.s[1], -INFINITY,
                                                 INFINITY, in, out, 0);
        break;
    }
    case MMD__XNN_GAP: xs = xnn_define_global_average_pooling_2d(sg, -INFINITY, INFINITY, in, out, 0); break;
    case MMD__XNN_RELU: xs = xnn_define_clamp(sg, 0.0f, INFINITY, in, out, 0); break;
    case MMD__XNN_CLIP: {
        float lo, hi;
        if ((st = mmd__xnn_clip_bounds(cu, &lo, &hi)) != MMD_OK) return st;
        xs = xnn_define_clamp(sg, lo, hi, in, out, 0);
        break;
    }
    case MMD__XNN_SIGMOID: xs = xnn_define_sigmoid(sg, in, out, 0); break;
    case MMD__XNN_HSWISH: xs = xnn_define_hardswish(sg, in, out, 0); break;
    case MMD__XNN_LEAKY: {
        float alpha;
        if ((st = mmd_attr_get_float(cu, "alpha", 0.01f, &alpha)) != MMD_OK) return st;
        xs = xnn_define_leaky_relu(sg, alpha, in, out, 0);
        break;
    }
    case MMD__XNN_ABS: xs = xnn_define_abs(sg, in, out, 0); break;
    case MMD__XNN_NEG: xs = xnn_define_negate(sg, in, out, 0); break;
    case MMD__XNN_FLOOR: xs = xnn_define_floor(sg, in, out, 0); break;
    case MMD__XNN_CEIL: xs = xnn_define_ceiling(sg, in, out, 0); break;
    case MMD__XNN_SQRT: xs = xnn_define_square_root(sg, in, out, 0); break;
    case MMD__XNN_ADD: xs = xnn_define_add2(sg, -INFINITY, INFINITY, in, in2, out, 0); break;
    case MMD__XNN_MUL: xs = xnn_define_multiply2(sg, -INFINITY, INFINITY, in, in2, out, 0); break;
    case MMD__XNN_SUB: xs = xnn_define_subtract(sg, -INFINITY, INFINITY, in, in2, out, 0); break;
    default: xs = xnn_define_divide(sg, -INFINITY, INFINITY, in, in2, out, 0); break;
    }
    return xs == xnn_status_success ? MMD_OK : mmd__xnn_refuse(cu, "defining a node of the set", xs);
}

/* Builds the set's runtime: edges, values, nodes, then xnn_create_runtime_v2 (which packs
   the weights), set up once with stand-in pointers so that its indirection buffers have their
   size. The members' reference prepares have run: every tensor has its shape. */
static mmd_status mmd__xnn_set_prepare(mmd_kernel_ctx *c) {
    mmd__xnn *h = (mmd__xnn *)c->backend;
    const mmd_node *set = c->node;
    const mmd_model *m = h->model;
    mmd__xnn_set *x = NULL;
    xnn_subgraph_t sg = NULL;
    uint32_t *ids = NULL;
    int32_t i, e = 0;
    size_t scratch = 0;
    enum xnn_status xs;
    mmd_status st = MMD_OK;
    /* A set prepared again replaces its runtime. */
    for (i = 0; i < h->set_count; ++i)
        if (h->sets[i]->members == set->members) break;
    if (i == h->set_count) {
        if (h->set_count == h->set_cap) {
            mmd__xnn_set **grown = (mmd__xnn_set **)realloc(h->sets, sizeof(*grown) * (size_t)(h->set_cap * 2 + 4));
            if (!grown) return mmd_kernel_fail(c, MMD_ERR_OUT_OF_MEMORY, "xnnpack: out of memory");
            h->sets = grown;
            h->set_cap = h->set_cap * 2 + 4;
        }
        h->sets[h->set_count++] = NULL;
    }
    mmd__xnn_set_free(h->sets[i]);
    if (!(h->sets[i] = x = (mmd__xnn_set *)calloc(1, sizeof(mmd__xnn_set))))
        return mmd_kernel_fail(c, MMD_ERR_OUT_OF_MEMORY, "xnnpack: out of memory");
    *(mmd__xnn_set **)c->op_data = x;
    x->members = set->members;
    x->edges = (mmd__xnn_edge *)calloc((size_t)(set->input_count + set->output_count) + 1, sizeof(mmd__xnn_edge));
    x->ext = (struct xnn_external_value *)calloc((size_t)(set->input_count + set->output_count) + 1,
                                                 sizeof(struct xnn_external_value));
    ids = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)m->tensor_count + 4);
    if (!x->edges || !x->ext || !ids) {
        free(ids);
        return mmd_kernel_fail(c, MMD_ERR_OUT_OF_MEMORY, "xnnpack: out of memory");
    }
    /* Edges: the activations coming in (not weights), then the outputs. */
    for (i = 0; i < set->input_count + set->output_count; ++i) {
        const mmd_tensor *t = i < set->input_count ? set->in[i] : set->out[i - set->input_count];
        mmd__xnn_edge *d = &x->edges[e];
        if (i < set->input_count && (!t || (mmd_tensor_is_const(t) && t->kind != MMD_TENSOR_INPUT))) continue;
        d->tensor = (int32_t)(t - m->tensors);
        d->output = i >= set->input_count;
        if (t->rank != 4) {
            free(ids);
            return mmd__xnn_refuse(c, "an edge of the set that is not 4-D", xnn_status_invalid_parameter);
        }
        d->n = (size_t)t->dims[0];
        d->c = (size_t)t->dims[1];
        d->hw = (size_t)(t->dims[2] * t->dims[3]);
        d->transpose = d->c > 1 && d->hw > 1;
        d->offset = scratch;
        if (d->transpose) scratch += MMD__XNN_ALIGN(d->n * d->c * d->hw * sizeof(float));
        x->ext[e].id = (uint32_t)e;
        x->ext[e].data = (void *)(uintptr_t)mmd__xnn_dummy;
        ++e;
    }
    x->edge_count = e;
    for (i = 0; i < m->tensor_count; ++i) ids[i] = XNN_INVALID_VALUE_ID;
    xs = xnn_create_subgraph((uint32_t)e, 0, &sg);
    for (i = 0; xs == xnn_status_success && st == MMD_OK && i < set->member_count; ++i) {
        mmd_kernel_ctx cu;
        mmd__bk_member_ctx(c, &set->members[i], &cu);
        st = mmd__xnn_set_define(&cu, sg, m, ids, x);
    }
    free(ids);
    if (xs == xnn_status_success && st == MMD_OK) xs = xnn_create_runtime_v2(sg, h->pool, 0, &x->runtime);
    if (sg) xnn_delete_subgraph(sg);
    if (st != MMD_OK) return st;
    if (xs == xnn_status_success) xs = xnn_setup_runtime(x->runtime, (size_t)e, x->ext);
    if (xs != xnn_status_success) return mmd__xnn_refuse(c, "building the set's runtime", xs);
    c->scratch_size = scratch + 64;
    return MMD_OK;
}

static mmd_status mmd__xnn_set_eval(mmd_kernel_ctx *c) {
    mmd__xnn_set *x = *(mmd__xnn_set **)c->op_data;
    const mmd_model *m = ((const mmd__xnn *)c->backend)->model;
    unsigned char *sx = (unsigned char *)MMD__XNN_ALIGN((uintptr_t)c->scratch);
    int32_t i, moved = !x->ready;
    enum xnn_status xs = xnn_status_success;
    for (i = 0; i < x->edge_count; ++i) {
        const mmd__xnn_edge *d = &x->edges[i];
        float *t = (float *)m->tensors[d->tensor].data;
        void *p = d->transpose ? (void *)(sx + d->offset) : (void *)t;
        if (d->transpose && !d->output) mmd__xnn_transpose(t, (float *)p, d->n, d->c, d->hw);
        if (x->ext[i].data != p) moved = 1;
        x->ext[i].data = p;
    }
    /* The plan's pointers stay put, so this runs at the first run after a prepare. */
    if (moved) xs = xnn_setup_runtime(x->runtime, (size_t)x->edge_count, x->ext);
    x->ready = 1;
    if (xs == xnn_status_success) xs = xnn_invoke_runtime(x->runtime);
    if (xs != xnn_status_success)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "xnnpack: the set's runtime failed (status %d)", (int)xs);
    for (i = 0; i < x->edge_count; ++i) {
        const mmd__xnn_edge *d = &x->edges[i];
        if (d->transpose && d->output)
            mmd__xnn_transpose((const float *)(sx + d->offset), (float *)m->tensors[d->tensor].data, d->n, d->hw, d->c);
    }
    return MMD_OK;
}

/* ==== >>xnnpack backend ==== */
static int32_t mmd__xnn_available(void *user) {
    (void)user;
    return xnn_initialize(NULL) == xnn_status_success;
}

static void mmd__xnn_version(void *user, char *buf, size_t cap) {
    (void)user;
    snprintf(buf, cap, "XNNPACK (subgraph and operator API, Debian 2022 snapshot), pthreadpool");
}

static mmd_status mmd__xnn_check_env(void *user, char *buf, size_t cap) {
    (void)user;
    if (xnn_initialize(NULL) != xnn_status_success) {
        snprintf(buf, cap, "XNNPACK does not support this CPU");
        return MMD_ERR_UNSUPPORTED;
    }
    snprintf(buf, cap, "CPU supported; threads: a pthreadpool per session of mmd_options.threads");
    return MMD_OK;
}

static void mmd__xnn_destroy(void *user, void *handle) {
    mmd__xnn *h = (mmd__xnn *)handle;
    int32_t i;
    (void)user;
    if (!h) return;
    for (i = 0; h->nodes && i < h->node_count; ++i)
        if (h->nodes[i].op) xnn_delete_operator(h->nodes[i].op);
    free(h->nodes);
    for (i = 0; i < h->set_count; ++i) mmd__xnn_set_free(h->sets[i]);
    free(h->sets);
    free(h->layout.cl);
    if (h->pool) pthreadpool_destroy(h->pool);
    free(h);
}

/* Op op's prepare (every op evaluates through mmd__xnn_eval). */
static mmd_kernel_fn mmd__xnn_prepare_of(int32_t op) {
    switch (op) {
    case MMD__XNN_CONV: return mmd__xnn_conv_prepare;
    case MMD__XNN_MAXPOOL: case MMD__XNN_AVGPOOL: return mmd__xnn_pool_prepare;
    case MMD__XNN_GAP: return mmd__xnn_gap_prepare;
    case MMD__XNN_ADD: case MMD__XNN_MUL: case MMD__XNN_SUB: case MMD__XNN_DIV: return mmd__xnn_binary_prepare;
    case MMD__XNN_GEMM: case MMD__XNN_MATMUL: return mmd__xnn_fc_prepare;
    case MMD__XNN_SOFTMAX: return mmd__xnn_softmax_prepare;
    default: return mmd__xnn_unary_prepare;
    }
}

static void mmd__xnn_op_fns(int32_t op, size_t *own, mmd_kernel_fn *prepare, mmd_kernel_fn *eval) {
    *own = 0;
    *prepare = mmd__xnn_prepare_of(op);
    *eval = mmd__xnn_eval;
}

static mmd_status mmd__xnn_create(void *user, const mmd_backend_args *args, void **handle, mmd_error *err) {
    mmd__xnn *h;
    (void)user;
    if (xnn_initialize(NULL) != xnn_status_success)
        return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "xnnpack: cannot initialise on this CPU");
    if (!(h = (mmd__xnn *)calloc(1, sizeof(mmd__xnn))))
        return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "xnnpack: out of memory");
    h->model = args->model;
    h->node_count = args->model->node_count;
    h->nodes = (mmd__xnn_node *)calloc((size_t)h->node_count + 1, sizeof(mmd__xnn_node));
    if (args->threads > 1 && h->nodes) h->pool = pthreadpool_create((size_t)args->threads);
    if (!h->nodes || (args->threads > 1 && !h->pool)) {
        mmd__xnn_destroy(NULL, h);
        return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "xnnpack: out of memory");
    }
    memset(&h->set_kernel, 0, sizeof(h->set_kernel));
    h->set_kernel.domain = "mmdeploy.set";
    h->set_kernel.op_type = "xnnpack";
    h->set_kernel.min_opset = h->set_kernel.max_opset = 1;
    h->set_kernel.op_data_size = sizeof(mmd__xnn_set *);
    h->set_kernel.prepare = mmd__xnn_set_prepare;
    h->set_kernel.eval = mmd__xnn_set_eval;
    h->rule_count = mmd__bk_table(args->model, mmd__xnn_op_names, MMD__XNN_OPS, mmd__xnn_op_fns, h->ref, h->kernels, h->rules);
    *handle = h;
    return MMD_OK;
}

/* 1 when input i of n is present and constant (an initializer or a folded value). */
static int32_t mmd__xnn_const(const mmd_node *n, int32_t i) {
    return i < n->input_count && n->in[i] &&
           (n->in[i]->kind == MMD_TENSOR_INITIALIZER || n->in[i]->kind == MMD_TENSOR_CONSTANT) && n->in[i]->data;
}

/* An int attribute's value, def when absent or of another type (prepare reports the latter). */
static int64_t mmd__xnn_int(const mmd_node *n, const char *name, int64_t def) {
    const mmd_attr *a = mmd_node_attr(n, name);
    return a && a->type == MMD_ATTR_INT ? a->i : def;
}

/* The rule table, then what the shapes of the trial plan and the attributes tell (see WHAT IT
   CLAIMS): a claim is a promise, so only configurations XNNPACK runs are claimed. */
static const mmd_kernel *mmd__xnn_claim(void *user, void *handle, const mmd_model *m, int32_t node) {
    const mmd__xnn *h = (const mmd__xnn *)handle;
    const mmd_node *n = &m->nodes[node];
    const mmd_kernel *k = mmd_backend_match(h->rules, (size_t)h->rule_count, m, node);
    const mmd_tensor *x, *y;
    int32_t op, j;
    (void)user;
    if (!k) return NULL;
    op = (int32_t)(k - h->kernels);
    x = n->in[0];
    y = n->output_count > 0 ? n->out[0] : NULL;
    /* Shapes are needed for every decision below: none known, no claim. */
    if (!x || !y || !y->dtype) return NULL;
    for (j = 1; j < n->output_count; ++j)
        if (n->outputs[j] >= 0) return NULL;
    switch (op) {
    case MMD__XNN_CONV:
        return x->rank == 4 && mmd__xnn_const(n, 1) && (n->input_count < 3 || !n->in[2] || mmd__xnn_const(n, 2)) ? k
                                                                                                               : NULL;
    case MMD__XNN_MAXPOOL:
        return x->rank == 4 && !mmd__xnn_int(n, "ceil_mode", 0) && !mmd__xnn_int(n, "storage_order", 0) ? k : NULL;
    case MMD__XNN_AVGPOOL: {
        const mmd_attr *d = mmd_node_attr(n, "dilations");
        for (j = 0; d && d->type == MMD_ATTR_INTS && j < d->count; ++j)
            if (d->ints[j] != 1) return NULL;
        return x->rank == 4 && !mmd__xnn_int(n, "ceil_mode", 0) && !mmd__xnn_int(n, "count_include_pad", 0) ? k : NULL;
    }
    case MMD__XNN_GAP: return x->rank == 4 ? k : NULL;
    case MMD__XNN_CLIP:
        for (j = 1; j < n->input_count; ++j)
            if (n->in[j] && !mmd__xnn_const(n, j)) return NULL;
        return k;
    case MMD__XNN_ADD: case MMD__XNN_MUL: case MMD__XNN_SUB: case MMD__XNN_DIV:
        return n->input_count == 2 && n->in[1] && x->rank <= XNN_MAX_TENSOR_DIMS &&
                       n->in[1]->rank <= XNN_MAX_TENSOR_DIMS && n->in[1]->dtype == MMD_DTYPE_FLOAT32
                   ? k
                   : NULL;
    case MMD__XNN_GEMM: {
        const mmd_tensor *bias = n->input_count > 2 ? n->in[2] : NULL;
        const mmd_attr *alpha = mmd_node_attr(n, "alpha"), *beta = mmd_node_attr(n, "beta");
        if (mmd__xnn_int(n, "transA", 0) || !mmd__xnn_const(n, 1) || (alpha && alpha->f != 1.0f)) return NULL;
        if (bias && (!mmd__xnn_const(n, 2) || (beta && beta->f != 1.0f) || bias->rank > 2 ||
                     mmd_tensor_numel(bias) != y->dims[1] || (bias->rank == 2 && bias->dims[0] != 1)))
            return NULL;
        return k;
    }
    case MMD__XNN_MATMUL: return x->rank >= 2 && mmd__xnn_const(n, 1) && n->in[1]->rank == 2 ? k : NULL;
    case MMD__XNN_SOFTMAX: {
        int64_t axis = mmd__xnn_int(n, "axis", n->opset < 13 ? 1 : -1);
        if (axis < 0) axis += x->rank;
        /* Before opset 13 Softmax flattens from axis: the last axis is the same rows. */
        return x->rank >= 1 && axis == x->rank - 1 ? k : NULL;
    }
    default: return k;
    }
}

MMD_API void mmd_xnnpack_backend(mmd_backend *b) {
    memset(b, 0, sizeof(*b));
    b->abi_version = MMD_BACKEND_ABI_VERSION;
    b->name = "xnnpack";
    b->is_available = mmd__xnn_available;
    b->get_version = mmd__xnn_version;
    b->check_env = mmd__xnn_check_env;
    b->create = mmd__xnn_create;
    b->destroy = mmd__xnn_destroy;
    b->claim = mmd__xnn_claim;
    b->supports = mmd__xnn_supports;
    b->claim_set = mmd__xnn_claim_set;
}

#else /* !MMD_HAVE_XNNPACK */

static int32_t mmd__xnn_unavailable(void *user) {
    (void)user;
    return 0;
}

static mmd_status mmd__xnn_check_env(void *user, char *buf, size_t cap) {
    (void)user;
    snprintf(buf, cap, "built without XNNPACK (install libxnnpack-dev and libpthreadpool-dev and rebuild)");
    return MMD_ERR_UNSUPPORTED;
}

MMD_API void mmd_xnnpack_backend(mmd_backend *b) {
    memset(b, 0, sizeof(*b));
    b->abi_version = MMD_BACKEND_ABI_VERSION;
    b->name = "xnnpack";
    b->is_available = mmd__xnn_unavailable;
    b->check_env = mmd__xnn_check_env;
}

#endif /* MMD_HAVE_XNNPACK */
#endif /* MMD_XNNPACK_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the mmdeploy.h developers

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
