// How a tensor shows itself: PyTorch's repr (`tensor([[1., 2.], [3., 4.]], device='webgpu:0')`),
// summarised as PyTorch does past 1000 elements (the first and last three entries of each dim
// around `...`). Used by toString(), console.log/util.inspect in Node and Tensor.print().

/** Past this many elements the repr shows only the edges of each dim (PyTorch's threshold). */
const THRESHOLD = 1000;
/** Entries shown at each end of a summarised dim (PyTorch's edgeitems). */
const EDGE = 3;

/** One value as PyTorch prints it: `1.`, `0.5000`, `nan`, `inf`, `True`, `7`. */
function scalar(v, dtype, fixed) {
  if (dtype === 'bool') return v ? 'True' : 'False';
  if (dtype !== 'float32' && dtype !== 'float16') return String(v);
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (fixed === 0) return `${v.toFixed(0)}.`;
  if (fixed === null) return v.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2');
  return v.toFixed(fixed);
}

/**
 * How floats are written for this set of values, as PyTorch's formatter decides: integers as
 * `1.`, otherwise 4 decimals, or scientific notation when the magnitudes span more than 1000x
 * or leave [1e-4, 1e8).
 */
function floatStyle(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.every((v) => Number.isInteger(v)) && finite.every((v) => Math.abs(v) < 1e8)) return 0;
  const mags = finite.map(Math.abs).filter((v) => v > 0);
  if (!mags.length) return 4;
  const [lo, hi] = [Math.min(...mags), Math.max(...mags)];
  return hi / lo > 1000 || hi >= 1e8 || lo < 1e-4 ? null : 4;
}

/** Row-major indices kept along a dim of `n` entries (all, or the edges around a gap: -1). */
function kept(n, summarise) {
  if (!summarise || n <= 2 * EDGE) return Array.from({ length: n }, (_, i) => i);
  return [...Array.from({ length: EDGE }, (_, i) => i), -1, ...Array.from({ length: EDGE }, (_, i) => n - EDGE + i)];
}

/**
 * PyTorch's repr of a tensor of `shape` and `dtype` on `device` with `values` (row-major, or
 * null when they could not be read without waiting: the repr then says how to see them).
 */
export function formatTensor(values, shape, dtype, device, extra = '') {
  // PyTorch names the device unless it is the CPU, and the dtype unless the values show it.
  const suffix = [device === 'cpu' ? '' : `device='${device}'`, dtype === 'float32' || dtype === 'bool' ? '' : `dtype=${dtype}`, extra]
    .filter(Boolean)
    .join(', ');
  if (values === null) {
    return `tensor(<${shape.length ? shape.join('x') : 'scalar'} on ${device}: await t.print() or t.data() to read the values>${suffix ? `, ${suffix}` : ''})`;
  }
  const numel = shape.reduce((a, b) => a * b, 1);
  const summarise = numel > THRESHOLD;
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  // The values that will be shown decide the float style and the column width.
  const shown = [];
  const collect = (dim, off) => {
    if (dim === shape.length) return shown.push(values[off]);
    for (const i of kept(shape[dim], summarise)) if (i >= 0) collect(dim + 1, off + i * strides[dim]);
    return undefined;
  };
  collect(0, 0);
  const style = dtype === 'float32' || dtype === 'float16' ? floatStyle(shown) : undefined;
  const width = Math.max(1, ...shown.map((v) => scalar(v, dtype, style).length));
  const cell = (v) => scalar(v, dtype, style).padStart(width);
  const render = (dim, off, indent) => {
    if (dim === shape.length) return cell(values[off]);
    const parts = kept(shape[dim], summarise).map((i) => (i < 0 ? '...' : render(dim + 1, off + i * strides[dim], indent + 1)));
    if (dim === shape.length - 1) return `[${parts.join(', ')}]`;
    const sep = `,${'\n'.repeat(shape.length - dim - 1)}${' '.repeat(indent + 1)}`;
    return `[${parts.join(sep)}]`;
  };
  const body = shape.length === 0 ? cell(values[0]) : render(0, 0, 7);
  return `tensor(${body}${suffix ? `, ${suffix}` : ''})`;
}

/** The repr's autograd note: `grad_fn=<...>` for an op's result, `requires_grad=True` for a leaf that asks for grad. */
export function reprExtra(t) {
  const fn = t.gradFn;
  if (fn) return `grad_fn=<${fn}>`;
  return t.requiresGrad ? 'requires_grad=True' : '';
}
