// The page's compute thread: webtensor lives here, so the page never freezes while a workload
// runs (a CPU k-means takes about a second, a software adapter far longer). Messages in:
// { id, type: 'kmeans' | 'bench' | 'train' | 'predict' | 'test-image' | 'gpt-train' | 'gpt-stop' |
// 'gpt-generate' | 'gpt-checkpoint' | 'gpt-upload' | 'sample', ... }; out:
// { type: 'ready' | 'progress' | 'result' | 'sample' | 'error', id, ... }. Cancelling is the page
// terminating this worker.
import * as wt from 'webtensor';
import { bench, kmeans } from './workload.js';
import { predict, testImage, train } from './training.js';
import * as gpt from './shakespeare.js';

/** Memory counters of `device` and the placement-log entries since the last sample. */
function sample(device) {
  let memory = null;
  try {
    memory = wt.memoryStats(device);
  } catch {
    // A device that failed to open has no counters.
  }
  const log = wt.placementLog();
  wt.clearPlacementLog();
  return { device, memory, log };
}

async function handle(msg) {
  const { id, type } = msg;
  const progress = async (done, total, extra) => {
    postMessage({ type: 'progress', id, done, total, extra, sample: sample(msg.device) });
    // Let a 'sample' request in between steps.
    await new Promise((r) => setTimeout(r, 0));
  };
  if (type === 'kmeans') {
    const t0 = performance.now();
    const r = await kmeans(wt, msg.device, msg.pixels, { iterations: msg.iterations, step: progress });
    const ms = performance.now() - t0;
    postMessage({ type: 'result', id, ms, centroids: r.centroids, labels: r.labels, sample: sample(msg.device) });
  } else if (type === 'bench') {
    const rows = await bench(wt, msg.device, { step: progress });
    postMessage({ type: 'result', id, rows, sample: sample(msg.device) });
  } else if (type === 'train') {
    const onBatch = (done, total, epoch) => progress(done, total, { epoch });
    const onEpoch = (row) => progress(row.epoch, msg.epochs, { row });
    const rows = await train(wt, { devices: msg.devices, epochs: msg.epochs }, onBatch, onEpoch);
    postMessage({ type: 'result', id, rows, sample: sample(msg.device) });
  } else if (type === 'predict') {
    postMessage({ type: 'result', id, probs: await predict(wt, msg.pixels) });
  } else if (type === 'test-image') {
    postMessage({ type: 'result', id, ...(await testImage(wt, msg.index)) });
  } else if (type === 'gpt-train') {
    const report = (row) => progress(row.step, msg.until, row);
    const r = await gpt.train(wt, { devices: msg.devices, until: msg.until, resume: msg.resume, evalEvery: msg.evalEvery, sampleEvery: msg.sampleEvery }, report);
    postMessage({ type: 'result', id, ...r, sample: sample(msg.device) });
  } else if (type === 'gpt-stop') {
    postMessage({ type: 'result', id, ...gpt.stop() });
  } else if (type === 'gpt-generate') {
    postMessage({ type: 'result', id, text: await gpt.generate(wt, msg) });
  } else if (type === 'gpt-checkpoint') {
    const bytes = await gpt.checkpoint(wt);
    postMessage({ type: 'result', id, bytes }, [bytes.buffer]);
  } else if (type === 'gpt-upload') {
    postMessage({ type: 'result', id, ...(await gpt.upload(wt, msg.bytes, msg.devices)) });
  } else if (type === 'sample') {
    postMessage({ type: 'sample', id, sample: sample(msg.device) });
  }
}

self.onmessage = (e) => {
  handle(e.data).catch((err) => postMessage({ type: 'error', id: e.data.id, message: String(err?.message ?? err) }));
};

try {
  const best = await wt.init();
  const devices = wt.devices();
  for (const d of devices) if (d.name !== 'cpu') await wt.open(d.name);
  wt.setLogDevicePlacement(true);
  postMessage({ type: 'ready', best, devices });
} catch (err) {
  postMessage({ type: 'error', id: null, message: `webtensor failed to start: ${err?.message ?? err}` });
}
