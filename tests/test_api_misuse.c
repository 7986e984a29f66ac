/* tests/test_api_misuse.c - a caller misusing the C API gets a status with a message, never a
   crash: calls out of order, bindings that do not fit the model, an arena one byte short, NULL
   for every pointer argument of every public function, a session used after destroy.

   Models come from tests/data/core (tests/gen_core_models.py); run from the repo root. Meant to
   run under ASan + UBSan too (`make asan-test`), which turns a silent misstep into a report.

   What cannot be detected, and so is not tested: a session used after mmd_session_destroy when
   its arena was on the heap (destroy freed that memory; ASan reports the use), a data pointer
   freed by the caller while still bound, model bytes freed while weights are read in place
   (copy_weights = 1 lifts that one), and one session used by two threads at once. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef struct model_bytes { unsigned char *data; size_t size; } model_bytes;

static model_bytes load(const char *name) {
    char path[256];
    model_bytes b = {NULL, 0};
    FILE *f;
    long n;
    snprintf(path, sizeof(path), "tests/data/core/%s.onnx", name);
    if (!(f = fopen(path, "rb"))) { fprintf(stderr, "cannot open %s\n", path); return b; }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b.data = (unsigned char *)malloc((size_t)n)) != NULL)
        b.size = fread(b.data, 1, (size_t)n, f);
    fclose(f);
    return b;
}

/* A failure as the API promises it: the status returned, the same status in err, and text. */
static int fails_with(mmd_status got, const mmd_error *err, mmd_status want) {
    if (got == want && err->status == want && err->msg[0]) return 1;
    fprintf(stderr, "  got %s (err: %s, '%s'), want %s\n", mmd_status_string(got),
            mmd_status_string(err->status), err->msg, mmd_status_string(want));
    return 0;
}

/* ---- call order ---------------------------------------------------------------------------- */

static void run_before_any_binding_names_the_unbound_input(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(fails_with(mmd_session_run(s, &err), &err, MMD_ERR_NOT_READY));
    CHECK(strstr(err.msg, "'x'") != NULL);
    /* Without an err to fill the status still comes back. */
    CHECK(mmd_session_run(s, NULL) == MMD_ERR_NOT_READY);
    mmd_session_destroy(s);
    free(b.data);
}

static void prepare_without_bind_plans_but_run_stays_not_ready(void) {
    model_bytes b = load("relu_chain");
    mmd_session *s = NULL;
    mmd_error err = {0};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    CHECK(fails_with(mmd_session_run(s, &err), &err, MMD_ERR_NOT_READY));
    CHECK(strstr(err.msg, "not bound") != NULL);
    mmd_session_destroy(s);
    free(b.data);
}

static void run_after_new_shape_without_prepare_is_not_ready(void) {
    model_bytes b = load("relu_chain");
    mmd_session *s = NULL;
    mmd_error err = {0};
    static float x[4 * 1000];
    int64_t dims[2] = {4, 1000};
    size_t size = 0;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    CHECK(fails_with(mmd_session_run(s, &err), &err, MMD_ERR_NOT_READY));
    CHECK(strstr(err.msg, "mmd_session_prepare") != NULL);
    /* A stale plan cannot be written as a blob either. */
    CHECK(fails_with(mmd_session_write_blob(s, NULL, 0, &size, &err), &err, MMD_ERR_NOT_READY));
    mmd_session_destroy(s);
    free(b.data);
}

/* ---- bindings that do not fit the model -------------------------------------------------- */

static void binding_wrong_dtype_is_dtype_error_naming_both_types(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    int64_t x[6] = {0}, dims[2] = {2, 3};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_INT64, 2, dims, x, &err), &err, MMD_ERR_DTYPE));
    CHECK(strstr(err.msg, "float32") != NULL && strstr(err.msg, "int64") != NULL);
    CHECK(fails_with(mmd_session_set_input(s, 0, 999, 2, dims, x, &err), &err, MMD_ERR_DTYPE));
    mmd_session_destroy(s);
    free(b.data);
}

static void binding_wrong_shape_is_shape_error(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    float x[6] = {0};
    int64_t dims[MMD_MAX_RANK + 1] = {2, 3}, negative[2] = {-2, 3}, transposed[2] = {3, 2};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 1, dims, x, &err), &err, MMD_ERR_SHAPE));
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, -1, dims, x, &err), &err, MMD_ERR_SHAPE));
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, MMD_MAX_RANK + 1, dims, x, &err), &err,
                     MMD_ERR_SHAPE));
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, negative, x, &err), &err, MMD_ERR_SHAPE));
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, transposed, x, &err), &err, MMD_ERR_SHAPE));
    CHECK(strstr(err.msg, "dim 0 is 3") != NULL);
    mmd_session_destroy(s);
    free(b.data);
}

static void binding_a_huge_symbolic_dim_is_limit(void) {
    model_bytes b = load("relu_chain");
    mmd_session *s = NULL;
    mmd_error err = {0};
    float x[1] = {0};
    int64_t huge[2] = {(int64_t)1 << 40, 1000}, wraps[2] = {(int64_t)1 << 62, 1000};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    /* The data pointer cannot be checked against the shape; the size can, before any use. */
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, huge, x, &err), &err, MMD_ERR_LIMIT));
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, wraps, x, &err), &err, MMD_ERR_LIMIT));
    mmd_session_destroy(s);
    free(b.data);
}

static void binding_bad_index_or_null_pointers_is_invalid_argument(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    float x[6] = {0};
    int64_t dims[2] = {2, 3};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(fails_with(mmd_session_set_input(s, -1, MMD_DTYPE_FLOAT32, 2, dims, x, &err), &err,
                     MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_set_input(s, 1, MMD_DTYPE_FLOAT32, 2, dims, x, &err), &err,
                     MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, NULL, x, &err), &err,
                     MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, NULL, &err), &err,
                     MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, NULL, NULL) == MMD_ERR_INVALID_ARGUMENT);
    mmd_session_destroy(s);
    free(b.data);
}

static void failed_binding_keeps_the_previous_one(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t dims[2] = {2, 3}, wrong[2] = {2, 4};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, wrong, x, &err) == MMD_ERR_SHAPE);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    CHECK(mmd_session_input(s, 0)->dims[1] == 3);
    mmd_session_destroy(s);
    free(b.data);
}

/* ---- caller arenas ------------------------------------------------------------------------- */

static void arena_one_byte_too_small_is_refused_at_the_worst_alignment(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_options opts;
    size_t need = 0;
    unsigned char *buf, *start;
    float x[6] = {0};
    int64_t dims[2] = {2, 3};
    CHECK(mmd_session_arena_size(b.data, b.size, &need, &err) == MMD_OK);
    buf = (unsigned char *)malloc(need + 32);
    /* One byte past a 16-byte boundary: the arena skips 15 bytes, the most it ever skips. */
    start = buf + (16 - (uintptr_t)buf % 16) % 16 + 1;
    memset(&opts, 0, sizeof(opts));
    opts.arena = start;
    opts.arena_size = need - 1;
    CHECK(fails_with(mmd_session_create(b.data, b.size, &opts, &s, &err), &err, MMD_ERR_ARENA_TOO_SMALL));
    CHECK(s == NULL);
    opts.arena_size = need;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    mmd_session_destroy(s);
    free(buf);
    free(b.data);
}

static void zero_or_tiny_caller_arena_is_arena_too_small(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_options opts;
    unsigned char small[24];
    memset(&opts, 0, sizeof(opts));
    opts.arena = small;
    opts.arena_size = 0;
    CHECK(fails_with(mmd_session_create(b.data, b.size, &opts, &s, &err), &err, MMD_ERR_ARENA_TOO_SMALL));
    opts.arena_size = sizeof(small);
    CHECK(fails_with(mmd_session_create(b.data, b.size, &opts, &s, &err), &err, MMD_ERR_ARENA_TOO_SMALL));
    CHECK(s == NULL);
    free(b.data);
}

static void prepare_past_the_arena_fails_and_run_is_not_ready_until_a_prepare_works(void) {
    model_bytes b = load("relu_chain");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_options opts;
    size_t need = 0;
    void *buf;
    static float x[64 * 1000];
    int64_t big[2] = {64, 1000}, one[2] = {1, 1000};
    CHECK(mmd_session_arena_size(b.data, b.size, &need, &err) == MMD_OK);
    buf = malloc(need);
    memset(&opts, 0, sizeof(opts));
    opts.arena = buf;
    opts.arena_size = need;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, big, x, &err) == MMD_OK);
    CHECK(fails_with(mmd_session_prepare(s, &err), &err, MMD_ERR_ARENA_TOO_SMALL));
    CHECK(fails_with(mmd_session_run(s, &err), &err, MMD_ERR_NOT_READY));
    CHECK(strstr(err.msg, "prepare failed") != NULL);
    /* Back to a shape that fits: the session recovers. */
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, one, x, &err) == MMD_OK);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    mmd_session_destroy(s);
    free(buf);
    free(b.data);
}

/* ---- lifetimes ------------------------------------------------------------------------------ */

static void session_used_after_destroy_in_a_caller_arena_is_refused(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_options opts;
    mmd_plan_stats stats;
    mmd_status backend_st;
    size_t need = 0, size = 0;
    void *buf;
    float x[6] = {0};
    int64_t dims[2] = {2, 3};
    CHECK(mmd_session_arena_size(b.data, b.size, &need, &err) == MMD_OK);
    buf = malloc(need);
    memset(&opts, 0, sizeof(opts));
    opts.arena = buf;
    opts.arena_size = need;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    mmd_session_destroy(s);
    /* The arena's memory is the caller's and still readable, so the dead session is seen. */
    CHECK(fails_with(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err), &err,
                     MMD_ERR_INVALID_ARGUMENT));
    CHECK(strstr(err.msg, "destroyed") != NULL);
    CHECK(fails_with(mmd_session_prepare(s, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_run(s, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_write_blob(s, NULL, 0, &size, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_session_input_count(s) == 0 && mmd_session_output_count(s) == 0);
    CHECK(mmd_session_input(s, 0) == NULL && mmd_session_output(s, 0) == NULL);
    CHECK(mmd_session_find_input(s, "x") == -1 && mmd_session_find_output(s, "y") == -1);
    mmd_session_stats(s, &stats);
    CHECK(stats.arena_bytes == 0);
    CHECK(mmd_session_backend_count(s) == 0 && mmd_session_backend(s, 0) == NULL);
    CHECK(mmd_session_backend_status(s, 0, &backend_st, NULL) == MMD_ERR_INDEX);
    CHECK(mmd_session_node_backend(s, 0) == -1);
    mmd_session_set_profiler(s, NULL, NULL);
    mmd_session_destroy(s); /* a second destroy does nothing */
    free(buf);
    free(b.data);
}

static void model_bytes_may_be_freed_after_create_with_copy_weights(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_options opts;
    float x[6] = {1, 2, 3, -1, 0, 1};
    int64_t dims[2] = {2, 3};
    memset(&opts, 0, sizeof(opts));
    opts.copy_weights = 1;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    /* Overwritten and freed: under ASan any read of the bytes from here on is a report. */
    memset(b.data, 0xff, b.size);
    free(b.data);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    /* numpy: x @ (arange(12).reshape(4,3)/10).T + [0.5,-0.5,1,-1], first element */
    CHECK_NEAR(((const float *)mmd_session_output(s, 0)->data)[0], 1.3f, 1e-6);
    mmd_session_destroy(s);
}

/* ---- NULL for every pointer argument -------------------------------------------------------- */

static void null_model_bytes_or_out_pointer_at_create_is_refused(void) {
    mmd_session *s = (mmd_session *)&s;
    mmd_error err = {0};
    size_t need = 0;
    CHECK(fails_with(mmd_session_create(NULL, 0, NULL, &s, &err), &err, MMD_ERR_MALFORMED));
    CHECK(s == NULL);
    CHECK(fails_with(mmd_session_create(NULL, 16, NULL, &s, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_create("x", 1, NULL, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_session_create(NULL, 16, NULL, &s, NULL) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(fails_with(mmd_session_arena_size(NULL, 0, &need, &err), &err, MMD_ERR_MALFORMED));
    CHECK(fails_with(mmd_session_arena_size("x", 1, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_session_arena_size(NULL, 16, &need, NULL) == MMD_ERR_INVALID_ARGUMENT);
}

static void null_session_is_refused_by_every_session_function(void) {
    mmd_error err = {0};
    mmd_plan_stats stats;
    mmd_status backend_st;
    const char *msg;
    size_t size = 0;
    int64_t dims[1] = {1};
    float x[1] = {0};
    CHECK(fails_with(mmd_session_set_input(NULL, 0, MMD_DTYPE_FLOAT32, 1, dims, x, &err), &err,
                     MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_prepare(NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_run(NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_session_write_blob(NULL, NULL, 0, &size, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_session_prepare(NULL, NULL) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(mmd_session_run(NULL, NULL) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(mmd_session_input_count(NULL) == 0 && mmd_session_output_count(NULL) == 0);
    CHECK(mmd_session_input(NULL, 0) == NULL && mmd_session_output(NULL, 0) == NULL);
    CHECK(mmd_session_find_input(NULL, "x") == -1 && mmd_session_find_output(NULL, "x") == -1);
    memset(&stats, 0xff, sizeof(stats));
    mmd_session_stats(NULL, &stats);
    CHECK(stats.arena_bytes == 0 && stats.node_count == 0);
    mmd_session_stats(NULL, NULL);
    CHECK(mmd_session_backend_count(NULL) == 0 && mmd_session_backend(NULL, 0) == NULL);
    CHECK(mmd_session_backend_status(NULL, 0, &backend_st, &msg) == MMD_ERR_INDEX);
    CHECK(mmd_session_node_backend(NULL, 0) == -1);
    mmd_session_set_profiler(NULL, NULL, NULL);
    mmd_session_destroy(NULL);
}

static void null_or_out_of_range_arguments_on_a_live_session_are_refused(void) {
    model_bytes b = load("gemm_fixed");
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_status backend_st = MMD_OK;
    size_t size = 0;
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_input(s, -1) == NULL && mmd_session_input(s, 1) == NULL);
    CHECK(mmd_session_output(s, -1) == NULL && mmd_session_output(s, 1) == NULL);
    CHECK(mmd_session_find_input(s, NULL) == -1 && mmd_session_find_output(s, NULL) == -1);
    CHECK(mmd_session_find_input(s, "no such input") == -1);
    CHECK(fails_with(mmd_session_write_blob(s, NULL, 0, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_session_write_blob(s, NULL, 0, &size, &err) == MMD_OK && size > 0);
    CHECK(mmd_session_backend_status(s, 0, &backend_st, NULL) == MMD_ERR_INDEX);
    CHECK(mmd_session_node_backend(s, -1) == -1 && mmd_session_node_backend(s, 1 << 30) == -1);
    mmd_session_stats(s, NULL);
    mmd_session_destroy(s);
    free(b.data);
}

static void null_arguments_to_status_dtype_tensor_and_arena_helpers_are_safe(void) {
    mmd_error err = {0};
    mmd_tensor t;
    mmd_arena a;
    size_t n = 1;
    CHECK(strcmp(mmd_status_string(MMD_STATUS_COUNT), "unknown status") == 0);
    CHECK(strcmp(mmd_status_string((mmd_status)-1), "unknown status") == 0);
    CHECK(mmd_error_set(NULL, MMD_ERR_SHAPE, -1, NULL, "%s", "x") == MMD_ERR_SHAPE);
    CHECK(mmd_error_set(&err, MMD_ERR_SHAPE, 3, NULL, NULL) == MMD_ERR_SHAPE);
    CHECK(err.status == MMD_ERR_SHAPE && err.node == 3 && err.op[0] == '\0' && err.msg[0] == '\0');
    CHECK(mmd_error_set(&err, MMD_ERR_SHAPE, -1, NULL, "%s", (const char *)NULL) == MMD_ERR_SHAPE);
    CHECK(strcmp(err.msg, "(null)") == 0);
    CHECK(mmd_dtype_size(-1) == 0 && mmd_dtype_size(MMD_DTYPE_STRING) == 0 && mmd_dtype_size(1000) == 0);
    CHECK(strcmp(mmd_dtype_name(1000), "?") == 0);
    CHECK(mmd_tensor_numel(NULL) == 0);
    CHECK(fails_with(mmd_tensor_nbytes(NULL, &n, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    memset(&t, 0, sizeof(t));
    t.dtype = MMD_DTYPE_FLOAT32;
    CHECK(fails_with(mmd_tensor_nbytes(&t, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    t.rank = MMD_MAX_RANK + 1;
    CHECK(fails_with(mmd_tensor_nbytes(&t, &n, &err), &err, MMD_ERR_LIMIT));
    mmd_arena_init(NULL, NULL, 0, 1);
    CHECK(mmd_arena_alloc(NULL, 16, &err) == NULL && err.status == MMD_ERR_INVALID_ARGUMENT);
    mmd_arena_reset(NULL, 0);
    mmd_arena_release(NULL);
    mmd_arena_init(&a, NULL, 0, 0); /* no buffer, no heap: every allocation fails */
    CHECK(mmd_arena_alloc(&a, 1, &err) == NULL && err.status == MMD_ERR_ARENA_TOO_SMALL);
    mmd_arena_init(&a, NULL, 0, 1);
    CHECK(mmd_arena_alloc(&a, (size_t)-1, &err) == NULL && err.status == MMD_ERR_LIMIT);
    mmd_arena_release(&a);
}

static void null_arguments_to_model_attribute_and_plan_functions_are_safe(void) {
    model_bytes b = load("gemm_fixed");
    mmd_error err = {0};
    mmd_arena a;
    mmd_model *m = NULL;
    mmd_tensor t;
    mmd_kernel_ctx c;
    int64_t i = 7;
    size_t size = 0;
    mmd_arena_init(&a, NULL, 0, 1);
    CHECK(fails_with(mmd_model_parse(NULL, b.data, b.size, 0, &m, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_model_parse(&a, b.data, b.size, 0, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_model_parse(&a, NULL, 5, 0, &m, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_tensor_proto_decode(NULL, "", 0, &t, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_tensor_proto_decode(&a, "", 0, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_tensor_proto_decode(&a, NULL, 3, &t, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_model_opset(NULL, "") == 0);
    CHECK(mmd_model_find_tensor(NULL, "w") == -1);
    CHECK(mmd_model_parse(&a, b.data, b.size, 0, &m, &err) == MMD_OK);
    CHECK(mmd_model_find_tensor(m, NULL) == -1);
    CHECK(mmd_node_attr(NULL, "transB") == NULL && mmd_node_attr(&m->nodes[0], NULL) == NULL);
    CHECK(mmd_tensor_is_const(NULL) == 0);
    CHECK(fails_with(mmd_graph_plan(NULL, &a, NULL, NULL, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_graph_plan(m, NULL, NULL, NULL, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_graph_run(NULL, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_blob_write(NULL, 0, NULL, 0, &size, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_blob_write(m, 0, NULL, 0, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    /* The kernel API, as a (buggy) kernel or backend might call it. */
    CHECK(mmd_kernel_fail(NULL, MMD_ERR_SHAPE, "%d", 1) == MMD_ERR_SHAPE);
    CHECK(mmd_attr_get_int(NULL, "transB", 0, &i) == MMD_ERR_INVALID_ARGUMENT);
    memset(&c, 0, sizeof(c));
    c.node = &m->nodes[0];
    c.err = &err;
    CHECK(fails_with(mmd_attr_get_int(&c, NULL, 0, &i), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(mmd_attr_get_int(&c, "transB", 0, NULL) == MMD_OK);
    CHECK(mmd_attr_get_int(&c, "transB", 0, &i) == MMD_OK && i == 1);
    CHECK(mmd_attr_get_ints(&c, "transB", NULL, NULL) == MMD_ERR_INVALID_MODEL);
    CHECK(mmd_attr_get_floats(&c, "absent", NULL, NULL) == MMD_OK);
    CHECK(mmd_attr_get_float(&c, "absent", 0.0f, NULL) == MMD_OK);
    CHECK(mmd_attr_get_string(&c, "absent", "", NULL) == MMD_OK);
    CHECK(mmd_attr_get_tensor(&c, "absent", NULL) == MMD_OK);
    CHECK(mmd_ops_find(NULL, NULL, 13) == NULL && mmd_ops_find(NULL, "Relu", 13) != NULL);
    CHECK(mmd_ops_at(mmd_ops_count()) == NULL);
    mmd_arena_release(&a);
    free(b.data);
}

static void null_arguments_to_backend_functions_are_safe(void) {
    mmd_backend_registry r;
    mmd_backend nameless;
    mmd_error err = {0};
    memset(&r, 0, sizeof(r));
    memset(&nameless, 0, sizeof(nameless));
    nameless.abi_version = MMD_BACKEND_ABI_VERSION;
    CHECK(fails_with(mmd_backend_register(NULL, &nameless, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_backend_register(&r, NULL, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(fails_with(mmd_backend_register(&r, &nameless, &err), &err, MMD_ERR_INVALID_ARGUMENT));
    CHECK(r.count == 0);
    CHECK(mmd_backend_find(NULL, "x") == NULL && mmd_backend_find(&r, NULL) == NULL);
    CHECK(mmd_backend_match(NULL, 3, NULL, 0) == NULL);
}

int main(void) {
    TEST_RUN(run_before_any_binding_names_the_unbound_input);
    TEST_RUN(prepare_without_bind_plans_but_run_stays_not_ready);
    TEST_RUN(run_after_new_shape_without_prepare_is_not_ready);
    TEST_RUN(binding_wrong_dtype_is_dtype_error_naming_both_types);
    TEST_RUN(binding_wrong_shape_is_shape_error);
    TEST_RUN(binding_a_huge_symbolic_dim_is_limit);
    TEST_RUN(binding_bad_index_or_null_pointers_is_invalid_argument);
    TEST_RUN(failed_binding_keeps_the_previous_one);
    TEST_RUN(arena_one_byte_too_small_is_refused_at_the_worst_alignment);
    TEST_RUN(zero_or_tiny_caller_arena_is_arena_too_small);
    TEST_RUN(prepare_past_the_arena_fails_and_run_is_not_ready_until_a_prepare_works);
    TEST_RUN(session_used_after_destroy_in_a_caller_arena_is_refused);
    TEST_RUN(model_bytes_may_be_freed_after_create_with_copy_weights);
    TEST_RUN(null_model_bytes_or_out_pointer_at_create_is_refused);
    TEST_RUN(null_session_is_refused_by_every_session_function);
    TEST_RUN(null_or_out_of_range_arguments_on_a_live_session_are_refused);
    TEST_RUN(null_arguments_to_status_dtype_tensor_and_arena_helpers_are_safe);
    TEST_RUN(null_arguments_to_model_attribute_and_plan_functions_are_safe);
    TEST_RUN(null_arguments_to_backend_functions_are_safe);
    return test_summary();
}
