#!/usr/bin/python3
"""Writes the small graphs tests/test_rewrites.c checks the load-time rewrites on
(tests/data/rewrites/*.onnx): each one a pattern a rewrite must fold or fuse, or a near miss
it must leave alone. The test runs every graph with and without rewrites and compares.

Run: /usr/bin/python3 tests/gen_rewrite_models.py   (deterministic; commit its output)
"""
import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "rewrites")
RNG = np.random.RandomState(0)


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def init(name, shape, low=-1.0, high=1.0):
    return numpy_helper.from_array(RNG.uniform(low, high, shape).astype(np.float32), name)


def const_node(out, value):
    """A Constant node, as torch exports Clip's bounds."""
    return helper.make_node("Constant", [], [out], value=numpy_helper.from_array(np.array(value, np.float32), out))


def bn(prefix, x, y, c):
    """BatchNormalization of c channels with its four parameter initializers."""
    inits = [init(prefix + "_scale", [c], 0.5, 1.5), init(prefix + "_b", [c]),
             init(prefix + "_mean", [c]), init(prefix + "_var", [c], 0.5, 2.0)]
    node = helper.make_node("BatchNormalization", [x] + [t.name for t in inits], [y], name=prefix, epsilon=1e-3)
    return node, inits


def save(name, nodes, inputs, outputs, inits=(), opset=13, extra_opsets=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="gen_rewrite_models")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def conv(name, x, y, cin, cout, bias=True, k=3, **attrs):
    inits = [init(name + "_w", [cout, cin // attrs.get("group", 1), k, k])]
    if bias:
        inits.append(init(name + "_bias", [cout]))
    node = helper.make_node("Conv", [x] + [t.name for t in inits], [y], name=name, pads=[1, 1, 1, 1] if k == 3 else [0, 0, 0, 0], **attrs)
    return node, inits


def main():
    os.makedirs(OUT, exist_ok=True)
    x = [f32("x", [1, 3, 8, 8])]

    # Conv -> BatchNormalization -> Relu: one FusedConv.
    c, ci = conv("conv", "x", "c", 3, 4)
    b, bi = bn("bn", "c", "b", 4)
    save("conv_bn_relu", [c, b, helper.make_node("Relu", ["b"], ["y"], name="relu")], x,
         [f32("y", [1, 4, 8, 8])], ci + bi)

    # Conv without bias -> BatchNormalization -> Clip(0, 6) with Constant bounds (opset 13).
    c, ci = conv("conv", "x", "c", 3, 4, bias=False)
    b, bi = bn("bn", "c", "b", 4)
    save("conv_bn_relu6", [c, b, const_node("lo", 0.0), const_node("hi", 6.0),
                           helper.make_node("Clip", ["b", "lo", "hi"], ["y"], name="relu6")],
         x, [f32("y", [1, 4, 8, 8])], ci + bi)

    # Grouped ConvTranspose -> BatchNormalization (no activation kernel for it: fold only).
    w = init("convt_w", [4, 3, 2, 2])
    ct = helper.make_node("ConvTranspose", ["x4", "convt_w"], ["c"], name="convt", group=2, strides=[2, 2])
    b, bi = bn("bn", "c", "y", 6)
    save("convtranspose_bn", [ct, b], [f32("x4", [1, 4, 5, 5])], [f32("y", [1, 6, 10, 10])], [w] + bi)

    # Gemm -> BatchNormalization -> Mul by [N] -> Add of [1, N] -> LeakyRelu: one FusedGemm.
    g = helper.make_node("Gemm", ["v", "gemm_w", "gemm_c"], ["g"], name="gemm", transB=1)
    b, bi = bn("bn", "g", "b", 5)
    save("gemm_bn_mul_add_leakyrelu",
         [g, b, helper.make_node("Mul", ["b", "scale"], ["m"], name="mul"),
          helper.make_node("Add", ["shift", "m"], ["a"], name="add"),
          helper.make_node("LeakyRelu", ["a"], ["y"], name="leaky", alpha=0.1)],
         [f32("v", [2, 6])], [f32("y", [2, 5])],
         [init("gemm_w", [5, 6]), init("gemm_c", [5]), init("scale", [5]), init("shift", [1, 5])] + bi)

    # Conv -> Mul by [C,1,1] -> Add of a scalar -> HardSigmoid.
    c, ci = conv("conv", "x", "c", 3, 4)
    save("conv_mul_add_hardsigmoid",
         [c, helper.make_node("Mul", ["c", "scale"], ["m"], name="mul"),
          helper.make_node("Add", ["m", "shift"], ["a"], name="add"),
          helper.make_node("HardSigmoid", ["a"], ["y"], name="hsig", alpha=0.3, beta=0.4)],
         x, [f32("y", [1, 4, 8, 8])], ci + [init("scale", [4, 1, 1]), init("shift", [])])

    # One activation each: HardSwish (opset 14), Sigmoid, Tanh, and x * sigmoid(x).
    for act in ["HardSwish", "Sigmoid", "Tanh"]:
        c, ci = conv("conv", "x", "c", 3, 4)
        save("conv_" + act.lower(), [c, helper.make_node(act, ["c"], ["y"], name="act")], x,
             [f32("y", [1, 4, 8, 8])], ci, opset=14)
    c, ci = conv("conv", "x", "c", 3, 4)
    save("conv_silu", [c, helper.make_node("Sigmoid", ["c"], ["s"], name="sig"),
                       helper.make_node("Mul", ["s", "c"], ["y"], name="mul")], x, [f32("y", [1, 4, 8, 8])], ci)

    # A residual block: Relu(Conv(Relu(Conv(x))) + x), and the same with a symbolic batch, where
    # the Add must stay (its shapes are not fixed) but the Relus still fuse.
    for name, batch in [("residual", 1), ("residual_symbolic", "N")]:
        c1, i1 = conv("conv1", "x", "c1", 4, 4)
        c2, i2 = conv("conv2", "r1", "c2", 4, 4)
        save(name, [c1, helper.make_node("Relu", ["c1"], ["r1"], name="relu1"), c2,
                    helper.make_node("Add", ["c2", "x"], ["a"], name="add"),
                    helper.make_node("Relu", ["a"], ["y"], name="relu2")],
             [f32("x", [batch, 4, 6, 6])], [f32("y", [batch, 4, 6, 6])], i1 + i2)

    # MatMul of two matrices -> Relu: a FusedGemm with a zero C.
    save("matmul_relu", [helper.make_node("MatMul", ["v", "w"], ["m"], name="matmul"),
                         helper.make_node("Relu", ["m"], ["y"], name="relu")],
         [f32("v", [3, 6])], [f32("y", [3, 5])], [init("w", [6, 5])])

    # Transpose pairs: one that cancels (both go) and one that composes into a single Transpose.
    save("transpose_cancel", [helper.make_node("Transpose", ["x"], ["t"], name="to_nhwc", perm=[0, 2, 3, 1]),
                              helper.make_node("Transpose", ["t"], ["u"], name="to_nchw", perm=[0, 3, 1, 2]),
                              helper.make_node("Relu", ["u"], ["y"], name="relu")],
         x, [f32("y", [1, 3, 8, 8])])
    save("transpose_compose", [helper.make_node("Transpose", ["x"], ["t"], name="t1", perm=[0, 2, 3, 1]),
                               helper.make_node("Transpose", ["t"], ["y"], name="t2", perm=[1, 0, 3, 2])],
         x, [f32("y", [8, 1, 3, 8])])

    # Reshape chain: two Reshapes become one; a Reshape to the same shape goes.
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    save("reshape_chain", [helper.make_node("Reshape", ["x", "s1"], ["r1"], name="r1"),
                           helper.make_node("Reshape", ["r1", "s2"], ["r2"], name="r2"),
                           helper.make_node("Reshape", ["r2", "s3"], ["r3"], name="same"),
                           helper.make_node("Relu", ["r3"], ["y"], name="relu")],
         x, [f32("y", [3, 64])], [i64("s1", [1, 192]), i64("s2", [3, -1]), i64("s3", [3, 64])])

    # Near misses, where nothing may change.
    # The Conv's output is read by the BatchNormalization and by the Add.
    c, ci = conv("conv", "x", "c", 3, 4)
    b, bi = bn("bn", "c", "b", 4)
    save("miss_shared", [c, b, helper.make_node("Add", ["b", "c"], ["y"], name="add")], x,
         [f32("y", [1, 4, 8, 8])], ci + bi)
    # The Conv's output is a graph output too.
    c, ci = conv("conv", "x", "c", 3, 4)
    b, bi = bn("bn", "c", "b", 4)
    save("miss_graph_output", [c, b], x, [f32("c", [1, 4, 8, 8]), f32("b", [1, 4, 8, 8])], ci + bi)
    # The scale is a graph input, not a constant.
    c, ci = conv("conv", "x", "c", 3, 4)
    save("miss_input_scale", [c, helper.make_node("Mul", ["c", "s"], ["y"], name="mul")],
         x + [f32("s", [1, 4, 1, 1])], [f32("y", [1, 4, 8, 8])], ci)
    # Constants that broadcast along a spatial axis, or add a dimension.
    c, ci = conv("conv", "x", "c", 3, 4)
    save("miss_broadcast", [c, helper.make_node("Add", ["c", "h"], ["a"], name="add_rows"),
                            helper.make_node("Mul", ["a", "wide"], ["y"], name="mul_rank5")],
         x, [f32("y", [1, 1, 4, 8, 8])], ci + [init("h", [8, 1]), init("wide", [1, 1, 4, 1, 1])])
    # A residual Add whose other input broadcasts ([1, 4, 1, 1] from a pool), and an activation
    # the epilogue has no name for (Elu).
    c, ci = conv("conv", "x", "c", 3, 4)
    p = helper.make_node("GlobalAveragePool", ["x4"], ["p"], name="pool")
    save("miss_residual_broadcast", [p, c, helper.make_node("Add", ["c", "p"], ["a"], name="add"),
                                     helper.make_node("Elu", ["a"], ["y"], name="elu")],
         x + [f32("x4", [1, 4, 8, 8])], [f32("y", [1, 4, 8, 8])], ci)

    # Made after the others, so that adding them left those as they were.
    # HardSwish as torch exports it before opset 14: x * HardSigmoid(x, 1/6, 1/2).
    c, ci = conv("conv", "x", "c", 3, 4)
    save("conv_hardswish_opset13", [c, helper.make_node("HardSigmoid", ["c"], ["h"], name="hsig", alpha=1.0 / 6),
                                  helper.make_node("Mul", ["c", "h"], ["y"], name="mul")],
         x, [f32("y", [1, 4, 8, 8])], ci)
    # ConvTranspose -> BatchNormalization whose parameters come through Identity nodes, as torch
    # writes the constants it deduplicated.
    ct = helper.make_node("ConvTranspose", ["x4", "convt_w", "convt_b"], ["c"], name="convt", strides=[2, 2])
    b, bi = bn("bn", "c", "y", 3)
    ids = [helper.make_node("Identity", [t.name + "_src"], [t.name], name=t.name + "_id") for t in bi]
    for t in bi:
        t.name += "_src"
    save("convtranspose_bn_identity", ids + [ct, b], [f32("x4", [1, 4, 5, 5])], [f32("y", [1, 3, 10, 10])],
         [init("convt_w", [4, 3, 2, 2]), init("convt_b", [3])] + bi)
    # An FPN level: Resize(coarse) + Conv(lateral), the Conv written first, so that it has to
    # move after the Resize to take the Add as its residual.
    c, ci = conv("lateral", "x", "l", 3, 4, k=1)
    up = helper.make_node("Resize", ["coarse", "", "scales"], ["u"], name="upsample", mode="nearest")
    save("fpn_lateral_add", [c, up, helper.make_node("Add", ["u", "l"], ["y"], name="add")],
         x + [f32("coarse", [1, 4, 4, 4])], [f32("y", [1, 4, 8, 8])],
         ci + [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")])
    # ConvTranspose -> activation, each of the kernel's ways to store its sums: stride = kernel
    # 2 wide (DBNet's head: BatchNormalization folded, Relu; rows past 16 pixels and a masked
    # tail), the same with an activation that has no vector formula (Tanh, applied to the row
    # after), stride = kernel 3 (a strided scatter: LeakyRelu), and overlapping taps with
    # output_padding (col2im: Sigmoid over each finished plane).
    ct = helper.make_node("ConvTranspose", ["x4", "convt_w", "convt_b"], ["c"], name="convt", strides=[2, 2])
    b, bi = bn("bn", "c", "b", 3)
    save("convtranspose_bn_relu", [ct, b, helper.make_node("Relu", ["b"], ["y"], name="relu")],
         [f32("x4", [1, 4, 5, 21])], [f32("y", [1, 3, 10, 42])], [init("convt_w", [4, 3, 2, 2]), init("convt_b", [3])] + bi)
    ct = helper.make_node("ConvTranspose", ["x4", "convt_w"], ["c"], name="convt", strides=[2, 2])
    save("convtranspose_tanh", [ct, helper.make_node("Tanh", ["c"], ["y"], name="tanh")],
         [f32("x4", [1, 4, 3, 19])], [f32("y", [1, 2, 6, 38])], [init("convt_w", [4, 2, 2, 2], -2.0, 2.0)])
    ct = helper.make_node("ConvTranspose", ["x4", "convt_w", "convt_b"], ["c"], name="convt", strides=[3, 3])
    save("convtranspose_s3_leakyrelu", [ct, helper.make_node("LeakyRelu", ["c"], ["y"], name="leaky", alpha=0.2)],
         [f32("x4", [1, 4, 4, 6])], [f32("y", [1, 3, 12, 18])], [init("convt_w", [4, 3, 3, 3]), init("convt_b", [3])])
    ct = helper.make_node("ConvTranspose", ["x4", "convt_w", "convt_b"], ["c"], name="convt", strides=[2, 2],
                          pads=[1, 1, 1, 1], output_padding=[1, 1], group=2)
    save("convtranspose_overlap_sigmoid", [ct, helper.make_node("Sigmoid", ["c"], ["y"], name="sig")],
         [f32("x4", [1, 4, 5, 5])], [f32("y", [1, 4, 10, 10])], [init("convt_w", [4, 2, 3, 3]), init("convt_b", [4])])
    # A 1x1 convolution into the depthwise convolution that alone reads it (mmd PointwiseDepthwise),
    # on planes large enough for the rewrite (MMD_FUSE_PLANE_MIN 196). ReLU6 on both, as in
    # MobileNetV2, 13 channels (a partial row panel of every micro-kernel) over a 17x15 plane, 3x3
    # stride 1; then two images of 40 channels over 83x81, more than the fused kernel's buffer
    # holds (groups of 32 and 8 channels), no biases, Relu on the 1x1, a 5x5 stride-2
    # depthwise convolution taking a residual Add; and a near miss whose 1x1 output is a graph
    # output too.
    lo_hi = [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("lo", 0.0), ("hi", 6.0))]
    pw, pwi = conv("pw", "x5", "e", 5, 13, k=1)
    dw, dwi = conv("dw", "r", "d", 13, 13, group=13)
    save("pointwise_depthwise_relu6", [pw, helper.make_node("Clip", ["e", "lo", "hi"], ["r"], name="clip_pw"),
                                       dw, helper.make_node("Clip", ["d", "lo", "hi"], ["y"], name="clip_dw")],
         [f32("x5", [1, 5, 17, 15])], [f32("y", [1, 13, 17, 15])], pwi + dwi + lo_hi)
    pw, pwi = conv("pw", "x3", "e", 3, 40, bias=False, k=1)
    dw = helper.make_node("Conv", ["r", "dw_w"], ["d"], name="dw", group=40, strides=[2, 2], pads=[2, 2, 2, 2])
    save("pointwise_depthwise_s2_residual", [pw, helper.make_node("Relu", ["e"], ["r"], name="relu"), dw,
                                            helper.make_node("Add", ["d", "z"], ["y"], name="add")],
         [f32("x3", [2, 3, 83, 81]), f32("z", [2, 40, 42, 41])], [f32("y", [2, 40, 42, 41])],
         pwi + [init("dw_w", [40, 1, 5, 5])])
    pw, pwi = conv("pw", "x5", "e", 5, 13, k=1)
    dw, dwi = conv("dw", "e", "y", 13, 13, group=13)
    save("miss_pointwise_depthwise_output", [pw, dw], [f32("x5", [1, 5, 17, 15])],
         [f32("y", [1, 13, 17, 15]), f32("e", [1, 13, 17, 15])], pwi + dwi)
    # The projection after a PointwiseDepthwise folded into it, where the expanded tensor has at
    # least MMD_FUSE_PROJECTION_MIN (2^18) floats: an inverted residual block as MobileNetV2's
    # (ReLU6 on the 1x1 and the depthwise convolution, the projection linear with the block's
    # input added), 64 channels over 64x66, bands of 15 output rows and a last one of 4; then two
    # images of 70 channels over 70x62, a 5x5 stride-2 depthwise convolution without bias, a Relu
    # on the projection to 13 channels; and a near miss whose depthwise output is a graph
    # output too (the pair stays, the projection apart).
    pw, pwi = conv("pw", "x8", "e", 8, 64, k=1)
    dw, dwi = conv("dw", "r", "d", 64, 64, group=64)
    pj, pji = conv("pj", "s", "p", 64, 8, k=1)
    save("pointwise_depthwise_projection", [pw, helper.make_node("Clip", ["e", "lo", "hi"], ["r"], name="clip_pw"),
                                            dw, helper.make_node("Clip", ["d", "lo", "hi"], ["s"], name="clip_dw"),
                                            pj, helper.make_node("Add", ["p", "x8"], ["y"], name="add")],
         [f32("x8", [1, 8, 64, 66])], [f32("y", [1, 8, 64, 66])], pwi + dwi + pji + lo_hi)
    pw, pwi = conv("pw", "x6", "e", 6, 70, k=1)
    dw = helper.make_node("Conv", ["r", "dw_w"], ["d"], name="dw", group=70, strides=[2, 2], pads=[2, 2, 2, 2])
    pj, pji = conv("pj", "d", "p", 70, 13, k=1)
    save("pointwise_depthwise_projection_s2_relu", [pw, helper.make_node("Relu", ["e"], ["r"], name="relu_pw"), dw, pj,
                                                    helper.make_node("Relu", ["p"], ["y"], name="relu_pj")],
         [f32("x6", [2, 6, 70, 62])], [f32("y", [2, 13, 35, 31])], pwi + [init("dw_w", [70, 1, 5, 5])] + pji)
    pw, pwi = conv("pw", "x8", "e", 8, 64, k=1)
    dw, dwi = conv("dw", "e", "d", 64, 64, group=64)
    pj, pji = conv("pj", "d", "y", 64, 8, k=1)
    save("miss_projection_output", [pw, dw, pj], [f32("x8", [1, 8, 64, 66])],
         [f32("y", [1, 8, 64, 66]), f32("d", [1, 64, 64, 66])], pwi + dwi + pji)
    # A depthwise convolution alone (no 1x1 before it, as MobileNetV2's features.1) and its
    # projection: folded only in the portable build (MMD_NO_SIMD), as a PointwiseDepthwise
    # without W1; 32 channels over 96x96, ReLU6 on the depthwise convolution.
    dw, dwi = conv("dw", "x32", "d", 32, 32, group=32)
    pj, pji = conv("pj", "s", "y", 32, 16, k=1)
    save("depthwise_projection", [dw, helper.make_node("Clip", ["d", "lo", "hi"], ["s"], name="clip_dw"), pj],
         [f32("x32", [1, 32, 96, 96])], [f32("y", [1, 16, 96, 96])], dwi + pji + lo_hi)


if __name__ == "__main__":
    main()
