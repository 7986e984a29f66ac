#!/usr/bin/python3
"""Writes tests/data/quant_cases.h: numpy references for the quantization kernels, for
tests/test_kernels_quant.c.

Usage: /usr/bin/python3 tests/gen_quant_cases.py   (from the repository root)

The formulas are the ONNX spec's, evaluated in float32 the way ONNX Runtime's MLAS does:
QuantizeLinear divides x by the scale, np.rint rounds half to even, then the sum with the zero
point saturates; the QLinear ops take int32 sums of (q - zero point) products and requantize
them with the float32 multiplier (a_scale * b_scale) / y_scale. A NaN quantizes to the type's
minimum (MLAS's max instruction returns its second operand for a NaN).
"""
import os

import numpy as np

RNG = np.random.default_rng(13)
LIMITS = {"int8": (-128, 127), "uint8": (0, 255)}
DTYPE = {"int8": "MMD_DTYPE_INT8", "uint8": "MMD_DTYPE_UINT8"}


def floats(v):
    out = []
    for x in np.asarray(v, dtype=np.float32).reshape(-1).tolist():
        if x != x:
            out.append("NAN")
        elif x in (float("inf"), float("-inf")):
            out.append("INFINITY" if x > 0 else "-INFINITY")
        else:
            text = "%.9g" % x
            out.append(text + ("f" if "." in text or "e" in text else ".0f"))
    return "{" + ", ".join(out) + "}"


def flit(x):
    """One C float literal."""
    return floats([x])[1:-1]


def ints(v):
    return "{" + ", ".join(str(int(i)) for i in np.asarray(v).reshape(-1).tolist()) + "}"


def quantize(x, scale, zp, qtype):
    lo, hi = LIMITS[qtype]
    x = np.asarray(x, np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        q = np.rint(x / np.asarray(scale, np.float32)).astype(np.float32)
    q = np.where(np.isnan(q), np.float32(lo) - zp, q)
    return np.clip(q + zp, lo, hi).astype(np.int64)


def requantize(acc, mult, zp, qtype):
    lo, hi = LIMITS[qtype]
    q = np.rint(acc.astype(np.float32) * mult).astype(np.float32)
    return np.clip(q + zp, lo, hi).astype(np.int64)


def qrandom(shape, qtype):
    lo, hi = LIMITS[qtype]
    return RNG.integers(lo, hi + 1, size=shape)


def per_axis(shape, axis, values):
    """values along `axis` of shape, broadcast to it."""
    view = [1] * len(shape)
    view[axis] = len(values)
    return np.asarray(values).reshape(view)


def quantize_cases(out):
    cases = []
    ties = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 126.5, 127.5, -128.5, 254.5, 255.5, -0.0, 1e-30], np.float32)
    cases.append(("ties_int8", ties, (14,), 1.0, 0, "int8", None))
    cases.append(("ties_uint8_zp", ties, (14,), 1.0, 3, "uint8", None))
    halves = np.array([0.25, 0.75, 1.25, -0.25, -0.75, 62.25, -64.25, 0.125], np.float32)
    cases.append(("ties_scale_half", halves, (8,), 0.5, -1, "int8", None))
    sat = np.array([1e30, -1e30, np.inf, -np.inf, np.nan, 3.4e38, -200.0, 300.0], np.float32)
    cases.append(("saturate_int8_zp", sat, (8,), 0.75, 10, "int8", None))
    cases.append(("saturate_uint8_zp", sat, (8,), 2.0, 200, "uint8", None))
    x = (RNG.standard_normal((2, 3, 4)) * 40).astype(np.float32)
    cases.append(("axis1_int8", x, (2, 3, 4), [0.1, 0.25, 0.3], [-3, 0, 5], "int8", 1))
    cases.append(("axis_last_uint8", x, (2, 3, 4), [0.5, 0.2, 1.0, 0.7], [128, 120, 0, 255], "uint8", -1))
    cases.append(("axis0_uint8", x, (2, 3, 4), [0.4, 0.6], [100, 27], "uint8", 0))
    out.append("struct quant_case {\n    const char *name;\n    int32_t qtype, rank, axis, per;\n"
               "    int64_t dims[4];\n    const float *x, *scale;\n    const int32_t *zp, *want;\n};\n")
    rows = []
    for name, x, shape, scale, zp, qtype, axis in cases:
        scale_a = np.atleast_1d(np.asarray(scale, np.float32))
        zp_a = np.atleast_1d(np.asarray(zp, np.int64))
        if axis is None:
            want = quantize(x, scale_a[0], zp_a[0], qtype)
        else:
            want = quantize(x, per_axis(shape, axis, scale_a), per_axis(shape, axis, zp_a), qtype)
        out.append("static const float q_%s_x[] = %s;" % (name, floats(x)))
        out.append("static const float q_%s_scale[] = %s;" % (name, floats(scale_a)))
        out.append("static const int32_t q_%s_zp[] = %s;" % (name, ints(zp_a)))
        out.append("static const int32_t q_%s_want[] = %s;" % (name, ints(want)))
        rows.append('    {"%s", %s, %d, %d, %d, {%s}, q_%s_x, q_%s_scale, q_%s_zp, q_%s_want},' % (
            name, DTYPE[qtype], len(shape), 0 if axis is None else axis, 0 if axis is None else len(scale_a),
            ", ".join(str(d) for d in shape), name, name, name, name))
    out.append("static const struct quant_case quant_cases[] = {\n" + "\n".join(rows) + "\n};\n")


def dequantize_cases(out):
    rows = []
    out.append("struct dequant_case {\n    const char *name;\n    int32_t qtype, rank, axis, per;\n"
               "    int64_t dims[4];\n    const int32_t *x, *zp;\n    const float *scale, *want;\n};\n")
    specs = [("int8_axis1", "int8", (2, 3, 5), 1, [0.5, 0.125, 3.0], [-7, 0, 127]),
             ("uint8_tensor", "uint8", (4, 6), None, [0.0625], [133]),
             ("uint8_axis_last", "uint8", (3, 4), -1, [1.5, 0.001, 2.0, 0.3], [0, 255, 128, 1])]
    for name, qtype, shape, axis, scale, zp in specs:
        x = qrandom(shape, qtype)
        scale_a = np.asarray(scale, np.float32)
        zp_a = np.asarray(zp, np.int64)
        if axis is None:
            want = (x - zp_a[0]).astype(np.float32) * scale_a[0]
        else:
            want = (x - per_axis(shape, axis, zp_a)).astype(np.float32) * per_axis(shape, axis, scale_a)
        out.append("static const int32_t dq_%s_x[] = %s;" % (name, ints(x)))
        out.append("static const int32_t dq_%s_zp[] = %s;" % (name, ints(zp_a)))
        out.append("static const float dq_%s_scale[] = %s;" % (name, floats(scale_a)))
        out.append("static const float dq_%s_want[] = %s;" % (name, floats(want)))
        rows.append('    {"%s", %s, %d, %d, %d, {%s}, dq_%s_x, dq_%s_zp, dq_%s_scale, dq_%s_want},' % (
            name, DTYPE[qtype], len(shape), 0 if axis is None else axis, 0 if axis is None else len(scale_a),
            ", ".join(str(d) for d in shape), name, name, name, name))
    out.append("static const struct dequant_case dequant_cases[] = {\n" + "\n".join(rows) + "\n};\n")


def dynamic_cases(out):
    rows = []
    out.append("struct dynamic_case {\n    const char *name;\n    int64_t n;\n    const float *x;\n"
               "    float scale;\n    int32_t zp;\n    const int32_t *want;\n};\n")
    specs = [("mixed", np.array([-3.0, 0.5, 7.25, -1.0, 2.0, 6.5, -2.75, 0.0], np.float32)),
             ("positive", np.array([1.0, 2.0, 255.0, 127.5, 0.5], np.float32)),
             ("negative", np.array([-1.0, -2.0, -255.0, -127.5, -0.5], np.float32)),
             ("zeros", np.zeros(6, np.float32)),
             ("random", (RNG.standard_normal(300) * 3).astype(np.float32))]
    for name, x in specs:
        lo = min(np.float32(0), x.min())
        hi = max(np.float32(0), x.max())
        # ONNX Runtime takes scale 1 for an all-zero input, where the spec would divide by 0.
        scale = np.float32(1.0) if hi == lo else np.float32((hi - lo) / np.float32(255))
        zp = int(np.clip(np.rint(np.float32(0) - lo / scale), 0, 255))
        want = quantize(x, scale, zp, "uint8")
        out.append("static const float dyn_%s_x[] = %s;" % (name, floats(x)))
        out.append("static const int32_t dyn_%s_want[] = %s;" % (name, ints(want)))
        rows.append('    {"%s", %d, dyn_%s_x, %s, %d, dyn_%s_want},' % (name, len(x), name, flit(scale), zp, name))
    out.append("static const struct dynamic_case dynamic_cases[] = {\n" + "\n".join(rows) + "\n};\n")


def matmul_cases(out):
    """QLinearMatMul when y_type is set, else MatMulInteger (int32 output)."""
    rows = []
    out.append("struct qmatmul_case {\n    const char *name;\n    int32_t a_type, b_type, y_type;\n"
               "    int32_t a_rank, b_rank;\n    int64_t a_dims[4], b_dims[4];\n"
               "    int64_t a_zn, b_zn, b_sn;\n    const int32_t *a, *b, *a_zp, *b_zp;\n"
               "    float a_scale;\n    const float *b_scale;\n    float y_scale;\n    int32_t y_zp;\n"
               "    const int32_t *want;\n};\n")
    # name, a type, b type, y type (None: MatMulInteger), a shape, b shape, per-row a zp,
    # per-column b zp, per-column b scale
    specs = [("integer_u8u8", "uint8", "uint8", None, (4, 5), (5, 3), False, False, False),
             ("integer_u8s8_rows_cols", "uint8", "int8", None, (5, 33), (33, 261), True, True, False),
             ("integer_s8s8_batch", "int8", "int8", None, (2, 3, 4), (4, 6), False, True, False),
             ("qlinear_u8u8", "uint8", "uint8", "uint8", (3, 8), (8, 5), False, False, False),
             ("qlinear_u8s8_per_col", "uint8", "int8", "int8", (6, 40), (40, 9), False, True, True),
             ("qlinear_s8s8_batch_bcast", "int8", "int8", "uint8", (2, 2, 3, 7), (7, 4), False, False, True)]
    for name, at, bt, yt, ashape, bshape, arow, bcol, bsc in specs:
        m, k, n = ashape[-2], ashape[-1], bshape[-1]
        a = qrandom(ashape, at)
        b = qrandom(bshape, bt)
        a_zp = qrandom((m,) if arow else (1,), at)
        b_zp = qrandom((n,) if bcol else (1,), bt)
        acc = np.matmul(a - (a_zp.reshape(m, 1) if arow else a_zp[0]), b - b_zp).astype(np.int64)
        a_scale = np.float32(0.02)
        b_scale = (RNG.uniform(0.001, 0.05, n if bsc else 1)).astype(np.float32)
        y_scale = np.float32(0.7 if yt else 1.0)
        y_zp = int(qrandom((1,), yt)[0]) if yt else 0
        if yt:
            mult = (a_scale * b_scale) / y_scale
            want = requantize(acc, mult, y_zp, yt)
        else:
            want = acc
        rank_a = len(ashape)
        out.append("static const int32_t mm_%s_a[] = %s;" % (name, ints(a)))
        out.append("static const int32_t mm_%s_b[] = %s;" % (name, ints(b)))
        out.append("static const int32_t mm_%s_a_zp[] = %s;" % (name, ints(a_zp)))
        out.append("static const int32_t mm_%s_b_zp[] = %s;" % (name, ints(b_zp)))
        out.append("static const float mm_%s_b_scale[] = %s;" % (name, floats(b_scale)))
        out.append("static const int32_t mm_%s_want[] = %s;" % (name, ints(want)))
        rows.append('    {"%s", %s, %s, %s, %d, %d, {%s}, {%s}, %d, %d, %d, mm_%s_a, mm_%s_b, mm_%s_a_zp, mm_%s_b_zp, '
                    '%s, mm_%s_b_scale, %s, %d, mm_%s_want},' % (
                        name, DTYPE[at], DTYPE[bt], DTYPE[yt] if yt else "MMD_DTYPE_INT32", rank_a, len(bshape),
                        ", ".join(str(d) for d in ashape), ", ".join(str(d) for d in bshape), len(a_zp), len(b_zp),
                        len(b_scale), name, name, name, name, flit(a_scale), name, flit(y_scale), y_zp, name))
    out.append("static const struct qmatmul_case qmatmul_cases[] = {\n" + "\n".join(rows) + "\n};\n")


def conv_ref(x, w, strides, pads, dilations, group):
    """Direct convolution in int64 of zero-point-free 2-D operands (x padded with zeros)."""
    nb, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (x.shape[2] - ((kh - 1) * dilations[0] + 1)) // strides[0] + 1
    ow = (x.shape[3] - ((kw - 1) * dilations[1] + 1)) // strides[1] + 1
    y = np.zeros((nb, m, oh, ow), np.int64)
    mg = m // group
    for o in range(m):
        g = o // mg
        for i in range(kh):
            for j in range(kw):
                patch = x[:, g * cg:(g + 1) * cg,
                          i * dilations[0]:i * dilations[0] + (oh - 1) * strides[0] + 1:strides[0],
                          j * dilations[1]:j * dilations[1] + (ow - 1) * strides[1] + 1:strides[1]]
                y[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    return y


def conv_cases(out):
    rows = []
    out.append("struct qconv_case {\n    const char *name;\n    int32_t x_type, w_type, y_type;\n"
               "    int64_t x_dims[4], w_dims[4], y_dims[4];\n    int64_t strides[2], pads[4], dilations[2], group;\n"
               "    int32_t x_zp;\n    int64_t w_zn;\n    const int32_t *x, *w, *w_zp, *bias;\n"
               "    float x_scale;\n    const float *w_scale;\n    float y_scale;\n    int32_t y_zp;\n"
               "    const int32_t *want;\n};\n")
    # name, x type, w type, y type (None: ConvInteger), x shape, out channels, kernel, strides,
    # pads, dilations, group, per-channel w, and optionally "sym" (x's zero point 0, w's all 0:
    # the product skips its zero-point terms) or "wsym" (w's all 0, as quantizers write weights:
    # the VNNI kernel requantizes whole 6 x 32 tiles itself, x's zero point in the bias; the last two, of
    # 64k input and 32k output channels, run the direct AMX convolution where the CPU has AMX:
    # two channel chunks, partial position tiles, two channel blocks, batch 2, int8 x, uneven
    # pads). The same-size stride-1 windows take the moved-plane
    # columns, the wide stride-2 rows the vector gather; the wide depthwise ones the direct
    # kernel's vector rows (strides 1 and 2, odd tap counts) and their scalar tails; stride-1
    # depthwise ones sum the whole plane as one run (dilated, padded unevenly), except where the
    # taps reach too far along the row (the last case).
    specs = [("integer_pad_stride2", "uint8", "uint8", None, (1, 3, 9, 8), 4, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1, False),
             ("integer_s8_group2_per_ch", "int8", "int8", None, (2, 4, 6, 7), 6, (3, 2), (1, 2), (2, 0, 1, 1), (2, 1), 2, True),
             ("qlinear_u8s8_per_ch_bias", "uint8", "int8", "uint8", (1, 5, 10, 10), 7, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
             ("qlinear_s8_depthwise", "int8", "int8", "int8", (1, 4, 7, 9), 4, (3, 3), (2, 1), (1, 0, 1, 2), (1, 2), 4, True),
             ("qlinear_pointwise_wide", "uint8", "uint8", "uint8", (1, 8, 17, 17), 3, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
             ("qlinear_same3x3_sym", "uint8", "int8", "uint8", (1, 6, 9, 37), 5, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True, "sym"),
             ("qlinear_same_dilated", "uint8", "int8", "int8", (1, 3, 8, 20), 4, (3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1, False),
             ("integer_stride2_wide", "uint8", "int8", None, (1, 2, 5, 70), 3, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1, False),
             ("qlinear_u8_depthwise_wide", "uint8", "int8", "uint8", (1, 3, 5, 40), 3, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3, True),
             ("qlinear_u8_depthwise_s2_5x5", "uint8", "uint8", "uint8", (1, 2, 7, 75), 2, (5, 5), (2, 2), (2, 2, 2, 2), (1, 1), 2, True),
             ("qlinear_s8_depthwise_wide", "int8", "int8", "int8", (2, 2, 4, 37), 2, (3, 3), (1, 2), (1, 1, 1, 1), (1, 1), 2, False),
             ("qlinear_u8_depthwise_dil2", "uint8", "int8", "uint8", (1, 3, 9, 11), 3, (3, 3), (1, 1), (2, 1, 0, 2), (2, 2), 3, True),
             ("qlinear_s8_depthwise_far_taps", "int8", "int8", "int8", (1, 2, 6, 50), 2, (2, 5), (1, 1), (1, 0, 0, 3), (1, 9), 2, True),
             ("qlinear_whole_tiles_wsym", "uint8", "int8", "uint8", (1, 5, 9, 40), 13, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True, "wsym"),
             ("qlinear_s8_pointwise_wsym", "int8", "int8", "int8", (1, 7, 6, 17), 12, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True, "wsym"),
             ("qlinear_amx_direct_wsym", "uint8", "int8", "uint8", (1, 128, 5, 19), 32, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True, "wsym"),
             ("qlinear_s8_amx_direct_uneven_wsym", "int8", "int8", "int8", (2, 64, 4, 7), 64, (3, 3), (1, 1), (0, 1, 2, 1), (1, 1), 1, True, "wsym")]
    for name, xt, wt, yt, xshape, m, kernel, strides, pads, dil, group, perch, *sym in specs:
        cg = xshape[1] // group
        wshape = (m, cg) + kernel
        x = qrandom(xshape, xt)
        w = qrandom(wshape, wt)
        x_zp = 0 if sym == ["sym"] else int(qrandom((1,), xt)[0])
        w_zp = qrandom((m,) if perch else (1,), wt) * (0 if sym else 1)
        acc = conv_ref(x - x_zp, w - w_zp.reshape(-1, 1, 1, 1), strides, pads, dil, group)
        x_scale = np.float32(0.05)
        w_scale = RNG.uniform(0.002, 0.03, m if perch else 1).astype(np.float32)
        y_scale = np.float32(0.4 if yt else 1.0)
        y_zp = int(qrandom((1,), yt)[0]) if yt else 0
        bias = RNG.integers(-3000, 3000, m)
        if yt:
            mult = ((x_scale * w_scale) / y_scale).astype(np.float32)
            acc32 = (acc + bias.reshape(1, -1, 1, 1)).astype(np.int64)
            want = requantize(acc32, np.broadcast_to(mult.reshape(1, -1, 1, 1) if perch else mult[0], acc32.shape), y_zp, yt)
        else:
            want = acc
        out.append("static const int32_t cv_%s_x[] = %s;" % (name, ints(x)))
        out.append("static const int32_t cv_%s_w[] = %s;" % (name, ints(w)))
        out.append("static const int32_t cv_%s_w_zp[] = %s;" % (name, ints(w_zp)))
        out.append("static const int32_t cv_%s_bias[] = %s;" % (name, ints(bias)))
        out.append("static const float cv_%s_w_scale[] = %s;" % (name, floats(w_scale)))
        out.append("static const int32_t cv_%s_want[] = %s;" % (name, ints(want)))
        rows.append('    {"%s", %s, %s, %s, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, %d, %d, %d, cv_%s_x, cv_%s_w, cv_%s_w_zp, '
                    'cv_%s_bias, %s, cv_%s_w_scale, %s, %d, cv_%s_want},' % (
                        name, DTYPE[xt], DTYPE[wt], DTYPE[yt] if yt else "MMD_DTYPE_INT32",
                        ", ".join(map(str, xshape)), ", ".join(map(str, wshape)), ", ".join(map(str, want.shape)),
                        ", ".join(map(str, strides)), ", ".join(map(str, pads)), ", ".join(map(str, dil)), group,
                        x_zp, len(w_zp), name, name, name, name, flit(x_scale), name, flit(y_scale), y_zp, name))
    out.append("static const struct qconv_case qconv_cases[] = {\n" + "\n".join(rows) + "\n};\n")


def main():
    out = ["/* Generated by tests/gen_quant_cases.py (numpy %s); do not edit. */" % np.__version__,
           "#include <math.h>", "#include <stdint.h>", ""]
    quantize_cases(out)
    dequantize_cases(out)
    dynamic_cases(out)
    matmul_cases(out)
    conv_cases(out)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "quant_cases.h")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
