#!/usr/bin/env python3
"""Generates tests/fixtures/nn_ops.json: outputs and gradients computed by PyTorch (CPU) for the
model ops (convolution, pooling, padding, strided slices, attention, interpolation, one_hot),
in the case format of scripts/gen_grad_fixtures.py, which the Rust suite
(tests/nn_fixtures.rs) and the JS suites compare against on every device. Cases whose inputs
need no grad (indices, one_hot) check the output only.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_nn_fixtures.py
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from gen_grad_fixtures import idx, inp, run, write  # noqa: E402

gen = torch.Generator().manual_seed(4321)


def randn(*shape):
    return torch.randn(shape, generator=gen)


def distinct(*shape):
    """Values without ties, so max pooling's gradient is exact."""
    n = math.prod(shape)
    return (torch.randperm(n, generator=gen).float() / n * 4 - 2 + 0.01).reshape(shape)


def pad_arg(p):
    return tuple(p) if isinstance(p, list) else p


OPS = {
    "conv1d": lambda x, a: F.conv1d(x[0], x[1], x[2] if len(x) > 2 else None, a["stride"], pad_arg(a["padding"]), a["dilation"], a["groups"]),
    "conv2d": lambda x, a: F.conv2d(x[0], x[1], x[2] if len(x) > 2 else None, a["stride"], pad_arg(a["padding"]), a["dilation"], a["groups"]),
    "conv_transpose1d": lambda x, a: F.conv_transpose1d(x[0], x[1], x[2] if len(x) > 2 else None, a["stride"], a["padding"], a["output_padding"], a["groups"], a["dilation"]),
    "conv_transpose2d": lambda x, a: F.conv_transpose2d(x[0], x[1], x[2] if len(x) > 2 else None, a["stride"], a["padding"], a["output_padding"], a["groups"], a["dilation"]),
    "max_pool1d": lambda x, a: F.max_pool1d(x[0], a["kernel"], a["stride"] or None, a["padding"], a["dilation"], a["ceil_mode"]),
    "max_pool2d": lambda x, a: F.max_pool2d(x[0], a["kernel"], a["stride"] or None, a["padding"], a["dilation"], a["ceil_mode"]),
    "max_pool2d_indices": lambda x, a: F.max_pool2d(x[0], a["kernel"], a["stride"] or None, a["padding"], a["dilation"], a["ceil_mode"], return_indices=True)[1],
    "avg_pool1d": lambda x, a: F.avg_pool1d(x[0], a["kernel"], a["stride"] or None, a["padding"], a["ceil_mode"], a["count_include_pad"]),
    "avg_pool2d": lambda x, a: F.avg_pool2d(x[0], a["kernel"], a["stride"] or None, a["padding"], a["ceil_mode"], a["count_include_pad"], a["divisor_override"]),
    "adaptive_avg_pool1d": lambda x, a: F.adaptive_avg_pool1d(x[0], a["size"]),
    "adaptive_avg_pool2d": lambda x, a: F.adaptive_avg_pool2d(x[0], a["size"]),
    "pad": lambda x, a: F.pad(x[0], a["pads"], a["mode"], a["value"] if a["mode"] == "constant" else None),
    "slice_step": lambda x, a: x[0][(slice(None),) * a["dim"] + (slice(a["start"], a["end"], a["step"]),)],
    "sdpa": lambda x, a: F.scaled_dot_product_attention(
        x[0], x[1], x[2], attn_mask=(x[3] > 0 if a["mask"] == "bool" else x[3]) if len(x) > 3 else None,
        is_causal=a["causal"], scale=a["scale"]),
    "interpolate": lambda x, a: F.interpolate(x[0], size=a["size"], scale_factor=a["scale"], mode=a["mode"], align_corners=a["align_corners"]),
    "one_hot": lambda x, a: F.one_hot(x[0].long(), a["classes"]),
}


def conv_args(stride=1, padding=0, dilation=1, groups=1):
    return {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}


def convt_args(stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return {"stride": stride, "padding": padding, "output_padding": output_padding, "groups": groups, "dilation": dilation}


def pool_args(kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    return {"kernel": kernel, "stride": stride or [], "padding": padding, "dilation": dilation, "ceil_mode": ceil_mode}


def avg_args(kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return {"kernel": kernel, "stride": stride or [], "padding": padding, "ceil_mode": ceil_mode,
            "count_include_pad": count_include_pad, "divisor_override": divisor_override}


def cases():
    c = []
    add = lambda name, op, ins, args: c.append((name, op, ins, args))
    # Convolution.
    add("conv2d_bias", "conv2d", [inp(randn(2, 3, 7, 6)), inp(randn(4, 3, 3, 3)), inp(randn(4))], conv_args())
    add("conv2d_stride_pad", "conv2d", [inp(randn(2, 3, 7, 6)), inp(randn(4, 3, 3, 2)), inp(randn(4))], conv_args([2, 2], [1, 2]))
    add("conv2d_dilation", "conv2d", [inp(randn(1, 2, 9, 8)), inp(randn(3, 2, 3, 3))], conv_args(1, 1, [2, 3]))
    add("conv2d_groups", "conv2d", [inp(randn(2, 4, 6, 5)), inp(randn(6, 2, 3, 2)), inp(randn(6))], conv_args(2, 1, 1, 2))
    add("conv2d_depthwise", "conv2d", [inp(randn(1, 3, 5, 5)), inp(randn(3, 1, 3, 3))], conv_args(1, 1, 1, 3))
    add("conv2d_same_even_kernel", "conv2d", [inp(randn(1, 2, 6, 7)), inp(randn(3, 2, 4, 2))], conv_args(1, "same", [1, 2]))
    add("conv2d_valid", "conv2d", [inp(randn(1, 2, 5, 5)), inp(randn(2, 2, 2, 2))], conv_args(1, "valid"))
    add("conv2d_unbatched", "conv2d", [inp(randn(2, 5, 4)), inp(randn(3, 2, 2, 2)), inp(randn(3))], conv_args(1, 1))
    add("conv2d_strided_past_edge", "conv2d", [inp(randn(1, 1, 6, 6)), inp(randn(2, 1, 2, 2))], conv_args(3, 0))
    add("conv2d_1x1_no_grad_weight", "conv2d", [inp(randn(2, 3, 4, 4)), inp(randn(5, 3, 1, 1), grad=False)], conv_args())
    add("conv2d_of_view", "conv2d", [inp(randn(2, 3, 6, 5), v="t"), inp(randn(2, 3, 3, 3))], conv_args(1, 1))
    add("conv1d", "conv1d", [inp(randn(2, 3, 10)), inp(randn(4, 3, 3)), inp(randn(4))], conv_args(2, 1))
    add("conv1d_depthwise_same", "conv1d", [inp(randn(1, 3, 9)), inp(randn(3, 1, 3))], conv_args(1, "same", 2, 3))
    add("conv_transpose2d", "conv_transpose2d", [inp(randn(2, 4, 3, 3)), inp(randn(4, 3, 3, 3)), inp(randn(3))], convt_args(2, 1, 1))
    add("conv_transpose2d_groups_dilation", "conv_transpose2d", [inp(randn(1, 4, 3, 4)), inp(randn(4, 1, 2, 3))], convt_args([1, 2], 0, 0, 2, [2, 1]))
    add("conv_transpose2d_stride3", "conv_transpose2d", [inp(randn(1, 2, 2, 3)), inp(randn(2, 2, 3, 3)), inp(randn(2))], convt_args(3, [0, 1], [2, 1]))
    add("conv_transpose1d", "conv_transpose1d", [inp(randn(1, 2, 5)), inp(randn(2, 3, 4)), inp(randn(3))], convt_args(3, 1))
    # Pooling.
    add("max_pool2d", "max_pool2d", [inp(distinct(2, 3, 7, 7))], pool_args(3, 2, 1))
    add("max_pool2d_default_stride", "max_pool2d", [inp(distinct(1, 2, 6, 4))], pool_args(2))
    add("max_pool2d_ceil", "max_pool2d", [inp(distinct(1, 2, 6, 7))], pool_args([3, 2], [2, 2], 0, 1, True))
    add("max_pool2d_dilation", "max_pool2d", [inp(distinct(1, 1, 8, 8))], pool_args(2, 1, 1, 2))
    add("max_pool2d_unbatched_overlap", "max_pool2d", [inp(distinct(2, 5, 5))], pool_args(3, 1))
    add("max_pool1d", "max_pool1d", [inp(distinct(2, 3, 9))], pool_args(3, 2, 1))
    add("max_pool2d_indices", "max_pool2d_indices", [inp(distinct(1, 2, 7, 6), grad=False)], pool_args(3, 2, 1, 1, True))
    add("avg_pool2d", "avg_pool2d", [inp(randn(2, 3, 7, 7))], avg_args(3, 2, 1))
    add("avg_pool2d_exclude_pad", "avg_pool2d", [inp(randn(1, 2, 6, 5))], avg_args(3, 2, 1, False, False))
    add("avg_pool2d_ceil", "avg_pool2d", [inp(randn(1, 2, 6, 7))], avg_args([3, 2], 2, [1, 0], True))
    add("avg_pool2d_ceil_exclude", "avg_pool2d", [inp(randn(1, 1, 5, 5))], avg_args(2, 2, 1, True, False))
    add("avg_pool2d_divisor", "avg_pool2d", [inp(randn(1, 2, 4, 4))], avg_args(2, divisor_override=3))
    add("avg_pool1d", "avg_pool1d", [inp(randn(2, 2, 9))], avg_args(4, 3, 2))
    add("adaptive_avg_pool2d", "adaptive_avg_pool2d", [inp(randn(2, 3, 7, 9))], {"size": [3, 4]})
    add("adaptive_avg_pool2d_global", "adaptive_avg_pool2d", [inp(randn(2, 3, 5, 4))], {"size": [1, 1]})
    add("adaptive_avg_pool2d_grow", "adaptive_avg_pool2d", [inp(randn(1, 1, 3, 2))], {"size": [5, 3]})
    add("adaptive_avg_pool1d", "adaptive_avg_pool1d", [inp(randn(2, 2, 10))], {"size": [4]})
    # Padding and strided slices.
    add("pad_constant", "pad", [inp(randn(2, 3, 4))], {"pads": [1, 2, 0, 1], "mode": "constant", "value": 0.5})
    # A transposed view, every dim padded (the CPU's one-pass padding reads strided rows).
    add("pad_constant_view", "pad", [inp(randn(2, 4, 3), v="t")], {"pads": [2, 1, 1, 3, 1, 0], "mode": "constant", "value": -1.5})
    add("pad_constant_crop", "pad", [inp(randn(3, 5))], {"pads": [-1, 2, 1, -2], "mode": "constant", "value": 0.0})
    add("pad_reflect", "pad", [inp(randn(1, 2, 4, 5))], {"pads": [2, 1, 1, 3], "mode": "reflect", "value": 0.0})
    add("pad_replicate", "pad", [inp(randn(1, 2, 3, 4))], {"pads": [2, 3, 1, 0], "mode": "replicate", "value": 0.0})
    add("pad_circular", "pad", [inp(randn(1, 2, 3, 4))], {"pads": [4, 1, 2, 3], "mode": "circular", "value": 0.0})
    add("pad_reflect_1d", "pad", [inp(randn(2, 3, 5))], {"pads": [4, 2], "mode": "reflect", "value": 0.0})
    add("slice_step", "slice_step", [inp(randn(3, 8))], {"dim": 1, "start": 1, "end": 7, "step": 3})
    add("slice_step_to_end", "slice_step", [inp(randn(7, 2))], {"dim": 0, "start": 0, "end": 100, "step": 2})
    add("slice_step_of_view", "slice_step", [inp(randn(4, 6), v="t")], {"dim": 0, "start": 2, "end": 6, "step": 2})
    # Attention.
    sd = lambda mask=None, causal=False, scale=None: {"mask": mask, "causal": causal, "scale": scale}
    add("sdpa", "sdpa", [inp(randn(2, 3, 4, 8)), inp(randn(2, 3, 5, 8)), inp(randn(2, 3, 5, 6))], sd())
    add("sdpa_causal", "sdpa", [inp(randn(2, 4, 8)), inp(randn(2, 4, 8)), inp(randn(2, 4, 8))], sd(causal=True))
    add("sdpa_bool_mask_scale", "sdpa", [inp(randn(2, 3, 4)), inp(randn(2, 5, 4)), inp(randn(2, 5, 3)),
                                         inp(torch.tensor([[1.0, 1, -1, 1, -1], [1, -1, 1, 1, 1], [-1, 1, 1, -1, 1]]), grad=False)],
        sd("bool", scale=0.3))
    add("sdpa_float_mask_broadcast", "sdpa", [inp(randn(2, 1, 3, 4)), inp(randn(1, 2, 5, 4)), inp(randn(2, 2, 5, 3)),
                                              inp(randn(3, 5))], sd("float"))
    # Interpolation.
    it = lambda mode, size=None, scale=None, align=None: {"mode": mode, "size": size, "scale": scale, "align_corners": align}
    add("interpolate_nearest_size", "interpolate", [inp(randn(1, 2, 3, 4))], it("nearest", size=[5, 7]))
    add("interpolate_nearest_down", "interpolate", [inp(randn(1, 1, 7, 6))], it("nearest", size=[3, 4]))
    add("interpolate_nearest_scale2", "interpolate", [inp(randn(2, 1, 2, 3))], it("nearest", scale=2.0))
    add("interpolate_nearest_1d", "interpolate", [inp(randn(1, 2, 5))], it("nearest", size=[8]))
    add("interpolate_bilinear", "interpolate", [inp(randn(1, 2, 3, 4))], it("bilinear", size=[5, 7], align=False))
    add("interpolate_bilinear_align", "interpolate", [inp(randn(1, 2, 3, 4))], it("bilinear", size=[6, 3], align=True))
    add("interpolate_bilinear_scale", "interpolate", [inp(randn(1, 1, 4, 3))], it("bilinear", scale=1.5))
    add("interpolate_bilinear_down", "interpolate", [inp(randn(1, 1, 8, 7))], it("bilinear", size=[3, 4]))
    add("interpolate_linear", "interpolate", [inp(randn(2, 1, 4))], it("linear", size=[9], align=False))
    # One-hot.
    add("one_hot", "one_hot", [idx([[0, 3], [2, 1], [4, 4]])], {"classes": 5})
    # Edge cases: windows of -inf next to padding, NaN in a window (PyTorch's CPU kernel picks
    # the last NaN), ceil_mode on an input smaller than the window, a fully masked query.
    inf, nan = float("inf"), float("nan")
    add("max_pool1d_all_minus_inf", "max_pool1d", [inp(torch.tensor([[[-inf, -inf, -inf, 1.0]]]))], pool_args(3, 2, 1))
    add("max_pool1d_nan_last", "max_pool1d", [inp(torch.tensor([[[1.0, nan, 2.0, nan, 0.5, 3.0]]]))], pool_args(4, 2))
    add("max_pool1d_indices_edges", "max_pool2d_indices", [inp(torch.tensor([[[[-inf, -inf, 2.0], [nan, 1.0, nan]]]]), grad=False)], pool_args(2, 1, 1))
    add("max_pool2d_ceil_small", "max_pool2d", [inp(distinct(1, 1, 2, 2))], pool_args(3, 2, 0, 1, True))
    add("sdpa_fully_masked_row", "sdpa", [inp(randn(3, 4)), inp(randn(5, 4)), inp(randn(5, 2)),
                                          inp(torch.tensor([[1.0, -1, 1, -1, -1], [-1, -1, -1, -1, -1], [1, 1, 1, 1, 1]]), grad=False)],
        sd("bool"))
    return c


def main():
    write("nn_ops.json", "scripts/gen_nn_fixtures.py", run(cases(), OPS))


if __name__ == "__main__":
    main()
