// The JS API test cases, shared by the Node runner (api.test.mjs) and the browser runner
// (browser.mjs): results per op family on every device, transfers, device rules, lifetimes and
// memory stats, and bad inputs that must not break later calls.
import { assert, close } from './assert.mjs';
import { core } from '../internal.js';
import { gradCases } from './grad.mjs';
import { nnCases } from './nn.mjs';
import { nnOpsCases } from './nnops.mjs';
import { rowCases } from './rows.mjs';
import { nnSlotCases } from './nnslots.mjs';
import { sortCases } from './sort.mjs';
import { int8Cases } from './int8.mjs';
import { dataCases } from './data.mjs';
import { parallelCases } from './parallel.mjs';
import { specialCases } from './special.mjs';
import { idiomCases } from './idioms.mjs';
import { inplaceCases } from './inplace.mjs';
import { gptCases } from './gpt.mjs';
import { transformerCases } from './transformer.mjs';
import { optimCases } from './optim.mjs';
import { camel, manifestCases, otherCallCases } from './manifest.mjs';

/** The cases as `{ name, fn }` for `wt` (an initialised webtensor module) on `devices`. */
export function cases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  for (const device of devices) {
    const on = { device };
    const f16 = device === 'cpu' || wt.devices().some((d) => d.name === device && d.features.includes('shader-f16'));

    add(`${device}: creation, metadata and readback`, async () => {
      const x = wt.tensor([[1, 2, 3], [4, 5, 6]], on);
      assert.deepEqual(x.shape, [2, 3]);
      assert.equal(x.dtype, 'float32');
      assert.equal(x.device, device);
      assert.ok((await x.data()) instanceof Float32Array);
      assert.deepEqual(await x.array(), [[1, 2, 3], [4, 5, 6]]);
      assert.deepEqual(Array.from(await wt.zeros([2], on).data()), [0, 0]);
      assert.deepEqual(Array.from(await wt.ones([3], { ...on, dtype: 'int32' }).data()), [1, 1, 1]);
      assert.ok((await wt.arange(0, 4, 1, { ...on, dtype: 'int32' }).data()) instanceof Int32Array);
      assert.deepEqual(Array.from(await wt.full([2], 7, on).data()), [7, 7]);
      const a = await wt.randn([50], { ...on, seed: 3 }).data();
      const b = await wt.randn([50], { device: 'cpu', seed: 3 }).data();
      // randn is drawn on the device: the CPU's values up to the device's rounding of log, cos
      // and sqrt; rand's samples are the same bits everywhere.
      const close = Array.from(a).every((v, i) => Math.abs(v - b[i]) <= 1e-5 * Math.max(1, Math.abs(b[i])));
      assert.ok(close, 'the same seed gives the same randn values on every device');
      const u = await wt.rand([1000], { ...on, seed: 1 }).data();
      assert.ok(u.every((v) => v >= 0 && v < 1));
      const uc = await wt.rand([1000], { device: 'cpu', seed: 1 }).data();
      assert.deepEqual(Array.from(u), Array.from(uc), 'the same seed gives the same rand bits on every device');
      assert.deepEqual(await wt.tensor([true, false], { ...on, dtype: 'bool' }).array(), [true, false]);
      const typed = wt.tensor(new Float32Array([1, 2, 3, 4, 5, 6]), { ...on, shape: [3, 2] });
      assert.deepEqual(await typed.array(), [[1, 2], [3, 4], [5, 6]]);
      assert.deepEqual(Array.from(await wt.tensor(Int32Array.from([7, -8]), { ...on, dtype: 'int32' }).data()), [7, -8]);
    });

    add(`${device}: unary and binary ops with broadcasting and scalars`, async () => {
      const x = wt.tensor([[-1, 0, 2], [3, -4, 5]], on);
      close(await x.relu().data(), [0, 0, 2, 3, 0, 5]);
      close(await x.abs().sqrt().data(), [1, 0, Math.SQRT2, Math.sqrt(3), 2, Math.sqrt(5)]);
      close(await x.exp().log().data(), [-1, 0, 2, 3, -4, 5], 1e-5);
      close(await x.sigmoid().data(), [-1, 0, 2, 3, -4, 5].map((v) => 1 / (1 + Math.exp(-v))));
      {
        // Dense from -100 to 100 (the CPU in wasm runs four lanes at a time, its tail one by
        // one): within 4e-6 relative (the CPU's is within 4 ulp; a GPU's exponential loses
        // digits far out: lavapipe's sigmoid(-76.8) is 2.0e-6 off); results below the normal
        // range may be 0 (or a subnormal near the answer).
        const xs = Float32Array.from({ length: 1001 }, (_, i) => (i - 500) / 5);
        const got = await wt.tensor(xs, on).sigmoid().data();
        xs.forEach((v, i) => {
          const want = 1 / (1 + Math.exp(-v));
          const tiny = want < 1.2e-38 && (got[i] === 0 || Math.abs(got[i] - want) <= 1e-40);
          if (!(Math.abs(got[i] - want) <= 4e-6 * want || tiny)) throw new Error(`sigmoid(${v}) = ${got[i]}, want ${want}`);
        });
      }
      close(await x.tanh().data(), [-1, 0, 2, 3, -4, 5].map(Math.tanh));
      close(await x.add(wt.tensor([10, 20, 30], on)).data(), [9, 20, 32, 13, 16, 35]);
      close(await x.mul(wt.tensor([[2], [3]], on)).data(), [-2, 0, 4, 9, -12, 15]);
      close(await x.sub(1).div(2).data(), [-1, -0.5, 0.5, 1, -2.5, 2]);
      close(await x.pow(2).data(), [1, 0, 4, 9, 16, 25]);
      close(await x.maximum(0.5).minimum(3).data(), [0.5, 0.5, 2, 3, 0.5, 3]);
      close(await x.clamp(-1, 1).data(), [-1, 0, 1, 1, -1, 1]);
      const gt = x.gt(0);
      assert.equal(gt.dtype, 'bool');
      assert.deepEqual(Array.from(await gt.data()), [0, 0, 1, 1, 0, 1]);
      close(await x.where(gt, wt.zeros([1], on)).data(), [0, 0, 2, 3, 0, 5]);
      assert.deepEqual(Array.from(await x.eq(2).data()), [0, 0, 1, 0, 0, 0]);
    });

    add(`${device}: reductions, softmax, matmul`, async () => {
      const x = wt.tensor([[1, 5, 3], [4, 2, 6]], on);
      close(await x.sum().data(), [21]);
      close(await x.sum(1).data(), [9, 12]);
      close(await x.mean(0, true).data(), [2.5, 3.5, 4.5]);
      assert.deepEqual(x.mean(0, true).shape, [1, 3]);
      close(await x.max(1).data(), [5, 6]);
      close(await x.min().data(), [1]);
      close(await x.prod(1).data(), [15, 48]);
      assert.deepEqual(Array.from(await x.argmax(1).data()), [1, 2]);
      assert.deepEqual(Array.from(await x.argmin().data()), [0]);
      close(await x.var(1).data(), [4, 4]);
      close(await x.std().data(), [Math.sqrt(17.5 / 5)]);
      close(await wt.tensor([1, 2, 3], on).softmax().data(), [0.0900306, 0.2447285, 0.6652410]);
      close(await wt.tensor([1000, 1000], on).logSoftmax().data(), [-Math.LN2, -Math.LN2]);
      // Rows long enough for the vector loops (and odd lengths for their tails), against a
      // float64 reference: a wide range of values, masked (-inf) entries that must come out
      // exactly 0, entries ~100 below the max (e^x subnormal: 0 or near it), a NaN row.
      for (const k of [37, 1024, 1031]) {
        const rows = [0, 1, 2].map((r) => Float32Array.from({ length: k }, (_, j) => {
          if (r === 1 && j % 5 === 0) return -Infinity;
          if (r === 2 && j === 3) return NaN;
          return ((j * 7919 + r * 104729) % 2000) / 40 - 25 - (j % 11 === 0 ? 100 : 0);
        }));
        const t = wt.tensor(Float32Array.from(rows.flatMap((r) => Array.from(r))), { ...on, shape: [3, k] });
        const want = rows.flatMap((row) => {
          const max = Math.max(...row);
          const lse = Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
          return Array.from(row, (x) => [Math.exp(x - max - lse), x - max - lse]);
        });
        const [sm, lsm] = [await t.softmax(-1).data(), await t.logSoftmax(-1).data()];
        close(sm, want.map(([p]) => p), 1e-5, `softmax k=${k}`);
        close(lsm, want.map(([, l]) => l), 1e-5, `logSoftmax k=${k}`);
        for (let j = 0; j < k; j += 5) assert.equal(sm[k + j], 0, `softmax of -inf at ${j} (k=${k})`);
        assert.ok(Array.from(sm.subarray(2 * k)).every(Number.isNaN), 'a NaN row is NaN');
      }
      close(await x.matmul(x.t()).data(), [35, 32, 32, 56]);
      // Against a float64 reference: sizes off the kernels' tiles (4x8 in wasm, 256 deep
      // blocks, 64-row and 1024-column panels), transposed (strided) operands, a batch.
      const ref = (a, b, m, k, n, ta, tb) => Float64Array.from({ length: m * n }, (_, idx) => {
        const [i, j] = [Math.floor(idx / n), idx % n];
        let s = 0;
        for (let p = 0; p < k; p++) s += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
        return s;
      });
      for (const [m, k, n, ta, tb] of [[7, 5, 9, false, false], [73, 300, 13, false, true], [13, 257, 1030, true, false], [1, 600, 1, true, true]]) {
        const av = Float32Array.from({ length: m * k }, (_, i) => ((i * 7919) % 1000) / 500 - 1);
        const bv = Float32Array.from({ length: k * n }, (_, i) => ((i * 104729) % 1000) / 500 - 1);
        const a = wt.tensor(av, { ...on, shape: ta ? [k, m] : [m, k] });
        const b = wt.tensor(bv, { ...on, shape: tb ? [n, k] : [k, n] });
        const got = await (ta ? a.t() : a).matmul(tb ? b.t() : b).data();
        close(got, ref(av, bv, m, k, n, ta, tb), 1e-4, `matmul ${m}x${k}x${n}${ta ? ' aT' : ''}${tb ? ' bT' : ''}`);
      }
      {
        // B a view: rows 21 apart, starting 3 in (wasm packs its full 8-column strips of a
        // row-major B by block copies, so offsets and row strides must carry into them).
        const [m, k, n] = [6, 40, 17];
        const av = Float32Array.from({ length: m * k }, (_, i) => ((i * 31) % 97) / 50 - 1);
        const wide = Float32Array.from({ length: k * (n + 4) }, (_, i) => ((i * 53) % 89) / 40 - 1);
        const bv = Float32Array.from({ length: k * n }, (_, i) => wide[Math.floor(i / n) * (n + 4) + 3 + (i % n)]);
        const b = wt.tensor(wide, { ...on, shape: [k, n + 4] }).narrow(1, 3, n);
        close(await wt.tensor(av, { ...on, shape: [m, k] }).matmul(b).data(), ref(av, bv, m, k, n, false, false), 1e-4, 'matmul by a narrowed B');
      }
      const batch = wt.randn([3, 17, 33], { ...on, seed: 1 });
      const w = wt.randn([33, 9], { ...on, seed: 2 });
      const cpu = (await batch.cpu()).matmul(await w.cpu());
      close(await batch.matmul(w).data(), Array.from(await cpu.data()), 1e-4);
    });

    add(`${device}: views, cat, stack, indexing, casts`, async () => {
      const x = wt.arange(0, 6, 1, on).reshape([2, 3]);
      close(await x.t().contiguous().data(), [0, 3, 1, 4, 2, 5]);
      close(await x.permute([1, 0]).flatten().data(), [0, 3, 1, 4, 2, 5]);
      close(await x.narrow(1, 1, 2).data(), [1, 2, 4, 5]);
      assert.deepEqual(x.unsqueeze(0).shape, [1, 2, 3]);
      assert.deepEqual(x.unsqueeze(0).squeeze().shape, [2, 3]);
      close(await x.slice(0, 1, 2).expand([3, 3]).data(), [3, 4, 5, 3, 4, 5, 3, 4, 5]);
      close(await wt.cat([x, x], 1).data(), [0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]);
      assert.deepEqual(wt.stack([x, x]).shape, [2, 2, 3]);
      const idx = wt.tensor([2, 0], { ...on, dtype: 'int32' });
      close(await x.indexSelect(1, idx).data(), [2, 0, 5, 3]);
      close(await x.gather(1, wt.tensor([[0], [2]], { ...on, dtype: 'int32' })).data(), [0, 5]);
      assert.deepEqual(Array.from(await wt.tensor([-1.5, 2.7], on).toDtype('int32').data()), [-1, 2]);
      if (f16) {
        const h = wt.tensor([1.5, -2], on).toDtype('float16');
        assert.equal(h.dtype, 'float16');
        close(await h.add(h).data(), [3, -4]);
      } else {
        assert.throws(() => wt.tensor([1.5], on).toDtype('float16'), /shader-f16/);
      }
    });

    add(`${device}: to() makes a new tensor and leaves the original`, async () => {
      const x = wt.tensor([1, 2, 3], on);
      const other = device === 'cpu' ? devices[devices.length - 1] : 'cpu';
      const y = await x.to(other);
      assert.equal(x.device, device);
      assert.equal(y.device, other);
      close(await y.data(), [1, 2, 3]);
      close(await x.data(), [1, 2, 3]);
      if (other !== device) {
        assert.throws(() => x.add(y), /Expected all tensors to be on the same device, but found at least two devices, .* \(in op add\)/);
      }
      assert.equal((await x.to(device)).device, device);
    });

    add(`${device}: async calls leave the tensor usable while they run`, async () => {
      const x = wt.tensor([1, 2, 3], on);
      const reading = x.data();
      const moving = x.to('cpu');
      const y = x.mul(2); // synchronous use while two async calls are pending
      const [a, b] = await Promise.all([reading, moving, x.data()]);
      close(a, [1, 2, 3]);
      close(await b.data(), [1, 2, 3]);
      close(await y.data(), [2, 4, 6]);
    });

    add(`${device}: dataSync only on the cpu`, async () => {
      const x = wt.tensor([1, 2], on);
      if (device === 'cpu') close(x.dataSync(), [1, 2]);
      else assert.throws(() => x.dataSync(), /use await t\.data\(\)/);
    });

    add(`${device}: dispose, Symbol.dispose, tidy and the memory stats they move`, async () => {
      await wt.synchronize(device);
      const before = wt.memoryAllocated(device);
      const x = wt.ones([1024], on);
      assert.ok(wt.memoryAllocated(device) >= before + 4096);
      x.dispose();
      x.dispose(); // twice is fine
      assert.equal(wt.memoryAllocated(device), before);
      assert.throws(() => x.add(1), /disposed/);
      const y = wt.ones([1024], on);
      y[Symbol.dispose]();
      assert.equal(wt.memoryAllocated(device), before);
      // Measured synchronously: across an await, the FinalizationRegistry may free tensors that
      // earlier cases left to the garbage collector, which would move the counter.
      const t0 = wt.memoryAllocated(device);
      const kept = wt.tidy(() => {
        const a = wt.ones([256], on);
        const b = a.mul(2).add(1);
        return { out: b.sum() };
      });
      const grew = wt.memoryAllocated(device) - t0;
      const probe = wt.ones([1], on); // a block of the result's size
      const block = wt.memoryAllocated(device) - t0 - grew;
      probe.dispose();
      assert.equal(grew, block, 'tidy disposed what it did not return');
      close(await kept.out.data(), [768]);
      kept.out.dispose();
      assert.ok(wt.memoryReserved(device) >= wt.memoryAllocated(device));
      assert.match(wt.memorySummary(device), /allocated/);
      wt.emptyCache(device);
      assert.ok(wt.maxMemoryAllocated(device) >= before);
    });

    add(`${device}: bad inputs give errors and break nothing`, async () => {
      const x = wt.tensor([[1, 2], [3, 4]], on);
      assert.throws(() => wt.tensor([1, 2, 3], { ...on, shape: [2, 2] }), /got 3 elements of data, but shape \[2, 2\] needs 4/);
      assert.throws(() => x.reshape([3, -1]), /reshape/);
      assert.throws(() => x.matmul(wt.ones([3, 1], on)), /inner dimensions differ/);
      assert.throws(() => x.sum(5), /dimension 5 is out of range/);
      assert.throws(() => wt.zeros([2], { device: 'tpu:0' }), /unknown device 'tpu:0'/);
      assert.throws(() => wt.zeros([2], { device: 'webgpu:9' }), /webgpu:9 is not available/);
      assert.throws(() => wt.zeros([2], { ...on, dtype: 'complex64' }), /unknown dtype/);
      assert.throws(() => x.add('a'), /add: other must be a Tensor or a number, got the string "a"/);
      close(await x.add(1).data(), [2, 3, 4, 5], 0);
    });

    add(`${device}: hostile arguments get TypeError/RangeError naming the function and argument`, async () => {
      const x = wt.tensor([[1, 2], [3, 4]], on);
      const other = wt.tensor([1, 2], { device: 'cpu', dtype: 'int32' });
      // x.to(tensor) is PyTorch's "to that tensor's device and dtype".
      const moved = await x.to(other);
      assert.deepEqual([moved.device, moved.dtype], ['cpu', 'int32']);
      await assert.rejects(x.to({}), (e) => e instanceof TypeError && /to: device must be a device string/.test(e.message));
      await assert.rejects(x.to(99), /GPU:99|gpu:99/);
      assert.equal(wt.zeros([2], { device: wt.devices().find((d) => d.name === device) }).device, device, 'a DeviceInfo is accepted');
      assert.throws(() => wt.memoryAllocated(), (e) => e instanceof TypeError && /memoryAllocated: device must be .* got undefined/.test(e.message));
      assert.throws(() => wt.memoryAllocated(Symbol('d')), TypeError);
      assert.throws(() => wt.setDefaultDevice(), TypeError);
      await assert.rejects(wt.open({}), TypeError);
      await assert.rejects(wt.open(), TypeError);
      await assert.rejects(wt.synchronize(), TypeError);
      // Shapes are integers in [0, 2^53); the element count is checked, never wrapped.
      assert.throws(() => wt.zeros([2 ** 32], on), /more elements than memory can address|larger than this platform can address|out of memory/);
      assert.throws(() => wt.zeros([2 ** 32 + 3], on), /more elements than memory can address|larger than this platform can address|out of memory/);
      assert.throws(() => wt.zeros([2.5], on), (e) => e instanceof RangeError && /zeros|full/.test(e.message) && /shape\[0\] must be an integer/.test(e.message));
      assert.throws(() => wt.zeros([-1], on), (e) => e instanceof RangeError && /got the number -1/.test(e.message));
      assert.throws(() => wt.zeros([2 ** 53], on), RangeError);
      assert.throws(() => wt.zeros(['2'], on), TypeError);
      assert.deepEqual(wt.zeros(3, on).shape, [3], 'zeros(3) is 1-D as in PyTorch');
      // Dims are integers.
      assert.throws(() => x.sum('0'), (e) => e instanceof TypeError && /sum: dim must be/.test(e.message));
      assert.throws(() => x.sum(0.5), (e) => e instanceof RangeError && /sum: dim must be an integer/.test(e.message));
      assert.throws(() => x.softmax('x'), (e) => e instanceof TypeError && /softmax: dim/.test(e.message));
      assert.throws(() => x.sum(0, 'yes'), (e) => e instanceof TypeError && /keepdim must be true or false/.test(e.message));
      assert.throws(() => x.narrow(0, -100, 1), RangeError);
      assert.throws(() => wt.setMemoryLimit(device, -5), (e) => e instanceof RangeError && /setMemoryLimit: bytes must be an integer/.test(e.message));
      assert.equal(wt.memoryLimit(device), null);
      assert.throws(() => wt.rand([2], { ...on, dtype: 'int32' }), /rand: dtype i32 is not supported: rand makes floating-point tensors/);
      assert.throws(() => wt.zeros([2], { ...on, devcie: 'cpu' }), (e) => e instanceof TypeError && /unknown option 'devcie'/.test(e.message));
      // Messages that name what was wrong.
      assert.throws(() => x.matmul(3), (e) => e instanceof TypeError && /matmul: other must be a Tensor, got the number 3/.test(e.message));
      const gone = wt.ones([2], on);
      gone.dispose();
      assert.throws(() => wt.cat([x.flatten(), gone]), /cat: tensors\[1\] was disposed/);
      assert.throws(() => gone.add(1), /add: this tensor was disposed/);
      assert.throws(() => x.add(gone), /add: other was disposed/);
      assert.equal(await wt.tensor(5, on).item(), 5);
      assert.throws(() => wt.tensor([[1, 2], [3]], on), (e) => e instanceof RangeError && /ragged/.test(e.message));
      assert.throws(() => wt.tensor([1, 'a'], on), (e) => e instanceof TypeError && /values\[1\]/.test(e.message));
      assert.throws(() => wt.tensor([2 ** 31], { ...on, dtype: 'int32' }), (e) => e instanceof RangeError && /int32 range/.test(e.message));
      assert.throws(() => wt.full([1], -1, { ...on, dtype: 'uint32' }), RangeError);
      // Views and t() follow the core: view never copies, t() is for at most 2 dims.
      assert.throws(() => x.t().view([4]), /view: view size \[4\] is not compatible with input tensor's size \[2, 2\] and stride \[1, 2\].*Use \.reshape\(\.\.\.\) instead/);
      // PyTorch's rule: a view of a view where the strides allow it (a split, then heads).
      const qkv = wt.arange(0, 24, on).reshape(2, 12);
      const [, k] = qkv.split(4, 1);
      close(await k.view(2, 2, 2).data(), [4, 5, 6, 7, 16, 17, 18, 19], 0);
      close(await x.t().view(2, 2, 1).select(1, -1).data(), [3, 4], 0);
      assert.throws(() => wt.zeros([2, 2, 2], on).t(), /t\(\) expects a tensor with at most 2 dims/);
      close(await x.view([4]).data(), [1, 2, 3, 4], 0);
      // The tensor still works after all of it.
      close(await x.add(1).data(), [2, 3, 4, 5], 0);
    });

    add(`${device}: *_like, new*, item, tensor(5), size and numel`, async () => {
      const i = wt.tensor([[1, 2, 3], [4, 5, 6]], { ...on, dtype: 'int32' });
      for (const [t, v] of [[wt.zerosLike(i), 0], [wt.onesLike(i), 1], [wt.fullLike(i, 7), 7]]) {
        assert.deepEqual([t.shape, t.dtype, t.device], [[2, 3], 'int32', device]);
        assert.deepEqual(Array.from(await t.data()), Array(6).fill(v));
      }
      assert.equal(wt.zerosLike(i, { dtype: 'float32' }).dtype, 'float32', 'options override the dtype');
      const f = wt.randn([2, 2], { ...on, seed: 4 });
      const r = wt.randLike(f, { seed: 2 });
      assert.deepEqual([r.shape, r.dtype, r.device], [[2, 2], 'float32', device]);
      assert.deepEqual(Array.from(await r.data()), Array.from(await wt.rand([2, 2], { ...on, seed: 2 }).data()));
      assert.deepEqual(wt.randnLike(f).shape, [2, 2]);
      assert.throws(() => wt.randLike(i), /rand: dtype i32 is not supported/);
      const n = i.newZeros([4]);
      assert.deepEqual([n.shape, n.dtype, n.device], [[4], 'int32', device]);
      assert.deepEqual(Array.from(await i.newOnes(2).data()), [1, 1]);
      assert.deepEqual(Array.from(await i.newFull([2], 9).data()), [9, 9]);
      const nt = i.newTensor([[1, 2]]);
      assert.deepEqual([nt.shape, nt.dtype, nt.device], [[1, 2], 'int32', device]);
      const s = wt.tensor(5, on);
      assert.deepEqual([s.shape, s.dtype], [[], 'float32']);
      assert.equal(await s.item(), 5);
      assert.equal(await wt.tensor(true, on).item(), true);
      assert.equal(await i.sum().item(), 21);
      await assert.rejects(i.item(), /a tensor with 6 elements cannot be converted to a number/);
      assert.deepEqual(await wt.tensor([[[1], [2]], [[3], [4]]], on).array(), [[[1], [2]], [[3], [4]]]);
      assert.deepEqual(i.size(), [2, 3]);
      assert.equal(i.size(-1), 3);
      assert.equal(i.numel(), 6);
      assert.throws(() => i.size(2), RangeError);
      assert.equal(wt.tensor(Int32Array.of(1, 2), on).dtype, 'int32', 'an Int32Array makes an int32 tensor');
      assert.equal(wt.tensor([true, false], on).dtype, 'bool', 'booleans make a bool tensor');
      // int64 indices from PyTorch/ONNX: range-checked into int32 (uint64 into uint32).
      const big = wt.tensor(BigInt64Array.of(-5n, 2147483647n, 0n), on);
      assert.deepEqual([big.dtype, Array.from(await big.data())], ['int32', [-5, 2147483647, 0]]);
      assert.throws(() => wt.tensor(BigInt64Array.of(1n, 2147483648n), on), /element 1 is 2147483648, outside int32's range/);
      assert.equal(wt.tensor(BigUint64Array.of(4294967295n), on).dtype, 'uint32');
      assert.throws(() => wt.tensor(BigUint64Array.of(4294967296n), on), /outside uint32's range/);
      assert.deepEqual(Array.from(await wt.tensor([[1n, -2n]], on).data()), [1, -2]);
      assert.throws(() => wt.tensor([1n, 2 ** 40], on), /do not mix/);
      assert.throws(() => wt.tensor([-(2n ** 31n) - 1n], on), /values\[0\] is -2147483649n, outside int32's range/);
      assert.deepEqual(Array.from(await wt.tensor(BigInt64Array.of(3n, -1n), { ...on, dtype: 'float32' }).data()), [3, -1]);
      assert.equal(await wt.tensor(7n, on).item(), 7);
      assert.deepEqual(Array.from(await wt.arange(3, on).data()), [0, 1, 2], 'arange(end)');
      assert.deepEqual(Array.from(await wt.arange(1, 3, { ...on, dtype: 'int32' }).data()), [1, 2], 'arange(start, end, options)');
    });
  }

  add('soft placement and the placement log', async () => {
    assert.equal(wt.softDevicePlacement(), false);
    assert.throws(() => wt.zeros([2], { device: 'webgpu:7' }), /webgpu:7 is not available/);
    wt.setSoftDevicePlacement(true);
    try {
      wt.clearPlacementLog();
      const t = wt.ones([2], { device: 'webgpu:7' });
      assert.ok(['webgpu:0', 'cpu'].includes(t.device), t.device);
      const log = wt.placementLog();
      assert.equal(log.length, 1);
      assert.match(log[0].fallback, /soft placement: .*webgpu:7/);
    } finally {
      wt.setSoftDevicePlacement(false);
    }
    const noF16 = wt.devices().find((d) => d.name.startsWith('webgpu') && !d.features.includes('shader-f16'));
    if (noF16 && devices.includes(noF16.name)) {
      assert.throws(() => wt.ones([2], { device: noF16.name, dtype: 'float16' }).add(1), /shader-f16/);
    }
    wt.setLogDevicePlacement(true);
    wt.clearPlacementLog();
    const x = wt.ones([2, 2], { device: 'cpu' });
    x.add(x).sum();
    wt.setLogDevicePlacement(false);
    const ops = wt.placementLog().map((p) => `${p.op}:${p.inputs.join('+')}->${p.output}`).filter((o) => !o.startsWith('contiguous'));
    assert.deepEqual(ops, ['full:->cpu', 'add:cpu+cpu->cpu', 'sum:cpu->cpu']);
  });

  // An adapter without shader-f16 (SwiftShader in Chromium) cannot run f16 kernels. Under soft
  // placement each such op runs on the cpu and its result moves back: in a browser as a host step
  // that later work on the device waits behind (it cannot block for the readback).
  const noF16 = wt.devices().find((d) => d.name.startsWith('webgpu') && !d.features.includes('shader-f16'));
  if (noF16 && devices.includes(noF16.name)) {
    add(`${noF16.name}: without shader-f16, soft placement runs f16 ops on the cpu and moves the results back`, async () => {
      const on = { device: noF16.name };
      wt.setSoftDevicePlacement(true);
      try {
        wt.clearPlacementLog();
        wt.resetTransferStats(noF16.name);
        const h = wt.ones([2], { ...on, dtype: 'float16' });
        assert.equal(h.device, noF16.name);
        assert.equal(h.dtype, 'float16');
        const fallback = wt.placementLog().find((p) => p.fallback);
        assert.ok(fallback, JSON.stringify(wt.placementLog()));
        assert.match(fallback.fallback, /shader-f16.*ran on cpu and moved the result back/);
        close(await h.add(h).data(), [2, 2]);
        // A chain of host steps, then a GPU kernel that must wait for them.
        const x = wt.tensor([1, 2, 3], on);
        const y = x.toDtype('float16').mul(2).toDtype('float32');
        close(await y.add(x).data(), [3, 6, 9]);
        // An input's buffer recycled by a later upload: the upload waits for the step reading it.
        const a = wt.tensor([5, 6, 7], on);
        const ah = a.toDtype('float16');
        a.dispose();
        const b = wt.tensor([1, 1, 1], on);
        close(await ah.toDtype('float32').data(), [5, 6, 7]);
        close(await b.data(), [1, 1, 1]);
        await wt.synchronize(noF16.name);
        assert.ok(wt.transferStats(noF16.name).deviceToHostCopies >= 6, JSON.stringify(wt.transferStats(noF16.name)));
        // A host step that fails (an index the cpu refuses) is reported by the next readback;
        // the device goes on.
        const bad = wt.tensor([1, 2, 3], on).toDtype('float16').indexSelect(0, wt.tensor([5], { ...on, dtype: 'int32' }));
        assert.match((await assert.rejects(bad.data())).message, /running index_select on the cpu failed.*out of bounds/);
        close(await wt.tensor([1, 2], on).add(1).data(), [2, 3]);
      } finally {
        wt.setSoftDevicePlacement(false);
      }
    });
  }

  for (const device of devices) {
    add(`${device}: memory limit, transfer counters, events`, async () => {
      await wt.synchronize(device);
      const base = wt.memoryReserved(device);
      wt.setMemoryLimit(device, base + (1 << 20));
      assert.equal(wt.memoryLimit(device), base + (1 << 20));
      try {
        const keep = wt.full([4], 2, { device });
        assert.throws(() => wt.zeros([1 << 20], { device }), /out of memory: tried to allocate 4194304 bytes/);
        close(await keep.sum().data(), [8]);
      } finally {
        wt.setMemoryLimit(device, null);
      }
      assert.equal(wt.memoryLimit(device), null);
      wt.resetTransferStats(device);
      const x = wt.tensor([1, 2, 3, 4], { device });
      await x.data();
      const s = wt.transferStats(device);
      if (device === 'cpu') assert.equal(s.hostToDeviceCopies, 0);
      else assert.deepEqual([s.hostToDeviceBytes, s.deviceToHostBytes], [16, 16]);
      const start = await wt.Event.record(device);
      x.matmul(x.reshape([4, 1]));
      const end = await wt.Event.record(device);
      assert.ok(['timestamp-query', 'wall-clock'].includes(start.method));
      assert.ok((await start.elapsedMs(end)) >= 0);
      await wt.recover(device); // a no-op on a healthy device
    });

    add(`${device}: setFusedKernels chooses the fused attention or the composed formula`, async () => {
      const q = wt.randn([1, 2, 5, 8], { seed: 1, device }).requiresGrad_(true);
      const wide = wt.randn([1, 2, 5, 72], { seed: 1, device }).requiresGrad_(true);
      const op = (x = q) => wt.tidy(() => wt.nn.functional.scaledDotProductAttention(x, x, x).gradFn);
      assert.equal(wt.fusedKernels(), 'auto');
      try {
        // Auto fuses where the kernels pay: rows up to 64 wide everywhere (hardware GPUs run
        // them tiled), wider rows on the CPU and software adapters (lavapipe, SwiftShader) only.
        const pays = device === 'cpu' || wt.devices().find((d) => d.name === device)?.type === 'software';
        assert.equal(op(), 'scaled_dot_product_attention', 'auto');
        assert.equal(op(wide) === 'scaled_dot_product_attention', pays, 'auto, 72 wide');
        wt.setFusedKernels('never');
        assert.equal(wt.fusedKernels(), 'never');
        assert.ok(op() !== 'scaled_dot_product_attention', 'never composes');
        wt.setFusedKernels('always');
        assert.equal(op(), 'scaled_dot_product_attention', 'always');
        assert.throws(() => wt.setFusedKernels('fast'), /'auto', 'always' or 'never'/);
        assert.throws(() => wt.setFusedKernels(), /setFusedKernels/);
        assert.equal(wt.fusedKernels(), 'always', 'a refused mode changes nothing');
      } finally {
        wt.setFusedKernels('auto');
        q.dispose();
        wide.dispose();
      }
    });

    add(`${device}: data({ into }) and dataSync({ into }) fill the caller's array`, async () => {
      const x = wt.tensor([[1.5, -2], [3, 4.25]], { device });
      const into = new Float32Array(4).fill(9);
      assert.equal(await x.data({ into }), into, 'the same array back');
      assert.deepEqual(Array.from(into), [1.5, -2, 3, 4.25]);
      const view = x.t();
      assert.deepEqual(Array.from(await view.data({ into })), [1.5, 3, -2, 4.25], 'a strided view');
      const ints = wt.tensor([7, -8], { device, dtype: 'int32' });
      assert.deepEqual(Array.from(await ints.data({ into: new Int32Array(2) })), [7, -8]);
      const flags = x.gt(2);
      assert.deepEqual(Array.from(await flags.data({ into: new Uint8Array(4) })), [0, 0, 1, 1]);
      // float16 reads into a Float32Array (where the device has f16).
      const f16 = device === 'cpu' || wt.devices().some((d) => d.name === device && d.features.includes('shader-f16'));
      const half = f16 ? x.toDtype('float16') : x.clone();
      assert.deepEqual(Array.from(await half.data({ into: new Float32Array(4) })), [1.5, -2, 3, 4.25]);
      await assert.rejects(x.data({ into: new Float64Array(4) }), /Float32Array/);
      await assert.rejects(ints.data({ into: new Float32Array(2) }), /Int32Array/);
      await assert.rejects(x.data({ into: new Float32Array(3) }), /holds 3 elements; the tensor has 4/);
      await assert.rejects(x.data({ out: into }), /unknown option 'out'/);
      if (device === 'cpu') {
        assert.equal(x.dataSync({ into }), into);
        assert.deepEqual(Array.from(into), [1.5, -2, 3, 4.25]);
      } else {
        assert.throws(() => x.dataSync({ into }), /await t.data/);
      }
      for (const t of [x, view, ints, flags, half]) t.dispose();
    });

    add(`${device}: the lazy tier runs a chain as one kernel with the op-by-op values`, async () => {
      const x = wt.randn([64, 64], { seed: 3, device });
      const b = wt.randn([64], { seed: 4, device });
      const chain = () => x.mul(b).tanh().add(1).mul(0.5).exp();
      assert.equal(wt.lazyElementwise(), true);
      const run = async (lazy) => {
        wt.setLazyElementwise(lazy);
        try {
          await wt.synchronize(device);
          const before = wt.kernelLaunches(device);
          const y = chain();
          const values = await y.data();
          y.dispose();
          return { launches: wt.kernelLaunches(device) - before, values };
        } finally {
          wt.setLazyElementwise(true);
        }
      };
      const lazy = await run(true);
      const eager = await run(false);
      if (device === 'cpu') {
        assert.equal(lazy.launches, 0);
      } else {
        assert.equal(lazy.launches, 1, 'one generated kernel');
        assert.equal(eager.launches, 5, 'five kernels op by op');
      }
      for (let i = 0; i < eager.values.length; i++) {
        assert.ok(Math.abs(lazy.values[i] - eager.values[i]) <= 2e-6 * (1 + Math.abs(eager.values[i])), `element ${i}`);
      }
      assert.throws(() => wt.setLazyElementwise('yes'), /setLazyElementwise/);
      assert.throws(() => wt.kernelLaunches(), /kernelLaunches/);
      x.dispose();
      b.dispose();
    });

    if (device !== 'cpu') {
      add(`${device}: launch blocking names the kernel that failed`, async () => {
        const a = wt.ones([4], { device });
        wt.setLaunchBlocking(true);
        try {
          assert.equal(wt.launchBlocking(), true);
          wt.__injectDispatchError(device);
          a.add(a).dispose();
          const e = await assert.rejects(wt.synchronize(device));
          assert.match(e.message, /launch blocking/);
          assert.match(e.message, /Add/, 'the error names the failing kernel');
        } finally {
          wt.setLaunchBlocking(false);
        }
        assert.equal(wt.launchBlocking(), false);
        await wt.synchronize(device);
        assert.deepEqual(Array.from(await a.mul(a).add(a).data()), [2, 2, 2, 2], 'the device still works');
        a.dispose();
      });
    }
  }


  add('tidy disposes on throw and refuses async work; withDevice scopes creation', async () => {
    const before = wt.memory();
    assert.throws(() => wt.tidy(() => { wt.ones([64]); wt.zeros([64]); throw new Error('boom'); }), /boom/);
    assert.equal(wt.memory().numTensors, before.numTensors, 'tidy disposed what the throwing function made');
    assert.equal(wt.memoryAllocated('cpu'), before.devices.cpu.numBytes);
    assert.throws(() => wt.tidy(async () => wt.ones([2])), (e) => e instanceof TypeError && /tidy: fn must be synchronous/.test(e.message));
    assert.throws(() => wt.tidy(() => Promise.resolve(1)), (e) => e instanceof TypeError && /tidy: fn returned a Promise/.test(e.message));
    assert.throws(() => wt.tidy(5), TypeError);
    const kept = wt.tidy('named', () => [wt.ones([2]), { inner: new Map([['m', wt.zeros([1])]]) }]);
    assert.equal(kept[0].disposed, false);
    assert.equal(kept[1].inner.get('m').disposed, false, 'tensors inside a Map are kept');
    kept[0].dispose();
    kept[1].inner.get('m').dispose();
    assert.equal(wt.memory().numTensors, before.numTensors);
    // withDevice: creation without a device goes to the scope's device; scopes nest and restore.
    const gpu = devices.find((d) => d !== 'cpu');
    const inner = gpu ?? 'meta';
    const [a, b, c] = wt.withDevice(inner, () => [wt.ones([2]), wt.withDevice('cpu', () => wt.zeros([1])), wt.tensor([1])]);
    assert.deepEqual([a.device, b.device, c.device], [inner, 'cpu', inner]);
    assert.equal(wt.ones([1]).device, 'cpu', 'the scope ended');
    assert.throws(() => wt.withDevice(inner, () => { throw new Error('inside'); }), /inside/);
    assert.equal(wt.ones([1]).device, 'cpu', 'a throw restores the placement');
    assert.throws(() => wt.withDevice('cpu', async () => 1), /withDevice: fn must be synchronous/);
    assert.throws(() => wt.withDevice({}, () => 1), TypeError);
    if (gpu) {
      // Ops still need one device: no implicit copies.
      const onCpu = wt.ones([2], { device: 'cpu' });
      assert.throws(() => wt.withDevice(gpu, () => onCpu.add(wt.ones([2]))), /Expected all tensors to be on the same device/);
    }
    for (const t of [a, b, c]) t.dispose();
  });

  add("TensorFlow's device strings, accelerator indices, isAvailable, deviceCount, memory()", async () => {
    for (const s of ['/CPU:0', '/cpu:0', '/device:CPU:0', '/job:localhost/replica:0/task:0/device:CPU:0']) {
      assert.equal(wt.zeros([1], { device: s }).device, 'cpu', s);
    }
    assert.throws(() => wt.zeros([1], { device: '/CPU:1' }), /only one cpu device/);
    assert.throws(() => wt.zeros([1], { device: '/job:localhost' }), /no device part/);
    assert.equal(wt.isAvailable('cpu'), true);
    assert.equal(wt.deviceCount('cpu'), 1);
    assert.equal(wt.isAvailable('cuda'), false, 'no CUDA on the web');
    assert.throws(() => wt.isAvailable('tpu'), /kind must be one of/);
    assert.throws(() => wt.isAvailable(), TypeError);
    const gpus = wt.deviceCount('webgpu');
    assert.equal(wt.deviceCount('gpu'), gpus);
    assert.equal(wt.isAvailable('gpu'), gpus > 0);
    if (gpus > 0) {
      for (const s of ['/GPU:0', '/device:GPU:0', '/job:localhost/replica:0/task:0/device:GPU:0', 'gpu', 'GPU:0']) {
        assert.equal(wt.zeros([1], { device: s }).device, 'webgpu:0', s);
      }
      assert.equal(wt.zeros([1], { device: 0 }).device, 'webgpu:0', 'an index is the N-th accelerator');
    }
    assert.throws(() => wt.zeros([1], { device: `/GPU:${gpus}` }), new RegExp(`GPU:${gpus} asks for the ${gpus + 1}-th accelerator`));
    assert.throws(() => wt.zeros([1], { device: -1 }), RangeError);
    const m0 = wt.memory();
    const t = wt.ones([1000], { device: 'cpu' });
    const m1 = wt.memory();
    assert.equal(m1.numTensors, m0.numTensors + 1);
    assert.equal(m1.devices.cpu.numTensors, m0.devices.cpu.numTensors + 1);
    assert.ok(m1.numBytes >= m0.numBytes + 4000);
    t.dispose();
    assert.equal(wt.memory().numTensors, m0.numTensors);
    const st = wt.memoryStats('cpu');
    assert.deepEqual(Object.keys(st).sort(), ['allocated', 'allocations', 'peak', 'reserved']);
    assert.equal(st.allocated, wt.memoryAllocated('cpu'));
  });

  add('the JS API covers the core op table and every RawTensor method (one source of truth)', () => {
    const table = wt.__opTable();
    const missing = [];
    for (const family of ['unary', 'binary', 'reduce']) {
      assert.ok(table[family].length > 0, family);
      for (const name of table[family].map(camel)) {
        if (typeof wt.Tensor.prototype[name] !== 'function') missing.push(`${family}: ${name}`);
      }
    }
    // Every other op the core exports is a RawTensor method (Rust, src/wasm/): each has a JS
    // Tensor method of its name, but for the dispatchers that serve several named ops (checked
    // through the op table above and the suites of those ops) and the handle's own plumbing.
    const internal = new Set(['__destroy_into_raw', 'free', 'cloneHandle', 'deepCopy', 'gradient', 'setGradient',
      'checkInplace', 'inplaceResult', 'unary', 'binary', 'binaryScalar', 'reduce', 'reduceComposed', 'arg', 'moments',
      'scan', 'logical', 'logicalScalar', 'triangle', 'whereThen', 'scatterValue', 'splitSizes', 'sliceStep', 'lerpScalar',
      'dataInto', 'dataSyncInto']);
    for (const name of Object.getOwnPropertyNames(core().RawTensor.prototype)) {
      if (name !== 'constructor' && !internal.has(name) && !(name in wt.Tensor.prototype)) missing.push(`RawTensor: ${name}`);
    }
    assert.deepEqual(missing, [], 'ops of the core with no JS method');
    assert.throws(() => new wt.Tensor(5), /Tensor cannot be constructed directly/);
  });

  add('devices, bestDevice, default device', () => {
  const list = wt.devices();
  assert.equal(list[0].name, 'cpu');
  for (const d of list) assert.ok(['name', 'backend', 'type', 'fallback', 'limits', 'features'].every((k) => k in d));
  assert.ok(list.some((d) => d.name === wt.bestDevice()));
  assert.equal(wt.defaultDevice(), 'cpu');
  assert.equal(wt.zeros([1]).device, 'cpu');
});

  list.push(...gradCases(wt, devices));
  list.push(...nnCases(wt, devices));
  list.push(...nnOpsCases(wt, devices));
  list.push(...rowCases(wt, devices));
  list.push(...nnSlotCases(wt, devices));
  list.push(...specialCases(wt, devices));
  list.push(...sortCases(wt, devices));
  list.push(...int8Cases(wt, devices));
  list.push(...dataCases(wt, devices));
  list.push(...parallelCases(wt, devices));
  list.push(...idiomCases(wt, devices));
  list.push(...inplaceCases(wt, devices));
  list.push(...gptCases(wt, devices));
  list.push(...transformerCases(wt, devices));
  list.push(...optimCases(wt, devices));
  list.push(...manifestCases(wt, devices));
  list.push(...otherCallCases(wt, devices));
  return list;
}
