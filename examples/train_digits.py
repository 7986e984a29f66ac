#!/usr/bin/python3
"""Trains the small digit classifier that ships as examples/models/digits.onnx.

Data: sklearn's load_digits (1797 images, 8x8, ink 0..16, 10 classes), split 80/20 by a fixed
permutation. Model input is float32 (N,1,8,8) = ink/16 with N symbolic; the one output "logits"
is (N,10) raw scores: callers apply softmax themselves, so the graph stays free of an op that
only rescales. Run from the repository root with Debian's python:

    /usr/bin/python3 examples/train_digits.py

It writes, besides the model, the first held-out image of six labels to
examples/images/digit_<label>_0.png (the 0 leaves room for more of one label; light strokes on a
dark background, 32x32, each pixel round(ink*255/16) drawn 4x4) and the held-out split to
tests/data/digits_test_{x,y}.npy with torch's predictions in tests/data/digits_torch_pred.npy,
which tests/test_models.py compares with.
"""
import os

import numpy as np
import torch
import torch.nn as nn
from PIL import Image
from sklearn.datasets import load_digits

SEED = 0
EPOCHS = 30
BATCH = 64
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class DigitNet(nn.Module):
    """Two 3x3 conv blocks at 8x8, a 2x2 max pool, one more conv at 4x4, global average pool
    and a linear head: about 14k parameters, every op in the runtime's core set."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.features(x))


def split():
    """(digits, x, y, train_idx, test_idx): sklearn's digits, the model inputs and labels of all
    1797 images and the fixed 80/20 split (examples/quantize_digits.py calibrates on the same
    training images)."""
    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    y = digits.target.astype(np.int64)
    perm = np.random.RandomState(SEED).permutation(len(y))
    n_train = int(len(y) * 0.8)
    return digits, x, y, perm[:n_train], perm[n_train:]


def main():
    torch.manual_seed(SEED)
    # One thread keeps float summation order, and so the trained weights, the same on every run.
    torch.set_num_threads(1)

    digits, x, y, train_idx, test_idx = split()
    n_train = len(train_idx)
    x_train, y_train = torch.from_numpy(x[train_idx]), torch.from_numpy(y[train_idx])
    x_test, y_test = x[test_idx], y[test_idx]

    model = DigitNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(n_train)
        total = 0.0
        for i in range(0, n_train, BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if (epoch + 1) % 10 == 0:
            print(f"epoch {epoch + 1}: train loss {total / n_train:.4f}")

    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(x_test)).argmax(1).numpy().astype(np.int64)
    acc = float((pred == y_test).mean())
    print(f"torch held-out accuracy: {acc:.4f} ({int((pred == y_test).sum())}/{len(y_test)})")

    model_path = os.path.join(ROOT, "examples", "models", "digits.onnx")
    os.makedirs(os.path.dirname(model_path), exist_ok=True)
    torch.onnx.export(model, torch.from_numpy(x_test[:1]), model_path, opset_version=13,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}},
                      training=torch.onnx.TrainingMode.EVAL, do_constant_folding=True)
    print(f"wrote {model_path} ({os.path.getsize(model_path)} bytes)")

    data_dir = os.path.join(ROOT, "tests", "data")
    os.makedirs(data_dir, exist_ok=True)
    np.save(os.path.join(data_dir, "digits_test_x.npy"), x_test)
    np.save(os.path.join(data_dir, "digits_test_y.npy"), y_test)
    np.save(os.path.join(data_dir, "digits_torch_pred.npy"), pred)

    # The first held-out image of each of the first six labels met, in split order.
    image_dir = os.path.join(ROOT, "examples", "images")
    os.makedirs(image_dir, exist_ok=True)
    seen = {}
    for img, label in zip(digits.images[test_idx], y_test):
        if len(seen) == 6:
            break
        if label in seen:
            continue
        seen[label] = 0
        pixels = np.round(img * 255.0 / 16.0).astype(np.uint8)
        big = np.kron(pixels, np.ones((4, 4), dtype=np.uint8))
        Image.fromarray(big, mode="L").save(os.path.join(image_dir, f"digit_{label}_0.png"))
    print(f"wrote {len(seen)} images to {image_dir}")


if __name__ == "__main__":
    main()
