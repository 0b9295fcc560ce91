// Node runner of the JS API fuzz (fuzz.mjs): 100,000 random calls by default
// (WEBTENSOR_FUZZ_RUNS x 100), on the cpu and, when present, webgpu:0 (Dawn on lavapipe). Its own
// process, so the memory baseline is not moved by other suites' garbage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { wt, devices } from './setup.mjs';
import { fuzz } from './fuzz.mjs';

const numRuns = Number(process.env.WEBTENSOR_FUZZ_RUNS ?? 1000);

test(`fuzz: ${numRuns * 100} random calls with hostile arguments on ${devices.join(', ')}`, { timeout: 900_000 }, async () => {
  const t0 = performance.now();
  const stats = await fuzz(wt, fc, devices, { numRuns });
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(`# fuzz: ${stats.calls} calls, ${stats.errors} errors (${JSON.stringify(stats.kinds)}) in ${s} s`);
  assert.ok(stats.calls >= numRuns * 100, `only ${stats.calls} calls ran`);
  assert.ok(stats.errors > stats.calls / 20, 'hostile arguments reached the boundary');
  assert.ok(stats.calls - stats.errors > stats.calls / 5, 'plausible calls succeeded');
});
