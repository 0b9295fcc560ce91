// Types of the webtensor npm package (the same API from the Node and browser entries).

export type DType = 'float32' | 'float16' | 'int32' | 'uint32' | 'bool';
/** `cpu`, `webgpu`, `webgpu:N`, `meta` (and natively `cuda:N`, ...). */
export type DeviceName = string;

/** The typed array `data()` resolves to for each dtype (float16 reads as Float32Array). */
export interface DataByDType {
  float32: Float32Array;
  float16: Float32Array;
  int32: Int32Array;
  uint32: Uint32Array;
  bool: Uint8Array;
}

export type NestedArray<T> = T | NestedArray<T>[];
export type ValueOf<D extends DType> = D extends 'bool' ? boolean : number;

export interface CreateOptions<D extends DType = DType> {
  device?: DeviceName;
  dtype?: D;
}

export interface TensorOptions<D extends DType = DType> extends CreateOptions<D> {
  /** Required when `values` is a typed array with more than one dimension. */
  shape?: number[];
}

export interface RandomOptions {
  device?: DeviceName;
  /** Same seed, same values, on every device. */
  seed?: number;
}

export interface MomentOptions {
  /** 1 (the default) for the unbiased estimate, 0 for the population one. */
  correction?: number;
  keepdim?: boolean;
}

export interface DeviceInfo {
  name: DeviceName;
  backend: string;
  type: string;
  /** Whether this is a software/fallback adapter (SwiftShader, lavapipe). */
  fallback: boolean;
  adapter: string;
  driver: string;
  limits: Record<string, number>;
  features: string[];
  /** For a logical device (see `logicalDevices`): its index among its adapter's logical devices. */
  logical: number | null;
}

/** One logical device carved out of an adapter. */
export interface LogicalDeviceConfig {
  /** Its memory limit in bytes (`null` or absent: none). */
  memoryLimit?: number | null;
}

export declare class Tensor<D extends DType = DType> {
  private constructor();
  readonly shape: number[];
  readonly dtype: D;
  readonly device: DeviceName;
  readonly size: number;
  readonly rank: number;

  add(other: Tensor | number): Tensor;
  sub(other: Tensor | number): Tensor;
  mul(other: Tensor | number): Tensor;
  div(other: Tensor | number): Tensor;
  pow(other: Tensor | number): Tensor;
  maximum(other: Tensor | number): Tensor;
  minimum(other: Tensor | number): Tensor;
  eq(other: Tensor | number): Tensor<'bool'>;
  ne(other: Tensor | number): Tensor<'bool'>;
  lt(other: Tensor | number): Tensor<'bool'>;
  le(other: Tensor | number): Tensor<'bool'>;
  gt(other: Tensor | number): Tensor<'bool'>;
  ge(other: Tensor | number): Tensor<'bool'>;

  neg(): Tensor<D>;
  abs(): Tensor<D>;
  exp(): Tensor;
  log(): Tensor;
  sqrt(): Tensor;
  rsqrt(): Tensor;
  reciprocal(): Tensor;
  square(): Tensor<D>;
  sin(): Tensor;
  cos(): Tensor;
  tanh(): Tensor;
  sigmoid(): Tensor;
  relu(): Tensor<D>;
  gelu(): Tensor;
  silu(): Tensor;
  floor(): Tensor<D>;
  ceil(): Tensor<D>;
  round(): Tensor<D>;
  sign(): Tensor<D>;

  /** `this ? a : b`, elementwise with broadcasting (this is the condition). */
  where(a: Tensor, b: Tensor): Tensor;
  clamp(min?: number | null, max?: number | null): Tensor<D>;

  sum(dim?: number | number[] | null, keepdim?: boolean): Tensor;
  mean(dim?: number | number[] | null, keepdim?: boolean): Tensor;
  max(dim?: number | number[] | null, keepdim?: boolean): Tensor<D>;
  min(dim?: number | number[] | null, keepdim?: boolean): Tensor<D>;
  prod(dim?: number | number[] | null, keepdim?: boolean): Tensor;
  argmax(dim?: number | null, keepdim?: boolean): Tensor<'int32'>;
  argmin(dim?: number | null, keepdim?: boolean): Tensor<'int32'>;
  var(dim?: number | number[] | null, options?: MomentOptions): Tensor;
  std(dim?: number | number[] | null, options?: MomentOptions): Tensor;
  softmax(dim?: number): Tensor;
  logSoftmax(dim?: number): Tensor;
  matmul(other: Tensor): Tensor;

  reshape(shape: number[]): Tensor<D>;
  view(shape: number[]): Tensor<D>;
  flatten(): Tensor<D>;
  permute(dims: number[]): Tensor<D>;
  transpose(a: number, b: number): Tensor<D>;
  t(): Tensor<D>;
  narrow(dim: number, start: number, length: number): Tensor<D>;
  slice(dim: number, start: number, end: number): Tensor<D>;
  squeeze(dim?: number): Tensor<D>;
  unsqueeze(dim: number): Tensor<D>;
  expand(shape: number[]): Tensor<D>;
  broadcastTo(shape: number[]): Tensor<D>;
  contiguous(): Tensor<D>;
  clone(): Tensor<D>;
  toDtype<T extends DType>(dtype: T): Tensor<T>;
  indexSelect(dim: number, index: Tensor<'int32' | 'uint32'>): Tensor<D>;
  gather(dim: number, index: Tensor<'int32' | 'uint32'>): Tensor<D>;

  /** The elements as a typed array, read back from any device. */
  data(): Promise<DataByDType[D]>;
  /** The elements as nested arrays. */
  array(): Promise<NestedArray<ValueOf<D>>>;
  /** Synchronous read, only for tensors on the cpu (elsewhere it throws: use `await data()`). */
  dataSync(): DataByDType[D];
  /** A copy on `device`; this tensor is untouched. */
  to(device: DeviceName): Promise<Tensor<D>>;
  cpu(): Promise<Tensor<D>>;
  /** Frees the tensor's memory now (idempotent). */
  dispose(): void;
  [Symbol.dispose](): void;
  toString(): string;
}

export interface InitOptions {
  /** Node: a WebGPU implementation, e.g. `create([])` from the `webgpu` package. */
  gpu?: unknown;
  /** Node: WebGPU globals to install (defaults to the `webgpu` package's). */
  globals?: Record<string, unknown>;
  /** Where the .wasm lives (a URL, path, or bytes), when not next to the package. */
  wasm?: URL | string | BufferSource;
  /**
   * Splits adapters into logical devices before any opens (TensorFlow's
   * `setLogicalDeviceConfiguration`), e.g. `{ 'webgpu:0': [{ memoryLimit: 1 << 26 }, {}] }`:
   * `webgpu:0` and `webgpu:1` become the two halves, each its own device.
   */
  logicalDevices?: Record<DeviceName, LogicalDeviceConfig[]>;
}

/** Loads the module, discovers adapters and opens the best device; resolves to its name. */
export function init(options?: InitOptions): Promise<DeviceName>;
export function devices(): DeviceInfo[];
export function bestDevice(): DeviceName;
export function open(device: DeviceName): Promise<void>;
export function synchronize(device: DeviceName): Promise<void>;
export function setDefaultDevice(device: DeviceName): void;
export function defaultDevice(): DeviceName;

export function tensor<D extends DType = 'float32'>(
  values: NestedArray<number | boolean> | ArrayLike<number>,
  options?: TensorOptions<D>,
): Tensor<D>;
export function full<D extends DType = 'float32'>(shape: number[], value: number, options?: CreateOptions<D>): Tensor<D>;
export function zeros<D extends DType = 'float32'>(shape: number[], options?: CreateOptions<D>): Tensor<D>;
export function ones<D extends DType = 'float32'>(shape: number[], options?: CreateOptions<D>): Tensor<D>;
export function arange<D extends DType = 'float32'>(start: number, end: number, step?: number, options?: CreateOptions<D>): Tensor<D>;
export function rand(shape: number[], options?: RandomOptions): Tensor<'float32'>;
export function randn(shape: number[], options?: RandomOptions): Tensor<'float32'>;
export function cat(tensors: Tensor[], dim?: number): Tensor;
export function stack(tensors: Tensor[], dim?: number): Tensor;
/** Runs `fn`, then disposes every tensor it created except those in its result. */
export function tidy<T>(fn: () => T): T;

export function memoryAllocated(device: DeviceName): number;
export function memoryReserved(device: DeviceName): number;
export function maxMemoryAllocated(device: DeviceName): number;
export function resetPeakMemoryStats(device: DeviceName): void;
export function emptyCache(device: DeviceName): void;
export function memorySummary(device: DeviceName): string;

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
export function setMemoryLimit(device: DeviceName, bytes: number | null): void;
export function memoryLimit(device: DeviceName): number | null;
export function transferStats(device: DeviceName): TransferStats;
export function resetTransferStats(device: DeviceName): void;
/** Opens a fresh device in place of a lost one; the lost device's tensors stay lost. */
export function recover(device: DeviceName): Promise<void>;
/** Splits an adapter into logical devices: after `init`, before any GPU device is opened. */
export function setLogicalDeviceConfiguration(device: DeviceName, configs: LogicalDeviceConfig[]): void;
/**
 * Launch-blocking mode (CUDA_LAUNCH_BLOCKING's analogue): every op gets its own error scope, and
 * the next `synchronize` or readback rejects with the first error, naming the kernel that caused it.
 */
export function setLaunchBlocking(on: boolean): void;
export function launchBlocking(): boolean;

/** A point in a device's queued work, for timing. */
export declare class Event {
  private constructor();
  static record(device: DeviceName): Promise<Event>;
  readonly device: DeviceName;
  readonly method: 'timestamp-query' | 'wall-clock';
  elapsedMs(end: Event): Promise<number>;
}
