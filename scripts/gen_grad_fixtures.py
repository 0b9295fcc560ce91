#!/usr/bin/env python3
"""Generates tests/fixtures/grad.json: forward values and gradients computed by PyTorch (CPU)
for every differentiable op, with broadcasting and views, which the Rust suite
(tests/grad_fixtures.rs) and the JS suites compare against on every device.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_grad_fixtures.py

Each case: an op name and args (interpreted the same way by the Rust and JS suites), inputs
(shape, data, dtype, whether they require grad, and an optional view applied after marking
them), the output, a random output gradient, and the input gradients PyTorch computes for it.
"""
import json
import math
import os

import torch

torch.manual_seed(0)
gen = torch.Generator().manual_seed(1234)


def randn(*shape):
    return torch.randn(shape, generator=gen)


def positive(*shape):
    return torch.rand(*shape, generator=gen) * 1.5 + 0.25


def away_from_zero(*shape):
    x = randn(*shape)
    return torch.where(x.abs() < 0.2, x.sign() * 0.2 + x, x)


def distinct(*shape):
    """Values without ties (max/min/prod gradients are exact then)."""
    n = math.prod(shape)
    return (torch.randperm(n, generator=gen).float() / n * 4 - 2 + 0.01).reshape(shape)


def view(t, v):
    if v is None:
        return t
    if v == "t":
        return t.transpose(-2, -1)
    if v == "narrow":
        return t.narrow(-1, 1, t.shape[-1] - 1)
    raise ValueError(v)


# op name -> (function of inputs and args). Names and args match the Rust/JS interpreters.
OPS = {
    "unary": lambda x, a: getattr(
        torch.nn.functional if a["fn"] in ("gelu", "silu", "softplus", "mish", "hardswish", "hardsigmoid") else torch,
        a["fn"])(x[0]),
    "binary": lambda x, a: {
        "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
        "maximum": torch.maximum, "minimum": torch.minimum, "atan2": torch.atan2,
        "remainder": torch.remainder, "fmod": torch.fmod,
    }[a["fn"]](x[0], x[1]),
    "scalar": lambda x, a: {
        "add": lambda t, s: t + s, "sub": lambda t, s: t - s, "mul": lambda t, s: t * s,
        "div": lambda t, s: t / s, "pow": lambda t, s: t ** s,
        "maximum": lambda t, s: torch.clamp(t, min=s), "minimum": lambda t, s: torch.clamp(t, max=s),
    }[a["fn"]](x[0], a["s"]),
    "where": lambda x, a: torch.where(x[0] > 0, x[1], x[2]),
    "leaky_relu": lambda x, a: torch.nn.functional.leaky_relu(x[0], a["slope"]),
    "prelu": lambda x, a: torch.nn.functional.prelu(x[0], x[1]),
    "elu": lambda x, a: torch.nn.functional.elu(x[0], a["alpha"]),
    "softplus_with": lambda x, a: torch.nn.functional.softplus(x[0], a["beta"], a["threshold"]),
    "lerp": lambda x, a: torch.lerp(x[0], x[1], x[2]),
    "cumsum": lambda x, a: torch.cumsum(x[0], a["dim"]),
    "cumprod": lambda x, a: torch.cumprod(x[0], a["dim"]),
    "logsumexp": lambda x, a: torch.logsumexp(x[0], a["dims"], keepdim=a["keepdim"]),
    "norm": lambda x, a: torch.linalg.vector_norm(x[0], ord=float(a["p"]), dim=a["dims"] or None, keepdim=a["keepdim"]),
    "masked_fill": lambda x, a: x[0].masked_fill(x[1] > 0, a["value"]),
    "tril": lambda x, a: torch.tril(x[0], a["diagonal"]),
    "triu": lambda x, a: torch.triu(x[0], a["diagonal"]),
    "flip": lambda x, a: torch.flip(x[0], a["dims"]),
    "roll": lambda x, a: torch.roll(x[0], a["shifts"], a["dims"] or None),
    "repeat": lambda x, a: x[0].repeat(*a["sizes"]),
    "tile": lambda x, a: torch.tile(x[0], a["dims"]),
    "split": lambda x, a: torch.split(x[0], a["size"], a["dim"])[a["part"]],
    "chunk": lambda x, a: torch.chunk(x[0], a["chunks"], a["dim"])[a["part"]],
    "lerp_scalar": lambda x, a: torch.lerp(x[0], x[1], a["w"]),
    "clamp": lambda x, a: torch.clamp(x[0], min=a.get("min"), max=a.get("max")),
    "sum": lambda x, a: x[0].sum(dim=a["dims"], keepdim=a["keepdim"]),
    "sum_all": lambda x, a: x[0].sum(),
    "mean": lambda x, a: x[0].mean(dim=a["dims"], keepdim=a["keepdim"]),
    "mean_all": lambda x, a: x[0].mean(),
    "prod": lambda x, a: x[0].prod(dim=a["dims"][0], keepdim=a["keepdim"]),
    "prod_all": lambda x, a: x[0].prod(),
    "max": lambda x, a: x[0].amax(dim=a["dims"], keepdim=a["keepdim"]),
    "max_all": lambda x, a: x[0].max(),
    "min": lambda x, a: x[0].amin(dim=a["dims"], keepdim=a["keepdim"]),
    "min_all": lambda x, a: x[0].min(),
    "var": lambda x, a: x[0].var(dim=a["dims"], correction=a["correction"], keepdim=a["keepdim"]),
    "std": lambda x, a: x[0].std(dim=a["dims"], correction=a["correction"], keepdim=a["keepdim"]),
    "var_all": lambda x, a: x[0].var(correction=a["correction"]),
    "std_all": lambda x, a: x[0].std(correction=a["correction"]),
    "softmax": lambda x, a: torch.softmax(x[0], dim=a["dim"]),
    "log_softmax": lambda x, a: torch.log_softmax(x[0], dim=a["dim"]),
    "matmul": lambda x, a: torch.matmul(x[0], x[1]),
    "reshape": lambda x, a: x[0].reshape(a["shape"]),
    "permute": lambda x, a: x[0].permute(a["dims"]),
    "transpose": lambda x, a: x[0].transpose(a["a"], a["b"]),
    "t": lambda x, a: x[0].t(),
    "narrow": lambda x, a: x[0].narrow(a["dim"], a["start"], a["len"]),
    "split_view": lambda x, a: x[0].split(a["size"], dim=-1)[a["part"]].view(a["shape"]),
    "select": lambda x, a: x[0].select(a["dim"], a["index"]),
    "gelu_tanh": lambda x, a: torch.nn.functional.gelu(x[0], approximate="tanh"),
    "squeeze": lambda x, a: x[0].squeeze(a["dim"]),
    "unsqueeze": lambda x, a: x[0].unsqueeze(a["dim"]),
    "expand": lambda x, a: x[0].expand(a["shape"]),
    "contiguous": lambda x, a: x[0].contiguous(),
    "flatten": lambda x, a: x[0].flatten(),
    "cat": lambda x, a: torch.cat(x, dim=a["dim"]),
    "stack": lambda x, a: torch.stack(x, dim=a["dim"]),
    "index_select": lambda x, a: torch.index_select(x[0], a["dim"], x[1].long()),
    "gather": lambda x, a: torch.gather(x[0], a["dim"], x[1].long()),
    "index_add": lambda x, a: x[0].index_add(a["dim"], x[1].long(), x[2]),
    "scatter_add": lambda x, a: x[0].scatter_add(a["dim"], x[1].long(), x[2]),
}


def inp(t, grad=True, v=None, dtype="f32"):
    return {"t": t, "grad": grad, "view": v, "dtype": dtype}


def idx(values, shape=None):
    t = torch.tensor(values, dtype=torch.int32)
    return inp(t.reshape(shape) if shape else t, grad=False, dtype="i32")


def cases():
    c = []
    add = lambda name, op, ins, **args: c.append((name, op, ins, args))
    # Unary ops (domains kept where the function is smooth).
    for fn in ["neg", "abs", "exp", "sin", "cos", "tanh", "sigmoid", "relu", "gelu", "erf", "square",
               "floor", "ceil", "round", "sign"]:
        src = away_from_zero if fn in ("abs", "relu", "sign") else randn
        add(f"unary_{fn}", "unary", [inp(src(3, 4))], fn=fn)
    add("unary_silu", "unary", [inp(randn(3, 4))], fn="silu")
    for fn in ["log", "sqrt", "rsqrt", "reciprocal"]:
        add(f"unary_{fn}", "unary", [inp(positive(3, 4))], fn=fn)
    add("unary_exp_of_transposed_view", "unary", [inp(randn(4, 3), v="t")], fn="exp")
    for fn in ["expm1", "tan", "atan", "sinh", "cosh", "asinh", "softplus", "mish"]:
        add(f"unary_{fn}", "unary", [inp(randn(3, 4))], fn=fn)
    for fn in ["hardswish", "hardsigmoid"]:
        # Away from the kinks at -3 and 3.
        x = randn(3, 4) * 3
        add(f"unary_{fn}", "unary", [inp(torch.where((x.abs() - 3).abs() < 0.2, x * 0.5, x))], fn=fn)
    for fn in ["asin", "acos", "atanh"]:
        add(f"unary_{fn}", "unary", [inp(torch.rand(3, 4, generator=gen) * 1.8 - 0.9)], fn=fn)
    add("unary_log1p", "unary", [inp(torch.rand(3, 4, generator=gen) * 3 - 0.9)], fn="log1p")
    add("unary_acosh", "unary", [inp(positive(3, 4) + 1.0)], fn="acosh")
    add("unary_tan_of_view", "unary", [inp(randn(4, 3), v="t")], fn="tan")
    add("leaky_relu", "leaky_relu", [inp(away_from_zero(3, 4))], slope=0.1)
    add("elu", "elu", [inp(away_from_zero(3, 4) * 3)], alpha=1.5)
    add("softplus_beta", "softplus_with", [inp(randn(3, 4) * 4)], beta=2.0, threshold=3.0)
    add("lerp_broadcast", "lerp", [inp(randn(3, 4)), inp(randn(4)), inp(torch.rand(3, 1, generator=gen))])
    add("lerp_scalar_high", "lerp_scalar", [inp(randn(2, 3)), inp(randn(2, 3))], w=0.75)
    # Binary ops with broadcasting both ways, and views as operands.
    for fn in ["add", "sub", "mul", "div", "maximum", "minimum"]:
        b = away_from_zero if fn == "div" else randn
        add(f"binary_{fn}_broadcast", "binary", [inp(randn(2, 3, 1)), inp(b(3, 4))], fn=fn)
    add("binary_pow", "binary", [inp(positive(2, 3)), inp(randn(3))], fn="pow")
    add("binary_atan2_broadcast", "binary", [inp(randn(2, 3, 1)), inp(randn(3, 4))], fn="atan2")
    # Divisors away from zero, quotients away from integers (where the rules jump).
    for fn in ["remainder", "fmod"]:
        add(f"binary_{fn}", "binary", [inp(torch.tensor([[5.3, -5.3, 2.2], [-7.9, 0.4, 9.1]])),
                                       inp(torch.tensor([1.5, -2.0, 0.75]))], fn=fn)
    add("binary_mul_rank0", "binary", [inp(randn(3, 4)), inp(randn())], fn="mul")
    add("binary_add_views", "binary", [inp(randn(4, 3), v="t"), inp(randn(3, 5), v="narrow")], fn="add")
    add("binary_mul_one_side_grad", "binary", [inp(randn(3, 4)), inp(randn(3, 4), grad=False)], fn="mul")
    for fn, s in [("add", 1.5), ("sub", -0.5), ("mul", 2.5), ("div", 4.0), ("pow", 3.0), ("maximum", 0.1), ("minimum", -0.1)]:
        src = positive if fn == "pow" else away_from_zero
        add(f"scalar_{fn}", "scalar", [inp(src(3, 4))], fn=fn, s=s)
    add("where_broadcast", "where", [inp(randn(3, 1), grad=False), inp(randn(3, 4)), inp(randn(4))])
    add("clamp_both", "clamp", [inp(randn(4, 5))], min=-0.5, max=0.5)
    add("clamp_min_at_bound", "clamp", [inp(torch.tensor([[-1.0, 0.0, 0.5], [0.25, 2.0, -0.25]]))], min=0.0)
    add("clamp_max", "clamp", [inp(randn(3, 4))], max=0.2)
    # Reductions.
    add("sum_dims", "sum", [inp(randn(2, 3, 4))], dims=[0, 2], keepdim=False)
    add("sum_keepdim_neg", "sum", [inp(randn(2, 3, 4))], dims=[-1], keepdim=True)
    add("sum_all", "sum_all", [inp(randn(3, 4))])
    add("sum_of_transposed", "sum", [inp(randn(4, 3), v="t")], dims=[1], keepdim=False)
    add("mean_dims", "mean", [inp(randn(2, 3, 4))], dims=[1], keepdim=False)
    add("mean_all", "mean_all", [inp(randn(5, 2))])
    add("prod_dim", "prod", [inp(positive(3, 4))], dims=[1], keepdim=False)
    add("prod_dim_with_zeros", "prod", [inp(torch.tensor([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [0.5, -2.0, 1.0]]))], dims=[1], keepdim=True)
    add("prod_all", "prod_all", [inp(positive(2, 3))])
    add("max_dims", "max", [inp(distinct(2, 3, 4))], dims=[1, 2], keepdim=False)
    add("max_all", "max_all", [inp(distinct(3, 4))])
    add("max_ties", "max", [inp(torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]))], dims=[1], keepdim=True)
    add("min_dims", "min", [inp(distinct(3, 5))], dims=[0], keepdim=True)
    add("min_all", "min_all", [inp(distinct(4, 2))])
    add("var_dims", "var", [inp(randn(3, 5))], dims=[1], correction=1, keepdim=False)
    add("var_all_biased", "var_all", [inp(randn(4, 3))], correction=0)
    add("std_dims", "std", [inp(randn(2, 3, 4))], dims=[0, 2], correction=1, keepdim=True)
    add("std_all", "std_all", [inp(randn(6))], correction=1)
    add("softmax_last", "softmax", [inp(randn(3, 5))], dim=-1)
    add("softmax_first_of_view", "softmax", [inp(randn(4, 3), v="t")], dim=0)
    add("log_softmax_last", "log_softmax", [inp(randn(3, 5))], dim=1)
    add("log_softmax_mid", "log_softmax", [inp(randn(2, 3, 4))], dim=1)
    # Scans and composed reductions.
    add("cumsum_dim1", "cumsum", [inp(randn(3, 5))], dim=1)
    add("cumsum_of_view", "cumsum", [inp(randn(4, 3), v="t")], dim=0)
    add("cumprod_with_zero", "cumprod", [inp(torch.tensor([[1.5, -2.0, 0.0, 3.0, 0.5], [0.5, 2.0, -1.0, 0.25, 4.0]]))], dim=1)
    add("cumprod_dim0", "cumprod", [inp(positive(5, 2))], dim=0)
    add("logsumexp", "logsumexp", [inp(randn(3, 4) * 5)], dims=[1], keepdim=False)
    add("logsumexp_keepdim", "logsumexp", [inp(randn(2, 3, 4))], dims=[0, 2], keepdim=True)
    add("norm_2", "norm", [inp(randn(3, 4))], p=2.0, dims=[1], keepdim=False)
    add("norm_2_zero_row", "norm", [inp(torch.tensor([[0.0, 0.0, 0.0], [3.0, -4.0, 0.0]]))], p=2.0, dims=[1], keepdim=True)
    add("norm_1_all", "norm", [inp(away_from_zero(3, 4))], p=1.0, dims=[], keepdim=False)
    add("norm_inf", "norm", [inp(distinct(3, 4))], p="inf", dims=[0], keepdim=False)
    add("norm_3", "norm", [inp(away_from_zero(2, 5))], p=3.0, dims=[1], keepdim=False)
    # Masking and rearranging.
    add("masked_fill_broadcast", "masked_fill", [inp(randn(3, 4)), inp(randn(4), grad=False)], value=-1.5)
    add("tril", "tril", [inp(randn(2, 3, 4))], diagonal=0)
    add("triu_offset", "triu", [inp(randn(4, 3))], diagonal=1)
    add("tril_negative", "tril", [inp(randn(4, 4))], diagonal=-1)
    add("flip", "flip", [inp(randn(2, 3, 4))], dims=[0, 2])
    add("roll", "roll", [inp(randn(3, 5))], shifts=[2, -1], dims=[1, 0])
    add("roll_flat", "roll", [inp(randn(3, 4))], shifts=[5], dims=[])
    add("repeat", "repeat", [inp(randn(2, 3))], sizes=[2, 1, 2])
    add("split_last_part", "split", [inp(randn(7, 2))], size=3, dim=0, part=2)
    add("chunk_middle", "chunk", [inp(randn(2, 9))], chunks=3, dim=1, part=1)
    # Matmul in every form.
    add("matmul_2d", "matmul", [inp(randn(3, 4)), inp(randn(4, 5))])
    add("matmul_vec_vec", "matmul", [inp(randn(4)), inp(randn(4))])
    add("matmul_mat_vec", "matmul", [inp(randn(3, 4)), inp(randn(4))])
    add("matmul_vec_mat", "matmul", [inp(randn(4)), inp(randn(4, 5))])
    add("matmul_batched_broadcast", "matmul", [inp(randn(2, 1, 3, 4)), inp(randn(3, 4, 2))])
    add("matmul_transposed_operands", "matmul", [inp(randn(4, 3), v="t"), inp(randn(5, 4), v="t")])
    add("matmul_batch_times_matrix", "matmul", [inp(randn(2, 3, 4)), inp(randn(4, 5))])
    # Views and copies.
    add("reshape", "reshape", [inp(randn(2, 6))], shape=[3, 4])
    add("reshape_of_transposed", "reshape", [inp(randn(3, 4), v="t")], shape=[12])
    add("permute", "permute", [inp(randn(2, 3, 4))], dims=[2, 0, 1])
    add("transpose", "transpose", [inp(randn(2, 3, 4))], a=0, b=2)
    add("t", "t", [inp(randn(3, 5))])
    add("narrow", "narrow", [inp(randn(4, 6))], dim=1, start=2, len=3)
    add("squeeze", "squeeze", [inp(randn(3, 1, 4))], dim=1)
    add("unsqueeze", "unsqueeze", [inp(randn(3, 4))], dim=-1)
    add("expand", "expand", [inp(randn(3, 1))], shape=[2, 3, 4])
    add("contiguous_of_view", "contiguous", [inp(randn(4, 3), v="t")])
    add("flatten", "flatten", [inp(randn(2, 3, 2))])
    add("cat", "cat", [inp(randn(2, 3)), inp(randn(2, 1)), inp(randn(2, 2))], dim=1)
    add("stack", "stack", [inp(randn(3, 2)), inp(randn(3, 2))], dim=1)
    # Indexing, and its adjoints.
    add("index_select_repeats", "index_select", [inp(randn(5, 3)), idx([4, 0, 4, 2, 4])], dim=0)
    add("index_select_dim1", "index_select", [inp(randn(2, 4, 3)), idx([3, 1])], dim=1)
    add("gather_dim1", "gather", [inp(randn(3, 4)), idx([[0, 3], [2, 2], [1, 0]])], dim=1)
    add("gather_dim0_smaller", "gather", [inp(randn(4, 3)), idx([[3, 0], [3, 3]])], dim=0)
    add("index_add", "index_add", [inp(randn(4, 3)), idx([1, 3, 1]), inp(randn(3, 3))], dim=0)
    add("scatter_add", "scatter_add", [inp(randn(3, 4)), idx([[0, 3, 3], [1, 1, 2]]), inp(randn(2, 3))], dim=1)
    # Norms at a zero vector for p other than 2 (the gradient is 0, not NaN), negative p, and
    # logsumexp over an empty dim (-inf). Literal inputs, so the cases above keep their values.
    zero_row = torch.tensor([[0.0, 0.0, 0.0], [3.0, -4.0, 0.5]])
    add("norm_3_zero_row", "norm", [inp(zero_row)], p=3.0, dims=[1], keepdim=False)
    add("norm_1p5_zero_row", "norm", [inp(zero_row)], p=1.5, dims=[1], keepdim=True)
    add("norm_0p5_zero_row", "norm", [inp(zero_row)], p=0.5, dims=[1], keepdim=False)
    add("norm_neg1", "norm", [inp(torch.tensor([[1.0, -2.0, 4.0], [0.5, 3.0, -1.0]]))], p=-1.0, dims=[1], keepdim=False)
    add("norm_neg2_all", "norm", [inp(torch.tensor([[1.5, -2.0], [0.25, 3.0]]))], p=-2.0, dims=[], keepdim=False)
    add("logsumexp_empty", "logsumexp", [inp(torch.zeros(2, 0), grad=False)], dims=[1], keepdim=False)
    add("logsumexp_empty_keepdim", "logsumexp", [inp(torch.zeros(0, 3), grad=False)], dims=[0], keepdim=True)
    add("tile_fewer_dims", "tile", [inp(torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]))], dims=[2])
    add("tile_more_dims", "tile", [inp(torch.tensor([1.5, -0.5]), v=None)], dims=[2, 1, 3])
    # Reductions the kernels fold on the permuted view in place (columns, runs, two kept dims:
    # at least 16 outputs, as those paths need), and x ** 2, which runs the square kernel. Their
    # inputs come from a generator of their own, so every case above keeps its values.
    more = torch.Generator().manual_seed(4321)
    extra = lambda *shape: torch.randn(shape, generator=more)
    add("sum_columns", "sum", [inp(extra(24, 20))], dims=[0], keepdim=False)
    add("sum_runs_nchw", "sum", [inp(extra(3, 20, 17))], dims=[0, 2], keepdim=True)
    add("max_columns", "max", [inp(extra(6, 32))], dims=[0], keepdim=False)
    add("mean_middle", "mean", [inp(extra(2, 9, 18))], dims=[1], keepdim=False)
    add("scalar_pow_2", "scalar", [inp(extra(3, 4))], fn="pow", s=2.0)
    # The CPU's one-pass cumsum kernel: along the first dim (vector slices), a middle dim, and a
    # long row (its f64 accumulation against PyTorch's).
    add("cumsum_dim0_slices", "cumsum", [inp(extra(6, 20))], dim=0)
    add("cumsum_middle", "cumsum", [inp(extra(3, 7, 5))], dim=1)
    add("cumsum_long_row", "cumsum", [inp(extra(2, 300))], dim=-1)
    # ELU's default alpha, which skips the scaling pass.
    add("elu_alpha_1", "elu", [inp(extra(3, 5) * 3)], alpha=1.0)
    # leaky_relu's two forms: a maximum for slopes in [0, 1], a where beyond.
    add("leaky_relu_slope_0", "leaky_relu", [inp(extra(3, 5))], slope=0.0)
    add("leaky_relu_steep", "leaky_relu", [inp(extra(3, 5))], slope=1.5)
    # prelu: a slope per channel of NCHW (the weight's gradient summed over N, H, W), one shared
    # slope, and a 1-D input (one channel).
    add("prelu_channels", "prelu", [inp(extra(2, 3, 4, 5)), inp(torch.tensor([0.25, -0.5, 1.5]))])
    add("prelu_shared", "prelu", [inp(extra(3, 4)), inp(torch.tensor([0.1]))])
    add("prelu_rank1", "prelu", [inp(extra(7)), inp(torch.tensor([0.3]))])
    # Issue 45: PyTorch's view rule on views (nanoGPT's q.view(B, T, nh, hs) of a split of the
    # attention projection) and select with negative indices. Last, so the cases above keep
    # their random inputs.
    add("split_view_heads", "split_view", [inp(randn(2, 3, 12))], size=4, part=1, shape=[2, 3, 2, 2])
    add("split_view_merge", "split_view", [inp(randn(3, 4, 6))], size=2, part=2, shape=[12, 2])
    add("select_last", "select", [inp(randn(2, 3, 4))], dim=1, index=-1)
    add("select_first_dim", "select", [inp(randn(3, 4))], dim=0, index=1)
    add("gelu_tanh", "gelu_tanh", [inp(randn(4, 5) * 3)])
    return c


def listify(t):
    """Flat values; NaN and infinities as the strings "nan", "inf" and "-inf" (JSON has no
    literal for them), which the suites decode."""
    return [x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
            for x in t.detach().reshape(-1).tolist()]


def run(case_list, ops):
    """Runs each case in PyTorch: the output and, when an input requires grad, the gradients
    of every input for a random output gradient (cases without one check the output only)."""
    out = []
    for name, op, ins, args in case_list:
        leaves = []
        for i in ins:
            t = i["t"].clone()
            if i["grad"]:
                t.requires_grad_(True)
            leaves.append(t)
        xs = [view(t, i["view"]) for t, i in zip(leaves, ins)]
        y = ops[op](xs, args)
        g = None
        if any(i["grad"] for i in ins):
            g = torch.randn(y.shape, generator=gen)
            y.backward(g)
        out.append({
            "name": name,
            "op": op,
            "args": args,
            "inputs": [
                {"shape": list(i["t"].shape), "data": listify(i["t"]), "dtype": i["dtype"], "grad": i["grad"], "view": i["view"]}
                for i in ins
            ],
            "out_shape": list(y.shape),
            "out": listify(y.float()),
            "out_grad": None if g is None else listify(g),
            "grads": [listify(t.grad) if i["grad"] else None for t, i in zip(leaves, ins)],
        })
    return out


def write(name, generator, out):
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", name)
    with open(path, "w") as f:
        json.dump({"generator": generator, "torch": torch.__version__, "cases": out}, f, indent=None)
        f.write("\n")
    print(f"wrote {len(out)} cases to {os.path.normpath(path)}")


def main():
    write("grad.json", "scripts/gen_grad_fixtures.py", run(cases(), OPS))


if __name__ == "__main__":
    main()
