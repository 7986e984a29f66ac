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

#endif
