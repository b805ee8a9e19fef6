/**
 * The Opus codec of the media thread: @evan/opus's WebAssembly build. Its native addon (what
 * `@evan/opus` loads on Linux x64, about 2.5 times faster) crashes the whole process with SIGSEGV
 * whenever a worker thread that loaded it ends, at any exit of the worker. Prompts are encoded once
 * per prompt for every call that plays it, so the slower encoder costs little (about 0.25 ms per
 * 20 ms frame); decoding a recorded call's audio is 18 µs a packet.
 */
export { Decoder, Encoder } from '@evan/opus/wasm/index.js';
