//! Every backward rule against PyTorch: `tests/fixtures/grad.json` (made by
//! `scripts/gen_grad_fixtures.py` with PyTorch on the CPU) holds, per case, an op with its inputs
//! (broadcast shapes, views, indices), PyTorch's output, a random output gradient and PyTorch's
//! input gradients. Each case runs here on every device: forward, `backward_with(out_grad)`, and
//! each leaf's `.grad` compared with PyTorch's. One test per case and device (libtest-mimic).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{device_main, fixture_trials};
use common::*;

use serde_json::Value;
use webtensor::{Device, Tensor};

device_main!(; fixtures: fixture_trials("grad.json", 163, every_backward_rule_matches_pytorch));

fn int(a: &Value, k: &str) -> isize {
    a[k].as_i64().unwrap_or_else(|| panic!("arg {k}")) as isize
}

/// The op of a case, as the generator's `OPS` table defines it.
fn apply(op: &str, a: &Value, x: &[Tensor]) -> webtensor::Result<Tensor> {
    let keep = || a["keepdim"].as_bool().expect("keepdim");
    let dim = || a["dim"].as_i64().expect("dim") as isize;
    let corr = || a["correction"].as_u64().expect("correction") as usize;
    Ok(match op {
        "unary" => {
            let f = a["fn"].as_str().expect("fn");
            x[0].unary(*webtensor::UnaryOp::ALL.iter().find(|u| u.name() == f).expect("known unary op"))?
        }
        "binary" => {
            let f = a["fn"].as_str().expect("fn");
            x[0].binary(&x[1], *webtensor::BinaryOp::ALL.iter().find(|b| b.name() == f).expect("known op"))?
        }
        "scalar" => {
            let f = a["fn"].as_str().expect("fn");
            let op = *webtensor::BinaryOp::ALL.iter().find(|b| b.name() == f).expect("known op");
            x[0].binary_scalar(a["s"].as_f64().expect("s"), op)?
        }
        "where" => x[0].gt_scalar(0.0)?.where_(&x[1], &x[2])?,
        "leaky_relu" => x[0].leaky_relu(a["slope"].as_f64().expect("slope"))?,
        "prelu" => x[0].prelu(&x[1])?,
        "elu" => x[0].elu(a["alpha"].as_f64().expect("alpha"))?,
        "softplus_with" => {
            x[0].softplus_with(a["beta"].as_f64().expect("beta"), a["threshold"].as_f64().expect("threshold"))?
        }
        "lerp" => x[0].lerp(&x[1], &x[2])?,
        "cumsum" => x[0].cumsum(dim())?,
        "cumprod" => x[0].cumprod(dim())?,
        "logsumexp" => x[0].logsumexp(&isizes(&a["dims"]), keep())?,
        "norm" => x[0].norm(a["p"].as_f64().unwrap_or(f64::INFINITY) /* "inf" */, &isizes(&a["dims"]), keep())?,
        "masked_fill" => x[0].masked_fill(&x[1].gt_scalar(0.0)?, a["value"].as_f64().expect("value"))?,
        "tril" => x[0].tril(a["diagonal"].as_i64().expect("diagonal"))?,
        "triu" => x[0].triu(a["diagonal"].as_i64().expect("diagonal"))?,
        "flip" => x[0].flip(&isizes(&a["dims"]))?,
        "roll" => {
            let shifts: Vec<i64> =
                a["shifts"].as_array().expect("shifts").iter().map(|v| v.as_i64().expect("shift")).collect();
            x[0].roll(&shifts, &isizes(&a["dims"]))?
        }
        "repeat" => x[0].repeat(&usizes(&a["sizes"]))?,
        "split" => x[0].split(a["size"].as_u64().expect("size") as usize, dim())?
            [a["part"].as_u64().expect("part") as usize]
            .clone(),
        "chunk" => x[0].chunk(a["chunks"].as_u64().expect("chunks") as usize, dim())?
            [a["part"].as_u64().expect("part") as usize]
            .clone(),
        "lerp_scalar" => x[0].lerp_scalar(&x[1], a["w"].as_f64().expect("w"))?,
        "clamp" => x[0].clamp(a["min"].as_f64(), a["max"].as_f64())?,
        "sum" => x[0].sum(&isizes(&a["dims"]), keep())?,
        "sum_all" => x[0].sum_all()?,
        "mean" => x[0].mean(&isizes(&a["dims"]), keep())?,
        "mean_all" => x[0].mean_all()?,
        "prod" => x[0].prod(&isizes(&a["dims"]), keep())?,
        "prod_all" => x[0].prod_all()?,
        "max" => x[0].max(&isizes(&a["dims"]), keep())?,
        "max_all" => x[0].max_all()?,
        "min" => x[0].min(&isizes(&a["dims"]), keep())?,
        "min_all" => x[0].min_all()?,
        "var" => x[0].var(&isizes(&a["dims"]), corr(), keep())?,
        "std" => x[0].std(&isizes(&a["dims"]), corr(), keep())?,
        "var_all" => x[0].var_all(corr())?,
        "std_all" => x[0].std_all(corr())?,
        "softmax" => x[0].softmax(int(a, "dim"))?,
        "log_softmax" => x[0].log_softmax(int(a, "dim"))?,
        "matmul" => x[0].matmul(&x[1])?,
        "reshape" => x[0].reshape(&isizes(&a["shape"]))?,
        "permute" => x[0].permute(&isizes(&a["dims"]))?,
        "transpose" => x[0].transpose(int(a, "a"), int(a, "b"))?,
        "t" => x[0].t()?,
        "narrow" => x[0].narrow(int(a, "dim"), int(a, "start") as usize, int(a, "len") as usize)?,
        "split_view" => x[0].split(int(a, "size") as usize, -1)?[int(a, "part") as usize].view(&isizes(&a["shape"]))?,
        "select" => x[0].select(int(a, "dim"), int(a, "index"))?,
        "gelu_tanh" => x[0].gelu_tanh()?,
        "squeeze" => x[0].squeeze(Some(int(a, "dim")))?,
        "unsqueeze" => x[0].unsqueeze(int(a, "dim"))?,
        "expand" => x[0].expand(&isizes(&a["shape"]))?,
        "contiguous" => x[0].contiguous()?,
        "flatten" => x[0].flatten()?,
        "cat" => Tensor::cat(x, int(a, "dim"))?,
        "stack" => Tensor::stack(x, int(a, "dim"))?,
        "index_select" => x[0].index_select(int(a, "dim"), &x[1])?,
        "gather" => x[0].gather(int(a, "dim"), &x[1])?,
        "tile" => x[0].tile(&usizes(&a["dims"]))?,
        "index_add" => x[0].index_add(int(a, "dim"), &x[1], &x[2])?,
        "scatter_add" => x[0].scatter_add(int(a, "dim"), &x[1], &x[2])?,
        other => panic!("grad.json has an op this suite does not know: {other}"),
    })
}

fn every_backward_rule_matches_pytorch(case: &Value, d: Device) {
    run_fixture_case(case, d, fixture_tolerance("grad.json"), apply);
}
