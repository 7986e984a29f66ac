/* tests/fuzz/fuzz.h - what the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share.

   tests/fuzz/fuzz_runtime.c holds the runtime (MMD_IMPLEMENTATION), the .npy reader and the
   helpers below in one translation unit, built once by `make fuzz` and linked into every
   harness. Its MMD_MALLOC is a counting allocator capped at FUZZ_HEAP_CAP bytes in all, so a
   hostile model cannot make the runtime ask for gigabytes (a refusal is MMD_ERR_OUT_OF_MEMORY,
   a status like any other), while ASan still sees every arena block as its own allocation and
   catches a read past any one of them; a caller-owned arena would hide those inside one
   buffer.

   A harness finding is any crash, sanitizer report or abort(). The helpers abort when a
   failing call leaves err without its status or without a message: every refusal must say
   why. */
#ifndef MMD_FUZZ_H
#define MMD_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The capped allocator behind MMD_MALLOC / MMD_FREE in fuzz_runtime.c, declared before
   mmdeploy.h, whose implementation that file emits through this include. */
void *fuzz_malloc(size_t size);
void fuzz_free(void *p);

#include "mmdeploy.h"

/* Everything the runtime may allocate for one input, arena blocks of all sessions together. */
#define FUZZ_HEAP_CAP ((size_t)64 << 20)
/* Zero-filled graph inputs bound for a run, all inputs together; a model declaring more is
   loaded and prepared but not run. */
#define FUZZ_INPUT_CAP ((size_t)4 << 20)
/* A planned model whose activations add up past this is prepared but not run: the instrumented
   build moves only some ten million elements a second, so a larger run would be merely slow,
   and -timeout must mean a hang (a 6 MB int8 Resize took 4 s of a 10 s timeout on a busy
   machine, 0.1 s in a release build). */
#define FUZZ_RUN_CAP ((size_t)4 << 20)
/* A planned model whose products (fuzz_runtime.c: fuzz__work) add up past this many
   multiply-adds is prepared but not run: small tensors can still ask for a lot of arithmetic (a
   ConvTranspose of a 1-channel 512K-pixel input by a 512K-tap weight is 2.6e11 multiply-adds,
   74 s of an instrumented build), which is slow, not hung. */
#define FUZZ_WORK_CAP 5e8

/* A copy of data in a fresh buffer of exactly size bytes (so ASan sees one byte past the end)
   starting at a 16-byte aligned address, as a .mmd blob must (zeros when data is NULL); NULL
   only when out of memory. Free it with free(). */
uint8_t *fuzz_copy(const uint8_t *data, size_t size);

/* Aborts unless a failed call left err with its status and a message (st MMD_OK: nothing). */
void fuzz_check(mmd_status st, const mmd_error *err);

/* Creates a session from the bytes, in a caller arena of exactly arena_bytes bytes (a malloc
   block of that size, so ASan sees a write past its end) or on the capped heap when arena_bytes
   is 0; when that works and run is 1, binds zero-filled inputs of each input's current shape
   (symbolic dims as 1; skipped past FUZZ_INPUT_CAP), prepares, runs (unless past FUZZ_RUN_CAP)
   and reads every output byte. Checks every status with fuzz_check. */
void fuzz_session(const uint8_t *bytes, size_t size, int32_t copy_weights, int32_t run,
                  size_t arena_bytes);

/* ---- models built from the fuzz bytes (the structured harnesses: fuzz_quant, fuzz_rnn) -----
   A harness reads its choices (operator, opset, shapes, dtypes, values, attributes) from the
   input through a fuzz_reader and writes a one-node ONNX model with the protobuf writer below,
   so that every input reaches the kernel's checks instead of the protobuf decoder's. */

/* The fuzz bytes, consumed from the front; once they run out every choice is 0. */
typedef struct fuzz_reader { const uint8_t *p; size_t n; } fuzz_reader;

/* A value in [0, count) (count 1 to 256 takes one byte, more takes four). */
uint32_t fuzz_take(fuzz_reader *r, uint32_t count);
/* A float, most often one a kernel must refuse or survive: 0, -0, subnormals, FLT_MAX,
   infinities, NaN, values past int8's range; else any bit pattern or a small quarter-integer. */
float fuzz_take_float(fuzz_reader *r);
/* An integer, most often at a type's edge (int8, uint8, int32, int64 limits and one past them),
   else small. */
int64_t fuzz_take_int(fuzz_reader *r);

/* A protobuf message being written; grows on the C heap (abort() when that fails: harness
   memory, not the runtime's). */
typedef struct fuzz_pb { uint8_t *p; size_t n, cap; } fuzz_pb;
void fuzz_pb_varint(fuzz_pb *m, uint32_t field, uint64_t v);
void fuzz_pb_bytes(fuzz_pb *m, uint32_t field, const void *data, size_t n);
void fuzz_pb_string(fuzz_pb *m, uint32_t field, const char *s);
/* Appends child as a length-delimited field and frees it. */
void fuzz_pb_msg(fuzz_pb *m, uint32_t field, fuzz_pb *child);
void fuzz_pb_free(fuzz_pb *m);

/* Graph parts (onnx.proto field numbers): a graph input (11) or output (12) of the given dtype
   and shape, or with rank -1 and dtype 0 of no declared type; an initializer with raw data of
   the dtype's size per element; NodeProto attributes. */
void fuzz_graph_value(fuzz_pb *graph, uint32_t field, const char *name, int32_t dtype, int32_t rank,
                      const int64_t *dims);
void fuzz_graph_initializer(fuzz_pb *graph, const char *name, int32_t dtype, int32_t rank, const int64_t *dims,
                            const void *raw, size_t nbytes);
void fuzz_attr_int(fuzz_pb *node, const char *name, int64_t v);
void fuzz_attr_float(fuzz_pb *node, const char *name, float v);
void fuzz_attr_ints(fuzz_pb *node, const char *name, const int64_t *v, int32_t n);
void fuzz_attr_floats(fuzz_pb *node, const char *name, const float *v, int32_t n);
void fuzz_attr_string(fuzz_pb *node, const char *name, const char *v);
void fuzz_attr_strings(fuzz_pb *node, const char *name, const char *const *v, int32_t n);

/* A tensor the harness chose: either an initializer holding values taken from the reader
   (floats from fuzz_take_float, integers from fuzz_take_int, wrapped to the dtype) or a graph
   input, which fuzz_session zero-fills. */
void fuzz_graph_tensor(fuzz_pb *graph, fuzz_reader *r, const char *name, int32_t dtype, int32_t rank,
                       const int64_t *dims, int32_t initializer);

/* A node output, also declared a graph output (of no declared type) unless name is "", which
   leaves the output out. */
void fuzz_node_output(fuzz_pb *graph, fuzz_pb *node, const char *name);

/* Appends node (of op_type, default domain) to graph, wraps graph in a ModelProto at opset
   (freeing both) and puts the bytes through fuzz_session on `threads` threads, run through a
   hook that executes the shares one after another, last first (so that a result depending on
   the split shows): create, bind zero-filled inputs, prepare, run, read every output byte. */
void fuzz_node_run(fuzz_pb *graph, fuzz_pb *node, const char *op_type, int64_t opset, int32_t threads);

#endif
