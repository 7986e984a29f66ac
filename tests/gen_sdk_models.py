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
  pose a small top-down heatmap network, "output" [1, 17, 64, 48] for a 256 x 192 input, behind
       mmpose's pipeline as MMDeploy exports it (TopDownGetBboxCenterScale, TopDownAffine,
       Normalize, ImageToTensor, Collect) and TopdownHeatmapSimpleHeadDecode
  simcc the same body ending in SimCC vectors "simcc_x" [1, 17, 384] and "simcc_y" [1, 17, 512]
       (RTMPose's outputs) and SimCCLabelDecode with simcc_split_ratio 2
  rec  a small CRNN-like recogniser on gray text lines 32 pixels high, "output" [1, W / 4, 37]
       (blank + 36 characters), behind mmocr's pipeline (grayscale LoadImageFromFile,
       RescaleToHeight, Normalize, DefaultFormatBundle, Collect) and CTCConvertor with
       dict_file.txt (listed in deploy.json's customs)
  mask the yolo detector's 20 best cells (no NMS) with Mask R-CNN's RoI masks: "masks"
       [1, 20, 28, 28], each a linear map of its cell's features plus a centred disc (so that
       the masks are blobs), sigmoid; det's pipeline and ResizeInstanceMask with params as
       MMDeploy writes them for Mask R-CNN (rcnn, mask_thr_binary 0.5, is_resize_mask)
  maskfull  the same with RTMDet-Ins's masks of the whole (padded) input: "masks" [1, 20, H, W],
       a 3x3 convolution of the input into 8 prototypes weighed per cell by a linear map of its
       features, sigmoid; ResizeInstanceMask without "rcnn"
  textdet  a small DBNet-like text detector: a 3x3 convolution whose first channel measures
       darkness (the others random), a wide box convolution (7 x 15) over it that joins a line's
       characters, sigmoid: "output" [1, H, W], the text probability at input resolution;
       behind mmocr's pipeline as MMDeploy exports DBNet (LoadImageFromFile, Resize keep_ratio,
       Normalize, Pad size_divisor 32, DefaultFormatBundle, Collect) and DBHead with the params
       MMDeploy writes for it (none: the SDK's defaults)
  rotated  the detector's body proposing one rotated box per cell (centre anywhere in the input,
       sides up to half of it, angle in [-pi/2, pi/2), mmrotate's le90) with the 100 best cells
       kept: "dets" [1, 100, 6] (cx, cy, w, h, angle, score) and "labels" [1, 100], as MMDeploy's
       mmrotate export names them; pipeline as mmrotate's get_preprocess makes it (Resize
       keep_ratio, Normalize, Pad size_divisor 32, DefaultFormatBundle, Collect) and ResizeRBBox
       with score_thr 0.5 beside the rest of the test_cfg MMDeploy writes
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

DICT36 = "0123456789abcdefghijklmnopqrstuvwxyz"
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


class RotatedDetector(Detector):
    """The Detector's body and class scores; each cell's box is a rotated one (cx, cy, w, h,
    angle) and the 100 best cells are kept."""

    def __init__(self, classes=3, keep=100):
        super().__init__(classes, keep)
        self.box = torch.nn.Conv2d(32, 5, 1)
        # Wide box weights, so that the kept boxes differ in place, size and angle; class
        # weights and a bias that put the kept scores on both sides of score_thr (0.5: 15 of
        # the 100 on the photo, of two classes) and above MMDeploy's default 0.05.
        torch.nn.init.normal_(self.box.weight, std=0.5)
        torch.nn.init.normal_(self.cls.weight, std=1.0)
        torch.nn.init.constant_(self.cls.bias, -1.05)

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        f = self.body(x)
        p = torch.sigmoid(self.box(f)).flatten(2).transpose(1, 2)           # [1, cells, 5]
        s = torch.sigmoid(self.cls(f)).flatten(2).transpose(1, 2)           # [1, cells, C]
        w, h = torch.as_tensor(w).to(torch.float32), torch.as_tensor(h).to(torch.float32)
        rbox = torch.stack([p[..., 0] * w, p[..., 1] * h, p[..., 2] * w * 0.5, p[..., 3] * h * 0.5,
                            (p[..., 4] - 0.5) * np.pi], dim=2)
        score, label = s.max(dim=2)
        top, idx = torch.topk(score, self.keep, dim=1)
        rbox = torch.gather(rbox, 1, idx.unsqueeze(2).expand(-1, -1, 5))
        return torch.cat([rbox, top.unsqueeze(2)], dim=2), torch.gather(label, 1, idx)


class MaskDetector(Detector):
    """Detector's 20 best cells with instance masks: RoI masks (roi=True, 28 x 28 per box, as
    Mask R-CNN's end2end gives them) or masks of the whole input (RTMDet-Ins's)."""

    def __init__(self, roi):
        super().__init__()
        self.roi = roi
        if roi:
            self.mask = torch.nn.Linear(32, 28 * 28)
            yy, xx = torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij")
            self.register_buffer("disc", 4.0 - ((yy - 13.5) ** 2 + (xx - 13.5) ** 2) / 30.0)
        else:
            self.proto = torch.nn.Conv2d(3, 8, 3, 1, 1)
            self.coef = torch.nn.Linear(32, 8)

    def forward(self, x):
        dets, labels = super().forward(x)
        f = self.body(x).flatten(2).transpose(1, 2)                        # [1, cells, 32]
        s = torch.sigmoid(self.cls(self.body(x))).flatten(2).transpose(1, 2)
        _, idx = torch.topk(s.max(dim=2)[0], self.keep, dim=1)
        feat = torch.gather(f, 1, idx.unsqueeze(2).expand(-1, -1, 32))       # [1, 20, 32]
        if self.roi:
            m = self.mask(feat).reshape(1, self.keep, 28, 28) + self.disc
        else:
            p = self.proto(x)                                                # [1, 8, H, W]
            m = torch.matmul(self.coef(feat), p.flatten(2)).reshape(1, self.keep, p.shape[2], p.shape[3]) * 4.0
        return dets, labels, torch.sigmoid(m)


class Pose(torch.nn.Module):
    """Heatmaps at a quarter of the input (stride 4) from two strided convolutions; with simcc,
    each heatmap's column and row means spread by a linear layer to twice the input's width and
    height, as RTMPose's SimCC head outputs them."""

    def __init__(self, simcc=False, keypoints=17):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, 2, 1), torch.nn.ReLU(),
            torch.nn.Conv2d(32, keypoints, 1))
        self.simcc = simcc
        if simcc:
            self.fx = torch.nn.Linear(48, 384)
            self.fy = torch.nn.Linear(64, 512)

    def forward(self, x):
        h = self.body(x)
        if not self.simcc:
            return h
        return self.fx(h.mean(dim=2)), self.fy(h.mean(dim=3))


class Recognizer(torch.nn.Module):
    """Two conv + max-pool stages (height and width halved twice; tanh on the second, so that
    features of both signs make the columns' classes vary), a convolution over the remaining
    height to the classes: per-column class scores, as CRNN's CTC head gives them."""

    def __init__(self, classes=37):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, 1, 1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, 1, 1), torch.nn.Tanh(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(32, classes, (8, 1)))
        # Wide last weights and no bias, so that the columns spread over many classes.
        torch.nn.init.normal_(self.body[6].weight, std=1.0)
        torch.nn.init.zeros_(self.body[6].bias)

    def forward(self, x):
        return self.body(x).squeeze(2).permute(0, 2, 1)


class TextDetector(torch.nn.Module):
    """Darkness (channel 0 of the first convolution: minus the mean of the normalised 3x3x3
    window; the other channels random) averaged over 7 x 15 windows, scaled and shifted so that
    text lines of dark characters on a light ground come out near 1 and the ground near 0, the
    random channels adding a little texture: the probability map DBNet's head gives."""

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, 1, 1), torch.nn.ReLU(),
                                        torch.nn.Conv2d(8, 1, (7, 15), 1, (3, 7)))
        with torch.no_grad():
            self.body[0].weight[0] = -1.0 / 27
            self.body[0].bias[0] = 0.0
            torch.nn.init.normal_(self.body[2].weight, std=0.01)
            self.body[2].weight[0, 0] = 30.0 / 105
            self.body[2].bias[0] = -3.0

    def forward(self, x):
        return torch.sigmoid(self.body(x)).squeeze(1)


class Segmentor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            num_classes=5, weights_backbone=None)

    def forward(self, x):
        return self.net(x)["out"].argmax(dim=1, keepdim=True)


POSE_TRANSFORMS = [
    dict(type="LoadImageFromFile", channel_order="bgr"),
    dict(type="TopDownGetBboxCenterScale", padding=1.25, image_size=[192, 256]),
    dict(type="TopDownAffine", image_size=[192, 256]),
    dict(type="Normalize", mean=MEAN, std=STD, to_rgb=True),
    dict(type="ImageToTensor", keys=["img"]),
    dict(type="Collect", keys=["img"],
         meta_keys=["img_shape", "pad_shape", "ori_shape", "img_norm_cfg", "scale_factor", "bbox_score",
                    "center", "scale", "rotation", "bbox_id"])]

DET_TRANSFORMS = [
    dict(type="LoadImageFromFile", backend_args=None),
    dict(type="Resize", keep_ratio=True, size=[320, 240]),
    dict(type="Normalize", to_rgb=True, mean=MEAN, std=STD),
    dict(type="Pad", size_divisor=32),
    dict(type="DefaultFormatBundle"),
    dict(type="Collect", keys=["img"], meta_keys=META_KEYS + ["pad_param"])]

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
                outputs=["dets", "labels"], transforms=DET_TRANSFORMS),
    "rotated": dict(task="RotatedDetector", module="mmrotate", component="ResizeRBBox", name="rotated",
                    params=dict(nms_pre=2000, min_bbox_size=0, score_thr=0.5,
                                nms=dict(type="nms_rotated", iou_threshold=0.1), max_per_img=2000),
                    outputs=["dets", "labels"],
                    transforms=[
                        dict(type="LoadImageFromFile"),
                        dict(type="Resize", keep_ratio=True, size=[320, 240]),
                        dict(type="Normalize", to_rgb=True, mean=MEAN, std=STD),
                        dict(type="Pad", size_divisor=32),
                        dict(type="DefaultFormatBundle"),
                        dict(type="Collect", keys=["img"], meta_keys=META_KEYS)]),
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
    "mask": dict(task="Detector", module="mmdet", component="ResizeInstanceMask", name="mask-rcnn",
                 params=dict(rpn=dict(nms_pre=1000, max_per_img=1000, nms=dict(type="nms", iou_threshold=0.7),
                                      min_bbox_size=0),
                             rcnn=dict(score_thr=0.3, nms=dict(type="nms", iou_threshold=0.5), max_per_img=20,
                                       mask_thr_binary=0.5),
                             min_bbox_size=0, score_thr=0.3, mask_thr_binary=0.5, is_resize_mask=True),
                 outputs=["dets", "labels", "masks"], transforms=DET_TRANSFORMS),
    "maskfull": dict(task="Detector", module="mmdet", component="ResizeInstanceMask", name="rtmdet-ins",
                     params=dict(nms_pre=1000, min_bbox_size=0, score_thr=0.3, nms=dict(type="nms", iou_threshold=0.6),
                                 max_per_img=20, mask_thr_binary=0.5, is_resize_mask=True),
                     outputs=["dets", "labels", "masks"], transforms=DET_TRANSFORMS),
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
    "pose": dict(task="PoseDetector", module="mmpose", component="TopdownHeatmapSimpleHeadDecode",
                 name="pose", input_hw=(256, 192),
                 params=dict(flip_test=False, post_process="default", shift_heatmap=False, modulate_kernel=11,
                             type="MSRAHeatmap", input_size=[192, 256], heatmap_size=[48, 64], sigma=2),
                 outputs=["output"], transforms=POSE_TRANSFORMS),
    "rec": dict(task="TextRecognizer", module="mmocr", component="CTCConvertor", name="crnn",
                input_shape=(1, 32, 100), dynamic={0: "batch", 3: "width"},
                params=dict(type="CTCPostProcessor", dict_file="dict_file.txt", with_padding=True,
                            with_unknown=False),
                outputs=["output"],
                transforms=[
                    dict(type="LoadImageFromFile", color_type="grayscale"),
                    dict(type="RescaleToHeight", height=32, min_width=32, max_width=None, width_divisor=16),
                    dict(type="Normalize", mean=[127], std=[127], to_rgb=False),
                    dict(type="DefaultFormatBundle"),
                    dict(type="Collect", keys=["img"], meta_keys=["filename", "ori_shape", "img_shape",
                                                                 "valid_ratio"])]),
    "textdet": dict(task="TextDetector", module="mmocr", component="DBHead", name="dbnet", params={},
                    outputs=["output"],
                    transforms=[
                        dict(type="LoadImageFromFile", color_type="color_ignore_orientation"),
                        dict(type="Resize", size=[640, 480], keep_ratio=True),
                        dict(type="Normalize", to_rgb=True, mean=MEAN, std=STD),
                        dict(type="Pad", size_divisor=32),
                        dict(type="DefaultFormatBundle"),
                        dict(type="Collect", keys=["img"],
                             meta_keys=["ori_shape", "img_shape", "scale_factor", "pad_shape", "filename",
                                        "ori_filename", "flip", "flip_direction", "img_norm_cfg", "valid_ratio"])]),
    "simcc": dict(task="PoseDetector", module="mmpose", component="SimCCLabelDecode", name="rtmpose",
                  input_hw=(256, 192),
                  params=dict(flip_test=False, type="SimCCLabel", input_size=[192, 256], sigma=[4.9, 5.66],
                              simcc_split_ratio=2.0, normalize=False, use_dark=False),
                  outputs=["simcc_x", "simcc_y"], transforms=POSE_TRANSFORMS),
}


def network(kind):
    torch.manual_seed(0)
    net = {"cls": Classifier, "det": lambda: Detector(nms=True), "yolo": Detector, "seg": Segmentor,
           "pose": Pose, "simcc": lambda: Pose(simcc=True), "rec": Recognizer,
           "textdet": TextDetector, "rotated": RotatedDetector, "mask": lambda: MaskDetector(True),
           "maskfull": lambda: MaskDetector(False)}[kind]()
    return net.eval()


def write_dir(kind, out):
    spec = TASKS[kind]
    os.makedirs(out, exist_ok=True)
    net = network(kind)
    x = torch.zeros(1, *spec.get("input_shape", (3,) + spec.get("input_hw", (224, 224))))
    # Top-down pose networks have a fixed input size, text recognisers a fixed height.
    dyn = {"input": spec.get("dynamic", {0: "batch"} if "input_hw" in spec else {0: "batch", 2: "height", 3: "width"})}
    # The tracer warns about the NMS tail's Python-side NMS and indexing; both are intended.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, x, os.path.join(out, "end2end.onnx"), input_names=["input"],
                          output_names=spec["outputs"], dynamic_axes=dyn, opset_version=11)
    deploy = dict(version="1.3.1", task=spec["task"],
                  models=[dict(name=spec["name"], net="end2end.onnx", weights="",
                               backend="onnxruntime", precision="FP32", batch_size=1,
                               dynamic_shape=True)],
                  customs=["dict_file.txt"] if kind == "rec" else [])
    if kind == "rec":
        with open(os.path.join(out, "dict_file.txt"), "w") as f:
            f.write("".join(c + "\n" for c in DICT36))
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


def bbox_center_scale(box, image_size, padding):
    """mmpose's bbox_xywh2cs as MMDeploy's TopDownGetBboxCenterScale computes it in float32."""
    f = np.float32
    x, y, w, h = (f(v) for v in box)
    aspect = f(image_size[0] / image_size[1])
    center = [f(x + w * f(0.5)), f(y + h * f(0.5))]
    if w > aspect * h:
        h = f(w / aspect)
    elif w < aspect * h:
        w = f(h * aspect)
    return center, [f(w / f(200)) * f(padding), f(h / f(200)) * f(padding)]


def preprocess(kind, bgr, bbox=None):
    """The network input and the meta, computed with OpenCV and numpy. bbox: a pose model's
    box (left, top, right, bottom), None for the whole image."""
    import cv2
    img = bgr
    meta = dict(ori_shape=[1, img.shape[0], img.shape[1], 3], scale_factor=[1.0] * 4, pad_param=[0] * 4)
    for t in TASKS[kind]["transforms"]:
        if t["type"] == "LoadImageFromFile" and t.get("color_type") == "grayscale":
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[..., None]
            meta["ori_shape"][3] = 1
        elif t["type"] == "RescaleToHeight":
            # MMDeploy's float arithmetic; std::round is half away from zero.
            f = np.float32
            h, w = img.shape[:2]
            nw = int(np.ceil(f(1) * f(t["height"]) / f(h) * f(w)))
            nw = max(nw, t["min_width"]) if t.get("min_width") else nw
            nw = min(nw, t["max_width"]) if t.get("max_width") else nw
            d = t["width_divisor"]
            if nw % d:
                nw = int(np.floor(f(nw) / f(d) + f(0.5))) * d
            img = cv2.resize(img, (nw, t["height"]), interpolation=cv2.INTER_LINEAR)
            if img.ndim == 2:
                img = img[..., None]
        elif t["type"] == "TopDownGetBboxCenterScale":
            # MMDeploy's C API: the box's right and bottom are inside it; no box is the image.
            box = [0, 0, bgr.shape[1], bgr.shape[0]] if bbox is None else \
                [bbox[0], bbox[1], np.float32(bbox[2]) - np.float32(bbox[0]) + 1,
                 np.float32(bbox[3]) - np.float32(bbox[1]) + 1]
            meta["center"], meta["scale"] = bbox_center_scale(box, t["image_size"], t["padding"])
        elif t["type"] == "TopDownAffine":
            # MMDeploy's GetAffineTransform (rotation 0): the centre, the point half a box width
            # above it and the third point of the pair (float32), onto the output's.
            f = np.float32
            w, h = t["image_size"]
            c = meta["center"]
            up = f(c[1] - f(meta["scale"][0] * f(200)) * f(0.5))
            d = f(c[1] - up)
            src = np.float32([c, [c[0], up], [f(c[0] - d), up]])
            dst = np.float32([[w * 0.5, h * 0.5], [w * 0.5, h * 0.5 - w * 0.5], [0, h * 0.5 - w * 0.5]])
            img = cv2.warpAffine(img, cv2.getAffineTransform(src, dst), (w, h), flags=cv2.INTER_LINEAR)
        elif t["type"] == "Resize":
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
            # mmcv's imnormalize and MMDeploy's SDK turn BGR into RGB first: mean and std are RGB.
            if t["to_rgb"]:
                img = img[..., ::-1]
            img = (img.astype(np.float32) - np.array(t["mean"], np.float32)) / np.array(t["std"], np.float32)
        elif t["type"] == "Pad":
            d = t["size_divisor"]
            h, w = img.shape[:2]
            ph, pw = (h + d - 1) // d * d, (w + d - 1) // d * d
            img = np.pad(img, ((0, ph - h), (0, pw - w), (0, 0)))
    return np.ascontiguousarray(img.transpose(2, 0, 1)[None].astype(np.float32)), meta


DB_DEFAULTS = dict(mask_thr=0.3, min_text_score=0.3, min_text_width=5, unclip_ratio=1.5, max_candidate=3000,
                   rescale=True, downsample_ratio=1.0)


def db_head(prob, meta, params):
    """mmocr's DBHead postprocess as MMDeploy's CPU SDK runs it (codebase/mmocr/dbnet.cpp and
    cpu/dbnet.cpp), with OpenCV and pyclipper: [[score, x0, y0, ..., x3, y3], ...] in the
    original image. One rule differs, as in mmdeploy_sdk.h: a box is kept when the shorter side
    of its rectangle (mmocr's rule) is wider than min_text_width, where MMDeploy tests the side
    OpenCV's calipers call width, which hangs on where its hull starts."""
    import cv2
    import pyclipper
    p = dict(DB_DEFAULTS, **params)
    f = np.float32
    mask = (prob >= f(p["mask_thr"])).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    sw = sh = f(1)
    if p["rescale"]:
        sw = f(1) / (f(p["downsample_ratio"]) * f(meta["scale_factor"][0]))
        sh = f(1) / (f(p["downsample_ratio"]) * f(meta["scale_factor"][1]))
    res = []
    for c in contours[:params.get("max_candidate", params.get("max_candidates", 3000))]:
        approx = cv2.approxPolyDP(c, 0.01 * cv2.arcLength(c, True), True).reshape(-1, 2)
        if len(approx) < 4:
            continue
        x, y, w, h = cv2.boundingRect(approx)
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [approx - [x, y]], 1)
        score = f(cv2.mean(prob[y:y + h, x:x + w], m)[0])
        if score < f(p["min_text_score"]):
            continue
        dist = cv2.contourArea(approx) * float(f(p["unclip_ratio"])) / cv2.arcLength(approx, True)
        pco = pyclipper.PyclipperOffset()
        pco.AddPath(approx.tolist(), pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
        grown = pco.Execute(dist)
        if len(grown) != 1:
            continue
        rect = cv2.minAreaRect(np.array(grown[0], np.int32))
        if int(min(rect[1])) <= p["min_text_width"]:
            continue
        pts = cv2.boxPoints(rect).astype(np.float32)
        res.append([float(score)] + [float(np.rint(v * (sw if i % 2 == 0 else sh))) for i, v in enumerate(pts.reshape(-1))])
    return res


def text_image(h=360, w=480):
    """A light picture with dark text lines at several angles (OpenCV's Hershey font), the
    text detector's test image."""
    import cv2
    img = np.full((h, w, 3), 230, np.uint8)
    img[:] += np.random.default_rng(3).integers(0, 20, (h, w, 3), dtype=np.uint8)
    for text, (cx, cy), angle, scale in (("mmdeploy sdk", (150, 50), 0, 1.1), ("text 1234", (330, 150), 14, 1.0),
                                          ("dbnet", (110, 200), -22, 1.3), ("ocr in c", (300, 290), 33, 0.9),
                                          ("hi", (440, 40), 0, 0.5)):
        layer = np.zeros((h, w), np.uint8)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.putText(layer, text, (cx - tw // 2, cy + th // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, 2, cv2.LINE_AA)
        layer = cv2.warpAffine(layer, cv2.getRotationMatrix2D((cx, cy), angle, 1.0), (w, h))
        a = layer[..., None].astype(np.float32) / 255
        img = (img * (1 - a) + np.float32([40, 30, 20]) * a).astype(np.uint8)
    return np.ascontiguousarray(img)


def warp_bbox(bgr, box):
    """MMDeploy's WarpBbox (codebase/mmocr/warp.cpp) with OpenCV: the corners sorted around the
    topmost-leftmost one, started at the one nearest their top-left, the first three mapped
    onto (0, 0), (w, 0), (w, h) and the image warped to w x h."""
    import cv2
    import functools
    pts = [(int(round(box[2 * i])), int(round(box[2 * i + 1]))) for i in range(4)]
    pivot = min(pts, key=lambda q: (q[1], q[0]))

    def cross(a, b):
        return (a[0] - pivot[0]) * (b[1] - pivot[1]) - (a[1] - pivot[1]) * (b[0] - pivot[0])
    rest = pts[:pts.index(pivot)] + pts[pts.index(pivot) + 1:]
    rest = sorted(rest, key=functools.cmp_to_key(lambda a, b: -1 if cross(a, b) > 0 else 1 if cross(b, a) > 0 else 0))
    pts = [pivot] + rest
    tl = (min(q[0] for q in pts), min(q[1] for q in pts))
    k = min(range(4), key=lambda i: (pts[i][0] - tl[0]) ** 2 + (pts[i][1] - tl[1]) ** 2)
    pts = pts[k:] + pts[:k]
    e0, e1 = np.hypot(pts[0][0] - pts[1][0], pts[0][1] - pts[1][1]), np.hypot(pts[1][0] - pts[2][0], pts[1][1] - pts[2][1])
    w, h = np.float32(max(e0, e1)), np.float32(min(e0, e1))
    m = cv2.getAffineTransform(np.float32(pts[:3]), np.float32([[0, 0], [w, 0], [w, h]]))
    return cv2.warpAffine(bgr, m, (int(w), int(h)))


def decode_pose(kind, out, meta):
    """mmpose's decodes as MMDeploy's SDK runs them, in numpy: [[x, y, score], ...]."""
    f = np.float32
    c, s = meta["center"], [f(v * f(200)) for v in meta["scale"]]
    res = []
    if kind == "simcc":
        sx, sy = out[0][0].numpy(), out[1][0].numpy()
        ratio, size = TASKS[kind]["params"]["simcc_split_ratio"], TASKS[kind]["params"]["input_size"]
        for vx, vy in zip(sx, sy):
            score = min(vx.max(), vy.max())
            x, y = (f(vx.argmax()), f(vy.argmax())) if score > 0 else (f(-1), f(-1))
            x, y = x / f(ratio), y / f(ratio)
            res.append([float(x * s[0] / f(size[0]) + c[0] - s[0] * 0.5),
                        float(y * s[1] / f(size[1]) + c[1] - s[1] * 0.5), float(score)])
        return res
    hm = out[0].numpy()
    k, h, w = hm.shape
    for m in hm:
        i = int(m.argmax())
        iy, ix = divmod(i, w)
        px, py = (f(ix), f(iy)) if m.flat[i] > 0 else (f(-1), f(-1))
        # The quarter-pixel step towards the higher neighbour, away from the border.
        if m.flat[i] > 0 and 1 < ix < w - 1 and 1 < iy < h - 1:
            px += f(0.25) * np.sign(m[iy, ix + 1] - m[iy, ix - 1])
            py += f(0.25) * np.sign(m[iy + 1, ix] - m[iy - 1, ix])
        res.append([float(px * (s[0] / f(w)) + c[0] - s[0] * 0.5), float(py * (s[1] / f(h)) + c[1] - s[1] * 0.5),
                    float(m.flat[i])])
    return res


def instance_masks(kind, out, meta, params=None):
    """ResizeBBox's boxes and ResizeInstanceMask's masks as MMDeploy's C++ makes them with
    OpenCV (codebase/mmdet/instance_segmentation.cpp), each mask pasted into an image-sized
    canvas where its box lies (0 / 255, uint8 [N, H, W]), as MMDeploy's demo draws them. A box
    without area has no mask (an empty canvas): MMDeploy's scale would be infinite."""
    import cv2
    params = params or TASKS[kind]["params"]
    dets, labels, masks = out[0][0].numpy(), out[1][0].numpy(), out[2][0].numpy()
    sf, (h, w) = meta["scale_factor"], meta["ori_shape"][1:3]
    f = np.float32
    res, canvases = [], []
    for d, lab, m in zip(dets, labels, masks):
        if not d[4] > params["score_thr"]:
            continue
        b = [max(f((d[0]) / f(sf[0])), f(0)), max(f(d[1] / f(sf[1])), f(0)), min(f(d[2] / f(sf[2])), f(w - 1)),
             min(f(d[3] / f(sf[3])), f(h - 1))]
        if min(b[2] - b[0], b[3] - b[1]) < params["min_bbox_size"]:
            continue
        res.append((int(lab), float(d[4]), *[float(v) for v in b]))
        canvas = np.zeros((h, w), np.uint8)
        if not (b[2] > b[0] and b[3] > b[1]):
            pass
        elif "rcnn" in params and not params.get("is_resize_mask", True):
            # The RoI mask itself; pasted (as sdk_probe does) at the corner a resized one has.
            x0, y0 = int(max(np.floor(b[0]) - 1, f(0))), int(max(np.floor(b[1]) - 1, f(0)))
            canvas[y0:y0 + m.shape[0], x0:x0 + m.shape[1]] = (m > params["mask_thr_binary"]) * 255
        elif "rcnn" in params:
            x0, y0 = max(np.floor(b[0]) - 1, f(0)), max(np.floor(b[1]) - 1, f(0))
            x1, y1 = min(np.ceil(b[2]) + 1, f(w)), min(np.ceil(b[3]) + 1, f(h))
            fx, fy = f(m.shape[1]) / (b[2] - b[0]), f(m.shape[0]) / (b[3] - b[1])
            tx, ty = (x0 + f(0.5) - b[0]) * fx - f(0.5), (y0 + f(0.5) - b[1]) * fy - f(0.5)
            a = cv2.invertAffineTransform(np.array([[fx, 0, tx], [0, fy, ty]], np.float32))
            warped = cv2.warpAffine(m, a, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR)
            canvas[int(y0):int(y1), int(x0):int(x1)] = (warped > params["mask_thr_binary"]) * 255
        else:
            rh, rw = int(m.shape[0] / sf[1] + 0.5), int(m.shape[1] / sf[0] + 0.5)
            if (rh, rw) != m.shape:
                m = cv2.resize(m, (rw, rh), interpolation=cv2.INTER_LINEAR)
            canvas[:] = (m[:h, :w] > params["mask_thr_binary"]) * 255
        canvases.append(canvas)
    return res, np.array(canvases, np.uint8).reshape(-1, h, w)


def reference(kind, bgr, x=None, bbox=None):
    """What MMDeploy's SDK returns for this image, by the Python pipeline; with x, the network
    runs on that input instead of the pipeline's own (the meta is still the pipeline's)."""
    import cv2
    px, meta = preprocess(kind, bgr, bbox)
    x = px if x is None else x
    net = network(kind)
    with torch.no_grad():
        out = net(torch.from_numpy(x))
    spec = TASKS[kind]
    if kind in ("pose", "simcc"):
        return decode_pose(kind, out, meta), None
    if kind == "textdet":
        prob = out[0].numpy().astype(np.float32)
        return db_head(prob, meta, spec["params"]), prob
    if kind == "rec":
        # CTC: per step the softmax's first maximum; blanks and repeats dropped.
        logits = out[0].numpy().astype(np.float32)
        prob = np.exp(logits - logits.max(1, keepdims=True))
        prob = prob / prob.sum(1, keepdims=True)
        text, scores, prev = "", [], 0
        for p in prob:
            k = int(p.argmax())
            if k not in (0, prev):
                text += DICT36[k - 1]
                scores.append(float(p[k]))
            prev = k
        return text, scores
    if kind == "cls":
        s = out[0].numpy()
        top = np.argsort(-s, kind="stable")[:spec["params"]["topk"]]
        return [(int(i), float(s[i])) for i in top], s
    if kind == "rotated":
        # MMDeploy's ResizeRBBox: centres and sizes divided by scale_factor, the angle kept.
        dets, labels = out[0][0].numpy(), out[1][0].numpy()
        sf = meta["scale_factor"]
        return [(int(lab), float(d[5]), d[0] / sf[0], d[1] / sf[1], d[2] / sf[0], d[3] / sf[1], float(d[4]))
                for d, lab in zip(dets, labels) if d[5] > spec["params"]["score_thr"]], None
    if kind in ("mask", "maskfull"):
        return instance_masks(kind, out, meta)
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
