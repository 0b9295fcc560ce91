// init's life cycle in a fresh module (its own process): bad options reject, a failed init can
// be retried, a CPU-only init can be followed by init({ gpu }) that adds WebGPU, and Node's own
// navigator keeps its properties.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as wt from '../node.js';

// Node 21+ has a navigator whose properties are prototype getters; on Node 20 (none) the test
// puts one of that shape in place, so the keep-the-navigator path runs everywhere.
if (!globalThis.navigator) {
  class Navigator {
    get userAgent() { return 'Node.js/24 (test)'; }
    get hardwareConcurrency() { return 2; }
    get language() { return 'en-US'; }
  }
  Object.defineProperty(globalThis, 'navigator', { value: new Navigator(), configurable: true, writable: true });
}
const navBefore = globalThis.navigator;
const agentBefore = navBefore?.userAgent;

test('init: bad options reject, a failure can be retried, WebGPU can be added later', async () => {
  await assert.rejects(wt.init({ devcie: 'cpu' }), (e) => e instanceof TypeError && /init: unknown option 'devcie'/.test(e.message));
  await assert.rejects(wt.init({ wasm: '/nonexistent/webtensor_bg.wasm' }), /ENOENT|no such file/);
  assert.equal(await wt.init(), 'cpu', 'the retry after a failed init succeeds (CPU only: no gpu given)');
  assert.equal(wt.isAvailable('webgpu'), false);
  assert.equal(await wt.init(), 'cpu', 'a second init with nothing new is a no-op');
  let gpu = null;
  try {
    gpu = (await import('webgpu')).create([]);
  } catch (e) {
    if (process.env.WEBTENSOR_REQUIRE_GPU === '1') throw new Error(`the webgpu package failed to load: ${e.message}`);
  }
  if (gpu) {
    await wt.init({ gpu });
    assert.ok(wt.devices().some((d) => d.name === 'webgpu:0'), `init({ gpu }) after a CPU-only init adds WebGPU: ${JSON.stringify(wt.devices().map((d) => d.name))}`);
    // Until it is opened, the GPU is listed (isAvailable('gpu')) and an op on it says what to await.
    if (wt.bestDevice() === 'cpu') {
      assert.equal(wt.isAvailable('gpu'), true);
      assert.throws(() => wt.ones([3], { device: 'gpu' }), /webgpu:0 has not been opened: await open\("webgpu:0"\)/);
    }
    await wt.open('webgpu:0');
    const x = wt.ones([3], { device: 'webgpu:0' });
    assert.deepEqual(Array.from(await x.add(1).data()), [2, 2, 2]);
    assert.equal(await wt.init({ gpu }), wt.bestDevice(), 'the same gpu again changes nothing');
  }
  // The navigator is kept, with gpu added to it.
  assert.equal(globalThis.navigator, navBefore, 'the navigator object is the same one');
  assert.equal(navigator.userAgent, agentBefore);
  assert.equal(typeof navigator.hardwareConcurrency, 'number');
  assert.equal(typeof navigator.language, 'string');
  if (gpu) assert.equal(navigator.gpu, gpu);
});
