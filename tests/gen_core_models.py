#!/usr/bin/python3
"""Writes the small models tests/test_core.c loads (tests/data/core/*.onnx).

Run: /usr/bin/python3 tests/gen_core_models.py   (deterministic; commit its output)
"""
import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "core")


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="gen_core_models")
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def main():
    os.makedirs(OUT, exist_ok=True)
    # Ten Relus in a row: only two activations are ever alive at once.
    nodes = [helper.make_node("Relu", ["x" if i == 0 else "t%d" % (i - 1)],
                              ["y" if i == 9 else "t%d" % i]) for i in range(10)]
    save("relu_chain", nodes, [f32("x", ["N", 1000])], [f32("y", ["N", 1000])])

    # Gemm with weights in raw_data (in place) and bias in float_data (copied), fixed shape.
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, "w")
    b = helper.make_tensor("b", TensorProto.FLOAT, [4], [0.5, -0.5, 1.0, -1.0])
    save("gemm_fixed", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)],
         [f32("x", [2, 3])], [f32("y", [2, 4])], [w, b])

    # Nodes stored out of order: the parser must sort them.
    save("unsorted", [helper.make_node("Relu", ["t"], ["y"]), helper.make_node("Sigmoid", ["x"], ["t"])],
         [f32("x", [3])], [f32("y", [3])], opset=13)

    # Shape arithmetic folded at prepare time: Reshape(x, Concat(Shape(x)[0], -1)).
    shape_nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    save("flatten_by_shape", shape_nodes, [f32("x", ["N", 2, 3])], [f32("y", ["N", 6])],
         [numpy_helper.from_array(np.array(0, np.int64), "zero"),
          numpy_helper.from_array(np.array([0], np.int64), "axes"),
          numpy_helper.from_array(np.array([-1], np.int64), "minus1")])


if __name__ == "__main__":
    main()
