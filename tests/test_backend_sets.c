/* Subgraph claims: a backend offered sets of nodes (SUBGRAPH CLAIMS in mmdeploy.h) must be
   offered connected sets, in topological order, that create no cycle with the rest of the
   graph, largest first, each node at most once; the sets it takes run as one node each; a set
   whose kernel refuses at prepare (chosen by a seeded hash) goes back to single nodes.

       build/test_backend_sets MODEL.onnx...

   The test backend ("setter") supports a list of op types and runs a set by running its
   members' reference kernels in order, with the internal tensors in memory of its own; it
   checks every set it is offered. For each model (float32 inputs bound to fixed pseudo-random
   values, the graph as written), against a run on the reference kernels alone:
     - Conv, Relu, Add, Clip, Mul, Sigmoid as sets: every offer valid, every supported node in
       a set node, one profiler entry per set named "setter", outputs equal within 1e-5 of the
       output's scale (members run without packed weights: other summation orders);
     - two set backends stacked (Conv; then Relu, Add, Clip, Mul, Sigmoid): the second is
       offered sets around the first one's set nodes, both valid;
     - three seeds refusing half the sets at prepare: one fallback per member of a refused set,
       those members on the reference kernels, the rest in sets; equal within 1e-5;
     - a refusing setter in front of the bundled XNNPACK, oneDNN and OpenBLAS backends (those
       built in): refused members go to them (XNNPACK makes sets of them too); equal within
       1e-4.
   Ends "N passed, M failed" (one test per model and case). */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include <stdio.h>

#include "backends/mmd_onednn.h"
#include "backends/mmd_openblas.h"
#include "backends/mmd_xnnpack.h"
#include "model_harness.h"
#include "backends/mmd_backend_util.h"

#include <stdlib.h>
#include <string.h>

/* ---- the set backend ---------------------------------------------------------------------- */
typedef struct setter {
    const char *const *ops;          /* op types it supports, NULL-terminated */
    uint32_t seed, rate;             /* refuses a set at prepare when its hash % 100 < rate */
} setter;

/* Per session: what it was offered, what went wrong, and the internal tensors' memory. */
typedef struct setter_session {
    const setter *r;
    uint8_t *offered;                /* per node of the model at create: offered already */
    int32_t last_size, sets, bad;
    char why[256];
    void **buffers;
    int32_t buffer_count, buffer_cap;
} setter_session;

static uint32_t setter_hash(uint32_t seed, const char *name) {
    uint32_t h = seed * 2654435761u;
    while (*name) h = (h ^ (uint8_t)*name++) * 16777619u;
    h ^= h >> 15;
    h *= 3266489917u;
    return h ^ (h >> 16);
}

static int setter_refuses(const setter *r, const char *name) { return r->rate && setter_hash(r->seed, name) % 100 < r->rate; }

static int32_t setter_supports(void *user, void *handle, const mmd_model *m, int32_t node) {
    const setter *r = (const setter *)user;
    const mmd_node *n = &m->nodes[node];
    int32_t i;
    (void)handle;
    if (n->domain[0] || n->input_count < 1 || !n->in[0] || n->in[0]->dtype != MMD_DTYPE_FLOAT32) return 0;
    for (i = 0; r->ops[i]; ++i)
        if (strcmp(r->ops[i], n->op_type) == 0) return 1;
    return 0;
}

static void setter_fail(setter_session *h, const char *what, int32_t node) {
    if (!h->bad++) snprintf(h->why, sizeof h->why, "%s (node %d)", what, (int)node);
}

static int32_t in_set(const int32_t *nodes, int32_t count, int32_t v) {
    int32_t i;
    for (i = 0; i < count; ++i)
        if (nodes[i] == v) return i;
    return -1;
}

static int32_t root(int32_t *parent, int32_t v) {
    while (parent[v] != v) v = parent[v];
    return v;
}

/* Checks the offer: largest first, each node once, supported, in topological order,
   connected, and convex (no path from the set through other nodes back into it). */
static void setter_check(setter_session *h, const mmd_model *m, const int32_t *nodes, int32_t count) {
    int32_t i, j, k, q, head = 0, tail = 0, *parent = (int32_t *)malloc(sizeof(int32_t) * (size_t)count);
    int32_t *queue = (int32_t *)malloc(sizeof(int32_t) * (size_t)m->node_count + 4);
    uint8_t *reached = (uint8_t *)calloc((size_t)m->node_count + 1, 1);
    if (count < 1 || (h->last_size && count > h->last_size)) setter_fail(h, "not largest first", nodes[0]);
    h->last_size = count;
    for (i = 0; i < count; ++i) {
        const mmd_node *n = &m->nodes[nodes[i]];
        parent[i] = i;
        if (nodes[i] < 0 || nodes[i] >= m->node_count) { setter_fail(h, "node index out of range", nodes[i]); goto done; }
        if (!setter_supports((void *)(uintptr_t)h->r, h, m, nodes[i])) setter_fail(h, "unsupported node offered", nodes[i]);
        if (h->offered[nodes[i]]++) setter_fail(h, "node offered twice", nodes[i]);
        for (j = 0; j < n->input_count; ++j) {
            int32_t p = n->in[j] ? n->in[j]->producer : -1;
            if (p < 0) continue;
            q = in_set(nodes, count, p);
            if (q > i) setter_fail(h, "not in topological order", nodes[i]);
            if (q >= 0) parent[root(parent, i)] = root(parent, q);
        }
    }
    for (i = 1; i < count; ++i)
        if (root(parent, i) != root(parent, 0)) setter_fail(h, "not connected", nodes[i]);
    /* Every node outside the set reading one of its outputs, then their readers, and so on. */
    for (i = 0; i < count; ++i) reached[nodes[i]] = 2;
    for (k = 0; k < m->node_count; ++k) {
        int32_t from_set = 0;
        if (reached[k] == 2) continue;
        for (j = 0; j < m->nodes[k].input_count; ++j) {
            const mmd_tensor *t = m->nodes[k].in[j];
            if (t && t->producer >= 0 && reached[t->producer] == 2) from_set = 1;
        }
        if (from_set) {
            reached[k] = 1;
            queue[tail++] = k;
        }
    }
    while (head < tail) {
        int32_t v = queue[head++];
        for (k = v + 1; k < m->node_count; ++k)
            for (j = 0; j < m->nodes[k].input_count; ++j) {
                const mmd_tensor *t = m->nodes[k].in[j];
                if (!t || t->producer != v) continue;
                if (reached[k] == 2) setter_fail(h, "a path leaves the set and comes back", k);
                if (!reached[k]) {
                    reached[k] = 1;
                    queue[tail++] = k;
                }
            }
    }
done:
    free(parent);
    free(queue);
    free(reached);
}

static mmd_status setter_remember(setter_session *h, void *p) {
    if (!p) return MMD_ERR_OUT_OF_MEMORY;
    if (h->buffer_count == h->buffer_cap) {
        void **grown = (void **)realloc(h->buffers, sizeof(void *) * (size_t)(h->buffer_cap * 2 + 8));
        if (!grown) {
            free(p);
            return MMD_ERR_OUT_OF_MEMORY;
        }
        h->buffers = grown;
        h->buffer_cap = h->buffer_cap * 2 + 8;
    }
    h->buffers[h->buffer_count++] = p;
    return MMD_OK;
}

/* The members' reference prepares have run (the planner does that): internal tensors have
   their shapes. They get memory of the backend's own; scratch is the members' largest. */
static mmd_status setter_prepare(mmd_kernel_ctx *c) {
    setter_session *h = (setter_session *)c->backend;
    const mmd_node *set = c->node;
    int32_t i, j;
    size_t scratch = 0;
    if (!set->members || set->member_count < 1) return mmd_kernel_fail(c, MMD_ERR_INVALID_ARGUMENT, "no members");
    if (setter_refuses(h->r, set->members[0].name))
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "set of %d refused by seed %u", (int)set->member_count, h->r->seed);
    for (i = 0; i < set->member_count; ++i) {
        const mmd_node *u = &set->members[i];
        if (u->scratch_size > scratch) scratch = u->scratch_size;
        for (j = 0; j < u->output_count; ++j) {
            mmd_tensor *t = u->out[j];
            size_t bytes;
            if (!t || t->producer >= 0) continue;
            if (t->data) return mmd_kernel_fail(c, MMD_ERR_INVALID_ARGUMENT, "internal tensor '%s' has memory", t->name);
            if (mmd_tensor_nbytes(t, &bytes, c->err) != MMD_OK ||
                setter_remember(h, t->data = malloc(bytes + 16)) != MMD_OK)
                return mmd_kernel_fail(c, MMD_ERR_OUT_OF_MEMORY, "internal tensor '%s'", t->name);
        }
    }
    c->scratch_size = scratch;
    return MMD_OK;
}

static mmd_status setter_eval(mmd_kernel_ctx *c) {
    const mmd_node *set = c->node;
    int32_t i;
    for (i = 0; i < set->member_count; ++i) {
        const mmd_node *u = &set->members[i];
        mmd_kernel_ctx uc;
        mmd_status st;
        mmd__bk_member_ctx(c, u, &uc);
        if ((st = u->kernel->eval(&uc)) != MMD_OK) return st;
    }
    return MMD_OK;
}

static const mmd_kernel setter_kernel = {"mmdeploy.set", "setter", 1, 1, 0, 0, setter_prepare, setter_eval};

static const mmd_kernel *setter_claim_set(void *user, void *handle, const mmd_model *m, const int32_t *nodes,
                                          int32_t count) {
    setter_session *h = (setter_session *)handle;
    (void)user;
    /* Indices hold through one backend's offers: the sets it takes are made after the last. */
    if (!h->offered && !(h->offered = (uint8_t *)calloc((size_t)m->node_count + 1, 1))) return NULL;
    setter_check(h, m, nodes, count);
    h->sets++;
    return &setter_kernel;
}

static mmd_status setter_create(void *user, const mmd_backend_args *args, void **handle, mmd_error *err) {
    setter_session *h = (setter_session *)calloc(1, sizeof(setter_session));
    (void)args;
    if (!h) return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "setter: out of memory");
    h->r = (const setter *)user;
    *handle = h;
    return MMD_OK;
}

static void setter_destroy(void *user, void *handle) {
    setter_session *h = (setter_session *)handle;
    int32_t i;
    (void)user;
    for (i = 0; i < h->buffer_count; ++i) free(h->buffers[i]);
    free(h->buffers);
    free(h->offered);
    free(h);
}

static mmd_backend setter_backend(setter *r, const char *name) {
    mmd_backend b;
    memset(&b, 0, sizeof b);
    b.abi_version = MMD_BACKEND_ABI_VERSION;
    b.name = name;
    b.user = r;
    b.create = setter_create;
    b.destroy = setter_destroy;
    b.supports = setter_supports;
    b.claim_set = setter_claim_set;
    return b;
}

/* ---- running a model --------------------------------------------------------------------- */
/* The profiler's entries of one run: all of them, and the setters' (named by their op type). */
typedef struct events { int32_t all, sets; } events;

static void count_events(void *user, const mmd_profile_event *ev) {
    events *e = (events *)user;
    if (!ev->end) return;
    e->all++;
    e->sets += strncmp(ev->op_type, "setter", 6) == 0;
}

/* Checks one session: the setters' offers, outputs against the reference, and where each node
   of the model ended up. first and second are the setters registered (second NULL when one),
   bundled says whether bundled backends follow them. */
static void check_case(const char *model, const char *what, const test_bytes *b, const model_outputs *ref,
                       const mmd_backend_registry *reg, const setter *first, const setter *second, int bundled,
                       int32_t model_nodes) {
    model_outputs out;
    events ev = {0, 0};
    mmd_session *s;
    mmd_error err;
    char detail[512];
    int32_t i, j, sets = 0, members = 0, others = 0, refused_members = 0, supported = 0, misplaced = -1, ok;
    const mmd_model *m;
    memset(&err, 0, sizeof err);
    detail[0] = '\0';
    if (model_run(b, reg, count_events, &ev, &out, &s, &err) != MMD_OK) {
        model_report(model, what, 0, err.msg);
        return;
    }
    m = mmd_session_model(s);
    for (i = 0; i < m->node_count; ++i) {
        const mmd_node *n = &m->nodes[i];
        int32_t k = mmd_session_node_backend(s, i);
        if (n->members) {
            /* The bundled XNNPACK backend makes sets too, of the nodes a setter gave back. */
            if (k < 0 || strcmp(n->op_type, mmd_session_backend(s, k)->name) != 0) misplaced = i;
            if (k >= (second ? 2 : 1)) {
                others += n->member_count - 1;
                continue;
            }
            sets++;
            members += n->member_count;
            continue;
        }
        /* A node left out of every set: supported ones must have been refused. */
        if (!n->folded && (setter_supports((void *)(uintptr_t)first, NULL, m, i) ||
                           (second && setter_supports((void *)(uintptr_t)second, NULL, m, i)))) {
            supported++;
            if (k >= 0 && k < (second ? 2 : 1)) misplaced = i;
            if (!bundled && k != -1) misplaced = i;
        } else if (k >= 0 && k < (second ? 2 : 1)) {
            misplaced = i;
        }
    }
    for (i = 0; i < mmd_session_fallback_count(s); ++i) {
        int32_t node, from;
        const char *msg;
        mmd_session_fallback(s, i, &node, &from, &msg);
        if (strstr(msg, "refused by seed")) refused_members++;
    }
    for (j = 0; j < (second ? 2 : 1); ++j) {
        const setter_session *h = (const setter_session *)s->backends[j].handle;
        if (h && h->bad) snprintf(detail, sizeof detail, "backend %d offered a bad set: %s", (int)j, h->why);
    }
    if (detail[0]) {
    } else if (out.n != ref->n) {
        snprintf(detail, sizeof detail, "%zu output values, %zu on the reference kernels", out.n, ref->n);
    } else if (model_rel_diff(&out, ref) > (bundled ? 1e-4 : 1e-5)) {
        snprintf(detail, sizeof detail, "outputs differ by %g of the output scale", model_rel_diff(&out, ref));
    } else if (misplaced >= 0) {
        snprintf(detail, sizeof detail, "node %d (%s) runs on backend %d", (int)misplaced, m->nodes[misplaced].op_type,
                 (int)mmd_session_node_backend(s, misplaced));
    } else if (!bundled && supported != refused_members) {
        snprintf(detail, sizeof detail, "%d supported nodes outside sets, %d members of refused sets", (int)supported,
                 (int)refused_members);
    } else if (m->node_count + members - sets + others != model_nodes) {
        snprintf(detail, sizeof detail, "%d nodes and %d members in %d sets, the model has %d nodes",
                 (int)m->node_count, (int)members, (int)sets, (int)model_nodes);
    } else if (ev.sets != sets || ev.all > m->node_count) {
        /* One entry per set node: the setters' are named "setter..." (their op type). */
        snprintf(detail, sizeof detail, "%d profiler entries for %d sets", (int)ev.sets, (int)sets);
    }
    ok = !detail[0];
    if (ok)
        snprintf(detail, sizeof detail, "%d sets of %d nodes, %d nodes back from refused sets, max diff %.2g", (int)sets,
                 (int)members, (int)refused_members, model_rel_diff(&out, ref));
    model_report(model, what, ok, detail);
    mmd_session_destroy(s);
    free(out.v);
}

int main(int argc, char **argv) {
    static const char *const all[] = {"Conv", "Relu", "Add", "Clip", "Mul", "Sigmoid", NULL};
    static const char *const convs[] = {"Conv", NULL};
    static const char *const rest[] = {"Relu", "Add", "Clip", "Mul", "Sigmoid", NULL};
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
        char what[80];
        int32_t nodes;
        if (!model_reference(argv[a], &b, &ref, &nodes)) continue;
        {
            setter r = {all, 0, 0}, r1 = {convs, 0, 0}, r2 = {rest, 0, 0};
            mmd_backend b0 = setter_backend(&r, "setter"), b1 = setter_backend(&r1, "setter1"),
                        b2 = setter_backend(&r2, "setter2");
            mmd_backend_registry one = {0}, two = {0};
            mmd_backend_register(&one, &b0, NULL);
            check_case(name, "sets", &b, &ref, &one, &r, NULL, 0, nodes);
            mmd_backend_register(&two, &b1, NULL);
            mmd_backend_register(&two, &b2, NULL);
            check_case(name, "two set backends stacked", &b, &ref, &two, &r1, &r2, 0, nodes);
        }
        for (k = 0; k < 3; ++k) {
            setter r = {all, 1u + (uint32_t)k, 50};
            mmd_backend b0 = setter_backend(&r, "setter");
            mmd_backend_registry one = {0}, bundled = {0};
            mmd_backend_register(&one, &b0, NULL);
            snprintf(what, sizeof what, "seed %u refusing half the sets", r.seed);
            check_case(name, what, &b, &ref, &one, &r, NULL, 0, nodes);
            mmd_backend_register(&bundled, &b0, NULL);
            mmd_backend_register(&bundled, &xnnpack, NULL);
            mmd_backend_register(&bundled, &onednn, NULL);
            mmd_backend_register(&bundled, &openblas, NULL);
            snprintf(what, sizeof what, "seed %u refusing, then xnnpack, onednn, openblas", r.seed);
            check_case(name, what, &b, &ref, &bundled, &r, NULL, 1, nodes);
        }
        free(ref.v);
        free(b.data);
    }
    return test_summary();
}
