/* mmdeploy_ir.h - v0.1.0 - MIT licence (see end of file)
   ONNX protobuf decoding (written from scratch), graph IR, shape inference and memory planning
   for mmdeploy.h. Layer 2 (LAYERS in mmdeploy.h): includes and uses mmdeploy.h only.

   QUICK START
     mmd_arena a; mmd_model *m; mmd_error err = {0};
     mmd_arena_init(&a, NULL, 0, 1);                       // heap arena (host)
     if (mmd_model_parse(&a, bytes, size, 0, &m, &err) != MMD_OK) puts(err.msg);
     for (int32_t i = 0; i < m->node_count; ++i) puts(m->nodes[i].op_type);
     mmd_arena_release(&a);

   WHAT IT DOES NOT DO
     No external-data or sparse tensors (MMD_ERR_UNSUPPORTED), no functions, no training info.
     Subgraph attributes are kept as raw bytes and not decoded.

   MEMORY MODEL
     Parsing allocates every structure from the arena it is given; strings are copied (with a
     terminating NUL), weights stored in raw_data are used in place when the buffer is aligned
     for their dtype and copied once otherwise. The model bytes must outlive the model.

   ERRORS
     Every offset, length, count, dim, dtype and index in the bytes is checked, in release builds
     too. Truncation and wire-type errors give MMD_ERR_MALFORMED naming the message and field;
     graph errors (undefined input, cycle, duplicate output) give MMD_ERR_INVALID_MODEL.

   THREAD SAFETY
     A parsed model is read-only once built; planning writes into the model's tensors and nodes,
     so one model serves one session.

   .MMD BLOBS (firmware models, written by `mmdeploy convert MODEL.onnx -o MODEL.mmd`)
     A blob is a model already parsed, validated, folded and planned for fixed input shapes,
     laid out to be used in place from flash. mmd_model_parse (so mmd_session_create too) knows
     it by its magic and only rebuilds the structs in the arena, after checking every offset,
     count, index and dtype: the bytes are as untrusted as an ONNX file. mmd_graph_plan then runs
     each kernel's prepare (op data; it must reproduce the stored shapes) and applies the stored
     activation offsets, after checking that no two tensors alive together share bytes. The
     blob must sit at a 16-byte aligned address and outlive the model; copy_weights is refused.
     Nodes folded at conversion are not stored, only their outputs as constants, so firmware
     needs neither their kernels nor their time. Inputs keep the shapes planned at conversion.
     Layout, little-endian, offsets in bytes from the blob start, fields u32 (i32 where signed):
       header, 144 bytes: 0 magic 89 4D 4D 44 0D 0A 1A 0A, 8 format version (1), 12 header bytes,
         16 blob bytes, 20 writer version (major*10000 + minor*100 + patch), 24 graph tensors
         (tensor records past them belong to TENSOR attributes), 28 nodes, 32 graph inputs and
         36 their int32-pool index, 40 graph outputs and 44 their index, 48 activation buffer
         bytes, 52 largest scratch, 56 arena bytes (0: unknown), 60 nodes folded at conversion,
         64 ir_version, 68 producer name, 72 producer version, 76 graph name (string offsets),
         80 eight sections {offset, bytes}, each 16-byte aligned: tensors, nodes, attributes,
         int32 pool, int64 pool, float32 pool, strings (NUL-terminated; offset 0 is ""), data.
       tensor, 32 bytes: name, dtype, rank, int64-pool index of the dims, kind (0 activation,
         1 graph input, 2 initializer, 3 folded constant), producer node (-1 unless kind 0),
         offset and bytes of the data (constants: in the data section, 16-byte aligned, bytes
         exact; activations: planned offset in the activation buffer and capacity).
       node, 44 bytes: name, op_type, domain, opset, inputs and their int32-pool index (tensor
         indices, -1 for an absent input), outputs and index, attributes and index, scratch.
       attribute, 32 bytes: name, type, i64 i at 8, f32 f at 16, value at 20 (a string offset,
         a pool index, or a tensor index for TENSOR), count at 24 (elements, a STRING's bytes).
*/
#ifndef MMDEPLOY_IR_H
#define MMDEPLOY_IR_H

#include "mmdeploy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* AttributeProto.AttributeType values. */
typedef enum mmd_attr_type {
    MMD_ATTR_UNDEFINED = 0,
    MMD_ATTR_FLOAT = 1,
    MMD_ATTR_INT = 2,
    MMD_ATTR_STRING = 3,
    MMD_ATTR_TENSOR = 4,
    MMD_ATTR_GRAPH = 5,
    MMD_ATTR_FLOATS = 6,
    MMD_ATTR_INTS = 7,
    MMD_ATTR_STRINGS = 8,
    MMD_ATTR_TENSORS = 9,
    MMD_ATTR_GRAPHS = 10
} mmd_attr_type;

typedef struct mmd_attr {
    const char *name;
    int32_t type;                    /* mmd_attr_type */
    float f;                         /* FLOAT */
    int64_t i;                       /* INT */
    const char *s;                   /* STRING: NUL-terminated copy ... */
    size_t s_len;                    /* ... and its length (may hold NULs) */
    mmd_tensor *t;                   /* TENSOR */
    const uint8_t *g;                /* GRAPH: undecoded GraphProto bytes */
    size_t g_len;
    int64_t count;                   /* element count of FLOATS / INTS / STRINGS / TENSORS */
    const float *floats;
    const int64_t *ints;
    const char *const *strings;
    mmd_tensor *tensors;
} mmd_attr;

struct mmd_kernel;

typedef struct mmd_node {
    const char *name;                /* may be "" */
    const char *op_type;
    const char *domain;              /* "" for ai.onnx */
    int32_t input_count, output_count, attr_count;
    int32_t *inputs;                 /* tensor indices; -1 for an absent optional input */
    int32_t *outputs;                /* tensor indices; -1 for an absent optional output */
    mmd_tensor **in, **out;          /* the same as pointers; NULL where the index is -1 */
    mmd_attr *attrs;
    int32_t opset;                   /* version of the node's domain in opset_import */
    /* filled when kernels are bound and the graph is planned */
    const struct mmd_kernel *kernel;
    void *op_data;                   /* kernel->op_data_size bytes, zeroed before prepare */
    size_t scratch_size;             /* scratch requested by prepare */
    int32_t folded;                  /* 1: computed at prepare time, skipped by run */
    int32_t reprepare;               /* 1: reads a dynamic tensor, so run calls prepare first */
    void *backend;                   /* handle of the backend that claimed it, NULL: reference */
    void *packed;                    /* mmd_kernel_packed's buffer for this plan, or NULL */
    size_t packed_size;
    /* A set node (a backend's subgraph claim, SUBGRAPH CLAIMS in mmdeploy.h): the member_count
       nodes it runs as one, in topological order, out of the node list; NULL for other nodes.
       Its inputs are the tensors members read from outside, its outputs the member outputs read
       outside or graph outputs; the tensors between members are internal (producer -1, data
       NULL, never planned). The planner runs each member's reference prepare before the set
       kernel's, so internal tensors carry their dtypes and shapes, and members their op data. */
    struct mmd_node *members;
    int32_t member_count;
} mmd_node;

/* One load-time rewrite, as mmd_graph_rewrite records it for reports ("fold BatchNormalization
   bn1 into Conv conv1"). The strings belong to the model. */
typedef struct mmd_rewrite {
    const char *action;              /* "fold", "fuse" or "drop" */
    const char *op_type, *name;      /* the node absorbed or dropped */
    const char *into_op_type, *into_name; /* the node that took its work over; "" for a drop */
} mmd_rewrite;

typedef struct mmd_opset {
    const char *domain;              /* "" and "ai.onnx" both mean the default domain */
    int64_t version;
} mmd_opset;

/* A parsed model: plain structs with counts, references stored as checked indices. */
typedef struct mmd_model {
    int64_t ir_version;
    const char *producer_name, *producer_version, *graph_name;
    int32_t opset_count;
    mmd_opset *opsets;
    int32_t tensor_count;
    mmd_tensor *tensors;             /* every named value: inputs, initializers, node outputs */
    int32_t node_count;
    mmd_node *nodes;                 /* in topological order (sorted at parse time) */
    int32_t input_count, output_count;
    int32_t *inputs;                 /* graph inputs that are not initializers */
    int32_t *outputs;
    size_t weight_copy_bytes;        /* initializer bytes that had to be copied */
    const uint8_t *blob;             /* loaded from a .mmd blob: these bytes, whose stored plan
                                        mmd_graph_plan applies; NULL for ONNX */
    mmd_profiler_fn profiler;        /* called around each node graph_run evaluates, or NULL */
    void *profiler_user;
    int32_t threads;                 /* handed to every kernel (mmd_kernel_ctx); set by the */
    mmd_parallel_fn parallel;        /* session, 0 and NULL by default: one thread */
    void *parallel_user;
    int32_t claim_epoch;             /* changes whenever the session moves a node to another
                                        kernel after a backend refused it (mmdeploy.h) */
    mmd_rewrite *rewrites;           /* what mmd_graph_rewrite did, in order (NULL: nothing) */
    int32_t rewrite_count;
    size_t rewrite_bytes;            /* weights the rewrites changed, copied into the arena */
    int32_t trial;                   /* 1 during mmd_graph_rewrite's trial plan, which wants only
                                        shapes: kernels then get no packed-weight memory */
} mmd_model;

/* ---- kernels ----------------------------------------------------------------------------- */
/* What a kernel sees. prepare validates everything (dtypes, ranks, attributes, constant inputs
   it needs) and sets each output's dtype, rank and dims; eval only computes. */
typedef struct mmd_kernel_ctx {
    const mmd_node *node;
    int32_t node_index;
    int32_t opset;                   /* resolved opset of the node's domain */
    int32_t input_count, output_count;
    mmd_tensor *const *inputs;       /* inputs[i] is NULL for an absent optional input */
    mmd_tensor *const *outputs;      /* outputs[i] is NULL for an absent optional output */
    void *op_data;                   /* kernel->op_data_size bytes, kept from prepare to eval */
    void *scratch;                   /* eval: node->scratch_size bytes of scratch, never NULL
                                        (kernels may form pointers into an empty one) */
    size_t scratch_size;             /* prepare: set to the bytes of scratch eval needs */
    mmd_error *err;
    void *backend;                   /* the claiming backend's handle (mmd_backend.create) */
    int32_t threads;                 /* threads eval may use through mmd_kernel_parallel (0, 1: one) */
    mmd_parallel_fn parallel;        /* the session's thread hook, NULL for one thread */
    void *parallel_user;
    mmd_arena *arena;                /* plan-time prepare only (mmd_kernel_packed), else NULL */
} mmd_kernel_ctx;

typedef mmd_status (*mmd_kernel_fn)(mmd_kernel_ctx *ctx);

/* Kernel flags. */
#define MMD_KERNEL_SHAPE_ONLY 1u     /* outputs depend only on input shapes (Shape, Size) */
/* Input i's value (not just its shape) is read by prepare when it is known (Reshape's shape,
   Slice's starts, TopK's k): a graph input in such a slot makes every new binding re-plan. */
#define MMD_KERNEL_VALUE_INPUT(i) (1u << (8 + (i)))

/* Data-dependent output shapes (NonZero, NonMaxSuppression, TopK with a run-time k): prepare
   sets the output's dims to an upper bound and sets outputs[i]->dynamic = 1; eval writes the
   real dims (never past the bound). Nodes downstream of a dynamic tensor run prepare again at
   run time, with the real shapes, before their eval; such a prepare must not need more op data
   or scratch than the planned one, and its outputs must fit the planned capacity. */

/* A kernel is data: the planner picks the entry whose domain and op_type match and whose
   [min_opset, max_opset] holds the node's opset. */
typedef struct mmd_kernel {
    const char *domain;
    const char *op_type;
    int32_t min_opset, max_opset;
    uint32_t flags;
    size_t op_data_size;
    mmd_kernel_fn prepare;
    mmd_kernel_fn eval;
} mmd_kernel;

/* ---- setup: parsing ----------------------------------------------------------------------- */
/* Decodes a ModelProto and validates the graph (every input defined, no cycle, no duplicate
   output, nodes sorted). copy_weights 1 copies every initializer so the bytes may be freed.
   A .mmd blob is loaded instead when the bytes start with its magic (see .MMD BLOBS above).
   Allocates from a. Not thread safe on a shared arena. */
MMD_API mmd_status mmd_model_parse(mmd_arena *a, const void *data, size_t size,
                                   int32_t copy_weights, mmd_model **out, mmd_error *err);
/* Decodes one TensorProto (a .pb test file or an attribute) into t, data copied into a when
   it is not aligned or not in raw_data. */
MMD_API mmd_status mmd_tensor_proto_decode(mmd_arena *a, const void *data, size_t size,
                                           mmd_tensor *t, mmd_error *err);
/* Opset version of a domain ("" or "ai.onnx" for the default), 0 when not imported. */
MMD_API int64_t mmd_model_opset(const mmd_model *m, const char *domain);
/* Index of the named tensor, -1 when absent. */
MMD_API int32_t mmd_model_find_tensor(const mmd_model *m, const char *name);

/* ---- setup: attributes (for kernels' prepare) --------------------------------------------- */
/* The named attribute or NULL. */
MMD_API const mmd_attr *mmd_node_attr(const mmd_node *n, const char *name);
/* Typed getters: absent gives the default; present with another type fails with
   MMD_ERR_INVALID_MODEL naming the node and attribute. */
MMD_API mmd_status mmd_attr_get_int(mmd_kernel_ctx *c, const char *name, int64_t def, int64_t *out);
MMD_API mmd_status mmd_attr_get_float(mmd_kernel_ctx *c, const char *name, float def, float *out);
MMD_API mmd_status mmd_attr_get_string(mmd_kernel_ctx *c, const char *name, const char *def,
                                       const char **out);
/* INTS / FLOATS: *count = 0 and *out = NULL when absent. */
MMD_API mmd_status mmd_attr_get_ints(mmd_kernel_ctx *c, const char *name, const int64_t **out,
                                     int64_t *count);
MMD_API mmd_status mmd_attr_get_floats(mmd_kernel_ctx *c, const char *name, const float **out,
                                       int64_t *count);
MMD_API mmd_status mmd_attr_get_tensor(mmd_kernel_ctx *c, const char *name, const mmd_tensor **out);
/* Fills c->err naming the node and op: "node 'conv1' (Conv): <message>", returns status. */
MMD_API mmd_status mmd_kernel_fail(mmd_kernel_ctx *c, mmd_status status, const char *fmt, ...);
#ifdef MMD_NO_ERROR_STRINGS
#define mmd_kernel_fail(c, status, ...) (mmd_kernel_fail)(c, status, MMD__NO_TEXT(__VA_ARGS__))
#endif
/* 1 when t's value is known now: an initializer, a folded constant, a bound graph input, or
   (in a run-time prepare) anything already computed. prepare may then read t->data. */
MMD_API int32_t mmd_tensor_is_const(const mmd_tensor *t);
/* Memory that lives as long as the plan, for what prepare derives once from constant inputs
   (weights repacked for a micro-kernel). At plan time it is fresh zeroed arena memory (*fresh
   = 1: fill it); a run-time prepare of the same node gets the same buffer back, already filled
   (*fresh = 0), when it asks for the same size. NULL with c->err->status left MMD_OK means none
   is available (a .mmd blob's plan, a hand-made context): eval must then work from the inputs
   as they are. NULL with a status set is an allocation failure to return. */
MMD_API void *mmd_kernel_packed(mmd_kernel_ctx *c, size_t bytes, int32_t *fresh);

/* ---- setup: load-time rewrites ------------------------------------------------------------- */
/* The kernel table rewritten nodes bind to: mmd_ops_find, or a narrower one. */
typedef const mmd_kernel *(*mmd_kernel_find_fn)(const char *domain, const char *op_type, int64_t opset);
/* Rewrites the graph once, before it is planned, so that it runs faster and computes the same
   (see >>ir rewrites for the list and the rules): turns QDQ Conv and MatMul groups into
   QLinearConv and QLinearMatMul (the same up to one quantum, as ONNX Runtime runs them), and
   the DequantizeLinear -> (Relu or Clip ->) QuantizeLinear after a QLinearConv, in its output
   scale, into a clamp of its requantisation (exact); folds BatchNormalization, and Mul and Add
   by per-channel constants, into the Conv, ConvTranspose or Gemm before them; fuses the
   activation after a Conv, Gemm or MatMul, and a residual Add after a Conv, into com.microsoft
   FusedConv or FusedGemm, and the activation after a ConvTranspose into its `activation`
   attribute; fuses a 1x1 convolution into the depthwise convolution after it (mmd
   PointwiseDepthwise, where find has it); drops Transpose and Reshape chains that do nothing
   or fold into one. Weights it changes are copied into a (the model bytes are never written);
   m->rewrites lists each rewrite. Only nodes with a kernel and no backend (claims[i] < 0, or
   claims NULL) are touched; claims is compacted with the nodes. fixed_shapes 1 says that the
   declared input shapes are the only ones the model will see (no symbolic dims): a trial plan
   then gives the shapes the residual Add, identity Reshape, MatMul and pointwise-depthwise
   rewrites need. A .mmd blob is left as it is (it stores a graph already rewritten). Allocates
   from a. Not thread safe on a shared model. */
MMD_API mmd_status mmd_graph_rewrite(mmd_model *m, mmd_arena *a, mmd_kernel_find_fn find,
                                     int32_t fixed_shapes, int32_t *claims, mmd_error *err);

/* ---- run: threads (for kernels' eval) ------------------------------------------------------ */
/* Runs task(data, i) for i in [0, count): through the session's thread hook when it has more
   than one thread and count > 1, else in order on the calling thread. The shares must write
   disjoint memory (a share that needs scratch takes its own slice: index * bytes). */
MMD_API void mmd_kernel_parallel(const mmd_kernel_ctx *c, mmd_task_fn task, void *data, int32_t count);

/* ---- setup: planning ------------------------------------------------------------------------ */
/* Runs every bound kernel's prepare in order (shape and dtype inference), evaluates nodes whose
   inputs are all constant, assigns activation offsets so that tensors with disjoint lifetimes
   share memory, and allocates the activation buffer and scratch from a. Every node must have a
   kernel. Allocates from a. */
MMD_API mmd_status mmd_graph_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats,
                                  void **activations, void **scratch, mmd_error *err);
/* Evaluates every node that was not folded, in order. Allocates nothing. */
MMD_API mmd_status mmd_graph_run(mmd_model *m, void *scratch, mmd_error *err);
/* Private: mmd_graph_run for m and err not NULL, so without a local mmd_error on the stack
   (mmd_session_run's path). */
MMD_API mmd_status mmd__graph_run(mmd_model *m, void *scratch, mmd_error *err);

/* ---- setup: backend sets ------------------------------------------------------------------- */
/* The sets a subgraph backend is offered (SUBGRAPH CLAIMS in mmdeploy.h), from the candidate
   nodes (candidate[i] != 0). A scheduler that runs candidates for as long as any is ready, then
   the others for as long as any is ready, and so on (folded nodes, which run nothing, whenever
   they are ready), cuts the graph into runs; the candidates of
   one run, split into connected parts, are the sets. Each set is connected and convex (no path
   leaves it and comes back, so it can run as one node), and as large as this greedy schedule
   allows. Writes into order (node_count entries) a topological order of all nodes in which each
   set's members are consecutive and in topological order, into set[i] the set of node i (-1 for
   the others), and the number of sets into *count. Temporary memory from a, given back. */
MMD_API mmd_status mmd_graph_partition(const mmd_model *m, const uint8_t *candidate, int32_t *order,
                                       int32_t *set, int32_t *count, mmd_arena *a, mmd_error *err);

/* ---- host side: .mmd blobs (format in the doc block above) ------------------------------- */
/* Writes the planned model m (every node planned, no data-dependent shapes) as a .mmd blob:
   folded nodes left out, their outputs stored as constants, tensors only folded nodes read
   dropped. out must be 16-byte aligned; with out NULL only *size is set (the size query).
   arena_bytes is stored for tools to report (0: unknown). Allocates two index maps on the heap,
   so it is left out of MMD_NO_MALLOC builds. Thread safe on distinct models. */
MMD_API mmd_status mmd_blob_write(const mmd_model *m, size_t arena_bytes, void *out, size_t cap,
                                  size_t *size, mmd_error *err);

#ifdef __cplusplus
}
#endif

/* Floats of a band of mmd PointwiseDepthwise with a projection folded in (its expanded rows and
   depthwise outputs, >>ops pointwise depthwise): here, where both the rewrite that decides the
   fold (>>ir rewrites pass 4) and the kernel see it. */
#ifndef MMD__PWDW_BAND
#define MMD__PWDW_BAND ((int64_t)1 << 17)
#endif

#define MMD_IR_DECLS
#endif /* MMDEPLOY_IR_H */

#if (defined(MMD_IMPLEMENTATION) || defined(MMD_IR_IMPLEMENTATION)) && defined(MMD_IR_DECLS) && \
    !defined(MMD_IR_IMPLEMENTED)
#define MMD_IR_IMPLEMENTED
/* ==== >>ir implementation ==== */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

MMD_API mmd_status mmd__error_vset(mmd_error *err, mmd_status status, int32_t node, const char *op,
                                   const char *prefix, const char *fmt, va_list ap);

/* ==== >>attributes ==== */
MMD_API const mmd_attr *mmd_node_attr(const mmd_node *n, const char *name) {
    int32_t i;
    if (!n || !name) return NULL;
    for (i = 0; i < n->attr_count; ++i)
        if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
    return NULL;
}

MMD_API mmd_status (mmd_kernel_fail)(mmd_kernel_ctx *c, mmd_status status, const char *fmt, ...) {
    char *prefix = NULL;
    va_list ap;
    if (!c || !c->node || !c->err) return status;
#ifndef MMD_NO_ERROR_STRINGS
    {
        /* The prefix goes straight into the message (mmd__error_vset keeps it in place), at
           most 160 bytes of it so the reason always has room. */
        size_t len = 0, cap = sizeof(c->err->msg) < 160 ? sizeof(c->err->msg) : 160;
        const char *parts[5];
        int32_t i;
        prefix = c->err->msg;
        parts[0] = "node '";
        parts[1] = c->node->name;
        parts[2] = "' (";
        parts[3] = c->node->op_type;
        parts[4] = "): ";
        /* Hand-joined so that no stdio is needed; a long name is cut, never overrun. */
        for (i = 0; i < 5; ++i) {
            const char *p = parts[i];
            while (*p && len + 1 < cap) prefix[len++] = *p++;
        }
        prefix[len] = '\0';
    }
#endif
    va_start(ap, fmt);
    mmd__error_vset(c->err, status, c->node_index, c->node->op_type, prefix, fmt, ap);
    va_end(ap);
    return status;
}

static mmd_status mmd__attr_typed(mmd_kernel_ctx *c, const char *name, int32_t type,
                                  const mmd_attr **out) {
    static const char *const type_names[] = {"undefined", "float", "int", "string", "tensor",
                                             "graph", "floats", "ints", "strings", "tensors",
                                             "graphs"};
    const mmd_attr *a;
    *out = NULL;
    if (!c || !c->node || !name)
        return mmd_error_set(c ? c->err : NULL, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "mmd_attr_get_*: NULL context or name");
    if (!(a = mmd_node_attr(c->node, name))) return MMD_OK;
    if (a->type != type)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute '%s' must be %s, got %s", name,
                               type_names[type],
                               a->type >= 0 && a->type <= 10 ? type_names[a->type] : "unknown type");
    *out = a;
    return MMD_OK;
}

MMD_API mmd_status mmd_attr_get_int(mmd_kernel_ctx *c, const char *name, int64_t def, int64_t *out) {
    const mmd_attr *a;
    mmd_status st = mmd__attr_typed(c, name, MMD_ATTR_INT, &a);
    if (out) *out = a ? a->i : def;
    return st;
}

MMD_API mmd_status mmd_attr_get_float(mmd_kernel_ctx *c, const char *name, float def, float *out) {
    const mmd_attr *a;
    mmd_status st = mmd__attr_typed(c, name, MMD_ATTR_FLOAT, &a);
    if (out) *out = a ? a->f : def;
    return st;
}

MMD_API mmd_status mmd_attr_get_string(mmd_kernel_ctx *c, const char *name, const char *def,
                                       const char **out) {
    const mmd_attr *a;
    mmd_status st = mmd__attr_typed(c, name, MMD_ATTR_STRING, &a);
    if (out) *out = a ? a->s : def;
    return st;
}

MMD_API mmd_status mmd_attr_get_ints(mmd_kernel_ctx *c, const char *name, const int64_t **out,
                                     int64_t *count) {
    const mmd_attr *a;
    mmd_status st = mmd__attr_typed(c, name, MMD_ATTR_INTS, &a);
    if (out) *out = a ? a->ints : NULL;
    if (count) *count = a ? a->count : 0;
    return st;
}

MMD_API mmd_status mmd_attr_get_floats(mmd_kernel_ctx *c, const char *name, const float **out,
                                       int64_t *count) {
    const mmd_attr *a;
    mmd_status st = mmd__attr_typed(c, name, MMD_ATTR_FLOATS, &a);
    if (out) *out = a ? a->floats : NULL;
    if (count) *count = a ? a->count : 0;
    return st;
}

MMD_API mmd_status mmd_attr_get_tensor(mmd_kernel_ctx *c, const char *name, const mmd_tensor **out) {
    const mmd_attr *a;
    mmd_status st = mmd__attr_typed(c, name, MMD_ATTR_TENSOR, &a);
    if (out) *out = a ? a->t : NULL;
    return st;
}

MMD_API int32_t mmd_tensor_is_const(const mmd_tensor *t) {
    return t && t->data && t->kind != MMD_TENSOR_ACTIVATION;
}

#ifndef MMD_NO_ONNX
/* ==== >>protobuf ==== */
/* A protobuf reader over [p, end). Every read checks the bytes left first, so hostile lengths
   can only produce an error. */
typedef struct mmd__pb {
    const uint8_t *p, *end;
    const char *msg;       /* message being read, for error text */
    mmd_error *err;
} mmd__pb;

typedef struct mmd__field {
    uint32_t num, wire;
    uint64_t v;            /* varint, fixed32 or fixed64 value */
    const uint8_t *data;   /* wire type 2: payload */
    size_t len;
} mmd__field;

enum { MMD__WIRE_VARINT = 0, MMD__WIRE_FIXED64 = 1, MMD__WIRE_LEN = 2, MMD__WIRE_FIXED32 = 5 };

static mmd__pb mmd__pb_sub(const mmd__pb *parent, const uint8_t *data, size_t len, const char *msg) {
    mmd__pb r;
    r.p = data;
    r.end = data + len;
    r.msg = msg;
    r.err = parent->err;
    return r;
}

static int mmd__varint(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
    const uint8_t *p = *pp;
    uint64_t v = 0;
    int shift;
    for (shift = 0; shift < 70; shift += 7) {
        if (p >= end) return 0;
        if (shift == 63 && (*p & 0x7e)) return 0; /* the tenth byte may only hold bit 63 */
        v |= (uint64_t)(*p & 0x7f) << (shift < 64 ? shift : 0);
        if (!(*p++ & 0x80)) {
            *pp = p;
            *out = v;
            return 1;
        }
    }
    return 0; /* more than 10 bytes */
}

/* Reads the next field; returns 0 at the end, 1 with a field, -1 on malformed input. */
static int mmd__pb_next(mmd__pb *r, mmd__field *f) {
    uint64_t key;
    if (r->p >= r->end) return 0;
    if (!mmd__varint(&r->p, r->end, &key)) {
        mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL, "%s: truncated or over-long field key",
                      r->msg);
        return -1;
    }
    f->num = (uint32_t)(key >> 3);
    f->wire = (uint32_t)(key & 7);
    f->data = NULL;
    f->len = 0;
    f->v = 0;
    if (f->num == 0 || (key >> 3) > 0x1fffffff) {
        mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL, "%s: invalid field number", r->msg);
        return -1;
    }
    switch (f->wire) {
    case MMD__WIRE_VARINT:
        if (!mmd__varint(&r->p, r->end, &f->v)) {
            mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL,
                          "%s: field %u: varint truncated or longer than 10 bytes", r->msg,
                          (unsigned)f->num);
            return -1;
        }
        return 1;
    case MMD__WIRE_FIXED64:
    case MMD__WIRE_FIXED32: {
        size_t n = f->wire == MMD__WIRE_FIXED64 ? 8 : 4, i;
        if ((size_t)(r->end - r->p) < n) {
            mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL, "%s: field %u: fixed%u truncated",
                          r->msg, (unsigned)f->num, (unsigned)(n * 8));
            return -1;
        }
        for (i = 0; i < n; ++i) f->v |= (uint64_t)r->p[i] << (8 * i);
        f->data = r->p;
        f->len = n;
        r->p += n;
        return 1;
    }
    case MMD__WIRE_LEN: {
        uint64_t len;
        if (!mmd__varint(&r->p, r->end, &len)) {
            mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL, "%s: field %u: length truncated",
                          r->msg, (unsigned)f->num);
            return -1;
        }
        if (len > (uint64_t)(r->end - r->p)) {
            mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL,
                          "%s: field %u: length %llu runs past the end (%zu bytes left)", r->msg,
                          (unsigned)f->num, (unsigned long long)len, (size_t)(r->end - r->p));
            return -1;
        }
        f->data = r->p;
        f->len = (size_t)len;
        r->p += len;
        return 1;
    }
    default:
        mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL, "%s: field %u: unsupported wire type %u",
                      r->msg, (unsigned)f->num, (unsigned)f->wire);
        return -1;
    }
}

/* Fails unless the field has the wire type the schema gives it. */
static int mmd__pb_expect(mmd__pb *r, const mmd__field *f, uint32_t wire, const char *field) {
    if (f->wire == wire) return 1;
    mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL, "%s.%s: wrong wire type %u (expected %u)",
                  r->msg, field, (unsigned)f->wire, (unsigned)wire);
    return 0;
}

static char *mmd__pb_string(mmd_arena *a, const mmd__field *f, mmd_error *err) {
    char *s;
    if (f->len > MMD_MAX_STRING) {
        mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL, "field %u: a string of %zu bytes exceeds MMD_MAX_STRING (%zu)",
                      (unsigned)f->num, f->len, (size_t)MMD_MAX_STRING);
        return NULL;
    }
    s = (char *)mmd_arena_alloc(a, f->len + 1, err);
    if (s && f->len) memcpy(s, f->data, f->len);
    return s;
}

/* Repeated scalar fields come packed (one length-delimited run) or one by one; both count. */
static int mmd__pb_count_scalars(mmd__pb *r, const mmd__field *f, uint32_t wire, const char *field,
                                 int64_t *count) {
    if (f->wire == MMD__WIRE_LEN) {
        if (wire == MMD__WIRE_VARINT) {
            const uint8_t *p = f->data, *end = f->data + f->len;
            uint64_t v;
            while (p < end) {
                if (!mmd__varint(&p, end, &v)) {
                    mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL,
                                  "%s.%s: packed varint truncated", r->msg, field);
                    return 0;
                }
                ++*count;
            }
            return 1;
        } else {
            size_t w = wire == MMD__WIRE_FIXED32 ? 4 : 8;
            if (f->len % w) {
                mmd_error_set(r->err, MMD_ERR_MALFORMED, -1, NULL,
                              "%s.%s: packed length %zu is not a multiple of %zu", r->msg, field,
                              f->len, w);
                return 0;
            }
            *count += (int64_t)(f->len / w);
            return 1;
        }
    }
    if (!mmd__pb_expect(r, f, wire, field)) return 0;
    ++*count;
    return 1;
}

/* Stores one scalar (its wire bits) as element i of dst, narrowed to dtype as ONNX packs it:
   int32_data carries every type of 32 bits or fewer, float16 as its bit pattern. */
static void mmd__store_scalar(void *dst, int64_t i, int32_t dtype, uint64_t bits) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: { uint32_t u = (uint32_t)bits; memcpy((float *)dst + i, &u, 4); break; }
    case MMD_DTYPE_FLOAT64: memcpy((double *)dst + i, &bits, 8); break;
    case MMD_DTYPE_INT64: case MMD_DTYPE_UINT64: ((uint64_t *)dst)[i] = bits; break;
    case MMD_DTYPE_INT32: case MMD_DTYPE_UINT32: ((uint32_t *)dst)[i] = (uint32_t)bits; break;
    case MMD_DTYPE_INT16: case MMD_DTYPE_UINT16: case MMD_DTYPE_FLOAT16: case MMD_DTYPE_BFLOAT16:
        ((uint16_t *)dst)[i] = (uint16_t)bits; break;
    case MMD_DTYPE_BOOL: ((uint8_t *)dst)[i] = bits != 0; break;
    default: ((uint8_t *)dst)[i] = (uint8_t)bits; break;
    }
}

/* Appends the field's scalars to dst from element *n on; the count pass sized dst. */
static void mmd__pb_read_scalars(const mmd__field *f, uint32_t wire, void *dst, int32_t dtype,
                                 int64_t *n) {
    if (f->wire == MMD__WIRE_LEN) {
        const uint8_t *p = f->data, *end = f->data + f->len;
        uint64_t v;
        if (wire == MMD__WIRE_VARINT) {
            while (p < end && mmd__varint(&p, end, &v)) mmd__store_scalar(dst, (*n)++, dtype, v);
        } else {
            size_t w = wire == MMD__WIRE_FIXED32 ? 4 : 8, i;
            for (; (size_t)(end - p) >= w; p += w) {
                v = 0;
                for (i = 0; i < w; ++i) v |= (uint64_t)p[i] << (8 * i);
                mmd__store_scalar(dst, (*n)++, dtype, v);
            }
        }
    } else {
        mmd__store_scalar(dst, (*n)++, dtype, f->v);
    }
}

/* ==== >>tensorproto ==== */
/* Which TensorProto data field may carry which dtype (onnx.proto's comments). */
static int mmd__data_field_fits(uint32_t field, int32_t dtype) {
    switch (field) {
    case 4: return dtype == MMD_DTYPE_FLOAT32;
    case 5: return dtype == MMD_DTYPE_INT32 || dtype == MMD_DTYPE_INT16 || dtype == MMD_DTYPE_INT8 ||
                   dtype == MMD_DTYPE_UINT16 || dtype == MMD_DTYPE_UINT8 || dtype == MMD_DTYPE_BOOL ||
                   dtype == MMD_DTYPE_FLOAT16 || dtype == MMD_DTYPE_BFLOAT16;
    case 7: return dtype == MMD_DTYPE_INT64;
    case 10: return dtype == MMD_DTYPE_FLOAT64;
    case 11: return dtype == MMD_DTYPE_UINT32 || dtype == MMD_DTYPE_UINT64;
    default: return 0;
    }
}

static uint32_t mmd__data_field_wire(uint32_t field) {
    return field == 4 ? MMD__WIRE_FIXED32 : field == 10 ? MMD__WIRE_FIXED64 : MMD__WIRE_VARINT;
}

#define MMD__FAIL(r) ((r)->err ? (r)->err->status : MMD_ERR_MALFORMED)

/* Decodes a TensorProto. raw_data is used in place when aligned for the dtype and copy is 0. */
static mmd_status mmd__decode_tensor(mmd_arena *a, mmd__pb *parent, const uint8_t *bytes, size_t len,
                                     mmd_tensor *t, int32_t copy, size_t *copied) {
    mmd__pb r = mmd__pb_sub(parent, bytes, len, "TensorProto");
    mmd__field f;
    int rc;
    int64_t ndims = 0, nvals = 0, numel;
    const uint8_t *raw = NULL;
    size_t raw_len = 0, nbytes, esize;
    uint32_t data_field = 0;
    const char *name;
    mmd_status st;

    memset(t, 0, sizeof(*t));
    t->producer = -1;
    t->kind = MMD_TENSOR_INITIALIZER;
    t->name = "";
    while ((rc = mmd__pb_next(&r, &f)) > 0) {
        switch (f.num) {
        case 1:
            if (!mmd__pb_count_scalars(&r, &f, MMD__WIRE_VARINT, "dims", &ndims)) return MMD__FAIL(&r);
            break;
        case 2:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_VARINT, "data_type")) return MMD__FAIL(&r);
            t->dtype = f.v > 0x7fffffff ? -1 : (int32_t)f.v;
            break;
        case 8:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "name")) return MMD__FAIL(&r);
            if (!(t->name = mmd__pb_string(a, &f, r.err))) return MMD__FAIL(&r);
            break;
        case 9:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "raw_data")) return MMD__FAIL(&r);
            raw = f.data;
            raw_len = f.len;
            break;
        case 4: case 5: case 7: case 10: case 11:
            if (data_field && data_field != f.num)
                return mmd_error_set(r.err, MMD_ERR_INVALID_MODEL, -1, NULL,
                                     "tensor '%s': data in two typed fields (%u and %u)", t->name,
                                     (unsigned)data_field, (unsigned)f.num);
            data_field = f.num;
            if (!mmd__pb_count_scalars(&r, &f, mmd__data_field_wire(f.num), "data", &nvals))
                return MMD__FAIL(&r);
            break;
        case 3:
            return mmd_error_set(r.err, MMD_ERR_UNSUPPORTED, -1, NULL,
                                 "tensor '%s': segmented tensors are not supported", t->name);
        case 13:
            return mmd_error_set(r.err, MMD_ERR_UNSUPPORTED, -1, NULL,
                                 "tensor '%s': external data is not supported", t->name);
        case 14:
            if (f.wire == MMD__WIRE_VARINT && f.v == 1)
                return mmd_error_set(r.err, MMD_ERR_UNSUPPORTED, -1, NULL,
                                     "tensor '%s': external data is not supported", t->name);
            break;
        default:
            break; /* string_data and unknown fields are checked or skipped below */
        }
    }
    if (rc < 0) return MMD__FAIL(&r);
    name = t->name;
    if (ndims > MMD_MAX_RANK)
        return mmd_error_set(r.err, MMD_ERR_LIMIT, -1, NULL,
                             "tensor '%s': rank %lld exceeds MMD_MAX_RANK %d", name,
                             (long long)ndims, (int)MMD_MAX_RANK);
    /* Second pass: the dims, now that their count is known to fit. */
    {
        int64_t nd = 0;
        r = mmd__pb_sub(parent, bytes, len, "TensorProto");
        while (mmd__pb_next(&r, &f) > 0)
            if (f.num == 1) mmd__pb_read_scalars(&f, MMD__WIRE_VARINT, t->dims, MMD_DTYPE_INT64, &nd);
        t->rank = (int32_t)nd;
    }
    if (t->dtype == MMD_DTYPE_STRING || mmd_dtype_size(t->dtype) == 0)
        return mmd_error_set(r.err, MMD_ERR_UNSUPPORTED, -1, NULL,
                             "tensor '%s': data_type %d (%s) is not supported", name, (int)t->dtype,
                             mmd_dtype_name(t->dtype));
    if ((st = mmd_tensor_nbytes(t, &nbytes, r.err)) != MMD_OK) return st;
    numel = mmd_tensor_numel(t);
    esize = mmd_dtype_size(t->dtype);
    if (raw) {
        if (raw_len != nbytes)
            return mmd_error_set(r.err, MMD_ERR_INVALID_MODEL, -1, NULL,
                                 "tensor '%s': raw_data has %zu bytes, dims x %s need %zu", name,
                                 raw_len, mmd_dtype_name(t->dtype), nbytes);
        if (!copy && nbytes && ((uintptr_t)raw % esize) == 0) {
            /* Zero-copy: kernels only read initializers. */
            t->data = (void *)(uintptr_t)raw;
            return MMD_OK;
        }
        if (!(t->data = mmd_arena_alloc(a, nbytes, r.err))) return MMD__FAIL(&r);
        if (nbytes) memcpy(t->data, raw, nbytes);
        if (copied) *copied += nbytes;
        return MMD_OK;
    }
    if (!(t->data = mmd_arena_alloc(a, nbytes, r.err))) return MMD__FAIL(&r);
    if (copied) *copied += nbytes;
    if (!data_field) {
        if (numel == 0) return MMD_OK;
        return mmd_error_set(r.err, MMD_ERR_INVALID_MODEL, -1, NULL,
                             "tensor '%s': %lld elements declared but no data", name,
                             (long long)numel);
    }
    if (!mmd__data_field_fits(data_field, t->dtype))
        return mmd_error_set(r.err, MMD_ERR_INVALID_MODEL, -1, NULL,
                             "tensor '%s': field %u cannot hold data_type %s", name,
                             (unsigned)data_field, mmd_dtype_name(t->dtype));
    if (nvals != numel)
        return mmd_error_set(r.err, MMD_ERR_INVALID_MODEL, -1, NULL,
                             "tensor '%s': %lld values for %lld elements", name, (long long)nvals,
                             (long long)numel);
    nvals = 0;
    r = mmd__pb_sub(parent, bytes, len, "TensorProto");
    while (mmd__pb_next(&r, &f) > 0)
        if (f.num == data_field)
            mmd__pb_read_scalars(&f, mmd__data_field_wire(f.num), t->data, t->dtype, &nvals);
    return MMD_OK;
}

MMD_API mmd_status mmd_tensor_proto_decode(mmd_arena *a, const void *data, size_t size,
                                           mmd_tensor *t, mmd_error *err) {
    mmd_error local;
    mmd__pb top;
    if (!err) err = &local;
    if (!a || !t || (!data && size))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_tensor_proto_decode: NULL argument");
    top.p = (const uint8_t *)data;
    top.end = top.p + size;
    top.msg = "TensorProto";
    top.err = err;
    return mmd__decode_tensor(a, &top, (const uint8_t *)data, size, t, 0, NULL);
}

/* ==== >>valueinfo ==== */
/* Name, element type and shape of a graph input or output. A missing shape gives rank -1. */
static mmd_status mmd__decode_value_info(mmd_arena *a, mmd__pb *parent, const mmd__field *vf,
                                         mmd_tensor *t) {
    mmd__pb r = mmd__pb_sub(parent, vf->data, vf->len, "ValueInfoProto"), rt, rs, rsh, rd;
    mmd__field f, g, h, k, d;
    int rc;
    memset(t, 0, sizeof(*t));
    t->name = "";
    t->rank = -1;
    t->producer = -1;
    while ((rc = mmd__pb_next(&r, &f)) > 0) {
        if (f.num == 1) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "name")) return MMD__FAIL(&r);
            if (!(t->name = mmd__pb_string(a, &f, r.err))) return MMD__FAIL(&r);
        } else if (f.num == 2) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "type")) return MMD__FAIL(&r);
            rt = mmd__pb_sub(&r, f.data, f.len, "TypeProto");
            while ((rc = mmd__pb_next(&rt, &g)) > 0) {
                if (g.num != 1) {
                    if (g.num == 4 || g.num == 5 || g.num == 8 || g.num == 9)
                        t->dtype = -1; /* sequence, map, sparse or optional: not a plain tensor */
                    continue;
                }
                if (!mmd__pb_expect(&rt, &g, MMD__WIRE_LEN, "tensor_type")) return MMD__FAIL(&rt);
                rs = mmd__pb_sub(&rt, g.data, g.len, "TypeProto.Tensor");
                while ((rc = mmd__pb_next(&rs, &h)) > 0) {
                    if (h.num == 1) {
                        if (!mmd__pb_expect(&rs, &h, MMD__WIRE_VARINT, "elem_type")) return MMD__FAIL(&rs);
                        t->dtype = h.v > 0x7fffffff ? -1 : (int32_t)h.v;
                    } else if (h.num == 2) {
                        if (!mmd__pb_expect(&rs, &h, MMD__WIRE_LEN, "shape")) return MMD__FAIL(&rs);
                        t->rank = 0;
                        rsh = mmd__pb_sub(&rs, h.data, h.len, "TensorShapeProto");
                        while ((rc = mmd__pb_next(&rsh, &k)) > 0) {
                            if (k.num != 1) continue;
                            if (!mmd__pb_expect(&rsh, &k, MMD__WIRE_LEN, "dim")) return MMD__FAIL(&rsh);
                            if (t->rank >= MMD_MAX_RANK)
                                return mmd_error_set(r.err, MMD_ERR_LIMIT, -1, NULL,
                                                     "value '%s': rank exceeds MMD_MAX_RANK %d",
                                                     t->name, (int)MMD_MAX_RANK);
                            t->dims[t->rank] = -1;
                            rd = mmd__pb_sub(&rsh, k.data, k.len, "TensorShapeProto.Dimension");
                            while ((rc = mmd__pb_next(&rd, &d)) > 0) {
                                if (d.num == 1) {
                                    if (!mmd__pb_expect(&rd, &d, MMD__WIRE_VARINT, "dim_value")) return MMD__FAIL(&rd);
                                    t->dims[t->rank] = (int64_t)d.v;
                                } else if (d.num == 2) {
                                    if (!mmd__pb_expect(&rd, &d, MMD__WIRE_LEN, "dim_param")) return MMD__FAIL(&rd);
                                    if (!(t->dim_params[t->rank] = mmd__pb_string(a, &d, r.err))) return MMD__FAIL(&rd);
                                }
                            }
                            if (rc < 0) return MMD__FAIL(&rd);
                            /* A dim with neither value nor name is symbolic too. */
                            if (t->dims[t->rank] < 0 && !t->dim_params[t->rank]) t->dim_params[t->rank] = "?";
                            t->rank++;
                        }
                        if (rc < 0) return MMD__FAIL(&rsh);
                    }
                }
                if (rc < 0) return MMD__FAIL(&rs);
            }
            if (rc < 0) return MMD__FAIL(&rt);
        }
    }
    if (rc < 0) return MMD__FAIL(&r);
    return MMD_OK;
}

/* ==== >>attribute decoding ==== */
static mmd_status mmd__decode_attr(mmd_arena *a, mmd__pb *parent, const mmd__field *af,
                                   mmd_attr *at, size_t *copied) {
    mmd__pb r = mmd__pb_sub(parent, af->data, af->len, "AttributeProto");
    mmd__field f;
    int rc;
    int64_t nfloats = 0, nints = 0, nstrings = 0, ntensors = 0, n;
    int32_t seen = MMD_ATTR_UNDEFINED; /* inferred type for writers that omit 'type' */
    mmd_status st;

    memset(at, 0, sizeof(*at));
    at->name = "";
    at->s = "";
    while ((rc = mmd__pb_next(&r, &f)) > 0) {
        switch (f.num) {
        case 1:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "name")) return MMD__FAIL(&r);
            if (!(at->name = mmd__pb_string(a, &f, r.err))) return MMD__FAIL(&r);
            break;
        case 20:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_VARINT, "type")) return MMD__FAIL(&r);
            at->type = f.v > 14 ? -1 : (int32_t)f.v;
            break;
        case 2:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_FIXED32, "f")) return MMD__FAIL(&r);
            { uint32_t u = (uint32_t)f.v; memcpy(&at->f, &u, 4); }
            seen = MMD_ATTR_FLOAT;
            break;
        case 3:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_VARINT, "i")) return MMD__FAIL(&r);
            at->i = (int64_t)f.v;
            seen = MMD_ATTR_INT;
            break;
        case 4:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "s")) return MMD__FAIL(&r);
            if (!(at->s = mmd__pb_string(a, &f, r.err))) return MMD__FAIL(&r);
            at->s_len = f.len;
            seen = MMD_ATTR_STRING;
            break;
        case 5:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "t")) return MMD__FAIL(&r);
            if (!(at->t = (mmd_tensor *)mmd_arena_alloc(a, sizeof(mmd_tensor), r.err))) return MMD__FAIL(&r);
            if ((st = mmd__decode_tensor(a, &r, f.data, f.len, at->t, 0, copied)) != MMD_OK) return st;
            at->t->kind = MMD_TENSOR_CONSTANT;
            seen = MMD_ATTR_TENSOR;
            break;
        case 6:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "g")) return MMD__FAIL(&r);
            at->g = f.data;
            at->g_len = f.len;
            seen = MMD_ATTR_GRAPH;
            break;
        case 7:
            if (!mmd__pb_count_scalars(&r, &f, MMD__WIRE_FIXED32, "floats", &nfloats)) return MMD__FAIL(&r);
            seen = MMD_ATTR_FLOATS;
            break;
        case 8:
            if (!mmd__pb_count_scalars(&r, &f, MMD__WIRE_VARINT, "ints", &nints)) return MMD__FAIL(&r);
            seen = MMD_ATTR_INTS;
            break;
        case 9:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "strings")) return MMD__FAIL(&r);
            ++nstrings;
            seen = MMD_ATTR_STRINGS;
            break;
        case 10:
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "tensors")) return MMD__FAIL(&r);
            ++ntensors;
            seen = MMD_ATTR_TENSORS;
            break;
        case 11:
            seen = MMD_ATTR_GRAPHS;
            break;
        default:
            break;
        }
    }
    if (rc < 0) return MMD__FAIL(&r);
    if (at->type == MMD_ATTR_UNDEFINED) at->type = seen;
    if (at->type < 0 || at->type > MMD_ATTR_GRAPHS)
        return mmd_error_set(r.err, MMD_ERR_UNSUPPORTED, -1, NULL,
                             "attribute '%s': type %d is not supported", at->name, (int)at->type);
    if ((at->type == MMD_ATTR_TENSOR && !at->t) || (at->type == MMD_ATTR_GRAPH && !at->g))
        return mmd_error_set(r.err, MMD_ERR_INVALID_MODEL, -1, NULL,
                             "attribute '%s': type says %s but no value is present", at->name,
                             at->type == MMD_ATTR_TENSOR ? "tensor" : "graph");
    at->count = at->type == MMD_ATTR_FLOATS ? nfloats : at->type == MMD_ATTR_INTS ? nints
              : at->type == MMD_ATTR_STRINGS ? nstrings : at->type == MMD_ATTR_TENSORS ? ntensors : 0;
    /* The second bound keeps count x element size inside size_t on 32-bit hosts. */
    if (at->count > MMD_MAX_ATTR_VALUES || (uint64_t)at->count > MMD_MAX_TENSOR_BYTES / sizeof(mmd_tensor))
        return mmd_error_set(r.err, MMD_ERR_LIMIT, -1, NULL,
                             "attribute '%s': %lld values exceed MMD_MAX_ATTR_VALUES (%lld)", at->name,
                             (long long)at->count, (long long)MMD_MAX_ATTR_VALUES);
    if (at->type == MMD_ATTR_FLOATS && nfloats) {
        float *v = (float *)mmd_arena_alloc(a, (size_t)nfloats * sizeof(float), r.err);
        if (!v) return MMD__FAIL(&r);
        n = 0;
        r = mmd__pb_sub(parent, af->data, af->len, "AttributeProto");
        while (mmd__pb_next(&r, &f) > 0)
            if (f.num == 7) mmd__pb_read_scalars(&f, MMD__WIRE_FIXED32, v, MMD_DTYPE_FLOAT32, &n);
        at->floats = v;
    } else if (at->type == MMD_ATTR_INTS && nints) {
        int64_t *v = (int64_t *)mmd_arena_alloc(a, (size_t)nints * sizeof(int64_t), r.err);
        if (!v) return MMD__FAIL(&r);
        n = 0;
        r = mmd__pb_sub(parent, af->data, af->len, "AttributeProto");
        while (mmd__pb_next(&r, &f) > 0)
            if (f.num == 8) mmd__pb_read_scalars(&f, MMD__WIRE_VARINT, v, MMD_DTYPE_INT64, &n);
        at->ints = v;
    } else if (at->type == MMD_ATTR_STRINGS && nstrings) {
        const char **v = (const char **)mmd_arena_alloc(a, (size_t)nstrings * sizeof(char *), r.err);
        if (!v) return MMD__FAIL(&r);
        n = 0;
        r = mmd__pb_sub(parent, af->data, af->len, "AttributeProto");
        while (mmd__pb_next(&r, &f) > 0)
            if (f.num == 9 && !(v[n++] = mmd__pb_string(a, &f, r.err))) return MMD__FAIL(&r);
        at->strings = v;
    } else if (at->type == MMD_ATTR_TENSORS && ntensors) {
        mmd_tensor *v = (mmd_tensor *)mmd_arena_alloc(a, (size_t)ntensors * sizeof(mmd_tensor), r.err);
        if (!v) return MMD__FAIL(&r);
        n = 0;
        r = mmd__pb_sub(parent, af->data, af->len, "AttributeProto");
        while (mmd__pb_next(&r, &f) > 0)
            if (f.num == 10) {
                if ((st = mmd__decode_tensor(a, &r, f.data, f.len, &v[n], 0, copied)) != MMD_OK) return st;
                v[n++].kind = MMD_TENSOR_CONSTANT;
            }
        at->tensors = v;
    }
    return MMD_OK;
}

/* ==== >>node decoding ==== */
/* Names of a node's inputs and outputs, kept only until the graph resolves them. */
typedef struct mmd__node_names {
    const char **in, **out;
} mmd__node_names;

static mmd_status mmd__decode_node(mmd_arena *a, mmd__pb *parent, const mmd__field *nf, mmd_node *n,
                                   mmd__node_names *names, size_t *copied) {
    mmd__pb r = mmd__pb_sub(parent, nf->data, nf->len, "NodeProto");
    mmd__field f;
    int rc;
    int32_t ni = 0, no = 0, na = 0;
    mmd_status st;

    memset(n, 0, sizeof(*n));
    n->name = n->op_type = n->domain = "";
    while ((rc = mmd__pb_next(&r, &f)) > 0) {
        if (f.num == 1 || f.num == 2 || f.num == 5) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, f.num == 5 ? "attribute" : "input/output")) return MMD__FAIL(&r);
            if (f.num == 1) ++ni;
            else if (f.num == 2) ++no;
            else ++na;
            if (ni > MMD_MAX_NODE_IO || no > MMD_MAX_NODE_IO)
                return mmd_error_set(r.err, MMD_ERR_LIMIT, -1, NULL, "node has over %d inputs or outputs "
                                     "(MMD_MAX_NODE_IO)", (int)MMD_MAX_NODE_IO);
        }
    }
    if (rc < 0) return MMD__FAIL(&r);
    if (na > MMD_MAX_ATTRIBUTES)
        return mmd_error_set(r.err, MMD_ERR_LIMIT, -1, NULL,
                             "node has %d attributes, MMD_MAX_ATTRIBUTES is %d", (int)na, (int)MMD_MAX_ATTRIBUTES);
    names->in = (const char **)mmd_arena_alloc(a, (size_t)ni * sizeof(char *), r.err);
    names->out = (const char **)mmd_arena_alloc(a, (size_t)no * sizeof(char *), r.err);
    n->attrs = (mmd_attr *)mmd_arena_alloc(a, (size_t)na * sizeof(mmd_attr), r.err);
    if (!names->in || !names->out || !n->attrs) return MMD__FAIL(&r);
    r = mmd__pb_sub(parent, nf->data, nf->len, "NodeProto");
    while (mmd__pb_next(&r, &f) > 0) {
        const char **slot = NULL;
        switch (f.num) {
        case 1: slot = &names->in[n->input_count++]; break;
        case 2: slot = &names->out[n->output_count++]; break;
        case 3: slot = &n->name; break;
        case 4: slot = &n->op_type; break;
        case 7: slot = &n->domain; break;
        case 5:
            if ((st = mmd__decode_attr(a, &r, &f, &n->attrs[n->attr_count], copied)) != MMD_OK) return st;
            n->attr_count++;
            break;
        default: break;
        }
        if (slot) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "string")) return MMD__FAIL(&r);
            if (!(*slot = mmd__pb_string(a, &f, r.err))) return MMD__FAIL(&r);
        }
    }
    if (!n->op_type[0]) return mmd_error_set(r.err, MMD_ERR_INVALID_MODEL, -1, NULL, "node '%s' has no op_type", n->name);
    return MMD_OK;
}

/* ==== >>graph ==== */
static uint32_t mmd__hash(const char *s) {
    uint32_t h = 2166136261u;
    while (*s) h = (h ^ (uint8_t)*s++) * 16777619u;
    return h;
}

/* Open-addressing name table over model->tensors; cap is a power of two above 2x entries. */
typedef struct mmd__names {
    int32_t *slot;
    uint32_t mask;
} mmd__names;

static int32_t mmd__names_find(const mmd__names *t, const mmd_tensor *tensors, const char *name) {
    uint32_t i = mmd__hash(name) & t->mask;
    while (t->slot[i] >= 0) {
        if (strcmp(tensors[t->slot[i]].name, name) == 0) return t->slot[i];
        i = (i + 1) & t->mask;
    }
    return -1;
}

static void mmd__names_add(mmd__names *t, const mmd_tensor *tensors, int32_t index) {
    uint32_t i = mmd__hash(tensors[index].name) & t->mask;
    while (t->slot[i] >= 0) i = (i + 1) & t->mask;
    t->slot[i] = index;
}

#endif /* MMD_NO_ONNX */

MMD_API int32_t mmd_model_find_tensor(const mmd_model *m, const char *name) {
    int32_t i;
    if (!m || !name) return -1;
    for (i = 0; i < m->tensor_count; ++i)
        if (strcmp(m->tensors[i].name, name) == 0) return i;
    return -1;
}

MMD_API int64_t mmd_model_opset(const mmd_model *m, const char *domain) {
    int32_t i;
    int is_default = !domain || !domain[0] || strcmp(domain, "ai.onnx") == 0;
    if (!m) return 0;
    for (i = 0; i < m->opset_count; ++i) {
        const char *d = m->opsets[i].domain;
        int d_default = !d[0] || strcmp(d, "ai.onnx") == 0;
        if (is_default ? d_default : strcmp(d, domain) == 0) return m->opsets[i].version;
    }
    return 0;
}

#ifndef MMD_NO_ONNX
/* Orders nodes so every input is produced before it is read (Kahn's algorithm); keeps the
   file's order when it is already valid. A node left over sits on a cycle. */
static mmd_status mmd__sort_nodes(mmd_arena *a, mmd_model *m, mmd_error *err) {
    int32_t n = m->node_count, i, j, head = 0, tail = 0;
    int sorted = 1;
    int32_t *indeg, *start, *edges, *fill, *queue;
    mmd_node *out;

    for (i = 0; i < n && sorted; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j) {
            int32_t t = m->nodes[i].inputs[j];
            if (t >= 0 && m->tensors[t].producer >= i) { sorted = 0; break; }
        }
    if (sorted) return MMD_OK;

    indeg = (int32_t *)mmd_arena_alloc(a, (size_t)n * sizeof(int32_t), err);
    start = (int32_t *)mmd_arena_alloc(a, ((size_t)n + 1) * sizeof(int32_t), err);
    fill = (int32_t *)mmd_arena_alloc(a, (size_t)n * sizeof(int32_t), err);
    queue = (int32_t *)mmd_arena_alloc(a, (size_t)n * sizeof(int32_t), err);
    if (!indeg || !start || !fill || !queue) return err->status;
    /* Edges producer -> consumer, one per input that another node produces (CSR layout). */
    for (i = 0; i < n; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j) {
            int32_t t = m->nodes[i].inputs[j];
            if (t >= 0 && m->tensors[t].producer >= 0) { start[m->tensors[t].producer + 1]++; indeg[i]++; }
        }
    for (i = 0; i < n; ++i) start[i + 1] += start[i];
    edges = (int32_t *)mmd_arena_alloc(a, (size_t)start[n] * sizeof(int32_t) + 1, err);
    if (!edges) return err->status;
    for (i = 0; i < n; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j) {
            int32_t t = m->nodes[i].inputs[j];
            if (t >= 0 && m->tensors[t].producer >= 0) {
                int32_t p = m->tensors[t].producer;
                edges[start[p] + fill[p]++] = i;
            }
        }
    for (i = 0; i < n; ++i)
        if (!indeg[i]) queue[tail++] = i;
    while (head < tail) {
        int32_t p = queue[head++];
        for (j = start[p]; j < start[p + 1]; ++j)
            if (--indeg[edges[j]] == 0) queue[tail++] = edges[j];
    }
    if (tail < n) {
        for (i = 0; i < n && !indeg[i]; ++i) {}
        return mmd_error_set(err, MMD_ERR_INVALID_MODEL, i, m->nodes[i].op_type,
                             "graph has a cycle through node '%s' (%s)", m->nodes[i].name,
                             m->nodes[i].op_type);
    }
    out = (mmd_node *)mmd_arena_alloc(a, (size_t)n * sizeof(mmd_node), err);
    if (!out) return err->status;
    for (i = 0; i < n; ++i) {
        out[i] = m->nodes[queue[i]];
        for (j = 0; j < out[i].output_count; ++j)
            if (out[i].outputs[j] >= 0) m->tensors[out[i].outputs[j]].producer = i;
    }
    m->nodes = out;
    return MMD_OK;
}

/* Adds a tensor name to the table, refusing a second definition of the same name. */
static mmd_status mmd__define(mmd_model *m, mmd__names *names, const mmd_tensor *proto,
                              int32_t *index, mmd_error *err) {
    if (mmd__names_find(names, m->tensors, proto->name) >= 0)
        return mmd_error_set(err, MMD_ERR_INVALID_MODEL, -1, NULL, "tensor '%s' is defined twice",
                             proto->name);
    *index = m->tensor_count++;
    m->tensors[*index] = *proto;
    mmd__names_add(names, m->tensors, *index);
    return MMD_OK;
}

static mmd_status mmd__decode_graph(mmd_arena *a, mmd__pb *parent, const mmd__field *gf,
                                    mmd_model *m, int32_t copy) {
    mmd__pb r = mmd__pb_sub(parent, gf->data, gf->len, "GraphProto");
    mmd__field f;
    mmd_error *err = parent->err;
    int rc;
    int64_t nnodes = 0, ninit = 0, nin = 0, nout = 0, cap, outs = 0;
    int32_t i, j, k;
    mmd__node_names *names;
    mmd__names table;
    mmd_tensor *outputs_vi, tmp;
    mmd_status st;

    while ((rc = mmd__pb_next(&r, &f)) > 0) {
        if (f.num == 1 || f.num == 5 || f.num == 11 || f.num == 12) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "node/initializer/input/output")) return MMD__FAIL(&r);
            if (f.num == 1) ++nnodes;
            else if (f.num == 5) ++ninit;
            else if (f.num == 11) ++nin;
            else ++nout;
        } else if (f.num == 15) {
            return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "sparse initializers are not supported");
        } else if (f.num == 2 && f.wire == MMD__WIRE_LEN) {
            if (!(m->graph_name = mmd__pb_string(a, &f, err))) return err->status;
        }
    }
    if (rc < 0) return MMD__FAIL(&r);
    if (nnodes > MMD_MAX_NODES || ninit > MMD_MAX_NODES || nin > MMD_MAX_NODES || nout > MMD_MAX_NODES)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL,
                             "graph has %lld nodes, %lld initializers (MMD_MAX_NODES is %d)",
                             (long long)nnodes, (long long)ninit, (int)MMD_MAX_NODES);
    m->nodes = (mmd_node *)mmd_arena_alloc(a, (size_t)nnodes * sizeof(mmd_node), err);
    names = (mmd__node_names *)mmd_arena_alloc(a, (size_t)nnodes * sizeof(mmd__node_names), err);
    m->inputs = (int32_t *)mmd_arena_alloc(a, (size_t)nin * sizeof(int32_t), err);
    m->outputs = (int32_t *)mmd_arena_alloc(a, (size_t)nout * sizeof(int32_t), err);
    outputs_vi = (mmd_tensor *)mmd_arena_alloc(a, (size_t)nout * sizeof(mmd_tensor), err);
    if (!m->nodes || !names || !m->inputs || !m->outputs || !outputs_vi) return err->status;

    /* Nodes first: their output counts size the tensor table. */
    r = mmd__pb_sub(parent, gf->data, gf->len, "GraphProto");
    while (mmd__pb_next(&r, &f) > 0)
        if (f.num == 1) {
            if ((st = mmd__decode_node(a, &r, &f, &m->nodes[m->node_count], &names[m->node_count],
                                       &m->weight_copy_bytes)) != MMD_OK)
                return st;
            outs += m->nodes[m->node_count++].output_count;
        }
    cap = ninit + nin + outs;
    if (cap > MMD_MAX_TENSORS)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL, "graph has %lld tensors, MMD_MAX_TENSORS is %lld",
                             (long long)cap, (long long)MMD_MAX_TENSORS);
    m->tensors = (mmd_tensor *)mmd_arena_alloc(a, (size_t)cap * sizeof(mmd_tensor) + 1, err);
    for (table.mask = 15; (int64_t)table.mask + 1 < 2 * cap + 2; table.mask = table.mask * 2 + 1) {}
    table.slot = (int32_t *)mmd_arena_alloc(a, ((size_t)table.mask + 1) * sizeof(int32_t), err);
    if (!m->tensors || !table.slot) return err->status;
    memset(table.slot, 0xff, ((size_t)table.mask + 1) * sizeof(int32_t));

    /* Initializers, then graph inputs (an input naming an initializer is not a user input). */
    r = mmd__pb_sub(parent, gf->data, gf->len, "GraphProto");
    while (mmd__pb_next(&r, &f) > 0) {
        if (f.num == 5) {
            if ((st = mmd__decode_tensor(a, &r, f.data, f.len, &tmp, copy, &m->weight_copy_bytes)) != MMD_OK) return st;
            if (!tmp.name[0]) return mmd_error_set(err, MMD_ERR_INVALID_MODEL, -1, NULL, "an initializer has no name");
            if ((st = mmd__define(m, &table, &tmp, &k, err)) != MMD_OK) return st;
        } else if (f.num == 12) {
            if ((st = mmd__decode_value_info(a, &r, &f, &outputs_vi[m->output_count++])) != MMD_OK) return st;
        }
    }
    r = mmd__pb_sub(parent, gf->data, gf->len, "GraphProto");
    while (mmd__pb_next(&r, &f) > 0)
        if (f.num == 11) {
            if ((st = mmd__decode_value_info(a, &r, &f, &tmp)) != MMD_OK) return st;
            k = mmd__names_find(&table, m->tensors, tmp.name);
            if (k >= 0 && m->tensors[k].kind == MMD_TENSOR_INITIALIZER) continue;
            if (tmp.dtype <= 0 || mmd_dtype_size(tmp.dtype) == 0)
                return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL,
                                     "graph input '%s': type %d is not a supported tensor type",
                                     tmp.name, (int)tmp.dtype);
            tmp.kind = MMD_TENSOR_INPUT;
            if ((st = mmd__define(m, &table, &tmp, &k, err)) != MMD_OK) return st;
            m->inputs[m->input_count++] = k;
        }

    /* Node outputs, then node inputs resolved against everything defined. */
    for (i = 0; i < m->node_count; ++i) {
        mmd_node *n = &m->nodes[i];
        n->outputs = (int32_t *)mmd_arena_alloc(a, (size_t)n->output_count * sizeof(int32_t) + 1, err);
        n->inputs = (int32_t *)mmd_arena_alloc(a, (size_t)n->input_count * sizeof(int32_t) + 1, err);
        if (!n->outputs || !n->inputs) return err->status;
        for (j = 0; j < n->output_count; ++j) {
            n->outputs[j] = -1;
            if (!names[i].out[j][0]) continue;
            memset(&tmp, 0, sizeof(tmp));
            tmp.name = names[i].out[j];
            tmp.producer = i;
            tmp.kind = MMD_TENSOR_ACTIVATION;
            if ((st = mmd__define(m, &table, &tmp, &n->outputs[j], err)) != MMD_OK) {
                err->node = i;
                return st;
            }
        }
    }
    for (i = 0; i < m->node_count; ++i) {
        mmd_node *n = &m->nodes[i];
        for (j = 0; j < n->input_count; ++j) {
            n->inputs[j] = -1;
            if (!names[i].in[j][0]) continue;
            n->inputs[j] = mmd__names_find(&table, m->tensors, names[i].in[j]);
            if (n->inputs[j] < 0)
                return mmd_error_set(err, MMD_ERR_INVALID_MODEL, i, n->op_type,
                                     "node '%s' (%s): input '%s' is not produced by any node, "
                                     "initializer or graph input", n->name, n->op_type, names[i].in[j]);
        }
    }
    for (i = 0; i < m->output_count; ++i) {
        k = mmd__names_find(&table, m->tensors, outputs_vi[i].name);
        if (k < 0)
            return mmd_error_set(err, MMD_ERR_INVALID_MODEL, -1, NULL,
                                 "graph output '%s' is not produced by the graph", outputs_vi[i].name);
        m->tensors[k].is_output = 1;
        if (m->tensors[k].producer >= 0) {
            /* The declaration stands until the plan infers the real type and shape. */
            m->tensors[k].dtype = outputs_vi[i].dtype;
            m->tensors[k].rank = outputs_vi[i].rank > 0 ? outputs_vi[i].rank : 0;
            for (j = 0; j < m->tensors[k].rank; ++j) {
                m->tensors[k].dims[j] = outputs_vi[i].dims[j];
                m->tensors[k].dim_params[j] = outputs_vi[i].dim_params[j];
            }
        }
        m->outputs[i] = k;
    }
    if ((st = mmd__sort_nodes(a, m, err)) != MMD_OK) return st;
    /* Pointer views of the indices, for kernels. */
    for (i = 0; i < m->node_count; ++i) {
        mmd_node *n = &m->nodes[i];
        n->in = (mmd_tensor **)mmd_arena_alloc(a, (size_t)n->input_count * sizeof(mmd_tensor *) + 1, err);
        n->out = (mmd_tensor **)mmd_arena_alloc(a, (size_t)n->output_count * sizeof(mmd_tensor *) + 1, err);
        if (!n->in || !n->out) return err->status;
        for (j = 0; j < n->input_count; ++j) n->in[j] = n->inputs[j] >= 0 ? &m->tensors[n->inputs[j]] : NULL;
        for (j = 0; j < n->output_count; ++j) n->out[j] = n->outputs[j] >= 0 ? &m->tensors[n->outputs[j]] : NULL;
        n->opset = (int32_t)mmd_model_opset(m, n->domain);
        if (n->opset <= 0 && m->opset_count)
            return mmd_error_set(err, MMD_ERR_INVALID_MODEL, i, n->op_type,
                                 "node '%s' (%s): domain '%s' is not in opset_import", n->name,
                                 n->op_type, n->domain);
        /* Models before IR version 3 carried no opset_import and mean opset 1. */
        if (n->opset <= 0 && m->ir_version >= 3)
            return mmd_error_set(err, MMD_ERR_INVALID_MODEL, i, n->op_type,
                                 "node '%s' (%s): the model has no opset_import (IR version %lld)",
                                 n->name, n->op_type, (long long)m->ir_version);
        if (n->opset <= 0) n->opset = 1;
    }
    return MMD_OK;
}

/* ==== >>model ==== */
static mmd_status mmd__parse(mmd_arena *a, const void *data, size_t size, int32_t copy,
                             mmd_model **out, mmd_error *err) {
    mmd__pb r;
    mmd__field f, graph;
    int rc;
    int64_t nops = 0;
    mmd_model *m;
    mmd_status st;

    r.p = (const uint8_t *)data;
    r.end = r.p + size;
    r.msg = "ModelProto";
    r.err = err;
    graph.data = NULL;
    graph.len = 0;
    if (!size) return mmd_error_set(err, MMD_ERR_MALFORMED, -1, NULL, "model is empty (0 bytes)");
    if (!(m = (mmd_model *)mmd_arena_alloc(a, sizeof(mmd_model), err))) return err->status;
    m->producer_name = m->producer_version = m->graph_name = "";
    while ((rc = mmd__pb_next(&r, &f)) > 0) {
        if (f.num == 8) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "opset_import")) return MMD__FAIL(&r);
            ++nops;
        } else if (f.num == 7) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "graph")) return MMD__FAIL(&r);
            graph = f;
        } else if (f.num == 1) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_VARINT, "ir_version")) return MMD__FAIL(&r);
            m->ir_version = (int64_t)f.v;
        } else if (f.num == 2 || f.num == 3) {
            if (!mmd__pb_expect(&r, &f, MMD__WIRE_LEN, "producer")) return MMD__FAIL(&r);
            if (!(*(f.num == 2 ? &m->producer_name : &m->producer_version) = mmd__pb_string(a, &f, err)))
                return err->status;
        }
    }
    if (rc < 0) return MMD__FAIL(&r);
    if (!graph.data) return mmd_error_set(err, MMD_ERR_INVALID_MODEL, -1, NULL, "model has no graph");
    if (nops > MMD_MAX_OPSETS)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL, "%lld opset imports, MMD_MAX_OPSETS is %d",
                             (long long)nops, (int)MMD_MAX_OPSETS);
    if (!(m->opsets = (mmd_opset *)mmd_arena_alloc(a, (size_t)nops * sizeof(mmd_opset), err))) return err->status;
    r.p = (const uint8_t *)data;
    while (mmd__pb_next(&r, &f) > 0) {
        mmd__pb ro;
        mmd__field g;
        mmd_opset *o;
        if (f.num != 8) continue;
        o = &m->opsets[m->opset_count++];
        o->domain = "";
        ro = mmd__pb_sub(&r, f.data, f.len, "OperatorSetIdProto");
        while ((rc = mmd__pb_next(&ro, &g)) > 0) {
            if (g.num == 1) {
                if (!mmd__pb_expect(&ro, &g, MMD__WIRE_LEN, "domain")) return MMD__FAIL(&ro);
                if (!(o->domain = mmd__pb_string(a, &g, err))) return err->status;
            } else if (g.num == 2) {
                if (!mmd__pb_expect(&ro, &g, MMD__WIRE_VARINT, "version")) return MMD__FAIL(&ro);
                o->version = (int64_t)g.v;
            }
        }
        if (rc < 0) return MMD__FAIL(&ro);
        if (o->version <= 0 || o->version > 1000)
            return mmd_error_set(err, MMD_ERR_INVALID_MODEL, -1, NULL,
                                 "opset_import '%s': version %lld is out of range", o->domain,
                                 (long long)o->version);
    }
    if ((st = mmd__decode_graph(a, &r, &graph, m, copy)) != MMD_OK) return st;
    *out = m;
    return MMD_OK;
}
#endif /* MMD_NO_ONNX */

/* The first bytes of a .mmd blob (>>blob): no exporter starts a ModelProto this way. */
static const uint8_t mmd__blob_magic[8] = {0x89, 'M', 'M', 'D', 0x0d, 0x0a, 0x1a, 0x0a};
static mmd_status mmd__blob_load(mmd_arena *a, const uint8_t *p, size_t size, int32_t copy,
                                 mmd_model **out, mmd_error *err);

MMD_API mmd_status mmd_model_parse(mmd_arena *a, const void *data, size_t size,
                                   int32_t copy_weights, mmd_model **out, mmd_error *err) {
    mmd_error local;
    if (!err) err = &local;
    if (!a || !out || (!data && size))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_model_parse: NULL argument");
    if (size >= 8 && memcmp(data, mmd__blob_magic, 8) == 0)
        return mmd__blob_load(a, (const uint8_t *)data, size, copy_weights, out, err);
#ifdef MMD_NO_ONNX
    return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "the model is not a .mmd blob, and this build "
                         "reads no ONNX (MMD_NO_ONNX): convert it with `mmdeploy convert`");
#else
    return mmd__parse(a, data, size, copy_weights ? 1 : 0, out, err);
#endif
}

/* ==== >>planning ==== */
#define MMD__TENSOR_ALIGN 64u

/* The context of node n, numbered i (a set's member takes its set node's number). */
static void mmd__kernel_ctx_of(mmd_kernel_ctx *c, mmd_model *m, mmd_node *n, int32_t i, mmd_error *err) {
    c->node = n;
    c->node_index = i;
    c->opset = n->opset;
    c->input_count = n->input_count;
    c->output_count = n->output_count;
    c->inputs = n->in;
    c->outputs = n->out;
    c->op_data = n->op_data;
    c->scratch = NULL;
    c->scratch_size = n->scratch_size;
    c->err = err;
    c->backend = n->backend;
    c->threads = m->threads;
    c->parallel = m->parallel;
    c->parallel_user = m->parallel_user;
    c->arena = NULL;
}

static void mmd__kernel_ctx(mmd_kernel_ctx *c, mmd_model *m, int32_t i, mmd_error *err) {
    mmd__kernel_ctx_of(c, m, &m->nodes[i], i, err);
}

MMD_API void *mmd_kernel_packed(mmd_kernel_ctx *c, size_t bytes, int32_t *fresh) {
    /* The node belongs to the model being planned; the context shows it read-only to kernels. */
    mmd_node *n = (mmd_node *)(uintptr_t)c->node;
    void *p;
    *fresh = 0;
    if (n->packed && n->packed_size == bytes) return n->packed;
    if (!c->arena) return NULL;
    if (!(p = mmd_arena_alloc(c->arena, bytes, c->err))) {
        mmd_kernel_fail(c, c->err->status, "cannot allocate %zu bytes of packed weights", bytes);
        return NULL;
    }
    n->packed = p;
    n->packed_size = bytes;
    *fresh = 1;
    return p;
}

MMD_API void mmd_kernel_parallel(const mmd_kernel_ctx *c, mmd_task_fn task, void *data, int32_t count) {
    int32_t i;
    if (count > 1 && c->threads > 1 && c->parallel) {
        c->parallel(c->parallel_user, task, data, count);
        return;
    }
    for (i = 0; i < count; ++i) task(data, i);
}

/* Puts a kernel's own failure in context when the kernel returned a status without a message. */
static mmd_status mmd__kernel_status(mmd_kernel_ctx *c, mmd_status st, const char *phase) {
    if (st != MMD_OK && c->err->status != st)
        mmd_kernel_fail(c, st, "%s failed", phase);
    /* One bound on every kernel's scratch, as on every tensor: a hostile shape cannot make the
       plan ask for (and zero) gigabytes of scratch, and a .mmd blob stores the size in 32 bits. */
    if (st == MMD_OK && (uint64_t)c->scratch_size > (uint64_t)MMD_MAX_TENSOR_BYTES)
        st = mmd_kernel_fail(c, MMD_ERR_LIMIT, "needs %llu bytes of scratch, more than MMD_MAX_TENSOR_BYTES (%llu)",
                             (unsigned long long)c->scratch_size, (unsigned long long)MMD_MAX_TENSOR_BYTES);
    return st;
}

#ifndef MMD_NO_ONNX
/* 1 when every input present is fixed for the life of the plan (weights, folded constants). */
static int32_t mmd__inputs_static(const mmd_node *n) {
    int32_t j;
    for (j = 0; j < n->input_count; ++j) {
        const mmd_tensor *t = n->in[j];
        if (!t) continue;
        if (!t->data || t->dynamic ||
            (t->kind != MMD_TENSOR_INITIALIZER && t->kind != MMD_TENSOR_CONSTANT))
            return 0;
    }
    return 1;
}

/* 1 when every input present has a value now (fixed, folded, or a bound graph input). */
static int32_t mmd__inputs_known(const mmd_node *n) {
    int32_t j;
    for (j = 0; j < n->input_count; ++j)
        if (n->in[j] && !mmd_tensor_is_const(n->in[j])) return 0;
    return 1;
}

/* Marks, per tensor, whether some prepare reads its value, directly (a value input) or through
   the nodes that compute it; those nodes then run at plan time, and a graph input reached this
   way makes each new binding re-plan. One pass from the last node back suffices because a
   tensor's readers all come after its producer. */
static uint8_t *mmd__values_needed(mmd_model *m, mmd_arena *a, mmd_error *err) {
    uint8_t *need = (uint8_t *)mmd_arena_alloc(a, (size_t)m->tensor_count + 1, err);
    int32_t i, j;
    if (!need) return NULL;
    for (i = m->node_count - 1; i >= 0; --i) {
        const mmd_node *n = &m->nodes[i];
        uint32_t flags = n->kernel ? n->kernel->flags : 0;
        int32_t feeds_value = 0;
        for (j = 0; j < n->output_count; ++j)
            if (n->outputs[j] >= 0 && need[n->outputs[j]]) feeds_value = 1;
        for (j = 0; j < n->input_count; ++j) {
            if (n->inputs[j] < 0) continue;
            if ((j < 24 && (flags & MMD_KERNEL_VALUE_INPUT(j))) ||
                (feeds_value && !(flags & MMD_KERNEL_SHAPE_ONLY)))
                need[n->inputs[j]] = 1;
        }
    }
    for (i = 0; i < m->input_count; ++i)
        m->tensors[m->inputs[i]].value_read = need[m->inputs[i]];
    return need;
}

/* A set node's members, before the set kernel's prepare: each member's reference prepare
   gives the internal tensors their dtypes and shapes (never their memory: the set kernel runs
   them) and the member its op data. No packed weights: members are never evaluated here. */
static mmd_status mmd__members_prepare(mmd_model *m, mmd_arena *a, int32_t i, mmd_error *err) {
    mmd_node *set = &m->nodes[i];
    int32_t j, k;
    mmd_status st;
    for (j = 0; j < set->member_count; ++j) {
        mmd_node *u = &set->members[j];
        mmd_kernel_ctx c;
        u->op_data = NULL;
        u->scratch_size = 0;
        u->packed = NULL;
        u->packed_size = 0;
        if (u->kernel->op_data_size && !(u->op_data = mmd_arena_alloc(a, u->kernel->op_data_size, err)))
            return err->status;
        mmd__kernel_ctx_of(&c, m, u, i, err);
        if ((st = mmd__kernel_status(&c, u->kernel->prepare(&c), "prepare")) != MMD_OK) return st;
        u->scratch_size = c.scratch_size;
        for (k = 0; k < u->output_count; ++k)
            if (u->out[k] && u->out[k]->producer < 0) u->out[k]->data = NULL;
    }
    return MMD_OK;
}

/* mmd_graph_plan for a model decoded from ONNX: shape inference, constant folding and
   placement. */
static mmd_status mmd__onnx_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats,
                                 void **activations, void **scratch, mmd_error *err) {
    mmd_plan_stats ps;
    int32_t i, j, nact = 0;
    int32_t *order, *live;
    size_t *sizes, total = 0, scratch_max = 0;
    uint8_t *need;
    mmd_status st;

    memset(&ps, 0, sizeof(ps));
    err->status = MMD_OK;
    if (!(need = mmd__values_needed(m, a, err))) return err->status;
    for (i = 0; i < m->tensor_count; ++i) {
        mmd_tensor *t = &m->tensors[i];
        if (t->producer < 0) continue;
        t->kind = MMD_TENSOR_ACTIVATION;
        t->data = NULL;
        t->dtype = 0;
        t->rank = 0;
        t->offset = 0;
        t->dynamic = 0;
        t->capacity = 0;
    }
    for (i = 0; i < m->node_count; ++i) {
        mmd_node *n = &m->nodes[i];
        mmd_kernel_ctx c;
        int32_t dyn_in = 0, dyn_out = 0, feeds_value = 0, compute_now;
        if (!n->kernel)
            return mmd_error_set(err, MMD_ERR_NO_KERNEL, i, n->op_type,
                                 "no kernel for %s::%s (opset %d)", n->domain[0] ? n->domain : "ai.onnx",
                                 n->op_type, (int)n->opset);
        n->folded = 0;
        n->reprepare = 0;
        n->scratch_size = 0;
        n->op_data = NULL;
        n->packed = NULL;
        n->packed_size = 0;
        if (n->kernel->op_data_size && !(n->op_data = mmd_arena_alloc(a, n->kernel->op_data_size, err)))
            return err->status;
        for (j = 0; j < n->input_count; ++j)
            if (n->in[j] && n->in[j]->dynamic) dyn_in = 1;
        if ((st = mmd__members_prepare(m, a, i, err)) != MMD_OK) return st;
        mmd__kernel_ctx(&c, m, i, err);
        c.arena = m->trial ? NULL : a;
        if ((st = mmd__kernel_status(&c, n->kernel->prepare(&c), "prepare")) != MMD_OK) return st;
        c.arena = NULL;
        n->scratch_size = c.scratch_size;
        ps.packed_bytes += n->packed_size;
        n->reprepare = dyn_in;
        for (j = 0; j < n->output_count; ++j) {
            if (n->out[j] && n->out[j]->dynamic) dyn_out = 1;
            if (n->outputs[j] >= 0 && need[n->outputs[j]]) feeds_value = 1;
        }
        /* Computed now when its inputs are known: once for good when they are fixed (or are
           graph inputs whose values some prepare needs, whose binding re-plans), or, when they
           derive from a dynamic tensor's bound shape, again at each run. */
        compute_now = !dyn_out && (mmd__inputs_static(n) || (n->kernel->flags & MMD_KERNEL_SHAPE_ONLY) ||
                                   (feeds_value && mmd__inputs_known(n)));
        for (j = 0; j < n->output_count; ++j) {
            mmd_tensor *t = n->out[j];
            size_t bytes;
            if (!t) continue;
            if (dyn_in) t->dynamic = 1;
            if ((st = mmd_tensor_nbytes(t, &bytes, err)) != MMD_OK) {
                char why[MMD_ERROR_MSG_SIZE];
                memcpy(why, err->msg, sizeof(why));
                return mmd_kernel_fail(&c, st, "%s", why);
            }
            if (!compute_now) continue;
            t->kind = MMD_TENSOR_CONSTANT;
            t->capacity = bytes;
            if (t->data) continue; /* a Constant's value, in the model bytes */
            if (!(t->data = mmd_arena_alloc(a, bytes, err))) return err->status;
            ps.constant_bytes += bytes;
        }
        if (compute_now) {
            if (!(c.scratch = mmd_arena_alloc(a, n->scratch_size, err))) return err->status;
            if ((st = mmd__kernel_status(&c, n->kernel->eval(&c), "eval")) != MMD_OK) return st;
            n->folded = !n->reprepare;
            ps.folded_count += n->folded;
        }
        ps.reprepare_count += n->reprepare;
        if (!n->folded && n->scratch_size > scratch_max) scratch_max = n->scratch_size;
    }

    /* Lifetimes: from the producing node to the last node that reads the tensor. */
    for (i = 0; i < m->tensor_count; ++i) m->tensors[i].last_use = m->tensors[i].producer;
    for (i = 0; i < m->node_count; ++i) {
        if (m->nodes[i].folded) continue;
        for (j = 0; j < m->nodes[i].input_count; ++j)
            if (m->nodes[i].in[j]) m->nodes[i].in[j]->last_use = i;
    }
    for (i = 0; i < m->tensor_count; ++i)
        if (m->tensors[i].is_output) m->tensors[i].last_use = m->node_count;

    order = (int32_t *)mmd_arena_alloc(a, (size_t)m->tensor_count * sizeof(int32_t) + 1, err);
    sizes = (size_t *)mmd_arena_alloc(a, (size_t)m->tensor_count * sizeof(size_t) + 1, err);
    if (!order || !sizes) return err->status;
    for (i = 0; i < m->tensor_count; ++i) {
        mmd_tensor *t = &m->tensors[i];
        if (t->producer < 0 || t->kind != MMD_TENSOR_ACTIVATION) continue;
        mmd_tensor_nbytes(t, &sizes[i], err);
        sizes[i] = (sizes[i] + MMD__TENSOR_ALIGN - 1) & ~(size_t)(MMD__TENSOR_ALIGN - 1);
        if (!sizes[i]) sizes[i] = MMD__TENSOR_ALIGN; /* empty tensors still get a valid pointer */
        ps.activation_sum_bytes += sizes[i];
        order[nact++] = i;
    }
    /* Largest first (insertion sort keeps equal sizes in graph order), then each tensor goes in
       the lowest gap left by the tensors already placed whose lifetimes overlap its own. */
    for (i = 1; i < nact; ++i) {
        int32_t v = order[i];
        for (j = i; j > 0 && sizes[order[j - 1]] < sizes[v]; --j) order[j] = order[j - 1];
        order[j] = v;
    }
    live = (int32_t *)mmd_arena_alloc(a, (size_t)nact * sizeof(int32_t) + 1, err);
    if (!live) return err->status;
    for (i = 0; i < nact; ++i) {
        mmd_tensor *t = &m->tensors[order[i]];
        size_t off = 0;
        int32_t nlive = 0, k;
        /* The placed tensors alive at the same time, by offset; then the first gap that fits. */
        for (j = 0; j < i; ++j) {
            const mmd_tensor *u = &m->tensors[order[j]];
            if (u->last_use < t->producer || t->last_use < u->producer) continue;
            for (k = nlive; k > 0 && m->tensors[live[k - 1]].offset > u->offset; --k) live[k] = live[k - 1];
            live[k] = order[j];
            nlive++;
        }
        for (k = 0; k < nlive; ++k) {
            const mmd_tensor *u = &m->tensors[live[k]];
            if (u->offset >= off + sizes[order[i]]) break;
            if (u->offset + sizes[live[k]] > off) off = u->offset + sizes[live[k]];
        }
        t->offset = off;
        if (off + sizes[order[i]] > total) total = off + sizes[order[i]];
    }
    if (activations) *activations = NULL;
    if (total) {
        uint8_t *base = (uint8_t *)mmd_arena_alloc_uninit(a, total, err);
        if (!base) return err->status;
        for (i = 0; i < nact; ++i) {
            m->tensors[order[i]].data = base + m->tensors[order[i]].offset;
            m->tensors[order[i]].capacity = sizes[order[i]];
        }
        if (activations) *activations = base;
    }
    if (scratch) {
        *scratch = NULL;
        /* Allocated when empty too (16 bytes): NULL plus even a zero offset is undefined. */
        if (!(*scratch = mmd_arena_alloc_uninit(a, scratch_max, err))) return err->status;
    }
    ps.activation_bytes = total;
    ps.scratch_bytes = scratch_max;
    ps.node_count = m->node_count;
    if (stats) *stats = ps;
    return MMD_OK;
}
#endif /* MMD_NO_ONNX */

static mmd_status mmd__blob_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats, void **activations,
                                 void **scratch, mmd_error *err);

/* mmd_graph_plan for callers whose err is never NULL (sessions): no second mmd_error on the
   stack under the kernels' prepare. */
MMD_API mmd_status mmd__graph_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats, void **activations,
                                   void **scratch, mmd_error *err) {
    if (m->blob) return mmd__blob_plan(m, a, stats, activations, scratch, err);
#ifdef MMD_NO_ONNX
    return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "mmd_graph_plan: a model not from a .mmd blob "
                         "in a MMD_NO_ONNX build");
#else
    return mmd__onnx_plan(m, a, stats, activations, scratch, err);
#endif
}

MMD_API mmd_status mmd_graph_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats,
                                  void **activations, void **scratch, mmd_error *err) {
    mmd_error local;
    if (!err) err = &local;
    if (!m || !a) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_graph_plan: NULL argument");
    return mmd__graph_plan(m, a, stats, activations, scratch, err);
}

#ifndef MMD_NO_ONNX
/* A run-time prepare, for a node downstream of a data-dependent shape: the same checks as at
   plan time, against the memory the plan reserved. Only plans from ONNX have such nodes. */
static mmd_status mmd__reprepare(mmd_kernel_ctx *c, mmd_node *n) {
    int32_t j;
    mmd_status st;
    if (n->kernel->op_data_size) memset(n->op_data, 0, n->kernel->op_data_size);
    c->scratch_size = 0;
    if ((st = mmd__kernel_status(c, n->kernel->prepare(c), "prepare")) != MMD_OK) return st;
    if (c->scratch_size > n->scratch_size)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "needs %zu bytes of scratch at run time, %zu planned",
                               c->scratch_size, n->scratch_size);
    for (j = 0; j < n->output_count; ++j) {
        mmd_tensor *t = n->out[j];
        size_t bytes;
        if (!t) continue;
        if ((st = mmd_tensor_nbytes(t, &bytes, c->err)) != MMD_OK) return mmd_kernel_fail(c, st, "output '%s' is too large", t->name);
        if (bytes > t->capacity)
            return mmd_kernel_fail(c, MMD_ERR_LIMIT,
                                   "output '%s' needs %zu bytes at run time, past its planned bound of %zu",
                                   t->name, bytes, t->capacity);
    }
    c->scratch_size = n->scratch_size;
    return MMD_OK;
}
#endif

/* Tells the profiler (set by mmd_session_set_profiler) that node i starts or ended. */
static void mmd__profile(const mmd_model *m, int32_t i, int32_t end) {
    mmd_profile_event ev;
    ev.end = end;
    ev.node = i;
    ev.op_type = m->nodes[i].op_type;
    ev.name = m->nodes[i].name;
    m->profiler(m->profiler_user, &ev);
}

MMD_API mmd_status mmd__graph_run(mmd_model *m, void *scratch, mmd_error *err) {
    int32_t i;
    mmd_status st = MMD_OK;
    err->status = MMD_OK;
    for (i = 0; i < m->node_count && st == MMD_OK; ++i) {
        mmd_node *n = &m->nodes[i];
        mmd_kernel_ctx c;
        if (n->folded) continue;
        if (m->profiler) mmd__profile(m, i, 0);
        mmd__kernel_ctx(&c, m, i, err);
#ifndef MMD_NO_ONNX
        if (n->reprepare) st = mmd__reprepare(&c, n);
#endif
        if (st == MMD_OK) {
            c.scratch = scratch;
            st = mmd__kernel_status(&c, n->kernel->eval(&c), "eval");
        }
        if (m->profiler) mmd__profile(m, i, 1);
    }
    return st;
}

MMD_API mmd_status mmd_graph_run(mmd_model *m, void *scratch, mmd_error *err) {
    mmd_error local;
    if (!err) err = &local;
    if (!m) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_graph_run: NULL model");
    return mmd__graph_run(m, scratch, err);
}

/* ==== >>sets ==== */
static int32_t mmd__uf_root(int32_t *parent, int32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
}

MMD_API mmd_status mmd_graph_partition(const mmd_model *m, const uint8_t *candidate, int32_t *order,
                                       int32_t *set, int32_t *count, mmd_arena *a, mmd_error *err) {
    int32_t n = m->node_count, i, j, e = 0, pos = 0, mode, run = 0, sets = 0;
    int32_t *indeg, *start, *succ, *queue[3], head[3] = {0, 0, 0}, tail[3] = {0, 0, 0}, *runs, *parent, *tmp;
    size_t mark = a->used;
    *count = 0;
    for (i = 0; i < n; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j)
            e += m->nodes[i].inputs[j] >= 0 && m->tensors[m->nodes[i].inputs[j]].producer >= 0;
    indeg = (int32_t *)mmd_arena_alloc(a, (size_t)n * 8 * sizeof(int32_t) + sizeof(int32_t), err);
    succ = (int32_t *)mmd_arena_alloc(a, (size_t)e * sizeof(int32_t) + 1, err);
    if (!indeg || !succ) return err->status;
    start = indeg + n;               /* n + 1 entries */
    queue[0] = start + n + 1;
    queue[1] = queue[0] + n;
    queue[2] = queue[1] + n;
    runs = queue[2] + n;
    parent = runs + n;
    tmp = parent + n;
    /* Edges producer -> reader (CSR), one per input read, so in-degrees count them alike. */
    for (i = 0; i < n; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j) {
            int32_t t = m->nodes[i].inputs[j];
            if (t < 0 || m->tensors[t].producer < 0) continue;
            start[m->tensors[t].producer + 1]++;
            indeg[i]++;
        }
    for (i = 0; i < n; ++i) start[i + 1] += start[i];
    for (i = 0; i < n; ++i) tmp[i] = start[i];
    for (i = 0; i < n; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j) {
            int32_t t = m->nodes[i].inputs[j];
            if (t >= 0 && m->tensors[t].producer >= 0) succ[tmp[m->tensors[t].producer]++] = i;
        }
/* Which queue a ready node joins: folded nodes that are not candidates (constants computed at
   load, which run nothing) their own, taken as soon as they are ready whatever the mode, so that a Clip's constant
   bounds do not cut the run of candidates around the Clip in two. */
#define MMD__READY(w) (candidate[w] ? 1 : m->nodes[w].folded ? 2 : 0)
    for (i = 0; i < n; ++i)
        if (!indeg[i]) queue[MMD__READY(i)][tail[MMD__READY(i)]++] = i;
    /* The alternating schedule: a run ends when no node of its kind is ready. */
    mode = tail[1] > 0;
    while (pos < n) {
        int32_t v;
        if (head[2] < tail[2]) {
            v = queue[2][head[2]++];
        } else if (head[mode] < tail[mode]) {
            v = queue[mode][head[mode]++];
        } else {
            if (head[!mode] == tail[!mode])
                return mmd_error_set(err, MMD_ERR_INVALID_MODEL, -1, NULL, "the graph has a cycle");
            mode = !mode;
            ++run;
            continue;
        }
        order[pos++] = v;
        runs[v] = run;
        for (j = start[v]; j < start[v + 1]; ++j) {
            int32_t w = succ[j];
            if (--indeg[w] == 0) queue[MMD__READY(w)][tail[MMD__READY(w)]++] = w;
        }
    }
#undef MMD__READY
    /* Connected parts of each run's candidates. */
    for (i = 0; i < n; ++i) {
        parent[i] = i;
        set[i] = -1;
    }
    for (i = 0; i < n; ++i)
        for (j = start[i]; j < start[i + 1]; ++j)
            if (candidate[i] && candidate[succ[j]] && runs[i] == runs[succ[j]])
                parent[mmd__uf_root(parent, i)] = mmd__uf_root(parent, succ[j]);
    /* Numbered by first appearance; within a run the parts are independent of each other, so
       grouping each part's members together (in their order) keeps the order topological. */
    for (pos = 0; pos < n;) {
        int32_t end = pos, first = sets, k;
        if (!candidate[order[pos]]) { ++pos; continue; }
        while (end < n && candidate[order[end]] && runs[order[end]] == runs[order[pos]]) ++end;
        for (k = pos; k < end; ++k) {
            int32_t r = mmd__uf_root(parent, order[k]);
            if (set[r] < 0) set[r] = sets++;
            set[order[k]] = set[r];
        }
        /* A counting sort by part (indeg, all zero after the schedule, holds the offsets). */
        for (j = 0; j < sets - first; ++j) indeg[j] = 0;
        for (k = pos; k < end; ++k) indeg[set[order[k]] - first]++;
        for (k = pos, j = 0; j < sets - first; ++j) {
            int32_t c = indeg[j];
            indeg[j] = k;
            k += c;
        }
        for (k = pos; k < end; ++k) tmp[indeg[set[order[k]] - first]++] = order[k];
        memcpy(order + pos, tmp + pos, (size_t)(end - pos) * sizeof(int32_t));
        pos = end;
    }
    *count = sets;
    mmd_arena_reset(a, mark);
    return MMD_OK;
}

/* ==== >>ir rewrites ==== */
/* Load-time rewrites, in the spirit of ONNX Runtime's conv_bn_fusion, conv_activation_fusion
   and conv_add_fusion, run in six passes over the nodes:
     0. fuse   DequantizeLinear -> Conv or MatMul (-> Relu) -> QuantizeLinear with constant
               8-bit weights into QLinearConv or QLinearMatMul, as ONNX Runtime's QDQ
               transformer does, so that QDQ models run as integer products (see
               mmd__rw_quantized for the conditions); the one rewrite that is not exact:
               it computes what ORT computes, and the float ops it replaces, rounded at each
               QuantizeLinear, can differ from that by one quantum near a rounding tie;
               then a QLinearConv's DequantizeLinear -> Relu or Clip -> QuantizeLinear in its
               own output scale becomes a clamp in its requantisation (mmd__rw_qclamp; exact);
               then DequantizeLinear -> MaxPool runs as MaxPool on bytes -> DequantizeLinear, and
               DequantizeLinear -> QuantizeLinear in one scale is dropped (mmd__rw_qpool; exact);
               then DequantizeLinear, DequantizeLinear -> Add (-> Relu) -> QuantizeLinear
               becomes com.microsoft QLinearAdd on the bytes (mmd__rw_qadd; exact);
     1. fold   BatchNormalization (inference form), Mul by and Add of a constant that is one
               value per output channel (or one value), into the Conv, ConvTranspose or Gemm
               before it: W' = g W and b' = g b + h per output channel;
     2. fuse   a residual Add after a Conv into FusedConv's Z (y = conv + Z), when the Add's
               other input has the output's full shape and is computed before the Conv;
     3. fuse   the activation after a Conv, Gemm or MatMul (Relu, Clip, LeakyRelu, Sigmoid,
               HardSigmoid, HardSwish, Tanh, x * sigmoid(x) as "SiLU" and x * HardSigmoid(x),
               HardSwish as exporters write it before opset 14, as "HardSigmoidMul") into FusedConv or
               FusedGemm, whose kernels apply it to the result before storing it (>>ops
               activations); a MatMul becomes a FusedGemm when both its operands are matrices;
               after a ConvTranspose, the node keeps its op and takes FusedConv's `activation`
               and `activation_params`, which its kernel applies the same way;
     4. fuse   a 1x1 convolution (stride 1, no padding, one group, no Z) into the depthwise
               convolution that alone reads it, as mmd PointwiseDepthwise, this runtime's own
               op (>>ops pointwise depthwise), which never stores the expanded tensor between
               them and sums every element as the two nodes do; on planes where that
               measured faster (MMD_FUSE_PLANE_MIN, MMD_FUSE_INPUT_MAX); then the 1x1
               projection (stride 1, no padding, one group, Z or not) that alone reads such
               a node's output into it, where the expanded tensor leaves L2
               (MMD_FUSE_PROJECTION_MIN), the block then computed in bands of rows;
     5. drop   Transpose and Reshape that do nothing, and fold a Transpose or Reshape into the
               one that reads it.
   The rules that keep a rewrite exact:
     - every node a rewrite touches has a reference kernel and no backend, and the tensor
       between two merged nodes has one reader and is not a graph output;
     - weights and biases change only when the node merged into alone reads them; they are
       copied into the arena first (the model bytes are never written) and only the copy
       changes, once, in double before rounding to float;
     - the values folded are the model's own (initializers or Constant nodes, also through
       Identity nodes, as torch aliases a constant it deduplicated), float32, with a
       broadcast that cannot change the output's shape: one value, or [M] on the channel axis;
     - what depends on shapes (pass 2, MatMul in pass 3, pass 4, identity Reshape) runs only
       when the caller says the input shapes are fixed and a trial plan succeeds without
       reading an input's value, so no later binding can make the rewritten graph differ;
     - nodes stay in an order where every input is computed before it is read.
   A rewrite absorbs at least one node, so there are at most node_count of them. The tensor
   between two merged nodes is left without a producer; a fold that needs a bias where the
   node had none reuses that tensor's slot for it, so the tensor table never grows. */
#ifndef MMD_NO_REWRITES
typedef struct mmd__rw {
    mmd_model *m;
    mmd_arena *a;
    mmd_error *err;
    mmd_kernel_find_fn find;
    int32_t *claims;
    int32_t *uses;                   /* per tensor: reads by live nodes, plus one for a graph output */
    int32_t *reader;                 /* per tensor: its first live reader (checked before use) */
    uint8_t *owned;                  /* per tensor: data is the rewrites' own copy, so writable */
    uint8_t *dead;                   /* per node: absorbed into another */
    int32_t shapes;                  /* 1: tensor dims are the trial plan's, fixed for good */
} mmd__rw;

/* A value the model fixes: an initializer or a Constant node's value. */
typedef struct mmd__rw_value {
    const void *v;
    int64_t n;
    int32_t rank;
    const int64_t *dims;
} mmd__rw_value;

static int32_t mmd__rw_is(const mmd_node *n, const char *domain, const char *op) {
    const char *d = strcmp(n->domain, "ai.onnx") == 0 ? "" : n->domain;
    return strcmp(d, domain) == 0 && strcmp(n->op_type, op) == 0;
}

/* 1 when node i may be rewritten: alive, bound to a reference kernel, not claimed. */
static int32_t mmd__rw_free(const mmd__rw *rw, int32_t i) {
    return i >= 0 && !rw->dead[i] && rw->m->nodes[i].kernel && (!rw->claims || rw->claims[i] < 0);
}

static int32_t mmd__rw_reads(const mmd_node *n, int32_t t) {
    int32_t j;
    for (j = 0; j < n->input_count; ++j)
        if (n->inputs[j] == t) return 1;
    return 0;
}

/* The one live node reading tensor t when exactly one does and t is not a graph output, else
   -1. The recorded first reader is checked, and looked up again if a rewrite moved it. */
static int32_t mmd__rw_sole_reader(mmd__rw *rw, int32_t t) {
    mmd_model *m = rw->m;
    int32_t i, r;
    if (t < 0 || rw->uses[t] != 1) return -1;
    r = rw->reader[t];
    if (r < 0 || rw->dead[r] || !mmd__rw_reads(&m->nodes[r], t)) {
        for (r = -1, i = 0; i < m->node_count && r < 0; ++i)
            if (!rw->dead[i] && mmd__rw_reads(&m->nodes[i], t)) r = i;
        rw->reader[t] = r;
    }
    return r;
}

/* Attribute getters that say 0 (do not rewrite) on a wrong type, leaving the error to prepare. */
static int32_t mmd__rw_attr_int(const mmd_node *n, const char *name, int64_t def, int64_t *out) {
    const mmd_attr *a = mmd_node_attr(n, name);
    *out = def;
    if (!a) return 1;
    if (a->type != MMD_ATTR_INT) return 0;
    *out = a->i;
    return 1;
}

/* 1 when attribute `name` of n is absent (*out = def) or INTS, *out its first value (def when
   empty); 0 for another type. */
static int32_t mmd__rw_attr_ints_first(const mmd_node *n, const char *name, int64_t def, int64_t *out) {
    const mmd_attr *a = mmd_node_attr(n, name);
    *out = def;
    if (!a) return 1;
    if (a->type != MMD_ATTR_INTS) return 0;
    if (a->count > 0) *out = a->ints[0];
    return 1;
}

static int32_t mmd__rw_attr_float(const mmd_node *n, const char *name, float def, float *out) {
    const mmd_attr *a = mmd_node_attr(n, name);
    *out = def;
    if (!a) return 1;
    if (a->type != MMD_ATTR_FLOAT) return 0;
    *out = a->f;
    return 1;
}

/* Fills v with tensor t's value when the model fixes it with this dtype (an initializer, or
   the output of a Constant node with a `value`, `value_float(s)` or `value_ints`); else 0.
   The parser checked that each holds as many elements as its dims say. */
static int32_t mmd__rw_value_of(const mmd__rw *rw, int32_t t, int32_t dtype, mmd__rw_value *v) {
    const mmd_tensor *x;
    const mmd_node *c;
    const mmd_attr *a;
    int32_t hops = 0;
    if (t < 0) return 0;
    /* Through Identity nodes, each one earlier than the last (the graph is acyclic; the count
       bounds it anyway). */
    while ((x = &rw->m->tensors[t])->producer >= 0 && hops++ < rw->m->node_count) {
        c = &rw->m->nodes[x->producer];
        if (rw->dead[x->producer] || !mmd__rw_is(c, "", "Identity") || c->input_count != 1 || c->inputs[0] < 0) break;
        t = c->inputs[0];
    }
    v->rank = 0;
    v->dims = NULL;
    if (x->producer < 0) {
        if (x->kind != MMD_TENSOR_INITIALIZER || x->dtype != dtype || !x->data) return 0;
        v->v = x->data;
        v->rank = x->rank;
        v->dims = x->dims;
        v->n = mmd_tensor_numel(x);
        return v->n > 0;
    }
    c = &rw->m->nodes[x->producer];
    if (rw->dead[x->producer] || !mmd__rw_is(c, "", "Constant") || c->attr_count != 1) return 0;
    a = &c->attrs[0];
    if (strcmp(a->name, "value") == 0 && a->type == MMD_ATTR_TENSOR && a->t && a->t->dtype == dtype && a->t->data) {
        v->v = a->t->data;
        v->rank = a->t->rank;
        v->dims = a->t->dims;
        v->n = mmd_tensor_numel(a->t);
    } else if (dtype == MMD_DTYPE_FLOAT32 && strcmp(a->name, "value_float") == 0 && a->type == MMD_ATTR_FLOAT) {
        v->v = &a->f;
        v->n = 1;
    } else if ((dtype == MMD_DTYPE_FLOAT32 && strcmp(a->name, "value_floats") == 0 && a->type == MMD_ATTR_FLOATS) ||
               (dtype == MMD_DTYPE_INT64 && strcmp(a->name, "value_ints") == 0 && a->type == MMD_ATTR_INTS)) {
        v->v = a->type == MMD_ATTR_FLOATS ? (const void *)a->floats : (const void *)a->ints;
        v->n = a->count;
        v->rank = 1;
        v->dims = &a->count;
    } else {
        return 0;
    }
    return v->n > 0 && v->v;
}

/* 1 when v broadcasts onto an output of rank `rank` with `channels` on axis 1 without changing
   its shape: one value, or dims of 1 except `channels` on the channel axis. *per_channel says
   which. */
static int32_t mmd__rw_channelwise(const mmd__rw_value *v, int32_t rank, int64_t channels,
                                   int32_t *per_channel) {
    int32_t i;
    *per_channel = 0;
    if (v->rank > rank) return 0;
    if (v->n == 1) return 1;
    if (v->n != channels) return 0;
    for (i = 0; i < v->rank; ++i) {
        int32_t axis = i + rank - v->rank;
        if (v->dims[i] != 1 && !(axis == 1 && v->dims[i] == channels)) return 0;
    }
    *per_channel = 1;
    return 1;
}

/* ---- the node a fold lands in ---- */
enum { MMD__RW_CONV, MMD__RW_CONV_T, MMD__RW_GEMM };

typedef struct mmd__rw_target {
    int32_t kind;                    /* MMD__RW_* */
    int32_t w, b;                    /* weight and bias tensors (b -1 when absent) */
    int32_t rank;                    /* the output's rank */
    int64_t channels;                /* output channels: Conv's M, Gemm's N */
    int64_t group;                   /* ConvTranspose */
    int64_t trans_b;                 /* Gemm */
} mmd__rw_target;

/* 1 when node i takes a fold: a Conv, ConvTranspose or Gemm (beta 1) whose weight is a float32
   initializer of the right rank that it alone reads, and whose bias, if any, is [channels]
   (Gemm: [N] or [1, N]) and an initializer it alone reads. */
static int32_t mmd__rw_target_of(mmd__rw *rw, int32_t i, mmd__rw_target *tg) {
    const mmd_node *n = &rw->m->nodes[i];
    const mmd_tensor *w, *b;
    float beta;
    if (!mmd__rw_free(rw, i) || n->input_count < 2 || n->input_count > 3 || n->output_count != 1 ||
        n->outputs[0] < 0)
        return 0;
    if (mmd__rw_is(n, "", "Conv")) tg->kind = MMD__RW_CONV;
    else if (mmd__rw_is(n, "", "ConvTranspose")) tg->kind = MMD__RW_CONV_T;
    else if (mmd__rw_is(n, "", "Gemm")) tg->kind = MMD__RW_GEMM;
    else return 0;
    tg->w = n->inputs[1];
    tg->b = n->input_count > 2 ? n->inputs[2] : -1;
    if (tg->w < 0 || rw->uses[tg->w] != 1) return 0;
    w = &rw->m->tensors[tg->w];
    if (w->producer >= 0 || w->kind != MMD_TENSOR_INITIALIZER || w->dtype != MMD_DTYPE_FLOAT32 || !w->data ||
        mmd_tensor_numel(w) <= 0)
        return 0;
    if (tg->kind == MMD__RW_GEMM) {
        if (w->rank != 2 || !mmd__rw_attr_int(n, "transB", 0, &tg->trans_b) || (tg->trans_b & ~(int64_t)1) ||
            !mmd__rw_attr_float(n, "beta", 1.0f, &beta) || beta != 1.0f)
            return 0;
        tg->rank = 2;
        tg->channels = w->dims[tg->trans_b ? 0 : 1];
    } else {
        if (w->rank < 3 || w->rank > 5) return 0;
        tg->rank = w->rank;
        tg->group = 1;
        if (tg->kind == MMD__RW_CONV) {
            tg->channels = w->dims[0];
        } else {
            if (!mmd__rw_attr_int(n, "group", 1, &tg->group) || tg->group < 1 || w->dims[0] % tg->group)
                return 0;
            tg->channels = w->dims[1] * tg->group;
        }
    }
    if (tg->b < 0) return 1;
    b = &rw->m->tensors[tg->b];
    return rw->uses[tg->b] == 1 && b->producer < 0 && b->kind == MMD_TENSOR_INITIALIZER &&
           b->dtype == MMD_DTYPE_FLOAT32 && b->data && mmd_tensor_numel(b) == tg->channels &&
           (b->rank == 1 || (tg->kind == MMD__RW_GEMM && b->rank == 2 && b->dims[0] == 1));
}

/* Tensor t's data as the rewrites' own copy (made on first use), or NULL when out of memory. */
static float *mmd__rw_own(mmd__rw *rw, int32_t t) {
    mmd_tensor *x = &rw->m->tensors[t];
    size_t bytes = (size_t)mmd_tensor_numel(x) * sizeof(float);
    void *p;
    if (rw->owned[t]) return (float *)x->data;
    if (!(p = mmd_arena_alloc(rw->a, bytes, rw->err))) return NULL;
    memcpy(p, x->data, bytes);
    x->data = p;
    rw->owned[t] = 1;
    rw->m->rewrite_bytes += bytes;
    return (float *)p;
}

/* Makes the unused tensor slot t a zeroed float32 initializer of shape [n], the rewrites' own. */
static float *mmd__rw_new_vector(mmd__rw *rw, int32_t t, int64_t n) {
    mmd_tensor *x = &rw->m->tensors[t];
    int32_t j;
    if (!(x->data = mmd_arena_alloc(rw->a, (size_t)n * sizeof(float), rw->err))) return NULL;
    x->kind = MMD_TENSOR_INITIALIZER;
    x->producer = -1;
    x->dtype = MMD_DTYPE_FLOAT32;
    x->rank = 1;
    x->dims[0] = n;
    x->dynamic = 0;
    for (j = 0; j < MMD_MAX_RANK; ++j) x->dim_params[j] = NULL;
    rw->owned[t] = 1;
    rw->m->rewrite_bytes += (size_t)n * sizeof(float);
    return (float *)x->data;
}

/* Sets input `slot` of node i to tensor t (-1: absent), growing the input lists if needed. */
static mmd_status mmd__rw_set_input(mmd__rw *rw, int32_t i, int32_t slot, int32_t t) {
    mmd_node *n = &rw->m->nodes[i];
    int32_t j;
    if (slot >= n->input_count) {
        int32_t *idx = (int32_t *)mmd_arena_alloc(rw->a, (size_t)(slot + 1) * sizeof(int32_t), rw->err);
        mmd_tensor **in = (mmd_tensor **)mmd_arena_alloc(rw->a, (size_t)(slot + 1) * sizeof(mmd_tensor *), rw->err);
        if (!idx || !in) return rw->err->status;
        for (j = 0; j <= slot; ++j) {
            idx[j] = j < n->input_count ? n->inputs[j] : -1;
            in[j] = j < n->input_count ? n->in[j] : NULL;
        }
        n->inputs = idx;
        n->in = in;
        n->input_count = slot + 1;
    }
    if (n->inputs[slot] >= 0) rw->uses[n->inputs[slot]]--;
    n->inputs[slot] = t;
    n->in[slot] = t >= 0 ? &rw->m->tensors[t] : NULL;
    if (t < 0) return MMD_OK;
    rw->uses[t]++;
    if (rw->reader[t] < 0 || rw->reader[t] > i || rw->dead[rw->reader[t]]) rw->reader[t] = i;
    return MMD_OK;
}

/* Tensor t loses its producer (nothing reads it any more): it is neither planned nor stored. */
static void mmd__rw_orphan(mmd__rw *rw, int32_t t) {
    mmd_tensor *x = &rw->m->tensors[t];
    x->producer = -1;
    x->kind = MMD_TENSOR_CONSTANT;
    x->data = NULL;
    x->rank = 0;
}

/* Node i now writes tensor y (what the node it absorbed wrote); its old output is orphaned and
   its index returned for reuse. */
static int32_t mmd__rw_take_output(mmd__rw *rw, int32_t i, int32_t y) {
    mmd_node *n = &rw->m->nodes[i];
    int32_t old = n->outputs[0];
    n->outputs[0] = y;
    n->out[0] = &rw->m->tensors[y];
    rw->m->tensors[y].producer = i;
    mmd__rw_orphan(rw, old);
    return old;
}

/* Removes node i, recording that it went into node `into` (-1: dropped). */
static void mmd__rw_kill(mmd__rw *rw, int32_t i, const char *action, const char *op, int32_t into) {
    mmd_model *m = rw->m;
    mmd_node *n = &m->nodes[i];
    mmd_rewrite *r = &m->rewrites[m->rewrite_count];
    int32_t j;
    rw->dead[i] = 1;
    for (j = 0; j < n->input_count; ++j)
        if (n->inputs[j] >= 0) rw->uses[n->inputs[j]]--;
    if (!action) return; /* the second node of a pair recorded as one */
    r->action = action;
    r->op_type = op ? op : n->op_type;
    r->name = n->name;
    r->into_op_type = into >= 0 ? m->nodes[into].op_type : "";
    r->into_name = into >= 0 ? m->nodes[into].name : "";
    m->rewrite_count++;
}

/* ---- pass 0: quantized operators ---- */
/* Tensor t's value when it is an initializer (or Constant) of dtype holding one value, or `per`
   values on a rank-1 axis; *n gets the count. */
static int32_t mmd__rw_qparam(const mmd__rw *rw, int32_t t, int32_t dtype, int64_t per, int64_t *n) {
    mmd__rw_value v;
    if (!mmd__rw_value_of(rw, t, dtype, &v)) return 0;
    *n = v.n;
    return (v.n == 1 && v.rank <= 1) || (per > 1 && v.n == per && v.rank == 1);
}

/* The DequantizeLinear node producing tensor t with fixed parameters (scale float32, zero point
   int8 or uint8 like the data, both present): its index, else -1. per > 1 allows a scale and
   zero point of per values along axis `axis` (which the node must name); *zdtype gets the zero
   point's dtype. */
static int32_t mmd__rw_dequant_of(const mmd__rw *rw, int32_t t, int64_t per, int64_t axis, int32_t *zdtype) {
    const mmd_node *n;
    int64_t ns, nz, ax;
    int32_t d = t >= 0 ? rw->m->tensors[t].producer : -1, z;
    if (d < 0 || !mmd__rw_free(rw, d)) return -1;
    n = &rw->m->nodes[d];
    if (!mmd__rw_is(n, "", "DequantizeLinear") || n->input_count != 3 || n->output_count != 1 || n->inputs[0] < 0 ||
        (z = n->inputs[2]) < 0 || !mmd__rw_qparam(rw, n->inputs[1], MMD_DTYPE_FLOAT32, per, &ns))
        return -1;
    *zdtype = rw->m->tensors[z].dtype;
    if ((*zdtype != MMD_DTYPE_INT8 && *zdtype != MMD_DTYPE_UINT8) || !mmd__rw_qparam(rw, z, *zdtype, per, &nz) ||
        (nz != ns && nz != 1) || !mmd__rw_attr_int(n, "axis", 1, &ax))
        return -1;
    return ns == 1 || ax == axis ? d : -1;
}

/* DequantizeLinear -> Conv or MatMul (-> Relu) -> QuantizeLinear, the weights constant int8 or
   uint8, every scale and zero point a fixed value, become QLinearConv or QLinearMatMul on the
   quantized tensors, as ONNX Runtime's QDQ transformer does, so that they run as integer
   products (>>ops quantization) rather than float with rounding around them. The Conv's bias
   must be DequantizeLinear of an int32 initializer (what ORT's quantizer writes; a float bias
   leaves the Conv as float, as ORT leaves it). A Relu is taken only when the output zero point
   is its type's minimum, where it changes nothing (ORT's ReluQuantFusion). The input's
   DequantizeLinear goes too when nothing else reads it. */
static mmd_status mmd__rw_quantized(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t q;
    mmd_status st;
    if (!rw->find("", "QLinearConv", 10) || !rw->find("", "QLinearMatMul", 10)) return MMD_OK;
    for (q = 0; q < m->node_count; ++q) {
        const mmd_node *qn = &m->nodes[q];
        mmd__rw_value yz;
        int32_t c, r = -1, conv, dx, dw, db = -1, zt, wt, slot, k, ins[9], dq[3];
        int64_t nys, per, bn;
        const mmd_node *cn;
        if (!mmd__rw_free(rw, q) || !mmd__rw_is(qn, "", "QuantizeLinear") || qn->input_count != 3 ||
            qn->output_count != 1 || qn->outputs[0] < 0 || qn->inputs[0] < 0 || qn->inputs[2] < 0 ||
            !mmd__rw_qparam(rw, qn->inputs[1], MMD_DTYPE_FLOAT32, 1, &nys))
            continue;
        zt = m->tensors[qn->inputs[2]].dtype;
        if ((zt != MMD_DTYPE_INT8 && zt != MMD_DTYPE_UINT8) || !mmd__rw_value_of(rw, qn->inputs[2], zt, &yz) || yz.n != 1)
            continue;
        c = m->tensors[qn->inputs[0]].producer;
        if (c < 0 || !mmd__rw_free(rw, c) || mmd__rw_sole_reader(rw, qn->inputs[0]) != q) continue;
        if (mmd__rw_is(&m->nodes[c], "", "Relu")) {
            /* Relu before a quantization whose zero point is the type's minimum does nothing. */
            int32_t zmin = zt == MMD_DTYPE_INT8 ? -128 : 0, zv = zt == MMD_DTYPE_INT8 ? *(const int8_t *)yz.v
                                                                                 : *(const uint8_t *)yz.v;
            r = c;
            if (zv != zmin || m->nodes[r].input_count != 1 || m->nodes[r].inputs[0] < 0) continue;
            c = m->tensors[m->nodes[r].inputs[0]].producer;
            if (c < 0 || !mmd__rw_free(rw, c) || mmd__rw_sole_reader(rw, m->nodes[r].inputs[0]) != r) continue;
        }
        cn = &m->nodes[c];
        conv = mmd__rw_is(cn, "", "Conv");
        if ((!conv && !mmd__rw_is(cn, "", "MatMul")) || cn->output_count != 1 || cn->input_count < 2 ||
            cn->input_count > (conv ? 3 : 2))
            continue;
        /* The weights: W's DequantizeLinear per tensor, or per output channel (Conv: axis 0 of
           [M, C/group, k...]; MatMul: axis 1, the columns, of a 2-D B). */
        if (cn->inputs[1] < 0 || (dw = m->tensors[cn->inputs[1]].producer) < 0 ||
            m->nodes[dw].input_count < 1 || (wt = m->nodes[dw].inputs[0]) < 0 ||
            m->tensors[wt].kind != MMD_TENSOR_INITIALIZER || m->tensors[wt].producer >= 0 ||
            m->tensors[wt].rank < (conv ? 3 : 2) || (!conv && m->tensors[wt].rank != 2))
            continue;
        per = m->tensors[wt].dims[conv ? 0 : 1];
        if (mmd__rw_dequant_of(rw, cn->inputs[1], per, conv ? 0 : 1, &k) != dw || k != m->tensors[wt].dtype ||
            mmd__rw_sole_reader(rw, cn->inputs[1]) != c)
            continue;
        if ((dx = mmd__rw_dequant_of(rw, cn->inputs[0], 1, 1, &k)) < 0) continue;
        if (conv && cn->input_count == 3 && cn->inputs[2] >= 0) {
            /* The bias: DequantizeLinear of an int32 [M] initializer, zero point absent or 0. */
            const mmd_node *bn_;
            mmd__rw_value bv;
            db = m->tensors[cn->inputs[2]].producer;
            if (db < 0 || !mmd__rw_free(rw, db) || mmd__rw_sole_reader(rw, cn->inputs[2]) != c) continue;
            bn_ = &m->nodes[db];
            if (!mmd__rw_is(bn_, "", "DequantizeLinear") || bn_->input_count < 2 || bn_->output_count != 1 ||
                !mmd__rw_value_of(rw, bn_->inputs[0], MMD_DTYPE_INT32, &bv) || bv.n != per || bv.rank != 1 ||
                !mmd__rw_qparam(rw, bn_->inputs[1], MMD_DTYPE_FLOAT32, per, &bn))
                continue;
            if (bn_->input_count > 2 && bn_->inputs[2] >= 0) {
                mmd__rw_value bz;
                int64_t j;
                if (!mmd__rw_value_of(rw, bn_->inputs[2], MMD_DTYPE_INT32, &bz)) continue;
                for (j = 0; j < bz.n && ((const int32_t *)bz.v)[j] == 0; ++j) {}
                if (j < bz.n) continue;
            }
        }
        /* QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B) and QLinearMatMul,
           the same without B. */
        for (k = 0; k < 3; ++k) {
            ins[k] = m->nodes[dx].inputs[k];
            ins[3 + k] = m->nodes[dw].inputs[k];
        }
        ins[6] = qn->inputs[1];
        ins[7] = qn->inputs[2];
        ins[8] = db >= 0 ? m->nodes[db].inputs[0] : -1;
        dq[0] = dx, dq[1] = dw, dq[2] = db;
        /* The QuantizeLinear node becomes the fused one: every input it takes is computed
           before it (a Constant node's scale may come after the Conv), and it keeps its output. */
        for (slot = 0; slot < (db >= 0 ? 9 : 8); ++slot)
            if ((st = mmd__rw_set_input(rw, q, slot, ins[slot])) != MMD_OK) return st;
        qn = &m->nodes[q];
        m->nodes[q].op_type = conv ? "QLinearConv" : "QLinearMatMul";
        m->nodes[q].name = cn->name;
        m->nodes[q].opset = 10;
        m->nodes[q].attrs = cn->attrs;
        m->nodes[q].attr_count = cn->attr_count;
        m->nodes[q].kernel = rw->find("", m->nodes[q].op_type, 10);
        mmd__rw_orphan(rw, cn->outputs[0]);
        mmd__rw_kill(rw, c, "fuse", NULL, q);
        if (r >= 0) {
            mmd__rw_orphan(rw, m->nodes[r].outputs[0]);
            mmd__rw_kill(rw, r, "fuse", NULL, q);
        }
        /* The DequantizeLinear nodes nothing reads any more. */
        for (k = 0; k < 3; ++k) {
            int32_t out = dq[k] >= 0 ? m->nodes[dq[k]].outputs[0] : -1;
            if (out < 0 || rw->uses[out] != 0 || rw->dead[dq[k]]) continue;
            mmd__rw_orphan(rw, out);
            mmd__rw_kill(rw, dq[k], "fuse", NULL, q);
        }
    }
    return MMD_OK;
}

/* ---- pass 1: folds ---- */
/* Per output channel, y = g x + h for what node c computes from x: BatchNormalization (its four
   parameters), Mul by a value or Add of one. */
typedef struct mmd__rw_affine {
    mmd__rw_value p[4];              /* BN: scale, B, mean, var; Mul: p[0]; Add: p[1] */
    int32_t per_channel[4];
    int32_t has[4];
    double epsilon;
} mmd__rw_affine;

static void mmd__rw_gh(const mmd__rw_affine *f, int64_t ch, double *g, double *h) {
    double v[4];
    int32_t k;
    for (k = 0; k < 4; ++k) v[k] = f->has[k] ? ((const float *)f->p[k].v)[f->per_channel[k] ? ch : 0] : 0.0;
    if (f->has[3]) {
        *g = v[0] / sqrt(v[3] + f->epsilon);
        *h = v[1] - v[2] * *g;
    } else {
        *g = f->has[0] ? v[0] : 1.0;
        *h = v[1];
    }
}

/* The affine map node c (reading tensor x) applies per channel of target tg, or 0 if c is not
   one that folds. */
static int32_t mmd__rw_affine_of(mmd__rw *rw, int32_t c, int32_t x, const mmd__rw_target *tg, mmd__rw_affine *f) {
    const mmd_node *n = &rw->m->nodes[c];
    int32_t k;
    memset(f, 0, sizeof(*f));
    if (!mmd__rw_free(rw, c) || n->output_count < 1 || n->outputs[0] < 0) return 0;
    if (mmd__rw_is(n, "", "BatchNormalization")) {
        int64_t spatial, training;
        float eps;
        if (n->input_count != 5 || n->inputs[0] != x || !mmd__rw_attr_float(n, "epsilon", 1e-5f, &eps) ||
            !mmd__rw_attr_int(n, "spatial", 1, &spatial) || !mmd__rw_attr_int(n, "training_mode", 0, &training) ||
            spatial != 1 || training != 0)
            return 0;
        for (k = 1; k < n->output_count; ++k)
            if (n->outputs[k] >= 0) return 0;
        for (k = 0; k < 4; ++k) {
            if (!mmd__rw_value_of(rw, n->inputs[k + 1], MMD_DTYPE_FLOAT32, &f->p[k]) || f->p[k].rank != 1 ||
                f->p[k].n != tg->channels)
                return 0;
            f->per_channel[k] = f->has[k] = 1;
        }
        f->epsilon = eps;
        return 1;
    }
    if (n->output_count != 1 || n->input_count != 2 || (n->inputs[0] == x) == (n->inputs[1] == x)) return 0;
    k = mmd__rw_is(n, "", "Mul") ? 0 : mmd__rw_is(n, "", "Add") ? 1 : -1;
    if (k < 0 || !mmd__rw_value_of(rw, n->inputs[n->inputs[0] == x ? 1 : 0], MMD_DTYPE_FLOAT32, &f->p[k]) ||
        !mmd__rw_channelwise(&f->p[k], tg->rank, tg->channels, &f->per_channel[k]))
        return 0;
    f->has[k] = 1;
    return 1;
}

/* W' = g W, b' = g b + h, channel by channel. W is copied only when some g is not 1; a bias is
   made in the slot `spare` when the node has none. */
static mmd_status mmd__rw_apply(mmd__rw *rw, int32_t i, const mmd__rw_target *tg, const mmd__rw_affine *f,
                                int32_t spare) {
    const mmd_tensor *wt = &rw->m->tensors[tg->w];
    int64_t m, numel = mmd_tensor_numel(wt), rows, cols, r, c;
    float *w = NULL, *b;
    double g, h;
    mmd_status st;
    if (f->has[0] && !(w = mmd__rw_own(rw, tg->w))) return rw->err->status;
    if (f->has[1] || f->has[3]) {
        if (tg->b >= 0) {
            if (!(b = mmd__rw_own(rw, tg->b))) return rw->err->status;
        } else {
            if (!(b = mmd__rw_new_vector(rw, spare, tg->channels))) return rw->err->status;
            if ((st = mmd__rw_set_input(rw, i, 2, spare)) != MMD_OK) return st;
        }
    } else {
        b = tg->b >= 0 ? mmd__rw_own(rw, tg->b) : NULL;
        if (tg->b >= 0 && !b) return rw->err->status;
    }
    for (m = 0; m < tg->channels; ++m) {
        mmd__rw_gh(f, m, &g, &h);
        if (b) b[m] = (float)(g * (double)b[m] + h);
    }
    if (!w) return MMD_OK;
    if (tg->kind == MMD__RW_CONV || (tg->kind == MMD__RW_GEMM && tg->trans_b)) {
        /* Output channel m owns row m. */
        cols = numel / tg->channels;
        for (m = 0; m < tg->channels; ++m) {
            mmd__rw_gh(f, m, &g, &h);
            for (c = 0; c < cols; ++c) w[m * cols + c] = (float)(g * (double)w[m * cols + c]);
        }
    } else if (tg->kind == MMD__RW_GEMM) {
        /* B is [K, N]: column n is output channel n. */
        rows = wt->dims[0];
        for (m = 0; m < tg->channels; ++m) {
            mmd__rw_gh(f, m, &g, &h);
            for (r = 0; r < rows; ++r) w[r * tg->channels + m] = (float)(g * (double)w[r * tg->channels + m]);
        }
    } else {
        /* ConvTranspose's W is [C, M / group, k...]: input channel r of group r / (C / group)
           feeds output channel (r / (C / group)) * (M / group) + c. */
        int64_t per_group = wt->dims[1], in_per_group = wt->dims[0] / tg->group;
        cols = numel / (wt->dims[0] * per_group);
        for (r = 0; r < wt->dims[0]; ++r)
            for (c = 0; c < per_group; ++c) {
                float *k = w + (r * per_group + c) * cols;
                int64_t e;
                mmd__rw_gh(f, (r / in_per_group) * per_group + c, &g, &h);
                for (e = 0; e < cols; ++e) k[e] = (float)(g * (double)k[e]);
            }
    }
    return MMD_OK;
}

static mmd_status mmd__rw_folds(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, c;
    mmd__rw_target tg;
    mmd__rw_affine f;
    mmd_status st;
    for (i = 0; i < m->node_count; ++i)
        while (mmd__rw_target_of(rw, i, &tg) &&
               (c = mmd__rw_sole_reader(rw, m->nodes[i].outputs[0])) >= 0 &&
               mmd__rw_affine_of(rw, c, m->nodes[i].outputs[0], &tg, &f)) {
            int32_t spare = mmd__rw_take_output(rw, i, m->nodes[c].outputs[0]);
            mmd__rw_kill(rw, c, "fold", NULL, i);
            if ((st = mmd__rw_apply(rw, i, &tg, &f, spare)) != MMD_OK) return st;
        }
    return MMD_OK;
}

/* ---- passes 2 and 3: epilogues ---- */
/* Appends attributes to node i (a new list; the old one may be shared with nothing else). */
static mmd_attr *mmd__rw_add_attrs(mmd__rw *rw, int32_t i, int32_t count) {
    mmd_node *n = &rw->m->nodes[i];
    mmd_attr *a = (mmd_attr *)mmd_arena_alloc(rw->a, (size_t)(n->attr_count + count) * sizeof(mmd_attr), rw->err);
    if (!a) return NULL;
    if (n->attr_count) memcpy(a, n->attrs, (size_t)n->attr_count * sizeof(mmd_attr));
    n->attrs = a;
    n->attr_count += count;
    return a + n->attr_count - count;
}

/* 1 when node i is a Conv or Gemm (or MatMul of two matrices, with shapes) whose epilogue can
   take an activation: not fused with one already, its fused kernel present. *gemm says which
   kind: 0 a Conv (FusedConv), 1 a Gemm or MatMul (FusedGemm), 2 a ConvTranspose, which keeps
   its op and takes FusedConv's activation attributes (its kernel reads them, as QLinearConv's
   does: ONNX Runtime has no fused ConvTranspose to name) and no residual Add. */
static int32_t mmd__rw_epilogue_of(mmd__rw *rw, int32_t i, int32_t *gemm) {
    const mmd_node *n = &rw->m->nodes[i];
    if (!mmd__rw_free(rw, i) || n->output_count != 1 || n->outputs[0] < 0) return 0;
    *gemm = 1;
    if (mmd__rw_is(n, "", "Conv") || mmd__rw_is(n, "com.microsoft", "FusedConv")) *gemm = 0;
    else if (mmd__rw_is(n, "", "ConvTranspose")) *gemm = 2;
    else if (mmd__rw_is(n, "", "MatMul")) {
        if (!rw->shapes || n->input_count != 2 || !n->in[0] || !n->in[1] || n->in[0]->rank != 2 ||
            n->in[1]->rank != 2 || n->in[0]->dynamic || n->in[1]->dynamic || n->out[0]->dynamic)
            return 0;
    } else if (!mmd__rw_is(n, "", "Gemm") && !mmd__rw_is(n, "com.microsoft", "FusedGemm")) {
        return 0;
    }
    /* A Gemm without C gets one of [N] (see mmd__rw_make_fused), N from the trial plan. */
    if (*gemm == 1 && (n->input_count < 3 || n->inputs[2] < 0) &&
        (!rw->shapes || n->out[0]->rank != 2 || n->out[0]->dynamic))
        return 0;
    /* A fused node already naming an activation, or stray parameters for one, keeps them. */
    return !mmd_node_attr(n, "activation") && !mmd_node_attr(n, "activation_params") &&
           !mmd_node_attr(n, "activation_alpha") && !mmd_node_attr(n, "activation_beta") &&
           (*gemm == 2 || rw->find("com.microsoft", *gemm ? "FusedGemm" : "FusedConv", 1) != NULL);
}

/* Node i becomes FusedConv or FusedGemm (kernel rebound). A Gemm or MatMul without C gets a
   zero C of [N] in the slot `spare`, since FusedGemm follows Gemm 7, where C is required. */
static mmd_status mmd__rw_make_fused(mmd__rw *rw, int32_t i, int32_t gemm, int32_t spare) {
    mmd_node *n = &rw->m->nodes[i];
    if (gemm && (n->input_count < 3 || n->inputs[2] < 0)) {
        mmd_status st;
        if (!mmd__rw_new_vector(rw, spare, rw->m->tensors[n->outputs[0]].dims[1])) return rw->err->status;
        if ((st = mmd__rw_set_input(rw, i, 2, spare)) != MMD_OK) return st;
    }
    n->op_type = gemm ? "FusedGemm" : "FusedConv";
    n->domain = "com.microsoft";
    n->opset = 1;
    n->kernel = rw->find(n->domain, n->op_type, 1);
    return MMD_OK;
}

/* The activation node a applies to input x, as FusedConv's `activation` name and parameters;
   NULL when it is not one an epilogue applies. */
static const char *mmd__rw_activation(const mmd__rw *rw, int32_t a, int32_t x, float *p, int32_t *np) {
    static const char *const plain[] = {"Relu", "Sigmoid", "Tanh", "HardSwish"};
    const mmd_node *n = &rw->m->nodes[a];
    int32_t k;
    *np = 0;
    if (!mmd__rw_free(rw, a) || n->output_count != 1 || n->outputs[0] < 0 || n->input_count < 1 ||
        n->inputs[0] != x)
        return NULL;
    for (k = 0; k < 4; ++k)
        if (mmd__rw_is(n, "", plain[k])) return n->input_count == 1 ? plain[k] : NULL;
    if (mmd__rw_is(n, "", "LeakyRelu")) {
        *np = 1;
        return n->input_count == 1 && mmd__rw_attr_float(n, "alpha", 0.01f, &p[0]) ? "LeakyRelu" : NULL;
    }
    if (mmd__rw_is(n, "", "HardSigmoid")) {
        *np = 2;
        return n->input_count == 1 && mmd__rw_attr_float(n, "alpha", 0.2f, &p[0]) &&
                       mmd__rw_attr_float(n, "beta", 0.5f, &p[1]) ? "HardSigmoid" : NULL;
    }
    if (!mmd__rw_is(n, "", "Clip")) return NULL;
    *np = 2;
    if (n->opset < 11)
        return n->input_count == 1 && mmd__rw_attr_float(n, "min", -FLT_MAX, &p[0]) &&
                       mmd__rw_attr_float(n, "max", FLT_MAX, &p[1]) ? "Clip" : NULL;
    /* Clip 11 on: optional one-value bounds, absent meaning the float range. */
    p[0] = -FLT_MAX;
    p[1] = FLT_MAX;
    if (n->input_count > 3) return NULL;
    for (k = 1; k < n->input_count; ++k) {
        mmd__rw_value v;
        if (n->inputs[k] < 0) continue;
        if (n->inputs[k] == x || !mmd__rw_value_of(rw, n->inputs[k], MMD_DTYPE_FLOAT32, &v) || v.n != 1)
            return NULL;
        p[k - 1] = *(const float *)v.v;
    }
    return "Clip";
}

/* Tensor t's one fixed value as a float (a float32 scale, into f) or an integer (an int8 or
   uint8 zero point, into q, *dtype its type); 0 when t is none of these or not the kind asked
   for (f or q NULL: a model may put a float where a zero point goes, or the reverse). */
static int32_t mmd__rw_qscalar(const mmd__rw *rw, int32_t t, float *f, int32_t *q, int32_t *dtype) {
    mmd__rw_value v;
    int32_t dt = t >= 0 ? rw->m->tensors[t].dtype : -1;
    if (dt != MMD_DTYPE_FLOAT32 && dt != MMD_DTYPE_INT8 && dt != MMD_DTYPE_UINT8) return 0;
    if (dt == MMD_DTYPE_FLOAT32 ? !f : !q) return 0;
    if (!mmd__rw_value_of(rw, t, dt, &v) || v.n != 1) return 0;
    if (dt == MMD_DTYPE_FLOAT32) *f = *(const float *)v.v;
    else *q = dt == MMD_DTYPE_INT8 ? *(const int8_t *)v.v : *(const uint8_t *)v.v;
    if (dtype) *dtype = dt;
    return 1;
}

/* QuantizeLinear of x with scale s and zero point z into [lo, hi], as its kernel computes it:
   a float quotient rounded half to even (rint in the default rounding mode), then saturated. */
static int32_t mmd__rw_quantize(float x, float s, int32_t z, int32_t lo, int32_t hi) {
    float v = x / s;
    double r;
    if (v != v) return lo;
    r = rint((double)v) + z;
    return r < lo ? lo : r > hi ? hi : (int32_t)r;
}

/* Pass 0, second part: QLinearConv -> DequantizeLinear -> (Relu or Clip ->) QuantizeLinear,
   all in the QLinearConv's output scale s (zero points z1, then z2, of any 8-bit types), becomes
   the QLinearConv writing z2's type with zero point z2 and a clamp of its requantized values,
   given as activation Clip with activation_params [min, max] (mmd__qconv_act). Exact, and
   what makes it so: in one scale QuantizeLinear undoes DequantizeLinear (|q - z1| <= 255
   quanta: a float product and quotient of such values round back to the integer), so on q1 the
   chain is q1 - z1 + z2 saturated; both quantizers are monotonic, so clipping the float value
   first is clamping that to the quantized bounds [Q(min), Q(max)]; the QLinearConv's own
   saturation to z1's type is one more clamp, and the clamps together are one when their ranges
   meet (the rewrite is skipped when they do not). ONNX Runtime's quantizer writes this chain
   around every ReLU6 of MobileNetV2 (the Clip between a QuantizeLinear of zero point 128 and
   one of 0), and as a DequantizeLinear -> QuantizeLinear pair where a quantized tensor is
   quantized again; as float, each cost three passes over the tensor and a float copy of it. */
static mmd_status mmd__rw_qclamp(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, k;
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i], *dn, *qn;
        int32_t d, a = -1, q, np = 0, nodes[3], z1, z2, t1, t2, dz, dt, lo, hi, act_lo, act_hi;
        float p[2] = {-FLT_MAX, FLT_MAX}, s, ds, qs, *bounds;
        mmd_attr *at;
        if (!mmd__rw_free(rw, i) || !mmd__rw_is(n, "", "QLinearConv") || n->input_count < 8 || n->output_count != 1 ||
            n->outputs[0] < 0 || mmd_node_attr(n, "activation") ||
            mmd_node_attr(n, "activation_params") || !mmd__rw_qscalar(rw, n->inputs[6], &s, NULL, NULL) ||
            !mmd__rw_qscalar(rw, n->inputs[7], NULL, &z1, &t1) || t1 == MMD_DTYPE_FLOAT32 ||
            (d = mmd__rw_sole_reader(rw, n->outputs[0])) < 0 || !mmd__rw_free(rw, d))
            continue;
        dn = &m->nodes[d];
        if (!mmd__rw_is(dn, "", "DequantizeLinear") || dn->input_count != 3 || dn->output_count != 1 ||
            dn->outputs[0] < 0 || dn->inputs[0] != n->outputs[0] || !mmd__rw_qscalar(rw, dn->inputs[1], &ds, NULL, NULL) ||
            !mmd__rw_qscalar(rw, dn->inputs[2], NULL, &dz, &dt) || ds != s || dz != z1 || dt != t1 ||
            (q = mmd__rw_sole_reader(rw, dn->outputs[0])) < 0 || !mmd__rw_free(rw, q))
            continue;
        if (!mmd__rw_is(&m->nodes[q], "", "QuantizeLinear")) {
            const char *act = mmd__rw_activation(rw, q, dn->outputs[0], p, &np);
            if (!act || (strcmp(act, "Relu") && strcmp(act, "Clip"))) continue;
            if (!np) p[0] = 0.0f; /* Relu */
            a = q;
            if ((q = mmd__rw_sole_reader(rw, m->nodes[a].outputs[0])) < 0 || !mmd__rw_free(rw, q)) continue;
        }
        qn = &m->nodes[q];
        if (!mmd__rw_is(qn, "", "QuantizeLinear") || qn->input_count != 3 || qn->output_count != 1 || qn->outputs[0] < 0 ||
            qn->inputs[0] != (a >= 0 ? m->nodes[a].outputs[0] : dn->outputs[0]) ||
            !mmd__rw_qscalar(rw, qn->inputs[1], &qs, NULL, NULL) || !mmd__rw_qscalar(rw, qn->inputs[2], NULL, &z2, &t2) ||
            qs != s || t2 == MMD_DTYPE_FLOAT32 || p[0] != p[0] || p[1] != p[1])
            continue;
        /* In z2's type: the activation's quantized bounds (Clip gives max when min > max), met
           with the range of q1 - z1 + z2 for the q1 the QLinearConv can write. */
        lo = t2 == MMD_DTYPE_INT8 ? -128 : 0;
        hi = t2 == MMD_DTYPE_INT8 ? 127 : 255;
        act_hi = mmd__rw_quantize(p[1], s, z2, lo, hi);
        act_lo = p[0] > p[1] ? act_hi : mmd__rw_quantize(p[0], s, z2, lo, hi);
        k = (t1 == MMD_DTYPE_INT8 ? -128 : 0) - z1 + z2;
        act_lo = act_lo > k ? act_lo : k;
        k = (t1 == MMD_DTYPE_INT8 ? 127 : 255) - z1 + z2;
        act_hi = act_hi < k ? act_hi : k;
        if (act_lo > act_hi) continue;
        nodes[0] = d, nodes[1] = a, nodes[2] = q;
        mmd__rw_take_output(rw, i, qn->outputs[0]);
        for (k = 0; k < 3; ++k) {
            if (nodes[k] < 0) continue;
            if (k < 2) mmd__rw_orphan(rw, m->nodes[nodes[k]].outputs[0]);
            mmd__rw_kill(rw, nodes[k], "fuse", NULL, i);
        }
        if (m->nodes[i].inputs[7] != qn->inputs[2]) {
            mmd_status st = mmd__rw_set_input(rw, i, 7, qn->inputs[2]);
            if (st != MMD_OK) return st;
        }
        if (act_lo == lo && act_hi == hi) continue; /* a change of zero point alone */
        if (!(at = mmd__rw_add_attrs(rw, i, 2))) return rw->err->status;
        if (!(bounds = (float *)mmd_arena_alloc(rw->a, 2 * sizeof(float), rw->err))) return rw->err->status;
        /* Bounds that quantize back to act_lo and act_hi exactly (as above, in one scale). */
        bounds[0] = (float)(act_lo - z2) * s;
        bounds[1] = (float)(act_hi - z2) * s;
        at[0].name = "activation";
        at[0].type = MMD_ATTR_STRING;
        at[0].s = "Clip";
        at[0].s_len = 4;
        at[1].name = "activation_params";
        at[1].type = MMD_ATTR_FLOATS;
        at[1].floats = bounds;
        at[1].count = 2;
    }
    return MMD_OK;
}

/* Node t, which only the dead node at i > t reads, takes slot i, and the dead node slot t:
   t's inputs are computed before t, so still before i, and its output's one reader, the node
   pass 2 absorbs into it, was at i. The first readers recorded for t's inputs are looked up
   again; claims move with the nodes. */
static void mmd__rw_move_later(mmd__rw *rw, int32_t t, int32_t i) {
    mmd_model *m = rw->m;
    mmd_node tmp = m->nodes[t];
    int32_t j, r;
    m->nodes[t] = m->nodes[i];
    m->nodes[i] = tmp;
    rw->dead[t] = 1;
    rw->dead[i] = 0;
    if (rw->claims) {
        r = rw->claims[t];
        rw->claims[t] = rw->claims[i];
        rw->claims[i] = r;
    }
    for (j = 0; j < tmp.output_count; ++j)
        if (tmp.outputs[j] >= 0) m->tensors[tmp.outputs[j]].producer = i;
    for (j = 0; j < tmp.input_count; ++j) {
        int32_t x = tmp.inputs[j];
        if (x < 0 || rw->reader[x] != t) continue;
        for (r = 0; r < m->node_count && (rw->dead[r] || !mmd__rw_reads(&m->nodes[r], x)); ++r) {}
        rw->reader[x] = r < m->node_count ? r : -1;
    }
}

/* Pass 2: Add(conv, z) -> FusedConv(..., z), the Add's other input z of the conv output's full
   shape. Of two convs feeding one Add, the later one takes it, as z is computed before it. When
   z is computed after the conv (an FPN's Add of a lateral 1x1 conv and the upsampled coarser
   level, whose Resize the exporter writes after the laterals), the conv moves to the Add's
   place (mmd__rw_move_later): its input then lives longer in the memory plan, but the sum is
   made in the conv's epilogue instead of by one more pass over both tensors. */
static mmd_status mmd__rw_residuals(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, side, gemm;
    mmd_status st;
    if (!rw->shapes || !rw->find("com.microsoft", "FusedConv", 1)) return MMD_OK;
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        int32_t best = -1, z = -1, later = 0, d;
        if (!mmd__rw_free(rw, i) || !mmd__rw_is(n, "", "Add") || n->input_count != 2 || n->output_count != 1 ||
            n->outputs[0] < 0 || n->inputs[0] < 0 || n->inputs[1] < 0 || n->inputs[0] == n->inputs[1])
            continue;
        for (side = 0; side < 2; ++side) {
            const mmd_tensor *x = n->in[side], *o = n->in[1 - side];
            int32_t t = x->producer;
            /* A conv that would have to move yields to one that would not. */
            if (t < 0 || o->producer == t || (best >= 0 && (o->producer > t || best > t)) ||
                mmd__rw_sole_reader(rw, n->inputs[side]) != i || !mmd__rw_epilogue_of(rw, t, &gemm) || gemm ||
                m->nodes[t].input_count > 3 || x->dynamic || o->dynamic || o->dtype != MMD_DTYPE_FLOAT32 ||
                o->rank != x->rank)
                continue;
            for (d = 0; d < x->rank && o->dims[d] == x->dims[d]; ++d) {}
            if (d < x->rank) continue;
            best = t;
            z = n->inputs[1 - side];
            later = o->producer > t;
        }
        if (best < 0) continue;
        mmd__rw_take_output(rw, best, n->outputs[0]);
        mmd__rw_kill(rw, i, "fuse", NULL, best);
        if (later) {
            mmd__rw_move_later(rw, best, i);
            best = i;
        }
        if ((st = mmd__rw_make_fused(rw, best, 0, -1)) != MMD_OK) return st;
        if ((st = mmd__rw_set_input(rw, best, 3, z)) != MMD_OK) return st;
    }
    return MMD_OK;
}

/* Pass 3: the activation, or Sigmoid or HardSigmoid and the Mul of x by it (SiLU,
   HardSigmoidMul), after a Conv, Gemm, MatMul or ConvTranspose. */
static mmd_status mmd__rw_activations(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, gemm, np, a, mul;
    float p[2];
    mmd_status st;
    for (i = 0; i < m->node_count; ++i) {
        int32_t x, spare;
        const char *act, *what;
        mmd_attr *at;
        if (!mmd__rw_epilogue_of(rw, i, &gemm)) continue;
        x = m->nodes[i].outputs[0];
        mul = -1;
        if ((a = mmd__rw_sole_reader(rw, x)) >= 0) {
            if (!(act = mmd__rw_activation(rw, a, x, p, &np))) continue;
            what = NULL;
        } else {
            /* x * sigmoid(x) or x * HardSigmoid(x): x read by the gate (its first reader) and the
               Mul alone. */
            const mmd_node *mn;
            int32_t hard;
            a = rw->uses[x] == 2 ? rw->reader[x] : -1;
            if (a < 0 || !mmd__rw_activation(rw, a, x, p, &np)) continue;
            hard = mmd__rw_is(&m->nodes[a], "", "HardSigmoid");
            if ((!hard && !mmd__rw_is(&m->nodes[a], "", "Sigmoid")) ||
                (mul = mmd__rw_sole_reader(rw, m->nodes[a].outputs[0])) < 0 || !mmd__rw_free(rw, mul))
                continue;
            mn = &m->nodes[mul];
            if (!mmd__rw_is(mn, "", "Mul") || mn->input_count != 2 || mn->output_count != 1 || mn->outputs[0] < 0 ||
                !((mn->inputs[0] == x && mn->inputs[1] == m->nodes[a].outputs[0]) ||
                  (mn->inputs[1] == x && mn->inputs[0] == m->nodes[a].outputs[0])))
                continue;
            act = hard ? "HardSigmoidMul" : "SiLU";
            what = hard ? "HardSigmoid+Mul" : "Sigmoid+Mul";
        }
        spare = mmd__rw_take_output(rw, i, m->nodes[mul >= 0 ? mul : a].outputs[0]);
        mmd__rw_kill(rw, a, "fuse", what, i);
        if (mul >= 0) mmd__rw_kill(rw, mul, NULL, NULL, i);
        if (gemm != 2 && (st = mmd__rw_make_fused(rw, i, gemm, spare)) != MMD_OK) return st;
        if (!(at = mmd__rw_add_attrs(rw, i, 1 + (np ? (gemm == 1 ? np : 1) : 0)))) return rw->err->status;
        at[0].name = "activation";
        at[0].type = MMD_ATTR_STRING;
        at[0].s = act;
        at[0].s_len = strlen(act);
        if (np && gemm == 1) {
            /* FusedGemm names its parameters activation_alpha and activation_beta. */
            at[1].name = "activation_alpha";
            at[1].type = MMD_ATTR_FLOAT;
            at[1].f = p[0];
            if (np > 1) {
                at[2].name = "activation_beta";
                at[2].type = MMD_ATTR_FLOAT;
                at[2].f = p[1];
            }
        } else if (np) {
            float *v = (float *)mmd_arena_alloc(rw->a, 2 * sizeof(float), rw->err);
            if (!v) return rw->err->status;
            v[0] = p[0];
            v[1] = p[1];
            at[1].name = "activation_params";
            at[1].type = MMD_ATTR_FLOATS;
            at[1].floats = v;
            at[1].count = np;
        }
    }
    return MMD_OK;
}

/* ---- pass 4: a 1x1 convolution into the depthwise convolution after it ---- */
/* Where the pair's planes are at least MMD_FUSE_PLANE_MIN pixels and the 1x1's input at most
   MMD_FUSE_INPUT_MAX floats, which every group of channels reads again (>>ops pointwise
   depthwise). Per pair, fused against unfused, 1 thread (medians of 5 alternated rounds of 30
   runs, loaded 2-core Xeon): the DBNet's 40 -> 120 and 40 -> 240 at 80x60 (0.8 MB in) 0.82-0.98x,
   24 -> 72 at 160x120 (1.8 MB in, from L3) 0.93-0.98x, its 40x30 and 20x15 layers 0.93-1.01x,
   but 16 -> 64 at 320x240 (4.9 MB in) 1.00x; MobileNetV2's 7x7 layers 1.00-1.04x. */
#ifndef MMD_FUSE_PLANE_MIN
#define MMD_FUSE_PLANE_MIN 196
#endif
#ifndef MMD_FUSE_INPUT_MAX
#define MMD_FUSE_INPUT_MAX ((int64_t)1 << 19)
#endif

/* 1 when attribute `name` of n is absent or INTS all equal to v. */
static int32_t mmd__rw_ints_are(const mmd_node *n, const char *name, int64_t v) {
    const mmd_attr *a = mmd_node_attr(n, name);
    int64_t j;
    if (!a) return 1;
    if (a->type != MMD_ATTR_INTS) return 0;
    for (j = 0; j < a->count; ++j)
        if (a->ints[j] != v) return 0;
    return 1;
}

/* PointwiseDepthwise's name for activation attribute `name` of the 1x1 before the depthwise
   convolution (which 1) or of the projection after it (which 2), or NULL for another. */
static const char *mmd__rw_pointwise_name(const char *name, int32_t which) {
    static const char *const names[4][3] = {
        {"activation", "pointwise_activation", "projection_activation"},
        {"activation_params", "pointwise_activation_params", "projection_activation_params"},
        {"activation_alpha", "pointwise_activation_alpha", "projection_activation_alpha"},
        {"activation_beta", "pointwise_activation_beta", "projection_activation_beta"}};
    int32_t k;
    for (k = 0; k < 4; ++k)
        if (!strcmp(name, names[k][0])) return names[k][which];
    return NULL;
}

/* 1 when node i is a free 2-D Conv or FusedConv without Z on fixed shapes: input and weight of
   rank 4, one output, no auto_pad but NOTSET or VALID. */
static int32_t mmd__rw_conv2d(mmd__rw *rw, int32_t i) {
    const mmd_node *n = &rw->m->nodes[i];
    const mmd_attr *ap = mmd_node_attr(n, "auto_pad");
    if (!mmd__rw_free(rw, i) || (!mmd__rw_is(n, "", "Conv") && !mmd__rw_is(n, "com.microsoft", "FusedConv")) ||
        n->output_count != 1 || n->outputs[0] < 0 || n->input_count < 2 || n->input_count > 4 ||
        (n->input_count == 4 && n->inputs[3] >= 0 && mmd__rw_is(n, "", "Conv")) || !n->in[0] || !n->in[1])
        return 0;
    if (ap && (ap->type != MMD_ATTR_STRING || (strcmp(ap->s, "NOTSET") && strcmp(ap->s, "VALID")))) return 0;
    return n->in[0]->rank == 4 && !n->in[0]->dynamic && n->in[1]->rank == 4 && n->out[0]->rank == 4 &&
           !n->out[0]->dynamic;
}

/* Pass 4: Conv 1x1 (stride 1, no padding, one group, no Z) -> depthwise Conv (group = channels
   = the 1x1's output channels, one filter each), the 1x1's output read by the depthwise one
   alone, becomes mmd PointwiseDepthwise (>>ops pointwise depthwise) in the depthwise node's
   place, with inputs X, W1, B1, W2, B2 (and its Z), the depthwise node's attributes and the
   1x1's activation attributes prefixed pointwise_. Shapes decide (see MMD_FUSE_PLANE_MIN), so
   the pass runs only with them fixed. */
static mmd_status mmd__rw_pointwise_depthwise(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, j, d, slot;
    int64_t group, plane;
    mmd_status st;
    if (!rw->shapes || !rw->find("mmd", "PointwiseDepthwise", 1)) return MMD_OK;
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        mmd_node *dn;
        const int64_t *k1, *k2;
        int32_t ins[6], count, na = 0;
        mmd_attr *at = NULL;
        if (!mmd__rw_conv2d(rw, i) || (n->input_count == 4 && n->inputs[3] >= 0)) continue;
        k1 = n->in[1]->dims;
        plane = n->in[0]->dims[2] * n->in[0]->dims[3];
        if (k1[1] != n->in[0]->dims[1] || k1[2] != 1 || k1[3] != 1 || !mmd__rw_ints_are(n, "strides", 1) ||
            !mmd__rw_ints_are(n, "pads", 0) || !mmd__rw_attr_int(n, "group", 1, &group) || group != 1 ||
            plane < MMD_FUSE_PLANE_MIN || k1[1] * plane > MMD_FUSE_INPUT_MAX)
            continue;
        if ((d = mmd__rw_sole_reader(rw, n->outputs[0])) < 0 || !mmd__rw_conv2d(rw, d)) continue;
        dn = &m->nodes[d];
        k2 = dn->in[1]->dims;
        if (dn->inputs[0] != n->outputs[0] || k2[0] != k1[0] || k2[1] != 1 ||
            !mmd__rw_attr_int(dn, "group", 1, &group) || group != k1[0])
            continue;
        ins[0] = n->inputs[0];
        ins[1] = n->inputs[1];
        ins[2] = n->input_count > 2 ? n->inputs[2] : -1;
        ins[3] = dn->inputs[1];
        ins[4] = dn->input_count > 2 ? dn->inputs[2] : -1;
        ins[5] = dn->input_count > 3 ? dn->inputs[3] : -1;
        count = ins[5] >= 0 ? 6 : 5;
        /* The 1x1's activation attributes (FusedConv's, or FusedGemm-style alpha and beta in a
           model's own FusedConv) under names of their own. */
        for (j = 0; j < n->attr_count; ++j) na += mmd__rw_pointwise_name(n->attrs[j].name, 1) != NULL;
        if (na > 4) continue;
        if (na && !(at = mmd__rw_add_attrs(rw, d, na))) return rw->err->status;
        for (j = 0; na && j < n->attr_count; ++j)
            if (mmd__rw_pointwise_name(n->attrs[j].name, 1)) {
                *at = n->attrs[j];
                (at++)->name = mmd__rw_pointwise_name(n->attrs[j].name, 1);
            }
        /* From the last slot down, so that the list grows once and every tensor moved to a
           later slot is counted there before its old slot lets it go. */
        for (slot = count - 1; slot >= 0; --slot)
            if ((st = mmd__rw_set_input(rw, d, slot, ins[slot])) != MMD_OK) return st;
        dn->op_type = "PointwiseDepthwise";
        dn->domain = "mmd";
        dn->opset = 1;
        dn->kernel = rw->find(dn->domain, dn->op_type, 1);
        mmd__rw_orphan(rw, n->outputs[0]);
        mmd__rw_kill(rw, i, "fuse", NULL, d);
    }
    return MMD_OK;
}

/* Pass 4, second part: a 1x1 convolution (stride 1, no padding, one group; Conv or FusedConv,
   with or without Z) that alone reads a PointwiseDepthwise's output (the pair without Z) is
   folded into it as its projection, where the expanded tensor (M channels of the input's
   plane) has at least MMD_FUSE_PROJECTION_MIN floats, 1 MB (MobileNetV2's 56x56 and 112x112
   blocks, not its 28x28 ones, whose bands ran slower than the two nodes), and a band of output
   rows (MMD__PWDW_BAND floats of expanded rows and depthwise outputs, >>ops pointwise
   depthwise) gives the projection's product at least MMD_FUSE_PROJECTION_COLUMNS columns: the
   DBNet's features.7 (40 -> 240 at 80x60, 3x3 stride 2, 240 -> 80 at 40x30), bands of 3 rows
   of 30, ran 1.00x the nodes' time portable but 1.26x on AVX-512 (1.12x in bands of 7 rows),
   MobileNetV2's features.4 (6 rows of 28) 0.97x portable, 1.00x on AVX-512, its features.2 and
   .3 (4 and 8 rows of 56) 0.79-0.92x both ways. The node, in the 1x1's
   place, takes inputs X, W1, B1, W2, B2, none, W3, B3, Z3, the pair's attributes and the 1x1's
   activation attributes prefixed projection_, and computes the block in bands of output rows
   (>>ops pointwise depthwise). A depthwise Conv or FusedConv without Z (group = channels, one
   filter each) that no 1x1 went into, as in MobileNetV2's features.1, is folded with its
   projection the same way, as a PointwiseDepthwise without W1 and B1 (inputs X, none, none,
   W2, B2, ...) and with the depthwise node's attributes; only in the portable build
   (MMD_NO_SIMD), where it measured faster: per block, 1 thread, thread CPU time, medians of
   6-8 alternated rounds, MobileNetV2's features.1 (3x3 on 32 channels at 112x112, 32 -> 16)
   1.01 -> 0.89 ms, the DBNet's features.1 (16 channels at 320x240 with the residual) 4.07 ->
   3.35 and features.2 (64 channels at 320x240, 3x3 stride 2, 64 -> 24; its 1x1 16 -> 64 stays
   apart, MMD_FUSE_INPUT_MAX) 13.2 -> 12.2, where on AVX-512 they ran 0.35 -> 0.38, level and
   5.6 -> 6.8 ms. */
#ifdef MMD_NO_SIMD
#define MMD__FUSE_DEPTHWISE_PROJECTION 1
#else
#define MMD__FUSE_DEPTHWISE_PROJECTION 0
#endif
#ifndef MMD_FUSE_PROJECTION_MIN
#define MMD_FUSE_PROJECTION_MIN ((int64_t)1 << 18)
#endif
#ifndef MMD_FUSE_PROJECTION_COLUMNS
#define MMD_FUSE_PROJECTION_COLUMNS 192
#endif

static mmd_status mmd__rw_projection(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, j, p, slot;
    int64_t group, stride;
    mmd_status st;
    if (!rw->shapes) return MMD_OK;
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        mmd_node *pn;
        const int64_t *k3, *dy;
        int32_t ins[9], na = 0, count, pair = mmd__rw_is(n, "mmd", "PointwiseDepthwise");
        mmd_attr *at;
        if (!pair && MMD__FUSE_DEPTHWISE_PROJECTION && rw->find("mmd", "PointwiseDepthwise", 1) &&
            mmd__rw_conv2d(rw, i) && (n->input_count < 4 || n->inputs[3] < 0) && mmd__rw_attr_int(n, "group", 1, &group) &&
            group == n->in[0]->dims[1] && n->in[1]->dims[0] == group && n->in[1]->dims[1] == 1)
            pair = -1; /* a depthwise convolution alone (MobileNetV2's features.1) */
        if (!pair || !mmd__rw_free(rw, i) || n->input_count > 5 || n->input_count < 2 || !n->in[0] ||
            n->in[0]->rank != 4 || n->output_count != 1 || n->outputs[0] < 0 || n->out[0]->rank != 4 ||
            n->out[0]->dynamic)
            continue;
        dy = n->out[0]->dims;
        /* Sizes past 2^20 (no block a band suits) leave the node as it is before any product
           of them could overflow: the shapes and attributes are the model's. */
        if (!mmd__rw_attr_ints_first(n, "strides", 1, &stride) || stride < 1 || stride > ((int64_t)1 << 20) ||
            dy[1] > ((int64_t)1 << 20) || dy[3] > ((int64_t)1 << 20) || n->in[0]->dims[2] > ((int64_t)1 << 20) ||
            n->in[0]->dims[3] > ((int64_t)1 << 20) ||
            dy[1] * n->in[0]->dims[2] * n->in[0]->dims[3] < MMD_FUSE_PROJECTION_MIN ||
            MMD__PWDW_BAND / (dy[1] * (stride * n->in[0]->dims[3] + dy[3]) + 1) * dy[3] < MMD_FUSE_PROJECTION_COLUMNS)
            continue;
        if ((p = mmd__rw_sole_reader(rw, n->outputs[0])) < 0 || !mmd__rw_conv2d(rw, p)) continue;
        pn = &m->nodes[p];
        k3 = pn->in[1]->dims;
        if (pn->inputs[0] != n->outputs[0] || k3[1] != dy[1] || k3[2] != 1 || k3[3] != 1 ||
            !mmd__rw_ints_are(pn, "strides", 1) || !mmd__rw_ints_are(pn, "pads", 0) ||
            !mmd__rw_attr_int(pn, "group", 1, &group) || group != 1)
            continue;
        for (j = 0; j < n->input_count; ++j) ins[j] = n->inputs[j];
        for (; j < 6; ++j) ins[j] = -1;
        if (pair < 0) {
            /* X, no 1x1 (W1, B1), the depthwise convolution's W2 and B2. */
            ins[3] = n->inputs[1];
            ins[4] = n->input_count > 2 ? n->inputs[2] : -1;
            ins[1] = ins[2] = ins[5] = -1;
        }
        ins[6] = pn->inputs[1];
        ins[7] = pn->input_count > 2 ? pn->inputs[2] : -1;
        ins[8] = pn->input_count > 3 ? pn->inputs[3] : -1;
        count = ins[8] >= 0 ? 9 : ins[7] >= 0 ? 8 : 7;
        for (j = 0; j < pn->attr_count; ++j) na += mmd__rw_pointwise_name(pn->attrs[j].name, 2) != NULL;
        if (na > 4) continue;
        /* The pair's attributes, then the 1x1's activation under its projection_ names. */
        if (!(at = (mmd_attr *)mmd_arena_alloc(rw->a, (size_t)(n->attr_count + na + 1) * sizeof(mmd_attr), rw->err)))
            return rw->err->status;
        if (n->attr_count) memcpy(at, n->attrs, (size_t)n->attr_count * sizeof(mmd_attr));
        for (j = 0, na = n->attr_count; j < pn->attr_count; ++j)
            if (mmd__rw_pointwise_name(pn->attrs[j].name, 2)) {
                at[na] = pn->attrs[j];
                at[na++].name = mmd__rw_pointwise_name(pn->attrs[j].name, 2);
            }
        /* From the last slot down, as in pass 4. */
        for (slot = count - 1; slot >= 0; --slot)
            if ((st = mmd__rw_set_input(rw, p, slot, ins[slot])) != MMD_OK) return st;
        pn->attrs = at;
        pn->attr_count = na;
        pn->op_type = "PointwiseDepthwise";
        pn->domain = "mmd";
        pn->opset = 1;
        pn->kernel = rw->find("mmd", "PointwiseDepthwise", 1);
        mmd__rw_orphan(rw, n->outputs[0]);
        mmd__rw_kill(rw, i, "fuse", NULL, p);
    }
    return MMD_OK;
}

/* ---- pass 5: Transpose and Reshape ---- */
/* Node d (reading x, writing y) does nothing: its readers read x instead or, when y is a graph
   output, x's producer writes y. Returns 0, changing nothing, when neither is possible. */
static int32_t mmd__rw_bypass(mmd__rw *rw, int32_t d, int32_t x) {
    mmd_model *m = rw->m;
    int32_t y = m->nodes[d].outputs[0], i, j, seen = 0, p = m->tensors[x].producer;
    if (!m->tensors[y].is_output) {
        /* Every reader of y comes after d, and all must be free to change. */
        for (i = d + 1; i < m->node_count && seen < rw->uses[y]; ++i)
            if (!rw->dead[i] && mmd__rw_reads(&m->nodes[i], y)) {
                if (!mmd__rw_free(rw, i)) return 0;
                for (j = 0; j < m->nodes[i].input_count; ++j) seen += m->nodes[i].inputs[j] == y;
            }
        for (i = d + 1; i < m->node_count && rw->uses[y] > 0; ++i)
            for (j = 0; !rw->dead[i] && j < m->nodes[i].input_count; ++j)
                if (m->nodes[i].inputs[j] == y) mmd__rw_set_input(rw, i, j, x); /* no growth: cannot fail */
        mmd__rw_orphan(rw, y);
        return 1;
    }
    if (p < 0 || !mmd__rw_free(rw, p) || mmd__rw_sole_reader(rw, x) != d) return 0;
    for (j = 0; m->nodes[p].outputs[j] != x; ++j) {}
    m->nodes[p].outputs[j] = y;
    m->nodes[p].out[j] = &m->tensors[y];
    m->tensors[y].producer = p;
    mmd__rw_orphan(rw, x);
    return 1;
}

/* Pass 0, third part, in two steps, both exact.
   DequantizeLinear -> MaxPool (no Indices, a 1-D or 2-D window without dilations, which the
   MaxPool kernel takes on bytes) becomes MaxPool on the quantized tensor -> DequantizeLinear,
   the two nodes trading places (so the order stays valid, and no node goes, so it is not
   listed): dequantization is increasing (its scale is positive) and every window holds an
   input element, so the maximum of the dequantized values is the dequantized maximum.
   Then a QuantizeLinear reading a DequantizeLinear of the same scale, zero point and type is
   the identity (as in mmd__rw_qclamp): its readers read the DequantizeLinear's input. ResNet's
   stem MaxPool sits between such a pair; MobileNetV2's convolution outputs that a residual Add
   also reads are quantized again this way. */
static mmd_status mmd__rw_qpool(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, k;
    for (i = 0; i < m->node_count; ++i) {
        mmd_node *n = &m->nodes[i], dn, pn;
        const mmd_attr *a;
        float s;
        int32_t d, x, mid, y, z, zt;
        if (!mmd__rw_free(rw, i) || !mmd__rw_is(n, "", "MaxPool") || n->input_count != 1 || n->inputs[0] < 0 ||
            (n->output_count > 1 && n->outputs[1] >= 0) || n->outputs[0] < 0 ||
            !(a = mmd_node_attr(n, "kernel_shape")) || a->type != MMD_ATTR_INTS || a->count < 1 || a->count > 2)
            continue;
        if ((a = mmd_node_attr(n, "dilations"))) {
            if (a->type != MMD_ATTR_INTS) continue;
            for (k = 0; k < a->count && a->ints[k] == 1; ++k) {}
            if (k < a->count) continue;
        }
        d = m->tensors[n->inputs[0]].producer;
        if (d < 0 || !mmd__rw_free(rw, d) || mmd__rw_sole_reader(rw, n->inputs[0]) != i) continue;
        dn = m->nodes[d];
        if (!mmd__rw_is(&dn, "", "DequantizeLinear") || dn.input_count != 3 || dn.output_count != 1 || dn.inputs[0] < 0 ||
            !mmd__rw_qscalar(rw, dn.inputs[1], &s, NULL, NULL) || !mmd__rw_qscalar(rw, dn.inputs[2], NULL, &z, &zt) ||
            zt == MMD_DTYPE_FLOAT32 || !(s > 0.0f))
            continue;
        x = dn.inputs[0];
        mid = dn.outputs[0];
        y = n->outputs[0];
        pn = *n;
        m->nodes[d] = pn;
        m->nodes[i] = dn;
        m->nodes[d].inputs[0] = x;
        m->nodes[d].in[0] = &m->tensors[x];
        m->nodes[d].outputs[0] = mid;
        m->nodes[d].out[0] = &m->tensors[mid];
        m->nodes[i].inputs[0] = mid;
        m->nodes[i].in[0] = &m->tensors[mid];
        m->nodes[i].outputs[0] = y;
        m->nodes[i].out[0] = &m->tensors[y];
        m->tensors[mid].producer = d;
        m->tensors[y].producer = i;
        rw->reader[mid] = i;
        for (k = 1; k < 3; ++k) rw->reader[m->nodes[i].inputs[k]] = -1; /* looked up again when asked */
        if (rw->claims) {
            k = rw->claims[d];
            rw->claims[d] = rw->claims[i];
            rw->claims[i] = k;
        }
    }
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *qn = &m->nodes[i], *dn;
        float s1, s2;
        int32_t d, z1, z2, t1, t2;
        if (!mmd__rw_free(rw, i) || !mmd__rw_is(qn, "", "QuantizeLinear") || qn->input_count != 3 ||
            qn->output_count != 1 || qn->outputs[0] < 0 || qn->inputs[0] < 0 ||
            (d = m->tensors[qn->inputs[0]].producer) < 0 || rw->dead[d])
            continue;
        dn = &m->nodes[d];
        if (!mmd__rw_is(dn, "", "DequantizeLinear") || dn->input_count != 3 || dn->inputs[0] < 0 ||
            !mmd__rw_qscalar(rw, dn->inputs[1], &s1, NULL, NULL) || !mmd__rw_qscalar(rw, qn->inputs[1], &s2, NULL, NULL) ||
            !mmd__rw_qscalar(rw, dn->inputs[2], NULL, &z1, &t1) || !mmd__rw_qscalar(rw, qn->inputs[2], NULL, &z2, &t2) ||
            s1 != s2 || z1 != z2 || t1 != t2 || t1 == MMD_DTYPE_FLOAT32 || !mmd__rw_bypass(rw, i, dn->inputs[0]))
            continue;
        mmd__rw_kill(rw, i, "drop", NULL, -1);
    }
    return MMD_OK;
}

/* Pass 0, fourth part: DequantizeLinear (a), DequantizeLinear (b) -> Add (-> Relu) ->
   QuantizeLinear, each with one fixed scale and zero point, a, b and the output of one 8-bit
   type and a and b of one known shape, becomes com.microsoft QLinearAdd on the quantized
   tensors (activation Relu for the Relu): exact, its kernel computing the float nodes'
   operations in their order (mmd__qadd_prepare). The QuantizeLinear node becomes the
   QLinearAdd (every input it takes is computed before it); the DequantizeLinear nodes go when
   nothing else reads them. ResNet's residual Add and ReLU in a QDQ model: five passes over
   float tensors become one over bytes. */
static mmd_status mmd__rw_qadd(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t q, k;
    mmd_status st;
    if (!rw->shapes || !rw->find("com.microsoft", "QLinearAdd", 1)) return MMD_OK;
    for (q = 0; q < m->node_count; ++q) {
        const mmd_node *qn = &m->nodes[q], *cn;
        const mmd_tensor *x0, *x1;
        int32_t c, r = -1, d[2], ins[8], z, zt, dt = -1;
        float f;
        mmd_attr *at;
        if (!mmd__rw_free(rw, q) || !mmd__rw_is(qn, "", "QuantizeLinear") || qn->input_count != 3 ||
            qn->output_count != 1 || qn->outputs[0] < 0 || qn->inputs[0] < 0 ||
            !mmd__rw_qscalar(rw, qn->inputs[1], &f, NULL, NULL) || !mmd__rw_qscalar(rw, qn->inputs[2], NULL, &z, &zt))
            continue;
        c = m->tensors[qn->inputs[0]].producer;
        if (c < 0 || !mmd__rw_free(rw, c) || mmd__rw_sole_reader(rw, qn->inputs[0]) != q) continue;
        if (mmd__rw_is(&m->nodes[c], "", "Relu")) {
            r = c;
            if (m->nodes[r].input_count != 1 || m->nodes[r].inputs[0] < 0) continue;
            c = m->tensors[m->nodes[r].inputs[0]].producer;
            if (c < 0 || !mmd__rw_free(rw, c) || mmd__rw_sole_reader(rw, m->nodes[r].inputs[0]) != r) continue;
        }
        cn = &m->nodes[c];
        if (!mmd__rw_is(cn, "", "Add") || cn->input_count != 2 || cn->output_count != 1) continue;
        for (k = 0; k < 2; ++k)
            if ((d[k] = mmd__rw_dequant_of(rw, cn->inputs[k], 1, 1, &dt)) < 0 || dt != zt) break;
        if (k < 2) continue;
        x0 = &m->tensors[m->nodes[d[0]].inputs[0]];
        x1 = &m->tensors[m->nodes[d[1]].inputs[0]];
        if (x0->dynamic || x1->dynamic || x0->rank != x1->rank) continue;
        for (k = 0; k < x0->rank && x0->dims[k] == x1->dims[k]; ++k) {}
        if (k < x0->rank) continue;
        for (k = 0; k < 3; ++k) {
            ins[k] = m->nodes[d[0]].inputs[k];
            ins[3 + k] = m->nodes[d[1]].inputs[k];
        }
        ins[6] = qn->inputs[1];
        ins[7] = qn->inputs[2];
        for (k = 0; k < 8; ++k)
            if ((st = mmd__rw_set_input(rw, q, k, ins[k])) != MMD_OK) return st;
        m->nodes[q].domain = "com.microsoft";
        m->nodes[q].op_type = "QLinearAdd";
        m->nodes[q].name = cn->name;
        m->nodes[q].opset = 1;
        m->nodes[q].attrs = NULL;
        m->nodes[q].attr_count = 0;
        m->nodes[q].kernel = rw->find("com.microsoft", "QLinearAdd", 1);
        if (r >= 0) {
            if (!(at = mmd__rw_add_attrs(rw, q, 1))) return rw->err->status;
            at->name = "activation";
            at->type = MMD_ATTR_STRING;
            at->s = "Relu";
            at->s_len = 4;
            mmd__rw_orphan(rw, m->nodes[r].outputs[0]);
            mmd__rw_kill(rw, r, "fuse", NULL, q);
        }
        mmd__rw_orphan(rw, m->nodes[c].outputs[0]);
        mmd__rw_kill(rw, c, "fuse", NULL, q);
        /* The DequantizeLinear nodes nothing reads any more. */
        for (k = 0; k < 2; ++k) {
            int32_t out = m->nodes[d[k]].outputs[0];
            if (rw->uses[out] != 0 || rw->dead[d[k]]) continue;
            mmd__rw_orphan(rw, out);
            mmd__rw_kill(rw, d[k], "fuse", NULL, q);
        }
    }
    return MMD_OK;
}

/* Transpose's perm when it is a valid permutation (its length returned), else -1. Without perm
   the axes reverse, which needs the rank: such a Transpose is left alone. */
static int32_t mmd__rw_perm(const mmd_node *n, int64_t *perm) {
    const mmd_attr *a = mmd_node_attr(n, "perm");
    uint32_t seen = 0;
    int32_t k;
    if (!a || a->type != MMD_ATTR_INTS || a->count < 1 || a->count > MMD_MAX_RANK) return -1;
    for (k = 0; k < a->count; ++k) {
        int64_t v = a->ints[k];
        if (v < 0 || v >= a->count || (seen >> v & 1u)) return -1;
        seen |= 1u << v;
        perm[k] = v;
    }
    return (int32_t)a->count;
}

/* A Transpose reading another, alone, becomes one with the composed perm; a Reshape reading
   another, alone, reads the first one's input (its target shape holds no 0 that would copy the
   middle tensor's dims); then one that does nothing (identity perm; with shapes, a Reshape to
   its input's shape) is dropped. */
static mmd_status mmd__rw_layout(mmd__rw *rw) {
    mmd_model *m = rw->m;
    int32_t i, k, r, r1;
    int64_t p1[MMD_MAX_RANK], p2[MMD_MAX_RANK];
    for (i = 0; i < m->node_count; ++i) {
        mmd_node *n = &m->nodes[i];
        int32_t x, prev, identity = 0, transpose = mmd__rw_is(n, "", "Transpose");
        mmd_status st;
        if (!mmd__rw_free(rw, i) || n->output_count != 1 || n->outputs[0] < 0 || n->input_count < 1 ||
            (x = n->inputs[0]) < 0)
            continue;
        prev = m->tensors[x].producer;
        if (transpose) {
            if (n->input_count != 1 || (r = mmd__rw_perm(n, p2)) < 0) continue;
            if (prev >= 0 && mmd__rw_free(rw, prev) && mmd__rw_is(&m->nodes[prev], "", "Transpose") &&
                m->nodes[prev].input_count == 1 && m->nodes[prev].inputs[0] >= 0 &&
                mmd__rw_sole_reader(rw, x) == i && (r1 = mmd__rw_perm(&m->nodes[prev], p1)) == r) {
                mmd_attr *at = (mmd_attr *)mmd_node_attr(n, "perm");
                int64_t *q = (int64_t *)mmd_arena_alloc(rw->a, (size_t)r * sizeof(int64_t), rw->err);
                if (!q) return rw->err->status;
                /* Output axis k is the middle's axis p2[k], which is the input's p1[p2[k]]. */
                for (k = 0; k < r; ++k) q[k] = p1[p2[k]];
                at->ints = q;
                if ((st = mmd__rw_set_input(rw, i, 0, m->nodes[prev].inputs[0])) != MMD_OK) return st;
                mmd__rw_kill(rw, prev, "fold", NULL, i);
                mmd__rw_orphan(rw, x);
                x = n->inputs[0];
                for (k = 0; k < r; ++k) p2[k] = q[k];
            }
            for (identity = 1, k = 0; k < r; ++k) identity &= p2[k] == k;
        } else if (mmd__rw_is(n, "", "Reshape")) {
            mmd__rw_value shape;
            int64_t allowzero;
            const mmd_tensor *in, *out;
            if (n->input_count != 2 || !mmd__rw_attr_int(n, "allowzero", 0, &allowzero)) continue;
            if (prev >= 0 && mmd__rw_free(rw, prev) && mmd__rw_is(&m->nodes[prev], "", "Reshape") &&
                m->nodes[prev].input_count == 2 && m->nodes[prev].inputs[0] >= 0 &&
                mmd__rw_sole_reader(rw, x) == i && mmd__rw_value_of(rw, n->inputs[1], MMD_DTYPE_INT64, &shape)) {
                for (k = 0; k < shape.n && (allowzero || ((const int64_t *)shape.v)[k] != 0); ++k) {}
                if (k == shape.n) {
                    if ((st = mmd__rw_set_input(rw, i, 0, m->nodes[prev].inputs[0])) != MMD_OK) return st;
                    mmd__rw_kill(rw, prev, "fold", NULL, i);
                    mmd__rw_orphan(rw, x);
                    x = n->inputs[0];
                }
            }
            in = &m->tensors[x];
            out = n->out[0];
            if (rw->shapes && !in->dynamic && !out->dynamic && in->rank == out->rank && in->dtype == out->dtype) {
                for (k = 0; k < in->rank && in->dims[k] == out->dims[k]; ++k) {}
                identity = k == in->rank;
            }
        }
        if (identity && mmd__rw_bypass(rw, i, x)) mmd__rw_kill(rw, i, "drop", NULL, -1);
    }
    return MMD_OK;
}

/* 1 when some rewrite would need shapes: an Add, Reshape or MatMul is there, or a Conv of
   more than one group (pass 4). */
static int32_t mmd__rw_wants_shapes(const mmd_model *m) {
    int32_t i;
    int64_t group;
    for (i = 0; i < m->node_count; ++i)
        if (mmd__rw_is(&m->nodes[i], "", "Add") || mmd__rw_is(&m->nodes[i], "", "Reshape") ||
            mmd__rw_is(&m->nodes[i], "", "MatMul") ||
            (mmd__rw_is(&m->nodes[i], "", "Conv") && mmd__rw_attr_int(&m->nodes[i], "group", 1, &group) && group > 1))
            return 1;
    return 0;
}

MMD_API mmd_status mmd_graph_rewrite(mmd_model *m, mmd_arena *a, mmd_kernel_find_fn find,
                                     int32_t fixed_shapes, int32_t *claims, mmd_error *err) {
    mmd_error local;
    mmd__rw rw;
    size_t mark;
    int32_t i, j, k;
    mmd_status st;
    if (!err) err = &local;
    if (!m || !a || !find) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_graph_rewrite: NULL argument");
    err->status = MMD_OK;
    if (m->blob || m->rewrites) return MMD_OK;
    memset(&rw, 0, sizeof(rw));
    rw.m = m;
    rw.a = a;
    rw.err = err;
    rw.find = find;
    rw.claims = claims;
    mark = a->used;
    if (fixed_shapes && mmd__rw_wants_shapes(m)) {
        /* The trial plan's shapes stay in the tensors; its memory is given back. */
        mmd_error trial;
        trial.status = MMD_OK;
        m->trial = 1;
        rw.shapes = mmd_graph_plan(m, a, NULL, NULL, NULL, &trial) == MMD_OK;
        m->trial = 0;
        for (i = 0; i < m->input_count; ++i)
            if (m->tensors[m->inputs[i]].value_read) rw.shapes = 0;
        mmd_arena_reset(a, mark);
    }
    rw.uses = (int32_t *)mmd_arena_alloc(a, (size_t)m->tensor_count * 2 * sizeof(int32_t) + 1, err);
    rw.owned = (uint8_t *)mmd_arena_alloc(a, (size_t)m->tensor_count + (size_t)m->node_count + 1, err);
    m->rewrites = (mmd_rewrite *)mmd_arena_alloc(a, (size_t)m->node_count * sizeof(mmd_rewrite) + 1, err);
    if (!rw.uses || !rw.owned || !m->rewrites) return err->status;
    rw.reader = rw.uses + m->tensor_count;
    rw.dead = rw.owned + m->tensor_count;
    for (i = 0; i < m->tensor_count; ++i) {
        rw.reader[i] = -1;
        rw.uses[i] = m->tensors[i].is_output;
    }
    for (i = 0; i < m->node_count; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j) {
            int32_t t = m->nodes[i].inputs[j];
            if (t < 0) continue;
            if (rw.reader[t] < 0) rw.reader[t] = i;
            rw.uses[t]++;
        }
    if ((st = mmd__rw_quantized(&rw)) != MMD_OK || (st = mmd__rw_qclamp(&rw)) != MMD_OK ||
        (st = mmd__rw_qpool(&rw)) != MMD_OK || (st = mmd__rw_qadd(&rw)) != MMD_OK ||
        (st = mmd__rw_folds(&rw)) != MMD_OK ||
        (st = mmd__rw_residuals(&rw)) != MMD_OK ||
        (st = mmd__rw_activations(&rw)) != MMD_OK ||
        (st = mmd__rw_pointwise_depthwise(&rw)) != MMD_OK || (st = mmd__rw_projection(&rw)) != MMD_OK ||
        (st = mmd__rw_layout(&rw)) != MMD_OK)
        return st;
    if (!m->rewrite_count) {
        /* Nothing changed: the bookkeeping is given back too. */
        m->rewrites = NULL;
        mmd_arena_reset(a, mark);
        return MMD_OK;
    }
    /* The survivors close ranks, in order; each output learns its producer's new index. */
    for (i = k = 0; i < m->node_count; ++i) {
        if (rw.dead[i]) continue;
        m->nodes[k] = m->nodes[i];
        if (claims) claims[k] = claims[i];
        for (j = 0; j < m->nodes[k].output_count; ++j)
            if (m->nodes[k].outputs[j] >= 0) m->tensors[m->nodes[k].outputs[j]].producer = k;
        ++k;
    }
    m->node_count = k;
    return MMD_OK;
}

#else
MMD_API mmd_status mmd_graph_rewrite(mmd_model *m, mmd_arena *a, mmd_kernel_find_fn find,
                                     int32_t fixed_shapes, int32_t *claims, mmd_error *err) {
    (void)m;
    (void)a;
    (void)find;
    (void)fixed_shapes;
    (void)claims;
    if (err) err->status = MMD_OK;
    return MMD_OK;
}
#endif /* MMD_NO_REWRITES */

/* ==== >>blob ==== */
/* The .mmd layout is in the doc block at the top of this file. Header and record fields are
   read byte by byte, so records need no alignment; the pools read in place (node input lists,
   INTS, FLOATS) and the weights rely on the blob's and each section's 16-byte alignment. */
#define MMD__BLOB_VERSION 1u
#define MMD__BLOB_HEADER 144u
#define MMD__BLOB_TENSOR 32u
#define MMD__BLOB_NODE 44u
#define MMD__BLOB_ATTR 32u
#define MMD__BLOB_ALIGN 16u

enum { MMD__SEC_TENSORS, MMD__SEC_NODES, MMD__SEC_ATTRS, MMD__SEC_I32, MMD__SEC_I64, MMD__SEC_F32,
       MMD__SEC_STRINGS, MMD__SEC_DATA, MMD__SEC_COUNT };

static uint32_t mmd__rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Every loader failure names the blob, so a firmware log line says which file was bad. */
static mmd_status mmd__blob_fail(mmd_error *err, mmd_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mmd__error_vset(err, status, -1, NULL, ".mmd blob: ", fmt, ap);
    va_end(ap);
    return status;
}

/* A view of a blob whose header and section table have been checked. */
typedef struct mmd__blob {
    const uint8_t *base;
    uint32_t off[MMD__SEC_COUNT], len[MMD__SEC_COUNT];
    uint32_t tensor_count, tensor_total, node_count, attr_total, n32, n64, nf32;
    uint32_t activation_bytes;
    mmd_error *err;
} mmd__blob;

/* [at, at + count) lies inside a pool of total entries; written so that nothing can wrap. */
static int32_t mmd__blob_span(uint32_t at, uint32_t count, uint32_t total) {
    return at <= total && count <= total - at;
}

/* The string at offset off, or NULL when off is outside the string table. The table's last
   byte was checked to be NUL, so every offset inside it starts a terminated string. */
static const char *mmd__blob_str(const mmd__blob *b, uint32_t off) {
    return off < b->len[MMD__SEC_STRINGS] ? (const char *)b->base + b->off[MMD__SEC_STRINGS] + off : NULL;
}

static const int32_t *mmd__blob_i32(const mmd__blob *b, uint32_t at) {
    return (const int32_t *)(const void *)(b->base + b->off[MMD__SEC_I32]) + at;
}

static mmd_status mmd__blob_header(mmd__blob *b, const uint8_t *p, size_t size, mmd_error *err) {
    static const char *const names[MMD__SEC_COUNT] = {"tensors", "nodes", "attributes", "int32 pool",
                                                      "int64 pool", "float32 pool", "strings", "data"};
    static const uint32_t record[MMD__SEC_COUNT] = {MMD__BLOB_TENSOR, MMD__BLOB_NODE, MMD__BLOB_ATTR,
                                                    4, 8, 4, 1, 1};
    uint32_t version, total, i;
    memset(b, 0, sizeof(*b));
    b->base = p;
    b->err = err;
    if ((uintptr_t)p % MMD__BLOB_ALIGN)
        return mmd__blob_fail(err, MMD_ERR_INVALID_ARGUMENT,
                              "the bytes must start at a 16-byte aligned address (declare the array "
                              "with MMD_ALIGNED(16), as mmdeploy convert --c-array does)");
    if (size < 16)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "truncated: %zu bytes, the header alone has %u",
                              size, MMD__BLOB_HEADER);
    version = mmd__rd32(p + 8);
    if (version != MMD__BLOB_VERSION)
        return mmd__blob_fail(err, MMD_ERR_UNSUPPORTED, "format version %u, this runtime reads version %u",
                              (unsigned)version, MMD__BLOB_VERSION);
    if (size < MMD__BLOB_HEADER)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "truncated: %zu bytes, the header alone has %u",
                              size, MMD__BLOB_HEADER);
    total = mmd__rd32(p + 16);
    if (mmd__rd32(p + 12) != MMD__BLOB_HEADER)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "header size %u, version 1 has %u",
                              (unsigned)mmd__rd32(p + 12), MMD__BLOB_HEADER);
    if (total < MMD__BLOB_HEADER || total > size)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "the header says %u bytes, %zu given%s",
                              (unsigned)total, size, total > size ? " (truncated)" : "");
    for (i = 0; i < MMD__SEC_COUNT; ++i) {
        b->off[i] = mmd__rd32(p + 80 + 8 * i);
        b->len[i] = mmd__rd32(p + 84 + 8 * i);
        if (b->off[i] < MMD__BLOB_HEADER || b->off[i] % MMD__BLOB_ALIGN || !mmd__blob_span(b->off[i], b->len[i], total))
            return mmd__blob_fail(err, MMD_ERR_MALFORMED,
                                  "section '%s' (offset %u, %u bytes) is misaligned or outside the %u bytes",
                                  names[i], (unsigned)b->off[i], (unsigned)b->len[i], (unsigned)total);
        if (b->len[i] % record[i])
            return mmd__blob_fail(err, MMD_ERR_MALFORMED, "section '%s' has %u bytes, not whole %u-byte records",
                                  names[i], (unsigned)b->len[i], (unsigned)record[i]);
    }
    if (!b->len[MMD__SEC_STRINGS] || p[b->off[MMD__SEC_STRINGS] + b->len[MMD__SEC_STRINGS] - 1] != 0)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "the string table is empty or does not end with a NUL");
    b->tensor_total = b->len[MMD__SEC_TENSORS] / MMD__BLOB_TENSOR;
    b->attr_total = b->len[MMD__SEC_ATTRS] / MMD__BLOB_ATTR;
    b->n32 = b->len[MMD__SEC_I32] / 4;
    b->n64 = b->len[MMD__SEC_I64] / 8;
    b->nf32 = b->len[MMD__SEC_F32] / 4;
    b->tensor_count = mmd__rd32(p + 24);
    b->node_count = mmd__rd32(p + 28);
    b->activation_bytes = mmd__rd32(p + 48);
    if (b->tensor_count > b->tensor_total || b->node_count != b->len[MMD__SEC_NODES] / MMD__BLOB_NODE)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "%u tensors and %u nodes do not match the sections "
                              "(%u tensor records, %u node records)", (unsigned)b->tensor_count,
                              (unsigned)b->node_count, (unsigned)b->tensor_total,
                              (unsigned)(b->len[MMD__SEC_NODES] / MMD__BLOB_NODE));
    if (b->node_count > MMD_MAX_NODES || b->tensor_total > MMD_MAX_TENSORS ||
        mmd__rd32(p + 60) > MMD_MAX_NODES)
        return mmd__blob_fail(err, MMD_ERR_LIMIT, "%u nodes (%u more folded) and %u tensors (MMD_MAX_NODES is %d)",
                              (unsigned)b->node_count, (unsigned)mmd__rd32(p + 60), (unsigned)b->tensor_total,
                              (int)MMD_MAX_NODES);
    return MMD_OK;
}

/* Tensor record k into t. Activations get their planned place, constants their bytes. */
static mmd_status mmd__blob_tensor(const mmd__blob *b, uint32_t k, mmd_tensor *t) {
    const uint8_t *r = b->base + b->off[MMD__SEC_TENSORS] + (size_t)k * MMD__BLOB_TENSOR;
    uint32_t dims_at = mmd__rd32(r + 12), kind = mmd__rd32(r + 16), off = mmd__rd32(r + 24),
             bytes = mmd__rd32(r + 28);
    int32_t i;
    size_t nbytes;
    mmd_status st;
    memset(t, 0, sizeof(*t));
    t->name = mmd__blob_str(b, mmd__rd32(r));
    t->dtype = (int32_t)mmd__rd32(r + 4);
    t->rank = (int32_t)mmd__rd32(r + 8);
    t->producer = (int32_t)mmd__rd32(r + 20);
    t->last_use = -1;
    if (!t->name)
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED, "tensor %u: name offset %u is outside the string table",
                              (unsigned)k, (unsigned)mmd__rd32(r));
    if (t->dtype == MMD_DTYPE_STRING || mmd_dtype_size(t->dtype) == 0)
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED, "tensor '%s': dtype %d is not a numeric element type",
                              t->name, (int)t->dtype);
    if (t->rank < 0 || t->rank > MMD_MAX_RANK || !mmd__blob_span(dims_at, (uint32_t)t->rank, b->n64))
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED,
                              "tensor '%s': rank %d (MMD_MAX_RANK %d) or its dims at %u run outside the int64 pool",
                              t->name, (int)t->rank, (int)MMD_MAX_RANK, (unsigned)dims_at);
    for (i = 0; i < t->rank; ++i) {
        const int64_t *d = (const int64_t *)(const void *)(b->base + b->off[MMD__SEC_I64]) + dims_at + i;
        t->dims[i] = *d;
    }
    if ((st = mmd_tensor_nbytes(t, &nbytes, b->err)) != MMD_OK) return st;
    /* Records past the graph's tensors belong to TENSOR attributes: constants only. */
    if (kind > MMD_TENSOR_CONSTANT || (k >= b->tensor_count && kind < MMD_TENSOR_INITIALIZER))
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED, "tensor '%s': kind %u is not valid here", t->name,
                              (unsigned)kind);
    t->kind = (int32_t)kind;
    if (kind == MMD_TENSOR_ACTIVATION ? (t->producer < 0 || (uint32_t)t->producer >= b->node_count) : t->producer != -1)
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED, "tensor '%s': producer %d is not valid for its kind",
                              t->name, (int)t->producer);
    if (kind == MMD_TENSOR_ACTIVATION) {
        /* Planned place: aligned (kernels cast the pointer to the element type), inside the
           activation buffer and large enough for the stored shape. */
        if (!bytes || bytes < nbytes || off % MMD__BLOB_ALIGN || !mmd__blob_span(off, bytes, b->activation_bytes))
            return mmd__blob_fail(b->err, MMD_ERR_MALFORMED,
                                  "tensor '%s': planned at %u (%u bytes), which is misaligned or does not "
                                  "hold %zu bytes inside the %u-byte activation buffer",
                                  t->name, (unsigned)off, (unsigned)bytes, nbytes, (unsigned)b->activation_bytes);
        t->offset = off;
        t->capacity = bytes;
    } else if (kind != MMD_TENSOR_INPUT) {
        if (bytes != nbytes || off % MMD__BLOB_ALIGN || !mmd__blob_span(off, bytes, b->len[MMD__SEC_DATA]))
            return mmd__blob_fail(b->err, MMD_ERR_MALFORMED,
                                  "tensor '%s': data at %u (%u bytes) is misaligned, outside the data "
                                  "section or not the %zu bytes its shape needs",
                                  t->name, (unsigned)off, (unsigned)bytes, nbytes);
        /* Kernels only read constants; the blob may well be in flash. */
        t->data = (void *)(uintptr_t)(b->base + b->off[MMD__SEC_DATA] + off);
        t->capacity = nbytes;
    }
    return MMD_OK;
}

static mmd_status mmd__blob_attr(const mmd__blob *b, mmd_arena *a, mmd_tensor *tensors, uint32_t k,
                                 const mmd_node *n, mmd_attr *at) {
    const uint8_t *r = b->base + b->off[MMD__SEC_ATTRS] + (size_t)k * MMD__BLOB_ATTR;
    uint32_t value = mmd__rd32(r + 20), count = mmd__rd32(r + 24), bits = mmd__rd32(r + 16), i;
    uint64_t iv = (uint64_t)mmd__rd32(r + 8) | (uint64_t)mmd__rd32(r + 12) << 32;
    int32_t ok = 1;
    memset(at, 0, sizeof(*at));
    at->name = mmd__blob_str(b, mmd__rd32(r));
    at->type = (int32_t)mmd__rd32(r + 4);
    at->s = "";
    if (!at->name)
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED, "node '%s': attribute %u has its name outside the string table",
                              n->name, (unsigned)k);
    switch (at->type) {
    case MMD_ATTR_INT: memcpy(&at->i, &iv, 8); break;
    case MMD_ATTR_FLOAT: memcpy(&at->f, &bits, 4); break;
    case MMD_ATTR_STRING:
        /* The stated length must end exactly at a NUL, so s and s_len agree. */
        ok = mmd__blob_span(value, count, b->len[MMD__SEC_STRINGS] - 1) &&
             b->base[b->off[MMD__SEC_STRINGS] + value + count] == 0;
        if (ok) { at->s = mmd__blob_str(b, value); at->s_len = count; }
        break;
    case MMD_ATTR_INTS:
        if ((ok = mmd__blob_span(value, count, b->n64)) != 0)
            at->ints = (const int64_t *)(const void *)(b->base + b->off[MMD__SEC_I64]) + value;
        at->count = count;
        break;
    case MMD_ATTR_FLOATS:
        if ((ok = mmd__blob_span(value, count, b->nf32)) != 0)
            at->floats = (const float *)(const void *)(b->base + b->off[MMD__SEC_F32]) + value;
        at->count = count;
        break;
    case MMD_ATTR_STRINGS: {
        const char **v;
        if (!mmd__blob_span(value, count, b->n32)) { ok = 0; break; }
        if (!(v = (const char **)mmd_arena_alloc(a, (size_t)count * sizeof(char *), b->err))) return b->err->status;
        for (i = 0; i < count && ok; ++i) ok = (v[i] = mmd__blob_str(b, (uint32_t)mmd__blob_i32(b, value)[i])) != NULL;
        at->strings = v;
        at->count = count;
        break;
    }
    case MMD_ATTR_TENSOR:
        ok = value >= b->tensor_count && value < b->tensor_total;
        if (ok) at->t = &tensors[value];
        break;
    default:
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED, "node '%s': attribute '%s' has type %d, which a blob cannot hold",
                              n->name, at->name, (int)at->type);
    }
    if (!ok)
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED,
                              "node '%s': attribute '%s' refers to %u entries at %u, outside its table",
                              n->name, at->name, (unsigned)count, (unsigned)value);
    return MMD_OK;
}

/* Node record i: names, tensor lists checked against the graph so far (inputs defined before
   they are read, each activation produced by exactly the node its record names). */
static mmd_status mmd__blob_node(const mmd__blob *b, mmd_arena *a, mmd_model *m, mmd_tensor *tensors,
                                 uint32_t i) {
    const uint8_t *r = b->base + b->off[MMD__SEC_NODES] + (size_t)i * MMD__BLOB_NODE;
    mmd_node *n = &m->nodes[i];
    uint32_t nin = mmd__rd32(r + 16), in_at = mmd__rd32(r + 20), nout = mmd__rd32(r + 24),
             out_at = mmd__rd32(r + 28), nattr = mmd__rd32(r + 32), attr_at = mmd__rd32(r + 36), k;
    mmd_status st;
    memset(n, 0, sizeof(*n));
    n->name = mmd__blob_str(b, mmd__rd32(r));
    n->op_type = mmd__blob_str(b, mmd__rd32(r + 4));
    n->domain = mmd__blob_str(b, mmd__rd32(r + 8));
    n->opset = (int32_t)mmd__rd32(r + 12);
    n->scratch_size = mmd__rd32(r + 40);
    if (!n->name || !n->op_type || !n->domain || !n->op_type[0])
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED, "node %u: a name, op_type or domain is outside the string table",
                              (unsigned)i);
    if (n->opset < 1 || nin > MMD_MAX_NODE_IO || nout > MMD_MAX_NODE_IO || nattr > MMD_MAX_ATTRIBUTES ||
        !mmd__blob_span(in_at, nin, b->n32) || !mmd__blob_span(out_at, nout, b->n32) ||
        !mmd__blob_span(attr_at, nattr, b->attr_total))
        return mmd__blob_fail(b->err, MMD_ERR_MALFORMED,
                              "node '%s' (%s): opset %d, %u inputs at %u, %u outputs at %u or %u attributes at %u "
                              "are out of range", n->name, n->op_type, (int)n->opset, (unsigned)nin,
                              (unsigned)in_at, (unsigned)nout, (unsigned)out_at, (unsigned)nattr, (unsigned)attr_at);
    n->input_count = (int32_t)nin;
    n->output_count = (int32_t)nout;
    /* Validated once here and never written: the lists stay in the blob. */
    n->inputs = (int32_t *)(uintptr_t)mmd__blob_i32(b, in_at);
    n->outputs = (int32_t *)(uintptr_t)mmd__blob_i32(b, out_at);
    n->in = (mmd_tensor **)mmd_arena_alloc(a, (size_t)nin * sizeof(mmd_tensor *), b->err);
    n->out = (mmd_tensor **)mmd_arena_alloc(a, (size_t)nout * sizeof(mmd_tensor *), b->err);
    n->attrs = (mmd_attr *)mmd_arena_alloc(a, (size_t)nattr * sizeof(mmd_attr), b->err);
    if (!n->in || !n->out || !n->attrs) return b->err->status;
    for (k = 0; k < nin; ++k) {
        int32_t v = n->inputs[k];
        if (v == -1) continue;
        if (v < 0 || (uint32_t)v >= b->tensor_count ||
            (tensors[v].kind == MMD_TENSOR_ACTIVATION && tensors[v].producer >= (int32_t)i))
            return mmd__blob_fail(b->err, MMD_ERR_MALFORMED,
                                  "node '%s' (%s): input %u is tensor %d, which is out of range or not yet computed",
                                  n->name, n->op_type, (unsigned)k, (int)v);
        n->in[k] = &tensors[v];
    }
    for (k = 0; k < nout; ++k) {
        int32_t v = n->outputs[k];
        if (v == -1) continue;
        /* last_use marks an activation as claimed until the plan computes lifetimes. */
        if (v < 0 || (uint32_t)v >= b->tensor_count || tensors[v].kind != MMD_TENSOR_ACTIVATION ||
            tensors[v].producer != (int32_t)i || tensors[v].last_use != -1)
            return mmd__blob_fail(b->err, MMD_ERR_MALFORMED,
                                  "node '%s' (%s): output %u is tensor %d, which is out of range, not an "
                                  "activation of this node, or listed twice", n->name, n->op_type, (unsigned)k, (int)v);
        tensors[v].last_use = (int32_t)i;
        n->out[k] = &tensors[v];
    }
    for (k = 0; k < nattr; ++k) {
        if ((st = mmd__blob_attr(b, a, tensors, attr_at + k, n, &n->attrs[k])) != MMD_OK) return st;
        n->attr_count++;
    }
    return MMD_OK;
}

static mmd_status mmd__blob_load(mmd_arena *a, const uint8_t *p, size_t size, int32_t copy,
                                 mmd_model **out, mmd_error *err) {
    mmd__blob b;
    mmd_model *m;
    mmd_tensor *tensors;
    uint32_t k, in_at, out_at, nin, nout, inputs = 0;
    int32_t j;
    mmd_status st;
    if ((st = mmd__blob_header(&b, p, size, err)) != MMD_OK) return st;
    if (copy)
        return mmd__blob_fail(err, MMD_ERR_UNSUPPORTED, "copy_weights: a blob is always read in place "
                              "and must outlive the session");
    nin = mmd__rd32(p + 32);
    in_at = mmd__rd32(p + 36);
    nout = mmd__rd32(p + 40);
    out_at = mmd__rd32(p + 44);
    if (!mmd__blob_span(in_at, nin, b.n32) || !mmd__blob_span(out_at, nout, b.n32))
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "%u inputs at %u or %u outputs at %u run outside the int32 pool",
                              (unsigned)nin, (unsigned)in_at, (unsigned)nout, (unsigned)out_at);
    m = (mmd_model *)mmd_arena_alloc(a, sizeof(mmd_model), err);
    tensors = (mmd_tensor *)mmd_arena_alloc(a, (size_t)b.tensor_total * sizeof(mmd_tensor), err);
    if (m) m->nodes = (mmd_node *)mmd_arena_alloc(a, (size_t)b.node_count * sizeof(mmd_node), err);
    if (!m || !tensors || !m->nodes) return err->status;
    m->ir_version = mmd__rd32(p + 64);
    m->producer_name = mmd__blob_str(&b, mmd__rd32(p + 68));
    m->producer_version = mmd__blob_str(&b, mmd__rd32(p + 72));
    m->graph_name = mmd__blob_str(&b, mmd__rd32(p + 76));
    if (!m->producer_name || !m->producer_version || !m->graph_name)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "a header string is outside the string table");
    for (k = 0; k < b.tensor_total; ++k)
        if ((st = mmd__blob_tensor(&b, k, &tensors[k])) != MMD_OK) return st;
    m->tensors = tensors;
    m->tensor_count = (int32_t)b.tensor_count;
    m->node_count = (int32_t)b.node_count;
    for (k = 0; k < b.node_count; ++k)
        if ((st = mmd__blob_node(&b, a, m, tensors, k)) != MMD_OK) return st;
    for (k = 0; k < b.tensor_count; ++k) {
        if (tensors[k].kind == MMD_TENSOR_ACTIVATION && tensors[k].last_use == -1)
            return mmd__blob_fail(err, MMD_ERR_MALFORMED, "tensor '%s' names node %d as its producer, which "
                                  "does not list it", tensors[k].name, (int)tensors[k].producer);
        inputs += tensors[k].kind == MMD_TENSOR_INPUT;
    }
    /* Every graph input listed once, nothing else listed: set_input then reaches them all. */
    m->inputs = (int32_t *)(uintptr_t)mmd__blob_i32(&b, in_at);
    m->outputs = (int32_t *)(uintptr_t)mmd__blob_i32(&b, out_at);
    m->input_count = (int32_t)nin;
    m->output_count = (int32_t)nout;
    for (k = 0; k < nin; ++k) {
        int32_t v = m->inputs[k];
        int32_t bad = v < 0 || (uint32_t)v >= b.tensor_count || tensors[v].kind != MMD_TENSOR_INPUT;
        for (j = 0; j < (int32_t)k && !bad; ++j) bad = m->inputs[j] == v;
        if (bad)
            return mmd__blob_fail(err, MMD_ERR_MALFORMED, "graph input %u is tensor %d, which is out of range, "
                                  "not a graph input or listed twice", (unsigned)k, (int)v);
    }
    if (inputs != nin)
        return mmd__blob_fail(err, MMD_ERR_MALFORMED, "%u tensors are graph inputs but %u are listed",
                              (unsigned)inputs, (unsigned)nin);
    for (k = 0; k < nout; ++k) {
        int32_t v = m->outputs[k];
        if (v < 0 || (uint32_t)v >= b.tensor_count)
            return mmd__blob_fail(err, MMD_ERR_MALFORMED, "graph output %u is tensor %d, which is out of range",
                                  (unsigned)k, (int)v);
        tensors[v].is_output = 1;
    }
    m->blob = p;
    *out = m;
    return MMD_OK;
}

/* mmd_graph_plan for a blob: each kernel's prepare fills its op data and must give the shapes
   stored at conversion; then the stored offsets are checked (no two tensors alive together
   share a byte) and applied. */
static mmd_status mmd__blob_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats, void **activations,
                                 void **scratch, mmd_error *err) {
    mmd__blob b;
    mmd_plan_stats ps;
    int32_t i, j, k;
    uint8_t *base = NULL;
    mmd_status st;
    memset(&ps, 0, sizeof(ps));
    /* The header was checked at load; this only recovers the section table. */
    if ((st = mmd__blob_header(&b, m->blob, mmd__rd32(m->blob + 16), err)) != MMD_OK) return st;
    for (i = 0; i < m->tensor_count; ++i)
        if (m->tensors[i].kind == MMD_TENSOR_ACTIVATION) m->tensors[i].data = NULL;
    for (i = 0; i < m->node_count; ++i) {
        mmd_node *n = &m->nodes[i];
        mmd_kernel_ctx c;
        if (!n->kernel)
            return mmd_error_set(err, MMD_ERR_NO_KERNEL, i, n->op_type, "no kernel for %s::%s (opset %d)",
                                 n->domain[0] ? n->domain : "ai.onnx", n->op_type, (int)n->opset);
        n->folded = n->reprepare = 0;
        n->op_data = NULL;
        n->packed = NULL;      /* a blob's kernels read their weights in place from the blob */
        n->packed_size = 0;
        if (n->kernel->op_data_size && !(n->op_data = mmd_arena_alloc(a, n->kernel->op_data_size, err)))
            return err->status;
        mmd__kernel_ctx(&c, m, i, err);
        c.scratch_size = 0;
        if ((st = mmd__kernel_status(&c, n->kernel->prepare(&c), "prepare")) != MMD_OK) return st;
        n->scratch_size = c.scratch_size;
        if (n->scratch_size > ps.scratch_bytes) ps.scratch_bytes = n->scratch_size;
        for (j = 0; j < n->output_count; ++j) {
            mmd_tensor *t = n->out[j], stored;
            if (!t) continue;
            if ((st = mmd__blob_tensor(&b, (uint32_t)n->outputs[j], &stored)) != MMD_OK) return st;
            if (t->dynamic)
                return mmd_kernel_fail(&c, MMD_ERR_UNSUPPORTED, "output '%s' has a data-dependent shape here; "
                                       "a blob holds a static plan", t->name);
            if (t->dtype != stored.dtype || t->rank != stored.rank)
                return mmd_kernel_fail(&c, MMD_ERR_INVALID_MODEL, "output '%s' is %s of rank %d here, the "
                                       "blob planned %s of rank %d (a blob from another runtime version?)",
                                       t->name, mmd_dtype_name(t->dtype), (int)t->rank,
                                       mmd_dtype_name(stored.dtype), (int)stored.rank);
            for (k = 0; k < t->rank; ++k)
                if (t->dims[k] != stored.dims[k])
                    return mmd_kernel_fail(&c, MMD_ERR_INVALID_MODEL, "output '%s': dim %d is %lld here, the "
                                           "blob planned %lld (a blob from another runtime version?)", t->name,
                                           (int)k, (long long)t->dims[k], (long long)stored.dims[k]);
        }
    }
    /* Lifetimes as the planner counts them: producer to last reader, outputs to the end. */
    for (i = 0; i < m->tensor_count; ++i) m->tensors[i].last_use = m->tensors[i].producer;
    for (i = 0; i < m->node_count; ++i)
        for (j = 0; j < m->nodes[i].input_count; ++j)
            if (m->nodes[i].in[j]) m->nodes[i].in[j]->last_use = i;
    for (i = 0; i < m->output_count; ++i) m->tensors[m->outputs[i]].last_use = m->node_count;
    for (i = 0; i < m->tensor_count; ++i) {
        const mmd_tensor *t = &m->tensors[i];
        if (t->kind != MMD_TENSOR_ACTIVATION) continue;
        ps.activation_sum_bytes += t->capacity;
        for (j = 0; j < i; ++j) {
            const mmd_tensor *u = &m->tensors[j];
            if (u->kind != MMD_TENSOR_ACTIVATION || u->last_use < t->producer || t->last_use < u->producer)
                continue;
            if (u->offset < t->offset + t->capacity && t->offset < u->offset + u->capacity)
                return mmd__blob_fail(err, MMD_ERR_MALFORMED, "tensors '%s' and '%s' are alive together "
                                      "but planned to share bytes", u->name, t->name);
        }
    }
    if (b.activation_bytes && !(base = (uint8_t *)mmd_arena_alloc_uninit(a, b.activation_bytes, err))) return err->status;
    for (i = 0; i < m->tensor_count; ++i)
        if (m->tensors[i].kind == MMD_TENSOR_ACTIVATION) m->tensors[i].data = base + m->tensors[i].offset;
        else if (m->tensors[i].kind == MMD_TENSOR_CONSTANT) ps.constant_bytes += m->tensors[i].capacity;
    if (activations) *activations = base;
    if (scratch) {
        *scratch = NULL;
        if (!(*scratch = mmd_arena_alloc_uninit(a, ps.scratch_bytes, err))) return err->status;
    }
    ps.activation_bytes = b.activation_bytes;
    ps.folded_count = (int32_t)mmd__rd32(m->blob + 60);
    ps.node_count = m->node_count + ps.folded_count;
    if (stats) *stats = ps;
    return MMD_OK;
}

#if !defined(MMD_NO_MALLOC) && !defined(MMD_NO_ONNX)
/* ---- the writer (host side) ---- */
/* One pass over the model serves twice: measuring (p NULL: only the section sizes grow) and
   writing at the section starts the measuring pass laid out, so size and bytes cannot drift. */
typedef struct mmd__blob_out {
    uint8_t *p;                        /* the blob, or NULL while measuring */
    size_t off[MMD__SEC_COUNT];        /* section starts, known in the writing pass */
    size_t at[MMD__SEC_COUNT];         /* bytes used in each section so far */
} mmd__blob_out;

static void mmd__wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Reserves bytes in a section, aligned within it (sections start 16-byte aligned); copies src
   there when writing. Returns the offset inside the section. */
static size_t mmd__bw_put(mmd__blob_out *w, int32_t sec, const void *src, size_t bytes, size_t align) {
    size_t off = (w->at[sec] + align - 1) / align * align;
    w->at[sec] = off + bytes;
    if (w->p && bytes) memcpy(w->p + w->off[sec] + off, src, bytes);
    return off;
}

static uint32_t mmd__bw_string(mmd__blob_out *w, const char *s, size_t len) {
    size_t off;
    if (!s || !len) return 0; /* offset 0 holds "" */
    off = mmd__bw_put(w, MMD__SEC_STRINGS, s, len + 1, 1);
    if (w->p) w->p[w->off[MMD__SEC_STRINGS] + off + len] = 0;
    return (uint32_t)off;
}

static uint32_t mmd__bw_str(mmd__blob_out *w, const char *s) { return mmd__bw_string(w, s, s ? strlen(s) : 0); }

/* Appends count entries of size bytes to a pool; returns the index of the first. */
static uint32_t mmd__bw_pool(mmd__blob_out *w, int32_t sec, const void *src, size_t count, size_t size) {
    return (uint32_t)(mmd__bw_put(w, sec, src, count * size, size) / size);
}

static void mmd__bw_tensor(mmd__blob_out *w, const mmd_tensor *t, uint32_t kind, int32_t producer) {
    uint8_t r[MMD__BLOB_TENSOR];
    size_t n = 0;
    uint32_t off = 0, bytes = 0;
    if (kind == MMD_TENSOR_ACTIVATION) {
        off = (uint32_t)t->offset;
        bytes = (uint32_t)t->capacity;
    } else if (kind != MMD_TENSOR_INPUT) {
        mmd_tensor_nbytes(t, &n, NULL);
        off = (uint32_t)mmd__bw_put(w, MMD__SEC_DATA, t->data, n, MMD__BLOB_ALIGN);
        bytes = (uint32_t)n;
    }
    mmd__wr32(r, mmd__bw_str(w, t->name));
    mmd__wr32(r + 4, (uint32_t)t->dtype);
    mmd__wr32(r + 8, (uint32_t)t->rank);
    mmd__wr32(r + 12, mmd__bw_pool(w, MMD__SEC_I64, t->dims, (size_t)t->rank, 8));
    mmd__wr32(r + 16, kind);
    mmd__wr32(r + 20, (uint32_t)producer);
    mmd__wr32(r + 24, off);
    mmd__wr32(r + 28, bytes);
    mmd__bw_put(w, MMD__SEC_TENSORS, r, sizeof(r), 1);
}

/* The records of one node and its attributes; a TENSOR attribute's tensor becomes a record
   after the graph's tensors, which are all written before the first node. */
static void mmd__bw_node(mmd__blob_out *w, const mmd_node *n, const int32_t *tmap) {
    uint8_t r[MMD__BLOB_NODE], ar[MMD__BLOB_ATTR];
    uint32_t first_attr = (uint32_t)(w->at[MMD__SEC_ATTRS] / MMD__BLOB_ATTR), lists[2], k;
    int32_t j, side;
    for (side = 0; side < 2; ++side) {
        int32_t count = side ? n->output_count : n->input_count;
        const int32_t *idx = side ? n->outputs : n->inputs;
        lists[side] = (uint32_t)(w->at[MMD__SEC_I32] / 4);
        for (j = 0; j < count; ++j) {
            int32_t v = idx[j] >= 0 ? tmap[idx[j]] : -1;
            mmd__bw_pool(w, MMD__SEC_I32, &v, 1, 4);
        }
    }
    for (j = 0; j < n->attr_count; ++j) {
        const mmd_attr *at = &n->attrs[j];
        uint32_t value = 0, count = 0;
        uint64_t iv;
        memset(ar, 0, sizeof(ar));
        memcpy(&iv, &at->i, 8);
        if (at->type == MMD_ATTR_STRING) {
            value = mmd__bw_string(w, at->s, at->s_len);
            count = (uint32_t)at->s_len;
        } else if (at->type == MMD_ATTR_INTS) {
            value = mmd__bw_pool(w, MMD__SEC_I64, at->ints, (size_t)at->count, 8);
            count = (uint32_t)at->count;
        } else if (at->type == MMD_ATTR_FLOATS) {
            value = mmd__bw_pool(w, MMD__SEC_F32, at->floats, (size_t)at->count, 4);
            count = (uint32_t)at->count;
        } else if (at->type == MMD_ATTR_STRINGS) {
            value = (uint32_t)(w->at[MMD__SEC_I32] / 4);
            count = (uint32_t)at->count;
            for (k = 0; k < count; ++k) {
                uint32_t s = mmd__bw_str(w, at->strings[k]);
                mmd__bw_pool(w, MMD__SEC_I32, &s, 1, 4);
            }
        } else if (at->type == MMD_ATTR_TENSOR) {
            value = (uint32_t)(w->at[MMD__SEC_TENSORS] / MMD__BLOB_TENSOR);
            mmd__bw_tensor(w, at->t, MMD_TENSOR_CONSTANT, -1);
        }
        mmd__wr32(ar, mmd__bw_str(w, at->name));
        mmd__wr32(ar + 4, (uint32_t)at->type);
        mmd__wr32(ar + 8, (uint32_t)iv);
        mmd__wr32(ar + 12, (uint32_t)(iv >> 32));
        memcpy(ar + 16, &at->f, 4);
        mmd__wr32(ar + 20, value);
        mmd__wr32(ar + 24, count);
        mmd__bw_put(w, MMD__SEC_ATTRS, ar, sizeof(ar), 1);
    }
    mmd__wr32(r, mmd__bw_str(w, n->name));
    mmd__wr32(r + 4, mmd__bw_str(w, n->op_type));
    mmd__wr32(r + 8, mmd__bw_str(w, n->domain));
    mmd__wr32(r + 12, (uint32_t)n->opset);
    mmd__wr32(r + 16, (uint32_t)n->input_count);
    mmd__wr32(r + 20, lists[0]);
    mmd__wr32(r + 24, (uint32_t)n->output_count);
    mmd__wr32(r + 28, lists[1]);
    mmd__wr32(r + 32, (uint32_t)n->attr_count);
    mmd__wr32(r + 36, first_attr);
    mmd__wr32(r + 40, (uint32_t)n->scratch_size);
    mmd__bw_put(w, MMD__SEC_NODES, r, sizeof(r), 1);
}

/* The kind a kept tensor gets in the blob: outputs of folded nodes become constants. */
static uint32_t mmd__bw_kind(const mmd_model *m, const mmd_tensor *t) {
    if (t->kind == MMD_TENSOR_INPUT) return MMD_TENSOR_INPUT;
    if (t->producer >= 0) return m->nodes[t->producer].folded ? MMD_TENSOR_CONSTANT : MMD_TENSOR_ACTIVATION;
    return t->kind == MMD_TENSOR_INITIALIZER ? MMD_TENSOR_INITIALIZER : MMD_TENSOR_CONSTANT;
}

/* Refuses what a stored, static plan cannot hold; finds the activation buffer and scratch. */
static mmd_status mmd__bw_check(const mmd_model *m, size_t *act, size_t *scratch, uint32_t *folded,
                                mmd_error *err) {
    int32_t i, j;
    for (i = 0; i < m->input_count; ++i)
        if (m->tensors[m->inputs[i]].value_read)
            return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL,
                                 "graph input '%s': its value shapes the plan, which a blob fixes",
                                 m->tensors[m->inputs[i]].name);
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        if (n->folded) { ++*folded; continue; }
        if (n->members)
            return mmd_error_set(err, MMD_ERR_UNSUPPORTED, i, n->op_type, "node '%s' (%s): a backend's set of "
                                 "%d nodes; a blob holds the nodes one by one", n->name, n->op_type,
                                 (int)n->member_count);
        if (n->reprepare)
            return mmd_error_set(err, MMD_ERR_UNSUPPORTED, i, n->op_type, "node '%s' (%s): its shapes depend "
                                 "on data at run time; a blob holds a static plan", n->name, n->op_type);
        for (j = 0; j < n->attr_count; ++j) {
            int32_t type = n->attrs[j].type;
            if (type < MMD_ATTR_FLOAT || type == MMD_ATTR_GRAPH || type > MMD_ATTR_STRINGS)
                return mmd_error_set(err, MMD_ERR_UNSUPPORTED, i, n->op_type, "node '%s' (%s): attribute '%s' "
                                     "(type %d) cannot be stored in a blob", n->name, n->op_type,
                                     n->attrs[j].name, (int)type);
        }
        for (j = 0; j < n->output_count; ++j) {
            const mmd_tensor *t = n->out[j];
            if (!t) continue;
            if (t->kind != MMD_TENSOR_ACTIVATION || t->dynamic || !t->data || !t->capacity)
                return mmd_error_set(err, t->data ? MMD_ERR_UNSUPPORTED : MMD_ERR_NOT_READY, i, n->op_type,
                                     "node '%s' (%s): output '%s' has no static planned place (plan the "
                                     "model first; data-dependent shapes cannot be stored)", n->name,
                                     n->op_type, t->name);
            if (t->offset + t->capacity > *act) *act = t->offset + t->capacity;
        }
        if (n->scratch_size > *scratch) *scratch = n->scratch_size;
    }
    if (*act > 0xffffffffu || *scratch > 0xffffffffu)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL, "activations of %zu bytes or scratch of %zu bytes "
                             "do not fit a blob's 32-bit sizes", *act, *scratch);
    return MMD_OK;
}

MMD_API mmd_status mmd_blob_write(const mmd_model *m, size_t arena_bytes, void *out, size_t cap,
                                  size_t *size, mmd_error *err) {
    mmd_error local;
    mmd__blob_out w;
    mmd_arena maps;
    int32_t *tmap, *nmap, i, j, pass;
    uint32_t kept_tensors = 0, kept_nodes = 0, folded = 0, lists[2], strs[3], k;
    size_t act = 0, scratch = 0, total = 0;
    uint8_t *h = (uint8_t *)out;
    mmd_status st;
    if (!err) err = &local;
    if (!m || !size)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_blob_write: NULL argument");
    *size = 0;
    if ((uintptr_t)out % MMD__BLOB_ALIGN)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_blob_write: out must be 16-byte aligned");
    if ((st = mmd__bw_check(m, &act, &scratch, &folded, err)) != MMD_OK) return st;
    /* A blob written again keeps the count of the nodes folded when it was first written. */
    if (m->blob) folded += mmd__rd32(m->blob + 60);
    /* The index maps come from a heap arena of their own: the model's arena may be full. */
    mmd_arena_init(&maps, NULL, 0, 1);
    tmap = (int32_t *)mmd_arena_alloc(&maps, (size_t)m->tensor_count * sizeof(int32_t), err);
    nmap = (int32_t *)mmd_arena_alloc(&maps, (size_t)m->node_count * sizeof(int32_t), err);
    if (!tmap || !nmap) {
        mmd_arena_release(&maps);
        return err->status;
    }
    /* Kept: graph inputs and outputs and whatever a node that still runs reads or writes. */
    for (i = 0; i < m->tensor_count; ++i)
        tmap[i] = m->tensors[i].kind == MMD_TENSOR_INPUT || m->tensors[i].is_output ? 0 : -1;
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        nmap[i] = n->folded ? -1 : (int32_t)kept_nodes++;
        if (n->folded) continue;
        for (j = 0; j < n->input_count; ++j)
            if (n->inputs[j] >= 0) tmap[n->inputs[j]] = 0;
        for (j = 0; j < n->output_count; ++j)
            if (n->outputs[j] >= 0) tmap[n->outputs[j]] = 0;
    }
    for (i = 0; i < m->tensor_count; ++i)
        if (tmap[i] == 0) tmap[i] = (int32_t)kept_tensors++;
    memset(&w, 0, sizeof(w));
    for (pass = 0; pass < 2; ++pass) {
        memset(w.at, 0, sizeof(w.at));
        mmd__bw_put(&w, MMD__SEC_STRINGS, "", 1, 1);
        strs[0] = mmd__bw_str(&w, m->producer_name);
        strs[1] = mmd__bw_str(&w, m->producer_version);
        strs[2] = mmd__bw_str(&w, m->graph_name);
        for (j = 0; j < 2; ++j) {
            int32_t count = j ? m->output_count : m->input_count;
            lists[j] = (uint32_t)(w.at[MMD__SEC_I32] / 4);
            for (i = 0; i < count; ++i) mmd__bw_pool(&w, MMD__SEC_I32, &tmap[(j ? m->outputs : m->inputs)[i]], 1, 4);
        }
        for (i = 0; i < m->tensor_count; ++i) {
            const mmd_tensor *t = &m->tensors[i];
            if (tmap[i] < 0) continue;
            mmd__bw_tensor(&w, t, mmd__bw_kind(m, t), mmd__bw_kind(m, t) == MMD_TENSOR_ACTIVATION ? nmap[t->producer] : -1);
        }
        for (i = 0; i < m->node_count; ++i)
            if (!m->nodes[i].folded) mmd__bw_node(&w, &m->nodes[i], tmap);
        if (pass) break;
        /* Layout: the sections in order after the header, each 16-byte aligned. */
        total = MMD__BLOB_HEADER;
        for (k = 0; k < MMD__SEC_COUNT; ++k) {
            total = (total + MMD__BLOB_ALIGN - 1) / MMD__BLOB_ALIGN * MMD__BLOB_ALIGN;
            w.off[k] = total;
            total += w.at[k];
        }
        *size = total;
        st = MMD_OK;
        if (total > 0xffffffffu)
            st = mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL, "the blob would have %zu bytes; its offsets are 32-bit", total);
        else if (out && cap < total)
            st = mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_blob_write: %zu bytes given, the blob has %zu",
                               cap, total);
        if (st != MMD_OK || !out) break;
        memset(out, 0, total);
        w.p = h;
    }
    mmd_arena_release(&maps);
    if (st != MMD_OK || !out) return st;
    memcpy(h, mmd__blob_magic, 8);
    mmd__wr32(h + 8, MMD__BLOB_VERSION);
    mmd__wr32(h + 12, MMD__BLOB_HEADER);
    mmd__wr32(h + 16, (uint32_t)total);
    mmd__wr32(h + 20, MMD_VERSION_MAJOR * 10000u + MMD_VERSION_MINOR * 100u + MMD_VERSION_PATCH);
    mmd__wr32(h + 24, kept_tensors);
    mmd__wr32(h + 28, kept_nodes);
    mmd__wr32(h + 32, (uint32_t)m->input_count);
    mmd__wr32(h + 36, lists[0]);
    mmd__wr32(h + 40, (uint32_t)m->output_count);
    mmd__wr32(h + 44, lists[1]);
    mmd__wr32(h + 48, (uint32_t)act);
    mmd__wr32(h + 52, (uint32_t)scratch);
    mmd__wr32(h + 56, arena_bytes > 0xffffffffu ? 0u : (uint32_t)arena_bytes);
    mmd__wr32(h + 60, folded);
    mmd__wr32(h + 64, (uint32_t)m->ir_version);
    for (k = 0; k < 3; ++k) mmd__wr32(h + 68 + 4 * k, strs[k]);
    for (k = 0; k < MMD__SEC_COUNT; ++k) {
        mmd__wr32(h + 80 + 8 * k, (uint32_t)w.off[k]);
        mmd__wr32(h + 84 + 8 * k, (uint32_t)w.at[k]);
    }
    return MMD_OK;
}
#endif /* MMD_NO_MALLOC, MMD_NO_ONNX */

#endif /* MMD_IR_IMPLEMENTATION */

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
