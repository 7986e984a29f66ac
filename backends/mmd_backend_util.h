/* backends/mmd_backend_util.h - v0.1.0 - MIT licence (see mmdeploy.h)
   Helpers shared by the bundled backends (mmd_openblas.h, mmd_onednn.h, mmd_xnnpack.h); not
   needed by backends written elsewhere, which see only mmdeploy.h's public API.

   Every helper is a static inline function, so any number of backend implementations may
   include this file in one translation unit.

   WRAPPING A REFERENCE KERNEL
     A bundled backend kernel keeps the reference kernel's op data at the start of its own and
     runs the reference prepare first: the same checks, the same output shapes and the same
     error messages whoever runs the node. The backend's own op data follows, 64-byte aligned
     (mmd__bk_own).
*/
#ifndef MMD_BACKEND_UTIL_H
#define MMD_BACKEND_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "../mmdeploy.h"
#include "../mmdeploy_ir.h"
#include "../mmdeploy_ops.h"

/* Bytes of a bundled backend kernel's op data: the reference kernel's, then `own` bytes. */
static inline size_t mmd__bk_op_data_size(const mmd_kernel *ref, size_t own) {
    return ((ref->op_data_size + 63u) & ~(size_t)63u) + own;
}

/* The backend's own op data, after the reference kernel's. */
static inline void *mmd__bk_own(const mmd_kernel_ctx *c, const mmd_kernel *ref) {
    return (unsigned char *)c->op_data + ((ref->op_data_size + 63u) & ~(size_t)63u);
}

/* A bundled kernel for op_type built around ref: same opsets and flags, more op data. */
static inline void mmd__bk_kernel(mmd_kernel *k, const mmd_kernel *ref, size_t own, mmd_kernel_fn prepare,
                                  mmd_kernel_fn eval) {
    *k = *ref;
    k->op_data_size = mmd__bk_op_data_size(ref, own);
    k->prepare = prepare;
    k->eval = eval;
}

/* The functions of a bundled backend's op: its own op data bytes, prepare and eval. */
typedef void (*mmd__bk_op_fn)(int32_t op, size_t *own, mmd_kernel_fn *prepare, mmd_kernel_fn *eval);

/* A bundled backend's claim table, built at create: for each of its count ops (names[op],
   default domain) whose reference kernel covers the model's opset (ref[op], else NULL), the
   kernel wrapping that reference kernel with the op's functions (kernels[op]) and a float32
   rule returning it. Only such ops are claimed: the reference kernel checks the node. Returns
   the number of rules. */
static inline int32_t mmd__bk_table(const mmd_model *m, const char *const *names, int32_t count, mmd__bk_op_fn fns,
                                    const mmd_kernel **ref, mmd_kernel *kernels, mmd_backend_rule *rules) {
    int64_t opset = mmd_model_opset(m, "");
    int32_t op, n = 0;
    for (op = 0; op < count; ++op) {
        size_t own = 0;
        mmd_kernel_fn prepare, eval;
        if (!(ref[op] = mmd_ops_find("", names[op], opset))) continue;
        fns(op, &own, &prepare, &eval);
        mmd__bk_kernel(&kernels[op], ref[op], own, prepare, eval);
        memset(&rules[n], 0, sizeof(rules[n]));
        rules[n].domain = "";
        rules[n].op_type = names[op];
        rules[n].dtype = MMD_DTYPE_FLOAT32;
        rules[n].kernel = &kernels[op];
        ++n;
    }
    return n;
}

/* The context of member u of the set node that c runs (SUBGRAPH CLAIMS in mmdeploy.h): c's
   with u's node, opset, inputs, outputs, op data and scratch size, and no backend, so that u's
   attributes can be read, or its reference kernel (u->kernel) run, from the set kernel. */
static inline void mmd__bk_member_ctx(const mmd_kernel_ctx *c, const mmd_node *u, mmd_kernel_ctx *out) {
    *out = *c;
    out->node = u;
    out->opset = u->opset;
    out->input_count = u->input_count;
    out->output_count = u->output_count;
    out->inputs = u->in;
    out->outputs = u->out;
    out->op_data = u->op_data;
    out->scratch_size = u->scratch_size;
    out->backend = NULL;
}

/* Sliding-window geometry of Conv, ConvTranspose and the pools as ONNX defines it, spatial
   axes first to last. The reference prepare has validated the attributes already. */
typedef struct mmd__bk_window {
    int32_t n;                       /* spatial axes, 1 to 3 */
    int64_t k[3], s[3], d[3];        /* kernel, stride, dilation */
    int64_t pad[3], pad_end[3];      /* resolved, auto_pad included */
} mmd__bk_window;

/* Reads strides, dilations, pads and auto_pad. in[] and out[] are the spatial sizes of the
   input and of the output the reference prepare computed; SAME padding is resolved from them
   the way the reference kernels do (the odd pixel at the end for SAME_UPPER). */
static inline mmd_status mmd__bk_window_read(mmd_kernel_ctx *c, int32_t n, const int64_t *in,
                                             const int64_t *kernel, const int64_t *out,
                                             mmd__bk_window *w) {
    const int64_t *strides, *dilations, *pads;
    int64_t ns, nd, np;
    const char *auto_pad;
    int32_t j;
    mmd_status st = mmd_attr_get_ints(c, "strides", &strides, &ns);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "dilations", &dilations, &nd);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "pads", &pads, &np);
    if (st == MMD_OK) st = mmd_attr_get_string(c, "auto_pad", "NOTSET", &auto_pad);
    if (st != MMD_OK) return st;
    if (n < 1 || n > 3) return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "%d spatial axes", (int)n);
    w->n = n;
    for (j = 0; j < n; ++j) {
        w->k[j] = kernel[j];
        w->s[j] = ns == n ? strides[j] : 1;
        w->d[j] = nd == n ? dilations[j] : 1;
        w->pad[j] = np == 2 * n ? pads[j] : 0;
        w->pad_end[j] = np == 2 * n ? pads[j + n] : 0;
        if (!strcmp(auto_pad, "VALID")) {
            w->pad[j] = w->pad_end[j] = 0;
        } else if (!strncmp(auto_pad, "SAME", 4)) {
            int64_t total = (out[j] - 1) * w->s[j] + (w->k[j] - 1) * w->d[j] + 1 - in[j];
            if (total < 0) total = 0;
            w->pad[j] = !strcmp(auto_pad, "SAME_LOWER") ? (total + 1) / 2 : total / 2;
            w->pad_end[j] = total - w->pad[j];
        }
    }
    return MMD_OK;
}

/* ---- channels-last tensors between a backend's own nodes ---------------------------------- */
/* Libraries whose convolutions want channels-last (NHWC) data pay two conversions per conv when
   every tensor is NCHW. A tensor that only one backend's nodes touch may instead hold
   channels-last data in the bytes the plan gave it (the same size): produced by a conv-like
   node or by a layout-sharing node whose inputs are channels-last, read only by conv-like
   nodes (as input 0), sinks, or layout-sharing nodes whose output is channels-last too, and
   not a graph output. No other kernel ever sees one. The backend says how each node treats
   layouts:
     MMD__BK_PLAIN  not its node, or one that reads and writes plain tensors
     MMD__BK_CONV   reads input 0 and writes output 0 in either layout (converting as needed)
     MMD__BK_SAME   its first *nin inputs and output 0 share one layout (element-wise ops)
     MMD__BK_SINK   reads input 0 in either layout, writes plain (global pooling to [N, C])
   mmd__bk_layouts starts from every conv-like and layout-sharing output and drops candidates
   until nothing changes. It runs at the first prepare and again whenever the model's
   claim_epoch changed (the runtime moved a node away after a refusal), so the layouts always
   follow the claims as they are. */
enum { MMD__BK_PLAIN, MMD__BK_CONV, MMD__BK_SAME, MMD__BK_SINK };
typedef int32_t (*mmd__bk_kind_fn)(const void *handle, const mmd_node *n, int32_t *nin);

typedef struct mmd__bk_layout {
    uint8_t *cl;                     /* per tensor: 1 when held channels-last (malloc'd) */
    int32_t ready;
    int32_t epoch;                   /* the model's claim_epoch the layouts were derived at */
} mmd__bk_layout;

static inline mmd_status mmd__bk_layouts(mmd__bk_layout *l, const mmd_model *m, const void *handle,
                                         mmd__bk_kind_fn kind) {
    int32_t i, j, k, changed = 1;
    uint8_t *cl;
    if (l->ready && l->epoch == m->claim_epoch) return MMD_OK;
    if (!l->cl && !(l->cl = (uint8_t *)calloc((size_t)m->tensor_count + 1, 1))) return MMD_ERR_OUT_OF_MEMORY;
    cl = l->cl;
    memset(cl, 0, (size_t)m->tensor_count + 1);
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        int32_t nin = 1, kd = kind(handle, n, &nin);
        if ((kd == MMD__BK_CONV || kd == MMD__BK_SAME) && n->output_count >= 1 && n->outputs[0] >= 0 &&
            !m->tensors[n->outputs[0]].is_output)
            cl[n->outputs[0]] = 1;
    }
    while (changed) {
        changed = 0;
        for (i = 0; i < m->node_count; ++i) {
            const mmd_node *n = &m->nodes[i];
            int32_t nin = 1, kd = kind(handle, n, &nin);
            int32_t out = n->output_count >= 1 ? n->outputs[0] : -1;
            for (j = 0; j < n->input_count; ++j) {
                int32_t t = n->inputs[j], ok;
                if (t < 0 || !cl[t]) continue;
                ok = (kd == MMD__BK_CONV || kd == MMD__BK_SINK) ? j == 0
                     : kd == MMD__BK_SAME ? j < nin && out >= 0 && cl[out] : 0;
                if (!ok) {
                    cl[t] = 0;
                    changed = 1;
                }
            }
            /* A layout-sharing node's output is channels-last only if all its inputs are. */
            if (kd == MMD__BK_SAME && out >= 0 && cl[out])
                for (k = 0; k < nin && k < n->input_count; ++k)
                    if (n->inputs[k] < 0 || !cl[n->inputs[k]]) {
                        cl[out] = 0;
                        changed = 1;
                    }
        }
    }
    l->ready = 1;
    l->epoch = m->claim_epoch;
    return MMD_OK;
}

/* 1 when tensor t (of m) is held channels-last. */
static inline int32_t mmd__bk_is_cl(const mmd__bk_layout *l, const mmd_model *m, const mmd_tensor *t) {
    return t && l->cl && l->cl[t - m->tensors];
}

#endif /* MMD_BACKEND_UTIL_H */
