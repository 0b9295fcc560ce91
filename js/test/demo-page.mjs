// End-to-end test of the demo page (www/, built by `npm run build:demo` into target/www): in
// headless Chromium it picks cpu and then webgpu, runs the k-means workload on each, runs the
// benchmark, asserts the results and that no error reached the console, and saves full-page
// screenshots to target/screenshots/.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { withPage } from './chromium.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const shots = `${root}target/screenshots`;
await mkdir(shots, { recursive: true });
let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
  failed += ok ? 0 : 1;
};

await withPage(`${root}target/www`, '/?iterations=4', async (page, errors) => {
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.waitForFunction(() => window.__demo?.ready, null, { timeout: 120_000 });
  const devices = await page.$$eval('input[name=device]', (els) => els.map((e) => e.value));
  check(devices.includes('cpu'), `the page lists devices: ${devices.join(', ')}`);
  const gpu = devices.find((d) => d.startsWith('webgpu'));
  if (!gpu && process.env.WEBTENSOR_REQUIRE_GPU === '1') check(false, 'WEBTENSOR_REQUIRE_GPU=1 but the page found no WebGPU device');
  for (const device of ['cpu', gpu].filter(Boolean)) {
    await page.check(`input[name=device][value="${device}"]`);
    await page.click('#run');
    await page.waitForFunction((d) => window.__demo.runs[d] && !document.querySelector('#run').disabled, device, { timeout: 300_000 });
    const run = await page.evaluate((d) => ({ ms: window.__demo.runs[d].ms, agrees: window.__demo.runs[d].agrees, n: window.__demo.runs[d].labels.length }), device);
    check(run.n === 480 * 320, `k-means on ${device}: ${run.n} labels in ${run.ms.toFixed(0)} ms`);
    if (device !== 'cpu') check(run.agrees === true, `${device} agrees with the cpu`);
    await page.screenshot({ path: `${shots}/demo-${device.replace(':', '')}.png`, fullPage: true });
  }
  await page.click('#bench');
  await page.waitForFunction((n) => Object.keys(window.__demo.bench).length === n && !document.querySelector('#bench').disabled, devices.length, { timeout: 300_000 });
  const bench = await page.evaluate(() => window.__demo.bench);
  for (const [device, rows] of Object.entries(bench)) {
    check(rows.matmul.length === 4 && rows.matmul.every(([, g]) => g > 0), `benchmark on ${device}: matmul ${rows.matmul.map(([n, g]) => `${n}:${g.toFixed(2)}`).join(' ')} GFLOP/s`);
  }
  check(await page.$eval('#chart-matmul', (s) => s.querySelectorAll('polyline').length === Object.keys(window.__demo.bench).length), 'the chart draws a line per device');
  await page.waitForTimeout(1200); // one more memory sample
  check(await page.$eval('#placement', (ol) => ol.children.length > 0), 'the placement log shows ops');
  await page.screenshot({ path: `${shots}/demo-bench.png`, fullPage: true });
  check(errors.length === 0, `no console errors${errors.length ? `: ${errors.join('; ')}` : ''}`);
});
// Without WebGPU the page says so and runs on the CPU.
await withPage(`${root}target/www`, '/?iterations=2', async (page, errors) => {
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.waitForFunction(() => window.__demo?.ready, null, { timeout: 120_000 });
  const banner = await page.$eval('#banner', (b) => (b.hidden ? '' : b.textContent));
  check(/WebGPU is not available/.test(banner), `without WebGPU a banner says so: "${banner}"`);
  await page.click('#run');
  await page.waitForFunction(() => window.__demo.runs.cpu && !document.querySelector('#run').disabled, null, { timeout: 120_000 });
  check(true, 'and the workload runs on the cpu');
  await page.screenshot({ path: `${shots}/demo-no-webgpu.png`, fullPage: true });
  check(errors.length === 0, `no console errors without WebGPU${errors.length ? `: ${errors.join('; ')}` : ''}`);
}, { webgpu: false });
console.log(`screenshots in ${shots}`);
console.log(`${failed ? 'some' : 'all'} checks done: ${failed} failed`);
process.exit(failed ? 1 : 0);
