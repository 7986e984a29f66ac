/* backends/mmd_openblas.h - v0.1.0 - MIT licence (see end of file)
   OpenBLAS backend for mmdeploy.h: Conv, Gemm and MatMul on float32 through cblas_sgemm.

   QUICK START
     In one C file:
         #define MMD_OPENBLAS_IMPLEMENTATION
         #include "backends/mmd_openblas.h"
     Then:
         mmd_backend blas;  mmd_backend_registry reg = {0};  mmd_options opts = {0};
         mmd_openblas_backend(&blas);
         if (mmd_backend_register(&reg, &blas, &err) != MMD_OK) puts(err.msg);
         opts.backends = &reg;
         mmd_session_create(bytes, size, &opts, &s, &err);   // Conv/Gemm/MatMul on OpenBLAS
     Link with -lopenblas.

   WHAT IT CLAIMS (ai.onnx, float32, at the opsets the reference kernels cover)
     Conv      1-D to 3-D, groups, strides, dilations, pads: a 1x1 conv with stride 1 and no
               padding is one sgemm per image and group, any other is im2col into scratch and
               one sgemm. Depthwise convs (one input channel per group) are declined: a 1-row
               sgemm per channel is slower than the reference kernel's direct loop.
     Gemm      Y = alpha * op(A) * op(B) + beta * C, C broadcast into Y first.
     MatMul    numpy semantics; a 2-D (or 1-D) B under a batch of A is one sgemm.
     Each kernel runs the reference kernel's prepare first, so validation, output shapes and
     error messages are the reference kernels' own.

   WHAT IT DOES NOT DO
     No weight pre-packing (the CBLAS interface has none), no other dtypes, no to_backend.

   CONFIGURATION
     MMD_OPENBLAS_IMPLEMENTATION  emit the code in this translation unit
     MMD_HAVE_OPENBLAS            1 (default): needs <cblas.h> and -lopenblas; 0: a stub backend
                                  whose is_available is 0 ("built without OpenBLAS"), so a build
                                  without the library still lists and skips it

   THREADS
     Each kernel sets OpenBLAS's thread count to the session's (mmd_options.threads, 1 when
     unset) before its sgemm calls, whatever OPENBLAS_NUM_THREADS said: prepare first, so that
     OpenBLAS starts any thread it needs at plan time, then eval again, when it differs (a call
     that starts no thread), because the setting is process-wide. Sessions on different threads
     may share this backend, but two sessions with different thread counts running at once see
     each other's setting.
*/
#ifndef MMD_OPENBLAS_H
#define MMD_OPENBLAS_H

#include "../mmdeploy.h"

#ifndef MMD_HAVE_OPENBLAS
#define MMD_HAVE_OPENBLAS 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Fills b with the OpenBLAS backend (name "openblas", no user pointer). Any phase. */
MMD_API void mmd_openblas_backend(mmd_backend *b);

#ifdef __cplusplus
}
#endif
#endif /* MMD_OPENBLAS_H */

#if defined(MMD_OPENBLAS_IMPLEMENTATION) && !defined(MMD_OPENBLAS_IMPLEMENTED)
#define MMD_OPENBLAS_IMPLEMENTED
/* ==== >>openblas implementation ==== */
#include <stdio.h>
#include <string.h>

#if MMD_HAVE_OPENBLAS
#include <limits.h>
#include <stdlib.h>

#include <cblas.h>

#include "mmd_backend_util.h"

enum { MMD__BLAS_CONV, MMD__BLAS_GEMM, MMD__BLAS_MATMUL, MMD__BLAS_OPS };
static const char *const mmd__blas_op_names[MMD__BLAS_OPS] = {"Conv", "Gemm", "MatMul"};

/* Per session: the reference kernels the claimed kernels wrap and the claim table. */
typedef struct mmd__blas {
    const mmd_kernel *ref[MMD__BLAS_OPS];
    mmd_kernel kernels[MMD__BLAS_OPS];
    mmd_backend_rule rules[MMD__BLAS_OPS];
    int32_t rule_count;
} mmd__blas;

/* ==== >>openblas conv ==== */
/* The session's thread count for the sgemm calls to come (see THREADS above). */
static void mmd__blas_threads(const mmd_kernel_ctx *c) {
#ifdef OPENBLAS_VERSION
    int threads = c->threads > 1 ? (int)c->threads : 1;
    if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
#else
    (void)c;
#endif
}

/* CBLAS takes int sizes. */
static int32_t mmd__blas_fits(int64_t m, int64_t n, int64_t k) {
    return m <= INT_MAX && n <= INT_MAX && k <= INT_MAX && m * n <= INT_MAX && m * k <= INT_MAX &&
           k * n <= INT_MAX;
}
/* Spatial axes right-aligned into three, as the reference kernels do, so 1-D to 3-D convs
   share one im2col. */
typedef struct mmd__blas_conv {
    int64_t in[3], out[3], k[3], s[3], d[3], pad[3];
    int64_t batch, in_ch, out_ch, group;
    int64_t in_plane, out_plane, ksize;
    int32_t direct;                  /* 1x1, stride 1, unpadded: the input is the column matrix */
} mmd__blas_conv;

static mmd_status mmd__blas_conv_prepare(mmd_kernel_ctx *c) {
    const mmd__blas *h = (const mmd__blas *)c->backend;
    const mmd_kernel *ref = h->ref[MMD__BLAS_CONV];
    mmd__blas_conv *p = (mmd__blas_conv *)mmd__bk_own(c, ref);
    const mmd_tensor *x = c->inputs[0], *w = c->inputs[1], *y;
    mmd__bk_window win;
    int32_t n, a, j;
    mmd_status st = ref->prepare(c);
    if (st != MMD_OK) return st;
    mmd__blas_threads(c);
    y = c->outputs[0];
    n = x->rank - 2;
    if ((st = mmd__bk_window_read(c, n, x->dims + 2, w->dims + 2, y->dims + 2, &win)) != MMD_OK) return st;
    for (a = 0; a < 3; ++a) {
        j = a - (3 - n);
        p->in[a] = j < 0 ? 1 : x->dims[2 + j];
        p->out[a] = j < 0 ? 1 : y->dims[2 + j];
        p->k[a] = j < 0 ? 1 : win.k[j];
        p->s[a] = j < 0 ? 1 : win.s[j];
        p->d[a] = j < 0 ? 1 : win.d[j];
        p->pad[a] = j < 0 ? 0 : win.pad[j];
    }
    p->batch = x->dims[0];
    p->in_ch = x->dims[1];
    p->out_ch = w->dims[0];
    if ((st = mmd_attr_get_int(c, "group", 1, &p->group)) != MMD_OK) return st;
    p->in_plane = p->in[0] * p->in[1] * p->in[2];
    p->out_plane = p->out[0] * p->out[1] * p->out[2];
    p->ksize = p->k[0] * p->k[1] * p->k[2];
    p->direct = p->ksize == 1;
    for (a = 0; a < 3; ++a)
        if (p->s[a] != 1 || p->pad[a] || p->in[a] != p->out[a]) p->direct = 0;
    if (!mmd__blas_fits(p->out_ch, p->out_plane, p->in_ch * p->ksize))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "openblas: matrix sizes past INT_MAX");
    c->scratch_size = p->direct ? 0
                                : (size_t)(p->in_ch / p->group * p->ksize * p->out_plane) * sizeof(float);
    return MMD_OK;
}

/* Column matrix of one group: row (ci, t0, t1, t2) holds, for every output position, the input
   element tap (t0, t1, t2) of input channel ci reads, zero where it falls in the padding. Along
   the last axis the taps inside the input are one run, copied without bounds tests. */
static void mmd__blas_im2col(const mmd__blas_conv *p, const float *x, int64_t channels, float *col) {
    int64_t ci, t0, t1, t2, o0, o1, o2, w = p->out[2], s2 = p->s[2];
    for (ci = 0; ci < channels; ++ci)
        for (t0 = 0; t0 < p->k[0]; ++t0)
            for (t1 = 0; t1 < p->k[1]; ++t1)
                for (t2 = 0; t2 < p->k[2]; ++t2) {
                    /* Outputs [lo, hi) read input columns first + o2 * s2 inside [0, in[2]). */
                    int64_t first = t2 * p->d[2] - p->pad[2];
                    int64_t lo = first < 0 ? (-first + s2 - 1) / s2 : 0;
                    int64_t hi = first >= p->in[2] ? 0 : (p->in[2] - 1 - first) / s2 + 1;
                    if (hi > w) hi = w;
                    if (lo > hi) lo = hi;
                    for (o0 = 0; o0 < p->out[0]; ++o0) {
                        int64_t i0 = o0 * p->s[0] - p->pad[0] + t0 * p->d[0];
                        for (o1 = 0; o1 < p->out[1]; ++o1, col += w) {
                            int64_t i1 = o1 * p->s[1] - p->pad[1] + t1 * p->d[1];
                            const float *row;
                            if (i0 < 0 || i0 >= p->in[0] || i1 < 0 || i1 >= p->in[1]) {
                                memset(col, 0, (size_t)w * sizeof(float));
                                continue;
                            }
                            row = x + (ci * p->in[0] + i0) * p->in[1] * p->in[2] + i1 * p->in[2] + first;
                            for (o2 = 0; o2 < lo; ++o2) col[o2] = 0.0f;
                            if (s2 == 1) memcpy(col + lo, row + lo, (size_t)(hi - lo) * sizeof(float));
                            else
                                for (o2 = lo; o2 < hi; ++o2) col[o2] = row[o2 * s2];
                            for (o2 = hi; o2 < w; ++o2) col[o2] = 0.0f;
                        }
                    }
                }
}

static mmd_status mmd__blas_conv_eval(mmd_kernel_ctx *c) {
    const mmd__blas *h = (const mmd__blas *)c->backend;
    const mmd__blas_conv *p = (const mmd__blas_conv *)mmd__bk_own(c, h->ref[MMD__BLAS_CONV]);
    const float *x = (const float *)c->inputs[0]->data, *w = (const float *)c->inputs[1]->data;
    const float *bias = c->input_count > 2 && c->inputs[2] ? (const float *)c->inputs[2]->data : NULL;
    float *y = (float *)c->outputs[0]->data, *col = (float *)c->scratch;
    int64_t cg = p->in_ch / p->group, mg = p->out_ch / p->group, kdim = cg * p->ksize, b, g, m, i;
    /* Empty outputs need nothing; an empty reduction (no input channel) leaves the bias. */
    if (mg == 0 || p->out_plane == 0) return MMD_OK;
    mmd__blas_threads(c);
    if (kdim == 0) {
        for (i = 0; i < p->batch * p->out_ch * p->out_plane; ++i)
            y[i] = bias ? bias[i / p->out_plane % p->out_ch] : 0.0f;
        return MMD_OK;
    }
    for (b = 0; b < p->batch; ++b)
        for (g = 0; g < p->group; ++g) {
            const float *xg = x + (b * p->in_ch + g * cg) * p->in_plane;
            float *yg = y + (b * p->out_ch + g * mg) * p->out_plane;
            if (bias)
                for (m = 0; m < mg; ++m)
                    for (i = 0; i < p->out_plane; ++i) yg[m * p->out_plane + i] = bias[g * mg + m];
            if (!p->direct) mmd__blas_im2col(p, xg, cg, col);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)p->out_plane, (int)kdim,
                        1.0f, w + g * mg * kdim, (int)kdim, p->direct ? xg : col, (int)p->out_plane,
                        bias ? 1.0f : 0.0f, yg, (int)p->out_plane);
        }
    return MMD_OK;
}

/* ==== >>openblas gemm ==== */
typedef struct mmd__blas_gemm {
    int64_t m, n, k, cs0, cs1;       /* C read as c[i * cs0 + j * cs1], 0 where broadcast */
    float alpha, beta;
    int32_t trans_a, trans_b, has_c;
} mmd__blas_gemm;

static mmd_status mmd__blas_gemm_prepare(mmd_kernel_ctx *c) {
    const mmd__blas *h = (const mmd__blas *)c->backend;
    const mmd_kernel *ref = h->ref[MMD__BLAS_GEMM];
    mmd__blas_gemm *p = (mmd__blas_gemm *)mmd__bk_own(c, ref);
    const mmd_tensor *a = c->inputs[0], *cm;
    int64_t ta, tb;
    mmd_status st = ref->prepare(c);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "transA", 0, &ta);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "transB", 0, &tb);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "alpha", 1.0f, &p->alpha);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "beta", 1.0f, &p->beta);
    if (st != MMD_OK) return st;
    mmd__blas_threads(c);
    p->trans_a = ta != 0;
    p->trans_b = tb != 0;
    p->m = c->outputs[0]->dims[0];
    p->n = c->outputs[0]->dims[1];
    p->k = a->dims[p->trans_a ? 0 : 1];
    if (!mmd__blas_fits(p->m, p->n, p->k))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "openblas: matrix sizes past INT_MAX");
    cm = c->input_count > 2 ? c->inputs[2] : NULL;
    p->has_c = cm != NULL;
    if (cm) {
        p->cs1 = cm->rank >= 1 && cm->dims[cm->rank - 1] != 1 ? 1 : 0;
        p->cs0 = cm->rank == 2 && cm->dims[0] != 1 ? cm->dims[1] : 0;
    }
    return MMD_OK;
}

static mmd_status mmd__blas_gemm_eval(mmd_kernel_ctx *c) {
    const mmd__blas *h = (const mmd__blas *)c->backend;
    const mmd__blas_gemm *p = (const mmd__blas_gemm *)mmd__bk_own(c, h->ref[MMD__BLAS_GEMM]);
    float *y = (float *)c->outputs[0]->data;
    int64_t i, j;
    if (p->has_c) {
        const float *cm = (const float *)c->inputs[2]->data;
        for (i = 0; i < p->m; ++i)
            for (j = 0; j < p->n; ++j) y[i * p->n + j] = p->beta * cm[i * p->cs0 + j * p->cs1];
    }
    /* CBLAS rejects a zero leading dimension (and says so on stderr): an empty product adds 0. */
    if (p->m == 0 || p->n == 0) return MMD_OK;
    mmd__blas_threads(c);
    if (p->k == 0) {
        if (!p->has_c) memset(y, 0, (size_t)(p->m * p->n) * sizeof(float));
        return MMD_OK;
    }
    cblas_sgemm(CblasRowMajor, p->trans_a ? CblasTrans : CblasNoTrans, p->trans_b ? CblasTrans : CblasNoTrans,
                (int)p->m, (int)p->n, (int)p->k, p->alpha, (const float *)c->inputs[0]->data,
                (int)(p->trans_a ? p->m : p->k), (const float *)c->inputs[1]->data,
                (int)(p->trans_b ? p->k : p->n), p->has_c ? 1.0f : 0.0f, y, (int)p->n);
    return MMD_OK;
}

/* ==== >>openblas matmul ==== */
/* The broadcast batch axes are walked with per-axis matrix strides of A and B (0 where an
   operand is broadcast); when B has no batch axes, A's batch folds into the rows of one sgemm. */
typedef struct mmd__blas_matmul {
    int64_t m, n, k;
    int32_t rank;                    /* batch axes of the output */
    int64_t dims[MMD_MAX_RANK], sa[MMD_MAX_RANK], sb[MMD_MAX_RANK];
    int64_t batch;                   /* product of dims */
    int32_t fold;                    /* 1: one sgemm of batch * m rows */
} mmd__blas_matmul;

static mmd_status mmd__blas_matmul_prepare(mmd_kernel_ctx *c) {
    const mmd__blas *h = (const mmd__blas *)c->backend;
    const mmd_kernel *ref = h->ref[MMD__BLAS_MATMUL];
    mmd__blas_matmul *p = (mmd__blas_matmul *)mmd__bk_own(c, ref);
    const mmd_tensor *a = c->inputs[0], *b = c->inputs[1];
    int32_t ra, rb, i;
    int64_t stride_a, stride_b;
    mmd_status st = ref->prepare(c);
    if (st != MMD_OK) return st;
    mmd__blas_threads(c);
    p->m = a->rank > 1 ? a->dims[a->rank - 2] : 1;
    p->k = a->dims[a->rank - 1];
    p->n = b->rank > 1 ? b->dims[b->rank - 1] : 1;
    ra = a->rank > 2 ? a->rank - 2 : 0;
    rb = b->rank > 2 ? b->rank - 2 : 0;
    p->rank = ra > rb ? ra : rb;
    p->batch = 1;
    stride_a = p->m * p->k;
    stride_b = p->k * p->n;
    /* From the last batch axis back, so each stride is the product of the axes after it. */
    for (i = p->rank - 1; i >= 0; --i) {
        int32_t ia = i - (p->rank - ra), ib = i - (p->rank - rb);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        p->dims[i] = da > db ? da : db;
        p->sa[i] = da == 1 ? 0 : stride_a;
        p->sb[i] = db == 1 ? 0 : stride_b;
        stride_a *= da;
        stride_b *= db;
        p->batch *= p->dims[i];
    }
    p->fold = rb == 0;
    if (!mmd__blas_fits(p->fold ? p->batch * p->m : p->m, p->n, p->k))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "openblas: matrix sizes past INT_MAX");
    return MMD_OK;
}

static mmd_status mmd__blas_matmul_eval(mmd_kernel_ctx *c) {
    const mmd__blas *h = (const mmd__blas *)c->backend;
    const mmd__blas_matmul *p = (const mmd__blas_matmul *)mmd__bk_own(c, h->ref[MMD__BLAS_MATMUL]);
    const float *a = (const float *)c->inputs[0]->data, *b = (const float *)c->inputs[1]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t idx[MMD_MAX_RANK], t, oa = 0, ob = 0;
    int32_t i;
    if (p->batch * p->m == 0 || p->n == 0) return MMD_OK;
    mmd__blas_threads(c);
    if (p->k == 0) {
        memset(y, 0, (size_t)(p->batch * p->m * p->n) * sizeof(float));
        return MMD_OK;
    }
    if (p->fold) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(p->batch * p->m), (int)p->n, (int)p->k,
                    1.0f, a, (int)p->k, b, (int)p->n, 0.0f, y, (int)p->n);
        return MMD_OK;
    }
    for (i = 0; i < p->rank; ++i) idx[i] = 0;
    for (t = 0; t < p->batch; ++t) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p->m, (int)p->n, (int)p->k, 1.0f, a + oa,
                    (int)p->k, b + ob, (int)p->n, 0.0f, y + t * p->m * p->n, (int)p->n);
        /* Odometer step over the batch axes, moving the operand offsets along. */
        for (i = p->rank - 1; i >= 0; --i) {
            oa += p->sa[i];
            ob += p->sb[i];
            if (++idx[i] < p->dims[i]) break;
            oa -= p->sa[i] * p->dims[i];
            ob -= p->sb[i] * p->dims[i];
            idx[i] = 0;
        }
    }
    return MMD_OK;
}

/* ==== >>openblas backend ==== */
static void mmd__blas_version(void *user, char *buf, size_t cap) {
    (void)user;
#ifdef OPENBLAS_VERSION
    snprintf(buf, cap, "%s", openblas_get_config());
#else
    snprintf(buf, cap, "CBLAS (headers not from OpenBLAS)");
#endif
}

static mmd_status mmd__blas_check_env(void *user, char *buf, size_t cap) {
    (void)user;
#ifdef OPENBLAS_VERSION
    snprintf(buf, cap, "OpenBLAS core %s, %d thread%s now; sessions set mmd_options.threads",
             openblas_get_corename(), openblas_get_num_threads(), openblas_get_num_threads() == 1 ? "" : "s");
#else
    snprintf(buf, cap, "CBLAS linked; thread count unknown");
#endif
    return MMD_OK;
}

static void mmd__blas_op_fns(int32_t op, size_t *own, mmd_kernel_fn *prepare, mmd_kernel_fn *eval) {
    static const mmd_kernel_fn prepares[MMD__BLAS_OPS] = {mmd__blas_conv_prepare, mmd__blas_gemm_prepare,
                                                          mmd__blas_matmul_prepare};
    static const mmd_kernel_fn evals[MMD__BLAS_OPS] = {mmd__blas_conv_eval, mmd__blas_gemm_eval,
                                                       mmd__blas_matmul_eval};
    static const size_t owns[MMD__BLAS_OPS] = {sizeof(mmd__blas_conv), sizeof(mmd__blas_gemm),
                                               sizeof(mmd__blas_matmul)};
    *own = owns[op];
    *prepare = prepares[op];
    *eval = evals[op];
}

static mmd_status mmd__blas_create(void *user, const mmd_backend_args *args, void **handle, mmd_error *err) {
    mmd__blas *h = (mmd__blas *)calloc(1, sizeof(mmd__blas));
    (void)user;
    if (!h) return mmd_error_set(err, MMD_ERR_OUT_OF_MEMORY, -1, NULL, "openblas: out of memory");
    h->rule_count =
        mmd__bk_table(args->model, mmd__blas_op_names, MMD__BLAS_OPS, mmd__blas_op_fns, h->ref, h->kernels, h->rules);
    *handle = h;
    return MMD_OK;
}

static void mmd__blas_destroy(void *user, void *handle) {
    (void)user;
    free(handle);
}

static const mmd_kernel *mmd__blas_claim(void *user, void *handle, const mmd_model *m, int32_t node) {
    const mmd__blas *h = (const mmd__blas *)handle;
    const mmd_node *n = &m->nodes[node];
    const mmd_kernel *k = mmd_backend_match(h->rules, (size_t)h->rule_count, m, node);
    (void)user;
    /* Depthwise: weight [C, 1, ...] with group == C. */
    if (k == &h->kernels[MMD__BLAS_CONV] && n->input_count > 1 && n->in[1] && n->in[1]->rank >= 3 &&
        n->in[1]->dims[1] == 1) {
        const mmd_attr *g = mmd_node_attr(n, "group");
        if (g && g->type == MMD_ATTR_INT && g->i > 1) return NULL;
    }
    return k;
}

MMD_API void mmd_openblas_backend(mmd_backend *b) {
    memset(b, 0, sizeof(*b));
    b->abi_version = MMD_BACKEND_ABI_VERSION;
    b->name = "openblas";
    b->get_version = mmd__blas_version;
    b->check_env = mmd__blas_check_env;
    b->create = mmd__blas_create;
    b->destroy = mmd__blas_destroy;
    b->claim = mmd__blas_claim;
}

#else /* !MMD_HAVE_OPENBLAS */

static int32_t mmd__blas_unavailable(void *user) {
    (void)user;
    return 0;
}

static mmd_status mmd__blas_check_env(void *user, char *buf, size_t cap) {
    (void)user;
    snprintf(buf, cap, "built without OpenBLAS (install libopenblas-dev and rebuild)");
    return MMD_ERR_UNSUPPORTED;
}

MMD_API void mmd_openblas_backend(mmd_backend *b) {
    memset(b, 0, sizeof(*b));
    b->abi_version = MMD_BACKEND_ABI_VERSION;
    b->name = "openblas";
    b->is_available = mmd__blas_unavailable;
    b->check_env = mmd__blas_check_env;
}

#endif /* MMD_HAVE_OPENBLAS */
#endif /* MMD_OPENBLAS_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the mmdeploy.h developers

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
