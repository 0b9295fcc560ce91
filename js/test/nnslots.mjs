// wt.nn slots as PyTorch keeps them: frozen parameters (requiresGrad_(false)) survive moves,
// steps and loads; loads keep gradients; an optimizer step that is refused changes nothing on
// either side of the JS/wasm boundary; registry lookups by dotted name; Embedding's paddingIdx
// counted from the end.
import { assert } from './assert.mjs';

export function nnSlotCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  const other = devices.find((d) => d !== 'cpu');
  add('nn: frozen parameters stay frozen through steps, to and loadStateDict; loads keep gradients', () => frozenCase(wt, other ?? 'cpu'));
  if (other) add(`${other}: nn: a refused optimizer step changes no parameter`, () => refusedStepCase(wt, other));
  add('nn: getParameter/getBuffer/getSubmodule; a class field cannot hide what built-in layers run', () => lookupCase(wt));
  add('nn: Embedding paddingIdx counts from the end and must be inside the table', () => paddingCase(wt));
  add('nn: Sequential frees the outputs it passes along, never a parameter or the input', () => sequentialCase(wt));
  return list;
}

async function sequentialCase(wt) {
  const nn = wt.nn;
  // A module that returns its own parameter, and one that returns its input.
  class Table extends nn.Module {
    constructor() {
      super();
      this.registerParameter('table', wt.ones([2, 3]));
    }
    forward() { return this.table; }
  }
  class Same extends nn.Module {
    forward(x) { return x; }
  }
  const m = new nn.Sequential(new Same(), new Table(), new Same(), new nn.Linear(3, 1, { seed: 1 }), new nn.ReLU());
  const x = wt.zeros([2, 3]);
  const before = wt.memory().numTensors;
  const y = m.forward(x);
  assert.equal(wt.memory().numTensors, before + 1, 'only the output is left: the Linear output was freed');
  assert.ok(!x.disposed && !m.getParameter('1.table').disposed, 'the input and the parameter stay');
  assert.deepEqual(await values(m.getParameter('1.table')), [1, 1, 1, 1, 1, 1]);
  assert.equal(y.shape.join(), '2,1');
  for (const t of [x, y]) t.dispose();
  m.dispose();
}

const values = async (t) => Array.from(await t.data());

async function frozenCase(wt, device) {
  const nn = wt.nn;
  const m = new nn.Sequential(new nn.Linear(3, 4, { seed: 7 }), new nn.ReLU(), new nn.Linear(4, 2, { seed: 8 }));
  const frozen = m.getParameter('0.weight');
  const live = m.getParameter('2.weight');
  frozen.requiresGrad_(false);
  const opt = new wt.optim.SGD(m.parameters(), { lr: 0.5, momentum: 0.9 });
  const x = wt.randn([5, 3], { seed: 3 });
  wt.tidy(() => m.forward(x).sum().backward());
  assert.equal(frozen.grad, null, 'a frozen parameter gets no gradient');
  const [frozenBefore, liveBefore] = [await values(frozen), await values(live)];
  opt.step();
  assert.deepEqual(await values(frozen), frozenBefore, 'the step skipped the frozen weight');
  assert.notDeepEqual(await values(live), liveBefore, 'and updated the others');
  assert.ok(!frozen.requiresGrad && live.requiresGrad, 'a step keeps requiresGrad');
  const g = live.grad;
  const grad = await values(g);
  g.dispose();
  await m.to(device);
  assert.ok(!frozen.requiresGrad && live.requiresGrad && frozen.device === device, 'to keeps requiresGrad');
  const dict = m.stateDict();
  await m.loadStateDict(dict);
  assert.ok(!frozen.requiresGrad && live.requiresGrad, 'loadStateDict keeps requiresGrad');
  assert.ok(frozen.isLeaf && live.isLeaf);
  const kept = live.grad;
  assert.ok(kept !== null, 'loadStateDict keeps gradients, as PyTorch');
  assert.deepEqual(await values(kept), grad);
  kept.dispose();
  frozen.requiresGrad_(true);
  const xd = await x.to(device);
  wt.tidy(() => m.forward(xd).sum().backward());
  assert.ok(frozen.grad !== null, 'an unfrozen parameter collects gradients again');
  Object.values(dict).forEach((t) => t.dispose());
  [x, xd].forEach((t) => t.dispose());
  opt.dispose();
  m.dispose();
}

async function refusedStepCase(wt, device) {
  const nn = wt.nn;
  const a = new nn.Linear(3, 2, { seed: 1 });
  const b = new nn.Linear(2, 1, { seed: 2 });
  const opt = new wt.optim.Adam([...a.parameters(), ...b.parameters()]);
  const x = wt.ones([4, 3]);
  const backward = async (on) => {
    const h = a.forward(x);
    const hm = await h.to(on);
    const loss = wt.tidy(() => b.forward(hm).sum());
    await loss.backwardAsync(); // the graph crosses devices through `to`
    [h, hm, loss].forEach((t) => t.dispose());
  };
  await backward('cpu');
  opt.step();
  await b.to(device);
  await backward(device);
  const first = await values(a.weight);
  assert.throws(() => opt.step(), /after model\.to/);
  assert.deepEqual(await values(a.weight), first, 'the parameters before the refused one did not move');
  assert.equal(b.weight.device, device, 'the JS parameters still hold their own values');
  await b.to('cpu');
  opt.step();
  assert.notDeepEqual(await values(a.weight), first, 'the same optimizer works once the devices agree');
  x.dispose();
  opt.dispose();
  [a, b].forEach((m) => m.dispose());
}

async function lookupCase(wt) {
  const nn = wt.nn;
  const seq = new nn.Sequential(new nn.Linear(2, 3, { seed: 1 }), new nn.BatchNorm1d(3));
  assert.equal(seq.getSubmodule(''), seq);
  assert.equal(seq.getSubmodule('1'), seq.at(1));
  assert.equal(seq.getParameter('0.weight'), seq.at(0).weight);
  assert.equal(seq.getBuffer('1.running_mean'), seq.at(1).running_mean);
  assert.throws(() => seq.getSubmodule('0.x'), /'0' has no submodule 'x' \(it has none\)/);
  assert.throws(() => seq.getSubmodule('5'), /this module has no submodule '5' \(it has '0', '1'\)/);
  assert.throws(() => seq.getParameter('0.running_mean'), /no parameter '0.running_mean' \(the parameters there: 'weight', 'bias'\)/);
  assert.throws(() => seq.getBuffer(''), TypeError);
  // A JS class field over a name the base class registered hides the property (fields are
  // defined after super() returns); the built-in forward reads the registry and still works.
  class Hiding extends nn.Linear {
    weight;
  }
  const h = new Hiding(2, 2, { seed: 4 });
  assert.equal(h.weight, undefined, 'the field hides the accessor, as documented');
  const x = wt.ones([1, 2]);
  const y = h.forward(x);
  assert.deepEqual(y.shape, [1, 2]);
  assert.equal(h.parameters().length, 2);
  [x, y].forEach((t) => t.dispose());
  [seq, h].forEach((m) => m.dispose());
}

async function paddingCase(wt) {
  const nn = wt.nn;
  const e = new nn.Embedding(5, 2, { paddingIdx: -1, seed: 1 });
  assert.equal(e.paddingIdx, 4, "PyTorch's: -1 is the last row");
  assert.deepEqual(await values(e.weight.narrow(0, 4, 1)), [0, 0], 'the padding row starts at zero');
  const idx = wt.tensor([4, 0], { dtype: 'int32' });
  wt.tidy(() => e.forward(idx).sum().backward());
  const g = e.weight.grad;
  assert.deepEqual((await values(g)).slice(8), [0, 0], 'the padding row gets no gradient');
  g.dispose();
  assert.throws(() => new nn.Embedding(5, 2, { paddingIdx: 5 }), RangeError);
  assert.throws(() => new nn.Embedding(5, 2, { paddingIdx: -6 }), RangeError);
  const F = nn.functional;
  assert.throws(() => F.embedding(idx, e.weight, { paddingIdx: 7 }), /paddingIdx/);
  const out = F.embedding(idx, e.weight, { paddingIdx: -5 });
  assert.deepEqual(out.shape, [2, 2]);
  [idx, out].forEach((t) => t.dispose());
  e.dispose();
}
