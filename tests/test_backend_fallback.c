/* A claim is a promise: a backend that claims every node and then refuses some of them at
   prepare (MMD_ERR_UNSUPPORTED, chosen by a seeded hash of the node) must still give the
   reference kernels' outputs, with every refusal recorded and the node moved on.

       build/test_backend_fallback MODEL.onnx...

   For each model (float32 inputs, bound to fixed pseudo-random values of the declared shapes,
   symbolic dims 1), against a run on the reference kernels alone:
     - one refusing backend, three seeds and refusal rates: outputs bit for bit equal (its
       kernels are the reference kernels), one fallback per refused node, each refused node on
       the reference kernels and every other node on the backend;
     - two refusing backends with different seeds: a node the first refuses goes to the second,
       and to the reference kernels only when the second refuses it too; bit for bit equal;
     - the refusing backend in front of the bundled XNNPACK, oneDNN and OpenBLAS backends (those
       built in; the others are skipped as unavailable): refused nodes go to those, and
       oneDNN's layouts change around the moved nodes; equal within 1e-4 of the output's scale
       (other summation orders).
   Ends "N passed, M failed" (one test per model and case). */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include <stdio.h>

#include "backends/mmd_onednn.h"
#include "backends/mmd_openblas.h"
#include "backends/mmd_xnnpack.h"
#include "model_harness.h"

#include <stdlib.h>
#include <string.h>

/* ---- the refusing backend ---------------------------------------------------------------- */
typedef struct refuser {
    uint32_t seed;
    uint32_t rate;                   /* refuses a node when its hash % 100 < rate */
} refuser;

/* Per session: one kernel per node, the node's reference kernel with wrapped prepare. */
typedef struct refuser_session {
    const refuser *r;
    mmd_kernel *kernels;
} refuser_session;

static uint32_t refuser_hash(uint32_t seed, int32_t node) {
    uint32_t h = seed * 2654435761u ^ (uint32_t)node * 2246822519u;
    h ^= h >> 15;
    h *= 3266489917u;
    return h ^ (h >> 16);
}

static int refuses(const refuser *r, int32_t node) { return refuser_hash(r->seed, node) % 100 < r->rate; }

static const mmd_kernel *refuser_ref(const mmd_node *n) { return mmd_ops_find(n->domain, n->op_type, n->opset); }

static mmd_status refuser_prepare(mmd_kernel_ctx *c) {
    const refuser_session *h = (const refuser_session *)c->backend;
    if (refuses(h->r, c->node_index)) return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "refused by seed %u", h->r->seed);
    return refuser_ref(c->node)->prepare(c);
}

static mmd_status refuser_eval(mmd_kernel_ctx *c) { return refuser_ref(c->node)->eval(c); }

static mmd_status refuser_create(void *user, const mmd_backend_args *args, void **handle, mmd_error *err) {
    refuser_session *h = (refuser_session *)calloc(1, sizeof(refuser_session));
    if (h) h->kernels = (mmd_kernel *)calloc((size_t)args->model->node_count + 1, sizeof(mmd_kernel));
    if (!h || !h->kernels) {
        if (h) free(h);
        return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "refuser: out of memory");
    }
    h->r = (const refuser *)user;
    *handle = h;
    return MMD_OK;
}

static void refuser_destroy(void *user, void *handle) {
    refuser_session *h = (refuser_session *)handle;
    (void)user;
    free(h->kernels);
    free(h);
}

/* Claims every node that has a reference kernel. */
static const mmd_kernel *refuser_claim(void *user, void *handle, const mmd_model *m, int32_t node) {
    refuser_session *h = (refuser_session *)handle;
    const mmd_kernel *ref = refuser_ref(&m->nodes[node]);
    (void)user;
    if (!ref) return NULL;
    h->kernels[node] = *ref;
    h->kernels[node].prepare = refuser_prepare;
    h->kernels[node].eval = refuser_eval;
    return &h->kernels[node];
}

static mmd_backend refuser_backend(refuser *r, const char *name) {
    mmd_backend b;
    memset(&b, 0, sizeof b);
    b.abi_version = MMD_BACKEND_ABI_VERSION;
    b.name = name;
    b.user = r;
    b.create = refuser_create;
    b.destroy = refuser_destroy;
    b.claim = refuser_claim;
    return b;
}

/* ---- checking a run ---------------------------------------------------------------------- */
/* Checks one run against the reference: bitwise or within tolerance, and the fallbacks against
   the refusers' choices (first and, when not NULL, second). */
static void check_case(const char *model, const char *what, const test_bytes *b, const model_outputs *ref,
                       const mmd_backend_registry *reg, const refuser *first, const refuser *second, int exact) {
    model_outputs out;
    mmd_session *s;
    mmd_error err;
    char detail[512];
    int32_t i, expected = 0, misplaced = -1, refused = 0;
    int ok;
    memset(&err, 0, sizeof err);
    detail[0] = '\0';
    if (model_run(b, reg, NULL, NULL, &out, &s, &err) != MMD_OK) {
        model_report(model, what, 0, err.msg);
        return;
    }
    for (i = 0; i < s->model->node_count; ++i) {
        int32_t want = -1;
        if (!refuser_ref(&s->model->nodes[i])) continue;
        if (!refuses(first, i)) want = 0;
        else if (second && !refuses(second, i)) want = 1;
        expected += refuses(first, i) + (second && refuses(first, i) && refuses(second, i));
        refused += refuses(first, i);
        /* A refused node may go to a bundled backend: only check it left the refuser. */
        if (second || exact ? mmd_session_node_backend(s, i) != want
                            : (want == 0) != (mmd_session_node_backend(s, i) == 0))
            misplaced = i;
    }
    if (out.n != ref->n)
        snprintf(detail, sizeof detail, "%zu output values, %zu on the reference kernels", out.n, ref->n);
    else if (exact && memcmp(out.v, ref->v, out.n * sizeof(float)) != 0)
        snprintf(detail, sizeof detail, "outputs differ from the reference kernels' (max %g of scale)",
                 model_rel_diff(&out, ref));
    else if (!exact && model_rel_diff(&out, ref) > 1e-4)
        snprintf(detail, sizeof detail, "outputs differ by %g of the output scale", model_rel_diff(&out, ref));
    /* A bundled backend may refuse a node it was given, which adds a fallback. */
    else if (exact ? mmd_session_fallback_count(s) != expected : mmd_session_fallback_count(s) < expected)
        snprintf(detail, sizeof detail, "%d fallbacks recorded, %d expected", (int)mmd_session_fallback_count(s),
                 (int)expected);
    else if (misplaced >= 0)
        snprintf(detail, sizeof detail, "node %d runs on backend %d", (int)misplaced,
                 (int)mmd_session_node_backend(s, misplaced));
    ok = !detail[0];
    if (ok) snprintf(detail, sizeof detail, "%d of %d nodes refused", (int)refused, (int)s->model->node_count);
    model_report(model, what, ok, detail);
    mmd_session_destroy(s);
    free(out.v);
}

int main(int argc, char **argv) {
    static const uint32_t rates[3] = {30, 60, 90};
    mmd_backend xnnpack, onednn, openblas;
    int a, k;
    mmd_xnnpack_backend(&xnnpack);
    mmd_onednn_backend(&onednn);
    mmd_openblas_backend(&openblas);
    if (!model_args(argc, argv)) return 1;
    for (a = 1; a < argc; ++a) {
        const char *name = model_name(argv[a]);
        test_bytes b;
        model_outputs ref;
        char what[64];
        if (!model_reference(argv[a], &b, &ref, NULL)) continue;
        for (k = 0; k < 3; ++k) {
            refuser r1 = {0}, r2 = {0};
            mmd_backend b1 = refuser_backend(&r1, "refuser"), b2 = refuser_backend(&r2, "refuser2");
            mmd_backend_registry one = {0}, two = {0}, bundled = {0};
            r1.seed = 1u + (uint32_t)k;
            r1.rate = rates[k];
            r2.seed = 101u + (uint32_t)k;
            r2.rate = 50;
            mmd_backend_register(&one, &b1, NULL);
            snprintf(what, sizeof what, "seed %u, %u%% refused", r1.seed, r1.rate);
            check_case(name, what, &b, &ref, &one, &r1, NULL, 1);
            mmd_backend_register(&two, &b1, NULL);
            mmd_backend_register(&two, &b2, NULL);
            snprintf(what, sizeof what, "seeds %u and %u stacked", r1.seed, r2.seed);
            check_case(name, what, &b, &ref, &two, &r1, &r2, 1);
            mmd_backend_register(&bundled, &b1, NULL);
            mmd_backend_register(&bundled, &xnnpack, NULL);
            mmd_backend_register(&bundled, &onednn, NULL);
            mmd_backend_register(&bundled, &openblas, NULL);
            snprintf(what, sizeof what, "seed %u before xnnpack, onednn, openblas", r1.seed);
            check_case(name, what, &b, &ref, &bundled, &r1, NULL, 0);
        }
        free(ref.v);
        free(b.data);
    }
    return test_summary();
}
