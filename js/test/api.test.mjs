// Node runner: the shared cases under node:test, plus what only Node can check (garbage
// collection through the FinalizationRegistry, with --expose-gc).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wt, devices } from './setup.mjs';
import { cases } from './cases.mjs';

const list = cases(wt, devices);
for (const { name, fn } of list) test(name, fn);

// What ran per device. A device the suite covers but this machine lacks (no WebGPU adapter, and
// WEBTENSOR_REQUIRE_GPU unset: setup.mjs fails the run when it is set) has its cases reported as
// skipped, one each, under the names they would have had: every per-device case is made for
// each device alike, so they mirror the cpu's.
const perDevice = (d) => list.filter(({ name }) => name.startsWith(`${d}: `)).length;
const absent = ['webgpu:0'].filter((d) => !devices.includes(d));
for (const d of absent) {
  for (const { name } of list.filter(({ name }) => name.startsWith('cpu: '))) {
    test(`${d}: ${name.slice('cpu: '.length)}`, { skip: `no ${d} on this machine (WEBTENSOR_REQUIRE_GPU=1 makes that a failure)` }, () => {});
  }
}
console.log(`# cases per device: ${[...devices, ...absent].map((d) => `${d} ${devices.includes(d) ? `${perDevice(d)} run` : `${perDevice('cpu')} skipped`}`).join(', ')}; ${list.length - devices.reduce((n, d) => n + perDevice(d), 0)} not per device`);

test('a tensor collected without dispose() is freed by the FinalizationRegistry', async () => {
  assert.ok(globalThis.gc, 'run with node --expose-gc');
  const before = wt.memoryAllocated('cpu');
  (() => { wt.ones([100000]); })();
  assert.ok(wt.memoryAllocated('cpu') >= before + 400000);
  for (let i = 0; i < 50 && wt.memoryAllocated('cpu') > before; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  // Other tests' unreferenced tensors may be collected too, so the count can end below `before`.
  assert.ok(wt.memoryAllocated('cpu') <= before, `${wt.memoryAllocated('cpu')} > ${before}`);
});
