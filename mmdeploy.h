/* mmdeploy.h - v0.1.0 - MIT licence (see end of file)
   Embeddable C99 inference runtime for OpenMMLab MMDeploy ONNX models.

   QUICK START
     In exactly one C file:
         #define MMD_IMPLEMENTATION
         #include "mmdeploy.h"
     Then, anywhere:
         mmd_session *s; mmd_error err = {0};
         if (mmd_session_create(bytes, size, NULL, &s, &err) != MMD_OK) puts(err.msg);
         int64_t dims[4] = {1, 1, 8, 8};
         mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 4, dims, pixels, &err);
         mmd_session_prepare(s, &err);      // plans memory; only needed after a shape change
         mmd_session_run(s, &err);          // allocates nothing
         const mmd_tensor *y = mmd_session_output(s, 0);   // y->data, y->dims
         mmd_session_destroy(s);

   WHAT IT DOES NOT DO
     No training, no control-flow operators (If/Loop/Scan), no external-data tensors, no sparse
     tensors, no string tensors, no intra-op threads. Each limit gives a status code, not a crash.

   CONFIGURATION (define before the implementation include)
     MMD_IMPLEMENTATION        emit the code of all three headers in this translation unit
     MMD_IR_IMPLEMENTATION     ... only mmdeploy_ir.h;  MMD_OPS_IMPLEMENTATION ... only mmdeploy_ops.h
     MMD_CORE_IMPLEMENTATION   ... only mmdeploy.h
     MMD_STATIC                make every function static to the including file
     MMD_MALLOC / MMD_FREE     host allocator; define both or neither
     MMD_NO_MALLOC             no heap at all: sessions need a caller-owned arena
     MMD_NO_ERROR_STRINGS      drop message text (codes stay)
     MMD_MAX_RANK              largest tensor rank (default 8)
     MMD_MAX_TENSOR_BYTES      largest tensor a model may declare (default 1 GiB)
     MMD_MAX_NODES             largest node count (default 1<<20)
     MMD_MAX_PROTO_DEPTH       deepest protobuf nesting read (default 16)
     MMD_MAX_ATTRIBUTES        most attributes on one node (default 64)

   MEMORY MODEL
     Everything a session needs comes from one arena: the caller's (mmd_options.arena) or one grown
     with MMD_MALLOC. Model structures and weights that cannot be used in place are allocated
     first; the shape-dependent plan (folded constants, activation buffer, scratch) follows and is
     redone by mmd_session_prepare when an input changes shape. mmd_session_run allocates nothing.
     The model bytes must outlive the session: aligned initializers are read in place.

   ERRORS
     Every fallible call returns mmd_status (MMD_OK == 0) and fills the caller's mmd_error with
     the status, the node index (-1 if none), the operator and a message naming what was wrong.

   THREAD SAFETY
     A session is used by one thread at a time. Different sessions share nothing.

   LIMITS
     See the MMD_MAX_* macros above; a model past a limit is refused with MMD_ERR_LIMIT.
*/
#ifndef MMDEPLOY_H
#define MMDEPLOY_H

#define MMD_VERSION_MAJOR 0
#define MMD_VERSION_MINOR 1
#define MMD_VERSION_PATCH 0
#define MMD_VERSION_STRING "0.1.0"

#include <stddef.h>
#include <stdint.h>

#ifndef MMD_API
#ifdef MMD_STATIC
#define MMD_API static
#else
#define MMD_API extern
#endif
#endif

#ifndef MMD_MAX_RANK
#define MMD_MAX_RANK 8
#endif
#ifndef MMD_MAX_TENSOR_BYTES
#define MMD_MAX_TENSOR_BYTES ((uint64_t)1 << 30)
#endif
#ifndef MMD_MAX_NODES
#define MMD_MAX_NODES (1 << 20)
#endif
#ifndef MMD_MAX_PROTO_DEPTH
#define MMD_MAX_PROTO_DEPTH 16
#endif
#ifndef MMD_MAX_ATTRIBUTES
#define MMD_MAX_ATTRIBUTES 64
#endif
#ifndef MMD_ERROR_MSG_SIZE
#define MMD_ERROR_MSG_SIZE 256
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes, generated from one list so names and strings cannot drift. Append only. */
#define MMD_STATUS_LIST(X)                                                     \
    X(OK, "ok")                                                                \
    X(ERR_INVALID_ARGUMENT, "invalid argument")                                \
    X(ERR_OUT_OF_MEMORY, "out of memory")                                      \
    X(ERR_ARENA_TOO_SMALL, "arena too small")                                  \
    X(ERR_MALFORMED, "malformed protobuf")                                     \
    X(ERR_INVALID_MODEL, "invalid model")                                      \
    X(ERR_UNSUPPORTED, "unsupported")                                          \
    X(ERR_NO_KERNEL, "no kernel")                                              \
    X(ERR_SHAPE, "shape mismatch")                                             \
    X(ERR_DTYPE, "dtype mismatch")                                             \
    X(ERR_LIMIT, "resource limit exceeded")                                    \
    X(ERR_INDEX, "index out of range")                                         \
    X(ERR_NOT_READY, "session not ready")                                      \
    X(ERR_IO, "i/o error")

typedef enum mmd_status {
#define MMD__STATUS_ENUM(name, str) MMD_##name,
    MMD_STATUS_LIST(MMD__STATUS_ENUM)
#undef MMD__STATUS_ENUM
    MMD_STATUS_COUNT
} mmd_status;

typedef struct mmd_error {
    mmd_status status;
    int32_t node;                    /* index of the failing node, -1 if none */
    char op[64];                     /* its op_type, "" if none */
    char msg[MMD_ERROR_MSG_SIZE];    /* what was wrong, naming the tensor, field or value */
} mmd_error;

/* Element types; the values are ONNX TensorProto.DataType so no table sits between them. */
typedef enum mmd_dtype {
    MMD_DTYPE_UNDEFINED = 0,
    MMD_DTYPE_FLOAT32 = 1,
    MMD_DTYPE_UINT8 = 2,
    MMD_DTYPE_INT8 = 3,
    MMD_DTYPE_UINT16 = 4,
    MMD_DTYPE_INT16 = 5,
    MMD_DTYPE_INT32 = 6,
    MMD_DTYPE_INT64 = 7,
    MMD_DTYPE_STRING = 8,
    MMD_DTYPE_BOOL = 9,
    MMD_DTYPE_FLOAT16 = 10,
    MMD_DTYPE_FLOAT64 = 11,
    MMD_DTYPE_UINT32 = 12,
    MMD_DTYPE_UINT64 = 13,
    MMD_DTYPE_BFLOAT16 = 16
} mmd_dtype;

/* What a tensor is to the graph. */
typedef enum mmd_tensor_kind {
    MMD_TENSOR_ACTIVATION = 0,  /* produced by a node at run time, lives in the planned buffer */
    MMD_TENSOR_INPUT = 1,       /* graph input, bound by the caller */
    MMD_TENSOR_INITIALIZER = 2, /* weight from the model file */
    MMD_TENSOR_CONSTANT = 3     /* computed at prepare time (Constant, Shape, folded nodes) */
} mmd_tensor_kind;

/* A tensor: plain data, read freely. Kernels see these; callers see inputs and outputs. */
typedef struct mmd_tensor {
    const char *name;
    int32_t dtype;                   /* mmd_dtype */
    int32_t rank;
    int64_t dims[MMD_MAX_RANK];
    void *data;                      /* NULL until bound, planned or folded */
    int32_t kind;                    /* mmd_tensor_kind */
    int32_t producer;                /* node index, -1 for inputs and initializers */
    int32_t is_output;               /* 1 for graph outputs (kept alive to the end of run) */
    int32_t last_use;                /* planner: index of the last node reading it */
    size_t offset;                   /* planner: byte offset in the activation buffer */
    const char *dim_params[MMD_MAX_RANK]; /* graph inputs/outputs: symbolic dim names or NULL */
} mmd_tensor;

/* Bump allocator over a caller buffer, or over MMD_MALLOC blocks when base is NULL and
   heap is 1. One allocator owns everything a session holds. */
typedef struct mmd_arena {
    uint8_t *base;                   /* caller buffer, or NULL in heap mode */
    size_t size;                     /* its size */
    size_t used;                     /* bytes handed out so far (with alignment padding) */
    size_t high_water;               /* most bytes ever in use */
    void *blocks;                    /* heap mode: newest block first */
    int32_t heap;                    /* 1: allocate with MMD_MALLOC */
} mmd_arena;

typedef struct mmd_session mmd_session;

/* Options for mmd_session_create; zero means default (all-zero struct or NULL pointer). */
typedef struct mmd_options {
    void *arena;                     /* caller-owned memory; NULL: grow one with MMD_MALLOC */
    size_t arena_size;
    int32_t copy_weights;            /* 1: copy every initializer so the model bytes may be freed */
} mmd_options;

/* Plan figures, for reports and for sizing a firmware arena. */
typedef struct mmd_plan_stats {
    size_t arena_bytes;              /* everything the session holds (its exact arena size) */
    size_t model_bytes;              /* parsed structures plus copied weights */
    size_t activation_bytes;         /* the planned, shared activation buffer */
    size_t activation_sum_bytes;     /* sum of all activations if none shared memory */
    size_t constant_bytes;           /* tensors folded at prepare time */
    size_t scratch_bytes;            /* largest kernel scratch request */
    int32_t node_count, folded_count;
} mmd_plan_stats;

/* ---- status and errors ---------------------------------------------------------------- */
/* Name of a status code ("ok", "invalid model", ...). Any phase, no allocation, thread safe. */
MMD_API const char *mmd_status_string(mmd_status status);
/* Fills err (if non-NULL) and returns status; fmt knows %s %d %u %lld %llu %zu %g %c %%.
   Any phase, no allocation, thread safe on distinct err. */
MMD_API mmd_status mmd_error_set(mmd_error *err, mmd_status status, int32_t node, const char *op,
                                 const char *fmt, ...);
/* Bytes per element of a dtype, 0 for unknown or string. Thread safe. */
MMD_API size_t mmd_dtype_size(int32_t dtype);
/* Short name of a dtype ("float32", "int64", ...); "?" when unknown. Thread safe. */
MMD_API const char *mmd_dtype_name(int32_t dtype);
/* Element count of a tensor (1 for rank 0). Thread safe. */
MMD_API int64_t mmd_tensor_numel(const mmd_tensor *t);
/* Checked byte size: fails with MMD_ERR_LIMIT past MMD_MAX_TENSOR_BYTES. Thread safe. */
MMD_API mmd_status mmd_tensor_nbytes(const mmd_tensor *t, size_t *out, mmd_error *err);

/* ---- arena ------------------------------------------------------------------------------ */
/* Arena over a caller buffer (heap = 0) or over MMD_MALLOC (buf NULL, heap = 1). Setup phase. */
MMD_API void mmd_arena_init(mmd_arena *a, void *buf, size_t size, int32_t heap);
/* 16-byte aligned, zeroed bytes; NULL with MMD_ERR_ARENA_TOO_SMALL/OUT_OF_MEMORY in err. */
MMD_API void *mmd_arena_alloc(mmd_arena *a, size_t bytes, mmd_error *err);
/* Frees everything allocated after the mark returned by a->used earlier. */
MMD_API void mmd_arena_reset(mmd_arena *a, size_t mark);
/* Frees every heap block; a caller buffer is left to the caller. */
MMD_API void mmd_arena_release(mmd_arena *a);

/* ---- setup ------------------------------------------------------------------------------ */
/* Parses and validates an ONNX model, binds kernels, plans memory for the declared input
   shapes (symbolic dims taken as 1). Allocates from the arena only. Returns MMD_OK or why not. */
MMD_API mmd_status mmd_session_create(const void *model, size_t size, const mmd_options *opts,
                                      mmd_session **out, mmd_error *err);
/* Exact arena bytes mmd_session_create needs for this model with the default input shapes.
   Host only (grows a heap arena, then frees it). */
MMD_API mmd_status mmd_session_arena_size(const void *model, size_t size, size_t *out_bytes,
                                          mmd_error *err);
/* Releases what the session allocated (nothing if the caller owns the arena). */
MMD_API void mmd_session_destroy(mmd_session *s);

MMD_API int32_t mmd_session_input_count(const mmd_session *s);
MMD_API int32_t mmd_session_output_count(const mmd_session *s);
/* Graph input/output i as it stands (shape of the current plan), NULL if out of range. */
MMD_API const mmd_tensor *mmd_session_input(const mmd_session *s, int32_t i);
MMD_API const mmd_tensor *mmd_session_output(const mmd_session *s, int32_t i);
/* Index of the named input or output, -1 when there is none. */
MMD_API int32_t mmd_session_find_input(const mmd_session *s, const char *name);
MMD_API int32_t mmd_session_find_output(const mmd_session *s, const char *name);

/* Binds caller data to input i (no copy: it must stay valid until run returns). A new shape
   marks the plan stale; dtype and rank must match the model. No allocation. */
MMD_API mmd_status mmd_session_set_input(mmd_session *s, int32_t i, int32_t dtype, int32_t rank,
                                         const int64_t *dims, const void *data, mmd_error *err);
/* Re-infers shapes, folds constants and re-plans memory for the bound input shapes. May
   allocate from the arena. A no-op when nothing changed. */
MMD_API mmd_status mmd_session_prepare(mmd_session *s, mmd_error *err);
/* Runs the graph. Allocates nothing; fails with MMD_ERR_NOT_READY if an input is unbound or
   the plan is stale. */
MMD_API mmd_status mmd_session_run(mmd_session *s, mmd_error *err);
/* Plan figures of the current plan. */
MMD_API void mmd_session_stats(const mmd_session *s, mmd_plan_stats *out);

#ifdef __cplusplus
}
#endif

#define MMD_CORE_DECLS
/* The implementation needs every header's declarations, whichever header the user included
   first; a header still being read (its guard set, its declarations unfinished) is left to
   finish and emits the rest itself. */
#if (defined(MMD_IMPLEMENTATION) || defined(MMD_CORE_IMPLEMENTATION)) && !defined(MMDEPLOY_IR_H)
#include "mmdeploy_ir.h"
#endif
#if (defined(MMD_IMPLEMENTATION) || defined(MMD_CORE_IMPLEMENTATION)) && defined(MMD_IR_DECLS)
#include "mmdeploy_ops.h"
#endif
#endif /* MMDEPLOY_H */

#if (defined(MMD_IMPLEMENTATION) || defined(MMD_CORE_IMPLEMENTATION)) && defined(MMD_CORE_DECLS) && \
    defined(MMD_IR_DECLS) && defined(MMD_OPS_DECLS) && !defined(MMD_CORE_IMPLEMENTED)
#define MMD_CORE_IMPLEMENTED
/* ==== >>core implementation ==== */

#endif /* MMD_CORE_IMPLEMENTATION */
