/* custom_backend.c - a backend written entirely in user code and plugged in at run time.

     build/custom_backend [MODEL.onnx]      (default: examples/models/digits.onnx)

   A firmware or SoC vendor's library usually runs some operators and not others. This file is
   such a vendor backend: it claims Relu and Add (float32, and Add only without broadcasting)
   with its own kernels, which count their calls, and leaves every other node to mmdeploy.h's
   reference kernels. Nothing in the runtime's headers is edited; the backend is a struct of
   function pointers registered in a registry this program owns.

   The program runs the model twice on the same input, once on the reference kernels alone and
   once with the backend, prints the nodes the backend claimed, its call counts, both outputs'
   largest difference, and the output:

     $ build/custom_backend
     backend 'myvendor' claimed 3 nodes:
       Relu   /features/features.2/Relu
       Relu   /features/features.5/Relu
       Relu   /features/features.8/Relu
     Relu calls 3, Add calls 0; every other node ran on the reference kernels
     output 0 (10 values): -5.1684 -10.9081 1.6567 -1.6557 6.3348 -18.7702 ...
     argmax 8; largest difference from the reference kernels alone: 0

   The exit status is 0 when both runs agree exactly (the kernels compute what the reference
   kernels compute, in the same order).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmdeploy.h"
#include "mmdeploy_ir.h" /* mmd_kernel, mmd_kernel_ctx, mmd_model: what kernels see */

/* ---- the vendor backend ------------------------------------------------------------------ */
/* Per-session state, reached from every kernel through ctx->backend. */
typedef struct myvendor_session {
    long relu_calls, add_calls;
    const char *claimed[64][2];      /* op type and name of each node claimed, for the report */
    int32_t claimed_count;
} myvendor_session;

/* The vendor-wide object behind the user pointer: here just where the last session is, so this
   program can print its counters. A real backend would hold a device handle. */
typedef struct myvendor {
    myvendor_session *last;
} myvendor;

/* prepare validates everything eval relies on and sets the output shape. */
static mmd_status myvendor_relu_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x = c->inputs[0];
    mmd_tensor *y = c->outputs[0];
    int32_t i;
    if (c->input_count != 1 || c->output_count != 1 || !x || !y)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "myvendor Relu takes one input and one output");
    if (x->dtype != MMD_DTYPE_FLOAT32)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "myvendor Relu runs float32 only, got %s", mmd_dtype_name(x->dtype));
    y->dtype = x->dtype;
    y->rank = x->rank;
    for (i = 0; i < x->rank; ++i) y->dims[i] = x->dims[i];
    return MMD_OK;
}

static mmd_status myvendor_relu_eval(mmd_kernel_ctx *c) {
    myvendor_session *s = (myvendor_session *)c->backend;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t i, n = mmd_tensor_numel(c->inputs[0]);
    for (i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
    s->relu_calls++;
    return MMD_OK;
}

static mmd_status myvendor_add_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *a = c->inputs[0], *b = c->inputs[1];
    mmd_tensor *y = c->outputs[0];
    int32_t i;
    if (c->input_count != 2 || c->output_count != 1 || !a || !b || !y)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "myvendor Add takes two inputs and one output");
    if (a->dtype != MMD_DTYPE_FLOAT32 || b->dtype != MMD_DTYPE_FLOAT32)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "myvendor Add runs float32 only");
    /* claim checked the shapes already, but a re-plan with new input shapes may change them. */
    if (a->rank != b->rank || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank) != 0)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "myvendor Add does not broadcast");
    y->dtype = a->dtype;
    y->rank = a->rank;
    for (i = 0; i < a->rank; ++i) y->dims[i] = a->dims[i];
    return MMD_OK;
}

static mmd_status myvendor_add_eval(mmd_kernel_ctx *c) {
    myvendor_session *s = (myvendor_session *)c->backend;
    const float *a = (const float *)c->inputs[0]->data, *b = (const float *)c->inputs[1]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t i, n = mmd_tensor_numel(c->inputs[0]);
    for (i = 0; i < n; ++i) y[i] = a[i] + b[i];
    s->add_calls++;
    return MMD_OK;
}

/* Kernels are data: {domain, op_type, min_opset, max_opset, flags, op_data_size, prepare, eval}. */
static const mmd_kernel myvendor_relu = {"", "Relu", 6, 0, 0, 0, myvendor_relu_prepare, myvendor_relu_eval};
static const mmd_kernel myvendor_add = {"", "Add", 7, 0, 0, 0, myvendor_add_prepare, myvendor_add_eval};

/* The declarative part of the claim: op type, opsets (max 0: any newer) and input 0's dtype. */
static const mmd_backend_rule myvendor_rules[] = {
    {"", "Relu", 6, 0, MMD_DTYPE_FLOAT32, &myvendor_relu},
    {"", "Add", 7, 0, MMD_DTYPE_FLOAT32, &myvendor_add},
};

static mmd_status myvendor_create(void *user, const mmd_backend_args *args, void **handle, mmd_error *err) {
    myvendor_session *s = (myvendor_session *)calloc(1, sizeof(myvendor_session));
    (void)args;
    if (!s) return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "myvendor: out of memory");
    ((myvendor *)user)->last = s;
    *handle = s;
    return MMD_OK;
}

static void myvendor_destroy(void *user, void *handle) {
    myvendor *v = (myvendor *)user;
    if (v->last == handle) v->last = NULL;
    free(handle);
}

/* The table, then what a table cannot say: Add only when both shapes are known and equal. */
static const mmd_kernel *myvendor_claim(void *user, void *handle, const mmd_model *m, int32_t node) {
    myvendor_session *s = (myvendor_session *)handle;
    const mmd_node *n = &m->nodes[node];
    const mmd_kernel *k = mmd_backend_match(myvendor_rules, sizeof myvendor_rules / sizeof myvendor_rules[0], m, node);
    (void)user;
    if (k == &myvendor_add) {
        const mmd_tensor *a = n->in[0], *b = n->input_count > 1 ? n->in[1] : NULL;
        if (!b || a->rank != b->rank || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank) != 0)
            return NULL;
    }
    if (k && s->claimed_count < (int32_t)(sizeof s->claimed / sizeof s->claimed[0])) {
        /* The model's strings live as long as the session. */
        s->claimed[s->claimed_count][0] = n->op_type;
        s->claimed[s->claimed_count++][1] = n->name;
    }
    return k;
}

static void myvendor_version(void *user, char *buf, size_t cap) {
    (void)user;
    snprintf(buf, cap, "myvendor 1.0 (plain C kernels)");
}

/* ---- the program ------------------------------------------------------------------------- */
static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (unsigned char *)malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    *size = buf ? (size_t)n : 0;
    return buf;
}

/* Creates a session (with the registry, or none), feeds every float input the same ramp of
   values, runs it and copies output 0 into out (at most cap floats). Returns the count, or -1. */
static int64_t run_once(const void *model, size_t size, const mmd_backend_registry *reg, float *out, int64_t cap,
                        mmd_session **keep) {
    mmd_options opts;
    mmd_session *s;
    mmd_error err;
    float *x = NULL;
    int32_t i;
    int64_t n = -1;
    memset(&opts, 0, sizeof opts);
    memset(&err, 0, sizeof err);
    opts.backends = reg;
    if (mmd_session_create(model, size, &opts, &s, &err) != MMD_OK) {
        fprintf(stderr, "custom_backend: %s\n", err.msg);
        return -1;
    }
    for (i = 0; i < mmd_session_input_count(s); ++i) {
        const mmd_tensor *t = mmd_session_input(s, i);
        int64_t dims[MMD_MAX_RANK], k, count = 1;
        int32_t d;
        /* The declared shape, symbolic dims (the batch) as 1. */
        for (d = 0; d < t->rank; ++d) {
            dims[d] = t->dims[d] > 0 ? t->dims[d] : 1;
            count *= dims[d];
        }
        free(x);
        if (t->dtype != MMD_DTYPE_FLOAT32 || !(x = (float *)malloc(sizeof(float) * (size_t)count))) goto done;
        for (k = 0; k < count; ++k) x[k] = (float)((k * 7) % 17) / 16.0f;
        if (mmd_session_set_input(s, i, t->dtype, t->rank, dims, x, &err) != MMD_OK) goto done;
    }
    if (mmd_session_prepare(s, &err) == MMD_OK && mmd_session_run(s, &err) == MMD_OK) {
        const mmd_tensor *y = mmd_session_output(s, 0);
        n = mmd_tensor_numel(y);
        if (n > cap) n = cap;
        memcpy(out, y->data, sizeof(float) * (size_t)n);
    }
done:
    if (n < 0) fprintf(stderr, "custom_backend: %s\n", err.msg[0] ? err.msg : "inputs are not float32");
    free(x);
    if (n >= 0 && keep) *keep = s;
    else mmd_session_destroy(s);
    return n;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "examples/models/digits.onnx";
    myvendor vendor = {NULL};
    mmd_backend backend;
    mmd_backend_registry reg;
    mmd_session *s = NULL;
    mmd_error err;
    mmd_status st;
    const char *why;
    float ref[16], ours[16], diff = 0.0f;
    int64_t n, i, best = 0;
    int32_t k;
    size_t size;
    void *model = read_file(path, &size);
    if (!model) {
        fprintf(stderr, "custom_backend: cannot read %s\n", path);
        return 1;
    }
    /* The backend: zero means "not provided" for every callback left out. */
    memset(&backend, 0, sizeof backend);
    backend.abi_version = MMD_BACKEND_ABI_VERSION;
    backend.name = "myvendor";
    backend.user = &vendor;
    backend.get_version = myvendor_version;
    backend.create = myvendor_create;
    backend.destroy = myvendor_destroy;
    backend.claim = myvendor_claim;
    memset(&reg, 0, sizeof reg);
    memset(&err, 0, sizeof err);
    if (mmd_backend_register(&reg, &backend, &err) != MMD_OK) {
        fprintf(stderr, "custom_backend: %s\n", err.msg);
        return 1;
    }

    if (run_once(model, size, NULL, ref, 16, NULL) < 0 || (n = run_once(model, size, &reg, ours, 16, &s)) < 0) {
        free(model);
        return 1;
    }
    mmd_session_backend_status(s, 0, &st, &why);
    if (st != MMD_OK) printf("backend 'myvendor' not used: %s\n", why);
    printf("backend 'myvendor' claimed %d nodes:\n", (int)vendor.last->claimed_count);
    for (k = 0; k < vendor.last->claimed_count; ++k)
        printf("  %-6s %s\n", vendor.last->claimed[k][0], vendor.last->claimed[k][1]);
    printf("Relu calls %ld, Add calls %ld; every other node ran on the reference kernels\n",
           vendor.last->relu_calls, vendor.last->add_calls);
    printf("output 0 (%lld values):", (long long)n);
    for (i = 0; i < n; ++i) {
        float d = ours[i] > ref[i] ? ours[i] - ref[i] : ref[i] - ours[i];
        if (d > diff) diff = d;
        if (ours[i] > ours[best]) best = i;
        printf(" %.4f", ours[i]);
    }
    printf("\nargmax %lld; largest difference from the reference kernels alone: %g\n", (long long)best, diff);
    mmd_session_destroy(s);
    free(model);
    return diff == 0.0f ? 0 : 1;
}
