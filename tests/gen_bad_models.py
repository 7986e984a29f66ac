#!/usr/bin/python3
"""Writes the malformed-model corpus: tests/bad_models/<case>.onnx and expected.txt beside them.

Usage: /usr/bin/python3 tests/gen_bad_models.py [OUT_DIR]   (default: tests/bad_models)

Every case starts from one of three small valid models made with onnx.helper and breaks one thing.
Breakage that onnx.helper cannot express (truncation, bad varints, wrong wire types, lengths past
the end) is written as raw protobuf bytes with the little encoder below. expected.txt maps each
case to the mmd_status the runtime must return, named as in MMD_STATUS_LIST without MMD_. A few
valid controls expect OK so that a runtime refusing everything cannot pass.

The status chosen for each case follows mmdeploy.h and mmdeploy_ir.h: bytes that are not a valid
protobuf encoding (and an empty file, which cannot be a model) are MALFORMED, including a known
field with the wrong wire type, which protobuf itself would skip; a valid encoding that breaks
ONNX's rules is INVALID_MODEL; a data_type the runtime cannot hold (string, complex, unknown) and
the documented non-features (external data, sparse) are UNSUPPORTED; MMD_MAX_* and size overflow
are LIMIT; a negative dim is SHAPE, as mmd_tensor_nbytes reports it; kernel checks give
INVALID_MODEL (wrong input count, attribute values no operator can take), SHAPE, DTYPE, LIMIT (a
size computed from attributes or constant inputs), INDEX (an index out of range when the node
runs) or NO_KERNEL. Empty tensors are valid ONNX, so resizing to a zero size is OK.
The output is deterministic, so regenerating leaves git clean.
"""
import os
import random
import struct
import sys

import numpy as np
from google.protobuf.message import DecodeError
import onnx
from onnx import TensorProto, helper, numpy_helper

# ==== >>protobuf encoding ====


def varint(n):
    """Base-128 varint; negative values as 64-bit two's complement, as protobuf does."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def padded_varint(n, length):
    """The same value in exactly `length` bytes, with redundant continuation groups."""
    out = bytearray()
    for i in range(length):
        b = (n >> (7 * i)) & 0x7F
        out.append(b | (0x80 if i < length - 1 else 0))
    return bytes(out)


def tag(field, wire):
    return varint(field << 3 | wire)


def ld(field, payload):
    """A length-delimited field."""
    return tag(field, 2) + varint(len(payload)) + payload


def read_varint(buf, i):
    n = shift = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def split(buf):
    """The fields of a message, in order: (field, wire, raw_bytes, payload_or_value)."""
    out, i = [], 0
    while i < len(buf):
        start = i
        key, i = read_varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        elif wire == 2:
            n, i = read_varint(buf, i)
            value, i = buf[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wire)
        out.append((field, wire, buf[start:i], value))
    return out


def field_name(payload, name_field):
    for f, w, _, v in split(payload):
        if f == name_field and w == 2:
            return v.decode()
    return None


def edit(buf, path, fn):
    """Applies fn to the payload of the sub-message at path and re-encodes every length on the
    way up. path is a list of (field, selector): selector is the n-th occurrence (int) or
    (name_field, name) to pick the sub-message whose name matches."""
    if not path:
        return fn(buf)
    (field, sel), rest = path[0], path[1:]
    out, count, hit = bytearray(), 0, False
    for f, w, raw, v in split(buf):
        if f == field and w == 2 and not hit:
            match = (count == sel) if isinstance(sel, int) else (field_name(v, sel[0]) == sel[1])
            count += 1
            if match:
                hit = True
                out += ld(f, edit(v, rest, fn))
                continue
        out += raw
    assert hit, "path %r not found" % (path,)
    return bytes(out)


def locate(buf, path):
    """Absolute [start, end) of the payload of the field at path (same selectors as edit)."""
    base = 0
    for field, sel in path:
        i, count, found = 0, 0, None
        for f, w, raw, v in split(buf):
            if f == field and w == 2:
                match = (count == sel) if isinstance(sel, int) else (
                    field_name(v, sel[0]) == sel[1])
                count += 1
                if match:
                    found = (i + len(raw) - len(v), v)
                    break
            i += len(raw)
        assert found, "path %r not found" % (path,)
        base += found[0]
        buf = found[1]
    return base, base + len(buf)


def replace_field(payload, field, new_raw, last=False):
    """The message with every occurrence of field replaced by new_raw (once, in place or at the
    end when last is set, so a length that runs long runs past the message)."""
    out, placed = bytearray(), False
    for f, _, raw, _ in split(payload):
        if f == field:
            if not placed and not last:
                out += new_raw
                placed = True
            continue
        out += raw
    if not placed:
        out += new_raw
    return bytes(out)


# Field numbers from onnx.proto.
MODEL_GRAPH, MODEL_IR_VERSION = 7, 1
GRAPH_NODE, GRAPH_INITIALIZER = 1, 5
NODE_OP_TYPE = 4
TENSOR_DIMS, TENSOR_DATA_TYPE, TENSOR_FLOAT_DATA, TENSOR_NAME, TENSOR_RAW_DATA = 1, 2, 4, 8, 9
INIT_W = (GRAPH_INITIALIZER, (TENSOR_NAME, "W"))
INIT_B = (GRAPH_INITIALIZER, (TENSOR_NAME, "B"))

# ==== >>valid models ====


def floats(shape, scale=0.01):
    n = int(np.prod(shape))
    return ((np.arange(n, dtype=np.float32) % 7 - 3) * scale).reshape(shape)


def conv_model(x_type=TensorProto.FLOAT, x_dims=(1, 2, 4, 4), w=None, b=None, wg=None,
               conv_attrs=None, nodes=None, extra_inits=(), inputs=None, outputs=None,
               relu=("c", "r"), opsets=(("", 13),)):
    """X[1,2,4,4] -> Conv(W[3,2,3,3], B[3], stride 2, pad 1) -> Relu -> Flatten -> Gemm -> Y[1,4].
    Each keyword replaces one part; False for an initializer leaves it out."""
    if conv_attrs is None:
        conv_attrs = [helper.make_attribute("kernel_shape", [3, 3]),
                      helper.make_attribute("strides", [2, 2]),
                      helper.make_attribute("pads", [1, 1, 1, 1])]
    conv = helper.make_node("Conv", ["X", "W", "B"], ["c"], name="conv")
    conv.attribute.extend(conv_attrs)
    if nodes is None:
        nodes = [conv,
                 helper.make_node("Relu", [relu[0]], [relu[1]], name="relu"),
                 helper.make_node("Flatten", ["r"], ["f"], name="flatten", axis=1),
                 helper.make_node("Gemm", ["f", "Wg", "Bg"], ["Y"], name="gemm", transB=1)]
    inits = [w if w is not None else numpy_helper.from_array(floats((3, 2, 3, 3)), "W"),
             b if b is not None else float_data_tensor("B", [3], [0.1, -0.2, 0.3]),
             wg if wg is not None else numpy_helper.from_array(floats((4, 12), 0.1), "Wg"),
             numpy_helper.from_array(np.array([0.5, -0.5, 1.0, 0.0], np.float32), "Bg")]
    inits = [t for t in inits if t is not False] + list(extra_inits)
    graph = helper.make_graph(
        nodes, "conv_relu_gemm",
        inputs if inputs is not None else [
            helper.make_tensor_value_info("X", x_type, list(x_dims))],
        outputs if outputs is not None else [
            helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4])],
        inits)
    return helper.make_model(graph, producer_name="gen_bad_models",
                             opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                             ir_version=7)


def reshape_model(index=(0,), tail=None, index_dtype=np.int64):
    """X[1,4,2,2] -> Reshape(X, Concat(Gather(Shape(X), [0]), [-1])) -> Y[1,16]: the shape
    arithmetic MMDeploy exports for a flatten, folded at prepare time."""
    tail = numpy_helper.from_array(np.array([-1], np.int64) if tail is None else tail, "tail")
    nodes = [helper.make_node("Shape", ["X"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "idx"], ["n"], name="gather", axis=0),
             helper.make_node("Concat", ["n", "tail"], ["shp"], name="concat", axis=0),
             helper.make_node("Reshape", ["X", "shp"], ["Y"], name="reshape")]
    graph = helper.make_graph(
        nodes, "shape_gather_concat_reshape",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4, 2, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 16])],
        [numpy_helper.from_array(np.array(index, index_dtype), "idx"), tail])
    return helper.make_model(graph, producer_name="gen_bad_models",
                             opset_imports=[helper.make_opsetid("", 13)], ir_version=7)


def relu_model(dims):
    graph = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["Y"], name="relu")], "relu",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(dims))],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, list(dims))])
    return helper.make_model(graph, producer_name="gen_bad_models",
                             opset_imports=[helper.make_opsetid("", 13)], ir_version=7)


def op_model(nodes, inputs, outputs, inits=(), opsets=(("", 13),)):
    """A graph of the given nodes; inputs and outputs as (name, elem_type, dims)."""
    graph = helper.make_graph(
        nodes, "op",
        [helper.make_tensor_value_info(n, t, list(d)) for n, t, d in inputs],
        [helper.make_tensor_value_info(n, t, list(d)) for n, t, d in outputs],
        list(inits))
    return helper.make_model(graph, producer_name="gen_bad_models",
                             opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                             ir_version=7)


def x_model(node, out_dims, inits=(), x_dims=(1, 4, 2, 2), out_type=TensorProto.FLOAT,
            opsets=(("", 13),)):
    """One node reading the graph input X (float) and the given initializers, writing Y."""
    return op_model([node], [("X", TensorProto.FLOAT, x_dims)], [("Y", out_type, out_dims)],
                    inits, opsets)


def nested_if_graph(depth):
    """A GraphProto holding an If node whose then_branch holds the next level, depth levels
    deep, encoded by hand (onnx's own protobuf refuses to parse past 100 levels) and kept to
    op_type and the one attribute per level so that the file stays small."""
    attr_g = 6
    inner = b""
    for _ in range(depth):
        inner = ld(GRAPH_NODE, ld(4, b"If") + ld(5, ld(1, b"then_branch") + ld(attr_g, inner)))
    return inner


def float_data_tensor(name, dims, values):
    """A float tensor in float_data, with no check that the count matches dims."""
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.float_data.extend(values)
    return t


def ser(model):
    return model.SerializeToString()


def raw_tensor(name, dims, dtype=TensorProto.FLOAT, raw=b""):
    """A tensor with exactly these dims and raw_data, however inconsistent."""
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


# ==== >>cases ====


def cases():
    base = ser(conv_model())
    g0, g1 = locate(base, [(MODEL_GRAPH, 0)])
    graph_start = g0 - len(tag(MODEL_GRAPH, 2)) - len(varint(g1 - g0))
    node0 = locate(base, [(MODEL_GRAPH, 0), (GRAPH_NODE, 0)])
    raw_w = locate(base, [(MODEL_GRAPH, 0), INIT_W, (TENSOR_RAW_DATA, 0)])
    assert g1 - g0 >= 128, "the graph length must take two varint bytes"

    def graph_last(length_bytes):
        """The model with the graph moved to the end and its length written as given."""
        fields = split(base)
        graph = [v for f, _, _, v in fields if f == MODEL_GRAPH][0]
        rest = b"".join(raw for f, _, raw, _ in fields if f != MODEL_GRAPH)
        return rest + tag(MODEL_GRAPH, 2) + length_bytes + graph

    c = []

    def add(name, status, data):
        c.append((name, status, data))

    # -- valid controls: a runtime that refuses everything fails these. test_bad_models also
    # loads every proper prefix of them and wants each refused, so each must end with a field
    # a model cannot do without (opset_import or graph).
    add("valid_conv_relu_gemm", "OK", base)
    add("valid_shape_gather_concat_reshape", "OK", ser(reshape_model()))
    add("valid_unknown_fields_skipped", "OK",
        edit(edit(base, [(MODEL_GRAPH, 0), (GRAPH_NODE, 0)],
                  lambda p: p + ld(77, b"future") + tag(78, 1) + b"\0" * 8),
             [], lambda p: tag(99, 0) + varint(12345) + tag(98, 5) + b"\0" * 4 + p))
    # Padded varints are valid protobuf: 10 bytes for a scalar, 5 for a length (protobuf's own
    # parser refuses longer lengths, since lengths are 32-bit there).
    add("valid_padded_varints", "OK",
        edit(graph_last(padded_varint(g1 - g0, 5)), [],
             lambda p: replace_field(p, MODEL_IR_VERSION,
                                     tag(MODEL_IR_VERSION, 0) + padded_varint(7, 10))))

    # -- empty and garbage
    add("empty_file", "ERR_MALFORMED", b"")
    add("garbage_text", "ERR_MALFORMED", b"this is not an onnx model\n")
    add("garbage_zeros", "ERR_MALFORMED", b"\0" * 64)
    rng = random.Random(20240501)
    garbage = bytes(rng.randrange(256) for _ in range(512))
    try:
        onnx.ModelProto().ParseFromString(garbage)
        raise AssertionError("the random garbage parses; pick another seed")
    except DecodeError:
        pass
    add("garbage_random", "ERR_MALFORMED", garbage)

    # -- truncation at structural boundaries
    add("trunc_after_first_tag", "ERR_MALFORMED", base[:1])
    add("trunc_before_graph", "ERR_INVALID_MODEL", base[:graph_start])
    add("trunc_in_graph_length", "ERR_MALFORMED", base[:graph_start + 2])
    add("trunc_in_first_node", "ERR_MALFORMED", base[:node0[0] + 3])
    add("trunc_in_raw_data", "ERR_MALFORMED", base[:(raw_w[0] + raw_w[1]) // 2])
    add("trunc_before_opset_import", "ERR_INVALID_MODEL", base[:g1])
    add("trunc_last_byte", "ERR_MALFORMED", base[:-1])

    # -- varints and lengths
    add("varint_11_bytes", "ERR_MALFORMED",
        edit(base, [], lambda p: replace_field(p, MODEL_IR_VERSION,
                                               tag(MODEL_IR_VERSION, 0) + padded_varint(7, 11))))
    add("varint_past_64_bits", "ERR_MALFORMED",
        edit(base, [], lambda p: replace_field(p, MODEL_IR_VERSION,
                                               tag(MODEL_IR_VERSION, 0) + b"\xff" * 9 + b"\x7f")))
    add("varint_unterminated_at_end", "ERR_MALFORMED", base + tag(99, 0) + b"\x80\x80")
    add("length_varint_11_bytes", "ERR_MALFORMED", graph_last(padded_varint(g1 - g0, 11)))
    add("length_past_end", "ERR_MALFORMED", graph_last(varint(g1 - g0 + 50)))
    add("length_2_pow_64_minus_1", "ERR_MALFORMED", graph_last(varint((1 << 64) - 1)))
    add("length_2_pow_63", "ERR_MALFORMED", graph_last(varint(1 << 63)))
    add("length_past_parent_raw_data", "ERR_MALFORMED",
        edit(base, [(MODEL_GRAPH, 0), INIT_W],
             lambda p: replace_field(p, TENSOR_RAW_DATA,
                                     tag(TENSOR_RAW_DATA, 2) + varint(raw_w[1] - raw_w[0] + 20)
                                     + base[raw_w[0]:raw_w[1]], last=True)))
    add("length_past_parent_op_type", "ERR_MALFORMED",
        edit(base, [(MODEL_GRAPH, 0), (GRAPH_NODE, 0)],
             lambda p: replace_field(p, NODE_OP_TYPE, tag(NODE_OP_TYPE, 2) + varint(9) + b"Conv",
                                     last=True)))

    # -- wire types
    add("wire_graph_as_varint", "ERR_MALFORMED",
        edit(base, [], lambda p: replace_field(p, MODEL_GRAPH, tag(MODEL_GRAPH, 0) + varint(5))))
    add("wire_ir_version_as_bytes", "ERR_MALFORMED",
        edit(base, [], lambda p: replace_field(p, MODEL_IR_VERSION, ld(MODEL_IR_VERSION, b"\x07"))))
    add("wire_data_type_as_fixed32", "ERR_MALFORMED",
        edit(base, [(MODEL_GRAPH, 0), INIT_W],
             lambda p: replace_field(p, TENSOR_DATA_TYPE,
                                     tag(TENSOR_DATA_TYPE, 5) + struct.pack("<I", 1))))
    add("wire_type_6", "ERR_MALFORMED", tag(3, 6) + base)
    add("wire_type_7_in_node", "ERR_MALFORMED",
        edit(base, [(MODEL_GRAPH, 0), (GRAPH_NODE, 0)], lambda p: tag(9, 7) + p))
    add("field_number_zero", "ERR_MALFORMED",
        edit(base, [(MODEL_GRAPH, 0)], lambda p: b"\x02\x00" + p))
    add("packed_float_data_7_bytes", "ERR_MALFORMED",
        edit(base, [(MODEL_GRAPH, 0), INIT_B],
             lambda p: replace_field(p, TENSOR_FLOAT_DATA, ld(TENSOR_FLOAT_DATA, b"\0" * 7))))
    add("packed_dims_unterminated_varint", "ERR_MALFORMED",
        edit(base, [(MODEL_GRAPH, 0), INIT_W],
             lambda p: replace_field(p, TENSOR_DIMS, ld(TENSOR_DIMS, b"\x03\x02\x03\x83"))))

    # -- tensor dims, sizes and dtypes
    add("dims_product_past_size_max", "ERR_LIMIT",
        ser(conv_model(w=raw_tensor("W", [1 << 32, 1 << 32, 8]))))
    # 4 * (2^62 + 1) * 4 bytes is 16 modulo 2^64: an unchecked product matches the 16 bytes.
    add("dims_product_wraps_to_raw_size", "ERR_LIMIT",
        ser(conv_model(w=raw_tensor("W", [(1 << 62) + 1, 4], raw=b"\0" * 16))))
    add("dims_past_1_gib", "ERR_LIMIT", ser(conv_model(w=raw_tensor("W", [1 << 28, 2]))))
    add("input_dims_past_1_gib", "ERR_LIMIT", ser(relu_model([1, 2, 32768, 32768])))
    add("rank_past_max", "ERR_LIMIT",
        ser(conv_model(w=raw_tensor("W", [1] * 9, raw=b"\0" * 4))))
    add("negative_dim_initializer", "ERR_SHAPE",
        ser(conv_model(w=raw_tensor("W", [-3, 2, 3, 3], raw=b"\0" * 216))))
    add("negative_dim_input", "ERR_SHAPE", ser(conv_model(x_dims=(1, 2, -4, 4))))
    add("raw_data_short", "ERR_INVALID_MODEL",
        ser(conv_model(w=raw_tensor("W", [3, 2, 3, 3], raw=b"\0" * 212))))
    add("raw_data_long", "ERR_INVALID_MODEL",
        ser(conv_model(w=raw_tensor("W", [3, 2, 3, 3], raw=b"\0" * 220))))
    add("float_data_count_mismatch", "ERR_INVALID_MODEL",
        ser(conv_model(b=float_data_tensor("B", [3], [0.1, 0.2]))))
    add("data_type_unknown_99", "ERR_UNSUPPORTED",
        ser(conv_model(w=raw_tensor("W", [3, 2, 3, 3], dtype=99, raw=b"\0" * 216))))
    add("data_type_undefined_0", "ERR_UNSUPPORTED",
        ser(conv_model(w=raw_tensor("W", [3, 2, 3, 3], dtype=0, raw=b"\0" * 216))))
    add("string_initializer", "ERR_UNSUPPORTED",
        ser(conv_model(b=helper.make_tensor("B", TensorProto.STRING, [3], [b"a", b"b", b"c"]))))
    add("complex64_initializer", "ERR_UNSUPPORTED",
        ser(conv_model(b=raw_tensor("B", [3], dtype=TensorProto.COMPLEX64, raw=b"\0" * 24))))
    ext = raw_tensor("W", [3, 2, 3, 3])
    ext.ClearField("raw_data")
    ext.data_location = TensorProto.EXTERNAL
    ext.external_data.add(key="location", value="W.bin")
    add("external_data", "ERR_UNSUPPORTED", ser(conv_model(w=ext)))
    sparse = conv_model(wg=False)
    sparse.graph.sparse_initializer.append(helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "Wg"),
        numpy_helper.from_array(np.array([0, 13], np.int64), "Wg_indices"), [4, 12]))
    add("sparse_initializer", "ERR_UNSUPPORTED", ser(sparse))

    # -- graph structure
    def conv_nodes(relu_in="c", relu_out="r", flat_in="r", conv_out="c"):
        conv = helper.make_node("Conv", ["X", "W", "B"], [conv_out], name="conv",
                                kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        return [conv,
                helper.make_node("Relu", [relu_in], [relu_out], name="relu"),
                helper.make_node("Flatten", [flat_in], ["f"], name="flatten", axis=1),
                helper.make_node("Gemm", ["f", "Wg", "Bg"], ["Y"], name="gemm", transB=1)]

    x_info = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 4, 4])
    add("node_input_never_produced", "ERR_INVALID_MODEL",
        ser(conv_model(nodes=conv_nodes(relu_in="ghost"))))
    add("cycle_relu_flatten", "ERR_INVALID_MODEL",
        ser(conv_model(nodes=conv_nodes(relu_in="f"))))
    add("cycle_self_loop", "ERR_INVALID_MODEL",
        ser(conv_model(nodes=conv_nodes(relu_in="r"))))
    add("duplicate_node_output", "ERR_INVALID_MODEL",
        ser(conv_model(nodes=conv_nodes(relu_out="c", flat_in="c"))))
    add("node_output_shadows_input", "ERR_INVALID_MODEL",
        ser(conv_model(nodes=conv_nodes(conv_out="X", relu_in="X"))))
    add("node_output_shadows_initializer", "ERR_INVALID_MODEL",
        ser(conv_model(nodes=conv_nodes(relu_out="Bg", flat_in="Bg"))))
    add("duplicate_initializer", "ERR_INVALID_MODEL",
        ser(conv_model(extra_inits=[helper.make_tensor("B", TensorProto.FLOAT, [3], [1, 2, 3])])))
    add("duplicate_graph_input", "ERR_INVALID_MODEL", ser(conv_model(inputs=[x_info, x_info])))
    add("graph_output_never_produced", "ERR_INVALID_MODEL",
        ser(conv_model(outputs=[helper.make_tensor_value_info("nowhere", TensorProto.FLOAT,
                                                              [1, 4])])))

    # -- operators, attributes and kernel checks
    nk = conv_nodes()
    nk[1].op_type = "NoSuchOp"
    add("no_kernel_op", "ERR_NO_KERNEL", ser(conv_model(nodes=nk)))
    nd = conv_nodes()
    nd[1].domain = "com.example"
    add("no_kernel_domain", "ERR_NO_KERNEL",
        ser(conv_model(nodes=nd, opsets=(("", 13), ("com.example", 1)))))
    add("attr_strides_as_float", "ERR_INVALID_MODEL",
        ser(conv_model(conv_attrs=[helper.make_attribute("kernel_shape", [3, 3]),
                                   helper.make_attribute("strides", 2.0),
                                   helper.make_attribute("pads", [1, 1, 1, 1])])))
    ns = conv_nodes()
    del ns[3].attribute[:]
    ns[3].attribute.append(helper.make_attribute("transB", "1"))
    add("attr_transB_as_string", "ERR_INVALID_MODEL", ser(conv_model(nodes=ns)))
    # The type says TENSOR but the tensor itself is missing, as a flipped tag leaves it.
    empty_value = onnx.AttributeProto(name="value", type=onnx.AttributeProto.TENSOR)
    const = helper.make_node("Constant", [], ["Y"], name="const")
    const.attribute.append(empty_value)
    add("attr_tensor_type_without_tensor", "ERR_INVALID_MODEL", ser(helper.make_model(
        helper.make_graph([const], "constant", [],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])]),
        producer_name="gen_bad_models", opset_imports=[helper.make_opsetid("", 13)],
        ir_version=7)))
    many = conv_nodes()
    many[1].attribute.extend(helper.make_attribute("a%d" % i, i) for i in range(65))
    add("attributes_past_max", "ERR_LIMIT", ser(conv_model(nodes=many)))
    add("conv_weight_channels_mismatch", "ERR_SHAPE",
        ser(conv_model(w=numpy_helper.from_array(floats((3, 5, 3, 3)), "W"))))
    add("conv_weight_rank_2", "ERR_SHAPE",
        ser(conv_model(w=numpy_helper.from_array(floats((3, 18)), "W"))))
    add("gemm_inner_dim_mismatch", "ERR_SHAPE",
        ser(conv_model(wg=numpy_helper.from_array(floats((4, 13)), "Wg"))))
    add("conv_input_int32", "ERR_DTYPE", ser(conv_model(x_type=TensorProto.INT32)))
    add("reshape_impossible", "ERR_SHAPE", ser(reshape_model(tail=np.array([5], np.int64))))
    add("reshape_two_minus_one", "ERR_SHAPE",
        ser(reshape_model(tail=np.array([-1, -1], np.int64))))
    add("concat_rank_mismatch", "ERR_SHAPE", ser(reshape_model(tail=np.array([[-1]], np.int64))))
    add("gather_index_out_of_range", "ERR_INDEX", ser(reshape_model(index=(7,))))
    add("gather_float_indices", "ERR_DTYPE", ser(reshape_model(index_dtype=np.float32)))

    # -- more structural truncations: inside the opset_import, an attribute, the graph input
    ops0 = locate(base, [(8, 0)])
    add("trunc_in_opset_import", "ERR_MALFORMED", base[:ops0[0] + 1])
    attr0 = locate(base, [(MODEL_GRAPH, 0), (GRAPH_NODE, 0), (5, 0)])
    add("trunc_in_attribute", "ERR_MALFORMED", base[:attr0[0] + 4])
    in0 = locate(base, [(MODEL_GRAPH, 0), (11, 0)])
    add("trunc_in_graph_input_shape", "ERR_MALFORMED", base[:in0[1] - 2])

    # -- nesting: subgraph attributes stay undecoded bytes, so depth costs nothing; the If is
    # refused only for want of a kernel.
    nested = helper.make_node("If", ["cond"], ["y"], name="if")
    nested_model = op_model([nested], [("cond", TensorProto.BOOL, [])],
                            [("y", TensorProto.FLOAT, [1])])
    add("nested_graph_depth_1000", "ERR_NO_KERNEL",
        edit(ser(nested_model), [(MODEL_GRAPH, 0), (GRAPH_NODE, 0)],
             lambda p: p + ld(5, ld(1, b"then_branch") + tag(20, 0) + varint(5)
                              + ld(6, nested_if_graph(1000)))))

    # -- operator arity and attribute types
    two_in = conv_nodes()
    two_in[1].input.append("c")
    add("relu_two_inputs", "ERR_INVALID_MODEL", ser(conv_model(nodes=two_in)))
    one_in = conv_nodes()
    del one_in[3].input[1:]
    add("gemm_one_input", "ERR_INVALID_MODEL", ser(conv_model(nodes=one_in)))
    add("flatten_axis_as_ints", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("Flatten", ["X"], ["Y"], axis=[1]), [1, 16])))
    add("flatten_axis_out_of_range", "ERR_SHAPE",
        ser(x_model(helper.make_node("Flatten", ["X"], ["Y"], axis=7), [1, 16])))
    add("conv_stride_zero", "ERR_INVALID_MODEL",
        ser(conv_model(conv_attrs=[helper.make_attribute("kernel_shape", [3, 3]),
                                   helper.make_attribute("strides", [0, 0]),
                                   helper.make_attribute("pads", [1, 1, 1, 1])])))
    add("conv_group_mismatch", "ERR_SHAPE",
        ser(conv_model(conv_attrs=[helper.make_attribute("group", 3)])))
    add("conv_kernel_shape_mismatch", "ERR_SHAPE",
        ser(conv_model(conv_attrs=[helper.make_attribute("kernel_shape", [5, 5])])))
    add("transpose_perm_repeats_axis", "ERR_SHAPE",
        ser(x_model(helper.make_node("Transpose", ["X"], ["Y"], perm=[0, 0, 1, 2]), [1, 1, 4, 2])))
    add("opset_imports_past_max", "ERR_LIMIT",
        ser(conv_model(opsets=[("", 13)] + [("d%d" % i, 1) for i in range(1024)])))

    # -- indices out of range when the node runs (the data is a graph input, so nothing folds)
    add("gather_runtime_index_out_of_range", "ERR_INDEX",
        ser(x_model(helper.make_node("Gather", ["X", "i"], ["Y"], axis=1), [1, 1, 2, 2],
                    [numpy_helper.from_array(np.array([9], np.int64), "i")])))
    add("gather_elements_index_out_of_range", "ERR_INDEX",
        ser(x_model(helper.make_node("GatherElements", ["X", "i"], ["Y"], axis=2), [1, 4, 2, 2],
                    [numpy_helper.from_array(np.full((1, 4, 2, 2), 5, np.int64), "i")])))
    add("scatter_nd_index_out_of_range", "ERR_INDEX",
        ser(x_model(helper.make_node("ScatterND", ["X", "i", "u"], ["Y"]), [1, 4, 2, 2],
                    [numpy_helper.from_array(np.array([[0, 9]], np.int64), "i"),
                     numpy_helper.from_array(np.zeros((1, 2, 2), np.float32), "u")])))
    add("gather_topk_index_out_of_range", "ERR_INDEX",
        ser(x_model(helper.make_node("GatherTopk", ["X", "i"], ["Y"], domain="mmdeploy"),
                    [1, 2, 2, 2], [numpy_helper.from_array(np.array([[0, 9]], np.int64), "i")],
                    opsets=(("", 13), ("mmdeploy", 1)))))
    # Found by fuzz_parse: an input named "" is absent, and a kernel that reads a variadic input
    # past its required ones must refuse it rather than follow the NULL.
    add("roi_align_feature_map_absent", "ERR_INVALID_MODEL",
        ser(op_model([helper.make_node("MMCVMultiLevelRoiAlign", ["rois", "X", ""], ["Y"],
                                       domain="mmdeploy", output_height=2, output_width=2,
                                       featmap_strides=[4.0, 8.0])],
                     [("rois", TensorProto.FLOAT, [2, 5]), ("X", TensorProto.FLOAT, [1, 4, 8, 8])],
                     [("Y", TensorProto.FLOAT, [2, 4, 2, 2])], opsets=(("", 13), ("mmdeploy", 1)))))
    # Found by fuzz_run: a tiny scale gives an empty output, whose kernel asked for no scratch;
    # the runtime must still hand it a valid pointer (NULL plus zero is undefined behaviour).
    add("bicubic_scale_to_empty_output", "OK",
        ser(x_model(helper.make_node("TRTBicubicInterpolate", ["X"], ["Y"], domain="mmdeploy",
                                     scale_factor=[1e-20, 1e-20]), [1, 4, 0, 0],
                    opsets=(("", 13), ("mmdeploy", 1)))))
    # Found in the float-to-integer audit (issue 16): an infinite scale on an empty axis gives
    # a NaN size, which passed the size test and was cast to an integer.
    add("bicubic_scale_inf_on_empty_axis", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("TRTBicubicInterpolate", ["X"], ["Y"], domain="mmdeploy",
                                     scale_factor=[float("inf"), 1.0]), [1, 4, 0, 2],
                    x_dims=(1, 4, 0, 2), opsets=(("", 13), ("mmdeploy", 1)))))
    # Found by fuzz_quant: with no channels any group divides them, and the kernels looped over
    # 2^30 empty groups; an empty output is now done at once (Conv, ConvTranspose, QLinearConv).
    empty_w = numpy_helper.from_array(np.zeros((0, 0, 3, 3), np.float32), "W")
    for op in ("Conv", "ConvTranspose"):
        add(f"{op.lower()}_huge_group_on_empty_channels", "OK",
            ser(x_model(helper.make_node(op, ["X", "W"], ["Y"], group=1 << 30, pads=[1, 1, 1, 1]),
                        [1, 0, 4, 4], [empty_w], x_dims=(1, 0, 4, 4))))
    # Found by fuzz_run (a 74 s input): a ConvTranspose of a long kernel wanted its columns,
    # 8 GB of scratch here, planned and zeroed; every kernel's scratch is now held to
    # MMD_MAX_TENSOR_BYTES like a tensor.
    add("convtranspose_scratch_past_1_gib", "ERR_LIMIT",
        ser(op_model([helper.make_node("ConvTranspose", ["X", "W"], ["Y"])],
                     [("X", TensorProto.FLOAT, [1, 1, 20000]), ("W", TensorProto.FLOAT, [1, 1, 100000])],
                     [("Y", TensorProto.FLOAT, [1, 1, 119999])])))
    add("gather_from_empty_axis", "ERR_INDEX",
        ser(x_model(helper.make_node("Gather", ["X", "i"], ["Y"], axis=1), [1, 1, 2, 2],
                    [numpy_helper.from_array(np.array([0], np.int64), "i")], x_dims=(1, 0, 2, 2))))

    # -- sizes computed from attributes and constant inputs
    def resize(sizes=None, scales=None):
        empty = numpy_helper.from_array(np.zeros(0, np.float32), "roi")
        inits = [empty]
        if sizes is not None:
            inits += [numpy_helper.from_array(np.zeros(0, np.float32), "scales"),
                      numpy_helper.from_array(np.array(sizes, np.int64), "sizes")]
            names = ["X", "roi", "scales", "sizes"]
        else:
            inits.append(numpy_helper.from_array(np.array(scales, np.float32), "scales"))
            names = ["X", "roi", "scales"]
        return x_model(helper.make_node("Resize", names, ["Y"], mode="nearest"), [1, 4, 2, 2],
                       inits)
    # ONNX allows empty tensors: a zero size gives an empty output, and an empty input has no
    # pixel to sample for a non-empty one.
    add("resize_to_zero_size", "OK", ser(resize(sizes=[1, 4, 0, 0])))
    add("resize_from_empty_input", "ERR_SHAPE",
        ser(x_model(helper.make_node("Resize", ["X", "roi", "scales", "sizes"], ["Y"]),
                    [1, 4, 2, 2], [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
                                   numpy_helper.from_array(np.zeros(0, np.float32), "scales"),
                                   numpy_helper.from_array(np.array([1, 4, 2, 2], np.int64),
                                                           "sizes")],
                    x_dims=(1, 4, 0, 2))))
    add("resize_to_enormous_size", "ERR_LIMIT", ser(resize(sizes=[1, 4, 1 << 20, 1 << 20])))
    add("resize_scale_enormous", "ERR_LIMIT", ser(resize(scales=[1, 1, 1e9, 1e9])))
    add("resize_scale_nan", "ERR_SHAPE", ser(resize(scales=[1, 1, float("nan"), 2])))
    # Found by fuzz_parse (issue 16): infinity times an empty axis is NaN, which passed the
    # size test and was cast to an integer.
    add("resize_scale_inf_on_empty_axis", "ERR_SHAPE",
        ser(x_model(helper.make_node("Resize", ["X", "roi", "scales"], ["Y"], mode="nearest"),
                    [1, 4, 0, 2], [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
                                   numpy_helper.from_array(np.array([1, 1, np.inf, 1],
                                                                    np.float32), "scales")],
                    x_dims=(1, 4, 0, 2))))
    add("resize_roi_nan", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("Resize", ["X", "roi", "scales"], ["Y"], mode="linear",
                                     coordinate_transformation_mode="tf_crop_and_resize"),
                    [1, 4, 4, 4], [numpy_helper.from_array(np.array([0, 0, 0, 0, 1, 1, np.nan, 1],
                                                                    np.float32), "roi"),
                                   numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32),
                                                           "scales")])))
    # Issue 16, resource bounds: every tensor of this LSTM fits (X 1 MiB, R 16 MiB, Y_h 4 KiB),
    # but projecting all 2^18 steps at once would take 4 GiB of scratch (sequence x batch x
    # 4 gates x hidden floats), past MMD_MAX_TENSOR_BYTES.
    add("lstm_scratch_past_limit", "ERR_LIMIT",
        ser(op_model([helper.make_node("LSTM", ["X", "W", "R"], ["", "Y_h"], hidden_size=1024)],
                     [("X", TensorProto.FLOAT, [1 << 18, 1, 1]),
                      ("W", TensorProto.FLOAT, [1, 4096, 1]),
                      ("R", TensorProto.FLOAT, [1, 4096, 1024])],
                     [("Y_h", TensorProto.FLOAT, [1, 1, 1024])])))
    add("topk_k_past_axis", "ERR_INVALID_MODEL",
        ser(op_model([helper.make_node("TopK", ["X", "k"], ["V", "I"], axis=1)],
                     [("X", TensorProto.FLOAT, [1, 4])],
                     [("V", TensorProto.FLOAT, [1, 9]), ("I", TensorProto.INT64, [1, 9])],
                     [numpy_helper.from_array(np.array([9], np.int64), "k")])))
    def i64(name, values):
        return numpy_helper.from_array(np.array(values, np.int64), name)

    add("range_delta_zero", "ERR_INVALID_MODEL",
        ser(op_model([helper.make_node("Range", ["a", "b", "d"], ["Y"])], [],
                     [("Y", TensorProto.INT64, [4])], [i64("a", 0), i64("b", 4), i64("d", 0)])))
    add("constant_of_shape_enormous", "ERR_LIMIT",
        ser(op_model([helper.make_node("ConstantOfShape", ["s"], ["Y"])], [],
                     [("Y", TensorProto.FLOAT, [1])], [i64("s", [1 << 20, 1 << 20])])))
    add("expand_enormous", "ERR_LIMIT",
        ser(x_model(helper.make_node("Expand", ["X", "s"], ["Y"]), [1],
                    [i64("s", [1 << 16, 1 << 16, 4, 2, 2])])))
    add("tile_enormous", "ERR_LIMIT",
        ser(x_model(helper.make_node("Tile", ["X", "r"], ["Y"]), [1],
                    [i64("r", [1 << 20, 1, 1 << 20, 1])])))
    add("pad_negative_past_size", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("Pad", ["X", "p"], ["Y"]), [1],
                    [i64("p", [0, 0, -5, 0, 0, 0, 0, 0])])))
    add("slice_step_zero", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("Slice", ["X", "b", "e", "a", "st"], ["Y"]), [1],
                    [i64("b", [0]), i64("e", [2]), i64("a", [2]), i64("st", [0])])))
    add("split_sizes_mismatch", "ERR_SHAPE",
        ser(op_model([helper.make_node("Split", ["X", "sp"], ["Y", "Z"], axis=1)],
                     [("X", TensorProto.FLOAT, [1, 4, 2, 2])],
                     [("Y", TensorProto.FLOAT, [1]), ("Z", TensorProto.FLOAT, [1])],
                     [i64("sp", [1, 5])])))
    add("averagepool_kernel_zero", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("AveragePool", ["X"], ["Y"], kernel_shape=[0, 0]), [1])))
    add("maxpool_kernel_past_input", "ERR_SHAPE",
        ser(x_model(helper.make_node("MaxPool", ["X"], ["Y"], kernel_shape=[5, 5]), [1])))
    add("conv_dilation_zero", "ERR_INVALID_MODEL",
        ser(conv_model(conv_attrs=[helper.make_attribute("dilations", [0, 0])])))
    add("cast_to_unknown_dtype", "ERR_DTYPE",
        ser(x_model(helper.make_node("Cast", ["X"], ["Y"], to=99), [1])))
    add("einsum_malformed_equation", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("Einsum", ["X"], ["Y"], equation="ab,->)("), [1])))
    add("onehot_depth_enormous", "ERR_LIMIT",
        ser(op_model([helper.make_node("OneHot", ["i", "d", "v"], ["Y"])], [],
                     [("Y", TensorProto.FLOAT, [1])],
                     [i64("i", [0, 1]), i64("d", [1 << 40]),
                      numpy_helper.from_array(np.array([0, 1], np.float32), "v")])))
    add("reduce_axis_out_of_range", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("ReduceMean", ["X"], ["Y"], axes=[9]), [1])))
    add("softmax_axis_out_of_range", "ERR_INVALID_MODEL",
        ser(x_model(helper.make_node("Softmax", ["X"], ["Y"], axis=-9), [1])))
    # NaN scores must neither crash nor loop: every comparison with NaN is false.
    add("nms_nan_scores", "OK",
        ser(op_model([helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou"],
                                       ["sel"])],
                     [("boxes", TensorProto.FLOAT, [1, 3, 4])],
                     [("sel", TensorProto.INT64, [3, 3])],
                     [numpy_helper.from_array(np.array([[[np.nan, 0.5, np.nan]]], np.float32),
                                              "scores"),
                      numpy_helper.from_array(np.array([3], np.int64), "max"),
                      numpy_helper.from_array(np.array([0.5], np.float32), "iou")])))
    # This runtime's own fused op (mmd PointwiseDepthwise, which its rewrites write) read from a
    # model: prepare checks what the rewrite guaranteed. A valid control, then one broken thing each.
    def pwdw(w1=(4, 4, 1, 1), w2=(4, 1, 3, 3), group=4, inputs=("X", "w1", "b1", "w2"), w3=(3, 4, 1, 1),
             b3=(3,), z3=(1, 3, 2, 2), out=(1, 4, 2, 2)):
        node = helper.make_node("PointwiseDepthwise", list(inputs), ["Y"], domain="mmd", group=group,
                                pads=[1, 1, 1, 1], pointwise_activation="Clip",
                                pointwise_activation_params=[0.0, 6.0])
        if "w3" in inputs:
            node.attribute.append(helper.make_attribute("projection_activation", "Relu"))
        inits = [numpy_helper.from_array(floats(w1), "w1"), numpy_helper.from_array(floats(w2), "w2"),
                 numpy_helper.from_array(floats((4,)), "b1"), numpy_helper.from_array(floats((4,)), "b2"),
                 numpy_helper.from_array(floats(out), "z"), numpy_helper.from_array(floats(w3), "w3"),
                 numpy_helper.from_array(floats(b3), "b3"), numpy_helper.from_array(floats(z3), "z3")]
        return ser(x_model(node, list(out), [t for t in inits if t.name in inputs],
                           opsets=(("", 13), ("mmd", 1))))
    add("pointwise_depthwise_valid", "OK", pwdw())
    add("pointwise_depthwise_w1_not_1x1", "ERR_SHAPE", pwdw(w1=(4, 4, 3, 3)))
    add("pointwise_depthwise_group_not_channels", "ERR_SHAPE", pwdw(group=2))
    add("pointwise_depthwise_w2_channels", "ERR_SHAPE", pwdw(w2=(2, 1, 3, 3)))
    add("pointwise_depthwise_without_w2", "ERR_INVALID_MODEL", pwdw(inputs=("X", "w1")))
    # With a projection folded in (inputs 6 to 8: W3, B3, Z3; the output has W3's channels).
    proj = ("X", "w1", "b1", "w2", "b2", "", "w3", "b3", "z3")
    add("pointwise_depthwise_projection_valid", "OK", pwdw(inputs=proj, out=(1, 3, 2, 2)))
    add("pointwise_depthwise_projection_w3_channels", "ERR_SHAPE",
        pwdw(inputs=proj, w3=(3, 5, 1, 1), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_projection_w3_not_1x1", "ERR_SHAPE",
        pwdw(inputs=proj, w3=(3, 4, 3, 3), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_projection_w3_rank", "ERR_SHAPE", pwdw(inputs=proj, w3=(3, 4), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_projection_b3_shape", "ERR_SHAPE", pwdw(inputs=proj, b3=(4,), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_projection_z3_shape", "ERR_SHAPE",
        pwdw(inputs=proj, z3=(1, 3, 2, 3), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_projection_and_z", "ERR_INVALID_MODEL",
        pwdw(inputs=("X", "w1", "b1", "w2", "b2", "z", "w3"), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_projection_bias_without_w3", "ERR_INVALID_MODEL",
        pwdw(inputs=("X", "w1", "b1", "w2", "b2", "", "", "b3"), out=(1, 3, 2, 2)))
    # Without the 1x1 (W1, B1), which only a projection allows (a depthwise block alone).
    add("pointwise_depthwise_projection_without_w1", "OK",
        pwdw(inputs=("X", "", "", "w2", "b2", "", "w3", "b3", "z3"), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_b1_without_w1", "ERR_INVALID_MODEL",
        pwdw(inputs=("X", "", "b1", "w2", "b2", "", "w3"), out=(1, 3, 2, 2)))
    add("pointwise_depthwise_without_w1", "ERR_INVALID_MODEL", pwdw(inputs=("X", "", "", "w2", "b2")))
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "bad_models")
    os.makedirs(out, exist_ok=True)
    all_cases = cases()
    names = [n for n, _, _ in all_cases]
    assert len(names) == len(set(names)), "duplicate case name"
    for name in os.listdir(out):
        if name.endswith(".onnx") and name[:-5] not in names:
            os.remove(os.path.join(out, name))
    for name, status, data in all_cases:
        if status == "OK":
            onnx.checker.check_model(onnx.load_from_string(data))
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "expected.txt"), "w") as f:
        f.write("# case status (mmd_status without MMD_); written by tests/gen_bad_models.py\n")
        for name, status, _ in sorted(all_cases):
            f.write("%s %s\n" % (name, status))
    print("%d cases, %d bytes in %s" % (len(all_cases), sum(len(d) for _, _, d in all_cases), out))


if __name__ == "__main__":
    main()
