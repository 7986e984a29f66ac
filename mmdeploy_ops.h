/* mmdeploy_ops.h - v0.1.0 - MIT licence (see end of file)
   Reference CPU kernels for mmdeploy.h and the table that names them.

   QUICK START
     const mmd_kernel *k = mmd_ops_find("", "Conv", 13);   // NULL when there is no kernel
     for (size_t i = 0; i < mmd_ops_count(); ++i) puts(mmd_ops_at(i)->op_type);

   WHAT IT DOES NOT DO
     No threads, no SIMD intrinsics: plain loops that any C99 compiler vectorises as it can.
     No quantized ops and no dtypes beyond those listed below (MMD_ERR_DTYPE); no training
     (BatchNormalization's running statistics are MMD_ERR_UNSUPPORTED).

   NUMERIC KERNELS (ai.onnx; float32 unless noted; opset ranges inclusive)
     Conv 1-25             1-D to 3-D, group (depthwise too), strides, dilations, pads, auto_pad
     MaxPool 1-25          ceil_mode, dilations, pads, auto_pad, optional Indices output
     AveragePool 1-25      count_include_pad, ceil_mode, dilations, pads, auto_pad
     GlobalAveragePool 1-25, BatchNormalization 7-25 (inference), Gemm 7-25, MatMul 1-25,
     Softmax 1-25 (2-D coercion before 13), ReduceMean 1-25 (axes input from 18)
     Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, Tanh, Sqrt 1-25, Erf 9-25, HardSwish 14-25
     Add, Sub, Mul, Div 7-25   also int32 and int64 (integer Div truncates toward zero)
     Pow 7-25              float32 base, float32, int32 or int64 exponent
     Cast 6-25             among float32, float64, float16, bfloat16, int8/16/32/64,
                           uint8/16/32 and bool

   SHAPE AND LAYOUT KERNELS (ai.onnx; every dtype but string: they move bytes, not values)
     Reshape, Squeeze, Unsqueeze, Flatten, Identity, Transpose, Concat, Split, Gather,
     Slice, Shape, Size, Constant 1-25; Expand 8-25; ConstantOfShape 9-25;
     Dropout 1-25 (inference only: the output is the input, the mask all ones)
     Shape and dims inputs (Reshape's shape, Slice's starts/ends/axes/steps, the axes of
     Squeeze and Unsqueeze, Split's sizes, Expand's shape) must be known at prepare time.

     25 is the newest opset whose changelog was read: a newer model gets MMD_ERR_NO_KERNEL.

   KERNEL CONTRACT
     A kernel is {domain, op_type, min_opset, max_opset, flags, op_data_size, prepare, eval}.
     prepare validates input count, dtypes, ranks, attributes and any input it needs as a
     constant, sets each output's dtype, rank and dims, stores what eval needs in op_data and
     requests scratch. eval reads inputs, writes outputs, op data and scratch, and nothing
     else: no static mutable state, no allocation, no printing; every loop is bounded by
     something prepare checked. eval returns a status only for data-dependent errors (an index
     out of range at run time, an integer division by zero).
     An input whose value (not just its shape) prepare reads is flagged
     MMD_KERNEL_VALUE_INPUT(i); prepare reads it only when mmd_tensor_is_const says it is
     known, and otherwise fails with MMD_ERR_UNSUPPORTED naming the input.

   THREAD SAFETY
     The table is const; kernels keep no state outside their op data.
*/
#ifndef MMDEPLOY_OPS_H
#define MMDEPLOY_OPS_H

#include "mmdeploy_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel for domain::op_type at this opset, or NULL. "" and "ai.onnx" are one domain. */
MMD_API const mmd_kernel *mmd_ops_find(const char *domain, const char *op_type, int64_t opset);
/* Number of table entries and entry i, for listing what is supported. */
MMD_API size_t mmd_ops_count(void);
MMD_API const mmd_kernel *mmd_ops_at(size_t i);

#ifdef __cplusplus
}
#endif

#define MMD_OPS_DECLS
#if defined(MMD_IMPLEMENTATION) && !defined(MMD_CORE_IMPLEMENTED)
#include "mmdeploy.h"
#endif
#endif /* MMDEPLOY_OPS_H */

#if (defined(MMD_IMPLEMENTATION) || defined(MMD_OPS_IMPLEMENTATION)) && defined(MMD_IR_DECLS) && \
    defined(MMD_OPS_DECLS) && !defined(MMD_OPS_IMPLEMENTED)
#define MMD_OPS_IMPLEMENTED
/* ==== >>ops implementation ==== */
#include <float.h>
#include <math.h>
#include <string.h>

/* Newest ai.onnx opset whose changelog was read for these kernels (ONNX 1.20, opset 25): the
   later versions of every op here only added element types. A newer model gets
   MMD_ERR_NO_KERNEL instead of a guess. */
#define MMD__OPSET_CHECKED 25
/* Element count bound (zero dims counted as one) that every input and output of these kernels
   is checked against, and bound on strides, dilations and pads: together they keep all index
   arithmetic inside int64_t whatever dims the model declares. */
#define MMD__ELEMS_MAX ((int64_t)1 << 40)
#define MMD__ATTR_MAX ((int64_t)1 << 20)

/* Kernels read inputs and write outputs that never share memory, which lets the compiler
   vectorise the inner loops; C++ has no `restrict`, the common compilers spell it __restrict. */
#if !defined(__cplusplus)
#define MMD__RESTRICT restrict
#elif defined(__GNUC__) || defined(_MSC_VER)
#define MMD__RESTRICT __restrict
#else
#define MMD__RESTRICT
#endif

/* ==== >>ops helpers ==== */

/* 1 when rank is valid and the dims (zeros counted as ones) multiply to at most MMD__ELEMS_MAX. */
static int32_t mmd__dims_bounded(int32_t rank, const int64_t *dims) {
    int64_t p = 1;
    int32_t i;
    if (rank < 0 || rank > MMD_MAX_RANK) return 0;
    for (i = 0; i < rank; ++i) {
        int64_t d = dims[i] > 1 ? dims[i] : 1;
        if (dims[i] < 0 || d > MMD__ELEMS_MAX / p) return 0;
        p *= d;
    }
    return 1;
}

/* Writes "[1,3,224,224]" into buf for error messages; cut short rather than overflow. */
static const char *mmd__dims_text(char *buf, size_t cap, int32_t rank, const int64_t *dims) {
    size_t len = 0;
    int32_t i;
    buf[len++] = '[';
    for (i = 0; i < rank && len + 24 < cap; ++i) {
        char digits[24];
        int32_t n = 0;
        uint64_t v = dims[i] < 0 ? (uint64_t)0 - (uint64_t)dims[i] : (uint64_t)dims[i];
        if (i) buf[len++] = ',';
        if (dims[i] < 0) buf[len++] = '-';
        do { digits[n++] = (char)('0' + (int)(v % 10u)); v /= 10u; } while (v);
        while (n) buf[len++] = digits[--n];
    }
    if (i < rank) buf[len++] = '.';
    buf[len++] = ']';
    buf[len] = '\0';
    return buf;
}

/* Checks input and output counts, that the first `required` inputs and output 0 are present,
   and that every present input has bounded dims. */
static mmd_status mmd__check_io(mmd_kernel_ctx *c, int32_t required, int32_t max_in,
                                int32_t max_out) {
    int32_t i;
    if (c->input_count < required || c->input_count > max_in)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has %d inputs, expects %d to %d",
                               (int)c->input_count, (int)required, (int)max_in);
    if (c->output_count < 1 || c->output_count > max_out || !c->outputs[0])
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has %d outputs, expects 1 to %d",
                               (int)c->output_count, (int)max_out);
    for (i = 0; i < c->input_count; ++i) {
        const mmd_tensor *t = c->inputs[i];
        if (!t) {
            if (i < required) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "input %d is required", (int)i);
            continue;
        }
        if (!mmd__dims_bounded(t->rank, t->dims))
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "input %d '%s' has rank %d or too many elements",
                                   (int)i, t->name ? t->name : "", (int)t->rank);
    }
    return MMD_OK;
}

/* Fails with MMD_ERR_DTYPE unless input i has the given dtype. */
static mmd_status mmd__want_dtype(mmd_kernel_ctx *c, int32_t i, int32_t dtype) {
    const mmd_tensor *t = c->inputs[i];
    if (t->dtype == dtype) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input %d '%s' is %s, expects %s", (int)i,
                           t->name ? t->name : "", mmd_dtype_name(t->dtype), mmd_dtype_name(dtype));
}

/* Fails with MMD_ERR_DTYPE unless every present input has the given dtype. */
static mmd_status mmd__want_dtype_all(mmd_kernel_ctx *c, int32_t dtype) {
    int32_t i;
    mmd_status st;
    for (i = 0; i < c->input_count; ++i)
        if (c->inputs[i] && (st = mmd__want_dtype(c, i, dtype)) != MMD_OK) return st;
    return MMD_OK;
}

/* Fails with MMD_ERR_SHAPE unless input i has a rank in [lo, hi]. */
static mmd_status mmd__want_rank(mmd_kernel_ctx *c, int32_t i, int32_t lo, int32_t hi) {
    const mmd_tensor *t = c->inputs[i];
    if (t->rank >= lo && t->rank <= hi) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d '%s' has rank %d, expects %d to %d", (int)i,
                           t->name ? t->name : "", (int)t->rank, (int)lo, (int)hi);
}

/* Sets output i's dtype and shape after checking them: a negative dim is MMD_ERR_SHAPE; a rank
   past MMD_MAX_RANK, more than MMD__ELEMS_MAX elements or more than MMD_MAX_TENSOR_BYTES is
   MMD_ERR_LIMIT. */
static mmd_status mmd__set_output(mmd_kernel_ctx *c, int32_t i, int32_t dtype, int32_t rank,
                                  const int64_t *dims) {
    mmd_tensor *t = c->outputs[i];
    mmd_error why;
    size_t bytes;
    int32_t d;
    for (d = 0; d < rank && d < MMD_MAX_RANK; ++d)
        if (dims[d] < 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "output %d would have dim %d = %lld", (int)i,
                                   (int)d, (long long)dims[d]);
    if (!mmd__dims_bounded(rank, dims))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "output %d would have rank %d or too many elements",
                               (int)i, (int)rank);
    t->dtype = dtype;
    t->rank = rank;
    for (d = 0; d < rank; ++d) t->dims[d] = dims[d];
    if (mmd_tensor_nbytes(t, &bytes, &why) != MMD_OK)
        return mmd_kernel_fail(c, why.status, "output %d: %s", (int)i, why.msg);
    return MMD_OK;
}

/* Product of dims [from, to) of t. */
static int64_t mmd__dims_product(const mmd_tensor *t, int32_t from, int32_t to) {
    int64_t p = 1;
    int32_t d;
    for (d = from; d < to; ++d) p *= t->dims[d];
    return p;
}

/* Copies t's bytes to out (same dtype and element count) unless both are at one address. */
static void mmd__copy_tensor(const mmd_tensor *t, mmd_tensor *out) {
    size_t bytes = (size_t)mmd_tensor_numel(t) * mmd_dtype_size(t->dtype);
    if (bytes && out->data != t->data) memcpy(out->data, t->data, bytes);
}

/* Axis attribute in [-rank, rank - 1] made non-negative (*out is 0 on failure). */
static mmd_status mmd__norm_axis(mmd_kernel_ctx *c, int64_t axis, int32_t rank, int32_t *out) {
    *out = 0;
    if (axis < -(int64_t)rank || axis >= rank)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                               (long long)axis, (int)rank);
    *out = (int32_t)(axis < 0 ? axis + rank : axis);
    return MMD_OK;
}

/* y += a * x over n floats. Unrolled by hand because GCC at -O2 vectorises only loops whose
   trip count it knows; the unrolled body it still turns into vector instructions. */
static void mmd__axpy_f32(int64_t n, float a, const float *MMD__RESTRICT x, float *MMD__RESTRICT y) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        y[i + 0] += a * x[i + 0];
        y[i + 1] += a * x[i + 1];
        y[i + 2] += a * x[i + 2];
        y[i + 3] += a * x[i + 3];
        y[i + 4] += a * x[i + 4];
        y[i + 5] += a * x[i + 5];
        y[i + 6] += a * x[i + 6];
        y[i + 7] += a * x[i + 7];
    }
    for (; i < n; ++i) y[i] += a * x[i];
}

/* Sum of x[i] * y[i] with four partial sums, which breaks the add dependency chain. */
static float mmd__dot_f32(int64_t n, const float *x, const float *y) {
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i + 0] * y[i + 0];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; ++i) s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* y (m x n, rows contiguous) += alpha * A * B with A(i,p) = a[i*as0 + p*as1] and
   B(p,j) = b[p*bs0 + j*bs1], so one routine serves Gemm's transposes and MatMul's batches.
   The loop order keeps the innermost loop on contiguous memory where the layout allows. */
static void mmd__gemm_f32(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t as0,
                          int64_t as1, const float *b, int64_t bs0, int64_t bs1, float *y) {
    int64_t i, j, p;
    if (as1 == 1 && bs0 == 1 && (bs1 != 1 || n == 1)) {
        for (i = 0; i < m; ++i)
            for (j = 0; j < n; ++j) y[i * n + j] += alpha * mmd__dot_f32(k, a + i * as0, b + j * bs1);
    } else if (bs1 == 1) {
        for (i = 0; i < m; ++i)
            for (p = 0; p < k; ++p) mmd__axpy_f32(n, alpha * a[i * as0 + p * as1], b + p * bs0, y + i * n);
    } else {
        for (i = 0; i < m; ++i)
            for (j = 0; j < n; ++j) {
                float s = 0.0f;
                for (p = 0; p < k; ++p) s += a[i * as0 + p * as1] * b[p * bs0 + j * bs1];
                y[i * n + j] += alpha * s;
            }
    }
}

/* ==== >>ops element conversion ==== */

/* IEEE half from float, rounding to nearest even; overflow gives infinity, NaN stays NaN. */
static uint16_t mmd__f32_to_f16(float f) {
    uint32_t x, sign, e, h;
    memcpy(&x, &f, sizeof x);
    sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0u));
    if (x >= 0x47800000u) return (uint16_t)(sign | 0x7c00u);
    e = x >> 23;
    if (e < 102) return (uint16_t)sign;
    if (e < 113) {
        /* Subnormal half: the 24-bit significand shifted to units of 2^-24. */
        uint32_t m = (x & 0x7fffffu) | 0x800000u, shift = 126 - e, rest = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        h = m >> shift;
        if (rest > half || (rest == half && (h & 1u))) ++h;
        return (uint16_t)(sign | h);
    }
    h = ((e - 112) << 10) | ((x >> 13) & 0x3ffu);
    /* A carry out of the mantissa correctly bumps the exponent, up to infinity. */
    if ((x & 0x1fffu) > 0x1000u || ((x & 0x1fffu) == 0x1000u && (h & 1u))) ++h;
    return (uint16_t)(sign | h);
}

static float mmd__f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    float f;
    if (e == 0) {
        f = (float)m * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    x = sign | (e == 31 ? 0x7f800000u : (e + 112) << 23) | (m << 13);
    memcpy(&f, &x, sizeof f);
    return f;
}

/* bfloat16 is the top half of a float; rounding to nearest even, NaN kept quiet. */
static uint16_t mmd__f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static float mmd__bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* 1 for the float dtypes, 2 for the integer ones and bool, 0 for those Cast does not take. */
static int32_t mmd__cast_kind(int32_t dtype) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: case MMD_DTYPE_FLOAT64: case MMD_DTYPE_FLOAT16: case MMD_DTYPE_BFLOAT16:
        return 1;
    case MMD_DTYPE_INT8: case MMD_DTYPE_UINT8: case MMD_DTYPE_INT16: case MMD_DTYPE_UINT16:
    case MMD_DTYPE_INT32: case MMD_DTYPE_UINT32: case MMD_DTYPE_INT64: case MMD_DTYPE_BOOL:
        return 2;
    default:
        return 0;
    }
}

static double mmd__load_float(int32_t dtype, const void *p, int64_t i) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: return ((const float *)p)[i];
    case MMD_DTYPE_FLOAT64: return ((const double *)p)[i];
    case MMD_DTYPE_FLOAT16: return mmd__f16_to_f32(((const uint16_t *)p)[i]);
    default: return mmd__bf16_to_f32(((const uint16_t *)p)[i]);
    }
}

static int64_t mmd__load_int(int32_t dtype, const void *p, int64_t i) {
    switch (dtype) {
    case MMD_DTYPE_INT8: return ((const int8_t *)p)[i];
    case MMD_DTYPE_UINT8: case MMD_DTYPE_BOOL: return ((const uint8_t *)p)[i];
    case MMD_DTYPE_INT16: return ((const int16_t *)p)[i];
    case MMD_DTYPE_UINT16: return ((const uint16_t *)p)[i];
    case MMD_DTYPE_INT32: return ((const int32_t *)p)[i];
    case MMD_DTYPE_UINT32: return ((const uint32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
    }
}

/* Integers narrow by wrapping, as numpy's astype and C casts do on every common target. */
static void mmd__store_int(int32_t dtype, void *p, int64_t i, int64_t v) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case MMD_DTYPE_FLOAT64: ((double *)p)[i] = (double)v; break;
    case MMD_DTYPE_FLOAT16: ((uint16_t *)p)[i] = mmd__f32_to_f16((float)v); break;
    case MMD_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = mmd__f32_to_bf16((float)v); break;
    case MMD_DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case MMD_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case MMD_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case MMD_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case MMD_DTYPE_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case MMD_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case MMD_DTYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((int64_t *)p)[i] = v; break;
    }
}

/* Floats go to integers by truncation through int64, saturated there (NaN gives 0) because an
   out-of-range float-to-integer conversion is undefined in C. */
static void mmd__store_float(int32_t dtype, void *p, int64_t i, double v) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case MMD_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case MMD_DTYPE_FLOAT16: ((uint16_t *)p)[i] = mmd__f32_to_f16((float)v); break;
    case MMD_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = mmd__f32_to_bf16((float)v); break;
    case MMD_DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0.0; break;
    default:
        mmd__store_int(dtype, p, i,
                       v != v ? 0
                       : v >= 9223372036854775808.0 ? INT64_MAX
                       : v < -9223372036854775808.0 ? INT64_MIN
                       : (int64_t)v);
        break;
    }
}

/* ==== >>ops value inputs ==== */
/* Inputs whose value prepare reads (Reshape's shape, Slice's starts, Squeeze's axes, ...) carry
   MMD_KERNEL_VALUE_INPUT(i) in the kernel's flags. prepare reads such a value only when
   mmd_tensor_is_const says it is known, and otherwise fails with MMD_ERR_UNSUPPORTED naming the
   input. */

/* Fails with MMD_ERR_UNSUPPORTED unless the value of input i is known at prepare time. */
static mmd_status mmd__want_known(mmd_kernel_ctx *c, int32_t i, const char *what) {
    const mmd_tensor *t = c->inputs[i];
    if (mmd_tensor_is_const(t)) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED,
                           "%s input is not known at prepare time (input %d '%s' has no value before run)",
                           what, (int)i, t->name ? t->name : "");
}

/* Fails unless input i is a known int32 or int64 list (rank 0 or 1); sets *count. */
static mmd_status mmd__want_int_list(mmd_kernel_ctx *c, int32_t i, const char *what, int64_t *count) {
    const mmd_tensor *t = c->inputs[i];
    mmd_status st = mmd__want_known(c, i, what);
    if (st != MMD_OK) return st;
    if (t->dtype != MMD_DTYPE_INT64 && t->dtype != MMD_DTYPE_INT32)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "%s input has dtype %s, expected int64 or int32",
                               what, mmd_dtype_name(t->dtype));
    if (t->rank > 1)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s input has rank %d, expected 1", what, (int)t->rank);
    *count = mmd_tensor_numel(t);
    return MMD_OK;
}

/* Copies into out (at most max values) an int list that is the attribute `name` before some
   opset and optional input `input` from it on; from_input picks which. *n is -1 when the list
   is absent. */
static mmd_status mmd__get_ints(mmd_kernel_ctx *c, int32_t from_input, int32_t input,
                                const char *name, int64_t *out, int32_t max, int32_t *n) {
    const mmd_tensor *t = NULL;
    const int64_t *vals = NULL;
    int64_t count = 0, i;
    mmd_status st;
    *n = -1;
    if (from_input) {
        if (input >= c->input_count || !c->inputs[input]) return MMD_OK;
        t = c->inputs[input];
        if ((st = mmd__want_int_list(c, input, name, &count)) != MMD_OK) return st;
    } else {
        if (!mmd_node_attr(c->node, name)) return MMD_OK;
        if ((st = mmd_attr_get_ints(c, name, &vals, &count)) != MMD_OK) return st;
    }
    if (count > max)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "'%s' has %lld values, more than the %d allowed here",
                               name, (long long)count, (int)max);
    for (i = 0; i < count; ++i) out[i] = t ? mmd__load_int(t->dtype, t->data, i) : vals[i];
    *n = (int32_t)count;
    return MMD_OK;
}

/* ==== >>ops broadcasting ==== */

/* Walks up to three operands over one shape: operand 0 is written, 1 and 2 are read. Each has
   its own element strides, 0 along axes it is broadcast on, so the same walk serves numpy
   broadcasting (Add, MatMul batches) and reductions (the output strided 0 on reduced axes). */
typedef struct mmd__walk {
    int32_t rank;                       /* axes after merging, at least 1 */
    int64_t dims[MMD_MAX_RANK];
    int64_t strides[3][MMD_MAX_RANK];
    size_t elem[3];                     /* element size in bytes of each operand */
} mmd__walk;

/* One innermost row of a walk: n elements, each operand advancing by its own stride. Returns a
   status only for data-dependent errors (integer division by zero). */
typedef mmd_status (*mmd__row_fn)(void *o, int64_t os, const void *a, int64_t as, const void *b,
                                  int64_t bs, int64_t n);

/* Numpy broadcast of two shapes; MMD_ERR_SHAPE names both when they are incompatible. */
static mmd_status mmd__broadcast_shape(mmd_kernel_ctx *c, int32_t ra, const int64_t *da, int32_t rb,
                                       const int64_t *db, int32_t *rank, int64_t *dims) {
    int32_t r = ra > rb ? ra : rb, i;
    for (i = 0; i < r; ++i) {
        int64_t x = i < r - ra ? 1 : da[i - (r - ra)];
        int64_t y = i < r - rb ? 1 : db[i - (r - rb)];
        if (x != y && x != 1 && y != 1) {
            char ta[96], tb[96];
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "cannot broadcast %s with %s",
                                   mmd__dims_text(ta, sizeof ta, ra, da),
                                   mmd__dims_text(tb, sizeof tb, rb, db));
        }
        dims[i] = x == 1 ? y : x;
    }
    *rank = r;
    return MMD_OK;
}

/* Strides of a contiguous tensor of shape dims read as a tensor of out_rank axes (right
   aligned, as numpy does): 0 along missing and size-1 axes. */
static void mmd__broadcast_strides(int32_t rank, const int64_t *dims, int32_t out_rank,
                                   int64_t *strides) {
    int64_t s = 1;
    int32_t i;
    for (i = out_rank - 1; i >= 0; --i) {
        int32_t j = i - (out_rank - rank);
        if (j < 0 || dims[j] == 1) {
            strides[i] = 0;
        } else {
            strides[i] = s;
            s *= dims[j];
        }
    }
}

/* Drops size-1 axes and merges neighbours that every operand steps through as one, so the
   innermost row is as long as possible; rank 0 becomes one axis of size 1. */
static void mmd__walk_merge(mmd__walk *w) {
    int32_t i, k, r = 0;
    for (i = 0; i < w->rank; ++i) {
        int32_t merge = r > 0;
        if (w->dims[i] == 1) continue;
        for (k = 0; k < 3 && merge; ++k)
            merge = w->strides[k][r - 1] == w->strides[k][i] * w->dims[i];
        if (merge) {
            w->dims[r - 1] *= w->dims[i];
            for (k = 0; k < 3; ++k) w->strides[k][r - 1] = w->strides[k][i];
            continue;
        }
        w->dims[r] = w->dims[i];
        for (k = 0; k < 3; ++k) w->strides[k][r] = w->strides[k][i];
        ++r;
    }
    if (r == 0) {
        w->dims[0] = 1;
        for (k = 0; k < 3; ++k) w->strides[k][0] = 0;
        r = 1;
    }
    w->rank = r;
}

/* Walk of two inputs broadcast against each other into a contiguous output of shape
   (rank, dims). */
static void mmd__walk_binary(mmd__walk *w, int32_t rank, const int64_t *dims, const mmd_tensor *a,
                             const mmd_tensor *b, size_t out_elem) {
    int32_t i;
    w->rank = rank;
    for (i = 0; i < rank; ++i) w->dims[i] = dims[i];
    mmd__broadcast_strides(rank, dims, rank, w->strides[0]);
    mmd__broadcast_strides(a->rank, a->dims, rank, w->strides[1]);
    mmd__broadcast_strides(b->rank, b->dims, rank, w->strides[2]);
    /* A size-1 output axis got stride 0 above; it is dropped by the merge either way. */
    w->elem[0] = out_elem;
    w->elem[1] = mmd_dtype_size(a->dtype);
    w->elem[2] = mmd_dtype_size(b->dtype);
    mmd__walk_merge(w);
}

/* Advances idx over the first `axes` axes (the last fastest) and the three operand offsets with
   it; 0 when every index has been visited. */
static int32_t mmd__walk_next(const mmd__walk *w, int32_t axes, int64_t *idx, int64_t *off) {
    int32_t d, k;
    for (d = axes - 1; d >= 0; --d) {
        for (k = 0; k < 3; ++k) off[k] += w->strides[k][d];
        if (++idx[d] < w->dims[d]) return 1;
        for (k = 0; k < 3; ++k) off[k] -= w->strides[k][d] * w->dims[d];
        idx[d] = 0;
    }
    return 0;
}

/* 1 when the walk covers no element. */
static int32_t mmd__walk_empty(const mmd__walk *w) {
    int32_t i;
    for (i = 0; i < w->rank; ++i)
        if (w->dims[i] == 0) return 1;
    return 0;
}

/* Calls row once per innermost row of the walk; b may be NULL for two-operand walks. */
static mmd_status mmd__walk_run(const mmd__walk *w, void *o, const void *a, const void *b,
                                mmd__row_fn row) {
    int64_t idx[MMD_MAX_RANK] = {0}, off[3] = {0, 0, 0};
    int32_t last = w->rank - 1;
    if (mmd__walk_empty(w)) return MMD_OK;
    for (;;) {
        mmd_status st = row((char *)o + off[0] * (int64_t)w->elem[0], w->strides[0][last],
                            (const char *)a + off[1] * (int64_t)w->elem[1], w->strides[1][last],
                            b ? (const char *)b + off[2] * (int64_t)w->elem[2] : NULL,
                            w->strides[2][last], w->dims[last]);
        if (st != MMD_OK) return st;
        if (!mmd__walk_next(w, last, idx, off)) return MMD_OK;
    }
}

/* ==== >>ops elementwise ==== */

/* Binary rows. Integer add, subtract and multiply wrap (computed unsigned) instead of
   overflowing into undefined behaviour; integer Div truncates toward zero as ONNX and C do. */
#define MMD__ROW(name, T, U, expr)                                                             \
    static mmd_status name(void *o_, int64_t os, const void *a_, int64_t as, const void *b_,   \
                           int64_t bs, int64_t n) {                                            \
        T *o = (T *)o_;                                                                        \
        const T *a = (const T *)a_;                                                            \
        const U *b = (const U *)b_;                                                            \
        int64_t i;                                                                             \
        for (i = 0; i < n; ++i) {                                                              \
            T x = a[i * as];                                                                   \
            U y = b[i * bs];                                                                   \
            o[i * os] = (expr);                                                                \
        }                                                                                      \
        return MMD_OK;                                                                         \
    }
#define MMD__DIV_INT_ROW(name, T, U)                                                           \
    static mmd_status name(void *o_, int64_t os, const void *a_, int64_t as, const void *b_,   \
                           int64_t bs, int64_t n) {                                            \
        T *o = (T *)o_;                                                                        \
        const T *a = (const T *)a_, *b = (const T *)b_;                                        \
        int64_t i;                                                                             \
        for (i = 0; i < n; ++i) {                                                              \
            T x = a[i * as], y = b[i * bs];                                                    \
            if (y == 0) return MMD_ERR_INVALID_ARGUMENT;                                       \
            /* MIN / -1 overflows; negating through unsigned gives the wrapped value. */       \
            o[i * os] = y == -1 ? (T)((U)0 - (U)x) : (T)(x / y);                               \
        }                                                                                      \
        return MMD_OK;                                                                         \
    }
MMD__ROW(mmd__add_f32_row, float, float, x + y)
MMD__ROW(mmd__sub_f32_row, float, float, x - y)
MMD__ROW(mmd__mul_f32_row, float, float, x * y)
MMD__ROW(mmd__div_f32_row, float, float, x / y)
MMD__ROW(mmd__pow_f32_row, float, float, powf(x, y))
MMD__ROW(mmd__pow_f32_i32_row, float, int32_t, powf(x, (float)y))
MMD__ROW(mmd__pow_f32_i64_row, float, int64_t, powf(x, (float)y))
MMD__ROW(mmd__add_i32_row, int32_t, int32_t, (int32_t)((uint32_t)x + (uint32_t)y))
MMD__ROW(mmd__sub_i32_row, int32_t, int32_t, (int32_t)((uint32_t)x - (uint32_t)y))
MMD__ROW(mmd__mul_i32_row, int32_t, int32_t, (int32_t)((uint32_t)x * (uint32_t)y))
MMD__DIV_INT_ROW(mmd__div_i32_row, int32_t, uint32_t)
MMD__ROW(mmd__add_i64_row, int64_t, int64_t, (int64_t)((uint64_t)x + (uint64_t)y))
MMD__ROW(mmd__sub_i64_row, int64_t, int64_t, (int64_t)((uint64_t)x - (uint64_t)y))
MMD__ROW(mmd__mul_i64_row, int64_t, int64_t, (int64_t)((uint64_t)x * (uint64_t)y))
MMD__DIV_INT_ROW(mmd__div_i64_row, int64_t, uint64_t)
#undef MMD__ROW
#undef MMD__DIV_INT_ROW

/* The row function of one op for one pair of input dtypes (the output takes the first);
   lists end with a NULL row. */
typedef struct mmd__row_entry {
    int32_t a_dtype, b_dtype;
    mmd__row_fn row;
} mmd__row_entry;

/* Add, Sub, Mul and Div take two inputs of one dtype: float32, int32 or int64. */
#define MMD__ARITH_ROWS(op)                                                                    \
    static const mmd__row_entry mmd__##op##_rows[] = {                                         \
        {MMD_DTYPE_FLOAT32, MMD_DTYPE_FLOAT32, mmd__##op##_f32_row},                           \
        {MMD_DTYPE_INT32, MMD_DTYPE_INT32, mmd__##op##_i32_row},                               \
        {MMD_DTYPE_INT64, MMD_DTYPE_INT64, mmd__##op##_i64_row},                               \
        {MMD_DTYPE_UNDEFINED, MMD_DTYPE_UNDEFINED, NULL}};
MMD__ARITH_ROWS(add)
MMD__ARITH_ROWS(sub)
MMD__ARITH_ROWS(mul)
MMD__ARITH_ROWS(div)
#undef MMD__ARITH_ROWS
/* Pow takes an integer exponent from opset 12 on; earlier models never carry one. */
static const mmd__row_entry mmd__pow_rows[] = {{MMD_DTYPE_FLOAT32, MMD_DTYPE_FLOAT32, mmd__pow_f32_row},
                                               {MMD_DTYPE_FLOAT32, MMD_DTYPE_INT32, mmd__pow_f32_i32_row},
                                               {MMD_DTYPE_FLOAT32, MMD_DTYPE_INT64, mmd__pow_f32_i64_row},
                                               {MMD_DTYPE_UNDEFINED, MMD_DTYPE_UNDEFINED, NULL}};

typedef struct mmd__binary_data {
    mmd__walk walk;
    mmd__row_fn row;
} mmd__binary_data;

/* Add, Sub, Mul, Div, Pow: input dtypes from `rows`, numpy broadcasting. */
static mmd_status mmd__binary_prepare(mmd_kernel_ctx *c, const mmd__row_entry *rows) {
    mmd__binary_data *p = (mmd__binary_data *)c->op_data;
    const mmd_tensor *a, *b;
    int64_t dims[MMD_MAX_RANK];
    int32_t rank;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st != MMD_OK) return st;
    a = c->inputs[0];
    b = c->inputs[1];
    while (rows->row && (rows->a_dtype != a->dtype || rows->b_dtype != b->dtype)) ++rows;
    if (!rows->row)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "inputs '%s' and '%s' are %s and %s, which this kernel does not take",
                               a->name ? a->name : "", b->name ? b->name : "", mmd_dtype_name(a->dtype),
                               mmd_dtype_name(b->dtype));
    st = mmd__broadcast_shape(c, a->rank, a->dims, b->rank, b->dims, &rank, dims);
    if (st == MMD_OK) st = mmd__set_output(c, 0, a->dtype, rank, dims);
    if (st != MMD_OK) return st;
    mmd__walk_binary(&p->walk, rank, dims, a, b, mmd_dtype_size(a->dtype));
    p->row = rows->row;
    return MMD_OK;
}

static mmd_status mmd__add_prepare(mmd_kernel_ctx *c) { return mmd__binary_prepare(c, mmd__add_rows); }
static mmd_status mmd__sub_prepare(mmd_kernel_ctx *c) { return mmd__binary_prepare(c, mmd__sub_rows); }
static mmd_status mmd__mul_prepare(mmd_kernel_ctx *c) { return mmd__binary_prepare(c, mmd__mul_rows); }
static mmd_status mmd__div_prepare(mmd_kernel_ctx *c) { return mmd__binary_prepare(c, mmd__div_rows); }
static mmd_status mmd__pow_prepare(mmd_kernel_ctx *c) { return mmd__binary_prepare(c, mmd__pow_rows); }

static mmd_status mmd__binary_eval(mmd_kernel_ctx *c) {
    const mmd__binary_data *p = (const mmd__binary_data *)c->op_data;
    mmd_status st = mmd__walk_run(&p->walk, c->outputs[0]->data, c->inputs[0]->data,
                                  c->inputs[1]->data, p->row);
    if (st != MMD_OK) return mmd_kernel_fail(c, st, "integer division by zero");
    return MMD_OK;
}

/* Float unary ops share one prepare and one eval; the op is picked once per call, outside
   the element loop. */
enum {
    MMD__UNARY_RELU,
    MMD__UNARY_LEAKY_RELU,
    MMD__UNARY_CLIP,
    MMD__UNARY_SIGMOID,
    MMD__UNARY_HARD_SIGMOID,
    MMD__UNARY_HARD_SWISH,
    MMD__UNARY_TANH,
    MMD__UNARY_ERF,
    MMD__UNARY_SQRT
};

typedef struct mmd__unary_data {
    int32_t op;
    float alpha, beta;                  /* LeakyRelu alpha; HardSigmoid alpha, beta; Clip min, max */
} mmd__unary_data;

static mmd_status mmd__unary_prepare(mmd_kernel_ctx *c, int32_t op, int32_t max_in) {
    mmd__unary_data *p = (mmd__unary_data *)c->op_data;
    const mmd_tensor *x;
    mmd_status st = mmd__check_io(c, 1, max_in, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    p->op = op;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims);
}

/* The unary ops without attributes differ only in the op their prepare records. */
#define MMD__UNARY_PREPARE(name, op) \
    static mmd_status name(mmd_kernel_ctx *c) { return mmd__unary_prepare(c, op, 1); }
MMD__UNARY_PREPARE(mmd__relu_f32_prepare, MMD__UNARY_RELU)
MMD__UNARY_PREPARE(mmd__sigmoid_f32_prepare, MMD__UNARY_SIGMOID)
MMD__UNARY_PREPARE(mmd__hard_swish_f32_prepare, MMD__UNARY_HARD_SWISH)
MMD__UNARY_PREPARE(mmd__tanh_f32_prepare, MMD__UNARY_TANH)
MMD__UNARY_PREPARE(mmd__erf_f32_prepare, MMD__UNARY_ERF)
MMD__UNARY_PREPARE(mmd__sqrt_f32_prepare, MMD__UNARY_SQRT)
#undef MMD__UNARY_PREPARE

static mmd_status mmd__leaky_relu_f32_prepare(mmd_kernel_ctx *c) {
    mmd__unary_data *p = (mmd__unary_data *)c->op_data;
    mmd_status st = mmd__unary_prepare(c, MMD__UNARY_LEAKY_RELU, 1);
    return st != MMD_OK ? st : mmd_attr_get_float(c, "alpha", 0.01f, &p->alpha);
}

static mmd_status mmd__hard_sigmoid_f32_prepare(mmd_kernel_ctx *c) {
    mmd__unary_data *p = (mmd__unary_data *)c->op_data;
    mmd_status st = mmd__unary_prepare(c, MMD__UNARY_HARD_SIGMOID, 1);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "alpha", 0.2f, &p->alpha);
    return st != MMD_OK ? st : mmd_attr_get_float(c, "beta", 0.5f, &p->beta);
}

/* Clip before opset 11 takes min and max as attributes, from 11 on as optional scalar inputs,
   which eval reads so that they need not be constant. */
static mmd_status mmd__clip_f32_prepare(mmd_kernel_ctx *c) {
    mmd__unary_data *p = (mmd__unary_data *)c->op_data;
    int32_t i;
    mmd_status st = mmd__unary_prepare(c, MMD__UNARY_CLIP, c->opset < 11 ? 1 : 3);
    if (st != MMD_OK) return st;
    if (c->opset < 11) {
        st = mmd_attr_get_float(c, "min", -FLT_MAX, &p->alpha);
        return st != MMD_OK ? st : mmd_attr_get_float(c, "max", FLT_MAX, &p->beta);
    }
    p->alpha = -FLT_MAX;
    p->beta = FLT_MAX;
    for (i = 1; i < c->input_count; ++i) {
        if (!c->inputs[i]) continue;
        if ((st = mmd__want_dtype(c, i, MMD_DTYPE_FLOAT32)) != MMD_OK) return st;
        if (mmd_tensor_numel(c->inputs[i]) != 1)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d ('%s') must hold one value", (int)i,
                                   c->inputs[i]->name ? c->inputs[i]->name : "");
    }
    return MMD_OK;
}

static mmd_status mmd__unary_f32_eval(mmd_kernel_ctx *c) {
    const mmd__unary_data *p = (const mmd__unary_data *)c->op_data;
    const float *MMD__RESTRICT x = (const float *)c->inputs[0]->data;
    float *MMD__RESTRICT y = (float *)c->outputs[0]->data;
    int64_t n = mmd_tensor_numel(c->inputs[0]), i;
    float alpha = p->alpha, beta = p->beta;
    switch (p->op) {
    case MMD__UNARY_RELU:
        for (i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
        break;
    case MMD__UNARY_LEAKY_RELU:
        for (i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
        break;
    case MMD__UNARY_CLIP:
        if (c->input_count > 1 && c->inputs[1]) alpha = *(const float *)c->inputs[1]->data;
        if (c->input_count > 2 && c->inputs[2]) beta = *(const float *)c->inputs[2]->data;
        /* Comparisons rather than fminf/fmaxf keep NaN; min > max gives max, as ONNX says. */
        for (i = 0; i < n; ++i) {
            float v = x[i] < alpha ? alpha : x[i];
            y[i] = v > beta ? beta : v;
        }
        break;
    case MMD__UNARY_SIGMOID:
        for (i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + expf(-x[i]));
        break;
    case MMD__UNARY_HARD_SIGMOID:
        for (i = 0; i < n; ++i) {
            float v = alpha * x[i] + beta;
            y[i] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
        }
        break;
    case MMD__UNARY_HARD_SWISH:
        for (i = 0; i < n; ++i) {
            float v = x[i] / 6.0f + 0.5f;
            y[i] = x[i] * (v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v);
        }
        break;
    case MMD__UNARY_TANH:
        for (i = 0; i < n; ++i) y[i] = tanhf(x[i]);
        break;
    case MMD__UNARY_ERF:
        for (i = 0; i < n; ++i) y[i] = erff(x[i]);
        break;
    default: /* MMD__UNARY_SQRT */
        for (i = 0; i < n; ++i) y[i] = sqrtf(x[i]);
        break;
    }
    return MMD_OK;
}

/* ==== >>ops convolution and pooling ==== */

/* Sliding-window geometry of Conv and the pools over up to three spatial axes, right aligned:
   a 2-D op keeps axis 0 at size 1 with kernel 1, so one loop nest serves 1-D, 2-D and 3-D. */
typedef struct mmd__window {
    int64_t in[3], out[3], k[3], s[3], d[3];
    int64_t pad[3], pad_end[3];         /* resolved, auto_pad included */
} mmd__window;

/* Positions t in [*lo, *hi), 0 <= t < count, for which start + t * step lies in [0, in).
   Conv uses it for the outputs a kernel tap reaches, the pools for the taps of a window. */
static void mmd__valid_range(int64_t start, int64_t step, int64_t count, int64_t in, int64_t *lo,
                             int64_t *hi) {
    int64_t a = start < 0 ? (-start + step - 1) / step : 0;
    int64_t b = start >= in ? 0 : (in - 1 - start) / step + 1;
    if (b > count) b = count;
    if (a > b) a = b;
    *lo = a;
    *hi = b;
}

/* Reads strides, dilations, pads and auto_pad for n spatial axes of sizes in[] and a kernel of
   sizes kernel[], and resolves pads and output sizes into w. ceil_mode follows the pools: a
   window that would start in the end padding is dropped. */
static mmd_status mmd__window_prepare(mmd_kernel_ctx *c, int32_t n, const int64_t *in,
                                      const int64_t *kernel, int32_t ceil_mode, mmd__window *w) {
    const int64_t *strides, *dilations, *pads;
    int64_t ns, nd, np;
    const char *auto_pad;
    int32_t a, mode;
    mmd_status st = mmd_attr_get_ints(c, "strides", &strides, &ns);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "dilations", &dilations, &nd);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "pads", &pads, &np);
    if (st == MMD_OK) st = mmd_attr_get_string(c, "auto_pad", "NOTSET", &auto_pad);
    if (st != MMD_OK) return st;
    if (!strcmp(auto_pad, "NOTSET")) mode = 0;
    else if (!strcmp(auto_pad, "VALID")) mode = 1;
    else if (!strcmp(auto_pad, "SAME_UPPER")) mode = 2;
    else if (!strcmp(auto_pad, "SAME_LOWER")) mode = 3;
    else return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", auto_pad);
    if ((ns && ns != n) || (nd && nd != n) || (np && np != 2 * n))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL,
                               "%d spatial axes but %lld strides, %lld dilations, %lld pads",
                               (int)n, (long long)ns, (long long)nd, (long long)np);
    for (a = 0; a < 3; ++a) {
        int32_t j = a - (3 - n);
        int64_t s, d, lo, hi, k, dk, span;
        if (j < 0) {
            w->in[a] = w->out[a] = w->k[a] = w->s[a] = w->d[a] = 1;
            w->pad[a] = w->pad_end[a] = 0;
            continue;
        }
        s = ns ? strides[j] : 1;
        d = nd ? dilations[j] : 1;
        lo = np ? pads[j] : 0;
        hi = np ? pads[j + n] : 0;
        k = kernel[j];
        if (s < 1 || s > MMD__ATTR_MAX || d < 1 || d > MMD__ATTR_MAX || lo < 0 || lo > MMD__ATTR_MAX ||
            hi < 0 || hi > MMD__ATTR_MAX)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL,
                                   "spatial axis %d: stride %lld, dilation %lld or pads %lld,%lld out of range",
                                   (int)j, (long long)s, (long long)d, (long long)lo, (long long)hi);
        if (k < 1 || k > MMD__ELEMS_MAX)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "spatial axis %d: kernel size %lld", (int)j, (long long)k);
        dk = (k - 1) * d + 1;
        w->in[a] = in[j];
        w->k[a] = k;
        w->s[a] = s;
        w->d[a] = d;
        if (mode >= 2) {
            /* SAME: ceil(in / stride) outputs, the padding split evenly, the odd one at the end
               (SAME_UPPER) or at the start (SAME_LOWER). */
            int64_t out = (in[j] + s - 1) / s, total = (out - 1) * s + dk - in[j];
            if (total < 0) total = 0;
            lo = mode == 3 ? (total + 1) / 2 : total / 2;
            hi = total - lo;
            w->out[a] = out;
        } else {
            if (mode == 1) lo = hi = 0;
            span = in[j] + lo + hi - dk;
            if (span < 0)
                return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                                       "spatial axis %d: window of %lld does not fit input %lld padded by %lld,%lld",
                                       (int)j, (long long)dk, (long long)in[j], (long long)lo, (long long)hi);
            w->out[a] = span / s + 1;
            if (ceil_mode && span % s) {
                w->out[a] += 1;
                if ((w->out[a] - 1) * s >= in[j] + lo) w->out[a] -= 1;
            }
        }
        w->pad[a] = lo;
        w->pad_end[a] = hi;
    }
    return MMD_OK;
}

typedef struct mmd__conv_data {
    mmd__window w;
    int64_t batch, in_ch, out_ch, group;
} mmd__conv_data;

static mmd_status mmd__conv_f32_prepare(mmd_kernel_ctx *c) {
    mmd__conv_data *p = (mmd__conv_data *)c->op_data;
    const mmd_tensor *x, *wt, *bias;
    const int64_t *kshape;
    int64_t nk, group, dims[5];
    int32_t n, a, i;
    mmd_status st = mmd__check_io(c, 2, 3, 1);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    wt = c->inputs[1];
    bias = c->input_count > 2 ? c->inputs[2] : NULL;
    if ((st = mmd__want_dtype_all(c, MMD_DTYPE_FLOAT32)) != MMD_OK) return st;
    if ((st = mmd__want_rank(c, 0, 3, 5)) != MMD_OK) return st;
    if (wt->rank != x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "weight '%s' has rank %d, input '%s' has rank %d",
                               wt->name ? wt->name : "", (int)wt->rank, x->name ? x->name : "", (int)x->rank);
    if ((st = mmd_attr_get_int(c, "group", 1, &group)) != MMD_OK) return st;
    n = x->rank - 2;
    p->batch = x->dims[0];
    p->in_ch = x->dims[1];
    p->out_ch = wt->dims[0];
    p->group = group;
    if (group < 1 || group > MMD__ELEMS_MAX || p->in_ch % group || p->out_ch % group)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                               "group %lld does not divide the %lld input and %lld output channels",
                               (long long)group, (long long)p->in_ch, (long long)p->out_ch);
    if (wt->dims[1] != p->in_ch / group)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                               "weight '%s' takes %lld input channels per group but input '%s' has %lld channels with group %lld",
                               wt->name ? wt->name : "", (long long)wt->dims[1], x->name ? x->name : "",
                               (long long)p->in_ch, (long long)group);
    if ((st = mmd_attr_get_ints(c, "kernel_shape", &kshape, &nk)) != MMD_OK) return st;
    if (nk && nk != n)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "kernel_shape has %lld values for %d spatial axes",
                               (long long)nk, (int)n);
    for (i = 0; i < nk; ++i)
        if (kshape[i] != wt->dims[2 + i])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "kernel_shape[%d] is %lld but weight '%s' has %lld",
                                   (int)i, (long long)kshape[i], wt->name ? wt->name : "", (long long)wt->dims[2 + i]);
    if (bias && (bias->rank != 1 || bias->dims[0] != p->out_ch))
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "bias '%s' must have shape [%lld]",
                               bias->name ? bias->name : "", (long long)p->out_ch);
    if ((st = mmd__window_prepare(c, n, x->dims + 2, wt->dims + 2, 0, &p->w)) != MMD_OK) return st;
    /* eval's table of output ranges per kernel tap (see mmd__conv_plane_f32). */
    c->scratch_size = (size_t)(p->w.k[0] + p->w.k[1] + p->w.k[2]) * 2 * sizeof(int64_t);
    dims[0] = p->batch;
    dims[1] = p->out_ch;
    for (i = 0; i < n; ++i) dims[2 + i] = p->w.out[3 - n + i];
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, dims)) != MMD_OK) return st;
    /* A pointwise conv (kernel 1, stride 1, no padding) reads each plane as one long row. */
    for (a = 0; a < 3; ++a)
        if (p->w.k[a] != 1 || p->w.s[a] != 1 || p->w.pad[a] || p->w.pad_end[a]) return MMD_OK;
    p->w.in[2] = p->w.out[2] = p->w.in[0] * p->w.in[1] * p->w.in[2];
    p->w.in[0] = p->w.in[1] = p->w.out[0] = p->w.out[1] = 1;
    return MMD_OK;
}

/* y[j] += a[j] * x for four output rows y[0..3] sharing one input row: each input element
   is loaded once for four multiply-adds. Unrolled by four for the -O2 vectoriser. */
static void mmd__axpy4_f32(int64_t n, const float *a, const float *MMD__RESTRICT x,
                           float *MMD__RESTRICT y0, float *MMD__RESTRICT y1,
                           float *MMD__RESTRICT y2, float *MMD__RESTRICT y3) {
    float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
        y0[i] += a0 * x0; y0[i + 1] += a0 * x1; y0[i + 2] += a0 * x2; y0[i + 3] += a0 * x3;
        y1[i] += a1 * x0; y1[i + 1] += a1 * x1; y1[i + 2] += a1 * x2; y1[i + 3] += a1 * x3;
        y2[i] += a2 * x0; y2[i + 1] += a2 * x1; y2[i + 2] += a2 * x2; y2[i + 3] += a2 * x3;
        y3[i] += a3 * x0; y3[i + 1] += a3 * x1; y3[i + 2] += a3 * x2; y3[i + 3] += a3 * x3;
    }
    for (; i < n; ++i) {
        float v = x[i];
        y0[i] += a0 * v;
        y1[i] += a1 * v;
        y2[i] += a2 * v;
        y3[i] += a3 * v;
    }
}

/* Adds one input plane x, convolved with the kernels of nm (1 to 4) output channels, into
   their output planes y, y + out_plane, ...; kernel j starts at k + j * kstride. Each kernel
   tap is a weight times a run of input elements added into a run of output elements, so the
   inner loop has no bounds tests. Sharing each input run among up to four output channels
   halves the memory traffic of the small late layers. range[] holds, per axis and tap, the
   outputs the tap reaches inside the input (lo, hi pairs; axis 0's taps first). */
static void mmd__conv_plane_f32(const mmd__window *w, const int64_t *range, const float *x,
                                const float *k, int64_t kstride, int32_t nm, float *y,
                                int64_t out_plane) {
    const int64_t *r0 = range, *r1 = r0 + 2 * w->k[0], *r2 = r1 + 2 * w->k[1];
    int64_t t0, t1, t2, o0, o1, s2 = w->s[2], tap = 0;
    for (t0 = 0; t0 < w->k[0]; ++t0) {
        int64_t off0 = t0 * w->d[0] - w->pad[0];
        for (t1 = 0; t1 < w->k[1]; ++t1) {
            int64_t off1 = t1 * w->d[1] - w->pad[1];
            for (t2 = 0; t2 < w->k[2]; ++t2, ++tap) {
                int64_t lo2 = r2[2 * t2], run = r2[2 * t2 + 1] - lo2;
                int64_t first = lo2 * s2 + t2 * w->d[2] - w->pad[2];
                float wv[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                int32_t j;
                if (run <= 0) continue;
                for (j = 0; j < nm; ++j) wv[j] = k[j * kstride + tap];
                for (o0 = r0[2 * t0]; o0 < r0[2 * t0 + 1]; ++o0) {
                    const float *xs = x + (o0 * w->s[0] + off0) * w->in[1] * w->in[2] + first;
                    float *ys = y + o0 * w->out[1] * w->out[2] + lo2;
                    for (o1 = r1[2 * t1]; o1 < r1[2 * t1 + 1]; ++o1) {
                        const float *src = xs + (o1 * w->s[1] + off1) * w->in[2];
                        float *dst = ys + o1 * w->out[2];
                        if (s2 == 1 && nm == 4) {
                            mmd__axpy4_f32(run, wv, src, dst, dst + out_plane, dst + 2 * out_plane,
                                           dst + 3 * out_plane);
                        } else if (s2 == 1) {
                            for (j = 0; j < nm; ++j) mmd__axpy_f32(run, wv[j], src, dst + j * out_plane);
                        } else {
                            int64_t i;
                            for (j = 0; j < nm; ++j)
                                for (i = 0; i < run; ++i) dst[j * out_plane + i] += wv[j] * src[i * s2];
                        }
                    }
                }
            }
        }
    }
}

/* Output channels are taken four at a time within a group (see mmd__conv_plane_f32). */
static mmd_status mmd__conv_f32_eval(mmd_kernel_ctx *c) {
    const mmd__conv_data *p = (const mmd__conv_data *)c->op_data;
    const mmd__window *w = &p->w;
    const float *x = (const float *)c->inputs[0]->data, *wt = (const float *)c->inputs[1]->data;
    const float *bias = c->input_count > 2 && c->inputs[2] ? (const float *)c->inputs[2]->data : NULL;
    float *y = (float *)c->outputs[0]->data;
    int64_t *r = (int64_t *)c->scratch;
    int64_t in_plane = w->in[0] * w->in[1] * w->in[2], out_plane = w->out[0] * w->out[1] * w->out[2];
    int64_t ksize = w->k[0] * w->k[1] * w->k[2];
    int64_t cg = p->in_ch / p->group, mg = p->out_ch / p->group, b, g, m, ci, i, a, t;
    int32_t j;
    for (a = 0; a < 3; ++a)
        for (t = 0; t < w->k[a]; ++t, r += 2)
            mmd__valid_range(t * w->d[a] - w->pad[a], w->s[a], w->out[a], w->in[a], &r[0], &r[1]);
    for (b = 0; b < p->batch; ++b)
        for (g = 0; g < p->group; ++g)
            for (m = g * mg; m < (g + 1) * mg; m += 4) {
                int32_t nm = (int32_t)((g + 1) * mg - m < 4 ? (g + 1) * mg - m : 4);
                float *yp = y + (b * p->out_ch + m) * out_plane;
                const float *xg = x + (b * p->in_ch + g * cg) * in_plane;
                for (j = 0; j < nm; ++j) {
                    float init = bias ? bias[m + j] : 0.0f;
                    for (i = 0; i < out_plane; ++i) yp[j * out_plane + i] = init;
                }
                for (ci = 0; ci < cg; ++ci)
                    mmd__conv_plane_f32(w, (const int64_t *)c->scratch, xg + ci * in_plane,
                                        wt + (m * cg + ci) * ksize, cg * ksize, nm, yp, out_plane);
            }
    return MMD_OK;
}

typedef struct mmd__pool_data {
    mmd__window w;
    int64_t planes;                     /* N * C */
    int32_t count_include_pad;
    int32_t column_major;               /* MaxPool storage_order 1: Indices count axis 0 fastest */
} mmd__pool_data;

/* MaxPool and AveragePool: kernel_shape is required; explicit pads must be smaller than the
   kernel so that every window holds at least one input element. */
static mmd_status mmd__pool_prepare(mmd_kernel_ctx *c, int32_t is_max) {
    mmd__pool_data *p = (mmd__pool_data *)c->op_data;
    const mmd_tensor *x;
    const int64_t *kshape, *pads;
    int64_t nk, np, ceil_mode, include_pad, storage_order, dims[5];
    int32_t n, i;
    mmd_status st = mmd__check_io(c, 1, 1, is_max ? 2 : 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, 5);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "kernel_shape", &kshape, &nk);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "pads", &pads, &np);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "ceil_mode", 0, &ceil_mode);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "count_include_pad", 0, &include_pad);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "storage_order", 0, &storage_order);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    n = x->rank - 2;
    if (nk != n)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "kernel_shape has %lld values for %d spatial axes",
                               (long long)nk, (int)n);
    for (i = 0; i < n; ++i) {
        if (kshape[i] < 1 || kshape[i] > MMD__ATTR_MAX)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "kernel_shape[%d] is %lld", (int)i, (long long)kshape[i]);
        if (np == 2 * n && (pads[i] >= kshape[i] || pads[i + n] >= kshape[i]))
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "pads %lld,%lld are not smaller than kernel %lld",
                                   (long long)pads[i], (long long)pads[i + n], (long long)kshape[i]);
    }
    if ((st = mmd__window_prepare(c, n, x->dims + 2, kshape, ceil_mode != 0, &p->w)) != MMD_OK) return st;
    p->planes = x->dims[0] * x->dims[1];
    p->count_include_pad = include_pad != 0;
    p->column_major = storage_order != 0;
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (i = 0; i < n; ++i) dims[2 + i] = p->w.out[3 - n + i];
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, dims)) != MMD_OK) return st;
    if (c->output_count < 2 || !c->outputs[1]) return MMD_OK;
    return mmd__set_output(c, 1, MMD_DTYPE_INT64, x->rank, dims);
}

static mmd_status mmd__max_pool_f32_prepare(mmd_kernel_ctx *c) { return mmd__pool_prepare(c, 1); }
static mmd_status mmd__average_pool_f32_prepare(mmd_kernel_ctx *c) { return mmd__pool_prepare(c, 0); }

/* Both pools walk every window; MaxPool also records the flat input index of the maximum
   (over N, C and the spatial axes, the spatial part row-major or with storage_order 1
   column-major, as ONNX defines Indices). AveragePool divides by
   the taps inside the input, or with count_include_pad by the taps inside the padded input
   (not those past it that ceil_mode adds), as PyTorch does. */
static mmd_status mmd__pool_f32_eval(mmd_kernel_ctx *c, int32_t is_max) {
    const mmd__pool_data *p = (const mmd__pool_data *)c->op_data;
    const mmd__window *w = &p->w;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t *idx = is_max && c->output_count > 1 && c->outputs[1] ? (int64_t *)c->outputs[1]->data : NULL;
    int64_t in_plane = w->in[0] * w->in[1] * w->in[2], pl, o0, o1, o2, t0, t1, t2;
    for (pl = 0; pl < p->planes; ++pl) {
        const float *xp = x + pl * in_plane;
        for (o0 = 0; o0 < w->out[0]; ++o0) {
            int64_t s0 = o0 * w->s[0] - w->pad[0], lo0, hi0, n0, pn0;
            mmd__valid_range(s0, w->d[0], w->k[0], w->in[0], &lo0, &hi0);
            mmd__valid_range(s0 + w->pad[0], w->d[0], w->k[0], w->in[0] + w->pad[0] + w->pad_end[0], &n0, &pn0);
            pn0 -= n0;
            for (o1 = 0; o1 < w->out[1]; ++o1) {
                int64_t s1 = o1 * w->s[1] - w->pad[1], lo1, hi1, n1, pn1;
                mmd__valid_range(s1, w->d[1], w->k[1], w->in[1], &lo1, &hi1);
                mmd__valid_range(s1 + w->pad[1], w->d[1], w->k[1], w->in[1] + w->pad[1] + w->pad_end[1], &n1, &pn1);
                pn1 -= n1;
                for (o2 = 0; o2 < w->out[2]; ++o2) {
                    int64_t s2 = o2 * w->s[2] - w->pad[2], lo2, hi2, n2, pn2, best_at = 0;
                    float acc = is_max ? -FLT_MAX : 0.0f;
                    mmd__valid_range(s2, w->d[2], w->k[2], w->in[2], &lo2, &hi2);
                    for (t0 = lo0; t0 < hi0; ++t0)
                        for (t1 = lo1; t1 < hi1; ++t1) {
                            int64_t row = ((s0 + t0 * w->d[0]) * w->in[1] + s1 + t1 * w->d[1]) * w->in[2] + s2;
                            for (t2 = lo2; t2 < hi2; ++t2) {
                                float v = xp[row + t2 * w->d[2]];
                                if (!is_max) {
                                    acc += v;
                                } else if (v > acc || best_at == 0) {
                                    /* best_at is position + 1 so that 0 means none yet. */
                                    acc = v;
                                    best_at = row + t2 * w->d[2] + 1;
                                }
                            }
                        }
                    if (is_max) {
                        int64_t at = best_at ? best_at - 1 : 0;
                        if (p->column_major && best_at)
                            at = at / (w->in[1] * w->in[2]) + (at / w->in[2] % w->in[1]) * w->in[0] +
                                 at % w->in[2] * w->in[0] * w->in[1];
                        *y++ = acc;
                        if (idx) *idx++ = pl * in_plane + at;
                        continue;
                    }
                    if (p->count_include_pad) {
                        mmd__valid_range(s2 + w->pad[2], w->d[2], w->k[2], w->in[2] + w->pad[2] + w->pad_end[2], &n2, &pn2);
                        n2 = pn0 * pn1 * (pn2 - n2);
                    } else {
                        n2 = (hi0 - lo0) * (hi1 - lo1) * (hi2 - lo2);
                    }
                    *y++ = n2 ? acc / (float)n2 : 0.0f;
                }
            }
        }
    }
    return MMD_OK;
}

static mmd_status mmd__max_pool_f32_eval(mmd_kernel_ctx *c) { return mmd__pool_f32_eval(c, 1); }
static mmd_status mmd__average_pool_f32_eval(mmd_kernel_ctx *c) { return mmd__pool_f32_eval(c, 0); }

typedef struct mmd__plane_data {
    int64_t planes, plane;              /* N * C planes of `plane` elements each */
} mmd__plane_data;

static mmd_status mmd__global_average_pool_f32_prepare(mmd_kernel_ctx *c) {
    mmd__plane_data *p = (mmd__plane_data *)c->op_data;
    const mmd_tensor *x;
    int64_t dims[MMD_MAX_RANK];
    int32_t i;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, MMD_MAX_RANK);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    p->planes = x->dims[0] * x->dims[1];
    p->plane = 1;
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (i = 2; i < x->rank; ++i) {
        p->plane *= x->dims[i];
        dims[i] = 1;
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, dims);
}

/* The mean of an empty plane is NaN, as numpy gives. */
static mmd_status mmd__global_average_pool_f32_eval(mmd_kernel_ctx *c) {
    const mmd__plane_data *p = (const mmd__plane_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t pl, i;
    for (pl = 0; pl < p->planes; ++pl) {
        double s = 0.0;
        for (i = 0; i < p->plane; ++i) s += x[pl * p->plane + i];
        y[pl] = p->plane ? (float)(s / (double)p->plane) : NAN;
    }
    return MMD_OK;
}

/* ==== >>ops matrix products ==== */

typedef struct mmd__gemm_data {
    int64_t m, n, k;
    int64_t as0, as1, bs0, bs1;         /* element strides of op(A) and op(B) */
    int64_t cs0, cs1;                   /* strides of C read as (M, N), 0 where broadcast */
    float alpha, beta;
    int32_t has_c;
} mmd__gemm_data;

/* Gemm 7 to 13: Y = alpha * op(A) * op(B) + beta * C, with C (optional from opset 11)
   broadcast one way to (M, N). */
static mmd_status mmd__gemm_f32_prepare(mmd_kernel_ctx *c) {
    mmd__gemm_data *p = (mmd__gemm_data *)c->op_data;
    const mmd_tensor *a, *b, *cm;
    int64_t trans_a, trans_b, dims[2], strides[2];
    mmd_status st = mmd__check_io(c, c->opset < 11 ? 3 : 2, 3, 1);
    if (st != MMD_OK) return st;
    a = c->inputs[0];
    b = c->inputs[1];
    cm = c->input_count > 2 ? c->inputs[2] : NULL;
    if ((st = mmd__want_dtype_all(c, MMD_DTYPE_FLOAT32)) != MMD_OK) return st;
    if ((st = mmd__want_rank(c, 0, 2, 2)) != MMD_OK || (st = mmd__want_rank(c, 1, 2, 2)) != MMD_OK) return st;
    if (cm && (st = mmd__want_rank(c, 2, 0, 2)) != MMD_OK) return st;
    if ((st = mmd_attr_get_int(c, "transA", 0, &trans_a)) != MMD_OK) return st;
    if ((st = mmd_attr_get_int(c, "transB", 0, &trans_b)) != MMD_OK) return st;
    if ((st = mmd_attr_get_float(c, "alpha", 1.0f, &p->alpha)) != MMD_OK) return st;
    if ((st = mmd_attr_get_float(c, "beta", 1.0f, &p->beta)) != MMD_OK) return st;
    p->m = a->dims[trans_a ? 1 : 0];
    p->k = a->dims[trans_a ? 0 : 1];
    p->n = b->dims[trans_b ? 0 : 1];
    if (b->dims[trans_b ? 1 : 0] != p->k) {
        char ta[96], tb[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "A %s (transA %lld) and B %s (transB %lld) do not chain",
                               mmd__dims_text(ta, sizeof ta, a->rank, a->dims), (long long)trans_a,
                               mmd__dims_text(tb, sizeof tb, b->rank, b->dims), (long long)trans_b);
    }
    p->as0 = trans_a ? 1 : p->k;
    p->as1 = trans_a ? p->m : 1;
    p->bs0 = trans_b ? 1 : p->n;
    p->bs1 = trans_b ? p->k : 1;
    dims[0] = p->m;
    dims[1] = p->n;
    p->has_c = cm != NULL;
    if (cm) {
        int32_t r = cm->rank;
        if ((r > 0 && cm->dims[r - 1] != 1 && cm->dims[r - 1] != p->n) ||
            (r > 1 && cm->dims[0] != 1 && cm->dims[0] != p->m)) {
            char tc[96], ty[96];
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "C %s does not broadcast to %s",
                                   mmd__dims_text(tc, sizeof tc, r, cm->dims), mmd__dims_text(ty, sizeof ty, 2, dims));
        }
        mmd__broadcast_strides(r, cm->dims, 2, strides);
        p->cs0 = strides[0];
        p->cs1 = strides[1];
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 2, dims);
}

static mmd_status mmd__gemm_f32_eval(mmd_kernel_ctx *c) {
    const mmd__gemm_data *p = (const mmd__gemm_data *)c->op_data;
    const float *cm = p->has_c ? (const float *)c->inputs[2]->data : NULL;
    float *y = (float *)c->outputs[0]->data;
    int64_t i, j;
    for (i = 0; i < p->m; ++i)
        for (j = 0; j < p->n; ++j) y[i * p->n + j] = cm ? p->beta * cm[i * p->cs0 + j * p->cs1] : 0.0f;
    mmd__gemm_f32(p->m, p->n, p->k, p->alpha, (const float *)c->inputs[0]->data, p->as0, p->as1,
                  (const float *)c->inputs[1]->data, p->bs0, p->bs1, y);
    return MMD_OK;
}

typedef struct mmd__matmul_data {
    mmd__walk batch;                    /* over the broadcast batch axes, in whole matrices */
    int64_t m, n, k;
} mmd__matmul_data;

/* MatMul with numpy semantics: a 1-D A is a row (its axis dropped from the result), a 1-D B a
   column, and the leading (batch) axes broadcast. */
static mmd_status mmd__matmul_f32_prepare(mmd_kernel_ctx *c) {
    mmd__matmul_data *p = (mmd__matmul_data *)c->op_data;
    const mmd_tensor *a, *b;
    int64_t dims[MMD_MAX_RANK];
    int32_t ra, rb, rank, i;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 1, MMD_MAX_RANK);
    if (st != MMD_OK) return st;
    a = c->inputs[0];
    b = c->inputs[1];
    ra = a->rank;
    rb = b->rank;
    p->m = ra > 1 ? a->dims[ra - 2] : 1;
    p->k = a->dims[ra - 1];
    p->n = rb > 1 ? b->dims[rb - 1] : 1;
    if (b->dims[rb > 1 ? rb - 2 : 0] != p->k) {
        char ta[96], tb[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "cannot multiply %s by %s",
                               mmd__dims_text(ta, sizeof ta, ra, a->dims), mmd__dims_text(tb, sizeof tb, rb, b->dims));
    }
    ra = ra > 2 ? ra - 2 : 0;
    rb = rb > 2 ? rb - 2 : 0;
    if ((st = mmd__broadcast_shape(c, ra, a->dims, rb, b->dims, &rank, dims)) != MMD_OK) return st;
    p->batch.rank = rank;
    for (i = 0; i < rank; ++i) p->batch.dims[i] = dims[i];
    mmd__broadcast_strides(rank, dims, rank, p->batch.strides[0]);
    mmd__broadcast_strides(ra, a->dims, rank, p->batch.strides[1]);
    mmd__broadcast_strides(rb, b->dims, rank, p->batch.strides[2]);
    for (i = 0; i < rank; ++i) {
        p->batch.strides[0][i] *= p->m * p->n;
        p->batch.strides[1][i] *= p->m * p->k;
        p->batch.strides[2][i] *= p->k * p->n;
    }
    p->batch.elem[0] = p->batch.elem[1] = p->batch.elem[2] = sizeof(float);
    mmd__walk_merge(&p->batch);
    if (a->rank > 1) dims[rank++] = p->m;
    if (b->rank > 1) dims[rank++] = p->n;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, rank, dims);
}

static mmd_status mmd__matmul_f32_eval(mmd_kernel_ctx *c) {
    const mmd__matmul_data *p = (const mmd__matmul_data *)c->op_data;
    const float *a = (const float *)c->inputs[0]->data, *b = (const float *)c->inputs[1]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t idx[MMD_MAX_RANK] = {0}, off[3] = {0, 0, 0}, i, mn = p->m * p->n;
    if (mmd__walk_empty(&p->batch)) return MMD_OK;
    do {
        float *yb = y + off[0];
        for (i = 0; i < mn; ++i) yb[i] = 0.0f;
        mmd__gemm_f32(p->m, p->n, p->k, 1.0f, a + off[1], p->k, 1, b + off[2], p->n, 1, yb);
    } while (mmd__walk_next(&p->batch, p->batch.rank, idx, off));
    return MMD_OK;
}

/* ==== >>ops normalisation and reductions ==== */

typedef struct mmd__softmax_data {
    int64_t outer, n, inner;            /* softmax over n elements spaced `inner` apart */
} mmd__softmax_data;

/* Softmax before opset 13 flattens the input to 2-D at axis (default 1) and normalises each
   row; from 13 on it normalises along axis alone (default -1). */
static mmd_status mmd__softmax_f32_prepare(mmd_kernel_ctx *c) {
    mmd__softmax_data *p = (mmd__softmax_data *)c->op_data;
    const mmd_tensor *x;
    int64_t axis_attr;
    int32_t axis = 0, i;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "axis", c->opset < 13 ? 1 : -1, &axis_attr);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__norm_axis(c, axis_attr, x->rank, &axis)) != MMD_OK) return st;
    p->outer = p->n = p->inner = 1;
    for (i = 0; i < x->rank; ++i) {
        if (i < axis) p->outer *= x->dims[i];
        else if (i == axis || c->opset < 13) p->n *= x->dims[i];
        else p->inner *= x->dims[i];
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims);
}

/* Subtracting the maximum first keeps expf from overflowing. */
static mmd_status mmd__softmax_f32_eval(mmd_kernel_ctx *c) {
    const mmd__softmax_data *p = (const mmd__softmax_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t o, in, i, st = p->inner;
    if (p->n == 0) return MMD_OK;
    for (o = 0; o < p->outer; ++o)
        for (in = 0; in < p->inner; ++in) {
            const float *xr = x + o * p->n * st + in;
            float *yr = y + o * p->n * st + in;
            float mx = xr[0], sum = 0.0f, scale;
            for (i = 1; i < p->n; ++i) mx = xr[i * st] > mx ? xr[i * st] : mx;
            for (i = 0; i < p->n; ++i) {
                yr[i * st] = expf(xr[i * st] - mx);
                sum += yr[i * st];
            }
            scale = 1.0f / sum;
            for (i = 0; i < p->n; ++i) yr[i * st] *= scale;
        }
    return MMD_OK;
}

typedef struct mmd__batchnorm_data {
    int64_t batch, channels, plane;
    float epsilon;
} mmd__batchnorm_data;

/* BatchNormalization 7 to 15 in inference mode: y = (x - mean) / sqrt(var + eps) * scale + B.
   The training outputs (running mean and variance) are declined, as are spatial = 0 (opset 7
   and 8) and training_mode = 1 (opset 14 on). */
static mmd_status mmd__batchnorm_f32_prepare(mmd_kernel_ctx *c) {
    mmd__batchnorm_data *p = (mmd__batchnorm_data *)c->op_data;
    const mmd_tensor *x;
    int64_t spatial, training;
    int32_t i;
    mmd_status st = mmd__check_io(c, 5, 5, 5);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 2, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "epsilon", 1e-5f, &p->epsilon);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "spatial", 1, &spatial);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "training_mode", 0, &training);
    if (st != MMD_OK) return st;
    for (i = 1; i < c->output_count; ++i)
        if (c->outputs[i]) return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "training outputs (output %d)", (int)i);
    if (spatial != 1 || training != 0)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "spatial %lld, training_mode %lld (only 1, 0)",
                               (long long)spatial, (long long)training);
    x = c->inputs[0];
    p->batch = x->dims[0];
    p->channels = x->dims[1];
    p->plane = mmd__dims_product(x, 2, x->rank);
    if ((st = mmd__want_dtype_all(c, MMD_DTYPE_FLOAT32)) != MMD_OK) return st;
    for (i = 1; i < 5; ++i) {
        const mmd_tensor *t = c->inputs[i];
        if (t->rank != 1 || t->dims[0] != p->channels)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d '%s' must have shape [%lld]", (int)i,
                                   t->name ? t->name : "", (long long)p->channels);
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims);
}

static mmd_status mmd__batchnorm_f32_eval(mmd_kernel_ctx *c) {
    const mmd__batchnorm_data *p = (const mmd__batchnorm_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data, *scale = (const float *)c->inputs[1]->data;
    const float *bias = (const float *)c->inputs[2]->data, *mean = (const float *)c->inputs[3]->data;
    const float *var = (const float *)c->inputs[4]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t b, ch, i;
    for (b = 0; b < p->batch; ++b)
        for (ch = 0; ch < p->channels; ++ch) {
            float g = scale[ch] / sqrtf(var[ch] + p->epsilon), h = bias[ch] - mean[ch] * g;
            int64_t base = (b * p->channels + ch) * p->plane;
            for (i = 0; i < p->plane; ++i) y[base + i] = x[base + i] * g + h;
        }
    return MMD_OK;
}

typedef struct mmd__reduce_data {
    mmd__walk walk;                     /* operand 0: output strided 0 on reduced axes; 1: input */
    int64_t count;                      /* input elements per output element */
} mmd__reduce_data;

static mmd_status mmd__accumulate_f32_row(void *o_, int64_t os, const void *a_, int64_t as,
                                          const void *b_, int64_t bs, int64_t n) {
    float *o = (float *)o_;
    const float *a = (const float *)a_;
    int64_t i;
    (void)b_;
    (void)bs;
    for (i = 0; i < n; ++i) o[i * os] += a[i * as];
    return MMD_OK;
}

/* ReduceMean: axes as an attribute before opset 18, as an optional constant input from 18 on
   (where noop_with_empty_axes = 1 and no axes make it a copy); no axes means all axes. */
static mmd_status mmd__reduce_mean_f32_prepare(mmd_kernel_ctx *c) {
    mmd__reduce_data *p = (mmd__reduce_data *)c->op_data;
    const mmd_tensor *x;
    int64_t axes[MMD_MAX_RANK], keepdims, noop = 0, dims[MMD_MAX_RANK], kept[MMD_MAX_RANK] = {0};
    int32_t reduce[MMD_MAX_RANK], naxes, rank = 0, i;
    mmd_status st = mmd__check_io(c, 1, c->opset < 18 ? 1 : 2, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "keepdims", 1, &keepdims);
    if (st == MMD_OK) st = mmd__get_ints(c, c->opset >= 18, 1, "axes", axes, MMD_MAX_RANK, &naxes);
    if (st == MMD_OK && c->opset >= 18) st = mmd_attr_get_int(c, "noop_with_empty_axes", 0, &noop);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    for (i = 0; i < x->rank; ++i) reduce[i] = naxes <= 0 && !noop;
    for (i = 0; i < naxes; ++i) {
        int32_t a = 0;
        if ((st = mmd__norm_axis(c, axes[i], x->rank, &a)) != MMD_OK) return st;
        if (reduce[a]) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "axis %lld repeats", (long long)axes[i]);
        reduce[a] = 1;
    }
    p->count = 1;
    for (i = 0; i < x->rank; ++i) {
        kept[i] = reduce[i] ? 1 : x->dims[i];
        if (reduce[i]) p->count *= x->dims[i];
        if (!reduce[i] || keepdims) dims[rank++] = kept[i];
    }
    p->walk.rank = x->rank;
    for (i = 0; i < x->rank; ++i) p->walk.dims[i] = x->dims[i];
    mmd__broadcast_strides(x->rank, kept, x->rank, p->walk.strides[0]);
    mmd__broadcast_strides(x->rank, x->dims, x->rank, p->walk.strides[1]);
    for (i = 0; i < x->rank; ++i) p->walk.strides[2][i] = 0;
    p->walk.elem[0] = p->walk.elem[1] = p->walk.elem[2] = sizeof(float);
    mmd__walk_merge(&p->walk);
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, rank, dims);
}

/* Sums into the output, then divides; the mean over an empty axis is NaN, as numpy gives. */
static mmd_status mmd__reduce_mean_f32_eval(mmd_kernel_ctx *c) {
    const mmd__reduce_data *p = (const mmd__reduce_data *)c->op_data;
    float *y = (float *)c->outputs[0]->data;
    int64_t n = mmd_tensor_numel(c->outputs[0]), i;
    float scale = p->count ? 1.0f / (float)p->count : NAN;
    for (i = 0; i < n; ++i) y[i] = 0.0f;
    mmd__walk_run(&p->walk, y, c->inputs[0]->data, NULL, mmd__accumulate_f32_row);
    for (i = 0; i < n; ++i) y[i] *= scale;
    return MMD_OK;
}

/* ==== >>ops cast ==== */

typedef struct mmd__cast_data {
    int32_t from, to;
} mmd__cast_data;

/* Cast from opset 6 (where `to` became an int) between the float, integer and bool dtypes. */
static mmd_status mmd__cast_prepare(mmd_kernel_ctx *c) {
    mmd__cast_data *p = (mmd__cast_data *)c->op_data;
    const mmd_tensor *x;
    int64_t to;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "to", MMD_DTYPE_UNDEFINED, &to);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if (!mmd__cast_kind(x->dtype))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "cannot cast from %s", mmd_dtype_name(x->dtype));
    if (to < 0 || to > 64 || !mmd__cast_kind((int32_t)to))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "cannot cast to dtype %lld (%s)", (long long)to,
                               mmd_dtype_name((int32_t)(to < 0 || to > 64 ? 0 : to)));
    p->from = x->dtype;
    p->to = (int32_t)to;
    return mmd__set_output(c, 0, p->to, x->rank, x->dims);
}

static mmd_status mmd__cast_eval(mmd_kernel_ctx *c) {
    const mmd__cast_data *p = (const mmd__cast_data *)c->op_data;
    const void *x = c->inputs[0]->data;
    void *y = c->outputs[0]->data;
    int64_t n = mmd_tensor_numel(c->inputs[0]), i;
    if (p->from == p->to) {
        mmd__copy_tensor(c->inputs[0], c->outputs[0]);
    } else if (mmd__cast_kind(p->from) == 1) {
        for (i = 0; i < n; ++i) mmd__store_float(p->to, y, i, mmd__load_float(p->from, x, i));
    } else {
        for (i = 0; i < n; ++i) mmd__store_int(p->to, y, i, mmd__load_int(p->from, x, i));
    }
    return MMD_OK;
}

/* ==== >>ops shape and layout ==== */
/* Shape and layout kernels: Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout, Transpose,
   Slice, Expand, Concat, Split, Gather, Shape, Size, Constant, ConstantOfShape.
   They move bytes without looking at them, so one kernel serves every dtype that has an element
   size. Three ways of moving cover them all:
   - a plain copy of the whole buffer (Reshape and every op that only renames the shape);
   - a strided view computed in prepare (Transpose, Slice, Expand): a walk whose input strides
     are negative to go backwards and 0 to repeat, merged as every walk is;
   - contiguous blocks between an outer and an inner extent around one axis (Concat, Split,
     Gather), recomputed in eval from the dims prepare set. */

/* Byte-moving kernels need an element size; strings and unknown dtypes have none. */
static mmd_status mmd__want_sized(mmd_kernel_ctx *c, const mmd_tensor *t, const char *what) {
    if (mmd_dtype_size(t->dtype) == 0)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "%s has dtype %s (%d), which is not supported",
                               what, mmd_dtype_name(t->dtype), (int)t->dtype);
    return MMD_OK;
}

/* Ops that add axes (Unsqueeze, Gather) check the output rank before assembling its dims. */
static mmd_status mmd__want_out_rank(mmd_kernel_ctx *c, int64_t rank) {
    if (rank <= MMD_MAX_RANK) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_SHAPE, "output would have rank %lld, more than MMD_MAX_RANK (%d)",
                           (long long)rank, (int)MMD_MAX_RANK);
}

static int64_t mmd__clamp_i64(int64_t v, int64_t lo, int64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* Walk rows that copy operand 1 into operand 0 (operand 2 unused), one per element size: every
   dtype is 1, 2, 4 or 8 bytes (mmd_dtype_size). An input stride of 0 repeats one element. */
#define MMD__COPY_ROW(name, T)                                                                 \
    static mmd_status name(void *o_, int64_t os, const void *a_, int64_t as, const void *b_,   \
                           int64_t bs, int64_t n) {                                            \
        T *o = (T *)o_;                                                                        \
        const T *a = (const T *)a_;                                                            \
        int64_t i;                                                                             \
        (void)b_;                                                                              \
        (void)bs;                                                                              \
        if (os == 1 && as == 1) memcpy(o, a, (size_t)n * sizeof(T));                           \
        else for (i = 0; i < n; ++i) o[i * os] = a[i * as];                                    \
        return MMD_OK;                                                                         \
    }
MMD__COPY_ROW(mmd__copy_u8_row, uint8_t)
MMD__COPY_ROW(mmd__copy_u16_row, uint16_t)
MMD__COPY_ROW(mmd__copy_u32_row, uint32_t)
MMD__COPY_ROW(mmd__copy_u64_row, uint64_t)
#undef MMD__COPY_ROW

static mmd__row_fn mmd__copy_row(size_t elem) {
    return elem == 1 ? mmd__copy_u8_row : elem == 2 ? mmd__copy_u16_row
                                        : elem == 4 ? mmd__copy_u32_row : mmd__copy_u64_row;
}

/* Writes n copies of the one element at value (elem bytes, aligned for its type). */
static void mmd__fill(void *dst, int64_t n, const void *value, size_t elem) {
    mmd__copy_row(elem)(dst, 1, value, 0, NULL, 0, n);
}

/* ---- strided views: Transpose, Slice, Expand ---------------------------------------------- */

/* Output element (i0, ..., ik) is input element base + sum(i_d * strides[d]). */
typedef struct mmd__view_data {
    mmd__walk walk;                  /* operand 0: the contiguous output; 1: the input */
    int64_t base;                    /* input element read into the first output element */
    mmd__row_fn copy;
} mmd__view_data;

/* Sets output 0 to the view's dims (input 0's dtype) and builds the walk over them. */
static mmd_status mmd__view_prepare(mmd_kernel_ctx *c, int32_t rank, const int64_t *dims,
                                    const int64_t *strides, int64_t base) {
    mmd__view_data *v = (mmd__view_data *)c->op_data;
    int32_t dtype = c->inputs[0]->dtype, i;
    mmd_status st = mmd__set_output(c, 0, dtype, rank, dims);
    if (st != MMD_OK) return st;
    v->walk.rank = rank;
    for (i = 0; i < rank; ++i) {
        v->walk.dims[i] = dims[i];
        v->walk.strides[1][i] = strides[i];
        v->walk.strides[2][i] = 0;
    }
    mmd__broadcast_strides(rank, dims, rank, v->walk.strides[0]);
    v->walk.elem[0] = v->walk.elem[1] = mmd_dtype_size(dtype);
    v->walk.elem[2] = 0;
    mmd__walk_merge(&v->walk);
    v->base = base;
    v->copy = mmd__copy_row(v->walk.elem[0]);
    return MMD_OK;
}

static mmd_status mmd__view_any_eval(mmd_kernel_ctx *c) {
    const mmd__view_data *v = (const mmd__view_data *)c->op_data;
    /* An empty output may sit on an empty input whose data is no array to offset into. */
    if (mmd__walk_empty(&v->walk)) return MMD_OK;
    return mmd__walk_run(&v->walk, c->outputs[0]->data,
                         (const char *)c->inputs[0]->data + v->base * (int64_t)v->walk.elem[1], NULL,
                         v->copy);
}

/* ---- Identity, Flatten, Reshape, Squeeze, Unsqueeze: same bytes, new shape --------------- */

/* Eval of every op whose output holds the input's bytes unchanged. */
static mmd_status mmd__identity_any_eval(mmd_kernel_ctx *c) {
    mmd__copy_tensor(c->inputs[0], c->outputs[0]);
    return MMD_OK;
}

static mmd_status mmd__identity_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "input");
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    return mmd__set_output(c, 0, x->dtype, x->rank, x->dims);
}

/* Output is 2-D: dims before axis multiplied, and dims from axis on multiplied. */
static mmd_status mmd__flatten_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    int64_t axis, dims[2] = {1, 1};
    int32_t d;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "input");
    if (st == MMD_OK) st = mmd_attr_get_int(c, "axis", 1, &axis);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    /* Unlike other axes, Flatten's may equal the rank (everything in the first dim). */
    if (axis < -(int64_t)x->rank || axis > x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis %lld is out of range for rank %d",
                               (long long)axis, (int)x->rank);
    if (axis < 0) axis += x->rank;
    for (d = 0; d < x->rank; ++d) dims[d < axis ? 0 : 1] *= x->dims[d];
    return mmd__set_output(c, 0, x->dtype, 2, dims);
}

/* Shape comes from the 'shape' attribute before opset 5 and from a constant input after. A 0
   copies the input dim at that position unless allowzero=1 (opset 14); one -1 is inferred. */
static mmd_status mmd__reshape_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    int64_t shape[MMD_MAX_RANK], allowzero = 0, known = 1, numel, v;
    int32_t i, n, infer = -1, has_zero = 0, overflow = 0;
    mmd_status st = mmd__check_io(c, c->opset < 5 ? 1 : 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st == MMD_OK) st = mmd__get_ints(c, c->opset >= 5, 1, "shape", shape, MMD_MAX_RANK, &n);
    if (st == MMD_OK && c->opset >= 14) st = mmd_attr_get_int(c, "allowzero", 0, &allowzero);
    if (st != MMD_OK) return st;
    if (n < 0) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has no 'shape' attribute");
    x = c->inputs[0];
    for (i = 0; i < n; ++i) {
        v = shape[i];
        if (v == -1) {
            if (infer >= 0)
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "shape has -1 at positions %d and %d; "
                                       "only one dim can be inferred", (int)infer, (int)i);
            infer = i;
            continue;
        }
        if (v == 0 && !allowzero) {
            if (i >= x->rank)
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "shape[%d] is 0 (copy the input dim) but "
                                       "the input has rank %d", (int)i, (int)x->rank);
            v = shape[i] = x->dims[i];
        }
        if (v < 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "shape[%d] = %lld is negative", (int)i,
                                   (long long)v);
        if (v == 0) has_zero = 1;
        else if (known > INT64_MAX / v) overflow = 1;
        else known *= v;
    }
    numel = mmd_tensor_numel(x);
    if (infer >= 0) {
        if (has_zero)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "shape[%d] = -1 cannot be inferred when the "
                                   "other dims contain a 0", (int)infer);
        if (overflow || numel % known != 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input has %lld elements, which the other "
                                   "dims of shape (product %lld) do not divide", (long long)numel,
                                   (long long)known);
        shape[infer] = numel / known;
    } else if (has_zero ? numel != 0 : (overflow || known != numel)) {
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "shape has %s%lld elements but the input has %lld",
                               overflow && !has_zero ? "more than " : "",
                               (long long)(has_zero ? 0 : known), (long long)numel);
    }
    return mmd__set_output(c, 0, x->dtype, n, shape);
}

/* Axes from the attribute before opset 13, from an optional constant input after; without
   axes every dim of size 1 goes. */
static mmd_status mmd__squeeze_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    int64_t axes[MMD_MAX_RANK], dims[MMD_MAX_RANK];
    int32_t i, a, n, drop[MMD_MAX_RANK], out_rank = 0;
    mmd_status st = mmd__check_io(c, 1, c->opset < 13 ? 1 : 2, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st == MMD_OK) st = mmd__get_ints(c, c->opset >= 13, 1, "axes", axes, MMD_MAX_RANK, &n);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    for (i = 0; i < x->rank; ++i) drop[i] = n <= 0 && x->dims[i] == 1;
    for (i = 0; i < n; ++i) {
        if ((st = mmd__norm_axis(c, axes[i], x->rank, &a)) != MMD_OK) return st;
        if (drop[a])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis %lld is listed twice", (long long)axes[i]);
        if (x->dims[a] != 1)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "cannot squeeze axis %d of size %lld", (int)a,
                                   (long long)x->dims[a]);
        drop[a] = 1;
    }
    for (i = 0; i < x->rank; ++i)
        if (!drop[i]) dims[out_rank++] = x->dims[i];
    return mmd__set_output(c, 0, x->dtype, out_rank, dims);
}

/* Axes (attribute before opset 13, constant input after) index the output, whose rank is the
   input rank plus the number of axes. */
static mmd_status mmd__unsqueeze_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    int64_t axes[MMD_MAX_RANK], dims[MMD_MAX_RANK];
    int32_t i, j, a, n, out_rank, insert[MMD_MAX_RANK];
    int32_t from_input = c->opset >= 13;
    mmd_status st = mmd__check_io(c, 1 + from_input, 1 + from_input, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st == MMD_OK) st = mmd__get_ints(c, from_input, 1, "axes", axes, MMD_MAX_RANK, &n);
    if (st != MMD_OK) return st;
    if (n < 0) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has no 'axes' attribute");
    x = c->inputs[0];
    out_rank = x->rank + n;
    if ((st = mmd__want_out_rank(c, out_rank)) != MMD_OK) return st;
    for (i = 0; i < out_rank; ++i) insert[i] = 0;
    for (i = 0; i < n; ++i) {
        if ((st = mmd__norm_axis(c, axes[i], out_rank, &a)) != MMD_OK) return st;
        if (insert[a])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis %lld is listed twice", (long long)axes[i]);
        insert[a] = 1;
    }
    for (i = 0, j = 0; i < out_rank; ++i) dims[i] = insert[i] ? 1 : x->dims[j++];
    return mmd__set_output(c, 0, x->dtype, out_rank, dims);
}

/* ---- Dropout: inference only ------------------------------------------------------------- */

typedef struct mmd__dropout_data {
    uint64_t one;                    /* the mask element: true, or before opset 10 the value 1
                                        in the input's float type */
} mmd__dropout_data;

/* Output is the input, the optional mask all ones. This runtime only does inference, so the
   opset < 7 'is_test' attribute is not read; an opset >= 12 'training_mode' that is true is
   refused since random masks have no place in it. */
static mmd_status mmd__dropout_any_prepare(mmd_kernel_ctx *c) {
    mmd__dropout_data *p = (mmd__dropout_data *)c->op_data;
    const mmd_tensor *x, *mode;
    int32_t mask_dtype = MMD_DTYPE_BOOL;
    mmd_status st = mmd__check_io(c, 1, c->opset < 12 ? 1 : 3, 2);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    mode = c->input_count > 2 ? c->inputs[2] : NULL;
    if (mode) {
        if ((st = mmd__want_known(c, 2, "training_mode")) != MMD_OK) return st;
        if (mode->dtype != MMD_DTYPE_BOOL || mmd_tensor_numel(mode) != 1)
            return mmd_kernel_fail(c, MMD_ERR_DTYPE, "training_mode must be one bool, got %s with "
                                   "%lld elements", mmd_dtype_name(mode->dtype),
                                   (long long)mmd_tensor_numel(mode));
        if (*(const uint8_t *)mode->data)
            return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "training_mode is true; only "
                                   "inference is supported");
    }
    if (c->opset < 10) {
        if (mmd__cast_kind(x->dtype) != 1)
            return mmd_kernel_fail(c, MMD_ERR_DTYPE, "data has dtype %s, expected a float type",
                                   mmd_dtype_name(x->dtype));
        mask_dtype = x->dtype;
    }
    mmd__store_int(mask_dtype, &p->one, 0, 1);
    if ((st = mmd__set_output(c, 0, x->dtype, x->rank, x->dims)) != MMD_OK) return st;
    if (c->output_count < 2 || !c->outputs[1]) return MMD_OK;
    return mmd__set_output(c, 1, mask_dtype, x->rank, x->dims);
}

static mmd_status mmd__dropout_any_eval(mmd_kernel_ctx *c) {
    const mmd__dropout_data *p = (const mmd__dropout_data *)c->op_data;
    mmd_tensor *mask = c->output_count > 1 ? c->outputs[1] : NULL;
    mmd__copy_tensor(c->inputs[0], c->outputs[0]);
    if (mask) mmd__fill(mask->data, mmd_tensor_numel(mask), &p->one, mmd_dtype_size(mask->dtype));
    return MMD_OK;
}

/* ---- Transpose, Slice, Expand ------------------------------------------------------------- */

/* Output dim i is input dim perm[i]; perm defaults to the reversed axes. */
static mmd_status mmd__transpose_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    const int64_t *perm;
    int64_t count, in_strides[MMD_MAX_RANK], dims[MMD_MAX_RANK], strides[MMD_MAX_RANK], p;
    int32_t i, seen[MMD_MAX_RANK];
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "perm", &perm, &count);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if (perm && count != x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "perm has %lld values for an input of rank %d",
                               (long long)count, (int)x->rank);
    mmd__broadcast_strides(x->rank, x->dims, x->rank, in_strides);
    for (i = 0; i < x->rank; ++i) seen[i] = 0;
    for (i = 0; i < x->rank; ++i) {
        p = perm ? perm[i] : x->rank - 1 - i;
        if (p < 0 || p >= x->rank)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "perm[%d] = %lld is out of range for rank %d",
                                   (int)i, (long long)p, (int)x->rank);
        if (seen[p])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "perm lists axis %lld twice", (long long)p);
        seen[p] = 1;
        dims[i] = x->dims[p];
        strides[i] = in_strides[p];
    }
    return mmd__view_prepare(c, x->rank, dims, strides, 0);
}

/* Starts, ends and axes are attributes before opset 10 and constant inputs (with steps) from
   then on. Negative starts and ends count from the end; the results are clamped to
   [0, dim] for a positive step and to [0, dim-1] (start) and [-1, dim-1] (end) for a
   negative one, which is how INT64_MAX and INT64_MIN ends mean "to the end". */
static mmd_status mmd__slice_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    int64_t starts[MMD_MAX_RANK], ends[MMD_MAX_RANK], axes[MMD_MAX_RANK], steps[MMD_MAX_RANK];
    int64_t in_strides[MMD_MAX_RANK], dims[MMD_MAX_RANK], strides[MMD_MAX_RANK];
    int64_t d, start, end, step, count, base = 0;
    int32_t i, a, n, n_end, n_axes, n_steps = -1, seen[MMD_MAX_RANK];
    int32_t from_input = c->opset >= 10;
    mmd_status st = mmd__check_io(c, from_input ? 3 : 1, from_input ? 5 : 1, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    /* Axes are distinct, so no list can be longer than the rank. */
    st = mmd__get_ints(c, from_input, 1, "starts", starts, x->rank, &n);
    if (st == MMD_OK) st = mmd__get_ints(c, from_input, 2, "ends", ends, x->rank, &n_end);
    if (st == MMD_OK) st = mmd__get_ints(c, from_input, 3, "axes", axes, x->rank, &n_axes);
    if (st == MMD_OK && from_input) st = mmd__get_ints(c, 1, 4, "steps", steps, x->rank, &n_steps);
    if (st != MMD_OK) return st;
    if (n < 0) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has no 'starts' attribute");
    if (n_end < 0) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has no 'ends' attribute");
    if (n_axes < 0)
        for (i = 0, n_axes = n; i < n; ++i) axes[i] = i;
    if (n_steps < 0)
        for (i = 0, n_steps = n; i < n; ++i) steps[i] = 1;
    if (n_end != n || n_axes != n || n_steps != n)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "starts, ends, axes and steps have %d, %d, %d and "
                               "%d values; they must match", (int)n, (int)n_end, (int)n_axes,
                               (int)n_steps);
    mmd__broadcast_strides(x->rank, x->dims, x->rank, in_strides);
    for (i = 0; i < x->rank; ++i) {
        dims[i] = x->dims[i];
        strides[i] = in_strides[i];
        seen[i] = 0;
    }
    for (i = 0; i < n; ++i) {
        if ((st = mmd__norm_axis(c, axes[i], x->rank, &a)) != MMD_OK) return st;
        if (seen[a])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis %lld is listed twice", (long long)axes[i]);
        seen[a] = 1;
        step = steps[i];
        if (step == 0) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "steps[%d] is 0", (int)i);
        d = x->dims[a];
        start = starts[i] < 0 ? starts[i] + d : starts[i];
        end = ends[i] < 0 ? ends[i] + d : ends[i];
        if (step > 0) {
            start = mmd__clamp_i64(start, 0, d);
            end = mmd__clamp_i64(end, 0, d);
            count = end > start ? (end - start - 1) / step + 1 : 0;
        } else {
            start = mmd__clamp_i64(start, 0, d - 1);
            end = mmd__clamp_i64(end, -1, d - 1);
            /* -step overflows for INT64_MIN; any step that large takes one element. */
            count = start > end ? (start - end - 1) / (step == INT64_MIN ? INT64_MAX : -step) + 1 : 0;
        }
        dims[a] = count;
        /* With one element the step is never taken; a huge step must not overflow here. */
        strides[a] = count > 1 ? in_strides[a] * step : 0;
        if (count > 0) base += start * in_strides[a];
    }
    return mmd__view_prepare(c, x->rank, dims, strides, base);
}

/* Bidirectional (numpy) broadcast of the input against a constant shape. */
static mmd_status mmd__expand_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    int64_t shape[MMD_MAX_RANK], dims[MMD_MAX_RANK], strides[MMD_MAX_RANK];
    int32_t i, n, rank;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "input");
    if (st == MMD_OK) st = mmd__get_ints(c, 1, 1, "shape", shape, MMD_MAX_RANK, &n);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    for (i = 0; i < n; ++i)
        if (shape[i] < 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "shape[%d] = %lld is negative", (int)i,
                                   (long long)shape[i]);
    if ((st = mmd__broadcast_shape(c, x->rank, x->dims, n, shape, &rank, dims)) != MMD_OK) return st;
    mmd__broadcast_strides(x->rank, x->dims, rank, strides);
    return mmd__view_prepare(c, rank, dims, strides, 0);
}

/* ---- Concat, Split, Gather: blocks around one axis --------------------------------------- */

typedef struct mmd__axis_data {
    int32_t axis;
} mmd__axis_data;

/* Legacy PyTorch exports concatenate an empty 1-D tensor (shape [0]) onto tensors of another
   rank (possibly of another dtype); it adds nothing, so such an input is skipped, not refused. */
static int32_t mmd__concat_skips(const mmd_tensor *t, int32_t rank) {
    return t->rank != rank && t->rank == 1 && t->dims[0] == 0;
}

/* All inputs share dtype and rank and agree on every dim but the axis, whose sizes add up.
   The axis attribute is optional (default 1) only before opset 4. */
static mmd_status mmd__concat_any_prepare(mmd_kernel_ctx *c) {
    mmd__axis_data *p = (mmd__axis_data *)c->op_data;
    const mmd_tensor *ref, *t;
    int64_t axis, dims[MMD_MAX_RANK];
    int32_t i, d, r = 0;
    /* Every input is required: as many as the node has, at least one. */
    mmd_status st = mmd__check_io(c, c->input_count > 1 ? c->input_count : 1, INT32_MAX, 1);
    if (st != MMD_OK) return st;
    /* The reference input is the first one that is not a legacy empty 1-D tensor. */
    for (i = 0; i < c->input_count; ++i)
        if (!(c->inputs[i]->rank == 1 && c->inputs[i]->dims[0] == 0)) break;
    r = i < c->input_count ? i : 0;
    ref = c->inputs[r];
    if ((st = mmd__want_sized(c, ref, "input")) != MMD_OK) return st;
    if (c->opset >= 4 && !mmd_node_attr(c->node, "axis"))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has no 'axis' attribute");
    if ((st = mmd_attr_get_int(c, "axis", 1, &axis)) != MMD_OK) return st;
    if ((st = mmd__norm_axis(c, axis, ref->rank, &p->axis)) != MMD_OK) return st;
    for (d = 0; d < ref->rank; ++d) dims[d] = ref->dims[d];
    dims[p->axis] = 0;
    for (i = 0; i < c->input_count; ++i) {
        t = c->inputs[i];
        if (mmd__concat_skips(t, ref->rank)) continue;
        if (t->dtype != ref->dtype)
            return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input %d has dtype %s but input %d has %s",
                                   (int)i, mmd_dtype_name(t->dtype), (int)r,
                                   mmd_dtype_name(ref->dtype));
        if (t->rank != ref->rank)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d has rank %d but input %d has %d",
                                   (int)i, (int)t->rank, (int)r, (int)ref->rank);
        for (d = 0; d < ref->rank; ++d)
            if (d != p->axis && t->dims[d] != ref->dims[d])
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d has dim %d = %lld but input %d "
                                       "has %lld", (int)i, (int)d, (long long)t->dims[d], (int)r,
                                       (long long)ref->dims[d]);
        dims[p->axis] += t->dims[p->axis];
    }
    return mmd__set_output(c, 0, ref->dtype, ref->rank, dims);
}

static mmd_status mmd__concat_any_eval(mmd_kernel_ctx *c) {
    const mmd__axis_data *p = (const mmd__axis_data *)c->op_data;
    mmd_tensor *out = c->outputs[0];
    size_t elem = mmd_dtype_size(out->dtype), block;
    int64_t outer = mmd__dims_product(out, 0, p->axis), inner, o;
    uint8_t *dst = (uint8_t *)out->data;
    int32_t i;
    if (mmd_tensor_numel(out) == 0) return MMD_OK;
    inner = mmd__dims_product(out, p->axis + 1, out->rank);
    for (o = 0; o < outer; ++o)
        for (i = 0; i < c->input_count; ++i) {
            const mmd_tensor *t = c->inputs[i];
            if (mmd__concat_skips(t, out->rank)) continue;
            block = (size_t)(t->dims[p->axis] * inner) * elem;
            if (block) memcpy(dst, (const uint8_t *)t->data + (size_t)o * block, block);
            dst += block;
        }
    return MMD_OK;
}

/* Sizes come from the 'split' attribute (opset 2 to 12), or from an optional constant input
   (opset 1 and from 13); without them the axis is cut into equal parts, and from opset 18
   (num_outputs) the last part may be smaller. Every output must be present. */
static mmd_status mmd__split_any_prepare(mmd_kernel_ctx *c) {
    mmd__axis_data *p = (mmd__axis_data *)c->op_data;
    const mmd_tensor *x, *sizes_in = NULL;
    const int64_t *sizes_attr = NULL;
    int64_t axis, count = 0, d, size, sum = 0, chunk = 0, num;
    int64_t dims[MMD_MAX_RANK];
    int32_t i, k, n = c->output_count;
    int32_t from_input = c->opset >= 13 || c->opset == 1;
    mmd_status st = mmd__check_io(c, 1, from_input ? 2 : 1, INT32_MAX);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "input");
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    for (k = 0; k < n; ++k)
        if (!c->outputs[k])
            return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "output %d is absent", (int)k);
    if ((st = mmd_attr_get_int(c, "axis", 0, &axis)) != MMD_OK) return st;
    if ((st = mmd__norm_axis(c, axis, x->rank, &p->axis)) != MMD_OK) return st;
    d = x->dims[p->axis];
    if (from_input && c->input_count > 1 && c->inputs[1]) {
        sizes_in = c->inputs[1];
        if ((st = mmd__want_int_list(c, 1, "split", &count)) != MMD_OK) return st;
    } else if (mmd_node_attr(c->node, "split")) {
        if ((st = mmd_attr_get_ints(c, "split", &sizes_attr, &count)) != MMD_OK) return st;
    }
    if ((sizes_in || sizes_attr) && count != n)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "split has %lld sizes for %d outputs",
                               (long long)count, (int)n);
    if (!sizes_in && !sizes_attr) {
        if ((st = mmd_attr_get_int(c, "num_outputs", n, &num)) != MMD_OK) return st;
        if (num != n)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "num_outputs is %lld but the node has "
                                   "%d outputs", (long long)num, (int)n);
        if (c->opset < 18 && d % n != 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis dim %lld does not split into %d equal "
                                   "parts", (long long)d, (int)n);
        chunk = d / n + (d % n != 0);
        if (d - chunk * (n - 1) < 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis dim %lld cannot be cut into %d parts of "
                                   "%lld", (long long)d, (int)n, (long long)chunk);
    }
    for (i = 0; i < x->rank; ++i) dims[i] = x->dims[i];
    for (k = 0; k < n; ++k) {
        if (sizes_in) size = mmd__load_int(sizes_in->dtype, sizes_in->data, k);
        else if (sizes_attr) size = sizes_attr[k];
        else size = k < n - 1 ? chunk : d - chunk * (n - 1);
        if (size < 0 || size > d - sum)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "split[%d] = %lld overruns axis dim %lld",
                                   (int)k, (long long)size, (long long)d);
        sum += size;
        dims[p->axis] = size;
        if ((st = mmd__set_output(c, k, x->dtype, x->rank, dims)) != MMD_OK) return st;
    }
    if (sum != d)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "split sizes add up to %lld, axis dim is %lld",
                               (long long)sum, (long long)d);
    return MMD_OK;
}

static mmd_status mmd__split_any_eval(mmd_kernel_ctx *c) {
    const mmd__axis_data *p = (const mmd__axis_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    const uint8_t *src = (const uint8_t *)x->data;
    size_t elem = mmd_dtype_size(x->dtype), block;
    int64_t outer = mmd__dims_product(x, 0, p->axis), inner, o;
    int32_t k;
    if (mmd_tensor_numel(x) == 0) return MMD_OK;
    inner = mmd__dims_product(x, p->axis + 1, x->rank);
    for (o = 0; o < outer; ++o)
        for (k = 0; k < c->output_count; ++k) {
            mmd_tensor *out = c->outputs[k];
            block = (size_t)(out->dims[p->axis] * inner) * elem;
            if (block) memcpy((uint8_t *)out->data + (size_t)o * block, src, block);
            src += block;
        }
    return MMD_OK;
}

/* Every index must lie in [-size, size-1]; the message names the first one that does not. */
static mmd_status mmd__gather_check(mmd_kernel_ctx *c, const mmd_tensor *idx, int64_t size) {
    int64_t j, n = mmd_tensor_numel(idx), v;
    for (j = 0; j < n; ++j) {
        v = mmd__load_int(idx->dtype, idx->data, j);
        if (v < -size || v >= size)
            return mmd_kernel_fail(c, MMD_ERR_INDEX, "index %lld (element %lld of indices) is out "
                                   "of range for an axis of size %lld", (long long)v, (long long)j,
                                   (long long)size);
    }
    return MMD_OK;
}

/* Output dims: data's before the axis, then the indices' dims, then data's after the axis.
   Known indices are checked here for an early error; the output shape does not depend on
   them and eval checks them again, so they are no value input (a graph input there does not
   make a new binding re-plan). */
static mmd_status mmd__gather_any_prepare(mmd_kernel_ctx *c) {
    mmd__axis_data *p = (mmd__axis_data *)c->op_data;
    const mmd_tensor *x, *idx;
    int64_t axis, dims[MMD_MAX_RANK];
    int32_t d, n = 0;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    idx = c->inputs[1];
    if (idx->dtype != MMD_DTYPE_INT64 && idx->dtype != MMD_DTYPE_INT32)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "indices have dtype %s, expected int32 or int64",
                               mmd_dtype_name(idx->dtype));
    if ((st = mmd_attr_get_int(c, "axis", 0, &axis)) != MMD_OK) return st;
    if ((st = mmd__norm_axis(c, axis, x->rank, &p->axis)) != MMD_OK) return st;
    if ((st = mmd__want_out_rank(c, (int64_t)x->rank - 1 + idx->rank)) != MMD_OK) return st;
    for (d = 0; d < p->axis; ++d) dims[n++] = x->dims[d];
    for (d = 0; d < idx->rank; ++d) dims[n++] = idx->dims[d];
    for (d = p->axis + 1; d < x->rank; ++d) dims[n++] = x->dims[d];
    if (mmd_tensor_is_const(idx) && (st = mmd__gather_check(c, idx, x->dims[p->axis])) != MMD_OK)
        return st;
    return mmd__set_output(c, 0, x->dtype, n, dims);
}

static mmd_status mmd__gather_any_eval(mmd_kernel_ctx *c) {
    const mmd__axis_data *p = (const mmd__axis_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *idx = c->inputs[1];
    int64_t size = x->dims[p->axis], outer = mmd__dims_product(x, 0, p->axis);
    int64_t n = mmd_tensor_numel(idx), o, j, v;
    size_t block = (size_t)mmd__dims_product(x, p->axis + 1, x->rank) * mmd_dtype_size(x->dtype);
    const uint8_t *src = (const uint8_t *)x->data;
    uint8_t *dst = (uint8_t *)c->outputs[0]->data;
    mmd_status st;
    if ((st = mmd__gather_check(c, idx, size)) != MMD_OK) return st;
    if (block == 0) return MMD_OK;
    for (o = 0; o < outer; ++o)
        for (j = 0; j < n; ++j) {
            v = mmd__load_int(idx->dtype, idx->data, j);
            if (v < 0) v += size;
            memcpy(dst, src + (size_t)(o * size + v) * block, block);
            dst += block;
        }
    return MMD_OK;
}

/* ---- Shape, Size: values from dims alone (the planner folds them) ------------------------- */

typedef struct mmd__shape_data {
    int32_t start;
} mmd__shape_data;

/* Opset 15 start/end pick a range of dims; both clamp to [0, rank] after negatives add rank. */
static mmd_status mmd__shape_any_prepare(mmd_kernel_ctx *c) {
    mmd__shape_data *p = (mmd__shape_data *)c->op_data;
    const mmd_tensor *x;
    int64_t start = 0, end, len;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    end = x->rank;
    if (c->opset >= 15) {
        if ((st = mmd_attr_get_int(c, "start", 0, &start)) != MMD_OK) return st;
        if ((st = mmd_attr_get_int(c, "end", x->rank, &end)) != MMD_OK) return st;
    }
    start = mmd__clamp_i64(start < 0 ? start + x->rank : start, 0, x->rank);
    end = mmd__clamp_i64(end < 0 ? end + x->rank : end, 0, x->rank);
    len = end > start ? end - start : 0;
    p->start = (int32_t)start;
    return mmd__set_output(c, 0, MMD_DTYPE_INT64, 1, &len);
}

static mmd_status mmd__shape_any_eval(mmd_kernel_ctx *c) {
    const mmd__shape_data *p = (const mmd__shape_data *)c->op_data;
    mmd_tensor *out = c->outputs[0];
    int64_t *dst = (int64_t *)out->data, i;
    for (i = 0; i < out->dims[0]; ++i) dst[i] = c->inputs[0]->dims[p->start + i];
    return MMD_OK;
}

static mmd_status mmd__size_any_prepare(mmd_kernel_ctx *c) {
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st != MMD_OK) return st;
    return mmd__set_output(c, 0, MMD_DTYPE_INT64, 0, NULL);
}

static mmd_status mmd__size_any_eval(mmd_kernel_ctx *c) {
    *(int64_t *)c->outputs[0]->data = mmd_tensor_numel(c->inputs[0]);
    return MMD_OK;
}

/* ---- Constant, ConstantOfShape ------------------------------------------------------------ */

typedef struct mmd__constant_data {
    const void *src;                 /* the value's bytes, in the node's attribute */
} mmd__constant_data;

/* Exactly one value attribute. The output points at the attribute's own bytes, which live as
   long as the model, so nothing is copied; eval copies only if the planner has since given the
   output memory of its own. */
static mmd_status mmd__constant_any_prepare(mmd_kernel_ctx *c) {
    /* Each value attribute with its attribute type and, for the scalars and lists, the output
       dtype and rank; the string and sparse ones, without a dtype, are declined. */
    static const struct {
        const char *name;
        int32_t type, dtype, rank;
    } kinds[] = {{"value", MMD_ATTR_TENSOR, MMD_DTYPE_UNDEFINED, 0},
                 {"value_float", MMD_ATTR_FLOAT, MMD_DTYPE_FLOAT32, 0},
                 {"value_floats", MMD_ATTR_FLOATS, MMD_DTYPE_FLOAT32, 1},
                 {"value_int", MMD_ATTR_INT, MMD_DTYPE_INT64, 0},
                 {"value_ints", MMD_ATTR_INTS, MMD_DTYPE_INT64, 1},
                 {"value_string", MMD_ATTR_STRING, MMD_DTYPE_UNDEFINED, 0},
                 {"value_strings", MMD_ATTR_STRINGS, MMD_DTYPE_UNDEFINED, 0},
                 {"sparse_value", MMD_ATTR_UNDEFINED, MMD_DTYPE_UNDEFINED, 0}};
    mmd__constant_data *p = (mmd__constant_data *)c->op_data;
    const mmd_attr *a = NULL, *b;
    int32_t i, k = 0;
    mmd_status st = mmd__check_io(c, 0, 0, 1);
    if (st != MMD_OK) return st;
    for (i = 0; i < (int32_t)(sizeof kinds / sizeof kinds[0]); ++i) {
        if (!(b = mmd_node_attr(c->node, kinds[i].name))) continue;
        if (a)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has both '%s' and '%s'", kinds[k].name,
                                   kinds[i].name);
        a = b;
        k = i;
    }
    if (!a) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has no value attribute");
    if (kinds[k].type != MMD_ATTR_TENSOR && kinds[k].dtype == MMD_DTYPE_UNDEFINED)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "'%s' is not supported (no string or "
                               "sparse tensors)", kinds[k].name);
    if (a->type != kinds[k].type)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute '%s' has type %d, expects %d",
                               kinds[k].name, (int)a->type, (int)kinds[k].type);
    if (a->type == MMD_ATTR_TENSOR) {
        if ((st = mmd__want_sized(c, a->t, "value")) != MMD_OK) return st;
        p->src = a->t->data;
        st = mmd__set_output(c, 0, a->t->dtype, a->t->rank, a->t->dims);
    } else {
        p->src = a->type == MMD_ATTR_FLOAT ? (const void *)&a->f
                 : a->type == MMD_ATTR_INT ? (const void *)&a->i
                 : a->type == MMD_ATTR_FLOATS ? (const void *)a->floats : (const void *)a->ints;
        st = mmd__set_output(c, 0, kinds[k].dtype, kinds[k].rank, &a->count);
    }
    if (st != MMD_OK) return st;
    /* Nobody writes a constant, so handing out the attribute's bytes without const is safe. */
    c->outputs[0]->data = (void *)p->src;
    return MMD_OK;
}

static mmd_status mmd__constant_any_eval(mmd_kernel_ctx *c) {
    const mmd__constant_data *p = (const mmd__constant_data *)c->op_data;
    mmd_tensor *out = c->outputs[0];
    size_t bytes = (size_t)mmd_tensor_numel(out) * mmd_dtype_size(out->dtype);
    if (bytes && out->data != p->src) memcpy(out->data, p->src, bytes);
    return MMD_OK;
}

typedef struct mmd__constant_of_shape_data {
    uint64_t value;                  /* one element of the output dtype, in its first bytes */
} mmd__constant_of_shape_data;

/* Output dims are the constant shape input's values (empty: a scalar); every element is the
   one-element 'value' tensor, float32 0 by default. */
static mmd_status mmd__constant_of_shape_any_prepare(mmd_kernel_ctx *c) {
    mmd__constant_of_shape_data *p = (mmd__constant_of_shape_data *)c->op_data;
    const mmd_tensor *value = NULL;
    int64_t shape[MMD_MAX_RANK];
    int32_t n, dtype = MMD_DTYPE_FLOAT32;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__get_ints(c, 1, 0, "shape", shape, MMD_MAX_RANK, &n);
    if (st == MMD_OK) st = mmd_attr_get_tensor(c, "value", &value);
    if (st != MMD_OK) return st;
    p->value = 0;
    if (value) {
        if ((st = mmd__want_sized(c, value, "value")) != MMD_OK) return st;
        if (mmd_tensor_numel(value) != 1)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "value must hold one element, it has %lld",
                                   (long long)mmd_tensor_numel(value));
        memcpy(&p->value, value->data, mmd_dtype_size(value->dtype));
        dtype = value->dtype;
    }
    return mmd__set_output(c, 0, dtype, n, shape);
}

static mmd_status mmd__constant_of_shape_any_eval(mmd_kernel_ctx *c) {
    const mmd__constant_of_shape_data *p = (const mmd__constant_of_shape_data *)c->op_data;
    mmd_tensor *out = c->outputs[0];
    mmd__fill(out->data, mmd_tensor_numel(out), &p->value, mmd_dtype_size(out->dtype));
    return MMD_OK;
}

/* ==== >>ops table ==== */

#include "wip/ops_elementwise.inc"
#include "wip/ops_reduce.inc"
#include "wip/ops_index.inc"
#include "wip/ops_nn2.inc"
#include "wip/ops_detect.inc"

/* Sorted by nothing in particular: lookups are a linear scan done once per node at setup. */
static const mmd_kernel mmd__kernels[] = {
    {"", "Constant", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__constant_data), mmd__constant_any_prepare, mmd__constant_any_eval},
    {"", "ConstantOfShape", 9, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(0), sizeof(mmd__constant_of_shape_data), mmd__constant_of_shape_any_prepare, mmd__constant_of_shape_any_eval},
    {"", "Shape", 1, MMD__OPSET_CHECKED, MMD_KERNEL_SHAPE_ONLY, sizeof(mmd__shape_data), mmd__shape_any_prepare, mmd__shape_any_eval},
    {"", "Size", 1, MMD__OPSET_CHECKED, MMD_KERNEL_SHAPE_ONLY, 0, mmd__size_any_prepare, mmd__size_any_eval},
    {"", "Identity", 1, MMD__OPSET_CHECKED, 0, 0, mmd__identity_any_prepare, mmd__identity_any_eval},
    {"", "Dropout", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(2), sizeof(mmd__dropout_data), mmd__dropout_any_prepare, mmd__dropout_any_eval},
    {"", "Flatten", 1, MMD__OPSET_CHECKED, 0, 0, mmd__flatten_any_prepare, mmd__identity_any_eval},
    {"", "Reshape", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), 0, mmd__reshape_any_prepare, mmd__identity_any_eval},
    {"", "Squeeze", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), 0, mmd__squeeze_any_prepare, mmd__identity_any_eval},
    {"", "Unsqueeze", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), 0, mmd__unsqueeze_any_prepare, mmd__identity_any_eval},
    {"", "Transpose", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__view_data), mmd__transpose_any_prepare, mmd__view_any_eval},
    {"", "Slice", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1) | MMD_KERNEL_VALUE_INPUT(2) | MMD_KERNEL_VALUE_INPUT(3) | MMD_KERNEL_VALUE_INPUT(4), sizeof(mmd__view_data), mmd__slice_any_prepare, mmd__view_any_eval},
    {"", "Expand", 8, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__view_data), mmd__expand_any_prepare, mmd__view_any_eval},
    {"", "Concat", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__axis_data), mmd__concat_any_prepare, mmd__concat_any_eval},
    {"", "Split", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__axis_data), mmd__split_any_prepare, mmd__split_any_eval},
    {"", "Gather", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__axis_data), mmd__gather_any_prepare, mmd__gather_any_eval},
    MMD__ELEMENTWISE_KERNELS
    MMD__REDUCE_KERNELS
    MMD__INDEX_KERNELS
    MMD__NN2_KERNELS
    MMD__DETECT_KERNELS
    {"", "Conv", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__conv_data), mmd__conv_f32_prepare, mmd__conv_f32_eval},
    {"", "BatchNormalization", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__batchnorm_data), mmd__batchnorm_f32_prepare, mmd__batchnorm_f32_eval},
    {"", "Relu", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__relu_f32_prepare, mmd__unary_f32_eval},
    {"", "LeakyRelu", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__leaky_relu_f32_prepare, mmd__unary_f32_eval},
    {"", "Clip", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__clip_f32_prepare, mmd__unary_f32_eval},
    {"", "Sigmoid", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__sigmoid_f32_prepare, mmd__unary_f32_eval},
    {"", "HardSigmoid", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__hard_sigmoid_f32_prepare, mmd__unary_f32_eval},
    {"", "HardSwish", 14, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__hard_swish_f32_prepare, mmd__unary_f32_eval},
    {"", "Tanh", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__tanh_f32_prepare, mmd__unary_f32_eval},
    {"", "Erf", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__erf_f32_prepare, mmd__unary_f32_eval},
    {"", "Sqrt", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__unary_data), mmd__sqrt_f32_prepare, mmd__unary_f32_eval},
    {"", "Add", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__add_prepare, mmd__binary_eval},
    {"", "Sub", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__sub_prepare, mmd__binary_eval},
    {"", "Mul", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__mul_prepare, mmd__binary_eval},
    {"", "Div", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__div_prepare, mmd__binary_eval},
    {"", "Pow", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__pow_prepare, mmd__binary_eval},
    {"", "MaxPool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__pool_data), mmd__max_pool_f32_prepare, mmd__max_pool_f32_eval},
    {"", "AveragePool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__pool_data), mmd__average_pool_f32_prepare, mmd__average_pool_f32_eval},
    {"", "GlobalAveragePool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__plane_data), mmd__global_average_pool_f32_prepare, mmd__global_average_pool_f32_eval},
    {"", "Gemm", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__gemm_data), mmd__gemm_f32_prepare, mmd__gemm_f32_eval},
    {"", "MatMul", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__matmul_data), mmd__matmul_f32_prepare, mmd__matmul_f32_eval},
    {"", "Softmax", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__softmax_data), mmd__softmax_f32_prepare, mmd__softmax_f32_eval},
    {"", "ReduceMean", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduce_data), mmd__reduce_mean_f32_prepare, mmd__reduce_mean_f32_eval},
    {"", "Cast", 6, MMD__OPSET_CHECKED, 0, sizeof(mmd__cast_data), mmd__cast_prepare, mmd__cast_eval},
};

/* "" and "ai.onnx" name the same domain. */
static int32_t mmd__domain_is_onnx(const char *d) { return !d || !d[0] || !strcmp(d, "ai.onnx"); }

MMD_API const mmd_kernel *mmd_ops_find(const char *domain, const char *op_type, int64_t opset) {
    size_t i;
    if (!op_type) return NULL;
    for (i = 0; i < sizeof mmd__kernels / sizeof mmd__kernels[0]; ++i) {
        const mmd_kernel *k = &mmd__kernels[i];
        int32_t same = mmd__domain_is_onnx(domain) ? mmd__domain_is_onnx(k->domain)
                                                   : k->domain && !strcmp(domain, k->domain);
        if (same && !strcmp(op_type, k->op_type) && opset >= k->min_opset && opset <= k->max_opset) return k;
    }
    return NULL;
}

MMD_API size_t mmd_ops_count(void) { return sizeof mmd__kernels / sizeof mmd__kernels[0]; }

MMD_API const mmd_kernel *mmd_ops_at(size_t i) { return i < mmd_ops_count() ? &mmd__kernels[i] : NULL; }


#endif /* MMD_OPS_IMPLEMENTATION */

/* A header included after the others with MMD_IMPLEMENTATION defined still emits all three
   implementations: whichever header sees every declaration first pulls in the rest. */
#if defined(MMD_IMPLEMENTATION) && defined(MMD_CORE_DECLS) && defined(MMD_IR_DECLS) && defined(MMD_OPS_DECLS)
#if !defined(MMD_CORE_IMPLEMENTED)
#include "mmdeploy.h"
#endif
#if !defined(MMD_IR_IMPLEMENTED)
#include "mmdeploy_ir.h"
#endif
#if !defined(MMD_OPS_IMPLEMENTED)
#include "mmdeploy_ops.h"
#endif
#endif

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
