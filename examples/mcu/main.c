/* main.c - the digits classifier on a Cortex-M, without heap or stdio: the model is a .mmd blob
   in flash (build/mcu/digits_model.c, from `mmdeploy convert`), the session lives in a static
   arena sized by the host (DIGITS_MODEL_ARENA_BYTES), and the runtime carries only the kernels
   the model runs (build/mcu/digits_ops.h). Prints one line per test image:

       sample 3: label 7 (true 7) scores -5.120458 ... (the model's 10 raw scores)

   and at the end the stack it used and the processor cycles its runs took (SysTick; under
   `make mcu-test`'s QEMU, -icount shift=0, a figure proportional to the instructions run, to
   compare builds on one board).

   `make mcu-test` runs it under QEMU on five cores (Cortex-M3 soft-float, M4F, M7, M33, M55) and compares
   the lines with the host's, from the ONNX model (examples/mcu/mcu_host.c). On a real board,
   the vendor's start code and linker script replace startup.c and the *.ld files, and mcu_write a
   UART write; nothing here depends on the board. */
#include "digits_model.h"
#include "mcu.h"
#include "mmdeploy.h"

#include <string.h>

static uint8_t arena[DIGITS_MODEL_ARENA_BYTES];

/* Appends text to a line buffer; the buffer is sized for the longest line printed. */
typedef struct line { char buf[256]; uint32_t len; } line;

static void put(line *l, const char *s) {
    while (*s && l->len + 1 < sizeof(l->buf)) l->buf[l->len++] = *s++;
    l->buf[l->len] = '\0';
}

static void put_uint(line *l, uint32_t v) {
    char tmp[12];
    int32_t n = sizeof(tmp) - 1;
    tmp[n] = '\0';
    do { tmp[--n] = (char)('0' + v % 10); v /= 10; } while (v);
    put(l, tmp + n);
}

/* Six decimals, rounded: enough to compare with the host at 1e-4. */
static void put_fixed6(line *l, float f) {
    double v = f;
    uint64_t q;
    char frac[8];
    int32_t i;
    if (v != v) { put(l, "nan"); return; }
    if (v < 0) { put(l, "-"); v = -v; }
    if (v >= 4e9) { put(l, "inf"); return; }
    q = (uint64_t)(v * 1e6 + 0.5);
    put_uint(l, (uint32_t)(q / 1000000u));
    for (i = 5; i >= 0; --i) { frac[i] = (char)('0' + q % 10); q /= 10; }
    frac[6] = '\0';
    put(l, ".");
    put(l, frac);
}

static int fail(const char *what, const mmd_error *err) {
    line l;
    l.len = 0;
    put(&l, "mcu: ");
    put(&l, what);
    put(&l, ": ");
    put(&l, mmd_status_string(err->status));
    put(&l, ": ");
    put(&l, err->msg);
    put(&l, "\n");
    mcu_write(l.buf);
    return 1;
}

int main(void) {
    mmd_session *s;
    mmd_error err;
    mmd_options opts;
    mmd_plan_stats stats;
    int64_t dims[4] = {1, 1, 8, 8};
    int32_t k, j, best;
    uint32_t ticks = 0;
    line l;

    memset(&err, 0, sizeof(err));
    memset(&opts, 0, sizeof(opts));
    opts.arena = arena;
    opts.arena_size = sizeof(arena);
    if (mmd_session_create(digits_model, DIGITS_MODEL_SIZE, &opts, &s, &err) != MMD_OK)
        return fail("create", &err);
    mmd_session_stats(s, &stats);
    l.len = 0;
#if defined(__ARM_FP)
    put(&l, "mcu digits: hard-float build, arena ");
#else
    put(&l, "mcu digits: soft-float build, arena ");
#endif
    put_uint(&l, (uint32_t)sizeof(arena));
    put(&l, " bytes declared, ");
    /* What the arena needed here, at its alignment: a 32-bit target needs at most the host's
       figure, since only pointers and size_t shrink. */
    put_uint(&l, (uint32_t)stats.arena_bytes);
    put(&l, " used, model ");
    put_uint(&l, DIGITS_MODEL_SIZE);
    put(&l, " bytes in flash\n");
    mcu_write(l.buf);

    for (k = 0; k < mcu_sample_count; ++k) {
        const mmd_tensor *y;
        const float *scores;
        uint32_t t0;
        if (mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 4, dims, mcu_samples[k], &err) != MMD_OK)
            return fail("set_input", &err);
        t0 = mcu_ticks();
        if (mmd_session_run(s, &err) != MMD_OK) return fail("run", &err);
        ticks += (t0 - mcu_ticks()) & 0xFFFFFFu;
        y = mmd_session_output(s, 0);
        scores = (const float *)y->data;
        for (best = 0, j = 1; j < y->dims[1]; ++j)
            if (scores[j] > scores[best]) best = j;
        l.len = 0;
        put(&l, "sample ");
        put_uint(&l, (uint32_t)k);
        put(&l, ": label ");
        put_uint(&l, (uint32_t)best);
        put(&l, " (true ");
        put_uint(&l, mcu_labels[k]);
        put(&l, ") scores");
        for (j = 0; j < y->dims[1]; ++j) {
            put(&l, " ");
            put_fixed6(&l, scores[j]);
        }
        put(&l, "\n");
        mcu_write(l.buf);
    }
    l.len = 0;
    put(&l, "done: ");
    put_uint(&l, (uint32_t)mcu_sample_count);
    put(&l, " samples, ");
    put_uint(&l, mcu_stack_used());
    put(&l, " bytes of stack at most, ");
    put_uint(&l, ticks);
    put(&l, " SysTick cycles in the runs\n");
    mcu_write(l.buf);
    mmd_session_destroy(s);
    return 0;
}
