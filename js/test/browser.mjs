// Browser runner: runs the shared cases (browser.html) in headless Chromium, prints each result,
// and fails if any case failed, the page logged an error, or (with WEBTENSOR_REQUIRE_GPU=1) the
// browser offered no WebGPU device.
import { fileURLToPath } from 'node:url';
import { withPage } from './chromium.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Runs one page of cases and returns how many failed. */
async function run(path, gpuRequired) {
  return withPage(root, path, async (page, errors) => {
    const out = await (await page.waitForFunction(() => window.__results, null, { timeout: 300_000 })).jsonValue();
    let bad = 0;
    if (out.error) {
      console.log(`page error: ${out.error}`);
      bad++;
    }
    const devices = out.devices ?? [];
    console.log(`# ${path}: chromium devices: ${devices.map((d) => `${d.name} (${d.adapter})`).join(', ')}`);
    if (gpuRequired && !devices.some((d) => d.name.startsWith('webgpu')) && process.env.WEBTENSOR_REQUIRE_GPU === '1') {
      console.log('not ok - WEBTENSOR_REQUIRE_GPU=1 but the browser offered no WebGPU device');
      bad++;
    }
    // SwiftShader lacks shader-f16: the web's op-by-op cpu fallback must have been exercised.
    const noF16 = devices.find((d) => d.name === 'webgpu:0' && !d.features.includes('shader-f16'));
    if (noF16 && !path.includes('suite=') && !out.results.some((r) => r.name.includes('without shader-f16'))) {
      console.log('not ok - webgpu:0 lacks shader-f16 but the cpu-fallback case did not run');
      bad++;
    }
    for (const r of out.results) {
      console.log(r.ok ? `ok - ${r.name}` : `not ok - ${r.name}: ${r.error}`);
      bad += r.ok ? 0 : 1;
    }
    for (const e of errors) console.log(`console error: ${e}`);
    bad += errors.length;
    console.log(`${out.results.filter((r) => r.ok).length} passed, ${bad} failed`);
    return bad;
  });
}

// The shared suite, then the logical-device cases in a fresh page (the adapter is split before
// any device opens).
// The API fuzz (100,000 calls) runs in a page of its own too.
const runs = process.env.WEBTENSOR_FUZZ_RUNS ?? '1000';
const failed = (await run('/js/test/browser.html', true)) + (await run('/js/test/browser.html?suite=logical', true))
  + (await run(`/js/test/browser.html?suite=fuzz&runs=${runs}`, true));
process.exit(failed ? 1 : 0);
