// The page's training workload, run in the worker: an MLP (64-128-10, Adam, cross-entropy) learns
// the UCI handwritten digits (data/digits, the file `webtensor train` embeds) on one device or
// data parallel over two, with the same seeded split and shuffle as the binary (both come from
// the core's permutation). The trained model stays in the worker for predictions.

const HIDDEN = 128;
const TEST_ROWS = 360;
let digits = null; // a promise of { xTrain, yTrain, xTest, yTest } on the cpu, loaded once
let trained = null; // { dp, device }

/** The data set, split 1,437 / 360 by `permutation(1797, 0, 0)` as `webtensor train --seed 0`. */
function load(wt) {
  // One load, however many requests arrive while it runs; a failed one can be retried.
  digits ??= fetchDigits(wt).catch((e) => {
    digits = null;
    throw e;
  });
  return digits;
}

async function fetchDigits(wt) {
  const res = await fetch(new URL('../data/digits/digits.safetensors', import.meta.url));
  if (!res.ok) throw new Error(`the digits file did not load (HTTP ${res.status})`);
  const dict = wt.nn.loadSafetensors(new Uint8Array(await res.arrayBuffer()), { device: 'cpu' });
  const n = dict.labels.shape[0];
  const order = new wt.data.DataLoader([dict.labels], { shuffle: true, seed: 0 }).order(0);
  const x = wt.tidy(() => dict.images.toDtype('float32').div(16).reshape([n, 64]));
  const y = dict.labels.toDtype('int32');
  const pick = (rows) => {
    const idx = wt.tensor(Int32Array.from(rows));
    const out = [x.indexSelect(0, idx), y.indexSelect(0, idx)];
    idx.dispose();
    return out;
  };
  const [xTrain, yTrain] = pick(order.slice(0, n - TEST_ROWS));
  const [xTest, yTest] = pick(order.slice(n - TEST_ROWS));
  for (const t of [x, y, dict.images, dict.labels]) t.dispose();
  return { xTrain, yTrain, xTest, yTest };
}

/** The fraction of rows of `x` the model classifies as `y`. */
async function accuracy(wt, model, x, y) {
  model.eval();
  const correct = wt.noGrad(() => wt.tidy(() => model.forward(x).argmax(1).eq(y).toDtype('int32').sum()));
  model.train();
  const n = await correct.item();
  correct.dispose();
  return n / y.shape[0];
}

/**
 * Trains for `epochs` on `devices` (one, or two for data parallel); `onBatch(done, total)` after
 * every few steps and `onEpoch(row)` after each epoch (both awaited: they report progress and let
 * the worker take messages).
 */
export async function train(wt, { devices, epochs, batchSize = 64, lr = 0.01, seed = 0 }, onBatch, onEpoch) {
  const { xTrain, yTrain, xTest, yTest } = await load(wt);
  trained?.dp.dispose();
  trained = null;
  const build = (device) => new wt.nn.Sequential(
    new wt.nn.Linear(64, HIDDEN, { seed, device }), new wt.nn.ReLU(), new wt.nn.Linear(HIDDEN, 10, { seed: seed + 1, device }));
  const dp = await wt.parallel.DataParallel.create(devices, build);
  const opt = dp.optimizer((p) => new wt.optim.Adam(p, { lr }));
  const loader = new wt.data.DataLoader([xTrain, yTrain], { batchSize, shuffle: true, seed });
  const home = dp.devices[0];
  const held = [await xTrain.to(home), await yTrain.to(home), await xTest.to(home), await yTest.to(home)];
  const lossFn = (out, y) => wt.nn.functional.crossEntropy(out, y);
  const rows = [];
  try {
    for (let epoch = 1; epoch <= epochs; epoch++) {
      const t0 = performance.now();
      let sum = null;
      let done = 0;
      for (const [xb, yb] of loader) {
        opt.zeroGrad();
        const loss = await dp.forwardBackward(xb, yb, lossFn);
        opt.step();
        const weighted = loss.mul(yb.shape[0]);
        const next = sum ? sum.add(weighted) : weighted;
        if (sum) { sum.dispose(); weighted.dispose(); }
        sum = next;
        for (const t of [xb, yb, loss]) t.dispose();
        done++;
        if (done % 4 === 0 || done === loader.length) await onBatch(done, loader.length, epoch);
      }
      const loss = (await sum.item()) / yTrain.shape[0]; // waits for the epoch's GPU work
      sum.dispose();
      const seconds = (performance.now() - t0) / 1000;
      const row = {
        epoch,
        loss,
        trainAccuracy: await accuracy(wt, dp.module, held[0], held[1]),
        testAccuracy: await accuracy(wt, dp.module, held[2], held[3]),
        seconds,
        samplesPerS: yTrain.shape[0] / seconds,
      };
      rows.push(row);
      await onEpoch(row);
    }
  } catch (e) {
    dp.dispose();
    throw e;
  } finally {
    opt.dispose();
    for (const t of held) t.dispose();
  }
  trained = { dp, device: home };
  return rows;
}

/** The trained model's probabilities for one 8x8 image (64 values in [0, 1]). */
export async function predict(wt, pixels) {
  if (!trained) throw new Error('train the model first');
  const model = trained.dp.module;
  model.eval();
  const probs = wt.noGrad(() => wt.tidy(() => model.forward(wt.tensor(Float32Array.from(pixels), { device: trained.device }).reshape([1, 64])).softmax(-1)));
  const out = Array.from(await probs.data());
  probs.dispose();
  return out;
}

/** Test image `i` (in the held-out split) as 64 values in [0, 1], and its label. */
export async function testImage(wt, i) {
  const { xTest, yTest } = await load(wt);
  const k = ((i % TEST_ROWS) + TEST_ROWS) % TEST_ROWS;
  const row = xTest.narrow(0, k, 1);
  const label = yTest.narrow(0, k, 1);
  const out = { pixels: Array.from(await row.data()), label: (await label.data())[0] };
  row.dispose();
  label.dispose();
  return out;
}
