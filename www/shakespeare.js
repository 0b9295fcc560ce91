// The page's Shakespeare workload, run in the worker: nanoGPT's character-level GPT
// (wt.models.GPT) learns the plays (data/shakespeare, the corpus `webtensor train --model gpt`
// embeds: the sorted character vocabulary, the first 90% to train and the rest to validate,
// nanoGPT's random-window batches) on one device or data parallel over two. The run stays in the
// worker between calls, so a stopped run resumes where it stopped, and its weights can be saved
// as a checkpoint (`webtensor sample --checkpoint` reads it) or replaced by an uploaded one.

/** The page's model: nanoGPT's architecture, small enough for a software adapter. */
export const PAGE_CONFIG = Object.freeze({ blockSize: 64, nLayer: 2, nHead: 4, nEmbd: 64, dropout: 0, bias: false });
const BATCH = 16;
const LR = 3e-3;
const EVAL_BATCHES = 4;

let corpus = null; // a promise of { vocab, train, val } (Int32Array ids), loaded once
let run = null; // { dp, opt, devices, step, rng, stop, config, vocab, stoi }

/** The corpus, decompressed in the worker (DecompressionStream) and encoded once. */
function load() {
  corpus ??= fetchCorpus().catch((e) => {
    corpus = null;
    throw e;
  });
  return corpus;
}

async function fetchCorpus() {
  const res = await fetch(new URL('../data/shakespeare/input.txt.gz', import.meta.url));
  if (!res.ok) throw new Error(`the Shakespeare corpus did not load (HTTP ${res.status})`);
  const text = await new Response(res.body.pipeThrough(new DecompressionStream('gzip'))).text();
  const vocab = [...new Set(text)].sort();
  const stoi = new Map(vocab.map((c, i) => [c, i]));
  const ids = Int32Array.from(text, (c) => stoi.get(c));
  const n = Math.floor(0.9 * ids.length);
  return { vocab, train: ids.subarray(0, n), val: ids.subarray(n) };
}

/** mulberry32: the page's seeded batch offsets (nanoGPT draws them with torch.randint). */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** nanoGPT's get_batch: `BATCH` random windows of `block` ids and the ids one further. */
function batch(wt, data, block, rng, device) {
  const x = new Int32Array(BATCH * block);
  const y = new Int32Array(BATCH * block);
  for (let b = 0; b < BATCH; b++) {
    const i = Math.floor(rng() * (data.length - block - 1));
    x.set(data.subarray(i, i + block), b * block);
    y.set(data.subarray(i + 1, i + block + 1), b * block);
  }
  const opts = { shape: [BATCH, block], dtype: 'int32', device };
  return [wt.tensor(x, opts), wt.tensor(y, opts)];
}

/** A fresh run: the model on each device (data parallel when two), AdamW as nanoGPT configures it. */
async function start(wt, devices, config, vocab, seed) {
  run?.dp.dispose();
  run?.opt.dispose();
  run = null;
  // DataParallel gives the loss the module's output: the logits of nanoGPT's forward.
  class Logits extends wt.nn.Module {
    constructor(device) {
      super();
      this.gpt = new wt.models.GPT({ ...config, vocabSize: vocab.length, seed, device });
    }
    forward(idx) { return this.gpt.forward(idx).logits; }
  }
  const dp = await wt.parallel.DataParallel.create(devices, (device) => new Logits(device));
  const opt = dp.optimizer((params) => {
    const decay = params.filter((p) => p.rank >= 2);
    const rest = params.filter((p) => p.rank < 2);
    return new wt.optim.AdamW([{ params: decay, weightDecay: 0.1 }, { params: rest, weightDecay: 0 }], { lr: LR, betas: [0.9, 0.99] });
  });
  run = { dp, opt, devices, step: 0, rng: generator(seed + 1), stop: false, config, vocab, stoi: new Map(vocab.map((c, i) => [c, i])) };
  return run;
}

/** nanoGPT's estimate_loss: the mean loss of a few batches of each split, in eval mode. */
async function estimate(wt, c) {
  const out = {};
  const home = run.dp.devices[0];
  const gpt = run.dp.module.gpt;
  gpt.eval();
  for (const [name, data] of [['train', c.train], ['val', c.val]]) {
    let sum = 0;
    for (let i = 0; i < EVAL_BATCHES; i++) {
      const [x, y] = batch(wt, data, run.config.blockSize, run.rng, home);
      const loss = wt.tidy(() => wt.noGrad(() => gpt.forward(x, y).loss));
      sum += await loss.item();
      for (const t of [x, y, loss]) t.dispose();
    }
    out[name] = sum / EVAL_BATCHES;
  }
  gpt.train();
  return out;
}

/** `tokens` characters generated after `prompt` (nanoGPT's sample.py: temperature, top-k). */
export async function generate(wt, { prompt, tokens, temperature, topK, seed }) {
  if (!run) throw new Error('train the model (or upload a checkpoint) first');
  const { stoi } = run;
  const text = prompt === '' ? '\n' : prompt;
  const unknown = [...new Set(text)].filter((ch) => !stoi.has(ch));
  if (unknown.length) throw new Error(`the prompt has characters the model does not know: ${unknown.map((ch) => JSON.stringify(ch)).join(', ')}`);
  const home = run.dp.devices[0];
  const gpt = run.dp.module.gpt;
  const idx = wt.tensor(Int32Array.from(text, (ch) => stoi.get(ch)), { shape: [1, text.length], dtype: 'int32', device: home });
  gpt.eval();
  try {
    const out = await gpt.generate(idx, tokens, { temperature, topK, seed });
    const ids = await out.data();
    out.dispose();
    return Array.from(ids.slice(text.length), (i) => run.vocab[i]).join('');
  } finally {
    gpt.train();
    idx.dispose();
  }
}

/**
 * Trains until step `until` on `devices`, resuming the run in the worker when asked (and when
 * it is on the same devices); `report` gets progress rows (awaited: it lets the worker take a
 * stop request). Resolves to `{ step, stopped }`.
 */
export async function train(wt, { devices, until, resume, evalEvery, sampleEvery, seed = 0 }, report) {
  const c = await load();
  if (!resume || !run || run.devices.join() !== devices.join()) await start(wt, devices, PAGE_CONFIG, c.vocab, seed);
  run.stop = false;
  const { dp, opt } = run;
  const home = dp.devices[0];
  const V = c.vocab.length;
  const lossFn = (logits, y) => wt.nn.functional.crossEntropy(logits.view(-1, V), y.reshape(-1));
  const block = run.config.blockSize;
  let t0 = performance.now();
  let since = 0;
  while (run.step < until && !run.stop) {
    const [x, y] = batch(wt, c.train, block, run.rng, home);
    opt.zeroGrad();
    const loss = await dp.forwardBackward(x, y, lossFn);
    opt.step();
    run.step++;
    since++;
    const row = { step: run.step };
    if (run.step % 10 === 0 || run.step === until) {
      row.loss = await loss.item(); // waits for the step's GPU work, so the time is honest
      const now = performance.now();
      row.tokensPerS = (since * BATCH * block) / ((now - t0) / 1000);
      [t0, since] = [now, 0];
    }
    for (const t of [x, y, loss]) t.dispose();
    if (run.step % evalEvery === 0 || run.step === until) Object.assign(row, await estimate(wt, c));
    if (run.step % sampleEvery === 0 || run.step === until) {
      row.sample = await generate(wt, { prompt: '\n', tokens: 120, temperature: 0.8, topK: 20, seed: run.step });
    }
    await report(row);
  }
  return { step: run.step, stopped: run.step < until };
}

/** Asks a running `train` to stop after its current step (it can be resumed). */
export function stop() {
  if (run) run.stop = true;
  return { step: run?.step ?? 0 };
}

/** The model's weights with its config and vocabulary, as `webtensor train --model gpt` writes them. */
export async function checkpoint(wt) {
  if (!run) throw new Error('train the model first');
  const c = run.config;
  const config = { vocab_size: run.vocab.length, block_size: c.blockSize, n_layer: c.nLayer, n_head: c.nHead, n_embd: c.nEmbd, dropout: c.dropout, bias: c.bias };
  const metadata = { model: 'gpt', config: JSON.stringify(config), vocab: run.vocab.join(''), recipe: 'page', iters: String(run.step) };
  return wt.nn.saveSafetensors(run.dp.module.gpt.stateDict(), { metadata });
}

/** Replaces the run by the weights of an uploaded checkpoint (its config and vocabulary). */
export async function upload(wt, bytes, devices) {
  const meta = wt.nn.safetensorsMetadata(bytes);
  if (meta.model !== 'gpt' || !meta.config || !meta.vocab) throw new Error('this file is not a GPT checkpoint (from this page or `webtensor train --model gpt`): its metadata has no model, config or vocab');
  const k = JSON.parse(meta.config);
  const config = { blockSize: k.block_size, nLayer: k.n_layer, nHead: k.n_head, nEmbd: k.n_embd, dropout: 0, bias: Boolean(k.bias) };
  const vocab = [...meta.vocab];
  const c = await load();
  if (vocab.join('') !== c.vocab.join('')) throw new Error('the checkpoint was trained on another vocabulary than the page\'s corpus');
  await start(wt, devices, config, vocab, 0);
  await run.dp.module.gpt.loadStateDict(wt.nn.loadSafetensors(bytes, { device: run.dp.devices[0] }));
  await run.dp.syncReplicas();
  run.step = Number(meta.iters) || 0;
  return { step: run.step, config: k };
}
