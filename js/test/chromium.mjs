// Shared by the browser tests: serve a directory on loopback and open a page of it in the
// system Chromium, headless, through playwright-core (never a downloaded browser), with WebGPU
// enabled and a fresh profile; everything is torn down afterwards.
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const TYPES = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
};

/**
 * Serves `root`, opens `urlPath` in Chromium and returns what `fn(page, errors)` returns.
 * `{ webgpu: false }` launches without WebGPU (Linux Chromium has none without the flag).
 */
export async function withPage(root, urlPath, fn, { webgpu = true } = {}) {
  const base = path.resolve(root);
  const server = http.createServer(async (req, res) => {
    let p;
    try {
      p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const file = path.join(base, p === '/' ? 'index.html' : p);
    const rel = path.relative(base, file);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      res.writeHead(403).end();
      return;
    }
    let body;
    try {
      body = await readFile(file);
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const profile = await mkdtemp(path.join(tmpdir(), 'webtensor-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-quic', ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
    });
  } catch (e) {
    server.close();
    await rm(profile, { recursive: true, force: true });
    throw e;
  }
  try {
    if (!webgpu) {
      // Hide WebGPU outright, whatever this Chromium enables by default.
      await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined }));
    }
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`http://127.0.0.1:${server.address().port}${urlPath}`);
    return await fn(page, errors);
  } finally {
    await context.close();
    server.close();
    await rm(profile, { recursive: true, force: true });
  }
}
