// Types of webtensor's device management (js/devices.js): memory counters and limits, the
// placement log and soft placement, transfer counters, recovery, logical devices, launch
// blocking and timing events. Re-exported by index.d.ts.
import type { DeviceLike, DeviceName, LogicalDeviceConfig } from './index.js';

export function memoryAllocated(device: DeviceLike): number;
export function memoryReserved(device: DeviceLike): number;
export function maxMemoryAllocated(device: DeviceLike): number;
export function resetPeakMemoryStats(device: DeviceLike): void;
export function emptyCache(device: DeviceLike): void;
export function memorySummary(device: DeviceLike): string;

export interface MemoryStats {
  /** Bytes in blocks held by live tensors. */
  allocated: number;
  /** Bytes held by the allocator: live blocks plus cached ones. */
  reserved: number;
  /** The highest `allocated` since the last `resetPeakMemoryStats`. */
  peak: number;
  /** Allocations served since the device opened. */
  allocations: number;
}
/** A device's allocator counters. */
export function memoryStats(device: DeviceLike): MemoryStats;

export interface DeviceMemory {
  /** Live Tensor objects on the device. */
  numTensors: number;
  /** Bytes their storage holds (views share storage, so this is not per tensor). */
  numBytes: number;
  /** Bytes the device's allocator holds, cached blocks included. */
  reserved: number;
}
export interface MemoryInfo {
  numTensors: number;
  numBytes: number;
  /** Per device: the cpu, and every device with live tensors. */
  devices: Record<DeviceName, DeviceMemory>;
}
/** What is alive, as TensorFlow.js's `tf.memory()`: compare two snapshots to find a leak. */
export function memory(): MemoryInfo;

export interface Placement {
  op: string;
  inputs: DeviceName[];
  output: DeviceName;
  /** Why the op did not run where asked, when it fell back. */
  fallback: string | null;
}

export interface TransferStats {
  hostToDeviceBytes: number;
  hostToDeviceCopies: number;
  deviceToHostBytes: number;
  deviceToHostCopies: number;
  deviceToDeviceBytes: number;
  deviceToDeviceCopies: number;
  readbackWaitMs: number;
}

/**
 * Soft placement: a device that does not exist falls back to one that does, and an op the device
 * cannot run (f16 without `shader-f16`) runs on the cpu with its result moved back; later work on
 * that device waits for it. Every fallback is in the placement log.
 */
export function setSoftDevicePlacement(on: boolean): void;
export function softDevicePlacement(): boolean;
/** Records every op's placement (off by default). */
export function setLogDevicePlacement(on: boolean): void;
export function placementLog(): Placement[];
export function clearPlacementLog(): void;
/** A hard memory limit in bytes (`null` removes it): passing it fails with an out-of-memory error. */
export function setMemoryLimit(device: DeviceLike, bytes: number | null): void;
export function memoryLimit(device: DeviceLike): number | null;
export function transferStats(device: DeviceLike): TransferStats;
export function resetTransferStats(device: DeviceLike): void;
/** Opens a fresh device in place of a lost one; the lost device's tensors stay lost. */
export function recover(device: DeviceLike): Promise<void>;
/** Splits an adapter into logical devices: after `init`, before any GPU device is opened. */
export function setLogicalDeviceConfiguration(device: DeviceLike, configs: LogicalDeviceConfig[]): void;
/**
 * Launch-blocking mode (CUDA_LAUNCH_BLOCKING's analogue): every op gets its own error scope, and
 * the next `synchronize` or readback rejects with the first error, naming the kernel that caused it.
 */
export function setLaunchBlocking(on: boolean): void;
export function launchBlocking(): boolean;
/**
 * The lazy elementwise tier (on by default): on a WebGPU device, f32 unary ops, arithmetic with
 * tensors or scalars and copies are recorded instead of dispatched, and a chain of them runs
 * as one generated kernel when something uses its result (another kind of op, `data()`, a
 * move, `synchronize`, a memory query). The values are the op-by-op values (to a few ulps);
 * launch-blocking mode runs op by op. A result nobody uses is never computed. Applies to ops
 * issued after it.
 */
export function setLazyElementwise(on: boolean): void;
export function lazyElementwise(): boolean;
/**
 * Kernel launches on `device` since it opened: WebGPU compute dispatches (0 on the cpu). For
 * seeing what an operation costs: a fused optimizer step is one launch per eight parameters on
 * a hardware GPU (one per parameter on a software adapter, unless `setFusedKernels('always')`).
 */
export function kernelLaunches(device: DeviceLike): number;
/** When the ops run the fused kernels (attention, LayerNorm) instead of their composed formulas. */
export type FusedKernels = 'auto' | 'always' | 'never';
/**
 * `'auto'` (the default) fuses attention where it pays: heads up to 64 wide everywhere (tiled
 * kernels on hardware GPUs), wider heads on the CPU and software adapters only, composing on
 * hardware GPUs; `'always'` fuses wherever the kernels apply (and updates eight parameters an
 * optimizer launch on software adapters too, as on hardware GPUs); `'never'` composes every op.
 * Like PyTorch's `enable_flash_sdp` / `enable_math_sdp`. Applies to ops issued after it.
 */
export function setFusedKernels(mode: FusedKernels): void;
export function fusedKernels(): FusedKernels;

/** A point in a device's queued work, for timing. */
export declare class Event {
  private constructor();
  static record(device: DeviceLike): Promise<Event>;
  readonly device: DeviceName;
  readonly method: 'timestamp-query' | 'wall-clock';
  elapsedMs(end: Event): Promise<number>;
}
