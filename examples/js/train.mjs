// A training loop as PyTorch users write one, from JavaScript, with a checkpoint: an MLP (an
// nn.Module subclass) learns which side of a line a point is on, batches come from a
// DataLoader, Adam steps on cross-entropy inside tidy, then the weights go to a .safetensors
// file and load into a fresh model that must predict the same. Fails below 95% test accuracy.
//
//   node examples/js/train.mjs [device]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as wt from 'webtensor';

const gpu = await import('webgpu').then((m) => m.create([])).catch(() => null);
await wt.init(gpu ? { gpu } : {});
const dev = process.argv[2] ?? wt.bestDevice();
await wt.open(dev);
const { nn, optim } = wt;

/** Points in the plane and their class: 1 where x + 2y > 0.5. */
function points(n, seed) {
  return wt.tidy(() => {
    const x = wt.randn([n, 2], { seed });
    const y = x.matmul(wt.tensor([[1], [2]])).gt(0.5).toDtype('int32').reshape([-1]);
    return [x, y];
  });
}

class Mlp extends nn.Module {
  constructor(seed) {
    super();
    this.hidden = new nn.Linear(2, 32, { seed });   // attributes register, as in PyTorch
    this.out = new nn.Linear(32, 2, { seed: seed + 1 });
  }
  forward(x) { return this.out.forward(this.hidden.forward(x).relu()); }
}

/** The fraction of x that model classifies as y. */
async function accuracy(model, x, y) {
  const hits = wt.noGrad(() => wt.tidy(() => model.forward(x).argmax(1).eq(y).toDtype('float32').mean()));
  try { return await hits.item(); } finally { hits.dispose(); }
}

const [x, y] = points(2048, 0);
const [xt, yt] = await Promise.all(points(512, 1).map((t) => t.to(dev)));
const model = await new Mlp(7).to(dev);
const opt = new optim.Adam(model.parameters(), { lr: 1e-2 });
const loader = new wt.data.DataLoader([x, y], { batchSize: 128, shuffle: true, seed: 0 });
console.log(`training on ${dev}`);
for (let epoch = 0; epoch < 8; epoch++) {
  let total = 0;
  let batches = 0;
  for (const [xc, yc] of loader) {
    const [xb, yb] = [await xc.to(dev), await yc.to(dev)];
    const loss = wt.tidy(() => {
      opt.zeroGrad();
      const l = nn.functional.crossEntropy(model.forward(xb), yb);
      l.backward();
      opt.step();
      return l;
    });
    total += await loss.item();
    batches += 1;
    for (const t of [xc, yc, xb, yb, loss]) t.dispose();
  }
  console.log(`epoch ${epoch}: loss ${(total / batches).toFixed(4)}, test accuracy ${(100 * await accuracy(model, xt, yt)).toFixed(1)}%`);
}
const acc = await accuracy(model, xt, yt);
if (acc < 0.95) throw new Error(`test accuracy ${acc} after training; expected above 0.95`);

// The checkpoint: PyTorch's keys (hidden.weight, hidden.bias, out.weight, out.bias).
const dir = mkdtempSync(path.join(tmpdir(), 'webtensor-example-'));
try {
  const file = path.join(dir, 'mlp.safetensors');
  await wt.saveSafetensorsFile(model.stateDict(), file, { metadata: { epochs: '8' } });
  const restored = await new Mlp(99).to(dev);     // other initial weights, replaced by the file's
  await restored.loadStateDict(await wt.loadSafetensorsFile(file));
  const again = await accuracy(restored, xt, yt);
  console.log(`checkpoint ${file} reloaded: test accuracy ${(100 * again).toFixed(1)}%`);
  if (again !== acc) throw new Error(`the reloaded model scores ${again}, the trained one ${acc}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
