/* tests/fuzz/fuzz_run.c - libFuzzer harness: model bytes -> create, bind zero-filled inputs of
   each declared shape (symbolic dims as 1, FUZZ_INPUT_CAP bytes in all), prepare, run, read
   every output byte. The runtime's memory is capped at FUZZ_HEAP_CAP (64 MiB), so a model
   that asks for more is refused with a status. Built and run by `make fuzz`. */
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *bytes = fuzz_copy(data, size);
    if (!bytes) return 0;
    fuzz_session(bytes, size, 0, 1, 0);
    free(bytes);
    return 0;
}
