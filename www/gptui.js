// The Shakespeare section of the demo page: train nanoGPT's character model on the selected
// device (or data parallel over it and a second one) with live loss, tokens/s and memory charts
// and a sample as it improves; stop and resume; save the weights or load a checkpoint; continue
// a prompt with temperature and top-k. The work runs in the worker (shakespeare.js); this file is
// the page side.
import { stepChart } from './charts.js';

const params = new URLSearchParams(location.search);
const num = (k, d, lo, hi) => Math.min(hi, Math.max(lo, Math.floor(Number(params.get(k))) || d));
// `?gptSteps=N&gptEval=E&gptSample=S` shorten a run (the end-to-end test uses few steps).
const STEPS = num('gptSteps', 1000, 1, 20000);
const EVAL_EVERY = num('gptEval', 50, 1, 20000);
const SAMPLE_EVERY = num('gptSample', 200, 1, 20000);
// `?gptSeed=S` makes generation repeatable (the test compares a checkpoint's text before and after).
const SEED = params.has('gptSeed') ? num('gptSeed', 0, 0, 2 ** 31) : undefined;

/**
 * Wires the section to the page: `api` has `$`, `ask` (a worker job), `busy` (one long run at a
 * time, with progress and a stop button), `progress` and `state`. Returns `refresh()`, which the
 * page calls when the selected device changes.
 */
export function setupShakespeare({ $, ask, busy, progress, state }) {
  const g = { rows: [], memory: [], step: 0, target: 0, trained: false, samples: [], generated: null, stopped: false };
  state.gpt = g;
  $('gpt-steps').value = String(STEPS);
  const second = $('gpt-second');
  for (const { name } of state.devices) second.append(new Option(name, name));
  const devices = () => [state.device, ...(second.value && second.value !== state.device ? [second.value] : [])];

  const draw = () => {
    const rows = g.rows;
    stepChart($('chart-gpt-loss'), [
      ['train (batch)', rows.filter((r) => r.loss !== undefined).map((r) => [r.step, r.loss])],
      ['train (eval)', rows.filter((r) => r.train !== undefined).map((r) => [r.step, r.train])],
      ['validation', rows.filter((r) => r.val !== undefined).map((r) => [r.step, r.val])],
    ], { unit: 'nats', title: 'loss', empty: 'Press “Train” to watch the loss fall' });
    stepChart($('chart-gpt-speed'), [['tokens/s', rows.filter((r) => r.tokensPerS !== undefined).map((r) => [r.step, r.tokensPerS])]],
      { unit: 'tokens/s', title: 'speed', empty: 'tokens per second appear while training' });
    stepChart($('chart-gpt-memory'), [['allocated', g.memory]], { unit: 'MiB', title: 'memory', empty: 'memory appears while training' });
  };
  const refresh = () => {
    for (const o of second.options) o.disabled = o.value === state.device;
    if (second.value === state.device) second.value = '';
    $('gpt-train').textContent = `Train on ${devices().join(' + ')}`;
    $('gpt-resume').disabled = !g.stopped && !g.trained;
    $('gpt-download').disabled = !g.trained;
    $('gpt-memory-caption').textContent = `memory allocated on ${devices()[0]}`;
  };
  second.onchange = refresh;

  const trainTo = (until, resume) => {
    const on = devices();
    const label = `GPT on ${on.join(' + ')}`;
    return busy(label, async () => {
      if (!resume) {
        g.rows = [];
        g.memory = [];
        g.samples = [];
      }
      g.target = until;
      g.stopped = false;
      const r = await ask({ type: 'gpt-train', device: on[0], devices: on, until, resume, evalEvery: EVAL_EVERY, sampleEvery: SAMPLE_EVERY }, (m) => {
        const row = m.extra;
        g.rows.push(row);
        g.step = row.step;
        if (m.sample?.memory) g.memory.push([row.step, m.sample.memory.allocated / 2 ** 20]);
        if (row.sample !== undefined) {
          g.samples.push({ step: row.step, text: row.sample });
          $('gpt-sample').textContent = `step ${row.step}:\n${row.sample}`;
        }
        if (row.val !== undefined) {
          $('gpt-stats').textContent = `step ${row.step}: train loss ${row.train.toFixed(3)}, validation loss ${row.val.toFixed(3)}`;
        }
        progress(row.step, until, `${label}: step`);
        draw();
      });
      g.step = r.step;
      g.stopped = r.stopped;
      g.trained = true;
      refresh();
      $('gpt-output').textContent = r.stopped ? `Stopped at step ${r.step}: resume, or generate from it.` : `Trained ${r.step} steps: write a prompt and generate.`;
    }, 'gpt').finally(refresh);
  };

  const stepsWanted = () => Math.min(20000, Math.max(1, Math.floor(Number($('gpt-steps').value)) || STEPS));
  $('gpt-train').onclick = () => trainTo(stepsWanted(), false);
  $('gpt-resume').onclick = () => (g.trained || g.stopped ? trainTo(g.stopped ? g.target : g.step + stepsWanted(), true) : trainTo(stepsWanted(), false));
  $('gpt-stop').onclick = () => ask({ type: 'gpt-stop' }).catch(() => {});

  $('gpt-generate').onclick = () => busy('generating', async () => {
    const temperature = Math.min(2, Math.max(0.1, Number($('gpt-temperature').value) || 0.8));
    const topK = Math.min(65, Math.max(1, Math.floor(Number($('gpt-topk').value)) || 20));
    const tokens = Math.min(1000, Math.max(1, Math.floor(Number($('gpt-tokens').value)) || 200));
    const prompt = $('gpt-prompt').value;
    try {
      const { text } = await ask({ type: 'gpt-generate', prompt, tokens, temperature, topK, seed: SEED });
      g.generated = { prompt, text };
      $('gpt-output').textContent = prompt + text;
    } catch (e) {
      if (e?.name === 'AbortError') throw e;
      $('gpt-output').textContent = `error: ${e.message}`;
    }
  }, 'gpt');

  $('gpt-download').onclick = async () => {
    try {
      const { bytes } = await ask({ type: 'gpt-checkpoint' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      a.download = `shakespeare-gpt-step${g.step}.safetensors`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      $('gpt-output').textContent = `Saved the weights at step ${g.step} (${bytes.length.toLocaleString('en')} bytes): \`webtensor sample --checkpoint ${a.download}\` reads them too.`;
    } catch (e) {
      $('gpt-output').textContent = `error: ${e.message}`;
    }
  };
  $('gpt-upload').onchange = async (e) => {
    const file = e.target.files?.[0];
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    await busy(`loading ${file.name}`, async () => {
      try {
        const r = await ask({ type: 'gpt-upload', bytes, devices: devices() }, undefined, [bytes.buffer]);
        Object.assign(g, { trained: true, stopped: false, step: r.step, rows: [], memory: [], samples: [] });
        draw();
        $('gpt-output').textContent = `Loaded ${file.name} (${r.config.n_layer} layers, ${r.config.n_embd} wide, step ${r.step}): generate from it, or resume training.`;
      } catch (err) {
        if (err?.name === 'AbortError') throw err;
        $('gpt-output').textContent = `error: ${err.message}`;
      }
    }, 'gpt');
    e.target.value = '';
    refresh();
  };
  draw();
  refresh();
  return refresh;
}
