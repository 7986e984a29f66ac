/* mmd_firmware_arena.c - the runtime once more, built as firmware builds it, static inside the
   mmdeploy CLI: `mmdeploy convert` loads the blob it wrote with this copy too, so that the arena
   it states for firmware comes from the very code that will plan the blob there. A kernel's
   scratch follows its build (MMD_CONV_SMALL's small GEMM blocks and im2col bands, the portable
   kernels' tile), so the host's own figure, sized for its caches and instruction set, is far
   larger than what a microcontroller needs.
   The settings: MMD_CONV_SMALL, portable kernels (MMD_NO_SIMD) with the wider of their two
   tiles (MMD_GEMM_NR_PORTABLE 8, which needs at least what 4 needs), blobs only (MMD_NO_ONNX),
   default block sizes. Only pointers and size_t shrink on a 32-bit target, so the figure
   measured here with 8-byte pointers is enough there. */
#define MMD_STATIC
#define MMD_NO_ONNX
#define MMD_NO_SIMD
#define MMD_CONV_SMALL
#define MMD_GEMM_NR_PORTABLE 8
#define MMD_IMPLEMENTATION
#if defined(__GNUC__) || defined(__clang__)
/* Every function is static here and the CLI calls one of them. */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "mmdeploy.h"

#include "mmd_firmware_arena.h"

int mmd_firmware_arena(const void *blob, size_t size, size_t *arena_bytes, size_t *scratch_bytes,
                       char *msg, size_t cap) {
    mmd_session *s = NULL;
    mmd_plan_stats st;
    mmd_error err;
    size_t i;
    memset(&err, 0, sizeof err);
    if (mmd_session_arena_size(blob, size, arena_bytes, &err) != MMD_OK ||
        mmd_session_create(blob, size, NULL, &s, &err) != MMD_OK) {
        for (i = 0; cap && i + 1 < cap && err.msg[i]; ++i) msg[i] = err.msg[i];
        if (cap) msg[i] = '\0';
        return (int)err.status;
    }
    mmd_session_stats(s, &st);
    *scratch_bytes = st.scratch_bytes;
    mmd_session_destroy(s);
    return 0;
}

int mmd_firmware_has_op(const char *domain, const char *op_type, long long opset) {
    return mmd_ops_find(domain, op_type, (int64_t)opset) != NULL;
}
