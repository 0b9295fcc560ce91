// The demo page: devices, the k-means workload on a canvas per device, a benchmark chart, and a
// memory/placement panel. Built from the package itself (vite.config.js aliases `webtensor` to
// the package's browser entry).
import * as wt from 'webtensor';

const W = 480;
const H = 320;
const K = 8;
// `?iterations=N` shortens the workload (the end-to-end test uses it on slow software adapters).
const ITERATIONS = Math.min(1000, Math.max(1, Math.floor(Number(new URLSearchParams(location.search).get('iterations'))) || 12));
const $ = (id) => document.getElementById(id);
const state = { device: 'cpu', runs: {}, bench: {}, ready: false };
window.__demo = state;

/** The same sunset the native demo draws, RGB in [0, 1]. */
function draw() {
  const px = new Float32Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const fx = x / W;
      const fy = y / H;
      let c = [0.35 + 0.6 * fy, 0.2 + 0.45 * fy * fy, 0.55 - 0.35 * fy];
      const sx = fx - 0.68;
      const sy = fy - 0.42;
      if (sx * sx * 2.2 + sy * sy < 0.012) c = [1, 0.85, 0.45];
      if (fy > 0.55 + 0.07 * Math.sin(fx * 11) + 0.04 * Math.sin(fx * 29 + 1)) c = [0.32, 0.22, 0.38];
      if (fy > 0.68 + 0.06 * Math.sin(fx * 7 + 2) + 0.03 * Math.cos(fx * 23)) c = [0.12 + 0.1 * fx, 0.16, 0.2];
      if (fy > 0.82) {
        const r = 0.04 * Math.sin(fy * 140 + Math.sin(fx * 9) * 3);
        c = [0.2 + 0.4 * (1 - fy) + r, 0.18 + r, 0.35 + r];
      }
      px.set(c.map((v) => Math.min(1, Math.max(0, v))), (y * W + x) * 3);
    }
  }
  return px;
}

function paint(canvas, rgbAt) {
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(W, H);
  for (let i = 0; i < W * H; i++) {
    const [r, g, b] = rgbAt(i);
    img.data.set([r * 255, g * 255, b * 255, 255], i * 4);
  }
  ctx.putImageData(img, 0, 0);
}

/** k-means on `device`: distances by matmul, argmin, one-hot by broadcast eq, sums by matmul. */
async function kmeans(device, pixels, iterations = ITERATIONS) {
  const n = pixels.length / 3;
  const p = wt.tensor(pixels, { device, shape: [n, 3] });
  const picks = wt.tensor(Int32Array.from({ length: K }, (_, k) => Math.floor((k * n) / K + n / (2 * K))), { device, dtype: 'int32' });
  let c = p.indexSelect(0, picks);
  picks.dispose();
  const pSq = p.square().sum(1, true);
  const ids = wt.arange(0, K, 1, { device, dtype: 'int32' });
  let labels = null;
  try {
    for (let i = 0; i < iterations; i++) {
      const out = wt.tidy(() => {
        const dist = p.matmul(c.t()).mul(-2).add(pSq).add(c.square().sum(1));
        const lab = dist.argmin(1);
        const onehot = lab.unsqueeze(1).eq(ids).toDtype('float32');
        const counts = onehot.sum(0);
        const mean = onehot.t().matmul(p).div(counts.clamp(1).unsqueeze(1));
        return { next: counts.gt(0).unsqueeze(1).where(mean, c), lab };
      });
      c.dispose();
      labels?.dispose();
      c = out.next;
      labels = out.lab;
    }
    return { centroids: await c.data(), labels: await labels.data() };
  } finally {
    for (const t of [p, c, pSq, ids, labels]) t?.dispose();
  }
}

const hex = (v) => Math.round(v * 255).toString(16).padStart(2, '0');

async function runOn(device, pixels) {
  const t0 = performance.now();
  const r = await kmeans(device, pixels);
  await wt.synchronize(device);
  const ms = performance.now() - t0;
  state.runs[device] = { ms, centroids: Array.from(r.centroids), labels: r.labels };
  paint($('quantised'), (i) => {
    const k = r.labels[i] * 3;
    return [r.centroids[k], r.centroids[k + 1], r.centroids[k + 2]];
  });
  $('quantised-caption').textContent = `8 colours on ${device}, ${ms.toFixed(0)} ms`;
  sampleMemory();
  return state.runs[device];
}

function agreement(run) {
  const cpu = state.runs.cpu;
  if (!cpu || run === cpu) return run === cpu ? 'reference' : 'run cpu to compare';
  const diff = Math.max(...run.centroids.map((v, i) => Math.abs(v - cpu.centroids[i])));
  let same = 0;
  run.labels.forEach((l, i) => { same += l === cpu.labels[i] ? 1 : 0; });
  run.agrees = diff < 1e-3 && same / run.labels.length > 0.999;
  return `${run.agrees ? 'yes' : 'NO'} (max diff ${diff.toExponential(1)}, ${(100 * same / run.labels.length).toFixed(2)}% same)`;
}

function showTimings() {
  const body = $('timings').querySelector('tbody');
  body.innerHTML = '';
  for (const [device, run] of Object.entries(state.runs)) {
    const tr = document.createElement('tr');
    const palette = Array.from({ length: K }, (_, k) => {
      const c = run.centroids.slice(k * 3, k * 3 + 3);
      return `<span class="swatch" style="background:#${c.map(hex).join('')}"></span>`;
    }).join('');
    tr.innerHTML = `<td>${device}</td><td>${run.ms.toFixed(1)}</td><td>${agreement(run)}</td><td>${palette}</td>`;
    body.append(tr);
  }
}

async function median(device, runs, f) {
  (await f()).dispose();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const out = f();
    await wt.synchronize(device);
    // Browsers coarsen timers (to 0.1 ms or more): a floor keeps rates finite.
    times.push(Math.max(performance.now() - t0, 0.05));
    (await out).dispose();
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

async function bench() {
  for (const d of wt.devices()) {
    const device = d.name;
    const rows = { matmul: [], add: [] };
    for (const n of [64, 128, 256, 512]) {
      const a = wt.randn([n, n], { device, seed: 1 });
      try {
        const ms = await median(device, 3, () => a.matmul(a));
        rows.matmul.push([n, (2 * n ** 3) / ms / 1e6]);
      } finally {
        a.dispose();
      }
    }
    for (const e of [16, 18, 20, 22]) {
      const n = 2 ** e;
      const a = wt.ones([n], { device });
      try {
        const ms = await median(device, 3, () => a.add(a));
        rows.add.push([n, (12 * n) / ms / 1e6]);
      } finally {
        a.dispose();
      }
    }
    state.bench[device] = rows;
    chart($('chart-matmul'), 'matmul');
    chart($('chart-add'), 'add');
  }
}

const COLORS = ['#5b2e91', '#e07a1f', '#2a9d8f', '#c0392b'];

/** A small line chart of state.bench[*][key], log-scaled x. */
function chart(svg, key) {
  const series = Object.entries(state.bench).map(([device, rows]) => [device, rows[key]]);
  const all = series.flatMap(([, r]) => r);
  if (!all.length) return;
  const [w, h, m] = [460, 260, 40];
  const xs = all.map(([x]) => Math.log2(x));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const y1 = Math.max(...all.map(([, y]) => y).filter(Number.isFinite)) * 1.1 || 1;
  const px = (x) => m + ((Math.log2(x) - x0) / (x1 - x0 || 1)) * (w - 2 * m);
  const py = (y) => h - m + 10 - (y / y1) * (h - 2 * m);
  let out = `<line x1="${m}" y1="${h - m + 10}" x2="${w - m}" y2="${h - m + 10}" stroke="#999"/><line x1="${m}" y1="${m - 10}" x2="${m}" y2="${h - m + 10}" stroke="#999"/>`;
  out += `<text x="4" y="${m - 14}">${y1.toFixed(1)}</text><text x="4" y="${h - m + 14}">0</text>`;
  series[0][1].forEach(([x]) => { out += `<text x="${px(x) - 12}" y="${h - 12}">${x >= 1024 ? `${x / 1024}k` : x}</text>`; });
  series.forEach(([device, rows], i) => {
    const pts = rows.map(([x, y]) => `${px(x)},${py(y)}`).join(' ');
    out += `<polyline points="${pts}" fill="none" stroke="${COLORS[i % 4]}" stroke-width="2"/>`;
    rows.forEach(([x, y]) => { out += `<circle cx="${px(x)}" cy="${py(y)}" r="3" fill="${COLORS[i % 4]}"/>`; });
    out += `<text x="${w - m - 60}" y="${m + i * 14}" style="fill:${COLORS[i % 4]}">${device}</text>`;
  });
  svg.innerHTML = out;
}

const memory = [];
let recent = []; // the latest placement-log entries shown (the log itself is emptied as read)
function sampleMemory() {
  const d = state.device;
  memory.push([wt.memoryAllocated(d), wt.memoryReserved(d), wt.maxMemoryAllocated(d)]);
  if (memory.length > 120) memory.shift();
  const top = Math.max(1, ...memory.flat());
  const line = (j, color) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="${memory.map((m, i) => `${10 + i * 3.7},${190 - (m[j] / top) * 170}`).join(' ')}"/>`;
  $('chart-memory').innerHTML = line(2, '#c0392b') + line(1, '#e07a1f') + line(0, '#5b2e91')
    + `<text x="12" y="14">peak ${(top / 2 ** 20).toFixed(1)} MiB (red), reserved (orange), allocated (purple)</text>`;
  $('memory-caption').textContent = `memory on ${d}`;
  recent = [...recent, ...wt.placementLog()].slice(-15);
  wt.clearPlacementLog();
  $('placement').innerHTML = [...recent].reverse()
    .map((p) => `<li>${p.op} [${p.inputs.join(', ')}] → ${p.output}${p.fallback ? ` (fell back: ${p.fallback})` : ''}</li>`).join('');
}

async function busy(button, f) {
  document.querySelectorAll('button').forEach((b) => { b.disabled = true; });
  try {
    await f();
    $('status').textContent = 'done';
  } catch (e) {
    $('status').textContent = `error: ${e.message}`;
    throw e;
  } finally {
    document.querySelectorAll('button').forEach((b) => { b.disabled = false; });
  }
}

async function main() {
  const best = await wt.init();
  state.device = best;
  const list = wt.devices();
  const body = $('devices').querySelector('tbody');
  for (const d of list) {
    if (d.name !== 'cpu') await wt.open(d.name);
    const tr = document.createElement('tr');
    tr.innerHTML = `<td><input type="radio" name="device" value="${d.name}" ${d.name === best ? 'checked' : ''}></td>
      <td>${d.name}</td><td>${d.backend}</td><td>${d.type}${d.fallback && d.type !== 'software' ? ' (software)' : ''}</td><td>${d.adapter}</td><td>${d.features.join(', ')}</td>`;
    body.append(tr);
  }
  document.querySelectorAll('input[name=device]').forEach((r) => r.addEventListener('change', () => { state.device = r.value; }));
  if (!list.some((d) => d.name.startsWith('webgpu'))) {
    $('banner').hidden = false;
    $('banner').textContent = 'WebGPU is not available in this browser: everything runs on the CPU (inside WebAssembly).';
  }
  const pixels = draw();
  paint($('original'), (i) => [pixels[i * 3], pixels[i * 3 + 1], pixels[i * 3 + 2]]);
  wt.setLogDevicePlacement(true);
  setInterval(sampleMemory, 500);
  sampleMemory();
  $('run').onclick = () => busy($('run'), async () => { await runOn(state.device, pixels); showTimings(); });
  $('run-all').onclick = () => busy($('run-all'), async () => {
    for (const d of ['cpu', ...list.map((x) => x.name).filter((n) => n !== 'cpu')]) await runOn(d, pixels);
    showTimings();
  });
  $('bench').onclick = () => busy($('bench'), bench);
  $('status').textContent = `ready: best device ${best}`;
  state.ready = true;
}

main().catch((e) => {
  $('status').textContent = `error: ${e.message}`;
  console.error(e);
});
