//! `webtensor train --model gpt`, `sample` and `bench-train --model gpt`: nanoGPT's
//! `shakespeare_char` recipe (and its CPU variant) on the vendored Shakespeare, as nanoGPT's
//! train.py runs it: AdamW over decay / no-decay groups, gradient clipping at 1.0, a linear
//! warmup then cosine decay of the learning rate (nanoGPT's `get_lr`, through `LambdaLR`),
//! train and validation loss estimated every `eval_interval` steps; on one device, data
//! parallel over several, or across processes under `mpirun` (see `dist.rs`). The checkpoint is a `.safetensors` file with nanoGPT's keys and the
//! config and vocabulary in its metadata, which `sample` reads back.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use webtensor::data::text::{CharCorpus, Split};
use webtensor::models::gpt::{GenerateOptions, Gpt, GptConfig};
use webtensor::nn::utils::{clip_grad_norm_, ClipGradNormOptions};
use webtensor::nn::{self, ClassLossOptions, Module, Parameter};
use webtensor::optim::lr_scheduler::{LambdaLR, LrScheduler};
use webtensor::optim::{AdamOptions, AdamW, Optimizer, ParamGroup};

use crate::dist::{group_from_env, Parallel};
use webtensor::{DType, Device, Tensor};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const CORPUS: &[u8] = include_bytes!("../../data/shakespeare/input.txt.gz");

/// The vendored Shakespeare as text.
pub fn corpus() -> Res<String> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(CORPUS).read_to_string(&mut text)?;
    Ok(text)
}

/// A training recipe: the model's shape and nanoGPT's train.py settings.
#[derive(Debug, Clone, Copy)]
pub struct Recipe {
    pub name: &'static str,
    pub model: GptConfig,
    pub batch_size: usize,
    pub lr: f64,
    pub min_lr: f64,
    pub warmup: usize,
    pub lr_decay_iters: usize,
    pub max_iters: usize,
    pub eval_interval: usize,
    pub eval_iters: usize,
    pub weight_decay: f64,
    pub beta2: f64,
    pub grad_clip: f64,
}

/// nanoGPT's `config/train_shakespeare_char.py` (`shakespeare-char`), its CPU variant (`cpu`: 4
/// layers, 4 heads, 128 wide, context 64, batch 12, 2,000 iterations, no dropout), or `tiny`, a
/// smoke run.
pub fn recipe(name: &str, vocab_size: usize) -> Result<Recipe, String> {
    let full = Recipe {
        name: "shakespeare-char",
        model: GptConfig::shakespeare_char(vocab_size),
        batch_size: 64,
        lr: 1e-3,
        min_lr: 1e-4,
        warmup: 100,
        lr_decay_iters: 5000,
        max_iters: 5000,
        eval_interval: 250,
        eval_iters: 200,
        weight_decay: 0.1,
        beta2: 0.99,
        grad_clip: 1.0,
    };
    match name {
        "shakespeare-char" => Ok(full),
        "cpu" => Ok(Recipe {
            name: "cpu",
            model: GptConfig::cpu(vocab_size),
            batch_size: 12,
            lr_decay_iters: 2000,
            max_iters: 2000,
            eval_iters: 20,
            ..full
        }),
        // A smoke run (tests, a first look): 2 layers, 2 heads, 32 wide, context 16.
        "tiny" => Ok(Recipe {
            name: "tiny",
            model: GptConfig {
                vocab_size,
                block_size: 16,
                n_layer: 2,
                n_head: 2,
                n_embd: 32,
                dropout: 0.0,
                bias: false,
            },
            batch_size: 4,
            warmup: 2,
            lr_decay_iters: 20,
            max_iters: 20,
            eval_interval: 10,
            eval_iters: 2,
            ..full
        }),
        other => Err(format!("unknown --config '{other}'; expected cpu, shakespeare-char or tiny")),
    }
}

/// nanoGPT's `get_lr(it)`: linear warmup, cosine decay to `min_lr`, then `min_lr`.
fn nanogpt_lr(r: &Recipe, it: usize) -> f64 {
    if it < r.warmup {
        return r.lr * (it + 1) as f64 / (r.warmup + 1) as f64;
    }
    if it > r.lr_decay_iters {
        return r.min_lr;
    }
    let ratio = (it - r.warmup) as f64 / (r.lr_decay_iters - r.warmup).max(1) as f64;
    r.min_lr + 0.5 * (1.0 + (std::f64::consts::PI * ratio).cos()) * (r.lr - r.min_lr)
}

/// What `train --model gpt` was asked.
pub struct TrainOptions {
    pub recipe: String,
    pub devices: Vec<Device>,
    pub iters: Option<usize>,
    pub eval_interval: Option<usize>,
    pub eval_iters: Option<usize>,
    /// The model's dropout in place of the recipe's.
    pub dropout: Option<f64>,
    pub out: PathBuf,
    pub json: bool,
    pub seed: u64,
    /// `mpi` or `nccl` across processes (default: chosen by the device).
    pub dist_backend: Option<String>,
    /// DDP's gradient bucket size in MiB across processes.
    pub bucket_cap_mb: f64,
}

/// nanoGPT's optimizer groups over `params`: weights of 2 dims and more decay, the rest not.
fn groups(params: Vec<Parameter>, r: &Recipe, lr: f64) -> webtensor::Result<AdamW> {
    groups_with(params, r, lr, true)
}

/// [`groups`], the update fused (up to eight parameters a kernel) or as separate ops (`fused: false`,
/// PyTorch's for-loop form, which the lazy tier records into a few kernels per parameter).
fn groups_with(params: Vec<Parameter>, r: &Recipe, lr: f64, fused: bool) -> webtensor::Result<AdamW> {
    let base = AdamOptions { lr, betas: (0.9, r.beta2), fused, ..Default::default() };
    let (decay, rest): (Vec<Parameter>, Vec<Parameter>) = params.into_iter().partition(|p| p.shape().len() >= 2);
    AdamW::with_groups(vec![
        ParamGroup { params: decay, options: AdamOptions { weight_decay: r.weight_decay, ..base } },
        ParamGroup { params: rest, options: AdamOptions { weight_decay: 0.0, ..base } },
    ])
}

fn loss_fn(vocab: usize) -> impl Fn(&Tensor, &Tensor) -> webtensor::Result<Tensor> {
    move |logits: &Tensor, y: &Tensor| {
        nn::cross_entropy(&logits.view(&[-1, vocab as isize])?, &y.reshape(&[-1])?, ClassLossOptions::default())
    }
}

/// nanoGPT's `estimate_loss`: the mean loss of `eval_iters` batches of each split, in eval mode.
fn estimate_loss(model: &Gpt, corpus: &CharCorpus, r: &Recipe, device: Device, seed: u64) -> Res<[f32; 2]> {
    let _no_grad = webtensor::no_grad();
    model.eval();
    let mut out = [0.0f32; 2];
    for (k, split) in [Split::Train, Split::Val].into_iter().enumerate() {
        let mut total: Option<Tensor> = None;
        for i in 0..r.eval_iters {
            let s = seed ^ (0xE7A1 + (k * r.eval_iters + i) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let (x, y) = corpus.batch(split, r.batch_size, r.model.block_size, s, device)?;
            let (_, loss) = model.forward_with_targets(&x, Some(&y))?;
            let loss = loss.ok_or("no loss")?;
            total = Some(match total {
                Some(t) => t.add(&loss)?,
                None => loss,
            });
        }
        out[k] = total.ok_or("eval_iters is 0")?.item_blocking::<f32>()? / r.eval_iters as f32;
    }
    model.train();
    Ok(out)
}

fn check_out(out: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create --out {}: {e}", out.display()))?;
    let ckpt = out.join("ckpt.safetensors");
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&ckpt)
        .map_err(|e| format!("cannot write the checkpoint to {}: {e} (choose another --out)", ckpt.display()))?;
    Ok(ckpt)
}

/// Trains the GPT and prints the evaluations (or JSON); writes `out/ckpt.safetensors`.
pub fn train(o: &TrainOptions) -> Result<(), String> {
    let ckpt = check_out(&o.out)?;
    run_training(o, &ckpt).map_err(|e| e.to_string())
}

fn run_training(o: &TrainOptions, ckpt: &Path) -> Res<()> {
    let text = corpus()?;
    let corpus = CharCorpus::new(&text, 0.1)?;
    let mut r = recipe(&o.recipe, corpus.vocab_size())?;
    if let Some(n) = o.iters {
        r.max_iters = n;
        r.lr_decay_iters = n;
    }
    if let Some(n) = o.eval_interval {
        r.eval_interval = n.max(1);
    }
    if let Some(n) = o.eval_iters {
        r.eval_iters = n.max(1);
    }
    if let Some(p) = o.dropout {
        r.model.dropout = p;
    }
    let group = group_from_env(o.dist_backend.as_deref(), o.devices.first().copied())?;
    let devices = match (&group, o.devices.is_empty()) {
        (None, true) => vec![webtensor::best_device()],
        _ => o.devices.clone(),
    };
    let dp = Parallel::new(&devices, group, o.bucket_cap_mb, |d| Gpt::new(r.model, o.seed, d))?;
    dp.settle(train_loop(o, ckpt, &dp, &corpus, r))
}

fn train_loop(o: &TrainOptions, ckpt: &Path, dp: &Parallel<Gpt>, corpus: &CharCorpus, r: Recipe) -> Res<()> {
    let devices = dp.devices();
    let home = devices[0];
    let main = dp.is_main();
    let mut opt = dp.optimizer(|p| groups(p, &r, r.lr))?;
    let base = r.lr;
    let schedule = r;
    let mut sched = LambdaLR::new(&mut opt, move |it| nanogpt_lr(&schedule, it.max(0) as usize) / base)?;
    let loss = loss_fn(corpus.vocab_size());
    let names: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
    let params = dp.module().num_parameters(true);
    let world = dp.world_size() * devices.len();
    let across = match dp.backend() {
        Some(b) => format!(" x {} processes ({b})", dp.world_size()),
        None => String::new(),
    };
    if !o.json && main {
        println!(
            "# GPT {} layers, {} heads, {} wide, context {}: {:.2}M parameters; nanoGPT's {} recipe on {}{across} ({} train / {} val characters, vocabulary {})",
            r.model.n_layer,
            r.model.n_head,
            r.model.n_embd,
            r.model.block_size,
            params as f64 / 1e6,
            r.name,
            names.join(" + "),
            corpus.len(Split::Train),
            corpus.len(Split::Val),
            corpus.vocab_size()
        );
    }
    let bar = if o.json || !main { ProgressBar::hidden() } else { ProgressBar::new(r.max_iters as u64) };
    bar.set_style(
        ProgressStyle::with_template("[{bar:30}] {pos}/{len} iters {msg} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut evals = Vec::new();
    let (mut step_ms, mut last_loss) = (Vec::new(), f32::NAN);
    // Step times are measured over windows that end where the device has finished (a loss
    // read back, or before an estimate): a step's own clock would stop at its submission on
    // devices that queue work (webgpu, cuda). Each window adds its mean to `step_ms` per step.
    let mut window = (Instant::now(), 0usize);
    let close = |window: &mut (Instant, usize), step_ms: &mut Vec<f64>| {
        if window.1 > 0 {
            let ms = window.0.elapsed().as_secs_f64() * 1e3 / window.1 as f64;
            step_ms.extend(std::iter::repeat_n(ms, window.1));
        }
        *window = (Instant::now(), 0);
    };
    let t_start = Instant::now();
    for it in 0..=r.max_iters {
        // Rank 0 alone evaluates (no collective is involved; the others wait for it in the
        // next all-reduce).
        if main && (it % r.eval_interval == 0 || it == r.max_iters) {
            webtensor::synchronize_blocking(home)?;
            close(&mut window, &mut step_ms);
            let [train, val] = estimate_loss(dp.module(), corpus, &r, home, o.seed)?;
            if !o.json {
                let line = format!("step {it}: train loss {train:.4}, val loss {val:.4}");
                // A bar on a terminal prints above itself; without one (a pipe) print plainly.
                if bar.is_hidden() {
                    println!("{line}");
                } else {
                    bar.println(line);
                }
            }
            evals.push(serde_json::json!({ "iter": it, "train_loss": train, "val_loss": val }));
            window = (Instant::now(), 0);
            if !train.is_finite() || !val.is_finite() {
                return Err(
                    format!("training diverged: the loss is {train} at step {it}; no checkpoint was written").into()
                );
            }
        }
        if it == r.max_iters {
            break;
        }
        let (x, y) =
            corpus.batch(Split::Train, r.batch_size, r.model.block_size, o.seed.wrapping_add(it as u64 + 1), home)?;
        opt.zero_grad();
        let l = dp.forward_backward(&x, &y, &loss)?;
        for params in dp.parameter_sets() {
            clip_grad_norm_(&params, r.grad_clip, ClipGradNormOptions::default())?;
        }
        opt.step()?;
        sched.step(&mut opt)?;
        window.1 += 1;
        // The loss is read every 10 steps for the bar (a readback waits for the device).
        if it % 10 == 0 {
            last_loss = dp.global(&l)?;
            let steps = window.1 as f64;
            let tok_s = steps * (r.batch_size * r.model.block_size) as f64 / window.0.elapsed().as_secs_f64().max(1e-9);
            close(&mut window, &mut step_ms);
            bar.set_message(format!("loss {last_loss:.4} {:.0} tok/s", tok_s));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let seconds = t_start.elapsed().as_secs_f64();
    let final_val = evals.last().and_then(|e| e["val_loss"].as_f64()).unwrap_or(f64::NAN);
    let final_train = evals.last().and_then(|e| e["train_loss"].as_f64()).unwrap_or(f64::NAN);
    let metadata = vec![
        ("model".to_string(), "gpt".to_string()),
        ("config".to_string(), config_json(&r.model).to_string()),
        ("vocab".to_string(), corpus.vocab()),
        ("recipe".to_string(), r.name.to_string()),
        ("iters".to_string(), r.max_iters.to_string()),
        ("val_loss".to_string(), format!("{final_val:.4}")),
    ];
    if !main {
        return Ok(());
    }
    let bytes = nn::save_safetensors_blocking(&dp.module().state_dict(), &metadata)?;
    std::fs::write(ckpt, &bytes).map_err(|e| format!("cannot write the checkpoint to {}: {e}", ckpt.display()))?;
    let mut sorted = step_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
    let tokens_per_s = (r.batch_size * r.model.block_size) as f64 / (median / 1e3);
    if o.json {
        let out = serde_json::json!({
            "model": "gpt", "config": r.name, "devices": names, "world_size": world,
            "processes": dp.world_size(), "backend": dp.backend().map(|b| b.to_string()),
            "communication": dp.comm_json(step_ms.iter().sum::<f64>() / 1e3),
            "parameters": params, "iters": r.max_iters, "batch_size": r.batch_size, "block_size": r.model.block_size,
            "train_loss": final_train, "val_loss": final_val, "evals": evals, "last_loss": last_loss,
            "ms_per_step": median, "tokens_per_s": tokens_per_s, "seconds": seconds,
            "checkpoint": ckpt.display().to_string(),
        });
        println!("{out}");
    } else {
        println!(
            "val loss {final_val:.4} (train {final_train:.4}) after {} iterations in {seconds:.0} s, median {median:.1} ms/step ({tokens_per_s:.0} tokens/s); checkpoint {}",
            r.max_iters,
            ckpt.display()
        );
    }
    Ok(())
}

fn config_json(c: &GptConfig) -> serde_json::Value {
    serde_json::json!({
        "vocab_size": c.vocab_size, "block_size": c.block_size, "n_layer": c.n_layer, "n_head": c.n_head,
        "n_embd": c.n_embd, "dropout": c.dropout, "bias": c.bias,
    })
}

/// What `sample` was asked.
pub struct SampleOptions {
    pub checkpoint: PathBuf,
    pub prompt: String,
    pub tokens: usize,
    pub temperature: f64,
    pub top_k: Option<usize>,
    pub seed: Option<u64>,
    pub device: Option<Device>,
}

/// Prints `prompt` and `tokens` characters sampled after it from a `train --model gpt` checkpoint.
pub fn sample(o: &SampleOptions) -> Result<(), String> {
    sample_text(o).map(|text| println!("{text}")).map_err(|e| e.to_string())
}

fn sample_text(o: &SampleOptions) -> Res<String> {
    let bytes = std::fs::read(&o.checkpoint)
        .map_err(|e| format!("cannot read --checkpoint {}: {e}", o.checkpoint.display()))?;
    let meta = nn::safetensors_metadata(&bytes)?;
    let get = |k: &str| {
        meta.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).ok_or_else(|| {
            format!(
                "{} is not a `webtensor train --model gpt` checkpoint (its metadata has no '{k}')",
                o.checkpoint.display()
            )
        })
    };
    let c: serde_json::Value = serde_json::from_str(&get("config")?)?;
    let n = |k: &str| c[k].as_u64().map(|v| v as usize).ok_or_else(|| format!("the checkpoint's config has no {k}"));
    let config = GptConfig {
        vocab_size: n("vocab_size")?,
        block_size: n("block_size")?,
        n_layer: n("n_layer")?,
        n_head: n("n_head")?,
        n_embd: n("n_embd")?,
        dropout: 0.0,
        bias: c["bias"].as_bool().unwrap_or(false),
    };
    let corpus = CharCorpus::from_vocab(&get("vocab")?);
    let device = o.device.unwrap_or_else(webtensor::best_device);
    let model = Gpt::new(config, 0, device)?;
    model.load_state_dict_blocking(&nn::load_safetensors(&bytes, Some(device))?)?;
    model.eval();
    let prompt = if o.prompt.is_empty() { "\n".to_string() } else { o.prompt.clone() };
    let ids = corpus.encode(&prompt)?;
    let idx = Tensor::from_vec(ids.clone(), &[1, ids.len()], device)?;
    let options = GenerateOptions { temperature: o.temperature, top_k: o.top_k, seed: o.seed, greedy: false };
    let out = model.generate(&idx, o.tokens, options)?;
    Ok(corpus.decode(&out.to_dtype(DType::I32)?.to_vec_blocking::<i32>()?)?)
}

/// Median milliseconds of a training step of the recipe's model and batch on `device` (after
/// warm-up steps), with the step's parts as nanoGPT takes them; `dropout` in place of the
/// recipe's; with `separate_optimizer`, AdamW as separate ops instead of one kernel per
/// parameter.
pub fn bench(
    recipe_name: &str,
    device: Device,
    steps: usize,
    dropout: Option<f64>,
    separate_optimizer: bool,
) -> Res<serde_json::Value> {
    let text = corpus()?;
    let corpus = CharCorpus::new(&text, 0.1)?;
    let mut r = recipe(recipe_name, corpus.vocab_size())?;
    if let Some(p) = dropout {
        r.model.dropout = p;
    }
    let model = Gpt::new(r.model, 0, device)?;
    let mut opt = groups_with(model.parameters(), &r, r.lr, !separate_optimizer)?;
    let mut times = Vec::new();
    let mut launches = 0;
    for i in 0..steps + 3 {
        let (x, y) = corpus.batch(Split::Train, r.batch_size, r.model.block_size, i as u64, device)?;
        webtensor::synchronize_blocking(device)?;
        if i == 3 {
            // The profile (WEBTENSOR_PROFILE=1) covers the timed steps only.
            webtensor::reset_profile();
        }
        if i == 1 {
            // Peak memory of a steady step (the first allocates the optimizer's state).
            webtensor::reset_peak_memory_stats(device)?;
        }
        let (t0, launches0) = (Instant::now(), webtensor::kernel_launches(device)?);
        let (_, loss) = model.forward_with_targets(&x, Some(&y))?;
        let loss = loss.ok_or("no loss")?;
        opt.zero_grad();
        loss.backward()?;
        clip_grad_norm_(&model.parameters(), r.grad_clip, ClipGradNormOptions::default())?;
        opt.step()?;
        webtensor::synchronize_blocking(device)?;
        if i >= 3 {
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            launches += webtensor::kernel_launches(device)? - launches0;
        }
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let mut out = serde_json::json!({
        "model": "gpt", "config": r.name, "device": device.to_string(), "batch_size": r.batch_size,
        "block_size": r.model.block_size, "parameters": model.num_parameters(true), "steps": steps,
        "dropout": r.model.dropout, "optimizer": if separate_optimizer { "separate ops" } else { "fused" },
        "lazy_elementwise": webtensor::lazy_elementwise(),
        "ms_per_step": median, "tokens_per_s": (r.batch_size * r.model.block_size) as f64 / (median / 1e3),
        "peak_bytes": webtensor::max_memory_allocated(device)?,
        // Kernels launched per step (0 on the CPU, which launches none).
        "launches_per_step": launches / steps.max(1) as u64,
    });
    if webtensor::profiling() {
        // Per step: each op's calls and waited-for milliseconds, the most time first.
        let per = steps.max(1) as f64;
        let rows: Vec<_> = webtensor::profile_report()
            .iter()
            .map(|r| serde_json::json!({"op": r.op, "calls": r.calls as f64 / per, "ms": r.ms / per}))
            .collect();
        out["profile_per_step"] = serde_json::Value::Array(rows);
    }
    Ok(out)
}
