// Device management: discovery, memory statistics and limits, soft placement and its log,
// transfer counters, timing events, recovery, logical devices, launch blocking.
import * as check from './check.js';
import { core } from './internal.js';

const dev = (fn, d) => check.device(fn, d);
export const devices = () => core().devices();
export const bestDevice = () => core().bestDevice();
export const open = async (device) => core().open(dev('open', device));
export const synchronize = async (device) => core().synchronize(dev('synchronize', device));
export const setDefaultDevice = (device) => core().setDefaultDevice(dev('setDefaultDevice', device));
export const defaultDevice = () => core().defaultDevice();
/** Whether a device of `kind` ('cpu', 'webgpu', 'cuda', 'meta', or 'gpu' for any accelerator) is usable. */
export const isAvailable = (kind) => core().isAvailable(kindOf('isAvailable', kind));
/** How many devices of `kind` are usable. */
export const deviceCount = (kind) => core().deviceCount(kindOf('deviceCount', kind));
function kindOf(fn, kind) {
  if (typeof kind !== 'string') check.fail(TypeError, fn, 'kind', kind, "one of 'cpu', 'webgpu', 'cuda', 'meta', 'gpu'");
  return kind;
}
export const memoryAllocated = (device) => core().memoryAllocated(dev('memoryAllocated', device));
export const memoryReserved = (device) => core().memoryReserved(dev('memoryReserved', device));
export const maxMemoryAllocated = (device) => core().maxMemoryAllocated(dev('maxMemoryAllocated', device));
export const resetPeakMemoryStats = (device) => core().resetPeakMemoryStats(dev('resetPeakMemoryStats', device));
export const emptyCache = (device) => core().emptyCache(dev('emptyCache', device));
export const memorySummary = (device) => core().memorySummary(dev('memorySummary', device));
/** A device's allocator counters: `{ allocated, reserved, peak, allocations }`. */
export const memoryStats = (device) => core().memoryStats(dev('memoryStats', device));

/**
 * What is alive, as TensorFlow.js's `tf.memory()`: live Tensor objects and the bytes their
 * storage holds, in total and per device (devices with live tensors, and the cpu). Compare two
 * snapshots to find a leak.
 */
export function memory() {
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

// Device management (see the README): soft placement, the placement log, memory limits,
// transfer counters, timing events, recovery after device loss, logical devices, launch blocking.
export const setSoftDevicePlacement = (on) => core().setSoftDevicePlacement(check.flag('setSoftDevicePlacement', 'on', on));
export const softDevicePlacement = () => core().softDevicePlacement();
export const setLogDevicePlacement = (on) => core().setLogDevicePlacement(check.flag('setLogDevicePlacement', 'on', on));
export const placementLog = () => core().placementLog();
export const clearPlacementLog = () => core().clearPlacementLog();
/** A hard memory limit in bytes on `device` (`null` removes it). */
export function setMemoryLimit(device, bytes) {
  const d = dev('setMemoryLimit', device);
  const b = bytes === undefined || bytes === null ? undefined : check.integer('setMemoryLimit', 'bytes', bytes, 0);
  return core().setMemoryLimit(d, b);
}
export const memoryLimit = (device) => core().memoryLimit(dev('memoryLimit', device)) ?? null;
export const transferStats = (device) => core().transferStats(dev('transferStats', device));
export const resetTransferStats = (device) => core().resetTransferStats(dev('resetTransferStats', device));
export const recover = async (device) => core().recover(dev('recover', device));
export function setLogicalDeviceConfiguration(device, configs) {
  const d = dev('setLogicalDeviceConfiguration', device);
  if (!Array.isArray(configs)) check.fail(TypeError, 'setLogicalDeviceConfiguration', 'configs', configs, 'an array of { memoryLimit } objects');
  return core().setLogicalDeviceConfiguration(d, configs);
}
export const setLaunchBlocking = (on) => core().setLaunchBlocking(check.flag('setLaunchBlocking', 'on', on));
export const launchBlocking = () => core().launchBlocking();
/** @internal Test hook: makes the next kernel on `device` invalid. */
export const __injectDispatchError = (device) => core().__injectDispatchError(dev('__injectDispatchError', device));
/** @internal Test hook: destroys `device`, which is then reported lost (see `recover`). */
export const __destroyDevice = (device) => core().__destroyDevice(dev('__destroyDevice', device));
/** @internal The core's op table, which the suite checks this class and the types against. */
export const __opTable = () => core().opTable();

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
