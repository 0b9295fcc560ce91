// Logical devices in Node, in a process of its own (node:test runs each file separately): the
// adapter must be split before any device opens. Through the `webgpu` package (Dawn).
import { test } from 'node:test';
import * as wt from '../node.js';
import { LOGICAL, logicalCases } from './logical.mjs';

let gpu = null;
try {
  gpu = (await import('webgpu')).create([]);
} catch (e) {
  if (process.env.WEBTENSOR_REQUIRE_GPU === '1') throw new Error(`WEBTENSOR_REQUIRE_GPU=1 but the webgpu package failed to load: ${e.message}`);
}
if (gpu) {
  await wt.init({ gpu, logicalDevices: LOGICAL });
  for (const { name, fn } of logicalCases(wt)) test(name, fn);
} else {
  test('logical devices need WebGPU', { skip: 'no webgpu package' }, () => {});
}
