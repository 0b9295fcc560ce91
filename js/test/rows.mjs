// Reductions over the last dim of contiguous rows of every length around the CPU's vector
// widths (in wasm: the tap folds, four rows at a time, up to 3; from 4 the extremes a row at a
// time in vectors of four with a last load that overlaps, the sums four rows at a time up to
// 16 and a row at a time beyond), checked element by element against a JS reference with
// PyTorch's rules: NaN wins, the first of equal extremes (-0 and +0 included) is the one kept,
// the arg forms give the first position of the extreme (of the first NaN); and the sums, on
// the CPU to the bit in the order its kernels add (GPUs add in trees: to rounding).
import { assert } from './assert.mjs';

/** Rows of `k` for `n` rows from `value(row, col)`. */
function rows(n, k, value) {
  return Float32Array.from({ length: n * k }, (_, i) => value(Math.floor(i / k), i % k));
}

/** The first position of the maximum (`better` = greater) or minimum of `row`, NaN first. */
function firstBest(row, better) {
  const nan = row.findIndex((v) => Number.isNaN(v));
  if (nan >= 0) return nan;
  let at = 0;
  for (let j = 1; j < row.length; j++) if (better(row[j], row[at])) at = j;
  return at;
}

/**
 * The CPU's f32 row sum, bit for bit: in f64, in order from the first element for rows of up
 * to 16; longer rows in eight lanes (element i into lane i % 8, in order), the lanes then
 * added as ((l0 + l2) + (l4 + l6)) + ((l1 + l3) + (l5 + l7)). Rounded once to f32.
 */
function cpuSum(row) {
  if (row.length <= 16) return Math.fround(row.reduce((a, v) => a + v, 0));
  const l = new Array(8).fill(0);
  row.forEach((v, i) => { l[i % 8] += v; });
  return Math.fround(((l[0] + l[2]) + (l[4] + l[6])) + ((l[1] + l[3]) + (l[5] + l[7])));
}

const show = (v) => (Object.is(v, -0) ? '-0' : String(v));

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function rowCases(wt, devices) {
  const list = [];
  const lengths = [1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 20, 31, 32, 33, 64, 100];
  // Values whose sums depend on the order; ties and both zeros, no NaN; rows whose extreme is a zero; then the extreme at the row's last position; then NaN in
  // every third row at a position that moves along the row.
  const ties = [0, -0, 1, -1, 2, -2, 0.5, -0, 2, -2];
  // Rows whose maximum (then minimum) is a zero, with both zeros in them.
  const [belowZero, aboveZero] = [[-1, -0, -2, 0, -0, -3, 0], [1, 0, 2, -0, 0, 3, -0]];
  // Magnitudes 2^60 apart, whose f64 sums depend on the order of the adds.
  const far = [2 ** 60, 1, -(2 ** 60), 3, 0.5, -(2 ** 61), 2 ** 61, 7];
  const data = {
    'far magnitudes': (r, c) => far[(r * 5 + c * c + 3 * c) % far.length],
    // 2^60, 1 and -2^60 at consecutive places (by the row), zeros elsewhere: 0 or 1 by order.
    cancelling: (r, c, k) => [2 ** 60, 1, -(2 ** 60)][(c - r + 3 * k) % k] ?? 0,
    ties: (r, c) => ties[(r * 7 + c * c * 3 + c) % ties.length],
    'zeros at the top': (r, c) => belowZero[(r * 3 + c * c * 5 + 2 * c) % belowZero.length],
    'zeros at the bottom': (r, c) => aboveZero[(r * 3 + c * c * 5 + 2 * c) % aboveZero.length],
    // The first zero in a later lane than the second (element 2, then 9): the lanes of a
    // long row meet in lane order, and the first must still win.
    'zeros across lanes, max': (r, c) => (c === 2 ? -0 : c === 9 ? 0 : -1),
    'zeros across lanes, min': (r, c) => (c === 2 ? 0 : c === 9 ? -0 : 1),
    'extreme last': (r, c, k) => (c === k - 1 ? (r % 2 ? 100 : -100) : Math.sin(r * k + c)),
    nan: (r, c, k) => (r % 3 === 0 && c === (r * 5) % k ? NaN : c % 5 === 1 ? Infinity * (r % 2 ? 1 : -1) : Math.cos(r + c * 3)),
  };
  for (const device of devices) {
    list.push({
      name: `${device}: amax, amin, argmax, argmin and sum over rows of 1 to 100 keep NaN and the first extreme`,
      fn: async () => {
        // Several rows (the wasm row kernels) and one (the blocked single-row reduction).
        for (const n of [13, 1]) for (const k of lengths) {
          for (const [kind, value] of Object.entries(data)) {
            const vals = rows(n, k, (r, c) => value(r, c, k));
            const x = wt.tensor(vals, { shape: [n, k], device });
            const outs = [x.amax(1), x.amin(1), x.argmax(1), x.argmin(1), x.sum(1)];
            const [mx, mn, am, an, sm] = await Promise.all(outs.map((t) => t.data()));
            for (let r = 0; r < n; r++) {
              const row = Array.from(vals.subarray(r * k, (r + 1) * k));
              const at = [firstBest(row, (a, b) => a > b), firstBest(row, (a, b) => a < b)];
              const where = `row ${r} of [${n}, ${k}] (${kind}: ${row.map(show).join(' ')})`;
              assert.equal(am[r], at[0], `argmax of ${where}`);
              assert.equal(an[r], at[1], `argmin of ${where}`);
              for (const [got, want, name] of [[mx[r], row[at[0]], 'amax'], [mn[r], row[at[1]], 'amin']]) {
                // The value's sign of zero follows the first zero on the CPU; GPUs may keep
                // either zero (their lanes race), which compare equal.
                const ok = Number.isNaN(want) ? Number.isNaN(got) : device === 'cpu' ? Object.is(got, want) : got === want;
                assert.ok(ok, `${name} of ${where}: got ${show(got)}, want ${show(want)}`);
              }
              const want = cpuSum(row);
              const scale = row.reduce((a, v) => a + Math.abs(v), 0);
              // One row is summed in blocks of eight lanes (reduce.rs `sum_f64`), not in the
              // rows kernels' order that cpuSum models: exact there only for several rows.
              const exact = device === 'cpu' && n > 1;
              const ok = Number.isNaN(want) ? Number.isNaN(sm[r]) : exact ? Object.is(sm[r], want)
                : sm[r] === want || Math.abs(sm[r] - want) <= 1e-6 * scale;
              assert.ok(ok, `sum of ${where}: got ${show(sm[r])}, want ${show(want)}`);
            }
            [x, ...outs].forEach((t) => t.dispose());
          }
        }
      },
    });
  }
  return list;
}
