/* tests/kernel_harness.h - runs one kernel by hand, for the tests/test_kernels_*.c files:
   tensors and attributes from literals, the kernel from mmd_ops_find, its prepare then its
   eval with malloc'd outputs and scratch, and checks against expected arrays. Include it after
   test.h, in a file that defines MMD_IMPLEMENTATION and includes mmdeploy.h. check_f32 uses
   the relative tolerance CHECK_F32_TOL (1e-5 unless the file defines it first).
   Everything is static inline, so a file need not use every helper. */
#ifndef MMD_KERNEL_HARNESS_H
#define MMD_KERNEL_HARNESS_H
#include <stdlib.h>
#include <string.h>

#ifndef CHECK_F32_TOL
#define CHECK_F32_TOL 1e-5
#endif

#define COUNT(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

/* Quarter-integer test data, the same as PyTorch's
       def ramp(shape, mul, mod):
           n = int(np.prod(shape))
           return (((torch.arange(n) * mul) % mod - mod // 2) * 0.25).float().reshape(shape)
   Sums of quarter-integers are nearly exact, so small tolerances are safe. */
static inline void ramp(float *x, int64_t n, int64_t mul, int64_t mod) {
    int64_t i;
    for (i = 0; i < n; ++i) x[i] = (float)((i * mul) % mod - mod / 2) * 0.25f;
}

/* A tensor over literal data, const or not (the kernel never writes an input): an initializer,
   whose value prepare may read, or with `known` 0 a tensor computed by an earlier node, whose
   value is not known at prepare time. The address travels as an integer because tests fill
   their buffers (ramp) after declaring the tensors, which GCC would otherwise take for a read
   of uninitialised memory. */
static inline mmd_tensor tensor_at(const char *name, int32_t dtype, int32_t rank, const int64_t *dims,
                                   uintptr_t data, int32_t known) {
    mmd_tensor t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = dtype;
    t.rank = rank;
    if (rank) memcpy(t.dims, dims, (size_t)rank * sizeof dims[0]);
    t.data = (void *)data;
    t.kind = known ? MMD_TENSOR_INITIALIZER : MMD_TENSOR_ACTIVATION;
    t.producer = known ? -1 : 0;
    return t;
}
#define tensor(name, dtype, rank, dims, data) tensor_at(name, dtype, rank, dims, (uintptr_t)(data), 1)
#define runtime(name, dtype, rank, dims, data) tensor_at(name, dtype, rank, dims, (uintptr_t)(data), 0)

/* An output: prepare sets its dtype and shape, the harness gives it data. */
static inline mmd_tensor output(const char *name) { return tensor(name, MMD_DTYPE_UNDEFINED, 0, NULL, NULL); }

static inline mmd_attr attr_int(const char *name, int64_t v) {
    mmd_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = MMD_ATTR_INT;
    a.i = v;
    return a;
}

static inline mmd_attr attr_float(const char *name, float v) {
    mmd_attr a = attr_int(name, 0);
    a.type = MMD_ATTR_FLOAT;
    a.f = v;
    return a;
}

static inline mmd_attr attr_ints(const char *name, const int64_t *v, int64_t n) {
    mmd_attr a = attr_int(name, 0);
    a.type = MMD_ATTR_INTS;
    a.ints = v;
    a.count = n;
    return a;
}

static inline mmd_attr attr_tensor(const char *name, mmd_tensor *t) {
    mmd_attr a = attr_int(name, 0);
    a.type = MMD_ATTR_TENSOR;
    a.t = t;
    return a;
}

static inline mmd_attr attr_floats(const char *name, const float *v, int64_t n) {
    mmd_attr a = attr_int(name, 0);
    a.type = MMD_ATTR_FLOATS;
    a.floats = v;
    a.count = n;
    return a;
}

static inline mmd_attr attr_string(const char *name, const char *s) {
    mmd_attr a = attr_int(name, 0);
    a.type = MMD_ATTR_STRING;
    a.s = s;
    a.s_len = strlen(s);
    return a;
}

/* One node between prepare and eval, so that a test can look at what prepare planned. */
typedef struct op_case {
    mmd_node node;
    mmd_kernel_ctx c;
    mmd_error err;
    const mmd_kernel *k;
    uint32_t owned;                     /* bit i: output i holds a buffer of case_eval's */
} op_case;

/* Loops that harness_reverse_parallel was given more than one share of, so that a test can
   check that its case was big enough to be split. */
static int32_t harness_split_loops;

/* The arena prepare packs constant weights into (mmd_kernel_packed), as a plan's would; NULL
   (the default) packs nothing, so kernels take their paths for weights they cannot pack. */
static mmd_arena *harness_arena;

/* A thread hook that runs the shares one after another, last first: a kernel whose result
   depended on the order of its shares, or on which share an element falls in, shows it. */
static inline void harness_reverse_parallel(void *user, mmd_task_fn task, void *ctx, int32_t count) {
    int32_t i;
    (void)user;
    harness_split_loops += count > 1;
    for (i = count - 1; i >= 0; --i) task(ctx, i);
}

/* Finds the kernel for op at opset and runs its prepare, with `threads` threads for prepare to
   plan and eval to use (more than 1: through harness_reverse_parallel); case_free releases
   what it holds. */
static inline mmd_status case_prepare_threads(op_case *t, int32_t threads, const char *op, int32_t opset,
                                              mmd_attr *attrs, int32_t attr_count, mmd_tensor **in, int32_t nin,
                                              mmd_tensor **out, int32_t nout) {
    memset(t, 0, sizeof *t);
    t->k = mmd_ops_find("", op, opset);
    if (!t->k) return MMD_ERR_NO_KERNEL;
    t->node.name = "n0";
    t->node.op_type = op;
    t->node.domain = "";
    t->node.attrs = attrs;
    t->node.attr_count = attr_count;
    t->node.opset = opset;
    t->c.node = &t->node;
    t->c.opset = opset;
    t->c.input_count = nin;
    t->c.inputs = in;
    t->c.output_count = nout;
    t->c.outputs = out;
    t->c.op_data = calloc(1, t->k->op_data_size + 1);
    t->c.err = &t->err;
    t->c.threads = threads;
    t->c.parallel = threads > 1 ? harness_reverse_parallel : NULL;
    t->c.arena = harness_arena;
    return t->k->prepare(&t->c);
}

/* case_prepare_threads for one thread. */
static inline mmd_status case_prepare(op_case *t, const char *op, int32_t opset, mmd_attr *attrs,
                                      int32_t attr_count, mmd_tensor **in, int32_t nin, mmd_tensor **out,
                                      int32_t nout) {
    return case_prepare_threads(t, 1, op, opset, attrs, attr_count, in, nin, out, nout);
}

/* Gives every present output whose data prepare left unset a buffer of the size prepare
   planned (the bound, for a dynamic output), filled with 0xff bytes (NaN, -1) so that an
   element eval forgets to write shows, then scratch, then runs eval. */
static inline mmd_status case_eval(op_case *t) {
    int32_t i;
    mmd_status st;
    for (i = 0; i < t->c.output_count && i < 32; ++i) {
        mmd_tensor *o = t->c.outputs[i];
        size_t bytes;
        if (!o || o->data) continue;
        bytes = (size_t)mmd_tensor_numel(o) * mmd_dtype_size(o->dtype) + 1;
        o->data = malloc(bytes);
        memset(o->data, 0xff, bytes);
        t->owned |= 1u << i;
    }
    if (t->c.scratch_size) t->c.scratch = malloc(t->c.scratch_size);
    st = t->k->eval(&t->c);
    free(t->c.scratch);
    t->c.scratch = NULL;
    return st;
}

/* Frees the output buffers. */
static inline void free_outputs(mmd_tensor *const *out, int32_t n) {
    int32_t i;
    for (i = 0; i < n; ++i)
        if (out[i]) {
            free(out[i]->data);
            out[i]->data = NULL;
        }
}

/* Frees op data and the output buffers case_eval gave (not data a prepare set, as Constant's). */
static inline void case_free(op_case *t) {
    int32_t i;
    for (i = 0; i < t->c.output_count && i < 32; ++i)
        if (t->owned & (1u << i)) free_outputs(&t->c.outputs[i], 1);
    t->owned = 0;
    free(t->c.op_data);
    t->c.op_data = NULL;
}

/* prepare then eval; the outputs stay until case_free. */
static inline mmd_status case_run(op_case *t, const char *op, int32_t opset, mmd_attr *attrs,
                                  int32_t attr_count, mmd_tensor **in, int32_t nin, mmd_tensor **out,
                                  int32_t nout) {
    mmd_status st = case_prepare(t, op, opset, attrs, attr_count, in, nin, out, nout);
    return st != MMD_OK ? st : case_eval(t);
}

/* prepare then eval, the error copied to *err; the outputs stay until free_outputs. */
static inline mmd_status run_op(const char *op, int32_t opset, mmd_attr *attrs, int32_t attr_count,
                                mmd_tensor **in, int32_t nin, mmd_tensor **out, int32_t nout, mmd_error *err) {
    op_case t;
    mmd_status st = case_run(&t, op, opset, attrs, attr_count, in, nin, out, nout);
    *err = t.err;
    free(t.c.op_data);
    return st;
}

/* run_op for one output, which starts as output("y"); free its data with free_output. */
static inline mmd_status run_op1(const char *op, int32_t opset, mmd_attr *attrs, int32_t attr_count,
                                 mmd_tensor **in, int32_t nin, mmd_tensor *out, mmd_error *err) {
    *out = output("y");
    return run_op(op, opset, attrs, attr_count, in, nin, &out, 1, err);
}

static inline void free_output(mmd_tensor *t) { free_outputs(&t, 1); }

/* Checks rank and dims of t against want[0..rank). */
static inline void check_dims(const mmd_tensor *t, int32_t rank, const int64_t *want) {
    int32_t i;
    CHECK(t->rank == rank);
    for (i = 0; i < rank && i < t->rank; ++i) CHECK(t->dims[i] == want[i]);
}

/* Equal values pass first, so infinities of one sign match; NaN matches NaN only. */
static inline void check_f32_tol(const mmd_tensor *t, const float *want, int64_t n, double tol) {
    const float *y = (const float *)t->data;
    int64_t i;
    CHECK(t->dtype == MMD_DTYPE_FLOAT32);
    CHECK(mmd_tensor_numel(t) == n);
    for (i = 0; i < n && i < mmd_tensor_numel(t); ++i) {
        if (y[i] == want[i] || (y[i] != y[i] && want[i] != want[i])) continue;
        CHECK_NEAR(y[i], want[i], tol);
    }
}

static inline void check_f32(const mmd_tensor *t, const float *want, int64_t n) {
    check_f32_tol(t, want, n, CHECK_F32_TOL);
}

static inline void check_i64(const mmd_tensor *t, const int64_t *want, int64_t n) {
    const int64_t *y = (const int64_t *)t->data;
    int64_t i;
    CHECK(t->dtype == MMD_DTYPE_INT64);
    CHECK(mmd_tensor_numel(t) == n);
    for (i = 0; i < n && i < mmd_tensor_numel(t); ++i) CHECK(y[i] == want[i]);
}

/* Integer and bool outputs compare exactly, byte for byte. */
static inline void check_bytes(const mmd_tensor *t, int32_t dtype, const void *want, int64_t n) {
    CHECK(t->dtype == dtype);
    CHECK(mmd_tensor_numel(t) == n);
    if (t->dtype == dtype && mmd_tensor_numel(t) == n)
        CHECK(memcmp(t->data, want, (size_t)n * mmd_dtype_size(dtype)) == 0);
}
#endif
