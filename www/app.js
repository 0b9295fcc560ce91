// The demo page: devices, the k-means workload on a canvas per device, training on handwritten
// digits (trainui.js), a GPT on Shakespeare (gptui.js), a benchmark chart, and a memory/placement panel. webtensor runs in a Worker (worker.js), so the page stays responsive;
// every long run shows progress and can be cancelled (the worker is terminated and restarted).
// One value, state.device, is the selected device: every caption, the memory chart and the
// placement log follow it. Built from the package itself (vite.config.js aliases `webtensor`).
import { lineChart, memoryChart } from './charts.js';
import { setupTraining } from './trainui.js';
import { setupShakespeare } from './gptui.js';

const W = 480;
const H = 320;
const K = 8;
// `?iterations=N` shortens the workload (the end-to-end test uses it on slow software adapters).
const ITERATIONS = Math.min(1000, Math.max(1, Math.floor(Number(new URLSearchParams(location.search).get('iterations'))) || 12));
const $ = (id) => document.getElementById(id);
const state = { device: 'cpu', devices: [], runs: {}, bench: {}, ready: false, busy: null, cancelled: 0, progressEvents: 0 };
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

/** A canvas that shows a hint instead of a picture (before the first run). */
function hintCanvas(canvas, text) {
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ece8f5';
  ctx.fillRect(0, 0, W, H);
  ctx.fillStyle = '#3d3850';
  ctx.font = '20px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.fillText(text, W / 2, H / 2);
}

const hex = (v) => Math.round(v * 255).toString(16).padStart(2, '0');
const paletteOf = (centroids) => Array.from({ length: K }, (_, k) => `#${centroids.slice(k * 3, k * 3 + 3).map(hex).join('')}`);

// --- the worker ------------------------------------------------------------------------------
let worker = null;
let nextId = 1;
const pending = new Map(); // id -> { resolve, reject, onProgress }

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const ready = new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => {
      if (data.type === 'ready') resolve(data);
      else if (data.type === 'error' && data.id === null) reject(new Error(data.message));
      else receive(data);
    };
    worker.onerror = (e) => reject(new Error(e.message || 'the worker failed to load'));
  });
  return ready;
}

function receive(data) {
  if (data.sample) takeSample(data.sample);
  const job = pending.get(data.id);
  if (!job) return;
  if (data.type === 'progress') job.onProgress?.(data);
  else {
    pending.delete(data.id);
    if (data.type === 'error') job.reject(new Error(data.message));
    else job.resolve(data);
  }
}

/** Sends a job to the worker; resolves with its result. */
function ask(msg, onProgress, transfer = []) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ ...msg, id }, transfer);
  });
}

/** Cancels the running job: the worker (and its GPU work) is terminated and a fresh one started. */
async function cancel() {
  if (!state.busy) return;
  worker.terminate();
  for (const job of pending.values()) job.reject(new DOMException('cancelled', 'AbortError'));
  pending.clear();
  state.cancelled++;
  if (state.training) state.training.trained = false; // the models lived in the old worker
  if (state.gpt) Object.assign(state.gpt, { trained: false, stopped: false });
  refreshTraining();
  status('cancelled; restarting the compute worker…');
  await startWorker();
  status('cancelled');
}

// --- the selected device and what follows it -------------------------------------------------
const samples = {}; // device -> [[allocated, reserved, peak], ...]
let placements = []; // { op, inputs, output, fallback }

function takeSample({ device, memory, log }) {
  if (memory) {
    const list = (samples[device] ??= []);
    list.push([memory.allocated, memory.reserved, memory.peak]);
    if (list.length > 120) list.shift();
  }
  placements = [...placements, ...log].slice(-200);
  if (device === state.device) renderMemory();
}

function renderMemory() {
  const d = state.device;
  memoryChart($('chart-memory'), samples[d] ?? [], d);
  $('memory-caption').textContent = `memory on ${d}: allocated, reserved and peak bytes`;
  $('placement-title').textContent = `placement log on ${d} (latest)`;
  const mine = placements.filter((p) => p.output === d).slice(-15).reverse();
  $('placement').innerHTML = mine.length
    ? mine.map((p) => `<li>${p.op} [${p.inputs.join(', ')}] → ${p.output}${p.fallback ? ` (fell back: ${p.fallback})` : ''}</li>`).join('')
    : `<li>no ops on ${d} yet</li>`;
}

function renderRun() {
  const d = state.device;
  const run = state.runs[d];
  const canvas = $('quantised');
  if (run) {
    paint(canvas, (i) => {
      const k = run.labels[i] * 3;
      return [run.centroids[k], run.centroids[k + 1], run.centroids[k + 2]];
    });
    $('quantised-caption').textContent = `8 colours on ${d}, ${run.ms.toFixed(0)} ms`;
    canvas.setAttribute('aria-label', `The sunset reduced to 8 colours on ${d} in ${run.ms.toFixed(0)} ms; palette ${paletteOf(run.centroids).join(', ')}`);
  } else {
    hintCanvas(canvas, `Press “Run” to quantise on ${d}`);
    $('quantised-caption').textContent = `8 colours on ${d}: not run yet`;
    canvas.setAttribute('aria-label', `Not run on ${d} yet: press Run to reduce the sunset to 8 colours there`);
  }
}

let refreshTrainingSections = [];
const refreshTraining = () => refreshTrainingSections.forEach((f) => f());

function select(device) {
  state.device = device;
  refreshTraining();
  for (const r of document.querySelectorAll('input[name=device]')) r.checked = r.value === device;
  $('run').textContent = `Run on ${device}`;
  renderRun();
  renderMemory();
}

function agreement(device, run) {
  const cpu = state.runs.cpu;
  if (device === 'cpu') return 'reference';
  if (!cpu) return 'run cpu to compare';
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
    const colours = paletteOf(run.centroids);
    const palette = colours.map((c) => `<span class="swatch" style="background:${c}"></span>`).join('');
    tr.innerHTML = `<td>${device}</td><td>${run.ms.toFixed(1)}</td><td>${agreement(device, run)}</td><td><span role="img" aria-label="palette ${colours.join(' ')}">${palette}</span></td>`;
    body.append(tr);
  }
}

function renderCharts() {
  const series = (key) => Object.entries(state.bench).map(([d, rows]) => [d, rows[key]]);
  lineChart($('chart-matmul'), series('matmul'), { unit: 'GFLOP/s', empty: 'Press “Benchmark” to measure matmul on every device' });
  lineChart($('chart-add'), series('add'), { unit: 'GB/s', empty: 'Press “Benchmark” to measure add on every device' });
}

// --- long runs: progress, cancel, one at a time ------------------------------------------------
function status(text) {
  $('status').textContent = text;
}

// Where a run shows its progress and cancel button: the k-means section's or the training's.
const PANELS = {
  workload: { box: 'progress-box', bar: 'progress', label: 'progress-label', cancel: 'cancel' },
  train: { box: 'train-progress-box', bar: 'train-progress', label: 'train-progress-label', cancel: 'train-cancel' },
  // The GPT's button stops the run at the next step (it can resume) instead of ending the worker.
  gpt: { box: 'gpt-progress-box', bar: 'gpt-progress', label: 'gpt-progress-label', cancel: 'gpt-stop' },
};

async function busy(label, f, panel = 'workload') {
  const token = {};
  const ui = PANELS[panel];
  state.busy = token;
  state.panel = ui;
  document.querySelectorAll('button.work').forEach((b) => { b.disabled = true; });
  $(ui.cancel).disabled = false;
  $(ui.box).hidden = false;
  progress(0, 1, label);
  try {
    await f();
    status(`done: ${label}`);
  } catch (e) {
    if (e?.name !== 'AbortError') {
      status(`error: ${e.message}`);
      throw e;
    }
  } finally {
    if (state.busy === token) state.busy = null;
    document.querySelectorAll('button.work').forEach((b) => { b.disabled = false; });
    $(ui.cancel).disabled = true;
    $(ui.box).hidden = true;
  }
}

function progress(done, total, label) {
  const ui = state.panel ?? PANELS.workload;
  state.progressEvents++;
  $(ui.bar).max = total;
  $(ui.bar).value = done;
  $(ui.label).textContent = `${label}: ${done} of ${total}`;
  status(`${label}: ${done} of ${total}`);
}

async function runOn(device, pixels) {
  const label = `k-means on ${device}`;
  const r = await ask({ type: 'kmeans', device, pixels, iterations: ITERATIONS }, (m) => progress(m.done, m.total, label));
  state.runs[device] = { ms: r.ms, centroids: Array.from(r.centroids), labels: r.labels };
  if (device === state.device) renderRun();
  showTimings();
}

async function benchAll() {
  for (const { name } of state.devices) {
    const label = `benchmark on ${name}`;
    const r = await ask({ type: 'bench', device: name }, (m) => {
      progress(m.done, m.total, label);
      state.bench[name] = m.extra;
      renderCharts();
    });
    state.bench[name] = r.rows;
    renderCharts();
  }
}

async function main() {
  const pixels = draw();
  paint($('original'), (i) => [pixels[i * 3], pixels[i * 3 + 1], pixels[i * 3 + 2]]);
  hintCanvas($('quantised'), 'Starting webtensor…');
  renderCharts();
  status('loading webtensor in a worker…');
  const { best, devices } = await startWorker();
  state.devices = devices;
  const body = $('devices').querySelector('tbody');
  devices.forEach((d, i) => {
    const tr = document.createElement('tr');
    const kind = `${d.type}${d.fallback && d.type !== 'software' ? ' (software)' : ''}`;
    tr.innerHTML = `<td><input type="radio" name="device" id="device-${i}" value="${d.name}"></td>
      <td><label for="device-${i}">${d.name}</label></td><td>${d.backend}</td><td>${kind}</td><td>${d.adapter}</td><td>${d.features.join(', ')}</td>`;
    body.append(tr);
  });
  document.querySelectorAll('input[name=device]').forEach((r) => r.addEventListener('change', () => select(r.value)));
  if (!devices.some((d) => d.name.startsWith('webgpu'))) {
    $('banner').hidden = false;
    $('banner').textContent = 'WebGPU is not available in this browser: everything runs on the CPU (inside WebAssembly).';
  }
  refreshTrainingSections = [setupTraining({ $, ask, busy, progress, state }), setupShakespeare({ $, ask, busy, progress, state })];
  select(best);
  setInterval(() => {
    if (!state.busy) ask({ type: 'sample', device: state.device }).catch(() => {});
  }, 500);
  $('run').onclick = () => busy(`k-means on ${state.device}`, () => runOn(state.device, pixels.slice()));
  $('run-all').onclick = () => busy('k-means on every device', async () => {
    for (const d of ['cpu', ...devices.map((x) => x.name).filter((n) => n !== 'cpu')]) await runOn(d, pixels.slice());
  });
  $('bench').onclick = () => busy('benchmark', benchAll);
  $('cancel').onclick = () => cancel();
  $('train-cancel').onclick = () => cancel();
  status(`ready: best device ${best}`);
  state.ready = true;
}

main().catch((e) => {
  status(`error: ${e.message}`);
  console.error(e);
});
