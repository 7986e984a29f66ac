#!/usr/bin/python3
"""Writes one ONNX model per case for MMDeploy's custom sampling and attention operators, with
input and expected output .npy files computed by Debian's PyTorch and torchvision.

usage: gen_custom_ops_sampling.py [OUT_DIR]     (default build/custom_ops/sampling)

OUT_DIR/cases.json lists the cases: name, model, inputs {name: file}, outputs {name: file} (paths
relative to OUT_DIR) and, for models the runtime must refuse, "error": a text the failure must
contain. The operators are
those in mmdeploy_ops.h: mmdeploy::grid_sampler, MMCVModulatedDeformConv2d,
MMCVDeformConv2d, MMCVMultiScaleDeformableAttention, ScaledDotProductAttentionTRT, GatherTopk,
TRTInstanceNormalization, TRTBicubicInterpolate and GridPriorsTRT.
"""
import json
import os
import sys

import numpy as np

# onnx 1.12 still reads these aliases, which numpy 1.24 removed.
np.float = float
np.int = int
np.bool = bool
np.object = object

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

DTYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32,
          np.dtype(np.int64): TensorProto.INT64}


class Writer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.cases = []
        os.makedirs(out_dir, exist_ok=True)

    def case(self, name, op, inputs, outputs, attrs=None, domain="mmdeploy", error=None):
        """inputs: list of (name, array or None for an absent optional input); outputs: list of
        (name, expected array, or None for an absent optional output). With error set the
        expected arrays are not written and the run must fail with that text."""
        node_in = [n if a is not None else "" for n, a in inputs]
        node_out = [n if a is not None or error else "" for n, a in outputs]
        while node_out and not node_out[-1]:
            node_out.pop()
        node = helper.make_node(op, node_in, node_out, domain=domain, **(attrs or {}))
        g_in = [helper.make_tensor_value_info(n, DTYPES[a.dtype], list(a.shape))
                for n, a in inputs if a is not None]
        g_out = [helper.make_tensor_value_info(n, TensorProto.FLOAT if a is None else DTYPES[a.dtype], None)
                 for n, a in outputs if n in node_out]
        graph = helper.make_graph([node], name, g_in, g_out)
        model = helper.make_model(graph, producer_name="gen_custom_ops_sampling",
                                  opset_imports=[helper.make_opsetid("", 13),
                                                 helper.make_opsetid(domain, 1)])
        model.ir_version = 8
        d = os.path.join(self.out_dir, name)
        os.makedirs(d, exist_ok=True)
        onnx.save(model, os.path.join(d, "model.onnx"))
        entry = {"name": name, "model": os.path.join(name, "model.onnx"), "inputs": {}, "outputs": {}}
        for n, a in inputs:
            if a is not None:
                np.save(os.path.join(d, "in_" + n + ".npy"), np.ascontiguousarray(a))
                entry["inputs"][n] = os.path.join(name, "in_" + n + ".npy")
        if error:
            entry["error"] = error
        else:
            for n, a in outputs:
                if a is not None:
                    np.save(os.path.join(d, "ref_" + n + ".npy"), np.ascontiguousarray(a))
                    entry["outputs"][n] = os.path.join(name, "ref_" + n + ".npy")
        self.cases.append(entry)

    def finish(self):
        with open(os.path.join(self.out_dir, "cases.json"), "w") as f:
            json.dump(self.cases, f, indent=1)


def t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def f32(a):
    return np.asarray(a, dtype=np.float32)


# ---- grid_sampler ------------------------------------------------------------------------------
def gen_grid_sampler(w, rng):
    modes = ["bilinear", "nearest", "bicubic"]
    paddings = ["zeros", "border", "reflection"]
    x = f32(rng.standard_normal((2, 3, 5, 7)))
    grid = f32(rng.uniform(-1.3, 1.3, (2, 4, 6, 2)))
    # Points on pixel centres and edges and far outside, where rounding and padding decide.
    grid[0, 0, :, 0] = [-1.0, 1.0, 0.0, -1.0 + 1.0 / 7, 40.0, -1e3]
    grid[0, 0, :, 1] = [-1.0, 1.0, 0.0, 1.0 - 1.0 / 5, -40.0, 1e3]
    for mi, mode in enumerate(modes):
        for pi, padding in enumerate(paddings):
            for align in (0, 1):
                ref = F.grid_sample(t(x), t(grid), mode=mode, padding_mode=padding, align_corners=bool(align))
                w.case("grid_sampler_%s_%s_align%d" % (mode, padding, align), "grid_sampler",
                       [("input", x), ("grid", grid)], [("output", ref.numpy())],
                       {"interpolation_mode": mi, "padding_mode": pi, "align_corners": align})
    # Attributes left to their defaults: bilinear, zeros, align_corners 0; a grid of more points
    # than the kernel takes in one chunk (16384).
    xb = f32(rng.standard_normal((1, 2, 9, 11)))
    gb = f32(rng.uniform(-1.1, 1.1, (1, 130, 131, 2)))
    ref = F.grid_sample(t(xb), t(gb), mode="bilinear", padding_mode="zeros", align_corners=False)
    w.case("grid_sampler_defaults_many_points", "grid_sampler", [("input", xb), ("grid", gb)],
           [("output", ref.numpy())])
    ref = F.grid_sample(t(x), t(grid), mode="bicubic", padding_mode="border", align_corners=True)
    w.case("grid_sampler_mmcv_domain", "grid_sampler", [("input", x), ("grid", grid)], [("output", ref.numpy())],
           {"interpolation_mode": 2, "padding_mode": 1, "align_corners": 1}, domain="mmcv")
    x0 = f32(np.zeros((0, 3, 5, 7)))
    g0 = f32(np.zeros((0, 4, 6, 2)))
    w.case("grid_sampler_empty_batch", "grid_sampler", [("input", x0), ("grid", g0)],
           [("output", f32(np.zeros((0, 3, 4, 6))))], {"interpolation_mode": 0, "padding_mode": 0, "align_corners": 0})
    # An empty plane samples zeros (and has nothing a tap could read).
    w.case("grid_sampler_empty_plane", "grid_sampler", [("input", f32(np.zeros((2, 3, 0, 7)))), ("grid", grid)],
           [("output", f32(np.zeros((2, 3, 4, 6))))], {"interpolation_mode": 2, "padding_mode": 1, "align_corners": 1})
    w.case("grid_sampler_bad_grid", "grid_sampler", [("input", x), ("grid", f32(np.zeros((2, 4, 6, 3))))],
           [("output", None)], error="grid [2,4,6,3] does not fit input [2,3,5,7]")


# ---- deformable convolution --------------------------------------------------------------------
def deform_case(w, rng, name, n, c, h, wd, co, k, stride, pad, dil, groups, dgroups, offset_scale,
                modulated=True, bias=True, mask_zeros=False, domain="mmdeploy", pad_attr=None):
    kh, kw = k
    ho = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    x = f32(rng.standard_normal((n, c, h, wd)))
    off = f32(rng.standard_normal((n, dgroups * 2 * kh * kw, ho, wo)) * offset_scale)
    wt = f32(rng.standard_normal((co, c // groups, kh, kw)) * 0.3)
    b = f32(rng.standard_normal((co,))) if bias and modulated else None
    mask = f32(rng.uniform(0, 1, (n, dgroups * kh * kw, ho, wo))) if modulated else None
    if mask_zeros:
        mask[:, ::2] = 0.0
    ref = torchvision.ops.deform_conv2d(t(x), t(off), t(wt), None if b is None else t(b), stride=stride,
                                        padding=pad, dilation=dil,
                                        mask=None if mask is None else t(mask)).numpy()
    attrs = {"stride": list(stride), "padding": list(pad_attr or pad), "dilation": list(dil),
             "groups": groups, "deform_groups": dgroups}
    if modulated:
        ins = [("input", x), ("offset", off), ("mask", mask), ("weight", wt)]
        if b is not None:
            ins.append(("bias", b))
        w.case(name, "MMCVModulatedDeformConv2d", ins, [("output", ref)], attrs, domain=domain)
    else:
        # MMCVDeformConv2d has no bias input: mmcv's DCNv1 is always built without one.
        w.case(name, "MMCVDeformConv2d", [("input", x), ("offset", off), ("weight", wt)], [("output", ref)],
               attrs, domain=domain)


def gen_deform_conv(w, rng):
    deform_case(w, rng, "mdcn_basic", 1, 4, 7, 7, 6, (3, 3), (1, 1), (1, 1), (1, 1), 1, 1, 1.0)
    deform_case(w, rng, "mdcn_batch2_stride2_dilation2", 2, 3, 9, 8, 5, (3, 3), (2, 2), (2, 2), (2, 2), 1, 1, 1.5)
    deform_case(w, rng, "mdcn_groups2_deform_groups2_far_offsets", 2, 8, 6, 7, 6, (3, 3), (1, 1), (1, 1), (1, 1),
                2, 2, 20.0)
    deform_case(w, rng, "mdcn_deform_groups4_mask_zeros", 1, 8, 6, 6, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, 4, 2.0,
                mask_zeros=True)
    deform_case(w, rng, "mdcn_groups4_deform_groups2", 1, 8, 5, 6, 8, (3, 3), (1, 1), (1, 1), (1, 1), 4, 2, 1.0)
    deform_case(w, rng, "mdcn_no_bias_kernel3x2_stride2x1", 1, 4, 8, 7, 3, (3, 2), (2, 1), (1, 0), (1, 2), 1, 1, 0.7,
                bias=False)
    # More output pixels than one column tile (128), and channels that make long columns.
    deform_case(w, rng, "mdcn_many_pixels", 1, 16, 20, 17, 12, (3, 3), (1, 1), (1, 1), (1, 1), 1, 1, 2.0)
    deform_case(w, rng, "mdcn_mmcv_domain", 1, 4, 6, 6, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, 1, 1.0, domain="mmcv")
    deform_case(w, rng, "mdcn_empty_batch", 0, 4, 6, 6, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, 1, 1.0)
    # An empty input plane (padding makes room for the kernel) samples zeros: the output is the bias.
    b = f32(rng.standard_normal(3))
    w.case("mdcn_empty_plane", "MMCVModulatedDeformConv2d",
           [("input", f32(np.zeros((2, 4, 0, 3)))), ("offset", f32(rng.standard_normal((2, 18, 2, 3)))),
            ("mask", f32(np.ones((2, 9, 2, 3)))), ("weight", f32(rng.standard_normal((3, 4, 3, 3)))), ("bias", b)],
           [("output", np.broadcast_to(b[None, :, None, None], (2, 3, 2, 3)).copy())],
           {"stride": [1, 1], "padding": [2, 1], "dilation": [1, 1], "groups": 1, "deform_groups": 1})
    # MMDeploy's exporter writes DCNv1's padding as [ph, ph, pw, pw]; mmcv's own as [ph, pw].
    deform_case(w, rng, "dcn_v1_padding_pairs", 2, 6, 7, 8, 4, (3, 3), (1, 1), (1, 2), (1, 1), 1, 2, 1.5,
                modulated=False, pad_attr=[1, 1, 2, 2])
    deform_case(w, rng, "dcn_v1_mmcv_groups2", 1, 6, 6, 6, 4, (3, 3), (2, 2), (1, 1), (1, 1), 2, 3, 3.0,
                modulated=False, domain="mmcv")
    # Refused models: offset channels that are not deform_groups * 2 * kh * kw, and groups that do
    # not divide the channels.
    x = f32(rng.standard_normal((1, 4, 5, 5)))
    wt = f32(rng.standard_normal((4, 4, 3, 3)))
    w.case("mdcn_bad_offset_channels", "MMCVModulatedDeformConv2d",
           [("input", x), ("offset", f32(np.zeros((1, 16, 5, 5)))), ("mask", f32(np.ones((1, 9, 5, 5)))),
            ("weight", wt)], [("output", None)],
           {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 1, "deform_groups": 1},
           error="offset 'offset' has shape [1,16,5,5], expects [1,18,5,5]")
    w.case("dcn_bad_groups", "MMCVDeformConv2d",
           [("input", x), ("offset", f32(np.zeros((1, 18, 5, 5)))), ("weight", f32(np.zeros((4, 1, 3, 3))))],
           [("output", None)],
           {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 3, "deform_groups": 1},
           error="groups 3 does not divide the 4 input and 4 output channels")


# ---- multi-scale deformable attention ----------------------------------------------------------
def msda_reference(value, shapes, start, loc, attn):
    """mmcv's multi_scale_deform_attn_pytorch, written again from its definition: each level's
    values as a [bs * heads, dim, H, W] image, sampled by grid_sample (bilinear, zeros,
    align_corners=False) at 2 * loc - 1, weighted and summed over levels and points."""
    bs, _, nh, d = value.shape
    _, nq, _, _, npt, _ = loc.shape
    out = torch.zeros(bs, nh, d, nq)
    for lvl, (hh, ww) in enumerate(shapes.tolist()):
        s = int(start[lvl])
        v = value[:, s:s + hh * ww].permute(0, 2, 3, 1).reshape(bs * nh, d, hh, ww)
        g = (2 * loc[:, :, :, lvl] - 1).transpose(1, 2).reshape(bs * nh, nq, npt, 2)
        sv = F.grid_sample(v, g, mode="bilinear", padding_mode="zeros", align_corners=False)
        a = attn[:, :, :, lvl].transpose(1, 2).reshape(bs * nh, 1, nq, npt)
        out += (sv * a).sum(-1).view(bs, nh, d, nq)
    return out.permute(0, 3, 1, 2).reshape(bs, nq, nh * d)


def check_msda_reference():
    """The reference on a case worked by hand: one 2x2 level, one head, one value per key."""
    value = torch.tensor([1.0, 2.0, 3.0, 4.0]).view(1, 4, 1, 1)
    shapes = torch.tensor([[2, 2]])
    start = torch.tensor([0])
    # (0.5, 0.5) is the centre of the map: the mean of the four keys, 2.5. (0.25, 0.25) is the
    # centre of pixel (0, 0): key 0, 1.0. (0.75, 0.25) is pixel (x=1, y=0): key 1, 2.0.
    # (0, 0.25) is x = -0.5 on row 0: half of key 0 and half of the zero outside, 0.5.
    loc = torch.tensor([[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.0, 0.25]]).view(1, 4, 1, 1, 1, 2)
    attn = torch.tensor([1.0, 1.0, 0.5, 2.0]).view(1, 4, 1, 1, 1)
    got = msda_reference(value, shapes, start, loc, attn).flatten().tolist()
    want = [2.5, 1.0, 1.0, 1.0]
    assert np.allclose(got, want), (got, want)


def gen_msda(w, rng):
    check_msda_reference()

    def case(name, bs, nh, d, shapes, nq, npt, idx_dtype, domain="mmdeploy", error=None, start=None):
        shapes = np.array(shapes, dtype=np.int64).reshape(-1, 2)
        levels = shapes.shape[0]
        if start is None:
            start = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])[:-1]]).astype(np.int64)
        keys = int((shapes[:, 0] * shapes[:, 1]).sum())
        value = f32(rng.standard_normal((bs, keys, nh, d)))
        loc = f32(rng.uniform(-0.15, 1.15, (bs, nq, nh, levels, npt, 2)))
        attn = f32(rng.uniform(0, 1, (bs, nq, nh, levels, npt)))
        attn /= np.maximum(attn.sum(axis=(3, 4), keepdims=True), 1e-6)
        ref = None if error else msda_reference(t(value), t(shapes), t(start), t(loc), t(attn)).numpy()
        w.case(name, "MMCVMultiScaleDeformableAttention",
               [("value", value), ("spatial_shapes", shapes.astype(idx_dtype)),
                ("level_start_index", np.asarray(start).astype(idx_dtype)), ("sampling_locations", loc),
                ("attention_weights", attn)], [("output", ref)], {"im2col_step": 64}, domain=domain, error=error)

    case("msda_basic", 1, 2, 4, [[4, 5], [2, 3], [1, 1]], 5, 2, np.int64)
    case("msda_batch2_int32", 2, 3, 8, [[6, 4], [3, 2]], 7, 4, np.int32)
    case("msda_mmcv_domain", 1, 1, 3, [[3, 3]], 4, 1, np.int64, domain="mmcv")
    case("msda_empty_queries", 1, 2, 4, [[2, 2]], 0, 2, np.int64)
    case("msda_bad_level_start", 1, 2, 4, [[2, 3], [2, 2]], 3, 2, np.int64, start=[0, 7],
         error="level 1: 2x2 keys from key 7 do not fit the 10 keys of value")


# ---- ScaledDotProductAttentionTRT ----------------------------------------------------------------
def gen_sdpa(w, rng):
    def reference(q, k, v, mask):
        e = q.shape[-1]
        attn = torch.bmm(t(q) / np.sqrt(e), t(k).transpose(1, 2))
        if mask is not None:
            attn = attn + t(mask)
        attn = attn.softmax(-1)
        return torch.bmm(attn, t(v)).numpy(), attn.numpy()

    b, lq, ls, e = 2, 3, 5, 8
    q = f32(rng.standard_normal((b, lq, e)))
    k = f32(rng.standard_normal((b, ls, e)))
    v = f32(rng.standard_normal((b, ls, e)))
    out, attn = reference(q, k, v, None)
    w.case("sdpa_no_mask", "ScaledDotProductAttentionTRT", [("q", q), ("k", k), ("v", v)],
           [("output", out), ("attn", attn)])
    mask2 = f32(np.where(rng.uniform(0, 1, (lq, ls)) < 0.3, -1e4, 0.0))
    out, attn = reference(q, k, v, mask2)
    w.case("sdpa_mask_2d", "ScaledDotProductAttentionTRT", [("q", q), ("k", k), ("v", v), ("mask", mask2)],
           [("output", out), ("attn", attn)])
    mask3 = f32(rng.standard_normal((b, lq, ls)))
    out, attn = reference(q, k, v, mask3)
    w.case("sdpa_mask_3d", "ScaledDotProductAttentionTRT", [("q", q), ("k", k), ("v", v), ("mask", mask3)],
           [("output", out), ("attn", attn)])
    out, attn = reference(q, k, v, mask3[:1])
    w.case("sdpa_mask_3d_broadcast_batch_output_only", "ScaledDotProductAttentionTRT",
           [("q", q), ("k", k), ("v", v), ("mask", mask3[:1].copy())], [("output", out), ("attn", None)])


# ---- GatherTopk --------------------------------------------------------------------------------
def gen_gather_topk(w, rng):
    def case(name, data, index, error=None):
        ri = index.ndim
        ref = None
        if not error:
            lead = data.shape[:ri - 1]
            flat = data.reshape((int(np.prod(lead, dtype=np.int64)), data.shape[ri - 1]) + data.shape[ri:])
            idx = index.reshape(flat.shape[0], -1).astype(np.int64)
            ref = np.stack([flat[i][idx[i]] for i in range(flat.shape[0])]).reshape(index.shape + data.shape[ri:])
        w.case(name, "GatherTopk", [("data", data), ("index", index)], [("output", ref)], error=error)

    data = f32(rng.standard_normal((2, 6, 3)))
    case("gather_topk_boxes_int32", data, rng.integers(0, 6, (2, 4)).astype(np.int32))
    case("gather_topk_int64_index", data, rng.integers(0, 6, (2, 6)).astype(np.int64))
    case("gather_topk_int32_data", rng.integers(-50, 50, (3, 2, 5)).astype(np.int32),
         rng.integers(0, 5, (3, 2, 3)).astype(np.int32))
    case("gather_topk_rank1_index", data[0].copy(), np.array([5, 0, 2], dtype=np.int32))
    case("gather_topk_empty_index", data, np.zeros((2, 0), dtype=np.int32))
    case("gather_topk_index_out_of_range", data, np.array([[0, 6], [1, 2]], dtype=np.int32),
         error="index 6 at position 1 is outside [0, 6)")


# ---- TRTInstanceNormalization ------------------------------------------------------------------
def gen_instance_norm(w, rng):
    for name, shape, unit in (("instance_norm_group_norm_rewrite", (2, 4, 30), True),
                              ("instance_norm_4d_affine", (2, 3, 5, 6), False)):
        x = f32(rng.standard_normal(shape) * 3 + 1)
        c = shape[1]
        scale = f32(np.ones(c)) if unit else f32(rng.standard_normal(c))
        bias = f32(np.zeros(c)) if unit else f32(rng.standard_normal(c))
        eps = 1e-5 if unit else 1e-3
        ref = F.instance_norm(t(x), weight=t(scale), bias=t(bias), eps=eps).numpy()
        w.case(name, "TRTInstanceNormalization", [("input", x), ("scale", scale), ("B", bias)],
               [("output", ref)], {"epsilon": eps})


# ---- TRTBicubicInterpolate -------------------------------------------------------------------------
def gen_bicubic(w, rng):
    x = f32(rng.standard_normal((2, 3, 5, 6)))
    for name, scale, align in (("bicubic_x2", (2.0, 2.0), 0), ("bicubic_x2_align", (2.0, 2.0), 1),
                               ("bicubic_1.5x3", (1.5, 3.0), 0), ("bicubic_7_over_5_align", (7.0 / 5.0, 1.0), 1)):
        s32 = [float(np.float32(s)) for s in scale]
        size = (int(np.floor(5 * scale[0] + 1e-9)), int(np.floor(6 * scale[1] + 1e-9)))
        ref = F.interpolate(t(x), size=size, mode="bicubic", align_corners=bool(align)).numpy()
        w.case(name, "TRTBicubicInterpolate", [("input", x)], [("output", ref)],
               {"scale_factor": s32, "align_corners": align})


# ---- GridPriorsTRT ------------------------------------------------------------------------------
def gen_grid_priors(w, rng):
    for name, a, h, wd, sh, sw in (("grid_priors_3x4x5", 3, 4, 5, 8, 16), ("grid_priors_single", 1, 1, 1, 32, 32),
                                   ("grid_priors_empty_map", 2, 0, 3, 4, 4)):
        base = f32(rng.uniform(-20, 20, (a, 4)))
        # mmdet's single_level_grid_priors: shifts in row-major order, every base anchor at each.
        xx, yy = np.meshgrid(np.arange(wd) * sw, np.arange(h) * sh)
        shifts = np.stack([xx.ravel(), yy.ravel(), xx.ravel(), yy.ravel()], axis=1).astype(np.float32)
        ref = (t(base)[None, :, :] + t(shifts)[:, None, :]).reshape(-1, 4).numpy()
        w.case(name, "GridPriorsTRT", [("base_anchors", base), ("h_provider", np.zeros(h, dtype=np.int64)),
                                       ("w_provider", np.zeros(wd, dtype=np.int64))], [("output", ref)],
               {"stride_h": sh, "stride_w": sw})


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join("build", "custom_ops", "sampling")
    rng = np.random.default_rng(20240611)
    torch.manual_seed(0)
    w = Writer(out_dir)
    gen_grid_sampler(w, rng)
    gen_deform_conv(w, rng)
    gen_msda(w, rng)
    gen_sdpa(w, rng)
    gen_gather_topk(w, rng)
    gen_instance_norm(w, rng)
    gen_bicubic(w, rng)
    gen_grid_priors(w, rng)
    w.finish()
    print("%d cases in %s" % (len(w.cases), out_dir))


if __name__ == "__main__":
    main()
