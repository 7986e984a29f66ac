#!/usr/bin/python3
"""Exports torchvision networks with random weights as the runtime's model tests.

    /usr/bin/python3 tests/gen_torchvision.py OUTDIR [NAME...]

For each model (all of MODELS when no NAME is given) writes OUTDIR/<name>_op11.onnx,
OUTDIR/<name>_op13.onnx, OUTDIR/<name>_input.npy (float32 (1,3,96,96)) and
OUTDIR/<name>_torch.npy (torch's output for that input). A model whose four files all exist is
skipped, so a second run costs nothing (delete OUTDIR after changing this file). The weights
are random (fixed seed) rather than pretrained: the test checks that we compute what torch
computes, which needs no download.
"""
import os
import sys
import warnings

import numpy as np
import torch
import torchvision

MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "mnasnet0_5", "densenet121", "fcn_resnet18",
          "efficientnet_b0", "regnet_y_400mf"]
OPSETS = [11, 13]
# 96x96 keeps every network's spatial pyramid non-empty (densenet121 and resnet18 end at 3x3)
# while the twenty runs of the reference kernels stay within a few minutes on two cores.
SIZE = 96
SEED = 0


class FCNResnet18(torch.nn.Module):
    """A segmentation network from torchvision parts, decoded the way MMSegmentation's FCN is:
    resnet18 features at stride 32, torchvision's FCNHead, and bilinear upsampling back to the
    input size (a Resize whose sizes the graph computes from Shape)."""

    def __init__(self):
        super().__init__()
        backbone = torchvision.models.resnet18(weights=None)
        self.features = torchvision.models._utils.IntermediateLayerGetter(backbone, {"layer4": "out"})
        self.head = torchvision.models.segmentation.fcn.FCNHead(512, 21)

    def forward(self, x):
        y = self.head(self.features(x)["out"])
        return torch.nn.functional.interpolate(y, size=x.shape[-2:], mode="bilinear",
                                               align_corners=False)


def build(name):
    if name == "fcn_resnet18":
        return FCNResnet18()
    return getattr(torchvision.models, name)(weights=None)


def paths(outdir, name):
    files = {f"op{op}": os.path.join(outdir, f"{name}_op{op}.onnx") for op in OPSETS}
    files["input"] = os.path.join(outdir, f"{name}_input.npy")
    files["torch"] = os.path.join(outdir, f"{name}_torch.npy")
    return files


def calibrate_batchnorm(model):
    """Sets every BatchNorm's running statistics to those of random inputs.

    With freshly initialised statistics (mean 0, var 1) the activations of mobilenet_v2 and
    mnasnet shrink by a constant factor per block and reach 1e-9 at the output, so most of the
    network would be compared at a scale where nothing it does shows. Measured statistics keep
    every layer near unit scale, as in a trained network, and give the exported BatchNorms
    non-trivial values to fold."""
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # a plain average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 3, SIZE, SIZE))
    model.eval()


def generate(outdir, name):
    files = paths(outdir, name)
    if all(os.path.exists(p) for p in files.values()):
        return False
    # Seeding per model makes each model's weights and input independent of which others ran.
    torch.manual_seed(SEED)
    model = build(name)
    calibrate_batchnorm(model)
    x = torch.randn(1, 3, SIZE, SIZE)
    with torch.no_grad():
        y = model(x)
    for op in OPSETS:
        # The exporter's shape-inference notes about constants are not about our models.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, x, files[f"op{op}"], opset_version=op,
                              input_names=["input"], output_names=["output"],
                              training=torch.onnx.TrainingMode.EVAL, do_constant_folding=True)
    # The .npy files go last: their presence marks the model as complete.
    np.save(files["input"], x.numpy())
    np.save(files["torch"], y.numpy())
    return True


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: gen_torchvision.py OUTDIR [NAME...]")
    outdir = argv[1]
    names = argv[2:] or MODELS
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"unknown model(s): {' '.join(unknown)}; known: {' '.join(MODELS)}")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(2)
    for name in names:
        if generate(outdir, name):
            print(f"exported {name}")


if __name__ == "__main__":
    main(sys.argv)
