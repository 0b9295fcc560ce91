// nn.MultiheadAttention, nn.TransformerEncoderLayer and nn.TransformerDecoderLayer against PyTorch
// (tests/fixtures/transformer.json, by scripts/gen_transformer_fixtures.py): PyTorch's state-dict
// keys load, and the outputs (and MHA's averaged weights) match, with key padding and bool
// attention masks, batch first or not, post- and pre-norm; shared by the Node and browser runners.
import fixture from '../../tests/fixtures/transformer.json' with { type: 'json' };
import { assert, close } from './assert.mjs';

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function transformerCases(wt, devices) {
  const list = [];
  for (const device of devices) {
    list.push({
      name: `${device}: nn: MultiheadAttention and Transformer layers match PyTorch`,
      fn: async () => {
        const t = (x) => wt.tensor(x.dtype === 'bool' ? x.data.map(Boolean) : x.data, { device, shape: x.shape, dtype: x.dtype === 'bool' ? 'bool' : 'float32' });
        for (const c of fixture.cases) {
          const a = c.args;
          const m = c.kind === 'mha' ? new wt.nn.MultiheadAttention(a.embed_dim, a.num_heads, { batchFirst: a.batch_first, device })
            : c.kind === 'encoder' ? new wt.nn.TransformerEncoderLayer(a.d_model, a.nhead, { dimFeedforward: a.dim_feedforward, normFirst: a.norm_first, activation: a.activation, batchFirst: true, device })
              : new wt.nn.TransformerDecoderLayer(a.d_model, a.nhead, { dimFeedforward: a.dim_feedforward, batchFirst: true, device });
          assert.deepEqual(Object.keys(m.stateDict()), c.keys, `${c.kind}: PyTorch's keys`);
          const dict = Object.fromEntries(Object.entries(c.state_dict).map(([k, v]) => [k, t(v)]));
          await m.loadStateDict(dict);
          Object.values(dict).forEach((x) => x.dispose());
          m.eval();
          const ins = c.inputs.map(t);
          let out;
          if (c.kind === 'mha') {
            const [o, w] = m.forward(ins[0], ins[1], ins[2], { keyPaddingMask: ins[3], attnMask: ins[4] });
            close(await w.data(), c.weights, 1e-5, 'MHA weights');
            out = o;
          } else if (c.kind === 'encoder') {
            out = m.forward(ins[0], { srcMask: ins[1] });
          } else {
            out = m.forward(ins[0], ins[1], { tgtMask: ins[2] });
          }
          assert.deepEqual(out.shape, c.out_shape);
          close(await out.data(), c.out, 1e-5, `${c.kind} output`);
          m.dispose();
          ins.forEach((x) => x.dispose());
        }
      },
    });
  }
  return list;
}
