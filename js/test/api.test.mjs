// Node runner: the shared cases under node:test, plus what only Node can check (garbage
// collection through the FinalizationRegistry, with --expose-gc).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wt, devices } from './setup.mjs';
import { cases } from './cases.mjs';

for (const { name, fn } of cases(wt, devices)) test(name, fn);

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
