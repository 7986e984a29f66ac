/* tests/fuzz/fuzz_blob.c - libFuzzer harness: .mmd blob bytes (mmdeploy_ir.h, .MMD BLOBS) ->
   create, bind zero-filled inputs, prepare, run, read every output byte.

   The first 8 bytes are overwritten with the blob magic, so every input reaches the blob loader
   rather than the protobuf decoder (fuzz_parse covers that), and the copy starts 16-byte
   aligned as the loader requires. Seeds are blobs `mmdeploy convert` writes from the test
   models at build time. Built and run by `make fuzz`. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint8_t magic[8] = {0x89, 'M', 'M', 'D', 0x0d, 0x0a, 0x1a, 0x0a};
    uint8_t *bytes = fuzz_copy(data, size);
    if (!bytes) return 0;
    if (size >= sizeof magic) memcpy(bytes, magic, sizeof magic);
    fuzz_session(bytes, size, 0, 1, 0);
    free(bytes);
    return 0;
}
