// Logical devices from JavaScript, shared by the Node runner (logical.test.mjs) and the browser
// page (browser-page.mjs with ?suite=logical). They need a fresh module: `init` splits the
// adapter before any device opens.
import { assert } from './assert.mjs';
import { trainBoth } from './parallel.mjs';

/** What `init` is given: webgpu:0 split in two, the first half under an 8 MiB limit. */
export const LOGICAL = { 'webgpu:0': [{ memoryLimit: 8 << 20 }, { memoryLimit: null }] };

/** The cases as `{ name, fn }` for `wt`, initialised with `logicalDevices: LOGICAL`. */
export function logicalCases(wt) {
  return [
    {
      name: 'two logical devices on one adapter: listed, limited, separate, and transfers between them are counted',
      fn: async () => {
        const halves = wt.devices().filter((d) => d.logical !== null);
        assert.deepEqual(halves.map((d) => [d.name, d.logical]), [['webgpu:0', 0], ['webgpu:1', 1]]);
        assert.match(halves[0].adapter, /logical 0 of 2/);
        await wt.open('webgpu:0');
        await wt.open('webgpu:1');
        assert.equal(wt.memoryLimit('webgpu:0'), 8 << 20);
        assert.equal(wt.memoryLimit('webgpu:1'), null);
        const x = wt.tensor([1, 2, 3, 4], { device: 'webgpu:0' });
        wt.resetTransferStats('webgpu:1');
        const y = await x.to('webgpu:1');
        assert.equal(y.device, 'webgpu:1');
        assert.deepEqual(Array.from(await y.add(y).data()), [2, 4, 6, 8]);
        const s = wt.transferStats('webgpu:1');
        assert.deepEqual([s.deviceToDeviceCopies, s.deviceToDeviceBytes], [1, 16]);
        assert.throws(() => x.add(y), /same device/, 'ops across logical devices are a device mismatch');
        // 16 MiB passes webgpu:0's limit but not webgpu:1's (it has none); x stays intact.
        assert.throws(() => wt.zeros([4 << 20], { device: 'webgpu:0' }), /out of memory/);
        const big = wt.zeros([4 << 20], { device: 'webgpu:1' });
        assert.deepEqual(Array.from(await x.data()), [1, 2, 3, 4]);
        assert.throws(() => wt.setLogicalDeviceConfiguration('webgpu:0', [{}, {}]), /already in use/);
        for (const t of [x, y, big]) t.dispose();
      },
    },
    {
      name: 'data parallel over the two logical devices trains to the weights of one device (SGD with momentum, Adam)',
      fn: async () => {
        const before = wt.memory().numTensors;
        const losses = await trainBoth(wt, ['webgpu:0', 'webgpu:1'], 20, 9, 'sgd');
        assert.ok(losses[8] < losses[0], `the model learns: ${losses}`);
        await trainBoth(wt, ['webgpu:0', 'webgpu:1'], 20, 8, 'adam');
        await trainBoth(wt, ['cpu', 'webgpu:0', 'webgpu:1'], 10, 7, 'sgd'); // 4/3/3 rows
        // At most: across awaits the FinalizationRegistry may free what earlier cases left to the
        // garbage collector, but a leak would add tensors every step.
        assert.ok(wt.memory().numTensors <= before, `no tensor leaked: ${wt.memory().numTensors} live, ${before} before`);
      },
    },
    {
      name: 'a lost logical device recovers on a fresh adapter; the other half and its tensors are untouched',
      fn: async () => {
        const keep = wt.tensor([1, 2], { device: 'webgpu:0' });
        const gone = wt.tensor([3, 4], { device: 'webgpu:1' });
        await wt.synchronize('webgpu:1');
        wt.__destroyDevice('webgpu:1');
        // The browser reports the loss asynchronously (GPUDevice.lost).
        let lost = null;
        for (let i = 0; i < 100 && !lost; i++) {
          try {
            await wt.synchronize('webgpu:1');
            await new Promise((r) => setTimeout(r, 20));
          } catch (e) {
            lost = e;
          }
        }
        assert.ok(lost, 'the loss is reported');
        assert.match(lost.message, /lost/);
        assert.throws(() => gone.add(gone), /lost/);
        await wt.recover('webgpu:1');
        const fresh = wt.tensor([5, 6], { device: 'webgpu:1' });
        assert.deepEqual(Array.from(await fresh.add(fresh).data()), [10, 12]);
        assert.deepEqual(Array.from(await keep.add(keep).data()), [2, 4], 'webgpu:0 never noticed');
        for (const t of [keep, gone, fresh]) t.dispose();
      },
    },
  ];
}
