/* tests/test_bad_models.c - hostile model bytes give the documented status, never a crash.

   Usage: test_bad_models [DIR]   (default tests/bad_models)
     DIR/expected.txt lists `case STATUS` (STATUS is an mmd_status name without MMD_); each case
     is DIR/case.onnx, written by tests/gen_bad_models.py. A case passes when loading it (and, if
     that succeeds, prepare and run on zero inputs of the declared shapes) returns STATUS, err
     agrees, and a failure comes with a message. mmd_session_arena_size must refuse the same bytes
     with the same status.

   Two sweeps follow over the models that expect OK: every proper prefix of each must fail with
   MALFORMED or INVALID_MODEL, and every single-byte corruption must give some status without a
   crash. Each model is read into a buffer of exactly its size, so that under
   -fsanitize=address a read one byte past the end is caught. Closing line: `N passed, M failed`.
   Cases run in the order of expected.txt and stdout is line-buffered, so a crash belongs to the
   case after the last line printed. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs larger than this are not run in the byte-flip sweep: a flipped dim may declare a big,
   legal input, and zero-filling it would only cost time. */
#define TEST_SWEEP_MAX_INPUT_BYTES ((size_t)16 << 20)
#define TEST_MAX_CASES 256

static const char *const test__status_names[] = {
#define TEST__STATUS_NAME(name, str) #name,
    MMD_STATUS_LIST(TEST__STATUS_NAME)
#undef TEST__STATUS_NAME
};

static int test__passed, test__failed;

static void test__result(int ok, const char *name, const char *why) {
    if (ok) {
        ++test__passed;
        printf("ok %s\n", name);
    } else {
        ++test__failed;
        printf("FAIL %s: %s\n", name, why);
    }
}

static const char *test__status_name(mmd_status s) {
    return (unsigned)s < (unsigned)MMD_STATUS_COUNT ? test__status_names[s] : "?";
}

/* Status whose name is name, or MMD_STATUS_COUNT when there is none. */
static mmd_status test__status_from_name(const char *name) {
    int i;
    for (i = 0; i < (int)MMD_STATUS_COUNT; ++i)
        if (strcmp(test__status_names[i], name) == 0) return (mmd_status)i;
    return MMD_STATUS_COUNT;
}

/* The file in a buffer of exactly its size (1 byte for an empty file, with *size 0). */
static uint8_t *test__read_exact(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    long n;
    uint8_t *buf;
    *size = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = (uint8_t *)malloc(n ? (size_t)n : 1);
    if (buf && n && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* Loads the bytes and, when that works, binds zeros of every declared input shape, prepares
   and runs. Inputs past max_input_bytes are not run (the result is then MMD_OK). Returns the
   first failing status with err filled; *loaded tells whether mmd_session_create succeeded. */
static mmd_status test__load_and_run(const uint8_t *bytes, size_t size, size_t max_input_bytes,
                                     mmd_error *err, int *loaded) {
    mmd_session *s = NULL;
    void *inputs[64];
    int32_t n = 0, i;
    mmd_status st;
    memset(err, 0, sizeof *err);
    memset(inputs, 0, sizeof inputs);
    st = mmd_session_create(bytes, size, NULL, &s, err);
    *loaded = st == MMD_OK;
    if (st != MMD_OK) return st;
    for (i = 0; i < mmd_session_input_count(s) && st == MMD_OK; ++i, ++n) {
        const mmd_tensor *t = mmd_session_input(s, i);
        size_t nbytes = 0;
        if (i == 64) {
            st = mmd_error_set(err, MMD_ERR_LIMIT, -1, "", "test: more than 64 inputs");
            break;
        }
        st = mmd_tensor_nbytes(t, &nbytes, err);
        if (st != MMD_OK) break;
        if (nbytes > max_input_bytes) goto done;
        inputs[i] = calloc(nbytes ? nbytes : 1, 1);
        if (!inputs[i]) {
            st = mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, "", "test: input of %zu bytes",
                               nbytes);
            break;
        }
        st = mmd_session_set_input(s, i, t->dtype, t->rank, t->dims, inputs[i], err);
    }
    if (st == MMD_OK) st = mmd_session_prepare(s, err);
    if (st == MMD_OK) st = mmd_session_run(s, err);
done:
    mmd_session_destroy(s);
    for (i = 0; i < n && i < 64; ++i) free(inputs[i]);
    return st;
}

/* One corpus case: 1 when it behaves as expected, else 0 with the reason in why. */
static int test__check_case(const uint8_t *bytes, size_t size, mmd_status want, char *why,
                            size_t why_size) {
    mmd_error err, size_err;
    int loaded;
    mmd_status got = test__load_and_run(bytes, size, (size_t)-1, &err, &loaded);
    mmd_status size_status;
    size_t arena_bytes = 0;
    if (got != want) {
        snprintf(why, why_size, "got %s (%s), want %s", test__status_name(got), err.msg,
                 test__status_name(want));
        return 0;
    }
    if (got != MMD_OK && (err.status != got || err.msg[0] == '\0')) {
        snprintf(why, why_size, "returned %s but err has status %s and message '%s'",
                 test__status_name(got), test__status_name(err.status), err.msg);
        return 0;
    }
    memset(&size_err, 0, sizeof size_err);
    size_status = mmd_session_arena_size(bytes, size, &arena_bytes, &size_err);
    /* The size query loads and plans like mmd_session_create, so it must agree with it. */
    if (size_status != (loaded ? MMD_OK : got)) {
        snprintf(why, why_size, "mmd_session_arena_size gives %s (%s), mmd_session_create %s",
                 test__status_name(size_status), size_err.msg,
                 test__status_name(loaded ? MMD_OK : got));
        return 0;
    }
    return 1;
}

/* Every proper prefix of a valid model must be refused as malformed or invalid. */
static void test__sweep_truncations(char **names, uint8_t **models, size_t *sizes, int count) {
    char why[512];
    int m, ok = 1;
    long tried = 0;
    why[0] = '\0';
    for (m = 0; m < count && ok; ++m) {
        size_t cut;
        for (cut = 0; cut < sizes[m] && ok; ++cut) {
            mmd_error err;
            mmd_status st;
            int loaded;
            /* Copied so the buffer ends exactly at the cut, for ASan. */
            uint8_t *prefix = (uint8_t *)malloc(cut ? cut : 1);
            if (!prefix) break;
            memcpy(prefix, models[m], cut);
            st = test__load_and_run(prefix, cut, (size_t)-1, &err, &loaded);
            free(prefix);
            ++tried;
            if ((st != MMD_ERR_MALFORMED && st != MMD_ERR_INVALID_MODEL) || err.msg[0] == '\0') {
                snprintf(why, sizeof why, "%s cut at %zu of %zu bytes: got %s (%s)", names[m],
                         cut, sizes[m], test__status_name(st), err.msg);
                ok = 0;
            }
        }
    }
    if (ok) snprintf(why, sizeof why, "%ld prefixes", tried);
    test__result(ok, "sweep_truncations", why);
}

/* Every byte of each valid model replaced by a few values that upset decoders: the status may
   be anything, but a failure must carry a message and nothing may crash. */
static void test__sweep_byte_flips(char **names, uint8_t **models, size_t *sizes, int count) {
    static const uint8_t values[] = {0x00, 0x7f, 0x80, 0xff};
    char why[512];
    int m, ok = 1;
    long tried = 0;
    why[0] = '\0';
    for (m = 0; m < count && ok; ++m) {
        uint8_t *copy = (uint8_t *)malloc(sizes[m] ? sizes[m] : 1);
        size_t pos, v;
        if (!copy) break;
        memcpy(copy, models[m], sizes[m]);
        for (pos = 0; pos < sizes[m] && ok; ++pos) {
            for (v = 0; v < sizeof values && ok; ++v) {
                mmd_error err;
                mmd_status st;
                int loaded;
                if (models[m][pos] == values[v]) continue;
                copy[pos] = values[v];
                st = test__load_and_run(copy, sizes[m], TEST_SWEEP_MAX_INPUT_BYTES, &err, &loaded);
                ++tried;
                if (st != MMD_OK && (err.status != st || err.msg[0] == '\0')) {
                    snprintf(why, sizeof why,
                             "%s byte %zu set to 0x%02x: %s with err status %s, message '%s'",
                             names[m], pos, (unsigned)values[v], test__status_name(st),
                             test__status_name(err.status), err.msg);
                    ok = 0;
                }
            }
            copy[pos] = models[m][pos];
        }
        free(copy);
    }
    if (ok) snprintf(why, sizeof why, "%ld corruptions", tried);
    test__result(ok, "sweep_byte_flips", why);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "tests/bad_models";
    char path[1024], line[512];
    char *valid_names[TEST_MAX_CASES];
    uint8_t *valid_models[TEST_MAX_CASES];
    size_t valid_sizes[TEST_MAX_CASES];
    int valid_count = 0, i;
    FILE *list;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strlen(dir) > sizeof path - 64) {
        fprintf(stderr, "directory name too long\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    list = fopen(path, "r");
    if (!list) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    while (fgets(line, sizeof line, list)) {
        char name[256], status_name[64], why[640];
        uint8_t *bytes;
        size_t size;
        mmd_status want;
        if (line[0] == '#' || sscanf(line, "%255s %63s", name, status_name) != 2) continue;
        want = test__status_from_name(status_name);
        if (want == MMD_STATUS_COUNT) {
            snprintf(why, sizeof why, "unknown status '%s' in expected.txt", status_name);
            test__result(0, name, why);
            continue;
        }
        snprintf(path, sizeof path, "%s/%s.onnx", dir, name);
        bytes = test__read_exact(path, &size);
        if (!bytes) {
            test__result(0, name, "cannot read the model file");
            continue;
        }
        why[0] = '\0';
        test__result(test__check_case(bytes, size, want, why, sizeof why), name, why);
        if (want == MMD_OK && valid_count < TEST_MAX_CASES) {
            valid_names[valid_count] = (char *)malloc(strlen(name) + 1);
            if (valid_names[valid_count]) {
                strcpy(valid_names[valid_count], name);
                valid_models[valid_count] = bytes;
                valid_sizes[valid_count++] = size;
                continue;
            }
        }
        free(bytes);
    }
    fclose(list);

    test__sweep_truncations(valid_names, valid_models, valid_sizes, valid_count);
    test__sweep_byte_flips(valid_names, valid_models, valid_sizes, valid_count);
    for (i = 0; i < valid_count; ++i) {
        free(valid_names[i]);
        free(valid_models[i]);
    }
    printf("%d passed, %d failed\n", test__passed, test__failed);
    return test__failed ? 1 : 0;
}
