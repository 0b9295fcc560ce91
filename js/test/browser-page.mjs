// Runs the shared cases in a page on the cpu and, where the browser offers it, WebGPU; leaves
// the outcome on window.__results for the runner (browser.mjs) to collect. `?suite=logical` runs
// the logical-device cases, which need the adapter split before any device opens; `?suite=fuzz`
// runs the API fuzz (fuzz.mjs), whose memory baseline must be its own. Each gets a page (a fresh
// module) of its own.
import * as wt from '../browser.js';
import { cases } from './cases.mjs';
import { LOGICAL, logicalCases } from './logical.mjs';

const params = new URLSearchParams(location.search);
const suite = params.get('suite');
const message = (e) => String(e?.message ?? e);

/** Runs `list` of `{ name, fn }`, one result each. */
async function runCases(list, results) {
  for (const { name, fn } of list) {
    try {
      await fn();
      results.push({ name, ok: true });
    } catch (e) {
      results.push({ name, ok: false, error: message(e) });
    }
  }
}

/** The fuzz as one result that names its counts. */
async function runFuzz(devices, results) {
  const [{ default: fc }, { fuzz }] = await Promise.all([import('fast-check'), import('./fuzz.mjs')]);
  const numRuns = Number(params.get('runs') ?? 1000);
  const t0 = performance.now();
  try {
    const stats = await fuzz(wt, fc, devices, { numRuns });
    const s = ((performance.now() - t0) / 1000).toFixed(1);
    const ok = stats.calls >= numRuns * 100 && stats.errors > stats.calls / 20 && stats.calls - stats.errors > stats.calls / 5;
    const name = `fuzz: ${stats.calls} calls, ${stats.errors} errors (${JSON.stringify(stats.kinds)}) in ${s} s on ${devices.join(', ')}`;
    results.push({ name, ok, error: ok ? undefined : 'too few calls, errors or successes' });
  } catch (e) {
    results.push({ name: 'fuzz', ok: false, error: message(e) });
  }
}

/** `using` (explicit resource management) frees at block end. Node 20 cannot parse it, so it is
 * checked here, compiled at run time to keep this module parseable everywhere. */
async function runUsing(results) {
  const name = 'using disposes at the end of its block';
  try {
    const usingBlock = new Function('wt', `return (async () => {
      const before = wt.memoryAllocated('cpu');
      { using t = wt.ones([1000], { device: 'cpu' }); if (wt.memoryAllocated('cpu') < before + 4000) throw new Error('not allocated'); }
      return wt.memoryAllocated('cpu') - before;
    })()`);
    const left = await usingBlock(wt);
    results.push({ name, ok: left === 0, error: `${left} bytes left` });
  } catch (e) {
    results.push({ name, ok: false, error: message(e) });
  }
}

const results = [];
try {
  // The wasm location override, as a page that hosts the .wasm elsewhere would use it.
  await wt.init({ wasm: new URL('/pkg/webtensor_bg.wasm', location.href), logicalDevices: suite === 'logical' ? LOGICAL : undefined });
  const devices = ['cpu'];
  if (suite !== 'logical' && wt.devices().some((d) => d.name === 'webgpu:0')) {
    await wt.open('webgpu:0');
    devices.push('webgpu:0');
  }
  if (suite === 'fuzz') await runFuzz(devices, results);
  else if (suite === 'logical') await runCases(logicalCases(wt), results);
  else {
    await runCases(cases(wt, devices), results);
    await runUsing(results);
  }
  window.__results = { devices: wt.devices(), results };
} catch (e) {
  window.__results = { error: `${message(e)}\n${e?.stack ?? ''}`, results };
}
