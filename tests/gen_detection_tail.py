#!/usr/bin/python3
"""Exports the detection tail MMDeploy emits for multiclass NMS on ONNX Runtime, with inputs and
torch reference outputs, into OUT_DIR (default build/detection_tail).

The graph is what mmdeploy.mmcv.ops.nms (_multiclass_nms + _select_nms_index) traces to at
opset 11: ReduceMax over classes, TopK pre_top_k = 1000 with k = Where(k < dim, k, dim),
Gather of boxes and scores, Transpose of scores to (B, C, N), NonMaxSuppression
(max_output_boxes_per_class 200, iou 0.5, score 0.05), Gather/Concat into (K, 5), one all-zero
padding row, TopK keep_top_k = 100 on the scores, Gather. The reference runs the same module
eagerly, with NMS from torchvision.ops.nms per batch and class and torch.topk.

Usage: /usr/bin/python3 tests/gen_detection_tail.py [OUT_DIR]
"""
import os
import sys
import warnings

import numpy as np
import torch
import torchvision

MAX_PER_CLASS, IOU, SCORE = 200, 0.5, 0.05
PRE_TOP_K, KEEP_TOP_K = 1000, 100


class NMSop(torch.autograd.Function):
    """ONNX NonMaxSuppression when exported; torchvision.ops.nms per batch and class eagerly."""

    @staticmethod
    def forward(ctx, boxes, scores, max_out, iou, score_thr):
        batch, classes, _ = scores.shape
        rows = []
        for b in range(batch):
            for c in range(classes):
                s = scores[b, c]
                idx = torch.nonzero(s > score_thr).flatten()
                keep = torchvision.ops.nms(boxes[b, idx], s[idx], iou)[:max_out]
                rows += [[b, c, int(i)] for i in idx[keep]]
        return torch.tensor(rows, dtype=torch.long).reshape(-1, 3)

    @staticmethod
    def symbolic(g, boxes, scores, max_out, iou, score_thr):
        m = g.op("Constant", value_t=torch.tensor([max_out], dtype=torch.long))
        i = g.op("Constant", value_t=torch.tensor([iou], dtype=torch.float))
        s = g.op("Constant", value_t=torch.tensor([score_thr], dtype=torch.float))
        return g.op("NonMaxSuppression", boxes, scores, m, i, s)


def topk_dynamic(x, k, dim):
    """mmdeploy's torch.topk rewrite: k = Where(k < dim, k, dim) so k never exceeds the axis."""
    size = x.shape[dim]
    if not isinstance(size, torch.Tensor):
        size = torch.tensor(size)
    k = torch.where(torch.tensor(k) < size, torch.tensor(k), size)
    return x.topk(k, dim=dim)


class DetectionTail(torch.nn.Module):
    def forward(self, boxes, scores):
        batch = boxes.shape[0]
        max_scores, _ = scores.max(-1)
        _, topk_inds = topk_dynamic(max_scores, PRE_TOP_K, 1)
        batch_inds = torch.arange(batch).view(-1, 1).long()
        boxes = boxes[batch_inds, topk_inds, :]
        scores = scores[batch_inds, topk_inds, :].permute(0, 2, 1)
        sel = NMSop.apply(boxes, scores, MAX_PER_CLASS, IOU, SCORE)
        bi, ci, bx = sel[:, 0], sel[:, 1], sel[:, 2]
        dets = torch.cat([boxes[bi, bx, ...], scores[bi, ci, bx].unsqueeze(1)], dim=1)
        template = torch.arange(0, batch, dtype=bi.dtype)
        mine = bi == template.unsqueeze(1)
        bdets = dets.unsqueeze(0).repeat(batch, 1, 1)
        bdets = bdets.where(mine.unsqueeze(-1), bdets.new_zeros(1))
        blabels = ci.unsqueeze(0).repeat(batch, 1)
        blabels = blabels.where(mine, blabels.new_ones(1) * -1)
        n = bdets.shape[0]
        bdets = torch.cat((bdets, bdets.new_zeros((n, 1, 5))), 1)
        blabels = torch.cat((blabels, blabels.new_zeros((n, 1))), 1)
        _, top = topk_dynamic(bdets[:, :, -1], KEEP_TOP_K, 1)
        tb = torch.arange(batch, dtype=top.dtype).view(-1, 1)
        return bdets[tb, top, ...], blabels[tb, top, ...]


def random_boxes(gen, batch, n, spread=200.0):
    xy = torch.rand(batch, n, 2, generator=gen) * spread
    wh = torch.rand(batch, n, 2, generator=gen) * 60 + 1
    return torch.cat([xy, xy + wh], -1)


def cases():
    gen = torch.Generator().manual_seed(0)
    yield "random", random_boxes(gen, 1, 300), torch.rand(1, 300, 5, generator=gen)
    yield "below_threshold", random_boxes(gen, 1, 200), torch.rand(1, 200, 4, generator=gen) * SCORE
    same = random_boxes(gen, 1, 1).repeat(1, 150, 1)
    yield "identical_boxes", same, torch.rand(1, 150, 3, generator=gen)
    yield "batch2", random_boxes(gen, 2, 250), torch.rand(2, 250, 6, generator=gen)
    yield "many_boxes", random_boxes(gen, 1, 1500, 400.0), torch.rand(1, 1500, 3, generator=gen)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/detection_tail"
    os.makedirs(out, exist_ok=True)
    model = DetectionTail().eval()
    gen = torch.Generator().manual_seed(1)
    example = (random_boxes(gen, 1, 300), torch.rand(1, 300, 5, generator=gen))
    path = os.path.join(out, "tail_op11.onnx")
    if not os.path.exists(path):
        # The tracer warns about the Python-side NMS and advanced indexing; both are intended.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, example, path, opset_version=11,
                              input_names=["boxes", "scores"], output_names=["dets", "labels"],
                              dynamic_axes={"boxes": {0: "B", 1: "N"},
                                            "scores": {0: "B", 1: "N", 2: "C"}})
    for name, boxes, scores in cases():
        with torch.no_grad():
            dets, labels = model(boxes, scores)
        np.save(os.path.join(out, name + "_boxes.npy"), boxes.numpy())
        np.save(os.path.join(out, name + "_scores.npy"), scores.numpy())
        np.save(os.path.join(out, name + "_dets.npy"), dets.numpy())
        np.save(os.path.join(out, name + "_labels.npy"), labels.numpy())


if __name__ == "__main__":
    main()
