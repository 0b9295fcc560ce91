// Compile-time checks of js/index.d.ts (`npm run test:types`): precise types compile, and the
// expect-error directives below prove that wrong uses are rejected (with `any` they would not be).
import * as wt from '../index.js';

export async function check(): Promise<void> {
  const device: string = await wt.init();
  const x = wt.tensor([[1, 2], [3, 4]], { device });
  const f32: Float32Array = await x.data();
  const i = wt.arange(0, 4, 1, { dtype: 'int32' });
  const i32: Int32Array = await i.data();
  const mask: Uint8Array = await x.gt(1).data();
  const arg: Int32Array = await x.argmax(1).data();
  const h: wt.Tensor<'float16'> = x.toDtype('float16');
  const hd: Float32Array = await h.data();
  const nested = await x.array();
  const info: wt.DeviceInfo[] = wt.devices();
  const kept = wt.tidy(() => ({ y: x.add(1).matmul(x) }));
  kept.y.dispose();
  x[Symbol.dispose]();
  const bytes: number = wt.memoryAllocated('cpu');
  void [f32, i32, mask, arg, hd, nested, info, bytes];
  // @ts-expect-error an int32 tensor does not read back as Float32Array
  const wrong: Float32Array = await i.data();
  // @ts-expect-error dtypes are a closed set
  wt.zeros([2], { dtype: 'complex64' });
  // @ts-expect-error binary ops take tensors or numbers
  x.add('1');
  void wrong;
  // Device management: logical devices through init, launch blocking.
  const split: Promise<wt.DeviceName> = wt.init({ logicalDevices: { 'webgpu:0': [{ memoryLimit: 1 << 26 }, {}] } });
  const logicalIndex: number | null = info[0].logical;
  wt.setLaunchBlocking(true);
  const blocking: boolean = wt.launchBlocking();
  void [split, logicalIndex, blocking];
  // @ts-expect-error a memory limit is a number of bytes
  wt.setLogicalDeviceConfiguration('webgpu:0', [{ memoryLimit: '64M' }]);
}
