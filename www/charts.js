// The page's SVG charts. Each chart is drawn into a viewBox (so it scales to a phone's width),
// with a legend inside the box and a text alternative (aria-label) that states its values.

// Series colours, each at least 4.5:1 against white.
export const COLORS = ['#5b2e91', '#a04e00', '#1d6f66', '#b03020'];
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** A line chart of `series` ([name, [[x, y], ...]]), x on a log scale; `unit` names y. */
export function lineChart(svg, series, { unit, empty, xLabel = (x) => (x >= 1024 ? `${x / 1024}k` : `${x}`) }) {
  const [w, h, m] = [460, 260, 40];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const all = series.flatMap(([, r]) => r);
  if (!all.length) {
    svg.innerHTML = `<text x="${w / 2}" y="${h / 2}" text-anchor="middle">${esc(empty)}</text>`;
    svg.setAttribute('aria-label', empty);
    return;
  }
  const xs = all.map(([x]) => Math.log2(x));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const y1 = Math.max(...all.map(([, y]) => y).filter(Number.isFinite)) * 1.1 || 1;
  const px = (x) => m + ((Math.log2(x) - x0) / (x1 - x0 || 1)) * (w - 2 * m - 70);
  const py = (y) => h - m + 10 - (y / y1) * (h - 2 * m);
  let out = `<line x1="${m}" y1="${h - m + 10}" x2="${w - m - 70}" y2="${h - m + 10}" stroke="#767676"/><line x1="${m}" y1="${m - 10}" x2="${m}" y2="${h - m + 10}" stroke="#767676"/>`;
  out += `<text x="4" y="${m - 14}">${y1.toFixed(1)} ${esc(unit)}</text><text x="4" y="${h - m + 14}">0</text>`;
  const ticks = [...new Set(all.map(([x]) => x))].sort((a, b) => a - b);
  for (const x of ticks) out += `<text x="${px(x) - 12}" y="${h - 12}">${esc(xLabel(x))}</text>`;
  series.forEach(([name, rows], i) => {
    const color = COLORS[i % COLORS.length];
    out += `<polyline points="${rows.map(([x, y]) => `${px(x)},${py(y)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`;
    for (const [x, y] of rows) out += `<circle cx="${px(x)}" cy="${py(y)}" r="3" fill="${color}"/>`;
    // Legend inside the box, right of the plot: a colour swatch and the name in dark text.
    out += `<rect x="${w - 100}" y="${m + i * 18 - 9}" width="10" height="10" fill="${color}"/><text x="${w - 86}" y="${m + i * 18}">${esc(name)}</text>`;
  });
  svg.innerHTML = out;
  const summary = series.map(([name, rows]) => `${name}: ${rows.map(([x, y]) => `${xLabel(x)} ${y.toFixed(2)}`).join(', ')}`).join('; ');
  svg.setAttribute('aria-label', `${svg.dataset.title}, ${unit} by size. ${summary}`);
}

/** Allocated, reserved and peak bytes over time for one device. */
export function memoryChart(svg, samples, device) {
  const [w, h] = [460, 200];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const top = Math.max(1, ...samples.flat());
  const line = (j, color) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="${samples.map((s, i) => `${10 + i * 3.7},${190 - (s[j] / top) * 160}`).join(' ')}"/>`;
  const mib = (b) => (b / 2 ** 20).toFixed(1);
  const last = samples[samples.length - 1] ?? [0, 0, 0];
  svg.innerHTML = line(2, COLORS[3]) + line(1, COLORS[1]) + line(0, COLORS[0])
    + `<text x="12" y="14">scale: ${mib(top)} MiB</text>`
    + [['allocated', 0], ['reserved', 1], ['peak', 2]].map(([name, j], k) => `<rect x="${200 + k * 85}" y="5" width="10" height="10" fill="${[COLORS[0], COLORS[1], COLORS[3]][j]}"/><text x="${214 + k * 85}" y="14">${name}</text>`).join('');
  svg.setAttribute('aria-label', `memory on ${device} over the last ${samples.length} samples: now ${mib(last[0])} MiB allocated, ${mib(last[1])} MiB reserved, peak ${mib(last[2])} MiB`);
}

/** Loss (scaled to its largest value) and train/test accuracy by epoch, on one 0..1 axis. */
export function trainingChart(svg, rows) {
  const [w, h, m] = [460, 240, 36];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  if (!rows.length) {
    svg.innerHTML = `<text x="${w / 2}" y="${h / 2}" text-anchor="middle">Press “Train” to watch the loss fall and the accuracy rise</text>`;
    svg.setAttribute('aria-label', 'training: not run yet');
    return;
  }
  const maxLoss = Math.max(...rows.map((r) => r.loss)) || 1;
  const last = rows[rows.length - 1].epoch;
  const px = (e) => m + ((e - 1) / Math.max(1, last - 1)) * (w - 2 * m - 110);
  const py = (v) => h - m - v * (h - 2 * m);
  const series = [
    ['loss (÷ max)', rows.map((r) => [r.epoch, r.loss / maxLoss])],
    ['train accuracy', rows.map((r) => [r.epoch, r.trainAccuracy])],
    ['test accuracy', rows.map((r) => [r.epoch, r.testAccuracy])],
  ];
  let out = `<line x1="${m}" y1="${h - m}" x2="${w - m - 110}" y2="${h - m}" stroke="#767676"/><line x1="${m}" y1="${m}" x2="${m}" y2="${h - m}" stroke="#767676"/>`;
  out += `<text x="4" y="${m + 4}">100%</text><text x="4" y="${h - m + 4}">0</text><text x="${m}" y="${h - 10}">epoch 1</text><text x="${px(last) - 30}" y="${h - 10}">epoch ${last}</text>`;
  series.forEach(([name, pts], i) => {
    const color = COLORS[i % COLORS.length];
    out += `<polyline points="${pts.map(([x, y]) => `${px(x)},${py(y)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`;
    for (const [x, y] of pts) out += `<circle cx="${px(x)}" cy="${py(y)}" r="2.5" fill="${color}"/>`;
    out += `<rect x="${w - 140}" y="${m + i * 18 - 9}" width="10" height="10" fill="${color}"/><text x="${w - 126}" y="${m + i * 18}">${esc(name)}</text>`;
  });
  out += `<text x="${w - 140}" y="${m + 62}">max loss ${maxLoss.toFixed(3)}</text>`;
  svg.innerHTML = out;
  const r = rows[rows.length - 1];
  svg.setAttribute('aria-label', `training over ${rows.length} epochs: loss ${rows.map((x) => x.loss.toFixed(3)).join(', ')}; after epoch ${r.epoch} train accuracy ${(100 * r.trainAccuracy).toFixed(1)}%, test accuracy ${(100 * r.testAccuracy).toFixed(1)}%`);
}

/** The ten class probabilities as bars, the most likely one highlighted. */
export function probsChart(svg, probs) {
  const [w, h] = [300, 130];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const best = probs.indexOf(Math.max(...probs));
  svg.innerHTML = probs.map((p, d) => {
    const bh = Math.max(1, p * 95);
    const x = 8 + d * 29;
    return `<rect x="${x}" y="${110 - bh}" width="22" height="${bh}" fill="${d === best ? COLORS[0] : COLORS[2]}"/><text x="${x + 7}" y="${125}">${d}</text>`;
  }).join('');
  svg.setAttribute('aria-label', `probabilities by digit: ${probs.map((p, d) => `${d} ${(100 * p).toFixed(1)}%`).join(', ')}`);
}

/** Lines of `series` ([name, [[step, y], ...]]) over training steps, both axes linear from 0. */
export function stepChart(svg, series, { unit, empty, title }) {
  const [w, h, m] = [460, 220, 36];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const all = series.flatMap(([, r]) => r).filter(([, y]) => Number.isFinite(y));
  if (!all.length) {
    svg.innerHTML = `<text x="${w / 2}" y="${h / 2}" text-anchor="middle">${esc(empty)}</text>`;
    svg.setAttribute('aria-label', `${title}: ${empty}`);
    return;
  }
  const x1 = Math.max(...all.map(([x]) => x)) || 1;
  const y1 = Math.max(...all.map(([, y]) => y)) * 1.1 || 1;
  const px = (x) => m + (x / x1) * (w - 2 * m - 90);
  const py = (y) => h - m - (y / y1) * (h - 2 * m);
  let out = `<line x1="${m}" y1="${h - m}" x2="${w - m - 90}" y2="${h - m}" stroke="#767676"/><line x1="${m}" y1="${m}" x2="${m}" y2="${h - m}" stroke="#767676"/>`;
  out += `<text x="4" y="${m - 6}">${y1 >= 100 ? Math.round(y1).toLocaleString('en') : y1.toFixed(2)} ${esc(unit)}</text><text x="4" y="${h - m + 4}">0</text>`;
  out += `<text x="${m}" y="${h - 10}">step 0</text><text x="${px(x1) - 40}" y="${h - 10}">step ${x1}</text>`;
  series.forEach(([name, rows], i) => {
    const color = COLORS[i % COLORS.length];
    const pts = rows.filter(([, y]) => Number.isFinite(y));
    out += `<polyline points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`;
    out += `<rect x="${w - 120}" y="${m + i * 18 - 9}" width="10" height="10" fill="${color}"/><text x="${w - 106}" y="${m + i * 18}">${esc(name)}</text>`;
  });
  svg.innerHTML = out;
  const last = series.map(([name, rows]) => {
    const pts = rows.filter(([, y]) => Number.isFinite(y));
    const [x, y] = pts[pts.length - 1] ?? [0, NaN];
    return `${name} ${Number.isFinite(y) ? y.toFixed(y >= 100 ? 0 : 3) : 'none'} at step ${x}`;
  }).join('; ');
  svg.setAttribute('aria-label', `${title} by step, ${unit}: ${last}`);
}
