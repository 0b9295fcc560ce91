// A/B of builds of the npm package on WebGPU in Node (Dawn, on lavapipe here), in one process,
// interleaved: broadcasts, the generic strided path, a transposing copy and the division ops, each ten chained
// calls and one readback, 12 rounds, median printed with the first build's time over each
// other's (above 1, that build is faster). For shader and launch changes, where a whole
// `npm run bench` is too noisy to see a 20% change.
//
// Build folders as for bench/ab-builds.mjs (js/, pkg/, package.json, node_modules linked):
//   node bench/ab-webgpu.mjs /tmp/ab/base /tmp/ab/new        (ONLY=<substring> picks cases)
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const gpu = create([]);
Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
const dirs = process.argv.slice(2);
if (dirs.length < 1) {
  console.error('usage: node bench/ab-webgpu.mjs <build folder> [<build folder> ...]');
  process.exit(2);
}
const libs = [];
for (const d of dirs) {
  const wt = await import(new URL(`file://${d.startsWith('/') ? d : `${process.cwd()}/${d}`}/js/node.js`).href);
  await wt.init({ gpu });
  await wt.open('webgpu:0');
  libs.push([d.replace(/\/$/, '').split('/').pop(), wt]);
}
const cases = {
  'bias [1024,1024]+[1024]': (t) => t.x.add(t.b),
  'column [1024,1024]+[1024,1]': (t) => t.x.sub(t.c),
  'generic [1000,999]+[999]': (t) => t.g.add(t.gb),
  'generic [1000,999]+[1000,1]': (t) => t.g.add(t.gc),
  'transpose [1000,999]': (t) => t.g.t().contiguous(),
  'where [1000,999] by [1000,1]': (t) => t.g.where(t.gm, t.gc),
  'remainder [1024,1024]': (t) => t.x.remainder(t.y),
  'fmod [1024,1024]': (t) => t.x.fmod(t.y),
  'floor_divide [1024,1024]': (t) => t.x.floorDivide(t.y),
  'acos [1024,1024]': (t) => t.u.acos(),
  'leaky_relu [1024,1024]': (t) => t.x.leakyRelu(0.1),
  'div by 4 [1024,1024]': (t) => t.x.div(4),
};
const inputs = libs.map(([, wt]) => {
  const on = (seed) => ({ device: 'webgpu:0', seed });
  return {
    x: wt.randn([1024, 1024], on(1)), b: wt.randn([1024], on(2)), c: wt.randn([1024, 1], on(3)),
    g: wt.randn([1000, 999], on(4)), gb: wt.randn([999], on(5)), gc: wt.randn([1000, 1], on(6)),
    gm: wt.randn([1000, 1], on(7)).gt(0), y: wt.randn([1024, 1024], on(8)),
    u: wt.rand([1024, 1024], on(9)).mul(2).sub(1),
  };
});
console.log(`# ${process.version}, ms per 10 chained calls and a readback, median of 12 rounds`);
console.log('case'.padEnd(34) + libs.map(([n]) => n.padStart(10)).join('') + '   first / each');
for (const [name, f] of Object.entries(cases)) {
  if (process.env.ONLY && !name.includes(process.env.ONLY)) continue;
  const times = libs.map(() => []);
  for (let r = 0; r < 12; r++) {
    for (const [i] of libs.entries()) {
      const t0 = performance.now();
      let y = null;
      for (let k = 0; k < 10; k++) {
        const z = f(inputs[i]);
        y?.dispose();
        y = z;
      }
      await y.data();
      y.dispose();
      times[i].push(performance.now() - t0);
    }
  }
  const med = times.map((t) => t.sort((a, b) => a - b)[6]);
  console.log(name.padEnd(34) + med.map((m) => m.toFixed(2).padStart(10)).join('') + '   ' + med.slice(1).map((m) => (med[0] / m).toFixed(2)).join('  '));
}
process.exit(0);
