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
     tensors, no string tensors, no inter-op parallelism (nodes run one after another, each on
     up to mmd_options.threads threads), no big-endian hosts (weights are read as
     stored). Each limit gives a status code, not a crash. Subgraph attributes are never
     decoded, so nesting depth is bounded by construction.

   LAYERS (each uses only the layers before it; no header includes a header of a later layer)
     1. mmdeploy.h: the public types and declarations, and its base code (status strings, the
        error formatter, dtypes, the arena)
     2. mmdeploy_ir.h (includes mmdeploy.h): .mmd blobs, ONNX decoding, graph IR, planning
     3. mmdeploy_ops.h (includes mmdeploy_ir.h): the reference kernels and their table
     4. mmdeploy.h's session code: threads, sessions, backends; it includes mmdeploy_ops.h, and
        is emitted only where MMD_IMPLEMENTATION or MMD_CORE_IMPLEMENTATION is defined.
     So mmdeploy.h with MMD_IMPLEMENTATION emits all four; each header compiles alone.
     5. mmdeploy_sdk.h, optional (needs cJSON and stb): MMDeploy's SDK and C API on the public
        declarations of the others (sessions, and mmd_resize_axis_taps for image resizing);
        none of 1-4 includes it, so the runtime and firmware builds never need its libraries.

   CONFIGURATION (define before the implementation include)
     MMD_IMPLEMENTATION        with mmdeploy.h: emit the code of all three headers in this
                               translation unit (with mmdeploy_ir.h or mmdeploy_ops.h included
                               first: those layers, the session code at the next mmdeploy.h)
     MMD_IR_IMPLEMENTATION     ... only mmdeploy_ir.h;  MMD_OPS_IMPLEMENTATION ... only mmdeploy_ops.h
     MMD_CORE_IMPLEMENTATION   ... only mmdeploy.h (layers 1 and 4)
     MMD_STATIC                make every function static to the including file
     MMD_MALLOC / MMD_FREE     host allocator; define both or neither
     MMD_NO_MALLOC             no heap at all: sessions need a caller-owned arena (firmware);
                               leaves out the host-side .mmd writer too
     MMD_NO_ONNX               the lean firmware core: reads .mmd blobs only, leaving out the ONNX
                               protobuf decoder, the general planner (shape inference, constant
                               folding, placement, run-time re-prepare), the plan-time packing of
                               weights (a blob's are read in place) and the .mmd writer; ONNX
                               bytes then give MMD_ERR_UNSUPPORTED
     MMD_NO_STDIO              nothing to leave out: no header includes <stdio.h> or calls printf
                               or file functions (errors use a built-in formatter); accepted so
                               firmware builds can say so, and `make mcu-size` checks it with nm
     MMD_ONLY_OPS              compile only the kernels whose MMD_OP_<op_type> is defined too;
                               `mmdeploy convert M.onnx --ops-header ops.h` writes that list
     MMD_NO_REWRITES           leave out the load-time graph rewrites (mmd_graph_rewrite does
                               nothing): for firmware that loads .mmd blobs, which store the
                               graph already rewritten; the --ops-header list defines it
     MMD_NO_THREADS            no built-in thread pool and no pthread symbol (implied by
                               MMD_NO_MALLOC, on Windows and wherever __unix__ and
                               __APPLE__ are not defined); threads > 1 then need
                               mmd_options.parallel
     MMD_NO_ERROR_STRINGS      drop message text (codes stay): the formats and their arguments
                               are not compiled at all, and err->msg stays empty
     MMD_NO_BACKEND_SETS       leave out subgraph claims (claim_set is never offered; per-node
                               and whole-graph backends still work): firmware with no delegate
     MMD_ARENA_POISON          fill activations and scratch with 0xff bytes when planned (they
                               are not zeroed), so that a test build shows a kernel reading
                               them before writing them
     MMD_MAX_RANK              largest tensor rank (default 8)
     MMD_MAX_TENSOR_BYTES      largest tensor a model may declare or a plan may make, and largest
                               scratch of one kernel (default 1 GiB)
     MMD_MAX_NODES             most nodes, and most initializers, graph inputs or graph outputs
                               (default 1<<16; placement is quadratic)
     MMD_MAX_TENSORS           most named values in a graph (default 4 * MMD_MAX_NODES)
     MMD_MAX_NODE_IO           most inputs, and most outputs, of one node (default 65535)
     MMD_MAX_ATTRIBUTES        most attributes on one node (default 64)
     MMD_MAX_ATTR_VALUES       most elements in one INTS, FLOATS, STRINGS or TENSORS attribute
                               (default 1<<24)
     MMD_MAX_OPSETS            most opset_import entries (default 1024)
     MMD_MAX_STRING            longest name or string attribute, in bytes (default 1 MiB)
     MMD_MAX_BACKENDS          capacity of an mmd_backend_registry (default 8)

   MEMORY MODEL
     Everything a session needs comes from one arena: the caller's (mmd_options.arena) or one grown
     with MMD_MALLOC. Model structures and weights that cannot be used in place are allocated
     first; the shape-dependent plan (folded constants, activation buffer, scratch) follows and is
     redone by mmd_session_prepare when an input changes shape. mmd_session_run allocates nothing.
     The model bytes must outlive the session: aligned initializers are read in place. Between
     the two, once at create, the graph is rewritten (BatchNormalization folded into the Conv
     before it, activations and residual Adds fused into it, ...; mmd_graph_rewrite in
     mmdeploy_ir.h, mmd_options.no_rewrites turns it off): weights it changes are copied into
     the model part of the arena (mmd_plan_stats.rewrite_bytes), never written in place.

   ERRORS
     Every fallible call returns mmd_status (MMD_OK == 0) and fills the caller's mmd_error with
     the status, the node index (-1 if none), the operator and a message naming what was wrong.

   BACKENDS
     Vendor libraries plug in at run time, without patching these headers: fill an mmd_backend
     (backends/mmd_openblas.h, backends/mmd_onednn.h and backends/mmd_xnnpack.h are three),
     register it in a caller-owned mmd_backend_registry and pass that in mmd_options.backends.
     Each node runs on the first backend that claims it and on the reference kernels otherwise,
     also when a claimed kernel refuses at prepare; the contract is written above struct
     mmd_backend, and docs/backends.md is a guide for backend authors.

   THREAD SAFETY
     A session is used by one thread at a time. Different sessions share nothing.
     Inside a run, one node may use up to mmd_options.threads threads: its kernel splits its
     work into independent shares (output rows, tiles, channels), each computed exactly as it
     would be on one thread, so results do not depend on the thread count. The shares run on
     mmd_options.parallel when given, else on a pthreads pool the session starts at create
     (threads - 1 workers that spin briefly between nodes, then sleep) and joins at destroy.

   LIMITS
     The model bytes and the caller's inputs are untrusted: every count, length, offset, dim,
     dtype and index is checked when the model loads (sizes that depend on input shapes, when
     prepare plans), in release builds too, so that no input reads or writes out of bounds and
     each refusal is a status with a message naming the value. The MMD_MAX_* macros above bound
     what a model may make the runtime allocate or loop over; past one, load (or prepare, for
     shapes computed from inputs) fails with MMD_ERR_LIMIT. Decoding is not recursive (subgraph
     attributes stay undecoded bytes), so no nesting depth needs a limit. Other refusals:
       MMD_ERR_MALFORMED        bytes that are not protobuf (.mmd blob) as the schema has it:
                                truncation, a varint over 10 bytes, a length past its parent,
                                a known field with the wrong wire type
       MMD_ERR_INVALID_MODEL    valid protobuf, invalid graph: undefined input, cycle, a name
                                defined twice, raw_data size not dims x dtype, an operator with
                                the wrong number of inputs or an attribute of the wrong type
       MMD_ERR_UNSUPPORTED      valid ONNX this runtime does not run: external or sparse data,
                                string tensors, an unknown data_type
       MMD_ERR_SHAPE, _DTYPE    an operator's inputs do not fit it (found by its prepare), or a
                                binding that does not fit the declared input
       MMD_ERR_INDEX            an index input out of range at run time (Gather, ScatterND...)
       MMD_ERR_NO_KERNEL        an operator (or opset) without a kernel
       MMD_ERR_ARENA_TOO_SMALL  a caller arena smaller than the plan; _OUT_OF_MEMORY on the heap
       MMD_ERR_INVALID_ARGUMENT a NULL argument or an index out of range in an API call, or a
                                session used after mmd_session_destroy in a caller arena (on the
                                heap that memory is freed, so such a use cannot be detected)
       MMD_ERR_NOT_READY        run with an input unbound or without a valid plan (shapes
                                changed, or the last prepare failed)
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

/* Keeps a helper's locals out of its caller's frame, so that the backends' bookkeeping is not
   on the stack while session creation plans the graph (the firmware stack bound, make mcu-size),
   and a micro-kernel's loop out of its caller's (mmd__gemm_ukernel_spread6_c). Defined before
   the layers, for all three headers' implementations. */
#if defined(__GNUC__) || defined(__clang__)
#define MMD__NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define MMD__NOINLINE __declspec(noinline)
#else
#define MMD__NOINLINE
#endif

#ifndef MMD_MAX_RANK
#define MMD_MAX_RANK 8
#endif
#ifndef MMD_MAX_TENSOR_BYTES
#define MMD_MAX_TENSOR_BYTES ((uint64_t)1 << 30)
#endif
#ifndef MMD_MAX_NODES
/* Memory placement is quadratic in tensors: 1<<16 nodes plan in seconds; the largest MMDeploy
   exports have a few thousand. Raise it for bigger graphs you trust. */
#define MMD_MAX_NODES (1 << 16)
#endif
#ifndef MMD_MAX_TENSORS
#define MMD_MAX_TENSORS (4 * (int64_t)MMD_MAX_NODES)
#endif
#ifndef MMD_MAX_NODE_IO
#define MMD_MAX_NODE_IO 65535
#endif
#ifndef MMD_MAX_ATTRIBUTES
#define MMD_MAX_ATTRIBUTES 64
#endif
#ifndef MMD_MAX_ATTR_VALUES
#define MMD_MAX_ATTR_VALUES ((int64_t)1 << 24)
#endif
#ifndef MMD_MAX_OPSETS
#define MMD_MAX_OPSETS 1024
#endif
#ifndef MMD_MAX_STRING
#define MMD_MAX_STRING ((size_t)1 << 20)
#endif
#ifndef MMD_ERROR_MSG_SIZE
#define MMD_ERROR_MSG_SIZE 256
#endif
#ifndef MMD_MAX_BACKENDS
#define MMD_MAX_BACKENDS 8
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
    X(ERR_MALFORMED, "malformed data")                                     \
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
    int32_t dynamic;                 /* 1: shape known only at run time; dims are an upper bound
                                        until the producing node's eval writes the real ones */
    size_t capacity;                 /* planner: bytes reserved for the data */
    int32_t value_read;              /* planner: a prepare read this graph input's value */
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

/* ---- backends (types) ------------------------------------------------------------------- */
/* A backend is a vendor library (a BLAS, oneDNN, an NPU driver) that runs some or all of a
   model's nodes instead of the reference kernels, described to the runtime by a struct of
   function pointers. Nothing vendor-specific is compiled into these headers and no global list
   exists: the caller fills an mmd_backend, registers it in its own mmd_backend_registry and
   hands that registry to mmd_session_create through mmd_options.backends.

   CALL ORDER
     any time:            is_available, get_version, check_env, to_backend (the last converts a
                          model into files in a work directory ahead of time, e.g. a weight cache)
     mmd_session_create:  for each registered backend in order: is_available, then create (the
                          session's wrapper: it gets the parsed model, the model bytes and
                          mmd_options.backend_dir, and returns a handle); then, once per node in
                          node order, claim of each created backend in registration order until
                          one returns a kernel. Claims are decided here, once: run looks up
                          nothing. Nodes no backend claims run on the reference kernels, which
                          are always the last fallback.
     mmd_session_prepare: prepare of each claimed kernel (again after an input shape change)
     mmd_session_run:     eval of each claimed kernel; for a whole-graph backend forward (binds
                          the named inputs, sets the named outputs) then execute (only the
                          inference: the profiler hook brackets it, so it can be timed alone)
     mmd_session_destroy: destroy of every created backend, last created first (also when
                          mmd_session_create fails after create)
   A backend whose is_available returns 0, or whose create fails, is skipped and the session
   records why (mmd_session_backend_status).

   CLAIMS
     claim sees the whole model and returns an mmd_kernel for the node, or NULL to decline. The
     kernel keeps the reference contract (mmdeploy_ir.h): prepare validates and sets output
     shapes, eval only computes, op_data_size bytes of op data come from the session's arena,
     and mmd_kernel_ctx.backend is the handle from create, so kernels reach the backend's state.
     A tensor that is not a graph output and that only one backend's kernels write and read may
     hold that backend's own layout in its planned bytes (oneDNN keeps channels-last there).
     When every node has a reference kernel and the declared shapes plan, claim runs after a
     trial plan, so tensors carry their dtypes and shapes (symbolic dims as 1) and constants
     their values; otherwise, and past the first node the trial plan fails on, activations
     have dtype 0 (unknown). mmd_backend_match makes a declarative claim from a table of
     mmd_backend_rule (domain, op_type, opset range, dtype).

   A CLAIM IS A PROMISE
     A backend should claim only what it can run, deciding in claim from the dtypes and shapes
     the trial plan gives. If a claimed kernel's prepare still returns MMD_ERR_UNSUPPORTED (at
     create's plan or at mmd_session_prepare's), the runtime takes the node away for good: it
     offers it to the backends registered after that one (claim again, with the shapes known up
     to that node), else gives it to the reference kernels, records why
     (mmd_session_fallback) and plans again. Any other status from prepare is the model's
     fault and fails as before. mmd_model.claim_epoch changes whenever a node moves, so a
     backend that keeps tensors in its own layout (below) re-derives that layout from the
     claims as they are at the next prepare: the moved node's tensors become plain and the
     backend's kernels next to it convert at the boundary. A run-time prepare (a node after a
     data-dependent shape) cannot re-plan: refusing there fails the run.

   SUBGRAPH CLAIMS (delegates)
     A backend with supports and claim_set (both or neither) may run a connected set of nodes
     as one kernel, as ONNX Runtime's execution providers and TFLite's delegates do: an NPU or
     DSP compiler that wants a whole subgraph, or a library that fuses across nodes. At create,
     in registration order, each such backend is first offered sets, then (with claim) single
     nodes, from the nodes no earlier backend took. supports says which nodes it could run
     (asked once per node, after the trial plan: shapes, dtypes and constants are known). The
     candidates are the nodes it supports that have a reference kernel, are not folded into
     constants and have no data-dependent shapes; the runtime cuts them into sets, each
     connected, in topological order, and never creating a cycle between the set and the rest
     of the graph (no path leaves the set and comes back), each as large as a schedule
     alternating between candidates and the rest allows (mmd_graph_partition, mmdeploy_ir.h).
     claim_set is called once per set, largest first, with the node indices in topological
     order; it returns one kernel for the set or NULL, and the nodes of a declined set stay
     candidates for single-node claims. Node indices are those of m at the call: an accepted
     set becomes one set node (mmd_node.members, in the same order), so indices change after
     each backend's sets; a backend keys nothing on them before prepare.
     The set node's inputs are the tensors the members read from outside (weights included),
     its outputs the member outputs read outside or graph outputs, and its op_type is the
     backend's name: the profiler and mmd_session_node_backend see it as one node. Tensors
     between members are internal: the plan gives them no memory (their data is NULL; the
     backend may point them at its own), but before the set kernel's prepare each member's
     reference prepare runs, so they carry dtypes and shapes and each member its op data. If
     the set kernel's prepare returns MMD_ERR_UNSUPPORTED, the set is dissolved: its members go
     back into the node list, each offered to the backends registered after this one as a
     single node, else to the reference kernels, and each is recorded (mmd_session_fallback).

   WHOLE-GRAPH BACKENDS
     A backend with forward and execute (both or neither) runs the entire graph: it is used only
     when it is the first backend that is available and created, no node is claimed or planned,
     and no reference kernel is needed. forward receives the bound inputs (name, dtype, dims,
     data) and the graph outputs (names set); it sets each output's dtype, rank, dims and data
     (memory it owns, valid until the next forward or destroy), then execute runs the model.

   NULL CALLBACKS
     name must be set. is_available NULL means available; get_version and check_env NULL print
     nothing; to_backend NULL means there is nothing to convert; create NULL gives a NULL handle;
     destroy NULL frees nothing; claim NULL claims no node; supports and claim_set NULL (both)
     offer no set; forward and execute NULL (both) make a per-node backend.

   THREADING
     create gets the session's thread count (mmd_backend_args.threads, from mmd_options.threads,
     at least 1) and each kernel's context has it too (mmd_kernel_ctx.threads): a backend runs a
     node on at most that many threads, counting the calling thread, whatever its library's
     own default or environment variables say; check_env reports the library's setting.
     is_available, get_version, check_env and to_backend may be called from any thread at any
     time, concurrently. The others are called on the thread using the session, one call at a
     time per session; sessions on different threads may call into one backend concurrently with
     different handles, so state shared through user must be guarded by the backend.

   LIFETIME AND MEMORY
     The mmd_backend struct and its user pointer must outlive every session created with it
     (sessions keep the pointer); the registry need only live through mmd_session_create. A
     handle belongs to the backend from create to destroy, and the kernels claim returns must
     stay valid as long as the handle. The runtime never allocates for a backend: a backend uses
     its own allocator in create and in its kernels' prepare, never in eval or execute.

   ABI
     abi_version must be MMD_BACKEND_ABI_VERSION or mmd_backend_register refuses the backend.
     The number changes whenever this struct or a callback's signature changes. */
#define MMD_BACKEND_ABI_VERSION 3u

struct mmd_model;
struct mmd_kernel;

/* What create sees: the model as parsed (no shapes planned yet) and where to_backend wrote. */
typedef struct mmd_backend_args {
    const struct mmd_model *model;
    const void *onnx;                /* the model bytes; alive as long as the session */
    size_t onnx_size;
    const char *work_dir;            /* mmd_options.backend_dir, NULL when not given */
    int32_t threads;                 /* threads a node may use, the caller's included (>= 1) */
} mmd_backend_args;

typedef struct mmd_backend {
    uint32_t abi_version;            /* MMD_BACKEND_ABI_VERSION */
    const char *name;                /* short and unique in a registry: "openblas" */
    void *user;                      /* passed back to every callback */
    /* 1 when the library can run here (loaded, CPU supported), else 0. */
    int32_t (*is_available)(void *user);
    /* One line, e.g. "OpenBLAS 0.3.21", into buf (cap bytes, NUL-terminated). */
    void (*get_version)(void *user, char *buf, size_t cap);
    /* One human-readable line on the environment into buf; MMD_OK when the backend can run. */
    mmd_status (*check_env)(void *user, char *buf, size_t cap);
    /* Converts the model into backend files under work_dir (which exists). */
    mmd_status (*to_backend)(void *user, const void *onnx, size_t size, const char *work_dir,
                             mmd_error *err);
    /* Per session: builds the backend's state for this model into *handle. */
    mmd_status (*create)(void *user, const mmd_backend_args *args, void **handle, mmd_error *err);
    void (*destroy)(void *user, void *handle);
    /* The kernel to run node `node` of m, or NULL to decline it. */
    const struct mmd_kernel *(*claim)(void *user, void *handle, const struct mmd_model *m,
                                      int32_t node);
    /* Whole-graph backends: bind inputs and set outputs, then run only the inference. */
    mmd_status (*forward)(void *user, void *handle, const mmd_tensor *const *inputs,
                          int32_t input_count, mmd_tensor *const *outputs, int32_t output_count,
                          mmd_error *err);
    mmd_status (*execute)(void *user, void *handle, mmd_error *err);
    /* Subgraph backends: 1 when node `node` of m may be part of a set this backend runs ... */
    int32_t (*supports)(void *user, void *handle, const struct mmd_model *m, int32_t node);
    /* ... and the kernel running the connected set nodes[0..count) as one node, or NULL. */
    const struct mmd_kernel *(*claim_set)(void *user, void *handle, const struct mmd_model *m,
                                          const int32_t *nodes, int32_t count);
} mmd_backend;

/* A fixed-capacity list of backends, owned by the caller; zero-initialised it is empty. The
   order of registration is the order of priority. */
typedef struct mmd_backend_registry {
    int32_t count;
    const mmd_backend *items[MMD_MAX_BACKENDS];
} mmd_backend_registry;

/* One line of a declarative claim table (see mmd_backend_match). */
typedef struct mmd_backend_rule {
    const char *domain;              /* "" or "ai.onnx" for the default domain */
    const char *op_type;
    int32_t min_opset, max_opset;    /* inclusive; max_opset 0 means no upper bound */
    int32_t dtype;                   /* input 0's mmd_dtype; 0 matches any */
    const struct mmd_kernel *kernel; /* what the claim returns for a matching node */
} mmd_backend_rule;

/* Profiler hook: called before (end = 0) and after (end = 1) each node run evaluates, or around
   a whole-graph backend's execute (node -1, op_type the backend's name). */
typedef struct mmd_profile_event {
    int32_t end;
    int32_t node;
    const char *op_type;
    const char *name;                /* the node's name, "" when unnamed */
} mmd_profile_event;
typedef void (*mmd_profiler_fn)(void *user, const mmd_profile_event *event);

/* ---- threads (types) ---------------------------------------------------------------------- */
/* One share of a parallel loop: index runs over [0, count) of the mmd_parallel_fn call. */
typedef void (*mmd_task_fn)(void *ctx, int32_t index);
/* The thread hook. Calls task(ctx, i) exactly once for every i in [0, count), on up to the
   session's `threads` threads at once (the calling thread may take some), and returns only when
   every call has returned. Calls never nest: a task does not call the hook again. An RTOS or an
   application's own pool plugs in here; without it the host build uses a built-in pool. */
typedef void (*mmd_parallel_fn)(void *user, mmd_task_fn task, void *ctx, int32_t count);

/* Options for mmd_session_create; zero means default (all-zero struct or NULL pointer). */
typedef struct mmd_options {
    void *arena;                     /* caller-owned memory; NULL: grow one with MMD_MALLOC */
    size_t arena_size;
    int32_t copy_weights;            /* 1: copy every initializer so the model bytes may be freed */
    const mmd_backend_registry *backends; /* tried in order before the reference kernels; NULL none */
    const char *backend_dir;         /* work directory for the backends' create (to_backend's) */
    int32_t threads;                 /* threads one node may use; 0 or 1: the calling thread only */
    mmd_parallel_fn parallel;        /* runs the parallel loops when threads > 1; NULL: the built-in
                                        pthreads pool of threads - 1 workers (host builds; builds
                                        with MMD_NO_THREADS then refuse threads > 1) */
    void *parallel_user;             /* passed back to parallel */
    int32_t no_rewrites;             /* 1: run the graph as written, without the load-time
                                        rewrites (folds and fusions, mmd_graph_rewrite) */
    /* The kernel table the rewrites bind the nodes they make to (mmd_kernel_find_fn); NULL:
       mmd_ops_find. A rewrite whose op it does not have is not made: `mmdeploy convert` names
       the ops a firmware build has, so that its .mmd blobs hold no op firmware lacks (such as
       mmd PointwiseDepthwise, which MMD_CONV_SMALL builds leave out). */
    const struct mmd_kernel *(*rewrite_ops)(const char *domain, const char *op_type, int64_t opset);
} mmd_options;

/* Plan figures, for reports and for sizing a firmware arena. */
typedef struct mmd_plan_stats {
    size_t arena_bytes;              /* everything the session holds (its exact arena size) */
    size_t model_bytes;              /* parsed structures plus copied weights */
    size_t activation_bytes;         /* the planned, shared activation buffer */
    size_t activation_sum_bytes;     /* sum of all activations if none shared memory */
    size_t constant_bytes;           /* tensors folded at prepare time */
    size_t scratch_bytes;            /* largest kernel scratch request */
    size_t packed_bytes;             /* weights repacked once at plan time for the kernels */
    size_t rewrite_bytes;            /* weights the load-time rewrites changed (part of model_bytes) */
    int32_t node_count, folded_count;
    int32_t reprepare_count;         /* nodes that re-run prepare at run time (dynamic shapes) */
    int32_t rewrite_count;           /* load-time rewrites applied (each absorbs a node or two) */
} mmd_plan_stats;

/* ---- status and errors ---------------------------------------------------------------- */
/* Name of a status code ("ok", "invalid model", ...). Any phase, no allocation, thread safe. */
MMD_API const char *mmd_status_string(mmd_status status);
/* Fills err (if non-NULL) and returns status; fmt knows %s %d %u %lld %llu %zu %g %c %%.
   Any phase, no allocation, thread safe on distinct err. */
MMD_API mmd_status mmd_error_set(mmd_error *err, mmd_status status, int32_t node, const char *op,
                                 const char *fmt, ...);
#ifdef MMD_NO_ERROR_STRINGS
/* Without message text a failure compiles to its status alone: sizeof names the format and its
   arguments, so that nothing goes unused, without evaluating them or keeping the strings.
   mmd__error_args is declared only, never called or defined. */
int mmd__error_args(const char *fmt, ...);
#define MMD__NO_TEXT(...) ((void)sizeof(mmd__error_args(__VA_ARGS__)), (const char *)0)
#define mmd_error_set(err, status, node, op, ...) (mmd_error_set)(err, status, node, op, MMD__NO_TEXT(__VA_ARGS__))
#endif
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
/* The same bytes left as they are, for memory written before it is read (the planner's
   activations and scratch): zeroing tens of megabytes at load costs more than the rest of the
   load, and fresh heap pages are then touched first by the run that uses them. With
   MMD_ARENA_POISON defined they are filled with 0xff instead (NaN floats, -1 integers), so a
   test build shows any kernel that reads them before writing. */
MMD_API void *mmd_arena_alloc_uninit(mmd_arena *a, size_t bytes, mmd_error *err);
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
/* The model as the session runs it, after the load-time rewrites (its nodes are the ones
   mmd_session_node_backend and the profiler number; m->rewrites lists the rewrites). NULL for
   a NULL or destroyed session. Read only; valid until mmd_session_destroy. */
MMD_API const struct mmd_model *mmd_session_model(const mmd_session *s);
/* Writes the current plan as a .mmd blob for firmware (mmdeploy_ir.h, .MMD BLOBS), its header
   holding the exact arena bytes that loading it takes. out must be 16-byte aligned; with out
   NULL only *size is set. Host side: grows a heap arena to measure, so not in MMD_NO_MALLOC
   builds. Fails with MMD_ERR_NOT_READY while the plan is stale. */
MMD_API mmd_status mmd_session_write_blob(const mmd_session *s, void *out, size_t cap, size_t *size,
                                          mmd_error *err);

/* ---- backends ----------------------------------------------------------------------------- */
/* Appends b to r (no copy: b must outlive the sessions using it). Fails with MMD_ERR_LIMIT when
   r holds MMD_MAX_BACKENDS, MMD_ERR_UNSUPPORTED on another abi_version, MMD_ERR_INVALID_ARGUMENT
   on a missing name, a repeated name, forward without execute or supports without claim_set.
   Setup; no allocation. */
MMD_API mmd_status mmd_backend_register(mmd_backend_registry *r, const mmd_backend *b, mmd_error *err);
/* The registered backend of that name, or NULL. Any phase; thread safe on a registry no one
   is changing. */
MMD_API const mmd_backend *mmd_backend_find(const mmd_backend_registry *r, const char *name);
/* A claim from a table: the kernel of the first rule matching node `node` of m by domain,
   op_type, opset and (when the rule names one) the dtype of input 0; NULL when none does.
   For use inside claim; no allocation, thread safe. */
MMD_API const struct mmd_kernel *mmd_backend_match(const mmd_backend_rule *rules, size_t count,
                                                   const struct mmd_model *m, int32_t node);
/* Backends the session was given (its registry's count) and backend i among them, NULL when
   out of range. */
MMD_API int32_t mmd_session_backend_count(const mmd_session *s);
MMD_API const mmd_backend *mmd_session_backend(const mmd_session *s, int32_t i);
/* Why backend i is used or not: *status MMD_OK when it was created (it may still claim no
   node), else the reason's status, with *msg a line of text owned by the session ("" when
   used). Returns MMD_ERR_INDEX when i is out of range. No allocation. */
MMD_API mmd_status mmd_session_backend_status(const mmd_session *s, int32_t i, mmd_status *status,
                                              const char **msg);
/* Index (in the session's backends) of the backend that runs node `node`, -1 when the reference
   kernels run it or the index is out of range. */
MMD_API int32_t mmd_session_node_backend(const mmd_session *s, int32_t node);
/* Nodes taken from the backend that claimed them because its kernel refused them at prepare
   (see A CLAIM IS A PROMISE above), oldest first. Fallback i: the node, the index of the backend
   that refused it, and the refusal's message (owned by the session); the node now runs where
   mmd_session_node_backend says. Returns MMD_ERR_INDEX when i is out of range. No allocation. */
MMD_API int32_t mmd_session_fallback_count(const mmd_session *s);
MMD_API mmd_status mmd_session_fallback(const mmd_session *s, int32_t i, int32_t *node, int32_t *backend,
                                        const char **msg);
/* Calls fn(user, event) before and after each node run evaluates (fn NULL: none, at no cost).
   The runtime keeps no clock; fn reads one. Setup; fn runs on the thread calling run. */
MMD_API void mmd_session_set_profiler(mmd_session *s, mmd_profiler_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#define MMD_CORE_DECLS
#endif /* MMDEPLOY_H */

/* ==== >>core implementation ==== */
/* Layer 1 (see LAYERS): status strings, the error formatter, dtypes and the arena, which need
   nothing but the declarations above. */
#if (defined(MMD_IMPLEMENTATION) || defined(MMD_CORE_IMPLEMENTATION)) && !defined(MMD_BASE_IMPLEMENTED)
#define MMD_BASE_IMPLEMENTED
#include <stdarg.h>
#include <string.h>

#if defined(MMD_MALLOC) != defined(MMD_FREE)
#error "Define both MMD_MALLOC and MMD_FREE, or neither."
#endif
#if !defined(MMD_MALLOC) && !defined(MMD_NO_MALLOC)
#include <stdlib.h>
#define MMD_MALLOC(size) malloc(size)
#define MMD_FREE(ptr) free(ptr)
#endif

/* ==== >>status ==== */
MMD_API const char *mmd_status_string(mmd_status status) {
    static const char *const names[] = {
#define MMD__STATUS_STR(name, str) str,
        MMD_STATUS_LIST(MMD__STATUS_STR)
#undef MMD__STATUS_STR
    };
    /* One unsigned test covers negative values too; arm-none-eabi's short enums are unsigned,
       where a "< 0" test is always false and -Wtype-limits rejects it. */
    if ((unsigned)status >= (unsigned)MMD_STATUS_COUNT) return "unknown status";
    return names[status];
}

/* ==== >>format ==== */
#ifndef MMD_NO_ERROR_STRINGS
/* A tiny formatter so error messages need no stdio (firmware builds have none). */
typedef struct mmd__buf { char *p; size_t cap, len; } mmd__buf;

static void mmd__putc(mmd__buf *b, char c) {
    if (b->len + 1 < b->cap) b->p[b->len] = c;
    b->len++;
}
static void mmd__puts(mmd__buf *b, const char *s) {
    if (!s) s = "(null)";
    while (*s) mmd__putc(b, *s++);
}
static void mmd__putu(mmd__buf *b, unsigned long long v) {
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) mmd__putc(b, tmp[--n]);
}
static void mmd__puti(mmd__buf *b, long long v) {
    if (v < 0) { mmd__putc(b, '-'); mmd__putu(b, 0ull - (unsigned long long)v); }
    else mmd__putu(b, (unsigned long long)v);
}
/* Six significant digits, plain or with an exponent; enough to name a wrong value. */
static void mmd__putg(mmd__buf *b, double v) {
    int e = 0, i;
    unsigned long long digits;
    if (v != v) { mmd__puts(b, "nan"); return; }
    if (v < 0) { mmd__putc(b, '-'); v = -v; }
    if (v > 1.7976931348623157e308) { mmd__puts(b, "inf"); return; }
    if (v == 0) { mmd__putc(b, '0'); return; }
    while (v >= 10) { v /= 10; ++e; }
    while (v < 1) { v *= 10; --e; }
    digits = (unsigned long long)(v * 100000.0 + 0.5);
    if (digits >= 1000000ull) { digits /= 10; ++e; }
    if (e >= -4 && e < 6) {
        /* Plain notation: the decimal point goes e+1 digits in; trailing zeros are dropped. */
        char d[6];
        int point = e + 1, last;
        for (i = 5; i >= 0; --i) { d[i] = (char)('0' + digits % 10); digits /= 10; }
        last = 5;
        while (last > 0 && last >= point && d[last] == '0') --last;
        if (point <= 0) {
            mmd__puts(b, "0.");
            for (i = 0; i < -point; ++i) mmd__putc(b, '0');
            for (i = 0; i <= last; ++i) mmd__putc(b, d[i]);
        } else {
            for (i = 0; i <= last || i < point; ++i) {
                if (i == point) mmd__putc(b, '.');
                mmd__putc(b, d[i]);
            }
        }
    } else {
        mmd__putu(b, digits / 100000ull);
        mmd__putc(b, '.');
        digits %= 100000ull;
        for (i = 10000; i >= 1; i /= 10) mmd__putc(b, (char)('0' + (digits / (unsigned)i) % 10));
        mmd__putc(b, 'e');
        mmd__puti(b, e);
    }
}

static void mmd__vformat(char *out, size_t cap, const char *fmt, va_list ap) {
    mmd__buf b;
    b.p = out; b.cap = cap; b.len = 0;
    if (!cap) return;
    for (; *fmt; ++fmt) {
        if (*fmt != '%') { mmd__putc(&b, *fmt); continue; }
        ++fmt;
        if (*fmt == 's') mmd__puts(&b, va_arg(ap, const char *));
        else if (*fmt == 'd') mmd__puti(&b, va_arg(ap, int));
        else if (*fmt == 'u') mmd__putu(&b, va_arg(ap, unsigned));
        else if (*fmt == 'c') mmd__putc(&b, (char)va_arg(ap, int));
        else if (*fmt == 'g') mmd__putg(&b, va_arg(ap, double));
        else if (*fmt == 'z' && fmt[1] == 'u') { ++fmt; mmd__putu(&b, va_arg(ap, size_t)); }
        else if (*fmt == 'l' && fmt[1] == 'l' && fmt[2] == 'd') { fmt += 2; mmd__puti(&b, va_arg(ap, long long)); }
        else if (*fmt == 'l' && fmt[1] == 'l' && fmt[2] == 'u') { fmt += 2; mmd__putu(&b, va_arg(ap, unsigned long long)); }
        else if (*fmt == '%') mmd__putc(&b, '%');
        else { mmd__putc(&b, '%'); if (!*fmt) break; mmd__putc(&b, *fmt); }
    }
    out[b.len < cap ? b.len : cap - 1] = '\0';
}

#endif /* MMD_NO_ERROR_STRINGS */

/* Shared by mmd_error_set and mmd_kernel_fail: prefix (may be NULL) then the formatted text. */
MMD_API mmd_status mmd__error_vset(mmd_error *err, mmd_status status, int32_t node, const char *op,
                                   const char *prefix, const char *fmt, va_list ap) {
    if (!err) return status;
    if (!fmt) fmt = "";
    err->status = status;
    err->node = node;
    err->op[0] = '\0';
    if (op) {
        size_t n = strlen(op);
        if (n >= sizeof(err->op)) n = sizeof(err->op) - 1;
        memcpy(err->op, op, n);
        err->op[n] = '\0';
    }
#ifdef MMD_NO_ERROR_STRINGS
    (void)prefix;
    (void)fmt;
    (void)ap;
    err->msg[0] = '\0';
#else
    {
        size_t plen = prefix ? strlen(prefix) : 0;
        if (plen >= sizeof(err->msg)) plen = sizeof(err->msg) - 1;
        /* mmd_kernel_fail writes its prefix in place, saving a buffer on the stack. */
        if (plen && prefix != err->msg) memcpy(err->msg, prefix, plen);
        mmd__vformat(err->msg + plen, sizeof(err->msg) - plen, fmt, ap);
    }
#endif
    return status;
}

MMD_API mmd_status (mmd_error_set)(mmd_error *err, mmd_status status, int32_t node, const char *op,
                                   const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mmd__error_vset(err, status, node, op, NULL, fmt, ap);
    va_end(ap);
    return status;
}

/* ==== >>dtype ==== */
MMD_API size_t mmd_dtype_size(int32_t dtype) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: case MMD_DTYPE_INT32: case MMD_DTYPE_UINT32: return 4;
    case MMD_DTYPE_UINT8: case MMD_DTYPE_INT8: case MMD_DTYPE_BOOL: return 1;
    case MMD_DTYPE_UINT16: case MMD_DTYPE_INT16: case MMD_DTYPE_FLOAT16:
    case MMD_DTYPE_BFLOAT16: return 2;
    case MMD_DTYPE_INT64: case MMD_DTYPE_FLOAT64: case MMD_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

MMD_API const char *mmd_dtype_name(int32_t dtype) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: return "float32";
    case MMD_DTYPE_UINT8: return "uint8";
    case MMD_DTYPE_INT8: return "int8";
    case MMD_DTYPE_UINT16: return "uint16";
    case MMD_DTYPE_INT16: return "int16";
    case MMD_DTYPE_INT32: return "int32";
    case MMD_DTYPE_INT64: return "int64";
    case MMD_DTYPE_STRING: return "string";
    case MMD_DTYPE_BOOL: return "bool";
    case MMD_DTYPE_FLOAT16: return "float16";
    case MMD_DTYPE_FLOAT64: return "float64";
    case MMD_DTYPE_UINT32: return "uint32";
    case MMD_DTYPE_UINT64: return "uint64";
    case MMD_DTYPE_BFLOAT16: return "bfloat16";
    default: return "?";
    }
}

MMD_API int64_t mmd_tensor_numel(const mmd_tensor *t) {
    int64_t n = 1;
    int32_t i;
    if (!t) return 0;
    for (i = 0; i < t->rank; ++i) n *= t->dims[i];
    return n;
}

MMD_API mmd_status mmd_tensor_nbytes(const mmd_tensor *t, size_t *out, mmd_error *err) {
    uint64_t bytes;
    int32_t i;
    if (!t || !out)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_tensor_nbytes: NULL argument");
    bytes = mmd_dtype_size(t->dtype);
    if (!bytes)
        return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "tensor '%s': dtype %s (%d) is not supported",
                             t->name ? t->name : "", mmd_dtype_name(t->dtype), (int)t->dtype);
    if (t->rank < 0 || t->rank > MMD_MAX_RANK)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL, "tensor '%s': rank %d exceeds MMD_MAX_RANK %d",
                             t->name ? t->name : "", (int)t->rank, (int)MMD_MAX_RANK);
    for (i = 0; i < t->rank; ++i) {
        int64_t d = t->dims[i];
        if (d < 0)
            return mmd_error_set(err, MMD_ERR_SHAPE, -1, NULL, "tensor '%s': dim %d is negative (%lld)",
                                 t->name ? t->name : "", (int)i, (long long)d);
        /* Checked before multiplying, so the product can never wrap. */
        if (d && bytes > MMD_MAX_TENSOR_BYTES / (uint64_t)d)
            return mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL,
                                 "tensor '%s': size exceeds MMD_MAX_TENSOR_BYTES (%llu)",
                                 t->name ? t->name : "", (unsigned long long)MMD_MAX_TENSOR_BYTES);
        bytes *= (uint64_t)d;
    }
    *out = (size_t)bytes;
    return MMD_OK;
}

/* ==== >>arena ==== */
#define MMD__ALIGN 16u

typedef struct mmd__block {
    struct mmd__block *next;
    size_t mark;               /* a->used before this block was handed out */
    size_t pad[2];             /* the header 16 bytes (32-bit) or 32 (64-bit): the payload 16-byte aligned */
} mmd__block;

MMD_API void mmd_arena_init(mmd_arena *a, void *buf, size_t size, int32_t heap) {
    if (!a) return;
    memset(a, 0, sizeof(*a));
    a->heap = heap ? 1 : 0;
    if (!a->heap && buf) {
        /* Start at the first aligned byte; the skipped bytes are simply not used. */
        size_t skip = (MMD__ALIGN - ((uintptr_t)buf & (MMD__ALIGN - 1))) & (MMD__ALIGN - 1);
        a->base = skip <= size ? (uint8_t *)buf + skip : NULL;
        a->size = skip <= size ? size - skip : 0;
    }
}

MMD_API void *mmd_arena_alloc_uninit(mmd_arena *a, size_t bytes, mmd_error *err) {
    size_t n;
    void *p;
    if (!a) {
        mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_arena_alloc: NULL arena");
        return NULL;
    }
    if (bytes > ((size_t)-1) - 2 * MMD__ALIGN - sizeof(mmd__block)) {
        mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL, "allocation of %zu bytes is too large", bytes);
        return NULL;
    }
    n = (bytes + MMD__ALIGN - 1) & ~(size_t)(MMD__ALIGN - 1);
    if (n == 0) n = MMD__ALIGN;
    if (a->heap) {
#ifdef MMD_NO_MALLOC
        mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "built with MMD_NO_MALLOC: pass an arena");
        return NULL;
#else
        mmd__block *blk = (mmd__block *)MMD_MALLOC(sizeof(mmd__block) + n);
        if (!blk) {
            mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "out of memory allocating %zu bytes", n);
            return NULL;
        }
        blk->next = (mmd__block *)a->blocks;
        blk->mark = a->used;
        a->blocks = blk;
        p = blk + 1;
#endif
    } else {
        if (!a->base || n > a->size - a->used) {
            mmd_error_set(err, MMD_ERR_ARENA_TOO_SMALL, -1, NULL,
                          "arena too small: %zu bytes in use, %zu more requested, %zu in all",
                          a->used, n, a->size);
            return NULL;
        }
        p = a->base + a->used;
    }
    a->used += n;
    if (a->used > a->high_water) a->high_water = a->used;
#ifdef MMD_ARENA_POISON
    memset(p, 0xff, n);
#endif
    return p;
}

MMD_API void *mmd_arena_alloc(mmd_arena *a, size_t bytes, mmd_error *err) {
    void *p = mmd_arena_alloc_uninit(a, bytes, err);
    if (p) memset(p, 0, bytes);
    return p;
}

MMD_API void mmd_arena_reset(mmd_arena *a, size_t mark) {
    if (!a) return;
#ifndef MMD_NO_MALLOC
    while (a->heap && a->blocks && ((mmd__block *)a->blocks)->mark >= mark) {
        mmd__block *blk = (mmd__block *)a->blocks;
        a->blocks = blk->next;
        MMD_FREE(blk);
    }
#endif
    if (mark < a->used) a->used = mark;
}

MMD_API void mmd_arena_release(mmd_arena *a) {
    if (!a) return;
    mmd_arena_reset(a, 0);
    a->used = 0;
}

#endif /* layer 1 */

/* ==== >>session implementation ==== */
/* Layer 4: threads, sessions and backends, over the IR and the kernels. Left for later when
   mmdeploy.h is being read from inside mmdeploy_ir.h (a file that included that header first):
   the IR is not declared yet, and the next #include "mmdeploy.h" emits this part. */
#if (defined(MMD_IMPLEMENTATION) || defined(MMD_CORE_IMPLEMENTATION)) && !defined(MMD_CORE_IMPLEMENTED) && \
    !(defined(MMDEPLOY_IR_H) && !defined(MMD_IR_DECLS))
#define MMD_CORE_IMPLEMENTED
#include "mmdeploy_ir.h"
#include "mmdeploy_ops.h"

/* ==== >>threads ==== */
/* The built-in pool behind mmd_options.threads: the calling thread runs index 0 of a parallel
   loop, then it and threads - 1 workers take the other indices from a shared counter, and the
   caller returns as soon as every index has been run. It never waits for a worker that took no index, so a worker the system
   has not scheduled (other programs on the cores, or one still waking up) costs nothing: the
   caller runs that share itself. A worker reads the job only after taking an index of it, and
   a job cannot end before that index is done, so nobody ever runs the previous job's task.
   Between jobs workers spin for a while (a model's nodes follow each other within
   microseconds) and then sleep on a condition variable. Only Unix-like systems are assumed to
   have pthreads: a bare-metal or RTOS build (Arduino, Zephyr) gets none. */
#if defined(MMD_NO_MALLOC) || defined(_WIN32) || !(defined(__unix__) || defined(__APPLE__))
#ifndef MMD_NO_THREADS
#define MMD_NO_THREADS
#endif
#endif
#ifndef MMD_NO_THREADS
#include <pthread.h>
#include <sched.h>

/* Pause instructions a worker spins through before it sleeps (about 0.1 to 1 ms: a pause takes
   from a few to about 40 ns, by CPU), and the caller before it yields while a worker finishes. */
#define MMD__POOL_SPINS 20000

typedef struct mmd__pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t *workers;
    int32_t worker_count;            /* started and to be joined */
    mmd_task_fn task;                /* the current job: written by the caller before it is */
    void *ctx;                       /* published in state, read by a worker after it took */
    int32_t count;                   /* an index of it */
    uint64_t state;                  /* atomic: job number << 32 | indices not yet taken */
    int32_t done;                    /* atomic: indices of the current job the workers ran */
    int32_t sleepers;                /* atomic: workers waiting on wake */
    int32_t quit;                    /* atomic: set once, at destroy */
} mmd__pool;

static void mmd__pool_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Takes the next index of the current job: its count minus the indices left, so that indices
   go out in ascending order. Returns -1 when none is left; *seen gets the state looked at. */
static int32_t mmd__pool_take(mmd__pool *p, uint64_t *seen) {
    uint64_t s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
    while ((uint32_t)s != 0) {
        /* The compare covers the job number too: an index is taken from the job it was counted in. */
        if (__atomic_compare_exchange_n(&p->state, &s, s - 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return p->count - (int32_t)(uint32_t)s;
    }
    *seen = s;
    return -1;
}

static void *mmd__pool_worker(void *arg) {
    mmd__pool *p = (mmd__pool *)arg;
    for (;;) {
        uint64_t seen = 0;
        int32_t i = mmd__pool_take(p, &seen), spins = 0;
        if (i >= 0) {
            p->task(p->ctx, i);
            __atomic_fetch_add(&p->done, 1, __ATOMIC_RELEASE);
            continue;
        }
        /* Nothing left: wait for the next job, spinning first, then asleep. */
        while (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == seen && !__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE) &&
               spins++ < MMD__POOL_SPINS)
            mmd__pool_pause();
        if (__atomic_load_n(&p->state, __ATOMIC_SEQ_CST) == seen) {
            pthread_mutex_lock(&p->lock);
            /* Counted before the state is looked at again, so that a caller publishing a job
               either is seen here or sees a sleeper to wake (both sequentially consistent). */
            __atomic_fetch_add(&p->sleepers, 1, __ATOMIC_SEQ_CST);
            while (__atomic_load_n(&p->state, __ATOMIC_SEQ_CST) == seen && !__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE))
                pthread_cond_wait(&p->wake, &p->lock);
            __atomic_fetch_sub(&p->sleepers, 1, __ATOMIC_SEQ_CST);
            pthread_mutex_unlock(&p->lock);
        }
        if (__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE)) return NULL;
    }
}

/* The mmd_parallel_fn of the built-in pool. */
static void mmd__pool_run(void *user, mmd_task_fn task, void *ctx, int32_t count) {
    mmd__pool *p = (mmd__pool *)user;
    uint64_t seen, job = __atomic_load_n(&p->state, __ATOMIC_RELAXED) >> 32;
    int32_t i, own = 0, spins = 0;
    if (count < 1) return;
    /* The previous job is over (all its indices ran), so no worker reads these now. */
    p->task = task;
    p->ctx = ctx;
    p->count = count;
    __atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
    /* Index 0 is the caller's own, never published: the first share of every loop runs on the
       same thread, so that consecutive nodes split alike (a product's first block of columns,
       the next product's first block: the same pixels) find that part of the data in this
       core's cache rather than the other's; a worker spinning when the job appears would
       otherwise take index 0 as often as not. */
    __atomic_store_n(&p->state, ((job + 1) & 0xffffffffu) << 32 | (uint32_t)(count - 1), __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) > 0) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
    for (i = 0; i >= 0; i = mmd__pool_take(p, &seen)) {
        task(ctx, i);
        ++own;
    }
    /* Only indices a worker took are outstanding, and they are running. */
    while (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) < count - own) {
        if (spins++ < MMD__POOL_SPINS) mmd__pool_pause();
        else sched_yield();
    }
}

static void mmd__pool_stop(mmd__pool *p) {
    int32_t i;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    __atomic_store_n(&p->quit, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (i = 0; i < p->worker_count; ++i) pthread_join(p->workers[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    MMD_FREE(p->workers);
    MMD_FREE(p);
}

/* Starts threads - 1 workers. The pool lives on the heap, not in the arena, because a caller
   arena may be reused after destroy while a worker would still be leaving. */
static mmd_status mmd__pool_start(int32_t threads, mmd__pool **out, mmd_error *err) {
    mmd__pool *p = (mmd__pool *)MMD_MALLOC(sizeof(mmd__pool));
    int32_t i;
    *out = NULL;
    if (!p) return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "out of memory starting a thread pool");
    memset(p, 0, sizeof(*p));
    p->workers = (pthread_t *)MMD_MALLOC(sizeof(pthread_t) * (size_t)(threads - 1));
    if (!p->workers || pthread_mutex_init(&p->lock, NULL) != 0) {
        MMD_FREE(p->workers);
        MMD_FREE(p);
        return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "cannot set up a pool of %d threads", (int)threads);
    }
    pthread_cond_init(&p->wake, NULL);
    for (i = 0; i < threads - 1; ++i) {
        if (pthread_create(&p->workers[i], NULL, mmd__pool_worker, p) != 0) {
            mmd__pool_stop(p);
            return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL,
                                 "cannot start thread %d of %d (pthread_create failed)", (int)i + 2, (int)threads);
        }
        p->worker_count = i + 1;
    }
    *out = p;
    return MMD_OK;
}
#else
typedef struct mmd__pool mmd__pool;
#endif

/* ==== >>session ==== */
/* One registered backend as a session sees it. */
typedef struct mmd__backend_slot {
    const mmd_backend *b;
    void *handle;             /* from create */
    int32_t created;          /* 1: create succeeded, so destroy is owed */
    mmd_status status;        /* MMD_OK when used, else why not */
    char msg[MMD_ERROR_MSG_SIZE];
} mmd__backend_slot;

/* A node taken from the backend that claimed it (see A CLAIM IS A PROMISE). */
typedef struct mmd__fallback {
    int32_t node, slot;       /* the node, the slot of the backend whose kernel refused it */
    char msg[MMD_ERROR_MSG_SIZE];
} mmd__fallback;

struct mmd_session {
    mmd_arena arena;          /* owns everything below, the session struct included */
    mmd_model *model;
    size_t plan_mark;         /* arena size before the shape-dependent plan */
    void *scratch;
    int32_t stale;            /* input shapes changed since the last plan */
    int64_t *declared;        /* input_count x MMD_MAX_RANK declared dims, -1 where symbolic */
    int32_t *declared_rank;   /* -1 when the model gives no shape */
    mmd_plan_stats stats;
    mmd__backend_slot *backends;
    int32_t backend_count;
    int32_t whole;            /* slot of the backend running the whole graph, -1 for none */
    int32_t *claims;          /* per node: slot of the backend running it, -1 for reference */
    mmd_tensor **io;          /* whole graph: the input tensors, then the output tensors */
    mmd__fallback *fallbacks; /* fallback_count of them, oldest first, each move re-allocated */
    int32_t fallback_count;
    mmd__pool *pool;          /* the built-in thread pool, NULL for one thread or a caller's hook */
    uint32_t live;            /* MMD__SESSION_LIVE from create to destroy */
};

/* Gives the model the thread count and hook from the options, starting the built-in pool when
   more than one thread is asked for without a hook. */
static mmd_status mmd__session_threads(mmd_session *s, const mmd_options *opts, mmd_error *err) {
    int32_t threads = opts ? opts->threads : 0;
    if (threads < 0 || threads > 1024)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "mmd_options.threads is %d; expects 0 to 1024", (int)threads);
    s->model->threads = threads > 1 ? threads : 1;
    if (threads <= 1) return MMD_OK;
    if (opts->parallel) {
        s->model->parallel = opts->parallel;
        s->model->parallel_user = opts->parallel_user;
        return MMD_OK;
    }
#ifdef MMD_NO_THREADS
    return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL,
                         "mmd_options.threads is %d, but this build has no thread pool (MMD_NO_THREADS): "
                         "pass mmd_options.parallel", (int)threads);
#else
    {
        mmd_status st = mmd__pool_start(threads, &s->pool, err);
        if (st != MMD_OK) return st;
        s->model->parallel = mmd__pool_run;
        s->model->parallel_user = s->pool;
        return MMD_OK;
    }
#endif
}

/* Joins the built-in pool's workers, if any. */
static void mmd__session_threads_stop(mmd_session *s) {
#ifndef MMD_NO_THREADS
    mmd__pool_stop(s->pool);
#endif
    s->pool = NULL;
}

/* Destroy clears live, so a session destroyed in a caller-owned arena (whose memory stays
   readable) is refused by every call with MMD_ERR_INVALID_ARGUMENT. A session on the heap is
   freed by destroy: using it afterwards cannot be detected (ASan reports it). */
#define MMD__SESSION_LIVE 0x6d6d6473u
static int32_t mmd__live(const mmd_session *s) { return s && s->live == MMD__SESSION_LIVE; }

static mmd_status mmd__fallback_take(mmd_session *s, mmd_status st, mmd_error *err);

/* mmdeploy_ir.h's mmd_graph_plan without its NULL-err fallback (a 300-byte mmd_error on the
   stack for the whole plan). */
MMD_API mmd_status mmd__graph_plan(mmd_model *m, mmd_arena *a, mmd_plan_stats *stats, void **activations,
                                   void **scratch, mmd_error *err);

static mmd_status mmd__session_plan(mmd_session *s, mmd_error *err) {
    mmd_status st;
    void *act = NULL;
    /* A whole-graph backend sets the output shapes itself, in forward. */
    if (s->whole >= 0) {
        s->stale = 0;
        return MMD_OK;
    }
    /* Each refusal moves one node one backend further down, so this ends. */
    do {
        mmd_arena_reset(&s->arena, s->plan_mark);
        s->stale = 1;
        st = mmd__graph_plan(s->model, &s->arena, &s->stats, &act, &s->scratch, err);
    } while (st != MMD_OK && mmd__fallback_take(s, st, err) == MMD_OK);
    if (st != MMD_OK) return st;
    s->stale = 0;
    s->stats.model_bytes = s->plan_mark;
    s->stats.arena_bytes = s->arena.high_water;
    s->stats.rewrite_bytes = s->model->rewrite_bytes;
    s->stats.rewrite_count = s->model->rewrite_count;
    return MMD_OK;
}

/* ==== >>backends ==== */
/* Records why a backend is not used, in the slot's own message buffer. */
static void mmd__slot_set(mmd__backend_slot *k, mmd_status status, const char *fmt, ...) {
    mmd_error e;
    va_list ap;
    va_start(ap, fmt);
    mmd__error_vset(&e, status, -1, NULL, NULL, fmt, ap);
    va_end(ap);
    k->status = status;
    memcpy(k->msg, e.msg, sizeof(k->msg));
}

/* The checks register makes, repeated at session create for registries filled by hand. */
static mmd_status mmd__backend_check(const mmd_backend *b, mmd_error *err) {
    if (!b) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "backend is NULL");
    if (!b->name || !b->name[0])
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "backend has no name");
    if (b->abi_version != MMD_BACKEND_ABI_VERSION)
        return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL,
                             "backend '%s' was built for backend ABI %u, this runtime has ABI %u", b->name,
                             (unsigned)b->abi_version, (unsigned)MMD_BACKEND_ABI_VERSION);
    if (!b->forward != !b->execute)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "backend '%s' sets only one of forward and execute", b->name);
    if (!b->supports != !b->claim_set)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "backend '%s' sets only one of supports and claim_set", b->name);
    return MMD_OK;
}

MMD_API mmd_status mmd_backend_register(mmd_backend_registry *r, const mmd_backend *b, mmd_error *err) {
    mmd_status st;
    int32_t i;
    if (!r) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_backend_register: NULL registry");
    if ((st = mmd__backend_check(b, err)) != MMD_OK) return st;
    if (r->count < 0 || r->count >= MMD_MAX_BACKENDS)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, NULL,
                             "cannot register backend '%s': the registry holds %d backends already "
                             "(MMD_MAX_BACKENDS is %d)", b->name, (int)r->count, (int)MMD_MAX_BACKENDS);
    for (i = 0; i < r->count; ++i)
        if (r->items[i] && strcmp(r->items[i]->name, b->name) == 0)
            return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                                 "a backend named '%s' is registered already", b->name);
    r->items[r->count++] = b;
    return MMD_OK;
}

MMD_API const mmd_backend *mmd_backend_find(const mmd_backend_registry *r, const char *name) {
    int32_t i;
    if (!r || !name) return NULL;
    for (i = 0; i < r->count && i < MMD_MAX_BACKENDS; ++i)
        if (r->items[i] && r->items[i]->name && strcmp(r->items[i]->name, name) == 0) return r->items[i];
    return NULL;
}

/* "" and "ai.onnx" (and NULL) all name the default domain. */
static int32_t mmd__same_domain(const char *a, const char *b) {
    if (!a || strcmp(a, "ai.onnx") == 0) a = "";
    if (!b || strcmp(b, "ai.onnx") == 0) b = "";
    return strcmp(a, b) == 0;
}

MMD_API const mmd_kernel *mmd_backend_match(const mmd_backend_rule *rules, size_t count,
                                            const mmd_model *m, int32_t node) {
    const mmd_node *n;
    size_t i;
    if (!rules || !m || node < 0 || node >= m->node_count) return NULL;
    n = &m->nodes[node];
    for (i = 0; i < count; ++i) {
        const mmd_backend_rule *r = &rules[i];
        if (!r->op_type || strcmp(r->op_type, n->op_type) != 0 || !mmd__same_domain(r->domain, n->domain))
            continue;
        if (n->opset < r->min_opset || (r->max_opset && n->opset > r->max_opset)) continue;
        /* An unknown dtype (0, no trial plan reached the node) never matches a rule naming one. */
        if (r->dtype && (n->input_count < 1 || !n->in[0] || n->in[0]->dtype != r->dtype)) continue;
        return r->kernel;
    }
    return NULL;
}

/* Asks each registered backend, in order, whether it can run here and creates its state for
   this model. Only an allocation failure is an error; a backend that cannot be used is skipped
   with the reason in its slot. */
static MMD__NOINLINE mmd_status mmd__backends_create(mmd_session *s, const mmd_options *opts, const void *bytes,
                                       size_t size, mmd_error *err) {
    const mmd_backend_registry *r = opts ? opts->backends : NULL;
    mmd_backend_args args;
    int32_t i, created = -1;
    s->whole = -1;
    if (!r || r->count == 0) return MMD_OK;
    if (r->count < 0 || r->count > MMD_MAX_BACKENDS)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "backend registry count %d is outside 0..%d", (int)r->count, (int)MMD_MAX_BACKENDS);
    s->backends = (mmd__backend_slot *)mmd_arena_alloc(&s->arena, (size_t)r->count * sizeof(mmd__backend_slot), err);
    if (!s->backends) return err->status;
    s->backend_count = r->count;
    args.model = s->model;
    args.onnx = bytes;
    args.onnx_size = size;
    args.work_dir = opts->backend_dir;
    args.threads = s->model->threads;
    for (i = 0; i < r->count; ++i) {
        mmd__backend_slot *k = &s->backends[i];
        const mmd_backend *b = r->items[i];
        mmd_error e;
        mmd_status st;
        k->b = b;
        e.msg[0] = '\0';
        if ((st = mmd__backend_check(b, &e)) != MMD_OK) {
            k->b = NULL;
            mmd__slot_set(k, st, "%s", e.msg);
            continue;
        }
        if (s->whole >= 0) {
            mmd__slot_set(k, MMD_ERR_UNSUPPORTED, "not used: backend '%s' runs the whole graph",
                          s->backends[s->whole].b->name);
            continue;
        }
        if (b->is_available && !b->is_available(b->user)) {
            char why[MMD_ERROR_MSG_SIZE - 32];
            why[0] = '\0';
            if (b->check_env) b->check_env(b->user, why, sizeof(why));
            why[sizeof(why) - 1] = '\0';
            mmd__slot_set(k, MMD_ERR_UNSUPPORTED, "not available%s%s", why[0] ? ": " : "", why);
            continue;
        }
        if (b->forward && created >= 0) {
            mmd__slot_set(k, MMD_ERR_UNSUPPORTED,
                          "runs whole graphs, so it must come before every backend used ('%s' is)",
                          s->backends[created].b->name);
            continue;
        }
        e.status = MMD_OK;
        if (b->create && (st = b->create(b->user, &args, &k->handle, &e)) != MMD_OK) {
            k->handle = NULL;
            if (e.status == st && e.msg[0]) mmd__slot_set(k, st, "create failed: %s", e.msg);
            else mmd__slot_set(k, st, "create failed (%s)", mmd_status_string(st));
            continue;
        }
        k->created = 1;
        k->status = MMD_OK;
        if (created < 0) created = i;
        if (b->forward) s->whole = i;
    }
    if (s->whole >= 0) {
        mmd_model *m = s->model;
        s->io = (mmd_tensor **)mmd_arena_alloc(&s->arena, (size_t)(m->input_count + m->output_count) * sizeof(mmd_tensor *), err);
        if (!s->io) return err->status;
        for (i = 0; i < m->input_count; ++i) s->io[i] = &m->tensors[m->inputs[i]];
        for (i = 0; i < m->output_count; ++i) s->io[m->input_count + i] = &m->tensors[m->outputs[i]];
    } else if (created >= 0) {
        s->claims = (int32_t *)mmd_arena_alloc(&s->arena, (size_t)s->model->node_count * sizeof(int32_t) + 1, err);
        if (!s->claims) return err->status;
    }
    return MMD_OK;
}

/* Memory for set nodes, reserved before the trial plan (whose memory the claims give back):
   members number at most the nodes, and set nodes' input and output lists at most the
   members' own inputs and outputs. */
typedef struct mmd__set_pool {
    mmd_node *members;
    int32_t *ids;
    mmd_tensor **ptrs;
    size_t members_used, ids_used;
} mmd__set_pool;

#ifndef MMD_NO_BACKEND_SETS
/* Set node sid of the sets just accepted: its members (order + first, size of them) are copied
   out of the node list, its inputs and outputs listed. outside[t] is 1 for a tensor read
   outside its producer's set or a graph output; seen is tensor_count scratch. */
static void mmd__set_node(mmd_model *m, mmd__set_pool *pool, const int32_t *nodes, int32_t size,
                          const int32_t *acc, int32_t sid, const uint8_t *outside, int32_t *seen, mmd_node *h) {
    int32_t j, q;
    memset(h, 0, sizeof(*h));
    h->members = pool->members + pool->members_used;
    h->member_count = size;
    pool->members_used += (size_t)size;
    h->inputs = pool->ids + pool->ids_used;
    h->in = pool->ptrs + pool->ids_used;
    for (j = 0; j < size; ++j) h->members[j] = m->nodes[nodes[j]];
    for (j = 0; j < size; ++j)
        for (q = 0; q < h->members[j].input_count; ++q) {
            int32_t t = h->members[j].inputs[q], p;
            if (t < 0 || seen[t] == sid + 1) continue;
            p = m->tensors[t].producer;
            if (p >= 0 && acc[p] == sid) continue;
            seen[t] = sid + 1;
            h->in[h->input_count] = &m->tensors[t];
            h->inputs[h->input_count++] = t;
        }
    pool->ids_used += (size_t)h->input_count;
    h->outputs = pool->ids + pool->ids_used;
    h->out = pool->ptrs + pool->ids_used;
    for (j = 0; j < size; ++j)
        for (q = 0; q < h->members[j].output_count; ++q) {
            int32_t t = h->members[j].outputs[q];
            if (t < 0) continue;
            if (outside[t]) {
                h->out[h->output_count] = &m->tensors[t];
                h->outputs[h->output_count++] = t;
            } else {
                m->tensors[t].producer = -1;
                m->tensors[t].data = NULL;
            }
        }
    pool->ids_used += (size_t)h->output_count;
    h->name = h->members[0].name;
    h->domain = "mmdeploy.set";
    h->opset = 1;
}

/* Offers backend k the sets of its candidates, largest first, and makes each accepted set one
   set node, the node list reordered so that the sets' members were consecutive. */
static MMD__NOINLINE mmd_status mmd__backends_offer_sets(mmd_session *s, int32_t k, mmd__set_pool *pool,
                                                         mmd_error *err) {
    mmd_model *m = s->model;
    const mmd__backend_slot *slot = &s->backends[k];
    int32_t n = m->node_count, i, j, q, count, accepted = 0, at = 0;
    int32_t *order, *set, *first, *size, *rank, *acc, *seen, *claims, *bucket;
    const mmd_kernel **kern;
    uint8_t *cand, *outside;
    mmd_node *nodes;
    size_t mark = s->arena.used;
    mmd_status st;
    cand = (uint8_t *)mmd_arena_alloc(&s->arena, (size_t)n + (size_t)m->tensor_count + 2, err);
    order = (int32_t *)mmd_arena_alloc(&s->arena, ((size_t)n * 8 + (size_t)m->tensor_count + 1) * sizeof(int32_t), err);
    kern = (const mmd_kernel **)mmd_arena_alloc(&s->arena, (size_t)n * sizeof(mmd_kernel *) + 1, err);
    nodes = (mmd_node *)mmd_arena_alloc(&s->arena, (size_t)n * sizeof(mmd_node) + 1, err);
    if (!cand || !order || !kern || !nodes) return err->status;
    outside = cand + n + 1;
    set = order + n;
    first = set + n;
    size = first + n;
    rank = size + n;
    acc = rank + n;
    claims = acc + n;
    seen = claims + n;
    bucket = seen + m->tensor_count;
    for (i = 0; i < n; ++i) {
        const mmd_node *u = &m->nodes[i];
        int32_t dynamic = 0;
        for (j = 0; j < u->output_count; ++j) dynamic |= u->out[j] && u->out[j]->dynamic;
        cand[i] = s->claims[i] < 0 && !u->members && u->kernel && !u->folded && !u->reprepare && !dynamic &&
                  slot->b->supports(slot->b->user, slot->handle, m, i);
    }
    if ((st = mmd_graph_partition(m, cand, order, set, &count, &s->arena, err)) != MMD_OK) return st;
    for (j = 0; j < count; ++j) size[j] = 0;
    for (i = n - 1; i >= 0; --i)
        if (set[order[i]] >= 0) {
            first[set[order[i]]] = i;
            size[set[order[i]]]++;
        }
    /* Largest first, by a counting sort on sizes (1 to n): sets are numbered in order, so equal
       sizes keep their order. */
    for (j = 0; j <= n; ++j) bucket[j] = 0;
    for (i = 0; i < count; ++i) bucket[size[i]]++;
    for (j = n, q = 0; j >= 0; --j) {
        int32_t c = bucket[j];
        bucket[j] = q;
        q += c;
    }
    for (i = 0; i < count; ++i) rank[bucket[size[i]]++] = i;
    for (i = 0; i < count; ++i) {
        int32_t sid = rank[i];
        kern[sid] = slot->b->claim_set(slot->b->user, slot->handle, m, order + first[sid], size[sid]);
        if (kern[sid] && (!kern[sid]->prepare || !kern[sid]->eval))
            return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, order[first[sid]], m->nodes[order[first[sid]]].op_type,
                                 "backend '%s' claimed a set of %d nodes with a kernel lacking prepare or eval",
                                 slot->b->name, (int)size[sid]);
        accepted += kern[sid] != NULL;
    }
    if (accepted) {
        for (i = 0; i < n; ++i) acc[i] = set[i] >= 0 && kern[set[i]] ? set[i] : -1;
        for (i = 0; i < m->tensor_count; ++i) {
            outside[i] = (uint8_t)(m->tensors[i].is_output != 0);
            seen[i] = 0;
        }
        for (i = 0; i < n; ++i)
            for (j = 0; j < m->nodes[i].input_count; ++j) {
                int32_t t = m->nodes[i].inputs[j];
                if (t >= 0 && m->tensors[t].producer >= 0 && acc[m->tensors[t].producer] >= 0 &&
                    acc[m->tensors[t].producer] != acc[i])
                    outside[t] = 1;
            }
        /* The new list, in the partition's order, each accepted set where its first member was. */
        for (q = 0; q < n; ++q) {
            int32_t v = order[q], sid = acc[v];
            if (sid < 0) {
                nodes[at] = m->nodes[v];
                claims[at++] = s->claims[v];
            } else if (q == first[sid]) {
                mmd__set_node(m, pool, order + q, size[sid], acc, sid, outside, seen, &nodes[at]);
                nodes[at].op_type = slot->b->name;
                nodes[at].kernel = kern[sid];
                nodes[at].backend = slot->handle;
                claims[at++] = k;
            }
        }
        memcpy(m->nodes, nodes, (size_t)at * sizeof(mmd_node));
        memcpy(s->claims, claims, (size_t)at * sizeof(int32_t));
        m->node_count = at;
        for (i = 0; i < at; ++i)
            for (j = 0; j < m->nodes[i].output_count; ++j)
                if (m->nodes[i].outputs[j] >= 0) m->tensors[m->nodes[i].outputs[j]].producer = i;
    }
    mmd_arena_reset(&s->arena, mark);
    return MMD_OK;
}
#endif

/* Offers the nodes to the created backends in registration order: each backend's sets first
   (SUBGRAPH CLAIMS), then its single nodes, among the nodes no earlier backend took. When the
   reference kernels cover the graph, a trial plan first gives tensors their dtypes and shapes
   for the claims to look at; its memory is given back afterwards. */
static MMD__NOINLINE mmd_status mmd__backends_claim(mmd_session *s, int32_t plannable, mmd_error *err) {
    mmd_model *m = s->model;
    mmd__set_pool pool;
    int32_t i, k, sets = 0;
#ifndef MMD_NO_BACKEND_SETS
    mmd_status st;
#endif
    memset(&pool, 0, sizeof(pool));
#ifndef MMD_NO_BACKEND_SETS
    for (k = 0; k < s->backend_count; ++k) sets |= s->backends[k].created && s->backends[k].b->claim_set;
#endif
    if (sets && !m->blob) {
        size_t ids = 0;
        for (i = 0; i < m->node_count; ++i) ids += (size_t)m->nodes[i].input_count + (size_t)m->nodes[i].output_count;
        pool.members = (mmd_node *)mmd_arena_alloc(&s->arena, (size_t)m->node_count * sizeof(mmd_node) + 1, err);
        pool.ids = (int32_t *)mmd_arena_alloc(&s->arena, ids * sizeof(int32_t) + 1, err);
        pool.ptrs = (mmd_tensor **)mmd_arena_alloc(&s->arena, ids * sizeof(mmd_tensor *) + 1, err);
        if (!pool.members || !pool.ids || !pool.ptrs) return err->status;
        s->plan_mark = s->arena.used;
    }
    for (i = 0; i < m->node_count && plannable; ++i)
        if (!m->nodes[i].kernel) plannable = 0;
    if (plannable) {
        /* A trial: its failure only leaves dtypes unknown, so err is cleared after it. */
        mmd__graph_plan(m, &s->arena, NULL, NULL, NULL, err);
        err->status = MMD_OK;
        err->node = -1;
        err->op[0] = err->msg[0] = '\0';
    }
    for (i = 0; i < m->node_count; ++i) s->claims[i] = -1;
    for (k = 0; k < s->backend_count; ++k) {
        const mmd__backend_slot *slot = &s->backends[k];
        if (!slot->created) continue;
#ifndef MMD_NO_BACKEND_SETS
        if (slot->b->claim_set && pool.members && (st = mmd__backends_offer_sets(s, k, &pool, err)) != MMD_OK) {
            mmd_arena_reset(&s->arena, s->plan_mark);
            return st;
        }
#endif
        for (i = 0; i < m->node_count && slot->b->claim; ++i) {
            mmd_node *n = &m->nodes[i];
            const mmd_kernel *kern;
            if (s->claims[i] >= 0 || !(kern = slot->b->claim(slot->b->user, slot->handle, m, i))) continue;
            if (!kern->prepare || !kern->eval) {
                mmd_arena_reset(&s->arena, s->plan_mark);
                return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, i, n->op_type,
                                     "backend '%s' claimed node '%s' with a kernel lacking prepare or eval",
                                     slot->b->name, n->name);
            }
            n->kernel = kern;
            n->backend = slot->handle;
            s->claims[i] = k;
        }
    }
    mmd_arena_reset(&s->arena, s->plan_mark);
    return MMD_OK;
}

/* After a failed plan: when the failing node's kernel came from a backend and said
   MMD_ERR_UNSUPPORTED, moves the node to the next backend that claims it or to its reference
   kernel and records why; MMD_OK when it moved (plan again), else the status to fail with
   (st, err untouched, unless recording ran out of memory). Claims are asked before the failed
   plan's memory is given back, so they see its shapes. The records are copied to the arena
   below the plan, each move once (moves are rare), and the plan mark moves after them. */
static mmd_status mmd__set_dissolve(mmd_session *s, int32_t i, mmd_error *err);

static mmd_status mmd__fallback_take(mmd_session *s, mmd_status st, mmd_error *err) {
    mmd_model *m = s->model;
    int32_t i = err->node, k, from, to = -1;
    mmd_node *n;
    const mmd_kernel *kern = NULL;
    mmd__fallback *list;
    if (st != MMD_ERR_UNSUPPORTED || !s->claims || i < 0 || i >= m->node_count || s->claims[i] < 0) return st;
    if (m->nodes[i].members) return mmd__set_dissolve(s, i, err);
    n = &m->nodes[i];
    from = s->claims[i];
    for (k = from + 1; k < s->backend_count && to < 0; ++k) {
        const mmd__backend_slot *slot = &s->backends[k];
        if (!slot->created || !slot->b->claim) continue;
        kern = slot->b->claim(slot->b->user, slot->handle, m, i);
        if (kern && kern->prepare && kern->eval) to = k;
        else kern = NULL;
    }
    if (!kern && !(kern = mmd_ops_find(n->domain, n->op_type, n->opset))) return st;
    mmd_arena_reset(&s->arena, s->plan_mark);
    list = (mmd__fallback *)mmd_arena_alloc(&s->arena, (size_t)(s->fallback_count + 1) * sizeof(mmd__fallback), err);
    if (!list) return err->status;
    if (s->fallback_count) memcpy(list, s->fallbacks, (size_t)s->fallback_count * sizeof(mmd__fallback));
    list[s->fallback_count].node = i;
    list[s->fallback_count].slot = from;
    memcpy(list[s->fallback_count].msg, err->msg, sizeof(err->msg));
    s->fallbacks = list;
    s->fallback_count++;
    s->plan_mark = s->arena.used;
    n->kernel = kern;
    s->claims[i] = to;
    n->backend = to >= 0 ? s->backends[to].handle : NULL;
    m->claim_epoch++;
    err->status = MMD_OK;
    err->node = -1;
    err->op[0] = err->msg[0] = '\0';
    return MMD_OK;
}

/* After a set node's kernel refused at prepare: its members go back into the node list where
   it was (the list has room: every node is in it or in one set), each offered as a single node
   to the backends after the refusing one, else left to its reference kernel, and each is
   recorded. MMD_OK (plan again) unless recording ran out of memory. */
static mmd_status mmd__set_dissolve(mmd_session *s, int32_t i, mmd_error *err) {
    mmd_model *m = s->model;
    mmd_node set = m->nodes[i];
    int32_t c = set.member_count, from = s->claims[i], j, k, q;
    mmd__fallback *list;
    memmove(&m->nodes[i + c], &m->nodes[i + 1], (size_t)(m->node_count - i - 1) * sizeof(mmd_node));
    memmove(&s->claims[i + c], &s->claims[i + 1], (size_t)(m->node_count - i - 1) * sizeof(int32_t));
    memcpy(&m->nodes[i], set.members, (size_t)c * sizeof(mmd_node));
    m->node_count += c - 1;
    for (j = i; j < m->node_count; ++j)
        for (q = 0; q < m->nodes[j].output_count; ++q)
            if (m->nodes[j].outputs[q] >= 0) m->tensors[m->nodes[j].outputs[q]].producer = j;
    /* Claims are asked before the failed plan's memory is given back, so they see its shapes
       (and its constants). */
    for (j = i; j < i + c; ++j) {
        mmd_node *n = &m->nodes[j];
        s->claims[j] = -1;
        for (k = from + 1; k < s->backend_count && s->claims[j] < 0; ++k) {
            const mmd__backend_slot *slot = &s->backends[k];
            const mmd_kernel *kern;
            if (!slot->created || !slot->b->claim) continue;
            kern = slot->b->claim(slot->b->user, slot->handle, m, j);
            if (!kern || !kern->prepare || !kern->eval) continue;
            n->kernel = kern;
            n->backend = slot->handle;
            s->claims[j] = k;
        }
    }
    mmd_arena_reset(&s->arena, s->plan_mark);
    list = (mmd__fallback *)mmd_arena_alloc(&s->arena, (size_t)(s->fallback_count + c) * sizeof(mmd__fallback), err);
    if (!list) return err->status;
    /* Earlier records name nodes that moved down. */
    for (j = 0; j < s->fallback_count; ++j) {
        list[j] = s->fallbacks[j];
        if (list[j].node > i) list[j].node += c - 1;
    }
    for (j = i; j < i + c; ++j) {
        list[s->fallback_count].node = j;
        list[s->fallback_count].slot = from;
        memcpy(list[s->fallback_count].msg, err->msg, sizeof(err->msg));
        s->fallback_count++;
    }
    s->fallbacks = list;
    s->plan_mark = s->arena.used;
    m->claim_epoch++;
    err->status = MMD_OK;
    err->node = -1;
    err->op[0] = err->msg[0] = '\0';
    return MMD_OK;
}

/* Last created first, as resources are usually released. */
static void mmd__backends_destroy(mmd_session *s) {
    int32_t i;
    for (i = s->backend_count - 1; i >= 0; --i) {
        mmd__backend_slot *k = &s->backends[i];
        if (k->created && k->b->destroy) k->b->destroy(k->b->user, k->handle);
        k->created = 0;
    }
}

/* A whole-graph backend's run: forward binds, execute (alone inside the profiler) infers. */
static mmd_status mmd__session_forward(mmd_session *s, mmd_error *err) {
    const mmd__backend_slot *k = &s->backends[s->whole];
    mmd_model *m = s->model;
    mmd_profile_event ev;
    mmd_status st;
    st = k->b->forward(k->b->user, k->handle, (const mmd_tensor *const *)s->io, m->input_count,
                       s->io + m->input_count, m->output_count, err);
    if (st != MMD_OK) {
        if (err->status != st) mmd_error_set(err, st, -1, NULL, "backend '%s': forward failed", k->b->name);
        return st;
    }
    ev.node = -1;
    ev.op_type = k->b->name;
    ev.name = "";
    ev.end = 0;
    if (m->profiler) m->profiler(m->profiler_user, &ev);
    st = k->b->execute(k->b->user, k->handle, err);
    ev.end = 1;
    if (m->profiler) m->profiler(m->profiler_user, &ev);
    if (st != MMD_OK && err->status != st)
        mmd_error_set(err, st, -1, NULL, "backend '%s': execute failed", k->b->name);
    return st;
}

static mmd_status mmd__session_create(mmd_arena *a, const void *model, size_t size, const mmd_options *opts,
                                      mmd_session **out, mmd_error *err) {
    mmd_session *s;
    mmd_model *m;
    mmd_status st;
    int32_t i, j, symbolic = 0, shapeless = 0, values_needed = 0;

    if (!(s = (mmd_session *)mmd_arena_alloc(a, sizeof(mmd_session), err))) return err->status;
    /* From here on the session's own copy of the allocator is the one in use. */
    s->arena = *a;
    a = &s->arena;
    if ((st = mmd_model_parse(a, model, size, opts ? opts->copy_weights : 0, &s->model, err)) != MMD_OK)
        goto fail;
    m = s->model;
    if ((st = mmd__session_threads(s, opts, err)) != MMD_OK) goto fail;
    if ((st = mmd__backends_create(s, opts, model, size, err)) != MMD_OK) goto fail;
    /* A node without a reference kernel is an error only if no backend claims it either. */
    for (i = 0; i < m->node_count && s->whole < 0; ++i) {
        mmd_node *n = &m->nodes[i];
        n->kernel = mmd_ops_find(n->domain, n->op_type, n->opset);
    }
    s->declared = (int64_t *)mmd_arena_alloc(a, (size_t)m->input_count * MMD_MAX_RANK * sizeof(int64_t) + 1, err);
    s->declared_rank = (int32_t *)mmd_arena_alloc(a, (size_t)m->input_count * sizeof(int32_t) + 1, err);
    if (!s->declared || !s->declared_rank) { st = err->status; goto fail; }
    /* Symbolic dims plan as 1 until the caller binds real shapes. */
    for (i = 0; i < m->input_count; ++i) {
        mmd_tensor *t = &m->tensors[m->inputs[i]];
        s->declared_rank[i] = t->rank;
        if (t->rank < 0) { shapeless = 1; t->rank = 0; continue; }
        for (j = 0; j < t->rank; ++j) {
            s->declared[i * MMD_MAX_RANK + j] = t->dim_params[j] ? -1 : t->dims[j];
            if (t->dim_params[j]) { symbolic = 1; t->dims[j] = 1; }
        }
    }
    s->plan_mark = a->used;
    if (s->claims && (st = mmd__backends_claim(s, !shapeless, err)) != MMD_OK) goto fail;
    for (i = 0; i < m->node_count && s->whole < 0; ++i) {
        mmd_node *n = &m->nodes[i];
        if (!n->kernel) {
            st = mmd_error_set(err, MMD_ERR_NO_KERNEL, i, n->op_type, "no kernel for %s::%s (opset %d)",
                               n->domain[0] ? n->domain : "ai.onnx", n->op_type, (int)n->opset);
            goto fail;
        }
    }
    /* After the claims: a rewrite touches only nodes left to the reference kernels. Its trial
       plan (for the rewrites that need shapes) runs only without backends, whose kernels'
       prepare it would otherwise call once more. */
    if (!(opts && opts->no_rewrites) && s->whole < 0) {
        if ((st = mmd_graph_rewrite(m, a, opts && opts->rewrite_ops ? opts->rewrite_ops : mmd_ops_find,
                                    !symbolic && !shapeless && !s->claims, s->claims, err)) != MMD_OK)
            goto fail;
        s->plan_mark = a->used;
    }
    s->stale = 1;
    if (!shapeless) {
        st = mmd__session_plan(s, err);
        /* Declared shapes with placeholders may not be plannable (a 1x1 image through a 7x7
           conv), nor a graph whose shapes come from input values; the plan then waits for
           mmd_session_prepare with the bound inputs. */
        for (i = 0; i < m->input_count; ++i) values_needed |= m->tensors[m->inputs[i]].value_read;
        if (st != MMD_OK && !symbolic && !values_needed) goto fail;
        if (st != MMD_OK) err->status = MMD_OK;
    }
    s->live = MMD__SESSION_LIVE;
    *out = s;
    return MMD_OK;
fail:
    {
        mmd_arena tmp = s->arena;
        mmd__backends_destroy(s);
        mmd__session_threads_stop(s);
        mmd_arena_release(&tmp);
    }
    return st;
}

MMD_API mmd_status mmd_session_create(const void *model, size_t size, const mmd_options *opts,
                                      mmd_session **out, mmd_error *err) {
    mmd_error local;
    mmd_arena a;
    if (!err) err = &local;
    err->status = MMD_OK;
    err->node = -1;
    err->op[0] = err->msg[0] = '\0';
    if (!out || (!model && size))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_session_create: NULL argument");
    *out = NULL;
    if (opts && opts->arena) mmd_arena_init(&a, opts->arena, opts->arena_size, 0);
    else mmd_arena_init(&a, NULL, 0, 1);
    return mmd__session_create(&a, model, size, opts, out, err);
}

MMD_API mmd_status mmd_session_arena_size(const void *model, size_t size, size_t *out_bytes,
                                          mmd_error *err) {
    mmd_session *s;
    mmd_status st;
    if (!out_bytes)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_session_arena_size: NULL argument");
    if ((st = mmd_session_create(model, size, NULL, &s, err)) != MMD_OK) return st;
    /* A caller buffer may start unaligned: the arena skips up to MMD__ALIGN - 1 bytes, so this
       is exact for the worst start, and one byte less fails there. */
    *out_bytes = s->arena.high_water + MMD__ALIGN - 1;
    mmd_session_destroy(s);
    return MMD_OK;
}

MMD_API void mmd_session_destroy(mmd_session *s) {
    mmd_arena a;
    if (!mmd__live(s)) return;
    s->live = 0;
    mmd__backends_destroy(s);
    mmd__session_threads_stop(s);
    a = s->arena;
    mmd_arena_release(&a);
}

MMD_API int32_t mmd_session_input_count(const mmd_session *s) { return mmd__live(s) ? s->model->input_count : 0; }
MMD_API int32_t mmd_session_output_count(const mmd_session *s) { return mmd__live(s) ? s->model->output_count : 0; }

MMD_API const mmd_tensor *mmd_session_input(const mmd_session *s, int32_t i) {
    if (!mmd__live(s) || i < 0 || i >= s->model->input_count) return NULL;
    return &s->model->tensors[s->model->inputs[i]];
}

MMD_API const mmd_tensor *mmd_session_output(const mmd_session *s, int32_t i) {
    if (!mmd__live(s) || i < 0 || i >= s->model->output_count) return NULL;
    return &s->model->tensors[s->model->outputs[i]];
}

static int32_t mmd__find(const mmd_session *s, const int32_t *list, int32_t n, const char *name) {
    int32_t i;
    if (!mmd__live(s) || !name) return -1;
    for (i = 0; i < n; ++i)
        if (strcmp(s->model->tensors[list[i]].name, name) == 0) return i;
    return -1;
}

MMD_API int32_t mmd_session_find_input(const mmd_session *s, const char *name) {
    return mmd__live(s) ? mmd__find(s, s->model->inputs, s->model->input_count, name) : -1;
}

MMD_API int32_t mmd_session_find_output(const mmd_session *s, const char *name) {
    return mmd__live(s) ? mmd__find(s, s->model->outputs, s->model->output_count, name) : -1;
}

MMD_API mmd_status mmd_session_set_input(mmd_session *s, int32_t i, int32_t dtype, int32_t rank,
                                         const int64_t *dims, const void *data, mmd_error *err) {
    mmd_tensor *t;
    int32_t j, changed = 0;
    size_t bytes;
    mmd_status st;
    if (!mmd__live(s) || (rank > 0 && !dims))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "mmd_session_set_input: NULL argument or destroyed session");
    if (i < 0 || i >= s->model->input_count)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "input index %d out of range (the model has %d inputs)", (int)i,
                             (int)s->model->input_count);
    t = &s->model->tensors[s->model->inputs[i]];
    if (dtype != t->dtype)
        return mmd_error_set(err, MMD_ERR_DTYPE, -1, NULL, "input '%s': model wants %s, got %s", t->name,
                             mmd_dtype_name(t->dtype), mmd_dtype_name(dtype));
    if (rank < 0 || rank > MMD_MAX_RANK || (s->declared_rank[i] >= 0 && rank != s->declared_rank[i]))
        return mmd_error_set(err, MMD_ERR_SHAPE, -1, NULL, "input '%s': model wants rank %d, got %d",
                             t->name, (int)s->declared_rank[i], (int)rank);
    for (j = 0; j < rank; ++j) {
        int64_t want = s->declared_rank[i] >= 0 ? s->declared[i * MMD_MAX_RANK + j] : -1;
        if (dims[j] < 0 || (want >= 0 && dims[j] != want))
            return mmd_error_set(err, MMD_ERR_SHAPE, -1, NULL,
                                 "input '%s': dim %d is %lld, the model wants %lld", t->name, (int)j,
                                 (long long)dims[j], (long long)want);
    }
    {
        mmd_tensor probe = *t;
        probe.rank = rank;
        for (j = 0; j < rank; ++j) probe.dims[j] = dims[j];
        if ((st = mmd_tensor_nbytes(&probe, &bytes, err)) != MMD_OK) return st;
    }
    if (!data && bytes)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "input '%s': data is NULL", t->name);
    if (rank != t->rank) changed = 1;
    for (j = 0; j < rank; ++j)
        if (t->dims[j] != dims[j]) changed = 1;
    t->rank = rank;
    for (j = 0; j < rank; ++j) t->dims[j] = dims[j];
    /* Kernels only read inputs; the const is the caller's promise kept. */
    t->data = data ? (void *)(uintptr_t)data : (void *)s;
    /* A value that shaped the plan (a Reshape target fed from outside) may differ now. */
    if (changed || t->value_read) s->stale = 1;
    return MMD_OK;
}

MMD_API mmd_status mmd_session_prepare(mmd_session *s, mmd_error *err) {
    mmd_error local;
    if (!err) err = &local;
    if (!mmd__live(s))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_session_prepare: NULL or destroyed session");
    if (!s->stale) return MMD_OK;
    return mmd__session_plan(s, err);
}

MMD_API mmd_status mmd_session_run(mmd_session *s, mmd_error *err) {
    mmd_error local;
    int32_t i;
    if (!err) err = &local;
    if (!mmd__live(s))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "mmd_session_run: NULL or destroyed session");
    if (s->stale)
        return mmd_error_set(err, MMD_ERR_NOT_READY, -1, NULL,
                             "no valid plan (input shapes changed or the last prepare failed): call "
                             "mmd_session_prepare before mmd_session_run");
    for (i = 0; i < s->model->input_count; ++i)
        if (!s->model->tensors[s->model->inputs[i]].data)
            return mmd_error_set(err, MMD_ERR_NOT_READY, -1, NULL, "input '%s' is not bound",
                                 s->model->tensors[s->model->inputs[i]].name);
    if (s->whole >= 0) return mmd__session_forward(s, err);
    return mmd__graph_run(s->model, s->scratch, err);
}

MMD_API void mmd_session_stats(const mmd_session *s, mmd_plan_stats *out) {
    if (!out) return;
    if (!mmd__live(s)) { memset(out, 0, sizeof(*out)); return; }
    *out = s->stats;
}

MMD_API const mmd_model *mmd_session_model(const mmd_session *s) { return mmd__live(s) ? s->model : NULL; }

#if !defined(MMD_NO_MALLOC) && !defined(MMD_NO_ONNX)
MMD_API mmd_status mmd_session_write_blob(const mmd_session *s, void *out, size_t cap, size_t *size,
                                          mmd_error *err) {
    mmd_error local;
    size_t arena = 0;
    mmd_status st;
    if (!err) err = &local;
    if (!mmd__live(s) || !size)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL,
                             "mmd_session_write_blob: NULL argument or destroyed session");
    if (s->stale)
        return mmd_error_set(err, MMD_ERR_NOT_READY, -1, NULL, "the plan is stale: call mmd_session_prepare first");
    if ((st = mmd_blob_write(s->model, 0, out, cap, size, err)) != MMD_OK || !out) return st;
    /* Measured by loading the blob just written, so the stored size is exact by construction. */
    if ((st = mmd_session_arena_size(out, *size, &arena, err)) != MMD_OK) return st;
    return mmd_blob_write(s->model, arena, out, cap, size, err);
}
#endif

MMD_API int32_t mmd_session_backend_count(const mmd_session *s) { return mmd__live(s) ? s->backend_count : 0; }

MMD_API const mmd_backend *mmd_session_backend(const mmd_session *s, int32_t i) {
    if (!mmd__live(s) || i < 0 || i >= s->backend_count) return NULL;
    return s->backends[i].b;
}

MMD_API mmd_status mmd_session_backend_status(const mmd_session *s, int32_t i, mmd_status *status,
                                              const char **msg) {
    if (!mmd__live(s) || i < 0 || i >= s->backend_count) return MMD_ERR_INDEX;
    if (status) *status = s->backends[i].status;
    if (msg) *msg = s->backends[i].msg;
    return MMD_OK;
}

MMD_API int32_t mmd_session_node_backend(const mmd_session *s, int32_t node) {
    if (!mmd__live(s) || node < 0 || node >= s->model->node_count) return -1;
    if (s->whole >= 0) return s->whole;
    return s->claims ? s->claims[node] : -1;
}

MMD_API int32_t mmd_session_fallback_count(const mmd_session *s) { return mmd__live(s) ? s->fallback_count : 0; }

MMD_API mmd_status mmd_session_fallback(const mmd_session *s, int32_t i, int32_t *node, int32_t *backend,
                                        const char **msg) {
    if (!mmd__live(s) || i < 0 || i >= s->fallback_count) return MMD_ERR_INDEX;
    if (node) *node = s->fallbacks[i].node;
    if (backend) *backend = s->fallbacks[i].slot;
    if (msg) *msg = s->fallbacks[i].msg;
    return MMD_OK;
}

MMD_API void mmd_session_set_profiler(mmd_session *s, mmd_profiler_fn fn, void *user) {
    if (!mmd__live(s)) return;
    s->model->profiler = fn;
    s->model->profiler_user = user;
}

#endif /* layer 4 */

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
