/* tests/fuzz/fuzz_inputs.c - libFuzzer harness for the input readers: the same bytes go to
   mmd_npy_parse (tools/mmd_npy.h) and to mmd_tensor_proto_decode (a .pb TensorProto, as the
   CLI and the node tests read them).

   A .npy the reader accepts must describe bytes inside the buffer, and writing it back with
   mmd_npy_encode and reading that again must give the same dtype, shape and data. A decoded
   TensorProto's data is read to its last byte. Built and run by `make fuzz`. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mmdeploy_ir.h"
#include "mmd_npy.h"

static void fuzz__npy(const uint8_t *bytes, size_t size) {
    mmd_npy t, back;
    mmd_error err;
    mmd_status st;
    size_t need = 0, got = 0;
    uint8_t *buf;
    memset(&err, 0, sizeof err);
    st = mmd_npy_parse(bytes, size, &t, &err);
    fuzz_check(st, &err);
    if (st != MMD_OK) return;
    if (t.nbytes > size || (t.nbytes && ((const uint8_t *)t.data < bytes ||
                                         (const uint8_t *)t.data + t.nbytes > bytes + size)))
        abort();
    st = mmd_npy_encode(&t, NULL, 0, &need, &err);
    fuzz_check(st, &err);
    if (st != MMD_OK || !(buf = fuzz_copy(NULL, need))) return;
    st = mmd_npy_encode(&t, buf, need, &got, &err);
    fuzz_check(st, &err);
    if (st != MMD_OK || got != need) abort();
    st = mmd_npy_parse(buf, got, &back, &err);
    fuzz_check(st, &err);
    if (st != MMD_OK || back.dtype != t.dtype || back.rank != t.rank || back.nbytes != t.nbytes ||
        memcmp(back.dims, t.dims, sizeof(int64_t) * (size_t)t.rank) != 0 ||
        (t.nbytes && memcmp(back.data, t.data, t.nbytes) != 0))
        abort();
    free(buf);
}

static void fuzz__pb(const uint8_t *bytes, size_t size) {
    mmd_arena a;
    mmd_tensor t;
    mmd_error err;
    mmd_status st;
    size_t n = 0, k;
    volatile uint8_t sum = 0;
    memset(&err, 0, sizeof err);
    mmd_arena_init(&a, NULL, 0, 1);
    st = mmd_tensor_proto_decode(&a, bytes, size, &t, &err);
    fuzz_check(st, &err);
    if (st == MMD_OK) {
        st = mmd_tensor_nbytes(&t, &n, &err);
        if (st != MMD_OK || (n && !t.data)) abort();
        for (k = 0; k < n; ++k) sum = (uint8_t)(sum + ((const uint8_t *)t.data)[k]);
    }
    (void)sum;
    mmd_arena_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *bytes = fuzz_copy(data, size);
    if (!bytes) return 0;
    fuzz__npy(bytes, size);
    fuzz__pb(bytes, size);
    free(bytes);
    return 0;
}
