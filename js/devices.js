// Device management: discovery, memory statistics and limits, soft placement and its log,
// transfer counters, timing events, recovery, logical devices, launch blocking.
import * as check from './check.js';
import { core } from './internal.js';

const dev = (fn, d) => check.device(fn, d);
export function devices() { check.arity('devices', arguments.length, 0); return core().devices(); }
export function bestDevice() { check.arity('bestDevice', arguments.length, 0); return core().bestDevice(); }
export async function open(device) { check.arity('open', arguments.length, 1); return core().open(dev('open', device)); }
export async function synchronize(device) { check.arity('synchronize', arguments.length, 1); return core().synchronize(dev('synchronize', device)); }
export function setDefaultDevice(device) { check.arity('setDefaultDevice', arguments.length, 1); return core().setDefaultDevice(dev('setDefaultDevice', device)); }
export function defaultDevice() { check.arity('defaultDevice', arguments.length, 0); return core().defaultDevice(); }
/** Whether a device of `kind` ('cpu', 'webgpu', 'cuda', 'meta', or 'gpu' for any accelerator) is usable. */
export function isAvailable(kind) { check.arity('isAvailable', arguments.length, 1); return core().isAvailable(kindOf('isAvailable', kind)); }
/** How many devices of `kind` are usable. */
export function deviceCount(kind) { check.arity('deviceCount', arguments.length, 1); return core().deviceCount(kindOf('deviceCount', kind)); }
function kindOf(fn, kind) {
  if (typeof kind !== 'string') check.fail(TypeError, fn, 'kind', kind, "one of 'cpu', 'webgpu', 'cuda', 'meta', 'gpu'");
  return kind;
}
export function memoryAllocated(device) { check.arity('memoryAllocated', arguments.length, 1); return core().memoryAllocated(dev('memoryAllocated', device)); }
export function memoryReserved(device) { check.arity('memoryReserved', arguments.length, 1); return core().memoryReserved(dev('memoryReserved', device)); }
export function maxMemoryAllocated(device) { check.arity('maxMemoryAllocated', arguments.length, 1); return core().maxMemoryAllocated(dev('maxMemoryAllocated', device)); }
export function resetPeakMemoryStats(device) { check.arity('resetPeakMemoryStats', arguments.length, 1); return core().resetPeakMemoryStats(dev('resetPeakMemoryStats', device)); }
export function emptyCache(device) { check.arity('emptyCache', arguments.length, 1); return core().emptyCache(dev('emptyCache', device)); }
export function memorySummary(device) { check.arity('memorySummary', arguments.length, 1); return core().memorySummary(dev('memorySummary', device)); }
/** A device's allocator counters: `{ allocated, reserved, peak, allocations }`. */
export function memoryStats(device) { check.arity('memoryStats', arguments.length, 1); return core().memoryStats(dev('memoryStats', device)); }

/**
 * What is alive, as TensorFlow.js's `tf.memory()`: live Tensor objects and the bytes their
 * storage holds, in total and per device (devices with live tensors, and the cpu). Compare two
 * snapshots to find a leak.
 */
export function memory() {
  check.arity('memory', arguments.length, 0);
  const w = core();
  const perDevice = {};
  let numTensors = 0;
  let numBytes = 0;
  const live = w.liveTensors(); // counted by the core's handles
  for (const name of new Set(['cpu', ...Object.keys(live)])) {
    const n = live[name] ?? 0;
    let allocated = 0;
    let reserved = 0;
    try {
      const s = w.memoryStats(name);
      allocated = s.allocated;
      reserved = s.reserved;
    } catch {
      // A lost or unopened device has no counters; its tensors still count.
    }
    perDevice[name] = { numTensors: n, numBytes: allocated, reserved };
    numTensors += n;
    numBytes += allocated;
  }
  return { numTensors, numBytes, devices: perDevice };
}

// Device management (see docs/guide/devices.md): soft placement, the placement log, memory limits,
// transfer counters, timing events, recovery after device loss, logical devices, launch blocking.
export function setSoftDevicePlacement(on) { check.arity('setSoftDevicePlacement', arguments.length, 1); return core().setSoftDevicePlacement(check.flag('setSoftDevicePlacement', 'on', on)); }
export function softDevicePlacement() { check.arity('softDevicePlacement', arguments.length, 0); return core().softDevicePlacement(); }
export function setLogDevicePlacement(on) { check.arity('setLogDevicePlacement', arguments.length, 1); return core().setLogDevicePlacement(check.flag('setLogDevicePlacement', 'on', on)); }
export function placementLog() { check.arity('placementLog', arguments.length, 0); return core().placementLog(); }
export function clearPlacementLog() { check.arity('clearPlacementLog', arguments.length, 0); return core().clearPlacementLog(); }
/** A hard memory limit in bytes on `device` (`null` removes it). */
export function setMemoryLimit(device, bytes) {
  check.arity('setMemoryLimit', arguments.length, 2);
  const d = dev('setMemoryLimit', device);
  const b = bytes === undefined || bytes === null ? undefined : check.integer('setMemoryLimit', 'bytes', bytes, 0);
  return core().setMemoryLimit(d, b);
}
export function memoryLimit(device) { check.arity('memoryLimit', arguments.length, 1); return core().memoryLimit(dev('memoryLimit', device)) ?? null; }
export function transferStats(device) { check.arity('transferStats', arguments.length, 1); return core().transferStats(dev('transferStats', device)); }
export function resetTransferStats(device) { check.arity('resetTransferStats', arguments.length, 1); return core().resetTransferStats(dev('resetTransferStats', device)); }
export async function recover(device) { check.arity('recover', arguments.length, 1); return core().recover(dev('recover', device)); }
export function setLogicalDeviceConfiguration(device, configs) {
  check.arity('setLogicalDeviceConfiguration', arguments.length, 2);
  const d = dev('setLogicalDeviceConfiguration', device);
  if (!Array.isArray(configs)) check.fail(TypeError, 'setLogicalDeviceConfiguration', 'configs', configs, 'an array of { memoryLimit } objects');
  return core().setLogicalDeviceConfiguration(d, configs);
}
export function setLaunchBlocking(on) { check.arity('setLaunchBlocking', arguments.length, 1); return core().setLaunchBlocking(check.flag('setLaunchBlocking', 'on', on)); }
export function launchBlocking() { check.arity('launchBlocking', arguments.length, 0); return core().launchBlocking(); }
export function setLazyElementwise(on) { check.arity('setLazyElementwise', arguments.length, 1); return core().setLazyElementwise(check.flag('setLazyElementwise', 'on', on)); }
export function lazyElementwise() { check.arity('lazyElementwise', arguments.length, 0); return core().lazyElementwise(); }
export function kernelLaunches(device) { check.arity('kernelLaunches', arguments.length, 1); return core().kernelLaunches(dev('kernelLaunches', device)); }
const FUSED_MODES = ['auto', 'always', 'never'];
export function setFusedKernels(mode) {
  check.arity('setFusedKernels', arguments.length, 1);
  if (!FUSED_MODES.includes(mode)) check.fail(TypeError, 'setFusedKernels', 'mode', mode, "'auto', 'always' or 'never'");
  return core().setFusedKernels(mode);
}
export function fusedKernels() { check.arity('fusedKernels', arguments.length, 0); return core().fusedKernels(); }
/** @internal Test hook: makes the next kernel on `device` invalid. */
export function __injectDispatchError(device) { check.arity('__injectDispatchError', arguments.length, 1); return core().__injectDispatchError(dev('__injectDispatchError', device)); }
/** @internal Test hook: destroys `device`, which is then reported lost (see `recover`). */
export function __destroyDevice(device) { check.arity('__destroyDevice', arguments.length, 1); return core().__destroyDevice(dev('__destroyDevice', device)); }
/** @internal The core's op table, which the suite checks this class and the types against. */
export function __opTable() { check.arity('__opTable', arguments.length, 0); return core().opTable(); }

/** A point in a device's queued work, for timing (GPU timestamps where available). */
export class Event {
  /** @internal */
  constructor(raw, device) {
    this.raw = raw;
    this.device = device;
  }
  static async record(device) {
    const d = dev('Event.record', device);
    return new Event(await core().RawEvent.record(d), d);
  }
  /** 'timestamp-query' or 'wall-clock'. */
  get method() { return this.raw.method; }
  /** Milliseconds from this event to `end`. */
  elapsedMs(end) {
    if (!(end instanceof Event)) check.fail(TypeError, 'elapsedMs', 'end', end, 'an Event');
    return this.raw.elapsedMs(end.raw);
  }
}
