/* mmdeploy_ops.h - v0.1.0 - MIT licence (see end of file)
   Reference CPU kernels for mmdeploy.h and the table that names them. Layer 3 (LAYERS in
   mmdeploy.h): includes and uses mmdeploy_ir.h (so mmdeploy.h's declarations) only.

   QUICK START
     const mmd_kernel *k = mmd_ops_find("", "Conv", 13);   // NULL when there is no kernel
     for (size_t i = 0; i < mmd_ops_count(); ++i) puts(mmd_ops_at(i)->op_type);

   WHAT IT DOES NOT DO
     No threads of its own: kernels split work only through mmd_kernel_parallel (the session's
     hook). Intrinsics only behind the one dispatch of >>ops simd (AVX2, AVX-512, NEON, and for
     the integer product Cortex-M's DSP extension and MVE), each path beside portable loops
     that MMD_NO_SIMD builds keep.
     QDQ graphs run as int8 only where mmd_graph_rewrite turns DequantizeLinear -> Conv or
     MatMul (-> Relu) -> QuantizeLinear into QLinearConv or QLinearMatMul (and a Relu or Clip
     between a QLinearConv's DequantizeLinear and QuantizeLinear in its scale into a clamp of
     its requantisation); Add, pools and Gemm in QDQ form run as float between their
     quantizations. No float8/int4/int16 quantization
     and no blocked quantization (opset 21), no
     string tensors, no dtypes beyond those listed below (MMD_ERR_DTYPE);
     no training (BatchNormalization's running statistics are MMD_ERR_UNSUPPORTED).

   OPERATORS (ai.onnx; opset ranges inclusive, all ending at 25, the newest opset whose
   changelog was read: a newer model gets MMD_ERR_NO_KERNEL)
   Dtype groups: floats = float32, float64, float16 (computed in float32); ints = int8 to int64;
   uints = uint8 to uint64; numeric = floats, ints and uints; any = every dtype but string
   (the kernel moves bytes, not values).
     Elementwise       Relu 1 (floats, ints); LeakyRelu, Sigmoid, HardSigmoid, Tanh, Sqrt, Exp,
                       Log, Ceil, Floor, Reciprocal, Softplus, Softsign, Elu, Selu 1, Acos, Asin,
                       Atan, Cos, Sin, Tan 7, Erf, Acosh, Asinh, Atanh, Cosh, Sinh, Shrink 9,
                       ThresholdedRelu 10, Round 11, Celu 12, HardSwish 14 (floats);
                       Clip 1, Abs 1, Sign 9 (numeric); Neg 1 (floats, ints);
                       IsNaN 9, IsInf 10 (floats to bool); Not 1 (bool)
                       Add, Sub, Mul, Div 7 (numeric; integers wrap, integer Div truncates);
                       Pow 7 (floats; float32 base with int32 or int64 exponent); Mod 10
                       (numeric; fmod 0 for integers only); PRelu 7 (floats, ints); Equal,
                       Greater, Less 7, GreaterOrEqual, LessOrEqual 12 (numeric, Equal also
                       bool; output bool); And, Or, Xor 7 (bool); Where 9 (any); Max, Min,
                       Sum 1 (numeric), Mean 1 (float32), all with numpy broadcasting
                       Cast 6, CastLike 15: among floats, bfloat16, ints, uint8 to uint32, bool
     Shape and layout  Reshape, Squeeze, Unsqueeze, Flatten, Identity, Transpose, Concat,
     (any)             Split, Gather, Slice, Shape, Size, Constant, Dropout 1 (inference: the
                       output is the input, the mask all ones), Expand 8, ConstantOfShape 9
     Indexing (any)    GatherElements, ScatterElements, GatherND, ScatterND 11, Scatter 9-10,
                       NonZero, Compress, OneHot, EyeLike 9, Range 11 (float32, float64,
                       int16 to int64), Tile 6, Pad 2, Trilu 14, DepthToSpace, SpaceToDepth 1;
                       the scatter reductions (add, mul, max, min) take numeric data only
     Reductions        ReduceSum, ReduceMean, ReduceProd, ReduceMax, ReduceMin, ReduceL1,
     (float32/64,      ReduceSumSquare, and for float32 and float64 only ReduceL2, ReduceLogSum,
     int32/64)         ReduceLogSumExp 1 (axes an input from 13 for ReduceSum, 18 for the
                       others); ArgMax, ArgMin, TopK 1 (k an input from 10), CumSum 11, Einsum 12
     Convolution       Conv, ConvTranspose 1 (1-D to 3-D, groups, strides, dilations, pads,
     (float32)         auto_pad); MaxPool (Indices output), AveragePool, LpPool 1 (ceil_mode,
                       dilations); GlobalAveragePool, GlobalMaxPool, GlobalLpPool 1
     Matrix, norms     Gemm 7, MatMul 1; Softmax, LogSoftmax, Hardmax 1 (2-D coercion before
     (float32)         13); BatchNormalization 7 (inference); InstanceNormalization, LRN 1;
                       MeanVarianceNormalization 9; LayerNormalization 17
     Recurrent         LSTM, GRU, RNN 7 (layout from 14; every direction, activation,
     (float32)         sequence_lens, initial state, clip, input_forget, linear_before_reset)
     Resampling and    GridSample 16 (float32, 4-D); Upsample 7-9, Resize 10 (nearest: any;
     detection         linear, cubic: Cast's dtypes); RoiAlign 10, NonMaxSuppression 10
                       (float32)
     Quantization      QuantizeLinear, DequantizeLinear 10-20 (int8, uint8, DequantizeLinear
                       also int32; per tensor or per axis; float16 and bfloat16 from 19);
                       DynamicQuantizeLinear 11 (uint8); MatMulInteger, ConvInteger,
                       QLinearMatMul, QLinearConv 10 (int8 and uint8, per-row / per-column /
                       per-channel zero points and scales); round half to even and saturation
                       as ONNX Runtime computes them; scales must be positive and finite

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
     known, and otherwise fails with MMD_ERR_UNSUPPORTED naming the input. Shapes that depend
     on data (NonZero, Compress, NonMaxSuppression, TopK with a run-time k) are planned at
     their upper bound and marked dynamic; eval writes the real dims.
     Errors: a bad attribute or graph is MMD_ERR_INVALID_MODEL, incompatible shapes
     MMD_ERR_SHAPE, an unsupported dtype MMD_ERR_DTYPE; an output past MMD_MAX_RANK axes (and a
     shape or axes list longer than that), more than 2^40 elements or MMD_MAX_TENSOR_BYTES is
     MMD_ERR_LIMIT.

   THREAD SAFETY
     The table is const; kernels keep no state outside their op data.

   SELECTING KERNELS (firmware)
     With MMD_ONLY_OPS defined, the table keeps only the ops whose MMD_OP_<op_type> is defined
     too, empty or as 1 (MMD_OP_<domain>_<op_type> outside ai.onnx, other characters as '_');
     `mmdeploy convert MODEL.onnx --ops-header ops.h` writes the list a model needs. The kernels
     left out are never referenced, so the compiler drops them (GCC and Clang at -O1 and above,
     or with -ffunction-sections and --gc-sections at any level); their unused-function warnings
     are silenced for that build only. MSVC needs /Zc:preprocessor for MMD__K. Shared code
     drops the branches only left-out ops take (LpPool's in MaxPool, the recurrent gate
     activations), and mmd_resize_axis_taps is compiled only with Resize or Upsample kept.

   SPEED AND SIZE
     Conv, ConvTranspose, Gemm, MatMul and the deformable convolutions share one blocked matrix
     product (>>ops gemm) with AVX2, AVX-512 and NEON micro-kernels chosen at run time (see
     >>ops simd for MMD_NO_SIMD and MMD_NO_AVX512). Constant weights are packed once per plan.
     MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv share one integer product on
     bytes (>>ops quantization) with AMX (Linux, where the CPU has AMX-INT8; not with
     MMD_NO_AMX), AVX-512 VNNI, AVX2, NEON (SDOT where the CPU has the Armv8.2 dot product),
     Cortex-M DSP (SMLAD: M4, M7, M33), Cortex-M55 MVE and portable micro-kernels.
       MMD_GEMM_KC, MMD_GEMM_MC, MMD_GEMM_NC   its block sizes (defaults 256, 120, 1024; 64, 12,
                       32 with MMD_CONV_SMALL); smaller ones cut the packing scratch
       MMD_CONV_SMALL  the firmware setting: every convolution through im2col and the product
                       (no depthwise, stride-1 or pointwise special paths) and every pool through
                       its plain loops (MaxPool of int8 or uint8, kept only with QLinearConv,
                       through its row path), with the small default blocks above (the integer
                       product's too: 64, 12, 32) and im2col bands: a
                       scratch of kilobytes and about 6 KB less code at -Os, slower
       MMD_CONV_COLUMNS_MAX  im2col and ConvTranspose columns gathered at once, in floats
                       (default 1 << 20, 1024 with MMD_CONV_SMALL; at least one output row)
       MMD_GEMM_NR_PORTABLE  columns of the portable micro-kernel, 8 (default), 16 (the default
                       of MMD_NO_SIMD builds for AVX2: see >>ops simd) or 4 (Cortex-M: its
                       tile then fits the FPU's registers)
       MMD_NO_WINOGRAD no Winograd F(4x4, 3x3) (nor F(2x2, 3x3)) path for
                       3x3 stride-1 convolutions (>>ops winograd; MMD_CONV_SMALL leaves it out
                       too); MMD_WINOGRAD_TILES_MIN, MMD_WINOGRAD_CHANNELS_MIN and
                       MMD_WINOGRAD_OUT_CHANNELS_MIN (48, 32 in, 8 out) set where it is chosen,
                       MMD_WINOGRAD_TILES_SMALL and MMD_WINOGRAD_SMALL_CHANNELS_MIN (16 tiles,
                       128 channels in and out) where the x86 vector builds take it on smaller
                       planes too, as F(2x2, 3x3) or F(4x4, 3x3), whichever computes less, and
                       MMD_WINOGRAD_TILES_NARROW (16) below how many 4x4 tiles the portable
                       build runs F(2x2, 3x3) instead
       MMD_FUSE_PLANE_MIN, MMD_FUSE_INPUT_MAX  where the load-time rewrites fuse a 1x1
                       convolution into the depthwise convolution after it (mmd
                       PointwiseDepthwise, >>ops pointwise depthwise; MMD_CONV_SMALL leaves
                       it out): planes of at least 196 pixels (14x14), the 1x1's input at most
                       1 << 19 floats (2 MB) by default
       MMD_GEMM_MR_AVX512  rows of the AVX-512 micro-kernel, 8 (default: 16 sums in registers,
                       the fastest measured on Zen 5) or 12 (24 sums)
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
/* The instruction set the kernels choose on this CPU: "avx512", "avx2", "neon" or "portable"
   (see >>ops simd). Thread safe. */
MMD_API const char *mmd_ops_isa(void);

/* ---- resampling coefficients ---------------------------------------------------------------
   The one place where resize math lives: the Resize and Upsample kernels and the image resize
   of mmdeploy_sdk.h both map output coordinates to input taps and weights through
   mmd_resize_axis_taps, one axis at a time. Modes, coordinate transformations and nearest
   roundings are ONNX Resize's; OpenCV's cv::resize is MMD_RESIZE_LINEAR with
   MMD_RESIZE_HALF_PIXEL (INTER_LINEAR) or MMD_RESIZE_CUBIC likewise (INTER_CUBIC),
   MMD_RESIZE_NEAREST with MMD_RESIZE_ASYMMETRIC and MMD_RESIZE_ROUND_FLOOR (INTER_NEAREST), and
   INTER_AREA is MMD_RESIZE_AREA on both axes when neither grows, else MMD_RESIZE_LINEAR with
   MMD_RESIZE_OPENCV_AREA on both. */
typedef enum mmd_resize_mode {
    MMD_RESIZE_NEAREST, MMD_RESIZE_LINEAR, MMD_RESIZE_CUBIC,
    MMD_RESIZE_AREA                  /* box average over each output pixel's input span (out <= in) */
} mmd_resize_mode;
typedef enum mmd_resize_coord {
    MMD_RESIZE_HALF_PIXEL, MMD_RESIZE_HALF_PIXEL_SYMMETRIC, MMD_RESIZE_PYTORCH_HALF_PIXEL,
    MMD_RESIZE_ALIGN_CORNERS, MMD_RESIZE_ASYMMETRIC, MMD_RESIZE_TF_HALF_PIXEL_FOR_NN,
    MMD_RESIZE_TF_CROP_AND_RESIZE,
    MMD_RESIZE_OPENCV_AREA           /* OpenCV's INTER_AREA coordinates when an axis grows */
} mmd_resize_coord;
typedef enum mmd_resize_round {
    MMD_RESIZE_ROUND_PREFER_FLOOR, MMD_RESIZE_ROUND_PREFER_CEIL, MMD_RESIZE_ROUND_FLOOR,
    MMD_RESIZE_ROUND_CEIL
} mmd_resize_round;

/* One axis of a resize. The caller validates: in >= 1, out >= 0, scale finite and positive,
   roi finite (only MMD_RESIZE_TF_CROP_AND_RESIZE reads it). */
typedef struct mmd_resize_axis {
    int32_t mode;                    /* mmd_resize_mode */
    int32_t coord;                   /* mmd_resize_coord */
    int32_t nearest;                 /* mmd_resize_round: how MMD_RESIZE_NEAREST rounds */
    int32_t exclude_outside;         /* 1: taps outside the input weigh 0, the rest renormalised */
    float cubic_a;                   /* Keys' cubic coefficient (ONNX default -0.75) */
    int64_t in, out;                 /* input and output lengths */
    double scale;                    /* the scale the coordinate formulas divide by: out / in,
                                        or ONNX's scales value */
    double roi_start, roi_end;       /* tf_crop_and_resize: normalised crop on this axis */
} mmd_resize_axis;

/* The input positions (element offsets: index times the axis' stride) and weights behind one
   output coordinate. n is 1 (nearest, or a coordinate on an input element), 2 (linear), 4
   (cubic), or 0 for a tf_crop_and_resize coordinate outside the input. MMD_RESIZE_AREA spans
   any number n of contiguous inputs: off[0], off[0] + stride, ...; the first weighs w[0], the
   last w[2] and the others w[1] (mmd_resize_tap_at reads any mode). */
typedef struct mmd_resize_tap {
    int64_t off[4];
    float w[4];
    int32_t n;
} mmd_resize_tap;

/* Fills taps[0 .. a->out) for one axis whose input stride is `stride` elements. Offsets are
   clamped into the input. Any phase, no allocation, thread safe. Left out of MMD_ONLY_OPS
   builds that keep neither Resize nor Upsample. */
MMD_API void mmd_resize_axis_taps(const mmd_resize_axis *a, int64_t stride, mmd_resize_tap *taps);
/* Offset and weight of tap k (< t->n) of a tap made for mode `mode` on an axis of that stride.
   Any phase, thread safe. */
MMD_API void mmd_resize_tap_at(const mmd_resize_tap *t, int32_t mode, int64_t stride, int32_t k, int64_t *off,
                               float *w);

#ifdef __cplusplus
}
#endif

#define MMD_OPS_DECLS
#endif /* MMDEPLOY_OPS_H */

#if (defined(MMD_IMPLEMENTATION) || defined(MMD_OPS_IMPLEMENTATION)) && defined(MMD_OPS_DECLS) && \
    !defined(MMD_OPS_IMPLEMENTED)
#define MMD_OPS_IMPLEMENTED
/* ==== >>ops implementation ==== */
#include <float.h>
#include <math.h>
#include <string.h>

/* ==== >>ops selection ==== */
/* MMD__K(op, entry) keeps a table entry unless MMD_ONLY_OPS is defined and MMD_OP_<op> is not.
   The preprocessor cannot ask defined() from inside a macro, so MMD__ON asks instead whether
   MMD_OP_<op> expands to nothing or to 1: then MMD__ON_ or MMD__ON_1 supplies a comma that
   shifts 1 into MMD__SECOND's second place; an undefined name leaves 0 there. */
#ifdef MMD_ONLY_OPS
#define MMD__ON_ 0,
#define MMD__ON_1 0,
#define MMD__SECOND(a, b, ...) b
#define MMD__ON_PICK(x) MMD__SECOND(x 1, 0, 0)
#define MMD__ON_PASTE(v) MMD__ON_PICK(MMD__ON_##v)
#define MMD__ON(v) MMD__ON_PASTE(v)
#define MMD__K(op, ...) MMD__K_PICK(MMD__ON(MMD_OP_##op), __VA_ARGS__)
#define MMD__KEEP(op) MMD__ON(MMD_OP_##op)
#else
#define MMD__K(op, ...) __VA_ARGS__,
#define MMD__KEEP(op) 1
#endif
/* MMD__KEEP(op) is 1 when the build keeps op's kernel, 0 when MMD_ONLY_OPS leaves it out; also
   in #if. Code that only some kernels of a family need tests it (in #if, or as a constant the
   compiler folds), so that a firmware build carries only its own kernels' branches. */
#define MMD__K_PICK(on, ...) MMD__K_PICK_(on, __VA_ARGS__)
#define MMD__K_PICK_(on, ...) MMD__K_##on(__VA_ARGS__)
#define MMD__K_1(...) __VA_ARGS__,
#define MMD__K_0(...)

#if defined(MMD_ONLY_OPS) && (defined(__GNUC__) || defined(__clang__))
/* Kernels whose entries MMD_ONLY_OPS leaves out go unused, by design; popped after the table. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

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

/* Writes "[1,3,224,224]" into buf for error messages; cut short rather than overflow. Without
   message text (MMD_NO_ERROR_STRINGS) it is only named, never called. */
#ifdef MMD_NO_ERROR_STRINGS
#define mmd__dims_text(buf, cap, rank, dims) ((void)(cap), (void)(rank), (void)(dims), (const char *)(buf))
#else
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
#endif

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

/* An absent optional input ("" in the node) past the ones mmd__check_io requires, which a kernel
   then asks about: a model error, not a NULL to read through. */
static mmd_status mmd__want_present(mmd_kernel_ctx *c, int32_t i) {
    if (i >= 0 && i < c->input_count && c->inputs[i]) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "input %d is absent, and this operator needs it", (int)i);
}

/* Fails with MMD_ERR_DTYPE unless input i has the given dtype (MMD_ERR_INVALID_MODEL if absent). */
static mmd_status mmd__want_dtype(mmd_kernel_ctx *c, int32_t i, int32_t dtype) {
    const mmd_tensor *t;
    mmd_status st = mmd__want_present(c, i);
    if (st != MMD_OK) return st;
    t = c->inputs[i];
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

/* Byte-moving kernels need an element size; strings and unknown dtypes have none. */
static mmd_status mmd__want_sized(mmd_kernel_ctx *c, const mmd_tensor *t, const char *what) {
    if (mmd_dtype_size(t->dtype) == 0)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "%s has dtype %s (%d), which is not supported",
                               what, mmd_dtype_name(t->dtype), (int)t->dtype);
    return MMD_OK;
}

/* Fails with MMD_ERR_SHAPE unless input i has a rank in [lo, hi] (MMD_ERR_INVALID_MODEL if
   absent). */
static mmd_status mmd__want_rank(mmd_kernel_ctx *c, int32_t i, int32_t lo, int32_t hi) {
    const mmd_tensor *t;
    mmd_status st = mmd__want_present(c, i);
    if (st != MMD_OK) return st;
    t = c->inputs[i];
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
    size_t bytes;
    int32_t d;
    mmd_status st;
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
    /* Dims were checked above, so what is left to fail is the dtype or the byte count; no
       mmd_error of its own here, which would sit on the stack under every prepare. */
    if ((st = mmd_tensor_nbytes(t, &bytes, NULL)) != MMD_OK)
        return mmd_kernel_fail(c, st, "output %d: %s", (int)i,
                               st == MMD_ERR_LIMIT ? "larger than MMD_MAX_TENSOR_BYTES" : "unsupported dtype");
    return MMD_OK;
}

/* Ops that add axes (Unsqueeze, Gather, GatherND, OneHot) check the output rank before
   assembling its dims: past MMD_MAX_RANK is MMD_ERR_LIMIT, as mmd__set_output would say. */
static mmd_status mmd__want_out_rank(mmd_kernel_ctx *c, int64_t rank) {
    if (rank <= MMD_MAX_RANK) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_LIMIT, "output would have rank %lld, more than MMD_MAX_RANK (%d)",
                           (long long)rank, (int)MMD_MAX_RANK);
}

/* Product of dims [from, to) of t. */
static int64_t mmd__dims_product(const mmd_tensor *t, int32_t from, int32_t to) {
    int64_t p = 1;
    int32_t d;
    for (d = from; d < to; ++d) p *= t->dims[d];
    return p;
}

/* The extents of t around `axis`: the product of the dims before it, its own dim and the
   product of the dims after it, which is how far apart its elements lie. */
static void mmd__axis_extents(const mmd_tensor *t, int32_t axis, int64_t *outer, int64_t *n,
                              int64_t *inner) {
    *outer = mmd__dims_product(t, 0, axis);
    *n = t->dims[axis];
    *inner = mmd__dims_product(t, axis + 1, t->rank);
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

/* The index in `values` (NULL-terminated) of string attribute `name`, def when absent; any
   other value fails with MMD_ERR_INVALID_MODEL naming the attribute, the value and the
   choices. */
static mmd_status mmd__detect_pick(mmd_kernel_ctx *c, const char *name, const char *def,
                                   const char *const *values, int32_t *out) {
    char list[160];
    size_t len = 0;
    const char *s;
    int32_t i;
    mmd_status st = mmd_attr_get_string(c, name, def, &s);
    if (st != MMD_OK) return st;
    for (i = 0; values[i]; ++i) {
        const char *v = values[i];
        if (!strcmp(s, v)) {
            *out = i;
            return MMD_OK;
        }
        if (i && len + 2 < sizeof list) {
            list[len++] = ',';
            list[len++] = ' ';
        }
        while (*v && len + 1 < sizeof list) list[len++] = *v++;
    }
    list[len] = '\0';
    return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute %s = '%s' is not one of %s", name, s, list);
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

/* Requests bytes of scratch, refusing with MMD_ERR_LIMIT what size_t cannot hold (32-bit
   targets) rather than letting the size wrap, and more than MMD_MAX_TENSOR_BYTES: no buffer of
   a plan may be larger than the largest tensor, or a model whose tensors all fit (an RNN's
   projection of every step: sequence x batch x gates x hidden floats) could still make the
   runtime ask for terabytes. */
static mmd_status mmd__scratch_request(mmd_kernel_ctx *c, uint64_t bytes) {
    if (bytes > (uint64_t)SIZE_MAX || bytes > (uint64_t)MMD_MAX_TENSOR_BYTES)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "needs %llu bytes of scratch, more than MMD_MAX_TENSOR_BYTES (%llu)",
                               (unsigned long long)bytes, (unsigned long long)MMD_MAX_TENSOR_BYTES);
    c->scratch_size = (size_t)bytes;
    return MMD_OK;
}

/* ==== >>ops simd ==== */
/* The one SIMD dispatch. Kernels that have intrinsics paths define them as separate functions
   compiled for their instruction set with MMD__TARGET_AVX2 / MMD__TARGET_AVX512 (GCC and Clang
   function attributes, so the translation unit itself is built for baseline x86-64 and one
   binary runs on any x86-64 CPU), and pick one at prepare from mmd__isa(), storing the choice in
   their op data so that eval and anything packed at prepare agree. On AArch64 NEON is always
   there and chosen at compile time, as is 32-bit Arm's DSP extension (Cortex-M4, M7, M33, M55:
   SMLAD's two 16-bit products a cycle, used by the int8 product; a Cortex-M3 has none) and the
   M55's MVE (sixteen byte products an instruction, for the int8 product there). The Armv8.2 dot
   product (SDOT, which the int8 product uses on AArch64) is an extension some cores lack
   (Cortex-A53, A57, A72), so a build without __ARM_FEATURE_DOTPROD compiles its paths with
   MMD__TARGET_DOTPROD and, on Linux, takes them when the kernel's AT_HWCAP says the CPU has it
   (mmd__neon_dotprod); elsewhere such a build keeps to baseline NEON. Builds with MMD_NO_SIMD
   (the portable reference build) have only the portable C paths, written so that compilers
   vectorise them.
     MMD_NO_SIMD      no intrinsics at all
     MMD_NO_AVX512    never choose the AVX-512 paths (to test the AVX2 ones on an AVX-512 CPU)
     MMD_NO_AMX       never choose the int8 product's AMX tiles (mmd__amx_int8) */
enum { MMD__ISA_PORTABLE, MMD__ISA_AVX2, MMD__ISA_AVX512, MMD__ISA_NEON };

/* The one prefetch of portable code: asks for the cache line at P, through GCC's and Clang's
   builtin on any target (other compilers get nothing). The intrinsics paths give their own
   instruction's hints; the portable micro-kernel (mmd__gemm_ukernel_c) and the strided
   convolutions' copies (mmd__prefetch_floats) take this one. */
#if defined(__GNUC__) || defined(__clang__)
#define MMD__HAS_PREFETCH 1
#define MMD__PREFETCH(P) __builtin_prefetch(P)
#define MMD__PREFETCH_L2(P) __builtin_prefetch(P, 0, 2) /* into L2 (prefetcht1 on x86) */
#endif

#if !defined(MMD_NO_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MMD__X86 1
#include <immintrin.h>
#include <cpuid.h>
#define MMD__TARGET_AVX2 __attribute__((target("avx2,fma")))
#define MMD__TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#elif !defined(MMD_NO_SIMD) && defined(__aarch64__) && defined(__ARM_NEON)
#define MMD__NEON 1
#include <arm_neon.h>
#if defined(__ARM_FEATURE_DOTPROD)
#define MMD__NEON_DOT 1
#define MMD__TARGET_DOTPROD
#elif defined(__linux__) && defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)
/* GCC's arm_neon.h declares the dot product under a target pragma, so a function with that
   target may use it in any build; Clang's (up to 16 at least) declares it only when the whole
   build targets it. */
#define MMD__NEON_DOT 1
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20) /* the bit Linux has given the dot product since 4.14 */
#endif
#define MMD__TARGET_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))
#endif
#elif !defined(MMD_NO_SIMD) && defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#define MMD__ARM_DSP 1
#include <arm_acle.h>
#if defined(__ARM_FEATURE_MVE)
/* Cortex-M55's MVE (Helium), beside the DSP extension: 128-bit vectors in eight registers. */
#define MMD__ARM_MVE 1
#include <arm_mve.h>
#endif
#endif

/* The best instruction set this CPU runs (cpuid, read through the compiler's runtime, which also
   checks that the operating system saves the wide registers). */
static int32_t mmd__isa(void) {
#if defined(MMD__X86)
#ifndef MMD_NO_AVX512
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return MMD__ISA_AVX512;
#endif
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return MMD__ISA_AVX2;
    return MMD__ISA_PORTABLE;
#elif defined(MMD__NEON)
    return MMD__ISA_NEON;
#else
    return MMD__ISA_PORTABLE;
#endif
}

#if defined(MMD__NEON_DOT)
/* 1 when this AArch64 CPU has the Armv8.2 dot product (SDOT, UDOT): always where the build
   targets it, else as the kernel's hardware capabilities say. */
static int32_t mmd__neon_dotprod(void) {
#if defined(__ARM_FEATURE_DOTPROD)
    return 1;
#else
    return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#endif
}
#endif

MMD_API const char *mmd_ops_isa(void) {
    static const char *const names[] = {"portable", "avx2", "avx512", "neon"};
    return names[mmd__isa()];
}

/* In MMD_NO_SIMD builds the portable loops are all there is, and a compiler told that the CPU
   has wider vectors (-mavx2 -mfma, -march=native) vectorises them for that width. Its
   predefined macros then choose the shapes of those loops, never intrinsics: MMD__C_VEC is the
   floats of the vectors the loops are written for, 16 with AVX-512, 8 with AVX2, else 4
   (SSE2's and NEON's). GCC vectorises for an AVX-512 CPU with 8-float vectors in 32 registers
   unless told -mprefer-vector-width=512 (as the Makefile's portable bench build is), and the
   loops sized for 16 suit both (see the portable micro-kernel's tile). Firmware (MMD_CONV_SMALL) keeps its loops as they are. The
   multiply-adds are fused only where the compiler contracts a * b + c (GCC's default outside
   ISO C modes; -ffp-contract=fast with -std=c99): GCC vectorises that, and not fmaf. */
#if defined(MMD_NO_SIMD) && !defined(MMD_CONV_SMALL) && defined(__AVX512F__)
#define MMD__C_VEC 16
#elif defined(MMD_NO_SIMD) && !defined(MMD_CONV_SMALL) && defined(__AVX2__)
#define MMD__C_VEC 8
#else
#define MMD__C_VEC 4
#endif

/* ==== >>ops activations ==== */
/* The activation a Conv, ConvTranspose, Gemm or MatMul applies to its output before storing it:
   what com.microsoft's FusedConv and FusedGemm name in their `activation` attribute (the
   operators ONNX Runtime writes into the graphs it optimises), and what the load-time rewrites
   fuse into the producing node. HardSwish, SiLU (x * sigmoid(x)) and HardSigmoidMul
   (x * HardSigmoid(x), as exporters write HardSwish before opset 14, with HardSigmoid's alpha
   and beta) go beyond ONNX Runtime's list; they are this runtime's own spellings. One row function applies them, so a fused
   activation computes exactly what the standalone operator computes. The kinds from AFFINE on
   are the further gate activations the recurrent ops (LSTM, GRU, RNN) name. */
enum {
    MMD__ACT_NONE, MMD__ACT_RELU, MMD__ACT_CLIP, MMD__ACT_LEAKY_RELU, MMD__ACT_SIGMOID,
    MMD__ACT_HARD_SIGMOID, MMD__ACT_HARD_SWISH, MMD__ACT_SILU, MMD__ACT_TANH, MMD__ACT_HARD_SIGMOID_MUL, MMD__ACT_AFFINE,
    MMD__ACT_THRESHOLDED_RELU, MMD__ACT_SCALED_TANH, MMD__ACT_ELU, MMD__ACT_SOFTSIGN, MMD__ACT_SOFTPLUS
};

typedef struct mmd__act {
    int32_t kind;                       /* MMD__ACT_* */
    float alpha, beta;                  /* Clip: min, max; LeakyRelu, ThresholdedRelu, Elu: alpha;
                                           HardSigmoid, HardSigmoidMul, Affine, ScaledTanh:
                                           alpha, beta */
} mmd__act;

/* Applies a to n floats from x into y; x may be y (each vector is loaded before it is stored).
   The portable loop is the definition; the vector paths compute the same formulas with the
   same operations (no fused multiply-add, a true division where the formula divides), so they
   give the same bits, except Sigmoid and SiLU, whose exp is mmd__exp_*'s polynomial (within
   2 ulp of expf) and saturates past |x| = 87. */
/* HardSigmoid's clamp of u to [0, 1], as two selections (NaN passes through). */
static float mmd__clamp01(float u) {
    u = u < 0.0f ? 0.0f : u;
    return u > 1.0f ? 1.0f : u;
}

/* One loop over x for the formula EXPR of v = x[i] and g = GATE (a value of v that EXPR
   combines with it). Outside MMD_CONV_SMALL (firmware keeps the plain loop, smaller) it runs
   eight elements at a time, all loaded into an array before any is stored (x may be y), in
   loops of constant trip count, which GCC's -O2 vectoriser takes (it leaves loops of unknown
   trip count scalar); GATE gets a loop of its own because the compiler would otherwise move a
   multiplication by it into the branches of EXPR's selection, control flow the vectoriser
   leaves scalar. Then the plain loop for the rest. */
#ifdef MMD_CONV_SMALL
#define MMD__ACT_LOOP(GATE, EXPR)                                                               \
    for (i = 0; i < n; ++i) {                                                                   \
        float v = x[i], g = (GATE);                                                             \
        (void)g;                                                                                \
        y[i] = (EXPR);                                                                          \
    }                                                                                           \
    break;
#else
#define MMD__ACT_LOOP(GATE, EXPR)                                                               \
    for (i = 0; i + 8 <= n; i += 8) {                                                           \
        float b_[8], g_[8];                                                                     \
        int32_t l_;                                                                             \
        for (l_ = 0; l_ < 8; ++l_) b_[l_] = x[i + l_];                                          \
        for (l_ = 0; l_ < 8; ++l_) {                                                            \
            float v = b_[l_];                                                                   \
            g_[l_] = (GATE);                                                                    \
        }                                                                                       \
        for (l_ = 0; l_ < 8; ++l_) {                                                            \
            float v = b_[l_], g = g_[l_];                                                       \
            (void)g;                                                                            \
            b_[l_] = (EXPR);                                                                    \
        }                                                                                       \
        for (l_ = 0; l_ < 8; ++l_) y[i + l_] = b_[l_];                                          \
    }                                                                                           \
    for (; i < n; ++i) {                                                                        \
        float v = x[i], g = (GATE);                                                             \
        (void)g;                                                                                \
        y[i] = (EXPR);                                                                          \
    }                                                                                           \
    break;
#endif

static void mmd__act_portable_f32(const mmd__act *a, const float *x, float *y, int64_t n) {
    float lo = a->alpha, hi = a->beta, al = a->alpha, be = a->beta;
    int64_t i;
    switch (a->kind) {
    case MMD__ACT_RELU: MMD__ACT_LOOP(v, v < 0.0f ? 0.0f : v)
    case MMD__ACT_CLIP: MMD__ACT_LOOP(v, v < lo ? (lo > hi ? hi : lo) : v > hi ? hi : v)
    case MMD__ACT_LEAKY_RELU: MMD__ACT_LOOP(al * v, v < 0.0f ? g : v)
    case MMD__ACT_SIGMOID:
        for (i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + expf(-x[i]));
        break;
    case MMD__ACT_HARD_SIGMOID: MMD__ACT_LOOP(v, mmd__clamp01(al * v + be))
    case MMD__ACT_HARD_SWISH: MMD__ACT_LOOP(mmd__clamp01(v / 6.0f + 0.5f), v * g)
    case MMD__ACT_SILU:
        for (i = 0; i < n; ++i) y[i] = x[i] / (1.0f + expf(-x[i]));
        break;
    case MMD__ACT_TANH:
        for (i = 0; i < n; ++i) y[i] = tanhf(x[i]);
        break;
        /* HardSigmoid's value, then the Mul of x by it. */
    case MMD__ACT_HARD_SIGMOID_MUL: MMD__ACT_LOOP(mmd__clamp01(al * v + be), v * g)
#if MMD__KEEP(LSTM) || MMD__KEEP(GRU) || MMD__KEEP(RNN)
        /* The gate activations only the recurrent ops name. */
    case MMD__ACT_AFFINE: MMD__ACT_LOOP(v, al * v + be)
    case MMD__ACT_THRESHOLDED_RELU: MMD__ACT_LOOP(v, v > al ? v : 0.0f)
    case MMD__ACT_SCALED_TANH:
        for (i = 0; i < n; ++i) y[i] = al * tanhf(be * x[i]);
        break;
    case MMD__ACT_ELU:
        for (i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? al * expm1f(x[i]) : x[i];
        break;
    case MMD__ACT_SOFTSIGN: MMD__ACT_LOOP(v, v / (1.0f + fabsf(v)))
    case MMD__ACT_SOFTPLUS:
        /* Written as the Softplus operator is, so that exp never overflows. */
        for (i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] + log1pf(expf(-x[i])) : log1pf(expf(x[i]));
        break;
#endif
    default:
        if (x != y) memcpy(y, x, (size_t)n * sizeof(float));
        break;
    }
}
#undef MMD__ACT_LOOP

#if defined(MMD__X86)
/* exp of 16 (8) floats: Cephes' expf, 2^k * e^r with k = round(x / ln 2), r = x - k ln 2 in two
   parts and a degree-5 polynomial for e^r, within 2 ulp of libm's expf for x in [-87.3, 88];
   below that it gives 0, above it exp(88). Sigmoid and SiLU need only that saturation and
   Softmax feeds it x - max <= 0. NaN stays NaN. */
MMD__TARGET_AVX512 static __m512 mmd__exp_avx512(__m512 x) {
    __mmask16 under = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.33654f), _CMP_LT_OQ);
    __m512 k, r, p;
    x = _mm512_min_ps(_mm512_set1_ps(88.0f), _mm512_max_ps(_mm512_set1_ps(-87.33654f), x));
    k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
    p = _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500e-4f), r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    k = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127)), 23));
    return _mm512_maskz_mul_ps((__mmask16)~under, p, k);
}

MMD__TARGET_AVX2 static __m256 mmd__exp_avx2(__m256 x) {
    __m256 under = _mm256_cmp_ps(x, _mm256_set1_ps(-87.33654f), _CMP_LT_OQ), k, r, p;
    x = _mm256_min_ps(_mm256_set1_ps(88.0f), _mm256_max_ps(_mm256_set1_ps(-87.33654f), x));
    k = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
    p = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    k = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23));
    return _mm256_andnot_ps(under, _mm256_mul_ps(p, k));
}

/* Lanes [0, rem) of an AVX2 vector, for masked loads and stores of a row's last elements. */
MMD__TARGET_AVX2 static __m256i mmd__tail_avx2(int64_t rem) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(rem < 8 ? rem : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The lanes of a 16-float step at i of n: all of them but in the last step. */
#define MMD__MASK16(i, n) ((n) - (i) >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << ((n) - (i))) - 1u))

/* The lanes l of a 16-float vector of a row of n whose column from + l lies in [0, n): masked
   loads that start before a row or run past its end (none when the vector misses the row). */
static inline __mmask16 mmd__lanes16(int64_t from, int64_t n) {
    int64_t a = from < 0 ? -from : 0, b = n - from < 16 ? n - from : 16;
    return b <= a ? (__mmask16)0 : (__mmask16)(((1u << b) - 1u) & ~((1u << a) - 1u));
}

/* One loop per activation, the formula a vector expression of v; max and min take the bound
   first so that a NaN input (their second operand) passes through, as the comparisons of the
   portable loop let it. */
#define MMD__ACT_AVX2(expr)                                                                     \
    for (i = 0; i < n; i += 8) {                                                                \
        __m256i m = mmd__tail_avx2(n - i);                                                      \
        __m256 v = _mm256_maskload_ps(x + i, m);                                                \
        _mm256_maskstore_ps(y + i, m, expr);                                                    \
    }                                                                                           \
    break;

#ifndef MMD_CONV_SMALL
/* Whether mmd__act_vec_avx512 computes activation kind (the others take the portable loop);
   for the stem convolution's tiles, which firmware builds (MMD_CONV_SMALL) leave out. */
static int32_t mmd__act_has_avx512(int32_t kind) {
    return kind == MMD__ACT_NONE || kind == MMD__ACT_RELU || kind == MMD__ACT_CLIP || kind == MMD__ACT_LEAKY_RELU ||
           kind == MMD__ACT_SIGMOID || kind == MMD__ACT_HARD_SIGMOID || kind == MMD__ACT_HARD_SWISH ||
           kind == MMD__ACT_HARD_SIGMOID_MUL || kind == MMD__ACT_SILU;
}
#endif

/* The AVX-512 formula of each activation mmd__act_has_avx512 lists, on one vector (al and be the
   parameters broadcast): the row loop below and the convolution kernels that apply the
   activation in registers (mmd__stem_tile_avx512) share it. With kind a constant the switch
   folds away. */
MMD__TARGET_AVX512 static inline __m512 mmd__act_vec_avx512(int32_t kind, __m512 v, __m512 al, __m512 be) {
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), sign = _mm512_set1_ps(-0.0f);
    switch (kind) {
    case MMD__ACT_RELU: return _mm512_max_ps(zero, v);
    case MMD__ACT_CLIP: return _mm512_min_ps(be, _mm512_max_ps(al, v));
    case MMD__ACT_LEAKY_RELU: return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), al, v);
    case MMD__ACT_SIGMOID: return _mm512_div_ps(one, _mm512_add_ps(one, mmd__exp_avx512(_mm512_xor_ps(v, sign))));
    case MMD__ACT_HARD_SIGMOID: return _mm512_min_ps(one, _mm512_max_ps(zero, _mm512_add_ps(_mm512_mul_ps(al, v), be)));
    case MMD__ACT_HARD_SWISH:
        return _mm512_mul_ps(v, _mm512_min_ps(one, _mm512_max_ps(zero, _mm512_add_ps(_mm512_div_ps(v, _mm512_set1_ps(6.0f)),
                                                                                      _mm512_set1_ps(0.5f)))));
    case MMD__ACT_HARD_SIGMOID_MUL:
        return _mm512_mul_ps(v, _mm512_min_ps(one, _mm512_max_ps(zero, _mm512_add_ps(_mm512_mul_ps(al, v), be))));
    case MMD__ACT_SILU: return _mm512_div_ps(v, _mm512_add_ps(one, mmd__exp_avx512(_mm512_xor_ps(v, sign))));
    default: return v;
    }
}

#define MMD__ACT_AVX512(kind)                                                                   \
    case kind:                                                                                  \
        for (i = 0; i < n; i += 16) {                                                           \
            __mmask16 m = MMD__MASK16(i, n);                                                    \
            __m512 v = _mm512_maskz_loadu_ps(m, x + i);                                         \
            _mm512_mask_storeu_ps(y + i, m, mmd__act_vec_avx512(kind, v, al, be));              \
        }                                                                                       \
        break;

MMD__TARGET_AVX512 static void mmd__act_avx512_f32(const mmd__act *a, const float *x, float *y, int64_t n) {
    const __m512 al = _mm512_set1_ps(a->alpha), be = _mm512_set1_ps(a->beta);
    int64_t i;
    switch (a->kind) {
    MMD__ACT_AVX512(MMD__ACT_RELU)
    MMD__ACT_AVX512(MMD__ACT_CLIP)
    MMD__ACT_AVX512(MMD__ACT_LEAKY_RELU)
    MMD__ACT_AVX512(MMD__ACT_SIGMOID)
    MMD__ACT_AVX512(MMD__ACT_HARD_SIGMOID)
    MMD__ACT_AVX512(MMD__ACT_HARD_SWISH)
    MMD__ACT_AVX512(MMD__ACT_HARD_SIGMOID_MUL)
    MMD__ACT_AVX512(MMD__ACT_SILU)
    default:
        mmd__act_portable_f32(a, x, y, n);
        break;
    }
}

MMD__TARGET_AVX2 static void mmd__act_avx2_f32(const mmd__act *a, const float *x, float *y, int64_t n) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
    const __m256 al = _mm256_set1_ps(a->alpha), be = _mm256_set1_ps(a->beta);
    const __m256 six = _mm256_set1_ps(6.0f), half = _mm256_set1_ps(0.5f);
    int64_t i;
    switch (a->kind) {
    case MMD__ACT_RELU: MMD__ACT_AVX2(_mm256_max_ps(zero, v))
    case MMD__ACT_CLIP: MMD__ACT_AVX2(_mm256_min_ps(be, _mm256_max_ps(al, v)))
    case MMD__ACT_LEAKY_RELU:
        MMD__ACT_AVX2(_mm256_blendv_ps(v, _mm256_mul_ps(al, v), _mm256_cmp_ps(v, zero, _CMP_LT_OQ)))
    case MMD__ACT_SIGMOID:
        MMD__ACT_AVX2(_mm256_div_ps(one, _mm256_add_ps(one, mmd__exp_avx2(_mm256_xor_ps(v, sign)))))
    case MMD__ACT_HARD_SIGMOID:
        MMD__ACT_AVX2(_mm256_min_ps(one, _mm256_max_ps(zero, _mm256_add_ps(_mm256_mul_ps(al, v), be))))
    case MMD__ACT_HARD_SWISH:
        MMD__ACT_AVX2(_mm256_mul_ps(v, _mm256_min_ps(one, _mm256_max_ps(zero, _mm256_add_ps(_mm256_div_ps(v, six), half)))))
    case MMD__ACT_HARD_SIGMOID_MUL:
        MMD__ACT_AVX2(_mm256_mul_ps(v, _mm256_min_ps(one, _mm256_max_ps(zero, _mm256_add_ps(_mm256_mul_ps(al, v), be)))))
    case MMD__ACT_SILU:
        MMD__ACT_AVX2(_mm256_div_ps(v, _mm256_add_ps(one, mmd__exp_avx2(_mm256_xor_ps(v, sign)))))
    default:
        mmd__act_portable_f32(a, x, y, n);
        break;
    }
}
#undef MMD__ACT_AVX512
#undef MMD__ACT_AVX2
#endif

/* Applies a to n floats from x into y (x may be y) with the widest path this CPU has. */
static void mmd__act_map_f32(const mmd__act *a, const float *x, float *y, int64_t n) {
#if defined(MMD__X86)
    int32_t isa = mmd__isa();
    if (isa == MMD__ISA_AVX512) {
        mmd__act_avx512_f32(a, x, y, n);
        return;
    }
    if (isa == MMD__ISA_AVX2) {
        mmd__act_avx2_f32(a, x, y, n);
        return;
    }
#endif
    mmd__act_portable_f32(a, x, y, n);
}

/* Applies a to n floats in place. */
static void mmd__act_f32(const mmd__act *a, float *x, int64_t n) {
    mmd__act_map_f32(a, x, x, n);
}

#ifndef MMD_CONV_SMALL
/* n outputs y of a kernel that leaves Z and the activation for after its sums (the depthwise
   rows, the portable STEM's rows): Z added (z, or NULL), then the activation, over them. */
static void mmd__add_act(float *y, const float *z, int64_t n, const mmd__act *act) {
    int64_t t;
    if (z)
        for (t = 0; t < n; ++t) y[t] += z[t];
    mmd__act_f32(act, y, n);
}
#endif

/* Reads a fused activation from the node: `activation` (absent: none) with its parameters in
   `activation_params` (FusedConv) or `activation_alpha` and `activation_beta` (FusedGemm).
   Clip takes [min, max], LeakyRelu [alpha], HardSigmoid and HardSigmoidMul [alpha, beta];
   parameters past those are ignored, missing ones are an error. */
static mmd_status mmd__act_attrs(mmd_kernel_ctx *c, mmd__act *a) {
    static const char *const names[] = {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid",
                                        "HardSwish", "SiLU", "Tanh", "HardSigmoidMul", NULL};
    static const int32_t wants[] = {0, 0, 2, 1, 0, 2, 0, 0, 0, 2};
    const float *params;
    int64_t count;
    int32_t kind;
    mmd_status st;
    memset(a, 0, sizeof(*a));
    if (!mmd_node_attr(c->node, "activation")) return MMD_OK;
    if ((st = mmd__detect_pick(c, "activation", "", names, &kind)) != MMD_OK) return st;
    a->kind = ++kind;
    if (mmd_node_attr(c->node, "activation_params")) {
        if ((st = mmd_attr_get_floats(c, "activation_params", &params, &count)) != MMD_OK) return st;
        if (count < wants[kind])
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "activation %s needs %d activation_params, has %lld",
                                   names[kind - 1], (int)wants[kind], (long long)count);
        if (count > 0) a->alpha = params[0];
        if (count > 1) a->beta = params[1];
        return MMD_OK;
    }
    if (wants[kind] && !mmd_node_attr(c->node, "activation_alpha"))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "activation %s needs its parameters", names[kind - 1]);
    if ((st = mmd_attr_get_float(c, "activation_alpha", 0.0f, &a->alpha)) != MMD_OK) return st;
    return mmd_attr_get_float(c, "activation_beta", 0.0f, &a->beta);
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

/* v truncated toward zero into int64, saturated (NaN gives 0) because an out-of-range
   float-to-integer conversion is undefined in C. */
static int64_t mmd__f64_to_i64(double v) {
    return v != v ? 0 : v >= 9223372036854775808.0 ? INT64_MAX : v < -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
}

/* Floats go to integers by truncation through int64 (mmd__f64_to_i64). */
static void mmd__store_float(int32_t dtype, void *p, int64_t i, double v) {
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case MMD_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case MMD_DTYPE_FLOAT16: ((uint16_t *)p)[i] = mmd__f32_to_f16((float)v); break;
    case MMD_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = mmd__f32_to_bf16((float)v); break;
    case MMD_DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0.0; break;
    default: mmd__store_int(dtype, p, i, mmd__f64_to_i64(v)); break;
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

/* Fails with MMD_ERR_DTYPE unless input i holds int32 or int64 indices. */
static mmd_status mmd__want_indices(mmd_kernel_ctx *c, int32_t i) {
    const mmd_tensor *t = c->inputs[i];
    if (t->dtype == MMD_DTYPE_INT32 || t->dtype == MMD_DTYPE_INT64) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input %d '%s' is %s, expects int32 or int64", (int)i,
                           t->name ? t->name : "", mmd_dtype_name(t->dtype));
}

/* Index v on an axis of size n made non-negative; -1 when outside [-n, n-1]. */
static int64_t mmd__index_wrap(int64_t v, int64_t n) {
    if (v < -n || v >= n) return -1;
    return v < 0 ? v + n : v;
}

/* The error for index v, element `element` of the indices, on an axis of `size`. */
static mmd_status mmd__index_fail(mmd_kernel_ctx *c, int64_t v, int64_t element, int64_t size) {
    return mmd_kernel_fail(c, MMD_ERR_INDEX, "index %lld (element %lld of the indices) is out of "
                           "range for an axis of size %lld", (long long)v, (long long)element,
                           (long long)size);
}

/* Input i as a value prepare reads: NULL when absent or empty (an empty tensor stands for an
   absent input in Resize 11 and NonMaxSuppression), else a rank-0 or rank-1 tensor of the
   given dtype whose value is known now. */
static mmd_status mmd__want_value(mmd_kernel_ctx *c, int32_t i, int32_t dtype, const char *what,
                                  const mmd_tensor **out) {
    const mmd_tensor *t = i < c->input_count ? c->inputs[i] : NULL;
    mmd_status st;
    *out = NULL;
    if (!t || mmd_tensor_numel(t) == 0) return MMD_OK;
    if (dtype != MMD_DTYPE_UNDEFINED && (st = mmd__want_dtype(c, i, dtype)) != MMD_OK) return st;
    if ((st = mmd__want_rank(c, i, 0, 1)) != MMD_OK) return st;
    if ((st = mmd__want_known(c, i, what)) != MMD_OK) return st;
    *out = t;
    return MMD_OK;
}

/* Copies into out (at most max values) an int list that is the attribute `name` before some
   opset and optional input `input` from it on; from_input picks which. *n is -1 when the list
   is absent. A longer list is MMD_ERR_SHAPE, or MMD_ERR_LIMIT past MMD_MAX_RANK values (a
   shape or axes list of more than MMD_MAX_RANK is past this build's limit). */
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
        return mmd_kernel_fail(c, count > MMD_MAX_RANK ? MMD_ERR_LIMIT : MMD_ERR_SHAPE,
                               "'%s' has %lld values, more than the %d allowed here",
                               name, (long long)count, (int)max);
    for (i = 0; i < count; ++i) out[i] = t ? mmd__load_int(t->dtype, t->data, i) : vals[i];
    *n = (int32_t)count;
    return MMD_OK;
}

/* ==== >>ops broadcasting ==== */

/* ---- splitting a loop over threads ---------------------------------------------------------- */

/* A share of a loop: fn(data, share, lo, hi) does iterations [lo, hi); share (below the
   parts mmd__parallel_range was allowed) picks the share's slice of scratch, if it needs one. */
typedef void (*mmd__range_fn)(void *data, int32_t share, int64_t lo, int64_t hi);

typedef struct mmd__range_job {
    mmd__range_fn fn;
    void *data;
    int64_t n, step;
} mmd__range_job;

static void mmd__range_task(void *ctx, int32_t index) {
    const mmd__range_job *j = (const mmd__range_job *)ctx;
    int64_t lo = (int64_t)index * j->step, hi = j->n - lo > j->step ? lo + j->step : j->n;
    if (lo < hi) j->fn(j->data, index, lo, hi);
}

/* Runs fn over [0, n) on up to c->threads threads (mmd_kernel_parallel) in at most max_parts
   shares, one per thread, each a multiple of `align` iterations (but the last) and at least
   `grain` of them, so that a small loop stays on the calling thread and wakes nobody. Each
   iteration is computed the same way whichever share it falls in, which keeps results
   independent of the thread count. */
static void mmd__parallel_range(const mmd_kernel_ctx *c, int64_t n, int64_t grain, int64_t align,
                                int32_t max_parts, mmd__range_fn fn, void *data) {
    mmd__range_job j;
    int64_t parts = c->threads < max_parts ? c->threads : max_parts;
    if (grain < 1) grain = 1;
    if (parts > n / grain) parts = n / grain;
    if (parts <= 1) {
        if (n > 0) fn(data, 0, 0, n);
        return;
    }
    j.fn = fn;
    j.data = data;
    j.n = n;
    j.step = ((n + parts - 1) / parts + align - 1) / align * align;
    mmd_kernel_parallel(c, mmd__range_task, &j, (int32_t)((n + j.step - 1) / j.step));
}


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

/* ==== >>ops elementwise ==== */
/* Elementwise kernels, each a row function of the shape mmd__row_fn:
   - unary maps (Relu and the other activations, Clip, Abs, Neg, Sign, the rounding,
     exponential and trigonometric functions, Softplus, Softsign, IsInf, IsNaN, Not) call their
     row once over the whole tensor; the row's second read operand is the op's parameters at
     stride 0, like a broadcast scalar: float attributes (alpha, ...), or Clip's bounds;
   - binary ops (Add, Sub, Mul, Div, Pow, Mod, PRelu, the comparisons and the logic ops) walk
     both inputs with numpy broadcasting;
   - Where and the variadic ops run the broadcast walk once per pair of operands, writing into
     the output: Where once for the true and once for the false elements, Max input 0 with
     input 1 and then the output with each further input, in place.
   Rows are generated per element type from the type lists below, so each formula is written
   once per type group (float, signed integer, unsigned integer); float16 is computed in float.
   A row table gives, for each pair of input dtypes an op takes, its row and output dtype.

   Opsets: each kernel starts at the first version with today's semantics (opset 1 where the
   only difference was the legacy consumed_inputs hint, 7 where version 1 had the old
   `broadcast` attribute); the later versions up to MMD__OPSET_CHECKED only added types
   (bfloat16, strings, float8), which the dtype checks refuse. */

/* ---- element types ---------------------------------------------------------------------- */

#define MMD__EW_SAME(v) (v)
#define MMD__EW_FLOATF(fn) fn##f
#define MMD__EW_DOUBLEF(fn) fn

/* Each list calls X(arg, suffix, storage type, compute type, dtype, load, store, extra) per
   type. For floats `extra` names the math functions of the compute type (expf or exp); for
   integers it is the unsigned type, at least as wide as unsigned int, that negation and
   multiplication wrap through (narrower ones would be promoted to signed int and overflow). */
#define MMD__EW_FLOATS(X, arg)                                                                  \
    X(arg, f32, float, float, MMD_DTYPE_FLOAT32, MMD__EW_SAME, MMD__EW_SAME, MMD__EW_FLOATF)    \
    X(arg, f64, double, double, MMD_DTYPE_FLOAT64, MMD__EW_SAME, MMD__EW_SAME, MMD__EW_DOUBLEF) \
    X(arg, f16, uint16_t, float, MMD_DTYPE_FLOAT16, mmd__f16_to_f32, mmd__f32_to_f16, MMD__EW_FLOATF)
#define MMD__EW_SINTS(X, arg)                                                                   \
    X(arg, i8, int8_t, int8_t, MMD_DTYPE_INT8, MMD__EW_SAME, MMD__EW_SAME, uint32_t)            \
    X(arg, i16, int16_t, int16_t, MMD_DTYPE_INT16, MMD__EW_SAME, MMD__EW_SAME, uint32_t)        \
    X(arg, i32, int32_t, int32_t, MMD_DTYPE_INT32, MMD__EW_SAME, MMD__EW_SAME, uint32_t)        \
    X(arg, i64, int64_t, int64_t, MMD_DTYPE_INT64, MMD__EW_SAME, MMD__EW_SAME, uint64_t)
#define MMD__EW_UINTS(X, arg)                                                                   \
    X(arg, u8, uint8_t, uint8_t, MMD_DTYPE_UINT8, MMD__EW_SAME, MMD__EW_SAME, uint32_t)         \
    X(arg, u16, uint16_t, uint16_t, MMD_DTYPE_UINT16, MMD__EW_SAME, MMD__EW_SAME, uint32_t)     \
    X(arg, u32, uint32_t, uint32_t, MMD_DTYPE_UINT32, MMD__EW_SAME, MMD__EW_SAME, uint32_t)     \
    X(arg, u64, uint64_t, uint64_t, MMD_DTYPE_UINT64, MMD__EW_SAME, MMD__EW_SAME, uint64_t)

/* ---- row functions ---------------------------------------------------------------------- */

/* A unary map: o = expr of x. The parameters p_ are read as floats p[0] and p[1] (the op's
   attributes) or as two elements q[0] and q[1] of the input's type (Clip's bounds). */
#define MMD__EW_MAP_ROW(op, sfx, OT, S, C, LD, ST, expr)                                        \
    static mmd_status mmd__##op##_##sfx##_row(void *o_, int64_t os, const void *a_, int64_t as, \
                                              const void *p_, int64_t ps, int64_t n) {          \
        OT *o = (OT *)o_;                                                                       \
        const S *a = (const S *)a_, *q = (const S *)p_;                                         \
        const float *p = (const float *)p_;                                                     \
        int64_t i;                                                                              \
        (void)p;                                                                                \
        (void)q;                                                                                \
        (void)ps;                                                                               \
        for (i = 0; i < n; ++i) {                                                               \
            C x = LD(a[i * as]);                                                                \
            o[i * os] = ST(expr);                                                               \
        }                                                                                       \
        return MMD_OK;                                                                          \
    }

/* A binary row: o = expr of x and y, loaded from a (storage type S) and b (SB) into the
   compute type C; OT is bool for comparisons. `fails` is a test of x and y that stops the row
   with an error: y == 0 for integer Div and Mod (a divisor only known at run time), 0 for
   every other op. */
#define MMD__EW_BIN_ROW(op, sfx, OT, S, SB, C, LD, ST, fails, expr)                             \
    static mmd_status mmd__##op##_##sfx##_row(void *o_, int64_t os, const void *a_, int64_t as, \
                                              const void *b_, int64_t bs, int64_t n) {          \
        OT *o = (OT *)o_;                                                                       \
        const S *a = (const S *)a_;                                                             \
        const SB *b = (const SB *)b_;                                                           \
        int64_t i;                                                                              \
        for (i = 0; i < n; ++i) {                                                               \
            C x = LD(a[i * as]), y = LD(b[i * bs]);                                             \
            if (fails) return MMD_ERR_INVALID_ARGUMENT;                                         \
            o[i * os] = ST(expr);                                                               \
        }                                                                                       \
        return MMD_OK;                                                                          \
    }

/* v limited to [0, 1] (HardSigmoid, HardSwish). */
#define MMD__EW_UNIT(v) ((v) < 0 ? 0 : (v) > 1 ? 1 : (v))
/* x limited to [lo, hi] by comparisons, which keep NaN; lo above hi gives hi, as ONNX says. */
#define MMD__EW_CLIP(x, lo, hi) ((x) < (lo) ? ((lo) > (hi) ? (hi) : (lo)) : (x) > (hi) ? (hi) : (x))

#define MMD__EW_COMPARE_ROWS(sfx, S, C, LD)                                                     \
    MMD__EW_BIN_ROW(equal, sfx, uint8_t, S, S, C, LD, MMD__EW_SAME, 0, x == y)                  \
    MMD__EW_BIN_ROW(greater, sfx, uint8_t, S, S, C, LD, MMD__EW_SAME, 0, x > y)                 \
    MMD__EW_BIN_ROW(greater_equal, sfx, uint8_t, S, S, C, LD, MMD__EW_SAME, 0, x >= y)          \
    MMD__EW_BIN_ROW(less, sfx, uint8_t, S, S, C, LD, MMD__EW_SAME, 0, x < y)                    \
    MMD__EW_BIN_ROW(less_equal, sfx, uint8_t, S, S, C, LD, MMD__EW_SAME, 0, x <= y)

/* Float formulas. Max and Min return NaN when either side is NaN, as numpy's maximum does.
   Softplus is written so that exp never overflows; Elu, Celu and Selu use expm1 for
   accuracy near 0. Round uses the default rounding mode, which rounds halves to even. */
#define MMD__EW_FLOAT_ROWS(arg, sfx, S, C, DT, LD, ST, F)                                       \
    MMD__EW_MAP_ROW(relu, sfx, S, S, C, LD, ST, x < 0 ? 0 : x)                                  \
    MMD__EW_MAP_ROW(leaky_relu, sfx, S, S, C, LD, ST, x < 0 ? p[0] * x : x)                     \
    MMD__EW_MAP_ROW(sigmoid, sfx, S, S, C, LD, ST, 1 / (1 + F(exp)(-x)))                        \
    MMD__EW_MAP_ROW(hard_sigmoid, sfx, S, S, C, LD, ST, MMD__EW_UNIT(p[0] * x + p[1]))          \
    MMD__EW_MAP_ROW(hard_swish, sfx, S, S, C, LD, ST, x * MMD__EW_UNIT(x / 6 + (C)0.5))         \
    MMD__EW_MAP_ROW(tanh, sfx, S, S, C, LD, ST, F(tanh)(x))                                     \
    MMD__EW_MAP_ROW(erf, sfx, S, S, C, LD, ST, F(erf)(x))                                       \
    MMD__EW_MAP_ROW(sqrt, sfx, S, S, C, LD, ST, F(sqrt)(x))                                     \
    MMD__EW_MAP_ROW(clip, sfx, S, S, C, LD, ST, MMD__EW_CLIP(x, LD(q[0]), LD(q[1])))            \
    MMD__EW_MAP_ROW(abs, sfx, S, S, C, LD, ST, F(fabs)(x))                                      \
    MMD__EW_MAP_ROW(neg, sfx, S, S, C, LD, ST, -x)                                              \
    MMD__EW_MAP_ROW(sign, sfx, S, S, C, LD, ST, x > 0 ? 1 : x < 0 ? -1 : x)                     \
    MMD__EW_MAP_ROW(acos, sfx, S, S, C, LD, ST, F(acos)(x))                                     \
    MMD__EW_MAP_ROW(acosh, sfx, S, S, C, LD, ST, F(acosh)(x))                                   \
    MMD__EW_MAP_ROW(asin, sfx, S, S, C, LD, ST, F(asin)(x))                                     \
    MMD__EW_MAP_ROW(asinh, sfx, S, S, C, LD, ST, F(asinh)(x))                                   \
    MMD__EW_MAP_ROW(atan, sfx, S, S, C, LD, ST, F(atan)(x))                                     \
    MMD__EW_MAP_ROW(atanh, sfx, S, S, C, LD, ST, F(atanh)(x))                                   \
    MMD__EW_MAP_ROW(ceil, sfx, S, S, C, LD, ST, F(ceil)(x))                                     \
    MMD__EW_MAP_ROW(cos, sfx, S, S, C, LD, ST, F(cos)(x))                                       \
    MMD__EW_MAP_ROW(cosh, sfx, S, S, C, LD, ST, F(cosh)(x))                                     \
    MMD__EW_MAP_ROW(exp, sfx, S, S, C, LD, ST, F(exp)(x))                                       \
    MMD__EW_MAP_ROW(floor, sfx, S, S, C, LD, ST, F(floor)(x))                                   \
    MMD__EW_MAP_ROW(log, sfx, S, S, C, LD, ST, F(log)(x))                                       \
    MMD__EW_MAP_ROW(reciprocal, sfx, S, S, C, LD, ST, 1 / x)                                    \
    MMD__EW_MAP_ROW(round, sfx, S, S, C, LD, ST, F(nearbyint)(x))                               \
    MMD__EW_MAP_ROW(sin, sfx, S, S, C, LD, ST, F(sin)(x))                                       \
    MMD__EW_MAP_ROW(sinh, sfx, S, S, C, LD, ST, F(sinh)(x))                                     \
    MMD__EW_MAP_ROW(tan, sfx, S, S, C, LD, ST, F(tan)(x))                                       \
    MMD__EW_MAP_ROW(softplus, sfx, S, S, C, LD, ST,                                             \
                    x > 0 ? x + F(log1p)(F(exp)(-x)) : F(log1p)(F(exp)(x)))                     \
    MMD__EW_MAP_ROW(softsign, sfx, S, S, C, LD, ST, x / (1 + F(fabs)(x)))                       \
    MMD__EW_MAP_ROW(celu, sfx, S, S, C, LD, ST, x > 0 ? x : p[0] * F(expm1)(x / p[0]))          \
    MMD__EW_MAP_ROW(elu, sfx, S, S, C, LD, ST, x < 0 ? p[0] * F(expm1)(x) : x)                  \
    MMD__EW_MAP_ROW(selu, sfx, S, S, C, LD, ST, x > 0 ? p[1] * x : p[1] * p[0] * F(expm1)(x))   \
    MMD__EW_MAP_ROW(shrink, sfx, S, S, C, LD, ST, x < -p[1] ? x + p[0] : x > p[1] ? x - p[0] : 0) \
    MMD__EW_MAP_ROW(thresholded_relu, sfx, S, S, C, LD, ST, x > p[0] ? x : 0)                   \
    MMD__EW_MAP_ROW(is_inf, sfx, uint8_t, S, C, LD, MMD__EW_SAME,                               \
                    (x == (C)INFINITY && p[1] != 0) || (x == -(C)INFINITY && p[0] != 0))        \
    MMD__EW_MAP_ROW(is_nan, sfx, uint8_t, S, C, LD, MMD__EW_SAME, x != x)                       \
    MMD__EW_BIN_ROW(add, sfx, S, S, S, C, LD, ST, 0, x + y)                                     \
    MMD__EW_BIN_ROW(sub, sfx, S, S, S, C, LD, ST, 0, x - y)                                     \
    MMD__EW_BIN_ROW(mul, sfx, S, S, S, C, LD, ST, 0, x * y)                                     \
    MMD__EW_BIN_ROW(div, sfx, S, S, S, C, LD, ST, 0, x / y)                                     \
    MMD__EW_BIN_ROW(pow, sfx, S, S, S, C, LD, ST, 0, F(pow)(x, y))                              \
    MMD__EW_BIN_ROW(max, sfx, S, S, S, C, LD, ST, 0, (x > y || x != x) ? x : y)                 \
    MMD__EW_BIN_ROW(min, sfx, S, S, S, C, LD, ST, 0, (x < y || x != x) ? x : y)                 \
    MMD__EW_BIN_ROW(fmod, sfx, S, S, S, C, LD, ST, 0, F(fmod)(x, y))                            \
    MMD__EW_BIN_ROW(prelu, sfx, S, S, S, C, LD, ST, 0, x < 0 ? y * x : x)                       \
    MMD__EW_COMPARE_ROWS(sfx, S, C, LD)

/* x mod y with the sign of y, as Python's % (Mod with fmod = 0), for a y that is not 0.
   x % -1 is 0, written out because INT64_MIN % -1 overflows in C. */
static int64_t mmd__floor_mod(int64_t x, int64_t y) {
    int64_t r = y == -1 ? 0 : x % y;
    return r != 0 && (r < 0) != (y < 0) ? r + y : r;
}

/* Integer formulas. Add, Sub, Mul, negation, absolute value and PRelu's product wrap through
   the unsigned type U, so the most negative value stays itself as in numpy instead of
   overflowing; Div truncates toward zero as ONNX and C do, and MIN / -1 wraps too. Mod with
   fmod = 1 is C's %, which takes the sign of x. */
#define MMD__EW_SINT_ROWS(arg, sfx, S, C, DT, LD, ST, U)                                        \
    MMD__EW_MAP_ROW(relu, sfx, S, S, S, LD, ST, x < 0 ? 0 : x)                                  \
    MMD__EW_MAP_ROW(clip, sfx, S, S, S, LD, ST, MMD__EW_CLIP(x, q[0], q[1]))                    \
    MMD__EW_MAP_ROW(abs, sfx, S, S, S, LD, ST, x < 0 ? (S)((U)0 - (U)x) : x)                    \
    MMD__EW_MAP_ROW(neg, sfx, S, S, S, LD, ST, (S)((U)0 - (U)x))                                \
    MMD__EW_MAP_ROW(sign, sfx, S, S, S, LD, ST, (x > 0) - (x < 0))                              \
    MMD__EW_BIN_ROW(add, sfx, S, S, S, S, LD, ST, 0, (S)((U)x + (U)y))                          \
    MMD__EW_BIN_ROW(sub, sfx, S, S, S, S, LD, ST, 0, (S)((U)x - (U)y))                          \
    MMD__EW_BIN_ROW(mul, sfx, S, S, S, S, LD, ST, 0, (S)((U)x * (U)y))                          \
    MMD__EW_BIN_ROW(div, sfx, S, S, S, S, LD, ST, y == 0, y == -1 ? (S)((U)0 - (U)x) : (S)(x / y)) \
    MMD__EW_BIN_ROW(mod, sfx, S, S, S, S, LD, ST, y == 0, (S)mmd__floor_mod(x, y))              \
    MMD__EW_BIN_ROW(fmod, sfx, S, S, S, S, LD, ST, y == 0, (S)(y == -1 ? 0 : x % y))            \
    MMD__EW_BIN_ROW(max, sfx, S, S, S, S, LD, ST, 0, x > y ? x : y)                             \
    MMD__EW_BIN_ROW(min, sfx, S, S, S, S, LD, ST, 0, x < y ? x : y)                             \
    MMD__EW_BIN_ROW(prelu, sfx, S, S, S, S, LD, ST, 0, x < 0 ? (S)((U)x * (U)y) : x)            \
    MMD__EW_COMPARE_ROWS(sfx, S, S, LD)

/* Unsigned Mod: both sign rules agree, so one row serves fmod 0 and 1. */
#define MMD__EW_UINT_ROWS(arg, sfx, S, C, DT, LD, ST, U)                                        \
    MMD__EW_MAP_ROW(clip, sfx, S, S, S, LD, ST, MMD__EW_CLIP(x, q[0], q[1]))                    \
    MMD__EW_MAP_ROW(abs, sfx, S, S, S, LD, ST, x)                                               \
    MMD__EW_MAP_ROW(sign, sfx, S, S, S, LD, ST, x != 0)                                         \
    MMD__EW_BIN_ROW(add, sfx, S, S, S, S, LD, ST, 0, (S)((U)x + (U)y))                          \
    MMD__EW_BIN_ROW(sub, sfx, S, S, S, S, LD, ST, 0, (S)((U)x - (U)y))                          \
    MMD__EW_BIN_ROW(mul, sfx, S, S, S, S, LD, ST, 0, (S)((U)x * (U)y))                          \
    MMD__EW_BIN_ROW(div, sfx, S, S, S, S, LD, ST, y == 0, (S)(x / y))                           \
    MMD__EW_BIN_ROW(mod, sfx, S, S, S, S, LD, ST, y == 0, (S)(x % y))                           \
    MMD__EW_BIN_ROW(max, sfx, S, S, S, S, LD, ST, 0, x > y ? x : y)                             \
    MMD__EW_BIN_ROW(min, sfx, S, S, S, S, LD, ST, 0, x < y ? x : y)                             \
    MMD__EW_COMPARE_ROWS(sfx, S, S, LD)

MMD__EW_FLOATS(MMD__EW_FLOAT_ROWS, 0)
MMD__EW_SINTS(MMD__EW_SINT_ROWS, 0)
MMD__EW_UINTS(MMD__EW_UINT_ROWS, 0)
/* Pow takes an integer exponent from opset 12 on; earlier models never carry one. */
MMD__EW_BIN_ROW(pow, f32_i32, float, float, int32_t, float, MMD__EW_SAME, MMD__EW_SAME, 0, powf(x, y))
MMD__EW_BIN_ROW(pow, f32_i64, float, float, int64_t, float, MMD__EW_SAME, MMD__EW_SAME, 0, powf(x, y))
/* Bool operands hold 0 or 1; the `!` make any other byte count as true. */
MMD__EW_MAP_ROW(logic_not, bool, uint8_t, uint8_t, uint8_t, MMD__EW_SAME, MMD__EW_SAME, !x)
MMD__EW_BIN_ROW(logic_and, bool, uint8_t, uint8_t, uint8_t, uint8_t, MMD__EW_SAME, MMD__EW_SAME, 0, x && y)
MMD__EW_BIN_ROW(logic_or, bool, uint8_t, uint8_t, uint8_t, uint8_t, MMD__EW_SAME, MMD__EW_SAME, 0, x || y)
MMD__EW_BIN_ROW(logic_xor, bool, uint8_t, uint8_t, uint8_t, uint8_t, MMD__EW_SAME, MMD__EW_SAME, 0, !x != !y)
MMD__EW_BIN_ROW(equal, bool, uint8_t, uint8_t, uint8_t, uint8_t, MMD__EW_SAME, MMD__EW_SAME, 0, !x == !y)

/* Where moves elements without looking at them, so one pair of rows per element size serves
   every dtype: `then` copies y where the condition is true, `else` (keep = 0) where it is
   false. */
#define MMD__EW_WHERE_ROW(name, T, keep)                                                        \
    static mmd_status name(void *o_, int64_t os, const void *c_, int64_t cs, const void *y_,    \
                           int64_t ys, int64_t n) {                                             \
        T *o = (T *)o_;                                                                         \
        const uint8_t *c = (const uint8_t *)c_;                                                 \
        const T *y = (const T *)y_;                                                             \
        int64_t i;                                                                              \
        for (i = 0; i < n; ++i)                                                                 \
            if (!c[i * cs] == !(keep)) o[i * os] = y[i * ys];                                   \
        return MMD_OK;                                                                          \
    }
MMD__EW_WHERE_ROW(mmd__where_then_8_row, uint8_t, 1)
MMD__EW_WHERE_ROW(mmd__where_else_8_row, uint8_t, 0)
MMD__EW_WHERE_ROW(mmd__where_then_16_row, uint16_t, 1)
MMD__EW_WHERE_ROW(mmd__where_else_16_row, uint16_t, 0)
MMD__EW_WHERE_ROW(mmd__where_then_32_row, uint32_t, 1)
MMD__EW_WHERE_ROW(mmd__where_else_32_row, uint32_t, 0)
MMD__EW_WHERE_ROW(mmd__where_then_64_row, uint64_t, 1)
MMD__EW_WHERE_ROW(mmd__where_else_64_row, uint64_t, 0)

#undef MMD__EW_MAP_ROW
#undef MMD__EW_BIN_ROW
#undef MMD__EW_UNIT
#undef MMD__EW_CLIP
#undef MMD__EW_COMPARE_ROWS
#undef MMD__EW_FLOAT_ROWS
#undef MMD__EW_SINT_ROWS
#undef MMD__EW_UINT_ROWS
#undef MMD__EW_WHERE_ROW

/* ---- row tables --------------------------------------------------------------------------- */

/* The row of one op for one pair of input dtypes, and the dtype of its output; tables end
   with a NULL row. */
typedef struct mmd__row_entry {
    int32_t a_dtype, b_dtype, out_dtype;
    mmd__row_fn row;
} mmd__row_entry;

/* {dtype, dtype, dtype or bool, row} for one type of a list; tables end with MMD__EW_END. */
#define MMD__EW_ENTRY(op, sfx, S, C, DT, LD, ST, E) {DT, DT, DT, mmd__##op##_##sfx##_row},
#define MMD__EW_TEST_ENTRY(op, sfx, S, C, DT, LD, ST, E) {DT, DT, MMD_DTYPE_BOOL, mmd__##op##_##sfx##_row},
#define MMD__EW_END {MMD_DTYPE_UNDEFINED, MMD_DTYPE_UNDEFINED, MMD_DTYPE_UNDEFINED, NULL}
#define MMD__EW_ROWS(op, ...) static const mmd__row_entry mmd__##op##_rows[] = {__VA_ARGS__ MMD__EW_END};
#define MMD__EW_SIGNED(op) MMD__EW_FLOATS(MMD__EW_ENTRY, op) MMD__EW_SINTS(MMD__EW_ENTRY, op)
#define MMD__EW_NUMERIC(op) MMD__EW_SIGNED(op) MMD__EW_UINTS(MMD__EW_ENTRY, op)
#define MMD__EW_COMPARE(op) MMD__EW_FLOATS(MMD__EW_TEST_ENTRY, op) MMD__EW_SINTS(MMD__EW_TEST_ENTRY, op) \
    MMD__EW_UINTS(MMD__EW_TEST_ENTRY, op)
#define MMD__EW_FLOAT_ONLY(op) MMD__EW_ROWS(op, MMD__EW_FLOATS(MMD__EW_ENTRY, op))

MMD__EW_ROWS(relu, MMD__EW_SIGNED(relu))
MMD__EW_FLOAT_ONLY(leaky_relu)
MMD__EW_FLOAT_ONLY(sigmoid)
MMD__EW_FLOAT_ONLY(hard_sigmoid)
MMD__EW_FLOAT_ONLY(hard_swish)
MMD__EW_FLOAT_ONLY(tanh)
MMD__EW_FLOAT_ONLY(erf)
MMD__EW_FLOAT_ONLY(sqrt)
MMD__EW_ROWS(clip, MMD__EW_NUMERIC(clip))
MMD__EW_ROWS(abs, MMD__EW_NUMERIC(abs))
MMD__EW_ROWS(neg, MMD__EW_SIGNED(neg))
MMD__EW_ROWS(sign, MMD__EW_NUMERIC(sign))
MMD__EW_FLOAT_ONLY(acos)
MMD__EW_FLOAT_ONLY(acosh)
MMD__EW_FLOAT_ONLY(asin)
MMD__EW_FLOAT_ONLY(asinh)
MMD__EW_FLOAT_ONLY(atan)
MMD__EW_FLOAT_ONLY(atanh)
MMD__EW_FLOAT_ONLY(ceil)
MMD__EW_FLOAT_ONLY(cos)
MMD__EW_FLOAT_ONLY(cosh)
MMD__EW_FLOAT_ONLY(exp)
MMD__EW_FLOAT_ONLY(floor)
MMD__EW_FLOAT_ONLY(log)
MMD__EW_FLOAT_ONLY(reciprocal)
MMD__EW_FLOAT_ONLY(round)
MMD__EW_FLOAT_ONLY(sin)
MMD__EW_FLOAT_ONLY(sinh)
MMD__EW_FLOAT_ONLY(tan)
MMD__EW_FLOAT_ONLY(softplus)
MMD__EW_FLOAT_ONLY(softsign)
MMD__EW_FLOAT_ONLY(celu)
MMD__EW_FLOAT_ONLY(elu)
MMD__EW_FLOAT_ONLY(selu)
MMD__EW_FLOAT_ONLY(shrink)
MMD__EW_FLOAT_ONLY(thresholded_relu)
MMD__EW_ROWS(is_inf, MMD__EW_FLOATS(MMD__EW_TEST_ENTRY, is_inf))
MMD__EW_ROWS(is_nan, MMD__EW_FLOATS(MMD__EW_TEST_ENTRY, is_nan))
MMD__EW_ROWS(logic_not, {MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, mmd__logic_not_bool_row},)
MMD__EW_ROWS(add, MMD__EW_NUMERIC(add))
MMD__EW_ROWS(sub, MMD__EW_NUMERIC(sub))
MMD__EW_ROWS(mul, MMD__EW_NUMERIC(mul))
MMD__EW_ROWS(div, MMD__EW_NUMERIC(div))
MMD__EW_ROWS(pow, MMD__EW_FLOATS(MMD__EW_ENTRY, pow)
             {MMD_DTYPE_FLOAT32, MMD_DTYPE_INT32, MMD_DTYPE_FLOAT32, mmd__pow_f32_i32_row},
             {MMD_DTYPE_FLOAT32, MMD_DTYPE_INT64, MMD_DTYPE_FLOAT32, mmd__pow_f32_i64_row},)
MMD__EW_ROWS(equal, MMD__EW_COMPARE(equal) {MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, mmd__equal_bool_row},)
MMD__EW_ROWS(greater, MMD__EW_COMPARE(greater))
MMD__EW_ROWS(greater_equal, MMD__EW_COMPARE(greater_equal))
MMD__EW_ROWS(less, MMD__EW_COMPARE(less))
MMD__EW_ROWS(less_equal, MMD__EW_COMPARE(less_equal))
MMD__EW_ROWS(logic_and, {MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, mmd__logic_and_bool_row},)
MMD__EW_ROWS(logic_or, {MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, mmd__logic_or_bool_row},)
MMD__EW_ROWS(logic_xor, {MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, MMD_DTYPE_BOOL, mmd__logic_xor_bool_row},)
MMD__EW_ROWS(prelu, MMD__EW_SIGNED(prelu))
MMD__EW_ROWS(max, MMD__EW_NUMERIC(max))
MMD__EW_ROWS(min, MMD__EW_NUMERIC(min))
/* Mod: fmod = 0 is defined for integers only; fmod = 1 for floats, and for integers it is
   C's %. Unsigned integers have one row for both. */
MMD__EW_ROWS(mod, MMD__EW_SINTS(MMD__EW_ENTRY, mod) MMD__EW_UINTS(MMD__EW_ENTRY, mod))
MMD__EW_ROWS(fmod, MMD__EW_SIGNED(fmod) MMD__EW_UINTS(MMD__EW_ENTRY, mod))
/* Mean sums in float32 and divides at the end. */
MMD__EW_ROWS(mean, {MMD_DTYPE_FLOAT32, MMD_DTYPE_FLOAT32, MMD_DTYPE_FLOAT32, mmd__add_f32_row},)
#undef MMD__EW_FLOAT_ONLY
#undef MMD__EW_COMPARE
#undef MMD__EW_NUMERIC
#undef MMD__EW_SIGNED
#undef MMD__EW_ROWS
#undef MMD__EW_END
#undef MMD__EW_TEST_ENTRY
#undef MMD__EW_ENTRY
#undef MMD__EW_FLOATS
#undef MMD__EW_SINTS
#undef MMD__EW_UINTS
#undef MMD__EW_SAME
#undef MMD__EW_FLOATF
#undef MMD__EW_DOUBLEF

/* Each elementwise op that one prepare serves, found by op_type: its rows and, for a map, up
   to two float attributes with their defaults, which the row reads as p[0] and p[1]. */
typedef struct mmd__ew_op {
    const char *op_type;
    const mmd__row_entry *rows;
    const char *attr[2];
    float def[2];
} mmd__ew_op;

static const mmd__ew_op mmd__ew_ops[] = {
    MMD__K(Relu, {"Relu", mmd__relu_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(LeakyRelu, {"LeakyRelu", mmd__leaky_relu_rows, {"alpha", NULL}, {0.01f, 0.0f}})
    MMD__K(Sigmoid, {"Sigmoid", mmd__sigmoid_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(HardSigmoid, {"HardSigmoid", mmd__hard_sigmoid_rows, {"alpha", "beta"}, {0.2f, 0.5f}})
    MMD__K(HardSwish, {"HardSwish", mmd__hard_swish_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Tanh, {"Tanh", mmd__tanh_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Erf, {"Erf", mmd__erf_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Sqrt, {"Sqrt", mmd__sqrt_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Abs, {"Abs", mmd__abs_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Neg, {"Neg", mmd__neg_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Sign, {"Sign", mmd__sign_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Acos, {"Acos", mmd__acos_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Acosh, {"Acosh", mmd__acosh_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Asin, {"Asin", mmd__asin_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Asinh, {"Asinh", mmd__asinh_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Atan, {"Atan", mmd__atan_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Atanh, {"Atanh", mmd__atanh_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Ceil, {"Ceil", mmd__ceil_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Cos, {"Cos", mmd__cos_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Cosh, {"Cosh", mmd__cosh_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Exp, {"Exp", mmd__exp_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Floor, {"Floor", mmd__floor_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Log, {"Log", mmd__log_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Reciprocal, {"Reciprocal", mmd__reciprocal_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Round, {"Round", mmd__round_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Sin, {"Sin", mmd__sin_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Sinh, {"Sinh", mmd__sinh_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Tan, {"Tan", mmd__tan_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Softplus, {"Softplus", mmd__softplus_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Softsign, {"Softsign", mmd__softsign_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Celu, {"Celu", mmd__celu_rows, {"alpha", NULL}, {1.0f, 0.0f}})
    MMD__K(Elu, {"Elu", mmd__elu_rows, {"alpha", NULL}, {1.0f, 0.0f}})
    /* The defaults are the float values the spec gives (both exact in float). */
    MMD__K(Selu, {"Selu", mmd__selu_rows, {"alpha", "gamma"}, {1.67326319217681884765625f, 1.05070102214813232421875f}})
    MMD__K(Shrink, {"Shrink", mmd__shrink_rows, {"bias", "lambd"}, {0.0f, 0.5f}})
    MMD__K(ThresholdedRelu, {"ThresholdedRelu", mmd__thresholded_relu_rows, {"alpha", NULL}, {1.0f, 0.0f}})
    MMD__K(IsNaN, {"IsNaN", mmd__is_nan_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Not, {"Not", mmd__logic_not_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Add, {"Add", mmd__add_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Sub, {"Sub", mmd__sub_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Mul, {"Mul", mmd__mul_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Div, {"Div", mmd__div_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Pow, {"Pow", mmd__pow_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Equal, {"Equal", mmd__equal_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Greater, {"Greater", mmd__greater_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(GreaterOrEqual, {"GreaterOrEqual", mmd__greater_equal_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Less, {"Less", mmd__less_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(LessOrEqual, {"LessOrEqual", mmd__less_equal_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(And, {"And", mmd__logic_and_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Or, {"Or", mmd__logic_or_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Xor, {"Xor", mmd__logic_xor_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Max, {"Max", mmd__max_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Min, {"Min", mmd__min_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Sum, {"Sum", mmd__add_rows, {NULL, NULL}, {0.0f, 0.0f}})
    MMD__K(Mean, {"Mean", mmd__mean_rows, {NULL, NULL}, {0.0f, 0.0f}})
    {"", NULL, {NULL, NULL}, {0.0f, 0.0f}} /* matches no node: the table is never empty */
};

/* *out is the entry for the node's op_type; MMD_ERR_NO_KERNEL when there is none. */
static mmd_status mmd__ew_op_find(mmd_kernel_ctx *c, const mmd__ew_op **out) {
    size_t i;
    for (i = 0; i < sizeof mmd__ew_ops / sizeof mmd__ew_ops[0]; ++i)
        if (!strcmp(c->node->op_type, mmd__ew_ops[i].op_type)) {
            *out = &mmd__ew_ops[i];
            return MMD_OK;
        }
    return mmd_kernel_fail(c, MMD_ERR_NO_KERNEL, "not an elementwise op");
}

/* *out is the row for the dtypes of a and b (one tensor for a map); MMD_ERR_DTYPE naming
   them when the op does not take them. */
static mmd_status mmd__row_find(mmd_kernel_ctx *c, const mmd__row_entry *rows, const mmd_tensor *a,
                                const mmd_tensor *b, const mmd__row_entry **out) {
    while (rows->row && (rows->a_dtype != a->dtype || rows->b_dtype != b->dtype)) ++rows;
    *out = rows;
    if (rows->row) return MMD_OK;
    if (a == b)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input 0 '%s' is %s, which this kernel does not take",
                               a->name ? a->name : "", mmd_dtype_name(a->dtype));
    return mmd_kernel_fail(c, MMD_ERR_DTYPE, "inputs '%s' and '%s' are %s and %s, which this kernel does not take",
                           a->name ? a->name : "", b->name ? b->name : "", mmd_dtype_name(a->dtype),
                           mmd_dtype_name(b->dtype));
}

/* ---- unary maps --------------------------------------------------------------------------- */

typedef struct mmd__map_data {
    mmd__row_fn row;
    uint64_t prm[2];                    /* the row's parameters: two floats (the attributes)
                                           or two elements of X's dtype (Clip's bounds) */
    mmd__act act;                       /* float32 activations: the vector path (kind NONE:
                                           the row) */
} mmd__map_data;

/* The activations mmd__act_map_f32 computes for float32 maps, by op_type; what it computes is
   what their rows compute. */
static const struct {
    const char *op_type;
    int32_t kind;
} mmd__map_acts[] = {{"Relu", MMD__ACT_RELU}, {"LeakyRelu", MMD__ACT_LEAKY_RELU}, {"Sigmoid", MMD__ACT_SIGMOID},
                     {"HardSigmoid", MMD__ACT_HARD_SIGMOID}, {"HardSwish", MMD__ACT_HARD_SWISH},
                     {"Tanh", MMD__ACT_TANH}, {"Clip", MMD__ACT_CLIP}};

/* Sets p->act for a float32 input whose op has an activation (its parameters are the map's
   float parameters; Clip's bounds are read again in eval). */
static void mmd__map_act(mmd_kernel_ctx *c, mmd__map_data *p) {
    const float *prm = (const float *)p->prm;
    size_t i;
    if (c->inputs[0]->dtype != MMD_DTYPE_FLOAT32) return;
    for (i = 0; i < sizeof mmd__map_acts / sizeof mmd__map_acts[0]; ++i)
        if (!strcmp(c->node->op_type, mmd__map_acts[i].op_type)) {
            p->act.kind = mmd__map_acts[i].kind;
            p->act.alpha = prm[0];
            p->act.beta = prm[1];
        }
}

/* Input 0 and up to max_in - 1 parameter inputs; output of input 0's shape and of the dtype
   the row table gives. */
static mmd_status mmd__map_setup(mmd_kernel_ctx *c, const mmd__row_entry *rows, int32_t max_in) {
    mmd__map_data *p = (mmd__map_data *)c->op_data;
    const mmd__row_entry *e;
    const mmd_tensor *x;
    mmd_status st = mmd__check_io(c, 1, max_in, 1);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__row_find(c, rows, x, x, &e)) != MMD_OK) return st;
    p->row = e->row;
    return mmd__set_output(c, 0, e->out_dtype, x->rank, x->dims);
}

/* Every map without parameter inputs: its rows and float attributes from mmd__ew_ops. */
static mmd_status mmd__map_any_prepare(mmd_kernel_ctx *c) {
    mmd__map_data *p = (mmd__map_data *)c->op_data;
    float *prm = (float *)p->prm;
    const mmd__ew_op *m = NULL;
    int32_t i;
    mmd_status st = mmd__ew_op_find(c, &m);
    if (st == MMD_OK) st = mmd__map_setup(c, m->rows, 1);
    for (i = 0; i < 2 && st == MMD_OK; ++i)
        st = m->attr[i] ? mmd_attr_get_float(c, m->attr[i], m->def[i], &prm[i]) : MMD_OK;
    if (st == MMD_OK) mmd__map_act(c, p);
    return st;
}

/* IsInf's integer attributes become the row's p[0] (detect_negative) and p[1]
   (detect_positive). */
static mmd_status mmd__is_inf_any_prepare(mmd_kernel_ctx *c) {
    mmd__map_data *p = (mmd__map_data *)c->op_data;
    float *prm = (float *)p->prm;
    int64_t neg = 1, pos = 1;
    mmd_status st = mmd__map_setup(c, mmd__is_inf_rows, 1);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "detect_negative", 1, &neg);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "detect_positive", 1, &pos);
    prm[0] = neg != 0 ? 1.0f : 0.0f;
    prm[1] = pos != 0 ? 1.0f : 0.0f;
    return st;
}

/* The lowest and highest finite values of a numeric dtype, written as its elements 0 and 1
   at p: what an absent Clip bound stands for (numeric_limits' lowest and max in the spec). */
static void mmd__dtype_range(int32_t dtype, void *p) {
    int64_t bits = 8 * (int64_t)mmd_dtype_size(dtype), hi;
    switch (dtype) {
    case MMD_DTYPE_FLOAT32: mmd__store_float(dtype, p, 0, -FLT_MAX); mmd__store_float(dtype, p, 1, FLT_MAX); return;
    case MMD_DTYPE_FLOAT64: mmd__store_float(dtype, p, 0, -DBL_MAX); mmd__store_float(dtype, p, 1, DBL_MAX); return;
    case MMD_DTYPE_FLOAT16: mmd__store_float(dtype, p, 0, -65504.0); mmd__store_float(dtype, p, 1, 65504.0); return;
    case MMD_DTYPE_UINT8: case MMD_DTYPE_UINT16: case MMD_DTYPE_UINT32: case MMD_DTYPE_UINT64:
        /* -1 narrows to the highest value. */
        mmd__store_int(dtype, p, 0, 0);
        mmd__store_int(dtype, p, 1, -1);
        return;
    default:
        hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
        mmd__store_int(dtype, p, 0, -hi - 1);
        mmd__store_int(dtype, p, 1, hi);
        return;
    }
}

/* Clip takes min and max as attributes before opset 11 (float dtypes only then) and as
   optional one-value inputs of X's dtype from 11 on, which eval reads so that they need not be
   constant. The row gets the bounds in X's own dtype, so integer bounds stay exact. */
static mmd_status mmd__clip_any_prepare(mmd_kernel_ctx *c) {
    static const char *const names[] = {"min", "max"};
    mmd__map_data *p = (mmd__map_data *)c->op_data;
    int32_t dtype, i;
    float v;
    mmd_status st = mmd__map_setup(c, mmd__clip_rows, c->opset < 11 ? 1 : 3);
    if (st != MMD_OK) return st;
    dtype = c->inputs[0]->dtype;
    mmd__dtype_range(dtype, p->prm);
    for (i = 0; i < 2; ++i) {
        if (c->opset < 11) {
            if (!mmd_node_attr(c->node, names[i])) continue;
            if ((st = mmd_attr_get_float(c, names[i], 0.0f, &v)) != MMD_OK) return st;
            mmd__store_float(dtype, p->prm, i, v);
            continue;
        }
        if (i + 1 >= c->input_count || !c->inputs[i + 1]) continue;
        if ((st = mmd__want_dtype(c, i + 1, dtype)) != MMD_OK) return st;
        if (mmd_tensor_numel(c->inputs[i + 1]) != 1)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s '%s' must hold one value", names[i],
                                   c->inputs[i + 1]->name ? c->inputs[i + 1]->name : "");
        c->scratch_size = sizeof p->prm;
    }
    mmd__map_act(c, p);
    return MMD_OK;
}

/* An activation over float32 elements [lo, hi), a share of mmd__map_any_eval's. */
typedef struct mmd__act_job {
    mmd__act act;
    const float *x;
    float *y;
} mmd__act_job;

static void mmd__act_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__act_job *j = (const mmd__act_job *)data;
    (void)share;
    mmd__act_map_f32(&j->act, j->x + lo, j->y + lo, hi - lo);
}

/* Elements per thread below which an elementwise loop is not worth waking a thread for. */
#define MMD__EW_GRAIN ((int64_t)1 << 16)

/* The whole tensor is one contiguous row; the parameters are the row's stride-0 operand.
   Parameter inputs (Clip's bounds) are read now, over the prepared defaults, in scratch.
   Float32 activations take the vector path, split over the threads. */
static mmd_status mmd__map_any_eval(mmd_kernel_ctx *c) {
    const mmd__map_data *p = (const mmd__map_data *)c->op_data;
    const void *prm = p->prm;
    size_t elem = mmd_dtype_size(c->inputs[0]->dtype);
    int64_t n = mmd_tensor_numel(c->inputs[0]);
    int32_t i;
    for (i = 1; i < c->input_count; ++i) {
        if (!c->inputs[i]) continue;
        if (prm == p->prm) memcpy(c->scratch, p->prm, sizeof p->prm);
        prm = c->scratch;
        memcpy((char *)c->scratch + (size_t)(i - 1) * elem, c->inputs[i]->data, elem);
    }
    if (p->act.kind != MMD__ACT_NONE) {
        mmd__act_job j;
        j.act = p->act;
        j.act.alpha = ((const float *)prm)[0];
        j.act.beta = ((const float *)prm)[1];
        j.x = (const float *)c->inputs[0]->data;
        j.y = (float *)c->outputs[0]->data;
        mmd__parallel_range(c, n, MMD__EW_GRAIN, 64, INT32_MAX, mmd__act_range, &j);
        return MMD_OK;
    }
    return p->row(c->outputs[0]->data, 1, c->inputs[0]->data, 1, prm, 0, n);
}

/* ---- binary ops --------------------------------------------------------------------------- */

/* ---- float32 Add, Sub, Mul, Div ------------------------------------------------------------ */
/* Broadcasting merges into a walk whose innermost axis each input steps through either
   contiguously (stride 1) or not at all (stride 0: a scalar, a channel's value over its
   plane, a row's element over the columns): the rows below are plain loops over that axis,
   and the axes outside it cost one step of mmd__walk_next per row, never per element. The
   vector paths give the bits of the portable rows (IEEE add, sub, mul and div; max lets a
   NaN on either side win, as the Max row does). MaxPool's rows use max. */
enum { MMD__BIN_NONE, MMD__BIN_ADD, MMD__BIN_SUB, MMD__BIN_MUL, MMD__BIN_DIV, MMD__BIN_MAX };

#if defined(MMD__X86)
MMD__TARGET_AVX512 static __m512 mmd__max_avx512(__m512 a, __m512 b) {
    return _mm512_mask_mov_ps(_mm512_max_ps(a, b), _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), a);
}

MMD__TARGET_AVX2 static __m256 mmd__max_avx2(__m256 a, __m256 b) {
    return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

#define MMD__BIN_AVX512(fn)                                                                     \
    for (i = 0; i < n; i += 16) {                                                               \
        __mmask16 m = MMD__MASK16(i, n);                                                        \
        if (as) va = _mm512_maskz_loadu_ps(m, a + i);                                           \
        if (bs) vb = _mm512_maskz_loadu_ps(m, b + i);                                           \
        _mm512_mask_storeu_ps(o + i, m, fn(va, vb));                                            \
    }                                                                                           \
    break;
#define MMD__BIN_AVX2(fn)                                                                       \
    for (i = 0; i < n; i += 8) {                                                                \
        __m256i m = mmd__tail_avx2(n - i);                                                      \
        if (as) va = _mm256_maskload_ps(a + i, m);                                              \
        if (bs) vb = _mm256_maskload_ps(b + i, m);                                              \
        _mm256_maskstore_ps(o + i, m, fn(va, vb));                                              \
    }                                                                                           \
    break;

/* o[i] = a[i * as] op b[i * bs] for i < n (n > 0), as and bs 0 or 1. */
MMD__TARGET_AVX512 static void mmd__bin_avx512_f32(int32_t op, float *o, const float *a, int64_t as,
                                                   const float *b, int64_t bs, int64_t n) {
    __m512 va = _mm512_set1_ps(a[0]), vb = _mm512_set1_ps(b[0]);
    int64_t i;
    switch (op) {
    case MMD__BIN_ADD: MMD__BIN_AVX512(_mm512_add_ps)
    case MMD__BIN_SUB: MMD__BIN_AVX512(_mm512_sub_ps)
    case MMD__BIN_MUL: MMD__BIN_AVX512(_mm512_mul_ps)
    case MMD__BIN_DIV: MMD__BIN_AVX512(_mm512_div_ps)
    default: MMD__BIN_AVX512(mmd__max_avx512)
    }
}

MMD__TARGET_AVX2 static void mmd__bin_avx2_f32(int32_t op, float *o, const float *a, int64_t as,
                                               const float *b, int64_t bs, int64_t n) {
    __m256 va = _mm256_set1_ps(a[0]), vb = _mm256_set1_ps(b[0]);
    int64_t i;
    switch (op) {
    case MMD__BIN_ADD: MMD__BIN_AVX2(_mm256_add_ps)
    case MMD__BIN_SUB: MMD__BIN_AVX2(_mm256_sub_ps)
    case MMD__BIN_MUL: MMD__BIN_AVX2(_mm256_mul_ps)
    case MMD__BIN_DIV: MMD__BIN_AVX2(_mm256_div_ps)
    default: MMD__BIN_AVX2(mmd__max_avx2)
    }
}
#undef MMD__BIN_AVX512
#undef MMD__BIN_AVX2
#endif

/* The portable path of mmd__bin_f32: eight elements at a time, both sides loaded (or a stride-0
   side repeated) into arrays before any is stored (o may be a or b), in loops of constant trip
   count, which GCC's -O2 vectoriser takes (the rows' loops over i * as it leaves scalar); then
   the row for the rest. Max is the Max row's (x > y || x != x) ? x : y as two selections.
   MMD_CONV_SMALL (firmware) keeps the row alone, smaller. */
static void mmd__bin_portable_f32(int32_t op, float *o, const float *a, int64_t as, const float *b, int64_t bs,
                                  int64_t n) {
    int64_t i = 0;
#ifndef MMD_CONV_SMALL
    int32_t l;
    for (; i + 8 <= n; i += 8) {
        float x[8], y[8];
        if (as)
            for (l = 0; l < 8; ++l) x[l] = a[i + l];
        else
            for (l = 0; l < 8; ++l) x[l] = a[0];
        if (bs)
            for (l = 0; l < 8; ++l) y[l] = b[i + l];
        else
            for (l = 0; l < 8; ++l) y[l] = b[0];
        switch (op) {
        case MMD__BIN_ADD:
            for (l = 0; l < 8; ++l) x[l] = x[l] + y[l];
            break;
        case MMD__BIN_SUB:
            for (l = 0; l < 8; ++l) x[l] = x[l] - y[l];
            break;
        case MMD__BIN_MUL:
            for (l = 0; l < 8; ++l) x[l] = x[l] * y[l];
            break;
        case MMD__BIN_DIV:
            for (l = 0; l < 8; ++l) x[l] = x[l] / y[l];
            break;
        default:
            for (l = 0; l < 8; ++l) {
                float m = x[l] > y[l] ? x[l] : y[l];
                x[l] = x[l] != x[l] ? x[l] : m;
            }
            break;
        }
        for (l = 0; l < 8; ++l) o[i + l] = x[l];
    }
#endif
    if (i < n)
        (op == MMD__BIN_ADD ? mmd__add_f32_row : op == MMD__BIN_SUB ? mmd__sub_f32_row : op == MMD__BIN_MUL ? mmd__mul_f32_row
         : op == MMD__BIN_DIV ? mmd__div_f32_row : mmd__max_f32_row)(o + i, 1, a + i * as, as, b + i * bs, bs, n - i);
}

/* o[i] = a[i * as] op b[i * bs] for i < n, as and bs 0 or 1, on the vector path of isa (an
   mmd__isa() value). o may be a or b. */
static void mmd__bin_f32(int32_t isa, int32_t op, float *o, const float *a, int64_t as, const float *b,
                         int64_t bs, int64_t n) {
    if (n <= 0) return;
#if defined(MMD__X86)
    if (isa == MMD__ISA_AVX512) {
        mmd__bin_avx512_f32(op, o, a, as, b, bs, n);
        return;
    }
    if (isa == MMD__ISA_AVX2) {
        mmd__bin_avx2_f32(op, o, a, as, b, bs, n);
        return;
    }
#endif
    (void)isa;
    mmd__bin_portable_f32(op, o, a, as, b, bs, n);
}

/* ---- float32 sums in double -------------------------------------------------------------- */
/* The sum of n floats (sq 0) or of their squared distances from m (sq 1), accumulated in
   double: in 16 (AVX-512) or 8 (AVX2) lanes added up at the end, or one after another on the
   portable path. GlobalAveragePool and the normalisations' moments use it; a row is always
   summed whole by one thread, so the result does not depend on the thread count. */
#if defined(MMD__X86)
MMD__TARGET_AVX512 static double mmd__sum_avx512(const float *x, int64_t n, double m, int32_t sq) {
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd(), vm = _mm512_set1_pd(m);
    int64_t i;
    for (i = 0; i < n; i += 16) {
        __mmask16 k = MMD__MASK16(i, n);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v)), hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1));
        if (sq) {
            lo = _mm512_maskz_sub_pd((__mmask8)k, lo, vm);
            hi = _mm512_maskz_sub_pd((__mmask8)(k >> 8), hi, vm);
            s0 = _mm512_fmadd_pd(lo, lo, s0);
            s1 = _mm512_fmadd_pd(hi, hi, s1);
        } else {
            s0 = _mm512_add_pd(s0, lo);
            s1 = _mm512_add_pd(s1, hi);
        }
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

MMD__TARGET_AVX2 static double mmd__sum_avx2(const float *x, int64_t n, double m, int32_t sq) {
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(), vm = _mm256_set1_pd(sq ? m : 0.0);
    __m128d h;
    double s;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256d lo = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), vm);
        __m256d hi = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), vm);
        s0 = sq ? _mm256_fmadd_pd(lo, lo, s0) : _mm256_add_pd(s0, lo);
        s1 = sq ? _mm256_fmadd_pd(hi, hi, s1) : _mm256_add_pd(s1, hi);
    }
    s0 = _mm256_add_pd(s0, s1);
    h = _mm_add_pd(_mm256_castpd256_pd128(s0), _mm256_extractf128_pd(s0, 1));
    s = _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
    for (; i < n; ++i) {
        double d = (double)x[i] - (sq ? m : 0.0);
        s += sq ? d * d : d;
    }
    return s;
}
#endif

static double mmd__sum_f32(int32_t isa, const float *x, int64_t n, double m, int32_t sq) {
    double s = 0.0;
    int64_t i;
#if defined(MMD__X86)
    if (isa == MMD__ISA_AVX512) return mmd__sum_avx512(x, n, m, sq);
    if (isa == MMD__ISA_AVX2) return mmd__sum_avx2(x, n, m, sq);
#endif
    (void)isa;
    for (i = 0; i < n; ++i) {
        double d = (double)x[i] - (sq ? m : 0.0);
        s += sq ? d * d : d;
    }
    return s;
}

typedef struct mmd__bin_job {
    const mmd__walk *w;
    int32_t op, isa;
    float *o;
    const float *a, *b;
} mmd__bin_job;

/* Rows [lo, hi) of the walk (every axis but the last), or elements [lo, hi) when it has one
   axis: the share of one thread. */
static void mmd__bin_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__bin_job *j = (const mmd__bin_job *)data;
    const mmd__walk *w = j->w;
    int32_t last = w->rank - 1, d, k;
    int64_t as = w->strides[1][last], bs = w->strides[2][last], idx[MMD_MAX_RANK], off[3] = {0, 0, 0}, r, rest = lo;
    (void)share;
    if (last == 0) {
        mmd__bin_f32(j->isa, j->op, j->o + lo, j->a + lo * as, as, j->b + lo * bs, bs, hi - lo);
        return;
    }
    for (d = last - 1; d >= 0; --d) {
        idx[d] = rest % w->dims[d];
        rest /= w->dims[d];
        for (k = 0; k < 3; ++k) off[k] += idx[d] * w->strides[k][d];
    }
    for (r = lo; r < hi; ++r) {
        mmd__bin_f32(j->isa, j->op, j->o + off[0], j->a + off[1], as, j->b + off[2], bs, w->dims[last]);
        mmd__walk_next(w, last, idx, off);
    }
}

/* The float32 op the vector rows serve, or MMD__BIN_NONE: both inputs float32 and each
   innermost stride 0 or 1 (always so for contiguous inputs; checked, not assumed). */
static int32_t mmd__bin_f32_op(mmd_kernel_ctx *c, const mmd__walk *w) {
    static const char *const names[] = {"Add", "Sub", "Mul", "Div"};
    int32_t last = w->rank - 1, i;
    if (c->inputs[0]->dtype != MMD_DTYPE_FLOAT32 || c->inputs[1]->dtype != MMD_DTYPE_FLOAT32) return MMD__BIN_NONE;
    if (w->strides[0][last] != 1 || (w->strides[1][last] | w->strides[2][last]) & ~(int64_t)1) return MMD__BIN_NONE;
    for (i = 0; i < 4; ++i)
        if (!strcmp(c->node->op_type, names[i])) return MMD__BIN_ADD + i;
    return MMD__BIN_NONE;
}

typedef struct mmd__binary_data {
    mmd__walk walk;
    mmd__row_fn row;
    int32_t op, isa;                    /* float32 Add, Sub, Mul, Div: MMD__BIN_*, mmd__isa() */
} mmd__binary_data;

/* Two inputs of dtypes `rows` takes, numpy broadcasting, the output dtype from the table. */
static mmd_status mmd__binary_prepare(mmd_kernel_ctx *c, const mmd__row_entry *rows) {
    mmd__binary_data *p = (mmd__binary_data *)c->op_data;
    const mmd__row_entry *e;
    const mmd_tensor *a, *b;
    int64_t dims[MMD_MAX_RANK];
    int32_t rank;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st != MMD_OK) return st;
    a = c->inputs[0];
    b = c->inputs[1];
    if ((st = mmd__row_find(c, rows, a, b, &e)) != MMD_OK) return st;
    st = mmd__broadcast_shape(c, a->rank, a->dims, b->rank, b->dims, &rank, dims);
    if (st == MMD_OK) st = mmd__set_output(c, 0, e->out_dtype, rank, dims);
    if (st != MMD_OK) return st;
    mmd__walk_binary(&p->walk, rank, dims, a, b, mmd_dtype_size(e->out_dtype));
    p->row = e->row;
    p->op = mmd__bin_f32_op(c, &p->walk);
    p->isa = mmd__isa();
    return MMD_OK;
}

/* Add, Sub, Mul, Div, Pow, the comparisons and the logic ops: rows from mmd__ew_ops. */
static mmd_status mmd__binary_any_prepare(mmd_kernel_ctx *c) {
    const mmd__ew_op *m = NULL;
    mmd_status st = mmd__ew_op_find(c, &m);
    return st != MMD_OK ? st : mmd__binary_prepare(c, m->rows);
}

/* Float32 Add, Sub, Mul and Div take the vector rows, split over the threads by rows (by
   elements when the walk is one row); everything else walks the generic rows. */
static mmd_status mmd__binary_eval(mmd_kernel_ctx *c) {
    const mmd__binary_data *p = (const mmd__binary_data *)c->op_data;
    mmd_status st;
    if (p->op != MMD__BIN_NONE) {
        const mmd__walk *w = &p->walk;
        int64_t inner = w->dims[w->rank - 1], rows = 1;
        int32_t d;
        mmd__bin_job j;
        if (mmd__walk_empty(w)) return MMD_OK;
        for (d = 0; d < w->rank - 1; ++d) rows *= w->dims[d];
        j.w = w;
        j.op = p->op;
        j.isa = p->isa;
        j.o = (float *)c->outputs[0]->data;
        j.a = (const float *)c->inputs[0]->data;
        j.b = (const float *)c->inputs[1]->data;
        if (w->rank == 1) mmd__parallel_range(c, inner, MMD__EW_GRAIN, 64, INT32_MAX, mmd__bin_range, &j);
        else mmd__parallel_range(c, rows, MMD__EW_GRAIN / inner, 1, INT32_MAX, mmd__bin_range, &j);
        return MMD_OK;
    }
    st = mmd__walk_run(&p->walk, c->outputs[0]->data, c->inputs[0]->data,
                                  c->inputs[1]->data, p->row);
    if (st != MMD_OK) return mmd_kernel_fail(c, st, "integer division by zero");
    return MMD_OK;
}

/* PRelu broadcasts slope to X one way only: the output must keep X's shape. */
static mmd_status mmd__prelu_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x, *y;
    int32_t i, same;
    mmd_status st = mmd__binary_prepare(c, mmd__prelu_rows);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    y = c->outputs[0];
    same = x->rank == y->rank;
    for (i = 0; same && i < x->rank; ++i) same = x->dims[i] == y->dims[i];
    if (!same) {
        char tx[96], ts[96];
        const mmd_tensor *s = c->inputs[1];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "slope %s does not broadcast to X %s without growing it",
                               mmd__dims_text(ts, sizeof ts, s->rank, s->dims),
                               mmd__dims_text(tx, sizeof tx, x->rank, x->dims));
    }
    return MMD_OK;
}

static mmd_status mmd__mod_any_prepare(mmd_kernel_ctx *c) {
    int64_t fmod_attr = 0;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "fmod", 0, &fmod_attr);
    if (st != MMD_OK) return st;
    if (fmod_attr != 0 && fmod_attr != 1)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "fmod is %lld, expects 0 or 1", (long long)fmod_attr);
    if (!fmod_attr && mmd__cast_kind(c->inputs[0]->dtype) == 1)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "fmod = 0 is for integers; %s inputs need fmod = 1",
                               mmd_dtype_name(c->inputs[0]->dtype));
    return mmd__binary_prepare(c, fmod_attr ? mmd__fmod_rows : mmd__mod_rows);
}

/* ---- Where -------------------------------------------------------------------------------- */

typedef struct mmd__where_data {
    mmd__walk then_walk, else_walk;     /* (output, condition, X) and (output, condition, Y) */
    mmd__row_fn then_row, else_row;
} mmd__where_data;

static mmd_status mmd__where_any_prepare(mmd_kernel_ctx *c) {
    mmd__where_data *p = (mmd__where_data *)c->op_data;
    const mmd_tensor *cond, *x, *y;
    int64_t cx[MMD_MAX_RANK], dims[MMD_MAX_RANK];
    int32_t cx_rank, rank;
    size_t size;
    mmd_status st = mmd__check_io(c, 3, 3, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_BOOL);
    if (st == MMD_OK) st = mmd__want_dtype(c, 2, c->inputs[1]->dtype);
    if (st != MMD_OK) return st;
    cond = c->inputs[0];
    x = c->inputs[1];
    y = c->inputs[2];
    size = mmd_dtype_size(x->dtype);
    switch (size) {
    case 1: p->then_row = mmd__where_then_8_row; p->else_row = mmd__where_else_8_row; break;
    case 2: p->then_row = mmd__where_then_16_row; p->else_row = mmd__where_else_16_row; break;
    case 4: p->then_row = mmd__where_then_32_row; p->else_row = mmd__where_else_32_row; break;
    case 8: p->then_row = mmd__where_then_64_row; p->else_row = mmd__where_else_64_row; break;
    default:
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "X '%s' is %s, which Where does not take",
                               x->name ? x->name : "", mmd_dtype_name(x->dtype));
    }
    st = mmd__broadcast_shape(c, cond->rank, cond->dims, x->rank, x->dims, &cx_rank, cx);
    if (st == MMD_OK) st = mmd__broadcast_shape(c, cx_rank, cx, y->rank, y->dims, &rank, dims);
    if (st == MMD_OK) st = mmd__set_output(c, 0, x->dtype, rank, dims);
    if (st != MMD_OK) return st;
    mmd__walk_binary(&p->then_walk, rank, dims, cond, x, size);
    mmd__walk_binary(&p->else_walk, rank, dims, cond, y, size);
    return MMD_OK;
}

/* Each output element is written by exactly one of the two passes. */
static mmd_status mmd__where_any_eval(mmd_kernel_ctx *c) {
    const mmd__where_data *p = (const mmd__where_data *)c->op_data;
    void *out = c->outputs[0]->data;
    const void *cond = c->inputs[0]->data;
    mmd_status st = mmd__walk_run(&p->then_walk, out, cond, c->inputs[1]->data, p->then_row);
    return st != MMD_OK ? st : mmd__walk_run(&p->else_walk, out, cond, c->inputs[2]->data, p->else_row);
}

/* ---- Max, Min, Sum, Mean ------------------------------------------------------------------ */

typedef struct mmd__variadic_data {
    mmd__row_fn row;
    int32_t mean;                       /* 1: divide by the input count at the end */
} mmd__variadic_data;

/* One or more inputs of one dtype, broadcast together; rows from mmd__ew_ops, as for a binary
   op. Before opset 8 the inputs had to have equal shapes, which broadcasting serves as well. */
static mmd_status mmd__variadic_any_prepare(mmd_kernel_ctx *c) {
    mmd__variadic_data *p = (mmd__variadic_data *)c->op_data;
    const mmd__ew_op *m = NULL;
    const mmd__row_entry *e;
    const mmd_tensor *x;
    int64_t dims[MMD_MAX_RANK], prev[MMD_MAX_RANK];
    int32_t rank, i;
    mmd_status st = mmd__ew_op_find(c, &m);
    /* Every input is required: an absent one would have nothing to contribute. */
    if (st == MMD_OK) st = mmd__check_io(c, c->input_count > 1 ? c->input_count : 1, INT32_MAX, 1);
    if (st == MMD_OK) st = mmd__row_find(c, m->rows, c->inputs[0], c->inputs[0], &e);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    rank = x->rank;
    for (i = 0; i < rank; ++i) dims[i] = x->dims[i];
    for (i = 1; i < c->input_count; ++i) {
        const mmd_tensor *t = c->inputs[i];
        int32_t r = rank, d;
        if ((st = mmd__want_dtype(c, i, x->dtype)) != MMD_OK) return st;
        for (d = 0; d < r; ++d) prev[d] = dims[d];
        if ((st = mmd__broadcast_shape(c, r, prev, t->rank, t->dims, &rank, dims)) != MMD_OK) return st;
    }
    p->row = e->row;
    p->mean = m->rows == mmd__mean_rows;
    return mmd__set_output(c, 0, e->out_dtype, rank, dims);
}

/* Input 0 meets input 1 into the output, then each further input meets the output in place
   (operands 0 and 1 are then the same elements at the same strides). The walks are built
   here from the shapes prepare checked, as their number is the node's input count. */
static mmd_status mmd__variadic_any_eval(mmd_kernel_ctx *c) {
    const mmd__variadic_data *p = (const mmd__variadic_data *)c->op_data;
    mmd_tensor *y = c->outputs[0];
    size_t elem = mmd_dtype_size(y->dtype);
    int64_t n = mmd_tensor_numel(y), i;
    int32_t k;
    if (c->input_count == 1 && n) memcpy(y->data, c->inputs[0]->data, (size_t)n * elem);
    for (k = 1; k < c->input_count; ++k) {
        const mmd_tensor *a = k == 1 ? c->inputs[0] : y;
        mmd__walk w;
        mmd_status st;
        mmd__walk_binary(&w, y->rank, y->dims, a, c->inputs[k], elem);
        if ((st = mmd__walk_run(&w, y->data, a->data, c->inputs[k]->data, p->row)) != MMD_OK) return st;
    }
    if (p->mean) {
        float *v = (float *)y->data, count = (float)c->input_count;
        for (i = 0; i < n; ++i) v[i] /= count;
    }
    return MMD_OK;
}

/* ---- Cast, CastLike ----------------------------------------------------------------------- */

typedef struct mmd__cast_data {
    int32_t from, to;
} mmd__cast_data;

/* Input 0 cast to dtype `to` (Cast's attribute, CastLike's input 1 dtype) between the float,
   integer and bool dtypes: checks both, records them for eval and sets output 0. */
static mmd_status mmd__cast_to(mmd_kernel_ctx *c, int64_t to) {
    mmd__cast_data *p = (mmd__cast_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    if (!mmd__cast_kind(x->dtype))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "cannot cast from %s", mmd_dtype_name(x->dtype));
    if (to < 0 || to > 64 || !mmd__cast_kind((int32_t)to))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "cannot cast to dtype %lld (%s)", (long long)to,
                               mmd_dtype_name((int32_t)(to < 0 || to > 64 ? 0 : to)));
    p->from = x->dtype;
    p->to = (int32_t)to;
    return mmd__set_output(c, 0, p->to, x->rank, x->dims);
}

/* Cast from opset 6, where `to` became an int. */
static mmd_status mmd__cast_prepare(mmd_kernel_ctx *c) {
    int64_t to;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "to", MMD_DTYPE_UNDEFINED, &to);
    return st != MMD_OK ? st : mmd__cast_to(c, to);
}

/* CastLike casts to the dtype of input 1, whose values are never read. */
static mmd_status mmd__cast_like_any_prepare(mmd_kernel_ctx *c) {
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    return st != MMD_OK ? st : mmd__cast_to(c, c->inputs[1]->dtype);
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

static int64_t mmd__clamp_i64(int64_t v, int64_t lo, int64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
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

/* Output elements [lo, hi) of a Concat: each output row (all inputs' blocks for one index of
   the axes before `axis`) is the inputs' blocks one after another. */
static void mmd__concat_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd_kernel_ctx *c = (const mmd_kernel_ctx *)data;
    const mmd__axis_data *p = (const mmd__axis_data *)c->op_data;
    const mmd_tensor *out = c->outputs[0];
    size_t elem = mmd_dtype_size(out->dtype);
    int64_t inner = mmd__dims_product(out, p->axis + 1, out->rank), row = out->dims[p->axis] * inner;
    int64_t o = lo / row, at = lo % row, start = 0, block, take;
    int32_t i = 0;
    (void)share;
    while (lo < hi) {
        const mmd_tensor *t = c->inputs[i];
        block = mmd__concat_skips(t, out->rank) ? 0 : t->dims[p->axis] * inner;
        if (at < start + block) {
            /* From element at - start of input i's block in row o. */
            take = start + block - at < hi - lo ? start + block - at : hi - lo;
            memcpy((uint8_t *)out->data + (size_t)lo * elem, (const uint8_t *)t->data + (size_t)(o * block + at - start) * elem,
                   (size_t)take * elem);
            lo += take;
            at += take;
        }
        start += block;
        if (++i == c->input_count) i = 0, start = 0, at = 0, ++o;
    }
}

static mmd_status mmd__concat_any_eval(mmd_kernel_ctx *c) {
    int64_t n = mmd_tensor_numel(c->outputs[0]);
    /* Copies of at least MMD__EW_GRAIN elements per thread, else all on the calling thread. */
    if (n > 0) mmd__parallel_range(c, n, MMD__EW_GRAIN, 64, INT32_MAX, mmd__concat_range, c);
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
    for (j = 0; j < n; ++j)
        if (mmd__index_wrap(v = mmd__load_int(idx->dtype, idx->data, j), size) < 0)
            return mmd__index_fail(c, v, j, size);
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
    if (st == MMD_OK) st = mmd__want_indices(c, 1);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    idx = c->inputs[1];
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
            v = mmd__index_wrap(mmd__load_int(idx->dtype, idx->data, j), size);
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
        if (!a->t) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute 'value' holds no tensor");
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

/* ==== >>ops indexing ==== */
/* Indexing and data movement: GatherElements, GatherND, ScatterElements (and opset 9's
   Scatter), ScatterND, NonZero, Compress, OneHot, Range, Tile, Pad, Trilu, EyeLike,
   DepthToSpace, SpaceToDepth.
   Data tensors of any dtype with an element size are moved as bytes; only the scatter
   reductions, OneHot's indices and depth, NonZero's test and Range look at values, through the
   cast helpers. Indices are int32 or int64 and wrap from the back as the specs say; an index
   out of range makes eval fail with MMD_ERR_INDEX naming the value and its element.
   NonZero and Compress have data-dependent output shapes: prepare sets an upper bound and
   marks the output dynamic, eval writes the real dims. */

/* ---- helpers ------------------------------------------------------------------------------- */

/* 1 for dtypes whose values the cast helpers read: Cast's set plus uint64, which they read
   as the same 64 bits. */
static int32_t mmd__index_numeric(int32_t dtype) {
    return mmd__cast_kind(dtype) != 0 || dtype == MMD_DTYPE_UINT64;
}

/* Element i of a numeric tensor as an integer; floats truncate toward zero and saturate (NaN
   gives 0), as the specs that accept float indices ask ("casted to int64"). */
static int64_t mmd__index_value(int32_t dtype, const void *p, int64_t i) {
    if (mmd__cast_kind(dtype) != 1) return mmd__load_int(dtype, p, i);
    return mmd__f64_to_i64(mmd__load_float(dtype, p, i));
}

/* Copies element si of src to element di of dst; typed moves for the common sizes because a
   memcpy of a run-time size is a library call per element. */
static void mmd__index_copy(void *dst, int64_t di, const void *src, int64_t si, size_t elem) {
    switch (elem) {
    case 1: ((uint8_t *)dst)[di] = ((const uint8_t *)src)[si]; break;
    case 2: ((uint16_t *)dst)[di] = ((const uint16_t *)src)[si]; break;
    case 4: ((uint32_t *)dst)[di] = ((const uint32_t *)src)[si]; break;
    case 8: ((uint64_t *)dst)[di] = ((const uint64_t *)src)[si]; break;
    default: memcpy((uint8_t *)dst + (size_t)di * elem, (const uint8_t *)src + (size_t)si * elem, elem);
    }
}

/* Advances the row-major position pos over dims (the last axis fastest) and, when strides is
   not NULL, *off with it; axis `skip` (or -1 for none) moves pos but adds nothing to *off. */
static void mmd__index_next(int32_t rank, const int64_t *dims, int64_t *pos, const int64_t *strides,
                            int32_t skip, int64_t *off) {
    int32_t d;
    for (d = rank - 1; d >= 0; --d) {
        int64_t s = !strides || d == skip ? 0 : strides[d];
        if (s) *off += s;
        if (++pos[d] < dims[d]) return;
        if (s) *off -= s * dims[d];
        pos[d] = 0;
    }
}

/* ---- scatter reductions ---------------------------------------------------------------- */

enum { MMD__SCATTER_NONE, MMD__SCATTER_ADD, MMD__SCATTER_MUL, MMD__SCATTER_MAX, MMD__SCATTER_MIN };

/* The `reduction` attribute: add and mul exist from opset 16, max and min from 18. */
static mmd_status mmd__scatter_reduction(mmd_kernel_ctx *c, int32_t dtype, int32_t *out) {
    static const char *const names[] = {"none", "add", "mul", "max", "min", NULL};
    static const int32_t since[] = {1, 16, 16, 18, 18};
    mmd_status st = mmd__detect_pick(c, "reduction", "none", names, out);
    if (st != MMD_OK) return st;
    if (c->opset < since[*out])
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "reduction '%s' is not defined at opset %d",
                               names[*out], (int)c->opset);
    if (*out != MMD__SCATTER_NONE && !mmd__cast_kind(dtype))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "reduction '%s' on %s data is not supported", names[*out],
                               mmd_dtype_name(dtype));
    return MMD_OK;
}

/* dst[di] = src[si], or dst[di] combined with src[si] by the reduction. Floats combine in
   double, integers in int64 with add and mul wrapping (computed unsigned); bool goes through
   the integer path, so add is `or` and mul is `and`. */
static void mmd__scatter_apply(int32_t op, int32_t dtype, void *dst, int64_t di, const void *src,
                               int64_t si, size_t elem) {
    if (op == MMD__SCATTER_NONE) {
        mmd__index_copy(dst, di, src, si, elem);
    } else if (mmd__cast_kind(dtype) == 1) {
        double a = mmd__load_float(dtype, dst, di), b = mmd__load_float(dtype, src, si);
        double r = op == MMD__SCATTER_ADD ? a + b : op == MMD__SCATTER_MUL ? a * b
                 : op == MMD__SCATTER_MAX ? (a > b ? a : b) : (a < b ? a : b);
        mmd__store_float(dtype, dst, di, r);
    } else {
        int64_t a = mmd__load_int(dtype, dst, di), b = mmd__load_int(dtype, src, si);
        int64_t r = op == MMD__SCATTER_ADD ? (int64_t)((uint64_t)a + (uint64_t)b)
                  : op == MMD__SCATTER_MUL ? (int64_t)((uint64_t)a * (uint64_t)b)
                  : op == MMD__SCATTER_MAX ? (a > b ? a : b) : (a < b ? a : b);
        mmd__store_int(dtype, dst, di, r);
    }
}

/* ---- GatherElements, ScatterElements, Scatter ----------------------------------------- */

typedef struct mmd__elements_data {
    int32_t axis;
    int32_t reduction;
} mmd__elements_data;

/* Shared checks: data (input 0) and indices (input 1) of one rank >= 1, the indices no larger
   than data on every axis but `axis` (their values pick along that one). */
static mmd_status mmd__elements_check(mmd_kernel_ctx *c, mmd__elements_data *p) {
    const mmd_tensor *x = c->inputs[0], *idx = c->inputs[1];
    int64_t axis;
    int32_t d;
    mmd_status st;
    if ((st = mmd__want_sized(c, c->inputs[0], "data")) != MMD_OK ||
        (st = mmd__want_indices(c, 1)) != MMD_OK ||
        (st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK)) != MMD_OK ||
        (st = mmd_attr_get_int(c, "axis", 0, &axis)) != MMD_OK ||
        (st = mmd__norm_axis(c, axis, x->rank, &p->axis)) != MMD_OK)
        return st;
    if (idx->rank != x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "indices have rank %d, data has rank %d",
                               (int)idx->rank, (int)x->rank);
    for (d = 0; d < x->rank; ++d)
        if (d != p->axis && idx->dims[d] > x->dims[d]) {
            char ti[96], tx[96];
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "indices %s exceed data %s on axis %d",
                                   mmd__dims_text(ti, sizeof ti, idx->rank, idx->dims),
                                   mmd__dims_text(tx, sizeof tx, x->rank, x->dims), (int)d);
        }
    return MMD_OK;
}

static mmd_status mmd__gather_elements_any_prepare(mmd_kernel_ctx *c) {
    mmd__elements_data *p = (mmd__elements_data *)c->op_data;
    mmd_status st;
    if ((st = mmd__check_io(c, 2, 2, 1)) != MMD_OK || (st = mmd__elements_check(c, p)) != MMD_OK)
        return st;
    return mmd__set_output(c, 0, c->inputs[0]->dtype, c->inputs[1]->rank, c->inputs[1]->dims);
}

/* The indices are walked in order; off is the data offset of the current position without the
   axis term, which the index value supplies. */
static mmd_status mmd__gather_elements_any_eval(mmd_kernel_ctx *c) {
    const mmd__elements_data *p = (const mmd__elements_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *idx = c->inputs[1];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t xs[MMD_MAX_RANK], pos[MMD_MAX_RANK] = {0}, off = 0, n = mmd_tensor_numel(idx), j;
    int64_t size = x->dims[p->axis];
    mmd__broadcast_strides(x->rank, x->dims, x->rank, xs);
    for (j = 0; j < n; ++j) {
        int64_t v = mmd__load_int(idx->dtype, idx->data, j), w = mmd__index_wrap(v, size);
        if (w < 0) return mmd__index_fail(c, v, j, size);
        mmd__index_copy(c->outputs[0]->data, j, x->data, off + w * xs[p->axis], elem);
        mmd__index_next(idx->rank, idx->dims, pos, xs, p->axis, &off);
    }
    return MMD_OK;
}

/* ScatterElements, and Scatter (opset 9 and 10, its earlier name without reductions). */
static mmd_status mmd__scatter_elements_any_prepare(mmd_kernel_ctx *c) {
    mmd__elements_data *p = (mmd__elements_data *)c->op_data;
    const mmd_tensor *x, *idx, *u;
    int32_t d, same;
    mmd_status st;
    if ((st = mmd__check_io(c, 3, 3, 1)) != MMD_OK || (st = mmd__elements_check(c, p)) != MMD_OK)
        return st;
    x = c->inputs[0];
    idx = c->inputs[1];
    u = c->inputs[2];
    if ((st = mmd__want_dtype(c, 2, x->dtype)) != MMD_OK ||
        (st = mmd__scatter_reduction(c, x->dtype, &p->reduction)) != MMD_OK)
        return st;
    same = u->rank == idx->rank;
    for (d = 0; same && d < u->rank; ++d) same = u->dims[d] == idx->dims[d];
    if (!same) {
        char tu[96], ti[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "updates %s differ from indices %s",
                               mmd__dims_text(tu, sizeof tu, u->rank, u->dims),
                               mmd__dims_text(ti, sizeof ti, idx->rank, idx->dims));
    }
    return mmd__set_output(c, 0, x->dtype, x->rank, x->dims);
}

static mmd_status mmd__scatter_elements_any_eval(mmd_kernel_ctx *c) {
    const mmd__elements_data *p = (const mmd__elements_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *idx = c->inputs[1], *u = c->inputs[2];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t xs[MMD_MAX_RANK], pos[MMD_MAX_RANK] = {0}, off = 0, n = mmd_tensor_numel(idx), j;
    int64_t size = x->dims[p->axis];
    mmd__copy_tensor(c->inputs[0], c->outputs[0]);
    mmd__broadcast_strides(x->rank, x->dims, x->rank, xs);
    for (j = 0; j < n; ++j) {
        int64_t v = mmd__load_int(idx->dtype, idx->data, j), w = mmd__index_wrap(v, size);
        if (w < 0) return mmd__index_fail(c, v, j, size);
        mmd__scatter_apply(p->reduction, x->dtype, c->outputs[0]->data, off + w * xs[p->axis],
                           u->data, j, elem);
        mmd__index_next(idx->rank, idx->dims, pos, xs, p->axis, &off);
    }
    return MMD_OK;
}

/* ---- GatherND, ScatterND --------------------------------------------------------------- */

typedef struct mmd__nd_data {
    int32_t batch_dims;              /* GatherND */
    int32_t reduction;               /* ScatterND */
} mmd__nd_data;

/* Data offset (in elements) of index tuple t, whose k values pick along data axes [first,
   first + k). */
static mmd_status mmd__nd_offset(mmd_kernel_ctx *c, const mmd_tensor *idx, int64_t t, int32_t k,
                                 const mmd_tensor *x, const int64_t *xs, int32_t first, int64_t *off) {
    int32_t j;
    for (j = 0; j < k; ++j) {
        int64_t v = mmd__load_int(idx->dtype, idx->data, t * k + j);
        int64_t w = mmd__index_wrap(v, x->dims[first + j]);
        if (w < 0) return mmd__index_fail(c, v, t * k + j, x->dims[first + j]);
        *off += w * xs[first + j];
    }
    return MMD_OK;
}

/* Output: the indices' dims without the last, then data's dims past the batch and the k
   indexed axes. The batch dims of data and indices must agree. */
static mmd_status mmd__gather_nd_any_prepare(mmd_kernel_ctx *c) {
    mmd__nd_data *p = (mmd__nd_data *)c->op_data;
    const mmd_tensor *x, *idx;
    int64_t b, k, dims[2 * MMD_MAX_RANK];
    int32_t d, n = 0;
    mmd_status st;
    if ((st = mmd__check_io(c, 2, 2, 1)) != MMD_OK || (st = mmd__want_sized(c, c->inputs[0], "data")) != MMD_OK ||
        (st = mmd__want_indices(c, 1)) != MMD_OK ||
        (st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK)) != MMD_OK ||
        (st = mmd__want_rank(c, 1, 1, MMD_MAX_RANK)) != MMD_OK ||
        (st = mmd_attr_get_int(c, "batch_dims", 0, &b)) != MMD_OK)
        return st;
    x = c->inputs[0];
    idx = c->inputs[1];
    if (b < 0 || b >= x->rank || b >= idx->rank)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "batch_dims %lld must be in [0, %d)",
                               (long long)b, (int)(x->rank < idx->rank ? x->rank : idx->rank));
    k = idx->dims[idx->rank - 1];
    if (k < 1 || k > x->rank - b)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "the indices' last dim is %lld, expects 1 to %lld",
                               (long long)k, (long long)(x->rank - b));
    for (d = 0; d < b; ++d)
        if (idx->dims[d] != x->dims[d])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "batch dim %d is %lld in indices but %lld in data",
                                   (int)d, (long long)idx->dims[d], (long long)x->dims[d]);
    p->batch_dims = (int32_t)b;
    for (d = 0; d < idx->rank - 1; ++d) dims[n++] = idx->dims[d];
    for (d = (int32_t)(b + k); d < x->rank; ++d) dims[n++] = x->dims[d];
    return mmd__set_output(c, 0, x->dtype, n, dims);
}

static mmd_status mmd__gather_nd_any_eval(mmd_kernel_ctx *c) {
    const mmd__nd_data *p = (const mmd__nd_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *idx = c->inputs[1];
    int32_t b = p->batch_dims, k = (int32_t)idx->dims[idx->rank - 1];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t xs[MMD_MAX_RANK], batches = mmd__dims_product(x, 0, b);
    int64_t tuples = mmd__dims_product(idx, b, idx->rank - 1);
    int64_t slice = mmd__dims_product(x, b + k, x->rank), per_batch = mmd__dims_product(x, b, x->rank), bi, t;
    size_t bytes = (size_t)slice * elem;
    uint8_t *y = (uint8_t *)c->outputs[0]->data;
    mmd_status st;
    mmd__broadcast_strides(x->rank, x->dims, x->rank, xs);
    for (bi = 0; bi < batches; ++bi)
        for (t = 0; t < tuples; ++t) {
            int64_t off = bi * per_batch;
            if ((st = mmd__nd_offset(c, idx, bi * tuples + t, k, x, xs, b, &off)) != MMD_OK) return st;
            if (bytes) memcpy(y, (const uint8_t *)x->data + (size_t)off * elem, bytes);
            y += bytes;
        }
    return MMD_OK;
}

/* updates must have the shape indices.shape[:-1] ++ data.shape[k:]. */
static mmd_status mmd__scatter_nd_any_prepare(mmd_kernel_ctx *c) {
    mmd__nd_data *p = (mmd__nd_data *)c->op_data;
    const mmd_tensor *x, *idx, *u;
    int64_t k, want[2 * MMD_MAX_RANK];
    int32_t d, n = 0, same;
    mmd_status st;
    if ((st = mmd__check_io(c, 3, 3, 1)) != MMD_OK || (st = mmd__want_sized(c, c->inputs[0], "data")) != MMD_OK ||
        (st = mmd__want_indices(c, 1)) != MMD_OK ||
        (st = mmd__want_dtype(c, 2, c->inputs[0]->dtype)) != MMD_OK ||
        (st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK)) != MMD_OK ||
        (st = mmd__want_rank(c, 1, 1, MMD_MAX_RANK)) != MMD_OK ||
        (st = mmd__scatter_reduction(c, c->inputs[0]->dtype, &p->reduction)) != MMD_OK)
        return st;
    x = c->inputs[0];
    idx = c->inputs[1];
    u = c->inputs[2];
    k = idx->dims[idx->rank - 1];
    if (k < 1 || k > x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "the indices' last dim is %lld, expects 1 to %d",
                               (long long)k, (int)x->rank);
    for (d = 0; d < idx->rank - 1; ++d) want[n++] = idx->dims[d];
    for (d = (int32_t)k; d < x->rank; ++d) want[n++] = x->dims[d];
    same = u->rank == n;
    for (d = 0; same && d < n; ++d) same = u->dims[d] == want[d];
    if (!same) {
        char tu[96], tw[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "updates are %s, expects %s",
                               mmd__dims_text(tu, sizeof tu, u->rank, u->dims),
                               mmd__dims_text(tw, sizeof tw, n, want));
    }
    return mmd__set_output(c, 0, x->dtype, x->rank, x->dims);
}

static mmd_status mmd__scatter_nd_any_eval(mmd_kernel_ctx *c) {
    const mmd__nd_data *p = (const mmd__nd_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *idx = c->inputs[1], *u = c->inputs[2];
    int32_t k = (int32_t)idx->dims[idx->rank - 1];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t xs[MMD_MAX_RANK], tuples = mmd__dims_product(idx, 0, idx->rank - 1);
    int64_t slice = mmd__dims_product(x, k, x->rank), t, e;
    mmd_status st;
    mmd__copy_tensor(c->inputs[0], c->outputs[0]);
    mmd__broadcast_strides(x->rank, x->dims, x->rank, xs);
    for (t = 0; t < tuples; ++t) {
        int64_t off = 0;
        if ((st = mmd__nd_offset(c, idx, t, k, x, xs, 0, &off)) != MMD_OK) return st;
        if (p->reduction == MMD__SCATTER_NONE) {
            if (slice)
                memcpy((uint8_t *)c->outputs[0]->data + (size_t)off * elem,
                       (const uint8_t *)u->data + (size_t)(t * slice) * elem, (size_t)slice * elem);
            continue;
        }
        for (e = 0; e < slice; ++e)
            mmd__scatter_apply(p->reduction, x->dtype, c->outputs[0]->data, off + e, u->data,
                               t * slice + e, elem);
    }
    return MMD_OK;
}

/* ---- NonZero, Compress: data-dependent shapes ----------------------------------------- */

/* 1 when element i is not zero; -0.0 is zero, NaN is not. */
static int32_t mmd__index_nonzero(int32_t dtype, const void *p, int64_t i) {
    if (mmd__cast_kind(dtype) == 1) return mmd__load_float(dtype, p, i) != 0.0;
    return mmd__load_int(dtype, p, i) != 0;
}

/* Output (rank, nnz) int64, planned as (rank, numel). A scalar gives (0, nnz), as the spec
   says (numpy would give (1, nnz)). */
static mmd_status mmd__non_zero_any_prepare(mmd_kernel_ctx *c) {
    int64_t dims[2];
    mmd_status st;
    if ((st = mmd__check_io(c, 1, 1, 1)) != MMD_OK) return st;
    if (!mmd__index_numeric(c->inputs[0]->dtype))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input 0 is %s, expects a numeric or bool tensor",
                               mmd_dtype_name(c->inputs[0]->dtype));
    dims[0] = c->inputs[0]->rank;
    dims[1] = mmd_tensor_numel(c->inputs[0]);
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_INT64, 2, dims)) != MMD_OK) return st;
    c->outputs[0]->dynamic = 1;
    return MMD_OK;
}

/* Two passes: the count fixes the row length, then the coordinates go in row by row. */
static mmd_status mmd__non_zero_any_eval(mmd_kernel_ctx *c) {
    const mmd_tensor *x = c->inputs[0];
    int64_t *y = (int64_t *)c->outputs[0]->data;
    int64_t n = mmd_tensor_numel(x), nnz = 0, i, j = 0, pos[MMD_MAX_RANK] = {0};
    int32_t d;
    for (i = 0; i < n; ++i) nnz += mmd__index_nonzero(x->dtype, x->data, i);
    for (i = 0; i < n; ++i) {
        if (mmd__index_nonzero(x->dtype, x->data, i)) {
            for (d = 0; d < x->rank; ++d) y[d * nnz + j] = pos[d];
            ++j;
        }
        mmd__index_next(x->rank, x->dims, pos, NULL, -1, NULL);
    }
    c->outputs[0]->dims[1] = nnz;
    return MMD_OK;
}

typedef struct mmd__compress_data {
    int32_t axis;                    /* -1: no axis, the input is flattened */
} mmd__compress_data;

/* The output keeps the input's shape with the axis planned at its full size (or the element
   count without an axis); eval sets the real count of true conditions. */
static mmd_status mmd__compress_any_prepare(mmd_kernel_ctx *c) {
    mmd__compress_data *p = (mmd__compress_data *)c->op_data;
    const mmd_tensor *x;
    int64_t axis, numel;
    mmd_status st;
    if ((st = mmd__check_io(c, 2, 2, 1)) != MMD_OK || (st = mmd__want_sized(c, c->inputs[0], "data")) != MMD_OK ||
        (st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK)) != MMD_OK ||
        (st = mmd__want_dtype(c, 1, MMD_DTYPE_BOOL)) != MMD_OK ||
        (st = mmd__want_rank(c, 1, 1, 1)) != MMD_OK)
        return st;
    x = c->inputs[0];
    p->axis = -1;
    if (mmd_node_attr(c->node, "axis")) {
        if ((st = mmd_attr_get_int(c, "axis", 0, &axis)) != MMD_OK ||
            (st = mmd__norm_axis(c, axis, x->rank, &p->axis)) != MMD_OK)
            return st;
        st = mmd__set_output(c, 0, x->dtype, x->rank, x->dims);
    } else {
        numel = mmd_tensor_numel(x);
        st = mmd__set_output(c, 0, x->dtype, 1, &numel);
    }
    if (st == MMD_OK) c->outputs[0]->dynamic = 1;
    return st;
}

/* Condition entries past the axis (or the element count) must be false: numpy fails on a
   true one there, and so does this, with MMD_ERR_INDEX. */
static mmd_status mmd__compress_any_eval(mmd_kernel_ctx *c) {
    const mmd__compress_data *p = (const mmd__compress_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    const uint8_t *cond = (const uint8_t *)c->inputs[1]->data;
    mmd_tensor *y = c->outputs[0];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t size = p->axis < 0 ? mmd_tensor_numel(x) : x->dims[p->axis];
    int64_t len = c->inputs[1]->dims[0], count = 0, i, o;
    int64_t outer = p->axis < 0 ? 1 : mmd__dims_product(x, 0, p->axis);
    size_t block = p->axis < 0 ? elem : (size_t)mmd__dims_product(x, p->axis + 1, x->rank) * elem;
    uint8_t *dst = (uint8_t *)y->data;
    for (i = 0; i < len; ++i) {
        if (!cond[i]) continue;
        if (i >= size)
            return mmd_kernel_fail(c, MMD_ERR_INDEX, "condition element %lld is true but the axis "
                                   "has only %lld entries", (long long)i, (long long)size);
        ++count;
    }
    if (len > size) len = size;
    for (o = 0; o < outer; ++o)
        for (i = 0; i < len; ++i)
            if (cond[i] && block) {
                memcpy(dst, (const uint8_t *)x->data + (size_t)(o * size + i) * block, block);
                dst += block;
            }
    y->dims[p->axis < 0 ? 0 : p->axis] = count;
    return MMD_OK;
}

/* ---- OneHot ------------------------------------------------------------------------------ */

typedef struct mmd__one_hot_data {
    int32_t axis;                    /* of the output */
    int64_t depth;
} mmd__one_hot_data;

/* depth (input 1) sets the output shape, so it must be known at prepare. */
static mmd_status mmd__one_hot_any_prepare(mmd_kernel_ctx *c) {
    mmd__one_hot_data *p = (mmd__one_hot_data *)c->op_data;
    const mmd_tensor *idx, *depth, *values;
    int64_t axis, dims[MMD_MAX_RANK];
    int32_t d, n = 0;
    mmd_status st;
    if ((st = mmd__check_io(c, 3, 3, 1)) != MMD_OK || (st = mmd__want_sized(c, c->inputs[2], "values")) != MMD_OK ||
        (st = mmd__want_out_rank(c, (int64_t)c->inputs[0]->rank + 1)) != MMD_OK ||
        (st = mmd__want_rank(c, 2, 1, 1)) != MMD_OK ||
        (st = mmd_attr_get_int(c, "axis", -1, &axis)) != MMD_OK)
        return st;
    idx = c->inputs[0];
    depth = c->inputs[1];
    values = c->inputs[2];
    if (!mmd__index_numeric(idx->dtype) || !mmd__index_numeric(depth->dtype))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "indices (%s) and depth (%s) must be numeric",
                               mmd_dtype_name(idx->dtype), mmd_dtype_name(depth->dtype));
    if (values->dims[0] != 2)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "values has %lld elements, expects 2 (off, on)",
                               (long long)values->dims[0]);
    if (mmd_tensor_numel(depth) != 1)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "depth has %lld elements, expects 1",
                               (long long)mmd_tensor_numel(depth));
    if ((st = mmd__want_known(c, 1, "depth")) != MMD_OK) return st;
    p->depth = mmd__index_value(depth->dtype, depth->data, 0);
    if (p->depth < 0 || p->depth > MMD__ELEMS_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "depth %lld is out of range",
                               (long long)p->depth);
    if ((st = mmd__norm_axis(c, axis, idx->rank + 1, &p->axis)) != MMD_OK) return st;
    for (d = 0; d <= idx->rank; ++d)
        dims[d] = d < p->axis ? idx->dims[d] : d == p->axis ? p->depth : idx->dims[d - 1];
    n = idx->rank + 1;
    return mmd__set_output(c, 0, values->dtype, n, dims);
}

/* Everything off, then one `on` per index. Before opset 11 negative indices are off too;
   from 11 they count from the back. */
static mmd_status mmd__one_hot_any_eval(mmd_kernel_ctx *c) {
    const mmd__one_hot_data *p = (const mmd__one_hot_data *)c->op_data;
    const mmd_tensor *idx = c->inputs[0], *values = c->inputs[2];
    void *y = c->outputs[0]->data;
    size_t elem = mmd_dtype_size(values->dtype);
    int64_t outer = mmd__dims_product(idx, 0, p->axis);
    int64_t inner = mmd__dims_product(idx, p->axis, idx->rank), o, i;
    mmd__fill(y, mmd_tensor_numel(c->outputs[0]), values->data, elem);
    for (o = 0; o < outer; ++o)
        for (i = 0; i < inner; ++i) {
            int64_t v = mmd__index_value(idx->dtype, idx->data, o * inner + i);
            v = c->opset < 11 && v < 0 ? -1 : mmd__index_wrap(v, p->depth);
            if (v >= 0) mmd__index_copy(y, (o * p->depth + v) * inner + i, values->data, 1, elem);
        }
    return MMD_OK;
}

/* ---- Range ------------------------------------------------------------------------------- */

/* The element count, max(ceil((limit - start) / delta), 0), needs all three values now. */
static mmd_status mmd__range_any_prepare(mmd_kernel_ctx *c) {
    static const char *const names[] = {"start", "limit", "delta"};
    int32_t dtype, i, missing = 0;
    int64_t count;
    char unknown[64];
    size_t len = 0;
    mmd_status st;
    if ((st = mmd__check_io(c, 3, 3, 1)) != MMD_OK) return st;
    dtype = c->inputs[0]->dtype;
    if (dtype != MMD_DTYPE_FLOAT32 && dtype != MMD_DTYPE_FLOAT64 && dtype != MMD_DTYPE_INT16 &&
        dtype != MMD_DTYPE_INT32 && dtype != MMD_DTYPE_INT64)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "start is %s, expects float32, float64, int16, "
                               "int32 or int64", mmd_dtype_name(dtype));
    unknown[0] = '\0';
    for (i = 0; i < 3; ++i) {
        const char *s = names[i];
        if ((st = mmd__want_dtype(c, i, dtype)) != MMD_OK) return st;
        if (mmd_tensor_numel(c->inputs[i]) != 1)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s has %lld elements, expects a scalar", s,
                                   (long long)mmd_tensor_numel(c->inputs[i]));
        if (mmd_tensor_is_const(c->inputs[i])) continue;
        if (len) {
            unknown[len++] = ',';
            unknown[len++] = ' ';
        }
        while (*s) unknown[len++] = *s++;
        unknown[len] = '\0';
        ++missing;
    }
    if (missing)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "%s %s not known at prepare time, and the "
                               "output size depends on %s", unknown, missing > 1 ? "are" : "is",
                               missing > 1 ? "their values" : "its value");
    if (mmd__cast_kind(dtype) == 1) {
        double start = mmd__load_float(dtype, c->inputs[0]->data, 0);
        double limit = mmd__load_float(dtype, c->inputs[1]->data, 0);
        double delta = mmd__load_float(dtype, c->inputs[2]->data, 0);
        double n = delta == 0.0 ? 0.0 : ceil((limit - start) / delta);
        if (delta == 0.0 || n != n || n > (double)MMD__ELEMS_MAX)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "range from %g to %g by %g has no "
                                   "bounded size", start, limit, delta);
        count = n > 0.0 ? (int64_t)n : 0;
    } else {
        int64_t start = mmd__load_int(dtype, c->inputs[0]->data, 0);
        int64_t limit = mmd__load_int(dtype, c->inputs[1]->data, 0);
        int64_t delta = mmd__load_int(dtype, c->inputs[2]->data, 0);
        uint64_t span, step, n;
        if (delta == 0)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "delta is 0");
        /* Unsigned differences cannot overflow once the direction is known to be right. */
        if ((delta > 0 && limit <= start) || (delta < 0 && limit >= start)) {
            n = 0;
        } else {
            span = delta > 0 ? (uint64_t)limit - (uint64_t)start : (uint64_t)start - (uint64_t)limit;
            step = delta > 0 ? (uint64_t)delta : (uint64_t)0 - (uint64_t)delta;
            n = span / step + (span % step != 0);
        }
        if (n > (uint64_t)MMD__ELEMS_MAX)
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "range from %lld to %lld by %lld has %llu "
                                   "elements", (long long)start, (long long)limit, (long long)delta,
                                   (unsigned long long)n);
        count = (int64_t)n;
    }
    return mmd__set_output(c, 0, dtype, 1, &count);
}

static mmd_status mmd__range_any_eval(mmd_kernel_ctx *c) {
    int32_t dtype = c->inputs[0]->dtype;
    int64_t n = c->outputs[0]->dims[0], i;
    void *y = c->outputs[0]->data;
    if (mmd__cast_kind(dtype) == 1) {
        double start = mmd__load_float(dtype, c->inputs[0]->data, 0);
        double delta = mmd__load_float(dtype, c->inputs[2]->data, 0);
        for (i = 0; i < n; ++i) mmd__store_float(dtype, y, i, start + (double)i * delta);
    } else {
        uint64_t start = (uint64_t)mmd__load_int(dtype, c->inputs[0]->data, 0);
        uint64_t delta = (uint64_t)mmd__load_int(dtype, c->inputs[2]->data, 0);
        for (i = 0; i < n; ++i) mmd__store_int(dtype, y, i, (int64_t)(start + (uint64_t)i * delta));
    }
    return MMD_OK;
}

/* ---- Tile ------------------------------------------------------------------------------- */

/* repeats (input 1) sets the output shape, so it must be known at prepare. */
static mmd_status mmd__tile_any_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x, *r;
    int64_t dims[MMD_MAX_RANK];
    int32_t d;
    mmd_status st;
    if ((st = mmd__check_io(c, 2, 2, 1)) != MMD_OK || (st = mmd__want_sized(c, c->inputs[0], "data")) != MMD_OK ||
        (st = mmd__want_indices(c, 1)) != MMD_OK || (st = mmd__want_rank(c, 1, 1, 1)) != MMD_OK)
        return st;
    x = c->inputs[0];
    r = c->inputs[1];
    if (r->dims[0] != x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "repeats has %lld values for an input of rank %d",
                               (long long)r->dims[0], (int)x->rank);
    if ((st = mmd__want_known(c, 1, "repeats")) != MMD_OK) return st;
    for (d = 0; d < x->rank; ++d) {
        int64_t k = mmd__load_int(r->dtype, r->data, d);
        if (k < 0 || k > MMD__ELEMS_MAX / (x->dims[d] > 1 ? x->dims[d] : 1))
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "repeats[%d] = %lld is out of range",
                                   (int)d, (long long)k);
        dims[d] = x->dims[d] * k;
    }
    return mmd__set_output(c, 0, x->dtype, x->rank, dims);
}

/* One output row (all axes but the last fixed) is the matching input row repeated; the input
   row is found by taking each output coordinate modulo the input dim. */
static mmd_status mmd__tile_any_eval(mmd_kernel_ctx *c) {
    const mmd_tensor *x = c->inputs[0];
    const mmd_tensor *y = c->outputs[0];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t xs[MMD_MAX_RANK], pos[MMD_MAX_RANK] = {0}, rows, r;
    int32_t d, last = x->rank - 1;
    size_t row;
    uint8_t *dst = (uint8_t *)y->data;
    if (mmd_tensor_numel(y) == 0) return MMD_OK;
    if (x->rank == 0) {
        memcpy(dst, x->data, elem);
        return MMD_OK;
    }
    mmd__broadcast_strides(x->rank, x->dims, x->rank, xs);
    rows = mmd__dims_product(y, 0, last);
    row = (size_t)x->dims[last] * elem;
    for (r = 0; r < rows; ++r) {
        int64_t off = 0, k;
        for (d = 0; d < last; ++d) off += (pos[d] % x->dims[d]) * xs[d];
        for (k = 0; k < y->dims[last] / x->dims[last]; ++k) {
            memcpy(dst, (const uint8_t *)x->data + (size_t)off * elem, row);
            dst += row;
        }
        mmd__index_next(last, y->dims, pos, NULL, -1, NULL);
    }
    return MMD_OK;
}

/* ---- Pad -------------------------------------------------------------------------------- */

enum { MMD__PAD_CONSTANT, MMD__PAD_REFLECT, MMD__PAD_EDGE, MMD__PAD_WRAP };

/* Negative pads crop first; the padding then applies to the window that is left, which is
   [start, start + size) of the input on each axis. */
typedef struct mmd__pad_data {
    int32_t mode;
    int64_t before[MMD_MAX_RANK];    /* added in front (0 when cropped) */
    int64_t start[MMD_MAX_RANK];     /* first input index of the window */
    int64_t size[MMD_MAX_RANK];      /* window length */
    union {                          /* opset 2-10: the `value` attribute in the data's dtype */
        double f64;
        uint64_t u64;
    } value;
} mmd__pad_data;

/* Input index on axis d for output index o, or -1 where the constant goes. */
static int64_t mmd__pad_map(const mmd__pad_data *p, int32_t d, int64_t o) {
    int64_t j = o - p->before[d], m = p->size[d], t;
    if (j >= 0 && j < m) return p->start[d] + j;
    switch (p->mode) {
    case MMD__PAD_EDGE:
        t = j < 0 ? 0 : m - 1;
        break;
    case MMD__PAD_WRAP:
        t = ((j % m) + m) % m;
        break;
    case MMD__PAD_REFLECT:
        /* Mirror without repeating the edge: a period of 2(m-1) folded in half (numpy's
           reflect); a one-element axis repeats, as numpy's does. */
        if (m == 1) {
            t = 0;
            break;
        }
        t = ((j % (2 * (m - 1))) + 2 * (m - 1)) % (2 * (m - 1));
        if (t >= m) t = 2 * (m - 1) - t;
        break;
    default:
        return -1;
    }
    return p->start[d] + t;
}

/* Output cells [from, to) of the row at element o, whose input row starts at element off. */
static void mmd__pad_cells(const mmd__pad_data *p, int32_t d, int64_t from, int64_t to, void *y,
                           int64_t o, const void *x, int64_t off, const void *value, size_t elem) {
    int64_t j;
    for (j = from; j < to; ++j) {
        int64_t k = mmd__pad_map(p, d, j);
        if (k < 0) mmd__index_copy(y, o + j, value, 0, elem);
        else mmd__index_copy(y, o + j, x, off + k, elem);
    }
}

/* pads from the attribute (opset 2-10) or input 1 (11+), for the axes of input 3 (18+) or all
   axes; mode constant, reflect, edge and, from opset 19, wrap. */
static mmd_status mmd__pad_any_prepare(mmd_kernel_ctx *c) {
    static const char *const modes[] = {"constant", "reflect", "edge", "wrap", NULL};
    mmd__pad_data *p = (mmd__pad_data *)c->op_data;
    const mmd_tensor *x;
    int64_t pads[2 * MMD_MAX_RANK], list[MMD_MAX_RANK], dims[MMD_MAX_RANK], i;
    int32_t axes[MMD_MAX_RANK], naxes, npads, d, k, from_input = c->opset >= 11;
    float value;
    mmd_status st = mmd__check_io(c, from_input ? 2 : 1, c->opset >= 18 ? 4 : from_input ? 3 : 1, 1);
    if (st == MMD_OK) st = mmd__want_sized(c, c->inputs[0], "data");
    if (st == MMD_OK) st = mmd__detect_pick(c, "mode", "constant", modes, &p->mode);
    if (st == MMD_OK && p->mode == MMD__PAD_WRAP && c->opset < 19)
        st = mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "mode 'wrap' is not defined at opset %d", (int)c->opset);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__get_ints(c, from_input, 1, "pads", pads, 2 * MMD_MAX_RANK, &npads)) != MMD_OK ||
        (st = mmd__get_ints(c, 1, 3, "axes", list, x->rank, &naxes)) != MMD_OK)
        return st;
    if (naxes < 0)
        for (naxes = 0; naxes < x->rank; ++naxes) list[naxes] = naxes;
    for (d = 0; d < naxes; ++d) {
        if ((st = mmd__norm_axis(c, list[d], x->rank, &axes[d])) != MMD_OK) return st;
        for (k = 0; k < d; ++k)
            if (axes[k] == axes[d])
                return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "axis %d is repeated in axes", (int)axes[d]);
    }
    if (npads != 2 * naxes)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "pads has %d values, expects %d", (int)npads,
                               (int)(2 * naxes));
    if (!from_input) {
        /* Opset 2 to 10: the padding value is an attribute, stored in the data's dtype. */
        if ((st = mmd_attr_get_float(c, "value", 0.0f, &value)) != MMD_OK) return st;
        if (mmd__index_numeric(x->dtype)) mmd__store_float(x->dtype, &p->value, 0, value);
    } else if (c->input_count > 2 && c->inputs[2]) {
        if ((st = mmd__want_dtype(c, 2, x->dtype)) != MMD_OK) return st;
        if (mmd_tensor_numel(c->inputs[2]) != 1)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "constant_value has %lld elements, expects 1",
                                   (long long)mmd_tensor_numel(c->inputs[2]));
    }
    for (d = 0; d < x->rank; ++d) {
        p->before[d] = 0;
        p->start[d] = 0;
        p->size[d] = x->dims[d];
        dims[d] = x->dims[d];
    }
    for (i = 0; i < naxes; ++i) {
        int64_t b = pads[i], e = pads[i + naxes], n;
        d = axes[i];
        n = x->dims[d];
        if (b < -n || e < -n || b > MMD__ELEMS_MAX || e > MMD__ELEMS_MAX || n + b + e < 0)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "pads %lld and %lld do not fit axis %d "
                                   "of size %lld", (long long)b, (long long)e, (int)d, (long long)n);
        p->before[d] = b > 0 ? b : 0;
        p->start[d] = b < 0 ? -b : 0;
        p->size[d] = n - (b < 0 ? -b : 0) - (e < 0 ? -e : 0);
        dims[d] = n + b + e;
        if (p->mode != MMD__PAD_CONSTANT && p->size[d] <= 0 && dims[d] > 0)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "mode '%s' cannot pad axis %d, which "
                                   "is empty after cropping", modes[p->mode], (int)d);
    }
    return mmd__set_output(c, 0, x->dtype, x->rank, dims);
}

/* Row by row: an output row whose outer coordinates fall in the padding is all constant;
   otherwise the window part of the row is one copy and the padding on either side maps
   element by element through mmd__pad_map. */
static mmd_status mmd__pad_any_eval(mmd_kernel_ctx *c) {
    const mmd__pad_data *p = (const mmd__pad_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    const mmd_tensor *y = c->outputs[0];
    const void *value = &p->value;
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t xs[MMD_MAX_RANK], pos[MMD_MAX_RANK] = {0}, rows, r, n, o = 0, lo, hi;
    int32_t d, last = x->rank - 1;
    static const uint64_t zero = 0;
    if (c->opset >= 11) value = c->input_count > 2 && c->inputs[2] ? c->inputs[2]->data : &zero;
    if (mmd_tensor_numel(y) == 0) return MMD_OK;
    if (x->rank == 0) {
        mmd__index_copy(y->data, 0, x->data, 0, elem);
        return MMD_OK;
    }
    mmd__broadcast_strides(x->rank, x->dims, x->rank, xs);
    rows = mmd__dims_product(y, 0, last);
    n = y->dims[last];
    /* Output columns [lo, hi) read the window straight through. */
    lo = p->before[last] < n ? p->before[last] : n;
    hi = lo + (p->size[last] > 0 ? p->size[last] : 0);
    if (hi > n) hi = n;
    for (r = 0; r < rows; ++r, o += n) {
        int64_t off = 0;
        for (d = 0; d < last && off >= 0; ++d) {
            int64_t k = mmd__pad_map(p, d, pos[d]);
            off = k < 0 ? -1 : off + k * xs[d];
        }
        if (off < 0) {
            mmd__fill((uint8_t *)y->data + (size_t)o * elem, n, value, elem);
        } else {
            mmd__pad_cells(p, last, 0, lo, y->data, o, x->data, off, value, elem);
            if (hi > lo)
                memcpy((uint8_t *)y->data + (size_t)(o + lo) * elem,
                       (const uint8_t *)x->data + (size_t)(off + p->start[last]) * elem,
                       (size_t)(hi - lo) * elem);
            mmd__pad_cells(p, last, hi, n, y->data, o, x->data, off, value, elem);
        }
        mmd__index_next(last, y->dims, pos, NULL, -1, NULL);
    }
    return MMD_OK;
}

/* ---- Trilu, EyeLike -------------------------------------------------------------------- */

typedef struct mmd__trilu_data {
    int32_t upper;
} mmd__trilu_data;

/* k (input 1) does not change the shape, so eval reads it and any source may feed it. */
static mmd_status mmd__trilu_any_prepare(mmd_kernel_ctx *c) {
    mmd__trilu_data *p = (mmd__trilu_data *)c->op_data;
    int64_t upper;
    mmd_status st;
    if ((st = mmd__check_io(c, 1, 2, 1)) != MMD_OK || (st = mmd__want_sized(c, c->inputs[0], "data")) != MMD_OK ||
        (st = mmd__want_rank(c, 0, 2, MMD_MAX_RANK)) != MMD_OK ||
        (st = mmd_attr_get_int(c, "upper", 1, &upper)) != MMD_OK)
        return st;
    if (c->input_count > 1 && c->inputs[1]) {
        if ((st = mmd__want_dtype(c, 1, MMD_DTYPE_INT64)) != MMD_OK) return st;
        if (mmd_tensor_numel(c->inputs[1]) != 1)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "k has %lld elements, expects 1",
                                   (long long)mmd_tensor_numel(c->inputs[1]));
    }
    p->upper = upper != 0;
    return mmd__set_output(c, 0, c->inputs[0]->dtype, c->inputs[0]->rank, c->inputs[0]->dims);
}

/* Row i keeps columns j with j - i >= k (upper) or j - i <= k (lower) and zeroes the rest. */
static mmd_status mmd__trilu_any_eval(mmd_kernel_ctx *c) {
    const mmd__trilu_data *p = (const mmd__trilu_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1];
    int64_t mats = mmd__dims_product(x, 0, x->rank - 2), k = 0, m, i;
    const uint8_t *src = (const uint8_t *)x->data;
    uint8_t *dst = (uint8_t *)c->outputs[0]->data;
    if (c->input_count > 1 && c->inputs[1]) k = *(const int64_t *)c->inputs[1]->data;
    /* Past +-(rows + cols) every k means the same, and the clamp keeps i + k from overflowing. */
    if (k > rows + cols) k = rows + cols;
    if (k < -(rows + cols)) k = -(rows + cols);
    for (m = 0; m < mats; ++m)
        for (i = 0; i < rows; ++i) {
            int64_t lo = p->upper ? i + k : 0, hi = p->upper ? cols : i + k + 1;
            size_t base = (size_t)((m * rows + i) * cols) * elem;
            lo = lo < 0 ? 0 : lo > cols ? cols : lo;
            hi = hi < lo ? lo : hi > cols ? cols : hi;
            if (cols) memset(dst + base, 0, (size_t)cols * elem);
            if (hi > lo)
                memcpy(dst + base + (size_t)lo * elem, src + base + (size_t)lo * elem,
                       (size_t)(hi - lo) * elem);
        }
    return MMD_OK;
}

typedef struct mmd__eye_like_data {
    int64_t k;
} mmd__eye_like_data;

static mmd_status mmd__eye_like_any_prepare(mmd_kernel_ctx *c) {
    mmd__eye_like_data *p = (mmd__eye_like_data *)c->op_data;
    int64_t dtype;
    mmd_status st;
    if ((st = mmd__check_io(c, 1, 1, 1)) != MMD_OK || (st = mmd__want_rank(c, 0, 2, 2)) != MMD_OK ||
        (st = mmd_attr_get_int(c, "dtype", c->inputs[0]->dtype, &dtype)) != MMD_OK ||
        (st = mmd_attr_get_int(c, "k", 0, &p->k)) != MMD_OK)
        return st;
    if (dtype < 0 || dtype > 64 || !mmd__index_numeric((int32_t)dtype))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "cannot make an identity of dtype %lld (%s)",
                               (long long)dtype,
                               mmd_dtype_name((int32_t)(dtype < 0 || dtype > 64 ? 0 : dtype)));
    return mmd__set_output(c, 0, (int32_t)dtype, 2, c->inputs[0]->dims);
}

static mmd_status mmd__eye_like_any_eval(mmd_kernel_ctx *c) {
    const mmd__eye_like_data *p = (const mmd__eye_like_data *)c->op_data;
    const mmd_tensor *y = c->outputs[0];
    int64_t rows = y->dims[0], cols = y->dims[1], i;
    size_t bytes = (size_t)mmd_tensor_numel(y) * mmd_dtype_size(y->dtype);
    if (bytes) memset(y->data, 0, bytes);
    for (i = 0; i < rows; ++i)
        if (p->k >= -i && p->k < cols - i) mmd__store_int(y->dtype, y->data, i * cols + i + p->k, 1);
    return MMD_OK;
}

/* ---- DepthToSpace, SpaceToDepth -------------------------------------------------------- */

/* Both are a 6-D transpose: the output walked in order as six axes, each with its step
   through the input. */
typedef struct mmd__block_data {
    int64_t dims[6];
    int64_t strides[6];
} mmd__block_data;

static mmd_status mmd__block_prepare(mmd_kernel_ctx *c, int32_t to_space) {
    static const char *const modes[] = {"DCR", "CRD", NULL};
    mmd__block_data *p = (mmd__block_data *)c->op_data;
    const mmd_tensor *x;
    int64_t bs, n, ch, h, w, out[4];
    int32_t crd = 0;
    mmd_status st;
    if ((st = mmd__check_io(c, 1, 1, 1)) != MMD_OK || (st = mmd__want_sized(c, c->inputs[0], "data")) != MMD_OK ||
        (st = mmd__want_rank(c, 0, 4, 4)) != MMD_OK ||
        (st = mmd_attr_get_int(c, "blocksize", 0, &bs)) != MMD_OK)
        return st;
    if (to_space && c->opset >= 11 && (st = mmd__detect_pick(c, "mode", "DCR", modes, &crd)) != MMD_OK)
        return st;
    x = c->inputs[0];
    n = x->dims[0];
    ch = x->dims[1];
    h = x->dims[2];
    w = x->dims[3];
    if (bs < 1 || bs > MMD__ATTR_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "blocksize %lld is out of range",
                               (long long)bs);
    if (to_space) {
        int64_t cb = ch / (bs * bs);
        if (ch % (bs * bs))
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%lld channels do not split into blocks of %lld",
                                   (long long)ch, (long long)(bs * bs));
        /* Output (n, c, y, i, x, j); the input is [n, i, j, c, y, x] (DCR) or [n, c, i, j, y, x]. */
        p->dims[0] = n; p->dims[1] = cb; p->dims[2] = h;
        p->dims[3] = bs; p->dims[4] = w; p->dims[5] = bs;
        p->strides[0] = ch * h * w;
        p->strides[2] = w;
        p->strides[4] = 1;
        if (!crd) {
            p->strides[1] = h * w;
            p->strides[3] = bs * cb * h * w;
            p->strides[5] = cb * h * w;
        } else {
            p->strides[1] = bs * bs * h * w;
            p->strides[3] = bs * h * w;
            p->strides[5] = h * w;
        }
        out[0] = n; out[1] = cb; out[2] = h * bs; out[3] = w * bs;
    } else {
        if (h % bs || w % bs)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "height %lld and width %lld must be multiples "
                                   "of blocksize %lld", (long long)h, (long long)w, (long long)bs);
        /* Output (n, i, j, c, y, x); the input is [n, c, y, i, x, j]. */
        p->dims[0] = n; p->dims[1] = bs; p->dims[2] = bs;
        p->dims[3] = ch; p->dims[4] = h / bs; p->dims[5] = w / bs;
        p->strides[0] = ch * h * w;
        p->strides[1] = w;
        p->strides[2] = 1;
        p->strides[3] = h * w;
        p->strides[4] = bs * w;
        p->strides[5] = bs;
        out[0] = n; out[1] = ch * bs * bs; out[2] = h / bs; out[3] = w / bs;
    }
    return mmd__set_output(c, 0, x->dtype, 4, out);
}

static mmd_status mmd__depth_to_space_any_prepare(mmd_kernel_ctx *c) {
    return mmd__block_prepare(c, 1);
}

static mmd_status mmd__space_to_depth_any_prepare(mmd_kernel_ctx *c) {
    return mmd__block_prepare(c, 0);
}

static mmd_status mmd__block_any_eval(mmd_kernel_ctx *c) {
    const mmd__block_data *p = (const mmd__block_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    size_t elem = mmd_dtype_size(x->dtype);
    int64_t n = mmd_tensor_numel(c->outputs[0]), pos[6] = {0, 0, 0, 0, 0, 0}, off = 0, j;
    for (j = 0; j < n; ++j) {
        mmd__index_copy(c->outputs[0]->data, j, x->data, off, elem);
        mmd__index_next(6, p->dims, pos, p->strides, -1, &off);
    }
    return MMD_OK;
}

/* ==== >>ops reductions and sorting ==== */
/* ---- Reduce* ---------------------------------------------------------------------------- */

/* What a Reduce* op accumulates; the row it walks with and the finishing step follow. */
enum {
    MMD__REDUCE_SUM,
    MMD__REDUCE_MEAN,
    MMD__REDUCE_PROD,
    MMD__REDUCE_MAX,
    MMD__REDUCE_MIN,
    MMD__REDUCE_L1,
    MMD__REDUCE_L2,
    MMD__REDUCE_SUM_SQUARE,
    MMD__REDUCE_LOG_SUM,
    MMD__REDUCE_LOG_SUM_EXP,
    MMD__REDUCE_OP_COUNT
};

struct mmd__reduction_data;
typedef void (*mmd__reduce_run_fn)(const struct mmd__reduction_data *p, const void *x, void *y,
                                   void *shift, int64_t n);

typedef struct mmd__reduction_data {
    mmd__walk walk;                     /* 0: output, stride 0 on reduced axes; 1: input;
                                           2: LogSumExp's shift, strided as the output */
    int64_t count;                      /* input elements per output element */
    int32_t op, noop;                   /* noop: noop_with_empty_axes and no axes, a copy */
    mmd__row_fn row;
    mmd__reduce_run_fn run;
} mmd__reduction_data;

/* Plans the walk of a reduction of x over `axes` (naxes of them, each normalised, none
   repeated; none listed means every axis, or with `noop` no axis): operand 0 is the output,
   stride 0 on the reduced axes; 1 the input; 2 strided as the output (LogSumExp's shift,
   MeanVarianceNormalization's statistics). Sets reduce[d] to 1 for the reduced axes, kept to
   x's dims with those axes 1, and *count to the input elements behind each output element. */
static mmd_status mmd__reduce_walk(mmd_kernel_ctx *c, const mmd_tensor *x, const int64_t *axes,
                                   int64_t naxes, int32_t noop, mmd__walk *w, int32_t *reduce,
                                   int64_t *kept, int64_t *count) {
    int64_t i;
    int32_t d;
    mmd_status st;
    for (d = 0; d < x->rank; ++d) reduce[d] = naxes <= 0 && !noop;
    for (i = 0; i < naxes; ++i) {
        if ((st = mmd__norm_axis(c, axes[i], x->rank, &d)) != MMD_OK) return st;
        if (reduce[d]) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "axis %lld repeats", (long long)axes[i]);
        reduce[d] = 1;
    }
    *count = 1;
    for (d = 0; d < x->rank; ++d) {
        kept[d] = reduce[d] ? 1 : x->dims[d];
        if (reduce[d]) *count *= x->dims[d];
    }
    w->rank = x->rank;
    for (d = 0; d < x->rank; ++d) w->dims[d] = x->dims[d];
    mmd__broadcast_strides(x->rank, kept, x->rank, w->strides[0]);
    mmd__broadcast_strides(x->rank, x->dims, x->rank, w->strides[1]);
    mmd__broadcast_strides(x->rank, kept, x->rank, w->strides[2]);
    w->elem[0] = w->elem[1] = w->elem[2] = mmd_dtype_size(x->dtype);
    mmd__walk_merge(w);
    return MMD_OK;
}

/* The reduction every Reduce* op shares: reads keepdims and the axes (an attribute before
   axes_input_opset, from then on an optional constant input 1 that noop_with_empty_axes = 1
   turns into a copy when it is absent or empty; no axes otherwise means all axes), sets output
   0 to input 0's dtype and the reduced shape, and plans the walk described in
   mmd__reduction_data. The dtype is the caller's to check. */
static mmd_status mmd__reduce_axes_prepare(mmd_kernel_ctx *c, int32_t axes_input_opset,
                                           mmd__walk *w, int64_t *count, int32_t *noop) {
    const mmd_tensor *x;
    int64_t axes[MMD_MAX_RANK], keepdims, noop_attr = 0, dims[MMD_MAX_RANK], kept[MMD_MAX_RANK];
    int32_t reduce[MMD_MAX_RANK], naxes, rank = 0, i, from_input = c->opset >= axes_input_opset;
    mmd_status st = mmd__check_io(c, 1, from_input ? 2 : 1, 1);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "keepdims", 1, &keepdims);
    if (st == MMD_OK) st = mmd__get_ints(c, from_input, 1, "axes", axes, MMD_MAX_RANK, &naxes);
    if (st == MMD_OK && from_input) st = mmd_attr_get_int(c, "noop_with_empty_axes", 0, &noop_attr);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    *noop = naxes <= 0 && noop_attr != 0;
    if ((st = mmd__reduce_walk(c, x, axes, naxes, *noop, w, reduce, kept, count)) != MMD_OK) return st;
    for (i = 0; i < x->rank; ++i)
        if (!reduce[i] || keepdims) dims[rank++] = kept[i];
    return mmd__set_output(c, 0, x->dtype, rank, dims);
}

/* Accumulating rows: acc is the output element, x the input element. When the row runs along
   a reduced axis (output stride 0) the accumulator lives in a local: left in o[0], it would be
   stored and reloaded every step, since as far as the compiler knows o may alias the input. */
#define MMD__REDUCE_ROW(name, T, expr)                                                         \
    static mmd_status name(void *o_, int64_t os, const void *a_, int64_t as, const void *b_,   \
                           int64_t bs, int64_t n) {                                            \
        T *o = (T *)o_;                                                                        \
        const T *a = (const T *)a_;                                                            \
        int64_t i;                                                                             \
        (void)b_;                                                                              \
        (void)bs;                                                                              \
        if (os == 0) {                                                                         \
            T acc = o[0];                                                                      \
            for (i = 0; i < n; ++i) {                                                          \
                T x = a[i * as];                                                               \
                acc = (expr);                                                                  \
            }                                                                                  \
            o[0] = acc;                                                                        \
        } else {                                                                               \
            for (i = 0; i < n; ++i) {                                                          \
                T acc = o[i * os], x = a[i * as];                                              \
                o[i * os] = (expr);                                                            \
            }                                                                                  \
        }                                                                                      \
        return MMD_OK;                                                                         \
    }

/* LogSumExp's row adds exp(x - shift), the shift being the maximum of the same output slot. */
#define MMD__REDUCE_EXP_ROW(name, T, EXP)                                                      \
    static mmd_status name(void *o_, int64_t os, const void *a_, int64_t as, const void *b_,   \
                           int64_t bs, int64_t n) {                                            \
        T *o = (T *)o_;                                                                        \
        const T *a = (const T *)a_, *b = (const T *)b_;                                        \
        int64_t i;                                                                             \
        for (i = 0; i < n; ++i) o[i * os] += EXP(a[i * as] - b[i * bs]);                      \
        return MMD_OK;                                                                         \
    }

/* Everything of one dtype: the rows, then the run that fills the identity, walks, and
   finishes. Integer sums and products wrap through the unsigned U; floats keep NaN in Max and
   Min (ISNAN is 0 for integers). The identity is what an empty reduction gives: 0 for the
   sums, 1 for Prod, the lowest value for Max, the highest for Min, -inf for the logs; the mean
   of nothing is EMPTY_MEAN (NaN for floats, 0 for integers). */
#define MMD__REDUCE_TYPE(arg, sfx, T, U, ACC, ISNAN, LOWEST, HIGHEST, EMPTY_MEAN, SQRT, LOG)    \
    MMD__REDUCE_ROW(mmd__reduce_sum_##sfx##_row, T, (T)((U)acc + (U)x))                        \
    MMD__REDUCE_ROW(mmd__reduce_prod_##sfx##_row, T, (T)((U)acc * (U)x))                       \
    MMD__REDUCE_ROW(mmd__reduce_max_##sfx##_row, T, (x > acc || ISNAN(x)) ? x : acc)           \
    MMD__REDUCE_ROW(mmd__reduce_min_##sfx##_row, T, (x < acc || ISNAN(x)) ? x : acc)           \
    MMD__REDUCE_ROW(mmd__reduce_l1_##sfx##_row, T, (T)((U)acc + (x < 0 ? (U)0 - (U)x : (U)x)))  \
    MMD__REDUCE_ROW(mmd__reduce_sum_square_##sfx##_row, T, (T)((U)acc + (U)x * (U)x))          \
    static void mmd__reduce_run_##sfx(const mmd__reduction_data *p, const void *x, void *y_,   \
                                      void *shift_, int64_t n) {                               \
        T *y = (T *)y_, *shift = (T *)shift_;                                                  \
        T lowest = LOWEST, init = p->op == MMD__REDUCE_PROD ? (T)1 : p->op == MMD__REDUCE_MAX ? LOWEST \
                               : p->op == MMD__REDUCE_MIN ? HIGHEST : (T)0;                    \
        int64_t i;                                                                             \
        int32_t op = p->op;                                                                    \
        if (op == MMD__REDUCE_LOG_SUM_EXP) {                                                   \
            /* An infinite maximum would make x - shift NaN; such slots shift by 0. */         \
            mmd__fill(shift, n, &lowest, sizeof(T));                                           \
            mmd__walk_run(&p->walk, shift, x, NULL, mmd__reduce_max_##sfx##_row);              \
            for (i = 0; i < n; ++i)                                                            \
                if (shift[i] == LOWEST || shift[i] == HIGHEST) shift[i] = 0;                   \
        }                                                                                      \
        mmd__fill(y, n, &init, sizeof(T));                                                     \
        mmd__walk_run(&p->walk, y, x, shift, p->row);                                          \
        for (i = 0; i < n; ++i) {                                                              \
            if (op == MMD__REDUCE_MEAN) y[i] = p->count ? (T)(y[i] / (T)p->count) : EMPTY_MEAN; \
            else if (op == MMD__REDUCE_L2) y[i] = (T)SQRT(y[i]);                               \
            else if (op == MMD__REDUCE_LOG_SUM) y[i] = (T)LOG(y[i]);                           \
            else if (op == MMD__REDUCE_LOG_SUM_EXP) y[i] = (T)(LOG(y[i]) + shift[i]);          \
        }                                                                                      \
    }

/* The dtypes the typed kernels of this section take, in mmd__want_typed's order: X(arg,
   suffix, type, the unsigned type integer sums wrap through, the accumulator of products, the
   NaN test, lowest and highest value, the mean of nothing, square root, logarithm).
   MMD__TYPED_FN lists a function per dtype for the arrays eval picks from. */
#define MMD__ISNAN_FLOAT(v) ((v) != (v))
#define MMD__ISNAN_INT(v) 0
#define MMD__TYPED(X, arg)                                                                     \
    X(arg, f32, float, float, double, MMD__ISNAN_FLOAT, -INFINITY, INFINITY, NAN, sqrtf, logf) \
    X(arg, f64, double, double, double, MMD__ISNAN_FLOAT, -(double)INFINITY, (double)INFINITY, NAN, sqrt, log) \
    X(arg, i32, int32_t, uint32_t, uint64_t, MMD__ISNAN_INT, INT32_MIN, INT32_MAX, 0, sqrt, log) \
    X(arg, i64, int64_t, uint64_t, uint64_t, MMD__ISNAN_INT, INT64_MIN, INT64_MAX, 0, sqrt, log)
#define MMD__TYPED_FN(prefix, sfx, ...) prefix##sfx,
MMD__TYPED(MMD__REDUCE_TYPE, 0)
MMD__REDUCE_EXP_ROW(mmd__reduce_log_sum_exp_f32_row, float, expf)
MMD__REDUCE_EXP_ROW(mmd__reduce_log_sum_exp_f64_row, double, exp)
#undef MMD__REDUCE_TYPE
#undef MMD__REDUCE_ROW
#undef MMD__REDUCE_EXP_ROW

/* Rows by dtype and op (in the enum's order); NULL where the dtype is declined: the square
   root and logarithms of integers would only truncate. */
typedef struct mmd__reduce_type {
    int32_t dtype;
    mmd__reduce_run_fn run;
    mmd__row_fn rows[MMD__REDUCE_OP_COUNT];
} mmd__reduce_type;

static const mmd__reduce_type mmd__reduce_types[] = {
    {MMD_DTYPE_FLOAT32, mmd__reduce_run_f32,
     {mmd__reduce_sum_f32_row, mmd__reduce_sum_f32_row, mmd__reduce_prod_f32_row, mmd__reduce_max_f32_row,
      mmd__reduce_min_f32_row, mmd__reduce_l1_f32_row, mmd__reduce_sum_square_f32_row,
      mmd__reduce_sum_square_f32_row, mmd__reduce_sum_f32_row, mmd__reduce_log_sum_exp_f32_row}},
    {MMD_DTYPE_FLOAT64, mmd__reduce_run_f64,
     {mmd__reduce_sum_f64_row, mmd__reduce_sum_f64_row, mmd__reduce_prod_f64_row, mmd__reduce_max_f64_row,
      mmd__reduce_min_f64_row, mmd__reduce_l1_f64_row, mmd__reduce_sum_square_f64_row,
      mmd__reduce_sum_square_f64_row, mmd__reduce_sum_f64_row, mmd__reduce_log_sum_exp_f64_row}},
    {MMD_DTYPE_INT32, mmd__reduce_run_i32,
     {mmd__reduce_sum_i32_row, mmd__reduce_sum_i32_row, mmd__reduce_prod_i32_row, mmd__reduce_max_i32_row,
      mmd__reduce_min_i32_row, mmd__reduce_l1_i32_row, NULL, mmd__reduce_sum_square_i32_row, NULL, NULL}},
    {MMD_DTYPE_INT64, mmd__reduce_run_i64,
     {mmd__reduce_sum_i64_row, mmd__reduce_sum_i64_row, mmd__reduce_prod_i64_row, mmd__reduce_max_i64_row,
      mmd__reduce_min_i64_row, mmd__reduce_l1_i64_row, NULL, mmd__reduce_sum_square_i64_row, NULL, NULL}},
};

/* Each Reduce* op and the opset from which its axes are an input rather than an attribute. */
typedef struct mmd__reduce_name {
    const char *op_type;
    int32_t op, axes_input_opset;
} mmd__reduce_name;

static const mmd__reduce_name mmd__reduce_names[] = {
    {"ReduceSum", MMD__REDUCE_SUM, 13},          {"ReduceMean", MMD__REDUCE_MEAN, 18},
    {"ReduceProd", MMD__REDUCE_PROD, 18},        {"ReduceMax", MMD__REDUCE_MAX, 18},
    {"ReduceMin", MMD__REDUCE_MIN, 18},          {"ReduceL1", MMD__REDUCE_L1, 18},
    {"ReduceL2", MMD__REDUCE_L2, 18},            {"ReduceSumSquare", MMD__REDUCE_SUM_SQUARE, 18},
    {"ReduceLogSum", MMD__REDUCE_LOG_SUM, 18},   {"ReduceLogSumExp", MMD__REDUCE_LOG_SUM_EXP, 18},
};

/* One prepare for every Reduce* op, which it tells apart by op_type. */
static mmd_status mmd__reduce_prepare(mmd_kernel_ctx *c) {
    mmd__reduction_data *p = (mmd__reduction_data *)c->op_data;
    const mmd__reduce_name *name = NULL;
    const mmd__reduce_type *type = NULL;
    const mmd_tensor *x;
    size_t i;
    mmd_status st;
    for (i = 0; i < sizeof mmd__reduce_names / sizeof mmd__reduce_names[0]; ++i)
        if (!strcmp(c->node->op_type, mmd__reduce_names[i].op_type)) name = &mmd__reduce_names[i];
    if (!name) return mmd_kernel_fail(c, MMD_ERR_NO_KERNEL, "not a Reduce* op");
    if ((st = mmd__reduce_axes_prepare(c, name->axes_input_opset, &p->walk, &p->count, &p->noop)) != MMD_OK)
        return st;
    x = c->inputs[0];
    for (i = 0; i < sizeof mmd__reduce_types / sizeof mmd__reduce_types[0]; ++i)
        if (mmd__reduce_types[i].dtype == x->dtype && mmd__reduce_types[i].rows[name->op])
            type = &mmd__reduce_types[i];
    if (!type)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input 0 '%s' is %s, which this op does not take",
                               x->name ? x->name : "", mmd_dtype_name(x->dtype));
    p->op = name->op;
    p->row = type->rows[name->op];
    p->run = type->run;
    c->scratch_size = 0;
    if (p->op == MMD__REDUCE_LOG_SUM_EXP && !p->noop)
        c->scratch_size = (size_t)mmd_tensor_numel(c->outputs[0]) * mmd_dtype_size(x->dtype);
    return MMD_OK;
}

static mmd_status mmd__reduce_eval(mmd_kernel_ctx *c) {
    const mmd__reduction_data *p = (const mmd__reduction_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    mmd_tensor *y = c->outputs[0];
    int64_t n = mmd_tensor_numel(y);
    if (p->noop) {
        if (n) memcpy(y->data, x->data, (size_t)n * mmd_dtype_size(x->dtype));
        return MMD_OK;
    }
    p->run(p, x->data, y->data, c->scratch, n);
    return MMD_OK;
}

/* ---- ArgMax, ArgMin --------------------------------------------------------------------- */

typedef struct mmd__arg_data {
    int64_t outer, n, inner;            /* the axis has n elements spaced `inner` apart */
    int32_t type, is_max, last;         /* type: see mmd__want_typed; last: select_last_index */
} mmd__arg_data;

/* Each output slot holds the index of the best element so far; scanning the axis in the outer
   loop keeps the inner loop on contiguous memory. NaN wins, as numpy's argmax and argmin say;
   ties keep the first index unless select_last_index. */
#define MMD__ARG_TYPE(arg, sfx, T, U, ACC, ISNAN, ...)                                         \
    static void mmd__arg_##sfx(const mmd__arg_data *p, const void *x_, int64_t *y) {           \
        const T *x = (const T *)x_;                                                            \
        int64_t o, i, j, inner = p->inner;                                                     \
        for (o = 0; o < p->outer; ++o) {                                                       \
            const T *xo = x + o * p->n * inner;                                                \
            int64_t *yo = y + o * inner;                                                       \
            for (j = 0; j < inner; ++j) yo[j] = 0;                                             \
            for (i = 1; i < p->n; ++i)                                                         \
                for (j = 0; j < inner; ++j) {                                                  \
                    T v = xo[i * inner + j], b = xo[yo[j] * inner + j];                        \
                    int32_t better = ISNAN(b) ? p->last && ISNAN(v)                            \
                                              : ISNAN(v) || (p->is_max ? v > b : v < b) ||     \
                                                    (p->last && v == b);                       \
                    if (better) yo[j] = i;                                                     \
                }                                                                              \
        }                                                                                      \
    }
MMD__TYPED(MMD__ARG_TYPE, 0)
#undef MMD__ARG_TYPE
static void (*const mmd__arg_fns[])(const mmd__arg_data *p, const void *x, int64_t *y) = {
    MMD__TYPED(MMD__TYPED_FN, mmd__arg_)};

/* ArgMax, CumSum, TopK and Einsum are written once per dtype they take (float32, float64,
   int32, int64, in that order in their function arrays): *type is input i's index there.
   Fails with MMD_ERR_DTYPE for any other dtype. */
static mmd_status mmd__want_typed(mmd_kernel_ctx *c, int32_t i, int32_t *type) {
    static const int32_t dtypes[] = {MMD_DTYPE_FLOAT32, MMD_DTYPE_FLOAT64, MMD_DTYPE_INT32, MMD_DTYPE_INT64};
    const mmd_tensor *t = c->inputs[i];
    for (*type = 0; *type < 4; ++*type)
        if (t->dtype == dtypes[*type]) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input %d '%s' is %s, expects float32, float64, int32 or int64",
                           (int)i, t->name ? t->name : "", mmd_dtype_name(t->dtype));
}

/* ArgMax and ArgMin: axis (negative from opset 11), keepdims, select_last_index (opset 12);
   an empty axis has no answer and is refused. */
static mmd_status mmd__arg_prepare(mmd_kernel_ctx *c) {
    mmd__arg_data *p = (mmd__arg_data *)c->op_data;
    const mmd_tensor *x;
    int64_t axis_attr, keepdims, last, dims[MMD_MAX_RANK];
    int32_t axis = 0, rank = 0, i;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "axis", 0, &axis_attr);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "keepdims", 1, &keepdims);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "select_last_index", 0, &last);
    if (st == MMD_OK) st = mmd__want_typed(c, 0, &p->type);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__norm_axis(c, axis_attr, x->rank, &axis)) != MMD_OK) return st;
    mmd__axis_extents(x, axis, &p->outer, &p->n, &p->inner);
    for (i = 0; i < x->rank; ++i)
        if (i != axis || keepdims) dims[rank++] = i != axis ? x->dims[i] : 1;
    if (p->n == 0 && p->outer * p->inner > 0)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis %d of input '%s' is empty", (int)axis, x->name ? x->name : "");
    p->is_max = !strcmp(c->node->op_type, "ArgMax");
    p->last = last != 0;
    return mmd__set_output(c, 0, MMD_DTYPE_INT64, rank, dims);
}

static mmd_status mmd__arg_eval(mmd_kernel_ctx *c) {
    const mmd__arg_data *p = (const mmd__arg_data *)c->op_data;
    mmd__arg_fns[p->type](p, c->inputs[0]->data, (int64_t *)c->outputs[0]->data);
    return MMD_OK;
}

/* ---- CumSum ----------------------------------------------------------------------------- */

typedef struct mmd__cumsum_data {
    int32_t type, exclusive, reverse;   /* type: see mmd__want_typed */
} mmd__cumsum_data;

/* Each element is the previous sum plus the previous (exclusive) or current input; integer
   sums wrap through U. */
#define MMD__CUMSUM_TYPE(arg, sfx, T, U, ...)                                                  \
    static void mmd__cumsum_##sfx(const void *x_, void *y_, int64_t outer, int64_t n,          \
                                  int64_t inner, int32_t exclusive, int32_t reverse) {         \
        const T *x = (const T *)x_;                                                            \
        T *y = (T *)y_;                                                                        \
        int64_t o, t, j;                                                                       \
        for (o = 0; o < outer; ++o)                                                            \
            for (t = 0; t < n; ++t) {                                                          \
                int64_t i = reverse ? n - 1 - t : t, prev = reverse ? i + 1 : i - 1;           \
                const T *xr = x + (o * n + i) * inner;                                         \
                T *yr = y + (o * n + i) * inner;                                               \
                if (t == 0) {                                                                  \
                    for (j = 0; j < inner; ++j) yr[j] = exclusive ? (T)0 : xr[j];              \
                } else {                                                                       \
                    const T *yp = y + (o * n + prev) * inner;                                  \
                    const T *xp = exclusive ? x + (o * n + prev) * inner : xr;                 \
                    for (j = 0; j < inner; ++j) yr[j] = (T)((U)yp[j] + (U)xp[j]);              \
                }                                                                              \
            }                                                                                  \
    }
MMD__TYPED(MMD__CUMSUM_TYPE, 0)
#undef MMD__CUMSUM_TYPE
static void (*const mmd__cumsum_fns[])(const void *x, void *y, int64_t outer, int64_t n, int64_t inner,
                                       int32_t exclusive, int32_t reverse) = {
    MMD__TYPED(MMD__TYPED_FN, mmd__cumsum_)};

/* Checks CumSum's axis input: an int32 or int64 holding one value. */
static mmd_status mmd__cumsum_axis_input(mmd_kernel_ctx *c) {
    const mmd_tensor *t = c->inputs[1];
    if (t->dtype != MMD_DTYPE_INT32 && t->dtype != MMD_DTYPE_INT64)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "axis '%s' is %s, expects int32 or int64",
                               t->name ? t->name : "", mmd_dtype_name(t->dtype));
    if (t->rank > 1 || mmd_tensor_numel(t) != 1)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "axis '%s' must hold one value", t->name ? t->name : "");
    return MMD_OK;
}

/* CumSum 11 on: the axis is an input that eval reads, since the output shape does not depend
   on it; a constant axis is checked here already. */
static mmd_status mmd__cumsum_prepare(mmd_kernel_ctx *c) {
    mmd__cumsum_data *p = (mmd__cumsum_data *)c->op_data;
    const mmd_tensor *x;
    int64_t exclusive, reverse;
    int32_t axis;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd__cumsum_axis_input(c);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "exclusive", 0, &exclusive);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "reverse", 0, &reverse);
    if (st == MMD_OK) st = mmd__want_typed(c, 0, &p->type);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if (mmd_tensor_is_const(c->inputs[1]) &&
        (st = mmd__norm_axis(c, mmd__load_int(c->inputs[1]->dtype, c->inputs[1]->data, 0), x->rank, &axis)) != MMD_OK)
        return st;
    p->exclusive = exclusive != 0;
    p->reverse = reverse != 0;
    return mmd__set_output(c, 0, x->dtype, x->rank, x->dims);
}

static mmd_status mmd__cumsum_eval(mmd_kernel_ctx *c) {
    const mmd__cumsum_data *p = (const mmd__cumsum_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    int64_t axis = mmd__load_int(c->inputs[1]->dtype, c->inputs[1]->data, 0), outer, n, inner;
    if (axis < -(int64_t)x->rank || axis >= x->rank)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_ARGUMENT, "axis %lld is out of range for rank %d",
                               (long long)axis, (int)x->rank);
    mmd__axis_extents(x, (int32_t)(axis < 0 ? axis + x->rank : axis), &outer, &n, &inner);
    mmd__cumsum_fns[p->type](x->data, c->outputs[0]->data, outer, n, inner, p->exclusive, p->reverse);
    return MMD_OK;
}

/* ---- TopK ------------------------------------------------------------------------------- */

typedef struct mmd__topk_data {
    int64_t outer, n, inner;            /* the axis has n elements spaced `inner` apart */
    int64_t k;                          /* -1: read from input 1 by eval */
    int32_t type, axis, largest;        /* type: see mmd__want_typed */
} mmd__topk_data;

/* Selection with a heap of the k best indices seen so far whose root is the worst of them, so
   each further element costs one comparison, or O(log k) when it enters: O(n log k) per slice
   instead of sorting all n. Popping the worst to the back then leaves the heap best-first.
   Order: larger first (smaller when !largest), NaN above every number as numpy sorts it, equal
   values by lower index, which is also how the ONNX reference breaks ties. */
#define MMD__TOPK_TYPE(arg, sfx, T, U, ACC, ISNAN, ...)                                        \
    static int32_t mmd__topk_before_##sfx(const T *x, int64_t s, int64_t i, int64_t j,         \
                                          int32_t largest) {                                   \
        T a = x[i * s], b = x[j * s];                                                          \
        if (ISNAN(a) || ISNAN(b)) return ISNAN(a) && ISNAN(b) ? i < j : largest ? ISNAN(a) : ISNAN(b); \
        if (a != b) return largest ? a > b : a < b;                                            \
        return i < j;                                                                          \
    }                                                                                          \
    static void mmd__topk_sift_##sfx(const T *x, int64_t s, int64_t *h, int64_t size,          \
                                     int64_t at, int32_t largest) {                            \
        for (;;) {                                                                             \
            int64_t l = 2 * at + 1, r = l + 1, worst = at, tmp;                                \
            if (l < size && mmd__topk_before_##sfx(x, s, h[worst], h[l], largest)) worst = l;  \
            if (r < size && mmd__topk_before_##sfx(x, s, h[worst], h[r], largest)) worst = r;  \
            if (worst == at) return;                                                           \
            tmp = h[at];                                                                       \
            h[at] = h[worst];                                                                  \
            h[worst] = tmp;                                                                    \
            at = worst;                                                                        \
        }                                                                                      \
    }                                                                                          \
    static void mmd__topk_##sfx(const mmd__topk_data *p, int64_t k, const void *x_, void *v_,  \
                                int64_t *idx, int64_t *h) {                                    \
        const T *x = (const T *)x_;                                                            \
        T *v = (T *)v_;                                                                        \
        int64_t o, in, i, size, s = p->inner;                                                  \
        if (k == 0) return;                                                                    \
        for (o = 0; o < p->outer; ++o)                                                         \
            for (in = 0; in < s; ++in) {                                                       \
                const T *xs = x + o * p->n * s + in;                                           \
                int64_t base = o * k * s + in;                                                 \
                for (size = 0, i = 0; i < p->n; ++i) {                                         \
                    if (size < k) {                                                            \
                        int64_t j = size++;                                                    \
                        h[j] = i;                                                              \
                        while (j > 0 && mmd__topk_before_##sfx(xs, s, h[(j - 1) / 2], h[j], p->largest)) { \
                            int64_t up = (j - 1) / 2, tmp = h[up];                             \
                            h[up] = h[j];                                                      \
                            h[j] = tmp;                                                        \
                            j = up;                                                            \
                        }                                                                      \
                    } else if (mmd__topk_before_##sfx(xs, s, i, h[0], p->largest)) {           \
                        h[0] = i;                                                              \
                        mmd__topk_sift_##sfx(xs, s, h, size, 0, p->largest);                   \
                    }                                                                          \
                }                                                                              \
                while (size > 1) {                                                             \
                    int64_t tmp = h[0];                                                        \
                    h[0] = h[--size];                                                          \
                    h[size] = tmp;                                                             \
                    mmd__topk_sift_##sfx(xs, s, h, size, 0, p->largest);                       \
                }                                                                              \
                for (i = 0; i < k; ++i) {                                                      \
                    v[base + i * s] = xs[h[i] * s];                                            \
                    if (idx) idx[base + i * s] = h[i];                                         \
                }                                                                              \
            }                                                                                  \
    }
MMD__TYPED(MMD__TOPK_TYPE, 0)
#undef MMD__TOPK_TYPE
static void (*const mmd__topk_fns[])(const mmd__topk_data *p, int64_t k, const void *x, void *v,
                                     int64_t *idx, int64_t *h) = {
    MMD__TYPED(MMD__TYPED_FN, mmd__topk_)};

/* TopK 1 to 9 takes k as an attribute, 10 on as input 1 (int64, one value); 11 adds largest
   and sorted (the result is always sorted, which sorted = 0 allows). A k not known now plans
   both outputs with the whole axis as bound and marks them dynamic; eval then sets the real
   size of the axis. */
static mmd_status mmd__topk_prepare(mmd_kernel_ctx *c) {
    mmd__topk_data *p = (mmd__topk_data *)c->op_data;
    const mmd_tensor *x;
    int64_t axis_attr, largest, k = -1, dims[MMD_MAX_RANK];
    int32_t axis = 0, i;
    mmd_status st = mmd__check_io(c, c->opset < 10 ? 1 : 2, c->opset < 10 ? 1 : 2, 2);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "axis", -1, &axis_attr);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "largest", 1, &largest);
    if (st == MMD_OK && c->opset < 10) st = mmd_attr_get_int(c, "k", -1, &k);
    if (st == MMD_OK) st = mmd__want_typed(c, 0, &p->type);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__norm_axis(c, axis_attr, x->rank, &axis)) != MMD_OK) return st;
    if (c->opset >= 10) {
        const mmd_tensor *t = c->inputs[1];
        if ((st = mmd__want_dtype(c, 1, MMD_DTYPE_INT64)) != MMD_OK) return st;
        if (t->rank > 1 || mmd_tensor_numel(t) != 1)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "k '%s' must hold one value", t->name ? t->name : "");
        if (mmd_tensor_is_const(t)) k = *(const int64_t *)t->data;
        else k = -1;
    }
    mmd__axis_extents(x, axis, &p->outer, &p->n, &p->inner);
    for (i = 0; i < x->rank; ++i) dims[i] = x->dims[i];
    if ((c->opset < 10 || mmd_tensor_is_const(c->inputs[1])) && (k < 0 || k > p->n))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "k %lld is out of range for axis %d of size %lld",
                               (long long)k, (int)axis, (long long)p->n);
    p->k = k;
    p->axis = axis;
    p->largest = largest != 0;
    dims[axis] = k >= 0 ? k : p->n;
    if ((st = mmd__set_output(c, 0, x->dtype, x->rank, dims)) != MMD_OK) return st;
    if (k < 0) c->outputs[0]->dynamic = 1;
    if (c->output_count > 1 && c->outputs[1]) {
        if ((st = mmd__set_output(c, 1, MMD_DTYPE_INT64, x->rank, dims)) != MMD_OK) return st;
        if (k < 0) c->outputs[1]->dynamic = 1;
    }
    c->scratch_size = (size_t)dims[axis] * sizeof(int64_t);
    return MMD_OK;
}

static mmd_status mmd__topk_eval(mmd_kernel_ctx *c) {
    const mmd__topk_data *p = (const mmd__topk_data *)c->op_data;
    mmd_tensor *values = c->outputs[0], *indices = c->output_count > 1 ? c->outputs[1] : NULL;
    const void *x = c->inputs[0]->data;
    int64_t k = p->k, *idx = indices ? (int64_t *)indices->data : NULL, *heap = (int64_t *)c->scratch;
    if (k < 0) {
        k = *(const int64_t *)c->inputs[1]->data;
        if (k < 0 || k > p->n)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_ARGUMENT, "k %lld is out of range for axis %d of size %lld",
                                   (long long)k, (int)p->axis, (long long)p->n);
        values->dims[p->axis] = k;
        if (indices) indices->dims[p->axis] = k;
    }
    mmd__topk_fns[p->type](p, k, x, values->data, idx, heap);
    return MMD_OK;
}

/* ---- Einsum ----------------------------------------------------------------------------- */

#define MMD__EINSUM_MAX_INPUTS 8
#define MMD__EINSUM_MAX_LABELS 32
/* Label ids: 'A'-'Z' are 0-25 and 'a'-'z' 26-51, so that ascending ids are the ASCII order
   numpy gives an implicit output; 52 + e is the e-th broadcast axis an ellipsis stands for. */
#define MMD__EINSUM_ELLIPSIS 52
#define MMD__EINSUM_IDS (MMD__EINSUM_ELLIPSIS + MMD_MAX_RANK)
/* Bound on the product of all label sizes, the number of multiply-adds eval does per input. */
#define MMD__EINSUM_WORK_MAX ((int64_t)1 << 50)

typedef struct mmd__einsum_data {
    int32_t type, inputs, labels, out;  /* type: see mmd__want_typed; labels [0, out) index the
                                           output, the rest are summed */
    int32_t empty_sum;                  /* a summed label has size 0: every output is 0 */
    int64_t size[MMD__EINSUM_MAX_LABELS];
    int64_t stride[MMD__EINSUM_MAX_INPUTS][MMD__EINSUM_MAX_LABELS]; /* 0: absent or broadcast */
} mmd__einsum_data;

/* Reads the labels of one term up to ',', '-' or the end into raw (-1 marks the ellipsis),
   skipping spaces; -1 when the term is malformed or has more than cap labels. */
static int32_t mmd__einsum_scan(const char **ps, int32_t *raw, int32_t cap, int32_t *ellipsis) {
    const char *s = *ps;
    int32_t n = 0;
    *ellipsis = 0;
    for (; *s && *s != ',' && *s != '-'; ++s) {
        int32_t id;
        if (*s == ' ') continue;
        if (*s == '.') {
            if (*ellipsis || s[1] != '.' || s[2] != '.') return -1;
            *ellipsis = 1;
            id = -1;
            s += 2;
        } else if (*s >= 'A' && *s <= 'Z') {
            id = *s - 'A';
        } else if (*s >= 'a' && *s <= 'z') {
            id = 26 + (*s - 'a');
        } else {
            return -1;
        }
        if (n == cap) return -1;
        raw[n++] = id;
    }
    *ps = s;
    return n;
}

/* Einsum 12 on: explicit ("ij,jk->ik") and implicit ("ij,jk") outputs, repeated labels in a
   term (diagonals), "..." broadcast axes, size-1 axes broadcast against any size. Labels that
   are not in the output are summed. */
static mmd_status mmd__einsum_prepare(mmd_kernel_ctx *c) {
    mmd__einsum_data *p = (mmd__einsum_data *)c->op_data;
    const char *eq, *s;
    int32_t raw[MMD__EINSUM_MAX_INPUTS + 1][MMD_MAX_RANK + 1], nraw[MMD__EINSUM_MAX_INPUTS + 1];
    int32_t ell[MMD__EINSUM_MAX_INPUTS], has_ell, ell_rank = 0, count[MMD__EINSUM_IDS] = {0};
    int32_t pos[MMD__EINSUM_IDS], ids[MMD__EINSUM_MAX_LABELS], axis_id[MMD_MAX_RANK];
    int64_t size[MMD__EINSUM_IDS], dims[MMD_MAX_RANK], work = 1;
    int32_t i, j, r, id, n = 0, explicit_out = 0;
    mmd_status st = mmd__check_io(c, 1, MMD__EINSUM_MAX_INPUTS, 1);
    if (st == MMD_OK) st = mmd_attr_get_string(c, "equation", NULL, &eq);
    if (st != MMD_OK) return st;
    if (!eq) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute 'equation' is required");
    if ((st = mmd__want_typed(c, 0, &p->type)) != MMD_OK) return st;
    p->inputs = c->input_count;
    /* Terms first, to learn how many axes the ellipsis stands for in each input. */
    s = eq;
    for (i = 0; i < c->input_count; ++i) {
        const mmd_tensor *x = c->inputs[i];
        int32_t letters;
        if (!x) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "input %d is required", (int)i);
        if ((st = mmd__want_dtype(c, i, c->inputs[0]->dtype)) != MMD_OK) return st;
        nraw[i] = mmd__einsum_scan(&s, raw[i], MMD_MAX_RANK + 1, &has_ell);
        if (nraw[i] < 0 || (i + 1 < c->input_count ? *s != ',' : *s == ','))
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "equation '%s': term %d is malformed or the "
                                   "equation does not have %d terms", eq, (int)i, (int)c->input_count);
        if (*s == ',') ++s;
        letters = nraw[i] - has_ell;
        if (has_ell ? letters > x->rank : letters != x->rank)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "equation '%s': term %d has %d labels for input '%s' of rank %d",
                                   eq, (int)i, (int)letters, x->name ? x->name : "", (int)x->rank);
        ell[i] = has_ell ? x->rank - letters : 0;
        if (ell[i] > ell_rank) ell_rank = ell[i];
    }
    if (*s == '-') {
        if (s[1] != '>') return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "equation '%s': '-' without '>'", eq);
        s += 2;
        nraw[c->input_count] = mmd__einsum_scan(&s, raw[c->input_count], MMD_MAX_RANK + 1, &has_ell);
        if (nraw[c->input_count] < 0 || *s)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "equation '%s': the output term is malformed", eq);
        /* numpy, the reference, refuses to sum the broadcast axes away silently. */
        if (ell_rank > 0 && !has_ell)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "equation '%s': the output needs '...'", eq);
        explicit_out = 1;
    }
    /* Sizes of every label; a size-1 axis broadcasts against any other size. */
    for (id = 0; id < MMD__EINSUM_IDS; ++id) size[id] = -1;
    for (i = 0; i < c->input_count; ++i) {
        const mmd_tensor *x = c->inputs[i];
        for (j = 0, r = 0; j < nraw[i]; ++j) {
            int32_t e, span = raw[i][j] >= 0 ? 1 : ell[i];
            for (e = 0; e < span; ++e, ++r) {
                id = raw[i][j] >= 0 ? raw[i][j] : MMD__EINSUM_ELLIPSIS + ell_rank - ell[i] + e;
                count[id]++;
                if (size[id] < 0 || size[id] == 1) size[id] = x->dims[r];
                else if (x->dims[r] != size[id] && x->dims[r] != 1)
                    return mmd_kernel_fail(c, MMD_ERR_SHAPE, "equation '%s': input '%s' axis %d has size %lld, "
                                           "elsewhere the label has %lld", eq, x->name ? x->name : "", (int)r,
                                           (long long)x->dims[r], (long long)size[id]);
            }
        }
    }
    /* Output labels: as written, or the broadcast axes then the labels used once, ascending. */
    for (id = 0; id < MMD__EINSUM_IDS; ++id) pos[id] = -1;
    if (explicit_out) {
        for (j = 0; j < nraw[c->input_count]; ++j) {
            int32_t e, span = raw[c->input_count][j] >= 0 ? 1 : ell_rank;
            for (e = 0; e < span; ++e) {
                id = raw[c->input_count][j] >= 0 ? raw[c->input_count][j] : MMD__EINSUM_ELLIPSIS + e;
                if (!count[id] || pos[id] >= 0)
                    return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "equation '%s': output label %d is %s", eq,
                                           (int)j, count[id] ? "repeated" : "in no input");
                if (n == MMD_MAX_RANK) return mmd_kernel_fail(c, MMD_ERR_LIMIT, "equation '%s': output rank too large", eq);
                pos[id] = n;
                ids[n++] = id;
            }
        }
    } else {
        for (id = MMD__EINSUM_ELLIPSIS; id < MMD__EINSUM_ELLIPSIS + ell_rank; ++id) {
            pos[id] = n;
            ids[n++] = id;
        }
        for (id = 0; id < MMD__EINSUM_ELLIPSIS; ++id)
            if (count[id] == 1) {
                if (n == MMD_MAX_RANK) return mmd_kernel_fail(c, MMD_ERR_LIMIT, "equation '%s': output rank too large", eq);
                pos[id] = n;
                ids[n++] = id;
            }
    }
    p->out = n;
    for (id = 0; id < MMD__EINSUM_IDS; ++id)
        if (count[id] && pos[id] < 0) {
            if (n == MMD__EINSUM_MAX_LABELS)
                return mmd_kernel_fail(c, MMD_ERR_LIMIT, "equation '%s' has more than %d labels", eq,
                                       (int)MMD__EINSUM_MAX_LABELS);
            pos[id] = n;
            ids[n++] = id;
        }
    p->labels = n;
    p->empty_sum = 0;
    for (j = 0; j < n; ++j) {
        p->size[j] = size[ids[j]];
        if (j < p->out) dims[j] = p->size[j];
        else if (p->size[j] == 0) p->empty_sum = 1;
        if (p->size[j] > 1) {
            if (p->size[j] > MMD__EINSUM_WORK_MAX / work)
                return mmd_kernel_fail(c, MMD_ERR_LIMIT, "equation '%s' needs too many multiply-adds", eq);
            work *= p->size[j];
        }
    }
    /* Strides: an input's repeated label steps along all of its axes at once (a diagonal). */
    for (i = 0; i < c->input_count; ++i) {
        const mmd_tensor *x = c->inputs[i];
        int64_t step = 1;
        for (j = 0; j < n; ++j) p->stride[i][j] = 0;
        for (j = 0, r = 0; j < nraw[i]; ++j) {
            int32_t e, span = raw[i][j] >= 0 ? 1 : ell[i];
            for (e = 0; e < span; ++e, ++r)
                axis_id[r] = raw[i][j] >= 0 ? raw[i][j] : MMD__EINSUM_ELLIPSIS + ell_rank - ell[i] + e;
        }
        for (r = x->rank - 1; r >= 0; --r) {
            if (x->dims[r] != 1) p->stride[i][pos[axis_id[r]]] += step;
            step *= x->dims[r];
        }
    }
    return mmd__set_output(c, 0, c->inputs[0]->dtype, p->out, dims);
}

/* Advances the labels [lo, hi) like an odometer (the last fastest) and each input's offset
   with them; 0 once every index has wrapped back to 0. */
static int32_t mmd__einsum_next(const mmd__einsum_data *p, int32_t lo, int32_t hi, int64_t *idx,
                                int64_t *off) {
    int32_t d, i;
    for (d = hi - 1; d >= lo; --d) {
        for (i = 0; i < p->inputs; ++i) off[i] += p->stride[i][d];
        if (++idx[d] < p->size[d]) return 1;
        for (i = 0; i < p->inputs; ++i) off[i] -= p->stride[i][d] * p->size[d];
        idx[d] = 0;
    }
    return 0;
}

/* Every output element is a sum over the summed labels of the product of one element of each
   input; the last summed label is the innermost loop. Floats accumulate in double, integers
   in uint64_t (wrapping, as the integer kernels do). */
#define MMD__EINSUM_TYPE(arg, sfx, T, U, ACC, ...)                                             \
    static void mmd__einsum_##sfx(const mmd__einsum_data *p, mmd_tensor *const *in, void *y_) { \
        const T *x[MMD__EINSUM_MAX_INPUTS];                                                    \
        T *y = (T *)y_;                                                                        \
        int64_t idx[MMD__EINSUM_MAX_LABELS] = {0}, off[MMD__EINSUM_MAX_INPUTS] = {0};          \
        int64_t ls[MMD__EINSUM_MAX_INPUTS], e = 0, t, len = 1;                                 \
        int32_t i, summed = p->labels > p->out, hi = summed ? p->labels - 1 : p->out;          \
        for (i = 0; i < p->inputs; ++i) {                                                      \
            x[i] = (const T *)in[i]->data;                                                     \
            ls[i] = summed ? p->stride[i][p->labels - 1] : 0;                                  \
        }                                                                                      \
        if (summed) len = p->size[p->labels - 1];                                              \
        for (;;) {                                                                             \
            ACC acc = 0;                                                                       \
            while (!p->empty_sum) {                                                            \
                for (t = 0; t < len; ++t) {                                                    \
                    ACC prod = 1;                                                              \
                    for (i = 0; i < p->inputs; ++i) prod *= (ACC)x[i][off[i] + t * ls[i]];     \
                    acc += prod;                                                               \
                }                                                                              \
                if (!mmd__einsum_next(p, p->out, hi, idx, off)) break;                         \
            }                                                                                  \
            y[e++] = (T)acc;                                                                   \
            if (!mmd__einsum_next(p, 0, p->out, idx, off)) break;                              \
        }                                                                                      \
    }
MMD__TYPED(MMD__EINSUM_TYPE, 0)
#undef MMD__EINSUM_TYPE
static void (*const mmd__einsum_fns[])(const mmd__einsum_data *p, mmd_tensor *const *in, void *y) = {
    MMD__TYPED(MMD__TYPED_FN, mmd__einsum_)};

static mmd_status mmd__einsum_eval(mmd_kernel_ctx *c) {
    const mmd__einsum_data *p = (const mmd__einsum_data *)c->op_data;
    if (mmd_tensor_numel(c->outputs[0]) == 0) return MMD_OK;
    mmd__einsum_fns[p->type](p, c->inputs, c->outputs[0]->data);
    return MMD_OK;
}

#undef MMD__TYPED_FN
#undef MMD__TYPED
#undef MMD__ISNAN_FLOAT
#undef MMD__ISNAN_INT

/* ==== >>ops gemm ==== */
/* The one matrix product: C (m x n, row stride ldc) = act(A (m x k) * B (k x n) + init), used
   by Conv, ConvTranspose, Gemm, MatMul and the deformable convolutions. It is blocked as the
   fast BLAS libraries are (Goto and van de Geijn, "Anatomy of high-performance matrix
   multiplication"): K in blocks (mmd__gemm_kc), A in row panels of MR rows (mmd__gemm_mr: the
   instruction set's micro-kernel height) laid out [k][MR] so the micro-kernel reads it in
   order, B in column panels of NR columns, and a register-tiled micro-kernel that keeps the whole MR x NR tile of C in registers for one K
   block. B is read in place whenever its columns are contiguous (a row-major matrix, an NCHW
   plane, a padded plane for a stride-1 convolution): the micro-kernel takes a table with the
   offset of each of its K rows, so no im2col copy is needed there; other B layouts are packed
   per block. A that is a constant (weights) is packed once at plan time into the arena.
   Work is split over the session's threads by column blocks (or row blocks when C is narrow);
   every element is summed in the same order whatever the thread count, so results do not
   depend on it. */
#ifdef MMD_CONV_SMALL
/* Firmware: blocks sized for a scratch of a few kilobytes, not for caches it does not have. */
#ifndef MMD_GEMM_KC
#define MMD_GEMM_KC 64
#endif
#ifndef MMD_GEMM_MC
#define MMD_GEMM_MC 12
#endif
#ifndef MMD_GEMM_NC
#define MMD_GEMM_NC 32
#endif
#endif
#ifndef MMD_GEMM_KC
#define MMD_GEMM_KC 256                 /* K block: A's and B's panels stay in L1 */
#endif
#ifndef MMD_GEMM_MC
#define MMD_GEMM_MC 120                 /* rows of A per block (rounded down to a multiple of MR): */
#endif                                  /* stays in L2 */
#ifndef MMD_GEMM_MR_AVX512
#define MMD_GEMM_MR_AVX512 8            /* rows of the AVX-512 micro-kernel, 8 or 12: 8 x 32 was */
#endif                                  /* the fastest on Zen 5, whose L1 takes the panels */
#ifndef MMD_GEMM_NC
#define MMD_GEMM_NC 1024                /* columns of B packed at once */
#endif
#ifndef MMD_GEMM_NR_PORTABLE
#define MMD_GEMM_NR_PORTABLE (MMD__C_VEC >= 8 ? 16 : 8) /* columns of the portable micro-kernel: */
#endif                                  /* 8, 16 (wider vectors) or 4 (fits a Cortex-M FPU's registers) */
#define MMD__GEMM_MR 6                  /* rows of the AVX2 and NEON micro-kernels */
/* Rows of the portable micro-kernel: 4 x 8 keeps its 32 sums in eight 4-float vectors, which
   with B's two vectors and A's broadcast fit the 16 registers of SSE2 (6 x 8 spilled six sums
   to the stack on every step of K); 6 x 4 keeps 24 sums in a Cortex-M FPU's 32 registers. With
   AVX2 the tile is 4 x 16 (eight sums in 8-float vectors; GCC 12 broadcasts all of a K step's
   A values before the multiply-adds, so 6 x 16 spilled six sums on every step), with AVX-512
   8 x 16: eight sums in 16-float vectors or sixteen in 8-float ones, which both fit its 32
   registers (8 x 32 in 8-float vectors spilled 25 on every step). In 16-float vectors, CPU
   time per run (perf task-clock, medians of 3): 8 x 16 38.6 ms for ResNet-18 and 12.0 for
   MobileNetV2, 8 x 32 39.6 and 11.2, 4 x 32 12.6 (MobileNetV2); 8 x 16 in 8-float vectors
   42.1 and 13.4. */
#if MMD_GEMM_NR_PORTABLE == 16
#define MMD__GEMM_MR_PORTABLE (MMD__C_VEC == 16 ? 8 : 4)
#elif MMD_GEMM_NR_PORTABLE == 8
#define MMD__GEMM_MR_PORTABLE 4
#else
#define MMD__GEMM_MR_PORTABLE 6
#endif
#define MMD__GEMM_MR_MAX 12             /* the most rows of any micro-kernel */
/* Weights are packed at plan time (mmd_kernel_packed) only in plans from ONNX: a .mmd blob's plan
   reads them in place, so a MMD_NO_ONNX build, which plans blobs only, leaves the packing out. */
#ifdef MMD_NO_ONNX
#define MMD__PACKS 0
#else
#define MMD__PACKS 1
#endif
#if MMD_GEMM_NR_PORTABLE != 4 && MMD_GEMM_NR_PORTABLE != 8 && MMD_GEMM_NR_PORTABLE != 16
#error "MMD_GEMM_NR_PORTABLE must be 4, 8 or 16"
#endif
#if MMD_GEMM_MR_AVX512 != 8 && MMD_GEMM_MR_AVX512 != 12
#error "MMD_GEMM_MR_AVX512 must be 8 or 12"
#endif
#if MMD_GEMM_MC < 1 || MMD_GEMM_NC % 32 || MMD_GEMM_NC < 1 || MMD_GEMM_KC < 1
#error "MMD_GEMM_MC must be positive, MMD_GEMM_NC a positive multiple of 32, MMD_GEMM_KC positive"
#endif

/* Micro-kernel flags. FIRST: this is C's first K block, so C starts from the bias (and from
   C's old contents with LOAD); otherwise the block adds to C. CLAMP: the last K block applies
   max(lo, min(hi, .)), which is Relu and Clip fused. PREFETCH: this is the first column panel
   to read the block of A, which comes from memory; the x86 kernels prefetch the next row
   panel then (see mmd__gemm_ukernel_avx512). PREFETCH_B: B is read in place (its K rows at
   boff, the next column panel nr floats on), and this is the first row panel over this column
   panel; the AVX-512 kernel prefetches the same rows MMD__B_PREFETCH floats on. PREFETCH_C: the
   AVX-512 kernel asks for the lines of C's rows MMD__C_PREFETCH floats on (a product whose
   tiles run along one row panel, mmd__gemm.prefetch_c). CONT and RAW (the portable six-row
   SPREAD tile only, a K block split into parts, see mmd__gemm_block): CONT starts the sums from
   C's floats (an earlier part's), not zero; RAW stores the sums as they are (no bias, start
   values or clamp: a later part follows). */
enum { MMD__GK_FIRST = 1, MMD__GK_LOAD = 2, MMD__GK_CLAMP = 4, MMD__GK_PREFETCH = 8, MMD__GK_PREFETCH_B = 16,
       MMD__GK_PREFETCH_C = 32, MMD__GK_SPREAD = 64, MMD__GK_CONT = 128, MMD__GK_RAW = 256 };

typedef void (*mmd__gemm_ukernel)(int64_t kc, const float *a, const float *b, const int64_t *boff,
                                  float *c, int64_t ldc, const float *bias, int32_t flags, float lo,
                                  float hi);

/* Column panel width and row panel height of each instruction set's micro-kernel. */
static int64_t mmd__gemm_nr(int32_t isa) {
    return isa == MMD__ISA_AVX512 ? 32 : isa == MMD__ISA_AVX2 || isa == MMD__ISA_NEON ? 16 : MMD_GEMM_NR_PORTABLE;
}

static int64_t mmd__gemm_mr(int32_t isa) {
    return isa == MMD__ISA_AVX512 ? MMD_GEMM_MR_AVX512 : isa == MMD__ISA_PORTABLE ? MMD__GEMM_MR_PORTABLE : MMD__GEMM_MR;
}

/* Rows of A per block: MMD_GEMM_MC rounded down to whole row panels. */
static int64_t mmd__gemm_mc(int32_t isa) {
    int64_t mr = mmd__gemm_mr(isa);
    return MMD_GEMM_MC < mr ? mr : MMD_GEMM_MC / mr * mr;
}

/* K block, the same for every instruction set (a parameter so that packing can follow it). */
static int64_t mmd__gemm_kc(int32_t isa) {
    (void)isa;
    return MMD_GEMM_KC;
}

#ifndef MMD_CONV_SMALL
/* The epilogue of one row of the portable kernels (V, NR sums, into the row CR; flags, lo and hi
   in scope): the first block adds the bias (*BIAS, or none), then C's old values (LOAD); a later
   block adds C's partial sums (one addition, so the order of its operands does not matter).
   MMD__GEMM_STORE_CZ reads those old values or partial sums from the row ZR instead of CR. The
   loops have the constant trip count NR with the flags tested outside them, so GCC's -O2
   vectoriser (which takes only loops whose trip count it knows) turns each into vector operations.
   A macro, as MMD__GEMM_EPILOGUE is for x86: as a function GCC called it for every row of every
   tile, with the sums stored to the stack for it. The common case, a single K block with a bias
   and no start values (with or without a clamp), goes in one loop that reads each sum once and
   stores it to C, where the general case stores the sums back to their stack copy after each step:
   with K = 16 to 32 the epilogue is a large part of a tile. MMD_NO_SIMD, one thread, warm, Clip
   fused, best of 40, three alternations: MobileNetV2's 16 -> 96 at 112x112 (SWEEP) 1.342-1.344 ->
   1.227-1.235 ms, 24 -> 144 at 56x56 (SWEEP) 0.651-0.672 -> 0.596-0.608, 32 -> 192 at 28x28
   0.274-0.280 -> 0.260, 32 -> 16 at 112x112 0.414-0.418 -> 0.397-0.401, 96 -> 576 at 14x14
   0.532-0.546 -> 0.523-0.524. */
#define MMD__GEMM_STORE_C(CR, V, BIAS) MMD__GEMM_STORE_CZ(CR, CR, V, BIAS)
#define MMD__GEMM_STORE_CZ(CR, ZR, V, BIAS)                                                     \
    do {                                                                                       \
        int32_t j_;                                                                            \
        if ((flags & (MMD__GK_FIRST | MMD__GK_LOAD)) == MMD__GK_FIRST && (BIAS)) {             \
            float b_ = *(BIAS);                                                                \
            if (flags & MMD__GK_CLAMP)                                                         \
                for (j_ = 0; j_ < MMD_GEMM_NR_PORTABLE; ++j_) {                                \
                    float u_ = (V)[j_] + b_;                                                   \
                    u_ = u_ < lo ? lo : u_;                                                    \
                    (CR)[j_] = u_ > hi ? hi : u_;                                              \
                }                                                                              \
            else                                                                               \
                for (j_ = 0; j_ < MMD_GEMM_NR_PORTABLE; ++j_) (CR)[j_] = (V)[j_] + b_;         \
        } else {                                                                               \
            if ((flags & MMD__GK_FIRST) && (BIAS))                                             \
                for (j_ = 0; j_ < MMD_GEMM_NR_PORTABLE; ++j_) (V)[j_] += *(BIAS);              \
            if (!(flags & MMD__GK_FIRST) || (flags & MMD__GK_LOAD))                            \
                for (j_ = 0; j_ < MMD_GEMM_NR_PORTABLE; ++j_) (V)[j_] += (ZR)[j_];             \
            if (flags & MMD__GK_CLAMP)                                                         \
                for (j_ = 0; j_ < MMD_GEMM_NR_PORTABLE; ++j_) {                                \
                    (V)[j_] = (V)[j_] < lo ? lo : (V)[j_];                                     \
                    (V)[j_] = (V)[j_] > hi ? hi : (V)[j_];                                     \
                }                                                                              \
            for (j_ = 0; j_ < MMD_GEMM_NR_PORTABLE; ++j_) (CR)[j_] = (V)[j_];                  \
        }                                                                                      \
    } while (0)
#endif

/* The portable micro-kernel (MMD__GEMM_MR_PORTABLE x MMD_GEMM_NR_PORTABLE). Every index of acc
   is a constant in the K loop, so compilers keep acc in vector registers at -O2 (they do not
   for loops over it there); each row then leaves through MMD__GEMM_STORE_C. With PREFETCH (the
   first column panel over a block of A) each K step asks, where GCC or Clang compile it, for
   the line of the next row panel as far on, as the x86 kernels do: packed weights come from
   memory, and a row panel of 4 x 256 floats is one 4 KiB page, past which the hardware's
   prefetcher does not follow, so every tile started on a page of misses. MMD_NO_SIMD, one
   thread, thread CPU time, medians of 20 runs alternating with and without in one process
   (a cache flush before each): ResNet-18's 512-channel 7x7 3x3 (F(2x2) Winograd, 16.8 MB of
   transformed weights) 6.33 -> 4.82 ms, its 256-channel 14x14 3x3 3.51 -> 2.95, its
   256 -> 512 3x3 stride 2 5.22 -> 4.24; with warm caches 0.91, 0.95 and 0.96 of before.
   SPREAD (the 4 x 8 tile of SSE2-sized builds only, see mmd__gemm_block): A comes spread, each
   value four times in a row ([kc][4][4]), so that a K step loads its four rows' values as
   vectors instead of broadcasting them; SSE2 has no broadcast load, and its four shuffles a
   step shared the vector ports with the eight multiplies and eight additions (in L1, 4 x 8 over
   K = 256: about 35 GFLOP/s broadcasting, 41 spread, on a Xeon whose mulps + addps peak is
   45.6). */
#if !defined(MMD_CONV_SMALL) && MMD__GEMM_MR_PORTABLE == 4 && MMD_GEMM_NR_PORTABLE == 8
#define MMD__GEMM_SPREAD_C 1
#define MMD__GEMM_SPREAD_KMAX 160       /* most K, and fewest columns of a block, for SPREAD */
#define MMD__GEMM_SPREAD_NMIN 512
#define MMD__GEMM_SPREAD_PANELS 8       /* or at least this many column panels in a block whose */
#define MMD__GEMM_SPREAD_BMAX 163840    /* K block of B is at most this many floats (640 KB) */
#define MMD__GEMM_BSPREAD_MMIN 320      /* fewest rows of a share for BSPREAD (mmd__gemm_block) */
#define MMD__GEMM_SPREAD_ACROSS 8192    /* most floats (32 KB) of spread A a group of row panels */
#define MMD__GEMM_SPREAD_ACROSS_K 48    /* for K blocks of at most this (see mmd__gemm_block) */
#define MMD__GEMM_SPLIT_B 65536         /* K blocks of B of more floats over few rows, or with */
#define MMD__GEMM_SET_ROWS 8            /* more rows than this in a set of L1, are split (see */
                                        /* mmd__gemm_block) */
/* Four columns (j on) of row r of a SPREAD tile, whose A values of a K step come four times each,
   row r's at a + 4r. */
#define MMD__GEMM_SPREAD4_C(r, j)                                                                \
    acc[r][j] += a[4 * (r)] * bp[j], acc[r][(j) + 1] += a[4 * (r) + 1] * bp[(j) + 1],              \
    acc[r][(j) + 2] += a[4 * (r) + 2] * bp[(j) + 2], acc[r][(j) + 3] += a[4 * (r) + 3] * bp[(j) + 3]
/* Four sums (j on) of row r of a six-row tile starting from C's partial sums (MMD__GK_CONT), one
   element at a time with constant indices: GCC then loads them straight into the sums' registers,
   where a loop of memcpy went through their stack copy (1-3% of a split product's time). */
#define MMD__GEMM_CONT4_C(r, j)                                                                  \
    acc[r][j] = c[(r) * ldc + (j)], acc[r][(j) + 1] = c[(r) * ldc + (j) + 1],                     \
    acc[r][(j) + 2] = c[(r) * ldc + (j) + 2], acc[r][(j) + 3] = c[(r) * ldc + (j) + 3]
#endif
/* The portable micro-kernels start on a cache line (not in firmware, whose .text has no room for
   the padding), so that their K loops sit the same way in the lines and fetch windows whatever
   code is added before them. The same bytes of both kernels placed 240 bytes lower (0x...90
   instead of 0x...80, by a change elsewhere) ran MobileNetV2's 1x1 projections (its conv.2
   nodes, MMD_NO_SIMD, 1 thread, thread CPU time, medians of 12 alternated rounds of 40 runs)
   1.013-1.024x their time and the whole model 1.014x; aligned, 0.994x and 0.993x. */
#if !defined(MMD_CONV_SMALL) && (defined(__GNUC__) || defined(__clang__))
#define MMD__KERNEL_ALIGN __attribute__((aligned(64)))
#else
#define MMD__KERNEL_ALIGN
#endif
static MMD__KERNEL_ALIGN void mmd__gemm_ukernel_c(int64_t kc, const float *a, const float *b, const int64_t *boff,
                                float *c, int64_t ldc, const float *bias, int32_t flags, float lo,
                                float hi) {
    float acc[MMD__GEMM_MR_PORTABLE][MMD_GEMM_NR_PORTABLE];
    int64_t p = 0;
    int32_t i;
    memset(acc, 0, sizeof acc);
    /* Four columns of row r, from B's row bp. */
#define MMD__GEMM_COLS4_C(r, av, j)                                                              \
    acc[r][j] += (av) * bp[j], acc[r][(j) + 1] += (av) * bp[(j) + 1], acc[r][(j) + 2] += (av) * bp[(j) + 2], \
    acc[r][(j) + 3] += (av) * bp[(j) + 3]
#if MMD_GEMM_NR_PORTABLE == 16
#define MMD__GEMM_ROW_C(r, av)                                                                   \
    MMD__GEMM_COLS4_C(r, av, 0), MMD__GEMM_COLS4_C(r, av, 4), MMD__GEMM_COLS4_C(r, av, 8),      \
    MMD__GEMM_COLS4_C(r, av, 12)
#elif MMD_GEMM_NR_PORTABLE == 8
#define MMD__GEMM_ROW_C(r, av) MMD__GEMM_COLS4_C(r, av, 0), MMD__GEMM_COLS4_C(r, av, 4)
#else
#define MMD__GEMM_ROW_C(r, av) MMD__GEMM_COLS4_C(r, av, 0)
#endif
    /* One K step: every row of the tile. */
#if MMD__GEMM_MR_PORTABLE == 8
#define MMD__GEMM_STEP_C                                                                         \
    MMD__GEMM_ROW_C(0, a[0]), MMD__GEMM_ROW_C(1, a[1]), MMD__GEMM_ROW_C(2, a[2]), MMD__GEMM_ROW_C(3, a[3]), \
    MMD__GEMM_ROW_C(4, a[4]), MMD__GEMM_ROW_C(5, a[5]), MMD__GEMM_ROW_C(6, a[6]), MMD__GEMM_ROW_C(7, a[7])
#elif MMD__GEMM_MR_PORTABLE == 6
#define MMD__GEMM_STEP_C                                                                         \
    MMD__GEMM_ROW_C(0, a[0]), MMD__GEMM_ROW_C(1, a[1]), MMD__GEMM_ROW_C(2, a[2]), MMD__GEMM_ROW_C(3, a[3]), \
    MMD__GEMM_ROW_C(4, a[4]), MMD__GEMM_ROW_C(5, a[5])
#else
#define MMD__GEMM_STEP_C                                                                         \
    MMD__GEMM_ROW_C(0, a[0]), MMD__GEMM_ROW_C(1, a[1]), MMD__GEMM_ROW_C(2, a[2]), MMD__GEMM_ROW_C(3, a[3])
#endif
#ifdef MMD__GEMM_SPREAD_C
    if (flags & MMD__GK_SPREAD)
        for (; p < kc; ++p, a += 16) {
            const float *bp = b + boff[p];
            MMD__GEMM_SPREAD4_C(0, 0), MMD__GEMM_SPREAD4_C(0, 4), MMD__GEMM_SPREAD4_C(1, 0), MMD__GEMM_SPREAD4_C(1, 4),
            MMD__GEMM_SPREAD4_C(2, 0), MMD__GEMM_SPREAD4_C(2, 4), MMD__GEMM_SPREAD4_C(3, 0), MMD__GEMM_SPREAD4_C(3, 4);
        }
#endif
#if !defined(MMD_CONV_SMALL) && defined(MMD__HAS_PREFETCH)
    if (flags & MMD__GK_PREFETCH)
        for (; p < kc; ++p, a += MMD__GEMM_MR_PORTABLE) {
            const float *bp = b + boff[p];
            MMD__PREFETCH(a + kc * MMD__GEMM_MR_PORTABLE);
            MMD__GEMM_STEP_C;
        }
#endif
    for (; p < kc; ++p, a += MMD__GEMM_MR_PORTABLE) {
        const float *bp = b + boff[p];
        MMD__GEMM_STEP_C;
    }
#undef MMD__GEMM_STEP_C
#undef MMD__GEMM_ROW_C
#undef MMD__GEMM_COLS4_C
    /* MMD_CONV_SMALL (firmware, no vector unit) keeps one loop per row with the flags inside,
       smaller than MMD__GEMM_STORE_C's, in the same order. */
    for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) {
        float *cr = c + i * ldc, *v = acc[i];
#ifdef MMD_CONV_SMALL
        int32_t j;
        for (j = 0; j < MMD_GEMM_NR_PORTABLE; ++j) {
            float u = v[j];
            if (!(flags & MMD__GK_FIRST)) u = cr[j] + u;
            else {
                if (bias) u += bias[i];
                if (flags & MMD__GK_LOAD) u += cr[j];
            }
            if (flags & MMD__GK_CLAMP) {
                u = u < lo ? lo : u;
                u = u > hi ? hi : u;
            }
            cr[j] = u;
        }
#else
        MMD__GEMM_STORE_C(cr, v, bias ? bias + i : NULL);
#endif
    }
}

#ifdef MMD__GEMM_SPREAD_C
/* SPREAD's main tile, 6 x 8 (A spread [kc][6][4], see mmd__gemm_spread_a): twelve sums, B's two
   vectors and one of A fit SSE2's 16 registers with nothing spilled, since spread A needs no
   broadcast temporaries (GCC 12 -O2 keeps all twelve sums in registers through the K loop). Each
   B panel read from L2 now serves six rows instead of four, and a tile has one epilogue per six
   rows. Its sums are mmd__gemm_ukernel_c's bit for bit (the same products added in the same
   order, the same epilogue). The K loop is a do-while (kc >= 1 here): where GCC could not tell
   that kc >= 1, it cleared the sums' 192-byte stack copy, which only kc = 0 would read, with rep
   stos on every call, which cost short-K products up to 12% of their time. Never inlined: inside
   mmd__gemm_block (its one caller) GCC's vectoriser rebuilt the K loop from scalar loads and
   shuffles with sums spilled to the stack, three times slower, or not, as unrelated code there
   changed. With LOAD, C's start values are read at z (ldc apart; c itself unless C holds the
   partial sums of a split K block, MMD__GK_CONT). */
static MMD__NOINLINE MMD__KERNEL_ALIGN void mmd__gemm_ukernel_spread6_c(int64_t kc, const float *a, const float *b, const int64_t *boff,
                                                      float *c, int64_t ldc, const float *bias, int32_t flags, float lo,
                                                      float hi, const float *z) {
    float acc[6][MMD_GEMM_NR_PORTABLE];
    int64_t p = 0;
    int32_t i;
    memset(acc, 0, sizeof acc);
    if (flags & MMD__GK_CONT)
        MMD__GEMM_CONT4_C(0, 0), MMD__GEMM_CONT4_C(0, 4), MMD__GEMM_CONT4_C(1, 0), MMD__GEMM_CONT4_C(1, 4),
        MMD__GEMM_CONT4_C(2, 0), MMD__GEMM_CONT4_C(2, 4), MMD__GEMM_CONT4_C(3, 0), MMD__GEMM_CONT4_C(3, 4),
        MMD__GEMM_CONT4_C(4, 0), MMD__GEMM_CONT4_C(4, 4), MMD__GEMM_CONT4_C(5, 0), MMD__GEMM_CONT4_C(5, 4);
    do {
        const float *bp = b + boff[p];
        MMD__GEMM_SPREAD4_C(0, 0), MMD__GEMM_SPREAD4_C(0, 4), MMD__GEMM_SPREAD4_C(1, 0), MMD__GEMM_SPREAD4_C(1, 4),
        MMD__GEMM_SPREAD4_C(2, 0), MMD__GEMM_SPREAD4_C(2, 4), MMD__GEMM_SPREAD4_C(3, 0), MMD__GEMM_SPREAD4_C(3, 4),
        MMD__GEMM_SPREAD4_C(4, 0), MMD__GEMM_SPREAD4_C(4, 4), MMD__GEMM_SPREAD4_C(5, 0), MMD__GEMM_SPREAD4_C(5, 4);
        a += 24;
    } while (++p < kc);
    if (flags & MMD__GK_RAW)
        for (i = 0; i < 6; ++i) memcpy(c + i * ldc, acc[i], sizeof acc[i]);
    else
        for (i = 0; i < 6; ++i) {
            float *cr = c + i * ldc, *v = acc[i];
            const float *zr = z + i * ldc;
            MMD__GEMM_STORE_CZ(cr, zr, v, bias ? bias + i : NULL);
        }
}

/* Rows [i0, i0 + rows) (rows 6 or 4) of a packed block of A (row panels [kc][4]) spread for
   SPREAD, each value four times in a row: [kc][rows][4]. One named source pointer per row, set
   once, and a K step's values all loaded before any is stored, so that GCC -O2 gives each value
   one load, one shuffle and one 16-byte store: with the pointers in an array it kept a loop over
   the rows that read each row's pointer back from the stack (nine instructions a value), and with
   each value stored before the next row's load (which the stores might alias) it stored every
   float alone. In the samples of perf over bench_conv (MMD_NO_SIMD, warm) the spread took 3.8-4.0%
   of 576 -> 96 and 96 -> 576 at 14x14 that way, 1.8-1.9% now. Indexing the packed block per value
   (a division and a remainder by 4 each) made the spread up to 15% of a 14x14 layer's time
   (576 -> 96 with the spread left out ran 0.85 of the time). A harness calling mmd__gemm_block,
   MMD_NO_SIMD, 1 thread, warm, thread CPU time, medians of 5 alternated rounds: 576 -> 96,
   384 -> 64, 192 -> 64 and 96 -> 576 at 14x14 0.95, 0.91, 0.94 and 0.95 of the time with the
   per-value index; in the model, whose weights come from L3, the 14x14 1x1 layers 0.97-0.99
   (process CPU time, medians of 6 alternated rounds of 100 runs). */
static void mmd__gemm_spread_a(const float *ablk, int64_t kc, int64_t i0, int64_t rows, float *dst) {
#define MMD__SPREAD_SRC(r) (ablk + (i0 + (r)) / 4 * 4 * kc + (i0 + (r)) % 4)
#define MMD__SPREAD_ROW(r, v) dst[4 * (r)] = (v), dst[4 * (r) + 1] = (v), dst[4 * (r) + 2] = (v), dst[4 * (r) + 3] = (v)
    const float *s0 = MMD__SPREAD_SRC(0), *s1 = MMD__SPREAD_SRC(1), *s2 = MMD__SPREAD_SRC(2), *s3 = MMD__SPREAD_SRC(3);
    int64_t p;
    if (rows == 6) {
        const float *s4 = MMD__SPREAD_SRC(4), *s5 = MMD__SPREAD_SRC(5);
        for (p = 0; p < kc; ++p, dst += 24) {
            float v0 = s0[4 * p], v1 = s1[4 * p], v2 = s2[4 * p], v3 = s3[4 * p], v4 = s4[4 * p], v5 = s5[4 * p];
            MMD__SPREAD_ROW(0, v0), MMD__SPREAD_ROW(1, v1), MMD__SPREAD_ROW(2, v2);
            MMD__SPREAD_ROW(3, v3), MMD__SPREAD_ROW(4, v4), MMD__SPREAD_ROW(5, v5);
        }
    } else
        for (p = 0; p < kc; ++p, dst += 16) {
            float v0 = s0[4 * p], v1 = s1[4 * p], v2 = s2[4 * p], v3 = s3[4 * p];
            MMD__SPREAD_ROW(0, v0), MMD__SPREAD_ROW(1, v1), MMD__SPREAD_ROW(2, v2), MMD__SPREAD_ROW(3, v3);
        }
#undef MMD__SPREAD_ROW
#undef MMD__SPREAD_SRC
}

/* The most of B's kc rows (offsets boff, in floats) that a column panel finds in one set of a
   48 KB, 12-way L1 (64 sets of 64-byte lines, a set every 4 KB): planes whose size is a
   multiple of 1 KB put their rows in 4 to 16 sets, and the 64 or 72 rows of the DBNet's
   projections at 160x120 (75 KB planes, 16 and 18 rows a set) or the 144 of MobileNetV2's
   144 -> 24 at 56x56 (12.25 KB planes, 9 a set, beside 216 lines of spread A) then evict each
   other within a tile: the next tile, over the same rows, reads its B again from L2. */
static int64_t mmd__gemm_set_rows(const int64_t *boff, int64_t kc) {
    int64_t n[64] = {0}, p, most = 0;
    for (p = 0; p < kc; ++p) {
        int64_t *at = n + (((uint64_t)boff[p] >> 4) & 63);
        if (++*at > most) most = *at;
    }
    return most;
}
#endif

#ifndef MMD_CONV_SMALL
/* Row 0 of the portable tile alone over `panels` (1 to 4) column panels bstep apart, for a
   tile with one row of C (a batch-1 Gemm or MatMul: MobileNetV2's classifier is 1 x 1280 by
   1280 x 1000), as mmd__gemm_row_avx512 is for AVX-512: one row's multiply-adds per K step
   instead of the tile's four, whose other three rows were zeros, so the product runs at the
   speed B comes from memory. Its sums are the tile kernel's row 0 bit for bit (the same
   products added in the same order, the same epilogue). Four panels at a time, so that four
   chains of additions (a panel's K steps all add into the same NR sums, each step waiting
   for the last) and four lines of B are in flight at once; each chain keeps its own order. A
   group of fewer panels reads its first panel in the missing ones' place and stores only its
   own. B is read once, from memory: each K step that starts a line of B asks for the same
   line of the panels four on (the next group), which the hardware prefetchers alone did not
   keep up with. MobileNetV2's classifier alone (Gemm 1 x 1280 x 1000, 5 MB of packed
   weights), MMD_NO_SIMD, one thread, medians of 100 runs, three alternations of one panel at
   a time (4 KiB ahead, the kernel before) and four: with 1 GB read before each run (weights
   from memory) 0.44-0.50 -> 0.39-0.41 ms, with 64 MB (weights from L3) 0.19-0.24 ->
   0.19-0.22; 1, 2 or 16 KiB ahead instead of the next group ran 3-15% slower, two groups
   ahead no faster, asking for L2 instead of L1 no differently. The portable-native build
   (16-float panels) runs level from L3 and 0.38-0.41 -> 0.38 from memory. A prefetch past
   the end of B is dropped, not a fault. */
static void mmd__gemm_row_c(int64_t kc, const float *a, const float *b, const int64_t *boff, int64_t bstep,
                            int64_t panels, float *c, const float *bias, int32_t flags, float lo, float hi) {
    float acc[4][MMD_GEMM_NR_PORTABLE];
    int64_t p, o1 = panels > 1 ? bstep : 0, o2 = panels > 2 ? 2 * bstep : 0, o3 = panels > 3 ? 3 * bstep : 0;
    int32_t j;
    memset(acc, 0, sizeof acc);
    for (p = 0; p < kc; ++p, a += MMD__GEMM_MR_PORTABLE) {
        const float *bp = b + boff[p];
        float av = a[0];
#ifdef MMD__HAS_PREFETCH
        if (MMD_GEMM_NR_PORTABLE >= 16 || p % (16 / MMD_GEMM_NR_PORTABLE) == 0) {
            MMD__PREFETCH(bp + 4 * bstep);
            MMD__PREFETCH(bp + 5 * bstep);
            MMD__PREFETCH(bp + 6 * bstep);
            MMD__PREFETCH(bp + 7 * bstep);
        }
#endif
        for (j = 0; j < MMD_GEMM_NR_PORTABLE; ++j) acc[0][j] += av * bp[j];
        for (j = 0; j < MMD_GEMM_NR_PORTABLE; ++j) acc[1][j] += av * bp[o1 + j];
        for (j = 0; j < MMD_GEMM_NR_PORTABLE; ++j) acc[2][j] += av * bp[o2 + j];
        for (j = 0; j < MMD_GEMM_NR_PORTABLE; ++j) acc[3][j] += av * bp[o3 + j];
    }
    for (j = 0; j < panels; ++j) MMD__GEMM_STORE_C(c + j * MMD_GEMM_NR_PORTABLE, acc[j], bias);
}

/* One sum v leaving the portable kernels that store element by element (mmd__gemm_cols_c,
   mmd__gemm_ukernel_bt_c) into *cr: MMD__GEMM_STORE_C's steps for one element, so that each is
   the tile kernel's bit for bit (the bias on the first K block, C's old value, the clamp). */
static void mmd__gemm_store1(float *cr, float v, const float *bias, int32_t flags, float lo, float hi) {
    if ((flags & MMD__GK_FIRST) && bias) v += *bias;
    if (!(flags & MMD__GK_FIRST) || (flags & MMD__GK_LOAD)) v += *cr;
    if (flags & MMD__GK_CLAMP) {
        v = v < lo ? lo : v;
        v = v > hi ? hi : v;
    }
    *cr = v;
}

/* The last nrr (< NR) columns of `panels` full row panels (a block's, packed kc * MR floats
   apart), where the tile kernel would compute all NR columns (zeros past the edge) and go
   through a copy of C in scratch: vectors run along a panel's MR rows instead, a K step
   multiplying the MR packed values of A by one value of B, four columns at a time (four
   independent sums), then the last columns one at a time over four row panels at once (four
   independent sums where one panel's column alone waited on its own additions every step; a
   group of fewer panels reads its first panel in the missing ones' place and stores only its
   own). perf's samples over bench_conv (MMD_NO_SIMD, warm): the single column of MobileNetV2's
   960 -> 160 and 576 -> 160 at 7x7 (160 rows, too few for BSPREAD) 4.3-4.8% of their time
   panel by panel, 2.5% four panels at a time. Each sum is the tile
   kernel's bit for bit (the same products added in the same order, the same epilogue). Its
   stores are scalars, a few per tile. MobileNetV2's 7x7 planes are six full panels and one
   column: MMD_NO_SIMD, one thread, warm (bench_conv, best of 30, three alternations) its
   960 -> 320, 320 -> 1280 and 160 -> 960 there run 32.2-33.0 -> 34.5-35.5 GFLOP/s. Reading
   B's columns up to NR is safe: an edge panel read in place is copied zero-filled first (see
   mmd__gemm_block) and packed panels are zero-filled past the edge. */
static void mmd__gemm_cols_c(int64_t kc, const float *a, int64_t panels, const float *b, const int64_t *boff,
                             int64_t nrr, float *c, int64_t ldc, const float *bias, int32_t flags, float lo, float hi) {
    float acc[4][MMD__GEMM_MR_PORTABLE];
    int64_t p, j0, q, q0, step = kc * MMD__GEMM_MR_PORTABLE;
    int32_t i, jj;
    for (q0 = 0; q0 < panels; ++q0) {
        const float *pa = a + q0 * step;
        float *pc = c + q0 * MMD__GEMM_MR_PORTABLE * ldc;
        const float *pb = bias ? bias + q0 * MMD__GEMM_MR_PORTABLE : NULL;
        for (j0 = 0; j0 + 4 <= nrr; j0 += 4) {
            const float *ap = pa;
            memset(acc, 0, sizeof acc);
            for (p = 0; p < kc; ++p, ap += MMD__GEMM_MR_PORTABLE) {
                const float *bp = b + boff[p] + j0;
                float b0 = bp[0], b1 = bp[1], b2 = bp[2], b3 = bp[3];
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[0][i] += ap[i] * b0;
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[1][i] += ap[i] * b1;
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[2][i] += ap[i] * b2;
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[3][i] += ap[i] * b3;
            }
            for (jj = 0; jj < 4; ++jj)
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i)
                    mmd__gemm_store1(pc + i * ldc + j0 + jj, acc[jj][i], pb ? pb + i : NULL, flags, lo, hi);
        }
    }
    /* The last columns one at a time, four row panels at once (four chains of additions). */
    for (j0 = nrr - nrr % 4; j0 < nrr; ++j0)
        for (q0 = 0; q0 < panels; q0 += 4) {
            const float *a0 = a + q0 * step, *a1 = q0 + 1 < panels ? a0 + step : a0;
            const float *a2 = q0 + 2 < panels ? a0 + 2 * step : a0, *a3 = q0 + 3 < panels ? a0 + 3 * step : a0;
            memset(acc, 0, sizeof acc);
            for (p = 0; p < kc; ++p) {
                float b0 = b[boff[p] + j0];
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[0][i] += a0[p * MMD__GEMM_MR_PORTABLE + i] * b0;
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[1][i] += a1[p * MMD__GEMM_MR_PORTABLE + i] * b0;
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[2][i] += a2[p * MMD__GEMM_MR_PORTABLE + i] * b0;
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i) acc[3][i] += a3[p * MMD__GEMM_MR_PORTABLE + i] * b0;
            }
            for (q = q0; q < q0 + 4 && q < panels; ++q)
                for (i = 0; i < MMD__GEMM_MR_PORTABLE; ++i)
                    mmd__gemm_store1(c + (q * MMD__GEMM_MR_PORTABLE + i) * ldc + j0, acc[q - q0][i],
                                     bias ? bias + q * MMD__GEMM_MR_PORTABLE + i : NULL, flags, lo, hi);
        }
}

#ifdef MMD__GEMM_SPREAD_C
/* SPREAD's partial column panel (nrr < NR columns, see mmd__gemm_block): `rows` (6 or 4) rows of
   spread A ([kc][rows][4], the group's own, already in L1) by four columns at a time, a vector of
   B's four values a K step against each row's spread vector, one sum vector a row: six
   independent chains of additions a step where mmd__gemm_cols_c, over the packed row panel, had
   four behind four broadcasts. Each sum is the tile kernel's bit for bit (A's value times B's,
   added in K order, stored through mmd__gemm_store1). Columns up to NR are read, as
   mmd__gemm_cols_c reads them (zeros past the edge). Never inlined, as the six-row tile is not
   (see mmd__gemm_ukernel_spread6_c). GCC 12 -O2 keeps the sums in registers through the K loops
   but clears their stack copy (rep stos, 96 bytes) once a call for the stores' loop over a row
   count it does not know, a few dozen cycles against a K loop of a thousand or more. MobileNetV2's 14x14 planes are 24 panels and a half: perf's
   samples over bench_conv (MMD_NO_SIMD, warm) put mmd__gemm_cols_c at 2.9-3.3% of 576 -> 96 and
   96 -> 576 there (and mmd__gemm_store1 0.1-0.2%), this 2.3-2.9%. */
static MMD__NOINLINE void mmd__gemm_spread_cols_c(int64_t kc, const float *spread, int64_t rows, const float *b,
                                                  const int64_t *boff, int64_t nrr, float *c, int64_t ldc,
                                                  const float *bias, int32_t flags, float lo, float hi) {
    float acc[6][4];
    int64_t p, j0;
    int32_t i, j;
    for (j0 = 0; j0 < nrr; j0 += 4) {
        memset(acc, 0, sizeof acc);
        if (rows == 6)
            for (p = 0; p < kc; ++p) {
                const float *a = spread + 24 * p, *bp = b + boff[p] + j0;
                MMD__GEMM_SPREAD4_C(0, 0), MMD__GEMM_SPREAD4_C(1, 0), MMD__GEMM_SPREAD4_C(2, 0),
                MMD__GEMM_SPREAD4_C(3, 0), MMD__GEMM_SPREAD4_C(4, 0), MMD__GEMM_SPREAD4_C(5, 0);
            }
        else
            for (p = 0; p < kc; ++p) {
                const float *a = spread + 16 * p, *bp = b + boff[p] + j0;
                MMD__GEMM_SPREAD4_C(0, 0), MMD__GEMM_SPREAD4_C(1, 0), MMD__GEMM_SPREAD4_C(2, 0),
                MMD__GEMM_SPREAD4_C(3, 0);
            }
        for (i = 0; i < rows; ++i)
            for (j = 0; j < 4 && j0 + j < nrr; ++j)
                mmd__gemm_store1(c + i * ldc + j0 + j, acc[i][j], bias ? bias + i : NULL, flags, lo, hi);
    }
}

/* BSPREAD (see mmd__gemm_block): the K block of B spread, each value four times in a row, in
   panels of four columns ([kc][4][4] each), columns past nc zero. B's element (p, j) is at
   b + j / nr * bstep + boff[p] + j % nr whichever way B comes (packed, in place, or packed per
   block); in place, columns past nc are not read. */
static void mmd__gemm_spread_b(const float *b, const int64_t *boff, int64_t bstep, int64_t nr, int64_t nc,
                               int64_t kc, float *dst) {
    int64_t j0, p;
    int32_t j, x;
    for (j0 = 0; j0 < nc; j0 += 4) {
        const float *bg = b + j0 / nr * bstep + j0 % nr; /* nr is a multiple of 4 */
        int32_t w = nc - j0 < 4 ? (int32_t)(nc - j0) : 4;
        for (p = 0; p < kc; ++p, dst += 16) {
            const float *row = bg + boff[p];
            for (j = 0; j < 4; ++j) {
                float v = j < w ? row[j] : 0.0f;
                for (x = 0; x < 4; ++x) dst[4 * j + x] = v;
            }
        }
    }
}

/* The BSPREAD tile: eight rows of C (two row panels of packed A) by four columns, vectors
   along the rows: a K step multiplies each row panel's four values of A, loaded as a vector,
   by each column's spread value of B, with neither broadcasts nor shuffles, as SPREAD does with
   A spread. The last ncols (1 to 4) columns are stored, element by element. Each sum is the tile
   kernel's bit for bit (the same products added in the same order, the same epilogue). With
   PREFETCH (the first four columns over a block of A) each K step asks for the next two row
   panels' lines as far on, as the tile kernel does for one: without it, with the caches flushed
   before each run (bench_conv --cold, best of 30), ResNet-18's Winograd layer4 3x3, whose 16.8
   MB of transformed weights come from memory, ran 4.39-4.56 ms against main's 4.20, with it
   3.82-3.87. */
static void mmd__gemm_ukernel_bt_c(int64_t kc, const float *a, const float *bs, float *c, int64_t ldc,
                                   int64_t ncols, const float *bias, int32_t flags, float lo, float hi) {
    float acc[4][8];
    const float *a0 = a, *a1 = a + 4 * kc;
    int64_t p, j;
    int32_t i;
    memset(acc, 0, sizeof acc);
    for (p = 0; p < kc; ++p, a0 += 4, a1 += 4, bs += 16) {
#if defined(MMD__HAS_PREFETCH)
        if (flags & MMD__GK_PREFETCH) {
            MMD__PREFETCH(a0 + 8 * kc);
            MMD__PREFETCH(a1 + 8 * kc);
        }
#endif
        for (i = 0; i < 4; ++i) acc[0][i] += a0[i] * bs[i];
        for (i = 0; i < 4; ++i) acc[0][4 + i] += a1[i] * bs[i];
        for (i = 0; i < 4; ++i) acc[1][i] += a0[i] * bs[4 + i];
        for (i = 0; i < 4; ++i) acc[1][4 + i] += a1[i] * bs[4 + i];
        for (i = 0; i < 4; ++i) acc[2][i] += a0[i] * bs[8 + i];
        for (i = 0; i < 4; ++i) acc[2][4 + i] += a1[i] * bs[8 + i];
        for (i = 0; i < 4; ++i) acc[3][i] += a0[i] * bs[12 + i];
        for (i = 0; i < 4; ++i) acc[3][4 + i] += a1[i] * bs[12 + i];
    }
    for (j = 0; j < ncols; ++j)
        for (i = 0; i < 8; ++i) mmd__gemm_store1(c + i * ldc + j, acc[j][i], bias ? bias + i : NULL, flags, lo, hi);
}
#endif
#undef MMD__GEMM_STORE_C
#endif

#if defined(MMD__X86)
/* The epilogue of one row of the x86 kernels: the vector macros below keep it one text. max
   and min take the accumulated value as their second operand, which they return when it is
   NaN, so a NaN stays NaN through a fused Relu or Clip as it does through the operators. */
#define MMD__GEMM_EPILOGUE(V, ADD, LD, ST, SET1, MAX, MIN, ACC, PTR)                            \
    do {                                                                                       \
        V v_ = (ACC);                                                                          \
        if (!(flags & MMD__GK_FIRST)) v_ = ADD(LD(PTR), v_);                                  \
        else {                                                                                 \
            if (bias) v_ = ADD(v_, SET1(bias[i]));                                             \
            if (flags & MMD__GK_LOAD) v_ = ADD(v_, LD(PTR));                                   \
        }                                                                                      \
        if (flags & MMD__GK_CLAMP) v_ = MIN(SET1(hi), MAX(SET1(lo), v_));                      \
        ST(PTR, v_);                                                                           \
    } while (0)

MMD__TARGET_AVX2 static void mmd__gemm_ukernel_avx2(int64_t kc, const float *a, const float *b,
                                                    const int64_t *boff, float *c, int64_t ldc,
                                                    const float *bias, int32_t flags, float lo, float hi) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    __m256 acc[12];
    const float *pf = flags & MMD__GK_PREFETCH ? a + kc * MMD__GEMM_MR : NULL;
    int64_t p;
    int32_t i;
    for (p = 0; p < kc; ++p, a += MMD__GEMM_MR) {
        const float *bp = b + boff[p];
        __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8), av;
        if (pf) _mm_prefetch((const char *)(pf + p * MMD__GEMM_MR), _MM_HINT_T0); /* as the AVX-512 kernel's */
        av = _mm256_broadcast_ss(a + 0);
        c00 = _mm256_fmadd_ps(av, b0, c00);
        c01 = _mm256_fmadd_ps(av, b1, c01);
        av = _mm256_broadcast_ss(a + 1);
        c10 = _mm256_fmadd_ps(av, b0, c10);
        c11 = _mm256_fmadd_ps(av, b1, c11);
        av = _mm256_broadcast_ss(a + 2);
        c20 = _mm256_fmadd_ps(av, b0, c20);
        c21 = _mm256_fmadd_ps(av, b1, c21);
        av = _mm256_broadcast_ss(a + 3);
        c30 = _mm256_fmadd_ps(av, b0, c30);
        c31 = _mm256_fmadd_ps(av, b1, c31);
        av = _mm256_broadcast_ss(a + 4);
        c40 = _mm256_fmadd_ps(av, b0, c40);
        c41 = _mm256_fmadd_ps(av, b1, c41);
        av = _mm256_broadcast_ss(a + 5);
        c50 = _mm256_fmadd_ps(av, b0, c50);
        c51 = _mm256_fmadd_ps(av, b1, c51);
    }
    acc[0] = c00, acc[1] = c01, acc[2] = c10, acc[3] = c11, acc[4] = c20, acc[5] = c21;
    acc[6] = c30, acc[7] = c31, acc[8] = c40, acc[9] = c41, acc[10] = c50, acc[11] = c51;
    for (i = 0; i < MMD__GEMM_MR; ++i) {
        float *cr = c + i * ldc;
        MMD__GEMM_EPILOGUE(__m256, _mm256_add_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps,
                           _mm256_max_ps, _mm256_min_ps, acc[2 * i], cr);
        MMD__GEMM_EPILOGUE(__m256, _mm256_add_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps,
                           _mm256_max_ps, _mm256_min_ps, acc[2 * i + 1], cr + 8);
    }
}

/* MMD_GEMM_MR_AVX512 rows of two vectors: 16 or 24 independent sums, which a core with two
   FMA pipes of four cycles' latency needs to keep both busy while the loads of B and the
   broadcasts of A (folded into the FMAs) go on beside them. With PREFETCH (the first column
   panel over a block of A) each K step also prefetches the same step of the next row panel,
   kc * MR floats on: packed weights are one sequential stream (mmd__gemm_pack_a), so the panel
   after this one is the next read, and asking for it one whole micro-kernel call ahead hides
   its latency from L3 or memory, where the hardware prefetcher alone leaves the kernel
   waiting: ResNet-18's layer4 3x3 (9.4 MB of weights, 49 pixels) runs 2.49 -> 1.86 ms with the
   caches flushed before it (bench_conv --cold, best of 30). Later column panels find the block
   in cache, and prefetching on them too only crowds L1: the DBNet's 3x3 96 -> 24 layers (3 row
   panels, hundreds of column panels) run 5.45 -> 5.09 and 5.73 -> 5.22 ms with the prefetch on
   the first panel alone. Past the last panel the address is unused memory, which a prefetch
   never faults on.
   With PREFETCH_B (B read in place: a pointwise convolution's input planes, SHIFTED's phase
   planes) each K step also prefetches its row of B two column panels on. Those K rows are
   hundreds of separate streams, a plane apart, more than the hardware prefetcher follows, so
   without it every panel's first row panel waited on B: with the caches flushed before each
   run (bench_conv --cold, medians of 30, three alternations on a loaded 2-core Xeon) MobileNetV2's
   144 -> 24 at 56x56 runs 0.41-0.46 -> 0.29 ms, 256 -> 64 at 56x56 1.02-1.14 -> 0.81-0.88 ms,
   the DBNet's 480 -> 112 and 672 -> 112 at 40x30 1.30-1.35 -> 1.07-1.19 and 1.76-1.86 ->
   1.55-1.60 ms. One panel on (32 floats) gained about half as much, three or four no more. */
#define MMD__B_PREFETCH 64
/* With PREFETCH_C each K step also asks for one line of the tile's C rows MMD__C_PREFETCH floats
   (four column panels) on, row p % MR and its line p / MR % 2, so that a K of 16 or more covers
   every line the tile four panels on will store. Small-K products (SWEEP) store as much as they
   read and compute, and their stores, sixteen lines at the end of each tile, waited on their
   lines' reads for ownership: the DBNet's 16 -> 64 at 320x240 (19.7 MB out, swept in blocks of
   columns) runs 2.38 -> 2.03 ms with it (thread CPU time, medians of 60 runs alternating on a
   loaded 2-core Xeon; 256 floats on 2.05, 64 on 2.07, prefetchw instead 2.02). */
#define MMD__C_PREFETCH 128
/* With `pack` (not NULL) the tile also stores each K step's row of B there, 32 floats a step,
   for the row panels after it (repack in mmd__gemm_block). The body is inlined into the
   dispatch's kernel, which passes NULL, and into mmd__gemm_ukernel_avx512_pack, so that the
   kernel every product runs does not test `pack` on every K step. */
MMD__TARGET_AVX512 static inline __attribute__((always_inline)) void
mmd__gemm_ukernel_avx512_body(int64_t kc, const float *a, const float *b, const int64_t *boff, float *c, int64_t ldc,
                              const float *bias, int32_t flags, float lo, float hi, float *pack) {
    __m512 c0_0 = _mm512_setzero_ps(), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0, c2_1 = c0_0;
    __m512 c3_0 = c0_0, c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0, c5_1 = c0_0;
    __m512 c6_0 = c0_0, c6_1 = c0_0, c7_0 = c0_0, c7_1 = c0_0;
#if MMD_GEMM_MR_AVX512 > 8
    __m512 c8_0 = c0_0, c8_1 = c0_0, c9_0 = c0_0, c9_1 = c0_0, c10_0 = c0_0, c10_1 = c0_0, c11_0 = c0_0, c11_1 = c0_0;
#endif
    __m512 acc[2 * MMD_GEMM_MR_AVX512];
    const float *pf = flags & MMD__GK_PREFETCH ? a + kc * MMD_GEMM_MR_AVX512 : NULL;
    int64_t p;
    int32_t i;
#define MMD__GEMM_ROW_512(r)                                                                     \
    av = _mm512_set1_ps(a[r]), c##r##_0 = _mm512_fmadd_ps(av, b0, c##r##_0),                   \
    c##r##_1 = _mm512_fmadd_ps(av, b1, c##r##_1)
    for (p = 0; p < kc; ++p, a += MMD_GEMM_MR_AVX512) {
        const float *bp = b + boff[p];
        __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16), av;
        if (pf) _mm_prefetch((const char *)(pf + p * MMD_GEMM_MR_AVX512), _MM_HINT_T0);
        if (flags & MMD__GK_PREFETCH_B) {
            _mm_prefetch((const char *)(bp + MMD__B_PREFETCH), _MM_HINT_T0);
            _mm_prefetch((const char *)(bp + MMD__B_PREFETCH + 16), _MM_HINT_T0);
        }
        if (flags & MMD__GK_PREFETCH_C)
            _mm_prefetch((const char *)(c + p % MMD_GEMM_MR_AVX512 * ldc + MMD__C_PREFETCH + p / MMD_GEMM_MR_AVX512 % 2 * 16),
                         _MM_HINT_T0);
        if (pack) {
            _mm512_storeu_ps(pack + p * 32, b0);
            _mm512_storeu_ps(pack + p * 32 + 16, b1);
        }
        MMD__GEMM_ROW_512(0);
        MMD__GEMM_ROW_512(1);
        MMD__GEMM_ROW_512(2);
        MMD__GEMM_ROW_512(3);
        MMD__GEMM_ROW_512(4);
        MMD__GEMM_ROW_512(5);
        MMD__GEMM_ROW_512(6);
        MMD__GEMM_ROW_512(7);
#if MMD_GEMM_MR_AVX512 > 8
        MMD__GEMM_ROW_512(8);
        MMD__GEMM_ROW_512(9);
        MMD__GEMM_ROW_512(10);
        MMD__GEMM_ROW_512(11);
#endif
    }
#undef MMD__GEMM_ROW_512
    acc[0] = c0_0, acc[1] = c0_1, acc[2] = c1_0, acc[3] = c1_1, acc[4] = c2_0, acc[5] = c2_1;
    acc[6] = c3_0, acc[7] = c3_1, acc[8] = c4_0, acc[9] = c4_1, acc[10] = c5_0, acc[11] = c5_1;
    acc[12] = c6_0, acc[13] = c6_1, acc[14] = c7_0, acc[15] = c7_1;
#if MMD_GEMM_MR_AVX512 > 8
    acc[16] = c8_0, acc[17] = c8_1, acc[18] = c9_0, acc[19] = c9_1;
    acc[20] = c10_0, acc[21] = c10_1, acc[22] = c11_0, acc[23] = c11_1;
#endif
    for (i = 0; i < MMD_GEMM_MR_AVX512; ++i) {
        float *cr = c + i * ldc;
        MMD__GEMM_EPILOGUE(__m512, _mm512_add_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
                           _mm512_max_ps, _mm512_min_ps, acc[2 * i], cr);
        MMD__GEMM_EPILOGUE(__m512, _mm512_add_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
                           _mm512_max_ps, _mm512_min_ps, acc[2 * i + 1], cr + 16);
    }
}

MMD__TARGET_AVX512 static void mmd__gemm_ukernel_avx512(int64_t kc, const float *a, const float *b,
                                                        const int64_t *boff, float *c, int64_t ldc,
                                                        const float *bias, int32_t flags, float lo, float hi) {
    mmd__gemm_ukernel_avx512_body(kc, a, b, boff, c, ldc, bias, flags, lo, hi, NULL);
}

#ifndef MMD_CONV_SMALL
MMD__TARGET_AVX512 static void mmd__gemm_ukernel_avx512_pack(int64_t kc, const float *a, const float *b,
                                                             const int64_t *boff, float *c, int64_t ldc,
                                                             const float *bias, int32_t flags, float lo, float hi,
                                                             float *pack) {
    mmd__gemm_ukernel_avx512_body(kc, a, b, boff, c, ldc, bias, flags, lo, hi, pack);
}
#endif
#endif

#if defined(MMD__X86)
/* Row 0 of the AVX-512 tile alone, for a tile with one row of C (a batch-1 Gemm or MatMul:
   MobileNetV2's classifier is 1 x 1280 by 1280 x 1000). It streams B's panel through two
   multiply-adds per K step instead of the tile's sixteen, so such a product runs at the speed
   B comes from memory rather than computing seven rows of zeros. Its sums are the tile
   kernel's row 0 bit for bit (the same multiply-adds in the same order, the same epilogue). */
#define MMD__ROW_PREFETCH 256         /* floats of B (1 KiB) read ahead by mmd__gemm_row_avx512 */
MMD__TARGET_AVX512 static void mmd__gemm_row_avx512(int64_t kc, const float *a, const float *b, const int64_t *boff,
                                                    float *c, int64_t ldc, const float *bias, int32_t flags, float lo,
                                                    float hi) {
    __m512 c0 = _mm512_setzero_ps(), c1 = c0;
    int64_t p;
    int32_t i = 0;
    (void)ldc;
    for (p = 0; p < kc; ++p, a += MMD_GEMM_MR_AVX512) {
        const float *bp = b + boff[p];
        __m512 av = _mm512_set1_ps(a[0]);
        /* B is read once, from memory: its lines are asked for MMD__ROW_PREFETCH floats
           ahead. MobileNetV2's classifier alone (5 MB of weights, caches flushed between
           runs, one thread): median of 200 0.25-0.27 -> 0.19-0.20 ms; the best run stays at
           0.178 ms (29 GB/s). A prefetch past the end of B is dropped, not a fault. */
        _mm_prefetch((const char *)(bp + MMD__ROW_PREFETCH), _MM_HINT_T0);
        _mm_prefetch((const char *)(bp + MMD__ROW_PREFETCH + 16), _MM_HINT_T0);
        c0 = _mm512_fmadd_ps(av, _mm512_loadu_ps(bp), c0);
        c1 = _mm512_fmadd_ps(av, _mm512_loadu_ps(bp + 16), c1);
    }
    MMD__GEMM_EPILOGUE(__m512, _mm512_add_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_max_ps,
                       _mm512_min_ps, c0, c);
    MMD__GEMM_EPILOGUE(__m512, _mm512_add_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_max_ps,
                       _mm512_min_ps, c1, c + 16);
}
#endif

#if defined(MMD__NEON)
static void mmd__gemm_ukernel_neon(int64_t kc, const float *a, const float *b, const int64_t *boff,
                                   float *c, int64_t ldc, const float *bias, int32_t flags, float lo,
                                   float hi) {
    float32x4_t acc[MMD__GEMM_MR][4];
    int64_t p;
    int32_t i, j;
    for (i = 0; i < MMD__GEMM_MR; ++i)
        for (j = 0; j < 4; ++j) acc[i][j] = vdupq_n_f32(0.0f);
    for (p = 0; p < kc; ++p, a += MMD__GEMM_MR) {
        const float *bp = b + boff[p];
        float32x4_t b0 = vld1q_f32(bp), b1 = vld1q_f32(bp + 4), b2 = vld1q_f32(bp + 8), b3 = vld1q_f32(bp + 12);
        float32x4_t a0 = vld1q_f32(a);
        float32x2_t a1 = vld1_f32(a + 4);
        acc[0][0] = vfmaq_laneq_f32(acc[0][0], b0, a0, 0);
        acc[0][1] = vfmaq_laneq_f32(acc[0][1], b1, a0, 0);
        acc[0][2] = vfmaq_laneq_f32(acc[0][2], b2, a0, 0);
        acc[0][3] = vfmaq_laneq_f32(acc[0][3], b3, a0, 0);
        acc[1][0] = vfmaq_laneq_f32(acc[1][0], b0, a0, 1);
        acc[1][1] = vfmaq_laneq_f32(acc[1][1], b1, a0, 1);
        acc[1][2] = vfmaq_laneq_f32(acc[1][2], b2, a0, 1);
        acc[1][3] = vfmaq_laneq_f32(acc[1][3], b3, a0, 1);
        acc[2][0] = vfmaq_laneq_f32(acc[2][0], b0, a0, 2);
        acc[2][1] = vfmaq_laneq_f32(acc[2][1], b1, a0, 2);
        acc[2][2] = vfmaq_laneq_f32(acc[2][2], b2, a0, 2);
        acc[2][3] = vfmaq_laneq_f32(acc[2][3], b3, a0, 2);
        acc[3][0] = vfmaq_laneq_f32(acc[3][0], b0, a0, 3);
        acc[3][1] = vfmaq_laneq_f32(acc[3][1], b1, a0, 3);
        acc[3][2] = vfmaq_laneq_f32(acc[3][2], b2, a0, 3);
        acc[3][3] = vfmaq_laneq_f32(acc[3][3], b3, a0, 3);
        acc[4][0] = vfmaq_lane_f32(acc[4][0], b0, a1, 0);
        acc[4][1] = vfmaq_lane_f32(acc[4][1], b1, a1, 0);
        acc[4][2] = vfmaq_lane_f32(acc[4][2], b2, a1, 0);
        acc[4][3] = vfmaq_lane_f32(acc[4][3], b3, a1, 0);
        acc[5][0] = vfmaq_lane_f32(acc[5][0], b0, a1, 1);
        acc[5][1] = vfmaq_lane_f32(acc[5][1], b1, a1, 1);
        acc[5][2] = vfmaq_lane_f32(acc[5][2], b2, a1, 1);
        acc[5][3] = vfmaq_lane_f32(acc[5][3], b3, a1, 1);
    }
    for (i = 0; i < MMD__GEMM_MR; ++i) {
        float *cr = c + i * ldc;
        for (j = 0; j < 4; ++j) {
            float32x4_t v = acc[i][j];
            if (!(flags & MMD__GK_FIRST)) v = vaddq_f32(vld1q_f32(cr + 4 * j), v);
            else {
                if (bias) v = vaddq_f32(v, vdupq_n_f32(bias[i]));
                if (flags & MMD__GK_LOAD) v = vaddq_f32(v, vld1q_f32(cr + 4 * j));
            }
            if (flags & MMD__GK_CLAMP) {
                /* vbsl keeps NaN lanes (comparisons with NaN are false) as the scalar code does. */
                v = vbslq_f32(vcltq_f32(v, vdupq_n_f32(lo)), vdupq_n_f32(lo), v);
                v = vbslq_f32(vcgtq_f32(v, vdupq_n_f32(hi)), vdupq_n_f32(hi), v);
            }
            vst1q_f32(cr + 4 * j, v);
        }
    }
}
#endif

static mmd__gemm_ukernel mmd__gemm_kernel(int32_t isa) {
#if defined(MMD__X86)
    if (isa == MMD__ISA_AVX512) return mmd__gemm_ukernel_avx512;
    if (isa == MMD__ISA_AVX2) return mmd__gemm_ukernel_avx2;
#elif defined(MMD__NEON)
    if (isa == MMD__ISA_NEON) return mmd__gemm_ukernel_neon;
#endif
    (void)isa;
    return mmd__gemm_ukernel_c;
}

/* One product. A is read from a_packed (mmd__gemm_pack_a's layout) or else from a with row and
   column strides. B is one of: b_packed (mmd__gemm_pack_b's layout); b with contiguous columns
   and row p at b + b_rows[p]; b with row and column strides (packed per block). */
typedef struct mmd__gemm {
    int64_t m, n, k;
    const float *a, *a_packed;
    int64_t a_rs, a_cs;
    const float *b, *b_packed;
    const int64_t *b_rows;
    int64_t b_rs, b_cs;
    float *c;
    int64_t ldc;
    const float *bias;                  /* per row of C, added at the start; may be NULL */
    int32_t load;                       /* C's old contents are added (MMD__GK_LOAD) */
    const float *c0;                    /* with load, or NULL: C's start values (ldc apart), which
                                           each share copies into its own block of C first, so
                                           that the copy (a fused Conv's Z) runs on every thread */
    mmd__act act;
    int32_t isa;
#ifndef MMD_CONV_SMALL
    int32_t prefetch_c;                 /* tiles prefetch C's rows ahead (MMD__GK_PREFETCH_C) */
    int32_t rows_first;                 /* C's next reader splits it by rows: split by rows if the
                                           shares balance nearly as well (see mmd__split_step) */
    int32_t spread;                     /* B's rows lie close (SHIFTED's phase planes): SPREAD
                                           at any K (see mmd__gemm_block) */
#endif
} mmd__gemm;

static int64_t mmd__round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

/* Floats of packed A for m x k, and of packed B for k x n. */
static int64_t mmd__gemm_packed_a_size(int64_t m, int64_t k, int32_t isa) {
    return mmd__round_up(m, mmd__gemm_mr(isa)) * k;
}
static int64_t mmd__gemm_packed_b_size(int64_t k, int64_t n, int32_t isa) {
    return mmd__round_up(n, mmd__gemm_nr(isa)) * k;
}

/* Packs rows [m0, m0 + mc) and K range [k0, k0 + kc) of A into row panels [kc][mr], rows past
   m zero. */
static void mmd__gemm_pack_a_block(const float *a, int64_t rs, int64_t cs, int64_t m, int64_t m0,
                                   int64_t mc, int64_t k0, int64_t kc, int64_t mr, float *dst) {
    int64_t i0, i, p;
    for (i0 = 0; i0 < mc; i0 += mr, dst += kc * mr)
        for (i = 0; i < mr; ++i) {
            int64_t row = m0 + i0 + i;
            const float *src = a + row * rs + k0 * cs;
            if (row >= m || i0 + i >= mc) {
                for (p = 0; p < kc; ++p) dst[p * mr + i] = 0.0f;
            } else {
                for (p = 0; p < kc; ++p) dst[p * mr + i] = src[p * cs];
            }
        }
}

/* Packs all of A (m x k) once for isa's micro-kernel: for each K block, its row panels in
   order, so the block of rows ic (a multiple of MR) and K block k0 starts at
   k0 * round_up(m, MR) + ic * kc. */
static void mmd__gemm_pack_a(const float *a, int64_t rs, int64_t cs, int64_t m, int64_t k, int32_t isa,
                             float *dst) {
    int64_t mr = mmd__gemm_mr(isa), mp = mmd__round_up(m, mr), k0, kc, kb = mmd__gemm_kc(isa);
    for (k0 = 0; k0 < k; k0 += kc) {
        kc = k - k0 < kb ? k - k0 : kb;
        mmd__gemm_pack_a_block(a, rs, cs, m, 0, mp, k0, kc, mr, dst + k0 * mp);
    }
}

/* Packs columns [n0, n0 + nc) and K range [k0, k0 + kc) of B into column panels [kc][NR],
   columns past n zero. */
static void mmd__gemm_pack_b_block(const float *b, int64_t rs, int64_t cs, int64_t n, int64_t n0,
                                   int64_t nc, int64_t k0, int64_t kc, int64_t nr, float *dst) {
    int64_t j0, j, p;
    for (j0 = 0; j0 < nc; j0 += nr, dst += kc * nr)
        for (p = 0; p < kc; ++p) {
            const float *src = b + (k0 + p) * rs;
            float *d = dst + p * nr;
            for (j = 0; j < nr; ++j) {
                int64_t col = n0 + j0 + j;
                d[j] = col < n && j0 + j < nc ? src[col * cs] : 0.0f;
            }
        }
}

/* Packs all of B (k x n) once: the panel of columns j (a multiple of NR) in K block k0 starts
   at k0 * round_up(n, NR) + j * kc. */
static void mmd__gemm_pack_b(const float *b, int64_t rs, int64_t cs, int64_t k, int64_t n, int32_t isa,
                             float *dst) {
    int64_t nr = mmd__gemm_nr(isa), np = mmd__round_up(n, nr), k0, kc, kb = mmd__gemm_kc(isa);
    for (k0 = 0; k0 < k; k0 += kc) {
        kc = k - k0 < kb ? k - k0 : kb;
        mmd__gemm_pack_b_block(b, rs, cs, n, 0, np, k0, kc, nr, dst + k0 * np);
    }
}

/* Per-share scratch, in floats (each part rounded to 64 bytes): A's block, B's block, one B
   edge panel, the row offsets of a packed panel, the edge tile of C and, in the portable 4 x 8
   builds, A's block spread for SPREAD (four floats each, see mmd__gemm_block). Sized for the worst
   case whatever is prepacked, so that a plan from ONNX (packed weights) and one from a .mmd
   blob (none) need the same scratch. */
static int64_t mmd__gemm_share_floats(int64_t m, int64_t n, int64_t k, int32_t isa) {
    int64_t nr = mmd__gemm_nr(isa);
    int64_t kc = k < mmd__gemm_kc(isa) ? k : mmd__gemm_kc(isa);
    int64_t mc = mmd__round_up(m < mmd__gemm_mc(isa) ? m : mmd__gemm_mc(isa), mmd__gemm_mr(isa));
    int64_t nc = mmd__round_up(n < MMD_GEMM_NC ? n : MMD_GEMM_NC, nr);
    int64_t spread = 0;
    if (kc < 1) kc = 1;
#ifdef MMD__GEMM_SPREAD_C
    if (isa == MMD__ISA_PORTABLE) spread = 4 * mc * kc; /* A spread (mmd__gemm_block) */
#endif
    return mmd__round_up(mc * kc, 16) + mmd__round_up(kc * nc, 16) + mmd__round_up(kc * nr, 16) +
           mmd__round_up(2 * kc, 16) + mmd__round_up(MMD__GEMM_MR_MAX * (nr + 1), 16) + spread;
}

/* How many shares an m x n product (float or integer, in mr-row and nr-column panels) is split
   into for `threads` threads. */
static int32_t mmd__split_shares(int64_t m, int64_t n, int64_t mr, int64_t nr, int32_t threads) {
    int64_t by_cols = n / (2 * nr), by_rows = m / (2 * mr);
    int64_t most = by_cols > by_rows ? by_cols : by_rows;
    if (threads < 1) threads = 1;
    if (most < 1) most = 1;
    return (int32_t)(threads < most ? threads : most);
}

/* The split of an m x n product (float or integer) into `shares`: by rows when the columns give
   fewer than two nr-panels per share or when the largest row share has a sixteenth fewer panel
   tiles than the largest column share, since the fork waits for its largest share: ResNet-18's
   14x14 3x3 layers (224 columns, 256 rows) split 128:96 by columns but 128:128 by rows. Else
   by columns, where each share reads only its part of B (ResNet-18's first layer, im2col
   columns of 4 MB, has 884 tiles a share by rows and 888 by columns). *by_rows set on entry
   asks for rows when their largest share has at most an eighth more tiles than the columns'
   (mmd__gemm's rows_first; firmware ignores it). *step rows or columns (whole mr- or
   nr-panels) per share. Returns the number of shares that hold work. */
static int32_t mmd__split_step(int64_t m, int64_t n, int64_t mr, int64_t nr, int32_t shares, int32_t *by_rows,
                               int64_t *step) {
#ifndef MMD_CONV_SMALL
    int64_t pm = (m + mr - 1) / mr, pn = (n + nr - 1) / nr, rp = (pm + shares - 1) / shares, cp = (pn + shares - 1) / shares;
    int32_t rows = n / (2 * nr) < shares || 16 * rp * pn < 15 * cp * pm || (*by_rows && 8 * rp * pn <= 9 * cp * pm);
    int64_t panels = rows ? pm : pn, per = rows ? rp : cp;
    *by_rows = rows;
    *step = per * (rows ? mr : nr);
    return (int32_t)((panels + per - 1) / per);
#else
    /* Firmware (its .text budget): by columns unless they give fewer than two panels a share. */
    *by_rows = n / (2 * nr) < shares;
    *step = *by_rows ? mmd__round_up((m + shares - 1) / shares, mr) : mmd__round_up((n + shares - 1) / shares, nr);
    return (int32_t)(((*by_rows ? m : n) + *step - 1) / *step);
#endif
}

static int32_t mmd__gemm_shares(int64_t m, int64_t n, int32_t threads, int32_t isa) {
    return mmd__split_shares(m, n, mmd__gemm_mr(isa), mmd__gemm_nr(isa), threads);
}

/* Scratch bytes for a product run with up to `threads` threads, plus 64 bytes of alignment. */
static uint64_t mmd__gemm_scratch(int64_t m, int64_t n, int64_t k, int32_t isa, int32_t threads) {
    return (uint64_t)mmd__gemm_shares(m, n, threads, isa) * (uint64_t)mmd__gemm_share_floats(m, n, k, isa) *
               sizeof(float) + 64u;
}

/* What a share does with a block of C it has just computed (rows [m0, m1), columns [n0, n1)),
   while the block is still in cache. */
typedef void (*mmd__gemm_then_fn)(void *user, int64_t m0, int64_t m1, int64_t n0, int64_t n1);

typedef struct mmd__gemm_job {
    const mmd__gemm *g;
    float *scratch;                     /* 64-byte aligned, `share` floats per share */
    int64_t share, step;                /* floats per share; rows or columns per share */
    int32_t by_rows;
#ifndef MMD_CONV_SMALL
    mmd__gemm_then_fn then;             /* or NULL; else called per `chunk` columns of a share */
    void *user;
    int64_t chunk;
#endif
} mmd__gemm_job;

/* One share: rows [m0, m1) and columns [n0, n1) of C. */
static void mmd__gemm_block(const mmd__gemm *g, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float *scratch) {
    mmd__gemm_ukernel kern = mmd__gemm_kernel(g->isa);
    const float *a_packed = MMD__PACKS ? g->a_packed : NULL, *b_packed = MMD__PACKS ? g->b_packed : NULL;
    int64_t nr = mmd__gemm_nr(g->isa), mr = mmd__gemm_mr(g->isa), mcb = mmd__gemm_mc(g->isa);
    int64_t kb = mmd__gemm_kc(g->isa), kcmax = g->k < kb ? g->k : kb;
    int64_t mcmax = mmd__round_up(g->m < mcb ? g->m : mcb, mr);
    int64_t ncmax = mmd__round_up(g->n < MMD_GEMM_NC ? g->n : MMD_GEMM_NC, nr);
    float *apack, *bpack, *bedge, *ctile;
    int64_t *poff, mp = mmd__round_up(g->m, mr), np = mmd__round_up(g->n, nr);
    int64_t jc, pc, ic, jr, ir, p, jstart = 0;
#ifdef MMD__GEMM_SPREAD_C
    int32_t bspread;
#endif
    int32_t clamp = g->act.kind == MMD__ACT_RELU || g->act.kind == MMD__ACT_CLIP;
    float lo = g->act.kind == MMD__ACT_CLIP ? g->act.alpha : 0.0f;
    float hi = g->act.kind == MMD__ACT_CLIP ? g->act.beta : INFINITY;
#if defined(MMD__X86) && !defined(MMD_CONV_SMALL)
    /* B read in place under more than three AVX-512 row panels: the first row panel over each
       column panel also copies it into bpack (unused with B in place), where the other row
       panels, and the later row blocks, read it. In place, a panel's K rows are a plane apart,
       each on its own page and, with planes a multiple of 1 KB, in a few sets of L1, so every
       row panel paid for TLB and L1 misses the packed copy does not have: the micro-kernel alone
       runs 151 GFLOP/s over a 256 x 32 panel read with rows 1200 floats apart and 207 over the
       packed panel, all in cache. With process CPU time (bench_conv, medians of 5 alternations,
       1 thread) the DBNet's 480 -> 112 and 672 -> 112 at 40x30 run 1.01 -> 0.82 and 1.38 ->
       1.15 ms, 112 -> 672 1.26 -> 1.05, MobileNetV2's 192 -> 32 at 28x28 0.074 -> 0.066,
       256 -> 64 at 56x56 0.78 -> 0.69. With three row panels (24 rows) the copy costs more than
       the two panels that read it gain: 72 -> 24 at 160x120 0.63 -> 0.68 ms. The copy is kept
       for the later row blocks (in the panel's place in bpack) only when there are any; else
       every panel goes to the start of bpack, which stays in L1: with a place of its own, the
       24 KB panels of MobileNetV2's 144 -> 32 and 192 -> 32 at 28x28 streamed 600 KB through
       the caches and those layers ran 0.054 -> 0.077 and 0.079 -> 0.092 ms in the model
       instead of faster. In the model (per-node minima of 40-200 runs, packing on and off
       alternating run by run, 1 thread) the DBNet's 480 -> 112 and 672 -> 112 at 40x30 run
       0.97 -> 0.74 and 1.31 -> 1.08 ms, the sum of its nodes 0.969 of before; MobileNetV2's
       expansions at 14x14 and 7x7 0.94, its sum 0.988. */
    int32_t repack = g->isa == MMD__ISA_AVX512 && g->b_rows && !b_packed && m1 - m0 > 3 * mr;
#endif
    if (kcmax < 1) kcmax = 1;
    apack = scratch;
    bpack = apack + mmd__round_up(mcmax * kcmax, 16);
    bedge = bpack + mmd__round_up(kcmax * ncmax, 16);
    poff = (int64_t *)(bedge + mmd__round_up(kcmax * nr, 16));
    ctile = (float *)poff + mmd__round_up(2 * kcmax, 16);
    for (p = 0; p < kcmax; ++p) poff[p] = p * nr;
    if (g->k == 0) {
        /* No products: C is its start value, then the activation. */
        for (ir = m0; ir < m1; ++ir) {
            float *cr = g->c + ir * g->ldc;
            for (jr = n0; jr < n1; ++jr) {
                float v = (g->bias ? g->bias[ir] : 0.0f) + (g->load ? cr[jr] : 0.0f);
                if (clamp) {
                    v = v < lo ? lo : v;
                    v = v > hi ? hi : v;
                }
                cr[jr] = v;
            }
            if (!clamp) mmd__act_f32(&g->act, cr + n0, n1 - n0);
        }
        return;
    }
    for (jc = n0; jc < n1; jc += MMD_GEMM_NC) {
        int64_t nc = n1 - jc < MMD_GEMM_NC ? n1 - jc : MMD_GEMM_NC;
        for (pc = 0; pc < g->k; pc += kb) {
            int64_t kc = g->k - pc < kb ? g->k - pc : kb;
            int32_t flags = (pc == 0 ? MMD__GK_FIRST | (g->load ? MMD__GK_LOAD : 0) : 0) |
                            (clamp && pc + kc == g->k ? MMD__GK_CLAMP : 0);
            const float *bsrc;
            const int64_t *boff;
            int64_t bstep;              /* from one column panel to the next */
            if (b_packed) {
                bsrc = b_packed + pc * np + jc * kc;
                boff = poff;
                bstep = kc * nr;
            } else if (g->b_rows) {
                bsrc = g->b + jc;
                boff = g->b_rows + pc;
                bstep = nr;
            } else {
                mmd__gemm_pack_b_block(g->b, g->b_rs, g->b_cs, g->n, jc, nc, pc, kc, nr, bpack);
                bsrc = bpack;
                boff = poff;
                bstep = kc * nr;
            }
            if (nc % nr && g->b_rows && !b_packed) {
                /* Columns read in place past the edge could leave the tensor: the last, partial
                   panel is copied, zero-filled, once for all row blocks. */
                const float *src = bsrc + (nc - nc % nr);
                int64_t q, j;
                for (q = 0; q < kc; ++q)
                    for (j = 0; j < nr; ++j) bedge[q * nr + j] = j < nc % nr ? src[boff[q] + j] : 0.0f;
            }
#ifdef MMD__GEMM_SPREAD_C
            /* BSPREAD where SPREAD has too few column panels to pay for spreading A (MobileNetV2's
               7x7 planes, six panels and a column) and there are enough rows to pay for
               spreading B, once per K block for all the share's row blocks: the tiles then run
               eight rows by four columns with vectors along the rows (mmd__gemm_ukernel_bt_c),
               no broadcasts and no partial panel (four-column groups, the last 1 to 4 wide).
               Its spread B (16 floats a K step for each four columns) takes the scratch of
               SPREAD's A, which holds it while the columns, rounded to fours, are at most A's
               rows. MMD_NO_SIMD, one thread, warm (bench_conv, best of 30, two alternations):
               MobileNetV2's 960 -> 320, 320 -> 1280 and 160 -> 960 at 7x7 36.0-36.6 ->
               39.0-41.7 GFLOP/s, ResNet-18's 1x1 stride-2 256 -> 512 36.1 -> 40.3, its layer4
               3x3 (Winograd, whose products have 16 columns) 4.34-4.44 -> 3.89-4.06 ms. With
               fewer rows the spread costs more than it gains: 160 rows gained 3-5%, ResNet-18's
               64-channel layer1 3x3 ran 10% slower and the DBNet's 96 -> 24 3x3 at 20x15 15%;
               its 256-channel layer3 3x3 gained 2-8% warm but ran 1-4% slower in the model
               (per node, six alternated rounds of 20 runs), hence 320. */
            bspread = g->isa == MMD__ISA_PORTABLE && !g->spread && nc < MMD__GEMM_SPREAD_PANELS * nr &&
                      mmd__round_up(nc, 4) <= mcmax && m1 - m0 >= MMD__GEMM_BSPREAD_MMIN;
            if (bspread)
                mmd__gemm_spread_b(bsrc, boff, bstep, nr, nc, kc, ctile + mmd__round_up(MMD__GEMM_MR_MAX * (nr + 1), 16));
#endif
            for (ic = m0; ic < m1; ic += mcb) {
                int64_t mc = m1 - ic < mcb ? m1 - ic : mcb;
                const float *ablk;
                if (a_packed) {
                    ablk = a_packed + pc * mp + ic * kc;
                } else {
                    mmd__gemm_pack_a_block(g->a, g->a_rs, g->a_cs, g->m, ic, mc, pc, kc, mr, apack);
                    ablk = apack;
                }
#ifdef MMD__GEMM_SPREAD_C
                /* SPREAD (see mmd__gemm_ukernel_c) where K is short and the block wide: the block
                   of A is spread once into scratch (after ctile) and each row panel, 16 KB at
                   most, then stays in L1 across all the column panels, which run inside the
                   row panels here. A spread A read in the usual order, from L2 for every tile,
                   ran no faster than the broadcasts; nor did products of longer K in this order,
                   whose B panels then came from L2 for every tile (256 -> 64 at 56x56 1.10x the
                   time). MMD_NO_SIMD, one thread, thread CPU time, medians of 20 runs
                   alternating in one process: ResNet-18's stem (K = 147) 7.64 -> 6.70 ms,
                   MobileNetV2's 16 -> 96 at 112x112 1.52 -> 1.37, the DBNet's 16 -> 64 at
                   320x240 7.07 -> 6.40, 24 -> 96 at 160x120 3.49 -> 3.15, ResNet-18's 1x1
                   stride-2 64 -> 128 0.95x. SHIFTED's products (mmd__gemm.spread), whose B rows lie
                   within phase planes of a few KB, take it at any K over 32 columns or more:
                   ResNet-18's 3x3 stride-2 64 -> 128 and 128 -> 256 3.68 -> 3.44 and 3.74 -> 3.55
                   ms (medians of 3 alternations of 20-run medians), 256 -> 512 (49 columns)
                   level. Products of any K take it too where the block has eight panels or
                   more and its K block of B, read again for every row panel, stays in L2
                   (MMD__GEMM_SPREAD_BMAX): MobileNetV2's 14x14 layers (24 panels and a half,
                   the half through the loop below) and 192 -> 32 at 28x28, the DBNet's 160 ->
                   960 at 20x15. MMD_NO_SIMD, one thread, warm (bench_conv, best of 30, two
                   alternations): 96 -> 576, 384 -> 96, 576 -> 96 at 14x14 36.9-37.0 -> 40.5-40.7,
                   36.8-37.1 -> 42.4, 36.7 -> 42.3 GFLOP/s, 192 -> 32 at 28x28 36.6-36.8 ->
                   39.1-39.8, 160 -> 960 at 20x15 36.5-37.3 -> 41.7. Six panels (7x7 planes)
                   ran slower spread (32.7 -> 31.1), and so did B blocks past L2 (256 -> 64 at
                   56x56, 1 MB: 31.9 -> 30.2). */
                jstart = 0;
                if (bspread && !(mc % 8)) {
                    const float *bs = ctile + mmd__round_up(MMD__GEMM_MR_MAX * (nr + 1), 16);
                    for (jr = 0; jr < nc; jr += 4)
                        for (ir = 0; ir < mc; ir += 8)
                            mmd__gemm_ukernel_bt_c(kc, ablk + ir * kc, bs + jr * kc * 4, g->c + (ic + ir) * g->ldc + jc + jr,
                                                   g->ldc, nc - jr < 4 ? nc - jr : 4, g->bias ? g->bias + ic + ir : NULL,
                                                   jr == 0 ? flags | MMD__GK_PREFETCH : flags, lo, hi);
                    jstart = nc;
                } else if (g->isa == MMD__ISA_PORTABLE && !(mc % mr) &&
                    (g->spread ? nc >= 4 * nr
                               : (g->k <= MMD__GEMM_SPREAD_KMAX && nc >= MMD__GEMM_SPREAD_NMIN) ||
                                     (nc >= MMD__GEMM_SPREAD_PANELS * nr && kc * nc <= MMD__GEMM_SPREAD_BMAX))) {
                    float *spread = ctile + mmd__round_up(MMD__GEMM_MR_MAX * (nr + 1), 16);
                    int64_t six = mc % 6 == 2 ? mc - 8 : mc - mc % 6, span = 1, i0, i1, rows, istart = 0;
                    const float *bp, *bias, *bedge_b = g->b_rows && !b_packed ? bedge : bsrc + (nc - nc % nr) / nr * bstep;
                    const int64_t *bedge_o = g->b_rows && !b_packed ? poff : boff;
                    jstart = nc - nc % nr; /* full panels; the partial one, if any, below */
                    /* Short K (at most MMD__GEMM_SPREAD_ACROSS_K): the row panels in groups whose
                       spread A stays in L1 beside a panel of B (MMD__GEMM_SPREAD_ACROSS floats), the
                       column panels outermost within each group, so that each panel of B, read in
                       place from L2 (a pointwise convolution's K rows are planes apart), serves
                       the group's row panels from L1 instead of coming again from L2 for each:
                       tiles of 16 to 48 K steps are too short to hide those reads. Longer K keeps
                       one row panel a group (the row panels outermost), its A then in L1 across
                       the columns. The same tiles, so the same sums. MobileNetV2's PointwiseDepthwise
                       products (16 -> 96 at 112x112 in groups of 20 rows, 24 -> 144 at 56x56 in
                       groups of 80, 32 -> 192 at 28x28 in two groups of 60 a block), per node in the
                       model, MMD_NO_SIMD, 1 thread, thread CPU time, medians of 16 alternated
                       rounds of 30 runs, two sessions: 1.948 -> 1.854 and 1.953 -> 1.804 ms, 1.169
                       -> 1.133 and 1.068 -> 1.050, 0.967 -> 0.923 and 0.891 -> 0.867, the three 32
                       -> 192 0.94-1.00x; the whole model (medians of 40 runs, 16-20 rounds) 0.988
                       and 0.992 of before; the DBNet's 13 pairs 0.95-1.01x, its sum of nodes 0.993.
                       Long K ran slower grouped: 144 -> 24 at 56x56 1.03-1.05x, 192 -> 32 at 28x28
                       1.09-1.13x, and in groups of two row panels 1.02x and 1.06x. (Measured with
                       four-row tiles; the groups are now whole six-row tiles, the same span.) */
                    if (kc <= MMD__GEMM_SPREAD_ACROSS_K) {
                        int64_t most = MMD__GEMM_SPREAD_ACROSS / (4 * kc), groups = (mc + most - 1) / most;
                        span = (mc + groups - 1) / groups;
                    }
                    /* The tiles are six rows (mmd__gemm_ukernel_spread6_c), the last four or eight
                       rows of the block (mc % 6 of 4 or 2) four at a time; a group's rows are
                       spread just before its tiles, so the spread rows come from L1, not L2. Two
                       direct calls, not one through a pointer chosen here: GCC then knows every
                       call of the portable kernel and that kc >= 1 in all of them, and compiles
                       mmd__gemm_ukernel_c without clearing its sums' stack copy (rep stos) on every
                       call, which kc = 0 alone would read. B's panel pointer steps on, where jr /
                       nr (nr not a constant in a portable build) cost a 64-bit division per tile. */
                    /* Long K over few rows (the six-row tiles' spread A of MMD__GEMM_SPREAD_ACROSS_K K
                       steps at most MMD__GEMM_SPREAD_ACROSS floats) split into parts of at most that
                       K, each in the short-K order (the column panels outermost, every six-row
                       tile over a panel in turn, the part's spread A in L1), the sums going
                       through C between parts (MMD__GK_RAW, then MMD__GK_CONT): B is then read once
                       in all instead of once per six rows. Where B's K block over the block's
                       columns is more than MMD__GEMM_SPLIT_B floats (it comes from L2 or beyond for
                       each six rows), or a column panel's K rows crowd a set of L1
                       (mmd__gemm_set_rows: then every tile read its B from L2 again). Each sum is
                       the same float as in one pass (acc restarts from C's float, its products
                       added in the same order; the bias, C's start values, which come from c0
                       (C holds the partial sums), and the clamp after the last part), so only a
                       product with one K block, and with start values only as c0, is split; the
                       last 4 or 8 rows (mc % 6 of 4 or 2) run after, in the usual loop. MMD_NO_SIMD,
                       one thread, per node in the model (thread CPU time, the same binary with the
                       split switched off alternating, medians of 16 rounds of 40 runs, 8 for the
                       DBNet): MobileNetV2's 144 -> 24 at 56x56 0.897 -> 0.803 ms, 96 -> 24 at 56x56
                       0.557 -> 0.535, 144 -> 32 and 192 -> 32 at 28x28 0.98-0.99x; the DBNet's 64 ->
                       24 and 72 -> 24 at 160x120 (75 KB planes, 16 and 18 rows a set) 2.67 -> 2.29
                       and 3.22 -> 2.92 ms, 120 -> 40 and 72 -> 40 at 80x60 and its expansions at
                       40x30 (PointwiseDepthwise bands of 24 and 48 rows) 0.98-1.00x, the whole
                       DBNet 0.98x. Split, MobileNetV2's 192 -> 64 at 14x14 (B 150 KB) ran 1.08x and
                       its 32 -> 16 at 112x112 (K = 32 in two parts: 8 rows a set) 1.03x. Leaving out
                       the copy of c0 into C, which the parts overwrite, made 144 -> 24 1.02x slower:
                       it brings C's lines into the cache before the parts' stores. */
                    int64_t parts = (kc + MMD__GEMM_SPREAD_ACROSS_K - 1) / MMD__GEMM_SPREAD_ACROSS_K, kp = (kc + parts - 1) / parts;
                    if (kc > MMD__GEMM_SPREAD_ACROSS_K && kc == g->k && six && (!g->load || g->c0) &&
                        4 * six * kp <= MMD__GEMM_SPREAD_ACROSS &&
                        (kc * nc > MMD__GEMM_SPLIT_B || mmd__gemm_set_rows(boff, kc) > MMD__GEMM_SET_ROWS)) {
                        int64_t k0, ks;
                        for (i1 = 0; i1 < six; i1 += 6) mmd__gemm_spread_a(ablk, kc, i1, 6, spread + 4 * i1 * kc);
                        for (k0 = 0; k0 < kc; k0 += ks) {
                            int32_t f = (k0 ? MMD__GK_CONT : 0) | (k0 + kp < kc ? MMD__GK_RAW : flags) | MMD__GK_SPREAD;
                            ks = kc - k0 < kp ? kc - k0 : kp;
                            for (jr = 0, bp = bsrc; jr < jstart; jr += nr, bp += bstep)
                                for (ir = 0; ir < six; ir += 6) {
                                    int64_t at = (ic + ir) * g->ldc + jc + jr;
                                    mmd__gemm_ukernel_spread6_c(ks, spread + 4 * ir * kc + 24 * k0, bp, boff + k0, g->c + at,
                                                                g->ldc, g->bias ? g->bias + ic + ir : NULL, f, lo, hi,
                                                                (g->load ? g->c0 : g->c) + at);
                                }
                        }
                        /* The partial panel of these rows, whole K at once over their spread A
                           (C there still holds its start values), before the groups below spread
                           over it. */
                        if (jstart < nc)
                            for (ir = 0; ir < six; ir += 6)
                                mmd__gemm_spread_cols_c(kc, spread + 4 * ir * kc, 6, bedge_b, bedge_o, nc - jstart,
                                                        g->c + (ic + ir) * g->ldc + jc + jstart, g->ldc,
                                                        g->bias ? g->bias + ic + ir : NULL, flags, lo, hi);
                        istart = six;
                    }
                    for (i0 = istart; i0 < mc; i0 = i1) {
#ifdef MMD__HAS_PREFETCH
                        const char *pf;
                        int64_t lines, per, q;
#endif
                        for (i1 = i0; i1 < mc && i1 - i0 < span; i1 += rows) {
                            rows = i1 < six ? 6 : 4;
                            mmd__gemm_spread_a(ablk, kc, i1, rows, spread + 4 * (i1 - i0) * kc);
                        }
#ifdef MMD__HAS_PREFETCH
                        /* The next group's packed rows of A (as many as this group's) are asked
                           into L2 while this group's tiles run, a few lines before each column
                           panel, so that its spread does not wait for them: the weights of a
                           layer come from memory on every run, and a group's rows, read all at
                           once by the spread, were a pause the hardware's prefetcher did not
                           cover (one group, 6 rows of 256 K steps, is 96 lines). After the
                           block's last group these are the next block's rows when the share has
                           all of A's rows (packed A is contiguous across its blocks), else lines
                           nobody reads, up to the end of A. */
                        pf = (const char *)(ablk + i1 / 4 * 4 * kc);
                        lines = (a_packed ? a_packed + mp * g->k : ablk + mc * kc) - (ablk + i1 / 4 * 4 * kc);
                        if (lines > (i1 - i0) * kc) lines = (i1 - i0) * kc;
                        lines = (lines * (int64_t)sizeof(float) + 63) / 64;
                        per = (lines + jstart / nr - 1) / (jstart / nr);
#endif
                        for (jr = 0, bp = bsrc; jr < jstart; jr += nr, bp += bstep) {
#ifdef MMD__HAS_PREFETCH
                            for (q = 0; q < per && lines > 0; ++q, --lines, pf += 64) MMD__PREFETCH_L2(pf);
#endif
                            for (ir = i0; ir < i1; ir += rows) {
                                float *ct = g->c + (ic + ir) * g->ldc + jc + jr;
                                const float *as = spread + 4 * (ir - i0) * kc;
                                rows = ir < six ? 6 : 4;
                                bias = g->bias ? g->bias + ic + ir : NULL;
                                if (rows == 6)
                                    mmd__gemm_ukernel_spread6_c(kc, as, bp, boff, ct, g->ldc, bias, flags | MMD__GK_SPREAD,
                                                                lo, hi, ct);
                                else
                                    kern(kc, as, bp, boff, ct, g->ldc, bias, flags | MMD__GK_SPREAD, lo, hi);
                            }
                        }
                        /* The partial panel over the group's spread rows (mmd__gemm_spread_cols_c),
                           from the zero-filled copy of an edge read in place. */
                        if (jstart < nc)
                            for (ir = i0; ir < i1; ir += rows) {
                                rows = ir < six ? 6 : 4;
                                mmd__gemm_spread_cols_c(kc, spread + 4 * (ir - i0) * kc, rows, bedge_b, bedge_o, nc - jstart,
                                                        g->c + (ic + ir) * g->ldc + jc + jstart, g->ldc,
                                                        g->bias ? g->bias + ic + ir : NULL, flags, lo, hi);
                            }
                    }
                    jstart = nc;
                }
#endif
                for (jr = jstart; jr < nc; jr += nr) {
                    int64_t nrr = nc - jr < nr ? nc - jr : nr;
                    const float *bp = bsrc + jr / nr * bstep;
                    const int64_t *bo = boff;
#ifndef MMD_CONV_SMALL
                    int32_t kf = (jr == 0 ? flags | MMD__GK_PREFETCH : flags) | (g->prefetch_c ? MMD__GK_PREFETCH_C : 0);
                    int32_t kb0 = g->b_rows && !b_packed ? kf | MMD__GK_PREFETCH_B : kf;
#else
                    int32_t kf = flags, kb0 = flags; /* firmware's kernel has no use for PREFETCH */
#endif
#if defined(MMD__X86) && !defined(MMD_CONV_SMALL)
                    float *pack = NULL;
#endif
                    if (nrr < nr && g->b_rows && !b_packed) {
                        bp = bedge;
                        bo = poff;
                    }
#if defined(MMD__X86) && !defined(MMD_CONV_SMALL)
                    else if (repack) {
                        float *slot = bpack + (m1 - m0 > mcb ? jr / nr * kc * nr : 0);
                        if (ic == m0) pack = slot;
                        else bp = slot, bo = poff;
                    }
#endif
                    for (ir = 0; ir < mc; ir += mr) {
                        int64_t mrr = mc - ir < mr ? mc - ir : mr, i, j;
                        float *ct = g->c + (ic + ir) * g->ldc + jc + jr;
                        const float *bias = g->bias ? g->bias + ic + ir : NULL;
#if defined(MMD__X86) && !defined(MMD_CONV_SMALL)
                        if (pack) {
                            mmd__gemm_ukernel_avx512_pack(kc, ablk, bp, bo, ct, g->ldc, bias, kb0, lo, hi, pack);
                            bp = pack, bo = poff, pack = NULL;
                            continue;
                        }
#endif
                        if (mrr == mr && nrr == nr) {
                            kern(kc, ablk + ir * kc, bp, bo, ct, g->ldc, bias, ir == 0 ? kb0 : kf, lo, hi);
                            continue;
                        }
#if defined(MMD__X86)
                        if (mrr == 1 && nrr == nr && g->isa == MMD__ISA_AVX512) {
                            mmd__gemm_row_avx512(kc, ablk + ir * kc, bp, bo, ct, g->ldc, bias, flags, lo, hi);
                            continue;
                        }
#endif
#ifndef MMD_CONV_SMALL
                        if (mrr == mr && nrr < nr && g->isa == MMD__ISA_PORTABLE) {
                            /* The block's whole row panels at once (see mmd__gemm_cols_c). */
                            if (ir == 0) mmd__gemm_cols_c(kc, ablk, mc / mr, bp, bo, nrr, ct, g->ldc, bias, flags, lo, hi);
                            continue;
                        }
                        if (mrr == 1 && nrr == nr && g->isa == MMD__ISA_PORTABLE) {
                            /* The row's full panels four at a time (see mmd__gemm_row_c): the
                               three after a group's first are done with it. */
                            if ((jr - jstart) / nr % 4 == 0)
                                mmd__gemm_row_c(kc, ablk + ir * kc, bp, bo, bstep, (nc - jr) / nr < 4 ? (nc - jr) / nr : 4, ct,
                                                bias, flags, lo, hi);
                            continue;
                        }
#endif
                        /* An edge tile goes through a full-size tile in scratch; the bias
                           of rows past the edge is never read. */
                        if (bias && mrr < mr) {
                            float *bt = ctile + MMD__GEMM_MR_MAX * nr;
                            for (i = 0; i < mr; ++i) bt[i] = i < mrr ? bias[i] : 0.0f;
                            bias = bt;
                        }
                        for (i = 0; i < mrr; ++i)
                            for (j = 0; j < nrr; ++j) ctile[i * nr + j] = ct[i * g->ldc + j];
                        kern(kc, ablk + ir * kc, bp, bo, ctile, nr, bias, kf, lo, hi);
                        for (i = 0; i < mrr; ++i)
                            for (j = 0; j < nrr; ++j) ct[i * g->ldc + j] = ctile[i * nr + j];
                    }
                }
                if (!clamp && g->act.kind != MMD__ACT_NONE && pc + kc == g->k)
                    for (ir = 0; ir < mc; ++ir) mmd__act_f32(&g->act, g->c + (ic + ir) * g->ldc + jc, nc);
            }
        }
    }
}

static void mmd__gemm_task(void *data, int32_t index) {
    const mmd__gemm_job *j = (const mmd__gemm_job *)data;
    const mmd__gemm *g = j->g;
    float *scratch = j->scratch + index * j->share;
    int64_t lo = index * j->step, hi = lo + j->step, end = j->by_rows ? g->m : g->n, r;
    int64_t m0, m1, n0, n1;
    if (hi > end) hi = end;
    if (lo >= hi) return;
    m0 = j->by_rows ? lo : 0;
    m1 = j->by_rows ? hi : g->m;
    n0 = j->by_rows ? 0 : lo;
    n1 = j->by_rows ? g->n : hi;
#ifndef MMD_CONV_SMALL
    if (j->then || g->c0) {
        /* Chunks of whole nr-panels (with c0 alone, the product's own column blocks) compute
           each element as the whole block would. C's start values are copied a chunk at a
           time, just before it is computed, so that the epilogue finds them in cache: DBNet's
           largest FPN level (96 x 19200, its Z the upsampled coarser level) copied whole first
           had left the cache again. */
        int64_t chunk = j->then ? j->chunk : MMD_GEMM_NC;
        for (; n0 < n1; n0 = end) {
            end = n1 - n0 > chunk ? n0 + chunk : n1;
            if (g->c0)
                for (r = m0; r < m1; ++r)
                    memcpy(g->c + r * g->ldc + n0, g->c0 + r * g->ldc + n0, (size_t)(end - n0) * sizeof(float));
            mmd__gemm_block(g, m0, m1, n0, end, scratch);
            if (j->then) j->then(j->user, m0, m1, n0, end);
        }
        return;
    }
#endif
    if (g->c0)
        for (r = m0; r < m1; ++r) memcpy(g->c + r * g->ldc + n0, g->c0 + r * g->ldc + n0, (size_t)(n1 - n0) * sizeof(float));
    mmd__gemm_block(g, m0, m1, n0, n1, scratch);
}

/* Runs g over the session's threads with scratch of mmd__gemm_scratch(m, n, k, isa, threads)
   bytes, threads being the count given there; with `then`, each share hands every `chunk`
   columns (a multiple of nr) of its block to then(user, ...) as soon as they are computed. */
static void mmd__gemm_run_then(const mmd_kernel_ctx *c, const mmd__gemm *g, void *scratch, int32_t threads,
                               mmd__gemm_then_fn then, void *user, int64_t chunk) {
    mmd__gemm_job job;
    int64_t nr = mmd__gemm_nr(g->isa);
    int32_t shares = mmd__gemm_shares(g->m, g->n, threads < c->threads ? threads : c->threads, g->isa);
    if (g->m == 0 || g->n == 0) return;
    job.g = g;
    job.scratch = (float *)(((uintptr_t)scratch + 63u) & ~(uintptr_t)63u);
    job.share = mmd__gemm_share_floats(g->m, g->n, g->k, g->isa);
#ifndef MMD_CONV_SMALL
    job.then = then;
    job.user = user;
    job.chunk = chunk;
#else
    (void)then, (void)user, (void)chunk; /* firmware has no DISJOINT ConvTranspose to call them */
#endif
#ifndef MMD_CONV_SMALL
    job.by_rows = g->rows_first;
#endif
    shares = mmd__split_step(g->m, g->n, mmd__gemm_mr(g->isa), nr, shares, &job.by_rows, &job.step);
    mmd_kernel_parallel(c, mmd__gemm_task, &job, shares);
}

static void mmd__gemm_run(const mmd_kernel_ctx *c, const mmd__gemm *g, void *scratch, int32_t threads) {
    mmd__gemm_run_then(c, g, scratch, threads, NULL, NULL, 0);
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

/* auto_pad values, as mmd__window_attrs returns them. */
enum { MMD__AUTO_PAD_NOTSET, MMD__AUTO_PAD_VALID, MMD__AUTO_PAD_SAME_UPPER, MMD__AUTO_PAD_SAME_LOWER };

/* Reads strides, dilations, pads and auto_pad for n spatial axes and a kernel of sizes
   kernel[] into w's k, s, d and pads (VALID pads nothing; SAME's pads wait for the input
   sizes), checking their ranges. ConvTranspose stops here: its output size follows from the
   pads the other way round. */
static mmd_status mmd__window_attrs(mmd_kernel_ctx *c, int32_t n, const int64_t *kernel, mmd__window *w,
                                    int32_t *auto_pad) {
    static const char *const modes[] = {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", NULL};
    const int64_t *strides, *dilations, *pads;
    int64_t ns, nd, np;
    int32_t a;
    mmd_status st = mmd_attr_get_ints(c, "strides", &strides, &ns);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "dilations", &dilations, &nd);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "pads", &pads, &np);
    if (st == MMD_OK) st = mmd__detect_pick(c, "auto_pad", "NOTSET", modes, auto_pad);
    if (st != MMD_OK) return st;
    if ((ns && ns != n) || (nd && nd != n) || (np && np != 2 * n))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL,
                               "%d spatial axes but %lld strides, %lld dilations, %lld pads",
                               (int)n, (long long)ns, (long long)nd, (long long)np);
    for (a = 0; a < 3; ++a) {
        int32_t j = a - (3 - n);
        int64_t s, d, lo, hi, k;
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
        w->k[a] = k;
        w->s[a] = s;
        w->d[a] = d;
        w->pad[a] = *auto_pad == MMD__AUTO_PAD_VALID ? 0 : lo;
        w->pad_end[a] = *auto_pad == MMD__AUTO_PAD_VALID ? 0 : hi;
    }
    return MMD_OK;
}

/* Reads the window attributes (mmd__window_attrs) and resolves the output sizes over spatial
   input sizes in[], SAME's pads included. ceil_mode follows the pools: a window that would
   start in the end padding is dropped. */
static mmd_status mmd__window_prepare(mmd_kernel_ctx *c, int32_t n, const int64_t *in,
                                      const int64_t *kernel, int32_t ceil_mode, mmd__window *w) {
    /* Set by mmd__window_attrs on success; initialised because GCC cannot always see that. */
    int32_t a, auto_pad = MMD__AUTO_PAD_NOTSET;
    mmd_status st = mmd__window_attrs(c, n, kernel, w, &auto_pad);
    if (st != MMD_OK) return st;
    for (a = 0; a < 3; ++a) {
        int32_t j = a - (3 - n);
        int64_t s = w->s[a], dk = (w->k[a] - 1) * w->d[a] + 1, span;
        if (j < 0) continue;
        w->in[a] = in[j];
        if (auto_pad == MMD__AUTO_PAD_SAME_UPPER || auto_pad == MMD__AUTO_PAD_SAME_LOWER) {
            /* SAME: ceil(in / stride) outputs, the padding split evenly, the odd one at the end
               (SAME_UPPER) or at the start (SAME_LOWER). */
            int64_t total;
            w->out[a] = (in[j] + s - 1) / s;
            total = (w->out[a] - 1) * s + dk - in[j];
            if (total < 0) total = 0;
            w->pad[a] = auto_pad == MMD__AUTO_PAD_SAME_LOWER ? (total + 1) / 2 : total / 2;
            w->pad_end[a] = total - w->pad[a];
            continue;
        }
        span = in[j] + w->pad[a] + w->pad_end[a] - dk;
        if (span < 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                                   "spatial axis %d: window of %lld does not fit input %lld padded by %lld,%lld",
                                   (int)j, (long long)dk, (long long)in[j], (long long)w->pad[a],
                                   (long long)w->pad_end[a]);
        w->out[a] = span / s + 1;
        if (ceil_mode && span % s) {
            w->out[a] += 1;
            if ((w->out[a] - 1) * s >= in[j] + w->pad[a]) w->out[a] -= 1;
        }
    }
    return MMD_OK;
}

/* How a convolution is computed (per image and group, as a product W [M, C * taps] x columns):
   DIRECT: the tap loops of mmd__conv_plane_f32, for convolutions with one input channel per
   group (depthwise), where a product has nothing to share; POINTWISE: a 1x1 stride-1 kernel
   with no padding, whose columns are the input planes themselves; SHIFTED: 1-D or 2-D, where
   the input is copied into a zero-padded plane split by row and column modulo the strides
   into phase planes (one phase at stride 1), so that every kernel tap reads one phase plane
   shifted and the product reads it in place (the output is computed over the phases' width
   and then compacted); IM2COL: the rest (3-D, firmware), whose columns are gathered into
   scratch a band of output rows at a time; DEPTHWISE: one input channel per group in 1-D or
   2-D, any kernel, stride and dilation, as rows of vector multiply-adds over a padded copy of
   the input plane split by column phase (see mmd__dw_channels), or on AVX-512 over the input
   plane itself, the padding masked off (see mmd__dw_inplace). 3-D depthwise takes DIRECT.
   WINOGRAD: 3x3 stride-1 single-group 2-D convolutions on planes large enough (>>ops winograd).
   STEM: on AVX-512 and the portable ISA, what SHIFTED would take with 1 to 4 input channels
   and one group (image models' first convolution), summed straight from band-high phase rows
   into the NCHW output (>>ops stem). ConvTranspose: IM2COL there is the product then col2im's scatter-add;
   DISJOINT, stride equal to kernel, stores each tap's columns straight to its outputs (see
   mmd__conv_transpose_plan).
   PIXEL: a POINTWISE convolution with a one-pixel output, no group and no Z (the 1x1 convs of a
   squeeze-and-excitation block, after GlobalAveragePool), whose product W x (one column) would
   fill one column of each micro-kernel tile: it runs transposed, x^T (1 x K) by W^T (K x M, the
   weights packed as B), so that the product streams the weights through the one-row tile
   (mmd__gemm_row_avx512) at memory speed; the bias is C's start value (g.c0), which sums each
   output exactly as the bias of the untransposed product does.
   NARROW: on AVX-512, POINTWISE convolutions of 7- and 14-column planes, with vectors along
   the output channels instead of the pixels (>>ops narrow). */
enum { MMD__CONV_DIRECT, MMD__CONV_POINTWISE, MMD__CONV_SHIFTED, MMD__CONV_IM2COL, MMD__CONV_DEPTHWISE,
       MMD__CONV_WINOGRAD, MMD__CONV_DISJOINT, MMD__CONV_STEM, MMD__CONV_SWEEP,
       MMD__CONV_PIXEL, MMD__CONV_NARROW };

/* SWEEP: a POINTWISE product of at most MMD__SWEEP_K_MAX input channels whose output is at
   least MMD__SWEEP_FLOATS, computed one row panel of output channels at a time across the
   share's columns (mmd__conv_sweep_task) rather than the product's blocks of MMD_GEMM_MC rows
   per block of columns. With so few input channels a tile's sums cost less than storing them,
   and a block of 96 rows stored a tile at a time keeps 96 output rows in flight, more write
   streams than the prefetchers follow: MobileNetV2's 16 -> 96 layer at 112x112 (4.8 MB out)
   took 0.74 ms (median of 100, one thread) that way and takes 0.43 ms sweeping eight rows at a
   time, while its 800 KB of input stays in L2 for the twelve sweeps (a DBNet's 16 -> 64 at
   160x120: 0.79 -> 0.57 ms). Outputs of less than 1 MB gain little or nothing (32 -> 192 at
   28x28 3% slower), hence the size floor. Since the tiles prefetch the output rows ahead
   (MMD__GK_PREFETCH_C) SWEEP also wins from 1 to 2 MB and past 32 input channels, per node in
   the models (thread CPU time, four alternations of 30 and 200 runs on a loaded 2-core Xeon):
   the DBNet's lateral.1 (40 -> 96 at 80x60 with Z, 1.8 MB) 0.60-0.71 -> 0.47-0.51 ms and
   features.7 block.0 (40 -> 240 at 40x30, 1.2 MB) 1.01-1.06 -> 0.77-0.88, MobileNetV2's
   features.3 and .4 conv.0 (24 -> 144 at 56x56, 1.8 MB) 0.26-0.32 -> 0.20-0.22 ms each. */
#define MMD__SWEEP_K_MAX 48
#ifndef MMD__SWEEP_FLOATS
#define MMD__SWEEP_FLOATS ((int64_t)1 << 18)
#endif
/* A share whose input (K rows of its columns) is more than MMD__SWEEP_INPUT floats, half this
   Xeon's L2, is swept in blocks of MMD__SWEEP_COLUMNS columns, all row panels over one block
   before the next, so that each panel reads the block from L2 instead of the whole input from
   L3: the DBNet's 16 -> 64 at 320x240 (4.9 MB in) read it eight times and its 16 -> 16 with Z
   twice. Blocks of 2048 columns (8 KiB of each output row a panel) keep the output rows long
   enough for the prefetchers. Thread CPU time, medians of 60 runs alternating on a loaded
   2-core Xeon, the tiles' PREFETCH_C on both ways: 16 -> 64 2.60 -> 2.19 ms, 16 -> 16 with Z
   1.02 -> 0.96 ms (blocks of 1024: 0.93), 24 -> 96 at 160x120 with Z (1.8 MB in) 1.57 -> 1.56
   ms; in the model, with PREFETCH_C (per-node thread CPU time, three alternations of 40 runs)
   16 -> 64 3.05 -> 2.13 ms, 16 -> 16 1.38 -> 1.15, 24 -> 96 1.89 -> 1.74. An input that fits
   (MobileNetV2's 16 -> 96 at 112x112, 0.8 MB) gained nothing from blocks but lost where they
   broke the output rows' streams. */
#ifndef MMD__SWEEP_INPUT
#define MMD__SWEEP_INPUT ((int64_t)1 << 18)
#endif
#ifndef MMD__SWEEP_COLUMNS
#define MMD__SWEEP_COLUMNS 2048 /* a multiple of every micro-kernel's column panel */
#endif

/* POINTWISE splits an expansion (at least twice as many channels out as in, not strided) by
   rows, that is by output channels, when a thread's share of the output and the whole input
   fit in this Xeon's 2 MB L2 with room to spare: the depthwise convolution after it splits by
   channels (mmd__dw_task) and then finds its input in its own core's cache, where split by
   columns half of it was in the other core's; the expansion reads all of its small input for
   that instead of half. Past this size the output leaves for the shared L3 anyway and the
   whole input read cost more than the depthwise gained: the DBNet's 80 -> 480 at 40x30 (1.5 MB)
   0.34 -> 0.39 ms for 0.13 -> 0.12. At 2 threads, per-node minima of 200 (MobileNetV2) and 50
   (DBNet) runs with the two splits alternating run by run in one process (loaded machine):
   MobileNetV2's 32 -> 192 at 28x28 0.047-0.055 -> 0.035-0.070 ms (one of the three slower) and
   the depthwise layers after them 0.017-0.033 -> 0.010-0.027, 160 -> 960 at 7x7 0.056 -> 0.060,
   the sum of its node minima 0.995 of columns'; the DBNet's 160 -> 960 and 160 -> 672 at 20x15
   0.36-0.37 -> 0.31 ms, the depthwise layers after its 40x30 expansions 0.053-0.061 -> 0.044-0.049,
   the sum of its node minima 0.983. A strided 1x1 (ResNet's downsample) is left alone: the
   convolution that reads it as Z splits by columns. */
#define MMD__ROWS_FIRST_FLOATS ((int64_t)5 << 16)

/* Floats of padded input rows a depthwise share holds at once (16 KiB: they stay in L1 while
   the output rows that read them are computed). */
#define MMD__DW_BAND_FLOATS 4096
/* Floats past a depthwise band that the AVX-512 path's whole-vector reads may touch (beyond
   the last output's last tap: up to 15 at stride 1, 31 at stride 2); they hold zeros and what
   they add is never stored. */
#define MMD__DW_SLACK 32

#ifndef MMD_CONV_COLUMNS_MAX
#ifdef MMD_CONV_SMALL
#define MMD_CONV_COLUMNS_MAX ((int64_t)1 << 10) /* firmware: at least one output row at once */
#else
#define MMD_CONV_COLUMNS_MAX ((int64_t)1 << 20) /* floats of im2col columns gathered at once */
#endif
#endif

typedef struct mmd__conv_data {
    mmd__window w;
    int64_t batch, in_ch, out_ch, group;
    mmd__act act;                       /* FusedConv, and ConvTranspose given one by the
                                           rewrites: applied after the sum */
    int32_t has_z;                      /* FusedConv: input 3 (Z, the output's shape) is added */
    int32_t path, isa, threads;         /* MMD__CONV_*; instruction set and threads of the product */
    int64_t gm, gk, gn;                 /* product per image and group: M, K and N (columns) */
    int64_t hp, wp, plane;              /* SHIFTED: rows and columns of a phase plane, floats */
                                        /* per channel (its s[1] * s[2] phases and slack); */
                                        /* sub: the output's pixels */
    int32_t sub;                        /* a strided 1x1 convolution run as POINTWISE (or NARROW,
                                           SWEEP) over its input subsampled into scratch */
    int64_t band;                       /* IM2COL: output rows (axes 0 and 1) gathered at once;
                                           DEPTHWISE: output rows per band of input rows */
    int64_t row_len, ring, step, share; /* DEPTHWISE: padded row length, input rows per band,
                                           channels per share, scratch bytes per share */
    const float *packed;                /* the weights packed per group (WINOGRAD: transformed), or NULL */
    int64_t wino_th, wino_tw, wino_rows; /* WINOGRAD: tile rows and columns, tile rows per block */
    int64_t wino_len, wino_vs;          /* WINOGRAD: phase row length, V's row stride (tiles) */
    int64_t wino_cs;                    /* WINOGRAD: V's columns per tile row, tw or tw + 1 */
    int32_t wino_shares;                /* WINOGRAD: shares run at once */
    int32_t wino_e;                     /* WINOGRAD: output tile size, 4 or 2 (see mmd__wino_plan) */
    size_t gemm_bytes;                  /* scratch of the product, the rest follows it */
} mmd__conv_data;

#ifndef MMD_CONV_SMALL
/* Whether DEPTHWISE computes a band as one flat row (see mmd__dw_channels): the portable row
   kernel's, at stride 1 (1) and at stride 2 on both axes (2, over the band's four phases; a
   flat row over the padded rows themselves would compute the columns past ow, half of it, too:
   MobileNetV2's 112x112 stride-2 layer took 1.3 ms instead of 0.78). p's window and isa set. */
static int32_t mmd__dw_flat(const mmd__conv_data *p) {
    if (p->isa != MMD__ISA_PORTABLE || p->w.s[1] != p->w.s[2]) return 0;
    return p->w.s[1] == 1 ? 1 : p->w.s[1] == 2 ? 2 : 0;
}

/* Whether DEPTHWISE's AVX-512 path reads each channel's plane in place, with the padding as
   masked-off lanes, rather than from padded copies of its rows (the copy took half the time of
   MobileNetV2's small layers): 1 at stride 1 on planes of up to 8 columns with the output plane
   the input's, where a vector along one row would leave most lanes idle (9 of 16 on 7x7), the
   whole plane summed flat (mmd__dw_plane_avx512), up to 64 taps and 256 floats a plane, so that
   a share's table of masks (one per tap and vector) stays within 8 KiB (at 14x14 the rows of 4
   below ran 576 channels in 0.044 ms, the flat plane in 0.054; at 7x7 960 channels in 0.036
   against 0.031); 2 at stride 2 on rows of up to 16 inputs and 8 outputs, two output rows a
   vector (mmd__dw_pairs_avx512), up to 8 kernel columns; for the other 3x3 undilated kernels, a
   vector along a row: 3 at stride 2 (mmd__dw_rows3s2_avx512), 4 at stride 1
   (mmd__dw_rows3_avx512); for 5x5 undilated, likewise: 5 at stride 2 (mmd__dw_rows5s2_avx512),
   6 at stride 1 (mmd__dw_rows5_avx512). */
static int32_t mmd__dw_inplace(const mmd__conv_data *p) {
    const mmd__window *w = &p->w;
    if (p->isa != MMD__ISA_AVX512 || w->k[1] * w->k[2] > 64) return 0;
    if (w->s[1] == 1 && w->s[2] == 1 && w->out[1] == w->in[1] && w->out[2] == w->in[2] && w->in[2] <= 8 &&
        w->in[1] * w->in[2] <= 256)
        return 1;
    if (w->s[1] == 2 && w->s[2] == 2 && w->in[2] <= 16 && w->out[2] <= 8 && w->k[2] <= 8) return 2;
    if (w->k[1] != w->k[2] || (w->k[1] != 3 && w->k[1] != 5) || w->d[1] != 1 || w->d[2] != 1 || w->s[1] != w->s[2])
        return 0;
    return (w->s[1] == 2 ? 3 : w->s[1] == 1 ? 4 : 0) + (w->k[1] == 5 && w->s[1] <= 2 ? 2 : 0);
}

/* Floats of a depthwise share's padded input rows: ring rows of row_len, or in phases (flat 2)
   four planes of (ring + 1) / 2 rows of (row_len + 1) / 2. */
static int64_t mmd__dw_rows_floats(const mmd__conv_data *p) {
    int64_t f = mmd__dw_flat(p) == 2 ? 4 * ((p->ring + 1) / 2) * ((p->row_len + 1) / 2) : p->ring * p->row_len;
    return mmd__round_up(f, 16);
}

/* Input columns up to which DEPTHWISE's portable nine-tap kernels run four channels at once
   (mmd__dw9x4_c), where a channel's own rows are short for their per-row costs: MobileNetV2's
   28x28x192 layers (MMD_NO_SIMD, medians of 200 warm) run 0.127 -> 0.113 ms at stride 1 and
   0.072 -> 0.049 at stride 2 as quads. Its 56x56 planes fit no band (and with room for them
   ran 0.31 -> 0.325 ms at stride 1, 0.164 -> 0.148 at stride 2). Since mmd__dw9_c's steps are
   one vector, undilated stride-1 rows of whole vectors of at least 16 outputs take the rows
   instead, as they ran faster than the quads and their interleave: in L1, nanoseconds a
   vector of outputs, rows of 16, 20, 24 and 28 2.35, 2.32, 2.19 and 2.09 against the quads'
   2.34, 2.49, 2.49 and 2.44 plus the interleave's 0.7; MobileNetV2's 28x28x192, bench_conv
   warm, 4 alternated runs, 0.101-0.106 -> 0.091-0.095 ms (its stride 2 stays on the quads:
   0.041 against 0.064 on the rows; so do rows of 7 and 14, 2.24 ns plus 0.7 against 3.17 and
   5.28). */
#ifndef MMD__DW_QUAD_W
#define MMD__DW_QUAD_W 28
#endif
/* Floats of the four channels' interleaved padded plane that mmd__dw9x4_c reads (its rows and
   columns, the input's extent the taps reach, times 4), or 0 where the quads are not taken:
   only 2-D 3x3 portable kernels with one output channel per input channel, over
   planes whose four copies fit in a band's floats (they stay in L1). */
static int64_t mmd__dw_quad_floats(const mmd__conv_data *p) {
    const mmd__window *w = &p->w;
    int64_t ph = (w->out[1] - 1) * w->s[1] + (w->k[1] - 1) * w->d[1] + 1;
    int64_t pw = (w->out[2] - 1) * w->s[2] + (w->k[2] - 1) * w->d[2] + 1;
    if (!mmd__dw_flat(p) || w->k[1] != 3 || w->k[2] != 3 || p->out_ch != p->in_ch || w->in[2] > MMD__DW_QUAD_W ||
        ph > MMD__DW_BAND_FLOATS / 4 / pw ||
        (w->s[2] == 1 && w->d[2] == 1 && w->out[2] >= 16 && w->out[2] % MMD__C_VEC == 0))
        return 0;
    return 4 * ph * pw;
}

/* DEPTHWISE's plan for p (window, batch, channels, isa set): path, padded rows and band, and
   `step` channels per share over `shares` shares, each with `share` bytes of scratch: a band of
   padded input rows (each long enough for the last output's last tap; as many as `band` output
   rows read, the band sized to stay in L1 with the rows it writes), the taps' weights and
   pointers; the portable kernels' flat row (not for nine taps, whose rows mmd__dw9_c stores
   straight to the output) or in its place the quads' interleaved plane with their weights and
   biases (mmd__dw9x4_c); or what the in-place AVX-512 paths keep instead. */
static mmd_status mmd__dw_plan(mmd_kernel_ctx *c, mmd__conv_data *p, int64_t shares) {
    const mmd__window *w = &p->w;
    int64_t count = p->batch * p->in_ch, taps = w->k[0] * w->k[1] * w->k[2];
    int64_t reach = (w->out[2] - 1) * w->s[2] + (w->k[2] - 1) * w->d[2] + 1, span = (w->k[1] - 1) * w->d[1] + 1;
    p->path = MMD__CONV_DEPTHWISE;
    p->row_len = w->pad[2] + w->in[2];
    if (p->row_len < reach) p->row_len = reach;
    /* The portable rows run flat (see mmd__dw_channels) over every column of a padded row, so
       they are padded no further than the taps need. */
    if (!mmd__dw_flat(p)) p->row_len = mmd__round_up(p->row_len, 16);
    p->band = (MMD__DW_BAND_FLOATS / p->row_len - span) / w->s[1] + 1;
    if (p->band > w->out[1]) p->band = w->out[1];
    if (p->band < 1) p->band = 1;
    p->ring = (p->band - 1) * w->s[1] + span;
    if (p->ring > MMD__ELEMS_MAX / p->row_len)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "padded rows too large");
    if (shares < 1) shares = 1;
    if (shares > count) shares = count > 0 ? count : 1;
    p->step = (count + shares - 1) / shares;
    p->share = (int64_t)sizeof(float) * (mmd__dw_rows_floats(p) + MMD__DW_SLACK + mmd__round_up(taps, 16)) +
               (int64_t)sizeof(float *) * mmd__round_up(taps, 8) +
               (mmd__dw_flat(p) && taps != 9 ? (int64_t)sizeof(float) * mmd__round_up(p->band * p->row_len, 16) : 0) +
               (mmd__dw_quad_floats(p) ? (int64_t)sizeof(float) * (mmd__round_up(mmd__dw_quad_floats(p), 16) + 64) : 0);
    /* In place at stride 2: a permutation and a mask per kernel column (2), or nothing (3, 4).
       Whole planes: the taps' offsets, then a mask per tap and vector of the plane. */
    if (mmd__dw_inplace(p) == 2) p->share = 64 * 8 + 64;
    if (mmd__dw_inplace(p) >= 3) p->share = 64;
    if (mmd__dw_inplace(p) == 1)
        p->share = (int64_t)sizeof(int64_t) * mmd__round_up(taps, 8) +
                   (int64_t)sizeof(uint16_t) * mmd__round_up(taps * ((w->in[1] * w->in[2] + 15) / 16), 32);
    return MMD_OK;
}
#endif

/* The checks Conv and ConvTranspose share, which fill p's batch, channels and group: float32
   X of rank 3 to 5; W of X's rank, [M, C / group, k...] for Conv and [C, M / group, k...]
   for ConvTranspose (transposed), whose spatial dims kernel_shape repeats when given; a group
   that divides the channels; a bias of shape [M]. */
static mmd_status mmd__conv_check(mmd_kernel_ctx *c, int32_t transposed, mmd__conv_data *p) {
    const mmd_tensor *x, *wt, *bias;
    const int64_t *kshape;
    int64_t nk, g, i;
    /* com.microsoft's FusedConv adds the optional Z after the bias. */
    mmd_status st = mmd__check_io(c, 2, strcmp(c->node->op_type, "FusedConv") ? 3 : 4, 1);
    if (st == MMD_OK) st = mmd__want_dtype_all(c, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, 5);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "group", 1, &p->group);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "kernel_shape", &kshape, &nk);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    wt = c->inputs[1];
    bias = c->input_count > 2 ? c->inputs[2] : NULL;
    g = p->group;
    if (wt->rank != x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "weight '%s' has rank %d, input '%s' has rank %d",
                               wt->name ? wt->name : "", (int)wt->rank, x->name ? x->name : "", (int)x->rank);
    p->batch = x->dims[0];
    p->in_ch = x->dims[1];
    if (g < 1 || g > MMD__ELEMS_MAX || p->in_ch % g || (!transposed && wt->dims[0] % g))
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "group %lld does not divide the %lld input channels%s",
                               (long long)g, (long long)p->in_ch, transposed ? "" : " or the weight's output channels");
    if (transposed) {
        if (wt->dims[0] != p->in_ch)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "weight '%s' is for %lld input channels but input '%s' has %lld",
                                   wt->name ? wt->name : "", (long long)wt->dims[0], x->name ? x->name : "",
                                   (long long)p->in_ch);
        if (wt->dims[1] > MMD__ELEMS_MAX / g)
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "%lld output channels per group times group %lld",
                                   (long long)wt->dims[1], (long long)g);
        p->out_ch = wt->dims[1] * g;
    } else {
        p->out_ch = wt->dims[0];
        if (wt->dims[1] != p->in_ch / g)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                                   "weight '%s' takes %lld input channels per group but input '%s' has %lld channels with group %lld",
                                   wt->name ? wt->name : "", (long long)wt->dims[1], x->name ? x->name : "",
                                   (long long)p->in_ch, (long long)g);
    }
    if (nk && nk != x->rank - 2)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "kernel_shape has %lld values for %d spatial axes",
                               (long long)nk, (int)(x->rank - 2));
    for (i = 0; i < nk; ++i)
        if (kshape[i] != wt->dims[2 + i])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "kernel_shape[%d] is %lld but weight '%s' has %lld",
                                   (int)i, (long long)kshape[i], wt->name ? wt->name : "", (long long)wt->dims[2 + i]);
    if (bias && (bias->rank != 1 || bias->dims[0] != p->out_ch))
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "bias '%s' must have shape [%lld]",
                               bias->name ? bias->name : "", (long long)p->out_ch);
    return MMD_OK;
}

/* What the parallel parts of a convolution share. */
typedef struct mmd__conv_job {
    const mmd__conv_data *p;
    const float *x, *wt, *bias, *z;     /* this image and group (DIRECT: the whole tensors) */
    float *y, *buf, *tmp;               /* output; padded input or columns; SHIFTED's output */
    const int64_t *range;               /* DIRECT: mmd__conv_plane_f32's table; STEM: the taps' offsets */
    int64_t r0, r1;                     /* IM2COL: the band of output rows */
} mmd__conv_job;

#if !defined(MMD_CONV_SMALL) && !defined(MMD_NO_WINOGRAD)
/* ==== >>ops winograd ==== */
/* WINOGRAD: a 3x3, stride-1, dilation-1, single-group 2-D convolution as Winograd's F(4x4, 3x3)
   (Lavin and Gray, "Fast algorithms for convolutional neural networks"): each 4x4 output tile
   comes from a 6x6 input tile through 36 element-wise products instead of 144 multiply-adds,
   a quarter of them. Per block of tile rows: the input tiles go through V = B^T d B into
   V[36][C][tiles]; for each of the 36 positions one product U[pos] [M x C] x V[pos] [C x tiles]
   through the same blocked product as every convolution (U = G g G^T, the transformed weights,
   computed in double and packed once at plan time); then Y = A^T M A, the bias, Z and the
   activation. The transforms run 16 tiles at a time: the input one over rows split by column
   modulo 4 ("phases"), so that the columns 4t + i of every tile t are one contiguous run and
   the loops vectorise; the output one stores its four columns interleaved into whole rows,
   which the compiler turns into permutes (phases there, and a gather back into rows, cost
   ResNet-18's 56x56 layers about 15%). Rounding: the transforms' sums run over terms up to 8x the inputs, so results
   differ from the direct sum by a few float ulps more (checked against float64 in
   tests/test_winograd.py). Planes of few tiles take F(2x2, 3x3) (see mmd__wino_plan): 4x4
   input tiles, 16 products. MMD_NO_WINOGRAD leaves these convolutions to
   the SHIFTED path. */
#ifndef MMD_WINOGRAD_TILES_MIN
#define MMD_WINOGRAD_TILES_MIN 48       /* fewest output tiles for which F(4x4) is chosen */
#endif                                  /* alone: 28x28 planes, 49 tiles, take it (ResNet-18's */
                                        /* layer2 3x3, caches flushed: 1.36-1.37 -> 1.20-1.23 */
                                        /* ms); smaller ones see MMD_WINOGRAD_TILES_SMALL */
#ifndef MMD_WINOGRAD_CHANNELS_MIN
#define MMD_WINOGRAD_CHANNELS_MIN 32    /* fewest input channels for WINOGRAD: with fewer the */
#endif                                  /* transforms cost more than they save */
/* Output channels matter less: the input transform is paid per input channel and the output
   one per output channel, while the product's 4x saving is per pair of them, so a convolution
   of many inputs to few outputs (the DBNet's FPN smoothing and head, 96 -> 24) still saves
   most of its multiply-adds; SHIFTED, which those took under the old shared minimum of 32,
   fills the micro-kernel's rows badly with so few. ab.sh, one thread, 3x3 stride 1, WINOGRAD
   over SHIFTED: 96 -> 24 at 160x120 about 0.55x (bench --profile, under load), 64 -> 24 at
   80x60 0.58x, 96 -> 16 at 160x120 0.81x, 32 -> 16 at 80x60 0.72x, 96 -> 8 at 160x120 0.53x;
   fewer than 8 were not measured. */
#ifndef MMD_WINOGRAD_OUT_CHANNELS_MIN
#define MMD_WINOGRAD_OUT_CHANNELS_MIN 8
#endif
/* The portable micro-kernel's product is several times slower next to the transforms than the
   vector ones' (which run near the core's peak), so it takes WINOGRAD from a sixteenth of those
   tiles and half those channels: with MMD_NO_SIMD, ResNet-18's 28x28 and 14x14 3x3 layers and
   the DBNet's 96 -> 24 ones run 1.5x to 2.5x faster that way (bench_conv). Below
   MMD_WINOGRAD_TILES_NARROW 4x4 tiles (16 unless set) it runs
   F(2x2, 3x3) instead (mmd__wino_plan), so that ResNet-18's 7x7 layers, 4 tiles, take it too;
   its 14x14 layers (16 tiles) ran 1.1x to 1.8x slower that way. */
#define MMD__WINO_TILES_MIN(isa) ((isa) == MMD__ISA_PORTABLE ? MMD_WINOGRAD_TILES_MIN / 16 : MMD_WINOGRAD_TILES_MIN)
/* Below MMD_WINOGRAD_TILES_MIN 4x4 tiles, from MMD_WINOGRAD_TILES_SMALL of them (16 unless
   set) and MMD_WINOGRAD_SMALL_CHANNELS_MIN input and output channels (128), the x86 vector
   builds take WINOGRAD too, as whichever of F(2x2, 3x3) and F(4x4, 3x3) computes fewer panel
   columns times positions (mmd__wino_cost): at 14x14 F(4x4)'s 16 tiles fill half of one
   32-column panel, where F(2x2)'s 49 fill 49 of 64 with 16 positions instead of 36.
   bench_conv --cold, one thread, AVX-512, SHIFTED / F(2x2) / F(4x4) in ms (medians of the
   best of 7 alternated rounds, on a loaded 2-core Xeon): 256 -> 256 at 14x14 (ResNet-18's
   layer3) 1.39 / 0.98 / 1.11; 512 -> 512 at 14x14 5.33 / 3.44 / 3.96; 128 -> 128 at 14x14
   0.373 / 0.314 / 0.322; 256 at 16x16 1.77 / 1.11 / 1.11; 256 at 20x20 2.72 / 1.89 / 1.41
   (F(4x4) chosen); 128 at 24x24 1.02 / 0.69 / 0.64 (F(4x4) chosen). With fewer channels
   the transforms, paid per channel, outweigh the product's saving, paid per pair: 96 -> 96
   at 14x14 0.221 / 0.203 / 0.218, 64 -> 64 0.111 / 0.121 / 0.123, 256 -> 64 0.392 / 0.410
   / 0.419, and the DBNet's 96 -> 24 at 20x15 0.114 / 0.160 / 0.120, which stay on SHIFTED.
   Two threads: 256 at 14x14 1.69 / 1.36 / 2.43, 512 at 14x14 7.4 / 4.9 / 13.7. AVX2 (16
   columns a panel, where F(4x4)'s 16 tiles fill one, so it takes F(4x4) on all of these):
   256 at 14x14 2.55 / 1.77 / 1.46, 512 at 14x14 18.2 / 10.7 / 5.8, 128 at 14x14 0.671 /
   0.532 / 0.431, 256 at 20x20 9.1 / 2.9 / 2.2. In ResNet-18, per-node minima of 50 runs,
   median of 10 alternated rounds: its three layer3 3x3 convolutions 1.59-1.61 -> 1.20-1.29
   ms at one thread and 0.86-0.89 -> 0.71-0.76 at two; the sum of the nodes 22.2 -> 21.2 ms
   and 12.6 -> 12.0. NEON is left as it was (unmeasured: qemu-aarch64 only). */
#ifndef MMD_WINOGRAD_TILES_SMALL
#define MMD_WINOGRAD_TILES_SMALL 16
#endif
#ifndef MMD_WINOGRAD_SMALL_CHANNELS_MIN
#define MMD_WINOGRAD_SMALL_CHANNELS_MIN 128
#endif
#define MMD__WINO_SMALL(isa) ((isa) == MMD__ISA_AVX512 || (isa) == MMD__ISA_AVX2)
#ifndef MMD_WINOGRAD_TILES_NARROW
#define MMD_WINOGRAD_TILES_NARROW 16
#endif
#define MMD__WINO_CHANNELS_MIN(isa)                                                             \
    ((isa) == MMD__ISA_PORTABLE ? MMD_WINOGRAD_CHANNELS_MIN / 2 : MMD_WINOGRAD_CHANNELS_MIN)
#ifndef MMD_WINOGRAD_BLOCK
#define MMD_WINOGRAD_BLOCK (512 * 1024) /* bytes of V and M per block of tile rows */
#endif
#define MMD__WINO_T 16                  /* tiles transformed at once */

static void mmd__row_phases(int32_t isa, const float *src, int64_t iw, int64_t x0, int64_t s2, float *row, int64_t pstride);

/* Column modulo e (the tile size, 4 or 2) of padded rows, zero-padded: phase q of row r holds
   its columns eu + q at dst + (r % e) * e * len + (r / e) * rs + q * len + u (mmd__row_phases,
   which SHIFTED's planes take too). With rs = e * e * len each row's phases follow the last
   row's (rows of len, which leaves room for the last column); with rs = wino_cs the rows e
   apart follow one another in e * e planes of len (see mmd__wino_task). */
static void mmd__wino_phases(int32_t isa, const float *x, int64_t h, int64_t w, int64_t y0, int64_t rows,
                             int64_t pad_t, int64_t pad_l, int64_t len, int64_t rs, int64_t e, float *dst) {
    int64_t r, k = 0, u = 0, packed = rs != e * e * len; /* k, u: r % e and r / e, without dividing */
    if (packed) memset(dst, 0, (size_t)(e * e * len) * sizeof(float));
    for (r = 0; r < rows; ++r) {
        int64_t iy = y0 + r - pad_t;
        float *row = dst + k * e * len + u * rs;
        /* Row by row, just before it is written: zeroing the whole block first ran ResNet-18's
           56x56 layers about 2% slower in the model. */
        if (!packed) memset(row, 0, (size_t)(e * len) * sizeof(float));
        if (iy >= 0 && iy < h) mmd__row_phases(isa, x + iy * w, w, pad_l, e, row, len);
        if (++k == e) k = 0, ++u;
    }
}

/* The input transform of MMD__WINO_T tiles whose 6 rows of phases start at ph (laid out as
   mmd__wino_phases says: row r at (r % 4) * 4 * len + (r / 4) * rs): V[pos] at v + pos * vstep,
   16 values each. Written once, as a macro, and compiled for the baseline and for AVX-512. */
#define MMD__WINO_IN_BODY                                                                       \
    float tmp[6][6][MMD__WINO_T];                                                             \
    int32_t r, j, t;                                                                          \
    for (r = 0; r < 6; ++r) {                                                                 \
        const float *p0 = ph + (r % 4) * 4 * len + (r / 4) * rs, *p1 = p0 + len;              \
        const float *p2 = p1 + len, *p3 = p2 + len;                                           \
        for (t = 0; t < MMD__WINO_T; ++t) {                                                   \
            float d0 = p0[t], d1 = p1[t], d2 = p2[t], d3 = p3[t], d4 = p0[t + 1], d5 = p1[t + 1]; \
            tmp[r][0][t] = 4.0f * d0 - 5.0f * d2 + d4;                                        \
            tmp[r][1][t] = d3 + d4 - 4.0f * (d1 + d2);                                        \
            tmp[r][2][t] = 4.0f * (d1 - d2) + d4 - d3;                                        \
            tmp[r][3][t] = 2.0f * (d3 - d1) + d4 - d2;                                        \
            tmp[r][4][t] = 2.0f * (d1 - d3) + d4 - d2;                                        \
            tmp[r][5][t] = 4.0f * d1 - 5.0f * d3 + d5;                                        \
        }                                                                                     \
    }                                                                                         \
    for (j = 0; j < 6; ++j) {                                                                 \
        float o[6][MMD__WINO_T];                                                              \
        for (t = 0; t < MMD__WINO_T; ++t) {                                                   \
            float d0 = tmp[0][j][t], d1 = tmp[1][j][t], d2 = tmp[2][j][t];                    \
            float d3 = tmp[3][j][t], d4 = tmp[4][j][t], d5 = tmp[5][j][t];                    \
            o[0][t] = 4.0f * d0 - 5.0f * d2 + d4;                                             \
            o[1][t] = d3 + d4 - 4.0f * (d1 + d2);                                             \
            o[2][t] = 4.0f * (d1 - d2) + d4 - d3;                                             \
            o[3][t] = 2.0f * (d3 - d1) + d4 - d2;                                             \
            o[4][t] = 2.0f * (d1 - d3) + d4 - d2;                                             \
            o[5][t] = 4.0f * d1 - 5.0f * d3 + d5;                                             \
        }                                                                                     \
        for (r = 0; r < 6; ++r) memcpy(v + (r * 6 + j) * vstep, o[r], sizeof o[r]);           \
    }

/* The output transform of MMD__WINO_T tiles: M[pos] at m + pos * mstep; the 4x4 outputs go to
   4 rows of o, 4 * len apart, columns in order (tile t at 4 t). */
#define MMD__WINO_OUT_BODY                                                                      \
    float tmp[4][6][MMD__WINO_T];                                                             \
    int32_t i, j, t;                                                                          \
    for (j = 0; j < 6; ++j)                                                                   \
        for (t = 0; t < MMD__WINO_T; ++t) {                                                   \
            float m0 = m[(0 * 6 + j) * mstep + t], m1 = m[(1 * 6 + j) * mstep + t];           \
            float m2 = m[(2 * 6 + j) * mstep + t], m3 = m[(3 * 6 + j) * mstep + t];           \
            float m4 = m[(4 * 6 + j) * mstep + t], m5 = m[(5 * 6 + j) * mstep + t];           \
            float a = m1 + m2, b = m1 - m2, e = m3 + m4, f = m3 - m4;                         \
            tmp[0][j][t] = m0 + a + e;                                                        \
            tmp[1][j][t] = b + 2.0f * f;                                                      \
            tmp[2][j][t] = a + 4.0f * e;                                                      \
            tmp[3][j][t] = b + 8.0f * f + m5;                                                 \
        }                                                                                     \
    for (i = 0; i < 4; ++i) {                                                                 \
        float *oi = o + i * 4 * len;                                                          \
        for (t = 0; t < MMD__WINO_T; ++t) {                                                   \
            float m0 = tmp[i][0][t], m1 = tmp[i][1][t], m2 = tmp[i][2][t];                    \
            float m3 = tmp[i][3][t], m4 = tmp[i][4][t], m5 = tmp[i][5][t];                    \
            float a = m1 + m2, b = m1 - m2, e = m3 + m4, f = m3 - m4;                         \
            oi[4 * t] = m0 + a + e;                                                           \
            oi[4 * t + 1] = b + 2.0f * f;                                                     \
            oi[4 * t + 2] = a + 4.0f * e;                                                     \
            oi[4 * t + 3] = b + 8.0f * f + m5;                                                \
        }                                                                                     \
    }

typedef void (*mmd__wino_in_fn)(const float *ph, int64_t len, int64_t rs, float *v, int64_t vstep);
typedef void (*mmd__wino_out_fn)(const float *m, int64_t mstep, float *o, int64_t len);

static void mmd__wino_in_c(const float *ph, int64_t len, int64_t rs, float *v, int64_t vstep) { MMD__WINO_IN_BODY }
static void mmd__wino_out_c(const float *m, int64_t mstep, float *o, int64_t len) { MMD__WINO_OUT_BODY }
#if defined(MMD__X86)
MMD__TARGET_AVX512 static void mmd__wino_in_avx512(const float *ph, int64_t len, int64_t rs, float *v, int64_t vstep) {
    MMD__WINO_IN_BODY
}
MMD__TARGET_AVX512 static void mmd__wino_out_avx512(const float *m, int64_t mstep, float *o, int64_t len) {
    MMD__WINO_OUT_BODY
}
MMD__TARGET_AVX2 static void mmd__wino_in_avx2(const float *ph, int64_t len, int64_t rs, float *v, int64_t vstep) {
    MMD__WINO_IN_BODY
}
MMD__TARGET_AVX2 static void mmd__wino_out_avx2(const float *m, int64_t mstep, float *o, int64_t len) {
    MMD__WINO_OUT_BODY
}
#endif
#undef MMD__WINO_IN_BODY
#undef MMD__WINO_OUT_BODY

/* F(2x2, 3x3), which planes of few tiles take (see mmd__wino_plan): the input transform
   V = B^T d B of MMD__WINO_T 4x4 tiles whose 4 rows of phases start at ph (row r at
   (r % 2) * 2 * len + (r / 2) * rs), into V[pos] at v + pos * vstep; the output transform
   Y = A^T M A into 2 rows of o, 2 * len apart, columns in order. Plain C in every build: compiled for AVX-512 as F(4x4)'s
   are, ResNet-18's 14x14 layers ran no faster (per-node minima 1.251 / 1.199 / 1.191 ms
   with these, 1.253 / 1.197 / 1.180 so), their product taking four times the time. */
static void mmd__wino2_in_c(const float *ph, int64_t len, int64_t rs, float *v, int64_t vstep) {
    float tmp[4][4][MMD__WINO_T];
    int32_t r, j, t;
    for (r = 0; r < 4; ++r) {
        const float *p0 = ph + (r % 2) * 2 * len + (r / 2) * rs, *p1 = p0 + len;
        for (t = 0; t < MMD__WINO_T; ++t) {
            float d0 = p0[t], d1 = p1[t], d2 = p0[t + 1], d3 = p1[t + 1];
            tmp[r][0][t] = d0 - d2;
            tmp[r][1][t] = d1 + d2;
            tmp[r][2][t] = d2 - d1;
            tmp[r][3][t] = d1 - d3;
        }
    }
    for (j = 0; j < 4; ++j)
        for (t = 0; t < MMD__WINO_T; ++t) {
            float d0 = tmp[0][j][t], d1 = tmp[1][j][t], d2 = tmp[2][j][t], d3 = tmp[3][j][t];
            v[(0 * 4 + j) * vstep + t] = d0 - d2;
            v[(1 * 4 + j) * vstep + t] = d1 + d2;
            v[(2 * 4 + j) * vstep + t] = d2 - d1;
            v[(3 * 4 + j) * vstep + t] = d1 - d3;
        }
}

static void mmd__wino2_out_c(const float *m, int64_t mstep, float *o, int64_t len) {
    float tmp[2][4][MMD__WINO_T];
    int32_t i, j, t;
    for (j = 0; j < 4; ++j)
        for (t = 0; t < MMD__WINO_T; ++t) {
            float m0 = m[(0 * 4 + j) * mstep + t], m1 = m[(1 * 4 + j) * mstep + t];
            float m2 = m[(2 * 4 + j) * mstep + t], m3 = m[(3 * 4 + j) * mstep + t];
            tmp[0][j][t] = m0 + m1 + m2;
            tmp[1][j][t] = m1 - m2 - m3;
        }
    for (i = 0; i < 2; ++i) {
        float *oi = o + i * 2 * len;
        for (t = 0; t < MMD__WINO_T; ++t) {
            float m0 = tmp[i][0][t], m1 = tmp[i][1][t], m2 = tmp[i][2][t], m3 = tmp[i][3][t];
            oi[2 * t] = m0 + m1 + m2;
            oi[2 * t + 1] = m1 - m2 - m3;
        }
    }
}

/* U = G g G^T of MMD__WINO_KL 3x3 kernels at once, in double, for the tile size e (4 or 2):
   kernel l at g + l * gs (n of them; the lanes past n are zero), its (e + 2)^2 values at
   u[pos][l]. Each lane sums its products in the order of the one-kernel formula; the lanes
   only let the compiler run the kernels in vector registers (ResNet-18's million kernels took
   half its load in this scalar). */
#define MMD__WINO_KL 4
static void mmd__wino_kernels(const float *g, int64_t gs, int64_t n, int64_t e, double u[36][MMD__WINO_KL]) {
    static const double G4[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                    {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                    {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
    static const double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    const double(*G)[3] = e == 2 ? G2 : G4;
    double d[9][MMD__WINO_KL], t[6][3][MMD__WINO_KL];
    int32_t a = (int32_t)e + 2, i, j, k, l;
    for (k = 0; k < 9; ++k)
        for (l = 0; l < MMD__WINO_KL; ++l) d[k][l] = l < n ? g[l * gs + k] : 0.0;
    for (i = 0; i < a; ++i)
        for (j = 0; j < 3; ++j)
            for (l = 0; l < MMD__WINO_KL; ++l)
                t[i][j][l] = G[i][0] * d[j][l] + G[i][1] * d[3 + j][l] + G[i][2] * d[6 + j][l];
    for (i = 0; i < a; ++i)
        for (j = 0; j < a; ++j)
            for (l = 0; l < MMD__WINO_KL; ++l)
                u[i * a + j][l] = t[i][0][l] * G[j][0] + t[i][1][l] * G[j][1] + t[i][2][l] * G[j][2];
}

/* Packs the transformed weights of W [M, C, 3, 3] for the tile size e: for each of the
   (e + 2)^2 positions, U[pos] [M x C] in mmd__gemm_pack_a's layout for isa (its K blocks of
   kc, row panels of MR), per positions apart. It writes in the packed order (a panel's rows of
   one channel, then the next channel), so that each position is one sequential run written
   once, the rows past M as zeros: row by row, each position's writes took a stride of MR
   floats and came back to each cache line MR times. */
static void mmd__wino_pack(const float *w, int64_t m, int64_t c, int32_t isa, int64_t e, int64_t per, float *dst) {
    int64_t mr = mmd__gemm_mr(isa), mp = mmd__round_up(m, mr), kb = mmd__gemm_kc(isa), np = (e + 2) * (e + 2);
    int64_t k0, i0, i, q, l, pos, at = 0;
    double u[36][MMD__WINO_KL];
    for (k0 = 0; k0 < c; k0 += kb) {
        int64_t kc = c - k0 < kb ? c - k0 : kb;
        for (i0 = 0; i0 < mp; i0 += mr)
            for (q = k0; q < k0 + kc; ++q)
                for (i = i0; i < i0 + mr; i += MMD__WINO_KL, at += MMD__WINO_KL) {
                    int64_t n = i0 + mr - i < MMD__WINO_KL ? i0 + mr - i : MMD__WINO_KL;
                    int64_t real = m - i < n ? (m - i > 0 ? m - i : 0) : n;
                    float *d = dst + at;
                    mmd__wino_kernels(real > 0 ? w + (i * c + q) * 9 : w, c * 9, real, e, u);
                    if (n < MMD__WINO_KL) {
                        for (pos = 0; pos < np; ++pos)
                            for (l = 0; l < n; ++l) d[pos * per + l] = (float)u[pos][l];
                        at -= MMD__WINO_KL - n;
                        continue;
                    }
                    for (pos = 0; pos < np; ++pos, d += per)
                        for (l = 0; l < MMD__WINO_KL; ++l) d[l] = (float)u[pos][l];
                }
    }
}

/* Floats between the end of one position's V or M and the start of the next. Without them
   positions lay a multiple of 4 KiB apart (C or M rows of vs floats, both multiples of 16), so
   the input transform's 36 stores per column of tiles, one per position, and the output
   transform's 36 loads all fell in one set of the 12-way L1 and evicted one another. */
#define MMD__WINO_SKEW 16

/* Floats of one channel's phases for a block of rows tile rows (see mmd__wino_task), which
   also hold the output transform's e rows. */
static int64_t mmd__wino_phase_floats(const mmd__conv_data *p, int64_t rows) {
    int64_t e = p->wino_e;
    return p->wino_cs > p->wino_tw ? e * e * p->wino_len : (e * rows + 2) * e * p->wino_len;
}

/* Floats of one share's scratch (see mmd__wino_task). */
static int64_t mmd__wino_share(const mmd__conv_data *p) {
    int64_t cg = p->in_ch, mg = p->gm, vs = p->wino_vs, e = p->wino_e;
    return mmd__round_up(mmd__gemm_share_floats(mg, vs, cg, p->isa), 16) + mmd__round_up(cg, 8) * 2 +
           mmd__wino_phase_floats(p, p->wino_rows) + (e + 2) * (e + 2) * ((cg + mg) * vs + 2 * MMD__WINO_SKEW);
}

/* The per-position per of the packed transformed weights (floats). */
static int64_t mmd__wino_per(const mmd__conv_data *p) {
    return mmd__gemm_packed_a_size(p->gm, p->in_ch, p->isa);
}

/* One output row of n floats: dst = src + bias (+ z), then Relu or Clip (act), four at a time
   through a local array, which GCC's -O2 vectorises (the plain loops, whose dst might overlap
   src or z, stayed scalar: ResNet-18's Winograd layers store 3.6 million of them per run). Relu
   and Clip are applied here, as the product's epilogue applies them (a NaN stays NaN), rather
   than by a second pass over the row; other activations are the caller's. */
static void mmd__wino_store(const float *src, float bias, const float *z, const mmd__act *act, float *dst, int64_t n) {
    int32_t clamp = act->kind == MMD__ACT_RELU || act->kind == MMD__ACT_CLIP, l;
    float lo = act->kind == MMD__ACT_CLIP ? act->alpha : 0.0f, hi = act->kind == MMD__ACT_CLIP ? act->beta : INFINITY;
    int64_t x = 0;
    for (; x + 4 <= n; x += 4) {
        float t[4];
        for (l = 0; l < 4; ++l) t[l] = src[x + l] + bias;
        if (z)
            for (l = 0; l < 4; ++l) t[l] += z[x + l];
        if (clamp)
            for (l = 0; l < 4; ++l) {
                t[l] = t[l] < lo ? lo : t[l];
                t[l] = t[l] > hi ? hi : t[l];
            }
        for (l = 0; l < 4; ++l) dst[x + l] = t[l];
    }
    for (; x < n; ++x) {
        float v = z ? src[x] + bias + z[x] : src[x] + bias;
        if (clamp) {
            v = v < lo ? lo : v;
            v = v > hi ? hi : v;
        }
        dst[x] = v;
    }
}

/* One share: the tile rows [th * index / shares, th * (index + 1) / shares) of one image (an
   even split, whatever the block size), in blocks of up to wino_rows tile rows. Its
   scratch: the product's, the row offsets of V, one channel's phases (reused for the output
   rows), V [36][C][vs] and M [36][M][vs]; transposed, after the product's own scratch, M^T of
   one position [tiles][M], which the product writes and which is then turned into M[pos].
   Tile (r, t) of a block is V's column r * wino_cs + t. With wino_cs = tw + 1 (rows packed,
   mmd__wino_cs) the phases of the rows e apart follow one another, wino_cs columns each, in
   e * e planes of wino_len (mmd__wino_phases), so that the column c of V takes the same
   offsets from c in every row and the transforms run over all the block's tiles at once; the
   column after each row's last tile is a garbage tile (it reads the next row's first
   columns), whose outputs are not stored. Per node in ResNet-18 (minima of 50 runs, median
   of 12 alternated rounds, one thread), packed over one row at a time: the 14x14 layers
   (F(2x2)) 1.17-1.23 -> 1.07-1.15 ms, the 28x28 ones (F(4x4)) 0.75-0.79 -> 0.69-0.73. */
static void mmd__wino_task(void *data, int32_t index) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t cn = p->in_ch, mn = p->gm, th = p->wino_th, tw = p->wino_tw, rb = p->wino_rows, len = p->wino_len;
    int64_t vs = p->wino_vs, oh = w->out[1], ow = w->out[2], ih = w->in[1], iw = w->in[2];
    int64_t e = p->wino_e, np = (e + 2) * (e + 2), per = mmd__wino_per(p), q, r, t0, i, r0, k;
    int64_t cs = p->wino_cs, rs = cs > tw ? cs : e * e * len; /* see mmd__wino_phases */
    int64_t end = th * (index + 1) / p->wino_shares;
    float *gs = j->buf + index * mmd__wino_share(p);
    int64_t *rows = (int64_t *)(void *)(gs + mmd__round_up(mmd__gemm_share_floats(mn, vs, cn, p->isa), 16));
    float *ph = (float *)(void *)(rows + mmd__round_up(cn, 8)), *v = ph + mmd__wino_phase_floats(p, rb);
    int64_t vps = cn * vs + MMD__WINO_SKEW, mps = mn * vs + MMD__WINO_SKEW; /* position strides of V and M */
    float *mx = v + np * vps;
    mmd__wino_in_fn tin = e == 2 ? mmd__wino2_in_c : mmd__wino_in_c;
    mmd__wino_out_fn tout = e == 2 ? mmd__wino2_out_c : mmd__wino_out_c;
    mmd__gemm g;
#if defined(MMD__X86)
    if (e == 4 && p->isa == MMD__ISA_AVX512) tin = mmd__wino_in_avx512, tout = mmd__wino_out_avx512;
    else if (e == 4 && p->isa == MMD__ISA_AVX2) tin = mmd__wino_in_avx2, tout = mmd__wino_out_avx2;
#endif
    for (q = 0; q < cn; ++q) rows[q] = q * vs;
    memset(&g, 0, sizeof g);
    g.m = mn;
    g.k = cn;
    g.b_rows = rows;
    g.ldc = vs;
    g.isa = p->isa;
    for (r0 = th * index / p->wino_shares; r0 < end; r0 += rb) {
        int64_t nr = end - r0 < rb ? end - r0 : rb, tiles = nr * cs, pos, ci, m;
        /* Rows packed (cs > tw): the transforms run over all the block's tile rows at once,
           each a column of padding after the last (its garbage tile, whose outputs are not
           stored); otherwise one tile row at a time. */
        int64_t span = cs > tw ? tiles : tw, step = cs > tw ? nr : 1;
        /* The product covers the block's tiles in whole micro-kernel panels, not all vs
           columns; the output transform's last group of MMD__WINO_T tiles reads past them
           into columns it discards, which are zeroed once (later blocks leave finite values). */
        int64_t cols = mmd__round_up(tiles, mmd__gemm_nr(p->isa));
        if (cols > vs) cols = vs;
        g.n = cols;
        if (r0 == th * index / p->wino_shares)
            for (pos = 0; pos < np; ++pos)
                for (m = 0; m < mn; ++m) memset(mx + pos * mps + m * vs + cols, 0, (size_t)(vs - cols) * sizeof(float));
        for (ci = 0; ci < cn; ++ci) {
            mmd__wino_phases(p->isa, j->x + ci * ih * iw, ih, iw, e * r0, e * nr + 2, w->pad[1], w->pad[2], len, rs, e, ph);
            for (r = 0; r < nr; r += step)
                for (t0 = 0; t0 < span; t0 += MMD__WINO_T) tin(ph + r * rs + t0, len, rs, v + ci * vs + r * cs + t0, vps);
        }
        for (pos = 0; pos < np; ++pos)
            for (ci = 0; ci < cn; ++ci)
                memset(v + pos * vps + ci * vs + tiles, 0, (size_t)(cols - tiles) * sizeof(float));
        for (pos = 0; pos < np; ++pos) {
            g.a_packed = p->packed + pos * per;
            g.b = v + pos * vps;
            g.c = mx + pos * mps;
            mmd__gemm_block(&g, 0, mn, 0, g.n, gs);
        }
        for (m = 0; m < mn; ++m) {
            float bias = j->bias ? j->bias[m] : 0.0f;
            for (r = 0; r < nr; r += step) {
                for (t0 = 0; t0 < span; t0 += MMD__WINO_T) tout(mx + m * vs + r * cs + t0, mps, ph + e * t0, len);
                for (k = r; k < r + step; ++k)
                    for (i = 0; i < e && e * (r0 + k) + i < oh; ++i) {
                        int64_t at = (m * oh + e * (r0 + k) + i) * ow;
                        mmd__wino_store(ph + i * e * len + e * (k - r) * cs, bias, j->z ? j->z + at : NULL, &p->act, j->y + at, ow);
                        if (p->act.kind != MMD__ACT_RELU && p->act.kind != MMD__ACT_CLIP) mmd__act_f32(&p->act, j->y + at, ow);
                    }
            }
        }
    }
}

/* V's columns per tile row for th rows of tw tiles (wino_cs): tw + 1 where a row is at most
   half of the MMD__WINO_T tiles the transforms run at once and the plane's tiles fill as many
   panels of nr columns so, tw elsewhere. With tw + 1 the tile rows are packed (see
   mmd__wino_task): ResNet-18's 7 tiles a row at 14x14 (F(2x2)) and 28x28 (F(4x4)) took one
   transform of 16 tiles per row, 9 of them empty, and now take one per two rows. */
static int64_t mmd__wino_cs(int64_t th, int64_t tw, int64_t nr) {
    return 2 * (tw + 1) <= MMD__WINO_T && mmd__round_up(th * (tw + 1), nr) == mmd__round_up(th * tw, nr) ? tw + 1 : tw;
}

/* V's row stride (tiles) for blocks of rb tile rows of tw tiles, cs columns a row: the input
   transform writes whole groups of MMD__WINO_T tiles, and the product reads whole panels of
   nr columns. */
static int64_t mmd__wino_stride(int64_t rb, int64_t tw, int64_t cs, int64_t nr) {
    return mmd__round_up(cs > tw ? rb * cs : (rb - 1) * tw + mmd__round_up(tw, MMD__WINO_T), nr > MMD__WINO_T ? nr : MMD__WINO_T);
}

/* Tile rows per block, for th rows of tw tiles (cs columns a row) over the threads (share i
   takes the rows [th * i / shares, th * (i + 1) / shares), in blocks of rb), where a column of
   V and M takes col_bytes and the transformed weights weight_bytes. The product computes each block's tiles
   in whole panels of nr columns, and every block reads all the transformed weights, so rb is
   the one whose busiest share computes the fewest columns, then (on a tie) runs the fewest
   blocks; a block's V and M stay within MMD_WINOGRAD_BLOCK bytes plus the weights' (past that,
   re-reading the weights for one more block costs less than V and M falling out of L2). A
   block also holds at least one transform's MMD__WINO_T tiles where the plane has them. With
   blocks of whatever fit MMD_WINOGRAD_BLOCK alone, ResNet-18's 28x28 planes (7 rows of 7 tiles)
   ran in blocks of 3 rows: 21, 21 and 7 tiles in 96 columns at one thread and, at two, 32
   columns on one thread and 64 on the other; one block of 49 tiles (64 columns) at one thread
   and two of 3 and 4 rows (32 each) at two run the layer faster (bench_conv --cold, best of 5
   alternating rounds: 1.32 -> 1.10 ms at one thread). *busiest, unless NULL, gets that
   share's columns (see mmd__wino_cost). */
static int64_t mmd__wino_rows(int64_t th, int64_t tw, int64_t cs, int64_t col_bytes, int64_t weight_bytes, int64_t nr,
                              int64_t threads, int64_t *busiest) {
    int64_t r, best = 0, best_cols = 0, best_blocks = 0, least = (MMD__WINO_T + tw - 1) / tw;
    for (r = 1; r <= th; ++r) {
        int64_t shares = (th + r - 1) / r, i, cols = 0, blocks = 0;
        if (r > least && (uint64_t)mmd__wino_stride(r, tw, cs, nr) * (uint64_t)col_bytes >
                             (uint64_t)MMD_WINOGRAD_BLOCK + (uint64_t)weight_bytes)
            break;
        if (shares > threads) shares = threads;
        for (i = 0; i < shares; ++i) {
            int64_t r0, end = th * (i + 1) / shares, c = 0, b = 0;
            for (r0 = th * i / shares; r0 < end; r0 += r, ++b) c += mmd__round_up((end - r0 < r ? end - r0 : r) * cs, nr);
            if (c > cols) cols = c;
            if (b > blocks) blocks = b;
        }
        if (!best || cols < best_cols || (cols == best_cols && blocks < best_blocks))
            best = r, best_cols = cols, best_blocks = blocks;
    }
    if (busiest) *busiest = best_cols;
    return best;
}

/* What the product costs with the tile size e: positions times the columns the busiest share
   computes (in whole panels of nr), counted for one thread so that the choice, and with it the
   rounding, does not depend on the thread count. */
static int64_t mmd__wino_cost(const mmd__conv_data *p, int64_t e, int64_t nr) {
    int64_t np = (e + 2) * (e + 2), th = (p->w.out[1] + e - 1) / e, tw = (p->w.out[2] + e - 1) / e, cols;
    mmd__wino_rows(th, tw, mmd__wino_cs(th, tw, nr), np * 4 * (p->in_ch + p->gm), np * 4 * p->in_ch * p->gm, nr, 1, &cols);
    return np * cols;
}

/* Takes the WINOGRAD path for a convolution that fits it (3x3, stride and dilation 1, one
   group, 2-D, constant weights that the plan can pack) when its output has at least
   MMD_WINOGRAD_TILES_MIN 4x4 tiles, MMD_WINOGRAD_CHANNELS_MIN input channels and
   MMD_WINOGRAD_OUT_CHANNELS_MIN output channels, or in the x86 vector builds at least
   MMD_WINOGRAD_TILES_SMALL tiles and MMD_WINOGRAD_SMALL_CHANNELS_MIN channels each way, with
   the tile size mmd__wino_cost prices lower: sizes the
   blocks (tile rows whose V and M stay within MMD_WINOGRAD_BLOCK bytes, and at least one block
   per thread) and the scratch, and packs the transformed weights. *chosen tells whether it did.
   The portable build runs planes of fewer than MMD_WINOGRAD_TILES_NARROW 4x4 tiles as
   F(2x2, 3x3) (wino_e 2): ResNet-18's 7x7 planes make 16 tiles of 2x2, which fill the 4 x 8
   micro-kernel's columns where 4x4 tiles (4 of them) left half of its 8 empty, and its 16
   products stream 16/9 of the weights, where F(4x4)'s 36 streamed 4x and were bound by
   memory (with the tiles as the rows of transposed products): its three 512-channel 7x7
   layers take 0.76x to 0.89x the time they took so, and their transformed weights 50 MB of
   the plan instead of 113, which ResNet-18's load spent a third of its time writing.
   The vector builds leave those 7x7 planes to SHIFTED: on AVX-512, F(2x2, 3x3) lost to it
   there every way it was tried. With the 16 tiles as the columns, half of each 32-column panel
   stays empty (layer4 3x3 2.34 -> 2.56 ms in the model). With the tiles as the rows of
   transposed products (two full 8-row panels, output channels as the columns, the transformed
   weights packed as B) the 16.8 MB of transformed weights, each read by 16 rows only, are
   wanted faster than one core's memory delivers them (about 10 GB/s here): bench_conv --cold
   2.7-3.1 ms (best of 30) against SHIFTED's 1.6-1.7, 1.9 ms with the micro-kernel's prefetch
   (B read in place), 1.25-1.4 ms with all 16 positions reading one position's 1 MB. With the
   9.4 MB of plain weights transformed at run time instead, 64 input channels and four
   positions at a time into B panels that stay in L1, the next chunk prefetched between the
   micro-kernel calls: level with SHIFTED in bench_conv at best (warm 1.74-2.0 against
   1.75-1.91 ms, caches flushed best 2.04-2.34 against 1.92-2.17, alternating runs on a loaded
   machine) and slower in the model (one thread, all 12 per-node comparisons of four
   alternating profiles, by 0.05 to 2.9 ms), for three new functions and a second fork. */
static mmd_status mmd__wino_plan(mmd_kernel_ctx *c, mmd__conv_data *p, int32_t *chosen) {
    const mmd__window *w = &p->w;
    int64_t nr = mmd__gemm_nr(p->isa), th, tw, rb, blocks, per, np;
    uint64_t bytes;
    float *dst;
    int32_t fresh, small;
    *chosen = 0;
    if (p->group != 1 || w->k[0] != 1 || w->in[0] != 1 || w->k[1] != 3 || w->k[2] != 3 || w->s[1] != 1 ||
        w->s[2] != 1 || w->d[1] != 1 || w->d[2] != 1 || !mmd_tensor_is_const(c->inputs[1]) ||
        p->gm < MMD_WINOGRAD_OUT_CHANNELS_MIN || p->in_ch < MMD__WINO_CHANNELS_MIN(p->isa) || p->gm < 1 || p->in_ch < 1 ||
        p->in_ch > MMD__ELEMS_MAX / 64 || p->gm > MMD__ELEMS_MAX / 64)
        return MMD_OK;
    th = (w->out[1] + 3) / 4;
    tw = (w->out[2] + 3) / 4;
    small = MMD__WINO_SMALL(p->isa) && th * tw < MMD_WINOGRAD_TILES_MIN;
    if (th * tw < (small ? MMD_WINOGRAD_TILES_SMALL : MMD__WINO_TILES_MIN(p->isa)) ||
        (small && (p->in_ch < MMD_WINOGRAD_SMALL_CHANNELS_MIN || p->gm < MMD_WINOGRAD_SMALL_CHANNELS_MIN)) ||
        tw > MMD__ELEMS_MAX / (36 * (p->in_ch + p->gm)))
        return MMD_OK;
    p->wino_e = p->isa == MMD__ISA_PORTABLE && th * tw < MMD_WINOGRAD_TILES_NARROW ? 2 : 4;
    if (small) p->wino_e = mmd__wino_cost(p, 2, nr) <= mmd__wino_cost(p, 4, nr) ? 2 : 4;
    np = (p->wino_e + 2) * (p->wino_e + 2);
    th = (w->out[1] + p->wino_e - 1) / p->wino_e;
    tw = (w->out[2] + p->wino_e - 1) / p->wino_e;
    p->wino_cs = mmd__wino_cs(th, tw, nr);
    rb = mmd__wino_rows(th, tw, p->wino_cs, np * 4 * (p->in_ch + p->gm), np * 4 * p->in_ch * p->gm, nr, p->threads, NULL);
    blocks = (th + rb - 1) / rb;
    p->wino_th = th;
    p->wino_tw = tw;
    p->wino_rows = rb;
    /* A phase row, or with packed rows a plane of the block's rows e apart (rb + 1 of them,
       and the next row's columns, which the last garbage tile reads), plus what the last
       transform reads past them; it also holds the output transform's rows. */
    p->wino_len = p->wino_cs > tw ? (rb + 2) * p->wino_cs + MMD__WINO_T : mmd__round_up(tw, MMD__WINO_T) + MMD__WINO_T;
    p->wino_vs = mmd__wino_stride(rb, tw, p->wino_cs, nr);
    p->wino_shares = (int32_t)(blocks < p->threads ? blocks : p->threads);
    bytes = (uint64_t)p->wino_shares * (uint64_t)mmd__wino_share(p) * sizeof(float) + 64u;
    per = mmd__wino_per(p);
    if (bytes > (uint64_t)SIZE_MAX / 2 || (uint64_t)per > (uint64_t)SIZE_MAX / 36 / sizeof(float)) return MMD_OK;
    dst = (float *)mmd_kernel_packed(c, (size_t)(np * per) * sizeof(float), &fresh);
    if (!dst) return c->err->status;
    if (fresh) mmd__wino_pack((const float *)c->inputs[1]->data, p->gm, p->in_ch, p->isa, p->wino_e, per, dst);
    c->scratch_size = (size_t)bytes;
    p->packed = dst;
    p->path = MMD__CONV_WINOGRAD;
    *chosen = 1;
    return MMD_OK;
}
#endif

#ifndef MMD_CONV_SMALL
/* ==== >>ops stem ==== */
/* STEM: the first convolution of an image model (3 input channels: ResNet-18's 7x7 stride 2,
   MobileNets' 3x3 stride 2), where the product's K (27 or 147) is short and its output large:
   SHIFTED's product wrote columns of the phases' width to scratch, compacted them into the
   output afterwards and copied the whole input into phase planes first (bench_conv, one thread,
   warm: ResNet-18's 1.75 ms there, 1.3 to 1.45 ms here; MobileNetV2's 0.36 and 0.23; the
   DBNet's 1.37 and 1.0). Here each thread copies a band of output rows' input rows
   into zero-padded phase rows laid out as SHIFTED's planes (mmd__row_phases; the same offsets
   per tap, the planes only a band tall, so they stay in cache: copying the whole input first
   took half of the DBNet's stem), and tiles of MMD__STEM_MR output channels by MMD__STEM_ROWS
   output rows of one 16-column vector are summed in registers straight from those rows, tap by
   tap, with the weights prepacked [panel][tap][MR] and broadcast from memory; the bias, Z and
   the activation are applied in registers and the tile is stored into the NCHW output with the
   last vector of a row masked. No output scratch, no columns past the output's width. Every
   sum takes its taps in one order, so results do not depend on the thread count. The portable
   ISA takes the same bands with the portable micro-kernel's tiles (mmd__stem_rows_c). */
#define MMD__STEM_MR 8
#define MMD__STEM_ROWS 3
#define MMD__STEM_CIN_MAX 4
#ifndef MMD__STEM_BAND_FLOATS
#define MMD__STEM_BAND_FLOATS 32768     /* a band's phase rows at most (128 KiB), or one tile's */
#endif
/* Floats after a portable share's phase rows: an edge tile of the portable micro-kernels (six
   rows where they take A spread, see mmd__stem_six) and the bias of its rows, zeros past the
   last channel. */
#ifdef MMD__GEMM_SPREAD_C
#define MMD__STEM_EDGE_C mmd__round_up(6 * (MMD_GEMM_NR_PORTABLE + 1), 16)
#else
#define MMD__STEM_EDGE_C mmd__round_up(MMD__GEMM_MR_PORTABLE * (MMD_GEMM_NR_PORTABLE + 1), 16)
#endif

/* Takes the STEM path for a 2-D single-group convolution of 1 to MMD__STEM_CIN_MAX input
   channels with constant weights, on AVX-512, or on the portable ISA where K fits one K block
   of the product (so that each sum is the product's, see mmd__stem_rows_c) (the caller has
   checked that SHIFTED's phases suit the strides): sizes the bands (whole tiles of output rows
   whose phase rows fit MMD__STEM_BAND_FLOATS) and a share's phase rows (p->hp rows of p->wp
   per phase, with slack for the whole-vector reads past a row's last output and the last tap's
   shift; on the portable ISA then an edge tile and its bias), the scratch (the taps' offsets,
   then a share per thread), and packs the weights in panels of mmd__stem_mr channels, zeros
   past the last. *chosen tells whether it did. */
/* Channels of a STEM panel: MMD__STEM_MR on AVX-512, the portable micro-kernel's rows on the
   portable ISA, whose tiles are that kernel's. */
static int64_t mmd__stem_mr(int32_t isa) {
    return isa == MMD__ISA_PORTABLE ? MMD__GEMM_MR_PORTABLE : MMD__STEM_MR;
}

/* Copies of each weight in a STEM panel: four where the portable micro-kernel takes A spread
   (MMD__GEMM_SPREAD_C: each value four times in a row, loaded as a vector, no broadcast), else
   one. */
static int64_t mmd__stem_copies(int32_t isa) {
#ifdef MMD__GEMM_SPREAD_C
    if (isa == MMD__ISA_PORTABLE) return 4;
#endif
    (void)isa;
    return 1;
}

/* Where A comes spread, the portable STEM's panels below this channel are six channels, the
   six-row tile's (mmd__gemm_ukernel_spread6_c), and the rest mmd__stem_mr's four, split as the
   product splits a block (see mmd__gemm_block): gm rounded up to fours, the last four or eight
   channels (a remainder of 4 or 2 past the sixes) in fours, so 32 channels are 6, 6, 6, 6, 4,
   4 and 16 are 6, 6, 4. Elsewhere 0: every panel is mmd__stem_mr's. */
static int64_t mmd__stem_six(int32_t isa, int64_t gm) {
#ifdef MMD__GEMM_SPREAD_C
    if (isa == MMD__ISA_PORTABLE) {
        int64_t rows = mmd__round_up(gm, MMD__GEMM_MR_PORTABLE);
        return rows % 6 == 2 ? rows - 8 : rows - rows % 6;
    }
#endif
    (void)isa, (void)gm;
    return 0;
}

/* STEM's weights [gm][gk] in panels of mmd__stem_mr output channels (six below mmd__stem_six),
   tap-major within a panel ([gk][panel's channels][copies] from channel m0's m0 * gk * copies
   on), the last panel's missing channels zero. */
static void mmd__stem_pack(const float *wt, int64_t gm, int64_t gk, int32_t isa, float *dst) {
    int64_t mr = mmd__stem_mr(isa), cp = mmd__stem_copies(isa), rows = (gm + mr - 1) / mr * mr;
    int64_t six = mmd__stem_six(isa, gm), m0, t, m, q, l;
    for (m0 = 0; m0 < rows; m0 += t) {
        t = m0 < six ? 6 : mr;
        for (q = 0; q < gk; ++q)
            for (m = m0; m < m0 + t; ++m)
                for (l = 0; l < cp; ++l) *dst++ = m < gm ? wt[m * gk + q] : 0.0f;
    }
}

static mmd_status mmd__stem_plan(mmd_kernel_ctx *c, mmd__conv_data *p, int32_t *chosen) {
    const mmd__window *w = &p->w;
    int64_t wp, reach, per_row, tiles, packed;
    uint64_t bytes;
    float *dst;
    int32_t fresh;
    *chosen = 0;
    if ((p->isa != MMD__ISA_AVX512 && (p->isa != MMD__ISA_PORTABLE || p->gk > mmd__gemm_kc(p->isa))) ||
        p->group != 1 || p->in_ch < 1 || p->in_ch > MMD__STEM_CIN_MAX || w->k[0] != 1 || w->in[0] != 1 || p->gm < 1 || p->gk < 1 || p->gm > MMD__ELEMS_MAX / p->gk ||
        w->out[1] < 1 || w->out[2] < 1 || !mmd_tensor_is_const(c->inputs[1]))
        return MMD_OK;
    wp = (w->in[2] + w->pad[2] + w->pad_end[2] + w->s[2] - 1) / w->s[2];
    /* Phase rows a band of b output rows reads: b - 1 + reach per phase. */
    reach = (w->k[1] - 1) * w->d[1] / w->s[1] + 1;
    per_row = p->in_ch * w->s[1] * w->s[2] * wp;
    if (wp > MMD__ELEMS_MAX / 64 || reach > MMD__ELEMS_MAX / 64 || per_row > MMD__ELEMS_MAX / (reach + MMD__STEM_ROWS))
        return MMD_OK;
    /* Tiles of output rows per band at most: as many as fit (each thread's share of the tiles
       is cut into bands of even size, see mmd__stem_range). */
    tiles = (w->out[1] + MMD__STEM_ROWS - 1) / MMD__STEM_ROWS;
    p->band = (MMD__STEM_BAND_FLOATS / per_row - reach + 1) / MMD__STEM_ROWS;
    if (p->band < 1) p->band = 1;
    if (p->band > tiles) p->band = tiles;
    p->band *= MMD__STEM_ROWS;
    if (p->band > w->out[1]) p->band = w->out[1];
    p->hp = p->band - 1 + reach;
    p->wp = wp;
    p->plane = w->s[1] * w->s[2] * p->hp * wp;
    p->share = (int64_t)sizeof(float) * (mmd__round_up(p->in_ch * p->plane + (w->k[2] - 1) * w->d[2] / w->s[2] + 16, 16) +
                                         (p->isa == MMD__ISA_PORTABLE ? MMD__STEM_EDGE_C : 0));
    p->gn = w->out[1] * w->out[2];
    packed = mmd__round_up(p->gm, mmd__stem_mr(p->isa)) * p->gk * mmd__stem_copies(p->isa);
    /* The scratch also holds the packed weights, which eval packs there when the plan has none
       (a .mmd blob's plan packs nothing), so that the scratch is the same whatever the model's
       form: a blob written from this plan stores what a plan of that blob asks. */
    bytes = (uint64_t)mmd__round_up(p->gk, 8) * sizeof(int64_t) + (uint64_t)p->threads * (uint64_t)p->share + 64u +
            (uint64_t)packed * sizeof(float);
    if (bytes > (uint64_t)SIZE_MAX / 2) return MMD_OK;
    dst = MMD__PACKS ? (float *)mmd_kernel_packed(c, (size_t)packed * sizeof(float), &fresh) : NULL;
    if (!dst && c->err->status != MMD_OK) return c->err->status;
    if (dst && fresh) mmd__stem_pack((const float *)c->inputs[1]->data, p->gm, p->gk, p->isa, dst);
    c->scratch_size = (size_t)bytes;
    p->gemm_bytes = 0;
    p->packed = dst;
    p->path = MMD__CONV_STEM;
    *chosen = 1;
    return MMD_OK;
}

#endif

#if defined(MMD__X86) && !defined(MMD_CONV_SMALL)
/* ==== >>ops narrow ==== */
/* NARROW: on AVX-512, POINTWISE single-group convolutions with 7- or 14-column outputs of at
   most 196 pixels (MobileNetV2's 7x7 and 14x14 layers), at least MMD__NARROW_K_MIN input
   channels unless the product's 32-column panels would leave a fifth of their columns or more
   empty (planes of 49 and 98 pixels), and at least 48 output channels in whole 16s. The
   product's 8 x 32 tile computes such a plane in 32-column panels, 64 columns for 49 pixels
   and 224 for 196, up to 31% of its multiply-adds on nothing. Here the vectors run along the output channels instead: a tile is
   MMD__NARROW_PIX consecutive pixels of the plane by one panel of 32 to 64 channels (the
   fewest panels of at most 64 channels, their widths in 16s as even as can be: 96 channels
   make two panels of 48 and 160 make 64 + 48 + 48, where panels of 64 and a last narrow one
   would leave the threads unequal shares), up to 28 sums in registers beside the weight
   vectors of a K step (the weights packed once [panel][K][width], one sequential stream), each
   pixel's input broadcast from memory (the seven inputs of channel k are contiguous in the
   NCHW input). Threads split the panels' tiles, panel after panel, into shares of equal
   multiply-adds (mmd__narrow_range), so that a 64-channel layer runs on both threads and five
   panels on two are not split 3 : 2; each tile's sums take their K steps in one order, so
   results do not depend on the thread count. bench_conv --cold, one thread, medians of 30
   alternating with the product (loaded machine): 960 -> 320 at 7x7 0.285-0.301 -> 0.247-0.262
   ms, 320 -> 1280 at 7x7 0.353-0.376 -> 0.324-0.331 ms, 384 -> 64 at 14x14 0.098-0.114 ->
   0.088-0.094 ms. With fewer input channels the tile's end (a transpose into the NCHW output)
   and the weights' stream weigh more than the product's wasted columns: with its transpose in
   registers and the next block's weights asked for ahead, 96 -> 576 at 14x14 ran 0.140-0.145
   -> 0.167-0.173 ms warm, and 160 -> 960 at 7x7, faster warm (0.116-0.139 -> 0.105-0.120 ms),
   ran 0.164-0.175 -> 0.167-0.189 ms with the input warm and the weights out of cache, as in a
   model (medians of 7 to 11 alternating bench_conv runs), hence the floor. Since the input's
   next line is asked for ahead and the sums stay in registers (mmd__narrow_tile_vecs_avx512),
   NARROW wins at 7x7 at any K (warm, 1 thread: 160 -> 960 0.111-0.128 -> 0.097-0.099 ms, 96 ->
   576 0.047-0.050 -> 0.038-0.040, 32 -> 192 0.009 -> 0.006; 14x7, 160 -> 960 0.218-0.226 ->
   0.195-0.200) and MobileNetV2's 160 -> 960 at 7x7 ran 0.86x the product's time in the model
   (per node, 1 thread, lower quartile of 100 runs, median of 9 rounds), but at 14x14, whose
   last panel wastes 28 of 224 columns, 96 -> 576 still ran 1.05x (0.144-0.145 -> 0.148-0.153
   warm): the floor stays where the product wastes less than a fifth. Neither of the suspects
   for that fixed cost was it: with the output's masked stores (7 floats a channel row, each
   line written by 2 or 3 tiles) sent to one scratch line instead, 96 -> 576 at 14x14 ran as
   slowly, and asking for the output lines ahead, or for the next block's weights into L2
   rather than L1, or blocks of 32 K steps gained nothing in the model. The 3x3
   convolutions of ResNet-18's layer3 and layer4 through the same tile (over SHIFTED's padded
   planes, K = 9 C) ran no faster than the product (1.55-1.62 vs 1.56-1.62 ms, 1.80-2.12 vs
   1.89-2.00 ms). */
#define MMD__NARROW_PIX 7
#define MMD__NARROW_PREFETCH 1024       /* floats of a panel (16 K steps of 64) asked for ahead */
#define MMD__NARROW_K_MIN 256           /* fewest input channels where the product wastes */
                                        /* little (see above) */
#define MMD__NARROW_KC 64               /* K steps per block: at most 16 KiB of weights, which stay in L1 */
#define MMD__NARROW_HINT _MM_HINT_T0    /* where the next block's weights are asked into */

/* How many panels NARROW makes of gm output channels, the fewest of at most 64. */
static int64_t mmd__narrow_panels(int64_t gm) { return (gm / 16 + 3) / 4; }

/* Panel m of NARROW's gm output channels: its first channel and its width in vectors of 16
   (2 to 4 for gm >= 48). */
static void mmd__narrow_panel(int64_t gm, int64_t m, int64_t *first, int32_t *vecs) {
    int64_t slices = gm / 16, panels = mmd__narrow_panels(gm), base = slices / panels, more = slices % panels;
    *first = 16 * (m * base + (m < more ? m : more));
    *vecs = (int32_t)(base + (m < more));
}

/* Takes the NARROW path for a POINTWISE convolution (a 1x1 stride-1 unpadded kernel) that it
   serves, with constant weights: sizes the scratch (the K steps' offsets, then a buffer of sums
   per thread) and packs the weights. *chosen tells whether it did. */
static mmd_status mmd__narrow_plan(mmd_kernel_ctx *c, mmd__conv_data *p, int32_t *chosen) {
    const mmd__window *w = &p->w;
    int64_t m, q, i, first, plane = w->out[1] * w->out[2], cols = mmd__round_up(plane, mmd__gemm_nr(p->isa));
    int32_t vecs, fresh;
    uint64_t bytes;
    float *dst;
    *chosen = 0;
    if (p->isa != MMD__ISA_AVX512 || p->group != 1 || w->in[0] != 1 || p->gm % 16 || p->gm < 48 ||
        (p->gk < MMD__NARROW_K_MIN && 5 * (cols - plane) < cols) || (w->out[2] != 7 && w->out[2] != 14) ||
        plane > 196 || p->gm > MMD__ELEMS_MAX / p->gk || !mmd_tensor_is_const(c->inputs[1]))
        return MMD_OK;
    /* Eval's buffers of sums (job.tmp) start right after the offsets, or after the subsampled
       input (p->sub: p->plane floats per channel, set by mmd__conv_plan). */
    if (!p->sub) p->plane = 0;
    bytes = (uint64_t)mmd__round_up(p->gk, 8) * sizeof(int64_t) +
            (uint64_t)(p->threads * 64 * plane + p->gk * p->plane) * sizeof(float) + 64u;
    dst = (float *)mmd_kernel_packed(c, (size_t)(p->gm * p->gk) * sizeof(float), &fresh);
    if (!dst) return c->err->status;
    if (fresh)
        for (m = 0; m < mmd__narrow_panels(p->gm); ++m) {
            const float *wt = (const float *)c->inputs[1]->data;
            mmd__narrow_panel(p->gm, m, &first, &vecs);
            for (q = 0; q < p->gk; ++q)
                for (i = 0; i < 16 * vecs; ++i) dst[first * p->gk + q * 16 * vecs + i] = wt[(first + i) * p->gk + q];
        }
    c->scratch_size = (size_t)bytes;
    p->gemm_bytes = 0;
    p->packed = dst;
    p->gn = plane;
    p->path = MMD__CONV_NARROW;
    *chosen = 1;
    return MMD_OK;
}
#endif

/* Picks the path and sizes the scratch: the product's, then (at 64-byte alignment) the row
   offsets of the columns and the padded input and output (SHIFTED) or the columns (IM2COL). */
static mmd_status mmd__conv_plan(mmd_kernel_ctx *c, mmd__conv_data *p) {
    const mmd__window *w = &p->w;
    int64_t cg = p->in_ch / p->group, taps = w->k[0] * w->k[1] * w->k[2];
    int64_t out_plane = w->out[0] * w->out[1] * w->out[2], extra = 0;
    int32_t a, pointwise = 1, shifted = w->k[0] == 1 && w->in[0] == 1;
    uint64_t bytes;
    for (a = 0; a < 3; ++a) {
        if (w->k[a] != 1 || w->s[a] != 1 || w->pad[a] || w->pad_end[a]) pointwise = 0;
        /* A stride past the kernel's extent leaves phases no tap reads (a strided 1x1 kernel
           reads one of four), which SHIFTED would copy for nothing. */
        if (w->s[a] > 1 && w->s[a] > (w->k[a] - 1) * w->d[a] + 1) shifted = 0;
    }
    p->isa = mmd__isa();
    p->threads = c->threads > 1 ? c->threads : 1;
    p->gm = p->out_ch / p->group;
    p->gk = cg * taps;
    p->gn = out_plane;
#ifdef MMD_CONV_SMALL
    /* Firmware's choice: every convolution through im2col and the one product. */
    pointwise = shifted = 0;
#else
    p->sub = !pointwise && p->group == 1 && w->in[0] == 1;
    for (a = 0; a < 3; ++a)
        if (w->k[a] != 1 || w->pad[a] || w->pad_end[a]) p->sub = 0;
    if (p->sub) {
        /* A strided 1x1 kernel (ResNet's downsampling shortcuts) reads one input pixel per
           output pixel: the input at the output's pixels, gathered into scratch a channel at a
           time (mmd__conv_sub_range), is the columns of a POINTWISE product, which also takes
           NARROW's and SWEEP's paths on it. IM2COL gathered the same columns in a band over the
           K rows, one tap at a time and on one thread below its grain, and left the 7x7 and
           14x14 outputs to the product's edge tiles. */
        pointwise = 1;
        p->plane = out_plane;
    }
    if (p->group > 1 && cg == 1 && w->k[0] == 1 && w->in[0] == 1) {
        /* One share of consecutive channels per thread, the first on the calling thread (see
           mmd__pool_run): a product split by rows before it (MobileNetV2's expansions at 14x14
           and 7x7) left those channels in the same core's cache, and each share clears its
           scratch once. Four shares a thread, taken in turn, ran MobileNetV2's depthwise layers
           10-25% slower on 2 threads (fastest of 480 runs per node, every one of the 17 layers). */
        mmd_status st = mmd__dw_plan(c, p, p->threads);
        if (st != MMD_OK) return st;
        return mmd__scratch_request(c, (uint64_t)((p->batch * p->in_ch + p->step - 1) / p->step) * (uint64_t)p->share + 64u);
    }
    if (p->group > 1 && cg == 1) {
        /* eval's table of output ranges per kernel tap (see mmd__conv_plane_f32). */
        p->path = MMD__CONV_DIRECT;
        c->scratch_size = (size_t)(w->k[0] + w->k[1] + w->k[2]) * 2 * sizeof(int64_t);
        return MMD_OK;
    }
#ifndef MMD_NO_WINOGRAD
    {
        int32_t chosen;
        mmd_status st = mmd__wino_plan(c, p, &chosen);
        if (st != MMD_OK || chosen) return st;
    }
#endif
    if (shifted && !pointwise) {
        int32_t chosen;
        mmd_status st = mmd__stem_plan(c, p, &chosen);
        if (st != MMD_OK || chosen) return st;
    }
#if defined(MMD__X86)
    if (pointwise) {
        int32_t chosen;
        mmd_status st = mmd__narrow_plan(c, p, &chosen);
        if (st != MMD_OK || chosen) return st;
    }
#endif
    if (pointwise && !p->sub && out_plane == 1 && p->group == 1 && !(c->input_count > 3 && c->inputs[3])) {
        mmd_status st = mmd__scratch_request(c, mmd__gemm_scratch(1, p->gm, p->gk, p->isa, p->threads));
        if (st != MMD_OK) return st;
        p->path = MMD__CONV_PIXEL;
        p->packed = NULL;
        if (MMD__PACKS && mmd_tensor_is_const(c->inputs[1]) && p->gm > 0 && p->gk > 0) {
            int32_t fresh;
            float *dst = (float *)mmd_kernel_packed(
                c, (size_t)mmd__gemm_packed_b_size(p->gk, p->gm, p->isa) * sizeof(float), &fresh);
            if (!dst && c->err->status != MMD_OK) return c->err->status;
            if (dst && fresh)
                mmd__gemm_pack_b((const float *)c->inputs[1]->data, 1, p->gk, p->gk, p->gm, p->isa, dst);
            p->packed = dst;
        }
        return MMD_OK;
    }
#endif
    if (pointwise) {
        p->path = p->gk <= MMD__SWEEP_K_MAX && p->gm * out_plane >= MMD__SWEEP_FLOATS ? MMD__CONV_SWEEP
                                                                                     : MMD__CONV_POINTWISE;
        extra = p->sub ? cg * p->plane : 0;
    } else if (shifted) {
        /* A phase plane holds the padded rows r and columns q with r % s[1] and q % s[2] fixed:
           output (y, x) reads padded (y * s + t * d) for tap t, which is phase (t * d) % s at
           y + (t * d) / s, so each tap's reads are one shifted phase plane, as at stride 1.
           ResNet-18's strided convolutions (7x7 stride 2 of 3 channels, 3x3 stride 2) take
           this path instead of gathering columns (on AVX-512 the 7x7 takes STEM). */
        int64_t hp = w->in[1] + w->pad[1] + w->pad_end[1], wp = w->in[2] + w->pad[2] + w->pad_end[2];
        p->path = MMD__CONV_SHIFTED;
        p->hp = (hp + w->s[1] - 1) / w->s[1];
        p->wp = (wp + w->s[2] - 1) / w->s[2];
        /* The product's columns are the output rows at the phases' width, rounded up to whole
           panels of the micro-kernel so that no tile takes the edge path (its copies through
           scratch cost ResNet-18's 7x7 layers about a sixth of their time); the columns past
           the output's are discarded with the padding ones. Past the last phase's last row
           their shifted reads run on by up to (kw - 1) * dw / s[2] plus that rounding. */
        p->gn = mmd__round_up(w->out[1] * p->wp, mmd__gemm_nr(p->isa));
        p->plane = mmd__round_up(w->s[1] * w->s[2] * p->hp * p->wp + (w->k[2] - 1) * w->d[2] / w->s[2] + p->gn -
                                     w->out[1] * p->wp, 16);
        if ((p->plane && cg > MMD__ELEMS_MAX / p->plane) || (p->gn && p->gm > MMD__ELEMS_MAX / p->gn))
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "padded input or output too large");
        extra = cg * p->plane + p->gm * p->gn;
    } else {
        int64_t rows = w->out[0] * w->out[1], per_row = p->gk * w->out[2];
        p->path = MMD__CONV_IM2COL;
        p->band = per_row > 0 && MMD_CONV_COLUMNS_MAX / per_row > 1 ? MMD_CONV_COLUMNS_MAX / per_row : 1;
        if (p->band > rows) p->band = rows > 0 ? rows : 1;
        p->gn = p->band * w->out[2];
        if (p->gk > MMD__ELEMS_MAX / (p->gn > 0 ? p->gn : 1))
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "im2col columns too large");
        extra = p->gk * p->gn;
    }
    bytes = mmd__gemm_scratch(p->gm, p->gn, p->gk, p->isa, p->threads);
    p->gemm_bytes = (size_t)mmd__round_up((int64_t)bytes, 64);
    bytes = p->gemm_bytes + (uint64_t)mmd__round_up(p->gk, 8) * sizeof(int64_t) + (uint64_t)extra * sizeof(float) + 64u;
    if (bytes > (uint64_t)SIZE_MAX)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "needs %llu bytes of scratch", (unsigned long long)bytes);
    c->scratch_size = (size_t)bytes;
    /* Constant weights are packed once, per group, for the product. */
    p->packed = NULL;
    if (MMD__PACKS && mmd_tensor_is_const(c->inputs[1]) && p->gm > 0 && p->gk > 0) {
        int64_t per = mmd__gemm_packed_a_size(p->gm, p->gk, p->isa), g;
        int32_t fresh;
        float *dst = (float *)mmd_kernel_packed(c, (size_t)(per * p->group) * sizeof(float), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
        if (dst && fresh)
            for (g = 0; g < p->group; ++g)
                mmd__gemm_pack_a((const float *)c->inputs[1]->data + g * p->gm * p->gk, p->gk, 1, p->gm,
                                 p->gk, p->isa, dst + g * per);
        p->packed = dst;
    }
    return MMD_OK;
}

static mmd_status mmd__conv_f32_prepare(mmd_kernel_ctx *c) {
    mmd__conv_data *p = (mmd__conv_data *)c->op_data;
    const mmd_tensor *x, *wt;
    int64_t dims[5];
    int32_t n, i;
    mmd_status st = mmd__conv_check(c, 0, p);
    if (st != MMD_OK) return st;
    memset(&p->act, 0, sizeof p->act);
    p->has_z = 0;
    x = c->inputs[0];
    wt = c->inputs[1];
    n = x->rank - 2;
    if ((st = mmd__window_prepare(c, n, x->dims + 2, wt->dims + 2, 0, &p->w)) != MMD_OK) return st;
    dims[0] = p->batch;
    dims[1] = p->out_ch;
    for (i = 0; i < n; ++i) dims[2 + i] = p->w.out[3 - n + i];
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, dims)) != MMD_OK) return st;
    return mmd__conv_plan(c, p);
}

#ifndef MMD_CONV_SMALL
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
   halves the memory traffic. range[] holds, per axis and tap, the outputs the tap reaches
   inside the input (lo, hi pairs; axis 0's taps first). */
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

/* One output row of a depthwise convolution: o[j] = bias + sum over taps t of w[t] * p[t][j * s],
   the sum kept in registers over all taps, the taps in order (the vector paths fuse each
   multiply-add; the last lanes take fmaf, so that every column rounds the same way). */
static void mmd__dw_row_c(float *MMD__RESTRICT o, const float *const *p, const float *w, int64_t taps,
                          float bias, int64_t n, int64_t s) {
    int64_t j = 0, t;
    int32_t l;
    /* Eight, then four outputs at a time at strides 1 and 2, their sums in an array indexed by
       constants only: compilers keep it in vector registers and turn the multiply-adds of a
       tap into vector operations (at stride 2 on the even elements), which they do not for
       the loop over the taps of one output below (nor, at stride 2, for a loop over the
       outputs of a tap). For wider vectors (>>ops simd) four vectors of outputs go first (32
       or 64): four independent vector sums, where one would wait on its last multiply-add at
       every tap. MobileNetV2's 3x3 depthwise layers at 112x112, fastest of 6 profiles: 1.20 ->
       0.77 ms at stride 2 (its 14x14 and 7x7 ones are not held back by the sums). */
#define MMD__DW_SUM4(k, S)                                                                      \
    acc[k] += wt * q[(k) * (S)], acc[(k) + 1] += wt * q[((k) + 1) * (S)],                        \
    acc[(k) + 2] += wt * q[((k) + 2) * (S)], acc[(k) + 3] += wt * q[((k) + 3) * (S)]
#define MMD__DW_ROW(W, S)                                                                       \
    for (; j + (W) <= n; j += (W)) {                                                            \
        float acc[MMD__DW_WIDE];                                                                \
        for (l = 0; l < (W); ++l) acc[l] = bias;                                                \
        for (t = 0; t < taps; ++t) {                                                            \
            const float *q = p[t] + j * (S);                                                    \
            float wt = w[t];                                                                    \
            MMD__DW_SUM4(0, S);                                                                 \
            if ((W) >= 8) MMD__DW_SUM4(4, S);                                                   \
            if ((W) >= 32) {                                                                    \
                MMD__DW_SUM4(8, S), MMD__DW_SUM4(12, S), MMD__DW_SUM4(16, S);                   \
                MMD__DW_SUM4(20, S), MMD__DW_SUM4(24, S), MMD__DW_SUM4(28, S);                  \
            }                                                                                   \
            if ((W) >= 64) {                                                                    \
                MMD__DW_SUM4(32, S), MMD__DW_SUM4(36, S), MMD__DW_SUM4(40, S);                  \
                MMD__DW_SUM4(44, S), MMD__DW_SUM4(48, S), MMD__DW_SUM4(52, S);                  \
                MMD__DW_SUM4(56, S), MMD__DW_SUM4(60, S);                                       \
            }                                                                                   \
        }                                                                                       \
        for (l = 0; l < (W); ++l) o[j + l] = acc[l];                                            \
    }
#if MMD__C_VEC >= 8
#define MMD__DW_WIDE (4 * MMD__C_VEC)
    if (s == 1) { MMD__DW_ROW(MMD__DW_WIDE, 1) }
    if (s == 2) { MMD__DW_ROW(MMD__DW_WIDE, 2) }
#else
#define MMD__DW_WIDE 8
#endif
    if (s == 1) { MMD__DW_ROW(8, 1) MMD__DW_ROW(4, 1) }
    if (s == 2) { MMD__DW_ROW(8, 2) MMD__DW_ROW(4, 2) }
#undef MMD__DW_ROW
#undef MMD__DW_SUM4
#undef MMD__DW_WIDE
    for (; j < n; ++j) {
        float acc = bias;
        for (t = 0; t < taps; ++t) acc += w[t] * p[t][j * s];
        o[j] = acc;
    }
}

/* Nine-tap depthwise kernels (3x3, the MobileNets'), portable: `rows` output rows of ow floats
   into y (rows ow apart), output (r, x) = bias + sum over taps t of w[t] * p[t][r * pitch + x],
   the taps in order as mmd__dw_row_c sums them, then clamped to [lo, hi] (Relu, Clip; none:
   -inf, inf) as mmd__wino_store clamps. The taps' pointers and weights are locals for the whole
   call, so that a step of outputs costs a load, a multiply and an add per tap where
   mmd__dw_row_c's loop over a table also loads the tap's pointer and broadcasts its weight;
   a step's sums are one loop of constant trip count, which GCC's -O2 vectorises across the
   outputs. A step is one vector (MMD__C_VEC outputs): GCC -O2 does not unroll, so a step of
   two vectors stayed a loop of two passes inside each step, whose shifted tap pointers it
   recomputed every step (8 of the 42 instructions a vector, MMD_NO_SIMD); one vector a step is
   straight-line, 35 a vector, and rows of 28 outputs (stride 2 from 56 columns) are whole
   steps instead of three and a half. In L1 (the kernel alone, 8 rows a call, thread CPU time,
   best of 5): stride 1 on 112 and 56 columns 2.15 -> 2.00 and 2.08 -> 1.96 ns a vector of
   outputs, stride 2 to 56 and 28 outputs 2.27 -> 1.96 and 3.07 -> 2.10; the portable native
   build (16-float vectors) 1.46 -> 1.01, 1.63 -> 1.47, 1.76 -> 1.43, level at 28. A row's
   last outputs short of a step are a whole step ending at the row's end, which computes again
   (to the same values) some of the step before and stores them whole: through a step's copy
   and a loop of single stores, rows of 29, 14 and 7 outputs ran 2.91, 3.30 and 5.32 ns a vector
   in L1, now 2.27, 2.44 and 3.12 (their 14 at stride 2 3.52 -> 2.52). Only rows shorter than
   a step still compute one into a copy (reading up to MMD__C_VEC - 1 floats past the row, which
   the band's slack or its next rows hold) and store what the row has: the output is written once, straight to y, with no flat row to copy from and no
   pass of the activation over it. Where the taps of each kernel row are consecutive floats
   (stride 1, no dilation: p[3 a + b] = p[3 a] + b) they are read through three row pointers
   at constant offsets, which leaves GCC registers it spent reloading six pointers every step:
   MMD_NO_SIMD, medians of 200 warm, MobileNetV2's 112x112x32 0.293 -> 0.268 ms, 56x56x144
   0.34 -> 0.31, 28x28x192 0.141 -> 0.126. At stride 2 in phases (mmd__dw_flat's 2) a kernel
   row's outer taps are consecutive floats of one phase plane and its middle tap is in the
   other, six pointers for nine: bench_conv warm, medians of 10 alternated runs, stride-2 3x3
   x96 from 112x112 0.398 -> 0.391 ms, x144 from 56x56 0.180 -> 0.173. */
#define MMD__DW9_W MMD__C_VEC
/* One output of the nine taps T0..T8 (each an expression in j + l), its bias first, then the
   lower clamp: a, declared here, for the caller to store with the upper one. */
#define MMD__DW9_SUM(T0, T1, T2, T3, T4, T5, T6, T7, T8)                                       \
    float a = bias;                                                                             \
    a += w0 * (T0), a += w1 * (T1), a += w2 * (T2);                                             \
    a += w3 * (T3), a += w4 * (T4), a += w5 * (T5);                                             \
    a += w6 * (T6), a += w7 * (T7), a += w8 * (T8);                                             \
    a = a < lo ? lo : a
#define MMD__DW9_ROWS(T0, T1, T2, T3, T4, T5, T6, T7, T8)                                      \
    for (r = 0; r < rows; ++r, y += ow) {                                                       \
        const float *q0 = p[0] + r * pitch, *q1 = p[1] + r * pitch, *q2 = p[2] + r * pitch;    \
        const float *q3 = p[3] + r * pitch, *q4 = p[4] + r * pitch, *q5 = p[5] + r * pitch;    \
        const float *q6 = p[6] + r * pitch, *q7 = p[7] + r * pitch, *q8 = p[8] + r * pitch;    \
        (void)q1, (void)q2, (void)q4, (void)q5, (void)q7, (void)q8;                             \
        for (j = 0; j < ow && ow >= MMD__DW9_W; j += MMD__DW9_W) {                              \
            if (j > ow - MMD__DW9_W) j = ow - MMD__DW9_W;                                       \
            for (l = 0; l < MMD__DW9_W; ++l) {                                                  \
                MMD__DW9_SUM(T0, T1, T2, T3, T4, T5, T6, T7, T8);                               \
                y[j + l] = a > hi ? hi : a;                                                     \
            }                                                                                   \
        }                                                                                       \
        if (ow < MMD__DW9_W) {                                                                  \
            float acc[MMD__DW9_W];                                                              \
            for (j = 0, l = 0; l < MMD__DW9_W; ++l) {                                           \
                MMD__DW9_SUM(T0, T1, T2, T3, T4, T5, T6, T7, T8);                               \
                acc[l] = a > hi ? hi : a;                                                       \
            }                                                                                   \
            for (l = 0; l < ow; ++l) y[l] = acc[l];                                             \
        }                                                                                       \
    }
static void mmd__dw9_c(float *MMD__RESTRICT y, const float *const *p, int64_t pitch, int64_t rows, int64_t ow,
                       const float *w, float bias, float lo, float hi) {
    const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7], w8 = w[8];
    int64_t r, j;
    int32_t l;
    if (p[1] == p[0] + 1 && p[2] == p[0] + 2 && p[4] == p[3] + 1 && p[5] == p[3] + 2 && p[7] == p[6] + 1 &&
        p[8] == p[6] + 2) {
        MMD__DW9_ROWS(q0[j + l], q0[j + l + 1], q0[j + l + 2], q3[j + l], q3[j + l + 1], q3[j + l + 2], q6[j + l],
                      q6[j + l + 1], q6[j + l + 2])
        return;
    }
    if (p[2] == p[0] + 1 && p[5] == p[3] + 1 && p[8] == p[6] + 1) {
        MMD__DW9_ROWS(q0[j + l], q1[j + l], q0[j + l + 1], q3[j + l], q4[j + l], q3[j + l + 1], q6[j + l], q7[j + l],
                      q6[j + l + 1])
        return;
    }
    MMD__DW9_ROWS(q0[j + l], q1[j + l], q2[j + l], q3[j + l], q4[j + l], q5[j + l], q6[j + l], q7[j + l], q8[j + l])
}
#undef MMD__DW9_ROWS
#undef MMD__DW9_SUM

/* mmd__dw9_c over four channels at once, for planes whose rows are too short for a row's steps
   (MMD__DW_QUAD_W): in is the four channels' input interleaved (four floats a pixel, the
   channels in order), zero-padded over the extent the taps reach, rows `pitch` floats apart;
   tap (a, b) of output (r, x) reads in[(r * s1 + a * d1) * pitch + (x * s2 + b * d2) * 4 + c]
   for channel c, with the weights w4[4 (3 a + b) + c] and the biases b4[c], so that the
   multiply-adds of one output run across the four channels as one vector (GCC -O2 vectorises
   the loop of four), every output a whole step, whatever the plane's width, and the strides
   cost nothing. The caller interleaves the four planes a row at a time, four loads and four
   stores a pixel written out (a loop over the four channels stayed a scalar loop, 40% of the
   14x14 layers' time: 14x14x384 ran 0.084 ms instead of 0.053, 7x7x960 0.052 instead of
   0.039). The taps are read through three row pointers and the columns' offsets (known
   at dilation 1), which leaves GCC the registers for the output's four planes: with nine tap
   offsets it spilled them and the loop ran 5-10% slower or faster as the code around it
   changed. The sums are mmd__dw9_c's, term for term; output c goes to y + c * plane. */
#define MMD__DW9X4_ROWS(CD)                                                                     \
    for (r = 0; r < oh; ++r, y += ow) {                                                         \
        const float *t0 = in + r * s1 * pitch, *t1 = t0 + d1 * pitch, *t2 = t1 + d1 * pitch;   \
        for (x = 0; x < ow; ++x) {                                                              \
            const float *u0 = t0 + x * s2 * 4, *u1 = t1 + x * s2 * 4, *u2 = t2 + x * s2 * 4;   \
            float acc[4];                                                                       \
            for (c = 0; c < 4; ++c) {                                                           \
                float a = b4[c];                                                                \
                a += w4[c] * u0[c], a += w4[4 + c] * u0[(CD) + c], a += w4[8 + c] * u0[2 * (CD) + c]; \
                a += w4[12 + c] * u1[c], a += w4[16 + c] * u1[(CD) + c], a += w4[20 + c] * u1[2 * (CD) + c]; \
                a += w4[24 + c] * u2[c], a += w4[28 + c] * u2[(CD) + c], a += w4[32 + c] * u2[2 * (CD) + c]; \
                a = a < lo ? lo : a;                                                            \
                acc[c] = a > hi ? hi : a;                                                       \
            }                                                                                   \
            y[x] = acc[0], y[plane + x] = acc[1], y[2 * plane + x] = acc[2], y[3 * plane + x] = acc[3]; \
        }                                                                                       \
    }
static void mmd__dw9x4_c(float *MMD__RESTRICT y, int64_t plane, const float *MMD__RESTRICT in, int64_t pitch,
                         int64_t d1, int64_t d2, int64_t s1, int64_t s2, int64_t oh, int64_t ow,
                         const float *MMD__RESTRICT w4, const float *MMD__RESTRICT b4, float lo, float hi) {
    int64_t r, x, cd = 4 * d2;
    int32_t c;
    if (d2 == 1) {
        MMD__DW9X4_ROWS(4)
        return;
    }
    MMD__DW9X4_ROWS(cd)
}
#undef MMD__DW9X4_ROWS

#if defined(MMD__X86)
/* Stride 1 and 2; a stride-2 step of 8 outputs reads 16 inputs, of which it keeps the even ones,
   and stops one short of the row's end (the last output reads p[t][2n - 2] only). */
MMD__TARGET_AVX2 static void mmd__dw_row_avx2(float *o, const float *const *p, const float *w, int64_t taps,
                                              float bias, int64_t n, int64_t s) {
    int64_t j = 0, t;
    if (s == 1) {
        for (; j + 16 <= n; j += 16) {
            __m256 a0 = _mm256_set1_ps(bias), a1 = a0;
            for (t = 0; t < taps; ++t) {
                __m256 wv = _mm256_broadcast_ss(w + t);
                a0 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(p[t] + j), a0);
                a1 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(p[t] + j + 8), a1);
            }
            _mm256_storeu_ps(o + j, a0);
            _mm256_storeu_ps(o + j + 8, a1);
        }
        for (; j + 8 <= n; j += 8) {
            __m256 a0 = _mm256_set1_ps(bias);
            for (t = 0; t < taps; ++t) a0 = _mm256_fmadd_ps(_mm256_broadcast_ss(w + t), _mm256_loadu_ps(p[t] + j), a0);
            _mm256_storeu_ps(o + j, a0);
        }
    } else {
        for (; j + 8 < n; j += 8) {
            __m256 a0 = _mm256_set1_ps(bias);
            for (t = 0; t < taps; ++t) {
                /* Evens of two vectors: a0 a2 b0 b2 | a4 a6 b4 b6, then 64-bit pairs 0 2 1 3. */
                __m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(p[t] + 2 * j), _mm256_loadu_ps(p[t] + 2 * j + 8), 0x88);
                e = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8));
                a0 = _mm256_fmadd_ps(_mm256_broadcast_ss(w + t), e, a0);
            }
            _mm256_storeu_ps(o + j, a0);
        }
    }
    for (; j < n; ++j) {
        float acc = bias;
        for (t = 0; t < taps; ++t) acc = fmaf(w[t], p[t][j * s], acc);
        o[j] = acc;
    }
}

/* The 16 inputs of a stride-2 vector: the even ones of the 32 from p. */
MMD__TARGET_AVX512 static __m512 mmd__dw_even_avx512(const float *p) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p), even, _mm512_loadu_ps(p + 16));
}

/* The bounds mmd__dw_store_avx512 clamps to for act: Relu's or Clip's, none (-inf, inf) for the
   others, which are applied over the finished outputs; returns whether act is done by them. */
MMD__TARGET_AVX512 static int32_t mmd__dw_bounds_avx512(const mmd__act *act, __m512 *lo, __m512 *hi) {
    int32_t in_regs = act->kind == MMD__ACT_NONE || act->kind == MMD__ACT_RELU || act->kind == MMD__ACT_CLIP;
    *lo = _mm512_set1_ps(!in_regs ? -INFINITY : act->kind == MMD__ACT_CLIP ? act->alpha
                                              : act->kind == MMD__ACT_RELU ? 0.0f : -INFINITY);
    *hi = _mm512_set1_ps(in_regs && act->kind == MMD__ACT_CLIP ? act->beta : INFINITY);
    return in_regs;
}

/* Z, then Relu or Clip between lo and hi (none: -inf, inf), then the lanes m of one vector. */
MMD__TARGET_AVX512 static void mmd__dw_store_avx512(float *y, const float *z, __mmask16 m, __m512 a, __m512 lo,
                                                    __m512 hi) {
    if (z) a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(m, z));
    _mm512_mask_storeu_ps(y, m, _mm512_min_ps(hi, _mm512_max_ps(lo, a)));
}

/* The first cnt of a tile's eight row sums a0..a7 (mmd__dw_rows3_avx512, mmd__dw_rows3s2_avx512
   and their 5x5 forms) stored at y + at, a row of ow apart. */
#define MMD__DW3_STORE                                                                           \
    do {                                                                                       \
        mmd__dw_store_avx512(y + at, z ? z + at : NULL, m, a0, lo, hi);                        \
        if (cnt > 1) mmd__dw_store_avx512(y + at + ow, z ? z + at + ow : NULL, m, a1, lo, hi); \
        if (cnt > 2) mmd__dw_store_avx512(y + at + 2 * ow, z ? z + at + 2 * ow : NULL, m, a2, lo, hi); \
        if (cnt > 3) mmd__dw_store_avx512(y + at + 3 * ow, z ? z + at + 3 * ow : NULL, m, a3, lo, hi); \
        if (cnt > 4) mmd__dw_store_avx512(y + at + 4 * ow, z ? z + at + 4 * ow : NULL, m, a4, lo, hi); \
        if (cnt > 5) mmd__dw_store_avx512(y + at + 5 * ow, z ? z + at + 5 * ow : NULL, m, a5, lo, hi); \
        if (cnt > 6) mmd__dw_store_avx512(y + at + 6 * ow, z ? z + at + 6 * ow : NULL, m, a6, lo, hi); \
        if (cnt > 7) mmd__dw_store_avx512(y + at + 7 * ow, z ? z + at + 7 * ow : NULL, m, a7, lo, hi); \
    } while (0)

/* 3x3, stride 1, dilation 1 (MobileNets' depthwise layers), read in place (mmd__dw_inplace 4):
   one channel's plane x into its output y, eight output rows of one column vector at a time.
   Each of the ten input rows they read is loaded once, as three shifted vectors (masked loads:
   columns and rows outside the plane, the padding, are zeros), and feeds the up to three output
   rows that take it, instead of nine loads per output vector; the nine weights stay in
   registers and no tile bookkeeping is done per vector. Every sum still takes its taps row by
   row, left to right, from the bias, as mmd__dw_rows_avx512's loop does over zero-padded rows,
   so both give the same values; Z, Relu and Clip are applied before the store, any other
   activation after. */
MMD__TARGET_AVX512 static void mmd__dw_rows3_avx512(float *y, const float *z, const float *x, const mmd__window *w,
                                                    const float *k, float bias, const mmd__act *act) {
    const __m512 k0 = _mm512_set1_ps(k[0]), k1 = _mm512_set1_ps(k[1]), k2 = _mm512_set1_ps(k[2]);
    const __m512 k3 = _mm512_set1_ps(k[3]), k4 = _mm512_set1_ps(k[4]), k5 = _mm512_set1_ps(k[5]);
    const __m512 k6 = _mm512_set1_ps(k[6]), k7 = _mm512_set1_ps(k[7]), k8 = _mm512_set1_ps(k[8]);
    int64_t ih = w->in[1], iw = w->in[2], rows = w->out[1], ow = w->out[2], r0, v;
    __m512 lo, hi;
    const int32_t in_regs = mmd__dw_bounds_avx512(act, &lo, &hi);
    for (r0 = 0; r0 < rows; r0 += 8)
        for (v = 0; v < ow; v += 16) {
            __m512 a0 = _mm512_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            __m512 x0, x1, x2;
            const int64_t c0 = v - w->pad[2], top = r0 - w->pad[1];
            const __mmask16 m = MMD__MASK16(v, ow), ma = mmd__lanes16(c0, iw), mb = mmd__lanes16(c0 + 1, iw);
            const __mmask16 mc = mmd__lanes16(c0 + 2, iw);
            int64_t cnt = rows - r0 < 8 ? rows - r0 : 8, at = r0 * ow + v, i;
            int32_t in;
            const float *p;
/* Input row top + ir (zeros outside the plane) as three shifted vectors. */
#define MMD__DW3_IN(ir)                                                                                   \
    i = top + (ir), in = i >= 0 && i < ih, p = x + (in ? i : 0) * iw + c0,                                \
    x0 = _mm512_maskz_loadu_ps(in ? ma : 0, p), x1 = _mm512_maskz_loadu_ps(in ? mb : 0, p + 1),          \
    x2 = _mm512_maskz_loadu_ps(in ? mc : 0, p + 2)
/* Kernel row t of the sum a: the taps (t, 0), (t, 1), (t, 2) in order. */
#define MMD__DW3_T(a, w0, w1, w2)                                                                \
    a = _mm512_fmadd_ps(w0, x0, a), a = _mm512_fmadd_ps(w1, x1, a), a = _mm512_fmadd_ps(w2, x2, a)
#define MMD__DW3_ROW(a, b, c) MMD__DW3_T(a, k0, k1, k2), MMD__DW3_T(b, k3, k4, k5), MMD__DW3_T(c, k6, k7, k8)
            MMD__DW3_IN(0), MMD__DW3_T(a0, k0, k1, k2);
            MMD__DW3_IN(1), MMD__DW3_T(a1, k0, k1, k2), MMD__DW3_T(a0, k3, k4, k5);
            MMD__DW3_IN(2), MMD__DW3_ROW(a2, a1, a0);
            MMD__DW3_IN(3), MMD__DW3_ROW(a3, a2, a1);
            MMD__DW3_IN(4), MMD__DW3_ROW(a4, a3, a2);
            MMD__DW3_IN(5), MMD__DW3_ROW(a5, a4, a3);
            MMD__DW3_IN(6), MMD__DW3_ROW(a6, a5, a4);
            MMD__DW3_IN(7), MMD__DW3_ROW(a7, a6, a5);
            MMD__DW3_IN(8), MMD__DW3_T(a7, k3, k4, k5), MMD__DW3_T(a6, k6, k7, k8);
            MMD__DW3_IN(9), MMD__DW3_T(a7, k6, k7, k8);
#undef MMD__DW3_ROW
#undef MMD__DW3_T
#undef MMD__DW3_IN
            MMD__DW3_STORE;
        }
    if (!in_regs) mmd__act_avx512_f32(act, y, y, rows * ow);
}

/* 3x3, stride 2, dilation 1, read in place (mmd__dw_inplace 3): one channel's plane x of ih x iw
   into its output y, eight output rows of one column vector at a time, as mmd__dw_rows3_avx512
   does at stride 1. Each of the seventeen input rows they read is loaded once, as the 32 inputs
   from the vector's first tap on and the 33rd (masked loads: columns and rows outside the plane,
   the padding, are zeros), and split into its three taps' vectors (the even inputs, the odd
   ones, and the even ones a lane on), which feed the output rows that read that row: two for an
   even row, one for an odd one. Every sum takes its taps row by row, left to right, from the
   bias, as mmd__dw_rows_avx512's loop does over zero-padded rows, so the same values; Z, Relu
   and Clip are applied before the store, any other activation after. */
MMD__TARGET_AVX512 static void mmd__dw_rows3s2_avx512(float *y, const float *z, const float *x, const mmd__window *w,
                                                      const float *k, float bias, const mmd__act *act) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512 k0 = _mm512_set1_ps(k[0]), k1 = _mm512_set1_ps(k[1]), k2 = _mm512_set1_ps(k[2]);
    const __m512 k3 = _mm512_set1_ps(k[3]), k4 = _mm512_set1_ps(k[4]), k5 = _mm512_set1_ps(k[5]);
    const __m512 k6 = _mm512_set1_ps(k[6]), k7 = _mm512_set1_ps(k[7]), k8 = _mm512_set1_ps(k[8]);
    int64_t ih = w->in[1], iw = w->in[2], oh = w->out[1], ow = w->out[2], r0, v;
    __m512 lo, hi;
    const int32_t in_regs = mmd__dw_bounds_avx512(act, &lo, &hi);
    for (r0 = 0; r0 < oh; r0 += 8)
        for (v = 0; v < ow; v += 16) {
            __m512 a0 = _mm512_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            __m512 x0, x1, x2, lo16, hi16;
            const int64_t c0 = 2 * v - w->pad[2], top = 2 * r0 - w->pad[1];
            const __mmask16 m = MMD__MASK16(v, ow), ma = mmd__lanes16(c0, iw), mb = mmd__lanes16(c0 + 16, iw);
            const __mmask16 mc = mmd__lanes16(c0 + 32, iw) & 1u;
            int64_t cnt = oh - r0 < 8 ? oh - r0 : 8, at = r0 * ow + v, i;
            int32_t in;
            const float *p;
            /* The next tile's sixteen new rows, these columns: seventeen rows read a vector at a
               time are more streams than the prefetchers follow (MobileNetV2's 96 channels 112 ->
               56 from 0.297 to 0.268 ms alone, median of 5, and 0.346 to 0.298 in the model,
               fastest of 11; the same at stride 1, ten rows, gained nothing). */
            for (i = top + 17 > 0 ? top + 17 : 0; i < top + 33 && i < ih; ++i) {
                _mm_prefetch((const char *)(x + i * iw + 2 * v), _MM_HINT_T0);
                _mm_prefetch((const char *)(x + i * iw + 2 * v + 16), _MM_HINT_T0);
            }
/* Input row top + ir (zeros outside the plane) split into its three taps' vectors. */
#define MMD__DW3_IN(ir)                                                                               \
    i = top + (ir), in = i >= 0 && i < ih, p = x + (in ? i : 0) * iw + c0,                            \
    lo16 = _mm512_maskz_loadu_ps(in ? ma : 0, p), hi16 = _mm512_maskz_loadu_ps(in ? mb : 0, p + 16),  \
    x0 = _mm512_permutex2var_ps(lo16, even, hi16), x1 = _mm512_permutex2var_ps(lo16, odd, hi16),      \
    x2 = _mm512_castsi512_ps(_mm512_alignr_epi32(                                                     \
        _mm512_castps_si512(_mm512_maskz_loadu_ps(in ? mc : 0, p + 32)), _mm512_castps_si512(x0), 1))
#define MMD__DW3_T(a, w0, w1, w2)                                                                \
    a = _mm512_fmadd_ps(w0, x0, a), a = _mm512_fmadd_ps(w1, x1, a), a = _mm512_fmadd_ps(w2, x2, a)
#define MMD__DW3_EVEN(a, b) MMD__DW3_T(a, k0, k1, k2), MMD__DW3_T(b, k6, k7, k8)
            MMD__DW3_IN(0), MMD__DW3_T(a0, k0, k1, k2);
            MMD__DW3_IN(1), MMD__DW3_T(a0, k3, k4, k5);
            MMD__DW3_IN(2), MMD__DW3_EVEN(a1, a0);
            MMD__DW3_IN(3), MMD__DW3_T(a1, k3, k4, k5);
            MMD__DW3_IN(4), MMD__DW3_EVEN(a2, a1);
            MMD__DW3_IN(5), MMD__DW3_T(a2, k3, k4, k5);
            MMD__DW3_IN(6), MMD__DW3_EVEN(a3, a2);
            MMD__DW3_IN(7), MMD__DW3_T(a3, k3, k4, k5);
            MMD__DW3_IN(8), MMD__DW3_EVEN(a4, a3);
            MMD__DW3_IN(9), MMD__DW3_T(a4, k3, k4, k5);
            MMD__DW3_IN(10), MMD__DW3_EVEN(a5, a4);
            MMD__DW3_IN(11), MMD__DW3_T(a5, k3, k4, k5);
            MMD__DW3_IN(12), MMD__DW3_EVEN(a6, a5);
            MMD__DW3_IN(13), MMD__DW3_T(a6, k3, k4, k5);
            MMD__DW3_IN(14), MMD__DW3_EVEN(a7, a6);
            MMD__DW3_IN(15), MMD__DW3_T(a7, k3, k4, k5);
            MMD__DW3_IN(16), MMD__DW3_T(a7, k6, k7, k8);
#undef MMD__DW3_EVEN
#undef MMD__DW3_T
#undef MMD__DW3_IN
            MMD__DW3_STORE;
        }
    if (!in_regs) mmd__act_avx512_f32(act, y, y, oh * ow);
}

/* 5x5, stride 1, dilation 1 (MobileNetV3's depthwise layers), read in place as
   mmd__dw_rows3_avx512 reads 3x3: eight output rows of one column vector at a time, each of the
   twelve input rows they read loaded once as five shifted vectors (masked loads, the padding
   zeros) for the up to five output rows that take it (60 loads for 200 multiply-adds, where the
   tile loop of mmd__dw_rows_avx512 loads once per multiply-add). The 25 weights are broadcast
   once per call; those the compiler keeps out of registers become memory operands of the
   multiply-adds. Same tap order, so the same values; Z, Relu and Clip are applied before the
   store, any other activation after. */
MMD__TARGET_AVX512 static void mmd__dw_rows5_avx512(float *y, const float *z, const float *x, const mmd__window *w,
                                                    const float *k, float bias, const mmd__act *act) {
    __m512 kv[25], lo, hi;
    const int32_t in_regs = mmd__dw_bounds_avx512(act, &lo, &hi);
    int64_t ih = w->in[1], iw = w->in[2], rows = w->out[1], ow = w->out[2], r0, v, i;
    int32_t in;
    for (i = 0; i < 25; ++i) kv[i] = _mm512_set1_ps(k[i]);
    for (r0 = 0; r0 < rows; r0 += 8)
        for (v = 0; v < ow; v += 16) {
            __m512 a0 = _mm512_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            __m512 x0, x1, x2, x3, x4;
            const int64_t c0 = v - w->pad[2], top = r0 - w->pad[1];
            const __mmask16 m = MMD__MASK16(v, ow), m0 = mmd__lanes16(c0, iw), m1 = mmd__lanes16(c0 + 1, iw);
            const __mmask16 m2 = mmd__lanes16(c0 + 2, iw), m3 = mmd__lanes16(c0 + 3, iw), m4 = mmd__lanes16(c0 + 4, iw);
            int64_t cnt = rows - r0 < 8 ? rows - r0 : 8, at = r0 * ow + v;
            const float *p;
/* Input row top + ir (zeros outside the plane) as five shifted vectors. */
#define MMD__DW5_IN(ir)                                                                                   \
    i = top + (ir), in = i >= 0 && i < ih, p = x + (in ? i : 0) * iw + c0,                                \
    x0 = _mm512_maskz_loadu_ps(in ? m0 : 0, p), x1 = _mm512_maskz_loadu_ps(in ? m1 : 0, p + 1),          \
    x2 = _mm512_maskz_loadu_ps(in ? m2 : 0, p + 2), x3 = _mm512_maskz_loadu_ps(in ? m3 : 0, p + 3),      \
    x4 = _mm512_maskz_loadu_ps(in ? m4 : 0, p + 4)
/* Kernel row t of the sum a: the taps (t, 0) to (t, 4) in order. */
#define MMD__DW5_T(a, t)                                                                         \
    a = _mm512_fmadd_ps(kv[5 * (t)], x0, a), a = _mm512_fmadd_ps(kv[5 * (t) + 1], x1, a),       \
    a = _mm512_fmadd_ps(kv[5 * (t) + 2], x2, a), a = _mm512_fmadd_ps(kv[5 * (t) + 3], x3, a),   \
    a = _mm512_fmadd_ps(kv[5 * (t) + 4], x4, a)
#define MMD__DW5_ROW(a, b, c, d, e) MMD__DW5_T(a, 0), MMD__DW5_T(b, 1), MMD__DW5_T(c, 2), MMD__DW5_T(d, 3), MMD__DW5_T(e, 4)
            MMD__DW5_IN(0), MMD__DW5_T(a0, 0);
            MMD__DW5_IN(1), MMD__DW5_T(a1, 0), MMD__DW5_T(a0, 1);
            MMD__DW5_IN(2), MMD__DW5_T(a2, 0), MMD__DW5_T(a1, 1), MMD__DW5_T(a0, 2);
            MMD__DW5_IN(3), MMD__DW5_T(a3, 0), MMD__DW5_T(a2, 1), MMD__DW5_T(a1, 2), MMD__DW5_T(a0, 3);
            MMD__DW5_IN(4), MMD__DW5_ROW(a4, a3, a2, a1, a0);
            MMD__DW5_IN(5), MMD__DW5_ROW(a5, a4, a3, a2, a1);
            MMD__DW5_IN(6), MMD__DW5_ROW(a6, a5, a4, a3, a2);
            MMD__DW5_IN(7), MMD__DW5_ROW(a7, a6, a5, a4, a3);
            MMD__DW5_IN(8), MMD__DW5_T(a7, 1), MMD__DW5_T(a6, 2), MMD__DW5_T(a5, 3), MMD__DW5_T(a4, 4);
            MMD__DW5_IN(9), MMD__DW5_T(a7, 2), MMD__DW5_T(a6, 3), MMD__DW5_T(a5, 4);
            MMD__DW5_IN(10), MMD__DW5_T(a7, 3), MMD__DW5_T(a6, 4);
            MMD__DW5_IN(11), MMD__DW5_T(a7, 4);
#undef MMD__DW5_ROW
#undef MMD__DW5_IN
            MMD__DW3_STORE;
        }
    if (!in_regs) mmd__act_avx512_f32(act, y, y, rows * ow);
}

/* 5x5, stride 2, dilation 1: eight output rows of one column vector at a time, each of the
   nineteen input rows they read loaded once (in place, as mmd__dw_rows3s2_avx512 reads them) and
   split into its five taps' vectors (evens, odds, and both a lane on, the 33rd to 35th inputs
   brought in as mmd__dw_rows3s2_avx512 brings the 33rd) for the up to three output rows that
   read it. Same tap order, so the same values. */
MMD__TARGET_AVX512 static void mmd__dw_rows5s2_avx512(float *y, const float *z, const float *x, const mmd__window *w,
                                                      const float *k, float bias, const mmd__act *act) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    __m512 kv[25], lo, hi;
    const int32_t in_regs = mmd__dw_bounds_avx512(act, &lo, &hi);
    int64_t ih = w->in[1], iw = w->in[2], rows = w->out[1], ow = w->out[2], r0, v, i;
    int32_t in;
    for (i = 0; i < 25; ++i) kv[i] = _mm512_set1_ps(k[i]);
    for (r0 = 0; r0 < rows; r0 += 8)
        for (v = 0; v < ow; v += 16) {
            __m512 a0 = _mm512_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            __m512 x0, x1, x2, x3, x4, lo16, hi16;
            const int64_t c0 = 2 * v - w->pad[2], top = 2 * r0 - w->pad[1];
            const __mmask16 m = MMD__MASK16(v, ow), ma = mmd__lanes16(c0, iw), mb = mmd__lanes16(c0 + 16, iw);
            const __mmask16 m32 = mmd__lanes16(c0 + 32, iw) & 1u, m33 = mmd__lanes16(c0 + 33, iw) & 1u;
            const __mmask16 m34 = mmd__lanes16(c0 + 34, iw) & 1u;
            int64_t cnt = rows - r0 < 8 ? rows - r0 : 8, at = r0 * ow + v;
            const float *p;
            /* The next tile's sixteen new rows, these columns (see mmd__dw_rows3s2_avx512). */
            for (i = top + 19 > 0 ? top + 19 : 0; i < top + 35 && i < ih; ++i) {
                _mm_prefetch((const char *)(x + i * iw + 2 * v), _MM_HINT_T0);
                _mm_prefetch((const char *)(x + i * iw + 2 * v + 16), _MM_HINT_T0);
            }
/* x a lane on, with the input at q (lane mask mq) last. */
#define MMD__DW5_NEXT(x, q, mq) \
    _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(_mm512_maskz_loadu_ps(in ? mq : 0, q)), _mm512_castps_si512(x), 1))
#define MMD__DW5_IN(ir)                                                                                    \
    i = top + (ir), in = i >= 0 && i < ih, p = x + (in ? i : 0) * iw + c0,                                 \
    lo16 = _mm512_maskz_loadu_ps(in ? ma : 0, p), hi16 = _mm512_maskz_loadu_ps(in ? mb : 0, p + 16),       \
    x0 = _mm512_permutex2var_ps(lo16, even, hi16), x1 = _mm512_permutex2var_ps(lo16, odd, hi16),           \
    x2 = MMD__DW5_NEXT(x0, p + 32, m32), x3 = MMD__DW5_NEXT(x1, p + 33, m33), x4 = MMD__DW5_NEXT(x2, p + 34, m34)
            MMD__DW5_IN(0), MMD__DW5_T(a0, 0);
            MMD__DW5_IN(1), MMD__DW5_T(a0, 1);
            MMD__DW5_IN(2), MMD__DW5_T(a1, 0), MMD__DW5_T(a0, 2);
            MMD__DW5_IN(3), MMD__DW5_T(a1, 1), MMD__DW5_T(a0, 3);
            MMD__DW5_IN(4), MMD__DW5_T(a2, 0), MMD__DW5_T(a1, 2), MMD__DW5_T(a0, 4);
            MMD__DW5_IN(5), MMD__DW5_T(a2, 1), MMD__DW5_T(a1, 3);
            MMD__DW5_IN(6), MMD__DW5_T(a3, 0), MMD__DW5_T(a2, 2), MMD__DW5_T(a1, 4);
            MMD__DW5_IN(7), MMD__DW5_T(a3, 1), MMD__DW5_T(a2, 3);
            MMD__DW5_IN(8), MMD__DW5_T(a4, 0), MMD__DW5_T(a3, 2), MMD__DW5_T(a2, 4);
            MMD__DW5_IN(9), MMD__DW5_T(a4, 1), MMD__DW5_T(a3, 3);
            MMD__DW5_IN(10), MMD__DW5_T(a5, 0), MMD__DW5_T(a4, 2), MMD__DW5_T(a3, 4);
            MMD__DW5_IN(11), MMD__DW5_T(a5, 1), MMD__DW5_T(a4, 3);
            MMD__DW5_IN(12), MMD__DW5_T(a6, 0), MMD__DW5_T(a5, 2), MMD__DW5_T(a4, 4);
            MMD__DW5_IN(13), MMD__DW5_T(a6, 1), MMD__DW5_T(a5, 3);
            MMD__DW5_IN(14), MMD__DW5_T(a7, 0), MMD__DW5_T(a6, 2), MMD__DW5_T(a5, 4);
            MMD__DW5_IN(15), MMD__DW5_T(a7, 1), MMD__DW5_T(a6, 3);
            MMD__DW5_IN(16), MMD__DW5_T(a7, 2), MMD__DW5_T(a6, 4);
            MMD__DW5_IN(17), MMD__DW5_T(a7, 3);
            MMD__DW5_IN(18), MMD__DW5_T(a7, 4);
#undef MMD__DW5_IN
#undef MMD__DW5_NEXT
            MMD__DW3_STORE;
        }
    if (!in_regs) mmd__act_avx512_f32(act, y, y, rows * ow);
}
#undef MMD__DW5_T

#undef MMD__DW3_STORE

/* Output rows [0, rows) of one depthwise channel, stride 1 or 2: output row r's taps read the
   padded input rows in + (r * sh + t1 * dh) * len (3x3 and 5x5 undilated read in place, see
   mmd__dw_inplace). The rows' vectors go eight at a time (a
   tile may span rows, so that narrow planes keep eight sums in flight too), each sum over
   every tap in order in registers; Z is added and Relu or Clip applied before the store, any
   other activation over the finished rows with mmd__act's vector path (the same formulas). */
MMD__TARGET_AVX512 static void mmd__dw_rows_avx512(float *y, const float *z, const float *in, int64_t len, int64_t rows,
                                                   int64_t ow, const mmd__window *w, const float *k, float bias,
                                                   const mmd__act *act) {
    int64_t kh = w->k[1], kw = w->k[2], sh = w->s[1], s = w->s[2], dh = w->d[1], dw = w->d[2];
    int64_t per = (ow + 15) / 16, total = rows * per, q, r = 0, v = 0, t1, t2, off[8], at[8];
    int32_t i, cnt;
    __m512 lo, hi;
    const int32_t in_regs = mmd__dw_bounds_avx512(act, &lo, &hi);
    __mmask16 m[8];
    for (q = 0; q < total; q += 8) {
        __m512 a0 = _mm512_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        cnt = total - q < 8 ? (int32_t)(total - q) : 8;
        /* Vector i of the tile: row r, outputs from 16 v; a short tile repeats its first. */
        for (i = 0; i < 8; ++i) {
            if (i < cnt) {
                off[i] = r * sh * len + s * 16 * v;
                at[i] = r * ow + 16 * v;
                m[i] = MMD__MASK16(16 * v, ow);
                if (++v == per) v = 0, ++r;
            } else {
                off[i] = off[0];
            }
        }
        for (t1 = 0; t1 < kh; ++t1)
            for (t2 = 0; t2 < kw; ++t2) {
                const float *p = in + t1 * dh * len + t2 * dw;
                __m512 wv = _mm512_set1_ps(k[t1 * kw + t2]);
                if (s == 1) {
                    a0 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[0]), a0);
                    a1 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[1]), a1);
                    a2 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[2]), a2);
                    a3 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[3]), a3);
                    a4 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[4]), a4);
                    a5 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[5]), a5);
                    a6 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[6]), a6);
                    a7 = _mm512_fmadd_ps(wv, _mm512_loadu_ps(p + off[7]), a7);
                } else {
                    a0 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[0]), a0);
                    a1 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[1]), a1);
                    a2 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[2]), a2);
                    a3 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[3]), a3);
                    a4 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[4]), a4);
                    a5 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[5]), a5);
                    a6 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[6]), a6);
                    a7 = _mm512_fmadd_ps(wv, mmd__dw_even_avx512(p + off[7]), a7);
                }
            }
        for (i = 0; i < cnt; ++i) {
            __m512 a = i == 0 ? a0 : i == 1 ? a1 : i == 2 ? a2 : i == 3 ? a3 : i == 4 ? a4 : i == 5 ? a5 : i == 6 ? a6 : a7;
            mmd__dw_store_avx512(y + at[i], z ? z + at[i] : NULL, m[i], a, lo, hi);
        }
    }
    if (!in_regs) mmd__act_avx512_f32(act, y, y, rows * ow);
}

/* DEPTHWISE on whole planes (mmd__dw_inplace): the taps' offsets in a plane of ih x iw, off[t] =
   dy * iw + dx for tap t at row offset dy and column offset dx, and the mask of each tap of each
   vector of the flat plane, mask[v * taps + t]: the lanes of positions 16 v + l < ih * iw whose
   input (r + dy, c + dx) lies in the plane. Lane rows and columns are stepped 16 positions at a
   time; offsets beyond the plane are clamped to it, which masks the same lanes. */
MMD__TARGET_AVX512 static void mmd__dw_plane_masks_avx512(__mmask16 *mask, int64_t *off, const mmd__window *w) {
    int64_t ih = w->in[1], iw = w->in[2], n = ih * iw, kh = w->k[1], kw = w->k[2], v, t1, t2;
    int32_t rc[32], l;
    __m512i r, c;
    for (l = 0; l < 16; ++l) rc[l] = (int32_t)(l / iw), rc[16 + l] = (int32_t)(l % iw);
    r = _mm512_loadu_si512((const void *)rc);
    c = _mm512_loadu_si512((const void *)(rc + 16));
    for (t1 = 0; t1 < kh; ++t1)
        for (t2 = 0; t2 < kw; ++t2)
            off[t1 * kw + t2] = (t1 * w->d[1] - w->pad[1]) * iw + t2 * w->d[2] - w->pad[2];
    for (v = 0; 16 * v < n; ++v) {
        __mmask16 wrap;
        for (t1 = 0; t1 < kh; ++t1) {
            int64_t dy = t1 * w->d[1] - w->pad[1];
            int32_t d = (int32_t)(dy < -ih ? -ih : dy > ih ? ih : dy);
            __mmask16 rm = MMD__MASK16(16 * v, n) & _mm512_cmpge_epi32_mask(r, _mm512_set1_epi32(-d)) &
                           _mm512_cmplt_epi32_mask(r, _mm512_set1_epi32((int32_t)ih - d));
            for (t2 = 0; t2 < kw; ++t2) {
                int64_t dx = t2 * w->d[2] - w->pad[2];
                int32_t e = (int32_t)(dx < -iw ? -iw : dx > iw ? iw : dx);
                mask[(v * kh + t1) * kw + t2] = rm & _mm512_cmpge_epi32_mask(c, _mm512_set1_epi32(-e)) &
                                                _mm512_cmplt_epi32_mask(c, _mm512_set1_epi32((int32_t)iw - e));
            }
        }
        c = _mm512_add_epi32(c, _mm512_set1_epi32((int32_t)(16 % iw)));
        r = _mm512_add_epi32(r, _mm512_set1_epi32((int32_t)(16 / iw)));
        wrap = _mm512_cmpge_epi32_mask(c, _mm512_set1_epi32((int32_t)iw));
        c = _mm512_mask_sub_epi32(c, wrap, c, _mm512_set1_epi32((int32_t)iw));
        r = _mm512_mask_add_epi32(r, wrap, r, _mm512_set1_epi32(1));
    }
}

/* DEPTHWISE at stride 2 in place (mmd__dw_inplace 2): for kernel column t of output lane l (output
   column l % 8 of the first row of a pair below 8, of the second from 8), the input column
   2 (l % 8) + t dw - pad's lane in the two input rows permuted together (the first row's lanes
   0-15, the second's 16-31), idx[t], and the lanes that read inside the row, mask[t]. */
MMD__TARGET_AVX512 static void mmd__dw_pairs_masks_avx512(__m512i *idx, __mmask16 *mask, const mmd__window *w) {
    int32_t v[16], t, l;
    for (t = 0; t < w->k[2]; ++t) {
        mask[t] = 0;
        for (l = 0; l < 16; ++l) {
            int64_t col = 2 * (l % 8) + t * w->d[2] - w->pad[2];
            int32_t in = l % 8 < w->out[2] && col >= 0 && col < w->in[2];
            v[l] = in ? (int32_t)col + (l < 8 ? 0 : 16) : 0;
            if (in) mask[t] |= (__mmask16)(1u << l);
        }
        idx[t] = _mm512_loadu_si512((const void *)v);
    }
}

/* One channel at stride 2 on rows of up to 16 inputs and 8 outputs, read in place: a vector holds
   output rows r (lanes 0-7) and r + 1 (lanes 8-15); each kernel row loads the two input rows they
   read, each one masked vector (rows outside the plane are zeros), and each tap permutes its
   inputs out of the pair (mmd__dw_pairs_masks_avx512, the padding masked to zeros). The taps go
   in order from the bias, as mmd__dw_rows_avx512 takes them, so the same values. */
MMD__TARGET_AVX512 static void mmd__dw_pairs_avx512(float *y, const float *z, const float *x, const mmd__window *w,
                                                    const __m512i *idx, const __mmask16 *mask, const float *k,
                                                    float bias, const mmd__act *act) {
    __m512 lo, hi;
    const int32_t in_regs = mmd__dw_bounds_avx512(act, &lo, &hi);
    int64_t ih = w->in[1], iw = w->in[2], oh = w->out[1], ow = w->out[2], kh = w->k[1], kw = w->k[2], r, t1, t2;
    const __mmask16 row = MMD__MASK16(0, iw), out = MMD__MASK16(0, ow);
    /* 3x3 undilated (MobileNets'): the weights, permutations and masks held in registers (other
       kernels, which the loop over the taps below takes, read only their first here). */
    const int32_t three = kh == 3 && kw == 3 && w->d[1] == 1;
    const __m512 k0 = _mm512_set1_ps(k[0]), k1 = _mm512_set1_ps(k[three ? 1 : 0]), k2 = _mm512_set1_ps(k[three ? 2 : 0]);
    const __m512 k3 = _mm512_set1_ps(k[three ? 3 : 0]), k4 = _mm512_set1_ps(k[three ? 4 : 0]);
    const __m512 k5 = _mm512_set1_ps(k[three ? 5 : 0]), k6 = _mm512_set1_ps(k[three ? 6 : 0]);
    const __m512 k7 = _mm512_set1_ps(k[three ? 7 : 0]), k8 = _mm512_set1_ps(k[three ? 8 : 0]);
    const __m512i p0 = idx[0], p1 = idx[three ? 1 : 0], p2 = idx[three ? 2 : 0];
    const __mmask16 m0 = mask[0], m1 = mask[three ? 1 : 0], m2 = mask[three ? 2 : 0];
    for (r = 0; r < oh; r += 2) {
        __m512 a = _mm512_set1_ps(bias);
        if (three) {
            const int64_t i0 = 2 * r - w->pad[1];
            __m512 x0, x1;
/* Kernel row t of the pair: its two input rows (zeros outside the plane), then its three taps. */
#define MMD__DWP_ROW(t, w0, w1, w2)                                                                                 \
    x0 = i0 + (t) >= 0 && i0 + (t) < ih ? _mm512_maskz_loadu_ps(row, x + (i0 + (t)) * iw) : _mm512_setzero_ps(),     \
    x1 = r + 1 < oh && i0 + (t) + 2 >= 0 && i0 + (t) + 2 < ih ? _mm512_maskz_loadu_ps(row, x + (i0 + (t) + 2) * iw)  \
                                                              : _mm512_setzero_ps(),                                 \
    a = _mm512_fmadd_ps(w0, _mm512_maskz_permutex2var_ps(m0, x0, p0, x1), a),                                        \
    a = _mm512_fmadd_ps(w1, _mm512_maskz_permutex2var_ps(m1, x0, p1, x1), a),                                        \
    a = _mm512_fmadd_ps(w2, _mm512_maskz_permutex2var_ps(m2, x0, p2, x1), a)
            MMD__DWP_ROW(0, k0, k1, k2), MMD__DWP_ROW(1, k3, k4, k5), MMD__DWP_ROW(2, k6, k7, k8);
#undef MMD__DWP_ROW
        }
        for (t1 = 0; t1 < (three ? 0 : kh); ++t1) {
            int64_t i0 = 2 * r + t1 * w->d[1] - w->pad[1], i1 = i0 + 2;
            const __m512 x0 = i0 >= 0 && i0 < ih ? _mm512_maskz_loadu_ps(row, x + i0 * iw) : _mm512_setzero_ps();
            const __m512 x1 = r + 1 < oh && i1 >= 0 && i1 < ih ? _mm512_maskz_loadu_ps(row, x + i1 * iw) : _mm512_setzero_ps();
            for (t2 = 0; t2 < kw; ++t2)
                a = _mm512_fmadd_ps(_mm512_set1_ps(k[t1 * kw + t2]), _mm512_maskz_permutex2var_ps(mask[t2], x0, idx[t2], x1), a);
        }
        mmd__dw_store_avx512(y + r * ow, z ? z + r * ow : NULL, out, a, lo, hi);
        if (r + 1 < oh)
            mmd__dw_store_avx512(y + (r + 1) * ow, z ? z + (r + 1) * ow : NULL, out, _mm512_shuffle_f32x4(a, a, 0xee), lo, hi);
    }
    if (!in_regs) mmd__act_avx512_f32(act, y, y, oh * ow);
}

/* One channel's whole plane of n floats at stride 1, read in place: the output vector at 16 v
   sums tap t from x + 16 v + off[t] under mask[v * taps + t] (masked-off lanes, the padding, read
   as zeros and touch no memory), four vectors at a time. The taps go in order from the bias, as
   mmd__dw_rows_avx512 takes them over its zero-padded rows, so the same values; Z, Relu and Clip
   are applied before the store, any other activation after. */
MMD__TARGET_AVX512 static void mmd__dw_plane_avx512(float *y, const float *z, const float *x, int64_t n,
                                                    const __mmask16 *mask, const int64_t *off, int64_t taps,
                                                    const float *k, float bias, const mmd__act *act) {
    __m512 lo, hi;
    const int32_t in_regs = mmd__dw_bounds_avx512(act, &lo, &hi);
    int64_t nv = (n + 15) / 16, v, t, i;
    for (v = 0; v + 4 <= nv; v += 4) {
        const __mmask16 *m = mask + v * taps;
        const float *q = x + 16 * v;
        __m512 a0 = _mm512_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0;
        for (t = 0; t < taps; ++t) {
            const __m512 wv = _mm512_set1_ps(k[t]);
            const float *p = q + off[t];
            a0 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m[t], p), a0);
            a1 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m[taps + t], p + 16), a1);
            a2 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m[2 * taps + t], p + 32), a2);
            a3 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m[3 * taps + t], p + 48), a3);
        }
        for (i = 0; i < 4; ++i) {
            int64_t at = 16 * (v + i);
            mmd__dw_store_avx512(y + at, z ? z + at : NULL, MMD__MASK16(at, n), i == 0 ? a0 : i == 1 ? a1 : i == 2 ? a2 : a3,
                                 lo, hi);
        }
    }
    for (; v < nv; ++v) {
        const __mmask16 *m = mask + v * taps;
        __m512 a = _mm512_set1_ps(bias);
        for (t = 0; t < taps; ++t)
            a = _mm512_fmadd_ps(_mm512_set1_ps(k[t]), _mm512_maskz_loadu_ps(m[t], x + 16 * v + off[t]), a);
        mmd__dw_store_avx512(y + 16 * v, z ? z + 16 * v : NULL, MMD__MASK16(16 * v, n), a, lo, hi);
    }
    if (!in_regs) mmd__act_avx512_f32(act, y, y, n);
}
#endif

#if defined(MMD__NEON)
static void mmd__dw_row_neon(float *o, const float *const *p, const float *w, int64_t taps, float bias, int64_t n,
                             int64_t s) {
    int64_t j = 0, t;
    if (s == 1) {
        for (; j + 8 <= n; j += 8) {
            float32x4_t a0 = vdupq_n_f32(bias), a1 = a0;
            for (t = 0; t < taps; ++t) {
                a0 = vfmaq_n_f32(a0, vld1q_f32(p[t] + j), w[t]);
                a1 = vfmaq_n_f32(a1, vld1q_f32(p[t] + j + 4), w[t]);
            }
            vst1q_f32(o + j, a0);
            vst1q_f32(o + j + 4, a1);
        }
    } else {
        /* vld2q splits 8 inputs into evens and odds; the last output reads p[t][2n - 2] only. */
        for (; j + 4 < n; j += 4) {
            float32x4_t a0 = vdupq_n_f32(bias);
            for (t = 0; t < taps; ++t) a0 = vfmaq_n_f32(a0, vld2q_f32(p[t] + 2 * j).val[0], w[t]);
            vst1q_f32(o + j, a0);
        }
    }
    for (; j < n; ++j) {
        float acc = bias;
        for (t = 0; t < taps; ++t) acc = fmaf(w[t], p[t][j * s], acc);
        o[j] = acc;
    }
}
#endif

#endif


#ifndef MMD_CONV_SMALL
/* DIRECT: one (image, group) pair, its output channels four at a time. */
static void mmd__conv_direct_task(void *data, int32_t index) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t in_plane = w->in[0] * w->in[1] * w->in[2], out_plane = w->out[0] * w->out[1] * w->out[2];
    int64_t ksize = w->k[0] * w->k[1] * w->k[2], cg = p->in_ch / p->group, mg = p->out_ch / p->group;
    int64_t b = index / p->group, g = index % p->group, m, ci, i;
    for (m = g * mg; m < (g + 1) * mg; m += 4) {
        int32_t nm = (int32_t)((g + 1) * mg - m < 4 ? (g + 1) * mg - m : 4), k;
        float *yp = j->y + (b * p->out_ch + m) * out_plane;
        const float *xg = j->x + (b * p->in_ch + g * cg) * in_plane;
        for (k = 0; k < nm; ++k) {
            float init = j->bias ? j->bias[m + k] : 0.0f;
            for (i = 0; i < out_plane; ++i) yp[k * out_plane + i] = init;
        }
        for (ci = 0; ci < cg; ++ci)
            mmd__conv_plane_f32(w, j->range, xg + ci * in_plane, j->wt + (m * cg + ci) * ksize, cg * ksize,
                                nm, yp, out_plane);
        for (k = 0; k < nm; ++k) {
            float *yk = yp + k * out_plane;
            if (j->z)
                for (i = 0; i < out_plane; ++i) yk[i] += j->z[(b * p->out_ch + m + k) * out_plane + i];
            mmd__act_f32(&p->act, yk, out_plane);
        }
    }
}

#if defined(MMD__X86)
/* mmd__row_phases2 on AVX-512: thirty-two columns at a time, two loads and one two-source
   permute per phase, the last columns under masks. GCC made the portable loop's odd phase
   scalar moves: in STEM's bands that copy took 0.86x the samples of MobileNetV2's stem FMAs
   (perf, in-model). A copy, so the same floats. With o NULL (an even pad) only the even
   columns are stored: a strided 1x1 convolution's subsampling (mmd__conv_sub_range). */
MMD__TARGET_AVX512 static void mmd__row_phases2_avx512(const float *src, int64_t iw, int64_t pad, float *e, float *o) {
    const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    int64_t ix = 0, u, n;
    __m512 a, b;
    if (pad % 2) o[pad / 2] = src[0], ix = 1;
    for (u = (ix + pad) / 2; ix + 32 <= iw; ix += 32, u += 16) {
        a = _mm512_loadu_ps(src + ix), b = _mm512_loadu_ps(src + ix + 16);
        _mm512_storeu_ps(e + u, _mm512_permutex2var_ps(a, ev, b));
        if (o) _mm512_storeu_ps(o + u, _mm512_permutex2var_ps(a, od, b));
    }
    if ((n = iw - ix) <= 0) return;
    a = _mm512_maskz_loadu_ps(MMD__MASK16(0, n), src + ix);
    b = n > 16 ? _mm512_maskz_loadu_ps(MMD__MASK16(16, n), src + ix + 16) : _mm512_setzero_ps();
    _mm512_mask_storeu_ps(e + u, MMD__MASK16(0, (n + 1) / 2), _mm512_permutex2var_ps(a, ev, b));
    if (n > 1 && o) _mm512_mask_storeu_ps(o + u, MMD__MASK16(0, n / 2), _mm512_permutex2var_ps(a, od, b));
}
#endif

#if defined(MMD__X86)
/* The four column phases of one padded row (WINOGRAD's rows of phases) on AVX-512: column
   x = ix + pad goes to phase x % 4 at x / 4, the phases pstride floats apart from row on. The
   columns before the first of phase 0 one by one, then sixty-four at a time: per phase, one
   two-source permute gathers its eight columns of the first thirty-two into the low half,
   another those of the last thirty-two into the high half, and a blend joins them; the last
   columns under masks. The portable loop, one phase at a time with a stride of four, took
   3.4% of ResNet-18's run at one thread (perf). A copy, so the same floats. */
MMD__TARGET_AVX512 static void mmd__row_phases4_avx512(const float *src, int64_t iw, int64_t pad, float *row,
                                                       int64_t pstride) {
    /* Phase q's indices: phase 0's plus q, in registers of their own (in arrays indexed by q
       GCC kept them on the stack and reloaded them on every row). */
    const __m512i l0 = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i h0 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 8, 12, 16, 20, 24, 28);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i l1 = _mm512_add_epi32(l0, one), l2 = _mm512_add_epi32(l1, one), l3 = _mm512_add_epi32(l2, one);
    const __m512i h1 = _mm512_add_epi32(h0, one), h2 = _mm512_add_epi32(h1, one), h3 = _mm512_add_epi32(h2, one);
    int64_t ix = 0, u = pad / 4, n;
    int32_t q = (int32_t)(pad % 4);
    __m512 a, b, c, d;
#define MMD__PHASE4(Q) \
    _mm512_mask_blend_ps((__mmask16)0xff00, _mm512_permutex2var_ps(a, l##Q, b), _mm512_permutex2var_ps(c, h##Q, d))
    for (; q && q < 4 && ix < iw; ++q, ++ix) row[q * pstride + u] = src[ix];
    if (q) ++u;
    for (; ix + 64 <= iw; ix += 64, u += 16) {
        a = _mm512_loadu_ps(src + ix), b = _mm512_loadu_ps(src + ix + 16);
        c = _mm512_loadu_ps(src + ix + 32), d = _mm512_loadu_ps(src + ix + 48);
        _mm512_storeu_ps(row + u, MMD__PHASE4(0));
        _mm512_storeu_ps(row + pstride + u, MMD__PHASE4(1));
        _mm512_storeu_ps(row + 2 * pstride + u, MMD__PHASE4(2));
        _mm512_storeu_ps(row + 3 * pstride + u, MMD__PHASE4(3));
    }
    if ((n = iw - ix) > 0) {
        a = _mm512_maskz_loadu_ps(MMD__MASK16(0, n), src + ix);
        b = n > 16 ? _mm512_maskz_loadu_ps(MMD__MASK16(16, n), src + ix + 16) : _mm512_setzero_ps();
        c = n > 32 ? _mm512_maskz_loadu_ps(MMD__MASK16(32, n), src + ix + 32) : _mm512_setzero_ps();
        d = n > 48 ? _mm512_maskz_loadu_ps(MMD__MASK16(48, n), src + ix + 48) : _mm512_setzero_ps();
        /* Phase q takes (n - q + 3) / 4 of the last n columns. */
        _mm512_mask_storeu_ps(row + u, MMD__MASK16(0, (n + 3) / 4), MMD__PHASE4(0));
        if (n > 1) _mm512_mask_storeu_ps(row + pstride + u, MMD__MASK16(0, (n + 2) / 4), MMD__PHASE4(1));
        if (n > 2) _mm512_mask_storeu_ps(row + 2 * pstride + u, MMD__MASK16(0, (n + 1) / 4), MMD__PHASE4(2));
        if (n > 3) _mm512_mask_storeu_ps(row + 3 * pstride + u, MMD__MASK16(0, n / 4), MMD__PHASE4(3));
    }
#undef MMD__PHASE4
}
#endif

/* Stride 2's column phases of one padded row (SHIFTED's planes, DEPTHWISE's flat 2): input row
   src of iw floats into the even and odd columns of its padded row (column c = ix + pad goes to
   e or o by c % 2, at c / 2). An odd pad puts column 0 in the odd plane; then pairs, sixteen
   and then eight columns at a time (loops of constant trip count, which GCC's -O2 vectorises
   into two loads and two shuffles per eight columns, where e, o and src are restrict: through
   a local array the odd columns stayed scalar, and MobileNetV2's 112x112 stride-2 depthwise
   layer ran 0.47 ms instead of 0.37, best of 200, MMD_NO_SIMD), then the pairs and the column
   left; on AVX-512, mmd__row_phases2_avx512. */
static void mmd__row_phases2(int32_t isa, const float *MMD__RESTRICT src, int64_t iw, int64_t pad,
                             float *MMD__RESTRICT e, float *MMD__RESTRICT o) {
    int64_t ix = 0, u;
    int32_t l;
#if defined(MMD__X86)
    if (isa == MMD__ISA_AVX512) {
        mmd__row_phases2_avx512(src, iw, pad, e, o);
        return;
    }
#endif
    (void)isa;
    if (pad % 2) o[pad / 2] = src[0], ix = 1;
    for (u = (ix + pad) / 2; ix + 16 <= iw; ix += 16, u += 8)
        for (l = 0; l < 8; ++l) e[u + l] = src[ix + 2 * l], o[u + l] = src[ix + 2 * l + 1];
    for (; ix + 8 <= iw; ix += 8, u += 4)
        for (l = 0; l < 4; ++l) e[u + l] = src[ix + 2 * l], o[u + l] = src[ix + 2 * l + 1];
    for (; ix + 1 < iw; ix += 2, ++u) e[u] = src[ix], o[u] = src[ix + 1];
    if (ix < iw) e[u] = src[ix];
}

/* Input row src of iw floats into the column phases of its zero-padded row (SHIFTED's planes,
   STEM's bands): column x = ix + x0 of the padded row goes to phase x % s2 at x / s2, the
   phases pstride floats apart from row on. */
static void mmd__row_phases(int32_t isa, const float *src, int64_t iw, int64_t x0, int64_t s2, float *row, int64_t pstride) {
    int64_t ph, q, rem, at;
    if (s2 == 1) {
        memcpy(row + x0, src, (size_t)iw * sizeof(float));
        return;
    }
    if (s2 == 2) {
        mmd__row_phases2(isa, src, iw, x0, row, row + pstride);
        return;
    }
#if defined(MMD__X86)
    if (s2 == 4 && isa == MMD__ISA_AVX512) {
        mmd__row_phases4_avx512(src, iw, x0, row, pstride);
        return;
    }
#endif
    /* Per phase, input columns ph - x0 (mod s2) onwards, s2 apart. Input column 0 is in
       phase x0 % s2 at x0 / s2, so phase ph starts at input column ph - x0 % s2 (plus s2 below
       it, and then one place further on): two divisions per row, none per phase. */
    rem = x0 % s2;
    at = x0 / s2;
    for (ph = 0; ph < s2; ++ph) {
        int64_t first = ph >= rem ? ph - rem : ph - rem + s2;
        float *d = row + ph * pstride + at + (ph < rem);
        for (q = 0; first + q * s2 < iw; ++q) d[q] = src[first + q * s2];
    }
}

/* Asks for the lines of n floats from src (MMD__PREFETCH; nothing without it). The strided
   convolutions' copies (mmd__conv_pad_range, mmd__conv_sub_range) ask for the next channel's
   row while copying this one's: in ResNet-18 their input has left L2 by the time they read it
   (the 1x1 downsample reads the block's input after its 3x3 convolution has streamed its
   phase planes and weights through), and the rows they read are too short and, for the 1x1,
   too far apart for the hardware prefetchers. */
static void mmd__prefetch_floats(const float *src, int64_t n) {
#ifdef MMD__HAS_PREFETCH
    const char *at = (const char *)src, *end = (const char *)(src + n);
    for (; at < end; at += 64) MMD__PREFETCH(at);
    MMD__PREFETCH(end - 1);
#else
    (void)src, (void)n;
#endif
}

/* SHIFTED: input channels [lo, hi) of the group into their zero-padded phase planes. Padded
   row y is row y / s1 of phases (y % s1, 0..s2-1), each hp * wp floats. Only what the input
   rows do not cover is zeroed (the padding rows, the padding columns of the input rows and the
   slack after the last phase): a memset of the whole plane first was 6% of ResNet-18's
   stride-2 layers (bench_conv --cold), writing every float twice. */
static void mmd__conv_pad_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t ch, y, x, s1 = w->s[1], s2 = w->s[2], iw = w->in[2], ph = p->hp * p->wp, phases = s1 * s2 * ph;
    (void)share;
    for (ch = lo; ch < hi; ++ch) {
        const float *src = j->x + ch * w->in[1] * iw;
        float *dst = j->buf + ch * p->plane;
        for (y = 0; y < s1 * p->hp; ++y) {
            float *row = dst + y % s1 * s2 * ph + y / s1 * p->wp;
            if (y < w->pad[1] || y >= w->pad[1] + w->in[1]) {
                for (x = 0; x < s2; ++x) memset(row + x * ph, 0, (size_t)p->wp * sizeof(float));
                continue;
            }
            for (x = 0; x < s2 * p->wp; ++x) {
                if (x == w->pad[2]) x += iw;
                if (x < s2 * p->wp) row[x % s2 * ph + x / s2] = 0.0f;
            }
            if (ch + 1 < hi) mmd__prefetch_floats(src + (y - w->pad[1] + w->in[1]) * iw, iw);
            mmd__row_phases(p->isa, src + (y - w->pad[1]) * iw, iw, w->pad[2], s2, row, ph);
        }
        memset(dst + phases, 0, (size_t)(p->plane - phases) * sizeof(float));
    }
}

/* SHIFTED: the GEMM's block of output channels [m0, m1) and columns [n0, n1) (a chunk of
   output rows at the phases' width) to the output's width, adding Z and applying the
   activation when Z has to come first; called while the block is still in cache (ResNet-18's
   first layer writes 3.3 MB of columns, which a copy afterwards read back from memory). */
static void mmd__conv_compact(void *user, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    const mmd__conv_job *j = (const mmd__conv_job *)user;
    const mmd__conv_data *p = j->p;
    int64_t oh = p->w.out[1], ow = p->w.out[2], wp = p->wp, ch, r, i;
    int64_t r1 = (n1 + wp - 1) / wp < oh ? (n1 + wp - 1) / wp : oh;
    for (ch = m0; ch < m1; ++ch)
        for (r = n0 / wp; r < r1; ++r) {
            int64_t x0 = n0 - r * wp > 0 ? n0 - r * wp : 0, x1 = n1 - r * wp < ow ? n1 - r * wp : ow;
            float *dst = j->y + (ch * oh + r) * ow + x0;
            if (x0 >= x1) continue;
            memcpy(dst, j->tmp + ch * p->gn + r * wp + x0, (size_t)(x1 - x0) * sizeof(float));
            if (!j->z) continue;
            for (i = 0; i < x1 - x0; ++i) dst[i] += j->z[(ch * oh + r) * ow + x0 + i];
            mmd__act_f32(&p->act, dst, x1 - x0);
        }
}

#if defined(MMD__X86)
/* One tile: output channels [m, m + nm) and rows [r, r + nr) (nr >= 1; rows past nr repeat the
   last one and are not stored) at columns [x0, x0 + 16) under mask mk. in is the phase planes
   at column x0, off[] the three rows' offsets within a phase plane, a the channels' panel. */
MMD__TARGET_AVX512 static void mmd__stem_tile_avx512(const float *in, const int64_t *rows, int64_t k, const float *a,
                                                     const int64_t *off, float *y, const float *z, int64_t ystep,
                                                     int64_t ow, int32_t nm, int32_t nr, __mmask16 mk,
                                                     const float *bias, const mmd__act *act) {
    __m512 c0_0 = _mm512_setzero_ps(), c0_1 = c0_0, c0_2 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c1_2 = c0_0;
    __m512 c2_0 = c0_0, c2_1 = c0_0, c2_2 = c0_0, c3_0 = c0_0, c3_1 = c0_0, c3_2 = c0_0;
    __m512 c4_0 = c0_0, c4_1 = c0_0, c4_2 = c0_0, c5_0 = c0_0, c5_1 = c0_0, c5_2 = c0_0;
    __m512 c6_0 = c0_0, c6_1 = c0_0, c6_2 = c0_0, c7_0 = c0_0, c7_1 = c0_0, c7_2 = c0_0;
    __m512 acc[MMD__STEM_MR * MMD__STEM_ROWS], al = _mm512_set1_ps(act->alpha), be = _mm512_set1_ps(act->beta);
    const float *i0 = in + off[0], *i1 = in + off[1], *i2 = in + off[2];
    int64_t q;
    int32_t i, r, vec = mmd__act_has_avx512(act->kind);
#define MMD__STEM_ROW(j)                                                                         \
    av = _mm512_set1_ps(a[j]), c##j##_0 = _mm512_fmadd_ps(av, b0, c##j##_0),                   \
    c##j##_1 = _mm512_fmadd_ps(av, b1, c##j##_1), c##j##_2 = _mm512_fmadd_ps(av, b2, c##j##_2)
    for (q = 0; q < k; ++q, a += MMD__STEM_MR) {
        int64_t o = rows[q];
        __m512 b0 = _mm512_loadu_ps(i0 + o), b1 = _mm512_loadu_ps(i1 + o), b2 = _mm512_loadu_ps(i2 + o), av;
        MMD__STEM_ROW(0);
        MMD__STEM_ROW(1);
        MMD__STEM_ROW(2);
        MMD__STEM_ROW(3);
        MMD__STEM_ROW(4);
        MMD__STEM_ROW(5);
        MMD__STEM_ROW(6);
        MMD__STEM_ROW(7);
    }
#undef MMD__STEM_ROW
    /* A whole tile without Z, its activation vectorised (every tile but the last rows' and
       the last panel's): stored straight from the registers, the activation's kind switched
       on in each expansion, where the loop below spills the 24 sums to the stack first; with
       27 taps (the MobileNets' 3x3 stems) that loop was a tenth of the tile's time. */
    if (nm == MMD__STEM_MR && nr == MMD__STEM_ROWS && vec && !z) {
        __m512 bv = _mm512_setzero_ps();
#define MMD__STEM_OUT1(j, r) \
    _mm512_mask_storeu_ps(y + j * ystep + r * ow, mk, \
                          mmd__act_vec_avx512(act->kind, bias ? _mm512_add_ps(c##j##_##r, bv) : c##j##_##r, al, be))
#define MMD__STEM_OUT(j) \
    bv = bias ? _mm512_set1_ps(bias[j]) : bv, MMD__STEM_OUT1(j, 0), MMD__STEM_OUT1(j, 1), MMD__STEM_OUT1(j, 2)
        MMD__STEM_OUT(0);
        MMD__STEM_OUT(1);
        MMD__STEM_OUT(2);
        MMD__STEM_OUT(3);
        MMD__STEM_OUT(4);
        MMD__STEM_OUT(5);
        MMD__STEM_OUT(6);
        MMD__STEM_OUT(7);
#undef MMD__STEM_OUT
#undef MMD__STEM_OUT1
        return;
    }
    /* The bias first, then Z, then the activation, as SHIFTED's product and compaction apply
       them. The sums go to the stack only here: spilled before the whole tile's test above, they
       were 24 stores on every tile. */
    acc[0] = c0_0, acc[1] = c0_1, acc[2] = c0_2, acc[3] = c1_0, acc[4] = c1_1, acc[5] = c1_2;
    acc[6] = c2_0, acc[7] = c2_1, acc[8] = c2_2, acc[9] = c3_0, acc[10] = c3_1, acc[11] = c3_2;
    acc[12] = c4_0, acc[13] = c4_1, acc[14] = c4_2, acc[15] = c5_0, acc[16] = c5_1, acc[17] = c5_2;
    acc[18] = c6_0, acc[19] = c6_1, acc[20] = c6_2, acc[21] = c7_0, acc[22] = c7_1, acc[23] = c7_2;
    for (i = 0; i < nm; ++i)
        for (r = 0; r < nr; ++r) {
            __m512 v = acc[i * MMD__STEM_ROWS + r];
            int64_t at = i * ystep + r * ow;
            if (bias) v = _mm512_add_ps(v, _mm512_set1_ps(bias[i]));
            if (z) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, z + at));
            if (vec) {
                _mm512_mask_storeu_ps(y + at, mk, mmd__act_vec_avx512(act->kind, v, al, be));
                continue;
            }
            _mm512_mask_storeu_ps(y + at, mk, v);
            mmd__act_portable_f32(act, y + at, y + at, __builtin_popcount((unsigned)mk));
        }
}

#endif

/* STEM on the portable ISA: output rows [r0, r1) from the band's phase rows buf (output row r
   at phase row r - r0), each tile the portable micro-kernel's (mmd__gemm_ukernel_c, A spread
   where it takes it, and then six rows a tile below mmd__stem_six, mmd__gemm_ukernel_spread6_c,
   as the product's blocks: each B vector loaded serves six channels instead of four, and a
   row of 32 channels is six tiles instead of eight; MobileNetV2's stem, bench_conv, one thread,
   alternated runs: warm 0.675-0.703 -> 0.597-0.613 ms, --cold --warm-input 0.832-0.859 ->
   0.697-0.717, the DBNet's 2.56-2.66 -> 2.18-2.20; in the model, with Clip, 0.860 -> 0.754 ms
   per node, thread CPU time, medians of 10 alternated rounds of 40 runs): its rows output
   channels, its columns output columns, B the phase rows
   read in place at the taps' offsets (j->range), C the NCHW output itself. With K in one K
   block each sum is SHIFTED's product's bit for bit (the same kernel, the same taps in the same
   order, the bias, Z and the activation after, as mmd__conv_compact applies them), without
   SHIFTED's copy of the whole input into phase planes, its output at the phases' width in
   scratch and its compaction. Edge tiles (the last channels, the last columns) go through
   edge, a tile in the share's scratch, and their bias through edge's last 16 floats.
   MobileNetV2's stem (3x3 stride 2, 3 -> 32 at 224x224), MMD_NO_SIMD, one thread, bench_conv,
   medians of 8 runs alternating with SHIFTED: warm 0.832 -> 0.671 ms, --cold --warm-input
   1.053 -> 0.768; in the model (Clip fused) 0.944 -> 0.797 ms per node (median of the runs'
   times, median of 8 alternated rounds). */
static void mmd__stem_rows_c(const mmd__conv_job *j, const float *buf, int64_t r0, int64_t r1, float *edge) {
    const mmd__conv_data *p = j->p;
    const int64_t nr = MMD_GEMM_NR_PORTABLE, cp = mmd__stem_copies(p->isa), six = mmd__stem_six(p->isa, p->gm);
    int64_t ow = p->w.out[2], plane = p->w.out[1] * ow, r, m, x, i, l, mr;
    int32_t clamp = !j->z && (p->act.kind == MMD__ACT_RELU || p->act.kind == MMD__ACT_CLIP);
    int32_t flags = MMD__GK_FIRST | (clamp ? MMD__GK_CLAMP : 0) | (cp == 4 ? MMD__GK_SPREAD : 0);
    float lo = p->act.kind == MMD__ACT_CLIP ? p->act.alpha : 0.0f, hi = p->act.kind == MMD__ACT_CLIP ? p->act.beta : INFINITY;
    float *ebias = edge + MMD__STEM_EDGE_C - 16;
    /* K as the product's K blocks are, at most MMD_GEMM_KC (which mmd__stem_plan checked): the
       bound reaches the kernel with its calls (GCC's interprocedural constant propagation),
       which the product's calls give it too; with K unbounded here GCC compiled the one
       kernel with its sums on the stack, and every product ran slower (MobileNetV2's 1x1
       layers 1.06-1.19x per node). */
    const int64_t kc = p->gk < 1 ? 1 : p->gk > MMD_GEMM_KC ? MMD_GEMM_KC : p->gk;
    for (r = r0; r < r1; ++r)
        for (m = 0; m < p->gm; m += mr) {
            int64_t mrr, nn;
            const float *a = j->wt + m * p->gk * cp, *row = buf + (r - r0) * p->wp, *bias = j->bias ? j->bias + m : NULL;
            float *y = j->y + m * plane + r * ow;
            const float *next;
            mr = m < six ? 6 : MMD__GEMM_MR_PORTABLE;
            mrr = p->gm - m < mr ? p->gm - m : mr;
            next = m + mr < p->gm ? y + mr * plane : j->y + (r + 1 < r1 ? r + 1 : r) * ow;
            nn = m + mr < p->gm ? p->gm - m - mr : p->gm;
            if (bias && mrr < mr) {
                for (i = 0; i < mr; ++i) ebias[i] = i < mrr ? bias[i] : 0.0f;
                bias = ebias;
            }
            for (x = 0; x < ow; x += nr) {
#ifdef MMD__HAS_PREFETCH
                /* The next panel's output lines at these columns (the first panel's of the next
                   row after the last panel), asked for a line ahead: each output row is a few
                   lines, the rows of 32 channels whole planes apart, more streams than the
                   hardware prefetcher follows (see mmd__stem_range's). */
                if (x % 16 == 0)
                    for (i = 0; i < mr && i < nn; ++i) MMD__PREFETCH(next + i * plane + x);
#endif
                if (mrr == mr && x + nr <= ow) {
#ifdef MMD__GEMM_SPREAD_C
                    if (mr == 6) {
                        mmd__gemm_ukernel_spread6_c(kc, a, row + x, j->range, y + x, plane, bias, flags, lo, hi, y + x);
                        continue;
                    }
#endif
                    mmd__gemm_ukernel_c(kc, a, row + x, j->range, y + x, plane, bias, flags, lo, hi);
                    continue;
                }
#ifdef MMD__GEMM_SPREAD_C
                if (mr == 6)
                    mmd__gemm_ukernel_spread6_c(kc, a, row + x, j->range, edge, nr, bias, flags, lo, hi, edge);
                else
#endif
                    mmd__gemm_ukernel_c(kc, a, row + x, j->range, edge, nr, bias, flags, lo, hi);
                for (i = 0; i < mrr; ++i)
                    for (l = 0; l < nr && x + l < ow; ++l) y[i * plane + x + l] = edge[i * nr + l];
            }
            if (clamp || (!j->z && p->act.kind == MMD__ACT_NONE)) continue;
            for (i = 0; i < mrr; ++i)
                mmd__add_act(y + i * plane, j->z ? j->z + (m + i) * plane + r * ow : NULL, ow, &p->act);
        }
}

/* STEM: tiles [lo, hi) of MMD__STEM_ROWS output rows of one image, in bands of at most
   p->band rows evened out (ResNet-18's 38 tiles of rows over two threads, at most 6 a band:
   19 a thread, in bands of 5, 5, 5 and 4; bands of the whole image evened out over a multiple
   of the threads went 20 to 18, MobileNetV2's 21 to 17), each in this share's phase rows. Phase
   row i of a band (phase py) is padded row (r0 + i) * s1 + py; the padding columns are zeroed
   once, rows outside the input each time. The portable ISA's tiles are mmd__stem_rows_c's. */
static void mmd__stem_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t oh = w->out[1], s1 = w->s[1], s2 = w->s[2], ph = p->hp * p->wp;
    int64_t per = (p->band + MMD__STEM_ROWS - 1) / MMD__STEM_ROWS, bands = (hi - lo + per - 1) / per;
    int64_t bt = (hi - lo + bands - 1) / bands;
    int64_t band, x0, ci, py, i, r0, r1;
    float *buf = (float *)(void *)((char *)j->buf + (size_t)share * (size_t)p->share);
    memset(buf, 0, (size_t)p->share);
    for (band = 0; band < bands; ++band) {
        r0 = (lo + band * bt) * MMD__STEM_ROWS;
        r1 = (lo + (band + 1) * bt < hi ? lo + (band + 1) * bt : hi) * MMD__STEM_ROWS;
        if (r1 > oh) r1 = oh;
        for (ci = 0; ci < p->in_ch; ++ci)
            for (py = 0; py < s1; ++py)
                for (i = 0; i < p->hp; ++i) {
                    int64_t y = (r0 + i) * s1 + py - w->pad[1];
                    float *row = buf + ci * p->plane + py * s2 * ph + i * p->wp;
                    if (y >= 0 && y < w->in[1])
                        mmd__row_phases(p->isa, j->x + (ci * w->in[1] + y) * w->in[2], w->in[2], w->pad[2], s2, row, ph);
                    else
                        for (x0 = 0; x0 < s2; ++x0) memset(row + x0 * ph, 0, (size_t)p->wp * sizeof(float));
                }
        if (p->isa == MMD__ISA_PORTABLE) {
            mmd__stem_rows_c(j, buf, r0, r1, buf + p->share / (int64_t)sizeof(float) - MMD__STEM_EDGE_C);
            continue;
        }
#if defined(MMD__X86)
        {
            int64_t ow = w->out[2], plane = oh * ow, m, r;
            /* The next band's input rows [y0, y1) of each channel, lines of 16 floats, as many a
               tile (pf) as spread them over this band's tiles; line pl of channel pc next. */
            int64_t y0 = ((lo + (band + 1) * bt) * MMD__STEM_ROWS * s1 - w->pad[1]), y1 = y0 + p->hp * s1, lines, pf;
            int64_t pc = 0, pl = 0;
            if (y0 < 0) y0 = 0;
            if (y1 > w->in[1]) y1 = w->in[1];
            lines = band + 1 < bands && y1 > y0 ? ((y1 - y0) * w->in[2] + 15) / 16 : 0;
            pf = (r1 - r0 + MMD__STEM_ROWS - 1) / MMD__STEM_ROWS * ((p->gm + MMD__STEM_MR - 1) / MMD__STEM_MR) * ((ow + 15) / 16);
            pf = (lines * p->in_ch + pf - 1) / pf;
            for (r = r0; r < r1; r += MMD__STEM_ROWS) {
                int64_t nr = r1 - r < MMD__STEM_ROWS ? r1 - r : MMD__STEM_ROWS, off[MMD__STEM_ROWS], t;
                for (t = 0; t < MMD__STEM_ROWS; ++t) off[t] = (r - r0 + (t < nr ? t : nr - 1)) * p->wp;
                for (m = 0; m < p->gm; m += MMD__STEM_MR)
                    for (x0 = 0; x0 < ow; x0 += 16) {
                        int64_t at = m * plane + r * ow + x0, nm = x0 + 16 < ow ? m : m + MMD__STEM_MR;
                        int64_t nx = x0 + 16 < ow ? x0 + 16 : 0, i, t2, l;
                        /* The next tile's output lines (and Z's), asked for now: a tile writes 24
                           rows, whole planes apart, more streams than the hardware prefetcher
                           follows, so each line's first store waited for it to come from memory or
                           L3 (ResNet-18's 3.2 MB output). ResNet-18's stem, bench_conv --cold, one
                           thread, the best of each run, median of 12 alternating runs (loaded
                           machine): 1.80 -> 1.65 ms. */
                        for (i = nm; i < nm + MMD__STEM_MR && i < p->gm; ++i)
                            for (t2 = 0; t2 < nr; ++t2) {
                                _mm_prefetch((const char *)(j->y + i * plane + (r + t2) * ow + nx), _MM_HINT_T0);
                                if (j->z) _mm_prefetch((const char *)(j->z + i * plane + (r + t2) * ow + nx), _MM_HINT_T0);
                            }
                        /* This tile's part of the next band's input lines, into L2: the band's copy
                           read them from memory or L3 at their latency otherwise (MobileNetV2's
                           stem with its input warm took 0.27 ms, cold 0.31, bench_conv --cold, one
                           thread). With it and the sums kept off the stack (mmd__stem_tile_avx512),
                           bench_conv --cold, one thread, two runs of 8 to 10 rounds alternating
                           with neither (loaded machine): MobileNetV2's stem 0.87x and 0.96x, the
                           DBNet's 0.88x and 0.99x, ResNet-18's 0.92x and 0.99x; warm 0.97x, 1.03x
                           and 0.99x. A running count, not a division per tile: two divisions per
                           tile cost as much as the prefetch saved with the input warm. */
                        for (l = 0; l < pf && pc < p->in_ch; ++l) {
                            _mm_prefetch((const char *)(j->x + (pc * w->in[1] + y0) * w->in[2] + 16 * pl), _MM_HINT_T1);
                            if (++pl == lines) pl = 0, ++pc;
                        }
                        mmd__stem_tile_avx512(buf + x0, j->range, p->gk, j->wt + m * p->gk, off, j->y + at,
                                              j->z ? j->z + at : NULL, plane, ow,
                                              (int32_t)(p->gm - m < MMD__STEM_MR ? p->gm - m : MMD__STEM_MR), (int32_t)nr,
                                              MMD__MASK16(x0, ow), j->bias ? j->bias + m : NULL, &p->act);
                    }
            }
        }
#endif
    }
}

#if defined(MMD__X86)
/* NARROW: one tile of MMD__NARROW_PIX output pixels (consecutive in the plane and in the
   input's rows) by one panel of 16 * vecs output channels over kc K steps; vecs is a constant
   in each of mmd__narrow_tile_avx512's calls, so that each width gets its own loop with only
   its own sums and loads. a is the steps' [kc][16 * vecs] of the panel, x the input at the
   tile's first pixel, rows[] each step's offset from it; every pixel's input is broadcast from
   memory into the multiply-adds of the weight vectors. The sums start from acc ([pixel][64])
   unless MMD__NARROW_FIRST and go back to it, with the bias added in registers if
   MMD__NARROW_LAST, which then writes the tile to y (mmd__narrow_out_avx512). With
   MMD__NARROW_PREFETCH_ON (the share's first tile, which reads its weights from memory) each
   step asks for the panel MMD__NARROW_PREFETCH floats ahead; every tile also asks for its part
   of the next block's weights, the lines of 16 floats pf[0], pf[16], ... up to pn of them,
   spread over its steps, and each step asks for the input's line one line past the tile's
   pixels, the next tiles' pixels of that channel: a block's 64 channel rows are 64 interleaved
   streams 4 * plane bytes apart that the hardware prefetcher does not follow, and the tiles
   after this one would find their inputs in L2 or, at 2 threads, in the other core's cache
   (half the input was written there). MobileNetV2 (ab.sh, 9 rounds): 2 threads 3.88 -> 3.72 ms,
   1 thread 0.985x; 14x14 layers 576 -> 96 and 384 -> 64 at 1 thread 0.92-0.96x per node
   (lower quartile of 100 runs, medians of 7 rounds, the machine loaded); asking 32 floats on
   instead, or into L2, or for the next block's lines of the tile's own pixels, gained less or
   lost. */
#define MMD__NARROW_FIRST 1
#define MMD__NARROW_LAST 2
#define MMD__NARROW_PREFETCH_ON 4

/* NARROW's tile sums acc ([pixel][64], MMD__NARROW_PIX pixels, the bias added) transposed into
   the NCHW output y, 16 channels at a time, Z added and the activation applied on the way. The
   seven pixels and an eighth of zeros go through the 8 x 16 transpose of unpacks within 128-bit
   lanes (u[j]: channels 4l + j of pixels 0-3, lane l; u[4 + j]: of pixels 4-7) and a permute
   of lanes that puts one channel's eight pixels in each 256-bit half; each channel's seven
   floats are then one masked store. It replaced one gather per channel, which cost 3-7% of the
   layer (bench_conv, warm, with the gathers replaced by plain loads). */
MMD__TARGET_AVX512 static void mmd__narrow_out_avx512(const float *acc, int32_t vecs, float *y, const float *z,
                                                      int64_t plane, const mmd__act *act) {
    const __m512i lo = _mm512_set_epi32(23, 22, 21, 20, 7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
    const __m512i hi = _mm512_set_epi32(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8);
    const __mmask8 mk = (__mmask8)((1u << MMD__NARROW_PIX) - 1u);
    __m512 al = _mm512_set1_ps(act->alpha), be = _mm512_set1_ps(act->beta), zero = _mm512_setzero_ps(), t[8], u[8];
    int32_t g, j, vec = mmd__act_has_avx512(act->kind);
    for (g = 0; g < vecs; ++g) {
        const float *a = acc + 16 * g;
        t[0] = _mm512_unpacklo_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(a + 64));
        t[1] = _mm512_unpackhi_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(a + 64));
        t[2] = _mm512_unpacklo_ps(_mm512_loadu_ps(a + 128), _mm512_loadu_ps(a + 192));
        t[3] = _mm512_unpackhi_ps(_mm512_loadu_ps(a + 128), _mm512_loadu_ps(a + 192));
        t[4] = _mm512_unpacklo_ps(_mm512_loadu_ps(a + 256), _mm512_loadu_ps(a + 320));
        t[5] = _mm512_unpackhi_ps(_mm512_loadu_ps(a + 256), _mm512_loadu_ps(a + 320));
        t[6] = _mm512_unpacklo_ps(_mm512_loadu_ps(a + 384), zero);
        t[7] = _mm512_unpackhi_ps(_mm512_loadu_ps(a + 384), zero);
        for (j = 0; j < 2; ++j) {
            u[4 * j + 0] = _mm512_shuffle_ps(t[4 * j], t[4 * j + 2], 0x44);
            u[4 * j + 1] = _mm512_shuffle_ps(t[4 * j], t[4 * j + 2], 0xEE);
            u[4 * j + 2] = _mm512_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0x44);
            u[4 * j + 3] = _mm512_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0xEE);
        }
        /* t[j]: channels j and j + 4 of the group; t[4 + j]: channels j + 8 and j + 12. */
        for (j = 0; j < 4; ++j) {
            t[j] = _mm512_permutex2var_ps(u[j], lo, u[4 + j]);
            t[4 + j] = _mm512_permutex2var_ps(u[j], hi, u[4 + j]);
        }
        for (j = 0; j < 8; ++j) {
            int64_t c = 16 * g + (j < 4 ? j : j + 4);
            float *y0 = y + c * plane, *y1 = y0 + 4 * plane;
            __m512 v = t[j];
            if (z) {
                __m512 z0 = _mm512_castps256_ps512(_mm256_maskz_loadu_ps(mk, z + c * plane));
                v = _mm512_add_ps(v, _mm512_insertf32x8(z0, _mm256_maskz_loadu_ps(mk, z + (c + 4) * plane), 1));
            }
            if (vec) v = mmd__act_vec_avx512(act->kind, v, al, be);
            _mm256_mask_storeu_ps(y0, mk, _mm512_castps512_ps256(v));
            _mm256_mask_storeu_ps(y1, mk, _mm512_extractf32x8_ps(v, 1));
            if (!vec) {
                mmd__act_portable_f32(act, y0, y0, MMD__NARROW_PIX);
                mmd__act_portable_f32(act, y1, y1, MMD__NARROW_PIX);
            }
        }
    }
}

/* M(r, g) for each sum of the tile, pixel r and vector g: the sums are named registers, not an
   array, which the compiler had kept in memory around the K loop (28 stores and 28 loads at
   each end of every call, 5-9% of the NARROW layers' time, bench_conv warm). */
#define MMD__NARROW_ROW(M, r) M(r, 0); M(r, 1); M(r, 2); M(r, 3)
#define MMD__NARROW_ALL(M)                                                                       \
    MMD__NARROW_ROW(M, 0); MMD__NARROW_ROW(M, 1); MMD__NARROW_ROW(M, 2); MMD__NARROW_ROW(M, 3);  \
    MMD__NARROW_ROW(M, 4); MMD__NARROW_ROW(M, 5); MMD__NARROW_ROW(M, 6)
#define MMD__NARROW_INIT(r, g)                                                                   \
    c##r##_##g = g < vecs && !(flags & MMD__NARROW_FIRST) ? _mm512_loadu_ps(acc + 16 * (4 * r + g)) \
                                                           : _mm512_setzero_ps()
#define MMD__NARROW_BIAS(r, g) if (g < vecs) c##r##_##g = _mm512_add_ps(c##r##_##g, b##g)
#define MMD__NARROW_SAVE(r, g) if (g < vecs) _mm512_storeu_ps(acc + 16 * (4 * r + g), c##r##_##g)
MMD__TARGET_AVX512 static inline __attribute__((always_inline)) void
mmd__narrow_tile_vecs_avx512(int32_t vecs, int64_t kc, const float *a, const float *x, const int64_t *rows, int32_t flags,
                             const float *pf, int64_t pn, float *acc, float *y, const float *z, int64_t plane,
                             const float *bias, const mmd__act *act) {
    __m512 c0_0, c0_1, c0_2, c0_3, c1_0, c1_1, c1_2, c1_3, c2_0, c2_1, c2_2, c2_3, c3_0, c3_1, c3_2, c3_3;
    __m512 c4_0, c4_1, c4_2, c4_3, c5_0, c5_1, c5_2, c5_3, c6_0, c6_1, c6_2, c6_3;
    int64_t q, l, step = 16 * vecs;
    int32_t i;
    MMD__NARROW_ALL(MMD__NARROW_INIT);
#define MMD__NARROW_PIXEL(r)                                                                     \
    xv = _mm512_set1_ps(xp[r]), c##r##_0 = _mm512_fmadd_ps(xv, w0, c##r##_0),                  \
    c##r##_1 = _mm512_fmadd_ps(xv, w1, c##r##_1);                                                \
    if (vecs > 2) c##r##_2 = _mm512_fmadd_ps(xv, w2, c##r##_2);                                  \
    if (vecs > 3) c##r##_3 = _mm512_fmadd_ps(xv, w3, c##r##_3)
    for (q = 0; q < kc; ++q, a += step) {
        const float *xp = x + rows[q];
        __m512 w0 = _mm512_loadu_ps(a), w1 = _mm512_loadu_ps(a + 16);
        __m512 w2 = vecs > 2 ? _mm512_loadu_ps(a + 32) : w1, w3 = vecs > 3 ? _mm512_loadu_ps(a + 48) : w1, xv;
        if (flags & MMD__NARROW_PREFETCH_ON)
            for (i = 0; i < vecs; ++i) _mm_prefetch((const char *)(a + MMD__NARROW_PREFETCH + 16 * i), _MM_HINT_T0);
        for (l = q; l < pn; l += kc) _mm_prefetch((const char *)(pf + 16 * l), MMD__NARROW_HINT);
        _mm_prefetch((const char *)(xp + 16), _MM_HINT_T0);
        MMD__NARROW_PIXEL(0);
        MMD__NARROW_PIXEL(1);
        MMD__NARROW_PIXEL(2);
        MMD__NARROW_PIXEL(3);
        MMD__NARROW_PIXEL(4);
        MMD__NARROW_PIXEL(5);
        MMD__NARROW_PIXEL(6);
    }
#undef MMD__NARROW_PIXEL
    /* The bias first, then Z, then the activation, as SHIFTED's product and compaction apply them. */
    if (flags & MMD__NARROW_LAST && bias) {
        __m512 b0 = _mm512_loadu_ps(bias), b1 = _mm512_loadu_ps(bias + 16);
        __m512 b2 = vecs > 2 ? _mm512_loadu_ps(bias + 32) : b1, b3 = vecs > 3 ? _mm512_loadu_ps(bias + 48) : b1;
        MMD__NARROW_ALL(MMD__NARROW_BIAS);
    }
    MMD__NARROW_ALL(MMD__NARROW_SAVE);
    if (flags & MMD__NARROW_LAST) mmd__narrow_out_avx512(acc, vecs, y, z, plane, act);
}
#undef MMD__NARROW_ROW
#undef MMD__NARROW_ALL
#undef MMD__NARROW_INIT
#undef MMD__NARROW_BIAS
#undef MMD__NARROW_SAVE

MMD__TARGET_AVX512 static void mmd__narrow_tile_avx512(int32_t vecs, int64_t kc, const float *a, const float *x,
                                                       const int64_t *rows, int32_t flags, const float *pf, int64_t pn,
                                                       float *acc, float *y, const float *z, int64_t plane,
                                                       const float *bias, const mmd__act *act) {
    if (vecs == 4) mmd__narrow_tile_vecs_avx512(4, kc, a, x, rows, flags, pf, pn, acc, y, z, plane, bias, act);
    else if (vecs == 3) mmd__narrow_tile_vecs_avx512(3, kc, a, x, rows, flags, pf, pn, acc, y, z, plane, bias, act);
    else mmd__narrow_tile_vecs_avx512(2, kc, a, x, rows, flags, pf, pn, acc, y, z, plane, bias, act);
}

/* NARROW: the share of the work [lo, hi), counted in tiles of 16 channels (panel after panel,
   tile after tile), so that shares are equal in multiply-adds whatever the panels' widths:
   each share takes the tiles that start in its range (tile t: pixels t * MMD__NARROW_PIX on).
   Per panel, blocks of MMD__NARROW_KC K steps (their weights stay in L1) over the share's
   tiles in turn, the sums kept between blocks in this share's buffer of [tile][pixel][64]
   (job.tmp). */
static void mmd__narrow_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    int64_t plane = p->w.out[1] * p->w.out[2], tiles = plane / MMD__NARROW_PIX, m, t, t0, t1, k0, kc, first, at, lines;
    float *acc = j->tmp + (int64_t)share * 64 * plane;
    int32_t vecs, start = MMD__NARROW_PREFETCH_ON;
    for (m = 0; m < mmd__narrow_panels(p->gm); ++m) {
        mmd__narrow_panel(p->gm, m, &first, &vecs);
        /* The panel's tiles start at units first / 16 * tiles + t * vecs. */
        t0 = lo - first / 16 * tiles, t1 = hi - first / 16 * tiles;
        t0 = t0 <= 0 ? 0 : (t0 + vecs - 1) / vecs;
        t1 = t1 <= 0 ? 0 : (t1 + vecs - 1) / vecs;
        if (t1 > tiles) t1 = tiles;
        for (k0 = 0; k0 < p->gk && t0 < t1; k0 += kc) {
            /* The block's weights, and the next block's (the packed panels are one run), whose
               lines of 16 floats the tiles ask for in turn while this block's multiply-adds run. */
            const float *a = p->packed + first * p->gk + k0 * 16 * vecs, *next;
            int32_t flags = (k0 == 0 ? MMD__NARROW_FIRST : 0);
            kc = p->gk - k0 < MMD__NARROW_KC ? p->gk - k0 : MMD__NARROW_KC;
            if (k0 + kc == p->gk) flags |= MMD__NARROW_LAST;
            next = a + kc * 16 * vecs;
            lines = kc * vecs;
            for (t = t0; t < t1; ++t, start = 0) {
                int64_t l0 = (t - t0) * lines / (t1 - t0), l1 = (t - t0 + 1) * lines / (t1 - t0);
                at = first * plane + t * MMD__NARROW_PIX;
                mmd__narrow_tile_avx512(vecs, kc, a, j->x + t * MMD__NARROW_PIX, j->range + k0, flags | start,
                                        next + 16 * l0, l1 - l0, acc + t * 64 * MMD__NARROW_PIX, j->y + at,
                                        j->z ? j->z + at : NULL, plane, j->bias ? j->bias + first : NULL, &p->act);
            }
        }
    }
}
#endif

/* SWEEP: share `index` of the columns, a row panel at a time across them, or across each block
   of MMD__SWEEP_COLUMNS of them in turn when its input is large (see MMD__CONV_SWEEP). Each tile
   is the product's own, so the sums are POINTWISE's bit for bit. */
static void mmd__conv_sweep_task(void *data, int32_t index) {
    const mmd__gemm_job *j = (const mmd__gemm_job *)data;
    const mmd__gemm *g = j->g;
    int64_t lo = index * j->step, hi = lo + j->step < g->n ? lo + j->step : g->n, mr = mmd__gemm_mr(g->isa), m0, m1, r;
    int64_t n0, n1, width = g->k * (hi - lo) > MMD__SWEEP_INPUT ? MMD__SWEEP_COLUMNS : hi - lo;
    for (n0 = lo; n0 < hi; n0 = n1) {
        n1 = hi - n0 < width ? hi : n0 + width;
        for (m0 = 0; m0 < g->m; m0 = m1) {
            m1 = g->m - m0 < mr ? g->m : m0 + mr;
            /* C's start values are copied a row panel at a time, just before the panel is
               computed, as mmd__gemm_task copies them a column block at a time: copied for
               the whole share first, a large Z had left the cache before the epilogue read it
               back. */
            if (g->c0)
                for (r = m0; r < m1; ++r) memcpy(g->c + r * g->ldc + n0, g->c0 + r * g->ldc + n0, (size_t)(n1 - n0) * sizeof(float));
            mmd__gemm_block(g, m0, m1, n0, n1, j->scratch + index * j->share);
        }
    }
}

/* SWEEP's product over the session's threads, split by columns in whole panels into as many
   shares as mmd__gemm_scratch sized for. */
static void mmd__conv_sweep(const mmd_kernel_ctx *c, const mmd__gemm *g, void *scratch, int32_t threads) {
    mmd__gemm swept = *g;
    mmd__gemm_job job;
    int64_t nr = mmd__gemm_nr(g->isa);
    int32_t shares = mmd__gemm_shares(g->m, g->n, threads < c->threads ? threads : c->threads, g->isa);
    memset(&job, 0, sizeof job);
    swept.prefetch_c = 1; /* the tiles run along a row panel */
    job.g = &swept;
    job.scratch = (float *)(((uintptr_t)scratch + 63u) & ~(uintptr_t)63u);
    job.share = mmd__gemm_share_floats(g->m, g->n, g->k, g->isa);
    job.step = mmd__round_up((g->n + shares - 1) / shares, nr);
    mmd_kernel_parallel(c, mmd__conv_sweep_task, &job, (int32_t)((g->n + job.step - 1) / job.step));
}

#endif

#ifndef MMD_CONV_SMALL
/* A strided 1x1 convolution (p->sub): input channels [lo, hi) at the output's pixels, into
   planes of p->plane floats from j->buf. At stride 2 on AVX-512, rows of 16 outputs or more
   take the even columns by permutes (mmd__row_phases2_avx512): with the caches warm
   (bench_conv, 1 thread) ResNet-18's 64 -> 128 at 56x56 copies in 0.020 -> 0.016 ms, but 7
   outputs a row (256 -> 512 at 14x14) ran 0.008 -> 0.011 through the masked tail, so short
   rows stay scalar. In the model, with the next channel's row asked for ahead
   (mmd__prefetch_floats), per node at 1 thread (medians of 200 runs each, the old and the new
   copy alternating run by run in one process, two rounds, loaded 2-core Xeon): the copy
   0.066 -> 0.045 ms at 56x56, 0.029 -> 0.024 at 28x28, 0.020 -> 0.018 at 14x14, the
   downsample nodes 0.875-0.892x, 0.960-0.962x and 0.984x of before. */
static void mmd__conv_sub_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t ch, y, x, ow = w->out[2], s2 = w->s[2];
    (void)share;
    for (ch = lo; ch < hi; ++ch)
        for (y = 0; y < w->out[1]; ++y) {
            const float *src = j->x + (ch * w->in[1] + y * w->s[1]) * w->in[2];
            float *dst = j->buf + ch * p->plane + y * ow;
            if (ch + 1 < hi) mmd__prefetch_floats(src + w->in[1] * w->in[2], (ow - 1) * s2 + 1);
#if defined(MMD__X86)
            if (s2 == 2 && ow >= 16 && p->isa == MMD__ISA_AVX512) {
                mmd__row_phases2_avx512(src, 2 * ow - 1, 0, dst, NULL);
                continue;
            }
#endif
            for (x = 0; x < ow; ++x) dst[x] = src[x * s2];
        }
}
#endif

/* IM2COL: row `index` of the columns, kernel tap (t0, t1, t2) of input channel ci, over the band
   of output rows. */
static void mmd__conv_im2col_row(const mmd__conv_job *j, int64_t index) {
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t taps = w->k[0] * w->k[1] * w->k[2], ci = index / taps, t = index % taps;
    int64_t t2 = t % w->k[2], t1 = t / w->k[2] % w->k[1], t0 = t / (w->k[1] * w->k[2]);
    const float *xc = j->x + ci * w->in[0] * w->in[1] * w->in[2];
    float *dst = j->buf + index * (j->r1 - j->r0) * w->out[2];
    int64_t r, lo, hi, o, s2 = w->s[2], ow = w->out[2];
    mmd__valid_range(t2 * w->d[2] - w->pad[2], s2, ow, w->in[2], &lo, &hi);
    for (r = j->r0; r < j->r1; ++r, dst += ow) {
        int64_t i0 = r / w->out[1] * w->s[0] + t0 * w->d[0] - w->pad[0];
        int64_t i1 = r % w->out[1] * w->s[1] + t1 * w->d[1] - w->pad[1];
        const float *src;
        if (i0 < 0 || i0 >= w->in[0] || i1 < 0 || i1 >= w->in[1] || lo >= hi) {
            memset(dst, 0, (size_t)ow * sizeof(float));
            continue;
        }
        src = xc + (i0 * w->in[1] + i1) * w->in[2] + t2 * w->d[2] - w->pad[2];
        for (o = 0; o < lo; ++o) dst[o] = 0.0f;
        if (s2 == 1) memcpy(dst + lo, src + lo, (size_t)(hi - lo) * sizeof(float));
        else
            for (o = lo; o < hi; ++o) dst[o] = src[o * s2];
        for (o = hi; o < ow; ++o) dst[o] = 0.0f;
    }
}

/* IM2COL: rows [lo, hi) of the columns, a run per thread (a loop of tiny indices would make
   the threads contend for the pool's counter). */
static void mmd__conv_im2col_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    (void)share;
    for (; lo < hi; ++lo) mmd__conv_im2col_row((const mmd__conv_job *)data, lo);
}

#ifndef MMD_CONV_SMALL
/* n floats of four rows, x and then x + step, 2 step and 3 step on, interleaved into e (four
   floats a pixel, the rows in order): the quads' input (mmd__dw9x4_c). Four pixels at a time,
   a loop of constant trip count over restrict pointers, which GCC's -O2 vectorises into four
   loads, eight unpacks and four stores; pixel by pixel (and inline in mmd__dw_channels, even
   in fours) it stayed four scalar loads and stores a pixel, a fifth of the quads' time. */
static void mmd__interleave4(const float *x, int64_t step, int64_t n, float *MMD__RESTRICT e) {
    const float *MMD__RESTRICT x0 = x, *MMD__RESTRICT x1 = x + step, *MMD__RESTRICT x2 = x + 2 * step;
    const float *MMD__RESTRICT x3 = x + 3 * step;
    int64_t i;
    int32_t l;
    for (i = 0; i + 4 <= n; i += 4)
        for (l = 0; l < 4; ++l)
            e[4 * (i + l)] = x0[i + l], e[4 * (i + l) + 1] = x1[i + l], e[4 * (i + l) + 2] = x2[i + l],
            e[4 * (i + l) + 3] = x3[i + l];
    for (; i < n; ++i) e[4 * i] = x0[i], e[4 * i + 1] = x1[i], e[4 * i + 2] = x2[i], e[4 * i + 3] = x3[i];
}

/* DEPTHWISE: channels [ch0, ch1) of the images' channels, channel ch's input plane at x + (ch -
   ch0) * its size (the input tensor's, or a fused 1x1's buffer, >>ops pointwise depthwise), with
   `rows` the share's scratch (p->share bytes). On AVX-512, 3x3 undilated
   kernels and small planes read each channel in place (mmd__dw_inplace). Otherwise `band`
   output rows at a time: the input rows a band reads are copied into zero-padded rows (rows
   above and below the plane are zero rows), so that every tap of every output is a plain read;
   the band stays in L1 while the channel's output rows are computed from it. The AVX-512 path
   computes the rows with the activation in registers; the others list each row's taps with
   their weights for the row kernel, then add Z and apply the activation over the row. The
   portable row kernel (mmd__dw_flat, stride 1) takes the whole band at once: output (r, x) at r * len + x of a
   flat row reads the padded rows at r * len + x + the tap's offset, which is input row r,
   column x, so one call with the taps' offsets in the band covers every row, in runs of
   eight whatever the output width (the columns x >= ow it computes too are dropped). On
   MobileNetV2's 14x14 and 7x7 planes the per-row calls, their tails of single outputs and
   the activation's took half the time: its 3x3 depthwise layers of 960 channels at 7x7 and
   384 at 14x14 run in 0.10 and 0.09 ms instead of 0.20 and 0.17, 192 at 28x28 in 0.14
   instead of 0.20 (best of 100, MMD_NO_SIMD). At stride 2 on both axes the band is copied
   into its four phases (mmd__row_phases2), where every tap reads at stride 1: without the
   row kernel's shuffles of even elements the DBNet's 5x5 stride-2 layers run in 1.3 and 0.75
   ms instead of 2.1 and 1.4, MobileNetV2's 3x3 ones of 112x112 and 14x14 in 0.67 and 0.10
   instead of 0.79 and 0.12. Nine-tap kernels (3x3) take mmd__dw9_c instead of the flat row:
   output rows straight into the output, Relu and Clip applied as they are stored; and 3x3
   planes of up to MMD__DW_QUAD_W input columns run four channels at once (mmd__dw9x4_c). On
   MobileNetV2 (MMD_NO_SIMD, one thread, sums of per-node minima of 12 rounds of 30 runs,
   alternated on a loaded 2-core Xeon) its 17 depthwise layers take 2.12 ms instead of 4.36. */
static void mmd__dw_channels(const mmd__conv_job *j, float *rows, int64_t ch0, int64_t ch1, const float *x) {
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t kw = w->k[2], taps = w->k[1] * kw, mg = p->out_ch / p->group;
    int64_t oh = w->out[1], ow = w->out[2], ih = w->in[1], iw = w->in[2], len = p->row_len;
    int64_t ch, m, y0, y1, kh, t, n, r;
    float *wv = rows + mmd__dw_rows_floats(p) + MMD__DW_SLACK;
    const float **ptr = (const float **)(void *)(wv + mmd__round_up(taps, 16));
    float *flat = mmd__dw_flat(p) ? (float *)(void *)(ptr + mmd__round_up(taps, 8)) : NULL;
    /* Stride 2 in phases: plane (qy, qx) holds the band's rows 2i + qy, columns 2u + qx of the
       padded rows, at rows + (2 qy + qx) * plane, rows h apart; tap (a, b) of output (r, x)
       reads row 2r + a, column 2x + b, which is plane (a % 2, b % 2) at (r + a / 2) * h +
       x + b / 2: a stride-1 flat row of pitch h. */
    int32_t phased = mmd__dw_flat(p) == 2;
    int64_t h = phased ? (len + 1) / 2 : len, plane = (p->ring + 1) / 2 * h;
    int64_t quad = mmd__dw_quad_floats(p);
    /* Relu and Clip, which the nine-tap kernels apply as they store (see mmd__dw9_c) unless Z
       comes first; then, or for another activation, a pass after them (`after`) adds Z and
       applies it. */
    int32_t after = j->z || (p->act.kind != MMD__ACT_RELU && p->act.kind != MMD__ACT_CLIP);
    float lo = after ? -INFINITY : p->act.kind == MMD__ACT_CLIP ? p->act.alpha : 0.0f;
    float hi = after || p->act.kind != MMD__ACT_CLIP ? INFINITY : p->act.beta;
    void (*row)(float *, const float *const *, const float *, int64_t, float, int64_t, int64_t) = mmd__dw_row_c;
#if defined(MMD__X86)
    int32_t wide = w->s[2] <= 2 && p->isa == MMD__ISA_AVX512, mode = mmd__dw_inplace(p);
    if (w->s[2] <= 2 && p->isa == MMD__ISA_AVX2) row = mmd__dw_row_avx2;
#elif defined(MMD__NEON)
    if (w->s[2] <= 2 && p->isa == MMD__ISA_NEON) row = mmd__dw_row_neon;
#endif
#if defined(MMD__X86)
    if (mode >= 3) {
        for (ch = ch0; ch < ch1; ++ch)
            for (m = ch % p->in_ch * mg; m < (ch % p->in_ch + 1) * mg; ++m) {
                int64_t at = (ch / p->in_ch * p->out_ch + m) * oh * ow;
                (mode == 3 ? mmd__dw_rows3s2_avx512 : mode == 4 ? mmd__dw_rows3_avx512 : mode == 5 ? mmd__dw_rows5s2_avx512
                                                                                       : mmd__dw_rows5_avx512)(
                    j->y + at, j->z ? j->z + at : NULL, x + (ch - ch0) * ih * iw, w, j->wt + m * taps,
                    j->bias ? j->bias[m] : 0.0f, &p->act);
            }
        return;
    }
    if (mode == 2) {
        __m512i *idx = (__m512i *)(void *)rows;
        __mmask16 *mask = (__mmask16 *)(void *)(idx + 8);
        mmd__dw_pairs_masks_avx512(idx, mask, w);
        for (ch = ch0; ch < ch1; ++ch)
            for (m = ch % p->in_ch * mg; m < (ch % p->in_ch + 1) * mg; ++m) {
                int64_t at = (ch / p->in_ch * p->out_ch + m) * oh * ow;
                mmd__dw_pairs_avx512(j->y + at, j->z ? j->z + at : NULL, x + (ch - ch0) * ih * iw, w, idx, mask,
                                     j->wt + m * taps, j->bias ? j->bias[m] : 0.0f, &p->act);
            }
        return;
    }
    if (mode == 1) {
        int64_t *off = (int64_t *)(void *)rows;
        __mmask16 *mask = (__mmask16 *)(void *)(off + mmd__round_up(taps, 8));
        mmd__dw_plane_masks_avx512(mask, off, w);
        for (ch = ch0; ch < ch1; ++ch)
            for (m = ch % p->in_ch * mg; m < (ch % p->in_ch + 1) * mg; ++m) {
                int64_t at = (ch / p->in_ch * p->out_ch + m) * oh * ow;
                mmd__dw_plane_avx512(j->y + at, j->z ? j->z + at : NULL, x + (ch - ch0) * ih * iw, ih * iw, mask, off, taps,
                                     j->wt + m * taps, j->bias ? j->bias[m] : 0.0f, &p->act);
            }
        return;
    }
#endif
    /* Four channels at a time where their rows are short (see mmd__dw9x4_c): each quad's input
       interleaved into the padded plane, whose padding is zero once and for all, and its
       weights and biases; the channels left (fewer than four) take the rows below. */
    ch = ch0;
    if (quad) {
        float *in = flat, *w4 = in + mmd__round_up(quad, 16), *b4 = w4 + 36;
        int64_t pw = (ow - 1) * w->s[2] + 2 * w->d[2] + 1, ph = quad / 4 / pw, c, iy;
        int64_t ny = ih < ph - w->pad[1] ? ih : ph - w->pad[1], nx = iw < pw - w->pad[2] ? iw : pw - w->pad[2];
        memset(in, 0, (size_t)quad * sizeof(float));
        for (; ch + 4 <= ch1; ch += 4) {
            const float *xc = x + (ch - ch0) * ih * iw;
            for (iy = 0; iy < ny; ++iy)
                mmd__interleave4(xc + iy * iw, ih * iw, nx, in + 4 * ((w->pad[1] + iy) * pw + w->pad[2]));
            for (c = 0; c < 4; ++c) {
                m = (ch + c) % p->in_ch;
                for (t = 0; t < 9; ++t) w4[4 * t + c] = j->wt[m * 9 + t];
                b4[c] = j->bias ? j->bias[m] : 0.0f;
            }
            mmd__dw9x4_c(j->y + ch * oh * ow, oh * ow, in, 4 * pw, w->d[1], w->d[2], w->s[1], w->s[2], oh, ow, w4, b4,
                         lo, hi);
            for (c = 0; c < 4 && after; ++c)
                mmd__add_act(j->y + (ch + c) * oh * ow, j->z ? j->z + (ch + c) * oh * ow : NULL, oh * ow, &p->act);
        }
    }
    /* The padding columns (and the slack) are zero once and for all; only the middle of a row
       is copied. */
    memset(rows, 0, (size_t)(mmd__dw_rows_floats(p) + MMD__DW_SLACK) * sizeof(float));
    for (; ch < ch1; ++ch) {
        const float *xc = x + (ch - ch0) * ih * iw;
        int64_t cin = ch % p->in_ch, b = ch / p->in_ch;
        for (y0 = 0; y0 < oh; y0 = y1) {
            int64_t top = y0 * w->s[1] - w->pad[1], nin;
            y1 = y0 + p->band < oh ? y0 + p->band : oh;
            nin = (y1 - y0 - 1) * w->s[1] + (w->k[1] - 1) * w->d[1] + 1;
            for (r = 0; r < nin; ++r) {
                float *e = rows + 2 * (r % 2) * plane + r / 2 * h;
                if (top + r < 0 || top + r >= ih) {
                    if (phased) memset(e, 0, (size_t)h * sizeof(float)), memset(e + plane, 0, (size_t)h * sizeof(float));
                    else memset(rows + r * len, 0, (size_t)len * sizeof(float));
                } else if (phased) {
                    mmd__row_phases2(p->isa, xc + (top + r) * iw, iw, w->pad[2], e, e + plane);
                } else {
                    memcpy(rows + r * len + w->pad[2], xc + (top + r) * iw, (size_t)iw * sizeof(float));
                }
            }
            for (m = cin * mg; m < (cin + 1) * mg; ++m) {
                const float *k = j->wt + m * taps;
                float bias = j->bias ? j->bias[m] : 0.0f;
                float *y = j->y + ((b * p->out_ch + m) * oh + y0) * ow;
                const float *z = j->z ? j->z + ((b * p->out_ch + m) * oh + y0) * ow : NULL;
#if defined(MMD__X86)
                if (wide) {
                    mmd__dw_rows_avx512(y, z, rows, len, y1 - y0, ow, w, k, bias, &p->act);
                    continue;
                }
#endif
                if (flat) {
                    int64_t count_flat = (y1 - y0 - 1) * h + ow;
                    for (n = 0, kh = 0; kh < w->k[1]; ++kh)
                        for (t = 0; t < kw; ++t, ++n) {
                            int64_t a = kh * w->d[1], bx = t * w->d[2];
                            ptr[n] = phased ? rows + (2 * (a % 2) + bx % 2) * plane + a / 2 * h + bx / 2 : rows + a * len + bx;
                            wv[n] = k[kh * kw + t];
                        }
                    if (taps == 9) {
                        mmd__dw9_c(y, ptr, h, y1 - y0, ow, wv, bias, lo, hi);
                        if (after) mmd__add_act(y, z, (y1 - y0) * ow, &p->act);
                        continue;
                    }
                    row(flat, ptr, wv, n, bias, count_flat, 1);
                    if (!z) mmd__act_f32(&p->act, flat, count_flat);
                    for (r = 0; r < y1 - y0; ++r, y += ow) {
                        if (!z) {
                            memcpy(y, flat + r * h, (size_t)ow * sizeof(float));
                            continue;
                        }
                        for (t = 0; t < ow; ++t) y[t] = flat[r * h + t] + z[r * ow + t];
                        mmd__act_f32(&p->act, y, ow);
                    }
                    continue;
                }
                for (r = 0; r < y1 - y0; ++r, y += ow) {
                    for (n = 0, kh = 0; kh < w->k[1]; ++kh)
                        for (t = 0; t < kw; ++t, ++n) {
                            ptr[n] = rows + (r * w->s[1] + kh * w->d[1]) * len + t * w->d[2];
                            wv[n] = k[kh * kw + t];
                        }
                    row(y, ptr, wv, n, bias, ow, w->s[2]);
                    mmd__add_act(y, z ? z + r * ow : NULL, ow, &p->act);
                }
            }
        }
    }
}


/* DEPTHWISE over the session's threads: share `index` takes channels [index * step, ...) of the
   images' channels, reading them from the input tensor, its part of the scratch its own. */
static void mmd__dw_task(void *data, int32_t index) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    int64_t count = p->batch * p->in_ch, lo = index * p->step, hi = lo + p->step < count ? lo + p->step : count;
    mmd__dw_channels(j, (float *)(void *)((char *)j->buf + (size_t)index * (size_t)p->share), lo, hi,
                     j->x + lo * p->w.in[1] * p->w.in[2]);
}

#endif

static mmd_status mmd__conv_f32_eval(mmd_kernel_ctx *c) {
    const mmd__conv_data *p = (const mmd__conv_data *)c->op_data;
    const mmd__window *w = &p->w;
    mmd__conv_job job;
    mmd__gemm g;
    int64_t in_plane = w->in[0] * w->in[1] * w->in[2], out_plane = w->out[0] * w->out[1] * w->out[2];
    int64_t cg = p->in_ch / p->group, mg = p->gm, per = mmd__gemm_packed_a_size(p->gm, p->gk, p->isa);
    int64_t *rows = (int64_t *)((char *)c->scratch + p->gemm_bytes), b, grp, q;
    float *extra = (float *)(rows + mmd__round_up(p->gk, 8));
    const float *z;
    if (mmd_tensor_numel(c->outputs[0]) == 0) return MMD_OK; /* else group up to 2^40 could loop for nothing */
    memset(&job, 0, sizeof job);
    job.p = p;
    job.wt = (const float *)c->inputs[1]->data;
    job.bias = c->input_count > 2 && c->inputs[2] ? (const float *)c->inputs[2]->data : NULL;
    job.z = z = p->has_z ? (const float *)c->inputs[3]->data : NULL;
#ifndef MMD_CONV_SMALL
    if (p->path == MMD__CONV_DIRECT) {
        int64_t *r = (int64_t *)c->scratch, a, t;
        for (a = 0; a < 3; ++a)
            for (t = 0; t < w->k[a]; ++t, r += 2)
                mmd__valid_range(t * w->d[a] - w->pad[a], w->s[a], w->out[a], w->in[a], &r[0], &r[1]);
        job.x = (const float *)c->inputs[0]->data;
        job.y = (float *)c->outputs[0]->data;
        job.range = (const int64_t *)c->scratch;
        mmd_kernel_parallel(c, mmd__conv_direct_task, &job, (int32_t)(p->batch * p->group));
        return MMD_OK;
    }
    if (p->path == MMD__CONV_DEPTHWISE) {
        int64_t count = p->batch * p->in_ch;
        job.x = (const float *)c->inputs[0]->data;
        job.y = (float *)c->outputs[0]->data;
        job.buf = (float *)(((uintptr_t)c->scratch + 63u) & ~(uintptr_t)63u);
        if (count > 0) mmd_kernel_parallel(c, mmd__dw_task, &job, (int32_t)((count + p->step - 1) / p->step));
        return MMD_OK;
    }
#ifndef MMD_NO_WINOGRAD
    if (p->path == MMD__CONV_WINOGRAD) {
        job.buf = (float *)(((uintptr_t)c->scratch + 63u) & ~(uintptr_t)63u);
        for (b = 0; b < p->batch; ++b) {
            job.x = (const float *)c->inputs[0]->data + b * p->in_ch * in_plane;
            job.y = (float *)c->outputs[0]->data + b * p->out_ch * out_plane;
            job.z = z ? z + b * p->out_ch * out_plane : NULL;
            mmd_kernel_parallel(c, mmd__wino_task, &job, p->wino_shares);
        }
        return MMD_OK;
    }
#endif
    if (p->path == MMD__CONV_PIXEL) {
        memset(&g, 0, sizeof g);
        g.m = 1;
        g.n = mg;
        g.k = p->gk;
        g.a_rs = p->gk;
        g.a_cs = 1;
        g.b = job.wt;
        g.b_packed = p->packed;
        g.b_rs = 1;
        g.b_cs = p->gk;
        g.ldc = mg;
        g.load = job.bias != NULL;
        g.c0 = job.bias;
        g.act = p->act;
        g.isa = p->isa;
        for (b = 0; b < p->batch; ++b) {
            g.a = (const float *)c->inputs[0]->data + b * p->gk;
            g.c = (float *)c->outputs[0]->data + b * mg;
            mmd__gemm_run(c, &g, c->scratch, p->threads);
        }
        return MMD_OK;
    }
#endif
#ifndef MMD_CONV_SMALL
    /* The offsets of the K rows of the columns within the columns' buffer (IM2COL's bands set
       theirs again). */
    for (q = 0; q < p->gk; ++q) {
        int64_t ci = q / (w->k[1] * w->k[2]), ry = q / w->k[2] % w->k[1] * w->d[1], rx = q % w->k[2] * w->d[2];
        rows[q] = p->path == MMD__CONV_POINTWISE || p->path == MMD__CONV_SWEEP || p->path == MMD__CONV_NARROW ? q * (p->sub ? out_plane : in_plane)
                  : p->path == MMD__CONV_SHIFTED || p->path == MMD__CONV_STEM ? ci * p->plane + (ry % w->s[1] * w->s[2] + rx % w->s[2]) * p->hp * p->wp +
                                                       ry / w->s[1] * p->wp + rx / w->s[2]
                                                 : q * p->gn;
    }
#endif
    memset(&g, 0, sizeof g);
    g.m = mg;
    g.k = p->gk;
    g.a_rs = p->gk;
    g.a_cs = 1;
    g.b_rows = rows;
    g.isa = p->isa;
    g.act = p->act;
    job.buf = extra;
    job.tmp = extra + cg * p->plane;
    for (b = 0; b < p->batch; ++b)
        for (grp = 0; grp < p->group; ++grp) {
            const float *xg = (const float *)c->inputs[0]->data + (b * p->in_ch + grp * cg) * in_plane;
            float *yg = (float *)c->outputs[0]->data + (b * p->out_ch + grp * mg) * out_plane;
            const float *zg = z ? z + (b * p->out_ch + grp * mg) * out_plane : NULL;
            g.a = job.wt + grp * mg * p->gk;
            g.a_packed = p->packed ? p->packed + grp * per : NULL;
            g.bias = job.bias ? job.bias + grp * mg : NULL;
            job.x = xg;
#ifndef MMD_CONV_SMALL
            if (p->sub) {
                mmd__parallel_range(c, cg, MMD__EW_GRAIN / out_plane, 1, INT32_MAX, mmd__conv_sub_range, &job);
                job.x = xg = job.buf;
            }
            if (p->path == MMD__CONV_POINTWISE || p->path == MMD__CONV_SWEEP) {
                g.b = xg;
                g.n = out_plane;
                g.c = yg;
                g.ldc = out_plane;
                g.load = zg != NULL;
                g.c0 = zg;
                g.rows_first = p->gm >= 2 * p->gk && !p->sub && (p->gm / p->threads + p->gk) * out_plane <= MMD__ROWS_FIRST_FLOATS;
                if (p->path == MMD__CONV_SWEEP) mmd__conv_sweep(c, &g, c->scratch, p->threads);
                else mmd__gemm_run(c, &g, c->scratch, p->threads);
                continue;
            }
            if (p->path == MMD__CONV_STEM) {
                /* Tiles of output rows per thread, a share at least 2^18 multiply-adds so that a
                   small convolution wakes nobody (divided in turn: no product of sizes overflows). */
                int64_t tiles = (w->out[1] + MMD__STEM_ROWS - 1) / MMD__STEM_ROWS;
                int64_t grain = ((int64_t)1 << 18) / (mg * p->gk) / (MMD__STEM_ROWS * w->out[2]);
                job.buf = (float *)(((uintptr_t)extra + 63u) & ~(uintptr_t)63u);
                job.wt = p->packed;
                if (!job.wt) {
                    float *wt = (float *)(void *)((char *)job.buf + (size_t)p->threads * (size_t)p->share);
                    mmd__stem_pack((const float *)c->inputs[1]->data, mg, p->gk, p->isa, wt);
                    job.wt = wt;
                }
                job.y = yg;
                job.z = zg;
                job.range = rows;
                mmd__parallel_range(c, tiles, grain, 1, p->threads, mmd__stem_range, &job);
                continue;
            }
#if defined(MMD__X86)
            if (p->path == MMD__CONV_NARROW) {
                job.y = yg;
                job.z = zg;
                job.range = rows;
                mmd__parallel_range(c, mg / 16 * (out_plane / MMD__NARROW_PIX), 1, 1, p->threads, mmd__narrow_range, &job);
                continue;
            }
#endif
            if (p->path == MMD__CONV_SHIFTED) {
                mmd__parallel_range(c, cg, MMD__EW_GRAIN / (p->plane > 0 ? p->plane : 1), 1, INT32_MAX, mmd__conv_pad_range, &job);
                g.b = job.buf;
                g.n = p->gn;
                g.c = job.tmp;
                g.ldc = p->gn;
                g.spread = 1;
                if (zg) g.act.kind = MMD__ACT_NONE;
                job.y = yg;
                job.z = zg;
                /* Chunks of the GEMM's own column block, so that A is read no more often. */
                mmd__gemm_run_then(c, &g, c->scratch, p->threads, mmd__conv_compact, &job, MMD_GEMM_NC);
                continue;
            }
#endif
            {
                int64_t rows_all = w->out[0] * w->out[1], r0;
                for (r0 = 0; r0 < rows_all; r0 += p->band) {
                    int64_t r1 = r0 + p->band < rows_all ? r0 + p->band : rows_all, cols = (r1 - r0) * w->out[2];
                    job.r0 = r0;
                    job.r1 = r1;
                    mmd__parallel_range(c, p->gk, MMD__EW_GRAIN / cols, 1, INT32_MAX, mmd__conv_im2col_range, &job);
                    for (q = 0; q < p->gk; ++q) rows[q] = q * cols;
                    g.b = job.buf;
                    g.n = cols;
                    g.c = yg + r0 * w->out[2];
                    g.ldc = out_plane;
                    g.load = zg != NULL;
                    g.c0 = zg ? zg + r0 * w->out[2] : NULL;
                    mmd__gemm_run(c, &g, c->scratch, p->threads);
                }
            }
        }
    return MMD_OK;
}

/* com.microsoft FusedConv: Y = activation(Conv(X, W, B) + Z), Z optional and of Y's shape. */
static mmd_status mmd__fused_conv_f32_prepare(mmd_kernel_ctx *c) {
    mmd__conv_data *p = (mmd__conv_data *)c->op_data;
    const mmd_tensor *y, *z;
    int32_t d;
    mmd_status st = mmd__conv_f32_prepare(c);
    if (st == MMD_OK) st = mmd__act_attrs(c, &p->act);
    if (st != MMD_OK) return st;
    y = c->outputs[0];
    z = c->input_count > 3 ? c->inputs[3] : NULL;
    p->has_z = z != NULL;
    if (!z) return MMD_OK;
    for (d = 0; d < y->rank && z->rank == y->rank && z->dims[d] == y->dims[d]; ++d) {}
    if (d < y->rank || z->rank != y->rank) {
        char tz[96], ty[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "Z %s is not the output's shape %s",
                               mmd__dims_text(tz, sizeof tz, z->rank, z->dims), mmd__dims_text(ty, sizeof ty, y->rank, y->dims));
    }
    return MMD_OK;
}

#ifndef MMD_CONV_SMALL
/* ==== >>ops pointwise depthwise ==== */
/* mmd PointwiseDepthwise (made by the load-time rewrites, >>ir rewrites pass 4): a 1x1
   convolution (stride 1, no padding, one group) and the depthwise convolution that alone reads
   its output, as one node: Y = act(DW(act1(Conv1x1(X, W1, B1)), W2, B2) + Z). Inputs X [N, C, H,
   W], W1 [M, C, 1, 1], B1 [M] (optional), W2 [M, 1, kh, kw], B2 [M] (optional), Z (optional, Y's
   shape); the depthwise convolution's attributes (strides, pads, dilations, auto_pad,
   kernel_shape, group M, FusedConv's activation and activation_params) and the 1x1's
   activation attributes prefixed pointwise_ (pointwise_activation, ...). The expanded tensor (M
   planes of H x W, MobileNetV2's 96 at 112x112 4.8 MB) is never stored: a share computes `rows`
   of its channels at a time over the whole plane into a buffer that stays in L2 with the 1x1's
   input (the product's rows [g0, g0 + rows) by mmd__gemm_block, the packed weights of those
   rows contiguous when C is at most one K block), then the depthwise convolution of those
   channels reads them there (mmd__dw_channels); shares take groups of channels. Each element is
   the product's and the depthwise convolution's own sum, taken in the same order as the two
   nodes take it, so the outputs are theirs bit for bit. Per pair in the model, 1 thread, the
   two nodes' time against the fused node's (medians of 300 runs, two rounds, loaded 2-core
   Xeon, AVX-512): MobileNetV2's 16 -> 96 at 112x112 then 3x3 stride 2 0.60 -> 0.45 ms, 24 ->
   144 at 56x56 0.34 -> 0.27 (stride 1) and 0.25 -> 0.20 (stride 2), 0.81-0.93x at 28x28,
   0.91-0.97x at 14x14, but 1.00-1.04x at 7x7, where the expanded tensor fits in L2 anyway
   (hence MMD_FUSE_PLANE_MIN); at 2 threads (medians of 5 rounds of 200 runs, noisier)
   0.74-0.79x at 112x112 and 56x56 and on the first 28x28 pair, 0.91-1.00x on the others. */
#ifndef MMD__PWDW_BUFFER
#define MMD__PWDW_BUFFER ((int64_t)1 << 18) /* floats of a share's expanded channels (1 MB) */
#endif

typedef struct mmd__pwdw_data {
    mmd__conv_data dw;                  /* the depthwise convolution, planned as DEPTHWISE */
    mmd__act act;                       /* the 1x1's activation */
    const float *packed;                /* W1 packed for the product (mmd__gemm_pack_a), or NULL */
    int64_t k;                          /* the 1x1's input channels */
    int64_t rows, groups;               /* channels a group, groups an image */
    int64_t step;                       /* groups (over all images) a share */
    int32_t shares;
    int64_t gemm_floats, buf_floats;    /* a share's product scratch and expanded channels */
    size_t share_bytes;                 /* both and the depthwise share's */
} mmd__pwdw_data;

static mmd_status mmd__pwdw_f32_prepare(mmd_kernel_ctx *c) {
    mmd__pwdw_data *p = (mmd__pwdw_data *)c->op_data;
    mmd__conv_data *d = &p->dw;
    const mmd_tensor *x, *w1, *b1, *w2, *b2, *z;
    const int64_t *kshape;
    int64_t nk, g, m, plane, mr, total, dims[4];
    mmd_attr act[4];
    mmd_node pn;
    mmd_kernel_ctx pc;
    int32_t j, na = 0;
    mmd_status st = mmd__check_io(c, 2, 6, 1);
    if (st == MMD_OK) st = mmd__want_dtype_all(c, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 4, 4);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 4, 4);
    if (st == MMD_OK) st = mmd__want_rank(c, 3, 4, 4);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "group", 1, &g);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "kernel_shape", &kshape, &nk);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    w1 = c->inputs[1];
    b1 = c->inputs[2];
    w2 = c->inputs[3];
    b2 = c->input_count > 4 ? c->inputs[4] : NULL;
    z = c->input_count > 5 ? c->inputs[5] : NULL;
    m = w1->dims[0];
    if (w1->dims[1] != x->dims[1] || w1->dims[2] != 1 || w1->dims[3] != 1)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "weight '%s' must be [M, %lld, 1, 1]", w1->name ? w1->name : "",
                               (long long)x->dims[1]);
    if (w2->dims[0] != m || w2->dims[1] != 1 || g != m)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "depthwise weight '%s' must be [%lld, 1, kh, kw] and group %lld is not %lld",
                               w2->name ? w2->name : "", (long long)m, (long long)g, (long long)m);
    if ((b1 && (b1->rank != 1 || b1->dims[0] != m)) || (b2 && (b2->rank != 1 || b2->dims[0] != m)))
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "biases must have shape [%lld]", (long long)m);
    if (nk && (nk != 2 || kshape[0] != w2->dims[2] || kshape[1] != w2->dims[3]))
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "kernel_shape is not the depthwise weight's");
    memset(d, 0, sizeof *d);
    d->batch = x->dims[0];
    d->in_ch = d->out_ch = d->group = m;
    if ((st = mmd__window_prepare(c, 2, x->dims + 2, w2->dims + 2, 0, &d->w)) != MMD_OK) return st;
    dims[0] = d->batch;
    dims[1] = m;
    dims[2] = d->w.out[1];
    dims[3] = d->w.out[2];
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims)) != MMD_OK) return st;
    if (z) {
        for (j = 0; j < 4 && z->rank == 4 && z->dims[j] == dims[j]; ++j) {}
        if (j < 4) return mmd_kernel_fail(c, MMD_ERR_SHAPE, "Z '%s' is not the output's shape", z->name ? z->name : "");
    }
    d->has_z = z != NULL;
    if ((st = mmd__act_attrs(c, &d->act)) != MMD_OK) return st;
    /* The 1x1's activation, read by the one parser of FusedConv's (mmd__act_attrs) from a copy of
       the node whose attributes are its pointwise_activation* ones under their FusedConv names
       (the first four: a repeated name is the model's error, which the parser meets anyway). */
    for (j = 0; j < c->node->attr_count && na < 4; ++j)
        if (!strncmp(c->node->attrs[j].name, "pointwise_activation", strlen("pointwise_activation"))) {
            act[na] = c->node->attrs[j];
            act[na++].name += strlen("pointwise_");
        }
    pn = *c->node;
    pn.attrs = act;
    pn.attr_count = na;
    pc = *c;
    pc.node = &pn;
    if ((st = mmd__act_attrs(&pc, &p->act)) != MMD_OK) return st;
    d->isa = mmd__isa();
    d->threads = c->threads > 1 ? c->threads : 1;
    p->k = x->dims[1];
    plane = x->dims[2] * x->dims[3];
    mr = mmd__gemm_mr(d->isa);
    /* As many whole row panels as the buffer holds, at least one, and no more than a thread's
       part of the M rows, so that every thread has a group. */
    p->rows = plane > 0 ? MMD__PWDW_BUFFER / plane / mr * mr : mr;
    if (p->rows > mmd__round_up((m + d->threads - 1) / d->threads, mr))
        p->rows = mmd__round_up((m + d->threads - 1) / d->threads, mr);
    if (p->rows < mr) p->rows = mr;
    p->groups = (m + p->rows - 1) / p->rows;
    total = d->batch * p->groups;
    p->shares = (int32_t)(total < d->threads ? (total > 0 ? total : 1) : d->threads);
    p->step = (total + p->shares - 1) / p->shares;
    if ((st = mmd__dw_plan(c, d, p->shares)) != MMD_OK) return st;
    if (p->rows > MMD__ELEMS_MAX / (plane > 0 ? plane : 1)) return mmd_kernel_fail(c, MMD_ERR_LIMIT, "planes too large");
    p->gemm_floats = mmd__round_up(mmd__gemm_share_floats(p->rows, plane, p->k, d->isa), 16);
    /* The depthwise AVX-512 paths' whole-vector reads stay within MMD__DW_SLACK past a plane. */
    p->buf_floats = mmd__round_up(p->rows * plane + MMD__DW_SLACK, 16);
    p->share_bytes = (size_t)(p->gemm_floats + p->buf_floats) * sizeof(float) + (size_t)mmd__round_up(d->share, 64);
    if ((st = mmd__scratch_request(c, (uint64_t)mmd__round_up(p->k, 8) * sizeof(int64_t) +
                                          (uint64_t)p->shares * (uint64_t)p->share_bytes + 64u)) != MMD_OK)
        return st;
    p->packed = NULL;
    if (MMD__PACKS && mmd_tensor_is_const(w1) && m > 0 && p->k > 0 && p->k <= mmd__gemm_kc(d->isa)) {
        int32_t fresh;
        float *dst = (float *)mmd_kernel_packed(c, (size_t)mmd__gemm_packed_a_size(m, p->k, d->isa) * sizeof(float), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
        if (dst && fresh) mmd__gemm_pack_a((const float *)w1->data, p->k, 1, m, p->k, d->isa, dst);
        p->packed = dst;
    }
    return MMD_OK;
}

typedef struct mmd__pwdw_job {
    const mmd__pwdw_data *p;
    mmd__gemm g;                        /* the whole 1x1 product; a group takes its rows */
    mmd__conv_job dw;                   /* the depthwise convolution's weights, bias, Z and Y */
    const float *x;
    char *scratch;                      /* 64-byte aligned, share_bytes a share */
} mmd__pwdw_job;

/* Share `index`: its groups of channels, each expanded into the buffer then convolved. */
static void mmd__pwdw_task(void *data, int32_t index) {
    const mmd__pwdw_job *j = (const mmd__pwdw_job *)data;
    const mmd__pwdw_data *p = j->p;
    int64_t m = p->dw.out_ch, in_plane = p->dw.w.in[1] * p->dw.w.in[2], total = p->dw.batch * p->groups, q;
    float *gs = (float *)(void *)(j->scratch + (size_t)index * p->share_bytes), *buf = gs + p->gemm_floats;
    for (q = index * p->step; q < total && q < (index + 1) * p->step; ++q) {
        int64_t b = q / p->groups, g0 = q % p->groups * p->rows, g1 = g0 + p->rows < m ? g0 + p->rows : m;
        mmd__gemm g = j->g;
        g.m = g1 - g0;
        g.a += g0 * p->k;
        if (g.a_packed) g.a_packed += g0 * p->k;
        if (g.bias) g.bias += g0;
        g.b = j->x + b * p->k * in_plane;
        g.c = buf;
        mmd__gemm_block(&g, 0, g.m, 0, g.n, gs);
        mmd__dw_channels(&j->dw, buf + p->buf_floats, b * m + g0, b * m + g1, buf);
    }
}

static mmd_status mmd__pwdw_f32_eval(mmd_kernel_ctx *c) {
    const mmd__pwdw_data *p = (const mmd__pwdw_data *)c->op_data;
    int64_t *rows = (int64_t *)(((uintptr_t)c->scratch + 63u) & ~(uintptr_t)63u), q;
    int64_t in_plane = p->dw.w.in[1] * p->dw.w.in[2];
    mmd__pwdw_job job;
    if (mmd_tensor_numel(c->outputs[0]) == 0) return MMD_OK;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.x = (const float *)c->inputs[0]->data;
    job.scratch = (char *)(rows + mmd__round_up(p->k, 8));
    for (q = 0; q < p->k; ++q) rows[q] = q * in_plane;
    job.g.n = in_plane;
    job.g.k = p->k;
    job.g.a = (const float *)c->inputs[1]->data;
    job.g.a_packed = p->packed;
    job.g.a_rs = p->k;
    job.g.a_cs = 1;
    job.g.b_rows = rows;
    job.g.ldc = in_plane;
    job.g.bias = c->inputs[2] ? (const float *)c->inputs[2]->data : NULL;
    job.g.act = p->act;
    job.g.isa = p->dw.isa;
    job.dw.p = &p->dw;
    job.dw.wt = (const float *)c->inputs[3]->data;
    job.dw.bias = c->input_count > 4 && c->inputs[4] ? (const float *)c->inputs[4]->data : NULL;
    job.dw.z = p->dw.has_z ? (const float *)c->inputs[5]->data : NULL;
    job.dw.y = (float *)c->outputs[0]->data;
    mmd_kernel_parallel(c, mmd__pwdw_task, &job, p->shares);
    return MMD_OK;
}
#endif

/* |v|^p with the common exponents spelled out, which is both faster and exact. */
static float mmd__lp_term(float v, float p) {
    return p == 2.0f ? v * v : p == 1.0f ? fabsf(v) : powf(fabsf(v), p);
}

static float mmd__lp_root(float s, float p) {
    return p == 2.0f ? sqrtf(s) : p == 1.0f ? s : powf(s, 1.0f / p);
}

/* The p attribute of LpPool and GlobalLpPool: a float (default 2.0) in version 1, an int
   (default 2) from version 2 on; it must be positive. */
static mmd_status mmd__lp_norm_p(mmd_kernel_ctx *c, float *p) {
    int64_t pi;
    mmd_status st;
    if (c->opset < 2) {
        st = mmd_attr_get_float(c, "p", 2.0f, p);
    } else {
        st = mmd_attr_get_int(c, "p", 2, &pi);
        *p = (float)pi;
        if (pi > MMD__ATTR_MAX) *p = 0.0f;
    }
    if (st == MMD_OK && !(*p > 0.0f && *p <= (float)MMD__ATTR_MAX))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "p must be a positive number");
    return st;
}

/* The window pools, told apart by op_type. */
enum { MMD__POOL_MAX, MMD__POOL_AVERAGE, MMD__POOL_LP };
/* The pool modes whose ops the build keeps (MMD__KEEP), bit 1 << mode each. */
#define MMD__POOLS_WINDOW (MMD__KEEP(MaxPool) | MMD__KEEP(AveragePool) << 1 | MMD__KEEP(LpPool) << 2)
#define MMD__POOLS_GLOBAL (MMD__KEEP(GlobalMaxPool) | MMD__KEEP(GlobalAveragePool) << 1 | MMD__KEEP(GlobalLpPool) << 2)

/* A pool's mode as prepare and eval test it: where the build keeps one op of the family only,
   that op's mode as a constant, so that the compiler drops the other modes' code. */
static int32_t mmd__pool_mode(int32_t mode, int32_t kept) {
    return kept == 1 ? MMD__POOL_MAX : kept == 2 ? MMD__POOL_AVERAGE : kept == 4 ? MMD__POOL_LP : mode;
}

typedef struct mmd__pool_data {
    mmd__window w;
    int64_t planes;                     /* N * C */
    int32_t mode;                       /* MMD__POOL_MAX, _AVERAGE or _LP */
    int32_t count_include_pad;
    int32_t column_major;               /* MaxPool storage_order 1: Indices count axis 0 fastest */
    float p;                            /* LpPool's exponent */
    int32_t rows;                       /* > 0: the row path (mmd__pool_rows_f32), with scratch
                                           for this many shares; 0: the generic loops */
    int32_t isa;                        /* mmd__isa() for the row path */
    int32_t bytes;                      /* MaxPool of int8 or uint8 (the row path only) */
    int32_t vec;                        /* MaxPool's AVX-512 rows on floats: 0 none, 1
                                           mmd__pool_max_row_avx512, 2 mmd__pool_max3s2_avx512 */
} mmd__pool_data;

/* MaxPool on int8 or uint8 (the row path, which is the only one for bytes): in host builds,
   and in firmware builds (MMD_CONV_SMALL) only when they keep QLinearConv, since a MaxPool reads
   bytes only in a quantized graph (the load-time rewrite moves its DequantizeLinear after it);
   the float firmware so carries none of it. */
#if !defined(MMD_CONV_SMALL) || MMD__KEEP(QLinearConv)
#define MMD__POOL_BYTES 1
#else
#define MMD__POOL_BYTES 0
#endif

#if defined(MMD__X86) && !defined(MMD_CONV_SMALL)
/* Input rows a window of MaxPool's AVX-512 row path may span (mmd__pool_max_row_avx512), and
   columns: a tap's shift within two blocks of vertical maxima is at most 16 (see there). */
#define MMD__POOL_ROWS_MAX 16
#define MMD__POOL_TAPS_MAX 17
#endif

#if MMD__POOL_BYTES
/* The row path of MaxPool (without Indices) and AveragePool over one or two spatial axes
   without dilation (in MMD_CONV_SMALL builds for bytes only: their float pools take the loops
   of mmd__pool_f32_eval): for each output row the window's input rows are combined (max or sum)
   into one row of scratch by the vector rows of mmd__bin_f32, and each output then takes its
   k columns from that row. Every window holds an input element (pads are smaller than the
   kernel), so the maximum needs no -inf fill. Shares are planes, each with its own row. */
static void mmd__pool_rows_prepare(mmd_kernel_ctx *c, mmd__pool_data *p) {
    const mmd__window *w = &p->w;
    size_t slots = c->threads > 1 ? (size_t)c->threads : 1;
    p->rows = 0;
    if (p->mode == MMD__POOL_LP || w->in[0] != 1 || w->k[0] != 1 || w->pad[0] || w->d[1] != 1 || w->d[2] != 1)
        return;
    /* The input's own byte count fits a size_t, so one row of it does; the shares must too. */
    if ((size_t)w->in[2] > (size_t)-1 / sizeof(float) / slots) slots = 1;
    p->rows = (int32_t)slots;
    p->isa = mmd__isa();
    c->scratch_size = slots * (size_t)w->in[2] * (p->bytes ? 1 : sizeof(float));
#if defined(MMD__X86) && !defined(MMD_CONV_SMALL)
    p->vec = 0;
    if (p->mode == MMD__POOL_MAX && !p->bytes && p->isa == MMD__ISA_AVX512 && (w->s[2] == 1 || w->s[2] == 2) &&
        w->k[1] <= MMD__POOL_ROWS_MAX && w->k[2] <= MMD__POOL_TAPS_MAX)
        p->vec = w->k[1] == 3 && w->k[2] == 3 && w->s[1] == 2 && w->s[2] == 2 && w->pad[2] <= 1 ? 2 : 1;
#endif
}

typedef struct mmd__pool_job {
    const mmd__pool_data *p;
    const float *x;
    float *y, *scratch;
    int32_t flip;                       /* bytes: 0x80 for int8, compared as uint8 x ^ 0x80 */
} mmd__pool_job;

/* a[i] = max(a[i], b[i]) over n bytes (SSE2 sixteen at a time on x86). */
/* a[i] = max(a[i], b[i] ^ f) as unsigned bytes (f 0x80 moves int8 into unsigned order). */
static void mmd__max_u8(uint8_t *MMD__RESTRICT a, const uint8_t *MMD__RESTRICT b, uint8_t f, int64_t n) {
    int64_t i = 0;
#if defined(MMD__X86)
    const __m128i flip = _mm_set1_epi8((char)f);
    for (; i + 16 <= n; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(a + i),
                         _mm_max_epu8(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
                                      _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(b + i)), flip)));
#endif
    for (; i < n; ++i) a[i] = (uint8_t)(b[i] ^ f) > a[i] ? (uint8_t)(b[i] ^ f) : a[i];
}

#if defined(MMD__X86)
/* Outputs [o, o1) of a row whose windows lie inside it, sixteen at a time (SSE2): y[o] =
   max of acc[o s - pad + t] for t in [0, k), stride s 1 or 2 (the even bytes of 32, as in
   mmd__q_gather2), as unsigned bytes then moved back by f. Reads stay within acc's iw bytes;
   returns the first output not done. */
static int64_t mmd__pool_row_q8_sse2(const uint8_t *acc, int64_t iw, int64_t o, int64_t o1, int64_t k, int64_t s,
                                     int64_t pad, uint8_t f, uint8_t *y) {
    const __m128i even = _mm_set1_epi16(0xff), flip = _mm_set1_epi8((char)f);
    int64_t t;
    for (; o + 16 <= o1 && o * s - pad + k - 1 + 16 * s <= iw; o += 16) {
        const uint8_t *r = acc + o * s - pad;
        __m128i m = _mm_setzero_si128();
        for (t = 0; t < k; ++t) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(r + t));
            if (s == 2)
                v = _mm_packus_epi16(_mm_and_si128(v, even),
                                     _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(r + t + 16)), even));
            m = _mm_max_epu8(m, v);
        }
        _mm_storeu_si128((__m128i *)(void *)(y + o), _mm_xor_si128(m, flip));
    }
    return o;
}
#endif

/* The row path of MaxPool on int8 or uint8 (p->bytes): per output row the maximum of the
   window's input rows, as unsigned bytes (int8 moved by 0x80, which keeps the order), then per
   output the maximum of its taps; the scratch row is bytes. An exact maximum, so the bytes
   are those of the float MaxPool of the dequantized values, quantized again. */
static void mmd__pool_rows_q8(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__pool_job *j = (const mmd__pool_job *)data;
    const mmd__window *w = &j->p->w;
    int64_t ih = w->in[1], iw = w->in[2], oh = w->out[1], ow = w->out[2], pl, o1, o2, t, lo1, hi1, lo2, hi2;
    uint8_t *acc = (uint8_t *)j->scratch + (int64_t)share * iw, f = (uint8_t)j->flip;
    /* The columns whose window lies inside the input, as in mmd__pool_rows_f32. */
    int64_t a2 = (w->pad[2] + w->s[2] - 1) / w->s[2], b2 = iw + w->pad[2] - w->k[2] < 0 ? 0 : (iw + w->pad[2] - w->k[2]) / w->s[2] + 1;
    if (b2 > ow) b2 = ow;
    if (a2 > b2) a2 = b2;
    for (pl = lo; pl < hi; ++pl) {
        const uint8_t *xp = (const uint8_t *)j->x + pl * ih * iw;
        uint8_t *yp = (uint8_t *)j->y + pl * oh * ow;
        for (o1 = 0; o1 < oh; ++o1, yp += ow) {
            int64_t s1 = o1 * w->s[1] - w->pad[1];
            mmd__valid_range(s1, 1, w->k[1], ih, &lo1, &hi1);
            if (hi1 <= lo1) {
                /* A window past the input (ceil_mode): the type's minimum, as -FLT_MAX would be. */
                memset(yp, f, (size_t)ow);
                continue;
            }
            for (t = 0; t < iw; ++t) acc[t] = (uint8_t)(xp[(s1 + lo1) * iw + t] ^ f);
            for (t = lo1 + 1; t < hi1; ++t) mmd__max_u8(acc, xp + (s1 + t) * iw, f, iw);
            for (o2 = 0; o2 < ow; ++o2) {
                int64_t s2;
                uint8_t v;
#if defined(MMD__X86)
                /* The outputs whose window lies inside the row, sixteen at a time. */
                if (o2 == a2 && (w->s[2] == 1 || w->s[2] == 2) &&
                    (o2 = mmd__pool_row_q8_sse2(acc, iw, o2, b2, w->k[2], w->s[2], w->pad[2], f, yp)) == ow)
                    break;
#endif
                s2 = o2 * w->s[2] - w->pad[2];
                if (o2 >= a2 && o2 < b2) {
                    /* The whole window inside the row. */
                    const uint8_t *r = acc + s2;
                    for (v = r[0], t = 1; t < w->k[2]; ++t) v = r[t] > v ? r[t] : v;
                    yp[o2] = (uint8_t)(v ^ f);
                    continue;
                }
                mmd__valid_range(s2, 1, w->k[2], iw, &lo2, &hi2);
                if (hi2 <= lo2) {
                    yp[o2] = f;
                    continue;
                }
                v = acc[s2 + lo2];
                for (t = lo2 + 1; t < hi2; ++t) v = acc[s2 + t] > v ? acc[s2 + t] : v;
                yp[o2] = (uint8_t)(v ^ f);
            }
        }
    }
}
#endif

#ifndef MMD_CONV_SMALL
#if defined(MMD__X86)

/* The maximum over the nr rows of the 16 columns from off (-16 <= off) of rows len floats
   long, the columns outside them -inf; *bad gets the columns where a row holds a NaN. Columns
   before the row's start are read from column 0 on and moved up by -off lanes. max(v, m) keeps
   m when either is NaN, so a NaN first row stays in m and each later row is checked against m
   before it is taken: one comparison a row. */
MMD__TARGET_AVX512 static inline __m512 mmd__pool_vmax_avx512(const float *const *rows, int64_t nr, int64_t off,
                                                             int64_t len, __mmask16 *bad) {
    const __m512 fill = _mm512_set1_ps(-INFINITY);
    int64_t at = off < 0 ? 0 : off, r;
    __mmask16 ml = mmd__lanes16(0, len - at);
    __m512 m = _mm512_mask_loadu_ps(fill, ml, rows[0] + at), v;
    if (nr == 1) *bad |= _mm512_cmp_ps_mask(m, m, _CMP_UNORD_Q);
    for (r = 1; r < nr; ++r) {
        v = _mm512_mask_loadu_ps(fill, ml, rows[r] + at);
        *bad |= _mm512_cmp_ps_mask(v, m, _CMP_UNORD_Q);
        m = _mm512_max_ps(v, m);
    }
    if (off < 0) {
        const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        m = _mm512_mask_permutexvar_ps(fill, (__mmask16)(0xffffu << -off), _mm512_add_epi32(iota, _mm512_set1_epi32((int)off)), m);
        *bad = (__mmask16)(*bad << -off);
    }
    return m;
}

/* One output row of a 2-D MaxPool at stride s (1 or 2) and k <= MMD__POOL_TAPS_MAX taps:
   y[i] = the maximum of rows[r][start + s i + t] over the nr rows r and the k taps t that lie
   in the rows (len floats each; start >= -16 is minus the left padding), for the n outputs,
   sixteen at a time. Each block of 16 s columns is read once from every input row and reduced
   over the rows in registers (at stride 2 then split into its even and odd columns by two
   permutes), the columns outside the rows -inf; a tap t of sixteen outputs is then block i's
   maxima shifted by t (stride 1) or by t / 2 in the even or odd ones (stride 2), completed from
   block i + 1's, which the next sixteen outputs reuse. The loop before read every column once
   per tap pair and row, and left the windows that reach the padding to a scalar loop per row:
   ResNet-18's 3x3 stride-2 pool over 64x112x112 took 0.31 ms (one thread, 0.19-0.30 ms for
   ONNX Runtime's). Sixteen outputs where either block holds a NaN are computed again by the
   scalar loop, which gives NaN for a window that holds one. */
MMD__TARGET_AVX512 static void mmd__pool_max_row_avx512(const float *const *rows, int64_t nr, int64_t start, int64_t len,
                                                        float *y, int64_t n, int64_t k, int64_t s) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512 e0, o0 = _mm512_setzero_ps(), e1, o1 = o0, m, v, lo, hi;
    __mmask16 bad0 = 0, bad1;
    int64_t i, t, r, o;
    /* Block i's vertical maxima: e (stride 1: the 16 columns; stride 2: the even ones of 32)
       and o (stride 2: the odd ones). */
#define MMD__POOL_BLOCK(i, e, o, bad)                                                              \
    do {                                                                                           \
        if (s == 1) {                                                                              \
            e = mmd__pool_vmax_avx512(rows, nr, start + (i), len, &bad);                           \
        } else {                                                                                   \
            lo = mmd__pool_vmax_avx512(rows, nr, start + 2 * (i), len, &bad);                      \
            hi = mmd__pool_vmax_avx512(rows, nr, start + 2 * (i) + 16, len, &bad);                 \
            e = _mm512_permutex2var_ps(lo, even, hi);                                              \
            o = _mm512_permutex2var_ps(lo, odd, hi);                                               \
        }                                                                                          \
    } while (0)
    MMD__POOL_BLOCK(0, e0, o0, bad0);
    for (i = 0; i < n; i += 16) {
        bad1 = 0;
        MMD__POOL_BLOCK(i + 16, e1, o1, bad1);
        m = e0;
        for (t = 1; t < k; ++t) {
            int64_t h = s == 1 ? t : t / 2;
            __m512 a = s == 2 && t % 2 ? o0 : e0, b = s == 2 && t % 2 ? o1 : e1;
            v = h ? _mm512_permutex2var_ps(a, _mm512_add_epi32(iota, _mm512_set1_epi32((int)h)), b) : a;
            m = _mm512_max_ps(v, m);
        }
        if (!(bad0 | bad1)) {
            _mm512_mask_storeu_ps(y + i, mmd__lanes16(0, n - i), m);
        } else {
            for (o = i; o < n && o < i + 16; ++o) {
                float w = -INFINITY;
                int32_t nan = 0;
                for (r = 0; r < nr; ++r)
                    for (t = 0; t < k; ++t) {
                        int64_t c = start + o * s + t;
                        float x = c >= 0 && c < len ? rows[r][c] : -INFINITY;
                        w = x > w ? x : w;
                        nan |= x != x;
                    }
                y[o] = nan ? NAN : w;
            }
        }
        e0 = e1, o0 = o1, bad0 = bad1;
    }
#undef MMD__POOL_BLOCK
}

/* Input rows ahead of a row of mmd__pool_max3s2_avx512 that it asks for. */
#define MMD__POOL_PREFETCH_ROWS 8

/* One output row of a 3x3 stride-2 MaxPool with left padding pad (0 or 1), ResNet's pool
   after its stem (64 planes of 112x112 -> 56x56): y[j] = the maximum of rows r0, r1 and r2 (a
   missing row repeats another) over columns 2j - pad to 2j - pad + 2 that lie in the rows (iw
   floats), for the ow outputs, sixteen at a time. From column u = c + pad - 1 on, output j
   takes u = 2j - 1, 2j and 2j + 1: the rows' maximum over a block of 32 columns from u = 32b,
   split into its even and odd columns by two permutes, gives e[j] and o[j], and o[j - 1] is o
   moved up one lane with the block before's last (one valignd). So every input float is loaded
   once per output row, with no shifts per tap and no column arithmetic; the row's ends are
   masked (-inf outside). Each row asks for the two input rows MMD__POOL_PREFETCH_ROWS below its
   last, which the next output rows read (in a plane's last rows, the next plane's first ones;
   past the last plane, addresses prefetch ignores). ResNet-18's pool, one thread, in the model
   (the stem's output just written), median per node of 60 runs in 6 to 8 alternating rounds
   on a loaded machine: mmd__pool_max_row_avx512 0.35 ms, this loop without prefetch 0.236,
   with it 0.21 (3 rows ahead 0.23, 6 to 20 rows 0.21; ONNX Runtime's NCHWc pool takes
   0.24); with the input in L2 (16 planes) 0.037 -> 0.020 ms. Returns 0 when a row holds a NaN
   (vectors compared unordered in pairs, which may flag a lane for its partner's NaN), for the
   caller to redo the row with mmd__pool_max_row_avx512, which gives NaN for a window that
   holds one. */
MMD__TARGET_AVX512 static int32_t mmd__pool_max3s2_avx512(const float *r0, const float *r1, const float *r2,
                                                          int64_t iw, int64_t pad, float *y, int64_t ow) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512 fill = _mm512_set1_ps(-INFINITY);
    /* Column u = 0 is input column 1 - pad, and n columns from there lie in the row. Before
       block 0, o's last lane is u = -1: input column -pad, -inf in the padding, else the
       maximum of column 0 (which no block loads). */
    int64_t at = 1 - pad, n = iw - at, ahead = MMD__POOL_PREFETCH_ROWS * iw, j, u;
    float v0 = r0[0] > r1[0] ? r0[0] : r1[0];
    __m512 o = _mm512_set1_ps(pad ? -INFINITY : v0 > r2[0] ? v0 : r2[0]);
    __mmask16 bad = 0;
    if (!pad && (r0[0] != r0[0] || r1[0] != r1[0] || r2[0] != r2[0])) return 0;
    r0 += at, r1 += at, r2 += at;
    for (j = 0, u = 0; j < ow; j += 16, u += 32) {
        __m512 a0, b0, c0, a1, b1, c1, lo, hi, e, prev;
        if (u + 32 <= n) {
            a0 = _mm512_loadu_ps(r0 + u), a1 = _mm512_loadu_ps(r0 + u + 16);
            b0 = _mm512_loadu_ps(r1 + u), b1 = _mm512_loadu_ps(r1 + u + 16);
            c0 = _mm512_loadu_ps(r2 + u), c1 = _mm512_loadu_ps(r2 + u + 16);
        } else {
            const __mmask16 m0 = mmd__lanes16(u, n), m1 = mmd__lanes16(u + 16, n);
            a0 = _mm512_mask_loadu_ps(fill, m0, r0 + u), a1 = _mm512_mask_loadu_ps(fill, m1, r0 + u + 16);
            b0 = _mm512_mask_loadu_ps(fill, m0, r1 + u), b1 = _mm512_mask_loadu_ps(fill, m1, r1 + u + 16);
            c0 = _mm512_mask_loadu_ps(fill, m0, r2 + u), c1 = _mm512_mask_loadu_ps(fill, m1, r2 + u + 16);
        }
        _mm_prefetch((const char *)(r2 + u + ahead), _MM_HINT_T0);
        _mm_prefetch((const char *)(r2 + u + 16 + ahead), _MM_HINT_T0);
        _mm_prefetch((const char *)(r2 + u + ahead + iw), _MM_HINT_T0);
        _mm_prefetch((const char *)(r2 + u + 16 + ahead + iw), _MM_HINT_T0);
        bad |= _mm512_cmp_ps_mask(a0, a1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(b0, b1, _CMP_UNORD_Q) |
               _mm512_cmp_ps_mask(c0, c1, _CMP_UNORD_Q);
        lo = _mm512_max_ps(_mm512_max_ps(a0, b0), c0);
        hi = _mm512_max_ps(_mm512_max_ps(a1, b1), c1);
        e = _mm512_permutex2var_ps(lo, even, hi);
        prev = o;
        o = _mm512_permutex2var_ps(lo, odd, hi);
        prev = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(o), _mm512_castps_si512(prev), 15));
        _mm512_mask_storeu_ps(y + j, MMD__MASK16(j, ow), _mm512_max_ps(_mm512_max_ps(e, o), prev));
    }
    return !bad;
}
#endif

static void mmd__pool_rows_f32(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__pool_job *j = (const mmd__pool_job *)data;
    const mmd__pool_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t ih = w->in[1], iw = w->in[2], oh = w->out[1], ow = w->out[2], pl, o1, o2, t;
    int64_t k1 = w->k[1], k2 = w->k[2], s1, s2, lo1, hi1, lo2, hi2, n1, pn1, n2, pn2;
    int32_t is_max = mmd__pool_mode(p->mode, MMD__POOLS_WINDOW) == MMD__POOL_MAX;
    int32_t op = is_max ? MMD__BIN_MAX : MMD__BIN_ADD;
    float *acc = j->scratch + (int64_t)share * iw, den;
    /* The columns whose window lies inside the input: o2 * s - pad >= 0 and + k <= iw. */
    int64_t a2 = (w->pad[2] + w->s[2] - 1) / w->s[2], b2 = iw + w->pad[2] - k2 < 0 ? 0 : (iw + w->pad[2] - k2) / w->s[2] + 1;
    if (b2 > ow) b2 = ow;
    if (a2 > b2) a2 = b2;
    for (pl = lo; pl < hi; ++pl) {
        const float *xp = j->x + pl * ih * iw;
        float *yp = j->y + pl * oh * ow;
        for (o1 = 0; o1 < oh; ++o1, yp += ow) {
            s1 = o1 * w->s[1] - w->pad[1];
            mmd__valid_range(s1, 1, k1, ih, &lo1, &hi1);
            mmd__valid_range(s1 + w->pad[1], 1, k1, ih + w->pad[1] + w->pad_end[1], &n1, &pn1);
            pn1 -= n1;
            if (hi1 <= lo1) {
                for (o2 = 0; o2 < ow; ++o2) yp[o2] = is_max ? -FLT_MAX : 0.0f;
                continue;
            }
#if defined(MMD__X86)
            if (p->vec) {
                /* The AVX-512 row, every output of it (the columns outside the input -inf). */
                const float *rp[MMD__POOL_ROWS_MAX];
                for (t = 0; t < hi1 - lo1; ++t) rp[t] = xp + (s1 + lo1 + t) * iw;
                if (p->vec == 2 && mmd__pool_max3s2_avx512(rp[0], rp[hi1 - lo1 > 1], rp[hi1 - lo1 - 1], iw, w->pad[2], yp, ow))
                    continue;
                mmd__pool_max_row_avx512(rp, hi1 - lo1, -w->pad[2], iw, yp, ow, k2, w->s[2]);
                continue;
            }
#endif
            memcpy(acc, xp + (s1 + lo1) * iw, (size_t)iw * sizeof(float));
            for (t = lo1 + 1; t < hi1; ++t) mmd__bin_f32(p->isa, op, acc, acc, 1, xp + (s1 + t) * iw, 1, iw);
            /* Columns [a2, b2) have their whole window inside the row; stride 1 takes them as
               k shifted vector rows, others tap by tap, adding in the same order. */
            den = (float)((p->count_include_pad ? pn1 : hi1 - lo1) * k2);
            if (a2 < b2 && w->s[2] == 1) {
                memcpy(yp + a2, acc + a2 - w->pad[2], (size_t)(b2 - a2) * sizeof(float));
                for (t = 1; t < k2; ++t) mmd__bin_f32(p->isa, op, yp + a2, yp + a2, 1, acc + a2 - w->pad[2] + t, 1, b2 - a2);
                if (!is_max) mmd__bin_f32(p->isa, MMD__BIN_DIV, yp + a2, yp + a2, 1, &den, 0, b2 - a2);
            } else {
                for (o2 = a2; o2 < b2; ++o2) {
                    const float *r = acc + o2 * w->s[2] - w->pad[2];
                    float v = r[0];
                    if (is_max) {
                        /* A plain maximum (no branch on random data) and a NaN flag beside it. */
                        int32_t nan = v != v;
                        for (t = 1; t < k2; ++t) {
                            v = r[t] > v ? r[t] : v;
                            nan |= r[t] != r[t];
                        }
                        yp[o2] = nan ? NAN : v;
                        continue;
                    }
                    for (t = 1; t < k2; ++t) v += r[t];
                    yp[o2] = v / den;
                }
            }
            for (o2 = 0; o2 < ow; ++o2) {
                const float *r;
                float v;
                if (o2 == a2 && a2 < b2) o2 = b2;
                if (o2 >= ow) break;
                s2 = o2 * w->s[2] - w->pad[2];
                mmd__valid_range(s2, 1, k2, iw, &lo2, &hi2);
                if (hi2 <= lo2) {
                    yp[o2] = is_max ? -FLT_MAX : 0.0f;
                    continue;
                }
                r = acc + s2;
                v = r[lo2];
                if (is_max) {
                    for (t = lo2 + 1; t < hi2; ++t) v = r[t] > v || r[t] != r[t] ? r[t] : v;
                    yp[o2] = v;
                    continue;
                }
                for (t = lo2 + 1; t < hi2; ++t) v += r[t];
                if (p->count_include_pad) {
                    mmd__valid_range(s2 + w->pad[2], 1, k2, iw + w->pad[2] + w->pad_end[2], &n2, &pn2);
                    n2 = pn1 * (pn2 - n2);
                } else {
                    n2 = (hi1 - lo1) * (hi2 - lo2);
                }
                yp[o2] = v / (float)n2;
            }
        }
    }
}
#endif

/* MaxPool, AveragePool and LpPool: kernel_shape is required. The first two need explicit
   pads smaller than the kernel, so that every window holds at least one input element; LpPool
   counts padding as zeros and has its p. LpPool took ceil_mode and dilations at opset 18. */
static mmd_status mmd__pool_f32_prepare(mmd_kernel_ctx *c) {
    mmd__pool_data *p = (mmd__pool_data *)c->op_data;
    const mmd_tensor *x;
    const int64_t *kshape, *pads;
    int64_t nk, np, ceil_mode, include_pad, storage_order, dims[5];
    int32_t n, i;
    mmd_status st;
    p->mode = mmd__pool_mode(!strcmp(c->node->op_type, "MaxPool") ? MMD__POOL_MAX
                             : !strcmp(c->node->op_type, "LpPool") ? MMD__POOL_LP : MMD__POOL_AVERAGE,
                             MMD__POOLS_WINDOW);
    st = mmd__check_io(c, 1, 1, p->mode == MMD__POOL_MAX ? 2 : 1);
    p->bytes = 0;
#if MMD__POOL_BYTES
    p->bytes = st == MMD_OK && p->mode == MMD__POOL_MAX &&
               (c->inputs[0]->dtype == MMD_DTYPE_INT8 || c->inputs[0]->dtype == MMD_DTYPE_UINT8);
#endif
    if (st == MMD_OK && !p->bytes) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, 5);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "kernel_shape", &kshape, &nk);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "pads", &pads, &np);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "ceil_mode", 0, &ceil_mode);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "count_include_pad", 0, &include_pad);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "storage_order", 0, &storage_order);
    if (st == MMD_OK && p->mode == MMD__POOL_LP) st = mmd__lp_norm_p(c, &p->p);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    n = x->rank - 2;
    if (nk != n)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "kernel_shape has %lld values for %d spatial axes",
                               (long long)nk, (int)n);
    for (i = 0; i < n; ++i) {
        if (kshape[i] < 1 || kshape[i] > MMD__ATTR_MAX)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "kernel_shape[%d] is %lld", (int)i, (long long)kshape[i]);
        if (p->mode != MMD__POOL_LP && np == 2 * n && (pads[i] >= kshape[i] || pads[i + n] >= kshape[i]))
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
    if ((st = mmd__set_output(c, 0, x->dtype, x->rank, dims)) != MMD_OK) return st;
    if (c->output_count < 2 || !c->outputs[1]) {
#if MMD__POOL_BYTES
        p->rows = 0;
#ifdef MMD_CONV_SMALL
        if (p->bytes)
#endif
            mmd__pool_rows_prepare(c, p);
        if (p->bytes && !p->rows)
            return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "MaxPool of %s takes 1-D or 2-D windows without dilations",
                                   mmd_dtype_name(x->dtype));
#endif
        return MMD_OK;
    }
#if MMD__POOL_BYTES
    if (p->bytes)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "MaxPool of %s has no Indices output here", mmd_dtype_name(x->dtype));
#endif
    return mmd__set_output(c, 1, MMD_DTYPE_INT64, x->rank, dims);
}

/* Every pool walks every window. MaxPool also records the flat input index of the maximum
   (over N, C and the spatial axes, the spatial part row-major or with storage_order 1
   column-major, as ONNX defines Indices). AveragePool divides by the taps inside the input,
   or with count_include_pad by the taps inside the padded input (not those past it that
   ceil_mode adds), as PyTorch does. LpPool takes (sum |x|^p)^(1/p) of the taps inside. */
static mmd_status mmd__pool_f32_eval(mmd_kernel_ctx *c) {
    const mmd__pool_data *p = (const mmd__pool_data *)c->op_data;
    const mmd__window *w = &p->w;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    int32_t mode = mmd__pool_mode(p->mode, MMD__POOLS_WINDOW);
    int32_t is_max = mode == MMD__POOL_MAX, is_lp = mode == MMD__POOL_LP;
    int64_t *idx = is_max && c->output_count > 1 && c->outputs[1] ? (int64_t *)c->outputs[1]->data : NULL;
    int64_t in_plane = w->in[0] * w->in[1] * w->in[2], pl, o0, o1, o2, t0, t1, t2;
#if MMD__POOL_BYTES
    if (p->rows) {
        mmd__pool_job j;
        j.p = p;
        j.x = x;
        j.y = y;
        j.scratch = (float *)c->scratch;
        j.flip = c->inputs[0]->dtype == MMD_DTYPE_INT8 ? 0x80 : 0;
#ifdef MMD_CONV_SMALL
        mmd__parallel_range(c, p->planes, MMD__EW_GRAIN / (in_plane ? in_plane : 1), 1, p->rows, mmd__pool_rows_q8, &j);
#else
        mmd__parallel_range(c, p->planes, MMD__EW_GRAIN / (in_plane ? in_plane : 1), 1, p->rows,
                            p->bytes ? mmd__pool_rows_q8 : mmd__pool_rows_f32, &j);
#endif
        return MMD_OK;
    }
#endif
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
                                    acc += is_lp ? mmd__lp_term(v, p->p) : v;
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
                    if (is_lp) {
                        *y++ = mmd__lp_root(acc, p->p);
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

typedef struct mmd__plane_data {
    int64_t planes, plane;              /* N * C planes of `plane` elements each */
    int32_t mode;                       /* MMD__POOL_MAX, _AVERAGE or _LP */
    float p;                            /* GlobalLpPool's exponent */
} mmd__plane_data;

/* GlobalAveragePool, GlobalMaxPool and GlobalLpPool pool each (n, c) plane into one value. */
static mmd_status mmd__global_pool_f32_prepare(mmd_kernel_ctx *c) {
    mmd__plane_data *p = (mmd__plane_data *)c->op_data;
    const mmd_tensor *x;
    int64_t dims[MMD_MAX_RANK];
    int32_t i;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    p->mode = mmd__pool_mode(!strcmp(c->node->op_type, "GlobalMaxPool") ? MMD__POOL_MAX
                             : !strcmp(c->node->op_type, "GlobalLpPool") ? MMD__POOL_LP : MMD__POOL_AVERAGE,
                             MMD__POOLS_GLOBAL);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, MMD_MAX_RANK);
    if (st == MMD_OK && p->mode == MMD__POOL_LP) st = mmd__lp_norm_p(c, &p->p);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    p->planes = x->dims[0] * x->dims[1];
    p->plane = mmd__dims_product(x, 2, x->rank);
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (i = 2; i < x->rank; ++i) dims[i] = 1;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, dims);
}

typedef struct mmd__plane_job {
    const mmd__plane_data *p;
    const float *x;
    float *y;
    int32_t isa;
} mmd__plane_job;

/* Planes [lo, hi). The mean of an empty plane is NaN, as numpy gives (the sum in double, by
   mmd__sum_f32); the maximum lets NaN win, as torch.amax does, and is -inf for an empty plane,
   the identity of max; Lp is (sum |x|^p)^(1/p). */
static void mmd__global_pool_planes(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__plane_job *j = (const mmd__plane_job *)data;
    const mmd__plane_data *p = j->p;
    const float *x = j->x;
    float *y = j->y;
    int64_t pl, i, n = p->plane;
    int32_t mode = mmd__pool_mode(p->mode, MMD__POOLS_GLOBAL);
    (void)share;
    for (pl = lo; pl < hi; ++pl) {
        const float *xp = x + pl * n;
        float acc = mode == MMD__POOL_MAX ? -INFINITY : 0.0f;
        if (mode == MMD__POOL_AVERAGE) {
            y[pl] = n ? (float)(mmd__sum_f32(j->isa, xp, n, 0.0, 0) / (double)n) : NAN;
        } else if (mode == MMD__POOL_LP) {
            for (i = 0; i < n; ++i) acc += mmd__lp_term(xp[i], p->p);
            y[pl] = mmd__lp_root(acc, p->p);
        } else {
            for (i = 0; i < n && acc == acc; ++i)
                if (xp[i] > acc || xp[i] != xp[i]) acc = xp[i];
            y[pl] = acc;
        }
    }
}

static mmd_status mmd__global_pool_f32_eval(mmd_kernel_ctx *c) {
    const mmd__plane_data *p = (const mmd__plane_data *)c->op_data;
    mmd__plane_job j;
    j.p = p;
    j.x = (const float *)c->inputs[0]->data;
    j.y = (float *)c->outputs[0]->data;
    j.isa = mmd__isa();
    mmd__parallel_range(c, p->planes, MMD__EW_GRAIN / (p->plane > 0 ? p->plane : 1), 1, INT32_MAX,
                        mmd__global_pool_planes, &j);
    return MMD_OK;
}

/* ---- ConvTranspose ------------------------------------------------------------------------ */

/* ConvTranspose as a product and a scatter (col2im), per image and group and per band of input
   rows: columns [(m, tap), pixel] = W^T [(m, tap), ci] x X [ci, pixel], then each column row is
   added into output channel m at the tap's offset. A band is as many input rows as keep the
   columns under MMD_CONV_COLUMNS_MAX floats. DISJOINT: when every axis has stride = kernel,
   no padding and no extra outputs (DBNet's 2x2 stride-2 upsampling head), each output takes
   exactly one tap of one input, so each share of the product stores its block of columns
   plus the bias straight into the output while the block is in cache: no bias fill, no
   zero-filled sums, no pass of its own. */
static mmd_status mmd__conv_transpose_plan(mmd_kernel_ctx *c, mmd__conv_data *p) {
    const mmd__window *w = &p->w;
    int64_t cg = p->in_ch / p->group, taps = w->k[0] * w->k[1] * w->k[2], rows = w->in[0] * w->in[1], per_row;
    uint64_t bytes;
    int32_t a;
    p->path = MMD__CONV_IM2COL;
#ifndef MMD_CONV_SMALL
    p->path = MMD__CONV_DISJOINT;
    for (a = 0; a < 3; ++a)
        if (w->k[a] != w->s[a] || (w->k[a] > 1 && w->d[a] != 1) || w->pad[a] || w->out[a] != w->in[a] * w->s[a])
            p->path = MMD__CONV_IM2COL;
#else
    (void)a;
#endif
    p->isa = mmd__isa();
    p->threads = c->threads > 1 ? c->threads : 1;
    p->gm = p->out_ch / p->group * taps;
    p->gk = cg;
    per_row = p->gm * w->in[2];
    p->band = per_row > 0 && MMD_CONV_COLUMNS_MAX / per_row > 1 ? MMD_CONV_COLUMNS_MAX / per_row : 1;
    if (p->band > rows) p->band = rows > 0 ? rows : 1;
    p->gn = p->band * w->in[2];
    if (p->gn && p->gm > MMD__ELEMS_MAX / p->gn) return mmd_kernel_fail(c, MMD_ERR_LIMIT, "columns too large");
    p->gemm_bytes = (size_t)mmd__round_up((int64_t)mmd__gemm_scratch(p->gm, p->gn, p->gk, p->isa, p->threads), 64);
    bytes = p->gemm_bytes + (uint64_t)mmd__round_up(p->gk, 8) * sizeof(int64_t) + (uint64_t)(p->gm * p->gn) * sizeof(float);
    if ((uint64_t)bytes > (uint64_t)SIZE_MAX)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "needs %llu bytes of scratch", (unsigned long long)bytes);
    c->scratch_size = (size_t)bytes;
    p->packed = NULL;
    if (MMD__PACKS && mmd_tensor_is_const(c->inputs[1]) && p->gm > 0 && p->gk > 0) {
        int64_t per = mmd__gemm_packed_a_size(p->gm, p->gk, p->isa), g;
        int32_t fresh;
        float *dst = (float *)mmd_kernel_packed(c, (size_t)(per * p->group) * sizeof(float), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
        if (dst && fresh)
            for (g = 0; g < p->group; ++g)
                mmd__gemm_pack_a((const float *)c->inputs[1]->data + g * cg * p->gm, 1, p->gm, p->gm, p->gk, p->isa,
                                 dst + g * per);
        p->packed = dst;
    }
    return MMD_OK;
}

/* ConvTranspose 1 to 25, 1-D to 3-D, weight [C, M / group, k...]. Without output_shape or
   auto_pad the output is s * (in - 1) + output_padding + (k - 1) * d + 1 - pads. With
   output_shape (spatial, or the full [N, C, ...]) or SAME (output in * s) the start pad comes
   from the total padding: opset 11 on gives the odd pixel to the end for SAME_UPPER and to the
   start otherwise, opset 1 to 10 the reverse, as each version's text says. A negative total
   (an output larger than the kernel reaches) pads nothing and leaves the extra outputs at the
   end with only the bias, which is what output_padding does and what ONNX's own tests expect.
   output_padding is not held below the stride: larger values only add bias-only outputs.
   In the window (X's sizes in `in`, Y's in `out`), input element o of an axis lands on output
   o * s + t * d - pad for kernel tap t. */
static mmd_status mmd__conv_transpose_f32_prepare(mmd_kernel_ctx *c) {
    mmd__conv_data *p = (mmd__conv_data *)c->op_data;
    mmd__window *w = &p->w;
    const mmd_tensor *x;
    const int64_t *out_pad, *out_shape;
    int64_t nop, nos, dims[5];
    int32_t n, i, auto_pad;
    mmd_status st = mmd__conv_check(c, 1, p);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    n = x->rank - 2;
    if ((st = mmd__window_attrs(c, n, c->inputs[1]->dims + 2, w, &auto_pad)) != MMD_OK) return st;
    if ((st = mmd_attr_get_ints(c, "output_padding", &out_pad, &nop)) != MMD_OK) return st;
    if ((st = mmd_attr_get_ints(c, "output_shape", &out_shape, &nos)) != MMD_OK) return st;
    if ((nop && nop != n) || (nos && nos != n && nos != n + 2))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "%d spatial axes but %lld output_padding and %lld output_shape values",
                               (int)n, (long long)nop, (long long)nos);
    if (nos == n + 2) out_shape += 2;
    for (i = 0; i < n; ++i) {
        int32_t a = 3 - n + i;
        int64_t op = nop ? out_pad[i] : 0, full, total;
        if (op < 0 || op > MMD__ATTR_MAX)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "output_padding[%d] is %lld", (int)i, (long long)op);
        w->in[a] = x->dims[2 + i];
        /* Every term is bounded (sizes by MMD__ELEMS_MAX, attributes by MMD__ATTR_MAX), so
           this stays far inside int64_t. */
        full = w->s[a] * (w->in[a] - 1) + op + (w->k[a] - 1) * w->d[a] + 1;
        if (nos || auto_pad == MMD__AUTO_PAD_SAME_UPPER || auto_pad == MMD__AUTO_PAD_SAME_LOWER) {
            int32_t extra_at_end = auto_pad == MMD__AUTO_PAD_SAME_UPPER;
            if (nos && c->opset < 11) extra_at_end = !extra_at_end;
            w->out[a] = nos ? out_shape[i] : w->in[a] * w->s[a];
            if (w->out[a] < 0 || w->out[a] > MMD__ELEMS_MAX)
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "spatial axis %d: output size %lld", (int)i, (long long)w->out[a]);
            total = full - w->out[a];
            w->pad[a] = total <= 0 ? 0 : extra_at_end ? total / 2 : total - total / 2;
        } else {
            w->out[a] = full - w->pad[a] - w->pad_end[a];
            if (w->out[a] < 0)
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "spatial axis %d: pads %lld,%lld exceed the %lld outputs",
                                       (int)i, (long long)w->pad[a], (long long)w->pad_end[a], (long long)full);
        }
        w->pad_end[a] = full - w->out[a] - w->pad[a];
        dims[2 + i] = w->out[a];
    }
    dims[0] = p->batch;
    dims[1] = p->out_ch;
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, dims)) != MMD_OK) return st;
    /* The activation the load-time rewrites fuse into it (mmdeploy_ir.h's pass 3), named as
       FusedConv names it; ONNX's ConvTranspose has no such attribute, so a model's own
       ConvTranspose has none. */
    if ((st = mmd__act_attrs(c, &p->act)) != MMD_OK) return st;
    return mmd__conv_transpose_plan(c, p);
}

/* col2im for output channel `index` of the group: every tap's column row of the band added
   where the tap puts it, after the bias fill (with the first band); the band's rows run
   r0 .. r1 (axes 0 and 1 of X flattened). With the last band the channel's sums are complete
   and the fused activation goes over its plane. */
static void mmd__col2im_task(void *data, int32_t index) {
    const mmd__conv_job *j = (const mmd__conv_job *)data;
    const mmd__conv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t taps = w->k[0] * w->k[1] * w->k[2], cols = (j->r1 - j->r0) * w->in[2], t, r, i, lo, hi;
    int64_t out_plane = w->out[0] * w->out[1] * w->out[2];
    float *y = j->y + index * out_plane;
    if (j->r0 == 0) {
        float init = j->bias ? j->bias[index] : 0.0f;
        for (i = 0; i < out_plane; ++i) y[i] = init;
    }
    for (t = 0; t < taps; ++t) {
        int64_t t2 = t % w->k[2], t1 = t / w->k[2] % w->k[1], t0 = t / (w->k[1] * w->k[2]), s2 = w->s[2];
        int64_t off2 = t2 * w->d[2] - w->pad[2];
        const float *src = j->buf + (index * taps + t) * cols;
        mmd__valid_range(off2, s2, w->in[2], w->out[2], &lo, &hi);
        if (lo >= hi) continue;
        for (r = j->r0; r < j->r1; ++r, src += w->in[2]) {
            int64_t o0 = r / w->in[1] * w->s[0] + t0 * w->d[0] - w->pad[0];
            int64_t o1 = r % w->in[1] * w->s[1] + t1 * w->d[1] - w->pad[1];
            float *dst;
            if (o0 < 0 || o0 >= w->out[0] || o1 < 0 || o1 >= w->out[1]) continue;
            dst = y + (o0 * w->out[1] + o1) * w->out[2] + off2;
            if (s2 == 1)
                for (i = lo; i < hi; ++i) dst[i] += src[i];
            else
                for (i = lo; i < hi; ++i) dst[i * s2] += src[i];
        }
    }
    if (p->act.kind != MMD__ACT_NONE && j->r1 == w->in[0] * w->in[1]) mmd__act_f32(&p->act, y, out_plane);
}

#ifndef MMD_CONV_SMALL
/* Floats of columns a DISJOINT share computes before it stores them (64 KiB: they are still in
   cache when they are stored; tests set fewer, so that every case stores several chunks). */
#ifndef MMD__DISJOINT_CHUNK_FLOATS
#define MMD__DISJOINT_CHUNK_FLOATS 16384
#endif

#if defined(MMD__X86)
/* d[2i] = act(a[i] + bias) and d[2i + 1] = act(b[i] + bias) for i in [0, n): two interleaved
   rows written as one, a vector of each making two whole vectors of d, the tail under masks.
   act is one mmd__act_has_avx512 lists (or none), applied in registers before the store. */
MMD__TARGET_AVX512 static void mmd__zip2_avx512(float *d, const float *a, const float *b, float bias, const mmd__act *act,
                                                int64_t n) {
    const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const __m512 vb = _mm512_set1_ps(bias), al = _mm512_set1_ps(act->alpha), be = _mm512_set1_ps(act->beta);
    const int32_t kind = act->kind;
    int64_t i = 0;
    for (; i < n; i += 16) {
        __mmask16 m = MMD__MASK16(i, n);
        __m512 x = _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + i), vb), y = _mm512_add_ps(_mm512_maskz_loadu_ps(m, b + i), vb);
        x = mmd__act_vec_avx512(kind, x, al, be);
        y = mmd__act_vec_avx512(kind, y, al, be);
        _mm512_mask_storeu_ps(d + 2 * i, mmd__lanes16(0, 2 * (n - i)), _mm512_permutex2var_ps(x, lo, y));
        _mm512_mask_storeu_ps(d + 2 * i + 16, mmd__lanes16(16, 2 * (n - i)), _mm512_permutex2var_ps(x, hi, y));
    }
}
#endif

/* DISJOINT: column rows [q0, q1) ((channel, tap) pairs) and columns [n0, n1) (pixels of the
   band) stored with the bias at their outputs, o * s + t on each axis. The bias is added to
   the finished sum, as the fill-and-add of col2im does, so both paths give the same values;
   so is the fused activation (one formula per element, mmd__act_vec_avx512's where the CPU has
   AVX-512), here while the values are in registers or the row in L1, instead of a pass of its
   own over the output (DBNet's head: ConvTranspose, BatchNormalization folded, Relu). A strided
   row is finished in its columns (this share's alone) before it is scattered. */
static void mmd__conv_transpose_store(void *user, int64_t q0, int64_t q1, int64_t n0, int64_t n1) {
    const mmd__conv_job *j = (const mmd__conv_job *)user;
    const mmd__window *w = &j->p->w;
    const mmd__act *act = &j->p->act;
    int64_t taps = w->k[0] * w->k[1] * w->k[2], in2 = w->in[2], cols = (j->r1 - j->r0) * in2, q, at, i;
    int64_t out_plane = w->out[0] * w->out[1] * w->out[2], s2 = w->s[2];
    int32_t pairs = 0, after = act->kind != MMD__ACT_NONE;
#if defined(MMD__X86)
    /* A 2-wide kernel at stride 2 (DBNet's head): the rows of column taps 0 and 1 fill one
       output row between them, written whole and in order, not as two strided halves. */
    pairs = s2 == 2 && w->k[2] == 2 && j->p->isa == MMD__ISA_AVX512;
#endif
    for (q = q0; q < q1; ++q) {
        int64_t m = q / taps, t = q % taps, t2 = t % w->k[2], t1 = t / w->k[2] % w->k[1], t0 = t / (w->k[1] * w->k[2]);
        int32_t pair = pairs && t2 == 0 && q + 1 < q1;
        float b = j->bias ? j->bias[m] : 0.0f;
        float *src = j->buf + q * cols;
        for (at = n0; at < n1;) {
            /* The run of input row r from column ix to the row's end or n1. */
            int64_t r = j->r0 + at / in2, ix = at % in2, end = n1 - at < in2 - ix ? ix + (n1 - at) : in2;
            int64_t o0 = r / w->in[1] * w->s[0] + t0, o1 = r % w->in[1] * w->s[1] + t1;
            float *dst = j->y + m * out_plane + (o0 * w->out[1] + o1) * w->out[2] + t2;
            float *sr = src + at - ix;
#if defined(MMD__X86)
            if (pair) {
                mmd__zip2_avx512(dst + 2 * ix, sr + ix, sr + cols + ix, b, act, end - ix);
                if (after && !mmd__act_has_avx512(act->kind)) mmd__act_f32(act, dst + 2 * ix, 2 * (end - ix));
            } else
#endif
            if (s2 == 1) {
                for (i = ix; i < end; ++i) dst[i] = sr[i] + b;
                if (after) mmd__act_f32(act, dst + ix, end - ix);
            } else if (after) {
                for (i = ix; i < end; ++i) sr[i] += b;
                mmd__act_f32(act, sr + ix, end - ix);
                for (i = ix; i < end; ++i) dst[i * s2] = sr[i];
            } else {
                for (i = ix; i < end; ++i) dst[i * s2] = sr[i] + b;
            }
            at += end - ix;
        }
        q += pair;
    }
}
#endif

static mmd_status mmd__conv_transpose_f32_eval(mmd_kernel_ctx *c) {
    const mmd__conv_data *p = (const mmd__conv_data *)c->op_data;
    const mmd__window *w = &p->w;
    const float *x = (const float *)c->inputs[0]->data, *wt = (const float *)c->inputs[1]->data;
    const float *bias = c->input_count > 2 && c->inputs[2] ? (const float *)c->inputs[2]->data : NULL;
    float *y = (float *)c->outputs[0]->data;
    int64_t in_plane = w->in[0] * w->in[1] * w->in[2], out_plane = w->out[0] * w->out[1] * w->out[2];
    int64_t cg = p->in_ch / p->group, mg = p->out_ch / p->group, per = mmd__gemm_packed_a_size(p->gm, p->gk, p->isa);
    int64_t rows_all = w->in[0] * w->in[1], *rows = (int64_t *)((char *)c->scratch + p->gemm_bytes), b, g, q, r0;
    mmd__conv_job job;
    mmd__gemm gm;
    if (mmd_tensor_numel(c->outputs[0]) == 0) return MMD_OK; /* else group up to 2^40 could loop for nothing */
    memset(&job, 0, sizeof job);
    memset(&gm, 0, sizeof gm);
    job.p = p;
    job.buf = (float *)(rows + mmd__round_up(p->gk, 8));
    for (q = 0; q < cg; ++q) rows[q] = q * in_plane;
    gm.m = p->gm;
    gm.k = p->gk;
    gm.a_rs = 1;
    gm.a_cs = p->gm;
    gm.b_rows = rows;
    gm.c = job.buf;
    gm.isa = p->isa;
    if (rows_all == 0) {
        /* No input rows, no bands: outputs that output_padding adds hold the bias alone. */
        for (b = 0; b < p->batch * p->out_ch; ++b)
            for (q = 0; q < out_plane; ++q) y[b * out_plane + q] = bias ? bias[b % p->out_ch] : 0.0f;
        if (p->act.kind != MMD__ACT_NONE) mmd__act_f32(&p->act, y, p->batch * p->out_ch * out_plane);
        return MMD_OK;
    }
    for (b = 0; b < p->batch; ++b)
        for (g = 0; g < p->group; ++g) {
            const float *xg = x + (b * p->in_ch + g * cg) * in_plane;
            gm.a = wt + g * cg * p->gm;
            gm.a_packed = p->packed ? p->packed + g * per : NULL;
            job.y = y + (b * p->out_ch + g * mg) * out_plane;
            job.bias = bias ? bias + g * mg : NULL;
            for (r0 = 0; r0 < rows_all; r0 += p->band) {
                job.r0 = r0;
                job.r1 = r0 + p->band < rows_all ? r0 + p->band : rows_all;
                gm.b = xg + r0 * w->in[2];
                gm.n = (job.r1 - r0) * w->in[2];
                gm.ldc = gm.n;
#ifndef MMD_CONV_SMALL
                if (p->path == MMD__CONV_DISJOINT) {
                    int64_t nr = mmd__gemm_nr(p->isa);
                    mmd__gemm_run_then(c, &gm, c->scratch, p->threads, mmd__conv_transpose_store, &job,
                                       mmd__round_up(MMD__DISJOINT_CHUNK_FLOATS / p->gm + 1, nr));
                    continue;
                }
#endif
                mmd__gemm_run(c, &gm, c->scratch, p->threads);
                mmd_kernel_parallel(c, mmd__col2im_task, &job, (int32_t)mg);
            }
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
    mmd__act act;                       /* FusedGemm: applied to the result */
    int32_t isa, threads;
    const float *packed;                /* constant B packed for the product, or NULL */
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
    memset(&p->act, 0, sizeof p->act);
    p->isa = mmd__isa();
    p->threads = c->threads > 1 ? c->threads : 1;
    p->packed = NULL;
    if ((st = mmd__scratch_request(c, mmd__gemm_scratch(p->m, p->n, p->k, p->isa, p->threads))) != MMD_OK) return st;
    if (MMD__PACKS && mmd_tensor_is_const(b) && p->k > 0 && p->n > 0) {
        int32_t fresh;
        float *dst = (float *)mmd_kernel_packed(c, (size_t)mmd__gemm_packed_b_size(p->k, p->n, p->isa) * sizeof(float), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
        if (dst && fresh) mmd__gemm_pack_b((const float *)b->data, p->bs0, p->bs1, p->k, p->n, p->isa, dst);
        p->packed = dst;
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 2, dims);
}

/* With alpha 1 the product starts from beta * C and applies the activation itself; otherwise
   alpha scales the product before beta * C is added, in a pass of its own. */
static mmd_status mmd__gemm_f32_eval(mmd_kernel_ctx *c) {
    const mmd__gemm_data *p = (const mmd__gemm_data *)c->op_data;
    const float *cm = p->has_c ? (const float *)c->inputs[2]->data : NULL;
    float *y = (float *)c->outputs[0]->data;
    int32_t direct = p->alpha == 1.0f;
    int64_t i, j;
    mmd__gemm g;
    memset(&g, 0, sizeof g);
    g.m = p->m;
    g.n = p->n;
    g.k = p->k;
    g.a = (const float *)c->inputs[0]->data;
    g.a_rs = p->as0;
    g.a_cs = p->as1;
    g.b = (const float *)c->inputs[1]->data;
    g.b_packed = p->packed;
    g.b_rs = p->bs0;
    g.b_cs = p->bs1;
    g.c = y;
    g.ldc = p->n;
    g.isa = p->isa;
    if (direct) {
        g.act = p->act;
        g.load = cm != NULL;
        if (cm)
            for (i = 0; i < p->m; ++i)
                for (j = 0; j < p->n; ++j) y[i * p->n + j] = p->beta * cm[i * p->cs0 + j * p->cs1];
    }
    mmd__gemm_run(c, &g, c->scratch, p->threads);
    if (direct) return MMD_OK;
    for (i = 0; i < p->m; ++i) {
        for (j = 0; j < p->n; ++j)
            y[i * p->n + j] = p->alpha * y[i * p->n + j] + (cm ? p->beta * cm[i * p->cs0 + j * p->cs1] : 0.0f);
        mmd__act_f32(&p->act, y + i * p->n, p->n);
    }
    return MMD_OK;
}

/* com.microsoft FusedGemm: Y = activation(alpha * op(A) * op(B) + beta * C). */
static mmd_status mmd__fused_gemm_f32_prepare(mmd_kernel_ctx *c) {
    mmd_status st = mmd__gemm_f32_prepare(c);
    if (st != MMD_OK) return st;
    return mmd__act_attrs(c, &((mmd__gemm_data *)c->op_data)->act);
}


typedef struct mmd__matmul_data {
    mmd__walk batch;                    /* over the broadcast batch axes, in whole matrices */
    int64_t m, n, k;
    int32_t isa, threads;
    const float *packed;                /* a constant 2-D B packed for the product, or NULL */
    size_t gemm_bytes;                  /* scratch of the product; B's row offsets follow */
} mmd__matmul_data;

/* MatMul's shapes with numpy semantics, shared with MatMulInteger and QLinearMatMul: a 1-D A
   is a row (its axis dropped from the result), a 1-D B a column, and the leading (batch) axes
   broadcast. Fills p's m, n, k and batch walk (offsets in elements) and the output's rank and
   dims. */
static mmd_status mmd__matmul_shape(mmd_kernel_ctx *c, const mmd_tensor *a, const mmd_tensor *b,
                                    mmd__matmul_data *p, int32_t *out_rank, int64_t *dims) {
    int32_t ra = a->rank, rb = b->rank, rank, i;
    mmd_status st;
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
    *out_rank = rank;
    return MMD_OK;
}

static mmd_status mmd__matmul_f32_prepare(mmd_kernel_ctx *c) {
    mmd__matmul_data *p = (mmd__matmul_data *)c->op_data;
    const mmd_tensor *b;
    int64_t dims[MMD_MAX_RANK];
    int32_t rank;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd__matmul_shape(c, c->inputs[0], c->inputs[1], p, &rank, dims);
    if (st != MMD_OK) return st;
    b = c->inputs[1];
    p->isa = mmd__isa();
    p->threads = c->threads > 1 ? c->threads : 1;
    p->gemm_bytes = (size_t)mmd__round_up((int64_t)mmd__gemm_scratch(p->m, p->n, p->k, p->isa, p->threads), 64);
    if ((st = mmd__scratch_request(c, (uint64_t)p->gemm_bytes + (uint64_t)p->k * sizeof(int64_t))) != MMD_OK) return st;
    p->packed = NULL;
    if (MMD__PACKS && b->rank <= 2 && mmd_tensor_is_const(b) && p->k > 0 && p->n > 0) {
        int32_t fresh;
        float *dst = (float *)mmd_kernel_packed(c, (size_t)mmd__gemm_packed_b_size(p->k, p->n, p->isa) * sizeof(float), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
        if (dst && fresh) mmd__gemm_pack_b((const float *)b->data, p->n, 1, p->k, p->n, p->isa, dst);
        p->packed = dst;
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, rank, dims);
}

static mmd_status mmd__matmul_f32_eval(mmd_kernel_ctx *c) {
    const mmd__matmul_data *p = (const mmd__matmul_data *)c->op_data;
    const float *a = (const float *)c->inputs[0]->data, *b = (const float *)c->inputs[1]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t idx[MMD_MAX_RANK] = {0}, off[3] = {0, 0, 0}, q;
    int64_t *rows = (int64_t *)((char *)c->scratch + p->gemm_bytes);
    mmd__gemm g;
    if (mmd__walk_empty(&p->batch)) return MMD_OK;
    for (q = 0; q < p->k; ++q) rows[q] = q * p->n;
    memset(&g, 0, sizeof g);
    g.m = p->m;
    g.n = p->n;
    g.k = p->k;
    g.a_rs = p->k;
    g.a_cs = 1;
    g.b_packed = p->packed;
    g.b_rows = rows;
    g.ldc = p->n;
    g.isa = p->isa;
    do {
        g.a = a + off[1];
        g.b = b + off[2];
        g.c = y + off[0];
        mmd__gemm_run(c, &g, c->scratch, p->threads);
    } while (mmd__walk_next(&p->batch, p->batch.rank, idx, off));
    return MMD_OK;
}

/* ==== >>ops normalisation ==== */

/* Softmax and the two ops that share its geometry, told apart by op_type. */
enum { MMD__SOFTMAX, MMD__LOG_SOFTMAX, MMD__HARDMAX };

/* ---- Softmax and LogSoftmax on vector paths ---------------------------------------------------- */
/* A softmax over the last axis runs as one row: a vector maximum, then exp(x - max) by
   mmd__exp_* summed in vector lanes, then the scale (or, for LogSoftmax, x - max - log(sum)).
   Over another axis the n elements of a slice lie `inner` apart, so the slices of one outer
   index run side by side as rows of `inner` elements through mmd__bin_f32, with the running
   maximum and sum in two rows of scratch. Rows are whole per thread, so the lane sums, and
   with them the results, do not depend on the thread count. */
#if defined(MMD__X86)
MMD__TARGET_AVX512 static void mmd__softmax_avx512(const float *x, float *y, int64_t n, int32_t log_mode) {
    __m512 vm = _mm512_set1_ps(-INFINITY), vs = _mm512_setzero_ps(), mx, ls;
    int64_t i;
    for (i = 0; i < n; i += 16)
        vm = _mm512_max_ps(vm, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), MMD__MASK16(i, n), x + i));
    mx = _mm512_set1_ps(_mm512_reduce_max_ps(vm));
    for (i = 0; i < n; i += 16) {
        __mmask16 m = MMD__MASK16(i, n);
        __m512 e = _mm512_maskz_mov_ps(m, mmd__exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), mx)));
        vs = _mm512_add_ps(vs, e);
        if (!log_mode) _mm512_mask_storeu_ps(y + i, m, e);
    }
    if (log_mode) {
        ls = _mm512_set1_ps(logf(_mm512_reduce_add_ps(vs)));
        for (i = 0; i < n; i += 16) {
            __mmask16 m = MMD__MASK16(i, n);
            _mm512_mask_storeu_ps(y + i, m, _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), mx), ls));
        }
        return;
    }
    ls = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(vs));
    for (i = 0; i < n; i += 16) {
        __mmask16 m = MMD__MASK16(i, n);
        _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + i), ls));
    }
}

/* The maximum and the sum of an AVX2 vector's lanes. */
MMD__TARGET_AVX2 static float mmd__hmax_avx2(__m256 v) {
    __m128 a = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_max_ps(a, _mm_movehl_ps(a, a));
    return _mm_cvtss_f32(_mm_max_ss(a, _mm_shuffle_ps(a, a, 1)));
}

MMD__TARGET_AVX2 static float mmd__hsum_avx2(__m256 v) {
    __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_add_ps(a, _mm_movehl_ps(a, a));
    return _mm_cvtss_f32(_mm_add_ss(a, _mm_shuffle_ps(a, a, 1)));
}

MMD__TARGET_AVX2 static void mmd__softmax_avx2(const float *x, float *y, int64_t n, int32_t log_mode) {
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    __m256 vm = ninf, vs = _mm256_setzero_ps(), mx, ls;
    int64_t i;
    for (i = 0; i < n; i += 8) {
        __m256i m = mmd__tail_avx2(n - i);
        vm = _mm256_max_ps(vm, _mm256_blendv_ps(ninf, _mm256_maskload_ps(x + i, m), _mm256_castsi256_ps(m)));
    }
    mx = _mm256_set1_ps(mmd__hmax_avx2(vm));
    for (i = 0; i < n; i += 8) {
        __m256i m = mmd__tail_avx2(n - i);
        __m256 e = _mm256_and_ps(_mm256_castsi256_ps(m), mmd__exp_avx2(_mm256_sub_ps(_mm256_maskload_ps(x + i, m), mx)));
        vs = _mm256_add_ps(vs, e);
        if (!log_mode) _mm256_maskstore_ps(y + i, m, e);
    }
    if (log_mode) {
        ls = _mm256_set1_ps(logf(mmd__hsum_avx2(vs)));
        for (i = 0; i < n; i += 8) {
            __m256i m = mmd__tail_avx2(n - i);
            _mm256_maskstore_ps(y + i, m, _mm256_sub_ps(_mm256_sub_ps(_mm256_maskload_ps(x + i, m), mx), ls));
        }
        return;
    }
    ls = _mm256_set1_ps(1.0f / mmd__hsum_avx2(vs));
    for (i = 0; i < n; i += 8) {
        __m256i m = mmd__tail_avx2(n - i);
        _mm256_maskstore_ps(y + i, m, _mm256_mul_ps(_mm256_maskload_ps(y + i, m), ls));
    }
}
#endif

#if defined(MMD__X86)
MMD__TARGET_AVX512 static void mmd__exp_rows_avx512(const float *x, float *y, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i += 16) {
        __mmask16 m = MMD__MASK16(i, n);
        _mm512_mask_storeu_ps(y + i, m, mmd__exp_avx512(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

MMD__TARGET_AVX2 static void mmd__exp_rows_avx2(const float *x, float *y, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i += 8) {
        __m256i m = mmd__tail_avx2(n - i);
        _mm256_maskstore_ps(y + i, m, mmd__exp_avx2(_mm256_maskload_ps(x + i, m)));
    }
}
#endif

/* y = exp(x) over n floats (x may be y): mmd__exp_* on the vector paths, expf otherwise. */
static void mmd__exp_f32(int32_t isa, const float *x, float *y, int64_t n) {
    int64_t i = 0;
#if defined(MMD__X86)
    if (isa == MMD__ISA_AVX512) {
        mmd__exp_rows_avx512(x, y, n);
        return;
    }
    if (isa == MMD__ISA_AVX2) {
        mmd__exp_rows_avx2(x, y, n);
        return;
    }
#endif
    (void)isa;
    for (; i < n; ++i) y[i] = expf(x[i]);
}

typedef struct mmd__softmax_data {
    int64_t outer, n, inner;            /* softmax over n elements spaced `inner` apart */
    int32_t mode;                       /* MMD__SOFTMAX, _LOG_SOFTMAX or _HARDMAX */
    int32_t isa;                        /* mmd__isa() */
    int32_t slots;                      /* shares with scratch rows (inner > 1) */
} mmd__softmax_data;

/* Softmax, LogSoftmax and Hardmax before opset 13 flatten the input to 2-D at axis (default
   1) and normalise each row; from 13 on they normalise along axis alone (default -1). */
static mmd_status mmd__softmax_f32_prepare(mmd_kernel_ctx *c) {
    mmd__softmax_data *p = (mmd__softmax_data *)c->op_data;
    const mmd_tensor *x;
    int64_t axis_attr;
    int32_t axis = 0;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "axis", c->opset < 13 ? 1 : -1, &axis_attr);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__norm_axis(c, axis_attr, x->rank, &axis)) != MMD_OK) return st;
    mmd__axis_extents(x, axis, &p->outer, &p->n, &p->inner);
    if (c->opset < 13) {
        p->n *= p->inner;
        p->inner = 1;
    }
    p->mode = !strcmp(c->node->op_type, "LogSoftmax") ? MMD__LOG_SOFTMAX
              : !strcmp(c->node->op_type, "Hardmax") ? MMD__HARDMAX : MMD__SOFTMAX;
    p->isa = p->mode == MMD__HARDMAX ? MMD__ISA_PORTABLE : mmd__isa();
    p->slots = c->threads > 1 ? c->threads : 1;
    if (p->isa != MMD__ISA_PORTABLE && p->inner > 1) {
        /* Two rows of `inner` floats per share; the input's byte count bounds one row. */
        if ((size_t)p->inner > (size_t)-1 / (2 * sizeof(float)) / (size_t)p->slots) p->slots = 1;
        c->scratch_size = (size_t)p->slots * 2 * (size_t)p->inner * sizeof(float);
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims);
}

/* One slice of n elements `st` apart, in the portable loops. It starts from its first maximum.
   Softmax subtracts it first, which keeps expf from overflowing; LogSoftmax is
   x - max - log(sum(exp(x - max))), which stays finite for large x; Hardmax puts 1 at the
   first maximum and 0 elsewhere. */
static void mmd__softmax_slice_f32(const float *xr, float *yr, int64_t n, int64_t st, int32_t mode) {
    int64_t i, best;
    float mx, sum = 0.0f, scale;
    for (best = 0, i = 1; i < n; ++i)
        if (xr[i * st] > xr[best * st]) best = i;
    mx = xr[best * st];
    if (mode == MMD__HARDMAX) {
        for (i = 0; i < n; ++i) yr[i * st] = 0.0f;
        yr[best * st] = 1.0f;
        return;
    }
    for (i = 0; i < n; ++i) {
        float e = expf(xr[i * st] - mx);
        sum += e;
        if (mode == MMD__SOFTMAX) yr[i * st] = e;
    }
    if (mode == MMD__LOG_SOFTMAX) {
        scale = logf(sum);
        for (i = 0; i < n; ++i) yr[i * st] = (xr[i * st] - mx) - scale;
    } else {
        scale = 1.0f / sum;
        for (i = 0; i < n; ++i) yr[i * st] *= scale;
    }
}

typedef struct mmd__softmax_job {
    const mmd__softmax_data *p;
    const float *x;
    float *y, *scratch;
} mmd__softmax_job;

/* Outer indices [lo, hi): their n * inner elements. */
static void mmd__softmax_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__softmax_job *j = (const mmd__softmax_job *)data;
    const mmd__softmax_data *p = j->p;
    int64_t n = p->n, inner = p->inner, o, i;
    int32_t isa = p->isa, log_mode = p->mode == MMD__LOG_SOFTMAX;
    float *m = j->scratch + (int64_t)share * 2 * inner, *s = m + inner;
    static const float one = 1.0f;
    for (o = lo; o < hi; ++o) {
        const float *xo = j->x + o * n * inner;
        float *yo = j->y + o * n * inner;
#if defined(MMD__X86)
        if (inner == 1 && isa == MMD__ISA_AVX512) {
            mmd__softmax_avx512(xo, yo, n, log_mode);
            continue;
        }
        if (inner == 1 && isa == MMD__ISA_AVX2) {
            mmd__softmax_avx2(xo, yo, n, log_mode);
            continue;
        }
#endif
        if (isa == MMD__ISA_PORTABLE || inner == 1) {
            for (i = 0; i < inner; ++i) mmd__softmax_slice_f32(xo + i, yo + i, n, inner, p->mode);
            continue;
        }
        memcpy(m, xo, (size_t)inner * sizeof(float));
        for (i = 1; i < n; ++i) mmd__bin_f32(isa, MMD__BIN_MAX, m, m, 1, xo + i * inner, 1, inner);
        for (i = 0; i < n; ++i) {
            float *yi = yo + i * inner;
            mmd__bin_f32(isa, MMD__BIN_SUB, yi, xo + i * inner, 1, m, 1, inner);
            mmd__exp_f32(isa, yi, yi, inner);
            if (i == 0) memcpy(s, yi, (size_t)inner * sizeof(float));
            else mmd__bin_f32(isa, MMD__BIN_ADD, s, s, 1, yi, 1, inner);
        }
        if (log_mode) {
            for (i = 0; i < inner; ++i) s[i] = logf(s[i]);
            for (i = 0; i < n; ++i) {
                float *yi = yo + i * inner;
                mmd__bin_f32(isa, MMD__BIN_SUB, yi, xo + i * inner, 1, m, 1, inner);
                mmd__bin_f32(isa, MMD__BIN_SUB, yi, yi, 1, s, 1, inner);
            }
            continue;
        }
        mmd__bin_f32(isa, MMD__BIN_DIV, s, &one, 0, s, 1, inner);
        for (i = 0; i < n; ++i) mmd__bin_f32(isa, MMD__BIN_MUL, yo + i * inner, yo + i * inner, 1, s, 1, inner);
    }
}

/* Outer indices split over the threads, each with its scratch rows. */
static mmd_status mmd__softmax_f32_eval(mmd_kernel_ctx *c) {
    const mmd__softmax_data *p = (const mmd__softmax_data *)c->op_data;
    mmd__softmax_job j;
    if (p->n == 0) return MMD_OK;
    j.p = p;
    j.x = (const float *)c->inputs[0]->data;
    j.y = (float *)c->outputs[0]->data;
    j.scratch = (float *)c->scratch;
    mmd__parallel_range(c, p->outer, MMD__EW_GRAIN / (p->n * p->inner > 0 ? p->n * p->inner : 1), 1, p->slots,
                        mmd__softmax_range, &j);
    return MMD_OK;
}

typedef struct mmd__batchnorm_data {
    int64_t batch, channels, plane;
    float epsilon;
} mmd__batchnorm_data;

/* What BatchNormalization and InstanceNormalization share: float32 X of rank min_rank or more
   followed by parameter inputs of shape [C] (`inputs` in all), the epsilon attribute, and an
   output 0 of X's shape. */
static mmd_status mmd__channel_norm_prepare(mmd_kernel_ctx *c, int32_t inputs, int32_t max_out,
                                            int32_t min_rank) {
    mmd__batchnorm_data *p = (mmd__batchnorm_data *)c->op_data;
    const mmd_tensor *x;
    int32_t i;
    mmd_status st = mmd__check_io(c, inputs, inputs, max_out);
    if (st == MMD_OK) st = mmd__want_dtype_all(c, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, min_rank, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "epsilon", 1e-5f, &p->epsilon);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    p->batch = x->dims[0];
    p->channels = x->dims[1];
    p->plane = mmd__dims_product(x, 2, x->rank);
    for (i = 1; i < inputs; ++i) {
        const mmd_tensor *t = c->inputs[i];
        if (t->rank != 1 || t->dims[0] != p->channels)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d '%s' must have shape [%lld]", (int)i,
                                   t->name ? t->name : "", (long long)p->channels);
    }
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims);
}

/* BatchNormalization 7 to 15 in inference mode: y = (x - mean) / sqrt(var + eps) * scale + B.
   The training outputs (running mean and variance) are declined, as are spatial = 0 (opset 7
   and 8) and training_mode = 1 (opset 14 on). */
static mmd_status mmd__batchnorm_f32_prepare(mmd_kernel_ctx *c) {
    int64_t spatial, training;
    int32_t i;
    mmd_status st = mmd__channel_norm_prepare(c, 5, 5, 2);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "spatial", 1, &spatial);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "training_mode", 0, &training);
    if (st != MMD_OK) return st;
    for (i = 1; i < c->output_count; ++i)
        if (c->outputs[i]) return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "training outputs (output %d)", (int)i);
    if (spatial != 1 || training != 0)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "spatial %lld, training_mode %lld (only 1, 0)",
                               (long long)spatial, (long long)training);
    return MMD_OK;
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

/* ---- InstanceNormalization, LayerNormalization, LRN, MeanVarianceNormalization ------------ */

/* Mean and 1 / sqrt(variance + epsilon) of n floats, where the variance is the mean squared
   distance from the mean. Two passes in double (mmd__sum_f32 on the vector path of isa): the
   one-pass E[x^2] - E[x]^2 cancels badly when the mean is large against the spread. An empty
   row gives NaN, as numpy's mean does. */
static void mmd__moments_f32(int32_t isa, const float *x, int64_t n, float epsilon, float *mean, float *inv_std) {
    double m, v;
    if (n == 0) {
        *mean = *inv_std = NAN;
        return;
    }
    m = mmd__sum_f32(isa, x, n, 0.0, 0) / (double)n;
    v = mmd__sum_f32(isa, x, n, m, 1);
    *mean = (float)m;
    *inv_std = (float)(1.0 / sqrt(v / (double)n + (double)epsilon));
}

/* InstanceNormalization 1 to 25 (6 dropped the legacy consumed_inputs attribute, ignored here):
   y = scale * (x - mean) / sqrt(variance + epsilon) + B over each (n, c) plane. BatchNorm's op
   data has exactly the fields this needs. */
static mmd_status mmd__instance_norm_f32_prepare(mmd_kernel_ctx *c) {
    return mmd__channel_norm_prepare(c, 3, 1, 3);
}

typedef struct mmd__norm_job {
    const void *p;                      /* the op's data */
    mmd_kernel_ctx *c;
    int32_t isa;
} mmd__norm_job;

/* Planes [lo, hi) of InstanceNormalization: y = (x - mean) * (scale * inv_std) + B. */
static void mmd__instance_norm_planes(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__norm_job *j = (const mmd__norm_job *)data;
    const mmd__batchnorm_data *p = (const mmd__batchnorm_data *)j->p;
    const float *x = (const float *)j->c->inputs[0]->data, *scale = (const float *)j->c->inputs[1]->data;
    const float *bias = (const float *)j->c->inputs[2]->data;
    float *y = (float *)j->c->outputs[0]->data;
    int64_t pl, n = p->plane;
    (void)share;
    for (pl = lo; pl < hi; ++pl) {
        const float *xp = x + pl * n;
        float *yp = y + pl * n, mean, inv, g;
        mmd__moments_f32(j->isa, xp, n, p->epsilon, &mean, &inv);
        g = scale[pl % p->channels] * inv;
        mmd__bin_f32(j->isa, MMD__BIN_SUB, yp, xp, 1, &mean, 0, n);
        mmd__bin_f32(j->isa, MMD__BIN_MUL, yp, yp, 1, &g, 0, n);
        mmd__bin_f32(j->isa, MMD__BIN_ADD, yp, yp, 1, &bias[pl % p->channels], 0, n);
    }
}

static mmd_status mmd__instance_norm_f32_eval(mmd_kernel_ctx *c) {
    const mmd__batchnorm_data *p = (const mmd__batchnorm_data *)c->op_data;
    mmd__norm_job j;
    j.p = p;
    j.c = c;
    j.isa = mmd__isa();
    mmd__parallel_range(c, p->batch * p->channels, MMD__EW_GRAIN / (p->plane > 0 ? p->plane : 1), 1, INT32_MAX,
                        mmd__instance_norm_planes, &j);
    return MMD_OK;
}

typedef struct mmd__layer_norm_data {
    /* Y *= Scale and Y += B over X's shape, for a Scale or B that is not one plain row. */
    mmd__walk scale_walk, bias_walk;
    int64_t rows, n;                    /* rows of n normalised elements */
    float epsilon;
    int32_t plain;                      /* Scale and B (when present) are rows of n elements */
} mmd__layer_norm_data;

/* 1 when input i, read over x's shape, steps through a plain row of the trailing axes from
   `axis` on: stride 0 before axis, the row's own strides from it. */
static int32_t mmd__layer_norm_is_row(const mmd_tensor *t, const mmd_tensor *x, int32_t axis) {
    int64_t strides[MMD_MAX_RANK], s = 1;
    int32_t d;
    mmd__broadcast_strides(t->rank, t->dims, x->rank, strides);
    for (d = x->rank - 1; d >= 0; --d) {
        if (x->dims[d] != 1 && strides[d] != (d >= axis ? s : 0)) return 0;
        if (d >= axis) s *= x->dims[d];
    }
    return 1;
}

/* LayerNormalization 17 to 25: X standardised over axes [axis, rank) (axis in [-rank, rank];
   axis = rank normalises every element on its own), then times Scale plus B, both broadcast
   one way onto X as the spec's Mul and Add do. Mean and InvStdDev keep X's rank with 1 on the
   normalised axes. stash_type 1 (float32 statistics) is the only type float32 X can stash. */
static mmd_status mmd__layer_norm_f32_prepare(mmd_kernel_ctx *c) {
    mmd__layer_norm_data *p = (mmd__layer_norm_data *)c->op_data;
    const mmd_tensor *x;
    int64_t axis_attr, stash, dims[MMD_MAX_RANK];
    int32_t axis = 0, i, rank;
    mmd_status st = mmd__check_io(c, 2, 3, 3);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "axis", -1, &axis_attr);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "epsilon", 1e-5f, &p->epsilon);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "stash_type", 1, &stash);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if (stash != MMD_DTYPE_FLOAT32)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "stash_type %lld (only 1, float32)", (long long)stash);
    if (axis_attr == x->rank) axis = x->rank;
    else if ((st = mmd__norm_axis(c, axis_attr, x->rank, &axis)) != MMD_OK) return st;
    p->plain = 1;
    for (i = 0; i < c->input_count; ++i) {
        const mmd_tensor *t = c->inputs[i];
        if (!t) continue;
        if ((st = mmd__want_dtype(c, i, MMD_DTYPE_FLOAT32)) != MMD_OK) return st;
        if (i == 0) continue;
        if ((st = mmd__broadcast_shape(c, x->rank, x->dims, t->rank, t->dims, &rank, dims)) != MMD_OK) return st;
        if (rank != x->rank || memcmp(dims, x->dims, (size_t)rank * sizeof(dims[0]))) {
            char tx[96], tt[96];
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d '%s' %s does not broadcast onto X %s", (int)i,
                                   t->name ? t->name : "", mmd__dims_text(tt, sizeof tt, t->rank, t->dims),
                                   mmd__dims_text(tx, sizeof tx, x->rank, x->dims));
        }
        if (!mmd__layer_norm_is_row(t, x, axis)) p->plain = 0;
        mmd__walk_binary(i == 1 ? &p->scale_walk : &p->bias_walk, x->rank, x->dims, x, t, sizeof(float));
    }
    p->rows = p->n = 1;
    for (i = 0; i < x->rank; ++i) {
        if (i < axis) p->rows *= x->dims[i];
        else p->n *= x->dims[i];
        dims[i] = i < axis ? x->dims[i] : 1;
    }
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims)) != MMD_OK) return st;
    for (i = 1; i < c->output_count; ++i)
        if (c->outputs[i] && (st = mmd__set_output(c, i, MMD_DTYPE_FLOAT32, x->rank, dims)) != MMD_OK) return st;
    return MMD_OK;
}

/* Rows [lo, hi) of LayerNormalization: y = (x - mean) * inv_std, then (plain Scale and B)
   * Scale + B, in that order, by vector rows. */
static void mmd__layer_norm_rows(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__norm_job *j = (const mmd__norm_job *)data;
    const mmd__layer_norm_data *p = (const mmd__layer_norm_data *)j->p;
    mmd_kernel_ctx *c = j->c;
    const float *x = (const float *)c->inputs[0]->data, *scale = (const float *)c->inputs[1]->data;
    const float *bias = c->input_count > 2 && c->inputs[2] ? (const float *)c->inputs[2]->data : NULL;
    float *y = (float *)c->outputs[0]->data;
    float *mean_out = c->output_count > 1 && c->outputs[1] ? (float *)c->outputs[1]->data : NULL;
    float *inv_out = c->output_count > 2 && c->outputs[2] ? (float *)c->outputs[2]->data : NULL;
    int64_t r, n = p->n;
    (void)share;
    for (r = lo; r < hi; ++r) {
        const float *xr = x + r * n;
        float *yr = y + r * n, mean, inv;
        mmd__moments_f32(j->isa, xr, n, p->epsilon, &mean, &inv);
        if (mean_out) mean_out[r] = mean;
        if (inv_out) inv_out[r] = inv;
        mmd__bin_f32(j->isa, MMD__BIN_SUB, yr, xr, 1, &mean, 0, n);
        mmd__bin_f32(j->isa, MMD__BIN_MUL, yr, yr, 1, &inv, 0, n);
        if (!p->plain) continue;
        mmd__bin_f32(j->isa, MMD__BIN_MUL, yr, yr, 1, scale, 1, n);
        if (bias) mmd__bin_f32(j->isa, MMD__BIN_ADD, yr, yr, 1, bias, 1, n);
    }
}

/* Rows split over the threads; a Scale or B that is not a plain row is applied after, by the
   broadcast walk. */
static mmd_status mmd__layer_norm_f32_eval(mmd_kernel_ctx *c) {
    const mmd__layer_norm_data *p = (const mmd__layer_norm_data *)c->op_data;
    const float *scale = (const float *)c->inputs[1]->data;
    const float *bias = c->input_count > 2 && c->inputs[2] ? (const float *)c->inputs[2]->data : NULL;
    float *y = (float *)c->outputs[0]->data;
    mmd__norm_job j;
    j.p = p;
    j.c = c;
    j.isa = mmd__isa();
    mmd__parallel_range(c, p->rows, MMD__EW_GRAIN / (p->n > 0 ? p->n : 1), 1, INT32_MAX, mmd__layer_norm_rows, &j);
    if (!p->plain) {
        mmd__walk_run(&p->scale_walk, y, y, scale, mmd__mul_f32_row);
        if (bias) mmd__walk_run(&p->bias_walk, y, y, bias, mmd__add_f32_row);
    }
    return MMD_OK;
}

typedef struct mmd__lrn_data {
    int64_t batch, channels, plane, size;
    float alpha, beta, bias;
} mmd__lrn_data;

/* LRN 1 to 25: y = x / (bias + alpha / size * sum of x^2 over channels
   [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to the tensor) ^ beta. */
static mmd_status mmd__lrn_f32_prepare(mmd_kernel_ctx *c) {
    mmd__lrn_data *p = (mmd__lrn_data *)c->op_data;
    const mmd_tensor *x;
    int32_t i;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 2, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "size", 0, &p->size);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "alpha", 1e-4f, &p->alpha);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "beta", 0.75f, &p->beta);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "bias", 1.0f, &p->bias);
    if (st != MMD_OK) return st;
    if (p->size < 1 || p->size > MMD__ATTR_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "size %lld (a required attribute, at least 1)",
                               (long long)p->size);
    x = c->inputs[0];
    p->batch = x->dims[0];
    p->channels = x->dims[1];
    p->plane = 1;
    for (i = 2; i < x->rank; ++i) p->plane *= x->dims[i];
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims);
}

/* The sums of squares are gathered in the output plane, which is then turned into the result,
   so no scratch is needed and each plane is read contiguously. */
static mmd_status mmd__lrn_f32_eval(mmd_kernel_ctx *c) {
    const mmd__lrn_data *p = (const mmd__lrn_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    float k = p->alpha / (float)p->size;
    int64_t b, ch, cc, i, plane = p->plane;
    for (b = 0; b < p->batch; ++b)
        for (ch = 0; ch < p->channels; ++ch) {
            int64_t lo = ch - (p->size - 1) / 2, hi = ch + p->size / 2;
            const float *xb = x + b * p->channels * plane;
            float *yp = y + (b * p->channels + ch) * plane;
            if (lo < 0) lo = 0;
            if (hi > p->channels - 1) hi = p->channels - 1;
            for (i = 0; i < plane; ++i) yp[i] = 0.0f;
            for (cc = lo; cc <= hi; ++cc)
                for (i = 0; i < plane; ++i) yp[i] += xb[cc * plane + i] * xb[cc * plane + i];
            for (i = 0; i < plane; ++i) yp[i] = xb[ch * plane + i] / powf(p->bias + k * yp[i], p->beta);
        }
    return MMD_OK;
}

typedef struct mmd__mvn_data {
    mmd__walk reduce;                   /* 0: statistics (stride 0 on reduced axes), 1: X or Y
                                           (mmd__reduce_walk) */
    mmd__walk full;                     /* 0: Y, 1: X or Y, 2: statistics */
    int64_t count, stats;               /* elements behind each statistic; statistics */
} mmd__mvn_data;

/* MeanVarianceNormalization 9 to 25: y = (x - mean) / (sqrt(variance) + 1e-9) over `axes`
   (default [0, 2, 3]), the epsilon being the constant in the spec's function body. */
static mmd_status mmd__mvn_f32_prepare(mmd_kernel_ctx *c) {
    static const int64_t default_axes[] = {0, 2, 3};
    mmd__mvn_data *p = (mmd__mvn_data *)c->op_data;
    const mmd_tensor *x;
    const int64_t *axes;
    int64_t naxes, kept[MMD_MAX_RANK];
    int32_t reduce[MMD_MAX_RANK], i;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "axes", &axes, &naxes);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if (!axes) {
        axes = default_axes;
        naxes = 3;
    }
    st = mmd__reduce_walk(c, x, axes, naxes, 0, &p->reduce, reduce, kept, &p->count);
    if (st != MMD_OK) return st;
    p->stats = 1;
    for (i = 0; i < x->rank; ++i) p->stats *= kept[i];
    p->full.rank = x->rank;
    for (i = 0; i < x->rank; ++i) p->full.dims[i] = x->dims[i];
    mmd__broadcast_strides(x->rank, x->dims, x->rank, p->full.strides[0]);
    mmd__broadcast_strides(x->rank, x->dims, x->rank, p->full.strides[1]);
    mmd__broadcast_strides(x->rank, kept, x->rank, p->full.strides[2]);
    p->full.elem[0] = p->full.elem[1] = p->full.elem[2] = sizeof(float);
    mmd__walk_merge(&p->full);
    c->scratch_size = (size_t)p->stats * sizeof(float);
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, x->rank, x->dims);
}

/* Y = X - mean first, then the variance is the mean of Y^2, then Y is scaled: three walks, one
   array of statistics in scratch holding the means and then the scales. */
static mmd_status mmd__mvn_f32_eval(mmd_kernel_ctx *c) {
    const mmd__mvn_data *p = (const mmd__mvn_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data, *st = (float *)c->scratch;
    float inv_count;
    int64_t i;
    if (mmd_tensor_numel(c->inputs[0]) == 0) return MMD_OK;
    inv_count = 1.0f / (float)p->count;
    for (i = 0; i < p->stats; ++i) st[i] = 0.0f;
    mmd__walk_run(&p->reduce, st, x, NULL, mmd__reduce_sum_f32_row);
    for (i = 0; i < p->stats; ++i) st[i] *= inv_count;
    mmd__walk_run(&p->full, y, x, st, mmd__sub_f32_row);
    for (i = 0; i < p->stats; ++i) st[i] = 0.0f;
    mmd__walk_run(&p->reduce, st, y, NULL, mmd__reduce_sum_square_f32_row);
    for (i = 0; i < p->stats; ++i) st[i] = 1.0f / (sqrtf(st[i] * inv_count) + 1e-9f);
    mmd__walk_run(&p->full, y, y, st, mmd__mul_f32_row);
    return MMD_OK;
}

/* ==== >>ops resize and detection ==== */
/* Resampling and detection kernels: GridSample 16-25, Upsample 7-9 and Resize 10-25, RoiAlign
   10-25 and NonMaxSuppression 10-25. The bilinear and bicubic sampling (mmd__grid_sample_f32),
   the RoI sampling (mmd__roi_align_f32) and the greedy suppression
   (mmd__nms_candidates, mmd__nms_greedy) are functions of their own because MMDeploy's custom
   ops (MMCVRoiAlign, MultiLevelRoiAlign, the rotated RoIAlign, TRTBatchedNMS, NMSRotated) are
   the same computations with other box formats and overlap tests.
   Opset changelog: Resize 11 added roi, sizes and the coordinate modes, 13 made roi and scales
   optional, 18 added axes, keep_aspect_ratio_policy and antialias, 19 half_pixel_symmetric;
   RoiAlign 16 added coordinate_transformation_mode (22 only element types); NonMaxSuppression
   has not changed since 11. */

/* ---- GridSample --------------------------------------------------------------------------- */

/* Interpolation and padding modes, numbered as the interpolation_mode and padding_mode
   attributes of MMDeploy's grid_sampler op so that its kernel can pass them straight through. */
enum { MMD__GRID_BILINEAR = 0, MMD__GRID_NEAREST = 1, MMD__GRID_BICUBIC = 2 };
enum { MMD__GRID_ZEROS = 0, MMD__GRID_BORDER = 1, MMD__GRID_REFLECTION = 2 };

typedef struct mmd__grid_sampler {
    int32_t mode;                       /* MMD__GRID_BILINEAR, _NEAREST or _BICUBIC */
    int32_t padding;                    /* MMD__GRID_ZEROS, _BORDER or _REFLECTION */
    int32_t align_corners;              /* 1: -1 and 1 are the centres of the corner pixels */
} mmd__grid_sampler;

/* Pixel coordinate of normalised coordinate g on an axis of `size` pixels. */
static float mmd__grid_unnormalize(float g, int64_t size, int32_t align_corners) {
    return align_corners ? (g + 1.0f) * 0.5f * (float)(size - 1) : ((g + 1.0f) * (float)size - 1.0f) * 0.5f;
}

/* Border and reflection padding move a pixel coordinate into [0, size - 1]; zeros padding
   leaves it, so that taps outside read 0. Reflection mirrors about the centres of the edge
   pixels with align_corners, about their outer edges otherwise, as often as it takes. */
static float mmd__grid_pad(float v, int64_t size, const mmd__grid_sampler *s) {
    float hi = (float)(size - 1);
    if (s->padding == MMD__GRID_ZEROS) return v;
    if (s->padding == MMD__GRID_REFLECTION) {
        float lo = s->align_corners ? 0.0f : -0.5f, span = s->align_corners ? hi : (float)size, extra;
        if (span <= 0.0f) return 0.0f;
        v = fabsf(v - lo);
        extra = fmodf(v, span);
        v = fmodf(floorf(v / span), 2.0f) == 0.0f ? lo + extra : lo + span - extra;
    }
    return v < 0.0f ? 0.0f : v > hi ? hi : v;
}

/* plane[y][x] for whole-number coordinates, 0 outside the plane. The test is made in double
   before any conversion, so that no coordinate can overflow an integer. */
static float mmd__grid_at(const float *plane, int64_t h, int64_t w, float x, float y) {
    if (!((double)x >= 0.0 && (double)x < (double)w && (double)y >= 0.0 && (double)y < (double)h)) return 0.0f;
    return plane[(int64_t)y * w + (int64_t)x];
}

/* Weights of the four taps at -1, 0, 1, 2 around a point at fraction t past tap 0: Keys' cubic
   convolution with a = -0.75, as PyTorch's bicubic uses. */
static void mmd__cubic_weights(float t, float *wt) {
    const float a = -0.75f;
    float u = t + 1.0f, v = 1.0f - t, z = 2.0f - t;
    wt[0] = ((a * u - 5.0f * a) * u + 8.0f * a) * u - 4.0f * a;
    wt[1] = ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
    wt[2] = ((a + 2.0f) * v - (a + 3.0f)) * v * v + 1.0f;
    wt[3] = ((a * z - 5.0f * a) * z + 8.0f * a) * z - 4.0f * a;
}

/* The value of an h x w plane at normalised coordinates (gx, gy), -1 and 1 being the plane's
   edges, with torch.nn.functional.grid_sample's semantics: bilinear and nearest pad the
   coordinate then interpolate (nearest rounds half to even, as nearbyint does); bicubic pads
   each of its 16 taps. A NaN or infinite coordinate samples 0. Reads only the plane. */
static float mmd__grid_sample_f32(const float *plane, int64_t h, int64_t w, float gx, float gy,
                                  const mmd__grid_sampler *s) {
    float x = mmd__grid_unnormalize(gx, w, s->align_corners);
    float y = mmd__grid_unnormalize(gy, h, s->align_corners);
    float x0, y0, fx, fy;
    if (h <= 0 || w <= 0 || !(fabsf(x) <= FLT_MAX && fabsf(y) <= FLT_MAX)) return 0.0f;
    if (s->mode == MMD__GRID_BICUBIC) {
        float wx[4], wy[4], acc = 0.0f;
        int32_t i, j;
        x0 = floorf(x);
        y0 = floorf(y);
        mmd__cubic_weights(x - x0, wx);
        mmd__cubic_weights(y - y0, wy);
        for (i = 0; i < 4; ++i) {
            float row = 0.0f, ty = mmd__grid_pad(y0 - 1.0f + (float)i, h, s);
            for (j = 0; j < 4; ++j)
                row += wx[j] * mmd__grid_at(plane, h, w, mmd__grid_pad(x0 - 1.0f + (float)j, w, s), ty);
            acc += wy[i] * row;
        }
        return acc;
    }
    x = mmd__grid_pad(x, w, s);
    y = mmd__grid_pad(y, h, s);
    if (s->mode == MMD__GRID_NEAREST) return mmd__grid_at(plane, h, w, nearbyintf(x), nearbyintf(y));
    x0 = floorf(x);
    y0 = floorf(y);
    fx = x - x0;
    fy = y - y0;
    return (1.0f - fy) * ((1.0f - fx) * mmd__grid_at(plane, h, w, x0, y0) + fx * mmd__grid_at(plane, h, w, x0 + 1.0f, y0)) +
           fy * ((1.0f - fx) * mmd__grid_at(plane, h, w, x0, y0 + 1.0f) + fx * mmd__grid_at(plane, h, w, x0 + 1.0f, y0 + 1.0f));
}

typedef struct mmd__grid_sample_data {
    mmd__grid_sampler s;
    int64_t batch, channels, h, w, points;  /* points: H_out * W_out */
} mmd__grid_sample_data;

/* GridSample 16 to 25 on 4-D input: X [N, C, H, W], grid [N, H_out, W_out, 2] holding (x, y).
   Opset 20 renamed the modes linear, nearest and cubic (default linear) and allowed any
   number of spatial axes; only two are implemented (MMD_ERR_UNSUPPORTED otherwise). */
static mmd_status mmd__grid_sample_f32_prepare(mmd_kernel_ctx *c) {
    static const char *const modes16[] = {"bilinear", "nearest", "bicubic", NULL};
    static const char *const modes20[] = {"linear", "nearest", "cubic", NULL};
    static const char *const paddings[] = {"zeros", "border", "reflection", NULL};
    mmd__grid_sample_data *p = (mmd__grid_sample_data *)c->op_data;
    const char *const *modes = c->opset < 20 ? modes16 : modes20;
    const mmd_tensor *x, *g;
    int64_t align, dims[4];
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__detect_pick(c, "mode", modes[0], modes, &p->s.mode);
    if (st == MMD_OK) st = mmd__detect_pick(c, "padding_mode", "zeros", paddings, &p->s.padding);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "align_corners", 0, &align);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    g = c->inputs[1];
    if (x->rank != 4 && c->opset >= 20 && x->rank >= 3 && g->rank == x->rank)
        return mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "%d spatial axes (only 2)", (int)(x->rank - 2));
    if ((st = mmd__want_rank(c, 0, 4, 4)) != MMD_OK || (st = mmd__want_rank(c, 1, 4, 4)) != MMD_OK) return st;
    if (g->dims[0] != x->dims[0] || g->dims[3] != 2) {
        char tx[96], tg[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "grid %s does not fit X %s (expects [%lld, H_out, W_out, 2])",
                               mmd__dims_text(tg, sizeof tg, g->rank, g->dims),
                               mmd__dims_text(tx, sizeof tx, x->rank, x->dims), (long long)x->dims[0]);
    }
    p->s.align_corners = align != 0;
    p->batch = x->dims[0];
    p->channels = x->dims[1];
    p->h = x->dims[2];
    p->w = x->dims[3];
    p->points = g->dims[1] * g->dims[2];
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    dims[2] = g->dims[1];
    dims[3] = g->dims[2];
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims);
}

static mmd_status mmd__grid_sample_f32_eval(mmd_kernel_ctx *c) {
    const mmd__grid_sample_data *p = (const mmd__grid_sample_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data, *grid = (const float *)c->inputs[1]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t b, ch, k, plane = p->h * p->w;
    for (b = 0; b < p->batch; ++b)
        for (ch = 0; ch < p->channels; ++ch) {
            const float *xp = x + (b * p->channels + ch) * plane, *gp = grid + b * p->points * 2;
            float *yp = y + (b * p->channels + ch) * p->points;
            for (k = 0; k < p->points; ++k) yp[k] = mmd__grid_sample_f32(xp, p->h, p->w, gp[2 * k], gp[2 * k + 1], &p->s);
        }
    return MMD_OK;
}

/* ==== >>ops resize ==== */
/* Resize and Upsample are separable: each output coordinate along each axis maps to at most
   four input positions and weights (nearest one, linear two, cubic four), computed once per
   eval into scratch by mmd_resize_axis_taps; an output element is the sum over every
   combination of its axes' taps. That serves any rank and any set of resized axes with one
   loop; nearest, the common case in detection and segmentation necks, has a faster one.
   The formulas follow the ONNX reference implementation that the backend tests come from,
   including two places where it is more precise than the spec text: the "length_resized" of
   the coordinate formulas is input length times scale (not the rounded output length), and a
   coordinate that falls on an integer takes that input element alone. Where the reference
   departs from the spec, in the single-output case of pytorch_half_pixel and
   tf_crop_and_resize, the spec (and PyTorch, TensorFlow) is followed. Opset 10 and Upsample
   have no coordinate attributes: they map asymmetrically and round nearest down, which is
   what PyTorch's nearest and linear meant when it exported them. */

typedef struct mmd__resize_data {
    int32_t rank, dtype, mode;
    float extrapolation;
    mmd_resize_axis ax[MMD_MAX_RANK];
} mmd__resize_data;

/* Reads the output size and scale of every axis from sizes or scales (Upsample 7: the scales
   attribute), each value applying to axes[k]. A scale must be positive and finite: infinity
   times an empty axis would be NaN, which no comparison catches and no cast may see. */
static mmd_status mmd__resize_sizes(mmd_kernel_ctx *c, mmd__resize_data *p, const int64_t *axes,
                                    int32_t naxes, const mmd_tensor *scales,
                                    const float *attr_scales, int64_t attr_count,
                                    const mmd_tensor *sizes, int32_t policy) {
    int64_t count = sizes ? mmd_tensor_numel(sizes) : scales ? mmd_tensor_numel(scales) : attr_count;
    double keep = 0.0;
    int32_t k;
    if (count != naxes)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s has %lld values, expects %d",
                               sizes ? "sizes" : "scales", (long long)count, (int)naxes);
    for (k = 0; k < naxes; ++k) {
        mmd_resize_axis *a = &p->ax[axes[k]];
        double in = (double)a->in;
        if (sizes) {
            int64_t v = ((const int64_t *)sizes->data)[k];
            if (v < 0 || v > MMD__ELEMS_MAX || (a->in == 0 && v != 0))
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "sizes[%d] = %lld is invalid for an "
                                       "axis of length %lld", (int)k, (long long)v,
                                       (long long)a->in);
            if (policy != 0) {
                /* keep_aspect_ratio_policy: one scale for every listed axis, the smallest
                   (not_larger) or largest (not_smaller) of the per-axis ones. */
                double s;
                if (a->in == 0)
                    return mmd_kernel_fail(c, MMD_ERR_SHAPE, "keep_aspect_ratio_policy needs "
                                           "non-empty axes, axis %d is empty", (int)axes[k]);
                s = (double)v / in;
                if (k == 0 || (policy == 1 ? s < keep : s > keep)) keep = s;
                continue;
            }
            a->out = v;
            a->scale = a->in ? (double)v / in : 1.0;
        } else {
            double s = scales ? (double)((const float *)scales->data)[k] : (double)attr_scales[k];
            if (!(s > 0.0 && s <= (double)FLT_MAX) || s * in > (double)MMD__ELEMS_MAX)
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "scales[%d] = %g is not a positive "
                                       "finite scale within limits", (int)k, s);
            a->out = (int64_t)floor(s * in);
            a->scale = s;
        }
    }
    if (sizes && policy != 0)
        for (k = 0; k < naxes; ++k) {
            mmd_resize_axis *a = &p->ax[axes[k]];
            double v = keep * (double)a->in + 0.5;
            if (v > (double)MMD__ELEMS_MAX)
                return mmd_kernel_fail(c, MMD_ERR_LIMIT, "axis %d would be too long", (int)axes[k]);
            a->out = (int64_t)v;
            a->scale = keep;
        }
    return MMD_OK;
}

static mmd_status mmd__resize_prepare(mmd_kernel_ctx *c) {
    static const char *const modes[] = {"nearest", "linear", "cubic", NULL};
    static const char *const coords[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                         "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                                         "tf_crop_and_resize", NULL};
    static const char *const roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                            "ceil", NULL};
    static const char *const policies[] = {"stretch", "not_larger", "not_smaller", NULL};
    mmd__resize_data *p = (mmd__resize_data *)c->op_data;
    const mmd_tensor *x, *roi = NULL, *scales = NULL, *sizes = NULL;
    const float *attr_scales = NULL;
    const int64_t *attr_axes = NULL;
    int64_t attr_count = 0, naxes = 0, antialias = 0, axes[MMD_MAX_RANK], sum = 0, exclude = 0;
    int32_t legacy = c->opset < 11, policy = 0, used[MMD_MAX_RANK] = {0}, d, k;
    int32_t coord = MMD_RESIZE_ASYMMETRIC, nearest = MMD_RESIZE_ROUND_FLOOR;
    float cubic_a = -0.75f;
    mmd_status st = mmd__check_io(c, c->opset < 9 ? 1 : legacy ? 2 : 1,
                                  c->opset < 9 ? 1 : legacy ? 2 : 4, 1);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK)) != MMD_OK) return st;
    p->rank = x->rank;
    p->dtype = x->dtype;
    st = mmd__detect_pick(c, "mode", "nearest", modes, &p->mode);
    if (st == MMD_OK && legacy && p->mode == MMD_RESIZE_CUBIC)
        st = mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "mode cubic needs opset 11");
    if (st == MMD_OK && !legacy) {
        st = mmd__detect_pick(c, "coordinate_transformation_mode", "half_pixel", coords, &coord);
        if (st == MMD_OK) st = mmd__detect_pick(c, "nearest_mode", "round_prefer_floor", roundings, &nearest);
        if (st == MMD_OK) st = mmd_attr_get_float(c, "cubic_coeff_a", -0.75f, &cubic_a);
        if (st == MMD_OK) st = mmd_attr_get_int(c, "exclude_outside", 0, &exclude);
        if (st == MMD_OK) st = mmd_attr_get_float(c, "extrapolation_value", 0.0f, &p->extrapolation);
    }
    if (st == MMD_OK && c->opset >= 18) {
        st = mmd_attr_get_int(c, "antialias", 0, &antialias);
        if (st == MMD_OK) st = mmd_attr_get_ints(c, "axes", &attr_axes, &naxes);
        if (st == MMD_OK) st = mmd__detect_pick(c, "keep_aspect_ratio_policy", "stretch", policies, &policy);
        if (st == MMD_OK && antialias != 0 && p->mode != MMD_RESIZE_NEAREST)
            st = mmd_kernel_fail(c, MMD_ERR_UNSUPPORTED, "antialias is not implemented");
    }
    if (st != MMD_OK) return st;

    /* The axes that roi, scales and sizes list: every axis unless opset 18's attribute says. */
    if (!attr_axes) naxes = x->rank;
    if (naxes > x->rank)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "%lld axes for rank %d", (long long)naxes,
                               (int)x->rank);
    for (k = 0; k < naxes; ++k) {
        int32_t a = k;
        if (attr_axes && (st = mmd__norm_axis(c, attr_axes[k], x->rank, &a)) != MMD_OK) return st;
        if (used[a]++)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "axis %d repeats", (int)a);
        axes[k] = a;
    }
    for (d = 0; d < x->rank; ++d) {
        mmd_resize_axis *a = &p->ax[d];
        a->mode = p->mode;
        a->coord = coord;
        a->nearest = nearest;
        a->exclude_outside = exclude != 0;
        a->cubic_a = cubic_a;
        a->in = a->out = x->dims[d];
        a->scale = 1.0;
        a->roi_start = 0.0;
        a->roi_end = 1.0;
    }

    if (c->opset < 9) {
        st = mmd_attr_get_floats(c, "scales", &attr_scales, &attr_count);
        if (st == MMD_OK && !attr_scales)
            st = mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute scales is required");
    } else if (legacy) {
        st = mmd__want_value(c, 1, MMD_DTYPE_FLOAT32, "scales", &scales);
        if (st == MMD_OK && !scales) st = mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "scales is empty");
    } else {
        st = mmd__want_value(c, 2, MMD_DTYPE_FLOAT32, "scales", &scales);
        if (st == MMD_OK) st = mmd__want_value(c, 3, MMD_DTYPE_INT64, "sizes", &sizes);
        if (st == MMD_OK && (!scales) == (!sizes))
            st = mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "needs exactly one of scales and sizes");
        if (st == MMD_OK && coord == MMD_RESIZE_TF_CROP_AND_RESIZE)
            st = mmd__want_value(c, 1, MMD_DTYPE_UNDEFINED, "roi", &roi);
    }
    if (st == MMD_OK) st = mmd__resize_sizes(c, p, axes, (int32_t)naxes, scales, attr_scales, attr_count, sizes, policy);
    if (st != MMD_OK) return st;
    if (roi) {
        /* roi is optional even here: without it the crop is the whole input. */
        if (mmd__cast_kind(roi->dtype) != 1 || roi->dtype == MMD_DTYPE_BFLOAT16)
            return mmd_kernel_fail(c, MMD_ERR_DTYPE, "roi is %s, expects a float type", mmd_dtype_name(roi->dtype));
        if (mmd_tensor_numel(roi) != 2 * naxes)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "roi has %lld values, expects %d",
                                   (long long)mmd_tensor_numel(roi), (int)(2 * naxes));
        for (k = 0; k < 2 * naxes; ++k) {
            double v = mmd__load_float(roi->dtype, roi->data, k);
            if (!(fabs(v) <= DBL_MAX))
                return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "roi[%d] = %g is not finite", (int)k, v);
            if (k < naxes) p->ax[axes[k]].roi_start = v;
            else p->ax[axes[k - naxes]].roi_end = v;
        }
    }

    if (p->mode == MMD_RESIZE_NEAREST ? mmd_dtype_size(x->dtype) == 0 : mmd__cast_kind(x->dtype) == 0)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "cannot resize %s with mode %s",
                               mmd_dtype_name(x->dtype), modes[p->mode]);
    for (d = 0; d < x->rank; ++d) axes[d] = p->ax[d].out;
    if ((st = mmd__set_output(c, 0, x->dtype, x->rank, axes)) != MMD_OK) return st;
    if (mmd_tensor_numel(c->outputs[0]) > 0) {
        for (d = 0; d < x->rank; ++d) sum += p->ax[d].out;
        if ((uint64_t)sum > SIZE_MAX / sizeof(mmd_resize_tap))
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "output is too large");
        c->scratch_size = (size_t)sum * sizeof(mmd_resize_tap);
    }
    return MMD_OK;
}

/* Input coordinate of output coordinate o, before rounding or clamping. */
static double mmd__resize_coord(const mmd_resize_axis *a, int64_t o) {
    double in = (double)a->in, s = a->scale, len = s * in, x = (double)o;
    switch (a->coord) {
    case MMD_RESIZE_HALF_PIXEL: return (x + 0.5) / s - 0.5;
    case MMD_RESIZE_HALF_PIXEL_SYMMETRIC: {
        /* Centres the output on the input when rounding made the output shorter than len. */
        double offset = in / 2.0 * (1.0 - (double)a->out / len);
        return offset + (x + 0.5) / s - 0.5;
    }
    case MMD_RESIZE_PYTORCH_HALF_PIXEL: return a->out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case MMD_RESIZE_ALIGN_CORNERS: return len == 1.0 ? 0.0 : x * (in - 1.0) / (len - 1.0);
    case MMD_RESIZE_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / s;
    case MMD_RESIZE_OPENCV_AREA: {
        /* cv::resize's INTER_AREA when growing: linear weights from where the output pixel's
           right edge falls in the input, not from its centre. */
        double sx = floor(x / s), fx = (x + 1.0) - (sx + 1.0) * s;
        return sx + (fx <= 0.0 ? 0.0 : fx - floor(fx));
    }
    case MMD_RESIZE_TF_CROP_AND_RESIZE:
        /* A single output takes the centre of the crop, as the spec and TensorFlow say. */
        return (a->out == 1 ? (a->roi_end - a->roi_start) * (in - 1.0) / 2.0
                            : x * (a->roi_end - a->roi_start) * (in - 1.0) / (len - 1.0)) +
               a->roi_start * (in - 1.0);
    default: return x / s;
    }
}

/* A firmware build that keeps neither Resize nor Upsample does without it (MMD__KEEP). */
#if MMD__KEEP(Resize) || MMD__KEEP(Upsample)
/* MMD_RESIZE_AREA: output o averages the input span [o * in / out, (o + 1) * in / out), edge
   pixels by the part of them inside, as cv::resize's INTER_AREA weighs them (an edge part under
   1/1000 of a pixel is dropped). */
static void mmd__resize_area_taps(const mmd_resize_axis *a, int64_t stride, mmd_resize_tap *taps) {
    double s = (double)a->in / (double)a->out;
    int64_t o;
    for (o = 0; o < a->out; ++o) {
        mmd_resize_tap *t = &taps[o];
        double f1 = (double)o * s, f2 = f1 + s, cell = s < (double)a->in - f1 ? s : (double)a->in - f1;
        int64_t s1 = (int64_t)ceil(f1), s2 = (int64_t)floor(f2), first;
        s2 = s2 < a->in - 1 ? s2 : a->in - 1;
        s1 = s1 < s2 ? s1 : s2;
        first = s1 - f1 > 1e-3 ? s1 - 1 : s1;
        t->w[0] = (float)((s1 - f1 > 1e-3 ? s1 - f1 : 1.0) / cell);
        t->w[1] = (float)(1.0 / cell);
        t->n = (int32_t)(s2 - first);
        t->w[2] = t->w[1];
        if (f2 - (double)s2 > 1e-3) {
            double part = f2 - (double)s2;
            t->w[2] = (float)((part < 1.0 ? (part < cell ? part : cell) : (1.0 < cell ? 1.0 : cell)) / cell);
            t->n += 1;
        }
        if (t->n < 1) {
            t->n = 1;
            t->w[0] = 1.0f;
        } else if (t->n == 1 && first < s1) {
            t->w[2] = t->w[0];
        } else if (t->n == 1) {
            t->w[0] = t->w[2];
        }
        t->off[0] = first * stride;
    }
}

MMD_API void mmd_resize_tap_at(const mmd_resize_tap *t, int32_t mode, int64_t stride, int32_t k, int64_t *off,
                               float *w) {
    if (mode != MMD_RESIZE_AREA) {
        *off = t->off[k];
        *w = t->w[k];
        return;
    }
    *off = t->off[0] + k * stride;
    *w = k == 0 ? t->w[0] : k == t->n - 1 ? t->w[2] : t->w[1];
}

MMD_API void mmd_resize_axis_taps(const mmd_resize_axis *a, int64_t stride, mmd_resize_tap *taps) {
    int64_t last = a->in - 1, o;
    if (a->mode == MMD_RESIZE_AREA) {
        mmd__resize_area_taps(a, stride, taps);
        return;
    }
    for (o = 0; o < a->out; ++o) {
        mmd_resize_tap *t = &taps[o];
        double x = mmd__resize_coord(a, o), f, r, w[4], ca = (double)a->cubic_a, sum = 0.0;
        int64_t base;
        int32_t k, up;
        if (a->coord == MMD_RESIZE_TF_CROP_AND_RESIZE && !(x >= 0.0 && x <= (double)last)) {
            t->n = 0;
            continue;
        }
        /* Every mode keeps x within about a pixel of the input; the clamp only guards the
           conversion to an integer against values no real scale produces. */
        if (!(x > -4.0)) x = -4.0;
        if (x > (double)last + 4.0) x = (double)last + 4.0;
        f = floor(x);
        r = x - f;
        base = (int64_t)f;
        if (r == 0.0 || a->mode == MMD_RESIZE_NEAREST) {
            switch (a->nearest) {
            case MMD_RESIZE_ROUND_PREFER_FLOOR: up = r > 0.5; break;
            case MMD_RESIZE_ROUND_PREFER_CEIL: up = r >= 0.5; break;
            case MMD_RESIZE_ROUND_FLOOR: up = 0; break;
            default: up = r > 0.0; break;
            }
            base += up;
            t->n = 1;
            t->off[0] = (base < 0 ? 0 : base > last ? last : base) * stride;
            t->w[0] = 1.0f;
            continue;
        }
        if (a->mode == MMD_RESIZE_LINEAR) {
            t->n = 2;
            w[0] = 1.0 - r;
            w[1] = r;
        } else {
            /* Keys' cubic convolution kernel at distances 1 + r, r, 1 - r and 2 - r. */
            double q = 1.0 - r;
            t->n = 4;
            base -= 1;
            w[0] = ((ca * (r + 1.0) - 5.0 * ca) * (r + 1.0) + 8.0 * ca) * (r + 1.0) - 4.0 * ca;
            w[1] = ((ca + 2.0) * r - (ca + 3.0)) * r * r + 1.0;
            w[2] = ((ca + 2.0) * q - (ca + 3.0)) * q * q + 1.0;
            w[3] = ((ca * (q + 1.0) - 5.0 * ca) * (q + 1.0) + 8.0 * ca) * (q + 1.0) - 4.0 * ca;
        }
        for (k = 0; k < t->n; ++k) {
            int64_t i = base + k;
            if (a->exclude_outside && (i < 0 || i > last)) w[k] = 0.0;
            sum += w[k];
            t->off[k] = (i < 0 ? 0 : i > last ? last : i) * stride;
        }
        for (k = 0; k < t->n; ++k) t->w[k] = (float)(a->exclude_outside && sum != 0.0 ? w[k] / sum : w[k]);
    }
}
#endif

/* Walks the combinations of one output element's taps, one per axis. */
typedef struct mmd__resize_iter {
    const mmd_resize_tap *t[MMD_MAX_RANK];
    int32_t k[MMD_MAX_RANK], rank, more;
} mmd__resize_iter;

/* Starts at output coordinates o; 0 when some axis is outside a tf_crop_and_resize crop. */
static int32_t mmd__resize_iter_start(mmd__resize_iter *it, mmd_resize_tap *const *taps, int32_t rank,
                                      const int64_t *o) {
    int32_t d;
    it->rank = rank;
    it->more = 1;
    for (d = 0; d < rank; ++d) {
        it->t[d] = &taps[d][o[d]];
        it->k[d] = 0;
        if (it->t[d]->n == 0) return 0;
    }
    return 1;
}

/* Weight and input offset of the next combination; 0 once every combination was given. */
static int32_t mmd__resize_iter_next(mmd__resize_iter *it, float *w, int64_t *off) {
    int32_t d;
    if (!it->more) return 0;
    *w = 1.0f;
    *off = 0;
    for (d = 0; d < it->rank; ++d) {
        *w *= it->t[d]->w[it->k[d]];
        *off += it->t[d]->off[it->k[d]];
    }
    for (d = it->rank - 1; d >= 0; --d) {
        if (++it->k[d] < it->t[d]->n) break;
        it->k[d] = 0;
    }
    it->more = d >= 0;
    return 1;
}

/* What the shares of a Resize read: the op, the taps of every axis, input and output. */
typedef struct mmd__resize_job {
    const mmd__resize_data *p;
    mmd_resize_tap *const *taps;
    const void *x;
    void *y;
    size_t elem;
    int32_t repeat;                     /* 4-byte elements, AVX-512, and the last axis's output
                                           j reads input j / repeat (nearest upsampling by 2, 4,
                                           8 or 16), else 0 */
} mmd__resize_job;

#if defined(MMD__X86)
/* y[j] = x[j / f] for j in [0, n), f 2, 4, 8 or 16, 4-byte elements moved as bits: the last axis
   of a nearest upsampling Resize (DBNet's FPN: 2x, 4x and 8x), a vector of x making f of y by
   one permute each; the row's last vectors go masked (16 columns upsampled 8x make 120, less
   than one whole step), so that no input past x[(n - 1) / f] is read. */
MMD__TARGET_AVX512 static void mmd__repeat_u32_avx512(uint32_t *y, const uint32_t *x, int64_t n, int32_t f) {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i step = _mm512_set1_epi32(16 / f);
    int64_t j, k;
    for (j = 0; j < n; j += 16 * (int64_t)f) {
        int64_t need = (n - j + f - 1) / f;
        __m512i v = _mm512_maskz_loadu_epi32(MMD__MASK16(0, need), (const void *)(x + j / f));
        __m512i idx = _mm512_srli_epi32(lane, f == 2 ? 1 : f == 4 ? 2 : f == 8 ? 3 : 4);
        for (k = j; k < n && k < j + 16 * (int64_t)f; k += 16, idx = _mm512_add_epi32(idx, step))
            _mm512_mask_storeu_epi32((void *)(y + k), MMD__MASK16(k, n), _mm512_permutexvar_epi32(idx, v));
    }
}
#endif

/* The output coordinates of flat index i over axes [0, axes). */
static void mmd__resize_coords(const mmd__resize_data *p, int32_t axes, int64_t i, int64_t *o) {
    int32_t d;
    for (d = axes - 1; d >= 0; --d) {
        o[d] = i % p->ax[d].out;
        i /= p->ax[d].out;
    }
}

/* Nearest with one tap everywhere, output rows (the last axis) [lo, hi): each is gathered
   through the last axis' offset table, and a row whose source row is the previous row's
   (upsampling repeats each) is a copy of the row just written. A share starts with a gather,
   so the rows are the same whoever writes them. */
static void mmd__resize_nearest_rows(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__resize_job *jb = (const mmd__resize_job *)data;
    const mmd__resize_data *p = jb->p;
    mmd_resize_tap *const *taps = jb->taps;
    size_t elem = jb->elem;
    int32_t last = p->rank - 1, d;
    int64_t inner = p->ax[last].out, o[MMD_MAX_RANK] = {0}, r, j, prev = -1;
    const mmd_resize_tap *tl = taps[last];
    size_t row_bytes = (size_t)inner * elem;
    (void)share;
    mmd__resize_coords(p, last, lo, o);
    for (r = lo; r < hi; ++r) {
        int64_t src = 0;
        char *yr = (char *)jb->y + (size_t)r * row_bytes;
        for (d = 0; d < last; ++d) src += taps[d][o[d]].off[0];
        if (src == prev) {
            memcpy(yr, yr - row_bytes, row_bytes);
        } else if (elem == 4) {
            const uint32_t *xr = (const uint32_t *)jb->x + src;
            uint32_t *yo = (uint32_t *)yr;
#if defined(MMD__X86)
            if (jb->repeat) mmd__repeat_u32_avx512(yo, xr, inner, jb->repeat);
            else
#endif
            for (j = 0; j < inner; ++j) yo[j] = xr[tl[j].off[0]];
        } else if (elem == 8) {
            const uint64_t *xr = (const uint64_t *)jb->x + src;
            uint64_t *yo = (uint64_t *)yr;
            for (j = 0; j < inner; ++j) yo[j] = xr[tl[j].off[0]];
        } else if (elem == 1) {
            const uint8_t *xr = (const uint8_t *)jb->x + src;
            uint8_t *yo = (uint8_t *)yr;
            for (j = 0; j < inner; ++j) yo[j] = xr[tl[j].off[0]];
        } else {
            const char *xr = (const char *)jb->x + (size_t)src * elem;
            for (j = 0; j < inner; ++j) memcpy(yr + (size_t)j * elem, xr + (size_t)tl[j].off[0] * elem, elem);
        }
        prev = src;
        for (d = last - 1; d >= 0; --d) {
            if (++o[d] < p->ax[d].out) break;
            o[d] = 0;
        }
    }
}

/* Output elements [lo, hi), each the weighted sum of its taps' combinations. */
static void mmd__resize_elems(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__resize_job *jb = (const mmd__resize_job *)data;
    const mmd__resize_data *p = jb->p;
    const void *x = jb->x;
    void *y = jb->y;
    int64_t o[MMD_MAX_RANK] = {0}, i, off;
    int32_t d, kind = mmd__cast_kind(p->dtype);
    mmd__resize_iter it;
    float w;
    (void)share;
    mmd__resize_coords(p, p->rank, lo, o);
    for (i = lo; i < hi; ++i) {
        if (!mmd__resize_iter_start(&it, jb->taps, p->rank, o)) {
            mmd__store_float(p->dtype, y, i, (double)p->extrapolation);
        } else if (p->mode == MMD_RESIZE_NEAREST) {
            /* One tap per axis: a plain copy, whatever the dtype. */
            mmd__resize_iter_next(&it, &w, &off);
            memcpy((char *)y + (size_t)i * jb->elem, (const char *)x + (size_t)off * jb->elem, jb->elem);
        } else if (p->dtype == MMD_DTYPE_FLOAT32) {
            const float *xf = (const float *)x;
            float acc = 0.0f;
            while (mmd__resize_iter_next(&it, &w, &off)) acc += w * xf[off];
            ((float *)y)[i] = acc;
        } else {
            /* Other dtypes go through double and are stored as a cast would (ints truncate). */
            double acc = 0.0;
            while (mmd__resize_iter_next(&it, &w, &off))
                acc += (double)w * (kind == 1 ? mmd__load_float(p->dtype, x, off)
                                              : (double)mmd__load_int(p->dtype, x, off));
            mmd__store_float(p->dtype, y, i, acc);
        }
        for (d = p->rank - 1; d >= 0; --d) {
            if (++o[d] < p->ax[d].out) break;
            o[d] = 0;
        }
    }
}

/* The taps of every axis are computed on the calling thread (a few per output coordinate),
   then the output is split: whole rows when every axis takes one nearest tap, else elements
   (a linear or cubic element reads up to 4^rank of them). */
static mmd_status mmd__resize_eval(mmd_kernel_ctx *c) {
    const mmd__resize_data *p = (const mmd__resize_data *)c->op_data;
    mmd_resize_tap *taps[MMD_MAX_RANK], *next = (mmd_resize_tap *)c->scratch;
    int64_t n = mmd_tensor_numel(c->outputs[0]), stride = 1, i;
    int32_t d, single = 1;
    mmd__resize_job jb;
    if (n == 0) return MMD_OK;
    for (d = p->rank - 1; d >= 0; --d) {
        taps[d] = next;
        mmd_resize_axis_taps(&p->ax[d], stride, taps[d]);
        for (i = 0; i < p->ax[d].out; ++i) single &= next[i].n == 1;
        next += p->ax[d].out;
        stride *= p->ax[d].in;
    }
    jb.p = p;
    jb.taps = taps;
    jb.x = c->inputs[0]->data;
    jb.y = c->outputs[0]->data;
    jb.elem = mmd_dtype_size(p->dtype);
    jb.repeat = 0;
    if (p->mode == MMD_RESIZE_NEAREST && single) {
        int64_t inner = p->ax[p->rank - 1].out, f = p->ax[p->rank - 1].in ? inner / p->ax[p->rank - 1].in : 0;
#if defined(MMD__X86)
        /* The factor the offsets are checked against: the sizes' ratio (a nearest mode and
           coordinates that round otherwise fail the check and gather). */
        jb.repeat = jb.elem == 4 && mmd__isa() == MMD__ISA_AVX512 && (f == 2 || f == 4 || f == 8 || f == 16) ? (int32_t)f : 0;
        for (i = 0; i < inner && jb.repeat; ++i)
            if (taps[p->rank - 1][i].off[0] != i / f) jb.repeat = 0;
#else
        (void)f;
#endif
        mmd__parallel_range(c, n / inner, MMD__EW_GRAIN / inner, 1, INT32_MAX, mmd__resize_nearest_rows, &jb);
        return MMD_OK;
    }
    mmd__parallel_range(c, n, MMD__EW_GRAIN / (p->mode == MMD_RESIZE_NEAREST ? 1 : 4), 64, INT32_MAX,
                        mmd__resize_elems, &jb);
    return MMD_OK;
}

/* ==== >>ops roi align ==== */

/* Sampling geometry of one RoI. Sample (iy, ix) of bin (ph, pw) sits at
     yy = y0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h   (xx likewise with x0, bin_w, grid_w)
   in the RoI's own frame, which the rotation (cos_t, sin_t) about (cy, cx) maps onto the
   feature map: y = yy * cos_t - xx * sin_t + cy, x = yy * sin_t + xx * cos_t + cx.
   Axis-aligned RoIs (mmd__roi_geom_box) have cos_t = 1, sin_t = 0 and the centre at the
   origin, so (y0, x0) is the RoI's corner on the map; a rotated RoI (mmcv's RoIAlignRotated)
   puts (y0, x0) at minus half its size and (cy, cx) at its centre. */
typedef struct mmd__roi_geom {
    float y0, x0, bin_h, bin_w, cos_t, sin_t, cy, cx;
    int64_t grid_h, grid_w;
} mmd__roi_geom;

/* Pooling over a bin's samples: the mean of the bilinear values (ONNX and mmcv avg), their
   maximum (mmcv max), or ONNX's max, which the ONNX reference implementation and
   onnxruntime compute as the largest of the four weighted corner terms of any sample. */
enum { MMD__ROI_AVG, MMD__ROI_MAX, MMD__ROI_MAX_CORNER };

/* Samples per bin along one axis: sampling_ratio when positive, else ceil(bin size). A bin
   longer than the feature map plus two pixels is sampled at most that many times, so that
   hostile RoIs cannot make the loops unbounded; a real RoI never reaches that. */
static int64_t mmd__roi_grid(float bin, int64_t sampling_ratio, int64_t extent) {
    double g = ceil((double)bin);
    if (sampling_ratio > 0) return sampling_ratio;
    if (!(g > 0.0)) return 0;
    return g > (double)(extent + 2) ? extent + 2 : (int64_t)g;
}

/* Geometry of the box (x1, y1, x2, y2) in image coordinates on an h x w feature map that is
   spatial_scale times the image. half_pixel (ONNX half_pixel, mmcv aligned=1) shifts the box
   by half a pixel; without it a box is at least one pixel wide and tall, as in Detectron. */
static void mmd__roi_geom_box(mmd__roi_geom *g, const float *box, float spatial_scale, int32_t half_pixel,
                              int64_t out_h, int64_t out_w, int64_t sampling_ratio, int64_t h, int64_t w) {
    float offset = half_pixel ? 0.5f : 0.0f;
    float x1 = box[0] * spatial_scale - offset, y1 = box[1] * spatial_scale - offset;
    float rw = box[2] * spatial_scale - offset - x1, rh = box[3] * spatial_scale - offset - y1;
    if (!half_pixel) {
        rw = rw > 1.0f ? rw : 1.0f;
        rh = rh > 1.0f ? rh : 1.0f;
    }
    g->y0 = y1;
    g->x0 = x1;
    g->bin_h = rh / (float)out_h;
    g->bin_w = rw / (float)out_w;
    g->cos_t = 1.0f;
    g->sin_t = 0.0f;
    g->cy = g->cx = 0.0f;
    g->grid_h = mmd__roi_grid(g->bin_h, sampling_ratio, h);
    g->grid_w = mmd__roi_grid(g->bin_w, sampling_ratio, w);
}

/* Corner offsets and weights of a bilinear sample at (y, x) on an h x w map; 0 (with zero
   weights) when the point is more than one pixel outside, where it counts as 0. Points just
   outside are clamped to the border, as Detectron does. NaN coordinates count as outside. */
static int32_t mmd__roi_corners(float y, float x, int64_t h, int64_t w, int64_t *off, float *wt) {
    int64_t y0, x0, y1, x1;
    float ly, lx;
    if (h <= 0 || w <= 0 || !(y >= -1.0f && y <= (float)h && x >= -1.0f && x <= (float)w)) {
        off[0] = off[1] = off[2] = off[3] = 0;
        wt[0] = wt[1] = wt[2] = wt[3] = 0.0f;
        return 0;
    }
    if (y < 0.0f) y = 0.0f;
    if (x < 0.0f) x = 0.0f;
    y0 = (int64_t)y;
    x0 = (int64_t)x;
    if (y0 >= h - 1) {
        y0 = y1 = h - 1;
        y = (float)y0;
    } else {
        y1 = y0 + 1;
    }
    if (x0 >= w - 1) {
        x0 = x1 = w - 1;
        x = (float)x0;
    } else {
        x1 = x0 + 1;
    }
    ly = y - (float)y0;
    lx = x - (float)x0;
    off[0] = y0 * w + x0;
    off[1] = y0 * w + x1;
    off[2] = y1 * w + x0;
    off[3] = y1 * w + x1;
    wt[0] = (1.0f - ly) * (1.0f - lx);
    wt[1] = (1.0f - ly) * lx;
    wt[2] = ly * (1.0f - lx);
    wt[3] = ly * lx;
    return 1;
}

/* Pools one RoI over `channels` planes of h x w floats into channels x out_h x out_w bins.
   Each sample's corners and weights are found once and applied to every channel. An empty
   bin (a RoI of zero size under half_pixel) gives 0 in every mode. */
static void mmd__roi_align_f32(const float *x, int64_t channels, int64_t h, int64_t w,
                               const mmd__roi_geom *g, int64_t out_h, int64_t out_w, int32_t mode,
                               float *y) {
    int64_t plane = h * w, bins = out_h * out_w, count = g->grid_h * g->grid_w, ph, pw, iy, ix, ch;
    for (ph = 0; ph < out_h; ++ph)
        for (pw = 0; pw < out_w; ++pw) {
            float *yb = y + ph * out_w + pw;
            for (ch = 0; ch < channels; ++ch) yb[ch * bins] = mode == MMD__ROI_AVG ? 0.0f : -FLT_MAX;
            for (iy = 0; iy < g->grid_h; ++iy)
                for (ix = 0; ix < g->grid_w; ++ix) {
                    float yy = g->y0 + (float)ph * g->bin_h + ((float)iy + 0.5f) * g->bin_h / (float)g->grid_h;
                    float xx = g->x0 + (float)pw * g->bin_w + ((float)ix + 0.5f) * g->bin_w / (float)g->grid_w;
                    float wt[4];
                    int64_t off[4];
                    int32_t inside = mmd__roi_corners(yy * g->cos_t - xx * g->sin_t + g->cy,
                                                      yy * g->sin_t + xx * g->cos_t + g->cx, h, w, off, wt);
                    for (ch = 0; ch < channels; ++ch) {
                        const float *xp = x + ch * plane;
                        float v = 0.0f, *o = yb + ch * bins;
                        if (inside && mode == MMD__ROI_MAX_CORNER) {
                            float a = wt[0] * xp[off[0]], b = wt[1] * xp[off[1]];
                            float cc = wt[2] * xp[off[2]], dd = wt[3] * xp[off[3]];
                            v = a > b ? a : b;
                            v = v > cc ? v : cc;
                            v = v > dd ? v : dd;
                        } else if (inside) {
                            v = wt[0] * xp[off[0]] + wt[1] * xp[off[1]] + wt[2] * xp[off[2]] + wt[3] * xp[off[3]];
                        }
                        if (mode == MMD__ROI_AVG) *o += v;
                        else if (v > *o) *o = v;
                    }
                }
            for (ch = 0; ch < channels; ++ch) {
                float *o = yb + ch * bins;
                if (count == 0) *o = 0.0f;
                else if (mode == MMD__ROI_AVG) *o /= (float)count;
            }
        }
}

typedef struct mmd__roi_align_data {
    int64_t out_h, out_w, sampling_ratio;
    float spatial_scale;
    int32_t mode, half_pixel;
} mmd__roi_align_data;

static mmd_status mmd__roi_align_prepare(mmd_kernel_ctx *c) {
    static const char *const modes[] = {"avg", "max", NULL};
    static const char *const coords[] = {"output_half_pixel", "half_pixel", NULL};
    mmd__roi_align_data *p = (mmd__roi_align_data *)c->op_data;
    const mmd_tensor *x, *rois, *idx;
    int64_t dims[4];
    int32_t mode = 0;
    mmd_status st = mmd__check_io(c, 3, 3, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 2, MMD_DTYPE_INT64);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 4, 4);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 2, 2);
    if (st == MMD_OK) st = mmd__want_rank(c, 2, 1, 1);
    if (st == MMD_OK) st = mmd__detect_pick(c, "mode", "avg", modes, &mode);
    /* Opset 10 had no shift; 16 added the attribute and made the shift the default. */
    p->half_pixel = 0;
    if (st == MMD_OK && c->opset >= 16)
        st = mmd__detect_pick(c, "coordinate_transformation_mode", "half_pixel", coords, &p->half_pixel);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "output_height", 1, &p->out_h);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "output_width", 1, &p->out_w);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "sampling_ratio", 0, &p->sampling_ratio);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "spatial_scale", 1.0f, &p->spatial_scale);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    rois = c->inputs[1];
    idx = c->inputs[2];
    p->mode = mode == 0 ? MMD__ROI_AVG : MMD__ROI_MAX_CORNER;
    if (p->out_h < 1 || p->out_w < 1 || p->out_h > MMD__ATTR_MAX || p->out_w > MMD__ATTR_MAX ||
        p->sampling_ratio < 0 || p->sampling_ratio > MMD__ATTR_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "output_height %lld, output_width %lld or "
                               "sampling_ratio %lld is out of range", (long long)p->out_h,
                               (long long)p->out_w, (long long)p->sampling_ratio);
    if (rois->dims[1] != 4 || idx->dims[0] != rois->dims[0]) {
        char a[96], b[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "rois %s and batch_indices %s must be (R, 4) and (R)",
                               mmd__dims_text(a, sizeof a, rois->rank, rois->dims),
                               mmd__dims_text(b, sizeof b, idx->rank, idx->dims));
    }
    dims[0] = rois->dims[0];
    dims[1] = x->dims[1];
    dims[2] = p->out_h;
    dims[3] = p->out_w;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims);
}

static mmd_status mmd__roi_align_eval(mmd_kernel_ctx *c) {
    const mmd__roi_align_data *p = (const mmd__roi_align_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0];
    const float *rois = (const float *)c->inputs[1]->data;
    const int64_t *idx = (const int64_t *)c->inputs[2]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t n = x->dims[0], ch = x->dims[1], h = x->dims[2], w = x->dims[3];
    int64_t r, count = c->inputs[1]->dims[0], per_roi = ch * p->out_h * p->out_w;
    for (r = 0; r < count; ++r) {
        if (idx[r] < 0 || idx[r] >= n)
            return mmd_kernel_fail(c, MMD_ERR_INDEX, "batch_indices[%lld] = %lld is out of range "
                                   "for batch %lld", (long long)r, (long long)idx[r], (long long)n);
    }
    /* An empty feature map leaves every sample outside it, so every bin is 0. */
    if (ch == 0 || h == 0 || w == 0) {
        if (count * per_roi > 0) memset(y, 0, (size_t)(count * per_roi) * sizeof(float));
        return MMD_OK;
    }
    for (r = 0; r < count; ++r) {
        mmd__roi_geom g;
        mmd__roi_geom_box(&g, rois + 4 * r, p->spatial_scale, p->half_pixel, p->out_h, p->out_w,
                          p->sampling_ratio, h, w);
        mmd__roi_align_f32((const float *)x->data + idx[r] * ch * h * w, ch, h, w, &g, p->out_h,
                           p->out_w, p->mode, y + r * per_roi);
    }
    return MMD_OK;
}

/* ==== >>ops non max suppression ==== */

/* The suppression test of the greedy loop: 1 when the kept box `kept` suppresses candidate
   `cand`, both indices into whatever box set ctx describes (ONNX boxes, mmcv boxes with an
   offset, rotated boxes). */
typedef int32_t (*mmd__nms_suppress_fn)(const void *ctx, int64_t kept, int64_t cand);

/* 1 when candidate a comes after b: lower score, or equal score and higher index. */
static int32_t mmd__nms_after(const float *score, int64_t stride, int64_t a, int64_t b) {
    float sa = score[a * stride], sb = score[b * stride];
    return sa < sb || (sa == sb && a > b);
}

static void mmd__nms_sift(const float *score, int64_t stride, int64_t *idx, int64_t root, int64_t n) {
    for (;;) {
        int64_t child = 2 * root + 1, t;
        if (child >= n) return;
        if (child + 1 < n && mmd__nms_after(score, stride, idx[child + 1], idx[child])) ++child;
        if (!mmd__nms_after(score, stride, idx[child], idx[root])) return;
        t = idx[root];
        idx[root] = idx[child];
        idx[child] = t;
        root = child;
    }
}

/* Writes the indices i in [0, n) whose score score[i * stride] is above the threshold (every
   non-NaN score when has_threshold is 0) to idx, best first: descending score, lower index
   first among equal scores. That is a total order once NaN is gone, so an in-place heap sort
   gives the stable order without extra memory. Returns the count. */
static int64_t mmd__nms_candidates(const float *score, int64_t stride, int64_t n, int32_t has_threshold,
                                   float threshold, int64_t *idx) {
    int64_t m = 0, i, t;
    for (i = 0; i < n; ++i) {
        float s = score[i * stride];
        if (has_threshold ? s > threshold : s == s) idx[m++] = i;
    }
    for (i = m / 2; i-- > 0;) mmd__nms_sift(score, stride, idx, i, m);
    for (i = m - 1; i > 0; --i) {
        t = idx[0];
        idx[0] = idx[i];
        idx[i] = t;
        mmd__nms_sift(score, stride, idx, 0, i);
    }
    return m;
}

/* Greedy suppression: walks the n candidates in order and keeps each one that no kept box
   suppresses, until max_keep are kept. Writes the kept indices to keep (room for
   min(n, max_keep)) in the order kept and returns their count. */
static int64_t mmd__nms_greedy(const int64_t *order, int64_t n, int64_t max_keep,
                               mmd__nms_suppress_fn suppress, const void *ctx, int64_t *keep) {
    int64_t kept = 0, i, j;
    for (i = 0; i < n && kept < max_keep; ++i) {
        for (j = 0; j < kept && !suppress(ctx, keep[j], order[i]); ++j) {}
        if (j == kept) keep[kept++] = order[i];
    }
    return kept;
}

/* ONNX boxes of one batch: (N, 4) as two diagonal corners (y1, x1, y2, x2) in any order, or
   as centre and size (xc, yc, w, h) when center_point_box is 1. */
typedef struct mmd__nms_onnx_ctx {
    const float *boxes;
    int32_t center;
    float iou_threshold;
} mmd__nms_onnx_ctx;

/* (ymin, xmin, ymax, xmax) of an ONNX box. */
static void mmd__nms_onnx_corners(const float *b, int32_t center, float *o) {
    if (center) {
        o[0] = b[1] - b[3] / 2.0f;
        o[1] = b[0] - b[2] / 2.0f;
        o[2] = b[1] + b[3] / 2.0f;
        o[3] = b[0] + b[2] / 2.0f;
    } else {
        o[0] = b[0] < b[2] ? b[0] : b[2];
        o[1] = b[1] < b[3] ? b[1] : b[3];
        o[2] = b[0] < b[2] ? b[2] : b[0];
        o[3] = b[1] < b[3] ? b[3] : b[1];
    }
}

/* Suppresses when IoU > iou_threshold; boxes that do not overlap, or have no area, never
   suppress, whatever the threshold (as in the ONNX reference). NaN coordinates never do. */
static int32_t mmd__nms_onnx_suppress(const void *ctx_, int64_t kept, int64_t cand) {
    const mmd__nms_onnx_ctx *ctx = (const mmd__nms_onnx_ctx *)ctx_;
    float a[4], b[4], ih, iw, inter, area_a, area_b, uni;
    mmd__nms_onnx_corners(ctx->boxes + 4 * kept, ctx->center, a);
    mmd__nms_onnx_corners(ctx->boxes + 4 * cand, ctx->center, b);
    ih = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
    iw = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]);
    if (!(ih > 0.0f && iw > 0.0f)) return 0;
    inter = ih * iw;
    area_a = (a[2] - a[0]) * (a[3] - a[1]);
    area_b = (b[2] - b[0]) * (b[3] - b[1]);
    uni = area_a + area_b - inter;
    if (!(inter > 0.0f && area_a > 0.0f && area_b > 0.0f && uni > 0.0f)) return 0;
    return inter / uni > ctx->iou_threshold;
}

typedef struct mmd__nms_data {
    int64_t batches, classes, boxes, max_per_class;  /* max_per_class: the bound prepare used */
    int32_t center;
} mmd__nms_data;

static mmd_status mmd__nms_prepare(mmd_kernel_ctx *c) {
    mmd__nms_data *p = (mmd__nms_data *)c->op_data;
    const mmd_tensor *boxes, *scores, *t;
    int64_t center = 0, dims[2];
    int32_t i;
    mmd_status st = mmd__check_io(c, 2, 5, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, 3);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 3, 3);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "center_point_box", 0, &center);
    if (st != MMD_OK) return st;
    boxes = c->inputs[0];
    scores = c->inputs[1];
    if (center != 0 && center != 1)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "center_point_box is %lld, expects 0 or 1",
                               (long long)center);
    if (boxes->dims[2] != 4 || scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1]) {
        char a[96], b[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "boxes %s and scores %s must be (B, N, 4) and (B, C, N)",
                               mmd__dims_text(a, sizeof a, boxes->rank, boxes->dims),
                               mmd__dims_text(b, sizeof b, scores->rank, scores->dims));
    }
    for (i = 2; i < c->input_count; ++i) {
        t = c->inputs[i];
        if (!t || mmd_tensor_numel(t) == 0) continue;
        if ((st = mmd__want_dtype(c, i, i == 2 ? MMD_DTYPE_INT64 : MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__want_rank(c, i, 0, 1)) != MMD_OK)
            return st;
    }
    p->batches = boxes->dims[0];
    p->classes = scores->dims[1];
    p->boxes = boxes->dims[1];
    p->center = (int32_t)center;
    /* The output bound: min(N, max_output_boxes_per_class) per batch and class when that is
       known now, N when it comes at run time, nothing when the input is absent. */
    p->max_per_class = 0;
    t = c->input_count > 2 ? c->inputs[2] : NULL;
    if (t && mmd_tensor_numel(t) > 0) {
        int64_t v = mmd_tensor_is_const(t) ? ((const int64_t *)t->data)[0] : p->boxes;
        p->max_per_class = v < 0 ? 0 : v < p->boxes ? v : p->boxes;
    }
    dims[0] = p->batches * p->classes * p->max_per_class;
    dims[1] = 3;
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_INT64, 2, dims)) != MMD_OK) return st;
    if ((uint64_t)p->boxes > SIZE_MAX / (2 * sizeof(int64_t)))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "%lld boxes need too much scratch", (long long)p->boxes);
    c->outputs[0]->dynamic = 1;
    c->scratch_size = 2 * (size_t)p->boxes * sizeof(int64_t);
    return MMD_OK;
}

static mmd_status mmd__nms_eval(mmd_kernel_ctx *c) {
    const mmd__nms_data *p = (const mmd__nms_data *)c->op_data;
    const float *scores = (const float *)c->inputs[1]->data;
    const mmd_tensor *t;
    int64_t *out = (int64_t *)c->outputs[0]->data, *order = (int64_t *)c->scratch;
    int64_t *keep, max_keep = p->max_per_class, rows = 0, b, k, i, m;
    int32_t has_threshold = 0;
    float score_threshold = 0.0f;
    mmd__nms_onnx_ctx ctx;
    ctx.center = p->center;
    ctx.iou_threshold = 0.0f;
    /* max_output_boxes_per_class may be a run-time value: it is clamped to the bound the
       output was planned for, so the rows always fit. */
    t = c->input_count > 2 ? c->inputs[2] : NULL;
    if (t && mmd_tensor_numel(t) > 0) {
        int64_t v = ((const int64_t *)t->data)[0];
        max_keep = v < 0 ? 0 : v < max_keep ? v : max_keep;
    }
    t = c->input_count > 3 ? c->inputs[3] : NULL;
    if (t && mmd_tensor_numel(t) > 0) ctx.iou_threshold = ((const float *)t->data)[0];
    t = c->input_count > 4 ? c->inputs[4] : NULL;
    if (t && mmd_tensor_numel(t) > 0) {
        has_threshold = 1;
        score_threshold = ((const float *)t->data)[0];
    }
    for (b = 0; b < p->batches && max_keep > 0 && p->boxes > 0; ++b) {
        ctx.boxes = (const float *)c->inputs[0]->data + b * p->boxes * 4;
        keep = order + p->boxes;
        for (k = 0; k < p->classes; ++k) {
            m = mmd__nms_candidates(scores + (b * p->classes + k) * p->boxes, 1, p->boxes,
                                    has_threshold, score_threshold, order);
            m = mmd__nms_greedy(order, m, max_keep, mmd__nms_onnx_suppress, &ctx, keep);
            for (i = 0; i < m; ++i, ++rows) {
                out[3 * rows + 0] = b;
                out[3 * rows + 1] = k;
                out[3 * rows + 2] = keep[i];
            }
        }
    }
    c->outputs[0]->dims[0] = rows;
    return MMD_OK;
}


/* ==== >>MMDeploy custom ops: sampling, deformable conv, attention ==== */
/* ==== >>mmdeploy kernels ==== */
/* MMDeploy's custom operators, the ones an end2end.onnx carries for ONNX Runtime with MMDeploy's
   plugin library or for TensorRT, float32:
     mmdeploy::grid_sampler (+ mmcv::)              torch.nn.functional.grid_sample
     mmdeploy::MMCVModulatedDeformConv2d (+ mmcv::) DCNv2, mask input
     mmdeploy::MMCVDeformConv2d (+ mmcv::)          DCNv1
     mmdeploy::MMCVMultiScaleDeformableAttention (+ mmcv::)
     mmdeploy::ScaledDotProductAttentionTRT, GatherTopk, TRTInstanceNormalization,
     TRTBicubicInterpolate, GridPriorsTRT
   The semantics are those of MMDeploy's kernels (csrc/mmdeploy/backend_ops) and of the mmcv and
   PyTorch functions they stand for; where the ONNX Runtime and TensorRT kernels disagree with
   each other the comment above the kernel says which one is followed and why. Both exporters
   write version 1 of their domain, the only version these kernels know. */

#define MMD__MMDEPLOY_OPSET 1

/* ---- sampling helpers ---------------------------------------------------------------------- */

/* Bilinear interpolation at pixel coordinates (x, y) of an h x w plane whose outside reads 0, as
   four taps (top-left, top-right, bottom-left, bottom-right): element offsets into the plane and
   weights. A tap outside the plane gets offset 0 and weight 0, so that all four can be read
   without a test; NaN coordinates and points farther than a pixel outside give four zero
   weights. This is the sampling of grid_sample's zeros padding, of mmcv's deformable
   convolutions (which return 0 for h <= -1 or h >= height) and of multi-scale deformable
   attention. The one difference from a reference that tests each corner: a non-finite input
   element at offset 0 turns a zero-weight tap into NaN. */
static void mmd__bilinear_taps(float x, float y, int64_t h, int64_t w, int64_t *off, float *wt) {
    float x0, y0, fx, fy;
    int64_t ix, iy;
    off[0] = off[1] = off[2] = off[3] = 0;
    wt[0] = wt[1] = wt[2] = wt[3] = 0.0f;
    if (!((double)x > -1.0 && (double)x < (double)w && (double)y > -1.0 && (double)y < (double)h)) return;
    x0 = floorf(x);
    y0 = floorf(y);
    fx = x - x0;
    fy = y - y0;
    ix = (int64_t)x0;
    iy = (int64_t)y0;
    if (iy >= 0 && ix >= 0) {
        off[0] = iy * w + ix;
        wt[0] = (1.0f - fy) * (1.0f - fx);
    }
    if (iy >= 0 && ix + 1 < w) {
        off[1] = iy * w + ix + 1;
        wt[1] = (1.0f - fy) * fx;
    }
    if (iy + 1 < h && ix >= 0) {
        off[2] = (iy + 1) * w + ix;
        wt[2] = fy * (1.0f - fx);
    }
    if (iy + 1 < h && ix + 1 < w) {
        off[3] = (iy + 1) * w + ix + 1;
        wt[3] = fy * fx;
    }
}

/* One tap at whole-number pixel coordinates (x, y) with weight v, or weight 0 outside the plane;
   the test is made in double before any conversion, as mmd__grid_at makes it. */
static void mmd__grid_tap(int64_t h, int64_t w, float x, float y, float v, int64_t *off, float *wt) {
    int32_t inside = (double)x >= 0.0 && (double)x < (double)w && (double)y >= 0.0 && (double)y < (double)h;
    *off = inside ? (int64_t)y * w + (int64_t)x : 0;
    *wt = inside ? v : 0.0f;
}

/* Taps per grid point: nearest reads one element, bilinear four, bicubic sixteen. */
static int32_t mmd__grid_tap_count(int32_t mode) {
    return mode == MMD__GRID_NEAREST ? 1 : mode == MMD__GRID_BILINEAR ? 4 : 16;
}

/* The taps of one grid point (gx, gy) with mmd__grid_sample_f32's semantics: the sample is
   sum(wt[i] * plane[off[i]]) over mmd__grid_tap_count(s->mode) taps. Computing them once per
   point serves every channel, where mmd__grid_sample_f32 recomputes the coordinates for each. */
static void mmd__grid_point_taps(const mmd__grid_sampler *s, int64_t h, int64_t w, float gx, float gy,
                                 int64_t *off, float *wt) {
    float x = mmd__grid_unnormalize(gx, w, s->align_corners);
    float y = mmd__grid_unnormalize(gy, h, s->align_corners);
    int32_t i, j, n = mmd__grid_tap_count(s->mode);
    for (i = 0; i < n; ++i) {
        off[i] = 0;
        wt[i] = 0.0f;
    }
    if (h <= 0 || w <= 0 || !(fabsf(x) <= FLT_MAX && fabsf(y) <= FLT_MAX)) return;
    if (s->mode == MMD__GRID_BICUBIC) {
        float wx[4], wy[4], x0 = floorf(x), y0 = floorf(y);
        mmd__cubic_weights(x - x0, wx);
        mmd__cubic_weights(y - y0, wy);
        for (i = 0; i < 4; ++i) {
            float ty = mmd__grid_pad(y0 - 1.0f + (float)i, h, s);
            for (j = 0; j < 4; ++j)
                mmd__grid_tap(h, w, mmd__grid_pad(x0 - 1.0f + (float)j, w, s), ty, wy[i] * wx[j],
                              &off[4 * i + j], &wt[4 * i + j]);
        }
        return;
    }
    x = mmd__grid_pad(x, w, s);
    y = mmd__grid_pad(y, h, s);
    if (s->mode == MMD__GRID_NEAREST)
        mmd__grid_tap(h, w, nearbyintf(x), nearbyintf(y), 1.0f, off, wt);
    else
        mmd__bilinear_taps(x, y, h, w, off, wt);
}

/* y[q * ys + k] = sum over the n taps of point k of wt * x[q * xs + off], for nq (1 to 4) planes
   xs apart and np points. A tap of a large plane usually misses the first-level cache; taking
   each point's taps once for up to four planes keeps four times the independent loads in flight
   and reads the tap table a quarter as often, which halves the time of a bilinear sample. Four
   taps on four planes (bilinear, the common case) get a loop of their own. */
static void mmd__gather_taps_f32(const float *x, int64_t xs, int32_t nq, const int64_t *off, const float *wt,
                                 int32_t n, int64_t np, float *y, int64_t ys) {
    int64_t k;
    int32_t i, q;
    if (n == 4 && nq == 4) {
        for (k = 0; k < np; ++k, off += 4, wt += 4)
            for (q = 0; q < 4; ++q) {
                const float *xq = x + q * xs;
                y[q * ys + k] = wt[0] * xq[off[0]] + wt[1] * xq[off[1]] + wt[2] * xq[off[2]] + wt[3] * xq[off[3]];
            }
        return;
    }
    for (k = 0; k < np; ++k, off += n, wt += n)
        for (q = 0; q < nq; ++q) {
            const float *xq = x + q * xs;
            float acc = 0.0f;
            for (i = 0; i < n; ++i) acc += wt[i] * xq[off[i]];
            y[q * ys + k] = acc;
        }
}

/* ---- grid_sampler --------------------------------------------------------------------------- */

/* Grid points whose taps are computed at once. Each chunk reads every channel's plane, all of
   it when the grid is scattered, so fewer chunks read less: a grid of up to 16384 points (a
   128x128 output) is one chunk, whose tap table (12 bytes a tap) is 768 KiB for bilinear. On a
   random 100x152 grid over 256 channels one chunk runs four times as fast as chunks of 1024. */
#define MMD__GRID_CHUNK 16384

/* Points per chunk for a grid of this many points. */
static int64_t mmd__grid_chunk(int64_t points) { return points < MMD__GRID_CHUNK ? points : MMD__GRID_CHUNK; }

/* mmdeploy::grid_sampler: input [N, C, H, W], grid [N, H_out, W_out, 2] holding (x, y) ->
   [N, C, H_out, W_out], torch.nn.functional.grid_sample; mmcv's exporter, and MMDeploy's for
   PPLNN, write it as mmcv::grid_sampler. interpolation_mode 0 bilinear,
   1 nearest, 2 bicubic (ONNX Runtime's kernel has all three, TensorRT's the first two);
   padding_mode 0 zeros, 1 border, 2 reflection; align_corners 0 or 1. All three default to 0. */
static mmd_status mmd__grid_sampler_f32_prepare(mmd_kernel_ctx *c) {
    mmd__grid_sample_data *p = (mmd__grid_sample_data *)c->op_data;
    const mmd_tensor *x, *g;
    int64_t mode, padding, align, dims[4];
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 4, 4);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 4, 4);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "interpolation_mode", 0, &mode);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "padding_mode", 0, &padding);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "align_corners", 0, &align);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    g = c->inputs[1];
    if (mode < 0 || mode > 2 || padding < 0 || padding > 2)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL,
                               "interpolation_mode %lld or padding_mode %lld is not 0, 1 or 2",
                               (long long)mode, (long long)padding);
    if (g->dims[0] != x->dims[0] || g->dims[3] != 2) {
        char tx[96], tg[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "grid %s does not fit input %s (expects [%lld, H_out, W_out, 2])",
                               mmd__dims_text(tg, sizeof tg, g->rank, g->dims),
                               mmd__dims_text(tx, sizeof tx, x->rank, x->dims), (long long)x->dims[0]);
    }
    p->s.mode = (int32_t)mode;
    p->s.padding = (int32_t)padding;
    p->s.align_corners = align != 0;
    p->batch = x->dims[0];
    p->channels = x->dims[1];
    p->h = x->dims[2];
    p->w = x->dims[3];
    p->points = g->dims[1] * g->dims[2];
    /* The tap table of one chunk of points: offsets, then weights. */
    c->scratch_size = (size_t)(mmd__grid_chunk(p->points) * mmd__grid_tap_count(p->s.mode)) *
                      (sizeof(int64_t) + sizeof(float));
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    dims[2] = g->dims[1];
    dims[3] = g->dims[2];
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims);
}

static mmd_status mmd__grid_sampler_f32_eval(mmd_kernel_ctx *c) {
    const mmd__grid_sample_data *p = (const mmd__grid_sample_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data, *grid = (const float *)c->inputs[1]->data;
    float *y = (float *)c->outputs[0]->data;
    int32_t n = mmd__grid_tap_count(p->s.mode);
    int64_t b, ch, k, k0, plane = p->h * p->w, chunk = mmd__grid_chunk(p->points);
    int64_t *off = (int64_t *)c->scratch;
    float *wt = (float *)(off + chunk * n);
    /* An empty input samples zeros everywhere, and has no element even a zero-weight tap may
       read. */
    if (plane == 0) {
        memset(y, 0, (size_t)(p->batch * p->channels * p->points) * sizeof(float));
        return MMD_OK;
    }
    for (b = 0; b < p->batch; ++b)
        for (k0 = 0; k0 < p->points; k0 += chunk) {
            int64_t np = p->points - k0 < chunk ? p->points - k0 : chunk;
            const float *gp = grid + (b * p->points + k0) * 2;
            for (k = 0; k < np; ++k)
                mmd__grid_point_taps(&p->s, p->h, p->w, gp[2 * k], gp[2 * k + 1], off + k * n, wt + k * n);
            for (ch = 0; ch < p->channels; ch += 4)
                mmd__gather_taps_f32(x + (b * p->channels + ch) * plane, plane,
                                     (int32_t)(p->channels - ch < 4 ? p->channels - ch : 4), off, wt, n, np,
                                     y + (b * p->channels + ch) * p->points + k0, p->points);
        }
    return MMD_OK;
}

/* ---- deformable convolution ------------------------------------------------------------------ */

typedef struct mmd__deform_conv_data {
    int64_t batch, in_ch, in_h, in_w, out_ch, out_h, out_w, kh, kw;
    int64_t stride[2], pad[2], dilation[2], group, dgroup;
    int64_t tile;                       /* output pixels per column tile */
    int32_t mask, weight, bias;         /* input index of each; -1 when absent */
    int32_t isa;                        /* of the product */
    size_t gemm_bytes;                  /* scratch of the product; the rest follows */
} mmd__deform_conv_data;

/* A pair of ints (height, width) from an INTS attribute, def for both when absent; each must
   lie in [lo, MMD__ATTR_MAX]. MMDeploy's exporter writes MMCVDeformConv2d's padding as four
   values, each repeated ([ph, ph, pw, pw]); repeats says that form is accepted too. Both of
   MMDeploy's kernels read the first two of them, (ph, ph), which is the same whenever ph == pw
   (every released model); for ph != pw their output no longer fits the offsets the graph
   computed, so the exporter's meaning is taken instead. */
static mmd_status mmd__attr_hw(mmd_kernel_ctx *c, const char *name, int64_t def, int64_t lo,
                               int32_t repeats, int64_t *out) {
    const int64_t *v;
    int64_t n;
    mmd_status st = mmd_attr_get_ints(c, name, &v, &n);
    if (st != MMD_OK) return st;
    if (n == 0) {
        out[0] = out[1] = def;
        return MMD_OK;
    }
    if (n == 2) {
        out[0] = v[0];
        out[1] = v[1];
    } else if (n == 4 && repeats && v[0] == v[1] && v[2] == v[3]) {
        out[0] = v[0];
        out[1] = v[2];
    } else {
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute %s has %lld values, expects 2%s", name,
                               (long long)n, repeats ? " or 4 as [h, h, w, w]" : "");
    }
    if (out[0] < lo || out[0] > MMD__ATTR_MAX || out[1] < lo || out[1] > MMD__ATTR_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute %s = [%lld, %lld] is out of range",
                               name, (long long)out[0], (long long)out[1]);
    return MMD_OK;
}

/* Fails with MMD_ERR_SHAPE unless input i has exactly the 4-D shape want. */
static mmd_status mmd__want_shape4(mmd_kernel_ctx *c, int32_t i, const char *what, const int64_t *want) {
    const mmd_tensor *t = c->inputs[i];
    char tt[96], tw[96];
    if (t->rank == 4 && t->dims[0] == want[0] && t->dims[1] == want[1] && t->dims[2] == want[2] &&
        t->dims[3] == want[3])
        return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s '%s' has shape %s, expects %s", what, t->name ? t->name : "",
                           mmd__dims_text(tt, sizeof tt, t->rank, t->dims), mmd__dims_text(tw, sizeof tw, 4, want));
}

/* Column tiles hold at most this many floats (16 MiB) however many channels a group has. */
#define MMD__DEFORM_COLUMNS_MAX ((int64_t)1 << 22)
/* Output pixels per tile: enough for long rows in the product, few enough for its operands to
   stay in the caches. */
#define MMD__DEFORM_TILE 128

/* MMCVModulatedDeformConv2d (modulated: x, offset, mask, weight, optional bias) and
   MMCVDeformConv2d (x, offset, weight): attributes stride, padding, dilation (pairs, height
   first), groups, deform_groups. Offsets hold (dy, dx) per deform group and kernel tap,
   [N, deform_groups * 2 * kh * kw, H_out, W_out]; the mask [N, deform_groups * kh * kw, H_out,
   W_out] scales each sample. Input channel c belongs to deform group c / (C / deform_groups),
   as in mmcv, torchvision and MMDeploy's TensorRT kernel; MMDeploy's ONNX Runtime CPU kernel
   counts channels within each conv group instead, which differs only when groups and
   deform_groups are both above 1. ONNX Runtime reads stride, padding and dilation as (height,
   width) as mmcv writes them, TensorRT as (width, height); the two agree on every square
   kernel, and the height-first order is followed here. */
static mmd_status mmd__deform_conv_prepare(mmd_kernel_ctx *c, int32_t modulated) {
    mmd__deform_conv_data *p = (mmd__deform_conv_data *)c->op_data;
    const mmd_tensor *x, *wt, *bias = NULL;
    int64_t want[4], kk, span, cg, dims[4];
    int32_t i, n_in = modulated ? 5 : 3;
    mmd_status st = mmd__check_io(c, modulated ? 4 : 3, n_in, 1);
    for (i = 0; st == MMD_OK && i < c->input_count; ++i)
        if (c->inputs[i]) st = mmd__want_dtype(c, i, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 4, 4);
    if (st == MMD_OK) st = mmd__attr_hw(c, "stride", 1, 1, 0, p->stride);
    if (st == MMD_OK) st = mmd__attr_hw(c, "padding", 0, 0, !modulated, p->pad);
    if (st == MMD_OK) st = mmd__attr_hw(c, "dilation", 1, 1, 0, p->dilation);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "groups", 1, &p->group);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "deform_groups", 1, &p->dgroup);
    if (st != MMD_OK) return st;
    p->mask = modulated ? 2 : -1;
    p->weight = modulated ? 3 : 2;
    p->bias = modulated && c->input_count > 4 && c->inputs[4] ? 4 : -1;
    if ((st = mmd__want_rank(c, p->weight, 4, 4)) != MMD_OK) return st;
    x = c->inputs[0];
    wt = c->inputs[p->weight];
    if (p->bias >= 0) bias = c->inputs[p->bias];
    p->batch = x->dims[0];
    p->in_ch = x->dims[1];
    p->in_h = x->dims[2];
    p->in_w = x->dims[3];
    p->out_ch = wt->dims[0];
    p->kh = wt->dims[2];
    p->kw = wt->dims[3];
    if (p->group < 1 || p->group > MMD__ATTR_MAX || p->in_ch % p->group || p->out_ch % p->group)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "groups %lld does not divide the %lld input and %lld output channels",
                               (long long)p->group, (long long)p->in_ch, (long long)p->out_ch);
    if (p->dgroup < 1 || p->dgroup > MMD__ATTR_MAX || p->in_ch % p->dgroup)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "deform_groups %lld does not divide the %lld input channels",
                               (long long)p->dgroup, (long long)p->in_ch);
    cg = p->in_ch / p->group;
    if (wt->dims[1] != cg)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                               "weight '%s' takes %lld input channels per group but input '%s' has %lld channels in %lld groups",
                               wt->name ? wt->name : "", (long long)wt->dims[1], x->name ? x->name : "",
                               (long long)p->in_ch, (long long)p->group);
    if (p->kh < 1 || p->kw < 1)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "weight '%s' has an empty %lldx%lld kernel",
                               wt->name ? wt->name : "", (long long)p->kh, (long long)p->kw);
    if (bias && (bias->rank != 1 || bias->dims[0] != p->out_ch))
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "bias '%s' must have shape [%lld]", bias->name ? bias->name : "",
                               (long long)p->out_ch);
    /* Kernel sizes come from a bounded tensor and the attributes are at most MMD__ATTR_MAX, so
       the spans below stay far inside int64_t. */
    for (i = 0; i < 2; ++i) {
        int64_t in = x->dims[2 + i], k = wt->dims[2 + i];
        span = in + 2 * p->pad[i] - (p->dilation[i] * (k - 1) + 1);
        if (span < 0)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                                   "a %lld-tap kernel with dilation %lld does not fit input %s %lld padded by %lld",
                                   (long long)k, (long long)p->dilation[i], i ? "width" : "height",
                                   (long long)in, (long long)p->pad[i]);
        if (i) p->out_w = span / p->stride[i] + 1;
        else p->out_h = span / p->stride[i] + 1;
    }
    kk = p->kh * p->kw;
    if (p->dgroup > MMD__ELEMS_MAX / (2 * kk))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "deform_groups %lld times a %lld-tap kernel",
                               (long long)p->dgroup, (long long)kk);
    want[0] = p->batch;
    want[1] = p->dgroup * 2 * kk;
    want[2] = p->out_h;
    want[3] = p->out_w;
    if ((st = mmd__want_shape4(c, 1, "offset", want)) != MMD_OK) return st;
    want[1] = p->dgroup * kk;
    if (modulated && (st = mmd__want_shape4(c, 2, "mask", want)) != MMD_OK) return st;
    /* Scratch: the taps of one tile for every deform group and kernel tap (4 offsets and 4
       weights each), the tile's columns (cg * kk rows) and its product (out_ch / group rows). */
    p->tile = cg * kk > MMD__DEFORM_COLUMNS_MAX / MMD__DEFORM_TILE ? MMD__DEFORM_COLUMNS_MAX / (cg * kk) : MMD__DEFORM_TILE;
    if (p->tile > p->out_h * p->out_w) p->tile = p->out_h * p->out_w;
    if (p->tile < 1) p->tile = 1;
    if (cg * kk > MMD__DEFORM_COLUMNS_MAX || p->out_ch / p->group > MMD__DEFORM_COLUMNS_MAX)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "%lld input or %lld output channels per group times a %lld-tap kernel",
                               (long long)cg, (long long)(p->out_ch / p->group), (long long)kk);
    p->isa = mmd__isa();
    p->gemm_bytes = (size_t)mmd__round_up((int64_t)mmd__gemm_scratch(p->out_ch / p->group, p->tile, cg * kk, p->isa, 1), 64);
    st = mmd__scratch_request(c, (uint64_t)p->gemm_bytes + (uint64_t)(cg * kk) * sizeof(int64_t) +
                                     (uint64_t)(p->dgroup * kk * p->tile * 4) * (sizeof(int64_t) + sizeof(float)) +
                                     (uint64_t)(cg * kk * p->tile) * sizeof(float));
    if (st != MMD_OK) return st;
    dims[0] = p->batch;
    dims[1] = p->out_ch;
    dims[2] = p->out_h;
    dims[3] = p->out_w;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims);
}

static mmd_status mmd__modulated_deform_conv_f32_prepare(mmd_kernel_ctx *c) {
    return mmd__deform_conv_prepare(c, 1);
}
static mmd_status mmd__deform_conv_f32_prepare(mmd_kernel_ctx *c) { return mmd__deform_conv_prepare(c, 0); }

/* Per image and tile of output pixels: the bilinear taps of every deform group and kernel tap
   (mask folded into the weights), shared by the channels of the group; then per conv group a
   "deformable im2col" into columns [cg * kk, tile] in the weight's (channel, tap) order, and
   the product weight [out_ch / group, cg * kk] x columns. */
static mmd_status mmd__deform_conv_f32_eval(mmd_kernel_ctx *c) {
    const mmd__deform_conv_data *p = (const mmd__deform_conv_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data, *offset = (const float *)c->inputs[1]->data;
    const float *mask = p->mask >= 0 ? (const float *)c->inputs[p->mask]->data : NULL;
    const float *weight = (const float *)c->inputs[p->weight]->data;
    const float *bias = p->bias >= 0 ? (const float *)c->inputs[p->bias]->data : NULL;
    float *y = (float *)c->outputs[0]->data;
    int64_t kk = p->kh * p->kw, pixels = p->out_h * p->out_w, plane = p->in_h * p->in_w;
    int64_t cg = p->in_ch / p->group, mg = p->out_ch / p->group, kcols = cg * kk;
    int64_t per_dgroup = p->in_ch / p->dgroup, taps = p->dgroup * kk * p->tile * 4;
    int64_t *rows = (int64_t *)((char *)c->scratch + p->gemm_bytes), *toff = rows + kcols;
    float *twt = (float *)(toff + taps), *cols = twt + taps;
    mmd__gemm gm;
    int64_t n, p0, d, t, j, g, ci, m;
    int32_t nq;
    /* An empty input samples only zeros, leaving the bias; it also has no element that even a
       zero-weight tap could read. */
    if (plane == 0) {
        for (n = 0; n < p->batch * p->out_ch; ++n)
            for (j = 0; j < pixels; ++j) y[n * pixels + j] = bias ? bias[n % p->out_ch] : 0.0f;
        return MMD_OK;
    }
    for (n = 0; n < p->batch; ++n)
        for (p0 = 0; p0 < pixels; p0 += p->tile) {
            int64_t nt = pixels - p0 < p->tile ? pixels - p0 : p->tile;
            for (d = 0; d < p->dgroup; ++d)
                for (t = 0; t < kk; ++t) {
                    const float *dy = offset + ((n * p->dgroup + d) * 2 * kk + 2 * t) * pixels + p0;
                    const float *dx = dy + pixels;
                    const float *mk = mask ? mask + ((n * p->dgroup + d) * kk + t) * pixels + p0 : NULL;
                    int64_t *o = toff + (d * kk + t) * p->tile * 4;
                    float *w = twt + (d * kk + t) * p->tile * 4;
                    int64_t ky = t / p->kw, kx = t % p->kw;
                    for (j = 0; j < nt; ++j, o += 4, w += 4) {
                        int64_t oy = (p0 + j) / p->out_w, ox = (p0 + j) % p->out_w;
                        float sy = (float)(oy * p->stride[0] - p->pad[0] + ky * p->dilation[0]) + dy[j];
                        float sx = (float)(ox * p->stride[1] - p->pad[1] + kx * p->dilation[1]) + dx[j];
                        mmd__bilinear_taps(sx, sy, p->in_h, p->in_w, o, w);
                        if (mk) {
                            w[0] *= mk[j];
                            w[1] *= mk[j];
                            w[2] *= mk[j];
                            w[3] *= mk[j];
                        }
                    }
                }
            for (g = 0; g < p->group; ++g) {
                for (ci = 0; ci < cg; ci += nq) {
                    /* Up to four channels at once, all of one deform group. */
                    int64_t ch = g * cg + ci, dg = ch / per_dgroup, left = (dg + 1) * per_dgroup - ch;
                    const float *xp = x + (n * p->in_ch + ch) * plane;
                    if (left > cg - ci) left = cg - ci;
                    nq = (int32_t)(left < 4 ? left : 4);
                    for (t = 0; t < kk; ++t)
                        mmd__gather_taps_f32(xp, plane, nq, toff + (dg * kk + t) * p->tile * 4,
                                             twt + (dg * kk + t) * p->tile * 4, 4, nt,
                                             cols + (ci * kk + t) * nt, kk * nt);
                }
                for (m = 0; m < kcols; ++m) rows[m] = m * nt;
                memset(&gm, 0, sizeof gm);
                gm.m = mg;
                gm.n = nt;
                gm.k = kcols;
                gm.a = weight + g * mg * kcols;
                gm.a_rs = kcols;
                gm.a_cs = 1;
                gm.b = cols;
                gm.b_rows = rows;
                gm.c = y + (n * p->out_ch + g * mg) * pixels + p0;
                gm.ldc = pixels;
                gm.bias = bias ? bias + g * mg : NULL;
                gm.isa = p->isa;
                mmd__gemm_run(c, &gm, c->scratch, 1);
            }
        }
    return MMD_OK;
}

/* ---- multi-scale deformable attention -------------------------------------------------------- */

typedef struct mmd__msda_data {
    int64_t batch, keys, heads, dim, queries, levels, points;
} mmd__msda_data;

/* MMCVMultiScaleDeformableAttention: value [bs, keys, heads, dim], spatial_shapes [levels, 2]
   (H, W) and level_start_index [levels] (int32 or int64), sampling_locations [bs, queries,
   heads, levels, points, 2] as (x, y) in [0, 1], attention_weights [bs, queries, heads, levels,
   points] -> [bs, queries, heads * dim]. Each point samples its level bilinearly with zeros
   outside at pixel (x * W - 0.5, y * H - 0.5), which is mmcv's grid_sample with
   align_corners=False; level l starts at key level_start_index[l] as in MMDeploy's kernels.
   im2col_step only batches the CUDA kernel and is ignored. */
static mmd_status mmd__msda_f32_prepare(mmd_kernel_ctx *c) {
    mmd__msda_data *p = (mmd__msda_data *)c->op_data;
    const mmd_tensor *v, *shapes, *start, *loc, *attn;
    int64_t dims[3];
    int32_t i;
    mmd_status st = mmd__check_io(c, 5, 5, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 3, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 4, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 4, 4);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 2, 2);
    if (st == MMD_OK) st = mmd__want_rank(c, 2, 1, 1);
    if (st == MMD_OK) st = mmd__want_rank(c, 3, 6, 6);
    if (st == MMD_OK) st = mmd__want_rank(c, 4, 5, 5);
    for (i = 1; st == MMD_OK && i < 3; ++i)
        if (c->inputs[i]->dtype != MMD_DTYPE_INT32 && c->inputs[i]->dtype != MMD_DTYPE_INT64)
            st = mmd_kernel_fail(c, MMD_ERR_DTYPE, "input %d '%s' is %s, expects int32 or int64", (int)i,
                                 c->inputs[i]->name ? c->inputs[i]->name : "", mmd_dtype_name(c->inputs[i]->dtype));
    if (st != MMD_OK) return st;
    v = c->inputs[0];
    shapes = c->inputs[1];
    start = c->inputs[2];
    loc = c->inputs[3];
    attn = c->inputs[4];
    p->batch = v->dims[0];
    p->keys = v->dims[1];
    p->heads = v->dims[2];
    p->dim = v->dims[3];
    p->queries = loc->dims[1];
    p->levels = loc->dims[3];
    p->points = loc->dims[4];
    if (loc->dims[0] != p->batch || loc->dims[2] != p->heads || loc->dims[5] != 2 || shapes->dims[0] != p->levels ||
        shapes->dims[1] != 2 || start->dims[0] != p->levels) {
        char tv[96], tl[96], ts[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE,
                               "sampling_locations %s and spatial_shapes %s do not fit value %s (expects [%lld, queries, %lld, levels, points, 2] and [levels, 2])",
                               mmd__dims_text(tl, sizeof tl, loc->rank, loc->dims),
                               mmd__dims_text(ts, sizeof ts, shapes->rank, shapes->dims),
                               mmd__dims_text(tv, sizeof tv, v->rank, v->dims), (long long)p->batch, (long long)p->heads);
    }
    for (i = 0; i < 5 && attn->dims[i] == loc->dims[i]; ++i) {}
    if (i < 5) {
        char ta[96], tl[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "attention_weights %s does not match sampling_locations %s",
                               mmd__dims_text(ta, sizeof ta, attn->rank, attn->dims),
                               mmd__dims_text(tl, sizeof tl, loc->rank, loc->dims));
    }
    if (p->heads > 0 && p->dim > MMD__ELEMS_MAX / p->heads)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "%lld heads of %lld values", (long long)p->heads, (long long)p->dim);
    dims[0] = p->batch;
    dims[1] = p->queries;
    dims[2] = p->heads * p->dim;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 3, dims);
}

/* Each point's four taps are four rows of dim values, added into the output row scaled by the
   tap weight times the attention weight; taps of weight 0 (outside the level) are skipped. */
static mmd_status mmd__msda_f32_eval(mmd_kernel_ctx *c) {
    const mmd__msda_data *p = (const mmd__msda_data *)c->op_data;
    const mmd_tensor *shapes = c->inputs[1], *start = c->inputs[2];
    const float *value = (const float *)c->inputs[0]->data, *loc = (const float *)c->inputs[3]->data;
    const float *attn = (const float *)c->inputs[4]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t b, q, h, l, pt, i, row = p->heads * p->dim;
    for (l = 0; l < p->levels; ++l) {
        int64_t lh = mmd__load_int(shapes->dtype, shapes->data, 2 * l);
        int64_t lw = mmd__load_int(shapes->dtype, shapes->data, 2 * l + 1);
        int64_t s0 = mmd__load_int(start->dtype, start->data, l);
        if (lh < 0 || lw < 0 || s0 < 0 || s0 > p->keys || (lw > 0 && lh > (p->keys - s0) / lw))
            return mmd_kernel_fail(c, MMD_ERR_INDEX,
                                   "level %lld: %lldx%lld keys from key %lld do not fit the %lld keys of value",
                                   (long long)l, (long long)lh, (long long)lw, (long long)s0, (long long)p->keys);
    }
    memset(y, 0, (size_t)(p->batch * p->queries * row) * sizeof(float));
    /* Head and level outermost: all queries then sample one head's slice of one level, which
       stays in cache where the whole value tensor (20 MiB at Deformable DETR's encoder size)
       would not. */
    for (b = 0; b < p->batch; ++b)
        for (h = 0; h < p->heads; ++h)
            for (l = 0; l < p->levels; ++l) {
                int64_t lh = mmd__load_int(shapes->dtype, shapes->data, 2 * l);
                int64_t lw = mmd__load_int(shapes->dtype, shapes->data, 2 * l + 1);
                const float *vl = value + ((b * p->keys + mmd__load_int(start->dtype, start->data, l)) * p->heads + h) * p->dim;
                for (q = 0; q < p->queries; ++q) {
                    int64_t at = ((b * p->queries + q) * p->heads + h) * p->levels * p->points + l * p->points;
                    const float *lp = loc + 2 * at, *ap = attn + at;
                    float *yp = y + (b * p->queries + q) * row + h * p->dim;
                    for (pt = 0; pt < p->points; ++pt) {
                        int64_t off[4];
                        float wt[4];
                        mmd__bilinear_taps(lp[2 * pt] * (float)lw - 0.5f, lp[2 * pt + 1] * (float)lh - 0.5f, lh, lw, off, wt);
                        for (i = 0; i < 4; ++i)
                            if (wt[i] != 0.0f) mmd__axpy_f32(p->dim, wt[i] * ap[pt], vl + off[i] * row, yp);
                    }
                }
            }
    return MMD_OK;
}

/* ---- attention --------------------------------------------------------------------------- */

typedef struct mmd__sdpa_data {
    int64_t batch, lq, ls, e;
    int64_t mask_stride[3];             /* element strides of the mask over [batch, lq, ls] */
    int32_t has_mask;
} mmd__sdpa_data;

/* ScaledDotProductAttentionTRT: q [B, L, E], k and v [B, S, E], optional additive mask
   broadcast onto [B, L, S] (TensorRT's kernel takes [L, S] or [1 or B, L, S]) -> output
   [B, L, E] = attn v and, when the node has the second output, attn [B, L, S] =
   softmax(q k^T / sqrt(E) + mask) over S. */
static mmd_status mmd__sdpa_f32_prepare(mmd_kernel_ctx *c) {
    mmd__sdpa_data *p = (mmd__sdpa_data *)c->op_data;
    const mmd_tensor *q, *k, *v, *mask;
    int64_t dims[3];
    int32_t i;
    mmd_status st = mmd__check_io(c, 3, 4, 2);
    for (i = 0; st == MMD_OK && i < c->input_count; ++i)
        if (c->inputs[i]) st = mmd__want_dtype(c, i, MMD_DTYPE_FLOAT32);
    for (i = 0; st == MMD_OK && i < 3; ++i) st = mmd__want_rank(c, i, 3, 3);
    if (st != MMD_OK) return st;
    q = c->inputs[0];
    k = c->inputs[1];
    v = c->inputs[2];
    mask = c->input_count > 3 ? c->inputs[3] : NULL;
    p->batch = q->dims[0];
    p->lq = q->dims[1];
    p->e = q->dims[2];
    p->ls = k->dims[1];
    if (k->dims[0] != p->batch || k->dims[2] != p->e || v->dims[0] != p->batch || v->dims[1] != p->ls ||
        v->dims[2] != p->e) {
        char tq[96], tk[96], tv[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "query %s, key %s and value %s do not fit [B, L, E], [B, S, E], [B, S, E]",
                               mmd__dims_text(tq, sizeof tq, q->rank, q->dims),
                               mmd__dims_text(tk, sizeof tk, k->rank, k->dims),
                               mmd__dims_text(tv, sizeof tv, v->rank, v->dims));
    }
    p->has_mask = mask != NULL;
    if (mask) {
        int64_t full[3];
        full[0] = p->batch;
        full[1] = p->lq;
        full[2] = p->ls;
        if ((st = mmd__want_rank(c, 3, 0, 3)) != MMD_OK) return st;
        for (i = 0; i < mask->rank; ++i) {
            int64_t d = mask->dims[i], want = full[3 - mask->rank + i];
            if (d != 1 && d != want) {
                char tm[96], tf[96];
                return mmd_kernel_fail(c, MMD_ERR_SHAPE, "mask %s does not broadcast to the attention's %s",
                                       mmd__dims_text(tm, sizeof tm, mask->rank, mask->dims),
                                       mmd__dims_text(tf, sizeof tf, 3, full));
            }
        }
        mmd__broadcast_strides(mask->rank, mask->dims, 3, p->mask_stride);
    }
    /* Without the attn output one row of scores lives in scratch. */
    if ((c->output_count < 2 || !c->outputs[1]) &&
        (st = mmd__scratch_request(c, (uint64_t)p->ls * sizeof(float))) != MMD_OK)
        return st;
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 3, q->dims)) != MMD_OK) return st;
    if (c->output_count < 2 || !c->outputs[1]) return MMD_OK;
    dims[0] = p->batch;
    dims[1] = p->lq;
    dims[2] = p->ls;
    return mmd__set_output(c, 1, MMD_DTYPE_FLOAT32, 3, dims);
}

static mmd_status mmd__sdpa_f32_eval(mmd_kernel_ctx *c) {
    const mmd__sdpa_data *p = (const mmd__sdpa_data *)c->op_data;
    const float *q = (const float *)c->inputs[0]->data, *k = (const float *)c->inputs[1]->data;
    const float *v = (const float *)c->inputs[2]->data;
    const float *mask = p->has_mask ? (const float *)c->inputs[3]->data : NULL;
    float *out = (float *)c->outputs[0]->data;
    float *attn = c->output_count > 1 && c->outputs[1] ? (float *)c->outputs[1]->data : NULL;
    /* An empty E leaves q k^T zero, as an empty product is; the scale is then irrelevant. */
    float scale = p->e > 0 ? 1.0f / sqrtf((float)p->e) : 1.0f;
    int64_t b, i, s;
    for (b = 0; b < p->batch; ++b)
        for (i = 0; i < p->lq; ++i) {
            float *row = attn ? attn + (b * p->lq + i) * p->ls : (float *)c->scratch;
            const float *qi = q + (b * p->lq + i) * p->e;
            float *oi = out + (b * p->lq + i) * p->e, mx = -INFINITY, sum = 0.0f;
            for (s = 0; s < p->ls; ++s) {
                row[s] = mmd__dot_f32(p->e, qi, k + (b * p->ls + s) * p->e) * scale;
                if (mask) row[s] += mask[b * p->mask_stride[0] + i * p->mask_stride[1] + s * p->mask_stride[2]];
                if (row[s] > mx) mx = row[s];
            }
            for (s = 0; s < p->ls; ++s) {
                row[s] = expf(row[s] - mx);
                sum += row[s];
            }
            for (s = 0; s < p->e; ++s) oi[s] = 0.0f;
            for (s = 0; s < p->ls; ++s) {
                row[s] /= sum;
                mmd__axpy_f32(p->e, row[s], v + (b * p->ls + s) * p->e, oi);
            }
        }
    return MMD_OK;
}

/* ---- GatherTopk ------------------------------------------------------------------------------ */

typedef struct mmd__gather_topk_data {
    int64_t batch, from, taken, row;    /* row: bytes per gathered element */
} mmd__gather_topk_data;

/* GatherTopk: data [A0..An, G0, C0...], index [A0..An, G1] (int32 as TensorRT takes it, or
   int64) -> [A0..An, G1, C0...], output[a, i, ...] = data[a, index[a, i], ...]: the batched
   gather data[batch_index, index] that TensorRT 8.2 to 8.4 got wrong. Any fixed-size dtype.
   Indices must lie in [0, G0): the TensorRT kernel does not wrap negative ones either. */
static mmd_status mmd__gather_topk_prepare(mmd_kernel_ctx *c) {
    mmd__gather_topk_data *p = (mmd__gather_topk_data *)c->op_data;
    const mmd_tensor *x, *idx;
    int64_t dims[MMD_MAX_RANK];
    int32_t i, ri;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    idx = c->inputs[1];
    ri = idx->rank;
    if (mmd_dtype_size(x->dtype) == 0)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "data '%s' is %s", x->name ? x->name : "", mmd_dtype_name(x->dtype));
    if (idx->dtype != MMD_DTYPE_INT32 && idx->dtype != MMD_DTYPE_INT64)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "index '%s' is %s, expects int32 or int64", idx->name ? idx->name : "",
                               mmd_dtype_name(idx->dtype));
    for (i = 0; ri >= 1 && ri <= x->rank && i < ri - 1 && idx->dims[i] == x->dims[i]; ++i) {}
    if (ri < 1 || ri > x->rank || i < ri - 1) {
        char tx[96], ti[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "index %s does not fit data %s (expects the data's leading dims, then the count taken)",
                               mmd__dims_text(ti, sizeof ti, idx->rank, idx->dims),
                               mmd__dims_text(tx, sizeof tx, x->rank, x->dims));
    }
    p->batch = 1;
    for (i = 0; i < ri - 1; ++i) p->batch *= x->dims[i];
    p->from = x->dims[ri - 1];
    p->taken = idx->dims[ri - 1];
    p->row = (int64_t)mmd_dtype_size(x->dtype);
    for (i = 0; i < x->rank; ++i) {
        dims[i] = i < ri ? idx->dims[i] : x->dims[i];
        if (i >= ri) p->row *= x->dims[i];
    }
    return mmd__set_output(c, 0, x->dtype, x->rank, dims);
}

static mmd_status mmd__gather_topk_eval(mmd_kernel_ctx *c) {
    const mmd__gather_topk_data *p = (const mmd__gather_topk_data *)c->op_data;
    const mmd_tensor *idx = c->inputs[1];
    const uint8_t *x = (const uint8_t *)c->inputs[0]->data;
    uint8_t *y = (uint8_t *)c->outputs[0]->data;
    int64_t b, i;
    for (b = 0; b < p->batch; ++b)
        for (i = 0; i < p->taken; ++i) {
            int64_t k = mmd__load_int(idx->dtype, idx->data, b * p->taken + i);
            if (k < 0 || k >= p->from)
                return mmd_kernel_fail(c, MMD_ERR_INDEX, "index %lld at position %lld is outside [0, %lld)",
                                       (long long)k, (long long)(b * p->taken + i), (long long)p->from);
            memcpy(y + (b * p->taken + i) * p->row, x + (b * p->from + k) * p->row, (size_t)p->row);
        }
    return MMD_OK;
}

/* ---- TRTBicubicInterpolate ------------------------------------------------------------------- */

typedef struct mmd__bicubic_data {
    int64_t planes, in[2], out[2];
    int32_t align_corners;
} mmd__bicubic_data;

/* TRTBicubicInterpolate: [N, C, H, W] -> [N, C, floor(H * scale_factor[0]), floor(W *
   scale_factor[1])], F.interpolate(mode='bicubic') given that output size: Keys' cubic with
   A = -0.75 over four taps clamped to the border, source coordinate (o + 0.5) * in / out - 0.5,
   or o * (in - 1) / (out - 1) with align_corners (default 1, as in TensorRT's creator).
   TensorRT multiplies the size by the scale truncated to an integer, which agrees on the integer
   scales MMDeploy's models use; the floor of the product is PyTorch's rule. The scale is
   float32, and one computed by the exporter as out / in can land a hair under the integer it
   stands for, so the product is nudged up by a few float32 ulps before the floor. With an
   align_corners output of one pixel along an axis PyTorch samples pixel 0 of that axis, as here;
   TensorRT then also drops align_corners on the other axis. */
static mmd_status mmd__bicubic_f32_prepare(mmd_kernel_ctx *c) {
    mmd__bicubic_data *p = (mmd__bicubic_data *)c->op_data;
    const mmd_tensor *x;
    const float *scale;
    int64_t n, align, dims[4];
    int32_t i;
    mmd_status st = mmd__check_io(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 4, 4);
    if (st == MMD_OK) st = mmd_attr_get_floats(c, "scale_factor", &scale, &n);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "align_corners", 1, &align);
    if (st != MMD_OK) return st;
    if (n != 2)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "scale_factor has %lld values, expects 2", (long long)n);
    x = c->inputs[0];
    for (i = 0; i < 2; ++i) {
        double size = (double)x->dims[2 + i] * (double)scale[i] * (1.0 + 4.0 * FLT_EPSILON);
        /* An infinite scale is refused even on an empty axis, where the size would be NaN. */
        if (!(scale[i] > 0.0f && scale[i] <= FLT_MAX) || size >= (double)MMD__ELEMS_MAX)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "scale_factor[%d] = %g", (int)i, (double)scale[i]);
        p->in[i] = x->dims[2 + i];
        p->out[i] = dims[2 + i] = (int64_t)floor(size);
    }
    p->planes = x->dims[0] * x->dims[1];
    p->align_corners = align != 0;
    /* Per output row and column: four clamped source indices and their weights. An empty input
       axis has an empty output axis (the floor of 0 times the scale), so no index is ever
       clamped into an empty range. */
    st = mmd__scratch_request(c, (uint64_t)(p->out[0] + p->out[1]) * 4 * (sizeof(int64_t) + sizeof(float)));
    if (st != MMD_OK) return st;
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims);
}

/* The four source indices (clamped into [0, in - 1]) and weights of output position o along
   an axis of in -> out pixels. */
static void mmd__bicubic_axis(int64_t in, int64_t out, int32_t align_corners, int64_t o, int64_t *idx, float *wt) {
    float scale, real, f;
    int64_t i0;
    int32_t k;
    if (align_corners) scale = out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
    else scale = (float)in / (float)out;
    real = align_corners ? scale * (float)o : scale * ((float)o + 0.5f) - 0.5f;
    f = floorf(real);
    mmd__cubic_weights(real - f, wt);
    i0 = (int64_t)f - 1;
    for (k = 0; k < 4; ++k) idx[k] = i0 + k < 0 ? 0 : i0 + k > in - 1 ? in - 1 : i0 + k;
}

static mmd_status mmd__bicubic_f32_eval(mmd_kernel_ctx *c) {
    const mmd__bicubic_data *p = (const mmd__bicubic_data *)c->op_data;
    const float *x = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t *yi = (int64_t *)c->scratch, *xi = yi + 4 * p->out[0];
    float *yw = (float *)(xi + 4 * p->out[1]), *xw = yw + 4 * p->out[0];
    int64_t pl, oy, ox, o;
    int32_t i, j;
    for (o = 0; o < p->out[0]; ++o) mmd__bicubic_axis(p->in[0], p->out[0], p->align_corners, o, yi + 4 * o, yw + 4 * o);
    for (o = 0; o < p->out[1]; ++o) mmd__bicubic_axis(p->in[1], p->out[1], p->align_corners, o, xi + 4 * o, xw + 4 * o);
    for (pl = 0; pl < p->planes; ++pl) {
        const float *xp = x + pl * p->in[0] * p->in[1];
        for (oy = 0; oy < p->out[0]; ++oy)
            for (ox = 0; ox < p->out[1]; ++ox, ++y) {
                float acc = 0.0f;
                for (i = 0; i < 4; ++i) {
                    const float *row = xp + yi[4 * oy + i] * p->in[1];
                    float r = 0.0f;
                    for (j = 0; j < 4; ++j) r += xw[4 * ox + j] * row[xi[4 * ox + j]];
                    acc += yw[4 * oy + i] * r;
                }
                *y = acc;
            }
    }
    return MMD_OK;
}

/* ---- GridPriorsTRT --------------------------------------------------------------------------- */

typedef struct mmd__grid_priors_data {
    int64_t anchors, h, w, stride_h, stride_w;
} mmd__grid_priors_data;

/* GridPriorsTRT: base_anchors [A, 4] and two rank-1 tensors whose lengths give the feature map's
   height and width (their values are never read) -> [H * W * A, 4]: anchor a shifted by
   (x * stride_w, y * stride_h) on both corners, at row (y * W + x) * A + a, the order of
   mmdet's AnchorGenerator.single_level_grid_priors. Strides default to 1 as in TensorRT. */
static mmd_status mmd__grid_priors_prepare(mmd_kernel_ctx *c) {
    mmd__grid_priors_data *p = (mmd__grid_priors_data *)c->op_data;
    const mmd_tensor *base;
    int64_t dims[2];
    mmd_status st = mmd__check_io(c, 3, 3, 1);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 2, 2);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 1, 1);
    if (st == MMD_OK) st = mmd__want_rank(c, 2, 1, 1);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "stride_h", 1, &p->stride_h);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "stride_w", 1, &p->stride_w);
    if (st != MMD_OK) return st;
    base = c->inputs[0];
    if (base->dims[1] != 4)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "base_anchors '%s' has %lld columns, expects 4",
                               base->name ? base->name : "", (long long)base->dims[1]);
    if (p->stride_h < 1 || p->stride_h > MMD__ATTR_MAX || p->stride_w < 1 || p->stride_w > MMD__ATTR_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "stride_h %lld or stride_w %lld is out of range",
                               (long long)p->stride_h, (long long)p->stride_w);
    p->anchors = base->dims[0];
    p->h = c->inputs[1]->dims[0];
    p->w = c->inputs[2]->dims[0];
    if (p->h > 0 && p->w > MMD__ELEMS_MAX / p->h)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "a %lldx%lld feature map", (long long)p->h, (long long)p->w);
    if (p->h * p->w > 0 && p->anchors > MMD__ELEMS_MAX / (p->h * p->w))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "%lld anchors on a %lldx%lld feature map", (long long)p->anchors,
                               (long long)p->h, (long long)p->w);
    dims[0] = p->h * p->w * p->anchors;
    dims[1] = 4;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 2, dims);
}

static mmd_status mmd__grid_priors_eval(mmd_kernel_ctx *c) {
    const mmd__grid_priors_data *p = (const mmd__grid_priors_data *)c->op_data;
    const float *base = (const float *)c->inputs[0]->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t gy, gx, a;
    for (gy = 0; gy < p->h; ++gy)
        for (gx = 0; gx < p->w; ++gx) {
            float sx = (float)(gx * p->stride_w), sy = (float)(gy * p->stride_h);
            for (a = 0; a < p->anchors; ++a, y += 4) {
                y[0] = base[4 * a] + sx;
                y[1] = base[4 * a + 1] + sy;
                y[2] = base[4 * a + 2] + sx;
                y[3] = base[4 * a + 3] + sy;
            }
        }
    return MMD_OK;
}

/* TRTInstanceNormalization is InstanceNormalization (MMDeploy's group_norm rewrite feeds it
   [N, groups, rest] with unit scale and zero bias), so it shares that kernel. TensorRT's plugin
   normalises over dims 2 and 3 only; over every trailing dim, as here, is what it stands for. */
#define MMD__MMDEPLOY_KERNELS                                                                                      \
    MMD__K(mmdeploy_grid_sampler, {"mmdeploy", "grid_sampler", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, sizeof(mmd__grid_sample_data), \
     mmd__grid_sampler_f32_prepare, mmd__grid_sampler_f32_eval})                                                   \
    MMD__K(mmcv_grid_sampler, {"mmcv", "grid_sampler", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, sizeof(mmd__grid_sample_data), \
     mmd__grid_sampler_f32_prepare, mmd__grid_sampler_f32_eval})                                                   \
    MMD__K(mmdeploy_MMCVModulatedDeformConv2d, {"mmdeploy", "MMCVModulatedDeformConv2d", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, \
     sizeof(mmd__deform_conv_data), mmd__modulated_deform_conv_f32_prepare, mmd__deform_conv_f32_eval})            \
    MMD__K(mmcv_MMCVModulatedDeformConv2d, {"mmcv", "MMCVModulatedDeformConv2d", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, \
     sizeof(mmd__deform_conv_data), mmd__modulated_deform_conv_f32_prepare, mmd__deform_conv_f32_eval})            \
    MMD__K(mmdeploy_MMCVDeformConv2d, {"mmdeploy", "MMCVDeformConv2d", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, sizeof(mmd__deform_conv_data), \
     mmd__deform_conv_f32_prepare, mmd__deform_conv_f32_eval})                                                     \
    MMD__K(mmcv_MMCVDeformConv2d, {"mmcv", "MMCVDeformConv2d", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, sizeof(mmd__deform_conv_data), \
     mmd__deform_conv_f32_prepare, mmd__deform_conv_f32_eval})                                                     \
    MMD__K(mmdeploy_MMCVMultiScaleDeformableAttention, {"mmdeploy", "MMCVMultiScaleDeformableAttention", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, \
     sizeof(mmd__msda_data), mmd__msda_f32_prepare, mmd__msda_f32_eval})                                           \
    MMD__K(mmcv_MMCVMultiScaleDeformableAttention, {"mmcv", "MMCVMultiScaleDeformableAttention", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, \
     sizeof(mmd__msda_data), mmd__msda_f32_prepare, mmd__msda_f32_eval})                                           \
    MMD__K(mmdeploy_ScaledDotProductAttentionTRT, {"mmdeploy", "ScaledDotProductAttentionTRT", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, \
     sizeof(mmd__sdpa_data), mmd__sdpa_f32_prepare, mmd__sdpa_f32_eval})                                           \
    MMD__K(mmdeploy_GatherTopk, {"mmdeploy", "GatherTopk", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, sizeof(mmd__gather_topk_data), \
     mmd__gather_topk_prepare, mmd__gather_topk_eval})                                                             \
    MMD__K(mmdeploy_TRTInstanceNormalization, {"mmdeploy", "TRTInstanceNormalization", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, \
     sizeof(mmd__batchnorm_data), mmd__instance_norm_f32_prepare, mmd__instance_norm_f32_eval})                    \
    MMD__K(mmdeploy_TRTBicubicInterpolate, {"mmdeploy", "TRTBicubicInterpolate", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, sizeof(mmd__bicubic_data), \
     mmd__bicubic_f32_prepare, mmd__bicubic_f32_eval})                                                             \
    MMD__K(mmdeploy_GridPriorsTRT, {"mmdeploy", "GridPriorsTRT", MMD__MMDEPLOY_OPSET, MMD__MMDEPLOY_OPSET, 0, sizeof(mmd__grid_priors_data), \
     mmd__grid_priors_prepare, mmd__grid_priors_eval})

/* ==== >>MMDeploy custom ops: RoI align and NMS ==== */
/* ==== >>mmdeploy detection kernels ==== */
/* MMDeploy's detection custom ops, computed as its ONNX Runtime and TensorRT plugins compute
   them (csrc/mmdeploy/backend_ops and mmcv's onnxruntime ops); where a plugin and the Python
   function it was exported from disagree, the plugin is followed, since that is what runs the
   model. All float32; the custom domains have only ever had version 1.
     mmdeploy::NMSRotated                   rotated NMS per batch and class -> (K, 3) int64
     mmdeploy::NMSMatch                     NMS groups [batch, class, kept, suppressed] (K, 4)
     mmdeploy::TRTBatchedNMS                TensorRT batched NMS -> dets (B, keep_topk, 5),
                                            labels and optional index int32 (B, keep_topk)
     mmdeploy::TRTBatchedRotatedNMS         the same over rotated boxes, dets (B, keep_topk, 6)
     mmcv:: and mmdeploy::MMCVRoiAlign      mmcv RoIAlign, avg and max
     mmcv:: and mmdeploy::MMCVRoIAlignRotated
     mmdeploy::MMCVMultiLevelRoiAlign, MMCVMultiLevelRotatedRoiAlign   FPN level choice + RoIAlign
   The RoI sampling and the greedy suppression are those of the ONNX detection kernels
   (>>detect kernels: mmd__roi_align_f32, mmd__nms_candidates, mmd__nms_greedy), which must
   come first; this file adds the box formats, the rotated-rectangle overlap and the level
   mapping.
   Where the plugins leave an order unspecified (std::sort over equal scores) candidates go by
   descending score, then lower box index, which is what the TensorRT plugins' stable radix
   sorts give. NaN scores never pass a score threshold and NaN boxes never suppress. */

#define MMD__MMDET_MAX_LEVELS 10 /* the multi-level plugins' kMAX_FEATMAP_SIZE */

/* ---- RoI align family ---------------------------------------------------------------------- */

typedef struct mmd__mmdet_roi_data {
    int64_t out_h, out_w, sampling_ratio;
    float spatial_scale, roi_scale_factor, finest_scale;
    float scales[MMD__MMDET_MAX_LEVELS]; /* multi-level: 1 / featmap_strides[l] */
    int32_t mode, aligned, clockwise, rotated, levels;
} mmd__mmdet_roi_data;

/* Reads output_height, output_width and sampling_ratio with the plugins' defaults, the flags
   aligned and clockwise, and checks the sizes as RoiAlign does. Any sampling_ratio <= 0 means
   adaptive sampling in every plugin. */
static mmd_status mmd__mmdet_roi_attrs(mmd_kernel_ctx *c, mmd__mmdet_roi_data *p, int64_t def_ratio,
                                       int64_t def_aligned) {
    int64_t aligned = 0, clockwise = 0;
    mmd_status st = mmd_attr_get_int(c, "output_height", 7, &p->out_h);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "output_width", 7, &p->out_w);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "sampling_ratio", def_ratio, &p->sampling_ratio);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "aligned", def_aligned, &aligned);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "clockwise", 0, &clockwise);
    if (st != MMD_OK) return st;
    if (p->out_h < 1 || p->out_w < 1 || p->out_h > MMD__ATTR_MAX || p->out_w > MMD__ATTR_MAX ||
        p->sampling_ratio > MMD__ATTR_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "output_height %lld, output_width %lld or "
                               "sampling_ratio %lld is out of range", (long long)p->out_h,
                               (long long)p->out_w, (long long)p->sampling_ratio);
    if (p->sampling_ratio < 0) p->sampling_ratio = 0;
    p->aligned = aligned != 0;
    /* The sign is kept: mmcv's kernel turns for any non-zero value, the multi-level plugin for
       positive ones. */
    p->clockwise = clockwise > 0 ? 1 : clockwise < 0 ? -1 : 0;
    return MMD_OK;
}

/* Checks rois (R, cols) at input 0 or 1 and the feature maps (N, C, H, W) at inputs
   [first, first + count), which must agree on N and C, then sets output 0 to
   (R, C, out_h, out_w). */
static mmd_status mmd__mmdet_roi_shapes(mmd_kernel_ctx *c, const mmd__mmdet_roi_data *p, int32_t roi_in,
                                        int64_t cols, int32_t first, int32_t count) {
    const mmd_tensor *rois = c->inputs[roi_in], *f0 = c->inputs[first];
    int64_t dims[4];
    int32_t i;
    mmd_status st = mmd__want_dtype(c, roi_in, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, roi_in, 2, 2);
    if (st != MMD_OK) return st;
    if (rois->dims[1] != cols) {
        char a[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "rois %s must be (R, %lld)",
                               mmd__dims_text(a, sizeof a, rois->rank, rois->dims), (long long)cols);
    }
    for (i = first; i < first + count; ++i) {
        const mmd_tensor *f = c->inputs[i];
        if ((st = mmd__want_dtype(c, i, MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__want_rank(c, i, 4, 4)) != MMD_OK)
            return st;
        if (f->dims[0] != f0->dims[0] || f->dims[1] != f0->dims[1]) {
            char a[96], b[96];
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "feature maps %s and %s differ in batch or channels",
                                   mmd__dims_text(a, sizeof a, f0->rank, f0->dims),
                                   mmd__dims_text(b, sizeof b, f->rank, f->dims));
        }
    }
    dims[0] = rois->dims[0];
    dims[1] = f0->dims[1];
    dims[2] = p->out_h;
    dims[3] = p->out_w;
    return mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims);
}

/* mmcv::MMCVRoiAlign: feats (N, C, H, W), rois (R, 5) as [batch, x1, y1, x2, y2]. Defaults are
   the TensorRT plugin's (the ONNX Runtime one has none: MMDeploy always writes them all). */
static mmd_status mmd__mmcv_roi_align_f32_prepare(mmd_kernel_ctx *c) {
    static const char *const modes[] = {"avg", "max", NULL};
    mmd__mmdet_roi_data *p = (mmd__mmdet_roi_data *)c->op_data;
    int32_t mode = 0;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__mmdet_roi_attrs(c, p, 0, 1);
    if (st == MMD_OK) st = mmd__detect_pick(c, "mode", "avg", modes, &mode);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "spatial_scale", 1.0f, &p->spatial_scale);
    if (st != MMD_OK) return st;
    p->mode = mode == 0 ? MMD__ROI_AVG : MMD__ROI_MAX;
    return mmd__mmdet_roi_shapes(c, p, 1, 5, 0, 1);
}

/* mmdeploy::MMCVRoIAlignRotated: rois (R, 6) as [batch, cx, cy, w, h, theta] (radians,
   counter-clockwise unless clockwise = 1). */
static mmd_status mmd__mmcv_roi_align_rotated_f32_prepare(mmd_kernel_ctx *c) {
    mmd__mmdet_roi_data *p = (mmd__mmdet_roi_data *)c->op_data;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st == MMD_OK) st = mmd__mmdet_roi_attrs(c, p, 0, 1);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "spatial_scale", 1.0f, &p->spatial_scale);
    if (st != MMD_OK) return st;
    p->mode = MMD__ROI_AVG;
    p->rotated = 1;
    return mmd__mmdet_roi_shapes(c, p, 1, 6, 0, 1);
}

/* The multi-level ops: rois (R, 5 or 6) first, then one feature map per level, finest first,
   with featmap_strides naming each map's stride. Defaults are the TensorRT plugins'. */
static mmd_status mmd__mmdet_multi_level_prepare(mmd_kernel_ctx *c, int32_t rotated) {
    mmd__mmdet_roi_data *p = (mmd__mmdet_roi_data *)c->op_data;
    const float *strides;
    int64_t count, pool_mode = 0, finest = 56;
    int32_t l;
    mmd_status st = mmd__check_io(c, 2, 1 + MMD__MMDET_MAX_LEVELS, 1);
    if (st == MMD_OK) st = mmd__mmdet_roi_attrs(c, p, 2, 0);
    if (st == MMD_OK && !rotated) st = mmd_attr_get_int(c, "pool_mode", 0, &pool_mode);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "roi_scale_factor", -1.0f, &p->roi_scale_factor);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "finest_scale", 56, &finest);
    if (st == MMD_OK) st = mmd_attr_get_floats(c, "featmap_strides", &strides, &count);
    if (st != MMD_OK) return st;
    p->levels = c->input_count - 1;
    if (count < p->levels)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "featmap_strides has %lld values for %d feature maps",
                               (long long)count, (int)p->levels);
    if (pool_mode != 0 && pool_mode != 1)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "pool_mode is %lld, expects 0 (max) or 1 (avg)",
                               (long long)pool_mode);
    for (l = 0; l < p->levels; ++l) {
        if (!(strides[l] > 0.0f))
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "featmap_strides[%d] = %g is not positive",
                                   (int)l, (double)strides[l]);
        p->scales[l] = (float)(1.0 / (double)strides[l]);
    }
    p->finest_scale = (float)finest;
    /* The rotated plugin always averages. */
    p->mode = pool_mode == 0 && !rotated ? MMD__ROI_MAX : MMD__ROI_AVG;
    p->rotated = rotated;
    return mmd__mmdet_roi_shapes(c, p, 0, rotated ? 6 : 5, 1, p->levels);
}

static mmd_status mmd__mmcv_multi_level_roi_align_f32_prepare(mmd_kernel_ctx *c) {
    return mmd__mmdet_multi_level_prepare(c, 0);
}

static mmd_status mmd__mmcv_multi_level_rotated_roi_align_f32_prepare(mmd_kernel_ctx *c) {
    return mmd__mmdet_multi_level_prepare(c, 1);
}

/* The batch of each RoI: column 0 as a float, truncated toward zero as the plugins cast it.
   Every one is checked before any output is written. */
static mmd_status mmd__mmdet_roi_batches(mmd_kernel_ctx *c, const mmd_tensor *rois, int64_t n) {
    const float *r = (const float *)rois->data;
    int64_t i, cols = rois->dims[1];
    for (i = 0; i < rois->dims[0]; ++i) {
        float v = r[i * cols];
        if (!(v > -1.0f && v < (float)n))
            return mmd_kernel_fail(c, MMD_ERR_INDEX, "rois[%lld] has batch index %g, the features "
                                   "have batch %lld", (long long)i, (double)v, (long long)n);
    }
    return MMD_OK;
}

/* Geometry of a rotated RoI already in feature-map units: sampled around its centre (cx, cy),
   rotated counter-clockwise by theta, as mmcv's RoIAlignRotated does. */
static void mmd__mmdet_geom_rotated(mmd__roi_geom *g, float cx, float cy, float rw, float rh, float theta,
                                    const mmd__mmdet_roi_data *p, int64_t h, int64_t w) {
    g->y0 = -rh / 2.0f;
    g->x0 = -rw / 2.0f;
    g->bin_h = rh / (float)p->out_h;
    g->bin_w = rw / (float)p->out_w;
    g->cos_t = (float)cos((double)theta);
    g->sin_t = (float)sin((double)theta);
    g->cy = cy;
    g->cx = cx;
    g->grid_h = mmd__roi_grid(g->bin_h, p->sampling_ratio, h);
    g->grid_w = mmd__roi_grid(g->bin_w, p->sampling_ratio, w);
}

/* Both single-level ops. The rotated one follows mmcv: centre shifted by half a pixel when
   aligned, size scaled without offset and at least 1 x 1 unless aligned. */
static mmd_status mmd__mmcv_roi_align_f32_eval(mmd_kernel_ctx *c) {
    const mmd__mmdet_roi_data *p = (const mmd__mmdet_roi_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *rois = c->inputs[1];
    const float *r = (const float *)rois->data;
    float *y = (float *)c->outputs[0]->data;
    int64_t ch = x->dims[1], h = x->dims[2], w = x->dims[3], cols = rois->dims[1], i;
    int64_t per_roi = ch * p->out_h * p->out_w;
    mmd_status st = mmd__mmdet_roi_batches(c, rois, x->dims[0]);
    if (st != MMD_OK) return st;
    for (i = 0; i < rois->dims[0]; ++i, r += cols) {
        mmd__roi_geom g;
        if (p->rotated) {
            float off = p->aligned ? 0.5f : 0.0f, s = p->spatial_scale;
            float rw = r[3] * s, rh = r[4] * s;
            if (!p->aligned) {
                rw = rw > 1.0f ? rw : 1.0f;
                rh = rh > 1.0f ? rh : 1.0f;
            }
            mmd__mmdet_geom_rotated(&g, r[1] * s - off, r[2] * s - off, rw, rh,
                                    p->clockwise != 0 ? -r[5] : r[5], p, h, w);
        } else {
            mmd__roi_geom_box(&g, r + 1, p->spatial_scale, p->aligned, p->out_h, p->out_w,
                              p->sampling_ratio, h, w);
        }
        mmd__roi_align_f32((const float *)x->data + (int64_t)r[0] * ch * h * w, ch, h, w, &g, p->out_h,
                           p->out_w, p->mode, y + i * per_roi);
    }
    return MMD_OK;
}

/* FPN level of a RoI of the given area, as mmdet's map_roi_levels and the plugins compute it:
   floor(log2(sqrt(area) / finest_scale + 1e-6)) clamped to [0, levels - 1]. A negative or NaN
   area gives NaN, which the plugins' clamp (an int conversion, then max with 0) sends to 0. */
static int32_t mmd__mmdet_level(const mmd__mmdet_roi_data *p, float area) {
    float ratio = sqrtf(area) / p->finest_scale;
    float l = floorf(log2f((float)((double)ratio + 1e-6)));
    if (!(l > 0.0f)) return 0;
    return l >= (float)(p->levels - 1) ? p->levels - 1 : (int32_t)l;
}

/* The multi-level plugins: the level comes from the RoI as given, the RoI is then rescaled
   about its centre by roi_scale_factor (when positive) and sampled on that level's map.
   Axis-aligned: rescaled with mmdet's +1 / -0.5 convention; when aligned, shifted by half a
   pixel and a negative size counts as empty; otherwise at least 1 x 1. Rotated: w and h
   scaled, the centre shifted by half a pixel when aligned, and at least 1 x 1 always. */
static mmd_status mmd__mmcv_multi_level_roi_align_f32_eval(mmd_kernel_ctx *c) {
    const mmd__mmdet_roi_data *p = (const mmd__mmdet_roi_data *)c->op_data;
    const mmd_tensor *rois = c->inputs[0], *f0 = c->inputs[1];
    const float *r = (const float *)rois->data;
    float *y = (float *)c->outputs[0]->data, f = p->roi_scale_factor;
    int64_t ch = f0->dims[1], cols = rois->dims[1], i;
    int64_t per_roi = ch * p->out_h * p->out_w;
    mmd_status st = mmd__mmdet_roi_batches(c, rois, f0->dims[0]);
    if (st != MMD_OK) return st;
    for (i = 0; i < rois->dims[0]; ++i, r += cols) {
        mmd__roi_geom g;
        int32_t l = mmd__mmdet_level(p, p->rotated ? r[3] * r[4] : (r[3] - r[1]) * (r[4] - r[2]));
        const mmd_tensor *x = c->inputs[1 + l];
        int64_t h = x->dims[2], w = x->dims[3];
        float s = p->scales[l];
        if (p->rotated) {
            float off = p->aligned ? -0.5f : 0.0f, rw = r[3], rh = r[4];
            if (f > 0.0f) {
                rw *= f;
                rh *= f;
            }
            rw *= s;
            rh *= s;
            rw = rw > 1.0f ? rw : 1.0f;
            rh = rh > 1.0f ? rh : 1.0f;
            mmd__mmdet_geom_rotated(&g, r[1] * s + off, r[2] * s + off, rw, rh,
                                    p->clockwise > 0 ? -r[5] : r[5], p, h, w);
        } else {
            float box[4];
            box[0] = r[1];
            box[1] = r[2];
            box[2] = r[3];
            box[3] = r[4];
            if (f > 0.0f) {
                float cx = (box[0] + box[2]) * 0.5f, cy = (box[1] + box[3]) * 0.5f;
                float hw = (box[2] - box[0] + 1.0f) * (f * 0.5f) - 0.5f;
                float hh = (box[3] - box[1] + 1.0f) * (f * 0.5f) - 0.5f;
                box[0] = cx - hw;
                box[2] = cx + hw;
                box[1] = cy - hh;
                box[3] = cy + hh;
            }
            /* mmd__roi_geom_box keeps a negative aligned size; the plugin empties it. */
            if (p->aligned && !(box[2] >= box[0])) box[2] = box[0];
            if (p->aligned && !(box[3] >= box[1])) box[3] = box[1];
            mmd__roi_geom_box(&g, box, s, p->aligned, p->out_h, p->out_w, p->sampling_ratio, h, w);
        }
        mmd__roi_align_f32((const float *)x->data + (int64_t)r[0] * ch * h * w, ch, h, w, &g, p->out_h,
                           p->out_w, p->mode, y + i * per_roi);
    }
    return MMD_OK;
}

/* ---- overlaps ------------------------------------------------------------------------------- */

/* Area of the intersection of two convex quadrilaterals given counter-clockwise: a is clipped
   by each edge of b in turn (Sutherland-Hodgman). Each clip at most doubles the vertex count,
   so 4 clips of 4 vertices never pass 64 whatever rounding or NaN do; the usual count is 8. */
static double mmd__mmdet_quad_overlap(const double *ax, const double *ay, const double *bx, const double *by) {
    double px[2][64], py[2][64], area = 0.0;
    int32_t n = 4, cur = 0, e, i;
    for (i = 0; i < 4; ++i) {
        px[0][i] = ax[i];
        py[0][i] = ay[i];
    }
    for (e = 0; e < 4 && n > 0; ++e) {
        double ex = bx[(e + 1) & 3] - bx[e], ey = by[(e + 1) & 3] - by[e];
        int32_t m = 0, nxt = 1 - cur;
        for (i = 0; i < n; ++i) {
            int32_t j = i + 1 < n ? i + 1 : 0;
            double di = ex * (py[cur][i] - by[e]) - ey * (px[cur][i] - bx[e]);
            double dj = ex * (py[cur][j] - by[e]) - ey * (px[cur][j] - bx[e]);
            if (di >= 0.0) {
                px[nxt][m] = px[cur][i];
                py[nxt][m++] = py[cur][i];
            }
            if ((di >= 0.0) != (dj >= 0.0) && di != dj) {
                double t = di / (di - dj);
                px[nxt][m] = px[cur][i] + t * (px[cur][j] - px[cur][i]);
                py[nxt][m++] = py[cur][i] + t * (py[cur][j] - py[cur][i]);
            }
        }
        n = m;
        cur = nxt;
    }
    for (i = 0; i < n; ++i) {
        int32_t j = i + 1 < n ? i + 1 : 0;
        area += px[cur][i] * py[cur][j] - px[cur][j] * py[cur][i];
    }
    return area > 0.0 ? area / 2.0 : -area / 2.0;
}

/* Corners of the rotated box (cx, cy, w, h, theta) about the origin shifted to (sx, sy):
   centre -+ half of w along (cos, sin) -+ half of h along (-sin, cos), counter-clockwise
   whenever w * h > 0. */
static void mmd__mmdet_rbox_corners(const float *b, double sx, double sy, double *px, double *py) {
    double c = cos((double)b[4]), s = sin((double)b[4]);
    double ux = 0.5 * b[2] * c, uy = 0.5 * b[2] * s, vx = -0.5 * b[3] * s, vy = 0.5 * b[3] * c;
    double cx = b[0] - sx, cy = b[1] - sy;
    px[0] = cx - ux - vx;
    py[0] = cy - uy - vy;
    px[1] = cx + ux - vx;
    py[1] = cy + uy - vy;
    px[2] = cx + ux + vx;
    py[2] = cy + uy + vy;
    px[3] = cx - ux + vx;
    py[3] = cy - uy + vy;
}

/* IoU of two rotated boxes (cx, cy, w, h, theta): the exact intersection of the rectangles
   over w1 h1 + w2 h2 minus it, as mmcv's box_iou_rotated. A box with w h below 1e-14 (zero,
   negative or degenerate) has IoU `degenerate`: 0 in mmcv, 1 in MMDeploy's TensorRT plugin.
   Boxes whose circumscribed circles do not meet are 0 without trigonometry; NaN gives 0. The
   centres are shifted to their midpoint first, which keeps precision for large coordinates. */
static double mmd__mmdet_rbox_iou(const float *a, const float *b, double degenerate) {
    double area_a = (double)(a[2] * a[3]), area_b = (double)(b[2] * b[3]);
    double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], reach, ax[4], ay[4], bx[4], by[4];
    double sx, sy, inter;
    if (area_a < 1e-14 || area_b < 1e-14) return degenerate;
    reach = 0.5 * (sqrt((double)a[2] * a[2] + (double)a[3] * a[3]) + sqrt((double)b[2] * b[2] + (double)b[3] * b[3]));
    if (!(dx * dx + dy * dy < reach * reach)) return 0.0;
    sx = 0.5 * ((double)a[0] + b[0]);
    sy = 0.5 * ((double)a[1] + b[1]);
    mmd__mmdet_rbox_corners(a, sx, sy, ax, ay);
    mmd__mmdet_rbox_corners(b, sx, sy, bx, by);
    inter = mmd__mmdet_quad_overlap(ax, ay, bx, by);
    return inter / (area_a + area_b - inter);
}

/* Boxes for the suppression callbacks: box i of the current batch and class starts at
   boxes + i * stride (TensorRT's per-class boxes interleave the classes). */
typedef struct mmd__mmdet_box_ctx {
    const float *boxes;
    int64_t stride;
    float iou_threshold;
    double degenerate;       /* rotated: IoU given to a degenerate box */
} mmd__mmdet_box_ctx;

/* TensorRT's jaccardOverlap with offset 0 (MMDeploy exports is_normalized = 0, but the plugin
   passes offset 0 either way): boxes (x1, y1, x2, y2) taken as given, an inverted box never
   overlaps, touching boxes do not overlap. */
static int32_t mmd__mmdet_box_suppress(const void *ctx_, int64_t kept, int64_t cand) {
    const mmd__mmdet_box_ctx *ctx = (const mmd__mmdet_box_ctx *)ctx_;
    const float *a = ctx->boxes + kept * ctx->stride, *b = ctx->boxes + cand * ctx->stride;
    float iw = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
    float ih = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]), inter;
    if (!(iw > 0.0f && ih > 0.0f)) return 0;
    inter = iw * ih;
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter) > ctx->iou_threshold;
}

static int32_t mmd__mmdet_rbox_suppress(const void *ctx_, int64_t kept, int64_t cand) {
    const mmd__mmdet_box_ctx *ctx = (const mmd__mmdet_box_ctx *)ctx_;
    return mmd__mmdet_rbox_iou(ctx->boxes + kept * ctx->stride, ctx->boxes + cand * ctx->stride,
                               ctx->degenerate) > (double)ctx->iou_threshold;
}

/* ---- NMS family ------------------------------------------------------------------------------ */

typedef struct mmd__mmdet_nms_data {
    int64_t batches, classes, boxes, queues; /* queues: box sets per anchor, 1 (shared) or classes */
    int64_t topk, keep_topk, per_class;      /* per_class: kept boxes worth storing per class */
    float iou_threshold, score_threshold;
    int32_t coords, background, clip;
} mmd__mmdet_nms_data;

/* Boxes (B, N, coords) and scores (B, C, N), the layout of the ONNX Runtime NMS ops. */
static mmd_status mmd__mmdet_nms_inputs(mmd_kernel_ctx *c, mmd__mmdet_nms_data *p, int64_t coords) {
    const mmd_tensor *boxes = c->inputs[0], *scores = c->inputs[1];
    mmd_status st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, 3);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 3, 3);
    if (st != MMD_OK) return st;
    if (boxes->dims[2] != coords || scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1]) {
        char a[96], b[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "boxes %s and scores %s must be (B, N, %lld) and (B, C, N)",
                               mmd__dims_text(a, sizeof a, boxes->rank, boxes->dims),
                               mmd__dims_text(b, sizeof b, scores->rank, scores->dims), (long long)coords);
    }
    p->batches = boxes->dims[0];
    p->boxes = boxes->dims[1];
    p->classes = scores->dims[1];
    p->coords = (int32_t)coords;
    return MMD_OK;
}

/* Sets output 0 to the bound (B * C * N, cols) int64, dynamic, and reserves `per_box` bytes of
   scratch per box. */
static mmd_status mmd__mmdet_nms_rows(mmd_kernel_ctx *c, const mmd__mmdet_nms_data *p, int64_t cols,
                                      size_t per_box) {
    int64_t dims[2];
    mmd_status st;
    dims[0] = p->batches * p->classes * p->boxes;
    dims[1] = cols;
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_INT64, 2, dims)) != MMD_OK) return st;
    if ((uint64_t)p->boxes > SIZE_MAX / per_box)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "%lld boxes need too much scratch", (long long)p->boxes);
    c->outputs[0]->dynamic = 1;
    c->scratch_size = (size_t)p->boxes * per_box;
    return MMD_OK;
}

/* mmdeploy::NMSRotated: boxes (B, N, 5) as (cx, cy, w, h, theta), scores (B, C, N). Its ONNX
   Runtime kernel suppresses over every box and drops scores <= score_threshold afterwards;
   a box can only suppress lower-scored ones, so filtering first gives the same rows. */
static mmd_status mmd__nms_rotated_f32_prepare(mmd_kernel_ctx *c) {
    mmd__mmdet_nms_data *p = (mmd__mmdet_nms_data *)c->op_data;
    mmd_status st = mmd__check_io(c, 2, 2, 1);
    if (st != MMD_OK) return st;
    /* The ONNX Runtime kernel reads both as required attributes. */
    if (!mmd_node_attr(c->node, "iou_threshold") || !mmd_node_attr(c->node, "score_threshold"))
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "needs attributes iou_threshold and score_threshold");
    st = mmd_attr_get_float(c, "iou_threshold", 0.0f, &p->iou_threshold);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "score_threshold", 0.0f, &p->score_threshold);
    if (st == MMD_OK) st = mmd__mmdet_nms_inputs(c, p, 5);
    if (st != MMD_OK) return st;
    return mmd__mmdet_nms_rows(c, p, 3, 2 * sizeof(int64_t));
}

static mmd_status mmd__nms_rotated_f32_eval(mmd_kernel_ctx *c) {
    const mmd__mmdet_nms_data *p = (const mmd__mmdet_nms_data *)c->op_data;
    const float *scores = (const float *)c->inputs[1]->data;
    int64_t *out = (int64_t *)c->outputs[0]->data, *order = (int64_t *)c->scratch, *keep = order + p->boxes;
    int64_t rows = 0, b, k, i, m;
    mmd__mmdet_box_ctx ctx;
    ctx.stride = 5;
    ctx.iou_threshold = p->iou_threshold;
    ctx.degenerate = 0.0;
    for (b = 0; b < p->batches; ++b) {
        ctx.boxes = (const float *)c->inputs[0]->data + b * p->boxes * 5;
        for (k = 0; k < p->classes; ++k) {
            m = mmd__nms_candidates(scores + (b * p->classes + k) * p->boxes, 1, p->boxes, 1,
                                    p->score_threshold, order);
            m = mmd__nms_greedy(order, m, m, mmd__mmdet_rbox_suppress, &ctx, keep);
            for (i = 0; i < m; ++i, ++rows) {
                out[3 * rows + 0] = b;
                out[3 * rows + 1] = k;
                out[3 * rows + 2] = keep[i];
            }
        }
    }
    c->outputs[0]->dims[0] = rows;
    return MMD_OK;
}

/* mmdeploy::NMSMatch: boxes (B, N, 4) as (x1, y1, x2, y2), scores (B, C, N), iou_threshold and
   score_threshold as one-value inputs. As its ONNX Runtime kernel: every box of a batch and
   class takes part (none is dropped by score), in descending score order each box not yet
   matched claims every later unmatched box whose overlap reaches iou_threshold (>=, with
   1e-10 added to the union), and the pairs [batch, class, box, claimed] are output for boxes
   scoring above score_threshold. The claims are the greedy NMS's suppressions, but the
   result is the pairs, which mmd__nms_greedy does not report, so the loop is its own. */
static mmd_status mmd__nms_match_f32_prepare(mmd_kernel_ctx *c) {
    mmd__mmdet_nms_data *p = (mmd__mmdet_nms_data *)c->op_data;
    int32_t i;
    mmd_status st = mmd__check_io(c, 4, 4, 1);
    if (st == MMD_OK) st = mmd__mmdet_nms_inputs(c, p, 4);
    for (i = 2; i < 4 && st == MMD_OK; ++i) {
        if ((st = mmd__want_dtype(c, i, MMD_DTYPE_FLOAT32)) == MMD_OK && mmd_tensor_numel(c->inputs[i]) < 1)
            st = mmd_kernel_fail(c, MMD_ERR_SHAPE, "input %d (%s) is empty", (int)i,
                                 i == 2 ? "iou_threshold" : "score_threshold");
    }
    if (st != MMD_OK) return st;
    return mmd__mmdet_nms_rows(c, p, 4, sizeof(int64_t) + 1);
}

/* NMSMatch's overlap test: w and h of the intersection clamped at 0, areas as given. */
static int32_t mmd__mmdet_match(const float *a, const float *b, float threshold) {
    float iw = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
    float ih = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]), inter;
    iw = iw > 0.0f ? iw : 0.0f;
    ih = ih > 0.0f ? ih : 0.0f;
    inter = iw * ih;
    return (double)inter / ((double)((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter) + 1e-10) >=
           (double)threshold;
}

static mmd_status mmd__nms_match_f32_eval(mmd_kernel_ctx *c) {
    const mmd__mmdet_nms_data *p = (const mmd__mmdet_nms_data *)c->op_data;
    const float *scores = (const float *)c->inputs[1]->data;
    float iou = ((const float *)c->inputs[2]->data)[0], thr = ((const float *)c->inputs[3]->data)[0];
    int64_t *out = (int64_t *)c->outputs[0]->data, *order = (int64_t *)c->scratch;
    uint8_t *claimed = (uint8_t *)(order + p->boxes);
    int64_t rows = 0, b, k, i, j, m;
    for (b = 0; b < p->batches; ++b) {
        const float *boxes = (const float *)c->inputs[0]->data + b * p->boxes * 4;
        for (k = 0; k < p->classes; ++k) {
            const float *s = scores + (b * p->classes + k) * p->boxes;
            /* NaN scores are left out: std::sort has no defined order for them. */
            m = mmd__nms_candidates(s, 1, p->boxes, 0, 0.0f, order);
            if (m > 0) memset(claimed, 0, (size_t)p->boxes);
            for (i = 0; i < m; ++i) {
                int64_t a = order[i];
                if (claimed[a]) continue;
                for (j = i + 1; j < m; ++j) {
                    int64_t d = order[j];
                    if (claimed[d] || !mmd__mmdet_match(boxes + 4 * a, boxes + 4 * d, iou)) continue;
                    claimed[d] = 1;
                    if (!(s[a] > thr)) continue;
                    out[4 * rows + 0] = b;
                    out[4 * rows + 1] = k;
                    out[4 * rows + 2] = a;
                    out[4 * rows + 3] = d;
                    ++rows;
                }
            }
        }
    }
    c->outputs[0]->dims[0] = rows;
    return MMD_OK;
}

/* mmdeploy::TRTBatchedNMS and TRTBatchedRotatedNMS: boxes (B, N, 1 or C, 4 or 5), scores
   (B, N, C). As the TensorRT plugin: per batch and class (the background class skipped), drop
   scores <= score_threshold, keep the `topk` best (topk <= 0 or > N means N), suppress by
   IoU > iou_threshold, then order the survivors of every class by score (equal scores: lower
   class, then the class's own order) and output the first keep_topk: boxes (each coordinate
   clamped to [0, 1] when clip_boxes, the rotated angle too, as the plugin does), score, class
   as label and, for return_index, the box index (class * N + box with per-class boxes).
   Missing rows are zeros with label and index -1. Attribute defaults are the plugin's, which
   zero-initialises its parameters (background_label_id 0) and sets clip_boxes.
   Only the first keep_topk survivors of a class can reach the output, so the suppression of a
   class stops there and only those are stored; the merge then takes the best head of the
   classes' lists keep_topk times. The plugin leaves the output unwritten when keep_topk > topk;
   this kernel gives the natural result. */
static mmd_status mmd__trt_batched_nms_prepare(mmd_kernel_ctx *c, int32_t coords) {
    mmd__mmdet_nms_data *p = (mmd__mmdet_nms_data *)c->op_data;
    const mmd_tensor *boxes, *scores;
    int64_t num_classes = 0, background = 0, clip = 1, dims[3];
    uint64_t words;
    int32_t i;
    mmd_status st = mmd__check_io(c, 2, 2, coords == 4 ? 3 : 2);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "num_classes", 0, &num_classes);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "background_label_id", 0, &background);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "topk", 0, &p->topk);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "keep_topk", 0, &p->keep_topk);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "iou_threshold", 0.0f, &p->iou_threshold);
    if (st == MMD_OK) st = mmd_attr_get_float(c, "score_threshold", 0.0f, &p->score_threshold);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "clip_boxes", 1, &clip);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 4, 4);
    if (st == MMD_OK) st = mmd__want_rank(c, 1, 3, 3);
    if (st != MMD_OK) return st;
    boxes = c->inputs[0];
    scores = c->inputs[1];
    if (boxes->dims[3] != coords || scores->dims[0] != boxes->dims[0] || scores->dims[1] != boxes->dims[1] ||
        (boxes->dims[2] != 1 && boxes->dims[2] != scores->dims[2])) {
        char a[96], b[96];
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "boxes %s and scores %s must be (B, N, 1 or C, %d) and (B, N, C)",
                               mmd__dims_text(a, sizeof a, boxes->rank, boxes->dims),
                               mmd__dims_text(b, sizeof b, scores->rank, scores->dims), (int)coords);
    }
    if (num_classes != scores->dims[2])
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "num_classes is %lld but scores have %lld classes",
                               (long long)num_classes, (long long)scores->dims[2]);
    if (p->keep_topk < 0 || p->keep_topk > MMD__ELEMS_MAX)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "keep_topk %lld is out of range", (long long)p->keep_topk);
    p->batches = boxes->dims[0];
    p->boxes = boxes->dims[1];
    p->queues = boxes->dims[2];
    p->classes = scores->dims[2];
    p->coords = coords;
    p->background = background >= 0 && background < p->classes ? (int32_t)background : -1;
    p->clip = clip != 0;
    if (p->topk <= 0 || p->topk > p->boxes) p->topk = p->boxes;
    p->per_class = p->topk < p->keep_topk ? p->topk : p->keep_topk;
    dims[0] = p->batches;
    dims[1] = p->keep_topk;
    dims[2] = coords + 1;
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 3, dims)) != MMD_OK) return st;
    for (i = 1; i < c->output_count; ++i)
        if (c->outputs[i] && (st = mmd__set_output(c, i, MMD_DTYPE_INT32, 2, dims)) != MMD_OK) return st;
    /* Scratch: the candidates of one class, each class's stored survivors, and the count and
       merge cursor of every class, all int64. */
    words = (uint64_t)p->boxes + (uint64_t)p->classes * ((uint64_t)p->per_class + 2);
    if (words > SIZE_MAX / sizeof(int64_t))
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "too much scratch for %lld boxes", (long long)p->boxes);
    c->scratch_size = (size_t)words * sizeof(int64_t);
    return MMD_OK;
}

static mmd_status mmd__trt_batched_nms_f32_prepare(mmd_kernel_ctx *c) { return mmd__trt_batched_nms_prepare(c, 4); }
static mmd_status mmd__trt_batched_rotated_nms_f32_prepare(mmd_kernel_ctx *c) { return mmd__trt_batched_nms_prepare(c, 5); }

static mmd_status mmd__trt_batched_nms_f32_eval(mmd_kernel_ctx *c) {
    const mmd__mmdet_nms_data *p = (const mmd__mmdet_nms_data *)c->op_data;
    int64_t n = p->boxes, nc = p->classes, kk = p->per_class, cols = p->coords + 1;
    int64_t *order = (int64_t *)c->scratch, *kept = order + n, *count = kept + nc * kk, *cursor = count + nc;
    float *dets = (float *)c->outputs[0]->data;
    int32_t *labels = c->output_count > 1 && c->outputs[1] ? (int32_t *)c->outputs[1]->data : NULL;
    int32_t *index = c->output_count > 2 && c->outputs[2] ? (int32_t *)c->outputs[2]->data : NULL;
    int64_t b, k, r, j;
    mmd__mmdet_box_ctx ctx;
    ctx.stride = p->queues * p->coords;
    ctx.iou_threshold = p->iou_threshold;
    ctx.degenerate = 1.0;
    for (b = 0; b < p->batches; ++b) {
        const float *boxes = (const float *)c->inputs[0]->data + b * n * ctx.stride;
        const float *scores = (const float *)c->inputs[1]->data + b * n * nc;
        for (k = 0; k < nc; ++k) {
            int64_t m;
            count[k] = cursor[k] = 0;
            if (k == p->background || kk == 0) continue;
            m = mmd__nms_candidates(scores + k, nc, n, 1, p->score_threshold, order);
            ctx.boxes = boxes + (p->queues == 1 ? 0 : k * p->coords);
            count[k] = mmd__nms_greedy(order, m < p->topk ? m : p->topk, kk,
                                       p->coords == 4 ? mmd__mmdet_box_suppress : mmd__mmdet_rbox_suppress,
                                       &ctx, kept + k * kk);
        }
        for (r = 0; r < p->keep_topk; ++r) {
            float *row = dets + (b * p->keep_topk + r) * cols, best_score = 0.0f;
            int64_t best = -1, box;
            const float *src;
            for (k = 0; k < nc; ++k) {
                float s;
                if (cursor[k] >= count[k]) continue;
                s = scores[kept[k * kk + cursor[k]] * nc + k];
                if (best < 0 || s > best_score) {
                    best = k;
                    best_score = s;
                }
            }
            if (best < 0) {
                for (j = 0; j < cols; ++j) row[j] = 0.0f;
                if (labels) labels[b * p->keep_topk + r] = -1;
                if (index) index[b * p->keep_topk + r] = -1;
                continue;
            }
            box = kept[best * kk + cursor[best]++];
            src = boxes + box * ctx.stride + (p->queues == 1 ? 0 : best * p->coords);
            for (j = 0; j < p->coords; ++j) {
                float v = src[j];
                if (p->clip) {
                    v = v < 1.0f ? v : 1.0f; /* a NaN becomes 1, as CUDA's fminf makes it */
                    v = v > 0.0f ? v : 0.0f;
                }
                row[j] = v;
            }
            row[p->coords] = best_score;
            if (labels) labels[b * p->keep_topk + r] = (int32_t)best;
            if (index) index[b * p->keep_topk + r] = (int32_t)(p->queues == 1 ? box : best * n + box);
        }
    }
    return MMD_OK;
}

#define MMD__MMDEPLOY_DET_KERNELS                                                                                  \
    MMD__K(mmdeploy_NMSRotated, {"mmdeploy", "NMSRotated", 1, 1, 0, sizeof(mmd__mmdet_nms_data), mmd__nms_rotated_f32_prepare, \
     mmd__nms_rotated_f32_eval})                                                                                   \
    MMD__K(mmdeploy_NMSMatch, {"mmdeploy", "NMSMatch", 1, 1, 0, sizeof(mmd__mmdet_nms_data), mmd__nms_match_f32_prepare, \
     mmd__nms_match_f32_eval})                                                                                     \
    MMD__K(mmdeploy_TRTBatchedNMS, {"mmdeploy", "TRTBatchedNMS", 1, 1, 0, sizeof(mmd__mmdet_nms_data), mmd__trt_batched_nms_f32_prepare, \
     mmd__trt_batched_nms_f32_eval})                                                                               \
    MMD__K(mmdeploy_TRTBatchedRotatedNMS, {"mmdeploy", "TRTBatchedRotatedNMS", 1, 1, 0, sizeof(mmd__mmdet_nms_data), \
     mmd__trt_batched_rotated_nms_f32_prepare, mmd__trt_batched_nms_f32_eval})                                     \
    MMD__K(mmcv_MMCVRoiAlign, {"mmcv", "MMCVRoiAlign", 1, 1, 0, sizeof(mmd__mmdet_roi_data), mmd__mmcv_roi_align_f32_prepare, \
     mmd__mmcv_roi_align_f32_eval})                                                                                \
    MMD__K(mmdeploy_MMCVRoiAlign, {"mmdeploy", "MMCVRoiAlign", 1, 1, 0, sizeof(mmd__mmdet_roi_data), mmd__mmcv_roi_align_f32_prepare, \
     mmd__mmcv_roi_align_f32_eval})                                                                                \
    MMD__K(mmdeploy_MMCVRoIAlignRotated, {"mmdeploy", "MMCVRoIAlignRotated", 1, 1, 0, sizeof(mmd__mmdet_roi_data), \
     mmd__mmcv_roi_align_rotated_f32_prepare, mmd__mmcv_roi_align_f32_eval})                                       \
    MMD__K(mmcv_MMCVRoIAlignRotated, {"mmcv", "MMCVRoIAlignRotated", 1, 1, 0, sizeof(mmd__mmdet_roi_data), mmd__mmcv_roi_align_rotated_f32_prepare, \
     mmd__mmcv_roi_align_f32_eval})                                                                                \
    MMD__K(mmdeploy_MMCVMultiLevelRoiAlign, {"mmdeploy", "MMCVMultiLevelRoiAlign", 1, 1, 0, sizeof(mmd__mmdet_roi_data), \
     mmd__mmcv_multi_level_roi_align_f32_prepare, mmd__mmcv_multi_level_roi_align_f32_eval})                       \
    MMD__K(mmdeploy_MMCVMultiLevelRotatedRoiAlign, {"mmdeploy", "MMCVMultiLevelRotatedRoiAlign", 1, 1, 0, sizeof(mmd__mmdet_roi_data), \
     mmd__mmcv_multi_level_rotated_roi_align_f32_prepare, mmd__mmcv_multi_level_roi_align_f32_eval})


/* ==== >>ops quantization ==== */
/* ONNX's linear quantization: q = saturate(round(x / scale) + zero_point), x = (q - zero_point)
   * scale, for int8 and uint8, per tensor (one scale) or per axis (one scale per index of
   `axis`). Rounding is half to even and saturation clamps to the type's range, computed as ONNX
   Runtime's MLAS does (a float division for QuantizeLinear, a float multiplier
   a_scale * b_scale / y_scale for the QLinear ops, clamped before rounding), so results match
   it bit for bit. A NaN quantizes to the type's minimum, as MLAS's max instruction gives.
   Scales must be positive and finite and zero points of the data's type: parameters known at
   prepare are checked there, the others at each eval (a data-dependent MMD_ERR_INVALID_MODEL).
   Not supported: opset 21's blocked quantization and int4/int16/float8 types (the kernels end
   at opset 20 for QuantizeLinear and DequantizeLinear; float8 zero points are MMD_ERR_DTYPE).
   The integer products (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv) all go through
   mmd__qgemm on int16 operands whose zero points are already subtracted. */

/* 1 for the 8-bit types these kernels quantize to. */
static int32_t mmd__q_is8(int32_t dtype) { return dtype == MMD_DTYPE_INT8 || dtype == MMD_DTYPE_UINT8; }

/* Fails with MMD_ERR_DTYPE unless input i is int8 or uint8 (MMD_ERR_INVALID_MODEL if absent). */
static mmd_status mmd__q_want8(mmd_kernel_ctx *c, int32_t i) {
    mmd_status st = mmd__want_present(c, i);
    const mmd_tensor *t;
    if (st != MMD_OK) return st;
    t = c->inputs[i];
    if (mmd__q_is8(t->dtype)) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input %d '%s' is %s, expects int8 or uint8", (int)i,
                           t->name ? t->name : "", mmd_dtype_name(t->dtype));
}

/* Input i, when present, has the dtype of input like (a zero point and its data). */
static mmd_status mmd__q_want_like(mmd_kernel_ctx *c, int32_t i, int32_t like) {
    const mmd_tensor *t = i < c->input_count ? c->inputs[i] : NULL;
    if (!t || t->dtype == c->inputs[like]->dtype) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_DTYPE, "zero point input %d '%s' is %s but input %d is %s", (int)i,
                           t->name ? t->name : "", mmd_dtype_name(t->dtype), (int)like,
                           mmd_dtype_name(c->inputs[like]->dtype));
}

/* Input i (a scale or zero point) holds one value (rank 0, or rank 1 of length 1) or, when per
   > 0, a 1-D array of per values; *count gets 1 or per. Anything else is MMD_ERR_SHAPE. */
static mmd_status mmd__q_param(mmd_kernel_ctx *c, int32_t i, const char *what, int64_t per, int64_t *count) {
    const mmd_tensor *t = c->inputs[i];
    char tx[96];
    *count = 1;
    if (t->rank == 0 || (t->rank == 1 && t->dims[0] == 1)) return MMD_OK;
    if (per > 0 && t->rank == 1 && t->dims[0] == per) {
        *count = per;
        return MMD_OK;
    }
    if (per > 0)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s input %d '%s' has shape %s, expects one value or %lld",
                               what, (int)i, t->name ? t->name : "", mmd__dims_text(tx, sizeof tx, t->rank, t->dims),
                               (long long)per);
    return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s input %d '%s' has shape %s, expects one value", what, (int)i,
                           t->name ? t->name : "", mmd__dims_text(tx, sizeof tx, t->rank, t->dims));
}

/* Element i of a scale tensor (float32, float16 or bfloat16). */
static float mmd__q_scale_at(const mmd_tensor *t, int64_t i) { return (float)mmd__load_float(t->dtype, t->data, i); }

/* Element i of a zero point tensor, 0 when it is absent. */
static int32_t mmd__q_zp_at(const mmd_tensor *t, int64_t i) {
    return t ? (int32_t)mmd__load_int(t->dtype, t->data, i) : 0;
}

/* Checks the values of scale input si (every element positive and finite: QuantizeLinear divides
   by it and a zero, negative or NaN scale means a broken model) and, when zero_only, that zero
   point input zi (-1: none) is all zeros (DequantizeLinear of int32 data). */
static mmd_status mmd__q_check_values(mmd_kernel_ctx *c, int32_t si, int32_t zi, int32_t zero_only) {
    const mmd_tensor *s = c->inputs[si], *z = zi >= 0 && zi < c->input_count ? c->inputs[zi] : NULL;
    int64_t i, n = mmd_tensor_numel(s);
    for (i = 0; i < n; ++i) {
        float v = mmd__q_scale_at(s, i);
        if (!(v > 0.0f && v <= FLT_MAX))
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL,
                                   "scale input %d '%s' element %lld is %g; scales must be positive and finite",
                                   (int)si, s->name ? s->name : "", (long long)i, (double)v);
    }
    if (z && zero_only)
        for (i = 0, n = mmd_tensor_numel(z); i < n; ++i)
            if (mmd__q_zp_at(z, i) != 0)
                return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "zero point input %d '%s' element %lld is %ld; int32 data takes 0",
                                       (int)zi, z->name ? z->name : "", (long long)i, (long)mmd__q_zp_at(z, i));
    return MMD_OK;
}

/* 1 when inputs i and j (j may be absent or -1) have values now. */
static int32_t mmd__q_known(const mmd_kernel_ctx *c, int32_t i, int32_t j) {
    const mmd_tensor *t = j >= 0 && j < c->input_count ? c->inputs[j] : NULL;
    return mmd_tensor_is_const(c->inputs[i]) && (!t || mmd_tensor_is_const(t));
}

/* v (in quanta, relative to the zero point) rounded half to even and saturated to [lo, hi], the
   type's range minus the zero point, both integers within 2^22 of 0. A NaN gives lo. Adding and
   subtracting 1.5 * 2^23 rounds in the FPU's default round-to-nearest-even mode, and unlike
   rintf vectorises everywhere; the assignment to t rounds to float even where the compiler
   evaluates in wider precision (C99 5.1.2.3). */
static int32_t mmd__q_round(float v, float lo, float hi) {
    float t;
    v = v >= lo ? v : lo;
    v = v <= hi ? v : hi;
    t = v + 12582912.0f;
    return (int32_t)(t - 12582912.0f);
}

#if defined(MMD__X86)
/* Eight values in quanta clamped to [lo, hi], rounded half to even and moved by zp, stored as
   eight int8 or uint8: mmd__q_round's float operations in the same order, so the same bytes
   (vmaxps returns its second operand, lo, for a NaN as the scalar comparison does). */
MMD__TARGET_AVX2 static inline void mmd__q_store8_avx2(__m256 v, __m256 lo, __m256 hi, __m256i zp, int32_t dtype,
                                                       void *y) {
    __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256i q;
    __m128i h;
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    q = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_sub_ps(_mm256_add_ps(v, magic), magic)), zp);
    h = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    h = dtype == MMD_DTYPE_INT8 ? _mm_packs_epi16(h, h) : _mm_packus_epi16(h, h);
    _mm_storel_epi64((__m128i *)y, h);
}

/* The first n rounded down to 8 of mmd__quantize_row; returns how many it did. */
MMD__TARGET_AVX2 static int64_t mmd__quantize_avx2(const float *x, int64_t n, float scale, int32_t zp, int32_t dtype,
                                                   void *y, float lo, float hi) {
    __m256 vs = _mm256_set1_ps(scale), vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    __m256i vz = _mm256_set1_epi32(zp);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8)
        mmd__q_store8_avx2(_mm256_div_ps(_mm256_loadu_ps(x + i), vs), vlo, vhi, vz, dtype, (char *)y + i);
    return i;
}
#elif defined(MMD__NEON)
/* mmd__q_store8_avx2 on NEON: FMAXNM and FMINNM give lo for a NaN as the scalar comparisons do,
   and FCVTNS rounds half to even as the 1.5 * 2^23 addition does for values this small. */
static void mmd__q_store8_neon(float32x4_t v0, float32x4_t v1, float32x4_t lo, float32x4_t hi, int32x4_t zp,
                               int32_t dtype, void *y) {
    int16x8_t q;
    v0 = vminnmq_f32(vmaxnmq_f32(v0, lo), hi);
    v1 = vminnmq_f32(vmaxnmq_f32(v1, lo), hi);
    q = vcombine_s16(vmovn_s32(vaddq_s32(vcvtnq_s32_f32(v0), zp)), vmovn_s32(vaddq_s32(vcvtnq_s32_f32(v1), zp)));
    if (dtype == MMD_DTYPE_INT8) vst1_s8((int8_t *)y, vmovn_s16(q));
    else vst1_u8((uint8_t *)y, vqmovun_s16(q));
}

/* mmd__quantize_avx2 on NEON (FDIV is the scalar's division). */
static int64_t mmd__quantize_neon(const float *x, int64_t n, float scale, int32_t zp, int32_t dtype, void *y, float lo,
                                  float hi) {
    float32x4_t vs = vdupq_n_f32(scale), vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    int32x4_t vz = vdupq_n_s32(zp);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8)
        mmd__q_store8_neon(vdivq_f32(vld1q_f32(x + i), vs), vdivq_f32(vld1q_f32(x + i + 4), vs), vlo, vhi, vz, dtype,
                           (char *)y + i);
    return i;
}
#endif

/* Quantizes n floats with one scale and zero point into an int8 or uint8 row; AVX2 or NEON when
   simd (mmd__q_simd). */
static void mmd__quantize_row(const float *MMD__RESTRICT x, int64_t n, float scale, int32_t zp, int32_t dtype,
                              void *MMD__RESTRICT y, int32_t simd) {
    int64_t i = 0;
    float lo = (float)((dtype == MMD_DTYPE_INT8 ? -128 : 0) - zp), hi = (float)((dtype == MMD_DTYPE_INT8 ? 127 : 255) - zp);
#if defined(MMD__X86)
    if (simd) i = mmd__quantize_avx2(x, n, scale, zp, dtype, y, lo, hi);
#elif defined(MMD__NEON)
    if (simd) i = mmd__quantize_neon(x, n, scale, zp, dtype, y, lo, hi);
#else
    (void)simd;
#endif
    if (dtype == MMD_DTYPE_INT8) {
        int8_t *o = (int8_t *)y;
        for (; i < n; ++i) o[i] = (int8_t)(mmd__q_round(x[i] / scale, lo, hi) + zp);
    } else {
        uint8_t *o = (uint8_t *)y;
        for (; i < n; ++i) o[i] = (uint8_t)(mmd__q_round(x[i] / scale, lo, hi) + zp);
    }
}

/* 1 when this CPU takes the AVX2 or NEON paths of this section. */
static int32_t mmd__q_simd(void) { return mmd__isa() != MMD__ISA_PORTABLE; }

typedef struct mmd__quant_data {
    int64_t outer, n, inner;            /* x seen as [outer, n, inner]; n is 1 per tensor */
    int32_t per_axis;                   /* the scale and zero point hold n values */
    int32_t qtype;                      /* QuantizeLinear's output, DequantizeLinear's input */
    int32_t checked;                    /* the parameters' values were checked at prepare */
    int32_t simd;                       /* mmd__q_simd() */
} mmd__quant_data;

/* What QuantizeLinear and DequantizeLinear share: input 1 the scale (float32; float16 and
   bfloat16 from opset 19), input 2 the optional zero point of the quantized type, both one
   value or (from opset 13) 1-D along `axis` (default 1) of x. */
static mmd_status mmd__qdq_prepare(mmd_kernel_ctx *c, mmd__quant_data *p) {
    const mmd_tensor *x, *s, *z;
    int64_t axis = 1, count, zcount;
    int32_t ax = 0;
    mmd_status st = mmd__check_io(c, 2, 3, 1);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    s = c->inputs[1];
    z = c->input_count > 2 ? c->inputs[2] : NULL;
    if (s->dtype != MMD_DTYPE_FLOAT32 &&
        (c->opset < 19 || (s->dtype != MMD_DTYPE_FLOAT16 && s->dtype != MMD_DTYPE_BFLOAT16)))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "scale '%s' is %s, expects float32%s", s->name ? s->name : "",
                               mmd_dtype_name(s->dtype), c->opset < 19 ? "" : ", float16 or bfloat16");
    if (c->opset >= 13 && (st = mmd_attr_get_int(c, "axis", 1, &axis)) != MMD_OK) return st;
    p->outer = p->n = 1;
    p->inner = mmd_tensor_numel(x);
    p->per_axis = 0;
    if (s->rank == 1 && s->dims[0] != 1 && c->opset >= 13) {
        if ((st = mmd__norm_axis(c, axis, x->rank, &ax)) != MMD_OK) return st;
        mmd__axis_extents(x, ax, &p->outer, &p->n, &p->inner);
        p->per_axis = 1;
    }
    if ((st = mmd__q_param(c, 1, "scale", p->n, &count)) != MMD_OK) return st;
    if (z) {
        char ts[96], tz[96];
        if ((st = mmd__q_param(c, 2, "zero point", p->n, &zcount)) != MMD_OK) return st;
        if (zcount != count)
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "zero point shape %s does not match scale shape %s",
                                   mmd__dims_text(tz, sizeof tz, z->rank, z->dims),
                                   mmd__dims_text(ts, sizeof ts, s->rank, s->dims));
    }
    if (count == 1) {
        /* One scale: the whole tensor is one row. */
        p->outer = p->n = 1;
        p->inner = mmd_tensor_numel(x);
        p->per_axis = 0;
    }
    return MMD_OK;
}

/* QuantizeLinear 10 to 20: y = saturate(round(x / scale) + zero_point); x float32 (float16 and
   bfloat16 from 19), y the zero point's type, uint8 when it is absent. */
static mmd_status mmd__quantize_prepare(mmd_kernel_ctx *c) {
    mmd__quant_data *p = (mmd__quant_data *)c->op_data;
    const mmd_tensor *x, *z;
    mmd_status st = mmd__qdq_prepare(c, p);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    z = c->input_count > 2 ? c->inputs[2] : NULL;
    if (x->dtype != MMD_DTYPE_FLOAT32 &&
        (c->opset < 19 || (x->dtype != MMD_DTYPE_FLOAT16 && x->dtype != MMD_DTYPE_BFLOAT16)))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input '%s' is %s, expects float32%s", x->name ? x->name : "",
                               mmd_dtype_name(x->dtype), c->opset < 19 ? "" : ", float16 or bfloat16");
    if (z && !mmd__q_is8(z->dtype))
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "zero point '%s' is %s; this build quantizes to int8 and uint8 only",
                               z->name ? z->name : "", mmd_dtype_name(z->dtype));
    p->qtype = z ? z->dtype : MMD_DTYPE_UINT8;
    p->simd = mmd__q_simd();
    p->checked = mmd__q_known(c, 1, 2);
    if (p->checked && (st = mmd__q_check_values(c, 1, 2, 0)) != MMD_OK) return st;
    return mmd__set_output(c, 0, p->qtype, x->rank, x->dims);
}

/* One scale and zero point over a whole tensor, split over the threads (QuantizeLinear and
   DequantizeLinear between int8 operators run on every activation). */
typedef struct mmd__qdq_job {
    const mmd__quant_data *p;
    const mmd_tensor *x;
    mmd_tensor *y;
    float scale;
    int32_t zp;
} mmd__qdq_job;

static void mmd__quantize_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__qdq_job *j = (const mmd__qdq_job *)data;
    (void)share;
    mmd__quantize_row((const float *)j->x->data + lo, hi - lo, j->scale, j->zp, j->p->qtype, (char *)j->y->data + lo,
                      j->p->simd);
}

static mmd_status mmd__quantize_eval(mmd_kernel_ctx *c) {
    const mmd__quant_data *p = (const mmd__quant_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *s = c->inputs[1], *z = c->input_count > 2 ? c->inputs[2] : NULL;
    char *y = (char *)c->outputs[0]->data;
    int64_t o, a, i, row = 0;
    mmd_status st;
    if (!p->checked && (st = mmd__q_check_values(c, 1, 2, 0)) != MMD_OK) return st;
    if (!p->per_axis && x->dtype == MMD_DTYPE_FLOAT32) {
        mmd__qdq_job j;
        j.p = p, j.x = x, j.y = c->outputs[0], j.scale = mmd__q_scale_at(s, 0), j.zp = mmd__q_zp_at(z, 0);
        mmd__parallel_range(c, p->inner, MMD__EW_GRAIN, 64, INT32_MAX, mmd__quantize_range, &j);
        return MMD_OK;
    }
    for (o = 0; o < p->outer; ++o)
        for (a = 0; a < p->n; ++a, row += p->inner) {
            float scale = mmd__q_scale_at(s, p->per_axis ? a : 0);
            int32_t zp = mmd__q_zp_at(z, p->per_axis ? a : 0);
            if (x->dtype == MMD_DTYPE_FLOAT32) {
                mmd__quantize_row((const float *)x->data + row, p->inner, scale, zp, p->qtype, y + row, p->simd);
                continue;
            }
            /* float16 and bfloat16 go through float32 a chunk at a time. */
            for (i = 0; i < p->inner; i += 64) {
                float buf[64];
                int64_t j, len = p->inner - i < 64 ? p->inner - i : 64;
                for (j = 0; j < len; ++j) buf[j] = (float)mmd__load_float(x->dtype, x->data, row + i + j);
                mmd__quantize_row(buf, len, scale, zp, p->qtype, y + row + i, p->simd);
            }
        }
    return MMD_OK;
}

#if defined(MMD__X86)
/* The first n rounded down to 8 of a DequantizeLinear row of int8 or uint8 q: the scalar's
   (float)(q - zp) * scale, eight at a time. Returns how many it did. */
MMD__TARGET_AVX2 static int64_t mmd__dequantize_avx2(const void *q, int64_t n, float scale, int32_t zp, int32_t qtype,
                                                     float *y) {
    __m256 vs = _mm256_set1_ps(scale);
    __m256i vz = _mm256_set1_epi32(zp);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)((const char *)q + i));
        __m256i v = qtype == MMD_DTYPE_INT8 ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
        _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(v, vz)), vs));
    }
    return i;
}
#elif defined(MMD__NEON)
/* mmd__dequantize_avx2 on NEON. */
static int64_t mmd__dequantize_neon(const void *q, int64_t n, float scale, int32_t zp, int32_t qtype, float *y) {
    float32x4_t vs = vdupq_n_f32(scale);
    int32x4_t vz = vdupq_n_s32(zp);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        const char *b = (const char *)q + i;
        int16x8_t v = qtype == MMD_DTYPE_INT8 ? vmovl_s8(vld1_s8((const int8_t *)b))
                                              : vreinterpretq_s16_u16(vmovl_u8(vld1_u8((const uint8_t *)b)));
        vst1q_f32(y + i, vmulq_f32(vcvtq_f32_s32(vsubq_s32(vmovl_s16(vget_low_s16(v)), vz)), vs));
        vst1q_f32(y + i + 4, vmulq_f32(vcvtq_f32_s32(vsubq_s32(vmovl_s16(vget_high_s16(v)), vz)), vs));
    }
    return i;
}
#endif

/* DequantizeLinear 10 to 20: y = (x - zero_point) * scale; x int8, uint8 or int32 (whose zero
   point must be 0), y float32 (from opset 19 the scale's type). */
static mmd_status mmd__dequantize_prepare(mmd_kernel_ctx *c) {
    mmd__quant_data *p = (mmd__quant_data *)c->op_data;
    const mmd_tensor *x;
    mmd_status st = mmd__qdq_prepare(c, p);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if (!mmd__q_is8(x->dtype) && x->dtype != MMD_DTYPE_INT32)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "input '%s' is %s, expects int8, uint8 or int32",
                               x->name ? x->name : "", mmd_dtype_name(x->dtype));
    if ((st = mmd__q_want_like(c, 2, 0)) != MMD_OK) return st;
    p->qtype = x->dtype;
    p->simd = mmd__q_simd();
    p->checked = mmd__q_known(c, 1, 2);
    if (p->checked && (st = mmd__q_check_values(c, 1, 2, x->dtype == MMD_DTYPE_INT32)) != MMD_OK) return st;
    return mmd__set_output(c, 0, c->inputs[1]->dtype, x->rank, x->dims);
}

/* Elements [row, row + n) of DequantizeLinear with one scale and zero point. */
static void mmd__dequantize_run(const mmd__quant_data *p, const mmd_tensor *x, mmd_tensor *y, int64_t row, int64_t n,
                                float scale, int32_t zp) {
    int64_t i = 0;
#if defined(MMD__X86)
    if (p->simd && y->dtype == MMD_DTYPE_FLOAT32 && p->qtype != MMD_DTYPE_INT32)
        i = mmd__dequantize_avx2((const char *)x->data + row, n, scale, zp, p->qtype, (float *)y->data + row);
#elif defined(MMD__NEON)
    if (p->simd && y->dtype == MMD_DTYPE_FLOAT32 && p->qtype != MMD_DTYPE_INT32)
        i = mmd__dequantize_neon((const char *)x->data + row, n, scale, zp, p->qtype, (float *)y->data + row);
#endif
    if (y->dtype == MMD_DTYPE_FLOAT32 && p->qtype == MMD_DTYPE_UINT8) {
        const uint8_t *MMD__RESTRICT q = (const uint8_t *)x->data + row;
        float *MMD__RESTRICT out = (float *)y->data + row;
        for (; i < n; ++i) out[i] = (float)((int32_t)q[i] - zp) * scale;
    } else if (y->dtype == MMD_DTYPE_FLOAT32 && p->qtype == MMD_DTYPE_INT8) {
        const int8_t *MMD__RESTRICT q = (const int8_t *)x->data + row;
        float *MMD__RESTRICT out = (float *)y->data + row;
        for (; i < n; ++i) out[i] = (float)((int32_t)q[i] - zp) * scale;
    } else {
        /* int32 data (zero point 0) and float16 or bfloat16 outputs. */
        for (i = 0; i < n; ++i)
            mmd__store_float(y->dtype, y->data, row + i,
                             (double)((float)(mmd__load_int(p->qtype, x->data, row + i) - zp) * scale));
    }
}

static void mmd__dequantize_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__qdq_job *j = (const mmd__qdq_job *)data;
    (void)share;
    mmd__dequantize_run(j->p, j->x, j->y, lo, hi - lo, j->scale, j->zp);
}


static mmd_status mmd__dequantize_eval(mmd_kernel_ctx *c) {
    const mmd__quant_data *p = (const mmd__quant_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *s = c->inputs[1], *z = c->input_count > 2 ? c->inputs[2] : NULL;
    mmd_tensor *y = c->outputs[0];
    int64_t o, a, row = 0;
    mmd_status st;
    if (!p->checked && (st = mmd__q_check_values(c, 1, 2, p->qtype == MMD_DTYPE_INT32)) != MMD_OK) return st;
    if (!p->per_axis) {
        mmd__qdq_job j;
        j.p = p, j.x = x, j.y = y, j.scale = mmd__q_scale_at(s, 0), j.zp = mmd__q_zp_at(z, 0);
        mmd__parallel_range(c, p->inner, MMD__EW_GRAIN, 64, INT32_MAX, mmd__dequantize_range, &j);
        return MMD_OK;
    }
    for (o = 0; o < p->outer; ++o)
        for (a = 0; a < p->n; ++a, row += p->inner)
            mmd__dequantize_run(p, x, y, row, p->inner, mmd__q_scale_at(s, a), mmd__q_zp_at(z, a));
    return MMD_OK;
}

/* DynamicQuantizeLinear 11: uint8 y with the scale and zero point computed from x's range
   (widened to hold 0) as ONNX Runtime does: scale (max - min) / 255, or 1 when x is all zeros
   (the spec would divide by 0), zero point round(saturate(0 - min / scale)). NaNs are skipped
   by the range and quantize to 0. */
static mmd_status mmd__dynamic_quantize_prepare(mmd_kernel_ctx *c) {
    const mmd_tensor *x;
    int64_t none[1] = {0};
    int32_t i;
    mmd_status st = mmd__check_io(c, 1, 1, 3);
    if (st == MMD_OK) st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    if ((st = mmd__set_output(c, 0, MMD_DTYPE_UINT8, x->rank, x->dims)) != MMD_OK) return st;
    for (i = 1; i < c->output_count; ++i)
        if (c->outputs[i] && (st = mmd__set_output(c, i, i == 1 ? MMD_DTYPE_FLOAT32 : MMD_DTYPE_UINT8, 0, none)) != MMD_OK)
            return st;
    return MMD_OK;
}

static mmd_status mmd__dynamic_quantize_eval(mmd_kernel_ctx *c) {
    const float *x = (const float *)c->inputs[0]->data;
    int64_t i, n = mmd_tensor_numel(c->inputs[0]);
    float lo = 0.0f, hi = 0.0f, scale;
    int32_t zp;
    for (i = 0; i < n; ++i) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    /* -lo / scale lies in [0, 255] (NaN for infinite inputs, which the rounding clamps to 0). */
    zp = mmd__q_round(0.0f - lo / scale, 0.0f, 255.0f);
    mmd__quantize_row(x, n, scale, zp, MMD_DTYPE_UINT8, c->outputs[0]->data, mmd__q_simd());
    if (c->output_count > 1 && c->outputs[1]) *(float *)c->outputs[1]->data = scale;
    if (c->output_count > 2 && c->outputs[2]) *(uint8_t *)c->outputs[2]->data = (uint8_t)zp;
    return MMD_OK;
}

/* QLinearAdd 1 (com.microsoft, ONNX Runtime's contrib op; also what mmd__rw_qadd makes of
   DequantizeLinear, DequantizeLinear -> Add (-> Relu) -> QuantizeLinear, ResNet's residual):
   C = quantize(dequantize(A) + dequantize(B)), one scale and zero point each (a zero point
   absent is 0), A, B and C of one 8-bit type and A and B of one shape (no broadcasting:
   MMD_ERR_SHAPE). Computed as the float nodes it stands for compute it, in their order,
   (float)(a - za) * sa + (float)(b - zb) * sb, divided by sc, rounded and saturated as
   QuantizeLinear does, so the bytes are those of the float path (ORT's own QLinearAdd computes
   otherwise and may differ by one quantum). Attribute activation "Relu" clamps at C's zero
   point: the quantizer is monotonic and takes 0 to the zero point, so this is exactly a Relu
   before the quantization. One pass over bytes instead of five over floats. */
typedef struct mmd__qadd_data {
    int32_t checked, simd, relu;
} mmd__qadd_data;

static mmd_status mmd__qadd_check(mmd_kernel_ctx *c) {
    mmd_status st = mmd__q_check_values(c, 1, -1, 0);
    if (st == MMD_OK) st = mmd__q_check_values(c, 4, -1, 0);
    return st == MMD_OK ? mmd__q_check_values(c, 6, -1, 0) : st;
}

static mmd_status mmd__qadd_prepare(mmd_kernel_ctx *c) {
    mmd__qadd_data *p = (mmd__qadd_data *)c->op_data;
    const mmd_tensor *a, *b;
    int64_t count;
    int32_t i;
    mmd__act act;
    char ta[96], tb[96];
    mmd_status st = mmd__check_io(c, 2, 8, 1); /* the zero points are optional: checked below */
    if (st == MMD_OK) st = mmd__q_want8(c, 0);
    if (st == MMD_OK) st = mmd__q_want8(c, 3);
    if (st == MMD_OK) st = mmd__want_present(c, 6);
    if (st == MMD_OK) st = mmd__q_want_like(c, 3, 0);
    if (st == MMD_OK) st = mmd__q_want_like(c, 2, 0);
    if (st == MMD_OK) st = mmd__q_want_like(c, 5, 0);
    if (st == MMD_OK) st = mmd__q_want_like(c, 7, 0);
    for (i = 1; i < 8 && st == MMD_OK; ++i) {
        if (i == 3 || ((i == 2 || i == 5 || i == 7) && (i >= c->input_count || !c->inputs[i]))) continue;
        if (i == 1 || i == 4 || i == 6) st = mmd__want_dtype(c, i, MMD_DTYPE_FLOAT32);
        if (st == MMD_OK) st = mmd__q_param(c, i, i == 1 || i == 4 || i == 6 ? "scale" : "zero point", 0, &count);
    }
    if (st == MMD_OK) st = mmd__act_attrs(c, &act);
    if (st != MMD_OK) return st;
    if (act.kind != MMD__ACT_NONE && act.kind != MMD__ACT_RELU)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "QLinearAdd takes activation Relu only");
    a = c->inputs[0];
    b = c->inputs[3];
    for (i = 0; a->rank == b->rank && i < a->rank && a->dims[i] == b->dims[i]; ++i) {}
    if (a->rank != b->rank || i < a->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "inputs of shapes %s and %s; this build adds equal shapes only",
                               mmd__dims_text(ta, sizeof ta, a->rank, a->dims), mmd__dims_text(tb, sizeof tb, b->rank, b->dims));
    p->relu = act.kind == MMD__ACT_RELU;
    p->simd = mmd__q_simd();
    p->checked = mmd__q_known(c, 1, 2) && mmd__q_known(c, 4, 5) && mmd__q_known(c, 6, 7);
    if (p->checked && (st = mmd__qadd_check(c)) != MMD_OK) return st;
    return mmd__set_output(c, 0, a->dtype, a->rank, a->dims);
}

typedef struct mmd__qadd_job {
    const uint8_t *a, *b;
    uint8_t *y;
    float sa, sb, sc, lo, hi;
    int32_t za, zb, zc, dtype, simd;
} mmd__qadd_job;

#if defined(MMD__X86)
/* The first n rounded down to 8 of mmd__qadd_range's elements; returns how many it did. */
MMD__TARGET_AVX2 static int64_t mmd__qadd_avx2(const mmd__qadd_job *j, int64_t lo, int64_t n) {
    __m256 sa = _mm256_set1_ps(j->sa), sb = _mm256_set1_ps(j->sb), sc = _mm256_set1_ps(j->sc);
    __m256 vlo = _mm256_set1_ps(j->lo), vhi = _mm256_set1_ps(j->hi);
    __m256i za = _mm256_set1_epi32(j->za), zb = _mm256_set1_epi32(j->zb), zc = _mm256_set1_epi32(j->zc);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        __m128i qa = _mm_loadl_epi64((const __m128i *)(const void *)(j->a + lo + i));
        __m128i qb = _mm_loadl_epi64((const __m128i *)(const void *)(j->b + lo + i));
        __m256i va = j->dtype == MMD_DTYPE_INT8 ? _mm256_cvtepi8_epi32(qa) : _mm256_cvtepu8_epi32(qa);
        __m256i vb = j->dtype == MMD_DTYPE_INT8 ? _mm256_cvtepi8_epi32(qb) : _mm256_cvtepu8_epi32(qb);
        __m256 fa = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(va, za)), sa);
        __m256 fb = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(vb, zb)), sb);
        mmd__q_store8_avx2(_mm256_div_ps(_mm256_add_ps(fa, fb), sc), vlo, vhi, zc, j->dtype, j->y + lo + i);
    }
    return i;
}
#endif

static void mmd__qadd_range(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__qadd_job *j = (const mmd__qadd_job *)data;
    int64_t i = 0;
    int32_t s8 = j->dtype == MMD_DTYPE_INT8;
    (void)share;
#if defined(MMD__X86)
    if (j->simd) i = mmd__qadd_avx2(j, lo, hi - lo);
#endif
    for (i += lo; i < hi; ++i) {
        int32_t a = s8 ? (int8_t)j->a[i] : j->a[i], b = s8 ? (int8_t)j->b[i] : j->b[i];
        float fa = (float)(a - j->za) * j->sa, fb = (float)(b - j->zb) * j->sb;
        j->y[i] = (uint8_t)(mmd__q_round((fa + fb) / j->sc, j->lo, j->hi) + j->zc);
    }
}

static mmd_status mmd__qadd_eval(mmd_kernel_ctx *c) {
    const mmd__qadd_data *p = (const mmd__qadd_data *)c->op_data;
    mmd__qadd_job j;
    int32_t qmin;
    mmd_status st;
    if (!p->checked && (st = mmd__qadd_check(c)) != MMD_OK) return st;
    j.a = (const uint8_t *)c->inputs[0]->data;
    j.b = (const uint8_t *)c->inputs[3]->data;
    j.y = (uint8_t *)c->outputs[0]->data;
    j.sa = mmd__q_scale_at(c->inputs[1], 0);
    j.sb = mmd__q_scale_at(c->inputs[4], 0);
    j.sc = mmd__q_scale_at(c->inputs[6], 0);
    j.za = mmd__q_zp_at(c->inputs[2], 0);
    j.zb = mmd__q_zp_at(c->inputs[5], 0);
    j.zc = mmd__q_zp_at(c->input_count > 7 ? c->inputs[7] : NULL, 0);
    j.dtype = c->outputs[0]->dtype;
    j.simd = p->simd;
    qmin = j.dtype == MMD_DTYPE_INT8 ? -128 : 0;
    j.lo = (float)((p->relu ? j.zc : qmin) - j.zc);
    j.hi = (float)((j.dtype == MMD_DTYPE_INT8 ? 127 : 255) - j.zc);
    mmd__parallel_range(c, mmd_tensor_numel(c->outputs[0]), MMD__EW_GRAIN, 64, INT32_MAX, mmd__qadd_range, &j);
    return MMD_OK;
}

/* ---- the integer product ------------------------------------------------------------------
   C (m x n int32, row stride ldc) = (A - za) (B - zb) for A (m x k) and B (k x n) of int8 or
   uint8, za one zero point per row of A or one for all, zb one per column of B or one. Blocked
   as >>ops gemm is, on bytes: A in row panels of MMD__QGEMM_MR rows and B in column panels of
   NR columns, both in groups of four along K ([k/4][MR or NR][4] bytes, zero-filled past k), so
   that one 32-bit lane of the micro-kernel sums four products of one row and one column. A is
   moved to int8 and B to uint8 by flipping the top bit where needed (the zero point moves with
   it: a - za = a' - za'), which is the operand pair AVX-512 VNNI's vpdpbusd multiplies; then
       sum (a' - za')(b' - zb') = sum a'b' - zb' sum a' - za' sum b' + k za' zb',
   the row sums of A and column sums of B taken once (at packing for constant operands), applied
   after the last K block. Micro-kernels: AMX 16 x 32 (TDPBSUD on tiles of 16 rows of 64 K
   values: A packed [k/64][16][64] per panel, K padded to 64, chosen for K of 64 and more, with K
   unblocked up to 4608; ONNX Runtime uses AMX on such CPUs too); AVX-512 VNNI 6 x 32
   (vpdpbusd); AVX2 6 x 8, also for AVX-512 CPUs without VNNI (bytes widened to int16 and
   summed in pairs with vpmaddwd, exact: vpmaddubsw's int16 pair sums would saturate at
   255 * 127 * 2, a loss ONNX Runtime's MLAS accepts on such CPUs); on AArch64 SDOT 6 x 16 where the CPU has the dot product, else NEON
   6 x 8 (bytes widened to int16, SMLAL by lane); on 32-bit Arm with the DSP extension
   (Cortex-M4, M7, M33) 6 x 8 with SMLAD in place of the portable one, with MVE (Cortex-M55)
   6 x 8 with VMLADAVA; portable C 6 x 8. Every sum wraps modulo
   2^32 (unsigned arithmetic, never undefined) as ONNX Runtime's int32 accumulation does, and
   is taken in one order whatever the thread count: threads split the columns (or the rows when
   C is narrow) as mmd__gemm_run does. */
#define MMD__QGEMM_MR 6
#ifdef MMD_CONV_SMALL
/* Firmware: blocks sized for a scratch of a few kilobytes, as MMD_GEMM_KC, _MC and _NC are there
   (the digits' second convolution packs 3 KB instead of 14). */
#define MMD__QGEMM_KQ 16
#define MMD__QGEMM_MC 12
#define MMD__QGEMM_NC 32
#else
#define MMD__QGEMM_KQ 128               /* K block, in groups of four: 512 values */
#define MMD__QGEMM_MC 120               /* rows of A per block */
#define MMD__QGEMM_NC 512               /* columns of B per block */
#endif

enum { MMD__QG_PORTABLE, MMD__QG_AVX2, MMD__QG_VNNI, MMD__QG_NEON, MMD__QG_SDOT, MMD__QG_AMX };

typedef void (*mmd__qgemm_ukernel)(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c, int64_t ldc,
                                   int32_t add);

/* A whole MR x 32 tile requantized by the VNNI micro-kernel itself: per row the value added to
   its sums (the bias and the zero-point term, wrapping) and its multiplier, the clamp relative
   to the zero point (mmd__requantize_row's lo and hi), the tile's first output byte, the sums
   of the K blocks before this last one (row stride ldp), or NULL when there are none, and how
   many of the tile's rows exist (the last panel of A may have fewer than MR: the kernel sums
   its zero rows but neither reads nor writes past them). */
typedef struct mmd__qgemm_rq {
    uint32_t bias[MMD__QGEMM_MR];
    float mult[MMD__QGEMM_MR];
    float lo, hi;
    int32_t zp;
    char *y;
    int64_t ldy;
    const int32_t *part;
    int64_t ldp;
    int32_t rows;
} mmd__qgemm_rq;

#if defined(MMD__X86)
/* 1 when this CPU's AMX multiplies int8 tiles (cpuid 7: AMX-TILE, EDX bit 24, and AMX-INT8, bit
   25) and Linux lets this process use the tile data: since Linux 5.16 a process asks once
   (arch_prctl ARCH_REQ_XCOMP_PERM, 0x1023, for XFEATURE_XTILEDATA, 18; system call 158) before
   its first tile instruction, which otherwise faults, and ONNX Runtime asks the same. Asking
   again is harmless: the permission is the process's and only grows. Elsewhere (also the x32
   ABI, whose system calls are numbered apart), and with MMD_NO_AMX, no AMX. */
static int32_t mmd__amx_int8(void) {
#if defined(__linux__) && !defined(__ILP32__) && !defined(MMD_NO_AMX)
    unsigned int a, b, c, d;
    long r;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d >> 24 & 1u) || !(d >> 25 & 1u)) return 0;
    __asm__ volatile("syscall" : "=a"(r) : "a"(158L), "D"(0x1023L), "S"(18L) : "rcx", "r11", "memory");
    return r == 0;
#else
    return 0;
#endif
}
#endif

/* The micro-kernel this CPU runs best (mmd__isa, and VNNI on top of AVX-512, AMX on top of that,
   the dot product on top of NEON). */
static int32_t mmd__qgemm_best(void) {
    int32_t isa = mmd__isa();
#if defined(MMD__X86)
    if (isa == MMD__ISA_AVX512 && __builtin_cpu_supports("avx512vnni")) return mmd__amx_int8() ? MMD__QG_AMX : MMD__QG_VNNI;
#elif defined(MMD__NEON_DOT)
    if (isa == MMD__ISA_NEON && mmd__neon_dotprod()) return MMD__QG_SDOT;
#endif
    if (isa == MMD__ISA_NEON) return MMD__QG_NEON;
    return isa == MMD__ISA_AVX512 || isa == MMD__ISA_AVX2 ? MMD__QG_AVX2 : MMD__QG_PORTABLE;
}

/* The kernel for a product of depth k: the best, except that AMX pads K to a multiple of 64,
   which where it adds more than a quarter costs more than its wider steps give: MobileNetV2's
   1x1 convolution of 24 input channels (144 x 24 x 3136) ran at 0.41 ms with AMX, 0.35 ms with
   VNNI, and ResNet-18's first convolution (K 147, padded to 192) at 1.74 ms against 1.45 (the
   best of four profiles on the loaded machine). */
static int32_t mmd__qgemm_path(int64_t k) {
    int32_t best = mmd__qgemm_best();
    return best == MMD__QG_AMX && mmd__round_up(k, 64) * 4 > k * 5 ? MMD__QG_VNNI : best;
}

static int64_t mmd__qgemm_nr(int32_t path) {
    return path == MMD__QG_VNNI || path == MMD__QG_AMX ? 32 : path == MMD__QG_SDOT ? 16 : 8;
}

/* Rows of A per panel, and K groups (of four) per step of the micro-kernel, to which the packed
   forms and K blocks are padded: AMX multiplies 16 rows of 64 K values at a time (one tile), the
   other kernels 6 rows of 4. */
static int64_t mmd__qgemm_mr(int32_t path) {
#if defined(MMD__X86)
    if (path == MMD__QG_AMX) return 16;
#endif
    (void)path;
    return MMD__QGEMM_MR;
}
/* log2 of the bytes of K a panel row holds per step: 2 (4 values) or, for AMX, 6 (64). */
static int32_t mmd__qgemm_ksh(int32_t path) {
#if defined(MMD__X86)
    if (path == MMD__QG_AMX) return 6;
#endif
    (void)path;
    return 2;
}
static int64_t mmd__qgemm_kg(int32_t path) { return (int64_t)1 << (mmd__qgemm_ksh(path) - 2); }

/* Blocking: at most *kqb K groups per block and *ncb columns per block of B, for a product of
   kq K groups (padded). AMX takes K whole up to 4608 values (ResNet-18's deepest 3x3 layer), so
   that each tile's sums stay in its registers until they are requantized, with fewer columns the
   deeper K is, so that the block of B stays near the others' 256 KB. */
static void mmd__qgemm_blocking(int64_t kq, int32_t path, int64_t *kqb, int64_t *ncb) {
    int64_t kmax = MMD__QGEMM_KQ, nc = MMD__QGEMM_NC;
#if defined(MMD__X86)
    if (path == MMD__QG_AMX) {
        kmax = 1152;
        nc = kq < MMD__QGEMM_KQ ? nc : MMD__QGEMM_NC * MMD__QGEMM_KQ / (kq < kmax ? kq : kmax) / 32 * 32;
        if (nc < 32) nc = 32;
    }
#endif
    (void)path;
    *kqb = kq < kmax ? kq : kmax;
    *ncb = nc;
}

#if !defined(MMD__ARM_DSP) && !defined(MMD__ARM_MVE)
/* Portable 6 x 8 micro-kernel: C (add: plus C) = the tile's sums over kq groups of four. Each
   group of B is first turned into four rows of eight int16, so that the inner loops are
   int16 x int16 -> int32 products over eight contiguous columns with constant bounds, which
   compilers vectorise even for SSE2 (pmaddwd-like widening; a 32-bit multiply would not). */
static void mmd__qgemm_ukernel_c(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c, int64_t ldc,
                                 int32_t add) {
    uint32_t acc[MMD__QGEMM_MR][8];
    int64_t q;
    int32_t i, j, t;
    memset(acc, 0, sizeof acc);
    for (q = 0; q < kq; ++q, a += MMD__QGEMM_MR * 4, b += 32) {
        int16_t bv[4][8];
        for (t = 0; t < 4; ++t)
            for (j = 0; j < 8; ++j) bv[t][j] = b[4 * j + t];
        for (i = 0; i < MMD__QGEMM_MR; ++i)
            for (t = 0; t < 4; ++t) {
                int16_t av = a[4 * i + t];
                for (j = 0; j < 8; ++j) acc[i][j] += (uint32_t)(av * bv[t][j]);
            }
    }
    for (i = 0; i < MMD__QGEMM_MR; ++i)
        for (j = 0; j < 8; ++j) c[i * ldc + j] = (int32_t)(acc[i][j] + (add ? (uint32_t)c[i * ldc + j] : 0u));
}
#elif defined(MMD__ARM_MVE)
/* The tile with MVE: per step four groups of K (16 values) of a row of A and of a column of B
   gathered into one vector each (VLDRW gathers words 24 and 32 bytes apart in the panels; the
   last step's missing groups are zeroed by the tail predicate, so their products vanish), the
   bytes of B moved to int8 (b ^ 0x80 = b - 128) since VMLADAVA multiplies bytes of one
   signedness, and VMLADAVA adds the 16 products to the row's and column's sum; 128 times the
   row's sum of A (VADDVA) puts back what the move took off. Every sum wraps modulo 2^32, as the
   portable kernel's do, so the sums are the same. */
static void mmd__qgemm_ukernel_mve(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c, int64_t ldc,
                                   int32_t add) {
    const uint32x4_t oa = {0, 4 * MMD__QGEMM_MR, 8 * MMD__QGEMM_MR, 12 * MMD__QGEMM_MR}, ob = {0, 32, 64, 96};
    const int8x16_t flip = vdupq_n_s8(-128);
    int32_t s[MMD__QGEMM_MR][8], asum[MMD__QGEMM_MR];
    int64_t q;
    int32_t i, j;
    memset(s, 0, sizeof s);
    memset(asum, 0, sizeof asum);
    for (q = 0; q < kq; q += 4, a += 16 * MMD__QGEMM_MR, b += 128) {
        mve_pred16_t p = vctp32q((uint32_t)(kq - q < 4 ? kq - q : 4));
        int8x16_t av[MMD__QGEMM_MR];
        for (i = 0; i < MMD__QGEMM_MR; ++i) {
            av[i] = vreinterpretq_s8_s32(vldrwq_gather_offset_z_s32((const int32_t *)(const void *)(a + 4 * i), oa, p));
            asum[i] = vaddvaq_s8(asum[i], av[i]);
        }
        for (j = 0; j < 8; ++j) {
            int8x16_t bv = veorq_s8(
                vreinterpretq_s8_s32(vldrwq_gather_offset_z_s32((const int32_t *)(const void *)(b + 4 * j), ob, p)), flip);
            for (i = 0; i < MMD__QGEMM_MR; ++i) s[i][j] = vmladavaq_s8(s[i][j], av[i], bv);
        }
    }
    for (i = 0; i < MMD__QGEMM_MR; ++i)
        for (j = 0; j < 8; ++j)
            c[i * ldc + j] = (int32_t)((uint32_t)s[i][j] + 128u * (uint32_t)asum[i] + (add ? (uint32_t)c[i * ldc + j] : 0u));
}
#else
/* Four bytes of a packed panel as one word (memcpy: no alignment or aliasing question; one
   LDR on these cores), and the word rotated right by 8, which brings bytes 1 and 3 where
   SXTB16 and UXTB16 take bytes 0 and 2. */
static uint32_t mmd__q_word(const void *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint32_t mmd__q_ror8(uint32_t v) { return v >> 8 | v << 24; }

/* The portable kernel's 6 x 8 tile with the DSP extension, in 2 x 2 blocks whose four sums stay
   in registers over all kq groups (as CMSIS-NN's int8 matrix products do): per group a row's
   four int8 of A become two pairs of int16 (SXTB16: bytes 0 and 2, then 1 and 3) and a column's
   four uint8 of B likewise (UXTB16), and SMLAD adds each pair's two products to a sum. A uint8
   is a non-negative int16, and SMLAD's sum wraps modulo 2^32 (it only sets the Q flag), as the
   portable kernel's does, so the sums are the same. */
static void mmd__qgemm_ukernel_dsp(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c, int64_t ldc,
                                   int32_t add) {
    int64_t q;
    int32_t i, j;
    for (i = 0; i < MMD__QGEMM_MR; i += 2)
        for (j = 0; j < 8; j += 2) {
            const int8_t *ap = a + 4 * i;
            const uint8_t *bp = b + 4 * j;
            int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0, *cr = c + i * ldc + j;
            for (q = 0; q < kq; ++q, ap += MMD__QGEMM_MR * 4, bp += 32) {
                uint32_t a0 = mmd__q_word(ap), a1 = mmd__q_word(ap + 4), bw;
                int32_t a0e = __sxtb16(a0), a0o = __sxtb16(mmd__q_ror8(a0));
                int32_t a1e = __sxtb16(a1), a1o = __sxtb16(mmd__q_ror8(a1)), be, bo;
                bw = mmd__q_word(bp);
                be = (int32_t)__uxtb16(bw);
                bo = (int32_t)__uxtb16(mmd__q_ror8(bw));
                s00 = __smlad(a0o, bo, __smlad(a0e, be, s00));
                s10 = __smlad(a1o, bo, __smlad(a1e, be, s10));
                bw = mmd__q_word(bp + 4);
                be = (int32_t)__uxtb16(bw);
                bo = (int32_t)__uxtb16(mmd__q_ror8(bw));
                s01 = __smlad(a0o, bo, __smlad(a0e, be, s01));
                s11 = __smlad(a1o, bo, __smlad(a1e, be, s11));
            }
            cr[0] = (int32_t)((uint32_t)s00 + (add ? (uint32_t)cr[0] : 0u));
            cr[1] = (int32_t)((uint32_t)s01 + (add ? (uint32_t)cr[1] : 0u));
            cr[ldc] = (int32_t)((uint32_t)s10 + (add ? (uint32_t)cr[ldc] : 0u));
            cr[ldc + 1] = (int32_t)((uint32_t)s11 + (add ? (uint32_t)cr[ldc + 1] : 0u));
        }
}
#endif

#if defined(MMD__NEON)
/* NEON 6 x 8: one K group of B de-interleaved by vld4 into four rows of eight columns (K value
   t of each column), widened to int16, and each row of A's four values widened likewise; each
   SMLAL by lane then adds four exact int16 products to four int32 sums. */
static void mmd__qgemm_ukernel_neon(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c, int64_t ldc,
                                    int32_t add) {
    int32x4_t z = vdupq_n_s32(0), acc[MMD__QGEMM_MR][2] = {{z, z}, {z, z}, {z, z}, {z, z}, {z, z}, {z, z}};
    int64_t q;
    for (q = 0; q < kq; ++q, a += MMD__QGEMM_MR * 4, b += 32) {
        uint8x8x4_t bb = vld4_u8(b);
        int16x8_t b0 = vreinterpretq_s16_u16(vmovl_u8(bb.val[0])), b1 = vreinterpretq_s16_u16(vmovl_u8(bb.val[1]));
        int16x8_t b2 = vreinterpretq_s16_u16(vmovl_u8(bb.val[2])), b3 = vreinterpretq_s16_u16(vmovl_u8(bb.val[3]));
        int16x8_t a01 = vmovl_s8(vld1_s8(a)), a23 = vmovl_s8(vld1_s8(a + 8)), a45 = vmovl_s8(vld1_s8(a + 16));
#define MMD__QG_T(r, A, l, B)                                                                             \
    acc[r][0] = vmlal_laneq_s16(acc[r][0], vget_low_s16(B), A, l);                                        \
    acc[r][1] = vmlal_high_laneq_s16(acc[r][1], B, A, l)
#define MMD__QG_ROW(r, A, l0)                                                                             \
    MMD__QG_T(r, A, l0, b0);                                                                              \
    MMD__QG_T(r, A, l0 + 1, b1);                                                                          \
    MMD__QG_T(r, A, l0 + 2, b2);                                                                          \
    MMD__QG_T(r, A, l0 + 3, b3)
        MMD__QG_ROW(0, a01, 0);
        MMD__QG_ROW(1, a01, 4);
        MMD__QG_ROW(2, a23, 0);
        MMD__QG_ROW(3, a23, 4);
        MMD__QG_ROW(4, a45, 0);
        MMD__QG_ROW(5, a45, 4);
#undef MMD__QG_ROW
#undef MMD__QG_T
    }
    /* Rows by constant index (a loop's index would keep the sums in memory, not registers). */
#define MMD__QG_STORE(r)                                                                                  \
    if (add) {                                                                                            \
        acc[r][0] = vaddq_s32(acc[r][0], vld1q_s32(c + (r) * ldc));                                       \
        acc[r][1] = vaddq_s32(acc[r][1], vld1q_s32(c + (r) * ldc + 4));                                   \
    }                                                                                                     \
    vst1q_s32(c + (r) * ldc, acc[r][0]);                                                                  \
    vst1q_s32(c + (r) * ldc + 4, acc[r][1])
    MMD__QG_STORE(0);
    MMD__QG_STORE(1);
    MMD__QG_STORE(2);
    MMD__QG_STORE(3);
    MMD__QG_STORE(4);
    MMD__QG_STORE(5);
#undef MMD__QG_STORE
}
#endif

#if defined(MMD__NEON_DOT)
/* SDOT 6 x 16: SDOT multiplies int8 by int8 only, so B is packed with its top bit flipped once
   more (mmd__qgemm_pack_flip_b: the bytes are B' - 128 as int8) and the kernel adds back
   128 times each row's sum of A over the block, which one SDOT of A's 24 bytes by -128 per K
   group gives (subtracted: sum a b' = sum a (b' - 128) - sum a (-128)). 24 sums in registers. */
MMD__TARGET_DOTPROD static void mmd__qgemm_ukernel_sdot(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c,
                                                        int64_t ldc, int32_t add) {
    int32x4_t lo = vdupq_n_s32(0), acc[MMD__QGEMM_MR][4] = {{lo, lo, lo, lo}, {lo, lo, lo, lo}, {lo, lo, lo, lo},
                                                            {lo, lo, lo, lo}, {lo, lo, lo, lo}, {lo, lo, lo, lo}};
    int32x2_t hi = vdup_n_s32(0);
    int8x16_t m128 = vdupq_n_s8(-128);
    int64_t q;
    for (q = 0; q < kq; ++q, a += MMD__QGEMM_MR * 4, b += 64) {
        int8x16_t a03 = vld1q_s8(a), bv;
        int8x8_t a45 = vld1_s8(a + 16);
        lo = vdotq_s32(lo, a03, m128);
        hi = vdot_s32(hi, a45, vget_low_s8(m128));
#define MMD__QG_COL(v)                                                                                    \
    bv = vreinterpretq_s8_u8(vld1q_u8(b + 16 * (v)));                                                     \
    acc[0][v] = vdotq_laneq_s32(acc[0][v], bv, a03, 0);                                                   \
    acc[1][v] = vdotq_laneq_s32(acc[1][v], bv, a03, 1);                                                   \
    acc[2][v] = vdotq_laneq_s32(acc[2][v], bv, a03, 2);                                                   \
    acc[3][v] = vdotq_laneq_s32(acc[3][v], bv, a03, 3);                                                   \
    acc[4][v] = vdotq_lane_s32(acc[4][v], bv, a45, 0);                                                    \
    acc[5][v] = vdotq_lane_s32(acc[5][v], bv, a45, 1)
        MMD__QG_COL(0);
        MMD__QG_COL(1);
        MMD__QG_COL(2);
        MMD__QG_COL(3);
#undef MMD__QG_COL
    }
    /* Rows by constant index, as in mmd__qgemm_ukernel_neon; F is the row's correction. */
#define MMD__QG_STORE4(r, F)                                                                              \
    MMD__QG_STORE(r, 0, F);                                                                               \
    MMD__QG_STORE(r, 1, F);                                                                               \
    MMD__QG_STORE(r, 2, F);                                                                               \
    MMD__QG_STORE(r, 3, F)
#define MMD__QG_STORE(r, v, F)                                                                            \
    acc[r][v] = vsubq_s32(acc[r][v], F);                                                                  \
    if (add) acc[r][v] = vaddq_s32(acc[r][v], vld1q_s32(c + (r) * ldc + 4 * (v)));                        \
    vst1q_s32(c + (r) * ldc + 4 * (v), acc[r][v])
    MMD__QG_STORE4(0, vdupq_laneq_s32(lo, 0));
    MMD__QG_STORE4(1, vdupq_laneq_s32(lo, 1));
    MMD__QG_STORE4(2, vdupq_laneq_s32(lo, 2));
    MMD__QG_STORE4(3, vdupq_laneq_s32(lo, 3));
    MMD__QG_STORE4(4, vdupq_lane_s32(hi, 0));
    MMD__QG_STORE4(5, vdupq_lane_s32(hi, 1));
#undef MMD__QG_STORE
#undef MMD__QG_STORE4
}
#endif

#if defined(MMD__X86)
#define MMD__TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx2")))

/* Four int8 of A, as one int32 (memcpy: no aliasing question). */
static int32_t mmd__q_load4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

MMD__TARGET_AVX2 static void mmd__qgemm_ukernel_avx2(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c,
                                                     int64_t ldc, int32_t add) {
    __m256i l0 = _mm256_setzero_si256(), h0 = l0, l1 = l0, h1 = l0, l2 = l0, h2 = l0;
    __m256i l3 = l0, h3 = l0, l4 = l0, h4 = l0, l5 = l0, h5 = l0, lo[6], hi[6];
    int64_t q;
    int32_t i;
    for (q = 0; q < kq; ++q, a += MMD__QGEMM_MR * 4, b += 32) {
        /* Columns 0-3 and 4-7, four K values each, as int16; one row's four values repeated. */
        __m256i b0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)b));
        __m256i b1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(b + 16))), av;
#define MMD__QG_ROW(r, L, H)                                                                              \
    av = _mm256_broadcastq_epi64(_mm_cvtepi8_epi16(_mm_cvtsi32_si128(mmd__q_load4(a + 4 * (r)))));        \
    L = _mm256_add_epi32(L, _mm256_madd_epi16(b0, av));                                                   \
    H = _mm256_add_epi32(H, _mm256_madd_epi16(b1, av))
        MMD__QG_ROW(0, l0, h0);
        MMD__QG_ROW(1, l1, h1);
        MMD__QG_ROW(2, l2, h2);
        MMD__QG_ROW(3, l3, h3);
        MMD__QG_ROW(4, l4, h4);
        MMD__QG_ROW(5, l5, h5);
#undef MMD__QG_ROW
    }
    lo[0] = l0, lo[1] = l1, lo[2] = l2, lo[3] = l3, lo[4] = l4, lo[5] = l5;
    hi[0] = h0, hi[1] = h1, hi[2] = h2, hi[3] = h3, hi[4] = h4, hi[5] = h5;
    for (i = 0; i < MMD__QGEMM_MR; ++i) {
        /* Pair sums [c0 c0 c1 c1 | c2 c2 c3 c3] and the same for 4-7: hadd gives
           [c0 c1 c4 c5 | c2 c3 c6 c7], the permute puts the columns in order. */
        __m256i s = _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo[i], hi[i]), 0xD8);
        int32_t *cr = c + i * ldc;
        if (add) s = _mm256_add_epi32(s, _mm256_loadu_si256((const __m256i *)(const void *)cr));
        _mm256_storeu_si256((__m256i *)(void *)cr, s);
    }
}

/* The VNNI tile's sums over kq groups of four into c00 to c51 (row, half): the loop both VNNI
   micro-kernels run, written once. */
#define MMD__QG_VNNI_SUMS(kq, a, b)                                                                       \
    __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;          \
    __m512i c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;                             \
    for (q = 0; q < (kq); ++q, (a) += MMD__QGEMM_MR * 4, (b) += 128) {                                    \
        __m512i b0 = _mm512_loadu_si512((const void *)(b)), b1 = _mm512_loadu_si512((const void *)((b) + 64)), av; \
        av = _mm512_set1_epi32(mmd__q_load4(a));                                                          \
        c00 = _mm512_dpbusd_epi32(c00, b0, av);                                                           \
        c01 = _mm512_dpbusd_epi32(c01, b1, av);                                                           \
        av = _mm512_set1_epi32(mmd__q_load4((a) + 4));                                                    \
        c10 = _mm512_dpbusd_epi32(c10, b0, av);                                                           \
        c11 = _mm512_dpbusd_epi32(c11, b1, av);                                                           \
        av = _mm512_set1_epi32(mmd__q_load4((a) + 8));                                                    \
        c20 = _mm512_dpbusd_epi32(c20, b0, av);                                                           \
        c21 = _mm512_dpbusd_epi32(c21, b1, av);                                                           \
        av = _mm512_set1_epi32(mmd__q_load4((a) + 12));                                                   \
        c30 = _mm512_dpbusd_epi32(c30, b0, av);                                                           \
        c31 = _mm512_dpbusd_epi32(c31, b1, av);                                                           \
        av = _mm512_set1_epi32(mmd__q_load4((a) + 16));                                                   \
        c40 = _mm512_dpbusd_epi32(c40, b0, av);                                                           \
        c41 = _mm512_dpbusd_epi32(c41, b1, av);                                                           \
        av = _mm512_set1_epi32(mmd__q_load4((a) + 20));                                                   \
        c50 = _mm512_dpbusd_epi32(c50, b0, av);                                                           \
        c51 = _mm512_dpbusd_epi32(c51, b1, av);                                                           \
    }                                                                                                     \
    acc[0] = c00, acc[1] = c01, acc[2] = c10, acc[3] = c11, acc[4] = c20, acc[5] = c21;                   \
    acc[6] = c30, acc[7] = c31, acc[8] = c40, acc[9] = c41, acc[10] = c50, acc[11] = c51

MMD__TARGET_VNNI static void mmd__qgemm_ukernel_vnni(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c,
                                                     int64_t ldc, int32_t add) {
    __m512i acc[12];
    int64_t q;
    int32_t i;
    MMD__QG_VNNI_SUMS(kq, a, b);
    for (i = 0; i < 2 * MMD__QGEMM_MR; ++i) {
        int32_t *cr = c + (i / 2) * ldc + (i % 2) * 16;
        __m512i s = acc[i];
        if (add) s = _mm512_add_epi32(s, _mm512_loadu_si512((const void *)cr));
        _mm512_storeu_si512((void *)cr, s);
    }
}

/* Sixteen sums of one row requantized as bytes: mmd__requantize_row's operations in its order
   (vmaxps gives lo for a NaN, as there), so the same bytes; lo and hi relative to zp. */
__attribute__((target("avx512f,avx512bw"))) static inline __m128i mmd__requantize16(__m512i acc, int32_t bias, float mult,
                                                                                   __m512 lo, __m512 hi, __m512i zp) {
    __m512 magic = _mm512_set1_ps(12582912.0f);
    __m512 v = _mm512_cvtepi32_ps(_mm512_add_epi32(acc, _mm512_set1_epi32(bias)));
    v = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(v, _mm512_set1_ps(mult)), lo), hi);
    v = _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
    return _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(v), zp));
}

/* The same tile requantized in registers and stored as bytes, for a product whose zero-point
   terms are one value per row (see mmd__qgemm_rq). */
MMD__TARGET_VNNI static void mmd__qgemm_ukernel_vnni_rq(int64_t kq, const int8_t *a, const uint8_t *b,
                                                        const mmd__qgemm_rq *rq) {
    __m512i acc[12];
    __m512 lo = _mm512_set1_ps(rq->lo), hi = _mm512_set1_ps(rq->hi);
    __m512i zp = _mm512_set1_epi32(rq->zp);
    int64_t q;
    int32_t i;
    MMD__QG_VNNI_SUMS(kq, a, b);
    for (i = 0; i < 2 * rq->rows; ++i) {
        if (rq->part)
            acc[i] = _mm512_add_epi32(acc[i], _mm512_loadu_si512((const void *)(rq->part + (i / 2) * rq->ldp + (i % 2) * 16)));
        _mm_storeu_si128((__m128i *)(void *)(rq->y + (i / 2) * rq->ldy + (i % 2) * 16),
                         mmd__requantize16(acc[i], (int32_t)rq->bias[i / 2], rq->mult[i / 2], lo, hi, zp));
    }
}
#undef MMD__QG_VNNI_SUMS

#define MMD__TARGET_AMX __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw")))

/* The tile configuration of the AMX products: palette 1, all eight tiles of 16 rows of 64 bytes
   (a tile of C is 16 x 16 int32, of A 16 rows of 64 K values, of B 16 K groups of 16 columns of
   4; mmd__qgemm_ukernel_amx uses tiles 0 to 4, mmd__qconv_amx_tiles all eight). It is the
   thread's state, so each share loads it and releases the tiles after (mmd__qgemm_block,
   mmd__qconv_amx_task), which also spares the operating system saving them between runs. */
MMD__TARGET_AMX static void mmd__qgemm_amx_begin(void) {
    unsigned char cfg[64];
    int32_t i;
    memset(cfg, 0, sizeof cfg);
    cfg[0] = 1;
    for (i = 0; i < 8; ++i) {
        cfg[16 + 2 * i] = 64; /* bytes per row, a little-endian uint16 */
        cfg[48 + i] = 16;     /* rows */
    }
    /* GCC 12 does not see that ldtilecfg reads its operand and drops the stores above: the
       barrier keeps them. */
    __asm__ volatile("" : : "r"(cfg) : "memory");
    _tile_loadconfig(cfg);
}
MMD__TARGET_AMX static void mmd__qgemm_amx_end(void) { _tile_release(); }

/* AMX 16 x 32: per step of 16 K groups one tile of A (the panel's 16 rows of 64 K values, packed
   [kq / 16][16][64] so that each tile is 1 KB in a row) and B's [kq][32][4] panel as two tiles
   of 16 columns (rows 128 bytes apart), TDPBSUD adding int8 A times uint8 B into C's two tiles.
   Its int32 sums wrap modulo 2^32 as the other kernels' do, so the sums are the same. */
MMD__TARGET_AMX static void mmd__qgemm_ukernel_amx(int64_t kq, const int8_t *a, const uint8_t *b, int32_t *c,
                                                   int64_t ldc, int32_t add) {
    int64_t q;
    if (add) {
        _tile_loadd(0, c, ldc * 4);
        _tile_loadd(1, c + 16, ldc * 4);
    } else {
        _tile_zero(0);
        _tile_zero(1);
    }
    for (q = 0; q < kq; q += 16, a += 1024, b += 2048) {
        _tile_loadd(2, a, 64);
        _tile_loadd(3, b, 128);
        _tile_loadd(4, b + 64, 128);
        _tile_dpbsud(0, 2, 3);
        _tile_dpbsud(1, 2, 4);
    }
    _tile_stored(0, c, ldc * 4);
    _tile_stored(1, c + 16, ldc * 4);
}
#endif

static mmd__qgemm_ukernel mmd__qgemm_kernel(int32_t path) {
#if defined(MMD__X86)
    if (path == MMD__QG_AMX) return mmd__qgemm_ukernel_amx;
    if (path == MMD__QG_VNNI) return mmd__qgemm_ukernel_vnni;
    if (path == MMD__QG_AVX2) return mmd__qgemm_ukernel_avx2;
#endif
#if defined(MMD__NEON)
    if (path == MMD__QG_NEON) return mmd__qgemm_ukernel_neon;
#endif
#if defined(MMD__NEON_DOT)
    if (path == MMD__QG_SDOT) return mmd__qgemm_ukernel_sdot;
#endif
    (void)path;
#if defined(MMD__ARM_MVE)
    return mmd__qgemm_ukernel_mve;
#elif defined(MMD__ARM_DSP)
    return mmd__qgemm_ukernel_dsp;
#else
    return mmd__qgemm_ukernel_c;
#endif
}

/* Where and how a product's int32 sums become int8 or uint8: y = clamp(round((sum + bias) *
   mult) + zp, qmin, qmax), qmin and qmax the type's range, narrowed by a fused Relu or Clip
   (mmd__qconv_act). Rows of y are ldy elements apart; bias has one value per row (or is NULL),
   mult one per row, or one per column when per_col. */
typedef struct mmd__q_out {
    char *y;
    int64_t ldy;
    const int32_t *bias;
    const float *mult;
    int32_t per_col, zp, dtype, qmin, qmax;
} mmd__q_out;

#if defined(MMD__X86)
/* The first n rounded down to 8 of mmd__requantize_row; returns how many it did. */
MMD__TARGET_AVX2 static int64_t mmd__requantize_avx2(const int32_t *acc, int64_t n, int32_t bias, const float *mult,
                                                     int64_t ms, int32_t zp, int32_t dtype, void *y, float lo, float hi) {
    __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi), vm = _mm256_set1_ps(mult[0]);
    __m256i vb = _mm256_set1_epi32(bias), vz = _mm256_set1_epi32(zp);
    int64_t j;
    for (j = 0; j + 8 <= n; j += 8) {
        __m256 v = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(acc + j)), vb));
        if (ms) vm = _mm256_loadu_ps(mult + j);
        mmd__q_store8_avx2(_mm256_mul_ps(v, vm), vlo, vhi, vz, dtype, (char *)y + j);
    }
    return j;
}
#endif

#if defined(MMD__NEON)
/* The first n rounded down to 8 of mmd__requantize_row, as mmd__requantize_avx2 does it. */
static int64_t mmd__requantize_neon(const int32_t *acc, int64_t n, int32_t bias, const float *mult, int64_t ms,
                                    int32_t zp, int32_t dtype, void *y, float lo, float hi) {
    float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi), m0 = vdupq_n_f32(mult[0]), m1 = m0;
    int32x4_t vb = vdupq_n_s32(bias), vz = vdupq_n_s32(zp);
    int64_t j;
    for (j = 0; j + 8 <= n; j += 8) {
        float32x4_t v0 = vcvtq_f32_s32(vaddq_s32(vld1q_s32(acc + j), vb));
        float32x4_t v1 = vcvtq_f32_s32(vaddq_s32(vld1q_s32(acc + j + 4), vb));
        if (ms) m0 = vld1q_f32(mult + j), m1 = vld1q_f32(mult + j + 4);
        mmd__q_store8_neon(vmulq_f32(v0, m0), vmulq_f32(v1, m1), vlo, vhi, vz, dtype, (char *)y + j);
    }
    return j;
}
#endif

/* Requantizes n int32 sums (plus bias, wrapping as ONNX Runtime's int32 addition does) with
   multipliers mult[j * ms] (ms 0 or 1) into y, an int8 or uint8 row, as o says (o->y and
   o->ldy unused); AVX2 or NEON where path (MMD__QG_*) is not the portable one. */
static void mmd__requantize_row(const int32_t *acc, int64_t n, int32_t bias, const float *mult, int64_t ms,
                                const mmd__q_out *o, void *y, int32_t path) {
    int64_t j = 0;
    int32_t zp = o->zp;
    float lo = (float)(o->qmin - zp), hi = (float)(o->qmax - zp);
#if defined(MMD__X86)
    if (path != MMD__QG_PORTABLE) j = mmd__requantize_avx2(acc, n, bias, mult, ms, zp, o->dtype, y, lo, hi);
#elif defined(MMD__NEON)
    if (path != MMD__QG_PORTABLE) j = mmd__requantize_neon(acc, n, bias, mult, ms, zp, o->dtype, y, lo, hi);
#else
    (void)path;
#endif
    if (o->dtype == MMD_DTYPE_INT8) {
        int8_t *d = (int8_t *)y;
        for (; j < n; ++j)
            d[j] = (int8_t)(mmd__q_round((float)(int32_t)((uint32_t)acc[j] + (uint32_t)bias) * mult[j * ms], lo, hi) + zp);
    } else {
        uint8_t *d = (uint8_t *)y;
        for (; j < n; ++j)
            d[j] = (uint8_t)(mmd__q_round((float)(int32_t)((uint32_t)acc[j] + (uint32_t)bias) * mult[j * ms], lo, hi) + zp);
    }
}

/* o for an output of dtype (int8 or uint8) and zero point zp, clamped to the type's range
   only; the caller sets y, ldy, bias and mult. */
static void mmd__q_out_init(mmd__q_out *o, int32_t dtype, int32_t zp) {
    memset(o, 0, sizeof *o);
    o->dtype = dtype;
    o->zp = zp;
    o->qmin = dtype == MMD_DTYPE_INT8 ? -128 : 0;
    o->qmax = dtype == MMD_DTYPE_INT8 ? 127 : 255;
}

/* One product. A and B are read from a_packed / b_packed (mmd__qgemm_pack_a / _b, sums
   included) or else from rows of a and b (contiguous elements, row strides lda and ldb). With
   out, each share also requantizes the rows and columns of C it computed into out->y while they
   are in cache (C is then the int32 scratch), so the epilogue runs on every thread. */
typedef struct mmd__qgemm {
    int64_t m, n, k;
    const void *a, *b;
    int64_t lda, ldb;
    int32_t a_type, b_type;             /* MMD_DTYPE_INT8 or MMD_DTYPE_UINT8 */
    const uint8_t *a_packed, *b_packed;
    const int32_t *za, *zb;             /* zero points, element i * za_step of za for row i */
    int64_t za_step, zb_step;
    int32_t *c;
    int64_t ldc;
    int32_t path;                       /* MMD__QG_* */
    const mmd__q_out *out;              /* NULL: C is the result */
} mmd__qgemm;

/* Bytes of the packed forms: the int32 sums (rounded to 64 bytes), then the panels. */
static uint64_t mmd__qgemm_packed_a_size(int64_t m, int64_t k, int32_t path) {
    return (uint64_t)mmd__round_up(m * 4, 64) +
           (uint64_t)mmd__round_up(m, mmd__qgemm_mr(path)) * (uint64_t)mmd__round_up(k, 4 * mmd__qgemm_kg(path));
}
static uint64_t mmd__qgemm_packed_b_size(int64_t k, int64_t n, int32_t path) {
    return (uint64_t)mmd__round_up(n * 4, 64) +
           (uint64_t)mmd__round_up(n, mmd__qgemm_nr(path)) * (uint64_t)mmd__round_up(k, 4 * mmd__qgemm_kg(path));
}

/* The packed operands are bytes: int8 A and uint8 B are the tensors' bytes with the top bit
   flipped where the type differs (uint8 A, int8 B), which subtracts or adds 128. */
static int32_t mmd__qgemm_flip_a(const mmd__qgemm *g) { return g->a_type == MMD_DTYPE_UINT8 ? 0x80 : 0; }
static int32_t mmd__qgemm_flip_b(const mmd__qgemm *g) { return g->b_type == MMD_DTYPE_INT8 ? 0x80 : 0; }
/* The flip of B's packed panels: the SDOT kernel reads them as int8, one flip more. */
static int32_t mmd__qgemm_pack_flip_b(const mmd__qgemm *g) {
    return mmd__qgemm_flip_b(g) ^ (g->path == MMD__QG_SDOT ? 0x80 : 0);
}

/* A's rows [r0, r0 + rows) and K groups [q0, q0 + kq) as panels [kq][MR][4] (AMX: [kq / 16][16]
   [64], each 16 x 64 bytes one tile), zero past the edges. */
static void mmd__qgemm_pack_a_block(const mmd__qgemm *g, int64_t r0, int64_t rows, int64_t q0, int64_t kq,
                                    uint8_t *dst) {
    int32_t flip = mmd__qgemm_flip_a(g), sh = mmd__qgemm_ksh(g->path);
    int64_t mr = mmd__qgemm_mr(g->path), lo = ((int64_t)1 << sh) - 1;
    int64_t i0, i, p, k0 = 4 * q0, k1 = 4 * (q0 + kq) < g->k ? 4 * (q0 + kq) : g->k;
    for (i0 = 0; i0 < rows; i0 += mr, dst += kq * mr * 4)
        for (i = 0; i < mr; ++i) {
            int64_t row = r0 + i0 + i;
            const uint8_t *src = (const uint8_t *)g->a + row * g->lda;
            uint8_t *d = dst + (i << sh);
            if (row >= g->m || i0 + i >= rows) {
                for (p = 0; p < 4 * kq; ++p) d[((p >> sh) * mr << sh) + (p & lo)] = 0;
                continue;
            }
            for (p = k0; p < k1; ++p) d[(((p - k0) >> sh) * mr << sh) + (p & lo)] = (uint8_t)(src[p] ^ flip);
            for (; p < k0 + 4 * kq; ++p) d[(((p - k0) >> sh) * mr << sh) + (p & lo)] = 0;
        }
}

#if defined(MMD__X86)
/* Sixteen columns of four rows of B as one K group of a panel, as mmd__qgemm_interleave8 does
   eight: whole 16-byte loads and stores, for the 32-column panels of the VNNI kernel. */
static void mmd__qgemm_interleave16(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, const uint8_t *r3,
                                    int32_t flip, uint8_t *d) {
    __m128i f = _mm_set1_epi8((char)flip);
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)r0), x1 = _mm_loadu_si128((const __m128i *)(const void *)r1);
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)r2), x3 = _mm_loadu_si128((const __m128i *)(const void *)r3);
    __m128i lo01 = _mm_unpacklo_epi8(x0, x1), lo23 = _mm_unpacklo_epi8(x2, x3);
    __m128i hi01 = _mm_unpackhi_epi8(x0, x1), hi23 = _mm_unpackhi_epi8(x2, x3);
    _mm_storeu_si128((__m128i *)(void *)d, _mm_xor_si128(_mm_unpacklo_epi16(lo01, lo23), f));
    _mm_storeu_si128((__m128i *)(void *)(d + 16), _mm_xor_si128(_mm_unpackhi_epi16(lo01, lo23), f));
    _mm_storeu_si128((__m128i *)(void *)(d + 32), _mm_xor_si128(_mm_unpacklo_epi16(hi01, hi23), f));
    _mm_storeu_si128((__m128i *)(void *)(d + 48), _mm_xor_si128(_mm_unpackhi_epi16(hi01, hi23), f));
}
#endif

/* Eight columns of four rows of B (r0 to r3: K values 4q to 4q + 3) as one K group of a panel,
   d[4 j + t] = rt[j] ^ flip: byte interleaves on x86 (SSE2, always there), NEON's interleaving
   store on AArch64, a loop elsewhere. */
static void mmd__qgemm_interleave8(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, const uint8_t *r3,
                                   int32_t flip, uint8_t *d) {
#if defined(MMD__X86)
    __m128i f = _mm_set1_epi8((char)flip);
    __m128i lo = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)r0),
                                   _mm_loadl_epi64((const __m128i *)(const void *)r1));
    __m128i hi = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)r2),
                                   _mm_loadl_epi64((const __m128i *)(const void *)r3));
    _mm_storeu_si128((__m128i *)(void *)d, _mm_xor_si128(_mm_unpacklo_epi16(lo, hi), f));
    _mm_storeu_si128((__m128i *)(void *)(d + 16), _mm_xor_si128(_mm_unpackhi_epi16(lo, hi), f));
#elif defined(MMD__NEON)
    uint8x8_t f = vdup_n_u8((uint8_t)flip);
    uint8x8x4_t v;
    v.val[0] = veor_u8(vld1_u8(r0), f);
    v.val[1] = veor_u8(vld1_u8(r1), f);
    v.val[2] = veor_u8(vld1_u8(r2), f);
    v.val[3] = veor_u8(vld1_u8(r3), f);
    vst4_u8(d, v);
#else
    int32_t j;
    for (j = 0; j < 8; ++j) {
        d[4 * j] = (uint8_t)(r0[j] ^ flip);
        d[4 * j + 1] = (uint8_t)(r1[j] ^ flip);
        d[4 * j + 2] = (uint8_t)(r2[j] ^ flip);
        d[4 * j + 3] = (uint8_t)(r3[j] ^ flip);
    }
#endif
}

/* B's columns [c0, c0 + cols) and K groups [q0, q0 + kq) as panels [kq][NR][4], zero past the
   edges. */
static void mmd__qgemm_pack_b_block(const mmd__qgemm *g, int64_t c0, int64_t cols, int64_t q0, int64_t kq,
                                    uint8_t *dst) {
    int32_t flip = mmd__qgemm_pack_flip_b(g);
    int64_t nr = mmd__qgemm_nr(g->path), j0, j, q, t;
    for (j0 = 0; j0 < cols; j0 += nr, dst += kq * nr * 4) {
        /* Columns of this panel that exist in B and in the block. */
        int64_t n = g->n - c0 - j0 < nr ? g->n - c0 - j0 : nr;
        if (cols - j0 < n) n = cols - j0;
        if (n < 0) n = 0;
        for (q = 0; q < kq; ++q) {
            int64_t p = 4 * (q0 + q);
            const uint8_t *src = (const uint8_t *)g->b + p * g->ldb + c0 + j0;
            if (p + 3 < g->k) {
                /* Four whole rows: eight columns at a time, the rest one by one. */
                uint8_t *d = dst + q * nr * 4;
                j = 0;
#if defined(MMD__X86)
                for (; j + 16 <= n; j += 16)
                    mmd__qgemm_interleave16(src + j, src + g->ldb + j, src + 2 * g->ldb + j, src + 3 * g->ldb + j,
                                            flip, d + 4 * j);
#endif
                for (; j + 8 <= n; j += 8)
                    mmd__qgemm_interleave8(src + j, src + g->ldb + j, src + 2 * g->ldb + j, src + 3 * g->ldb + j, flip,
                                           d + 4 * j);
                for (; j < nr; ++j)
                    for (t = 0; t < 4; ++t) d[4 * j + t] = j < n ? (uint8_t)(src[t * g->ldb + j] ^ flip) : 0;
                continue;
            }
            for (t = 0; t < 4; ++t) {
                int64_t e = p + t < g->k ? n : 0;
                uint8_t *d = dst + q * nr * 4 + t;
                for (j = 0; j < e; ++j) d[4 * j] = (uint8_t)(src[t * g->ldb + j] ^ flip);
                for (; j < nr; ++j) d[4 * j] = 0;
            }
        }
    }
}

/* Row sums of A (as int8) and column sums of B (as uint8), wrapping. */
static void mmd__qgemm_row_sums(const mmd__qgemm *g, int32_t *sums) {
    int32_t flip = mmd__qgemm_flip_a(g) ^ 0x80;
    int64_t i, p;
    for (i = 0; i < g->m; ++i) {
        const uint8_t *src = (const uint8_t *)g->a + i * g->lda;
        uint32_t s = 0;
        for (p = 0; p < g->k; ++p) s += (uint32_t)((int32_t)(src[p] ^ flip) - 128);
        sums[i] = (int32_t)s;
    }
}

static void mmd__qgemm_col_sums(const mmd__qgemm *g, int32_t *sums) {
    int32_t flip = mmd__qgemm_flip_b(g);
    int64_t j, p;
    memset(sums, 0, (size_t)g->n * sizeof(int32_t));
    for (p = 0; p < g->k; ++p) {
        const uint8_t *src = (const uint8_t *)g->b + p * g->ldb;
        for (j = 0; j < g->n; ++j) sums[j] = (int32_t)((uint32_t)sums[j] + (uint32_t)(src[j] ^ flip));
    }
}

/* Packs all of A (or B) once, sums first: the panel of rows i (a multiple of MR) starts at
   i * round_up(k, 4) bytes after the sums, and a K block q0 within it q0 * MR * 4 further. */
static void mmd__qgemm_pack_a(const mmd__qgemm *g, uint8_t *dst) {
    int64_t kq = mmd__round_up((g->k + 3) / 4, mmd__qgemm_kg(g->path));
    mmd__qgemm_row_sums(g, (int32_t *)(void *)dst);
    mmd__qgemm_pack_a_block(g, 0, mmd__round_up(g->m, mmd__qgemm_mr(g->path)), 0, kq, dst + mmd__round_up(g->m * 4, 64));
}

static void mmd__qgemm_pack_b(const mmd__qgemm *g, uint8_t *dst) {
    int64_t kq = mmd__round_up((g->k + 3) / 4, mmd__qgemm_kg(g->path));
    mmd__qgemm_col_sums(g, (int32_t *)(void *)dst);
    mmd__qgemm_pack_b_block(g, 0, mmd__round_up(g->n, mmd__qgemm_nr(g->path)), 0, kq,
                            dst + mmd__round_up(g->n * 4, 64));
}

/* Per-share scratch bytes: A's block, B's block and one edge tile of C. */
static int64_t mmd__qgemm_share_bytes(int64_t m, int64_t n, int64_t k, int32_t path) {
    int64_t nr = mmd__qgemm_nr(path), mr = mmd__qgemm_mr(path), kq, ncb, nc;
    int64_t mc = mmd__round_up(m < MMD__QGEMM_MC / mr * mr ? m : MMD__QGEMM_MC / mr * mr, mr);
    mmd__qgemm_blocking(mmd__round_up((k + 3) / 4, mmd__qgemm_kg(path)), path, &kq, &ncb);
    nc = mmd__round_up(n < ncb ? n : ncb, nr);
    return mmd__round_up(mc * kq * 4, 64) + mmd__round_up(nc * kq * 4, 64) + mmd__round_up(mr * nr * 4, 64);
}

/* How many shares for `threads` threads: column blocks of 2 NR, or row blocks of 2 MR. */
static int32_t mmd__qgemm_shares(int64_t m, int64_t n, int32_t threads, int32_t path) {
    return mmd__split_shares(m, n, mmd__qgemm_mr(path), mmd__qgemm_nr(path), threads);
}

/* Scratch bytes for a product run with up to `threads` threads: the sums, the shares, and 64
   bytes of alignment. */
static uint64_t mmd__qgemm_scratch(int64_t m, int64_t n, int64_t k, int32_t path, int32_t threads) {
    return (uint64_t)mmd__round_up(m * 4, 64) + (uint64_t)mmd__round_up(n * 4, 64) +
           (uint64_t)mmd__qgemm_shares(m, n, threads, path) * (uint64_t)mmd__qgemm_share_bytes(m, n, k, path) + 64u;
}

typedef struct mmd__qgemm_job {
    const mmd__qgemm *g;
    const int32_t *row_sums, *col_sums;
    uint8_t *scratch;                   /* `share` bytes per share */
    int64_t share, step;
    int32_t by_rows;
    int32_t zb_zero;                    /* zb' is 0 for every column (uint8 B of zero point 0) */
    int32_t fused;                      /* whole tiles requantized in the VNNI kernel (mmd__qgemm_rq)
                                           after their last K block: out per row, za' 0 everywhere,
                                           one zb */
} mmd__qgemm_job;

/* Finishes rows [r0, r1) and columns [c0, c1) of C, whose sums are complete, at c (row stride
   ldc; row r0, column c0): the zero points, C -= zb' rowsum(A') + za' colsum(B') - k za' zb'
   (only the first term where za' is 0, symmetric weights, and the column sums are then not
   taken; with out and one zero point for all of B, that term is one value per row, added with
   the bias), then with out the requantisation, while the tile is in cache. */
static void mmd__qgemm_finish(const mmd__qgemm_job *job, int64_t r0, int64_t r1, int64_t c0, int64_t c1, int32_t *c,
                              int64_t ldc) {
    const mmd__qgemm *g = job->g;
    const mmd__q_out *o = g->out;
    uint32_t fa = (uint32_t)mmd__qgemm_flip_a(g), fb = (uint32_t)mmd__qgemm_flip_b(g), k = (uint32_t)g->k;
    int64_t i, j;
    for (i = r0; i < r1; ++i, c += ldc) {
        uint32_t za = (uint32_t)g->za[i * g->za_step] - (fa ? 128u : 0u), ra = (uint32_t)job->row_sums[i];
        uint32_t bias = o && o->bias ? (uint32_t)o->bias[i] : 0u;
        if (!za && !job->zb_zero) {
            if (o && !g->zb_step) bias -= ((uint32_t)g->zb[0] + (fb ? 128u : 0u)) * ra;
            else
                for (j = c0; j < c1; ++j)
                    c[j - c0] = (int32_t)((uint32_t)c[j - c0] - ((uint32_t)g->zb[j * g->zb_step] + (fb ? 128u : 0u)) * ra);
        } else if (za) {
            for (j = c0; j < c1; ++j) {
                uint32_t zb = (uint32_t)g->zb[j * g->zb_step] + (fb ? 128u : 0u);
                c[j - c0] = (int32_t)((uint32_t)c[j - c0] - zb * ra - za * (uint32_t)job->col_sums[j] + k * za * zb);
            }
        }
        if (o)
            mmd__requantize_row(c, c1 - c0, (int32_t)bias, o->mult + (o->per_col ? c0 : i), o->per_col, o,
                                o->y + i * o->ldy + c0, g->path);
    }
}

#if defined(MMD__X86)
/* The tile of rows [r0, r0 + MR) (those below m) and columns [c0, c0 + 32) summed over its
   last K block and requantized by the VNNI kernel (job->fused), the zero-point term of
   mmd__qgemm_finish folded into each row's bias; part holds the earlier K blocks' sums (row
   stride ldp), or is NULL. */
static void mmd__qgemm_fused_tile(const mmd__qgemm_job *job, int64_t kq, const int8_t *a, const uint8_t *b, int64_t r0,
                                  int64_t c0, const int32_t *part, int64_t ldp) {
    const mmd__qgemm *g = job->g;
    const mmd__q_out *o = g->out;
    uint32_t zb = job->zb_zero ? 0u : (uint32_t)g->zb[0] + (mmd__qgemm_flip_b(g) ? 128u : 0u);
    mmd__qgemm_rq rq;
    int32_t i;
    rq.rows = g->m - r0 < MMD__QGEMM_MR ? (int32_t)(g->m - r0) : MMD__QGEMM_MR;
    for (i = 0; i < rq.rows; ++i) {
        rq.bias[i] = (o->bias ? (uint32_t)o->bias[r0 + i] : 0u) - zb * (uint32_t)job->row_sums[r0 + i];
        rq.mult[i] = o->mult[r0 + i];
    }
    rq.lo = (float)(o->qmin - o->zp);
    rq.hi = (float)(o->qmax - o->zp);
    rq.zp = o->zp;
    rq.y = o->y + r0 * o->ldy + c0;
    rq.ldy = o->ldy;
    rq.part = part;
    rq.ldp = ldp;
    mmd__qgemm_ukernel_vnni_rq(kq, a, b, &rq);
}
#endif

/* One share: rows [m0, m1) (m0 a multiple of MR) by columns [n0, n1) (n0 a multiple of NR);
   each tile is finished (mmd__qgemm_finish) right after the last K block's sums. K is cut into
   blocks of equal size (at most MMD__QGEMM_KQ groups): 576 values as 288 + 288, not 512 + 64,
   whose short block would run the micro-kernel's loop for little. */
static void mmd__qgemm_block(const mmd__qgemm_job *job, int64_t m0, int64_t m1, int64_t n0, int64_t n1, uint8_t *scratch) {
    const mmd__qgemm *g = job->g;
    mmd__qgemm_ukernel kern = mmd__qgemm_kernel(g->path);
    int64_t nr = mmd__qgemm_nr(g->path), mr = mmd__qgemm_mr(g->path), kg = mmd__qgemm_kg(g->path);
    int64_t kq = mmd__round_up((g->k + 3) / 4, kg), kqmax, ncb, blocks, kb, mcb = MMD__QGEMM_MC / mr * mr, mcmax, ncmax;
    int64_t kpad = 4 * kq, jc, pc, ic, jr, ir, i, j;
    mmd__qgemm_blocking(kq, g->path, &kqmax, &ncb);
    blocks = kqmax ? (kq + kqmax - 1) / kqmax : 0;
    kb = blocks ? mmd__round_up((kq + blocks - 1) / blocks, kg) : 0;
    mcmax = mmd__round_up(g->m < mcb ? g->m : mcb, mr);
    ncmax = mmd__round_up(g->n < ncb ? g->n : ncb, nr);
    uint8_t *apack = scratch, *bpack = apack + mmd__round_up(mcmax * kqmax * 4, 64);
    int32_t *ctile = (int32_t *)(void *)(bpack + mmd__round_up(ncmax * kqmax * 4, 64));
#if defined(MMD__X86)
    if (g->path == MMD__QG_AMX) mmd__qgemm_amx_begin();
#endif
    for (jc = n0; jc < n1; jc += ncb) {
        int64_t nc = n1 - jc < ncb ? n1 - jc : ncb;
        for (pc = 0; pc < kq; pc += kb) {
            int64_t kc = kq - pc < kb ? kq - pc : kb, bstep;
            int32_t last = pc + kc >= kq;
            const uint8_t *bsrc;
            if (g->b_packed) {
                bsrc = g->b_packed + mmd__round_up(g->n * 4, 64) + jc * kpad + pc * nr * 4;
                bstep = kpad * nr;
            } else {
                mmd__qgemm_pack_b_block(g, jc, nc, pc, kc, bpack);
                bsrc = bpack;
                bstep = kc * nr * 4;
            }
            for (ic = m0; ic < m1; ic += mcb) {
                int64_t mc = m1 - ic < mcb ? m1 - ic : mcb, astep;
                const uint8_t *asrc;
                if (g->a_packed) {
                    asrc = g->a_packed + mmd__round_up(g->m * 4, 64) + ic * kpad + pc * mr * 4;
                    astep = kpad * mr;
                } else {
                    mmd__qgemm_pack_a_block(g, ic, mc, pc, kc, apack);
                    asrc = apack;
                    astep = kc * mr * 4;
                }
                for (jr = 0; jr < nc; jr += nr)
                    for (ir = 0; ir < mc; ir += mr) {
                        int64_t mrr = mc - ir < mr ? mc - ir : mr, nrr = nc - jr < nr ? nc - jr : nr;
                        const int8_t *ap = (const int8_t *)(asrc + ir / mr * astep);
                        const uint8_t *bp = bsrc + jr / nr * bstep;
                        int32_t *ct = g->c + (ic + ir) * g->ldc + jc + jr;
#if defined(MMD__X86)
                        if (job->fused && last && nrr == nr) {
                            mmd__qgemm_fused_tile(job, kc, ap, bp, ic + ir, jc + jr, pc > 0 ? ct : NULL, g->ldc);
                            continue;
                        }
                        if (g->path == MMD__QG_AMX && g->out && !pc && last) {
                            /* K in one block: the tile's sums go to the edge tile, in cache, and
                               from there to y, never through C. */
                            kern(kc, ap, bp, ctile, nr, 0);
                            mmd__qgemm_finish(job, ic + ir, ic + ir + mrr, jc + jr, jc + jr + nrr, ctile, nr);
                            continue;
                        }
#endif
                        if (mrr == mr && nrr == nr) {
                            kern(kc, ap, bp, ct, g->ldc, pc > 0);
                        } else {
                            kern(kc, ap, bp, ctile, nr, 0);
                            for (i = 0; i < mrr; ++i)
                                for (j = 0; j < nrr; ++j)
                                    ct[i * g->ldc + j] =
                                        (int32_t)((uint32_t)ctile[i * nr + j] + (pc > 0 ? (uint32_t)ct[i * g->ldc + j] : 0u));
                        }
                        if (last) mmd__qgemm_finish(job, ic + ir, ic + ir + mrr, jc + jr, jc + jr + nrr, ct, g->ldc);
                    }
            }
        }
        if (!kq) {
            /* k = 0: no sums were taken, each is 0. */
            for (i = m0; i < m1; ++i) memset(g->c + i * g->ldc + jc, 0, (size_t)nc * sizeof(int32_t));
            mmd__qgemm_finish(job, m0, m1, jc, jc + nc, g->c + m0 * g->ldc + jc, g->ldc);
        }
    }
#if defined(MMD__X86)
    if (g->path == MMD__QG_AMX) mmd__qgemm_amx_end();
#endif
}

static void mmd__qgemm_task(void *data, int32_t index) {
    const mmd__qgemm_job *j = (const mmd__qgemm_job *)data;
    const mmd__qgemm *g = j->g;
    int64_t lo = index * j->step, hi = lo + j->step, end = j->by_rows ? g->m : g->n;
    if (hi > end) hi = end;
    if (lo >= hi) return;
    if (j->by_rows)
        mmd__qgemm_block(j, lo, hi, 0, g->n, j->scratch + index * j->share);
    else
        mmd__qgemm_block(j, 0, g->m, lo, hi, j->scratch + index * j->share);
}

/* Runs g over the session's threads with mmd__qgemm_scratch(m, n, k, path, threads) bytes of
   scratch, threads being the count given there. */
static void mmd__qgemm_run(const mmd_kernel_ctx *c, const mmd__qgemm *g, void *scratch, int32_t threads) {
    mmd__qgemm_job job;
    int64_t nr = mmd__qgemm_nr(g->path), i;
    uint8_t *s = (uint8_t *)(((uintptr_t)scratch + 63u) & ~(uintptr_t)63u);
    int32_t shares = mmd__qgemm_shares(g->m, g->n, threads < c->threads ? threads : c->threads, g->path);
    int32_t *rs = (int32_t *)(void *)s, *cs = (int32_t *)(void *)(s + mmd__round_up(g->m * 4, 64));
    if (g->m <= 0 || g->n <= 0) return;
    job.g = g;
    if (g->a_packed) job.row_sums = (const int32_t *)(const void *)g->a_packed;
    else mmd__qgemm_row_sums(g, rs), job.row_sums = rs;
    for (i = 0; i < g->m && (uint32_t)g->za[i * g->za_step] == (mmd__qgemm_flip_a(g) ? 128u : 0u); ++i) {}
    if (g->b_packed) job.col_sums = (const int32_t *)(const void *)g->b_packed;
    else if (i < g->m) mmd__qgemm_col_sums(g, cs), job.col_sums = cs;
    else job.col_sums = NULL; /* za' is 0 on every row: the sums are not read */
    for (i = 0; i < g->n && (uint32_t)g->zb[i * g->zb_step] + (mmd__qgemm_flip_b(g) ? 128u : 0u) == 0u; ++i) {}
    job.zb_zero = i == g->n;
    job.fused = g->out && !g->out->per_col && g->path == MMD__QG_VNNI && !job.col_sums && !g->zb_step;
    job.scratch = s + mmd__round_up(g->m * 4, 64) + mmd__round_up(g->n * 4, 64);
    job.share = mmd__qgemm_share_bytes(g->m, g->n, g->k, g->path);
#ifndef MMD_CONV_SMALL
    job.by_rows = 0;
#endif
    shares = mmd__split_step(g->m, g->n, mmd__qgemm_mr(g->path), nr, shares, &job.by_rows, &job.step);
    mmd_kernel_parallel(c, mmd__qgemm_task, &job, shares);
}

/* Zero points of input i (absent: 0) as count int32 values in dst, one value repeated when the
   input holds one. */
static void mmd__q_zero_points(const mmd_kernel_ctx *c, int32_t i, int64_t count, int32_t *dst) {
    const mmd_tensor *z = i >= 0 && i < c->input_count ? c->inputs[i] : NULL;
    int64_t j, n = z ? mmd_tensor_numel(z) : 1;
    for (j = 0; j < count; ++j) dst[j] = mmd__q_zp_at(z, n > 1 ? j : 0);
}

/* Carves scratch: *off gets the current offset, which then advances by bytes rounded to 64. */
static uint64_t mmd__q_carve(uint64_t *at, uint64_t bytes) {
    uint64_t off = *at;
    *at += (bytes + 63u) / 64u * 64u;
    return off;
}

/* ---- MatMulInteger 10 and QLinearMatMul 10 ---------------------------------------------------
   MatMulInteger: int32 Y = (A - a_zero_point) * (B - b_zero_point), A's zero point one value or
   one per row (1-D of M), B's one value or one per column (1-D of N). QLinearMatMul: the same
   product requantized with a_scale * b_scale / y_scale (b_scale and b_zero_point may be per
   column) to y_zero_point's type. Both broadcast batch axes as MatMul does. */
typedef struct mmd__qmatmul_data {
    mmd__matmul_data mm;                /* shapes and batch walk (mm.packed unused) */
    int32_t qlinear, ib, za, zb;        /* QLinearMatMul; input of B and of both zero points */
    int64_t a_zn, b_zn, b_sn;           /* zero point counts (1, M or N) and B's scale count */
    int32_t checked, path, threads;
    const uint8_t *packed;              /* a constant 2-D B packed once (mmd__qgemm_pack_b), or NULL */
    uint64_t z_off, c_off, s_off, g_off; /* scratch: zero points, sums, multipliers, the product's */
} mmd__qmatmul_data;

static mmd_status mmd__qmatmul_check(mmd_kernel_ctx *c) {
    const mmd__qmatmul_data *p = (const mmd__qmatmul_data *)c->op_data;
    mmd_status st;
    if (!p->qlinear) return MMD_OK;
    if ((st = mmd__q_check_values(c, 1, -1, 0)) != MMD_OK) return st;
    if ((st = mmd__q_check_values(c, 4, -1, 0)) != MMD_OK) return st;
    return mmd__q_check_values(c, 6, -1, 0);
}

static mmd_status mmd__qmatmul_prepare(mmd_kernel_ctx *c) {
    mmd__qmatmul_data *p = (mmd__qmatmul_data *)c->op_data;
    const mmd_tensor *a, *b;
    int64_t dims[MMD_MAX_RANK], count, m, n, k;
    int32_t rank, out_dtype = MMD_DTYPE_INT32;
    uint64_t at = 0;
    mmd_status st;
    p->qlinear = !strcmp(c->node->op_type, "QLinearMatMul");
    p->ib = p->qlinear ? 3 : 1;
    p->za = 2;
    p->zb = p->qlinear ? 5 : 3;
    st = p->qlinear ? mmd__check_io(c, 8, 8, 1) : mmd__check_io(c, 2, 4, 1);
    if (st == MMD_OK) st = mmd__q_want8(c, 0);
    if (st == MMD_OK) st = mmd__q_want8(c, p->ib);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd__want_rank(c, p->ib, 1, MMD_MAX_RANK);
    if (st == MMD_OK) st = mmd__q_want_like(c, p->za, 0);
    if (st == MMD_OK) st = mmd__q_want_like(c, p->zb, p->ib);
    if (st != MMD_OK) return st;
    a = c->inputs[0];
    b = c->inputs[p->ib];
    if ((st = mmd__matmul_shape(c, a, b, &p->mm, &rank, dims)) != MMD_OK) return st;
    m = p->mm.m;
    n = p->mm.n;
    k = p->mm.k;
    p->a_zn = p->b_zn = p->b_sn = 1;
    if (p->za < c->input_count && c->inputs[p->za] &&
        (st = mmd__q_param(c, p->za, "zero point", a->rank > 1 && !p->qlinear ? m : 0, &p->a_zn)) != MMD_OK)
        return st;
    if (p->zb < c->input_count && c->inputs[p->zb] &&
        (st = mmd__q_param(c, p->zb, "zero point", b->rank > 1 ? n : 0, &p->b_zn)) != MMD_OK)
        return st;
    if (p->qlinear) {
        /* Scales float32 and one value, except B's, which may be one per column. */
        if ((st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__want_dtype(c, 4, MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__want_dtype(c, 6, MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__q_param(c, 1, "scale", 0, &count)) != MMD_OK ||
            (st = mmd__q_param(c, 4, "scale", b->rank > 1 ? n : 0, &p->b_sn)) != MMD_OK ||
            (st = mmd__q_param(c, 6, "scale", 0, &count)) != MMD_OK)
            return st;
        if ((st = mmd__q_want8(c, 7)) != MMD_OK) return st;
        if ((st = mmd__q_param(c, 7, "zero point", 0, &count)) != MMD_OK) return st;
        out_dtype = c->inputs[7]->dtype;
    }
    p->checked = !p->qlinear || (mmd__q_known(c, 1, -1) && mmd__q_known(c, 4, 6));
    if (p->checked && (st = mmd__qmatmul_check(c)) != MMD_OK) return st;
    p->path = mmd__qgemm_path(k);
    p->threads = c->threads > 1 ? c->threads : 1;
    p->z_off = mmd__q_carve(&at, ((uint64_t)m + (uint64_t)n) * 4u);
    p->c_off = mmd__q_carve(&at, p->qlinear ? (uint64_t)m * (uint64_t)n * 4u : 0u);
    p->s_off = mmd__q_carve(&at, p->qlinear ? (uint64_t)n * 4u : 0u);
    p->g_off = mmd__q_carve(&at, mmd__qgemm_scratch(m, n, k, p->path, p->threads));
    if ((st = mmd__scratch_request(c, at)) != MMD_OK) return st;
    p->packed = NULL;
    if (b->rank <= 2 && mmd_tensor_is_const(b) && k > 0 && n > 0) {
        int32_t fresh;
        uint8_t *dst = (uint8_t *)mmd_kernel_packed(c, (size_t)mmd__qgemm_packed_b_size(k, n, p->path), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
        if (dst && fresh) {
            mmd__qgemm g;
            memset(&g, 0, sizeof g);
            g.n = n;
            g.k = k;
            g.b = b->data;
            g.ldb = n;
            g.b_type = b->dtype;
            g.path = p->path;
            mmd__qgemm_pack_b(&g, dst);
        }
        p->packed = dst;
    }
    return mmd__set_output(c, 0, out_dtype, rank, dims);
}

static mmd_status mmd__qmatmul_eval(mmd_kernel_ctx *c) {
    const mmd__qmatmul_data *p = (const mmd__qmatmul_data *)c->op_data;
    const mmd_tensor *a = c->inputs[0], *b = c->inputs[p->ib];
    int64_t m = p->mm.m, n = p->mm.n, k = p->mm.k, idx[MMD_MAX_RANK] = {0}, off[3] = {0, 0, 0}, j;
    char *s = (char *)c->scratch;
    int32_t *za = (int32_t *)(void *)(s + p->z_off), *zb = za + m, *acc = (int32_t *)(void *)(s + p->c_off);
    float *mult = (float *)(void *)(s + p->s_off);
    mmd__qgemm g;
    mmd__q_out o;
    mmd_status st;
    if (!p->checked && (st = mmd__qmatmul_check(c)) != MMD_OK) return st;
    if (mmd__walk_empty(&p->mm.batch)) return MMD_OK;
    mmd__q_zero_points(c, p->za, m, za);
    mmd__q_zero_points(c, p->zb, n, zb);
    memset(&g, 0, sizeof g);
    if (p->qlinear) {
        float as = mmd__q_scale_at(c->inputs[1], 0), ys = mmd__q_scale_at(c->inputs[6], 0);
        for (j = 0; j < n; ++j) mult[j] = as * mmd__q_scale_at(c->inputs[4], p->b_sn > 1 ? j : 0) / ys;
        mmd__q_out_init(&o, c->outputs[0]->dtype, mmd__q_zp_at(c->inputs[7], 0));
        o.ldy = n;
        o.mult = mult;
        o.per_col = 1;
        g.out = &o;
    }
    g.m = m;
    g.n = n;
    g.k = k;
    g.lda = k;
    g.ldb = n;
    g.ldc = n;
    g.a_type = a->dtype;
    g.b_type = b->dtype;
    g.b_packed = p->packed;
    g.za = za;
    g.zb = zb;
    g.za_step = g.zb_step = 1;
    g.path = p->path;
    do {
        g.a = (const char *)a->data + off[1];
        g.b = (const char *)b->data + off[2];
        g.c = p->qlinear ? acc : (int32_t *)c->outputs[0]->data + off[0];
        if (p->qlinear) o.y = (char *)c->outputs[0]->data + off[0];
        mmd__qgemm_run(c, &g, s + p->g_off, p->threads);
    } while (mmd__walk_next(&p->mm.batch, p->mm.batch.rank, idx, off));
    return MMD_OK;
}

/* ---- ConvInteger 10 and QLinearConv 10 -------------------------------------------------------
   ConvInteger: int32 Y = conv(X - x_zero_point, W - w_zero_point), padding contributing zero
   (the zero point itself); QLinearConv: the same plus the int32 bias B, requantized with
   x_scale * w_scale / y_scale (w_scale and w_zero_point one value or one per output channel) to
   y_zero_point's type. 1-D to 3-D, groups, strides, dilations, pads and auto_pad as Conv. Per
   image and group the columns (im2col, the padding X's zero point) go to byte scratch, except
   for a 1x1 stride-1 unpadded kernel, whose columns are X itself, and the product through
   mmd__qgemm; constant weights are packed once at plan time. A 2-D depthwise QLinearConv (one
   input and one output channel per group) runs directly instead (mmd__qdw_*): each channel's
   plane copied once into scratch (int8 as uint8 x + 128) with its padding of x's zero point,
   then each output row summed
   tap by tap (AVX2: two taps per vpmaddwd) into int32 and requantized, channels split over the
   threads. The sums are the same integers as the product's, so the bytes are too. */
typedef struct mmd__qconv_data {
    mmd__window w;
    int64_t batch, in_ch, out_ch, group;
    int64_t gm, gk, gn;                 /* product per image and group */
    int32_t qlinear, iw, zx, zw;        /* QLinearConv; input of W and of both zero points */
    int64_t w_zn, w_sn;                 /* W's zero point and scale counts (1 or M) */
    int32_t checked, path, threads, pointwise, depthwise;
    const uint8_t *packed;              /* constant weights packed once per group, or NULL */
    uint64_t per;                       /* bytes of one group's packed weights */
    uint64_t b_off, z_off, c_off, s_off, g_off; /* scratch: columns, zero points, sums,
                                                   multipliers, the product's */
    int64_t dw_h, dw_w;                 /* depthwise: the padded plane's rows and columns */
    uint64_t dw_share;                  /* depthwise: scratch bytes per share, from g_off */
    int32_t dw_flat;                    /* depthwise: stride 1, the plane summed as one run */
    mmd__act act;                       /* QLinearConv: none, Relu or Clip (mmd__qconv_act) */
    int32_t amx;                        /* direct AMX convolution (mmd__qconv_amx_run) */
    int64_t amx_wp, amx_ps;             /* its padded row width and channel-group plane, pixels */
    uint64_t amx_x, amx_buf, amx_w;     /* its scratch: the padded input, the tiles and biases,
                                           the weights when not packed */
} mmd__qconv_data;

static mmd_status mmd__qconv_check(mmd_kernel_ctx *c) {
    const mmd__qconv_data *p = (const mmd__qconv_data *)c->op_data;
    mmd_status st;
    if (!p->qlinear) return MMD_OK;
    if ((st = mmd__q_check_values(c, 1, -1, 0)) != MMD_OK) return st;
    if ((st = mmd__q_check_values(c, 4, -1, 0)) != MMD_OK) return st;
    return mmd__q_check_values(c, 6, -1, 0);
}

#if defined(MMD__X86)
/* For the direct AMX convolution (>>ops quantization, direct AMX QLinearConv): 1 when W's zero
   points are absent or constant zeros. */
static int32_t mmd__qconv_zw_zero(const mmd_kernel_ctx *c, const mmd__qconv_data *p) {
    const mmd_tensor *z = p->zw < c->input_count ? c->inputs[p->zw] : NULL;
    int64_t i, n;
    if (!z) return 1;
    if (!mmd_tensor_is_const(z)) return 0;
    n = mmd_tensor_numel(z);
    for (i = 0; i < n; ++i)
        if (mmd__q_zp_at(z, i)) return 0;
    return 1;
}

/* The weights' sums per output channel (wrapping, as mmd__qgemm_row_sums), then the tiles. */
static void mmd__qconv_amx_pack(const mmd__qconv_data *p, const int8_t *w, uint8_t *dst) {
    int64_t taps = p->w.k[1] * p->w.k[2], ck = p->in_ch / 64, kk = p->gk, oc, t, ch, b, i;
    int32_t *sums = (int32_t *)(void *)dst;
    int8_t *d = (int8_t *)(dst + mmd__round_up(p->out_ch * 4, 64));
    for (oc = 0; oc < p->out_ch; ++oc) {
        uint32_t sum = 0;
        for (i = 0; i < kk; ++i) sum += (uint32_t)(int32_t)w[oc * kk + i];
        sums[oc] = (int32_t)sum;
        for (t = 0; t < taps; ++t)
            for (ch = 0; ch < ck; ++ch)
                for (b = 0; b < 64; ++b)
                    d[(((oc / 16 * taps + t) * ck + ch) * 16 + oc % 16) * 64 + b] = w[oc * kk + (ch * 64 + b) * taps + t];
    }
}

#endif

static mmd_status mmd__qconv_prepare(mmd_kernel_ctx *c) {
    mmd__qconv_data *p = (mmd__qconv_data *)c->op_data;
    const mmd_tensor *x, *wt, *bias = NULL;
    const int64_t *kshape;
    int64_t nk, i, count, dims[5], taps, cg;
    int32_t out_dtype = MMD_DTYPE_INT32, nsp;
    uint64_t at = 0;
    mmd_status st;
    p->qlinear = !strcmp(c->node->op_type, "QLinearConv");
    p->iw = p->qlinear ? 3 : 1;
    p->zx = 2;
    p->zw = p->qlinear ? 5 : 3;
    st = p->qlinear ? mmd__check_io(c, 8, 9, 1) : mmd__check_io(c, 2, 4, 1);
    if (st == MMD_OK) st = mmd__q_want8(c, 0);
    if (st == MMD_OK) st = mmd__q_want8(c, p->iw);
    if (st == MMD_OK) st = mmd__want_rank(c, 0, 3, 5);
    if (st == MMD_OK) st = mmd__q_want_like(c, p->zx, 0);
    if (st == MMD_OK) st = mmd__q_want_like(c, p->zw, p->iw);
    if (st == MMD_OK) st = mmd_attr_get_int(c, "group", 1, &p->group);
    if (st == MMD_OK) st = mmd_attr_get_ints(c, "kernel_shape", &kshape, &nk);
    if (st != MMD_OK) return st;
    x = c->inputs[0];
    wt = c->inputs[p->iw];
    nsp = x->rank - 2;
    if (wt->rank != x->rank)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "weight '%s' has rank %d, input '%s' has rank %d",
                               wt->name ? wt->name : "", (int)wt->rank, x->name ? x->name : "", (int)x->rank);
    p->batch = x->dims[0];
    p->in_ch = x->dims[1];
    p->out_ch = wt->dims[0];
    if (p->group < 1 || p->group > MMD__ELEMS_MAX || p->in_ch % p->group || p->out_ch % p->group ||
        wt->dims[1] != p->in_ch / p->group)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "group %lld does not fit %lld input channels and weight '%s' [%lld, %lld, ...]",
                               (long long)p->group, (long long)p->in_ch, wt->name ? wt->name : "",
                               (long long)wt->dims[0], (long long)wt->dims[1]);
    if (nk && nk != nsp)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "kernel_shape has %lld values for %d spatial axes",
                               (long long)nk, (int)nsp);
    for (i = 0; i < nk; ++i)
        if (kshape[i] != wt->dims[2 + i])
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "kernel_shape[%d] is %lld but weight '%s' has %lld",
                                   (int)i, (long long)kshape[i], wt->name ? wt->name : "", (long long)wt->dims[2 + i]);
    if ((st = mmd__window_prepare(c, nsp, x->dims + 2, wt->dims + 2, 0, &p->w)) != MMD_OK) return st;
    p->w_zn = p->w_sn = 1;
    if (p->zx < c->input_count && c->inputs[p->zx] && (st = mmd__q_param(c, p->zx, "zero point", 0, &count)) != MMD_OK)
        return st;
    if (p->zw < c->input_count && c->inputs[p->zw] &&
        (st = mmd__q_param(c, p->zw, "zero point", p->out_ch, &p->w_zn)) != MMD_OK)
        return st;
    if (p->qlinear) {
        if ((st = mmd__want_dtype(c, 1, MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__want_dtype(c, 4, MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__want_dtype(c, 6, MMD_DTYPE_FLOAT32)) != MMD_OK ||
            (st = mmd__q_param(c, 1, "scale", 0, &count)) != MMD_OK ||
            (st = mmd__q_param(c, 4, "scale", p->out_ch, &p->w_sn)) != MMD_OK ||
            (st = mmd__q_param(c, 6, "scale", 0, &count)) != MMD_OK || (st = mmd__q_want8(c, 7)) != MMD_OK ||
            (st = mmd__q_param(c, 7, "zero point", 0, &count)) != MMD_OK)
            return st;
        out_dtype = c->inputs[7]->dtype;
        bias = c->input_count > 8 ? c->inputs[8] : NULL;
        if (bias && (st = mmd__want_dtype(c, 8, MMD_DTYPE_INT32)) != MMD_OK) return st;
        if (bias && (bias->rank != 1 || bias->dims[0] != p->out_ch))
            return mmd_kernel_fail(c, MMD_ERR_SHAPE, "bias '%s' must have shape [%lld]", bias->name ? bias->name : "",
                                   (long long)p->out_ch);
        if ((st = mmd__act_attrs(c, &p->act)) != MMD_OK) return st;
        if (p->act.kind != MMD__ACT_NONE && p->act.kind != MMD__ACT_RELU && p->act.kind != MMD__ACT_CLIP)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "QLinearConv takes activation Relu or Clip only");
    }
    p->checked = !p->qlinear || (mmd__q_known(c, 1, -1) && mmd__q_known(c, 4, 6));
    if (p->checked && (st = mmd__qconv_check(c)) != MMD_OK) return st;
    taps = p->w.k[0] * p->w.k[1] * p->w.k[2];
    cg = p->in_ch / p->group;
    p->gm = p->out_ch / p->group;
    p->gk = cg * taps;
    p->gn = p->w.out[0] * p->w.out[1] * p->w.out[2];
    if (p->gn && p->gk > MMD__ELEMS_MAX / p->gn)
        return mmd_kernel_fail(c, MMD_ERR_LIMIT, "im2col columns of %lld x %lld too large", (long long)p->gk, (long long)p->gn);
    p->path = mmd__qgemm_path(p->gk);
    p->threads = c->threads > 1 ? c->threads : 1;
    p->pointwise = taps == 1;
    for (i = 0; i < 3; ++i)
        p->pointwise &= p->w.s[i] == 1 && p->w.pad[i] == 0 && p->w.pad_end[i] == 0 && p->w.out[i] == p->w.in[i];
    p->depthwise = p->qlinear && nsp == 2 && cg == 1 && p->gm == 1 && p->gn > 0;
    if (p->depthwise) {
        /* The padded plane covers every tap of every output and the input with its padding. */
        int64_t i1 = p->w.pad[1] + p->w.in[1], i2 = p->w.pad[2] + p->w.in[2];
        p->dw_h = (p->w.out[1] - 1) * p->w.s[1] + (p->w.k[1] - 1) * p->w.d[1] + 1;
        p->dw_w = (p->w.out[2] - 1) * p->w.s[2] + (p->w.k[2] - 1) * p->w.d[2] + 1;
        p->dw_h = p->dw_h > i1 ? p->dw_h : i1;
        p->dw_w = p->dw_w > i2 ? p->dw_w : i2;
        if (p->dw_w > MMD__ELEMS_MAX / p->dw_h)
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "padded plane of %lld x %lld too large", (long long)p->dw_h,
                                   (long long)p->dw_w);
        /* Stride 1: the output rows are summed as one run over the padded plane (mmd__qdw_task),
           whose reads reach (k - 1) d + 15 bytes past the plane, within its 64 bytes of slack. */
        p->dw_flat = p->w.s[1] == 1 && p->w.s[2] == 1 && (p->w.k[2] - 1) * p->w.d[2] <= 32;
        count = p->dw_flat ? p->w.out[1] * p->dw_w : p->w.out[2];
        p->dw_share = mmd__round_up(taps * (int64_t)sizeof(const uint8_t *), 64) + mmd__round_up(taps * 2, 64) +
                      mmd__round_up(taps * 4 + 4, 64) + mmd__round_up(count * 4, 64) +
                      (p->dw_flat ? mmd__round_up(count + 64, 64) : 0) + mmd__round_up(p->dw_h * p->dw_w + 64, 64);
    }
    p->amx = 0;
#if defined(MMD__X86)
    if (p->qlinear && p->path == MMD__QG_AMX && nsp == 2 && p->group == 1 && taps > 1 && p->in_ch % 64 == 0 &&
        p->out_ch % 32 == 0 && p->w.s[1] == 1 && p->w.s[2] == 1 && p->w.d[1] == 1 && p->w.d[2] == 1 &&
        p->w.out[1] == p->w.in[1] && p->w.out[2] == p->w.in[2] && wt->dtype == MMD_DTYPE_INT8 &&
        mmd_tensor_is_const(wt) && mmd__qconv_zw_zero(c, p)) {
        p->amx_wp = p->w.in[2] + p->w.k[2] - 1;
        p->amx_ps = mmd__round_up((p->w.in[1] + p->w.k[1] - 1) * p->amx_wp + 32 + p->w.k[2], 16);
        p->amx = p->in_ch <= MMD__ELEMS_MAX / p->amx_ps;
    }
#endif
    /* With amx, the scratch of both ways (the direct one's is the smaller), since the weights
       may yet not be packed. */
    p->b_off = mmd__q_carve(&at, p->pointwise || p->depthwise ? 0u : (uint64_t)p->gk * (uint64_t)p->gn);
    p->z_off = mmd__q_carve(&at, (uint64_t)p->out_ch * 4u);
    p->c_off = mmd__q_carve(&at, p->qlinear && !p->depthwise ? (uint64_t)p->gm * (uint64_t)p->gn * 4u : 0u);
    p->s_off = mmd__q_carve(&at, p->qlinear ? (uint64_t)p->out_ch * 4u : 0u);
    p->g_off = mmd__q_carve(&at, p->depthwise ? (uint64_t)p->threads * p->dw_share + 64u
                                              : mmd__qgemm_scratch(p->gm, p->gn, p->gk, p->path, p->threads));
#if defined(MMD__X86)
    if (p->amx) {
        p->amx_x = mmd__q_carve(&at, (uint64_t)p->in_ch * (uint64_t)p->amx_ps + 64u);
        p->amx_buf = mmd__q_carve(&at, (uint64_t)p->threads * 4096u + 64u + (uint64_t)p->out_ch * 4u);
    }
#endif
    p->packed = NULL;
    if (p->depthwise) {
        if ((st = mmd__scratch_request(c, at)) != MMD_OK) return st;
        dims[0] = p->batch;
        dims[1] = p->out_ch;
        dims[2] = p->w.out[1];
        dims[3] = p->w.out[2];
        return mmd__set_output(c, 0, out_dtype, x->rank, dims);
    }
    p->per = mmd__qgemm_packed_a_size(p->gm, p->gk, p->path);
#if defined(MMD__X86)
    if (p->amx) p->per = (uint64_t)mmd__round_up(p->out_ch * 4, 64) + (uint64_t)p->out_ch * (uint64_t)p->gk;
#endif
    if (mmd_tensor_is_const(wt) && p->out_ch > 0 && p->gk > 0) {
        int32_t fresh;
        uint8_t *dst = (uint8_t *)mmd_kernel_packed(c, (size_t)(p->per * (uint64_t)p->group), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
#if defined(MMD__X86)
        if (dst && fresh && p->amx) mmd__qconv_amx_pack(p, (const int8_t *)wt->data, dst);
        else
#endif
        if (dst && fresh) {
            mmd__qgemm g;
            memset(&g, 0, sizeof g);
            g.m = p->gm;
            g.k = p->gk;
            g.lda = p->gk;
            g.a_type = wt->dtype;
            g.path = p->path;
            for (i = 0; i < p->group; ++i) {
                g.a = (const char *)wt->data + i * p->gm * p->gk;
                mmd__qgemm_pack_a(&g, dst + (uint64_t)i * p->per);
            }
        }
        p->packed = dst;
    }
#if defined(MMD__X86)
    /* No packed weights (a session that keeps none): the direct way packs them into scratch. */
    p->amx_w = p->amx && !p->packed ? mmd__q_carve(&at, p->per + 64u) : 0u;
#endif
    if ((st = mmd__scratch_request(c, at)) != MMD_OK) return st;
    dims[0] = p->batch;
    dims[1] = p->out_ch;
    for (i = 0; i < nsp; ++i) dims[2 + i] = p->w.out[3 - nsp + i];
    return mmd__set_output(c, 0, out_dtype, x->rank, dims);
}

/* dst[o] = src[2 o] for o in [0, n): the columns of a stride-2 row. SSE2 keeps the even bytes
   of 32 at a time, never reading past src[2 (n - 1)]: the last sixteen (when n > 16) are the odd
   bytes of the 32 from src[2 (n - 16) - 1] on, overlapping what the loop stored. */
static void mmd__q_gather2(uint8_t *MMD__RESTRICT dst, const uint8_t *MMD__RESTRICT src, int64_t n) {
    int64_t o = 0;
#if defined(MMD__X86)
    __m128i even = _mm_set1_epi16(0xff);
    for (; o + 16 < n; o += 16) {
        __m128i a = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + 2 * o)), even);
        __m128i b = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + 2 * o + 16)), even);
        _mm_storeu_si128((__m128i *)(void *)(dst + o), _mm_packus_epi16(a, b));
    }
    if (o < n && n > 16) {
        __m128i a = _mm_srli_epi16(_mm_loadu_si128((const __m128i *)(const void *)(src + 2 * (n - 16) - 1)), 8);
        __m128i b = _mm_srli_epi16(_mm_loadu_si128((const __m128i *)(const void *)(src + 2 * (n - 16) + 15)), 8);
        _mm_storeu_si128((__m128i *)(void *)(dst + n - 16), _mm_packus_epi16(a, b));
        return;
    }
#endif
    for (; o < n; ++o) dst[o] = src[2 * o];
}

/* The columns of one image and group: row ci * taps + tap, column the output position, value
   x's byte, x's zero point where the tap falls in the padding (so it adds nothing). x points at
   the group's first channel. A 2-D (or 1-D) stride-1 window whose output has the input's size
   (3x3 pad 1) copies each tap's row as the whole plane moved by the tap's offset, then writes
   the zero point over the rows and columns the tap takes from the padding; other windows go
   row by row. This call writes the rows of input channels [c0, c1), so that threads can share
   the channels. */
static void mmd__qconv_columns(const mmd__qconv_data *p, const uint8_t *x, uint8_t zp, uint8_t *col, int64_t c0,
                               int64_t c1) {
    const mmd__window *w = &p->w;
    int64_t ci, t0, t1, t2, o0, o1, o, lo, hi, r0, r1;
    int64_t plane = w->in[0] * w->in[1] * w->in[2], ow = w->out[2], oh = w->out[1];
    int32_t shift = w->k[0] == 1 && w->in[0] == 1 && w->out[0] == 1 && w->s[1] == 1 && w->s[2] == 1 &&
                    oh == w->in[1] && ow == w->in[2];
    col += c0 * (p->gk / (p->in_ch / p->group)) * p->gn;
    for (ci = c0; ci < c1; ++ci)
        for (t0 = 0; t0 < w->k[0]; ++t0)
            for (t1 = 0; t1 < w->k[1]; ++t1)
                for (t2 = 0; t2 < w->k[2]; ++t2) {
                    uint8_t *dst = col;
                    int64_t dx = t2 * w->d[2] - w->pad[2];
                    col += p->gn;
                    mmd__valid_range(dx, w->s[2], ow, w->in[2], &lo, &hi);
                    if (shift) {
                        /* Output i reads input i + off; rows r0 to r1 have their input row. */
                        int64_t dy = t1 * w->d[1] - w->pad[1], off = dy * ow + dx, a, b;
                        const uint8_t *src = x + ci * plane;
                        mmd__valid_range(dy, 1, oh, w->in[1], &r0, &r1);
                        a = r0 * ow > -off ? r0 * ow : -off;
                        b = r1 * ow < plane - off ? r1 * ow : plane - off;
                        memset(dst, zp, (size_t)(r0 * ow));
                        if (a < b) memcpy(dst + a, src + a + off, (size_t)(b - a));
                        memset(dst + r1 * ow, zp, (size_t)((oh - r1) * ow));
                        if (lo > 0 || hi < ow)
                            for (o1 = r0; o1 < r1; ++o1) {
                                for (o = 0; o < lo; ++o) dst[o1 * ow + o] = zp;
                                for (o = hi; o < ow; ++o) dst[o1 * ow + o] = zp;
                            }
                        continue;
                    }
                    for (o0 = 0; o0 < w->out[0]; ++o0)
                        for (o1 = 0; o1 < oh; ++o1, dst += ow) {
                            int64_t i0 = o0 * w->s[0] + t0 * w->d[0] - w->pad[0];
                            int64_t i1 = o1 * w->s[1] + t1 * w->d[1] - w->pad[1];
                            const uint8_t *src;
                            if (i0 < 0 || i0 >= w->in[0] || i1 < 0 || i1 >= w->in[1] || lo >= hi) {
                                memset(dst, zp, (size_t)ow);
                                continue;
                            }
                            /* Row i1 of plane i0; entries lo to hi are in it. */
                            src = x + ci * plane + (i0 * w->in[1] + i1) * w->in[2];
                            memset(dst, zp, (size_t)lo);
                            if (w->s[2] == 1) memcpy(dst + lo, src + lo + dx, (size_t)(hi - lo));
                            else if (w->s[2] == 2) mmd__q_gather2(dst + lo, src + 2 * lo + dx, hi - lo);
                            else
                                for (o = lo; o < hi; ++o) dst[o] = src[o * w->s[2] + dx];
                            memset(dst + hi, zp, (size_t)(ow - hi));
                        }
                }
}

#if defined(MMD__X86)
/* ---- direct AMX QLinearConv ----
   A 2-D stride-1 convolution whose output has the input's size (3x3 pad 1 and the like), of
   int8 weights with zero point 0, 64k input and 32k output channels, on a CPU that runs the
   product with AMX: no columns. The input is copied once into a padded image of groups of four
   channels, [C / 4][(H + kh - 1) (W + kw - 1) + slack][4] (x's zero point in the padding; int8
   moved to uint8), so that for any tap the 16 consecutive positions of the padded grid that a
   tile of B covers, 16 channel groups deep, are one tile load of stride one plane. Output
   positions run over the padded grid (p = row (W + kw - 1) + column, those past W computed and
   dropped, kw - 1 of each row), tap (ty, tx) reading position p + ty (W + kw - 1) + tx. Each
   step of a 32 x 32 block (32 channels, 32 positions) is two weight tiles (16 channels x 64 K
   values of one tap, packed [M / 16][taps][C / 64][16][64] by mmd__qconv_amx_pack) and two
   input tiles into four tiles of C, TDPBSUD as in mmd__qgemm_ukernel_amx. The sums are those of
   the columns' product, the zero-point term folded into the bias as there, and each row is
   requantized by mmd__requantize_row: the same bytes. */
typedef struct mmd__qamx_job {
    const mmd__qconv_data *p;
    const mmd__q_out *o;
    const uint8_t *x;                   /* the image */
    uint8_t *xp;                        /* its padded channel groups */
    const int8_t *w;                    /* the weight tiles */
    const int32_t *bias;                /* per output channel, the zero-point term folded in */
    const float *mult;
    char *y;                            /* the image's output */
    int32_t *bufs;                      /* 32 x 32 sums per share */
    int32_t flip;
    uint8_t zx;                         /* x's zero point as uint8 */
    int64_t tiles, step;
} mmd__qamx_job;

/* Channel groups [lo, hi) of the image into the padded planes. */
static void mmd__qconv_amx_pad(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__qamx_job *j = (const mmd__qamx_job *)data;
    const mmd__qconv_data *p = j->p;
    int64_t h = p->w.in[1], w = p->w.in[2], hw = h * w, g, r, i, t;
    (void)share;
    for (g = lo; g < hi; ++g) {
        uint8_t *d = j->xp + g * p->amx_ps * 4;
        const uint8_t *src = j->x + 4 * g * hw;
        memset(d, j->zx, (size_t)(p->amx_ps * 4));
        for (r = 0; r < h; ++r) {
            const uint8_t *r0 = src + r * w;
            uint8_t *dr = d + ((r + p->w.pad[1]) * p->amx_wp + p->w.pad[2]) * 4;
            for (i = 0; i + 16 <= w; i += 16)
                mmd__qgemm_interleave16(r0 + i, r0 + hw + i, r0 + 2 * hw + i, r0 + 3 * hw + i, j->flip, dr + 4 * i);
            for (; i + 8 <= w; i += 8)
                mmd__qgemm_interleave8(r0 + i, r0 + hw + i, r0 + 2 * hw + i, r0 + 3 * hw + i, j->flip, dr + 4 * i);
            for (; i < w; ++i)
                for (t = 0; t < 4; ++t) dr[4 * i + t] = (uint8_t)(r0[t * hw + i] ^ j->flip);
        }
    }
}

/* Position tiles [t0, t1) (32 positions each) over every output channel, channel blocks outer,
   so that a block's weights (2 x taps x C / 64 KB: 144 KB for ResNet-18's layer4) are read from
   memory once per share, not once per tile. */
MMD__TARGET_AMX static void mmd__qconv_amx_tiles(const mmd__qamx_job *j, int64_t t0, int64_t t1, int32_t *buf) {
    const mmd__qconv_data *p = j->p;
    int64_t kw = p->w.k[2], taps = p->w.k[1] * kw, ck = p->in_ch / 64, wp = p->amx_wp, ps4 = p->amx_ps * 4;
    int64_t h = p->w.out[1], w = p->w.out[2], n = h * wp, tile, ob, t, ch, i, q;
    __m512 lo = _mm512_set1_ps((float)(j->o->qmin - j->o->zp)), hi = _mm512_set1_ps((float)(j->o->qmax - j->o->zp));
    __m512i zp = _mm512_set1_epi32(j->o->zp);
    uint8_t bytes[32];
    for (ob = 0; ob < p->out_ch; ob += 32)
        for (tile = t0; tile < t1; ++tile) {
            int64_t p0 = tile * 32;
            const int8_t *w0 = j->w + ob * taps * ck * 64, *w1 = w0 + 16 * taps * ck * 64;
            _tile_zero(0);
            _tile_zero(1);
            _tile_zero(2);
            _tile_zero(3);
            for (t = 0; t < taps; ++t) {
                const uint8_t *xb = j->xp + (p0 + t / kw * wp + t % kw) * 4;
                for (ch = 0; ch < ck; ++ch, w0 += 1024, w1 += 1024, xb += 16 * ps4) {
                    _tile_loadd(4, w0, 64);
                    _tile_loadd(5, w1, 64);
                    _tile_loadd(6, xb, ps4);
                    _tile_loadd(7, xb + 64, ps4);
                    _tile_dpbsud(0, 4, 6);
                    _tile_dpbsud(1, 4, 7);
                    _tile_dpbsud(2, 5, 6);
                    _tile_dpbsud(3, 5, 7);
                }
            }
            _tile_stored(0, buf, 128);
            _tile_stored(1, buf + 16, 128);
            _tile_stored(2, buf + 512, 128);
            _tile_stored(3, buf + 528, 128);
            /* Each channel's 32 sums requantized, then stored row by row of the output (the
               padding's columns dropped). */
            for (i = 0; i < 32; ++i) {
                const int32_t *acc = buf + i * 32;
                int32_t bias = j->bias[ob + i];
                float mult = j->mult[ob + i];
                _mm_storeu_si128((__m128i *)(void *)bytes, mmd__requantize16(_mm512_loadu_si512((const void *)acc), bias,
                                                                             mult, lo, hi, zp));
                _mm_storeu_si128((__m128i *)(void *)(bytes + 16),
                                 mmd__requantize16(_mm512_loadu_si512((const void *)(acc + 16)), bias, mult, lo, hi, zp));
                for (q = p0; q < p0 + 32 && q < n;) {
                    int64_t r = q / wp, x = q % wp, len = w - x;
                    if (x >= w) {
                        q += wp - x;
                        continue;
                    }
                    if (len > p0 + 32 - q) len = p0 + 32 - q;
                    memcpy(j->y + ((ob + i) * h + r) * w + x, bytes + (q - p0), (size_t)len);
                    q += len;
                }
            }
        }
}

static void mmd__qconv_amx_task(void *data, int32_t index) {
    const mmd__qamx_job *j = (const mmd__qamx_job *)data;
    int64_t t0 = index * j->step, t1 = t0 + j->step < j->tiles ? t0 + j->step : j->tiles;
    if (t0 >= t1) return;
    mmd__qgemm_amx_begin();
    mmd__qconv_amx_tiles(j, t0, t1, j->bufs + index * 1024);
    mmd__qgemm_amx_end();
}

static void mmd__qconv_amx_run(mmd_kernel_ctx *c, const mmd__qconv_data *p, const mmd__q_out *o, int32_t zx,
                               const int32_t *bias, const float *mult) {
    char *s = (char *)c->scratch;
    uint8_t *pk = p->packed ? (uint8_t *)(uintptr_t)p->packed
                            : (uint8_t *)(((uintptr_t)(s + p->amx_w) + 63u) & ~(uintptr_t)63u);
    const int32_t *sums = (const int32_t *)(const void *)pk;
    int32_t *bufs = (int32_t *)(void *)(((uintptr_t)(s + p->amx_buf) + 63u) & ~(uintptr_t)63u);
    int32_t *b2 = bufs + (int64_t)p->threads * 1024, th = p->threads < c->threads ? p->threads : c->threads, shares;
    int64_t hw = p->w.in[1] * p->w.in[2], img, i;
    mmd__qamx_job j;
    if (!p->packed) mmd__qconv_amx_pack(p, (const int8_t *)c->inputs[p->iw]->data, pk);
    j.p = p;
    j.o = o;
    j.flip = c->inputs[0]->dtype == MMD_DTYPE_INT8 ? 0x80 : 0;
    j.zx = (uint8_t)(zx + j.flip);
    for (i = 0; i < p->out_ch; ++i)
        b2[i] = (int32_t)((bias ? (uint32_t)bias[i] : 0u) - (uint32_t)j.zx * (uint32_t)sums[i]);
    j.bias = b2;
    j.mult = mult;
    j.w = (const int8_t *)(pk + mmd__round_up(p->out_ch * 4, 64));
    j.xp = (uint8_t *)(((uintptr_t)(s + p->amx_x) + 63u) & ~(uintptr_t)63u);
    j.bufs = bufs;
    j.tiles = (p->w.out[1] * p->amx_wp + 31) / 32;
    shares = th < 1 ? 1 : th;
    if (shares > j.tiles) shares = (int32_t)j.tiles;
    j.step = (j.tiles + shares - 1) / shares;
    for (img = 0; img < p->batch; ++img) {
        j.x = (const uint8_t *)c->inputs[0]->data + img * p->in_ch * hw;
        j.y = (char *)c->outputs[0]->data + img * p->out_ch * hw;
        mmd__parallel_range(c, p->in_ch / 4, 1 + MMD__EW_GRAIN / (p->amx_ps * 4 + 1), 1, p->threads, mmd__qconv_amx_pad, &j);
        mmd_kernel_parallel(c, mmd__qconv_amx_task, &j, shares);
    }
}
#endif

/* ---- depthwise QLinearConv ---- */
/* acc[o] = sum over taps t of wv[t] (rows[t][o s] - zx) for o in [0, n): rows[t] is tap t's
   start in the padded plane. */
static void mmd__qdw_row_c(const uint8_t *const *rows, const int16_t *wv, int64_t taps, int64_t s, int64_t n,
                           int32_t zx, int32_t *acc) {
    int64_t o, t;
    for (o = 0; o < n; ++o) {
        int32_t sum = 0;
        for (t = 0; t < taps; ++t) sum += wv[t] * ((int32_t)rows[t][o * s] - zx);
        acc[o] = sum;
    }
}

#if defined(MMD__X86)
/* mmd__qdw_row_c for strides 1 and 2, sixteen outputs at a time, the last sixteen past n
   too (acc holds n rounded up to 16, and the reads past a row stay within the padded plane's
   64 bytes of slack): two taps at a time, wpair[t / 2] holding taps t and t + 1 (0 past the
   last) as int16 halves; the inputs minus zx fit int16, and vpmaddwd sums each pair's two
   products into int32 exactly. Stride 2 keeps the even bytes of 32. */
MMD__TARGET_AVX2 static void mmd__qdw_row_avx2(const uint8_t *const *rows, const int32_t *wpair, int64_t taps,
                                                  int64_t s, int64_t n, int32_t zx, int32_t *acc) {
    __m256i vz = _mm256_set1_epi16((short)zx), even = _mm256_set1_epi16(0xff);
    int64_t o, t;
    for (o = 0; o < n; o += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = lo;
        for (t = 0; t < taps; t += 2) {
            const uint8_t *r0 = rows[t] + o * s, *r1 = rows[t + 1 < taps ? t + 1 : t] + o * s;
            __m256i x0, x1, w = _mm256_set1_epi32(wpair[t / 2]);
            if (s == 1) {
                x0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)r0));
                x1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)r1));
            } else {
                x0 = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)r0), even);
                x1 = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)r1), even);
            }
            x0 = _mm256_sub_epi16(x0, vz);
            x1 = _mm256_sub_epi16(x1, vz);
            /* Per 128-bit lane: outputs 0-3 and 8-11 in lo, 4-7 and 12-15 in hi. */
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), w));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), w));
        }
        _mm256_storeu_si256((__m256i *)(void *)(acc + o), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(acc + o + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
}
#endif

#if defined(MMD__NEON)
/* mmd__qdw_row_avx2 on NEON, reading the same bytes (sixteen outputs at a time, the last past n;
   stride 2 keeps the even bytes of 32, which vld2 separates): each tap's inputs minus zx
   widened to int16 by USUBL (exact: they lie within 255 of 0) and summed with SMLAL by the
   tap's weight. */
static void mmd__qdw_row_neon(const uint8_t *const *rows, const int16_t *wv, int64_t taps, int64_t s, int64_t n,
                              int32_t zx, int32_t *acc) {
    uint8x8_t vz = vdup_n_u8((uint8_t)zx);
    int64_t o, t;
    for (o = 0; o < n; o += 16) {
        int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
        for (t = 0; t < taps; ++t) {
            const uint8_t *r = rows[t] + o * s;
            uint8x16_t x = s == 1 ? vld1q_u8(r) : vld2q_u8(r).val[0];
            int16x8_t lo = vreinterpretq_s16_u16(vsubl_u8(vget_low_u8(x), vz));
            int16x8_t hi = vreinterpretq_s16_u16(vsubl_u8(vget_high_u8(x), vz));
            a0 = vmlal_n_s16(a0, vget_low_s16(lo), wv[t]);
            a1 = vmlal_n_s16(a1, vget_high_s16(lo), wv[t]);
            a2 = vmlal_n_s16(a2, vget_low_s16(hi), wv[t]);
            a3 = vmlal_n_s16(a3, vget_high_s16(hi), wv[t]);
        }
        vst1q_s32(acc + o, a0);
        vst1q_s32(acc + o + 4, a1);
        vst1q_s32(acc + o + 8, a2);
        vst1q_s32(acc + o + 12, a3);
    }
}
#endif

typedef struct mmd__qdw_job {
    const mmd__qconv_data *p;
    const uint8_t *x;                   /* the image's first channel */
    const void *w;                      /* weights [C, 1, kh, kw] */
    int32_t w_type, zx;                 /* zx: x's zero point as the plane's bytes have it */
    int32_t flip;                       /* 0x80 for int8 x, stored as uint8 (x + 128) */
    const int32_t *zw;
    const mmd__q_out *out;              /* bias and multiplier per channel; y unused */
    char *y;                            /* the image's first output channel */
    uint8_t *scratch;                   /* p->dw_share bytes per share */
} mmd__qdw_job;

/* Channels [lo, hi) of one image. */
static void mmd__qdw_task(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__qdw_job *j = (const mmd__qdw_job *)data;
    const mmd__qconv_data *p = j->p;
    const mmd__window *w = &p->w;
    int64_t taps = w->k[1] * w->k[2], oh = w->out[1], ow = w->out[2], ph = p->dw_h, pw = p->dw_w;
    int64_t plane = w->in[1] * w->in[2], ch, t, r, o1;
    uint8_t *s = j->scratch + (uint64_t)share * p->dw_share;
    const uint8_t **rows = (const uint8_t **)(void *)s;
    int16_t *wv = (int16_t *)(void *)(s + mmd__round_up(taps * (int64_t)sizeof(const uint8_t *), 64));
    int32_t *wpair = (int32_t *)(void *)((uint8_t *)wv + mmd__round_up(taps * 2, 64));
    int32_t *acc = (int32_t *)(void *)((uint8_t *)wpair + mmd__round_up(taps * 4 + 4, 64));
    /* With dw_flat, output (o1, o2) sums the plane from o1 pw + o2 on, so all rows are one run of
       oh pw sums (the pw - ow past each row's end unused), summed and requantized into q at once. */
    int64_t n = p->dw_flat ? oh * pw : ow;
    uint8_t *q = (uint8_t *)acc + mmd__round_up(n * 4, 64);
    uint8_t *pad = q + (p->dw_flat ? mmd__round_up(n + 64, 64) : 0), zx = (uint8_t)j->zx;
    memset(pad + ph * pw, zx, 64);
    for (ch = lo; ch < hi; ++ch) {
        const uint8_t *src = j->x + ch * plane;
        int32_t zw = j->zw[ch];
        for (r = 0; r < ph; ++r) {
            uint8_t *d = pad + r * pw;
            int64_t ir = r - w->pad[1];
            if (ir < 0 || ir >= w->in[1]) {
                memset(d, zx, (size_t)pw);
                continue;
            }
            memset(d, zx, (size_t)w->pad[2]);
            if (j->flip)
                for (t = 0; t < w->in[2]; ++t) d[w->pad[2] + t] = (uint8_t)(src[ir * w->in[2] + t] ^ 0x80);
            else
                memcpy(d + w->pad[2], src + ir * w->in[2], (size_t)w->in[2]);
            memset(d + w->pad[2] + w->in[2], zx, (size_t)(pw - w->pad[2] - w->in[2]));
        }
        for (t = 0; t < taps; ++t) wv[t] = (int16_t)((int32_t)mmd__load_int(j->w_type, j->w, ch * taps + t) - zw);
        for (t = 0; t < taps; t += 2)
            wpair[t / 2] = (int32_t)(((uint32_t)(uint16_t)(t + 1 < taps ? wv[t + 1] : 0) << 16) | (uint16_t)wv[t]);
        for (o1 = 0; o1 < (p->dw_flat ? 1 : oh); ++o1) {
            char *y = j->y + (ch * oh + o1) * ow;
            for (t = 0; t < taps; ++t)
                rows[t] = pad + (o1 * w->s[1] + (t / w->k[2]) * w->d[1]) * pw + (t % w->k[2]) * w->d[2];
#if defined(MMD__X86)
            if (p->path != MMD__QG_PORTABLE && w->s[2] <= 2) mmd__qdw_row_avx2(rows, wpair, taps, w->s[2], n, j->zx, acc);
            else
#elif defined(MMD__NEON)
            if (p->path != MMD__QG_PORTABLE && w->s[2] <= 2) mmd__qdw_row_neon(rows, wv, taps, w->s[2], n, j->zx, acc);
            else
#endif
                mmd__qdw_row_c(rows, wv, taps, w->s[2], n, j->zx, acc);
            mmd__requantize_row(acc, n, j->out->bias ? j->out->bias[ch] : 0, j->out->mult + ch, 0, j->out,
                                p->dw_flat ? (void *)q : (void *)y, p->path);
            if (p->dw_flat)
                for (r = 0; r < oh; ++r) memcpy(y + r * ow, q + r * pw, (size_t)ow);
        }
    }
}

/* Depthwise QLinearConv over every image (zero points and multipliers ready in scratch). */
static void mmd__qdw_run(const mmd_kernel_ctx *c, mmd__qdw_job *j, int64_t in_plane) {
    const mmd__qconv_data *p = j->p;
    const uint8_t *x = j->x;
    char *y = j->y;
    int64_t img;
    for (img = 0; img < p->batch; ++img) {
        j->x = x + img * p->in_ch * in_plane;
        j->y = y + img * p->out_ch * p->gn;
        mmd__parallel_range(c, p->out_ch, 1, 1, p->threads, mmd__qdw_task, j);
    }
}

typedef struct mmd__qcol_job {
    const mmd__qconv_data *p;
    const uint8_t *x;
    uint8_t zp, *col;
} mmd__qcol_job;

static void mmd__qcol_task(void *data, int32_t share, int64_t lo, int64_t hi) {
    const mmd__qcol_job *j = (const mmd__qcol_job *)data;
    (void)share;
    mmd__qconv_columns(j->p, j->x, j->zp, j->col, lo, hi);
}

/* The quantized bounds of QLinearConv's fused activation on o (type range and zero point set):
   each float bound quantized as QuantizeLinear with y's scale ys would, so that the clamp is
   exactly DequantizeLinear -> Relu or Clip -> QuantizeLinear in that scale (mmd__rw_qclamp). A
   Clip whose min exceeds its max gives max, as min(max(x, lo), hi) does. */
static void mmd__qconv_act(const mmd__act *a, float ys, mmd__q_out *o) {
    float lo = (float)(o->qmin - o->zp), hi = (float)(o->qmax - o->zp);
    int32_t qlo, qhi;
    if (a->kind == MMD__ACT_NONE) return;
    qlo = a->kind == MMD__ACT_RELU ? o->zp : mmd__q_round(a->alpha / ys, lo, hi) + o->zp;
    qhi = a->kind == MMD__ACT_RELU ? o->qmax : mmd__q_round(a->beta / ys, lo, hi) + o->zp;
    o->qmin = qlo;
    o->qmax = qhi > qlo ? qhi : qlo;
    if (qhi < qlo) o->qmin = qhi;
}

static mmd_status mmd__qconv_eval(mmd_kernel_ctx *c) {
    const mmd__qconv_data *p = (const mmd__qconv_data *)c->op_data;
    const mmd_tensor *x = c->inputs[0], *wt = c->inputs[p->iw];
    const int32_t *bias = p->qlinear && c->input_count > 8 && c->inputs[8] ? (const int32_t *)c->inputs[8]->data : NULL;
    char *s = (char *)c->scratch, *y = (char *)c->outputs[0]->data;
    uint8_t *col = (uint8_t *)(s + p->b_off);
    int32_t *zw = (int32_t *)(void *)(s + p->z_off), *acc = (int32_t *)(void *)(s + p->c_off), zx;
    float *mult = (float *)(void *)(s + p->s_off);
    int64_t in_plane = p->w.in[0] * p->w.in[1] * p->w.in[2], cg = p->in_ch / p->group, img, g, i;
    mmd__qgemm q;
    mmd__q_out o;
    mmd__qcol_job cj;
    mmd_status st;
    if (!p->checked && (st = mmd__qconv_check(c)) != MMD_OK) return st;
    if (mmd_tensor_numel(c->outputs[0]) == 0) return MMD_OK; /* else group up to 2^40 could loop for nothing */
    zx = mmd__q_zp_at(p->zx < c->input_count ? c->inputs[p->zx] : NULL, 0);
    mmd__q_zero_points(c, p->zw, p->out_ch, zw);
    memset(&o, 0, sizeof o);
    if (p->qlinear) {
        float xs = mmd__q_scale_at(c->inputs[1], 0), ys = mmd__q_scale_at(c->inputs[6], 0);
        for (i = 0; i < p->out_ch; ++i) mult[i] = xs * mmd__q_scale_at(c->inputs[4], p->w_sn > 1 ? i : 0) / ys;
        mmd__q_out_init(&o, c->outputs[0]->dtype, mmd__q_zp_at(c->inputs[7], 0));
        mmd__qconv_act(&p->act, ys, &o);
        o.ldy = p->gn;
    }
    if (p->depthwise) {
        mmd__qdw_job j;
        j.p = p;
        j.x = (const uint8_t *)x->data;
        j.w = wt->data;
        j.w_type = wt->dtype;
        j.flip = x->dtype == MMD_DTYPE_INT8 ? 0x80 : 0;
        j.zx = zx + j.flip;
        j.zw = zw;
        o.bias = bias;
        o.mult = mult;
        j.out = &o;
        j.y = y;
        j.scratch = (uint8_t *)(((uintptr_t)(s + p->g_off) + 63u) & ~(uintptr_t)63u);
        mmd__qdw_run(c, &j, in_plane);
        return MMD_OK;
    }
#if defined(MMD__X86)
    if (p->amx) {
        mmd__qconv_amx_run(c, p, &o, zx, bias, mult);
        return MMD_OK;
    }
#endif
    memset(&q, 0, sizeof q);
    q.m = p->gm;
    q.n = p->gn;
    q.k = p->gk;
    q.lda = p->gk;
    q.ldb = p->gn;
    q.ldc = p->gn;
    q.a_type = wt->dtype;
    q.b_type = x->dtype;
    q.zb = &zx;
    q.za_step = 1;
    q.path = p->path;
    q.out = p->qlinear ? &o : NULL;
    cj.p = p;
    cj.zp = (uint8_t)zx;
    cj.col = col;
    for (img = 0; img < p->batch; ++img)
        for (g = 0; g < p->group; ++g) {
            int64_t m0 = g * p->gm, oc = (img * p->out_ch + m0) * p->gn;
            const uint8_t *xg = (const uint8_t *)x->data + (img * p->in_ch + g * cg) * in_plane;
            if (p->pointwise) {
                q.b = xg;
            } else {
                /* Input channels over the threads, a few planes' worth of bytes each at least (a
                   weight of no input channels has none: cg 0, nothing to split). */
                int64_t per_channel = cg > 0 ? p->gk / cg * p->gn : 0;
                cj.x = xg;
                mmd__parallel_range(c, cg, 1 + MMD__EW_GRAIN / (per_channel + 1), 1, p->threads, mmd__qcol_task, &cj);
                q.b = col;
            }
            q.a = (const char *)wt->data + m0 * p->gk;
            q.a_packed = p->packed ? p->packed + (uint64_t)g * p->per : NULL;
            q.za = zw + m0;
            q.c = p->qlinear ? acc : (int32_t *)(void *)y + oc;
            if (p->qlinear) {
                o.y = y + oc;
                o.bias = bias ? bias + m0 : NULL;
                o.mult = mult + m0;
            }
            mmd__qgemm_run(c, &q, s + p->g_off, p->threads);
        }
    return MMD_OK;
}

/* ==== >>ops recurrent ==== */
/* LSTM, GRU and RNN (opset 7 on; `layout` from 14), float32. Per direction, the input
   projection of every time step, X * W^T, is one product through the shared GEMM into scratch
   (rows in X's own order, so both layouts read X in place); each step then runs one product
   H(t-1) * R^T of `batch` rows and applies the gates row by row. Constant W and R are packed
   once at plan time (W^T and R^T as the GEMM's B). Gate orders are the spec's: LSTM i, o, f, c
   (peepholes i, o, f), GRU z, r, h, RNN one gate.
   sequence_lens: batch b runs lens[b] steps (a reverse direction from lens[b] - 1 down to 0);
   its Y rows past that are zero. A length of 0 leaves zero final states. A length below 0 or
   above seq_length fails at eval with MMD_ERR_INDEX naming it, as ONNX Runtime refuses it
   ("Invalid value/s in sequence_lens"), rather than being clamped.
   clip (when present, > 0) bounds every gate's input to [-clip, clip] before its activation,
   after bias and peephole terms are added; the cell state itself is not clipped (ONNX Runtime
   does the same). input_forget couples the forget gate to the input gate: f = 1 - i. */
enum { MMD__RNN_SIMPLE, MMD__RNN_GRU, MMD__RNN_LSTM };

typedef struct mmd__rnn_data {
    int32_t cell;                       /* MMD__RNN_* */
    int32_t gates;                      /* G: blocks of `hidden` rows in W and R (1, 3, 4) */
    int32_t dirs, reverse;              /* direction count; reverse: the one direction runs backwards */
    int32_t layout, lbr, input_forget, has_clip;
    float clip;
    int64_t seq, batch, input, hidden;
    mmd__act act[2][3];                 /* per direction: f, g, h (as many as the cell uses) */
    int32_t isa, threads;
    const float *packed;                /* per direction W^T then R^T (GRU with lbr 0: the z, r
                                           columns and the h columns apart), or NULL */
    int64_t pack_w, pack_r;             /* floats of W^T's and of R^T's packs, per direction */
    size_t gemm_bytes;                  /* scratch: the products' own, then the buffers below */
} mmd__rnn_data;

/* Case-insensitive equality of activation names, as ONNX Runtime compares them. */
static int32_t mmd__rnn_name_eq(const char *a, const char *b) {
    for (; *a && *b; ++a, ++b) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y) return 0;
    }
    return *a == *b;
}

/* Reads `activations`, `activation_alpha` and `activation_beta`: per_dir functions for each
   direction (a list of per_dir for two directions serves both). Alphas and betas are consumed
   in order by the functions that take them; a missing one is the matching operator's default. */
static mmd_status mmd__rnn_acts(mmd_kernel_ctx *c, mmd__rnn_data *p, int32_t per_dir,
                                const char *const *defaults) {
    static const char *const names[] = {"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu",
                                        "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu",
                                        "Softsign", "Softplus"};
    static const int32_t kinds[] = {MMD__ACT_RELU, MMD__ACT_TANH, MMD__ACT_SIGMOID, MMD__ACT_AFFINE,
                                    MMD__ACT_LEAKY_RELU, MMD__ACT_THRESHOLDED_RELU, MMD__ACT_SCALED_TANH,
                                    MMD__ACT_HARD_SIGMOID, MMD__ACT_ELU, MMD__ACT_SOFTSIGN, MMD__ACT_SOFTPLUS};
    static const int32_t takes[] = {0, 0, 0, 2, 1, 1, 2, 2, 1, 0, 0};
    static const float alpha0[] = {0, 0, 0, 1.0f, 0.01f, 1.0f, 1.0f, 0.2f, 1.0f, 0, 0};
    static const float beta0[] = {0, 0, 0, 0, 0, 0, 1.0f, 0.5f, 0, 0, 0};
    const mmd_attr *at = mmd_node_attr(c->node, "activations");
    const float *alpha, *beta;
    int64_t na, nb, ia = 0, ib = 0, count = per_dir, i;
    mmd_status st;
    if ((st = mmd_attr_get_floats(c, "activation_alpha", &alpha, &na)) != MMD_OK) return st;
    if ((st = mmd_attr_get_floats(c, "activation_beta", &beta, &nb)) != MMD_OK) return st;
    if (at) {
        if (at->type != MMD_ATTR_STRINGS)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute activations must be a list of strings");
        count = at->count;
        if (count != per_dir && count != (int64_t)per_dir * p->dirs)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has %lld activations, expects %d per direction",
                                   (long long)count, (int)per_dir);
    }
    for (i = 0; i < count; ++i) {
        const char *name = at ? at->strings[i] : defaults[i];
        mmd__act *a = &p->act[i / per_dir][i % per_dir];
        int32_t j;
        for (j = 0; j < 11 && !mmd__rnn_name_eq(name, names[j]); ++j) {}
        if (j == 11)
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "activation '%s' is not one the spec lists", name);
        a->kind = kinds[j];
        a->alpha = takes[j] >= 1 && ia < na ? alpha[ia++] : alpha0[j];
        a->beta = takes[j] >= 2 && ib < nb ? beta[ib++] : beta0[j];
    }
    if (count == per_dir && p->dirs == 2)
        for (i = 0; i < per_dir; ++i) p->act[1][i] = p->act[0][i];
    return MMD_OK;
}

/* Fails unless input i, when present, has the given dtype (MMD_ERR_DTYPE), rank and dims
   (MMD_ERR_SHAPE). */
static mmd_status mmd__rnn_want_dims(mmd_kernel_ctx *c, int32_t i, int32_t dtype, int32_t rank, const int64_t *dims,
                                     const char *what) {
    const mmd_tensor *t = i < c->input_count ? c->inputs[i] : NULL;
    char got[96], want[96];
    int32_t d, ok;
    if (!t) return MMD_OK;
    if (t->dtype != dtype)
        return mmd_kernel_fail(c, MMD_ERR_DTYPE, "%s is %s, expects %s", what, mmd_dtype_name(t->dtype),
                               mmd_dtype_name(dtype));
    ok = t->rank == rank;
    for (d = 0; ok && d < rank; ++d) ok = t->dims[d] == dims[d];
    if (ok) return MMD_OK;
    return mmd_kernel_fail(c, MMD_ERR_SHAPE, "%s has shape %s, expects %s", what,
                           mmd__dims_text(got, sizeof got, t->rank, t->dims), mmd__dims_text(want, sizeof want, rank, dims));
}

/* Scratch floats, each part rounded to 64 bytes: the projections X * W^T of one direction
   (seq * batch * G * hidden), one step's H * R^T (batch * G * hidden), H, C, r (.) H, and the
   summed biases (G * hidden, plus GRU's Rbh). */
static int64_t mmd__rnn_part(int64_t n) { return mmd__round_up(n, 16); }

static mmd_status mmd__rnn_prepare(mmd_kernel_ctx *c, int32_t cell) {
    static const char *const lstm0[] = {"Sigmoid", "Tanh", "Tanh"};
    static const char *const gru0[] = {"Sigmoid", "Tanh"};
    static const char *const rnn0[] = {"Tanh"};
    static const char *const directions[] = {"forward", "reverse", "bidirectional", NULL};
    mmd__rnn_data *p = (mmd__rnn_data *)c->op_data;
    const mmd_tensor *x, *w, *r;
    int32_t max_in = cell == MMD__RNN_LSTM ? 8 : 6, max_out = cell == MMD__RNN_LSTM ? 3 : 2, dir, i;
    int64_t layout = 0, attr, gh, dims[4], floats;
    uint64_t gemm;
    mmd_status st;
    memset(p, 0, sizeof *p);
    p->cell = cell;
    p->gates = cell == MMD__RNN_LSTM ? 4 : cell == MMD__RNN_GRU ? 3 : 1;
    if (c->input_count < 3 || c->input_count > max_in)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has %d inputs, expects 3 to %d", (int)c->input_count, (int)max_in);
    if (c->output_count > max_out)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "has %d outputs, expects at most %d", (int)c->output_count,
                               (int)max_out);
    for (i = 0; i < c->input_count; ++i) {
        const mmd_tensor *t = c->inputs[i];
        if (!t && i < 3) return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "input %d is required", (int)i);
        if (t && !mmd__dims_bounded(t->rank, t->dims))
            return mmd_kernel_fail(c, MMD_ERR_LIMIT, "input %d has rank %d or too many elements", (int)i, (int)t->rank);
    }
    if ((st = mmd__want_dtype(c, 0, MMD_DTYPE_FLOAT32)) != MMD_OK) return st;
    for (i = 0; i < 3; ++i)
        if ((st = mmd__want_rank(c, i, 3, 3)) != MMD_OK) return st;
    x = c->inputs[0];
    w = c->inputs[1];
    r = c->inputs[2];
    if ((st = mmd__detect_pick(c, "direction", "forward", directions, &dir)) != MMD_OK) return st;
    p->dirs = dir == 2 ? 2 : 1;
    p->reverse = dir == 1;
    if (c->opset >= 14 && (st = mmd_attr_get_int(c, "layout", 0, &layout)) != MMD_OK) return st;
    if (layout != 0 && layout != 1)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute layout = %lld, expects 0 or 1", (long long)layout);
    p->layout = (int32_t)layout;
    p->seq = x->dims[layout ? 1 : 0];
    p->batch = x->dims[layout ? 0 : 1];
    p->input = x->dims[2];
    if (w->dims[1] % p->gates)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "W has %lld rows, not a multiple of %d gates", (long long)w->dims[1],
                               (int)p->gates);
    p->hidden = w->dims[1] / p->gates;
    gh = p->gates * p->hidden;
    if ((st = mmd_attr_get_int(c, "hidden_size", p->hidden, &attr)) != MMD_OK) return st;
    if (attr != p->hidden)
        return mmd_kernel_fail(c, MMD_ERR_SHAPE, "hidden_size = %lld, but W has %lld rows for %d gates", (long long)attr,
                               (long long)w->dims[1], (int)p->gates);
    dims[0] = p->dirs, dims[1] = gh, dims[2] = p->input;
    if ((st = mmd__rnn_want_dims(c, 1, MMD_DTYPE_FLOAT32, 3, dims, "W")) != MMD_OK) return st;
    dims[2] = p->hidden;
    if ((st = mmd__rnn_want_dims(c, 2, MMD_DTYPE_FLOAT32, 3, dims, "R")) != MMD_OK) return st;
    dims[1] = 2 * gh;
    if ((st = mmd__rnn_want_dims(c, 3, MMD_DTYPE_FLOAT32, 2, dims, "B")) != MMD_OK) return st;
    if ((st = mmd__rnn_want_dims(c, 4, MMD_DTYPE_INT32, 1, &p->batch, "sequence_lens")) != MMD_OK) return st;
    dims[0] = layout ? p->batch : p->dirs;
    dims[1] = layout ? p->dirs : p->batch;
    dims[2] = p->hidden;
    if ((st = mmd__rnn_want_dims(c, 5, MMD_DTYPE_FLOAT32, 3, dims, "initial_h")) != MMD_OK) return st;
    if ((st = mmd__rnn_want_dims(c, 6, MMD_DTYPE_FLOAT32, 3, dims, "initial_c")) != MMD_OK) return st;
    dims[0] = p->dirs, dims[1] = 3 * p->hidden;
    if ((st = mmd__rnn_want_dims(c, 7, MMD_DTYPE_FLOAT32, 2, dims, "P")) != MMD_OK) return st;
    if (mmd_node_attr(c->node, "clip")) {
        if ((st = mmd_attr_get_float(c, "clip", 0.0f, &p->clip)) != MMD_OK) return st;
        if (!(p->clip > 0.0f))
            return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute clip = %g, expects a positive number",
                                   (double)p->clip);
        p->has_clip = 1;
    }
    if ((st = mmd_attr_get_int(c, "linear_before_reset", 0, &attr)) != MMD_OK) return st;
    if (attr != 0 && attr != 1)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute linear_before_reset = %lld, expects 0 or 1",
                               (long long)attr);
    p->lbr = cell == MMD__RNN_GRU && attr;
    if ((st = mmd_attr_get_int(c, "input_forget", 0, &attr)) != MMD_OK) return st;
    if (attr != 0 && attr != 1)
        return mmd_kernel_fail(c, MMD_ERR_INVALID_MODEL, "attribute input_forget = %lld, expects 0 or 1", (long long)attr);
    p->input_forget = cell == MMD__RNN_LSTM && attr;
    st = mmd__rnn_acts(c, p, p->gates == 4 ? 3 : p->gates == 3 ? 2 : 1,
                       cell == MMD__RNN_LSTM ? lstm0 : cell == MMD__RNN_GRU ? gru0 : rnn0);
    if (st != MMD_OK) return st;

    /* Outputs: Y, Y_h and (LSTM) Y_c, each optional. */
    if (layout) dims[0] = p->batch, dims[1] = p->seq, dims[2] = p->dirs;
    else dims[0] = p->seq, dims[1] = p->dirs, dims[2] = p->batch;
    dims[3] = p->hidden;
    if (c->output_count > 0 && c->outputs[0] && (st = mmd__set_output(c, 0, MMD_DTYPE_FLOAT32, 4, dims)) != MMD_OK)
        return st;
    dims[0] = layout ? p->batch : p->dirs;
    dims[1] = layout ? p->dirs : p->batch;
    dims[2] = p->hidden;
    for (i = 1; i < c->output_count; ++i)
        if (c->outputs[i] && (st = mmd__set_output(c, i, MMD_DTYPE_FLOAT32, 3, dims)) != MMD_OK) return st;

    /* Scratch: the largest of the three products' own, then the buffers. */
    p->isa = mmd__isa();
    p->threads = c->threads > 1 ? c->threads : 1;
    gemm = mmd__gemm_scratch(p->seq * p->batch, gh, p->input, p->isa, p->threads);
    if (mmd__gemm_scratch(p->batch, gh, p->hidden, p->isa, p->threads) > gemm)
        gemm = mmd__gemm_scratch(p->batch, gh, p->hidden, p->isa, p->threads);
    p->gemm_bytes = (size_t)mmd__round_up((int64_t)gemm, 64);
    floats = mmd__rnn_part(p->seq * p->batch * gh) + mmd__rnn_part(p->batch * gh) + 3 * mmd__rnn_part(p->batch * p->hidden) +
             mmd__rnn_part(gh + p->hidden);
    if ((st = mmd__scratch_request(c, (uint64_t)p->gemm_bytes + (uint64_t)floats * sizeof(float))) != MMD_OK) return st;

    /* W^T and R^T packed once when both are constants. */
    p->pack_w = mmd__rnn_part(mmd__gemm_packed_b_size(p->input, gh, p->isa));
    p->pack_r = cell == MMD__RNN_GRU && !p->lbr
                    ? mmd__rnn_part(mmd__gemm_packed_b_size(p->hidden, 2 * p->hidden, p->isa)) +
                          mmd__rnn_part(mmd__gemm_packed_b_size(p->hidden, p->hidden, p->isa))
                    : mmd__rnn_part(mmd__gemm_packed_b_size(p->hidden, gh, p->isa));
    if (MMD__PACKS && mmd_tensor_is_const(w) && mmd_tensor_is_const(r) && p->input > 0 && p->hidden > 0) {
        int32_t fresh, d;
        float *dst = (float *)mmd_kernel_packed(c, (size_t)(p->dirs * (p->pack_w + p->pack_r)) * sizeof(float), &fresh);
        if (!dst && c->err->status != MMD_OK) return c->err->status;
        for (d = 0; dst && fresh && d < p->dirs; ++d) {
            const float *wd = (const float *)w->data + d * gh * p->input;
            const float *rd = (const float *)r->data + d * gh * p->hidden;
            float *pw = dst + d * (p->pack_w + p->pack_r), *pr = pw + p->pack_w;
            mmd__gemm_pack_b(wd, 1, p->input, p->input, gh, p->isa, pw);
            if (cell == MMD__RNN_GRU && !p->lbr) {
                mmd__gemm_pack_b(rd, 1, p->hidden, p->hidden, 2 * p->hidden, p->isa, pr);
                pr += mmd__rnn_part(mmd__gemm_packed_b_size(p->hidden, 2 * p->hidden, p->isa));
                mmd__gemm_pack_b(rd + 2 * p->hidden * p->hidden, 1, p->hidden, p->hidden, p->hidden, p->isa, pr);
            } else {
                mmd__gemm_pack_b(rd, 1, p->hidden, p->hidden, gh, p->isa, pr);
            }
        }
        p->packed = dst;
    }
    return MMD_OK;
}

static mmd_status mmd__lstm_f32_prepare(mmd_kernel_ctx *c) { return mmd__rnn_prepare(c, MMD__RNN_LSTM); }
static mmd_status mmd__gru_f32_prepare(mmd_kernel_ctx *c) { return mmd__rnn_prepare(c, MMD__RNN_GRU); }
static mmd_status mmd__rnn_f32_prepare(mmd_kernel_ctx *c) { return mmd__rnn_prepare(c, MMD__RNN_SIMPLE); }

/* x limited to [-clip, clip] when the node has a clip; comparisons keep NaN. */
static void mmd__rnn_clip(const mmd__rnn_data *p, float *x, int64_t n) {
    int64_t i;
    if (!p->has_clip) return;
    for (i = 0; i < n; ++i) x[i] = x[i] < -p->clip ? -p->clip : x[i] > p->clip ? p->clip : x[i];
}

/* One product C (m x n, row stride ldc) = A (m x k, row-major) * B^T, B being n x k rows
   (W or R as stored) or its pack. */
static void mmd__rnn_product(const mmd_kernel_ctx *c, const mmd__rnn_data *p, int64_t m, int64_t n, int64_t k,
                             const float *a, const float *b, const float *b_packed, float *out, int64_t ldc) {
    mmd__gemm g;
    memset(&g, 0, sizeof g);
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a;
    g.a_rs = k;
    g.a_cs = 1;
    g.b = b;
    g.b_packed = b_packed;
    g.b_rs = 1;
    g.b_cs = k;
    g.c = out;
    g.ldc = ldc;
    g.isa = p->isa;
    mmd__gemm_run(c, &g, c->scratch, p->threads);
}

static mmd_status mmd__rnn_f32_eval(mmd_kernel_ctx *c) {
    const mmd__rnn_data *p = (const mmd__rnn_data *)c->op_data;
    mmd_tensor *const *in = c->inputs;
    const float *x = (const float *)in[0]->data;
    const float *bias_in = c->input_count > 3 && in[3] ? (const float *)in[3]->data : NULL;
    const int32_t *lens = c->input_count > 4 && in[4] ? (const int32_t *)in[4]->data : NULL;
    const float *h0 = c->input_count > 5 && in[5] ? (const float *)in[5]->data : NULL;
    const float *c0 = c->input_count > 6 && in[6] ? (const float *)in[6]->data : NULL;
    const float *peep = c->input_count > 7 && in[7] ? (const float *)in[7]->data : NULL;
    float *y = c->output_count > 0 && c->outputs[0] ? (float *)c->outputs[0]->data : NULL;
    float *yh = c->output_count > 1 && c->outputs[1] ? (float *)c->outputs[1]->data : NULL;
    float *yc = c->output_count > 2 && c->outputs[2] ? (float *)c->outputs[2]->data : NULL;
    int64_t H = p->hidden, B = p->batch, T = p->seq, gh = p->gates * H, steps = 0, b, d, s, j;
    float *xw = (float *)((char *)c->scratch + p->gemm_bytes);
    float *hr = xw + mmd__rnn_part(T * B * gh);
    float *h = hr + mmd__rnn_part(B * gh);
    float *cs = h + mmd__rnn_part(B * H);
    float *rh = cs + mmd__rnn_part(B * H);
    float *bx = rh + mmd__rnn_part(B * H), *bh = bx + gh;
    for (b = 0; b < B; ++b) {
        int64_t len = lens ? lens[b] : T;
        if (len < 0 || len > T)
            return mmd_kernel_fail(c, MMD_ERR_INDEX, "sequence_lens[%lld] = %lld is outside [0, %lld]", (long long)b,
                                   (long long)len, (long long)T);
        if (len > steps) steps = len;
    }
    if (y && T * B * H > 0) memset(y, 0, (size_t)(T * p->dirs * B * H) * sizeof(float));
    for (d = 0; d < p->dirs; ++d) {
        const float *wd = (const float *)in[1]->data + d * gh * p->input;
        const float *rd = (const float *)in[2]->data + d * gh * H;
        const float *pw = p->packed ? p->packed + d * (p->pack_w + p->pack_r) : NULL;
        const float *pr = pw ? pw + p->pack_w : NULL;
        const float *pd = peep ? peep + d * 3 * H : NULL;
        const mmd__act *act = p->act[d];
        int32_t backward = p->reverse || d == 1;
        mmd__rnn_product(c, p, T * B, gh, p->input, x, wd, pw, xw, gh);
        for (j = 0; j < gh; ++j) bx[j] = bias_in ? bias_in[d * 2 * gh + j] + bias_in[d * 2 * gh + gh + j] : 0.0f;
        for (j = 0; j < H; ++j) {
            /* With linear_before_reset, Rbh is added to H * Rh^T before r scales it. */
            bh[j] = p->lbr && bias_in ? bias_in[d * 2 * gh + gh + 2 * H + j] : 0.0f;
            if (p->lbr && bias_in) bx[2 * H + j] = bias_in[d * 2 * gh + 2 * H + j];
        }
        for (b = 0; b < B; ++b) {
            int64_t at = (p->layout ? b * p->dirs + d : d * B + b) * H;
            for (j = 0; j < H; ++j) {
                h[b * H + j] = h0 ? h0[at + j] : 0.0f;
                cs[b * H + j] = c0 ? c0[at + j] : 0.0f;
            }
        }
        for (s = 0; s < steps; ++s) {
            if (p->cell == MMD__RNN_GRU && !p->lbr)
                mmd__rnn_product(c, p, B, 2 * H, H, h, rd, pr, hr, gh);
            else
                mmd__rnn_product(c, p, B, gh, H, h, rd, pr, hr, gh);
            for (b = 0; b < B; ++b) {
                int64_t len = lens ? lens[b] : T, t = backward ? len - 1 - s : s;
                const float *xr = xw + (p->layout ? b * T + t : t * B + b) * gh;
                float *g = hr + b * gh, *hb = h + b * H, *cb = cs + b * H;
                if (s >= len) {
                    if (p->cell == MMD__RNN_GRU) memset(rh + b * H, 0, (size_t)H * sizeof(float));
                    continue;
                }
                /* GRU's h gate is summed below, once its recurrent term is known. */
                for (j = 0; j < (p->cell == MMD__RNN_GRU ? 2 * H : gh); ++j) g[j] += xr[j] + bx[j];
                if (p->cell == MMD__RNN_SIMPLE) {
                    mmd__rnn_clip(p, g, H);
                    mmd__act_f32(&act[0], g, H);
                    memcpy(hb, g, (size_t)H * sizeof(float));
                } else if (p->cell == MMD__RNN_GRU) {
                    /* z and r; r (.) H for the h gate's product, or r (.) (H * Rh^T + Rbh). */
                    mmd__rnn_clip(p, g, 2 * H);
                    mmd__act_f32(&act[0], g, 2 * H);
                    for (j = 0; j < H; ++j) rh[b * H + j] = g[H + j] * hb[j];
                    if (p->lbr)
                        for (j = 0; j < H; ++j)
                            g[2 * H + j] = xr[2 * H + j] + bx[2 * H + j] + g[H + j] * (g[2 * H + j] + bh[j]);
                } else {
                    float *gi = g, *go = g + H, *gf = g + 2 * H, *gc = g + 3 * H;
                    if (pd)
                        for (j = 0; j < H; ++j) {
                            gi[j] += pd[j] * cb[j];
                            gf[j] += pd[2 * H + j] * cb[j];
                        }
                    mmd__rnn_clip(p, gi, H);
                    mmd__act_f32(&act[0], gi, H);
                    if (p->input_forget) {
                        for (j = 0; j < H; ++j) gf[j] = 1.0f - gi[j];
                    } else {
                        mmd__rnn_clip(p, gf, H);
                        mmd__act_f32(&act[0], gf, H);
                    }
                    mmd__rnn_clip(p, gc, H);
                    mmd__act_f32(&act[1], gc, H);
                    for (j = 0; j < H; ++j) cb[j] = gf[j] * cb[j] + gi[j] * gc[j];
                    if (pd)
                        for (j = 0; j < H; ++j) go[j] += pd[H + j] * cb[j];
                    mmd__rnn_clip(p, go, H);
                    mmd__act_f32(&act[0], go, H);
                    memcpy(gi, cb, (size_t)H * sizeof(float));
                    mmd__act_f32(&act[2], gi, H);
                    for (j = 0; j < H; ++j) hb[j] = go[j] * gi[j];
                }
            }
            if (p->cell == MMD__RNN_GRU) {
                /* The h gate: (r (.) H) * Rh^T joins its projection; then H = (1 - z) h + z H. */
                if (!p->lbr)
                    mmd__rnn_product(c, p, B, H, H, rh, rd + 2 * H * H,
                                     pr ? pr + mmd__rnn_part(mmd__gemm_packed_b_size(H, 2 * H, p->isa)) : NULL,
                                     hr + 2 * H, gh);
                for (b = 0; b < B; ++b) {
                    int64_t len = lens ? lens[b] : T, t = backward ? len - 1 - s : s;
                    const float *xr = xw + (p->layout ? b * T + t : t * B + b) * gh;
                    float *g = hr + b * gh, *hb = h + b * H;
                    if (s >= len) continue;
                    if (!p->lbr)
                        for (j = 0; j < H; ++j) g[2 * H + j] += xr[2 * H + j] + bx[2 * H + j];
                    mmd__rnn_clip(p, g + 2 * H, H);
                    mmd__act_f32(&act[1], g + 2 * H, H);
                    for (j = 0; j < H; ++j) hb[j] = (1.0f - g[j]) * g[2 * H + j] + g[j] * hb[j];
                }
            }
            for (b = 0; y && b < B; ++b) {
                int64_t len = lens ? lens[b] : T, t = backward ? len - 1 - s : s;
                if (s < len)
                    memcpy(y + (p->layout ? (b * T + t) * p->dirs + d : (t * p->dirs + d) * B + b) * H, h + b * H,
                           (size_t)H * sizeof(float));
            }
        }
        for (b = 0; b < B; ++b) {
            int64_t at = (p->layout ? b * p->dirs + d : d * B + b) * H;
            int32_t ran = !lens || lens[b] > 0;
            for (j = 0; j < H; ++j) {
                if (yh) yh[at + j] = ran ? h[b * H + j] : 0.0f;
                if (yc) yc[at + j] = ran ? cs[b * H + j] : 0.0f;
            }
        }
    }
    return MMD_OK;
}


/* ==== >>ops table ==== */

/* Grouped as the sections above; lookups are a linear scan done once per node at setup. */
static const mmd_kernel mmd__kernels[] = {
    MMD__MMDEPLOY_KERNELS
    MMD__MMDEPLOY_DET_KERNELS
    /* Elementwise maps. Relu takes the signed integers opset 14 added at any opset. */
    MMD__K(Relu, {"", "Relu", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(LeakyRelu, {"", "LeakyRelu", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Sigmoid, {"", "Sigmoid", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(HardSigmoid, {"", "HardSigmoid", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(HardSwish, {"", "HardSwish", 14, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Tanh, {"", "Tanh", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Erf, {"", "Erf", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Sqrt, {"", "Sqrt", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Clip, {"", "Clip", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__clip_any_prepare, mmd__map_any_eval})
    MMD__K(Abs, {"", "Abs", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Neg, {"", "Neg", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Sign, {"", "Sign", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Acos, {"", "Acos", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Acosh, {"", "Acosh", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Asin, {"", "Asin", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Asinh, {"", "Asinh", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Atan, {"", "Atan", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Atanh, {"", "Atanh", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Ceil, {"", "Ceil", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Cos, {"", "Cos", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Cosh, {"", "Cosh", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Exp, {"", "Exp", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Floor, {"", "Floor", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Log, {"", "Log", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Reciprocal, {"", "Reciprocal", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Round, {"", "Round", 11, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Sin, {"", "Sin", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Sinh, {"", "Sinh", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Tan, {"", "Tan", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Softplus, {"", "Softplus", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Softsign, {"", "Softsign", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Celu, {"", "Celu", 12, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Elu, {"", "Elu", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Selu, {"", "Selu", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Shrink, {"", "Shrink", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(ThresholdedRelu, {"", "ThresholdedRelu", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(IsInf, {"", "IsInf", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__is_inf_any_prepare, mmd__map_any_eval})
    MMD__K(IsNaN, {"", "IsNaN", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    MMD__K(Not, {"", "Not", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__map_data), mmd__map_any_prepare, mmd__map_any_eval})
    /* Binary ops, Where, the variadic ops and the casts. Opset 1 to 6 binary ops had the
       `broadcast` attribute; before opset 8 Max, Min, Sum and Mean required equal shapes, which
       broadcasting serves as well. */
    MMD__K(Add, {"", "Add", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Sub, {"", "Sub", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Mul, {"", "Mul", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Div, {"", "Div", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Pow, {"", "Pow", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Mod, {"", "Mod", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__mod_any_prepare, mmd__binary_eval})
    MMD__K(PRelu, {"", "PRelu", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__prelu_any_prepare, mmd__binary_eval})
    MMD__K(Equal, {"", "Equal", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Greater, {"", "Greater", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(GreaterOrEqual, {"", "GreaterOrEqual", 12, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Less, {"", "Less", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(LessOrEqual, {"", "LessOrEqual", 12, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(And, {"", "And", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Or, {"", "Or", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Xor, {"", "Xor", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__binary_data), mmd__binary_any_prepare, mmd__binary_eval})
    MMD__K(Where, {"", "Where", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__where_data), mmd__where_any_prepare, mmd__where_any_eval})
    MMD__K(Max, {"", "Max", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__variadic_data), mmd__variadic_any_prepare, mmd__variadic_any_eval})
    MMD__K(Min, {"", "Min", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__variadic_data), mmd__variadic_any_prepare, mmd__variadic_any_eval})
    MMD__K(Sum, {"", "Sum", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__variadic_data), mmd__variadic_any_prepare, mmd__variadic_any_eval})
    MMD__K(Mean, {"", "Mean", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__variadic_data), mmd__variadic_any_prepare, mmd__variadic_any_eval})
    MMD__K(Cast, {"", "Cast", 6, MMD__OPSET_CHECKED, 0, sizeof(mmd__cast_data), mmd__cast_prepare, mmd__cast_eval})
    MMD__K(CastLike, {"", "CastLike", 15, MMD__OPSET_CHECKED, 0, sizeof(mmd__cast_data), mmd__cast_like_any_prepare, mmd__cast_eval})
    /* Shape and layout. */
    MMD__K(Constant, {"", "Constant", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__constant_data), mmd__constant_any_prepare, mmd__constant_any_eval})
    MMD__K(ConstantOfShape, {"", "ConstantOfShape", 9, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(0), sizeof(mmd__constant_of_shape_data), mmd__constant_of_shape_any_prepare, mmd__constant_of_shape_any_eval})
    MMD__K(Shape, {"", "Shape", 1, MMD__OPSET_CHECKED, MMD_KERNEL_SHAPE_ONLY, sizeof(mmd__shape_data), mmd__shape_any_prepare, mmd__shape_any_eval})
    MMD__K(Size, {"", "Size", 1, MMD__OPSET_CHECKED, MMD_KERNEL_SHAPE_ONLY, 0, mmd__size_any_prepare, mmd__size_any_eval})
    MMD__K(Identity, {"", "Identity", 1, MMD__OPSET_CHECKED, 0, 0, mmd__identity_any_prepare, mmd__identity_any_eval})
    MMD__K(Dropout, {"", "Dropout", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(2), sizeof(mmd__dropout_data), mmd__dropout_any_prepare, mmd__dropout_any_eval})
    MMD__K(Flatten, {"", "Flatten", 1, MMD__OPSET_CHECKED, 0, 0, mmd__flatten_any_prepare, mmd__identity_any_eval})
    MMD__K(Reshape, {"", "Reshape", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), 0, mmd__reshape_any_prepare, mmd__identity_any_eval})
    MMD__K(Squeeze, {"", "Squeeze", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), 0, mmd__squeeze_any_prepare, mmd__identity_any_eval})
    MMD__K(Unsqueeze, {"", "Unsqueeze", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), 0, mmd__unsqueeze_any_prepare, mmd__identity_any_eval})
    MMD__K(Transpose, {"", "Transpose", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__view_data), mmd__transpose_any_prepare, mmd__view_any_eval})
    MMD__K(Slice, {"", "Slice", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1) | MMD_KERNEL_VALUE_INPUT(2) | MMD_KERNEL_VALUE_INPUT(3) | MMD_KERNEL_VALUE_INPUT(4), sizeof(mmd__view_data), mmd__slice_any_prepare, mmd__view_any_eval})
    MMD__K(Expand, {"", "Expand", 8, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__view_data), mmd__expand_any_prepare, mmd__view_any_eval})
    MMD__K(Concat, {"", "Concat", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__axis_data), mmd__concat_any_prepare, mmd__concat_any_eval})
    MMD__K(Split, {"", "Split", 1, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__axis_data), mmd__split_any_prepare, mmd__split_any_eval})
    MMD__K(Gather, {"", "Gather", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__axis_data), mmd__gather_any_prepare, mmd__gather_any_eval})
    /* Indexing. Versions whose semantics changed are handled inside the kernels (Pad's inputs at
       11, axes at 18, wrap at 19; scatter reductions at 16 and 18; OneHot's negative indices at
       11; DepthToSpace's mode at 11). Scatter stops at 10: version 11 is deprecated in favour of
       ScatterElements. */
    MMD__K(GatherElements, {"", "GatherElements", 11, MMD__OPSET_CHECKED, 0, sizeof(mmd__elements_data), mmd__gather_elements_any_prepare, mmd__gather_elements_any_eval})
    MMD__K(ScatterElements, {"", "ScatterElements", 11, MMD__OPSET_CHECKED, 0, sizeof(mmd__elements_data), mmd__scatter_elements_any_prepare, mmd__scatter_elements_any_eval})
    MMD__K(Scatter, {"", "Scatter", 9, 10, 0, sizeof(mmd__elements_data), mmd__scatter_elements_any_prepare, mmd__scatter_elements_any_eval})
    MMD__K(GatherND, {"", "GatherND", 11, MMD__OPSET_CHECKED, 0, sizeof(mmd__nd_data), mmd__gather_nd_any_prepare, mmd__gather_nd_any_eval})
    MMD__K(ScatterND, {"", "ScatterND", 11, MMD__OPSET_CHECKED, 0, sizeof(mmd__nd_data), mmd__scatter_nd_any_prepare, mmd__scatter_nd_any_eval})
    MMD__K(NonZero, {"", "NonZero", 9, MMD__OPSET_CHECKED, 0, 0, mmd__non_zero_any_prepare, mmd__non_zero_any_eval})
    MMD__K(Compress, {"", "Compress", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__compress_data), mmd__compress_any_prepare, mmd__compress_any_eval})
    MMD__K(OneHot, {"", "OneHot", 9, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__one_hot_data), mmd__one_hot_any_prepare, mmd__one_hot_any_eval})
    MMD__K(Range, {"", "Range", 11, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(0) | MMD_KERNEL_VALUE_INPUT(1) | MMD_KERNEL_VALUE_INPUT(2), 0, mmd__range_any_prepare, mmd__range_any_eval})
    MMD__K(Tile, {"", "Tile", 6, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), 0, mmd__tile_any_prepare, mmd__tile_any_eval})
    MMD__K(Pad, {"", "Pad", 2, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1) | MMD_KERNEL_VALUE_INPUT(3), sizeof(mmd__pad_data), mmd__pad_any_prepare, mmd__pad_any_eval})
    MMD__K(Trilu, {"", "Trilu", 14, MMD__OPSET_CHECKED, 0, sizeof(mmd__trilu_data), mmd__trilu_any_prepare, mmd__trilu_any_eval})
    MMD__K(EyeLike, {"", "EyeLike", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__eye_like_data), mmd__eye_like_any_prepare, mmd__eye_like_any_eval})
    MMD__K(DepthToSpace, {"", "DepthToSpace", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__block_data), mmd__depth_to_space_any_prepare, mmd__block_any_eval})
    MMD__K(SpaceToDepth, {"", "SpaceToDepth", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__block_data), mmd__space_to_depth_any_prepare, mmd__block_any_eval})
    /* Reductions and sorting: Reduce* and TopK before the opset that moved axes (k) to an input,
       then from it on, flagged so that a graph input feeding it re-plans when rebound. */
    MMD__K(ReduceSum, {"", "ReduceSum", 1, 12, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceSum, {"", "ReduceSum", 13, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceMean, {"", "ReduceMean", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceMean, {"", "ReduceMean", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceProd, {"", "ReduceProd", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceProd, {"", "ReduceProd", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceMax, {"", "ReduceMax", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceMax, {"", "ReduceMax", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceMin, {"", "ReduceMin", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceMin, {"", "ReduceMin", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceL1, {"", "ReduceL1", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceL1, {"", "ReduceL1", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceL2, {"", "ReduceL2", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceL2, {"", "ReduceL2", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceSumSquare, {"", "ReduceSumSquare", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceSumSquare, {"", "ReduceSumSquare", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceLogSum, {"", "ReduceLogSum", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceLogSum, {"", "ReduceLogSum", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceLogSumExp, {"", "ReduceLogSumExp", 1, 17, 0, sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ReduceLogSumExp, {"", "ReduceLogSumExp", 18, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__reduction_data), mmd__reduce_prepare, mmd__reduce_eval})
    MMD__K(ArgMax, {"", "ArgMax", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__arg_data), mmd__arg_prepare, mmd__arg_eval})
    MMD__K(ArgMin, {"", "ArgMin", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__arg_data), mmd__arg_prepare, mmd__arg_eval})
    MMD__K(CumSum, {"", "CumSum", 11, MMD__OPSET_CHECKED, 0, sizeof(mmd__cumsum_data), mmd__cumsum_prepare, mmd__cumsum_eval})
    MMD__K(TopK, {"", "TopK", 1, 9, 0, sizeof(mmd__topk_data), mmd__topk_prepare, mmd__topk_eval})
    MMD__K(TopK, {"", "TopK", 10, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__topk_data), mmd__topk_prepare, mmd__topk_eval})
    MMD__K(Einsum, {"", "Einsum", 12, MMD__OPSET_CHECKED, 0, sizeof(mmd__einsum_data), mmd__einsum_prepare, mmd__einsum_eval})
    /* Convolution and pooling. */
    MMD__K(Conv, {"", "Conv", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__conv_data), mmd__conv_f32_prepare, mmd__conv_f32_eval})
    MMD__K(ConvTranspose, {"", "ConvTranspose", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__conv_data), mmd__conv_transpose_f32_prepare, mmd__conv_transpose_f32_eval})
    MMD__K(MaxPool, {"", "MaxPool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__pool_data), mmd__pool_f32_prepare, mmd__pool_f32_eval})
    MMD__K(AveragePool, {"", "AveragePool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__pool_data), mmd__pool_f32_prepare, mmd__pool_f32_eval})
    MMD__K(LpPool, {"", "LpPool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__pool_data), mmd__pool_f32_prepare, mmd__pool_f32_eval})
    MMD__K(GlobalAveragePool, {"", "GlobalAveragePool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__plane_data), mmd__global_pool_f32_prepare, mmd__global_pool_f32_eval})
    MMD__K(GlobalMaxPool, {"", "GlobalMaxPool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__plane_data), mmd__global_pool_f32_prepare, mmd__global_pool_f32_eval})
    MMD__K(GlobalLpPool, {"", "GlobalLpPool", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__plane_data), mmd__global_pool_f32_prepare, mmd__global_pool_f32_eval})
    /* Matrix products and normalisation. */
    MMD__K(Gemm, {"", "Gemm", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__gemm_data), mmd__gemm_f32_prepare, mmd__gemm_f32_eval})
    MMD__K(MatMul, {"", "MatMul", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__matmul_data), mmd__matmul_f32_prepare, mmd__matmul_f32_eval})
    /* Quantization (>>ops quantization). */
    MMD__K(QuantizeLinear, {"", "QuantizeLinear", 10, 20, 0, sizeof(mmd__quant_data), mmd__quantize_prepare, mmd__quantize_eval})
    MMD__K(DequantizeLinear, {"", "DequantizeLinear", 10, 20, 0, sizeof(mmd__quant_data), mmd__dequantize_prepare, mmd__dequantize_eval})
    MMD__K(DynamicQuantizeLinear, {"", "DynamicQuantizeLinear", 11, MMD__OPSET_CHECKED, 0, 0, mmd__dynamic_quantize_prepare, mmd__dynamic_quantize_eval})
    MMD__K(MatMulInteger, {"", "MatMulInteger", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__qmatmul_data), mmd__qmatmul_prepare, mmd__qmatmul_eval})
    MMD__K(QLinearMatMul, {"", "QLinearMatMul", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__qmatmul_data), mmd__qmatmul_prepare, mmd__qmatmul_eval})
    MMD__K(ConvInteger, {"", "ConvInteger", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__qconv_data), mmd__qconv_prepare, mmd__qconv_eval})
    MMD__K(QLinearConv, {"", "QLinearConv", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__qconv_data), mmd__qconv_prepare, mmd__qconv_eval})
    /* Recurrent layers. */
    MMD__K(LSTM, {"", "LSTM", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__rnn_data), mmd__lstm_f32_prepare, mmd__rnn_f32_eval})
    MMD__K(GRU, {"", "GRU", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__rnn_data), mmd__gru_f32_prepare, mmd__rnn_f32_eval})
    MMD__K(RNN, {"", "RNN", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__rnn_data), mmd__rnn_f32_prepare, mmd__rnn_f32_eval})
    /* ONNX Runtime's fused operators (version 1 of com.microsoft): what its optimiser writes
       and what this runtime's load-time rewrites make. */
    MMD__K(com_microsoft_FusedConv, {"com.microsoft", "FusedConv", 1, 1, 0, sizeof(mmd__conv_data), mmd__fused_conv_f32_prepare, mmd__conv_f32_eval})
    MMD__K(com_microsoft_QLinearAdd, {"com.microsoft", "QLinearAdd", 1, 1, 0, sizeof(mmd__qadd_data), mmd__qadd_prepare, mmd__qadd_eval})
    MMD__K(com_microsoft_FusedGemm, {"com.microsoft", "FusedGemm", 1, 1, 0, sizeof(mmd__gemm_data), mmd__fused_gemm_f32_prepare, mmd__gemm_f32_eval})
#ifndef MMD_CONV_SMALL
    /* This runtime's own fused operator (>>ops pointwise depthwise), which only its load-time
       rewrites write. */
    MMD__K(mmd_PointwiseDepthwise, {"mmd", "PointwiseDepthwise", 1, 1, 0, sizeof(mmd__pwdw_data), mmd__pwdw_f32_prepare, mmd__pwdw_f32_eval})
#endif
    MMD__K(Softmax, {"", "Softmax", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__softmax_data), mmd__softmax_f32_prepare, mmd__softmax_f32_eval})
    MMD__K(LogSoftmax, {"", "LogSoftmax", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__softmax_data), mmd__softmax_f32_prepare, mmd__softmax_f32_eval})
    MMD__K(Hardmax, {"", "Hardmax", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__softmax_data), mmd__softmax_f32_prepare, mmd__softmax_f32_eval})
    MMD__K(BatchNormalization, {"", "BatchNormalization", 7, MMD__OPSET_CHECKED, 0, sizeof(mmd__batchnorm_data), mmd__batchnorm_f32_prepare, mmd__batchnorm_f32_eval})
    MMD__K(InstanceNormalization, {"", "InstanceNormalization", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__batchnorm_data), mmd__instance_norm_f32_prepare, mmd__instance_norm_f32_eval})
    MMD__K(LayerNormalization, {"", "LayerNormalization", 17, MMD__OPSET_CHECKED, 0, sizeof(mmd__layer_norm_data), mmd__layer_norm_f32_prepare, mmd__layer_norm_f32_eval})
    MMD__K(LRN, {"", "LRN", 1, MMD__OPSET_CHECKED, 0, sizeof(mmd__lrn_data), mmd__lrn_f32_prepare, mmd__lrn_f32_eval})
    MMD__K(MeanVarianceNormalization, {"", "MeanVarianceNormalization", 9, MMD__OPSET_CHECKED, 0, sizeof(mmd__mvn_data), mmd__mvn_f32_prepare, mmd__mvn_f32_eval})
    /* Resampling and detection. */
    MMD__K(GridSample, {"", "GridSample", 16, MMD__OPSET_CHECKED, 0, sizeof(mmd__grid_sample_data), mmd__grid_sample_f32_prepare, mmd__grid_sample_f32_eval})
    MMD__K(Upsample, {"", "Upsample", 7, 9, MMD_KERNEL_VALUE_INPUT(1), sizeof(mmd__resize_data), mmd__resize_prepare, mmd__resize_eval})
    MMD__K(Resize, {"", "Resize", 10, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(1) | MMD_KERNEL_VALUE_INPUT(2) | MMD_KERNEL_VALUE_INPUT(3), sizeof(mmd__resize_data), mmd__resize_prepare, mmd__resize_eval})
    MMD__K(RoiAlign, {"", "RoiAlign", 10, MMD__OPSET_CHECKED, 0, sizeof(mmd__roi_align_data), mmd__roi_align_prepare, mmd__roi_align_eval})
    MMD__K(NonMaxSuppression, {"", "NonMaxSuppression", 10, MMD__OPSET_CHECKED, MMD_KERNEL_VALUE_INPUT(2), sizeof(mmd__nms_data), mmd__nms_prepare, mmd__nms_eval})
    {"", "", 1, 0, 0, 0, NULL, NULL} /* matches no node (opset 1..0): never empty */
};

/* "" and "ai.onnx" name the same domain. */
static int32_t mmd__domain_is_onnx(const char *d) { return !d || !d[0] || !strcmp(d, "ai.onnx"); }

#if defined(MMD_ONLY_OPS) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic pop
#endif

MMD_API const mmd_kernel *mmd_ops_find(const char *domain, const char *op_type, int64_t opset) {
    size_t i;
    if (!op_type) return NULL;
    for (i = 0; i < mmd_ops_count(); ++i) {
        const mmd_kernel *k = &mmd__kernels[i];
        int32_t same = mmd__domain_is_onnx(domain) ? mmd__domain_is_onnx(k->domain)
                                                   : k->domain && !strcmp(domain, k->domain);
        if (same && !strcmp(op_type, k->op_type) && opset >= k->min_opset && opset <= k->max_opset) return k;
    }
    return NULL;
}

MMD_API size_t mmd_ops_count(void) { return sizeof mmd__kernels / sizeof mmd__kernels[0] - 1; }

MMD_API const mmd_kernel *mmd_ops_at(size_t i) { return i < mmd_ops_count() ? &mmd__kernels[i] : NULL; }


#endif /* MMD_OPS_IMPLEMENTATION */

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
