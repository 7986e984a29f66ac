/* mmd_firmware_arena.h - the one function of mmd_firmware_arena.c (see there). */
#ifndef MMD_FIRMWARE_ARENA_H
#define MMD_FIRMWARE_ARENA_H
#include <stddef.h>

/* The arena (at any address, as mmd_session_arena_size measures it) and the largest scratch that
   a MMD_CONV_SMALL firmware build of the runtime needs for the .mmd blob. Returns 0, or the
   mmd_status of the failure with its message in msg. Allocates on the heap while measuring. */
int mmd_firmware_arena(const void *blob, size_t size, size_t *arena_bytes, size_t *scratch_bytes,
                       char *msg, size_t cap);

#endif
