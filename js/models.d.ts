// Types of wt.models (js/models.js).
import type { DeviceLike, Tensor } from './index.js';
import type { Module } from './nn.js';

/** nanoGPT's GPTConfig in JavaScript spelling. */
export interface GPTConfig {
  vocabSize: number;
  blockSize: number;
  nLayer: number;
  nHead: number;
  nEmbd: number;
  dropout?: number | undefined;
  bias?: boolean | undefined;
  seed?: number | undefined;
  device?: DeviceLike | undefined;
}

/** Options of `GPT.generate`. */
export interface GenerateOptions {
  temperature?: number | undefined;
  topK?: number | null | undefined;
  seed?: number | null | undefined;
  greedy?: boolean | undefined;
}

/** nanoGPT's GPT: nanoGPT's state-dict keys, tied embedding, forward with targets, KV-cached generate. */
export declare class GPT extends Module {
  constructor(config: GPTConfig);
  readonly config: Readonly<Required<Omit<GPTConfig, 'seed' | 'device'>>> & { device: string | undefined };
  /** Parameters, each once; without the position embedding unless `nonEmbedding` is false. */
  numParameters(nonEmbedding?: boolean): number;
  /** `{ logits: [B, T, vocab], loss }` for int32 ids `[B, T]` (loss with targets, -1 ignored). */
  forward(idx: Tensor, targets?: Tensor | null): { logits: Tensor<'float32'>; loss: Tensor<'float32'> | null };
  /** `maxNewTokens` ids after `idx`, sampled (temperature, top-k, seed) or greedy. */
  generate(idx: Tensor, maxNewTokens: number, options?: GenerateOptions): Promise<Tensor<'int32'>>;
}
