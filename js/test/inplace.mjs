// In-place ops and the step scope (issue 41), shared by the Node and browser runners (through
// cases.mjs): PyTorch's names and autograd rules for `add_`, `zero_`, `copy_`, ...; a training
// loop written without wt.tidy stays bounded over 1,000 steps, keeps what it uses across steps,
// and says exactly why (and what to do) when a tensor it held unused was released.
import { assert, close } from './assert.mjs';

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function inplaceCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  for (const device of devices) {
    const on = { device };

    add(`${device}: in-place ops: values, chaining, PyTorch's dtype and shape rules`, async () => {
      const x = wt.tensor([1, 2, 3], on);
      const alias = x.clone();
      assert.equal(x.add_(1).mul_(wt.tensor([2, 2, 2], on)).clamp_(0, 7), x, 'returns this tensor, for chaining');
      assert.deepEqual(Array.from(await x.data()), [4, 6, 7]);
      assert.deepEqual(Array.from(await alias.data()), [1, 2, 3], 'a clone keeps its own value');
      x.sub_(1).div_(2).pow_(2).neg_().abs_().sqrt_();
      close(await x.data(), [1.5, 2.5, 3], 1e-6);
      x.fill_(2);
      assert.deepEqual(Array.from(await x.data()), [2, 2, 2]);
      x.zero_();
      assert.deepEqual(Array.from(await x.data()), [0, 0, 0]);
      x.maskedFill_(wt.tensor([true, false, true], on), 5).lerp_(wt.tensor([1, 1, 1], on), 0.5).relu_().exp_().log_();
      close(await x.data(), [3, 0.5, 3], 1e-6);
      const m = wt.zeros([2, 3], { ...on, dtype: 'int32' });
      m.copy_(wt.tensor([1.5, -2.5, 3], on));
      assert.equal(m.dtype, 'int32', 'copy_ casts anything, as PyTorch');
      assert.deepEqual(await m.array(), [[1, -2, 3], [1, -2, 3]]);
      const i = wt.tensor([1, 2], { ...on, dtype: 'int32' });
      assert.throws(() => i.add_(0.5), /add_: the result is f32 and cannot be written into this i32 tensor/);
      assert.throws(() => i.sqrt_(), /cannot be written into this i32 tensor/);
      assert.deepEqual(Array.from(await i.data()), [1, 2], 'a refused op changes nothing');
      assert.throws(() => x.add_(wt.ones([2, 3], on)), /keeps the shape/);
      assert.deepEqual(x.shape, [3]);
      assert.throws(() => x.add_(1, 2), /add_: takes at most 1 argument/);
      assert.throws(() => x.fill_('a'), TypeError);
      assert.throws(() => x.uniform_(1, 0), /from \(1\) must be at most to \(0\)/);
      const u = wt.zeros([1000], on).uniform_(-2, 2);
      const uv = Array.from(await u.data());
      assert.ok(uv.every((v) => v >= -2 && v < 2) && Math.abs(uv.reduce((a, b) => a + b) / 1000) < 0.2, 'uniform_ in [-2, 2)');
      const n = wt.zeros([2000], on).normal_(3, 0.5);
      const nv = Array.from(await n.data());
      const mean = nv.reduce((a, b) => a + b) / nv.length;
      assert.ok(Math.abs(mean - 3) < 0.05, `normal_ mean ${mean}`);
      if (device !== 'cpu') {
        const c = wt.zeros([3]);
        assert.throws(() => c.copy_(x), new RegExp(`copy_: src is on ${device} but this tensor is on cpu; move it first`));
      }
      [x, alias, m, i, u, n].forEach((t) => t.dispose());
    });

    add(`${device}: in-place ops: PyTorch's autograd rules (leaves, noGrad updates, p.grad.zero_())`, async () => {
      const w = wt.tensor([1, 2], on).requiresGrad_(true);
      assert.throws(() => w.add_(1), /add_: this tensor is a leaf that requires grad.*wt\.noGrad/);
      assert.deepEqual(Array.from(await w.data()), [1, 2], 'left as it was');
      w.mul(w).sum().backward();
      wt.noGrad(() => w.sub_(w.grad.mul(0.5)));
      assert.deepEqual(Array.from(await w.data()), [0, 0], 'a hand-written SGD step');
      assert.ok(w.requiresGrad && w.isLeaf, 'still a leaf that requires grad');
      assert.deepEqual(Array.from(await w.grad.data()), [2, 4], 'its gradient is kept');
      w.grad.zero_();
      assert.deepEqual(Array.from(await w.grad.data()), [0, 0], "p.grad.zero_() clears p's gradient, as PyTorch");
      w.grad.mul_(3).add_(1);
      assert.deepEqual(Array.from(await w.grad.data()), [1, 1]);
      // A non-leaf records the op: d/dx sum((2x + 1) * 3) = 6.
      const x = wt.tensor([1, 2], on).requiresGrad_(true);
      const y = x.mul(2).add_(1).mul_(3);
      assert.equal(y.gradFn, 'mul');
      y.sum().backward();
      assert.deepEqual(Array.from(await x.grad.data()), [6, 6]);
      // A module's parameter updated in place is what the module and its optimizer use next.
      const lin = new wt.nn.Linear(2, 1, { seed: 1 });
      await lin.to(device);
      const opt = new wt.optim.SGD(lin.parameters(), { lr: 0.1 });
      wt.noGrad(() => { lin.weight.fill_(1); lin.bias.zero_(); });
      const input = wt.tensor([[1, 2]], on);
      assert.deepEqual(Array.from(await lin.forward(input).data()), [3]);
      lin.forward(input).sum().backward();
      opt.step();
      close(await lin.weight.data(), [0.9, 0.8], 1e-6, 'the optimizer stepped from the in-place value');
      [w, x, y, input].forEach((t) => t.dispose());
      opt.dispose();
      lin.dispose();
    });

    add(`${device}: step scope: 1,000 training steps without wt.tidy stay bounded`, async () => {
      const model = new wt.nn.Sequential(new wt.nn.Linear(4, 8, { seed: 1 }), new wt.nn.ReLU(), new wt.nn.Linear(8, 1, { seed: 2 }));
      await model.to(device);
      const opt = new wt.optim.Adam(model.parameters(), { lr: 0.01 });
      const x = wt.randn([16, 4], { ...on, seed: 1 });
      const y = x.sum(1, true).mul(0.5);
      const counts = [];
      let first;
      let last;
      for (let step = 1; step <= 1000; step++) {
        // As a PyTorch user writes it: no tidy, no dispose, the loss read each step.
        const loss = wt.nn.functional.mseLoss(model.forward(x), y);
        opt.zeroGrad();
        loss.backward();
        opt.step();
        last = await loss.item();
        if (step === 1) first = last;
        if (step % 100 === 0) counts.push(wt.memory().numTensors);
      }
      assert.ok(last < first / 10, `it trained: ${first} -> ${last}`);
      // Each step makes about 30 tensors; none may pile up. (The count can drop: across the
      // awaits the garbage collector may free what earlier cases left behind.)
      assert.ok(counts.every((c) => c <= counts[0] + 2), `live tensors do not grow: ${counts.join(', ')} at steps 100, 200, ...`);
      [x, y].forEach((t) => t.dispose());
      opt.dispose();
      model.dispose();
    });

    add(`${device}: step scope: what a loop uses stays, what it held unused says why it went`, async () => {
      const lin = new wt.nn.Linear(2, 1, { seed: 1 });
      await lin.to(device);
      const opt = new wt.optim.SGD(lin.parameters(), { lr: 0.01 });
      const setup = wt.ones([4, 2], on); // made before the first step: never released
      const step = () => {
        const loss = lin.forward(setup).sum();
        opt.zeroGrad();
        loss.backward();
        opt.step();
        return loss;
      };
      step();
      const epochData = wt.ones([4, 2], on); // made during training, used at every step
      const held = wt.ones([1], on); // made during training, then left unused
      const kept = wt.keep(wt.ones([1], on));
      let running = wt.zeros([1], on);
      let loss = null;
      for (let i = 0; i < 5; i++) {
        loss = lin.forward(epochData).sum();
        opt.zeroGrad();
        loss.backward();
        opt.step();
        running = running.add(loss.detach()); // re-made each step, as `total += loss` is
      }
      assert.equal(typeof (await loss.item()), 'number', 'the last loss is readable after its step');
      assert.equal((await running.data()).length, 1);
      assert.deepEqual(Array.from(await epochData.data()), [1, 1, 1, 1, 1, 1, 1, 1]);
      assert.deepEqual(Array.from(await setup.data()), [1, 1, 1, 1, 1, 1, 1, 1]);
      assert.deepEqual(Array.from(await kept.data()), [1]);
      assert.throws(() => held.add(1), /released by the step scope.*wt\.keep\(t\).*wt\.setStepScope\(false\)/);
      // Two optimizers (a GAN's loop): one training step per iteration, so both losses are
      // readable after both steps.
      const other = new wt.nn.Linear(2, 1, { seed: 2 });
      await other.to(device);
      const opt2 = new wt.optim.SGD(other.parameters(), { lr: 0.01 });
      for (let i = 0; i < 4; i++) {
        const a = step();
        const b = other.forward(setup).sum();
        opt2.zeroGrad();
        b.backward();
        opt2.step();
        assert.equal(typeof (await a.item()) + typeof (await b.item()), 'numbernumber');
      }
      // Off: nothing made while it is off is released.
      assert.equal(wt.setStepScope(false), true);
      const mine = wt.ones([1], on);
      for (let i = 0; i < 3; i++) step();
      assert.deepEqual(Array.from(await mine.data()), [1]);
      assert.equal(wt.setStepScope(true), false);
      assert.throws(() => wt.keep(3), /keep: value must be a Tensor/);
      assert.throws(() => wt.setStepScope(), /setStepScope: on must be true or false, got undefined/);
      assert.throws(() => wt.setStepScope(true, 1), /setStepScope: takes at most 1 argument/);
      assert.throws(() => wt.keep(kept, 1), /keep: takes at most 1 argument/);
      [setup, epochData, kept, running, mine].forEach((t) => t.dispose());
      [opt, opt2].forEach((o) => o.dispose());
      [lin, other].forEach((m) => m.dispose());
    });
  }
  return list;
}
