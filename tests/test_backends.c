/* Backend registry and dispatch tests: fake backends claim, decline, fail or run whole graphs,
   and the outputs must stay the reference kernels'. Models: examples/models/digits.onnx (Conv,
   Relu, MaxPool, GlobalAveragePool, Flatten, Gemm) and tests/data/core/relu_chain.onnx (ten
   Relu nodes). Run from the repo root. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef test_bytes blob;
#define load test_read_file

/* ---- a configurable fake backend ------------------------------------------------------- */
typedef struct fake {
    const char *claim_op;            /* claim every node of this op type; NULL claims none */
    int32_t unavailable, fail_create, bad_kernel;
    int32_t creates, destroys, claims_asked;
    long evals;
    int32_t wrong_handle;            /* an eval saw a ctx->backend other than its handle */
    int32_t last_claim_dtype;        /* dtype of input 0 of the last node claimed */
    int32_t create_threads;          /* mmd_backend_args.threads of the last create */
    int32_t eval_threads;            /* mmd_kernel_ctx.threads of the last eval */
} fake;

/* Per session: the fake and the kernel it hands out (the reference kernel with counting). */
typedef struct fake_session {
    fake *f;
    const mmd_kernel *ref;
    mmd_kernel kernel;
} fake_session;

static mmd_status fake_prepare(mmd_kernel_ctx *c) {
    const fake_session *h = (const fake_session *)c->backend;
    return h->ref->prepare(c);
}

static mmd_status fake_eval(mmd_kernel_ctx *c) {
    fake_session *h = (fake_session *)c->backend;
    if (&h->kernel != c->node->kernel) h->f->wrong_handle = 1;
    h->f->evals++;
    h->f->eval_threads = c->threads;
    return h->ref->eval(c);
}

static int32_t fake_available(void *user) { return !((fake *)user)->unavailable; }

static mmd_status fake_check_env(void *user, char *buf, size_t cap) {
    (void)user;
    snprintf(buf, cap, "driver missing");
    return MMD_ERR_UNSUPPORTED;
}

static mmd_status fake_create(void *user, const mmd_backend_args *args, void **handle, mmd_error *err) {
    fake *f = (fake *)user;
    fake_session *h;
    if (f->fail_create) return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, NULL, "no device found");
    h = (fake_session *)calloc(1, sizeof(fake_session));
    h->f = f;
    f->create_threads = args->threads;
    if (f->claim_op) {
        h->ref = mmd_ops_find("", f->claim_op, mmd_model_opset(args->model, ""));
        h->kernel = *h->ref;
        h->kernel.prepare = fake_prepare;
        h->kernel.eval = f->bad_kernel ? NULL : fake_eval;
    }
    f->creates++;
    *handle = h;
    return MMD_OK;
}

static void fake_destroy(void *user, void *handle) {
    ((fake *)user)->destroys++;
    free(handle);
}

static const mmd_kernel *fake_claim(void *user, void *handle, const mmd_model *m, int32_t node) {
    fake *f = (fake *)user;
    fake_session *h = (fake_session *)handle;
    const mmd_node *n = &m->nodes[node];
    f->claims_asked++;
    if (!f->claim_op || strcmp(n->op_type, f->claim_op) != 0) return NULL;
    f->last_claim_dtype = n->in[0]->dtype;
    return &h->kernel;
}

/* Would offer every node to sets; registered without claim_set, so never asked. */
static int32_t fake_supports(void *user, void *handle, const mmd_model *m, int32_t node) {
    (void)user;
    (void)handle;
    (void)m;
    (void)node;
    return 1;
}

static mmd_backend fake_backend(fake *f, const char *name) {
    mmd_backend b;
    memset(&b, 0, sizeof b);
    b.abi_version = MMD_BACKEND_ABI_VERSION;
    b.name = name;
    b.user = f;
    b.is_available = fake_available;
    b.check_env = fake_check_env;
    b.create = fake_create;
    b.destroy = fake_destroy;
    b.claim = fake_claim;
    return b;
}

/* ---- running the digits model ------------------------------------------------------------ */
static float digits_x[64];

/* Runs digits.onnx on a fixed 1x1x8x8 input and copies the 10 logits to out; keeps the session
   in *keep (destroyed otherwise). Returns the status of the first failing call. */
static mmd_status run_digits(const blob *b, const mmd_backend_registry *reg, float *out, mmd_session **keep) {
    mmd_options opts;
    mmd_session *s = NULL;
    mmd_error err = {0};
    int64_t dims[4] = {1, 1, 8, 8};
    mmd_status st;
    int i;
    for (i = 0; i < 64; ++i) digits_x[i] = (float)((i * 5) % 17) / 16.0f;
    memset(&opts, 0, sizeof opts);
    opts.backends = reg;
    st = mmd_session_create(b->data, b->size, &opts, &s, &err);
    if (st == MMD_OK) st = mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 4, dims, digits_x, &err);
    if (st == MMD_OK) st = mmd_session_prepare(s, &err);
    if (st == MMD_OK) st = mmd_session_run(s, &err);
    if (st == MMD_OK) memcpy(out, mmd_session_output(s, 0)->data, 10 * sizeof(float));
    if (st != MMD_OK) fprintf(stderr, "run_digits: %s\n", err.msg);
    if (keep && st == MMD_OK) *keep = s;
    else mmd_session_destroy(s);
    return st;
}

static int same_logits(const float *a, const float *b) { return memcmp(a, b, 10 * sizeof(float)) == 0; }

/* ---- tests ------------------------------------------------------------------------------- */
/* create and every claimed kernel learn the session's thread count (1 when unset). */
static void backends_get_the_session_thread_count(void) {
    blob b = load("examples/models/digits.onnx");
    fake f = {0};
    mmd_backend fb;
    mmd_backend_registry reg = {0};
    mmd_options opts;
    mmd_session *s = NULL;
    mmd_error err = {0};
    int64_t dims[4] = {1, 1, 8, 8};
    int32_t threads[2] = {0, 3}, i;
    f.claim_op = "Relu";
    fb = fake_backend(&f, "fake");
    CHECK(mmd_backend_register(&reg, &fb, &err) == MMD_OK);
    for (i = 0; i < 2; ++i) {
        memset(&opts, 0, sizeof opts);
        opts.backends = &reg;
        opts.threads = threads[i];
        CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
        CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 4, dims, digits_x, &err) == MMD_OK);
        CHECK(mmd_session_prepare(s, &err) == MMD_OK && mmd_session_run(s, &err) == MMD_OK);
        CHECK(f.create_threads == (i ? 3 : 1));
        CHECK(f.eval_threads == (i ? 3 : 1));
        mmd_session_destroy(s);
    }
    free(b.data);
}

static void partial_claims_give_reference_outputs(void) {
    blob b = load("examples/models/digits.onnx");
    fake f = {0};
    mmd_backend fb;
    mmd_backend_registry reg = {0};
    mmd_session *s = NULL;
    float ref[10], ours[10];
    int32_t i, claimed = 0;
    f.claim_op = "Relu";
    fb = fake_backend(&f, "fake");
    CHECK(mmd_backend_register(&reg, &fb, NULL) == MMD_OK);
    CHECK(run_digits(&b, NULL, ref, NULL) == MMD_OK);
    CHECK(run_digits(&b, &reg, ours, &s) == MMD_OK);
    CHECK(same_logits(ref, ours));
    /* digits has three Relu nodes: each claimed once at create and evaluated once per run. */
    for (i = 0; i < 10; ++i) claimed += mmd_session_node_backend(s, i) == 0;
    CHECK(claimed == 3);
    CHECK(f.evals == 3);
    CHECK(!f.wrong_handle);
    CHECK(mmd_session_node_backend(s, 10) == -1);
    mmd_session_destroy(s);
    CHECK(f.creates == 1 && f.destroys == 1);
    free(b.data);
}

static void declining_backend_gives_reference_outputs(void) {
    blob b = load("examples/models/digits.onnx");
    fake f = {0};
    mmd_backend fb = fake_backend(&f, "decliner");
    mmd_backend_registry reg = {0};
    mmd_session *s = NULL;
    float ref[10], ours[10];
    mmd_status st = MMD_ERR_IO;
    const char *msg = NULL;
    int32_t i;
    CHECK(mmd_backend_register(&reg, &fb, NULL) == MMD_OK);
    CHECK(run_digits(&b, NULL, ref, NULL) == MMD_OK);
    CHECK(run_digits(&b, &reg, ours, &s) == MMD_OK);
    CHECK(same_logits(ref, ours));
    CHECK(f.claims_asked == 10);
    for (i = 0; i < 10; ++i) CHECK(mmd_session_node_backend(s, i) == -1);
    /* Created and kept (it may claim after a re-plan in a future version), so its status is ok. */
    CHECK(mmd_session_backend_status(s, 0, &st, &msg) == MMD_OK);
    CHECK(st == MMD_OK && msg && msg[0] == '\0');
    mmd_session_destroy(s);
    free(b.data);
}

static void failed_create_is_reported_and_skipped(void) {
    blob b = load("examples/models/digits.onnx");
    fake broken = {0}, next = {0};
    mmd_backend fb, nb;
    mmd_backend_registry reg = {0};
    mmd_session *s = NULL;
    float ref[10], ours[10];
    mmd_status st = MMD_OK;
    const char *msg = NULL;
    broken.fail_create = 1;
    broken.claim_op = "Relu";
    next.claim_op = "Relu";
    fb = fake_backend(&broken, "broken");
    nb = fake_backend(&next, "next");
    CHECK(mmd_backend_register(&reg, &fb, NULL) == MMD_OK);
    CHECK(mmd_backend_register(&reg, &nb, NULL) == MMD_OK);
    CHECK(run_digits(&b, NULL, ref, NULL) == MMD_OK);
    CHECK(run_digits(&b, &reg, ours, &s) == MMD_OK);
    CHECK(same_logits(ref, ours));
    CHECK(mmd_session_backend_status(s, 0, &st, &msg) == MMD_OK);
    CHECK(st == MMD_ERR_UNSUPPORTED);
    CHECK(msg && strstr(msg, "create failed: no device found") != NULL);
    /* The next backend in priority order takes the nodes the broken one would have had. */
    CHECK(mmd_session_backend_status(s, 1, &st, &msg) == MMD_OK && st == MMD_OK);
    CHECK(mmd_session_node_backend(s, 1) == 1 || mmd_session_node_backend(s, 2) == 1);
    CHECK(next.evals == 3 && broken.evals == 0 && broken.claims_asked == 0);
    mmd_session_destroy(s);
    CHECK(broken.destroys == 0 && next.destroys == 1);
    free(b.data);
}

static void unavailable_backend_is_skipped(void) {
    blob b = load("examples/models/digits.onnx");
    fake f = {0};
    mmd_backend fb;
    mmd_backend_registry reg = {0};
    mmd_session *s = NULL;
    float ref[10], ours[10];
    mmd_status st = MMD_OK;
    const char *msg = NULL;
    f.unavailable = 1;
    f.claim_op = "Relu";
    fb = fake_backend(&f, "absent");
    CHECK(mmd_backend_register(&reg, &fb, NULL) == MMD_OK);
    CHECK(run_digits(&b, NULL, ref, NULL) == MMD_OK);
    CHECK(run_digits(&b, &reg, ours, &s) == MMD_OK);
    CHECK(same_logits(ref, ours));
    CHECK(f.creates == 0 && f.claims_asked == 0);
    CHECK(mmd_session_backend_status(s, 0, &st, &msg) == MMD_OK);
    CHECK(st == MMD_ERR_UNSUPPORTED && strcmp(msg, "not available: driver missing") == 0);
    CHECK(mmd_session_backend_status(s, 1, &st, &msg) == MMD_ERR_INDEX);
    CHECK(mmd_session_backend_count(s) == 1 && mmd_session_backend(s, 0) == &fb);
    mmd_session_destroy(s);
    free(b.data);
}

static void registry_refuses_overflow_duplicates_and_other_abis(void) {
    mmd_backend_registry reg = {0};
    mmd_backend bs[MMD_MAX_BACKENDS + 1], odd;
    char names[MMD_MAX_BACKENDS + 1][16];
    fake f = {0};
    mmd_error err = {0};
    int i;
    for (i = 0; i <= MMD_MAX_BACKENDS; ++i) {
        snprintf(names[i], sizeof names[i], "b%d", i);
        bs[i] = fake_backend(&f, names[i]);
    }
    for (i = 0; i < MMD_MAX_BACKENDS; ++i) CHECK(mmd_backend_register(&reg, &bs[i], &err) == MMD_OK);
    CHECK(mmd_backend_register(&reg, &bs[MMD_MAX_BACKENDS], &err) == MMD_ERR_LIMIT);
    CHECK(strstr(err.msg, "MMD_MAX_BACKENDS") != NULL);
    CHECK(reg.count == MMD_MAX_BACKENDS);
    CHECK(mmd_backend_find(&reg, "b3") == &bs[3] && mmd_backend_find(&reg, "b99") == NULL);

    memset(&reg, 0, sizeof reg);
    CHECK(mmd_backend_register(&reg, &bs[0], &err) == MMD_OK);
    CHECK(mmd_backend_register(&reg, &bs[0], &err) == MMD_ERR_INVALID_ARGUMENT);
    odd = bs[1];
    odd.abi_version = MMD_BACKEND_ABI_VERSION + 1;
    CHECK(mmd_backend_register(&reg, &odd, &err) == MMD_ERR_UNSUPPORTED);
    odd = bs[1];
    odd.name = NULL;
    CHECK(mmd_backend_register(&reg, &odd, &err) == MMD_ERR_INVALID_ARGUMENT);
    /* A set backend needs both callbacks (SUBGRAPH CLAIMS). */
    odd = bs[1];
    odd.claim_set = NULL;
    odd.supports = fake_supports;
    CHECK(mmd_backend_register(&reg, &odd, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "claim_set") != NULL);
    CHECK(mmd_backend_register(&reg, NULL, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(reg.count == 1);
}

typedef struct events {
    int32_t count, begins, in_order;
    int32_t last_node;
    int32_t whole;                   /* events with node -1 */
} events;

static void count_events(void *user, const mmd_profile_event *ev) {
    events *e = (events *)user;
    /* Begin and end alternate, and each end is for the node that began. */
    if (ev->end != (e->count % 2) || (ev->end && ev->node != e->last_node) ||
        (!ev->end && ev->node >= 0 && ev->node <= e->last_node))
        e->in_order = 0;
    if (!ev->op_type || !ev->name) e->in_order = 0;
    e->last_node = ev->node;
    e->count++;
    e->begins += !ev->end;
    e->whole += ev->node == -1;
}

static void profiler_called_twice_per_node(void) {
    blob b = load("tests/data/core/relu_chain.onnx");
    mmd_session *s = NULL;
    mmd_error err = {0};
    static float x[1000];
    int64_t dims[2] = {1, 1000};
    events e = {0, 0, 1, -1, 0};
    CHECK(mmd_session_create(b.data, b.size, NULL, &s, &err) == MMD_OK);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    mmd_session_set_profiler(s, count_events, &e);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    CHECK(e.count == 20 && e.begins == 10 && e.in_order && e.whole == 0);
    /* Unhooked: no more calls. */
    mmd_session_set_profiler(s, NULL, NULL);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    CHECK(e.count == 20);
    mmd_session_destroy(s);
    free(b.data);
}

static void claims_see_dtypes_from_the_trial_plan(void) {
    blob b = load("examples/models/digits.onnx");
    fake f = {0};
    mmd_backend fb;
    mmd_backend_registry reg = {0};
    float out[10];
    f.claim_op = "Gemm"; /* its input is the Flatten output, an activation */
    fb = fake_backend(&f, "fake");
    CHECK(mmd_backend_register(&reg, &fb, NULL) == MMD_OK);
    CHECK(run_digits(&b, &reg, out, NULL) == MMD_OK);
    CHECK(f.last_claim_dtype == MMD_DTYPE_FLOAT32);
    CHECK(f.evals == 1);
    free(b.data);
}

static void rule_table_matches_op_opset_and_dtype(void) {
    blob b = load("examples/models/digits.onnx");
    mmd_arena a;
    mmd_model *m = NULL;
    mmd_error err = {0};
    static const mmd_kernel k1 = {"", "Relu", 1, 0, 0, 0, NULL, NULL}, k2 = k1;
    mmd_backend_rule rules[2];
    int32_t relu = -1, i;
    mmd_arena_init(&a, NULL, 0, 1);
    CHECK(mmd_model_parse(&a, b.data, b.size, 0, &m, &err) == MMD_OK);
    for (i = 0; i < m->node_count && relu < 0; ++i)
        if (strcmp(m->nodes[i].op_type, "Relu") == 0) relu = i;
    memset(rules, 0, sizeof rules);
    rules[0].domain = "ai.onnx";
    rules[0].op_type = "Relu";
    rules[0].min_opset = 14; /* digits is opset 13 */
    rules[0].kernel = &k1;
    rules[1].domain = "";
    rules[1].op_type = "Relu";
    rules[1].min_opset = 6;
    rules[1].max_opset = 13;
    rules[1].kernel = &k2;
    CHECK(mmd_backend_match(rules, 2, m, relu) == &k2);
    rules[1].max_opset = 12;
    CHECK(mmd_backend_match(rules, 2, m, relu) == NULL);
    rules[1].max_opset = 0;
    /* Without a plan the Relu's input (a Conv output) has no dtype yet: a dtype rule declines. */
    rules[1].dtype = MMD_DTYPE_FLOAT32;
    CHECK(mmd_backend_match(rules, 2, m, relu) == NULL);
    rules[1].dtype = 0;
    CHECK(mmd_backend_match(rules, 2, m, relu) == &k2);
    CHECK(mmd_backend_match(rules, 2, m, -1) == NULL && mmd_backend_match(rules, 2, m, m->node_count) == NULL);
    mmd_arena_release(&a);
    free(b.data);
}

static void bad_claimed_kernel_fails_create_and_destroys_backend(void) {
    blob b = load("examples/models/digits.onnx");
    fake f = {0};
    mmd_backend fb;
    mmd_backend_registry reg = {0};
    mmd_options opts;
    mmd_session *s = NULL;
    mmd_error err = {0};
    f.claim_op = "Relu";
    f.bad_kernel = 1;
    fb = fake_backend(&f, "careless");
    CHECK(mmd_backend_register(&reg, &fb, NULL) == MMD_OK);
    memset(&opts, 0, sizeof opts);
    opts.backends = &reg;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(s == NULL && strstr(err.msg, "careless") != NULL);
    CHECK(f.creates == 1 && f.destroys == 1);
    free(b.data);
}

/* A whole-graph backend for relu_chain: ten Relus are one Relu. forward binds, execute runs. */
typedef struct whole {
    const float *x;
    float y[1000];
    int64_t n;
    int32_t forwards, executes;
} whole;

static mmd_status whole_forward(void *user, void *handle, const mmd_tensor *const *in, int32_t nin,
                                mmd_tensor *const *out, int32_t nout, mmd_error *err) {
    whole *w = (whole *)user;
    (void)handle;
    if (nin != 1 || nout != 1 || strcmp(in[0]->name, "x") != 0)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, NULL, "unexpected inputs");
    w->x = (const float *)in[0]->data;
    w->n = mmd_tensor_numel(in[0]);
    if (w->n > 1000) return mmd_error_set(err, MMD_ERR_SHAPE, -1, NULL, "at most 1000 values");
    out[0]->dtype = in[0]->dtype;
    out[0]->rank = in[0]->rank;
    memcpy(out[0]->dims, in[0]->dims, sizeof(out[0]->dims));
    out[0]->data = w->y;
    w->forwards++;
    return MMD_OK;
}

static mmd_status whole_execute(void *user, void *handle, mmd_error *err) {
    whole *w = (whole *)user;
    int64_t i;
    (void)handle;
    (void)err;
    for (i = 0; i < w->n; ++i) w->y[i] = w->x[i] > 0 ? w->x[i] : 0.0f;
    w->executes++;
    return MMD_OK;
}

static void whole_graph_backend_runs_forward_then_execute(void) {
    blob b = load("tests/data/core/relu_chain.onnx");
    whole w;
    fake later = {0};
    mmd_backend wb, lb;
    mmd_backend_registry reg = {0};
    mmd_options opts;
    mmd_session *s = NULL;
    mmd_error err = {0};
    static float x[1000];
    int64_t dims[2] = {1, 1000};
    events e = {0, 0, 1, -1, 0};
    mmd_status st;
    const char *msg;
    const mmd_tensor *y;
    int32_t i, bad = 0;
    memset(&w, 0, sizeof w);
    memset(&wb, 0, sizeof wb);
    wb.abi_version = MMD_BACKEND_ABI_VERSION;
    wb.name = "npu";
    wb.user = &w;
    wb.forward = whole_forward;
    wb.execute = whole_execute;
    later.claim_op = "Relu";
    lb = fake_backend(&later, "later");
    CHECK(mmd_backend_register(&reg, &wb, NULL) == MMD_OK);
    CHECK(mmd_backend_register(&reg, &lb, NULL) == MMD_OK);
    for (i = 0; i < 1000; ++i) x[i] = (float)(i % 5) - 2.0f;
    memset(&opts, 0, sizeof opts);
    opts.backends = &reg;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    CHECK(mmd_session_backend_status(s, 1, &st, &msg) == MMD_OK);
    CHECK(st == MMD_ERR_UNSUPPORTED && strstr(msg, "runs the whole graph") != NULL && later.creates == 0);
    CHECK(mmd_session_node_backend(s, 0) == 0 && mmd_session_node_backend(s, 9) == 0);
    CHECK(mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 2, dims, x, &err) == MMD_OK);
    CHECK(mmd_session_prepare(s, &err) == MMD_OK);
    mmd_session_set_profiler(s, count_events, &e);
    CHECK(mmd_session_run(s, &err) == MMD_OK);
    y = mmd_session_output(s, 0);
    CHECK(y->rank == 2 && y->dims[1] == 1000);
    for (i = 0; i < 1000; ++i) bad += ((const float *)y->data)[i] != (x[i] > 0 ? x[i] : 0.0f);
    CHECK(bad == 0);
    CHECK(w.forwards == 1 && w.executes == 1);
    CHECK(e.count == 2 && e.whole == 2 && e.in_order);
    mmd_session_destroy(s);
    free(b.data);
}

static void whole_graph_backend_after_a_used_backend_is_skipped(void) {
    blob b = load("tests/data/core/relu_chain.onnx");
    whole w;
    fake first = {0};
    mmd_backend wb, fb;
    mmd_backend_registry reg = {0};
    mmd_options opts;
    mmd_session *s = NULL;
    mmd_error err = {0};
    mmd_status st;
    const char *msg;
    memset(&w, 0, sizeof w);
    memset(&wb, 0, sizeof wb);
    wb.abi_version = MMD_BACKEND_ABI_VERSION;
    wb.name = "npu";
    wb.user = &w;
    wb.forward = whole_forward;
    wb.execute = whole_execute;
    first.claim_op = "Relu";
    fb = fake_backend(&first, "first");
    CHECK(mmd_backend_register(&reg, &fb, NULL) == MMD_OK);
    CHECK(mmd_backend_register(&reg, &wb, NULL) == MMD_OK);
    memset(&opts, 0, sizeof opts);
    opts.backends = &reg;
    CHECK(mmd_session_create(b.data, b.size, &opts, &s, &err) == MMD_OK);
    CHECK(mmd_session_backend_status(s, 1, &st, &msg) == MMD_OK);
    CHECK(st == MMD_ERR_UNSUPPORTED && strstr(msg, "must come before") != NULL);
    CHECK(mmd_session_node_backend(s, 0) == 0);
    mmd_session_destroy(s);
    CHECK(first.destroys == 1);
    free(b.data);
}

int main(void) {
    TEST_RUN(partial_claims_give_reference_outputs);
    TEST_RUN(backends_get_the_session_thread_count);
    TEST_RUN(declining_backend_gives_reference_outputs);
    TEST_RUN(failed_create_is_reported_and_skipped);
    TEST_RUN(unavailable_backend_is_skipped);
    TEST_RUN(registry_refuses_overflow_duplicates_and_other_abis);
    TEST_RUN(profiler_called_twice_per_node);
    TEST_RUN(claims_see_dtypes_from_the_trial_plan);
    TEST_RUN(rule_table_matches_op_opset_and_dtype);
    TEST_RUN(bad_claimed_kernel_fails_create_and_destroys_backend);
    TEST_RUN(whole_graph_backend_runs_forward_then_execute);
    TEST_RUN(whole_graph_backend_after_a_used_backend_is_skipped);
    return test_summary();
}
