// Runs the shared cases in a page on the cpu and, where the browser offers it, WebGPU; leaves
// the outcome on window.__results for the runner (browser.mjs) to collect.
import * as wt from '../browser.js';
import { cases } from './cases.mjs';
import { LOGICAL, logicalCases } from './logical.mjs';

const results = [];
// `?suite=logical` runs the logical-device cases, which need the adapter split before any device
// opens, so they get a page (a fresh module) of their own.
const logical = new URLSearchParams(location.search).get('suite') === 'logical';
try {
  // The wasm location override, as a page that hosts the .wasm elsewhere would use it.
  await wt.init({ wasm: new URL('/pkg/webtensor_bg.wasm', location.href), logicalDevices: logical ? LOGICAL : undefined });
  const devices = ['cpu'];
  if (!logical && wt.devices().some((d) => d.name === 'webgpu:0')) {
    await wt.open('webgpu:0');
    devices.push('webgpu:0');
  }
  for (const { name, fn } of logical ? logicalCases(wt) : cases(wt, devices)) {
    try {
      await fn();
      results.push({ name, ok: true });
    } catch (e) {
      results.push({ name, ok: false, error: String(e?.message ?? e) });
    }
  }
  // `using` (explicit resource management) frees at block end; Node 20 cannot parse it, so it
  // is checked here, compiled at run time to keep this module parseable everywhere.
  try {
    const usingBlock = new Function('wt', `return (async () => {
      const before = wt.memoryAllocated('cpu');
      { using t = wt.ones([1000], { device: 'cpu' }); if (wt.memoryAllocated('cpu') < before + 4000) throw new Error('not allocated'); }
      return wt.memoryAllocated('cpu') - before;
    })()`);
    const left = await usingBlock(wt);
    results.push({ name: 'using disposes at the end of its block', ok: left === 0, error: `${left} bytes left` });
  } catch (e) {
    results.push({ name: 'using disposes at the end of its block', ok: false, error: String(e?.message ?? e) });
  }
  window.__results = { devices: wt.devices(), results };
} catch (e) {
  window.__results = { error: `${e?.message ?? e}\n${e?.stack ?? ''}`, results };
}
