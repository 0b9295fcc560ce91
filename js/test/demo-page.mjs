// End-to-end test of the demo page (www/, built by `npm run build:demo` into target/www): in
// headless Chromium it picks cpu and then webgpu, runs the k-means workload on each (in the
// page's worker, with progress, while the page stays responsive), checks that every label
// follows the selected device, cancels a run and runs again, runs the benchmark, trains the digits
// model data parallel over the GPU and the cpu (chart, held-out and drawn digits classified,
// cancel mid-training), trains the Shakespeare GPT (stop and resume, falling loss, samples, a
// prompt continued, the checkpoint downloaded and loaded back; data parallel over the GPU and
// the cpu), checks the page
// at phone width (390 px) and with axe-core (WCAG 2 A/AA), asserts that no error reached the
// console, and saves full-page screenshots to target/screenshots/.
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { withPage } from './chromium.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const shots = `${root}target/screenshots`;
const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
await mkdir(shots, { recursive: true });
let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
  failed += ok ? 0 : 1;
};

/** axe-core's WCAG 2 A and AA checks on the page as it is now. */
async function accessibility(page, where) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => (await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }))
    .violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
  check(violations.length === 0, `axe-core at ${where}: ${violations.length ? violations.join('; ') : 'no violations'}`);
}

/** Whether every label on the page names `device`. */
async function labelsFollow(page, device) {
  const labels = await page.evaluate(() => ({
    radio: document.querySelector('input[name=device]:checked')?.value,
    caption: document.querySelector('#quantised-caption').textContent,
    memory: document.querySelector('#memory-caption').textContent,
    log: document.querySelector('#placement-title').textContent,
    run: document.querySelector('#run').textContent,
  }));
  const ok = labels.radio === device && [labels.caption, labels.memory, labels.log, labels.run].every((t) => t.includes(device));
  check(ok, `every label follows the selected device ${device}: ${JSON.stringify(labels)}`);
}

const idle = () => window.__demo.ready && !window.__demo.busy;

await withPage(`${root}target/www`, '/?iterations=4&epochs=3&gptEval=10&gptSample=20&gptSeed=5', async (page, errors) => {
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.waitForFunction(() => window.__demo?.ready, null, { timeout: 120_000 });
  await page.screenshot({ path: `${shots}/demo-first-visit.png`, fullPage: true });
  const devices = await page.$$eval('input[name=device]', (els) => els.map((e) => e.value));
  check(devices.includes('cpu'), `the page lists devices: ${devices.join(', ')}`);
  const gpu = devices.find((d) => d.startsWith('webgpu'));
  if (!gpu && process.env.WEBTENSOR_REQUIRE_GPU === '1') check(false, 'WEBTENSOR_REQUIRE_GPU=1 but the page found no WebGPU device');
  for (const device of ['cpu', gpu].filter(Boolean)) {
    await page.check(`input[name=device][value="${device}"]`);
    await labelsFollow(page, device);
    // The main thread keeps ticking while the worker computes.
    await page.evaluate(() => {
      window.__gaps = [];
      let last = performance.now();
      window.__tick = setInterval(() => { const now = performance.now(); window.__gaps.push(now - last); last = now; }, 10);
    });
    const before = await page.evaluate(() => window.__demo.progressEvents);
    await page.click('#run');
    await page.waitForFunction((d) => window.__demo.runs[d] && !window.__demo.busy, device, { timeout: 300_000 });
    const gap = await page.evaluate(() => { clearInterval(window.__tick); return Math.max(...window.__gaps); });
    const run = await page.evaluate((d) => ({ ms: window.__demo.runs[d].ms, agrees: window.__demo.runs[d].agrees, n: window.__demo.runs[d].labels.length, progress: window.__demo.progressEvents }), device);
    check(run.n === 480 * 320, `k-means on ${device}: ${run.n} labels in ${run.ms.toFixed(0)} ms`);
    check(run.progress - before >= 4, `progress was reported for each of the 4 iterations (${run.progress - before} updates)`);
    check(gap < 250, `the page stayed responsive during the run (longest main-thread gap ${gap.toFixed(0)} ms)`);
    if (device !== 'cpu') check(run.agrees === true, `${device} agrees with the cpu`);
    await labelsFollow(page, device);
    await page.screenshot({ path: `${shots}/demo-${device.replace(':', '')}.png`, fullPage: true });
  }
  // Cancel: a long run stops at once, the page is usable again, and the next run works.
  const slow = gpu ?? 'cpu';
  await page.check(`input[name=device][value="${slow}"]`);
  await page.click('#run-all');
  await page.waitForFunction(() => window.__demo.busy && document.querySelector('#progress').value >= 1, null, { timeout: 120_000 });
  await page.click('#cancel');
  await page.waitForFunction(idle, null, { timeout: 60_000 });
  const afterCancel = await page.evaluate(() => ({ cancelled: window.__demo.cancelled, status: document.querySelector('#status').textContent, runDisabled: document.querySelector('#run').disabled }));
  check(afterCancel.cancelled === 1 && !afterCancel.runDisabled && /cancelled/.test(afterCancel.status), `cancel stops the run: ${JSON.stringify(afterCancel)}`);
  await page.waitForFunction(() => /^cancelled$/.test(document.querySelector('#status').textContent), null, { timeout: 60_000 });
  await page.check('input[name=device][value="cpu"]');
  const runsBefore = await page.evaluate(() => window.__demo.progressEvents);
  await page.click('#run');
  await page.waitForFunction((n) => window.__demo.progressEvents > n && !window.__demo.busy, runsBefore, { timeout: 120_000 });
  check(/done/.test(await page.$eval('#status', (s) => s.textContent)), 'a run after the cancel completes on the restarted worker');
  await page.click('#bench');
  await page.waitForFunction((n) => Object.keys(window.__demo.bench).length === n && !window.__demo.busy, devices.length, { timeout: 300_000 });
  const bench = await page.evaluate(() => window.__demo.bench);
  for (const [device, rows] of Object.entries(bench)) {
    check(rows.matmul.length === 4 && rows.matmul.every(([, g]) => g > 0), `benchmark on ${device}: matmul ${rows.matmul.map(([n, g]) => `${n}:${g.toFixed(2)}`).join(' ')} GFLOP/s`);
  }
  check(await page.$eval('#chart-matmul', (s) => s.querySelectorAll('polyline').length === Object.keys(window.__demo.bench).length), 'the chart draws a line per device');
  check(/GFLOP\/s by size\. .*cpu: 64 /.test(await page.$eval('#chart-matmul', (s) => s.getAttribute('aria-label'))), 'the chart has a text alternative with its values');
  await page.waitForTimeout(1200); // one more memory sample
  check(await page.$eval('#placement', (ol) => ol.children.length > 0 && !/no ops/.test(ol.textContent)), 'the placement log shows ops on the selected device');
  await page.screenshot({ path: `${shots}/demo-bench.png`, fullPage: true });

  // Training: data parallel over the GPU and the cpu (or the cpu alone), live chart, progress,
  // the page responsive; then a held-out image and a drawn stroke are classified.
  await page.check(`input[name=device][value="${gpu ?? 'cpu'}"]`);
  if (gpu) await page.selectOption('#train-second', 'cpu');
  check((await page.$eval('#train', (b) => b.textContent)) === `Train on ${gpu ? `${gpu} + cpu` : 'cpu'}`, 'the train button names the devices');
  await page.evaluate(() => {
    window.__gaps = [];
    let last = performance.now();
    window.__tick = setInterval(() => { const now = performance.now(); window.__gaps.push(now - last); last = now; }, 10);
  });
  await page.click('#train');
  await page.waitForFunction(() => window.__demo.training.trained && !window.__demo.busy, null, { timeout: 600_000 });
  const trainGap = await page.evaluate(() => { clearInterval(window.__tick); return Math.max(...window.__gaps); });
  const rows = await page.evaluate(() => window.__demo.training.rows);
  const lastRow = rows[rows.length - 1];
  check(rows.length === 3 && rows[2].loss < rows[0].loss, `training ran 3 epochs and the loss fell: ${rows.map((r) => r.loss.toFixed(3)).join(', ')}`);
  check(lastRow.testAccuracy > 0.85, `test accuracy after 3 epochs: ${(100 * lastRow.testAccuracy).toFixed(1)}% at ${Math.round(lastRow.samplesPerS)} samples/s`);
  check(trainGap < 250, `the page stayed responsive while training (longest main-thread gap ${trainGap.toFixed(0)} ms)`);
  check(await page.$eval('#chart-train', (s) => s.querySelectorAll('polyline').length === 3 && /test accuracy/.test(s.getAttribute('aria-label'))), 'the training chart draws loss and accuracy, with a text alternative');
  check(/epoch 3: loss/.test(await page.$eval('#train-stats', (p) => p.textContent)), 'the last epoch\'s figures are shown');
  let right = 0;
  for (let i = 0; i < 5; i++) {
    await page.click('#pad-sample');
    await page.waitForFunction((k) => window.__demo.training.samplesShown === k && window.__demo.training.prediction?.label !== undefined, i + 1, { timeout: 60_000 });
    const p = await page.evaluate(() => window.__demo.training.prediction);
    right += p.digit === p.label ? 1 : 0;
  }
  check(right >= 4, `held-out images are classified: ${right} of 5 right`);
  await page.screenshot({ path: `${shots}/demo-training.png`, fullPage: true });
  // A stroke drawn with the mouse: an 8x8 reading and probabilities that sum to 1.
  await page.click('#pad-clear');
  const box = await page.$eval('#pad', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; });
  await page.mouse.move(box.x + box.w * 0.5, box.y + box.h * 0.15);
  await page.mouse.down();
  for (let k = 1; k <= 10; k++) await page.mouse.move(box.x + box.w * 0.5, box.y + box.h * (0.15 + 0.07 * k));
  await page.mouse.up();
  await page.waitForFunction(() => window.__demo.training.prediction && window.__demo.training.prediction.label === undefined, null, { timeout: 60_000 });
  const drawn = await page.evaluate(() => window.__demo.training.prediction);
  const total = drawn.probs.reduce((a, b) => a + b, 0);
  check(drawn.digit >= 0 && drawn.digit <= 9 && Math.abs(total - 1) < 1e-4, `a drawn vertical stroke reads as ${drawn.digit} (${(100 * drawn.probs[drawn.digit]).toFixed(1)}%); probabilities sum to ${total.toFixed(5)}`);
  check(/The model reads \d/.test(await page.$eval('#prediction', (p) => p.textContent)), 'the prediction is written out');
  await page.screenshot({ path: `${shots}/demo-drawn.png`, fullPage: true });
  // The GPT on Shakespeare, on the cpu: stopped midway and resumed, the loss falls, samples come
  // from the plays' characters, a prompt is continued, and the checkpoint downloaded and loaded
  // back continues the prompt with the same text.
  await page.check('input[name=device][value="cpu"]');
  await page.fill('#gpt-steps', '60');
  await page.click('#gpt-train');
  await page.waitForFunction(() => window.__demo.gpt.step >= 10, null, { timeout: 300_000 });
  await page.click('#gpt-stop');
  await page.waitForFunction(() => !window.__demo.busy && window.__demo.gpt.stopped, null, { timeout: 300_000 });
  const stoppedAt = await page.evaluate(() => window.__demo.gpt.step);
  check(stoppedAt >= 10 && stoppedAt < 60, `Stop ends the run at step ${stoppedAt} of 60`);
  await page.click('#gpt-resume');
  await page.waitForFunction(() => !window.__demo.busy && window.__demo.gpt.trained && !window.__demo.gpt.stopped, null, { timeout: 600_000 });
  const gptRun = await page.evaluate(() => window.__demo.gpt);
  const batchLosses = gptRun.rows.filter((r) => r.loss !== undefined).map((r) => r.loss);
  const vals = gptRun.rows.filter((r) => r.val !== undefined).map((r) => r.val);
  check(gptRun.step === 60 && gptRun.rows.length === 60, `Resume trains on to step ${gptRun.step} (${gptRun.rows.length} steps reported)`);
  check(vals.length >= 4 && vals[vals.length - 1] < vals[0] - 0.2 && batchLosses[batchLosses.length - 1] < batchLosses[0], `the GPT's loss falls: validation ${vals.map((v) => v.toFixed(2)).join(', ')}`);
  const printable = (s) => /^[\n\x20-\x7e]*$/.test(s);
  check(gptRun.samples.length >= 2 && gptRun.samples.every((s) => s.text.length === 120 && printable(s.text)), `samples come from the vocabulary: ${JSON.stringify(gptRun.samples.at(-1)?.text.slice(0, 60))}`);
  check(await page.$eval('#chart-gpt-loss', (s) => s.querySelectorAll('polyline').length === 3 && /validation/.test(s.getAttribute('aria-label'))), 'the loss chart draws train and validation, with a text alternative');
  check(await page.$eval('#chart-gpt-speed', (s) => /tokens\/s/.test(s.getAttribute('aria-label')) && s.querySelector('polyline') !== null), 'the tokens/s chart is drawn');
  check(await page.$eval('#chart-gpt-memory', (s) => s.querySelector('polyline') !== null), 'the memory chart is drawn');
  await page.fill('#gpt-prompt', 'ROMEO:');
  await page.fill('#gpt-tokens', '60');
  await page.click('#gpt-generate');
  await page.waitForFunction(() => !window.__demo.busy && window.__demo.gpt.generated, null, { timeout: 120_000 });
  const before = await page.evaluate(() => window.__demo.gpt.generated.text);
  check(before.length === 60 && printable(before) && (await page.$eval('#gpt-output', (p) => p.textContent)).startsWith('ROMEO:'), `the prompt is continued: ${JSON.stringify(before)}`);
  await page.screenshot({ path: `${shots}/demo-gpt.png`, fullPage: true });
  await (await page.$('section[aria-labelledby=gpt-title]')).screenshot({ path: `${shots}/demo-gpt-section.png` });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#gpt-download')]);
  const saved = await download.path();
  const head = (await readFile(saved)).subarray(0, 4000).toString('latin1');
  check(/transformer\.wte\.weight/.test(head) && /"vocab"/.test(head) && /"iters":"60"/.test(head), `the checkpoint downloads with nanoGPT's keys and the vocabulary (${download.suggestedFilename()})`);
  await page.evaluate(() => { window.__demo.gpt.generated = null; });
  await page.setInputFiles('#gpt-upload', saved);
  await page.waitForFunction(() => !window.__demo.busy && /Loaded/.test(document.querySelector('#gpt-output').textContent), null, { timeout: 120_000 });
  await page.click('#gpt-generate');
  await page.waitForFunction(() => !window.__demo.busy && window.__demo.gpt.generated, null, { timeout: 120_000 });
  const after = await page.evaluate(() => window.__demo.gpt.generated.text);
  check(after === before, `the loaded checkpoint continues the prompt with the same text (${after === before ? 'same' : JSON.stringify(after)})`);
  if (gpu) {
    // Data parallel over the GPU and the cpu: a short run learns (below ln 65 = 4.17 nats).
    await page.check(`input[name=device][value="${gpu}"]`);
    await page.selectOption('#gpt-second', 'cpu');
    check((await page.$eval('#gpt-train', (b) => b.textContent)) === `Train on ${gpu} + cpu`, 'the GPT train button names both devices');
    await page.fill('#gpt-steps', '10');
    await page.click('#gpt-train');
    await page.waitForFunction(() => !window.__demo.busy && window.__demo.gpt.trained && window.__demo.gpt.step === 10, null, { timeout: 600_000 });
    const dp = await page.evaluate(() => window.__demo.gpt.rows.at(-1));
    check(dp.val < 4.0 && dp.train < 4.0, `the GPT trains data parallel on ${gpu} + cpu: validation ${dp.val.toFixed(3)} after 10 steps, ${Math.round(dp.tokensPerS)} tokens/s`);
    await page.selectOption('#gpt-second', '');
  }
  // Cancel mid-training: the worker restarts and the model is gone until trained again.
  await page.fill('#train-epochs', '200');
  await page.click('#train');
  await page.waitForFunction(() => window.__demo.busy && document.querySelector('#train-progress').value >= 4, null, { timeout: 120_000 });
  await page.click('#train-cancel');
  await page.waitForFunction(idle, null, { timeout: 60_000 });
  const afterTrainCancel = await page.evaluate(() => ({ cancelled: window.__demo.cancelled, trained: window.__demo.training.trained }));
  check(afterTrainCancel.cancelled === 2 && !afterTrainCancel.trained, `cancel stops training: ${JSON.stringify(afterTrainCancel)}`);
  await page.waitForFunction(() => /^cancelled$/.test(document.querySelector('#status').textContent), null, { timeout: 60_000 });
  await page.fill('#train-epochs', '3');
  await accessibility(page, '1100 px');
  // Phone width: nothing wider than the screen, legends inside their charts.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check(width <= 390, `the page fits a 390 px phone (scrollWidth ${width})`);
  await page.screenshot({ path: `${shots}/demo-phone.png`, fullPage: true });
  await (await page.$('section[aria-labelledby=train-title]')).screenshot({ path: `${shots}/demo-training-phone.png` });
  await accessibility(page, '390 px');
  check(errors.length === 0, `no console errors${errors.length ? `: ${errors.join('; ')}` : ''}`);
});
// Without WebGPU the page says so and runs on the CPU.
await withPage(`${root}target/www`, '/?iterations=2', async (page, errors) => {
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.waitForFunction(() => window.__demo?.ready, null, { timeout: 120_000 });
  const banner = await page.$eval('#banner', (b) => (b.hidden ? '' : b.textContent));
  check(/WebGPU is not available/.test(banner), `without WebGPU a banner says so: "${banner}"`);
  await page.click('#run');
  await page.waitForFunction(() => window.__demo.runs.cpu && !window.__demo.busy, null, { timeout: 120_000 });
  check(true, 'and the workload runs on the cpu');
  await page.screenshot({ path: `${shots}/demo-no-webgpu.png`, fullPage: true });
  check(errors.length === 0, `no console errors without WebGPU${errors.length ? `: ${errors.join('; ')}` : ''}`);
}, { webgpu: false });
console.log(`screenshots in ${shots}`);
console.log(`${failed ? 'some' : 'all'} checks done: ${failed} failed`);
process.exit(failed ? 1 : 0);
