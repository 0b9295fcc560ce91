// The page's workloads, run inside the Worker (worker.js): k-means colour quantisation and the
// benchmark, each reporting progress after every step so the page can show it and cancel.

/** k-means with K centroids on `device`: distances by matmul, argmin, one-hot by broadcast eq,
 * sums by matmul. `step(done, total)` is awaited after each iteration (the GPU work of that
 * iteration is synchronized first, so progress is real). */
export async function kmeans(wt, device, pixels, { k = 8, iterations = 12, step }) {
  const n = pixels.length / 3;
  const p = wt.tensor(pixels, { device, shape: [n, 3] });
  const picks = wt.tensor(Int32Array.from({ length: k }, (_, j) => Math.floor((j * n) / k + n / (2 * k))), { device });
  let c = p.indexSelect(0, picks);
  picks.dispose();
  const pSq = p.square().sum(1, true);
  const ids = wt.arange(0, k, 1, { device, dtype: 'int32' });
  let labels = null;
  try {
    for (let i = 0; i < iterations; i++) {
      const out = wt.tidy(() => {
        const dist = p.matmul(c.t()).mul(-2).add(pSq).add(c.square().sum(1));
        const lab = dist.argmin(1);
        const onehot = lab.unsqueeze(1).eq(ids).toDtype('float32');
        const counts = onehot.sum(0);
        const mean = onehot.t().matmul(p).div(counts.clamp(1).unsqueeze(1));
        return { next: mean.where(counts.gt(0).unsqueeze(1), c), lab };
      });
      c.dispose();
      labels?.dispose();
      c = out.next;
      labels = out.lab;
      await wt.synchronize(device);
      await step?.(i + 1, iterations);
    }
    return { centroids: await c.data(), labels: await labels.data() };
  } finally {
    for (const t of [p, c, pSq, ids, labels]) t?.dispose();
  }
}

async function median(wt, device, runs, f) {
  (await f()).dispose();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const out = f();
    await wt.synchronize(device);
    // Browsers coarsen timers (to 0.1 ms or more): a floor keeps rates finite.
    times.push(Math.max(performance.now() - t0, 0.05));
    (await out).dispose();
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

export const MATMUL_SIZES = [64, 128, 256, 512];
export const ADD_SIZES = [2 ** 16, 2 ** 18, 2 ** 20, 2 ** 22];

/** matmul GFLOP/s and add GB/s by size on `device`; `step(done, total, rows)` after each size. */
export async function bench(wt, device, { step }) {
  const rows = { matmul: [], add: [] };
  const total = MATMUL_SIZES.length + ADD_SIZES.length;
  for (const n of MATMUL_SIZES) {
    const a = wt.randn([n, n], { device, seed: 1 });
    try {
      const ms = await median(wt, device, 3, () => a.matmul(a));
      rows.matmul.push([n, (2 * n ** 3) / ms / 1e6]);
    } finally {
      a.dispose();
    }
    await step?.(rows.matmul.length, total, rows);
  }
  for (const n of ADD_SIZES) {
    const a = wt.ones([n], { device });
    try {
      const ms = await median(wt, device, 3, () => a.add(a));
      rows.add.push([n, (12 * n) / ms / 1e6]);
    } finally {
      a.dispose();
    }
    await step?.(rows.matmul.length + rows.add.length, total, rows);
  }
  return rows;
}
