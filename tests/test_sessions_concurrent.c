/* tests/test_sessions_concurrent.c - two sessions of one model, run at the same time on two
   threads, give the results one session gives alone, bit for bit.

   Usage: test_sessions_concurrent [MODEL.onnx...]   (default: the digits classifier and two
   rewrite test models, from the repository root)

   Sessions share nothing but the model bytes, which both read in place (weights are not copied)
   and neither writes. For each model a reference session on the calling thread runs the
   float32 inputs (symbolic dims as 3, values a fixed pattern) once; then two threads each create
   their own session from the same bytes, with 2 threads of its own (so two pools run at once),
   run it TEST_RUNS times and compare every output with the reference. Cheap enough for make
   test; under ThreadSanitizer (make tsan-test) it is also the check that nothing is shared. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"

#include <pthread.h>
#include <string.h>

#include "test.h"

#define TEST_RUNS 8
#define TEST_MAX_IO 8

typedef struct test_job {
    const test_bytes *model;
    int32_t threads;
    void *inputs[TEST_MAX_IO];        /* shared, read only */
    void *outputs[TEST_MAX_IO];       /* this job's copies of the outputs of its last run */
    size_t out_bytes[TEST_MAX_IO];
    int32_t output_count;
    int32_t runs;                     /* runs whose outputs matched want (all of them when OK) */
    const struct test_job *want;      /* NULL for the reference */
    mmd_status status;
    mmd_error err;
} test_job;

/* Creates a session, binds the inputs (allocating them on the first job, which has no want),
   runs it `runs` times and compares or keeps the outputs. */
static void *test__job(void *arg) {
    test_job *j = (test_job *)arg;
    mmd_session *s = NULL;
    mmd_options opts;
    int32_t i, r, runs = j->want ? TEST_RUNS : 1;
    memset(&opts, 0, sizeof opts);
    opts.threads = j->threads;
    j->status = mmd_session_create(j->model->data, j->model->size, &opts, &s, &j->err);
    for (i = 0; j->status == MMD_OK && i < mmd_session_input_count(s) && i < TEST_MAX_IO; ++i) {
        const mmd_tensor *t = mmd_session_input(s, i);
        int64_t dims[MMD_MAX_RANK], n = 1, k;
        int32_t d;
        for (d = 0; d < t->rank; ++d) n *= dims[d] = t->dim_params[d] ? 3 : t->dims[d];
        if (!j->want) {
            float *x = (float *)malloc((size_t)n * sizeof(float) + 1);
            for (k = 0; k < n; ++k) x[k] = (float)((k * 7919) % 255 - 127) / 64.0f;
            j->inputs[i] = x;
        }
        j->status = mmd_session_set_input(s, i, MMD_DTYPE_FLOAT32, t->rank, dims, j->inputs[i], &j->err);
    }
    if (j->status == MMD_OK) j->status = mmd_session_prepare(s, &j->err);
    for (r = 0; j->status == MMD_OK && r < runs; ++r) {
        int32_t same = 1;
        if ((j->status = mmd_session_run(s, &j->err)) != MMD_OK) break;
        j->output_count = mmd_session_output_count(s) < TEST_MAX_IO ? mmd_session_output_count(s) : TEST_MAX_IO;
        for (i = 0; i < j->output_count; ++i) {
            const mmd_tensor *t = mmd_session_output(s, i);
            size_t n = 0;
            mmd_tensor_nbytes(t, &n, &j->err);
            if (!j->outputs[i]) j->outputs[i] = malloc(n + 1);
            memcpy(j->outputs[i], t->data, n);
            j->out_bytes[i] = n;
            if (j->want && (n != j->want->out_bytes[i] || memcmp(j->outputs[i], j->want->outputs[i], n) != 0))
                same = 0;
        }
        j->runs += same;
    }
    mmd_session_destroy(s);
    return NULL;
}

static void test__free(test_job *j, int32_t inputs) {
    int32_t i;
    for (i = 0; i < TEST_MAX_IO; ++i) {
        if (inputs) free(j->inputs[i]);
        free(j->outputs[i]);
    }
}

static void test_model(const char *path) {
    test_bytes model = test_read_file(path);
    test_job ref, two[2];
    pthread_t th[2];
    int32_t k;
    memset(&ref, 0, sizeof ref);
    CHECK(model.data != NULL);
    if (!model.data) return;
    ref.model = &model;
    ref.threads = 1;
    test__job(&ref);
    if (ref.status != MMD_OK) fprintf(stderr, "%s: reference: %s\n", path, ref.err.msg);
    CHECK(ref.status == MMD_OK && ref.output_count > 0);
    for (k = 0; k < 2; ++k) {
        memset(&two[k], 0, sizeof two[k]);
        two[k].model = &model;
        two[k].threads = 2;
        two[k].want = &ref;
        memcpy(two[k].inputs, ref.inputs, sizeof ref.inputs);
    }
    for (k = 0; k < 2; ++k) CHECK(pthread_create(&th[k], NULL, test__job, &two[k]) == 0);
    for (k = 0; k < 2; ++k) {
        pthread_join(th[k], NULL);
        if (two[k].status != MMD_OK) fprintf(stderr, "%s: thread %d: %s\n", path, (int)k, two[k].err.msg);
        CHECK(two[k].status == MMD_OK);
        if (two[k].runs != TEST_RUNS)
            fprintf(stderr, "%s: thread %d: %d of %d runs match the reference\n", path, (int)k, (int)two[k].runs,
                    TEST_RUNS);
        CHECK(two[k].runs == TEST_RUNS);
        test__free(&two[k], 0);
    }
    test__free(&ref, 1);
    free(model.data);
    printf("%s: 2 sessions x %d runs on 2 threads each, outputs identical to one session's\n", path, TEST_RUNS);
}

static const char *const *test__models;
static int test__model_count;

static void test_two_sessions_on_two_threads(void) {
    int i;
    for (i = 0; i < test__model_count; ++i) test_model(test__models[i]);
}

int main(int argc, char **argv) {
    static const char *const defaults[] = {"examples/models/digits.onnx", "tests/data/rewrites/residual.onnx",
                                           "tests/data/rewrites/conv_bn_relu.onnx"};
    test__models = argc > 1 ? (const char *const *)(argv + 1) : defaults;
    test__model_count = argc > 1 ? argc - 1 : (int)(sizeof defaults / sizeof defaults[0]);
    TEST_RUN(test_two_sessions_on_two_threads);
    return test_summary();
}
