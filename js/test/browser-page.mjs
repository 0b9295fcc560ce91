// Runs the shared cases in a page on the cpu and, where the browser offers it, WebGPU; leaves
// the outcome on window.__results for the runner (browser.mjs) to collect.
import * as wt from '../browser.js';
import { cases } from './cases.mjs';

const results = [];
try {
  // The wasm location override, as a page that hosts the .wasm elsewhere would use it.
  await wt.init({ wasm: new URL('/pkg/webtensor_bg.wasm', location.href) });
  const devices = ['cpu'];
  if (wt.devices().some((d) => d.name === 'webgpu:0')) {
    await wt.open('webgpu:0');
    devices.push('webgpu:0');
  }
  for (const { name, fn } of cases(wt, devices)) {
    try {
      await fn();
      results.push({ name, ok: true });
    } catch (e) {
      results.push({ name, ok: false, error: String(e?.message ?? e) });
    }
  }
  window.__results = { devices: wt.devices(), results };
} catch (e) {
  window.__results = { error: `${e?.message ?? e}\n${e?.stack ?? ''}`, results };
}
