// wt.models.GPT against nanoGPT's model in PyTorch (tests/fixtures/gpt.json, the fixture the
// Rust suite checks too), shared by the Node and browser runners (through cases.mjs): nanoGPT's
// state-dict keys loaded (the tied table too), the logits, loss and every gradient, 20 training
// steps as nanoGPT's train.py takes them (AdamW groups, clipping, warmup then cosine), greedy
// generation with the KV cache, and seeded sampling.
import fixture from '../../tests/fixtures/gpt.json' with { type: 'json' };
import { assert, close } from './assert.mjs';

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function gptCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  const c = fixture.config;
  for (const device of devices) {
    add(`${device}: models: GPT's forward frees its intermediates (what wt.tidy around it would)`, async () => {
      const gpt = new wt.models.GPT({ vocabSize: 11, blockSize: 8, nLayer: 2, nHead: 2, nEmbd: 16, dropout: 0, bias: true, seed: 1, device });
      const ids = wt.tensor(Int32Array.from({ length: 16 }, (_, i) => (i * 7) % 11), { device, shape: [2, 8] });
      // Bytes held after the forward, then a backward (the graph holds what it needs itself).
      const held = (wrap) => {
        const base = wt.memoryAllocated(device);
        const { logits, loss } = wrap(() => gpt.forward(ids, ids));
        const bytes = wt.memoryAllocated(device) - base;
        loss.backward();
        [logits, loss].forEach((t) => t.dispose());
        gpt.zeroGrad();
        return bytes;
      };
      held((f) => f());
      const plain = held((f) => f());
      const tidied = held((f) => wt.tidy(f));
      assert.equal(plain, tidied, `bytes held after a plain forward (${plain}) and one in wt.tidy (${tidied}) on ${device}`);
      ids.dispose();
    });
    add(`${device}: models: GPT matches nanoGPT (logits, gradients, 20 AdamW steps, greedy generation)`, async () => {
      const gpt = new wt.models.GPT({ vocabSize: c.vocab_size, blockSize: c.block_size, nLayer: c.n_layer, nHead: c.n_head, nEmbd: c.n_embd, dropout: c.dropout, bias: c.bias, seed: 1, device });
      assert.deepEqual(Object.keys(gpt.stateDict()), fixture.keys, "nanoGPT's keys in its order");
      const dict = Object.fromEntries(Object.entries(fixture.state_dict).map(([k, v]) => [k, wt.tensor(v.data, { shape: v.shape })]));
      await gpt.loadStateDict(dict);
      Object.values(dict).forEach((t) => t.dispose());
      assert.equal(gpt.parameters().length, fixture.keys.length - 1, 'the tied table once');
      const ints = (v, shape) => wt.tensor(Int32Array.from(v), { device, shape });
      const { logits, loss } = gpt.forward(ints(fixture.idx, fixture.shape), ints(fixture.targets, fixture.shape));
      close(await logits.data(), fixture.logits, 1e-4, 'logits');
      close([await loss.item()], [fixture.loss], 1e-5, 'loss');
      loss.backward();
      for (const [name, p] of gpt.namedParameters()) close(await p.grad.data(), fixture.grads[name], 1e-4, `grad of ${name}`);
      gpt.zeroGrad();
      [logits, loss].forEach((t) => t.dispose());

      // nanoGPT's configure_optimizers and schedule.
      const decay = gpt.parameters().filter((p) => p.rank >= 2);
      const rest = gpt.parameters().filter((p) => p.rank < 2);
      const opt = new wt.optim.AdamW([{ params: decay, weightDecay: 0.1 }, { params: rest, weightDecay: 0 }], { lr: 1e-2, betas: [0.9, 0.99] });
      const { LinearLR, CosineAnnealingLR, SequentialLR } = wt.optim.lrScheduler;
      const sched = new SequentialLR(opt, { schedulers: [new LinearLR(opt, { startFactor: 0.01, endFactor: 1, totalIters: 5 }), new CosineAnnealingLR(opt, { tMax: 15, etaMin: 1e-4 })], milestones: [5] });
      for (const [i, s] of fixture.steps.entries()) {
        const [l, norm] = wt.tidy(() => {
          const { loss: step } = gpt.forward(ints(s.x, [4, c.block_size]), ints(s.y, [4, c.block_size]));
          opt.zeroGrad();
          step.backward();
          const n = wt.nn.utils.clipGradNorm_(gpt.parameters(), 1.0);
          opt.step();
          sched.step();
          return [step, n];
        });
        close([await l.item(), await norm.item()], [s.loss, s.grad_norm], 1e-4, `step ${i} loss and norm`);
        assert.ok(Math.abs(opt.paramGroups[0].lr - s.lr) < 1e-12, `step ${i} lr`);
        [l, norm].forEach((t) => t.dispose());
      }
      const final = gpt.stateDict();
      for (const [k, t] of Object.entries(final)) close(await t.data(), fixture.final_state_dict[k], 2e-4, `${k} after training`);
      Object.values(final).forEach((t) => t.dispose());

      // Greedy generation with the KV cache, past the block size; seeded sampling.
      gpt.eval();
      const prompt = ints(fixture.prompt, [2, 2]);
      const out = await gpt.generate(prompt, 10, { greedy: true });
      assert.deepEqual(Array.from(await out.data()), fixture.greedy, 'greedy tokens');
      const a = await gpt.generate(prompt, 5, { temperature: 0.8, topK: 3, seed: 1 });
      const b = await gpt.generate(prompt, 5, { temperature: 0.8, topK: 3, seed: 1 });
      assert.deepEqual(Array.from(await a.data()), Array.from(await b.data()));
      assert.ok((await a.data()).every((t) => t >= 0 && t < c.vocab_size));
      [out, a, b, prompt].forEach((t) => t.dispose());
      opt.dispose();
      gpt.dispose();
    });

    add(`${device}: models: a GPT state dict with one name of the tied pair loads (as safetensors' save_model writes it)`, async () => {
      const cfg = { vocabSize: c.vocab_size, blockSize: c.block_size, nLayer: c.n_layer, nHead: c.n_head, nEmbd: c.n_embd, bias: c.bias, device };
      const src = new wt.models.GPT({ ...cfg, seed: 3 });
      const dst = new wt.models.GPT({ ...cfg, seed: 4 });
      const dict = src.stateDict();
      dict['transformer.wte.weight'].dispose();
      delete dict['transformer.wte.weight'];
      const r = await dst.loadStateDict(dict);
      assert.deepEqual(r.missingKeys, [], 'the tied name is not missing');
      close(await dst.transformer.get('wte').weight.data(), await src.lm_head.weight.data(), 0, 'the embedding took the head\'s values');
      dict['lm_head.weight'].dispose();
      delete dict['lm_head.weight'];
      await assert.rejects(dst.loadStateDict(dict), /missing keys \["transformer\.wte\.weight", "lm_head\.weight"\]/);
      Object.values(dict).forEach((t) => t.dispose());
      [src, dst].forEach((m) => m.dispose());
    });
  }
  return list;
}
