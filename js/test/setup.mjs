// Shared by the JS tests: initialises webtensor once (with WebGPU through the `webgpu` package,
// Dawn, when it loads) and lists the devices to run on. With WEBTENSOR_REQUIRE_GPU=1 a missing
// WebGPU device fails the run instead of shrinking it to the cpu (whose cases api.test.mjs then
// reports as skipped).
import * as wt from '../node.js';

let gpu = null;
try {
  const { create } = await import('webgpu');
  gpu = create([]);
} catch (e) {
  if (process.env.WEBTENSOR_REQUIRE_GPU === '1') throw new Error(`WEBTENSOR_REQUIRE_GPU=1 but the webgpu package failed to load: ${e.message}`);
}
await wt.init(gpu ? { gpu } : {});

export const devices = ['cpu'];
// WEBTENSOR_TEST_GPU=none runs the suite as a machine without WebGPU would (its cases skipped).
const wanted = process.env.WEBTENSOR_TEST_GPU !== 'none';
if (wanted && wt.devices().some((d) => d.name === 'webgpu:0')) {
  await wt.open('webgpu:0');
  devices.push('webgpu:0');
} else if (process.env.WEBTENSOR_REQUIRE_GPU === '1') {
  throw new Error(`WEBTENSOR_REQUIRE_GPU=1 but no WebGPU device was found: ${JSON.stringify(wt.devices())}`);
}

export { wt };
