// The multi-tensor optimizer step from JavaScript (issue 44): AdamW and SGD over many parameters
// in two groups equal to the same optimizers as separate ops (`fused: false`), and a step's
// kernel launches on a GPU (parameters sharing a step go up to eight a launch, as the fused kernels
// asked for everywhere make them on the CPU adapters too); shared by the
// Node and browser runners.
import { assert, close } from './assert.mjs';

const SIZES = [3, 1, 17, 128, 4097, 7, 64, 5, 300, 2, 33];

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function optimCases(wt, devices) {
  const list = [];
  for (const device of devices) {
    list.push({
      name: `${device}: optim: a step over many parameters equals the separate ops, in few launches`,
      fn: async () => {
        // Eight a launch on the CPU adapters too (their default is one: it measured slower).
        wt.setFusedKernels('always');
        try {
          await manyParameters(wt, device);
        } finally {
          wt.setFusedKernels('auto');
        }
      },
    });
  }
  return list;
}

async function manyParameters(wt, device) {
  const values = (n, seed) => Float32Array.from({ length: n }, (_, i) => (((i * 37 + seed * 101) % 211) / 105 - 1) * 0.5);
  const params = () => SIZES.map((n, k) => wt.tensor(values(n, k), { device }).requiresGrad_(true));
  const kinds = [
    ['AdamW', (g, fused) => new wt.optim.AdamW(g, { lr: 0.01, fused })],
    ['SGD', (g, fused) => new wt.optim.SGD(g, { lr: 0.1, momentum: 0.9, nesterov: true, fused })],
  ];
  for (const [name, make] of kinds) {
    const [a, b] = [params(), params()];
    const groups = (ps) => [{ params: ps.slice(0, 5), weightDecay: 0.1 }, { params: ps.slice(5), weightDecay: 0 }];
    const [fused, separate] = [make(groups(a), true), make(groups(b), false)];
    const launches = [];
    for (let step = 0; step < 3; step++) {
      for (const ps of [a, b]) {
        ps.forEach((p, k) => {
          p.grad = wt.tensor(values(SIZES[k], 7 * k + step + 1), { device });
        });
      }
      await wt.synchronize(device);
      const before = wt.kernelLaunches(device);
      fused.step();
      launches.push(wt.kernelLaunches(device) - before);
      separate.step();
    }
    for (let k = 0; k < SIZES.length; k++) {
      close(await a[k].data(), await b[k].data(), 2e-6, `${name} parameter ${k} on ${device}`);
    }
    if (device === 'cpu') {
      assert.deepEqual(launches, [0, 0, 0]);
    } else {
      // Two groups: 5 parameters, then 6, a launch each, past any adapter with 16 storage
      // bindings (Dawn's cap; WebGPU's minimum, 8, would take 3 and 3).
      launches.forEach((n) => assert.ok(n >= 2 && n <= 6, `${name}: ${n} launches a step on ${device}`));
    }
    fused.dispose();
    separate.dispose();
    [...a, ...b].forEach((p) => p.dispose());
  }
}
