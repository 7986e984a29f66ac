#!/usr/bin/python3
"""Exports recurrent models made with torch.nn.LSTM, GRU and RNN (random weights, fixed seeds)
at opset 14, with one input each and torch's output, into OUT_DIR (default build/rnn_cases):
NAME.onnx, NAME_x.npy (the input, named `input` in the graph) and NAME_y.npy (torch's output,
named `output`).

  crnn       a CRNN-style text recognizer: two conv + ReLU + pool stages over a 32 x 64 image,
             the feature columns as a sequence (T = 16), a 2-layer bidirectional LSTM, a linear
             layer over 37 classes and log-softmax (the shape of MMOCR's CRNN head)
  gru2       a 2-layer bidirectional GRU, batch_first (torch's GRU is linear_before_reset = 1)
  lstm_rev   a 2-layer unidirectional LSTM over the time-reversed sequence (torch.flip)
  rnn_tanh   a 2-layer bidirectional Elman RNN (tanh)
  rnn_relu   a 1-layer unidirectional Elman RNN (relu)

Usage: /usr/bin/python3 tests/gen_rnn_cases.py [OUT_DIR]
"""
import os
import sys
import warnings

import numpy as np
import torch

OPSET = 14


class CRNN(torch.nn.Module):
    def __init__(self, classes=37, hidden=32):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d((4, 2)))
        self.rnn = torch.nn.LSTM(32 * 4, hidden, num_layers=2, bidirectional=True)
        self.head = torch.nn.Linear(2 * hidden, classes)

    def forward(self, x):
        f = self.features(x)                        # (B, 32, 4, 16)
        b, c, h, w = f.shape
        seq = f.reshape(b, c * h, w).permute(2, 0, 1)  # (T, B, C * H)
        y, _ = self.rnn(seq)
        return torch.log_softmax(self.head(y), dim=2)


class Recurrent(torch.nn.Module):
    """One torch recurrent module; returns its sequence output (flipped back when `flip`)."""

    def __init__(self, rnn, flip=False):
        super().__init__()
        self.rnn, self.flip = rnn, flip

    def forward(self, x):
        if self.flip:
            x = torch.flip(x, [0])
        y, _ = self.rnn(x)
        return y


def cases():
    """(name, module, input shape) with weights drawn from each case's own seed."""
    out = []
    torch.manual_seed(1)
    out.append(("crnn", CRNN(), (2, 1, 32, 64)))
    torch.manual_seed(2)
    out.append(("gru2", Recurrent(torch.nn.GRU(10, 20, num_layers=2, bidirectional=True, batch_first=True)),
                (3, 7, 10)))
    torch.manual_seed(3)
    out.append(("lstm_rev", Recurrent(torch.nn.LSTM(12, 24, num_layers=2), flip=True), (9, 2, 12)))
    torch.manual_seed(4)
    out.append(("rnn_tanh", Recurrent(torch.nn.RNN(8, 16, num_layers=2, bidirectional=True)), (5, 3, 8)))
    torch.manual_seed(5)
    out.append(("rnn_relu", Recurrent(torch.nn.RNN(8, 16, nonlinearity="relu")), (6, 2, 8)))
    return out


def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "rnn_cases")
    os.makedirs(outdir, exist_ok=True)
    for name, model, shape in cases():
        model.eval()
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(100))
        with torch.no_grad():
            y = model(x)
        onnx_path = os.path.join(outdir, name + ".onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's notes on batch sizes in exported RNNs
            torch.onnx.export(model, x, onnx_path, opset_version=OPSET, input_names=["input"],
                              output_names=["output"])
        np.save(os.path.join(outdir, name + "_x.npy"), x.numpy().astype(np.float32))
        np.save(os.path.join(outdir, name + "_y.npy"), y.numpy().astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
