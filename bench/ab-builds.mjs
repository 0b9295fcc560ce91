// A/B of builds of the npm package's CPU device (its kernels inside WebAssembly), in one Node
// process, interleaved: 45 elementwise, reduction, softmax, matmul, convolution, pooling, gather, cat and cast cases on
// 1024x1024 f32 (one 1M NCHW), each timed 5 calls a round over 15 rounds, median printed with each build's
// time over the first's (below 1 is faster). For build flags and kernel changes, where a
// whole `npm run bench` is too noisy to see a 10% change.
//
// Each build is a folder with the package's js/ and pkg/ (and package.json), e.g.
//   mkdir -p /tmp/ab/base && cp -r js pkg package.json /tmp/ab/base && ln -s $PWD/node_modules /tmp/ab/base/
// then, after changing and `npm run build`, the same into /tmp/ab/new, and
//   node bench/ab-builds.mjs /tmp/ab/base /tmp/ab/new        (ONLY=softmax to pick cases)
// CPU ops in wasm compute when called, so no readback is timed (READ=1 adds `dataSync()`).
const dirs = process.argv.slice(2);
if (dirs.length < 1) {
  console.error('usage: node bench/ab-builds.mjs <build folder> [<build folder> ...]');
  process.exit(2);
}
const libs = [];
for (const d of dirs) {
  const wt = await import(new URL(`file://${d.startsWith('/') ? d : `${process.cwd()}/${d}`}/js/node.js`).href);
  await wt.init({});
  libs.push([d.replace(/\/$/, '').split('/').pop(), wt]);
}
const cases = {
  'relu 1M': (wt, x) => x.relu(),
  'neg 1M': (wt, x) => x.neg(),
  'exp 1M': (wt, x) => x.exp(),
  'log 1M': (wt, x, y, b, c, m, x4, pos) => pos.log(),
  'sigmoid 1M': (wt, x) => x.sigmoid(),
  'tanh 1M': (wt, x) => x.tanh(),
  'gelu 1M': (wt, x) => wt.nn.functional.gelu(x),
  'elu 1M': (wt, x) => x.elu(),
  'add 1M': (wt, x, y) => x.add(y),
  'mul scalar 1M': (wt, x) => x.mul(0.5),
  'div scalar 1M': (wt, x) => x.div(4),
  'pow, tensor exponent 1M': (wt, x, y, b, c, m, x4, pos) => pos.pow(x),
  'clamp 1M': (wt, x) => x.clamp(-0.5, 0.5),
  'add bias [1024,1024]+[1024]': (wt, x, y, b) => x.add(b),
  'add col [1024,1024]+[1024,1]': (wt, x, y, b, c) => x.add(c),
  'sum(1) 1M': (wt, x) => x.sum(1),
  'sum(0) 1M': (wt, x) => x.sum(0),
  'mean(1) 1M': (wt, x) => x.mean(1),
  'sum(0,2,3) [16,64,32,32] (BatchNorm)': (wt, x, y, b, c, m, x4) => x4.sum([0, 2, 3]),
  'max(1) 1M': (wt, x) => x.amax(1),
  'prod(1) 1M': (wt, x) => x.prod(1),
  'softmax 1M': (wt, x) => x.softmax(-1),
  'logsoftmax 1M': (wt, x) => x.logSoftmax(-1),
  'matmul 256': (wt, x, y, b, c, m) => m.matmul(m),
  'transpose copy 1M': (wt, x) => x.t().contiguous(),
  'cast i32 1M': (wt, x) => x.toDtype('int32'),
  'where 1M': (wt, x, y) => x.gt(0).where(x, y),
  'argmax(1) 1M': (wt, x) => x.argmax(1),
  'cat(1) 2x[1024,1024]': (wt, x, y) => wt.cat([x, y], 1),
  'pad 1 each side [1024,1024]': (wt, x) => wt.nn.functional.pad(x, [1, 1, 1, 1]),
  'matmul [32,288]@[288,4096]': (wt, x, y, b, c, m, x4, pos, w, a32, b32) => a32.matmul(b32),
  'conv2d [16,64,32,32] 3x3 32 out': (wt, x, y, b, c, m, x4, pos, w) => wt.nn.functional.conv2d(x4, w, null, { padding: 1 }),
  'max_pool2d 2x2 [16,64,32,32]': (wt, x, y, b, c, m, x4) => wt.nn.functional.maxPool2d(x4, 2),
  'avg_pool2d 2x2 [16,64,32,32]': (wt, x, y, b, c, m, x4) => wt.nn.functional.avgPool2d(x4, 2),
  // Short rows (classes, small feature dims): rows of 10 take the tap folds, rows of 20 and 64 the rows kernel.
  'max(1) [262144,4]': (wt, x) => x.reshape([262144, 4]).amax(1),
  'argmax(1) [262144,4]': (wt, x) => x.reshape([262144, 4]).argmax(1),
  'max(1) [100000,10]': (wt, ...d) => d[10].amax(1),
  'argmax(1) [100000,10]': (wt, ...d) => d[10].argmax(1),
  'max(1) [50000,20]': (wt, ...d) => d[11].amax(1),
  'sum(1) [50000,20]': (wt, ...d) => d[11].sum(1),
  'argmax(1) [50000,20]': (wt, ...d) => d[11].argmax(1),
  'max(1) [16384,64]': (wt, x) => x.reshape([16384, 64]).amax(1),
  'sum(1) [16384,64]': (wt, x) => x.reshape([16384, 64]).sum(1),
  'sum(1) [100000,10]': (wt, ...d) => d[10].sum(1),
  'sum(1) [262144,4]': (wt, x) => x.reshape([262144, 4]).sum(1),
};
const only = process.env.ONLY;
const data = libs.map(([, wt]) => {
  const x = wt.randn([1024, 1024], { seed: 1 }), y = wt.randn([1024, 1024], { seed: 2 });
  const b = wt.randn([1024], { seed: 3 }), c = wt.randn([1024, 1], { seed: 4 }), m = wt.randn([256, 256], { seed: 5 });
  const w = wt.randn([32, 64, 3, 3], { seed: 8 });
  const a32 = wt.randn([32, 288], { seed: 9 }), b32 = wt.randn([288, 4096], { seed: 10 });
  const r10 = wt.randn([100000, 10], { seed: 11 }), r20 = wt.randn([50000, 20], { seed: 12 });
  return [x, y, b, c, m, wt.randn([16, 64, 32, 32], { seed: 6 }), wt.rand([1024, 1024], { seed: 7 }).add(0.01), w, a32, b32, r10, r20];
});
console.log(`# Node ${process.version}; ms per call, median of 15 rounds`);
console.log('case'.padEnd(32), libs.map(([n]) => n.padStart(10)).join(''), '  time / first');
for (const [name, f] of Object.entries(cases)) {
  if (only && !name.includes(only)) continue;
  const times = libs.map(() => []);
  for (let round = 0; round < 15; round++) {
    libs.forEach(([, wt], i) => {
      const t0 = performance.now();
      for (let r = 0; r < 5; r++) {
        const out = f(wt, ...data[i]);
        if (process.env.READ) out.dataSync();
        out.dispose();
      }
      times[i].push((performance.now() - t0) / 5);
    });
  }
  const med = times.map((t) => t.sort((a, b) => a - b)[7]);
  console.log(name.padEnd(32), med.map((m) => m.toFixed(3).padStart(10)).join(''), med.slice(1).map((m) => (m / med[0]).toFixed(2).padStart(8)).join(''));
}
