/* tests/fuzz/fuzz_runtime.c - the runtime and the helpers every fuzz harness links (fuzz.h). */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MMD_MALLOC(size) fuzz_malloc(size)
#define MMD_FREE(ptr) fuzz_free(ptr)
#define MMD_IMPLEMENTATION
#include "fuzz.h"
#define MMD_NPY_IMPLEMENTATION
#include "mmd_npy.h"

/* Each block carries its size in front, so that fuzz_free can give it back to the count; 16
   bytes keep the payload as aligned as malloc's. */
typedef struct fuzz__head { size_t size, pad; } fuzz__head;
static size_t fuzz__in_use;

void *fuzz_malloc(size_t size) {
    fuzz__head *h;
    if (size > FUZZ_HEAP_CAP - fuzz__in_use) return NULL;
    if (!(h = (fuzz__head *)malloc(sizeof(fuzz__head) + size))) return NULL;
    h->size = size;
    fuzz__in_use += size;
    return h + 1;
}

void fuzz_free(void *p) {
    fuzz__head *h;
    if (!p) return;
    h = (fuzz__head *)p - 1;
    fuzz__in_use -= h->size;
    free(h);
}

uint8_t *fuzz_copy(const uint8_t *data, size_t size) {
    void *p = NULL;
    if (posix_memalign(&p, 16, size ? size : 1) != 0) return NULL;
    if (data && size) memcpy(p, data, size);
    else memset(p, 0, size ? size : 1);
    return (uint8_t *)p;
}

void fuzz_check(mmd_status st, const mmd_error *err) {
    if (st == MMD_OK) return;
    if ((unsigned)st >= (unsigned)MMD_STATUS_COUNT || err->status != st || !err->msg[0]) {
        fprintf(stderr, "fuzz: status %d (%s) but err has status %d and message '%s'\n", (int)st,
                mmd_status_string(st), (int)err->status, err->msg);
        abort();
    }
}

/* Reads every byte of each output through a volatile sum: a shape larger than the memory
   behind it is then an ASan report, not a silent overread a caller would make later. */
static void fuzz__touch_outputs(const mmd_session *s) {
    int32_t i;
    for (i = 0; i < mmd_session_output_count(s); ++i) {
        const mmd_tensor *t = mmd_session_output(s, i);
        volatile uint8_t sum = 0;
        size_t n = 0, k;
        mmd_error err;
        if (!t || mmd_tensor_nbytes(t, &n, &err) != MMD_OK) {
            fprintf(stderr, "fuzz: output %d has no valid shape after a successful run\n", (int)i);
            abort();
        }
        if (n && !t->data) {
            fprintf(stderr, "fuzz: output '%s' (%zu bytes) has no data after a successful run\n",
                    t->name, n);
            abort();
        }
        for (k = 0; k < n; ++k) sum = (uint8_t)(sum + ((const uint8_t *)t->data)[k]);
        (void)sum;
    }
}

void fuzz_session(const uint8_t *bytes, size_t size, int32_t copy_weights, int32_t run,
                  size_t arena_bytes) {
    mmd_session *s = NULL;
    mmd_options opts;
    mmd_error err;
    mmd_status st;
    void **inputs = NULL;
    int32_t n, i;
    size_t total = 0;

    memset(&opts, 0, sizeof opts);
    memset(&err, 0, sizeof err);
    opts.copy_weights = copy_weights;
    if (arena_bytes && !(opts.arena = malloc(arena_bytes))) return;
    opts.arena_size = arena_bytes;
    st = mmd_session_create(bytes, size, &opts, &s, &err);
    fuzz_check(st, &err);
    n = st == MMD_OK ? mmd_session_input_count(s) : 0;
    if (st == MMD_OK && run && (inputs = (void **)calloc((size_t)n + 1, sizeof(void *))) != NULL) {
        for (i = 0; i < n && st == MMD_OK; ++i) {
            const mmd_tensor *t = mmd_session_input(s, i);
            size_t nbytes = 0;
            st = mmd_tensor_nbytes(t, &nbytes, &err);
            fuzz_check(st, &err);
            if (st != MMD_OK || nbytes > FUZZ_INPUT_CAP - total) goto done;
            total += nbytes;
            if (!(inputs[i] = calloc(nbytes ? nbytes : 1, 1))) goto done;
            st = mmd_session_set_input(s, i, t->dtype, t->rank, t->dims, inputs[i], &err);
            fuzz_check(st, &err);
        }
        if (st == MMD_OK) {
            st = mmd_session_prepare(s, &err);
            fuzz_check(st, &err);
        }
        if (st == MMD_OK) {
            mmd_plan_stats stats;
            mmd_session_stats(s, &stats);
            if (stats.activation_sum_bytes > FUZZ_RUN_CAP) goto done;
            st = mmd_session_run(s, &err);
            fuzz_check(st, &err);
        }
        if (st == MMD_OK) fuzz__touch_outputs(s);
    }
done:
    mmd_session_destroy(s);
    if (inputs)
        for (i = 0; i < n; ++i) free(inputs[i]);
    free(inputs);
    free(opts.arena);
    if (fuzz__in_use) {
        fprintf(stderr, "fuzz: %zu bytes of runtime memory still in use after destroy\n", fuzz__in_use);
        abort();
    }
}
