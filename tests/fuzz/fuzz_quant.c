/* tests/fuzz/fuzz_quant.c - structured libFuzzer harness for the quantization operators:
   QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
   ConvInteger and QLinearConv.

   The bytes are choices, not a model: the operator and its opset, then for each input the shape
   the operator expects (A's columns as B's rows, a per-axis scale as long as its axis, ...) or,
   now and then, a wrong one (scalar, another length, another rank), its dtype (now and then a
   wrong one), whether it is an initializer holding values taken from the bytes (zero, negative,
   subnormal, infinite and NaN scales; zero points at and past the type's edges) or a graph
   input (zero-filled, so that the checks made at run time meet a zero scale), and the
   attributes (axis, conv's kernel_shape, strides, pads, dilations, group, auto_pad), each
   sometimes hostile. The model is written as ONNX bytes and goes through fuzz_node_run
   on 1 or 3 threads: create, prepare, run, read every output byte. Built and run by
   `make fuzz`; see tests/fuzz/fuzz.h for what counts as a finding. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

enum { FUZZ_Q, FUZZ_DQ, FUZZ_DYN, FUZZ_MMI, FUZZ_QMM, FUZZ_CI, FUZZ_QC, FUZZ_OPS };

typedef struct fuzz_shape {
    int32_t rank;
    int64_t dims[8];
} fuzz_shape;

static int64_t fuzz__dim(fuzz_reader *r) {
    static const int64_t d[8] = {1, 2, 3, 4, 0, 5, 8, 1};
    return d[fuzz_take(r, 8)];
}

static fuzz_shape fuzz__random_shape(fuzz_reader *r, int32_t lo, int32_t hi) {
    fuzz_shape s;
    int32_t i;
    s.rank = lo + (int32_t)fuzz_take(r, (uint32_t)(hi - lo + 1));
    for (i = 0; i < s.rank; ++i) s.dims[i] = fuzz__dim(r);
    return s;
}

static fuzz_shape fuzz__vec(int64_t n) {
    fuzz_shape s;
    s.rank = 1;
    s.dims[0] = n;
    return s;
}

static fuzz_shape fuzz__scalar(void) {
    fuzz_shape s;
    s.rank = 0;
    return s;
}

/* The shape the operator expects, or now and then another one. */
static fuzz_shape fuzz__mutate(fuzz_reader *r, fuzz_shape s) {
    switch (fuzz_take(r, 16)) {
    case 0: return fuzz__scalar();
    case 1: return fuzz__random_shape(r, 0, 5);
    case 2:
        if (s.rank) s.dims[fuzz_take(r, (uint32_t)s.rank)] = fuzz__dim(r);
        return s;
    case 3: return fuzz__vec(fuzz__dim(r));
    default: return s;
    }
}

/* A scale's or zero point's shape: one value, or one per element along x's axis `axis`. */
static fuzz_shape fuzz__param_shape(fuzz_reader *r, const fuzz_shape *x, int64_t axis) {
    int64_t a = axis < 0 ? axis + x->rank : axis;
    if (fuzz_take(r, 2) == 0) return fuzz_take(r, 2) ? fuzz__scalar() : fuzz__vec(1);
    return fuzz__vec(a >= 0 && a < x->rank ? x->dims[a] : fuzz__dim(r));
}

static int32_t fuzz__dtype(fuzz_reader *r, int32_t natural) {
    static const int32_t other[8] = {MMD_DTYPE_UINT8, MMD_DTYPE_INT8, MMD_DTYPE_INT32, MMD_DTYPE_FLOAT32,
                                     MMD_DTYPE_FLOAT16, MMD_DTYPE_INT16, MMD_DTYPE_INT64, MMD_DTYPE_BFLOAT16};
    return fuzz_take(r, 16) == 0 ? other[fuzz_take(r, 8)] : natural;
}

/* Adds input `name` to the graph and the node: absent (an empty name) when optional and the
   bytes say so, else an initializer or (one time in four) a graph input. */
static void fuzz__input(fuzz_pb *graph, fuzz_pb *node, fuzz_reader *r, const char *name, int32_t dtype,
                        fuzz_shape s, int32_t optional) {
    if (optional && fuzz_take(r, 8) == 0) {
        fuzz_pb_string(node, 1, "");
        return;
    }
    s = fuzz__mutate(r, s);
    fuzz_graph_tensor(graph, r, name, fuzz__dtype(r, dtype), s.rank, s.dims, fuzz_take(r, 4) != 0);
    fuzz_pb_string(node, 1, name);
}

/* 0 to 3 (from 1 when positive), or now and then an integer at a type's edge. */
static int64_t fuzz__small(fuzz_reader *r, int32_t positive) {
    return fuzz_take(r, 8) == 0 ? fuzz_take_int(r) : positive + (int64_t)fuzz_take(r, 4);
}

/* Conv attributes, each present or not, most often sensible. */
static void fuzz__conv_attrs(fuzz_pb *node, fuzz_reader *r, int32_t spatial, int64_t group, const fuzz_shape *w) {
    static const char *const pads[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "BOGUS"};
    int64_t v[8];
    int32_t i;
    if (fuzz_take(r, 2)) {
        for (i = 0; i < spatial; ++i) v[i] = w->rank == spatial + 2 && fuzz_take(r, 8) ? w->dims[2 + i] : fuzz__small(r, 0);
        fuzz_attr_ints(node, "kernel_shape", v, spatial);
    }
    if (fuzz_take(r, 2)) {
        for (i = 0; i < spatial; ++i) v[i] = fuzz__small(r, 1);
        fuzz_attr_ints(node, "strides", v, spatial);
    }
    if (fuzz_take(r, 2)) {
        for (i = 0; i < 2 * spatial; ++i) v[i] = fuzz__small(r, 0);
        fuzz_attr_ints(node, "pads", v, 2 * spatial);
    }
    if (fuzz_take(r, 4) == 0) {
        for (i = 0; i < spatial; ++i) v[i] = fuzz__small(r, 1);
        fuzz_attr_ints(node, "dilations", v, spatial);
    }
    if (group != 1 || fuzz_take(r, 8) == 0) fuzz_attr_int(node, "group", group);
    if (fuzz_take(r, 8) == 0) fuzz_attr_string(node, "auto_pad", pads[fuzz_take(r, 5)]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const names[FUZZ_OPS] = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
                                                "MatMulInteger",  "QLinearMatMul",    "ConvInteger",
                                                "QLinearConv"};
    static const int64_t opsets[] = {10, 11, 13, 19, 20};
    fuzz_reader r;
    fuzz_pb graph = {0}, node = {0};
    fuzz_shape x, w, s;
    int32_t op, qx, qw, nout = 1, threads, i;
    int64_t opset, axis = 1, group = 1;
    r.p = data;
    r.n = size;
    op = (int32_t)fuzz_take(&r, FUZZ_OPS);
    opset = opsets[fuzz_take(&r, 5)];
    threads = fuzz_take(&r, 2) ? 1 : 3;
    qx = fuzz_take(&r, 2) ? MMD_DTYPE_UINT8 : MMD_DTYPE_INT8;
    qw = fuzz_take(&r, 2) ? MMD_DTYPE_UINT8 : MMD_DTYPE_INT8;

    switch (op) {
    case FUZZ_Q:
    case FUZZ_DQ:
        x = fuzz__random_shape(&r, 0, 4);
        if (fuzz_take(&r, 2)) {
            axis = fuzz_take(&r, 8) ? (int64_t)fuzz_take(&r, 5) - 2 : fuzz_take_int(&r);
            fuzz_attr_int(&node, "axis", axis);
        }
        s = fuzz__param_shape(&r, &x, axis);
        fuzz__input(&graph, &node, &r, "x", op == FUZZ_Q ? MMD_DTYPE_FLOAT32 : qx, x, 0);
        fuzz__input(&graph, &node, &r, "scale", MMD_DTYPE_FLOAT32, s, 0);
        fuzz__input(&graph, &node, &r, "zero_point", qx, s, 1);
        if (op == FUZZ_Q && opset >= 19 && fuzz_take(&r, 4) == 0) fuzz_attr_int(&node, "saturate", fuzz__small(&r, 0));
        break;
    case FUZZ_DYN:
        x = fuzz__random_shape(&r, 0, 4);
        fuzz__input(&graph, &node, &r, "x", MMD_DTYPE_FLOAT32, x, 0);
        nout = 3;
        break;
    case FUZZ_MMI:
    case FUZZ_QMM: {
        /* A (..., M, K) times B (K, N) or (..., K, N). */
        int64_t m = fuzz__dim(&r), k = fuzz__dim(&r), nn = fuzz__dim(&r);
        x = fuzz__random_shape(&r, 0, 2);
        x.dims[x.rank] = m;
        x.dims[x.rank + 1] = k;
        x.rank += 2;
        w.rank = fuzz_take(&r, 2) ? 2 : x.rank;
        for (i = 0; i < w.rank - 2; ++i) w.dims[i] = x.dims[i];
        w.dims[w.rank - 2] = k;
        w.dims[w.rank - 1] = nn;
        if (op == FUZZ_MMI) {
            fuzz__input(&graph, &node, &r, "a", qx, x, 0);
            fuzz__input(&graph, &node, &r, "b", qw, w, 0);
            fuzz__input(&graph, &node, &r, "a_zero_point", qx, fuzz_take(&r, 2) ? fuzz__scalar() : fuzz__vec(m), 1);
            fuzz__input(&graph, &node, &r, "b_zero_point", qw, fuzz_take(&r, 2) ? fuzz__scalar() : fuzz__vec(nn), 1);
        } else {
            fuzz_shape sa = fuzz_take(&r, 2) ? fuzz__scalar() : fuzz__vec(m);
            fuzz_shape sb = fuzz_take(&r, 2) ? fuzz__scalar() : fuzz__vec(nn);
            int32_t qy = fuzz_take(&r, 2) ? MMD_DTYPE_UINT8 : MMD_DTYPE_INT8;
            fuzz__input(&graph, &node, &r, "a", qx, x, 0);
            fuzz__input(&graph, &node, &r, "a_scale", MMD_DTYPE_FLOAT32, sa, 0);
            fuzz__input(&graph, &node, &r, "a_zero_point", qx, sa, 0);
            fuzz__input(&graph, &node, &r, "b", qw, w, 0);
            fuzz__input(&graph, &node, &r, "b_scale", MMD_DTYPE_FLOAT32, sb, 0);
            fuzz__input(&graph, &node, &r, "b_zero_point", qw, sb, 0);
            fuzz__input(&graph, &node, &r, "y_scale", MMD_DTYPE_FLOAT32, fuzz__scalar(), 0);
            fuzz__input(&graph, &node, &r, "y_zero_point", qy, fuzz__scalar(), 0);
        }
        break;
    }
    default: {
        /* x (N, C, spatial...), w (M, C / group, kernel...). */
        int32_t spatial = 1 + (int32_t)fuzz_take(&r, 2);
        int64_t ch = fuzz__dim(&r), m = fuzz__dim(&r);
        group = fuzz_take(&r, 4) ? 1 : fuzz_take(&r, 8) ? 1 + (int64_t)fuzz_take(&r, 4) : fuzz_take_int(&r);
        x.rank = w.rank = spatial + 2;
        x.dims[0] = 1 + fuzz_take(&r, 2);
        x.dims[1] = ch;
        w.dims[0] = m;
        w.dims[1] = group > 0 && ch % group == 0 ? ch / group : ch;
        for (i = 0; i < spatial; ++i) {
            x.dims[2 + i] = fuzz__dim(&r) + fuzz_take(&r, 4);
            w.dims[2 + i] = 1 + fuzz_take(&r, 3);
        }
        fuzz__input(&graph, &node, &r, "x", qx, x, 0);
        if (op == FUZZ_QC) {
            fuzz_shape sw = fuzz_take(&r, 2) ? fuzz__scalar() : fuzz__vec(m);
            int32_t qy = fuzz_take(&r, 2) ? MMD_DTYPE_UINT8 : MMD_DTYPE_INT8;
            fuzz__input(&graph, &node, &r, "x_scale", MMD_DTYPE_FLOAT32, fuzz__scalar(), 0);
            fuzz__input(&graph, &node, &r, "x_zero_point", qx, fuzz__scalar(), 0);
            fuzz__input(&graph, &node, &r, "w", qw, w, 0);
            fuzz__input(&graph, &node, &r, "w_scale", MMD_DTYPE_FLOAT32, sw, 0);
            fuzz__input(&graph, &node, &r, "w_zero_point", qw, sw, 0);
            fuzz__input(&graph, &node, &r, "y_scale", MMD_DTYPE_FLOAT32, fuzz__scalar(), 0);
            fuzz__input(&graph, &node, &r, "y_zero_point", qy, fuzz__scalar(), 0);
            if (fuzz_take(&r, 2)) fuzz__input(&graph, &node, &r, "bias", MMD_DTYPE_INT32, fuzz__vec(m), 1);
        } else {
            fuzz__input(&graph, &node, &r, "w", qw, w, 0);
            fuzz__input(&graph, &node, &r, "x_zero_point", qx, fuzz__scalar(), 1);
            fuzz__input(&graph, &node, &r, "w_zero_point", qw, fuzz_take(&r, 2) ? fuzz__scalar() : fuzz__vec(m), 1);
        }
        fuzz__conv_attrs(&node, &r, spatial, group, &w);
        break;
    }
    }
    for (i = 0; i < nout; ++i) {
        static const char *const outs[3] = {"y", "y_scale_out", "y_zero_point_out"};
        fuzz_node_output(&graph, &node, outs[i]);
    }
    fuzz_node_run(&graph, &node, names[op], opset, threads);
    return 0;
}
