// What the generated type checks (js/test/*types.generated.ts, from scripts/gen-op-types.mjs)
// share: the exactness helpers, a tensor of each dtype, the index/mask/class tensors the calls
// use, and nn.functional. Compiled by `npm run test:types` through their imports.
import type { Tensor } from '../index.js';
import * as wt from '../index.js';

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends (<T>() => T extends Y ? 1 : 2) ? true : false;
type DtypeOf<T> = T extends Tensor<infer D> ? D : never;
/** Compiles only when `A` is exactly `B`. */
export declare function exact<A, B>(ok: Equal<A, B>): void;
/** Compiles only when the declared union `A` holds the dtype `D`. */
export declare function holds<A, D>(ok: D extends DtypeOf<A> ? true : false): void;
export declare const float32: Tensor<'float32'>;
export declare const float16: Tensor<'float16'>;
export declare const int32: Tensor<'int32'>;
export declare const uint32: Tensor<'uint32'>;
export declare const bool: Tensor<'bool'>;
export declare const uint8: Tensor<'uint8'>;
export declare const int8: Tensor<'int8'>;
/** [2, 3] int32 indices below 2 (gather, scatter). */
export declare const I: Tensor<'int32'>;
/** A 1-D int32 index (indexSelect, indexAdd). */
export declare const J: Tensor<'int32'>;
/** A bool mask (where, maskedFill). */
export declare const M: Tensor<'bool'>;
/** [2] int32 class indices below 3 (the losses). */
export declare const K: Tensor<'int32'>;
export const F = wt.nn.functional;
