#!/usr/bin/python3
"""Writes single-node LSTM, GRU and RNN models with the attributes torch never exports (every
activation the spec lists with activation_alpha/beta, clip, input_forget, peepholes, reverse
and bidirectional directions, sequence_lens with short and empty sequences, initial states,
linear_before_reset 0, opset 7), with ONNX Runtime's outputs as the reference, into OUT_DIR
(default tests/data/rnn_ort): NAME.onnx, NAME_x.npy (the graph input `input`) and NAME_OUT.npy
for each of its outputs Y, Y_h, Y_c. Weights, sequence_lens and initial states are
initializers drawn from a fixed seed. It also runs the torch-exported models of
tests/gen_rnn_cases.py (the CRNN-style recognizer, the 2-layer GRU, ...) through ONNX Runtime and
writes their outputs as torch_NAME_output.npy, so that tests/test_rnn_models.py holds those
models to ONNX Runtime as well as to torch (the models themselves are exported again at test
time from the same seeds, and are not committed).

The fixtures are committed (a few KB each); regenerating needs node and onnxruntime-node in
build/node_modules (cd build && npm install --ignore-scripts onnxruntime-node).

Usage: /usr/bin/python3 tests/gen_rnn_ort_cases.py [OUT_DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (op, opset, seq, batch, input, hidden, attributes, optional inputs wanted, outputs)
CASES = {
    "lstm_acts_bidir": ("LSTM", 14, 4, 3, 3, 5,
                        dict(direction="bidirectional", clip=2.5,
                             activations=["HardSigmoid", "ScaledTanh", "Affine", "Sigmoid", "Elu", "Softsign"],
                             activation_alpha=[0.3, 1.5, 0.7, 0.9], activation_beta=[0.4, 0.8, 0.1]),
                        ["B", "sequence_lens", "initial_h", "initial_c", "P"], ["Y", "Y_h", "Y_c"]),
    "lstm_reverse_forget": ("LSTM", 14, 5, 3, 4, 6, dict(direction="reverse", input_forget=1),
                            ["B", "sequence_lens", "initial_h", "initial_c", "P"], ["Y", "Y_h", "Y_c"]),
    "lstm_opset7": ("LSTM", 7, 3, 2, 3, 4, dict(direction="bidirectional"), ["B"], ["Y", "Y_h", "Y_c"]),
    "gru_lbr0_bidir": ("GRU", 14, 4, 3, 3, 5,
                       dict(direction="bidirectional", clip=1.5,
                            activations=["Sigmoid", "Softplus", "HardSigmoid", "LeakyRelu"],
                            activation_alpha=[0.25, 0.05], activation_beta=[0.45]),
                       ["B", "sequence_lens", "initial_h"], ["Y", "Y_h"]),
    "gru_lbr1_reverse": ("GRU", 14, 5, 2, 4, 6, dict(direction="reverse", linear_before_reset=1),
                         ["B", "sequence_lens", "initial_h"], ["Y", "Y_h"]),
    "rnn_acts_bidir": ("RNN", 14, 4, 3, 3, 5,
                       dict(direction="bidirectional", activations=["ThresholdedRelu", "Relu"],
                            activation_alpha=[0.1]),
                       ["B", "sequence_lens", "initial_h"], ["Y", "Y_h"]),
}

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
# Per batch entry: a full, a short and (when batch > 2) an empty sequence.
LENS = [None, 1, 0]


def build(name, op, opset, seq, batch, inp, hidden, attrs, wanted, outputs, rng):
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    g = GATES[op]
    inits = {
        "W": rng.uniform(-1, 1, (dirs, g * hidden, inp)),
        "R": rng.uniform(-1, 1, (dirs, g * hidden, hidden)),
        "B": rng.uniform(-1, 1, (dirs, 2 * g * hidden)),
        "sequence_lens": np.array([seq if LENS[b % 3] is None else LENS[b % 3] for b in range(batch)], np.int32),
        "initial_h": rng.uniform(-1, 1, (dirs, batch, hidden)),
        "initial_c": rng.uniform(-1, 1, (dirs, batch, hidden)),
        "P": rng.uniform(-1, 1, (dirs, 3 * hidden)),
    }
    order = ["W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
    names = ["input"] + [n if n in wanted or n in ("W", "R") else "" for n in order]
    while names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, outputs, hidden_size=hidden, **attrs)
    tensors = [numpy_helper.from_array(v if v.dtype == np.int32 else v.astype(np.float32), k)
               for k, v in inits.items() if k in names]
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, [seq, batch, inp])],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, []) for o in outputs], tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model, rng.uniform(-2, 2, (seq, batch, inp)).astype(np.float32)


def ort_outputs(path, x):
    """ONNX Runtime's outputs of the model at `path` on input `x`: {name: float32 array}."""
    feeds = json.dumps({"input": {"dims": list(x.shape), "data": x.ravel().tolist()}})
    run = subprocess.run(["node", os.path.join(ROOT, "tests", "ort_run.js"), path], input=feeds,
                         capture_output=True, text=True, check=True)
    return {out: np.array(t["data"], np.float32).reshape(t["dims"]) for out, t in json.loads(run.stdout).items()}


def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(ROOT, "tests", "data", "rnn_ort")
    os.makedirs(outdir, exist_ok=True)
    for i, (name, spec) in enumerate(CASES.items()):
        model, x = build(name, *spec, np.random.default_rng(10 + i))
        path = os.path.join(outdir, name + ".onnx")
        onnx.save(model, path)
        np.save(os.path.join(outdir, name + "_x.npy"), x)
        for out, y in ort_outputs(path, x).items():
            np.save(os.path.join(outdir, "%s_%s.npy" % (name, out)), y)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_rnn_cases.py"), tmp], check=True)
        for f in sorted(os.listdir(tmp)):
            if f.endswith(".onnx"):
                name = f[:-5]
                x = np.load(os.path.join(tmp, name + "_x.npy"))
                y = ort_outputs(os.path.join(tmp, f), x)["output"]
                np.save(os.path.join(outdir, "torch_%s_output.npy" % name), y)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
