// What the Node and browser entries share about `init`: option checks, and the rule that one
// init runs at a time, a failed one can be retried, and a later call that brings something new
// (a GPU in Node) runs again instead of returning the first result.
import * as check from './check.js';

let done = null; // the device name of the last successful init
let running = null;

/** Checks init's options object (keys and the wasm source). */
export function initOptions(options, allowed) {
  const o = check.options('init', options, allowed);
  if (o.wasm !== undefined && !(typeof o.wasm === 'string' || o.wasm instanceof URL || o.wasm instanceof ArrayBuffer
    || ArrayBuffer.isView(o.wasm) || (typeof Response !== 'undefined' && o.wasm instanceof Response))) {
    check.fail(TypeError, 'init', 'options.wasm', o.wasm, 'a URL, a path string, an ArrayBuffer or a typed array');
  }
  if (o.logicalDevices !== undefined && o.logicalDevices !== null
    && (typeof o.logicalDevices !== 'object' || Array.isArray(o.logicalDevices))) {
    check.fail(TypeError, 'init', 'options.logicalDevices', o.logicalDevices, "an object such as { 'webgpu:0': [{ memoryLimit: 67108864 }, {}] }");
  }
  return o;
}

/**
 * Runs `start(first)` unless an init already succeeded and `o` asks for nothing new. Concurrent
 * calls share one run; a failure clears the way for the next call.
 */
export function once(o, start) {
  const wantsMore = Boolean(o.gpu);
  if (running) return running.then(() => (wantsMore ? once(o, start) : done));
  if (done !== null && !wantsMore) {
    if (o.logicalDevices) return Promise.reject(new Error('init: logicalDevices can only be given to the first init(); webtensor is already initialised'));
    return Promise.resolve(done);
  }
  const first = done === null;
  running = (async () => start(first))().then(
    (name) => {
      done = name;
      running = null;
      return name;
    },
    (e) => {
      running = null;
      throw e;
    },
  );
  return running;
}
