// The training section of the demo page: train on the selected device (or data parallel over it
// and a second one) with a live chart, progress and cancel; then draw a digit on the pad, or show
// a held-out test image, and see the model's prediction. The work runs in the worker
// (training.js); this file is the page side.
import { probsChart, trainingChart } from './charts.js';

const PAD = 192; // 32 cells of 6 px: the 32x32 bitmaps the UCI images were counted from
// `?epochs=N` sets the default epochs (the end-to-end test uses few on software adapters).
const EPOCHS = Math.min(200, Math.max(1, Math.floor(Number(new URLSearchParams(location.search).get('epochs'))) || 15));

/** The pad's ink as the data's features: cropped to its box, fitted into 32x32 as the NIST
 * preprocessing did, then the dark pixels of each 4x4 block counted (0..16) and divided by 16. */
function features(pad) {
  const { data } = pad.getContext('2d').getImageData(0, 0, PAD, PAD);
  let [x0, y0, x1, y1] = [PAD, PAD, -1, -1];
  for (let y = 0; y < PAD; y++) {
    for (let x = 0; x < PAD; x++) {
      if (data[(y * PAD + x) * 4] < 128) [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  if (x1 < 0) return null;
  const [bw, bh] = [x1 - x0 + 1, y1 - y0 + 1];
  const s = 32 / Math.max(bw, bh);
  const small = document.createElement('canvas');
  small.width = small.height = 32;
  const ctx = small.getContext('2d', { willReadFrequently: true });
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, 32, 32);
  ctx.drawImage(pad, x0, y0, bw, bh, (32 - bw * s) / 2, (32 - bh * s) / 2, bw * s, bh * s);
  const px = ctx.getImageData(0, 0, 32, 32).data;
  const out = new Array(64).fill(0);
  for (let y = 0; y < 32; y++) for (let x = 0; x < 32; x++) if (px[(y * 32 + x) * 4] < 128) out[(y >> 2) * 8 + (x >> 2)] += 1 / 16;
  return out;
}

function clearPad(pad) {
  const ctx = pad.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, PAD, PAD);
}

/** An 8x8 image (values in [0, 1]) drawn on the pad as grey blocks, dark for high counts. */
function paintImage(pad, pixels) {
  const ctx = pad.getContext('2d');
  pixels.forEach((v, i) => {
    const g = Math.round(255 * (1 - v));
    ctx.fillStyle = `rgb(${g},${g},${g})`;
    ctx.fillRect((i % 8) * 24, Math.floor(i / 8) * 24, 24, 24);
  });
}

/**
 * Wires the section to the page: `api` has `$`, `ask` (a worker job), `busy` (one long run at a
 * time, with progress and cancel), `progress`, `state` and `status`. Returns `refresh()`, which
 * the page calls when the selected device changes.
 */
export function setupTraining({ $, ask, busy, progress, state }) {
  const t = { rows: [], trained: false, prediction: null, samplesShown: 0 };
  state.training = t;
  const pad = $('pad');
  clearPad(pad);
  trainingChart($('chart-train'), []);
  $('train-epochs').value = String(EPOCHS);
  const second = $('train-second');
  for (const { name } of state.devices) second.append(new Option(name, name));

  const devices = () => [state.device, ...(second.value && second.value !== state.device ? [second.value] : [])];
  const refresh = () => {
    for (const o of second.options) o.disabled = o.value === state.device;
    if (second.value === state.device) second.value = '';
    $('train').textContent = `Train on ${devices().join(' + ')}`;
  };
  second.onchange = refresh;

  const show = (row, list) => {
    trainingChart($('chart-train'), list);
    $('train-stats').textContent = `epoch ${row.epoch}: loss ${row.loss.toFixed(4)}, train accuracy ${(100 * row.trainAccuracy).toFixed(1)}%, test accuracy ${(100 * row.testAccuracy).toFixed(1)}%, ${row.seconds.toFixed(2)} s, ${Math.round(row.samplesPerS).toLocaleString('en')} samples/s`;
  };

  $('train').onclick = () => {
    const on = devices();
    const epochs = Math.min(200, Math.max(1, Math.floor(Number($('train-epochs').value)) || EPOCHS));
    const label = `training on ${on.join(' + ')}`;
    return busy(label, async () => {
      const rows = [];
      t.rows = rows;
      t.trained = false;
      $('train-caption').textContent = `loss and accuracy by epoch on ${on.join(' + ')}`;
      const r = await ask({ type: 'train', device: state.device, devices: on, epochs }, (m) => {
        if (m.extra?.row) {
          rows.push(m.extra.row);
          show(m.extra.row, rows);
          progress(m.done, m.total, `${label}: epoch`);
        } else {
          progress(m.done, m.total, `${label}: epoch ${m.extra?.epoch ?? ''}, batch`);
        }
      });
      t.rows = r.rows;
      t.trained = true;
      t.devices = on;
      show(r.rows[r.rows.length - 1], r.rows);
      $('prediction').textContent = 'Trained: draw a digit, or show a test image.';
    }, 'train');
  };

  const predict = async (pixels, label) => {
    if (!t.trained) {
      $('prediction').textContent = 'Train the model first, then draw a digit.';
      return;
    }
    const { probs } = await ask({ type: 'predict', pixels });
    const digit = probs.indexOf(Math.max(...probs));
    t.prediction = { digit, probs, label };
    probsChart($('chart-probs'), probs);
    $('prediction').textContent = `The model reads ${digit} (${(100 * probs[digit]).toFixed(1)}%)${label === undefined ? '' : `; the image is labelled ${label}`}.`;
  };

  // Drawing: pointer events cover mouse, pen and touch; a prediction after each stroke.
  let last = null;
  const at = (e) => {
    const r = pad.getBoundingClientRect();
    return [((e.clientX - r.left) / r.width) * PAD, ((e.clientY - r.top) / r.height) * PAD];
  };
  pad.addEventListener('pointerdown', (e) => {
    pad.setPointerCapture(e.pointerId);
    if (t.shownImage) {
      clearPad(pad);
      t.shownImage = false;
    }
    last = at(e);
  });
  pad.addEventListener('pointermove', (e) => {
    if (!last) return;
    const p = at(e);
    const ctx = pad.getContext('2d');
    ctx.strokeStyle = 'black';
    ctx.lineWidth = 16;
    ctx.lineCap = 'round';
    ctx.beginPath();
    ctx.moveTo(...last);
    ctx.lineTo(...p);
    ctx.stroke();
    last = p;
  });
  pad.addEventListener('pointerup', () => {
    last = null;
    const f = features(pad);
    if (f) predict(f).catch((e) => { $('prediction').textContent = `error: ${e.message}`; });
  });
  $('pad-clear').onclick = () => {
    clearPad(pad);
    t.prediction = null;
    $('prediction').textContent = t.trained ? 'Draw a digit.' : 'Train the model, then draw a digit.';
  };
  $('pad-sample').onclick = async () => {
    try {
      const { pixels, label } = await ask({ type: 'test-image', index: t.samplesShown++ });
      paintImage(pad, pixels);
      t.shownImage = true;
      if (t.trained) await predict(pixels, label);
      else $('prediction').textContent = `A held-out image labelled ${label}: train the model to classify it.`;
    } catch (e) {
      // A cancel restarts the worker under a pending request; say so rather than reject unseen.
      $('prediction').textContent = e?.name === 'AbortError' ? 'Cancelled.' : `error: ${e.message}`;
    }
  };
  refresh();
  return refresh;
}
