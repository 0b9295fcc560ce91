// The model ops from JavaScript, shared by the Node and browser runners (through cases.mjs):
// every case of tests/fixtures/nn_ops.json (PyTorch's outputs and gradients, the fixtures the
// Rust suite checks too), a small CNN built from the layers that learns, and argument errors.
import fixtures from '../../tests/fixtures/nn_ops.json' with { type: 'json' };
import { assert, close } from './assert.mjs';
import { perCase } from './grad.mjs';

const F = (wt) => wt.nn.functional;

/** The op of a fixture case, as scripts/gen_nn_fixtures.py defines it. */
function apply(wt, op, a, x) {
  const f = F(wt);
  const bias = x[2] ?? null;
  const pool = { stride: a.stride?.length === 0 ? undefined : a.stride, padding: a.padding, ceilMode: a.ceil_mode };
  switch (op) {
    case 'conv1d': case 'conv2d':
      return f[op](x[0], x[1], bias, { stride: a.stride, padding: a.padding, dilation: a.dilation, groups: a.groups });
    case 'conv_transpose1d': case 'conv_transpose2d':
      return f[op === 'conv_transpose1d' ? 'convTranspose1d' : 'convTranspose2d'](x[0], x[1], bias, {
        stride: a.stride, padding: a.padding, outputPadding: a.output_padding, groups: a.groups, dilation: a.dilation,
      });
    case 'max_pool1d': return f.maxPool1d(x[0], a.kernel, { ...pool, dilation: a.dilation });
    case 'max_pool2d': return f.maxPool2d(x[0], a.kernel, { ...pool, dilation: a.dilation });
    case 'max_pool2d_indices': {
      const [v, i] = f.maxPool2d(x[0], a.kernel, { ...pool, dilation: a.dilation, returnIndices: true });
      v.dispose();
      return i;
    }
    case 'avg_pool1d': return f.avgPool1d(x[0], a.kernel, { ...pool, countIncludePad: a.count_include_pad });
    case 'avg_pool2d':
      return f.avgPool2d(x[0], a.kernel, { ...pool, countIncludePad: a.count_include_pad, divisorOverride: a.divisor_override });
    case 'adaptive_avg_pool1d': return f.adaptiveAvgPool1d(x[0], a.size);
    case 'adaptive_avg_pool2d': return f.adaptiveAvgPool2d(x[0], a.size);
    case 'pad': return f.pad(x[0], a.pads, a.mode, a.value);
    case 'slice_step': return x[0].slice(a.dim, a.start, a.end, a.step);
    case 'sdpa': {
      const attnMask = a.mask === 'bool' ? x[3].gt(0) : a.mask === 'float' ? x[3] : undefined;
      return f.scaledDotProductAttention(x[0], x[1], x[2], { attnMask, isCausal: a.causal, scale: a.scale });
    }
    case 'interpolate':
      return f.interpolate(x[0], { size: a.size ?? undefined, scaleFactor: a.scale ?? undefined, mode: a.mode, alignCorners: a.align_corners ?? undefined });
    case 'one_hot': return f.oneHot(x[0], a.classes);
    default: throw new Error(`nn_ops.json has an op this suite does not know: ${op}`);
  }
}

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function nnOpsCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  for (const device of devices) {
    const on = { device };
    list.push(...perCase(wt, device, 'nn_ops.json', fixtures, 63, apply));

    add(`${device}: a CNN of Conv2d, MaxPool2d and AdaptiveAvgPool2d learns`, async () => {
      const nn = wt.nn;
      const model = new nn.Sequential(
        new nn.Conv2d(1, 4, 3, { padding: 1, seed: 1, device }), new nn.ReLU(), new nn.MaxPool2d(2),
        new nn.Conv2d(4, 8, 3, { seed: 2, device }), new nn.ReLU(), new nn.AdaptiveAvgPool2d(1), new nn.Flatten(),
        new nn.Linear(8, 2, { seed: 3, device }),
      );
      assert.deepEqual(model.stateDict()['0.weight'].shape, [4, 1, 3, 3]);
      // Bars: horizontal for class 0, vertical for class 1, on noise.
      const n = 16;
      const r = wt.rand([n, 64], { seed: 7 });
      const noise = await r.data();
      r.dispose();
      const xs = new Float32Array(n * 64);
      const ys = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        ys[i] = i % 2;
        const at = 1 + ((i * 5) % 6);
        for (let k = 0; k < 64; k++) xs[i * 64 + k] = noise[i * 64 + k] * 0.3;
        for (let k = 0; k < 8; k++) xs[i * 64 + (ys[i] === 0 ? at * 8 + k : k * 8 + at)] += 1;
      }
      const x = wt.tensor(xs, { ...on, shape: [n, 1, 8, 8] });
      const y = wt.tensor(ys, { ...on, dtype: 'int32' });
      const opt = new wt.optim.Adam(model.parameters(), { lr: 0.03 });
      const losses = [];
      for (let step = 0; step < 25; step++) {
        const loss = wt.tidy(() => {
          opt.zeroGrad();
          const l = F(wt).crossEntropy(model.forward(x), y);
          l.backward();
          opt.step();
          return l;
        });
        losses.push(await loss.item());
        loss.dispose();
      }
      assert.ok(losses[24] < 0.3 * losses[0], `the CNN learns on ${device}: ${losses.map((l) => l.toFixed(3))}`);
      [x, y].forEach((t) => t.dispose());
    });

    add(`${device}: model ops: argument errors name what would be right`, async () => {
      const f = F(wt);
      const x = wt.randn([1, 4, 5, 5], { ...on, seed: 1 });
      const w = wt.randn([2, 4, 3, 3], { ...on, seed: 2 });
      const b3 = wt.zeros([3], on);
      const before = wt.memory().numTensors;
      assert.throws(() => f.conv2d(x, w, null, { groups: 3 }), /divide/);
      assert.throws(() => f.conv2d(x, w, null, { padding: 'full' }), /'same', 'valid'/);
      assert.throws(() => f.conv2d(x, w, null, { stride: 2, padding: 'same' }), /stride 1/);
      assert.throws(() => f.conv2d(x, w, null, { stride: -1 }), RangeError);
      assert.throws(() => f.conv2d(x, w, b3), /bias/);
      assert.throws(() => f.conv2d(x, 5), TypeError);
      assert.throws(() => f.maxPool2d(x, 3, { padding: 2 }), /half/);
      assert.throws(() => f.maxPool2d(x, 2, { bogus: 1 }), /unknown option/);
      assert.throws(() => f.avgPool2d(x, 2, { divisorOverride: 0 }), RangeError);
      assert.throws(() => f.pad(x, [1, 1, 1]), /pairs/);
      assert.throws(() => f.pad(x, [1, 1], 'mirror'), /'reflect'/);
      assert.throws(() => f.interpolate(x, { size: 3, scaleFactor: 2 }), /exactly one/);
      assert.throws(() => f.interpolate(x, { size: 3, mode: 'bicubic' }), /'bilinear'/);
      assert.throws(() => f.oneHot(x, 3), /integer/);
      assert.throws(() => x.slice(1, 0, 4, 0), RangeError);
      assert.throws(() => new wt.nn.Conv2d(3, 4, 3, { groups: 2 }), /groups/);
      assert.equal(wt.memory().numTensors, before, 'failed calls leave no handles behind');
      const y = f.conv2d(x, w);
      assert.deepEqual(y.shape, [1, 2, 3, 3]);
      assert.ok((await y.data()).every(Number.isFinite), 'the inputs stay usable');
      [x, w, y, b3].forEach((t) => t.dispose());
    });

    // Convolutions whose window copy passes 1 MiB run in blocks of output rows per image on the
    // CPU in wasm (nn/conv.rs, chunk_rows): against a direct convolution in JavaScript.
    add(`${device}: convolutions copied in blocks of rows match a direct convolution`, async () => {
      const conv = (xs, [n, c, hh, ww], ws, [o, cg, k], { stride, padding, dilation, groups }) => {
        const oh = Math.floor((hh + 2 * padding - dilation * (k - 1) - 1) / stride) + 1;
        const ow = Math.floor((ww + 2 * padding - dilation * (k - 1) - 1) / stride) + 1;
        const out = new Float64Array(n * o * oh * ow);
        const og = o / groups;
        for (let b = 0; b < n; b++) for (let q = 0; q < o; q++) for (let i = 0; i < oh; i++) for (let j = 0; j < ow; j++) {
          let acc = 0;
          const g = Math.floor(q / og);
          for (let ci = 0; ci < cg; ci++) for (let di = 0; di < k; di++) for (let dj = 0; dj < k; dj++) {
            const [r, col] = [i * stride - padding + di * dilation, j * stride - padding + dj * dilation];
            if (r < 0 || col < 0 || r >= hh || col >= ww) continue;
            acc += xs[((b * c + g * cg + ci) * hh + r) * ww + col] * ws[((q * cg + ci) * k + di) * k + dj];
          }
          out[((b * o + q) * oh + i) * ow + j] = acc;
        }
        return [out, [n, o, oh, ow]];
      };
      for (const [shape, o, opts] of [
        [[2, 32, 48, 48], 8, { stride: 1, padding: 1, dilation: 1, groups: 1 }],
        [[2, 16, 120, 90], 6, { stride: 2, padding: 2, dilation: 2, groups: 2 }],
      ]) {
        const k = 3;
        const cg = shape[1] / opts.groups;
        const x = wt.randn(shape, { ...on, seed: 11 }), w = wt.randn([o, cg, k, k], { ...on, seed: 12 });
        const [want, wantShape] = conv(await x.data(), shape, await w.data(), [o, cg, k], opts);
        const y = F(wt).conv2d(x, w, null, opts);
        assert.deepEqual(y.shape, wantShape);
        const got = await y.data();
        for (let i = 0; i < got.length; i++) {
          assert.ok(Math.abs(got[i] - want[i]) <= 1e-4 * (1 + Math.abs(want[i])), `${shape} ${JSON.stringify(opts)} at ${i}: got ${got[i]}, want ${want[i]}`);
        }
        [x, w, y].forEach((t) => t.dispose());
      }
    });

    // The CPU's window maximum runs four outputs at a time in wasm SIMD for strides 1 and 2; the
    // scalar tail and every other stride one at a time. Both keep PyTorch's rules: NaN wins,
    // ties (-0 and +0 included) keep the first, padding never wins.
    if (device === 'cpu') {
      add(`${device}: max pooling keeps NaN, infinities and the first of -0 and +0; average pooling sums the windows`, async () => {
        const special = [0, -0, NaN, Infinity, -Infinity, 1.5, -1.5, -0, 0, 2, NaN, -3];
        const [c, hh, ww] = [3, 10, 22];
        const vals = Float32Array.from({ length: c * hh * ww }, (_, i) => (i % 7 < 4 ? special[(i * 5) % special.length] : Math.sin(i)));
        const x = wt.tensor(vals, { shape: [1, c, hh, ww], device });
        for (const [k, stride, padding] of [[2, 2, 0], [3, 1, 0], [3, 2, 1], [2, 3, 0]]) {
          const y = F(wt).maxPool2d(x, k, { stride, padding });
          const got = await y.data();
          const [oh, ow] = [y.shape[2], y.shape[3]];
          for (let ch = 0; ch < c; ch++) {
            for (let i = 0; i < oh; i++) {
              for (let j = 0; j < ow; j++) {
                let m = -Infinity;
                let first = true;
                for (let di = 0; di < k; di++) {
                  for (let dj = 0; dj < k; dj++) {
                    const [r, q] = [i * stride - padding + di, j * stride - padding + dj];
                    const v = r < 0 || q < 0 || r >= hh || q >= ww ? -Infinity : vals[(ch * hh + r) * ww + q];
                    if (first || v > m || Number.isNaN(v)) m = v;
                    first = false;
                  }
                }
                const g = got[(ch * oh + i) * ow + j];
                const same = Number.isNaN(m) ? Number.isNaN(g) : Object.is(g, m);
                assert.ok(same, `k=${k} stride=${stride} padding=${padding} at (${ch}, ${i}, ${j}): got ${Object.is(g, -0) ? '-0' : g}, want ${Object.is(m, -0) ? '-0' : m}`);
              }
            }
          }
          y.dispose();
          // Average pooling sums the same windows (four at a time in wasm SIMD, in f64).
          const a = F(wt).avgPool2d(x, k, { stride, padding });
          const avg = await a.data();
          for (let ch = 0; ch < c; ch++) {
            for (let i = 0; i < oh; i++) {
              for (let j = 0; j < ow; j++) {
                let sum = 0;
                for (let di = 0; di < k; di++) {
                  for (let dj = 0; dj < k; dj++) {
                    const [r, q] = [i * stride - padding + di, j * stride - padding + dj];
                    if (r >= 0 && q >= 0 && r < hh && q < ww) sum += vals[(ch * hh + r) * ww + q];
                  }
                }
                const want = Math.fround(sum) / (k * k);
                const g = avg[(ch * oh + i) * ow + j];
                const ok = Number.isNaN(want) ? Number.isNaN(g)
                  : want === 0 ? Object.is(g, want) : g === want || Math.abs(g - want) <= 1e-6 * Math.abs(want);
                assert.ok(ok, `avg k=${k} stride=${stride} padding=${padding} at (${ch}, ${i}, ${j}): got ${g}, want ${want}`);
              }
            }
          }
          a.dispose();
        }
        x.dispose();
        // Short rows (steps past 2 gather each tap's four values lane by lane in wasm): the
        // maximum and minimum with PyTorch's NaN and first-of-equals rules, and the sums.
        for (const k of [3, 4, 10, 16]) {
          const n = 37;
          const rows = Float32Array.from({ length: n * k }, (_, i) => (i % 3 ? special[(i * 7) % special.length] : Math.cos(i)));
          const r = wt.tensor(rows, { shape: [n, k], device });
          const [mx, mn, sm] = [r.amax(1), r.amin(1), r.sum(1)];
          const [gx, gn, gs] = [await mx.data(), await mn.data(), await sm.data()];
          for (let i = 0; i < n; i++) {
            const row = Array.from(rows.subarray(i * k, (i + 1) * k));
            const pick = (better) => row.reduce((m, v) => (Number.isNaN(m) || (!Number.isNaN(v) && !better(v, m)) ? m : v));
            const same = (g, w) => (Number.isNaN(w) ? Number.isNaN(g) : Object.is(g, w));
            assert.ok(same(gx[i], pick((v, m) => v > m)), `amax of row ${i} of ${k}: got ${gx[i]}, want ${pick((v, m) => v > m)}`);
            assert.ok(same(gn[i], pick((v, m) => v < m)), `amin of row ${i} of ${k}: got ${gn[i]}, want ${pick((v, m) => v < m)}`);
            const want = Math.fround(row.reduce((a, v) => a + v, 0));
            assert.ok(Number.isNaN(want) ? Number.isNaN(gs[i]) : gs[i] === want, `sum of row ${i} of ${k}: got ${gs[i]}, want ${want}`);
          }
          [r, mx, mn, sm].forEach((t) => t.dispose());
        }
        // Windows of -0 only sum to +0 (from 0, as PyTorch), four at a time and in the tail.
        const z = wt.full([1, 1, 2, 10], -0, { device });
        const za = F(wt).avgPool2d(z, 2);
        assert.ok([...(await za.data())].every((v) => Object.is(v, 0)), `avg of -0 windows: ${[...(await za.data())].map((v) => (Object.is(v, -0) ? '-0' : v))}`);
        [z, za].forEach((t) => t.dispose());
      });
    }
  }
  return list;
}
