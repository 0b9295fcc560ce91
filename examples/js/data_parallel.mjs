// Data parallel training from JavaScript (wt.parallel.DataParallel, PyTorch's DataParallel): one
// replica per device, each global batch split across them, gradients averaged through the
// core's reducer, every replica stepped identically. Devices: the cpu and the first WebGPU
// adapter (or the list on the command line); the weights must equal those of the same training
// on one device.
//
//   node examples/js/data_parallel.mjs [device,device,...]
import * as wt from 'webtensor';

const gpu = await import('webgpu').then((m) => m.create([])).catch(() => null);
await wt.init(gpu ? { gpu } : {});
const first = wt.devices().find((d) => d.name !== 'cpu' && d.name !== 'meta')?.name;
const devices = process.argv[2]?.split(',') ?? ['cpu', ...(first ? [first] : [])];
for (const d of devices) await wt.open(d);
console.log(`replicas on ${devices.join(', ')}`);

const makeModel = (device) => new wt.nn.Linear(8, 3, { seed: 1 }).to(device);
const dp = await wt.parallel.DataParallel.create(devices, makeModel);
const sgd = { lr: 0.1, momentum: 0.9 };
const opt = dp.optimizer((params) => new wt.optim.SGD(params, sgd));
const single = new wt.nn.Linear(8, 3, { seed: 1 });
const singleOpt = new wt.optim.SGD(single.parameters(), sgd);
const ce = (out, y) => wt.nn.functional.crossEntropy(out, y);
for (let step = 0; step < 20; step++) {
  const x = wt.randn([30, 8], { seed: 100 + step });
  const y = wt.randint(3, [30], { seed: 200 + step });
  opt.zeroGrad();
  const loss = await dp.forwardBackward(x, y, ce);
  opt.step();
  wt.tidy(() => { singleOpt.zeroGrad(); ce(single.forward(x), y).backward(); singleOpt.step(); });
  if (step % 5 === 0) console.log(`step ${step}: loss ${(await loss.item()).toFixed(4)}`);
  for (const t of [x, y, loss]) t.dispose();
}
let worst = 0;
const want = single.stateDict();
for (const replica of dp.replicas) {
  for (const [name, t] of Object.entries(replica.stateDict())) {
    const [a, b] = [await t.data(), await want[name].data()];
    const diff = a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
    worst = Math.max(worst, diff);
    if (diff > 2e-4) throw new Error(`${name} differs from one device's by ${diff}`);
  }
}
console.log(`${dp.replicas.length} replicas agree with one device's training (largest difference ${worst.toExponential(1)})`);
