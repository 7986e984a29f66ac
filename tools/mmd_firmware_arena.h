/* mmd_firmware_arena.h - the two functions of mmd_firmware_arena.c (see there). */
#ifndef MMD_FIRMWARE_ARENA_H
#define MMD_FIRMWARE_ARENA_H
#include <stddef.h>

/* The arena (at any address, as mmd_session_arena_size measures it) and the largest scratch that
   a MMD_CONV_SMALL firmware build of the runtime needs for the .mmd blob. Returns 0, or the
   mmd_status of the failure with its message in msg. Allocates on the heap while measuring. */
int mmd_firmware_arena(const void *blob, size_t size, size_t *arena_bytes, size_t *scratch_bytes,
                       char *msg, size_t cap);

/* 1 when a MMD_CONV_SMALL firmware build has a kernel for op_type of domain at opset, else 0:
   `mmdeploy convert` lets the load-time rewrites make only such ops (mmd_options.rewrite_ops). */
int mmd_firmware_has_op(const char *domain, const char *op_type, long long opset);

#endif
