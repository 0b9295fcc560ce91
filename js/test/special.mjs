// The same answer on every device, and PyTorch's, on special values (zeros of both signs,
// subnormals, tiny, huge, infinities, NaN), through the npm package: Dawn in Node, SwiftShader in
// Chromium. The fixture and the bounds are tests/special_values.rs's (its doc explains them):
// integers, bools and comparisons bit for bit, floats within each op's bound.
import fixtures from '../../tests/fixtures/special.json' with { type: 'json' };

const f32 = (bits) => new Float32Array(Uint32Array.from(bits).buffer);
const MIN_NORMAL = 1.1754943508222875e-38;
const subnormal = (x) => x !== 0 && Math.abs(x) < MIN_NORMAL;

/**
 * The op's tolerance from the core's op manifest (`op::manifest::Tolerance::bound`, which
 * tests/special_values.rs reads too): null where the op is not held to PyTorch's value; ops
 * outside the manifest (where, clamp) are exact.
 */
let tolerances = null;
function bound(wt, op, x, want) {
  tolerances ??= new Map(wt.__opTable().ops.filter((o) => o.family !== 'reduce').map((o) => [o.name, o.tolerance]));
  const t = tolerances.get(op);
  if (!t) return 0;
  if (t.maxX > 0 && Math.abs(x) > t.maxX) return null;
  let rel = t.rel + t.relPerX * Math.min(Math.abs(x), 100);
  if (t.relPerLog2 > 0) rel += t.relPerLog2 * (1 + Math.min(Math.abs(Math.log2(Math.abs(want))), 150) / 8);
  let b = t.abs;
  if (rel > 0) b += rel * Math.abs(want);
  if (t.absPerSlope > 0) b += t.absPerSlope * (1 + want * want);
  return b;
}

function agrees(got, want, tol) {
  if (Number.isNaN(want) || Number.isNaN(got)) return Number.isNaN(want) && Number.isNaN(got);
  if (!Number.isFinite(want) || !Number.isFinite(got)) return got === want;
  const small = (v) => v === 0 || subnormal(v);
  return Math.abs(got - want) <= tol || (subnormal(want) && got === 0)
    || (small(want) && small(got) && Math.abs(got - want) <= 1e-40);
}

const flushed = (v) => v.map((x) => (subnormal(x) ? (x < 0 ? -0 : 0) : x));

/**
 * Runs `op` (Tensors to a Tensor) over `inputs` on `device` against PyTorch's `want`. Where an
 * input is subnormal a GPU may instead give what the cpu gives for the inputs flushed to zero
 * (WGSL allows flushing; SwiftShader does).
 */
async function checkFloats(wt, device, name, inputs, want, op, errors) {
  const on = async (dev, vals) => {
    const ts = vals.map((v) => wt.tensor(v, { device: dev }));
    const y = op(ts);
    const out = await y.data();
    [...ts, y].forEach((t) => t.dispose());
    return out;
  };
  const got = await on(device, inputs);
  const alt = device === 'cpu' ? null : await on('cpu', inputs.map(flushed));
  got.forEach((g, i) => {
    const xs = inputs.map((v) => v[i]);
    const tol = bound(wt, name, xs[0], want[i]);
    if (tol === null) return;
    const flushOk = alt !== null && xs.some(subnormal) && agrees(g, alt[i], bound(wt, name, 0, alt[i]) ?? 0);
    if (!agrees(g, want[i], tol) && !flushOk) errors.push(`${device}: ${name}(${xs.join(', ')}) = ${g}, PyTorch gives ${want[i]} (bound ${tol})`);
  });
}

// Errors grouped by op (the text before the parenthesis), a few examples each.
function report(errors) {
  if (!errors.length) return;
  const groups = new Map();
  for (const e of errors) {
    const op = e.slice(0, e.indexOf('('));
    groups.set(op, [...(groups.get(op) ?? []), e]);
  }
  const lines = [...groups].map(([op, es]) => `${op}: ${es.length} wrong, e.g.\n  ${es.slice(0, 4).join('\n  ')}`);
  throw new Error(`${errors.length} disagreements:\n${lines.join('\n')}`);
}

export function specialCases(wt, devices) {
  const list = [];
  for (const device of devices) {
    list.push({ name: `${device}: special values: unary and binary ops give PyTorch's answers`, fn: () => opsCase(wt, device) });
    list.push({ name: `${device}: special values: casts, where and clamp follow PyTorch and the guide`, fn: () => castCase(wt, device) });
    if (device !== 'cpu') list.push({ name: `${device}: remainder, fmod and floor_divide give the cpu's bits for close operands, subnormal answers and huge divisors`, fn: () => closeDivisionCase(wt, device) });
  }
  if (devices.includes('cpu')) {
    list.push({ name: 'cpu: pow is within 1 ulp of the correctly rounded power', fn: () => powCase(wt) });
    list.push({ name: 'cpu: unary ops give the same bits four lanes at a time as one by one', fn: () => lanesCase(wt) });
  }
  return list;
}

/**
 * Division ops on operands within a factor of 2^8 of each other (the GPUs' fast path), where
 * `remainder` is subnormal (drivers that flush subnormals, SwiftShader and NVIDIA's Vulkan, gave
 * the divisor or zero), quotients below 1 (NVIDIA's Vulkan gave floor_divide -0 for +0) and
 * divisors above 2^126 (a division by a reciprocal flushed to zero there): the GPU's answer
 * must be the cpu's, bit for bit. All operands are normal, so no flushing excuses a difference.
 */
async function closeDivisionCase(wt, device) {
  const a = [1.3566255e-38, -1.7125158e-37, 1.0724351e-37, 5.611697e-32, 3.3905407e-12, 1.5344898, -2.5766933e-8, 3e38, 3e38, -3e38, 2.5e38];
  const b = [-1.6383343e-38, 1.8127513e-37, -1.1015253e-37, -2.1566662e-38, -2.0811841e-38, 1.9091923, -2.6096227e-8, 3e38, 1e38, 1.7e38, -9e37];
  // Pairs a little apart (|a| below |b| by up to 1/16, or above by up to 16 times), each
  // sign, half of them just above the smallest normal, the rest spread up to 2^122.
  let state = 0x2545f491;
  const next = () => { state ^= state << 13; state ^= state >>> 17; state ^= state << 5; return state >>> 0; };
  for (let i = 0; i < 2000; i++) {
    const r = next();
    const e = -125 + (r % 8) + (i < 1000 ? 0 : (r >>> 8) % 240);
    const mb = 1 + (next() % 8388608) / 8388608;
    const ma = mb * (i % 2 ? 1 - (next() % 4096) / 65536 : 1 + (next() % 65536) / 4096);
    a.push(Math.fround(ma * 2 ** e) * (r & 1 ? -1 : 1));
    b.push(Math.fround(mb * 2 ** e) * (r & 2 ? -1 : 1));
  }
  const [fa, fb] = [Float32Array.from(a), Float32Array.from(b)];
  const errors = [];
  for (const op of ['remainder', 'fmod', 'floorDivide']) {
    const [got, want] = await Promise.all([device, 'cpu'].map(async (dev) => {
      const [x, y] = [wt.tensor(fa, { device: dev }), wt.tensor(fb, { device: dev })];
      const z = x[op](y);
      const out = await z.data();
      [x, y, z].forEach((t) => t.dispose());
      return out;
    }));
    got.forEach((g, i) => {
      if (!Object.is(g, want[i])) errors.push(`${device}: ${op}(${fa[i]}, ${fb[i]}) = ${g}, the cpu gives ${want[i]}`);
    });
  }
  report(errors);
}

/**
 * The npm package's CPU runs exp, log, tanh, sigmoid, SiLU, GELU, ELU and clamp four lanes at a time in
 * hand-written wasm SIMD and a tensor's last 1-3 elements one by one through the portable
 * formula: the two must agree bit for bit (a 3-element tensor takes the one-by-one path), over
 * a dense range, both forms' switch points and special values.
 */
async function lanesCase(wt) {
  const xs = [];
  for (let i = -1200; i <= 1200; i++) xs.push(i / 10, i / 1000 + 0.0004);
  xs.push(0, -0, Infinity, -Infinity, NaN, 1e-40, -1e-40, 0.625, -0.625, 0.5, -0.5, 0.7071, 3.4e38, -3.4e38, -17.33, -87.5, 88.7, -103.9);
  while (xs.length % 3) xs.push(1);
  const x = Float32Array.from(xs);
  const errors = [];
  const ops = Object.fromEntries(['exp', 'log', 'tanh', 'sigmoid', 'elu'].map((op) => [op, (t) => t[op]()]));
  for (const op of ['silu', 'gelu']) ops[op] = (t) => wt.nn.functional[op](t);
  // clamp's lanes take the second of two equal zeros, as the scalar maximum and minimum do.
  for (const [lo, hi] of [[-0.5, 0.5], [0, 6], [-0, 1], [-1, -0]]) ops[`clamp[${lo},${hi}]`] = (t) => t.clamp(lo, hi);
  for (const [op, f] of Object.entries(ops)) {
    const lanes = await f(wt.tensor(x)).data();
    for (let s = 0; s < x.length; s += 3) {
      const one = await f(wt.tensor(x.subarray(s, s + 3))).data();
      one.forEach((v, j) => {
        if (!Object.is(v, lanes[s + j]) && errors.length < 20) errors.push(`cpu: ${op}(${x[s + j]}) is ${lanes[s + j]} in lanes, ${v} one by one`);
      });
    }
  }
  report(errors);
}

/**
 * The CPU's `pow` (in the npm package: its wasm SIMD kernel four lanes at a time, the rest one
 * by one through the portable form) against JS's f64 `Math.pow` rounded to f32: within 1 ulp
 * over random bits, ordinary ranges and bases near 1 under large exponents; a single exponent
 * (`x.pow(0.75)`) the same as a tensor of it; and the lanes bit for bit the same as the one-by-one
 * form (3-element tensors have no full lane group).
 */
async function powCase(wt) {
  const n = 40_000;
  const a = new Float32Array(n);
  const b = new Float32Array(n);
  const bits = new Uint32Array(a.buffer);
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) { bits[i] = Math.floor(rnd() * 0x7f800000); b[i] = (rnd() - 0.5) * 8; }
    else if (i % 3 === 1) { a[i] = rnd() * 100; b[i] = (rnd() - 0.5) * 40; }
    else { a[i] = 0.9 + 0.2 * rnd(); b[i] = (rnd() - 0.5) * 1200; }
  }
  const run = async (x, y) => {
    const [tx, ty] = [wt.tensor(x), typeof y === 'number' ? y : wt.tensor(y)];
    const out = await tx.pow(ty).data();
    tx.dispose();
    if (typeof y !== 'number') ty.dispose();
    return out;
  };
  const errors = [];
  const ulps = (g, w) => Math.abs(new Int32Array(Float32Array.of(g).buffer)[0] - new Int32Array(Float32Array.of(w).buffer)[0]);
  const within1 = (got, x, y) => got.forEach((g, i) => {
    const want = Math.fround(Math.pow(x[i], typeof y === 'number' ? y : y[i]));
    const ok = !Number.isFinite(want) || want === 0 || Math.abs(want) < MIN_NORMAL ? Object.is(g, want) || Math.abs(g - want) <= 1e-45 : ulps(g, want) <= 1;
    if (!ok && errors.length < 10) errors.push(`cpu: pow(${x[i]}, ${typeof y === 'number' ? y : y[i]}) = ${g}, want ${want}`);
  });
  const got = await run(a, b);
  within1(got, a, b);
  const scalar = await run(a, 0.75);
  within1(scalar, a, 0.75);
  const asTensor = await run(a, new Float32Array(n).fill(0.75));
  if (scalar.some((v, i) => !Object.is(v, asTensor[i]))) errors.push('cpu: x.pow(0.75) differs from x.pow(a tensor of 0.75)');
  for (let s = 0; s < 3000; s += 3) {
    const one = await run(a.subarray(s, s + 3), b.subarray(s, s + 3));
    one.forEach((v, j) => { if (!Object.is(v, got[s + j])) errors.push(`cpu: pow(${a[s + j]}, ${b[s + j]}) is ${got[s + j]} in lanes, ${v} one by one`); });
  }
  report(errors);
}

/** The JS method of a fixture's (PyTorch's) op name: `floor_divide` is `floorDivide`. */
const camel = (n) => n.replace(/_(\w)/g, (_, c) => c.toUpperCase());

async function opsCase(wt, device) {
  const errors = [];
  const grid = f32(fixtures.grid);
  for (const [op, want] of Object.entries(fixtures.unary)) {
    await checkFloats(wt, device, op, [grid], f32(want), ([t]) => t[camel(op)](), errors);
  }
  const ints = Int32Array.from(fixtures.int_grid);
  const xi = wt.tensor(ints, { device, dtype: 'int32' });
  for (const [op, want] of Object.entries(fixtures.int_unary)) {
    await checkExact(device, `int32 ${op}`, (i) => ints[i], xi[op](), want, errors);
  }
  const [a, b] = fixtures.pairs.map(f32);
  const [ta, tb] = [wt.tensor(a, { device }), wt.tensor(b, { device })];
  // prelu's weight is per channel (dim 1): the pairs as one sample of 169 channels.
  const binary = (op, p, q) => (op === 'prelu' ? p.reshape([1, -1]).prelu(q).reshape([-1]) : p[camel(op)](q));
  for (const [op, want] of Object.entries(fixtures.binary)) {
    const y = binary(op, ta, tb);
    if (y.dtype === 'bool') {
      await checkExact(device, op, (i) => `${a[i]}, ${b[i]}`, y, want, errors);
    } else {
      y.dispose();
      await checkFloats(wt, device, op, [a, b], f32(want), ([p, q]) => binary(op, p, q), errors);
    }
  }
  // The same pairs padded to a multiple of 4 run the GPU's vec4 kernels (169 alone take the
  // per-element ones): SwiftShader's compiler once crashed Chromium's GPU process, losing the
  // device, creating fmod's vec4 pipeline. Then a number as the second operand (its vec4 kernel).
  const pad4 = (v) => {
    const out = new Float32Array(Math.ceil(v.length / 4) * 4).fill(v[0]);
    out.set(v);
    return out;
  };
  for (const [op, want] of Object.entries(fixtures.binary)) {
    if (['eq', 'ne', 'lt', 'le', 'gt', 'ge'].includes(op)) continue;
    await checkFloats(wt, device, op, [pad4(a), pad4(b)], pad4(f32(want)), ([p, q]) => binary(op, p, q), errors);
  }
  const steps = Float32Array.from({ length: 256 }, (_, i) => (i - 128) * 0.37);
  for (const op of ['remainder', 'fmod', 'floorDivide', 'pow', 'sub', 'div']) {
    const [got, want] = await Promise.all([device, 'cpu'].map(async (dev) => {
      const t = wt.tensor(steps, { device: dev });
      const y = t[op](0.75);
      const out = await y.data();
      [t, y].forEach((u) => u.dispose());
      return out;
    }));
    got.forEach((g, i) => {
      if (!agrees(g, want[i], op === 'pow' ? 1e-6 * Math.abs(want[i]) : 0)) {
        errors.push(`${device}: ${op}(${steps[i]}, 0.75) = ${g}, the cpu gives ${want[i]}`);
      }
    });
  }
  const intPairs = async (pairs, table) => {
    const [pa, pb] = pairs.map((v) => Int32Array.from(v));
    const [tpa, tpb] = [wt.tensor(pa, { device, dtype: 'int32' }), wt.tensor(pb, { device, dtype: 'int32' })];
    for (const [op, want] of Object.entries(table)) {
      await checkExact(device, `int32 ${op}`, (i) => `${pa[i]}, ${pb[i]}`, tpa[camel(op)](tpb), want, errors);
    }
    tpa.dispose();
    tpb.dispose();
  };
  await intPairs(fixtures.int_pairs, fixtures.int_binary);
  await intPairs(fixtures.shift_pairs, fixtures.shifts);
  // Logical ops, bitwise not, all/any: bit for bit.
  for (const [op, want] of Object.entries(fixtures.logical)) {
    await checkExact(device, op, (i) => `${a[i]}, ${b[i]}`, ta[camel(op)](tb), want, errors);
  }
  const x = wt.tensor(grid, { device });
  await checkExact(device, 'logical_not', (i) => grid[i], x.logicalNot(), fixtures.logical_not, errors);
  await checkExact(device, 'bitwise_not', (i) => ints[i], xi.bitwiseNot(), fixtures.bitwise_not, errors);
  const sums = a.map((v, i) => v + b[i]);
  const n = Math.round(Math.sqrt(a.length));
  const rows = wt.tensor(sums, { device, shape: [n, n] });
  const row = (i) => `[${sums.slice(i * n, (i + 1) * n).join(', ')}]`;
  await checkExact(device, 'all', row, rows.all(1), fixtures.all_rows, errors);
  await checkExact(device, 'any', row, rows.any(1), fixtures.any_rows, errors);
  [xi, ta, tb, x, rows].forEach((t) => t.dispose());
  report(errors);
}

/** `y` (disposed here) against PyTorch's exact `want` (bools as 0/1), one error per differing element. */
async function checkExact(device, name, input, y, want, errors) {
  const got = Array.from(await y.data(), Number);
  y.dispose();
  got.forEach((g, i) => { if (g !== want[i]) errors.push(`${device}: ${name}(${input(i)}) = ${g}, PyTorch gives ${want[i]}`); });
}

async function castCase(wt, device) {
  const errors = [];
  const grid = f32(fixtures.grid);
  const x = wt.tensor(grid, { device });
  const bools = x.toDtype('bool');
  (await bools.data()).forEach((g, i) => {
    if ((g !== 0) !== (fixtures.to_bool[i] !== 0)) errors.push(`${device}: bool(${grid[i]}) = ${g !== 0}, PyTorch gives ${fixtures.to_bool[i] !== 0}`);
  });
  for (const op of ['isnan', 'isinf', 'isfinite']) {
    const y = x[op]();
    (await y.data()).forEach((g, i) => {
      if ((g !== 0) !== (fixtures[op][i] !== 0)) errors.push(`${device}: ${op}(${grid[i]}) = ${g !== 0}, PyTorch gives ${fixtures[op][i] !== 0}`);
    });
    y.dispose();
  }
  // Truncate toward zero, saturate at the bounds, NaN to 0 (the guide's rule, docs/guide/tensors.md; PyTorch leaves it undefined).
  const sat = (v, lo, hi) => (Number.isNaN(v) ? 0 : Math.min(hi, Math.max(lo, Math.trunc(v))));
  for (const [dtype, lo, hi] of [['int32', -(2 ** 31), 2 ** 31 - 1], ['uint32', 0, 2 ** 32 - 1]]) {
    const y = x.toDtype(dtype);
    (await y.data()).forEach((g, i) => {
      const want = sat(grid[i], lo, hi);
      if (g !== want) errors.push(`${device}: ${dtype}(${grid[i]}) = ${g}, want ${want}`);
    });
    y.dispose();
  }
  const where = ([t]) => wt.tidy(() => wt.full([], 1, { device: t.device }).where(t, wt.full([], 0, { device: t.device })));
  await checkFloats(wt, device, 'where', [grid], f32(fixtures.where), where, errors);
  for (const [key, lo, hi] of [['clamp_1_2', 1, 2], ['clamp_2_1', 2, 1], ['clamp_min_0', 0, undefined]]) {
    await checkFloats(wt, device, key, [grid], f32(fixtures[key]), ([t]) => t.clamp(lo, hi), errors);
  }
  [x, bools].forEach((t) => t.dispose());
  report(errors);
}
