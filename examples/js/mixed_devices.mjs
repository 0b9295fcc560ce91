// Several devices in one program from JavaScript: the data stays on the cpu, the model on the
// first WebGPU adapter (else the cpu), every crossing is an explicit `to`, and the placement
// log and transfer counters show what ran where and what moved. Then soft placement: a device
// that does not exist falls back to one that does, and the log says so.
//
//   node examples/js/mixed_devices.mjs [device]
import * as wt from 'webtensor';

const gpu = await import('webgpu').then((m) => m.create([])).catch(() => null);
await wt.init(gpu ? { gpu } : {});
const dev = process.argv[2] ?? wt.devices().find((d) => d.name !== 'cpu' && d.name !== 'meta')?.name ?? 'cpu';
await wt.open(dev);
console.log(`data on cpu, model on ${dev}`);
const model = await new wt.nn.Linear(16, 4, { seed: 1 }).to(dev);
const x = wt.randn([64, 16], { seed: 2 });
const y = wt.randint(4, [64], { seed: 3 });

if (dev !== 'cpu') {
  try {
    model.forward(x);
    throw new Error('a cpu batch ran through a GPU model');
  } catch (e) {
    console.log(`without to: ${e.message}`);
  }
}
wt.setLogDevicePlacement(true);
wt.clearPlacementLog();
const [xg, yg] = [await x.to(dev), await y.to(dev)];
const loss = wt.nn.functional.crossEntropy(model.forward(xg), yg);
loss.backward();
const value = await loss.item();
const log = wt.placementLog();
console.log(`loss ${value.toFixed(4)}; ${log.length} ops logged: ${log.slice(0, 6).map((p) => `${p.op}@${p.output}`).join(' ')} ...`);
const t = wt.transferStats(dev);
console.log(`${dev}: ${JSON.stringify(t)}`);

const cpuModel = new wt.nn.Linear(16, 4, { seed: 1 });
const cpuLoss = await wt.nn.functional.crossEntropy(cpuModel.forward(x), y).item();
if (Math.abs(cpuLoss - value) > 1e-5) throw new Error(`${dev} gave loss ${value}, the cpu ${cpuLoss}`);

wt.setSoftDevicePlacement(true);
const z = wt.ones([3], { device: 'webgpu:57' });
const fallback = wt.placementLog().reverse().find((p) => p.fallback);
console.log(`asked for webgpu:57, got ${z.device} (${fallback?.fallback})`);
wt.setSoftDevicePlacement(false);
wt.setLogDevicePlacement(false);
