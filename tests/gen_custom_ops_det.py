#!/usr/bin/python3
"""Builds one ONNX model per MMDeploy detection custom op and case, with inputs and reference
outputs, into OUT_DIR (default build/custom_ops/det), and a manifest.json that
tests/test_custom_ops_det.py runs through build/mmdeploy.

References: torchvision.ops.roi_align for MMCVRoiAlign avg, torchvision.ops.nms with torch.sort
for TRTBatchedNMS. Where torch has no such op (mmcv's max RoIAlign, rotated RoIAlign, the
multi-level ops, rotated IoU and NMS, NMSMatch) the reference below is written from the
definitions in mmcv and MMDeploy's plugins (csrc/mmdeploy/backend_ops) in float64, and checked
first on hand-worked cases and, where they overlap, against torchvision.

Semantics the references encode (the plugins' code, not the Python export functions):
  RoI align: sample (iy, ix) of bin (ph, pw) at start + p * bin + (i + 0.5) * bin / grid, grid
    = sampling_ratio or ceil(bin) when <= 0, bilinear with border clamping, zero beyond one
    pixel outside; avg divides by max(grid_h * grid_w, 1).
  Multi-level: level = clamp(floor(log2(sqrt(area) / finest_scale + 1e-6)), 0, L - 1).
  NMSRotated (ONNX Runtime): score > threshold, descending score (equal: lower index first),
    greedy with rotated IoU > iou_threshold, IoU 0 for a box with w * h < 1e-14 (mmcv).
  TRTBatchedNMS (TensorRT): per class top `topk` scores above the threshold, greedy IoU >
    threshold, survivors ordered by score (equal: class, then rank), first keep_topk; the
    rotated plugin gives degenerate boxes IoU 1.
  NMSMatch (ONNX Runtime): every box takes part, each unclaimed box claims later boxes with
    IoU >= threshold (1e-10 added to the union); pairs of boxes scoring above the threshold.

Usage: /usr/bin/python3 tests/gen_custom_ops_det.py [OUT_DIR]
"""
import json
import math
import os
import sys

import numpy as np

np.float = float  # onnx 1.12 still uses the removed numpy aliases
np.int = int
np.bool = bool
np.object = object
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402

F32, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64
NP_TO_ONNX = {np.dtype(np.float32): F32, np.dtype(np.int32): I32, np.dtype(np.int64): I64}


# ==== references: RoI align ====

def bilinear(plane, y, x):
    """mmcv's bilinear_interpolate over (C, H, W): zero beyond one pixel outside, clamped
    to the border inside that margin."""
    _, h, w = plane.shape
    if not (y >= -1.0 and y <= h and x >= -1.0 and x <= w):
        return np.zeros(plane.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    hy, hx = 1.0 - ly, 1.0 - lx
    return hy * hx * plane[:, y0, x0] + hy * lx * plane[:, y0, x1] + ly * hx * plane[:, y1, x0] + ly * lx * plane[:, y1, x1]


def grid_of(bin_size, ratio):
    return ratio if ratio > 0 else int(math.ceil(bin_size))


def pool_roi(plane, g, oh, ow, mode):
    """One RoI over plane (C, H, W); g holds y0, x0 (start in the RoI frame), rh, rw, cos, sin,
    cy, cx and ratio. Returns (C, oh, ow)."""
    bh, bw = g["rh"] / oh, g["rw"] / ow
    gh, gw = grid_of(bh, g["ratio"]), grid_of(bw, g["ratio"])
    out = np.zeros((plane.shape[0], oh, ow))
    for ph in range(oh):
        for pw in range(ow):
            vals = []
            for iy in range(max(gh, 0)):
                yy = g["y0"] + ph * bh + (iy + 0.5) * bh / gh
                for ix in range(max(gw, 0)):
                    xx = g["x0"] + pw * bw + (ix + 0.5) * bw / gw
                    y = yy * g["cos"] - xx * g["sin"] + g["cy"]
                    x = yy * g["sin"] + xx * g["cos"] + g["cx"]
                    vals.append(bilinear(plane, y, x))
            if mode == "avg":
                out[:, ph, pw] = np.sum(vals, axis=0) / max(gh * gw, 1) if vals else 0.0
            else:
                assert vals, "max pooling of an empty grid is left unspecified by the tests"
                out[:, ph, pw] = np.max(vals, axis=0)
    return out


def box_geom(box, scale, aligned, ratio, clamp_negative=False):
    """mmcv RoIAlign geometry of (x1, y1, x2, y2) in image units."""
    off = 0.5 if aligned else 0.0
    x1, y1 = box[0] * scale - off, box[1] * scale - off
    rw, rh = box[2] * scale - off - x1, box[3] * scale - off - y1
    if not aligned:
        rw, rh = max(rw, 1.0), max(rh, 1.0)
    elif clamp_negative:
        rw, rh = max(rw, 0.0), max(rh, 0.0)
    return dict(y0=y1, x0=x1, rh=rh, rw=rw, cos=1.0, sin=0.0, cy=0.0, cx=0.0, ratio=ratio)


def rotated_geom(cx, cy, rw, rh, theta, ratio):
    """Rotated RoI already in feature units, sampled about its centre."""
    return dict(y0=-rh / 2.0, x0=-rw / 2.0, rh=rh, rw=rw, cos=math.cos(theta), sin=math.sin(theta),
                cy=cy, cx=cx, ratio=ratio)


def ref_roi_align(feats, rois, oh, ow, scale, ratio, mode, aligned):
    out = np.zeros((len(rois), feats.shape[1], oh, ow))
    for i, r in enumerate(rois.astype(np.float64)):
        out[i] = pool_roi(feats[int(r[0])].astype(np.float64), box_geom(r[1:], scale, aligned, ratio), oh, ow, mode)
    return out.astype(np.float32)


def ref_roi_align_rotated(feats, rois, oh, ow, scale, ratio, aligned, clockwise):
    out = np.zeros((len(rois), feats.shape[1], oh, ow))
    off = 0.5 if aligned else 0.0
    for i, r in enumerate(rois.astype(np.float64)):
        rw, rh = r[3] * scale, r[4] * scale
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        theta = -r[5] if clockwise else r[5]
        g = rotated_geom(r[1] * scale - off, r[2] * scale - off, rw, rh, theta, ratio)
        out[i] = pool_roi(feats[int(r[0])].astype(np.float64), g, oh, ow, "avg")
    return out.astype(np.float32)


def fpn_level(area, finest, levels):
    """The plugins' level, in float32 as they compute it."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.float32(np.sqrt(np.float32(area)) / np.float32(finest))
        l = math.floor(math.log2(float(np.float32(float(ratio) + 1e-6)))) if ratio == ratio and ratio + 1e-6 > 0 else 0
    return min(max(l, 0), levels - 1)


def ref_multi_level(feats, rois, oh, ow, pool_mode, ratio, factor, finest, strides, aligned):
    out = np.zeros((len(rois), feats[0].shape[1], oh, ow))
    for i, r in enumerate(rois.astype(np.float64)):
        l = fpn_level((np.float32(r[3]) - np.float32(r[1])) * (np.float32(r[4]) - np.float32(r[2])), finest, len(feats))
        box = list(r[1:])
        if factor > 0:
            cx, cy = (box[0] + box[2]) * 0.5, (box[1] + box[3]) * 0.5
            hw = (box[2] - box[0] + 1) * factor * 0.5 - 0.5
            hh = (box[3] - box[1] + 1) * factor * 0.5 - 0.5
            box = [cx - hw, cy - hh, cx + hw, cy + hh]
        g = box_geom(box, 1.0 / strides[l], aligned, ratio, clamp_negative=True)
        out[i] = pool_roi(feats[l][int(r[0])].astype(np.float64), g, oh, ow, "max" if pool_mode == 0 else "avg")
    return out.astype(np.float32)


def ref_multi_level_rotated(feats, rois, oh, ow, clockwise, ratio, factor, finest, strides, aligned):
    out = np.zeros((len(rois), feats[0].shape[1], oh, ow))
    for i, r in enumerate(rois.astype(np.float64)):
        l = fpn_level(np.float32(r[3]) * np.float32(r[4]), finest, len(feats))
        s, off = 1.0 / strides[l], (-0.5 if aligned else 0.0)
        rw, rh = r[3], r[4]
        if factor > 0:
            rw, rh = rw * factor, rh * factor
        rw, rh = max(rw * s, 1.0), max(rh * s, 1.0)
        theta = -r[5] if clockwise > 0 else r[5]
        g = rotated_geom(r[1] * s + off, r[2] * s + off, rw, rh, theta, ratio)
        out[i] = pool_roi(feats[l][int(r[0])].astype(np.float64), g, oh, ow, "avg")
    return out.astype(np.float32)


# ==== references: rotated IoU (intersection points + convex hull, unlike the kernel's clipping) ====

def rbox_corners(b):
    cx, cy, w, h, a = (float(v) for v in b)
    c, s = math.cos(a), math.sin(a)
    u, v = (0.5 * w * c, 0.5 * w * s), (-0.5 * h * s, 0.5 * h * c)
    return [(cx - u[0] - v[0], cy - u[1] - v[1]), (cx + u[0] - v[0], cy + u[1] - v[1]),
            (cx + u[0] + v[0], cy + u[1] + v[1]), (cx - u[0] + v[0], cy - u[1] + v[1])]


def inside_rect(p, q):
    """p inside the parallelogram q (corners in order): projections on two edges in range."""
    ab, ad = (q[1][0] - q[0][0], q[1][1] - q[0][1]), (q[3][0] - q[0][0], q[3][1] - q[0][1])
    ap = (p[0] - q[0][0], p[1] - q[0][1])
    pab, pad = ap[0] * ab[0] + ap[1] * ab[1], ap[0] * ad[0] + ap[1] * ad[1]
    return 0 <= pab <= ab[0] ** 2 + ab[1] ** 2 and 0 <= pad <= ad[0] ** 2 + ad[1] ** 2


def hull_area(pts):
    pts = sorted(set(pts))
    if len(pts) < 3:
        return 0.0

    def half(seq):
        out = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) -
                                     (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out
    hull = half(pts)[:-1] + half(pts[::-1])[:-1]
    return abs(sum(hull[i][0] * hull[(i + 1) % len(hull)][1] - hull[(i + 1) % len(hull)][0] * hull[i][1]
                   for i in range(len(hull)))) / 2.0


def rbox_iou(b1, b2, degenerate):
    a1, a2 = float(np.float32(b1[2]) * np.float32(b1[3])), float(np.float32(b2[2]) * np.float32(b2[3]))
    if a1 < 1e-14 or a2 < 1e-14:
        return degenerate
    if not all(math.isfinite(float(v)) for v in list(b1) + list(b2)):
        return 0.0
    p, q = rbox_corners(b1), rbox_corners(b2)
    pts = [v for v in p if inside_rect(v, q)] + [v for v in q if inside_rect(v, p)]
    for i in range(4):
        a, b = p[i], p[(i + 1) % 4]
        for j in range(4):
            c, d = q[j], q[(j + 1) % 4]
            r, s = (b[0] - a[0], b[1] - a[1]), (d[0] - c[0], d[1] - c[1])
            den = r[0] * s[1] - r[1] * s[0]
            if abs(den) < 1e-300:
                continue
            t = ((c[0] - a[0]) * s[1] - (c[1] - a[1]) * s[0]) / den
            u = ((c[0] - a[0]) * r[1] - (c[1] - a[1]) * r[0]) / den
            if 0 <= t <= 1 and 0 <= u <= 1:
                pts.append((a[0] + t * r[0], a[1] + t * r[1]))
    inter = hull_area(pts)
    return inter / (a1 + a2 - inter)


def order_by_score(s, valid):
    """Indices of valid scores, descending, lower index first among equal scores."""
    return sorted([i for i in range(len(s)) if valid(s[i])], key=lambda i: -float(s[i]))


def greedy(order, suppress):
    keep = []
    for i in order:
        if not any(suppress(k, i) for k in keep):
            keep.append(i)
    return keep


def ref_nms_rotated(boxes, scores, iou, thr):
    rows = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            order = order_by_score(scores[b, c], lambda v: v > thr)
            keep = greedy(order, lambda k, i: rbox_iou(boxes[b, k], boxes[b, i], 0.0) > iou)
            rows += [[b, c, i] for i in keep]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def ref_nms_match(boxes, scores, iou, thr):
    def overlap(a, d):
        a, d = a.astype(np.float32), d.astype(np.float32)
        w = max(np.float32(0), min(a[2], d[2]) - max(a[0], d[0]))
        h = max(np.float32(0), min(a[3], d[3]) - max(a[1], d[1]))
        inter = np.float32(w * h)
        uni = np.float32(np.float32((a[2] - a[0]) * (a[3] - a[1])) + np.float32((d[2] - d[0]) * (d[3] - d[1])) - inter)
        return float(inter) / (float(uni) + 1e-10)
    rows = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = order_by_score(s, lambda v: v == v)
            claimed = set()
            for ii, a in enumerate(order):
                if a in claimed:
                    continue
                for d in order[ii + 1:]:
                    if d in claimed or not overlap(boxes[b, a], boxes[b, d]) >= iou:
                        continue
                    claimed.add(d)
                    if s[a] > thr:
                        rows.append([b, c, a, d])
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def ref_trt_nms(boxes, scores, num_classes, background, topk, keep_topk, iou, thr, clip, rotated):
    """TensorRT's batched NMS: candidates with torch.sort (stable), suppression with
    torchvision.ops.nms (axis-aligned) or the rotated IoU above, the merge with torch.sort."""
    B, N, Q, D = boxes.shape
    topk = topk if 0 < topk <= N else N
    dets = np.zeros((B, keep_topk, D + 1), np.float32)
    labels = -np.ones((B, keep_topk), np.int32)
    index = -np.ones((B, keep_topk), np.int32)
    for b in range(B):
        ent_score, ent_class, ent_box = [], [], []
        for c in range(num_classes):
            if c == background:
                continue
            s = torch.from_numpy(scores[b, :, c].copy())
            valid = torch.nonzero(s > thr).flatten()
            _, o = torch.sort(s[valid], descending=True, stable=True)
            cand = valid[o][:topk]
            bx = boxes[b, :, 0 if Q == 1 else c]
            if rotated:
                keep = greedy(list(cand.numpy()), lambda k, i: rbox_iou(bx[k], bx[i], 1.0) > iou)
            else:
                # strictly decreasing stand-in scores make torchvision keep our candidate order
                fake = torch.arange(len(cand), 0, -1, dtype=torch.float32)
                kept = torchvision.ops.nms(torch.from_numpy(bx[cand.numpy()].copy()), fake, iou)
                keep = list(cand[kept].numpy())
            ent_score += [float(s[i]) for i in keep]
            ent_class += [c] * len(keep)
            ent_box += [int(i) for i in keep]
        _, o = torch.sort(torch.tensor(ent_score, dtype=torch.float32), descending=True, stable=True)
        for r, e in enumerate(o[:keep_topk].tolist()):
            c, i = ent_class[e], ent_box[e]
            v = boxes[b, i, 0 if Q == 1 else c].astype(np.float32)
            dets[b, r, :D] = np.clip(v, 0, 1) if clip else v
            dets[b, r, D] = ent_score[e]
            labels[b, r] = c
            index[b, r] = i if Q == 1 else c * N + i
    return dets, labels, index


# ==== hand-worked checks of the references ====

def check_references():
    rng = np.random.default_rng(7)
    # RoI align avg against torchvision, both alignments and sampling modes.
    x = rng.random((2, 3, 9, 11), dtype=np.float32)
    rois = np.array([[0, 1.5, 2.0, 15.0, 12.0], [1, -3.0, 4.0, 6.0, 30.0], [1, 5.0, 5.0, 5.0, 5.0]], np.float32)
    for aligned in (0, 1):
        for ratio in (0, 2):
            want = torchvision.ops.roi_align(torch.from_numpy(x), torch.from_numpy(rois), (3, 4), 0.5, ratio,
                                             bool(aligned)).numpy()
            got = ref_roi_align(x, rois, 3, 4, 0.5, ratio, "avg", aligned)
            assert np.allclose(got, want, rtol=1e-5, atol=1e-6), "roi_align reference != torchvision"
    # Hand-worked: a 2x2 map, one bin over the whole map, 2x2 samples at 0.5 and 1.5 (unaligned)
    # land on pixel centres and the border clamp: max is 4, avg the mean of 1, 2, 3, 4 weights.
    m = np.array([[[[1, 2], [3, 4]]]], np.float32)
    assert abs(ref_roi_align(m, np.array([[0, 0, 0, 2, 2]], np.float32), 1, 1, 1.0, 2, "max", 0)[0, 0, 0, 0] - 4.0) < 1e-6
    # samples (0.5,0.5) (0.5,1.5) (1.5,0.5) (1.5,1.5): 2.5, 3.0, 3.5, 4.0 -> mean 3.25
    assert abs(ref_roi_align(m, np.array([[0, 0, 0, 2, 2]], np.float32), 1, 1, 1.0, 2, "avg", 0)[0, 0, 0, 0] - 3.25) < 1e-6
    # Rotated at theta 0 is the aligned axis box; at pi it is the same flipped both ways.
    r = np.array([[1, 8.0, 6.0, 9.0, 7.0, 0.0]], np.float32)
    box = np.array([[1, 8.0 - 4.5, 6.0 - 3.5, 8.0 + 4.5, 6.0 + 3.5]], np.float32)
    a = ref_roi_align_rotated(x, r, 3, 4, 0.5, 2, 1, 0)
    assert np.allclose(a, ref_roi_align(x, box, 3, 4, 0.5, 2, "avg", 1), atol=1e-6), "theta 0 != axis box"
    r[0, 5] = math.pi
    assert np.allclose(ref_roi_align_rotated(x, r, 3, 4, 0.5, 2, 1, 0), a[:, :, ::-1, ::-1], atol=1e-5), "theta pi != flip"
    assert np.allclose(ref_roi_align_rotated(x, r, 3, 4, 0.5, 2, 1, 1), a[:, :, ::-1, ::-1], atol=1e-5), "clockwise pi"
    # MMDeploy's own TensorRT test vector for MMCVMultiLevelRoiAlign (tests/test_ops/test_ops.py).
    f0, f1 = multi_level_vector()
    for mode, want in ((0, [[0.1939, 0.4956], [0.4185, 0.5167]]), (1, [[0.1939, 0.3950], [0.3437, 0.4543]])):
        got = ref_multi_level([f0, f1], np.array([[0, 0, 0, 4, 4]], np.float32), 2, 2, mode, 2, 1.0, 2, [2.0, 4.0], 1)
        assert np.allclose(got[0, 0], want, atol=1e-4), "multi-level reference != MMDeploy's test vector"
    # Levels: sqrt(area) / 56 below 2 is level 0, at 2, 4 and 8 levels 1, 2, 3, clamped to the maps given.
    assert [fpn_level(s * s, 56, 4) for s in (10, 56, 112, 224, 448, 5000)] == [0, 0, 1, 2, 3, 3]
    assert fpn_level(-4.0, 56, 4) == 0 and fpn_level(0.0, 56, 4) == 0
    # Rotated IoU: identity, a square against itself turned 45 degrees (a regular octagon of
    # area 2 (sqrt 2 - 1), so IoU sqrt(2) / 2), disjoint, degenerate, and axis boxes against torchvision.
    b = np.array([10, 10, 4, 2, 0.3])
    assert abs(rbox_iou(b, b, 0) - 1) < 1e-9
    assert abs(rbox_iou([0, 0, 1, 1, 0], [0, 0, 1, 1, math.pi / 4], 0) - math.sqrt(2) / 2) < 1e-9
    assert rbox_iou([0, 0, 1, 1, 0], [5, 0, 1, 1, 0.5], 0) == 0
    assert rbox_iou([0, 0, 0, 1, 0], [0, 0, 1, 1, 0], 0) == 0 and rbox_iou([0, 0, 0, 1, 0], [0, 0, 1, 1, 0], 1) == 1
    xyxy = rng.random((20, 4), dtype=np.float32) * 10
    xyxy[:, 2:] = xyxy[:, :2] + 1 + rng.random((20, 2), dtype=np.float32) * 6
    want = torchvision.ops.box_iou(torch.from_numpy(xyxy), torch.from_numpy(xyxy)).numpy()
    cxcy = np.concatenate([(xyxy[:, :2] + xyxy[:, 2:]) / 2, xyxy[:, 2:] - xyxy[:, :2], np.zeros((20, 1))], 1)
    got = np.array([[rbox_iou(p, q, 0) for q in cxcy] for p in cxcy])
    assert np.allclose(got, want, atol=1e-5), "rotated IoU at theta 0 != torchvision box_iou"


def multi_level_vector():
    f0 = np.array([[[[0.3014, 0.7334, 0.6502, 0.1689], [0.3031, 0.3735, 0.6032, 0.1644],
                     [0.0393, 0.4415, 0.3858, 0.2657], [0.5766, 0.0211, 0.6384, 0.0016]],
                    [[0.0811, 0.6255, 0.0247, 0.3471], [0.1390, 0.9298, 0.6178, 0.6636],
                     [0.2243, 0.2024, 0.2366, 0.3660], [0.1050, 0.2301, 0.7489, 0.7506]],
                    [[0.3868, 0.1706, 0.2390, 0.8494], [0.2643, 0.9347, 0.0412, 0.5790],
                     [0.6202, 0.0682, 0.0390, 0.5296], [0.5383, 0.1221, 0.6344, 0.1514]]]], np.float32)
    f1 = np.array([[[[0.1939, 0.9983, 0.4031, 0.2712], [0.7929, 0.1504, 0.0946, 0.5030],
                     [0.1421, 0.7908, 0.9595, 0.4198], [0.6880, 0.4722, 0.9896, 0.2266]],
                    [[0.0778, 0.4232, 0.0736, 0.0168], [0.2887, 0.8461, 0.1140, 0.9582],
                     [0.5169, 0.4924, 0.8275, 0.5530], [0.8961, 0.7466, 0.5976, 0.3760]],
                    [[0.1542, 0.5028, 0.8412, 0.6617], [0.3751, 0.2798, 0.3835, 0.8640],
                     [0.5821, 0.6588, 0.1324, 0.7619], [0.9178, 0.7282, 0.0291, 0.3028]]]], np.float32)
    return f0, f1


# ==== model writing ====

class Writer:
    def __init__(self, out):
        self.out = out
        self.cases = []

    def case(self, name, domain, op, inputs, outputs, attrs, rtol=1e-4, atol=1e-5, error=None):
        """inputs: list of (name, array); outputs: list of (name, array or (dtype, rank))."""
        in_vi = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype], list(a.shape)) for n, a in inputs]
        out_vi = []
        for n, a in outputs:
            if isinstance(a, np.ndarray):
                out_vi.append(helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype], None))
            else:
                out_vi.append(helper.make_tensor_value_info(n, a[0], None))
        node = helper.make_node(op, [n for n, _ in inputs], [n for n, _ in outputs], name=name, domain=domain, **attrs)
        graph = helper.make_graph([node], name, in_vi, out_vi)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11), helper.make_opsetid(domain, 1)])
        model.ir_version = 7
        onnx.save(model, os.path.join(self.out, name + ".onnx"))
        entry = {"name": name, "model": name + ".onnx", "inputs": {}, "outputs": {}, "rtol": rtol, "atol": atol}
        for n, a in inputs:
            f = "%s__in_%s.npy" % (name, n)
            np.save(os.path.join(self.out, f), a)
            entry["inputs"][n] = f
        for n, a in outputs:
            if isinstance(a, np.ndarray):
                f = "%s__out_%s.npy" % (name, n)
                np.save(os.path.join(self.out, f), a)
                entry["outputs"][n] = f
        if error:
            entry["error"] = error
        self.cases.append(entry)

    def finish(self):
        with open(os.path.join(self.out, "manifest.json"), "w") as f:
            json.dump(self.cases, f, indent=1)


def random_rois(rng, n, batches, img_h, img_w, min_size=2.0, max_size=None):
    max_size = max_size or max(img_h, img_w)
    x1 = rng.uniform(-0.2 * img_w, img_w, n)
    y1 = rng.uniform(-0.2 * img_h, img_h, n)
    w = rng.uniform(min_size, max_size, n)
    h = rng.uniform(min_size, max_size, n)
    b = rng.integers(0, batches, n)
    return np.stack([b, x1, y1, x1 + w, y1 + h], 1).astype(np.float32)


def odd_rois(batches, img_h, img_w):
    """Outside the image, zero area, negative size, a point, the whole image."""
    return np.array([[0, -40, -40, -20, -20], [batches - 1, img_w + 5, 2, img_w + 30, 9],
                     [0, 5, 5, 5, 12], [batches - 1, 9, 9, 3, 4], [0, 7, 7, 7, 7],
                     [batches - 1, 0, 0, img_w, img_h]], np.float32)


def clustered_rboxes(rng, n, clusters, spread):
    centres = rng.uniform(0, 100, (clusters, 2))
    pick = rng.integers(0, clusters, n)
    cxcy = centres[pick] + rng.normal(0, spread, (n, 2))
    wh = rng.uniform(4, 20, (n, 2))
    theta = rng.uniform(-math.pi, math.pi, (n, 1)) * (rng.random((n, 1)) < 0.7) + rng.normal(0, 0.1, (n, 1))
    return np.concatenate([cxcy, wh, theta], 1).astype(np.float32)


def clustered_boxes(rng, n, clusters, spread, size=30.0):
    centres = rng.uniform(0, 200, (clusters, 2))
    pick = rng.integers(0, clusters, n)
    xy = centres[pick] + rng.normal(0, spread, (n, 2))
    wh = rng.uniform(size / 3, size, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(np.float32)


# ==== cases ====

def roi_align_cases(w, rng):
    feats = rng.standard_normal((2, 3, 12, 16)).astype(np.float32)
    rois = np.concatenate([random_rois(rng, 10, 2, 24, 32), odd_rois(2, 24, 32)])
    for aligned in (0, 1):
        for ratio in (0, 2):
            want = torchvision.ops.roi_align(torch.from_numpy(feats), torch.from_numpy(rois), (5, 4), 0.5, ratio,
                                             bool(aligned)).numpy()
            attrs = dict(output_height=5, output_width=4, spatial_scale=0.5, sampling_ratio=ratio, mode="avg",
                         aligned=aligned)
            w.case("roi_align_avg_aligned%d_ratio%d" % (aligned, ratio), "mmcv", "MMCVRoiAlign",
                   [("feats", feats), ("rois", rois)], [("out", want)], attrs)
    # max: the grid is never empty here (unaligned RoIs are at least 1 x 1, or sampling_ratio 2)
    for aligned, ratio in ((0, 0), (0, 2), (1, 2)):
        want = ref_roi_align(feats, rois, 5, 4, 0.5, ratio, "max", aligned)
        attrs = dict(output_height=5, output_width=4, spatial_scale=0.5, sampling_ratio=ratio, mode="max",
                     aligned=aligned)
        w.case("roi_align_max_aligned%d_ratio%d" % (aligned, ratio), "mmcv", "MMCVRoiAlign",
               [("feats", feats), ("rois", rois)], [("out", want)], attrs)
    # sampling_ratio 0 with RoIs up to 2.5 x the map: many samples per bin, most outside
    big = random_rois(rng, 6, 2, 24, 32, min_size=20.0, max_size=80.0)
    want = torchvision.ops.roi_align(torch.from_numpy(feats), torch.from_numpy(big), (3, 3), 0.5, 0, True).numpy()
    w.case("roi_align_avg_large_rois", "mmdeploy", "MMCVRoiAlign", [("feats", feats), ("rois", big)],
           [("out", want)], dict(output_height=3, output_width=3, spatial_scale=0.5, sampling_ratio=0, mode="avg",
                                 aligned=1))
    empty = np.zeros((0, 5), np.float32)
    w.case("roi_align_no_rois", "mmcv", "MMCVRoiAlign", [("feats", feats), ("rois", empty)],
           [("out", np.zeros((0, 3, 7, 7), np.float32))], dict(spatial_scale=0.5, mode="avg", aligned=1))
    bad = rois.copy()
    bad[3, 0] = 2
    w.case("roi_align_bad_batch", "mmcv", "MMCVRoiAlign", [("feats", feats), ("rois", bad)],
           [("out", (F32, 4))], dict(mode="avg"), error="batch index")


def roi_align_rotated_cases(w, rng):
    feats = rng.standard_normal((2, 3, 12, 16)).astype(np.float32)
    n = 10
    rois = np.stack([rng.integers(0, 2, n), rng.uniform(-4, 36, n), rng.uniform(-4, 28, n),
                     rng.uniform(1, 30, n), rng.uniform(1, 30, n), rng.uniform(-math.pi, math.pi, n)], 1)
    odd = np.array([[0, 10, 10, 0, 0, 0.3], [1, 12, 8, -6, 4, 1.0], [0, -50, -50, 8, 8, 0.2],
                    [1, 16.3, 12.7, 32, 24, 0.0], [0, 16.3, 12.7, 32, 24, math.pi / 2]])
    rois = np.concatenate([rois, odd]).astype(np.float32)
    for aligned, ratio, clockwise in ((1, 2, 0), (0, 0, 1), (1, 0, 0), (0, 3, 0)):
        want = ref_roi_align_rotated(feats, rois, 3, 4, 0.5, ratio, aligned, clockwise)
        attrs = dict(output_height=3, output_width=4, spatial_scale=0.5, sampling_ratio=ratio, aligned=aligned,
                     clockwise=clockwise)
        w.case("roi_align_rotated_aligned%d_ratio%d_cw%d" % (aligned, ratio, clockwise), "mmdeploy",
               "MMCVRoIAlignRotated", [("feats", feats), ("rois", rois)], [("out", want)], attrs)
    want = ref_roi_align_rotated(feats, rois, 2, 2, 0.5, 2, 1, 0)
    w.case("roi_align_rotated_mmcv_domain", "mmcv", "MMCVRoIAlignRotated", [("feats", feats), ("rois", rois)],
           [("out", want)], dict(output_height=2, output_width=2, spatial_scale=0.5, sampling_ratio=2, aligned=1,
                                 clockwise=0))
    w.case("roi_align_rotated_no_rois", "mmdeploy", "MMCVRoIAlignRotated",
           [("feats", feats), ("rois", np.zeros((0, 6), np.float32))], [("out", np.zeros((0, 3, 7, 7), np.float32))],
           dict(spatial_scale=0.5, sampling_ratio=2, aligned=1, clockwise=0))


def multi_level_cases(w, rng):
    f0, f1 = multi_level_vector()
    roi = np.array([[0, 0, 0, 4, 4]], np.float32)
    for mode in (0, 1):
        want = ref_multi_level([f0, f1], roi, 2, 2, mode, 2, 1.0, 2, [2.0, 4.0], 1)
        w.case("multi_level_mmdeploy_vector_mode%d" % mode, "mmdeploy", "MMCVMultiLevelRoiAlign",
               [("rois", roi), ("f0", f0), ("f1", f1)], [("out", want)],
               dict(output_height=2, output_width=2, pool_mode=mode, sampling_ratio=2, roi_scale_factor=1.0,
                    finest_scale=2, featmap_strides=[2.0, 4.0], aligned=1))
    strides = [4.0, 8.0, 16.0, 32.0]
    feats = [rng.standard_normal((2, 4, int(256 / s), int(320 / s))).astype(np.float32) for s in strides]
    rois = random_rois(rng, 14, 2, 256, 320, min_size=4.0, max_size=300.0)
    rois = np.concatenate([rois, odd_rois(2, 256, 320)])
    names = [("rois", rois)] + [("f%d" % i, f) for i, f in enumerate(feats)]
    for mode, ratio, factor, aligned in ((1, 2, -1.0, 1), (0, 0, 1.5, 0), (1, 0, 0.8, 1), (0, 2, -1.0, 1)):
        want = ref_multi_level(feats, rois, 3, 3, mode, ratio, factor, 56, strides, aligned)
        w.case("multi_level_mode%d_ratio%d_factor%g_aligned%d" % (mode, ratio, factor, aligned), "mmdeploy",
               "MMCVMultiLevelRoiAlign", names, [("out", want)],
               dict(output_height=3, output_width=3, pool_mode=mode, sampling_ratio=ratio, roi_scale_factor=factor,
                    finest_scale=56, featmap_strides=strides, aligned=aligned))
    w.case("multi_level_too_few_strides", "mmdeploy", "MMCVMultiLevelRoiAlign", names, [("out", (F32, 4))],
           dict(featmap_strides=strides[:3]), error="featmap_strides")
    w.case("multi_level_no_rois", "mmdeploy", "MMCVMultiLevelRoiAlign",
           [("rois", np.zeros((0, 5), np.float32))] + names[1:], [("out", np.zeros((0, 4, 7, 7), np.float32))],
           dict(featmap_strides=strides))
    n = 14
    rrois = np.stack([rng.integers(0, 2, n), rng.uniform(0, 320, n), rng.uniform(0, 256, n),
                      rng.uniform(2, 300, n), rng.uniform(2, 300, n), rng.uniform(-math.pi, math.pi, n)], 1)
    rrois = np.concatenate([rrois, [[0, 50, 50, 0, 0, 0.5], [1, 100, 60, -20, 30, 0.1]]]).astype(np.float32)
    rnames = [("rois", rrois)] + names[1:]
    for clockwise, ratio, factor, aligned in ((0, 2, -1.0, 1), (1, 0, 1.2, 0), (1, 2, 1.0, 1)):
        want = ref_multi_level_rotated(feats, rrois, 3, 3, clockwise, ratio, factor, 56, strides, aligned)
        w.case("multi_level_rotated_cw%d_ratio%d_factor%g_aligned%d" % (clockwise, ratio, factor, aligned),
               "mmdeploy", "MMCVMultiLevelRotatedRoiAlign", rnames, [("out", want)],
               dict(output_height=3, output_width=3, clockwise=clockwise, sampling_ratio=ratio,
                    roi_scale_factor=factor, finest_scale=56, featmap_strides=strides, aligned=aligned))


def nms_rotated_cases(w, rng):
    B, C, N = 2, 3, 40
    boxes = np.stack([clustered_rboxes(rng, N, 6, 3.0) for _ in range(B)])
    scores = rng.random((B, C, N), dtype=np.float32)
    attrs = dict(iou_threshold=0.3, score_threshold=0.2)
    w.case("nms_rotated_random", "mmdeploy", "NMSRotated", [("boxes", boxes), ("scores", scores)],
           [("indices", ref_nms_rotated(boxes, scores, 0.3, 0.2))], attrs)
    eq = np.full((B, C, N), 0.5, np.float32)
    eq[:, :, ::3] = 0.75
    w.case("nms_rotated_equal_scores", "mmdeploy", "NMSRotated", [("boxes", boxes), ("scores", eq)],
           [("indices", ref_nms_rotated(boxes, eq, 0.3, 0.2))], attrs)
    nan = scores.copy()
    nan[:, :, ::4] = np.nan
    w.case("nms_rotated_nan_scores", "mmdeploy", "NMSRotated", [("boxes", boxes), ("scores", nan)],
           [("indices", ref_nms_rotated(boxes, nan, 0.3, 0.2))], attrs)
    odd = boxes.copy()
    odd[:, ::5, 2] = 0.0                      # zero width
    odd[:, 1::7, 3] = -odd[:, 1::7, 3]        # negative height
    odd[:, 2::9] = odd[:, 3::9][:, :odd[:, 2::9].shape[1]]  # duplicates
    odd[:, 4::11, 2:4] = -odd[:, 4::11, 2:4]  # both negative: a real rectangle
    odd[:, 6::13, 0] = np.nan                 # NaN and infinite boxes never suppress
    odd[:, 8::13, 2] = np.inf
    w.case("nms_rotated_degenerate", "mmdeploy", "NMSRotated", [("boxes", odd), ("scores", scores)],
           [("indices", ref_nms_rotated(odd, scores, 0.3, 0.2))], attrs)
    same = np.tile(boxes[:, :1], (1, N, 1))
    w.case("nms_rotated_all_suppressed", "mmdeploy", "NMSRotated", [("boxes", same), ("scores", scores)],
           [("indices", ref_nms_rotated(same, scores, 0.3, 0.2))], attrs)
    w.case("nms_rotated_none_pass", "mmdeploy", "NMSRotated", [("boxes", boxes), ("scores", scores)],
           [("indices", np.zeros((0, 3), np.int64))], dict(iou_threshold=0.3, score_threshold=1.5))
    w.case("nms_rotated_missing_attribute", "mmdeploy", "NMSRotated", [("boxes", boxes), ("scores", scores)],
           [("indices", (I64, 2))], dict(iou_threshold=0.3), error="needs attributes")


def nms_match_cases(w, rng):
    B, C, N = 2, 2, 30
    boxes = np.stack([clustered_boxes(rng, N, 5, 6.0) for _ in range(B)])
    scores = rng.random((B, C, N), dtype=np.float32)
    for name, s, iou, thr in (("random", scores, 0.5, 0.3), ("nan_scores", np.where(np.arange(N) % 5 == 0, np.nan, scores).astype(np.float32), 0.5, 0.3),
                              ("equal_scores", np.full((B, C, N), 0.5, np.float32), 0.4, 0.1),
                              ("none_pass", scores, 0.5, 2.0)):
        w.case("nms_match_" + name, "mmdeploy", "NMSMatch",
               [("boxes", boxes), ("scores", s), ("iou_threshold", np.array([iou], np.float32)),
                ("score_threshold", np.array([thr], np.float32))],
               [("matches", ref_nms_match(boxes, s, iou, thr))], {})


def trt_nms_cases(w, rng):
    def add(name, boxes, scores, rotated=False, num_classes=None, background=-1, topk=20, keep_topk=15, iou=0.5,
            thr=0.1, clip=0, return_index=1, error=None):
        num_classes = scores.shape[2] if num_classes is None else num_classes
        attrs = dict(num_classes=num_classes, background_label_id=background, iou_threshold=iou, score_threshold=thr,
                     topk=topk, keep_topk=keep_topk, is_normalized=0, clip_boxes=clip)
        outs = [("dets", (F32, 3)), ("labels", (I32, 2))]
        if error is None:
            dets, labels, index = ref_trt_nms(boxes, scores, num_classes, background, topk, keep_topk, iou, thr, clip,
                                              rotated)
            outs = [("dets", dets), ("labels", labels)]
            if return_index and not rotated:
                outs.append(("index", index))
        if not rotated:
            attrs["return_index"] = return_index
        w.case(name, "mmdeploy", "TRTBatchedRotatedNMS" if rotated else "TRTBatchedNMS",
               [("boxes", boxes), ("scores", scores)], outs, attrs, error=error)

    B, N, C = 2, 60, 4
    boxes = np.stack([clustered_boxes(rng, N, 8, 8.0) for _ in range(B)])[:, :, None, :]
    scores = rng.random((B, N, C), dtype=np.float32)
    add("trt_nms_shared", boxes, scores)
    per = np.stack([np.stack([clustered_boxes(rng, N, 8, 8.0) for _ in range(C)], 1) for _ in range(B)])
    add("trt_nms_per_class", per, scores)
    add("trt_nms_background", boxes, scores, background=1, return_index=0)
    norm = boxes / 200.0 - 0.05
    add("trt_nms_clip", norm.astype(np.float32), scores, clip=1)
    eq = np.where(rng.random((B, N, C)) < 0.5, 0.5, 0.8).astype(np.float32)
    add("trt_nms_equal_scores", boxes, eq, topk=30, keep_topk=40)
    nan = np.where(rng.random((B, N, C)) < 0.3, np.nan, scores).astype(np.float32)
    add("trt_nms_nan_scores", boxes, nan)
    add("trt_nms_padding", boxes, scores, thr=0.93, keep_topk=20)
    add("trt_nms_none_pass", boxes, scores, thr=1.5)
    odd = boxes.copy()
    odd[:, ::6, 0, 2] = odd[:, ::6, 0, 0] - 5     # inverted x
    odd[:, 1::6, 0, 3] = odd[:, 1::6, 0, 1]       # zero height
    odd[:, 2::6] = odd[:, 3::6]                   # duplicates
    odd[:, 4::6, 0, 0] = odd[:, 3::6, 0, 2]       # left edge on another box's right edge
    add("trt_nms_invalid_boxes", odd, scores, iou=0.3)
    add("trt_nms_all_suppressed", np.tile(boxes[:, :1], (1, N, 1, 1)), scores, keep_topk=10)
    add("trt_nms_keep_topk_above_topk", boxes, scores, topk=5, keep_topk=25)
    add("trt_nms_topk_off", boxes, scores, topk=-1, keep_topk=100, iou=0.6, thr=0.05)
    add("trt_nms_bad_num_classes", boxes, scores, num_classes=3, error="num_classes")

    rb = np.stack([clustered_rboxes(rng, 40, 6, 3.0) for _ in range(B)])[:, :, None, :]
    rs = rng.random((B, 40, 3), dtype=np.float32)
    add("trt_rotated_nms_shared", rb, rs, rotated=True, iou=0.3, thr=0.2)
    rodd = rb.copy()
    rodd[:, ::7, 0, 2] = 0.0   # degenerate: IoU 1 with everything in the TensorRT plugin
    add("trt_rotated_nms_degenerate", rodd, rs, rotated=True, iou=0.3, thr=0.2)
    rper = np.stack([np.stack([clustered_rboxes(rng, 40, 6, 3.0) for _ in range(3)], 1) for _ in range(B)])
    add("trt_rotated_nms_per_class", rper, rs, rotated=True, iou=0.3, thr=0.2, topk=25, keep_topk=12)
    add("trt_rotated_nms_clip", (rb / 100.0).astype(np.float32), rs, rotated=True, iou=0.3, thr=0.2, clip=1)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "custom_ops", "det")
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    check_references()
    w = Writer(out)
    rng = np.random.default_rng(2024)
    roi_align_cases(w, rng)
    roi_align_rotated_cases(w, rng)
    multi_level_cases(w, rng)
    nms_rotated_cases(w, rng)
    nms_match_cases(w, rng)
    trt_nms_cases(w, rng)
    w.finish()
    print("wrote %d cases to %s" % (len(w.cases), out))


if __name__ == "__main__":
    main()
