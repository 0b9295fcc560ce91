// Browser runner: serves the repository on loopback, opens the system Chromium headless through
// playwright-core (never a downloaded browser) with WebGPU enabled, runs the shared cases in a
// page (browser.html), prints each result, and fails if any case failed, the page errored, or
// (with WEBTENSOR_REQUIRE_GPU=1) the browser offered no WebGPU device.
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../..', import.meta.url));
const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

const server = http.createServer(async (req, res) => {
  const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!file.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { port } = server.address();

const profile = await mkdtemp(path.join(tmpdir(), 'webtensor-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-quic', '--enable-unsafe-webgpu'],
});
const page = await context.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
page.on('console', (m) => {
  if (m.type() === 'error') pageErrors.push(m.text());
});
let failed = 0;
try {
  await page.goto(`http://127.0.0.1:${port}/js/test/browser.html`);
  const handle = await page.waitForFunction(() => window.__results, null, { timeout: 300_000 });
  const out = await handle.jsonValue();
  if (out.error) {
    console.log(`page error: ${out.error}`);
    failed++;
  }
  const gpus = (out.devices ?? []).filter((d) => d.name.startsWith('webgpu'));
  console.log(`# chromium devices: ${(out.devices ?? []).map((d) => `${d.name} (${d.adapter})`).join(', ')}`);
  if (!gpus.length && process.env.WEBTENSOR_REQUIRE_GPU === '1') {
    console.log('not ok - WEBTENSOR_REQUIRE_GPU=1 but the browser offered no WebGPU device');
    failed++;
  }
  for (const r of out.results) {
    console.log(r.ok ? `ok - ${r.name}` : `not ok - ${r.name}: ${r.error}`);
    failed += r.ok ? 0 : 1;
  }
  for (const e of pageErrors) console.log(`console error: ${e}`);
  failed += pageErrors.length;
  console.log(`${out.results.filter((r) => r.ok).length} passed, ${failed} failed`);
} finally {
  await context.close();
  server.close();
  await rm(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
