// Device choice and `to` from JavaScript: list the devices, take the best (or the one named on
// the command line), compute there, move with an explicit `to`, and see the error an op over two
// devices gives. Exits non-zero unless the device agrees with the cpu.
//
//   node examples/js/quickstart.mjs [device]
import * as wt from 'webtensor';

// In Node, WebGPU comes from the `webgpu` package (Dawn) when it is installed; a page needs nothing.
const gpu = await import('webgpu').then((m) => m.create([])).catch(() => null);
await wt.init(gpu ? { gpu } : {});
for (const d of wt.devices()) console.log(d.name.padEnd(10), d.backend.padEnd(7), d.type);
const dev = process.argv[2] ?? wt.bestDevice();
await wt.open(dev);
console.log(`using ${dev} (best: ${wt.bestDevice()})`);

/** mean(relu(x xT)) read back, with nothing left allocated. */
async function meanRelu(x) {
  const m = wt.tidy(() => x.matmul(x.t()).relu().mean());
  try { return await m.item(); } finally { m.dispose(); }
}
const x = wt.randn([256, 256], { device: dev, seed: 0 });       // seeded: the same values everywhere
const here = await meanRelu(x);
const xc = await x.to('cpu');                                     // a new tensor; x stays where it is
const reference = await meanRelu(xc);
console.log(`mean(relu(x xT)) on ${dev}: ${here.toFixed(6)}, on cpu: ${reference.toFixed(6)}`);
if (Math.abs(here - reference) > 1e-4 * Math.max(1, Math.abs(reference))) throw new Error(`${dev} gave ${here}, the cpu ${reference}`);

const shapesOnly = wt.zeros([256, 256], { device: 'meta' });      // another device, always
try {
  xc.add(shapesOnly);
  throw new Error('an op over two devices ran');
} catch (e) {
  console.log(`as in PyTorch: ${e.message}`);
}
await wt.synchronize(dev);
console.log(`allocated on ${dev}: ${wt.memoryAllocated(dev)} bytes in ${wt.memory().numTensors} tensors`);
for (const t of [x, xc, shapesOnly]) t.dispose();
if (wt.memory().numTensors !== 0) throw new Error(`${wt.memory().numTensors} tensors leaked`);
