/* tests/fuzz/fuzz_sdk.h - what the SDK harnesses (fuzz_sdk_model.c, fuzz_sdk_image.c) share:
   the SDK's implementation in the harness's translation unit, with image limits small enough
   that one input runs in milliseconds under the sanitizers, and its log checked.

   The SDK's messages go to fuzz_sdk_logged instead of stderr; fuzz_sdk_check aborts when a
   call failed without one (every refusal must say why; running out of memory may be silent,
   as MMDeploy's own API is). The runtime is fuzz_runtime.c's, with its capped allocator. */
#ifndef FUZZ_SDK_H
#define FUZZ_SDK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MMD_MAX_IMAGE_SIDE 1024
#define MMD_MAX_IMAGE_PIXELS ((int64_t)1 << 16)
#define MMD_MAX_JSON_BYTES ((size_t)1 << 16)
static int fuzz_sdk_logged;
#define MMD_SDK_LOG(msg) (fuzz_sdk_logged = (msg)[0] != 0)
#define MMD_SDK_IMPLEMENTATION
#include "mmdeploy_sdk.h"

static void fuzz_sdk_check(int st) {
    if (st != MMDEPLOY_SUCCESS && st != MMDEPLOY_E_OUT_OF_MEMORY && !fuzz_sdk_logged) {
        fprintf(stderr, "fuzz: SDK status %d without a message\n", st);
        abort();
    }
    if (st < 0 || st >= MMDEPLOY_STATUS_COUNT) {
        fprintf(stderr, "fuzz: SDK status %d is not an mmdeploy_status_t\n", st);
        abort();
    }
    fuzz_sdk_logged = 0;
}

/* Reads n floats through a volatile sum: a result shorter than it says is an ASan report. */
static void fuzz_sdk_touch(const void *p, size_t bytes) {
    volatile uint8_t sum = 0;
    size_t k;
    for (k = 0; k < bytes; ++k) sum = (uint8_t)(sum + ((const uint8_t *)p)[k]);
    (void)sum;
}

#endif
