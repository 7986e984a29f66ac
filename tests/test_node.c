/* tests/test_node.c - runs the ONNX backend node tests against mmdeploy.h.

   Usage: test_node DIR EXPECTED_FAIL_LIST [FILTER]
     DIR holds one directory per test (test_NAME/model.onnx, test_NAME/test_data_set_N/input_K.pb
     and output_K.pb), as written by tests/gen_node_tests.py into DIR/node. FILTER, when given, runs
     only the tests whose name contains it (and then stale list entries are not reported). The
     environment variable MMD_TEST_THREADS, when set, is each session's mmd_options.threads (the
     built-in pool; make tsan-test runs the tests at 2 and 4 threads).

   Each test prints `ok name` or `FAIL name: reason`. A test in the expected-failure list that
   fails prints `XFAIL name: reason` and is counted as skipped; one that passes prints
   `XPASS name: remove from list` and counts as failed, so the list can only shrink; so does a
   list entry that names no test (`STALE name`). The closing line is `N passed, M failed, K skipped`
   and the exit status is non-zero when M is. Outputs are compared as the ONNX backend tests do:
   same dtype and shape, floats within rtol 1e-3 and atol 1e-7 (NaN equals NaN), everything
   else exact.

   Every test runs in this process. A crash names the test that caused it: fatal signals and
   sanitizer reports print `CRASH name` before the process dies, and a per-test alarm turns a
   test that never ends into `CRASH name: timeout`. */
/* POSIX for directories, signals and alarm; XSI for sigaltstack. */
#define _XOPEN_SOURCE 700
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

/* Seconds one test may take before it is declared stuck; sanitizer builds are slow. */
#define TEST_TIMEOUT_SECONDS 120u
#define TEST_RTOL 1e-3
#define TEST_ATOL 1e-7
#define TEST_MAX_IO 64
#define TEST_REASON_SIZE 512

/* ==== >>crash attribution ==== */

/* The test being run, for the signal handlers: a fixed buffer, since they may only call
   async-signal-safe functions and must not chase pointers into freed memory. */
static char test__current[256];

static void test__write_str(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void test__report_crash(const char *what) {
    test__write_str("\nCRASH ");
    test__write_str(test__current);
    test__write_str(": ");
    test__write_str(what);
    test__write_str("\n");
}

static void test__on_signal(int sig) {
    const char *what = "fatal signal";
    if (sig == SIGALRM) what = "timeout";
    else if (sig == SIGSEGV) what = "SIGSEGV";
    else if (sig == SIGBUS) what = "SIGBUS";
    else if (sig == SIGFPE) what = "SIGFPE";
    else if (sig == SIGILL) what = "SIGILL";
    else if (sig == SIGABRT) what = "SIGABRT";
    test__report_crash(what);
    /* Die of the same signal so the exit status and any core dump stay truthful. */
    signal(sig, SIG_DFL);
    raise(sig);
}

#ifdef __SANITIZE_ADDRESS__
static void test__on_sanitizer_death(void) { test__report_crash("sanitizer report above"); }
#endif

static void test__install_handlers(void) {
    /* Deep recursion overflows the stack, so the handler needs a stack of its own. */
    static char alt_stack[1 << 16];
    stack_t ss;
    struct sigaction sa;
    ss.ss_sp = alt_stack;
    ss.ss_size = sizeof alt_stack;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = test__on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
#ifdef __SANITIZE_ADDRESS__
    /* ASan reports faults itself, with a stack trace worth keeping; it calls us afterwards. */
    __sanitizer_set_death_callback(test__on_sanitizer_death);
#else
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
#endif
}

/* ==== >>files ==== */

static int test__read_file(const char *path, uint8_t **out, size_t *size) {
    FILE *f = fopen(path, "rb");
    long n;
    uint8_t *buf;
    *out = NULL;
    *size = 0;
    if (!f) return 0;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    /* Exactly the file's size, so that ASan catches a read one byte past the end; an empty
       file still gets a (1-byte) buffer. */
    buf = (uint8_t *)malloc(n ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return 0;
    }
    fclose(f);
    *out = buf;
    *size = (size_t)n;
    return 1;
}

/* dir + "/" + name into out; 0 (and an empty out) when it does not fit. */
static int test__join(char *out, size_t size, const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    out[0] = '\0';
    if (a + 1 + b + 1 > size) return 0;
    memcpy(out, dir, a);
    out[a] = '/';
    memcpy(out + a + 1, name, b + 1);
    return 1;
}

static int test__exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static int test__cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted names of the entries of dir that start with prefix; NULL on failure. */
static char **test__list_dir(const char *dir, const char *prefix, size_t *count) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    *count = 0;
    if (!d) return NULL;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            char **grown = (char **)realloc(names, ncap * sizeof *names);
            if (!grown) break;
            names = grown;
            cap = ncap;
        }
        names[n] = (char *)malloc(strlen(e->d_name) + 1);
        if (!names[n]) break;
        strcpy(names[n++], e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, test__cmp_str);
    *count = n;
    return names;
}

static void test__free_list(char **names, size_t count) {
    size_t i;
    for (i = 0; i < count; ++i) free(names[i]);
    free(names);
}

/* ==== >>expected failures ==== */

typedef struct test__expected {
    char **names;
    int *seen;
    size_t count;
} test__expected;

/* Reads lines `test_name  # reason`; blank lines and lines starting with '#' are skipped. */
static int test__load_expected(const char *path, test__expected *x) {
    uint8_t *buf;
    size_t size, i = 0, cap = 0;
    memset(x, 0, sizeof *x);
    if (!test__read_file(path, &buf, &size)) return 0;
    while (i < size) {
        size_t start, end;
        while (i < size && (buf[i] == ' ' || buf[i] == '\t')) ++i;
        start = i;
        while (i < size && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r' &&
               buf[i] != '#')
            ++i;
        end = i;
        while (i < size && buf[i] != '\n') ++i;
        ++i;
        if (end == start) continue;
        if (x->count == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **grown = (char **)realloc(x->names, ncap * sizeof *x->names);
            if (!grown) break;
            x->names = grown;
            cap = ncap;
        }
        x->names[x->count] = (char *)malloc(end - start + 1);
        if (!x->names[x->count]) break;
        memcpy(x->names[x->count], buf + start, end - start);
        x->names[x->count][end - start] = '\0';
        ++x->count;
    }
    free(buf);
    if (x->count) qsort(x->names, x->count, sizeof *x->names, test__cmp_str);
    x->seen = (int *)calloc(x->count + 1, sizeof *x->seen);
    return x->seen != NULL;
}

/* Index of name in the list, -1 when it is not there. */
static long test__find_expected(const test__expected *x, const char *name) {
    char **hit;
    if (!x->count) return -1;
    hit = (char **)bsearch(&name, x->names, x->count, sizeof *x->names, test__cmp_str);
    return hit ? (long)(hit - x->names) : -1;
}

/* ==== >>comparison ==== */

static float test__half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) & 1u, exp = (uint32_t)(h >> 10) & 0x1fu, man = h & 0x3ffu;
    float v;
    if (exp == 0) v = ldexpf((float)man, -24);
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = ldexpf((float)(man | 0x400u), (int)exp - 25);
    return sign ? -v : v;
}

static float test__bf16_to_float(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static int test__is_float(int32_t dtype) {
    return dtype == MMD_DTYPE_FLOAT32 || dtype == MMD_DTYPE_FLOAT64 ||
           dtype == MMD_DTYPE_FLOAT16 || dtype == MMD_DTYPE_BFLOAT16;
}

static double test__float_at(const mmd_tensor *t, int64_t i) {
    uint16_t h;
    switch (t->dtype) {
    case MMD_DTYPE_FLOAT32: return (double)((const float *)t->data)[i];
    case MMD_DTYPE_FLOAT64: return ((const double *)t->data)[i];
    case MMD_DTYPE_FLOAT16:
        memcpy(&h, (const uint8_t *)t->data + 2 * i, 2);
        return (double)test__half_to_float(h);
    default:
        memcpy(&h, (const uint8_t *)t->data + 2 * i, 2);
        return (double)test__bf16_to_float(h);
    }
}

/* The element as text, for mismatch messages. */
static void test__format_at(const mmd_tensor *t, int64_t i, char *buf, size_t size) {
    const uint8_t *p = (const uint8_t *)t->data + (size_t)i * mmd_dtype_size(t->dtype);
    int64_t sv = 0;
    uint64_t uv = 0;
    int is_signed = 1;
    if (test__is_float(t->dtype)) {
        snprintf(buf, size, "%.9g", test__float_at(t, i));
        return;
    }
    switch (t->dtype) {
    case MMD_DTYPE_INT8: { int8_t v; memcpy(&v, p, 1); sv = v; break; }
    case MMD_DTYPE_INT16: { int16_t v; memcpy(&v, p, 2); sv = v; break; }
    case MMD_DTYPE_INT32: { int32_t v; memcpy(&v, p, 4); sv = v; break; }
    case MMD_DTYPE_INT64: memcpy(&sv, p, 8); break;
    case MMD_DTYPE_BOOL: case MMD_DTYPE_UINT8: uv = *p; is_signed = 0; break;
    case MMD_DTYPE_UINT16: { uint16_t v; memcpy(&v, p, 2); uv = v; is_signed = 0; break; }
    case MMD_DTYPE_UINT32: { uint32_t v; memcpy(&v, p, 4); uv = v; is_signed = 0; break; }
    case MMD_DTYPE_UINT64: memcpy(&uv, p, 8); is_signed = 0; break;
    default: snprintf(buf, size, "?"); return;
    }
    if (is_signed) snprintf(buf, size, "%lld", (long long)sv);
    else snprintf(buf, size, "%llu", (unsigned long long)uv);
}

static void test__format_shape(const mmd_tensor *t, char *buf, size_t size) {
    size_t used = 0;
    int32_t d;
    buf[0] = '\0';
    used += (size_t)snprintf(buf + used, size - used, "[");
    for (d = 0; d < t->rank && d < MMD_MAX_RANK && used < size; ++d)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? "," : "",
                                 (long long)t->dims[d]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

/* 1 when got matches want; otherwise 0 with the reason. */
static int test__compare(const mmd_tensor *got, const mmd_tensor *want, int32_t index,
                         char *reason, size_t size) {
    char a[64], b[64];
    int64_t n, i;
    int32_t d;
    if (got->dtype != want->dtype) {
        snprintf(reason, size, "output %d dtype %s, want %s", (int)index,
                 mmd_dtype_name(got->dtype), mmd_dtype_name(want->dtype));
        return 0;
    }
    if (got->rank != want->rank) {
        test__format_shape(got, a, sizeof a);
        test__format_shape(want, b, sizeof b);
        snprintf(reason, size, "output %d shape %s, want %s", (int)index, a, b);
        return 0;
    }
    for (d = 0; d < got->rank; ++d) {
        if (got->dims[d] != want->dims[d]) {
            test__format_shape(got, a, sizeof a);
            test__format_shape(want, b, sizeof b);
            snprintf(reason, size, "output %d shape %s, want %s", (int)index, a, b);
            return 0;
        }
    }
    n = mmd_tensor_numel(want);
    if (n > 0 && (!got->data || !want->data)) {
        snprintf(reason, size, "output %d has no data", (int)index);
        return 0;
    }
    if (mmd_dtype_size(want->dtype) == 0) {
        snprintf(reason, size, "output %d has dtype %s, which cannot be compared", (int)index,
                 mmd_dtype_name(want->dtype));
        return 0;
    }
    for (i = 0; i < n; ++i) {
        int same;
        if (test__is_float(want->dtype)) {
            double g = test__float_at(got, i), w = test__float_at(want, i);
            /* Equal values pass first so that infinities of one sign match. */
            same = g == w || (isnan(g) && isnan(w)) ||
                   (!isnan(g) && fabs(g - w) <= TEST_ATOL + TEST_RTOL * fabs(w));
        } else {
            size_t es = mmd_dtype_size(want->dtype);
            same = memcmp((const uint8_t *)got->data + (size_t)i * es,
                          (const uint8_t *)want->data + (size_t)i * es, es) == 0;
        }
        if (!same) {
            test__format_at(got, i, a, sizeof a);
            test__format_at(want, i, b, sizeof b);
            snprintf(reason, size, "output %d index %lld: got %s, want %s", (int)index,
                     (long long)i, a, b);
            return 0;
        }
    }
    return 1;
}

/* ==== >>one test ==== */

/* numpy has no bfloat16, so onnx 1.12 writes bfloat16 test data as uint16 tensors holding the
   same bits. Where the model says bfloat16 and the file says uint16, the file is relabelled. */
static void test__bfloat16_quirk(mmd_tensor *file, const mmd_tensor *model) {
    if (model && model->dtype == MMD_DTYPE_BFLOAT16 && file->dtype == MMD_DTYPE_UINT16)
        file->dtype = MMD_DTYPE_BFLOAT16;
}

static void test__reason_from(char *reason, size_t size, const char *phase, const mmd_error *err) {
    snprintf(reason, size, "%s: %s: %s", phase, mmd_status_string(err->status), err->msg);
}

/* Runs one data set against an existing session; 1 on a match, else 0 with the reason. */
static int test__run_data_set(mmd_session *s, const char *set_dir, char *reason, size_t size) {
    mmd_arena arena;
    mmd_tensor inputs[TEST_MAX_IO], want;
    uint8_t *bytes[TEST_MAX_IO];
    char path[1024];
    int32_t n_in = 0, n_out = 0, i, ok = 0;
    mmd_error err;
    memset(&err, 0, sizeof err);
    memset(bytes, 0, sizeof bytes);
    mmd_arena_init(&arena, NULL, 0, 1);

    /* Inputs are bound by position: the files follow the model's graph-input order and their
       names may be empty. A non-empty name must agree with the position, which checks that the
       runtime keeps the graph's input order. */
    for (;; ++n_in) {
        char file[32];
        size_t len;
        snprintf(file, sizeof file, "input_%d.pb", (int)n_in);
        if (!test__join(path, sizeof path, set_dir, file) || !test__exists(path)) break;
        if (n_in == TEST_MAX_IO) {
            snprintf(reason, size, "more than %d inputs", TEST_MAX_IO);
            goto done;
        }
        if (!test__read_file(path, &bytes[n_in], &len)) {
            snprintf(reason, size, "cannot read %.200s", path);
            goto done;
        }
        memset(&inputs[n_in], 0, sizeof inputs[n_in]);
        if (mmd_tensor_proto_decode(&arena, bytes[n_in], len, &inputs[n_in], &err) != MMD_OK) {
            snprintf(reason, size, "decode input_%d.pb: %s: %s", (int)n_in,
                     mmd_status_string(err.status), err.msg);
            ++n_in;
            goto done;
        }
    }
    if (n_in != mmd_session_input_count(s)) {
        snprintf(reason, size, "%d input files, session has %d inputs", (int)n_in,
                 (int)mmd_session_input_count(s));
        goto done;
    }
    for (i = 0; i < n_in; ++i) {
        const char *name = inputs[i].name;
        test__bfloat16_quirk(&inputs[i], mmd_session_input(s, i));
        if (name && name[0] && mmd_session_find_input(s, name) != i) {
            snprintf(reason, size, "input_%d.pb is '%s', which the session has at %d", (int)i,
                     name, (int)mmd_session_find_input(s, name));
            goto done;
        }
        if (mmd_session_set_input(s, i, inputs[i].dtype, inputs[i].rank, inputs[i].dims,
                                  inputs[i].data, &err) != MMD_OK) {
            test__reason_from(reason, size, "set_input", &err);
            goto done;
        }
    }
    if (mmd_session_prepare(s, &err) != MMD_OK) {
        test__reason_from(reason, size, "prepare", &err);
        goto done;
    }
    if (mmd_session_run(s, &err) != MMD_OK) {
        test__reason_from(reason, size, "run", &err);
        goto done;
    }

    for (;; ++n_out) {
        uint8_t *out_bytes;
        size_t len;
        const mmd_tensor *got;
        int decoded;
        char file[32];
        snprintf(file, sizeof file, "output_%d.pb", (int)n_out);
        if (!test__join(path, sizeof path, set_dir, file) || !test__exists(path)) break;
        got = mmd_session_output(s, n_out);
        if (!got) {
            snprintf(reason, size, "output_%d.pb has no session output", (int)n_out);
            goto done;
        }
        if (!test__read_file(path, &out_bytes, &len)) {
            snprintf(reason, size, "cannot read %.200s", path);
            goto done;
        }
        memset(&want, 0, sizeof want);
        decoded = mmd_tensor_proto_decode(&arena, out_bytes, len, &want, &err) == MMD_OK;
        if (!decoded) {
            snprintf(reason, size, "decode output_%d.pb: %s: %s", (int)n_out,
                     mmd_status_string(err.status), err.msg);
        }
        if (decoded) test__bfloat16_quirk(&want, got);
        if (decoded && !test__compare(got, &want, n_out, reason, size)) decoded = 0;
        free(out_bytes);
        if (!decoded) goto done;
    }
    if (n_out != mmd_session_output_count(s)) {
        snprintf(reason, size, "%d output files, session has %d outputs", (int)n_out,
                 (int)mmd_session_output_count(s));
        goto done;
    }
    ok = 1;
done:
    /* The session may still point at the input data, but it is not run again before new
       inputs are bound, so the buffers can go now. */
    for (i = 0; i < n_in && i < TEST_MAX_IO; ++i) free(bytes[i]);
    mmd_arena_release(&arena);
    return ok;
}

/* 1 when every data set of the test matches; otherwise 0 with the reason. */
static int test__run_one(const char *test_dir, char *reason, size_t size) {
    char path[1024];
    uint8_t *model;
    size_t model_size, n_sets = 0, i;
    char **sets;
    mmd_session *s = NULL;
    mmd_options opts;
    mmd_error err;
    const char *threads = getenv("MMD_TEST_THREADS");
    int ok = 1;
    memset(&err, 0, sizeof err);
    memset(&opts, 0, sizeof opts);
    opts.threads = threads ? (int32_t)atoi(threads) : 0;
    if (!test__join(path, sizeof path, test_dir, "model.onnx") ||
        !test__read_file(path, &model, &model_size)) {
        snprintf(reason, size, "cannot read %.200s", path);
        return 0;
    }
    if (mmd_session_create(model, model_size, &opts, &s, &err) != MMD_OK) {
        test__reason_from(reason, size, "create", &err);
        free(model);
        return 0;
    }
    sets = test__list_dir(test_dir, "test_data_set_", &n_sets);
    if (!n_sets) {
        snprintf(reason, size, "no test_data_set_* directory");
        ok = 0;
    }
    for (i = 0; ok && i < n_sets; ++i) {
        if (!test__join(path, sizeof path, test_dir, sets[i])) {
            snprintf(reason, size, "path too long");
            ok = 0;
        } else {
            ok = test__run_data_set(s, path, reason, size);
        }
    }
    test__free_list(sets, n_sets);
    mmd_session_destroy(s);
    free(model);
    return ok;
}

/* ==== >>main ==== */

int main(int argc, char **argv) {
    const char *dir, *filter;
    test__expected expected;
    char **tests;
    size_t n_tests = 0, t;
    int passed = 0, failed = 0, skipped = 0;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s DIR EXPECTED_FAIL_LIST [FILTER]\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    filter = argc == 4 ? argv[3] : NULL;
    /* Line buffering keeps our lines in order with sanitizer messages on stderr. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!test__load_expected(argv[2], &expected)) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    tests = test__list_dir(dir, "test_", &n_tests);
    if (!n_tests) {
        fprintf(stderr, "no test_* directories in %s\n", dir);
        return 2;
    }
    test__install_handlers();

    for (t = 0; t < n_tests; ++t) {
        char test_dir[1024], reason[TEST_REASON_SIZE];
        long x;
        int ok;
        if (filter && !strstr(tests[t], filter)) continue;
        snprintf(test__current, sizeof test__current, "%s", tests[t]);
        reason[0] = '\0';
        alarm(TEST_TIMEOUT_SECONDS);
        if (test__join(test_dir, sizeof test_dir, dir, tests[t])) {
            ok = test__run_one(test_dir, reason, sizeof reason);
        } else {
            snprintf(reason, sizeof reason, "path too long");
            ok = 0;
        }
        alarm(0);
        x = test__find_expected(&expected, tests[t]);
        if (x >= 0) expected.seen[x] = 1;
        if (ok && x < 0) {
            ++passed;
            printf("ok %s\n", tests[t]);
        } else if (ok) {
            ++failed;
            printf("XPASS %s: remove from list\n", tests[t]);
        } else if (x >= 0) {
            ++skipped;
            printf("XFAIL %s: %s\n", tests[t], reason);
        } else {
            ++failed;
            printf("FAIL %s: %s\n", tests[t], reason);
        }
    }
    /* A list entry naming no test would hide nothing today but could hide a renamed test's
       failure tomorrow, so it counts as a failure too. */
    if (!filter) {
        size_t i;
        for (i = 0; i < expected.count; ++i) {
            if (!expected.seen[i]) {
                ++failed;
                printf("STALE %s: no such test, remove from list\n", expected.names[i]);
            }
        }
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    test__free_list(tests, n_tests);
    test__free_list(expected.names, expected.count);
    free(expected.seen);
    return failed ? 1 : 0;
}
