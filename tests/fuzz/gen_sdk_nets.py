#!/usr/bin/python3
"""Writes tests/fuzz/sdk_nets.h: the tiny networks the SDK fuzz harnesses put behind a fuzzed
pipeline, as C byte arrays, so that a harness needs no file beside it.

Usage: /usr/bin/python3 tests/fuzz/gen_sdk_nets.py > tests/fuzz/sdk_nets.h

Each takes "input" [1, 3, h, w] float (any h, w) and gives what one task's postprocess reads:
  cls      GlobalAveragePool + Flatten: "output" [1, 3]
  det      "dets" [1, 4, 5] from the image's channel means times fixed factors (boxes partly
           outside the image, scores on both sides of a threshold) and "labels" [1, 4] int64
  det_mask det's outputs and "masks" [1, 4, h, w]: the input's three channels and its first
           again, float masks of the whole input that ResizeInstanceMask warps into the boxes
           (params with "rcnn") or resizes to the image (without)
  seg      ArgMax over channels: "output" [1, 1, h, w] int64 (ResizeMask with_argmax)
  seg_score  the input itself: "output" [1, 3, h, w] float (ResizeMask without argmax)
  rotated  "dets" [1, 4, 6] (cx, cy, w, h, angle, score) from the channel means times fixed
           factors (NaN-free, sizes on both sides of zero, scores on both sides of a threshold) and
           "labels" [1, 4] int64, for ResizeRBBox
  textdet  the input's first channel: "output" [1, 1, h, w] float, the map DBHead follows (the
           fuzzed image and Normalize make its shapes)
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(name, nodes, outputs, inits=()):
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, "h", "w"])
    g = helper.make_graph(nodes, name, [inp], outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_sdk_nets")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m.SerializeToString()


def nets():
    f = TensorProto.FLOAT
    cls = model("cls", [helper.make_node("GlobalAveragePool", ["input"], ["p"]),
                        helper.make_node("Flatten", ["p"], ["output"])],
                [helper.make_tensor_value_info("output", f, [1, 3])])
    factors = np.array([[[-0.5, 0.1, 2.0, 1.5, 0.01], [0.2, 0.3, 0.9, 0.8, 1.0],
                         [3.0, -2.0, 5.0, 4.0, -1.0], [0.0, 0.0, 0.0, 0.0, 0.5]]], np.float32)
    det = model("det", [
        helper.make_node("GlobalAveragePool", ["input"], ["p"]),
        helper.make_node("Reshape", ["p", "shape"], ["m"]),                  # [1, 1, 3]
        helper.make_node("Abs", ["m"], ["a"]),
        helper.make_node("Concat", ["a", "a"], ["aa"], axis=2),              # [1, 1, 6]
        helper.make_node("Slice", ["aa", "starts", "ends", "axes"], ["five"]),  # [1, 1, 5]
        helper.make_node("Add", ["five", "one"], ["base"]),
        helper.make_node("Mul", ["base", "factors"], ["dets"]),              # [1, 4, 5]
        helper.make_node("Identity", ["lab"], ["labels"])],
        [helper.make_tensor_value_info("dets", f, [1, 4, 5]),
         helper.make_tensor_value_info("labels", TensorProto.INT64, [1, 4])],
        [numpy_helper.from_array(np.array([1, 1, 3], np.int64), "shape"),
         numpy_helper.from_array(np.array([0], np.int64), "starts"),
         numpy_helper.from_array(np.array([5], np.int64), "ends"),
         numpy_helper.from_array(np.array([2], np.int64), "axes"),
         numpy_helper.from_array(np.array([[[1.0, 1.0, 40.0, 30.0, 0.0]]], np.float32), "one"),
         numpy_helper.from_array(factors, "factors"),
         numpy_helper.from_array(np.array([[0, 1, 2, 7]], np.int64), "lab")])
    rfactors = np.array([[[0.5, 0.2, 2.0, 1.5, 0.3, 0.01], [0.2, 0.3, 0.9, -0.8, -1.0, 1.0],
                          [3.0, -2.0, 5.0, 4.0, 7.0, -1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.5]]], np.float32)
    rotated = model("rotated", [
        helper.make_node("GlobalAveragePool", ["input"], ["p"]),
        helper.make_node("Reshape", ["p", "shape"], ["m"]),                  # [1, 1, 3]
        helper.make_node("Abs", ["m"], ["a"]),
        helper.make_node("Concat", ["a", "a"], ["aa"], axis=2),              # [1, 1, 6]
        helper.make_node("Add", ["aa", "one"], ["base"]),
        helper.make_node("Mul", ["base", "factors"], ["dets"]),              # [1, 4, 6]
        helper.make_node("Identity", ["lab"], ["labels"])],
        [helper.make_tensor_value_info("dets", f, [1, 4, 6]),
         helper.make_tensor_value_info("labels", TensorProto.INT64, [1, 4])],
        [numpy_helper.from_array(np.array([1, 1, 3], np.int64), "shape"),
         numpy_helper.from_array(np.array([[[20.0, 15.0, 40.0, 30.0, 0.5, 0.0]]], np.float32), "one"),
         numpy_helper.from_array(rfactors, "factors"),
         numpy_helper.from_array(np.array([[0, 1, 2, 7]], np.int64), "lab")])
    det_mask = onnx.load_from_string(det)
    det_mask.graph.node.extend([
        helper.make_node("Slice", ["input", "starts", "one1", "one1"], ["first"]),
        helper.make_node("Concat", ["input", "first"], ["masks"], axis=1)])
    det_mask.graph.initializer.extend([numpy_helper.from_array(np.array([1], np.int64), "one1")])
    det_mask.graph.output.extend([helper.make_tensor_value_info("masks", f, [1, 4, "h", "w"])])
    onnx.checker.check_model(det_mask)
    det_mask = det_mask.SerializeToString()
    seg = model("seg", [helper.make_node("ArgMax", ["input"], ["output"], axis=1, keepdims=1)],
                [helper.make_tensor_value_info("output", TensorProto.INT64, [1, 1, "h", "w"])])
    seg_score = model("seg_score", [helper.make_node("Identity", ["input"], ["output"])],
                      [helper.make_tensor_value_info("output", f, [1, 3, "h", "w"])])
    textdet = model("textdet", [helper.make_node("Slice", ["input", "starts", "ends", "axes"], ["output"])],
                    [helper.make_tensor_value_info("output", f, [1, 1, "h", "w"])],
                    [numpy_helper.from_array(np.array([0], np.int64), "starts"),
                     numpy_helper.from_array(np.array([1], np.int64), "ends"),
                     numpy_helper.from_array(np.array([1], np.int64), "axes")])
    return [("cls", cls), ("det", det), ("det_mask", det_mask), ("seg", seg), ("seg_score", seg_score), ("textdet", textdet),
            ("rotated", rotated)]


def main():
    print("/* tests/fuzz/sdk_nets.h - generated by tests/fuzz/gen_sdk_nets.py; do not edit. */")
    print("#ifndef FUZZ_SDK_NETS_H\n#define FUZZ_SDK_NETS_H")
    for name, b in nets():
        print("static const unsigned char fuzz_net_%s[%d] = {" % (name, len(b)))
        for i in range(0, len(b), 20):
            print("    " + ", ".join("%d" % x for x in b[i:i + 20]) + ",")
        print("};")
    print("#endif")


if __name__ == "__main__":
    main()
