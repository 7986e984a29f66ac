#!/usr/bin/python3
"""Writes SDK model directories as MMDeploy's converter writes them (tools/deploy.py --dump-info):
deploy.json, pipeline.json, detail.json and end2end.onnx, one directory per task.

Usage: /usr/bin/python3 tests/gen_sdk_models.py OUT_DIR   (tests use build/sdk_models)

The networks are torch models with seeded random weights (no downloads), exported as MMDeploy
exports them for ONNX Runtime: input "input" [1, 3, H, W] with dynamic H and W, and the outputs
MMDeploy's rewriters give each task:
  cls  torchvision squeezenet1_1 ending in softmax, output "output" [1, 1000]; pipeline as
       mmdeploy/codebase/mmpretrain get_preprocess makes it from an mmpretrain ResNet config
       (ResizeEdge 256 -> Resize [256, -1] keep_ratio, CenterCrop 224, Normalize, ImageToTensor,
       Collect) and LinearClsHead with topk 5
  det  a small fully-convolutional detector ending in MMDeploy's multiclass-NMS tail: "dets"
       [1, K, 5] (x1, y1, x2, y2, score in network-input pixels) and "labels" [1, K]; pipeline
       as mmdet's get_preprocess makes it (Resize keep_ratio, Normalize, Pad size_divisor 32,
       DefaultFormatBundle, Collect) and ResizeBBox with score_thr 0.3
  seg  torchvision lraspp_mobilenet_v3_large with 5 classes and argmax, "output" [1, 1, H, W]
       int64; pipeline as mmseg's get_preprocess makes it and ResizeMask with_argmax
  yolo the same detector with a tail that keeps its 20 best cells, behind mmyolo's pipeline
       (LetterResize) and ResizeBBox
The `reference` function of this module is the independent Python pipeline the tests compare
with: OpenCV and numpy for the transforms, torch for the network.
"""
import json
import os
import sys
import warnings

import numpy as np
import torch
import torchvision

META_KEYS = ["filename", "ori_filename", "ori_shape", "img_shape", "pad_shape", "scale_factor",
             "flip", "flip_direction", "img_norm_cfg", "valid_ratio"]
MEAN = [123.675, 116.28, 103.53]
STD = [58.395, 57.12, 57.375]


class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torchvision.models.squeezenet1_1(num_classes=1000)

    def forward(self, x):
        return torch.softmax(self.net(x), dim=1)


class Detector(torch.nn.Module):
    """Cells of an 8x-strided feature map each propose one box and class scores; the tail keeps
    the 20 best (a fixed number, as some end2end tails leave), or with nms=True ends in MMDeploy's
    multiclass-NMS tail as its end2end.onnx has it (tests/gen_detection_tail.py: TopK 1000,
    NonMaxSuppression per class, TopK 100: dets [1, K, 5], labels [1, K] for a K it decides)."""

    def __init__(self, classes=3, keep=20, nms=False):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, 2, 1), torch.nn.ReLU(),
            torch.nn.Conv2d(32, 32, 3, 2, 1), torch.nn.ReLU())
        self.box = torch.nn.Conv2d(32, 4, 1)
        self.cls = torch.nn.Conv2d(32, classes, 1)
        self.keep = keep
        self.nms = nms
        # Wider weights than the default initialisation spread the scores, so that
        # the 20 kept cells are not a near-tie.
        torch.nn.init.normal_(self.cls.weight, std=0.5)

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        f = self.body(x)
        p = torch.sigmoid(self.box(f)).flatten(2).transpose(1, 2)           # [1, cells, 4]
        s = torch.sigmoid(self.cls(f)).flatten(2).transpose(1, 2)           # [1, cells, C]
        # Traced, the sizes are tensors (the export stays dynamic); eager, they are ints.
        w, h = torch.as_tensor(w), torch.as_tensor(h)
        size = torch.stack([w, h, w, h]).to(torch.float32)
        x1 = torch.minimum(p[..., 0], p[..., 2]) * size[0]
        x2 = torch.maximum(p[..., 0], p[..., 2]) * size[0]
        y1 = torch.minimum(p[..., 1], p[..., 3]) * size[1]
        y2 = torch.maximum(p[..., 1], p[..., 3]) * size[1]
        if self.nms:
            from gen_detection_tail import DetectionTail
            return DetectionTail()(torch.stack([x1, y1, x2, y2], dim=2), s)
        score, label = s.max(dim=2)
        top, idx = torch.topk(score, self.keep, dim=1)
        boxes = torch.stack([x1, y1, x2, y2], dim=2)
        boxes = torch.gather(boxes, 1, idx.unsqueeze(2).expand(-1, -1, 4))
        dets = torch.cat([boxes, top.unsqueeze(2)], dim=2)
        return dets, torch.gather(label, 1, idx)


class Segmentor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            num_classes=5, weights_backbone=None)

    def forward(self, x):
        return self.net(x)["out"].argmax(dim=1, keepdim=True)


TASKS = {
    "cls": dict(task="Classifier", module="mmcls", component="LinearClsHead", name="squeezenet",
                params=dict(num_classes=1000, in_channels=512, topk=5), outputs=["output"],
                transforms=[
                    dict(type="LoadImageFromFile"),
                    dict(type="Resize", keep_ratio=True, size=[256, -1]),
                    dict(type="CenterCrop", crop_size=224),
                    dict(type="Normalize", to_rgb=True, mean=MEAN, std=STD),
                    dict(type="ImageToTensor", keys=["img"]),
                    dict(type="Collect", keys=["img"], meta_keys=META_KEYS)]),
    "det": dict(task="Detector", module="mmdet", component="ResizeBBox", name="detector",
                params=dict(score_thr=0.3, nms=dict(type="nms", iou_threshold=0.5),
                            max_per_img=20, min_bbox_size=0),
                outputs=["dets", "labels"],
                transforms=[
                    dict(type="LoadImageFromFile", backend_args=None),
                    dict(type="Resize", keep_ratio=True, size=[320, 240]),
                    dict(type="Normalize", to_rgb=True, mean=MEAN, std=STD),
                    dict(type="Pad", size_divisor=32),
                    dict(type="DefaultFormatBundle"),
                    dict(type="Collect", keys=["img"], meta_keys=META_KEYS + ["pad_param"])]),
    # mmyolo's test pipeline as MMDeploy exports it (YOLOv5KeepRatioResize as a keep-ratio Resize),
    # LetterResize to a non-square scale so that its height and width cannot be swapped unseen.
    "yolo": dict(task="Detector", module="mmdet", component="ResizeBBox", name="yolo",
                 params=dict(score_thr=0.3, nms=dict(type="nms", iou_threshold=0.65), max_per_img=20,
                             min_bbox_size=0),
                 outputs=["dets", "labels"],
                 transforms=[
                     dict(type="LoadImageFromFile"),
                     dict(type="Resize", keep_ratio=True, size=[400, 400]),
                     dict(type="LetterResize", scale=[320, 288], allow_scale_up=False, pad_val=dict(img=114)),
                     dict(type="Normalize", to_rgb=True, mean=[0, 0, 0], std=[255, 255, 255]),
                     dict(type="DefaultFormatBundle"),
                     dict(type="Collect", keys=["img"], meta_keys=META_KEYS + ["pad_param"])]),
    "seg": dict(task="Segmentor", module="mmseg", component="ResizeMask", name="lraspp",
                params=dict(type="LRASPPHead", num_classes=5, with_argmax=True),
                outputs=["output"],
                transforms=[
                    dict(type="LoadImageFromFile"),
                    dict(type="Resize", keep_ratio=True, size=[384, 192]),
                    dict(type="Normalize", mean=MEAN, std=STD, to_rgb=True),
                    dict(type="ImageToTensor", keys=["img"]),
                    dict(type="Collect", keys=["img"],
                         meta_keys=["img_shape", "pad_shape", "ori_shape", "img_norm_cfg",
                                    "scale_factor"])]),
}


def network(kind):
    torch.manual_seed(0)
    net = {"cls": Classifier, "det": lambda: Detector(nms=True), "yolo": Detector, "seg": Segmentor}[kind]()
    return net.eval()


def write_dir(kind, out):
    spec = TASKS[kind]
    os.makedirs(out, exist_ok=True)
    net = network(kind)
    x = torch.zeros(1, 3, 224, 224)
    dyn = {"input": {0: "batch", 2: "height", 3: "width"}}
    # The tracer warns about the NMS tail's Python-side NMS and indexing; both are intended.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, x, os.path.join(out, "end2end.onnx"), input_names=["input"],
                          output_names=spec["outputs"], dynamic_axes=dyn, opset_version=11)
    deploy = dict(version="1.3.1", task=spec["task"],
                  models=[dict(name=spec["name"], net="end2end.onnx", weights="",
                               backend="onnxruntime", precision="FP32", batch_size=1,
                               dynamic_shape=True)],
                  customs=[])
    pre = dict(type="Task", module="Transform", name="Preprocess", input=["img"],
               output=["prep_output"], transforms=spec["transforms"])
    infer = dict(name=spec["name"], type="Task", module="Net", is_batched=True,
                 input=["prep_output"], output=["infer_output"], input_map=dict(img="input"),
                 output_map={})
    post = dict(type="Task", module=spec["module"], name="postprocess",
                component=spec["component"], params=spec["params"], output=["post_output"],
                input=["infer_output"] if kind == "cls" else ["prep_output", "infer_output"])
    pipeline = dict(pipeline=dict(input=["img"], output=["post_output"], tasks=[pre, infer, post]))
    detail = dict(version="1.3.1",
                  codebase=dict(task=spec["task"], codebase=spec["module"], version="1.0.0",
                                pth="random.pth", config="generated.py"),
                  codebase_config=dict(type=spec["module"], task=spec["task"]),
                  onnx_config=dict(type="onnx", export_params=True, opset_version=11,
                                   save_file="end2end.onnx", input_names=["input"],
                                   output_names=spec["outputs"], input_shape=None),
                  backend_config=dict(type="onnxruntime"), calib_config={})
    for name, obj in (("deploy.json", deploy), ("pipeline.json", pipeline), ("detail.json", detail)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(obj, f, indent=4)


# ==== >>reference pipeline (OpenCV + numpy + torch) ====

def resize_size(t, h, w):
    size = t["size"]
    if size[1] == -1:
        if w < h:
            dw = size[0]
            dh = dw * h // w
        else:
            dh = size[0]
            dw = dh * w // h
    else:
        dw, dh = size
    if t.get("keep_ratio"):
        lo, hi = min(dw, dh), max(dw, dh)
        s = min(hi / max(h, w), lo / min(h, w))
        dw, dh = int(w * s + 0.5), int(h * s + 0.5)
    return dh, dw


def preprocess(kind, bgr):
    """The network input and the meta, computed with OpenCV and numpy."""
    import cv2
    img = bgr
    meta = dict(ori_shape=[1, img.shape[0], img.shape[1], 3], scale_factor=[1.0] * 4, pad_param=[0] * 4)
    for t in TASKS[kind]["transforms"]:
        if t["type"] == "Resize":
            dh, dw = resize_size(t, img.shape[0], img.shape[1])
            h, w = img.shape[:2]
            if (dh, dw) != (h, w):
                img = cv2.resize(img, (dw, dh), interpolation=cv2.INTER_LINEAR)
            meta["scale_factor"] = [dw / w, dh / h, dw / w, dh / h]
        elif t["type"] == "LetterResize":
            # MMDeploy's LetterResize in float32; std::round is half away from zero.
            h, w = img.shape[:2]
            sh, sw = t["scale"]
            ratio = min(np.float32(sh) / np.float32(h), np.float32(sw) / np.float32(w))
            if not t.get("allow_scale_up", True):
                ratio = min(ratio, np.float32(1))
            nh, nw = int(np.floor(np.float32(h) * ratio + 0.5)), int(np.floor(np.float32(w) * ratio + 0.5))
            if (nh, nw) != (h, w):
                img = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
            ph, pw = sh - nh, sw - nw
            top, left = ph // 2, pw // 2
            img = cv2.copyMakeBorder(img, top, ph - top, left, pw - left, cv2.BORDER_CONSTANT,
                                     value=[t["pad_val"]["img"]] * 3)
            sf = meta["scale_factor"]
            meta["scale_factor"] = [float(np.float32(sf[0]) * ratio), float(np.float32(sf[1]) * ratio),
                                    float(np.float32(sf[2]) * ratio), float(np.float32(sf[3]) * ratio)]
            meta["pad_param"] = [top, left, ph - top, pw - left]
        elif t["type"] == "CenterCrop":
            c = t["crop_size"]
            h, w = img.shape[:2]
            y1 = max(0, int(np.floor((h - c) / 2.0 + 0.5)))
            x1 = max(0, int(np.floor((w - c) / 2.0 + 0.5)))
            img = img[y1:y1 + c, x1:x1 + c]
        elif t["type"] == "Normalize":
            img = (img.astype(np.float32) - np.array(t["mean"], np.float32)) / np.array(t["std"], np.float32)
            if t["to_rgb"]:
                img = img[..., ::-1]
        elif t["type"] == "Pad":
            d = t["size_divisor"]
            h, w = img.shape[:2]
            ph, pw = (h + d - 1) // d * d, (w + d - 1) // d * d
            img = np.pad(img, ((0, ph - h), (0, pw - w), (0, 0)))
    return np.ascontiguousarray(img.transpose(2, 0, 1)[None].astype(np.float32)), meta


def reference(kind, bgr, x=None):
    """What MMDeploy's SDK returns for this image, by the Python pipeline; with x, the network
    runs on that input instead of the pipeline's own (the meta is still the pipeline's)."""
    import cv2
    px, meta = preprocess(kind, bgr)
    x = px if x is None else x
    net = network(kind)
    with torch.no_grad():
        out = net(torch.from_numpy(x))
    spec = TASKS[kind]
    if kind == "cls":
        s = out[0].numpy()
        top = np.argsort(-s, kind="stable")[:spec["params"]["topk"]]
        return [(int(i), float(s[i])) for i in top], s
    if kind in ("det", "yolo"):
        dets, labels = out[0][0].numpy(), out[1][0].numpy()
        sf, (h, w) = meta["scale_factor"], meta["ori_shape"][1:3]
        top, left = meta["pad_param"][:2]
        res = []
        for d, lab in zip(dets, labels):
            if not d[4] > spec["params"]["score_thr"]:
                continue
            box = [max((d[0] - left) / sf[0], 0), max((d[1] - top) / sf[1], 0), min((d[2] - left) / sf[2], w - 1),
                   min((d[3] - top) / sf[3], h - 1)]
            if min(box[2] - box[0], box[3] - box[1]) < spec["params"]["min_bbox_size"]:
                continue
            res.append((int(lab), float(d[4]), *[float(v) for v in box]))
        return res, None
    mask = out[0, 0].numpy().astype(np.int32)
    return cv2.resize(mask, (bgr.shape[1], bgr.shape[0]), interpolation=cv2.INTER_NEAREST), None


if __name__ == "__main__":
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "build/sdk_models"
    for k in TASKS:
        write_dir(k, os.path.join(out_dir, k))
    print("wrote", ", ".join(os.path.join(out_dir, k) for k in TASKS))
