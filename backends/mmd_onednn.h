/* backends/mmd_onednn.h - v0.1.0 - MIT licence (see end of file)
   oneDNN backend for mmdeploy.h: convolutions, pools, batch normalization, element-wise ops and
   matrix products as oneDNN 2.x primitives (C API, dnnl.h; written against Debian's 2.6).

   QUICK START
     In one C file:
         #define MMD_ONEDNN_IMPLEMENTATION
         #include "backends/mmd_onednn.h"
     Then:
         mmd_backend dnnl;  mmd_backend_registry reg = {0};  mmd_options opts = {0};
         mmd_onednn_backend(&dnnl);
         mmd_backend_register(&reg, &dnnl, &err);
         opts.backends = &reg;
         mmd_session_create(bytes, size, &opts, &s, &err);
     Link with -ldnnl (and -lgomp: see THREADS).

   WHAT IT CLAIMS (ai.onnx, float32, at the opsets the reference kernels cover)
     Conv                 1-D to 3-D, groups, strides, dilations, pads, fused bias; the weight
                          must be a constant (an initializer or folded)
     MaxPool, AveragePool, GlobalAveragePool   1-D to 3-D; not MaxPool's Indices output
     BatchNormalization   inference with the given statistics
     Relu, LeakyRelu, Sigmoid, Tanh, Clip, HardSwish, Sqrt, Exp, Log, Abs, Elu, Softplus
     Add, Mul             same shapes, or the second (or first) operand broadcast
     MatMul               numpy broadcasting; a constant 2-D B is reordered once
     Gemm                 transposes, alpha; C as bias when beta is 1 (and alpha is 1)
     Not claimed: MaxPool with its Indices output, AveragePool with both ceil_mode and
     count_include_pad, a Conv whose weight is not a constant.
     Each kernel runs the reference kernel's prepare first (same checks, shapes and errors),
     then builds its primitives and reorders constant weights into the primitive's layout, once
     per plan; eval only sets the data pointers and executes. A node whose primitive cannot be
     built falls back to the reference kernel's eval, which the wrapped prepare has set up.

   LAYOUTS
     oneDNN's fast convolutions want channels-last (NHWC) data. A tensor that only this
     backend's nodes touch (made by a conv or a layout-preserving node, read by convs,
     GlobalAveragePool or layout-preserving nodes, not a graph output) is kept channels-last, in
     the same bytes the plan gave it; a conv reading or writing a plain tensor reorders through
     scratch. So a chain of claimed nodes runs without conversions, as in ONNX Runtime, while
     every tensor another kernel or the caller sees is plain NCHW.

   WHAT IT DOES NOT DO
     No ConvTranspose, no post-op fusion across nodes, no to_backend.

   CONFIGURATION
     MMD_ONEDNN_IMPLEMENTATION  emit the code in this translation unit
     MMD_HAVE_ONEDNN            1 (default): needs <dnnl.h> and -ldnnl; 0: a stub backend whose
                                is_available is 0 ("built without oneDNN")

   THREADS
     Debian's oneDNN runs on OpenMP, so each kernel sets the calling thread's OpenMP thread
     count (omp_set_num_threads, which only that thread's parallel regions see) to the
     session's (mmd_options.threads, 1 when unset) in prepare, where primitives are made for
     it, and again in eval when it differs: OMP_NUM_THREADS no longer decides. With that
     runtime a program links -lgomp too. Each session has its own engine, stream and
     primitives, so sessions on different threads share nothing.
*/
#ifndef MMD_ONEDNN_H
#define MMD_ONEDNN_H

#include "../mmdeploy.h"

#ifndef MMD_HAVE_ONEDNN
#define MMD_HAVE_ONEDNN 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Fills b with the oneDNN backend (name "onednn", no user pointer). Any phase. */
MMD_API void mmd_onednn_backend(mmd_backend *b);

#ifdef __cplusplus
}
#endif
#endif /* MMD_ONEDNN_H */

#if defined(MMD_ONEDNN_IMPLEMENTATION) && !defined(MMD_ONEDNN_IMPLEMENTED)
#define MMD_ONEDNN_IMPLEMENTED
/* ==== >>onednn implementation ==== */
#include <stdio.h>
#include <string.h>

#if MMD_HAVE_ONEDNN
#include <float.h>
#include <stdlib.h>

#include <dnnl.h>
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

#include "mmd_backend_util.h"

/* The ops, in the order of their claim rules. */
#define MMD__DNNL_OP_LIST(X)                                                                   \
    X(CONV, "Conv") X(MAXPOOL, "MaxPool") X(AVGPOOL, "AveragePool")                            \
    X(GAP, "GlobalAveragePool") X(BN, "BatchNormalization") X(RELU, "Relu")                    \
    X(LEAKY, "LeakyRelu") X(SIGMOID, "Sigmoid") X(TANH, "Tanh") X(CLIP, "Clip")                \
    X(HSWISH, "HardSwish") X(SQRT, "Sqrt") X(EXP, "Exp") X(LOG, "Log") X(ABS, "Abs")           \
    X(ELU, "Elu") X(SOFTPLUS, "Softplus") X(ADD, "Add") X(MUL, "Mul") X(MATMUL, "MatMul")      \
    X(GEMM, "Gemm")

enum {
#define MMD__DNNL_ENUM(id, name) MMD__DNNL_##id,
    MMD__DNNL_OP_LIST(MMD__DNNL_ENUM)
#undef MMD__DNNL_ENUM
    MMD__DNNL_OPS
};
static const char *const mmd__dnnl_op_names[MMD__DNNL_OPS] = {
#define MMD__DNNL_NAME(id, name) name,
    MMD__DNNL_OP_LIST(MMD__DNNL_NAME)
#undef MMD__DNNL_NAME
};

#define MMD__DNNL_ARGS 6
#define MMD__DNNL_STEPS 3
#define MMD__DNNL_MEMS 16
#define MMD__DNNL_OWNED 1000          /* data the backend owns, or fixed once at prepare */
#define MMD__DNNL_SCRATCH 1001        /* data at an offset in the node's scratch */
#define MMD__DNNL_OUTPUT(k) (-1 - (k)) /* data of output k */

/* One primitive to execute and its arguments; each argument's data pointer is set at eval
   from what it is bound to. */
typedef struct mmd__dnnl_step {
    dnnl_primitive_t prim;
    int32_t nargs;
    dnnl_exec_arg_t args[MMD__DNNL_ARGS];
    int32_t from[MMD__DNNL_ARGS];    /* input index, MMD__DNNL_OUTPUT(k), _OWNED or _SCRATCH */
    size_t offset[MMD__DNNL_ARGS];   /* _SCRATCH: byte offset from the 64-aligned scratch */
} mmd__dnnl_step;

/* One node: its steps (a Conv in oneDNN's blocked layout is reorder in, conv, reorder out)
   and every memory object they use. No step: the reference eval runs the node. */
typedef struct mmd__dnnl_node {
    int32_t op;
    int32_t nsteps;
    mmd__dnnl_step steps[MMD__DNNL_STEPS];
    dnnl_memory_t mems[MMD__DNNL_MEMS];
    int32_t nmems;
} mmd__dnnl_node;

/* Per session: engine, stream, the claim table, every node's primitives and the layout of
   every tensor (see >>onednn layouts). */
typedef struct mmd__dnnl {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    const mmd_model *model;
    const mmd_kernel *ref[MMD__DNNL_OPS];
    mmd_kernel kernels[MMD__DNNL_OPS];
    mmd_backend_rule rules[MMD__DNNL_OPS];
    int32_t rule_count;
    int32_t node_count;
    mmd__dnnl_node *nodes;
    mmd__bk_layout layout;           /* which tensors are held channels-last */
} mmd__dnnl;

/* ==== >>onednn helpers ==== */
static void mmd__dnnl_release(mmd__dnnl_node *n) {
    int32_t i;
    for (i = 0; i < n->nsteps; ++i)
        if (n->steps[i].prim) dnnl_primitive_destroy(n->steps[i].prim);
    for (i = 0; i < n->nmems; ++i) dnnl_memory_destroy(n->mems[i]);
    memset(n, 0, sizeof(*n));
}

/* The node's state, emptied: prepare runs again after every shape change. */
static mmd__dnnl_node *mmd__dnnl_node_reset(mmd_kernel_ctx *c, int32_t op) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    mmd__dnnl_node *n = &h->nodes[c->node_index];
    mmd__dnnl_release(n);
    n->op = op;
    return n;
}

/* A plain row-major descriptor, the runtime's own layout. */
static dnnl_status_t mmd__dnnl_md(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims) {
    dnnl_dims_t d, s;
    int64_t stride = 1;
    int32_t i;
    for (i = rank - 1; i >= 0; --i) {
        d[i] = dims[i];
        s[i] = stride;
        stride *= dims[i] > 1 ? dims[i] : 1;
    }
    return dnnl_memory_desc_init_by_strides(md, rank, d, dnnl_f32, s);
}

/* Appends a step running prim (owned by the node from here on). */
static mmd__dnnl_step *mmd__dnnl_step_add(mmd__dnnl_node *n, dnnl_primitive_t prim) {
    mmd__dnnl_step *s = &n->steps[n->nsteps++];
    s->prim = prim;
    return s;
}

/* Adds argument `arg` to step s: a memory of descriptor md bound to `from` (offset for
   MMD__DNNL_SCRATCH), with data when it is fixed now. */
static dnnl_status_t mmd__dnnl_arg(mmd__dnnl *h, mmd__dnnl_node *n, mmd__dnnl_step *s, int arg,
                                   const dnnl_memory_desc_t *md, int32_t from, size_t offset, void *data) {
    dnnl_memory_t mem;
    dnnl_status_t st;
    if (n->nmems == MMD__DNNL_MEMS || s->nargs == MMD__DNNL_ARGS) return dnnl_out_of_memory;
    st = dnnl_memory_create(&mem, md, h->engine, data ? data : DNNL_MEMORY_NONE);
    if (st != dnnl_success) return st;
    n->mems[n->nmems++] = mem;
    s->args[s->nargs].arg = arg;
    s->args[s->nargs].memory = mem;
    s->offset[s->nargs] = offset;
    s->from[s->nargs++] = from;
    return dnnl_success;
}

/* The primitive of an op descriptor (attr may be NULL) and its descriptor, which the caller
   destroys (mmd__dnnl_done does). */
static dnnl_status_t mmd__dnnl_primitive(mmd__dnnl *h, const_dnnl_op_desc_t desc, const_dnnl_primitive_attr_t attr,
                                         dnnl_primitive_desc_t *pd, dnnl_primitive_t *prim) {
    dnnl_status_t st = dnnl_primitive_desc_create(pd, desc, attr, h->engine, NULL);
    *prim = NULL;
    if (st != dnnl_success) {
        *pd = NULL;
        return st;
    }
    return dnnl_primitive_create(prim, *pd);
}

/* The reorder from one layout to another as a primitive. */
static dnnl_status_t mmd__dnnl_reorder(mmd__dnnl *h, const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                                       dnnl_primitive_t *prim) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, from, h->engine, to, h->engine, NULL);
    *prim = NULL;
    if (st == dnnl_success) st = dnnl_primitive_create(prim, pd);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return st;
}

/* Binds constant weights to step s in the primitive's preferred layout: reordered once into
   memory the backend owns, or read in place when the plain layout is the preferred one. */
static dnnl_status_t mmd__dnnl_weights(mmd__dnnl *h, mmd__dnnl_node *n, mmd__dnnl_step *s,
                                       const_dnnl_primitive_desc_t pd, const dnnl_memory_desc_t *user,
                                       const void *data) {
    const dnnl_memory_desc_t *want = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_memory_t src = NULL;
    dnnl_primitive_t reorder = NULL;
    dnnl_exec_arg_t args[2];
    dnnl_status_t st;
    if (!want) return dnnl_runtime_error;
    if (dnnl_memory_desc_equal(user, want))
        return mmd__dnnl_arg(h, n, s, DNNL_ARG_WEIGHTS, user, MMD__DNNL_OWNED, 0, (void *)(uintptr_t)data);
    st = dnnl_memory_create(&src, user, h->engine, (void *)(uintptr_t)data);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_WEIGHTS, want, MMD__DNNL_OWNED, 0, DNNL_MEMORY_ALLOCATE);
    if (st == dnnl_success) st = mmd__dnnl_reorder(h, user, want, &reorder);
    if (st == dnnl_success) {
        args[0].arg = DNNL_ARG_FROM;
        args[0].memory = src;
        args[1].arg = DNNL_ARG_TO;
        args[1].memory = s->args[s->nargs - 1].memory;
        st = dnnl_primitive_execute(reorder, h->stream, 2, args);
    }
    if (st == dnnl_success) st = dnnl_stream_wait(h->stream);
    if (reorder) dnnl_primitive_destroy(reorder);
    if (src) dnnl_memory_destroy(src);
    return st;
}

#define MMD__DNNL_ALIGN(x) (((x) + 63u) & ~(size_t)63u)

/* ==== >>onednn layouts ==== */
/* oneDNN's fast convolutions read and write channels-last (NHWC) tensors, the runtime keeps
   NCHW. Converting around every conv costs more than the convs in a mobile network, so tensors
   that only this backend's nodes touch stay channels-last (mmd__bk_layouts in
   mmd_backend_util.h decides which, from the claims): convs choose each side freely,
   element-wise, pool, batch norm and Add/Mul nodes keep their inputs' layout, and
   GlobalAveragePool reads either and writes plain. */
static int32_t mmd__dnnl_kind(const void *handle, const mmd_node *n, int32_t *nin) {
    const mmd__dnnl *h = (const mmd__dnnl *)handle;
    int32_t op;
    if (n->backend != handle) return MMD__BK_PLAIN;
    op = (int32_t)(n->kernel - h->kernels);
    *nin = op == MMD__DNNL_ADD || op == MMD__DNNL_MUL ? 2 : 1;
    if (op == MMD__DNNL_CONV) return MMD__BK_CONV;
    if (op == MMD__DNNL_GAP) return MMD__BK_SINK;
    if (op == MMD__DNNL_MATMUL || op == MMD__DNNL_GEMM) return MMD__BK_PLAIN;
    return MMD__BK_SAME;
}

/* 1 when tensor t is held channels-last. */
static int32_t mmd__dnnl_is_cl(const mmd__dnnl *h, const mmd_tensor *t) {
    return mmd__bk_is_cl(&h->layout, h->model, t);
}

/* The descriptor of tensor t as it is held: plain row-major, or channels-last (N, spatial...,
   C in memory, for ranks 3 to 5). */
static dnnl_status_t mmd__dnnl_md_cl(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims) {
    dnnl_dims_t d, s;
    int64_t stride;
    int32_t i;
    if (rank < 3 || rank > 5) return dnnl_unimplemented;
    for (i = 0; i < rank; ++i) d[i] = dims[i];
    s[1] = 1;
    stride = dims[1] > 1 ? dims[1] : 1;
    for (i = rank - 1; i >= 2; --i) {
        s[i] = stride;
        stride *= dims[i] > 1 ? dims[i] : 1;
    }
    s[0] = stride;
    return dnnl_memory_desc_init_by_strides(md, rank, d, dnnl_f32, s);
}

static dnnl_status_t mmd__dnnl_tensor_md(const mmd__dnnl *h, dnnl_memory_desc_t *md, const mmd_tensor *t) {
    return mmd__dnnl_is_cl(h, t) ? mmd__dnnl_md_cl(md, t->rank, t->dims) : mmd__dnnl_md(md, t->rank, t->dims);
}

/* The session's thread count for the primitives this thread makes and runs (see THREADS). */
static void mmd__dnnl_threads(const mmd_kernel_ctx *c) {
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
    int threads = c->threads > 1 ? (int)c->threads : 1;
    if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
#else
    (void)c;
#endif
}

/* Every prepare's start: the reference prepare on the head of the op data, the layouts once,
   and the node's state emptied. */
static mmd_status mmd__dnnl_begin(mmd_kernel_ctx *c, int32_t op, mmd__dnnl_node **n) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    mmd_status st = h->ref[op]->prepare(c);
    if (st != MMD_OK) return st;
    mmd__dnnl_threads(c);
    if (mmd__bk_layouts(&h->layout, h->model, h, mmd__dnnl_kind) != MMD_OK)
        return mmd_kernel_fail(c, MMD_ERR_OUT_OF_MEMORY, "onednn: out of memory");
    *n = mmd__dnnl_node_reset(c, op);
    return MMD_OK;
}

/* The end of every prepare: steps made, or, when oneDNN refused the configuration, the
   reference eval with the scratch the reference prepare asked for. That eval reads and writes
   plain tensors, so a node with a channels-last tensor refuses with MMD_ERR_UNSUPPORTED: the
   runtime then gives it to the reference kernels and the layouts are derived again. */
static mmd_status mmd__dnnl_done(mmd_kernel_ctx *c, mmd__dnnl_node *n, dnnl_status_t st, dnnl_primitive_desc_t pd,
                                 size_t scratch) {
    const mmd__dnnl *h = (const mmd__dnnl *)c->backend;
    int32_t op = n->op, i, cl = mmd__dnnl_is_cl(h, c->outputs[0]);
    if (pd) dnnl_primitive_desc_destroy(pd);
    for (i = 0; i < c->input_count; ++i) cl |= mmd__dnnl_is_cl(h, c->inputs[i]);
    if (st != dnnl_success || n->nsteps == 0) {
        mmd__dnnl_release(n);
        n->op = op;
        if (cl)
            return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED,
                                   "onednn: no primitive for this configuration (status %d), and its tensors are "
                                   "kept in oneDNN's channels-last layout", (int)st);
        return MMD_OK;
    }
    c->scratch_size = scratch;
    return MMD_OK;
}

/* ==== >>onednn eval ==== */
static mmd_status mmd__dnnl_eval(mmd_kernel_ctx *c) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    mmd__dnnl_node *n = &h->nodes[c->node_index];
    unsigned char *scratch = (unsigned char *)MMD__DNNL_ALIGN((uintptr_t)c->scratch);
    int32_t i, j;
    if (n->nsteps == 0) return h->ref[n->op]->eval(c);
    mmd__dnnl_threads(c);
    for (j = 0; j < n->nsteps; ++j) {
        mmd__dnnl_step *s = &n->steps[j];
        for (i = 0; i < s->nargs; ++i) {
            int32_t f = s->from[i];
            void *data;
            if (f == MMD__DNNL_OWNED) continue;
            data = f == MMD__DNNL_SCRATCH ? (void *)(scratch + s->offset[i])
                   : f >= 0              ? c->inputs[f]->data
                                         : c->outputs[MMD__DNNL_OUTPUT(f)]->data;
            dnnl_memory_set_data_handle(s->args[i].memory, data);
        }
        if (dnnl_primitive_execute(s->prim, h->stream, s->nargs, s->args) != dnnl_success)
            return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "onednn: a primitive failed to execute");
    }
    if (dnnl_stream_wait(h->stream) != dnnl_success)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "onednn: the stream failed");
    return MMD_OK;
}

/* A single-primitive node whose arguments all live in the runtime's plain tensors. */
static dnnl_status_t mmd__dnnl_plain_step(mmd__dnnl *h, mmd__dnnl_node *n, const_dnnl_op_desc_t desc,
                                          const_dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd,
                                          mmd__dnnl_step **s) {
    dnnl_primitive_t prim;
    dnnl_status_t st = mmd__dnnl_primitive(h, desc, attr, pd, &prim);
    if (st != dnnl_success) {
        if (prim) dnnl_primitive_destroy(prim);
        return st;
    }
    *s = mmd__dnnl_step_add(n, prim);
    return dnnl_success;
}

/* ==== >>onednn conv ==== */
/* Source and destination are left to oneDNN's choice (format any): its fast kernels want a
   channel-blocked layout, so a conv that picks one is framed by two reorders between the
   runtime's plain tensors and two blocked buffers in scratch. That costs two passes over the
   activations; keeping tensors blocked between oneDNN nodes would need layouts in the plan. */
static mmd_status mmd__dnnl_conv_prepare(mmd_kernel_ctx *c) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    const mmd_tensor *x = c->inputs[0], *w = c->inputs[1], *bias, *y;
    mmd__dnnl_node *n;
    mmd__bk_window win;
    dnnl_memory_desc_t src, wuser, wany, bmd, dst, src_any, dst_any;
    const dnnl_memory_desc_t *src_want = NULL, *dst_want = NULL;
    dnnl_convolution_desc_t cd;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t conv = NULL, prim;
    mmd__dnnl_step *s;
    dnnl_dims_t strides, dil, pl, pr, wdims;
    size_t src_bytes = 0, dst_bytes = 0;
    int64_t group;
    int32_t sp, i, wrank, src_blocked = 0, dst_blocked = 0;
    dnnl_status_t st;
    mmd_status ms = mmd__dnnl_begin(c, MMD__DNNL_CONV, &n);
    if (ms != MMD_OK) return ms;
    bias = c->input_count > 2 ? c->inputs[2] : NULL;
    y = c->outputs[0];
    sp = x->rank - 2;
    if ((ms = mmd_attr_get_int(c, "group", 1, &group)) != MMD_OK) return ms;
    if ((ms = mmd__bk_window_read(c, sp, x->dims + 2, w->dims + 2, y->dims + 2, &win)) != MMD_OK) return ms;
    if (!mmd_tensor_is_const(w) || mmd_tensor_numel(y) == 0 || mmd_tensor_numel(x) == 0)
        return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    for (i = 0; i < sp; ++i) {
        strides[i] = win.s[i];
        dil[i] = win.d[i] - 1; /* oneDNN counts the gaps between taps */
        pl[i] = win.pad[i];
        pr[i] = win.pad_end[i];
    }
    /* Grouped weights [g, out/g, in/g, k...] are the ONNX weight with its first axis split. */
    wrank = w->rank;
    if (group > 1) {
        wdims[0] = group;
        wdims[1] = w->dims[0] / group;
        for (i = 1; i < w->rank; ++i) wdims[i + 1] = w->dims[i];
        wrank = w->rank + 1;
    } else {
        for (i = 0; i < w->rank; ++i) wdims[i] = w->dims[i];
    }
    /* A channels-last side is fixed; a plain one is left to oneDNN and reordered if need be. */
    st = mmd__dnnl_tensor_md(h, &src, x);
    if (st == dnnl_success) st = mmd__dnnl_tensor_md(h, &dst, y);
    src_any = src;
    dst_any = dst;
    if (st == dnnl_success && !mmd__dnnl_is_cl(h, x))
        st = dnnl_memory_desc_init_by_tag(&src_any, src.ndims, src.dims, dnnl_f32, dnnl_format_tag_any);
    if (st == dnnl_success && !mmd__dnnl_is_cl(h, y))
        st = dnnl_memory_desc_init_by_tag(&dst_any, dst.ndims, dst.dims, dnnl_f32, dnnl_format_tag_any);
    if (st == dnnl_success) st = mmd__dnnl_md(&wuser, wrank, wdims);
    if (st == dnnl_success) st = dnnl_memory_desc_init_by_tag(&wany, wrank, wuser.dims, dnnl_f32, dnnl_format_tag_any);
    if (st == dnnl_success && bias) st = mmd__dnnl_md(&bmd, 1, bias->dims);
    if (st == dnnl_success)
        st = dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                                        &src_any, &wany, bias ? &bmd : NULL, &dst_any, strides, dil,
                                                        pl, pr);
    if (st == dnnl_success) st = mmd__dnnl_primitive(h, &cd, NULL, &pd, &conv);
    if (st == dnnl_success) {
        src_want = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        dst_want = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        if (!src_want || !dst_want) st = dnnl_runtime_error;
    }
    if (st == dnnl_success) {
        src_blocked = !dnnl_memory_desc_equal(&src, src_want);
        dst_blocked = !dnnl_memory_desc_equal(&dst, dst_want);
        src_bytes = src_blocked ? MMD__DNNL_ALIGN(dnnl_memory_desc_get_size(src_want)) : 0;
        dst_bytes = dst_blocked ? MMD__DNNL_ALIGN(dnnl_memory_desc_get_size(dst_want)) : 0;
    }
    if (st == dnnl_success && src_blocked && (st = mmd__dnnl_reorder(h, &src, src_want, &prim)) == dnnl_success) {
        s = mmd__dnnl_step_add(n, prim);
        st = mmd__dnnl_arg(h, n, s, DNNL_ARG_FROM, &src, 0, 0, NULL);
        if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_TO, src_want, MMD__DNNL_SCRATCH, 0, NULL);
    }
    if (st == dnnl_success) {
        s = mmd__dnnl_step_add(n, conv);
        conv = NULL;
        st = src_blocked ? mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC, src_want, MMD__DNNL_SCRATCH, 0, NULL)
                         : mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC, &src, 0, 0, NULL);
        if (st == dnnl_success) st = mmd__dnnl_weights(h, n, s, pd, &wuser, w->data);
        if (st == dnnl_success && bias) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_BIAS, &bmd, 2, 0, NULL);
        if (st == dnnl_success)
            st = dst_blocked ? mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, dst_want, MMD__DNNL_SCRATCH, src_bytes, NULL)
                             : mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, &dst, MMD__DNNL_OUTPUT(0), 0, NULL);
    }
    if (st == dnnl_success && dst_blocked && (st = mmd__dnnl_reorder(h, dst_want, &dst, &prim)) == dnnl_success) {
        s = mmd__dnnl_step_add(n, prim);
        st = mmd__dnnl_arg(h, n, s, DNNL_ARG_FROM, dst_want, MMD__DNNL_SCRATCH, src_bytes, NULL);
        if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_TO, &dst, MMD__DNNL_OUTPUT(0), 0, NULL);
    }
    if (conv) dnnl_primitive_destroy(conv);
    return mmd__dnnl_done(c, n, st, pd, src_bytes + dst_bytes ? src_bytes + dst_bytes + 64 : 0);
}

/* ==== >>onednn pools ==== */
/* MaxPool, AveragePool and GlobalAveragePool. ceil_mode's extra windows become extra end
   padding, which oneDNN's max and exclude-padding average ignore as ONNX does; an average
   that counts padding would count those too, so it runs on the reference kernel. */
static mmd_status mmd__dnnl_pool_prepare(mmd_kernel_ctx *c, int32_t op) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    const mmd_tensor *x = c->inputs[0], *y;
    mmd__dnnl_node *n;
    mmd__dnnl_step *s = NULL;
    mmd__bk_window win;
    dnnl_memory_desc_t src, dst;
    dnnl_pooling_v2_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_dims_t strides, kernel, dil, pl, pr;
    dnnl_alg_kind_t alg = dnnl_pooling_max;
    int64_t include_pad = 0, nk = 0;
    const int64_t *kshape = NULL;
    int32_t sp, i, extended = 0;
    dnnl_status_t st;
    mmd_status ms = mmd__dnnl_begin(c, op, &n);
    if (ms != MMD_OK) return ms;
    y = c->outputs[0];
    sp = x->rank - 2;
    if (sp < 1 || sp > 3 || mmd_tensor_numel(y) == 0) return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    if (op == MMD__DNNL_GAP) {
        alg = dnnl_pooling_avg_exclude_padding;
        for (i = 0; i < sp; ++i) {
            strides[i] = kernel[i] = x->dims[2 + i];
            dil[i] = pl[i] = pr[i] = 0;
        }
    } else {
        if ((ms = mmd_attr_get_ints(c, "kernel_shape", &kshape, &nk)) != MMD_OK) return ms;
        if ((ms = mmd_attr_get_int(c, "count_include_pad", 0, &include_pad)) != MMD_OK) return ms;
        if ((ms = mmd__bk_window_read(c, sp, x->dims + 2, kshape, y->dims + 2, &win)) != MMD_OK) return ms;
        if (op == MMD__DNNL_AVGPOOL)
            alg = include_pad ? dnnl_pooling_avg_include_padding : dnnl_pooling_avg_exclude_padding;
        for (i = 0; i < sp; ++i) {
            int64_t span = (y->dims[2 + i] - 1) * win.s[i] + (win.k[i] - 1) * win.d[i] + 1;
            int64_t need = span - x->dims[2 + i] - win.pad[i];
            strides[i] = win.s[i];
            kernel[i] = win.k[i];
            dil[i] = win.d[i] - 1;
            pl[i] = win.pad[i];
            pr[i] = need > win.pad_end[i] ? need : win.pad_end[i];
            extended |= need > win.pad_end[i];
        }
        if (extended && include_pad && op == MMD__DNNL_AVGPOOL)
            return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    }
    /* Input and output share a layout; GlobalAveragePool's 1x1 output is the same bytes in
       both, so it is described in the input's. */
    st = mmd__dnnl_tensor_md(h, &src, x);
    if (st == dnnl_success)
        st = op == MMD__DNNL_GAP && mmd__dnnl_is_cl(h, x) ? mmd__dnnl_md_cl(&dst, y->rank, y->dims)
                                                          : mmd__dnnl_tensor_md(h, &dst, y);
    if (st == dnnl_success)
        st = dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, &src, &dst, strides, kernel,
                                               dil, pl, pr);
    if (st == dnnl_success) st = mmd__dnnl_plain_step(h, n, &desc, NULL, &pd, &s);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC, &src, 0, 0, NULL);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, &dst, MMD__DNNL_OUTPUT(0), 0, NULL);
    return mmd__dnnl_done(c, n, st, pd, 0);
}

static mmd_status mmd__dnnl_maxpool_prepare(mmd_kernel_ctx *c) { return mmd__dnnl_pool_prepare(c, MMD__DNNL_MAXPOOL); }
static mmd_status mmd__dnnl_avgpool_prepare(mmd_kernel_ctx *c) { return mmd__dnnl_pool_prepare(c, MMD__DNNL_AVGPOOL); }
static mmd_status mmd__dnnl_gap_prepare(mmd_kernel_ctx *c) { return mmd__dnnl_pool_prepare(c, MMD__DNNL_GAP); }

/* ==== >>onednn batchnorm ==== */
static mmd_status mmd__dnnl_bn_prepare(mmd_kernel_ctx *c) {
    static const int args[4] = {DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE};
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    const mmd_tensor *x = c->inputs[0];
    mmd__dnnl_node *n;
    mmd__dnnl_step *s = NULL;
    dnnl_memory_desc_t data, vec;
    dnnl_batch_normalization_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    float eps;
    int32_t i;
    dnnl_status_t st;
    mmd_status ms = mmd__dnnl_begin(c, MMD__DNNL_BN, &n);
    if (ms != MMD_OK) return ms;
    if ((ms = mmd_attr_get_float(c, "epsilon", 1e-5f, &eps)) != MMD_OK) return ms;
    if (x->rank < 2 || x->rank > 5 || mmd_tensor_numel(x) == 0 || c->output_count != 1)
        return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    st = mmd__dnnl_tensor_md(h, &data, x);
    if (st == dnnl_success) st = mmd__dnnl_md(&vec, 1, x->dims + 1);
    if (st == dnnl_success)
        st = dnnl_batch_normalization_forward_desc_init(&desc, dnnl_forward_inference, &data, eps,
                                                        dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift);
    if (st == dnnl_success) st = mmd__dnnl_plain_step(h, n, &desc, NULL, &pd, &s);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC, &data, 0, 0, NULL);
    for (i = 0; i < 4 && st == dnnl_success; ++i) st = mmd__dnnl_arg(h, n, s, args[i], &vec, 1 + i, 0, NULL);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, &data, MMD__DNNL_OUTPUT(0), 0, NULL);
    return mmd__dnnl_done(c, n, st, pd, 0);
}

/* ==== >>onednn element-wise ==== */
/* One prepare for every element-wise op: the tensor is one flat run of numel floats. */
static mmd_status mmd__dnnl_eltwise_prepare(mmd_kernel_ctx *c) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    const char *type = c->node->op_type;
    mmd__dnnl_node *n;
    mmd__dnnl_step *s = NULL;
    dnnl_memory_desc_t data;
    dnnl_eltwise_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_alg_kind_t alg;
    float alpha = 0.0f, beta = 0.0f;
    int64_t numel;
    int32_t op, i;
    dnnl_status_t st;
    mmd_status ms;
    for (op = MMD__DNNL_RELU; op < MMD__DNNL_SOFTPLUS; ++op)
        if (strcmp(type, mmd__dnnl_op_names[op]) == 0) break;
    if ((ms = mmd__dnnl_begin(c, op, &n)) != MMD_OK) return ms;
    switch (op) {
    case MMD__DNNL_RELU: alg = dnnl_eltwise_relu; break;
    case MMD__DNNL_LEAKY: alg = dnnl_eltwise_relu; ms = mmd_attr_get_float(c, "alpha", 0.01f, &alpha); break;
    case MMD__DNNL_SIGMOID: alg = dnnl_eltwise_logistic; break;
    case MMD__DNNL_TANH: alg = dnnl_eltwise_tanh; break;
    case MMD__DNNL_HSWISH: alg = dnnl_eltwise_hardswish; break;
    case MMD__DNNL_SQRT: alg = dnnl_eltwise_sqrt; break;
    case MMD__DNNL_EXP: alg = dnnl_eltwise_exp; break;
    case MMD__DNNL_LOG: alg = dnnl_eltwise_log; break;
    case MMD__DNNL_ABS: alg = dnnl_eltwise_abs; break;
    case MMD__DNNL_ELU: alg = dnnl_eltwise_elu; ms = mmd_attr_get_float(c, "alpha", 1.0f, &alpha); break;
    case MMD__DNNL_SOFTPLUS: alg = dnnl_eltwise_soft_relu; break;
    default:
        /* Clip: attributes before opset 11, optional constant inputs from 11. */
        alg = dnnl_eltwise_clip_v2;
        alpha = -FLT_MAX;
        beta = FLT_MAX;
        if (c->opset < 11) {
            ms = mmd_attr_get_float(c, "min", -FLT_MAX, &alpha);
            if (ms == MMD_OK) ms = mmd_attr_get_float(c, "max", FLT_MAX, &beta);
        }
        for (i = 1; i < c->input_count && i < 3 && c->opset >= 11; ++i) {
            const mmd_tensor *t = c->inputs[i];
            if (!t) continue;
            if (!mmd_tensor_is_const(t)) return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
            if (i == 1) alpha = *(const float *)t->data;
            else beta = *(const float *)t->data;
        }
        break;
    }
    if (ms != MMD_OK) return ms;
    numel = mmd_tensor_numel(c->inputs[0]);
    if (numel == 0) return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    st = mmd__dnnl_md(&data, 1, &numel);
    if (st == dnnl_success) st = dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, alg, &data, alpha, beta);
    if (st == dnnl_success) st = mmd__dnnl_plain_step(h, n, &desc, NULL, &pd, &s);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC, &data, 0, 0, NULL);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, &data, MMD__DNNL_OUTPUT(0), 0, NULL);
    return mmd__dnnl_done(c, n, st, pd, 0);
}

/* ==== >>onednn binary ==== */
/* Add and Mul. Equal shapes (the residual Add of a network) are one flat run whatever the
   layout, as the layouts of both inputs and the output agree; other shapes broadcast the second
   operand (the first, swapped, since both ops commute) in plain layout. */
static mmd_status mmd__dnnl_binary_prepare(mmd_kernel_ctx *c) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    int32_t op = strcmp(c->node->op_type, "Add") == 0 ? MMD__DNNL_ADD : MMD__DNNL_MUL;
    const mmd_tensor *a, *b, *y;
    mmd__dnnl_node *n;
    mmd__dnnl_step *s = NULL;
    dnnl_memory_desc_t amd, bmd, ymd;
    dnnl_binary_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_dims_t bd;
    int64_t numel;
    int32_t i, ia = 0, ib = 1, flat;
    dnnl_status_t st;
    mmd_status ms = mmd__dnnl_begin(c, op, &n);
    if (ms != MMD_OK) return ms;
    a = c->inputs[0];
    b = c->inputs[1];
    y = c->outputs[0];
    numel = mmd_tensor_numel(y);
    flat = mmd_tensor_numel(a) == numel && mmd_tensor_numel(b) == numel;
    if (numel == 0 || y->rank > DNNL_MAX_NDIMS || (!flat && mmd_tensor_numel(a) != numel && mmd_tensor_numel(b) != numel))
        return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    if (!flat && mmd_tensor_numel(a) != numel) {
        ia = 1;
        ib = 0;
    }
    if (flat) {
        st = mmd__dnnl_md(&amd, 1, &numel);
        bmd = amd;
        ymd = amd;
    } else {
        /* The broadcast operand, right-aligned to the output's rank with leading 1s. The full
           operand and the output share one layout (mmd__bk_layouts); a channels-last
           broadcast operand (an SE block's [N, C, 1, 1] scale) is described channels-last. */
        const mmd_tensor *t = c->inputs[ib];
        for (i = 0; i < y->rank; ++i) bd[i] = i < y->rank - t->rank ? 1 : t->dims[i - (y->rank - t->rank)];
        st = mmd__dnnl_tensor_md(h, &amd, y);
        if (st == dnnl_success)
            st = !mmd__dnnl_is_cl(h, t)    ? mmd__dnnl_md(&bmd, y->rank, bd)
                 : t->rank == y->rank ? mmd__dnnl_md_cl(&bmd, y->rank, bd)
                                      : dnnl_unimplemented;
        ymd = amd;
    }
    if (st == dnnl_success)
        st = dnnl_binary_desc_init(&desc, op == MMD__DNNL_ADD ? dnnl_binary_add : dnnl_binary_mul, &amd, &bmd, &ymd);
    if (st == dnnl_success) st = mmd__dnnl_plain_step(h, n, &desc, NULL, &pd, &s);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC_0, &amd, ia, 0, NULL);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC_1, &bmd, ib, 0, NULL);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, &ymd, MMD__DNNL_OUTPUT(0), 0, NULL);
    return mmd__dnnl_done(c, n, st, pd, 0);
}

/* ==== >>onednn matrix products ==== */
/* MatMul: both operands padded with leading 1s to one rank (a 1-D A is a row, a 1-D B a
   column); oneDNN broadcasts batch axes of size 1 as numpy does. */
static mmd_status mmd__dnnl_matmul_prepare(mmd_kernel_ctx *c) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    const mmd_tensor *a = c->inputs[0], *b = c->inputs[1];
    mmd__dnnl_node *n;
    mmd__dnnl_step *s = NULL;
    dnnl_memory_desc_t amd, bmd, bany, ymd;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_dims_t ad, bd, yd;
    int32_t r, i, prepack;
    dnnl_status_t st;
    mmd_status ms = mmd__dnnl_begin(c, MMD__DNNL_MATMUL, &n);
    if (ms != MMD_OK) return ms;
    r = a->rank > b->rank ? a->rank : b->rank;
    if (r < 2) r = 2;
    if (r > DNNL_MAX_NDIMS) return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    for (i = 0; i < r; ++i) ad[i] = bd[i] = 1;
    if (a->rank == 1) ad[r - 1] = a->dims[0];
    else
        for (i = 0; i < a->rank; ++i) ad[r - a->rank + i] = a->dims[i];
    if (b->rank == 1) bd[r - 2] = b->dims[0];
    else
        for (i = 0; i < b->rank; ++i) bd[r - b->rank + i] = b->dims[i];
    for (i = 0; i < r - 2; ++i) yd[i] = ad[i] > bd[i] ? ad[i] : bd[i];
    yd[r - 2] = ad[r - 2];
    yd[r - 1] = bd[r - 1];
    if (mmd_tensor_numel(a) == 0 || mmd_tensor_numel(b) == 0 || mmd_tensor_numel(c->outputs[0]) == 0)
        return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    /* A constant matrix B is reordered once into the layout the primitive prefers. */
    prepack = mmd_tensor_is_const(b) && b->rank == 2;
    st = mmd__dnnl_md(&amd, r, ad);
    if (st == dnnl_success) st = mmd__dnnl_md(&bmd, r, bd);
    if (st == dnnl_success) st = mmd__dnnl_md(&ymd, r, yd);
    if (st == dnnl_success && prepack) st = dnnl_memory_desc_init_by_tag(&bany, r, bd, dnnl_f32, dnnl_format_tag_any);
    if (st == dnnl_success) st = dnnl_matmul_desc_init(&desc, &amd, prepack ? &bany : &bmd, NULL, &ymd);
    if (st == dnnl_success) st = mmd__dnnl_plain_step(h, n, &desc, NULL, &pd, &s);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC, &amd, 0, 0, NULL);
    if (st == dnnl_success && prepack) st = mmd__dnnl_weights(h, n, s, pd, &bmd, b->data);
    if (st == dnnl_success && !prepack) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_WEIGHTS, &bmd, 1, 0, NULL);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, &ymd, MMD__DNNL_OUTPUT(0), 0, NULL);
    return mmd__dnnl_done(c, n, st, pd, 0);
}

/* Gemm as a 2-D matmul: the transposes are strides, alpha an output scale, C the bias (any
   shape broadcasting to Y) when beta is 1. oneDNN scales after adding the bias, so alpha other
   than 1 with a C, or beta other than 1, runs on the reference kernel. */
static mmd_status mmd__dnnl_gemm_prepare(mmd_kernel_ctx *c) {
    mmd__dnnl *h = (mmd__dnnl *)c->backend;
    const mmd_tensor *a = c->inputs[0], *b = c->inputs[1], *cm, *y;
    mmd__dnnl_node *n;
    mmd__dnnl_step *s = NULL;
    dnnl_memory_desc_t amd, bmd, bany, cmd, ymd;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_dims_t dims, strides;
    int64_t ta, tb, m, k, nn, cd[2];
    float alpha, beta;
    int32_t prepack;
    dnnl_status_t st;
    mmd_status ms = mmd__dnnl_begin(c, MMD__DNNL_GEMM, &n);
    if (ms != MMD_OK) return ms;
    if ((ms = mmd_attr_get_int(c, "transA", 0, &ta)) == MMD_OK &&
        (ms = mmd_attr_get_int(c, "transB", 0, &tb)) == MMD_OK &&
        (ms = mmd_attr_get_float(c, "alpha", 1.0f, &alpha)) == MMD_OK)
        ms = mmd_attr_get_float(c, "beta", 1.0f, &beta);
    if (ms != MMD_OK) return ms;
    cm = c->input_count > 2 ? c->inputs[2] : NULL;
    y = c->outputs[0];
    m = y->dims[0];
    nn = y->dims[1];
    k = a->dims[ta ? 0 : 1];
    if ((cm && (beta != 1.0f || alpha != 1.0f)) || m == 0 || nn == 0 || k == 0)
        return mmd__dnnl_done(c, n, dnnl_unimplemented, NULL, 0);
    dims[0] = m;
    dims[1] = k;
    strides[0] = ta ? 1 : k;
    strides[1] = ta ? m : 1;
    st = dnnl_memory_desc_init_by_strides(&amd, 2, dims, dnnl_f32, strides);
    dims[0] = k;
    dims[1] = nn;
    strides[0] = tb ? 1 : nn;
    strides[1] = tb ? k : 1;
    if (st == dnnl_success) st = dnnl_memory_desc_init_by_strides(&bmd, 2, dims, dnnl_f32, strides);
    prepack = mmd_tensor_is_const(b);
    if (st == dnnl_success && prepack) st = dnnl_memory_desc_init_by_tag(&bany, 2, dims, dnnl_f32, dnnl_format_tag_any);
    if (st == dnnl_success) st = mmd__dnnl_md(&ymd, 2, y->dims);
    if (st == dnnl_success && cm) {
        cd[0] = cm->rank == 2 ? cm->dims[0] : 1;
        cd[1] = cm->rank >= 1 ? cm->dims[cm->rank - 1] : 1;
        st = mmd__dnnl_md(&cmd, 2, cd);
    }
    if (st == dnnl_success && alpha != 1.0f) {
        st = dnnl_primitive_attr_create(&attr);
        if (st == dnnl_success) st = dnnl_primitive_attr_set_output_scales(attr, 1, 0, &alpha);
    }
    if (st == dnnl_success) st = dnnl_matmul_desc_init(&desc, &amd, prepack ? &bany : &bmd, cm ? &cmd : NULL, &ymd);
    if (st == dnnl_success) st = mmd__dnnl_plain_step(h, n, &desc, attr, &pd, &s);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_SRC, &amd, 0, 0, NULL);
    if (st == dnnl_success && prepack) st = mmd__dnnl_weights(h, n, s, pd, &bmd, b->data);
    if (st == dnnl_success && !prepack) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_WEIGHTS, &bmd, 1, 0, NULL);
    if (st == dnnl_success && cm) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_BIAS, &cmd, 2, 0, NULL);
    if (st == dnnl_success) st = mmd__dnnl_arg(h, n, s, DNNL_ARG_DST, &ymd, MMD__DNNL_OUTPUT(0), 0, NULL);
    return mmd__dnnl_done(c, n, st, pd, 0);
}

/* ==== >>onednn backend ==== */
static int32_t mmd__dnnl_available(void *user) {
    (void)user;
    return dnnl_engine_get_count(dnnl_cpu) > 0;
}

static const char *mmd__dnnl_isa(void) {
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "SSE4.1";
    case dnnl_cpu_isa_avx: return "AVX";
    case dnnl_cpu_isa_avx2: return "AVX2";
    case dnnl_cpu_isa_avx2_vnni: return "AVX2 VNNI";
    case dnnl_cpu_isa_avx512_core: return "AVX-512";
    case dnnl_cpu_isa_avx512_core_vnni: return "AVX-512 VNNI";
    case dnnl_cpu_isa_avx512_core_bf16: return "AVX-512 BF16";
    case dnnl_cpu_isa_avx512_core_amx: return "AVX-512 AMX";
    default: return "other";
    }
}

static void mmd__dnnl_version(void *user, char *buf, size_t cap) {
    const dnnl_version_t *v = dnnl_version();
    (void)user;
    snprintf(buf, cap, "oneDNN %d.%d.%d (%s CPU runtime)", v->major, v->minor, v->patch,
             v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : v->cpu_runtime == DNNL_RUNTIME_SEQ ? "sequential" : "threaded");
}

static mmd_status mmd__dnnl_check_env(void *user, char *buf, size_t cap) {
    (void)user;
    if (dnnl_engine_get_count(dnnl_cpu) == 0) {
        snprintf(buf, cap, "oneDNN finds no CPU engine");
        return MMD_ERR_UNSUPPORTED;
    }
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
    snprintf(buf, cap, "ISA %s, %d OpenMP thread%s now; sessions set mmd_options.threads", mmd__dnnl_isa(),
             omp_get_max_threads(), omp_get_max_threads() == 1 ? "" : "s");
#else
    snprintf(buf, cap, "ISA %s; threads: the library's own pool", mmd__dnnl_isa());
#endif
    return MMD_OK;
}

static void mmd__dnnl_destroy(void *user, void *handle) {
    mmd__dnnl *h = (mmd__dnnl *)handle;
    int32_t i;
    (void)user;
    if (!h) return;
    for (i = 0; h->nodes && i < h->node_count; ++i) mmd__dnnl_release(&h->nodes[i]);
    free(h->nodes);
    free(h->layout.cl);
    if (h->stream) dnnl_stream_destroy(h->stream);
    if (h->engine) dnnl_engine_destroy(h->engine);
    free(h);
}

/* Op op's prepare (every op evaluates through mmd__dnnl_eval). */
static mmd_kernel_fn mmd__dnnl_prepare_of(int32_t op) {
    switch (op) {
    case MMD__DNNL_CONV: return mmd__dnnl_conv_prepare;
    case MMD__DNNL_MAXPOOL: return mmd__dnnl_maxpool_prepare;
    case MMD__DNNL_AVGPOOL: return mmd__dnnl_avgpool_prepare;
    case MMD__DNNL_GAP: return mmd__dnnl_gap_prepare;
    case MMD__DNNL_BN: return mmd__dnnl_bn_prepare;
    case MMD__DNNL_ADD: case MMD__DNNL_MUL: return mmd__dnnl_binary_prepare;
    case MMD__DNNL_MATMUL: return mmd__dnnl_matmul_prepare;
    case MMD__DNNL_GEMM: return mmd__dnnl_gemm_prepare;
    default: return mmd__dnnl_eltwise_prepare;
    }
}

static void mmd__dnnl_op_fns(int32_t op, size_t *own, mmd_kernel_fn *prepare, mmd_kernel_fn *eval) {
    *own = 0;
    *prepare = mmd__dnnl_prepare_of(op);
    *eval = mmd__dnnl_eval;
}

static mmd_status mmd__dnnl_create(void *user, const mmd_backend_args *args, void **handle, mmd_error *err) {
    mmd__dnnl *h = (mmd__dnnl *)calloc(1, sizeof(mmd__dnnl));
    (void)user;
    if (!h) return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "onednn: out of memory");
    h->model = args->model;
    h->node_count = args->model->node_count;
    h->nodes = (mmd__dnnl_node *)calloc((size_t)h->node_count + 1, sizeof(mmd__dnnl_node));
    if (!h->nodes) {
        mmd__dnnl_destroy(NULL, h);
        return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "onednn: out of memory");
    }
    if (dnnl_engine_create(&h->engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&h->stream, h->engine, dnnl_stream_default_flags) != dnnl_success) {
        mmd__dnnl_destroy(NULL, h);
        return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "onednn: cannot create a CPU engine and stream");
    }
    h->rule_count =
        mmd__bk_table(args->model, mmd__dnnl_op_names, MMD__DNNL_OPS, mmd__dnnl_op_fns, h->ref, h->kernels, h->rules);
    *handle = h;
    return MMD_OK;
}

/* The rule table, plus what only the node can tell: MaxPool's Indices output has no primitive
   here, an AveragePool counting padding with ceil_mode would count ceil_mode's extra padding
   too, a Conv weight computed at run time cannot be reordered once, and a binary op must
   broadcast at most one operand. */
static const mmd_kernel *mmd__dnnl_claim(void *user, void *handle, const mmd_model *m, int32_t node) {
    const mmd__dnnl *h = (const mmd__dnnl *)handle;
    const mmd_node *n = &m->nodes[node];
    const mmd_kernel *k = mmd_backend_match(h->rules, (size_t)h->rule_count, m, node);
    (void)user;
    if (!k) return NULL;
    if (k == &h->kernels[MMD__DNNL_MAXPOOL] && n->output_count > 1 && n->outputs[1] >= 0) return NULL;
    if (k == &h->kernels[MMD__DNNL_AVGPOOL]) {
        const mmd_attr *ceil = mmd_node_attr(n, "ceil_mode"), *pad = mmd_node_attr(n, "count_include_pad");
        if (ceil && ceil->type == MMD_ATTR_INT && ceil->i && pad && pad->type == MMD_ATTR_INT && pad->i) return NULL;
    }
    if (k == &h->kernels[MMD__DNNL_CONV] &&
        (n->input_count < 2 || !n->in[1] ||
         (n->in[1]->kind != MMD_TENSOR_INITIALIZER && n->in[1]->kind != MMD_TENSOR_CONSTANT)))
        return NULL;
    /* A binary primitive broadcasts one operand: with the shapes known, both broadcast
       ([1, C, 1, W] + [1, 1, H, 1]) is declined. */
    if ((k == &h->kernels[MMD__DNNL_ADD] || k == &h->kernels[MMD__DNNL_MUL]) && n->input_count == 2 &&
        n->output_count == 1 && n->in[0] && n->in[1] && n->out[0] && n->out[0]->dtype) {
        int64_t numel = mmd_tensor_numel(n->out[0]);
        if (n->out[0]->rank > DNNL_MAX_NDIMS ||
            (mmd_tensor_numel(n->in[0]) != numel && mmd_tensor_numel(n->in[1]) != numel))
            return NULL;
    }
    return k;
}

MMD_API void mmd_onednn_backend(mmd_backend *b) {
    memset(b, 0, sizeof(*b));
    b->abi_version = MMD_BACKEND_ABI_VERSION;
    b->name = "onednn";
    b->is_available = mmd__dnnl_available;
    b->get_version = mmd__dnnl_version;
    b->check_env = mmd__dnnl_check_env;
    b->create = mmd__dnnl_create;
    b->destroy = mmd__dnnl_destroy;
    b->claim = mmd__dnnl_claim;
}

#else /* !MMD_HAVE_ONEDNN */

static int32_t mmd__dnnl_unavailable(void *user) {
    (void)user;
    return 0;
}

static mmd_status mmd__dnnl_check_env(void *user, char *buf, size_t cap) {
    (void)user;
    snprintf(buf, cap, "built without oneDNN (install libdnnl-dev and rebuild)");
    return MMD_ERR_UNSUPPORTED;
}

MMD_API void mmd_onednn_backend(mmd_backend *b) {
    memset(b, 0, sizeof(*b));
    b->abi_version = MMD_BACKEND_ABI_VERSION;
    b->name = "onednn";
    b->is_available = mmd__dnnl_unavailable;
    b->check_env = mmd__dnnl_check_env;
}

#endif /* MMD_HAVE_ONEDNN */
#endif /* MMD_ONEDNN_IMPLEMENTATION */

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
