/* tests/fuzz/fuzz_parse.c - libFuzzer harness: model bytes -> mmd_session_create.

   The bytes, in a buffer of exactly their size, are parsed and planned three times: weights read
   in place, weights copied, and in a caller arena of 1 to 65536 bytes (taken from the last two
   input bytes), so that running out of arena is tried at every point of loading. A model that
   loads is then written as a .mmd blob, which mmd_session_write_blob reloads to measure it, so
   the writer's output meets the loader too.
   Built and run by `make fuzz` (see tests/fuzz/fuzz.h for what counts as a finding). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void fuzz__blob_roundtrip(const uint8_t *bytes, size_t size) {
    mmd_session *s = NULL;
    mmd_error err;
    mmd_status st;
    size_t need = 0, got = 0;
    uint8_t *blob;
    memset(&err, 0, sizeof err);
    if (mmd_session_create(bytes, size, NULL, &s, &err) != MMD_OK) return;
    st = mmd_session_write_blob(s, NULL, 0, &need, &err);
    fuzz_check(st, &err);
    if (st == MMD_OK && need <= FUZZ_HEAP_CAP && (blob = fuzz_copy(NULL, need)) != NULL) {
        st = mmd_session_write_blob(s, blob, need, &got, &err);
        fuzz_check(st, &err);
        /* The writer measures the blob by loading it: a blob it wrote being refused as
           malformed means writer and loader disagree. */
        if (st == MMD_ERR_MALFORMED || (st == MMD_OK && got != need)) abort();
        free(blob);
    }
    mmd_session_destroy(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *bytes = fuzz_copy(data, size);
    if (!bytes) return 0;
    fuzz_session(bytes, size, 0, 0, 0);
    fuzz_session(bytes, size, 1, 0, 0);
    if (size >= 2) fuzz_session(bytes, size, 0, 0, 1 + ((size_t)data[size - 1] << 8 | data[size - 2]));
    fuzz__blob_roundtrip(bytes, size);
    free(bytes);
    return 0;
}
