#!/usr/bin/python3
"""The SDK layer (mmdeploy_sdk.h) against an independent Python pipeline, through build/sdk_probe.

    /usr/bin/python3 tests/test_sdk.py [SUBSTRING...]

- resize: mmd_image_resize_u8 against OpenCV's cv2.resize (INTER_NEAREST, INTER_LINEAR,
  INTER_CUBIC, INTER_AREA) on a real photo (scikit-learn's china.jpg) and on odd sizes (1x1, 1xN,
  Nx1, up, down, whole and fractional ratios), 1, 3 and 4 channels: nearest exact, the others
  within 1;
- preprocess: the network input and meta of each model directory (tests/gen_sdk_models.py,
  generated into build/sdk_models) against OpenCV + numpy, for BGR, RGB, BGRA, gray, NV12 and
  NV21 input;
- end to end: classifier, detector and segmentor results against the same pipeline with torch
  running the network (top-k labels equal, scores within 1e-3; boxes within 1 px; masks equal
  on at least 99.5% of pixels);
- instance masks: ResizeInstanceMask's boxes and masks (Mask R-CNN's RoI masks warped into
  their boxes, RTMDet-Ins's whole-input masks) against OpenCV as MMDeploy's C++ calls it
  (gen_sdk_models.instance_masks): boxes within 1 px, labels equal, masks equal on at least
  99.5% of the image and 99% of either mask; hostile params and mask outputs refused;
- text detection: DBHead's boxes against OpenCV's findContours / approxPolyDP / fillPoly /
  minAreaRect and pyclipper (gen_sdk_models.db_head) on the network's map of our input, under
  the SDK's defaults and edited params (same count and order, corners within 1 px, scores
  within 1e-3); the recognizer's text of each box against MMDeploy's WarpBbox in OpenCV;
- the CLI: `mmdeploy sdk DIR IMAGE` on every test directory prints the probe's results as
  JSON (the same printers, tools/mmd_sdk_json.h, after a PNG decoded by stb instead of an
  array); a missing directory, a deploy.json that is not JSON and an unreadable image end it
  with the SDK's message, its status and exit 1, and nothing on stdout;
- hostile model directories: each refused with the documented status and a message naming the
  wrong value, never a crash.
Prints `ok NAME` or `FAIL NAME: why` per test, the largest differences measured, then
`N passed, M failed`; exits 1 on any failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import cv2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MMDEPLOY_BIN")  # make asan-test points it into build/asan
CLI = BIN or os.path.join(ROOT, "build", "mmdeploy")
PROBE = os.path.join(os.path.dirname(BIN), "sdk_probe") if BIN else os.path.join(ROOT, "build", "sdk_probe")
MODELS = os.path.join(ROOT, "build", "sdk_models")
PPOCR = os.path.join(ROOT, "build", "ppocr")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_sdk_models as gen  # noqa: E402

STATUS = dict(SUCCESS=0, INVALID_ARG=1, NOT_SUPPORTED=2, OUT_OF_RANGE=3, OUT_OF_MEMORY=4,
              FILE_NOT_EXIST=5, FAIL=6)
REPORT = {}


class Failure(Exception):
    pass


def note(key, value):
    REPORT[key] = max(REPORT.get(key, 0), value)


def probe(*args, expect=0):
    p = subprocess.run([PROBE] + [str(a) for a in args], capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        raise Failure("sdk_probe %s exited %d (expected %d): %s" %
                      (" ".join(map(str, args)), p.returncode, expect, p.stderr.strip()[-400:]))
    return p


def china():
    from sklearn.datasets import load_sample_image
    return np.ascontiguousarray(load_sample_image("china.jpg")[..., ::-1])


def odd_image(h, w, c, seed):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


# ==== >>resize ====
CV = dict(nearest=cv2.INTER_NEAREST, bilinear=cv2.INTER_LINEAR, bicubic=cv2.INTER_CUBIC,
          area=cv2.INTER_AREA)
RESIZE_CASES = [("china", None, (224, 300)), ("china", None, (640, 960)), ("china", None, (57, 31)),
                ("1x1", (1, 1, 3), (5, 7)), ("1x9", (1, 9, 1), (3, 4)), ("7x1", (7, 1, 4), (2, 9)),
                ("13x17", (13, 17, 3), (6, 5)), ("5x3", (5, 3, 1), (17, 11)),
                ("odd", (37, 53, 3), (101, 19)), ("china", None, (107, 160)), ("china", None, (100, 64)),
                ("odd", (37, 53, 3), (12, 13))]


def resize_tests(tmp):
    tests = []
    for name, shape, (oh, ow) in RESIZE_CASES:
        for interp in CV:
            def t(name=name, shape=shape, oh=oh, ow=ow, interp=interp):
                img = china() if shape is None else odd_image(*shape, seed=oh * 31 + ow)
                src, dst = os.path.join(tmp, "r_in.npy"), os.path.join(tmp, "r_out.npy")
                np.save(src, img)
                probe("resize", src, dst, oh, ow, interp)
                ours = np.load(dst).astype(np.int32)
                ref = cv2.resize(img, (ow, oh), interpolation=CV[interp])
                ref = ref.reshape(oh, ow, -1).astype(np.int32)
                diff = int(np.abs(ours - ref).max())
                note("resize %s max |diff| vs cv2" % interp, diff)
                limit = 0 if interp == "nearest" else 1
                if diff > limit:
                    raise Failure("max |diff| %d > %d (%d of %d values differ)" %
                                  (diff, limit, int((ours != ref).sum()), ref.size))
            tests.append(("resize_%s_%s_to_%dx%d" % (interp, name, oh, ow), t))
    return tests


# ==== >>pipeline ====
def as_format(bgr, fmt):
    if fmt == "bgr":
        return bgr
    if fmt == "rgb":
        return np.ascontiguousarray(bgr[..., ::-1])
    if fmt == "bgra":
        return np.ascontiguousarray(np.concatenate([bgr, np.full(bgr.shape[:2] + (1,), 200, np.uint8)], 2))
    if fmt in ("nv12", "nv21"):
        # OpenCV makes I420; NV12 interleaves its U and V planes, NV21 its V and U.
        h, w = bgr.shape[:2]
        i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420).reshape(-1)
        u, v = i420[h * w:h * w + h * w // 4], i420[h * w + h * w // 4:]
        uv = np.stack([u, v] if fmt == "nv12" else [v, u], 1).reshape(h // 2, w)
        return np.ascontiguousarray(np.concatenate([i420[:h * w].reshape(h, w), uv], 0)[..., None])
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)[..., None]


def preprocess_tests(tmp):
    tests = []
    # simcc's preprocess is pose's.
    for kind in [k for k in gen.TASKS if k != "simcc"]:
        for img_name, fmt in (("china", "bgr"), ("china", "rgb"), ("china", "bgra"), ("china", "gray"),
                              ("china", "nv12"), ("china", "nv21"), ("odd37x53", "bgr"), ("1x1", "bgr")):
            def t(kind=kind, img_name=img_name, fmt=fmt):
                bgr = china() if img_name == "china" else \
                    odd_image(37, 53, 3, 5) if img_name == "odd37x53" else odd_image(1, 1, 3, 6)
                if fmt in ("nv12", "nv21"):
                    bgr = np.ascontiguousarray(bgr[:bgr.shape[0] // 2 * 2, :bgr.shape[1] // 2 * 2])
                img = as_format(bgr, fmt)
                # The SDK's LoadImageFromFile makes every format BGR; gray becomes three equal
                # channels, as OpenCV's GRAY2BGR does.
                # A grayscale pipeline reads NV12 / NV21 as their Y plane (OpenCV's YUV2GRAY).
                gray_load = gen.TASKS[kind]["transforms"][0].get("color_type") == "grayscale"
                ref_in = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if fmt == "gray" else \
                    cv2.cvtColor(np.ascontiguousarray(img[:bgr.shape[0], :, 0]), cv2.COLOR_GRAY2BGR) \
                    if fmt in ("nv12", "nv21") and gray_load else \
                    cv2.cvtColor(img[..., 0], cv2.COLOR_YUV2BGR_NV12 if fmt == "nv12" else cv2.COLOR_YUV2BGR_NV21) \
                    if fmt in ("nv12", "nv21") else bgr
                src, dst = os.path.join(tmp, "p_in.npy"), os.path.join(tmp, "p_out.npy")
                np.save(src, img)
                meta = json.loads(probe("preprocess", os.path.join(MODELS, kind), src, fmt, dst).stdout)
                ours = np.load(dst)
                ref, ref_meta = gen.preprocess(kind, ref_in)
                if ours.shape != ref.shape:
                    raise Failure("tensor %s, expected %s" % (ours.shape, ref.shape))
                diff = float(np.abs(ours - ref).max())
                note("preprocess %s max |diff| (normalised units)" % kind, diff)
                # One 8-bit step of the resize, divided by the smallest std.
                if diff > 1.0 / min(gen.STD) + 1e-5:
                    raise Failure("max |diff| %g" % diff)
                if meta["ori_shape"] != ref_meta["ori_shape"]:
                    raise Failure("ori_shape %s, expected %s" % (meta["ori_shape"], ref_meta["ori_shape"]))
                if not np.allclose(meta["scale_factor"], ref_meta["scale_factor"], rtol=1e-6):
                    raise Failure("scale_factor %s, expected %s" % (meta["scale_factor"], ref_meta["scale_factor"]))
                if meta["pad_param"] != ref_meta["pad_param"]:
                    raise Failure("pad_param %s, expected %s" % (meta["pad_param"], ref_meta["pad_param"]))
                if meta["pad_shape"][1:3] != list(ours.shape[2:]):
                    raise Failure("pad_shape %s for a tensor %s" % (meta["pad_shape"], ours.shape))
            tests.append(("preprocess_%s_%s_%s" % (kind, img_name, fmt), t))

    # TopDownAffine around boxes (inside, across the border, tiny, far outside) against
    # cv2.warpAffine on the matrix MMDeploy builds, on a photo and on noise (whose sharp
    # edges show any difference in where a pixel is sampled).
    for img_name in ("china", "noise"):
        for box in ((100.5, 50, 300, 400), (-20, -30, 50.25, 40), (10, 10, 11, 12), (600, 400, 900, 700)):
            def t(img_name=img_name, box=box):
                bgr = china() if img_name == "china" else odd_image(120, 90, 3, 7)
                src, dst = os.path.join(tmp, "w_in.npy"), os.path.join(tmp, "w_out.npy")
                np.save(src, bgr)
                meta = json.loads(probe("preprocess", os.path.join(MODELS, "pose"), src, "bgr", dst, *box).stdout)
                ours = np.load(dst)
                ref, ref_meta = gen.preprocess("pose", bgr, box)
                diff = float((np.abs(ours - ref) * np.array(gen.STD, np.float32)[:, None, None]).max())
                note("TopDownAffine max |diff| vs cv2.warpAffine (8-bit steps)", diff)
                if diff > 1.0 + 1e-3:
                    raise Failure("max |diff| %g 8-bit steps" % diff)
                if not (np.array_equal(np.float32(meta["center"]), np.float32(ref_meta["center"])) and
                        np.array_equal(np.float32(meta["scale"]), np.float32(ref_meta["scale"]))):
                    raise Failure("center %s scale %s, expected %s %s" % (meta["center"], meta["scale"],
                                                                         ref_meta["center"], ref_meta["scale"]))
            tests.append(("preprocess_pose_box_%s_%s" % (img_name, "_".join(map(str, box))), t))
    return tests


def e2e_tests(tmp):
    def classify(img_name, bgr):
        src = os.path.join(tmp, "c_in.npy")
        np.save(src, bgr)
        ours = json.loads(probe("classify", os.path.join(MODELS, "cls"), src, "bgr").stdout)
        ref, scores = gen.reference("cls", bgr)
        if len(ours) != len(ref):
            raise Failure("%d results, expected %d" % (len(ours), len(ref)))
        srt = np.sort(scores)[::-1]
        for k, ((lab, s), (rlab, rs)) in enumerate(zip(ours, ref)):
            note("classify |score diff|", abs(s - rs))
            if abs(s - rs) > 1e-3:
                raise Failure("score %d: %g, expected %g" % (k, s, rs))
            # Labels must agree unless the reference itself cannot separate the neighbours.
            tied = min(abs(srt[k] - srt[k + 1]), abs(srt[k] - srt[k - 1]) if k else 1.0) < 1e-6
            if lab != rlab and not tied:
                raise Failure("label %d: %d, expected %d" % (k, lab, rlab))

    def detect(img_name, bgr, kind="det"):
        src, x = os.path.join(tmp, "d_in.npy"), None
        np.save(src, bgr)
        ours = json.loads(probe("detect", os.path.join(MODELS, kind), src, "bgr").stdout)
        if kind == "det":
            # Behind NMS, a 1/255 difference of the resized input (the preprocess tests bound
            # it) can flip which of two near-equal overlapping boxes survives: the reference
            # runs the network on our input, so that the network, the NMS tail and ResizeBBox
            # are compared exactly. The yolo directory (no NMS) is compared end to end.
            probe("preprocess", os.path.join(MODELS, kind), src, "bgr", os.path.join(tmp, "d_x.npy"))
            x = np.load(os.path.join(tmp, "d_x.npy"))
        ref, _ = gen.reference(kind, bgr, x)
        if len(ours) != len(ref):
            raise Failure("%d boxes, expected %d" % (len(ours), len(ref)))
        # Boxes whose scores are within 1e-3 may come in either order: each of ours is matched
        # to a reference box of the same label, score within 1e-3 and corners within 1 px.
        left = list(ref)
        for o in ours:
            best = min(left, key=lambda r: (r[0] != o[0], abs(r[1] - o[1]) > 1e-3,
                                            float(np.abs(np.array(o[2:]) - np.array(r[2:])).max())))
            box = float(np.abs(np.array(o[2:]) - np.array(best[2:])).max())
            note("%s max |box diff| px" % kind, box)
            note("%s |score diff|" % kind, abs(o[1] - best[1]))
            if o[0] != best[0] or abs(o[1] - best[1]) > 1e-3 or box > 1.0:
                raise Failure("box %s, nearest expected %s" % (o, best))
            left.remove(best)

    def segment(img_name, bgr):
        src, dst = os.path.join(tmp, "s_in.npy"), os.path.join(tmp, "s_out.npy")
        np.save(src, bgr)
        probe("segment", os.path.join(MODELS, "seg"), src, "bgr", dst)
        ours = np.load(dst)
        ref, _ = gen.reference("seg", bgr)
        if ours.shape != ref.shape:
            raise Failure("mask %s, expected %s" % (ours.shape, ref.shape))
        agree = float((ours == ref).mean())
        REPORT["segment pixel agreement (min)"] = min(REPORT.get("segment pixel agreement (min)", 1.0), agree)
        if agree < 0.995:
            raise Failure("%.4f of pixels agree" % agree)

    def pose(kind, bgr, boxes):
        src = os.path.join(tmp, "k_in.npy")
        np.save(src, bgr)
        ours = json.loads(probe("pose", os.path.join(MODELS, kind), src, "bgr", *[v for b in boxes for v in b]).stdout)
        if len(ours) != max(len(boxes), 1):
            raise Failure("%d poses for %d boxes" % (len(ours), len(boxes)))
        for o, box in zip(ours, boxes or [None]):
            ref, _ = gen.reference(kind, bgr, bbox=box)
            o, ref = np.array(o), np.array(ref)
            if o.shape != ref.shape:
                raise Failure("keypoints %s, expected %s" % (o.shape, ref.shape))
            px, sc = float(np.abs(o[:, :2] - ref[:, :2]).max()), float(np.abs(o[:, 2] - ref[:, 2]).max())
            note("%s max |keypoint diff| px" % kind, px)
            note("%s max |score diff|" % kind, sc)
            if px > 1.0 or sc > 1e-3:
                raise Failure("keypoints off by %g px, scores by %g" % (px, sc))

    def recognize(img_name, bgr):
        src = os.path.join(tmp, "r_in.npy")
        np.save(src, bgr)
        ours = json.loads(probe("recognize", os.path.join(MODELS, "rec"), src, "bgr").stdout)
        # The text end to end; the scores with the network on our input (the rescale is
        # within 1 of OpenCV's: the preprocess tests bound it), where they are exact.
        text, _ = gen.reference("rec", bgr)
        if ours["text"] != text:
            raise Failure("text %r, expected %r" % (ours["text"], text))
        probe("preprocess", os.path.join(MODELS, "rec"), src, "bgr", os.path.join(tmp, "r_x.npy"))
        text, scores = gen.reference("rec", bgr, np.load(os.path.join(tmp, "r_x.npy")))
        if ours["text"] != text or len(ours["score"]) != len(scores):
            raise Failure("text %r (%d scores), on our input expected %r" % (ours["text"], len(ours["score"]), text))
        diff = float(np.abs(np.array(ours["score"]) - np.array(scores)).max()) if scores else 0.0
        note("rec max |score diff|", diff)
        if diff > 1e-3:
            raise Failure("scores off by %g" % diff)

    def text_detect(bgr, params=None, d=None):
        src, xp = os.path.join(tmp, "t_in.npy"), os.path.join(tmp, "t_x.npy")
        np.save(src, bgr)
        d = d or os.path.join(MODELS, "textdet")
        ours = json.loads(probe("textdet", d, src, "bgr").stdout)
        # As for the detector: the network runs on our input (the resize is within 1 of
        # OpenCV's), so that the map is the same and DBHead is compared exactly.
        probe("preprocess", d, src, "bgr", xp)
        _, meta = gen.preprocess("textdet", bgr)
        with __import__("torch").no_grad():
            prob = gen.network("textdet")(__import__("torch").from_numpy(np.load(xp)))[0].numpy()
        ref = gen.db_head(prob, meta, params if params is not None else gen.TASKS["textdet"]["params"])
        if len(ours) != len(ref):
            raise Failure("%d boxes, expected %d: %s vs %s" % (len(ours), len(ref), ours, ref))
        for k, (o, r) in enumerate(zip(ours, ref)):
            # The same corners, clockwise; the first may be another one (OpenCV's calipers
            # start where its hull starts).
            oc, rc = np.array(o[1:]).reshape(4, 2), np.array(r[1:]).reshape(4, 2)
            px = min(float(np.abs(np.roll(oc, s, 0) - rc).max()) for s in range(4))
            REPORT["textdet boxes whose corners start elsewhere"] = \
                REPORT.get("textdet boxes whose corners start elsewhere", 0) + int(float(np.abs(oc - rc).max()) > 1.0)
            REPORT["textdet boxes compared"] = REPORT.get("textdet boxes compared", 0) + 1
            note("textdet max |corner diff| px", px)
            note("textdet |score diff|", abs(o[0] - r[0]))
            if px > 1.0 or abs(o[0] - r[0]) > 1e-3:
                raise Failure("box %d: %s, expected %s" % (k, o, r))
        return ours

    def read_boxes(bgr):
        src = os.path.join(tmp, "o_in.npy")
        np.save(src, bgr)
        boxes = text_detect(bgr)
        if not boxes:
            raise Failure("no text boxes")
        ours = json.loads(probe("recbox", os.path.join(MODELS, "rec"), src, "bgr", *[v for b in boxes for v in b[1:]]).stdout)
        if len(ours) != len(boxes):
            raise Failure("%d texts for %d boxes" % (len(ours), len(boxes)))
        for o, b in zip(ours, boxes):
            text, _ = gen.reference("rec", gen.warp_bbox(bgr, b[1:]))
            if o["text"] != text:
                raise Failure("box %s: text %r, expected %r" % (b[1:], o["text"], text))

    tests = []
    for img_name, make in (("text", gen.text_image), ("text_flipped", lambda: np.ascontiguousarray(gen.text_image()[::-1])),
                           ("china", china), ("odd37x53", lambda: odd_image(37, 53, 3, 5)),
                           ("1x1", lambda: odd_image(1, 1, 3, 6))):
        tests.append(("text_detect_%s" % img_name, lambda m=make: text_detect(m())))
    tests.append(("text_recognize_boxes", lambda: read_boxes(gen.text_image())))

    # Hostile maps: a network that passes the normalised blue channel through as the map, on
    # 640 x 480 pictures (no resize): single pixels in a checkerboard (one 8-connected region
    # full of holes), noise, one-pixel lines, the whole map, so that the border following,
    # holes and all, meets OpenCV's on shapes no text makes.
    def raw_map(pattern):
        import torch

        class Blue(torch.nn.Module):
            def forward(self, x):
                return x[:, 0]
        d = os.path.join(tmp, "textdet_raw")
        if not os.path.exists(os.path.join(d, "end2end.onnx")):
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, "textdet"), d)
            torch.onnx.export(Blue(), torch.zeros(1, 3, 480, 640), os.path.join(d, "end2end.onnx"), input_names=["input"],
                              output_names=["output"], dynamic_axes={"input": {2: "h", 3: "w"}}, opset_version=11)
        rng = np.random.default_rng(11)
        yy, xx = np.mgrid[:480, :640]
        on = {"checkerboard": (yy + xx) % 2 == 0, "noise": rng.random((480, 640)) < 0.5,
              "lines": (yy % 3 == 0) | (xx % 7 == 0), "whole": np.ones((480, 640), bool),
              "rings": (np.hypot(yy - 240, xx - 320).astype(int) % 6) < 2}[pattern]
        bgr = np.zeros((480, 640, 3), np.uint8)
        bgr[on] = 255
        src = os.path.join(tmp, "m_in.npy")
        np.save(src, bgr)
        ours = json.loads(probe("textdet", d, src, "bgr").stdout)
        _, meta = gen.preprocess("textdet", bgr)
        x, _ = gen.preprocess("textdet", bgr)
        ref = gen.db_head(np.ascontiguousarray(x[0, 0]), meta, {})
        note("textdet raw maps: most boxes", len(ref))
        if len(ours) != len(ref):
            raise Failure("%d boxes, expected %d" % (len(ours), len(ref)))
        # Noise makes self-crossing polygons, whose offset Clipper unites with positive
        # winding; the SDK boxes all of the offset's vertices (mmdeploy_sdk.h says so), so
        # there a few boxes may come out larger.
        off = []
        for o, r in zip(ours, ref):
            oc, rc = np.array(o[1:]).reshape(4, 2), np.array(r[1:]).reshape(4, 2)
            if abs(o[0] - r[0]) > 1e-3:
                raise Failure("score %s, expected %s" % (o, r))
            if min(float(np.abs(np.roll(oc, s, 0) - rc).max()) for s in range(4)) > 1.0:
                off.append((o, r))
        note("textdet raw map %s: boxes unlike OpenCV's (of %d)" % (pattern, len(ref)), len(off))
        if len(off) > (len(ref) // 100 if pattern == "noise" else 0):
            raise Failure("%d boxes differ, as %s from %s" % (len(off), off[0][0], off[0][1]))
    for pattern in ("checkerboard", "noise", "lines", "whole", "rings"):
        tests.append(("text_detect_raw_map_" + pattern, lambda p=pattern: raw_map(p)))
    # DBHead's params, edited in a copy of the directory: each against the reference with them.
    for name, params in (("unclip_0", dict(unclip_ratio=0)), ("unclip_3", dict(unclip_ratio=3.0)),
                         ("mask_thr_0.6", dict(mask_thr=0.6)), ("mask_thr_-1_whole_map", dict(mask_thr=-1)),
                         ("mask_thr_2_nothing", dict(mask_thr=2)), ("max_candidate_0", dict(max_candidate=0)),
                         ("max_candidate_3", dict(max_candidate=3)), ("max_candidates_1e9", dict(max_candidates=10 ** 9)),
                         ("min_text_score_0.9", dict(min_text_score=0.9)), ("min_text_width_30", dict(min_text_width=30)),
                         ("no_rescale", dict(rescale=False)), ("downsample_2", dict(downsample_ratio=2.0)),
                         ("poly", dict(text_repr_type="poly"))):
        def t(name=name, params=params):
            d = os.path.join(tmp, "textdet_" + name)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, "textdet"), d)
            edit_json(os.path.join(d, "pipeline.json"), lambda o: o["pipeline"]["tasks"][2]["params"].update(params))
            text_detect(gen.text_image(), params, d)
        tests.append(("text_detect_params_" + name, t))
    for img_name, make in (("china", china), ("odd37x53", lambda: odd_image(37, 53, 3, 5)),
                           ("1x1", lambda: odd_image(1, 1, 3, 6)), ("line20x300", lambda: odd_image(20, 300, 3, 7))):
        tests.append(("recognize_%s" % img_name, lambda n=img_name, m=make: recognize(n, m())))
    for kind in ("pose", "simcc"):
        for img_name, make, boxes in (("china", china, []), ("china_2boxes", china, [(100.5, 50, 300, 400),
                                                                                      (-20, -30, 250.25, 140)]),
                                      ("odd37x53", lambda: odd_image(37, 53, 3, 5), []),
                                      ("1x1", lambda: odd_image(1, 1, 3, 6), [])):
            tests.append(("%s_%s" % (kind, img_name), lambda k=kind, m=make, b=boxes: pose(k, m(), b)))
    for img_name, make in (("china", china), ("odd37x53", lambda: odd_image(37, 53, 3, 5)),
                           ("1x1", lambda: odd_image(1, 1, 3, 6))):
        def detect_yolo(img_name, bgr):
            detect(img_name, bgr, "yolo")
        for fn in (classify, detect, detect_yolo, segment):
            tests.append(("%s_%s" % (fn.__name__, img_name), lambda fn=fn, n=img_name, m=make: fn(n, m())))
    return tests


# ==== >>instance masks ====

def instance_mask_tests(tmp):
    """ResizeInstanceMask (mask: Mask R-CNN's RoI masks; maskfull: RTMDet-Ins's whole-input
    masks) against gen_sdk_models.instance_masks (OpenCV as MMDeploy's C++ calls it) on the
    network's output for our input: boxes within 1 px, labels equal, each pasted mask equal on
    at least 99.5% of the image and on at least 99% of the pixels either mask covers; then
    hostile directories and networks."""
    import torch
    tests = []
    src, dst, xin = (os.path.join(tmp, n) for n in ("im_in.npy", "im_masks.npy", "im_x.npy"))

    def compare(kind, bgr, d=None, params=None):
        d = d or os.path.join(MODELS, kind)
        np.save(src, bgr)
        ours = json.loads(probe("detect", d, src, "bgr", dst).stdout)
        masks = np.load(dst)
        probe("preprocess", d, src, "bgr", xin)
        _, meta = gen.preprocess(kind, bgr)
        with torch.no_grad():
            out = gen.network(kind)(torch.from_numpy(np.load(xin)))
        ref, ref_masks = gen.instance_masks(kind, out, meta, params)
        if len(ours) != len(ref):
            raise Failure("%d detections, expected %d" % (len(ours), len(ref)))
        for k, (o, r) in enumerate(zip(ours, ref)):
            box = float(np.abs(np.array(o[2:]) - np.array(r[2:])).max())
            note("%s max |box diff| px" % kind, box)
            if o[0] != r[0] or abs(o[1] - r[1]) > 1e-3 or box > 1.0:
                raise Failure("detection %d: %s, expected %s" % (k, o, r))
            differ = int((masks[k] != ref_masks[k]).sum())
            either = int(((masks[k] > 0) | (ref_masks[k] > 0)).sum())
            note("%s mask pixels differing (of the image)" % kind, differ / masks[k].size)
            note("%s mask pixels differing (of either mask)" % kind, differ / max(either, 1))
            if differ > 0.005 * masks[k].size or differ > 0.01 * max(either, 1):
                raise Failure("mask %d: %d pixels differ (%d in either mask)" % (k, differ, either))
        return ours, masks

    images = (("china", china), ("odd37x53", lambda: odd_image(37, 53, 3, 5)), ("1x1", lambda: odd_image(1, 1, 3, 6)),
              ("tall300x41", lambda: odd_image(300, 41, 3, 8)))
    for kind in ("mask", "maskfull"):
        for img_name, make in images:
            tests.append(("instance_%s_%s" % (kind, img_name), lambda k=kind, m=make: compare(k, m())))

    def masks_present():
        ours, masks = compare("mask", china())
        if not ours or (masks > 0).sum() == 0:
            raise Failure("no detections or empty masks: the comparison would prove nothing")
    tests.append(("instance_mask_masks_present", masks_present))

    # Edited params: the threshold moves the masks; params without "rcnn" read RoI masks as
    # whole-input ones (MMDeploy's rule), which the reference follows too.
    for kind, name, edit in (("mask", "thr_0.9", dict(mask_thr_binary=0.9)), ("mask", "thr_0", dict(mask_thr_binary=0.0)),
                             ("maskfull", "thr_0.2", dict(mask_thr_binary=0.2)),
                             ("mask", "score_thr_0.855", dict(score_thr=0.855)),
                             ("mask", "no_resize", dict(is_resize_mask=False))):
        def t(kind=kind, name=name, edit=edit):
            d = os.path.join(tmp, "instance_%s_%s" % (kind, name))
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, kind), d)
            edit_json(os.path.join(d, "pipeline.json"), lambda o: o["pipeline"]["tasks"][2]["params"].update(edit))
            params = dict(gen.TASKS[kind]["params"], **edit)
            compare(kind, china(), d, params)
        tests.append(("instance_%s_params_%s" % (kind, name), t))

    # Hostile pipelines: name, params edit, component, status, words of the message.
    for name, edit, component, status, words in (
            ("thr_nan", dict(mask_thr_binary=float("nan")), None, "INVALID_ARG", "not valid JSON"),
            ("thr_string", dict(mask_thr_binary="0.5"), None, "INVALID_ARG", "mask_thr_binary"),
            ("thr_huge", dict(mask_thr_binary=1e300), None, "INVALID_ARG", "mask_thr_binary"),
            ("is_resize_mask_number", dict(is_resize_mask=2), None, "INVALID_ARG", "is_resize_mask"),
            ("resize_bbox_with_thr", {}, "ResizeBBox", "NOT_SUPPORTED", "ResizeInstanceMask")):
        def t(name=name, edit=edit, component=component, status=status, words=words):
            d = os.path.join(tmp, "hostile_instance_" + name)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, "mask"), d)
            edit_json(os.path.join(d, "pipeline.json"),
                      lambda o: (o["pipeline"]["tasks"][2]["params"].update(edit),
                                 o["pipeline"]["tasks"][2].update(component=component or "ResizeInstanceMask")))
            np.save(src, odd_image(30, 20, 3, 1))
            p = probe("detect", d, src, "bgr", expect=STATUS[status])
            if words not in p.stderr:
                raise Failure("message %r does not name %r" % (p.stderr.strip(), words))
        tests.append(("hostile_instance_" + name, t))

    # Networks whose masks do not fit: one mask too few, no batch axis, int masks, no masks.
    class Wrong(torch.nn.Module):
        def __init__(self, how):
            super().__init__()
            self.net, self.how = gen.network("mask"), how

        def forward(self, x):
            dets, labels, masks = self.net(x)
            return (dets, labels) + {"too_few": (masks[:, 1:],), "rank3": (masks[0],),
                                     "int": (masks.to(torch.int32),), "none": ()}[self.how]
    for how in ("too_few", "rank3", "int", "none"):
        def t(how=how):
            d = os.path.join(tmp, "hostile_instance_masks_" + how)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, "mask"), d)
            names = ["dets", "labels"] + (["masks"] if how != "none" else [])
            # The tracer warns about the detector's sizes and top-k, as gen_sdk_models.py says.
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(Wrong(how), torch.zeros(1, 3, 64, 64), os.path.join(d, "end2end.onnx"),
                                  input_names=["input"], output_names=names,
                                  dynamic_axes={"input": {2: "h", 3: "w"}}, opset_version=11)
            np.save(src, odd_image(60, 50, 3, 1))
            p = probe("detect", d, src, "bgr", expect=STATUS["NOT_SUPPORTED"])
            if "masks" not in p.stderr:
                raise Failure("message %r does not name 'masks'" % p.stderr.strip())
        tests.append(("hostile_instance_masks_" + how, t))

    # labels [0, N] beside dets [1, N, 5]: N matches, but there is no row of labels to read.
    class NoLabelRows(torch.nn.Module):
        def forward(self, x):
            dets = torch.tensor([[[10.0, 20.0, 30.0, 40.0, 0.9]] * 2]) + 0 * x.mean()
            return dets, torch.zeros(0, 2, dtype=torch.int64)

    def detector_labels_0_rows():
        d = os.path.join(tmp, "hostile_detector_labels_0_rows")
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(MODELS, "det"), d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(NoLabelRows(), torch.zeros(1, 3, 64, 64), os.path.join(d, "end2end.onnx"),
                              input_names=["input"], output_names=["dets", "labels"],
                              dynamic_axes={"input": {2: "h", 3: "w"}}, opset_version=11)
        np.save(src, odd_image(60, 50, 3, 1))
        p = probe("detect", d, src, "bgr", expect=STATUS["NOT_SUPPORTED"])
        if "labels [1, N]" not in p.stderr:
            raise Failure("message %r" % p.stderr.strip())
    tests.append(("hostile_detector_labels_0_rows", detector_labels_0_rows))

    # The demos on these directories: object_detection ORs the masks into the blue channel,
    # image_segmentation blends the classes' colours halfway into the image.
    def run_demo(prog, *args):
        p = subprocess.run([os.path.join(os.path.dirname(PROBE), prog)] + list(args), capture_output=True, text=True,
                           timeout=300)
        if p.returncode != 0:
            raise Failure("%s exited %d: %s" % (prog, p.returncode, p.stderr.strip()[-300:]))
        return p.stdout.splitlines()

    def detection_masks(kind):
        img, out = os.path.join(tmp, "china.png"), os.path.join(tmp, "det_%s.png" % kind)
        bgr = china()
        cv2.imwrite(img, bgr)
        lines = run_demo("object_detection", "cpu", os.path.join(MODELS, kind), img, out)
        ref, ref_masks = compare(kind, bgr)
        shapes = [ln for ln in lines if ln.startswith("mask ")]
        if lines[0] != "bbox_count=%d" % len(ref) or len(shapes) != len(ref):
            raise Failure("%s and %d masks, expected %d" % (lines[0], len(shapes), len(ref)))
        pic = cv2.imread(out)
        # Boxes and labels are drawn over the masks in green and black; elsewhere the blue
        # channel is the image's ORed with every mask.
        drawn = np.all((pic == (0, 255, 0)) | (pic == 0), axis=2)
        want = bgr[..., 0] | np.bitwise_or.reduce(ref_masks, axis=0)
        bad = int(((pic[..., 0] != want) & ~drawn).sum())
        note("demo %s: blue pixels unlike the masks" % kind, bad)
        if pic.shape != bgr.shape or bad:
            raise Failure("picture %s, %d blue pixels unlike the image ORed with the masks" % (pic.shape, bad))
    for kind in ("mask", "maskfull"):
        tests.append(("demo_object_detection_" + kind, lambda k=kind: detection_masks(k)))

    def segmentation():
        img, out = os.path.join(tmp, "china.png"), os.path.join(tmp, "seg.png")
        bgr = china()
        cv2.imwrite(img, bgr)
        lines = run_demo("image_segmentation", "cpu", os.path.join(MODELS, "seg"), img, out)
        ref, _ = gen.reference("seg", bgr)
        want = ["class %d: %d pixels" % (k, n) for k, n in enumerate(np.bincount(ref.ravel(), minlength=5)) if n]
        h = (np.arange(6, dtype=np.uint64) * 2654435761 + 0x9e3779b9) & 0xffffffff
        palette = np.stack([(h >> 24) & 255, (h >> 16) & 255, (h >> 8) & 255], 1).astype(np.int32)
        blend = ((bgr.astype(np.int32) + palette[ref] + 1) // 2).astype(np.uint8)
        pic = cv2.imread(out)
        # The segmentation tests allow 0.5% of labels to differ; so does the picture.
        differ = float(np.any(pic != blend, axis=2).mean())
        note("demo segmentation: pixels unlike the blend", differ)
        if len(lines) != len(want) or differ > 0.005:
            raise Failure("%r, expected %r; %.4f of the picture unlike the blend" % (lines, want, differ))
    tests.append(("demo_image_segmentation", segmentation))
    return tests


# ==== >>hostile model directories ====
def edit_json(path, fn):
    with open(path) as f:
        obj = json.load(f)
    fn(obj)
    with open(path, "w") as f:
        json.dump(obj, f)


def transforms(obj):
    return obj["pipeline"]["tasks"][0]["transforms"]


HOSTILE = [
    # name, file, edit, expected status, words the message must hold
    ("missing_deploy_json", "deploy.json", None, "FILE_NOT_EXIST", "deploy.json"),
    ("pipeline_not_json", "pipeline.json", b"{\"pipeline\": [", "INVALID_ARG", "not valid JSON"),
    ("unknown_transform", "pipeline.json",
     lambda o: transforms(o).insert(2, {"type": "RandomSolarize"}), "NOT_SUPPORTED", "RandomSolarize"),
    ("unknown_component", "pipeline.json",
     lambda o: o["pipeline"]["tasks"][2].update(component="MultiLabelLinearClsHead"), "NOT_SUPPORTED",
     "MultiLabelLinearClsHead"),
    ("resize_size_huge", "pipeline.json", lambda o: transforms(o)[1].update(size=[1e9, -1]), "INVALID_ARG",
     "size"),
    ("resize_size_string", "pipeline.json", lambda o: transforms(o)[1].update(size="big"), "INVALID_ARG",
     "size"),
    ("resize_size_fraction", "pipeline.json", lambda o: transforms(o)[1].update(size=[2.5, -1]), "INVALID_ARG",
     "2.5"),
    ("resize_interp_lanczos", "pipeline.json", lambda o: transforms(o)[1].update(interpolation="lanczos"),
     "NOT_SUPPORTED", "lanczos"),
    ("crop_size_past_limit", "pipeline.json", lambda o: transforms(o)[2].update(crop_size=100000),
     "INVALID_ARG", "crop_size"),
    ("normalize_std_zero", "pipeline.json", lambda o: transforms(o)[3].update(std=[1, 0, 1]), "INVALID_ARG",
     "std[1]"),
    ("normalize_mean_nan", "pipeline.json", None, "INVALID_ARG", "pipeline.json is not valid JSON"),
    ("transforms_not_list", "pipeline.json", lambda o: o["pipeline"]["tasks"][0].update(transforms=7),
     "INVALID_ARG", "transforms"),
    ("topk_negative", "pipeline.json", lambda o: o["pipeline"]["tasks"][2]["params"].update(topk=-3),
     "INVALID_ARG", "topk"),
    ("net_outside_directory", "deploy.json", lambda o: o["models"][0].update(net="../end2end.onnx"),
     "INVALID_ARG", "../end2end.onnx"),
    ("backend_tensorrt", "deploy.json", lambda o: o["models"][0].update(backend="tensorrt"), "NOT_SUPPORTED",
     "tensorrt"),
    ("task_text_detector", "deploy.json", lambda o: o.update(task="TextDetector"), "INVALID_ARG", "does not match"),
    ("task_rotated_detector", "deploy.json", lambda o: o.update(task="RotatedDetector"), "INVALID_ARG",
     "does not match"),
    ("task_video_recognizer", "deploy.json", lambda o: o.update(task="VideoRecognizer"), "NOT_SUPPORTED",
     "VideoRecognizer"),
    ("deploy_json_huge", "deploy.json", b" " * (1 << 21), "OUT_OF_RANGE", "larger than"),
    ("net_garbage", "end2end.onnx", b"\x0a\xff\xff\xff\xff\x0f", "FAIL", "malformed"),
    ("input_map_wrong", "pipeline.json", lambda o: o["pipeline"]["tasks"][1]["input_map"].update(img="pixels"),
     "INVALID_ARG", "pixels"),
]


# Pose directories: name, file, edit, boxes, expected status, words the message must hold.
HOSTILE_POSE = [
    ("affine_no_image_size", "pipeline.json", lambda o: transforms(o)[2].pop("image_size"), [], "INVALID_ARG",
     "image_size"),
    ("affine_image_size_huge", "pipeline.json", lambda o: transforms(o)[2].update(image_size=[192, 1 << 30]), [],
     "INVALID_ARG", "image_size"),
    ("padding_negative", "pipeline.json", lambda o: transforms(o)[1].update(padding=-1), [], "INVALID_ARG",
     "padding"),
    ("post_process_unbiased", "pipeline.json",
     lambda o: o["pipeline"]["tasks"][2]["params"].update(post_process="unbiased"), [], "NOT_SUPPORTED", "unbiased"),
    ("heatmap_udp", "pipeline.json", lambda o: o["pipeline"]["tasks"][2]["params"].update(use_udp=True), [],
     "NOT_SUPPORTED", "use_udp"),
    ("box_empty", None, None, [(50, 50, 10, 60)], "INVALID_ARG", "empty"),
    ("box_nan", None, None, [(float("nan"), 0, 10, 10)], "INVALID_ARG", "nan"),
    ("box_huge", None, None, [(-1e35, -1e35, 1e35, 1e35)], "INVALID_ARG", "not finite"),
    ("box_far_outside", None, None, [(1e9, 1e9, 1e9 + 50, 1e9 + 80)], "SUCCESS", ""),
    ("net_output_not_heatmap", "pipeline.json",
     lambda o: o["pipeline"]["tasks"][2].update(component="SimCCLabelDecode"), [], "NOT_SUPPORTED", "simcc_x"),
]


# Text recognition directories: name, file, edit (bytes: the file's new content), expected
# status, words the message must hold.
HOSTILE_REC = [
    ("dict_file_missing", "dict_file.txt", None, "FILE_NOT_EXIST", "dict_file.txt"),
    ("dict_too_small", "dict_file.txt", b"a\nb\nc\n", "INVALID_ARG", "37 classes"),
    ("dict_outside_directory", "pipeline.json",
     lambda o: o["pipeline"]["tasks"][2]["params"].update(dict_file="../dict_file.txt"), "INVALID_ARG",
     "../dict_file.txt"),
    ("dict_type_unknown", "pipeline.json",
     lambda o: (o["pipeline"]["tasks"][2]["params"].pop("dict_file"),
                o["pipeline"]["tasks"][2]["params"].update(dict_type="DICT1000")), "NOT_SUPPORTED", "DICT1000"),
    ("dict_none", "pipeline.json", lambda o: o["pipeline"]["tasks"][2]["params"].pop("dict_file"), "INVALID_ARG",
     "dict_file"),
    ("dict_list_not_strings", "pipeline.json",
     lambda o: (o["pipeline"]["tasks"][2]["params"].pop("dict_file"),
                o["pipeline"]["tasks"][2]["params"].update(dict_list=["a", 7])), "INVALID_ARG", "dict_list"),
    ("dict_huge", "dict_file.txt", b"a\n" * (1 << 20), "OUT_OF_RANGE", "larger than"),
    ("height_missing", "pipeline.json", lambda o: transforms(o)[1].pop("height"), "INVALID_ARG", "height"),
    ("height_huge", "pipeline.json", lambda o: transforms(o)[1].update(height=1 << 20), "INVALID_ARG", "height"),
    ("width_divisor_rounds_to_0", "pipeline.json", lambda o: transforms(o)[1].update(min_width=None, width_divisor=4000),
     "OUT_OF_RANGE", "32 x 0"),
]


# Text detection directories: name, edit of DBHead's params, expected status, words the message
# must hold.
HOSTILE_TEXTDET = [
    ("mask_thr_nan_string", dict(mask_thr="NaN"), "INVALID_ARG", "mask_thr"),
    ("unclip_ratio_huge", dict(unclip_ratio=1e9), "INVALID_ARG", "unclip_ratio"),
    ("unclip_ratio_negative", dict(unclip_ratio=-1), "INVALID_ARG", "unclip_ratio"),
    ("max_candidates_negative", dict(max_candidates=-1), "INVALID_ARG", "max_candidates"),
    ("max_candidates_past_int", dict(max_candidate=1e12), "INVALID_ARG", "max_candidates"),
    ("min_text_width_string", dict(min_text_width="wide"), "INVALID_ARG", "min_text_width"),
    ("downsample_ratio_0", dict(downsample_ratio=0), "INVALID_ARG", "downsample_ratio"),
    ("text_repr_type_curve", dict(text_repr_type="curve"), "NOT_SUPPORTED", "curve"),
    ("rescale_string", dict(rescale="yes"), "INVALID_ARG", "rescale"),
]

# Text boxes handed to the recognizer: name, corners, expected status, words of the message.
HOSTILE_BOXES = [
    ("nan", [float("nan"), 0, 10, 0, 10, 10, 0, 10], "INVALID_ARG", "not finite"),
    ("huge", [0, 0, 1e30, 0, 1e30, 1e30, 0, 1e30], "INVALID_ARG", "past 1e9"),
    ("point", [5, 5, 5, 5, 5, 5, 5, 5], "INVALID_ARG", "under a pixel"),
    ("far_outside", [1e8, 1e8, 1e8 + 40, 1e8, 1e8 + 40, 1e8 + 20, 1e8, 1e8 + 20], "SUCCESS", ""),
    ("past_side_limit", [0, 0, 1e6, 0, 1e6, 40, 0, 40], "OUT_OF_RANGE", "warped image"),
]


def hostile_tests(tmp):
    tests = []
    img = os.path.join(tmp, "h_in.npy")

    # The same 36 characters as dict_type DICT36 and as dict_list give the dict_file's text.
    for name, params in (("dict_type", dict(dict_type="DICT36")), ("dict_list", dict(dict_list=list(gen.DICT36)))):
        def t(name=name, params=params):
            d = os.path.join(tmp, "rec_" + name)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, "rec"), d)
            os.remove(os.path.join(d, "dict_file.txt"))
            edit_json(os.path.join(d, "pipeline.json"), lambda o: (o["pipeline"]["tasks"][2]["params"].pop("dict_file"),
                                                                  o["pipeline"]["tasks"][2]["params"].update(params)))
            bgr = odd_image(20, 300, 3, 7)
            np.save(img, bgr)
            text = json.loads(probe("recognize", d, img, "bgr").stdout)["text"]
            if text != gen.reference("rec", bgr)[0]:
                raise Failure("text %r, expected %r" % (text, gen.reference("rec", bgr)[0]))
        tests.append(("recognize_%s" % name, t))

    for name, file, edit, boxes, status, words in HOSTILE_POSE:
        def t(name=name, file=file, edit=edit, boxes=boxes, status=status, words=words):
            d = os.path.join(tmp, "hostile_pose_" + name)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, "pose"), d)
            if file:
                edit_json(os.path.join(d, file), edit)
            np.save(img, odd_image(30, 20, 3, 1))
            p = probe("pose", d, img, "bgr", *[v for b in boxes for v in b], expect=STATUS[status])
            if words not in p.stderr:
                raise Failure("message %r does not name %r" % (p.stderr.strip(), words))
        tests.append(("hostile_pose_" + name, t))

    # Classification and text recognition directories, each case a copy with one file edited.
    cases = [("", "cls", "classify", (9, 9, 3)) + c for c in HOSTILE] + \
        [("rec_", "rec", "recognize", (9, 90, 3)) + c for c in HOSTILE_REC]
    for prefix, kind, cmd, shape, name, file, edit, status, words in cases:
        def t(prefix=prefix, kind=kind, cmd=cmd, shape=shape, name=name, file=file, edit=edit, status=status,
              words=words):
            d = os.path.join(tmp, "hostile_" + prefix + name)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, kind), d)
            path = os.path.join(d, file)
            if name == "normalize_mean_nan":
                # Python's json writes NaN, which is not JSON: cJSON refuses the file.
                edit_json(path, lambda o: transforms(o)[3].update(mean=[float("nan"), 0, 0]))
            elif edit is None:
                os.remove(path)
            elif isinstance(edit, bytes):
                with open(path, "wb") as f:
                    f.write(edit)
            else:
                edit_json(path, edit)
            np.save(img, odd_image(*shape, 1))
            p = probe(cmd, d, img, "bgr", expect=STATUS[status])
            if words not in p.stderr:
                raise Failure("message %r does not name %r" % (p.stderr.strip(), words))
        tests.append(("hostile_" + prefix + name, t))

    for name, params, status, words in HOSTILE_TEXTDET:
        def t(name=name, params=params, status=status, words=words):
            d = os.path.join(tmp, "hostile_textdet_" + name)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(os.path.join(MODELS, "textdet"), d)
            edit_json(os.path.join(d, "pipeline.json"), lambda o: o["pipeline"]["tasks"][2]["params"].update(params))
            np.save(img, odd_image(30, 20, 3, 1))
            p = probe("textdet", d, img, "bgr", expect=STATUS[status])
            if words not in p.stderr:
                raise Failure("message %r does not name %r" % (p.stderr.strip(), words))
        tests.append(("hostile_textdet_" + name, t))

    for name, box, status, words in HOSTILE_BOXES:
        def t(box=box, status=status, words=words):
            np.save(img, odd_image(30, 50, 3, 1))
            p = probe("recbox", os.path.join(MODELS, "rec"), img, "bgr", *box, expect=STATUS[status])
            if words not in p.stderr:
                raise Failure("message %r does not name %r" % (p.stderr.strip(), words))
        tests.append(("hostile_text_box_" + name, t))

    # Images that do not fit their pixel format: name, channels, format, words of the message.
    for name, channels, fmt, words in (("channels_do_not_match_format", 3, "bgra", "3 channels"),
                                       ("nv12_odd_sides", 1, "nv12", "6 x 9")):
        def t(channels=channels, fmt=fmt, words=words):
            np.save(img, odd_image(9, 9, channels, 1))
            p = probe("classify", os.path.join(MODELS, "cls"), img, fmt, expect=STATUS["INVALID_ARG"])
            if words not in p.stderr:
                raise Failure("message %r" % p.stderr)
        tests.append(("hostile_" + name, t))
    return tests


# ==== >>rotated detection ====
class ConstantRotated:
    """A network whose outputs are fixed dets [1, N, C] and labels [1, N] (float32), whatever its
    input: hostile values for ResizeRBBox."""

    def __new__(cls, dets, labels):
        import torch

        class Net(torch.nn.Module):
            def forward(self, x):
                zero = x.mean() * 0
                return (torch.from_numpy(np.asarray(dets, np.float32)) + zero,
                        torch.from_numpy(np.asarray(labels, np.float32)) + zero)
        return Net()


def rotated_tests(tmp):
    tests = []
    img = os.path.join(tmp, "r_in.npy")
    d0 = os.path.join(MODELS, "rotated")

    def compare(ours, ref):
        # Boxes whose scores are within 1e-3 may come in either order: each of ours is matched to
        # a reference box of the same label, score within 1e-3, centre and size within 1 px,
        # angle within 1e-4.
        if len(ours) != len(ref):
            raise Failure("%d boxes, expected %d" % (len(ours), len(ref)))
        left = [list(map(float, r)) for r in ref]
        for o in ours:
            best = min(left, key=lambda r: (r[0] != o[0], abs(r[1] - o[1]) > 1e-3,
                                            float(np.abs(np.array(o[2:6]) - np.array(r[2:6])).max())))
            px = float(np.abs(np.array(o[2:6]) - np.array(best[2:6])).max())
            note("rotated max |cx, cy, w, h diff| px", px)
            note("rotated |angle diff|", abs(o[6] - best[6]))
            note("rotated |score diff|", abs(o[1] - best[1]))
            if o[0] != best[0] or abs(o[1] - best[1]) > 1e-3 or px > 1.0 or abs(o[6] - best[6]) > 1e-4:
                raise Failure("box %s, nearest expected %s" % (o, best))
            left.remove(best)

    # The network runs on our input in the reference, as for the NMS detector: the top 20 of
    # near-equal cells could otherwise swap at the edge for a 1/255 difference of the resized
    # input (the preprocess tests bound that), and the angle would move by it.
    for img_name, make in (("china", china), ("odd37x53", lambda: odd_image(37, 53, 3, 5)),
                           ("1x1", lambda: odd_image(1, 1, 3, 6))):
        def t(make=make):
            bgr = make()
            np.save(img, bgr)
            ours = json.loads(probe("rotated", d0, img, "bgr").stdout)
            probe("preprocess", d0, img, "bgr", os.path.join(tmp, "r_x.npy"))
            ref, _ = gen.reference("rotated", bgr, np.load(os.path.join(tmp, "r_x.npy")))
            if img_name == "china" and (len(ref) < 5 or len({r[0] for r in ref}) < 2):
                raise Failure("%d boxes pass score_thr, %d labels: the comparison would say little" %
                              (len(ref), len({r[0] for r in ref})))
            compare(ours, ref)
        tests.append(("rotated_detect_%s" % img_name, t))

    def score_thr_default():
        # No params: MMDeploy's default score_thr, 0.05.
        d = os.path.join(tmp, "rotated_default")
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(d0, d)
        edit_json(os.path.join(d, "pipeline.json"), lambda o: o["pipeline"]["tasks"][2].pop("params"))
        bgr = china()
        np.save(img, bgr)
        ours = json.loads(probe("rotated", d, img, "bgr").stdout)
        probe("preprocess", d0, img, "bgr", os.path.join(tmp, "r_x.npy"))
        x = np.load(os.path.join(tmp, "r_x.npy"))
        dets, labels = (v[0].detach().numpy() for v in gen.network("rotated")(__import__("torch").from_numpy(x)))
        expected = int((dets[:, 5] > 0.05).sum())
        if len(ours) != expected or expected == len(json.loads(probe("rotated", d0, img, "bgr").stdout)):
            raise Failure("%d boxes, expected %d (and a different count from score_thr 0.5)" % (len(ours), expected))
    tests.append(("rotated_score_thr_default", score_thr_default))

    # Hostile params: each refused with a status and a message naming the value.
    for name, edit, status, words in (
            ("score_thr_string", lambda o: o["pipeline"]["tasks"][2]["params"].update(score_thr="high"),
             "INVALID_ARG", "score_thr"),
            ("score_thr_huge", lambda o: o["pipeline"]["tasks"][2]["params"].update(score_thr=1e39),
             "INVALID_ARG", "score_thr"),
            ("params_list", lambda o: o["pipeline"]["tasks"][2].update(params=[1]), "INVALID_ARG", "params"),
            ("unknown_component", lambda o: o["pipeline"]["tasks"][2].update(component="RotatedMask"),
             "NOT_SUPPORTED", "RotatedMask"),
            ("deploy_task_detector", None, "INVALID_ARG", "does not match")):
        def t(name=name, edit=edit, status=status, words=words):
            d = os.path.join(tmp, "hostile_rotated_" + name)
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(d0, d)
            if edit:
                edit_json(os.path.join(d, "pipeline.json"), edit)
            else:
                edit_json(os.path.join(d, "deploy.json"), lambda o: o.update(task="Detector"))
            np.save(img, odd_image(30, 20, 3, 1))
            p = probe("rotated", d, img, "bgr", expect=STATUS[status])
            if words not in p.stderr:
                raise Failure("message %r does not name %r" % (p.stderr.strip(), words))
        tests.append(("hostile_rotated_" + name, t))

    def net_dir(name, dets, labels):
        import torch
        d = os.path.join(tmp, "hostile_rotated_" + name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(d0, d)
        # The tracer warns that the tensors are constants: they are meant to be.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(ConstantRotated(dets, labels), torch.zeros(1, 3, 32, 32),
                              os.path.join(d, "end2end.onnx"), input_names=["input"], output_names=["dets", "labels"],
                              dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"}}, opset_version=11)
        return d

    def hostile_values():
        # NaN and infinite values, a size that overflows once divided by a scale factor under 1,
        # a NaN score and labels outside int's range: the bad boxes are dropped, the labels -1.
        nan, inf = float("nan"), float("inf")
        dets = [[[10, 20, 30, 40, 0.5, 0.9], [nan, 1, 1, 1, 0, 0.9], [1, 1, 1, 1, 0, nan], [3e38, 1, 1, 1, 0, 0.9],
                 [1, 1, inf, 1, 0, 0.9], [5, 5, 5, 5, nan, 0.9], [7, 8, 9, 10, 0.1, 0.95], [1, 2, 3, 4, 5, 0.2]]]
        labels = [[1, 0, 0, 0, 0, 0, nan, 1e20]]
        d = net_dir("values", dets, labels)
        bgr = odd_image(600, 500, 3, 2)
        np.save(img, bgr)
        ours = json.loads(probe("rotated", d, img, "bgr").stdout)
        _, meta = gen.preprocess("rotated", bgr)
        sf = meta["scale_factor"]
        if not sf[0] < 1:
            raise Failure("scale factor %s: 3e38 would not overflow" % sf)
        ref = [[1, 0.9, 10 / sf[0], 20 / sf[1], 30 / sf[0], 40 / sf[1], 0.5],
               [-1, 0.95, 7 / sf[0], 8 / sf[1], 9 / sf[0], 10 / sf[1], 0.1]]
        compare(ours, ref)
    tests.append(("hostile_rotated_values", hostile_values))

    # Outputs of the wrong shape: 5 columns, and labels [0, N] whose N matches (no data to read).
    for name, dets, labels in (("dets_5_columns", [[[10, 20, 30, 40, 0.9]]], [[1]]),
                               ("labels_0_rows", [[[10, 20, 30, 40, 0.5, 0.9]] * 2], np.zeros((0, 2)))):
        def t(name=name, dets=dets, labels=labels):
            d = net_dir(name, dets, labels)
            np.save(img, odd_image(30, 20, 3, 1))
            p = probe("rotated", d, img, "bgr", expect=STATUS["NOT_SUPPORTED"])
            if "dets [1, N, 6]" not in p.stderr:
                raise Failure("message %r" % p.stderr)
        tests.append(("hostile_rotated_" + name, t))

    def demo():
        # MMDeploy's demo on the photo: the boxes it prints are the probe's, the picture the photo's size.
        from PIL import Image
        bindir = os.path.dirname(PROBE)
        src, out = os.path.join(tmp, "china.png"), os.path.join(tmp, "rotated.png")
        cv2.imwrite(src, china())
        p = subprocess.run([os.path.join(bindir, "rotated_object_detection"), "cpu", d0, src, out],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise Failure("exited %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
        np.save(img, cv2.imread(src))
        ours = json.loads(probe("rotated", d0, img, "bgr").stdout)
        lines = p.stdout.splitlines()
        if lines[0] != "bbox_count=%d" % len(ours) or len(lines) != 1 + len(ours):
            raise Failure("%r, expected %d boxes" % (lines[:2], len(ours)))
        if ours and not lines[1].startswith("box 0, cx=%.2f, cy=%.2f" % (ours[0][2], ours[0][3])):
            raise Failure("%r, expected the box at %.2f, %.2f" % (lines[1], ours[0][2], ours[0][3]))
        if Image.open(out).size != (640, 427):
            raise Failure("picture %s" % (Image.open(out).size,))
        # Green was drawn: the photo has little pure green.
        pic = np.asarray(Image.open(out).convert("RGB"))
        if ours and int(((pic[..., 1] == 255) & (pic[..., 0] == 0) & (pic[..., 2] == 0)).sum()) < 100:
            raise Failure("no boxes drawn")
    tests.append(("demo_rotated_object_detection", demo))
    return tests


# ==== >>demos ====
def demo_tests(tmp):
    bindir = os.path.dirname(PROBE)
    digits = os.path.join(ROOT, "build", "sdk_digits")

    def demo(prog, *args, expect=0):
        p = subprocess.run([os.path.join(bindir, prog)] + list(args), capture_output=True, text=True,
                           timeout=300)
        if p.returncode != expect:
            raise Failure("%s exited %d: %s" % (prog, p.returncode, p.stderr.strip()[-300:]))
        return p

    def classification():
        # The shipped digit images, whose names hold their labels, through the demo.
        from PIL import Image
        for name in sorted(os.listdir(os.path.join(ROOT, "examples", "images"))):
            out = os.path.join(tmp, name)
            p = demo("image_classification", "cpu", digits, os.path.join(ROOT, "examples", "images", name), out)
            first = p.stderr.splitlines()[0]
            if first.split(",")[0] != "label: %s" % name.split("_")[1]:
                raise Failure("%s: %s" % (name, first))
            if Image.open(out).size != (256, 256):
                raise Failure("%s: picture %s" % (name, Image.open(out).size))

    def detection():
        from PIL import Image
        img, out = os.path.join(tmp, "china.png"), os.path.join(tmp, "det.png")
        cv2.imwrite(img, china())
        p = demo("object_detection", "cpu", os.path.join(MODELS, "yolo"), img, out)
        ref, _ = gen.reference("yolo", cv2.imread(img))
        if p.stdout.splitlines()[0] != "bbox_count=%d" % len(ref):
            raise Failure("%s, expected %d boxes" % (p.stdout.splitlines()[0], len(ref)))
        if Image.open(out).size != (640, 427):
            raise Failure("picture %s" % (Image.open(out).size,))

    def pose_detection():
        from PIL import Image
        img, out = os.path.join(tmp, "china.png"), os.path.join(tmp, "pose.png")
        cv2.imwrite(img, china())
        p = demo("pose_detection", "cpu", os.path.join(MODELS, "pose"), img, out)
        ref, _ = gen.reference("pose", cv2.imread(img))
        lines = p.stdout.splitlines()
        if len(lines) != len(ref) or not lines[0].startswith("keypoint 0: x=%.2f" % ref[0][0]):
            raise Failure("%r, expected %d keypoints from x=%.2f" % (lines[:1], len(ref), ref[0][0]))
        if Image.open(out).size != (640, 427):
            raise Failure("picture %s" % (Image.open(out).size,))

    def ocr():
        # The text picture through MMDeploy's ocr demo: the text detector's boxes, each read.
        from PIL import Image
        img, out = os.path.join(tmp, "text.png"), os.path.join(tmp, "ocr.png")
        cv2.imwrite(img, gen.text_image())
        p = demo("ocr", "cpu", os.path.join(MODELS, "textdet"), os.path.join(MODELS, "rec"), img, out)
        x = os.path.join(tmp, "ocr_x.npy")
        np.save(os.path.join(tmp, "ocr_in.npy"), cv2.imread(img))
        probe("preprocess", os.path.join(MODELS, "textdet"), os.path.join(tmp, "ocr_in.npy"), "bgr", x)
        ref, _ = gen.reference("textdet", cv2.imread(img), np.load(x))
        lines = p.stdout.splitlines()
        if lines[0] != "bbox_count=%d" % len(ref) or len(lines) != 1 + 2 * len(ref):
            raise Failure("%r, expected %d boxes" % (lines[:3], len(ref)))
        for k, r in enumerate(ref):
            text, _ = gen.reference("rec", gen.warp_bbox(cv2.imread(img), r[1:]))
            if lines[1 + 2 * k] != "box[%d]: %s" % (k, text):
                raise Failure("%r, expected text %r" % (lines[1 + 2 * k], text))
        if Image.open(out).size != (480, 360):
            raise Failure("picture %s" % (Image.open(out).size,))

    def ocr_ppocr():
        # PaddleOCR's PP-OCRv4 networks (make ocr-demo fetches them into build/ppocr) read the
        # rendered text picture: the words OpenCV drew come back.
        img, out = os.path.join(tmp, "text.png"), os.path.join(tmp, "ocr_pp.png")
        cv2.imwrite(img, gen.text_image())
        p = demo("ocr", "cpu", os.path.join(PPOCR, "det"), os.path.join(PPOCR, "rec"), img, out)
        texts = [line.split(": ", 1)[1] for line in p.stdout.splitlines() if line.startswith("box[")]
        for word in ("mmdeploy", "text 1234", "dbnet"):
            if word not in texts:
                raise Failure("%r not read: %r" % (word, texts))

    def huge_declared_image():
        # PNG headers declaring 20000 x 20000 pixels, and nothing after them. Gray passes
        # stb_image's own bound (2^30 bytes) and meets MMD_MAX_IMAGE_SIDE; stb_image refuses RGB
        # (its reason is not always the size: it reports its last loader's).
        import struct
        import zlib
        for color_type, expected in ((0, "20000 x 20000"), (2, "huge.png: not an image stb_image reads")):
            ihdr = struct.pack(">IIBBBBB", 20000, 20000, 8, color_type, 0, 0, 0)
            png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + \
                struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
            path = os.path.join(tmp, "huge.png")
            with open(path, "wb") as f:
                f.write(png)
            p = demo("image_classification", "cpu", digits, path, os.path.join(tmp, "x.png"), expect=1)
            if expected not in p.stderr:
                raise Failure("color type %d: message %r" % (color_type, p.stderr))

    def truncated_image():
        with open(os.path.join(ROOT, "examples", "images", "digit_4_0.png"), "rb") as f:
            data = f.read()
        path = os.path.join(tmp, "cut.png")
        with open(path, "wb") as f:
            f.write(data[:len(data) // 2])
        p = demo("image_classification", "cpu", digits, path, os.path.join(tmp, "x.png"), expect=1)
        if "cut.png" not in p.stderr:
            raise Failure("message %r" % p.stderr)

    def wrong_device():
        p = demo("image_classification", "cuda", digits, os.path.join(ROOT, "examples", "images", "digit_4_0.png"),
                 expect=1)
        if "cuda" not in p.stderr:
            raise Failure("message %r" % p.stderr)

    return [("demo_image_classification_digits", classification), ("demo_object_detection", detection),
            ("demo_pose_detection", pose_detection), ("demo_ocr", ocr)] + \
        ([("demo_ocr_ppocr_v4", ocr_ppocr)] if os.path.exists(os.path.join(PPOCR, "det", "end2end.onnx")) else []) + [
            ("demo_huge_declared_image", huge_declared_image), ("demo_truncated_image", truncated_image),
            ("demo_device_cuda_refused", wrong_device)]


def cli_tests(tmp):
    # The probe's command for each deploy.json task, and whether it writes its result to a file.
    probe_cmd = dict(Classifier="classify", Detector="detect", RotatedDetector="rotated", PoseDetector="pose",
                     TextDetector="textdet", TextRecognizer="recognize", Segmentor="segment")

    def cli(*args, expect=0):
        p = subprocess.run([CLI, "sdk"] + [str(a) for a in args], capture_output=True, text=True, timeout=300)
        if p.returncode != expect:
            raise Failure("mmdeploy sdk %s exited %d (expected %d): %s" %
                          (" ".join(map(str, args)), p.returncode, expect, p.stderr.strip()[-400:]))
        return p

    def built_in():
        p = subprocess.run([CLI, "sdk", os.path.join(MODELS, "cls"), "none.png"], capture_output=True, text=True)
        return "not built in" not in p.stderr

    def same_as_probe(kind):
        def run():
            d = os.path.join(MODELS, kind)
            with open(os.path.join(d, "deploy.json")) as f:
                task = json.load(f)["task"]
            bgr = gen.text_image() if task in ("TextDetector", "TextRecognizer") else china()
            img, src = os.path.join(tmp, "cli_%s.png" % kind), os.path.join(tmp, "cli_%s.npy" % kind)
            cv2.imwrite(img, bgr)
            np.save(src, cv2.imread(img))
            ours = json.loads(cli(d, img, "--device", "cpu").stdout)
            if ours["task"] != task:
                raise Failure("task %r, deploy.json says %r" % (ours["task"], task))
            if task == "Segmentor":
                out = os.path.join(tmp, "cli_seg.npy")
                probe("segment", d, src, "bgr", out)
                ref, got = np.load(out), ours["result"]
                key = "mask" if ref.ndim == 2 else "score"
                arr = np.array(got[key], dtype=ref.dtype).reshape(ref.shape)
                if (got["height"], got["width"]) != ref.shape[-2:] or not np.array_equal(arr, ref):
                    raise Failure("%s differs from the probe's (%s vs %s)" % (key, arr.shape, ref.shape))
            else:
                ref = json.loads(probe(probe_cmd[task], d, src, "bgr").stdout)
                if ours["result"] != ref:
                    raise Failure("result %r, the probe's %r" % (str(ours["result"])[:200], str(ref)[:200]))
                if not ref:
                    raise Failure("no results to compare on %s" % kind)
        return run

    def errors():
        bad = os.path.join(tmp, "cli_bad")
        shutil.copytree(os.path.join(MODELS, "cls"), bad, dirs_exist_ok=True)
        with open(os.path.join(bad, "deploy.json"), "w") as f:
            f.write("{not json")
        img = os.path.join(tmp, "cli_cls.png")
        cv2.imwrite(img, china())
        junk = os.path.join(tmp, "cli_junk.png")
        with open(junk, "wb") as f:
            f.write(b"not an image at all")
        cases = [(os.path.join(tmp, "no_such_dir"), img, "FILE_NOT_EXIST", "no_such_dir"),
                 (bad, img, "INVALID_ARG", "not valid JSON"),
                 (os.path.join(MODELS, "cls"), junk, "INVALID_ARG", "cli_junk.png")]
        for d, image, status, words in cases:
            p = cli(d, image, expect=1)
            want = "status %d (MMDEPLOY_E_%s)" % (STATUS[status], status)
            if p.stdout or want not in p.stderr or words not in p.stderr:
                raise Failure("%s %s: stdout %r, stderr %r; expected %r and %r" %
                              (d, image, p.stdout, p.stderr, want, words))
        p = cli(os.path.join(MODELS, "cls"), img, "--device", "cuda", expect=1)
        if "cuda" not in p.stderr or p.stdout:
            raise Failure("--device cuda: %r" % p.stderr)

    def not_built_in():
        p = cli(os.path.join(MODELS, "cls"), "x.png", expect=1)
        if "status 2 (MMDEPLOY_E_NOT_SUPPORTED)" not in p.stderr:
            raise Failure("message %r" % p.stderr)

    if not built_in():
        return [("cli_sdk_not_built_in", not_built_in)]
    return [("cli_sdk_" + k, same_as_probe(k)) for k in sorted(os.listdir(MODELS))
            if os.path.exists(os.path.join(MODELS, k, "deploy.json"))] + [("cli_sdk_errors", errors)]


def main(argv):
    if not all(os.path.exists(os.path.join(MODELS, k, "end2end.onnx")) for k in gen.TASKS):
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen_sdk_models.py"), MODELS],
                       check=True, capture_output=True)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        tests = resize_tests(tmp) + preprocess_tests(tmp) + e2e_tests(tmp) + hostile_tests(tmp) + \
            demo_tests(tmp) + rotated_tests(tmp) + instance_mask_tests(tmp) + cli_tests(tmp)
        for name, fn in tests:
            if argv and not any(a in name for a in argv):
                continue
            try:
                fn()
                print("ok", name)
                passed += 1
            except Failure as e:
                print("FAIL %s: %s" % (name, e))
                failed += 1
    for k in sorted(REPORT):
        print("measured: %s = %.6g" % (k, REPORT[k]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
