/* mmdeploy_ir.h - v0.1.0 - MIT licence (see end of file)
   ONNX protobuf decoding (written from scratch), graph IR, shape inference and memory planning
   for mmdeploy.h.

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
} mmd_node;

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
    void *scratch;                   /* eval: node->scratch_size bytes of scratch */
    size_t scratch_size;             /* prepare: set to the bytes of scratch eval needs */
    mmd_error *err;
} mmd_kernel_ctx;

typedef mmd_status (*mmd_kernel_fn)(mmd_kernel_ctx *ctx);

/* Kernel flags. */
#define MMD_KERNEL_SHAPE_ONLY 1u     /* outputs depend only on input shapes (Shape, Size) */

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
   output, nodes sorted). Allocates from a. Not thread safe on a shared arena. */
MMD_API mmd_status mmd_model_parse(mmd_arena *a, const void *data, size_t size, mmd_model **out,
                                   mmd_error *err);
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
/* 1 when t holds a value known at prepare time (initializer or folded constant). */
MMD_API int32_t mmd_tensor_is_const(const mmd_tensor *t);

/* ---- setup: planning ------------------------------------------------------------------------ */
/* Runs every bound kernel's prepare in order (shape and dtype inference), evaluates nodes whose
   inputs are all constant, assigns activation offsets so that tensors with disjoint lifetimes
   share memory, and allocates the activation buffer and scratch from a. Every node must have a
   kernel. Allocates from a. */
MMD_API mmd_status mmd_graph_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats,
                                  void **activations, void **scratch, mmd_error *err);
/* Evaluates every node that was not folded, in order. Allocates nothing. */
MMD_API mmd_status mmd_graph_run(mmd_model *m, void *scratch, mmd_error *err);

#ifdef __cplusplus
}
#endif

#define MMD_IR_DECLS
#if defined(MMD_IMPLEMENTATION) && !defined(MMDEPLOY_OPS_H)
#include "mmdeploy_ops.h"
#endif
#endif /* MMDEPLOY_IR_H */

#if (defined(MMD_IMPLEMENTATION) || defined(MMD_IR_IMPLEMENTATION)) && defined(MMD_CORE_DECLS) && \
    defined(MMD_IR_DECLS) && !defined(MMD_IR_IMPLEMENTED)
#define MMD_IR_IMPLEMENTED
/* ==== >>ir implementation ==== */

#endif /* MMD_IR_IMPLEMENTATION */
