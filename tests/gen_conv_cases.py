#!/usr/bin/python3
"""Writes tests/data/conv_cases.h: torch's conv1d/2d/3d and conv_transpose1d/2d on small random
inputs, one case for each way the runtime computes a convolution (see MMD__CONV_* in
mmdeploy_ops.h) and its edges, for tests/test_kernels_conv.c.

Usage: /usr/bin/python3 tests/gen_conv_cases.py   (from the repository root)

Each case: input, weight and bias shapes and values, the attributes as ONNX spells them
(strides, pads as begin..., end..., dilations, group), and torch's output. Asymmetric pads are
applied with F.pad before an unpadded torch convolution.
"""
import os

import torch
import torch.nn.functional as F

from gen_gridsample_cases import floats

# name, input shape, out channels, kernel, strides, pads (begin..., end...), dilations, group
CASES = [
    ("pointwise", (1, 5, 7, 9), 7, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("pointwise_batch2_group2", (2, 6, 4, 5), 4, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 2),
    ("shifted_3x3_pad1", (1, 4, 9, 11), 13, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ("shifted_asym_pads_dilation2", (1, 3, 10, 8), 5, (3, 2), (1, 1), (2, 0, 1, 3), (2, 2), 1),
    ("shifted_7x7", (1, 6, 9, 10), 5, (7, 7), (1, 1), (3, 3, 3, 3), (1, 1), 1),
    ("shifted_phases_stride2", (1, 4, 11, 13), 6, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ("shifted_phases_stride3_dilation2_asym", (2, 3, 14, 12), 5, (3, 2), (3, 2), (0, 1, 2, 0), (2, 1), 1),
    ("grouped_3", (1, 6, 8, 8), 9, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3),
    ("depthwise_3x3_s1", (1, 5, 9, 10), 5, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 5),
    ("depthwise_3x3_s2", (2, 4, 11, 12), 4, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4),
    ("depthwise_5x3_s3_dil2_mult2", (1, 3, 17, 19), 6, (5, 3), (3, 3), (4, 1, 2, 3), (2, 2), 3),
    ("depthwise_wide_row", (1, 2, 3, 45), 2, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    ("depthwise_5x5_s2_wide_row", (1, 2, 6, 77), 2, (5, 5), (2, 2), (2, 2, 2, 1), (1, 1), 2),
    ("winograd_odd_pad1", (1, 5, 13, 11), 7, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ("winograd_pad0_batch2", (2, 3, 10, 9), 4, (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("winograd_pad2_asym_wide", (1, 9, 4, 66), 11, (3, 3), (1, 1), (2, 0, 1, 2), (1, 1), 1),
    ("conv1d_stride1", (1, 3, 20), 4, (3,), (1,), (2, 1), (2,), 1),
    ("conv1d_depthwise_s2", (1, 4, 21), 4, (5,), (2,), (2, 2), (1,), 4),
    ("conv3d", (1, 2, 5, 6, 7), 3, (3, 2, 3), (1, 2, 1), (1, 0, 1, 1, 1, 0), (1, 1, 2), 1),
    ("conv3d_depthwise", (1, 3, 4, 5, 6), 3, (2, 3, 3), (1, 1, 2), (0, 1, 1, 1, 1, 1), (1, 1, 1), 3),
]

# ConvTranspose: name, input shape, out channels, kernel, strides, pads (symmetric), dilations,
# group, output_padding
TRANSPOSED = [
    ("transpose_k2_s2", (1, 6, 5, 7), 4, (2, 2), (2, 2), (0, 0), (1, 1), 1, (0, 0)),
    ("transpose_k4_s2_p1", (2, 5, 6, 5), 3, (4, 4), (2, 2), (1, 1), (1, 1), 1, (0, 0)),
    ("transpose_k3_s3_dil2_group2_outpad", (1, 4, 5, 6), 6, (3, 3), (3, 3), (1, 2), (2, 2), 2, (1, 2)),
    ("transpose_1d", (1, 3, 9), 2, (3,), (2,), (1,), (1,), 1, (1,)),
]

# Depthwise planes taller than one band of padded rows (MMD__DW_BAND_FLOATS in mmdeploy_ops.h),
# computed in several bands; drawn after the others, so that adding them left those as they were.
BANDS = [
    ("depthwise_3x3_s1_bands", (1, 2, 300, 5), 2, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    ("depthwise_5x5_s2_bands_mult2", (1, 2, 280, 6), 4, (5, 5), (2, 2), (2, 2, 2, 2), (1, 1), 2),
]

# ConvTranspose with stride = kernel and no padding (MMD__CONV_DISJOINT: each output takes one
# tap), drawn last, as TRANSPOSED: with groups and a batch, in 1-D (several chunks of columns)
# and in 3-D with a kernel of 1 on one axis.
DISJOINT = [
    ("transpose_disjoint_k3_s3_group2_batch2", (2, 4, 3, 5), 6, (3, 3), (3, 3), (0, 0), (1, 1), 2, (0, 0)),
    ("transpose_disjoint_1d_k2_s2_wide", (1, 3, 70), 5, (2,), (2,), (0,), (1,), 1, (0,)),
    ("transpose_disjoint_3d_k1_axis", (1, 2, 2, 3, 4), 3, (2, 1, 2), (2, 1, 2), (0, 0, 0), (1, 1, 1), 1, (0, 0, 0)),
]

# Stride-2 depthwise with pads of either parity and a dilation (the portable build computes
# these from the padded rows' four phases, see mmd__dw_task), drawn after all the above.
PHASES = [
    ("depthwise_3x3_s2_odd_pads_dil2", (1, 3, 13, 14), 3, (3, 3), (2, 2), (0, 1, 1, 2), (2, 2), 3),
    ("depthwise_3x3_s2_pad0_odd_width", (1, 2, 9, 11), 2, (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), 2),
]

# Strided convolutions through SHIFTED's phase planes, and a strided 1x1 kernel (its stride
# passes the kernel's extent: IM2COL's then, subsampled since); drawn last.
STRIDED = [
    ("shifted_phases_7x7_s2_3ch", (1, 3, 23, 20), 8, (7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1),
    ("shifted_phases_s2x1_group2_batch2", (2, 4, 9, 10), 6, (3, 3), (2, 1), (1, 0, 2, 1), (1, 1), 2),
    ("conv1d_shifted_phases_s3", (1, 3, 25), 4, (5,), (3,), (1, 2), (1,), 1),
    ("im2col_1x1_stride2", (1, 5, 9, 11), 6, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
]

# Drawn after all of the above (so their values stay as they were): 3x3 depthwise at stride 2
# over rows of two vectors and several bands of tiles of eight rows with short last tiles, and
# a 2x2 stride-2 ConvTranspose whose rows are wider than a vector (the AVX-512 paths of
# mmd__dw_rows3s2_avx512 and of mmd__zip2_avx512).
WIDE = [
    ("depthwise_3x3_s2_wide_bands", (1, 2, 150, 40), 2, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 2),
]
WIDE_TRANSPOSED = [
    ("transpose_disjoint_k2_s2_wide_rows", (1, 3, 3, 37), 4, (2, 2), (2, 2), (0, 0), (1, 1), 1, (0, 0)),
]

# Drawn last: 2-D single-group convolutions of 1 to 4 input channels with constant weights take
# MMD__CONV_STEM on AVX-512 (mmd__stem_tile_avx512): rows of several vectors with a masked last
# one, bands of three rows with a short last band, output channels past whole panels of eight,
# one channel, stride 1 with dilation, a stride equal to the kernel, a batch of two.
STEM = [
    ("stem_7x7_s2_3ch_wide", (1, 3, 40, 70), 20, (7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1),
    ("stem_3x3_s2_1ch_asym_batch2", (2, 1, 33, 47), 9, (3, 3), (2, 2), (0, 1, 1, 0), (1, 1), 1),
    ("stem_5x4_s1_dil2_4ch", (1, 4, 19, 37), 16, (5, 4), (1, 1), (2, 3, 1, 2), (2, 1), 1),
    ("stem_4x4_s4_2ch", (1, 2, 17, 66), 7, (4, 4), (4, 4), (0, 0, 3, 2), (1, 1), 1),
]

# Pointwise convolutions of one output pixel (MMD__CONV_PIXEL: the product transposed, the
# weights as B), drawn last: a partial last panel of output channels, and a batch of two whose
# K passes one K block (MMD_GEMM_KC).
PIXEL = [
    ("pixel_1x1_partial_panel", (1, 40, 1, 1), 37, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("pixel_1x1_batch2_two_k_blocks", (2, 264, 1, 1), 70, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
]

# 5x5 depthwise at strides 1 and 2 (mmd__dw_rows5_avx512, mmd__dw_rows5s2_avx512) over rows of
# several vectors with a partial last one, in several bands with a short last tile; drawn last.
FIVE = [
    ("depthwise_5x5_s1_bands", (1, 3, 150, 37), 3, (5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 3),
    ("depthwise_5x5_s2_wide_bands", (1, 2, 100, 70), 2, (5, 5), (2, 2), (2, 2, 2, 2), (1, 1), 2),
]

# Pointwise convolutions of 7- and 14-column planes with at least 256 input channels and at
# least 48 output channels in 16s (MMD__CONV_NARROW on AVX-512: tiles of seven pixels by a
# panel of 32 to 64 channels over blocks of 64 input channels), drawn last: a batch of two at
# 7x7 whose K is four whole blocks (one panel, its tiles split between threads), 7 rows of 14
# (two tiles a row) through two panels of channels with a short last K block; then panels of
# other widths: 96 channels as two of 48, 160 as 64 + 48 + 48 (a share of the threads ending
# inside a panel), 80 as 48 + 32.
NARROW = [
    ("narrow_1x1_7x7_batch2", (2, 256, 7, 7), 64, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("narrow_1x1_7x14_two_panels_k_tail", (1, 264, 7, 14), 128, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("narrow_1x1_7x14_96ch", (1, 256, 7, 14), 96, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("narrow_1x1_7x7_160ch_k_tail", (1, 280, 7, 7), 160, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("narrow_1x1_7x7_80ch", (1, 256, 7, 7), 80, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
]

# Depthwise on planes narrower than a vector, drawn last. At stride 1 with the output the input's
# size, AVX-512 sums planes of up to 8 columns whole, flat and in place (mmd__dw_plane_avx512):
# MobileNetV2's 7x7 (four vectors), odd sizes, a dilation with asymmetric pads, a one-pixel plane,
# 12x7 (a group of four vectors and two left) with a batch and a channel multiplier; 14x14 with a
# batch and 5x5 on 11 columns with a channel multiplier take the rows. At stride 2 (in place
# on AVX-512: mmd__dw_pairs_avx512 for rows of up to 8 outputs, mmd__dw_rows3s2_avx512 beyond),
# the 14 -> 7 and 28 -> 14 shapes, odd sizes, pads at the end only, two vectors a row; 3x3 at
# stride 1 on wider rows (mmd__dw_rows3_avx512 in place) with pads on one side of each axis.
PLANES = [
    ("depthwise_3x3_s1_7x7", (1, 5, 7, 7), 5, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 5),
    ("depthwise_3x3_s1_14x14_batch2", (2, 3, 14, 14), 3, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3),
    ("depthwise_3x3_s1_odd_11x5", (1, 3, 11, 5), 3, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3),
    ("depthwise_5x5_s1_13x11_mult2", (1, 2, 13, 11), 4, (5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 2),
    ("depthwise_3x3_s1_dil2_asym_9x6", (1, 3, 9, 6), 3, (3, 3), (1, 1), (1, 3, 3, 1), (2, 2), 3),
    ("depthwise_3x3_s1_one_pixel", (1, 4, 1, 1), 4, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4),
    ("depthwise_3x3_s2_14x14", (1, 5, 14, 14), 5, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 5),
    ("depthwise_3x3_s2_28x28_batch2", (2, 3, 28, 28), 3, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 3),
    ("depthwise_3x3_s2_odd_13x9", (1, 3, 13, 9), 3, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 3),
    ("depthwise_3x3_s2_pad_end_8x6", (1, 2, 8, 6), 2, (3, 3), (2, 2), (0, 0, 1, 1), (1, 1), 2),
    ("depthwise_3x3_s2_pad_end_wide", (1, 2, 21, 40), 2, (3, 3), (2, 2), (0, 0, 1, 1), (1, 1), 2),
    ("depthwise_3x3_s2_two_vectors_mult2", (1, 2, 10, 64), 4, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 2),
    ("depthwise_3x3_s1_wide_asym_pads", (1, 2, 20, 37), 2, (3, 3), (1, 1), (0, 2, 2, 0), (1, 1), 2),
    ("depthwise_3x3_s1_12x7_batch2_mult2", (2, 2, 12, 7), 4, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
]

# Strided 1x1 kernels, their input subsampled into scratch and run as pointwise (p->sub), drawn
# last: ResNet's downsampling shortcut at 7x7 out of an odd size through NARROW in a batch of
# two, unequal strides through the product, and 1-D. The first one's input is scaled by 1/4
# (its last value): a sum of 256 products of unit normals can cancel to an output near 0 whose
# float error then passes the unpacked check's 1e-5 * (1 + |y|) (1.1e-5 in one draw).
SUBSAMPLED = [
    ("sub_1x1_s2_narrow_7x7_batch2", (2, 256, 13, 14), 64, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1, 0.25),
    ("sub_1x1_s3x2_product", (1, 7, 17, 23), 9, (1, 1), (3, 2), (0, 0, 0, 0), (1, 1), 1),
    ("sub_1x1_1d_s4", (1, 5, 30), 6, (1,), (4,), (0, 0), (1,), 1),
]

# NARROW below MMD__NARROW_K_MIN input channels, where the product's 32-column panels would
# leave a fifth of their columns or more empty (49 and 98 pixels), drawn after the lists above:
# MobileNetV2's expansion at 7x7 with its K of 160 (two whole K blocks and a short one) into two
# panels of 48, and a batch of two at 14x7 whose K of 24 is one short block.
NARROW_SMALL_K = [
    ("narrow_small_k_1x1_7x7_k160", (1, 160, 7, 7), 96, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("narrow_small_k_1x1_14x7_k24_batch2", (2, 24, 14, 7), 48, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
]

# Pointwise convolutions through SWEEP (test_kernels_conv.c lowers its size floor and its input
# bound, and makes its blocks 96 columns), drawn after NARROW_SMALL_K: 667 columns in blocks of
# 96 with a partial last panel and 20 output channels (a partial last row panel); two groups in
# a batch of two; a strided 1x1 (its input subsampled first); 40 input channels (K past 32).
SWEPT = [
    ("sweep_1x1_blocks", (1, 12, 23, 29), 20, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ("sweep_1x1_group2_batch2", (2, 8, 16, 33), 20, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 2),
    ("sweep_1x1_s2", (1, 6, 40, 50), 24, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    ("sweep_1x1_k40", (1, 40, 9, 30), 24, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
]

# Strided 1x1 kernels whose subsampling takes the even columns by permutes on AVX-512 (rows of
# 16 outputs or more, mmd__conv_sub_range), drawn after SWEPT: 34 outputs a row out of 67
# columns (two whole vectors and a masked tail of 3) with 10 input channels, and 32 outputs a row
# out of 64 (one whole vector and a tail of 31) with 64 channels in a batch of two.
SUBSAMPLED_WIDE = [
    ("sub_1x1_s2_rows_of_34", (1, 10, 9, 67), 12, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    ("sub_1x1_s2_rows_of_32_batch2", (2, 64, 6, 64), 16, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
]

# Drawn after SUBSAMPLED_WIDE: a 3x3 stride-2 SHIFTED convolution of 24 input channels (K = 216,
# past the 160 up to which any product may take the portable build's SPREAD) over 272 product
# columns, which SHIFTED's products spread at any K (mmd__gemm_block, MMD_NO_SIMD builds).
SPREAD = [
    ("shifted_spread_3x3_s2_k216", (1, 24, 30, 34), 8, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
]

# 3x3 stride-1 planes below MMD_WINOGRAD_TILES_MIN 4x4 tiles (26 in test_kernels_conv.c), which
# the x86 vector builds run as whichever of F(2x2, 3x3) and F(4x4, 3x3) computes fewer panel
# columns (mmd__wino_plan), drawn after SPREAD: 10x10 (9 tiles of 4x4 in one panel,
# 25 of 2x2 in as many, rows packed 6 columns apart) as F(2x2); 20x19 (25 tiles of 4x4 in one
# panel, rows packed 6 apart, 100 of 2x2 in more) as F(4x4), on AVX-512 (32-column panels)
# and AVX2 (16) alike. test_kernels_conv checks that they take those.
WINO_SMALL = [
    ("winograd_small_f2_10x10", (1, 6, 10, 10), 5, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ("winograd_small_f4_20x19", (1, 4, 20, 19), 6, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
]

# Portable 3x3 depthwise kernels (mmd__dw9_c, mmd__dw9x4_c), drawn after WINO_SMALL: planes of up
# to 28 input columns run four channels at once, the channels left over on the rows: 6 channels
# at 11x13 with a dilation and asymmetric pads; a batch of two of 5 channels at stride 2 with no
# padding and odd sizes (the second quad straddles the two images); 4 channels at 14x14 stride 2
# with pads at the end only; 7 channels at 16x29, just past the quads' width, so rows of 29 run
# three whole steps and a partial one; and nine taps that are not 3x3 (1x9, the rows' kernel,
# not the quads').
DW9 = [
    ("dw9_quads_dil2_asym_11x13", (1, 6, 11, 13), 6, (3, 3), (1, 1), (2, 0, 1, 2), (2, 2), 6),
    ("dw9_quads_s2_pad0_batch2_13x11", (2, 5, 13, 11), 5, (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), 5),
    ("dw9_quads_s2_pad_end_14x14", (1, 4, 14, 14), 4, (3, 3), (2, 2), (0, 0, 1, 1), (1, 1), 4),
    ("dw9_rows_16x29", (1, 7, 16, 29), 7, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 7),
    ("dw9_rows_1x9", (1, 5, 6, 12), 5, (1, 9), (1, 1), (0, 4, 0, 4), (1, 1), 5),
]

# The portable STEM's six-row tiles (mmd__stem_six: channels in panels of six, the last four or
# eight in fours), drawn after DW9, with rows whose last tile of columns is partial (odd widths):
# 32 channels (6, 6, 6, 6, 4, 4: MobileNetV2's stem), 24 (all sixes), 16 (6, 6, 4: the DBNet's),
# 8 (4, 4), and 22 (four sixes, the last with four channels through the edge tile).
STEM_SIX = [
    ("stem_six_3x3_s2_32ch_odd", (1, 3, 21, 27), 32, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ("stem_six_3x3_s2_24ch_odd", (1, 3, 18, 35), 24, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ("stem_six_3x3_s2_16ch_odd", (1, 3, 16, 33), 16, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ("stem_six_3x3_s2_8ch_2in", (1, 2, 15, 31), 8, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ("stem_six_3x3_s2_22ch_odd", (1, 3, 13, 29), 22, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
]

# Portable nine-tap rows of one vector a step (mmd__dw9_c), drawn after STEM_SIX: stride-1 planes
# of up to 28 input columns whose output rows are whole vectors of at least 16 outputs take the
# rows instead of the quads (mmd__dw_quad_floats): 20 and 28 columns, and 26 columns (rows of 26
# outputs, partial last steps) on the quads, each with a batch or odd rows; rows shorter than a
# step (two outputs of a 1x9 kernel), which go through a step's copy.
DW9_STEPS = [
    ("dw9_rows_s1_20_columns_batch2", (2, 5, 13, 20), 5, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 5),
    ("dw9_rows_s1_28x28", (1, 6, 28, 28), 6, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 6),
    ("dw9_quads_s1_26_columns", (1, 5, 9, 26), 5, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 5),
    ("dw9_rows_1x9_two_columns", (1, 3, 5, 10), 3, (1, 9), (1, 1), (0, 0, 0, 0), (1, 1), 3),
]


def ints(v):
    return ", ".join(str(int(i)) for i in v)


def main():
    torch.manual_seed(20261125)
    lines = ["/* Generated by tests/gen_conv_cases.py from torch %s; do not edit. */" % torch.__version__,
             "struct conv_case {",
             "    const char *name;",
             "    int32_t rank, group, transposed;",
             "    int64_t x_dims[5], w_dims[5], y_dims[5], strides[3], pads[6], dilations[3], output_padding[3];",
             "    const float *x, *w, *b, *y;",
             "};"]
    entries = []
    def add(name, shape, m, k, s, pads, d, g, scale=1.0):
        i = len(entries)
        n = len(k)
        x = torch.randn(*shape) * scale
        w = torch.randn(m, shape[1] // g, *k)
        b = torch.randn(m)
        # F.pad takes (last begin, last end, previous begin, previous end, ...).
        fp = []
        for a in reversed(range(n)):
            fp += [pads[a], pads[a + n]]
        conv = [F.conv1d, F.conv2d, F.conv3d][n - 1]
        y = conv(F.pad(x, fp), w, b, stride=s, dilation=d, groups=g)
        for tag, t in (("x", x), ("w", w), ("b", b), ("y", y)):
            lines.append("static const float conv_%s_%d[] = {%s};" % (tag, i, floats(t)))
        entries.append('    {"%s", %d, %d, 0, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {0}, conv_x_%d, conv_w_%d, conv_b_%d, conv_y_%d},'
                       % (name, len(shape), g, ints(shape), ints(w.shape), ints(y.shape), ints(s), ints(pads), ints(d),
                          i, i, i, i))

    def add_transposed(name, shape, m, k, s, p, d, g, op):
        i = len(entries)
        n = len(k)
        x = torch.randn(*shape)
        w = torch.randn(shape[1], m // g, *k)
        b = torch.randn(m)
        conv = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][n - 1]
        y = conv(x, w, b, stride=s, padding=p, output_padding=op, groups=g, dilation=d)
        for tag, t in (("x", x), ("w", w), ("b", b), ("y", y)):
            lines.append("static const float conv_%s_%d[] = {%s};" % (tag, i, floats(t)))
        entries.append('    {"%s", %d, %d, 1, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, conv_x_%d, conv_w_%d, conv_b_%d, conv_y_%d},'
                       % (name, len(shape), g, ints(shape), ints(w.shape), ints(y.shape), ints(s), ints(p + p), ints(d),
                          ints(op), i, i, i, i))

    # The lists in the order their cases were added, so that every case keeps its random draws.
    for cases, make in ((CASES, add), (TRANSPOSED, add_transposed), (BANDS, add), (DISJOINT, add_transposed),
                        (PHASES, add), (STRIDED, add), (WIDE, add), (WIDE_TRANSPOSED, add_transposed), (STEM, add),
                        (PIXEL, add), (FIVE, add), (NARROW, add), (PLANES, add), (SUBSAMPLED, add),
                        (NARROW_SMALL_K, add), (SWEPT, add), (SUBSAMPLED_WIDE, add),
                        (SPREAD, add), (WINO_SMALL, add), (DW9, add), (STEM_SIX, add),
                        (DW9_STEPS, add)):
        for case in cases:
            make(*case)
    lines.append("static const struct conv_case conv_cases[] = {")
    lines += entries
    lines.append("};")
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "conv_cases.h")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
